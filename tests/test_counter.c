/*
 * tests/test_counter.c - the shared counter: add, load, store and wait.
 *
 * A waiter is known to be blocked when fxt_wait_asleep() sees it in the futex
 * system call on the value slot. Every wait for another thread or process has
 * a limit, so a lost wake fails a test instead of hanging it; the objects
 * threads use come from fxt_arena(), so a thread that a failed test leaves
 * blocked cannot disturb the next test. The fork-based tests run first,
 * before the process has threads.
 */
#define _GNU_SOURCE
#include "fxfault.h"
#include "fxtest.h"

#include <errno.h>
#include <futexsync.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define LIMIT_MS 10000 /* generous limit for anything that must happen */

static int32_t waiters_of(fx_counter *c)
{
    return __atomic_load_n(&c->waiters, __ATOMIC_SEQ_CST);
}

/* A thread in fx_counter_wait(c, target, deadline). */
struct waiter {
    fx_counter *c;
    int32_t target;
    const struct timespec *deadline; /* NULL or &deadline_copy */
    struct timespec deadline_copy;
    pid_t tid;     /* published before the wait */
    int32_t ready; /* fxt_flag: tid set */
    int32_t done;  /* fxt_flag: returned */
    int result;
    int64_t returned_ns;
    pthread_t thread;
    int kind; /* 0 fx_counter_wait (==), 1 fx_counter_wait_ge, 2 fx_counter_wait_le */
};

static void *waiter_main(void *p)
{
    struct waiter *w = p;
    w->tid = fxt_gettid();
    fxt_flag_set(&w->ready, 1);
    w->result = w->kind == 1   ? fx_counter_wait_ge(w->c, w->target, w->deadline)
                : w->kind == 2 ? fx_counter_wait_le(w->c, w->target, w->deadline)
                               : fx_counter_wait(w->c, w->target, w->deadline);
    w->returned_ns = fxt_now_ns();
    fxt_flag_set(&w->done, 1);
    return NULL;
}

static struct waiter *waiter_start_kind(fx_counter *c, int32_t target,
                                        const struct timespec *deadline, int kind)
{
    struct waiter *w = fxt_arena(sizeof *w);
    w->kind = kind;
    w->c = c;
    w->target = target;
    if (deadline != NULL) {
        w->deadline_copy = *deadline;
        w->deadline = &w->deadline_copy;
    }
    w->result = -1;
    w->thread = fxt_thread(waiter_main, w);
    assert_true(fxt_flag_wait(&w->ready, 1, LIMIT_MS));
    return w;
}

/* A counter for tests with threads (see fxt_arena). */
static fx_counter *counter_new(int32_t value)
{
    fx_counter *c = fxt_arena(sizeof *c);
    c->value = value;
    return c;
}

static struct waiter *waiter_start(fx_counter *c, int32_t target,
                                   const struct timespec *deadline)
{
    return waiter_start_kind(c, target, deadline, 0);
}

static int waiter_join(struct waiter *w)
{
    assert_true(fxt_join_timed(w->thread, LIMIT_MS, NULL));
    return w->result;
}

/* Cross-process ---------------------------------------------------------------------- */

#define PROCS 4

struct shared {
    fx_counter c;
    pid_t parent_tid;
};

/* Child: once the parent sleeps in its wait, count down by one. */
static int child_counts_down(void *p)
{
    struct shared *sh = p;
    FXT_CHILD_CHECK(fxt_wait_asleep(sh->parent_tid, &sh->c.value, LIMIT_MS), 10);
    fx_counter_add(&sh->c, -1);
    return 0;
}

static void counter_latch_across_processes(void **state)
{
    (void)state;
    struct shared *sh = fxt_shared_alloc(sizeof *sh);
    sh->parent_tid = fxt_gettid();
    fx_counter_store(&sh->c, PROCS);
    pid_t pids[PROCS];
    int status[PROCS];
    for (int i = 0; i < PROCS; i++)
        pids[i] = fxt_fork(child_counts_down, sh);
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    int r = fx_counter_wait(&sh->c, 0, &d);
    for (int i = 0; i < PROCS; i++) /* reap them all before any assertion */
        status[i] = fxt_wait_child(pids[i], LIMIT_MS);
    assert_int_equal(r, 0);
    for (int i = 0; i < PROCS; i++)
        assert_int_equal(status[i], 0);
    assert_int_equal(fx_counter_load(&sh->c), 0);
    assert_int_equal(waiters_of(&sh->c), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* Child: once the parent sleeps in its wait, store the target. */
static int child_stores_target(void *p)
{
    struct shared *sh = p;
    FXT_CHILD_CHECK(fxt_wait_asleep(sh->parent_tid, &sh->c.value, LIMIT_MS), 10);
    FXT_CHILD_CHECK(__atomic_load_n(&sh->c.waiters, __ATOMIC_SEQ_CST) == 1, 11);
    fx_counter_store(&sh->c, 42);
    return 0;
}

static void counter_wait_woken_by_store_from_other_process(void **state)
{
    (void)state;
    struct shared *sh = fxt_shared_alloc(sizeof *sh);
    sh->parent_tid = fxt_gettid();
    pid_t pid = fxt_fork(child_stores_target, sh);
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    int r = fx_counter_wait(&sh->c, 42, &d);
    assert_int_equal(fxt_wait_child(pid, LIMIT_MS), 0);
    assert_int_equal(r, 0);
    assert_int_equal(fx_counter_load(&sh->c), 42);
    assert_int_equal(waiters_of(&sh->c), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* Child: waits for the parent's store. */
static int child_waits_for_7(void *p)
{
    struct shared *sh = p;
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    int r = fx_counter_wait(&sh->c, 7, &d);
    FXT_CHILD_CHECK(r == 0, 10 + (r & 0x3f));
    return 0;
}

static void counter_store_wakes_waiter_in_other_process(void **state)
{
    (void)state;
    struct shared *sh = fxt_shared_alloc(sizeof *sh);
    pid_t pid = fxt_fork(child_waits_for_7, sh);
    bool asleep = fxt_wait_asleep(pid, &sh->c.value, LIMIT_MS);
    int32_t waiters = waiters_of(&sh->c);
    fx_counter_store(&sh->c, 7);
    assert_int_equal(fxt_wait_child(pid, LIMIT_MS), 0);
    assert_true(asleep);
    assert_int_equal(waiters, 1);
    assert_int_equal(waiters_of(&sh->c), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* The no-system-call proof ------------------------------------------------------------ */

static int add_load_store(void *p)
{
    fx_counter *c = p;
    for (int i = 0; i < 1000; i++) {
        FXT_CHILD_CHECK(fx_counter_add(c, 1) == i + 1, 10);
        FXT_CHILD_CHECK(fx_counter_load(c) == i + 1, 11);
    }
    fx_counter_store(c, -5);
    FXT_CHILD_CHECK(fx_counter_load(c) == -5, 12);
    FXT_CHILD_CHECK(fx_counter_add(c, -1) == -6, 13);
    return 0;
}

static void counter_add_load_store_make_no_futex_call_without_waiter(void **state)
{
    (void)state;
    fx_counter c = FX_COUNTER_INIT(0);
    assert_int_equal(fxt_run_without_futex(&c, sizeof c, add_load_store, &c), 0);
}

/* A wait whose target already holds returns at once, without the kernel. */
static int wait_already_equal(void *p)
{
    fx_counter *c = p;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    FXT_CHILD_CHECK(fx_counter_wait(c, 0, NULL) == 0, 10);
    FXT_CHILD_CHECK(fx_counter_wait(c, 0, &d) == 0, 11);
    return 0;
}

static void counter_wait_already_equal_makes_no_futex_call(void **state)
{
    (void)state;
    fx_counter c = FX_COUNTER_INIT(0);
    assert_int_equal(fxt_run_without_futex(&c, sizeof c, wait_already_equal, &c), 0);
}

/* The proof is not vacuous: a wait that has to sleep is caught. */
static int wait_that_sleeps(void *p)
{
    fx_counter *c = p;
    struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_MSEC);
    FXT_CHILD_CHECK(fx_counter_wait(c, 1, &d) == ETIMEDOUT, 10);
    return 0; /* not reached: the futex wait kills the child */
}

static void counter_sleeping_wait_is_caught_by_the_proof(void **state)
{
    (void)state;
    fx_counter c = FX_COUNTER_INIT(0);
    assert_int_equal(fxt_run_without_futex(&c, sizeof c, wait_that_sleeps, &c), 128 + SIGSYS);
}

/* Initial values and arithmetic ------------------------------------------------------- */

static void counter_init_macro_sets_the_value(void **state)
{
    (void)state;
    fx_counter a = FX_COUNTER_INIT(5);
    fx_counter b = FX_COUNTER_INIT(-7);
    fx_counter z = FX_COUNTER_INIT(0);
    assert_int_equal(fx_counter_load(&a), 5);
    assert_int_equal(a.waiters, 0);
    assert_int_equal(fx_counter_load(&b), -7);
    assert_int_equal(b.waiters, 0);
    fx_counter zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&z, &zero, sizeof zero);
}

static void counter_zeroed_memory_holds_zero(void **state)
{
    (void)state;
    fx_counter *c = fxt_shared_alloc(sizeof *c);
    assert_int_equal(fx_counter_load(c), 0);
    assert_int_equal(fx_counter_add(c, 1), 1);
    assert_int_equal(fx_counter_wait(c, 1, NULL), 0);
    fxt_shared_free(c, sizeof *c);
}

static void counter_init_sets_value_and_clears_waiters(void **state)
{
    (void)state;
    fx_counter c;
    memset(&c, 0x55, sizeof c);
    fx_counter_init(&c, 9);
    assert_int_equal(fx_counter_load(&c), 9);
    assert_int_equal(c.waiters, 0);
}

static void counter_add_returns_the_new_value(void **state)
{
    (void)state;
    fx_counter c = FX_COUNTER_INIT(5);
    assert_int_equal(fx_counter_add(&c, 3), 8);
    assert_int_equal(fx_counter_add(&c, -10), -2);
    assert_int_equal(fx_counter_add(&c, 0), -2);
    assert_int_equal(fx_counter_load(&c), -2);
}

static void counter_add_wraps_above_int32_max(void **state)
{
    (void)state;
    fx_counter c = FX_COUNTER_INIT(INT32_MAX);
    assert_int_equal(fx_counter_add(&c, 1), INT32_MIN);
    assert_int_equal(fx_counter_load(&c), INT32_MIN);
    fx_counter_store(&c, INT32_MAX);
    assert_int_equal(fx_counter_add(&c, INT32_MAX), -2);
}

static void counter_add_wraps_below_int32_min(void **state)
{
    (void)state;
    fx_counter c = FX_COUNTER_INIT(INT32_MIN);
    assert_int_equal(fx_counter_add(&c, -1), INT32_MAX);
    assert_int_equal(fx_counter_load(&c), INT32_MAX);
    fx_counter_store(&c, INT32_MIN);
    assert_int_equal(fx_counter_add(&c, INT32_MIN), 0);
}

static void counter_store_then_load(void **state)
{
    (void)state;
    fx_counter c = FX_COUNTER_INIT(0);
    static const int32_t values[] = {1, -1, INT32_MAX, INT32_MIN, 0};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        fx_counter_store(&c, values[i]);
        assert_int_equal(fx_counter_load(&c), values[i]);
    }
    assert_int_equal(c.waiters, 0);
}

/* add/load/store have no error channel: on a bad pointer they return 0 and
 * touch nothing. */
static void counter_bad_pointer_add_load_store_are_harmless(void **state)
{
    (void)state;
    _Alignas(4) char buf[16] = {0};
    char zero[16] = {0};
    assert_int_equal(fx_counter_add(NULL, 1), 0);
    assert_int_equal(fx_counter_load(NULL), 0);
    assert_int_equal(fx_counter_store(NULL, 1), EINVAL);
    assert_int_equal(fx_counter_init(NULL, 1), EINVAL);
    for (int off = 1; off < 4; off++) {
        fx_counter *c = (fx_counter *)(void *)(buf + off);
        assert_int_equal(fx_counter_add(c, 1), 0);
        assert_int_equal(fx_counter_load(c), 0);
        assert_int_equal(fx_counter_store(c, 1), EINVAL);
        assert_int_equal(fx_counter_init(c, 1), EINVAL);
    }
    assert_memory_equal(buf, zero, sizeof buf);
}

/* fx_counter_wait ---------------------------------------------------------------------- */

static void counter_wait_returns_at_once_when_equal(void **state)
{
    (void)state;
    fx_counter c = FX_COUNTER_INIT(3);
    struct timespec past = fx_deadline_in(-FX_NSEC_PER_SEC);
    struct timespec bad = {0, -1}; /* not looked at: nothing to wait for */
    assert_int_equal(fx_counter_wait(&c, 3, NULL), 0);
    assert_int_equal(fx_counter_wait(&c, 3, &past), 0);
    assert_int_equal(fx_counter_wait(&c, 3, &bad), 0);
    assert_int_equal(c.waiters, 0);
}

static void counter_wait_times_out_at_the_deadline(void **state)
{
    (void)state;
    fx_counter c = FX_COUNTER_INIT(0);
    int64_t start = fxt_now_ns();
    struct timespec d = fx_deadline_in(100 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_counter_wait(&c, 1, &d), ETIMEDOUT);
    int64_t end = fxt_now_ns();
    assert_true(end >= fxt_ts_ns(&d));
    assert_true(end - start >= 100 * FX_NSEC_PER_MSEC);
    assert_true(end - fxt_ts_ns(&d) < 2 * FX_NSEC_PER_SEC);
    assert_int_equal(c.waiters, 0);
}

static void counter_wait_past_deadline_is_etimedout(void **state)
{
    (void)state;
    fx_counter c = FX_COUNTER_INIT(0);
    struct timespec d = fx_deadline_in(-FX_NSEC_PER_MSEC);
    assert_int_equal(fx_counter_wait(&c, 1, &d), ETIMEDOUT);
    assert_int_equal(c.waiters, 0);
}

static void counter_wait_negative_deadline_is_etimedout(void **state)
{
    (void)state;
    fx_counter c = FX_COUNTER_INIT(0);
    struct timespec d = {-1, 0};
    int64_t start = fxt_now_ns();
    assert_int_equal(fx_counter_wait(&c, 1, &d), ETIMEDOUT);
    assert_true(fxt_now_ns() - start < FX_NSEC_PER_SEC);
    assert_int_equal(c.waiters, 0);
}

static void counter_wait_null_is_einval(void **state)
{
    (void)state;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(fx_counter_wait(NULL, 0, NULL), EINVAL);
    assert_int_equal(fx_counter_wait(NULL, 0, &d), EINVAL);
}

static void counter_wait_misaligned_is_einval(void **state)
{
    (void)state;
    _Alignas(4) char buf[16] = {0};
    char zero[16] = {0};
    for (int off = 1; off < 4; off++)
        assert_int_equal(fx_counter_wait((fx_counter *)(void *)(buf + off), 0, NULL), EINVAL);
    assert_memory_equal(buf, zero, sizeof buf);
}

/* A negative waiters slot is a value the library never writes: EINVAL when
 * the wait would block, and the slot is left alone. */
static void counter_wait_negative_waiters_is_einval(void **state)
{
    (void)state;
    fx_counter c = {0, -1};
    assert_int_equal(fx_counter_wait(&c, 1, NULL), EINVAL);
    c.waiters = INT32_MIN;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(fx_counter_wait(&c, 1, &d), EINVAL);
    assert_int_equal(c.waiters, INT32_MIN);
    assert_int_equal(fx_counter_wait(&c, 0, NULL), 0); /* nothing to wait for */
}

/* Issue 19: a waiters count the wait's increment would wrap (INT32_MAX) is a
 * slot the library never writes either: EINVAL at once, the slot left alone
 * (the old increment wrapped it to INT32_MIN, so the wait slept to its
 * deadline, ETIMEDOUT, while every other wait got EINVAL). */
static void counter_wait_with_waiters_slot_that_would_wrap_is_einval_at_once(void **state)
{
    (void)state;
    fx_counter c = {0, INT32_MAX};
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC / 5);
    assert_int_equal(fx_counter_wait(&c, 1, &d), EINVAL);
    assert_int_equal(c.waiters, INT32_MAX);
    assert_int_equal(fx_counter_wait_ge(&c, 1, &d), EINVAL);
    assert_int_equal(fx_counter_wait_le(&c, -1, &d), EINVAL);
    assert_int_equal(c.waiters, INT32_MAX);
    assert_int_equal(c.value, 0);
}

static void counter_wait_bad_tv_nsec_is_einval_when_it_would_block(void **state)
{
    (void)state;
    fx_counter c = FX_COUNTER_INIT(0);
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    d.tv_nsec = -1;
    assert_int_equal(fx_counter_wait(&c, 1, &d), EINVAL);
    d.tv_nsec = 1000000000L;
    assert_int_equal(fx_counter_wait(&c, 1, &d), EINVAL);
    assert_int_equal(c.waiters, 0);
}

/* Waiters and wakes -------------------------------------------------------------------- */

#define THREADS 4

static void counter_wait_sleeps_through_other_values(void **state)
{
    (void)state;
    fx_counter *c = counter_new(THREADS);
    struct waiter *w = waiter_start(c, 0, NULL);
    for (int i = 0; i < THREADS; i++) {
        assert_true(fxt_wait_asleep(w->tid, &c->value, LIMIT_MS));
        assert_int_equal(__atomic_load_n(&w->done, __ATOMIC_ACQUIRE), 0);
        assert_int_equal(fx_counter_add(c, -1), THREADS - 1 - i);
    }
    assert_int_equal(waiter_join(w), 0);
    assert_int_equal(waiters_of(c), 0);
}

/* Latch-style waits (issue 13) ------------------------------------------------------- */

static void counter_wait_ge_le_return_at_once_when_met(void **state)
{
    (void)state;
    fx_counter c = FX_COUNTER_INIT(5);
    struct timespec past = {0, 0};
    assert_int_equal(fx_counter_wait_ge(&c, 5, &past), 0);
    assert_int_equal(fx_counter_wait_ge(&c, INT32_MIN, NULL), 0);
    assert_int_equal(fx_counter_wait_le(&c, 5, &past), 0);
    assert_int_equal(fx_counter_wait_le(&c, INT32_MAX, NULL), 0);
    assert_int_equal(fx_counter_wait_ge(&c, 6, &past), ETIMEDOUT);
    assert_int_equal(fx_counter_wait_le(&c, 4, &past), ETIMEDOUT);
    assert_int_equal(c.waiters, 0);
}

static void counter_wait_ge_le_bad_arguments_are_einval(void **state)
{
    (void)state;
    fx_counter c = {0, -1};
    assert_int_equal(fx_counter_wait_ge(NULL, 1, NULL), EINVAL);
    assert_int_equal(fx_counter_wait_le(NULL, -1, NULL), EINVAL);
    assert_int_equal(fx_counter_wait_ge(&c, 1, NULL), EINVAL);
    assert_int_equal(fx_counter_wait_le(&c, -1, NULL), EINVAL);
    c.waiters = 0;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    d.tv_nsec = -1;
    assert_int_equal(fx_counter_wait_ge(&c, 1, &d), EINVAL);
    assert_int_equal(fx_counter_wait_le(&c, -1, &d), EINVAL);
}

/* A wait group whose count overshoots 0 (a worker counted down twice):
 * fx_counter_wait_le(0) returns; fx_counter_wait(0) would sleep on. */
static void counter_wait_le_returns_when_count_down_overshoots_target(void **state)
{
    (void)state;
    fx_counter *c = counter_new(2);
    struct waiter *w = waiter_start_kind(c, 0, NULL, 2);
    assert_true(fxt_wait_asleep(w->tid, &c->value, LIMIT_MS));
    assert_int_equal(fx_counter_add(c, -3), -1);
    assert_int_equal(waiter_join(w), 0);
    assert_int_equal(waiters_of(c), 0);
    struct timespec soon = fx_deadline_in(FX_NSEC_PER_SEC / 10);
    assert_int_equal(fx_counter_wait(c, 0, &soon), ETIMEDOUT);
}

/* A progress counter stepping over a milestone releases a >= waiter, which
 * sleeps through the values below it. */
static void counter_wait_ge_returns_when_count_steps_over_target(void **state)
{
    (void)state;
    fx_counter *c = counter_new(0);
    struct waiter *w = waiter_start_kind(c, 5, NULL, 1);
    assert_true(fxt_wait_asleep(w->tid, &c->value, LIMIT_MS));
    assert_int_equal(fx_counter_add(c, 3), 3);
    assert_true(fxt_wait_asleep(w->tid, &c->value, LIMIT_MS));
    assert_int_equal(__atomic_load_n(&w->done, __ATOMIC_ACQUIRE), 0);
    assert_int_equal(fx_counter_add(c, 3), 6);
    assert_int_equal(waiter_join(w), 0);
    assert_int_equal(waiters_of(c), 0);
}

/* fx_counter_wait is not a cancellation point (counter.h): a cancelled
 * waiter keeps waiting, returns normally when its target comes, and the
 * cancellation acts at the next cancellation point. */
FXF_CANCELLED_FRAME static void *uncancellable_waiter(void *p)
{
    struct waiter *w = p;
    w->tid = fxt_gettid();
    fxt_flag_set(&w->ready, 1);
    w->result = fx_counter_wait(w->c, w->target, NULL);
    fxt_flag_set(&w->done, 1);
    pthread_testcancel();
    fxt_flag_set(&w->done, 2); /* not reached */
    return NULL;
}

static void counter_wait_is_not_a_cancellation_point(void **state)
{
    (void)state;
    struct waiter *w = fxt_arena(sizeof *w);
    w->c = counter_new(0);
    w->target = 1;
    w->result = -1;
    pthread_t t = fxt_thread(uncancellable_waiter, w);
    assert_true(fxt_flag_wait(&w->ready, 1, LIMIT_MS));
    assert_true(fxt_wait_asleep(w->tid, &w->c->value, LIMIT_MS));
    assert_int_equal(pthread_cancel(t), 0);
    /* Still waiting after the cancellation (a recheck period passes too). */
    struct timespec pause = {0, 300 * 1000000L};
    nanosleep(&pause, NULL);
    assert_true(fxt_wait_asleep(w->tid, &w->c->value, LIMIT_MS));
    assert_int_equal(__atomic_load_n(&w->done, __ATOMIC_ACQUIRE), 0);
    fx_counter_add(w->c, 1);
    void *ret = NULL;
    assert_true(fxt_join_timed(t, LIMIT_MS, &ret));
    assert_ptr_equal(ret, PTHREAD_CANCELED);
    assert_int_equal(w->result, 0);
    assert_int_equal(w->done, 1);
}

/* The classic shape: 4 worker threads each count down once; the coordinator
 * (this thread) waits for 0. */
struct worker {
    fx_counter *c;
    pid_t coordinator;
};

static void *worker_main(void *p)
{
    struct worker *w = p;
    /* Count down once the coordinator sleeps, so that its wait does block;
     * count down anyway if it never does (its wait then checks the rest). */
    fxt_wait_asleep(w->coordinator, &w->c->value, LIMIT_MS);
    fx_counter_add(w->c, -1);
    return NULL;
}

static void counter_latch_of_worker_threads(void **state)
{
    (void)state;
    struct worker *wk = fxt_arena(sizeof *wk);
    wk->c = counter_new(THREADS);
    wk->coordinator = fxt_gettid();
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        t[i] = fxt_thread(worker_main, wk);
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    assert_int_equal(fx_counter_wait(wk->c, 0, &d), 0);
    for (int i = 0; i < THREADS; i++)
        assert_true(fxt_join_timed(t[i], LIMIT_MS, NULL));
    assert_int_equal(fx_counter_load(wk->c), 0);
    assert_int_equal(waiters_of(wk->c), 0);
}

/* waiters counts the sleepers, and returns to 0 when they leave. */
static void counter_waiters_slot_counts_sleepers_and_returns_to_zero(void **state)
{
    (void)state;
    fx_counter *c = counter_new(0);
    struct waiter *w[3];
    for (int i = 0; i < 3; i++) {
        w[i] = waiter_start(c, 7, NULL);
        assert_true(fxt_wait_asleep(w[i]->tid, &c->value, LIMIT_MS));
    }
    assert_int_equal(waiters_of(c), 3);
    fx_counter_store(c, 7);
    for (int i = 0; i < 3; i++)
        assert_int_equal(waiter_join(w[i]), 0);
    assert_int_equal(waiters_of(c), 0);
}

/* Waiters for different targets: each leaves when the value is its own. */
static void counter_waiters_for_different_targets_each_wake_on_theirs(void **state)
{
    (void)state;
    fx_counter *c = counter_new(0);
    struct waiter *w[3];
    for (int i = 0; i < 3; i++) {
        w[i] = waiter_start(c, i + 1, NULL);
        assert_true(fxt_wait_asleep(w[i]->tid, &c->value, LIMIT_MS));
    }
    for (int i = 0; i < 3; i++) {
        assert_int_equal(fx_counter_add(c, 1), i + 1);
        assert_int_equal(waiter_join(w[i]), 0);
        for (int j = i + 1; j < 3; j++) /* the others sleep again */
            assert_true(fxt_wait_asleep(w[j]->tid, &c->value, LIMIT_MS));
    }
    assert_int_equal(waiters_of(c), 0);
}

/* Signals -------------------------------------------------------------------------------- */

static void counter_wait_under_signal_storm_never_returns_eintr(void **state)
{
    (void)state;
    fx_counter *c = counter_new(0);
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    struct waiter *w = waiter_start(c, 1, &d);
    struct fxt_storm *s = fxt_storm_start(w->thread);
    bool asleep = fxt_wait_asleep(w->tid, &c->value, LIMIT_MS);
    /* Let signals hit the sleeper (the handler may run late under a
     * sanitizer, so this does not insist). */
    int64_t limit = fxt_now_ns() + 500 * FX_NSEC_PER_MSEC;
    while (fxt_signal_count() < 100 && fxt_now_ns() < limit)
        sched_yield();
    bool still_asleep = fxt_wait_asleep(w->tid, &c->value, LIMIT_MS);
    fx_counter_store(c, 1);
    bool done = fxt_flag_wait(&w->done, 1, LIMIT_MS);
    long signals = fxt_storm_stop(s);
    assert_true(asleep);
    assert_true(still_asleep);
    assert_true(done);
    assert_int_equal(waiter_join(w), 0);
    assert_true(signals > 0);
    assert_int_equal(waiters_of(c), 0);
}

static void counter_wait_under_signal_storm_keeps_the_deadline(void **state)
{
    (void)state;
    fx_counter *c = counter_new(0);
    struct timespec d = fx_deadline_in(300 * FX_NSEC_PER_MSEC);
    struct waiter *w = waiter_start(c, 1, &d);
    struct fxt_storm *s = fxt_storm_start(w->thread);
    bool done = fxt_flag_wait(&w->done, 1, LIMIT_MS);
    long signals = fxt_storm_stop(s);
    assert_true(done);
    assert_int_equal(waiter_join(w), ETIMEDOUT);
    assert_true(w->returned_ns >= fxt_ts_ns(&d));
    assert_true(w->returned_ns - fxt_ts_ns(&d) < 2 * FX_NSEC_PER_SEC);
    assert_true(signals > 0);
    assert_int_equal(waiters_of(c), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* Fork-based tests first, while this process has no other thread. */
        cmocka_unit_test(counter_latch_across_processes),
        cmocka_unit_test(counter_wait_woken_by_store_from_other_process),
        cmocka_unit_test(counter_store_wakes_waiter_in_other_process),
        cmocka_unit_test(counter_add_load_store_make_no_futex_call_without_waiter),
        cmocka_unit_test(counter_wait_already_equal_makes_no_futex_call),
        cmocka_unit_test(counter_sleeping_wait_is_caught_by_the_proof),
        /* Single thread and threads. */
        cmocka_unit_test(counter_init_macro_sets_the_value),
        cmocka_unit_test(counter_zeroed_memory_holds_zero),
        cmocka_unit_test(counter_init_sets_value_and_clears_waiters),
        cmocka_unit_test(counter_add_returns_the_new_value),
        cmocka_unit_test(counter_add_wraps_above_int32_max),
        cmocka_unit_test(counter_add_wraps_below_int32_min),
        cmocka_unit_test(counter_store_then_load),
        cmocka_unit_test(counter_bad_pointer_add_load_store_are_harmless),
        cmocka_unit_test(counter_wait_returns_at_once_when_equal),
        cmocka_unit_test(counter_wait_times_out_at_the_deadline),
        cmocka_unit_test(counter_wait_past_deadline_is_etimedout),
        cmocka_unit_test(counter_wait_negative_deadline_is_etimedout),
        cmocka_unit_test(counter_wait_null_is_einval),
        cmocka_unit_test(counter_wait_misaligned_is_einval),
        cmocka_unit_test(counter_wait_negative_waiters_is_einval),
        cmocka_unit_test(counter_wait_with_waiters_slot_that_would_wrap_is_einval_at_once),
        cmocka_unit_test(counter_wait_bad_tv_nsec_is_einval_when_it_would_block),
        cmocka_unit_test(counter_wait_sleeps_through_other_values),
        cmocka_unit_test(counter_wait_ge_le_return_at_once_when_met),
        cmocka_unit_test(counter_wait_ge_le_bad_arguments_are_einval),
        cmocka_unit_test(counter_wait_le_returns_when_count_down_overshoots_target),
        cmocka_unit_test(counter_wait_ge_returns_when_count_steps_over_target),
        cmocka_unit_test(counter_wait_is_not_a_cancellation_point),
        cmocka_unit_test(counter_latch_of_worker_threads),
        cmocka_unit_test(counter_waiters_slot_counts_sleepers_and_returns_to_zero),
        cmocka_unit_test(counter_waiters_for_different_targets_each_wake_on_theirs),
        cmocka_unit_test(counter_wait_under_signal_storm_never_returns_eintr),
        cmocka_unit_test(counter_wait_under_signal_storm_keeps_the_deadline),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
