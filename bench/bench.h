/*
 * bench/bench.h - futexsync-bench: one harness, every lock through an adapter.
 *
 * Layout of the program:
 *   locks.c   the adapters (struct fxb_lock) and the measured loops, which are
 *             instantiated once per lock so that its lock and unlock calls are
 *             direct (inlined where the lock is a header, as Concurrency Kit's)
 *   count.c   futex system-call counting (perf tracepoint or seccomp trap),
 *             CPU time and context switches (getrusage), time, busy work
 *   run.c     one measured run: threads, processes, idle waiters, pairs
 *   report.c  result rows, medians, the terminal tables, CSV, gnuplot SVG
 *   main.c    options and the workloads (warm-up, interleaved rounds)
 *   idle.c    the idle workload's per-primitive table: threads blocked on
 *             fx_* objects and on their pthread peers, objects x waiters in
 *             1 or more processes, private and shared memory; and its
 *             robust-mutex rows (fx_rmutex, 1 and 4 processes)
 *   programs.c existing programs (sysbench, CPython) A/B against glibc
 *             through the LD_PRELOAD interposer of bench/preload
 *   toolbox.c fx_sem, fx_cond, fx_rwlock, fx_barrier, fx_once against their
 *             pthread peers: adapters, runs, method and tables of the
 *             uncontended-toolbox, pingpong, rwlock and barrier workloads
 */
#ifndef FXB_BENCH_H
#define FXB_BENCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <futexsync.h>
#include <futexsync/stats.h>

/* --- time and busy work (count.c) ---------------------------------------- */

int64_t fxb_now_ns(void); /* CLOCK_MONOTONIC, shared by all processes */
void fxb_sleep_ns(int64_t ns);

/* Busy work: `iters` iterations of a loop the compiler cannot remove, with no
 * memory access. One out-of-line copy serves the calibration and every lock's
 * loop, so its speed cannot depend on where a lock's loop happens to be
 * placed (loop alignment changes a tight loop's speed on some CPUs).
 * fxb_calibrate() measures iterations per ns on this machine. */
void fxb_work(uint64_t iters);
void fxb_calibrate(void);
uint64_t fxb_ns_to_iters(double ns);
double fxb_iters_per_ns(void);

/* --- futex system-call counting and CPU time (count.c) ------------------- */

enum fxb_count_method {
    FXB_COUNT_NONE,    /* futex calls not counted (context switches still are) */
    FXB_COUNT_PERF,    /* perf tracepoint syscalls:sys_enter_futex, per thread */
    FXB_COUNT_SECCOMP, /* seccomp SIGSYS trap on futex, in a forked child */
    FXB_COUNT_AUTO,    /* perf if permitted, else seccomp if possible, else none */
};
const char *fxb_count_name(enum fxb_count_method m);
/* The best method available here (auto), or NONE with *why explaining. */
enum fxb_count_method fxb_count_probe(enum fxb_count_method wanted, const char **why);

/* A per-thread futex-call counter: open in the thread it counts. */
struct fxb_counter {
    enum fxb_count_method method;
    int fd; /* perf */
};
int fxb_counter_open(struct fxb_counter *c, enum fxb_count_method m); /* 0 or errno */
void fxb_counter_start(struct fxb_counter *c);
void fxb_counter_stop(struct fxb_counter *c);
/* Calls between start and stop, or UINT64_MAX if the counter failed. */
uint64_t fxb_counter_read(struct fxb_counter *c);
void fxb_counter_close(struct fxb_counter *c);
/* Installs the SIGSYS counting filter in this (single-threaded) process:
 * irreversible, so done in a forked child. 0 or an errno. */
int fxb_seccomp_install(void);

/* CPU time (user + system) and voluntary context switches. */
struct fxb_usage {
    int64_t cpu_ns;
    int64_t vcsw;
};
void fxb_usage_thread(struct fxb_usage *u); /* RUSAGE_THREAD */
void fxb_usage_process(struct fxb_usage *u); /* RUSAGE_SELF */

/* --- latency histogram (run.c) ------------------------------------------- */

/* Log-linear buckets: exact below 64 ns, then 32 per power of two (3 %). */
#define FXB_HIST_BUCKETS (64 + 36 * 32)
struct fxb_hist {
    uint64_t n[FXB_HIST_BUCKETS];
};
static inline unsigned fxb_hist_bucket(uint64_t ns)
{
    if (ns < 64)
        return (unsigned)ns;
    unsigned e = 63u - (unsigned)__builtin_clzll(ns); /* 6 .. 63 */
    if (e > 41)
        return FXB_HIST_BUCKETS - 1;
    return 64u + (e - 6u) * 32u + (unsigned)((ns >> (e - 5u)) & 31u);
}
uint64_t fxb_hist_quantile(const struct fxb_hist *h, double q);

/* --- the lock adapter (locks.c) ------------------------------------------ */

/* The state of one thread's measured loop. */
struct fxb_loop {
    uint64_t *counter;    /* protected by the lock: must equal the acquisitions */
    const int *stop;      /* set by the coordinator */
    uint64_t cs_iters;    /* busy work inside the critical section */
    uint64_t out_iters;   /* busy work between acquisitions */
    struct fxb_hist *hist; /* non-NULL: time every acquisition (fairness) */
    uint64_t max_wait_ns;
    uint64_t acquisitions;
    uint64_t errors;      /* lock or unlock calls that returned an error */
};

enum {
    FXB_PSHARED = 1u,   /* works in MAP_SHARED memory across processes */
    FXB_SLEEPS = 2u,    /* a waiter sleeps in the kernel (not a pure spinlock) */
    FXB_FX = 4u,        /* a futexsync lock: the stats build counts it */
    FXB_PROC_DEFAULT = 8u, /* in the default set of the processes workload */
    FXB_QUICK = 16u,    /* in the --quick set */
    FXB_NOLOCK = 32u,   /* no lock at all: the machine's own capacity and spread;
                           only when named in --locks */
};

struct fxb_lock {
    const char *name;
    const char *what;  /* one line for --list */
    const char *peer;  /* the pthread lock of the same kind, for one more ratio */
    size_t size;       /* bytes of the lock object */
    unsigned flags;
    int (*init)(void *l, bool pshared); /* 0 or an errno */
    void (*destroy)(void *l);
    int (*lock)(void *l);
    int (*unlock)(void *l);
    /* n uncontended lock+unlock pairs; returns the number of errors */
    uint64_t (*pairs)(void *l, uint64_t n);
    /* the contended loop: one acquisition, then more until *w->stop */
    void (*loop)(void *l, struct fxb_loop *w);
};

extern const struct fxb_lock fxb_locks[];
extern const size_t fxb_nlocks;
const struct fxb_lock *fxb_lock_find(const char *name);

/* --- one measured run (run.c) -------------------------------------------- */

struct fxb_cfg {
    const struct fxb_lock *lk;
    int workers;        /* threads, or processes */
    int64_t duration_ns;
    uint64_t cs_iters, out_iters;
    bool timed;         /* fairness: histogram and longest wait */
    enum fxb_count_method count; /* NONE or PERF inline; SECCOMP forks */
    int64_t hold_ns;    /* idle */
};

struct fxb_res {
    bool ok;            /* the run finished and its checks held */
    char why[160];      /* when !ok */
    uint64_t acquisitions;
    double seconds;     /* first start to last finish */
    double ops_per_s;
    double cpu_ns;      /* user + system of the workers during the run */
    double vcsw;        /* voluntary context switches (sleeps) */
    double futex_calls; /* NAN when not counted */
    uint64_t min_acq, max_acq;
    uint64_t max_wait_ns, p50_ns, p99_ns;
    double hold_cpu_pct; /* idle: CPU of the process while the lock was held */
    double drain_ms;     /* idle: unlock to the last waiter done */
    fx_stats fx;         /* stats build, futexsync locks: counts on the lock */
    bool fx_valid;
};

/* What one worker measures around its measured work: the wall clock, and the
 * CPU time, sleeps and (when counting) futex calls of the calling thread
 * (a forked child's only thread: the whole child). */
struct fxb_span {
    struct fxb_usage u0, u1;
    int64_t t_start, t_end;
    uint64_t futex; /* UINT64_MAX when the counter failed */
    int count_err;  /* 0, or why the counter could not be opened */
};
/* In the worker, once it and the others may start; c is open (fxb_counter_open). */
void fxb_span_begin(struct fxb_span *s, struct fxb_counter *c);
void fxb_span_end(struct fxb_span *s, struct fxb_counter *c);

/* A run's totals over its workers' spans. */
struct fxb_span_sum {
    int64_t t0, t1; /* first start, last end */
    double cpu_ns, vcsw;
    uint64_t futex;
    bool counted; /* every span counted its futex calls */
};
void fxb_span_sum_init(struct fxb_span_sum *sum, bool counting);
void fxb_span_add(struct fxb_span_sum *sum, const struct fxb_span *s);
/* Sets r's seconds (first start to last end), cpu_ns, vcsw, futex_calls (NAN
 * unless counted) and ops_per_s, from sum and r->acquisitions. */
void fxb_span_result(const struct fxb_span_sum *sum, struct fxb_res *r);

/* Zeroed memory on cache lines of its own (exits when out of memory). */
void *fxb_alloc64(size_t size);
/* The i-th CPU (mod their number) of those the calling thread may use, or a
 * negative errno. */
int fxb_allowed_cpu(int i);
/* Pins the calling thread to `cpu` (a negative errno from fxb_allowed_cpu is
 * passed through). 0 or an errno. */
int fxb_pin_self(int cpu);
/* Marks r failed with the reason, keeping the first one. */
void fxb_fail(struct fxb_res *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How long a run may overrun its duration before it counts as hung. */
#define FXB_HANG_NS (60 * INT64_C(1000000000))

/* Joins t, or, when it has not finished FXB_HANG_NS after the run_ns a run
 * should take, reports the lock (name, workers) as hung and exits with 1. */
void fxb_join_or_die(pthread_t t, const char *name, int workers, int64_t run_ns);
/* Reaps pid within deadline_ns (absolute); kills it past that. Returns its
 * exit status, 128 + signal, or -1 when it had to be killed. */
int fxb_reap(pid_t pid, int64_t deadline_ns);
void fxb_run_threads(const struct fxb_cfg *c, struct fxb_res *r);
void fxb_run_processes(const struct fxb_cfg *c, struct fxb_res *r);
void fxb_run_idle(const struct fxb_cfg *c, struct fxb_res *r);
/* fxb_run_threads in a forked child with the seccomp counter installed. */
void fxb_run_threads_counted_child(const struct fxb_cfg *c, struct fxb_res *r);
/* ns per uncontended pair, measured over about target_ns of the thread's CPU
 * time (time spent preempted by other processes is not counted); *errors set. */
double fxb_run_pairs(const struct fxb_lock *lk, int64_t target_ns, uint64_t *errors);
/* Futex calls made by n uncontended pairs (NAN when not counted). */
double fxb_count_pairs(const struct fxb_lock *lk, uint64_t n, enum fxb_count_method m);
/* A second, idle thread in the process while uncontended pairs are timed. */
void fxb_idle_thread_start(void);
void fxb_idle_thread_stop(void);

/* --- results and output (report.c) -------------------------------------- */

struct fxb_row {
    const char *workload;
    const char *lock;
    int threads;   /* threads or processes, 0 for uncontended */
    int rounds;
    double ops_per_s, ns_per_pair;
    double vs_pthread, vs_nsync, vs_peer; /* ratios from the same run */
    double cpu_ns_per_acq, cpu_pct, sleeps_per_acq, futex_per_acq;
    double min_max, max_wait_us, p50_us, p99_us;
    double hold_cpu_pct, drain_ms;
    double fx_contended, fx_waits, fx_wakes, fx_spins, fx_timeouts; /* per acquisition */
    /* The spread of the median beside it: the lowest and highest value over
     * the interleaved rounds (NAN when not measured). */
    double ops_min, ops_max, pair_min, pair_max;
    bool correct;
};

struct fxb_report {
    struct fxb_row *rows;
    size_t n, cap;
    double cs_ns, outside_ns;
    int64_t duration_ms;
    enum fxb_count_method count;
    int read_pct; /* the rwlock workload's share of reads */
};

struct fxb_row *fxb_row_add(struct fxb_report *rep, const char *workload, const char *lock,
                            int threads);
/* The row of (workload, lock, threads), or NULL. */
struct fxb_row *fxb_row_find(const struct fxb_report *rep, const char *workload,
                             const char *lock, int threads);
/* The median of v[0..n-1], leaving NANs (not measured) out; NAN when all are.
 * Reorders v. */
double fxb_median(double *v, int n);
/* *lo, *hi = the lowest and highest of v[0], v[stride], ... (n values),
 * leaving NANs out; NAN when all are. */
void fxb_spread(const double *v, int n, size_t stride, double *lo, double *hi);
/* med[k] = the median over the rounds of metric k of one entity (a lock, a
 * kind), for k < metrics; m is laid out [entity][round][metric]. */
void fxb_medians(const double *m, int entity, int rounds, int metrics, double *med);
void fxb_ratios(struct fxb_report *rep, const char *workload, const char *base_pthread,
                bool higher_is_better);
/* One table cell: " " then v with prec decimals right-aligned in width, "-"
 * when not measured (NAN), '!' after a value whose run failed its checks. */
void fxb_cell(int width, int prec, double v, bool correct);
int fxb_prec(double v); /* decimals that keep about three significant digits */
/* A spread cell, "lo-hi" of lo / scale and hi / scale; "-" when not measured. */
void fxb_spread_cell(int width, double lo, double hi, double scale);
void fxb_print_uncontended(const struct fxb_report *rep);
void fxb_print_threads(const struct fxb_report *rep, const char *workload);
void fxb_print_fairness(const struct fxb_report *rep);
void fxb_print_syscalls(const struct fxb_report *rep);
void fxb_print_idle(const struct fxb_report *rep);
int fxb_write_csv(const struct fxb_report *rep, const char *path);
int fxb_write_plot(const struct fxb_report *rep, const char *path);

/* --- progress line on a terminal (report.c) ------------------------------ */
/* On when stderr is a terminal: main() decides once. */
void fxb_start_progress(bool on);

void fxb_note_progress(const char *w, const char *lock, int workers, int round, int rounds);
void fxb_end_progress(void);

/* --- the machine's cache-line round trip (handoff.c) ---------------------- */
/* Prints each round's ns per round trip between the first two allowed CPUs,
 * their median and spread, and adds them to rep as a row of workload
 * "handoff" (for --csv); false when a round broke its check. */
bool fxb_handoff(struct fxb_report *rep, int rounds, int64_t duration_ms);

/* --- the programs workload (programs.c) ----------------------------------- */

struct fxb_programs_opts {
    const int *threads; /* thread counts given to each program */
    int nthreads;
    int runs;            /* runs of each variant, interleaved */
    bool smoke;          /* tiny runs */
    const char *only;    /* "a,b": these programs only; NULL: all */
    const char *preload; /* the routing interposer; NULL: not built */
    const char *forward; /* the forward-only one */
};
/* Runs each program under glibc, futexsync and forward-only and prints the
 * table; false when a run exited with an error. */
bool fxb_programs(const struct fxb_programs_opts *o);
bool fxb_programs_known(const char *name);

/* --- the toolbox workloads (toolbox.c) ------------------------------------ */

struct fxb_tb_opts {
    int rounds;
    int64_t duration_ms, warmup_ms;
    double cs_ns, outside_ns;
    int read_pct;                /* rwlock: share of reads, 0 .. 100 */
    const int *rw_threads;       /* rwlock thread counts */
    int n_rw_threads;
    const int *parties;          /* barrier party counts */
    int n_parties;
    const char *const *prims;    /* --prims (nprims == 0: every primitive) */
    int nprims;
    bool quick, smoke;
    bool pin;                    /* worker i pinned to the i-th allowed CPU */
    enum fxb_count_method count; /* PERF (in extra, untimed runs) or NONE */
};

/* Each measures, adds its rows to rep and prints its table; false when a
 * run failed its checks (already reported on stderr). */
bool fxb_tb_uncontended(struct fxb_report *rep, const struct fxb_tb_opts *o);
bool fxb_tb_pingpong(struct fxb_report *rep, const struct fxb_tb_opts *o);
bool fxb_tb_rwlock(struct fxb_report *rep, const struct fxb_tb_opts *o);
bool fxb_tb_barrier(struct fxb_report *rep, const struct fxb_tb_opts *o);
/* Whether --prims NAME selects anything; the --list lines. */
bool fxb_tb_known(const char *name);
void fxb_tb_list(void);

/* --- idle waiters per primitive (idle.c) ----------------------------------- */

/* The most processes a row spreads its waiters over (--idle-procs). */
#define FXB_IDLE_MAXPROCS 16

struct fxb_idle_opts {
    const int *counts;    /* N of the private rows, 1 x N (1 process) */
    int ncounts;
    const int *shape_objects, *shape_waiters; /* the MAP_SHARED rows: objects x
                                                 waiters per object */
    int nshapes;
    const int *procs;     /* processes of each MAP_SHARED shape */
    int nprocs;
    const int *rm_counts; /* N of the robust-mutex rows: 1 x N and N x 1 */
    int n_rm_counts;
    const char *prims;    /* --idle-prims: names or "all"; NULL: the six
                             toolbox primitives, and the robust-mutex rows
                             when `rmutex` */
    bool rmutex;
    int64_t settle_ms, window_ms;
    int rounds;           /* interleaved rounds of every row */
};

/* The idle workload's tables after the lock table. Per primitive, each
 * selected one, futexsync beside its pthread peer: in private memory, 1
 * object x N waiters for each count, in 1 process; in MAP_SHARED memory,
 * each shape (objects x waiters per object) in each process count (1: the
 * measuring process's threads wait; more: forked children do). Robust
 * mutexes (fx_rmutex selected): fx_rmutex and a robust process-shared
 * pthread_mutex_t held by a live owner thread, 1 x N and N x 1 (objects x
 * waiters), in 1 and in 4 processes. Prints them; false when a run failed
 * its checks (reported on stderr) or prims names none. */
bool fxb_idle_toolbox(const struct fxb_idle_opts *o);

#endif /* FXB_BENCH_H */
