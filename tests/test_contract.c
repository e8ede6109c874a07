/*
 * tests/test_contract.c - the public contract, promise by promise.
 *
 * Every row of the table below is one promise of a public header (or of the
 * README's Conventions table, which every header refers to): a function, a
 * condition, and the value the header says it returns under that condition.
 * Each row names the sentence it checks (`promise`), so that a header and its
 * code cannot drift apart: when a header changes, the row quoting it changes
 * with it, and when the code changes, the row fails.
 *
 * How a row runs: in a forked child (so a crash or a hang is that row's
 * failure, not the binary's), with a hang detector (the parent kills the child
 * after HANG_MS and reports the row as hung). The child sets up the object,
 * then makes the one call under test through CALL(), which sets errno to a
 * sentinel just before the call and records the result and errno just after.
 * The parent then asserts, for every row:
 *   - the child returned normally (no crash, no hang, no failed post-check);
 *   - the call's result is the promised one, with its exact errno value;
 *   - errno still holds the sentinel (no futexsync call ever sets errno).
 * Rows of blocking calls that could hang when the code is wrong use deadlines
 * only where the promise is about a deadline; untimed calls run untimed, with
 * the hang detector as the limit.
 *
 * "No EINTR where none is promised": the storm rows make the blocking call in
 * a thread that receives a SIGUSR1 storm (handler without SA_RESTART, so every
 * system call it is in returns EINTR), wait until at least STORM_SIGNALS
 * handler runs happened while the call was blocked, then let it through; the
 * call must return its normal result. fx_futex_wait, the one call that
 * reports EINTR, has rows for that promise, with and without SA_RESTART.
 *
 * Adding a promise: write its run function (setup, then one CALL, then any
 * post-checks with CHECK) and add a ROW to `rows` with the header's words.
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <errno.h>
#include <fcntl.h>
#include <futexsync.h>
#include <futexsync/layout.h>
#include <futexsync/stats.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A value no function of libc or futexsync ever stores in errno. */
#define ERRNO_SENTINEL 0x5eed
/* The hang detector: a row's child that has not ended by then has hung. */
#define HANG_MS 20000
/* Signal handler runs a blocked call must absorb in a storm row. */
#define STORM_SIGNALS 100
/* -EINVAL, spelled so that a row's name can say it. */
#define NEG_EINVAL (-EINVAL)

/* Shared with the row's child --------------------------------------------- */

struct shared {
    /* The call under test: how often CALL ran, its result and errno after. */
    int32_t called, r, err;
    /* The line of a failed CHECK in the child (0: none). */
    int32_t line;
    /* A result computed by the child (a TID, an fd) instead of the row's. */
    int32_t want_set, want;
    /* Handshakes between the child's threads and its own children. */
    int32_t flag, flag2, tid;
    /* The objects: each at a 16-byte boundary, none overlapping. */
    _Alignas(16) fx_mutex m;
    _Alignas(16) fx_rmutex rm;
    _Alignas(16) fx_cond c;
    _Alignas(16) fx_counter k;
    _Alignas(16) fx_sem s;
    _Alignas(16) fx_rwlock l;
    _Alignas(16) fx_barrier b;
    _Alignas(16) fx_once once;
    _Alignas(16) int32_t word;
    /* Zeroed bytes for misaligned objects (raw + 1 .. raw + 63 stay mapped). */
    _Alignas(16) char raw[64];
};
static struct shared *S;

#define MISALIGNED ((void *)(S->raw + 1))

/* The call under test: errno set to the sentinel just before it, result and
 * errno recorded just after, in this thread. */
#define CALL(expr) (errno = ERRNO_SENTINEL, call_done((int32_t)(expr)))
static int32_t call_done(int32_t r)
{
    S->err = errno; /* first: nothing may run between the call and this */
    S->r = r;
    __atomic_add_fetch(&S->called, 1, __ATOMIC_SEQ_CST);
    return r;
}

/* A post-check in the child: on failure the row fails with this line. */
#define CHECK(cond)                     \
    do {                                \
        if (!(cond)) {                  \
            S->line = __LINE__;         \
            return 1;                   \
        }                               \
    } while (0)

/* The promised result is computed by the child (a TID, an fd). */
#define WANT(v) (S->want = (int32_t)(v), S->want_set = 1)

/* Deadlines. */
static struct timespec past(void) { return (struct timespec){.tv_sec = -1, .tv_nsec = 0}; }
static struct timespec far(void) { return fx_deadline_in(3600 * FX_NSEC_PER_SEC); }
static struct timespec bad_nsec(void)
{
    return (struct timespec){.tv_sec = 0, .tv_nsec = 1000000000L};
}

/* A TID that no thread has: a child's, after it exited and was reaped. */
static pid_t dead_tid(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    if (p > 0)
        waitpid(p, NULL, 0);
    return p;
}

/* The owner word of a dead owner the library judges by the liveness probe:
 * a dead TID | FX_RMUTEX_PROBED (an owner without a robust list; a plain TID
 * names an owner whose death the kernel reports, never judged by its TID). */
static int32_t dead_probed_owner(void) { return (int32_t)dead_tid() | FX_RMUTEX_PROBED; }

/* A live TID other than the caller's: the test runner's main thread. */
static pid_t live_other_tid(void) { return getppid(); }

/* The rows -------------------------------------------------------------------- */

struct storm_case;

struct row {
    const char *name;    /* the behaviour */
    const char *promise; /* the header and its sentence */
    int (*run)(const struct row *);
    int expect;          /* the promised result (unless the child says WANT) */
    int (*obj)(void *p); /* NULL / misaligned rows: the call on object p */
    const struct storm_case *storm; /* storm rows: the blocking call */
    int backend;         /* async rows: the waiter's back end */
};

#define ROW(n, p, fn, e) {.name = #n, .promise = p, .run = fn, .expect = e}
/* An async row, once with FX_ASYNC_AUTO and once with FX_ASYNC_THREAD. */
#define AROW(n, p, fn, e)                                                                 \
    {.name = #n, .promise = p, .run = fn, .expect = e, .backend = FX_ASYNC_AUTO},         \
        {.name = #n "_thread_backend", .promise = p, .run = fn, .expect = e,              \
         .backend = FX_ASYNC_THREAD}
/* A storm row: the blocking call of case sc must return e, never EINTR. */
#define SROW(n, p, sc, e) {.name = #n, .promise = p, .run = run_storm, .expect = e, .storm = &sc}

/* The NULL and misaligned rows of one entry point, the call wrapped as o_<fn>. */
static int run_null(const struct row *row)
{
    CALL(row->obj(NULL));
    return 0;
}
static int run_misaligned(const struct row *row)
{
    CALL(row->obj(MISALIGNED));
    return 0;
}
#define BADPTR(fn, e, p)                                                                  \
    {.name = #fn "_NULL_gives_" #e, .promise = p, .run = run_null, .expect = e,           \
     .obj = o_##fn},                                                                      \
        {.name = #fn "_misaligned_gives_" #e, .promise = p, .run = run_misaligned,        \
         .expect = e, .obj = o_##fn}
#define NULLPTR(fn, e, p)                                                                 \
    {.name = #fn "_NULL_gives_" #e, .promise = p, .run = run_null, .expect = e, .obj = o_##fn}

#define P_BAD "README Conventions: \"a NULL or misaligned object gives EINVAL\""

/* fx_async waiter shared by a row's calls (created by the child's setup). */
static fx_async *W;
static int make_waiter(int backend)
{
    return fx_async_create(&W, backend);
}

/* --- entry points on an object pointer ------------------------------------ */

static void noop(void *arg) { (void)arg; }
static void noop_status(void *arg, int status) { (void)arg, (void)status; }

static int o_mutex_lock(void *p) { return fx_mutex_lock(p); }
static int o_mutex_trylock(void *p) { return fx_mutex_trylock(p); }
static int o_mutex_timedlock(void *p) { return fx_mutex_timedlock(p, NULL); }
static int o_mutex_unlock(void *p) { return fx_mutex_unlock(p); }
static int o_mutex_init(void *p) { return fx_mutex_init(p); }
static int o_counter_add(void *p) { return fx_counter_add(p, 1); }
static int o_counter_load(void *p) { return fx_counter_load(p); }
static int o_counter_store(void *p) { return fx_counter_store(p, 1); }
static int o_counter_wait(void *p) { return fx_counter_wait(p, 0, NULL); }
static int o_counter_wait_ge(void *p) { return fx_counter_wait_ge(p, 0, NULL); }
static int o_counter_wait_le(void *p) { return fx_counter_wait_le(p, 0, NULL); }
static int o_counter_init(void *p) { return fx_counter_init(p, 1); }
static int o_rmutex_lock(void *p) { return fx_rmutex_lock(p); }
static int o_rmutex_trylock(void *p) { return fx_rmutex_trylock(p); }
static int o_rmutex_timedlock(void *p) { return fx_rmutex_timedlock(p, NULL); }
static int o_rmutex_unlock(void *p) { return fx_rmutex_unlock(p); }
static int o_rmutex_consistent(void *p) { return fx_rmutex_consistent(p); }
static int o_rmutex_recover(void *p) { return fx_rmutex_recover(p, 1); }
static int o_rmutex_owner(void *p) { return fx_rmutex_owner(p); }
static int o_rmutex_init(void *p) { return fx_rmutex_init(p); }
static int o_cond_wait(void *p) { return fx_cond_wait(p, &S->m); }
static int o_cond_timedwait(void *p) { return fx_cond_timedwait(p, &S->m, NULL); }
static int o_cond_wait_rmutex(void *p) { return fx_cond_wait_rmutex(p, &S->rm); }
static int o_cond_timedwait_rmutex(void *p) { return fx_cond_timedwait_rmutex(p, &S->rm, NULL); }
static int o_cond_wait_m(void *p) { return fx_cond_wait(&S->c, p); }
static int o_cond_timedwait_m(void *p) { return fx_cond_timedwait(&S->c, p, NULL); }
static int o_cond_wait_rmutex_m(void *p) { return fx_cond_wait_rmutex(&S->c, p); }
static int o_cond_timedwait_rmutex_m(void *p) { return fx_cond_timedwait_rmutex(&S->c, p, NULL); }
static int o_cond_signal(void *p) { return fx_cond_signal(p); }
static int o_cond_broadcast(void *p) { return fx_cond_broadcast(p); }
static int o_cond_init(void *p) { return fx_cond_init(p); }
static int o_sem_init(void *p) { return fx_sem_init(p, 0); }
static int o_sem_post(void *p) { return fx_sem_post(p); }
static int o_sem_wait(void *p) { return fx_sem_wait(p); }
static int o_sem_trywait(void *p) { return fx_sem_trywait(p); }
static int o_sem_timedwait(void *p) { return fx_sem_timedwait(p, NULL); }
static int o_sem_value(void *p) { return fx_sem_value(p); }
static int o_rwlock_rdlock(void *p) { return fx_rwlock_rdlock(p); }
static int o_rwlock_tryrdlock(void *p) { return fx_rwlock_tryrdlock(p); }
static int o_rwlock_timedrdlock(void *p) { return fx_rwlock_timedrdlock(p, NULL); }
static int o_rwlock_wrlock(void *p) { return fx_rwlock_wrlock(p); }
static int o_rwlock_trywrlock(void *p) { return fx_rwlock_trywrlock(p); }
static int o_rwlock_timedwrlock(void *p) { return fx_rwlock_timedwrlock(p, NULL); }
static int o_rwlock_unlock(void *p) { return fx_rwlock_unlock(p); }
static int o_rwlock_rdunlock(void *p) { return fx_rwlock_rdunlock(p); }
static int o_rwlock_wrunlock(void *p) { return fx_rwlock_wrunlock(p); }
static int o_rwlock_init(void *p) { return fx_rwlock_init(p); }
static int o_barrier_wait(void *p) { return fx_barrier_wait(p, 1); }
static int o_barrier_timedwait(void *p) { return fx_barrier_timedwait(p, 1, NULL); }
static int o_barrier_init(void *p) { return fx_barrier_init(p); }
static int o_once_call(void *p) { return fx_once_call(p, noop, NULL); }
static int o_futex_wait(void *p) { return fx_futex_wait(p, 0, NULL); }
static int o_futex_wake(void *p) { return fx_futex_wake(p, 1); }
/* The async arm calls on a bad object, with a waiter made by the row. */
static int o_async_futex_wait(void *p)
{
    return make_waiter(FX_ASYNC_AUTO) ? -1 : fx_async_futex_wait(W, p, 0, NULL);
}
static int o_async_mutex_lock(void *p)
{
    return make_waiter(FX_ASYNC_AUTO) ? -1 : fx_async_mutex_lock(W, p, NULL);
}
static int o_async_mutex_run(void *p)
{
    return make_waiter(FX_ASYNC_AUTO) ? -1 : fx_async_mutex_run(W, p, NULL, noop, NULL);
}
static int o_async_rmutex_lock(void *p)
{
    return make_waiter(FX_ASYNC_AUTO) ? -1 : fx_async_rmutex_lock(W, p, NULL);
}
static int o_async_rmutex_run(void *p)
{
    return make_waiter(FX_ASYNC_AUTO) ? -1 : fx_async_rmutex_run(W, p, NULL, noop_status, NULL);
}
static int o_async_counter_wait(void *p)
{
    return make_waiter(FX_ASYNC_AUTO) ? -1 : fx_async_counter_wait(W, p, 0, NULL);
}
/* The async calls on a NULL waiter (only the NULL row applies). */
static int o_async_create(void *p) { return fx_async_create(p, FX_ASYNC_AUTO); }
static int o_async_destroy(void *p) { return fx_async_destroy(p); }
static int o_async_fd(void *p) { return fx_async_fd(p); }
static int o_async_backend(void *p) { return fx_async_backend(p); }
static int o_async_complete(void *p) { return fx_async_complete(p); }
static int o_async_cancel(void *p) { return fx_async_cancel(p); }
static int o_async_futex_wait_w(void *p) { return fx_async_futex_wait(p, &S->word, 1, NULL); }
static int o_async_mutex_lock_w(void *p) { return fx_async_mutex_lock(p, &S->m, NULL); }
static int o_async_mutex_run_w(void *p) { return fx_async_mutex_run(p, &S->m, NULL, noop, NULL); }
static int o_async_rmutex_lock_w(void *p) { return fx_async_rmutex_lock(p, &S->rm, NULL); }
static int o_async_rmutex_run_w(void *p)
{
    return fx_async_rmutex_run(p, &S->rm, NULL, noop_status, NULL);
}
static int o_async_counter_wait_w(void *p) { return fx_async_counter_wait(p, &S->k, 0, NULL); }
/* stats: a NULL out / count. */
static int o_stats_read(void *p) { return fx_stats_read(&S->m, sizeof S->m, p); }
static int o_stats_list(void *p) { return fx_stats_list(NULL, 0, p); }

/* --- time.h, version.h, stats.h ---------------------------------------------- */

static int deadline_in_saturates(const struct row *row)
{
    (void)row;
    struct timespec d, now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    CALL((d = fx_deadline_in(INT64_MAX), 0));
    /* now + INT64_MAX ns, about 292 years, or the largest deadline where
     * time_t cannot hold it: never a wrapped, earlier one. */
    CHECK(d.tv_nsec >= 0 && d.tv_nsec <= 999999999L);
    CHECK((int64_t)d.tv_sec >= (int64_t)now.tv_sec + INT64_MAX / FX_NSEC_PER_SEC ||
          (int64_t)d.tv_sec == (int64_t)(sizeof(time_t) == 8 ? INT64_MAX : INT32_MAX));
    return 0;
}

static int deadline_in_negative_is_past(const struct row *row)
{
    (void)row;
    struct timespec d, now;
    CALL((d = fx_deadline_in(-FX_NSEC_PER_SEC), 0));
    clock_gettime(CLOCK_MONOTONIC, &now);
    CHECK(fxt_ts_ns(&d) < fxt_ts_ns(&now));
    CHECK(d.tv_nsec >= 0 && d.tv_nsec <= 999999999L);
    return 0;
}

static int version_is_macro(const struct row *row)
{
    (void)row;
    CALL(fx_version());
    return 0;
}

static int version_string_is_macro(const struct row *row)
{
    (void)row;
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", FUTEXSYNC_VERSION_MAJOR, FUTEXSYNC_VERSION_MINOR,
             FUTEXSYNC_VERSION_PATCH);
    CALL(strcmp(fx_version_string(), want));
    return 0;
}

static int layout_version_is_macro(const struct row *row)
{
    (void)row;
    CALL(fx_layout_version());
    return 0;
}

static int stats_read_size0(const struct row *row)
{
    (void)row;
    fx_stats st;
    CALL(fx_stats_read(&S->m, 0, &st));
    return 0;
}

static int stats_reset_size0(const struct row *row)
{
    (void)row;
    CALL(fx_stats_reset(&S->m, 0));
    return 0;
}

static int stats_list_out_null(const struct row *row)
{
    (void)row;
    size_t n;
    CALL(fx_stats_list(NULL, 1, &n));
    return 0;
}

static int stats_read_object(const struct row *row)
{
    (void)row;
    fx_stats st;
    WANT(fx_stats_enabled() ? 0 : ENOTSUP);
    CALL(fx_stats_read(&S->m, sizeof S->m, &st));
    return 0;
}

/* --- futex.h ----------------------------------------------------------------- */

static int futex_wait_differs(const struct row *row)
{
    (void)row;
    S->word = 1;
    CALL(fx_futex_wait(&S->word, 0, NULL));
    return 0;
}

static int futex_wait_differs_bad_nsec(const struct row *row)
{
    (void)row;
    S->word = 1;
    struct timespec d = bad_nsec();
    CALL(fx_futex_wait(&S->word, 0, &d));
    return 0;
}

static int futex_wait_past(const struct row *row)
{
    (void)row;
    struct timespec d = past();
    CALL(fx_futex_wait(&S->word, 0, &d));
    return 0;
}

static int futex_wait_bad_nsec(const struct row *row)
{
    (void)row;
    struct timespec d = bad_nsec();
    CALL(fx_futex_wait(&S->word, 0, &d));
    return 0;
}

static int futex_wake_negative(const struct row *row)
{
    (void)row;
    CALL(fx_futex_wake(&S->word, -1));
    return 0;
}

static int futex_wake_zero(const struct row *row)
{
    (void)row;
    CALL(fx_futex_wake(&S->word, 0));
    return 0;
}

static int futex_wake_none(const struct row *row)
{
    (void)row;
    CALL(fx_futex_wake(&S->word, INT32_MAX));
    return 0;
}

/* A thread asleep on S->word until woken; its result in S->flag2. */
static void *futex_sleeper(void *arg)
{
    (void)arg;
    S->tid = fxt_gettid();
    fxt_flag_set(&S->flag, 1);
    int r = fx_futex_wait(&S->word, 0, NULL);
    fxt_flag_set(&S->flag2, r + 1);
    return NULL;
}

static int futex_wake_one(const struct row *row)
{
    (void)row;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, futex_sleeper, NULL) == 0);
    CHECK(fxt_flag_wait(&S->flag, 1, HANG_MS));
    CHECK(fxt_wait_asleep(__atomic_load_n(&S->tid, __ATOMIC_ACQUIRE), &S->word, HANG_MS));
    CALL(fx_futex_wake(&S->word, INT32_MAX));
    pthread_join(t, NULL);
    CHECK(S->flag2 == 0 + 1); /* the sleeper saw 0: woken */
    return 0;
}

/* The woken side: the call under test is the sleeper's. */
static void *futex_sleeper_called(void *arg)
{
    (void)arg;
    S->tid = fxt_gettid();
    fxt_flag_set(&S->flag, 1);
    CALL(fx_futex_wait(&S->word, 0, NULL));
    return NULL;
}

static int futex_wait_woken(const struct row *row)
{
    (void)row;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, futex_sleeper_called, NULL) == 0);
    CHECK(fxt_flag_wait(&S->flag, 1, HANG_MS));
    CHECK(fxt_wait_asleep(__atomic_load_n(&S->tid, __ATOMIC_ACQUIRE), &S->word, HANG_MS));
    CHECK(fx_futex_wake(&S->word, 1) == 1);
    pthread_join(t, NULL);
    return 0;
}

/* EINTR from fx_futex_wait when a handler ran, with or without SA_RESTART. */
static void usr2_handler(int sig) { (void)sig; }

static const struct timespec *futex_eintr_deadline;
static void *futex_eintr_sleeper(void *arg)
{
    (void)arg;
    S->tid = fxt_gettid();
    fxt_flag_set(&S->flag, 1);
    CALL(fx_futex_wait(&S->word, 0, futex_eintr_deadline));
    return NULL;
}

static int futex_eintr(int sa_flags, const struct timespec *deadline)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = usr2_handler;
    sa.sa_flags = sa_flags;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
    futex_eintr_deadline = deadline;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, futex_eintr_sleeper, NULL) == 0);
    CHECK(fxt_flag_wait(&S->flag, 1, HANG_MS));
    CHECK(fxt_wait_asleep(__atomic_load_n(&S->tid, __ATOMIC_ACQUIRE), &S->word, HANG_MS));
    CHECK(pthread_kill(t, SIGUSR2) == 0);
    pthread_join(t, NULL);
    return 0;
}
static int futex_eintr_untimed(const struct row *row)
{
    (void)row;
    return futex_eintr(0, NULL);
}
static int futex_eintr_untimed_restart(const struct row *row)
{
    (void)row;
    return futex_eintr(SA_RESTART, NULL);
}
static int futex_eintr_timed_restart(const struct row *row)
{
    (void)row;
    static struct timespec d;
    d = far();
    return futex_eintr(SA_RESTART, &d);
}

/* --- mutex.h ----------------------------------------------------------------- */

static int mutex_lock_free(const struct row *row)
{
    (void)row;
    CALL(fx_mutex_lock(&S->m));
    CHECK(S->m.state == FX_MUTEX_LOCKED);
    return 0;
}

static int mutex_lock_bad_state(const struct row *row)
{
    (void)row;
    S->m.state = 3;
    CALL(fx_mutex_lock(&S->m));
    CHECK(S->m.state == 3);
    return 0;
}

static int mutex_trylock_free(const struct row *row)
{
    (void)row;
    CALL(fx_mutex_trylock(&S->m));
    return 0;
}

static int mutex_trylock_held(const struct row *row)
{
    (void)row;
    S->m.state = FX_MUTEX_LOCKED;
    CALL(fx_mutex_trylock(&S->m));
    CHECK(S->m.state == FX_MUTEX_LOCKED);
    return 0;
}

static int mutex_timedlock_free_past(const struct row *row)
{
    (void)row;
    struct timespec d = past();
    CALL(fx_mutex_timedlock(&S->m, &d));
    return 0;
}

static int mutex_timedlock_free_bad_nsec(const struct row *row)
{
    (void)row;
    struct timespec d = bad_nsec();
    CALL(fx_mutex_timedlock(&S->m, &d));
    return 0;
}

static int mutex_timedlock_held_past(const struct row *row)
{
    (void)row;
    S->m.state = FX_MUTEX_LOCKED;
    struct timespec d = past();
    CALL(fx_mutex_timedlock(&S->m, &d));
    return 0;
}

static int mutex_timedlock_held_short(const struct row *row)
{
    (void)row;
    S->m.state = FX_MUTEX_LOCKED;
    struct timespec d = fx_deadline_in(2 * FX_NSEC_PER_MSEC);
    CALL(fx_mutex_timedlock(&S->m, &d));
    return 0;
}

static int mutex_timedlock_held_bad_nsec(const struct row *row)
{
    (void)row;
    S->m.state = FX_MUTEX_LOCKED;
    struct timespec d = bad_nsec();
    CALL(fx_mutex_timedlock(&S->m, &d));
    return 0;
}

static int mutex_unlock_held(const struct row *row)
{
    (void)row;
    CHECK(fx_mutex_lock(&S->m) == 0);
    CALL(fx_mutex_unlock(&S->m));
    CHECK(S->m.state == FX_MUTEX_UNLOCKED);
    return 0;
}

static int mutex_unlock_free(const struct row *row)
{
    (void)row;
    CALL(fx_mutex_unlock(&S->m));
    CHECK(S->m.state == FX_MUTEX_UNLOCKED);
    return 0;
}

static int mutex_init_zeroes(const struct row *row)
{
    (void)row;
    S->m.state = FX_MUTEX_CONTENDED;
    CALL(fx_mutex_init(&S->m));
    CHECK(S->m.state == 0);
    return 0;
}

/* --- counter.h --------------------------------------------------------------- */

static int counter_add_wraps(const struct row *row)
{
    (void)row;
    S->k.value = INT32_MAX;
    CALL(fx_counter_add(&S->k, 1));
    CHECK(S->k.value == INT32_MIN);
    return 0;
}

static int counter_load_value(const struct row *row)
{
    (void)row;
    S->k.value = -7;
    CALL(fx_counter_load(&S->k));
    return 0;
}

static int counter_store_sets(const struct row *row)
{
    (void)row;
    CALL(fx_counter_store(&S->k, 42));
    CHECK(S->k.value == 42);
    return 0;
}

static int counter_init_sets(const struct row *row)
{
    (void)row;
    S->k.waiters = 3;
    CALL(fx_counter_init(&S->k, 9));
    CHECK(S->k.value == 9 && S->k.waiters == 0);
    return 0;
}

static int counter_wait_equal(const struct row *row)
{
    (void)row;
    S->k.value = 5;
    CALL(fx_counter_wait(&S->k, 5, NULL));
    return 0;
}

static int counter_wait_equal_past(const struct row *row)
{
    (void)row;
    S->k.value = 5;
    struct timespec d = past();
    CALL(fx_counter_wait(&S->k, 5, &d));
    return 0;
}

static int counter_wait_equal_bad_nsec(const struct row *row)
{
    (void)row;
    S->k.value = 5;
    struct timespec d = bad_nsec();
    CALL(fx_counter_wait(&S->k, 5, &d));
    return 0;
}

static int counter_wait_past(const struct row *row)
{
    (void)row;
    struct timespec d = past();
    CALL(fx_counter_wait(&S->k, 5, &d));
    CHECK(S->k.waiters == 0);
    return 0;
}

static int counter_wait_bad_nsec(const struct row *row)
{
    (void)row;
    struct timespec d = bad_nsec();
    CALL(fx_counter_wait(&S->k, 5, &d));
    return 0;
}

static int counter_wait_negative_waiters(const struct row *row)
{
    (void)row;
    S->k.waiters = -1;
    CALL(fx_counter_wait(&S->k, 5, NULL));
    return 0;
}

static int counter_wait_ge_above(const struct row *row)
{
    (void)row;
    S->k.value = 9;
    CALL(fx_counter_wait_ge(&S->k, 5, NULL));
    return 0;
}

static int counter_wait_ge_above_bad_nsec(const struct row *row)
{
    (void)row;
    S->k.value = 9;
    struct timespec d = bad_nsec();
    CALL(fx_counter_wait_ge(&S->k, 5, &d));
    return 0;
}

static int counter_wait_ge_below_past(const struct row *row)
{
    (void)row;
    S->k.value = 4;
    struct timespec d = past();
    CALL(fx_counter_wait_ge(&S->k, 5, &d));
    CHECK(S->k.waiters == 0);
    return 0;
}

static int counter_wait_ge_below_bad_nsec(const struct row *row)
{
    (void)row;
    S->k.value = 4;
    struct timespec d = bad_nsec();
    CALL(fx_counter_wait_ge(&S->k, 5, &d));
    return 0;
}

static int counter_wait_ge_negative_waiters(const struct row *row)
{
    (void)row;
    S->k.value = 4;
    S->k.waiters = -1;
    CALL(fx_counter_wait_ge(&S->k, 5, NULL));
    return 0;
}

static int counter_wait_le_below(const struct row *row)
{
    (void)row;
    S->k.value = -3; /* a wait group that counted down past 0 */
    CALL(fx_counter_wait_le(&S->k, 0, NULL));
    return 0;
}

static int counter_wait_le_above_past(const struct row *row)
{
    (void)row;
    S->k.value = 1;
    struct timespec d = past();
    CALL(fx_counter_wait_le(&S->k, 0, &d));
    CHECK(S->k.waiters == 0);
    return 0;
}

static int counter_wait_le_above_bad_nsec(const struct row *row)
{
    (void)row;
    S->k.value = 1;
    struct timespec d = bad_nsec();
    CALL(fx_counter_wait_le(&S->k, 0, &d));
    return 0;
}

/* --- time.h: fx_deadline_from -------------------------------------------------- */

static int deadline_from_monotonic(const struct row *row)
{
    (void)row;
    struct timespec abs = {.tv_sec = 123, .tv_nsec = 456}, d;
    CALL(fx_deadline_from(CLOCK_MONOTONIC, &abs, &d));
    CHECK(d.tv_sec == 123 && d.tv_nsec == 456);
    return 0;
}

static int deadline_from_realtime(const struct row *row)
{
    (void)row;
    struct timespec rt, mono, d;
    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    rt.tv_sec += 100;
    CALL(fx_deadline_from(CLOCK_REALTIME, &rt, &d));
    /* 100 s ahead of now(CLOCK_MONOTONIC), within a generous margin for a
     * loaded machine (the two clock reads and the call are not simultaneous). */
    int64_t ahead = fxt_ts_ns(&d) - fxt_ts_ns(&mono);
    CHECK(ahead > 90 * FX_NSEC_PER_SEC && ahead <= 100 * FX_NSEC_PER_SEC + FX_NSEC_PER_SEC);
    return 0;
}

static int deadline_from_null_abs(const struct row *row)
{
    (void)row;
    struct timespec d = {.tv_sec = 7, .tv_nsec = 7};
    CALL(fx_deadline_from(CLOCK_REALTIME, NULL, &d));
    CHECK(d.tv_sec == 7 && d.tv_nsec == 7); /* nothing stored */
    return 0;
}

static int deadline_from_null_deadline(const struct row *row)
{
    (void)row;
    struct timespec abs = {.tv_sec = 1, .tv_nsec = 0};
    CALL(fx_deadline_from(CLOCK_REALTIME, &abs, NULL));
    return 0;
}

static int deadline_from_bad_nsec(const struct row *row)
{
    (void)row;
    struct timespec abs = bad_nsec(), d = {.tv_sec = 7, .tv_nsec = 7};
    CALL(fx_deadline_from(CLOCK_REALTIME, &abs, &d));
    CHECK(d.tv_sec == 7 && d.tv_nsec == 7);
    return 0;
}

static int deadline_from_cpu_clock(const struct row *row)
{
    (void)row;
    struct timespec abs = {.tv_sec = 1, .tv_nsec = 0}, d = {.tv_sec = 7, .tv_nsec = 7};
    CALL(fx_deadline_from(CLOCK_PROCESS_CPUTIME_ID, &abs, &d));
    CHECK(d.tv_sec == 7 && d.tv_nsec == 7);
    return 0;
}

static int deadline_from_passed(const struct row *row)
{
    (void)row;
    struct timespec abs = {.tv_sec = 1, .tv_nsec = 0}, d, mono; /* 1970 */
    CALL(fx_deadline_from(CLOCK_REALTIME, &abs, &d));
    clock_gettime(CLOCK_MONOTONIC, &mono);
    CHECK(fxt_ts_ns(&d) < fxt_ts_ns(&mono) || d.tv_sec < 0);
    return 0;
}

/* --- rmutex.h ---------------------------------------------------------------- */

static int rmutex_lock_free(const struct row *row)
{
    (void)row;
    CALL(fx_rmutex_lock(&S->rm));
    CHECK(S->rm.owner == fxt_rmutex_self_word() && S->rm.depth == 1);
    return 0;
}

static int rmutex_lock_reentry(const struct row *row)
{
    (void)row;
    CHECK(fx_rmutex_lock(&S->rm) == 0);
    CALL(fx_rmutex_lock(&S->rm));
    CHECK(S->rm.depth == 2);
    return 0;
}

static int rmutex_lock_dead_owner(const struct row *row)
{
    (void)row;
    S->rm.owner = dead_probed_owner();
    S->rm.depth = 1;
    CALL(fx_rmutex_lock(&S->rm));
    CHECK((S->rm.owner & ~FX_RMUTEX_WAITERS) == fxt_rmutex_self_word());
    CHECK(S->rm.depth == (1 | FX_RMUTEX_INCONSISTENT));
    return 0;
}

static int rmutex_lock_orphaned(const struct row *row)
{
    (void)row;
    S->rm.owner = FX_RMUTEX_ORPHANED;
    CALL(fx_rmutex_lock(&S->rm));
    return 0;
}

static int rmutex_lock_notrecoverable(const struct row *row)
{
    (void)row;
    S->rm.owner = FX_RMUTEX_NOTRECOVERABLE;
    CALL(fx_rmutex_lock(&S->rm));
    CHECK(S->rm.owner == FX_RMUTEX_NOTRECOVERABLE);
    return 0;
}

static int rmutex_lock_depth_max(const struct row *row)
{
    (void)row;
    CHECK(fx_rmutex_lock(&S->rm) == 0); /* the caller owns it, as the library knows */
    S->rm.depth = FX_RMUTEX_DEPTH_MAX;
    CALL(fx_rmutex_lock(&S->rm));
    CHECK(S->rm.depth == FX_RMUTEX_DEPTH_MAX);
    return 0;
}

static int rmutex_lock_bad_owner(const struct row *row)
{
    (void)row;
    S->rm.owner = FX_RMUTEX_TID_MAX + 1; /* above every TID, no flag */
    CALL(fx_rmutex_lock(&S->rm));
    CHECK(S->rm.owner == FX_RMUTEX_TID_MAX + 1);
    return 0;
}

static int rmutex_trylock_live_owner(const struct row *row)
{
    (void)row;
    S->rm.owner = live_other_tid();
    S->rm.depth = 1;
    CALL(fx_rmutex_trylock(&S->rm));
    return 0;
}

static int rmutex_trylock_dead_owner(const struct row *row)
{
    (void)row;
    S->rm.owner = dead_probed_owner();
    S->rm.depth = 1;
    CALL(fx_rmutex_trylock(&S->rm));
    return 0;
}

/* A plain TID names an owner whose death the kernel reports (it marks the
 * word ORPHANED): the library never judges it by its TID, dead or alive. */
static int rmutex_trylock_dead_kernel_owner(const struct row *row)
{
    (void)row;
    pid_t d = dead_tid();
    S->rm.owner = d;
    S->rm.depth = 1;
    CALL(fx_rmutex_trylock(&S->rm));
    CHECK(S->rm.owner == d);
    return 0;
}

static int rmutex_timedlock_dead_kernel_owner_past(const struct row *row)
{
    (void)row;
    pid_t d = dead_tid();
    S->rm.owner = d;
    S->rm.depth = 1;
    struct timespec t = past();
    CALL(fx_rmutex_timedlock(&S->rm, &t));
    CHECK((S->rm.owner & ~FX_RMUTEX_WAITERS) == d);
    return 0;
}

/* A live owner the probe judges (PROBED): alive, so EBUSY, word unchanged. */
static int rmutex_trylock_live_probed_owner(const struct row *row)
{
    (void)row;
    S->rm.owner = live_other_tid() | FX_RMUTEX_PROBED;
    S->rm.depth = 1;
    CALL(fx_rmutex_trylock(&S->rm));
    CHECK(S->rm.owner == (live_other_tid() | FX_RMUTEX_PROBED));
    return 0;
}

static int rmutex_timedlock_free_past(const struct row *row)
{
    (void)row;
    struct timespec d = past();
    CALL(fx_rmutex_timedlock(&S->rm, &d));
    return 0;
}

static int rmutex_timedlock_reentry_past(const struct row *row)
{
    (void)row;
    CHECK(fx_rmutex_lock(&S->rm) == 0);
    struct timespec d = past();
    CALL(fx_rmutex_timedlock(&S->rm, &d));
    CHECK(S->rm.depth == 2);
    return 0;
}

static int rmutex_timedlock_dead_owner_past(const struct row *row)
{
    (void)row;
    S->rm.owner = dead_probed_owner();
    S->rm.depth = 1;
    struct timespec d = past();
    CALL(fx_rmutex_timedlock(&S->rm, &d));
    return 0;
}

static int rmutex_timedlock_dead_owner_bad_nsec(const struct row *row)
{
    (void)row;
    S->rm.owner = dead_probed_owner();
    S->rm.depth = 1;
    struct timespec d = bad_nsec();
    CALL(fx_rmutex_timedlock(&S->rm, &d));
    CHECK((S->rm.owner & ~FX_RMUTEX_WAITERS) == fxt_rmutex_self_word()); /* taken */
    return 0;
}

static int rmutex_timedlock_live_owner_past(const struct row *row)
{
    (void)row;
    S->rm.owner = live_other_tid();
    S->rm.depth = 1;
    struct timespec d = past();
    CALL(fx_rmutex_timedlock(&S->rm, &d));
    return 0;
}

static int rmutex_timedlock_live_owner_bad_nsec(const struct row *row)
{
    (void)row;
    S->rm.owner = live_other_tid();
    S->rm.depth = 1;
    struct timespec d = bad_nsec();
    CALL(fx_rmutex_timedlock(&S->rm, &d));
    return 0;
}

static int rmutex_timedlock_free_bad_nsec(const struct row *row)
{
    (void)row;
    struct timespec d = bad_nsec();
    CALL(fx_rmutex_timedlock(&S->rm, &d));
    return 0;
}

static int rmutex_unlock_owner(const struct row *row)
{
    (void)row;
    CHECK(fx_rmutex_lock(&S->rm) == 0);
    CALL(fx_rmutex_unlock(&S->rm));
    CHECK(S->rm.owner == 0);
    return 0;
}

/* The layout the header documents for objects shared between binaries: the
 * depth slot of a free mutex means nothing; the acquirer overwrites it. */
static int rmutex_lock_free_stale_depth(const struct row *row)
{
    (void)row;
    S->rm.depth = 7 | FX_RMUTEX_INCONSISTENT;
    CALL(fx_rmutex_lock(&S->rm));
    CHECK(S->rm.depth == 1);
    return 0;
}

static int rmutex_unlock_not_owner(const struct row *row)
{
    (void)row;
    S->rm.owner = live_other_tid();
    S->rm.depth = 1;
    CALL(fx_rmutex_unlock(&S->rm));
    CHECK(S->rm.owner == live_other_tid());
    return 0;
}

static int rmutex_unlock_free(const struct row *row)
{
    (void)row;
    CALL(fx_rmutex_unlock(&S->rm));
    return 0;
}

static int rmutex_unlock_bad_depth(const struct row *row)
{
    (void)row;
    CHECK(fx_rmutex_lock(&S->rm) == 0); /* the caller owns it, as the library knows */
    S->rm.depth = 0; /* held with depth 0: never written */
    CALL(fx_rmutex_unlock(&S->rm));
    CHECK(S->rm.owner == fxt_rmutex_self_word()); /* nothing released */
    return 0;
}

static int rmutex_unlock_inconsistent(const struct row *row)
{
    (void)row;
    S->rm.owner = dead_probed_owner();
    S->rm.depth = 1;
    CHECK(fx_rmutex_lock(&S->rm) == EOWNERDEAD);
    CALL(fx_rmutex_unlock(&S->rm));
    CHECK(fx_rmutex_lock(&S->rm) == ENOTRECOVERABLE);
    return 0;
}

static int rmutex_consistent_inconsistent(const struct row *row)
{
    (void)row;
    S->rm.owner = dead_probed_owner();
    S->rm.depth = 1;
    CHECK(fx_rmutex_lock(&S->rm) == EOWNERDEAD);
    CALL(fx_rmutex_consistent(&S->rm));
    CHECK(S->rm.depth == 1);
    CHECK(fx_rmutex_unlock(&S->rm) == 0);
    CHECK(fx_rmutex_lock(&S->rm) == 0);
    return 0;
}

static int rmutex_consistent_not_owner(const struct row *row)
{
    (void)row;
    S->rm.owner = live_other_tid();
    S->rm.depth = 1 | FX_RMUTEX_INCONSISTENT;
    CALL(fx_rmutex_consistent(&S->rm));
    return 0;
}

static int rmutex_consistent_consistent(const struct row *row)
{
    (void)row;
    CHECK(fx_rmutex_lock(&S->rm) == 0);
    CALL(fx_rmutex_consistent(&S->rm));
    return 0;
}

static int rmutex_recover_dead(const struct row *row)
{
    (void)row;
    pid_t d = dead_tid();
    S->rm.owner = d;
    S->rm.depth = 1;
    CALL(fx_rmutex_recover(&S->rm, d));
    CHECK(fx_rmutex_trylock(&S->rm) == EOWNERDEAD);
    return 0;
}

static int rmutex_recover_not_owner(const struct row *row)
{
    (void)row;
    S->rm.owner = live_other_tid();
    S->rm.depth = 1;
    CALL(fx_rmutex_recover(&S->rm, dead_tid()));
    CHECK(S->rm.owner == live_other_tid());
    return 0;
}

static int rmutex_recover_free(const struct row *row)
{
    (void)row;
    CALL(fx_rmutex_recover(&S->rm, dead_tid()));
    return 0;
}

static int rmutex_owner_held(const struct row *row)
{
    (void)row;
    CHECK(fx_rmutex_lock(&S->rm) == 0);
    WANT(fxt_gettid());
    CALL(fx_rmutex_owner(&S->rm));
    return 0;
}

static int rmutex_owner_contended(const struct row *row)
{
    (void)row;
    S->rm.owner = live_other_tid() | FX_RMUTEX_WAITERS;
    S->rm.depth = 1;
    WANT(live_other_tid());
    CALL(fx_rmutex_owner(&S->rm));
    return 0;
}

static int rmutex_owner_probed(const struct row *row)
{
    (void)row;
    S->rm.owner = live_other_tid() | FX_RMUTEX_PROBED | FX_RMUTEX_WAITERS;
    S->rm.depth = 1;
    WANT(live_other_tid());
    CALL(fx_rmutex_owner(&S->rm));
    return 0;
}

static int rmutex_owner_free(const struct row *row)
{
    (void)row;
    CALL(fx_rmutex_owner(&S->rm));
    return 0;
}

static int rmutex_owner_orphaned(const struct row *row)
{
    (void)row;
    S->rm.owner = FX_RMUTEX_ORPHANED;
    CALL(fx_rmutex_owner(&S->rm));
    return 0;
}

static int rmutex_owner_bad(const struct row *row)
{
    (void)row;
    S->rm.owner = FX_RMUTEX_TID_MAX + 1;
    CALL(fx_rmutex_owner(&S->rm));
    return 0;
}

static int rmutex_init_zeroes(const struct row *row)
{
    (void)row;
    S->rm.owner = FX_RMUTEX_NOTRECOVERABLE;
    S->rm.depth = 5;
    CALL(fx_rmutex_init(&S->rm));
    CHECK(S->rm.owner == 0 && S->rm.depth == 0);
    return 0;
}

/* --- cond.h ------------------------------------------------------------------ */

static int cond_wait_unlocked(const struct row *row)
{
    (void)row;
    CALL(fx_cond_wait(&S->c, &S->m));
    CHECK(S->m.state == FX_MUTEX_UNLOCKED && S->c.waiters == 0);
    return 0;
}

static int cond_wait_overlap(const struct row *row)
{
    (void)row;
    fx_mutex *inside = (fx_mutex *)&S->c.park;
    CALL(fx_cond_wait(&S->c, inside));
    return 0;
}

static int cond_wait_negative_waiters(const struct row *row)
{
    (void)row;
    S->c.waiters = -1;
    CHECK(fx_mutex_lock(&S->m) == 0);
    CALL(fx_cond_wait(&S->c, &S->m));
    CHECK(S->m.state == FX_MUTEX_LOCKED && S->c.waiters == -1);
    return 0;
}

/* Class 9 of issue 11: INT32_MAX waiters must give EINVAL up front, not wrap
 * and sleep for ever (the hang detector ends the row if it sleeps). */
static int cond_wait_max_waiters(const struct row *row)
{
    (void)row;
    S->c.waiters = INT32_MAX;
    CHECK(fx_mutex_lock(&S->m) == 0);
    CALL(fx_cond_wait(&S->c, &S->m));
    CHECK(S->m.state == FX_MUTEX_LOCKED && S->c.waiters == INT32_MAX);
    return 0;
}

static int cond_wait_bad_token(const struct row *row)
{
    (void)row;
    S->c.mutex = 7; /* = 3 (mod 4), not 3: never written */
    CHECK(fx_mutex_lock(&S->m) == 0);
    CALL(fx_cond_wait(&S->c, &S->m));
    CHECK(S->m.state == FX_MUTEX_LOCKED);
    return 0;
}

static int cond_wait_bad_mutex_state(const struct row *row)
{
    (void)row;
    S->m.state = 3;
    CALL(fx_cond_wait(&S->c, &S->m));
    CHECK(S->m.state == 3 && S->c.waiters == 0);
    return 0;
}

static int cond_timedwait_past(const struct row *row)
{
    (void)row;
    CHECK(fx_mutex_lock(&S->m) == 0);
    struct timespec d = past();
    CALL(fx_cond_timedwait(&S->c, &S->m, &d));
    CHECK(S->m.state != FX_MUTEX_UNLOCKED); /* m re-acquired */
    CHECK(S->c.waiters == 0);
    return 0;
}

static int cond_timedwait_short(const struct row *row)
{
    (void)row;
    CHECK(fx_mutex_lock(&S->m) == 0);
    struct timespec d = fx_deadline_in(2 * FX_NSEC_PER_MSEC);
    CALL(fx_cond_timedwait(&S->c, &S->m, &d));
    CHECK(S->m.state != FX_MUTEX_UNLOCKED);
    CHECK(S->c.waiters == 0);
    return 0;
}

static int cond_timedwait_bad_nsec(const struct row *row)
{
    (void)row;
    CHECK(fx_mutex_lock(&S->m) == 0);
    struct timespec d = bad_nsec();
    CALL(fx_cond_timedwait(&S->c, &S->m, &d));
    CHECK(S->m.state == FX_MUTEX_LOCKED && S->c.waiters == 0);
    return 0;
}

static int cond_wait_rmutex_free(const struct row *row)
{
    (void)row;
    CALL(fx_cond_wait_rmutex(&S->c, &S->rm));
    CHECK(S->rm.owner == 0 && S->c.waiters == 0);
    return 0;
}

static int cond_wait_rmutex_other_owner(const struct row *row)
{
    (void)row;
    S->rm.owner = live_other_tid();
    S->rm.depth = 1;
    CALL(fx_cond_wait_rmutex(&S->c, &S->rm));
    CHECK(S->rm.owner == live_other_tid());
    return 0;
}

static int cond_wait_rmutex_inconsistent(const struct row *row)
{
    (void)row;
    S->rm.owner = dead_probed_owner();
    S->rm.depth = 1;
    CHECK(fx_rmutex_lock(&S->rm) == EOWNERDEAD);
    CALL(fx_cond_wait_rmutex(&S->c, &S->rm));
    CHECK(S->rm.owner == FX_RMUTEX_NOTRECOVERABLE);
    return 0;
}

static int cond_wait_rmutex_bad_depth(const struct row *row)
{
    (void)row;
    CHECK(fx_rmutex_lock(&S->rm) == 0); /* the caller owns it, as the library knows */
    S->rm.depth = 0;
    CALL(fx_cond_wait_rmutex(&S->c, &S->rm));
    CHECK(S->rm.owner == fxt_rmutex_self_word() && S->c.waiters == 0);
    return 0;
}

static int cond_timedwait_rmutex_past(const struct row *row)
{
    (void)row;
    CHECK(fx_rmutex_lock(&S->rm) == 0);
    CHECK(fx_rmutex_lock(&S->rm) == 0);
    struct timespec d = past();
    CALL(fx_cond_timedwait_rmutex(&S->c, &S->rm, &d));
    CHECK(S->rm.owner == fxt_rmutex_self_word() && S->rm.depth == 2); /* held at its depth */
    return 0;
}

static int cond_timedwait_rmutex_bad_nsec(const struct row *row)
{
    (void)row;
    CHECK(fx_rmutex_lock(&S->rm) == 0);
    struct timespec d = bad_nsec();
    CALL(fx_cond_timedwait_rmutex(&S->c, &S->rm, &d));
    CHECK(S->rm.owner == fxt_rmutex_self_word() && S->rm.depth == 1 && S->c.waiters == 0);
    return 0;
}

static int cond_signal_nobody(const struct row *row)
{
    (void)row;
    CALL(fx_cond_signal(&S->c));
    return 0;
}

static int cond_signal_negative_waiters(const struct row *row)
{
    (void)row;
    S->c.waiters = -1;
    CALL(fx_cond_signal(&S->c));
    return 0;
}

static int cond_broadcast_nobody(const struct row *row)
{
    (void)row;
    CALL(fx_cond_broadcast(&S->c));
    return 0;
}

static int cond_broadcast_negative_waiters(const struct row *row)
{
    (void)row;
    S->c.waiters = -1;
    CALL(fx_cond_broadcast(&S->c));
    return 0;
}

static int cond_broadcast_park(const struct row *row)
{
    (void)row;
    S->c.park = 1;
    CALL(fx_cond_broadcast(&S->c));
    return 0;
}

static int cond_init_zeroes(const struct row *row)
{
    (void)row;
    S->c.seq = 5;
    S->c.mutex = 2;
    CALL(fx_cond_init(&S->c));
    CHECK(S->c.seq == 0 && S->c.waiters == 0 && S->c.mutex == 0 && S->c.park == 0);
    return 0;
}

/* --- sem.h ------------------------------------------------------------------- */

static int sem_init_value(const struct row *row)
{
    (void)row;
    S->s.waiters = 2;
    CALL(fx_sem_init(&S->s, 3));
    CHECK(S->s.value == 3 && S->s.waiters == 0);
    return 0;
}

static int sem_init_above_max(const struct row *row)
{
    (void)row;
    CALL(fx_sem_init(&S->s, FX_SEM_VALUE_MAX + 1));
    return 0;
}

static int sem_init_negative(const struct row *row)
{
    (void)row;
    CALL(fx_sem_init(&S->s, -1));
    return 0;
}

static int sem_post_adds(const struct row *row)
{
    (void)row;
    CALL(fx_sem_post(&S->s));
    CHECK(S->s.value == 1);
    return 0;
}

static int sem_post_max(const struct row *row)
{
    (void)row;
    S->s.value = FX_SEM_VALUE_MAX;
    CALL(fx_sem_post(&S->s));
    CHECK(S->s.value == FX_SEM_VALUE_MAX); /* nothing changes */
    return 0;
}

static int sem_post_negative_value(const struct row *row)
{
    (void)row;
    S->s.value = -1;
    CALL(fx_sem_post(&S->s));
    CHECK(S->s.value == -1);
    return 0;
}

static int sem_post_negative_waiters(const struct row *row)
{
    (void)row;
    S->s.waiters = -1;
    CALL(fx_sem_post(&S->s));
    CHECK(S->s.value == 0);
    return 0;
}

static int sem_wait_token(const struct row *row)
{
    (void)row;
    S->s.value = 1;
    CALL(fx_sem_wait(&S->s));
    CHECK(S->s.value == 0);
    return 0;
}

static int sem_wait_negative_value(const struct row *row)
{
    (void)row;
    S->s.value = -1;
    CALL(fx_sem_wait(&S->s));
    return 0;
}

static int sem_wait_token_negative_waiters(const struct row *row)
{
    (void)row;
    S->s.value = 1;
    S->s.waiters = -1;
    CALL(fx_sem_wait(&S->s));
    CHECK(S->s.value == 1);
    return 0;
}

static int sem_wait_empty_negative_waiters(const struct row *row)
{
    (void)row;
    S->s.waiters = -1;
    CALL(fx_sem_wait(&S->s));
    return 0;
}

static int sem_trywait_token(const struct row *row)
{
    (void)row;
    S->s.value = 2;
    CALL(fx_sem_trywait(&S->s));
    CHECK(S->s.value == 1);
    return 0;
}

static int sem_trywait_empty(const struct row *row)
{
    (void)row;
    CALL(fx_sem_trywait(&S->s));
    return 0;
}

static int sem_trywait_negative_waiters(const struct row *row)
{
    (void)row;
    S->s.value = 1;
    S->s.waiters = -1;
    CALL(fx_sem_trywait(&S->s));
    CHECK(S->s.value == 1);
    return 0;
}

static int sem_timedwait_token_past(const struct row *row)
{
    (void)row;
    S->s.value = 1;
    struct timespec d = past();
    CALL(fx_sem_timedwait(&S->s, &d));
    return 0;
}

static int sem_timedwait_token_bad_nsec(const struct row *row)
{
    (void)row;
    S->s.value = 1;
    struct timespec d = bad_nsec();
    CALL(fx_sem_timedwait(&S->s, &d));
    return 0;
}

static int sem_timedwait_empty_past(const struct row *row)
{
    (void)row;
    struct timespec d = past();
    CALL(fx_sem_timedwait(&S->s, &d));
    CHECK(S->s.waiters == 0);
    return 0;
}

static int sem_timedwait_empty_bad_nsec(const struct row *row)
{
    (void)row;
    struct timespec d = bad_nsec();
    CALL(fx_sem_timedwait(&S->s, &d));
    CHECK(S->s.waiters == 0);
    return 0;
}

static int sem_timedwait_token_negative_waiters(const struct row *row)
{
    (void)row;
    S->s.value = 1;
    S->s.waiters = -1;
    struct timespec d = past();
    CALL(fx_sem_timedwait(&S->s, &d));
    return 0;
}

static int sem_value_value(const struct row *row)
{
    (void)row;
    S->s.value = 17;
    CALL(fx_sem_value(&S->s));
    return 0;
}

static int sem_value_negative(const struct row *row)
{
    (void)row;
    S->s.value = -5;
    CALL(fx_sem_value(&S->s));
    return 0;
}

/* --- rwlock.h ---------------------------------------------------------------- */

static int rwlock_set(int32_t state)
{
    S->l.state = state;
    return 0;
}

static int rwlock_rdlock_free(const struct row *row)
{
    (void)row;
    CALL(fx_rwlock_rdlock(&S->l));
    CHECK(S->l.state == 1);
    return 0;
}

static int rwlock_rdlock_max(const struct row *row)
{
    (void)row;
    rwlock_set(FX_RWLOCK_MAX_READERS);
    CALL(fx_rwlock_rdlock(&S->l));
    CHECK(S->l.state == FX_RWLOCK_MAX_READERS);
    return 0;
}

static int rwlock_rdlock_bad(const struct row *row)
{
    (void)row;
    rwlock_set(0x01000000); /* bit 24: always 0 */
    CALL(fx_rwlock_rdlock(&S->l));
    CHECK(S->l.state == 0x01000000);
    return 0;
}

static int rwlock_wrlock_bad(const struct row *row)
{
    (void)row;
    rwlock_set(0x01000001);
    CALL(fx_rwlock_wrlock(&S->l));
    CHECK(S->l.state == 0x01000001);
    return 0;
}

static int rwlock_tryrdlock_writer(const struct row *row)
{
    (void)row;
    rwlock_set(FX_RWLOCK_WRITE_LOCKED);
    CALL(fx_rwlock_tryrdlock(&S->l));
    return 0;
}

static int rwlock_tryrdlock_pending(const struct row *row)
{
    (void)row;
    rwlock_set(FX_RWLOCK_WRITER_PENDING | 1);
    CALL(fx_rwlock_tryrdlock(&S->l));
    return 0;
}

static int rwlock_tryrdlock_max(const struct row *row)
{
    (void)row;
    rwlock_set(FX_RWLOCK_MAX_READERS);
    CALL(fx_rwlock_tryrdlock(&S->l));
    return 0;
}

static int rwlock_tryrdlock_readers(const struct row *row)
{
    (void)row;
    rwlock_set(3);
    CALL(fx_rwlock_tryrdlock(&S->l));
    CHECK(S->l.state == 4);
    return 0;
}

static int rwlock_timedrdlock_free_past(const struct row *row)
{
    (void)row;
    struct timespec d = past();
    CALL(fx_rwlock_timedrdlock(&S->l, &d));
    return 0;
}

static int rwlock_timedrdlock_free_bad_nsec(const struct row *row)
{
    (void)row;
    struct timespec d = bad_nsec();
    CALL(fx_rwlock_timedrdlock(&S->l, &d));
    return 0;
}

static int rwlock_timedrdlock_writer_past(const struct row *row)
{
    (void)row;
    rwlock_set(FX_RWLOCK_WRITE_LOCKED);
    struct timespec d = past();
    CALL(fx_rwlock_timedrdlock(&S->l, &d));
    return 0;
}

static int rwlock_timedrdlock_writer_bad_nsec(const struct row *row)
{
    (void)row;
    rwlock_set(FX_RWLOCK_WRITE_LOCKED);
    struct timespec d = bad_nsec();
    CALL(fx_rwlock_timedrdlock(&S->l, &d));
    return 0;
}

static int rwlock_timedrdlock_max(const struct row *row)
{
    (void)row;
    rwlock_set(FX_RWLOCK_MAX_READERS);
    struct timespec d = past();
    CALL(fx_rwlock_timedrdlock(&S->l, &d));
    return 0;
}

static int rwlock_wrlock_free(const struct row *row)
{
    (void)row;
    CALL(fx_rwlock_wrlock(&S->l));
    CHECK(S->l.state == FX_RWLOCK_WRITE_LOCKED);
    return 0;
}

static int rwlock_trywrlock_readers(const struct row *row)
{
    (void)row;
    rwlock_set(1);
    CALL(fx_rwlock_trywrlock(&S->l));
    CHECK(S->l.state == 1);
    return 0;
}

static int rwlock_timedwrlock_free_past(const struct row *row)
{
    (void)row;
    struct timespec d = past();
    CALL(fx_rwlock_timedwrlock(&S->l, &d));
    return 0;
}

static int rwlock_timedwrlock_readers_bad_nsec(const struct row *row)
{
    (void)row;
    rwlock_set(1);
    struct timespec d = bad_nsec();
    CALL(fx_rwlock_timedwrlock(&S->l, &d));
    return 0;
}

/* A writer that timed out no longer waits: the header's "EBUSY when a writer
 * holds it or waits for it" then no longer applies to new readers. */
static int rwlock_timedwrlock_readers_past(const struct row *row)
{
    (void)row;
    rwlock_set(1);
    struct timespec d = past();
    CALL(fx_rwlock_timedwrlock(&S->l, &d));
    CHECK(fx_rwlock_tryrdlock(&S->l) == 0);
    return 0;
}

static int rwlock_timedwrlock_readers_short(const struct row *row)
{
    (void)row;
    rwlock_set(1);
    struct timespec d = fx_deadline_in(2 * FX_NSEC_PER_MSEC);
    CALL(fx_rwlock_timedwrlock(&S->l, &d));
    CHECK(fx_rwlock_tryrdlock(&S->l) == 0);
    return 0;
}

static int rwlock_unlock_free(const struct row *row)
{
    (void)row;
    CALL(fx_rwlock_unlock(&S->l));
    CHECK(S->l.state == 0);
    return 0;
}

static int rwlock_unlock_reader(const struct row *row)
{
    (void)row;
    CHECK(fx_rwlock_rdlock(&S->l) == 0);
    CHECK(fx_rwlock_rdlock(&S->l) == 0);
    CALL(fx_rwlock_unlock(&S->l));
    CHECK(S->l.state == 1);
    return 0;
}

static int rwlock_rdunlock_writer(const struct row *row)
{
    (void)row;
    rwlock_set(FX_RWLOCK_WRITE_LOCKED);
    CALL(fx_rwlock_rdunlock(&S->l));
    CHECK(S->l.state == FX_RWLOCK_WRITE_LOCKED);
    return 0;
}

static int rwlock_rdunlock_free(const struct row *row)
{
    (void)row;
    CALL(fx_rwlock_rdunlock(&S->l));
    CHECK(S->l.state == 0);
    return 0;
}

static int rwlock_wrunlock_reader(const struct row *row)
{
    (void)row;
    rwlock_set(1);
    CALL(fx_rwlock_wrunlock(&S->l));
    CHECK(S->l.state == 1);
    return 0;
}

static int rwlock_wrunlock_writer(const struct row *row)
{
    (void)row;
    CHECK(fx_rwlock_wrlock(&S->l) == 0);
    CALL(fx_rwlock_wrunlock(&S->l));
    CHECK(S->l.state == 0);
    return 0;
}

static int rwlock_init_zeroes(const struct row *row)
{
    (void)row;
    S->l.state = FX_RWLOCK_WRITE_LOCKED;
    S->l.writer_seq = 9;
    CALL(fx_rwlock_init(&S->l));
    CHECK(S->l.state == 0 && S->l.writer_seq == 0);
    return 0;
}

/* --- barrier.h --------------------------------------------------------------- */

static int barrier_wait_one(const struct row *row)
{
    (void)row;
    CALL(fx_barrier_wait(&S->b, 1));
    return 0;
}

static int barrier_wait_zero_parties(const struct row *row)
{
    (void)row;
    CALL(fx_barrier_wait(&S->b, 0));
    return 0;
}

static int barrier_wait_too_many(const struct row *row)
{
    (void)row;
    CALL(fx_barrier_wait(&S->b, FX_BARRIER_MAX_PARTIES + 1));
    return 0;
}

static int barrier_wait_other_count(const struct row *row)
{
    (void)row;
    S->b.parties = 2;
    CALL(fx_barrier_wait(&S->b, 3));
    return 0;
}

static int barrier_wait_bad_parties_slot(const struct row *row)
{
    (void)row;
    S->b.parties = -1;
    CALL(fx_barrier_wait(&S->b, 1));
    return 0;
}

static int barrier_timedwait_past(const struct row *row)
{
    (void)row;
    struct timespec d = past();
    CALL(fx_barrier_timedwait(&S->b, 2, &d));
    CHECK((S->b.state & 0x7fff) == 0); /* arrival withdrawn */
    return 0;
}

static int barrier_timedwait_bad_nsec(const struct row *row)
{
    (void)row;
    struct timespec d = bad_nsec();
    CALL(fx_barrier_timedwait(&S->b, 2, &d));
    CHECK((S->b.state & 0x7fff) == 0);
    return 0;
}

static int barrier_timedwait_last_bad_nsec(const struct row *row)
{
    (void)row;
    struct timespec d = bad_nsec();
    CALL(fx_barrier_timedwait(&S->b, 1, &d));
    return 0;
}

static int barrier_init_zeroes(const struct row *row)
{
    (void)row;
    S->b.parties = 4;
    S->b.state = 0x10002;
    CALL(fx_barrier_init(&S->b));
    CHECK(S->b.parties == 0 && S->b.state == 0);
    return 0;
}

/* --- once.h ------------------------------------------------------------------ */

static void count_run(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&S->flag2, 1, __ATOMIC_SEQ_CST);
}

static int once_call_runs(const struct row *row)
{
    (void)row;
    CALL(fx_once_call(&S->once, count_run, NULL));
    CHECK(S->flag2 == 1 && S->once.state == FX_ONCE_DONE);
    return 0;
}

static int once_call_done(const struct row *row)
{
    (void)row;
    S->once.state = FX_ONCE_DONE;
    CALL(fx_once_call(&S->once, count_run, NULL));
    CHECK(S->flag2 == 0);
    return 0;
}

static int once_call_null_fn(const struct row *row)
{
    (void)row;
    CALL(fx_once_call(&S->once, NULL, NULL));
    return 0;
}

static int once_call_bad_state(const struct row *row)
{
    (void)row;
    S->once.state = 2;
    CALL(fx_once_call(&S->once, count_run, NULL));
    CHECK(S->once.state == 2 && S->flag2 == 0);
    return 0;
}

static void recurse(void *arg)
{
    (void)arg;
    CALL(fx_once_call(&S->once, count_run, NULL));
}

static int once_call_recursive(const struct row *row)
{
    (void)row;
    CHECK(fx_once_call(&S->once, recurse, NULL) == 0);
    CHECK(S->flag2 == 0);
    return 0;
}

/* --- async.h ----------------------------------------------------------------- */

/* Runs fn (which makes the CALL) in another thread of this process. */
static int (*other_fn)(void);
static void *other_main(void *arg)
{
    (void)arg;
    other_fn();
    return NULL;
}
static int in_other_thread(int (*fn)(void))
{
    pthread_t t;
    other_fn = fn;
    if (pthread_create(&t, NULL, other_main, NULL) != 0)
        return 1;
    return pthread_join(t, NULL) != 0;
}

/* Runs fn (which makes the CALL) in a forked child of this process. */
static int in_forked_child(int (*fn)(void))
{
    pid_t p = fork();
    if (p == 0)
        _exit(fn() & 0x7f);
    if (p < 0)
        return 1;
    int st;
    return waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
}

/* Waits until the waiter's fd is readable, then completes; again while the
 * answer is EINPROGRESS (a spurious readiness). The last answer is the CALL's. */
static int complete_when_ready(void)
{
    for (;;) {
        struct pollfd p = {.fd = fx_async_fd(W), .events = POLLIN};
        if (poll(&p, 1, HANG_MS) != 1)
            return 1;
        if (CALL(fx_async_complete(W)) != EINPROGRESS)
            return 0;
    }
}

static int async_create_thread(const struct row *row)
{
    (void)row;
    CALL(fx_async_create(&W, FX_ASYNC_THREAD));
    CHECK(fx_async_backend(W) == FX_ASYNC_THREAD);
    return 0;
}

static int async_create_unknown(const struct row *row)
{
    (void)row;
    CALL(fx_async_create(&W, 99));
    return 0;
}

static int async_destroy_own(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CALL(fx_async_destroy(W));
    return 0;
}

static int async_fd_pollable(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    int fd = CALL(fx_async_fd(W));
    CHECK(fd >= 0 && fcntl(fd, F_GETFD) != -1);
    WANT(fd);
    return 0;
}

static int async_backend_named(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    int b = CALL(fx_async_backend(W));
    if (row->backend == FX_ASYNC_AUTO)
        CHECK(b == FX_ASYNC_URING || b == FX_ASYNC_THREAD);
    WANT(row->backend == FX_ASYNC_AUTO ? b : row->backend);
    return 0;
}

static int async_futex_wait_differs(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->word = 1;
    CALL(fx_async_futex_wait(W, &S->word, 0, NULL));
    return 0;
}

static int async_futex_wait_differs_bad_nsec(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->word = 1;
    struct timespec d = bad_nsec();
    CALL(fx_async_futex_wait(W, &S->word, 0, &d));
    return 0;
}

static int async_futex_wait_past(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    struct timespec d = past();
    CALL(fx_async_futex_wait(W, &S->word, 0, &d));
    return 0;
}

static int async_futex_wait_bad_nsec(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    struct timespec d = bad_nsec();
    CALL(fx_async_futex_wait(W, &S->word, 0, &d));
    return 0;
}

static int async_futex_wait_arms(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CALL(fx_async_futex_wait(W, &S->word, 0, NULL));
    CHECK(fx_async_cancel(W) == 0);
    return 0;
}

static int async_futex_wait_armed(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CHECK(fx_async_futex_wait(W, &S->word, 0, NULL) == EINPROGRESS);
    CALL(fx_async_futex_wait(W, &S->word, 0, NULL));
    CHECK(fx_async_cancel(W) == 0);
    return 0;
}

static int call_futex_wait(void) { return CALL(fx_async_futex_wait(W, &S->word, 0, NULL)), 0; }

static int async_futex_wait_other_thread(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CHECK(in_other_thread(call_futex_wait) == 0);
    return 0;
}

static int async_futex_wait_woken(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CHECK(fx_async_futex_wait(W, &S->word, 0, NULL) == EINPROGRESS);
    S->word = 1;
    fx_futex_wake(&S->word, INT32_MAX);
    CHECK(complete_when_ready() == 0);
    /* 0 (woken) or EAGAIN (the word had changed when the kernel looked). */
    if (S->r == EAGAIN)
        WANT(EAGAIN);
    return 0;
}

static int async_mutex_lock_free(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CALL(fx_async_mutex_lock(W, &S->m, NULL));
    CHECK(S->m.state != FX_MUTEX_UNLOCKED);
    return 0;
}

static int async_mutex_lock_free_past(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    struct timespec d = past();
    CALL(fx_async_mutex_lock(W, &S->m, &d));
    CHECK(S->m.state != FX_MUTEX_UNLOCKED);
    return 0;
}

static int async_mutex_lock_free_bad_nsec(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    struct timespec d = bad_nsec();
    CALL(fx_async_mutex_lock(W, &S->m, &d));
    return 0;
}

static int async_mutex_lock_held_past(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->m.state = FX_MUTEX_LOCKED;
    struct timespec d = past();
    CALL(fx_async_mutex_lock(W, &S->m, &d));
    return 0;
}

static int async_mutex_lock_held_bad_nsec(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->m.state = FX_MUTEX_LOCKED;
    struct timespec d = bad_nsec();
    CALL(fx_async_mutex_lock(W, &S->m, &d));
    return 0;
}

static int async_mutex_lock_bad_state(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->m.state = 3;
    CALL(fx_async_mutex_lock(W, &S->m, NULL));
    CHECK(S->m.state == 3);
    return 0;
}

static int async_mutex_lock_held(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->m.state = FX_MUTEX_LOCKED;
    CALL(fx_async_mutex_lock(W, &S->m, NULL));
    return 0;
}

static int async_mutex_lock_completes(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CHECK(fx_mutex_lock(&S->m) == 0);
    CHECK(fx_async_mutex_lock(W, &S->m, NULL) == EINPROGRESS);
    CHECK(fx_mutex_unlock(&S->m) == 0);
    CHECK(complete_when_ready() == 0);
    CHECK(S->m.state != FX_MUTEX_UNLOCKED);
    return 0;
}

static int call_mutex_lock(void) { return CALL(fx_async_mutex_lock(W, &S->m, NULL)), 0; }

static int async_mutex_lock_other_thread_held(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->m.state = FX_MUTEX_LOCKED;
    CHECK(in_other_thread(call_mutex_lock) == 0);
    return 0;
}

static int async_mutex_lock_other_thread_free(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CHECK(in_other_thread(call_mutex_lock) == 0);
    CHECK(S->m.state != FX_MUTEX_UNLOCKED);
    return 0;
}

static int async_mutex_run_free(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CALL(fx_async_mutex_run(W, &S->m, NULL, count_run, NULL));
    CHECK(S->flag2 == 1 && S->m.state == FX_MUTEX_UNLOCKED);
    return 0;
}

static int async_mutex_run_null_fn(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CALL(fx_async_mutex_run(W, &S->m, NULL, NULL, NULL));
    CHECK(S->m.state == FX_MUTEX_UNLOCKED);
    return 0;
}

static int async_rmutex_lock_free(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    struct timespec d = past();
    CALL(fx_async_rmutex_lock(W, &S->rm, &d));
    CHECK(S->rm.owner == fxt_rmutex_self_word() && S->rm.depth == 1);
    return 0;
}

static int async_rmutex_lock_reentry(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CHECK(fx_rmutex_lock(&S->rm) == 0);
    CALL(fx_async_rmutex_lock(W, &S->rm, NULL));
    CHECK(S->rm.depth == 2);
    return 0;
}

static int async_rmutex_lock_dead_owner(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->rm.owner = dead_probed_owner();
    S->rm.depth = 1;
    struct timespec d = past();
    CALL(fx_async_rmutex_lock(W, &S->rm, &d));
    CHECK((S->rm.owner & ~FX_RMUTEX_WAITERS) == fxt_rmutex_self_word());
    return 0;
}

static int async_rmutex_lock_dead_owner_bad_nsec(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->rm.owner = dead_probed_owner();
    S->rm.depth = 1;
    struct timespec d = bad_nsec();
    CALL(fx_async_rmutex_lock(W, &S->rm, &d));
    return 0;
}

static int async_rmutex_lock_dead_kernel_owner_past(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    pid_t o = dead_tid();
    S->rm.owner = o;
    S->rm.depth = 1;
    struct timespec d = past();
    CALL(fx_async_rmutex_lock(W, &S->rm, &d));
    CHECK((S->rm.owner & ~FX_RMUTEX_WAITERS) == o);
    return 0;
}

static int async_rmutex_lock_notrecoverable(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->rm.owner = FX_RMUTEX_NOTRECOVERABLE;
    CALL(fx_async_rmutex_lock(W, &S->rm, NULL));
    return 0;
}

static int async_rmutex_lock_depth_max(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CHECK(fx_rmutex_lock(&S->rm) == 0); /* the caller owns it, as the library knows */
    S->rm.depth = FX_RMUTEX_DEPTH_MAX;
    CALL(fx_async_rmutex_lock(W, &S->rm, NULL));
    return 0;
}

static int async_rmutex_lock_bad_owner(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->rm.owner = FX_RMUTEX_TID_MAX + 1;
    CALL(fx_async_rmutex_lock(W, &S->rm, NULL));
    return 0;
}

static int async_rmutex_lock_live_owner(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->rm.owner = live_other_tid();
    S->rm.depth = 1;
    CALL(fx_async_rmutex_lock(W, &S->rm, NULL));
    CHECK(fx_async_cancel(W) == 0);
    return 0;
}

static int async_rmutex_lock_live_owner_past(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->rm.owner = live_other_tid();
    S->rm.depth = 1;
    struct timespec d = past();
    CALL(fx_async_rmutex_lock(W, &S->rm, &d));
    return 0;
}

static int call_rmutex_lock(void) { return CALL(fx_async_rmutex_lock(W, &S->rm, NULL)), 0; }

static int async_rmutex_lock_other_thread_held(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->rm.owner = live_other_tid();
    S->rm.depth = 1;
    CHECK(in_other_thread(call_rmutex_lock) == 0);
    return 0;
}

static void record_status(void *arg, int status)
{
    (void)arg;
    S->flag2 = status + 1;
}

static int async_rmutex_run_dead_owner(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->rm.owner = dead_probed_owner();
    S->rm.depth = 1;
    CALL(fx_async_rmutex_run(W, &S->rm, NULL, record_status, NULL));
    CHECK(S->flag2 == EOWNERDEAD + 1);
    return 0;
}

static int async_counter_wait_equal(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->k.value = 3;
    CALL(fx_async_counter_wait(W, &S->k, 3, NULL));
    return 0;
}

static int async_counter_wait_negative_waiters(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->k.waiters = -1;
    CALL(fx_async_counter_wait(W, &S->k, 3, NULL));
    return 0;
}

static int async_counter_wait_past(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    struct timespec d = past();
    CALL(fx_async_counter_wait(W, &S->k, 3, &d));
    CHECK(S->k.waiters == 0);
    return 0;
}

static int async_counter_wait_arms(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CALL(fx_async_counter_wait(W, &S->k, 3, NULL));
    CHECK(S->k.waiters == 1); /* counted while armed */
    CHECK(fx_async_cancel(W) == 0);
    CHECK(S->k.waiters == 0);
    return 0;
}

static int async_counter_wait_completes(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CHECK(fx_async_counter_wait(W, &S->k, 3, NULL) == EINPROGRESS);
    fx_counter_store(&S->k, 3);
    CHECK(complete_when_ready() == 0);
    CHECK(S->k.waiters == 0);
    return 0;
}

static int async_complete_idle(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CALL(fx_async_complete(W));
    return 0;
}

static int async_cancel_idle(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CALL(fx_async_cancel(W));
    return 0;
}

static int async_cancel_armed(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CHECK(fx_async_counter_wait(W, &S->k, 3, NULL) == EINPROGRESS);
    CALL(fx_async_cancel(W));
    CHECK(S->k.waiters == 0);
    CHECK(fx_async_complete(W) == EINVAL); /* idle again */
    return 0;
}

static int call_complete(void) { return CALL(fx_async_complete(W)), 0; }
static int call_cancel(void) { return CALL(fx_async_cancel(W)), 0; }
static int call_destroy(void) { return CALL(fx_async_destroy(W)), 0; }

/* The thread rule ("completing, cancelling and destroying from another thread
 * give EPERM and do nothing"), idle or armed; a forked child's calls on its
 * parent's waiter likewise. After each, the waiter is as it was. */
static int async_other(const struct row *row, bool armed, int (*in)(int (*)(void)),
                       int (*call)(void))
{
    CHECK(make_waiter(row->backend) == 0);
    if (armed)
        CHECK(fx_async_counter_wait(W, &S->k, 3, NULL) == EINPROGRESS);
    CHECK(in(call) == 0);
    if (armed) {
        CHECK(S->k.waiters == 1);             /* still armed */
        CHECK(fx_async_cancel(W) == 0);
        CHECK(S->k.waiters == 0);
    }
    CHECK(fx_async_complete(W) == EINVAL);    /* idle, and still ours */
    CHECK(fx_async_destroy(W) == 0);
    return 0;
}
static int async_complete_thread_idle(const struct row *r)
{
    return async_other(r, false, in_other_thread, call_complete);
}
static int async_complete_thread_armed(const struct row *r)
{
    return async_other(r, true, in_other_thread, call_complete);
}
static int async_cancel_thread_idle(const struct row *r)
{
    return async_other(r, false, in_other_thread, call_cancel);
}
static int async_cancel_thread_armed(const struct row *r)
{
    return async_other(r, true, in_other_thread, call_cancel);
}
static int async_destroy_thread_idle(const struct row *r)
{
    return async_other(r, false, in_other_thread, call_destroy);
}
static int async_destroy_thread_armed(const struct row *r)
{
    return async_other(r, true, in_other_thread, call_destroy);
}
static int async_complete_fork_idle(const struct row *r)
{
    return async_other(r, false, in_forked_child, call_complete);
}
static int async_complete_fork_armed(const struct row *r)
{
    return async_other(r, true, in_forked_child, call_complete);
}
static int async_cancel_fork_idle(const struct row *r)
{
    return async_other(r, false, in_forked_child, call_cancel);
}
static int async_cancel_fork_armed(const struct row *r)
{
    return async_other(r, true, in_forked_child, call_cancel);
}
static int async_destroy_fork_idle(const struct row *r)
{
    return async_other(r, false, in_forked_child, call_destroy);
}

/* More async promises. */
static int async_create_uring(const struct row *row)
{
    (void)row;
    int r = CALL(fx_async_create(&W, FX_ASYNC_URING));
    CHECK(r == 0 || r == ENOTSUP);
    if (r == 0)
        CHECK(fx_async_backend(W) == FX_ASYNC_URING);
    WANT(r); /* which of the two depends on the kernel; the post-check holds */
    return 0;
}

static int async_create_env_thread(const struct row *row)
{
    (void)row;
    CHECK(setenv("FUTEXSYNC_ASYNC", "thread", 1) == 0);
    CALL(fx_async_create(&W, FX_ASYNC_AUTO));
    CHECK(fx_async_backend(W) == FX_ASYNC_THREAD);
    return 0;
}

static int async_fd_idle_unreadable(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    int fd = CALL(fx_async_fd(W));
    WANT(fd);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    CHECK(poll(&p, 1, 0) == 0);
    return 0;
}

static int async_mutex_lock_armed(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CHECK(fx_async_counter_wait(W, &S->k, 3, NULL) == EINPROGRESS);
    CALL(fx_async_mutex_lock(W, &S->m, NULL));
    CHECK(S->m.state == FX_MUTEX_UNLOCKED); /* not taken */
    CHECK(fx_async_cancel(W) == 0);
    return 0;
}

static int async_counter_wait_armed(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    S->m.state = FX_MUTEX_LOCKED;
    CHECK(fx_async_mutex_lock(W, &S->m, NULL) == EINPROGRESS);
    CALL(fx_async_counter_wait(W, &S->k, 3, NULL));
    CHECK(S->k.waiters == 0);
    CHECK(fx_async_cancel(W) == 0);
    return 0;
}

static int async_rmutex_lock_armed(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CHECK(fx_async_counter_wait(W, &S->k, 3, NULL) == EINPROGRESS);
    CALL(fx_async_rmutex_lock(W, &S->rm, NULL));
    CHECK(S->rm.owner == 0);
    CHECK(fx_async_cancel(W) == 0);
    return 0;
}

static void unlock_m(void *arg)
{
    (void)arg;
    fx_mutex_unlock(&S->m);
}

static int async_mutex_run_fn_unlocks(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CALL(fx_async_mutex_run(W, &S->m, NULL, unlock_m, NULL));
    return 0;
}

static void unlock_rm(void *arg, int status)
{
    (void)arg, (void)status;
    fx_rmutex_unlock(&S->rm);
}

static int async_rmutex_run_fn_unlocks(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    CALL(fx_async_rmutex_run(W, &S->rm, NULL, unlock_rm, NULL));
    return 0;
}

/* The promise is about a deadline that passes while the wait is armed. The
 * arming must come before it: an emulator or a loaded machine can take
 * longer than a short deadline to reach the call, which then answers
 * ETIMEDOUT as promised for a passed one; so the deadline is doubled from
 * 2 ms until the arming comes first. */
static int async_futex_wait_times_out(const struct row *row)
{
    CHECK(make_waiter(row->backend) == 0);
    int r = ETIMEDOUT;
    for (int64_t ns = 2 * FX_NSEC_PER_MSEC; r == ETIMEDOUT && ns <= FX_NSEC_PER_SEC; ns *= 2) {
        struct timespec d = fx_deadline_in(ns);
        r = fx_async_futex_wait(W, &S->word, 0, &d);
        CHECK(r == EINPROGRESS || (r == ETIMEDOUT && fxt_now_ns() >= fxt_ts_ns(&d)));
    }
    CHECK(r == EINPROGRESS);
    CHECK(complete_when_ready() == 0);
    return 0;
}

/* More rmutex, rwlock, stats and deadline promises. */
static int rmutex_recover_twice(const struct row *row)
{
    (void)row;
    pid_t d = dead_tid();
    S->rm.owner = d;
    S->rm.depth = 1;
    CHECK(fx_rmutex_recover(&S->rm, d) == 0);
    CALL(fx_rmutex_recover(&S->rm, d));
    return 0;
}

static int rmutex_owner_notrecoverable(const struct row *row)
{
    (void)row;
    S->rm.owner = FX_RMUTEX_NOTRECOVERABLE;
    CALL(fx_rmutex_owner(&S->rm));
    return 0;
}

static int rwlock_unlock_writer(const struct row *row)
{
    (void)row;
    CHECK(fx_rwlock_wrlock(&S->l) == 0);
    CALL(fx_rwlock_unlock(&S->l));
    CHECK(S->l.state == 0);
    return 0;
}

static int stats_reset_all(const struct row *row)
{
    (void)row;
    WANT(fx_stats_enabled() ? 0 : ENOTSUP);
    CALL(fx_stats_reset(NULL, 0));
    return 0;
}

static int stats_enabled_is_0_or_1(const struct row *row)
{
    (void)row;
    int r = CALL(fx_stats_enabled());
    CHECK(r == 0 || r == 1);
    WANT(r);
    return 0;
}

static struct timespec neg_nsec(void) { return (struct timespec){.tv_sec = 0, .tv_nsec = -1}; }

static int mutex_timedlock_held_neg_nsec(const struct row *row)
{
    (void)row;
    S->m.state = FX_MUTEX_LOCKED;
    struct timespec d = neg_nsec();
    CALL(fx_mutex_timedlock(&S->m, &d));
    return 0;
}

static int futex_wait_neg_nsec(const struct row *row)
{
    (void)row;
    struct timespec d = neg_nsec();
    CALL(fx_futex_wait(&S->word, 0, &d));
    return 0;
}

static int sem_timedwait_empty_neg_nsec(const struct row *row)
{
    (void)row;
    struct timespec d = neg_nsec();
    CALL(fx_sem_timedwait(&S->s, &d));
    return 0;
}

/* --- no EINTR: blocking calls under a signal storm --------------------------- */

struct storm_case {
    int (*hold)(void);    /* main thread, before: makes the call block (0: done) */
    int (*prepare)(void); /* the blocked thread, before the call (0: done) */
    void (*call)(void);   /* the blocked thread: the CALL */
    int (*release)(void); /* main thread, after the storm: lets it through (0: done) */
};

static void *storm_blocked(void *arg)
{
    const struct storm_case *sc = arg;
    if (sc->prepare != NULL && sc->prepare() != 0) {
        S->line = -1; /* the blocked thread's set-up failed: no call */
        fxt_flag_set(&S->flag, 2);
        return NULL;
    }
    fxt_flag_set(&S->flag, 1);
    sc->call();
    fxt_flag_set(&S->flag, 2);
    return NULL;
}

static int run_storm(const struct row *row)
{
    const struct storm_case *sc = row->storm;
    if (sc->hold != NULL)
        CHECK(sc->hold() == 0);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, storm_blocked, (void *)sc) == 0);
    CHECK(fxt_flag_wait(&S->flag, 1, HANG_MS));
    struct fxt_storm *st = fxt_storm_start_child(t);
    CHECK(st != NULL);
    int64_t limit = fxt_now_ns() + (int64_t)HANG_MS * 1000000;
    while (fxt_signal_count() < STORM_SIGNALS && __atomic_load_n(&S->flag, __ATOMIC_ACQUIRE) == 1 &&
           fxt_now_ns() < limit) {
        struct timespec pause = {0, 1000000}; /* polling interval only */
        nanosleep(&pause, NULL);
    }
    bool still_blocked = __atomic_load_n(&S->flag, __ATOMIC_ACQUIRE) == 1;
    int released = still_blocked ? sc->release() : 0;
    pthread_join(t, NULL);
    long n = fxt_storm_stop_child(st);
    CHECK(still_blocked);
    CHECK(released == 0); /* it did not return before its release */
    CHECK(n >= STORM_SIGNALS);
    return 0;
}

static struct timespec storm_deadline(void) { return far(); }

static int hold_mutex(void) { return fx_mutex_lock(&S->m); }
static int release_mutex(void) { return fx_mutex_unlock(&S->m); }
static void st_mutex_lock(void) { CALL(fx_mutex_lock(&S->m)); }
static void st_mutex_timedlock(void)
{
    struct timespec d = storm_deadline();
    CALL(fx_mutex_timedlock(&S->m, &d));
}
static const struct storm_case sc_mutex_lock = {hold_mutex, NULL, st_mutex_lock, release_mutex};
static const struct storm_case sc_mutex_timedlock = {hold_mutex, NULL, st_mutex_timedlock,
                                                     release_mutex};

static int hold_rmutex(void) { return fx_rmutex_lock(&S->rm); }
static int release_rmutex(void) { return fx_rmutex_unlock(&S->rm); }
static void st_rmutex_lock(void) { CALL(fx_rmutex_lock(&S->rm)); }
static void st_rmutex_timedlock(void)
{
    struct timespec d = storm_deadline();
    CALL(fx_rmutex_timedlock(&S->rm, &d));
}
static const struct storm_case sc_rmutex_lock = {hold_rmutex, NULL, st_rmutex_lock, release_rmutex};
static const struct storm_case sc_rmutex_timedlock = {hold_rmutex, NULL, st_rmutex_timedlock,
                                                      release_rmutex};

static int prep_cond(void) { return fx_mutex_lock(&S->m); }
static void st_cond_wait(void)
{
    CALL(fx_cond_wait(&S->c, &S->m));
    fx_mutex_unlock(&S->m);
}
static void st_cond_timedwait(void)
{
    struct timespec d = storm_deadline();
    CALL(fx_cond_timedwait(&S->c, &S->m, &d));
    fx_mutex_unlock(&S->m);
}
/* The waiter held m until it waited: taking m here means it is registered. */
static int release_cond(void)
{
    int r = fx_mutex_lock(&S->m);
    if (r == 0)
        r = fx_cond_signal(&S->c);
    return fx_mutex_unlock(&S->m) || r;
}
static const struct storm_case sc_cond_wait = {NULL, prep_cond, st_cond_wait, release_cond};
static const struct storm_case sc_cond_timedwait = {NULL, prep_cond, st_cond_timedwait,
                                                    release_cond};

static int prep_cond_rmutex(void) { return fx_rmutex_lock(&S->rm); }
static void st_cond_wait_rmutex(void)
{
    CALL(fx_cond_wait_rmutex(&S->c, &S->rm));
    fx_rmutex_unlock(&S->rm);
}
static void st_cond_timedwait_rmutex(void)
{
    struct timespec d = storm_deadline();
    CALL(fx_cond_timedwait_rmutex(&S->c, &S->rm, &d));
    fx_rmutex_unlock(&S->rm);
}
static int release_cond_rmutex(void)
{
    int r = fx_rmutex_lock(&S->rm);
    if (r == 0)
        r = fx_cond_signal(&S->c);
    return fx_rmutex_unlock(&S->rm) || r;
}
static const struct storm_case sc_cond_wait_rmutex = {NULL, prep_cond_rmutex, st_cond_wait_rmutex,
                                                      release_cond_rmutex};
static const struct storm_case sc_cond_timedwait_rmutex = {
    NULL, prep_cond_rmutex, st_cond_timedwait_rmutex, release_cond_rmutex};

static int release_sem(void) { return fx_sem_post(&S->s); }
static void st_sem_wait(void) { CALL(fx_sem_wait(&S->s)); }
static void st_sem_timedwait(void)
{
    struct timespec d = storm_deadline();
    CALL(fx_sem_timedwait(&S->s, &d));
}
static const struct storm_case sc_sem_wait = {NULL, NULL, st_sem_wait, release_sem};
static const struct storm_case sc_sem_timedwait = {NULL, NULL, st_sem_timedwait, release_sem};

static int hold_write(void) { return fx_rwlock_wrlock(&S->l); }
static int release_write(void) { return fx_rwlock_wrunlock(&S->l); }
static int hold_read(void) { return fx_rwlock_rdlock(&S->l); }
static int release_read(void) { return fx_rwlock_rdunlock(&S->l); }
static void st_rdlock(void) { CALL(fx_rwlock_rdlock(&S->l)); }
static void st_timedrdlock(void)
{
    struct timespec d = storm_deadline();
    CALL(fx_rwlock_timedrdlock(&S->l, &d));
}
static void st_wrlock(void) { CALL(fx_rwlock_wrlock(&S->l)); }
static void st_timedwrlock(void)
{
    struct timespec d = storm_deadline();
    CALL(fx_rwlock_timedwrlock(&S->l, &d));
}
static const struct storm_case sc_rdlock = {hold_write, NULL, st_rdlock, release_write};
static const struct storm_case sc_timedrdlock = {hold_write, NULL, st_timedrdlock, release_write};
static const struct storm_case sc_wrlock = {hold_read, NULL, st_wrlock, release_read};
static const struct storm_case sc_timedwrlock = {hold_read, NULL, st_timedwrlock, release_read};

static int release_barrier(void) { return fx_barrier_wait(&S->b, 2) != FX_BARRIER_SERIAL_THREAD; }
static void st_barrier_wait(void) { CALL(fx_barrier_wait(&S->b, 2)); }
static void st_barrier_timedwait(void)
{
    struct timespec d = storm_deadline();
    CALL(fx_barrier_timedwait(&S->b, 2, &d));
}
static const struct storm_case sc_barrier_wait = {NULL, NULL, st_barrier_wait, release_barrier};
static const struct storm_case sc_barrier_timedwait = {NULL, NULL, st_barrier_timedwait,
                                                       release_barrier};

static int release_counter(void) { return fx_counter_store(&S->k, 1); }
static void st_counter_wait(void) { CALL(fx_counter_wait(&S->k, 1, NULL)); }
static void st_counter_timedwait(void)
{
    struct timespec d = storm_deadline();
    CALL(fx_counter_wait(&S->k, 1, &d));
}
static const struct storm_case sc_counter_wait = {NULL, NULL, st_counter_wait, release_counter};
static const struct storm_case sc_counter_timedwait = {NULL, NULL, st_counter_timedwait,
                                                       release_counter};
static void st_counter_wait_ge(void) { CALL(fx_counter_wait_ge(&S->k, 1, NULL)); }
static const struct storm_case sc_counter_wait_ge = {NULL, NULL, st_counter_wait_ge,
                                                     release_counter};

/* fx_once: an initialiser thread runs until released; the blocked caller
 * waits for it. */
static pthread_t once_runner;
static void gated_init(void *arg)
{
    (void)arg;
    fxt_flag_wait(&S->flag2, 1, HANG_MS);
}
static void *once_runner_main(void *arg)
{
    (void)arg;
    if (fx_once_call(&S->once, gated_init, NULL) != 0)
        S->line = -1;
    return NULL;
}
static int hold_once(void)
{
    if (pthread_create(&once_runner, NULL, once_runner_main, NULL) != 0)
        return 1;
    int64_t limit = fxt_now_ns() + (int64_t)HANG_MS * 1000000;
    while ((__atomic_load_n(&S->once.state, __ATOMIC_ACQUIRE) & FX_ONCE_RUNNING) == 0) {
        if (fxt_now_ns() > limit)
            return 1;
        sched_yield();
    }
    return 0;
}
static int release_once(void)
{
    fxt_flag_set(&S->flag2, 1);
    return pthread_join(once_runner, NULL);
}
static void st_once_call(void) { CALL(fx_once_call(&S->once, noop, NULL)); }
static const struct storm_case sc_once_call = {hold_once, NULL, st_once_call, release_once};

/* The table ------------------------------------------------------------------ */

#define Q(h, f, quote) h " " f ": \"" quote "\""

static const struct row rows[] = {
    /* time.h */
    ROW(deadline_in_huge_does_not_wrap,
        Q("time.h", "fx_deadline_in",
          "a sum beyond the range of time_t saturates to the largest representable deadline "
          "instead of wrapping"),
        deadline_in_saturates, 0),
    ROW(deadline_in_negative_is_past,
        Q("time.h", "fx_deadline_in", "a negative timeout gives a deadline in the past"),
        deadline_in_negative_is_past, 0),
    ROW(deadline_from_monotonic_is_unchanged,
        Q("time.h", "fx_deadline_from", "for CLOCK_MONOTONIC, *deadline is *abs unchanged"),
        deadline_from_monotonic, 0),
    ROW(deadline_from_realtime_is_as_far_ahead,
        Q("time.h", "fx_deadline_from",
          "the deadline is as far from now(CLOCK_MONOTONIC) as abs is from now(clock_id)"),
        deadline_from_realtime, 0),
    ROW(deadline_from_passed_time_is_passed,
        Q("time.h", "fx_deadline_from", "A time already passed gives a deadline already passed"),
        deadline_from_passed, 0),
    ROW(deadline_from_NULL_abs_gives_EINVAL,
        Q("time.h", "fx_deadline_from", "EINVAL (nothing stored) when abs or deadline is NULL"),
        deadline_from_null_abs, EINVAL),
    ROW(deadline_from_NULL_deadline_gives_EINVAL,
        Q("time.h", "fx_deadline_from", "EINVAL (nothing stored) when abs or deadline is NULL"),
        deadline_from_null_deadline, EINVAL),
    ROW(deadline_from_bad_nsec_gives_EINVAL,
        Q("time.h", "fx_deadline_from",
          "EINVAL (nothing stored) ... when abs->tv_nsec is outside [0, 999999999]"),
        deadline_from_bad_nsec, EINVAL),
    ROW(deadline_from_cpu_clock_gives_EINVAL,
        Q("time.h", "fx_deadline_from",
          "EINVAL (nothing stored) ... when clock_id is another clock"),
        deadline_from_cpu_clock, EINVAL),
    /* version.h */
    ROW(version_is_FUTEXSYNC_VERSION,
        Q("version.h", "fx_version", "The FUTEXSYNC_VERSION of the library the program runs with"),
        version_is_macro, FUTEXSYNC_VERSION),
    ROW(version_string_is_MAJOR_MINOR_PATCH,
        Q("version.h", "fx_version_string", "The same as \"MAJOR.MINOR.PATCH\""),
        version_string_is_macro, 0),
    ROW(layout_version_is_FUTEXSYNC_LAYOUT,
        Q("version.h", "fx_layout_version", "The FUTEXSYNC_LAYOUT of the library"),
        layout_version_is_macro, FUTEXSYNC_LAYOUT),
    /* stats.h */
    NULLPTR(stats_read, EINVAL, Q("stats.h", "fx_stats_read", "EINVAL (out is NULL, ...)")),
    ROW(stats_read_size_0_gives_EINVAL,
        Q("stats.h", "fx_stats_read", "EINVAL (... obj is given with size 0)"),
        stats_read_size0, EINVAL),
    ROW(stats_read_object_gives_0_or_ENOTSUP,
        Q("stats.h", "fx_stats_read", "Returns 0, ... or ENOTSUP in the default build"),
        stats_read_object, 0),
    ROW(stats_reset_size_0_gives_EINVAL,
        Q("stats.h", "fx_stats_reset", "EINVAL (obj given with size 0)"),
        stats_reset_size0, EINVAL),
    NULLPTR(stats_list, EINVAL, Q("stats.h", "fx_stats_list", "EINVAL (count is NULL, ...)")),
    ROW(stats_list_out_NULL_max_1_gives_EINVAL,
        Q("stats.h", "fx_stats_list", "EINVAL (... out is NULL with max > 0)"),
        stats_list_out_null, EINVAL),
    ROW(stats_reset_all_gives_0_or_ENOTSUP,
        Q("stats.h", "fx_stats_reset", "Returns 0, ... or ENOTSUP in the default build"),
        stats_reset_all, 0),
    ROW(stats_enabled_gives_0_or_1,
        Q("stats.h", "fx_stats_enabled",
          "1 when the library was built with FUTEXSYNC_STATS=ON, else 0"),
        stats_enabled_is_0_or_1, 0),

    /* futex.h */
    BADPTR(futex_wait,
           EINVAL, Q("futex.h", "fx_futex_wait", "EINVAL for a NULL or misaligned slot")),
    ROW(futex_wait_value_differs_gives_EAGAIN,
        Q("futex.h", "fx_futex_wait", "EAGAIN if *slot != expected on entry"),
        futex_wait_differs, EAGAIN),
    ROW(futex_wait_value_differs_bad_nsec_gives_EAGAIN,
        Q("futex.h", "fx_futex_wait", "a deadline with tv_nsec out of range when it would sleep"),
        futex_wait_differs_bad_nsec, EAGAIN),
    ROW(futex_wait_past_deadline_gives_ETIMEDOUT,
        Q("futex.h", "fx_futex_wait", "ETIMEDOUT once the deadline has passed"),
        futex_wait_past, ETIMEDOUT),
    ROW(futex_wait_bad_nsec_gives_EINVAL,
        Q("futex.h", "fx_futex_wait",
          "EINVAL for ... a deadline with tv_nsec out of range when it would sleep"),
        futex_wait_bad_nsec, EINVAL),
    ROW(futex_wait_negative_nsec_gives_EINVAL,
        Q("time.h", "top",
          "A deadline whose tv_nsec is outside [0, 999999999] is invalid: an operation that "
          "would block on it returns EINVAL"),
        futex_wait_neg_nsec, EINVAL),
    ROW(futex_wait_woken_gives_0,
        Q("futex.h", "fx_futex_wait", "Returns 0 when woken"),
        futex_wait_woken, 0),
    ROW(futex_wait_signal_gives_EINTR,
        Q("futex.h", "fx_futex_wait", "EINTR if a signal handler ran"),
        futex_eintr_untimed, EINTR),
    ROW(futex_wait_signal_SA_RESTART_gives_EINTR,
        Q("futex.h", "fx_futex_wait", "EINTR if a signal handler ran (also under SA_RESTART)"),
        futex_eintr_untimed_restart, EINTR),
    ROW(futex_timedwait_signal_SA_RESTART_gives_EINTR,
        Q("futex.h", "fx_futex_wait", "EINTR if a signal handler ran (timed, SA_RESTART)"),
        futex_eintr_timed_restart, EINTR),
    BADPTR(futex_wake,
           NEG_EINVAL, Q("futex.h", "fx_futex_wake", "-EINVAL for a NULL or misaligned slot")),
    ROW(futex_wake_negative_count_gives_NEG_EINVAL,
        Q("futex.h", "fx_futex_wake", "-EINVAL for ... a negative count"),
        futex_wake_negative, -EINVAL),
    ROW(futex_wake_count_0_gives_0,
        Q("futex.h", "fx_futex_wake", "0 when count is 0"),
        futex_wake_zero, 0),
    ROW(futex_wake_nobody_gives_0,
        Q("futex.h", "fx_futex_wake", "Returns how many were woken"),
        futex_wake_none, 0),
    ROW(futex_wake_one_sleeper_gives_1,
        Q("futex.h", "fx_futex_wake", "Returns how many were woken"),
        futex_wake_one, 1),

    /* mutex.h */
    BADPTR(mutex_lock, EINVAL, Q("mutex.h", "fx_mutex_lock", "EINVAL for a NULL or misaligned m")),
    BADPTR(mutex_trylock, EINVAL, Q("mutex.h", "fx_mutex_trylock", "or EINVAL")),
    BADPTR(mutex_timedlock, EINVAL, Q("mutex.h", "fx_mutex_timedlock", "EINVAL (bad m, ...)")),
    BADPTR(mutex_unlock, EINVAL, Q("mutex.h", "fx_mutex_unlock", "or EINVAL")),
    BADPTR(mutex_init, EINVAL,
           Q("mutex.h", "fx_mutex_init", "Returns 0, or EINVAL for a NULL or misaligned m")),
    ROW(mutex_lock_free_gives_0,
        Q("mutex.h", "fx_mutex_lock", "Acquires m ... Returns 0"),
        mutex_lock_free, 0),
    ROW(mutex_lock_bad_state_gives_EINVAL,
        Q("mutex.h", "fx_mutex_lock", "EINVAL for ... a state the library never writes"),
        mutex_lock_bad_state, EINVAL),
    ROW(mutex_trylock_free_gives_0,
        Q("mutex.h", "fx_mutex_trylock", "Acquires m only if it is free now. Returns 0"),
        mutex_trylock_free, 0),
    ROW(mutex_trylock_held_gives_EBUSY,
        Q("mutex.h", "fx_mutex_trylock", "EBUSY when it is held"),
        mutex_trylock_held, EBUSY),
    ROW(mutex_timedlock_free_past_gives_0,
        Q("mutex.h", "fx_mutex_timedlock",
          "0 (also when m is free and the deadline already passed)"),
        mutex_timedlock_free_past, 0),
    ROW(mutex_timedlock_free_bad_nsec_gives_0,
        Q("mutex.h", "fx_mutex_timedlock", "tv_nsec out of range when it would block"),
        mutex_timedlock_free_bad_nsec, 0),
    ROW(mutex_timedlock_held_past_gives_ETIMEDOUT,
        Q("mutex.h", "fx_mutex_timedlock", "ETIMEDOUT"),
        mutex_timedlock_held_past, ETIMEDOUT),
    ROW(mutex_timedlock_held_short_gives_ETIMEDOUT,
        Q("mutex.h", "fx_mutex_timedlock", "giving up at the absolute CLOCK_MONOTONIC deadline"),
        mutex_timedlock_held_short, ETIMEDOUT),
    ROW(mutex_timedlock_held_bad_nsec_gives_EINVAL,
        Q("mutex.h", "fx_mutex_timedlock", "EINVAL (... tv_nsec out of range when it would block)"),
        mutex_timedlock_held_bad_nsec, EINVAL),
    ROW(mutex_timedlock_held_negative_nsec_gives_EINVAL,
        Q("time.h", "top", "A deadline whose tv_nsec is outside [0, 999999999] is invalid"),
        mutex_timedlock_held_neg_nsec, EINVAL),
    ROW(mutex_unlock_held_gives_0,
        Q("mutex.h", "fx_mutex_unlock", "Releases m ... Returns 0"),
        mutex_unlock_held, 0),
    ROW(mutex_unlock_free_gives_EPERM,
        Q("mutex.h", "fx_mutex_unlock", "EPERM if m was not locked"),
        mutex_unlock_free, EPERM),
    ROW(mutex_init_makes_it_unlocked,
        Q("mutex.h", "fx_mutex_init", "Makes *m an unlocked mutex"),
        mutex_init_zeroes, 0),

    /* counter.h */
    BADPTR(counter_add, 0,
           Q("counter.h", "top",
             "The one exception: fx_counter_add and fx_counter_load ... for a NULL or misaligned "
             "counter they return 0 and change nothing")),
    BADPTR(counter_load, 0,
           Q("counter.h", "top",
             "The one exception: fx_counter_add and fx_counter_load ... for a NULL or misaligned "
             "counter they return 0 and change nothing")),
    BADPTR(counter_store, EINVAL,
           Q("counter.h", "fx_counter_store", "Returns 0, or EINVAL for a NULL or misaligned c")),
    BADPTR(counter_wait, EINVAL,
           Q("counter.h", "top", "Every other counter call gives EINVAL for it")),
    BADPTR(counter_init, EINVAL,
           Q("counter.h", "fx_counter_init", "Returns 0, or EINVAL for a NULL or misaligned c")),
    ROW(counter_add_wraps_and_returns_new_value,
        Q("counter.h", "fx_counter_add", "Adds delta (wrapping) ... and returns the new value"),
        counter_add_wraps, INT32_MIN),
    ROW(counter_load_gives_the_value,
        Q("counter.h", "fx_counter_load", "Returns the current value"),
        counter_load_value, -7),
    ROW(counter_store_sets_the_value,
        Q("counter.h", "fx_counter_store", "Sets the value"),
        counter_store_sets, 0),
    ROW(counter_init_sets_value_and_clears_waiters,
        Q("counter.h", "fx_counter_init", "Sets the value and clears the waiter count"),
        counter_init_sets, 0),
    ROW(counter_wait_equal_gives_0,
        Q("counter.h", "fx_counter_wait", "Returns 0 (at once if it already equals target)"),
        counter_wait_equal, 0),
    ROW(counter_wait_equal_past_gives_0,
        Q("counter.h", "fx_counter_wait", "0 (at once if it already equals target)"),
        counter_wait_equal_past, 0),
    ROW(counter_wait_equal_bad_nsec_gives_0,
        Q("counter.h", "fx_counter_wait", "tv_nsec out of range when it would block"),
        counter_wait_equal_bad_nsec, 0),
    ROW(counter_wait_past_gives_ETIMEDOUT,
        Q("counter.h", "fx_counter_wait", "ETIMEDOUT"),
        counter_wait_past, ETIMEDOUT),
    ROW(counter_wait_bad_nsec_gives_EINVAL,
        Q("counter.h", "fx_counter_wait", "EINVAL (... tv_nsec out of range when it would block)"),
        counter_wait_bad_nsec, EINVAL),
    ROW(counter_wait_negative_waiters_gives_EINVAL,
        Q("counter.h", "fx_counter_wait", "EINVAL (bad c, negative waiters slot, ...)"),
        counter_wait_negative_waiters, EINVAL),
    BADPTR(counter_wait_ge,
           EINVAL, Q("counter.h", "fx_counter_wait_ge", "return values ... as fx_counter_wait")),
    BADPTR(counter_wait_le,
           EINVAL, Q("counter.h", "fx_counter_wait_le", "return values ... as fx_counter_wait")),
    ROW(counter_wait_ge_above_gives_0,
        Q("counter.h", "fx_counter_wait_ge", "blocks until value >= target"),
        counter_wait_ge_above, 0),
    ROW(counter_wait_ge_above_bad_nsec_gives_0,
        Q("counter.h", "fx_counter_wait_ge",
          "as fx_counter_wait: tv_nsec out of range when it would block"),
        counter_wait_ge_above_bad_nsec, 0),
    ROW(counter_wait_ge_below_past_gives_ETIMEDOUT,
        Q("counter.h", "fx_counter_wait_ge", "Deadline, return values ... as fx_counter_wait"),
        counter_wait_ge_below_past, ETIMEDOUT),
    ROW(counter_wait_ge_below_bad_nsec_gives_EINVAL,
        Q("counter.h", "fx_counter_wait_ge",
          "as fx_counter_wait: EINVAL (tv_nsec out of range when it would block)"),
        counter_wait_ge_below_bad_nsec, EINVAL),
    ROW(counter_wait_ge_negative_waiters_gives_EINVAL,
        Q("counter.h", "fx_counter_wait_ge", "as fx_counter_wait: EINVAL (negative waiters slot)"),
        counter_wait_ge_negative_waiters, EINVAL),
    ROW(counter_wait_le_overshot_gives_0,
        Q("counter.h", "fx_counter_wait_le",
          "A counter that overshoots (a wait group counting down past 0 ...) still releases "
          "them"),
        counter_wait_le_below, 0),
    ROW(counter_wait_le_above_past_gives_ETIMEDOUT,
        Q("counter.h", "fx_counter_wait_le", "Deadline, return values ... as fx_counter_wait"),
        counter_wait_le_above_past, ETIMEDOUT),
    ROW(counter_wait_le_above_bad_nsec_gives_EINVAL,
        Q("counter.h", "fx_counter_wait_le",
          "as fx_counter_wait: EINVAL (tv_nsec out of range when it would block)"),
        counter_wait_le_above_bad_nsec, EINVAL),

    /* rmutex.h */
    BADPTR(rmutex_lock,
           EINVAL, Q("rmutex.h", "fx_rmutex_lock", "EINVAL for a NULL or misaligned m")),
    BADPTR(rmutex_trylock, EINVAL, Q("rmutex.h", "fx_rmutex_trylock", "As fx_rmutex_lock")),
    BADPTR(rmutex_timedlock, EINVAL, Q("rmutex.h", "fx_rmutex_timedlock", "As fx_rmutex_lock")),
    BADPTR(rmutex_unlock, EINVAL, Q("rmutex.h", "fx_rmutex_unlock", "or EINVAL (bad m, ...)")),
    BADPTR(rmutex_consistent,
           EINVAL, Q("rmutex.h", "fx_rmutex_consistent", "(or for bad m / slot values)")),
    BADPTR(rmutex_recover,
           EINVAL, Q("rmutex.h", "fx_rmutex_recover", "EINVAL for bad m or slot values")),
    BADPTR(rmutex_owner,
           NEG_EINVAL, Q("rmutex.h", "fx_rmutex_owner", "-EINVAL for a NULL or misaligned m")),
    BADPTR(rmutex_init, EINVAL,
           Q("rmutex.h", "fx_rmutex_init", "Returns 0, or EINVAL for a NULL or misaligned m")),
    ROW(rmutex_lock_free_gives_0,
        Q("rmutex.h", "fx_rmutex_lock", "Acquires m ... Returns 0"),
        rmutex_lock_free, 0),
    ROW(rmutex_lock_reentry_gives_0,
        Q("rmutex.h", "fx_rmutex_lock", "or re-enters it when the caller owns it (depth + 1)"),
        rmutex_lock_reentry, 0),
    ROW(rmutex_lock_dead_owner_gives_EOWNERDEAD,
        Q("rmutex.h", "fx_rmutex_lock", "EOWNERDEAD when the previous owner died holding it"),
        rmutex_lock_dead_owner, EOWNERDEAD),
    ROW(rmutex_lock_orphaned_gives_EOWNERDEAD,
        Q("layout.h", "FX_RMUTEX_ORPHANED", "the next acquirer gets EOWNERDEAD"),
        rmutex_lock_orphaned, EOWNERDEAD),
    ROW(rmutex_lock_notrecoverable_gives_ENOTRECOVERABLE,
        Q("rmutex.h", "fx_rmutex_lock", "ENOTRECOVERABLE (not acquired)"),
        rmutex_lock_notrecoverable, ENOTRECOVERABLE),
    ROW(rmutex_lock_depth_max_gives_EAGAIN,
        Q("rmutex.h", "fx_rmutex_lock", "EAGAIN when re-entry would pass the largest depth"),
        rmutex_lock_depth_max, EAGAIN),
    ROW(rmutex_lock_bad_owner_gives_EINVAL,
        Q("rmutex.h", "fx_rmutex_lock", "EINVAL for ... a slot value the library never writes"),
        rmutex_lock_bad_owner, EINVAL),
    ROW(rmutex_trylock_live_owner_gives_EBUSY,
        Q("rmutex.h", "fx_rmutex_trylock", "EBUSY when another live thread owns m"),
        rmutex_trylock_live_owner, EBUSY),
    ROW(rmutex_trylock_dead_owner_gives_EOWNERDEAD,
        Q("rmutex.h", "fx_rmutex_trylock", "a dead owner's mutex is taken with EOWNERDEAD at once"),
        rmutex_trylock_dead_owner, EOWNERDEAD),
    ROW(rmutex_trylock_dead_kernel_tracked_owner_gives_EBUSY,
        Q("rmutex.h", "top", "A word naming a TID without PROBED is never judged by its TID."),
        rmutex_trylock_dead_kernel_owner, EBUSY),
    ROW(rmutex_timedlock_dead_kernel_tracked_owner_past_gives_ETIMEDOUT,
        Q("rmutex.h", "top", "A word naming a TID without PROBED is never judged by its TID."),
        rmutex_timedlock_dead_kernel_owner_past, ETIMEDOUT),
    ROW(rmutex_trylock_live_probed_owner_gives_EBUSY,
        Q("rmutex.h", "fx_rmutex_trylock", "EBUSY when another live thread owns m"),
        rmutex_trylock_live_probed_owner, EBUSY),
    ROW(rmutex_timedlock_free_past_gives_0,
        Q("rmutex.h", "fx_rmutex_timedlock",
          "Succeeds even with a past deadline when m can be taken at once (free"),
        rmutex_timedlock_free_past, 0),
    ROW(rmutex_timedlock_reentry_past_gives_0,
        Q("rmutex.h", "fx_rmutex_timedlock",
          "Succeeds even with a past deadline when m can be taken at once (... re-entry"),
        rmutex_timedlock_reentry_past, 0),
    ROW(rmutex_timedlock_dead_owner_past_gives_EOWNERDEAD,
        Q("rmutex.h", "fx_rmutex_timedlock", "(... or a dead owner, as trylock)"),
        rmutex_timedlock_dead_owner_past, EOWNERDEAD),
    ROW(rmutex_timedlock_dead_owner_bad_nsec_gives_EOWNERDEAD,
        Q("rmutex.h", "fx_rmutex_timedlock",
          "EINVAL also for a tv_nsec outside [0, 999999999] when it would wait"),
        rmutex_timedlock_dead_owner_bad_nsec, EOWNERDEAD),
    ROW(rmutex_timedlock_live_owner_past_gives_ETIMEDOUT,
        Q("rmutex.h", "fx_rmutex_timedlock",
          "giving up at the absolute CLOCK_MONOTONIC deadline ... with ETIMEDOUT"),
        rmutex_timedlock_live_owner_past, ETIMEDOUT),
    ROW(rmutex_timedlock_live_owner_bad_nsec_gives_EINVAL,
        Q("rmutex.h", "fx_rmutex_timedlock",
          "EINVAL also for a tv_nsec outside [0, 999999999] when it would wait"),
        rmutex_timedlock_live_owner_bad_nsec, EINVAL),
    ROW(rmutex_timedlock_free_bad_nsec_gives_0,
        Q("rmutex.h", "fx_rmutex_timedlock",
          "EINVAL also for a tv_nsec outside [0, 999999999] when it would wait"),
        rmutex_timedlock_free_bad_nsec, 0),
    ROW(rmutex_unlock_owner_gives_0,
        Q("rmutex.h", "fx_rmutex_unlock", "at depth 0 releases m ... Returns 0"),
        rmutex_unlock_owner, 0),
    ROW(rmutex_lock_free_with_stale_depth_gives_0_at_depth_1,
        Q("layout.h", "top",
          "depth ... meaningful only while a thread owns the mutex (every acquisition overwrites it)"),
        rmutex_lock_free_stale_depth, 0),
    ROW(rmutex_unlock_not_owner_gives_EPERM,
        Q("rmutex.h", "fx_rmutex_unlock", "EPERM when the caller does not own m"),
        rmutex_unlock_not_owner, EPERM),
    ROW(rmutex_unlock_free_gives_EPERM,
        Q("rmutex.h", "fx_rmutex_unlock", "EPERM when the caller does not own m"),
        rmutex_unlock_free, EPERM),
    ROW(rmutex_unlock_bad_depth_gives_EINVAL,
        Q("rmutex.h", "fx_rmutex_unlock",
          "a depth slot the library never writes: nothing is released"),
        rmutex_unlock_bad_depth, EINVAL),
    ROW(rmutex_unlock_inconsistent_makes_it_notrecoverable,
        Q("rmutex.h", "fx_rmutex_unlock", "the final unlock makes m not recoverable"),
        rmutex_unlock_inconsistent, 0),
    ROW(rmutex_consistent_after_EOWNERDEAD_gives_0,
        Q("rmutex.h", "fx_rmutex_consistent",
          "Marks the state protected by m repaired ... Returns 0"),
        rmutex_consistent_inconsistent, 0),
    ROW(rmutex_consistent_not_owner_gives_EPERM,
        Q("rmutex.h", "fx_rmutex_consistent", "EPERM when the caller does not own m"),
        rmutex_consistent_not_owner, EPERM),
    ROW(rmutex_consistent_not_inconsistent_gives_EINVAL,
        Q("rmutex.h", "fx_rmutex_consistent", "EINVAL when m is not inconsistent"),
        rmutex_consistent_consistent, EINVAL),
    ROW(rmutex_recover_dead_owner_gives_0,
        Q("rmutex.h", "fx_rmutex_recover",
          "Returns 0 when it released m ... the next acquirer gets EOWNERDEAD"),
        rmutex_recover_dead, 0),
    ROW(rmutex_recover_not_owner_gives_EPERM,
        Q("rmutex.h", "fx_rmutex_recover", "EPERM when dead_tid is not the owner"),
        rmutex_recover_not_owner, EPERM),
    ROW(rmutex_recover_free_gives_EPERM,
        Q("rmutex.h", "fx_rmutex_recover", "EPERM when dead_tid is not the owner"),
        rmutex_recover_free, EPERM),
    ROW(rmutex_recover_again_gives_EPERM,
        Q("rmutex.h", "fx_rmutex_recover",
          "EPERM ... (also when another thread already recovered m)"),
        rmutex_recover_twice, EPERM),
    ROW(rmutex_owner_held_gives_the_owner_tid,
        Q("rmutex.h", "fx_rmutex_owner", "The owner's TID"),
        rmutex_owner_held, 0),
    ROW(rmutex_owner_contended_gives_the_owner_tid,
        Q("rmutex.h", "fx_rmutex_owner", "The owner's TID"),
        rmutex_owner_contended, 0),
    ROW(rmutex_owner_probed_gives_the_owner_tid,
        Q("rmutex.h", "fx_rmutex_owner", "The owner's TID"),
        rmutex_owner_probed, 0),
    ROW(rmutex_owner_free_gives_0,
        Q("rmutex.h", "fx_rmutex_owner", "0 when no thread owns m (free"),
        rmutex_owner_free, 0),
    ROW(rmutex_owner_orphaned_gives_0,
        Q("rmutex.h", "fx_rmutex_owner", "0 when no thread owns m (... orphaned"),
        rmutex_owner_orphaned, 0),
    ROW(rmutex_owner_notrecoverable_gives_0,
        Q("rmutex.h", "fx_rmutex_owner", "0 when no thread owns m (... or not recoverable)"),
        rmutex_owner_notrecoverable, 0),
    ROW(rmutex_owner_bad_owner_gives_NEG_EINVAL,
        Q("rmutex.h", "fx_rmutex_owner", "-EINVAL for ... a value the library never writes"),
        rmutex_owner_bad, -EINVAL),
    ROW(rmutex_init_makes_it_free,
        Q("rmutex.h", "fx_rmutex_init", "Makes *m a free mutex"),
        rmutex_init_zeroes, 0),

    /* cond.h */
    BADPTR(cond_wait, EINVAL, Q("cond.h", "fx_cond_wait", "EINVAL for a NULL or misaligned c")),
    BADPTR(cond_timedwait,
           EINVAL, Q("cond.h", "fx_cond_timedwait", "EPERM or EINVAL as fx_cond_wait")),
    BADPTR(cond_wait_rmutex,
           EINVAL, Q("cond.h", "fx_cond_wait_rmutex", "EINVAL NULL or misaligned c")),
    BADPTR(cond_timedwait_rmutex,
           EINVAL, Q("cond.h", "fx_cond_timedwait_rmutex", "Returns as fx_cond_wait_rmutex")),
    BADPTR(cond_wait_m,
           EINVAL, Q("cond.h", "fx_cond_wait", "EINVAL for a NULL or misaligned ... m")),
    BADPTR(cond_timedwait_m,
           EINVAL, Q("cond.h", "fx_cond_timedwait", "EPERM or EINVAL as fx_cond_wait")),
    BADPTR(cond_wait_rmutex_m,
           EINVAL, Q("cond.h", "fx_cond_wait_rmutex", "EINVAL NULL or misaligned ... m")),
    BADPTR(cond_timedwait_rmutex_m,
           EINVAL, Q("cond.h", "fx_cond_timedwait_rmutex", "Returns as fx_cond_wait_rmutex")),
    BADPTR(cond_signal, EINVAL, Q("cond.h", "fx_cond_signal", "EINVAL for a NULL or misaligned c")),
    BADPTR(cond_broadcast,
           EINVAL, Q("cond.h", "fx_cond_broadcast", "EINVAL for a NULL or misaligned c")),
    BADPTR(cond_init, EINVAL,
           Q("cond.h", "fx_cond_init", "Returns 0, or EINVAL for a NULL or misaligned c")),
    ROW(cond_wait_unlocked_mutex_gives_EPERM,
        Q("cond.h", "fx_cond_wait",
          "EPERM if m is not locked ... the call did not wait and m is as it was"),
        cond_wait_unlocked, EPERM),
    ROW(cond_wait_mutex_inside_cond_gives_EINVAL,
        Q("cond.h", "fx_cond_wait", "EINVAL for ... a mutex overlapping c"),
        cond_wait_overlap, EINVAL),
    ROW(cond_wait_negative_waiters_gives_EINVAL,
        Q("cond.h", "top", "negative waiters ... makes the operations that read it return EINVAL"),
        cond_wait_negative_waiters, EINVAL),
    ROW(cond_wait_INT32_MAX_waiters_gives_EINVAL,
        Q("README", "bad input",
          "a slot holding a value no operation of the library writes gives EINVAL, and nothing "
          "hangs"),
        cond_wait_max_waiters, EINVAL),
    ROW(cond_wait_bad_mutex_token_gives_EINVAL,
        Q("cond.h", "top",
          "an impossible mutex token makes the operations that read it return EINVAL"),
        cond_wait_bad_token, EINVAL),
    ROW(cond_wait_bad_mutex_state_gives_EINVAL,
        Q("cond.h", "fx_cond_wait",
          "EINVAL for ... a slot value the library never writes in c or m"),
        cond_wait_bad_mutex_state, EINVAL),
    ROW(cond_timedwait_past_gives_ETIMEDOUT_mutex_held,
        Q("cond.h", "fx_cond_timedwait",
          "ETIMEDOUT ... (also at once for a deadline already passed), with m re-acquired"),
        cond_timedwait_past, ETIMEDOUT),
    ROW(cond_timedwait_short_gives_ETIMEDOUT_mutex_held,
        Q("cond.h", "fx_cond_timedwait",
          "ETIMEDOUT when the deadline passed first ... with m re-acquired"),
        cond_timedwait_short, ETIMEDOUT),
    ROW(cond_timedwait_bad_nsec_gives_EINVAL,
        Q("cond.h", "fx_cond_timedwait",
          "EINVAL for a deadline whose tv_nsec is outside [0, 999999999]"),
        cond_timedwait_bad_nsec, EINVAL),
    ROW(cond_wait_rmutex_free_gives_EPERM,
        Q("cond.h", "fx_cond_wait_rmutex",
          "EPERM the caller does not own m (free, ...): no wait, nothing changed"),
        cond_wait_rmutex_free, EPERM),
    ROW(cond_wait_rmutex_other_owner_gives_EPERM,
        Q("cond.h", "fx_cond_wait_rmutex",
          "EPERM the caller does not own m (... owned by another thread"),
        cond_wait_rmutex_other_owner, EPERM),
    ROW(cond_wait_rmutex_inconsistent_gives_ENOTRECOVERABLE,
        Q("cond.h", "fx_cond_wait_rmutex",
          "or the caller held it INCONSISTENT ... releasing it made it not recoverable"),
        cond_wait_rmutex_inconsistent, ENOTRECOVERABLE),
    ROW(cond_wait_rmutex_bad_depth_gives_EINVAL,
        Q("cond.h", "fx_cond_wait_rmutex",
          "EINVAL ... a slot value the library never writes in ... the owner's depth slot"),
        cond_wait_rmutex_bad_depth, EINVAL),
    ROW(cond_timedwait_rmutex_past_gives_ETIMEDOUT_at_depth,
        Q("cond.h", "fx_cond_timedwait_rmutex",
          "ETIMEDOUT ... (at once for a deadline already passed), with m re-acquired at its "
          "depth"),
        cond_timedwait_rmutex_past, ETIMEDOUT),
    ROW(cond_timedwait_rmutex_bad_nsec_gives_EINVAL,
        Q("cond.h", "fx_cond_timedwait_rmutex",
          "EINVAL also for a deadline whose tv_nsec is outside [0, 999999999] (nothing changed)"),
        cond_timedwait_rmutex_bad_nsec, EINVAL),
    ROW(cond_signal_nobody_gives_0,
        Q("cond.h", "fx_cond_signal", "Returns 0"),
        cond_signal_nobody, 0),
    ROW(cond_signal_negative_waiters_gives_EINVAL,
        Q("cond.h", "fx_cond_signal", "EINVAL for ... a negative waiters slot"),
        cond_signal_negative_waiters, EINVAL),
    ROW(cond_broadcast_nobody_gives_0,
        Q("cond.h", "fx_cond_broadcast", "Returns 0"),
        cond_broadcast_nobody, 0),
    ROW(cond_broadcast_negative_waiters_gives_EINVAL,
        Q("cond.h", "fx_cond_broadcast", "EINVAL for ... a negative waiters slot"),
        cond_broadcast_negative_waiters, EINVAL),
    ROW(cond_broadcast_park_set_gives_EINVAL,
        Q("cond.h", "fx_cond_broadcast", "EINVAL for ... a non-zero park slot"),
        cond_broadcast_park, EINVAL),
    ROW(cond_init_makes_it_unused,
        Q("cond.h", "fx_cond_init", "Makes *c a condition variable nobody waits on"),
        cond_init_zeroes, 0),

    /* sem.h */
    BADPTR(sem_init, EINVAL, Q("sem.h", "fx_sem_init", "EINVAL for a NULL or misaligned s")),
    BADPTR(sem_post, EINVAL, Q("sem.h", "fx_sem_post", "or EINVAL")),
    BADPTR(sem_wait, EINVAL, Q("sem.h", "fx_sem_wait", "Returns 0 or EINVAL (bad s")),
    BADPTR(sem_trywait, EINVAL, Q("sem.h", "fx_sem_trywait", "or EINVAL")),
    BADPTR(sem_timedwait, EINVAL, Q("sem.h", "fx_sem_timedwait", "EINVAL (bad s")),
    BADPTR(sem_value, NEG_EINVAL, Q("sem.h", "fx_sem_value", "-EINVAL for a NULL or misaligned s")),
    ROW(sem_init_in_range_gives_0,
        Q("sem.h", "fx_sem_init", "Sets the value ... and clears the waiter count ... Returns 0"),
        sem_init_value, 0),
    ROW(sem_init_above_max_gives_EINVAL,
        Q("sem.h", "fx_sem_init", "EINVAL for ... a value outside that range"),
        sem_init_above_max, EINVAL),
    ROW(sem_init_negative_gives_EINVAL,
        Q("sem.h", "fx_sem_init", "EINVAL for ... a value outside that range"),
        sem_init_negative, EINVAL),
    ROW(sem_post_gives_0,
        Q("sem.h", "fx_sem_post", "Adds one token ... Returns 0"),
        sem_post_adds, 0),
    ROW(sem_post_at_max_gives_EOVERFLOW,
        Q("sem.h", "fx_sem_post",
          "EOVERFLOW when the value is already FX_SEM_VALUE_MAX (nothing changes)"),
        sem_post_max, EOVERFLOW),
    ROW(sem_post_negative_value_gives_EINVAL,
        Q("sem.h", "top",
          "A negative value is one the library never writes: every operation returns EINVAL"),
        sem_post_negative_value, EINVAL),
    ROW(sem_post_negative_waiters_gives_EINVAL,
        Q("sem.h", "top", "waiters ... Negative: never written, EINVAL"),
        sem_post_negative_waiters, EINVAL),
    ROW(sem_wait_token_gives_0,
        Q("sem.h", "fx_sem_wait", "Takes one token ... Returns 0"),
        sem_wait_token, 0),
    ROW(sem_wait_negative_value_gives_EINVAL,
        Q("sem.h", "top", "A negative value ...: every operation returns EINVAL"),
        sem_wait_negative_value, EINVAL),
    ROW(sem_wait_token_negative_waiters_gives_EINVAL,
        Q("sem.h", "top", "waiters ... Negative: never written, EINVAL"),
        sem_wait_token_negative_waiters, EINVAL),
    ROW(sem_wait_empty_negative_waiters_gives_EINVAL,
        Q("sem.h", "top", "waiters ... Negative: never written, EINVAL"),
        sem_wait_empty_negative_waiters, EINVAL),
    ROW(sem_trywait_token_gives_0,
        Q("sem.h", "fx_sem_trywait", "Takes one token only if one is available now. Returns 0"),
        sem_trywait_token, 0),
    ROW(sem_trywait_empty_gives_EAGAIN,
        Q("sem.h", "fx_sem_trywait", "EAGAIN when the value is 0"),
        sem_trywait_empty, EAGAIN),
    ROW(sem_trywait_negative_waiters_gives_EINVAL,
        Q("sem.h", "top", "waiters ... Negative: never written, EINVAL"),
        sem_trywait_negative_waiters, EINVAL),
    ROW(sem_timedwait_token_past_gives_0,
        Q("sem.h", "fx_sem_timedwait",
          "0 (also when a token is available and the deadline already passed)"),
        sem_timedwait_token_past, 0),
    ROW(sem_timedwait_token_bad_nsec_gives_0,
        Q("sem.h", "fx_sem_timedwait", "tv_nsec out of range when it would block"),
        sem_timedwait_token_bad_nsec, 0),
    ROW(sem_timedwait_empty_past_gives_ETIMEDOUT,
        Q("sem.h", "fx_sem_timedwait", "ETIMEDOUT"),
        sem_timedwait_empty_past, ETIMEDOUT),
    ROW(sem_timedwait_empty_bad_nsec_gives_EINVAL,
        Q("sem.h", "fx_sem_timedwait", "EINVAL (... tv_nsec out of range when it would block)"),
        sem_timedwait_empty_bad_nsec, EINVAL),
    ROW(sem_timedwait_empty_negative_nsec_gives_EINVAL,
        Q("time.h", "top", "A deadline whose tv_nsec is outside [0, 999999999] is invalid"),
        sem_timedwait_empty_neg_nsec, EINVAL),
    ROW(sem_timedwait_token_negative_waiters_gives_EINVAL,
        Q("sem.h", "top", "waiters ... Negative: never written, EINVAL"),
        sem_timedwait_token_negative_waiters, EINVAL),
    ROW(sem_value_gives_the_value,
        Q("sem.h", "fx_sem_value", "The current value (>= 0"),
        sem_value_value, 17),
    ROW(sem_value_negative_slot_gives_NEG_EINVAL,
        Q("sem.h", "fx_sem_value", "-EINVAL for ... a negative value slot"),
        sem_value_negative, -EINVAL),

    /* rwlock.h */
    BADPTR(rwlock_rdlock,
           EINVAL, Q("rwlock.h", "fx_rwlock_rdlock", "EINVAL (NULL or misaligned l")),
    BADPTR(rwlock_tryrdlock, EINVAL, Q("rwlock.h", "fx_rwlock_tryrdlock", "or EINVAL")),
    BADPTR(rwlock_timedrdlock, EINVAL, Q("rwlock.h", "fx_rwlock_timedrdlock", "or EINVAL")),
    BADPTR(rwlock_wrlock, EINVAL, Q("rwlock.h", "fx_rwlock_wrlock", "Returns 0 or EINVAL")),
    BADPTR(rwlock_trywrlock, EINVAL, Q("rwlock.h", "fx_rwlock_trywrlock", "0, EBUSY, or EINVAL")),
    BADPTR(rwlock_timedwrlock,
           EINVAL, Q("rwlock.h", "fx_rwlock_timedwrlock", "0, ETIMEDOUT, or EINVAL")),
    BADPTR(rwlock_unlock, EINVAL, Q("rwlock.h", "fx_rwlock_unlock", "or EINVAL")),
    BADPTR(rwlock_rdunlock, EINVAL, Q("rwlock.h", "fx_rwlock_rdunlock", "or EINVAL")),
    BADPTR(rwlock_wrunlock, EINVAL, Q("rwlock.h", "fx_rwlock_wrunlock", "or EINVAL")),
    BADPTR(rwlock_init, EINVAL,
           Q("rwlock.h", "fx_rwlock_init", "Returns 0, or EINVAL for a NULL or misaligned l")),
    ROW(rwlock_rdlock_free_gives_0,
        Q("rwlock.h", "fx_rwlock_rdlock", "Acquires l for reading ... Returns 0"),
        rwlock_rdlock_free, 0),
    ROW(rwlock_rdlock_max_readers_gives_EAGAIN,
        Q("rwlock.h", "fx_rwlock_rdlock", "EAGAIN when FX_RWLOCK_MAX_READERS readers hold it"),
        rwlock_rdlock_max, EAGAIN),
    ROW(rwlock_rdlock_bad_state_gives_EINVAL,
        Q("rwlock.h", "fx_rwlock_rdlock", "EINVAL (... a state the library never writes)"),
        rwlock_rdlock_bad, EINVAL),
    ROW(rwlock_wrlock_bad_state_gives_EINVAL,
        Q("layout.h", "top", "bits 24..28 always 0 (a state with one set gives EINVAL)"),
        rwlock_wrlock_bad, EINVAL),
    ROW(rwlock_tryrdlock_write_held_gives_EBUSY,
        Q("rwlock.h", "fx_rwlock_tryrdlock", "EBUSY when a writer holds it"),
        rwlock_tryrdlock_writer, EBUSY),
    ROW(rwlock_tryrdlock_writer_pending_gives_EBUSY,
        Q("rwlock.h", "fx_rwlock_tryrdlock", "EBUSY when a writer ... waits for it"),
        rwlock_tryrdlock_pending, EBUSY),
    ROW(rwlock_tryrdlock_max_readers_gives_EAGAIN,
        Q("rwlock.h", "fx_rwlock_tryrdlock", "EAGAIN (too many readers)"),
        rwlock_tryrdlock_max, EAGAIN),
    ROW(rwlock_tryrdlock_readers_gives_0,
        Q("rwlock.h", "fx_rwlock_tryrdlock",
          "Acquires l for reading only if that is possible now: returns 0"),
        rwlock_tryrdlock_readers, 0),
    ROW(rwlock_timedrdlock_free_past_gives_0,
        Q("rwlock.h", "fx_rwlock_timedrdlock",
          "0 (also when it can be taken at once and the deadline already passed)"),
        rwlock_timedrdlock_free_past, 0),
    ROW(rwlock_timedrdlock_free_bad_nsec_gives_0,
        Q("rwlock.h", "fx_rwlock_timedrdlock", "tv_nsec out of range when it would block"),
        rwlock_timedrdlock_free_bad_nsec, 0),
    ROW(rwlock_timedrdlock_write_held_past_gives_ETIMEDOUT,
        Q("rwlock.h", "fx_rwlock_timedrdlock", "ETIMEDOUT"),
        rwlock_timedrdlock_writer_past, ETIMEDOUT),
    ROW(rwlock_timedrdlock_write_held_bad_nsec_gives_EINVAL,
        Q("rwlock.h", "fx_rwlock_timedrdlock",
          "EINVAL (also for tv_nsec out of range when it would block)"),
        rwlock_timedrdlock_writer_bad_nsec, EINVAL),
    ROW(rwlock_timedrdlock_max_readers_gives_EAGAIN,
        Q("rwlock.h", "fx_rwlock_timedrdlock", "EAGAIN"),
        rwlock_timedrdlock_max, EAGAIN),
    ROW(rwlock_wrlock_free_gives_0,
        Q("rwlock.h", "fx_rwlock_wrlock", "Acquires l for writing ... Returns 0"),
        rwlock_wrlock_free, 0),
    ROW(rwlock_trywrlock_read_held_gives_EBUSY,
        Q("rwlock.h", "fx_rwlock_trywrlock",
          "Acquires l for writing only if it is free now: 0, EBUSY"),
        rwlock_trywrlock_readers, EBUSY),
    ROW(rwlock_timedwrlock_free_past_gives_0,
        Q("rwlock.h", "fx_rwlock_timedwrlock",
          "as for fx_rwlock_timedrdlock (0 also when it can be taken at once)"),
        rwlock_timedwrlock_free_past, 0),
    ROW(rwlock_timedwrlock_read_held_bad_nsec_gives_EINVAL,
        Q("rwlock.h", "fx_rwlock_timedwrlock", "EINVAL, as for fx_rwlock_timedrdlock"),
        rwlock_timedwrlock_readers_bad_nsec, EINVAL),
    ROW(rwlock_timedwrlock_past_timeout_leaves_readers_admitted,
        Q("rwlock.h", "fx_rwlock_tryrdlock",
          "EBUSY when a writer holds it or waits for it (a timed-out writer does neither)"),
        rwlock_timedwrlock_readers_past, ETIMEDOUT),
    ROW(rwlock_timedwrlock_short_timeout_leaves_readers_admitted,
        Q("rwlock.h", "fx_rwlock_tryrdlock",
          "EBUSY when a writer holds it or waits for it (a timed-out writer does neither)"),
        rwlock_timedwrlock_readers_short, ETIMEDOUT),
    ROW(rwlock_unlock_free_gives_EPERM,
        Q("rwlock.h", "fx_rwlock_unlock", "EPERM if l was not locked"),
        rwlock_unlock_free, EPERM),
    ROW(rwlock_unlock_read_held_gives_0,
        Q("rwlock.h", "fx_rwlock_unlock", "Releases one hold of l, read or write ... Returns 0"),
        rwlock_unlock_reader, 0),
    ROW(rwlock_unlock_write_held_gives_0,
        Q("rwlock.h", "fx_rwlock_unlock",
          "Releases one hold of l, read or write (the state tells which) ... Returns 0"),
        rwlock_unlock_writer, 0),
    ROW(rwlock_rdunlock_write_held_gives_EPERM,
        Q("rwlock.h", "fx_rwlock_rdunlock",
          "EPERM if l was not read-held (free or write-held: nothing changes)"),
        rwlock_rdunlock_writer, EPERM),
    ROW(rwlock_rdunlock_free_gives_EPERM,
        Q("rwlock.h", "fx_rwlock_rdunlock", "EPERM if l was not read-held (free"),
        rwlock_rdunlock_free, EPERM),
    ROW(rwlock_wrunlock_read_held_gives_EPERM,
        Q("rwlock.h", "fx_rwlock_wrunlock", "EPERM if l was not write-held (nothing changes)"),
        rwlock_wrunlock_reader, EPERM),
    ROW(rwlock_wrunlock_write_held_gives_0,
        Q("rwlock.h", "fx_rwlock_wrunlock", "Releases the write hold of l ... Returns 0"),
        rwlock_wrunlock_writer, 0),
    ROW(rwlock_init_makes_it_unlocked,
        Q("rwlock.h", "fx_rwlock_init", "Makes *l an unlocked lock"),
        rwlock_init_zeroes, 0),

    /* barrier.h */
    BADPTR(barrier_wait, EINVAL, Q("barrier.h", "fx_barrier_wait", "EINVAL: NULL or misaligned b")),
    BADPTR(barrier_timedwait,
           EINVAL, Q("barrier.h", "fx_barrier_timedwait", "EINVAL (as for fx_barrier_wait")),
    BADPTR(barrier_init, EINVAL,
           Q("barrier.h", "fx_barrier_init", "Returns 0, or EINVAL for a NULL or misaligned b")),
    ROW(barrier_wait_one_party_gives_SERIAL,
        Q("barrier.h", "fx_barrier_wait", "Returns FX_BARRIER_SERIAL_THREAD (the last arrival)"),
        barrier_wait_one, FX_BARRIER_SERIAL_THREAD),
    ROW(barrier_wait_0_parties_gives_EINVAL,
        Q("barrier.h", "fx_barrier_wait",
          "EINVAL: ... parties outside 1 .. FX_BARRIER_MAX_PARTIES"),
        barrier_wait_zero_parties, EINVAL),
    ROW(barrier_wait_too_many_parties_gives_EINVAL,
        Q("barrier.h", "fx_barrier_wait",
          "EINVAL: ... parties outside 1 .. FX_BARRIER_MAX_PARTIES"),
        barrier_wait_too_many, EINVAL),
    ROW(barrier_wait_other_count_gives_EINVAL,
        Q("barrier.h", "fx_barrier_wait",
          "EINVAL: ... parties different from the count recorded by the first wait"),
        barrier_wait_other_count, EINVAL),
    ROW(barrier_wait_bad_parties_slot_gives_EINVAL,
        Q("barrier.h", "fx_barrier_wait",
          "EINVAL: ... a slot holding a value the library never writes"),
        barrier_wait_bad_parties_slot, EINVAL),
    ROW(barrier_timedwait_past_gives_ETIMEDOUT_withdrawn,
        Q("barrier.h", "fx_barrier_timedwait",
          "gives up at the absolute CLOCK_MONOTONIC deadline ..., withdrawing its arrival"),
        barrier_timedwait_past, ETIMEDOUT),
    ROW(barrier_timedwait_bad_nsec_gives_EINVAL,
        Q("barrier.h", "fx_barrier_timedwait",
          "EINVAL (... a tv_nsec out of range when it would block"),
        barrier_timedwait_bad_nsec, EINVAL),
    ROW(barrier_timedwait_last_bad_nsec_gives_SERIAL,
        Q("barrier.h", "fx_barrier_timedwait", "the last arrival never blocks"),
        barrier_timedwait_last_bad_nsec, FX_BARRIER_SERIAL_THREAD),
    ROW(barrier_init_forgets_the_count,
        Q("barrier.h", "fx_barrier_init",
          "Makes *b an unused barrier ... forgetting the party count"),
        barrier_init_zeroes, 0),

    /* once.h */
    BADPTR(once_call, EINVAL, Q("once.h", "fx_once_call", "EINVAL (NULL or misaligned o")),
    ROW(once_call_first_runs_fn_gives_0,
        Q("once.h", "fx_once_call", "Runs fn(arg) ... Returns 0 once fn has returned"),
        once_call_runs, 0),
    ROW(once_call_done_gives_0_without_fn,
        Q("once.h", "fx_once_call", "0 once fn has returned (in this call or an earlier one"),
        once_call_done, 0),
    ROW(once_call_NULL_fn_gives_EINVAL,
        Q("once.h", "fx_once_call", "EINVAL (... NULL fn"),
        once_call_null_fn, EINVAL),
    ROW(once_call_bad_state_gives_EINVAL,
        Q("once.h", "fx_once_call", "EINVAL (... a state the library never writes)"),
        once_call_bad_state, EINVAL),
    ROW(once_call_from_own_initialiser_gives_EDEADLK,
        Q("once.h", "fx_once_call",
          "EDEADLK when called by the thread that is running the initialiser of o"),
        once_call_recursive, EDEADLK),

    /* async.h */
    NULLPTR(async_create, EINVAL, Q("async.h", "fx_async_create", "EINVAL (NULL waiter")),
    NULLPTR(async_destroy, EINVAL, Q("async.h", "fx_async_destroy", "EINVAL for NULL")),
    NULLPTR(async_fd, NEG_EINVAL, Q("async.h", "fx_async_fd", "-EINVAL for NULL")),
    NULLPTR(async_backend, NEG_EINVAL, Q("async.h", "fx_async_backend", "-EINVAL for NULL")),
    NULLPTR(async_complete,
            EINVAL, Q("async.h", "fx_async_complete", "EINVAL (README: NULL waiter)")),
    NULLPTR(async_cancel, EINVAL, Q("async.h", "fx_async_cancel", "EINVAL for NULL")),
    NULLPTR(async_futex_wait_w,
            EINVAL, Q("async.h", "fx_async_futex_wait", "EINVAL (README: NULL waiter)")),
    NULLPTR(async_mutex_lock_w,
            EINVAL, Q("async.h", "fx_async_mutex_lock", "EINVAL (README: NULL waiter)")),
    NULLPTR(async_mutex_run_w,
            EINVAL, Q("async.h", "fx_async_mutex_run", "EINVAL (README: NULL waiter)")),
    NULLPTR(async_rmutex_lock_w,
            EINVAL, Q("async.h", "fx_async_rmutex_lock", "EINVAL NULL waiter")),
    NULLPTR(async_rmutex_run_w, EINVAL, Q("async.h", "fx_async_rmutex_run", "EINVAL NULL waiter")),
    NULLPTR(async_counter_wait_w,
            EINVAL, Q("async.h", "fx_async_counter_wait", "EINVAL (README: NULL waiter)")),
    BADPTR(async_futex_wait,
           EINVAL, Q("async.h", "fx_async_futex_wait", "EINVAL (NULL or misaligned slot")),
    BADPTR(async_mutex_lock, EINVAL, Q("async.h", "fx_async_mutex_lock", "EINVAL (bad m")),
    BADPTR(async_mutex_run,
           EINVAL, Q("async.h", "fx_async_mutex_run", "acquires m like fx_async_mutex_lock")),
    BADPTR(async_rmutex_lock,
           EINVAL, Q("async.h", "fx_async_rmutex_lock", "EINVAL NULL waiter, bad m")),
    BADPTR(async_rmutex_run,
           EINVAL, Q("async.h", "fx_async_rmutex_run", "acquires m like fx_async_rmutex_lock")),
    BADPTR(async_counter_wait, EINVAL, Q("async.h", "fx_async_counter_wait", "EINVAL (bad c")),
    ROW(async_create_thread_gives_0,
        Q("async.h", "fx_async_create",
          "Creates an idle waiter with the given back end ... Returns 0"),
        async_create_thread, 0),
    ROW(async_create_unknown_backend_gives_EINVAL,
        Q("async.h", "fx_async_create", "EINVAL (... unknown back end)"),
        async_create_unknown, EINVAL),
    ROW(async_create_uring_gives_0_or_ENOTSUP,
        Q("async.h", "fx_async_create",
          "ENOTSUP (FX_ASYNC_URING ... where io_uring's futex operations are unavailable)"),
        async_create_uring, 0),
    ROW(async_create_env_thread_forces_thread,
        Q("async.h", "top",
          "the environment variable FUTEXSYNC_ASYNC=thread ... forces the choice made for "
          "FX_ASYNC_AUTO"),
        async_create_env_thread, 0),
    AROW(async_destroy_own_gives_0,
         Q("async.h", "fx_async_destroy", "Returns 0"),
         async_destroy_own, 0),
    AROW(async_fd_gives_the_fd,
         Q("async.h", "fx_async_fd", "The file descriptor to poll for reading"),
         async_fd_pollable, 0),
    AROW(async_fd_idle_is_not_readable,
         Q("async.h", "fx_async_fd", "it is never readable while the waiter is idle"),
         async_fd_idle_unreadable, 0),
    AROW(async_backend_gives_the_backend,
         Q("async.h", "fx_async_backend", "The back end in use: FX_ASYNC_URING or FX_ASYNC_THREAD"),
         async_backend_named, 0),
    AROW(async_futex_wait_differs_gives_EAGAIN,
         Q("async.h", "fx_async_futex_wait", "EAGAIN at once if *slot != expected"),
         async_futex_wait_differs, EAGAIN),
    AROW(async_futex_wait_differs_bad_nsec_gives_EAGAIN,
         Q("async.h", "top", "tv_nsec out of range gives EINVAL when the call would wait"),
         async_futex_wait_differs_bad_nsec, EAGAIN),
    AROW(async_futex_wait_past_gives_ETIMEDOUT,
         Q("async.h", "fx_async_futex_wait", "ETIMEDOUT if the deadline has passed"),
         async_futex_wait_past, ETIMEDOUT),
    AROW(async_futex_wait_bad_nsec_gives_EINVAL,
         Q("async.h", "fx_async_futex_wait", "EINVAL (... bad tv_nsec)"),
         async_futex_wait_bad_nsec, EINVAL),
    AROW(async_futex_wait_gives_EINPROGRESS,
         Q("async.h", "fx_async_futex_wait", "Returns EINPROGRESS (armed)"),
         async_futex_wait_arms, EINPROGRESS),
    AROW(async_futex_wait_armed_gives_EBUSY,
         Q("async.h", "fx_async_futex_wait", "EBUSY (the waiter is already armed)"),
         async_futex_wait_armed, EBUSY),
    AROW(async_futex_wait_other_thread_gives_EPERM,
         Q("async.h", "fx_async_futex_wait", "EPERM (not the creating thread)"),
         async_futex_wait_other_thread, EPERM),
    AROW(async_futex_wait_woken_completes_0,
         Q("async.h", "fx_async_futex_wait",
           "fx_async_complete then gives 0 (woken ...), EAGAIN (the word no longer held "
           "expected"),
         async_futex_wait_woken, 0),
    AROW(async_futex_wait_deadline_completes_ETIMEDOUT,
         Q("async.h", "fx_async_futex_wait", "fx_async_complete then gives ... or ETIMEDOUT"),
         async_futex_wait_times_out, ETIMEDOUT),
    AROW(async_mutex_lock_free_gives_0,
         Q("async.h", "fx_async_mutex_lock",
           "Returns 0 when m was free and is now held by the caller"),
         async_mutex_lock_free, 0),
    AROW(async_mutex_lock_free_past_gives_0,
         Q("async.h", "fx_async_mutex_lock", "(whatever the deadline; no fd involved)"),
         async_mutex_lock_free_past, 0),
    AROW(async_mutex_lock_free_bad_nsec_gives_0,
         Q("async.h", "top", "tv_nsec out of range gives EINVAL when the call would wait"),
         async_mutex_lock_free_bad_nsec, 0),
    AROW(async_mutex_lock_held_past_gives_ETIMEDOUT,
         Q("async.h", "fx_async_mutex_lock", "ETIMEDOUT (held, and the deadline has passed)"),
         async_mutex_lock_held_past, ETIMEDOUT),
    AROW(async_mutex_lock_held_bad_nsec_gives_EINVAL,
         Q("async.h", "fx_async_mutex_lock", "EINVAL (... bad tv_nsec)"),
         async_mutex_lock_held_bad_nsec, EINVAL),
    AROW(async_mutex_lock_bad_state_gives_EINVAL,
         Q("async.h", "fx_async_mutex_lock", "EINVAL (bad m or state"),
         async_mutex_lock_bad_state, EINVAL),
    AROW(async_mutex_lock_held_gives_EINPROGRESS,
         Q("async.h", "fx_async_mutex_lock", "EINPROGRESS (armed)"),
         async_mutex_lock_held, EINPROGRESS),
    AROW(async_mutex_lock_armed_gives_EBUSY,
         Q("async.h", "fx_async_mutex_lock", "EBUSY (already armed)"),
         async_mutex_lock_armed, EBUSY),
    AROW(async_mutex_lock_released_completes_0,
         Q("async.h", "fx_async_mutex_lock",
           "fx_async_complete then gives 0 (m is held by the caller)"),
         async_mutex_lock_completes, 0),
    AROW(async_mutex_lock_other_thread_held_gives_EPERM,
         Q("async.h", "fx_async_mutex_lock", "EPERM (not the creating thread, and m was held)"),
         async_mutex_lock_other_thread_held, EPERM),
    AROW(async_mutex_lock_other_thread_free_gives_0,
         Q("async.h", "top", "arming a wait that must wait ... from another thread give EPERM"),
         async_mutex_lock_other_thread_free, 0),
    AROW(async_mutex_run_free_runs_fn_gives_0,
         Q("async.h", "fx_async_mutex_run", "When m is free, fn runs before this call returns 0"),
         async_mutex_run_free, 0),
    AROW(async_mutex_run_NULL_fn_gives_EINVAL,
         Q("async.h", "fx_async_mutex_run", "EINVAL also for a NULL fn"),
         async_mutex_run_null_fn, EINVAL),
    AROW(async_mutex_run_fn_unlocks_gives_EPERM,
         Q("async.h", "fx_async_mutex_run",
           "fn must not unlock m (EPERM from the unlock is then returned)"),
         async_mutex_run_fn_unlocks, EPERM),
    AROW(async_rmutex_lock_free_past_gives_0,
         Q("async.h", "fx_async_rmutex_lock",
           "0 m was free and is now held at depth 1 ...; whatever the deadline"),
         async_rmutex_lock_free, 0),
    AROW(async_rmutex_lock_reentry_gives_0,
         Q("async.h", "fx_async_rmutex_lock",
           "or the caller already held it (re-entry: depth + 1)"),
         async_rmutex_lock_reentry, 0),
    AROW(async_rmutex_lock_dead_owner_gives_EOWNERDEAD,
         Q("async.h", "fx_async_rmutex_lock", "EOWNERDEAD m's owner had died"),
         async_rmutex_lock_dead_owner, EOWNERDEAD),
    AROW(async_rmutex_lock_dead_owner_bad_nsec_gives_EOWNERDEAD,
         Q("async.h", "fx_async_rmutex_lock",
           "(liveness checked at once, as by fx_rmutex_trylock)"),
         async_rmutex_lock_dead_owner_bad_nsec, EOWNERDEAD),
    AROW(async_rmutex_lock_dead_kernel_tracked_owner_past_gives_ETIMEDOUT,
         Q("rmutex.h", "top", "A word naming a TID without PROBED is never judged by its TID."),
         async_rmutex_lock_dead_kernel_owner_past, ETIMEDOUT),
    AROW(async_rmutex_lock_notrecoverable_gives_ENOTRECOVERABLE,
         Q("async.h", "fx_async_rmutex_lock", "ENOTRECOVERABLE m is not recoverable; not acquired"),
         async_rmutex_lock_notrecoverable, ENOTRECOVERABLE),
    AROW(async_rmutex_lock_depth_max_gives_EAGAIN,
         Q("async.h", "fx_async_rmutex_lock", "EAGAIN re-entry would pass the largest depth"),
         async_rmutex_lock_depth_max, EAGAIN),
    AROW(async_rmutex_lock_bad_owner_gives_EINVAL,
         Q("async.h", "fx_async_rmutex_lock", "EINVAL ... bad m or slot value"),
         async_rmutex_lock_bad_owner, EINVAL),
    AROW(async_rmutex_lock_live_owner_gives_EINPROGRESS,
         Q("async.h", "fx_async_rmutex_lock", "EINPROGRESS armed: another live thread holds m"),
         async_rmutex_lock_live_owner, EINPROGRESS),
    AROW(async_rmutex_lock_live_owner_past_gives_ETIMEDOUT,
         Q("async.h", "fx_async_rmutex_lock",
           "ETIMEDOUT held by a live thread and the deadline has passed"),
         async_rmutex_lock_live_owner_past, ETIMEDOUT),
    AROW(async_rmutex_lock_other_thread_held_gives_EPERM,
         Q("async.h", "fx_async_rmutex_lock",
           "EPERM not the creating thread, and m is held by another"),
         async_rmutex_lock_other_thread_held, EPERM),
    AROW(async_rmutex_lock_armed_gives_EBUSY,
         Q("async.h", "fx_async_rmutex_lock", "EBUSY the waiter is already armed"),
         async_rmutex_lock_armed, EBUSY),
    AROW(async_rmutex_run_dead_owner_gives_EOWNERDEAD,
         Q("async.h", "fx_async_rmutex_run",
           "Either returns the status fn was given (0 or EOWNERDEAD)"),
         async_rmutex_run_dead_owner, EOWNERDEAD),
    AROW(async_rmutex_run_fn_unlocks_gives_EPERM,
         Q("async.h", "fx_async_rmutex_run",
           "or the error of the unlock after it (EPERM if fn unlocked m)"),
         async_rmutex_run_fn_unlocks, EPERM),
    AROW(async_counter_wait_equal_gives_0,
         Q("async.h", "fx_async_counter_wait", "Returns 0 at once when it does"),
         async_counter_wait_equal, 0),
    AROW(async_counter_wait_negative_waiters_gives_EINVAL,
         Q("async.h", "fx_async_counter_wait", "EINVAL (... negative waiters slot"),
         async_counter_wait_negative_waiters, EINVAL),
    AROW(async_counter_wait_past_gives_ETIMEDOUT,
         Q("async.h", "fx_async_counter_wait", "ETIMEDOUT"),
         async_counter_wait_past, ETIMEDOUT),
    AROW(async_counter_wait_armed_gives_EBUSY,
         Q("async.h", "fx_async_counter_wait", "EBUSY"),
         async_counter_wait_armed, EBUSY),
    AROW(async_counter_wait_gives_EINPROGRESS_counted,
         Q("async.h", "fx_async_counter_wait",
           "EINPROGRESS (armed: the waiter is counted in c->waiters until it finishes or is "
           "cancelled"),
         async_counter_wait_arms, EINPROGRESS),
    AROW(async_counter_wait_stored_completes_0,
         Q("async.h", "fx_async_counter_wait", "fx_async_complete then gives 0"),
         async_counter_wait_completes, 0),
    AROW(async_complete_idle_gives_EINVAL,
         Q("async.h", "fx_async_complete", "EINVAL if nothing is armed"),
         async_complete_idle, EINVAL),
    AROW(async_cancel_idle_gives_0,
         Q("async.h", "fx_async_cancel", "Returns 0 (also when nothing was armed)"),
         async_cancel_idle, 0),
    AROW(async_cancel_armed_gives_0_idle,
         Q("async.h", "fx_async_cancel",
           "Stops the armed operation, if any, and leaves the waiter idle ... Returns 0"),
         async_cancel_armed, 0),
    AROW(async_complete_other_thread_idle_gives_EPERM,
         Q("async.h", "Rules", "completing ... from another thread give EPERM and do nothing"),
         async_complete_thread_idle, EPERM),
    AROW(async_complete_other_thread_armed_gives_EPERM,
         Q("async.h", "fx_async_complete", "EPERM from another thread than the creator"),
         async_complete_thread_armed, EPERM),
    AROW(async_cancel_other_thread_idle_gives_EPERM,
         Q("async.h", "Rules", "cancelling ... from another thread give EPERM and do nothing"),
         async_cancel_thread_idle, EPERM),
    AROW(async_cancel_other_thread_armed_gives_EPERM,
         Q("async.h", "fx_async_cancel", "EPERM from another thread than the creator"),
         async_cancel_thread_armed, EPERM),
    AROW(async_destroy_other_thread_idle_gives_EPERM,
         Q("async.h", "fx_async_destroy",
           "EPERM from another thread than the creator (nothing done)"),
         async_destroy_thread_idle, EPERM),
    AROW(async_destroy_other_thread_armed_gives_EPERM,
         Q("async.h", "fx_async_destroy",
           "EPERM from another thread than the creator (nothing done)"),
         async_destroy_thread_armed, EPERM),
    AROW(async_complete_forked_child_idle_gives_EPERM,
         Q("async.h", "Rules",
           "A forked child must not use its parent's waiters (completing from another thread: "
           "EPERM)"),
         async_complete_fork_idle, EPERM),
    AROW(async_complete_forked_child_armed_gives_EPERM,
         Q("async.h", "Rules",
           "A forked child must not use its parent's waiters (completing from another thread: "
           "EPERM)"),
         async_complete_fork_armed, EPERM),
    AROW(async_cancel_forked_child_idle_gives_EPERM,
         Q("async.h", "Rules",
           "A forked child must not use its parent's waiters (cancelling from another thread: "
           "EPERM)"),
         async_cancel_fork_idle, EPERM),
    AROW(async_cancel_forked_child_armed_gives_EPERM,
         Q("async.h", "Rules",
           "A forked child must not use its parent's waiters (cancelling from another thread: "
           "EPERM)"),
         async_cancel_fork_armed, EPERM),
    AROW(async_destroy_forked_child_gives_EPERM,
         Q("async.h", "Rules",
           "A forked child must not use its parent's waiters (destroying from another thread: "
           "EPERM)"),
         async_destroy_fork_idle, EPERM),

    /* No EINTR from a lock or a wait (README Conventions: "EINTR never
     * returned by a lock or wait"; every header: "Never EINTR"). */
    SROW(mutex_lock_signal_storm_gives_0,
         Q("mutex.h", "fx_mutex_lock", "Never EINTR"),
         sc_mutex_lock, 0),
    SROW(mutex_timedlock_signal_storm_gives_0,
         Q("README", "EINTR", "never returned by a lock or wait"),
         sc_mutex_timedlock, 0),
    SROW(rmutex_lock_signal_storm_gives_0,
         Q("rmutex.h", "fx_rmutex_lock", "Never EINTR"),
         sc_rmutex_lock, 0),
    SROW(rmutex_timedlock_signal_storm_gives_0,
         Q("rmutex.h", "fx_rmutex_timedlock", "As fx_rmutex_lock (Never EINTR)"),
         sc_rmutex_timedlock, 0),
    SROW(cond_wait_signal_storm_gives_0,
         Q("cond.h", "fx_cond_wait", "Never EINTR"),
         sc_cond_wait, 0),
    SROW(cond_timedwait_signal_storm_gives_0,
         Q("cond.h", "fx_cond_timedwait", "Never EINTR"),
         sc_cond_timedwait, 0),
    SROW(cond_wait_rmutex_signal_storm_gives_0,
         Q("cond.h", "fx_cond_wait_rmutex", "Never EINTR"),
         sc_cond_wait_rmutex, 0),
    SROW(cond_timedwait_rmutex_signal_storm_gives_0,
         Q("cond.h", "fx_cond_timedwait_rmutex", "Returns as fx_cond_wait_rmutex (Never EINTR)"),
         sc_cond_timedwait_rmutex, 0),
    SROW(sem_wait_signal_storm_gives_0, Q("sem.h", "fx_sem_wait", "Never EINTR"), sc_sem_wait, 0),
    SROW(sem_timedwait_signal_storm_gives_0,
         Q("sem.h", "fx_sem_timedwait", "Never EINTR"),
         sc_sem_timedwait, 0),
    SROW(rwlock_rdlock_signal_storm_gives_0,
         Q("rwlock.h", "fx_rwlock_rdlock", "Never EINTR"),
         sc_rdlock, 0),
    SROW(rwlock_timedrdlock_signal_storm_gives_0,
         Q("rwlock.h", "fx_rwlock_timedrdlock", "Never EINTR"),
         sc_timedrdlock, 0),
    SROW(rwlock_wrlock_signal_storm_gives_0,
         Q("README", "EINTR", "never returned by a lock or wait"),
         sc_wrlock, 0),
    SROW(rwlock_timedwrlock_signal_storm_gives_0,
         Q("README", "EINTR", "never returned by a lock or wait"),
         sc_timedwrlock, 0),
    SROW(barrier_wait_signal_storm_gives_0,
         Q("barrier.h", "fx_barrier_wait", "Never EINTR"),
         sc_barrier_wait, 0),
    SROW(barrier_timedwait_signal_storm_gives_0,
         Q("barrier.h", "fx_barrier_timedwait", "Never EINTR"),
         sc_barrier_timedwait, 0),
    SROW(counter_wait_signal_storm_gives_0,
         Q("counter.h", "fx_counter_wait", "Never EINTR"),
         sc_counter_wait, 0),
    SROW(counter_timedwait_signal_storm_gives_0,
         Q("counter.h", "fx_counter_wait", "Never EINTR"),
         sc_counter_timedwait, 0),
    SROW(counter_wait_ge_signal_storm_gives_0,
         Q("counter.h", "fx_counter_wait_ge", "as fx_counter_wait (Never EINTR)"),
         sc_counter_wait_ge, 0),
    SROW(once_call_waiting_signal_storm_gives_0,
         Q("once.h", "fx_once_call", "Never EINTR"),
         sc_once_call, 0),
};

#define NROWS (sizeof rows / sizeof rows[0])

/* The runner ----------------------------------------------------------------- */

static int row_child(void *arg)
{
    const struct row *row = arg;
    W = NULL;
    return row->run(row);
}

static const char *errname(int e)
{
    if (e == ERRNO_SENTINEL)
        return "the sentinel";
    if (e == FX_BARRIER_SERIAL_THREAD)
        return "FX_BARRIER_SERIAL_THREAD";
    const char *n = strerrorname_np(e < 0 ? -e : e);
    return n != NULL ? n : "a value";
}

static void run_row(void **state)
{
    const struct row *row = *state;
    memset(S, 0, sizeof *S);
    int st = fxt_wait_child(fxt_fork(row_child, (void *)row), HANG_MS);
    int want = S->want_set ? S->want : row->expect;
    bool ok = st == 0 && S->called >= 1 && S->r == want && S->err == ERRNO_SENTINEL;
    if (!ok) {
        print_message("[ CONTRACT ] %s\n"
                      "[ CONTRACT ]   promise: %s\n"
                      "[ CONTRACT ]   child: %s (status %d, failed check at line %d)\n"
                      "[ CONTRACT ]   calls: %d, result %d (%s%s), promised %d (%s%s)\n"
                      "[ CONTRACT ]   errno after the call: %d (%s)\n",
                      row->name, row->promise,
                      st == 0 ? "ok" : st < 0 ? "HUNG, killed" : "failed", st, S->line,
                      S->called, S->r, S->r < 0 ? "-" : "", errname(S->r), want,
                      want < 0 ? "-" : "", errname(want), S->err, errname(S->err));
    }
    assert_int_not_equal(st, -1); /* hung */
    assert_int_equal(S->line, 0); /* a post-check of the child */
    assert_int_equal(st, 0);      /* crashed */
    assert_true(S->called >= 1);
    assert_int_equal(S->r, want);
    assert_int_equal(S->err, ERRNO_SENTINEL);
}

int main(void)
{
    S = fxt_shared_alloc(sizeof *S);
    static struct CMUnitTest tests[NROWS];
    for (size_t i = 0; i < NROWS; i++) {
        tests[i].name = rows[i].name;
        tests[i].test_func = run_row;
        tests[i].initial_state = (void *)&rows[i];
    }
    print_message("contract: %zu promises\n", NROWS);
    return fxt_run_group_tests(tests, NULL, NULL);
}
