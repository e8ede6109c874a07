/*
 * models/cond_rmutex.pml - fx_cond with fx_rmutex waiters (fx_cond_wait_rmutex
 * and fx_cond_timedwait_rmutex, src/cond.c) on the owner word of fx_rmutex
 * (src/rmutex.c), with the kernel's futex queues.
 *
 * Each step is one atomic instruction or one futex call of the source; the
 * comments give the step tags of src/cond.c ("@cond.<step>") and
 * src/rmutex.c ("@rmutex.<step>") it mirrors (W0..W8, S1..S3, B1..B3 are the steps of the
 * state table at the top of src/cond.c).
 *
 *  - the cond exactly as models/cond.pml (seq = counter mod M << 2 | BCAST |
 *    ARMED, waiters, park), except W2..W7 for an fx_rmutex: W3 releases the
 *    whole depth (fxi_rmutex_release_all), W6 takes it back at the saved depth
 *    with fxi_rmutex_acquire_step steps and bounded futex waits on the owner
 *    word, and W7 always wakes one parked waiter (W2's RMUTEX token never
 *    allows the requeue; the token itself is not modelled);
 *  - the rmutex owner word as models/rmutex.pml: (own, W) with own FREE, a TID
 *    or NOTREC, and the owner's private depth slot (depth, inc =
 *    INCONSISTENT). One acquisition step (rmutex_step) is one atomic
 *    transition: takes FREE (W kept iff the acquirer has slept on the word),
 *    gives ENOTRECOVERABLE on NOTREC, takes a dead owner's word when its
 *    liveness check is due (EOWNERDEAD, W kept), else sets W and answers
 *    EBUSY with the value to sleep on. A release stores FREE (or NOTREC when
 *    inconsistent) and wakes one sleeper if W was set (all if NOTREC);
 *  - the kernel: q[p] is the word process p sleeps on (QSEQ, QPARK, QOWN);
 *    FUTEX_WAIT compares and queues in one step; a wake picks ANY sleeper of
 *    the word; FUTEX_CMP_REQUEUE compares, wakes one and moves the rest;
 *  - time: a sleep on the owner word ends by a wake, or by the liveness
 *    re-check timer, which is enabled only while the word names a dead owner
 *    (its only job: every other progress must come from wakes, so a lost
 *    wake-up is a process asleep for ever), or spuriously at most SPURIOUS
 *    times; signal handlers (EINTR) and a deadline end a sleep on the cond a
 *    bounded number of times (TOKENS scenario only: an interruption could
 *    otherwise hide a waiter stranded on a queue from the checks).
 * Not modelled: W0's checks other than the inconsistent-mutex path (EPERM,
 * EINVAL: no wait happens; tested in tests/test_cond.c); the W4a spin before
 * W4 (@cond.wait_core.W4a: relaxed loads of seq, at most a thread-local budget of
 * them, struct fxi_spin of src/internal/spin.h; a look that finds the counter
 * advanced is W4 returning EAGAIN without the system call followed by the
 * re-check, which the model has, and one that finds it unchanged changes
 * nothing; for an fx_rmutex the "hot" W6 is the same cond_rmutex_relock
 * as the others, cond.c cond_rmutex_ops); fx_rmutex_lock's fast-path CAS and spin
 * or far poll (@rmutex.lock.fast: they take only FREE, as the first step does,
 * or only read; see models/rmutex.pml); fx_rmutex_recover and trylock
 * (models/rmutex.pml); memory order (sequentially consistent; the cond's
 * atomics are mostly relaxed, ordered by the mutex and the futex, the
 * rmutex's CASes acquire/release; GenMC checks the weak orders, tests/genmc/).
 *
 * Scenarios:
 *  TOKENS (default, 3 processes): Waiter0 takes TAKE0 tokens (1 in the
 *    checks) and Waiter1 one token (with a deadline), each waiting at depth
 *    2; the Notifier makes TAKE0 + 1 tokens, each followed by a signal or a
 *    broadcast inside or after its critical section. Two waiters can sleep on the owner word at once (two
 *    signals before the Notifier's unlock), which checks the W bit of W6.
 *  -DSCENARIO_DEATH (3 processes): both waiters wait at depth 2 for gen >= 1;
 *    the Notifier sets gen, signals or broadcasts, and then unlocks or dies
 *    holding the rmutex; or the first waiter back (Waiter0) dies holding it.
 *    One death at most. A waiter that gets EOWNERDEAD repairs (consistent) or
 *    not (its final unlock then makes the rmutex not recoverable).
 *  -DSCENARIO_CHAIN (4 processes): three waiters wait once for go (depths 1,
 *    2, 1); the Notifier sets go and broadcasts inside or after its critical
 *    section: the wake chain over two hops (safety only: the ltl run costs
 *    250 MB and adds nothing the loop-free chain could hide from safety).
 *  TOKENS with -DDEATHS=1 (3 processes and a killer): Waiter0 takes one
 *    token (depth 2, no deadline); Waiter1 is a plain locker of the rmutex
 *    (fx_rmutex_lock, fx_rmutex_unlock, once); the Notifier makes NTOKENS=1
 *    token, signalled inside (NOTIFY bit 1) or after (bit 4) its critical
 *    section; the Notifier is killed at any step at which its token is
 *    notified (see "Death").
 *  TOKENS with -DDEATHS=1 -DLOCKER=0 (long): as DEATHS=2 below, with the
 *    Notifier killed (the broadcast's park and W7's wake with two waiters).
 *  TOKENS with -DDEATHS=2 (long): both waiters take one token each (no
 *    deadline); the Notifier makes NTOKENS=1, by signal or broadcast, inside
 *    or after its critical section; Waiter0 is killed at any step.
 *
 * Death (issue 11, class 7; DEATHS only). The killer SIGKILLs the victim at
 * any step at which it is killable; the kernel takes it off any futex queue.
 * The Notifier (DEATHS=1) is killable at every step at which each token it
 * made has been notified (S1/S2, B1/B2 done), which is every step of its
 * wake windows: between S2/B2 and S3/B3 (the notifier side); in its
 * fx_rmutex_lock, asleep on the owner word or woken by a release and not
 * back (the woken side: the release's one wake is consumed); holding the
 * rmutex (the next locker takes it over with EOWNERDEAD, @rmutex.step.check_due,
 * once its re-check is due, and repairs or not, as in models/rmutex.pml);
 * and inside the rmutex's own release, between its CAS
 * (@rmutex.release.cas) and its FUTEX_WAKE (@rmutex.release.wake: the
 * sleepers on the owner word are not woken). It is not killed between
 * making a token and notifying it: a token nobody signals leaves a waiter
 * waiting, as it should. Waiter0 (DEATHS=2) is killable at every step: woken
 * by S3 and not back (the signal's wake consumed), flagged and holding the
 * rmutex before its W7 wake of park, holding the rmutex, inside its
 * releases, in its W6 asleep or woken. With a death, every sleep is
 * bounded, as in the C (BOUNDED): a sleep on c->seq (or on park, where a
 * broadcast moved it) is fxi_futex_sleep's (@cond.wait_core.sleep), whose
 * recheck (@futex.sleep.recheck, then the process's waiting engine,
 * src/sleep.c) returns without a wake, so W4 re-reads the counter
 * (@cond.wait_core.reload): a recheck is not a wake. The engine ends such
 * a sleep at a look that finds seq changed (models/engine.pml shows that
 * every sleeper whose word changed is told; a waiter moved onto park was
 * moved by a broadcast, which advanced seq first), and not otherwise; a
 * recheck at any time is exact for that, since a W4 whose sleep ends with
 * seq unchanged sleeps on it again (@cond.wait_core.again), which changes
 * nothing (checked 2026-12-07: with the recheck of c->seq enabled only while
 * seq differs from the value slept on, the three no_stranded checks pass
 * too). A sleep on the owner word (@cond.rmutex_relock.sleep,
 * @rmutex.wait.sleep) lasts at most until w->check_at
 * (@rmutex.step.new_owner, @rmutex.step.check_due), whether the owner lives
 * or not, after which the step is due (the liveness check). Signals,
 * deadlines and spurious wake-ups are left out (SPURIOUS=0: every bounded
 * sleep may end at any moment anyway).
 *
 * Properties:
 *  - safety: mutual exclusion; on return from a wait: 0 and ETIMEDOUT with
 *    the rmutex held at the waiter's depth and consistent, EOWNERDEAD held at
 *    its depth, inconsistent, after a death, ENOTRECOVERABLE not held and the
 *    word NOTREC (assertions); no lost wake-up: a live process left asleep
 *    is an invalid end state, since every process must finish (or die);
 *  - ltl all_finish: under weak fairness every process finishes (or dies): no
 *    livelock (TOKENS and DEATH);
 *  - ltl no_stranded (DEATHS): under weak fairness, a live waiter inside a
 *    cond wait while a token is there returns from its wait (or the token is
 *    taken), and every live process inside an rmutex acquisition (a lock, or
 *    W6) returns from it: no waiter sleeps for ever while it could proceed
 *    and nobody is responsible for waking it. Assertions hold as above.
 *
 * Mutations (models/mutate.sh, tags [M:...] below), each caught:
 *   cond-rm-no-drive          W7 omitted: a parked waiter stays parked
 *   cond-rm-requeue-owner     W7 requeues the parked waiters onto the owner
 *                             word: one of them sleeps there unbounded, and
 *                             when the owner dies it never wakes
 *   cond-rm-slept-lost        W6 forgets that it slept on the owner word and
 *                             takes it without W (a fresh waiter state per
 *                             step): the sleepers behind it are forgotten
 *   cond-rm-depth-1           W6 gives the rmutex back at depth 1
 *   cond-rm-eownerdead-0      the wait reports 0 when W6 got EOWNERDEAD
 *   cond-rm-no-recheck        the rmutex's sleeps are unbounded (no liveness
 *                             re-check): a death is never noticed
 *   cond-rm-unbounded-sleep the sleeps on c->seq and on the owner word have
 *                             no bounded recheck (the liveness re-check of a
 *                             dead owner kept): with DEATHS=1 a Notifier
 *                             killed between its advance and its wake, or
 *                             between its release's CAS and its wake, or
 *                             after a release's wake picked it, strands a
 *                             waiter (issue 11, class 7)
 *   cond-rm-unbounded-sleep-waiter  the same with DEATHS=2 (a killed waiter
 *                             strands the other; long)
 *   cond-rm-requeue-keep-w  the same requeue, with W6 keeping W
 *                             from its first step (fxi_rmutex_reacquire): no
 *                             wake-up is lost any more, but a requeued waiter
 *                             still sleeps without the re-check, and when the
 *                             owner dies (a waiter dying with the rmutex after
 *                             its wait) it never wakes (SCENARIO_DEATH)
 * Equivalent (must survive):
 *   cond-rm-relock-keeps-w    W6 keeps W from its first step, as
 *                             fxi_rmutex_reacquire does: also correct, only a
 *                             needless FUTEX_WAKE at the next unlock, which
 *                             src/cond.c avoids
 * (W7 before W6, waking the next parked waiter before re-acquiring, also
 * passes every check; W6 first is what keeps a broadcast from stampeding,
 * which tests/test_cond.c checks. Not kept as an equivalent mutation: each
 * costs a full run of the checks.)
 */
//@mirrors src/futex.c fxi_futex_wait_raw fxi_futex_wake_raw fxi_futex_requeue_raw sha256=111e969d1f27d62594bff82396ee8b135f234982964ede16650a9c8c232c6951
//@mirrors src/sleep.c fxi_futex_sleep fxi_futex_sleep_cancel sleep_call sleep_bounded recheck_scope engine_wait engine_sleep engine_probe engine_look sha256=7c292b23b687578cceb54ce8f65e57de8a1ce92c0953f47ae65cf430ada863c2
//@mirrors src/cond.c cond_advance fx_cond_broadcast cond_depart cond_drive cond_rmutex_check cond_rmutex_ops cond_rmutex_relock cond_signal_waiters fx_cond_signal cond_sleep cond_wait_core sha256=5674800e40b6890b11adb736181c59084958cd8b3b1456edf4d4313258a476a4
//@mirrors src/internal/waiters.h fxi_waiters_enter sha256=e6b4574e505576255a4046e49cf89e45b47840b48b8c6fb909045516b5fd4ad1
//@mirrors src/rmutex.c rmutex_acquired rmutex_acquired_slow rmutex_lock rmutex_lock_contended rmutex_reenter rmutex_release rmutex_release_owned rmutex_step rmutex_unlock_slow rmutex_wait fxi_rmutex_acquire_step fxi_rmutex_release_all fx_rmutex_unlock sha256=08e7472a98bac5f0c414143245247db0fe19c097659bb678ec791dc93f17168b
//@check safety -DSCENARIO_DEATH
//@check safety
//@check safety -DSCENARIO_CHAIN
//@check ltl all_finish -DSCENARIO_DEATH
//@check ltl all_finish
//@check ltl no_stranded -DDEATHS=1 -DNTOKENS=1 -DNOTIFY=5
//@check ltl no_stranded -DDEATHS=1 -DLOCKER=0 -DNTOKENS=1 -DCOLLAPSE long
//@check ltl no_stranded -DDEATHS=2 -DNTOKENS=1 -DCOLLAPSE long

#define M  4            /* counter modulus: 2^30 in src/cond.c */
#define A  1            /* ARMED, seq bit 0 */
#define B  2            /* BCAST, seq bit 1 */

#define NONE   0        /* not asleep */
#define QSEQ   1        /* asleep on c->seq */
#define QPARK  2        /* asleep on c->park */
#define QOWN   3        /* asleep on m->owner */

#define WOKEN     0
#define EAGAIN    1
#define EINTR     2
#define ETIMEDOUT 3

/* results of an acquisition step and of a wait */
#define R_OK       0
#define R_DEAD     1    /* EOWNERDEAD */
#define R_NOTREC   2    /* ENOTRECOVERABLE */
#define R_BUSY     3    /* EBUSY from a step */
#define R_TIMEDOUT 4    /* ETIMEDOUT */

#ifdef SCENARIO_CHAIN
#define NP 4
#else
#define NP 3
#endif

#define FREE    0
#define NOTREC  7
#define held(o) ((o) >= 1 && (o) <= NP)
#define ME      _pid
#define TID     (_pid + 1)   /* the TID of process ME */

#ifndef DEATHS
#define DEATHS 0        /* TOKENS: 1 the Notifier, 2 Waiter0 may be killed (see "Death") */
#endif
#ifndef BOUNDED
#define BOUNDED (DEATHS > 0) /* every sleep ends at its recheck time (see "Death") */
#endif
#ifndef SPURIOUS
#if BOUNDED
#define SPURIOUS 0      /* the bounded sleeps already end at any moment */
#else
#define SPURIOUS 1
#endif
#endif
#ifndef TAKE0
#define TAKE0 1         /* tokens Waiter0 takes (TOKENS scenario) */
#endif
#ifndef NTOKENS
#define NTOKENS (TAKE0 + 1) /* tokens the Notifier makes (TOKENS with DEATHS) */
#endif
#ifndef NOTIFY
#define NOTIFY 15       /* TOKENS with DEATHS: the notifications the Notifier may choose: 1 signal
                         * then unlock, 2 broadcast then unlock, 4 unlock then signal, 8 unlock
                         * then broadcast */
#endif
#ifndef LOCKER
#define LOCKER (DEATHS == 1) /* TOKENS with DEATHS: Waiter1 is a plain locker of the rmutex */
#endif
#ifndef REPAIR
#define REPAIR 1        /* TOKENS with DEATHS: after EOWNERDEAD, 1 consistent or not, 0 always consistent */
#endif

/* cond_advance, cond.c: counter + 1 (mod M), ARMED cleared, BCAST kept */
#define ADV(x) ((((x) / 4 + 1) % M) * 4 + ((x) & B))

byte seq = (M - 1) * 4; /* c->seq: counter M-1, nothing set */
byte nw = 0;            /* c->waiters */
byte own = FREE;        /* m->owner without W: FREE, a TID, NOTREC */
bit W = 0;              /* m->owner's WAITERS bit */
byte depth = 0;         /* m->depth, the owner's: the count */
bit inc = 0;            /* m->depth, the owner's: INCONSISTENT */
byte q[NP];             /* kernel: the word each process sleeps on */
bit dead[NP + 1];       /* by TID */
byte deaths = 0;
byte spurious = 0;

#ifdef SCENARIO_DEATH
byte gen = 0;           /* the predicate, under the rmutex */
#define MAXDEATHS 1
byte intr = 0;
byte tmo = 0;
#elif defined(SCENARIO_CHAIN)
bit go = 0;             /* the predicate, under the rmutex */
#define MAXDEATHS 0
byte intr = 0;
byte tmo = 0;
#else
byte tokens = 0;        /* the predicate, under the rmutex */
#define MAXDEATHS 0
#if DEATHS
byte intr = 0;          /* with a death: no signals, no deadline (the state space) */
byte tmo = 0;
#else
byte intr = 1;          /* signal-handler interruptions left */
byte tmo = 1;           /* deadlines left to expire */
#endif
#endif
byte incs = 0;          /* (observer) live processes holding the rmutex */
byte finished = 0;      /* (observer) processes that ended or died */

#if DEATHS
/* Death (TOKENS only, see the header): the victim (the Notifier with
 * DEATHS=1, Waiter0 with DEATHS=2) is SIGKILLed by the killer process at any
 * step at which killable[victim] is set; it takes its escape (the unless of
 * its proctype) before its next statement, asleep or not. */
#define VICTIM (DEATHS == 1 -> 2 : 0)
bit killable = 1;       /* the victim may be killed now */
bit doom = 0;           /* the killer chose the victim */
bit waiting[2];         /* (observer) live waiter p is inside a cond wait */
bit lk[NP];             /* (observer) live process p is inside an rmutex acquisition */
#define KILLABLE(b) if :: ME == VICTIM -> killable = b :: else -> skip fi
#define WAITING(b) waiting[ME] = b
#define LOCKING(b) lk[ME] = b
#else
#define KILLABLE(b) skip
#define WAITING(b) skip
#define LOCKING(b) skip
#endif

/* ---- the kernel ---------------------------------------------------------- */

/* FUTEX_WAKE(word, 1): wakes any one sleeper of the word, or nobody. */
inline futex_wake1(WD)
{
    atomic {
        if
        :: q[0] == WD -> q[0] = NONE
        :: q[1] == WD -> q[1] = NONE
        :: q[2] == WD -> q[2] = NONE
#if NP > 3
        :: q[3] == WD -> q[3] = NONE
#endif
        :: else -> skip
        fi
    }
}

/* FUTEX_WAKE(word, INT32_MAX) */
inline futex_wake_all(WD)
{
    atomic {
        if :: q[0] == WD -> q[0] = NONE :: else -> skip fi;
        if :: q[1] == WD -> q[1] = NONE :: else -> skip fi;
        if :: q[2] == WD -> q[2] = NONE :: else -> skip fi;
#if NP > 3
        if :: q[3] == WD -> q[3] = NONE :: else -> skip fi;
#endif
        skip
    }
}

/* moves every sleeper of word F to word T (the requeue part of CMP_REQUEUE) */
inline futex_move_all(F, T)
{
    if :: q[0] == F -> q[0] = T :: else -> skip fi;
    if :: q[1] == F -> q[1] = T :: else -> skip fi;
    if :: q[2] == F -> q[2] = T :: else -> skip fi;
#if NP > 3
    if :: q[3] == F -> q[3] = T :: else -> skip fi;
#endif
    skip
}

/* ---- fx_rmutex, src/rmutex.c ------------------------------------------------ */

/* One acquisition step, fxi_rmutex_acquire_step -> rmutex_step
 * (rmutex.c fxi_rmutex_acquire_step(), rmutex.c rmutex_step()), as one atomic transition (a CAS that
 * fails because another thread wrote the word in between is the same as that
 * write coming first; see models/rmutex.pml). Sets r; for R_BUSY, vo is the
 * owner to sleep on (W set). d: the depth installed on success
 * (rmutex_acquired, rmutex.c). */
inline rm_step(d)
{
    atomic {
        if
        :: own == FREE ->                                  /* @rmutex.step.take CAS 0 -> self|keep */
           own = TID; W = slept; r = R_OK
        :: own == NOTREC -> r = R_NOTREC                   /* @rmutex.step.notrec */
        :: held(own) && due && dead[own] ->                /* @rmutex.step.check_due, then the take-over CAS, W kept */
           own = TID; W = (W || slept); r = R_DEAD
        :: held(own) && !(due && dead[own]) ->             /* @rmutex.step.now check_at */
           due = 0; W = 1; vo = own; r = R_BUSY            /* @rmutex.step.mark_waiters T -> T|W; EBUSY */
        fi;
        if
        :: r == R_OK || r == R_DEAD ->
           incs++;
           assert(incs == 1);                              /* mutual exclusion */
           depth = d;                                      /* @rmutex.acquired.depth */
           inc = (r == R_DEAD)
        :: else -> skip
        fi
    }
}

/* The bounded futex wait on the owner word between steps (@cond.rmutex_relock.sleep, as
 * rmutex_wait, @rmutex.wait.sleep): FUTEX_WAIT(owner, vo|W) until woken or the
 * owner's liveness re-check time. */
inline rm_futex_wait()
{
    atomic { if :: (own == vo && W) -> q[ME] = QOWN :: else -> skip fi };
    if
    :: atomic { q[ME] == NONE -> due = 0 }                 /* woken, or EAGAIN */
    :: atomic { q[ME] == QOWN && held(own) && dead[own] -> /* [M:rm-recheck] */
                q[ME] = NONE; due = 1 }                    /* the re-check timer: owner dead */
    :: atomic { q[ME] == QOWN && spurious < SPURIOUS ->
                q[ME] = NONE; spurious++; due = 1 }        /* timer anyway, or spurious */
    :: atomic { BOUNDED && q[ME] == QOWN ->                /* [M:rm-bounded] */
                q[ME] = NONE; due = 1 }                    /* check_at passed, owner alive or not: a timeout, not a wake */
    fi
}

/* Acquire at depth d, blocking: fx_rmutex_lock's slow path
 * (rmutex.c rmutex_lock_contended(): one waiter state, slept once a step said EBUSY)
 * and, for W6, cond_rmutex_relock (cond.c). Sets r: R_OK, R_DEAD,
 * R_NOTREC. */
inline rm_acquire(d)
{
    LOCKING(1); slept = 0; due = 0;
    do
    :: rm_step(d);
       if
       :: r == R_BUSY ->
          slept = 1;                                       /* @rmutex.step.slept */
          rm_futex_wait()
       :: else -> break
       fi
    od;
    LOCKING(0); slept = 0; due = 0; vo = 0
}

/* The final release by the owner: rmutex_release (rmutex.c), through
 * rmutex_release_owned (rmutex.c), from fx_rmutex_unlock at depth 1
 * (rmutex.c fx_rmutex_unlock(): the fast CAS S -> 0, @rmutex.unlock.fast, or
 * rmutex_unlock_slow, rmutex.c) or fxi_rmutex_release_all
 * (rmutex.c fxi_rmutex_release_all()): FREE, or NOTREC when inconsistent; wake one if W, all
 * if NOTREC. One atomic step: while the owner holds the word only W can
 * change. */
inline rm_release()
{
    atomic {
        incs--;
        lw = W;
        if
        :: inc -> own = NOTREC; lw = 2
        :: else -> own = FREE
        fi;
        W = 0; inc = 0; depth = 0
    };
    if
    :: lw == 2 -> futex_wake_all(QOWN)                     /* @rmutex.release.wake_all */
    :: lw == 1 -> futex_wake1(QOWN)                        /* @rmutex.release.wake */
    :: else -> skip
    fi;
    lw = 0
}

/* fx_rmutex_unlock by the owner (rmutex.c fx_rmutex_unlock()): one level */
inline rm_unlock()
{
    if
    :: depth > 1 -> depth--                                /* owner-private */
    :: else -> rm_release()
    fi
}

/* A process dies in its critical section (at most MAXDEATHS in a run). */
inline die()
{
    atomic { deaths++; dead[TID] = 1; incs--; finished++ };
    goto died
}

/* ---- fx_cond, src/cond.c ---------------------------------------------------- */

/* cond_wait_core (cond.c) with the fx_rmutex operations, called
 * with the rmutex held at depth dd. Sets ret.
 * W1 is a CAS loop in the source (EINVAL for a count it would wrap, which
 * the model never reaches): an increment here. W4 is cond_sleep (cond.c):
 * a bounded sleep; 0 with rc.woken set (a FUTEX_WAKE ended it) is WOKEN
 * below, every other return (EAGAIN, a signal, a spurious wake, the
 * recheck) goes on to the re-check of the counter, as EINTR does here. */
inline cond_wait_rm(timed, dd)
{
  if
  :: inc ->                                                /* W0 @cond.wait_core.W0: inconsistent */
     rm_release();                                         /* @cond.rmutex_check.release_all, @rmutex.release_all.release: NOTREC */
     ret = R_NOTREC
  :: else ->
    atomic { nw++; WAITING(1) };                           /* W1 @cond.wait_core.W1 */
    atomic { seq = seq | A; v = seq };                     /* W1 @cond.wait_core.W2 */
    saved = depth;                                         /* W3 @cond.wait_core.W3, @rmutex.release_all.depth */
    rm_release();                                          /* W3 @rmutex.release_all.release */
    do                                                     /* W4 @cond.wait_core.W4 */
    :: atomic { if :: seq == v -> q[ME] = QSEQ; w = WOKEN :: else -> w = EAGAIN fi };
       if                                                  /* @cond.wait_core.sleep FUTEX_WAIT */
       :: w == WOKEN ->
          if
          :: q[ME] == NONE                                 /* woken */
          :: atomic { q[ME] != NONE && intr > 0 -> q[ME] = NONE; intr--; w = EINTR }
          :: atomic { timed && q[ME] != NONE && tmo > 0 -> q[ME] = NONE; tmo--; w = ETIMEDOUT }
          :: atomic { BOUNDED && q[ME] != NONE -> q[ME] = NONE; w = EINTR } /* the recheck, not a wake (@futex.sleep.recheck) [M:rm-recheck-seq] */
          fi
       :: else -> skip
       fi;
       if
       :: w == WOKEN -> break                              /* @cond.wait_core.woken */
       :: else ->
          s = seq;                                         /* @cond.wait_core.reload */
          if
          :: s / 4 != v / 4 -> break                       /* @cond.wait_core.advanced */
          :: else ->
             if
             :: w == ETIMEDOUT -> res = R_TIMEDOUT; break  /* @cond.wait_core.timed_out */
             :: else -> v = s                              /* @cond.wait_core.again */
             fi
          fi
       fi
    od;
    s = 0; w = 0; v = 0;
    flagged = ((seq & B) != 0);                            /* W5 @cond.wait_core.W5 */
    rm_acquire(saved);                                     /* W6 @cond.wait_core.W6 [M:rm-relock] */
    if                                                     /* W7 @cond.wait_core.W7 */
    :: flagged -> futex_wake1(QPARK)                       /* @cond.drive.wake [M:rm-drive] */
    :: else -> skip
    fi;
    depart();                                              /* W8 @cond.wait_core.W8 */
    flagged = 0; saved = 0;
    if                                                     /* @cond.wait_core.ret */
    :: r != R_OK -> ret = r                                /* [M:rm-ret] */
    :: else -> ret = res
    fi;
    r = 0; res = 0
  fi;
    WAITING(0);
    /* what the caller finds */
    if
    :: ret == R_OK || ret == R_TIMEDOUT ->
       assert(own == TID && depth == dd && !inc && (timed || ret == R_OK))
    :: ret == R_DEAD ->
       assert(own == TID && depth == dd && inc && deaths > 0)
    :: ret == R_NOTREC ->
       assert(own == NOTREC)
    fi
}

/* cond_depart, cond.c */
inline depart()
{
    atomic { nw--; last = (nw == 0) };                     /* @cond.depart.W8 */
    if
    :: last ->
       s = seq;                                            /* @cond.depart.load */
       if
       :: (s & B) && nw == 0 ->                            /* @cond.depart.no_bcast, 429 */
          atomic { if :: seq == s -> seq = s - B :: else -> skip fi }  /* @cond.depart.clear_bcast CAS */
       :: else -> skip
       fi
    :: else -> skip
    fi;
    s = 0; last = 0
}

/* fx_cond_signal, cond.c */
inline cond_signal()
{
    if
    :: atomic { nw == 0 -> KILLABLE(1) }     /* S1 @cond.signal.waiters */
    :: nw > 0 ->
       atomic { if :: (seq & A) -> seq = ADV(seq) :: else -> skip fi; KILLABLE(1) };  /* S2 @cond.signal.advance */
       futex_wake1(QSEQ)                                   /* S3 @cond.signal.S3 */
    fi
}

/* fx_cond_broadcast, cond.c */
inline cond_broadcast()
{
    do
    :: atomic { nw == 0 -> KILLABLE(1) }; break /* B1 @cond.broadcast.waiters */
    :: nw > 0 ->
       atomic {                                            /* B2 @cond.broadcast.advance */
          if :: (!adv && (seq & A)) -> seq = ADV(seq) | B :: else -> seq = seq | B fi;
          ns = seq;
          adv = 1;
          KILLABLE(1)
       };
       atomic {                                            /* B3 @cond.broadcast.requeue CMP_REQUEUE */
          if
          :: seq == ns -> futex_wake1(QSEQ); futex_move_all(QSEQ, QPARK); r = 0
          :: else -> r = EAGAIN
          fi
       };
       if :: r == 0 -> break :: else -> skip fi           /* @cond.broadcast.requeue */
    od;
    ns = 0; r = 0; adv = 0
}

/* ---- the processes --------------------------------------------------------- */

#define WAITER_LOCALS byte v, s, w, res, lw, last, r, ret, vo, saved, i; bit flagged, slept, due

/* lock at depth dd (fx_rmutex_lock, then re-entries: owner-private), where
 * no death can have happened */
inline lock_depth(dd)
{
    rm_acquire(1);
    assert(r == R_OK);
    r = 0;
    depth = dd                                             /* rmutex.c rmutex_reenter() re-entries */
}

inline unlock_depth()
{
    do
    :: depth > 1 -> depth--
    :: else -> break
    od;
    rm_release()
}

#if !defined(SCENARIO_DEATH) && !defined(SCENARIO_CHAIN)

#if DEATHS == 0

/* takes k tokens, waiting at depth 2 while there are none */
inline take_tokens(k, timed)
{
    do
    :: i < k ->
       lock_depth(2);
       do
       :: tokens > 0 -> break
       :: else -> cond_wait_rm(timed, 2); assert(ret != R_DEAD && ret != R_NOTREC); ret = 0
       od;
       tokens--;
       unlock_depth();
       i++
    :: else -> break
    od;
    finished++
}

active proctype Waiter0()
{
    WAITER_LOCALS;
    take_tokens(TAKE0, 0)
}

active proctype Waiter1()
{
    WAITER_LOCALS;
    take_tokens(1, 1)
}

active proctype Notifier()
{
    WAITER_LOCALS;
    bit adv; byte ns;
    do
    :: i < TAKE0 + 1 ->
       lock_depth(1);
       tokens++;
       if
       :: true -> cond_signal(); unlock_depth()
       :: true -> cond_broadcast(); unlock_depth()
       :: true -> unlock_depth(); cond_signal()
       :: true -> unlock_depth(); cond_broadcast()
       fi;
       i++
    :: else -> break
    od;
    finished++
}

#else /* DEATHS */

/* After EOWNERDEAD: the caller repairs the data and calls
 * fx_rmutex_consistent (@rmutex.consistent.store), or not (its final unlock
 * then makes the rmutex not recoverable). */
inline repair()
{
    if
    :: inc = 0
    :: REPAIR -> skip
    fi
}

/* fx_rmutex_lock, then re-entries up to depth dd; gone = 1 on
 * ENOTRECOVERABLE (not held). A dead owner is taken over (EOWNERDEAD). */
inline lock_d(dd)
{
    rm_acquire(1);
    if
    :: r == R_NOTREC -> gone = 1
    :: r == R_DEAD -> repair(); depth = dd
    :: r == R_OK -> depth = dd
    fi;
    r = 0
}

/* takes k tokens, waiting at depth 2 while there are none; leaves on
 * ENOTRECOVERABLE */
inline take_tokens_d(k)
{
    do
    :: i < k && !gone ->
       lock_d(2);
       do
       :: gone -> break
       :: !gone && tokens > 0 -> tokens--; unlock_depth(); i++; break
       :: !gone && tokens == 0 ->
          cond_wait_rm(0, 2);
          if
          :: ret == R_NOTREC -> gone = 1                   /* not held */
          :: ret == R_DEAD -> repair()
          :: else -> skip
          fi;
          ret = 0
       od
    :: else -> break
    od
}

/* The victim's death: the kernel drops it from any futex queue; a word that
 * names it keeps naming it (the others take it over: EOWNERDEAD). */
inline killed()
{
    atomic {
        doom = 0; killable = 0;
        q[ME] = NONE;
        if :: own == TID -> incs-- :: else -> skip fi;
        dead[TID] = 1; deaths++; finished++;
        lk[ME] = 0;
        if :: ME < 2 -> waiting[ME] = 0 :: else -> skip fi;
        v = 0; s = 0; w = 0; res = 0; lw = 0; last = 0; r = 0; ret = 0; vo = 0;
        saved = 0; i = 0; flagged = 0; slept = 0; due = 0; gone = 0
    }
}

active proctype Waiter0()
{
    WAITER_LOCALS; bit gone;
    {
       take_tokens_d(TAKE0);
       atomic { finished++; KILLABLE(0) }
    } unless { doom && ME == VICTIM -> killed() }
}

#if LOCKER
/* a plain locker of the rmutex, once (fx_rmutex_lock, fx_rmutex_unlock) */
active proctype Waiter1()
{
    WAITER_LOCALS; bit gone;
    lock_d(1);
    if
    :: !gone -> unlock_depth()
    :: else -> skip
    fi;
    finished++
}
#else
active proctype Waiter1()
{
    WAITER_LOCALS; bit gone;
    take_tokens_d(1);
    finished++
}
#endif

/* Killable (DEATHS=1) at any step at which every token it made is
 * notified: before its first token, and from S1/S2 (B1/B2) of a token's
 * notification to the next token (its rmutex acquisition, asleep or woken,
 * holding the rmutex, inside the release between its CAS and its wake). */
active proctype Notifier()
{
    WAITER_LOCALS; bit gone;
    bit adv; byte ns;
    {
       do
       :: i < NTOKENS && !gone ->
          lock_d(1);
          if
          :: gone -> break
          :: else -> atomic { tokens++; KILLABLE(0) }
          fi;
          if
          :: (NOTIFY & 1) -> cond_signal(); unlock_depth()
          :: (NOTIFY & 2) -> cond_broadcast(); unlock_depth()
          :: (NOTIFY & 4) -> unlock_depth(); cond_signal()
          :: (NOTIFY & 8) -> unlock_depth(); cond_broadcast()
          fi;
          i++
       :: else -> break
       od;
       atomic { finished++; KILLABLE(0) }
    } unless { doom && ME == VICTIM -> killed(); adv = 0; ns = 0 }
}

/* SIGKILL, once, at a step at which the victim is killable */
active proctype killer()
{
end:
    atomic { killable -> doom = 1 }
}

#endif /* DEATHS */

#if DEATHS
/* a live waiter with a token there returns from its wait, and every live
 * acquisition of the rmutex returns */
ltl no_stranded { [] (((tokens > 0 && (waiting[0] || waiting[1])) ->
                        <> (tokens == 0 || !(waiting[0] || waiting[1]))) &&
                      (lk[0] -> <> !lk[0]) && (lk[1] -> <> !lk[1]) && (lk[2] -> <> !lk[2])) }
#endif
#elif defined(SCENARIO_DEATH)

/* waits at depth 2 for gen >= 1; may die holding the rmutex (Waiter0) */
inline wait_gen(may_die)
{
    rm_acquire(1);                                         /* fx_rmutex_lock */
    if
    :: r == R_NOTREC -> goto out
    :: r == R_DEAD ->
       if
       :: inc = 0                                          /* repaired: fx_rmutex_consistent */
       :: skip                                             /* not repaired */
       fi
    :: else -> skip
    fi;
    r = 0;
    depth = 2;                                             /* re-entry */
    do
    :: gen >= 1 -> break
    :: else ->
       cond_wait_rm(0, 2);
       if
       :: ret == R_NOTREC -> goto out                      /* not held */
       :: ret == R_DEAD ->
          if
          :: inc = 0                                       /* repaired: fx_rmutex_consistent */
          :: skip                                          /* not repaired */
          fi
       :: else -> skip
       fi;
       ret = 0
    od;
    if
    :: may_die && deaths < MAXDEATHS -> die()
    :: else -> skip
    fi;
    unlock_depth();
out:
    finished++
}

active proctype Waiter0()
{
    WAITER_LOCALS;
    wait_gen(1);
died:
    skip
}

active proctype Waiter1()
{
    WAITER_LOCALS;
    wait_gen(0);
died:
    skip
}

active proctype Notifier()
{
    WAITER_LOCALS;
    bit adv; byte ns;
    lock_depth(1);
    gen = 1;
    if
    :: true -> cond_signal(); cond_signal()                /* one for each waiter */
    :: true -> cond_broadcast()
    fi;
    if
    :: deaths < MAXDEATHS -> die()                         /* dies holding it */
    :: true -> unlock_depth()
    fi;
    finished++;
died:
    skip
}

#else /* SCENARIO_CHAIN */

inline wait_go(dd)
{
    lock_depth(dd);
    do
    :: go -> break
    :: else -> cond_wait_rm(0, dd); assert(ret == R_OK)
    od;
    unlock_depth();
    finished++
}

active proctype Waiter0()
{
    WAITER_LOCALS;
    wait_go(1)
}

active proctype Waiter1()
{
    WAITER_LOCALS;
    wait_go(2)
}

active proctype Waiter2()
{
    WAITER_LOCALS;
    wait_go(1)
}

active proctype Notifier()
{
    WAITER_LOCALS;
    bit adv; byte ns;
    lock_depth(1);
    go = 1;
    if
    :: true -> cond_broadcast(); unlock_depth()
    :: true -> unlock_depth(); cond_broadcast()
    fi;
    finished++
}

#endif

ltl all_finish { <> (finished == NP) }
