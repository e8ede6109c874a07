/*
 * src/rmutex.c - the re-entrant, owner-tracked mutex with owner-death recovery.
 *
 * The owner word (the design; keep it true). T is a TID in 1..TID_MAX
 * (PID_MAX_LIMIT - 1 = 2^22 - 1), S the calling thread's TID, W bit 31.
 *
 *   value        name       meaning
 *   0            FREE       free
 *   T            HELD       owned by T; nobody sleeps in the kernel
 *   T|W          HELD+W     owned by T; threads may sleep on the word
 *   0x40000000   ORPHANED   free; the owner died and fx_rmutex_recover released
 *                           it: the next acquirer gets EOWNERDEAD
 *   0x20000000   NOTREC     not recoverable: every acquire -> ENOTRECOVERABLE
 *   other        -          never written -> EINVAL from every operation
 *
 * The depth slot is read and written only by the owner: count (1..DEPTH_MAX)
 * | INC (bit 30, "inconsistent": acquired with EOWNERDEAD, not yet
 * consistent()). While the word is not HELD the slot means nothing (a former
 * owner's last depth, 1 after a plain unlock, 0 after zero-fill): every
 * acquisition overwrites it. An owner that finds another value in it
 * (no count, or an unknown bit) gets EINVAL from re-entry, unlock, consistent.
 *
 *   transition            by                               system call
 *   0 -> S                lock fast path / non-sleeper      none
 *   0 -> S|W              a thread that has slept           none
 *   T -> T|W              a thread about to sleep           then FUTEX_WAIT(T|W)
 *   S -> 0                final unlock                      none
 *   S|W -> 0              final unlock                      FUTEX_WAKE(1)
 *   S(|W) -> NOTREC       final unlock while INC            FUTEX_WAKE(all), always
 *   T(|W) -> S(|W)        an acquirer that found T dead     none (W kept: the
 *                         (CAS from that exact value)       sleepers now wait for S)
 *   T(|W) -> ORPHANED     fx_rmutex_recover(T)              FUTEX_WAKE(1) if W
 *   ORPHANED -> S(|W)     next acquirer: EOWNERDEAD         none
 *   depth := 1            acquisition of FREE (after the CAS)
 *   depth := 1|INC        acquisition with EOWNERDEAD (after the CAS)
 *   depth d -> d+1        re-entry by the owner (EAGAIN at DEPTH_MAX)
 *   depth d -> d-1        unlock at depth > 1
 *   depth d|INC -> d      fx_rmutex_consistent
 *
 * Fast paths (no system call, two locked instructions per lock/unlock pair):
 * lock is a CAS 0 -> S then the depth store; unlock reads the depth and, if
 * it is 1, CASes S -> 0 (release), which both proves ownership and releases;
 * re-entry is recognised by a thread-local hint (the last rmutex this thread
 * acquired) and a plain load of the word, then the depth store, with no
 * locked instruction; anything else (W set, errors, a re-entry the hint
 * missed: the lock CAS then fails on S) takes the checked slow paths.
 *
 * Sleepers (the mutex.c / "Futexes Are Tricky" mutex3 argument, with W as
 * CONTENDED): a thread sleeps only on a value with W set, which it set itself
 * or saw. Invariant: while threads sleep, W is set in the word, or a woken
 * thread is on its way back and is responsible for them: it will acquire with
 * W kept (it has slept) or re-mark W before it sleeps or times out. So: an
 * unlock of a W value wakes one; recover of a W value wakes one (it takes
 * ORPHANED with W kept, or finds a barger's value and re-marks W); the
 * recovery by a waiter keeps W in the word (the remaining sleepers now wait for
 * the new owner's unlock); and NOTREC wakes everyone even without W, because a
 * responsible woken thread leaves with ENOTRECOVERABLE without passing the
 * responsibility on. A woken thread always steps again before it may sleep, so
 * a thread woken by recover takes ORPHANED and never goes back to sleep on it.
 * W may stay set with nobody asleep (a timed waiter left): that costs one
 * needless FUTEX_WAKE, nothing more. models/rmutex.pml checks all of this,
 * with the re-check timers disabled unless the owner is dead.
 *
 * Owner death. Nothing tells the word that T died, so acquirers look:
 *   - a sleeper's every sleep is bounded: FIRST_CHECK after it first saw T
 *     holding the mutex, then RECHECK after each check that found T alive; at
 *     the end of such a sleep it reads /proc/T/stat (fx_tid_dead). A blocked
 *     waiter therefore notices a death within RECHECK (plus scheduling), an
 *     arriving one within FIRST_CHECK. The check costs ~5 us, so waits shorter
 *     than FIRST_CHECK never pay for it;
 *   - a non-waiting attempt (trylock, timedlock whose deadline has passed)
 *     checks at once, except when the same thread checked the same (mutex,
 *     owner) and found it alive less than RECHECK ago (a thread-local memo).
 * The acquirer that finds T dead takes the word with a CAS from the exact value
 * it saw (T or T|W): of several detectors, and of a detector racing with
 * fx_rmutex_recover, exactly one wins; the others see the new value. The winner
 * sets depth = 1|INC and returns EOWNERDEAD.
 *
 * Spin policy (as src/mutex.c): a thread that finds the mutex held spins at
 * most FX_RMUTEX_SPIN pause iterations while it is HELD without W, then
 * sleeps. The liveness check is never on a fast path: uncontended lock, unlock,
 * re-entry, trylock and consistent make no system call at all.
 *
 * Memory orders: acquiring CASes are acquire (the critical section sees the
 * previous owner's writes), releasing CASes are release (the critical
 * section's writes happen-before the next acquire). The depth slot
 * is the owner's private data, passed between owners by that release/acquire
 * pair, so its accesses are relaxed atomics. A dead owner released nothing: the
 * data it left is as it left it, which is what the EOWNERDEAD repair handles.
 *
 * Race detectors: only the outermost acquisition and the final release are
 * announced (fx_ann_*, FX_ANN_RECURSIVE); re-entry and inner unlocks are not.
 * Under ThreadSanitizer a thread that exits holding an rmutex announces the
 * release at its exit (a thread-specific-data destructor), so that the
 * EOWNERDEAD acquisition is not reported as a double lock.
 */
#include "futexsync/rmutex.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "internal/annotate.h"
#include "internal/deadline.h"
#include "internal/futex.h"
#include "internal/rmutex.h"
#include "internal/spin.h"
#include "internal/tid.h"

/* Builds that announce locks to a race detector: every unlock is checked
 * before it releases (the announcement must precede the release). */
#if defined(FX_TSAN) || defined(FUTEXSYNC_HELGRIND)
#define FX_RM_ANNOTATED 1
#else
#define FX_RM_ANNOTATED 0
#endif

/* The owner word, as uint32_t (bit operations on the sign bit). */
#define WAITERS  0x80000000u
#define TID_MAX  ((uint32_t)FX_RMUTEX_TID_MAX)
#define ORPHANED ((uint32_t)FX_RMUTEX_ORPHANED)
#define NOTREC   ((uint32_t)FX_RMUTEX_NOTRECOVERABLE)

/* The depth slot. */
#define DEPTH_MASK ((int32_t)FX_RMUTEX_DEPTH_MASK)
#define DEPTH_MAX  ((int32_t)FX_RMUTEX_DEPTH_MAX)
#define INC        ((int32_t)FX_RMUTEX_INCONSISTENT)

#define FIRST_CHECK_NS ((int64_t)FX_RMUTEX_FIRST_CHECK_MS * 1000000)
#define RECHECK_NS     ((int64_t)FX_RMUTEX_RECHECK_MS * 1000000)

#ifndef FX_RMUTEX_SPIN
#define FX_RMUTEX_SPIN 100
#endif

/* The owner TID of a HELD or HELD+W value, 0 for any other value. */
static inline uint32_t fx_rm_held_tid(uint32_t v)
{
    uint32_t t = v & ~WAITERS;
    return t - 1u < TID_MAX ? t : 0;
}

static inline bool fx_rm_valid(uint32_t v)
{
    return v == 0 || v == ORPHANED || v == NOTREC || fx_rm_held_tid(v) != 0;
}

/* A depth slot the owner may hold: count 1..DEPTH_MAX, INC the only flag. */
static inline bool fx_rm_depth_ok(int32_t d)
{
    return (d & ~(DEPTH_MASK | INC)) == 0 && (d & DEPTH_MASK) != 0;
}

static inline uint32_t *fx_rm_word(fx_rmutex *m)
{
    return (uint32_t *)&m->owner;
}

static int64_t fx_rm_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static struct timespec fx_rm_timespec(int64_t ns)
{
    struct timespec t = {.tv_sec = (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000)};
    return t;
}

/* Race-detector bookkeeping ------------------------------------------------ */

#if defined(FX_TSAN)
#include <pthread.h>

/* The rmutexes this thread holds (outermost acquisitions), so that its exit
 * can announce their release: TSan cannot see the death, and would otherwise
 * report the EOWNERDEAD acquisition as a double lock. More than
 * FX_RM_TSAN_HELD at once are not tracked. */
#define FX_RM_TSAN_HELD 16
static _Thread_local fx_rmutex *fx_rm_held[FX_RM_TSAN_HELD];
static pthread_key_t fx_rm_held_key;
static pthread_once_t fx_rm_held_once = PTHREAD_ONCE_INIT;

static void fx_rm_held_exit(void *unused)
{
    (void)unused;
    for (int i = 0; i < FX_RM_TSAN_HELD; i++) {
        if (fx_rm_held[i] != NULL) {
            __tsan_mutex_pre_unlock(fx_rm_held[i], 0);
            __tsan_mutex_post_unlock(fx_rm_held[i], 0);
            fx_rm_held[i] = NULL;
        }
    }
}

static void fx_rm_held_init(void)
{
    pthread_key_create(&fx_rm_held_key, fx_rm_held_exit);
}

static void fx_rm_held_add(fx_rmutex *m)
{
    pthread_once(&fx_rm_held_once, fx_rm_held_init);
    pthread_setspecific(fx_rm_held_key, (void *)1); /* non-NULL: run the destructor */
    for (int i = 0; i < FX_RM_TSAN_HELD; i++) {
        if (fx_rm_held[i] == NULL) {
            fx_rm_held[i] = m;
            return;
        }
    }
}

static void fx_rm_held_del(fx_rmutex *m)
{
    for (int i = 0; i < FX_RM_TSAN_HELD; i++) {
        if (fx_rm_held[i] == m) {
            fx_rm_held[i] = NULL;
            return;
        }
    }
}
#else
#define fx_rm_held_add(m) ((void)(m))
#define fx_rm_held_del(m) ((void)(m))
#endif

/* Ends an outermost acquisition attempt: announces it to race detectors and,
 * when the word was taken (0 or EOWNERDEAD), installs the depth (| INC after
 * EOWNERDEAD). The depth is written after the announcement so that a race
 * detector sees it inside the critical section. Relaxed: the depth slot is the
 * owner's; what a former owner (dead or not) left in it is meaningless and
 * overwritten; our release publishes it to the next owner. */
static inline __attribute__((always_inline)) int fx_rm_acquired(fx_rmutex *m, unsigned try_flag,
                                                                int r, int32_t depth)
{
    if (r == 0 || r == EOWNERDEAD) {
        fx_ann_post_lock(m, FX_ANN_RECURSIVE | try_flag, 0);
        fx_rm_held_add(m);
        /* @step rmutex.acquired.depth */
        __atomic_store_n(&m->depth, r == 0 ? depth : depth | INC, __ATOMIC_RELAXED);
    } else {
        fx_ann_post_lock(m, FX_ANN_RECURSIVE | FX_ANN_TRY | FX_ANN_FAILED, 0);
    }
    return r;
}

/* Release ------------------------------------------------------------------- */

/* Gives up ownership of the word (S or S|W) for `to` (FREE or NOTREC) and wakes
 * the sleepers that need it. Returns 0, or EPERM if the word no longer names the caller (someone called
 * fx_rmutex_recover on a live owner: nothing is released then). */
static int fx_rm_release(fx_rmutex *m, uint32_t self, uint32_t to)
{
    /* @step rmutex.release.cas */
    uint32_t v = self;
    /* Release: the critical section's writes happen-before the next owner's
     * acquiring CAS. On failure v is reloaded (relaxed: only
     * the W bit can have changed while we own the word). */
    while (!__atomic_compare_exchange_n(fx_rm_word(m), &v, to, false, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED)) {
        if ((v & ~WAITERS) != self)
            return EPERM;
    }
    /* @step rmutex.release.notrec */
    if (to == NOTREC) {
        /* Everyone must leave, whatever W says: a thread woken earlier (by an
         * unlock or a recover) that was responsible for the sleepers -- it
         * would have re-marked W or acquired with W -- now leaves with
         * ENOTRECOVERABLE instead, so W may be clear while threads sleep.
         * (Found by models/rmutex.pml.) Once per mutex: it costs nothing. */
        /* @step rmutex.release.wake_all */
        fx_futex_wake_raw(&m->owner, INT32_MAX, FX_BITSET_ANY);
    /* @step rmutex.release.waiters */
    } else if (v & WAITERS) {
        /* One sleeper acquires (keeping W), or re-marks W before sleeping
         * again, so the next release wakes the next one. */
        /* @step rmutex.release.wake */
        fx_futex_wake_raw(&m->owner, 1, FX_BITSET_ANY);
    }
    return 0;
}

/* Acquisition --------------------------------------------------------------- */

/* Re-entry by the owner. */
static int fx_rm_reenter(fx_rmutex *m)
{
    /* Relaxed: only the owner reads or writes the depth slot. */
    int32_t d = __atomic_load_n(&m->depth, __ATOMIC_RELAXED);
    if (!fx_rm_depth_ok(d))
        return EINVAL;
    if ((d & DEPTH_MASK) == DEPTH_MAX)
        return EAGAIN;
    __atomic_store_n(&m->depth, d + 1, __ATOMIC_RELAXED);
    return 0;
}

/* Thread-local memo of the last liveness check made by a non-waiting attempt,
 * so that a trylock loop on a live owner reads /proc at most once per RECHECK. */
static _Thread_local struct {
    const fx_rmutex *m;
    uint32_t tid;
    int64_t until;
} fx_rm_memo;

/* Whether the owner t of m is dead, for a non-waiting attempt. */
static bool fx_rm_dead_now(const fx_rmutex *m, uint32_t t)
{
    int64_t now = fx_rm_now();
    if (fx_rm_memo.m == m && fx_rm_memo.tid == t && now < fx_rm_memo.until)
        return false;
    if (fx_tid_dead((pid_t)t))
        return true;
    fx_rm_memo.m = m;
    fx_rm_memo.tid = t;
    fx_rm_memo.until = now + RECHECK_NS;
    return false;
}

/*
 * One acquisition step by `self`, which is not the owner (callers recognise a
 * re-entry first; only this thread puts its TID in the word, so the step never
 * finds it there later): takes FREE (0) or ORPHANED (EOWNERDEAD), recovers
 * from a dead owner (EOWNERDEAD), or marks W and reports EBUSY with the value
 * to sleep on. The caller installs the depth (fx_rm_acquired). `nowait`: a
 * non-waiting attempt (liveness checked at once, memo permitting, and W not
 * set); otherwise the waiter's schedule in w decides.
 */
static int fx_rm_step(fx_rmutex *m, uint32_t self, struct fx_rmutex_waiter *w, bool nowait,
                      uint32_t *sleep_on)
{
    /* Relaxed: a guess for the first CAS; every CAS below synchronizes. */
    /* @step rmutex.step.load */
    uint32_t v = __atomic_load_n(fx_rm_word(m), __ATOMIC_RELAXED);
    for (;;) {
        uint32_t keep = w->slept ? WAITERS : 0;
        /* @step rmutex.step.take */
        if (v == 0 || v == ORPHANED) {
            /* Acquire: see the previous owner's writes. A thread that has
             * slept keeps W: sleepers it cannot see may remain (mutex3). */
            if (__atomic_compare_exchange_n(fx_rm_word(m), &v, self | keep, false,
                                            __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
                return v == 0 ? 0 : EOWNERDEAD;
            continue; /* v reloaded */
        }
        /* @step rmutex.step.notrec */
        if (v == NOTREC)
            return ENOTRECOVERABLE;
        uint32_t t = fx_rm_held_tid(v);
        if (t == 0)
            return EINVAL;
        if (t == self)
            return EINVAL; /* unreachable but for a TID reused under us */

        /* Held by another thread t: is it dead? */
        bool dead = (uint32_t)w->dead == t;
        if (!dead) {
            /* @step rmutex.step.check_now */
            if (nowait) {
                dead = fx_rm_dead_now(m, t);
            } else {
                /* @step rmutex.step.now */
                int64_t now = fx_rm_now();
                /* @step rmutex.step.new_owner */
                if ((uint32_t)w->seen != t) {
                    w->seen = (int32_t)t;
                    w->check_at = now + FIRST_CHECK_NS;
                /* @step rmutex.step.check_due */
                } else if (now >= w->check_at) {
                    dead = fx_tid_dead((pid_t)t);
                    w->check_at = now + RECHECK_NS;
                }
            }
            if (dead)
                w->dead = (int32_t)t;
        }
        /* @step rmutex.step.take_over */
        if (dead) {
            /* CAS from the exact value seen: one detector (or recover) wins.
             * W is kept: the sleepers now wait for our release. Acquire, as
             * any acquisition. */
            if (__atomic_compare_exchange_n(fx_rm_word(m), &v, self | (v & WAITERS) | keep, false,
                                            __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
                return EOWNERDEAD;
            continue; /* v reloaded: W set, or someone else recovered or released */
        }
        /* @step rmutex.step.mark_waiters */
        if (nowait)
            return EBUSY;
        if (!(v & WAITERS)) {
            /* Relaxed: W only makes the owner's release wake a sleeper; it
             * publishes no data. On failure v is reloaded. */
            if (!__atomic_compare_exchange_n(fx_rm_word(m), &v, v | WAITERS, false,
                                             __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                continue;
            v |= WAITERS;
        }
        *sleep_on = v;
        /* @step rmutex.step.slept */
        w->slept = 1;
        return EBUSY;
    }
}

/* Sleeps on the word between steps until the mutex is taken, the caller's
 * deadline passes (then one last non-waiting attempt), or an error. */
static int fx_rm_wait(fx_rmutex *m, uint32_t self, struct fx_rmutex_waiter *w,
                      const struct timespec *deadline)
{
    bool checked = false;
    for (;;) {
        uint32_t sleep_on;
        int r = fx_rm_step(m, self, w, false, &sleep_on);
        if (r != EBUSY)
            return r;
        if (!checked) {
            /* tv_nsec is checked only now that we would block (POSIX). */
            if (fx_deadline_check(deadline))
                return EINVAL;
            checked = true;
        }
        /* @step rmutex.wait.sleep */
        /* Sleep no longer than the owner's liveness re-check, nor past the
         * caller's deadline. */
        struct timespec until = fx_rm_timespec(w->check_at);
        bool caller_deadline =
            deadline != NULL && (deadline->tv_sec < until.tv_sec ||
                                 (deadline->tv_sec == until.tv_sec &&
                                  deadline->tv_nsec <= until.tv_nsec));
        r = fx_futex_wait_raw(&m->owner, (int32_t)sleep_on, caller_deadline ? deadline : &until,
                              FX_BITSET_ANY);
        /* @step rmutex.wait.timed_out */
        if (r == ETIMEDOUT && caller_deadline) {
            /* Not woken (a wake makes the wait return 0), so no wake is lost
             * by leaving. As POSIX asks of a timed lock, take it if that can
             * be done at once: free, orphaned, or a dead owner. */
            r = fx_rm_step(m, self, w, true, &sleep_on);
            return r == EBUSY ? ETIMEDOUT : r;
        }
        /* @step rmutex.wait.again */
        /* Woken, re-check time, EAGAIN or EINTR: step again, same deadline. */
    }
}

/* The slow path of lock and timedlock for a non-owner: spin, then wait. */
__attribute__((noinline, cold)) static int fx_rm_lock_contended(fx_rmutex *m, uint32_t self,
                                                                const struct timespec *deadline)
{
    /* Relaxed loads: only hints for when to try the CAS, which synchronizes. */
    /* @step rmutex.lock_contended.spin */
    uint32_t v = __atomic_load_n(fx_rm_word(m), __ATOMIC_RELAXED);
    for (int i = 0; i < FX_RMUTEX_SPIN && fx_rm_held_tid(v) != 0 && !(v & WAITERS); i++) {
        fx_cpu_relax();
        v = __atomic_load_n(fx_rm_word(m), __ATOMIC_RELAXED);
    }
    /* One try as an ordinary locker before sleeping (we never slept: no W).
     * Acquire: the critical section sees the previous owner's writes. */
    /* @step rmutex.lock_contended.cas */
    if (v == 0 && __atomic_compare_exchange_n(fx_rm_word(m), &v, self, false, __ATOMIC_ACQUIRE,
                                              __ATOMIC_RELAXED))
        return 0;
    struct fx_rmutex_waiter w;
    fx_rmutex_waiter_init(&w, 0);
    return fx_rm_wait(m, self, &w, deadline);
}

/* Public API ------------------------------------------------------------------ */

void fx_rmutex_init(fx_rmutex *m)
{
    if (fx_bad_slot(m))
        return;
    /* Relaxed: init happens before any sharing, like a memset. */
    __atomic_store_n(&m->owner, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&m->depth, 0, __ATOMIC_RELAXED);
}

/* The rmutex this thread last acquired (outermost) and has not released since,
 * as far as the fast paths know: lets the lock recognise a re-entry with a
 * plain load instead of a failed CAS (about 6 ns less), without putting that
 * load in front of the first acquisition's CAS. Only a hint: the owner word
 * decides. A fork child inherits it; its own TID then does not match. */
static _Thread_local fx_rmutex *fx_rm_hint __attribute__((tls_model("initial-exec")));

/* The lock's CAS found the word not FREE (value v): re-entry, or the slow path
 * (nowait: trylock). Announces the end of the attempt to race detectors; a
 * re-entry is announced as a failed try (only outermost levels are lock
 * events for them). */
__attribute__((noinline)) static int fx_rm_lock_busy(fx_rmutex *m, uint32_t self, uint32_t v,
                                                     const struct timespec *deadline,
                                                     unsigned try_flag, bool nowait)
{
    int r;
    if ((v & ~WAITERS) == self) {
        /* Only this thread writes its own TID into the word, so the CAS's
         * view of it means we own the mutex. */
        fx_ann_post_lock(m, FX_ANN_RECURSIVE | FX_ANN_TRY | FX_ANN_FAILED, 0);
        return fx_rm_reenter(m);
    }
    if (nowait) {
        struct fx_rmutex_waiter w;
        uint32_t unused;
        fx_rmutex_waiter_init(&w, 0);
        /* @step rmutex.lock_busy.step */
        r = fx_rm_step(m, self, &w, true, &unused);
    } else {
        r = fx_rm_lock_contended(m, self, deadline);
    }
    return fx_rm_acquired(m, try_flag, r, 1);
}

static inline __attribute__((always_inline)) int
fx_rm_lock(fx_rmutex *m, const struct timespec *deadline, unsigned try_flag, bool nowait)
{
    if (fx_bad_slot(m))
        return EINVAL;
    uint32_t self = (uint32_t)fx_tid();
    if (fx_rm_hint == m) {
        /* Re-entry, probably: this thread's last outermost acquisition. The
         * word confirms it (relaxed: only we write our TID there; coherence
         * shows us our own writes). */
        if ((__atomic_load_n(fx_rm_word(m), __ATOMIC_RELAXED) & ~WAITERS) == self)
            return fx_rm_reenter(m);
    }
    fx_ann_pre_lock(m, FX_ANN_RECURSIVE | try_flag);
    uint32_t v = 0;
    /* Fast path, acquire on success: pairs with the release of the unlock.
     * The CAS comes first, with no load before it: a plain load of a word
     * that a locked instruction has just written costs more than the CAS
     * itself. On failure v is the value seen (relaxed: it only picks the
     * path; re-entry needs no ordering, the slow path re-synchronizes). */
    /* @step rmutex.lock.fast */
    if (__builtin_expect(__atomic_compare_exchange_n(fx_rm_word(m), &v, self, false,
                                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED),
                         1)) {
        fx_rm_hint = m;
        return fx_rm_acquired(m, try_flag, 0, 1);
    }
    return fx_rm_lock_busy(m, self, v, deadline, try_flag, nowait);
}

int fx_rmutex_lock(fx_rmutex *m)
{
    return fx_rm_lock(m, NULL, 0, false);
}

int fx_rmutex_timedlock(fx_rmutex *m, const struct timespec *deadline)
{
    return fx_rm_lock(m, deadline, FX_ANN_TRY, false);
}

int fx_rmutex_trylock(fx_rmutex *m)
{
    return fx_rm_lock(m, NULL, FX_ANN_TRY, true);
}

/* Checks that the caller owns m; returns 0 and its depth slot, or the error. */
static inline int fx_rm_owned(fx_rmutex *m, uint32_t self, int32_t *depth)
{
    /* Relaxed: only the owner sees its own TID here (see fx_rm_lock_busy). */
    uint32_t v = __atomic_load_n(fx_rm_word(m), __ATOMIC_RELAXED);
    if ((v & ~WAITERS) != self)
        return fx_rm_valid(v) ? EPERM : EINVAL;
    /* Relaxed: the owner's private slot. */
    *depth = __atomic_load_n(&m->depth, __ATOMIC_RELAXED);
    return fx_rm_depth_ok(*depth) ? 0 : EINVAL;
}

/* The outermost release by the owner `self`, whose depth slot held d: tells
 * the race detector, forgets the re-entry hint and the exit record, and frees
 * the mutex (as NOTRECOVERABLE when it is still inconsistent). */
static int fx_rm_release_owned(fx_rmutex *m, uint32_t self, int32_t d)
{
    fx_ann_pre_unlock(m, FX_ANN_RECURSIVE);
    if (fx_rm_hint == m)
        fx_rm_hint = NULL;
    int r = fx_rm_release(m, self, (d & INC) ? NOTREC : 0);
    fx_rm_held_del(m);
    fx_ann_post_unlock(m, FX_ANN_RECURSIVE);
    return r;
}

/* Unlock, checked step by step: inner levels, W set, errors, NOTREC, and every
 * unlock in builds that announce locks to race detectors. */
__attribute__((noinline)) static int fx_rm_unlock_slow(fx_rmutex *m, uint32_t self)
{
    int32_t d;
    int r = fx_rm_owned(m, self, &d);
    if (r != 0)
        return r;
    if ((d & DEPTH_MASK) > 1) {
        /* Relaxed: owner-private; an inner unlock releases nothing. */
        __atomic_store_n(&m->depth, d - 1, __ATOMIC_RELAXED);
        return 0;
    }
    return fx_rm_release_owned(m, self, d);
}

int fx_rmutex_unlock(fx_rmutex *m)
{
    if (fx_bad_slot(m))
        return EINVAL;
    uint32_t self = (uint32_t)fx_tid();
#if !FX_RM_ANNOTATED
    /* Fast path: depth 1 and no W. The depth is read before ownership is
     * known; a CAS from exactly our TID then proves we owned the mutex all
     * along (only we put our TID there, only we can take it out), so the
     * depth read was ours. The depth slot is left at 1: it means nothing once
     * the word is FREE. Release: the critical section happens-before the next
     * acquire. Relaxed load: the owner's own slot, or a value we discard. */
    /* @step rmutex.unlock.fast */
    if (__builtin_expect(__atomic_load_n(&m->depth, __ATOMIC_RELAXED) == 1, 1)) {
        uint32_t v = self;
        if (__builtin_expect(__atomic_compare_exchange_n(fx_rm_word(m), &v, 0, false,
                                                         __ATOMIC_RELEASE, __ATOMIC_RELAXED),
                             1)) {
            fx_rm_hint = NULL;
            return 0;
        }
    }
#endif
    return fx_rm_unlock_slow(m, self);
}

int fx_rmutex_consistent(fx_rmutex *m)
{
    if (fx_bad_slot(m))
        return EINVAL;
    int32_t d;
    int r = fx_rm_owned(m, (uint32_t)fx_tid(), &d);
    if (r != 0)
        return r;
    if (!(d & INC))
        return EINVAL;
    /* Relaxed: owner-private; the next owner sees it through the release. */
    /* @step rmutex.consistent.store */
    __atomic_store_n(&m->depth, d & ~INC, __ATOMIC_RELAXED);
    return 0;
}

int fx_rmutex_recover(fx_rmutex *m, pid_t dead_tid)
{
    if (fx_bad_slot(m))
        return EINVAL;
    /* Relaxed: a guess for the CAS, which synchronizes. */
    /* @step rmutex.recover.load */
    uint32_t v = __atomic_load_n(fx_rm_word(m), __ATOMIC_RELAXED);
    for (;;) {
        if (!fx_rm_valid(v))
            return EINVAL;
        /* @step rmutex.recover.check */
        uint32_t t = fx_rm_held_tid(v);
        if (t == 0 || dead_tid <= 0 || t != (uint32_t)dead_tid)
            return EPERM;
        /* From the exact value seen, so that a waiter recovering at the same
         * time and we cannot both win. Acquire-release: our earlier writes
         * (the caller may have repaired data) reach the next acquirer. */
        /* @step rmutex.recover.cas */
        if (__atomic_compare_exchange_n(fx_rm_word(m), &v, ORPHANED, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            /* One sleeper takes ORPHANED, keeping W for the others. */
            /* @step rmutex.recover.waiters */
            if (v & WAITERS)
                fx_futex_wake_raw(&m->owner, 1, FX_BITSET_ANY); /* @step rmutex.recover.wake */
            return 0;
        }
    }
}

pid_t fx_rmutex_owner(const fx_rmutex *m)
{
    if (fx_bad_slot(m))
        return -EINVAL;
    /* Relaxed: a snapshot; it orders nothing. */
    uint32_t v = (uint32_t)__atomic_load_n(&m->owner, __ATOMIC_RELAXED);
    if (!fx_rm_valid(v))
        return -EINVAL;
    return (pid_t)fx_rm_held_tid(v);
}

/* Internal entry points (src/internal/rmutex.h) ------------------------------- */

void fx_rmutex_waiter_init(struct fx_rmutex_waiter *w, int32_t depth)
{
    w->depth = depth;
    w->seen = 0;
    w->dead = 0;
    w->slept = 0;
    w->check_at = 0;
}

int fx_rmutex_acquire_step(fx_rmutex *m, struct fx_rmutex_waiter *w, int32_t **word,
                           int32_t *sleep_on, struct timespec *recheck_at)
{
    if (fx_bad_slot(m) || w == NULL || w->depth < 0 || w->depth > DEPTH_MAX)
        return EINVAL;
    uint32_t self = (uint32_t)fx_tid();
    /* Relaxed: picks the path, as in fx_rm_lock. */
    uint32_t v = __atomic_load_n(fx_rm_word(m), __ATOMIC_RELAXED);
    if ((v & ~WAITERS) == self)
        return w->depth == 0 ? fx_rm_reenter(m) : EINVAL;
    fx_ann_pre_lock(m, FX_ANN_RECURSIVE | FX_ANN_TRY);
    uint32_t on = 0;
    int r = fx_rm_acquired(m, FX_ANN_TRY, fx_rm_step(m, self, w, false, &on),
                           w->depth > 0 ? w->depth : 1);
    if (r == EBUSY) {
        *word = &m->owner;
        *sleep_on = (int32_t)on;
        *recheck_at = fx_rm_timespec(w->check_at);
    }
    return r;
}

void fx_rmutex_abandon_wait(fx_rmutex *m)
{
    if (fx_bad_slot(m))
        return;
    /* The wake we may have consumed was meant to make someone take the mutex
     * (after an unlock or a recover) or re-mark W; hand it on. */
    /* @step rmutex.abandon_wait.wake */
    fx_futex_wake_raw(&m->owner, 1, FX_BITSET_ANY);
}

int fx_rmutex_release_all(fx_rmutex *m, int32_t *saved_depth)
{
    if (fx_bad_slot(m) || saved_depth == NULL)
        return EINVAL;
    uint32_t self = (uint32_t)fx_tid();
    int32_t d;
    int r = fx_rm_owned(m, self, &d);
    if (r != 0)
        return r;
    /* @step rmutex.release_all.depth */
    *saved_depth = d & DEPTH_MASK;
    /* @step rmutex.release_all.release */
    return fx_rm_release_owned(m, self, d);
}

int fx_rmutex_reacquire(fx_rmutex *m, int32_t saved_depth)
{
    if (fx_bad_slot(m) || saved_depth < 1 || saved_depth > DEPTH_MAX)
        return EINVAL;
    uint32_t self = (uint32_t)fx_tid();
    /* Relaxed: picks the path, as in fx_rm_lock. */
    if ((__atomic_load_n(fx_rm_word(m), __ATOMIC_RELAXED) & ~WAITERS) == self)
        return EINVAL;
    fx_ann_pre_lock(m, FX_ANN_RECURSIVE);
    struct fx_rmutex_waiter w;
    fx_rmutex_waiter_init(&w, saved_depth);
    /* As a thread that may have slept on the word (a condition variable may
     * have requeued it there): acquire with W kept. */
    w.slept = 1;
    return fx_rm_acquired(m, 0, fx_rm_wait(m, self, &w, NULL), saved_depth);
}
