/*
 * tests/test_cancel.c - where a cancellation may act inside the library: in
 * the futex system calls of a cancellable sleep (fx_cond_wait, fx_sem_wait
 * and their timed forms) and nowhere else.
 *
 * Asynchronous cancellation is enabled around those calls only
 * (src/sleep.c). Anything else run with it enabled is a place where a
 * cancellation may act, and the unwinder must then be able to walk out of
 * it: clock_gettime runs in the vDSO or in a libc that may have no unwind
 * tables for it (Debian's riscv64 one has none), and a cancellation acting
 * there would skip the waiter's cleanup (a sem waiter left counted, a cond
 * waiter that does not get its mutex back). This program interposes
 * clock_gettime, which the library's calls then reach, and counts the calls
 * made while the calling thread's cancellation type is asynchronous: every
 * cancellable wait, bounded by its recheck or timed, must leave that count
 * at 0. The calls are still made (the count of all of them proves the
 * interposition works), on the real clock_gettime.
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <dlfcn.h>
#include <errno.h>
#include <futexsync.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

/* The name of the clock_gettime this program's calls reach: with a 64-bit
 * time_t on a 32-bit target, <time.h> redirects clock_gettime to it, and
 * the definition below defines it too. */
#if defined(__USE_TIME_BITS64) && __USE_TIME_BITS64 && __TIMESIZE == 32
#define REAL_CLOCK_GETTIME "__clock_gettime64"
#else
#define REAL_CLOCK_GETTIME "clock_gettime"
#endif

typedef int (*clock_fn)(clockid_t, struct timespec *);

static long clock_reads;       /* every call (atomic, relaxed) */
static long async_clock_reads; /* those with asynchronous cancellation on */

int clock_gettime(clockid_t id, struct timespec *ts)
{
    /* Acquire/release: the looked-up pointer is used by other threads. */
    static clock_fn real;
    clock_fn f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
    if (f == NULL) {
        f = (clock_fn)dlsym(RTLD_NEXT, REAL_CLOCK_GETTIME);
        if (f == NULL)
            abort();
        __atomic_store_n(&real, f, __ATOMIC_RELEASE);
    }
    /* The calling thread's cancellation type, read by setting it (there is
     * no getter) and put back at once. */
    int type;
    if (pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &type) == 0) {
        if (type == PTHREAD_CANCEL_ASYNCHRONOUS)
            __atomic_fetch_add(&async_clock_reads, 1, __ATOMIC_RELAXED);
        pthread_setcanceltype(type, &type);
    }
    __atomic_fetch_add(&clock_reads, 1, __ATOMIC_RELAXED);
    return f(id, ts);
}

static void reset_counts(void)
{
    __atomic_store_n(&clock_reads, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&async_clock_reads, 0, __ATOMIC_RELAXED);
}

/* After the waits of a test: the library read the clock, and never with
 * asynchronous cancellation on. */
static void assert_no_async_clock_read(void)
{
    assert_true(__atomic_load_n(&clock_reads, __ATOMIC_RELAXED) > 0);
    assert_int_equal(__atomic_load_n(&async_clock_reads, __ATOMIC_RELAXED), 0);
}

/* Longer than the recheck period, so that a wait goes through its recheck
 * tick before its deadline. */
#define PAST_A_RECHECK_NS (700 * FX_NSEC_PER_MSEC)

struct semwait {
    fx_sem *s;
    bool timed;
    pid_t tid;
    int rc;
};

static void *sem_waiter(void *arg)
{
    struct semwait *w = arg;
    __atomic_store_n(&w->tid, fxt_gettid(), __ATOMIC_RELEASE);
    if (w->timed) {
        struct timespec d = fx_deadline_in(PAST_A_RECHECK_NS);
        w->rc = fx_sem_timedwait(w->s, &d);
    } else {
        w->rc = fx_sem_wait(w->s);
    }
    return NULL;
}

/* A sem wait in private and in shared memory: its first sleep is bounded by a
 * recheck tick, which it computes before sleeping. */
static void test_sem_wait_reads_the_clock_only_with_deferred_cancellation(void **state)
{
    (void)state;
    for (int shared = 0; shared < 2; shared++) {
        reset_counts();
        fx_sem *s = shared ? fxt_shared_alloc(sizeof *s) : fxt_arena(sizeof *s);
        struct semwait w = {.s = s};
        pthread_t t = fxt_thread(sem_waiter, &w);
        pid_t tid;
        while ((tid = __atomic_load_n(&w.tid, __ATOMIC_ACQUIRE)) == 0)
            sched_yield();
        assert_true(fxt_wait_asleep(tid, s, 10000));
        assert_int_equal(fx_sem_post(s), 0);
        fxt_join(t);
        assert_int_equal(w.rc, 0);
        assert_no_async_clock_read();
        if (shared)
            fxt_shared_free(s, sizeof *s);
    }
}

/* A timed sem wait that outlives a recheck tick and then its deadline: the
 * tick's end is told from the deadline's by reading the clock, after the
 * sleep. */
static void test_sem_timedwait_past_a_recheck_reads_the_clock_only_with_deferred_cancellation(
    void **state)
{
    (void)state;
    for (int shared = 0; shared < 2; shared++) {
        reset_counts();
        fx_sem *s = shared ? fxt_shared_alloc(sizeof *s) : fxt_arena(sizeof *s);
        struct semwait w = {.s = s, .timed = true};
        pthread_t t = fxt_thread(sem_waiter, &w);
        fxt_join(t);
        assert_int_equal(w.rc, ETIMEDOUT);
        assert_no_async_clock_read();
        if (shared)
            fxt_shared_free(s, sizeof *s);
    }
}

struct condwait {
    fx_cond c;
    fx_mutex m;
    int32_t go; /* the predicate, under m */
    bool timed;
    pid_t tid;
    int rc;
};

static void *cond_waiter(void *arg)
{
    struct condwait *w = arg;
    __atomic_store_n(&w->tid, fxt_gettid(), __ATOMIC_RELEASE);
    struct timespec d = fx_deadline_in(PAST_A_RECHECK_NS);
    fx_mutex_lock(&w->m);
    int rc = 0;
    while (!w->go && rc == 0)
        rc = w->timed ? fx_cond_timedwait(&w->c, &w->m, &d) : fx_cond_wait(&w->c, &w->m);
    w->rc = rc;
    fx_mutex_unlock(&w->m);
    return NULL;
}

/* A cond wait released by a signal, and a timed one that outlives a recheck
 * tick and then its deadline, in private and in shared memory. */
static void test_cond_waits_read_the_clock_only_with_deferred_cancellation(void **state)
{
    (void)state;
    for (int shared = 0; shared < 2; shared++) {
        for (int timed = 0; timed < 2; timed++) {
            reset_counts();
            struct condwait *w = shared ? fxt_shared_alloc(sizeof *w) : fxt_arena(sizeof *w);
            w->timed = timed;
            pthread_t t = fxt_thread(cond_waiter, w);
            if (!timed) {
                pid_t tid;
                while ((tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE)) == 0)
                    sched_yield();
                assert_true(fxt_wait_asleep(tid, &w->c.seq, 10000));
                fx_mutex_lock(&w->m);
                w->go = 1;
                fx_mutex_unlock(&w->m);
                assert_int_equal(fx_cond_signal(&w->c), 0);
            }
            fxt_join(t);
            assert_int_equal(w->rc, timed ? ETIMEDOUT : 0);
            assert_no_async_clock_read();
            if (shared)
                fxt_shared_free(w, sizeof *w);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sem_wait_reads_the_clock_only_with_deferred_cancellation),
        cmocka_unit_test(
            test_sem_timedwait_past_a_recheck_reads_the_clock_only_with_deferred_cancellation),
        cmocka_unit_test(test_cond_waits_read_the_clock_only_with_deferred_cancellation),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
