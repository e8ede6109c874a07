/*
 * src/internal/counter_wait.h - the waiter's side of fx_counter's protocol,
 * for waiters that sleep by other means than fx_counter_wait (an io_uring
 * futex wait, a helper thread).
 *
 * These are steps R1, R2 and R5 of the table at the top of src/counter.c,
 * with the same memory orders; keep the two in step. A writer (add/store)
 * wakes the sleepers on `value` only when `waiters` is non-zero, so a waiter
 * must be counted (R1) before the kernel compares the value in its futex
 * wait, and until it stops waiting: then either the writer's W2 sees the
 * count, or the kernel's compare sees the writer's W1 and the wait returns
 * at once. The kernel makes that compare after a full barrier (futex_wait's
 * queueing, for a thread, an io_uring futex wait and the helper thread
 * alike), which orders R1 before it: R1 is relaxed (internal/waiters.h). (counter.c also counts before its first look, R1 before
 * R2; models/counter.pml shows that the kernel's compare is what matters.)
 * An asynchronous waiter stays counted while it is armed, between the calls
 * of its event loop, exactly as a thread stays counted while it sleeps.
 */
#ifndef FXI_INTERNAL_COUNTER_WAIT_H
#define FXI_INTERNAL_COUNTER_WAIT_H

#include <errno.h>
#include <stdint.h>

#include "futexsync/counter.h"
#include "internal/waiters.h"

/* R1: count the caller as a waiter; 0, or EINVAL (nothing changed) when the
 * count is one the library never writes: negative, or INT32_MAX, which the
 * increment would wrap negative (every later wait would then refuse the
 * slot while this one is counted). Relaxed: the kernel's barrier before its
 * compare orders it (see above and internal/waiters.h). */
static inline int fxi_counter_waiter_enter(fx_counter *c)
{
    /* @step counter.waiter_enter.add */
    return fxi_waiters_enter(&c->waiters, __ATOMIC_RELAXED) < 0 ? EINVAL : 0;
}

/* R2: the value to compare with the target and, when it differs, to sleep on
 * (the kernel re-checks it atomically with queueing the sleeper, after its
 * barrier). Acquire: a value that meets the target brings its writer's
 * earlier work, as the fast path's load; the Dekker pair needs no more of it
 * (see above). */
static inline int32_t fxi_counter_waiter_look(const fx_counter *c)
{
    /* @step counter.waiter_look.load */
    return __atomic_load_n(&c->value, __ATOMIC_ACQUIRE);
}

/* R5: stop being counted. Relaxed: the count only tells writers whether to
 * call the kernel; a writer that still sees us costs one needless wake. */
static inline void fxi_counter_waiter_leave(fx_counter *c)
{
    /* @step counter.waiter_leave.sub */
    __atomic_fetch_sub(&c->waiters, 1, __ATOMIC_RELAXED);
}

#endif /* FXI_INTERNAL_COUNTER_WAIT_H */
