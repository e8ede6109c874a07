/*
 * src/cond.c - the condition variable.
 *
 * Slots and their states (the design; keep it true)
 *
 *   slot     value                                   never written -> EINVAL
 *   seq      counter << 2 | BCAST | ARMED            (all values valid)
 *              counter  c, mod 2^30
 *              BCAST    b: a broadcast may have moved waiters to park or to
 *                       the mutex word since waiters was last 0
 *              ARMED    a: a waiter registered at counter c
 *   waiters  n >= 0: threads between W1 and W8       n < 0; W1 also refuses
 *                                                    INT32_MAX (would wrap)
 *   mutex    NONE 0 | MIXED 2 | RMUTEX 3 | token     = 3 (mod 4), != 3;
 *            of an fx_mutex (offset from the cond,   = 2 (mod 4), != 2
 *            = 0 mod 4, or address tag, = 1 mod 4)
 *   park     0                                       != 0
 *
 *   step  transition                         by, when                     system call
 *   W0    check the mutex: held by the       waiter                       -
 *         caller (else EPERM/EINVAL); an
 *         inconsistent fx_rmutex is released
 *         as not recoverable: ENOTRECOVERABLE
 *   W1    n += 1; v := (seq |= a)            waiter, mutex held           -
 *   W2    mutex := token (RMUTEX for any     waiter, mutex held           -
 *         fx_rmutex), or MIXED
 *   W3    release the mutex (an fx_rmutex:   waiter                       mutex's
 *         its whole depth, saved)
 *   W4a   spin (adaptive, per thread) while  waiter                       -
 *         seq == v; a change releases it
 *         ("hot": the notifier is running)
 *   W4    sleep while seq == v (not if hot), waiter                       FUTEX_WAIT(seq, v)
 *         at most until the next recheck
 *         (FXI_RECHECK_NS), then look again
 *   W5    flagged := b in seq                waiter, released             -
 *   W6    re-acquire the mutex, as a         waiter                       mutex's
 *         sleeper if flagged, by a plain
 *         fx_mutex_lock if hot (an fx_rmutex
 *         at the saved depth; EOWNERDEAD
 *         counts as acquired)
 *   W7    drive park (if flagged): an        waiter, mutex held (or       CMP_REQUEUE(park ->
 *         fx_mutex waiter whose token is     failed to re-acquire)         mutex), or
 *         in mutex moves all onto its                                      WAKE(park, 1)
 *         mutex; any other wakes one
 *   W8    n -= 1; if n == 0: seq &= ~b       waiter                       -
 *   C     cancelled in W4: W5..W8 in the     waiter's cleanup handler     as W6, W7;
 *         cleanup handler, and a wake of                                   WAKE(seq, 1)
 *         one sleeper if the counter moved
 *   S1    n == 0: done                       signal                       -
 *   S2    a set: c += 1, a := 0              signal                       -
 *   S3    wake one sleeper                   signal                       FUTEX_WAKE(seq, 1)
 *   B1    n == 0: done                       broadcast                    -
 *   B2    a set: c += 1, a := 0; b := 1      broadcast                    -
 *   B3    if seq is still B2's value: wake   broadcast                    CMP_REQUEUE(seq ->
 *         one sleeper and park the others;                                 park, 1, all)
 *         else back to B1 (B2 then sets b
 *         only: one advance per broadcast)
 *
 * Invariant (checked by models/cond.pml and models/cond_rmutex.pml): a
 * waiter is released only by a wake that finds it asleep or by the counter
 * moving past counter(v) (a change of b alone releases nobody), and while a
 * waiter sleeps (on seq, park or the mutex word) after the counter advanced
 * past its W1, a notifier between S2/B2 and S3/B3, a woken waiter before W7,
 * or a holder about to unlock is responsible for waking it, or its recheck is
 * due within FXI_RECHECK_NS. W1 runs under the mutex before W3, so a notifier
 * that holds the mutex to change the predicate sees the waiter counted and
 * armed. b is set before any waiter is moved and cleared only by the waiter
 * that brings n to 0, so every moved waiter sees it. Memory order: the mutex,
 * the futex and coherence order most accesses, which are relaxed; W2's arm
 * is a release and W8's look at seq an acquire, W1 and cond_bind's accesses
 * of the mutex slot are seq_cst.
 *
 * Why it works (no lost wake-up, the wrap-around bound, broadcast without
 * pointers, b, the fx_rmutex waiters and their owner deaths, death in the
 * wake window, memory order): docs/design/cond.md.
 */
#include "futexsync/cond.h"
#include "futexsync/layout.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal/annotate.h"
#include "internal/deadline.h"
#include "internal/fault.h"
#include "internal/futex.h"
#include "internal/sleep.h"
#include "internal/waiters.h"
#include "internal/mutex.h"
#include "internal/spin.h"
#include "internal/rmutex.h"
#include "internal/identity.h"

#ifndef FXI_COND_SPIN
#define FXI_COND_SPIN 128   /* the longest ordinary W4a spin, in pauses */
#endif
#ifndef FXI_COND_PROBE
#define FXI_COND_PROBE 1024 /* a probe's spin: it must outlast a wake-up */
#endif

/* This thread's W4a spin budget (struct fxi_spin, src/internal/spin.h). */
static _Thread_local struct fxi_spin cond_spin = FXI_SPIN_INIT(FXI_COND_SPIN);

enum {
    ARMED = FX_COND_ARMED, /* a: a waiter registered at this counter */
    BCAST = FX_COND_BCAST, /* b: a broadcast may have moved waiters */
    COUNTER_ONE = 4,       /* one step of the counter (bits 31..2) */
};

enum {
    TOKEN_NONE = 0,  /* no waiter bound a mutex yet */
    TOKEN_MIXED = 2, /* waiters with different (or differently mapped) mutexes */
    TOKEN_RMUTEX = 3, /* waiters with fx_rmutexes (never moved onto a mutex word) */
};

/* The next value of seq when the counter advances: a cleared, b kept. The
 * counter wraps modulo 2^30 (unsigned arithmetic, no overflow). */
static inline int32_t cond_advance(int32_t s)
{
    return (int32_t)(((uint32_t)s & ~(uint32_t)(ARMED | BCAST)) + COUNTER_ONE) | (s & BCAST);
}

/* Whether two values of seq hold the same counter (ARMED and BCAST aside). */
static inline bool cond_same_counter(int32_t s, int32_t v)
{
    return (((uint32_t)s ^ (uint32_t)v) & ~(uint32_t)(ARMED | BCAST)) == 0;
}

static inline bool cond_token_valid(int32_t t)
{
    return (t & 3) == 0 || (t & 3) == 1 || t == TOKEN_MIXED || t == TOKEN_RMUTEX;
}

/* 1 when the object of `size` bytes at p overlaps the condition variable c. */
static inline bool cond_overlaps(const fx_cond *c, const void *p, size_t size)
{
    uintptr_t uc = (uintptr_t)c, up = (uintptr_t)p;
    return up - uc < sizeof(fx_cond) || uc - up < size;
}

/* The token W2 stores for an fx_mutex: the mutex's offset from the cond when
 * it fits in an int32 (the same in every process that maps both in one
 * region), otherwise a tag of its address (= 1 mod 4). A token only tells the
 * waiters' mutexes apart; no address is ever computed from it. */
static int32_t cond_mutex_token(const fx_cond *c, const void *m)
{
    uintptr_t uc = (uintptr_t)c, um = (uintptr_t)m;
    uintptr_t d = um - uc;
    if (d <= (uintptr_t)INT32_MAX || -d <= (uintptr_t)INT32_MAX)
        return (int32_t)(uint32_t)d; /* a non-zero multiple of 4 (no overlap) */
    uint64_t a = (uint64_t)um;
    return (int32_t)(((uint32_t)(a ^ (a >> 32)) & ~3u) | 1u);
}

/* The operations of the mutex a waiter uses. `saved` carries what W3 must
 * give back in W6 (an fx_rmutex's depth). A relock that returns EOWNERDEAD
 * has acquired the mutex. */
struct fx_cond_lock_ops {
    /* W0: 0 when the caller holds m; otherwise the wait returns this at once
     * (EPERM, EINVAL; ENOTRECOVERABLE after releasing an inconsistent m). */
    int (*check)(void *m);
    int32_t (*token)(const fx_cond *c, const void *m);  /* W2 */
    int (*release)(void *m, int32_t *saved);            /* W3 */
    int (*relock)(void *m, int32_t saved);       /* W6 for a waiter never moved to the mutex word */
    int (*relock_slept)(void *m, int32_t saved); /* W6 for a waiter that may have been moved there */
    int (*relock_hot)(void *m, int32_t saved);   /* W6 for a waiter released while spinning */
    int32_t *(*word)(void *m); /* the word W7 moves parked waiters onto; NULL: wake one instead */
};

static int cond_mutex_check(void *p)
{
    /* A plausibility check before registering; the unlock in W3 gives the
     * authoritative answer. */
    return fxi_mutex_check_held(p);
}

static int cond_mutex_release(void *m, int32_t *saved)
{
    (void)saved;
    return fx_mutex_unlock(m);
}

static int cond_mutex_relock_slept(void *p, int32_t saved)
{
    (void)saved;
    fx_mutex *m = p;
    const bool on = fxi_ann_on(); /* one look at the race-detector probe */
    if (on)
        fxi_ann_pre_lock(m, FXI_ANN_EXCLUSIVE);
    int r = fxi_mutex_lock_slept(m, NULL);
    if (on)
        fxi_ann_post_lock(m, r ? FXI_ANN_TRY | FXI_ANN_FAILED : FXI_ANN_EXCLUSIVE, 0);
    return r;
}

/* W6 of a waiter that was never moved to the mutex word: one try as an
 * ordinary locker, then sleep, without fx_mutex_lock's spin. The mutex is
 * then mostly held by the thread that just signalled us, which may need our
 * CPU to release it: spinning there slows a signalled ping-pong down
 * (bench/README.md). */
static int cond_mutex_relock(void *m, int32_t saved)
{
    int r = fx_mutex_trylock(m);
    return r == EBUSY ? cond_mutex_relock_slept(m, saved) : r;
}

/* W6 of a waiter released during its W4a spin: the notifier runs on another
 * CPU right now and will soon unlock, so the mutex is worth spinning for. */
static int cond_mutex_relock_hot(void *m, int32_t saved)
{
    (void)saved;
    return fx_mutex_lock(m);
}

static int32_t *cond_mutex_word(void *m)
{
    return &((fx_mutex *)m)->state;
}

static const struct fx_cond_lock_ops cond_mutex_ops = {
    cond_mutex_check,  cond_mutex_token,        cond_mutex_release,
    cond_mutex_relock, cond_mutex_relock_slept, cond_mutex_relock_hot,
    cond_mutex_word,
};

/* fx_rmutex: the whole depth is released (W3) and restored (W6). */

static int cond_rmutex_check(void *p)
{
    fx_rmutex *m = p;
    pid_t owner = fx_rmutex_owner(m);
    if (owner < 0)
        return EINVAL; /* an owner word the library never writes */
    if (owner != fxi_tid())
        return EPERM; /* free, orphaned, not recoverable, or another thread's */
    /* Relaxed: the owner's private slot, and we are the owner. */
    int32_t d = __atomic_load_n(&m->depth, __ATOMIC_RELAXED);
    if ((d & ~(FX_RMUTEX_DEPTH_MASK | FX_RMUTEX_INCONSISTENT)) != 0 ||
        (d & FX_RMUTEX_DEPTH_MASK) == 0)
        return EINVAL;
    if (d & FX_RMUTEX_INCONSISTENT) {
        /* Acquired with EOWNERDEAD, not made consistent: releasing it makes it
         * not recoverable (as fx_rmutex_unlock, and POSIX); nobody can take it
         * again, so do not sleep. */
        int32_t depth;
        /* @step cond.rmutex_check.release_all */
        int r = fxi_rmutex_release_all(m, &depth);
        return r ? r : ENOTRECOVERABLE;
    }
    return 0;
}

static int32_t cond_rmutex_token(const fx_cond *c, const void *m)
{
    (void)c;
    (void)m;
    return TOKEN_RMUTEX;
}

static int cond_rmutex_release(void *m, int32_t *saved)
{
    return fxi_rmutex_release_all(m, saved);
}

/* W6: takes the rmutex back at the saved depth, blocking as long as needed;
 * 0, EOWNERDEAD (held, INCONSISTENT), ENOTRECOVERABLE or EINVAL. One waiter
 * state for the whole acquisition: once a step has answered EBUSY it counts
 * as having slept on the owner word and acquires keeping W, so the sleepers
 * behind it are not forgotten; before that it acquires as an ordinary locker.
 * Every sleep is bounded by the owner's liveness re-check (the step at or
 * after recheck_at looks whether the owner died). */
static int cond_rmutex_relock(void *p, int32_t saved)
{
    fx_rmutex *m = p;
    struct fxi_rmutex_waiter w;
    fxi_rmutex_waiter_init(&w, saved);
    for (;;) {
        int32_t *word, sleep_on;
        struct timespec recheck_at;
        int r = fxi_rmutex_acquire_step(m, &w, &word, &sleep_on, &recheck_at);
        if (r != EBUSY)
            return r;
        /* Woken, re-check time, EAGAIN or EINTR: all mean step again.
         * @step cond.rmutex_relock.sleep */
        fxi_futex_wait_raw(word, sleep_on, &recheck_at, FXI_BITSET_ANY);
    }
}

static int32_t *cond_rmutex_word(void *m)
{
    (void)m;
    return NULL; /* never requeue onto the owner word: see the top of the file */
}

static const struct fx_cond_lock_ops cond_rmutex_ops = {
    cond_rmutex_check,  cond_rmutex_token,  cond_rmutex_release,
    cond_rmutex_relock, cond_rmutex_relock, cond_rmutex_relock,
    cond_rmutex_word,
};

int fx_cond_init(fx_cond *c)
{
    if (fxi_bad_slot(c))
        return EINVAL;
    /* Relaxed: init happens before any sharing, like a memset. */
    __atomic_store_n(&c->seq, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&c->waiters, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&c->mutex, TOKEN_NONE, __ATOMIC_RELAXED);
    __atomic_store_n(&c->park, 0, __ATOMIC_RELAXED);
    return 0;
}

/* W2: records which mutex the waiters use. With the mutex held, the waiters
 * of a correct program bind one after another; the checks below only have to
 * catch waiters with different mutexes, which are not serialized. */
static void cond_bind(fx_cond *c, int32_t token, bool first)
{
    /* seq_cst, although the common case only finds its own token: after our
     * W1 increment, this load and a concurrent binder's exchange-then-load of
     * waiters are the two halves of a store-buffering test, which only seq_cst
     * on all four accesses settles (one of the two sees the other). A plain
     * load on x86. */
    int32_t t = __atomic_load_n(&c->mutex, __ATOMIC_SEQ_CST);
    if (t == token || (!first && t == TOKEN_MIXED))
        return;
    /* seq_cst: ordered with the waiters increments of W1 (ours and those of
     * concurrent waiters) in the single total order, so of two waiters with
     * different mutexes at least one sees the other (its token or its count)
     * and marks the slot MIXED. */
    t = __atomic_exchange_n(&c->mutex, token, __ATOMIC_SEQ_CST);
    if (t == token)
        return;
    /* A first waiter alone replaces whatever a past population left. */
    if (!first || __atomic_load_n(&c->waiters, __ATOMIC_SEQ_CST) > 1)
        /* Relaxed: publishes nothing, and no load after it is in the test
         * above; its place in the slot's order is what counts. */
        __atomic_store_n(&c->mutex, TOKEN_MIXED, __ATOMIC_RELAXED);
}

/* W8: leaves the waiter count; the last one out clears b. */
static void cond_depart(fx_cond *c)
{
    /* Relaxed (see the top): only the count matters, which the
     * read-modify-writes of waiters keep exact; S1/B1 and the re-check below
     * read it by coherence. @step cond.depart.W8 */
    if (__atomic_fetch_sub(&c->waiters, 1, __ATOMIC_RELAXED) != 1)
        return;
    /* Acquire: a waiter's W2 (a release) that this value follows, through
     * the read-modify-writes of seq (a broadcast's B2 among them), brings
     * its W1, which the re-check below must then see: a waiter moved by
     * that broadcast is counted. @step cond.depart.load */
    int32_t s = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
    /* @step cond.depart.no_bcast */
    if (!(s & BCAST))
        return;
    /* We hold the mutex, so no waiter of it registered since our decrement;
     * the re-check and the CAS cover waiters with other mutexes (a new W1
     * shows in the count, or its a makes the CAS fail, or its v holds b and
     * it only sleeps again, see W4). Relaxed, the re-check and the CAS: the
     * acquire above ordered the count; the CAS publishes nothing, its
     * atomicity is the point. @step cond.depart.clear_bcast */
    if (__atomic_load_n(&c->waiters, __ATOMIC_RELAXED) == 0)
        __atomic_compare_exchange_n(&c->seq, &s, s & ~BCAST, false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
}

/* W7: moves the waiters parked by broadcasts on towards their mutex. The
 * caller holds its own mutex (an fx_mutex as CONTENDED) unless W6 failed. */
static void cond_drive(fx_cond *c, void *m, const struct fx_cond_lock_ops *ops,
                       int32_t token, bool holding)
{
    /* Relaxed: the token is only compared; the W1/W8 ordering above makes it
     * stable while we are counted. */
    int32_t *word = ops->word(m);
    if (holding && word != NULL && __atomic_load_n(&c->mutex, __ATOMIC_RELAXED) == token) {
        /* All parked waiters use our mutex: sleep on its word, woken one by
         * one by the unlocks. park is always 0, so the compare cannot fail.
         * @step cond.drive.requeue */
        fxi_futex_requeue_raw(&c->park, 0, 0, word, INT32_MAX);
    } else {
        /* Unknown mutexes, or an fx_rmutex (whose waiters must sleep bounded):
         * wake one, which takes its own mutex and drives on. */
        FXI_FAULT("cond.drive.before_wake");
        /* @step cond.drive.wake */
        fxi_futex_wake_raw(&c->park, 1, FXI_BITSET_ANY);
    }
}

/* W4: sleeps until released. 0 (released) or ETIMEDOUT. mutex_word: the
 * word a broadcast may move us onto (ops->word), or NULL. */
FXI_CANCEL_FRAME static int cond_sleep(fx_cond *c, int32_t v, const struct timespec *deadline,
                                      const int32_t *mutex_word)
{
    struct fxi_recheck rc FXI_RECHECK_CALL = FXI_RECHECK_INIT_SCOPED(FXI_RECHECK_NS);
    /* We may be moved onto park or the mutex word without waking: the
     * recheck can be dropped only if those are private too. */
    rc.also[0] = &c->park;
    rc.also[1] = mutex_word;
    for (;;) {
        /* A bounded sleep: on seq, or on park or the mutex word once a
         * broadcast moved us (the kernel keeps our timeout); a cancellation
         * point. @step cond.wait_core.sleep */
        int w = fxi_futex_sleep_cancel(&c->seq, v, deadline, &rc);
        /* @step cond.wait_core.woken */
        if (w == 0 && rc.woken)
            return 0; /* a wake: signal (S3), broadcast (B3) or a mutex unlock */
        /* Relaxed: reads seq after the kernel's compare, in coherence
         * order (and the W5 load after it again); the data comes with the
         * mutex in W6 (see the top). @step cond.wait_core.reload */
        int32_t s = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);
        /* @step cond.wait_core.advanced */
        if (!cond_same_counter(s, v))
            return 0; /* the counter advanced after W1: released */
        /* @step cond.wait_core.timed_out */
        if (w == ETIMEDOUT)
            return ETIMEDOUT;
        /* A signal (absorbed), a recheck with nothing published, a spurious
         * wake, or EAGAIN because only b changed (see above): sleep again, on
         * the current value, with the same absolute deadline.
         * @step cond.wait_core.again */
        v = s;
    }
}

/* What the cleanup handler of a waiter cancelled in W4 needs. */
struct fx_cond_cancel {
    fx_cond *c;
    void *m;
    const struct fx_cond_lock_ops *ops;
    int32_t token;
    int32_t saved;
    int32_t v; /* the value W1 armed: its counter is the waiter's */
};

/* C: a waiter cancelled in W4 finishes as a released one (W5..W8), so that
 * the caller's cleanup handlers run with the mutex held (POSIX), a driver's
 * duty (W7) is done, and the count is left. A signal whose wake picked this
 * thread just before the cancellation acted must not be lost to the other
 * waiters (POSIX: a cancelled waiter consumes no signal): if the counter
 * moved since W1, one sleeper is woken (a spurious wake-up at worst). W6 is
 * not a cancellation point (glibc runs handlers with cancellation disabled
 * anyway). An fx_rmutex whose owner died comes back held and INCONSISTENT:
 * the error cannot be returned from here, the state shows it. */
static void cond_cancelled(void *arg)
{
    struct fx_cond_cancel *cc = arg;
    /* Relaxed: as W5. */
    int32_t s = __atomic_load_n(&cc->c->seq, __ATOMIC_RELAXED);
    bool flagged = (s & BCAST) != 0;
    int r = flagged ? cc->ops->relock_slept(cc->m, cc->saved) : cc->ops->relock(cc->m, cc->saved);
    if (flagged)
        cond_drive(cc->c, cc->m, cc->ops, cc->token, r == 0 || r == EOWNERDEAD);
    if (!cond_same_counter(s, cc->v))
        fxi_futex_wake_raw(&cc->c->seq, 1, FXI_BITSET_ANY);
    cond_depart(cc->c);
}

/* W0..W8 for any mutex type. c, m and the deadline have been validated. */
FXI_CANCEL_FRAME static int cond_wait_core(fx_cond *c, void *m,
                                          const struct fx_cond_lock_ops *ops,
                                          const struct timespec *deadline)
{
    /* A cancellation point, as pthread_cond_wait: a pending cancellation
     * acts here, with the mutex held, or in W4. */
    pthread_testcancel();
    /* Relaxed: plausibility checks of slots the library writes (EINVAL). */
    int32_t n0 = __atomic_load_n(&c->waiters, __ATOMIC_RELAXED);
    if (n0 < 0 || n0 == INT32_MAX ||
        __atomic_load_n(&c->park, __ATOMIC_RELAXED) != 0 ||
        !cond_token_valid(__atomic_load_n(&c->mutex, __ATOMIC_RELAXED)))
        return EINVAL;
    /* @step cond.wait_core.W0 */
    int r = ops->check(m);
    if (r)
        return r;
    int32_t token = ops->token(c, m);

    /* W1; ordered before any notifier by W3's release (see the top).
     * Seq_cst: with cond_bind's load of the mutex slot, one half of the
     * store-buffering test of W2 (see cond_bind). A count the increment
     * would wrap is refused, nothing changed (internal/waiters.h).
     * @step cond.wait_core.W1 */
    int32_t n = fxi_waiters_enter(&c->waiters, __ATOMIC_SEQ_CST);
    if (n < 0)
        return EINVAL;
    bool first = n == 0;
    /* W2's arm, release (see the top): it carries W1 to W8's clearing of b;
     * the mutex orders it before any notifier. @step cond.wait_core.W2 */
    int32_t v = __atomic_fetch_or(&c->seq, ARMED, __ATOMIC_RELEASE) | ARMED;
    cond_bind(c, token, first); /* W2 */

    int32_t saved = 0;
    /* @step cond.wait_core.W3 */
    r = ops->release(m, &saved);
    if (r) {
        /* The mutex was not held after all (EPERM) or is corrupt (EINVAL):
         * we did not wait. Our a at most costs a signal one advance. */
        cond_depart(c);
        return r;
    }

    /* W4a: before sleeping, spin (adaptive, per thread) watching the counter.
     * Released meanwhile is the kernel's EAGAIN of W4 without the system
     * call, and means the notifier runs on another CPU right now.
     * @step cond.wait_core.W4a */
    bool hot = false;
    int budget = fxi_spin_start(&cond_spin, FXI_COND_PROBE);
    for (int i = 0; i < budget && !hot; i++) {
        /* Relaxed: only a poll, as the re-check after W4. */
        hot = !cond_same_counter(__atomic_load_n(&c->seq, __ATOMIC_RELAXED), v);
        fxi_cpu_relax();
    }
    if (hot)
        fxi_spin_won(&cond_spin, FXI_COND_SPIN);
    else
        fxi_spin_lost(&cond_spin, 0);

    int res = 0;
    /* @step cond.wait_core.W4 */
    if (!hot) {
        /* W4 is a cancellation point: the cleanup handler finishes the wait
         * (W5..W8) before the caller's handlers run. */
        struct fx_cond_cancel cc = {c, m, ops, token, saved, v};
        pthread_cleanup_push(cond_cancelled, &cc);
        res = cond_sleep(c, v, deadline, ops->word(m));
        pthread_cleanup_pop(0);
    }

    /* W5, relaxed: after the wake, which the futex orders after the B2 that
     * moved us (or after our own look at B2's advance), so b is seen by
     * coherence; it cannot be cleared while we are counted.
     * @step cond.wait_core.W5 */
    bool flagged = (__atomic_load_n(&c->seq, __ATOMIC_RELAXED) & BCAST) != 0;
    /* @step cond.wait_core.W6 */
    r = flagged ? ops->relock_slept(m, saved)
        : hot   ? ops->relock_hot(m, saved)
                : ops->relock(m, saved); /* W6 */
    /* @step cond.wait_core.W7 */
    if (flagged)
        cond_drive(c, m, ops, token, r == 0 || r == EOWNERDEAD); /* W7 */
    /* @step cond.wait_core.W8 */
    cond_depart(c);
    /* EOWNERDEAD and the errors of W6 before ETIMEDOUT: the caller must know
     * it has to repair the data, or that it does not hold the mutex.
     * @step cond.wait_core.ret */
    return r ? r : res;
}

static int cond_check_args(fx_cond *c, void *m, size_t size)
{
    if (fxi_bad_slot(c) || fxi_bad_slot(m) || cond_overlaps(c, m, size))
        return EINVAL;
    if (fxi_ann_on())
        fxi_ann_own_words(c, sizeof *c);
    return 0;
}

FXI_CANCEL_FRAME int fx_cond_wait(fx_cond *c, fx_mutex *m)
{
    int r = cond_check_args(c, m, sizeof *m);
    return r ? r : cond_wait_core(c, m, &cond_mutex_ops, NULL);
}

FXI_CANCEL_FRAME int fx_cond_timedwait(fx_cond *c, fx_mutex *m, const struct timespec *deadline)
{
    int r = cond_check_args(c, m, sizeof *m);
    if (r)
        return r;
    /* A wait always blocks, so tv_nsec is checked up front. */
    if (fxi_deadline_check(deadline))
        return EINVAL;
    return cond_wait_core(c, m, &cond_mutex_ops, deadline);
}

FXI_CANCEL_FRAME int fx_cond_wait_rmutex(fx_cond *c, fx_rmutex *m)
{
    int r = cond_check_args(c, m, sizeof *m);
    return r ? r : cond_wait_core(c, m, &cond_rmutex_ops, NULL);
}

FXI_CANCEL_FRAME int fx_cond_timedwait_rmutex(fx_cond *c, fx_rmutex *m, const struct timespec *deadline)
{
    int r = cond_check_args(c, m, sizeof *m);
    if (r)
        return r;
    if (fxi_deadline_check(deadline))
        return EINVAL;
    return cond_wait_core(c, m, &cond_rmutex_ops, deadline);
}

/* S2 and S3 of fx_cond_signal, when a waiter is registered: out of line, so
 * that a signal with nobody waiting is a few instructions with no frame. */
__attribute__((noinline)) static int cond_signal_waiters(fx_cond *c)
{
    /* Only a call that writes the words marks them for Helgrind and DRD
     * (fxi_ann_own_words): a waiter marked them before it wrote any, so
     * the reads of S1 race with nothing they would report. */
    if (fxi_ann_on())
        fxi_ann_own_words(c, sizeof *c);
    /* S2, relaxed (see the top): advance only over an armed value, which
     * the mutex makes visible here by coherence (a waiter's W2 precedes its
     * W3); the advance reaches the waiter through the futex, the data
     * through the mutex. A CAS failure reloads s. @step cond.signal.advance */
    int32_t s = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);
    while ((s & ARMED) &&
           !__atomic_compare_exchange_n(&c->seq, &s, cond_advance(s), false,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    FXI_FAULT("cond.signal.before_wake");
    /* @step cond.signal.S3 */
    fxi_futex_wake_raw(&c->seq, 1, FXI_BITSET_ANY);
    return 0;
}

int fx_cond_signal(fx_cond *c)
{
    if (fxi_bad_slot(c))
        return EINVAL;
    /* S1, relaxed: sees W1 of every waiter whose W3 preceded the caller's
     * taking of the mutex, by coherence (see the top of the file).
     * @step cond.signal.waiters */
    int32_t n = __atomic_load_n(&c->waiters, __ATOMIC_RELAXED);
    if (n <= 0)
        return n == 0 ? 0 : EINVAL;
    return cond_signal_waiters(c);
}

int fx_cond_broadcast(fx_cond *c)
{
    if (fxi_bad_slot(c))
        return EINVAL;
    if (fxi_ann_on()) /* one look at the race-detector probe */
        fxi_ann_own_words(c, sizeof *c);
    /* Relaxed: plausibility check of a slot that must stay 0. */
    if (__atomic_load_n(&c->park, __ATOMIC_RELAXED) != 0)
        return EINVAL;
    bool advanced = false;
    for (;;) {
        /* B1, relaxed as S1. @step cond.broadcast.waiters */
        int32_t n = __atomic_load_n(&c->waiters, __ATOMIC_RELAXED);
        if (n <= 0)
            return n == 0 ? 0 : EINVAL;
        /* B2, relaxed as S2: b before the requeue (see the table), which
         * the futex orders before every moved waiter's W5. Only the
         * first pass advances the counter, which releases every waiter that
         * registered before the call; a retry must not advance again, or a
         * waiter that keeps re-registering could make it advance forever.
         * @step cond.broadcast.advance */
        int32_t s = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);
        int32_t ns;
        do {
            ns = (!advanced && (s & ARMED)) ? cond_advance(s) | BCAST : s | BCAST;
        } while (ns != s && !__atomic_compare_exchange_n(&c->seq, &s, ns, false,
                                                         __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        advanced = true;
        FXI_FAULT("cond.broadcast.before_wake");
        /* B3: fails only if seq changed since B2: a new waiter armed it (at
         * most once per counter value), another signal or broadcast advanced
         * it, or W8 cleared b. The sleepers from before the call are then
         * still on seq: set b on the current value and requeue again. A new
         * waiter moved along was waiting during this call (policy (a)).
         * @step cond.broadcast.requeue */
        if (fxi_futex_requeue_raw(&c->seq, ns, 1, &c->park, INT32_MAX) != -EAGAIN)
            return 0;
    }
}
