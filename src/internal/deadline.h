/*
 * src/internal/deadline.h - checks on the absolute CLOCK_MONOTONIC deadlines
 * that every timed operation takes.
 */
#ifndef FXI_INTERNAL_DEADLINE_H
#define FXI_INTERNAL_DEADLINE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* EINVAL when a deadline is given and its tv_nsec is outside [0, 999999999];
 * callers ask only when they are about to block (POSIX: an acquire that can
 * succeed at once succeeds whatever the deadline). */
static inline int fxi_deadline_check(const struct timespec *deadline)
{
    if (deadline != NULL && (deadline->tv_nsec < 0 || deadline->tv_nsec > 999999999L))
        return EINVAL;
    return 0;
}

/* True once the (checked) deadline has passed on CLOCK_MONOTONIC. */
bool fxi_deadline_passed(const struct timespec *deadline);

/* The one timespec comparison of the library: a < b (both normalised). */
static inline bool fxi_ts_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* A CLOCK_MONOTONIC time (since boot: far from overflowing) as nanoseconds,
 * and back: the forms in which recheck schedules are reckoned. */
static inline int64_t fxi_ts_ns(const struct timespec *t)
{
    return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static inline struct timespec fxi_ns_ts(int64_t ns)
{
    struct timespec t = {.tv_sec = (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000)};
    return t;
}

/* The CLOCK_MONOTONIC time now, in nanoseconds. */
static inline int64_t fxi_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return fxi_ts_ns(&t);
}

/* The one timespec addition: t + ns (ns of either sign; t normalised), the
 * result normalised, saturating instead of wrapping: to the largest time_t
 * with tv_nsec 999999999 above, to the smallest with tv_nsec 0 below. */
struct timespec fxi_ts_add_ns(struct timespec t, int64_t ns);

/* The one timespec difference: a - b (both normalised), the result
 * normalised, saturating instead of wrapping as fxi_ts_add_ns does: the time
 * left until any deadline a, however far (a tv_sec near the largest time_t,
 * whose nanoseconds fxi_ts_ns cannot hold), as a system call's relative
 * timeout. */
struct timespec fxi_ts_sub(struct timespec a, struct timespec b);

#endif /* FXI_INTERNAL_DEADLINE_H */
