/*
 * src/internal/mutex.h - fx_mutex entry points for other primitives.
 */
#ifndef FXI_INTERNAL_MUTEX_H
#define FXI_INTERNAL_MUTEX_H

#include <time.h>

#include "futexsync/mutex.h"

/* Acquires m as a thread that may have slept on m->state: fx_cond requeues its
 * waiters onto the mutex word, and an asynchronous waiter woken from that word
 * must do the same. The lock is taken as CONTENDED so that its unlock wakes
 * the next sleeper; that chain is what makes a requeue of many waiters safe.
 * m must be valid (non-NULL, aligned). Returns 0, ETIMEDOUT (deadline; NULL:
 * none) or EINVAL (a state the library never writes, or a bad tv_nsec). */
int fxi_mutex_lock_slept(fx_mutex *m, const struct timespec *deadline);

/* One non-blocking step of fxi_mutex_lock_slept, for waiters that sleep by
 * other means (an io_uring futex wait, a helper thread). Returns 0 when m was
 * acquired (as CONTENDED), EBUSY when it is held (the word is then marked so
 * that the holder's unlock wakes a sleeper, and *sleep_on is the value to wait
 * on with a futex wait on m->state), or EINVAL for a state the library never
 * writes. A waiter woken from the word must step again (or give the wake away
 * with fxi_mutex_abandon_wait); it must not simply leave. */
int fxi_mutex_acquire_step(fx_mutex *m, int32_t *sleep_on);

/* Called by a waiter that stops waiting for m (cancelled, timed out) after it
 * may have been woken from m->state without acquiring: passes the wake on to
 * the next sleeper, so no release is left without a thread responsible for the
 * remaining sleepers. */
void fxi_mutex_abandon_wait(fx_mutex *m);

/* What m's word says about it, for primitives that take a held mutex (fx_cond
 * waits): 0 when it is held, EPERM when it is free, EINVAL for a state the
 * library never writes. A relaxed look, not synchronization. */
int fxi_mutex_check_held(const fx_mutex *m);

#endif /* FXI_INTERNAL_MUTEX_H */
