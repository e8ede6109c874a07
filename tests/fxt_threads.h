/*
 * tests/fxt_threads.h - small waiting helpers for the tests of fx_sem,
 * fx_rwlock, fx_barrier and fx_once: waiting for a slot to reach a value, and
 * for a thread that publishes its TID to be asleep on a futex word (through
 * fxt_wait_asleep of fxtest.h), without sleeping for a guessed time.
 */
#ifndef FXT_THREADS_H
#define FXT_THREADS_H

#include "fxtest.h"

#include <sched.h>

/* An atomic read of a slot other threads may be changing. */
static inline int32_t fxt_load(const int32_t *slot)
{
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

/* Spins (yielding) until *slot == want; fails the test after 10 s. */
static inline void fxt_wait_slot(const int32_t *slot, int32_t want)
{
    int64_t limit = fxt_now_ns() + 10 * 1000000000LL;
    while (__atomic_load_n(slot, __ATOMIC_ACQUIRE) != want) {
        assert_true(fxt_now_ns() < limit);
        sched_yield();
    }
}

/* Spins (yielding) until (*slot & mask) == want; fails after 10 s. */
static inline void fxt_wait_bits(const int32_t *slot, int32_t mask, int32_t want)
{
    int64_t limit = fxt_now_ns() + 10 * 1000000000LL;
    while ((__atomic_load_n(slot, __ATOMIC_ACQUIRE) & mask) != want) {
        assert_true(fxt_now_ns() < limit);
        sched_yield();
    }
}

/* Waits until the thread whose TID is published in *tid_slot (0 until then)
 * sleeps in a futex wait on addr; fails the test after 10 s. */
static inline void fxt_wait_sleeping(const pid_t *tid_slot, const void *addr)
{
    int64_t limit = fxt_now_ns() + 10 * 1000000000LL;
    pid_t t;
    while ((t = __atomic_load_n(tid_slot, __ATOMIC_ACQUIRE)) == 0) {
        assert_true(fxt_now_ns() < limit);
        sched_yield();
    }
    assert_true(fxt_wait_asleep(t, addr, 10000));
}

#endif /* FXT_THREADS_H */
