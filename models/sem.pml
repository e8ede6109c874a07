/*
 * models/sem.pml - the fx_sem protocol of src/sem.c, with the futex.
 *
 * Three waiters (one of them timed) and two posters that post three tokens in
 * all, so every untimed waiter must get a token. Checked:
 *   - no lost wake-up: every run ends with every process finished (a waiter
 *     left asleep is an invalid end state, and init then blocks too);
 *   - tokens are conserved: posted = taken + value left, and the waiter count
 *     returns to 0 (assertions in init);
 *   - the value never goes negative (assertion after every take).
 *
 * Futex semantics: futex_wait compares the word and queues the caller in one
 * atomic step; the caller then leaves when a wake dequeues it (result 0),
 * or, at any moment, by a timeout (timed waiters only) or a signal (EINTR,
 * at most SIGNALS times per waiter, so that a waiter nobody wakes does stay
 * blocked and shows up as an invalid end state), both of which dequeue it
 * themselves. A wake dequeues one queued process,
 * chosen nondeterministically, or nobody. Memory is sequentially consistent:
 * the steps modelled are the seq_cst ones of the Dekker pattern (P1, P2, W1,
 * W2) and CASes; a relaxed load that only guesses a CAS operand is folded
 * into the CAS (a CAS loop is one atomic conditional update).
 *
 * The adaptive spin of the slow path (sem.c:129-141, a thread-local budget,
 * struct fxi_spin of src/internal/spin.h) runs before W1: relaxed loads of the
 * value and, when one sees a token, T (fx_sem_take). A failed T and a load
 * change nothing, and before W1 the waiter is invisible to everyone else, so
 * a spin is the fast-path T taken later: the model's fast-path T may happen
 * at any point before W1 (other processes interleave between the two steps),
 * which covers every run of the spin, however long its budget.
 *
 * Step names refer to the table at the top of src/sem.c; every step names the
 * line(s) it mirrors as "sem.c:LINE".
 */
//@source src/sem.c sha256=9761aee083a71f7ba463abd3b00f62c29c2a4c4e4202f5add2c817a80a214db9
//@check safety

#define NW 3          /* waiters */
#define WOKEN 0
#define SLEEPING 1
#define EAGAIN 2
#define ETIMEDOUT 3
#define EINTR 4
#define SIGNALS 1     /* EINTRs per waiter */

int value = 0;        /* fx_sem.value */
int waiters = 0;      /* fx_sem.waiters */
bool queued[NW];      /* the futex queue of &value */
byte posted = 0;      /* tokens posted (observer) */
byte taken = 0;       /* tokens taken (observer) */

/* T (fx_sem_take, sem.c:88-101; the W2 CAS, sem.c:157-165): one conditional
 * decrement; got = 1 when a token was taken. */
inline take(got)
{
    atomic {
        if
        :: value > 0 -> value--; taken++; got = 1; assert(value >= 0)
        :: else -> got = 0
        fi
    }
}

/* fxi_futex_wait_raw(&value, expected) (futex.c:33-57): compare-and-queue, then
 * leave by a wake, a timeout (if timed) or a signal. */
inline futex_wait(me, expected, timed, signals, r)
{
    atomic {
        if
        :: value != expected -> r = EAGAIN
        :: else -> queued[me] = 1; r = SLEEPING
        fi
    }
    if
    :: r == SLEEPING ->
        if
        :: atomic { !queued[me] -> r = WOKEN }
        :: timed -> atomic {
               if
               :: queued[me] -> queued[me] = 0; r = ETIMEDOUT
               :: else -> r = WOKEN /* the wake won the race */
               fi }
        :: atomic { signals > 0 && queued[me] -> queued[me] = 0; signals--; r = EINTR }
        fi
    :: else -> skip
    fi
}

/* fxi_futex_wake_raw(&value, 1) (futex.c:59-64): dequeue one queued waiter,
 * if any. */
inline futex_wake_one()
{
    atomic {
        if
        :: queued[0] -> queued[0] = 0
        :: queued[1] -> queued[1] = 0
        :: queued[2] -> queued[2] = 0
        :: else -> skip
        fi
    }
}

/* fx_sem_post, sem.c:103-123. The post at the maximum (EOVERFLOW,
 * sem.c:113-117) is not modelled: it adds and removes a token with the value
 * far from 0, so no waiter sleeps meanwhile. */
proctype poster(byte tokens)
{
    do
    :: tokens > 0 ->
        atomic { value++; posted++ };       /* P1, sem.c:112 (seq_cst fetch_add) [M:P1] */
        if
        :: waiters != 0 -> futex_wake_one() /* P2, sem.c:120-121 [M:P2] */
        :: else -> skip
        fi;
        tokens--
    :: else -> break
    od
}

/* fx_sem_wait / fx_sem_timedwait, sem.c:186-210, and the slow path
 * fx_sem_wait_slow, sem.c:126-184 (the spin, sem.c:129-141, only repeats the
 * fast-path T; see the header). */
proctype waiter(byte me; bool timed)
{
    bit got = 0;
    byte r;
    byte signals = SIGNALS;
    take(got);                              /* fast path T, sem.c:191 / sem.c:204 */
    if
    :: got -> goto done
    :: else -> skip
    fi;
    waiters++;                              /* W1, sem.c:149 */
    do
    :: take(got);                           /* W2 + T, sem.c:152-165 */
       if
       :: got -> break
       :: else -> skip
       fi;
       futex_wait(me, 0, timed, signals, r); /* W3, sem.c:167 */
       if
       :: r == ETIMEDOUT ->
           take(got);                       /* the last T, sem.c:168-176 */
           break
       :: else -> skip                      /* W4, sem.c:177-178: woken, EAGAIN, EINTR */
       fi
    od;
    waiters--;                              /* W5, sem.c:182 */
done:
    assert(timed || got)                    /* only a timed wait may fail */
}

init {
    atomic {
        run waiter(0, 1);
        run waiter(1, 0);
        run waiter(2, 0);
        run poster(2);
        run poster(1)
    };
    (_nr_pr == 1);                          /* everyone finished */
    assert(posted == 3);
    assert(posted == taken + value);
    assert(waiters == 0);
    assert(!queued[0] && !queued[1] && !queued[2])
}
