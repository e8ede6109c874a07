/* docs/man/time.c - the EXAMPLE of the deadline pages: a relative timeout
 * and a wall-clock time, both made into CLOCK_MONOTONIC deadlines. */
#include <futexsync.h>
#include <stdio.h>

int main(void)
{
    fx_mutex m = FX_MUTEX_INIT;
    fx_mutex_lock(&m); /* held: the timed locks below must time out */

    struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_MSEC);
    int r1 = fx_mutex_timedlock(&m, &d);

    struct timespec wall, d2;
    clock_gettime(CLOCK_REALTIME, &wall);
    wall.tv_nsec += 10 * FX_NSEC_PER_MSEC;
    if (wall.tv_nsec >= FX_NSEC_PER_SEC) {
        wall.tv_sec++;
        wall.tv_nsec -= FX_NSEC_PER_SEC;
    }
    int r2 = fx_deadline_from(CLOCK_REALTIME, &wall, &d2);
    if (r2 == 0)
        r2 = fx_mutex_timedlock(&m, &d2);

    printf("relative: %d, wall clock: %d (ETIMEDOUT is %d)\n", r1, r2, ETIMEDOUT);
    return r1 == ETIMEDOUT && r2 == ETIMEDOUT ? 0 : 1;
}
