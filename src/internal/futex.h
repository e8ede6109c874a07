/*
 * src/internal/futex.h - the futex layer every primitive calls.
 *
 * The futex system call itself lives only in src/futex.c. These wrappers take
 * already-validated arguments (aligned word, deadline with a valid tv_nsec) and
 * return positive errno values. Their waits and wakes of the primitives' words
 * never use FUTEX_PRIVATE_FLAG: every object of the library may be shared
 * between processes (only the library's own process-local words, those of
 * src/sleep.c, are private).
 */
#ifndef FXI_INTERNAL_FUTEX_H
#define FXI_INTERNAL_FUTEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Waits with every bitset bit: an ordinary wake reaches the sleeper. */
#define FXI_BITSET_ANY 0xffffffffu

/* Sleeps while *word == expected, until woken by a wake whose bitset intersects
 * `bitset`, or the absolute CLOCK_MONOTONIC deadline (NULL: none).
 * Returns 0 (woken, perhaps spuriously), EAGAIN (*word != expected), ETIMEDOUT
 * (deadline passed; a negative tv_sec counts as passed) or EINTR (a signal
 * handler ran). The deadline's tv_nsec must already be checked. */
int fxi_futex_wait_raw(int32_t *word, int32_t expected, const struct timespec *deadline,
                      uint32_t bitset);


/* Sleeps while *word == expected (any memory) and the process-private
 * *handoff == h, until either is woken or changes, or the absolute
 * CLOCK_MONOTONIC deadline (NULL: none). Returns 0 (woken: *by_handoff
 * tells whether through handoff only), EAGAIN (a word differed), ETIMEDOUT,
 * EINTR, or ENOSYS when the kernel cannot (futex_waitv, Linux 5.16, refused
 * or unknown). A listed sleeper of the engine (src/sleep.c). */
int fxi_futex_wait2_raw(int32_t *word, int32_t expected, uint32_t *handoff, uint32_t h,
                        const struct timespec *deadline, bool *by_handoff);

/* A process-private word (FUTEX_PRIVATE_FLAG): sleeps while *word ==
 * expected, untimed (0, or a positive errno), and wakes up to count of its
 * sleepers (how many were woken). For the library's own words only. */
int fxi_futex_wait_private(uint32_t *word, uint32_t expected);
int fxi_futex_wake_private(uint32_t *word, int count);

/* Wakes up to count (> 0) sleepers on word whose bitset intersects `bitset`;
 * returns how many were woken. */
int fxi_futex_wake_raw(int32_t *word, int count, uint32_t bitset);

/* If *word == expected, wakes up to `wake` sleepers on word and moves up to
 * `requeue` more to sleep on `target` instead, without waking them. Returns the
 * number woken plus requeued, or -EAGAIN if *word != expected. */
int fxi_futex_requeue_raw(int32_t *word, int32_t expected, int wake, int32_t *target,
                         int requeue);

/* 1 if p is NULL or not 4-byte aligned: the EINVAL test of every entry point. */
static inline int fxi_bad_slot(const void *p)
{
    return p == NULL || ((uintptr_t)p & 3u) != 0;
}

#endif /* FXI_INTERNAL_FUTEX_H */
