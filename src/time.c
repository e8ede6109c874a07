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

bool fx_deadline_passed(const struct timespec *deadline)
{
    if (deadline == NULL)
        return false;
    if (deadline->tv_sec < 0)
        return true;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > deadline->tv_sec ||
           (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}
