/*
 * bench/idle.c - the idle workload's per-primitive tables: threads blocked on
 * objects that nobody releases, against the pthread peer (issues 19, 30, 31).
 *
 * One run: the objects are set up held (a mutex locked, a rwlock
 * write-locked, a barrier of one party more than its waiters, a sem at 0, a
 * cond or counter whose predicate is false), threads with small stacks block
 * on them, in the measuring process or in forked children, the run waits
 * until all have arrived and then a settle time (past the first recheck of
 * every sleeper), and each waiting process measures a window: its CPU time
 * and voluntary context switches (getrusage RUSAGE_SELF) minus those of its
 * measuring thread (RUSAGE_THREAD), over the window's wall time; the run adds
 * the processes up. Then the objects are released, every waiter must get
 * through, and all are joined and reaped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <futexsync/layout.h> /* an fx_rmutex owner word, read */

#include "../src/internal/probe_periods.h" /* the prober's period, printed */
#include "bench.h"

enum { K_MUTEX, K_COND, K_SEM, K_RWLOCK, K_BARRIER, K_COUNTER, K_COUNT };
static const char *const fxb_idle_kind[K_COUNT] = { "fx_mutex", "fx_cond", "fx_sem",
                                                    "fx_rwlock", "fx_barrier", "fx_counter" };
static const char *const fxb_idle_peer[K_COUNT] = {
    "pthread_mutex", "pthread_cond", "sem_t", "pthread_rwlock", "pthread_barrier",
    "pthread_cond" /* a counter is a value and a condition variable */
};

struct fxb_idle_res {
    bool ok;
    double cpu_pct;   /* % of one core, the waiting processes minus their measurers */
    double wakeups_s; /* voluntary context switches per second, likewise */
};

/* Starts up to n threads running fn(arg), with small stacks: 10,000 threads
 * fit in a few hundred MB of address space, a few pages of it touched each.
 * Returns how many were made; *err is 0, or the error of the first that
 * could not be made (reported on stderr). */
static int fxb_idle_spawn(pthread_t *t, int n, void *(*fn)(void *), void *arg, int *err)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 64 * 1024);
    int made = 0, e = 0;
    for (; made < n; made++) {
        e = pthread_create(&t[made], &a, fn, arg);
        if (e != 0)
            break;
    }
    pthread_attr_destroy(&a);
    if (e != 0)
        fprintf(stderr, "futexsync-bench: idle: thread %d of %d: %s (RLIMIT_NPROC, "
                        "kernel.threads-max, vm.max_map_count?)\n",
                made + 1, n, strerror(e));
    *err = e;
    return made;
}

/* Waits until *arrived counts n waiters, then settle_ns more. */
static void fxb_idle_settle(const int32_t *arrived, int n, int64_t settle_ns)
{
    /* Relaxed: a count; the objects order the rest. */
    while (__atomic_load_n(arrived, __ATOMIC_RELAXED) < n)
        fxb_sleep_ns(1000000);
    fxb_sleep_ns(settle_ns);
}

/* A measured window of one process: CPU time and voluntary context switches
 * of the whole process minus those of the thread that opens and closes it. */
struct fxb_idle_window {
    struct fxb_usage p0, q0, m0, p1, q1, m1;
    int64_t t0, t1;
};

/* A RUSAGE_SELF call walks every thread, and part of that walk is sampled
 * as the measurer's time and part not: the process is sampled both inside
 * and outside the measurer's bracket, and the window takes the middle of
 * the two estimates (q: outside). */
static void fxb_idle_window_open(struct fxb_idle_window *w)
{
    fxb_usage_process(&w->q0);
    fxb_usage_thread(&w->m0);
    fxb_usage_process(&w->p0);
    w->t0 = fxb_now_ns();
}

static void fxb_idle_window_close(struct fxb_idle_window *w)
{
    w->t1 = fxb_now_ns();
    fxb_usage_process(&w->p1);
    fxb_usage_thread(&w->m1);
    fxb_usage_process(&w->q1);
}

/* Measures a window of window_ns. */
static void fxb_idle_window(struct fxb_idle_window *w, int64_t window_ns)
{
    fxb_idle_window_open(w);
    fxb_sleep_ns(window_ns);
    fxb_idle_window_close(w);
}

/* Adds the window's CPU (% of one core) and wake-ups per second to res. */
static void fxb_idle_window_add(const struct fxb_idle_window *w, struct fxb_idle_res *res)
{
    double secs = (double)(w->t1 - w->t0) / 1e9;
    double mine = (double)(w->m1.cpu_ns - w->m0.cpu_ns);
    double cpu = ((double)(w->p1.cpu_ns - w->p0.cpu_ns) - mine +
                  (double)(w->q1.cpu_ns - w->q0.cpu_ns) - mine) / 2;
    double sw = (double)((w->p1.vcsw - w->p0.vcsw) - (w->m1.vcsw - w->m0.vcsw));
    res->cpu_pct += 100.0 * cpu / (secs * 1e9);
    res->wakeups_s += sw / secs;
}

/* --- waiters in forked children -------------------------------------------- */

/* A child's part of a run, in the MAP_SHARED memory of the run. */
struct fxb_idle_kid {
    struct fxb_idle_window w;
    sem_t go, done; /* the parent asks for the window's two ends */
    int made;       /* waiters it started */
} __attribute__((aligned(64)));

static void fxb_idle_sem_wait(sem_t *sem)
{
    while (sem_wait(sem) != 0 && errno == EINTR) {
    }
}

/* The process-shared semaphores of n children: whether all were made. */
static bool fxb_idle_kids_init(struct fxb_idle_kid *kid, int n)
{
    bool ok = true;
    for (int k = 0; k < n; k++)
        ok = ok && sem_init(&kid[k].go, 1, 0) == 0 && sem_init(&kid[k].done, 1, 0) == 0;
    return ok;
}

/* A child's waiters: `share` threads running fn(arg), started on *start and
 * counted on *spawned; its window's ends on kid->go, then they are joined
 * once the parent releases them. */
static void fxb_idle_child(sem_t *start, sem_t *spawned, struct fxb_idle_kid *kid, int share,
                           void *(*fn)(void *), void *arg)
{
    pthread_t *t = calloc((size_t)share + 1, sizeof *t);
    int e = 0;
    fxb_idle_sem_wait(start);
    kid->made = t ? fxb_idle_spawn(t, share, fn, arg, &e) : 0;
    sem_post(spawned);
    fxb_idle_sem_wait(&kid->go);
    fxb_idle_window_open(&kid->w);
    sem_post(&kid->done);
    fxb_idle_sem_wait(&kid->go);
    fxb_idle_window_close(&kid->w);
    sem_post(&kid->done);
    for (int i = 0; i < kid->made; i++)
        pthread_join(t[i], NULL);
    free(t);
}

/* Asks n children for one end of their window and waits until all took it. */
static void fxb_idle_kids(struct fxb_idle_kid *kid, int n)
{
    for (int k = 0; k < n; k++)
        sem_post(&kid[k].go);
    for (int k = 0; k < n; k++)
        fxb_idle_sem_wait(&kid[k].done);
}

/* Lets n forked children start their waiters (*start), waits until each
 * has (*spawned), and returns how many waiters they made in all. */
static int fxb_idle_kids_spawn(sem_t *start, sem_t *spawned, const struct fxb_idle_kid *kid, int n)
{
    int made = 0;
    for (int k = 0; k < n; k++)
        sem_post(start);
    for (int k = 0; k < n; k++)
        fxb_idle_sem_wait(spawned);
    for (int k = 0; k < n; k++)
        made += kid[k].made;
    return made;
}

/* Once the made waiters have arrived, one measured window: the n children's
 * (through kid) and this process's own (w). */
static void fxb_idle_measure(const int32_t *arrived, int made, int64_t settle_ns,
                             struct fxb_idle_kid *kid, int n, int64_t window_ns,
                             struct fxb_idle_window *w)
{
    fxb_idle_settle(arrived, made, settle_ns);
    fxb_idle_kids(kid, n);
    fxb_idle_window(w, window_ns);
    fxb_idle_kids(kid, n);
}

/* Forks n children, each running body(arg, k) for its index k and exiting
 * 0. Returns how many were forked (their ids in pids); a fork that fails is
 * reported and ends the forking. */
static int fxb_idle_fork(pid_t *pids, int n, void (*body)(void *, int), void *arg)
{
    fflush(NULL);
    int forked = 0;
    for (; forked < n; forked++) {
        pids[forked] = fork();
        if (pids[forked] == 0) {
            body(arg, forked);
            _exit(0);
        }
        if (pids[forked] < 0) {
            fprintf(stderr, "futexsync-bench: idle: fork: %s\n", strerror(errno));
            break;
        }
    }
    return forked;
}

/* Reaps n children within FXB_HANG_NS (now: kills them at once): the first
 * non-zero status (fxb_reap's), or 0. */
static int fxb_idle_reap(const pid_t *pids, int n, bool now)
{
    int status = 0;
    int64_t deadline = now ? 0 : fxb_now_ns() + FXB_HANG_NS;
    for (int k = 0; k < n; k++) {
        int st = fxb_reap(pids[k], deadline);
        status = status ? status : st;
    }
    return status;
}

/* The measured columns of a row: CPU % and wake-ups/s of fx and its peer,
 * "nan" for a run that failed. */
/* pt NULL: the peer does not exist here; its cells show '-'. */
static void fxb_idle_cells(const struct fxb_idle_res *fx, const struct fxb_idle_res *pt)
{
    /* The CPU estimate may dip below 0 by its own error: shown as 0.00
     * rather than -0.00 when it rounds to nothing. */
    double fcpu = fabs(fx->cpu_pct) < 0.005 ? 0.0 : fx->cpu_pct;
    printf(" | %8.2f %11.1f |", fx->ok ? fcpu : NAN, fx->ok ? fx->wakeups_s : NAN);
    if (pt == NULL) {
        printf(" %8s %11s |", "-", "-");
        return;
    }
    double pcpu = fabs(pt->cpu_pct) < 0.005 ? 0.0 : pt->cpu_pct;
    printf(" %8.2f %11.1f |", pt->ok ? pcpu : NAN, pt->ok ? pt->wakeups_s : NAN);
}

static void fxb_idle_cells_head(void)
{
    printf(" | %8s %11s | %8s %11s |", "fx CPU%", "fx wakeup/s", "pt CPU%", "pt wakeup/s");
}

/* --- idle waiters per primitive --------------------------------------------- */

/* One object of each primitive, in private or MAP_SHARED memory; a run uses
 * one kind, futexsync's or its peer. */
struct fxb_idle_obj {
    fx_mutex fm;
    fx_cond fc;
    fx_sem fs;
    fx_rwlock frw;
    fx_barrier fb;
    fx_counter fn;
    pthread_mutex_t pm;
    pthread_cond_t pc;
    sem_t ps;
    pthread_rwlock_t prw;
    pthread_barrier_t pb;
    int32_t go; /* the cond's predicate, under fm or pm */
} __attribute__((aligned(64)));

/* A run: nobj objects with `per` waiters each, spread over nproc processes
 * (1: the measuring process's own threads; more: forked children). */
struct fxb_idle_set {
    int kind, fx, parties, nobj, per, nproc;
    int32_t arrived; /* waiters about to block */
    int32_t passed;  /* waiters through */
    int32_t errors;  /* calls that returned an error */
    sem_t start, spawned;
    struct fxb_idle_kid kid[FXB_IDLE_MAXPROCS];
    struct fxb_idle_obj obj[];
};

/* The waiters of one process, in its own memory: the set's waiters are
 * numbered 0 .. nobj * per - 1; process k has those whose number is k mod
 * nproc, and waiter w blocks on object w / per, so the waiters of one object
 * are spread over the processes (over min(per, nproc) of them). */
struct fxb_idle_part {
    struct fxb_idle_set *s;
    int k;
    int32_t next; /* the process's waiters taken */
};

static void fxb_idle_err(struct fxb_idle_set *s, int r)
{
    /* Relaxed: a count read after the joins. */
    if (r != 0)
        __atomic_fetch_add(&s->errors, 1, __ATOMIC_RELAXED);
}

static void *fxb_idle_blocker(void *arg)
{
    struct fxb_idle_part *p = arg;
    struct fxb_idle_set *s = p->s;
    /* Relaxed: a ticket, and counts the coordinator polls; the objects
     * order the rest. */
    int j = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
    struct fxb_idle_obj *o = &s->obj[(p->k + s->nproc * j) / s->per];
    __atomic_fetch_add(&s->arrived, 1, __ATOMIC_RELAXED);
    if (s->fx) {
        switch (s->kind) {
        case K_MUTEX:
            fxb_idle_err(s, fx_mutex_lock(&o->fm));
            fxb_idle_err(s, fx_mutex_unlock(&o->fm));
            break;
        case K_COND:
            fxb_idle_err(s, fx_mutex_lock(&o->fm));
            while (o->go == 0)
                fxb_idle_err(s, fx_cond_wait(&o->fc, &o->fm));
            fxb_idle_err(s, fx_mutex_unlock(&o->fm));
            break;
        case K_SEM:
            fxb_idle_err(s, fx_sem_wait(&o->fs));
            break;
        case K_RWLOCK:
            fxb_idle_err(s, fx_rwlock_rdlock(&o->frw));
            fxb_idle_err(s, fx_rwlock_rdunlock(&o->frw));
            break;
        case K_BARRIER: {
            int r = fx_barrier_wait(&o->fb, s->parties);
            fxb_idle_err(s, r == FX_BARRIER_SERIAL_THREAD ? 0 : r);
            break;
        }
        default:
            fxb_idle_err(s, fx_counter_wait(&o->fn, 1, NULL));
            break;
        }
    } else {
        switch (s->kind) {
        case K_MUTEX:
            fxb_idle_err(s, pthread_mutex_lock(&o->pm));
            fxb_idle_err(s, pthread_mutex_unlock(&o->pm));
            break;
        case K_SEM:
            while (sem_wait(&o->ps) != 0)
                if (errno != EINTR) {
                    fxb_idle_err(s, errno);
                    break;
                }
            break;
        case K_RWLOCK:
            fxb_idle_err(s, pthread_rwlock_rdlock(&o->prw));
            fxb_idle_err(s, pthread_rwlock_unlock(&o->prw));
            break;
        case K_BARRIER: {
            int r = pthread_barrier_wait(&o->pb);
            fxb_idle_err(s, r == PTHREAD_BARRIER_SERIAL_THREAD ? 0 : r);
            break;
        }
        default: /* K_COND, K_COUNTER */
            fxb_idle_err(s, pthread_mutex_lock(&o->pm));
            while (o->go == 0)
                fxb_idle_err(s, pthread_cond_wait(&o->pc, &o->pm));
            fxb_idle_err(s, pthread_mutex_unlock(&o->pm));
            break;
        }
    }
    __atomic_fetch_add(&s->passed, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* The pthread objects, process-shared when the memory is. 0 or an errno. */
static int fxb_idle_init_pthread(struct fxb_idle_obj *o, bool shared, int parties)
{
    int ps = shared ? PTHREAD_PROCESS_SHARED : PTHREAD_PROCESS_PRIVATE;
    pthread_mutexattr_t ma;
    pthread_condattr_t ca;
    pthread_rwlockattr_t ra;
    pthread_barrierattr_t ba;
    int r = pthread_mutexattr_init(&ma);
    r = r ? r : pthread_mutexattr_setpshared(&ma, ps);
    r = r ? r : pthread_mutex_init(&o->pm, &ma);
    r = r ? r : pthread_condattr_init(&ca);
    r = r ? r : pthread_condattr_setpshared(&ca, ps);
    r = r ? r : pthread_cond_init(&o->pc, &ca);
    r = r ? r : pthread_rwlockattr_init(&ra);
    r = r ? r : pthread_rwlockattr_setpshared(&ra, ps);
    r = r ? r : pthread_rwlock_init(&o->prw, &ra);
    r = r ? r : pthread_barrierattr_init(&ba);
    r = r ? r : pthread_barrierattr_setpshared(&ba, ps);
    r = r ? r : pthread_barrier_init(&o->pb, &ba, (unsigned)parties);
    if (r == 0 && sem_init(&o->ps, shared, 0) != 0)
        r = errno;
    return r;
}

/* Holds the object so that the waiters block: 0 or an errno. */
static int fxb_idle_hold(const struct fxb_idle_set *s, struct fxb_idle_obj *o)
{
    switch (s->kind) {
    case K_MUTEX:
        return s->fx ? fx_mutex_lock(&o->fm) : pthread_mutex_lock(&o->pm);
    case K_RWLOCK:
        return s->fx ? fx_rwlock_wrlock(&o->frw) : pthread_rwlock_wrlock(&o->prw);
    default:
        return 0; /* the others block as they are */
    }
}

/* Lets every waiter of the object through: 0 or an errno. */
static int fxb_idle_release(const struct fxb_idle_set *s, struct fxb_idle_obj *o)
{
    int r = 0;
    switch (s->kind) {
    case K_MUTEX:
        return s->fx ? fx_mutex_unlock(&o->fm) : pthread_mutex_unlock(&o->pm);
    case K_RWLOCK:
        return s->fx ? fx_rwlock_wrunlock(&o->frw) : pthread_rwlock_unlock(&o->prw);
    case K_SEM:
        for (int i = 0; i < s->per && r == 0; i++)
            r = s->fx ? fx_sem_post(&o->fs) : (sem_post(&o->ps) == 0 ? 0 : errno);
        return r;
    case K_BARRIER: /* the last party */
        r = s->fx ? fx_barrier_wait(&o->fb, s->parties) : pthread_barrier_wait(&o->pb);
        return r == FX_BARRIER_SERIAL_THREAD || r == PTHREAD_BARRIER_SERIAL_THREAD ? 0 : r;
    default: /* K_COND; K_COUNTER's peer is a cond */
        if (s->fx && s->kind == K_COUNTER)
            return fx_counter_store(&o->fn, 1);
        if (s->fx) {
            r = fx_mutex_lock(&o->fm);
            o->go = 1;
            r = r ? r : fx_cond_broadcast(&o->fc);
            return r ? r : fx_mutex_unlock(&o->fm);
        }
        r = pthread_mutex_lock(&o->pm);
        o->go = 1;
        r = r ? r : pthread_cond_broadcast(&o->pc);
        return r ? r : pthread_mutex_unlock(&o->pm);
    }
}

/* A child of fxb_idle_run: its share of the waiters. */
static void fxb_idle_body(void *arg, int k)
{
    struct fxb_idle_set *s = arg;
    int total = s->nobj * s->per;
    struct fxb_idle_part part = { .s = s, .k = k };
    fxb_idle_child(&s->start, &s->spawned, &s->kid[k],
                   total / s->nproc + (k < total % s->nproc ? 1 : 0), fxb_idle_blocker, &part);
}

/* One run: nobj objects of one kind, futexsync's (fx) or its peer's, with
 * `per` waiters each, in private (nproc 1 only) or MAP_SHARED memory; the
 * waiters are threads of this process (nproc 1) or of nproc forked children,
 * which then do all the waiting: this process only holds, measures the
 * children's windows and releases. The objects are set up held, every waiter
 * blocks, and after the settle time each waiting process measures its own
 * window; res adds them up. Then every object is released, and every waiter
 * must get through. */
static void fxb_idle_run(int kind, bool fx, bool shared, int nobj, int per, int nproc,
                         int64_t settle_ns, int64_t window_ns, struct fxb_idle_res *res)
{
    *res = (struct fxb_idle_res){ .ok = false };
    const char *name = fx ? fxb_idle_kind[kind] : fxb_idle_peer[kind];
    int total = nobj * per, kids = nproc > 1 ? nproc : 0;
    size_t size = sizeof(struct fxb_idle_set) + sizeof(struct fxb_idle_obj) * (size_t)nobj;
    /* Anonymous memory comes zeroed: every fx object is initialised. */
    struct fxb_idle_set *s = mmap(NULL, size, PROT_READ | PROT_WRITE,
                                  (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED) {
        fprintf(stderr, "futexsync-bench: idle: mmap: %s\n", strerror(errno));
        return;
    }
    s->kind = kind;
    s->fx = fx;
    s->parties = per + 1; /* the releaser is the last party of each */
    s->nobj = nobj;
    s->per = per;
    s->nproc = nproc;
    int e = 0;
    for (int i = 0; i < nobj && e == 0; i++)
        e = fxb_idle_init_pthread(&s->obj[i], shared, per + 1);
    bool sems = sem_init(&s->start, 1, 0) == 0 && sem_init(&s->spawned, 1, 0) == 0 &&
                fxb_idle_kids_init(s->kid, kids);
    pthread_t *t = kids ? NULL : calloc((size_t)total, sizeof *t);
    if (e != 0 || !sems || (kids == 0 && t == NULL)) {
        fprintf(stderr, "futexsync-bench: idle: %s setup: %s\n", name,
                strerror(e ? e : !sems ? errno : ENOMEM));
        free(t);
        munmap(s, size);
        return;
    }
    /* The children first, from a process of one thread; they start their
     * waiters once every object is held. */
    pid_t pids[FXB_IDLE_MAXPROCS];
    int forked = fxb_idle_fork(pids, kids, fxb_idle_body, s);
    int held = 0;
    while (held < nobj && e == 0)
        if ((e = fxb_idle_hold(s, &s->obj[held])) == 0)
            held++;
    if (e != 0) /* that object's waiters pass: the run fails */
        fprintf(stderr, "futexsync-bench: idle: %s hold: %s\n", name, strerror(e));
    struct fxb_idle_part part = { .s = s, .k = 0 };
    int made = 0, se = 0;
    if (kids == 0) {
        made = fxb_idle_spawn(t, total, fxb_idle_blocker, &part, &se);
    } else {
        made = fxb_idle_kids_spawn(&s->start, &s->spawned, s->kid, forked);
    }
    /* A thread limit that bites leaves fewer waiters: the run fails, and
     * those there are are measured all the same. */
    struct fxb_idle_window w;
    fxb_idle_measure(&s->arrived, made, settle_ns, s->kid, forked, window_ns, &w);
    if (made < total && kind == K_BARRIER) {
        /* The parties that were made wait for the missing ones for ever:
         * the children are killed; this process's own are left be, with
         * their objects. */
        fprintf(stderr, "futexsync-bench: FAILED (idle): %s, %d x %d waiters in %d "
                        "processes: only %d made\n",
                name, nobj, per, nproc, made);
        if (kids != 0) {
            fxb_idle_reap(pids, forked, true);
            munmap(s, size);
        }
        free(t);
        return;
    }
    int r = 0;
    for (int i = 0; i < held; i++) {
        int x = fxb_idle_release(s, &s->obj[i]);
        r = r ? r : x;
    }
    if (r != 0)
        fprintf(stderr, "futexsync-bench: idle: %s release: %s\n", name, strerror(r));
    for (int i = 0; i < made && kids == 0; i++)
        fxb_join_or_die(t[i], name, total, window_ns);
    int status = fxb_idle_reap(pids, forked, false);
    int passed = __atomic_load_n(&s->passed, __ATOMIC_RELAXED);
    int errors = __atomic_load_n(&s->errors, __ATOMIC_RELAXED);
    res->ok = e == 0 && r == 0 && made == total && passed == total && errors == 0 &&
              status == 0 && forked == kids;
    if (!res->ok)
        fprintf(stderr, "futexsync-bench: FAILED (idle): %s, %s memory, %d x %d waiters in %d "
                        "processes: %d made, %d through, %d calls failed, child status %d%s\n",
                name, shared ? "shared" : "private", nobj, per, nproc, made, passed, errors,
                status, status < 0 ? " (did not finish: a lost wake-up or a deadlock)" : "");
    if (kids == 0)
        fxb_idle_window_add(&w, res);
    for (int k = 0; k < forked; k++)
        fxb_idle_window_add(&s->kid[k].w, res);
    for (int i = 0; i < nobj; i++) {
        struct fxb_idle_obj *o = &s->obj[i];
        pthread_mutex_destroy(&o->pm);
        pthread_cond_destroy(&o->pc);
        pthread_rwlock_destroy(&o->prw);
        if (passed == total)
            pthread_barrier_destroy(&o->pb);
        sem_destroy(&o->ps);
    }
    free(t);
    munmap(s, size);
}

/* Whether the comma-separated list names `name` or "all" (NULL: every name). */
static bool fxb_idle_selected(const char *list, const char *name)
{
    if (list == NULL)
        return true;
    for (const char *p = list; p != NULL; p = strchr(p, ',')) {
        if (*p == ',')
            p++;
        for (const char *want = name; want != NULL; want = want == name ? "all" : NULL) {
            size_t n = strlen(want);
            if (strncmp(p, want, n) == 0 && (p[n] == ',' || p[n] == '\0'))
                return true;
        }
    }
    return false;
}

/* The per-primitive table: rows of private memory (1 object x N, 1
 * process), then of MAP_SHARED memory (each shape in each process count),
 * each selected primitive beside its peer; the two alternate over
 * interleaved rounds, and the rows show medians. */
static bool fxb_idle_prim_table(const struct fxb_idle_opts *o)
{
    int R = o->rounds;
    int64_t settle_ns = o->settle_ms * 1000000, window_ns = o->window_ms * 1000000;
    double *v = calloc((size_t)R * 4, sizeof *v); /* [round][fx, pt][cpu, w/s] */
    if (v == NULL) {
        fprintf(stderr, "futexsync-bench: idle: %s\n", strerror(ENOMEM));
        return false;
    }
    printf("\n== idle, per primitive: waiters blocked on objects nobody releases ==\n"
           "objects x per obj waiters (the objects set up held; a barrier has per obj + 1 "
           "parties, the\nreleaser the last). private: MAP_PRIVATE memory, the waiters are "
           "threads of the measuring\nprocess. shared: MAP_SHARED memory, pthread objects "
           "PROCESS_SHARED; procs 1: the waiters\nare threads of the measuring process; "
           "procs P > 1: P forked children do all the waiting\n(waiter w in child w mod P, "
           "on object w / per obj) and the measuring process, which only\nholds and "
           "releases, is not counted. CPU %% of one core and wake-ups/s (voluntary context"
           "\nswitches) of every waiting process, added up, each one's measuring thread "
           "excluded, over\n%lld ms, %lld ms after the last waiter arrived; medians of %d "
           "interleaved round%s\n\n",
           (long long)o->window_ms, (long long)o->settle_ms, R, R == 1 ? "" : "s");
    printf("%-11s %-7s %7s %7s %5s", "primitive", "memory", "objects", "per obj", "procs");
    fxb_idle_cells_head();
    printf(" %-15s | most wakeup/s in a round: fx, pt\n", "pthread peer");
    bool ok = true;
    int rows = o->ncounts + o->nshapes * o->nprocs;
    for (int row = 0; row < rows; row++)
        for (int k = 0; k < K_COUNT; k++) {
            if (!fxb_idle_selected(o->prims, fxb_idle_kind[k]))
                continue;
            bool shared = row >= o->ncounts;
            int x = row - o->ncounts;
            int nobj = shared ? o->shape_objects[x / o->nprocs] : 1;
            int per = shared ? o->shape_waiters[x / o->nprocs] : o->counts[row];
            int nproc = shared ? o->procs[x % o->nprocs] : 1;
            struct fxb_idle_res res[2] = { { .ok = true }, { .ok = true } };
            for (int round = 0; round < R; round++)
                for (int j = 0; j < 2; j++) {
                    int pt = (j + round) % 2; /* fx first, then the peer first, ... */
                    struct fxb_idle_res r;
                    fxb_note_progress("idle, per primitive",
                                      pt ? fxb_idle_peer[k] : fxb_idle_kind[k], nobj * per,
                                      round + 1, R);
                    fxb_idle_run(k, !pt, shared, nobj, per, nproc, settle_ns, window_ns, &r);
                    res[pt].ok = res[pt].ok && r.ok;
                    v[(round * 2 + pt) * 2] = r.cpu_pct;
                    v[(round * 2 + pt) * 2 + 1] = r.wakeups_s;
                }
            fxb_end_progress();
            double med[4], lo, hi[2];
            fxb_medians(v, 0, R, 4, med);
            for (int pt = 0; pt < 2; pt++) {
                res[pt].cpu_pct = med[pt * 2];
                res[pt].wakeups_s = med[pt * 2 + 1];
                fxb_spread(&v[pt * 2 + 1], R, 4, &lo, &hi[pt]);
            }
            bool row_ok = res[0].ok && res[1].ok;
            ok = ok && row_ok;
            printf("%-11s %-7s %7d %7d %5d", fxb_idle_kind[k], shared ? "shared" : "private",
                   nobj, per, nproc);
            fxb_idle_cells(&res[0], &res[1]);
            printf(" %-15s | %.1f, %.1f%s\n", fxb_idle_peer[k], hi[0], hi[1],
                   row_ok ? "" : "  !");
        }
    free(v);
    return ok;
}

/* --- robust mutexes held by a live owner ------------------------------------ */

/* The robust-mutex rows (issue 30): fx_rmutex and a robust process-shared
 * pthread_mutex_t (the pthread-robust adapter, made process-shared), in
 * MAP_SHARED memory, all held by one owner thread of the measuring process
 * for the whole window; the waiters are threads of that process, or of
 * FXB_IDLE_PROCS forked children, each blocking its share. Each waiting
 * process measures its own window (fxb_idle_window) and the rows add them
 * up. Then the owner releases, and every waiter must get through. */
#define FXB_IDLE_PROCS 4

struct fxb_idle_rm {
    const struct fxb_lock *lk;
    int probed;       /* fx_rmutex only: the owner refuses itself get_robust_list */
    int owner_probed; /* the owner's word says FX_RMUTEX_PROBED */
    int nobj, nwait, kids;
    size_t stride;
    int32_t arrived, passed, errors;
    sem_t start, spawned, held, release;
    struct fxb_idle_kid kid[FXB_IDLE_PROCS];
    unsigned char obj[] __attribute__((aligned(64)));
};

static void *fxb_idle_rm_obj(struct fxb_idle_rm *s, int i)
{
    return s->obj + (size_t)i * s->stride;
}

/* In the calling thread only (no TSYNC): get_robust_list answers ENOSYS, as
 * under qemu-user, so the thread's fx_rmutex words say PROBED. Installed
 * before the thread's first library call. 0 or an errno value. */
static int fxb_refuse_robust_list(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_get_robust_list, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { (unsigned short)(sizeof f / sizeof f[0]), f };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return errno;
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0 ? 0 : errno;
}

/* The owner: takes every object, holds them until released, unlocks. */
static void *fxb_idle_rm_owner(void *arg)
{
    struct fxb_idle_rm *s = arg;
    int bad = 0;
    /* Where the filter is refused (qemu-user has no seccomp) the owner may
     * be PROBED all the same: its word says so, checked below. */
    if (s->probed)
        (void)fxb_refuse_robust_list();
    for (int i = 0; i < s->nobj; i++)
        bad += s->lk->lock(fxb_idle_rm_obj(s, i)) != 0;
    if (s->probed)
        s->owner_probed = (*(int32_t *)fxb_idle_rm_obj(s, 0) & FX_RMUTEX_PROBED) != 0;
    sem_post(&s->held);
    fxb_idle_sem_wait(&s->release);
    for (int i = 0; i < s->nobj; i++)
        bad += s->lk->unlock(fxb_idle_rm_obj(s, i)) != 0;
    /* Relaxed: read after the joins. */
    __atomic_fetch_add(&s->errors, bad, __ATOMIC_RELAXED);
    return NULL;
}

/* A waiter: the i-th to arrive blocks on object i mod nobj. */
static void *fxb_idle_rm_waiter(void *arg)
{
    struct fxb_idle_rm *s = arg;
    /* Relaxed: a ticket and a count the coordinator polls; the mutex
     * orders the rest. */
    int i = __atomic_fetch_add(&s->arrived, 1, __ATOMIC_RELAXED);
    void *m = fxb_idle_rm_obj(s, i % s->nobj);
    int r = s->lk->lock(m);
    r = r ? r : s->lk->unlock(m);
    __atomic_fetch_add(r ? &s->errors : &s->passed, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* A child of fxb_idle_rm_run: its share of the waiters. */
static void fxb_idle_rm_body(void *arg, int k)
{
    struct fxb_idle_rm *s = arg;
    fxb_idle_child(&s->start, &s->spawned, &s->kid[k],
                   s->nwait / s->kids + (k < s->nwait % s->kids ? 1 : 0), fxb_idle_rm_waiter, s);
}

/* One run: nwait waiters on nobj objects in nproc processes (1: the
 * measuring process itself). *blocked: how many waiters were made. */
static void fxb_idle_rm_run(const struct fxb_lock *lk, bool probed, int nobj, int nwait,
                            int nproc, int64_t settle_ns, int64_t window_ns,
                            struct fxb_idle_res *res, int *blocked)
{
    *res = (struct fxb_idle_res){ .ok = false };
    *blocked = 0;
    size_t stride = (lk->size + 63) & ~(size_t)63;
    size_t size = sizeof(struct fxb_idle_rm) + stride * (size_t)nobj;
    struct fxb_idle_rm *s =
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED) {
        fprintf(stderr, "futexsync-bench: idle: mmap: %s\n", strerror(errno));
        return;
    }
    s->lk = lk;
    s->probed = probed;
    s->nobj = nobj;
    s->stride = stride;
    int e = 0;
    for (int i = 0; i < nobj && e == 0; i++)
        e = lk->init(fxb_idle_rm_obj(s, i), true);
    int kids = nproc > 1 ? nproc : 0;
    s->nwait = nwait;
    s->kids = kids;
    bool sems = sem_init(&s->start, 1, 0) == 0 && sem_init(&s->spawned, 1, 0) == 0 &&
                sem_init(&s->held, 1, 0) == 0 && sem_init(&s->release, 1, 0) == 0 &&
                fxb_idle_kids_init(s->kid, kids);
    pthread_t owner, *t = calloc((size_t)nwait, sizeof *t);
    if (e != 0 || !sems || t == NULL) {
        fprintf(stderr, "futexsync-bench: idle: %s setup: %s\n", lk->name,
                strerror(e ? e : !sems ? errno : ENOMEM));
        free(t);
        munmap(s, size);
        return;
    }
    /* The children first, from a process of one thread; they wait for the
     * owner to hold every object. */
    pid_t pids[FXB_IDLE_PROCS];
    int forked = fxb_idle_fork(pids, kids, fxb_idle_rm_body, s);
    e = pthread_create(&owner, NULL, fxb_idle_rm_owner, s);
    bool owned = e == 0;
    if (owned)
        fxb_idle_sem_wait(&s->held);
    else /* nobody holds the objects: the waiters pass; the run fails */
        fprintf(stderr, "futexsync-bench: idle: the owner thread: %s\n", strerror(e));
    int made = 0;
    if (kids == 0) {
        made = fxb_idle_spawn(t, nwait, fxb_idle_rm_waiter, s, &e);
    } else {
        made = fxb_idle_kids_spawn(&s->start, &s->spawned, s->kid, forked);
    }
    /* A thread limit that bites leaves fewer waiters: they are measured
     * all the same, and the row says how many there were. */
    struct fxb_idle_window w;
    fxb_idle_measure(&s->arrived, made, settle_ns, s->kid, forked, window_ns, &w);
    if (owned) {
        sem_post(&s->release);
        pthread_join(owner, NULL);
    }
    for (int i = 0; i < (kids ? 0 : made); i++)
        fxb_join_or_die(t[i], lk->name, nwait, window_ns);
    int status = fxb_idle_reap(pids, forked, false);
    int passed = __atomic_load_n(&s->passed, __ATOMIC_RELAXED);
    int errors = __atomic_load_n(&s->errors, __ATOMIC_RELAXED);
    res->ok = owned && made > 0 && passed == made && errors == 0 && status == 0 &&
              forked == kids && (!probed || s->owner_probed);
    if (!res->ok)
        fprintf(stderr, "futexsync-bench: FAILED (idle): %s, %d objects, %d waiters in %d "
                        "processes: %d made, %d through, %d calls failed, child status %d%s%s\n",
                lk->name, nobj, nwait, nproc, made, passed, errors, status,
                status < 0 ? " (did not finish: a lost wake-up or a deadlock)" : "",
                probed && !s->owner_probed ? "; the owner's word is not PROBED" : "");
    fxb_idle_window_add(&w, res);
    for (int k = 0; k < forked; k++)
        fxb_idle_window_add(&s->kid[k].w, res);
    *blocked = made;
    for (int i = 0; i < nobj; i++)
        lk->destroy(fxb_idle_rm_obj(s, i));
    free(t);
    munmap(s, size);
}

/* 0 when lk can make a process-shared object here, else init's error: glibc
 * refuses robust process-shared mutexes (ENOTSUP) where the kernel (or
 * qemu-user) refuses set_robust_list. */
static int fxb_idle_rm_available(const struct fxb_lock *lk)
{
    void *o = mmap(NULL, lk->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (o == MAP_FAILED)
        return errno;
    int e = lk->init(o, true);
    if (e == 0)
        lk->destroy(o);
    munmap(o, lk->size);
    return e;
}

/* The robust-mutex rows: for each N, 1 object x N waiters and N objects x 1
 * waiter, in 1 and in FXB_IDLE_PROCS processes; fx_rmutex and its peer
 * alternate over interleaved rounds, and the rows show medians. */
static bool fxb_idle_rm_table(const struct fxb_idle_opts *o)
{
    /* The variants: fx_rmutex (its owner has a robust list the kernel
     * walks), its peer, and fx_rmutex with a PROBED owner (one the kernel
     * does not report: its waiters look, one prober per process). */
    enum { FX, PT, PROBED, VARIANTS };
    const struct fxb_lock *lk[VARIANTS] = { fxb_lock_find("fx_rmutex"),
                                            fxb_lock_find("pthread-robust"),
                                            fxb_lock_find("fx_rmutex") };
    int R = o->rounds;
    int64_t settle_ns = o->settle_ms * 1000000, window_ns = o->window_ms * 1000000;
    double *v = calloc((size_t)R * VARIANTS * 2, sizeof *v); /* [round][variant][cpu, w/s] */
    if (lk[FX] == NULL || lk[PT] == NULL || v == NULL) {
        free(v);
        fprintf(stderr, "futexsync-bench: idle: no fx_rmutex or pthread-robust adapter\n");
        return false;
    }
    printf("\n== idle, robust mutexes: waiters blocked on mutexes a live thread holds ==\n"
           "fx_rmutex against pthread_mutex_t ROBUST + PROCESS_SHARED (pt), in MAP_SHARED "
           "memory, held\nby an owner thread of the measuring process; waiters in it (procs "
           "1) or in %d forked\nchildren; CPU %% of one core and wake-ups/s of every waiting "
           "process, added up, each\nmeasuring thread excluded, over %lld ms, %lld ms after "
           "the last waiter arrived;\nmedians of %d interleaved round%s. probed: fx_rmutex "
           "held by an owner thread without a robust\nlist (it refuses itself "
           "get_robust_list): only the liveness probe can tell its death,\none prober per "
           "waiting process looks every %d ms\n\n",
           FXB_IDLE_PROCS, (long long)o->window_ms, (long long)o->settle_ms, R,
           R == 1 ? "" : "s", FXI_RMUTEX_LONG_RECHECK_MS);
    /* Without the peer, the fx rows still tell their cost. */
    int pt_err = fxb_idle_rm_available(lk[PT]);
    bool have_pt = pt_err != ENOTSUP;
    if (!have_pt)
        printf("pthread-robust: none here (pthread_mutex_init: %s; the kernel or qemu-user "
               "refuses\nset_robust_list): its cells show '-'\n\n",
               strerror(pt_err));
    printf("%7s %7s %5s", "objects", "waiters", "procs");
    fxb_idle_cells_head();
    printf(" %8s %11s | most wakeup/s in a round: fx, pt, probed\n", "probed %",
           "probed w/s");
    bool ok = true;
    for (int c = 0; c < o->n_rm_counts; c++)
        for (int shape = 0; shape < 4; shape++) {
            int n = o->rm_counts[c], nobj = shape % 2 ? n : 1;
            int nproc = shape < 2 ? 1 : FXB_IDLE_PROCS;
            struct fxb_idle_res res[VARIANTS];
            for (int x = 0; x < VARIANTS; x++)
                res[x] = (struct fxb_idle_res){ .ok = true };
            int fewest = n;
            for (int round = 0; round < R; round++)
                for (int j = 0; j < VARIANTS; j++) {
                    int x = (j + round) % VARIANTS, blocked; /* rotated each round */
                    if (x == PT && !have_pt)
                        continue;
                    struct fxb_idle_res r;
                    fxb_note_progress("idle, robust mutexes",
                                      x == PROBED ? "fx_rmutex (probed)" : lk[x]->name, n,
                                      round + 1, R);
                    fxb_idle_rm_run(lk[x], x == PROBED, nobj, n, nproc, settle_ns, window_ns,
                                    &r, &blocked);
                    res[x].ok = res[x].ok && r.ok;
                    v[(round * VARIANTS + x) * 2] = r.cpu_pct;
                    v[(round * VARIANTS + x) * 2 + 1] = r.wakeups_s;
                    fewest = blocked < fewest ? blocked : fewest;
                }
            fxb_end_progress();
            double med[VARIANTS * 2], lo, hi[VARIANTS];
            fxb_medians(v, 0, R, VARIANTS * 2, med);
            for (int x = 0; x < VARIANTS; x++) {
                res[x].cpu_pct = med[x * 2];
                res[x].wakeups_s = med[x * 2 + 1];
                fxb_spread(&v[x * 2 + 1], R, VARIANTS * 2, &lo, &hi[x]);
            }
            bool row_ok = res[FX].ok && res[PROBED].ok && (!have_pt || res[PT].ok);
            ok = ok && row_ok;
            printf("%7d %7d %5d", nobj, n, nproc);
            fxb_idle_cells(&res[FX], have_pt ? &res[PT] : NULL);
            double pcpu = fabs(res[PROBED].cpu_pct) < 0.005 ? 0.0 : res[PROBED].cpu_pct;
            printf(" %8.2f %11.1f |", res[PROBED].ok ? pcpu : NAN,
                   res[PROBED].ok ? res[PROBED].wakeups_s : NAN);
            if (have_pt)
                printf(" %.1f, %.1f, %.1f", hi[FX], hi[PT], hi[PROBED]);
            else
                printf(" %.1f, -, %.1f", hi[FX], hi[PROBED]);
            if (fewest < n)
                printf("; only %d waiters blocked in some round (thread limit)", fewest);
            printf("%s\n", row_ok ? "" : "  !");
        }
    free(v);
    return ok;
}

bool fxb_idle_toolbox(const struct fxb_idle_opts *o)
{
    bool ok = true, any = false;
    const char *prims = o->prims;
    bool rmutex = prims == NULL ? o->rmutex : fxb_idle_selected(prims, "fx_rmutex");
    for (int k = 0; k < K_COUNT; k++)
        any = any || fxb_idle_selected(prims, fxb_idle_kind[k]);
    if (!any && !rmutex) {
        fprintf(stderr, "futexsync-bench: --idle-prims '%s' names none of fx_mutex, fx_cond, "
                        "fx_sem, fx_rwlock, fx_barrier, fx_counter, fx_rmutex, all\n",
                prims);
        return false;
    }
    if (any)
        ok = fxb_idle_prim_table(o);
    if (rmutex)
        ok = fxb_idle_rm_table(o) && ok;
    return ok;
}
