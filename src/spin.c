/*
 * src/spin.c - how many iterations of a spin loop fit in a given time on this
 * CPU: measured once per process, so that every spin is a length of time
 * (src/internal/spin.h), whatever a pause instruction costs here.
 *
 * The two words: 0 before the first measurement, then the loop's iterations
 * per microsecond (1..FXI_SPIN_PER_US_MAX), and the CPU counter's ticks per
 * microsecond (0: no usable counter, else FXI_HANDOFF_MIN_TICKS_PER_US..
 * FXI_TICKS_PER_US_MAX). Threads that race to measure first all store values
 * measured on this CPU; any of them serves.
 *
 * The thread's handoff estimate (src/internal/spin.h, "Near and far
 * handoffs"), _Thread_local:
 *
 *   avg_ns    average of the capped load times; > FXI_HANDOFF_FAR_NS: far
 *   calls     contended acquisitions; every FXI_HANDOFF_SAMPLE_EVERY-th
 *             spins timed, whatever the estimate
 *
 * Why a time and not a count, near and far handoffs: docs/design/mutex.md.
 */
#include "internal/spin.h"

#include "futexsync/time.h"
#include "internal/annotate.h"
#include "internal/deadline.h"
#include "internal/fault.h"
#include "internal/futex.h"
#include "internal/syscall.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

/* Iterations of the measured loop (a pause and a relaxed load, as the spins
 * run it), and how many runs: the shortest run wins, since a run the
 * scheduler interrupted is only ever longer. */
#define FXI_SPIN_CAL_ITERS 256
#define FXI_SPIN_CAL_RUNS 3
/* Bounds of a measurement: an iteration takes 1/4 ns at the least (a pause
 * that costs nothing still leaves a load) and 1 us at the most. */
#define FXI_SPIN_PER_US_MAX 4096
#define FXI_SPIN_PER_US_MIN 1
/* A counter faster than 64 GHz is a wrong reading: none is used. */
#define FXI_TICKS_PER_US_MAX 65536

static int32_t spin_per_us;
static int32_t ticks_per_us;

static _Thread_local struct {
    int32_t avg_ns;
    uint32_t calls;
} handoff;
_Thread_local uint32_t fxi_handoff_pending;

__attribute__((noinline, cold)) static int32_t spin_measure(void)
{
    /* Helgrind and DRD would see the word, stored here and read by every
     * contended lock, as a race: it is the library's own word, read and
     * written only with the atomics below. Hidden from them before the first
     * store (the hook does nothing without them). */
    fxi_ann_own_words(&spin_per_us, sizeof spin_per_us);
    fxi_ann_own_words(&ticks_per_us, sizeof ticks_per_us);
    int64_t best = INT64_MAX;
    /* The counter's rate, over the whole measurement (tens of microseconds:
     * the clock's own granularity is far smaller). */
    int64_t start_ns = fxi_now_ns();
    uint64_t start_ticks = fxi_ticks();
    for (int r = 0; r < FXI_SPIN_CAL_RUNS; r++) {
        int64_t t0 = fxi_now_ns();
        for (int i = 0; i < FXI_SPIN_CAL_ITERS; i++) {
            /* Relaxed: the load is only there to cost what a spin's load
             * costs; its value is not used. */
            (void)__atomic_load_n(&spin_per_us, __ATOMIC_RELAXED);
            fxi_cpu_relax();
        }
        int64_t d = fxi_now_ns() - t0;
        if (d < best)
            best = d;
    }
    int64_t per_us = best > 0 ? (int64_t)FXI_SPIN_CAL_ITERS * 1000 / best : FXI_SPIN_PER_US_MAX;
    if (per_us > FXI_SPIN_PER_US_MAX)
        per_us = FXI_SPIN_PER_US_MAX;
    if (per_us < FXI_SPIN_PER_US_MIN)
        per_us = FXI_SPIN_PER_US_MIN;
    uint64_t ticks = fxi_ticks() - start_ticks;
    int64_t elapsed = fxi_now_ns() - start_ns;
    int64_t tpu = elapsed > 0 ? (int64_t)(ticks * 1000 / (uint64_t)elapsed) : 0;
    if (tpu < FXI_HANDOFF_MIN_TICKS_PER_US || tpu > FXI_TICKS_PER_US_MAX)
        tpu = 0;
    /* Relaxed, both: hints read on their own; a thread that still sees 0
     * measures again and stores values as good. The rate is stored first,
     * so a thread that sees spin_per_us also sees a measured rate (or
     * measures again: either serves). */
    __atomic_store_n(&ticks_per_us, (int32_t)tpu, __ATOMIC_RELAXED);
    __atomic_store_n(&spin_per_us, (int32_t)per_us, __ATOMIC_RELAXED);
    return (int32_t)per_us;
}

int fxi_spin_iterations(int32_t ns)
{
    /* Relaxed: see spin_measure. */
    int32_t per_us = __atomic_load_n(&spin_per_us, __ATOMIC_RELAXED);
    if (per_us == 0)
        per_us = spin_measure();
    int64_t n = ((int64_t)ns * per_us + 999) / 1000;
    return n < 1 ? 1 : n > INT_MAX ? INT_MAX : (int)n;
}

int fxi_handoff_mode(void)
{
    /* Relaxed: a hint; 0 means not measured yet, or no usable counter. */
    int32_t tpu = __atomic_load_n(&ticks_per_us, __ATOMIC_RELAXED);
    uint32_t d = fxi_handoff_pending;
    if (d != 0) {
        fxi_handoff_pending = 0;
        if (tpu != 0) {
            uint64_t ns = (uint64_t)d * 1000 / (uint64_t)tpu;
            if (ns > 2 * FXI_HANDOFF_FAR_NS)
                ns = 2 * FXI_HANDOFF_FAR_NS;
            /* An exponential average, weight 1/16: a few loads do not flip it. */
            handoff.avg_ns += ((int32_t)ns - handoff.avg_ns) / 16;
        }
    }
    if (++handoff.calls % FXI_HANDOFF_SAMPLE_EVERY == 0 && tpu != 0)
        return FXI_HANDOFF_TIMED;
    /* Tests force a verdict: a far waiter's poll on any machine. */
    if (FXI_FAULT_VERDICT("spin.handoff_far", handoff.avg_ns > FXI_HANDOFF_FAR_NS))
        return FXI_HANDOFF_POLL;
    return FXI_HANDOFF_SPIN;
}

bool fxi_poll_wait(int k, const struct timespec *deadline)
{
    if (k >= FXI_POLL_LOOKS || fxi_deadline_check(deadline))
        return false;
    struct timespec until = fx_deadline_in((int64_t)FXI_POLL_FIRST_NS << k);
    if (deadline != NULL && fxi_ts_before(deadline, &until))
        return false;
    /* A word of this thread's own, always 0, whose address no other thread
     * knows: only the timeout (or a signal) ends the sleep, and no wake
     * meant for a sleeper of the caller's object is ever spent here. */
    static _Thread_local int32_t nobody;
    FXI_FAULT("spin.poll");
    /* The thread's timer slack (50 us unless it set its own) would make
     * each sleep several times longer than asked: FXI_POLL_SLACK_NS for the
     * sleep, then the thread's own value back. A refused prctl leaves the
     * slack as it was (longer sleeps, nothing else). */
    long slack = fxi_syscall(SYS_prctl, PR_GET_TIMERSLACK, 0L, 0L, 0L, 0L, 0L);
    bool set = !fxi_syscall_failed(slack) && slack > FXI_POLL_SLACK_NS &&
               !fxi_syscall_failed(
                   fxi_syscall(SYS_prctl, PR_SET_TIMERSLACK, FXI_POLL_SLACK_NS, 0L, 0L, 0L, 0L));
    FXI_FAULT("spin.poll.sleep");
    (void)fxi_futex_wait_raw(&nobody, 0, &until, FXI_BITSET_ANY);
    if (set)
        (void)fxi_syscall(SYS_prctl, PR_SET_TIMERSLACK, slack, 0L, 0L, 0L, 0L);
    return true;
}
