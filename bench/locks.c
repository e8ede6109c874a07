/*
 * bench/locks.c - the lock adapters and the measured loops.
 *
 * Every lock is seen by the harness through struct fxb_lock (Concurrency
 * Kit's regressions/ style: one harness, every lock through an adapter). The
 * two measured loops are written once, as always_inline bodies taking the
 * lock's lock and unlock functions; FXB_LOOPS(id) instantiates them per lock,
 * so inside a measured loop the calls are direct (and inlined for the
 * header-only Concurrency Kit locks) rather than through a function pointer:
 * every lock pays the same loop overhead and no indirect call.
 *
 * Lock and counter live on separate cache lines (run.c allocates them), so
 * the protected data never shares the lock's line, for every lock alike.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <futexsync.h>
#if defined(FXB_HAVE_NSYNC)
#include <nsync.h>
#endif
#if defined(FXB_HAVE_CK)
#include <ck_spinlock.h>
#endif

/* ThreadSanitizer understands pthread and (through their annotations)
 * futexsync locks, but not the atomics inside libnsync.so or the inline
 * assembly of Concurrency Kit: their adapters announce acquire and release. */
#if defined(__SANITIZE_THREAD__)
#define FXB_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FXB_TSAN 1
#endif
#endif
#if defined(FXB_TSAN)
#include <sanitizer/tsan_interface.h>
#define FXB_ANN_ACQUIRED(l) __tsan_acquire(l)
#define FXB_ANN_RELEASING(l) __tsan_release(l)
#else
#define FXB_ANN_ACQUIRED(l) ((void)(l))
#define FXB_ANN_RELEASING(l) ((void)(l))
#endif

/* --- the measured loops --------------------------------------------------- */

static inline __attribute__((always_inline)) uint64_t
fxb_pairs_body(void *l, uint64_t n, int (*lock)(void *), int (*unlock)(void *))
{
    uint64_t errors = 0;
    for (uint64_t i = 0; i < n; i++) {
        errors += lock(l) != 0;
        errors += unlock(l) != 0;
    }
    return errors;
}

/* `guarded` is a constant of each instantiation: false only for the `none`
 * row, whose workers share no counter since nothing excludes them. */
static inline __attribute__((always_inline)) void
fxb_loop_body(void *l, struct fxb_loop *w, int (*lock)(void *), int (*unlock)(void *),
              bool guarded)
{
    uint64_t n = 0, errors = 0, max_wait = 0;
    uint64_t *counter = w->counter;
    struct fxb_hist *hist = w->hist;
    const uint64_t cs = w->cs_iters, out = w->out_iters;
    /* do-while: every worker acquires at least once, even when the scheduler
     * starts it after the coordinator has already raised the stop flag (a
     * loaded machine, a short --smoke run); the run's "no acquisition" check
     * then means a broken lock, never a late thread. */
    do {
        int64_t t0 = hist ? fxb_now_ns() : 0;
        if (lock(l) != 0) {
            errors++;
            continue;
        }
        if (hist) {
            uint64_t waited = (uint64_t)(fxb_now_ns() - t0);
            hist->n[fxb_hist_bucket(waited)]++;
            if (waited > max_wait)
                max_wait = waited;
        }
        /* A plain increment: a lock that lets two threads in loses updates,
         * and the run's check (counter == acquisitions) catches it. */
        if (guarded)
            (*counter)++;
        fxb_work(cs);
        errors += unlock(l) != 0;
        n++;
        fxb_work(out);
        /* Relaxed: the stop flag needs no ordering, only to be seen eventually. */
    } while (!__atomic_load_n(w->stop, __ATOMIC_RELAXED));
    w->acquisitions = n;
    w->errors = errors;
    w->max_wait_ns = max_wait;
}

#define FXB_LOOPS_OF(id, guarded)                                              \
    static uint64_t id##_pairs(void *l, uint64_t n)                            \
    {                                                                          \
        return fxb_pairs_body(l, n, id##_lock, id##_unlock);                   \
    }                                                                          \
    static void id##_loop(void *l, struct fxb_loop *w)                         \
    {                                                                          \
        fxb_loop_body(l, w, id##_lock, id##_unlock, guarded);                  \
    }
#define FXB_LOOPS(id) FXB_LOOPS_OF(id, true)

static void fxb_nothing(void *l)
{
    (void)l;
}

/* --- futexsync ------------------------------------------------------------ */

static int fxm_init(void *l, bool pshared)
{
    (void)pshared; /* every futexsync object works across processes */
    memset(l, 0, sizeof(fx_mutex));
    return 0;
}
static int fxm_lock(void *l)
{
    return fx_mutex_lock(l);
}
static int fxm_unlock(void *l)
{
    return fx_mutex_unlock(l);
}
FXB_LOOPS(fxm)

static int fxr_init(void *l, bool pshared)
{
    (void)pshared;
    memset(l, 0, sizeof(fx_rmutex));
    return 0;
}
static int fxr_lock(void *l)
{
    return fx_rmutex_lock(l);
}
static int fxr_unlock(void *l)
{
    return fx_rmutex_unlock(l);
}
FXB_LOOPS(fxr)

/* --- pthread mutexes ------------------------------------------------------ */

static int pm_init_attr(void *l, int type, bool robust, bool pshared)
{
    pthread_mutexattr_t a;
    int r = pthread_mutexattr_init(&a);
    if (r == 0)
        r = pthread_mutexattr_settype(&a, type);
    if (r == 0 && robust)
        r = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    if (r == 0 && pshared)
        r = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    if (r == 0)
        r = pthread_mutex_init(l, &a);
    pthread_mutexattr_destroy(&a);
    return r;
}
static int pm_normal_init(void *l, bool pshared)
{
    return pm_init_attr(l, PTHREAD_MUTEX_NORMAL, false, pshared);
}
static int pm_adaptive_init(void *l, bool pshared)
{
    return pm_init_attr(l, PTHREAD_MUTEX_ADAPTIVE_NP, false, pshared);
}
static int pm_recursive_init(void *l, bool pshared)
{
    return pm_init_attr(l, PTHREAD_MUTEX_RECURSIVE, false, pshared);
}
static int pm_robust_init(void *l, bool pshared)
{
    return pm_init_attr(l, PTHREAD_MUTEX_NORMAL, true, pshared);
}
static int pm_pshared_init(void *l, bool pshared)
{
    (void)pshared; /* process-shared in every workload */
    return pm_init_attr(l, PTHREAD_MUTEX_NORMAL, false, true);
}
static void pm_destroy(void *l)
{
    pthread_mutex_destroy(l);
}
static int pm_lock(void *l)
{
    return pthread_mutex_lock(l);
}
static int pm_unlock(void *l)
{
    return pthread_mutex_unlock(l);
}
FXB_LOOPS(pm)

/* --- pthread spinlock ----------------------------------------------------- */

static int ps_init(void *l, bool pshared)
{
    return pthread_spin_init(l, pshared ? PTHREAD_PROCESS_SHARED : PTHREAD_PROCESS_PRIVATE);
}
static void ps_destroy(void *l)
{
    pthread_spin_destroy(l);
}
static int ps_lock(void *l)
{
    return pthread_spin_lock(l);
}
static int ps_unlock(void *l)
{
    return pthread_spin_unlock(l);
}
FXB_LOOPS(ps)

/* --- nsync ---------------------------------------------------------------- */

#if defined(FXB_HAVE_NSYNC)
static int ns_init(void *l, bool pshared)
{
    if (pshared)
        return ENOTSUP; /* nsync_mu keeps waiter lists in process memory */
    nsync_mu_init(l);
    return 0;
}
static int ns_lock(void *l)
{
    nsync_mu_lock(l);
    FXB_ANN_ACQUIRED(l);
    return 0;
}
static int ns_unlock(void *l)
{
    FXB_ANN_RELEASING(l);
    nsync_mu_unlock(l);
    return 0;
}
FXB_LOOPS(ns)
#endif

/* --- Concurrency Kit spinlocks -------------------------------------------- */

#if defined(FXB_HAVE_CK)
static int ckf_init(void *l, bool pshared)
{
    (void)pshared; /* a word in shared memory works across processes */
    ck_spinlock_fas_init(l);
    return 0;
}
static int ckf_lock(void *l)
{
    ck_spinlock_fas_lock(l);
    FXB_ANN_ACQUIRED(l);
    return 0;
}
static int ckf_unlock(void *l)
{
    FXB_ANN_RELEASING(l);
    ck_spinlock_fas_unlock(l);
    return 0;
}
FXB_LOOPS(ckf)

static int ckt_init(void *l, bool pshared)
{
    (void)pshared;
    ck_spinlock_ticket_init(l);
    return 0;
}
static int ckt_lock(void *l)
{
    ck_spinlock_ticket_lock(l);
    FXB_ANN_ACQUIRED(l);
    return 0;
}
static int ckt_unlock(void *l)
{
    FXB_ANN_RELEASING(l);
    ck_spinlock_ticket_unlock(l);
    return 0;
}
FXB_LOOPS(ckt)

/* MCS: each acquisition brings a queue node that must live until the unlock.
 * A thread holds at most one benchmarked lock at a time, so one node per
 * thread is enough. The nodes are in each thread's memory: not for processes. */
static _Thread_local ck_spinlock_mcs_context_t ckm_node;
static int ckm_init(void *l, bool pshared)
{
    if (pshared)
        return ENOTSUP;
    ck_spinlock_mcs_init(l);
    return 0;
}
static int ckm_lock(void *l)
{
    ck_spinlock_mcs_lock(l, &ckm_node);
    FXB_ANN_ACQUIRED(l);
    return 0;
}
static int ckm_unlock(void *l)
{
    FXB_ANN_RELEASING(l);
    ck_spinlock_mcs_unlock(l, &ckm_node);
    return 0;
}
FXB_LOOPS(ckm)
#endif

/* --- no lock: the reference of the machine ------------------------------- */

/* Every worker runs the same loop with nothing to wait for, so a round measures
 * what the machine's CPUs give this work right then: a lock can do no better,
 * and the row's spread over rounds is the machine's own (bench/README.md,
 * "Reading the tables"). */
static int none_init(void *l, bool pshared)
{
    (void)l;
    (void)pshared;
    return 0;
}
static int none_lock(void *l)
{
    (void)l;
    return 0;
}
static int none_unlock(void *l)
{
    (void)l;
    return 0;
}
FXB_LOOPS_OF(none, false)

/* --- the table ------------------------------------------------------------ */

#define FXB_ADAPTER(id) .lock = id##_lock, .unlock = id##_unlock, .pairs = id##_pairs, \
                        .loop = id##_loop

const struct fxb_lock fxb_locks[] = {
    { .name = "fx_mutex", .what = "futexsync fx_mutex (4 bytes)", .size = sizeof(fx_mutex),
      .flags = FXB_PSHARED | FXB_SLEEPS | FXB_FX | FXB_PROC_DEFAULT | FXB_QUICK,
      .init = fxm_init, .destroy = fxb_nothing, FXB_ADAPTER(fxm) },
    { .name = "fx_rmutex", .what = "futexsync fx_rmutex, owner-tracked, re-entrant, robust",
      .peer = "pthread-recursive", .size = sizeof(fx_rmutex),
      .flags = FXB_PSHARED | FXB_SLEEPS | FXB_FX | FXB_PROC_DEFAULT | FXB_QUICK,
      .init = fxr_init, .destroy = fxb_nothing, FXB_ADAPTER(fxr) },
    { .name = "pthread", .what = "pthread_mutex_t, PTHREAD_MUTEX_NORMAL",
      .size = sizeof(pthread_mutex_t), .flags = FXB_SLEEPS | FXB_QUICK,
      .init = pm_normal_init, .destroy = pm_destroy, FXB_ADAPTER(pm) },
    { .name = "pthread-adaptive",
      .what = "pthread_mutex_t, PTHREAD_MUTEX_ADAPTIVE_NP (spins first)",
      .size = sizeof(pthread_mutex_t), .flags = FXB_SLEEPS,
      .init = pm_adaptive_init, .destroy = pm_destroy, FXB_ADAPTER(pm) },
    { .name = "pthread-recursive", .what = "pthread_mutex_t, PTHREAD_MUTEX_RECURSIVE",
      .size = sizeof(pthread_mutex_t), .flags = FXB_SLEEPS,
      .init = pm_recursive_init, .destroy = pm_destroy, FXB_ADAPTER(pm) },
    { .name = "pthread-robust", .what = "pthread_mutex_t, PTHREAD_MUTEX_ROBUST",
      .size = sizeof(pthread_mutex_t), .flags = FXB_SLEEPS,
      .init = pm_robust_init, .destroy = pm_destroy, FXB_ADAPTER(pm) },
    { .name = "pthread-pshared", .what = "pthread_mutex_t, PTHREAD_PROCESS_SHARED",
      .size = sizeof(pthread_mutex_t), .flags = FXB_PSHARED | FXB_SLEEPS | FXB_PROC_DEFAULT,
      .init = pm_pshared_init, .destroy = pm_destroy, FXB_ADAPTER(pm) },
    { .name = "pthread-spin", .what = "pthread_spinlock_t (never sleeps)",
      .size = sizeof(pthread_spinlock_t), .flags = FXB_PSHARED,
      .init = ps_init, .destroy = ps_destroy, FXB_ADAPTER(ps) },
#if defined(FXB_HAVE_NSYNC)
    { .name = "nsync", .what = "nsync_mu (libnsync), threads only",
      .size = sizeof(nsync_mu), .flags = FXB_SLEEPS | FXB_QUICK,
      .init = ns_init, .destroy = fxb_nothing, FXB_ADAPTER(ns) },
#endif
#if defined(FXB_HAVE_CK)
    { .name = "ck-fas", .what = "Concurrency Kit fetch-and-store spinlock",
      .size = sizeof(ck_spinlock_fas_t), .flags = FXB_PSHARED,
      .init = ckf_init, .destroy = fxb_nothing, FXB_ADAPTER(ckf) },
    { .name = "ck-ticket", .what = "Concurrency Kit ticket spinlock (FIFO)",
      .size = sizeof(ck_spinlock_ticket_t), .flags = FXB_PSHARED,
      .init = ckt_init, .destroy = fxb_nothing, FXB_ADAPTER(ckt) },
    { .name = "ck-mcs", .what = "Concurrency Kit MCS queue spinlock, threads only",
      .size = sizeof(ck_spinlock_mcs_t), .flags = 0,
      .init = ckm_init, .destroy = fxb_nothing, FXB_ADAPTER(ckm) },
#endif
    { .name = "none", .what = "no lock: every worker runs freely (the machine's capacity)",
      .size = sizeof(int), .flags = FXB_NOLOCK, .init = none_init, .destroy = fxb_nothing,
      FXB_ADAPTER(none) },
};

const size_t fxb_nlocks = sizeof fxb_locks / sizeof fxb_locks[0];

const struct fxb_lock *fxb_lock_find(const char *name)
{
    for (size_t i = 0; i < fxb_nlocks; i++)
        if (strcmp(fxb_locks[i].name, name) == 0)
            return &fxb_locks[i];
    return NULL;
}
