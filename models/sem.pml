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
 * the steps modelled are those of the Dekker pattern (P1, P2 seq_cst; W1, W2
 * relaxed in the C, whose waiter's side is closed by the kernel's full barrier
 * before its compare in W3, a step of its own here; the weak-memory argument
 * is GenMC's, tests/genmc/) and CASes; a relaxed load that only guesses a CAS
 * operand is folded into the CAS (a CAS loop is one atomic conditional
 * update).
 *
 * The adaptive spin of the slow path (@sem.wait_slow.spin, a thread-local budget,
 * struct fxi_spin of src/internal/spin.h) runs before W1: relaxed loads of the
 * value and, when one sees a token, T (sem_take). A failed T and a load
 * change nothing, and before W1 the waiter is invisible to everyone else, so
 * a spin is the fast-path T taken later: the model's fast-path T may happen
 * at any point before W1 (other processes interleave between the two steps),
 * which covers every run of the spin, however long its budget.
 *
 * Step names refer to the table at the top of src/sem.c; every step names the
 * step tag it mirrors as "@sem.<step>".
 */
//@mirrors src/futex.c fxi_futex_wait_raw fxi_futex_wake_raw sha256=dce47033ca72a3d7606308724ad4fe8606ac00a881241bc263cbeef98f2b76b6
//@mirrors src/sleep.c fxi_futex_sleep fxi_futex_sleep_cancel sleep_call sleep_bounded recheck_scope engine_wait engine_sleep engine_probe engine_look sha256=7c292b23b687578cceb54ce8f65e57de8a1ce92c0953f47ae65cf430ada863c2
//@mirrors src/sem.c fx_sem_post sem_post_body sem_post_wake sem_sleep sem_take fx_sem_timedwait fx_sem_wait sem_wait_body sem_wait_slow sha256=fcbf64149e3958c9771360b799f4c4fadc6e5a8b04882e6d2ef2e9763f3fb3b9
//@mirrors src/internal/waiters.h fxi_waiters_enter sha256=e6b4574e505576255a4046e49cf89e45b47840b48b8c6fb909045516b5fd4ad1
//@check safety
//@check ltl token_taken -DDEATHS=1

#define NW 3          /* waiters */
#define WOKEN 0
#define SLEEPING 1
#define EAGAIN 2
#define ETIMEDOUT 3
#define EINTR 4
#ifndef DEATHS
#define DEATHS 0      /* processes killed in a run, at most */
#endif
#ifndef BOUNDED
#define BOUNDED (DEATHS > 0) /* the sleeps end at a recheck (fxi_futex_sleep); off, it
                                is also a private object, whose sleeps have
                                no recheck once their scope is known */
#endif
#if DEATHS
#define SIGNALS 0     /* EINTRs per waiter (a recheck is the same step) */
#else
#define SIGNALS 1     /* EINTRs per waiter */
#endif

/* Death (DEATHS > 0; the fix on branch wake, f1260f2): a killer process
 * SIGKILLs at most DEATHS processes, waiters or posters, each at any step:
 * a poster between P1 and P2 (the token is there, its wake never comes: the
 * notifier side), a waiter after P2's wake dequeued it and before it
 * returned to user space (the wake is consumed: the woken side), asleep,
 * anywhere. The kernel drops a dying process from the futex queue; a waiter
 * killed after W1 leaves the waiters count raised (harmless: posters only
 * make a needless FUTEX_WAKE). Every sleep is bounded (fxi_futex_sleep): it
 * ends at the recheck at the latest, always enabled for a sleeper. In
 * shared memory the bound is the process's waiting engine (src/sleep.c): a
 * sleep ends at a look that finds the value no longer 0 (models/engine.pml
 * shows that every sleeper whose word changed is told), and not otherwise.
 * A recheck at any time is exact for that: a waiter whose sleep ends with
 * the value still 0 reads 0 (W2) and sleeps on 0 again (W3), which changes
 * nothing. (Checked 2026-12-07: with the recheck enabled only while the
 * value is not 0, token_taken passes too.)
 * Property token_taken (weak fairness): whenever a token is there while a
 * live waiter is in the slow path, eventually the token is taken or no live
 * waiter waits. The mutation sem-no-recheck (unbounded sleeps) is caught. */
byte deaths = DEATHS;
bool doom[8];         /* the killer chose process p (by _pid): it dies */
bool fin[8];          /* (observer) process p finished */
bool alive[8];        /* (observer) process p is a waiter or poster */
byte nwait = 0;       /* (observer) live waiters between W1 and W5 */
#if DEATHS
#define NWAIT(d) nwait = nwait + d
#else
#define NWAIT(d) skip
#endif

int value = 0;        /* fx_sem.value */
int waiters = 0;      /* fx_sem.waiters */
bool queued[NW];      /* the futex queue of &value */
byte posted = 0;      /* tokens posted (observer) */
byte taken = 0;       /* tokens taken (observer) */

/* T (sem_take, sem.c; the W2 CAS, @sem.wait_slow.take): one conditional
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

/* fxi_futex_wait_raw(&value, expected) (futex.c fxi_futex_wait_raw()): compare-and-queue, then
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
        :: atomic { BOUNDED && queued[me] -> queued[me] = 0; r = WOKEN } /* recheck [M:recheck] */
        fi
    :: else -> skip
    fi
}

/* fxi_futex_wake_raw(&value, 1) (futex.c fxi_futex_wake_raw()): dequeue one queued waiter,
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

/* fx_sem_post, sem.c. The post at the maximum (EOVERFLOW,
 * @sem.post.overflow) is not modelled: it adds and removes a token with the value
 * far from 0, so no waiter sleeps meanwhile. */
proctype poster(byte tokens)
{
#if DEATHS
    alive[_pid] = 1;
    {
#endif
    do
    :: tokens > 0 ->
        atomic { value++; posted++ };       /* P1, @sem.post.add (seq_cst fetch_add) [M:P1] */
        if
        :: waiters != 0 -> futex_wake_one() /* P2, @sem.post.wake [M:P2] */
        :: else -> skip
        fi;
        tokens--
    :: else -> break
    od;
#if DEATHS
    fin[_pid] = 1
    } unless { doom[_pid] }
#endif
}

/* fx_sem_wait / fx_sem_timedwait, sem.c sem_wait_body(), and the slow path
 * sem_wait_slow, sem.c, whose W2..W4 loop is sem_sleep (the spin,
 * @sem.wait_slow.spin, only repeats the fast-path T; see the header). The
 * cancellation points (pthread_testcancel, fxi_futex_sleep_cancel and the
 * cleanup handler sem_cancelled) are not modelled: nobody is cancelled. */
proctype waiter(byte me; bool timed)
{
    bit got = 0;
    byte r;
    byte signals = SIGNALS;
#if DEATHS
    bool reg = 0;
    alive[_pid] = 1;
    {
#endif
    take(got);                              /* fast path T, @sem.wait.take */
    if
    :: got -> goto done
    :: else -> skip
    fi;
    atomic { waiters++; NWAIT(1);           /* W1, @sem.wait_slow.W1 */
#if DEATHS
        reg = 1
#endif
    };
    do
    :: take(got);                           /* W2 + T, @sem.wait_slow.W2 */
       if
       :: got -> break
       :: else -> skip
       fi;
       futex_wait(me, 0, timed, signals, r); /* W3, @sem.wait_slow.W3 */
       if
       :: r == ETIMEDOUT ->
           take(got);                       /* the last T, @sem.wait_slow.timed_out */
           break
       :: else -> skip                      /* W4, @sem.wait_slow.W4: woken, EAGAIN, EINTR */
       fi
    od;
    atomic { waiters--; NWAIT(-1);          /* W5, @sem.wait_slow.W5 */
#if DEATHS
        reg = 0
#endif
    };
done:
    assert(timed || got);                   /* only a timed wait may fail */
#if DEATHS
    fin[_pid] = 1
    } unless {
        atomic { doom[_pid] ->              /* killed: out of the queue */
            queued[me] = 0;
            if :: reg -> nwait-- :: else fi
        }
    }
#endif
}

#if DEATHS
/* Kills a live process (waiter or poster) at any step of it: the victim
 * takes its escape before its next statement, asleep or not. */
#define KILL(p) :: atomic { deaths > 0 && alive[p] && !fin[p] -> doom[p] = 1; deaths-- }
active proctype killer()
{
end:
    do
    KILL(0)
    KILL(1)
    KILL(2)
    KILL(3)
    KILL(4)
    KILL(5)
    KILL(6)
    KILL(7)
    od
}

ltl token_taken { [] ((value > 0 && nwait > 0) -> <> (value == 0 || nwait == 0)) }
#endif

init {
    atomic {
#if DEATHS
        /* Enough for both sides of the wake window: a poster killed between
         * P1 and P2, a woken waiter killed with the other one asleep. */
        run waiter(0, 0);
        run waiter(1, 0);
        run poster(2)
#else
        run waiter(0, 1);
        run waiter(1, 0);
        run waiter(2, 0);
        run poster(2);
        run poster(1)
#endif
    };
#if DEATHS
    skip
#else
    (_nr_pr == 1);                          /* everyone finished */
    assert(posted == 3);
    assert(posted == taken + value);
    assert(waiters == 0);
    assert(!queued[0] && !queued[1] && !queued[2])
#endif
}
