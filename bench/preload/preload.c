/*
 * bench/preload/preload.c - a measuring tool, not a pthread replacement:
 * LD_PRELOAD it to run an existing program's default-kind pthread_mutex_t on
 * fx_mutex and the pthread_cond_t waited with them on fx_cond; every other
 * kind, attribute and case goes to glibc's own function. The design (which
 * bytes, how an object is told ours, the edge cases): README.md here.
 *
 * Per object, for its whole lifetime (init to destroy):
 *
 *   object            routed when                    state kept in
 *   pthread_mutex_t   __kind == 0 (NORMAL/DEFAULT,   fx_mutex at __list (offset
 *                     private, no robust/PI/PP),     24), unused by glibc at kind 0
 *                     or 512 (NORMAL by settype)
 *   pthread_cond_t    its first wait was with a      __wrefs = COND_BOUND | attr
 *                     routed mutex (bound then)      bits; fx_cond at __g_refs
 *                                                    (offset 16)
 *
 * Nothing here writes __kind, so a mutex's route never changes; a cond is
 * bound once (a compare-and-swap on __wrefs from a state glibc has never
 * waited in) and stays bound until pthread_cond_destroy or pthread_cond_init.
 *
 * FXP_FORWARD_ONLY builds the same code routing nothing (the kind it routes
 * is one glibc never stores): the interposer's own overhead.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <futexsync/cond.h>
#include <futexsync/layout.h>
#include <futexsync/mutex.h>
#include <futexsync/time.h>

/* glibc 2.36, x86-64: where the fx objects live inside glibc's. */
_Static_assert(sizeof(pthread_mutex_t) == 40, "pthread_mutex_t is not glibc's x86-64 one");
_Static_assert(offsetof(pthread_mutex_t, __data.__kind) == 16, "__kind moved");
_Static_assert(offsetof(pthread_mutex_t, __data.__list) == 24, "__list moved");
_Static_assert(sizeof(fx_mutex) <= sizeof(((pthread_mutex_t *)0)->__data.__list),
               "fx_mutex does not fit in __list");
_Static_assert(sizeof(pthread_cond_t) == 48, "pthread_cond_t is not glibc's x86-64 one");
_Static_assert(offsetof(pthread_cond_t, __data.__wseq) == 0, "__wseq moved");
_Static_assert(offsetof(pthread_cond_t, __data.__g_refs) == 16, "__g_refs moved");
_Static_assert(offsetof(pthread_cond_t, __data.__wrefs) == 36, "__wrefs moved");
_Static_assert(sizeof(fx_cond) == 16, "fx_cond does not fit in __g_refs and __g_size");

#ifdef FXP_FORWARD_ONLY
#define FXP_MODE "forward-only"
#define FXP_ROUTED_KIND INT32_MIN /* glibc never stores it: nothing is routed */
#else
#define FXP_MODE "routing"
#define FXP_ROUTED_KIND 0 /* PTHREAD_MUTEX_NORMAL == DEFAULT, no flag */
#endif

/* PTHREAD_MUTEX_NO_ELISION_NP: pthread_mutexattr_settype(PTHREAD_MUTEX_NORMAL)
 * adds it to the kind (glibc cannot tell NORMAL from DEFAULT otherwise). A
 * NORMAL mutex is routed as the DEFAULT one. */
#define KIND_NO_ELISION 512

/* __wrefs of a cond bound to futexsync: bits 3..31 hold glibc's count of
 * waiters (wrefs >> 3), which could reach this value only with about 5e8
 * threads inside a wait; bits 0 (process-shared) and 1 (CLOCK_MONOTONIC) keep
 * the attribute that pthread_cond_init put there. */
#define COND_BOUND 0xF5C00000u
#define COND_ATTR_BITS 3u
#define COND_CLOCK_MONOTONIC 2u

/* --- glibc's functions, resolved once ------------------------------------ */

enum {
    R_MUTEX_INIT, R_MUTEX_DESTROY, R_MUTEX_LOCK, R_MUTEX_TRYLOCK, R_MUTEX_TIMEDLOCK,
    R_MUTEX_CLOCKLOCK, R_MUTEX_UNLOCK, R_COND_DESTROY, R_COND_WAIT, R_COND_TIMEDWAIT,
    R_COND_CLOCKWAIT, R_COND_SIGNAL, R_COND_BROADCAST, R_COUNT
};

/* Each with the version the program's own references default to (objdump -T
 * libc.so.6): the pthread_cond_* of GLIBC_2.3.2, not the GLIBC_2.2.5 compat
 * ones, which this library does not define and so never sees. */
static const struct {
    const char *name, *version;
} real_names[R_COUNT] = {
    [R_MUTEX_INIT] = { "pthread_mutex_init", "GLIBC_2.2.5" },
    [R_MUTEX_DESTROY] = { "pthread_mutex_destroy", "GLIBC_2.2.5" },
    [R_MUTEX_LOCK] = { "pthread_mutex_lock", "GLIBC_2.2.5" },
    [R_MUTEX_TRYLOCK] = { "pthread_mutex_trylock", "GLIBC_2.34" },
    [R_MUTEX_TIMEDLOCK] = { "pthread_mutex_timedlock", "GLIBC_2.34" },
    [R_MUTEX_CLOCKLOCK] = { "pthread_mutex_clocklock", "GLIBC_2.34" },
    [R_MUTEX_UNLOCK] = { "pthread_mutex_unlock", "GLIBC_2.2.5" },
    [R_COND_DESTROY] = { "pthread_cond_destroy", "GLIBC_2.3.2" },
    [R_COND_WAIT] = { "pthread_cond_wait", "GLIBC_2.3.2" },
    [R_COND_TIMEDWAIT] = { "pthread_cond_timedwait", "GLIBC_2.3.2" },
    [R_COND_CLOCKWAIT] = { "pthread_cond_clockwait", "GLIBC_2.34" },
    [R_COND_SIGNAL] = { "pthread_cond_signal", "GLIBC_2.3.2" },
    [R_COND_BROADCAST] = { "pthread_cond_broadcast", "GLIBC_2.3.2" },
};

static void *real_fn[R_COUNT];

__attribute__((noinline, cold)) static void *real_resolve(int i)
{
    void *f = dlvsym(RTLD_NEXT, real_names[i].name, real_names[i].version);
    if (f == NULL) /* a libc with other versions: its default one */
        f = dlsym(RTLD_NEXT, real_names[i].name);
    if (f == NULL) {
        static const char msg[] = "futexsync-preload: glibc function not found\n";
        ssize_t unused = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)unused;
        abort();
    }
    /* Release: pairs with real()'s acquire. Threads racing here store the
     * same pointer, so resolving is idempotent and needs no lock. */
    __atomic_store_n(&real_fn[i], f, __ATOMIC_RELEASE);
    return f;
}

static inline void *real(int i)
{
    /* Acquire: pairs with real_resolve's release store. */
    void *f = __atomic_load_n(&real_fn[i], __ATOMIC_ACQUIRE);
    return __builtin_expect(f != NULL, 1) ? f : real_resolve(i);
}

typedef int (*mutex_fn)(pthread_mutex_t *);
typedef int (*mutex_init_fn)(pthread_mutex_t *, const pthread_mutexattr_t *);
typedef int (*mutex_timed_fn)(pthread_mutex_t *, const struct timespec *);
typedef int (*mutex_clock_fn)(pthread_mutex_t *, clockid_t, const struct timespec *);
typedef int (*cond_fn)(pthread_cond_t *);
typedef int (*cond_wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*cond_timed_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*cond_clock_fn)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
                             const struct timespec *);

/* --- the statistics line -------------------------------------------------- */

enum { S_MUTEX_INIT, S_MUTEX_LOCK, S_COND_BIND, S_COND_WAIT, S_COND_WAKE, S_COUNT };
static const char *const stat_names[S_COUNT] = { "mutex-init", "mutex-lock", "cond-bind",
                                                 "cond-wait", "cond-wake" };
enum { ROUTED, FORWARDED };

/* One block per thread, written only by its thread (no atomic read-modify-
 * write on the counted paths); threads past FXP_BLOCKS share the last one
 * with atomic adds. Blocks outlive their threads, so the line counts them. */
#define FXP_BLOCKS 1024
struct stats_block {
    uint64_t n[S_COUNT][2];
};
static struct stats_block stat_blocks[FXP_BLOCKS + 1];
static uint32_t stat_blocks_used;
static __thread struct stats_block *stat_mine __attribute__((tls_model("initial-exec")));
static int stats_on; /* FUTEXSYNC_PRELOAD_STATS set and not "0" */

__attribute__((noinline, cold)) static void stats_count(int what, int route)
{
    struct stats_block *b = stat_mine;
    if (b == NULL) {
        /* Relaxed: only the index must be unique. */
        uint32_t i = __atomic_fetch_add(&stat_blocks_used, 1, __ATOMIC_RELAXED);
        b = &stat_blocks[i < FXP_BLOCKS ? i : FXP_BLOCKS];
        stat_mine = b;
    }
    uint64_t *p = &b->n[what][route];
    if (b == &stat_blocks[FXP_BLOCKS]) {
        __atomic_fetch_add(p, 1, __ATOMIC_RELAXED); /* shared: a count, nothing to order */
    } else {
        /* Relaxed: this thread is the only writer; readers want a count. */
        __atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    }
}

/* One load and an untaken branch when the statistics are off. */
#define COUNT(what, route)                                                      \
    do {                                                                        \
        if (__builtin_expect(__atomic_load_n(&stats_on, __ATOMIC_RELAXED), 0)) \
            stats_count(what, route);                                           \
    } while (0)

/* The statistics line (the same at exit): the program's counts so far, as
 * routed/forwarded pairs. Exported for the interposer's own tests. */
int futexsync_preload_stats(char *buf, size_t len);
int futexsync_preload_stats(char *buf, size_t len)
{
    uint64_t sum[S_COUNT][2] = { { 0 } };
    /* Relaxed: a snapshot of counts. */
    uint32_t used = __atomic_load_n(&stat_blocks_used, __ATOMIC_RELAXED);
    uint32_t nb = used < FXP_BLOCKS ? used : FXP_BLOCKS + 1;
    for (uint32_t b = 0; b < nb; b++)
        for (int s = 0; s < S_COUNT; s++)
            for (int r = 0; r < 2; r++)
                sum[s][r] += __atomic_load_n(&stat_blocks[b].n[s][r], __ATOMIC_RELAXED);
    int n = snprintf(buf, len, "futexsync-preload: pid %ld %s%s (routed/forwarded):",
                     (long)getpid(), FXP_MODE, stats_on ? "" : " counting off");
    for (int s = 0; s < S_COUNT && n >= 0 && (size_t)n < len; s++)
        n += snprintf(buf + n, len - (size_t)n, " %s %llu/%llu", stat_names[s],
                      (unsigned long long)sum[s][ROUTED], (unsigned long long)sum[s][FORWARDED]);
    if (n >= 0 && (size_t)n + 1 < len) {
        buf[n++] = '\n';
        buf[n] = '\0';
    }
    return n;
}

__attribute__((constructor)) static void preload_start(void)
{
    const char *s = getenv("FUTEXSYNC_PRELOAD_STATS");
    if (s != NULL && *s != '\0' && strcmp(s, "0") != 0)
        __atomic_store_n(&stats_on, 1, __ATOMIC_RELAXED); /* before main's threads */
    for (int i = 0; i < R_COUNT; i++)
        (void)real(i);
}

__attribute__((destructor)) static void preload_end(void)
{
    if (!__atomic_load_n(&stats_on, __ATOMIC_RELAXED))
        return;
    char line[512];
    int n = futexsync_preload_stats(line, sizeof line);
    if (n > 0) {
        ssize_t unused = write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n
                                                                              : sizeof line - 1);
        (void)unused;
    }
}

/* --- mutexes --------------------------------------------------------------- */

static inline bool mutex_routed(pthread_mutex_t *m)
{
    /* Relaxed: __kind is written only by glibc's pthread_mutex_init and
     * pthread_mutex_destroy (and its elision, on kinds not routed), which the
     * program orders before and after every use of the object. */
    int kind = __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);
    return (kind & ~KIND_NO_ELISION) == FXP_ROUTED_KIND;
}

static inline fx_mutex *mutex_fx(pthread_mutex_t *m)
{
    return (fx_mutex *)(void *)&m->__data.__list;
}

int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
    /* glibc's own init: it zeroes all 40 bytes (an unlocked fx_mutex) and
     * stores the kind, which decides the route from now on. */
    int r = ((mutex_init_fn)real(R_MUTEX_INIT))(m, attr);
    if (r == 0)
        COUNT(S_MUTEX_INIT, mutex_routed(m) ? ROUTED : FORWARDED);
    return r;
}

int pthread_mutex_destroy(pthread_mutex_t *m)
{
    /* A routed mutex held is busy, as glibc says of its own; otherwise glibc
     * ends the object's life (kind -1: never routed again until an init). */
    if (mutex_routed(m) &&
        __atomic_load_n(&mutex_fx(m)->state, __ATOMIC_RELAXED) != FX_MUTEX_UNLOCKED)
        return EBUSY;
    return ((mutex_fn)real(R_MUTEX_DESTROY))(m);
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
    if (mutex_routed(m)) {
        COUNT(S_MUTEX_LOCK, ROUTED);
        return fx_mutex_lock(mutex_fx(m));
    }
    COUNT(S_MUTEX_LOCK, FORWARDED);
    return ((mutex_fn)real(R_MUTEX_LOCK))(m);
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
    if (mutex_routed(m)) {
        COUNT(S_MUTEX_LOCK, ROUTED);
        return fx_mutex_trylock(mutex_fx(m));
    }
    COUNT(S_MUTEX_LOCK, FORWARDED);
    return ((mutex_fn)real(R_MUTEX_TRYLOCK))(m);
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
    if (mutex_routed(m))
        return fx_mutex_unlock(mutex_fx(m));
    return ((mutex_fn)real(R_MUTEX_UNLOCK))(m);
}

/* glibc's checks, in glibc's order (nptl/pthread_mutex_timedlock.c and
 * futex-internal.c of 2.36): the deadline is looked at only when the mutex is
 * held; then a negative tv_sec is ETIMEDOUT before a bad tv_nsec is EINVAL. */
static int mutex_timed(pthread_mutex_t *m, clockid_t clock, const struct timespec *abs)
{
    fx_mutex *fm = mutex_fx(m);
    int r = fx_mutex_trylock(fm);
    if (r != EBUSY)
        return r;
    if (abs->tv_sec < 0)
        return ETIMEDOUT;
    struct timespec deadline;
    if (fx_deadline_from(clock, abs, &deadline) != 0)
        return EINVAL; /* tv_nsec outside [0, 999999999] */
    return fx_mutex_timedlock(fm, &deadline);
}

int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abs)
{
    if (mutex_routed(m)) {
        COUNT(S_MUTEX_LOCK, ROUTED);
        return mutex_timed(m, CLOCK_REALTIME, abs);
    }
    COUNT(S_MUTEX_LOCK, FORWARDED);
    return ((mutex_timed_fn)real(R_MUTEX_TIMEDLOCK))(m, abs);
}

int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock, const struct timespec *abs)
{
    if (mutex_routed(m)) {
        COUNT(S_MUTEX_LOCK, ROUTED);
        if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
            return EINVAL; /* glibc's first check, held or not */
        return mutex_timed(m, clock, abs);
    }
    COUNT(S_MUTEX_LOCK, FORWARDED);
    return ((mutex_clock_fn)real(R_MUTEX_CLOCKLOCK))(m, clock, abs);
}

/* The compat versions of the calls glibc 2.34 moved into libc (the same code
 * in glibc): a program linked against an older glibc is interposed too. */
/* fn gets its default version explicitly (ld drops it otherwise, next to
 * a compat version of the same name); the compat one is an alias in
 * assembly (the same address) with that version. */
#define FXP_COMPAT(fn, alias, version)                                   \
    __asm__(".symver " #fn ", " #fn "@@GLIBC_2.34\n"                       \
            ".globl " #alias "\n.set " #alias ", " #fn "\n"                \
            ".symver " #alias ", " #fn "@" version)
FXP_COMPAT(pthread_mutex_trylock, fxp_mutex_trylock_compat, "GLIBC_2.2.5");
FXP_COMPAT(pthread_mutex_timedlock, fxp_mutex_timedlock_compat, "GLIBC_2.2.5");
FXP_COMPAT(pthread_mutex_clocklock, fxp_mutex_clocklock_compat, "GLIBC_2.30");

/* --- condition variables --------------------------------------------------- */

static inline uint32_t *cond_wrefs(pthread_cond_t *c)
{
    return &c->__data.__wrefs;
}

static inline fx_cond *cond_fx(pthread_cond_t *c)
{
    return (fx_cond *)(void *)&c->__data.__g_refs[0];
}

static inline bool cond_bound(uint32_t wrefs)
{
    return (wrefs & ~COND_ATTR_BITS) == COND_BOUND;
}

enum { ROUTE_GLIBC, ROUTE_FX, ROUTE_MIXED };

/* The first wait with a routed mutex binds a cond that glibc has never
 * waited in: no glibc waiter counted in __wrefs, __wseq still 0 (each glibc
 * wait adds 2 to it). Waits with a routed mutex hold it, so two binders are
 * ordered by the mutex, or race on the CAS with the same result. */
__attribute__((noinline)) static int cond_bind(pthread_cond_t *c, uint32_t w)
{
    for (;;) {
        if (cond_bound(w))
            return ROUTE_FX;
        /* Relaxed: glibc's own words, read to see whether glibc used them. */
        if ((w >> 3) != 0 || __atomic_load_n(&c->__data.__wseq.__value64, __ATOMIC_RELAXED) != 0)
            return ROUTE_MIXED; /* bound to glibc: a glibc mutex waited in it */
        /* Release: a signaller that reads COND_BOUND (acquire) sees the
         * fx_cond as zero as the binder saw it. Acquire on failure: the
         * bound value another binder released. */
        if (__atomic_compare_exchange_n(cond_wrefs(c), &w, COND_BOUND | (w & COND_ATTR_BITS), false,
                                        __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
            COUNT(S_COND_BIND, ROUTED);
            return ROUTE_FX;
        }
    }
}

static inline int cond_route(pthread_cond_t *c, pthread_mutex_t *m, uint32_t *wrefs)
{
    /* Acquire: pairs with cond_bind's release. */
    uint32_t w = __atomic_load_n(cond_wrefs(c), __ATOMIC_ACQUIRE);
    *wrefs = w;
    bool routed = mutex_routed(m);
    if (cond_bound(w))
        return routed ? ROUTE_FX : ROUTE_MIXED;
    if (!routed) {
        /* Relaxed: a count of first glibc waits, for the statistics only. */
        if (__builtin_expect(__atomic_load_n(&stats_on, __ATOMIC_RELAXED), 0) &&
            __atomic_load_n(&c->__data.__wseq.__value64, __ATOMIC_RELAXED) == 0)
            stats_count(S_COND_BIND, FORWARDED);
        return ROUTE_GLIBC;
    }
    return cond_bind(c, w);
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    uint32_t w;
    switch (cond_route(c, m, &w)) {
    case ROUTE_FX:
        COUNT(S_COND_WAIT, ROUTED);
        return fx_cond_wait(cond_fx(c), mutex_fx(m));
    case ROUTE_GLIBC:
        COUNT(S_COND_WAIT, FORWARDED);
        return ((cond_wait_fn)real(R_COND_WAIT))(c, m);
    default:
        return EINVAL;
    }
}

/* A routed timed wait, with glibc's checks in glibc's order
 * (nptl/pthread_cond_wait.c of 2.36): tv_nsec, then the clock, then the wait
 * (which releases and re-acquires the mutex even when the time has passed). */
static int cond_timed(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
                      const struct timespec *abs)
{
    if (abs->tv_nsec < 0 || abs->tv_nsec > 999999999L)
        return EINVAL;
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
        return EINVAL;
    struct timespec deadline;
    if (fx_deadline_from(clock, abs, &deadline) != 0)
        return EINVAL;
    return fx_cond_timedwait(cond_fx(c), mutex_fx(m), &deadline);
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abs)
{
    uint32_t w;
    switch (cond_route(c, m, &w)) {
    case ROUTE_FX:
        COUNT(S_COND_WAIT, ROUTED);
        /* The clock of the cond's attribute, kept in the bound __wrefs. */
        return cond_timed(c, m, (w & COND_CLOCK_MONOTONIC) ? CLOCK_MONOTONIC : CLOCK_REALTIME,
                          abs);
    case ROUTE_GLIBC:
        COUNT(S_COND_WAIT, FORWARDED);
        return ((cond_timed_fn)real(R_COND_TIMEDWAIT))(c, m, abs);
    default:
        return EINVAL;
    }
}

int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
                           const struct timespec *abs)
{
    uint32_t w;
    switch (cond_route(c, m, &w)) {
    case ROUTE_FX:
        COUNT(S_COND_WAIT, ROUTED);
        return cond_timed(c, m, clock, abs);
    case ROUTE_GLIBC:
        COUNT(S_COND_WAIT, FORWARDED);
        return ((cond_clock_fn)real(R_COND_CLOCKWAIT))(c, m, clock, abs);
    default:
        return EINVAL;
    }
}

FXP_COMPAT(pthread_cond_clockwait, fxp_cond_clockwait_compat, "GLIBC_2.30");

int pthread_cond_signal(pthread_cond_t *c)
{
    /* Acquire: pairs with cond_bind's release. */
    uint32_t w = __atomic_load_n(cond_wrefs(c), __ATOMIC_ACQUIRE);
    if (cond_bound(w)) {
        COUNT(S_COND_WAKE, ROUTED);
        return fx_cond_signal(cond_fx(c));
    }
    COUNT(S_COND_WAKE, FORWARDED);
    /* glibc's own first test, done here: with no glibc waiter it returns 0
     * without a write, and a cond being bound at this moment is never
     * handed to glibc. */
    if ((w >> 3) == 0)
        return 0;
    return ((cond_fn)real(R_COND_SIGNAL))(c);
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
    /* Acquire: pairs with cond_bind's release. */
    uint32_t w = __atomic_load_n(cond_wrefs(c), __ATOMIC_ACQUIRE);
    if (cond_bound(w)) {
        COUNT(S_COND_WAKE, ROUTED);
        return fx_cond_broadcast(cond_fx(c));
    }
    COUNT(S_COND_WAKE, FORWARDED);
    if ((w >> 3) == 0) /* as in pthread_cond_signal */
        return 0;
    return ((cond_fn)real(R_COND_BROADCAST))(c);
}

/* glibc's destroy waits for the waiters a signal or broadcast released and
 * that have not yet returned, so that the program may then reuse or clobber
 * the memory (POSIX allows destroying a cond nobody is blocked on). An
 * fx_cond waiter leaves its count (fx_cond's waiters slot) only after it has
 * re-acquired the mutex, so this waits for the count to reach zero, yielding
 * and then sleeping briefly, and gives up after DESTROY_WAIT_NS: a destroyer
 * that holds the waiters' mutex would otherwise wait forever (README.md). */
#define DESTROY_WAIT_NS 1000000000LL

static bool cond_drain(fx_cond *fc)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned i = 0;; i++) {
        /* Acquire: the leaving waiters' accesses before their decrement. */
        if (__atomic_load_n(&fc->waiters, __ATOMIC_ACQUIRE) == 0)
            return true;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - t0.tv_sec) * 1000000000LL + (now.tv_nsec - t0.tv_nsec) >= DESTROY_WAIT_NS)
            return false;
        if (i < 64) {
            sched_yield();
        } else {
            struct timespec pause = { 0, 50000 };
            nanosleep(&pause, NULL);
        }
    }
}

int pthread_cond_destroy(pthread_cond_t *c)
{
    /* Acquire: pairs with cond_bind's release. */
    uint32_t w = __atomic_load_n(cond_wrefs(c), __ATOMIC_ACQUIRE);
    if (!cond_bound(w))
        return ((cond_fn)real(R_COND_DESTROY))(c);
    /* Waiters still inside after the wait (blocked ones: undefined): leave
     * the cond bound for them. Otherwise the cond is unbound, as glibc
     * leaves a destroyed one (bit 2, its wake request), and the next
     * pthread_cond_init starts a new life. */
    fx_cond *fc = cond_fx(c);
    if (!cond_drain(fc))
        return 0;
    fx_cond_init(fc);
    /* Release: the zeroed fx_cond before the unbound word. */
    __atomic_store_n(cond_wrefs(c), (w & COND_ATTR_BITS) | 4u, __ATOMIC_RELEASE);
    return 0;
}
