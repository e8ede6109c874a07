/*
 * futexsync/counter.h - a shared 32-bit counter that threads can wait on.
 *
 * Layout: two int32_t slots.
 *
 *     value    the counter; every int32 value is valid; arithmetic wraps
 *              modulo 2^32 (two's complement, no undefined behaviour)
 *     waiters  how many threads are inside fx_counter_wait(), plus armed
 *              asynchronous waits (fx_async_counter_wait), in any process;
 *              never negative (a negative slot gives EINVAL from the wait,
 *              and so does INT32_MAX, which its increment would wrap)
 *
 * add, load and store make no system call while waiters is 0. Waiting for 0
 * turns the counter into a latch or wait group: N workers each add(-1), the
 * coordinator waits for 0 (fx_counter_wait_le(c, 0, ...) also when a worker
 * may count down twice). All-zero bytes are a counter holding 0; the counter
 * works across processes in MAP_SHARED memory. There a sleeping waiter
 * re-reads the value at least every half second, so a writer killed between
 * its change and its wake leaves no waiter asleep for longer while the value
 * meets its target; the idle waiters of one counter cost one wake-up per
 * period and process, together.
 * In private memory no other process can lose a wake: there a sleeper
 * rechecks once and then sleeps until woken, as with pthread
 * (docs/reliability.md).
 *
 * Returns (README, Conventions): 0 or a positive errno value; a call whose
 * result is a value returns it (>= 0) or a negative errno value; errno is
 * never set.
 * The one exception: fx_counter_add and fx_counter_load return the count,
 * which may be any int32_t, so they have no error value; for a NULL or
 * misaligned counter they return 0 and change nothing. Every other counter
 * call gives EINVAL for it.
 */
#ifndef FUTEXSYNC_COUNTER_H
#define FUTEXSYNC_COUNTER_H

#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fx_counter {
    int32_t value;   /* the count */
    int32_t waiters; /* blocked and armed asynchronous waiters */
} fx_counter;

/* A counter holding v, with no waiter (FX_COUNTER_INIT(0): all-zero bytes). */
#define FX_COUNTER_INIT(v) { (v), 0 }

/* Sets the value and clears the waiter count. Not to be called while any
 * thread waits on the counter. Returns 0, or EINVAL for a NULL or misaligned
 * c (nothing written). */
int fx_counter_init(fx_counter *c, int32_t value);

/* Adds delta (wrapping), wakes the waiters if any, and returns the new value. */
int32_t fx_counter_add(fx_counter *c, int32_t delta);

/* Returns the current value. */
int32_t fx_counter_load(const fx_counter *c);

/* Sets the value and wakes the waiters if any. Returns 0, or EINVAL for a
 * NULL or misaligned c (nothing written). */
int fx_counter_store(fx_counter *c, int32_t value);

/* Blocks until the value equals target, or the absolute CLOCK_MONOTONIC deadline
 * (NULL: none) passes. Returns 0 (at once if it already equals target),
 * ETIMEDOUT, or EINVAL (bad c, negative or INT32_MAX waiters slot, or tv_nsec
 * out of range when it would block). Never EINTR.
 * Not a cancellation point, like pthread_barrier_wait (the counter is the
 * library's latch and wait group): a pending pthread_cancel waits until the
 * thread reaches one. To stop a waiter, give it a deadline, or store or add
 * a value it waits for. */
int fx_counter_wait(fx_counter *c, int32_t target, const struct timespec *deadline);

/* Latch-style waits that cannot miss their target: fx_counter_wait_ge blocks
 * until value >= target, fx_counter_wait_le until value <= target (signed
 * 32-bit comparison; a value that wraps past INT32_MAX or INT32_MIN is
 * compared as what it wraps to). A counter that overshoots (a wait group
 * counting down past 0, a progress counter stepping over a milestone) still
 * releases them, where fx_counter_wait, waiting for equality, would sleep on.
 * Deadline, return values, cancellation and cost as fx_counter_wait. */
int fx_counter_wait_ge(fx_counter *c, int32_t target, const struct timespec *deadline);
int fx_counter_wait_le(fx_counter *c, int32_t target, const struct timespec *deadline);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_COUNTER_H */
