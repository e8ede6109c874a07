/*
 * src/internal/mutex.h - fx_mutex entry points for other primitives.
 */
#ifndef FX_INTERNAL_MUTEX_H
#define FX_INTERNAL_MUTEX_H

#include <time.h>

#include "futexsync/mutex.h"

/* Acquires m as a thread that may have slept on m->state: fx_cond requeues its
 * waiters onto the mutex word, and an asynchronous waiter woken from that word
 * must do the same. The lock is taken as CONTENDED so that its unlock wakes
 * the next sleeper; that chain is what makes a requeue of many waiters safe.
 * m must be valid (non-NULL, aligned). Returns 0, ETIMEDOUT (deadline; NULL:
 * none) or EINVAL (a state the library never writes, or a bad tv_nsec). */
int fx_mutex_lock_slept(fx_mutex *m, const struct timespec *deadline);

#endif /* FX_INTERNAL_MUTEX_H */
