/* tests/test_barrier.c - fx_barrier: every return code, rounds across threads
 * and processes, withdrawal on timeout, wrap-around, signals, bad input. */
#define _GNU_SOURCE
#include "fxtest.h"
#include "fxt_threads.h"

#include <errno.h>
#include <futexsync.h>
#include <futexsync/layout.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SERIAL FX_BARRIER_SERIAL_THREAD

/* --- single thread: values and return codes ------------------------------ */

static void test_zero_bytes_with_one_party_is_always_serial(void **state)
{
    (void)state;
    fx_barrier b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < 5; i++)
        assert_int_equal(fx_barrier_wait(&b, 1), SERIAL);
    struct timespec past = {0, 0};
    assert_int_equal(fx_barrier_timedwait(&b, 1, &past), SERIAL);
    assert_int_equal(b.parties, 1);
    assert_int_equal((uint32_t)b.state, 6u << 16); /* six rounds, nobody inside */
    fx_barrier z = FX_BARRIER_INIT;
    fx_barrier_init(&b);
    assert_memory_equal(&b, &z, sizeof b);
}

static void test_party_count_outside_range_gives_einval(void **state)
{
    (void)state;
    fx_barrier b = FX_BARRIER_INIT;
    assert_int_equal(fx_barrier_wait(&b, 0), EINVAL);
    assert_int_equal(fx_barrier_wait(&b, -3), EINVAL);
    assert_int_equal(fx_barrier_wait(&b, FX_BARRIER_MAX_PARTIES + 1), EINVAL);
    assert_int_equal(fx_barrier_timedwait(&b, 0, NULL), EINVAL);
    assert_int_equal(b.parties, 0);
    assert_int_equal(b.state, 0);
}

static void test_party_count_mismatch_gives_einval(void **state)
{
    (void)state;
    fx_barrier b = FX_BARRIER_INIT;
    assert_int_equal(fx_barrier_wait(&b, 1), SERIAL); /* records 1 */
    assert_int_equal(fx_barrier_wait(&b, 2), EINVAL);
    assert_int_equal(fx_barrier_timedwait(&b, 3, NULL), EINVAL);
    assert_int_equal(fx_barrier_wait(&b, 1), SERIAL);
    fx_barrier_init(&b); /* forgets the count */
    struct timespec past = {0, 0};
    assert_int_equal(fx_barrier_timedwait(&b, 2, &past), ETIMEDOUT);
    assert_int_equal(b.parties, 2);
    assert_int_equal(fx_barrier_wait(&b, 1), EINVAL);
}

static void test_timedwait_times_out_and_withdraws(void **state)
{
    (void)state;
    fx_barrier b = FX_BARRIER_INIT;
    int64_t t0 = fxt_now_ns();
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_barrier_timedwait(&b, 2, &d), ETIMEDOUT);
    assert_true(fxt_now_ns() - t0 >= 30 * FX_NSEC_PER_MSEC);
    assert_int_equal(b.state & 0x7fff, 0); /* the arrival was withdrawn */
    assert_int_equal(b.state & (int32_t)0xffff0000, 0); /* same round */
}

static void test_negative_seconds_is_a_passed_deadline(void **state)
{
    (void)state;
    fx_barrier b = FX_BARRIER_INIT;
    struct timespec d = {-1, 0};
    assert_int_equal(fx_barrier_timedwait(&b, 3, &d), ETIMEDOUT);
    assert_int_equal(b.state & 0x7fff, 0);
}

static void test_bad_nanoseconds_einval_only_when_blocking(void **state)
{
    (void)state;
    fx_barrier b = FX_BARRIER_INIT;
    struct timespec bad = {0, 1000000000L};
    struct timespec neg = {0, -5};
    assert_int_equal(fx_barrier_timedwait(&b, 2, &bad), EINVAL);
    assert_int_equal(fx_barrier_timedwait(&b, 2, &neg), EINVAL);
    assert_int_equal(b.state, 0); /* not counted */
    fx_barrier one = FX_BARRIER_INIT;
    assert_int_equal(fx_barrier_timedwait(&one, 1, &bad), SERIAL); /* never blocks */
}

static void test_null_and_misaligned_give_einval(void **state)
{
    (void)state;
    _Alignas(8) char buf[16] = {0};
    fx_barrier *bad = (fx_barrier *)(void *)(buf + 3);
    struct timespec d = fx_deadline_in(0);
    assert_int_equal(fx_barrier_init(NULL), EINVAL);
    assert_int_equal(fx_barrier_init(bad), EINVAL);
    assert_int_equal(fx_barrier_wait(NULL, 1), EINVAL);
    assert_int_equal(fx_barrier_wait(bad, 1), EINVAL);
    assert_int_equal(fx_barrier_timedwait(NULL, 1, &d), EINVAL);
    assert_int_equal(fx_barrier_timedwait(bad, 1, &d), EINVAL);
    for (size_t i = 0; i < sizeof buf; i++)
        assert_int_equal(buf[i], 0);
}

static void test_slots_never_written_give_einval(void **state)
{
    (void)state;
    fx_barrier neg = {0, -1};
    assert_int_equal(fx_barrier_wait(&neg, 1), EINVAL);
    fx_barrier big = {0, FX_BARRIER_MAX_PARTIES + 1};
    assert_int_equal(fx_barrier_wait(&big, 1), EINVAL);
    fx_barrier over = {5, 3}; /* five arrived in a round of three */
    assert_int_equal(fx_barrier_wait(&over, 3), EINVAL);
    assert_int_equal(fx_barrier_timedwait(&over, 3, NULL), EINVAL);
    assert_int_equal(over.state, 5);
    fx_barrier full = {3, 3};
    assert_int_equal(fx_barrier_wait(&full, 3), EINVAL);
}

/* --- threads ----------------------------------------------------------------- */

enum { MAXT = 8, ROUNDS = 300 };

struct phased {
    fx_barrier b;
    int32_t parties;
    int32_t serials[ROUNDS];
    int32_t slot[ROUNDS][MAXT]; /* written before round r's wait */
    int32_t errors;
    int timed;
};

struct party {
    struct phased *ph;
    int id;
};

/* Round r: write my slot, wait, then check every party's slot of round r. */
static int phased_run(struct phased *ph, int id)
{
    int errors = 0;
    for (int r = 0; r < ROUNDS; r++) {
        ph->slot[r][id] = r + 1;
        int res;
        if (ph->timed && (r + id) % 2) {
            do {
                struct timespec d = fx_deadline_in(((r * 7 + id) % 5) * 10 * FX_NSEC_PER_USEC);
                res = fx_barrier_timedwait(&ph->b, ph->parties, &d);
            } while (res == ETIMEDOUT);
        } else {
            res = fx_barrier_wait(&ph->b, ph->parties);
        }
        if (res == SERIAL)
            __atomic_fetch_add(&ph->serials[r], 1, __ATOMIC_RELAXED);
        else if (res != 0)
            errors++;
        for (int i = 0; i < ph->parties; i++)
            if (ph->slot[r][i] != r + 1)
                errors++;
    }
    return errors;
}

static void *party_main(void *p)
{
    struct party *pt = p;
    int e = phased_run(pt->ph, pt->id);
    __atomic_fetch_add(&pt->ph->errors, e, __ATOMIC_RELAXED);
    return NULL;
}

static void run_threads(struct phased *ph, int n)
{
    ph->parties = n;
    struct party pt[MAXT];
    pthread_t t[MAXT];
    for (int i = 0; i < n; i++) {
        pt[i] = (struct party){ph, i};
        t[i] = fxt_thread(party_main, &pt[i]);
    }
    for (int i = 0; i < n; i++)
        fxt_join(t[i]);
    assert_int_equal(ph->errors, 0);
    for (int r = 0; r < ROUNDS; r++)
        assert_int_equal(ph->serials[r], 1);
    assert_int_equal((uint32_t)ph->b.state & 0xffffu, 0); /* nobody left inside */
}

static void test_threads_pass_rounds_with_one_serial_each(void **state)
{
    (void)state;
    for (int n = 2; n <= 5; n += 3) {
        struct phased *ph = calloc(1, sizeof *ph);
        assert_non_null(ph);
        run_threads(ph, n);
        assert_int_equal((uint32_t)ph->b.state >> 16, ROUNDS);
        free(ph);
    }
}

static void test_timed_withdrawals_racing_round_ends_stay_consistent(void **state)
{
    (void)state;
    struct phased *ph = calloc(1, sizeof *ph);
    assert_non_null(ph);
    ph->timed = 1;
    run_threads(ph, 3);
    assert_int_equal((uint32_t)ph->b.state >> 16, ROUNDS);
    free(ph);
}

static void test_round_number_wraps_around(void **state)
{
    (void)state;
    struct phased *ph = calloc(1, sizeof *ph);
    assert_non_null(ph);
    ph->b.state = (int32_t)0xffe00000u; /* 32 rounds before the wrap */
    run_threads(ph, 3);
    assert_int_equal((uint32_t)ph->b.state >> 16, (0xffe0u + ROUNDS) & 0xffffu);
    free(ph);
}

struct waiter {
    fx_barrier *b;
    int32_t parties;
    pid_t tid;
    int result;
};

static void *waiter_main(void *p)
{
    struct waiter *w = p;
    __atomic_store_n(&w->tid, fxt_gettid(), __ATOMIC_RELEASE);
    __atomic_store_n(&w->result, fx_barrier_wait(w->b, w->parties), __ATOMIC_RELEASE);
    return NULL;
}

static void test_waiters_sleep_until_the_last_arrival(void **state)
{
    (void)state;
    enum { N = 4 };
    fx_barrier b = FX_BARRIER_INIT;
    struct waiter w[N - 1];
    pthread_t t[N - 1];
    for (int i = 0; i < N - 1; i++) {
        w[i] = (struct waiter){&b, N, 0, -2};
        t[i] = fxt_thread(waiter_main, &w[i]);
        fxt_wait_sleeping(&w[i].tid, &b.state);
    }
    assert_int_equal(fxt_load(&b.state) & 0x7fff, N - 1);
    assert_int_equal(fxt_load(&b.state) & FX_BARRIER_SLEEPERS, FX_BARRIER_SLEEPERS);
    for (int i = 0; i < N - 1; i++)
        assert_int_equal(__atomic_load_n(&w[i].result, __ATOMIC_ACQUIRE), -2);
    assert_int_equal(fx_barrier_wait(&b, N), SERIAL);
    for (int i = 0; i < N - 1; i++) {
        fxt_join(t[i]);
        assert_int_equal(w[i].result, 0);
    }
    assert_int_equal((uint32_t)b.state, 1u << 16);
}

/* --- processes --------------------------------------------------------------- */

struct proc_args {
    struct phased *ph;
    int id;
};

static int party_child(void *p)
{
    struct proc_args *a = p;
    return phased_run(a->ph, a->id) == 0 ? 0 : 1;
}

static void test_processes_pass_rounds_in_shared_memory(void **state)
{
    (void)state;
    enum { N = 4 };
    struct phased *ph = fxt_shared_alloc(sizeof *ph);
    ph->parties = N;
    struct proc_args a[N];
    pid_t pid[N - 1];
    for (int i = 0; i < N - 1; i++) {
        a[i] = (struct proc_args){ph, i};
        pid[i] = fxt_fork(party_child, &a[i]);
    }
    assert_int_equal(phased_run(ph, N - 1), 0);
    for (int i = 0; i < N - 1; i++)
        assert_int_equal(fxt_wait_child(pid[i], 60000), 0);
    for (int r = 0; r < ROUNDS; r++)
        assert_int_equal(ph->serials[r], 1);
    assert_int_equal((uint32_t)ph->b.state, (uint32_t)ROUNDS << 16);
    fxt_shared_free(ph, sizeof *ph);
}

/* --- signals ---------------------------------------------------------------- */

static void test_signal_storm_never_interrupts_wait(void **state)
{
    (void)state;
    fx_barrier b = FX_BARRIER_INIT;
    struct waiter w = {&b, 2, 0, -2};
    pthread_t t = fxt_thread(waiter_main, &w);
    fxt_wait_sleeping(&w.tid, &b.state);
    struct fxt_storm *storm = fxt_storm_start(t);
    fxt_storm_hits(100, 500); /* signals hit the sleeper */
    assert_int_equal(__atomic_load_n(&w.result, __ATOMIC_ACQUIRE), -2);
    assert_int_equal(fx_barrier_wait(&b, 2), SERIAL);
    fxt_join(t);
    assert_true(fxt_storm_stop(storm) > 0);
    assert_int_equal(w.result, 0);
}

struct timed {
    fx_barrier *b;
    int result;
    int64_t elapsed;
};

static void *timed_main(void *p)
{
    struct timed *t = p;
    int64_t t0 = fxt_now_ns();
    struct timespec d = fx_deadline_in(50 * FX_NSEC_PER_MSEC);
    t->result = fx_barrier_timedwait(t->b, 2, &d);
    t->elapsed = fxt_now_ns() - t0;
    return NULL;
}

static void test_signal_storm_keeps_the_deadline(void **state)
{
    (void)state;
    fx_barrier b = FX_BARRIER_INIT;
    struct timed tm = {&b, -2, 0};
    pthread_t t = fxt_thread(timed_main, &tm);
    struct fxt_storm *storm = fxt_storm_start(t);
    fxt_join(t);
    assert_true(fxt_storm_stop(storm) > 0);
    assert_int_equal(tm.result, ETIMEDOUT);
    assert_true(tm.elapsed >= 50 * FX_NSEC_PER_MSEC);
    assert_true(tm.elapsed < 10 * FX_NSEC_PER_SEC);
    assert_int_equal(b.state & 0x7fff, 0);
}

/* --- no system call for a round nobody sleeps in ---------------------------- */

static int single_party_rounds(void *p)
{
    fx_barrier *b = p;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    for (int i = 0; i < 1000; i++) {
        FXT_CHILD_CHECK(fx_barrier_wait(b, 1) == SERIAL, 1);
        FXT_CHILD_CHECK(fx_barrier_timedwait(b, 1, &d) == SERIAL, 2);
    }
    return 0;
}

static void test_rounds_without_sleepers_make_no_futex_call(void **state)
{
    (void)state;
    fx_barrier *b = fxt_shared_alloc(sizeof *b);
    assert_int_equal(fxt_run_without_futex(b, sizeof *b, single_party_rounds, b), 0);
    fxt_shared_free(b, sizeof *b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_bytes_with_one_party_is_always_serial),
        cmocka_unit_test(test_party_count_outside_range_gives_einval),
        cmocka_unit_test(test_party_count_mismatch_gives_einval),
        cmocka_unit_test(test_timedwait_times_out_and_withdraws),
        cmocka_unit_test(test_negative_seconds_is_a_passed_deadline),
        cmocka_unit_test(test_bad_nanoseconds_einval_only_when_blocking),
        cmocka_unit_test(test_null_and_misaligned_give_einval),
        cmocka_unit_test(test_slots_never_written_give_einval),
        cmocka_unit_test(test_threads_pass_rounds_with_one_serial_each),
        cmocka_unit_test(test_timed_withdrawals_racing_round_ends_stay_consistent),
        cmocka_unit_test(test_round_number_wraps_around),
        cmocka_unit_test(test_waiters_sleep_until_the_last_arrival),
        cmocka_unit_test(test_processes_pass_rounds_in_shared_memory),
        cmocka_unit_test(test_signal_storm_never_interrupts_wait),
        cmocka_unit_test(test_signal_storm_keeps_the_deadline),
        cmocka_unit_test(test_rounds_without_sleepers_make_no_futex_call),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
