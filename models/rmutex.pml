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
 * Spinning and fast paths. rmutex_lock_contended's spin (@rmutex.lock_contended.spin),
 * or the poll that replaces it when handoffs are far (the same loads with
 * short sleeps on a thread-private word between them: src/internal/spin.h),
 * is relaxed loads only, while the word is HELD without W; it changes nothing
 * and only delays the next step, so it is left out. The lock's fast-path CAS
 * 0 -> S (@rmutex.lock.fast) and the one try after the spin (@rmutex.lock_contended.cas)
 * take only FREE, with no W, exactly what the first step below does with a
 * FREE word (slept is still 0); when they fail they change nothing, so they
 * are that step taken at another moment. The unlock's fast path (depth 1, CAS
 * S -> 0, @rmutex.unlock.fast) and its slow path (rmutex.c rmutex_unlock_slow(), ending in
 * rmutex_release's CAS loop) are one atomic release: while we own the word
 * only its W bit can change, and the release reads it with the CAS.
 *
 * Futex semantics: futex_wait(expected) atomically compares the word with the
 * expected (own, W) and either returns at once (EAGAIN) or queues the thread
 * (sleeping[t]). A wake of 1 dequeues any one queued thread, a wake of all
 * dequeues every one. A sleeper leaves the queue only when dequeued by a wake,
 * or by a timeout:
 *   - the liveness re-check timer (FIRST_CHECK / RECHECK in
 *     rmutex_watch.c), or the process's waiting engine telling every
 *     listed sleeper of a word whose PROBED owner its prober found dead
 *     (src/sleep.c fxi_futex_sleep_probed: the sleeper then looks at once;
 *     the engine's role, its looks and its hand-off are models/engine.pml's,
 *     not modelled here, and tests/test_sleep.c forces the hand-off). It is
 *     enabled only while the word names a dead owner, because that is its
 *     only job: every other progress must come from wakes. A lost wake-up
 *     therefore shows up as a thread asleep forever (an invalid end state in
 *     the safety run, a violation of `progress` in the liveness run);
 *   - the same timer firing while the owner lives, or a spurious wake-up: at
 *     most SPURIOUS times in a run, to explore those paths without letting
 *     them mask lost wake-ups;
 *   - worker 3's own deadline, at any moment.
 * The liveness check itself (fxi_id_probe) reads dead[t]; for a live owner it
 * may also answer "unknown" (hidepid, no /proc, seccomp, another PID
 * namespace), which acts as alive: the branches tagged unknown-now and
 * unknown-due (mutation rm-unknown-is-dead takes it for dead: two owners); a non-waiting step
 * (trylock memo) may also skip it and answer busy. Deaths of threads outside
 * the critical section (a waiter killed after consuming a wake) are not
 * modelled: the real re-check timers, which fire whether or not the owner is
 * dead, cover them within FXI_RMUTEX_RECHECK_MS.
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
 * TID reuse (-DTIDREUSE=1, issue 11 class 1). Two workers (TIDs 1, 2;
 * worker 2 tries trylock first and uses timedlock); the ghost (TID 3) dies
 * holding the mutex at any moment, and the kernel then gives TID 3 to a new,
 * live thread (the reborn), which locks once as a worker does, at any
 * moment: while the word still names the dead ghost (it finds its own TID
 * there without a record of the acquisition: rmutex_lock_busy's rmutex_mine
 * says no, and rmutex_step takes it over, EOWNERDEAD), or after a worker took
 * it over or released it (it takes FREE, or waits for a live owner). The
 * step is then two transitions, verdict and take-over CAS (see step()
 * below). No reaper recovery (fx_rmutex_recover(3) could name the reborn's
 * TID: the caller must know that TID is still the dead thread's) and no
 * worker death. Assumption, as for any design that names owners by TID: the
 * kernel does not reuse a TID between one waiter's liveness verdict and its
 * CAS right after it (a full cycle of the PID space within microseconds),
 * so the reborn appears only while no waiter is between the two (observer
 * `checking`). Properties: as above (mutual exclusion, EOWNERDEAD only after
 * a death, no invalid end state, progress), now with the dead
 * TID live again as an owner.
 *
 * The kernel's robust list (-DKERNEL=1, layout 2). Every thread joins its
 * robust list, so its owner word names it by TID alone: no waiter judges it
 * (the verdict branches are off: judged() is false), no re-check timer runs
 * (a sleep is untimed but for spurious wake-ups and the timed worker's
 * deadline), and when a thread dies holding the mutex the kernel, in a step
 * of its own after the death, sets the word ORPHANED keeping W and wakes one
 * sleeper if W was set (kernel_mark). A thread taking ORPHANED keeps the W it
 * finds. Properties as above. (A waiter killed after its wake is passed on by
 * the kernel through list_op_pending; deaths outside the critical section
 * are not modelled, as above.) The variant without KERNEL is the PROBED
 * owner, judged by the liveness probe.
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
 *   rm-verdict-kept           (TIDREUSE) a waiter keeps its verdict "TID t
 *                             is dead" after losing the take-over CAS; t
 *                             comes back as a live owner, and the waiter
 *                             takes the mutex from it: two owners (issue
 *                             11, class 1)
 *   rm-kernel-no-wake         (KERNEL) the kernel's mark of a dead owner's
 *                             word wakes nobody: the sleepers stay asleep
 *                             on an ORPHANED word
 *   rm-tid-self-waits         (TIDREUSE) a thread that finds its own TID in
 *                             the word without a record waits as for a live
 *                             owner: the reborn waits for itself for ever,
 *                             and the workers behind it too
 */

//@mirrors src/futex.c fxi_futex_wait_raw fxi_futex_wake_raw sha256=dce47033ca72a3d7606308724ad4fe8606ac00a881241bc263cbeef98f2b76b6
//@mirrors src/identity.c fxi_held_has fxi_held_add sha256=8799131a501282b766bcb81b1ae1c9ea339facecd27eba6567a67858b28ba542
//@mirrors src/rmutex.c rmutex_acquired rmutex_acquired_slow rmutex_lock rmutex_lock_busy rmutex_mine rmutex_lock_contended rmutex_release rmutex_release_owned rmutex_step rmutex_unlock_slow rmutex_wait fxi_rmutex_abandon_wait fx_rmutex_consistent fx_rmutex_recover fx_rmutex_trylock fx_rmutex_unlock sha256=164e1038b5f6a331c3267599b16ea5ce82f51424f941cb3b4922c3959601ce9c
//@check safety
//@check ltl progress
//@check safety -DTIDREUSE=1
//@check ltl progress -DTIDREUSE=1
//@check safety -DKERNEL=1
//@check ltl progress -DKERNEL=1

#ifndef TIDREUSE
#define TIDREUSE   0   /* 1: the ghost dies and its TID comes back (see "TID reuse") */
#endif
#ifndef KERNEL
#define KERNEL     0   /* 1: owners on the robust list (see "The kernel's robust list") */
#endif
#if KERNEL && TIDREUSE
#error "KERNEL=1 models no TID reuse: the kernel's mark leaves no dead TID in the word"
#endif
/* Whether a waiter's liveness verdict may call t dead: only PROBED owners. */
#define judged(t)  (!KERNEL && dead[t])
#if TIDREUSE
#define N          2
#define MAXDEATHS  0   /* the ghost dies; its TID comes back as a live thread */
#else
#define N          3
#define MAXDEATHS  1   /* worker deaths; the ghost may die too */
#endif
#define SPURIOUS   1

#define GHOST      (N + 1) /* the thread that holds the mutex at the start */
#define FREE       0
#define ORPH       (N + 2) /* FX_RMUTEX_ORPHANED */
#define NOTREC     (N + 3) /* FX_RMUTEX_NOTRECOVERABLE */
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
bool sleeping[GHOST + 1]; /* the kernel's futex queue on the word */
bool dead[GHOST + 1];
unsigned deaths : 2 = 0;
unsigned spurious : 2 = 0;
unsigned cs : 3 = 1;     /* live threads in the critical section (the ghost) */
bool want[GHOST + 1];    /* a lock call is in progress */
#if TIDREUSE
unsigned checking : 2 = 0; /* (observer) threads between a verdict "dead" and its CAS */
#endif
unsigned finished : 3 = 0; /* workers that ended (their acquisition done, or died) */

/* Wake one sleeper, if any [@rmutex.release.wake rmutex_release, @rmutex.recover.wake
 * fx_rmutex_recover, @rmutex.abandon_wait.wake fxi_rmutex_abandon_wait]. */
inline wake_one()
{
    atomic {
        if
        :: sleeping[1] -> sleeping[1] = false
        :: sleeping[2] -> sleeping[2] = false
        :: sleeping[3] -> sleeping[3] = false   /* with TIDREUSE: the reborn thread */
        :: else -> skip
        fi
    }
}

/* The kernel's robust-list walk after thread t died: a word naming t becomes
 * ORPHANED, W kept, and one sleeper is woken if W was set (the kernel's
 * handle_futex_death). */
inline kernel_mark(t)
{
    atomic {
        if
        :: own == t ->
            own = ORPH;
            if
            :: W -> wake_one()                         /* [M:kernel-wake] */
            :: else -> skip
            fi
        :: else -> skip
        fi
    }
}

/* Wake every sleeper [@rmutex.release.notrec rmutex_release, to == NOTREC]. */
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

/* One acquisition step [rmutex.c rmutex_step() rmutex_step], as one atomic
 * transition. In the source it is a loop: a relaxed load, a decision, and a
 * CAS from the value loaded that, when it fails, reloads and decides again. A
 * CAS that fails because another thread wrote the word in between is the same
 * as that write coming before the load, so the loop is modelled by its
 * successful last round. (The liveness check between load and CAS reads
 * dead[t], which never goes back to false here: no TID is reused in this
 * model, so a word naming the caller itself is never seen, and a verdict,
 * used only by the CAS from the value it was made for and dropped when that
 * CAS is lost (judge_now), is the one read in that last round. TID reuse is
 * the -DTIDREUSE=1 variant below.)
 * nowait: a non-waiting attempt (trylock, the timed lock's last try at its
 * deadline); due: the liveness re-check is due (the last sleep ended by its
 * timer). Sets res; for R_BUSY, (vo, vw) is the value to sleep on.
 */
#if !TIDREUSE
inline step(nowait)
{
    atomic {
        vo = own; vw = W;                              /* [@rmutex.step.load] relaxed load */
        if
        :: vo == FREE ->                               /* [@rmutex.step.take CAS 0 -> self|keep] */
            own = me; W = slept; res = R_OK             /* [M:free-keep] */
        :: vo == ORPH ->                               /* [@rmutex.step.take CAS ORPHANED -> self|(W)|keep] [M:orph] */
            own = me; W = (vw || slept); res = R_DEAD
        :: vo == NOTREC -> res = R_NOTREC              /* [@rmutex.step.notrec ENOTRECOVERABLE] */
        :: held(vo) && nowait ->
            if
            :: judged(vo) ->                             /* [@rmutex.step.check_now rmutex_dead_now; @rmutex.step.take_over CAS, W kept] */
                own = me; W = (vw || slept); res = R_DEAD /* [M:try-keep-w] */
            :: !judged(vo) -> res = R_BUSY /* fxi_id_probe: unknown (a live owner it cannot see) acts as alive [M:unknown-now] */
            :: true -> res = R_BUSY                    /* alive, or the memo skipped the check */
            fi
        :: held(vo) && !nowait && due && judged(vo) ->   /* [@rmutex.step.check_due check due; @rmutex.step.take_over CAS, W kept] [M:due-dead] */
            own = me; W = (vw || slept); res = R_DEAD
        :: held(vo) && !nowait && due && !judged(vo) -> due = false; W = true; vw = true; res = R_BUSY /* fxi_id_probe: unknown acts as alive [M:unknown-due] */
        :: held(vo) && !nowait && !(due && judged(vo)) -> /* [M:due-alive] */
            due = false;                               /* [@rmutex.step.new_owner check_at = now + ...] */
            W = true; vw = true; res = R_BUSY          /* [@rmutex.step.mark_waiters CAS T -> T|W; EBUSY] */
        fi
    }
}
#else
/* With TID reuse (-DTIDREUSE=1) dead[t] goes back to false when the kernel
 * gives t to a new thread, so the verdict and the CAS it serves are two
 * steps, as in rmutex_step: (1) the relaxed load and the decision, with the
 * liveness verdict d (a take of FREE/ORPHANED and the CAS T -> T|W are CASes
 * from the value just loaded: one step, see above); (2) the take-over CAS
 * from the value the verdict was made for. A lost take-over CAS drops the
 * verdict: the value read then is judged at once if it names the same TID
 * (judge: @rmutex.step.check_now, judge_now), else as a new owner. A word
 * naming the caller itself without its record of the acquisition (the
 * reborn thread, finding the dead ghost's word) names a dead thread that had
 * its TID: d = 1 without a check (@rmutex.step.check_now, t == self; rmutex_lock_busy's
 * rmutex_mine said no). kept is only used by the mutation rm-verdict-kept
 * (a verdict "t is dead" kept for the rest of the acquisition, issue 11
 * class 1); it is always 0 here. */
inline step(nowait)
{
    do
    :: atomic {
        vo = own; vw = W;                              /* [@rmutex.step.load] relaxed load */
        if
        :: vo == FREE ->                               /* [@rmutex.step.take CAS 0 -> self|keep] */
            own = me; W = slept; res = R_OK
        :: vo == ORPH ->                               /* [@rmutex.step.take CAS ORPHANED -> self|(W)|keep] */
            own = me; W = (vw || slept); res = R_DEAD
        :: vo == NOTREC -> res = R_NOTREC              /* [@rmutex.step.notrec ENOTRECOVERABLE] */
        :: held(vo) ->
            if
            :: vo == me -> d = true                    /* [@rmutex.step.check_now t == self, no record] [M:tid-self] */
            :: vo != me && vo == judge -> d = dead[vo] /* [@rmutex.step.check_now judge_now: at once] */
            :: vo != me && vo != judge && vo == kept -> d = true /* only with the mutation */
            :: vo != me && vo != judge && vo != kept && nowait -> d = dead[vo] /* [rmutex_dead_now] */
            :: vo != me && vo != judge && vo != kept && nowait -> d = false    /* the memo: alive */
            :: vo != me && vo != judge && vo != kept && !nowait && due -> d = dead[vo] /* [@rmutex.step.check_due] */
            :: vo != me && vo != judge && vo != kept && !nowait && !due -> d = false   /* [@rmutex.step.new_owner] not yet */
            fi;
            judge = 0; due = false; res = R_BUSY;
            if
            :: d -> checking++
            :: !d && !nowait -> W = true; vw = true     /* [@rmutex.step.mark_waiters CAS T -> T|W; EBUSY] */
            :: !d && nowait -> skip
            fi
        fi
       };
       if
       :: d ->
          atomic {                                     /* [@rmutex.step.take_over CAS from (vo, vw), W kept] */
             checking--; d = false;
             if
             :: own == vo && W == vw -> own = me; W = (vw || slept); res = R_DEAD
             :: else -> judge = vo                     /* lost: the verdict dropped [M:verdict-drop] */
             fi
          };
          if
          :: res == R_DEAD -> break
          :: else -> skip                              /* decide again on the value now there */
          fi
       :: else -> break
       fi
    od
}
#endif

/* futex_wait(&owner, (vo, vw), min(deadline, check_at)) [@rmutex.wait.sleep
 * rmutex_wait; the futex layer: futex.c fxi_futex_wait_raw() fxi_futex_wait_raw]. */
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
    :: atomic { sleeping[me] && held(own) && judged(own) -> /* [M:recheck-timer] */
                sleeping[me] = false; due = true }      /* re-check timer: owner dead */
    :: atomic { sleeping[me] && spurious < SPURIOUS ->
                sleeping[me] = false; spurious++; due = true }  /* timer anyway / spurious */
    :: atomic { timed && sleeping[me] ->
                sleeping[me] = false; gaveup = true }   /* the caller's deadline */
    fi
}

#if TIDREUSE
#define WORKER_LOCALS unsigned vo : 3, res : 3, judge : 3, kept : 3; \
    unsigned vw : 1, ok : 1, slept : 1, due : 1, gaveup : 1, oldW : 1, notrec : 1, d : 1
#else
#define WORKER_LOCALS unsigned vo : 3, res : 3; \
    unsigned vw : 1, ok : 1, slept : 1, due : 1, gaveup : 1, oldW : 1, notrec : 1
#endif

/* One lock call, the critical section, one unlock, by thread me. */
inline lock_once()
{
    want[me] = true;
    res = R_BUSY;
    if
    :: me == 2 -> step(true)                           /* worker 2: trylock first [rmutex.c fx_rmutex_trylock(), @rmutex.lock_busy.step] */
    :: else -> skip
    fi;
    /* [rmutex.c rmutex_lock() rmutex_lock -> rmutex.c rmutex_lock_contended() rmutex_lock_contended
     * -> rmutex.c rmutex_wait() rmutex_wait; the spin and the fast-path CAS are steps
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
         * fx_rmutex_unlock -> rmutex.c rmutex_unlock_slow() rmutex_unlock_slow ->
         * rmutex.c rmutex_release_owned() rmutex_release_owned -> @rmutex.release.cas
         * rmutex_release: the release CAS loop, we own the word, only W can
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
#if KERNEL
    kernel_mark(me);
#endif
    finished++
}

active [N] proctype worker()
{
    /* me is _pid + 1 and timed is me == N (macros: no state); bit fields
     * keep the state vector small. */
    WORKER_LOCALS;
    lock_once()
}

/* The thread that holds the mutex when the workers start: at some moment it
 * either unlocks it [rmutex.c fx_rmutex_unlock() fx_rmutex_unlock, rmutex.c rmutex_release()
 * rmutex_release] or dies holding it (so that all three workers can be waiting
 * on a dead owner, or on an unrecoverable mutex).
 */
active proctype ghost()
{
#if TIDREUSE
    /* TID reuse: the ghost dies holding the mutex; the kernel then gives its
     * TID (me = _pid + 1 = GHOST) to a new, live thread, at a moment at
     * which no waiter is between a verdict "dead" and its CAS (the assumption
     * of the header), which locks the mutex once, as a worker does: while
     * the word still names the dead ghost it finds its own TID there without
     * a record, and takes it over (EOWNERDEAD). */
    WORKER_LOCALS;
    atomic { dead[GHOST] = true; cs-- };
    atomic { checking == 0 -> dead[GHOST] = false };
    lock_once()
#else
    bool oldW;
    if
    :: atomic { cs--; oldW = W; own = FREE; W = false };
       if
       :: oldW -> wake_one()                            /* [M:ghost-wake] */
       :: else -> skip
       fi
    :: atomic { dead[GHOST] = true; cs-- };
#if KERNEL
       kernel_mark(GHOST)
#else
       skip
#endif
    fi
#endif
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
    :: !TIDREUSE && dead[3] -> t = 3
    :: !TIDREUSE && dead[GHOST] -> t = GHOST            /* (with TIDREUSE: its TID may be a live thread's) */
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
    timeout -> assert(finished == N + TIDREUSE)
}

ltl progress {
    [] ((want[1] -> <> !want[1]) && (want[2] -> <> !want[2]) && (want[3] -> <> !want[3]))
}
