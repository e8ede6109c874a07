/*
 * bench/preload/tests/test_preload.c - the interposer's behaviour.
 *
 * The same program runs three times (CMakeLists.txt next to it): without
 * LD_PRELOAD (glibc), under the routing interposer and under the
 * forward-only one, and asserts the same pthread semantics each time. Under
 * an interposer (FUTEXSYNC_PRELOAD_EXPECT says which, so a missing LD_PRELOAD
 * fails instead of passing as glibc) it also reads the statistics line
 * before and after each test's calls and asserts what was routed and what
 * was forwarded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fxtest.h"

enum { S_MUTEX_INIT, S_MUTEX_LOCK, S_COND_BIND, S_COND_WAIT, S_COND_WAKE, S_COUNT };
enum mode { MODE_NONE, MODE_ROUTING, MODE_FORWARD };

struct stats {
    unsigned long long r[S_COUNT], f[S_COUNT]; /* routed, forwarded */
};

static enum mode mode;
static int (*stats_fn)(char *, size_t);

/* Parses a statistics line; false if it is not one. */
static bool parse_line(const char *line, struct stats *s, char *mode_out, size_t mode_len)
{
    long pid;
    char m[32];
    int n = sscanf(line,
                   "futexsync-preload: pid %ld %31s (routed/forwarded): mutex-init %llu/%llu "
                   "mutex-lock %llu/%llu cond-bind %llu/%llu cond-wait %llu/%llu "
                   "cond-wake %llu/%llu",
                   &pid, m, &s->r[0], &s->f[0], &s->r[1], &s->f[1], &s->r[2], &s->f[2],
                   &s->r[3], &s->f[3], &s->r[4], &s->f[4]);
    if (n != 12)
        return false;
    if (mode_out != NULL)
        snprintf(mode_out, mode_len, "%s", m);
    return true;
}

static void stats_now(struct stats *s)
{
    memset(s, 0, sizeof *s);
    if (mode == MODE_NONE)
        return;
    char line[512];
    assert_true(stats_fn(line, sizeof line) > 0);
    assert_true(parse_line(line, s, NULL, 0));
}

/* What the calls between two snapshots did: `routed` calls of a default
 * kind object and `forwarded` calls of others. The forward-only interposer
 * forwards both; without an interposer nothing is counted. */
static void expect(const struct stats *a, const struct stats *b, int what,
                   unsigned long long routed, unsigned long long forwarded)
{
    if (mode == MODE_NONE)
        return;
    if (mode == MODE_FORWARD) {
        forwarded += routed;
        routed = 0;
    }
    assert_int_equal(b->r[what] - a->r[what], routed);
    assert_int_equal(b->f[what] - a->f[what], forwarded);
}

static int setup_mode(void **state)
{
    (void)state;
    const char *want = getenv("FUTEXSYNC_PRELOAD_EXPECT");
    stats_fn = (int (*)(char *, size_t))dlsym(RTLD_DEFAULT, "futexsync_preload_stats");
    if (want == NULL || strcmp(want, "none") == 0) {
        mode = MODE_NONE;
        return stats_fn == NULL ? 0 : -1;
    }
    if (stats_fn == NULL)
        return -1; /* the interposer is not loaded */
    char line[512], m[32];
    struct stats s;
    if (stats_fn(line, sizeof line) <= 0 || !parse_line(line, &s, m, sizeof m))
        return -1; /* counting off: FUTEXSYNC_PRELOAD_STATS is not set */
    if (strcmp(want, m) != 0)
        return -1;
    mode = strcmp(m, "routing") == 0 ? MODE_ROUTING : MODE_FORWARD;
    return 0;
}

static struct timespec ts_in(clockid_t clock, long long ns)
{
    struct timespec t;
    clock_gettime(clock, &t);
    long long v = (long long)t.tv_sec * 1000000000LL + t.tv_nsec + ns;
    t.tv_sec = (time_t)(v / 1000000000LL);
    t.tv_nsec = (long)(v % 1000000000LL);
    return t;
}

static void attr_init(pthread_mutexattr_t *a, int type)
{
    assert_int_equal(pthread_mutexattr_init(a), 0);
    assert_int_equal(pthread_mutexattr_settype(a, type), 0);
}

/* --- mutual exclusion ------------------------------------------------------ */

#define EXCL_THREADS 8
#define EXCL_ITERS 20000

struct excl {
    pthread_mutex_t *m;
    pthread_barrier_t *start;
    long counter;
    int errors;
};

static void *excl_worker(void *arg)
{
    struct excl *e = arg;
    pthread_barrier_wait(e->start);
    for (int i = 0; i < EXCL_ITERS; i++) {
        if (pthread_mutex_lock(e->m) != 0)
            __atomic_fetch_add(&e->errors, 1, __ATOMIC_RELAXED);
        /* A read and a later write: two threads inside lose increments. */
        long v = __atomic_load_n(&e->counter, __ATOMIC_RELAXED);
        __atomic_store_n(&e->counter, v + 1, __ATOMIC_RELAXED);
        if (pthread_mutex_unlock(e->m) != 0)
            __atomic_fetch_add(&e->errors, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void run_exclusion(pthread_mutex_t *m)
{
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, EXCL_THREADS);
    struct excl e = { .m = m, .start = &start };
    pthread_t t[EXCL_THREADS];
    for (int i = 0; i < EXCL_THREADS; i++)
        t[i] = fxt_thread(excl_worker, &e);
    for (int i = 0; i < EXCL_THREADS; i++)
        fxt_join(t[i]);
    pthread_barrier_destroy(&start);
    assert_int_equal(e.errors, 0);
    assert_int_equal(e.counter, (long)EXCL_THREADS * EXCL_ITERS);
}

static void default_mutexes_exclude_under_eight_threads(void **state)
{
    (void)state;
    static pthread_mutex_t stat_m = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_t null_attr, def_attr, normal_attr;
    pthread_mutexattr_t a, n;
    struct stats s0, s1;
    stats_now(&s0);
    assert_int_equal(pthread_mutex_init(&null_attr, NULL), 0);
    assert_int_equal(pthread_mutexattr_init(&a), 0);
    assert_int_equal(pthread_mutex_init(&def_attr, &a), 0);
    attr_init(&n, PTHREAD_MUTEX_NORMAL);
    assert_int_equal(pthread_mutex_init(&normal_attr, &n), 0);
    run_exclusion(&stat_m);
    run_exclusion(&null_attr);
    run_exclusion(&def_attr);
    run_exclusion(&normal_attr);
    stats_now(&s1);
    expect(&s0, &s1, S_MUTEX_INIT, 3, 0);
    expect(&s0, &s1, S_MUTEX_LOCK, 4ull * EXCL_THREADS * EXCL_ITERS, 0);
    assert_int_equal(pthread_mutex_destroy(&null_attr), 0);
    assert_int_equal(pthread_mutex_destroy(&def_attr), 0);
    assert_int_equal(pthread_mutex_destroy(&normal_attr), 0);
}

static void other_kinds_exclude_and_are_forwarded(void **state)
{
    (void)state;
    static const int kinds[] = { PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_RECURSIVE,
                                 PTHREAD_MUTEX_ADAPTIVE_NP };
    struct stats s0, s1;
    stats_now(&s0);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        pthread_mutexattr_t a;
        pthread_mutex_t m;
        attr_init(&a, kinds[k]);
        assert_int_equal(pthread_mutex_init(&m, &a), 0);
        run_exclusion(&m);
        assert_int_equal(pthread_mutex_destroy(&m), 0);
    }
    stats_now(&s1);
    expect(&s0, &s1, S_MUTEX_INIT, 0, 3);
    expect(&s0, &s1, S_MUTEX_LOCK, 0, 3ull * EXCL_THREADS * EXCL_ITERS);
}

/* --- single calls ------------------------------------------------------------ */

static void default_trylock_of_held_mutex_is_ebusy(void **state)
{
    (void)state;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    struct stats s0, s1;
    stats_now(&s0);
    assert_int_equal(pthread_mutex_trylock(&m), 0);
    assert_int_equal(pthread_mutex_trylock(&m), EBUSY);
    assert_int_equal(pthread_mutex_destroy(&m), EBUSY);
    assert_int_equal(pthread_mutex_unlock(&m), 0);
    assert_int_equal(pthread_mutex_trylock(&m), 0);
    assert_int_equal(pthread_mutex_unlock(&m), 0);
    stats_now(&s1);
    expect(&s0, &s1, S_MUTEX_LOCK, 3, 0);
    assert_int_equal(pthread_mutex_destroy(&m), 0);
}

static void errorcheck_relock_is_edeadlk_and_forwarded(void **state)
{
    (void)state;
    pthread_mutexattr_t a;
    pthread_mutex_t m;
    attr_init(&a, PTHREAD_MUTEX_ERRORCHECK);
    struct stats s0, s1;
    stats_now(&s0);
    assert_int_equal(pthread_mutex_init(&m, &a), 0);
    assert_int_equal(pthread_mutex_lock(&m), 0);
    assert_int_equal(pthread_mutex_lock(&m), EDEADLK);
    assert_int_equal(pthread_mutex_trylock(&m), EBUSY);
    struct timespec past = ts_in(CLOCK_REALTIME, -1000000000LL);
    assert_int_equal(pthread_mutex_timedlock(&m, &past), EDEADLK);
    assert_int_equal(pthread_mutex_unlock(&m), 0);
    assert_int_equal(pthread_mutex_unlock(&m), EPERM);
    stats_now(&s1);
    expect(&s0, &s1, S_MUTEX_INIT, 0, 1);
    expect(&s0, &s1, S_MUTEX_LOCK, 0, 4);
    assert_int_equal(pthread_mutex_destroy(&m), 0);
}

static void *trylock_result(void *arg)
{
    return (void *)(intptr_t)pthread_mutex_trylock(arg);
}

static void recursive_mutex_nests_and_is_forwarded(void **state)
{
    (void)state;
    static pthread_mutex_t st = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    pthread_mutexattr_t a;
    pthread_mutex_t m;
    attr_init(&a, PTHREAD_MUTEX_RECURSIVE);
    assert_int_equal(pthread_mutex_init(&m, &a), 0);
    pthread_mutex_t *both[2] = { &m, &st };
    struct stats s0, s1;
    stats_now(&s0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_mutex_lock(both[i]), 0);
        assert_int_equal(pthread_mutex_lock(both[i]), 0);
        assert_int_equal(pthread_mutex_trylock(both[i]), 0);
        assert_int_equal((intptr_t)fxt_join(fxt_thread(trylock_result, both[i])), EBUSY);
        for (int d = 0; d < 3; d++)
            assert_int_equal(pthread_mutex_unlock(both[i]), 0);
        assert_int_equal(pthread_mutex_unlock(both[i]), EPERM);
    }
    stats_now(&s1);
    expect(&s0, &s1, S_MUTEX_LOCK, 0, 8);
    assert_int_equal(pthread_mutex_destroy(&m), 0);
}

static void *lock_and_exit(void *arg)
{
    return (void *)(intptr_t)pthread_mutex_lock(arg);
}

static void robust_mutex_of_dead_owner_is_eownerdead(void **state)
{
    (void)state;
    pthread_mutexattr_t a;
    pthread_mutex_t m;
    assert_int_equal(pthread_mutexattr_init(&a), 0);
    assert_int_equal(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST), 0);
    struct stats s0, s1;
    stats_now(&s0);
    assert_int_equal(pthread_mutex_init(&m, &a), 0);
    assert_int_equal((intptr_t)fxt_join(fxt_thread(lock_and_exit, &m)), 0);
    assert_int_equal(pthread_mutex_lock(&m), EOWNERDEAD);
    assert_int_equal(pthread_mutex_consistent(&m), 0);
    assert_int_equal(pthread_mutex_unlock(&m), 0);
    assert_int_equal(pthread_mutex_lock(&m), 0);
    assert_int_equal(pthread_mutex_unlock(&m), 0);
    stats_now(&s1);
    expect(&s0, &s1, S_MUTEX_INIT, 0, 1);
    expect(&s0, &s1, S_MUTEX_LOCK, 0, 3);
    assert_int_equal(pthread_mutex_destroy(&m), 0);
}

static void pshared_and_pi_mutexes_are_forwarded(void **state)
{
    (void)state;
    pthread_mutexattr_t ps, pi;
    assert_int_equal(pthread_mutexattr_init(&ps), 0);
    assert_int_equal(pthread_mutexattr_setpshared(&ps, PTHREAD_PROCESS_SHARED), 0);
    assert_int_equal(pthread_mutexattr_init(&pi), 0);
    assert_int_equal(pthread_mutexattr_setprotocol(&pi, PTHREAD_PRIO_INHERIT), 0);
    pthread_mutex_t *shared = fxt_shared_alloc(sizeof(pthread_mutex_t));
    pthread_mutex_t m;
    struct stats s0, s1;
    stats_now(&s0);
    assert_int_equal(pthread_mutex_init(shared, &ps), 0);
    assert_int_equal(pthread_mutex_init(&m, &pi), 0);
    assert_int_equal(pthread_mutex_lock(shared), 0);
    assert_int_equal(pthread_mutex_trylock(shared), EBUSY);
    assert_int_equal(pthread_mutex_unlock(shared), 0);
    int r = pthread_mutex_lock(&m); /* PI needs the kernel's PI futexes */
    assert_true(r == 0 || r == ENOTSUP);
    if (r == 0) {
        assert_int_equal((intptr_t)fxt_join(fxt_thread(trylock_result, &m)), EBUSY);
        assert_int_equal(pthread_mutex_unlock(&m), 0);
    }
    stats_now(&s1);
    expect(&s0, &s1, S_MUTEX_INIT, 0, 2);
    expect(&s0, &s1, S_MUTEX_LOCK, 0, r == 0 ? 4 : 3);
    assert_int_equal(pthread_mutex_destroy(&m), 0);
    assert_int_equal(pthread_mutex_destroy(shared), 0);
    fxt_shared_free(shared, sizeof(pthread_mutex_t));
}

/* --- deadlines ----------------------------------------------------------------- */

static void check_timed_errors(pthread_mutex_t *m)
{
    struct timespec past_rt = ts_in(CLOCK_REALTIME, -1000000LL);
    struct timespec past_mono = ts_in(CLOCK_MONOTONIC, -1000000LL);
    struct timespec negative = { .tv_sec = -1, .tv_nsec = 0 };
    struct timespec bad = ts_in(CLOCK_REALTIME, 1000000000LL);
    bad.tv_nsec = 1000000000L;
    struct timespec bad_mono = ts_in(CLOCK_MONOTONIC, 1000000000LL);
    bad_mono.tv_nsec = -1;
    /* Free: the deadline is not looked at, except a bad clock. */
    assert_int_equal(pthread_mutex_timedlock(m, &bad), 0);
    assert_int_equal(pthread_mutex_unlock(m), 0);
    assert_int_equal(pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &past_mono), 0);
    assert_int_equal(pthread_mutex_unlock(m), 0);
    assert_int_equal(pthread_mutex_clocklock(m, CLOCK_PROCESS_CPUTIME_ID, &past_mono), EINVAL);
    /* Held (by this thread: a default mutex just waits). */
    assert_int_equal(pthread_mutex_lock(m), 0);
    assert_int_equal(pthread_mutex_timedlock(m, &past_rt), ETIMEDOUT);
    assert_int_equal(pthread_mutex_timedlock(m, &negative), ETIMEDOUT);
    assert_int_equal(pthread_mutex_timedlock(m, &bad), EINVAL);
    assert_int_equal(pthread_mutex_clocklock(m, CLOCK_REALTIME, &past_rt), ETIMEDOUT);
    assert_int_equal(pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &past_mono), ETIMEDOUT);
    assert_int_equal(pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &bad_mono), EINVAL);
    assert_int_equal(pthread_mutex_clocklock(m, CLOCK_PROCESS_CPUTIME_ID, &past_mono), EINVAL);
    assert_int_equal(pthread_mutex_unlock(m), 0);
}

static void timed_mutex_locks_give_glibc_errors(void **state)
{
    (void)state;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    struct stats s0, s1;
    stats_now(&s0);
    check_timed_errors(&m);
    stats_now(&s1);
    expect(&s0, &s1, S_MUTEX_LOCK, 11, 0);
}

static void timed_mutex_lock_acquires_when_released(void **state)
{
    (void)state;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    assert_int_equal(pthread_mutex_lock(&m), 0);
    pthread_t t = fxt_thread(trylock_result, &m);
    assert_int_equal((intptr_t)fxt_join(t), EBUSY);
    assert_int_equal(pthread_mutex_unlock(&m), 0);
    struct timespec later = ts_in(CLOCK_REALTIME, 60000000000LL);
    assert_int_equal(pthread_mutex_timedlock(&m, &later), 0);
    assert_int_equal(pthread_mutex_unlock(&m), 0);
}

/* --- condition variables ---------------------------------------------------- */

#define PC_THREADS 4
#define PC_ITEMS 5000

struct queue {
    pthread_mutex_t *m;
    pthread_cond_t *nonempty, *nonfull;
    int items, produced, consumed, waits;
    long sum;
};

static void *producer(void *arg)
{
    struct queue *q = arg;
    for (int i = 1; i <= PC_ITEMS; i++) {
        pthread_mutex_lock(q->m);
        while (q->items == 4) {
            pthread_cond_wait(q->nonfull, q->m);
            q->waits++;
        }
        q->items++;
        q->produced++;
        pthread_cond_signal(q->nonempty);
        pthread_mutex_unlock(q->m);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    struct queue *q = arg;
    for (int i = 0; i < PC_ITEMS; i++) {
        pthread_mutex_lock(q->m);
        while (q->items == 0) {
            pthread_cond_wait(q->nonempty, q->m);
            q->waits++;
        }
        q->items--;
        q->consumed++;
        pthread_cond_signal(q->nonfull);
        pthread_mutex_unlock(q->m);
    }
    return NULL;
}

/* Four producers and four consumers through a queue of 4: every item is
 * consumed (no lost wake-up: a lost one hangs the test into its TIMEOUT). */
static void run_queue(pthread_mutex_t *m, pthread_cond_t *ne, pthread_cond_t *nf, int *waits)
{
    struct queue q = { .m = m, .nonempty = ne, .nonfull = nf };
    pthread_t t[2 * PC_THREADS];
    for (int i = 0; i < PC_THREADS; i++) {
        t[2 * i] = fxt_thread(producer, &q);
        t[2 * i + 1] = fxt_thread(consumer, &q);
    }
    for (int i = 0; i < 2 * PC_THREADS; i++)
        fxt_join(t[i]);
    assert_int_equal(q.produced, PC_THREADS * PC_ITEMS);
    assert_int_equal(q.consumed, PC_THREADS * PC_ITEMS);
    assert_int_equal(q.items, 0);
    *waits = q.waits;
}

static void default_cond_wakes_producers_and_consumers(void **state)
{
    (void)state;
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    static pthread_cond_t ne = PTHREAD_COND_INITIALIZER;
    pthread_cond_t nf;
    assert_int_equal(pthread_cond_init(&nf, NULL), 0);
    struct stats s0, s1;
    int waits;
    stats_now(&s0);
    run_queue(&m, &ne, &nf, &waits);
    stats_now(&s1);
    expect(&s0, &s1, S_COND_WAIT, (unsigned long long)waits, 0);
    if (mode == MODE_ROUTING) {
        /* A signal before a cond's first wait finds it unbound: glibc's
         * answer (nobody waits, 0) is given as forwarded. */
        assert_int_equal(s1.r[S_COND_WAKE] - s0.r[S_COND_WAKE] + s1.f[S_COND_WAKE] -
                             s0.f[S_COND_WAKE],
                         2ull * PC_THREADS * PC_ITEMS);
        assert_true(s1.r[S_COND_BIND] - s0.r[S_COND_BIND] <= 2); /* 0 if nobody waited */
        if (waits > 0)
            assert_true(s1.r[S_COND_WAKE] > s0.r[S_COND_WAKE]);
    } else {
        expect(&s0, &s1, S_COND_WAKE, 2ull * PC_THREADS * PC_ITEMS, 0);
    }
    assert_int_equal(pthread_cond_destroy(&nf), 0);
}

static void errorcheck_cond_is_forwarded(void **state)
{
    (void)state;
    pthread_mutexattr_t a;
    pthread_mutex_t m;
    attr_init(&a, PTHREAD_MUTEX_ERRORCHECK);
    assert_int_equal(pthread_mutex_init(&m, &a), 0);
    pthread_cond_t ne = PTHREAD_COND_INITIALIZER, nf = PTHREAD_COND_INITIALIZER;
    struct stats s0, s1;
    int waits;
    stats_now(&s0);
    run_queue(&m, &ne, &nf, &waits);
    stats_now(&s1);
    expect(&s0, &s1, S_COND_WAKE, 0, 2ull * PC_THREADS * PC_ITEMS);
    expect(&s0, &s1, S_COND_WAIT, 0, (unsigned long long)waits);
    if (mode != MODE_NONE)
        assert_int_equal(s1.r[S_COND_BIND] - s0.r[S_COND_BIND], 0);
    assert_int_equal(pthread_mutex_destroy(&m), 0);
}

struct waiter {
    pthread_mutex_t *m;
    pthread_cond_t *c;
    pthread_barrier_t *ready;
    bool timed; /* pthread_cond_timedwait, a minute ahead */
    int go, woken, errors;
};

static void *wait_for_go(void *arg)
{
    struct waiter *w = arg;
    pthread_mutex_lock(w->m);
    pthread_barrier_wait(w->ready);
    struct timespec later = ts_in(CLOCK_REALTIME, 60000000000LL);
    while (!w->go)
        if ((w->timed ? pthread_cond_timedwait(w->c, w->m, &later) : pthread_cond_wait(w->c, w->m)) != 0)
            w->errors++;
    w->woken++;
    pthread_mutex_unlock(w->m);
    return NULL;
}

/* Waiters that hold the mutex when they pass the barrier are in their wait
 * once the main thread gets the mutex: the broadcast wakes them all. */
static void broadcast_wakes_every_waiter(pthread_mutex_t *m, pthread_cond_t *c, bool timed)
{
    enum { N = 6 };
    pthread_barrier_t ready;
    pthread_barrier_init(&ready, NULL, 2); /* waiter i and the main thread */
    struct waiter w = { .m = m, .c = c, .ready = &ready, .timed = timed };
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        t[i] = fxt_thread(wait_for_go, &w);
        pthread_barrier_wait(&ready); /* waiter i holds m, its wait comes next */
    }
    assert_int_equal(pthread_mutex_lock(m), 0);
    w.go = 1;
    assert_int_equal(pthread_cond_broadcast(c), 0);
    assert_int_equal(pthread_mutex_unlock(m), 0);
    for (int i = 0; i < N; i++)
        fxt_join(t[i]);
    assert_int_equal(w.woken, N);
    assert_int_equal(w.errors, 0);
    pthread_barrier_destroy(&ready);
}

static void default_cond_broadcast_wakes_all(void **state)
{
    (void)state;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    struct stats s0, s1;
    stats_now(&s0);
    broadcast_wakes_every_waiter(&m, &c, false);
    stats_now(&s1);
    expect(&s0, &s1, S_COND_BIND, 1, 0);
    expect(&s0, &s1, S_COND_WAKE, 1, 0);
    assert_int_equal(pthread_cond_destroy(&c), 0);
}

static void pshared_cond_and_mutex_are_forwarded(void **state)
{
    (void)state;
    pthread_mutexattr_t ma;
    pthread_condattr_t ca;
    assert_int_equal(pthread_mutexattr_init(&ma), 0);
    assert_int_equal(pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED), 0);
    assert_int_equal(pthread_condattr_init(&ca), 0);
    assert_int_equal(pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED), 0);
    pthread_mutex_t m;
    pthread_cond_t c;
    assert_int_equal(pthread_mutex_init(&m, &ma), 0);
    assert_int_equal(pthread_cond_init(&c, &ca), 0);
    struct stats s0, s1;
    stats_now(&s0);
    broadcast_wakes_every_waiter(&m, &c, false);
    struct timespec past = ts_in(CLOCK_REALTIME, -1000000LL);
    assert_int_equal(pthread_mutex_lock(&m), 0);
    assert_int_equal(pthread_cond_timedwait(&c, &m, &past), ETIMEDOUT);
    assert_int_equal(pthread_mutex_unlock(&m), 0);
    stats_now(&s1);
    expect(&s0, &s1, S_COND_WAKE, 0, 1);
    if (mode != MODE_NONE) {
        assert_int_equal(s1.r[S_COND_BIND] - s0.r[S_COND_BIND], 0);
        assert_int_equal(s1.f[S_COND_BIND] - s0.f[S_COND_BIND], 1);
        assert_int_equal(s1.r[S_COND_WAIT] - s0.r[S_COND_WAIT], 0);
        assert_true(s1.f[S_COND_WAIT] - s0.f[S_COND_WAIT] >= 7);
    }
    assert_int_equal(pthread_cond_destroy(&c), 0);
    assert_int_equal(pthread_mutex_destroy(&m), 0);
}

static void check_cond_timed_errors(pthread_mutex_t *m, pthread_cond_t *c, clockid_t attr_clock)
{
    struct timespec past = ts_in(attr_clock, -1000000LL);
    struct timespec past_rt = ts_in(CLOCK_REALTIME, -1000000LL);
    struct timespec past_mono = ts_in(CLOCK_MONOTONIC, -1000000LL);
    struct timespec negative = { .tv_sec = -1, .tv_nsec = 0 };
    struct timespec bad = ts_in(attr_clock, 1000000000LL);
    bad.tv_nsec = 1000000000L;
    assert_int_equal(pthread_mutex_lock(m), 0);
    assert_int_equal(pthread_cond_timedwait(c, m, &past), ETIMEDOUT);
    assert_int_equal(pthread_cond_timedwait(c, m, &negative), ETIMEDOUT);
    assert_int_equal(pthread_cond_timedwait(c, m, &bad), EINVAL);
    assert_int_equal(pthread_cond_clockwait(c, m, CLOCK_REALTIME, &past_rt), ETIMEDOUT);
    assert_int_equal(pthread_cond_clockwait(c, m, CLOCK_MONOTONIC, &past_mono), ETIMEDOUT);
    assert_int_equal(pthread_cond_clockwait(c, m, CLOCK_MONOTONIC, &bad), EINVAL);
    assert_int_equal(pthread_cond_clockwait(c, m, CLOCK_PROCESS_CPUTIME_ID, &past_mono), EINVAL);
    /* Every error left the mutex held by this thread. */
    assert_int_equal((intptr_t)fxt_join(fxt_thread(trylock_result, m)), EBUSY);
    assert_int_equal(pthread_mutex_unlock(m), 0);
}

static void timed_cond_waits_give_glibc_errors(void **state)
{
    (void)state;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    pthread_condattr_t a;
    pthread_cond_t mono;
    assert_int_equal(pthread_condattr_init(&a), 0);
    assert_int_equal(pthread_condattr_setclock(&a, CLOCK_MONOTONIC), 0);
    assert_int_equal(pthread_cond_init(&mono, &a), 0);
    struct stats s0, s1;
    stats_now(&s0);
    check_cond_timed_errors(&m, &c, CLOCK_REALTIME);
    check_cond_timed_errors(&m, &mono, CLOCK_MONOTONIC);
    stats_now(&s1);
    expect(&s0, &s1, S_COND_WAIT, 14, 0);
    expect(&s0, &s1, S_COND_BIND, 2, 0);
    assert_int_equal(pthread_cond_destroy(&mono), 0);
}

static void default_cond_timedwait_wakes_on_broadcast(void **state)
{
    (void)state;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    struct stats s0, s1;
    stats_now(&s0);
    broadcast_wakes_every_waiter(&m, &c, true);
    stats_now(&s1);
    expect(&s0, &s1, S_COND_BIND, 1, 0);
    expect(&s0, &s1, S_COND_WAKE, 1, 0);
    assert_int_equal(pthread_cond_destroy(&c), 0);
}

/* POSIX lets a cond be destroyed once nobody is blocked on it, even while
 * the waiters a broadcast released have not yet returned, and its memory
 * reused (glibc's tst-cond20 clobbers it): every wait must still return 0. */
#define DESTROY_WAITERS 4
#define DESTROY_ROUNDS 200

struct destroy_round {
    pthread_mutex_t m;
    pthread_cond_t c;
    pthread_barrier_t b;
    int count, errors;
};

static void *destroy_waiter(void *arg)
{
    struct destroy_round *d = arg;
    for (int i = 0; i < DESTROY_ROUNDS; i++) {
        pthread_mutex_lock(&d->m);
        d->count++;
        if (pthread_cond_wait(&d->c, &d->m) != 0)
            d->errors++;
        pthread_mutex_unlock(&d->m);
        pthread_barrier_wait(&d->b);
        pthread_barrier_wait(&d->b);
    }
    return NULL;
}

static void cond_destroyed_after_broadcast_lets_woken_waiters_return(void **state)
{
    (void)state;
    static struct destroy_round d = { .m = PTHREAD_MUTEX_INITIALIZER,
                                      .c = PTHREAD_COND_INITIALIZER };
    pthread_barrier_init(&d.b, NULL, DESTROY_WAITERS + 1);
    pthread_t t[DESTROY_WAITERS];
    for (int i = 0; i < DESTROY_WAITERS; i++)
        t[i] = fxt_thread(destroy_waiter, &d);
    for (int i = 0; i < DESTROY_ROUNDS; i++) {
        /* All waiters counted under the mutex are in their wait once the
         * count is complete and we hold the mutex. */
        for (;;) {
            pthread_mutex_lock(&d.m);
            if (d.count == DESTROY_WAITERS)
                break;
            pthread_mutex_unlock(&d.m);
            sched_yield();
        }
        assert_int_equal(pthread_cond_broadcast(&d.c), 0);
        pthread_mutex_unlock(&d.m);
        assert_int_equal(pthread_cond_destroy(&d.c), 0);
        memset(&d.c, i & 0xff, sizeof d.c);
        pthread_barrier_wait(&d.b); /* every waiter has returned */
        d.count = 0;
        assert_int_equal(pthread_cond_init(&d.c, NULL), 0);
        pthread_barrier_wait(&d.b);
    }
    for (int i = 0; i < DESTROY_WAITERS; i++)
        fxt_join(t[i]);
    assert_int_equal(d.errors, 0);
    pthread_barrier_destroy(&d.b);
}

/* --- binding rules and versions (the interposer's own) ------------------------ */

static void routed_cond_refuses_a_glibc_mutex(void **state)
{
    (void)state;
    if (mode != MODE_ROUTING)
        skip(); /* with glibc alone, one cond with two mutexes is undefined */
    pthread_mutex_t routed = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutexattr_t a;
    pthread_mutex_t ec;
    attr_init(&a, PTHREAD_MUTEX_ERRORCHECK);
    assert_int_equal(pthread_mutex_init(&ec, &a), 0);
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    struct timespec past = ts_in(CLOCK_REALTIME, -1000000LL);
    assert_int_equal(pthread_mutex_lock(&routed), 0);
    assert_int_equal(pthread_cond_timedwait(&c, &routed, &past), ETIMEDOUT);
    assert_int_equal(pthread_mutex_unlock(&routed), 0);
    assert_int_equal(pthread_mutex_lock(&ec), 0);
    assert_int_equal(pthread_cond_timedwait(&c, &ec, &past), EINVAL);
    assert_int_equal(pthread_mutex_unlock(&ec), 0);
    /* destroy + init: a new life, bound again by its first wait. */
    assert_int_equal(pthread_cond_destroy(&c), 0);
    assert_int_equal(pthread_cond_init(&c, NULL), 0);
    assert_int_equal(pthread_mutex_lock(&ec), 0);
    assert_int_equal(pthread_cond_timedwait(&c, &ec, &past), ETIMEDOUT);
    assert_int_equal(pthread_mutex_unlock(&ec), 0);
    assert_int_equal(pthread_mutex_lock(&routed), 0);
    assert_int_equal(pthread_cond_timedwait(&c, &routed, &past), EINVAL);
    assert_int_equal(pthread_mutex_unlock(&routed), 0);
    assert_int_equal(pthread_mutex_destroy(&ec), 0);
}

static const char *object_of(void *fn)
{
    Dl_info info;
    if (fn == NULL || dladdr(fn, &info) == 0 || info.dli_fname == NULL)
        return "";
    return info.dli_fname;
}

static void versions_bind_as_glibc_defaults(void **state)
{
    (void)state;
    const char *ours = mode == MODE_NONE ? "libc.so" : "libfutexsync_preload";
    static const char *const defaults[][2] = {
        { "pthread_mutex_lock", "GLIBC_2.2.5" },  { "pthread_mutex_trylock", "GLIBC_2.34" },
        { "pthread_mutex_trylock", "GLIBC_2.2.5" }, { "pthread_mutex_timedlock", "GLIBC_2.2.5" },
        { "pthread_mutex_clocklock", "GLIBC_2.30" }, { "pthread_cond_wait", "GLIBC_2.3.2" },
        { "pthread_cond_signal", "GLIBC_2.3.2" }, { "pthread_cond_clockwait", "GLIBC_2.34" },
    };
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        assert_non_null(strstr(object_of(dlvsym(RTLD_DEFAULT, defaults[i][0], defaults[i][1])),
                               ours));
    /* The old (GLIBC_2.2.5) condition variables stay glibc's. */
    static const char *const old[] = { "pthread_cond_wait", "pthread_cond_signal",
                                       "pthread_cond_broadcast", "pthread_cond_timedwait" };
    for (size_t i = 0; i < sizeof old / sizeof old[0]; i++)
        assert_non_null(strstr(object_of(dlvsym(RTLD_DEFAULT, old[i], "GLIBC_2.2.5")), "libc.so"));
    /* What the program itself calls is the default version. */
    assert_ptr_equal((void *)dlvsym(RTLD_DEFAULT, "pthread_cond_wait", "GLIBC_2.3.2"),
                     (void *)dlsym(RTLD_DEFAULT, "pthread_cond_wait"));
}

/* --- the line at exit ---------------------------------------------------------- */

/* Run by the test below in a fresh process of this program. */
static int scenario(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_t m[5];
    for (int i = 0; i < 5; i++) {
        if (pthread_mutex_init(&m[i], i < 3 ? NULL : &a) != 0 || pthread_mutex_lock(&m[i]) != 0 ||
            pthread_mutex_unlock(&m[i]) != 0)
            return 3;
    }
    return 0;
}

static void exit_line_counts_what_the_program_did(void **state)
{
    (void)state;
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        close(fd[1]);
        setenv("FUTEXSYNC_PRELOAD_STATS", "1", 1);
        execl("/proc/self/exe", "test_preload", "--scenario", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char out[4096];
    size_t n = 0;
    ssize_t r;
    while (n < sizeof out - 1 && (r = read(fd[0], out + n, sizeof out - 1 - n)) > 0)
        n += (size_t)r;
    out[n] = '\0';
    close(fd[0]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char *line = strstr(out, "futexsync-preload:");
    if (mode == MODE_NONE) {
        assert_null(line);
        return;
    }
    assert_non_null(line);
    struct stats s, zero = { { 0 }, { 0 } };
    char m[32];
    assert_true(parse_line(line, &s, m, sizeof m));
    assert_string_equal(m, mode == MODE_ROUTING ? "routing" : "forward-only");
    expect(&zero, &s, S_MUTEX_INIT, 3, 2);
    expect(&zero, &s, S_MUTEX_LOCK, 3, 2);
    expect(&zero, &s, S_COND_WAIT, 0, 0);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--scenario") == 0)
        return scenario();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_mutexes_exclude_under_eight_threads),
        cmocka_unit_test(other_kinds_exclude_and_are_forwarded),
        cmocka_unit_test(default_trylock_of_held_mutex_is_ebusy),
        cmocka_unit_test(errorcheck_relock_is_edeadlk_and_forwarded),
        cmocka_unit_test(recursive_mutex_nests_and_is_forwarded),
        cmocka_unit_test(robust_mutex_of_dead_owner_is_eownerdead),
        cmocka_unit_test(pshared_and_pi_mutexes_are_forwarded),
        cmocka_unit_test(timed_mutex_locks_give_glibc_errors),
        cmocka_unit_test(timed_mutex_lock_acquires_when_released),
        cmocka_unit_test(default_cond_wakes_producers_and_consumers),
        cmocka_unit_test(errorcheck_cond_is_forwarded),
        cmocka_unit_test(default_cond_broadcast_wakes_all),
        cmocka_unit_test(pshared_cond_and_mutex_are_forwarded),
        cmocka_unit_test(timed_cond_waits_give_glibc_errors),
        cmocka_unit_test(default_cond_timedwait_wakes_on_broadcast),
        cmocka_unit_test(cond_destroyed_after_broadcast_lets_woken_waiters_return),
        cmocka_unit_test(routed_cond_refuses_a_glibc_mutex),
        cmocka_unit_test(versions_bind_as_glibc_defaults),
        cmocka_unit_test(exit_line_counts_what_the_program_did),
    };
    return cmocka_run_group_tests(tests, setup_mode, NULL);
}
