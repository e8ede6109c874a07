/*
 * src/rwlock.c - the reader-writer lock.
 *
 * The state word (the design; keep it true). C = bits 0..23, the count.
 *
 *   C           meaning
 *   0           unlocked
 *   1..MAXR     held by C readers (MAXR = 0xfffffe)
 *   WL          held by one writer (WL = 0xffffff)
 *   bit 29  WP  a writer is spinning for the lock: new readers stay out
 *   bit 30  RW  readers may sleep on `state` (FUTEX_WAIT on the state word)
 *   bit 31  WW  writers may sleep on `writer_seq`
 *   bits 24..28 set: never written by the library -> EINVAL
 *
 *   transition                      by                          system call
 *   C 0 -> WL, -WP (keep RW, WW)    writer; +WW if it has slept none
 *   C n -> n+1, no WP/RW/WW         new reader                  none
 *   C n -> n+1, any bits            reader woken by a wake-all  none
 *                                   (admitted as a read phase)
 *   C n -> n-1                      read unlock                 see "wake"
 *   C WL -> 0 (keep bits)           write unlock                see "wake"
 *   +WP (C != 0)                    writer starting to spin     none
 *   -WP                             writer giving up (timeout)  see "wake"
 *   +RW (C = WL, or WP/RW/WW set)   reader about to sleep       FUTEX_WAIT(state)
 *   +WW (C != 0)                    writer about to sleep       FUTEX_WAIT(seq)
 *   wake, when C is 0 and RW or WW is set (by the unlocker, or the writer
 *   that gave up):
 *     readers first (write unlock, give-up), or only RW set:
 *       -RW, wake all on state; if nobody woke and WW: go on to a writer
 *     writers first (read unlock), or only WW set:
 *       -WW, writer_seq += 1, wake one on writer_seq; if nobody woke and RW:
 *       go on to the readers
 *     the count is not 0 any more: stop (that holder's unlock will wake)
 *
 * Who waits, and who is responsible for waking them:
 * - WW set means writers may sleep. A writer sets it only while C != 0, so
 *   the unlock that brings C to 0 sees it. The waker clears WW and wakes one
 *   writer; other writers may still sleep, so a writer that has slept sets WW
 *   again when it acquires, and its own unlock then wakes the next.
 * - RW set means readers may sleep. A reader sets it only while C = WL (the
 *   writer's unlock wakes), or WW is set (so C != 0 or an unlocker is on its
 *   way, as above), or WP is set: the spinning writer either acquires (its
 *   unlock wakes) or gives up and then runs the wake itself.
 * - A writer reads writer_seq before re-checking the state and sleeps only
 *   if writer_seq still holds that value (the kernel compares it), so an
 *   unlock between its check and its sleep makes the sleep return at once
 *   (the waker advances writer_seq before waking, with release order, and
 *   the writer's acquire load of writer_seq then sees the cleared WW).
 * - A woken thread never leaves without acquiring or going back to sleep
 *   with its waiting bit set on a held lock (even past its deadline it takes
 *   a lock it finds free), so a wake is never lost by a timeout; a wake that
 *   found nobody asleep is handed to the other kind of waiter.
 * - WP carries no wake-up duty (nobody sleeps on it), so the writer that
 *   acquires clears it even if other writers spin: they set it again.
 *
 * Fairness policy (phase-fair): a new reader does not enter while WP, RW or
 * WW is set, so a writer waiting for the current readers is not starved by a
 * stream of new ones; a write unlock admits all sleeping readers at once (they
 * may enter past WP and WW, because a readers' wake woke them), and the last
 * of them lets the waiting writer in. Readers and writers thus alternate
 * under contention, and neither kind starves.
 *
 * Spin policy: a thread that cannot enter spins at most FX_RWLOCK_SPIN pause
 * iterations (a few microseconds) before it sleeps; a writer first sets WP so
 * that the readers inside drain while it spins. Short critical sections
 * therefore hand the lock over without any system call.
 */
#include "futexsync/rwlock.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal/annotate.h"
#include "internal/deadline.h"
#include "internal/futex.h"
#include "internal/spin.h"

#ifndef FX_RWLOCK_SPIN
#define FX_RWLOCK_SPIN 100
#endif

#define COUNT  0x00ffffffu
#define WL     0x00ffffffu
#define MAXR   0x00fffffeu
#define BAD    0x1f000000u
#define WP     0x20000000u
#define RW     0x40000000u
#define WW     0x80000000u

static inline uint32_t load_state(fx_rwlock *l)
{
    /* Relaxed: only the guess for a CAS that synchronizes, or a hint. */
    return (uint32_t)__atomic_load_n(&l->state, __ATOMIC_RELAXED);
}

/* CAS on the state word, taking and returning uint32_t views. */
static inline bool cas_state(fx_rwlock *l, uint32_t *expected, uint32_t desired, int success)
{
    int32_t e = (int32_t)*expected;
    bool ok = __atomic_compare_exchange_n(&l->state, &e, (int32_t)desired, false, success,
                                          __ATOMIC_RELAXED);
    *expected = (uint32_t)e;
    return ok;
}

/* A new reader may enter: not write-locked, not full, nobody waiting. */
static inline bool read_lockable(uint32_t s)
{
    return (s & (COUNT | WP | RW | WW | BAD)) < MAXR;
}

void fx_rwlock_init(fx_rwlock *l)
{
    if (fx_bad_slot(l))
        return;
    /* Relaxed: init happens before any sharing, like a memset. */
    __atomic_store_n(&l->state, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&l->writer_seq, 0, __ATOMIC_RELAXED);
}

/* Wakes one writer sleeping on writer_seq; returns how many woke (0 or 1). */
static int wake_writer(fx_rwlock *l)
{
    /* Release: a writer whose acquire load of writer_seq sees the new value
     * also sees the state change (WW cleared) the caller made before. */
    __atomic_fetch_add(&l->writer_seq, 1, __ATOMIC_RELEASE);
    return fx_futex_wake_raw(&l->writer_seq, 1, FX_BITSET_ANY);
}

/* The "wake" row of the table: called by an unlocker whose release left the
 * count at 0 with waiting bits in s. */
__attribute__((noinline, cold)) static void wake_waiters(fx_rwlock *l, uint32_t s,
                                                         bool readers_first)
{
    for (;;) {
        if ((s & COUNT) != 0 || (s & BAD) != 0)
            return; /* locked again: that holder's unlock wakes the rest */
        bool rw = (s & RW) != 0, ww = (s & WW) != 0;
        if (rw && (readers_first || !ww)) {
            /* Relaxed: clearing the bit publishes no data; the readers
             * re-read the state after waking. On failure s is reloaded. */
            if (!cas_state(l, &s, s & ~RW, __ATOMIC_RELAXED))
                continue;
            int n = fx_futex_wake_raw(&l->state, INT32_MAX, FX_BITSET_ANY);
            if (n > 0 || !ww)
                return;
            /* No reader was asleep (they timed out or have not slept yet,
             * and those will see RW cleared): the writer must not be left
             * waiting for a read phase that never comes. */
            s &= ~RW;
            readers_first = false;
        } else if (ww) {
            /* Relaxed, as above; wake_writer's release orders it. */
            if (!cas_state(l, &s, s & ~WW, __ATOMIC_RELAXED))
                continue;
            if (wake_writer(l) > 0 || !rw)
                return;
            /* No writer was asleep: hand the wake to the readers. */
            s &= ~WW;
            readers_first = true;
        } else {
            return;
        }
    }
}

__attribute__((noinline, cold)) static int rdlock_slow(fx_rwlock *l,
                                                       const struct timespec *deadline)
{
    uint32_t s = load_state(l);
    bool woken = false; /* admitted by a readers' wake: may pass WP, RW, WW */
    bool checked = false;
    int spins = 0;
    for (;;) {
        if (s & BAD)
            return EINVAL;
        uint32_t c = s & COUNT;
        if (c != WL && (woken || !(s & (WP | RW | WW)))) {
            if (c == MAXR)
                return EAGAIN;
            /* Acquire: the reader sees what the last writer wrote. */
            if (cas_state(l, &s, s + 1, __ATOMIC_ACQUIRE))
                return 0;
            continue;
        }
        if (spins < FX_RWLOCK_SPIN) {
            spins++;
            fx_cpu_relax();
            s = load_state(l);
            continue;
        }
        if (!checked) {
            /* tv_nsec is checked only now that we would block (POSIX). */
            if (fx_deadline_check(deadline))
                return EINVAL;
            checked = true;
        }
        if (!(s & RW)) {
            /* Relaxed: the bit only makes the unlocker wake us; the state
             * is re-read after the sleep. On failure s is reloaded. */
            if (!cas_state(l, &s, s | RW, __ATOMIC_RELAXED))
                continue;
            s |= RW;
        }
        int r = fx_futex_wait_raw(&l->state, (int32_t)s, deadline, FX_BITSET_ANY);
        if (r == ETIMEDOUT)
            return ETIMEDOUT; /* not woken: no wake is lost by leaving */
        if (r == 0)
            woken = true; /* a wake-all: this reader belongs to its read phase */
        /* EAGAIN (the state changed before we slept), EINTR: look again
         * with the same absolute deadline, spinning first. */
        spins = 0;
        s = load_state(l);
    }
}

/* A writer that gives up: takes back its WP (spinning writers set it again)
 * and, if the lock is free, wakes the readers that WP kept out. */
static void writer_give_up(fx_rwlock *l)
{
    /* Relaxed: publishes no data; the wake below reads the result. */
    uint32_t s = (uint32_t)__atomic_and_fetch(&l->state, (int32_t)~WP, __ATOMIC_RELAXED);
    if ((s & COUNT) == 0 && (s & (RW | WW)))
        wake_waiters(l, s, true);
}

__attribute__((noinline, cold)) static int wrlock_slow(fx_rwlock *l,
                                                       const struct timespec *deadline)
{
    uint32_t s = load_state(l);
    uint32_t slept = 0; /* WW once this writer has slept: others may sleep too */
    bool checked = false;
    int spins = 0;
    for (;;) {
        if (s & BAD)
            return EINVAL;
        if ((s & COUNT) == 0) {
            /* Acquire: the writer sees what every earlier holder wrote. WP
             * is ours (or another spinner's, which sets it again). */
            if (cas_state(l, &s, (s & ~WP) | WL | slept, __ATOMIC_ACQUIRE))
                return 0;
            continue;
        }
        if (spins < FX_RWLOCK_SPIN) {
            if (!(s & (WP | WW))) {
                /* Relaxed: WP only keeps new readers out while we spin. */
                if (!cas_state(l, &s, s | WP, __ATOMIC_RELAXED))
                    continue;
            }
            spins++;
            fx_cpu_relax();
            s = load_state(l);
            continue;
        }
        if (!checked) {
            if (fx_deadline_check(deadline)) {
                writer_give_up(l);
                return EINVAL;
            }
            checked = true;
        }
        if (!(s & WW)) {
            /* Relaxed, as for RW in rdlock_slow. */
            if (!cas_state(l, &s, s | WW, __ATOMIC_RELAXED))
                continue;
        }
        slept = WW;
        /* Acquire: pairs with wake_writer's release, so that if we see its
         * new sequence number we also see the WW it cleared (below). */
        int32_t seq = __atomic_load_n(&l->writer_seq, __ATOMIC_ACQUIRE);
        s = load_state(l);
        if ((s & COUNT) == 0 || !(s & WW))
            continue; /* freed, or a waker took our WW: do not sleep */
        int r = fx_futex_wait_raw(&l->writer_seq, seq, deadline, FX_BITSET_ANY);
        if (r == ETIMEDOUT) {
            /* WW stays set on a held lock: its unlock wakes the others. */
            writer_give_up(l);
            return ETIMEDOUT;
        }
        spins = 0;
        s = load_state(l);
    }
}

int fx_rwlock_rdlock(fx_rwlock *l)
{
    if (fx_bad_slot(l))
        return EINVAL;
    fx_ann_pre_lock(l, FX_ANN_SHARED);
    uint32_t s = load_state(l);
    /* Fast path, acquire on success: pairs with the release of unlock. */
    int r = read_lockable(s) && cas_state(l, &s, s + 1, __ATOMIC_ACQUIRE) ? 0
                                                                          : rdlock_slow(l, NULL);
    fx_ann_post_lock(l, r ? FX_ANN_SHARED | FX_ANN_TRY | FX_ANN_FAILED : FX_ANN_SHARED, 0);
    return r;
}

int fx_rwlock_timedrdlock(fx_rwlock *l, const struct timespec *deadline)
{
    if (fx_bad_slot(l))
        return EINVAL;
    fx_ann_pre_lock(l, FX_ANN_SHARED | FX_ANN_TRY);
    uint32_t s = load_state(l);
    /* Acquire on success, as in fx_rwlock_rdlock. */
    int r = read_lockable(s) && cas_state(l, &s, s + 1, __ATOMIC_ACQUIRE)
                ? 0
                : rdlock_slow(l, deadline);
    fx_ann_post_lock(l, FX_ANN_SHARED | FX_ANN_TRY | (r ? FX_ANN_FAILED : 0), 0);
    return r;
}

int fx_rwlock_tryrdlock(fx_rwlock *l)
{
    if (fx_bad_slot(l))
        return EINVAL;
    fx_ann_pre_lock(l, FX_ANN_SHARED | FX_ANN_TRY);
    uint32_t s = load_state(l);
    int r;
    for (;;) {
        if (s & BAD) {
            r = EINVAL;
            break;
        }
        if (!read_lockable(s)) {
            r = (s & (COUNT | WP | RW | WW)) == MAXR ? EAGAIN : EBUSY;
            break;
        }
        /* Acquire on success; a failure only reloads s (another reader). */
        if (cas_state(l, &s, s + 1, __ATOMIC_ACQUIRE)) {
            r = 0;
            break;
        }
    }
    fx_ann_post_lock(l, FX_ANN_SHARED | FX_ANN_TRY | (r ? FX_ANN_FAILED : 0), 0);
    return r;
}

int fx_rwlock_wrlock(fx_rwlock *l)
{
    if (fx_bad_slot(l))
        return EINVAL;
    fx_ann_pre_lock(l, FX_ANN_EXCLUSIVE);
    uint32_t s = 0;
    /* Fast path from the all-zero state, acquire on success. */
    int r = cas_state(l, &s, WL, __ATOMIC_ACQUIRE) ? 0 : wrlock_slow(l, NULL);
    fx_ann_post_lock(l, r ? FX_ANN_TRY | FX_ANN_FAILED : FX_ANN_EXCLUSIVE, 0);
    return r;
}

int fx_rwlock_timedwrlock(fx_rwlock *l, const struct timespec *deadline)
{
    if (fx_bad_slot(l))
        return EINVAL;
    fx_ann_pre_lock(l, FX_ANN_TRY);
    uint32_t s = 0;
    int r = cas_state(l, &s, WL, __ATOMIC_ACQUIRE) ? 0 : wrlock_slow(l, deadline);
    fx_ann_post_lock(l, r ? FX_ANN_TRY | FX_ANN_FAILED : FX_ANN_TRY, 0);
    return r;
}

int fx_rwlock_trywrlock(fx_rwlock *l)
{
    if (fx_bad_slot(l))
        return EINVAL;
    fx_ann_pre_lock(l, FX_ANN_TRY);
    uint32_t s = load_state(l);
    int r;
    for (;;) {
        if (s & BAD) {
            r = EINVAL;
            break;
        }
        if ((s & COUNT) != 0) {
            r = EBUSY;
            break;
        }
        /* Acquire on success; waiting bits are kept for our unlock. */
        if (cas_state(l, &s, s | WL, __ATOMIC_ACQUIRE)) {
            r = 0;
            break;
        }
    }
    fx_ann_post_lock(l, r ? FX_ANN_TRY | FX_ANN_FAILED : FX_ANN_TRY, 0);
    return r;
}

int fx_rwlock_unlock(fx_rwlock *l)
{
    if (fx_bad_slot(l))
        return EINVAL;
    uint32_t s = load_state(l);
    if (s & BAD)
        return EINVAL;
    uint32_t c = s & COUNT;
    if (c == 0)
        return EPERM;
    /* The caller holds the lock, so the mode read here cannot change until
     * it releases: a writer's count stays WL, a reader's stays >= 1. */
    if (c == WL) {
        fx_ann_pre_unlock(l, FX_ANN_EXCLUSIVE);
        /* Release: the critical section happens-before the next acquire. */
        s = (uint32_t)__atomic_sub_fetch(&l->state, (int32_t)WL, __ATOMIC_RELEASE);
        if (s & (RW | WW))
            wake_waiters(l, s, true);
        fx_ann_post_unlock(l, FX_ANN_EXCLUSIVE);
    } else {
        fx_ann_pre_unlock(l, FX_ANN_SHARED);
        /* Release: the reads of the critical section happen-before the
         * next writer's acquire (no write may overtake them). */
        s = (uint32_t)__atomic_sub_fetch(&l->state, 1, __ATOMIC_RELEASE);
        if ((s & COUNT) == 0 && (s & (RW | WW)))
            wake_waiters(l, s, false);
        fx_ann_post_unlock(l, FX_ANN_SHARED);
    }
    return 0;
}
