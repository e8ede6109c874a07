/*
 * src/time.c - absolute CLOCK_MONOTONIC deadlines.
 */
#include "futexsync/time.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "internal/deadline.h"

/* The largest time_t, whether time_t has 32 or 64 bits. */
#define FX_TIME_T_MAX ((time_t)(sizeof(time_t) == 8 ? INT64_MAX : INT32_MAX))

struct timespec fx_deadline_in(int64_t timeout_ns)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);

    /* Split timeout_ns so that 0 <= ns < 1e9 (floor division), then add with a
     * saturating seconds sum: now.tv_sec is small and positive, so only a huge
     * positive timeout can overflow. */
    int64_t sec = timeout_ns / FX_NSEC_PER_SEC;
    int64_t ns = timeout_ns % FX_NSEC_PER_SEC;
    if (ns < 0) {
        ns += FX_NSEC_PER_SEC;
        sec -= 1;
    }
    ns += now.tv_nsec;
    if (ns >= FX_NSEC_PER_SEC) {
        ns -= FX_NSEC_PER_SEC;
        sec += 1;
    }
    struct timespec d;
    if (sec > 0 && (int64_t)now.tv_sec > (int64_t)FX_TIME_T_MAX - sec) {
        d.tv_sec = FX_TIME_T_MAX;
        d.tv_nsec = 999999999L;
    } else {
        d.tv_sec = (time_t)((int64_t)now.tv_sec + sec);
        d.tv_nsec = (long)ns;
    }
    return d;
}

struct timespec fx_ts_add_ns(struct timespec t, int64_t ns)
{
    int64_t sec = ns / FX_NSEC_PER_SEC;
    int64_t nsec = (int64_t)t.tv_nsec + ns % FX_NSEC_PER_SEC;
    if (nsec >= FX_NSEC_PER_SEC) {
        nsec -= FX_NSEC_PER_SEC;
        sec += 1;
    }
    if ((int64_t)t.tv_sec > (int64_t)FX_TIME_T_MAX - sec) {
        t.tv_sec = FX_TIME_T_MAX;
        t.tv_nsec = 999999999L;
    } else {
        t.tv_sec = (time_t)((int64_t)t.tv_sec + sec);
        t.tv_nsec = (long)nsec;
    }
    return t;
}

bool fx_deadline_passed(const struct timespec *deadline)
{
    if (deadline == NULL)
        return false;
    if (deadline->tv_sec < 0)
        return true;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return !fx_ts_before(&now, deadline);
}
