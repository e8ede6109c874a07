/*
 * futexsync/time.h - absolute CLOCK_MONOTONIC deadlines.
 *
 * Every timed operation of futexsync takes an absolute deadline on
 * CLOCK_MONOTONIC (`const struct timespec *`, NULL meaning "no deadline"), so a
 * deadline survives retries, signals and wall-clock jumps unchanged.
 * A deadline whose tv_nsec is outside [0, 999999999] is invalid: an operation
 * that would block on it returns EINVAL. A deadline with a negative tv_sec is
 * valid and already passed.
 */
#ifndef FUTEXSYNC_TIME_H
#define FUTEXSYNC_TIME_H

#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One second, millisecond and microsecond in nanoseconds, for fx_deadline_in(). */
#define FX_NSEC_PER_SEC  1000000000LL
#define FX_NSEC_PER_MSEC 1000000LL
#define FX_NSEC_PER_USEC 1000LL

/* Returns now(CLOCK_MONOTONIC) + timeout_ns; a negative timeout gives a deadline
 * in the past, and a sum beyond the range of time_t saturates to the largest
 * representable deadline instead of wrapping. */
struct timespec fx_deadline_in(int64_t timeout_ns);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_TIME_H */
