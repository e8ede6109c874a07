/*
 * tests/fxspec.h - single-thread specifications of the state transitions of
 * the primitives whose words have many valid states, shared by the bad-state
 * table (tests/test_badstate.c) and the state fuzzer (tests/fuzz).
 *
 * Each function takes the slot values before one call by one thread, with
 * nobody else using the object and nobody asleep on it, and gives the result
 * the call returns and the slot values it leaves, as the state table at the
 * top of the primitive's source says. They are written from the tables, not
 * from the code: a disagreement is a bug of one or the other.
 */
#ifndef FXSPEC_H
#define FXSPEC_H

#include <errno.h>
#include <futexsync/barrier.h>
#include <futexsync/cond.h>
#include <futexsync/layout.h>
#include <futexsync/rwlock.h>
#include <stdbool.h>
#include <stdint.h>

/* How a timed call's deadline behaves: none (untimed), passed (or a short
 * one that passes while it waits), or an invalid tv_nsec. */
enum { FXSPEC_DL_NONE, FXSPEC_DL_PAST, FXSPEC_DL_BAD };

/* --- fx_rwlock (src/rwlock.c) ------------------------------------------------ */

#define FXSPEC_RW_R    0x007fffffu
#define FXSPEC_RW_MAXR ((uint32_t)FX_RWLOCK_MAX_READERS)
#define FXSPEC_RW_WL   ((uint32_t)FX_RWLOCK_WRITE_LOCKED)
#define FXSPEC_RW_HELD (FXSPEC_RW_R | FXSPEC_RW_WL)
#define FXSPEC_RW_BAD  0x1f000000u /* bits 24..28: never written */
#define FXSPEC_RW_WP   ((uint32_t)FX_RWLOCK_WRITER_PENDING)
#define FXSPEC_RW_RW   ((uint32_t)FX_RWLOCK_READERS_WAITING)
#define FXSPEC_RW_WW   ((uint32_t)FX_RWLOCK_WRITERS_WAITING)

/* The "wake" row, run by whoever leaves the lock free with waiting bits: WW:
 * clear it, advance writer_seq, wake one writer (none sleeps here, so it goes
 * on to the readers); RW: clear it, wake the readers. */
static inline uint32_t fxspec_rw_wake(uint32_t s, uint32_t *seq)
{
    if ((s & FXSPEC_RW_HELD) != 0)
        return s;
    if (s & FXSPEC_RW_WW) {
        s &= ~FXSPEC_RW_WW;
        *seq += 1;
    }
    return s & ~FXSPEC_RW_RW;
}

/* A read lock (rdlock, timedrdlock): returns the result; *s, *seq after.
 * RW alone keeps no slow-path reader out (it clears RW as it enters and
 * wakes the readers); WL, WP and WW do. */
static inline int fxspec_rw_rdlock(uint32_t *s, uint32_t *seq, int dl)
{
    (void)seq; /* a reader never moves writer_seq */
    uint32_t v = *s;
    if (v & FXSPEC_RW_BAD)
        return EINVAL;
    if ((v & ~FXSPEC_RW_R) == 0 && v < FXSPEC_RW_MAXR) {
        *s = v + 1;
        return 0;
    }
    /* The fast path's CAS failed: nothing changed (issue 19: no add and
     * undo, so no wake run by the reader either). */
    if (!(v & (FXSPEC_RW_WL | FXSPEC_RW_WP | FXSPEC_RW_WW))) {
        if ((v & FXSPEC_RW_R) >= FXSPEC_RW_MAXR)
            return EAGAIN;
        *s = (v + 1) & ~FXSPEC_RW_RW; /* a reader that enters clears RW */
        return 0;
    }
    if (dl == FXSPEC_DL_BAD)
        return EINVAL;
    if (dl == FXSPEC_DL_NONE && !(v & FXSPEC_RW_WL)) {
        /* Kept out by WP/WW alone and nobody renews them (writer_seq does
         * not move): after FXI_RWLOCK_STALE_NS the reader clears them and RW,
         * and comes in. */
        v &= ~(FXSPEC_RW_WP | FXSPEC_RW_WW | FXSPEC_RW_RW);
        if ((v & FXSPEC_RW_R) >= FXSPEC_RW_MAXR) {
            *s = v;
            return EAGAIN;
        }
        *s = v + 1;
        return 0;
    }
    *s = v | FXSPEC_RW_RW; /* a reader about to sleep */
    return ETIMEDOUT;      /* (blocks for ever with DL_NONE: WL is held) */
}

/* A writer that gives up (timeout, bad deadline) with state `old`: WP and
 * WW go; if WW was set, writer_seq advances for a wake (nobody sleeps in the
 * table) and, with no WL left, RW goes too (the readers are woken). */
static inline uint32_t fxspec_rw_give_up(uint32_t old, uint32_t *seq)
{
    uint32_t v = old & ~(FXSPEC_RW_WP | FXSPEC_RW_WW);
    if (old & FXSPEC_RW_WW)
        *seq += 1;
    if (!(v & FXSPEC_RW_WL))
        v &= ~FXSPEC_RW_RW;
    return v;
}

/* A write lock (wrlock, timedwrlock). */
static inline int fxspec_rw_wrlock(uint32_t *s, uint32_t *seq, int dl)
{
    uint32_t v = *s;
    if (v & FXSPEC_RW_BAD)
        return EINVAL;
    if ((v & FXSPEC_RW_HELD) == 0) {
        *s = (v & ~FXSPEC_RW_WP) | FXSPEC_RW_WL;
        return 0;
    }
    /* Held: the writer sets WP while it spins; on a bad deadline it gives
     * up; otherwise it sets WP and WW, renews (writer_seq += 1), sleeps and,
     * past its deadline, gives up. */
    if (dl == FXSPEC_DL_BAD) {
        *s = fxspec_rw_give_up(v | FXSPEC_RW_WP, seq);
        return EINVAL;
    }
    *seq += 1;
    *s = fxspec_rw_give_up(v | FXSPEC_RW_WP | FXSPEC_RW_WW, seq);
    return ETIMEDOUT; /* (blocks for ever with DL_NONE) */
}

static inline int fxspec_rw_tryrdlock(uint32_t *s)
{
    uint32_t v = *s;
    if (v & FXSPEC_RW_BAD)
        return EINVAL;
    if (v & (FXSPEC_RW_WL | FXSPEC_RW_WP | FXSPEC_RW_WW))
        return EBUSY;
    if ((v & FXSPEC_RW_R) >= FXSPEC_RW_MAXR)
        return EAGAIN;
    *s = v + 1;
    return 0;
}

static inline int fxspec_rw_trywrlock(uint32_t *s)
{
    uint32_t v = *s;
    if (v & FXSPEC_RW_BAD)
        return EINVAL;
    if (v & FXSPEC_RW_HELD)
        return EBUSY;
    *s = v | FXSPEC_RW_WL; /* waiting bits kept for our unlock */
    return 0;
}

/* fx_rwlock_unlock: releases the mode the state shows. */
static inline int fxspec_rw_unlock(uint32_t *s, uint32_t *seq)
{
    uint32_t v = *s;
    if (v & FXSPEC_RW_BAD)
        return EINVAL;
    if ((v & FXSPEC_RW_HELD) == 0)
        return EPERM;
    *s = fxspec_rw_wake((v & FXSPEC_RW_WL) ? v - FXSPEC_RW_WL : v - 1, seq);
    return 0;
}

static inline int fxspec_rw_rdunlock(uint32_t *s, uint32_t *seq)
{
    uint32_t v = *s;
    if (v & FXSPEC_RW_BAD)
        return EINVAL;
    if ((v & FXSPEC_RW_WL) || (v & FXSPEC_RW_R) == 0)
        return EPERM;
    *s = fxspec_rw_wake(v - 1, seq);
    return 0;
}

static inline int fxspec_rw_wrunlock(uint32_t *s, uint32_t *seq)
{
    uint32_t v = *s;
    if (v & FXSPEC_RW_BAD)
        return EINVAL;
    if (!(v & FXSPEC_RW_WL))
        return EPERM;
    *s = fxspec_rw_wake(v - FXSPEC_RW_WL, seq);
    return 0;
}

/* Whether an untimed lock returns at once (does not sleep for ever). */
static inline bool fxspec_rw_rd_nonblocking(uint32_t s)
{
    uint32_t seq = 0;
    return fxspec_rw_rdlock(&s, &seq, FXSPEC_DL_PAST) != ETIMEDOUT;
}
static inline bool fxspec_rw_wr_nonblocking(uint32_t s)
{
    uint32_t seq = 0;
    return fxspec_rw_wrlock(&s, &seq, FXSPEC_DL_PAST) != ETIMEDOUT;
}

/* --- fx_cond (src/cond.c) ------------------------------------------------------ */

/* The mutex slot: 0 none, 2 several (MIXED), 3 any fx_rmutex (RMUTEX), or an
 * fx_mutex token = 0 or 1 (mod 4). */
static inline bool fxspec_cond_token_written(int32_t t)
{
    return (t & 3) == 0 || (t & 3) == 1 || t == 2 || t == 3;
}

/* The counter's next value: ARMED cleared, BCAST kept (mod 2^30). */
static inline int32_t fxspec_cond_advance(int32_t s)
{
    return (int32_t)(((uint32_t)s & ~3u) + 4u) | (s & FX_COND_BCAST);
}

/* --- fx_barrier (src/barrier.c) ------------------------------------------------ */

#define FXSPEC_B_ARRIVED 0x7fffu
#define FXSPEC_B_ROUND   0xffff0000u
#define FXSPEC_B_ROUND_1 0x10000u

/* A wait passing n parties (1 .. MAX) on {*state, *parties}: the first wait
 * records n; a different recorded count, or arrivals >= parties, is EINVAL;
 * the last arrival opens the next round (FX_BARRIER_SERIAL_THREAD); an
 * earlier one times out and withdraws, leaving the sleepers bit it set. */
static inline int fxspec_barrier_wait(uint32_t *state, int32_t *parties, int32_t n, int dl)
{
    if (n < 1 || n > FX_BARRIER_MAX_PARTIES)
        return EINVAL;
    if (*parties == 0)
        *parties = n;
    else if (*parties != n)
        return EINVAL;
    uint32_t s = *state, a = s & FXSPEC_B_ARRIVED;
    if (a >= (uint32_t)n)
        return EINVAL;
    if (a + 1 == (uint32_t)n) {
        *state = (s & FXSPEC_B_ROUND) + FXSPEC_B_ROUND_1;
        return FX_BARRIER_SERIAL_THREAD;
    }
    if (dl == FXSPEC_DL_BAD)
        return EINVAL;
    *state = s | FX_BARRIER_SLEEPERS;
    return ETIMEDOUT; /* (blocks for ever with DL_NONE) */
}

#endif /* FXSPEC_H */
