/*
 * src/rmutex.c - the re-entrant, owner-tracked mutex with owner-death recovery.
 *
 * The owner word (the design; keep it true). T is a thread's identity: its
 * TID in 1..TID_MAX (PID_MAX_LIMIT - 1 = 2^22 - 1) alone when the kernel
 * reports its death (its robust list carries the mutex: src/internal/robust.h),
 * else TID | P (bit 27) | L (bit 28) unless its process proved it runs in the
 * initial PID namespace; S the calling thread's identity, W bit 31, D bit 30.
 *
 *   value        name       meaning
 *   0            FREE       free
 *   T            HELD       owned by T; nobody sleeps in the kernel
 *   T|W          HELD+W     owned by T; threads may sleep on the word
 *   D, D|W       ORPHANED   free; the owner died (the kernel's robust-list
 *                           walk, or fx_rmutex_recover): the next acquirer
 *                           gets EOWNERDEAD; W kept as it was
 *   0x20000000   NOTREC     not recoverable: every acquire -> ENOTRECOVERABLE
 *   other        -          never written -> EINVAL from every operation
 *                           (L without P, P or L without a TID, bits 22..26)
 *
 * The depth slot is read and written only by the owner: count (1..DEPTH_MAX)
 * | INC (bit 30, "inconsistent": acquired with EOWNERDEAD, not yet
 * consistent()). While the word is not HELD the slot means nothing; every
 * acquisition overwrites it. An owner that finds another value in it
 * (no count, or an unknown bit) gets EINVAL from re-entry, unlock, consistent.
 * The link slots are the owner's robust-list entry: linked after the CAS
 * that makes the word name S, unlinked before the CAS that releases it
 * (src/internal/robust.h).
 *
 *   transition            by                               system call
 *   0 -> S                lock fast path / non-sleeper      none
 *   0 -> S|W              a thread that has slept           none
 *   T -> T|W              a thread about to sleep           then FUTEX_WAIT(T|W)
 *   S -> 0                final unlock                      none
 *   S|W -> 0              final unlock                      FUTEX_WAKE(1)
 *   S(|W) -> NOTREC       final unlock while INC            FUTEX_WAKE(all), always
 *   T(|W) -> D(|W)        the kernel, at T's exit or exec   FUTEX_WAKE(1) if W
 *                         (T without P)
 *   T(|W) -> D            fx_rmutex_recover(T)              FUTEX_WAKE(1) if W
 *   T(|W) -> S(|W)        an acquirer that found T dead     none (W kept: the
 *                         (T with P, CAS from that exact    sleepers now wait for S)
 *                         value), or found T == S (with P)
 *                         without a record of having
 *                         acquired m; never when T or the
 *                         caller's process has L
 *   D(|W) -> S(|W)        next acquirer: EOWNERDEAD         none (W kept)
 *   depth := 1            acquisition of FREE (after the CAS)
 *   depth := 1|INC        acquisition with EOWNERDEAD (after the CAS)
 *   depth d -> d+1        re-entry by the owner (EAGAIN at DEPTH_MAX)
 *   depth d -> d-1        unlock at depth > 1
 *   depth d|INC -> d      fx_rmutex_consistent
 *
 * Invariant (checked by models/rmutex.pml): while threads sleep on the word,
 * W is set in it, or a woken thread is on its way back and is responsible for
 * them (it acquires with W kept, or re-marks W before it sleeps or times out;
 * the kernel passes the duty on when that thread dies on its way, through its
 * list_op_pending); NOTREC wakes everyone, W or not, since a woken thread
 * leaves with ENOTRECOVERABLE without passing the duty on. A sleep on a word
 * naming T without P is untimed (the kernel will report T's death); one on T
 * with P ends in a liveness check of T: bounded by the waiter's schedule, or,
 * once it has looked at T, until the process's prober finds T dead
 * (src/rmutex_watch.c). A verdict "T is dead" serves only the one CAS from
 * the exact value it was made for; a word naming S is the caller's only
 * together with its record (identity.h).
 *
 * Why it works, the memory orders and the rest of the design: docs/design/rmutex.md.
 */
#include "futexsync/rmutex.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "internal/annotate.h"
#include "internal/deadline.h"
#include "internal/fault.h"
#include "internal/futex.h"
#include "internal/sleep.h"
#include "internal/rmutex.h"
#include "internal/spin.h"
#include "internal/rmutex_word.h" /* and the identity.h and robust.h it builds on */

/* The per-thread record of held rmutexes (src/internal/identity.h) ----------- */

/* The word names self (v & ~W == self): does self own m? Unknown counts as yes. */
static inline bool rmutex_mine(const fx_rmutex *m, uint32_t self)
{
    return fxi_held_has(m, self) != 0;
}

/* rmutex_acquired when the record may not be ours or its first entry is
 * taken, out of line: the lock's fast path then needs no stack frame. */
__attribute__((noinline)) static int rmutex_acquired_slow(fx_rmutex *m, uint32_t self, int r,
                                                        int32_t d)
{
    fxi_held_add(m, self);
    /* Relaxed, as in rmutex_acquired. */
    __atomic_store_n(&m->depth, d, __ATOMIC_RELAXED);
    return r;
}

/* Ends an outermost acquisition attempt: announces it to race detectors and,
 * when the word was taken (0 or EOWNERDEAD), records it in this thread's
 * record of held rmutexes and installs the depth (| INC after
 * EOWNERDEAD). The depth is written after the announcement so that a race
 * detector sees it inside the critical section. Relaxed: the depth slot is the
 * owner's; what a former owner (dead or not) left in it is meaningless and
 * overwritten; our release publishes it to the next owner. `trusted`: the
 * caller came by fxi_tid_plain, so the record is this thread's. */
static inline __attribute__((always_inline)) int
rmutex_acquired(fx_rmutex *m, uint32_t self, unsigned try_flag, int r, int32_t depth, int on,
                bool trusted)
{
    struct robust_list_head *h = fxi_rmutex_list(self);
    const bool took = r == 0 || r == EOWNERDEAD; /* the word names self */
    if (took)
        FXI_FAULT("rmutex.acquired.unlinked"); /* with a list or without */
    if (h != NULL) {
        /* The link slots are the library's, ordered by the word's CAS; the
         * detector sees their stores beside its lock events. */
        if (on)
            fxi_ann_own_words(m->link, sizeof m->link);
        if (took) {
            fxi_rl_link(h, m); /* the word names self; m stays pending (robust.h) */
        } else {
            fxi_rl_pending(h, NULL);
        }
    }
    if (took) {
        if (on) {
            fxi_ann_post_lock(m, FXI_ANN_RECURSIVE | try_flag, 0);
            fxi_held_announce_exit();
        }
        int32_t d = r == 0 ? depth : depth | INC;
        if (!__builtin_expect(trusted && fxi_self.held.first == NULL, 1))
            return rmutex_acquired_slow(m, self, r, d);
        fxi_self.held.first = m; /* the common case: one store, fixed address */
        /* @step rmutex.acquired.depth */
        __atomic_store_n(&m->depth, d, __ATOMIC_RELAXED);
    } else if (on) {
        fxi_ann_post_lock(m, FXI_ANN_RECURSIVE | FXI_ANN_TRY | FXI_ANN_FAILED, 0);
    }
    return r;
}

/* Release ------------------------------------------------------------------- */

/* Gives up ownership of the word (S or S|W, expected to be `v`) for `to`
 * (FREE or NOTREC) and wakes the sleepers that need it. m is no longer in
 * self's robust list (the caller's list_op_pending covers it). Returns 0, or
 * EPERM if the word no longer names the caller (someone called
 * fx_rmutex_recover on a live owner: nothing is released then). */
static int rmutex_release_word(fx_rmutex *m, uint32_t self, uint32_t v, uint32_t to)
{
    /* Release: the critical section's writes happen-before the next owner's
     * acquiring CAS. On failure v is reloaded (relaxed: only
     * the W bit can have changed while we own the word).
     * @step rmutex.release.cas */
    while (!__atomic_compare_exchange_n(fxi_rmutex_word(m), &v, to, false, __ATOMIC_RELEASE,
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
         * (Found by models/rmutex.pml.) Once per mutex: it costs nothing.
         * @step rmutex.release.wake_all */
        fxi_futex_wake_raw(&m->owner, INT32_MAX, FXI_BITSET_ANY);
    /* @step rmutex.release.waiters */
    } else if (v & WAITERS) {
        /* One sleeper acquires (keeping W), or re-marks W before sleeping
         * again, so the next release wakes the next one.
         * @step rmutex.release.wake */
        fxi_futex_wake_raw(&m->owner, 1, FXI_BITSET_ANY);
    }
    return 0;
}

/* The final release by self: out of its robust list, then the word. */
static int rmutex_release(fx_rmutex *m, uint32_t self, uint32_t to)
{
    struct robust_list_head *h = fxi_rmutex_list(self);
    if (h != NULL) {
        fxi_rl_pending_again(h, fxi_rl_entry(m));
        fxi_rl_unlink(h, m);
    }
    FXI_FAULT("rmutex.unlock.unlinked");
    int r = rmutex_release_word(m, self, self, to);
    if (h != NULL)
        fxi_rl_pending(h, NULL);
    return r;
}

/* Acquisition --------------------------------------------------------------- */

/* Re-entry by the owner. */
static int rmutex_reenter(fx_rmutex *m)
{
    /* Relaxed: only the owner reads or writes the depth slot. */
    int32_t d = __atomic_load_n(&m->depth, __ATOMIC_RELAXED);
    if (!fxi_rmutex_depth_ok(d))
        return EINVAL;
    if ((d & DEPTH_MASK) == DEPTH_MAX)
        return EAGAIN;
    __atomic_store_n(&m->depth, d + 1, __ATOMIC_RELAXED);
    return 0;
}

/* One acquisition step by `self`, not the owner (callers recognise re-entry
 * first): takes FREE or ORPHANED (EOWNERDEAD), takes over from a dead PROBED
 * owner (EOWNERDEAD), or marks W and reports EBUSY with the value to sleep
 * on. The caller installs the depth (rmutex_acquired). `nowait`: a
 * non-waiting attempt (liveness checked at once, memo permitting, no W);
 * otherwise the waiter's schedule in w decides. */
static int rmutex_step(fx_rmutex *m, uint32_t self, struct fxi_rmutex_waiter *w, bool nowait,
                       uint32_t *sleep_on)
{
    /* Relaxed: a guess for the first CAS; every CAS below synchronizes.
     * @step rmutex.step.load */
    uint32_t v = __atomic_load_n(fxi_rmutex_word(m), __ATOMIC_RELAXED);
    uint32_t judge_now = 0; /* the TID whose take-over CAS was just lost */
    for (;;) {
        uint32_t keep = w->slept ? WAITERS : 0;
        /* @step rmutex.step.take */
        if (v == 0 || (v & ~WAITERS) == ORPHANED) {
            /* Acquire: see the previous owner's writes. A thread that has
             * slept keeps W: sleepers it cannot see may remain (mutex3); so
             * does ORPHANED's W, which the kernel left for the sleepers. */
            if (__atomic_compare_exchange_n(fxi_rmutex_word(m), &v, self | (v & WAITERS) | keep,
                                            false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
                return v == 0 ? 0 : EOWNERDEAD;
            continue; /* v reloaded */
        }
        /* @step rmutex.step.notrec */
        if (v == NOTREC)
            return ENOTRECOVERABLE;
        if (fxi_rmutex_held_tid(v) == 0)
            return EINVAL;
        uint32_t t = v & ~WAITERS; /* the owner's identity */
        /* Held by thread t: is it dead? A verdict holds only for the value v
         * it was made for: it is made after v was read and used by the one
         * CAS from v that follows; a lost CAS drops it. */
        bool dead;
        /* @step rmutex.step.check_now */
        if (!(t & PROBED)) {
            /* The kernel reports this owner's death (it marks the word
             * ORPHANED and wakes a sleeper): no verdict of ours, even when
             * t is our own TID, which a thread of another PID namespace may
             * have too. */
            dead = false;
            w->seen = (int32_t)t;
            w->check_at = INT64_MAX;
        } else if ((t & TID_MAX) == (self & TID_MAX) && fxi_id_comparable(t)) {
            /* Our own TID, and the caller found no acquisition of m in our
             * record: the thread that had this TID before us held m and is
             * gone (no two live threads share a TID) -- when our TID names
             * the same task for every writer: the owner and our process in
             * the initial PID namespace. Otherwise an owner like any other,
             * whom the probe cannot judge. */
            dead = true;
        } else if (judge_now == t) {
            /* The take-over CAS for t was just lost (W set, or a new value
             * naming t again: the TID may have been reused by a new owner):
             * judge the value read now, at once. */
            dead = fxi_id_probe(t) == FXI_TID_DEAD;
        } else {
            dead = nowait ? fxi_rmutex_dead_now(m, t) : fxi_rmutex_watch(w, t);
        }
        judge_now = 0;
        /* @step rmutex.step.take_over */
        if (dead) {
            FXI_FAULT("rmutex.takeover");
            /* CAS from the exact value seen: one detector (or recover) wins.
             * W is kept: the sleepers now wait for our release. Acquire, as
             * any acquisition. */
            if (__atomic_compare_exchange_n(fxi_rmutex_word(m), &v, self | (v & WAITERS) | keep, false,
                                            __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
                return EOWNERDEAD;
            /* v reloaded: W set, someone else recovered or released, or a
             * new owner. The verdict was about the old value: drop it. */
            judge_now = t;
            continue;
        }
        /* @step rmutex.step.mark_waiters */
        if (nowait)
            return EBUSY;
        if (!(v & WAITERS)) {
            /* Relaxed: W only makes the owner's release wake a sleeper; it
             * publishes no data. On failure v is reloaded. */
            if (!__atomic_compare_exchange_n(fxi_rmutex_word(m), &v, v | WAITERS, false,
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
static int rmutex_wait(fx_rmutex *m, uint32_t self, struct fxi_rmutex_waiter *w,
                       const struct timespec *deadline)
{
    uint32_t sleep_on;
    if (deadline != NULL && fxi_deadline_check(deadline)) {
        /* A bad tv_nsec is an error only when the call would block (POSIX):
         * decide that as trylock does -- free, orphaned or a dead owner
         * (checked at once) is taken -- without marking W, since we leave. */
        int r = rmutex_step(m, self, w, true, &sleep_on);
        return r == EBUSY ? EINVAL : r;
    }
    for (;;) {
        int r = rmutex_step(m, self, w, false, &sleep_on);
        if (r != EBUSY)
            return r;
        /* A PROBED owner, looked at once: the process's prober looks for us
         * (told: look at once). Else sleep no longer than the owner's
         * liveness check (none when the kernel reports its death), nor past
         * the caller's deadline. @step rmutex.wait.sleep */
        bool caller_deadline = true, judge = false;
        if ((sleep_on & PROBED) && w->looked)
            r = fxi_futex_sleep_probed(&m->owner, (int32_t)sleep_on, fxi_rmutex_word_owner, deadline,
                                       &judge);
        if (!(sleep_on & PROBED) || !w->looked || r == ENOSYS) {
            struct timespec until = fxi_ns_ts(w->check_at);
            caller_deadline = deadline != NULL &&
                              (w->check_at == INT64_MAX || !fxi_ts_before(&until, deadline));
            r = fxi_futex_wait_raw(&m->owner, (int32_t)sleep_on,
                                   caller_deadline           ? deadline
                                   : w->check_at == INT64_MAX ? NULL
                                                              : &until,
                                   FXI_BITSET_ANY);
        }
        if (judge)
            w->check_at = 0;
        /* @step rmutex.wait.timed_out */
        if (r == ETIMEDOUT && caller_deadline) {
            /* Not woken (a wake makes the wait return 0), so no wake is lost
             * by leaving. As POSIX asks of a timed lock, take it if that can
             * be done at once: free, orphaned, or a dead owner. */
            r = rmutex_step(m, self, w, true, &sleep_on);
            return r == EBUSY ? ETIMEDOUT : r;
        }
        /* Woken, re-check time, EAGAIN or EINTR: step again, same deadline.
         * @step rmutex.wait.again */
    }
}

/* The slow path of lock and timedlock for a non-owner: spin, then wait. */
__attribute__((noinline, cold)) static int rmutex_lock_contended(fx_rmutex *m, uint32_t self,
                                                                 const struct timespec *deadline)
{
    /* Relaxed loads: only hints for when to try the CAS, which synchronizes.
     * @step rmutex.lock_contended.spin */
    uint32_t v = __atomic_load_n(fxi_rmutex_word(m), __ATOMIC_RELAXED);
    const int mode = fxi_handoff_mode();
    if (mode == FXI_HANDOFF_POLL) {
        /* Handoffs are far (src/internal/spin.h): look a few times between
         * short sleeps on a word of our own, as fx_mutex's poll does. */
        for (int k = 0; fxi_rmutex_held_tid(v) != 0 && !(v & WAITERS) && fxi_poll_wait(k, deadline);
             k++)
            v = __atomic_load_n(fxi_rmutex_word(m), __ATOMIC_RELAXED);
    } else {
        int n = fxi_spin_iterations(FXI_RMUTEX_SPIN_NS);
        for (int i = 0; i < n && fxi_rmutex_held_tid(v) != 0 && !(v & WAITERS); i++) {
            fxi_cpu_relax();
            uint64_t t0 = mode == FXI_HANDOFF_TIMED ? fxi_ticks() : 0;
            v = __atomic_load_n(fxi_rmutex_word(m), __ATOMIC_RELAXED);
            if (v == 0 && mode == FXI_HANDOFF_TIMED)
                fxi_handoff_seen(t0); /* the line came from the releaser's CPU */
        }
    }
    /* One try as an ordinary locker before sleeping (we never slept: no W).
     * Acquire: the critical section sees the previous owner's writes.
     * @step rmutex.lock_contended.cas */
    if (v == 0 && __atomic_compare_exchange_n(fxi_rmutex_word(m), &v, self, false, __ATOMIC_ACQUIRE,
                                              __ATOMIC_RELAXED))
        return 0;
    struct fxi_rmutex_waiter w;
    fxi_rmutex_waiter_init(&w, 0);
    return rmutex_wait(m, self, &w, deadline);
}

/* Public API ------------------------------------------------------------------ */

int fx_rmutex_init(fx_rmutex *m)
{
    if (fxi_rmutex_bad(m))
        return EINVAL;
    /* Plain stores: init happens before any sharing, like a memset. */
    *m = (fx_rmutex){0};
    return 0;
}

/* The lock's CAS found the word not FREE (value v): re-entry, or the slow path
 * (nowait: trylock). Announces the end of the attempt to race detectors; a
 * re-entry is announced as a failed try (only outermost levels are lock
 * events for them). */
__attribute__((noinline)) static int rmutex_lock_busy(fx_rmutex *m, uint32_t self, uint32_t v,
                                                      const struct timespec *deadline,
                                                      unsigned try_flag, bool nowait)
{
    int r;
    if ((v & ~WAITERS) == self && rmutex_mine(m, self)) {
        /* Only this thread writes its own TID into the word, and it recorded
         * the acquisition, so the CAS's view of it means we own the mutex.
         * (Our TID without a record: its former thread died holding m; the
         * step takes it over.) */
        fxi_rmutex_pending(self, NULL);
        if (fxi_ann_on())
            fxi_ann_post_lock(m, FXI_ANN_RECURSIVE | FXI_ANN_TRY | FXI_ANN_FAILED, 0);
        return rmutex_reenter(m);
    }
    if (nowait) {
        struct fxi_rmutex_waiter w;
        uint32_t unused;
        fxi_rmutex_waiter_init(&w, 0);
        /* @step rmutex.lock_busy.step */
        r = rmutex_step(m, self, &w, true, &unused);
    } else {
        r = rmutex_lock_contended(m, self, deadline);
    }
    return rmutex_acquired(m, self, try_flag, r, 1, fxi_ann_on(), false);
}

/* lock, timedlock and trylock for the caller `self`; `on`: a race detector
 * may be there (its hooks run). */
static inline __attribute__((always_inline)) int
rmutex_lock(fx_rmutex *m, const struct timespec *deadline, unsigned try_flag, bool nowait,
            uint32_t self, int on)
{
    if (fxi_rmutex_bad(m))
        return EINVAL;
    /* A re-entry, probably, when m is the record's first entry: the word
     * confirms it (relaxed: only we write our TID there; coherence shows us
     * our own writes), and the record is ours when we came by fxi_tid_plain
     * (!on), else its TID must be ours (a fork child inherits the record).
     * A plain load instead of a failed CAS (cheaper), and no load of the
     * word in front of the first acquisition's CAS. Other re-entries fail
     * the CAS and are recognised by rmutex_lock_busy. */
    if (fxi_self.held.first == m &&
        (__atomic_load_n(fxi_rmutex_word(m), __ATOMIC_RELAXED) & ~WAITERS) == self &&
        (!on || fxi_self.held.tid == self))
        return rmutex_reenter(m);
    if (on)
        fxi_ann_pre_lock(m, FXI_ANN_RECURSIVE | try_flag);
    uint32_t v = 0;
    /* A death from here until the entry is linked (or the attempt ends) is
     * told by list_op_pending; it stays set while the slow path sleeps. */
    fxi_rmutex_pending(self, fxi_rl_entry(m));
    /* Fast path, acquire on success: pairs with the release of the unlock.
     * The CAS comes first, with no load before it: a plain load of a word
     * that a locked instruction has just written costs more than the CAS
     * itself. On failure v is the value seen (relaxed: it only picks the
     * path; re-entry needs no ordering, the slow path re-synchronizes).
     * @step rmutex.lock.fast */
    if (__builtin_expect(__atomic_compare_exchange_n(fxi_rmutex_word(m), &v, self, false,
                                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED),
                         1)) {
        return rmutex_acquired(m, self, try_flag, 0, 1, on, !on);
    }
    return rmutex_lock_busy(m, self, v, deadline, try_flag, nowait);
}

/* The lock calls when fxi_tid_plain says no: this thread's first call (or a
 * fork child's), no cache kept, or a race detector is there (no cache is
 * kept under one), whose hooks then run. */
__attribute__((noinline, cold)) static int rmutex_lock_announced(fx_rmutex *m,
                                                               const struct timespec *deadline,
                                                               unsigned try_flag, bool nowait)
{
    return rmutex_lock(m, deadline, try_flag, nowait, fxi_id(), 1);
}

/* The caller's TID from the cache when it is good (src/internal/identity.h);
 * a good cache also means that no race detector is there. */
static inline __attribute__((always_inline)) int
rmutex_lock_entry(fx_rmutex *m, const struct timespec *deadline, unsigned try_flag, bool nowait)
{
    uint32_t self;
    if (__builtin_expect(fxi_tid_plain(&self), 1))
        return rmutex_lock(m, deadline, try_flag, nowait, self, 0);
    return rmutex_lock_announced(m, deadline, try_flag, nowait);
}

int fx_rmutex_lock(fx_rmutex *m)
{
    return rmutex_lock_entry(m, NULL, 0, false);
}

int fx_rmutex_timedlock(fx_rmutex *m, const struct timespec *deadline)
{
    return rmutex_lock_entry(m, deadline, FXI_ANN_TRY, false);
}

int fx_rmutex_trylock(fx_rmutex *m)
{
    return rmutex_lock_entry(m, NULL, FXI_ANN_TRY, true);
}

/* Checks that the caller owns m; returns 0 and its depth slot, or the error. */
static inline int rmutex_owned(fx_rmutex *m, uint32_t self, int32_t *depth)
{
    /* Relaxed: only the owner sees its own TID here (see rmutex_lock_busy). */
    uint32_t v = __atomic_load_n(fxi_rmutex_word(m), __ATOMIC_RELAXED);
    if (!fxi_rmutex_valid(v))
        return EINVAL;
    if ((v & ~WAITERS) != self || !rmutex_mine(m, self))
        return EPERM; /* our TID unrecorded: a dead thread that had it owns m */
    /* Relaxed: the owner's private slot. */
    *depth = __atomic_load_n(&m->depth, __ATOMIC_RELAXED);
    return fxi_rmutex_depth_ok(*depth) ? 0 : EINVAL;
}

/* The outermost release by the owner `self`, whose depth slot held d: tells
 * the race detector, forgets the acquisition in the record, and
 * frees the mutex (as NOTRECOVERABLE when it is still inconsistent). */
static int rmutex_release_owned(fx_rmutex *m, uint32_t self, int32_t d)
{
    const bool on = fxi_ann_on(); /* one look at the race-detector probe */
    if (on)
        fxi_ann_pre_unlock(m, FXI_ANN_RECURSIVE);
    int r = rmutex_release(m, self, (d & INC) ? NOTREC : 0);
    fxi_held_del(m, self);
    if (on)
        fxi_ann_post_unlock(m, FXI_ANN_RECURSIVE);
    return r;
}

/* Unlock, checked step by step: inner levels, W set, errors, NOTREC, and every
 * unlock in builds that announce locks to race detectors. */
__attribute__((noinline)) static int rmutex_unlock_slow(fx_rmutex *m, uint32_t self)
{
    int32_t d;
    int r = rmutex_owned(m, self, &d);
    if (r != 0)
        return r;
    if ((d & DEPTH_MASK) > 1) {
        /* Relaxed: owner-private; an inner unlock releases nothing. */
        __atomic_store_n(&m->depth, d - 1, __ATOMIC_RELAXED);
        return 0;
    }
    return rmutex_release_owned(m, self, d);
}

/* The unlock's fast path after its CAS found v (W set, recovered by force,
 * or never written), out of line: the fast path then needs no stack frame. */
__attribute__((noinline)) static int
rmutex_unlock_fast_busy(fx_rmutex *m, uint32_t self, uint32_t v, struct robust_list_head *h)
{
    int r = (v & ~WAITERS) == self ? rmutex_release_word(m, self, v, 0)
            : fxi_rmutex_valid(v)      ? EPERM
                                       : EINVAL;
    if (h != NULL)
        fxi_rl_pending(h, NULL);
    fxi_self.held.first = NULL; /* forget the acquisition */
    return r;
}

int fx_rmutex_unlock(fx_rmutex *m)
{
    if (fxi_rmutex_bad(m))
        return EINVAL;
    uint32_t self;
    /* Under a race detector (no cache is kept: fxi_tid_plain says no) every
     * unlock is checked before it releases, since the announcement must
     * precede the release: the slow path does both. */
    if (!fxi_tid_plain(&self)) {
        self = fxi_id();
    } else {
        /* Fast path: m is the record's first entry (the record is ours:
         * we came by fxi_tid_plain), depth 1 and no W; other unlocks take
         * the slow path. The depth is read before ownership is known; a CAS
         * from exactly our TID then proves, with the record, that we owned
         * the mutex all along (only we put our TID there, only we can take
         * it out), so the depth read was ours. The depth slot is left at 1:
         * it means nothing once the word is FREE. Release: the critical
         * section happens-before the next acquire. Relaxed load: the
         * owner's own slot, or a value we discard. @step rmutex.unlock.fast */
        if (__builtin_expect(fxi_self.held.first == m &&
                                 __atomic_load_n(&m->depth, __ATOMIC_RELAXED) == 1,
                             1)) {
            /* Out of the robust list before the word is released (its next
             * owner may free m at once), under list_op_pending. */
            struct robust_list_head *h = fxi_rmutex_list(self);
            if (h != NULL) {
                fxi_rl_pending_again(h, fxi_rl_entry(m));
                fxi_rl_unlink(h, m);
            }
            FXI_FAULT("rmutex.unlock.unlinked");
            uint32_t v = self;
            if (!__builtin_expect(__atomic_compare_exchange_n(fxi_rmutex_word(m), &v, 0, false,
                                                              __ATOMIC_RELEASE, __ATOMIC_RELAXED),
                                  1))
                return rmutex_unlock_fast_busy(m, self, v, h);
            if (h != NULL)
                fxi_rl_pending(h, NULL);
            fxi_self.held.first = NULL; /* forget the acquisition */
            return 0;
        }
    }
    return rmutex_unlock_slow(m, self);
}

int fx_rmutex_consistent(fx_rmutex *m)
{
    if (fxi_rmutex_bad(m))
        return EINVAL;
    int32_t d;
    int r = rmutex_owned(m, fxi_id(), &d);
    if (r != 0)
        return r;
    if (!(d & INC))
        return EINVAL;
    /* Relaxed: owner-private; the next owner sees it through the release.
     * @step rmutex.consistent.store */
    __atomic_store_n(&m->depth, d & ~INC, __ATOMIC_RELAXED);
    return 0;
}

int fx_rmutex_recover(fx_rmutex *m, pid_t dead_tid)
{
    if (fxi_rmutex_bad(m))
        return EINVAL;
    /* Relaxed: a guess for the CAS, which synchronizes.
     * @step rmutex.recover.load */
    uint32_t v = __atomic_load_n(fxi_rmutex_word(m), __ATOMIC_RELAXED);
    for (;;) {
        if (!fxi_rmutex_valid(v))
            return EINVAL;
        /* @step rmutex.recover.check */
        uint32_t t = fxi_rmutex_held_tid(v);
        if (t == 0 || dead_tid <= 0 || t != (uint32_t)dead_tid)
            return EPERM;
        /* From the exact value seen, so that a waiter recovering at the same
         * time and we cannot both win. Acquire-release: our earlier writes
         * (the caller may have repaired data) reach the next acquirer.
         * @step rmutex.recover.cas */
        if (__atomic_compare_exchange_n(fxi_rmutex_word(m), &v, ORPHANED, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            /* One sleeper takes ORPHANED, keeping W for the others.
             * @step rmutex.recover.waiters */
            if (v & WAITERS)
                fxi_futex_wake_raw(&m->owner, 1, FXI_BITSET_ANY); /* @step rmutex.recover.wake */
            return 0;
        }
    }
}

pid_t fx_rmutex_owner(const fx_rmutex *m)
{
    if (fxi_rmutex_bad(m))
        return -EINVAL;
    /* Relaxed: a snapshot; it orders nothing. */
    uint32_t v = (uint32_t)__atomic_load_n(&m->owner, __ATOMIC_RELAXED);
    if (!fxi_rmutex_valid(v))
        return -EINVAL;
    return (pid_t)fxi_rmutex_held_tid(v);
}

/* Internal entry points (src/internal/rmutex.h) ------------------------------- */

void fxi_rmutex_waiter_init(struct fxi_rmutex_waiter *w, int32_t depth)
{
    w->depth = depth;
    w->seen = 0;
    w->slept = 0;
    w->check_at = 0;
    w->since = 0;
    w->looked = 0;
}

int fxi_rmutex_acquire_step(fx_rmutex *m, struct fxi_rmutex_waiter *w, int32_t **word,
                           int32_t *sleep_on, struct timespec *recheck_at)
{
    if (fxi_rmutex_bad(m) || w == NULL || w->depth < 0 || w->depth > DEPTH_MAX)
        return EINVAL;
    uint32_t self = fxi_id();
    /* Relaxed: picks the path, as in rmutex_lock. */
    uint32_t v = __atomic_load_n(fxi_rmutex_word(m), __ATOMIC_RELAXED);
    if ((v & ~WAITERS) == self && rmutex_mine(m, self))
        return w->depth == 0 ? rmutex_reenter(m) : EINVAL;
    const bool ann = fxi_ann_on(); /* one look at the race-detector probe */
    if (ann)
        fxi_ann_pre_lock(m, FXI_ANN_RECURSIVE | FXI_ANN_TRY);
    uint32_t on = 0;
    fxi_rmutex_pending(self, fxi_rl_entry(m));
    int r = rmutex_acquired(m, self, FXI_ANN_TRY, rmutex_step(m, self, w, false, &on),
                            w->depth > 0 ? w->depth : 1, ann, false);
    if (r == EBUSY) {
        /* The caller sleeps on the word next: its death passes a consumed
         * wake on (until its next step, or fxi_rmutex_abandon_wait). */
        fxi_rmutex_pending(self, fxi_rl_entry(m));
        *word = &m->owner;
        *sleep_on = (int32_t)on;
        /* Field by field: a struct stored through a pointer is a memcpy
         * that GenMC 0.10 cannot model (tests/genmc/cond.c with RMUTEX). */
        struct timespec t = fxi_ns_ts(w->check_at);
        recheck_at->tv_sec = t.tv_sec;
        recheck_at->tv_nsec = t.tv_nsec;
    }
    return r;
}

void fxi_rmutex_abandon_wait(fx_rmutex *m)
{
    if (fxi_rmutex_bad(m))
        return;
    struct robust_list_head *h = fxi_rmutex_list(fxi_id());
    if (h != NULL && h->list_op_pending == fxi_rl_entry(m))
        fxi_rl_pending(h, NULL);
    /* The wake we may have consumed was meant to make someone take the mutex
     * (after an unlock or a recover) or re-mark W; hand it on.
     * @step rmutex.abandon_wait.wake */
    fxi_futex_wake_raw(&m->owner, 1, FXI_BITSET_ANY);
}

int fxi_rmutex_release_all(fx_rmutex *m, int32_t *saved_depth)
{
    if (fxi_rmutex_bad(m) || saved_depth == NULL)
        return EINVAL;
    uint32_t self = fxi_id();
    int32_t d;
    int r = rmutex_owned(m, self, &d);
    if (r != 0)
        return r;
    /* @step rmutex.release_all.depth */
    *saved_depth = d & DEPTH_MASK;
    /* @step rmutex.release_all.release */
    return rmutex_release_owned(m, self, d);
}

int fxi_rmutex_reacquire(fx_rmutex *m, int32_t saved_depth)
{
    if (fxi_rmutex_bad(m) || saved_depth < 1 || saved_depth > DEPTH_MAX)
        return EINVAL;
    uint32_t self = fxi_id();
    /* Relaxed: picks the path, as in rmutex_lock. */
    if ((__atomic_load_n(fxi_rmutex_word(m), __ATOMIC_RELAXED) & ~WAITERS) == self &&
        rmutex_mine(m, self))
        return EINVAL;
    const bool on = fxi_ann_on(); /* one look at the race-detector probe */
    if (on)
        fxi_ann_pre_lock(m, FXI_ANN_RECURSIVE);
    struct fxi_rmutex_waiter w;
    fxi_rmutex_waiter_init(&w, saved_depth);
    /* As a thread that may have slept on the word (a condition variable may
     * have requeued it there): acquire with W kept. */
    w.slept = 1;
    fxi_rmutex_pending(self, fxi_rl_entry(m));
    return rmutex_acquired(m, self, 0, rmutex_wait(m, self, &w, NULL), saved_depth, on, false);
}
