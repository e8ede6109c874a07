/*
 * bench/toolbox.c - the rest of the toolbox against its pthread peers, in
 * the same run: fx_sem (sem_t), fx_cond (pthread_cond_t), fx_rwlock
 * (pthread_rwlock_t), fx_barrier (pthread_barrier_t), fx_once
 * (pthread_once_t).
 *
 * Workloads (selected in main.c):
 *   uncontended-toolbox  ns per operation in one thread while the process
 *             has a second, idle thread (glibc skips atomics in a
 *             single-threaded process): sem post+wait, rwlock rdlock+unlock
 *             and wrlock+unlock (fx also with its mode-specific unlocks),
 *             cond signal and broadcast with no waiter, once on a done flag,
 *             barrier wait with 1 party. Timed in the thread's CPU time
 *             (fxb_run_pairs of run.c).
 *   pingpong  two threads take turns: A makes it B's turn and waits for its
 *             turn back; one round trip is A -> B -> A. Through a mutex, a
 *             condition variable and a turn counter (fx_mutex + fx_cond,
 *             pthread_mutex_t + pthread_cond_t; signal with the mutex held,
 *             the textbook way), or through two semaphores (fx_sem, sem_t).
 *   rwlock    N threads loop: a read (read-lock, read a 4-word value,
 *             critical-section work, check the words agree, unlock) with
 *             probability --read-pct, else a write (write-lock, increment
 *             the 4 words with the critical-section work in between,
 *             unlock); then the outside work. Same --cs-ns / --outside-ns
 *             as the threads workload.
 *   barrier   N parties loop on one barrier: rounds per second.
 *
 * Method (as main.c's for the locks): a warm-up run per primitive at the
 * first worker count (discarded), then R rounds in which every primitive
 * runs once, the order reversed every other round; every number is the
 * median of its R values and every ratio divides two medians of this
 * invocation. The ratio "vs pthread" of each row is to its pthread peer
 * (`base` below); "vs peer" to a second one (`peer`: the writer-preferring
 * pthread_rwlock_t).
 *
 * Every run checks itself, and a failed check marks the row with '!' and
 * makes the exit status 1: no call returned an error; pingpong: the turns
 * alternated exactly (each side saw the count it expected) and both sides
 * counted the same round trips; rwlock: no reader saw the 4 words disagree
 * (a torn value) and the words equal the writes counted by the threads;
 * barrier: after every round each party saw every other party arrived in
 * it (and none two rounds ahead), and exactly one serial thread per round.
 * A run whose threads do not finish within a generous deadline is a lost
 * wake-up: the bench reports it and exits.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Set by a destroy hook that found a broken invariant of an uncontended run
 * (the once initialiser ran other than once). */
static int tb_broken;

static int tb_ok(void *o)
{
    (void)o;
    return 0;
}

static void tb_nothing(void *o)
{
    (void)o;
}

static int tb_zero_init(void *o, size_t size)
{
    memset(o, 0, size);
    return 0;
}

/* ==== uncontended operations ============================================= */

/* One uncontended operation, or pair of operations that undo each other. */
struct tb_op {
    const char *name;  /* "primitive:operation" */
    const char *what;
    const char *base;  /* the pthread peer of "vs pthread" (NULL: pthread's own) */
    size_t size;
    int (*init)(void *o, bool pshared);
    void (*destroy)(void *o);
    uint64_t (*ops)(void *o, uint64_t n); /* n iterations; returns the errors */
};

/* n iterations of first + second, instantiated per operation so that the
 * calls are direct (second is tb_ok, which vanishes, for single operations). */
static inline __attribute__((always_inline)) uint64_t
tb_ops_body(void *o, uint64_t n, int (*first)(void *), int (*second)(void *))
{
    uint64_t errors = 0;
    for (uint64_t i = 0; i < n; i++) {
        errors += first(o) != 0;
        errors += second(o) != 0;
    }
    return errors;
}

#define TB_OPS(id, first, second)                                              \
    static uint64_t id##_ops(void *o, uint64_t n)                              \
    {                                                                          \
        return tb_ops_body(o, n, first, second);                               \
    }

/* --- semaphores --- */

static int fxs_init(void *o, bool pshared)
{
    (void)pshared;
    return tb_zero_init(o, sizeof(fx_sem));
}
static int fxs_post(void *o)
{
    return fx_sem_post(o);
}
static int fxs_wait(void *o)
{
    return fx_sem_wait(o);
}
TB_OPS(fxs, fxs_post, fxs_wait)

static int pss_init(void *o, bool pshared)
{
    return sem_init(o, pshared, 0) == 0 ? 0 : errno;
}
static void pss_destroy(void *o)
{
    sem_destroy(o);
}
static int pss_post(void *o)
{
    return sem_post(o) == 0 ? 0 : errno;
}
static int pss_wait(void *o)
{
    int r;
    while ((r = sem_wait(o)) != 0 && errno == EINTR) {
    }
    return r == 0 ? 0 : errno;
}
TB_OPS(pss, pss_post, pss_wait)

/* --- reader-writer locks --- */

static int fxrw_init(void *o, bool pshared)
{
    (void)pshared;
    return tb_zero_init(o, sizeof(fx_rwlock));
}
static int fxrw_rdlock(void *o)
{
    return fx_rwlock_rdlock(o);
}
static int fxrw_wrlock(void *o)
{
    return fx_rwlock_wrlock(o);
}
static int fxrw_unlock(void *o)
{
    return fx_rwlock_unlock(o);
}
static int fxrw_rdunlock(void *o)
{
    return fx_rwlock_rdunlock(o);
}
static int fxrw_wrunlock(void *o)
{
    return fx_rwlock_wrunlock(o);
}
TB_OPS(fxrw_rd, fxrw_rdlock, fxrw_unlock)
TB_OPS(fxrw_rdrd, fxrw_rdlock, fxrw_rdunlock)
TB_OPS(fxrw_wr, fxrw_wrlock, fxrw_unlock)
TB_OPS(fxrw_wrwr, fxrw_wrlock, fxrw_wrunlock)

static int prw_init_kind(void *o, int kind, bool pshared)
{
    pthread_rwlockattr_t a;
    int r = pthread_rwlockattr_init(&a);
    if (r == 0)
        r = pthread_rwlockattr_setkind_np(&a, kind);
    if (r == 0 && pshared)
        r = pthread_rwlockattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    if (r == 0)
        r = pthread_rwlock_init(o, &a);
    pthread_rwlockattr_destroy(&a);
    return r;
}
static int prw_init(void *o, bool pshared)
{
    return prw_init_kind(o, PTHREAD_RWLOCK_DEFAULT_NP, pshared);
}
static int prw_wp_init(void *o, bool pshared)
{
    return prw_init_kind(o, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP, pshared);
}
static void prw_destroy(void *o)
{
    pthread_rwlock_destroy(o);
}
static int prw_rdlock(void *o)
{
    return pthread_rwlock_rdlock(o);
}
static int prw_wrlock(void *o)
{
    return pthread_rwlock_wrlock(o);
}
static int prw_unlock(void *o)
{
    return pthread_rwlock_unlock(o);
}
TB_OPS(prw_rd, prw_rdlock, prw_unlock)
TB_OPS(prw_wr, prw_wrlock, prw_unlock)

/* --- condition variables, nobody waiting --- */

static int fxc_init(void *o, bool pshared)
{
    (void)pshared;
    return tb_zero_init(o, sizeof(fx_cond));
}
static int fxc_signal(void *o)
{
    return fx_cond_signal(o);
}
static int fxc_broadcast(void *o)
{
    return fx_cond_broadcast(o);
}
TB_OPS(fxc_sig, fxc_signal, tb_ok)
TB_OPS(fxc_bc, fxc_broadcast, tb_ok)

static int pc_init(void *o, bool pshared)
{
    pthread_condattr_t a;
    int r = pthread_condattr_init(&a);
    if (r == 0 && pshared)
        r = pthread_condattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    if (r == 0)
        r = pthread_cond_init(o, &a);
    pthread_condattr_destroy(&a);
    return r;
}
static void pc_destroy(void *o)
{
    pthread_cond_destroy(o);
}
static int pc_signal(void *o)
{
    return pthread_cond_signal(o);
}
static int pc_broadcast(void *o)
{
    return pthread_cond_broadcast(o);
}
TB_OPS(pc_sig, pc_signal, tb_ok)
TB_OPS(pc_bc, pc_broadcast, tb_ok)

/* --- once, already done --- */

static int tb_once_runs;

static void fxo_fn(void *arg)
{
    (void)arg;
    tb_once_runs++;
}
static void po_fn(void)
{
    tb_once_runs++;
}
static int fxo_call(void *o)
{
    return fx_once_call(o, fxo_fn, NULL);
}
static int fxo_init(void *o, bool pshared)
{
    (void)pshared;
    tb_zero_init(o, sizeof(fx_once));
    tb_once_runs = 0;
    return fxo_call(o); /* done before the timing starts */
}
static int po_call(void *o)
{
    return pthread_once(o, po_fn);
}
static int po_init(void *o, bool pshared)
{
    (void)pshared;
    pthread_once_t init = PTHREAD_ONCE_INIT;
    memcpy(o, &init, sizeof init);
    tb_once_runs = 0;
    return po_call(o);
}
static void once_destroy(void *o)
{
    (void)o;
    if (tb_once_runs != 1)
        tb_broken++;
}
TB_OPS(fxo, fxo_call, tb_ok)
TB_OPS(po, po_call, tb_ok)

/* --- barrier with one party: every wait is the serial one --- */

static int fxb1_init(void *o, bool pshared)
{
    (void)pshared;
    return tb_zero_init(o, sizeof(fx_barrier));
}
static int fxb1_wait(void *o)
{
    return fx_barrier_wait(o, 1) == FX_BARRIER_SERIAL_THREAD ? 0 : 1;
}
static int pb1_init(void *o, bool pshared)
{
    pthread_barrierattr_t a;
    int r = pthread_barrierattr_init(&a);
    if (r == 0 && pshared)
        r = pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    if (r == 0)
        r = pthread_barrier_init(o, &a, 1);
    pthread_barrierattr_destroy(&a);
    return r;
}
static void pb_destroy(void *o)
{
    pthread_barrier_destroy(o);
}
static int pb1_wait(void *o)
{
    return pthread_barrier_wait(o) == PTHREAD_BARRIER_SERIAL_THREAD ? 0 : 1;
}
TB_OPS(fxb1, fxb1_wait, tb_ok)
TB_OPS(pb1, pb1_wait, tb_ok)

#define TB_OP(n, w, b, type, i, d, f)                                          \
    { .name = n, .what = w, .base = b, .size = sizeof(type), .init = i, .destroy = d, \
      .ops = f##_ops }

static const struct tb_op tb_ops[] = {
    TB_OP("fx_sem:post+wait", "fx_sem_post + fx_sem_wait (0 -> 1 -> 0)", "sem_t:post+wait",
          fx_sem, fxs_init, tb_nothing, fxs),
    TB_OP("sem_t:post+wait", "sem_post + sem_wait", NULL, sem_t, pss_init, pss_destroy, pss),
    TB_OP("fx_rwlock:rdlock+unlock", "fx_rwlock_rdlock + fx_rwlock_unlock",
          "pthread_rwlock_t:rdlock+unlock", fx_rwlock, fxrw_init, tb_nothing, fxrw_rd),
    TB_OP("fx_rwlock:rdlock+rdunlock", "fx_rwlock_rdlock + fx_rwlock_rdunlock",
          "pthread_rwlock_t:rdlock+unlock", fx_rwlock, fxrw_init, tb_nothing, fxrw_rdrd),
    TB_OP("pthread_rwlock_t:rdlock+unlock", "pthread_rwlock_rdlock + unlock (default kind)",
          NULL, pthread_rwlock_t, prw_init, prw_destroy, prw_rd),
    TB_OP("pthread_rwlock_t-wp:rdlock+unlock",
          "the same, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP",
          "pthread_rwlock_t:rdlock+unlock", pthread_rwlock_t, prw_wp_init, prw_destroy, prw_rd),
    TB_OP("fx_rwlock:wrlock+unlock", "fx_rwlock_wrlock + fx_rwlock_unlock",
          "pthread_rwlock_t:wrlock+unlock", fx_rwlock, fxrw_init, tb_nothing, fxrw_wr),
    TB_OP("fx_rwlock:wrlock+wrunlock", "fx_rwlock_wrlock + fx_rwlock_wrunlock",
          "pthread_rwlock_t:wrlock+unlock", fx_rwlock, fxrw_init, tb_nothing, fxrw_wrwr),
    TB_OP("pthread_rwlock_t:wrlock+unlock", "pthread_rwlock_wrlock + unlock (default kind)",
          NULL, pthread_rwlock_t, prw_init, prw_destroy, prw_wr),
    TB_OP("pthread_rwlock_t-wp:wrlock+unlock",
          "the same, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP",
          "pthread_rwlock_t:wrlock+unlock", pthread_rwlock_t, prw_wp_init, prw_destroy, prw_wr),
    TB_OP("fx_cond:signal", "fx_cond_signal, nobody waiting", "pthread_cond_t:signal", fx_cond,
          fxc_init, tb_nothing, fxc_sig),
    TB_OP("pthread_cond_t:signal", "pthread_cond_signal, nobody waiting", NULL, pthread_cond_t,
          pc_init, pc_destroy, pc_sig),
    TB_OP("fx_cond:broadcast", "fx_cond_broadcast, nobody waiting", "pthread_cond_t:broadcast",
          fx_cond, fxc_init, tb_nothing, fxc_bc),
    TB_OP("pthread_cond_t:broadcast", "pthread_cond_broadcast, nobody waiting", NULL,
          pthread_cond_t, pc_init, pc_destroy, pc_bc),
    TB_OP("fx_once:done", "fx_once_call on a flag whose initialiser has run",
          "pthread_once_t:done", fx_once, fxo_init, once_destroy, fxo),
    TB_OP("pthread_once_t:done", "pthread_once on a done flag", NULL, pthread_once_t, po_init,
          once_destroy, po),
    TB_OP("fx_barrier:1-party", "fx_barrier_wait(b, 1): every wait ends a round",
          "pthread_barrier_t:1-party", fx_barrier, fxb1_init, tb_nothing, fxb1),
    TB_OP("pthread_barrier_t:1-party", "pthread_barrier_wait, count 1", NULL,
          pthread_barrier_t, pb1_init, pb_destroy, pb1),
};
#define TB_NOPS (sizeof tb_ops / sizeof tb_ops[0])

/* ==== the threaded workloads ============================================== */

struct tb_out {
    uint64_t ops;    /* this thread's share of the run's operations */
    uint64_t aux;    /* pingpong B's round trips, barrier rounds seen */
    uint64_t serial; /* barrier: serial returns */
    uint64_t errors; /* calls that returned an error */
    uint64_t bad;    /* failed checks: a broken turn, a torn read, an early release */
};

struct tb_run;

struct tb_thr {
    pthread_t t;
    struct tb_run *run;
    int self;
    struct tb_out out;
    struct fxb_span span;
    int pin_err;
} __attribute__((aligned(64)));

struct tb_kind {
    const char *name;
    const char *what;
    const char *base; /* the pthread peer of "vs pthread" (NULL: pthread's own) */
    const char *peer; /* a second reference, or NULL */
    size_t size;
    int (*init)(void *o, int workers);
    void (*destroy)(void *o);
    void (*work)(struct tb_run *r, struct tb_thr *t);
};

/* The data of one workload family: its kinds and its run check. */
struct tb_family {
    const char *workload;
    const struct tb_kind *kinds;
    size_t nkinds;
    size_t data_size; /* the protected / shared data, besides the object */
    void (*check)(struct tb_run *r, struct tb_thr *th, struct fxb_res *res);
};

/* Shared by the threads of one run. */
struct tb_run {
    const struct tb_kind *k;
    void *obj;  /* the primitive(s) under test */
    void *data; /* what they protect, on cache lines of its own */
    const int *stop;
    int workers;
    uint64_t cs_iters, out_iters;
    uint64_t read_threshold; /* rwlock: a read when 32 random bits are below it */
    bool pin;                /* worker i runs on the i-th allowed CPU (mod count) */
    enum fxb_count_method count;
    pthread_barrier_t *start;
};

/* --- pingpong ------------------------------------------------------------- */

struct tb_pp {
    uint64_t x; /* the turn: odd = B's, even = A's; 2 per round trip */
    int done;   /* A has stopped (atomic: also set after a failed call) */
};

struct tb_fx_mc {
    fx_mutex m;
    fx_cond c;
};
struct tb_pt_mc {
    pthread_mutex_t m;
    pthread_cond_t c;
};

static inline __attribute__((always_inline)) void
tb_pp_cond_body(struct tb_run *r, struct tb_thr *t, void *m, void *c, int (*lock)(void *),
                int (*unlock)(void *), int (*wait)(void *, void *), int (*signal)(void *))
{
    struct tb_pp *d = r->data;
    uint64_t n = 0, errors = 0, bad = 0;
    if (lock(m) != 0) {
        t->out.errors = 1;
        /* Relaxed: the other side polls it in its predicate loop. */
        __atomic_store_n(&d->done, 1, __ATOMIC_RELAXED);
        signal(c);
        return;
    }
    if (t->self == 0) {
        /* do-while: at least one round trip even when this thread starts
         * after the stop (see fxb_loop_body). Relaxed: the stop flag needs
         * only to be seen eventually. */
        do {
            d->x++; /* B's turn */
            errors += signal(c) != 0;
            while (d->x % 2 == 1 && errors == 0)
                errors += wait(c, m) != 0;
            if (errors != 0)
                break;
            n++;
            bad += d->x != 2 * n;
        } while (!__atomic_load_n(r->stop, __ATOMIC_RELAXED));
        __atomic_store_n(&d->done, 1, __ATOMIC_RELAXED);
        errors += signal(c) != 0;
        t->out.ops = n;
    } else {
        for (;;) {
            while (d->x % 2 == 0 && !__atomic_load_n(&d->done, __ATOMIC_RELAXED) && errors == 0)
                errors += wait(c, m) != 0;
            if (errors != 0 || __atomic_load_n(&d->done, __ATOMIC_RELAXED))
                break;
            bad += d->x != 2 * n + 1;
            d->x++; /* A's turn */
            n++;
            errors += signal(c) != 0;
        }
        if (errors != 0) {
            __atomic_store_n(&d->done, 1, __ATOMIC_RELAXED);
            signal(c);
        }
        t->out.aux = n;
    }
    errors += unlock(m) != 0;
    t->out.errors = errors;
    t->out.bad = bad;
}

static int fxpp_lock(void *m)
{
    return fx_mutex_lock(m);
}
static int fxpp_unlock(void *m)
{
    return fx_mutex_unlock(m);
}
static int fxpp_wait(void *c, void *m)
{
    return fx_cond_wait(c, m);
}
static void fxpp_work(struct tb_run *r, struct tb_thr *t)
{
    struct tb_fx_mc *o = r->obj;
    tb_pp_cond_body(r, t, &o->m, &o->c, fxpp_lock, fxpp_unlock, fxpp_wait, fxc_signal);
}
static int fxpp_init(void *o, int workers)
{
    (void)workers;
    return tb_zero_init(o, sizeof(struct tb_fx_mc));
}

static int ptpp_lock(void *m)
{
    return pthread_mutex_lock(m);
}
static int ptpp_unlock(void *m)
{
    return pthread_mutex_unlock(m);
}
static int ptpp_wait(void *c, void *m)
{
    return pthread_cond_wait(c, m);
}
static void ptpp_work(struct tb_run *r, struct tb_thr *t)
{
    struct tb_pt_mc *o = r->obj;
    tb_pp_cond_body(r, t, &o->m, &o->c, ptpp_lock, ptpp_unlock, ptpp_wait, pc_signal);
}
static int ptpp_init(void *o, int workers)
{
    (void)workers;
    struct tb_pt_mc *p = o;
    int e = pthread_mutex_init(&p->m, NULL);
    if (e == 0 && (e = pthread_cond_init(&p->c, NULL)) != 0)
        pthread_mutex_destroy(&p->m);
    return e;
}
static void ptpp_destroy(void *o)
{
    struct tb_pt_mc *p = o;
    pthread_cond_destroy(&p->c);
    pthread_mutex_destroy(&p->m);
}

/* Two semaphores: A posts `to_b` and waits on `to_a`; B the reverse. */
struct tb_fx_sems {
    fx_sem to_b, to_a;
};
struct tb_pt_sems {
    sem_t to_b, to_a;
};

static inline __attribute__((always_inline)) void
tb_pp_sem_body(struct tb_run *r, struct tb_thr *t, void *to_b, void *to_a, int (*post)(void *),
               int (*wait)(void *))
{
    struct tb_pp *d = r->data;
    uint64_t n = 0, errors = 0, bad = 0;
    if (t->self == 0) {
        do { /* at least one round trip, as in tb_pp_cond_body */
            d->x++;
            errors += post(to_b) != 0;
            errors += wait(to_a) != 0;
            if (errors != 0)
                break;
            n++;
            bad += d->x != 2 * n;
        } while (!__atomic_load_n(r->stop, __ATOMIC_RELAXED));
        /* B reads it after its wait, which the post orders after this. */
        __atomic_store_n(&d->done, 1, __ATOMIC_RELAXED);
        errors += post(to_b) != 0;
        t->out.ops = n;
    } else {
        for (;;) {
            errors += wait(to_b) != 0;
            if (errors != 0 || __atomic_load_n(&d->done, __ATOMIC_RELAXED))
                break;
            bad += d->x != 2 * n + 1;
            d->x++;
            n++;
            errors += post(to_a) != 0;
        }
        if (errors != 0) {
            __atomic_store_n(&d->done, 1, __ATOMIC_RELAXED);
            post(to_a); /* A must not wait for a turn that never comes */
        }
        t->out.aux = n;
    }
    t->out.errors = errors;
    t->out.bad = bad;
}

static void fxspp_work(struct tb_run *r, struct tb_thr *t)
{
    struct tb_fx_sems *o = r->obj;
    tb_pp_sem_body(r, t, &o->to_b, &o->to_a, fxs_post, fxs_wait);
}
static int fxspp_init(void *o, int workers)
{
    (void)workers;
    return tb_zero_init(o, sizeof(struct tb_fx_sems));
}
static void pspp_work(struct tb_run *r, struct tb_thr *t)
{
    struct tb_pt_sems *o = r->obj;
    tb_pp_sem_body(r, t, &o->to_b, &o->to_a, pss_post, pss_wait);
}
static int pspp_init(void *o, int workers)
{
    (void)workers;
    struct tb_pt_sems *p = o;
    if (sem_init(&p->to_b, 0, 0) != 0)
        return errno;
    if (sem_init(&p->to_a, 0, 0) != 0) {
        int e = errno;
        sem_destroy(&p->to_b);
        return e;
    }
    return 0;
}
static void pspp_destroy(void *o)
{
    struct tb_pt_sems *p = o;
    sem_destroy(&p->to_a);
    sem_destroy(&p->to_b);
}

static void tb_pp_check(struct tb_run *r, struct tb_thr *th, struct fxb_res *res);

static const struct tb_kind tb_pp_kinds[] = {
    { .name = "fx_cond", .what = "fx_mutex + fx_cond, one condition variable",
      .base = "pthread_cond_t", .size = sizeof(struct tb_fx_mc), .init = fxpp_init,
      .destroy = tb_nothing, .work = fxpp_work },
    { .name = "pthread_cond_t", .what = "pthread_mutex_t (normal) + pthread_cond_t",
      .size = sizeof(struct tb_pt_mc), .init = ptpp_init, .destroy = ptpp_destroy,
      .work = ptpp_work },
    { .name = "fx_sem", .what = "two fx_sem, one per direction", .base = "sem_t",
      .size = sizeof(struct tb_fx_sems), .init = fxspp_init, .destroy = tb_nothing,
      .work = fxspp_work },
    { .name = "sem_t", .what = "two POSIX sem_t, one per direction",
      .size = sizeof(struct tb_pt_sems), .init = pspp_init, .destroy = pspp_destroy,
      .work = pspp_work },
};

static const struct tb_family tb_pingpong = {
    "pingpong", tb_pp_kinds, sizeof tb_pp_kinds / sizeof tb_pp_kinds[0], sizeof(struct tb_pp),
    tb_pp_check,
};

static void tb_pp_check(struct tb_run *r, struct tb_thr *th, struct fxb_res *res)
{
    struct tb_pp *d = r->data;
    if (th[0].out.ops != th[1].out.aux)
        fxb_fail(res, "%s, pingpong: A counted %llu round trips, B %llu", r->k->name,
                 (unsigned long long)th[0].out.ops, (unsigned long long)th[1].out.aux);
    if (d->x != 2 * th[0].out.ops)
        fxb_fail(res, "%s, pingpong: the turn counter is %llu after %llu round trips",
                 r->k->name, (unsigned long long)d->x, (unsigned long long)th[0].out.ops);
}

/* --- rwlock --------------------------------------------------------------- */

struct tb_rw {
    uint64_t w[4]; /* equal whenever no writer is inside */
};

static inline __attribute__((always_inline)) void
tb_rw_body(struct tb_run *r, struct tb_thr *t, int (*rdlock)(void *), int (*rdunlock)(void *),
           int (*wrlock)(void *), int (*wrunlock)(void *))
{
    void *l = r->obj;
    struct tb_rw *d = r->data;
    const uint64_t cs = r->cs_iters, out = r->out_iters, thr = r->read_threshold;
    uint64_t rng = 0x9e3779b97f4a7c15ull * (uint64_t)(t->self + 1);
    uint64_t reads = 0, writes = 0, errors = 0, torn = 0;
    do { /* at least one operation per thread, as in fxb_loop_body */
        rng ^= rng << 13; /* xorshift64 */
        rng ^= rng >> 7;
        rng ^= rng << 17;
        if ((rng >> 32) < thr) {
            if (rdlock(l) != 0) {
                errors++;
                continue;
            }
            /* Plain reads around the work: a writer inside at the same time
             * changes some words and not others. */
            uint64_t a = d->w[0];
            fxb_work(cs);
            torn += (a != d->w[1]) | (a != d->w[2]) | (a != d->w[3]);
            errors += rdunlock(l) != 0;
            reads++;
        } else {
            if (wrlock(l) != 0) {
                errors++;
                continue;
            }
            d->w[0]++;
            fxb_work(cs);
            d->w[1]++;
            d->w[2]++;
            d->w[3]++;
            errors += wrunlock(l) != 0;
            writes++;
        }
        fxb_work(out);
        /* Relaxed: the stop flag needs only to be seen eventually. */
    } while (!__atomic_load_n(r->stop, __ATOMIC_RELAXED));
    t->out.ops = reads + writes;
    t->out.aux = writes;
    t->out.errors = errors;
    t->out.bad = torn;
}

#define TB_RW(id, rd, rdun, wr, wrun)                                          \
    static void id##_work(struct tb_run *r, struct tb_thr *t)                  \
    {                                                                          \
        tb_rw_body(r, t, rd, rdun, wr, wrun);                                  \
    }
TB_RW(fxrw, fxrw_rdlock, fxrw_unlock, fxrw_wrlock, fxrw_unlock)
TB_RW(fxrw_m, fxrw_rdlock, fxrw_rdunlock, fxrw_wrlock, fxrw_wrunlock)
TB_RW(prw, prw_rdlock, prw_unlock, prw_wrlock, prw_unlock)

static int fxrw_init_n(void *o, int workers)
{
    (void)workers;
    return fxrw_init(o, false);
}
static int prw_init_n(void *o, int workers)
{
    (void)workers;
    return prw_init(o, false);
}
static int prw_wp_init_n(void *o, int workers)
{
    (void)workers;
    return prw_wp_init(o, false);
}

static void tb_rw_check(struct tb_run *r, struct tb_thr *th, struct fxb_res *res);

static const struct tb_kind tb_rw_kinds[] = {
    { .name = "fx_rwlock", .what = "fx_rwlock, fx_rwlock_unlock for both modes",
      .base = "pthread_rwlock_t", .peer = "pthread_rwlock_t-wp", .size = sizeof(fx_rwlock),
      .init = fxrw_init_n, .destroy = tb_nothing, .work = fxrw_work },
    { .name = "fx_rwlock-rdunlock", .what = "fx_rwlock, fx_rwlock_rdunlock / _wrunlock",
      .base = "pthread_rwlock_t", .peer = "pthread_rwlock_t-wp", .size = sizeof(fx_rwlock),
      .init = fxrw_init_n, .destroy = tb_nothing, .work = fxrw_m_work },
    { .name = "pthread_rwlock_t", .what = "pthread_rwlock_t, default kind (prefers readers)",
      .size = sizeof(pthread_rwlock_t), .init = prw_init_n, .destroy = prw_destroy,
      .work = prw_work },
    { .name = "pthread_rwlock_t-wp",
      .what = "pthread_rwlock_t, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP",
      .base = "pthread_rwlock_t", .size = sizeof(pthread_rwlock_t), .init = prw_wp_init_n,
      .destroy = prw_destroy, .work = prw_work },
};

static const struct tb_family tb_rwlock = {
    "rwlock", tb_rw_kinds, sizeof tb_rw_kinds / sizeof tb_rw_kinds[0], sizeof(struct tb_rw),
    tb_rw_check,
};

static void tb_rw_check(struct tb_run *r, struct tb_thr *th, struct fxb_res *res)
{
    struct tb_rw *d = r->data;
    uint64_t writes = 0, torn = 0;
    for (int i = 0; i < r->workers; i++) {
        writes += th[i].out.aux;
        torn += th[i].out.bad;
    }
    if (torn != 0)
        fxb_fail(res, "%s, %d threads: %llu reads saw a torn value (a writer inside with them)",
                 r->k->name, r->workers, (unsigned long long)torn);
    for (int k = 0; k < 4; k++)
        if (d->w[k] != writes) {
            fxb_fail(res, "%s, %d threads: word %d is %llu after %llu writes (writers not "
                          "exclusive)",
                     r->k->name, r->workers, k, (unsigned long long)d->w[k],
                     (unsigned long long)writes);
            break;
        }
}

/* --- barrier -------------------------------------------------------------- */

struct tb_slot {
    uint64_t round; /* the round this party arrived in last */
} __attribute__((aligned(64)));

struct tb_bar {
    uint64_t stop_after; /* 0, or the last round: set by a serial thread */
    struct tb_slot slot[];
};

static inline __attribute__((always_inline)) void
tb_bar_body(struct tb_run *r, struct tb_thr *t, int (*wait)(void *, int), int serial_rc)
{
    void *b = r->obj;
    struct tb_bar *d = r->data;
    const int n = r->workers, self = t->self;
    uint64_t j = 0, serial = 0, errors = 0, bad = 0;
    for (;;) {
        j++;
        /* Relaxed: the barrier orders it before every party's return. */
        __atomic_store_n(&d->slot[self].round, j, __ATOMIC_RELAXED);
        int rc = wait(b, n);
        if (rc == serial_rc) {
            serial++;
            /* The serial thread of round j fixes the last round at j + 1:
             * it writes before arriving in j + 1, so every party reads it
             * after returning from j + 1, and they all stop there. */
            if (__atomic_load_n(r->stop, __ATOMIC_RELAXED) &&
                __atomic_load_n(&d->stop_after, __ATOMIC_RELAXED) == 0)
                __atomic_store_n(&d->stop_after, j + 1, __ATOMIC_RELAXED);
        } else if (rc != 0) {
            errors++;
            break; /* the others hang: the run's deadline reports it */
        }
        /* Every party has arrived in round j, and none can be past j + 1. */
        for (int k = 0; k < n; k++) {
            uint64_t s = __atomic_load_n(&d->slot[k].round, __ATOMIC_RELAXED);
            bad += s < j || s > j + 1;
        }
        uint64_t last = __atomic_load_n(&d->stop_after, __ATOMIC_RELAXED);
        if (last != 0 && j >= last)
            break;
    }
    t->out.ops = self == 0 ? j : 0;
    t->out.aux = j;
    t->out.serial = serial;
    t->out.errors = errors;
    t->out.bad = bad;
}

static int fxbar_wait(void *b, int n)
{
    return fx_barrier_wait(b, n);
}
static void fxbar_work(struct tb_run *r, struct tb_thr *t)
{
    tb_bar_body(r, t, fxbar_wait, FX_BARRIER_SERIAL_THREAD);
}
static int fxbar_init(void *o, int workers)
{
    (void)workers; /* the first wait records it */
    return tb_zero_init(o, sizeof(fx_barrier));
}
static int pbar_wait(void *b, int n)
{
    (void)n;
    return pthread_barrier_wait(b);
}
static void pbar_work(struct tb_run *r, struct tb_thr *t)
{
    tb_bar_body(r, t, pbar_wait, PTHREAD_BARRIER_SERIAL_THREAD);
}
static int pbar_init(void *o, int workers)
{
    return pthread_barrier_init(o, NULL, (unsigned)workers);
}

static void tb_bar_check(struct tb_run *r, struct tb_thr *th, struct fxb_res *res);

static const struct tb_kind tb_bar_kinds[] = {
    { .name = "fx_barrier", .what = "fx_barrier_wait(b, parties)", .base = "pthread_barrier_t",
      .size = sizeof(fx_barrier), .init = fxbar_init, .destroy = tb_nothing,
      .work = fxbar_work },
    { .name = "pthread_barrier_t", .what = "pthread_barrier_wait",
      .size = sizeof(pthread_barrier_t), .init = pbar_init, .destroy = pb_destroy,
      .work = pbar_work },
};

static void tb_bar_check(struct tb_run *r, struct tb_thr *th, struct fxb_res *res)
{
    uint64_t serial = 0, bad = 0;
    for (int i = 0; i < r->workers; i++) {
        serial += th[i].out.serial;
        bad += th[i].out.bad;
        if (th[i].out.aux != th[0].out.aux)
            fxb_fail(res, "%s, %d parties: party %d did %llu rounds, party 0 %llu", r->k->name,
                     r->workers, i, (unsigned long long)th[i].out.aux,
                     (unsigned long long)th[0].out.aux);
    }
    if (bad != 0)
        fxb_fail(res, "%s, %d parties: %llu times a party left a round before every party "
                      "arrived",
                 r->k->name, r->workers, (unsigned long long)bad);
    if (serial != th[0].out.aux)
        fxb_fail(res, "%s, %d parties: %llu serial threads in %llu rounds", r->k->name,
                 r->workers, (unsigned long long)serial, (unsigned long long)th[0].out.aux);
}

static const struct tb_family tb_barrier = {
    "barrier", tb_bar_kinds, sizeof tb_bar_kinds / sizeof tb_bar_kinds[0],
    sizeof(struct tb_bar), tb_bar_check,
};

/* --- the threaded run ------------------------------------------------------ */

static void *tb_worker(void *arg)
{
    struct tb_thr *t = arg;
    struct tb_run *r = t->run;
    struct fxb_counter cnt;
    t->pin_err = r->pin ? fxb_pin_self(fxb_allowed_cpu(t->self)) : 0;
    t->span.count_err = fxb_counter_open(&cnt, r->count);
    pthread_barrier_wait(r->start);
    fxb_span_begin(&t->span, &cnt);
    r->k->work(r, t);
    fxb_span_end(&t->span, &cnt);
    fxb_counter_close(&cnt);
    return NULL;
}

static void tb_run_threads(const struct tb_family *f, const struct tb_kind *k, int n,
                           const struct fxb_tb_opts *o, int64_t duration_ns, bool count,
                           struct fxb_res *res)
{
    memset(res, 0, sizeof *res);
    res->ok = true;
    res->futex_calls = NAN;
    res->hold_cpu_pct = NAN;
    res->drain_ms = NAN;
    int *stop = fxb_alloc64(sizeof *stop);
    struct tb_run r = {
        .k = k,
        .obj = fxb_alloc64(k->size),
        .data = fxb_alloc64(f->data_size + sizeof(struct tb_slot) * (size_t)n),
        .stop = stop,
        .workers = n,
        .cs_iters = fxb_ns_to_iters(o->cs_ns),
        .out_iters = fxb_ns_to_iters(o->outside_ns),
        .read_threshold = (uint64_t)o->read_pct * (UINT64_C(1) << 32) / 100,
        .count = count ? o->count : FXB_COUNT_NONE,
        .pin = o->pin,
    };
    struct tb_thr *th = fxb_alloc64(sizeof *th * (size_t)n);
    int e = k->init(r.obj, n);
    if (e != 0) {
        fxb_fail(res, "%s: init: %s", k->name, strerror(e));
        goto out;
    }
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)n + 1);
    r.start = &start;
    for (int i = 0; i < n; i++) {
        th[i].run = &r;
        th[i].self = i;
        e = pthread_create(&th[i].t, NULL, tb_worker, &th[i]);
        if (e != 0) {
            fprintf(stderr, "futexsync-bench: pthread_create: %s\n", strerror(e));
            exit(2); /* the start barrier cannot be released */
        }
    }
    pthread_barrier_wait(&start);
    fxb_sleep_ns(duration_ns);
    /* Relaxed: the workers only need to see it eventually. */
    __atomic_store_n(stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < n; i++)
        fxb_join_or_die(th[i].t, r.k->name, r.workers, duration_ns);
    pthread_barrier_destroy(&start);

    struct fxb_span_sum sum;
    fxb_span_sum_init(&sum, r.count != FXB_COUNT_NONE);
    uint64_t errors = 0;
    for (int i = 0; i < n; i++) {
        struct tb_thr *t = &th[i];
        res->acquisitions += t->out.ops;
        errors += t->out.errors;
        fxb_span_add(&sum, &t->span);
        if (t->pin_err != 0)
            fxb_fail(res, "%s: cannot pin thread %d: %s", k->name, i, strerror(t->pin_err));
    }
    fxb_span_result(&sum, res);
    if (errors != 0)
        fxb_fail(res, "%s, %d threads: %llu calls failed", k->name, n,
                 (unsigned long long)errors);
    f->check(&r, th, res);
    if (res->acquisitions == 0)
        fxb_fail(res, "%s, %d threads: no operation completed", k->name, n);
    k->destroy(r.obj);
out:
    free(th);
    free(r.data);
    free(r.obj);
    free(stop);
}

/* ==== selection, method, tables ============================================ */

/* A name is selected by --prims when the list holds it, or its part before
 * the first '-' or ':' (so "fx_rwlock" selects every fx_rwlock variant). */
static bool tb_name_matches(const char *name, const char *want)
{
    if (strcmp(name, want) == 0)
        return true;
    size_t n = strcspn(name, "-:");
    return strlen(want) == n && strncmp(name, want, n) == 0;
}

static bool tb_selected(const struct fxb_tb_opts *o, const char *name)
{
    if (o->nprims == 0)
        return true;
    for (int i = 0; i < o->nprims; i++)
        if (tb_name_matches(name, o->prims[i]))
            return true;
    return false;
}

static const struct tb_family *const tb_families[] = { &tb_pingpong, &tb_rwlock, &tb_barrier };
#define TB_NFAMILIES (sizeof tb_families / sizeof tb_families[0])

bool fxb_tb_known(const char *name)
{
    for (size_t i = 0; i < TB_NOPS; i++)
        if (tb_name_matches(tb_ops[i].name, name))
            return true;
    for (size_t f = 0; f < TB_NFAMILIES; f++)
        for (size_t i = 0; i < tb_families[f]->nkinds; i++)
            if (tb_name_matches(tb_families[f]->kinds[i].name, name))
                return true;
    return false;
}

void fxb_tb_list(void)
{
    printf("\ntoolbox (--prims NAME,...; a name also selects its variants):\n");
    printf("%-20s %-34s %s\n", "workload", "primitive", "what");
    for (size_t i = 0; i < TB_NOPS; i++)
        printf("%-20s %-34s %s\n", "uncontended-toolbox", tb_ops[i].name, tb_ops[i].what);
    for (size_t f = 0; f < TB_NFAMILIES; f++)
        for (size_t i = 0; i < tb_families[f]->nkinds; i++)
            printf("%-20s %-34s %s\n", tb_families[f]->workload, tb_families[f]->kinds[i].name,
                   tb_families[f]->kinds[i].what);
}

static double tb_div(double x, double y)
{
    return isnan(x) || isnan(y) || y == 0 ? NAN : x / y;
}

static void tb_failed(const char *w, const char *why)
{
    fxb_end_progress();
    fprintf(stderr, "futexsync-bench: FAILED (%s): %s\n", w, why);
}

/* --- uncontended-toolbox --------------------------------------------------- */

bool fxb_tb_uncontended(struct fxb_report *rep, const struct fxb_tb_opts *o)
{
    static const char *const w = "uncontended-toolbox";
    const struct tb_op *sel[TB_NOPS];
    int nl = 0;
    for (size_t i = 0; i < TB_NOPS; i++)
        if (tb_selected(o, tb_ops[i].name))
            sel[nl++] = &tb_ops[i];
    if (nl == 0)
        return true;
    int R = o->rounds;
    int64_t target = o->smoke ? 2000000 : o->quick ? 10000000 : 50000000;
    double *ns = calloc((size_t)nl * (size_t)R, sizeof *ns);
    bool *correct = calloc((size_t)nl, sizeof *correct);
    bool all_ok = true;
    for (int i = 0; i < nl; i++)
        correct[i] = true;
    fxb_idle_thread_start();
    for (int round = 0; round < R; round++)
        for (int k = 0; k < nl; k++) {
            int i = round % 2 == 0 ? k : nl - 1 - k;
            const struct tb_op *op = sel[i];
            struct fxb_lock lk = { .name = op->name, .size = op->size, .init = op->init,
                                   .destroy = op->destroy, .pairs = op->ops };
            uint64_t errors;
            fxb_note_progress(w, op->name, 1, round + 1, R);
            tb_broken = 0;
            ns[(size_t)i * (size_t)R + (size_t)round] = fxb_run_pairs(&lk, target, &errors);
            if (errors != 0 || tb_broken != 0) {
                char why[160];
                snprintf(why, sizeof why, "%s: %llu calls failed%s", op->name,
                         (unsigned long long)errors,
                         tb_broken ? ", the initialiser did not run exactly once" : "");
                tb_failed(w, why);
                correct[i] = false;
                all_ok = false;
            }
        }
    fxb_idle_thread_stop();
    fxb_end_progress();
    for (int i = 0; i < nl; i++) {
        struct fxb_row *row = fxb_row_add(rep, w, sel[i]->name, 0);
        row->rounds = R;
        row->correct = correct[i];
        fxb_spread(&ns[(size_t)i * (size_t)R], R, 1, &row->pair_min, &row->pair_max);
        row->ns_per_pair = fxb_median(&ns[(size_t)i * (size_t)R], R);
    }
    for (int i = 0; i < nl; i++) {
        struct fxb_row *row = fxb_row_find(rep, w, sel[i]->name, 0);
        const struct fxb_row *b = sel[i]->base ? fxb_row_find(rep, w, sel[i]->base, 0) : NULL;
        row->vs_pthread = b ? tb_div(row->ns_per_pair, b->ns_per_pair) : NAN;
    }
    free(correct);
    free(ns);

    printf("\n== uncontended-toolbox: one operation (or pair) in one thread, nobody waiting "
           "(the process\n   has a second, idle thread) ==\n");
    printf("   median of %d interleaved round%s of the thread's CPU time; vs pthread = ns / "
           "the pthread\n   peer's ns (< 1: faster)\n",
           R, R == 1 ? "" : "s");
    printf("%-34s %8s %13s %11s   %s\n", "primitive:operation", "ns/op", "(min-max)",
           "vs pthread", "(peer)");
    for (int i = 0; i < nl; i++) {
        const struct fxb_row *row = fxb_row_find(rep, w, sel[i]->name, 0);
        printf("%-34s", row->lock);
        fxb_cell(8, 1, row->ns_per_pair, row->correct);
        fxb_spread_cell(13, row->pair_min, row->pair_max, 1);
        fxb_cell(11, 2, row->vs_pthread, true);
        if (!isnan(row->vs_pthread))
            printf("   (%s)", sel[i]->base);
        printf("\n");
    }
    return all_ok;
}

/* --- threaded workloads ---------------------------------------------------- */

enum { T_OPS, T_CPU, T_SLEEPS, T_COUNT };

/* Warm-up, interleaved rounds and medians of one family at one worker count;
 * one row per kind. Returns false if a run failed its checks. */
static bool tb_measure(struct fxb_report *rep, const struct fxb_tb_opts *o,
                       const struct tb_family *f, const struct tb_kind **kinds, int nk, int n,
                       bool warm)
{
    int R = o->rounds;
    double *m = calloc((size_t)nk * (size_t)R * T_COUNT, sizeof *m);
    bool *correct = calloc((size_t)nk, sizeof *correct);
    bool all_ok = true;
    for (int i = 0; i < nk; i++)
        correct[i] = true;
    struct fxb_res res;
    if (warm && o->warmup_ms > 0)
        for (int i = 0; i < nk; i++) {
            fxb_note_progress(f->workload, kinds[i]->name, n, 0, R);
            tb_run_threads(f, kinds[i], n, o, o->warmup_ms * 1000000, false, &res);
            if (!res.ok) {
                tb_failed(f->workload, res.why);
                correct[i] = false;
                all_ok = false;
            }
        }
    for (int round = 0; round < R; round++)
        for (int k = 0; k < nk; k++) {
            int i = round % 2 == 0 ? k : nk - 1 - k;
            fxb_note_progress(f->workload, kinds[i]->name, n, round + 1, R);
            tb_run_threads(f, kinds[i], n, o, o->duration_ms * 1000000, false, &res);
            if (!res.ok) {
                tb_failed(f->workload, res.why);
                correct[i] = false;
                all_ok = false;
            }
            double *v = &m[((size_t)i * (size_t)R + (size_t)round) * T_COUNT];
            double ops = (double)res.acquisitions;
            v[T_OPS] = res.ops_per_s;
            v[T_CPU] = tb_div(res.cpu_ns, ops);
            v[T_SLEEPS] = tb_div(res.vcsw, ops);
        }
    /* Futex calls in one more run per kind, counted and not timed: a perf
     * event on a thread makes each of its context switches far dearer here
     * (a pingpong that sleeps on every turn runs ~10x slower). */
    double *futex = calloc((size_t)nk, sizeof *futex);
    for (int i = 0; i < nk; i++) {
        futex[i] = NAN;
        if (o->count == FXB_COUNT_NONE)
            continue;
        fxb_note_progress(f->workload, kinds[i]->name, n, R, R);
        tb_run_threads(f, kinds[i], n, o, o->duration_ms * 1000000, true, &res);
        if (!res.ok) {
            tb_failed(f->workload, res.why);
            correct[i] = false;
            all_ok = false;
        }
        futex[i] = tb_div(res.futex_calls, (double)res.acquisitions);
    }
    fxb_end_progress();
    for (int i = 0; i < nk; i++) {
        struct fxb_row *row = fxb_row_add(rep, f->workload, kinds[i]->name, n);
        row->rounds = R;
        row->correct = correct[i];
        double med[T_COUNT];
        fxb_medians(m, i, R, T_COUNT, med);
        row->ops_per_s = med[T_OPS];
        fxb_spread(&m[(size_t)i * (size_t)R * T_COUNT + T_OPS], R, T_COUNT, &row->ops_min,
                   &row->ops_max);
        row->cpu_ns_per_acq = med[T_CPU];
        row->sleeps_per_acq = med[T_SLEEPS];
        row->futex_per_acq = futex[i];
    }
    for (int i = 0; i < nk; i++) {
        struct fxb_row *row = fxb_row_find(rep, f->workload, kinds[i]->name, n);
        const struct fxb_row *b = kinds[i]->base ? fxb_row_find(rep, f->workload, kinds[i]->base, n)
                                                 : NULL;
        const struct fxb_row *p = kinds[i]->peer ? fxb_row_find(rep, f->workload, kinds[i]->peer, n)
                                                 : NULL;
        row->vs_pthread = b ? tb_div(row->ops_per_s, b->ops_per_s) : NAN;
        row->vs_peer = p ? tb_div(row->ops_per_s, p->ops_per_s) : NAN;
    }
    free(futex);
    free(correct);
    free(m);
    return all_ok;
}

static bool tb_family_run(struct fxb_report *rep, const struct fxb_tb_opts *o,
                          const struct tb_family *f, const int *workers, int nw)
{
    const struct tb_kind *kinds[16];
    int nk = 0;
    for (size_t i = 0; i < f->nkinds && nk < 16; i++)
        if (tb_selected(o, f->kinds[i].name))
            kinds[nk++] = &f->kinds[i];
    if (nk == 0)
        return true;
    bool ok = true;
    for (int t = 0; t < nw; t++)
        ok &= tb_measure(rep, o, f, kinds, nk, workers[t], t == 0);
    return ok;
}

/* Rows of a threaded workload in the order measured: worker count, then kind. */
typedef void (*tb_line)(const struct fxb_row *r, const struct fxb_tb_opts *o);

static void tb_print_rows(const struct fxb_report *rep, const char *w, const struct fxb_tb_opts *o,
                          tb_line line)
{
    for (size_t i = 0; i < rep->n; i++)
        if (strcmp(rep->rows[i].workload, w) == 0)
            line(&rep->rows[i], o);
}

static void tb_rounds_note(const struct fxb_tb_opts *o)
{
    printf("   %smedian of %d interleaved round%s, %lld ms runs",
           o->pin ? "threads pinned to CPUs (--pin); " : "", o->rounds,
           o->rounds == 1 ? "" : "s", (long long)o->duration_ms);
}

static void tb_pp_line(const struct fxb_row *r, const struct fxb_tb_opts *o)
{
    (void)o;
    printf("%-18s", r->lock);
    fxb_cell(12, 0, r->ops_per_s / 1e3, r->correct);
    fxb_spread_cell(13, r->ops_min, r->ops_max, 1e3);
    fxb_cell(11, 2, r->vs_pthread, true);
    fxb_cell(10, 2, r->cpu_ns_per_acq / 1e3, true);
    fxb_cell(10, 3, r->sleeps_per_acq, true);
    fxb_cell(10, 3, r->futex_per_acq, true);
    printf("\n");
}

bool fxb_tb_pingpong(struct fxb_report *rep, const struct fxb_tb_opts *o)
{
    static const int two[] = { 2 };
    bool ok = tb_family_run(rep, o, &tb_pingpong, two, 1);
    printf("\n== pingpong: two threads take turns; a round trip is A -> B -> A ==\n");
    tb_rounds_note(o);
    printf("; vs pthread = round trips/s over the\n   pthread peer's (> 1: faster); CPU, "
           "sleeps (voluntary context switches) and futex calls\n   of both threads per round "
           "trip\n");
    printf("%-18s %12s %13s %11s %10s %10s %10s\n", "pair", "k trips/s", "(min-max)",
           "vs pthread", "CPU us", "sleeps", "futex");
    tb_print_rows(rep, "pingpong", o, tb_pp_line);
    return ok;
}

static void tb_rw_line(const struct fxb_row *r, const struct fxb_tb_opts *o)
{
    (void)o;
    double mops = r->ops_per_s / 1e6;
    printf("%-20s %7d", r->lock, r->threads);
    fxb_cell(9, fxb_prec(mops), mops, r->correct);
    fxb_spread_cell(13, r->ops_min, r->ops_max, 1e6);
    fxb_cell(11, 2, r->vs_pthread, true);
    fxb_cell(9, 2, r->vs_peer, true);
    fxb_cell(8, 0, r->cpu_ns_per_acq, true);
    fxb_cell(10, fxb_prec(r->sleeps_per_acq * 1000), r->sleeps_per_acq * 1000, true);
    fxb_cell(10, fxb_prec(r->futex_per_acq * 1000), r->futex_per_acq * 1000, true);
    printf("\n");
}

bool fxb_tb_rwlock(struct fxb_report *rep, const struct fxb_tb_opts *o)
{
    bool ok = tb_family_run(rep, o, &tb_rwlock, o->rw_threads, o->n_rw_threads);
    printf("\n== rwlock: read-mostly throughput, %d%% reads, critical section %.0f ns, outside "
           "%.0f ns ==\n",
           o->read_pct, o->cs_ns, o->outside_ns);
    tb_rounds_note(o);
    printf("; Mops/s = reads + writes of all threads;\n   vs pthread = over "
           "pthread_rwlock_t (default kind), vs -wp = over the writer-preferring\n   kind (> 1: "
           "faster); CPU ns per operation; sleeps and futex calls per 1000 operations\n");
    printf("%-20s %7s %9s %13s %11s %9s %8s %10s %10s\n", "lock", "threads", "Mops/s",
           "(min-max)", "vs pthread", "vs -wp", "CPU ns", "sleeps/k", "futex/k");
    tb_print_rows(rep, "rwlock", o, tb_rw_line);
    return ok;
}

static void tb_bar_line(const struct fxb_row *r, const struct fxb_tb_opts *o)
{
    (void)o;
    printf("%-18s %7d", r->lock, r->threads);
    fxb_cell(12, 0, r->ops_per_s / 1e3, r->correct);
    fxb_spread_cell(13, r->ops_min, r->ops_max, 1e3);
    fxb_cell(11, 2, r->vs_pthread, true);
    fxb_cell(10, 2, r->cpu_ns_per_acq / 1e3, true);
    fxb_cell(10, 3, r->sleeps_per_acq, true);
    fxb_cell(10, 3, r->futex_per_acq, true);
    printf("\n");
}

bool fxb_tb_barrier(struct fxb_report *rep, const struct fxb_tb_opts *o)
{
    bool ok = tb_family_run(rep, o, &tb_barrier, o->parties, o->n_parties);
    printf("\n== barrier: N parties loop on one barrier ==\n");
    tb_rounds_note(o);
    printf("; vs pthread = rounds/s over\n   pthread_barrier_t's (> 1: faster); CPU, sleeps and "
           "futex calls of all parties per round\n");
    printf("%-18s %7s %12s %13s %11s %10s %10s %10s\n", "barrier", "parties", "k rounds/s",
           "(min-max)", "vs pthread", "CPU us", "sleeps", "futex");
    tb_print_rows(rep, "barrier", o, tb_bar_line);
    return ok;
}
