/* tests/test_once.c - fx_once: exactly once under races in threads and
 * processes, blocked waiters, recursion, dead initialisers, signals, bad
 * input, and no system call once done. */
#define _GNU_SOURCE
#include "fxtest.h"
#include "fxt_threads.h"

#include <errno.h>
#include <sched.h>
#include <futexsync.h>
#include <futexsync/layout.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void count_call(void *p)
{
    __atomic_fetch_add((int32_t *)p, 1, __ATOMIC_RELAXED);
}

/* --- single thread ----------------------------------------------------------- */

static void test_zero_bytes_run_the_initialiser_once(void **state)
{
    (void)state;
    fx_once o;
    memset(&o, 0, sizeof o);
    int32_t calls = 0;
    assert_int_equal(fx_once_call(&o, count_call, &calls), 0);
    assert_int_equal(fx_once_call(&o, count_call, &calls), 0);
    assert_int_equal(calls, 1);
    assert_int_equal(o.state, FX_ONCE_DONE);
    fx_once z = FX_ONCE_INIT;
    assert_int_equal(z.state, 0);
}

struct recursive {
    fx_once o;
    int inner;
    int32_t calls;
};

static void recurse(void *p)
{
    struct recursive *r = p;
    r->calls++;
    r->inner = fx_once_call(&r->o, recurse, r);
}

static void test_initialiser_calling_its_own_flag_gets_edeadlk(void **state)
{
    (void)state;
    struct recursive r = {FX_ONCE_INIT, -1, 0};
    assert_int_equal(fx_once_call(&r.o, recurse, &r), 0);
    assert_int_equal(r.inner, EDEADLK);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.o.state, FX_ONCE_DONE);
}

static void test_null_misaligned_and_null_function_give_einval(void **state)
{
    (void)state;
    _Alignas(8) char buf[8] = {0};
    int32_t calls = 0;
    fx_once o = FX_ONCE_INIT;
    assert_int_equal(fx_once_call(NULL, count_call, &calls), EINVAL);
    assert_int_equal(fx_once_call((fx_once *)(void *)(buf + 1), count_call, &calls), EINVAL);
    assert_int_equal(fx_once_call(&o, NULL, &calls), EINVAL);
    assert_int_equal(calls, 0);
    assert_int_equal(o.state, 0);
    for (size_t i = 0; i < sizeof buf; i++)
        assert_int_equal(buf[i], 0);
}

static void test_state_never_written_gives_einval(void **state)
{
    (void)state;
    /* (FX_ONCE_RUNNING alone is ABANDONED, FX_ONCE_WAITERS alone DONE.) */
    int32_t garbage[] = {1, 2, 0x12345, FX_ONCE_WAITERS | 7,
                         FX_ONCE_RUNNING | FX_ONCE_LOCALNS | 5, /* LOCALNS without PROBED */
                         FX_ONCE_RUNNING | FX_ONCE_PROBED,      /* PROBED without a TID */
                         FX_ONCE_RUNNING | 0x00800000 | 5};    /* a bit of 22..26 */
    int32_t calls = 0;
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        fx_once o = {.state = garbage[i]};
        assert_int_equal(fx_once_call(&o, count_call, &calls), EINVAL);
        assert_int_equal(o.state, garbage[i]);
    }
    assert_int_equal(calls, 0);
}

/* Issue 11, class 5: a flag left RUNNING by a dead thread whose TID the
 * caller now has (the kernel reuses TIDs) is not the caller's own initialiser:
 * no EDEADLK for ever, it is taken over at once and run. (EDEADLK from inside
 * the initialiser: test_initialiser_calling_its_own_flag_gets_edeadlk.) */
static void test_flag_left_running_under_our_tid_by_a_dead_thread_is_taken_over(void **state)
{
    (void)state;
    int32_t flags[] = {0, FX_ONCE_WAITERS};
    for (int i = 0; i < 2; i++) {
        /* Left by a thread without a robust list (PROBED): judged by TID. */
        fx_once o = {.state = FX_ONCE_RUNNING | FX_ONCE_PROBED | flags[i] | fxt_gettid()};
        int32_t calls = 0;
        assert_int_equal(fx_once_call(&o, count_call, &calls), 0);
        assert_int_equal(calls, 1);
        assert_int_equal(o.state, FX_ONCE_DONE);
    }
}

static void test_flag_left_running_by_a_vanished_thread_is_taken_over(void **state)
{
    (void)state;
    /* The largest TID (PID_MAX_LIMIT - 1): allocated only with pid_max at its
     * limit, after 4 million others. */
    fx_once o = {.state = FX_ONCE_RUNNING | FX_ONCE_PROBED | FX_ONCE_TID_MASK};
    int32_t calls = 0;
    int64_t t0 = fxt_now_ns();
    assert_int_equal(fx_once_call(&o, count_call, &calls), 0);
    int64_t dt = fxt_now_ns() - t0;
    assert_int_equal(calls, 1);
    assert_int_equal(o.state, FX_ONCE_DONE);
    /* Taken over at the first liveness check, due within FXI_ONCE_CHECK_MS
     * (on the recheck grid: possibly sooner); the bound is loose for a loaded
     * machine. */
    assert_true(dt < 10 * FX_NSEC_PER_SEC);
}

/* The kernel's mark of an initialiser that died on its robust list: RUNNING
 * without a TID (W kept). The next caller runs the initialiser again at once,
 * keeping W for the sleepers, and the flag ends DONE. */
static void test_flag_abandoned_by_the_kernel_runs_again_at_once(void **state)
{
    (void)state;
    int32_t marks[] = {FX_ONCE_RUNNING, FX_ONCE_RUNNING | FX_ONCE_WAITERS};
    for (int i = 0; i < 2; i++) {
        fx_once o = {.state = marks[i]};
        int32_t calls = 0;
        assert_int_equal(fx_once_call(&o, count_call, &calls), 0);
        assert_int_equal(calls, 1);
        assert_int_equal(o.state, FX_ONCE_DONE);
        assert_null(o.link[FX_ONCE_LINKS - 1]); /* out of the list again */
    }
}

/* --- threads ----------------------------------------------------------------- */

enum { RACERS = 4 };

struct race {
    fx_once o;
    int32_t calls;
    int64_t value;    /* written by the initialiser */
    pid_t tids[RACERS];
    int32_t started;
    int wait_for_sleepers; /* the initialiser returns once the others sleep */
};

struct racer {
    struct race *r;
    int id;
    int result;
    int64_t seen;
};

static void slow_init(void *p)
{
    struct race *r = p;
    __atomic_fetch_add(&r->calls, 1, __ATOMIC_RELAXED);
    if (r->wait_for_sleepers) {
        pid_t me = fxt_gettid();
        for (int i = 0; i < RACERS; i++)
            if (r->tids[i] != me)
                fxt_wait_sleeping(&r->tids[i], &r->o.state);
    }
    r->value = 0x1234567890ll; /* plain write: published by DONE */
}

static void *racer_main(void *p)
{
    struct racer *k = p;
    __atomic_store_n(&k->r->tids[k->id], fxt_gettid(), __ATOMIC_RELEASE);
    __atomic_fetch_add(&k->r->started, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&k->r->started, __ATOMIC_ACQUIRE) < RACERS)
        sched_yield(); /* start together */
    k->result = fx_once_call(&k->r->o, slow_init, k->r);
    k->seen = k->r->value;
    return NULL;
}

static void run_race(struct race *r)
{
    struct racer k[RACERS];
    pthread_t t[RACERS];
    for (int i = 0; i < RACERS; i++) {
        k[i] = (struct racer){r, i, -1, 0};
        t[i] = fxt_thread(racer_main, &k[i]);
    }
    for (int i = 0; i < RACERS; i++) {
        fxt_join(t[i]);
        assert_int_equal(k[i].result, 0);
        assert_int_equal(k[i].seen, 0x1234567890ll);
    }
    assert_int_equal(r->calls, 1);
    assert_int_equal(r->o.state, FX_ONCE_DONE);
}

static void test_racing_threads_run_it_exactly_once(void **state)
{
    (void)state;
    for (int round = 0; round < 50; round++) {
        struct race r;
        memset(&r, 0, sizeof r);
        run_race(&r);
    }
}

static void test_waiters_sleep_until_the_initialiser_returns(void **state)
{
    (void)state;
    struct race r;
    memset(&r, 0, sizeof r);
    r.wait_for_sleepers = 1; /* fails the test if a waiter never sleeps */
    run_race(&r);
}

static void exit_inside(void *p)
{
    count_call(p);
    pthread_exit(NULL);
}

struct exiting {
    fx_once *o;
    int32_t *calls;
};

static void *exiting_main(void *p)
{
    struct exiting *e = p;
    if (fx_once_call(e->o, exit_inside, e->calls) != 0)
        return (void *)2;
    return (void *)1; /* not reached: the initialiser exits the thread */
}

static void test_thread_exiting_inside_the_initialiser_lets_it_run_again(void **state)
{
    (void)state;
    fx_once o = FX_ONCE_INIT;
    int32_t calls = 0;
    struct exiting e = {&o, &calls};
    pthread_t t = fxt_thread(exiting_main, &e);
    assert_null(fxt_join(t));
    assert_int_equal(calls, 1);
    assert_int_equal(o.state, FX_ONCE_NOT_RUN);
    assert_int_equal(fx_once_call(&o, count_call, &calls), 0);
    assert_int_equal(calls, 2);
    assert_int_equal(o.state, FX_ONCE_DONE);
}

struct cancelled {
    fx_once o;
    int32_t tid_published; /* 1 once inside the initialiser */
    int32_t calls;
};

static void block_inside(void *p)
{
    struct cancelled *c = p;
    __atomic_store_n(&c->tid_published, 1, __ATOMIC_RELEASE);
    for (;;)
        pause(); /* a cancellation point: the cancel acts here */
}

static void *cancelled_main(void *p)
{
    struct cancelled *c = p;
    return (void *)(intptr_t)fx_once_call(&c->o, block_inside, c);
}

struct second {
    struct cancelled *c;
    pid_t tid;
    int result;
};

static void *second_main(void *p)
{
    struct second *s = p;
    __atomic_store_n(&s->tid, fxt_gettid(), __ATOMIC_RELEASE);
    s->result = fx_once_call(&s->c->o, count_call, &s->c->calls);
    return NULL;
}

static void test_cancelled_initialiser_wakes_a_waiter_to_run_it(void **state)
{
    (void)state;
    struct cancelled c = {FX_ONCE_INIT, 0, 0};
    pthread_t t = fxt_thread(cancelled_main, &c);
    fxt_wait_slot(&c.tid_published, 1); /* inside the initialiser */
    struct second s = {&c, 0, -1};
    pthread_t t2 = fxt_thread(second_main, &s);
    fxt_wait_bits(&c.o.state, FX_ONCE_WAITERS, FX_ONCE_WAITERS);
    fxt_wait_sleeping(&s.tid, &c.o.state);
    int64_t t0 = fxt_now_ns();
    assert_int_equal(pthread_cancel(t), 0);
    assert_ptr_equal(fxt_join(t), PTHREAD_CANCELED);
    fxt_join(t2);
    assert_int_equal(s.result, 0);
    assert_int_equal(c.calls, 1); /* the waiter ran its own initialiser */
    assert_int_equal(c.o.state, FX_ONCE_DONE);
    assert_true(fxt_now_ns() - t0 < 5 * FX_NSEC_PER_SEC);
}

/* --- processes --------------------------------------------------------------- */

struct shared_once {
    fx_once o;
    int32_t calls;
    int32_t started;
    int64_t value;
};

static void shared_init(void *p)
{
    struct shared_once *sh = p;
    __atomic_fetch_add(&sh->calls, 1, __ATOMIC_RELAXED);
    sh->value = 42;
}

static int once_child(void *p)
{
    struct shared_once *sh = p;
    __atomic_fetch_add(&sh->started, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&sh->started, __ATOMIC_ACQUIRE) < 3)
        sched_yield();
    FXT_CHILD_CHECK(fx_once_call(&sh->o, shared_init, sh) == 0, 1);
    FXT_CHILD_CHECK(sh->value == 42, 2);
    return 0;
}

static void test_racing_processes_run_it_exactly_once(void **state)
{
    (void)state;
    for (int round = 0; round < 10; round++) {
        struct shared_once *sh = fxt_shared_alloc(sizeof *sh);
        pid_t pid[3];
        for (int i = 0; i < 3; i++)
            pid[i] = fxt_fork(once_child, sh);
        for (int i = 0; i < 3; i++)
            assert_int_equal(fxt_wait_child(pid[i], 30000), 0);
        assert_int_equal(sh->calls, 1);
        assert_int_equal(sh->o.state, FX_ONCE_DONE);
        fxt_shared_free(sh, sizeof *sh);
    }
}

static void hang_inside(void *p)
{
    struct shared_once *sh = p;
    __atomic_fetch_add(&sh->calls, 1, __ATOMIC_RELEASE);
    for (;;)
        pause();
}

static int hanging_child(void *p)
{
    struct shared_once *sh = p;
    return fx_once_call(&sh->o, hang_inside, sh) == 0 ? 1 : 2; /* not reached */
}

static void test_initialiser_process_dying_lets_a_waiter_run_it(void **state)
{
    (void)state;
    struct shared_once *sh = fxt_shared_alloc(sizeof *sh);
    pid_t pid = fxt_fork(hanging_child, sh);
    fxt_wait_slot(&sh->calls, 1); /* the child is inside the initialiser */
    assert_int_equal(kill(pid, SIGKILL), 0); /* not reaped yet: a zombie */
    fxt_reap_where_zombies_look_alive(pid);
    int64_t t0 = fxt_now_ns();
    assert_int_equal(fx_once_call(&sh->o, shared_init, sh), 0);
    assert_true(fxt_now_ns() - t0 < 5 * FX_NSEC_PER_SEC);
    assert_int_equal(sh->calls, 2);
    assert_int_equal(sh->value, 42);
    assert_int_equal(sh->o.state, FX_ONCE_DONE);
    assert_int_equal(fxt_wait_child(pid, 10000), 128 + SIGKILL);
    fxt_shared_free(sh, sizeof *sh);
}

/* --- fx_once_recover -------------------------------------------------------- */

struct recover_waiter {
    fx_once *o;
    int32_t calls;
    pid_t tid;
    int result;
};

static void *recover_waiter_main(void *p)
{
    struct recover_waiter *w = p;
    __atomic_store_n(&w->tid, fxt_gettid(), __ATOMIC_RELEASE);
    __atomic_store_n(&w->result, fx_once_call(w->o, count_call, &w->calls), __ATOMIC_RELEASE);
    return NULL;
}

/* The word names a live thread (this one), so the waiter's liveness checks
 * never let it take over: only the recovery lets it run the initialiser. */
static void test_recover_resets_a_running_flag_and_wakes_its_waiter_to_run_it(void **state)
{
    (void)state;
    fx_once *o = fxt_arena(sizeof *o);
    pid_t me = fxt_gettid();
    o->state = FX_ONCE_RUNNING | me;
    struct recover_waiter *w = fxt_arena(sizeof *w);
    w->o = o;
    w->result = -1;
    pthread_t t = fxt_thread(recover_waiter_main, w);
    while (__atomic_load_n(&w->tid, __ATOMIC_ACQUIRE) == 0)
        sched_yield();
    assert_true(fxt_wait_asleep(__atomic_load_n(&w->tid, __ATOMIC_ACQUIRE), &o->state, 10000));
    assert_int_equal(__atomic_load_n(&o->state, __ATOMIC_RELAXED), FX_ONCE_RUNNING | FX_ONCE_WAITERS | me);
    int64_t t0 = fxt_now_ns();
    assert_int_equal(fx_once_recover(o, me), 0);
    assert_true(fxt_join_timed(t, 10000, NULL));
    /* Woken by the recovery, not by a check (none would let it in). */
    assert_true(fxt_now_ns() - t0 < 5 * FX_NSEC_PER_SEC);
    assert_int_equal(w->result, 0);
    assert_int_equal(w->calls, 1);
    assert_int_equal(o->state, FX_ONCE_DONE);
    /* Recovered once: the flag is done, not running in me any more. */
    assert_int_equal(fx_once_recover(o, me), EPERM);
}

static void test_recover_of_a_flag_not_running_in_that_tid_gives_eperm(void **state)
{
    (void)state;
    pid_t me = fxt_gettid();
    int32_t words[] = {FX_ONCE_NOT_RUN, FX_ONCE_DONE, FX_ONCE_RUNNING | (me + 1),
                       FX_ONCE_RUNNING | FX_ONCE_WAITERS | (me + 1)};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        fx_once o = {.state = words[i]};
        assert_int_equal(fx_once_recover(&o, me), EPERM);
        assert_int_equal(o.state, words[i]);
    }
    fx_once o = {.state = FX_ONCE_RUNNING | me};
    assert_int_equal(fx_once_recover(&o, me), 0);
    assert_int_equal(o.state, FX_ONCE_NOT_RUN);
    int32_t calls = 0;
    assert_int_equal(fx_once_call(&o, count_call, &calls), 0);
    assert_int_equal(calls, 1);
}

static void test_recover_with_bad_input_gives_einval(void **state)
{
    (void)state;
    pid_t me = fxt_gettid();
    assert_int_equal(fx_once_recover(NULL, me), EINVAL);
    int32_t raw[2] = {0, 0};
    assert_int_equal(fx_once_recover((fx_once *)((char *)raw + 1), me), EINVAL);
    fx_once o = {.state = FX_ONCE_RUNNING | me};
    assert_int_equal(fx_once_recover(&o, 0), EINVAL);
    assert_int_equal(fx_once_recover(&o, -1), EINVAL);
    assert_int_equal(fx_once_recover(&o, FX_ONCE_TID_MASK + 1), EINVAL);
    assert_int_equal(o.state, FX_ONCE_RUNNING | me);
    /* States the library never writes: nothing is changed. */
    int32_t bad[] = {1, 2, FX_ONCE_WAITERS | 1, FX_ONCE_RUNNING | FX_ONCE_PROBED};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fx_once b = {.state = bad[i]};
        assert_int_equal(fx_once_recover(&b, me), EINVAL);
        assert_int_equal(b.state, bad[i]);
    }
}

/* --- signals ---------------------------------------------------------------- */

struct gated {
    fx_once o;
    int32_t release;
    int32_t inside;
    int32_t calls;
};

static void gated_init(void *p)
{
    struct gated *g = p;
    __atomic_store_n(&g->inside, 1, __ATOMIC_RELEASE);
    fxt_wait_slot(&g->release, 1);
    g->calls++;
}

static void *gated_main(void *p)
{
    struct gated *g = p;
    return (void *)(intptr_t)fx_once_call(&g->o, gated_init, g);
}

struct storm_waiter {
    struct gated *g;
    pid_t tid;
    int result;
};

static void *storm_waiter_main(void *p)
{
    struct storm_waiter *w = p;
    __atomic_store_n(&w->tid, fxt_gettid(), __ATOMIC_RELEASE);
    __atomic_store_n(&w->result, fx_once_call(&w->g->o, gated_init, w->g), __ATOMIC_RELEASE);
    return NULL;
}

static void test_signal_storm_never_interrupts_a_waiter(void **state)
{
    (void)state;
    struct gated g = {FX_ONCE_INIT, 0, 0, 0};
    pthread_t t = fxt_thread(gated_main, &g);
    fxt_wait_slot(&g.inside, 1);
    struct storm_waiter w = {&g, 0, -1};
    pthread_t tw = fxt_thread(storm_waiter_main, &w);
    fxt_wait_sleeping(&w.tid, &g.o.state);
    struct fxt_storm *storm = fxt_storm_start(tw);
    fxt_storm_hits(100, 500); /* signals hit the sleeper */
    assert_int_equal(__atomic_load_n(&w.result, __ATOMIC_ACQUIRE), -1);
    __atomic_store_n(&g.release, 1, __ATOMIC_RELEASE);
    fxt_join(t);
    fxt_join(tw);
    assert_true(fxt_storm_stop(storm) > 0);
    assert_int_equal(w.result, 0);
    assert_int_equal(g.calls, 1);
}

/* --- no system call on the fast paths ------------------------------------------ */

static int once_ops(void *p)
{
    fx_once *o = p;
    int32_t calls = 0;
    FXT_CHILD_CHECK(fx_once_call(o, count_call, &calls) == 0, 1); /* runs it */
    for (int i = 0; i < 1000; i++)
        FXT_CHILD_CHECK(fx_once_call(o, count_call, &calls) == 0, 2);
    FXT_CHILD_CHECK(calls == 1, 3);
    return 0;
}

static void test_uncontended_and_done_calls_make_no_futex_call(void **state)
{
    (void)state;
    fx_once *o = fxt_shared_alloc(sizeof *o);
    assert_int_equal(fxt_run_without_futex(o, sizeof *o, once_ops, o), 0);
    assert_int_equal(o->state, FX_ONCE_DONE);
    fxt_shared_free(o, sizeof *o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_bytes_run_the_initialiser_once),
        cmocka_unit_test(test_initialiser_calling_its_own_flag_gets_edeadlk),
        cmocka_unit_test(test_null_misaligned_and_null_function_give_einval),
        cmocka_unit_test(test_state_never_written_gives_einval),
        cmocka_unit_test(test_flag_left_running_under_our_tid_by_a_dead_thread_is_taken_over),
        cmocka_unit_test(test_flag_left_running_by_a_vanished_thread_is_taken_over),
        cmocka_unit_test(test_flag_abandoned_by_the_kernel_runs_again_at_once),
        cmocka_unit_test(test_racing_threads_run_it_exactly_once),
        cmocka_unit_test(test_waiters_sleep_until_the_initialiser_returns),
        cmocka_unit_test(test_thread_exiting_inside_the_initialiser_lets_it_run_again),
        cmocka_unit_test(test_cancelled_initialiser_wakes_a_waiter_to_run_it),
        cmocka_unit_test(test_racing_processes_run_it_exactly_once),
        cmocka_unit_test(test_initialiser_process_dying_lets_a_waiter_run_it),
        cmocka_unit_test(test_recover_resets_a_running_flag_and_wakes_its_waiter_to_run_it),
        cmocka_unit_test(test_recover_of_a_flag_not_running_in_that_tid_gives_eperm),
        cmocka_unit_test(test_recover_with_bad_input_gives_einval),
        cmocka_unit_test(test_signal_storm_never_interrupts_a_waiter),
        cmocka_unit_test(test_uncontended_and_done_calls_make_no_futex_call),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
