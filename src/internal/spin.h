/*
 * src/internal/spin.h - the pause instruction for busy-wait loops.
 */
#ifndef FXI_INTERNAL_SPIN_H
#define FXI_INTERNAL_SPIN_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

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
 * Near and far handoffs. A spinner can time the load that finds the word
 * released by another CPU: about the time a cache line takes to come over
 * from that CPU. Near (cores that share a cache: tens of nanoseconds) the
 * spin pays: the waiter takes the lock while the holder's CPU does the work
 * between two acquisitions. Far (another socket or core complex, or vCPUs
 * the host has placed apart: hundreds) every handoff costs more than the
 * work it lets run in parallel, and a spinner pulls the line away from the
 * holder's CPU at every look. There the waiter leaves the lock to the CPU
 * that has it: it looks again only after short sleeps on a word of its own
 * (fxi_poll_wait), a few times, and then waits as any sleeper does.
 * docs/design/mutex.md, "Near and far handoffs".
 *
 * Each thread keeps its own estimate in _Thread_local memory (no shared
 * write): an average of its timed loads, each capped at twice
 * FXI_HANDOFF_FAR_NS so that one load the scheduler interrupted cannot decide
 * alone. Timing is not free, and whatever lies between a spinner's seeing
 * the release and its CAS delays every handoff; so only every
 * FXI_HANDOFF_SAMPLE_EVERY-th contended acquisition of a thread spins timed
 * (also when it judges far: that is how the estimate follows the machine
 * back), the time is only stored then (fxi_handoff_seen), and the arithmetic
 * waits for the thread's next contended acquisition, out of the critical
 * section. Where the CPU has no cheap ordered counter (it is read on x86 and
 * aarch64 only) or the counter is coarser than FXI_HANDOFF_MIN_TICKS_PER_US,
 * nothing is timed: every handoff counts as near, the spin of before. A
 * fork() child inherits the estimate: a hint.
 */
#define FXI_HANDOFF_FAR_NS 120
#define FXI_HANDOFF_SAMPLE_EVERY 16u
#define FXI_HANDOFF_MIN_TICKS_PER_US 20
/* The poll of a far waiter: FXI_POLL_LOOKS sleeps, the first FXI_POLL_FIRST_NS
 * long, each next one twice as long. */
#define FXI_POLL_LOOKS 3
#define FXI_POLL_FIRST_NS 10000
/* The timer slack of those sleeps: a tenth of the shortest. */
#define FXI_POLL_SLACK_NS 1000L

/* The CPU's cycle or tick counter, read in program order (the fences keep
 * the timed instruction between two reads); 0 where none is read (a 32-bit
 * x86 build without SSE2 may run on a CPU without lfence). */
static inline uint64_t fxi_ticks(void)
{
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
    return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
    uint64_t t;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(t)::"memory");
    return t;
#else
    return 0;
#endif
}

/* The last timed load of this thread not yet counted, in ticks (0: none). */
extern _Thread_local uint32_t fxi_handoff_pending;

/* How this contended acquisition waits before it sleeps (after counting the
 * pending sample): a plain spin, a timed spin (the sample), or a poll (the
 * thread's handoffs are far). */
enum { FXI_HANDOFF_SPIN, FXI_HANDOFF_TIMED, FXI_HANDOFF_POLL };
int fxi_handoff_mode(void);

/* A spin's load, begun at fxi_ticks() == t0, found the word released:
 * keeps its time for the next fxi_handoff_mode. */
static inline void fxi_handoff_seen(uint64_t t0)
{
    uint64_t d = fxi_ticks() - t0;
    fxi_handoff_pending = d > UINT32_MAX ? UINT32_MAX : (d == 0 ? 1 : (uint32_t)d);
}

/* The poll of a far waiter, before its look number k (from 0): sleeps
 * FXI_POLL_FIRST_NS << k on a word of the thread's own, which nothing wakes,
 * and returns true; returns false at once when the poll is over: k reached
 * FXI_POLL_LOOKS, or the sleep would end past the caller's absolute
 * CLOCK_MONOTONIC deadline (NULL: none; a bad tv_nsec also ends the poll,
 * for the caller's wait to report). A signal ends a sleep early and counts as
 * one. Not a cancellation point. */
bool fxi_poll_wait(int k, const struct timespec *deadline);

/*
 * An adaptive spin budget: how long a waiter watches for its condition before
 * it sleeps, learned per thread (each primitive keeps a _Thread_local
 * struct fxi_spin of its own).
 *
 *   - a wait spins for the thread's budget of pause instructions;
 *   - success (the condition came during the spin) doubles the budget, up to
 *     `max` (from 0 it restarts at FXI_SPIN_RESTART);
 *   - failure (the thread had to sleep anyway) halves it, down to 0;
 *   - every `gap`-th wait is a probe that spins for `probe` pauses whatever the
 *     budget (a probe must outlast a wake-up: parties that always sleep are out
 *     of step by one wake-up latency and only a long spin can show that they
 *     could keep in step); the gap starts at FXI_SPIN_GAP_MIN waits, doubles
 *     with every probe that fails, up to FXI_SPIN_GAP_MAX, and drops back at
 *     the first success.
 *
 * Threads with a CPU each fall into step and hand over without system calls;
 * threads that share a CPU (more threads than cores, a loaded machine) soon
 * stop burning the time their partner needs, and probe ever more rarely. A
 * fork() child inherits its parent's values, which are only hints.
 */
#define FXI_SPIN_RESTART 8
#define FXI_SPIN_GAP_MIN 32u
#define FXI_SPIN_GAP_MAX 4096u

struct fxi_spin {
    int budget;       /* pause instructions of the next ordinary wait */
    unsigned waits;   /* waits since the last probe */
    unsigned gap;     /* waits between two probes */
    int current;      /* this wait's spin length (set by fxi_spin_start) */
    int probing;      /* this wait is a probe */
};

#define FXI_SPIN_INIT(max) { (max), 0u, FXI_SPIN_GAP_MIN, 0, 0 }

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
    int b = s->current < FXI_SPIN_RESTART ? FXI_SPIN_RESTART : s->current * 2;
    s->budget = b < max ? b : max;
    s->gap = FXI_SPIN_GAP_MIN;
}

/* The spin ran out: the thread sleeps. */
static inline void fxi_spin_lost(struct fxi_spin *s, int min)
{
    s->budget = s->budget / 2 > min ? s->budget / 2 : min;
    if (s->probing && s->gap < FXI_SPIN_GAP_MAX)
        s->gap *= 2;
}

#endif /* FXI_INTERNAL_SPIN_H */
