/*
 * src/internal/stats.h - the counting hooks of the stats build.
 *
 * With FUTEXSYNC_STATS defined (CMake option FUTEXSYNC_STATS=ON) each hook
 * adds to the record of the slot it names (see include/futexsync/stats.h);
 * otherwise every hook expands to ((void)0) and its arguments are not
 * evaluated, so the default build has no trace of them. Hooks sit on slow
 * paths only: an uncontended operation is never counted.
 *
 *   hook                          where                          counts
 *   FXI_STAT_CONTENDED(w)          entry of a lock's slow path    contended
 *   FXI_STAT_SPIN(w)               each busy-wait iteration       spins
 *   FXI_STAT_WAITED(w, r)          after a futex wait syscall     waits, and timeouts
 *                                 (r: its result, 0 or -errno)   when r == -ETIMEDOUT
 *   FXI_STAT_TIMEOUT_IF(w, cond)   a wait that was not made       timeouts, when cond
 *                                 because its deadline passed
 *   FXI_STAT_WAKE(w)               after a futex wake/requeue     wakes
 */
#ifndef FXI_INTERNAL_STATS_H
#define FXI_INTERNAL_STATS_H

#if defined(FUTEXSYNC_STATS)
#include <stdint.h>

enum fxi_stat_kind {
    FX_STAT_K_CONTENDED,
    FX_STAT_K_WAITS,
    FX_STAT_K_WAKES,
    FX_STAT_K_SPINS,
    FX_STAT_K_TIMEOUTS,
    FX_STAT_K_COUNT
};

/* Adds n to the `kind` counter of the record of word (src/stats.c). */
void fxi_stat_add(const void *word, enum fxi_stat_kind kind, uint64_t n);
/* Counts one futex wait whose system call returned r (0 or -errno). */
void fxi_stat_waited(const void *word, long r);

#define FXI_STAT_CONTENDED(w) fxi_stat_add((w), FX_STAT_K_CONTENDED, 1)
#define FXI_STAT_SPIN(w) fxi_stat_add((w), FX_STAT_K_SPINS, 1)
#define FXI_STAT_WAITED(w, r) fxi_stat_waited((w), (r))
#define FXI_STAT_TIMEOUT_IF(w, cond) \
    ((cond) ? fxi_stat_add((w), FX_STAT_K_TIMEOUTS, 1) : (void)0)
#define FXI_STAT_WAKE(w) fxi_stat_add((w), FX_STAT_K_WAKES, 1)

#else
#define FXI_STAT_CONTENDED(w) ((void)0)
#define FXI_STAT_SPIN(w) ((void)0)
#define FXI_STAT_WAITED(w, r) ((void)0)
#define FXI_STAT_TIMEOUT_IF(w, cond) ((void)0)
#define FXI_STAT_WAKE(w) ((void)0)
#endif

#endif /* FXI_INTERNAL_STATS_H */
