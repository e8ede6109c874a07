/*
 * src/time.c - absolute CLOCK_MONOTONIC deadlines, and their conversion from
 * absolute times on other clocks.
 */
#include "futexsync/time.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "internal/deadline.h"

/* The largest time_t, whether time_t has 32 or 64 bits. */
#define FXI_TIME_T_MAX ((time_t)(sizeof(time_t) == 8 ? INT64_MAX : INT32_MAX))
#define FXI_TIME_T_MIN ((time_t)(sizeof(time_t) == 8 ? INT64_MIN : INT32_MIN))

struct timespec fx_deadline_in(int64_t timeout_ns)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return fxi_ts_add_ns(now, timeout_ns);
}

/* The clocks fx_deadline_from converts from: those that keep time at the
 * rate of real time (the CPU-time clocks do not). */
static bool clock_convertible(int clock_id)
{
    switch (clock_id) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_TAI:
    case CLOCK_BOOTTIME:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_MONOTONIC:
        return true;
    default:
        return false;
    }
}

/* a + b for a, b in int64_t, saturating at the ends instead of wrapping. */
static int64_t add_sat(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b < 0 ? INT64_MIN : INT64_MAX;
    return r;
}

int fx_deadline_from(int clock_id, const struct timespec *abs, struct timespec *deadline)
{
    if (abs == NULL || deadline == NULL || abs->tv_nsec < 0 || abs->tv_nsec >= FX_NSEC_PER_SEC ||
        !clock_convertible(clock_id))
        return EINVAL;
    if (clock_id == CLOCK_MONOTONIC) {
        *deadline = *abs;
        return 0;
    }
    /* The other clock read between two monotonic readings: the monotonic time
     * of that reading is taken as their midpoint, so that a preemption between
     * the reads shifts the result by at most half of it. */
    struct timespec m0, c, m1;
    clock_gettime(CLOCK_MONOTONIC, &m0);
    if (clock_gettime((clockid_t)clock_id, &c) != 0)
        return EINVAL; /* a clock this kernel does not have */
    clock_gettime(CLOCK_MONOTONIC, &m1);
    int64_t span = ((int64_t)m1.tv_sec - (int64_t)m0.tv_sec) * FX_NSEC_PER_SEC +
                   ((int64_t)m1.tv_nsec - (int64_t)m0.tv_nsec);
    struct timespec m = fxi_ts_add_ns(m0, span / 2);

    /* deadline = m + (abs - c), in seconds and nanoseconds, each sum
     * saturating: only a huge |abs->tv_sec| can reach the ends. */
    int64_t sec = add_sat(add_sat((int64_t)abs->tv_sec, -(int64_t)c.tv_sec),
                          (int64_t)m.tv_sec);
    int64_t ns = (int64_t)abs->tv_nsec - (int64_t)c.tv_nsec + (int64_t)m.tv_nsec;
    /* ns in (-1e9, 2e9): carry it into sec. */
    if (ns < 0) {
        ns += FX_NSEC_PER_SEC;
        sec = add_sat(sec, -1);
    } else if (ns >= FX_NSEC_PER_SEC) {
        ns -= FX_NSEC_PER_SEC;
        sec = add_sat(sec, 1);
    }
    if (sec >= (int64_t)FXI_TIME_T_MAX) {
        deadline->tv_sec = FXI_TIME_T_MAX;
        deadline->tv_nsec = sec == (int64_t)FXI_TIME_T_MAX ? (long)ns : 999999999L;
    } else if (sec < (int64_t)FXI_TIME_T_MIN) {
        deadline->tv_sec = FXI_TIME_T_MIN; /* long passed */
        deadline->tv_nsec = 0;
    } else {
        deadline->tv_sec = (time_t)sec;
        deadline->tv_nsec = (long)ns;
    }
    return 0;
}

struct timespec fxi_ts_add_ns(struct timespec t, int64_t ns)
{
    /* Split ns so that 0 <= nsec < 1e9 (floor division), carry t.tv_nsec into
     * the seconds, then add the seconds, saturating at either end of time_t
     * (and of int64_t, which the sum can pass only for a t.tv_sec near it). */
    int64_t sec = ns / FX_NSEC_PER_SEC;
    int64_t nsec = ns % FX_NSEC_PER_SEC;
    if (nsec < 0) {
        nsec += FX_NSEC_PER_SEC;
        sec -= 1;
    }
    nsec += (int64_t)t.tv_nsec;
    if (nsec >= FX_NSEC_PER_SEC) {
        nsec -= FX_NSEC_PER_SEC;
        sec += 1;
    }
    int64_t s;
    bool over = __builtin_add_overflow((int64_t)t.tv_sec, sec, &s);
    if (over ? sec > 0 : s > (int64_t)FXI_TIME_T_MAX) {
        t.tv_sec = FXI_TIME_T_MAX;
        t.tv_nsec = 999999999L;
    } else if (over || s < (int64_t)FXI_TIME_T_MIN) {
        t.tv_sec = FXI_TIME_T_MIN; /* long passed */
        t.tv_nsec = 0;
    } else {
        t.tv_sec = (time_t)s;
        t.tv_nsec = (long)nsec;
    }
    return t;
}

struct timespec fxi_ts_sub(struct timespec a, struct timespec b)
{
    /* Seconds, then the nanoseconds' borrow; an overflow of either is the
     * end of time_t it went past (a borrow can only pass the lower one). */
    int64_t sec, nsec = (int64_t)a.tv_nsec - (int64_t)b.tv_nsec;
    int end = 0; /* 1 above, -1 below */
    if (__builtin_sub_overflow((int64_t)a.tv_sec, (int64_t)b.tv_sec, &sec))
        end = (int64_t)b.tv_sec < 0 ? 1 : -1;
    else if (nsec < 0 && __builtin_sub_overflow(sec, 1, &sec))
        end = -1;
    if (nsec < 0)
        nsec += FX_NSEC_PER_SEC;
    if (end == 0 && sec > (int64_t)FXI_TIME_T_MAX)
        end = 1;
    else if (end == 0 && sec < (int64_t)FXI_TIME_T_MIN)
        end = -1;
    struct timespec r;
    if (end > 0) {
        r.tv_sec = FXI_TIME_T_MAX;
        r.tv_nsec = 999999999L;
    } else if (end < 0) {
        r.tv_sec = FXI_TIME_T_MIN;
        r.tv_nsec = 0;
    } else {
        r.tv_sec = (time_t)sec;
        r.tv_nsec = (long)nsec;
    }
    return r;
}

bool fxi_deadline_passed(const struct timespec *deadline)
{
    if (deadline == NULL)
        return false;
    if (deadline->tv_sec < 0)
        return true;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return !fxi_ts_before(&now, deadline);
}
