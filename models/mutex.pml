/*
 * models/mutex.pml - the fx_mutex protocol of src/mutex.c, for spin.
 *
 * Mirrors the functions of src/mutex.c pinned by the //@mirrors line below
 * (models/check.sh reports the model STALE once their code changes, until the
 * model has been reviewed against it and the pin refreshed). Every step names
 * the step tag it mirrors as "@mutex.<step>".
 *
 * What is modelled
 *   - the word m->state (0 UNLOCKED, 1 LOCKED, 2 CONTENDED) and every atomic
 *     operation of lock, trylock, timedlock and unlock on it, one Promela step
 *     per atomic operation; a compare-exchange is one indivisible step that,
 *     on failure, reloads the expected value (as __atomic_compare_exchange_n
 *     does);
 *   - the bounded spin of mutex_spin as any number of relaxed loads
 *     (leaving nondeterministically after each, at once when the value is not
 *     LOCKED). Loads change nothing, so this covers every run of the real
 *     loop of at most fxi_spin_iterations(FXI_MUTEX_SPIN_NS) loads, and every
 *     run of mutex_poll, which replaces the spin when handoffs are far: at
 *     most FXI_POLL_LOOKS + 1 such loads (@mutex.poll.load, leaving at
 *     @mutex.poll.not_locked) with sleeps between them on a word of the
 *     thread's own, which no other thread touches and no wake can reach, so
 *     to the model they are only time passing;
 *   - the futex (src/futex.c, fxi_futex_wait_raw / fxi_futex_wake_raw) as the
 *     kernel implements it: FUTEX_WAIT compares the word and queues the caller
 *     in one step (EAGAIN when the word differs); a queued thread leaves only
 *     when a FUTEX_WAKE dequeues it (result 0), when its deadline passes (only
 *     timed waits; ETIMEDOUT, and only while still queued: the kernel returns
 *     0 to a thread a wake has dequeued, even if its deadline passed at the
 *     same moment), or spuriously (a signal: EINTR), at most SPURIOUS times
 *     per run. FUTEX_WAKE(1) dequeues any one queued thread (no assumption
 *     about the kernel's order). A deadline already past (negative tv_sec,
 *     which fxi_futex_wait_raw answers without the kernel) is the same as a
 *     wait that times out at once;
 *   - NPROC threads (3), each doing ITER operations (0: forever), each one a
 *     nondeterministic choice of fx_mutex_lock, fx_mutex_timedlock or
 *     fx_mutex_trylock, then, when it acquired, a critical section and
 *     fx_mutex_unlock.
 *
 * What is not modelled: memory ordering. All accesses here are to the one
 *   word, and a single location is coherent (all threads agree on the order of
 *   its writes, and every operation used is atomic), so interleaving semantics
 *   is exact for the protocol. That the critical section's data is published
 *   by the release CAS of unlock and received by the acquire CAS of lock is
 *   checked by TSan (tests/tsan) and the stress test, not here. EINVAL paths
 *   (states the library never writes) are checked by tests/test_badstate.c;
 *   here every value the word takes is asserted valid.
 *
 * Properties (the //@check lines below run them; see models/README.md)
 *   safety          mutual exclusion (assertion on entering the critical
 *                   section), the word only holds 0, 1 or 2, unlock never
 *                   finds its own lock free, no deadlock (invalid end state),
 *                   and NO_SLEEPER_FORGOTTEN (below) in every reachable state.
 *                   With ITER=1 every thread must finish its operation: a
 *                   lost wake-up leaves a thread queued forever, an invalid
 *                   end state. With ITER=0 the threads loop forever and the
 *                   invariant covers every state of every run, however long.
 *   all_finish      <> all threads done (ITER=1, weak fairness): every waiter
 *                   acquires or times out once the others stop competing.
 *   someone_acquires
 *                   threads looping forever, weak fairness: whenever a thread
 *                   waits in fx_mutex_lock, some thread later holds the lock
 *                   (the lock as a whole never gets stuck).
 *   locker_acquires expected to FAIL: "thread 0, waiting in fx_mutex_lock,
 *                   eventually acquires". The design does not promise it: a
 *                   woken thread competes with newcomers (barging), and a CAS
 *                   loop can lose every race, so one thread can starve while
 *                   the others keep taking the lock. spin finds such a
 *                   schedule; the check passes only if it does.
 */

//@mirrors src/futex.c fxi_futex_wait_raw fxi_futex_wake_raw sha256=dce47033ca72a3d7606308724ad4fe8606ac00a881241bc263cbeef98f2b76b6
//@mirrors src/sleep.c fxi_futex_sleep sleep_call sleep_bounded recheck_scope engine_wait engine_sleep engine_probe engine_look sha256=053a3384bf224e4143db68cd791354c640abd749aafc1d70e438e53279c51442
//@mirrors src/mutex.c mutex_acquire fxi_mutex_acquire_step fx_mutex_lock mutex_lock_contended fxi_mutex_lock_slept mutex_spin mutex_poll fx_mutex_timedlock mutex_try fx_mutex_trylock mutex_release mutex_release_announced fx_mutex_unlock mutex_unlock_slow sha256=878c60fc4a4f9c0bc2976b1a90d5cb6436c944cfdc809bcde4045f3ab8805d29

//@check safety
//@check safety -DITER=0 -m2000000
//@check ltl all_finish
//@check ltl someone_acquires -DITER=0 -DSPURIOUS=0 -m2000000
//@check ltl locker_acquires -DITER=0 -DSPURIOUS=0 -m2000000 expect-fail
//@check safety -DDEATHS=1 -DONLY_LOCK=1
//@check ltl live_finish -DDEATHS=1 -DONLY_LOCK=1 -DSPURIOUS=0

#ifndef NPROC
#define NPROC 3         /* threads */
#endif
#ifndef ITER
#define ITER 1          /* operations per thread; 0: forever */
#endif
#ifndef SPURIOUS
#define SPURIOUS 1      /* spurious futex returns (signals) in a run, at most */
#endif

#ifndef DEATHS
#define DEATHS 0        /* processes killed in a run, at most (see "Death") */
#endif
#ifndef ONLY_LOCK
#define ONLY_LOCK 0     /* 1: every operation is fx_mutex_lock */
#endif
#ifndef BOUNDED
#define BOUNDED (DEATHS > 0) /* the sleeps end at a recheck (fxi_futex_sleep); off, it
                                is also a private object, whose sleeps have
                                no recheck once their scope is known */
#endif

#define MAXPROC 4       /* size of the per-thread arrays (NPROC <= MAXPROC) */

/* The word's states (@mutex.states). */
#define UNLOCKED  0
#define LOCKED    1
#define CONTENDED 2

/* Results of operations. */
mtype = { OK, EBUSY, ETIMEDOUT, EAGAIN, EINTR };

byte state = UNLOCKED;          /* m->state */

/* The kernel's futex wait queue of the word. */
bool queued[MAXPROC];           /* thread t sleeps in FUTEX_WAIT */
byte nqueued = 0;
byte spurious = SPURIOUS;       /* spurious returns left */

/* Observers for the properties; the protocol never reads them. */
byte incs = 0;                  /* threads inside the critical section */
bool locking[MAXPROC];          /* inside fx_mutex_lock (no deadline), not yet acquired */
byte nlocking = 0;
byte done = 0;                  /* threads that finished their ITER operations */
bool resp[MAXPROC];             /* thread t is responsible for the sleepers: it
                                 * released a CONTENDED lock and has not yet
                                 * called FUTEX_WAKE, or a FUTEX_WAKE dequeued
                                 * it and it has not finished its next step */
#if DEATHS
/* Death: a killer process SIGKILLs at most DEATHS threads, each at any step
 * at which it does not hold the lock (fx_mutex promises nothing for a holder
 * that dies): while spinning, after marking the word CONTENDED, asleep,
 * between the kernel's dequeue of a FUTEX_WAKE and its return to user space
 * (the woken side: the wake is consumed), between the release CAS 2->0 and
 * its FUTEX_WAKE (the notifier side). The kernel drops a dying thread from
 * the futex queue. With deaths, the invariant NO_SLEEPER_FORGOTTEN does not
 * hold (a dead thread was responsible) and the property is live_finish:
 * every live thread finishes, i.e. no sleeper of a lock that could let it
 * through stays asleep, which needs the bounded sleep (BOUNDED): the
 * mutation no-recheck removes it and a dead waker or wakee strands a
 * sleeper (invalid end state in safety, and live_finish fails).
 * In shared memory the bound is the process's waiting engine (src/sleep.c):
 * a sleep ends at a look that finds the word no longer CONTENDED, the value
 * slept on (models/engine.pml shows that every sleeper whose word changed
 * is told), and not otherwise. BOUNDED, a recheck at any time, is exact for
 * that: a sleep that ends with the word still CONTENDED is followed by
 * fxi_mutex_lock_slept's CAS 0->2, which fails, and a sleep on CONTENDED
 * again, which changes nothing. (Checked 2026-12-07: with the recheck
 * enabled only while the word is not CONTENDED, both checks with deaths
 * pass too.) */
byte deaths = DEATHS;           /* deaths left */
bool doom[MAXPROC];             /* the killer chose thread t: it dies at once */
bool holds[MAXPROC];            /* (observer) thread t holds the lock */
bool fin[MAXPROC];              /* (observer) thread t finished */
byte ndead = 0;                 /* (observer) threads killed */
#define HOLDS(b) holds[me] = b
#else
#define HOLDS(b) skip
#endif

/* No lost wake-up, as an invariant: while a thread sleeps in the kernel, the
 * word is CONTENDED (so the holder's unlock will wake one), or some thread is
 * responsible for the sleepers (it will wake one, or take the lock as
 * CONTENDED, or mark the word CONTENDED). */
#define NO_SLEEPER_FORGOTTEN \
    (nqueued == 0 || state == CONTENDED || resp[0] || resp[1] || resp[2] || resp[3])

/* Each atomic { } below is one step of a thread: exactly one access to shared
 * memory (the word, or the kernel's queue of it), then the thread's private
 * bookkeeping up to its next shared access, which no other thread can see.
 * Grouping them keeps the state space small and changes no behaviour. */

/* __atomic_compare_exchange_n(&m->state, &expect, desired, ...), inside an
 * atomic step; on failure expect is reloaded with the current value. */
inline cas(expect, desired, ok)
{
    if
    :: state == expect -> state = desired; ok = true
    :: else -> expect = state; ok = false
    fi
}

/* fxi_futex_sleep(&m->state, expected, deadline, &rc) (src/futex.c
 * fxi_futex_sleep(), fxi_futex_wait_raw()): FUTEX_WAIT compares and queues in
 * one step. r: OK (woken by a wake, spuriously, or at the recheck time),
 * EAGAIN, ETIMEDOUT (timed only, and only while still queued) or EINTR. The
 * recheck (BOUNDED) ends any sleep: the call's first recheck (FXI_RECHECK_NS,
 * absolute, so a signal cannot postpone it), then the engine's looks (see
 * Death); it is always enabled while the thread is queued, so under weak
 * fairness a sleeper always wakes up again. */
inline futex_wait(expected, r)
{
    atomic {
        if
        :: state != expected -> r = EAGAIN               /* [M:futex-compare] */
        :: else -> queued[me] = true; nqueued++; r = OK;
            resp[me] = false;                           /* (observer) the word is CONTENDED */
            v = 0; sleep_on = 0; ok = false             /* (dead until the next step) */
        fi
    };
    if
    :: r == OK ->
        if
        :: atomic { !queued[me] -> r = OK }             /* dequeued by a wake */
        :: atomic { timed && queued[me] -> queued[me] = false; nqueued--; r = ETIMEDOUT }
        :: atomic { spurious > 0 && queued[me] -> spurious--; queued[me] = false; nqueued--; r = EINTR }
        :: atomic { BOUNDED && queued[me] -> queued[me] = false; nqueued--; r = OK } /* recheck [M:recheck] */
        fi
    :: else
    fi
}

/* fxi_futex_wake_raw(&m->state, 1) (futex.c fxi_futex_wake_raw()): dequeues any one sleeper
 * (no assumption about the kernel's order); the woken thread becomes
 * responsible in place of the waker. */
#define WAKE(t) :: t < NPROC && queued[t] -> queued[t] = false; nqueued--; resp[t] = true
inline futex_wake_one()
{
    atomic {
        if
        WAKE(0)
        WAKE(1)
        WAKE(2)
        WAKE(3)
        :: else
        fi;
        resp[me] = false
    }
}

/* fxi_mutex_acquire_step (mutex.c). r: OK (acquired as CONTENDED) or
 * EBUSY (held; the word is CONTENDED, sleep on sleep_on). */
inline acquire_step()
{
    atomic { v = state; assert(v <= CONTENDED) };        /* @mutex.acquire_step.load relaxed load */
    do
    :: v == UNLOCKED ->
        atomic { cas(v, CONTENDED, ok);                  /* @mutex.acquire_step.take CAS 0->2 [M:slept-as-contended] */
            if
            :: ok -> r = OK; HOLDS(true); break          /* @mutex.acquire_step.taken */
            :: else -> assert(v <= CONTENDED)            /* v reloaded, @mutex.acquire_step.valid */
            fi }
    :: v == LOCKED ->
        atomic { cas(v, CONTENDED, ok); sleep_on = CONTENDED; /* @mutex.acquire_step.mark CAS 1->2 [M:mark-contended] */
            if
            :: ok -> r = EBUSY; break                    /* @mutex.acquire_step.marked */
            :: else -> assert(v <= CONTENDED)            /* v reloaded, @mutex.acquire_step.valid */
            fi }
    :: v == CONTENDED ->
        sleep_on = CONTENDED; r = EBUSY; break           /* @mutex.acquire_step.contended */
    od
}

/* fxi_mutex_lock_slept (mutex.c). r: OK or ETIMEDOUT. */
inline lock_slept()
{
    do
    :: acquire_step();                                   /* @mutex.lock_slept.step */
        if
        :: r != EBUSY -> break                           /* @mutex.lock_slept.done */
        :: else
        fi;
        futex_wait(sleep_on, r);                         /* @mutex.lock_slept.sleep */
        if
        :: r == ETIMEDOUT -> break                       /* @mutex.lock_slept.timed_out [M:timed-exit] */
        :: else -> r = OK                                /* woken, EAGAIN, EINTR: step again */
        fi
    od
}

/* fx_mutex_lock (mutex.c) and fx_mutex_timedlock (mutex.c,
 * timed), both mutex_acquire (mutex.c): the fast path, then
 * mutex_lock_contended (mutex.c): spin, one CAS 0->1 as an
 * ordinary locker, then sleep. */
inline lock()
{
    atomic { v = UNLOCKED; cas(v, LOCKED, ok); if :: ok -> HOLDS(true) :: else fi }; /* @mutex.acquire.fast fast path 0->1 [M:fast-path] */
    if
    :: ok -> r = OK
    :: else ->
        /* mutex_spin (mutex.c): relaxed loads while LOCKED, any
         * number of them (the real loop stops after FXI_MUTEX_SPIN_NS). */
        do
        :: atomic { v = state;                           /* @mutex.spin.load */
            if
            :: v != LOCKED -> break                      /* @mutex.spin.not_locked */
            :: else -> if :: break :: skip fi            /* budget exhausted, or @mutex.spin.pause pause */
            fi }
        od;
        if
        :: v == UNLOCKED ->
            atomic { cas(v, LOCKED, ok); if :: ok -> HOLDS(true) :: else fi } /* @mutex.lock_contended.cas CAS 0->1 */
        :: else -> ok = false
        fi;
        if
        :: ok -> r = OK                                  /* @mutex.lock_contended.taken */
        :: else -> lock_slept()                          /* @mutex.lock_contended.slept */
        fi
    fi
}

/* fx_mutex_trylock (mutex.c). */
inline trylock()
{
    atomic { v = UNLOCKED; cas(v, LOCKED, ok);           /* @mutex.trylock.cas */
        if
        :: ok -> r = OK; HOLDS(true)
        :: else -> assert(v <= CONTENDED); r = EBUSY     /* @mutex.trylock.busy */
        fi }
}

/* fx_mutex_unlock (mutex.c) and mutex_unlock_slow (mutex.c);
 * also leaves the critical section. In race-detector builds a relaxed first
 * look (@mutex.unlock.annotate) sorts out EPERM and EINVAL before the release is
 * announced: it changes nothing and those never happen here, so it is left
 * out. */
inline unlock()
{
    atomic { incs = 0; v = LOCKED; cas(v, UNLOCKED, ok); if :: ok -> HOLDS(false) :: else fi }; /* @mutex.unlock.fast CAS 1->0 [M:unlock] */
    do
    :: ok -> break
    :: else ->
        atomic {
            assert(v != UNLOCKED && v <= CONTENDED);     /* @mutex.unlock_slow.check EPERM, EINVAL: never, we hold it */
            cas(v, UNLOCKED, ok);                        /* @mutex.unlock_slow.cas CAS v->0 */
            resp[me] = (ok && v == CONTENDED);           /* (observer) */
            if :: ok -> HOLDS(false) :: else fi
        };
        if
        :: ok && v == CONTENDED -> futex_wake_one()      /* @mutex.unlock_slow.wake [M:unlock-wake] */
        :: else
        fi
    od
}

active [NPROC] proctype thread()
{
    byte me = _pid;
    byte v, sleep_on;
    bool ok, timed;
    mtype r;
#if ITER
    byte n = 0;
#endif

    assert(NPROC <= MAXPROC && _pid < NPROC);
#if DEATHS
    {
#endif
    do
#if ITER
    :: n == ITER -> break
    :: n < ITER -> n++;
#else
    :: true ->
#endif
        if
        :: atomic { locking[me] = true; nlocking++ };    /* fx_mutex_lock */
            lock();
            assert(r == OK)                              /* lock never fails */
#if !ONLY_LOCK
        :: timed = true; lock()                          /* fx_mutex_timedlock */
        :: trylock()                                     /* fx_mutex_trylock */
#endif
        fi;
        if
        :: r == OK ->
            atomic {                                     /* critical section */
                assert(incs == 0 && state != UNLOCKED); incs = 1;
                if
                :: locking[me] -> locking[me] = false; nlocking--
                :: else
                fi;
                resp[me] = false                         /* (observer) it holds the lock */
            };
            unlock()
        :: else -> atomic {
                assert(timed || r == EBUSY);
                resp[me] = false                         /* (observer) it gave up */
            }
        fi;
        atomic { r = OK; v = 0; sleep_on = 0; ok = false; timed = false }
    od;
#if DEATHS
    atomic { done++; fin[me] = true }
    } unless {
        /* Killed (see "Death"): the kernel drops it from the futex queue;
         * whatever it was responsible for is not done. */
        atomic { doom[me] ->
            if
            :: queued[me] -> queued[me] = false; nqueued--
            :: else
            fi;
            if
            :: locking[me] -> locking[me] = false; nlocking--
            :: else
            fi;
            assert(!holds[me]);
            resp[me] = false; ndead++;
            r = OK; v = 0; sleep_on = 0; ok = false; timed = false
        }
    }
#else
    done++
#endif
}

#if DEATHS
/* Kills a thread that does not hold the lock, at any step of it: the victim
 * takes its escape (the unless above) before its next statement, asleep or
 * not. */
#define KILL(t) :: atomic { deaths > 0 && t < NPROC && !holds[t] && !fin[t] -> doom[t] = true; deaths-- }
active proctype killer()
{
end:
    do
    KILL(0)
    KILL(1)
    KILL(2)
    KILL(3)
    od
}
#endif

/* Checks NO_SLEEPER_FORGOTTEN in every reachable state: this process is
 * blocked (and a valid end state) unless the invariant is broken. */
#if DEATHS == 0
active proctype monitor()
{
end:
    atomic { !NO_SLEEPER_FORGOTTEN -> assert(NO_SLEEPER_FORGOTTEN) }
}
#endif

ltl all_finish { <> (done == NPROC) }
#if DEATHS
ltl live_finish { <> (done + ndead == NPROC) }
#endif
ltl someone_acquires { [] ((nlocking > 0) -> <> (incs > 0)) }
ltl locker_acquires { [] (locking[0] -> <> !locking[0]) }
