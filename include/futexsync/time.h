/*
 * futexsync/time.h - absolute CLOCK_MONOTONIC deadlines.
 *
 * fx_deadline_in makes the deadline a timeout from now; fx_deadline_from
 * converts an absolute time on another clock (CLOCK_REALTIME, as pthread code
 * holds) to one.
 *
 *     static fx_mutex m;
 *     struct timespec d = fx_deadline_in(250 * FX_NSEC_PER_MSEC);
 *     int r = fx_mutex_timedlock(&m, &d);   // 0, or ETIMEDOUT 250 ms later
 *
 * Every timed operation of futexsync takes an absolute deadline on
 * CLOCK_MONOTONIC (`const struct timespec *`, NULL meaning "no deadline"), so
 * a deadline survives retries, signals and wall-clock jumps unchanged. A
 * deadline whose tv_nsec is outside [0, 999999999] is invalid: an operation
 * that would block on it returns EINVAL. A deadline with a negative tv_sec is
 * valid and already passed.
 *
 * Returns (README, Conventions): 0 or a positive errno value; a call whose
 * result is a value returns it (>= 0) or a negative errno value; errno is
 * never set.
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

/* Deadlines from other clocks.
 *
 * Converts `abs`, an absolute time on `clock_id`, to the CLOCK_MONOTONIC
 * deadline that the timed operations take, and stores it in *deadline:
 * the deadline is as far from now(CLOCK_MONOTONIC) as `abs` is from
 * now(clock_id). This is the conversion pthread code needs: its timed calls
 * (pthread_mutex_timedlock, sem_timedwait, pthread_cond_timedwait by
 * default) take CLOCK_REALTIME times, which a futexsync timed call would take
 * for a monotonic time decades ahead (wall-clock time counts from 1970,
 * monotonic time from boot), so that it would silently never time out:
 *
 *     struct timespec d;
 *     int r = fx_deadline_from(CLOCK_REALTIME, &abstime, &d);
 *     if (r == 0)
 *         r = fx_mutex_timedlock(&m, &d);
 *
 * `clock_id` (a clockid_t) may be CLOCK_REALTIME, CLOCK_REALTIME_COARSE,
 * CLOCK_TAI, CLOCK_BOOTTIME, CLOCK_MONOTONIC_RAW, CLOCK_MONOTONIC_COARSE or
 * CLOCK_MONOTONIC; for CLOCK_MONOTONIC, *deadline is *abs unchanged. The
 * conversion is made once, at the call: a later step of the wall clock
 * (settimeofday, an NTP step) does not move the deadline, which stays a
 * monotonic one (pthread's CLOCK_REALTIME waits would follow the step).
 * A time already passed gives a deadline already passed; one beyond the range
 * of time_t saturates to the largest deadline instead of wrapping.
 *
 * Returns 0, or EINVAL (nothing stored) when abs or deadline is NULL, when
 * abs->tv_nsec is outside [0, 999999999], or when clock_id is another clock
 * (a CPU-time clock has no fixed relation to the monotonic one).
 *
 * The timed operations themselves do not guess: a deadline of today's
 * wall-clock time is also a valid monotonic deadline (decades ahead; the
 * saturated deadline of fx_deadline_in(INT64_MAX) is further still), so they
 * cannot tell it from a long timeout and wait for it. Convert first. */
int fx_deadline_from(int clock_id, const struct timespec *abs, struct timespec *deadline);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_TIME_H */
