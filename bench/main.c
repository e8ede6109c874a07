/*
 * bench/main.c - futexsync-bench: options, workloads, method.
 *
 * Method, for every workload: a warm-up run per lock (discarded), then R
 * rounds in which every selected lock runs once, the order reversed every
 * other round (A B C, C B A, ...) so that drift in the machine's speed (other
 * processes, frequency) falls on all locks alike; each number printed is the
 * median of its R values, and each ratio compares two medians of the same
 * invocation. Every run checks the lock's correctness (see run.c); a failed
 * check marks the value with '!' and makes the exit status 1.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef FXB_BUILD_TYPE
#define FXB_BUILD_TYPE "unknown"
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FXB_SANITIZER " (sanitizer build: timings are not representative)"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FXB_SANITIZER " (sanitizer build: timings are not representative)"
#endif
#endif
#ifndef FXB_SANITIZER
#define FXB_SANITIZER ""
#endif

enum { W_UNCONTENDED, W_THREADS, W_PROCESSES, W_FAIRNESS, W_SYSCALLS, W_IDLE,
       W_UNC_TOOLBOX, W_PINGPONG, W_RWLOCK, W_BARRIER, W_HANDOFF, W_PROGRAMS, W_COUNT };
/* Workloads from W_ONLY_NAMED on run only when named (not by default, not
 * with "all"): they run other programs for minutes. */
#define W_ONLY_NAMED W_PROGRAMS
static const char *const fxb_wname[W_COUNT] = { "uncontended", "threads", "processes",
                                                "fairness", "syscalls", "idle",
                                                "uncontended-toolbox", "pingpong", "rwlock",
                                                "barrier", "handoff", "programs" };

#define FXB_MAXL 64
#define FXB_MAXN 32

struct fxb_list {
    int v[FXB_MAXN];
    int n;
};

struct fxb_opts {
    bool work[W_COUNT];
    const struct fxb_lock *locks[FXB_MAXL];
    int nlocks; /* 0: the default set of each workload */
    struct fxb_list threads, procs; /* n == 0: the workload's default */
    struct fxb_list rw_threads, parties; /* rwlock, barrier */
    struct fxb_list idle_counts;         /* idle, per primitive: private rows */
    struct fxb_list idle_objects, idle_per; /* its shared shapes; n == 0: default */
    struct fxb_list idle_procs;
    int64_t idle_window_ms;
    const char *idle_prims;              /* NULL: the six toolbox primitives */
    int read_pct;
    const char *prims[FXB_MAXL];
    int nprims;
    double cs_ns, outside_ns;
    int64_t duration_ms, warmup_ms, hold_ms;
    int rounds, idle_threads;
    bool rounds_given;
    enum fxb_count_method count;
    const char *csv, *plot;
    bool quick, smoke, pin, no_boost;
    int runs;                                 /* programs: runs per variant */
    const char *programs, *preload, *preload_forward;
};

static bool fxb_failed;     /* a run failed its checks */

static void fxb_usage(FILE *f)
{
    fputs("usage: futexsync-bench [WORKLOAD...] [OPTIONS]\n"
          "\n"
          "Workloads (default: all):\n"
          "  uncontended  ns per lock+unlock pair, one thread (+ an idle second thread)\n"
          "  threads      contended throughput with N threads (default 1,2,4,8,16,64)\n"
          "  processes    contended throughput with N processes on MAP_SHARED memory (4,16)\n"
          "  fairness     per-thread acquisitions min/max, longest wait, p50/p99 latency (8)\n"
          "  syscalls     futex system calls, sleeps and CPU per acquisition (2,8,64)\n"
          "  idle         CPU used while N threads block behind a lock held 1 s (64)\n"
          "  uncontended-toolbox  ns per operation, nobody waiting: sem post+wait, rwlock\n"
          "               rdlock/wrlock+unlock, cond signal/broadcast, once done, barrier\n"
          "               of 1 party; fx_* against sem_t, pthread_rwlock_t, pthread_cond_t,\n"
          "               pthread_once_t, pthread_barrier_t\n"
          "  pingpong     round trips/s of two threads taking turns: fx_mutex + fx_cond vs\n"
          "               pthread mutex + cond, two fx_sem vs two sem_t\n"
          "  rwlock       read-mostly throughput, fx_rwlock vs pthread_rwlock_t (4,8)\n"
          "  barrier      rounds/s of N parties, fx_barrier vs pthread_barrier_t (2,4)\n"
          "  handoff      the machine, not a lock: ns for a cache line to go from one CPU\n"
          "               to another and back, round by round (two pinned threads)\n"
          "  all          every workload above\n"
          "  programs     only when named: sysbench mutex, sysbench threads and a CPython\n"
          "               script (threads doing I/O under the GIL), each run under glibc,\n"
          "               under the LD_PRELOAD interposer routing pthread mutexes and conds\n"
          "               to futexsync, and under its forward-only build; wall and CPU\n"
          "               seconds, min/median/max (bench/preload/README.md)\n"
          "\n"
          "Options:\n"
          "  --locks A,B,...     locks to compare (--list shows them; default: all built in,\n"
          "                      processes: the futexsync locks and pthread-pshared)\n"
          "  --threads N,...     thread counts for threads, fairness and syscalls\n"
          "  --procs N,...       process counts for processes\n"
          "  --rw-threads N,...  thread counts for rwlock (default 4,8)\n"
          "  --read-pct P        rwlock: percentage of reads, 0..100 (default 95)\n"
          "  --parties N,...     party counts for barrier (default 2,4)\n"
          "  --prims A,B,...     toolbox primitives to compare (--list shows them; a name\n"
          "                      also selects its variants: fx_rwlock, pthread_rwlock_t, ...)\n"
          "  --no-boost          run at the caller's priority (default: when allowed, nice -20\n"
          "                      in a session, hence an autogroup, of its own; see bench/README.md)\n"
          "  --pin               toolbox workloads: pin worker i to the i-th allowed CPU\n"
          "                      (mod their number), as on a machine with nothing else to run\n"
          "  --cs-ns NS          busy work inside the critical section (default 25)\n"
          "  --outside-ns NS     busy work between acquisitions (default 100)\n"
          "  --duration-ms MS    length of one measured run (default 200)\n"
          "  --seconds S         the same in seconds, decimals allowed (2 = --duration-ms 2000)\n"
          "  --warmup-ms MS      discarded run per lock before a workload (default: half a run)\n"
          "  --rounds R          interleaved rounds; numbers are medians (default 5)\n"
          "  --idle-threads N    waiters of the idle workload (default 64)\n"
          "  --idle-counts N,... waiters of the idle workload's per-primitive table in\n"
          "                      private memory, 1 object x N (default 10000)\n"
          "  --idle-shapes OxW,... its shapes in MAP_SHARED memory, O objects x W waiters\n"
          "                      each (default 1x10000,10000x1,1000x10)\n"
          "  --idle-procs P,...  processes of each shape: 1, the measuring process's own\n"
          "                      threads wait; more, P forked children share the waiters\n"
          "                      (default 1,4; at most 16)\n"
          "  --idle-window-ms MS its measured window (default 2000, after a 1 s settle)\n"
          "  --idle-prims P,...  its primitives (fx_mutex,fx_cond,fx_sem,fx_rwlock,\n"
          "                      fx_barrier,fx_counter: the default), and fx_rmutex for\n"
          "                      its robust-mutex rows (1 x N and N x 1 objects x waiters,\n"
          "                      1 and 4 processes; N: --idle-counts, default 10000);\n"
          "                      all: every one\n"
          "  --hold-ms MS        how long the idle workload holds the lock (default 1000)\n"
          "  --count-method M    futex counting: auto, perf, seccomp or none (default auto)\n"
          "  --csv FILE          write every result row to FILE\n"
          "  --plot FILE.svg     plot throughput against threads with gnuplot\n"
          "  --quick             the short run of scripts/demo.sh: fewer locks and rounds (~35 s)\n"
          "  --smoke             CI: every lock, tiny runs, correctness only (seconds)\n"
          "  --runs N            programs: runs of each variant (default 7)\n"
          "  --programs A,B,...  programs: which (sysbench-mutex,sysbench-threads,python-gil-io)\n"
          "  --preload SO        programs: the routing interposer (default: this build's)\n"
          "  --preload-forward SO  programs: the forward-only interposer (default: this build's)\n"
          "  --list              list the locks and toolbox primitives of this build, exit\n"
          "  --help              this text\n",
          f);
}

static void fxb_die_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "futexsync-bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(futexsync-bench --help for usage)\n");
    exit(2);
}

static int64_t fxb_parse_num(const char *opt, const char *s, int64_t min, int64_t max)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
        fprintf(stderr, "futexsync-bench: %s: bad value '%s' (%lld..%lld)\n", opt, s,
                (long long)min, (long long)max);
        exit(2);
    }
    return v;
}

/* --seconds S: a decimal number of seconds, as whole milliseconds (1 ms to
 * one hour, like --duration-ms). */
static int64_t fxb_parse_seconds(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < 0.001 || v > 3600) {
        fprintf(stderr, "futexsync-bench: %s: bad value '%s' (seconds, 0.001..3600)\n", opt, s);
        exit(2);
    }
    return (int64_t)llround(v * 1000);
}

static void fxb_parse_list(const char *opt, const char *s, struct fxb_list *l, int max)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    l->n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (l->n == FXB_MAXN)
            fxb_die_usage("too many values in '%s'", s);
        l->v[l->n++] = (int)fxb_parse_num(opt, tok, 1, max);
    }
    if (l->n == 0)
        fxb_die_usage("empty list '%s'", s);
}

/* --idle-shapes: OBJECTSxWAITERS,... (waiters per object), each total at
 * most max. */
static void fxb_parse_shapes(const char *opt, const char *s, struct fxb_list *objects,
                             struct fxb_list *per, int max)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    objects->n = per->n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *x = strpbrk(tok, "xX");
        if (x == NULL)
            fxb_die_usage("shape '%s': OBJECTSxWAITERS, e.g. 1000x10", tok);
        if (objects->n == FXB_MAXN)
            fxb_die_usage("too many values in '%s'", s);
        *x = '\0';
        int a = (int)fxb_parse_num(opt, tok, 1, max), b = (int)fxb_parse_num(opt, x + 1, 1, max);
        if ((int64_t)a * b > max) {
            fprintf(stderr, "futexsync-bench: %s: %dx%d: more than %d waiters\n", opt, a, b,
                    max);
            exit(2);
        }
        objects->v[objects->n++] = a;
        per->v[per->n++] = b;
    }
    if (objects->n == 0)
        fxb_die_usage("empty list '%s'", s);
}

static void fxb_parse_locks(const char *s, struct fxb_opts *o)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", s);
    o->nlocks = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "all") == 0) {
            for (size_t i = 0; i < fxb_nlocks && o->nlocks < FXB_MAXL; i++)
                o->locks[o->nlocks++] = &fxb_locks[i];
            continue;
        }
        const struct fxb_lock *lk = fxb_lock_find(tok);
        if (lk == NULL)
            fxb_die_usage("unknown lock '%s' (--list shows the locks of this build)", tok);
        if (o->nlocks < FXB_MAXL)
            o->locks[o->nlocks++] = lk;
    }
    if (o->nlocks == 0)
        fxb_die_usage("empty lock list '%s'", s);
}

static void fxb_list_locks(void)
{
    printf("%-18s %-9s %s\n", "lock", "flags", "what");
    for (size_t i = 0; i < fxb_nlocks; i++) {
        const struct fxb_lock *lk = &fxb_locks[i];
        printf("%-18s %c%c%c%c      %s\n", lk->name, lk->flags & FXB_SLEEPS ? 's' : '-',
               lk->flags & FXB_PSHARED ? 'p' : '-', lk->flags & FXB_QUICK ? 'q' : '-',
               lk->flags & FXB_FX ? 'x' : '-', lk->what);
    }
    printf("flags: s = waiters sleep (else: spin), p = usable across processes,\n"
           "       q = in the --quick set, x = futexsync (fx_stats counts it)\n");
#if !defined(FXB_HAVE_NSYNC)
    printf("nsync: not found at configure time (apt-get install libnsync-dev)\n");
#endif
#if !defined(FXB_HAVE_CK)
    printf("Concurrency Kit: not found at configure time (apt-get install libck-dev)\n");
#endif
    fxb_tb_list();
}

static void fxb_parse_prims(const char *s, struct fxb_opts *o)
{
    static char buf[1024]; /* o->prims point into it */
    snprintf(buf, sizeof buf, "%s", s);
    o->nprims = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (!fxb_tb_known(tok))
            fxb_die_usage("unknown primitive '%s' (--list shows those of this build)", tok);
        if (o->nprims < FXB_MAXL)
            o->prims[o->nprims++] = tok;
    }
    if (o->nprims == 0)
        fxb_die_usage("empty primitive list '%s'", s);
}

static void fxb_parse(int argc, char **argv, struct fxb_opts *o)
{
    *o = (struct fxb_opts){ .cs_ns = 25, .outside_ns = 100, .duration_ms = 200,
                            .warmup_ms = -1, .hold_ms = 1000, .rounds = 5, .idle_threads = 64,
                            .read_pct = 95, .count = FXB_COUNT_AUTO, .runs = 7 };
    bool any = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char name[64];
        const char *val = NULL;
        if (strcmp(a, "-h") == 0) {
            fxb_usage(stdout);
            exit(0);
        }
        if (strncmp(a, "--", 2) == 0) {
            const char *eq = strchr(a, '=');
            size_t n = eq ? (size_t)(eq - a) : strlen(a);
            if (n >= sizeof name)
                fxb_die_usage("unknown option '%s'", a);
            memcpy(name, a, n);
            name[n] = '\0';
            val = eq ? eq + 1 : NULL;
        } else {
            int w;
            for (w = 0; w < W_COUNT && strcmp(a, fxb_wname[w]) != 0; w++) {
            }
            if (w < W_COUNT) {
                o->work[w] = true;
            } else if (strcmp(a, "all") == 0) {
                for (w = 0; w < W_ONLY_NAMED; w++)
                    o->work[w] = true;
            } else {
                fxb_die_usage("unknown workload '%s'", a);
            }
            any = true;
            continue;
        }
        /* flags without a value */
        if (strcmp(name, "--help") == 0) {
            fxb_usage(stdout);
            exit(0);
        }
        if (strcmp(name, "--list") == 0) {
            fxb_list_locks();
            exit(0);
        }
        if (strcmp(name, "--quick") == 0) {
            o->quick = true;
            continue;
        }
        if (strcmp(name, "--smoke") == 0) {
            o->smoke = true;
            continue;
        }
        if (strcmp(name, "--pin") == 0) {
            o->pin = true;
            continue;
        }
        if (strcmp(name, "--no-boost") == 0) {
            o->no_boost = true;
            continue;
        }
        if (val == NULL) {
            if (i + 1 >= argc)
                fxb_die_usage("option '%s' needs a value", a);
            val = argv[++i];
        }
        if (strcmp(name, "--locks") == 0)
            fxb_parse_locks(val, o);
        else if (strcmp(name, "--threads") == 0)
            fxb_parse_list(name, val, &o->threads, 4096);
        else if (strcmp(name, "--procs") == 0)
            fxb_parse_list(name, val, &o->procs, 1024);
        else if (strcmp(name, "--rw-threads") == 0)
            fxb_parse_list(name, val, &o->rw_threads, 4096);
        else if (strcmp(name, "--parties") == 0)
            fxb_parse_list(name, val, &o->parties, 4096);
        else if (strcmp(name, "--read-pct") == 0)
            o->read_pct = (int)fxb_parse_num(name, val, 0, 100);
        else if (strcmp(name, "--prims") == 0)
            fxb_parse_prims(val, o);
        else if (strcmp(name, "--cs-ns") == 0)
            o->cs_ns = (double)fxb_parse_num(name, val, 0, 100000000);
        else if (strcmp(name, "--outside-ns") == 0)
            o->outside_ns = (double)fxb_parse_num(name, val, 0, 100000000);
        else if (strcmp(name, "--duration-ms") == 0)
            o->duration_ms = fxb_parse_num(name, val, 1, 3600000);
        else if (strcmp(name, "--seconds") == 0)
            o->duration_ms = fxb_parse_seconds(name, val);
        else if (strcmp(name, "--warmup-ms") == 0)
            o->warmup_ms = fxb_parse_num(name, val, 0, 3600000);
        else if (strcmp(name, "--rounds") == 0)
            o->rounds = (int)fxb_parse_num(name, val, 1, 1000), o->rounds_given = true;
        else if (strcmp(name, "--idle-counts") == 0)
            fxb_parse_list(name, val, &o->idle_counts, 30000);
        else if (strcmp(name, "--idle-shapes") == 0)
            fxb_parse_shapes(name, val, &o->idle_objects, &o->idle_per, 30000);
        else if (strcmp(name, "--idle-procs") == 0)
            fxb_parse_list(name, val, &o->idle_procs, FXB_IDLE_MAXPROCS);
        else if (strcmp(name, "--idle-prims") == 0)
            o->idle_prims = val;
        else if (strcmp(name, "--idle-window-ms") == 0)
            o->idle_window_ms = fxb_parse_num(name, val, 1, 600000);
        else if (strcmp(name, "--idle-threads") == 0)
            o->idle_threads = (int)fxb_parse_num(name, val, 1, 4096);
        else if (strcmp(name, "--hold-ms") == 0)
            o->hold_ms = fxb_parse_num(name, val, 1, 3600000);
        else if (strcmp(name, "--csv") == 0)
            o->csv = val;
        else if (strcmp(name, "--runs") == 0)
            o->runs = (int)fxb_parse_num(name, val, 1, 255);
        else if (strcmp(name, "--programs") == 0) {
            char buf[512];
            snprintf(buf, sizeof buf, "%s", val);
            for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
                 t = strtok_r(NULL, ",", &save))
                if (!fxb_programs_known(t))
                    fxb_die_usage("unknown program '%s' (sysbench-mutex, sysbench-threads, "
                                  "python-gil-io)", t);
            o->programs = val;
        } else if (strcmp(name, "--preload") == 0)
            o->preload = val;
        else if (strcmp(name, "--preload-forward") == 0)
            o->preload_forward = val;
        else if (strcmp(name, "--plot") == 0)
            o->plot = val;
        else if (strcmp(name, "--count-method") == 0) {
            if (strcmp(val, "auto") == 0)
                o->count = FXB_COUNT_AUTO;
            else if (strcmp(val, "perf") == 0)
                o->count = FXB_COUNT_PERF;
            else if (strcmp(val, "seccomp") == 0)
                o->count = FXB_COUNT_SECCOMP;
            else if (strcmp(val, "none") == 0)
                o->count = FXB_COUNT_NONE;
            else
                fxb_die_usage("--count-method: auto, perf, seccomp or none, not '%s'", val);
        } else {
            fxb_die_usage("unknown option '%s'", a);
        }
    }
    if (!any)
        for (int w = 0; w < W_ONLY_NAMED; w++)
            o->work[w] = true;
    /* The presets change only what was not given explicitly. */
    bool explicit_duration = false, explicit_hold = false, explicit_idle = false;
    for (int i = 1; i < argc; i++) {
        explicit_duration |= strncmp(argv[i], "--duration-ms", 13) == 0 ||
                             strncmp(argv[i], "--seconds", 9) == 0;
        explicit_hold |= strncmp(argv[i], "--hold-ms", 9) == 0;
        explicit_idle |= strncmp(argv[i], "--idle-threads", 14) == 0;
    }
    if (o->smoke) {
        if (!explicit_duration)
            o->duration_ms = 20;
        if (!o->rounds_given)
            o->rounds = 1;
        if (!explicit_hold)
            o->hold_ms = 50;
        if (!explicit_idle)
            o->idle_threads = 8;
        if (o->warmup_ms < 0)
            o->warmup_ms = 5;
    } else if (o->quick) {
        if (!explicit_duration)
            o->duration_ms = 100;
        if (!o->rounds_given)
            o->rounds = 3;
        if (o->warmup_ms < 0)
            o->warmup_ms = 50;
    }
    if (o->warmup_ms < 0)
        o->warmup_ms = o->duration_ms / 2;
}

/* The workers lists of a workload: given, or its default for the preset. */
static struct fxb_list fxb_workers(const struct fxb_opts *o, int w)
{
    static const struct fxb_list threads = { { 1, 2, 4, 8, 16, 64 }, 6 };
    static const struct fxb_list threads_smoke = { { 1, 2, 8 }, 3 };
    static const struct fxb_list fair = { { 8 }, 1 };
    static const struct fxb_list sys = { { 2, 8, 64 }, 3 };
    static const struct fxb_list sys_smoke = { { 2, 8 }, 2 };
    static const struct fxb_list procs = { { 4, 16 }, 2 };
    static const struct fxb_list procs_smoke = { { 4 }, 1 };
    switch (w) {
    case W_PROCESSES:
        return o->procs.n ? o->procs : o->smoke ? procs_smoke : procs;
    case W_THREADS:
        return o->threads.n ? o->threads : o->smoke ? threads_smoke : threads;
    case W_FAIRNESS:
        return o->threads.n ? o->threads : fair;
    case W_SYSCALLS:
        return o->threads.n ? o->threads : o->smoke ? sys_smoke : sys;
    default: {
        struct fxb_list one = { { o->idle_threads }, 1 };
        return one;
    }
    }
}

/* The locks of workload w. */
static int fxb_select(const struct fxb_opts *o, int w, const struct fxb_lock **out)
{
    int n = 0;
    if (o->nlocks > 0) {
        for (int i = 0; i < o->nlocks; i++) {
            const struct fxb_lock *lk = o->locks[i];
            if ((lk->flags & FXB_NOLOCK) && w != W_THREADS && w != W_FAIRNESS &&
                w != W_SYSCALLS) {
                fprintf(stderr, "futexsync-bench: %s: skipping %s (a reference for threads, "
                        "fairness and syscalls)\n", fxb_wname[w], lk->name);
                continue;
            }
            if (w == W_PROCESSES && (lk->flags & FXB_PSHARED) == 0) {
                fprintf(stderr, "futexsync-bench: processes: skipping %s (threads only)\n",
                        lk->name);
                continue;
            }
            out[n++] = lk;
        }
        return n;
    }
    for (size_t i = 0; i < fxb_nlocks; i++) {
        const struct fxb_lock *lk = &fxb_locks[i];
        bool want;
        if (lk->flags & FXB_NOLOCK)
            want = false; /* a reference, not a lock: only when named */
        else if (w == W_PROCESSES)
            want = (lk->flags & (o->smoke ? FXB_PSHARED : FXB_PROC_DEFAULT)) != 0;
        else
            want = o->quick ? (lk->flags & FXB_QUICK) != 0 : true;
        if (want)
            out[n++] = lk;
    }
    return n;
}

static void fxb_report_failure(const char *w, const struct fxb_res *r)
{
    fxb_end_progress();
    fprintf(stderr, "futexsync-bench: FAILED (%s): %s\n", w, r->why);
    fxb_failed = true;
}

static double fxb_per(double x, uint64_t acq)
{
    return acq ? x / (double)acq : NAN;
}

/* Metrics of one contended run, in the order of the arrays below. */
enum { M_OPS, M_CPU, M_SLEEPS, M_FUTEX, M_MINMAX, M_P50, M_P99, M_FXC, M_FXWAIT, M_FXWAKE,
       M_FXSPIN, M_FXTO, M_COUNT };

/* Metrics of one idle run. */
enum { I_CPU, I_DRAIN, I_FXSPIN, I_FXWAIT, I_COUNT };

static void fxb_metrics(const struct fxb_res *r, double *m)
{
    uint64_t a = r->acquisitions;
    m[M_OPS] = r->ops_per_s;
    m[M_CPU] = fxb_per(r->cpu_ns, a);
    m[M_SLEEPS] = fxb_per(r->vcsw, a);
    m[M_FUTEX] = fxb_per(r->futex_calls, a);
    m[M_MINMAX] = r->max_acq ? (double)r->min_acq / (double)r->max_acq : NAN;
    m[M_P50] = (double)r->p50_ns / 1000;
    m[M_P99] = (double)r->p99_ns / 1000;
    bool fx = r->fx_valid;
    m[M_FXC] = fx ? fxb_per((double)r->fx.contended, a) : NAN;
    m[M_FXWAIT] = fx ? fxb_per((double)r->fx.waits, a) : NAN;
    m[M_FXWAKE] = fx ? fxb_per((double)r->fx.wakes, a) : NAN;
    m[M_FXSPIN] = fx ? fxb_per((double)r->fx.spins, a) : NAN;
    m[M_FXTO] = fx ? fxb_per((double)r->fx.timeouts, a) : NAN;
}

static void fxb_run_one(const struct fxb_cfg *c, int w, struct fxb_res *r)
{
    if (w == W_PROCESSES)
        fxb_run_processes(c, r);
    else if (w == W_IDLE)
        fxb_run_idle(c, r);
    else
        fxb_run_threads(c, r);
}

/* The idle workload's rounds: given, or 3 (--quick, --smoke: 1). */
static int fxb_idle_rounds(const struct fxb_opts *o)
{
    return o->rounds_given ? o->rounds : o->quick || o->smoke ? 1 : 3;
}

/* Warm-up, interleaved rounds and medians of one workload at one worker
 * count; adds one row per lock. */
static void fxb_measure(struct fxb_report *rep, const struct fxb_opts *o, int w,
                        const struct fxb_lock **locks, int nl, int workers, bool warm,
                        enum fxb_count_method count)
{
    int R = w == W_IDLE ? fxb_idle_rounds(o) : o->rounds;
    double *m = calloc((size_t)nl * (size_t)R * M_COUNT, sizeof *m);
    double *maxwait = calloc((size_t)nl, sizeof *maxwait);
    double *idle = calloc((size_t)nl * (size_t)R * I_COUNT, sizeof *idle);
    bool *correct = calloc((size_t)nl, sizeof *correct);
    for (int i = 0; i < nl; i++)
        correct[i] = true;
    struct fxb_cfg base = {
        .workers = workers,
        .duration_ns = o->duration_ms * 1000000,
        .cs_iters = fxb_ns_to_iters(o->cs_ns),
        .out_iters = fxb_ns_to_iters(o->outside_ns),
        .timed = w == W_FAIRNESS,
        .count = count,
        .hold_ns = o->hold_ms * 1000000,
    };
    if (warm && w != W_IDLE && o->warmup_ms > 0) {
        for (int i = 0; i < nl; i++) {
            struct fxb_cfg c = base;
            struct fxb_res r;
            c.lk = locks[i];
            c.duration_ns = o->warmup_ms * 1000000;
            c.count = FXB_COUNT_NONE;
            fxb_note_progress(fxb_wname[w], locks[i]->name, workers, 0, R);
            fxb_run_one(&c, w, &r);
            if (!r.ok) {
                fxb_report_failure(fxb_wname[w], &r);
                correct[i] = false;
            }
        }
    }
    for (int round = 0; round < R; round++) {
        for (int k = 0; k < nl; k++) {
            int i = round % 2 == 0 ? k : nl - 1 - k;
            struct fxb_cfg c = base;
            struct fxb_res r;
            c.lk = locks[i];
            fxb_note_progress(fxb_wname[w], locks[i]->name, workers, round + 1, R);
            fxb_run_one(&c, w, &r);
            if (!r.ok) {
                fxb_report_failure(fxb_wname[w], &r);
                correct[i] = false;
            }
            fxb_metrics(&r, &m[((size_t)i * (size_t)R + (size_t)round) * M_COUNT]);
            if ((double)r.max_wait_ns / 1000 > maxwait[i])
                maxwait[i] = (double)r.max_wait_ns / 1000;
            double *d = &idle[((size_t)i * (size_t)R + (size_t)round) * I_COUNT];
            d[I_CPU] = r.hold_cpu_pct;
            d[I_DRAIN] = r.drain_ms;
            d[I_FXSPIN] = r.fx_valid ? fxb_per((double)r.fx.spins, r.acquisitions) : NAN;
            d[I_FXWAIT] = r.fx_valid ? fxb_per((double)r.fx.waits, r.acquisitions) : NAN;
        }
    }
    fxb_end_progress();
    for (int i = 0; i < nl; i++) {
        struct fxb_row *row = fxb_row_add(rep, fxb_wname[w], locks[i]->name, workers);
        row->rounds = R;
        row->correct = correct[i];
        double med[M_COUNT], imed[I_COUNT];
        fxb_medians(m, i, R, M_COUNT, med);
        fxb_medians(idle, i, R, I_COUNT, imed);
        if (w == W_IDLE) {
            row->hold_cpu_pct = imed[I_CPU];
            row->drain_ms = imed[I_DRAIN];
            row->fx_spins = imed[I_FXSPIN];
            row->fx_waits = imed[I_FXWAIT];
            continue;
        }
        row->ops_per_s = med[M_OPS];
        fxb_spread(&m[(size_t)i * (size_t)R * M_COUNT + M_OPS], R, M_COUNT, &row->ops_min,
                   &row->ops_max);
        row->cpu_ns_per_acq = med[M_CPU];
        row->sleeps_per_acq = med[M_SLEEPS];
        row->futex_per_acq = med[M_FUTEX];
        row->fx_contended = med[M_FXC];
        row->fx_waits = med[M_FXWAIT];
        row->fx_wakes = med[M_FXWAKE];
        row->fx_spins = med[M_FXSPIN];
        row->fx_timeouts = med[M_FXTO];
        if (w == W_FAIRNESS) {
            row->min_max = med[M_MINMAX];
            row->p50_us = med[M_P50];
            row->p99_us = med[M_P99];
            row->max_wait_us = maxwait[i];
        }
    }
    free(correct);
    free(idle);
    free(maxwait);
    free(m);
}

static void fxb_uncontended(struct fxb_report *rep, const struct fxb_opts *o)
{
    const struct fxb_lock *locks[FXB_MAXL];
    int nl = fxb_select(o, W_UNCONTENDED, locks);
    int R = o->rounds;
    int64_t target = o->smoke ? 2000000 : o->quick ? 20000000 : 50000000;
    double *ns = calloc((size_t)nl * (size_t)R, sizeof *ns);
    bool *correct = calloc((size_t)nl, sizeof *correct);
    for (int i = 0; i < nl; i++)
        correct[i] = true;
    fxb_idle_thread_start();
    for (int round = 0; round < R; round++)
        for (int k = 0; k < nl; k++) {
            int i = round % 2 == 0 ? k : nl - 1 - k;
            uint64_t errors;
            fxb_note_progress("uncontended", locks[i]->name, 1, round + 1, R);
            ns[(size_t)i * (size_t)R + (size_t)round] = fxb_run_pairs(locks[i], target, &errors);
            if (errors != 0) {
                fxb_end_progress();
                fprintf(stderr, "futexsync-bench: FAILED (uncontended): %s: %llu lock/unlock "
                                "calls failed\n",
                        locks[i]->name, (unsigned long long)errors);
                fxb_failed = true;
                correct[i] = false;
            }
        }
    fxb_idle_thread_stop();
    fxb_end_progress();
    for (int i = 0; i < nl; i++) {
        struct fxb_row *row = fxb_row_add(rep, "uncontended", locks[i]->name, 0);
        row->rounds = R;
        row->correct = correct[i];
        fxb_spread(&ns[(size_t)i * (size_t)R], R, 1, &row->pair_min, &row->pair_max);
        row->ns_per_pair = fxb_median(&ns[(size_t)i * (size_t)R], R);
    }
    free(correct);
    free(ns);
    fxb_ratios(rep, "uncontended", "pthread", false);
    fxb_print_uncontended(rep);
}

static void fxb_contended(struct fxb_report *rep, const struct fxb_opts *o, int w)
{
    const struct fxb_lock *locks[FXB_MAXL];
    int nl = fxb_select(o, w, locks);
    if (nl == 0) {
        printf("\n== %s: none of the selected locks works here ==\n", fxb_wname[w]);
        return;
    }
    struct fxb_list ws = fxb_workers(o, w);
    for (int t = 0; t < ws.n; t++)
        fxb_measure(rep, o, w, locks, nl, ws.v[t], t == 0, FXB_COUNT_NONE);
    fxb_ratios(rep, fxb_wname[w], w == W_PROCESSES ? "pthread-pshared" : "pthread", true);
    if (w == W_FAIRNESS)
        fxb_print_fairness(rep);
    else if (w == W_IDLE)
        fxb_print_idle(rep);
    else
        fxb_print_threads(rep, fxb_wname[w]);
}

/* A counting method that was chosen must deliver a count. */
static void fxb_check_counted(struct fxb_row *row, enum fxb_count_method m)
{
    if (m == FXB_COUNT_NONE || !isnan(row->futex_per_acq))
        return;
    fxb_end_progress();
    fprintf(stderr, "futexsync-bench: FAILED (syscalls): %s, %d threads: the %s counter gave "
                    "no count\n",
            row->lock, row->threads, fxb_count_name(m));
    row->correct = false;
    fxb_failed = true;
}

static void fxb_syscalls(struct fxb_report *rep, const struct fxb_opts *o)
{
    const struct fxb_lock *locks[FXB_MAXL];
    int nl = fxb_select(o, W_SYSCALLS, locks);
    struct fxb_list ws = fxb_workers(o, W_SYSCALLS);
    enum fxb_count_method m = rep->count;
    /* Uncontended: the futex calls of many pairs in one thread. */
    const uint64_t pairs = o->smoke ? 20000 : 1000000;
    for (int i = 0; i < nl; i++) {
        struct fxb_row *row = fxb_row_add(rep, "syscalls", locks[i]->name, 0);
        row->rounds = 1;
        fxb_note_progress("syscalls", locks[i]->name, 0, 1, 1);
        row->futex_per_acq = fxb_count_pairs(locks[i], pairs, m) / (double)pairs;
        fxb_check_counted(row, m);
    }
    /* Contended: perf counts inside the timed runs; seccomp in a child. */
    for (int t = 0; t < ws.n; t++) {
        fxb_measure(rep, o, W_SYSCALLS, locks, nl, ws.v[t], t == 0,
                    m == FXB_COUNT_PERF ? FXB_COUNT_PERF : FXB_COUNT_NONE);
        if (m == FXB_COUNT_PERF)
            for (int i = 0; i < nl; i++)
                fxb_check_counted(fxb_row_find(rep, "syscalls", locks[i]->name, ws.v[t]), m);
        if (m != FXB_COUNT_SECCOMP)
            continue;
        for (int i = 0; i < nl; i++) {
            struct fxb_cfg c = {
                .lk = locks[i], .workers = ws.v[t], .duration_ns = o->duration_ms * 1000000,
                .cs_iters = fxb_ns_to_iters(o->cs_ns),
                .out_iters = fxb_ns_to_iters(o->outside_ns), .count = FXB_COUNT_SECCOMP,
            };
            struct fxb_res r;
            fxb_note_progress("syscalls, counting", locks[i]->name, ws.v[t], 1, 1);
            fxb_run_threads_counted_child(&c, &r);
            struct fxb_row *row = fxb_row_find(rep, "syscalls", locks[i]->name, ws.v[t]);
            if (!r.ok) {
                fxb_report_failure("syscalls", &r);
                row->correct = false;
            }
            row->futex_per_acq = fxb_per(r.futex_calls, r.acquisitions);
            fxb_check_counted(row, m);
        }
        fxb_end_progress();
    }
    fxb_print_syscalls(rep);
}

/* The child running the measurements, for the parent's signal forwarding. */
static volatile pid_t fxb_boosted_child;

static void fxb_forward_signal(int sig)
{
    if (fxb_boosted_child > 0)
        kill(fxb_boosted_child, sig);
}

/* Gives the measurements the machine's CPUs before other work, when allowed:
 * nice -20, in a new session. Nice alone orders threads only within one
 * autogroup (the kernel groups a session's processes and shares the CPUs
 * fairly between groups), so a niced bench started from a shell still gets
 * only its group's share next to a build in another terminal; a session of
 * its own with the autogroup's nice at -20 gets the CPUs first. The parent
 * waits for the measuring child and exits with its status (forwarding
 * SIGINT/SIGTERM, since the child left the terminal's process group).
 * Returns a description for the header, in the child or without a boost. */
static const char *fxb_boost(void)
{
    if (setpriority(PRIO_PROCESS, 0, -20) != 0)
        return "as started (raising priority needs CAP_SYS_NICE)";
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return "nice -20 (fork for a new session failed)";
    if (pid > 0) {
        fxb_boosted_child = pid;
        struct sigaction sa = { .sa_handler = fxb_forward_signal };
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        int st;
        while (waitpid(pid, &st, 0) < 0) {
            if (errno != EINTR)
                exit(2);
        }
        if (WIFSIGNALED(st)) {
            signal(WTERMSIG(st), SIG_DFL);
            raise(WTERMSIG(st));
        }
        exit(WIFEXITED(st) ? WEXITSTATUS(st) : 2);
    }
    if (setsid() < 0)
        return "nice -20 (no session of its own)";
    FILE *f = fopen("/proc/self/autogroup", "w");
    bool grouped = f != NULL && fprintf(f, "-20\n") > 0;
    if (f != NULL && fclose(f) != 0)
        grouped = false;
    return grouped ? "nice -20 in an autogroup of its own (--no-boost: as started)"
                   : "nice -20 (autogroup unavailable)";
}

static void fxb_header(const struct fxb_opts *o, const struct fxb_report *rep, const char *why,
                       const char *priority)
{
    struct utsname u;
    uname(&u);
    double load = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1)
            load = NAN;
        fclose(f);
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    printf("futexsync-bench %d.%d.%d: %ld CPUs online, %s %s, load average %.2f%s\n",
           FUTEXSYNC_VERSION_MAJOR, FUTEXSYNC_VERSION_MINOR, FUTEXSYNC_VERSION_PATCH, cpus,
           u.sysname, u.release, load,
           load > 0.5 ? " (other processes compete for the CPUs: expect noise)" : "");
    printf("build %s, stats %s%s; busy loop %.2f iterations/ns; futex counting: %s%s%s\n",
           FXB_BUILD_TYPE, fx_stats_enabled() ? "ON" : "OFF", FXB_SANITIZER,
           fxb_iters_per_ns(), fxb_count_name(rep->count), *why ? " - " : "", why);
    printf("priority: %s\n", priority);
    if (o->smoke)
        printf("--smoke: tiny runs that check every lock's correctness; the numbers mean "
               "nothing\n");
}

int main(int argc, char **argv)
{
    struct fxb_opts o;
    fxb_parse(argc, argv, &o);
    const char *priority = o.no_boost ? "as started (--no-boost)" : fxb_boost();
    fxb_start_progress(isatty(STDERR_FILENO));
    setvbuf(stdout, NULL, _IOLBF, 0);
    fxb_calibrate();

    struct fxb_report rep = { .cs_ns = o.cs_ns, .outside_ns = o.outside_ns,
                              .duration_ms = o.duration_ms, .count = FXB_COUNT_NONE,
                              .read_pct = o.read_pct };
    const char *why = "";
    bool tb_threads = o.work[W_PINGPONG] || o.work[W_RWLOCK] || o.work[W_BARRIER];
    if (o.work[W_SYSCALLS] || tb_threads)
        rep.count = fxb_count_probe(o.count, &why);
    /* The toolbox counts inside its timed runs: with perf only. */
    enum fxb_count_method tb_count = rep.count == FXB_COUNT_PERF ? FXB_COUNT_PERF
                                                                  : FXB_COUNT_NONE;
    if (!o.work[W_SYSCALLS] && rep.count != tb_count) {
        rep.count = FXB_COUNT_NONE;
        why = "the toolbox workloads count with perf only";
    }
    if (o.count == FXB_COUNT_NONE)
        why = "disabled by --count-method none";
    else if (o.work[W_SYSCALLS] && o.count != FXB_COUNT_AUTO && rep.count != o.count) {
        fprintf(stderr, "futexsync-bench: --count-method %s is not available here: %s\n",
                fxb_count_name(o.count), why);
        return 2;
    }
    fxb_header(&o, &rep, why, priority);

    static const struct fxb_list rw_default = { { 4, 8 }, 2 }, parties_default = { { 2, 4 }, 2 };
    struct fxb_list rw = o.rw_threads.n ? o.rw_threads : rw_default;
    struct fxb_list parties = o.parties.n ? o.parties : parties_default;
    struct fxb_tb_opts tb = {
        .rounds = o.rounds, .duration_ms = o.duration_ms, .warmup_ms = o.warmup_ms,
        .cs_ns = o.cs_ns, .outside_ns = o.outside_ns, .read_pct = o.read_pct,
        .rw_threads = rw.v, .n_rw_threads = rw.n, .parties = parties.v,
        .n_parties = parties.n, .prims = o.prims, .nprims = o.nprims, .quick = o.quick,
        .smoke = o.smoke, .pin = o.pin, .count = tb_count,
    };

    if (o.work[W_UNCONTENDED])
        fxb_uncontended(&rep, &o);
    if (o.work[W_UNC_TOOLBOX] && !fxb_tb_uncontended(&rep, &tb))
        fxb_failed = true;
    if (o.work[W_THREADS])
        fxb_contended(&rep, &o, W_THREADS);
    if (o.work[W_PROCESSES])
        fxb_contended(&rep, &o, W_PROCESSES);
    if (o.work[W_FAIRNESS])
        fxb_contended(&rep, &o, W_FAIRNESS);
    if (o.work[W_SYSCALLS])
        fxb_syscalls(&rep, &o);
    if (o.work[W_IDLE]) {
        fxb_contended(&rep, &o, W_IDLE);
        /* The shapes: 1 x 10,000, 10,000 x 1 and 1,000 x 10 (objects x
         * waiters per object) in 1 and 4 processes; --smoke: 2 x 2 in 1 and
         * 2, the children's path at its smallest. */
        static const struct fxb_list idle_default = { { 10000 }, 1 }, idle_smoke = { { 3 }, 1 },
                                     obj_default = { { 1, 10000, 1000 }, 3 },
                                     per_default = { { 10000, 1, 10 }, 3 },
                                     shape_smoke = { { 2 }, 1 },
                                     procs_default = { { 1, 4 }, 2 },
                                     procs_smoke = { { 1, 2 }, 2 };
        struct fxb_list ic = o.idle_counts.n ? o.idle_counts : o.smoke ? idle_smoke : idle_default;
        struct fxb_list so = o.idle_objects.n ? o.idle_objects : o.smoke ? shape_smoke : obj_default;
        struct fxb_list sp = o.idle_per.n ? o.idle_per : o.smoke ? shape_smoke : per_default;
        struct fxb_list ip = o.idle_procs.n ? o.idle_procs : o.smoke ? procs_smoke : procs_default;
        struct fxb_idle_opts io = {
            .counts = ic.v, .ncounts = ic.n, .shape_objects = so.v, .shape_waiters = sp.v,
            .nshapes = so.n, .procs = ip.v, .nprocs = ip.n, .rm_counts = ic.v,
            .n_rm_counts = ic.n,
            .prims = o.idle_prims, .rmutex = o.smoke, .settle_ms = o.smoke ? 20 : 1000,
            .window_ms = o.idle_window_ms > 0 ? o.idle_window_ms : o.smoke ? 20 : 2000,
            .rounds = fxb_idle_rounds(&o),
        };
        if (!fxb_idle_toolbox(&io))
            fxb_failed = true;
    }
    if (o.work[W_PINGPONG] && !fxb_tb_pingpong(&rep, &tb))
        fxb_failed = true;
    if (o.work[W_RWLOCK] && !fxb_tb_rwlock(&rep, &tb))
        fxb_failed = true;
    if (o.work[W_BARRIER] && !fxb_tb_barrier(&rep, &tb))
        fxb_failed = true;
    if (o.work[W_HANDOFF] && !fxb_handoff(&rep, o.rounds, o.smoke ? 10 : o.duration_ms))
        fxb_failed = true;
    if (o.work[W_PROGRAMS]) {
        static const int prog_threads_default[] = { 2, 8 };
        struct fxb_programs_opts po = {
            .threads = o.threads.n ? o.threads.v : prog_threads_default,
            .nthreads = o.threads.n ? o.threads.n : 2,
            .runs = o.smoke ? 1 : o.runs, .smoke = o.smoke, .only = o.programs,
#ifdef FXB_PRELOAD_SO
            .preload = o.preload ? o.preload : FXB_PRELOAD_SO,
            .forward = o.preload_forward ? o.preload_forward : FXB_PRELOAD_FORWARD_SO,
#else
            .preload = o.preload, .forward = o.preload_forward,
#endif
        };
        if (!fxb_programs(&po))
            fxb_failed = true;
    }

    int status = fxb_failed ? 1 : 0;
    if (o.csv) {
        if (fxb_write_csv(&rep, o.csv) != 0) {
            fprintf(stderr, "futexsync-bench: cannot write %s: %s\n", o.csv, strerror(errno));
            status = 1;
        } else {
            printf("\nCSV: %s\n", o.csv);
        }
    }
    if (o.plot) {
        int r = fxb_write_plot(&rep, o.plot);
        if (r == 0)
            printf("plot: %s\n", o.plot);
        else if (r < 0)
            status = 1;
    }
    if (fxb_failed)
        printf("\nFAILED: some runs broke their checks (marked '!'; details on stderr)\n");
    free(rep.rows);
    return status;
}
