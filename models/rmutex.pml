/*
 * models/rmutex.pml - the owner word of fx_rmutex (src/rmutex.c) in Promela.
 *
 * Mirrors the functions of src/rmutex.c pinned by the //@mirrors line below
 * (models/check.sh reports the model STALE once their code changes); the
 * //@check lines below are run by models/check.sh (see models/README.md).
 *
 * What is modelled. A ghost thread (TID 4) holds the mutex at the start and,
 * at any moment, unlocks it or dies holding it. N = 3 worker threads (TIDs
 * 1..3) each acquire it once: worker 2 tries trylock first and then locks,
 * worker 3 uses timedlock with a deadline that may pass at any moment, worker
 * 1 locks. One worker may die inside its critical
 * section (MAXDEATHS), so with the ghost a thread that recovered the mutex may
 * die too. An owner that acquired with EOWNERDEAD either calls consistent or
 * unlocks without it (making the mutex NOTRECOVERABLE). A reaper (the parent
 * of a dead thread) may call fx_rmutex_recover(tid) once for a dead tid, or
 * never, and then watches for lost wake-ups. 5 processes and the claim.
 *
 * The owner word is (own, W): own is FREE, a TID 1..N, ORPH or NOTREC, W the
 * WAITERS bit. The depth slot's INCONSISTENT flag is `inc` (owner-only data).
 * Re-entry and depth are owner-private and do not touch the word: not
 * modelled. Every atomic read-modify-write of the word is one atomic block:
 * a CAS succeeds only if (own, W) still equal the values read before, else it
 * reloads them, exactly as __atomic_compare_exchange_n does.
 *
 * Spinning and fast paths. fx_rm_lock_contended's spin (@rmutex.lock_contended.spin)
 * is relaxed loads only, while the word is HELD without W; it changes nothing
 * and only delays the next step, so it is left out. The lock's fast-path CAS
 * 0 -> S (@rmutex.lock.fast) and the one try after the spin (@rmutex.lock_contended.cas)
 * take only FREE, with no W, exactly what the first step below does with a
 * FREE word (slept is still 0); when they fail they change nothing, so they
 * are that step taken at another moment. The unlock's fast path (depth 1, CAS
 * S -> 0, @rmutex.unlock.fast) and its slow path (rmutex.c fx_rm_unlock_slow(), ending in
 * fx_rm_release's CAS loop) are one atomic release: while we own the word
 * only its W bit can change, and the release reads it with the CAS.
 *
 * Futex semantics: futex_wait(expected) atomically compares the word with the
 * expected (own, W) and either returns at once (EAGAIN) or queues the thread
 * (sleeping[t]). A wake of 1 dequeues any one queued thread, a wake of all
 * dequeues every one. A sleeper leaves the queue only when dequeued by a wake,
 * or by a timeout:
 *   - the liveness re-check timer (FIRST_CHECK / RECHECK in rmutex.c). It is
 *     enabled only while the word names a dead owner, because that is its
 *     only job: every other progress must come from wakes. A lost wake-up
 *     therefore shows up as a thread asleep forever (an invalid end state in
 *     the safety run, a violation of `progress` in the liveness run);
 *   - the same timer firing while the owner lives, or a spurious wake-up: at
 *     most SPURIOUS times in a run, to explore those paths without letting
 *     them mask lost wake-ups;
 *   - worker 3's own deadline, at any moment.
 * The liveness check itself (fxi_tid_dead) reads dead[t]; a non-waiting step
 * (trylock memo) may also skip it and answer busy. Deaths of threads outside
 * the critical section (a waiter killed after consuming a wake) are not
 * modelled: the real re-check timers, which fire whether or not the owner is
 * dead, cover them within FX_RMUTEX_RECHECK_MS.
 *
 * Properties:
 *   - mutual exclusion: at most one live thread in the critical section
 *     (assertion at every acquisition);
 *   - EOWNERDEAD only after a real death; ENOTRECOVERABLE only when the word
 *     is NOTREC (assertions);
 *   - no invalid end state: every worker finishes all its acquisitions, so no
 *     wake-up is lost on release, recovery or NOTREC (safety run);
 *   - progress (LTL, weak fairness): every lock call returns (0, EOWNERDEAD,
 *     ENOTRECOVERABLE, or ETIMEDOUT for the timed worker), in particular a
 *     waiter blocked when the owner dies acquires with EOWNERDEAD.
 *
 * The steps mirrored are given in the comments as [@rmutex.<step>] (step
 * tags of src/rmutex.c), with the function name.
 *
 * Mutations (models/mutate.sh, tags [M:...] below), each caught by the safety
 * check (and, run alone, by ltl progress too):
 *   rm-unlock-no-wake         a release of a word with W does not wake
 *                             (workers and ghost)
 *   rm-recover-no-wake        recover makes a word with W ORPHANED, no wake
 *   rm-notrec-wake-if-w       NOTREC wakes all only when W is set (the lost
 *                             wake-up the first design had)
 *   rm-trylock-drops-w        a trylock taking over from a dead owner drops
 *                             the W it read
 *   rm-slept-takes-free-bare  a woken sleeper takes FREE without W
 *   rm-recheck-no-liveness    a waiter whose re-check is due takes over
 *                             without the liveness check (two owners)
 *   rm-woken-sleeps-on-orph   a woken waiter finding ORPHANED marks W and
 *                             sleeps on it again
 *   rm-no-recheck-timer       no re-check timer on a dead owner
 *   rm-recover-blind-store    recover's CAS ignores the value it read (a
 *                             store after the TID check: two owners)
 */

//@mirrors src/futex.c fxi_futex_wait_raw fxi_futex_wake_raw sha256=8349fdf622c4414075e378986de373c0bd599cf6dd4f6fa8bd66e15b9d50b003
//@mirrors src/rmutex.c fx_rm_acquired fx_rm_lock fx_rm_lock_busy fx_rm_lock_contended fx_rm_release fx_rm_release_owned fx_rm_step fx_rm_unlock_slow fx_rm_wait fxi_rmutex_abandon_wait fx_rmutex_consistent fx_rmutex_recover fx_rmutex_trylock fx_rmutex_unlock sha256=6fc3573e163562956826206151750e18c7f2842c984629f04a24b8e00c32a0f9
//@check safety
//@check ltl progress

#define N          3
#define MAXDEATHS  1   /* worker deaths; the ghost may die too */
#define SPURIOUS   1

#define GHOST      4   /* N + 1: the thread that holds the mutex at the start */
#define FREE       0
#define ORPH       5   /* N + 2: FX_RMUTEX_ORPHANED */
#define NOTREC     6   /* N + 3: FX_RMUTEX_NOTRECOVERABLE */
#define held(o)    ((o) >= 1 && (o) <= GHOST)
#define me         (_pid + 1)   /* in a worker: its TID (workers are pids 0..N-1) */
#define timed      (me == N)

/* lock results */
#define R_OK       0
#define R_DEAD     1   /* EOWNERDEAD */
#define R_NOTREC   2   /* ENOTRECOVERABLE */
#define R_BUSY     3   /* EBUSY from a step: sleep on (so, sw) */
#define R_TIMEDOUT 4

unsigned own : 3 = GHOST; /* owner word: FREE, TID, ORPH or NOTREC */
unsigned W : 1 = 0;      /* its WAITERS bit */
unsigned inc : 1 = 0;    /* depth slot: INCONSISTENT */
bool sleeping[N + 1];    /* the kernel's futex queue on the word */
bool dead[GHOST + 1];
unsigned deaths : 2 = 0;
unsigned spurious : 2 = 0;
unsigned cs : 3 = 1;     /* live threads in the critical section (the ghost) */
bool want[N + 1];        /* a lock call is in progress */
unsigned finished : 3 = 0; /* workers that ended (their acquisition done, or died) */

/* Wake one sleeper, if any [@rmutex.release.wake fx_rm_release, @rmutex.recover.wake
 * fx_rmutex_recover, @rmutex.abandon_wait.wake fxi_rmutex_abandon_wait]. */
inline wake_one()
{
    atomic {
        if
        :: sleeping[1] -> sleeping[1] = false
        :: sleeping[2] -> sleeping[2] = false
        :: sleeping[3] -> sleeping[3] = false
        :: else -> skip
        fi
    }
}

/* Wake every sleeper [@rmutex.release.notrec fx_rm_release, to == NOTREC]. */
inline wake_all()
{
    atomic {
        sleeping[1] = false;
        sleeping[2] = false;
        sleeping[3] = false
    }
}

/* CAS (vo, vw) -> (no, nw); on failure reload (vo, vw). */
inline cas(no, nw)
{
    d_step {
        if
        :: (own == vo && W == vw) -> own = no; W = nw; ok = true /* [M:cas-compare] */
        :: else -> vo = own; vw = W; ok = false
        fi
    }
}

/* One acquisition step [rmutex.c fx_rm_step() fx_rm_step], as one atomic
 * transition. In the source it is a loop: a relaxed load, a decision, and a
 * CAS from the value loaded that, when it fails, reloads and decides again. A
 * CAS that fails because another thread wrote the word in between is the same
 * as that write coming before the load, so the loop is modelled by its
 * successful last round. (The liveness check between load and CAS reads
 * dead[t], which never goes back to false here: no TID is reused in this
 * model, so a word naming the caller itself is never seen, and a verdict,
 * used only by the CAS from the value it was made for and dropped when that
 * CAS is lost (judge_now), is the one read in that last round. TID reuse is
 * models/rmutex_tid.pml.)
 * nowait: a non-waiting attempt (trylock, the timed lock's last try at its
 * deadline); due: the liveness re-check is due (the last sleep ended by its
 * timer). Sets res; for R_BUSY, (vo, vw) is the value to sleep on.
 */
inline step(nowait)
{
    atomic {
        vo = own; vw = W;                              /* [@rmutex.step.load] relaxed load */
        if
        :: vo == FREE ->                               /* [@rmutex.step.take CAS 0 -> self|keep] */
            own = me; W = slept; res = R_OK             /* [M:free-keep] */
        :: vo == ORPH ->                               /* [@rmutex.step.take CAS ORPHANED -> self|keep] [M:orph] */
            own = me; W = slept; res = R_DEAD
        :: vo == NOTREC -> res = R_NOTREC              /* [@rmutex.step.notrec ENOTRECOVERABLE] */
        :: held(vo) && nowait ->
            if
            :: dead[vo] ->                             /* [@rmutex.step.check_now fx_rm_dead_now; @rmutex.step.take_over CAS, W kept] */
                own = me; W = (vw || slept); res = R_DEAD /* [M:try-keep-w] */
            :: true -> res = R_BUSY                    /* alive, or the memo skipped the check */
            fi
        :: held(vo) && !nowait && due && dead[vo] ->   /* [@rmutex.step.check_due check due; @rmutex.step.take_over CAS, W kept] [M:due-dead] */
            own = me; W = (vw || slept); res = R_DEAD
        :: held(vo) && !nowait && !(due && dead[vo]) -> /* [M:due-alive] */
            due = false;                               /* [@rmutex.step.new_owner check_at = now + ...] */
            W = true; vw = true; res = R_BUSY          /* [@rmutex.step.mark_waiters CAS T -> T|W; EBUSY] */
        fi
    }
}

/* futex_wait(&owner, (vo, vw), min(deadline, check_at)) [@rmutex.wait.sleep
 * fx_rm_wait; the futex layer: futex.c fxi_futex_wait_raw() fxi_futex_wait_raw]. */
inline futex_wait()
{
    atomic {
        if
        :: (own == vo && W == vw) -> sleeping[me] = true
        :: else -> skip                                /* EAGAIN */
        fi
    };
    if
    :: atomic { !sleeping[me] -> due = false }          /* woken, or EAGAIN [@rmutex.wait.again] */
    :: atomic { sleeping[me] && held(own) && dead[own] -> /* [M:recheck-timer] */
                sleeping[me] = false; due = true }      /* re-check timer: owner dead */
    :: atomic { sleeping[me] && spurious < SPURIOUS ->
                sleeping[me] = false; spurious++; due = true }  /* timer anyway / spurious */
    :: atomic { timed && sleeping[me] ->
                sleeping[me] = false; gaveup = true }   /* the caller's deadline */
    fi
}

active [N] proctype worker()
{
    /* me is _pid + 1 and timed is me == N (macros: no state); bit fields
     * keep the state vector small. */
    unsigned vo : 3, res : 3;
    unsigned vw : 1, ok : 1, slept : 1, due : 1, gaveup : 1, oldW : 1, notrec : 1;

    want[me] = true;
    res = R_BUSY;
    if
    :: me == 2 -> step(true)                           /* worker 2: trylock first [rmutex.c fx_rmutex_trylock(), @rmutex.lock_busy.step] */
    :: else -> skip
    fi;
    /* [rmutex.c fx_rm_lock() fx_rm_lock -> rmutex.c fx_rm_lock_contended() fx_rm_lock_contended
     * -> rmutex.c fx_rm_wait() fx_rm_wait; the spin and the fast-path CAS are steps
     * that take FREE (see the header)] */
    do
    :: res != R_BUSY -> break
    :: else ->
        step(false);
        if
        :: res == R_BUSY ->
            slept = true;                              /* [@rmutex.step.slept w->slept = 1] */
            futex_wait();
            if
            :: gaveup ->                               /* [@rmutex.wait.timed_out last try at the deadline] */
                step(true);
                if
                :: res == R_BUSY -> res = R_TIMEDOUT
                :: else -> skip
                fi
            :: else -> skip                            /* res is R_BUSY: step again */
            fi
        :: else -> skip
        fi
    od;

    if
    :: res == R_OK || res == R_DEAD ->
        /* The lock returned: enter the critical section, where the owner may
         * die. It does nothing visible to others in between, so dying at the
         * entry stands for dying anywhere inside. */
        atomic {
            want[me] = false;
            vo = 0; vw = false; ok = false; slept = false; due = false; gaveup = false;
            cs++;
            assert(cs == 1);                           /* mutual exclusion */
            inc = (res == R_DEAD);                     /* depth 1 (| INC) [@rmutex.acquired.depth] */
            if
            :: deaths < MAXDEATHS -> deaths++; dead[me] = true; cs--; goto died
            :: skip
            fi
        };
        /* After EOWNERDEAD, repair and consistent, or not; then unlock
         * [@rmutex.consistent.store fx_rmutex_consistent; rmutex.c fx_rmutex_unlock()
         * fx_rmutex_unlock -> rmutex.c fx_rm_unlock_slow() fx_rm_unlock_slow ->
         * rmutex.c fx_rm_release_owned() fx_rm_release_owned -> @rmutex.release.cas
         * fx_rm_release: the release CAS loop, we own the word, only W can
         * change under us]. */
        atomic {
            if
            :: inc -> inc = false
            :: skip
            fi;
            cs--;
            notrec = inc;
            inc = false;
            oldW = W;
            own = (notrec -> NOTREC : FREE);
            W = false
        };
        if
        :: notrec -> wake_all()                        /* [@rmutex.release.notrec NOTREC: wake all, always] [M:notrec-wake] */
        :: !notrec && oldW -> wake_one()               /* [@rmutex.release.waiters W: wake 1] [M:unlock-wake] */
        :: else -> skip
        fi
    :: res == R_NOTREC ->
        atomic { want[me] = false; assert(own == NOTREC) }
    :: res == R_TIMEDOUT ->
        atomic { want[me] = false; assert(timed) }
    fi;
died:
    finished++
}

/* The thread that holds the mutex when the workers start: at some moment it
 * either unlocks it [rmutex.c fx_rmutex_unlock() fx_rmutex_unlock, rmutex.c fx_rm_release()
 * fx_rm_release] or dies holding it (so that all three workers can be waiting
 * on a dead owner, or on an unrecoverable mutex).
 */
active proctype ghost()
{
    bool oldW;
    if
    :: atomic { cs--; oldW = W; own = FREE; W = false };
       if
       :: oldW -> wake_one()                            /* [M:ghost-wake] */
       :: else -> skip
       fi
    :: atomic { dead[GHOST] = true; cs-- }
    fi
}

/* A parent that reaped a dead thread calls fx_rmutex_recover(t) once, or never
 * [rmutex.c fx_rmutex_recover() fx_rmutex_recover]. Then it is the watchdog for lost
 * wake-ups, as a safety property: when nothing in the system can move any more
 * (Promela's timeout), every worker must have ended; a worker asleep forever
 * on the word would make the assertion fail. (The safety run keeps the ltl
 * claim below in the product, which disables pan's own invalid-end-state
 * check: this assertion does that job. One process for both: pan's weak
 * fairness allows 6 with the claim.)
 */
active proctype reaper()
{
    unsigned t : 3, vo : 3;
    unsigned vw : 1, ok : 1;
    if
    :: dead[1] -> t = 1
    :: dead[2] -> t = 2
    :: dead[3] -> t = 3
    :: dead[GHOST] -> t = GHOST
    :: skip -> t = 0                                   /* never recovers */
    fi;
    if
    :: t != 0 ->
        atomic { vo = own; vw = W };                   /* [@rmutex.recover.load relaxed load] */
        do
        :: vo == t ->
            cas(ORPH, false);                          /* [@rmutex.recover.cas CAS -> ORPHANED] */
            if
            :: ok && vw -> wake_one(); break           /* [@rmutex.recover.waiters wake 1 if W] [M:recover-wake] */
            :: ok && !vw -> break
            :: else -> skip
            fi
        :: else -> break                               /* [@rmutex.recover.check EPERM] */
        od
    :: else -> skip
    fi;
    t = 0; vo = 0; vw = false; ok = false;
end_watch:
    timeout -> assert(finished == N)
}

ltl progress {
    [] ((want[1] -> <> !want[1]) && (want[2] -> <> !want[2]) && (want[3] -> <> !want[3]))
}
