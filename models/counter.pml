/*
 * models/counter.pml - the wait/wake protocol of src/counter.c, for spin.
 *
 * Mirrors src/counter.c and the waiter's steps R1, R2 and R5 in
 * src/internal/counter_wait.h as pinned by the //@mirrors lines (see
 * models/README.md); each step names the step tag it mirrors as
 * "@counter.<step>".
 *
 * The protocol (the table at the top of src/counter.c):
 *
 *   writer (add / store)              waiter (wait for target)
 *   W1 value := new      (seq_cst)    R1 waiters += 1      (relaxed)
 *   W2 if waiters != 0   (seq_cst)    R2 v := value        (acquire)
 *        wake all                     R3 if v == target: done
 *                                     R4 futex_wait(value, v)
 *                                     R5 waiters -= 1      (relaxed)
 *
 * It is correct because W1 and W2 are seq_cst and the kernel compares the
 * value in R4 after a full barrier that follows R1: either W2 follows R1 (the
 * writer sees the waiter and wakes it) or R4's compare follows W1 (the wait
 * returns at once and R2 sees the new value). The model executes every step
 * atomically in one interleaving, which is what seq_cst (and the kernel's
 * barrier on the waiter's side) guarantees for these; weaker orders allow the
 * load of each thread to be satisfied before its own earlier store is
 * visible (store buffering), which is what the mutations
 * writer-checks-early and waiter-registers-late of models/mutate.sh model,
 * and spin then finds the lost wake-up. The weak-memory argument itself is
 * GenMC's (tests/genmc/, docs/verification.md).
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

//@mirrors src/futex.c fxi_futex_wait_raw fxi_futex_wake_raw sha256=dce47033ca72a3d7606308724ad4fe8606ac00a881241bc263cbeef98f2b76b6
//@mirrors src/sleep.c fxi_futex_sleep sleep_call sleep_bounded recheck_scope engine_wait engine_sleep engine_probe engine_look sha256=053a3384bf224e4143db68cd791354c640abd749aafc1d70e438e53279c51442
//@mirrors src/counter.c fx_counter_add counter_met counter_wait_until counter_wake_waiters sha256=e7548f986e1810b9121dd15c2711b2d68dba803bbfea0ac94b2cdf7a7d47a539
//@mirrors src/internal/counter_wait.h fxi_counter_waiter_enter fxi_counter_waiter_leave fxi_counter_waiter_look sha256=9de81fee76a8c89e7dc4bb9a6c85ae7b41ae207540a8ccd3dc90ddebb9f69596
//@mirrors src/internal/waiters.h fxi_waiters_enter sha256=e6b4574e505576255a4046e49cf89e45b47840b48b8c6fb909045516b5fd4ad1

//@check safety
//@check ltl all_return -DNFAIR=3 -DSPURIOUS=0
//@check ltl all_return -DDEATHS=1 -DSPURIOUS=0 -DNFAIR=3

#define NWRITERS 2      /* init below runs this many writers */
#ifndef SPURIOUS
#define SPURIOUS 1      /* spurious futex returns (signals) in a run, at most */
#endif

#ifndef DEATHS
#define DEATHS 0        /* processes killed in a run, at most */
#endif
#ifndef BOUNDED
#define BOUNDED (DEATHS > 0) /* the sleeps end at a recheck (fxi_futex_sleep); off, it
                                is also a private object, whose sleeps have
                                no recheck once their scope is known */
#endif

/* Death (DEATHS > 0; the fix on branch wake, f1260f2): a killer SIGKILLs at
 * most DEATHS processes: a writer at any step after its W1 (the value
 * changed, and its wake may never come: the notifier side; a writer killed
 * before W1 changes nothing, and the waiters would rightly wait for ever
 * for a value nobody writes), or a waiter at any step. Every sleep is
 * bounded (fxi_futex_sleep): the recheck, always enabled for a sleeper, ends
 * it. all_return then says: every live process returns. The mutation
 * counter-no-recheck (unbounded sleeps) is caught. In shared memory the
 * bound is the process's waiting engine (src/sleep.c): a sleep ends at a
 * look that finds the value no longer the one slept on (models/engine.pml
 * shows that every sleeper whose word changed is told), and not otherwise.
 * A recheck at any time is exact for that: a waiter whose sleep ends with
 * the value unchanged finds it short of its target and sleeps on the same
 * value again (R4), which changes nothing. (Checked 2026-12-07: with the
 * recheck enabled only while the value differs from the one slept on,
 * all_return with a death passes too.) The timed waiter is left
 * out of this scenario (its timeout is checked by the others). */
#if DEATHS
#define NWAITERS 2
#else
#define NWAITERS 3
#endif
#define NPROCS (NWRITERS + NWAITERS)
#define MAXPROC 8

byte deaths = DEATHS;
bool doom[MAXPROC];             /* the killer chose process p: it dies */
bool killable[MAXPROC];         /* (observer) p may be killed now */
byte ndead = 0;                 /* (observer) processes killed */


mtype = { OK, ETIMEDOUT, EAGAIN, EINTR };

byte value = 0;                 /* c->value */
byte waiters = 0;               /* c->waiters */

/* The kernel's futex wait queue of c->value. */
bool queued[MAXPROC];
byte nqueued = 0;
byte spurious = SPURIOUS;

byte done = 0;                  /* processes finished (observer) */

/* fxi_futex_wait_raw(&c->value, expected, deadline) (futex.c fxi_futex_wait_raw()). */
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
        :: atomic { BOUNDED && queued[_pid] -> queued[_pid] = false; nqueued--; r = OK } /* recheck [M:recheck] */
        fi
    :: else
    fi
}

/* fxi_futex_wake_raw(&c->value, INT32_MAX) (futex.c fxi_futex_wake_raw()): dequeues all. */
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

/* fx_counter_add(c, 1) (counter.c fx_counter_add()) and its counter_wake_waiters
 * (counter.c counter_wake_waiters()). */
proctype writer()
{
    byte w, i;

#if DEATHS
    {
#endif
    atomic { value++; killable[_pid] = DEATHS };         /* @counter.add.W1 W1 fetch_add [M:W1] */
    atomic { w = waiters };                              /* @counter.wake_waiters.W2 W2 [M:W2] */
    if
    :: w != 0 -> futex_wake_all()                        /* @counter.wake_waiters.W3 [M:wake] */
    :: else
    fi;
    atomic { done++; killable[_pid] = false }
#if DEATHS
    } unless { atomic { doom[_pid] -> ndead++ } }
#endif
}

/* fx_counter_wait(c, target, deadline) (counter.c counter_wait_until(), UNTIL_EQ); R1, R2 and R5 are
 * the helpers of src/internal/counter_wait.h. */
proctype waiter(byte target; bool timed)
{
    byte v;
    mtype r;

#if DEATHS
    killable[_pid] = true;
    {
#endif
    atomic {
        v = value;                                       /* @counter.wait.fast_load fast path (acquire) */
        if
        :: v == target -> r = OK; goto out               /* @counter.wait.fast_hit */
        :: else
        fi
    };
    /* @counter.wait.check: the plausibility and deadline checks (EINVAL) only
     * read the waiters slot and the caller's deadline; not modelled. */
    atomic { waiters++ };                                /* @counter.wait.R1 R1, @counter.waiter_enter.add [M:R1] */
    atomic { v = value };                                /* @counter.wait.R2 R2, @counter.waiter_look.load [M:R2] */
    do
    :: v == target -> r = OK; break                      /* @counter.wait.R3 */
    :: else ->
        futex_wait(v, timed, r);                         /* @counter.wait.R4 R4 */
        if
        :: r == ETIMEDOUT ->
            atomic {                                     /* @counter.wait.timed_out last look */
                if
                :: value == target -> r = OK; v = target
                :: else
                fi
            };
            break
        :: else -> atomic { v = value }                  /* @counter.wait.R2 R2 again */
        fi
    od;
    atomic { waiters-- };                                /* @counter.wait.R5 R5, @counter.waiter_leave.sub [M:R5] */
out:
    assert(r == ETIMEDOUT || v == target);               /* 0 only after seeing the target */
    assert(timed || r == OK);                            /* no deadline: never fails */
    atomic { done++; killable[_pid] = false }
#if DEATHS
    } unless {
        atomic { doom[_pid] ->                           /* killed: out of the queue */
            if :: queued[_pid] -> queued[_pid] = false; nqueued-- :: else fi;
            ndead++
        }
    }
#endif
}

#if DEATHS
#define KILL(p) :: atomic { deaths > 0 && killable[p] -> doom[p] = true; killable[p] = false; deaths-- }
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
#endif

init
{
    atomic {
        run writer();
        run writer();
        run waiter(NWRITERS, false);
        run waiter(NWRITERS, false);
#if DEATHS
    };
    (done + ndead == NPROCS)
#else
        run waiter(1, true)
    };
    (done == NPROCS);
    assert(value == NWRITERS && waiters == 0 && nqueued == 0)
#endif
}

ltl all_return { <> (done + ndead == NPROCS) }
