/*
 * src/counter.c - a shared counter that threads can wait on.
 *
 * Slots and their transitions
 *
 *   value    any int32           add: value += delta (mod 2^32)   store: value = v
 *                                the futex word the waiters sleep on
 *   waiters  0 .. number of      wait: +1 on entry, -1 on exit; an armed
 *            threads waiting     asynchronous wait (src/async/) counts too
 *                                (negative, or INT32_MAX that the entry
 *                                would wrap: never written -> EINVAL)
 *
 *   writer (add / store)                 waiter (wait for target)
 *   W1 value := new        (seq_cst)     R1 waiters += 1          (relaxed)
 *                                           by CAS; EINVAL, nothing
 *                                           changed, from a count < 0
 *                                           or INT32_MAX
 *   W2 if waiters != 0     (seq_cst)     R2 v := value            (acquire)
 *        wake all                        R3 if v meets the target (==, >= or <=,
 *                                           by the call): done
 *                                        R4 futex_wait(value, v)  kernel re-checks;
 *                                           at most FXI_RECHECK_NS, then R2 again
 *                                        R5 waiters -= 1          (relaxed)
 *
 * Invariant: while a waiter sleeps in R4 and the value meets its target, a
 * writer between W1 and W2 is about to wake it, or a recheck is due within
 * FXI_RECHECK_NS. A writer killed between W1 and W2 wakes nobody; R4 is a
 * bounded sleep (fxi_futex_sleep), so each sleeper re-reads the value at its
 * recheck and returns if it meets the target. (W2 wakes all, so a woken
 * waiter that dies before returning to user space costs nobody else.) In
 * shared memory one sleeper of the process looks for all (src/sleep.c):
 * idle counters cost one wake-up per look period and process, in private
 * memory none (src/internal/sleep.h); add, store and a wait
 * that finds its target are unchanged. W1 and W2 are seq_cst, and R1 is
 * followed by the kernel's full barrier before its compare in R4 (the Dekker
 * pattern): why that loses no wake-up is in docs/design/counter.md.
 */
#include "futexsync/counter.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal/annotate.h"
#include "internal/counter_wait.h"
#include "internal/deadline.h"
#include "internal/fault.h"
#include "internal/futex.h"
#include "internal/sleep.h"

int fx_counter_init(fx_counter *c, int32_t value)
{
    if (fxi_bad_slot(c))
        return EINVAL;
    /* Relaxed: init happens before any sharing, like a memset. */
    __atomic_store_n(&c->value, value, __ATOMIC_RELAXED);
    __atomic_store_n(&c->waiters, 0, __ATOMIC_RELAXED);
    return 0;
}

static void counter_wake_waiters(fx_counter *c)
{
    /* W2, seq_cst: ordered after W1 in the total order (see the table).
     * @step counter.wake_waiters.W2 */
    if (__atomic_load_n(&c->waiters, __ATOMIC_SEQ_CST) != 0) {
        FXI_FAULT("counter.before_wake");
        fxi_futex_wake_raw(&c->value, INT32_MAX, FXI_BITSET_ANY); /* @step counter.wake_waiters.W3 */
    }
}

int32_t fx_counter_add(fx_counter *c, int32_t delta)
{
    if (fxi_bad_slot(c))
        return 0;
    if (fxi_ann_on()) { /* one look at the race-detector probe */
        fxi_ann_own_words(c, sizeof *c);
        fxi_ann_happens_before(c); /* see fx_counter_load */
    }
    /* W1, seq_cst. Atomic signed arithmetic wraps in two's complement (C11
     * 7.17.7.5), and the sum is computed unsigned for the same reason.
     * @step counter.add.W1 */
    uint32_t old = (uint32_t)__atomic_fetch_add(&c->value, delta, __ATOMIC_SEQ_CST);
    counter_wake_waiters(c);
    return (int32_t)(old + (uint32_t)delta);
}

int32_t fx_counter_load(const fx_counter *c)
{
    if (fxi_bad_slot(c))
        return 0;
    const bool on = fxi_ann_on(); /* one look at the race-detector probe */
    if (on)
        fxi_ann_own_words(c, sizeof *c);
    /* Acquire: a reader that sees a value also sees what the writer did
     * before writing it (the counter publishes progress).
     * @step counter.load.acquire */
    int32_t v = __atomic_load_n(&c->value, __ATOMIC_ACQUIRE);
    if (on)
        fxi_ann_happens_after(c); /* the same order, told to race detectors */
    return v;
}

int fx_counter_store(fx_counter *c, int32_t value)
{
    if (fxi_bad_slot(c))
        return EINVAL;
    if (fxi_ann_on()) { /* one look at the race-detector probe */
        fxi_ann_own_words(c, sizeof *c);
        fxi_ann_happens_before(c);
    }
    /* W1, seq_cst as in fx_counter_add. @step counter.store.W1 */
    __atomic_store_n(&c->value, value, __ATOMIC_SEQ_CST);
    counter_wake_waiters(c);
    return 0;
}

/* What a wait waits for: value == target, >= target or <= target. */
enum fx_counter_until { UNTIL_EQ, UNTIL_GE, UNTIL_LE };

static inline bool counter_met(int32_t v, int32_t target, enum fx_counter_until until)
{
    return until == UNTIL_EQ ? v == target : until == UNTIL_GE ? v >= target : v <= target;
}

/* R1..R5 for any of the three conditions. */
static int counter_wait_until(fx_counter *c, int32_t target, const struct timespec *deadline,
                              enum fx_counter_until until)
{
    if (fxi_bad_slot(c))
        return EINVAL;
    const bool on = fxi_ann_on(); /* one look at the race-detector probe */
    if (on)
        fxi_ann_own_words(c, sizeof *c);
    /* Fast path, acquire: the value is the target, and what its writer did
     * before is visible to the caller. No waiter registration, no kernel.
     * @step counter.wait.fast_load */
    int32_t v = __atomic_load_n(&c->value, __ATOMIC_ACQUIRE);
    /* @step counter.wait.fast_hit */
    if (counter_met(v, target, until)) {
        if (on)
            fxi_ann_happens_after(c);
        return 0;
    }
    /* Relaxed: only a plausibility check of the slot, not synchronization.
     * @step counter.wait.check */
    if (__atomic_load_n(&c->waiters, __ATOMIC_RELAXED) < 0)
        return EINVAL;
    if (fxi_deadline_check(deadline))
        return EINVAL;

    /* R1, relaxed. @step counter.wait.R1 */
    if (fxi_counter_waiter_enter(c) != 0)
        return EINVAL;
    struct fxi_recheck rc FXI_RECHECK_CALL = FXI_RECHECK_INIT_SCOPED(FXI_RECHECK_NS);
    int r;
    for (;;) {
        /* R2, acquire. @step counter.wait.R2 */
        v = fxi_counter_waiter_look(c);
        /* @step counter.wait.R3 */
        if (counter_met(v, target, until)) {
            r = 0;
            break;
        }
        /* @step counter.wait.R4 */
        r = fxi_futex_sleep(&c->value, v, deadline, &rc);
        /* @step counter.wait.timed_out */
        if (r == ETIMEDOUT) {
            /* One last look: a change that raced with the timeout counts. */
            r = counter_met(fxi_counter_waiter_look(c), target, until) ? 0 : ETIMEDOUT;
            break;
        }
        /* Woken, changed before we slept, a signal or a recheck: the
         * deadline is absolute, so simply look again. */
    }
    /* R5, relaxed (see counter_wait.h). The acquire load R2 that saw the
     * target already synchronized with its writer. @step counter.wait.R5 */
    fxi_counter_waiter_leave(c);
    if (on && r == 0)
        fxi_ann_happens_after(c);
    return r;
}

int fx_counter_wait(fx_counter *c, int32_t target, const struct timespec *deadline)
{
    return counter_wait_until(c, target, deadline, UNTIL_EQ);
}

int fx_counter_wait_ge(fx_counter *c, int32_t target, const struct timespec *deadline)
{
    return counter_wait_until(c, target, deadline, UNTIL_GE);
}

int fx_counter_wait_le(fx_counter *c, int32_t target, const struct timespec *deadline)
{
    return counter_wait_until(c, target, deadline, UNTIL_LE);
}
