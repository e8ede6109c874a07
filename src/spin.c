/*
 * src/spin.c - how many iterations of a spin loop fit in a given time on this
 * CPU: measured once per process, so that every spin is a length of time
 * (src/internal/spin.h), whatever a pause instruction costs here.
 *
 * The one word: 0 before the first measurement, then the loop's iterations
 * per microsecond (1..FX_SPIN_PER_US_MAX). Threads that race to measure first
 * all store a value measured on this CPU; any of them serves.
 */
#include "internal/spin.h"

#include "internal/annotate.h"

#include <limits.h>
#include <stdint.h>
#include <time.h>

/* Iterations of the measured loop (a pause and a relaxed load, as the spins
 * run it), and how many runs: the shortest run wins, since a run the
 * scheduler interrupted is only ever longer. */
#define FX_SPIN_CAL_ITERS 256
#define FX_SPIN_CAL_RUNS 3
/* Bounds of a measurement: an iteration takes 1/4 ns at the least (a pause
 * that costs nothing still leaves a load) and 1 us at the most. */
#define FX_SPIN_PER_US_MAX 4096
#define FX_SPIN_PER_US_MIN 1

static int32_t spin_per_us;

static int64_t spin_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

__attribute__((noinline, cold)) static int32_t spin_measure(void)
{
    /* Helgrind and DRD would see the word, stored here and read by every
     * contended lock, as a race: it is the library's own word, read and
     * written only with the atomics below. Hidden from them before the first
     * store (the hook does nothing without them). */
    fxi_ann_own_words(&spin_per_us, sizeof spin_per_us);
    int64_t best = INT64_MAX;
    for (int r = 0; r < FX_SPIN_CAL_RUNS; r++) {
        int64_t t0 = spin_now_ns();
        for (int i = 0; i < FX_SPIN_CAL_ITERS; i++) {
            /* Relaxed: the load is only there to cost what a spin's load
             * costs; its value is not used. */
            (void)__atomic_load_n(&spin_per_us, __ATOMIC_RELAXED);
            fxi_cpu_relax();
        }
        int64_t d = spin_now_ns() - t0;
        if (d < best)
            best = d;
    }
    int64_t per_us = best > 0 ? (int64_t)FX_SPIN_CAL_ITERS * 1000 / best : FX_SPIN_PER_US_MAX;
    if (per_us > FX_SPIN_PER_US_MAX)
        per_us = FX_SPIN_PER_US_MAX;
    if (per_us < FX_SPIN_PER_US_MIN)
        per_us = FX_SPIN_PER_US_MIN;
    /* Relaxed: a hint read on its own; a thread that still sees 0 measures
     * again and stores a value as good. */
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
