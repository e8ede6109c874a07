/*
 * tests/stress/adapt_ref_pthread.c - reference adapters: glibc's
 * process-shared pthread mutex, robust mutex and rwlock through the same
 * harness. They are not futexsync; they check the harness itself (its kill,
 * recovery and reader paths run against a known-good implementation), and
 * give a baseline for the figures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "fxstress.h"

/* pthread_mutex_t, process-shared ------------------------------------------- */

static int pm_setup_kind(void *o, int robust)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    if (robust)
        pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    int r = pthread_mutex_init(o, &a);
    pthread_mutexattr_destroy(&a);
    return r;
}
static int pm_setup(void *o) { return pm_setup_kind(o, 0); }
static int pm_setup_robust(void *o) { return pm_setup_kind(o, 1); }
static int pm_lock(void *o) { return pthread_mutex_lock(o); }
static int pm_trylock(void *o) { return pthread_mutex_trylock(o); }
/* The harness's deadlines are on CLOCK_MONOTONIC; the timed pthread calls
 * used here take CLOCK_REALTIME (the clock* variants would take the monotonic
 * clock, but race detectors do not intercept them, so TSan would miss the
 * lock). A bad tv_nsec is passed through unchanged. */
static struct timespec realtime_of(const struct timespec *d)
{
    if (d->tv_nsec < 0 || d->tv_nsec > 999999999L)
        return *d;
    struct timespec mono, real;
    clock_gettime(CLOCK_MONOTONIC, &mono);
    clock_gettime(CLOCK_REALTIME, &real);
    long long ns = ((long long)d->tv_sec - mono.tv_sec) * 1000000000LL + (d->tv_nsec - mono.tv_nsec) +
                   (long long)real.tv_sec * 1000000000LL + real.tv_nsec;
    if (ns < 0)
        ns = 0;
    return (struct timespec){.tv_sec = (time_t)(ns / 1000000000LL), .tv_nsec = (long)(ns % 1000000000LL)};
}

/* glibc looks at the time before it validates tv_nsec; futexsync (and the
 * harness) report EINVAL for a bad tv_nsec whenever the call would block. */
static int bad_nsec(const struct timespec *d, int r)
{
    return (r == ETIMEDOUT && (d->tv_nsec < 0 || d->tv_nsec > 999999999L)) ? EINVAL : r;
}
static int pm_timedlock(void *o, const struct timespec *d)
{
    struct timespec rt = realtime_of(d);
    return bad_nsec(d, pthread_mutex_timedlock(o, &rt));
}
static int pm_unlock(void *o) { return pthread_mutex_unlock(o); }
static int pm_consistent(void *o) { return pthread_mutex_consistent(o); }

static const struct fxs_adapter ref_mutex = {
    .name = "ref_pthread_mutex",
    .what = "reference: glibc process-shared pthread_mutex_t",
    .kind = FXS_LOCK,
    .size = sizeof(pthread_mutex_t),
    .setup = pm_setup,
    .lock = pm_lock,
    .trylock = pm_trylock,
    .timedlock = pm_timedlock,
    .unlock = pm_unlock,
};
FXS_ADAPTER(ref_mutex)

static const struct fxs_adapter ref_robust = {
    .name = "ref_pthread_robust",
    .what = "reference: glibc robust process-shared pthread_mutex_t (owner kills)",
    .kind = FXS_LOCK,
    .caps = FXS_OWNER_DEATH,
    .size = sizeof(pthread_mutex_t),
    .setup = pm_setup_robust,
    .lock = pm_lock,
    .trylock = pm_trylock,
    .timedlock = pm_timedlock,
    .unlock = pm_unlock,
    .consistent = pm_consistent,
};
FXS_ADAPTER(ref_robust)

/* pthread_rwlock_t, process-shared ------------------------------------------ */

static int rw_setup(void *o)
{
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    int r = pthread_rwlock_init(o, &a);
    pthread_rwlockattr_destroy(&a);
    return r;
}
static int rw_wrlock(void *o) { return pthread_rwlock_wrlock(o); }
static int rw_trywrlock(void *o) { return pthread_rwlock_trywrlock(o); }
static int rw_timedwrlock(void *o, const struct timespec *d)
{
    struct timespec rt = realtime_of(d);
    return bad_nsec(d, pthread_rwlock_timedwrlock(o, &rt));
}
static int rw_rdlock(void *o) { return pthread_rwlock_rdlock(o); }
static int rw_tryrdlock(void *o) { return pthread_rwlock_tryrdlock(o); }
static int rw_timedrdlock(void *o, const struct timespec *d)
{
    struct timespec rt = realtime_of(d);
    return bad_nsec(d, pthread_rwlock_timedrdlock(o, &rt));
}
static int rw_unlock(void *o) { return pthread_rwlock_unlock(o); }

static const struct fxs_adapter ref_rwlock = {
    .name = "ref_pthread_rwlock",
    .what = "reference: glibc process-shared pthread_rwlock_t (readers and writers)",
    .kind = FXS_LOCK,
    .size = sizeof(pthread_rwlock_t),
    .setup = rw_setup,
    .lock = rw_wrlock,
    .trylock = rw_trywrlock,
    .timedlock = rw_timedwrlock,
    .unlock = rw_unlock,
    .rdlock = rw_rdlock,
    .tryrdlock = rw_tryrdlock,
    .timedrdlock = rw_timedrdlock,
    .rdunlock = rw_unlock,
};
FXS_ADAPTER(ref_rwlock)
