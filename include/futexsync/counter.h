/*
 * futexsync/counter.h - a shared 32-bit counter that threads can wait on.
 *
 * An fx_counter holds an int32_t that fx_counter_add, fx_counter_store and
 * fx_counter_load change and read, and that fx_counter_wait (==),
 * fx_counter_wait_ge (>=) and fx_counter_wait_le (<=) wait on.
 *
 *     static fx_counter todo = FX_COUNTER_INIT(4);   // a wait group of 4
 *     fx_counter_add(&todo, -1);                     // each worker, when done
 *     fx_counter_wait_le(&todo, 0, NULL);            // the coordinator
 *
 * All-zero bytes are a counter holding 0; it works across processes in
 * MAP_SHARED memory. add, load and store make no system call while nobody
 * waits. Waiting for 0 makes it a latch or wait group, as above (wait with
 * fx_counter_wait_le when a worker may count down twice). In memory other
 * processes can reach, a sleeping waiter re-reads the value at least every
 * half second, so a writer killed between its change and its wake leaves no
 * waiter asleep for longer while the value meets its target; the idle waiters
 * of one counter cost one wake-up per period and process, together. In
 * private memory a sleeper rechecks once and then sleeps until woken, as with
 * pthread (docs/reliability.md; design: docs/design/counter.md).
 *
 * Calls return 0 or a positive errno value; a call whose result is a value
 * returns it (>= 0) or a negative errno value; errno is never set. The one
 * exception: fx_counter_add and fx_counter_load return the count, any
 * int32_t, so they have no error value; for a NULL or misaligned counter they
 * return 0 and change nothing. Every other call gives EINVAL for it.
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
    int32_t waiters; /* blocked and armed asynchronous waiters, any process */
} fx_counter;

/* A counter holding v, with no waiter (FX_COUNTER_INIT(0): all-zero bytes). */
#define FX_COUNTER_INIT(v) { (v), 0 }

/* Sets the value and clears the waiter count. Not to be called while any
 * thread waits on the counter. Returns 0, or EINVAL for a NULL or misaligned
 * c (nothing written). */
int fx_counter_init(fx_counter *c, int32_t value);

/* Adds delta (wrapping), wakes the waiters if any, and returns the new value.
 * Every int32_t is a valid value; the sum wraps modulo 2^32 (two's complement,
 * no undefined behaviour). For a NULL or misaligned c it returns 0 and changes
 * nothing (the count has no error value). */
int32_t fx_counter_add(fx_counter *c, int32_t delta);

/* Returns the current value; 0 for a NULL or misaligned c. */
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
