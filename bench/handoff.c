/*
 * bench/handoff.c - the handoff workload: what it costs this machine to pass
 * one cache line from one CPU to another and back.
 *
 * Every lock that changes CPUs pays at least this once per acquisition: the
 * word moves to the new holder's CPU. The workload pins two threads to the
 * first two allowed CPUs; A sets a flag, B sees it and clears it, A sees the
 * clear: one round trip. Each round reports its own mean, and the rounds are
 * printed one by one as well as their median and spread, since on a virtual
 * machine the figure can jump between rounds (bench/README.md, "Contention on
 * a 2-vCPU AMD EPYC"): a throughput spread that follows it belongs to the
 * machine, not to the lock.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fxb_handoff {
    /* The one line that travels: the turn, and the stop flag that B reads
     * with it (on a line of its own it would cost B a second load per pass). */
    _Alignas(64) int flag; /* 1: B's turn, 0: A's turn */
    int stop;
    _Alignas(64) int pad;
    uint64_t b_trips;
    int cpu_b;
    int pin_err;
};

static void *fxb_handoff_b(void *arg)
{
    struct fxb_handoff *h = arg;
    h->pin_err = fxb_pin_self(h->cpu_b);
    uint64_t n = 0;
    for (;;) {
        /* Acquire/release: the turn is the only message; seq_cst would add a
         * fence to every pass on some CPUs and measure that instead. */
        while (__atomic_load_n(&h->flag, __ATOMIC_ACQUIRE) != 1)
            if (__atomic_load_n(&h->stop, __ATOMIC_RELAXED))
                goto out;
        __atomic_store_n(&h->flag, 0, __ATOMIC_RELEASE);
        n++;
    }
out:
    h->b_trips = n;
    return NULL;
}

/* One round: mean ns per round trip over about duration_ns; NAN on failure. */
static double fxb_handoff_round(int cpu_a, int cpu_b, int64_t duration_ns, bool *ok)
{
    struct fxb_handoff *h = fxb_alloc64(sizeof *h);
    h->cpu_b = cpu_b;
    cpu_set_t saved;
    pthread_getaffinity_np(pthread_self(), sizeof saved, &saved);
    pthread_t b;
    int e = fxb_pin_self(cpu_a);
    const char *what = "pin to CPU";
    if (e == 0) {
        e = pthread_create(&b, NULL, fxb_handoff_b, h);
        what = "pthread_create";
    }
    if (e != 0) {
        pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
        fxb_end_progress();
        fprintf(stderr, "futexsync-bench: FAILED (handoff): %s: %s\n", what, strerror(e));
        *ok = false;
        free(h);
        return NAN;
    }
    uint64_t trips = 0;
    int64_t t0 = fxb_now_ns(), t1;
    do {
        for (int i = 0; i < 1000; i++) {
            __atomic_store_n(&h->flag, 1, __ATOMIC_RELEASE);
            while (__atomic_load_n(&h->flag, __ATOMIC_ACQUIRE) != 0)
                ;
        }
        trips += 1000;
        t1 = fxb_now_ns();
    } while (t1 - t0 < duration_ns);
    __atomic_store_n(&h->stop, 1, __ATOMIC_RELAXED);
    pthread_join(b, NULL);
    pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
    double ns = (double)(t1 - t0) / (double)trips;
    if (h->pin_err != 0 || h->b_trips != trips) {
        fxb_end_progress();
        fprintf(stderr, "futexsync-bench: FAILED (handoff): %s\n",
                h->pin_err ? strerror(h->pin_err) : "B counted another number of round trips");
        *ok = false;
        ns = NAN;
    }
    free(h);
    return ns;
}

bool fxb_handoff(struct fxb_report *rep, int rounds, int64_t duration_ms)
{
    int cpus[2] = { fxb_allowed_cpu(0), fxb_allowed_cpu(1) };
    printf("\n== handoff: one cache line from CPU to CPU and back (the least a lock pays "
           "each time it changes CPUs) ==\n");
    if (cpus[0] < 0 || cpus[0] == cpus[1]) {
        printf("   needs two CPUs; this process may run on one\n");
        return true;
    }
    printf("   threads pinned to CPUs %d and %d; ns per round trip, each round %lld ms\n",
           cpus[0], cpus[1], (long long)duration_ms);
    double *ns = calloc((size_t)rounds, sizeof *ns);
    if (ns == NULL) {
        fprintf(stderr, "futexsync-bench: out of memory\n");
        return false;
    }
    bool ok = true;
    for (int r = 0; r < rounds; r++) {
        fxb_note_progress("handoff", "cache line", 2, r + 1, rounds);
        ns[r] = fxb_handoff_round(cpus[0], cpus[1], duration_ms * 1000000, &ok);
    }
    fxb_end_progress();
    printf("rounds:");
    for (int r = 0; r < rounds; r++)
        printf(" %.0f", ns[r]);
    double lo, hi;
    fxb_spread(ns, rounds, 1, &lo, &hi);
    double med = fxb_median(ns, rounds);
    printf("\nmedian %.0f (%.0f-%.0f)\n", med, lo, hi);
    free(ns);
    /* In --csv: the round trip as ns_per_pair, its spread as the pair's. */
    struct fxb_row *row = fxb_row_add(rep, "handoff", "cache-line", 2);
    row->rounds = rounds;
    row->ns_per_pair = med;
    row->pair_min = lo;
    row->pair_max = hi;
    row->correct = ok;
    return ok;
}
