/*
 * futexsync/stats.h - per-lock-word statistics (the stats build).
 *
 * Built with the CMake option FUTEXSYNC_STATS=ON, the library counts, in the
 * calling process and for every slot it touches on a slow path, contended
 * acquisitions, futex calls, spins and timeouts: fx_stats_read sums an object's
 * records, fx_stats_list lists the hottest slots and fx_stats_reset clears
 * them.
 *
 *     static fx_mutex m;
 *     fx_stats s;
 *     if (fx_stats_read(&m, sizeof m, &s) == 0)   // ENOTSUP: the default build
 *         printf("contended %llu, futex waits %llu\n",
 *                (unsigned long long)s.contended, (unsigned long long)s.waits);
 *
 * Uncontended operations are never counted (they make no system call and cost
 * the same in both builds). The default build (FUTEXSYNC_STATS=OFF) has no
 * counting code at all: the functions below exist, so code using them compiles
 * and links either way, but fx_stats_read and fx_stats_list fill zeros and
 * return ENOTSUP, fx_stats_reset returns ENOTSUP, fx_stats_enabled returns 0. A
 * forked child starts with a copy of its parent's counts
 * (fx_stats_reset(NULL, 0) clears them). The stats build slows the slow paths a little (each spin
 * iteration adds one atomic addition), so take timings from the default build
 * (docs/stats.md). <futexsync.h> does not include this header: include
 * futexsync/stats.h where the statistics are read. Calls return 0 or a positive
 * errno value; a call whose result is a value returns it (>= 0) or a negative
 * errno value; errno is never set.
 */
#ifndef FUTEXSYNC_STATS_H
#define FUTEXSYNC_STATS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of slots the stats build keeps a record for, in a fixed table:
 * events on slots beyond that are still in the totals, and `untracked` says
 * how many could not be attributed to a slot (0: every per-slot record is
 * complete). */
#define FX_STATS_WORDS 1024

typedef struct fx_stats {
    uint64_t contended; /* slow-path lock calls */
    uint64_t waits;     /* futex wait system calls */
    uint64_t wakes;     /* futex wake / requeue system calls */
    uint64_t spins;     /* busy-wait iterations */
    uint64_t timeouts;  /* waits that ended at their deadline */
    uint64_t words;     /* slots with a record among those read */
    uint64_t untracked; /* process-wide: events on slots the table had no room for */
} fx_stats;

/* One slot's record, as listed by fx_stats_list. */
typedef struct fx_stats_word {
    const void *word; /* the slot's address in this process */
    fx_stats stats;   /* its counts (words = 1) */
} fx_stats_word;

/* 1 when the library was built with FUTEXSYNC_STATS=ON, else 0. */
int fx_stats_enabled(void);

/* Sums the records of every slot in [obj, obj + size) into *out: pass an
 * object and its size (fx_stats_read(&m, sizeof m, &s)) to cover all of its
 * slots. obj == NULL reads the process-wide totals (size is ignored): every
 * event since the last fx_stats_reset(NULL, 0), whatever its slot. The counts:
 *     contended  lock calls that found the lock held and entered the slow path
 *                (fx_mutex; other primitives count only their futex calls)
 *     waits      futex wait system calls on the slot (also those that returned
 *                at once because the slot had changed, and timed-out ones)
 *     wakes      futex wake and requeue system calls on the slot
 *     spins      busy-wait iterations (one pause instruction each) spent
 *                waiting for the slot before sleeping or acquiring
 *     timeouts   waits that ended at their deadline
 * A slot is identified by its address in the calling process: a lock in
 * MAP_SHARED memory mapped at different addresses in two processes has two
 * records, one per process, each counting that process's calls only. The
 * counters are updated with relaxed atomic additions: a read taken while
 * other threads run is a consistent-enough snapshot for monitoring, not an
 * atomic one.
 * Returns 0, EINVAL (out is NULL, or obj is given with size 0), or ENOTSUP in
 * the default build (then *out is zeroed). */
int fx_stats_read(const void *obj, size_t size, fx_stats *out);

/* Zeroes the records of the slots in [obj, obj + size), or with obj == NULL
 * every record and the totals (forgetting the slots, so the table is free
 * again). Counts of operations running concurrently with a reset may be lost
 * or land in a fresh record. Returns 0, EINVAL (obj given with size 0), or
 * ENOTSUP in the default build. */
int fx_stats_reset(const void *obj, size_t size);

/* Copies up to max records into out, the hottest first (most futex system
 * calls, then most contended acquisitions), and stores their number in *count:
 * the way to find a program's hot locks. Returns 0, EINVAL (count is NULL, or
 * out is NULL with max > 0), or ENOTSUP in the default build (*count = 0). */
int fx_stats_list(fx_stats_word *out, size_t max, size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_STATS_H */
