/*
 * models/counter.pml - the wait/wake protocol of src/counter.c, for spin.
 *
 * Mirrors src/counter.c and the waiter's steps R1, R2 and R5 in
 * src/internal/counter_wait.h at the versions pinned by the //@source lines
 * (see models/README.md); each step names the line it mirrors as
 * "counter.c:LINE" (and "counter_wait.h:LINE").
 *
 * The protocol (the table at the top of src/counter.c):
 *
 *   writer (add / store)              waiter (wait for target)
 *   W1 value := new      (seq_cst)    R1 waiters += 1      (seq_cst)
 *   W2 if waiters != 0   (seq_cst)    R2 v := value        (seq_cst)
 *        wake all                     R3 if v == target: done
 *                                     R4 futex_wait(value, v)
 *                                     R5 waiters -= 1      (relaxed)
 *
 * It is correct because W1, W2, R1 and R2 are seq_cst: in their single total
 * order either W2 follows R1 (the writer sees the waiter and wakes it) or R2
 * follows W1 (the waiter sees the new value). The model executes every step
 * atomically in one interleaving, which is exactly what seq_cst guarantees
 * for these four; weaker orders allow the load of each thread to be
 * satisfied before its own earlier store is visible (store buffering), which
 * is what the mutations writer-checks-early and waiter-registers-late of
 * models/mutate.sh model, and spin then finds the lost wake-up.
 *
 * What is modelled: NWRITERS writers each doing fx_counter_add(c, 1) (W1 is
 * the fetch_add; fx_counter_store differs only in W1 being a store, which is
 * the same single atomic write here), two waiters without deadline waiting
 * for the final value NWRITERS, and one waiter with a deadline waiting for the
 * intermediate value 1 (the value may pass 1 before it looks: it may return 0
 * or time out, both correct). The futex is the kernel's: FUTEX_WAIT compares
 * and queues in one step (EAGAIN when the value differs); a queued thread
 * leaves when a wake dequeues it, when its deadline passes (timed only) or
 * spuriously (a signal), at most SPURIOUS times per run; FUTEX_WAKE(INT_MAX)
 * dequeues every sleeper. Values are small (0..NWRITERS), so wrap-around is
 * not modelled (tests/test_counter.c checks it).
 *
 * Properties
 *   safety      a waiter without deadline returns 0, a waiter returns 0 only
 *               after seeing its target, at the end value == NWRITERS and
 *               waiters == 0, and no invalid end state: when the writers are
 *               done every waiter returns (a lost wake-up leaves one asleep).
 *   all_return  <> every process done, under weak fairness.
 */

//@source src/counter.c sha256=e7de47009c36d98ecef0e2dc4f71610d2e7bc46081f6228e0dc600e5c5cde485
//@source src/internal/counter_wait.h sha256=d238c6fd5af91c682bca0000f148595d52c87ea5dce67b585192474c3ce297a8

//@check safety
//@check ltl all_return -DNFAIR=3 -DSPURIOUS=0

#define NWRITERS 2      /* init below runs this many writers */
#ifndef SPURIOUS
#define SPURIOUS 1      /* spurious futex returns (signals) in a run, at most */
#endif

#define NWAITERS 3
#define NPROCS (NWRITERS + NWAITERS)
#define MAXPROC 8

mtype = { OK, ETIMEDOUT, EAGAIN, EINTR };

byte value = 0;                 /* c->value */
byte waiters = 0;               /* c->waiters */

/* The kernel's futex wait queue of c->value. */
bool queued[MAXPROC];
byte nqueued = 0;
byte spurious = SPURIOUS;

byte done = 0;                  /* processes finished (observer) */

/* fxi_futex_wait_raw(&c->value, expected, deadline) (futex.c:33-57). */
inline futex_wait(expected, timed, r)
{
    atomic {
        if
        :: value != expected -> r = EAGAIN               /* [M:futex-compare] */
        :: else -> queued[_pid] = true; nqueued++; r = OK
        fi
    };
    if
    :: r == OK ->
        if
        :: atomic { !queued[_pid] -> r = OK }            /* dequeued by a wake */
        :: atomic { timed && queued[_pid] -> queued[_pid] = false; nqueued--; r = ETIMEDOUT }
        :: atomic { spurious > 0 && queued[_pid] -> spurious--; queued[_pid] = false; nqueued--; r = EINTR }
        fi
    :: else
    fi
}

/* fxi_futex_wake_raw(&c->value, INT32_MAX) (futex.c:59-64): dequeues all. */
inline futex_wake_all()
{
    d_step {
        i = 0;
        do
        :: i < MAXPROC -> queued[i] = false; i++
        :: else -> break
        od;
        nqueued = 0;
        i = 0
    }
}

/* The same with a count of 1 (any one sleeper): only for the mutation
 * wake-one. The waiters are processes 3, 4 and 5 (init is 0, writers 1, 2). */
#define WAKE(t) :: queued[t] -> queued[t] = false; nqueued--
inline futex_wake_one()
{
    atomic {
        if
        WAKE(3)
        WAKE(4)
        WAKE(5)
        :: else
        fi
    }
}

/* fx_counter_add(c, 1) (counter.c:54-65) and its fx_counter_wake_waiters
 * (counter.c:47-52). */
proctype writer()
{
    byte w, i;

    atomic { value++ };                                  /* counter.c:62 W1 fetch_add [M:W1] */
    atomic { w = waiters };                              /* counter.c:50 W2 [M:W2] */
    if
    :: w != 0 -> futex_wake_all()                        /* counter.c:51 [M:wake] */
    :: else
    fi;
    done++
}

/* fx_counter_wait(c, target, deadline) (counter.c:89-130); R1, R2 and R5 are
 * the helpers of src/internal/counter_wait.h. */
proctype waiter(byte target; bool timed)
{
    byte v;
    mtype r;

    atomic {
        v = value;                                       /* counter.c:96 fast path (acquire) */
        if
        :: v == target -> r = OK; goto out               /* counter.c:97-100 */
        :: else
        fi
    };
    /* counter.c:102-105: the plausibility and deadline checks (EINVAL) only
     * read the waiters slot and the caller's deadline; not modelled. */
    atomic { waiters++ };                                /* counter.c:107 R1, counter_wait.h:28 [M:R1] */
    atomic { v = value };                                /* counter.c:110 R2, counter_wait.h:35 [M:R2] */
    do
    :: v == target -> r = OK; break                      /* counter.c:111-113 */
    :: else ->
        futex_wait(v, timed, r);                         /* counter.c:115 R4 */
        if
        :: r == ETIMEDOUT ->
            atomic {                                     /* counter.c:116-119 last look */
                if
                :: value == target -> r = OK; v = target
                :: else
                fi
            };
            break
        :: else -> atomic { v = value }                  /* counter.c:110 R2 again */
        fi
    od;
    atomic { waiters-- };                                /* counter.c:126 R5, counter_wait.h:42 [M:R5] */
out:
    assert(r == ETIMEDOUT || v == target);               /* 0 only after seeing the target */
    assert(timed || r == OK);                            /* no deadline: never fails */
    done++
}

init
{
    atomic {
        run writer();
        run writer();
        run waiter(NWRITERS, false);
        run waiter(NWRITERS, false);
        run waiter(1, true)
    };
    (done == NPROCS);
    assert(value == NWRITERS && waiters == 0 && nqueued == 0)
}

ltl all_return { <> (done == NPROCS) }
