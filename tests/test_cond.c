/*
 * tests/test_cond.c - fx_cond: return codes, threads and processes, exact
 * wake counts, the broadcast requeue, the sequence wrap-around, signals; with
 * fx_rmutex waiters (test_rmutex_*): depths, owner death (EOWNERDEAD within
 * 250 ms of a SIGKILL), ENOTRECOVERABLE, the broadcast hand-off chain, and
 * fx_mutex and fx_rmutex waiters on one cond.
 *
 * Where a test must know that waiters sleep in the kernel (not merely that
 * they called fx_cond_wait), it reads /proc/self/task/<tid>/{stat,syscall}:
 * a thread in state S inside futex(2) on a given word is queued on that word.
 * Those polls observe; they never stand in for synchronization.
 */
#define _GNU_SOURCE
#include "../src/internal/probe_periods.h"
#include "fxfault.h"
#include "fxtest.h"

#include <errno.h>
#include <futexsync.h>
#include <futexsync/layout.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define POLL_LIMIT_NS (10 * FX_NSEC_PER_SEC)

static pid_t tid_self(void)
{
    return (pid_t)syscall(SYS_gettid);
}

static int read_small_file(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return (int)n;
}

/* 1 when thread `tid` of process `pid` (0: this process) sleeps in futex(2) on
 * addr: state S and the system call's first argument is addr. A thread
 * requeued by the kernel onto another word still shows the address it called
 * futex() with. */
static int sleeps_on(pid_t pid, pid_t tid, const void *addr)
{
    char path[96], buf[512];
    if (pid == 0)
        snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    else
        snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    if (read_small_file(path, buf, sizeof buf) <= 0)
        return 0;
    char *p = strrchr(buf, ')');
    if (p == NULL || p[1] != ' ' || p[2] != 'S')
        return 0;
    if (pid == 0)
        snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
    else
        snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
    if (read_small_file(path, buf, sizeof buf) <= 0)
        return 0;
    long nr;
    uintptr_t arg0;
    if (sscanf(buf, "%ld %" SCNxPTR, &nr, &arg0) != 2)
        return 0;
    return fxt_is_futex_call(nr) && arg0 == (uintptr_t)addr;
}

/* Polls until `expr` holds, for at most 10 s; `ok` tells which. */
#define POLL_UNTIL(ok, expr)                                              \
    do {                                                                  \
        int64_t limit_ = fxt_now_ns() + POLL_LIMIT_NS;                    \
        while (!((ok) = (expr)) && fxt_now_ns() < limit_)                 \
            usleep(100);                                                  \
    } while (0)

#define ASSERT_EVENTUALLY(expr)                                           \
    do {                                                                  \
        bool ok_;                                                         \
        POLL_UNTIL(ok_, (expr));                                          \
        assert_true(ok_);                                                 \
    } while (0)

/* --- quiet waiters ----------------------------------------------------------
 * A sleeping waiter's recheck re-reads seq and leaves once the counter has
 * moved on: the spurious wake-up the contract allows (cond.h, (b)). A test
 * that asserts exactly which waiters a signal or a broadcast released must
 * therefore know that no recheck can come. In private memory a call rechecks
 * once, at the first point of the recheck grid after it fell asleep, finds
 * its words private (the testing library's fault point futex.scope.private)
 * and from then on sleeps without a timer (docs/design/futex.md, "Private
 * memory sleeps untimed"). QUIET_BEGIN before the waiters start, then
 * ASSERT_QUIET(n, asleep) waits until each of the n has done so and `asleep`
 * (all of them asleep on c.seq again) holds. */
#define QUIET_BEGIN() fxf_count_at("futex.scope.private")

#define ASSERT_QUIET(n, asleep)                                                     \
    do {                                                                          \
        bool quiet_;                                                              \
        POLL_UNTIL(quiet_, fxf_counted() >= (n) && (asleep));                     \
        if (!quiet_)                                                              \
            print_message("%ld of %d waiters found private memory at their first " \
                          "recheck: the others keep a timer\n",                   \
                          fxf_counted(), (int)(n));                               \
        assert_true(quiet_);                                                      \
    } while (0)

static const fx_cond zero_cond; /* all-zero: FX_COND_INIT */

/* --- one-shot waiters: each calls fx_cond_wait exactly once --------------- */

#define NWAITERS 4

struct box {
    fx_cond c;
    fx_mutex m;
    fx_mutex m2;      /* a second mutex, for the mixed-mutex test */
    int32_t returned; /* waiters back from fx_cond_wait (atomic) */
};

struct oneshot {
    struct box *b;
    fx_mutex *m;
    pid_t tid; /* atomic */
    int rc;
    int done; /* atomic */
};

static void *oneshot_main(void *arg)
{
    struct oneshot *w = arg;
    __atomic_store_n(&w->tid, tid_self(), __ATOMIC_RELEASE);
    fx_mutex_lock(w->m);
    w->rc = fx_cond_wait(&w->b->c, w->m);
    __atomic_fetch_add(&w->b->returned, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
    fx_mutex_unlock(w->m);
    return NULL;
}

static void start_oneshots(struct box *b, struct oneshot *w, pthread_t *t, int n)
{
    for (int i = 0; i < n; i++) {
        w[i].b = b;
        if (w[i].m == NULL)
            w[i].m = &b->m;
        t[i] = fxt_thread(oneshot_main, &w[i]);
    }
    for (int i = 0; i < n; i++) {
        ASSERT_EVENTUALLY((__atomic_load_n(&w[i].tid, __ATOMIC_ACQUIRE) != 0));
        ASSERT_EVENTUALLY((sleeps_on(0, w[i].tid, &b->c.seq)));
    }
    assert_int_equal(__atomic_load_n(&b->c.waiters, __ATOMIC_SEQ_CST), n);
}

static bool oneshots_asleep(struct box *b, struct oneshot *w, int n)
{
    for (int i = 0; i < n; i++)
        if (!sleeps_on(0, w[i].tid, &b->c.seq))
            return false;
    return true;
}

/* start_oneshots, then until no recheck can release them (ASSERT_QUIET). */
static void start_quiet_oneshots(struct box *b, struct oneshot *w, pthread_t *t, int n)
{
    QUIET_BEGIN();
    start_oneshots(b, w, t, n);
    ASSERT_QUIET(n, oneshots_asleep(b, w, n));
}

static int count_done(struct oneshot *w, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += __atomic_load_n(&w[i].done, __ATOMIC_SEQ_CST);
    return k;
}

/* --- layout and bad input ------------------------------------------------- */

static void test_zero_bytes_are_a_cond_and_init_zeroes(void **state)
{
    (void)state;
    assert_int_equal(sizeof(fx_cond), 16);
    fx_cond init = FX_COND_INIT, zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&init, &zero, sizeof zero);
    fx_cond c;
    memset(&c, 0x5a, sizeof c);
    assert_int_equal(fx_cond_init(&c), 0);
    assert_memory_equal(&c, &zero, sizeof zero);
    assert_int_equal(fx_cond_init(NULL), EINVAL);
}

static void test_null_or_misaligned_pointers_give_einval(void **state)
{
    (void)state;
    _Alignas(8) char buf[64] = {0};
    fx_cond *bad_c = (fx_cond *)(buf + 1);
    fx_mutex *bad_m = (fx_mutex *)(buf + 34);
    fx_cond c = FX_COND_INIT;
    fx_mutex m = FX_MUTEX_INIT;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    fx_mutex_lock(&m);
    assert_int_equal(fx_cond_wait(NULL, &m), EINVAL);
    assert_int_equal(fx_cond_wait(bad_c, &m), EINVAL);
    assert_int_equal(fx_cond_wait(&c, NULL), EINVAL);
    assert_int_equal(fx_cond_wait(&c, bad_m), EINVAL);
    assert_int_equal(fx_cond_timedwait(NULL, &m, &d), EINVAL);
    assert_int_equal(fx_cond_timedwait(bad_c, &m, &d), EINVAL);
    assert_int_equal(fx_cond_timedwait(&c, NULL, &d), EINVAL);
    assert_int_equal(fx_cond_timedwait(&c, bad_m, &d), EINVAL);
    assert_int_equal(fx_cond_signal(NULL), EINVAL);
    assert_int_equal(fx_cond_signal(bad_c), EINVAL);
    assert_int_equal(fx_cond_broadcast(NULL), EINVAL);
    assert_int_equal(fx_cond_broadcast(bad_c), EINVAL);
    /* nothing waited: the mutex is still ours, the cond untouched */
    assert_int_equal(fx_mutex_unlock(&m), 0);
    assert_memory_equal(&c, &zero_cond, sizeof c);
}

static void test_mutex_overlapping_the_cond_gives_einval(void **state)
{
    (void)state;
    fx_cond c = FX_COND_INIT;
    int32_t *slots = &c.seq;
    for (int i = 0; i < 4; i++) {
        fx_mutex *inside = (fx_mutex *)&slots[i];
        assert_int_equal(fx_cond_wait(&c, inside), EINVAL);
    }
    assert_memory_equal(&c, &zero_cond, sizeof c);
}

static void test_garbage_slot_values_give_einval(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    fx_mutex_lock(&m);
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);

    fx_cond c = FX_COND_INIT;
    c.waiters = -1;
    assert_int_equal(fx_cond_wait(&c, &m), EINVAL);
    assert_int_equal(fx_cond_timedwait(&c, &m, &d), EINVAL);
    assert_int_equal(fx_cond_signal(&c), EINVAL);
    assert_int_equal(fx_cond_broadcast(&c), EINVAL);

    fx_cond_init(&c);
    c.park = 7;
    assert_int_equal(fx_cond_wait(&c, &m), EINVAL);
    assert_int_equal(fx_cond_broadcast(&c), EINVAL);

    const int32_t bad_tokens[] = {7, 6, -1, -2 + 4 * 1000, 0x7fffffff};
    for (size_t i = 0; i < sizeof bad_tokens / sizeof bad_tokens[0]; i++) {
        fx_cond_init(&c);
        c.mutex = bad_tokens[i];
        assert_int_equal(fx_cond_wait(&c, &m), EINVAL);
        assert_int_equal(c.waiters, 0);
    }

    /* a mutex state the library never writes */
    fx_cond_init(&c);
    fx_mutex junk = {7};
    assert_int_equal(fx_cond_wait(&c, &junk), EINVAL);
    assert_int_equal(c.waiters, 0);
    assert_int_equal(junk.state, 7);
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

static void test_wait_with_unlocked_mutex_gives_eperm(void **state)
{
    (void)state;
    fx_cond c = FX_COND_INIT;
    fx_mutex m = FX_MUTEX_INIT;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(fx_cond_wait(&c, &m), EPERM);
    assert_int_equal(fx_cond_timedwait(&c, &m, &d), EPERM);
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
    assert_memory_equal(&c, &zero_cond, sizeof c);
}

static void test_timedwait_bad_nsec_gives_einval_and_keeps_mutex(void **state)
{
    (void)state;
    fx_cond c = FX_COND_INIT;
    fx_mutex m = FX_MUTEX_INIT;
    fx_mutex_lock(&m);
    struct timespec bad[] = {{0, -1}, {0, 1000000000L}, {1, 2000000000L}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(fx_cond_timedwait(&c, &m, &bad[i]), EINVAL);
    assert_int_equal(m.state, FX_MUTEX_LOCKED);
    assert_int_equal(c.waiters, 0);
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

/* --- timing ----------------------------------------------------------------- */

static void test_timedwait_times_out_with_mutex_held(void **state)
{
    (void)state;
    fx_cond c = FX_COND_INIT;
    fx_mutex m = FX_MUTEX_INIT;
    fx_mutex_lock(&m);
    int64_t t0 = fxt_now_ns();
    struct timespec d = fx_deadline_in(100 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_cond_timedwait(&c, &m, &d), ETIMEDOUT);
    int64_t took = fxt_now_ns() - t0;
    assert_true(took >= 100 * FX_NSEC_PER_MSEC);
    assert_true(took < 5 * FX_NSEC_PER_SEC);
    assert_int_equal(fx_mutex_trylock(&m), EBUSY); /* re-acquired, as POSIX */
    assert_int_equal(c.waiters, 0);
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

static void test_timedwait_past_deadline_times_out_at_once(void **state)
{
    (void)state;
    fx_cond c = FX_COND_INIT;
    fx_mutex m = FX_MUTEX_INIT;
    fx_mutex_lock(&m);
    struct timespec past[] = {{-1, 0}, fx_deadline_in(-FX_NSEC_PER_SEC), {0, 0}};
    for (size_t i = 0; i < sizeof past / sizeof past[0]; i++) {
        int64_t t0 = fxt_now_ns();
        assert_int_equal(fx_cond_timedwait(&c, &m, &past[i]), ETIMEDOUT);
        assert_true(fxt_now_ns() - t0 < FX_NSEC_PER_SEC);
        assert_int_equal(fx_mutex_trylock(&m), EBUSY);
    }
    assert_int_equal(c.waiters, 0);
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

struct timed_waiter {
    struct box *b;
    pid_t tid;
    int rc;
    int64_t took;
};

static void *timed_waiter_main(void *arg)
{
    struct timed_waiter *w = arg;
    __atomic_store_n(&w->tid, tid_self(), __ATOMIC_RELEASE);
    fx_mutex_lock(&w->b->m);
    int64_t t0 = fxt_now_ns();
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    w->rc = fx_cond_timedwait(&w->b->c, &w->b->m, &d);
    w->took = fxt_now_ns() - t0;
    fx_mutex_unlock(&w->b->m);
    return NULL;
}

static void test_timedwait_signalled_returns_zero_before_deadline(void **state)
{
    (void)state;
    struct box b = {0};
    struct timed_waiter w = {.b = &b};
    pthread_t t = fxt_thread(timed_waiter_main, &w);
    ASSERT_EVENTUALLY((__atomic_load_n(&w.tid, __ATOMIC_ACQUIRE) != 0));
    ASSERT_EVENTUALLY((sleeps_on(0, w.tid, &b.c.seq)));
    assert_int_equal(fx_cond_signal(&b.c), 0);
    fxt_join(t);
    assert_int_equal(w.rc, 0);
    assert_true(w.took < 10 * FX_NSEC_PER_SEC);
}

/* --- no system call without waiters ---------------------------------------- */

static int signal_broadcast_unwaited(void *arg)
{
    fx_cond *c = arg;
    for (int i = 0; i < 1000; i++) {
        FXT_CHILD_CHECK(fx_cond_signal(c) == 0, 1);
        FXT_CHILD_CHECK(fx_cond_broadcast(c) == 0, 2);
    }
    return 0;
}

static void test_signal_and_broadcast_without_waiters_make_no_system_call(void **state)
{
    (void)state;
    fx_cond *c = fxt_shared_alloc(sizeof *c);
    assert_int_equal(fxt_run_without_futex(c, sizeof *c, signal_broadcast_unwaited, c), 0);
    /* and the proof is sharp: a waited-on cond does make one */
    c->waiters = 1;
    c->seq = FX_COND_ARMED;
    assert_int_equal(fxt_run_without_futex(c, sizeof *c, signal_broadcast_unwaited, c),
                     128 + SIGSYS);
    fxt_shared_free(c, sizeof *c);
}

/* --- wake counts ------------------------------------------------------------ */

static void test_signal_wakes_exactly_one_of_several(void **state)
{
    (void)state;
    struct box b = {0};
    struct oneshot w[NWAITERS] = {0};
    pthread_t t[NWAITERS];
    start_quiet_oneshots(&b, w, t, NWAITERS);
    for (int k = 1; k <= NWAITERS; k++) {
        assert_int_equal(fx_cond_signal(&b.c), 0);
        ASSERT_EVENTUALLY((count_done(w, NWAITERS) >= k));
        /* exactly k back: every other waiter is still asleep on the word (a
         * released one would be runnable, on the mutex word, or counted) */
        assert_int_equal(__atomic_load_n(&b.returned, __ATOMIC_SEQ_CST), k);
        for (int i = 0; i < NWAITERS; i++)
            if (!__atomic_load_n(&w[i].done, __ATOMIC_SEQ_CST))
                assert_true(sleeps_on(0, w[i].tid, &b.c.seq));
        assert_int_equal(count_done(w, NWAITERS), k);
    }
    for (int i = 0; i < NWAITERS; i++) {
        fxt_join(t[i]);
        assert_int_equal(w[i].rc, 0);
    }
    assert_int_equal(b.c.waiters, 0);
}

static void test_broadcast_wakes_all(void **state)
{
    (void)state;
    struct box b = {0};
    struct oneshot w[NWAITERS] = {0};
    pthread_t t[NWAITERS];
    start_oneshots(&b, w, t, NWAITERS);
    assert_int_equal(fx_cond_broadcast(&b.c), 0);
    for (int i = 0; i < NWAITERS; i++) {
        fxt_join(t[i]);
        assert_int_equal(w[i].rc, 0);
    }
    assert_int_equal(b.returned, NWAITERS);
    assert_int_equal(b.c.waiters, 0);
    assert_int_equal(b.c.seq & FX_COND_BCAST, 0); /* cleared by the last one out */
    assert_int_equal(b.m.state, FX_MUTEX_UNLOCKED);
}

/* How many one-shot waiters sleep on the mutex word and on the cond word. */
static int count_sleepers(struct oneshot *w, struct box *b, int *on_mutex, int *on_cond)
{
    *on_mutex = *on_cond = 0;
    for (int i = 0; i < NWAITERS; i++) {
        *on_mutex += sleeps_on(0, w[i].tid, &b->m.state);
        *on_cond += sleeps_on(0, w[i].tid, &b->c.seq);
    }
    return *on_mutex + *on_cond;
}

/* The stampede check. With the mutex held by the broadcaster, a stampeding
 * broadcast would wake all N, and each would go to sleep again on the mutex
 * word. With the requeue, the broadcast wakes one (which then sleeps on the
 * mutex word) and the other N-1 never run: they are still inside the futex
 * call they made on c.seq, moved by the kernel. The snapshot is taken once
 * every waiter sleeps, so it does not depend on timing. */
static void test_broadcast_requeues_instead_of_waking_all(void **state)
{
    (void)state;
    struct box b = {0};
    struct oneshot w[NWAITERS] = {0};
    pthread_t t[NWAITERS];
    start_quiet_oneshots(&b, w, t, NWAITERS);
    fx_mutex_lock(&b.m);
    assert_int_equal(fx_cond_broadcast(&b.c), 0);
    int on_mutex = 0, on_cond = 0;
    bool settled;
    POLL_UNTIL(settled, count_sleepers(w, &b, &on_mutex, &on_cond) == NWAITERS && on_mutex >= 1);
    assert_true(settled);
    assert_int_equal(on_mutex, 1);
    assert_int_equal(on_cond, NWAITERS - 1);
    assert_int_equal(b.returned, 0);
    assert_int_equal(b.m.state, FX_MUTEX_CONTENDED);
    assert_int_equal(fx_mutex_unlock(&b.m), 0);
    for (int i = 0; i < NWAITERS; i++) {
        fxt_join(t[i]);
        assert_int_equal(w[i].rc, 0);
    }
    assert_int_equal(b.returned, NWAITERS);
    assert_int_equal(b.m.state, FX_MUTEX_UNLOCKED);
    assert_int_equal(b.c.waiters, 0);
}

/* Waiters with different mutexes (not allowed by POSIX, but bad input must not
 * hang): the cond notices, and broadcast falls back to handing the wake on
 * from one waiter to the next instead of moving them onto a mutex. */
static void test_broadcast_with_mixed_mutexes_releases_all(void **state)
{
    (void)state;
    struct box b = {0};
    struct oneshot w[NWAITERS] = {0};
    pthread_t t[NWAITERS];
    for (int i = 0; i < NWAITERS; i++)
        w[i].m = (i & 1) ? &b.m2 : &b.m;
    start_oneshots(&b, w, t, NWAITERS);
    assert_int_equal(b.c.mutex, 2); /* MIXED */
    assert_int_equal(fx_cond_broadcast(&b.c), 0);
    for (int i = 0; i < NWAITERS; i++) {
        fxt_join(t[i]);
        assert_int_equal(w[i].rc, 0);
    }
    assert_int_equal(b.returned, NWAITERS);
    assert_int_equal(b.m.state, FX_MUTEX_UNLOCKED);
    assert_int_equal(b.m2.state, FX_MUTEX_UNLOCKED);
}

/* After every waiter has left, the cond may be used with another mutex: the
 * first new waiter rebinds it (no MIXED), and broadcast requeues again. */
static void test_cond_rebinds_to_another_mutex_once_nobody_waits(void **state)
{
    (void)state;
    struct box b = {0};
    for (int round = 0; round < 2; round++) {
        struct oneshot w[2] = {0};
        pthread_t t[2];
        fx_mutex *m = round == 0 ? &b.m : &b.m2;
        w[0].m = w[1].m = m;
        start_oneshots(&b, w, t, 2);
        assert_int_equal(b.c.mutex, (int32_t)((char *)m - (char *)&b.c));
        assert_int_equal(fx_cond_broadcast(&b.c), 0);
        fxt_join(t[0]);
        fxt_join(t[1]);
        assert_int_equal(w[0].rc, 0);
        assert_int_equal(w[1].rc, 0);
        assert_int_equal(m->state, FX_MUTEX_UNLOCKED);
    }
}

/* --- sequence wrap-around --------------------------------------------------- */

/* The dangerous moment: a waiter has registered (W1) and released the mutex
 * but is not yet asleep, and the signaller runs and runs. Emulated here with
 * the documented slots: W1 is the two read-modify-writes below, and the
 * waiter's futex wait is fx_futex_wait(&c.seq, v). The counter starts at its
 * largest value, so the one advance wraps it. However many signals (or
 * broadcasts) come, the counter advances once, so the word can never come
 * back to v: the waiter's futex wait refuses to sleep. */
static void test_signals_across_a_registered_waiter_advance_the_sequence_once(void **state)
{
    (void)state;
    for (int use_broadcast = 0; use_broadcast < 2; use_broadcast++) {
        fx_cond c = FX_COND_INIT;
        c.seq = (int32_t)0xfffffffcu; /* counter 2^30 - 1, a and b clear */
        __atomic_fetch_add(&c.waiters, 1, __ATOMIC_SEQ_CST);
        int32_t v = __atomic_fetch_or(&c.seq, FX_COND_ARMED, __ATOMIC_SEQ_CST) | FX_COND_ARMED;
        for (int i = 0; i < 100000; i++)
            assert_int_equal(use_broadcast ? fx_cond_broadcast(&c) : fx_cond_signal(&c), 0);
        /* one advance: counter 0 (wrapped), a cleared, b set by broadcast */
        assert_int_equal(c.seq, use_broadcast ? FX_COND_BCAST : 0);
        struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_SEC);
        assert_int_equal(fx_futex_wait(&c.seq, v, &d), EAGAIN);
        __atomic_fetch_sub(&c.waiters, 1, __ATOMIC_SEQ_CST);
    }
}

struct pingpong {
    fx_cond c;
    fx_mutex m;
    int32_t turn;   /* 0 or 1, under m */
    int32_t rounds; /* completed hand-offs, under m */
    int32_t bad;    /* a wait returned non-zero */
};

#define PINGPONG_ROUNDS 3000

static void pingpong_run(struct pingpong *p, int me)
{
    for (int i = 0; i < PINGPONG_ROUNDS; i++) {
        fx_mutex_lock(&p->m);
        while (p->turn != me)
            if (fx_cond_wait(&p->c, &p->m) != 0)
                p->bad++;
        p->turn = !me;
        p->rounds++;
        fx_cond_signal(&p->c);
        fx_mutex_unlock(&p->m);
    }
}

static void *pingpong_thread(void *arg)
{
    pingpong_run(arg, 1);
    return NULL;
}

static void test_ping_pong_across_the_sequence_wrap(void **state)
{
    (void)state;
    struct pingpong p = {0};
    p.c.seq = (int32_t)0xffffff00u; /* 64 advances before the wrap */
    pthread_t t = fxt_thread(pingpong_thread, &p);
    pingpong_run(&p, 0);
    fxt_join(t);
    assert_int_equal(p.rounds, 2 * PINGPONG_ROUNDS);
    assert_int_equal(p.bad, 0);
    /* it went across: the counter is small again */
    assert_true((uint32_t)p.c.seq < 0x00100000u);
    assert_int_equal(p.c.waiters, 0);
}

/* --- signals ---------------------------------------------------------------- */

struct stormed {
    struct box *b;
    int32_t go;  /* under b->m */
    int rc_bad;  /* a wait returned something other than expected */
    int waits;
    bool timed;
    int64_t took;
};

static void *stormed_main(void *arg)
{
    struct stormed *s = arg;
    fx_mutex_lock(&s->b->m);
    int64_t t0 = fxt_now_ns();
    if (s->timed) {
        struct timespec d = fx_deadline_in(80 * FX_NSEC_PER_MSEC);
        int r = 0;
        while (!s->go && r == 0) {
            r = fx_cond_timedwait(&s->b->c, &s->b->m, &d);
            s->waits++;
        }
        if (r != ETIMEDOUT)
            s->rc_bad++;
    } else {
        while (!s->go) {
            if (fx_cond_wait(&s->b->c, &s->b->m) != 0)
                s->rc_bad++;
            s->waits++;
        }
    }
    s->took = fxt_now_ns() - t0;
    fx_mutex_unlock(&s->b->m);
    return NULL;
}

static void test_signal_handlers_never_make_wait_return_eintr(void **state)
{
    (void)state;
    struct box b = {0};
    struct stormed s = {.b = &b};
    pthread_t t = fxt_thread(stormed_main, &s);
    ASSERT_EVENTUALLY((__atomic_load_n(&b.c.waiters, __ATOMIC_SEQ_CST) == 1));
    struct fxt_storm *storm = fxt_storm_start(t);
    fxt_storm_hits(100, 500); /* the storm hits the sleeping waiter */
    fx_mutex_lock(&b.m);
    s.go = 1;
    assert_int_equal(fx_cond_signal(&b.c), 0);
    fx_mutex_unlock(&b.m);
    fxt_join(t);
    long sigs = fxt_storm_stop(storm);
    assert_true(sigs > 0);
    assert_int_equal(s.rc_bad, 0);
    /* nothing advanced the sequence before go: signals were absorbed */
    assert_int_equal(s.waits, 1);
}

static void test_timedwait_under_signals_times_out_on_time(void **state)
{
    (void)state;
    struct box b = {0};
    struct stormed s = {.b = &b, .timed = true};
    pthread_t t = fxt_thread(stormed_main, &s);
    struct fxt_storm *storm = fxt_storm_start(t);
    fxt_join(t);
    long sigs = fxt_storm_stop(storm);
    assert_true(sigs > 0);
    assert_int_equal(s.rc_bad, 0);
    assert_int_equal(s.waits, 1);
    assert_true(s.took >= 80 * FX_NSEC_PER_MSEC);
    assert_true(s.took < 5 * FX_NSEC_PER_SEC);
}

/* Many signallers and broadcasters hammering while waiters consume tokens:
 * every token is taken exactly once, nobody is left behind. */
struct hammer {
    fx_cond c;
    fx_mutex m;
    int32_t tokens;  /* under m */
    int32_t taken;   /* under m */
    int32_t bad;     /* under m */
};

#define HAMMER_TOKENS 4000

static void *hammer_consumer(void *arg)
{
    struct hammer *h = arg;
    for (int i = 0; i < HAMMER_TOKENS / 2; i++) {
        fx_mutex_lock(&h->m);
        while (h->tokens == 0)
            if (fx_cond_wait(&h->c, &h->m) != 0)
                h->bad++;
        h->tokens--;
        h->taken++;
        fx_mutex_unlock(&h->m);
    }
    return NULL;
}

static void *hammer_producer(void *arg)
{
    struct hammer *h = arg;
    for (int i = 0; i < HAMMER_TOKENS / 2; i++) {
        fx_mutex_lock(&h->m);
        h->tokens++;
        fx_mutex_unlock(&h->m);
        /* outside the mutex, alternating, with extra noise */
        if (i % 3 == 0)
            fx_cond_broadcast(&h->c);
        else
            fx_cond_signal(&h->c);
        if (i % 7 == 0)
            fx_cond_signal(&h->c);
    }
    return NULL;
}

static void test_signal_and_broadcast_storm_loses_no_wakeup(void **state)
{
    (void)state;
    struct hammer h = {0};
    pthread_t t[4];
    t[0] = fxt_thread(hammer_consumer, &h);
    t[1] = fxt_thread(hammer_consumer, &h);
    t[2] = fxt_thread(hammer_producer, &h);
    t[3] = fxt_thread(hammer_producer, &h);
    for (int i = 0; i < 4; i++)
        fxt_join(t[i]);
    assert_int_equal(h.taken, HAMMER_TOKENS);
    assert_int_equal(h.tokens, 0);
    assert_int_equal(h.bad, 0);
    assert_int_equal(h.c.waiters, 0);
    assert_int_equal(h.m.state, FX_MUTEX_UNLOCKED);
}

/* --- producer / consumer, threads and processes ---------------------------- */

#define QCAP 8
#define PRODUCERS 2
#define CONSUMERS 2

struct queue {
    fx_mutex m;
    fx_cond not_empty;
    fx_cond not_full;
    int32_t head, count;      /* under m */
    int32_t taken;            /* items taken so far, under m */
    int32_t total;            /* items to move */
    int32_t per_producer;
    int32_t item[QCAP];       /* under m */
    int64_t sum[CONSUMERS];   /* each consumer's own */
    int32_t got[CONSUMERS];
    int32_t bad;              /* under m */
    uint8_t seen[];           /* seen[id]: times item id was taken, under m */
};

static size_t queue_size(int total)
{
    return sizeof(struct queue) + (size_t)total;
}

static void queue_produce(struct queue *q, int p)
{
    for (int i = 0; i < q->per_producer; i++) {
        int32_t id = p * q->per_producer + i;
        fx_mutex_lock(&q->m);
        while (q->count == QCAP)
            if (fx_cond_wait(&q->not_full, &q->m) != 0)
                q->bad++;
        q->item[(q->head + q->count) % QCAP] = id;
        q->count++;
        fx_cond_signal(&q->not_empty);
        fx_mutex_unlock(&q->m);
    }
}

static void queue_consume(struct queue *q, int k)
{
    for (;;) {
        fx_mutex_lock(&q->m);
        while (q->count == 0 && q->taken < q->total)
            if (fx_cond_wait(&q->not_empty, &q->m) != 0)
                q->bad++;
        if (q->taken == q->total) {
            fx_mutex_unlock(&q->m);
            return;
        }
        int32_t id = q->item[q->head];
        q->head = (q->head + 1) % QCAP;
        q->count--;
        q->taken++;
        q->seen[id]++;
        if (q->taken == q->total)
            fx_cond_broadcast(&q->not_empty); /* the other consumers may leave */
        fx_cond_signal(&q->not_full);
        fx_mutex_unlock(&q->m);
        q->sum[k] += id;
        q->got[k]++;
    }
}

struct queue_role {
    struct queue *q;
    int index;
};

static void *producer_thread(void *arg)
{
    struct queue_role *r = arg;
    queue_produce(r->q, r->index);
    return NULL;
}

static void *consumer_thread(void *arg)
{
    struct queue_role *r = arg;
    queue_consume(r->q, r->index);
    return NULL;
}

static int producer_child(void *arg)
{
    struct queue_role *r = arg;
    queue_produce(r->q, r->index);
    return 0;
}

static int consumer_child(void *arg)
{
    struct queue_role *r = arg;
    queue_consume(r->q, r->index);
    return 0;
}

static void queue_check(struct queue *q)
{
    int64_t want = (int64_t)q->total * (q->total - 1) / 2, sum = 0;
    int32_t got = 0;
    for (int k = 0; k < CONSUMERS; k++) {
        sum += q->sum[k];
        got += q->got[k];
    }
    assert_int_equal(got, q->total);
    assert_true(sum == want);
    for (int32_t id = 0; id < q->total; id++)
        if (q->seen[id] != 1)
            fail_msg("item %d taken %d times", id, q->seen[id]);
    assert_int_equal(q->bad, 0);
    assert_int_equal(q->count, 0);
    assert_int_equal(q->not_empty.waiters, 0);
    assert_int_equal(q->not_full.waiters, 0);
    assert_int_equal(q->m.state, FX_MUTEX_UNLOCKED);
}

static struct queue *queue_new(int per_producer)
{
    int total = PRODUCERS * per_producer;
    struct queue *q = fxt_shared_alloc(queue_size(total));
    q->total = total;
    q->per_producer = per_producer;
    return q;
}

static void test_producer_consumer_threads_move_every_item_once(void **state)
{
    (void)state;
    struct queue *q = queue_new(10000);
    struct queue_role roles[PRODUCERS + CONSUMERS];
    pthread_t t[PRODUCERS + CONSUMERS];
    for (int i = 0; i < CONSUMERS; i++) {
        roles[i] = (struct queue_role){q, i};
        t[i] = fxt_thread(consumer_thread, &roles[i]);
    }
    for (int i = 0; i < PRODUCERS; i++) {
        roles[CONSUMERS + i] = (struct queue_role){q, i};
        t[CONSUMERS + i] = fxt_thread(producer_thread, &roles[CONSUMERS + i]);
    }
    for (int i = 0; i < PRODUCERS + CONSUMERS; i++)
        fxt_join(t[i]);
    queue_check(q);
    fxt_shared_free(q, queue_size(q->total));
}

static void test_producer_consumer_processes_move_every_item_once(void **state)
{
    (void)state;
    struct queue *q = queue_new(5000);
    struct queue_role roles[PRODUCERS + CONSUMERS];
    pid_t pid[PRODUCERS + CONSUMERS];
    for (int i = 0; i < CONSUMERS; i++) {
        roles[i] = (struct queue_role){q, i};
        pid[i] = fxt_fork(consumer_child, &roles[i]);
    }
    for (int i = 0; i < PRODUCERS; i++) {
        roles[CONSUMERS + i] = (struct queue_role){q, i};
        pid[CONSUMERS + i] = fxt_fork(producer_child, &roles[CONSUMERS + i]);
    }
    for (int i = 0; i < PRODUCERS + CONSUMERS; i++)
        assert_int_equal(fxt_wait_child(pid[i], 60000), 0);
    queue_check(q);
    fxt_shared_free(q, queue_size(q->total));
}

/* --- processes: broadcast across processes, requeue included --------------- */

struct xproc {
    fx_cond c;
    fx_mutex m;
    int32_t go;       /* under m */
    int32_t returned; /* under m */
};

static int xproc_waiter(void *arg)
{
    struct xproc *x = arg;
    FXT_CHILD_CHECK(fx_mutex_lock(&x->m) == 0, 1);
    while (!x->go)
        FXT_CHILD_CHECK(fx_cond_wait(&x->c, &x->m) == 0, 2);
    x->returned++;
    FXT_CHILD_CHECK(fx_mutex_unlock(&x->m) == 0, 3);
    return 0;
}

static void test_broadcast_releases_waiters_in_other_processes(void **state)
{
    (void)state;
    struct xproc *x = fxt_shared_alloc(sizeof *x);
    pid_t pid[3];
    for (int i = 0; i < 3; i++)
        pid[i] = fxt_fork(xproc_waiter, x);
    for (int i = 0; i < 3; i++)
        ASSERT_EVENTUALLY((sleeps_on(pid[i], pid[i], &x->c.seq)));
    fx_mutex_lock(&x->m);
    x->go = 1;
    assert_int_equal(fx_cond_broadcast(&x->c), 0);
    fx_mutex_unlock(&x->m);
    for (int i = 0; i < 3; i++)
        assert_int_equal(fxt_wait_child(pid[i], 60000), 0);
    assert_int_equal(x->returned, 3);
    assert_int_equal(x->c.waiters, 0);
    assert_int_equal(x->m.state, FX_MUTEX_UNLOCKED);
    fxt_shared_free(x, sizeof *x);
}

static void test_signal_releases_a_waiter_in_another_process(void **state)
{
    (void)state;
    struct xproc *x = fxt_shared_alloc(sizeof *x);
    pid_t pid = fxt_fork(xproc_waiter, x);
    ASSERT_EVENTUALLY((sleeps_on(pid, pid, &x->c.seq)));
    fx_mutex_lock(&x->m);
    x->go = 1;
    fx_mutex_unlock(&x->m);
    assert_int_equal(fx_cond_signal(&x->c), 0); /* outside the mutex */
    assert_int_equal(fxt_wait_child(pid, 60000), 0);
    assert_int_equal(x->returned, 1);
    fxt_shared_free(x, sizeof *x);
}

/* --- fx_rmutex waiters (fx_cond_wait_rmutex, fx_cond_timedwait_rmutex) ------ */

/* The rmutex's depth count (without FX_RMUTEX_INCONSISTENT), read by its owner. */
static int32_t rdepth(const fx_rmutex *m)
{
    return __atomic_load_n(&m->depth, __ATOMIC_RELAXED) & FX_RMUTEX_DEPTH_MASK;
}

static int32_t rdepth_slot(const fx_rmutex *m)
{
    return __atomic_load_n(&m->depth, __ATOMIC_RELAXED);
}

static int32_t rowner_word(const fx_rmutex *m)
{
    return __atomic_load_n(&m->owner, __ATOMIC_RELAXED);
}

/* Locks m `depth` times; 0 or the first error. */
static int rlock_n(fx_rmutex *m, int depth)
{
    for (int i = 0; i < depth; i++) {
        int r = fx_rmutex_lock(m);
        if (r != 0)
            return r;
    }
    return 0;
}

static int runlock_n(fx_rmutex *m, int depth)
{
    for (int i = 0; i < depth; i++) {
        int r = fx_rmutex_unlock(m);
        if (r != 0)
            return r;
    }
    return 0;
}

struct rbox {
    fx_cond c;
    fx_rmutex m;
    fx_mutex fm;      /* for waiters with an fx_mutex on the same cond */
    int32_t returned; /* waiters back from the wait (atomic) */
};

#define RDEPTH 2 /* the one-shot rmutex waiters wait at this depth */

/* A one-shot waiter: locks (an rmutex at RDEPTH, or b->fm), waits once, and
 * records what it found on return. */
struct rwaiter {
    struct rbox *b;
    bool use_fx_mutex;
    struct rwaiter *all; /* for the one-at-a-time check: every waiter ... */
    int n;               /* ... and how many */
    pid_t tid;           /* atomic */
    int32_t word;        /* the owner word it writes (fxt_rmutex_self_word) */
    int rc;
    int32_t depth_after;  /* depth slot right after the wait */
    int32_t owner_after;  /* owner word right after the wait */
    int crowd;            /* at return: other waiters neither back nor parked */
    int unlock_rc;
    int done;             /* atomic */
};

/* How many waiters of w[0..n) other than `self` are neither back from the
 * wait nor asleep in their futex call on c->seq (parked ones still show it). */
static int count_unparked(struct rwaiter *w, int n, const struct rwaiter *self)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (&w[i] != self && !__atomic_load_n(&w[i].done, __ATOMIC_SEQ_CST) &&
            !sleeps_on(0, __atomic_load_n(&w[i].tid, __ATOMIC_ACQUIRE), &w[i].b->c.seq))
            k++;
    return k;
}

/* How many of the waiters w[0..n) sleep in a futex call on addr. */
static int count_on(struct rwaiter *w, int n, const void *addr)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += sleeps_on(0, __atomic_load_n(&w[i].tid, __ATOMIC_ACQUIRE), addr);
    return k;
}

static void *rwaiter_main(void *arg)
{
    struct rwaiter *w = arg;
    pid_t me = tid_self();
    w->word = fxt_rmutex_self_word(); /* read after the join */
    __atomic_store_n(&w->tid, me, __ATOMIC_RELEASE);
    if (w->use_fx_mutex) {
        fx_mutex_lock(&w->b->fm);
        w->rc = fx_cond_wait(&w->b->c, &w->b->fm);
    } else {
        w->rc = rlock_n(&w->b->m, RDEPTH);
        if (w->rc == 0)
            w->rc = fx_cond_wait_rmutex(&w->b->c, &w->b->m);
        w->depth_after = rdepth_slot(&w->b->m);
        w->owner_after = rowner_word(&w->b->m);
    }
    if (w->all != NULL)
        w->crowd = count_unparked(w->all, w->n, w);
    __atomic_fetch_add(&w->b->returned, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
    w->unlock_rc = w->use_fx_mutex ? fx_mutex_unlock(&w->b->fm) : runlock_n(&w->b->m, RDEPTH);
    return NULL;
}

static void start_rwaiters(struct rbox *b, struct rwaiter *w, pthread_t *t, int n)
{
    for (int i = 0; i < n; i++) {
        w[i].b = b;
        t[i] = fxt_thread(rwaiter_main, &w[i]);
    }
    for (int i = 0; i < n; i++) {
        ASSERT_EVENTUALLY((__atomic_load_n(&w[i].tid, __ATOMIC_ACQUIRE) != 0));
        ASSERT_EVENTUALLY((sleeps_on(0, w[i].tid, &b->c.seq)));
    }
    assert_int_equal(__atomic_load_n(&b->c.waiters, __ATOMIC_SEQ_CST), n);
}

/* start_rwaiters, then until no recheck can release them (ASSERT_QUIET). */
static void start_quiet_rwaiters(struct rbox *b, struct rwaiter *w, pthread_t *t, int n)
{
    QUIET_BEGIN();
    start_rwaiters(b, w, t, n);
    ASSERT_QUIET(n, count_on(w, n, &b->c.seq) == n);
}

/* Joins the waiters and checks that each got 0 with its mutex back as it was. */
static void join_rwaiters(struct rwaiter *w, pthread_t *t, int n)
{
    for (int i = 0; i < n; i++) {
        fxt_join(t[i]);
        assert_int_equal(w[i].rc, 0);
        assert_int_equal(w[i].unlock_rc, 0);
        if (!w[i].use_fx_mutex) {
            assert_int_equal(w[i].depth_after, RDEPTH);
            assert_int_equal(w[i].owner_after & ~FX_RMUTEX_WAITERS, w[i].word);
        }
    }
}

static void test_rmutex_wait_bad_pointers_and_overlap_give_einval(void **state)
{
    (void)state;
    _Alignas(8) char buf[64] = {0};
    fx_cond *bad_c = (fx_cond *)(buf + 2);
    fx_rmutex *bad_m = (fx_rmutex *)(buf + 33);
    fx_cond *c = fxt_arena(sizeof *c);
    fx_rmutex *m = fxt_arena(sizeof *m);
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(rlock_n(m, 2), 0);
    assert_int_equal(fx_cond_wait_rmutex(NULL, m), EINVAL);
    assert_int_equal(fx_cond_wait_rmutex(bad_c, m), EINVAL);
    assert_int_equal(fx_cond_wait_rmutex(c, NULL), EINVAL);
    assert_int_equal(fx_cond_wait_rmutex(c, bad_m), EINVAL);
    assert_int_equal(fx_cond_timedwait_rmutex(NULL, m, &d), EINVAL);
    assert_int_equal(fx_cond_timedwait_rmutex(bad_c, m, &d), EINVAL);
    assert_int_equal(fx_cond_timedwait_rmutex(c, NULL, &d), EINVAL);
    assert_int_equal(fx_cond_timedwait_rmutex(c, bad_m, &d), EINVAL);
    /* an rmutex aligned as an int32 only, where pointers are wider: misaligned
     * (its link slots are pointers) */
    if (_Alignof(fx_rmutex) > sizeof(int32_t)) {
        fx_rmutex *bad_m4 = (fx_rmutex *)(void *)(buf + sizeof(int32_t));
        assert_int_equal(fx_cond_wait_rmutex(c, bad_m4), EINVAL);
        assert_int_equal(fx_cond_timedwait_rmutex(c, bad_m4, &d), EINVAL);
    }
    /* an rmutex (FX_RMUTEX_SIZE bytes, aligned as a pointer) overlapping the
     * 16-byte cond: from the first aligned start whose last bytes reach into
     * the cond to the last one inside it; the cond sits FX_RMUTEX_SIZE bytes
     * into the area, so that an rmutex fits on either side of it */
    enum { AT = FX_RMUTEX_SIZE, AL = _Alignof(fx_rmutex) };
    _Static_assert(AT % _Alignof(fx_cond) == 0 && AT % AL == 0, "the cond is aligned at AT");
    _Alignas(16) char area[AT + sizeof(fx_cond) + FX_RMUTEX_SIZE] = {0};
    fx_cond *c2 = (fx_cond *)(void *)(area + AT);
    for (size_t at = AL; at < AT + sizeof(fx_cond); at += AL) {
        fx_rmutex *inside = (fx_rmutex *)(void *)(area + at);
        assert_int_equal(fx_cond_wait_rmutex(c2, inside), EINVAL);
        assert_int_equal(fx_cond_timedwait_rmutex(c2, inside, &d), EINVAL);
    }
    /* adjacent but not overlapping: checked further, and not held */
    assert_int_equal(fx_cond_wait_rmutex(c2, (fx_rmutex *)(void *)(area + AT + sizeof(fx_cond))),
                     EPERM);
    assert_int_equal(fx_cond_wait_rmutex(c2, (fx_rmutex *)(void *)area), EPERM);
    assert_memory_equal(c2, &zero_cond, sizeof *c2);
    /* nothing waited: the rmutex is ours at the same depth, the cond untouched */
    assert_int_equal(fx_rmutex_owner(m), tid_self());
    assert_int_equal(rdepth(m), 2);
    assert_memory_equal(c, &zero_cond, sizeof *c);
    assert_int_equal(runlock_n(m, 2), 0);
}

/* Issue 11, class 9: a waiters count the wait's increment would wrap
 * (INT32_MAX) is a slot the library never writes. Each wait runs in a child,
 * so that a wait that sleeps instead (the old increment wrapped the count
 * negative, and signals then refused it) shows as a hang, not a stuck test. */
struct wrap_args {
    fx_cond c;
    fx_mutex m;
    fx_rmutex rm;
};

static int child_wait_on_wrapping_count(void *arg)
{
    struct wrap_args *a = arg;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    FXT_CHILD_CHECK(fx_mutex_lock(&a->m) == 0, 1);
    a->c.waiters = INT32_MAX;
    FXT_CHILD_CHECK(fx_cond_wait(&a->c, &a->m) == EINVAL, 2);
    FXT_CHILD_CHECK(fx_cond_timedwait(&a->c, &a->m, &d) == EINVAL, 3);
    FXT_CHILD_CHECK(fx_cond_timedwait(&a->c, &a->m, NULL) == EINVAL, 4);
    FXT_CHILD_CHECK(a->c.waiters == INT32_MAX && a->c.seq == 0 && a->c.mutex == 0, 5);
    FXT_CHILD_CHECK(fx_mutex_unlock(&a->m) == 0, 6); /* still held: never released */
    return 0;
}

static void test_wait_with_waiters_slot_that_would_wrap_gives_einval_at_once(void **state)
{
    (void)state;
    struct wrap_args *a = fxt_shared_alloc(sizeof *a);
    assert_int_equal(fxt_wait_child(fxt_fork(child_wait_on_wrapping_count, a), 10000), 0);
    fxt_shared_free(a, sizeof *a);
}

static int child_rmutex_wait_on_wrapping_count(void *arg)
{
    struct wrap_args *a = arg;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    FXT_CHILD_CHECK(fx_rmutex_lock(&a->rm) == 0, 1);
    a->c.waiters = INT32_MAX;
    FXT_CHILD_CHECK(fx_cond_wait_rmutex(&a->c, &a->rm) == EINVAL, 2);
    FXT_CHILD_CHECK(fx_cond_timedwait_rmutex(&a->c, &a->rm, &d) == EINVAL, 3);
    FXT_CHILD_CHECK(a->c.waiters == INT32_MAX && a->c.seq == 0 && a->c.mutex == 0, 4);
    FXT_CHILD_CHECK(fx_rmutex_owner(&a->rm) == tid_self(), 5);
    FXT_CHILD_CHECK(fx_rmutex_unlock(&a->rm) == 0, 6);
    return 0;
}

static void test_rmutex_wait_with_waiters_slot_that_would_wrap_gives_einval_at_once(void **state)
{
    (void)state;
    struct wrap_args *a = fxt_shared_alloc(sizeof *a);
    assert_int_equal(fxt_wait_child(fxt_fork(child_rmutex_wait_on_wrapping_count, a), 10000), 0);
    fxt_shared_free(a, sizeof *a);
}

/* --- cancellation (issue 13): the waits are cancellation points ----------- */

struct cancel_case {
    struct fxt_cancel run;
    fx_cond c;
    fx_mutex m;
    fx_rmutex rm;
    int kind;                /* 0 fx_cond_wait, 1 timedwait, 2 _rmutex, 3 timedwait_rmutex */
    int32_t held_in_handler; /* the cleanup handler found the mutex held by this thread */
};

static int cancel_lock(void *arg)
{
    struct cancel_case *k = arg;
    return k->kind < 2 ? fx_mutex_lock(&k->m) : fx_rmutex_lock(&k->rm);
}

static void cancel_handler(void *arg)
{
    struct cancel_case *k = arg;
    if (k->kind < 2) {
        /* Held: the word is LOCKED or CONTENDED, and our unlock succeeds. */
        int32_t st = __atomic_load_n(&k->m.state, __ATOMIC_RELAXED);
        k->held_in_handler = st != FX_MUTEX_UNLOCKED && fx_mutex_unlock(&k->m) == 0;
    } else {
        k->held_in_handler = fx_rmutex_owner(&k->rm) == tid_self() &&
                             fx_rmutex_unlock(&k->rm) == 0;
    }
}

FXF_CANCELLED_FRAME static void cancel_wait(void *arg)
{
    struct cancel_case *k = arg;
    struct timespec far = fx_deadline_in(3600 * FX_NSEC_PER_SEC);
    int r = 0;
    while (r == 0) { /* no predicate ever becomes true: only cancellation ends it */
        switch (k->kind) {
        case 0: r = fx_cond_wait(&k->c, &k->m); break;
        case 1: r = fx_cond_timedwait(&k->c, &k->m, &far); break;
        case 2: r = fx_cond_wait_rmutex(&k->c, &k->rm); break;
        default: r = fx_cond_timedwait_rmutex(&k->c, &k->rm, &far); break;
        }
    }
}

/* One fx_cond_wait, which the pending cancellation must end. */
FXF_CANCELLED_FRAME static void pending_cancel_wait(void *arg)
{
    struct cancel_case *k = arg;
    fx_cond_wait(&k->c, &k->m);
}

static struct cancel_case *cancel_case_new(int kind, void (*wait)(void *))
{
    struct cancel_case *k = fxt_arena(sizeof *k);
    k->kind = kind;
    k->run.prepare = cancel_lock;
    k->run.wait = wait;
    k->run.cleanup = cancel_handler;
    k->run.word = &k->c.seq;
    k->run.arg = k;
    return k;
}

/* A thread blocked in the wait is cancelled and joined promptly; its cleanup
 * handler runs with the mutex held by it; the cond is left with no waiter. */
static void run_cancel_case(int kind)
{
    struct cancel_case *k = cancel_case_new(kind, cancel_wait);
    fxt_cancel_blocked(&k->run, 10000);
    assert_int_equal(k->held_in_handler, 1);
    assert_int_equal(k->c.waiters, 0);
    if (kind < 2)
        assert_int_equal(fx_mutex_trylock(&k->m), 0);
    else
        assert_int_equal(fx_rmutex_trylock(&k->rm), 0);
}

static void test_cancelled_wait_runs_cleanup_with_mutex_held(void **state)
{
    (void)state;
    run_cancel_case(0);
}

static void test_cancelled_timedwait_runs_cleanup_with_mutex_held(void **state)
{
    (void)state;
    run_cancel_case(1);
}

static void test_rmutex_cancelled_wait_runs_cleanup_with_mutex_held(void **state)
{
    (void)state;
    run_cancel_case(2);
}

static void test_rmutex_cancelled_timedwait_runs_cleanup_with_mutex_held(void **state)
{
    (void)state;
    run_cancel_case(3);
}

/* A cancellation requested before the call acts at the call, mutex held. */
static void test_pending_cancellation_acts_at_wait_with_mutex_held(void **state)
{
    (void)state;
    struct cancel_case *k = cancel_case_new(0, pending_cancel_wait);
    fxt_cancel_pending(&k->run, 10000);
    assert_int_equal(k->held_in_handler, 1);
    assert_int_equal(k->c.waiters, 0);
    assert_int_equal(k->c.seq, 0); /* it never registered */
}

static void test_rmutex_wait_garbage_slot_values_give_einval(void **state)
{
    (void)state;
    fx_rmutex *m = fxt_arena(sizeof *m);
    fx_cond *c = fxt_arena(sizeof *c);
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(rlock_n(m, 3), 0);

    /* slots of the cond the library never writes */
    c->waiters = -1;
    assert_int_equal(fx_cond_wait_rmutex(c, m), EINVAL);
    assert_int_equal(fx_cond_timedwait_rmutex(c, m, &d), EINVAL);
    fx_cond_init(c);
    c->park = 1;
    assert_int_equal(fx_cond_wait_rmutex(c, m), EINVAL);
    const int32_t bad_tokens[] = {7, 6, -1, 0x7fffffff};
    for (size_t i = 0; i < sizeof bad_tokens / sizeof bad_tokens[0]; i++) {
        fx_cond_init(c);
        c->mutex = bad_tokens[i];
        assert_int_equal(fx_cond_wait_rmutex(c, m), EINVAL);
        assert_int_equal(c->waiters, 0);
    }
    fx_cond_init(c);
    assert_int_equal(fx_rmutex_owner(m), tid_self());
    assert_int_equal(rdepth_slot(m), 3);

    /* the owner's depth slot holding no count, or an unknown bit */
    const int32_t bad_depths[] = {0, FX_RMUTEX_INCONSISTENT, 3 | (int32_t)0x80000000};
    for (size_t i = 0; i < sizeof bad_depths / sizeof bad_depths[0]; i++) {
        m->depth = bad_depths[i];
        assert_int_equal(fx_cond_wait_rmutex(c, m), EINVAL);
        assert_int_equal(fx_cond_timedwait_rmutex(c, m, &d), EINVAL);
        assert_int_equal(rdepth_slot(m), bad_depths[i]);
        assert_int_equal(fx_rmutex_owner(m), tid_self());
    }
    m->depth = 3;
    assert_memory_equal(c, &zero_cond, sizeof *c);
    assert_int_equal(runlock_n(m, 3), 0);

    /* owner words the library never writes */
    const int32_t bad_owners[] = {FX_RMUTEX_TID_MAX + 1, 0x10000000, FX_RMUTEX_WAITERS,
                                  FX_RMUTEX_ORPHANED | 5,
                                  /* layout 2: LOCALNS without PROBED, PROBED or
                                   * LOCALNS without a TID, bits 22..26 */
                                  FX_RMUTEX_LOCALNS | 5, FX_RMUTEX_PROBED,
                                  FX_RMUTEX_PROBED | FX_RMUTEX_LOCALNS, 0x04000000 | 5};
    for (size_t i = 0; i < sizeof bad_owners / sizeof bad_owners[0]; i++) {
        fx_rmutex junk = {.owner = bad_owners[i], .depth = 1};
        assert_int_equal(fx_cond_wait_rmutex(c, &junk), EINVAL);
        assert_int_equal(fx_cond_timedwait_rmutex(c, &junk, &d), EINVAL);
        assert_int_equal(junk.owner, bad_owners[i]);
    }
    assert_memory_equal(c, &zero_cond, sizeof *c);
}

struct rm_holder {
    fx_rmutex *m;
    int32_t held;    /* flag: the thread holds m */
    int32_t release; /* flag: the thread may unlock and leave */
};

static void *rm_holder_main(void *arg)
{
    struct rm_holder *h = arg;
    if (fx_rmutex_lock(h->m) != 0)
        return NULL; /* held stays 0: the test fails */
    fxt_flag_set(&h->held, 1);
    fxt_flag_wait(&h->release, 1, 60000);
    fx_rmutex_unlock(h->m);
    return NULL;
}

static void test_rmutex_wait_without_owning_gives_eperm(void **state)
{
    (void)state;
    fx_cond *c = fxt_arena(sizeof *c);
    fx_rmutex *m = fxt_arena(sizeof *m);
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    /* free */
    assert_int_equal(fx_cond_wait_rmutex(c, m), EPERM);
    assert_int_equal(fx_cond_timedwait_rmutex(c, m, &d), EPERM);
    assert_int_equal(m->owner, 0);
    /* owned by another thread: it keeps it */
    struct rm_holder *h = fxt_arena(sizeof *h);
    h->m = m;
    pthread_t t = fxt_thread(rm_holder_main, h);
    assert_true(fxt_flag_wait(&h->held, 1, 10000));
    pid_t other = fx_rmutex_owner(m);
    assert_true(other > 0 && other != tid_self());
    assert_int_equal(fx_cond_wait_rmutex(c, m), EPERM);
    assert_int_equal(fx_cond_timedwait_rmutex(c, m, &d), EPERM);
    assert_int_equal(fx_rmutex_owner(m), other);
    fxt_flag_set(&h->release, 1);
    fxt_join(t);
    /* orphaned (its owner died; WAITERS kept by the kernel's mark) and not
     * recoverable: nobody owns it */
    const int32_t ownerless[] = {FX_RMUTEX_ORPHANED, FX_RMUTEX_ORPHANED | FX_RMUTEX_WAITERS,
                                 FX_RMUTEX_NOTRECOVERABLE};
    for (size_t i = 0; i < sizeof ownerless / sizeof ownerless[0]; i++) {
        fx_rmutex_init(m);
        m->owner = ownerless[i];
        assert_int_equal(fx_cond_wait_rmutex(c, m), EPERM);
        assert_int_equal(fx_cond_timedwait_rmutex(c, m, &d), EPERM);
        assert_int_equal(m->owner, ownerless[i]);
    }
    assert_memory_equal(c, &zero_cond, sizeof *c);
}

static void test_rmutex_timedwait_bad_nsec_gives_einval_and_keeps_depth(void **state)
{
    (void)state;
    fx_cond *c = fxt_arena(sizeof *c);
    fx_rmutex *m = fxt_arena(sizeof *m);
    assert_int_equal(rlock_n(m, 2), 0);
    struct timespec bad[] = {{0, -1}, {0, 1000000000L}, {-1, 1000000000L}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(fx_cond_timedwait_rmutex(c, m, &bad[i]), EINVAL);
    assert_int_equal(fx_rmutex_owner(m), tid_self());
    assert_int_equal(rdepth_slot(m), 2);
    assert_memory_equal(c, &zero_cond, sizeof *c);
    assert_int_equal(runlock_n(m, 2), 0);
}

static void test_rmutex_timedwait_times_out_with_depth_restored(void **state)
{
    (void)state;
    fx_cond *c = fxt_arena(sizeof *c);
    fx_rmutex *m = fxt_arena(sizeof *m);
    assert_int_equal(rlock_n(m, 3), 0);
    int64_t t0 = fxt_now_ns();
    struct timespec d = fx_deadline_in(100 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_cond_timedwait_rmutex(c, m, &d), ETIMEDOUT);
    int64_t took = fxt_now_ns() - t0;
    assert_true(took >= 100 * FX_NSEC_PER_MSEC);
    assert_true(took < 5 * FX_NSEC_PER_SEC);
    assert_int_equal(fx_rmutex_owner(m), tid_self()); /* re-acquired, as POSIX */
    assert_int_equal(rdepth_slot(m), 3);
    assert_int_equal(c->waiters, 0);
    assert_int_equal(runlock_n(m, 3), 0);
    assert_int_equal(fx_rmutex_owner(m), 0);
    assert_int_equal(fx_rmutex_unlock(m), EPERM); /* exactly three levels */
}

static void test_rmutex_timedwait_past_deadline_times_out_at_once(void **state)
{
    (void)state;
    fx_cond *c = fxt_arena(sizeof *c);
    fx_rmutex *m = fxt_arena(sizeof *m);
    assert_int_equal(rlock_n(m, 2), 0);
    struct timespec past[] = {{-1, 0}, fx_deadline_in(-FX_NSEC_PER_SEC), {0, 0}};
    for (size_t i = 0; i < sizeof past / sizeof past[0]; i++) {
        int64_t t0 = fxt_now_ns();
        assert_int_equal(fx_cond_timedwait_rmutex(c, m, &past[i]), ETIMEDOUT);
        assert_true(fxt_now_ns() - t0 < FX_NSEC_PER_SEC);
        assert_int_equal(fx_rmutex_owner(m), tid_self());
        assert_int_equal(rdepth_slot(m), 2);
    }
    assert_int_equal(c->waiters, 0);
    assert_int_equal(runlock_n(m, 2), 0);
}

/* Depth 3: the whole depth is released while the thread waits (another
 * thread takes the rmutex meanwhile) and restored on return. */
struct deep_waiter {
    fx_cond c;
    fx_rmutex m;
    int32_t go;     /* under m */
    int32_t ready;  /* flag: about to wait */
    pid_t tid;
    int32_t word; /* the owner word it writes (fxt_rmutex_self_word) */
    int rc, depth_after, unlocks_ok;
    int32_t owner_after;
};

static void *deep_waiter_main(void *arg)
{
    struct deep_waiter *w = arg;
    w->tid = tid_self();
    w->word = fxt_rmutex_self_word();
    w->rc = rlock_n(&w->m, 3);
    fxt_flag_set(&w->ready, 1);
    while (w->rc == 0 && !w->go)
        w->rc = fx_cond_wait_rmutex(&w->c, &w->m);
    w->depth_after = rdepth_slot(&w->m);
    w->owner_after = rowner_word(&w->m);
    /* exactly three levels to leave */
    w->unlocks_ok = fx_rmutex_unlock(&w->m) == 0 && fx_rmutex_unlock(&w->m) == 0 &&
                    fx_rmutex_owner(&w->m) == w->tid && fx_rmutex_unlock(&w->m) == 0 &&
                    fx_rmutex_owner(&w->m) == 0;
    return NULL;
}

static void test_rmutex_wait_releases_whole_depth_and_restores_depth_three(void **state)
{
    (void)state;
    struct deep_waiter *w = fxt_arena(sizeof *w);
    pthread_t t = fxt_thread(deep_waiter_main, w);
    assert_true(fxt_flag_wait(&w->ready, 1, 10000));
    /* this lock succeeds only once the waiter gave up all three levels */
    assert_int_equal(fx_rmutex_lock(&w->m), 0);
    assert_int_equal(rdepth_slot(&w->m), 1);
    assert_int_equal(w->c.waiters, 1);
    w->go = 1;
    assert_int_equal(fx_cond_signal(&w->c), 0);
    assert_int_equal(fx_rmutex_unlock(&w->m), 0);
    fxt_join(t);
    assert_int_equal(w->rc, 0);
    assert_int_equal(w->depth_after, 3);
    assert_int_equal(w->owner_after & ~FX_RMUTEX_WAITERS, w->word);
    assert_true(w->unlocks_ok);
    assert_int_equal(w->c.waiters, 0);
}

/* A waiter signalled while nobody holds the rmutex takes it back as an
 * ordinary locker: no WAITERS bit, so its unlock makes no system call. */
static void test_rmutex_signalled_wait_reacquires_without_waiters_bit(void **state)
{
    (void)state;
    struct rbox *b = fxt_arena(sizeof *b);
    struct rwaiter *w = fxt_arena(sizeof *w);
    pthread_t t;
    start_rwaiters(b, w, &t, 1);
    assert_int_equal(fx_cond_signal(&b->c), 0); /* the rmutex is free */
    join_rwaiters(w, &t, 1);
    assert_int_equal(w->owner_after, w->word);
    assert_int_equal(b->m.owner, 0);
}

static void test_rmutex_signal_wakes_exactly_one_of_several(void **state)
{
    (void)state;
    struct rbox *b = fxt_arena(sizeof *b);
    struct rwaiter *w = fxt_arena(NWAITERS * sizeof *w);
    pthread_t t[NWAITERS];
    start_quiet_rwaiters(b, w, t, NWAITERS);
    assert_int_equal(b->c.mutex, 3); /* RMUTEX */
    for (int k = 1; k <= NWAITERS; k++) {
        assert_int_equal(fx_cond_signal(&b->c), 0);
        ASSERT_EVENTUALLY((__atomic_load_n(&b->returned, __ATOMIC_SEQ_CST) >= k));
        /* Each waiter not yet through is (back) asleep on seq: eventually,
         * not at this instant (a first recheck, which asks the memory's
         * scope, may have it awake a moment, and a loaded machine may not
         * have run it back to sleep yet). Only then is the count final. */
        for (int i = 0; i < NWAITERS; i++)
            if (!__atomic_load_n(&w[i].done, __ATOMIC_SEQ_CST))
                ASSERT_EVENTUALLY((__atomic_load_n(&w[i].done, __ATOMIC_SEQ_CST) ||
                                   sleeps_on(0, w[i].tid, &b->c.seq)));
        assert_int_equal(__atomic_load_n(&b->returned, __ATOMIC_SEQ_CST), k);
    }
    join_rwaiters(w, t, NWAITERS);
    assert_int_equal(b->c.waiters, 0);
    assert_int_equal(b->m.owner, 0);
}

/* Broadcast to rmutex waiters: nobody is moved onto the owner word, and they
 * still come back one at a time. With the rmutex held by the broadcaster, one
 * waiter is woken (it then sleeps on the owner word) and the others stay
 * parked, still inside their futex call on c->seq; a stampede would put all of
 * them on the owner word. Then each waiter, when it returns holding the
 * rmutex, finds at most one other waiter out of the park (the one it has just
 * woken). */
static void test_rmutex_broadcast_releases_all_one_at_a_time(void **state)
{
    (void)state;
    struct rbox *b = fxt_arena(sizeof *b);
    struct rwaiter *w = fxt_arena(NWAITERS * sizeof *w);
    pthread_t t[NWAITERS];
    for (int i = 0; i < NWAITERS; i++) {
        w[i].all = w;
        w[i].n = NWAITERS;
    }
    start_quiet_rwaiters(b, w, t, NWAITERS);
    assert_int_equal(fx_rmutex_lock(&b->m), 0);
    assert_int_equal(fx_cond_broadcast(&b->c), 0);
    ASSERT_EVENTUALLY((count_on(w, NWAITERS, &b->m.owner) == 1 &&
                       count_on(w, NWAITERS, &b->c.seq) == NWAITERS - 1));
    assert_int_equal(b->returned, 0);
    assert_true(b->m.owner & FX_RMUTEX_WAITERS);
    assert_int_equal(fx_rmutex_unlock(&b->m), 0);
    join_rwaiters(w, t, NWAITERS);
    for (int i = 0; i < NWAITERS; i++)
        assert_true(w[i].crowd <= 1);
    assert_int_equal(b->returned, NWAITERS);
    assert_int_equal(b->c.waiters, 0);
    assert_int_equal(b->c.seq & FX_COND_BCAST, 0);
    assert_int_equal(b->m.owner, 0);
}

/* An rmutex acquired with EOWNERDEAD and not made consistent: waiting releases
 * it as its unlock would, not recoverable, and returns at once. */
static void test_rmutex_wait_with_inconsistent_mutex_gives_enotrecoverable_at_once(void **state)
{
    (void)state;
    for (int timed = 0; timed < 2; timed++) {
        fx_cond *c = fxt_arena(sizeof *c);
        fx_rmutex *m = fxt_arena(sizeof *m);
        m->owner = FX_RMUTEX_ORPHANED; /* what fx_rmutex_recover leaves */
        assert_int_equal(fx_rmutex_lock(m), EOWNERDEAD);
        assert_int_equal(fx_rmutex_lock(m), 0);
        assert_int_equal(rdepth_slot(m), 2 | FX_RMUTEX_INCONSISTENT);
        struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
        int64_t t0 = fxt_now_ns();
        assert_int_equal(timed ? fx_cond_timedwait_rmutex(c, m, &d) : fx_cond_wait_rmutex(c, m),
                         ENOTRECOVERABLE);
        assert_true(fxt_now_ns() - t0 < 5 * FX_NSEC_PER_SEC);
        assert_int_equal(m->owner, FX_RMUTEX_NOTRECOVERABLE);
        assert_int_equal(fx_rmutex_lock(m), ENOTRECOVERABLE);
        assert_memory_equal(c, &zero_cond, sizeof *c); /* it never registered */
    }
}

/* The rmutex becomes not recoverable while the thread waits: an owner that
 * acquired it with EOWNERDEAD signals and unlocks without repairing. */
struct unrec {
    fx_cond c;
    fx_rmutex m;
    int32_t ready;   /* flag: the waiter is about to wait */
    int32_t held;    /* flag: the helper holds m */
    int32_t word_held; /* m's owner word while the helper held it */
    int32_t word;      /* the owner word the helper writes (fxt_rmutex_self_word) */
    int rc;
    int32_t owner_after;
};

static void *unrec_waiter_main(void *arg)
{
    struct unrec *u = arg;
    u->rc = rlock_n(&u->m, 2);
    fxt_flag_set(&u->ready, 1);
    if (u->rc == 0)
        u->rc = fx_cond_wait_rmutex(&u->c, &u->m);
    u->owner_after = rowner_word(&u->m);
    return NULL;
}

/* Takes the rmutex and ends holding it. */
static void *unrec_dier_main(void *arg)
{
    struct unrec *u = arg;
    u->word = fxt_rmutex_self_word();
    if (fx_rmutex_lock(&u->m) != 0)
        return NULL; /* held stays 0: the test fails */
    u->word_held = rowner_word(&u->m);
    fxt_flag_set(&u->held, (int32_t)tid_self());
    return NULL;
}

static void test_rmutex_wait_gives_enotrecoverable_when_mutex_became_unrecoverable(void **state)
{
    (void)state;
    struct unrec *u = fxt_arena(sizeof *u);
    pthread_t w = fxt_thread(unrec_waiter_main, u);
    assert_true(fxt_flag_wait(&u->ready, 1, 10000));
    ASSERT_EVENTUALLY((__atomic_load_n(&u->c.waiters, __ATOMIC_SEQ_CST) == 1 &&
                       fx_rmutex_owner(&u->m) == 0));
    pthread_t d = fxt_thread(unrec_dier_main, u);
    fxt_join(d);
    pid_t dead = u->held;
    assert_true(dead > 0);
    assert_int_equal(u->word_held, u->word);
    if (u->word & FX_RMUTEX_PROBED) {
        /* An owner without a robust list: its word still names it; the
         * supervisor's recover releases it. */
        assert_int_equal(fx_rmutex_owner(&u->m), dead);
        assert_int_equal(fx_rmutex_recover(&u->m, dead), 0);
    } else {
        /* The kernel reported the death at the thread's exit: orphaned at
         * once (nobody slept on m: no WAITERS), nothing left to recover. */
        assert_int_equal(u->word_held, dead);
        assert_int_equal(rowner_word(&u->m), FX_RMUTEX_ORPHANED);
        assert_int_equal(fx_rmutex_owner(&u->m), 0);
        assert_int_equal(fx_rmutex_recover(&u->m, dead), EPERM);
    }
    assert_int_equal(fx_rmutex_lock(&u->m), EOWNERDEAD);
    assert_int_equal(fx_cond_signal(&u->c), 0);
    assert_int_equal(fx_rmutex_unlock(&u->m), 0); /* not consistent: unrecoverable */
    fxt_join(w);
    assert_int_equal(u->rc, ENOTRECOVERABLE);
    assert_int_equal(u->owner_after, FX_RMUTEX_NOTRECOVERABLE);
    assert_int_equal(u->c.waiters, 0);
}

/* --- fx_rmutex waiters in processes: owner death -------------------------- */

/* A child that may block forever dies with the test process. */
static void die_with_parent(void)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
}

struct xdeath {
    fx_cond c;
    fx_rmutex m;
    int32_t go;          /* under m */
    int32_t ready;       /* flag: the waiter holds m and is about to wait */
    int32_t signalled;   /* flag: the holder took m and signalled (or not) */
    int32_t holder_signals; /* whether the holder signals before it is killed */
    int32_t holder_word; /* the holder's owner word (fxt_rmutex_self_word) */
    int64_t timeout_ns;  /* > 0: the waiter uses timedwait with this timeout */
    int64_t done_ns;     /* when the waiter's wait returned */
    int32_t rc;
    int32_t depth_after;
};

/* Waits at depth 3; expects EOWNERDEAD at depth 3, repairs and leaves. */
static int xdeath_waiter(void *arg)
{
    struct xdeath *x = arg;
    die_with_parent();
    FXT_CHILD_CHECK(rlock_n(&x->m, 3) == 0, 1);
    fxt_flag_set(&x->ready, 1);
    if (x->timeout_ns > 0) {
        /* Until the holder has taken m during one of the waits (it is let in
         * by the first), each times out with m back at depth 3. */
        do {
            struct timespec d = fx_deadline_in(x->timeout_ns);
            x->rc = fx_cond_timedwait_rmutex(&x->c, &x->m, &d);
            FXT_CHILD_CHECK(x->rc != ETIMEDOUT || rdepth_slot(&x->m) == 3, 9);
        } while (x->rc == ETIMEDOUT);
    } else {
        x->rc = fx_cond_wait_rmutex(&x->c, &x->m);
    }
    x->done_ns = fxt_now_ns();
    x->depth_after = rdepth_slot(&x->m);
    FXT_CHILD_CHECK(x->rc == EOWNERDEAD, 2);
    FXT_CHILD_CHECK(fx_rmutex_owner(&x->m) == getpid(), 3);
    FXT_CHILD_CHECK(x->depth_after == (3 | FX_RMUTEX_INCONSISTENT), 4);
    FXT_CHILD_CHECK(fx_rmutex_consistent(&x->m) == 0, 5);
    FXT_CHILD_CHECK(runlock_n(&x->m, 3) == 0, 6);
    FXT_CHILD_CHECK(fx_rmutex_owner(&x->m) == 0, 7);
    FXT_CHILD_CHECK(fx_rmutex_unlock(&x->m) == EPERM, 8);
    return 0;
}

/* Takes m once the waiter gave it up, signals (or not), and dies holding it. */
static int xdeath_holder(void *arg)
{
    struct xdeath *x = arg;
    die_with_parent();
    FXT_CHILD_CHECK(fxt_flag_wait(&x->ready, 1, 10000), 1);
    x->holder_word = fxt_rmutex_self_word();
    FXT_CHILD_CHECK(fx_rmutex_lock(&x->m) == 0, 2);
    if (x->holder_signals) {
        x->go = 1;
        FXT_CHILD_CHECK(fx_cond_signal(&x->c) == 0, 3);
    }
    fxt_flag_set(&x->signalled, 1);
    for (;;)
        pause(); /* until SIGKILL */
}

/* Runs the scenario: kills the holder once the waiter sleeps on the owner
 * word, returns how long the waiter took to come back after the kill (ns). */
static int64_t xdeath_run(struct xdeath *x)
{
    pid_t waiter = fxt_fork(xdeath_waiter, x);
    pid_t holder = fxt_fork(xdeath_holder, x);
    assert_true(fxt_flag_wait(&x->signalled, 1, 10000));
    /* the waiter is back from its cond wait and blocked on the rmutex (the
     * holder's TID in the owner word, with the WAITERS bit it set) */
    ASSERT_EVENTUALLY((sleeps_on(waiter, waiter, &x->m.owner)));
    assert_int_equal(fx_rmutex_owner(&x->m), holder);
    assert_int_equal(x->m.owner, x->holder_word | FX_RMUTEX_WAITERS);
    /* Let it settle into its steady cycle (for a PROBED owner, liveness
     * checks FXI_RMUTEX_RECHECK_MS apart, later FXI_RMUTEX_LONG_RECHECK_MS)
     * rather than kill within its first, 1 ms check: this measures a waiter
     * that has waited a while. Not synchronization. */
    usleep(3 * FXI_RMUTEX_RECHECK_MS * 1000 / 2);
    int64_t killed = fxt_now_ns();
    assert_int_equal(kill(holder, SIGKILL), 0); /* not reaped until the end: a zombie */
    fxt_reap_where_zombies_look_alive(holder);
    assert_int_equal(fxt_wait_child(waiter, 10000), 0);
    assert_int_equal(fxt_wait_child(holder, 10000), 128 + SIGKILL);
    assert_int_equal(x->rc, EOWNERDEAD);
    assert_int_equal(x->depth_after, 3 | FX_RMUTEX_INCONSISTENT);
    assert_int_equal(x->c.waiters, 0);
    return x->done_ns - killed;
}

#define OWNER_DEATH_LIMIT_NS (250 * FX_NSEC_PER_MSEC)

/* How soon a waiter must come back after the death of the owner whose word
 * is owner_word. The kernel reports an owner named by its bare TID at once:
 * OWNER_DEATH_LIMIT_NS is for being scheduled. A PROBED owner's death is
 * found by the waiter's next liveness check, which comes up to
 * FXI_RMUTEX_LONG_RECHECK_MS later once the waiter has watched that owner for
 * FXI_RMUTEX_LONG_AFTER_MS (src/internal/probe_periods.h): that much more. */
static int64_t owner_death_limit_ns(int32_t owner_word)
{
    return OWNER_DEATH_LIMIT_NS +
           (owner_word & FX_RMUTEX_PROBED ? FXI_RMUTEX_LONG_RECHECK_MS * FX_NSEC_PER_MSEC : 0);
}

static void test_rmutex_owner_killed_after_signal_gives_eownerdead_within_250ms(void **state)
{
    (void)state;
    struct xdeath *x = fxt_shared_alloc(sizeof *x);
    x->holder_signals = 1;
    int64_t took = xdeath_run(x);
    int64_t limit = owner_death_limit_ns(x->holder_word);
    printf("cond: SIGKILL of the rmutex owner after its signal -> fx_cond_wait_rmutex "
           "returned EOWNERDEAD (depth 3 restored) in %.2f ms (limit %lld ms)\n",
           (double)took / 1e6, (long long)(limit / FX_NSEC_PER_MSEC));
    assert_true(took >= 0 && took < limit);
    fxt_shared_free(x, sizeof *x);
}

/* A timed wait whose deadline passes while the owner holds the rmutex, and
 * the owner then dies: EOWNERDEAD, not ETIMEDOUT (the caller must repair). */
static void test_rmutex_timedwait_owner_killed_gives_eownerdead_not_etimedout(void **state)
{
    (void)state;
    struct xdeath *x = fxt_shared_alloc(sizeof *x);
    x->holder_signals = 0;
    x->timeout_ns = 20 * FX_NSEC_PER_MSEC;
    int64_t took = xdeath_run(x);
    assert_true(took >= 0 && took < owner_death_limit_ns(x->holder_word));
    fxt_shared_free(x, sizeof *x);
}

/* Why broadcast never moves rmutex waiters onto the owner word. Two waiter
 * processes are released by one broadcast; the first one back dies holding
 * the rmutex. The other, had it been requeued onto the owner word, would sleep
 * there inside its cond wait, with no liveness re-check, for ever; it is
 * instead woken from park by the first (before that one returned) and waits
 * for the rmutex in the rmutex's own bounded sleeps: EOWNERDEAD in time. */
struct xchain {
    fx_cond c;
    fx_rmutex m;
    int32_t holding;  /* flag: pid of the first waiter back (it then pauses) */
    int32_t holding_word; /* its owner word (fxt_rmutex_self_word), before holding */
    int32_t rc;       /* the other waiter's result */
    int64_t done_ns;  /* when the other waiter's wait returned */
    int32_t depth_after;
};

static int xchain_waiter(void *arg)
{
    struct xchain *x = arg;
    die_with_parent();
    FXT_CHILD_CHECK(rlock_n(&x->m, 2) == 0, 1);
    int r = fx_cond_wait_rmutex(&x->c, &x->m);
    if (r == 0) {
        /* the first one back: dies holding the rmutex at depth 2 */
        x->holding_word = fxt_rmutex_self_word();
        fxt_flag_set(&x->holding, (int32_t)getpid());
        for (;;)
            pause();
    }
    x->done_ns = fxt_now_ns();
    x->rc = r;
    x->depth_after = rdepth_slot(&x->m);
    FXT_CHILD_CHECK(r == EOWNERDEAD, 2);
    FXT_CHILD_CHECK(fx_rmutex_consistent(&x->m) == 0, 3);
    FXT_CHILD_CHECK(runlock_n(&x->m, 2) == 0, 4);
    return 0;
}

static void test_rmutex_broadcast_chain_survives_the_first_waiter_dying_with_the_mutex(void **state)
{
    (void)state;
    struct xchain *x = fxt_shared_alloc(sizeof *x);
    pid_t pid[2];
    for (int i = 0; i < 2; i++)
        pid[i] = fxt_fork(xchain_waiter, x);
    for (int i = 0; i < 2; i++)
        ASSERT_EVENTUALLY((sleeps_on(pid[i], pid[i], &x->c.seq)));
    assert_int_equal(fx_cond_broadcast(&x->c), 0);
    ASSERT_EVENTUALLY((__atomic_load_n(&x->holding, __ATOMIC_ACQUIRE) != 0));
    pid_t first = x->holding, other = first == pid[0] ? pid[1] : pid[0];
    assert_int_equal(fx_rmutex_owner(&x->m), first);
    assert_int_equal(x->m.owner & ~FX_RMUTEX_WAITERS, x->holding_word);
    int64_t killed = fxt_now_ns();
    assert_int_equal(kill(first, SIGKILL), 0);
    fxt_reap_where_zombies_look_alive(first);
    assert_int_equal(fxt_wait_child(other, 5000), 0);
    assert_int_equal(fxt_wait_child(first, 10000), 128 + SIGKILL);
    assert_int_equal(x->rc, EOWNERDEAD);
    assert_int_equal(x->depth_after, 2 | FX_RMUTEX_INCONSISTENT);
    assert_true(x->done_ns - killed < owner_death_limit_ns(x->holding_word));
    assert_int_equal(x->c.waiters, 0);
    assert_int_equal(x->m.owner, 0);
    fxt_shared_free(x, sizeof *x);
}

/* --- fx_rmutex waiters in processes: broadcast, ping-pong ------------------ */

struct rxproc {
    fx_cond c;
    fx_rmutex m;
    int32_t go;       /* under m */
    int32_t returned; /* under m */
};

static int rxproc_waiter(void *arg)
{
    struct rxproc *x = arg;
    die_with_parent();
    FXT_CHILD_CHECK(rlock_n(&x->m, 2) == 0, 1);
    while (!x->go)
        FXT_CHILD_CHECK(fx_cond_wait_rmutex(&x->c, &x->m) == 0, 2);
    FXT_CHILD_CHECK(fx_rmutex_owner(&x->m) == getpid(), 3);
    FXT_CHILD_CHECK(rdepth_slot(&x->m) == 2, 4);
    x->returned++;
    FXT_CHILD_CHECK(runlock_n(&x->m, 2) == 0, 5);
    return 0;
}

static void test_rmutex_broadcast_releases_waiters_in_other_processes(void **state)
{
    (void)state;
    struct rxproc *x = fxt_shared_alloc(sizeof *x);
    pid_t pid[3];
    for (int i = 0; i < 3; i++)
        pid[i] = fxt_fork(rxproc_waiter, x);
    for (int i = 0; i < 3; i++)
        ASSERT_EVENTUALLY((sleeps_on(pid[i], pid[i], &x->c.seq)));
    assert_int_equal(fx_rmutex_lock(&x->m), 0);
    x->go = 1;
    assert_int_equal(fx_cond_broadcast(&x->c), 0);
    assert_int_equal(fx_rmutex_unlock(&x->m), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(fxt_wait_child(pid[i], 60000), 0);
    assert_int_equal(x->returned, 3);
    assert_int_equal(x->c.waiters, 0);
    assert_int_equal(x->m.owner, 0);
    fxt_shared_free(x, sizeof *x);
}

struct rpingpong {
    fx_cond c;
    fx_rmutex m;
    int32_t turn;   /* under m */
    int32_t rounds; /* under m */
    int32_t bad;    /* under m: a wait returned non-zero or lost the depth */
};

#define RPINGPONG_ROUNDS 2000

/* Each hand-off at depth 2; signals inside the critical section on even
 * rounds, after it on odd ones. */
static void rpingpong_run(struct rpingpong *p, int me)
{
    for (int i = 0; i < RPINGPONG_ROUNDS; i++) {
        if (fx_rmutex_lock(&p->m) != 0 || fx_rmutex_lock(&p->m) != 0)
            p->bad++;
        while (p->turn != me)
            if (fx_cond_wait_rmutex(&p->c, &p->m) != 0 || rdepth_slot(&p->m) != 2)
                p->bad++;
        p->turn = !me;
        p->rounds++;
        fx_rmutex_unlock(&p->m);
        if (i % 2 == 0)
            fx_cond_signal(&p->c);
        fx_rmutex_unlock(&p->m);
        if (i % 2 == 1)
            fx_cond_signal(&p->c);
    }
}

static int rpingpong_child(void *arg)
{
    die_with_parent();
    rpingpong_run(arg, 1);
    return 0;
}

static void test_rmutex_ping_pong_between_processes_across_the_wrap(void **state)
{
    (void)state;
    struct rpingpong *p = fxt_shared_alloc(sizeof *p);
    p->c.seq = (int32_t)0xffffff00u; /* 64 advances before the wrap */
    pid_t pid = fxt_fork(rpingpong_child, p);
    rpingpong_run(p, 0);
    assert_int_equal(fxt_wait_child(pid, 60000), 0);
    assert_int_equal(p->rounds, 2 * RPINGPONG_ROUNDS);
    assert_int_equal(p->bad, 0);
    assert_true((uint32_t)p->c.seq < 0x00100000u);
    assert_int_equal(p->c.waiters, 0);
    assert_int_equal(p->m.owner, 0);
    fxt_shared_free(p, sizeof *p);
}

/* --- fx_rmutex waiters: signals -------------------------------------------- */

struct rstormed {
    fx_cond c;
    fx_rmutex m;
    int32_t go;   /* under m */
    int rc_bad;
    int waits;
    int32_t depth_after;
};

static void *rstormed_main(void *arg)
{
    struct rstormed *s = arg;
    rlock_n(&s->m, 2);
    while (!s->go) {
        if (fx_cond_wait_rmutex(&s->c, &s->m) != 0)
            s->rc_bad++;
        s->waits++;
    }
    s->depth_after = rdepth_slot(&s->m);
    runlock_n(&s->m, 2);
    return NULL;
}

/* Signal handlers hit the waiter both in its cond wait and while it waits to
 * take the rmutex back (held by the signaller for a while): every EINTR is
 * absorbed, the wait returns 0 once, at depth 2. */
static void test_rmutex_signal_handlers_never_make_wait_or_reacquire_return_eintr(void **state)
{
    (void)state;
    struct rstormed *s = fxt_arena(sizeof *s);
    pthread_t t = fxt_thread(rstormed_main, s);
    ASSERT_EVENTUALLY((__atomic_load_n(&s->c.waiters, __ATOMIC_SEQ_CST) == 1));
    struct fxt_storm *storm = fxt_storm_start(t);
    fxt_storm_hits(100, 500); /* the storm hits the sleeping waiter */
    assert_int_equal(fx_rmutex_lock(&s->m), 0);
    s->go = 1;
    assert_int_equal(fx_cond_signal(&s->c), 0);
    /* ... and the waiter blocked on the rmutex: once it has set the WAITERS
     * bit (not its sleep, which the storm may never let a sampler see under
     * an emulator), more signals. */
    ASSERT_EVENTUALLY((__atomic_load_n(&s->m.owner, __ATOMIC_SEQ_CST) & FX_RMUTEX_WAITERS) != 0);
    fxt_storm_hits(fxt_signal_count() + 100, 500);
    /* Where the waiter judges this owner by liveness checks (a PROBED
     * owner, as under qemu-user), the storm spans one of them too: a
     * duration, not synchronization. */
    if (s->m.owner & FX_RMUTEX_PROBED)
        usleep(3 * FXI_RMUTEX_RECHECK_MS * 1000 / 2);
    assert_int_equal(fx_rmutex_unlock(&s->m), 0);
    fxt_join(t);
    long sigs = fxt_storm_stop(storm);
    assert_true(sigs > 0);
    assert_int_equal(s->rc_bad, 0);
    assert_int_equal(s->waits, 1);
    assert_int_equal(s->depth_after, 2);
    assert_int_equal(s->m.owner, 0);
}

/* Consumers wait at depth 2 with the rmutex; producers notify outside it,
 * mixing signals and broadcasts: every token taken once, nobody left. */
struct rhammer {
    fx_cond c;
    fx_rmutex m;
    int32_t tokens; /* under m */
    int32_t taken;  /* under m */
    int32_t bad;    /* under m */
};

#define RHAMMER_TOKENS 3000

static void *rhammer_consumer(void *arg)
{
    struct rhammer *h = arg;
    for (int i = 0; i < RHAMMER_TOKENS / 2; i++) {
        rlock_n(&h->m, 2);
        while (h->tokens == 0)
            if (fx_cond_wait_rmutex(&h->c, &h->m) != 0 || rdepth_slot(&h->m) != 2)
                h->bad++;
        h->tokens--;
        h->taken++;
        runlock_n(&h->m, 2);
    }
    return NULL;
}

static void *rhammer_producer(void *arg)
{
    struct rhammer *h = arg;
    for (int i = 0; i < RHAMMER_TOKENS / 2; i++) {
        if (fx_rmutex_lock(&h->m) != 0)
            h->bad++;
        h->tokens++;
        fx_rmutex_unlock(&h->m);
        if (i % 3 == 0)
            fx_cond_broadcast(&h->c);
        else
            fx_cond_signal(&h->c);
        if (i % 7 == 0)
            fx_cond_signal(&h->c);
    }
    return NULL;
}

static void test_rmutex_signal_and_broadcast_storm_loses_no_wakeup(void **state)
{
    (void)state;
    struct rhammer *h = fxt_arena(sizeof *h);
    pthread_t t[4];
    t[0] = fxt_thread(rhammer_consumer, h);
    t[1] = fxt_thread(rhammer_consumer, h);
    t[2] = fxt_thread(rhammer_producer, h);
    t[3] = fxt_thread(rhammer_producer, h);
    for (int i = 0; i < 4; i++)
        fxt_join(t[i]);
    assert_int_equal(h->taken, RHAMMER_TOKENS);
    assert_int_equal(h->tokens, 0);
    assert_int_equal(h->bad, 0);
    assert_int_equal(h->c.waiters, 0);
    assert_int_equal(h->m.owner, 0);
}

/* --- fx_mutex and fx_rmutex waiters on one cond ----------------------------- */

/* At the same time (POSIX forbids two mutexes; it must still work): the cond
 * marks the population MIXED and a broadcast hands the wake on one waiter at a
 * time, moving nobody onto a mutex word. With both mutexes held by the
 * broadcaster, one woken waiter sleeps on its mutex and the other three stay
 * parked. */
static void test_mutex_and_rmutex_waiters_at_once_are_all_released(void **state)
{
    (void)state;
    struct rbox *b = fxt_arena(sizeof *b);
    struct rwaiter *w = fxt_arena(NWAITERS * sizeof *w);
    pthread_t t[NWAITERS];
    for (int i = 0; i < NWAITERS; i++)
        w[i].use_fx_mutex = (i & 1) != 0;
    start_quiet_rwaiters(b, w, t, NWAITERS);
    assert_int_equal(b->c.mutex, 2); /* MIXED */
    assert_int_equal(fx_rmutex_lock(&b->m), 0);
    assert_int_equal(fx_mutex_lock(&b->fm), 0);
    assert_int_equal(fx_cond_broadcast(&b->c), 0);
    ASSERT_EVENTUALLY((count_on(w, NWAITERS, &b->m.owner) + count_on(w, NWAITERS, &b->fm.state) ==
                           1 &&
                       count_on(w, NWAITERS, &b->c.seq) == NWAITERS - 1));
    assert_int_equal(b->returned, 0);
    assert_int_equal(fx_mutex_unlock(&b->fm), 0);
    assert_int_equal(fx_rmutex_unlock(&b->m), 0);
    join_rwaiters(w, t, NWAITERS);
    assert_int_equal(b->returned, NWAITERS);
    assert_int_equal(b->c.waiters, 0);
    assert_int_equal(b->m.owner, 0);
    assert_int_equal(b->fm.state, FX_MUTEX_UNLOCKED);
}

/* One after the other: rmutex waiters, then fx_mutex waiters (whose broadcast
 * requeues onto the mutex word again), then rmutex waiters. */
static void test_cond_switches_between_mutex_and_rmutex_once_nobody_waits(void **state)
{
    (void)state;
    struct rbox *b = fxt_arena(sizeof *b);
    for (int round = 0; round < 3; round++) {
        struct rwaiter *w = fxt_arena(2 * sizeof *w);
        pthread_t t[2];
        bool fx = round == 1;
        w[0].use_fx_mutex = w[1].use_fx_mutex = fx;
        if (fx) /* its exact count below */
            start_quiet_rwaiters(b, w, t, 2);
        else
            start_rwaiters(b, w, t, 2);
        assert_int_equal(b->c.mutex, fx ? (int32_t)((char *)&b->fm - (char *)&b->c) : 3);
        if (fx) {
            /* an fx_mutex token again (requeue allowed); with the mutex held,
             * one waiter sleeps on it and the other is parked */
            assert_int_equal(fx_mutex_lock(&b->fm), 0);
            assert_int_equal(fx_cond_broadcast(&b->c), 0);
            ASSERT_EVENTUALLY((count_on(w, 2, &b->fm.state) == 1 && count_on(w, 2, &b->c.seq) == 1));
            assert_int_equal(b->fm.state, FX_MUTEX_CONTENDED);
            assert_int_equal(fx_mutex_unlock(&b->fm), 0);
        } else {
            assert_int_equal(fx_cond_broadcast(&b->c), 0);
        }
        join_rwaiters(w, t, 2);
        assert_int_equal(b->c.waiters, 0);
    }
    assert_int_equal(b->returned, 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_bytes_are_a_cond_and_init_zeroes),
        cmocka_unit_test(test_null_or_misaligned_pointers_give_einval),
        cmocka_unit_test(test_mutex_overlapping_the_cond_gives_einval),
        cmocka_unit_test(test_garbage_slot_values_give_einval),
        cmocka_unit_test(test_wait_with_unlocked_mutex_gives_eperm),
        cmocka_unit_test(test_timedwait_bad_nsec_gives_einval_and_keeps_mutex),
        cmocka_unit_test(test_timedwait_times_out_with_mutex_held),
        cmocka_unit_test(test_timedwait_past_deadline_times_out_at_once),
        cmocka_unit_test(test_timedwait_signalled_returns_zero_before_deadline),
        cmocka_unit_test(test_signal_and_broadcast_without_waiters_make_no_system_call),
        cmocka_unit_test(test_signal_wakes_exactly_one_of_several),
        cmocka_unit_test(test_broadcast_wakes_all),
        cmocka_unit_test(test_broadcast_requeues_instead_of_waking_all),
        cmocka_unit_test(test_broadcast_with_mixed_mutexes_releases_all),
        cmocka_unit_test(test_cond_rebinds_to_another_mutex_once_nobody_waits),
        cmocka_unit_test(test_signals_across_a_registered_waiter_advance_the_sequence_once),
        cmocka_unit_test(test_ping_pong_across_the_sequence_wrap),
        cmocka_unit_test(test_signal_handlers_never_make_wait_return_eintr),
        cmocka_unit_test(test_timedwait_under_signals_times_out_on_time),
        cmocka_unit_test(test_signal_and_broadcast_storm_loses_no_wakeup),
        cmocka_unit_test(test_producer_consumer_threads_move_every_item_once),
        cmocka_unit_test(test_producer_consumer_processes_move_every_item_once),
        cmocka_unit_test(test_broadcast_releases_waiters_in_other_processes),
        cmocka_unit_test(test_signal_releases_a_waiter_in_another_process),
        cmocka_unit_test(test_rmutex_wait_bad_pointers_and_overlap_give_einval),
        cmocka_unit_test(test_wait_with_waiters_slot_that_would_wrap_gives_einval_at_once),
        cmocka_unit_test(test_rmutex_wait_with_waiters_slot_that_would_wrap_gives_einval_at_once),
        cmocka_unit_test(test_cancelled_wait_runs_cleanup_with_mutex_held),
        cmocka_unit_test(test_cancelled_timedwait_runs_cleanup_with_mutex_held),
        cmocka_unit_test(test_rmutex_cancelled_wait_runs_cleanup_with_mutex_held),
        cmocka_unit_test(test_rmutex_cancelled_timedwait_runs_cleanup_with_mutex_held),
        cmocka_unit_test(test_pending_cancellation_acts_at_wait_with_mutex_held),
        cmocka_unit_test(test_rmutex_wait_garbage_slot_values_give_einval),
        cmocka_unit_test(test_rmutex_wait_without_owning_gives_eperm),
        cmocka_unit_test(test_rmutex_timedwait_bad_nsec_gives_einval_and_keeps_depth),
        cmocka_unit_test(test_rmutex_timedwait_times_out_with_depth_restored),
        cmocka_unit_test(test_rmutex_timedwait_past_deadline_times_out_at_once),
        cmocka_unit_test(test_rmutex_wait_releases_whole_depth_and_restores_depth_three),
        cmocka_unit_test(test_rmutex_signalled_wait_reacquires_without_waiters_bit),
        cmocka_unit_test(test_rmutex_signal_wakes_exactly_one_of_several),
        cmocka_unit_test(test_rmutex_broadcast_releases_all_one_at_a_time),
        cmocka_unit_test(test_rmutex_wait_with_inconsistent_mutex_gives_enotrecoverable_at_once),
        cmocka_unit_test(test_rmutex_wait_gives_enotrecoverable_when_mutex_became_unrecoverable),
        cmocka_unit_test(test_rmutex_owner_killed_after_signal_gives_eownerdead_within_250ms),
        cmocka_unit_test(test_rmutex_timedwait_owner_killed_gives_eownerdead_not_etimedout),
        cmocka_unit_test(test_rmutex_broadcast_chain_survives_the_first_waiter_dying_with_the_mutex),
        cmocka_unit_test(test_rmutex_broadcast_releases_waiters_in_other_processes),
        cmocka_unit_test(test_rmutex_ping_pong_between_processes_across_the_wrap),
        cmocka_unit_test(test_rmutex_signal_handlers_never_make_wait_or_reacquire_return_eintr),
        cmocka_unit_test(test_rmutex_signal_and_broadcast_storm_loses_no_wakeup),
        cmocka_unit_test(test_mutex_and_rmutex_waiters_at_once_are_all_released),
        cmocka_unit_test(test_cond_switches_between_mutex_and_rmutex_once_nobody_waits),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
