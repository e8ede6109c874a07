/*
 * futexsync/futex.h - the raw futex: sleep while a 32-bit word holds a value.
 *
 * fx_futex_wait sleeps while a 32-bit word holds the value the caller saw;
 * fx_futex_wake wakes threads that sleep on the word, in any process. They
 * are Linux futex(2)'s FUTEX_WAIT_BITSET and FUTEX_WAKE with futexsync's
 * conventions, the C counterpart of JavaScript's Atomics.wait / Atomics.notify.
 *
 *     static int32_t ready;
 *     // a waiter: sleeps until ready is no longer 0
 *     while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) == 0)
 *         fx_futex_wait(&ready, 0, NULL);   // woken, EAGAIN, EINTR: look again
 *     // the waker, in any thread or process that maps the word
 *     __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
 *     fx_futex_wake(&ready, INT32_MAX);
 *
 * Deadlines are absolute CLOCK_MONOTONIC times. The word may live in private
 * memory or in memory shared between processes (MAP_SHARED, shm_open): the
 * wait is never FUTEX_PRIVATE, so a waker in another process finds the
 * sleeper. A slot must be non-NULL and 4-byte aligned, otherwise EINVAL
 * (-EINVAL from fx_futex_wake, whose result is a count). Calls return 0 or a
 * positive errno value; a call whose result is a value returns it (>= 0) or a
 * negative errno value; errno is never set.
 */
#ifndef FUTEXSYNC_FUTEX_H
#define FUTEXSYNC_FUTEX_H

#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sleeps while *slot == expected, until woken or the deadline (NULL: none).
 * Returns 0 when woken (possibly spuriously: re-check the condition), EAGAIN if
 * *slot != expected on entry, ETIMEDOUT once the deadline has passed, EINTR if a
 * signal handler ran (the only futexsync call that reports EINTR), EINVAL for a
 * NULL or misaligned slot, or a deadline with tv_nsec out of range when it would
 * sleep. */
int fx_futex_wait(int32_t *slot, int32_t expected, const struct timespec *deadline);

/* Wakes up to count threads sleeping on slot (INT32_MAX: all), in any process.
 * Returns how many were woken (0 when count is 0), or -EINVAL for a NULL or
 * misaligned slot or a negative count. */
int fx_futex_wake(int32_t *slot, int count);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_FUTEX_H */
