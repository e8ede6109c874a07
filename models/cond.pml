/*
 * models/cond.pml - fx_cond (src/cond.c) on top of fx_mutex (src/mutex.c),
 * with the kernel's futex queues.
 *
 * Each step is one atomic instruction or one futex call of the source; the
 * comments give the step tags of src/cond.c and src/mutex.c it mirrors as
 * "@cond.<step>" and "@mutex.<step>" (W1..W8, S1..S3, B1..B3 are the steps of
 * the state table at the top of src/cond.c).
 *
 *  - the mutex exactly as src/mutex.c: 0/1/2, fast path 0->1, one ordinary
 *    try after spinning, then fxi_mutex_lock_slept: acquire as CONTENDED
 *    (0->2), or 1->2 and sleep, or sleep on 2; unlock 1->0, or 2->0 + wake one;
 *    the cond re-acquires with one try (0->1) then fxi_mutex_lock_slept;
 *  - the cond: seq (counter mod M << 2 | BCAST | ARMED), waiters, park (its
 *    futex queue);
 *  - the kernel: q[p] is the word process p sleeps on; FUTEX_WAIT compares
 *    and queues in one step; a wake picks ANY sleeper of the word (the
 *    kernel's FIFO order is not relied on); FUTEX_CMP_REQUEUE compares, wakes
 *    one and moves the rest;
 *  - signal handlers (EINTR) and deadlines (ETIMEDOUT) ending a sleep on the
 *    cond word, on park or, after a requeue, on the mutex word, a bounded
 *    number of times.
 * Not modelled: W0 (@cond.wait_core.W0, fxi_mutex_check_held, mutex.c: a
 * relaxed load that only rejects a caller not holding the mutex; here every
 * caller holds it); the mutex token (W2): all waiters use one mutex, so a driver
 * requeues parked waiters onto it (-DFALLBACK models the wake-one hand-off
 * used otherwise; fx_rmutex waiters, which always use it, are
 * models/cond_rmutex.pml); the mutex's spin loop (mutex_spin,
 * mutex.c mutex_spin(): relaxed loads only, it only delays the try after it)
 * and the poll that replaces it when handoffs are far (mutex_poll: the same
 * loads, with sleeps on a thread-private word between them);
 * the W4a spin before W4 (@cond.wait_core.W4a: relaxed loads of seq, at most a
 * thread-local budget of them, struct fxi_spin of src/internal/spin.h; each
 * look that finds the counter advanced is W4 returning EAGAIN without the
 * system call followed by the re-check, which this model already has, and
 * the looks that find it unchanged change nothing). A waiter released there
 * ("hot") never slept, so it cannot have been requeued: if it is not flagged
 * its W6 is fx_mutex_lock (cond_mutex_relock_hot, cond.c), whose
 * steps are a CAS 0->1, read-only spinning, one more CAS 0->1, then
 * fxi_mutex_lock_slept; a failed CAS changes nothing, so these runs are those
 * of relock() below (one try 0->1, then lock_slept) with the try taken
 * later, and relock() stands for both; if it is flagged, its W6 is
 * relock_slept as for any flagged waiter;
 * memory order (the model is sequentially consistent; src/cond.c's atomics
 * are mostly relaxed, ordered by the mutex and the futex, and the mutex
 * orders the predicate: GenMC checks the weak orders, tests/genmc/).
 *
 * The counter runs modulo M = 4 and starts at M-1: the first advance wraps it,
 * so every run crosses the wrap point (M is 2^30 in the source).
 *
 * Scenarios (three processes each):
 *  TOKENS (default): waiters Waiter0 and Waiter1 take 2 and 1 tokens (Waiter1
 *    with a deadline); the Signaller makes 3 tokens and notifies each by signal
 *    or broadcast, inside or after its critical section.
 *  -DSCENARIO_BCAST: generations. Both waiters wait for gen >= 1, then for
 *    gen >= 2; then Waiter0 waits once more with a deadline for gen >= 3, which
 *    never comes (it registers while a broadcast may be under way, as a thread
 *    looping on a barrier does). The Broadcaster makes 2 generations, each
 *    followed by a broadcast inside or after the critical section.
 *  -DSCENARIO_WRAP: the wrap-around. Waiter0 waits for go; Waiter1 waits once,
 *    with a deadline, for nothing (so it arms seq at some counter value); the
 *    Signaller sets go, then sends 4 signals outside the mutex. The counter
 *    may advance at most twice (once per registration), so it never comes
 *    back to Waiter0's value however the signals fall; with the ARMED rule
 *    removed the 4 signals take it round (mod 4) under Waiter0 in transit.
 *
 * Properties:
 *  - safety: mutual exclusion (assertion); no lost wake-up: a waiter left
 *    asleep in a futex queue is an invalid end state, since every process
 *    must finish;
 *  - ltl all_finish: under weak fairness every process finishes (no livelock,
 *    e.g. a broadcast retrying forever);
 *  - ltl signalled_returns: a waiter whose predicate has become true while it
 *    waits eventually returns from the wait.
 *    With -DDEATHS=1 (TOKENS, no signals or deadlines) the Signaller may be
 *    killed in the wake windows (see "Death" below) and the sleeps have
 *    their bounded recheck: signalled_returns still holds.
 *
 * Mutations (models/mutate.sh of the verify branch; tags [M:...] below).
 * Each must be caught:
 *   cond-advance-always     S2 advances the counter although ARMED is clear
 *                           (signals alone take it round under a waiter)
 *   cond-no-recheck         W4 sleeps again after EINTR/EAGAIN/timeout without
 *                           comparing the counter
 *   cond-relock-locked      W6 takes the mutex as an ordinary locker although
 *                           flagged (requeue without marking it CONTENDED)
 *   cond-bcast-no-flag      B2 does not set BCAST before the requeue
 *   cond-bcast-retry-advances  a B3 retry advances the counter again
 *   cond-bcast-wakes-none   B3 parks every sleeper and wakes none
 *   cond-no-drive           W7 omitted: parked waiters stay parked
 *   cond-bcast-gives-up     B3 gives up when the requeue's compare fails
 *   cond-requeue-no-compare B3 requeues whatever seq holds: after a W8 cleared
 *                           BCAST, the woken waiter is not flagged, never drives
 *   cond-unbounded-sleep    no recheck on the sleeps (with -DDEATHS=1: a killed
 *                           Signaller strands a released waiter)
 * Equivalent (must survive), each a freedom of the design:
 *   cond-arm-before-count   W1's two steps swapped: both precede W3's release,
 *                           which orders them before any notifier
 *   cond-clear-b-early      W8 clears BCAST without re-checking waiters == 0:
 *                           W8 runs with the mutex held, so no waiter can
 *                           register in between (the re-check in src/cond.c
 *                           only guards waiters with different mutexes)
 */
//@mirrors src/futex.c fxi_futex_wait_raw fxi_futex_wake_raw fxi_futex_requeue_raw sha256=111e969d1f27d62594bff82396ee8b135f234982964ede16650a9c8c232c6951
//@mirrors src/sleep.c fxi_futex_sleep fxi_futex_sleep_cancel sleep_call sleep_bounded recheck_scope engine_wait engine_sleep engine_probe engine_look sha256=7c292b23b687578cceb54ce8f65e57de8a1ce92c0953f47ae65cf430ada863c2
//@mirrors src/cond.c cond_advance fx_cond_broadcast cond_depart cond_drive cond_mutex_relock cond_mutex_relock_hot cond_mutex_relock_slept cond_signal_waiters fx_cond_signal cond_sleep cond_wait_core sha256=13b062f65cae899bd03ec1d26c336a41236468d1e14e85369c6a4d4a695af1e2
//@mirrors src/internal/waiters.h fxi_waiters_enter sha256=e6b4574e505576255a4046e49cf89e45b47840b48b8c6fb909045516b5fd4ad1
//@mirrors src/mutex.c mutex_acquire fxi_mutex_acquire_step fxi_mutex_check_held fx_mutex_lock mutex_lock_contended fxi_mutex_lock_slept mutex_spin mutex_poll mutex_try fx_mutex_trylock mutex_release mutex_release_announced fx_mutex_unlock mutex_unlock_slow sha256=50bea495bde29ab72468dbd4d846f210147747a9559da2703d5fb1ae0752b5bb
//@check safety -DSCENARIO_WRAP
//@check safety -DSCENARIO_BCAST
//@check safety
//@check safety -DSCENARIO_BCAST -DFALLBACK
//@check safety -DFALLBACK
//@check ltl signalled_returns -DSCENARIO_WRAP
//@check ltl all_finish -DSCENARIO_BCAST long
//@check ltl signalled_returns -DSCENARIO_BCAST long
//@check ltl all_finish
//@check ltl signalled_returns
//@check ltl signalled_returns -DDEATHS=1 -DCOLLAPSE long

#define M  4            /* counter modulus: 2^30 in src/cond.c */
#define A  1            /* ARMED, seq bit 0 */
#define B  2            /* BCAST, seq bit 1 */

#define NONE   0        /* not asleep */
#define QSEQ   1        /* asleep on c->seq */
#define QPARK  2        /* asleep on c->park */
#define QMUTEX 3        /* asleep on m->state */

#define WOKEN     0
#define EAGAIN    1
#define EINTR     2
#define ETIMEDOUT 3

/* cond_advance, cond.c: counter + 1 (mod M), ARMED cleared, BCAST kept */
#define ADV(x) ((((x) / 4 + 1) % M) * 4 + ((x) & B))

byte seq = (M - 1) * 4; /* c->seq: counter M-1, nothing set */
byte nw = 0;            /* c->waiters */
byte mstate = 0;        /* m->state */
#define NP 3
byte q[NP];             /* kernel: the word each process sleeps on */

#if DEATHS
byte intr = 0;          /* with a death: no signals, no deadline (the state space) */
byte tmo = 0;
#else
byte intr = 1;          /* signal-handler interruptions left */
byte tmo = 1;           /* deadlines left to expire */
#endif

#if defined(SCENARIO_BCAST)
byte gen = 0;           /* the predicate, under the mutex */
#elif defined(SCENARIO_WRAP)
bit go = 0;             /* the predicate, under the mutex */
#else
byte tokens = 0;        /* the predicate, under the mutex */
#endif
byte incs = 0;          /* (observer) processes holding the mutex */
bit waiting[NP];        /* (observer) waiter p is inside cond_wait */
byte want[NP];          /* (observer) the generation waiter p waits for */
byte finished = 0;      /* (observer) */

#define ME _pid

#ifndef DEATHS
#define DEATHS 0        /* the Signaller may be killed (TOKENS scenario) */
#endif
#ifndef BOUNDED
#define BOUNDED (DEATHS > 0) /* sleeps end at a recheck (fxi_futex_sleep); off, it
                                is also a private object, whose sleeps have
                                no recheck once their scope is known */
#endif
#if DEATHS
/* Death (TOKENS only): the Signaller is SIGKILLed at any step of two
 * windows in which it holds nothing and every token it made has been
 * signalled: between a signal's or broadcast's advance (S2/B2) and its
 * wake (S3/B3) outside the mutex (the notifier side), and inside the
 * mutex's lock_slept, asleep or woken by an unlock and not yet back (the
 * woken side: the unlock's wake is consumed). The kernel drops it from the
 * futex queue. Every sleep then has its bounded recheck (BOUNDED), and the
 * property is signalled_returns. The mutation cond-unbounded-sleep removes
 * the recheck and is caught. In shared memory the bound is the process's
 * waiting engine (src/sleep.c): a sleep ends at a look that finds its word
 * no longer the value slept on (models/engine.pml shows that every sleeper
 * whose word changed is told), and not otherwise; for W4 that word is seq,
 * also for a waiter a broadcast moved onto park or the mutex word (the
 * broadcast advanced seq first). A recheck at any time is exact for that:
 * a W4 whose sleep ends, not woken, with seq unchanged sleeps on it again
 * (@cond.wait_core.again), and a lock_slept whose sleep ends with the word
 * still 2 fails its CAS 0->2 and sleeps on 2 again: neither changes
 * anything. (Checked 2026-12-07: with the recheck enabled only while seq,
 * or the mutex word, differs from the value slept on, signalled_returns
 * with a death passes too.) */
bit holds[NP];          /* (observer) process p holds the mutex */
bit killable = 0;       /* the Signaller is inside a death window */
bit doom = 0;           /* the killer chose the Signaller */
#define HOLD(b) holds[ME] = b
#define KILLABLE if :: ME == 2 && !holds[ME] -> killable = 1 :: else -> skip fi
#define UNKILLABLE if :: ME == 2 -> killable = 0 :: else -> skip fi
#else
#define HOLD(b) skip
#define KILLABLE skip
#define UNKILLABLE skip
#endif

/* the waiting[] observer, for the claims that name a waiter */
#if defined(SCENARIO_BCAST) || defined(SCENARIO_WRAP)
#define OBSERVE(x) x
#else
#define OBSERVE(x) skip
#endif

/* ---- the kernel ---------------------------------------------------------- */

/* FUTEX_WAKE(word, 1): wakes any one sleeper of the word, or nobody. */
inline futex_wake1(W)
{
    atomic {
        if
        :: q[0] == W -> q[0] = NONE
        :: q[1] == W -> q[1] = NONE
        :: q[2] == W -> q[2] = NONE
        :: else -> skip
        fi
    }
}

/* moves every sleeper of word F to word T (the requeue part of CMP_REQUEUE) */
inline futex_move_all(F, T)
{
    if :: q[0] == F -> q[0] = T :: else -> skip fi;
    if :: q[1] == F -> q[1] = T :: else -> skip fi;
    if :: q[2] == F -> q[2] = T :: else -> skip fi
}

/* ---- fx_mutex, src/mutex.c ------------------------------------------------- */

inline cs_enter()
{
    incs++;
    assert(incs == 1);  /* mutual exclusion */
    HOLD(1)
}

/* fxi_mutex_lock_slept's FUTEX_WAIT(state, 2), @mutex.lock_slept.sleep: EAGAIN unless 2,
 * else sleep until woken */
inline futex_wait_mutex()
{
    atomic { if :: mstate == 2 -> q[ME] = QMUTEX :: else -> skip fi };
    if
    :: (q[ME] == NONE)
    :: atomic { BOUNDED && q[ME] != NONE -> q[ME] = NONE } /* the recheck [M:recheck-mutex] */
    fi
}

/* fxi_mutex_lock_slept, mutex.c, with fxi_mutex_acquire_step,
 * mutex.c fxi_mutex_acquire_step() */
inline lock_slept()
{
    KILLABLE;
    do
    :: atomic { mstate == 0 -> mstate = 2; cs_enter(); UNKILLABLE }; break  /* @mutex.acquire_step.take CAS 0->2 */
    :: atomic { mstate == 1 -> mstate = 2 };                     /* @mutex.acquire_step.mark CAS 1->2 */
       futex_wait_mutex()
    :: atomic { mstate == 2 -> skip };                           /* @mutex.acquire_step.contended sees 2 */
       futex_wait_mutex()
    od
}

/* fx_mutex_lock, mutex.c (mutex_acquire, mutex.c), slow
 * path mutex_lock_contended, mutex.c */
inline mutex_lock()
{
    if
    :: atomic { mstate == 0 -> mstate = 1; cs_enter() }          /* @mutex.acquire.fast fast CAS 0->1 */
    :: atomic { mstate != 0 -> skip };
       if
       :: atomic { mstate == 0 -> mstate = 1; cs_enter() }       /* @mutex.lock_contended.cas try 0->1 */
       :: atomic { mstate != 0 -> skip }; lock_slept()           /* @mutex.lock_contended.slept */
       fi
    fi
}

/* cond_mutex_relock, cond.c: W6 of a waiter never moved to the
 * mutex word: fx_mutex_trylock (@mutex.trylock.cas CAS 0->1), then lock_slept
 * (cond_mutex_relock_slept, cond.c). Also W6 of a hot waiter,
 * fx_mutex_lock (cond.c cond_mutex_relock_hot(); see the header). */
inline relock()
{
    if
    :: atomic { mstate == 0 -> mstate = 1; cs_enter() }
    :: atomic { mstate != 0 -> skip }; lock_slept()
    fi
}

/* fx_mutex_unlock, mutex.c (and mutex_unlock_slow, mutex.c):
 * CAS 1->0, else 2->0 and wake one (the holder's word can only go 1 -> 2
 * meanwhile, so the two CASes are one step) */
inline mutex_unlock()
{
    atomic {
        incs--; HOLD(0);
        if
        :: mstate == 1 -> mstate = 0; lw = 0                      /* @mutex.unlock.cas CAS 1->0 */
        :: mstate == 2 -> mstate = 0; lw = 1                      /* @mutex.unlock_slow.cas CAS 2->0 */
        :: mstate == 0 -> assert(false)                           /* EPERM: never */
        fi
    };
    if
    :: lw -> futex_wake1(QMUTEX); lw = 0                          /* @mutex.unlock_slow.wake wake(1) */
    :: else -> skip
    fi
}

/* ---- fx_cond, src/cond.c --------------------------------------------------- */

/* cond_wait_core, cond.c, called with the mutex held.
 * W1 is a CAS loop in the source (EINVAL for a count it would wrap, which
 * the model never reaches): an increment here. W4 is cond_sleep (cond.c):
 * a bounded sleep; 0 with rc.woken set (a FUTEX_WAKE ended it) is WOKEN
 * below, every other return (EAGAIN, a signal, a spurious wake, the
 * recheck) goes on to the re-check of the counter, as EINTR does here. */
inline cond_wait(timed)
{
    OBSERVE(waiting[ME] = 1);
    nw++;                                                          /* W1 @cond.wait_core.W1 [M:W1a] */
    atomic { seq = seq | A; v = seq };                             /* W1 @cond.wait_core.W2 [M:W1b] */
    mutex_unlock();                                                /* W3 @cond.wait_core.W3 */
    do                                                             /* W4 @cond.wait_core.W4 */
    :: atomic { if :: seq == v -> q[ME] = QSEQ; w = WOKEN :: else -> w = EAGAIN fi };
       if                                                          /* @cond.wait_core.sleep FUTEX_WAIT */
       :: w == WOKEN ->
          if
          :: q[ME] == NONE                                         /* woken */
          :: atomic { q[ME] != NONE && intr > 0 -> q[ME] = NONE; intr--; w = EINTR }
          :: atomic { timed && q[ME] != NONE && tmo > 0 -> q[ME] = NONE; tmo--; w = ETIMEDOUT }
          :: atomic { BOUNDED && q[ME] != NONE -> q[ME] = NONE; w = EINTR } /* the recheck, not woken [M:recheck-seq] */
          fi
       :: else -> skip
       fi;
       if
       :: w == WOKEN -> break                                      /* @cond.wait_core.woken */
       :: else ->
          s = seq;                                                 /* @cond.wait_core.reload */
          if
          :: s / 4 != v / 4 -> break                               /* @cond.wait_core.advanced [M:recheck] */
          :: else ->
             if
             :: w == ETIMEDOUT -> res = ETIMEDOUT; break           /* @cond.wait_core.timed_out */
             :: else -> v = s                                      /* @cond.wait_core.again sleep again */
             fi
          fi
       fi
    od;
    s = 0; w = 0; v = 0;
    flagged = ((seq & B) != 0);                                    /* W5 @cond.wait_core.W5 */
    if                                                             /* W6 @cond.wait_core.W6 */
    :: flagged -> lock_slept()                                     /* [M:relock] */
    :: else -> relock()
    fi;
    if                                                             /* W7 @cond.wait_core.W7 */
    :: flagged -> drive()                                          /* [M:drive] */
    :: else -> skip
    fi;
    depart();                                                      /* W8 @cond.wait_core.W8 */
    flagged = 0;
    OBSERVE(waiting[ME] = 0)
}

/* cond_drive, cond.c (the mutex is held as CONTENDED) */
inline drive()
{
#ifdef FALLBACK
    futex_wake1(QPARK)                                             /* @cond.drive.wake */
#else
    atomic { futex_move_all(QPARK, QMUTEX) }                       /* @cond.drive.requeue */
#endif
}

/* cond_depart, cond.c */
inline depart()
{
    atomic { nw--; last = (nw == 0) };                             /* @cond.depart.W8 fetch_sub */
    if
    :: last ->
       s = seq;                                                    /* @cond.depart.load */
       if
       :: (s & B) && nw == 0 ->                                    /* @cond.depart.no_bcast, 429 [M:bclear] */
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
    :: nw == 0 -> skip                                             /* S1 @cond.signal.waiters */
    :: nw > 0 ->
       atomic { if :: (seq & A) -> seq = ADV(seq) :: else -> skip fi; KILLABLE };  /* S2 @cond.signal.advance [M:S2] */
       futex_wake1(QSEQ);                                          /* S3 @cond.signal.S3 */
       UNKILLABLE
    fi
}

/* fx_cond_broadcast, cond.c */
inline cond_broadcast()
{
    do
    :: nw == 0 -> break                                            /* B1 @cond.broadcast.waiters */
    :: nw > 0 ->
       atomic {                                                    /* B2 @cond.broadcast.advance */
          if :: (!adv && (seq & A)) -> seq = ADV(seq) | B :: else -> seq = seq | B fi;  /* [M:B2] */
          ns = seq;
          adv = 1;
          KILLABLE
       };
       atomic {                                                    /* B3 @cond.broadcast.requeue CMP_REQUEUE */
          if
          :: seq == ns -> futex_wake1(QSEQ); futex_move_all(QSEQ, QPARK); r = 0  /* [M:B3] */
          :: else -> r = EAGAIN
          fi
       };
       if :: r == 0 -> break :: else -> skip fi                   /* @cond.broadcast.requeue [M:retry] */
    od;
    ns = 0; r = 0; adv = 0;
    UNKILLABLE
}

/* ---- the processes --------------------------------------------------------- */

#if !defined(SCENARIO_BCAST) && !defined(SCENARIO_WRAP)

/* takes k tokens, waiting on the cond while there are none */
inline take_tokens(k, timed)
{
    do
    :: i < k ->
       mutex_lock();
       do
       :: tokens > 0 -> break
       :: else -> cond_wait(timed); res = 0
       od;
       tokens--;
       mutex_unlock();
       i++
    :: else -> break
    od;
    finished++
}

active proctype Waiter0()
{
    byte i, v, s, w, res, lw, last;
    bit flagged;
    take_tokens(2, 0)
}

active proctype Waiter1()
{
    byte i, v, s, w, res, lw, last;
    bit flagged;
    take_tokens(1, 1)
}

active proctype Signaller()
{
    byte i, lw, ns, r;
    bit adv;
#if DEATHS
    {
#endif
    do
    :: i < 3 ->
       mutex_lock();
       tokens++;
       if
       :: cond_signal(); mutex_unlock()
       :: cond_broadcast(); mutex_unlock()
       :: mutex_unlock(); cond_signal()
       :: mutex_unlock(); cond_broadcast()
       fi;
       i++
    :: else -> break
    od;
    finished++
#if DEATHS
    } unless {
        atomic { doom -> q[ME] = NONE; killable = 0; assert(!holds[ME]); lw = 0; ns = 0; r = 0; adv = 0 }
    }
#endif
}

#if DEATHS
active proctype killer()
{
end:
    atomic { killable -> doom = 1 }
}
#endif

ltl all_finish { <> (finished == 3) }
ltl signalled_returns { [] ((tokens > 0 && nw > 0) -> <> (tokens == 0 || nw == 0)) }

#elif defined(SCENARIO_BCAST)

/* waits for gen >= g */
inline wait_gen(g)
{
    mutex_lock();
    want[ME] = g;
    do
    :: gen >= g -> break
    :: else -> cond_wait(0)
    od;
    want[ME] = 0;
    mutex_unlock()
}

active proctype Waiter0()
{
    byte v, s, w, res, lw, last;
    bit flagged;
    wait_gen(1);
    wait_gen(2);
    mutex_lock();                                                  /* one wait with a deadline */
    if :: gen < 3 -> cond_wait(1); res = 0 :: else -> skip fi;     /* for a gen that never comes */
    mutex_unlock();
    finished++
}

active proctype Waiter1()
{
    byte v, s, w, res, lw, last;
    bit flagged;
    wait_gen(1);
    wait_gen(2);
    finished++
}

active proctype Broadcaster()
{
    byte i, lw, ns, r;
    bit adv;
    do
    :: i < 2 ->
       mutex_lock();
       gen++;
       if
       :: cond_broadcast(); mutex_unlock()
       :: mutex_unlock(); cond_broadcast()
       fi;
       i++
    :: else -> break
    od;
    finished++
}

ltl all_finish { <> (finished == 3) }
ltl signalled_returns { [] (((waiting[0] && want[0] <= gen) -> <> !waiting[0]) &&
                            ((waiting[1] && want[1] <= gen) -> <> !waiting[1])) }

#else /* SCENARIO_WRAP */

active proctype Waiter0()
{
    byte v, s, w, res, lw, last;
    bit flagged;
    mutex_lock();
    do
    :: go -> break
    :: else -> cond_wait(0)
    od;
    mutex_unlock();
    finished++
}

/* one wait with a deadline, for nothing: it arms seq at some counter value */
active proctype Waiter1()
{
    byte v, s, w, res, lw, last;
    bit flagged;
    mutex_lock();
    cond_wait(1);
    res = 0;
    mutex_unlock();
    finished++
}

active proctype Signaller()
{
    byte i, lw;
    mutex_lock();
    go = 1;
    mutex_unlock();
    do
    :: i < 4 -> cond_signal(); i++
    :: else -> break
    od;
    finished++
}

ltl all_finish { <> (finished == 3) }
ltl signalled_returns { [] ((waiting[0] && go) -> <> !waiting[0]) }

#endif
