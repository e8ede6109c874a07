/*
 * bench/report.c - result rows, ratios, the terminal tables, CSV and SVG.
 *
 * Every number printed is a median over the interleaved rounds of one
 * invocation (the longest wait of the fairness table is the maximum), and
 * every ratio compares two medians of the same invocation. Beside each
 * throughput median (ns per pair: uncontended) stands its spread, the lowest
 * and highest value over the rounds, so a bimodal lock does not hide behind
 * its median.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fxb_row *fxb_row_add(struct fxb_report *rep, const char *workload, const char *lock,
                            int threads)
{
    if (rep->n == rep->cap) {
        rep->cap = rep->cap ? rep->cap * 2 : 64;
        rep->rows = realloc(rep->rows, rep->cap * sizeof *rep->rows);
        if (rep->rows == NULL) {
            fprintf(stderr, "futexsync-bench: out of memory\n");
            exit(2);
        }
    }
    struct fxb_row *r = &rep->rows[rep->n++];
    *r = (struct fxb_row){
        .workload = workload, .lock = lock, .threads = threads, .correct = true,
        .ops_per_s = NAN, .ns_per_pair = NAN, .vs_pthread = NAN, .vs_nsync = NAN,
        .vs_peer = NAN, .cpu_ns_per_acq = NAN, .cpu_pct = NAN, .sleeps_per_acq = NAN,
        .futex_per_acq = NAN, .min_max = NAN, .max_wait_us = NAN, .p50_us = NAN,
        .p99_us = NAN, .hold_cpu_pct = NAN, .drain_ms = NAN, .fx_contended = NAN,
        .fx_waits = NAN, .fx_wakes = NAN, .fx_spins = NAN, .fx_timeouts = NAN,
        .ops_min = NAN, .ops_max = NAN, .pair_min = NAN, .pair_max = NAN,
    };
    return r;
}

static int fxb_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double fxb_median(double *v, int n)
{
    /* NANs (not measured) are left out; all NAN gives NAN. */
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(v[i]))
            v[m++] = v[i];
    if (m == 0)
        return NAN;
    qsort(v, (size_t)m, sizeof *v, fxb_cmp_double);
    return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

void fxb_spread(const double *v, int n, size_t stride, double *lo, double *hi)
{
    *lo = *hi = NAN;
    for (int i = 0; i < n; i++) {
        double x = v[(size_t)i * stride];
        if (isnan(x))
            continue;
        if (isnan(*lo) || x < *lo)
            *lo = x;
        if (isnan(*hi) || x > *hi)
            *hi = x;
    }
}

void fxb_medians(const double *m, int entity, int rounds, int metrics, double *med)
{
    double *v = fxb_alloc64(sizeof *v * (size_t)rounds);
    const double *e = &m[(size_t)entity * (size_t)rounds * (size_t)metrics];
    for (int k = 0; k < metrics; k++) {
        for (int round = 0; round < rounds; round++)
            v[round] = e[(size_t)round * (size_t)metrics + (size_t)k];
        med[k] = fxb_median(v, rounds);
    }
    free(v);
}

struct fxb_row *fxb_row_find(const struct fxb_report *rep, const char *workload,
                             const char *lock, int threads)
{
    for (size_t i = 0; i < rep->n; i++) {
        struct fxb_row *r = &rep->rows[i];
        if (strcmp(r->workload, workload) == 0 && strcmp(r->lock, lock) == 0 &&
            r->threads == threads)
            return r;
    }
    return NULL;
}

static double fxb_ratio(const struct fxb_report *rep, const struct fxb_row *r, const char *base,
                        bool higher)
{
    if (base == NULL)
        return NAN;
    const struct fxb_row *b = fxb_row_find(rep, r->workload, base, r->threads);
    if (b == NULL)
        return NAN;
    double x = higher ? r->ops_per_s : r->ns_per_pair;
    double y = higher ? b->ops_per_s : b->ns_per_pair;
    return (isnan(x) || isnan(y) || y == 0) ? NAN : x / y;
}

void fxb_ratios(struct fxb_report *rep, const char *workload, const char *base_pthread,
                bool higher_is_better)
{
    for (size_t i = 0; i < rep->n; i++) {
        struct fxb_row *r = &rep->rows[i];
        if (strcmp(r->workload, workload) != 0)
            continue;
        const struct fxb_lock *lk = fxb_lock_find(r->lock);
        r->vs_pthread = fxb_ratio(rep, r, base_pthread, higher_is_better);
        r->vs_nsync = fxb_ratio(rep, r, "nsync", higher_is_better);
        r->vs_peer = fxb_ratio(rep, r, lk ? lk->peer : NULL, higher_is_better);
    }
}

/* --- terminal tables --------------------------------------------------------- */

/* A cell: the value with `prec` decimals, "-" when not measured, and a '!'
 * when the run behind it failed its checks. */
void fxb_cell(int width, int prec, double v, bool correct)
{
    char buf[48];
    if (isnan(v))
        snprintf(buf, sizeof buf, "-");
    else
        snprintf(buf, sizeof buf, "%.*f%s", prec, v, correct ? "" : "!");
    printf(" %*s", width, buf);
}

/* Decimals that keep about three significant digits. */
int fxb_prec(double v)
{
    double a = fabs(v);
    return isnan(v) || a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.01 ? 3 : 4;
}

/* A spread cell: "lo-hi" (the lowest and highest value over the rounds), each
 * with about three significant digits; "-" when not measured. */
void fxb_spread_cell(int width, double lo, double hi, double scale)
{
    char buf[64];
    if (isnan(lo) || isnan(hi))
        snprintf(buf, sizeof buf, "-");
    else
        snprintf(buf, sizeof buf, "%.*f-%.*f", fxb_prec(lo / scale), lo / scale,
                 fxb_prec(hi / scale), hi / scale);
    printf(" %*s", width, buf);
}

/* The distinct thread counts and locks of a workload, in first-seen order. */
struct fxb_axes {
    int threads[64];
    int nt;
    const char *locks[64];
    int nl;
};

static void fxb_axes(const struct fxb_report *rep, const char *workload, struct fxb_axes *a)
{
    a->nt = a->nl = 0;
    for (size_t i = 0; i < rep->n; i++) {
        const struct fxb_row *r = &rep->rows[i];
        if (strcmp(r->workload, workload) != 0)
            continue;
        int j;
        for (j = 0; j < a->nt && a->threads[j] != r->threads; j++) {
        }
        if (j == a->nt && a->nt < 64)
            a->threads[a->nt++] = r->threads;
        for (j = 0; j < a->nl && strcmp(a->locks[j], r->lock) != 0; j++) {
        }
        if (j == a->nl && a->nl < 64)
            a->locks[a->nl++] = r->lock;
    }
}

typedef double (*fxb_field)(const struct fxb_row *r);
static double f_vs_pthread(const struct fxb_row *r) { return r->vs_pthread; }
static double f_vs_nsync(const struct fxb_row *r) { return r->vs_nsync; }
static double f_cpu(const struct fxb_row *r) { return r->cpu_ns_per_acq; }
static double f_sleeps_k(const struct fxb_row *r) { return r->sleeps_per_acq * 1000; }
static double f_futex_k(const struct fxb_row *r) { return r->futex_per_acq * 1000; }

/* One block of a lock x threads table; skipped when it has no value. */
static void fxb_grid(const struct fxb_report *rep, const char *workload,
                     const struct fxb_axes *a, const char *title, fxb_field f, int fixed_prec)
{
    bool any = false;
    for (int l = 0; l < a->nl; l++)
        for (int t = 0; t < a->nt; t++) {
            const struct fxb_row *r = fxb_row_find(rep, workload, a->locks[l], a->threads[t]);
            if (r && !isnan(f(r)))
                any = true;
        }
    if (!any)
        return;
    printf("-- %s\n", title);
    printf("%-18s", strcmp(workload, "processes") == 0 ? "lock \\ processes" : "lock \\ threads");
    for (int t = 0; t < a->nt; t++)
        printf(" %9d", a->threads[t]);
    printf("\n");
    for (int l = 0; l < a->nl; l++) {
        printf("%-18s", a->locks[l]);
        for (int t = 0; t < a->nt; t++) {
            const struct fxb_row *r = fxb_row_find(rep, workload, a->locks[l], a->threads[t]);
            double v = r ? f(r) : NAN;
            fxb_cell(9, fixed_prec >= 0 ? fixed_prec : fxb_prec(v), v, r ? r->correct : true);
        }
        printf("\n");
    }
}

/* The Mops/s block with the spread beside each median: "median (min-max)". */
static void fxb_grid_mops(const struct fxb_report *rep, const char *workload,
                          const struct fxb_axes *a)
{
    printf("-- Mops/s (acquisitions per microsecond, all workers): median (min-max over the "
           "rounds)\n");
    printf("%-18s", strcmp(workload, "processes") == 0 ? "lock \\ processes" : "lock \\ threads");
    for (int t = 0; t < a->nt; t++)
        printf(" %9d%*s", a->threads[t], t + 1 < a->nt ? 13 : 0, "");
    printf("\n");
    for (int l = 0; l < a->nl; l++) {
        printf("%-18s", a->locks[l]);
        for (int t = 0; t < a->nt; t++) {
            const struct fxb_row *r = fxb_row_find(rep, workload, a->locks[l], a->threads[t]);
            double v = r ? r->ops_per_s / 1e6 : NAN;
            fxb_cell(9, fxb_prec(v), v, r ? r->correct : true);
            char buf[64];
            if (r == NULL || isnan(r->ops_min) || isnan(r->ops_max))
                buf[0] = '\0';
            else
                snprintf(buf, sizeof buf, "(%.*f-%.*f)", fxb_prec(r->ops_min / 1e6),
                         r->ops_min / 1e6, fxb_prec(r->ops_max / 1e6), r->ops_max / 1e6);
            if (t + 1 < a->nt || buf[0] != '\0')
                printf(" %-*s", t + 1 < a->nt ? 12 : 0, buf);
        }
        printf("\n");
    }
}

static void fxb_rounds_note(const struct fxb_report *rep, const char *workload)
{
    int rounds = 0;
    for (size_t i = 0; i < rep->n; i++)
        if (strcmp(rep->rows[i].workload, workload) == 0 && rep->rows[i].rounds > rounds)
            rounds = rep->rows[i].rounds;
    printf("   median of %d interleaved round%s", rounds, rounds == 1 ? "" : "s");
}

void fxb_print_uncontended(const struct fxb_report *rep)
{
    struct fxb_axes a;
    fxb_axes(rep, "uncontended", &a);
    if (a.nl == 0)
        return;
    printf("\n== uncontended: lock + unlock in one thread (the process has a second, idle "
           "thread) ==\n");
    fxb_rounds_note(rep, "uncontended");
    printf(" of the thread's CPU time;\n   ratio = ns / reference ns (< 1: faster)\n");
    printf("%-18s %9s %11s %11s %9s   %s\n", "lock", "ns/pair", "min-max", "vs pthread",
           "vs nsync", "vs peer");
    for (int l = 0; l < a.nl; l++) {
        const struct fxb_row *r = fxb_row_find(rep, "uncontended", a.locks[l], 0);
        const struct fxb_lock *lk = fxb_lock_find(r->lock);
        printf("%-18s", r->lock);
        fxb_cell(9, 1, r->ns_per_pair, r->correct);
        fxb_spread_cell(11, r->pair_min, r->pair_max, 1);
        fxb_cell(11, 2, r->vs_pthread, true);
        fxb_cell(9, 2, r->vs_nsync, true);
        if (!isnan(r->vs_peer))
            printf("   %.2f (%s)", r->vs_peer, lk->peer);
        printf("\n");
    }
}

void fxb_print_threads(const struct fxb_report *rep, const char *workload)
{
    struct fxb_axes a;
    fxb_axes(rep, workload, &a);
    if (a.nl == 0)
        return;
    bool procs = strcmp(workload, "processes") == 0;
    printf("\n== %s: throughput with %s, critical section %.0f ns, outside %.0f ns, %lld ms "
           "runs ==\n",
           workload, procs ? "N processes on MAP_SHARED memory" : "N threads", rep->cs_ns,
           rep->outside_ns, (long long)rep->duration_ms);
    fxb_rounds_note(rep, workload);
    printf("; ! = the run failed its checks\n");
    fxb_grid_mops(rep, workload, &a);
    fxb_grid(rep, workload, &a,
             procs ? "ratio to pthread-pshared (> 1: faster)" : "ratio to pthread (> 1: faster)",
             f_vs_pthread, 2);
    if (!procs)
        fxb_grid(rep, workload, &a, "ratio to nsync (> 1: faster)", f_vs_nsync, 2);
    fxb_grid(rep, workload, &a, "CPU ns per acquisition (user + system of all workers)", f_cpu,
             0);
    fxb_grid(rep, workload, &a, "sleeps per 1000 acquisitions (voluntary context switches)",
             f_sleeps_k, -1);
    fxb_grid(rep, workload, &a, "futex system calls per 1000 acquisitions", f_futex_k, -1);
}

void fxb_print_fairness(const struct fxb_report *rep)
{
    struct fxb_axes a;
    fxb_axes(rep, "fairness", &a);
    if (a.nl == 0)
        return;
    printf("\n== fairness: per-thread acquisitions and acquisition latency (lock call to "
           "return) ==\n");
    fxb_rounds_note(rep, "fairness");
    printf(" (longest wait: the maximum over all rounds); min/max = fewest / most\n"
           "   acquisitions of one thread in a run (1 = perfectly even)\n");
    printf("%-18s %7s %9s %11s %8s %16s %9s %9s\n", "lock", "threads", "Mops/s",
           "(min-max)", "min/max", "longest wait ms", "p50 us", "p99 us");
    for (int t = 0; t < a.nt; t++)
        for (int l = 0; l < a.nl; l++) {
            const struct fxb_row *r = fxb_row_find(rep, "fairness", a.locks[l], a.threads[t]);
            if (r == NULL)
                continue;
            printf("%-18s %7d", r->lock, r->threads);
            fxb_cell(9, fxb_prec(r->ops_per_s / 1e6), r->ops_per_s / 1e6, r->correct);
            fxb_spread_cell(11, r->ops_min, r->ops_max, 1e6);
            fxb_cell(8, 3, r->min_max, true);
            fxb_cell(16, 2, r->max_wait_us / 1000, true);
            fxb_cell(9, fxb_prec(r->p50_us), r->p50_us, true);
            fxb_cell(9, fxb_prec(r->p99_us), r->p99_us, true);
            printf("\n");
        }
}

void fxb_print_syscalls(const struct fxb_report *rep)
{
    struct fxb_axes a;
    fxb_axes(rep, "syscalls", &a);
    if (a.nl == 0)
        return;
    bool fx = false;
    for (size_t i = 0; i < rep->n; i++)
        if (strcmp(rep->rows[i].workload, "syscalls") == 0 && !isnan(rep->rows[i].fx_waits))
            fx = true;
    printf("\n== syscalls: cost per acquisition (futex calls counted by: %s) ==\n",
           fxb_count_name(rep->count));
    fxb_rounds_note(rep, "syscalls");
    printf("; threads 0 = uncontended pairs\n"
           "   futex = futex system calls, sleeps = voluntary context switches, CPU = user +\n"
           "   system ns of all threads, all per acquisition%s\n",
           fx ? "; fx_* = fx_stats counts (stats build)" : "");
    printf("%-18s %7s %10s %10s %8s %9s %11s", "lock", "threads", "futex", "sleeps", "CPU ns",
           "Mops/s", "(min-max)");
    if (fx)
        printf(" %10s %8s %8s %8s", "fx_contd", "fx_wait", "fx_wake", "fx_spin");
    printf("\n");
    for (int t = 0; t < a.nt; t++)
        for (int l = 0; l < a.nl; l++) {
            const struct fxb_row *r = fxb_row_find(rep, "syscalls", a.locks[l], a.threads[t]);
            if (r == NULL)
                continue;
            printf("%-18s %7d", r->lock, r->threads);
            fxb_cell(10, 4, r->futex_per_acq, r->correct);
            fxb_cell(10, 4, r->sleeps_per_acq, true);
            fxb_cell(8, 0, r->cpu_ns_per_acq, true);
            fxb_cell(9, fxb_prec(r->ops_per_s / 1e6), r->ops_per_s / 1e6, true);
            fxb_spread_cell(11, r->ops_min, r->ops_max, 1e6);
            if (fx) {
                fxb_cell(10, 4, r->fx_contended, true);
                fxb_cell(8, 4, r->fx_waits, true);
                fxb_cell(8, 4, r->fx_wakes, true);
                fxb_cell(8, fxb_prec(r->fx_spins), r->fx_spins, true);
            }
            printf("\n");
        }
}

void fxb_print_idle(const struct fxb_report *rep)
{
    struct fxb_axes a;
    fxb_axes(rep, "idle", &a);
    if (a.nl == 0)
        return;
    bool fx = false;
    for (size_t i = 0; i < rep->n; i++)
        if (strcmp(rep->rows[i].workload, "idle") == 0 && !isnan(rep->rows[i].fx_spins))
            fx = true;
    printf("\n== idle: N threads blocked behind a held lock ==\n");
    fxb_rounds_note(rep, "idle");
    printf("; CPU = the whole process during the hold, %% of one core;\n"
           "   drain = unlock to the last waiter done%s\n",
           fx ? "; fx_* per waiter (stats build)" : "");
    printf("%-18s %7s %9s %9s", "lock", "threads", "CPU %", "drain ms");
    if (fx)
        printf(" %8s %8s", "fx_spin", "fx_wait");
    printf("\n");
    for (int t = 0; t < a.nt; t++)
        for (int l = 0; l < a.nl; l++) {
            const struct fxb_row *r = fxb_row_find(rep, "idle", a.locks[l], a.threads[t]);
            if (r == NULL)
                continue;
            printf("%-18s %7d", r->lock, r->threads);
            fxb_cell(9, 2, r->hold_cpu_pct, r->correct);
            fxb_cell(9, 2, r->drain_ms, true);
            if (fx) {
                fxb_cell(8, fxb_prec(r->fx_spins), r->fx_spins, true);
                fxb_cell(8, 2, r->fx_waits, true);
            }
            printf("\n");
        }
}

/* --- CSV ----------------------------------------------------------------------- */

static void fxb_csv_num(FILE *f, double v)
{
    if (isnan(v))
        fputs(",", f);
    else
        fprintf(f, ",%.6g", v);
}

int fxb_write_csv(const struct fxb_report *rep, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fputs("workload,lock,threads,rounds,cs_ns,outside_ns,duration_ms,ops_per_s,ns_per_pair,"
          "vs_pthread,vs_nsync,vs_peer,cpu_ns_per_acq,sleeps_per_acq,futex_per_acq,"
          "futex_method,min_max,max_wait_us,p50_us,p99_us,hold_cpu_pct,drain_ms,"
          "fx_contended_per_acq,fx_waits_per_acq,fx_wakes_per_acq,fx_spins_per_acq,"
          "fx_timeouts_per_acq,correct,read_pct,ops_per_s_min,ops_per_s_max,"
          "ns_per_pair_min,ns_per_pair_max\n",
          f);
    for (size_t i = 0; i < rep->n; i++) {
        const struct fxb_row *r = &rep->rows[i];
        fprintf(f, "%s,%s,%d,%d", r->workload, r->lock, r->threads, r->rounds);
        fxb_csv_num(f, rep->cs_ns);
        fxb_csv_num(f, rep->outside_ns);
        fxb_csv_num(f, (double)rep->duration_ms);
        double v[] = { r->ops_per_s, r->ns_per_pair, r->vs_pthread, r->vs_nsync, r->vs_peer,
                       r->cpu_ns_per_acq, r->sleeps_per_acq, r->futex_per_acq };
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            fxb_csv_num(f, v[k]);
        fprintf(f, ",%s", isnan(r->futex_per_acq) ? "" : fxb_count_name(rep->count));
        double w[] = { r->min_max, r->max_wait_us, r->p50_us, r->p99_us, r->hold_cpu_pct,
                       r->drain_ms, r->fx_contended, r->fx_waits, r->fx_wakes, r->fx_spins,
                       r->fx_timeouts };
        for (size_t k = 0; k < sizeof w / sizeof w[0]; k++)
            fxb_csv_num(f, w[k]);
        fprintf(f, ",%d", r->correct ? 1 : 0);
        if (strcmp(r->workload, "rwlock") == 0)
            fprintf(f, ",%d", rep->read_pct);
        else
            fputs(",", f);
        fxb_csv_num(f, r->ops_min);
        fxb_csv_num(f, r->ops_max);
        fxb_csv_num(f, r->pair_min);
        fxb_csv_num(f, r->pair_max);
        fputc('\n', f);
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* --- gnuplot SVG ------------------------------------------------------------------ */

static bool fxb_in_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/bin:/bin";
    char dir[4096];
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n > 0 && n < sizeof dir - strlen(prog) - 2) {
            memcpy(dir, path, n);
            snprintf(dir + n, sizeof dir - n, "/%s", prog);
            if (access(dir, X_OK) == 0)
                return true;
        }
        path += n;
        if (*path == ':')
            path++;
    }
    return false;
}

/* A gnuplot single-quoted string: quotes are doubled. */
static void fxb_gp_quoted(FILE *g, const char *s)
{
    fputc('\'', g);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', g);
        fputc(*s, g);
    }
    fputc('\'', g);
}

int fxb_write_plot(const struct fxb_report *rep, const char *path)
{
    struct fxb_axes a;
    fxb_axes(rep, "threads", &a);
    if (a.nl == 0) {
        fprintf(stderr, "futexsync-bench: --plot needs the threads workload: no plot written\n");
        return 1;
    }
    if (!fxb_in_path("gnuplot")) {
        fprintf(stderr, "futexsync-bench: gnuplot is not installed (apt-get install "
                        "gnuplot-nox): %s not written; the same data is in the table and "
                        "--csv\n",
                path);
        return 1;
    }
    FILE *g = popen("gnuplot", "w");
    if (g == NULL)
        return -1;
    fputs("set terminal svg size 960,600 dynamic noenhanced font 'sans,12' background "
          "rgb 'white'\nset output ",
          g);
    fxb_gp_quoted(g, path);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    fprintf(g,
            "\nset title 'futexsync-bench: contended throughput (critical section %.0f ns, "
            "outside %.0f ns, %ld CPUs, median of interleaved rounds)'\n"
            "set xlabel 'threads'\nset ylabel 'Mops/s (all threads)'\n"
            "set logscale x 2\nset grid\nset key outside right top\nset yrange [0:*]\n",
            rep->cs_ns, rep->outside_ns, cpus);
    int tmin = a.threads[0], tmax = a.threads[0];
    for (int t = 1; t < a.nt; t++) {
        tmin = a.threads[t] < tmin ? a.threads[t] : tmin;
        tmax = a.threads[t] > tmax ? a.threads[t] : tmax;
    }
    fprintf(g, "set xrange [%g:%g]\n", tmin / 1.25, tmax * 1.25);
    fputs("set xtics (", g);
    for (int t = 0; t < a.nt; t++)
        fprintf(g, "%s%d", t ? ", " : "", a.threads[t]);
    fputs(")\n", g);
    for (int l = 0; l < a.nl; l++) {
        fprintf(g, "$d%d << EOD\n", l);
        for (int t = 0; t < a.nt; t++) {
            const struct fxb_row *r = fxb_row_find(rep, "threads", a.locks[l], a.threads[t]);
            if (r && !isnan(r->ops_per_s))
                fprintf(g, "%d %.6g\n", a.threads[t], r->ops_per_s / 1e6);
        }
        fputs("EOD\n", g);
    }
    fputs("plot ", g);
    for (int l = 0; l < a.nl; l++) {
        fprintf(g, "%s$d%d using 1:2 with linespoints lw 2 pt 7 ps 0.8 title ", l ? ", " : "", l);
        fxb_gp_quoted(g, a.locks[l]);
    }
    fputs("\n", g);
    int st = pclose(g);
    if (st != 0) {
        fprintf(stderr, "futexsync-bench: gnuplot failed (status %d): %s not written\n", st,
                path);
        return -1;
    }
    return 0;
}

/* --- the progress line on a terminal ------------------------------------------------- */

static bool fxb_progress; /* stderr is a terminal: show the line */

void fxb_start_progress(bool on)
{
    fxb_progress = on;
}

void fxb_note_progress(const char *w, const char *lock, int workers, int round, int rounds)
{
    if (!fxb_progress)
        return;
    fprintf(stderr, "\r\033[K[%s] %s, %d, round %d/%d", w, lock, workers, round, rounds);
    fflush(stderr);
}

void fxb_end_progress(void)
{
    if (fxb_progress)
        fprintf(stderr, "\r\033[K");
}
