/*
 * bench/programs.c - the programs workload: existing programs run A/B
 * against glibc through the LD_PRELOAD interposer of bench/preload.
 *
 * For each program and thread count, N runs of each variant, interleaved
 * (glibc, futexsync, forward-only, glibc, ...): wall time from fork to
 * wait4, CPU time (user + sys) from wait4's rusage; min, median and max of
 * each, and the ratio of the medians to glibc's. One more run under the
 * routing interposer, not timed, prints its statistics line: what it routed.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef FXB_PRELOAD_DIR
#define FXB_PRELOAD_DIR ""
#endif

enum { V_GLIBC, V_FX, V_FORWARD, V_COUNT };
static const char *const variant_name[V_COUNT] = { "glibc", "futexsync", "forward-only" };

struct program {
    const char *name;    /* for --programs and the table */
    const char *package; /* the Debian package that provides it */
    const char *exe;     /* looked up in PATH (an absolute path: as is) */
    const char *alt;     /* or this one, tried first when it exists */
};

static const struct program programs[] = {
    { "sysbench-mutex", "sysbench", "sysbench", NULL },
    { "sysbench-threads", "sysbench", "sysbench", NULL },
    { "python-gil-io", "python3", "python3", "/usr/bin/python3" },
};
#define NPROG (sizeof programs / sizeof programs[0])

bool fxb_programs_known(const char *name)
{
    for (size_t i = 0; i < NPROG; i++)
        if (strcmp(programs[i].name, name) == 0)
            return true;
    return false;
}

/* The executable's path in buf, or false. */
static bool find_exe(const struct program *p, char *buf, size_t len)
{
    if (p->alt != NULL && access(p->alt, X_OK) == 0) {
        snprintf(buf, len, "%s", p->alt);
        return true;
    }
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", path);
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(buf, len, "%s/%s", d, p->exe);
        if (access(buf, X_OK) == 0)
            return true;
    }
    return false;
}

/* The program's arguments for `threads` threads: a fixed amount of work
 * shared by the threads, so a run lasts about a second or two here
 * (--smoke: a tiny amount). */
static void make_argv(size_t prog, char *exe, int threads, bool smoke, char bufs[8][256],
                      char **argv)
{
    int k = 0;
    long scale = smoke ? 100 : 1;
    switch (prog) {
    case 0: /* every thread: lock one of 8 mutexes, 50 loop turns, unlock */
        snprintf(bufs[1], 256, "mutex");
        snprintf(bufs[2], 256, "--threads=%d", threads);
        snprintf(bufs[3], 256, "--mutex-num=8");
        snprintf(bufs[4], 256, "--mutex-locks=%ld", 12000000L / threads / scale);
        snprintf(bufs[5], 256, "--mutex-loops=50");
        snprintf(bufs[6], 256, "run");
        k = 7;
        break;
    case 1: /* events of 100 sched_yield with one of 4 mutexes held */
        snprintf(bufs[1], 256, "threads");
        snprintf(bufs[2], 256, "--threads=%d", threads);
        snprintf(bufs[3], 256, "--thread-yields=100");
        snprintf(bufs[4], 256, "--thread-locks=4");
        snprintf(bufs[5], 256, "--events=%ld", 40000L / threads / scale);
        snprintf(bufs[6], 256, "--time=0");
        snprintf(bufs[7], 256, "run");
        k = 8;
        break;
    default:
        snprintf(bufs[1], 256, "%s/gil_io.py", FXB_PRELOAD_DIR);
        snprintf(bufs[2], 256, "%d", threads);
        snprintf(bufs[3], 256, "%ld", 40000L / threads / scale);
        k = 4;
        break;
    }
    argv[0] = exe;
    for (int i = 1; i < k; i++)
        argv[i] = bufs[i];
    argv[k] = NULL;
}

struct run {
    double wall, cpu; /* seconds */
    bool ok;
};

/* Runs argv once under `so` (NULL: no LD_PRELOAD). With stats_out, asks
 * for the interposer's statistics and returns its line there. */
static struct run run_once(char **argv, const char *so, char *stats_out, size_t stats_len)
{
    struct run r = { .ok = false };
    int pipefd[2] = { -1, -1 };
    if (stats_out != NULL) {
        stats_out[0] = '\0';
        if (pipe(pipefd) != 0)
            return r;
    }
    fflush(NULL);
    int64_t t0 = fxb_now_ns();
    pid_t pid = fork();
    if (pid < 0)
        return r;
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(stats_out != NULL ? pipefd[1] : null, STDERR_FILENO);
        if (so != NULL)
            setenv("LD_PRELOAD", so, 1);
        else
            unsetenv("LD_PRELOAD");
        if (stats_out != NULL)
            setenv("FUTEXSYNC_PRELOAD_STATS", "1", 1);
        else
            unsetenv("FUTEXSYNC_PRELOAD_STATS");
        execv(argv[0], argv);
        _exit(127);
    }
    if (stats_out != NULL) {
        close(pipefd[1]);
        char buf[8192];
        size_t n = 0;
        ssize_t k;
        while ((k = read(pipefd[0], buf + n, sizeof buf - 1 - n)) > 0 && n + (size_t)k < sizeof buf - 1)
            n += (size_t)k;
        buf[n] = '\0';
        close(pipefd[0]);
        char *line = strstr(buf, "futexsync-preload:");
        if (line != NULL) {
            char *end = strchr(line, '\n');
            if (end != NULL)
                *end = '\0';
            snprintf(stats_out, stats_len, "%s", line);
        }
    }
    int st;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0)
        if (errno != EINTR)
            return r;
    r.wall = (double)(fxb_now_ns() - t0) / 1e9;
    r.cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
            (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    r.ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    return r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct spread {
    double min, med, max;
};

static struct spread spread_of(const double *v, int n)
{
    double s[256];
    memcpy(s, v, (size_t)n * sizeof *v);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    struct spread r = { s[0], n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2, s[n - 1] };
    return r;
}

bool fxb_programs(const struct fxb_programs_opts *o)
{
    const char *so[V_COUNT] = { NULL, o->preload, o->forward };
    printf("\n== programs: existing programs A/B, glibc against futexsync through the "
           "LD_PRELOAD interposer ==\n");
    if (o->preload == NULL || o->forward == NULL || access(o->preload, R_OK) != 0 ||
        access(o->forward, R_OK) != 0) {
        printf("skipped: the interposer is not built here (x86-64 builds without sanitizers "
               "build it; --preload and --preload-forward give its paths)\n");
        return true;
    }
    printf("%d runs of each variant, interleaved (glibc, futexsync, forward-only, ...);\n"
           "seconds as min / median / max; ratios of medians, < 1 is faster than glibc\n"
           "interposers: %s\n              %s\n",
           o->runs, o->preload, o->forward);
    bool ok = true;
    for (size_t p = 0; p < NPROG; p++) {
        if (o->only != NULL) {
            char list[512];
            bool want = false;
            snprintf(list, sizeof list, "%s", o->only);
            for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
                want |= strcmp(t, programs[p].name) == 0;
            if (!want)
                continue;
        }
        char exe[4096];
        if (!find_exe(&programs[p], exe, sizeof exe)) {
            printf("\n%s: skipped, %s not found (apt-get install %s)\n", programs[p].name,
                   programs[p].exe, programs[p].package);
            continue;
        }
        printf("\n%-16s %7s  %-12s  %-20s  %-20s  %8s  %8s\n", programs[p].name, "threads",
               "variant", "wall s", "CPU s", "wall/gl", "CPU/gl");
        for (int t = 0; t < o->nthreads; t++) {
            char bufs[8][256], *argv[9];
            make_argv(p, exe, o->threads[t], o->smoke, bufs, argv);
            char line[1024];
            fxb_note_progress("programs, what is routed", programs[p].name, o->threads[t], 1, 1);
            struct run check = run_once(argv, o->preload, line, sizeof line);
            double wall[V_COUNT][256], cpu[V_COUNT][256];
            bool run_ok[V_COUNT] = { true, true, true };
            run_ok[V_FX] = check.ok;
            for (int i = 0; i < o->runs; i++) {
                for (int v = 0; v < V_COUNT; v++) {
                    fxb_note_progress("programs", programs[p].name, o->threads[t], i + 1, o->runs);
                    struct run r = run_once(argv, so[v], NULL, 0);
                    wall[v][i] = r.wall;
                    cpu[v][i] = r.cpu;
                    run_ok[v] &= r.ok;
                }
            }
            fxb_end_progress();
            struct spread w0 = spread_of(wall[V_GLIBC], o->runs), c0 = spread_of(cpu[V_GLIBC], o->runs);
            for (int v = 0; v < V_COUNT; v++) {
                struct spread w = spread_of(wall[v], o->runs), c = spread_of(cpu[v], o->runs);
                char ws[64], cs[64];
                snprintf(ws, sizeof ws, "%.2f %.2f %.2f", w.min, w.med, w.max);
                snprintf(cs, sizeof cs, "%.2f %.2f %.2f", c.min, c.med, c.max);
                printf("%-16s %7d  %-12s  %-20s  %-20s  %8.2f  %8.2f%s\n", "", o->threads[t],
                       variant_name[v], ws, cs, w0.med > 0 ? w.med / w0.med : 0,
                       c0.med > 0 ? c.med / c0.med : 0, run_ok[v] ? "" : " !");
                if (!run_ok[v]) {
                    fprintf(stderr, "futexsync-bench: programs: %s (%d threads) under %s "
                                    "exited with an error\n",
                            programs[p].name, o->threads[t], variant_name[v]);
                    ok = false;
                }
            }
            const char *counts = strstr(line, "mutex-init");
            printf("%-16s %7s  routed/forwarded: %s\n", "", "",
                   counts != NULL ? counts : "(no statistics line)");
        }
    }
    return ok;
}
