/*
 * src/internal/futex.h - the futex layer every primitive calls.
 *
 * The futex system call itself lives only in src/futex.c. These wrappers take
 * already-validated arguments (aligned word, deadline with a valid tv_nsec) and
 * return positive errno values. They never use FUTEX_PRIVATE_FLAG: every object
 * of the library may be shared between processes.
 */
#ifndef FX_INTERNAL_FUTEX_H
#define FX_INTERNAL_FUTEX_H

#include <stdint.h>
#include <time.h>

/* Waits with every bitset bit: an ordinary wake reaches the sleeper. */
#define FX_BITSET_ANY 0xffffffffu

/* Sleeps while *word == expected, until woken by a wake whose bitset intersects
 * `bitset`, or the absolute CLOCK_MONOTONIC deadline (NULL: none).
 * Returns 0 (woken, perhaps spuriously), EAGAIN (*word != expected), ETIMEDOUT
 * (deadline passed; a negative tv_sec counts as passed) or EINTR (a signal
 * handler ran). The deadline's tv_nsec must already be checked. */
int fx_futex_wait_raw(int32_t *word, int32_t expected, const struct timespec *deadline,
                      uint32_t bitset);

/* Wakes up to count (> 0) sleepers on word whose bitset intersects `bitset`;
 * returns how many were woken. */
int fx_futex_wake_raw(int32_t *word, int count, uint32_t bitset);

/* If *word == expected, wakes up to `wake` sleepers on word and moves up to
 * `requeue` more to sleep on `target` instead, without waking them. Returns the
 * number woken plus requeued, or -EAGAIN if *word != expected. */
int fx_futex_requeue_raw(int32_t *word, int32_t expected, int wake, int32_t *target,
                         int requeue);

/* 1 if p is NULL or not 4-byte aligned: the EINVAL test of every entry point. */
static inline int fx_bad_slot(const void *p)
{
    return p == NULL || ((uintptr_t)p & 3u) != 0;
}

#endif /* FX_INTERNAL_FUTEX_H */
