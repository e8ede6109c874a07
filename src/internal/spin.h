/*
 * src/internal/spin.h - the pause instruction for busy-wait loops.
 */
#ifndef FX_INTERNAL_SPIN_H
#define FX_INTERNAL_SPIN_H

#include <stdint.h>

/* Tells the CPU this is a spin-wait loop: saves power, yields the core to a
 * hyper-thread sibling and avoids a memory-order mis-speculation on exit. */
static inline void fxi_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

/* How many iterations of a spin loop (a pause and a load of the awaited word)
 * last about ns nanoseconds on this CPU (at least 1). A pause costs from under
 * a nanosecond to tens of them depending on the CPU (docs/design/mutex.md,
 * "Spin in time"), so a spin given as a count of pauses is a different length
 * of time on every CPU; one given in time is not. The loop's speed is measured
 * at the first call of the process (tens of microseconds, once) and cached. */
int fxi_spin_iterations(int32_t ns);

/*
 * An adaptive spin budget: how long a waiter watches for its condition before
 * it sleeps, learned per thread (each primitive keeps a _Thread_local
 * struct fxi_spin of its own).
 *
 *   - a wait spins for the thread's budget of pause instructions;
 *   - success (the condition came during the spin) doubles the budget, up to
 *     `max` (from 0 it restarts at FX_SPIN_RESTART);
 *   - failure (the thread had to sleep anyway) halves it, down to 0;
 *   - every `gap`-th wait is a probe that spins for `probe` pauses whatever the
 *     budget (a probe must outlast a wake-up: parties that always sleep are out
 *     of step by one wake-up latency and only a long spin can show that they
 *     could keep in step); the gap starts at FX_SPIN_GAP_MIN waits, doubles
 *     with every probe that fails, up to FX_SPIN_GAP_MAX, and drops back at
 *     the first success.
 *
 * Threads with a CPU each fall into step and hand over without system calls;
 * threads that share a CPU (more threads than cores, a loaded machine) soon
 * stop burning the time their partner needs, and probe ever more rarely. A
 * fork() child inherits its parent's values, which are only hints.
 */
#define FX_SPIN_RESTART 8
#define FX_SPIN_GAP_MIN 32u
#define FX_SPIN_GAP_MAX 4096u

struct fxi_spin {
    int budget;       /* pause instructions of the next ordinary wait */
    unsigned waits;   /* waits since the last probe */
    unsigned gap;     /* waits between two probes */
    int current;      /* this wait's spin length (set by fxi_spin_start) */
    int probing;      /* this wait is a probe */
};

#define FX_SPIN_INIT(max) { (max), 0u, FX_SPIN_GAP_MIN, 0, 0 }

/* How many pause instructions this wait may spin. */
static inline int fxi_spin_start(struct fxi_spin *s, int probe)
{
    s->probing = ++s->waits >= s->gap;
    if (s->probing)
        s->waits = 0;
    s->current = s->probing && probe > s->budget ? probe : s->budget;
    return s->current;
}

/* The condition came during the spin. */
static inline void fxi_spin_won(struct fxi_spin *s, int max)
{
    int b = s->current < FX_SPIN_RESTART ? FX_SPIN_RESTART : s->current * 2;
    s->budget = b < max ? b : max;
    s->gap = FX_SPIN_GAP_MIN;
}

/* The spin ran out: the thread sleeps. */
static inline void fxi_spin_lost(struct fxi_spin *s, int min)
{
    s->budget = s->budget / 2 > min ? s->budget / 2 : min;
    if (s->probing && s->gap < FX_SPIN_GAP_MAX)
        s->gap *= 2;
}

#endif /* FX_INTERNAL_SPIN_H */
