/*
 * bench/run.c - one measured run of one lock.
 *
 * threads    N threads run the adapter's loop on one lock until a stop flag;
 *            each records its acquisitions, CPU time, sleeps and (when asked)
 *            its futex calls between a common start barrier and its own end.
 *            The run's length is first start to last finish, so a coordinator
 *            scheduled late cannot stretch or shrink it.
 * processes  the same with N forked processes on a lock in MAP_SHARED memory.
 * idle       the lock is held while N threads block on it; CPU of the process
 *            is measured over the hold, then the lock is released.
 * pairs      uncontended lock+unlock pairs in one thread.
 *
 * Every run checks itself: the protected counter equals the acquisitions, no
 * lock call failed, and every worker finished within a generous deadline (a
 * run that does not finish is a lost wake-up: the bench reports it and exits).
 */
#define _GNU_SOURCE
#include "bench.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void *fxb_alloc64(size_t size)
{
    size = (size + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, size);
    if (p == NULL) {
        fprintf(stderr, "futexsync-bench: out of memory\n");
        exit(2);
    }
    memset(p, 0, size);
    return p;
}

int fxb_allowed_cpu(int i)
{
    cpu_set_t all;
    if (sched_getaffinity(0, sizeof all, &all) != 0)
        return -errno;
    int n = CPU_COUNT(&all);
    if (n == 0)
        return -EINVAL;
    int want = i % n;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all) && want-- == 0)
            return c;
    return -EINVAL;
}

int fxb_pin_self(int cpu)
{
    if (cpu < 0)
        return -cpu;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return pthread_setaffinity_np(pthread_self(), sizeof one, &one);
}

void fxb_fail(struct fxb_res *r, const char *fmt, ...)
{
    if (!r->ok)
        return; /* keep the first reason */
    r->ok = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
}

static void fxb_res_init(struct fxb_res *r)
{
    memset(r, 0, sizeof *r);
    r->ok = true;
    r->futex_calls = NAN;
    r->hold_cpu_pct = NAN;
    r->drain_ms = NAN;
}

uint64_t fxb_hist_quantile(const struct fxb_hist *h, double q)
{
    uint64_t total = 0;
    for (unsigned b = 0; b < FXB_HIST_BUCKETS; b++)
        total += h->n[b];
    if (total == 0)
        return 0;
    uint64_t rank = (uint64_t)ceil(q * (double)total);
    if (rank == 0)
        rank = 1;
    uint64_t seen = 0;
    for (unsigned b = 0; b < FXB_HIST_BUCKETS; b++) {
        seen += h->n[b];
        if (seen >= rank) {
            if (b < 64)
                return b;
            unsigned e = (b - 64) / 32 + 6, sub = (b - 64) % 32;
            uint64_t lo = (uint64_t)(32 + sub) << (e - 5);
            return lo + ((uint64_t)1 << (e - 5)) / 2; /* the bucket's middle */
        }
    }
    return 0;
}

void fxb_join_or_die(pthread_t t, const char *name, int workers, int64_t run_ns)
{
    struct timespec limit;
    clock_gettime(CLOCK_REALTIME, &limit);
    limit.tv_sec += (time_t)((run_ns + FXB_HANG_NS) / 1000000000);
    int r = pthread_timedjoin_np(t, NULL, &limit);
    if (r != 0) {
        fprintf(stderr,
                "futexsync-bench: FAILED: %s with %d threads did not finish (%s): a lost "
                "wake-up or a deadlock\n",
                name, workers, strerror(r));
        fflush(NULL);
        _exit(1);
    }
}

/* --- what a worker measures --------------------------------------------------- */

void fxb_span_begin(struct fxb_span *s, struct fxb_counter *c)
{
    fxb_usage_thread(&s->u0);
    fxb_counter_start(c);
    s->t_start = fxb_now_ns();
}

void fxb_span_end(struct fxb_span *s, struct fxb_counter *c)
{
    s->t_end = fxb_now_ns();
    fxb_counter_stop(c);
    fxb_usage_thread(&s->u1);
    s->futex = fxb_counter_read(c);
}

void fxb_span_sum_init(struct fxb_span_sum *sum, bool counting)
{
    *sum = (struct fxb_span_sum){ .t0 = INT64_MAX, .counted = counting };
}

void fxb_span_add(struct fxb_span_sum *sum, const struct fxb_span *s)
{
    if (s->t_start < sum->t0)
        sum->t0 = s->t_start;
    if (s->t_end > sum->t1)
        sum->t1 = s->t_end;
    sum->cpu_ns += (double)(s->u1.cpu_ns - s->u0.cpu_ns);
    sum->vcsw += (double)(s->u1.vcsw - s->u0.vcsw);
    if (s->count_err != 0 || s->futex == UINT64_MAX)
        sum->counted = false;
    else
        sum->futex += s->futex;
}

void fxb_span_result(const struct fxb_span_sum *sum, struct fxb_res *r)
{
    r->cpu_ns = sum->cpu_ns;
    r->vcsw = sum->vcsw;
    if (sum->counted)
        r->futex_calls = (double)sum->futex;
    r->seconds = sum->t1 > sum->t0 ? (double)(sum->t1 - sum->t0) / 1e9 : 0;
    r->ops_per_s = r->seconds > 0 ? (double)r->acquisitions / r->seconds : 0;
}

/* --- threads -------------------------------------------------------------- */

struct fxb_thr {
    pthread_t t;
    const struct fxb_cfg *c;
    void *lock;
    pthread_barrier_t *bar;
    struct fxb_loop loop;
    struct fxb_span span;
} __attribute__((aligned(64)));

static void *fxb_worker(void *arg)
{
    struct fxb_thr *t = arg;
    struct fxb_counter cnt;
    t->span.count_err = fxb_counter_open(&cnt, t->c->count);
    pthread_barrier_wait(t->bar);
    fxb_span_begin(&t->span, &cnt);
    t->c->lk->loop(t->lock, &t->loop);
    fxb_span_end(&t->span, &cnt);
    fxb_counter_close(&cnt);
    return NULL;
}

void fxb_run_threads(const struct fxb_cfg *c, struct fxb_res *r)
{
    fxb_res_init(r);
    const struct fxb_lock *lk = c->lk;
    int n = c->workers;
    void *lock = fxb_alloc64(lk->size);
    uint64_t *counter = fxb_alloc64(sizeof *counter);
    int *stop = fxb_alloc64(sizeof *stop);
    struct fxb_thr *th = fxb_alloc64(sizeof *th * (size_t)n);
    struct fxb_hist *hist = c->timed ? fxb_alloc64(sizeof *hist * (size_t)n) : NULL;
    int e = lk->init(lock, false);
    if (e != 0) {
        fxb_fail(r, "%s: init: %s", lk->name, strerror(e));
        goto out;
    }
    if (lk->flags & FXB_FX)
        fx_stats_reset(lock, lk->size);

    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)n + 1);
    int started = 0;
    for (; started < n; started++) {
        struct fxb_thr *t = &th[started];
        t->c = c;
        t->lock = lock;
        t->bar = &bar;
        t->loop.counter = counter;
        t->loop.stop = stop;
        t->loop.cs_iters = c->cs_iters;
        t->loop.out_iters = c->out_iters;
        t->loop.hist = hist ? &hist[started] : NULL;
        e = pthread_create(&t->t, NULL, fxb_worker, t);
        if (e != 0) {
            fprintf(stderr, "futexsync-bench: pthread_create: %s\n", strerror(e));
            exit(2); /* the barrier cannot be released: nothing sensible to do */
        }
    }
    pthread_barrier_wait(&bar);
    fxb_sleep_ns(c->duration_ns);
    /* Relaxed: the workers only need to see it eventually. */
    __atomic_store_n(stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < n; i++)
        fxb_join_or_die(th[i].t, c->lk->name, c->workers, c->duration_ns + c->hold_ns);
    pthread_barrier_destroy(&bar);

    struct fxb_span_sum sum;
    fxb_span_sum_init(&sum, c->count != FXB_COUNT_NONE);
    uint64_t errors = 0;
    r->min_acq = UINT64_MAX;
    for (int i = 0; i < n; i++) {
        struct fxb_thr *t = &th[i];
        r->acquisitions += t->loop.acquisitions;
        errors += t->loop.errors;
        fxb_span_add(&sum, &t->span);
        if (t->loop.acquisitions < r->min_acq)
            r->min_acq = t->loop.acquisitions;
        if (t->loop.acquisitions > r->max_acq)
            r->max_acq = t->loop.acquisitions;
        if (t->loop.max_wait_ns > r->max_wait_ns)
            r->max_wait_ns = t->loop.max_wait_ns;
    }
    fxb_span_result(&sum, r);
    if (hist) {
        for (int i = 1; i < n; i++)
            for (unsigned b = 0; b < FXB_HIST_BUCKETS; b++)
                hist[0].n[b] += hist[i].n[b];
        r->p50_ns = fxb_hist_quantile(&hist[0], 0.50);
        r->p99_ns = fxb_hist_quantile(&hist[0], 0.99);
    }
    if (lk->flags & FXB_FX)
        r->fx_valid = fx_stats_read(lock, lk->size, &r->fx) == 0;
    if (errors != 0)
        fxb_fail(r, "%s: %llu lock/unlock calls failed", lk->name, (unsigned long long)errors);
    if ((lk->flags & FXB_NOLOCK) == 0 && *counter != r->acquisitions)
        fxb_fail(r, "%s, %d threads: counter %llu != acquisitions %llu (mutual exclusion broken)",
                 lk->name, n, (unsigned long long)*counter, (unsigned long long)r->acquisitions);
    if (r->acquisitions == 0)
        fxb_fail(r, "%s, %d threads: no acquisition at all", lk->name, n);
    lk->destroy(lock);
out:
    free(hist);
    free(th);
    free(stop);
    free(counter);
    free(lock);
}

/* --- forked children --------------------------------------------------------- */

int fxb_reap(pid_t pid, int64_t deadline_ns)
{
    for (;;) {
        int st;
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (w < 0 && errno != EINTR)
            return -1;
        if (fxb_now_ns() > deadline_ns) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        fxb_sleep_ns(1000000);
    }
}

void fxb_run_threads_counted_child(const struct fxb_cfg *c, struct fxb_res *r)
{
    struct fxb_res *shm = mmap(NULL, sizeof *shm, PROT_READ | PROT_WRITE,
                               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    fxb_res_init(r);
    if (shm == MAP_FAILED) {
        fxb_fail(r, "mmap: %s", strerror(errno));
        return;
    }
    fxb_res_init(shm);
    fxb_fail(shm, "the counting child died");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int e = fxb_seccomp_install();
        if (e != 0) {
            fxb_res_init(shm);
            fxb_fail(shm, "seccomp: %s", strerror(e));
            _exit(0);
        }
        struct fxb_res local;
        fxb_run_threads(c, &local);
        *shm = local;
        _exit(0);
    }
    if (pid < 0) {
        fxb_fail(r, "fork: %s", strerror(errno));
    } else {
        int st = fxb_reap(pid, fxb_now_ns() + c->duration_ns + FXB_HANG_NS);
        *r = *shm;
        if (st != 0)
            fxb_fail(r, "%s: the counting child ended with status %d", c->lk->name, st);
    }
    munmap(shm, sizeof *shm);
}

/* --- processes --------------------------------------------------------------- */

struct fxb_proc_out {
    uint64_t acquisitions, errors;
    struct fxb_span span;
    int fx_valid;
    fx_stats fx;
} __attribute__((aligned(64)));

struct fxb_proc_shm {
    int32_t go;
    int stop;
    uint64_t counter __attribute__((aligned(64)));
    unsigned char lock[256] __attribute__((aligned(64)));
    struct fxb_proc_out out[];
};

static void fxb_proc_child(const struct fxb_cfg *c, struct fxb_proc_shm *s, int i)
{
    struct fxb_proc_out *o = &s->out[i];
    struct fxb_counter cnt;
    struct fxb_loop loop;
    memset(&loop, 0, sizeof loop);
    loop.counter = &s->counter;
    loop.stop = &s->stop;
    loop.cs_iters = c->cs_iters;
    loop.out_iters = c->out_iters;
    if (c->lk->flags & FXB_FX)
        fx_stats_reset(NULL, 0); /* count this child's calls only */
    o->span.count_err = fxb_counter_open(&cnt, c->count);
    /* Acquire: pairs with the parent's release of go. */
    while (__atomic_load_n(&s->go, __ATOMIC_ACQUIRE) == 0)
        fx_futex_wait(&s->go, 0, NULL);
    fxb_span_begin(&o->span, &cnt); /* the child's only thread: the whole child */
    c->lk->loop(s->lock, &loop);
    fxb_span_end(&o->span, &cnt);
    fxb_counter_close(&cnt);
    o->acquisitions = loop.acquisitions;
    o->errors = loop.errors;
    if (c->lk->flags & FXB_FX)
        o->fx_valid = fx_stats_read(s->lock, c->lk->size, &o->fx) == 0;
}

void fxb_run_processes(const struct fxb_cfg *c, struct fxb_res *r)
{
    fxb_res_init(r);
    const struct fxb_lock *lk = c->lk;
    int n = c->workers;
    size_t size = sizeof(struct fxb_proc_shm) + sizeof(struct fxb_proc_out) * (size_t)n;
    struct fxb_proc_shm *s =
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED) {
        fxb_fail(r, "mmap: %s", strerror(errno));
        return;
    }
    if (lk->size > sizeof s->lock || (lk->flags & FXB_PSHARED) == 0) {
        fxb_fail(r, "%s cannot be shared between processes", lk->name);
        munmap(s, size);
        return;
    }
    int e = lk->init(s->lock, true);
    if (e != 0) {
        fxb_fail(r, "%s: process-shared init: %s", lk->name, strerror(e));
        munmap(s, size);
        return;
    }
    pid_t *pids = calloc((size_t)n, sizeof *pids);
    fflush(NULL);
    int forked = 0;
    for (; forked < n; forked++) {
        pid_t pid = fork();
        if (pid == 0) {
            fxb_proc_child(c, s, forked);
            _exit(0);
        }
        if (pid < 0) {
            fxb_fail(r, "fork: %s", strerror(errno));
            break;
        }
        pids[forked] = pid;
    }
    /* Release: the children see the initialised lock. */
    __atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
    fx_futex_wake(&s->go, INT32_MAX);
    fxb_sleep_ns(c->duration_ns);
    /* Relaxed: the children only need to see it eventually. */
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
    int64_t deadline = fxb_now_ns() + FXB_HANG_NS;
    for (int i = 0; i < forked; i++) {
        int st = fxb_reap(pids[i], deadline);
        if (st != 0)
            fxb_fail(r, "%s, %d processes: child %d ended with status %d%s", lk->name, n, i, st,
                     st < 0 ? " (did not finish: a lost wake-up or a deadlock)" : "");
    }
    free(pids);

    struct fxb_span_sum sum;
    fxb_span_sum_init(&sum, c->count != FXB_COUNT_NONE && forked == n);
    uint64_t errors = 0;
    r->min_acq = UINT64_MAX;
    r->fx_valid = (lk->flags & FXB_FX) != 0;
    for (int i = 0; i < forked; i++) {
        struct fxb_proc_out *o = &s->out[i];
        r->acquisitions += o->acquisitions;
        errors += o->errors;
        fxb_span_add(&sum, &o->span);
        if (o->acquisitions < r->min_acq)
            r->min_acq = o->acquisitions;
        if (o->acquisitions > r->max_acq)
            r->max_acq = o->acquisitions;
        if (!o->fx_valid) {
            r->fx_valid = false;
        } else {
            r->fx.contended += o->fx.contended;
            r->fx.waits += o->fx.waits;
            r->fx.wakes += o->fx.wakes;
            r->fx.spins += o->fx.spins;
            r->fx.timeouts += o->fx.timeouts;
        }
    }
    fxb_span_result(&sum, r);
    if (errors != 0)
        fxb_fail(r, "%s: %llu lock/unlock calls failed", lk->name, (unsigned long long)errors);
    if (s->counter != r->acquisitions)
        fxb_fail(r, "%s, %d processes: counter %llu != acquisitions %llu (mutual exclusion "
                 "broken)",
                 lk->name, n, (unsigned long long)s->counter, (unsigned long long)r->acquisitions);
    if (r->acquisitions == 0)
        fxb_fail(r, "%s, %d processes: no acquisition at all", lk->name, n);
    lk->destroy(s->lock);
    munmap(s, size);
}

/* --- idle waiters -------------------------------------------------------------- */

struct fxb_idle {
    const struct fxb_lock *lk;
    void *lock;
    uint64_t *counter;
    int arrived;
    int errors;
};

static void *fxb_idle_waiter(void *arg)
{
    struct fxb_idle *d = arg;
    /* Relaxed: a count the coordinator polls; the lock orders the rest. */
    __atomic_fetch_add(&d->arrived, 1, __ATOMIC_RELAXED);
    if (d->lk->lock(d->lock) != 0) {
        __atomic_fetch_add(&d->errors, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    (*d->counter)++;
    if (d->lk->unlock(d->lock) != 0)
        __atomic_fetch_add(&d->errors, 1, __ATOMIC_RELAXED);
    return NULL;
}

void fxb_run_idle(const struct fxb_cfg *c, struct fxb_res *r)
{
    fxb_res_init(r);
    const struct fxb_lock *lk = c->lk;
    int n = c->workers;
    struct fxb_idle d = { lk, fxb_alloc64(lk->size), fxb_alloc64(sizeof(uint64_t)), 0, 0 };
    pthread_t *t = calloc((size_t)n, sizeof *t);
    int e = lk->init(d.lock, false);
    if (e != 0) {
        fxb_fail(r, "%s: init: %s", lk->name, strerror(e));
        goto out;
    }
    if (lk->lock(d.lock) != 0) {
        fxb_fail(r, "%s: lock failed", lk->name);
        goto out;
    }
    if (lk->flags & FXB_FX)
        fx_stats_reset(d.lock, lk->size);
    for (int i = 0; i < n; i++) {
        e = pthread_create(&t[i], NULL, fxb_idle_waiter, &d);
        if (e != 0) {
            fprintf(stderr, "futexsync-bench: pthread_create: %s\n", strerror(e));
            exit(2);
        }
    }
    /* Every waiter has called (or is about to call) lock: the hold starts. */
    while (__atomic_load_n(&d.arrived, __ATOMIC_RELAXED) < n)
        fxb_sleep_ns(200000);
    struct fxb_usage u0, u1;
    fxb_usage_process(&u0);
    int64_t t0 = fxb_now_ns();
    fxb_sleep_ns(c->hold_ns);
    fxb_usage_process(&u1);
    int64_t t1 = fxb_now_ns();
    if (lk->unlock(d.lock) != 0)
        fxb_fail(r, "%s: unlock failed", lk->name);
    for (int i = 0; i < n; i++)
        fxb_join_or_die(t[i], c->lk->name, c->workers, c->duration_ns + c->hold_ns);
    int64_t t2 = fxb_now_ns();
    r->hold_cpu_pct = 100.0 * (double)(u1.cpu_ns - u0.cpu_ns) / (double)(t1 - t0);
    r->cpu_ns = (double)(u1.cpu_ns - u0.cpu_ns);
    r->vcsw = (double)(u1.vcsw - u0.vcsw);
    r->drain_ms = (double)(t2 - t1) / 1e6;
    r->seconds = (double)(t1 - t0) / 1e9;
    r->acquisitions = *d.counter;
    if (lk->flags & FXB_FX)
        r->fx_valid = fx_stats_read(d.lock, lk->size, &r->fx) == 0;
    if (d.errors != 0)
        fxb_fail(r, "%s: %d lock/unlock calls failed", lk->name, d.errors);
    if (*d.counter != (uint64_t)n)
        fxb_fail(r, "%s: %llu of %d waiters got the lock", lk->name,
                 (unsigned long long)*d.counter, n);
    lk->destroy(d.lock);
out:
    free(t);
    free(d.counter);
    free(d.lock);
}

/* --- uncontended pairs ------------------------------------------------------------ */

/* CPU time of the calling thread: preemption by other processes is not in it. */
static int64_t fxb_thread_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

double fxb_run_pairs(const struct fxb_lock *lk, int64_t target_ns, uint64_t *errors)
{
    void *lock = fxb_alloc64(lk->size);
    *errors = 0;
    if (lk->init(lock, false) != 0) {
        free(lock);
        *errors = 1;
        return NAN;
    }
    *errors += lk->pairs(lock, 20000); /* warm: code, branch predictors, the line */
    int64_t t0 = fxb_thread_cpu_ns();
    *errors += lk->pairs(lock, 20000);
    int64_t dt = fxb_thread_cpu_ns() - t0;
    uint64_t n = (uint64_t)((double)target_ns / ((double)(dt > 0 ? dt : 1) / 20000.0));
    if (n < 20000)
        n = 20000;
    t0 = fxb_thread_cpu_ns();
    *errors += lk->pairs(lock, n);
    dt = fxb_thread_cpu_ns() - t0;
    lk->destroy(lock);
    free(lock);
    return (double)dt / (double)n;
}

struct fxb_count_pairs_arg {
    const struct fxb_lock *lk;
    uint64_t n;
    enum fxb_count_method m;
    double calls;
};

static void fxb_count_pairs_here(struct fxb_count_pairs_arg *a)
{
    void *lock = fxb_alloc64(a->lk->size);
    struct fxb_counter cnt;
    a->calls = NAN;
    if (a->lk->init(lock, false) == 0 && fxb_counter_open(&cnt, a->m) == 0) {
        fxb_counter_start(&cnt);
        a->lk->pairs(lock, a->n);
        fxb_counter_stop(&cnt);
        uint64_t v = fxb_counter_read(&cnt);
        fxb_counter_close(&cnt);
        a->lk->destroy(lock);
        if (v != UINT64_MAX)
            a->calls = (double)v;
    }
    free(lock);
}

double fxb_count_pairs(const struct fxb_lock *lk, uint64_t n, enum fxb_count_method m)
{
    if (m == FXB_COUNT_PERF) {
        struct fxb_count_pairs_arg a = { lk, n, m, NAN };
        fxb_count_pairs_here(&a);
        return a.calls;
    }
    if (m != FXB_COUNT_SECCOMP)
        return NAN;
    struct fxb_count_pairs_arg *a = mmap(NULL, sizeof *a, PROT_READ | PROT_WRITE,
                                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED)
        return NAN;
    *a = (struct fxb_count_pairs_arg){ lk, n, m, NAN };
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (fxb_seccomp_install() == 0)
            fxb_count_pairs_here(a);
        _exit(0);
    }
    double calls = NAN;
    if (pid > 0 && fxb_reap(pid, fxb_now_ns() + FXB_HANG_NS) == 0)
        calls = a->calls;
    munmap(a, sizeof *a);
    return calls;
}

/* --- the idle second thread --------------------------------------------------------- */

static pthread_t fxb_idle_t;
static int fxb_idle_pipe[2] = { -1, -1 };

static void *fxb_idle_main(void *arg)
{
    (void)arg;
    char c;
    while (read(fxb_idle_pipe[0], &c, 1) < 0 && errno == EINTR) {
    }
    return NULL;
}

void fxb_idle_thread_start(void)
{
    if (pipe(fxb_idle_pipe) != 0 || pthread_create(&fxb_idle_t, NULL, fxb_idle_main, NULL) != 0) {
        fprintf(stderr, "futexsync-bench: cannot start the idle thread\n");
        exit(2);
    }
}

void fxb_idle_thread_stop(void)
{
    close(fxb_idle_pipe[1]); /* read() returns 0: the thread ends */
    pthread_join(fxb_idle_t, NULL);
    close(fxb_idle_pipe[0]);
    fxb_idle_pipe[0] = fxb_idle_pipe[1] = -1;
}
