/*
 * src/mutex.c - the 4-byte futex mutex.
 *
 * State of the word (the design; keep it true)
 *
 *   value  name        meaning
 *   0      UNLOCKED    free
 *   1      LOCKED      held; nobody sleeps in the kernel
 *   2      CONTENDED   held; threads may sleep in the kernel
 *   other  -           never written by the library: every operation -> EINVAL
 *
 *   transition               by                      system call
 *   0 -> 1                   lock fast path, spinner none
 *   0 -> 2                   sleeper acquiring        none
 *   1 -> 2                   thread about to sleep    then FUTEX_WAIT(2)
 *   1 -> 0                   unlock                   none
 *   2 -> 0                   unlock                   FUTEX_WAKE(1)
 *
 *   (none: a re-read, then   sleeper, at its recheck  its FUTEX_WAIT ends
 *    0 -> 2 or 1 -> 2)       every FXI_RECHECK_NS      at the recheck time
 *
 * Invariant (checked by models/mutex.pml): while a thread sleeps (or is about
 * to sleep) in the kernel on the word, the word is CONTENDED, or some thread is
 * responsible for the sleepers: an unlocker about to wake one, or a woken
 * thread that has not yet taken its next step, or a recheck is due within
 * FXI_RECHECK_NS. A thread that has slept acquires with CONTENDED, not
 * LOCKED, because it cannot know whether it was the last sleeper.
 *
 * Why waking one is enough, a death in the wake window, the spin and the
 * poll: docs/design/mutex.md.
 */
#include "futexsync/mutex.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "futexsync/layout.h"
#include "internal/annotate.h"
#include "internal/deadline.h"
#include "internal/fault.h"
#include "internal/futex.h"
#include "internal/sleep.h"
#include "internal/mutex.h"
#include "internal/spin.h"
#include "internal/stats.h"

/* @step mutex.states */
enum {
    UNLOCKED = FX_MUTEX_UNLOCKED, /* free */
    LOCKED = FX_MUTEX_LOCKED,     /* held, no sleeper */
    CONTENDED = FX_MUTEX_CONTENDED, /* held, sleepers may exist */
};

/* The longest spin, in nanoseconds (src/internal/spin.h: a time, not a
 * count of pauses). */
#ifndef FXI_MUTEX_SPIN_NS
#define FXI_MUTEX_SPIN_NS 4000
#endif

static inline bool mutex_valid(int32_t v)
{
    return (uint32_t)v <= CONTENDED;
}

int fx_mutex_init(fx_mutex *m)
{
    if (fxi_bad_slot(m))
        return EINVAL;
    /* Relaxed: init happens before any sharing, like a memset. */
    __atomic_store_n(&m->state, UNLOCKED, __ATOMIC_RELAXED);
    return 0;
}

/* Spins while the lock is LOCKED; returns the last value seen. `timed`:
 * times the load that sees the release (src/internal/spin.h). */
static int32_t mutex_spin(fx_mutex *m, bool timed)
{
    int32_t v = 0;
    int n = fxi_spin_iterations(FXI_MUTEX_SPIN_NS);
    for (int i = 0; i < n; i++) {
        uint64_t t0 = timed ? fxi_ticks() : 0;
        /* Relaxed: only a hint for when to try the CAS, which synchronizes.
         * @step mutex.spin.load */
        v = __atomic_load_n(&m->state, __ATOMIC_RELAXED);
        /* @step mutex.spin.not_locked */
        if (v != LOCKED) {
            if (timed)
                fxi_handoff_seen(t0); /* the line came from the releaser's CPU */
            break;
        }
        /* @step mutex.spin.pause */
        fxi_cpu_relax();
        FXI_STAT_SPIN(&m->state);
    }
    return v;
}

/* Polls while the lock is LOCKED, for a waiter whose handoffs are far
 * (src/internal/spin.h): looks at the word between short sleeps on a word of
 * its own; returns the last value seen. It never sleeps on m, so no unlock
 * wakes it and it spends no wake meant for a sleeper; it leaves the word
 * LOCKED, so the holder's unlock makes no system call. */
static int32_t mutex_poll(fx_mutex *m, const struct timespec *deadline)
{
    for (int k = 0;; k++) {
        /* Relaxed: only a hint for when to try the CAS, which synchronizes.
         * @step mutex.poll.load */
        int32_t v = __atomic_load_n(&m->state, __ATOMIC_RELAXED);
        /* @step mutex.poll.not_locked */
        if (v != LOCKED || !fxi_poll_wait(k, deadline))
            return v;
    }
}

int fxi_mutex_acquire_step(fx_mutex *m, int32_t *sleep_on)
{
    /* Relaxed: only a guess for the first CAS, which synchronizes.
     * @step mutex.acquire_step.load */
    int32_t v = __atomic_load_n(&m->state, __ATOMIC_RELAXED);
    for (;;) {
        /* @step mutex.acquire_step.valid */
        if (!mutex_valid(v))
            return EINVAL;
        if (v == UNLOCKED) {
            /* Acquire as CONTENDED: sleepers we cannot see may remain, and our
             * unlock must wake one. Acquire order: the critical section sees
             * what the last holder wrote. On failure v is reloaded.
             * @step mutex.acquire_step.take */
            if (__atomic_compare_exchange_n(&m->state, &v, CONTENDED, false, __ATOMIC_ACQUIRE,
                                            __ATOMIC_RELAXED))
                return 0; /* @step mutex.acquire_step.taken */
        } else if (v == LOCKED) {
            /* Relaxed: marking the word only makes the holder's unlock wake
             * us; no data is published by it. On failure v is reloaded.
             * @step mutex.acquire_step.mark */
            if (__atomic_compare_exchange_n(&m->state, &v, CONTENDED, false, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) { /* @step mutex.acquire_step.marked */
                *sleep_on = CONTENDED;
                return EBUSY;
            }
        /* @step mutex.acquire_step.contended */
        } else {
            *sleep_on = CONTENDED;
            return EBUSY;
        }
    }
}

int fxi_mutex_check_held(const fx_mutex *m)
{
    /* Relaxed: a plausibility check only; the caller's unlock gives the
     * authoritative answer. */
    int32_t v = __atomic_load_n(&m->state, __ATOMIC_RELAXED);
    if (!mutex_valid(v))
        return EINVAL;
    return v == UNLOCKED ? EPERM : 0;
}

void fxi_mutex_abandon_wait(fx_mutex *m)
{
    /* The wake we may have consumed was meant to make someone take the lock
     * or re-mark it CONTENDED; hand it to the next sleeper instead. A wake
     * nobody needed costs one system call and nothing else. */
    fxi_futex_wake_raw(&m->state, 1, FXI_BITSET_ANY);
}

/* The sleeping half of the slow path: fxi_mutex_acquire_step until it takes
 * the lock, sleeping on the word in between. */
int fxi_mutex_lock_slept(fx_mutex *m, const struct timespec *deadline)
{
    bool checked = false;
    struct fxi_recheck rc FXI_RECHECK_CALL = FXI_RECHECK_INIT_SCOPED(FXI_RECHECK_NS);
    for (;;) {
        int32_t sleep_on;
        /* @step mutex.lock_slept.step */
        int r = fxi_mutex_acquire_step(m, &sleep_on);
        /* @step mutex.lock_slept.done */
        if (r != EBUSY)
            return r;
        if (!checked) {
            /* tv_nsec is checked only now that we would block (POSIX). */
            if (fxi_deadline_check(deadline))
                return EINVAL;
            checked = true;
        }
        /* A bounded sleep (src/internal/sleep.h): a wake consumed by a
         * process that died before returning to user space is made up for at
         * the next recheck, when the step finds the word UNLOCKED.
         * @step mutex.lock_slept.sleep */
        r = fxi_futex_sleep(&m->state, sleep_on, deadline, &rc);
        /* @step mutex.lock_slept.timed_out */
        if (r == ETIMEDOUT)
            return ETIMEDOUT; /* not woken, and the word stays CONTENDED */
        /* Woken, EAGAIN, EINTR or a recheck: step again with the same
         * absolute deadline. */
    }
}

/* The slow path of lock and timedlock: 0, ETIMEDOUT or EINVAL. */
__attribute__((noinline, cold)) static int mutex_lock_contended(fx_mutex *m,
                                                                const struct timespec *deadline)
{
    FXI_STAT_CONTENDED(&m->state);
    const int mode = fxi_handoff_mode();
    int32_t v = mode == FXI_HANDOFF_POLL ? mutex_poll(m, deadline)
                                         : mutex_spin(m, mode == FXI_HANDOFF_TIMED);

    /* Before sleeping, one try as an ordinary locker: a free lock seen right
     * after spinning or polling is taken as LOCKED, since we never slept.
     * Acquire: the critical section must see what the previous holder
     * wrote. @step mutex.lock_contended.cas */
    if (v == UNLOCKED &&
        __atomic_compare_exchange_n(&m->state, &v, LOCKED, false, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED))
        return 0; /* @step mutex.lock_contended.taken */
    /* @step mutex.lock_contended.slept */
    return fxi_mutex_lock_slept(m, deadline);
}

/* lock and timedlock: the fast path, then the slow one. */
static inline __attribute__((always_inline)) int
mutex_acquire(fx_mutex *m, const struct timespec *deadline)
{
    int32_t v = UNLOCKED;
    /* Fast path, acquire on success: pairs with the release of unlock.
     * @step mutex.acquire.fast */
    return __atomic_compare_exchange_n(&m->state, &v, LOCKED, false, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED)
               ? 0
               : mutex_lock_contended(m, deadline);
}

/* mutex_acquire under a race detector; `ann` is its view (a timed lock
 * is a try: it may fail). */
__attribute__((noinline, cold)) static int
mutex_acquire_announced(fx_mutex *m, const struct timespec *deadline, unsigned ann)
{
    fxi_ann_pre_lock(m, ann);
    int r = mutex_acquire(m, deadline);
    fxi_ann_post_lock(m, r ? ann | FXI_ANN_FAILED : ann, 0);
    return r;
}

int fx_mutex_lock(fx_mutex *m)
{
    if (fxi_bad_slot(m))
        return EINVAL;
    if (fxi_ann_on()) /* one look at the race-detector probe */
        return mutex_acquire_announced(m, NULL, FXI_ANN_EXCLUSIVE);
    return mutex_acquire(m, NULL);
}

int fx_mutex_timedlock(fx_mutex *m, const struct timespec *deadline)
{
    if (fxi_bad_slot(m))
        return EINVAL;
    if (fxi_ann_on()) /* one look at the race-detector probe */
        return mutex_acquire_announced(m, deadline, FXI_ANN_TRY);
    return mutex_acquire(m, deadline);
}

static inline __attribute__((always_inline)) int mutex_try(fx_mutex *m)
{
    int32_t v = UNLOCKED;
    /* Acquire on success; a failed CAS reports the value it saw (relaxed: it
     * only chooses the error). @step mutex.trylock.cas */
    if (!__atomic_compare_exchange_n(&m->state, &v, LOCKED, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return mutex_valid(v) ? EBUSY : EINVAL; /* @step mutex.trylock.busy */
    return 0;
}

/* mutex_try under a race detector. */
__attribute__((noinline, cold)) static int mutex_try_announced(fx_mutex *m)
{
    fxi_ann_pre_lock(m, FXI_ANN_TRY);
    int r = mutex_try(m);
    fxi_ann_post_lock(m, r ? FXI_ANN_TRY | FXI_ANN_FAILED : FXI_ANN_TRY, 0);
    return r;
}

int fx_mutex_trylock(fx_mutex *m)
{
    if (fxi_bad_slot(m))
        return EINVAL;
    if (fxi_ann_on()) /* one look at the race-detector probe */
        return mutex_try_announced(m);
    return mutex_try(m);
}

/* The slow path of unlock: v is the value the fast CAS found instead of
 * LOCKED. Returns 0, EPERM or EINVAL. */
__attribute__((noinline, cold)) static int mutex_unlock_slow(fx_mutex *m, int32_t v)
{
    for (;;) {
        /* @step mutex.unlock_slow.check */
        if (v == UNLOCKED)
            return EPERM; /* not locked, or another thread unlocked it first */
        if (!mutex_valid(v))
            return EINVAL;
        /* Release, as in the fast path. On failure v is reloaded.
         * @step mutex.unlock_slow.cas */
        if (__atomic_compare_exchange_n(&m->state, &v, UNLOCKED, false, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED)) {
            /* @step mutex.unlock_slow.wake */
            if (v == CONTENDED) {
                FXI_FAULT("mutex.unlock.before_wake");
                fxi_futex_wake_raw(&m->state, 1, FXI_BITSET_ANY);
            }
            return 0;
        }
    }
}

static inline __attribute__((always_inline)) int mutex_release(fx_mutex *m)
{
    /* @step mutex.unlock.fast */
    int32_t v = LOCKED;
    /* Release: everything the critical section wrote happens-before the next
     * holder's acquire. A CAS (not an exchange) leaves a value the library
     * never wrote untouched, so it can be reported. @step mutex.unlock.cas */
    return __atomic_compare_exchange_n(&m->state, &v, UNLOCKED, false, __ATOMIC_RELEASE,
                                       __ATOMIC_RELAXED)
               ? 0
               : mutex_unlock_slow(m, v);
}

/* mutex_release under a race detector. */
__attribute__((noinline, cold)) static int mutex_release_announced(fx_mutex *m)
{
    /* A race detector must hear of the release before it happens, and only
     * of a real one: sort out EPERM and EINVAL first. Relaxed: a first look
     * only; the CAS of mutex_release is what synchronizes.
     * @step mutex.unlock.annotate */
    int32_t seen = __atomic_load_n(&m->state, __ATOMIC_RELAXED);
    if (seen == UNLOCKED)
        return EPERM;
    if (!mutex_valid(seen))
        return EINVAL;
    fxi_ann_pre_unlock(m, FXI_ANN_EXCLUSIVE);
    int r = mutex_release(m);
    fxi_ann_post_unlock(m, FXI_ANN_EXCLUSIVE);
    return r;
}

int fx_mutex_unlock(fx_mutex *m)
{
    if (fxi_bad_slot(m))
        return EINVAL;
    if (fxi_ann_on()) /* one look at the race-detector probe */
        return mutex_release_announced(m);
    return mutex_release(m);
}
