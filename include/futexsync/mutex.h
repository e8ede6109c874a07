/*
 * futexsync/mutex.h - a 4-byte, zero-initialised, process-shared mutex.
 *
 * An fx_mutex is held by one thread at a time: fx_mutex_lock takes it,
 * waiting as needed, fx_mutex_trylock only if it is free now and
 * fx_mutex_timedlock before a deadline; fx_mutex_unlock releases it.
 *
 *     static fx_mutex m = FX_MUTEX_INIT;       // all-zero bytes: unlocked
 *     static long n;                           // a count, guarded by m
 *     fx_mutex_lock(&m);
 *     n++;
 *     fx_mutex_unlock(&m);
 *     struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_MSEC);
 *     if (fx_mutex_timedlock(&m, &d) == 0) { n++; fx_mutex_unlock(&m); }
 *     if (fx_mutex_trylock(&m) == 0) { n++; fx_mutex_unlock(&m); } // or EBUSY
 *
 * No init call, attribute or destroy; in MAP_SHARED memory it works across
 * processes. It has no owner: any thread may unlock it (fx_rmutex has owners,
 * recursion and owner-death recovery). An uncontended lock, trylock or unlock
 * makes no system call (docs/design/mutex.md). In memory other processes can
 * reach, a sleeper re-reads the word at least every half second, so a process
 * killed between an unlock and its wake, or after a wake picked it but before
 * it returned, strands no sleeper for longer while the mutex is free; the
 * idle sleepers of one mutex cost one wake-up per period and process,
 * together. In private memory a sleeper rechecks once, then sleeps until
 * woken, as with pthread (docs/reliability.md). A state the library never
 * writes gives EINVAL. Calls return 0 or a positive errno value; a call whose
 * result is a value returns it (>= 0) or a negative errno value; errno is
 * never set.
 */
#ifndef FUTEXSYNC_MUTEX_H
#define FUTEXSYNC_MUTEX_H

#include <stdint.h>
#include <time.h>
#include "futexsync/annotations.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct FX_CAPABILITY("mutex") fx_mutex {
    int32_t state; /* free, held, or held with sleepers (futexsync/layout.h) */
} fx_mutex;

/* An unlocked mutex: all-zero bytes. */
#define FX_MUTEX_INIT { 0 }

/* Makes *m an unlocked mutex (the same as zeroing it). Not to be called while
 * any thread uses the mutex. Returns 0, or EINVAL for a NULL or misaligned m
 * (nothing written). */
int fx_mutex_init(fx_mutex *m);

/* Acquires m, sleeping as long as needed. Returns 0, or EINVAL for a NULL or
 * misaligned m or a state the library never writes. Never EINTR. Not a
 * cancellation point (as pthread_mutex_lock), nor is fx_mutex_timedlock. */
int fx_mutex_lock(fx_mutex *m) FX_ACQUIRE(m);

/* Acquires m only if it is free now. Returns 0, EBUSY when it is held, or EINVAL. */
int fx_mutex_trylock(fx_mutex *m) FX_TRY_ACQUIRE(0, m) FX_WARN_UNUSED;

/* Acquires m, giving up at the absolute CLOCK_MONOTONIC deadline (NULL: none).
 * Returns 0 (also when m is free and the deadline already passed), ETIMEDOUT, or
 * EINVAL (bad m, bad state, or tv_nsec out of range when it would block). */
int fx_mutex_timedlock(fx_mutex *m, const struct timespec *deadline)
    FX_TRY_ACQUIRE(0, m) FX_WARN_UNUSED;

/* Releases m and wakes one sleeper if there is one. Returns 0, EPERM if m was
 * not locked, or EINVAL. */
int fx_mutex_unlock(fx_mutex *m) FX_RELEASE(m);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_MUTEX_H */
