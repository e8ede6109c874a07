/*
 * src/rwlock.c - the reader-writer lock.
 *
 * The state word (the design; keep it true). R = bits 0..22, the readers.
 *
 *   field       meaning
 *   R           readers holding the lock, 0 .. MAXR; nobody else: a reader
 *               adds itself only by a CAS that makes it a holder
 *   bit 23  WL  a writer holds the lock (only ever set while R = 0)
 *   bits 24..28 set: never written by the library -> EINVAL
 *   bit 29  WP  a writer waits for the lock (spinning or asleep): new
 *               readers stay out
 *   bit 30  RW  readers may sleep on `state` (FUTEX_WAIT on the state word);
 *               keeps the fast path out, not a reader on the slow path
 *   bit 31  WW  writers may sleep on `writer_seq`; keeps new readers out
 *   "free" means R = 0 and WL clear; the bits WP, RW, WW may remain.
 *
 *   writer_seq  the writers' futex word: advanced by every wake of a writer
 *               (before the FUTEX_WAKE) and by a waiting writer's
 *               declaration of its intent (its first sleep in a call, and
 *               when it sets WP/WW again); never at a recheck, so while
 *               writers wait it moves only at a hand-off
 *
 *   transition                       by                          system call
 *   R += 1 (CAS: from 0, else from   reader, fast path           none
 *     the value it failed on) only
 *     if no WL/WP/RW/WW and R < MAXR
 *   R += 1, -RW (CAS), no WL/WP/WW   reader, slow path           FUTEX_WAKE(state)
 *                                                                 if RW was set
 *   R += 1 (CAS), no WL/WP/WW        tryrdlock                   none
 *   R -= 1 (CAS, only if R > 0 and   read unlock, rdunlock       see "wake"
 *     no WL; else EPERM, unchanged)
 *   free -> +WL, -WP (CAS)           writer; +WW if it has slept none
 *   -WL (CAS, only if WL; else       write unlock, wrunlock      see "wake"
 *     EPERM, unchanged)
 *   +WP (not free)                   writer waiting (spinning)   none
 *   -WP -WW                          writer giving up (timeout,  see "give-up"
 *                                      bad deadline)
 *   +RW (WL, WP or WW set)           reader about to sleep       FUTEX_WAIT(state)
 *   +WW +WP (not free)               writer about to sleep       FUTEX_WAIT(seq)
 *   writer_seq += 1                  writer about to sleep, the  none
 *                                      first time in its call or
 *                                      when it set WP/WW
 *   (count the sleepers of seq)      reader kept out by WP/WW    FUTEX_CMP_REQUEUE
 *                                      alone, seq unchanged for     (seq onto itself,
 *                                      FXI_RWLOCK_STALE_NS           nobody woken)
 *   -WP -WW -RW (no WL; seq          reader kept out by WP/WW    if WW was set:
 *     unchanged FXI_RWLOCK_STALE_NS,    alone: the writer is gone   seq += 1,
 *     nobody asleep on it)             (dead, or of another        FUTEX_WAKE(seq, 1);
 *                                      process image: fork)        FUTEX_WAKE(state)
 *                                                                   if RW was set
 *   sleeps, wake, give-up: docs/design/rwlock.md, "Sleeps, wakes and give-ups"
 *
 * Invariant (checked by models/rwlock.pml): WL (taken only by a CAS on a
 * free lock, R = 0) and R are the only bits that exclude; WP, WW and RW are
 * preference and wake-duty bits, so clearing them costs fairness or latency,
 * never mutual exclusion. R counts exactly the readers that hold the lock (no
 * reader is ever counted on its way in or out), so a process killed at any
 * step of a lock call leaves no trace in R. While readers sleep RW is set,
 * and while writers sleep WW is set, or a woken thread, a holder or a writer
 * giving up is responsible for waking them; every sleeper also re-reads the
 * word at its recheck, so a duty lost to a death costs at most a recheck
 * period. A writer sleeps only while writer_seq holds
 * the value it read before its last look at the state. Whoever clears WW
 * wakes a writer (writer_seq += 1 first) and whoever clears RW wakes the
 * readers, so clearing a duty bit never leaves a sleeper without a wake,
 * whatever scope its own check found. A writer intent keeps readers out
 * only while it is declared anew (writer_seq moves) or a writer sleeps on
 * writer_seq: a writer that is gone (dead, or a thread of another process
 * image) keeps nobody out for more than about FXI_RWLOCK_STALE_NS.
 *
 * Who wakes whom, the writer intent, the fairness and spin policies and the
 * reader fast path: docs/design/rwlock.md.
 */
#include "futexsync/rwlock.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal/annotate.h"
#include "internal/deadline.h"
#include "internal/fault.h"
#include "internal/futex.h"
#include "internal/sleep.h"
#include "internal/spin.h"

#ifndef FXI_RWLOCK_SPIN
#define FXI_RWLOCK_SPIN 100
#endif

/* Writers' first recheck (then the engine's looks), and the reader's watch
 * of a stale writer intent: docs/design/rwlock.md, "Writer intent". */
#define FXI_RWLOCK_WRITER_RECHECK_NS (250 * 1000000LL)
#define FXI_RWLOCK_WATCH_NS (100 * 1000000LL)
#define FXI_RWLOCK_STALE_NS (600 * 1000000LL)

#define READERS 0x007fffffu
#define MAXR    0x00400000u /* FX_RWLOCK_MAX_READERS */
#define WL      0x00800000u
#define HELD    (READERS | WL)
#define BAD     0x1f000000u
#define WP      0x20000000u
#define RW      0x40000000u
#define WW      0x80000000u

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

/* A new reader may enter: no writer holding, pending or waiting, nobody
 * asleep, room for one more. */
static inline bool read_lockable(uint32_t s)
{
    return (s & ~READERS) == 0 && s < MAXR;
}

int fx_rwlock_init(fx_rwlock *l)
{
    if (fxi_bad_slot(l))
        return EINVAL;
    /* Relaxed: init happens before any sharing, like a memset. */
    __atomic_store_n(&l->state, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&l->writer_seq, 0, __ATOMIC_RELAXED);
    return 0;
}

/* Wakes one writer sleeping on writer_seq; returns how many woke (0 or 1). */
static int wake_writer(fx_rwlock *l)
{
    if (fxi_ann_on())
        fxi_ann_own_words(&l->writer_seq, sizeof l->writer_seq);
    /* Release: a writer whose acquire load of writer_seq sees the new value
     * also sees the state change (WW cleared) the caller made before.
     * @step rwlock.wake_writer.seq */
    __atomic_fetch_add(&l->writer_seq, 1, __ATOMIC_RELEASE);
    /* @step rwlock.wake_writer.wake */
    return fxi_futex_wake_raw(&l->writer_seq, 1, FXI_BITSET_ANY);
}

/* The "wake" row of the table, for a caller that has just made the lock free
 * (or dropped WP from a free lock) and left waiting bits in s. */
__attribute__((noinline, cold)) static void wake_waiters(fx_rwlock *l, uint32_t s)
{
    for (;;) {
        /* @step rwlock.wake_waiters.held */
        if ((s & HELD) != 0 || (s & BAD) != 0)
            return; /* held again: that holder's release wakes the rest */
        /* @step rwlock.wake_waiters.clear_ww */
        if (s & WW) {
            /* Relaxed: clearing the bit publishes no data; wake_writer's
             * release orders it for the writer. On failure s is reloaded. */
            if (!cas_state(l, &s, s & ~WW, __ATOMIC_RELAXED))
                continue;
            /* @step rwlock.wake_waiters.writer_woken */
            if (wake_writer(l) > 0 || !(s & RW))
                return;
            /* No writer was asleep (they timed out, or are awake and will
             * look again): the readers must not be left asleep for it.
             * @step rwlock.wake_waiters.no_writer */
            s &= ~WW;
        /* @step rwlock.wake_waiters.clear_rw */
        } else if (s & RW) {
            /* Relaxed, as above; the readers re-read the state. */
            if (!cas_state(l, &s, s & ~RW, __ATOMIC_RELAXED))
                continue;
            /* @step rwlock.wake_waiters.wake_readers */
            fxi_futex_wake_raw(&l->state, INT32_MAX, FXI_BITSET_ANY);
            /* @step rwlock.wake_waiters.done */
            return;
        /* @step rwlock.wake_waiters.nobody */
        } else {
            return;
        }
    }
}

/* Takes one reader back (read unlock), from the guess s: 0, or EPERM when
 * the word holds no read lock (R = 0, or WL), EINVAL for a bad word; then
 * nothing was changed. A CAS, never a subtraction taken back: a call by a
 * thread that holds nothing must not show others a word it made up for an
 * instant (R wrapped into WL and the bad bits), which would make a correct
 * writer's unlock fail and its lock give EINVAL. */
static inline int reader_release(fx_rwlock *l, uint32_t s)
{
    for (;;) {
        if (s & BAD)
            return EINVAL;
        if ((s & WL) || (s & READERS) == 0)
            return EPERM;
        /* Release: the reads of the critical section happen-before the
         * next writer's acquire (no write of its may overtake them). On
         * failure s is reloaded (relaxed, in cas_state).
         * @step rwlock.reader_release.sub */
        if (cas_state(l, &s, s - 1, __ATOMIC_RELEASE))
            break;
    }
    s -= 1;
    /* @step rwlock.reader_release.wake */
    if ((s & HELD) == 0 && (s & (RW | WW)) != 0)
        wake_waiters(l, s);
    return 0;
}

/* reader_release out of line, for the read unlock whose first CAS (the
 * uncontended case) failed: its inline path then needs no stack frame. */
__attribute__((noinline)) static int reader_release_more(fx_rwlock *l, uint32_t s)
{
    return reader_release(l, s);
}

/* A reader kept out only by WP/WW (no WL) watches writer_seq: the intent is
 * stale when it has not moved for FXI_RWLOCK_STALE_NS and no writer sleeps on
 * it (the kernel's queue of the word is a live writer's sign of life:
 * docs/design/rwlock.md, "Writer intent"). */
struct stale_watch {
    bool on;               /* a value is being watched */
    bool writer_seen;      /* a look found a writer asleep on writer_seq */
    int32_t seq;           /* the writer_seq seen */
    struct timespec since; /* when it was first seen, or last found alive */
};

/* How many threads sleep on writer_seq while it holds seq (the writers
 * asleep, of every process for shared memory, of this one for private
 * memory), or -EAGAIN when it does not: a requeue of the word onto itself
 * that wakes nobody and moves nobody (the kernel counts the sleepers it
 * would requeue), a look that costs the sleepers nothing. */
static int writers_asleep(fx_rwlock *l, int32_t seq)
{
    /* @step rwlock.intent_is_stale.probe */
    return fxi_futex_requeue_raw(&l->writer_seq, seq, 0, &l->writer_seq, INT32_MAX);
}

/* True when the writer intent in the reader's view is stale (above);
 * otherwise notes what it sees. */
static bool intent_is_stale(fx_rwlock *l, struct stale_watch *w)
{
    if (fxi_ann_on())
        fxi_ann_own_words(&l->writer_seq, sizeof l->writer_seq);
    /* Relaxed: only a sign of life; nothing is read on its strength. */
    int32_t seq = __atomic_load_n(&l->writer_seq, __ATOMIC_RELAXED);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!w->on || seq != w->seq) {
        w->on = true;
        w->seq = seq;
        w->since = now;
        return false;
    }
    struct timespec limit = fxi_ts_add_ns(w->since, FXI_RWLOCK_STALE_NS);
    if (fxi_ts_before(&now, &limit))
        return false;
    /* 0 also for a failure of the call (none is known): readers behind a
     * gone writer must get in; a live one loses its turn at worst. */
    int n = writers_asleep(l, seq);
    if (n == 0)
        return true;
    /* A writer sleeps on it (it lives: watch again from now), or
     * writer_seq moved (watch the new value). */
    w->on = n > 0;
    w->since = now;
    w->writer_seen = w->writer_seen || n > 0;
    return false;
}

/* s: the state the fast path's CAS found. */
__attribute__((noinline, cold)) static int rdlock_slow(fx_rwlock *l,
                                                       const struct timespec *deadline, uint32_t s)
{
    /* After the fast path's failed CAS: a reader killed here is counted
     * nowhere (tests/test_rwlock.c kills one at this point). */
    FXI_FAULT("rwlock.rdlock.slow");
    struct fxi_recheck rc FXI_RECHECK_CALL = FXI_RECHECK_INIT_SCOPED(FXI_RECHECK_NS);
    struct stale_watch watch = {false, false, 0, {0, 0}};
    bool checked = false;
    int spins = 0;
    for (;;) {
        if (s & BAD)
            return EINVAL;
        /* @step rwlock.rdlock_slow.enter */
        if (!(s & (WL | WP | WW))) {
            /* RW alone keeps no reader out: it is left by readers asleep
             * behind a writer that is gone (it gave up, or died after a
             * wake picked it), or a release is about to clear it. */
            if ((s & READERS) >= MAXR)
                return EAGAIN;
            /* Acquire: the reader sees what the last writer wrote. RW goes
             * with our entry, and we wake the readers it stands for: nothing
             * keeps them out either (and the fast path opens again). */
            if (cas_state(l, &s, (s + 1) & ~RW, __ATOMIC_ACQUIRE)) {
                /* @step rwlock.rdlock_slow.wake_rw */
                if (s & RW)
                    fxi_futex_wake_raw(&l->state, INT32_MAX, FXI_BITSET_ANY);
                return 0;
            }
            continue;
        }
        /* @step rwlock.rdlock_slow.spin */
        if (spins < FXI_RWLOCK_SPIN) {
            spins++;
            fxi_cpu_relax();
            s = load_state(l);
            continue;
        }
        if (!checked) {
            /* tv_nsec is checked only now that we would block (POSIX). */
            if (fxi_deadline_check(deadline))
                return EINVAL;
            checked = true;
        }
        /* The sleep's own bound: the caller's deadline, or the end of the
         * watch (below). */
        const struct timespec *bound = deadline;
        struct timespec watch_end;
        if (s & WL) {
            watch.on = false; /* a holder, not an intent: its release wakes */
            rc.period_ns = FXI_RECHECK_NS;
        } else {
            rc.period_ns = FXI_RWLOCK_WATCH_NS;
            /* In every memory: a writer asleep is counted whatever scope
             * either side's check found, and in private memory a fork
             * child is not kept out by its parent's writers. */
            if (intent_is_stale(l, &watch)) {
                /* No writer declared an intent for the stale time and
                 * none sleeps on writer_seq: take WP/WW away (and RW,
                 * waking the readers it stands for). A live writer that
                 * was only slow (on its way to its sleep, or not run for
                 * the stale time) sets them again at its next look; it
                 * loses its turn, never mutual exclusion (WL is what
                 * excludes, and it is taken by CAS on a free lock).
                 * Relaxed: clears bits, publishes no data.
                 * @step rwlock.rdlock_slow.stale */
                if (cas_state(l, &s, s & ~(WP | WW | RW), __ATOMIC_RELAXED)) {
                    /* Whoever clears WW wakes a writer, as wake_waiters
                     * does: a writer on its way to sleep on writer_seq
                     * (after its look at WW) finds it moved, and one that
                     * went to sleep after the count is woken.
                     * @step rwlock.rdlock_slow.stale_wake_writer */
                    if (s & WW)
                        wake_writer(l);
                    /* @step rwlock.rdlock_slow.stale_wake */
                    if (s & RW)
                        fxi_futex_wake_raw(&l->state, INT32_MAX, FXI_BITSET_ANY);
                    s &= ~(WP | WW | RW);
                    watch.on = false;
                }
                continue;
            }
            /* The sleep ends when the watch is due (no word moves as an
             * intent goes stale), but in private memory once a writer of
             * this process was found asleep: it wakes us when it leaves. */
            if (!fxi_recheck_private(&rc) || !watch.writer_seen) {
                watch_end = fxi_ts_add_ns(watch.since, FXI_RWLOCK_STALE_NS);
                if (deadline == NULL || fxi_ts_before(&watch_end, deadline))
                    bound = &watch_end;
            }
        }
        /* @step rwlock.rdlock_slow.mark_rw */
        if (!(s & RW)) {
            /* Relaxed: the bit only makes the releaser wake us; the state
             * is re-read after the sleep. On failure s is reloaded. */
            if (!cas_state(l, &s, s | RW, __ATOMIC_RELAXED))
                continue;
            s |= RW;
        }
        /* A bounded sleep: a wake consumed by a reader that died before it
         * returned (or a writer's, see wake_waiters) is made up for by the
         * recheck. @step rwlock.rdlock_slow.sleep */
        int r = fxi_futex_sleep(&l->state, (int32_t)s, bound, &rc);
        /* @step rwlock.rdlock_slow.timed_out */
        if (r == ETIMEDOUT && bound == deadline)
            return ETIMEDOUT; /* not woken: no wake is lost by leaving */
        FXI_FAULT("rwlock.rdlock.slept");
        /* Woken, the state changed, a signal, or a recheck: look again with
         * the same absolute deadline, spinning first only if the state
         * moved (a recheck that finds nothing new costs no spin).
         * @step rwlock.rdlock_slow.again */
        uint32_t slept_on = s;
        s = load_state(l);
        spins = s == slept_on ? FXI_RWLOCK_SPIN : 0;
    }
}

/* The reader fast path: 0, or the slow path's result. A CAS, never an
 * add-then-undo: a reader counted in R only on its way to the check could
 * die there (SIGKILL) and stay counted for good, a phantom reader that every
 * later writer would wait for. The first CAS guesses the free,
 * idle word, so the uncontended lock makes one RMW and no load; with other
 * readers inside it fails with their count, and rdlock_shared's CAS adds us
 * to it (out of line, so that the inline path needs no stack frame). Acquire
 * on success: the reader sees what the last writer wrote. A failure only
 * hands the current state on (relaxed, in cas_state). */
__attribute__((noinline)) static int rdlock_shared(fx_rwlock *l,
                                                  const struct timespec *deadline, uint32_t s)
{
    /* @step rwlock.rdlock.cas_more */
    if (read_lockable(s) && cas_state(l, &s, s + 1, __ATOMIC_ACQUIRE))
        return 0;
    return rdlock_slow(l, deadline, s);
}

static inline int rdlock_common(fx_rwlock *l, const struct timespec *deadline)
{
    uint32_t s = 0;
    /* @step rwlock.rdlock.cas */
    if (cas_state(l, &s, 1, __ATOMIC_ACQUIRE))
        return 0;
    return rdlock_shared(l, deadline, s); /* out of line: no frame here */
}

/* Wakes the readers sleeping on `state` if RW is set and no writer holds the
 * lock or says it waits: they may enter now. s: the state the caller left. */
static void wake_readers_if_open(fx_rwlock *l, uint32_t s)
{
    while ((s & RW) && !(s & (WL | WP | WW | BAD))) {
        /* Relaxed: clearing the bit publishes no data; the readers re-read
         * the state. On failure s is reloaded. */
        if (cas_state(l, &s, s & ~RW, __ATOMIC_RELAXED)) {
            fxi_futex_wake_raw(&l->state, INT32_MAX, FXI_BITSET_ANY);
            return;
        }
    }
}

/* A writer that gives up (timeout, bad deadline): takes back WP and WW, the
 * bits that keep new readers out, whoever set them, so that no reader waits
 * for a writer that is gone. Writers that still wait are not forgotten: a
 * spinning one sets WP again at its next look; a sleeping one had set WW,
 * and it is woken here (writer_seq advances) and sets WP and WW again when
 * it finds the lock held. Only if no writer was asleep are the readers that
 * WP/WW kept out woken, when nobody holds the lock for writing. */
static void writer_give_up(fx_rwlock *l)
{
    /* Relaxed: publishes no data; the wakes below read the result.
     * @step rwlock.writer_give_up.clear_wp */
    uint32_t old = (uint32_t)__atomic_fetch_and(&l->state, (int32_t)~(WP | WW),
                                                __ATOMIC_RELAXED);
    uint32_t s = old & ~(WP | WW);
    /* @step rwlock.writer_give_up.wake */
    if ((old & WW) && wake_writer(l) > 0)
        return; /* that writer sets WP and WW again, or takes the lock */
    wake_readers_if_open(l, s);
}

__attribute__((noinline, cold)) static int wrlock_slow(fx_rwlock *l,
                                                       const struct timespec *deadline)
{
    uint32_t s = load_state(l);
    uint32_t slept = 0; /* WW once this writer has slept: others may sleep too */
    struct fxi_recheck rc FXI_RECHECK_CALL = FXI_RECHECK_INIT_SCOPED(FXI_RWLOCK_WRITER_RECHECK_NS);
    bool declared = false; /* this call has advanced writer_seq for its intent */
    bool checked = false;
    int spins = 0;
    for (;;) {
        if (s & BAD)
            return EINVAL;
        /* @step rwlock.wrlock_slow.take */
        if ((s & HELD) == 0) {
            /* Acquire: the writer sees what every earlier holder wrote. WP
             * is ours (or another spinner's, which sets it again). */
            if (cas_state(l, &s, (s & ~WP) | WL | slept, __ATOMIC_ACQUIRE))
                return 0;
            continue;
        }
        /* @step rwlock.wrlock_slow.spin */
        if (spins < FXI_RWLOCK_SPIN) {
            if (!(s & WP)) {
                /* Relaxed: WP only keeps new readers out while we wait. */
                if (!cas_state(l, &s, s | WP, __ATOMIC_RELAXED))
                    continue;
            }
            spins++;
            fxi_cpu_relax();
            s = load_state(l);
            continue;
        }
        if (!checked) {
            if (fxi_deadline_check(deadline)) {
                writer_give_up(l);
                return EINVAL;
            }
            checked = true;
        }
        bool declare = !declared;
        /* @step rwlock.wrlock_slow.mark_ww */
        if ((s & (WP | WW)) != (WP | WW)) {
            /* Relaxed, as for RW in rdlock_slow. WP again too: the writer
             * whose acquisition cleared it did not know about us, and a
             * waker that wakes us clears WW, so WP is what keeps new readers
             * out until we are in. */
            if (!cas_state(l, &s, s | WP | WW, __ATOMIC_RELAXED))
                continue;
            declare = true; /* the bits are (again) ours: say so at once */
        }
        slept = WW;
        if (fxi_ann_on())
            fxi_ann_own_words(&l->writer_seq, sizeof l->writer_seq);
        if (declare) {
            /* The declaration of the intent: a reader watching writer_seq
             * (intent_is_stale) starts its stale time again. Once per call
             * and whenever the bits become ours again, never at a recheck:
             * writer_seq is the word the other writers sleep on, and while
             * they wait it moves only at a hand-off (a writer's sleep is
             * its sign of life, counted by the readers). Relaxed: as an RMW
             * it continues the release sequence of a waker's increment, so
             * the acquire load below still pairs with that waker.
             * @step rwlock.wrlock_slow.renew */
            __atomic_fetch_add(&l->writer_seq, 1, __ATOMIC_RELAXED);
            declared = true;
        }
        /* Acquire: pairs with wake_writer's release, so that if we see its
         * new sequence number we also see the WW it cleared (below).
         * @step rwlock.wrlock_slow.seq */
        int32_t seq = __atomic_load_n(&l->writer_seq, __ATOMIC_ACQUIRE);
        /* @step rwlock.wrlock_slow.recheck */
        s = load_state(l);
        /* @step rwlock.wrlock_slow.no_sleep */
        if ((s & HELD) == 0 || !(s & WW))
            continue; /* freed, or a waker took our WW: do not sleep */
        /* A woken writer or a releaser killed in the wake window: the others
         * look again once the engine sees the state move (src/sleep.c). */

        rc.watch = (const int32_t *)&l->state;
        rc.watch_value = (int32_t)s;
        /* @step rwlock.wrlock_slow.sleep */
        int r = fxi_futex_sleep(&l->writer_seq, seq, deadline, &rc);
        /* @step rwlock.wrlock_slow.timed_out */
        if (r == ETIMEDOUT) {
            writer_give_up(l);
            return ETIMEDOUT;
        }
        FXI_FAULT("rwlock.wrlock.slept");
        /* Spin again first only if something moved (as for readers).
         * @step rwlock.wrlock_slow.again */
        uint32_t slept_on = s;
        s = load_state(l);
        spins = s == slept_on && __atomic_load_n(&l->writer_seq, __ATOMIC_RELAXED) == seq
                    ? FXI_RWLOCK_SPIN
                    : 0;
    }
}

int fx_rwlock_rdlock(fx_rwlock *l)
{
    if (fxi_bad_slot(l))
        return EINVAL;
    const bool on = fxi_ann_on(); /* one look at the race-detector probe */
    if (on)
        fxi_ann_pre_lock(l, FXI_ANN_SHARED);
    int r = rdlock_common(l, NULL);
    if (on)
        fxi_ann_post_lock(l, r ? FXI_ANN_SHARED | FXI_ANN_TRY | FXI_ANN_FAILED : FXI_ANN_SHARED, 0);
    return r;
}

int fx_rwlock_timedrdlock(fx_rwlock *l, const struct timespec *deadline)
{
    if (fxi_bad_slot(l))
        return EINVAL;
    const bool on = fxi_ann_on(); /* one look at the race-detector probe */
    if (on)
        fxi_ann_pre_lock(l, FXI_ANN_SHARED | FXI_ANN_TRY);
    int r = rdlock_common(l, deadline);
    if (on)
        fxi_ann_post_lock(l, FXI_ANN_SHARED | FXI_ANN_TRY | (r ? FXI_ANN_FAILED : 0), 0);
    return r;
}

int fx_rwlock_tryrdlock(fx_rwlock *l)
{
    if (fxi_bad_slot(l))
        return EINVAL;
    const bool on = fxi_ann_on(); /* one look at the race-detector probe */
    if (on)
        fxi_ann_pre_lock(l, FXI_ANN_SHARED | FXI_ANN_TRY);
    uint32_t s = load_state(l);
    int r;
    for (;;) {
        if (s & BAD) {
            r = EINVAL;
            break;
        }
        if (s & (WL | WP | WW)) {
            r = EBUSY; /* a writer holds or waits (RW alone is no writer) */
            break;
        }
        if ((s & READERS) >= MAXR) {
            r = EAGAIN;
            break;
        }
        /* Acquire on success; a failure only reloads s (another reader). */
        if (cas_state(l, &s, s + 1, __ATOMIC_ACQUIRE)) {
            r = 0;
            break;
        }
    }
    if (on)
        fxi_ann_post_lock(l, FXI_ANN_SHARED | FXI_ANN_TRY | (r ? FXI_ANN_FAILED : 0), 0);
    return r;
}

/* wrlock and timedwrlock; `flags` is the race detector's view (a timed lock
 * is a try: it may fail). */
static inline int rwlock_wracquire(fx_rwlock *l, const struct timespec *deadline,
                                   unsigned flags)
{
    if (fxi_bad_slot(l))
        return EINVAL;
    const bool on = fxi_ann_on(); /* one look at the race-detector probe */
    if (on)
        fxi_ann_pre_lock(l, flags);
    /* @step rwlock.wracquire.fast */
    uint32_t s = 0;
    /* Fast path from the all-zero state, acquire on success. */
    int r = cas_state(l, &s, WL, __ATOMIC_ACQUIRE) ? 0 : wrlock_slow(l, deadline);
    if (on)
        fxi_ann_post_lock(l, r ? flags | FXI_ANN_FAILED : flags, 0);
    return r;
}

int fx_rwlock_wrlock(fx_rwlock *l)
{
    return rwlock_wracquire(l, NULL, FXI_ANN_EXCLUSIVE);
}

int fx_rwlock_timedwrlock(fx_rwlock *l, const struct timespec *deadline)
{
    return rwlock_wracquire(l, deadline, FXI_ANN_TRY);
}

int fx_rwlock_trywrlock(fx_rwlock *l)
{
    if (fxi_bad_slot(l))
        return EINVAL;
    const bool on = fxi_ann_on(); /* one look at the race-detector probe */
    if (on)
        fxi_ann_pre_lock(l, FXI_ANN_TRY);
    uint32_t s = load_state(l);
    int r;
    for (;;) {
        if (s & BAD) {
            r = EINVAL;
            break;
        }
        if ((s & HELD) != 0) {
            r = EBUSY;
            break;
        }
        /* Acquire on success; waiting bits are kept for our unlock. */
        if (cas_state(l, &s, s | WL, __ATOMIC_ACQUIRE)) {
            r = 0;
            break;
        }
    }
    if (on)
        fxi_ann_post_lock(l, r ? FXI_ANN_TRY | FXI_ANN_FAILED : FXI_ANN_TRY, 0);
    return r;
}

/* Releases a write hold, from the guess s: 0, or EPERM when the word has
 * no WL, EINVAL for a bad word; then nothing was changed. A CAS for the
 * same reason as reader_release: a subtraction of WL from a word without it
 * would borrow into the bad bits. */
static inline int writer_release(fx_rwlock *l, uint32_t s)
{
    for (;;) {
        if (s & BAD)
            return EINVAL;
        if (!(s & WL))
            return EPERM;
        /* Release: the critical section happens-before the next acquire.
         * On failure s is reloaded (relaxed, in cas_state).
         * @step rwlock.writer_release.sub */
        if (cas_state(l, &s, s - WL, __ATOMIC_RELEASE))
            break;
    }
    s -= WL;
    /* @step rwlock.writer_release.wake */
    if ((s & HELD) == 0 && (s & (RW | WW)) != 0)
        wake_waiters(l, s);
    return 0;
}

/* writer_release out of line, for wrunlock (as reader_release_more). */
__attribute__((noinline)) static int writer_release_more(fx_rwlock *l, uint32_t s)
{
    return writer_release(l, s);
}

/* fx_rwlock_unlock under a race detector: the mode is read first, so that
 * the release is announced as what it is, and a call on a lock not held is
 * not announced at all. */
__attribute__((noinline)) static int unlock_announced(fx_rwlock *l)
{
    uint32_t s = load_state(l);
    if ((s & BAD) != 0 || (s & HELD) == 0)
        return (s & BAD) ? EINVAL : EPERM;
    int r;
    if (s & WL) {
        fxi_ann_pre_unlock(l, FXI_ANN_EXCLUSIVE);
        r = writer_release_more(l, s);
        fxi_ann_post_unlock(l, FXI_ANN_EXCLUSIVE);
    } else {
        fxi_ann_pre_unlock(l, FXI_ANN_SHARED);
        r = reader_release_more(l, s);
        fxi_ann_post_unlock(l, FXI_ANN_SHARED);
    }
    return r;
}

int fx_rwlock_unlock(fx_rwlock *l)
{
    if (fxi_bad_slot(l))
        return EINVAL;
    if (fxi_ann_on()) /* one look at the race-detector probe */
        return unlock_announced(l);
    /* The mode, from the word (a holder keeps it until it releases): the
     * first CAS is wrunlock's or rdunlock's from the uncontended state; when
     * it fails, the out-of-line loop checks the mode again (EPERM, EINVAL).
     * No stack frame on this path. Release, as in reader_release and
     * writer_release; on failure e is the state. */
    uint32_t s = load_state(l);
    uint32_t e = (s & WL) ? WL : 1;
    if (cas_state(l, &e, 0, __ATOMIC_RELEASE))
        return 0;
    return (s & WL) ? writer_release_more(l, e) : reader_release_more(l, e);
}

int fx_rwlock_rdunlock(fx_rwlock *l)
{
    if (fxi_bad_slot(l))
        return EINVAL;
    const bool on = fxi_ann_on(); /* one look at the race-detector probe */
    /* Under a race detector every release is announced before it is made,
     * so the mode is checked first (a load the fast path skips otherwise):
     * a wrong call then reports EPERM without being announced as an unlock. */
    if (on) {
        uint32_t s = load_state(l);
        if (s & BAD)
            return EINVAL;
        if ((s & WL) || (s & READERS) == 0)
            return EPERM;
    }
    if (on)
        fxi_ann_pre_unlock(l, FXI_ANN_SHARED);
    /* No load first (under read contention it would cost a second transfer
     * of the cache line): a CAS that guesses the only reader with nobody
     * waiting, 1 -> 0, the uncontended case in one RMW; otherwise its
     * failure gives the state, and reader_release's CAS loop takes one
     * reader from it, only if the word holds read locks (never a
     * subtraction taken back). Release, as in reader_release.
     * @step rwlock.rdunlock.sub */
    uint32_t s = 1;
    int r = cas_state(l, &s, 0, __ATOMIC_RELEASE) ? 0 : reader_release_more(l, s);
    if (on)
        fxi_ann_post_unlock(l, FXI_ANN_SHARED);
    return r;
}

int fx_rwlock_wrunlock(fx_rwlock *l)
{
    if (fxi_bad_slot(l))
        return EINVAL;
    const bool on = fxi_ann_on(); /* one look at the race-detector probe */
    /* Under a race detector every release is announced before it is made,
     * so the mode is checked first (a load the fast path skips otherwise):
     * a wrong call then reports EPERM without being announced as an unlock. */
    if (on) {
        uint32_t s = load_state(l);
        if (s & BAD)
            return EINVAL;
        if (!(s & WL))
            return EPERM;
    }
    if (on)
        fxi_ann_pre_unlock(l, FXI_ANN_EXCLUSIVE);
    uint32_t s = WL;
    int r = 0;
    /* The common case in one CAS (release): held by us, nobody waiting. On
     * failure s is the current state, and tells what to do.
     * @step rwlock.wrunlock.cas */
    if (!cas_state(l, &s, 0, __ATOMIC_RELEASE))
        r = writer_release_more(l, s); /* EPERM if not write-held: nothing changed */
    if (on)
        fxi_ann_post_unlock(l, FXI_ANN_EXCLUSIVE);
    return r;
}
