/*
 * futexsync/mutex.h - a 4-byte, zero-initialised, process-shared mutex.
 *
 * Layout: one int32_t, `state`, holding the three states of Drepper's
 * "Futexes Are Tricky" mutex: free, held, held with sleepers (their values:
 * futexsync/layout.h). Any other value is one the library never writes:
 * operations on it return EINVAL.
 *
 * All-zero bytes (FX_MUTEX_INIT) are an unlocked mutex; no init call, attribute
 * or destroy is needed, and the mutex works across processes when it lives in
 * MAP_SHARED memory. It does not track its owner: any thread may unlock it (use
 * fx_rmutex for ownership, recursion and owner-death recovery). An uncontended
 * lock, trylock and unlock make no system call.
 * In memory that other processes can reach, a sleeper re-reads the word at
 * least every half second, so a process killed between an unlock and its
 * wake, or killed after a wake picked it but before it returned, leaves no
 * sleeper asleep for longer while the mutex is free; the idle sleepers of
 * one mutex cost one wake-up per period and process, together.
 * In private memory no other process can lose a wake: there a sleeper
 * rechecks once and then sleeps until woken, as with pthread
 * (docs/reliability.md).
 *
 * Returns (README, Conventions): 0 or a positive errno value; a call whose
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
    int32_t state; /* free, held, or held with sleepers */
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
