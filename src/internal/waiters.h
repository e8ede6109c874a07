/*
 * src/internal/waiters.h - counting a waiter in a primitive's waiters slot
 * (fx_sem, fx_cond, fx_counter: step W1/R1 of their tables).
 */
#ifndef FXI_INTERNAL_WAITERS_H
#define FXI_INTERNAL_WAITERS_H

#include <stdint.h>

/* Adds the caller to the waiters count *slot and returns the count before
 * it (>= 0), or -1 with nothing changed when the count is one the library
 * never writes: negative, or INT32_MAX, which the increment would wrap
 * negative (every later post, signal or add would then refuse to wake, or
 * the waiter would sleep for ever). A CAS rather than a fetch_add, for that
 * check.
 *
 * `order` is the success order of the CAS, a constant chosen by the caller
 * (where the call is not inlined, at -O0, the compilers take a variable
 * order as seq_cst, or pick it at run time: never weaker). Not
 * always_inline: forced inline at -O0, gcc 12's ASan reported a
 * stack-use-after-scope in the frame that ran next on the caller's stack
 * (test_cxx_std20, asan build), gone without the attribute:
 * - __ATOMIC_RELAXED (fx_sem W1, fx_counter R1): the count is one side of a
 *   Dekker pair with the waker's look at it (the waker publishes its change,
 *   seq_cst, then reads the count, seq_cst), but the waiter's other side is
 *   the kernel's compare of the word in its futex wait, which the kernel
 *   orders after a full barrier (smp_mb() in futex_wait's queueing, the
 *   fence of tests/genmc/model.h): the count is then visible to the waker
 *   or the kernel sees the change and the wait returns at once. A waiter
 *   that does not sleep takes what it found by its own acquire. Only the
 *   atomicity of the increment matters here.
 * - __ATOMIC_SEQ_CST (fx_cond W1): there the count is also one half of a
 *   store-buffering test in user space (cond_bind in src/cond.c), which
 *   only seq_cst settles.
 * The first load and the reload on failure are relaxed: only the guess the
 * CAS checks. */
static inline int32_t fxi_waiters_enter(int32_t *slot, int order)
{
    int32_t n = __atomic_load_n(slot, __ATOMIC_RELAXED);
    do {
        if (n < 0 || n == INT32_MAX)
            return -1;
    } while (!__atomic_compare_exchange_n(slot, &n, n + 1, true, order, __ATOMIC_RELAXED));
    return n;
}

#endif /* FXI_INTERNAL_WAITERS_H */
