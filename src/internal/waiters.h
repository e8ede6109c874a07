/*
 * src/internal/waiters.h - counting a waiter in a primitive's waiters slot
 * (fx_sem, fx_cond, fx_counter: step W1/R1 of their tables).
 */
#ifndef FX_INTERNAL_WAITERS_H
#define FX_INTERNAL_WAITERS_H

#include <stdint.h>

/* Adds the caller to the waiters count *slot and returns the count before
 * it (>= 0), or -1 with nothing changed when the count is one the library
 * never writes: negative, or INT32_MAX, which the increment would wrap
 * negative (every later post, signal or add would then refuse to wake, or
 * the waiter would sleep for ever). A CAS rather than a fetch_add, for that
 * check. Seq_cst, load and CAS alike: each caller's W1/R1 is one side of a
 * Dekker pair with its waker's look at the count (the waker publishes its
 * change, then reads the count; the waiter counts itself, then reads the
 * word), so both must be in the single total order. On failure n is
 * reloaded (seq_cst as the CAS). */
static inline int32_t fxi_waiters_enter(int32_t *slot)
{
    int32_t n = __atomic_load_n(slot, __ATOMIC_SEQ_CST);
    do {
        if (n < 0 || n == INT32_MAX)
            return -1;
    } while (!__atomic_compare_exchange_n(slot, &n, n + 1, true, __ATOMIC_SEQ_CST,
                                          __ATOMIC_SEQ_CST));
    return n;
}

#endif /* FX_INTERNAL_WAITERS_H */
