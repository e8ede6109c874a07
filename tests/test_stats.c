/*
 * tests/test_stats.c - fx_stats_*: the per-slot counts of the stats build
 * (built with FXT_STATS_BUILD when FUTEXSYNC_STATS=ON), or the ENOTSUP
 * answers of the default build.
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <errno.h>
#include <futexsync.h>
#include <futexsync/stats.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Every test starts from empty records. */
static int reset_all(void **state)
{
    (void)state;
    int r = fx_stats_reset(NULL, 0);
#ifdef FXT_STATS_BUILD
    return r == 0 ? 0 : -1;
#else
    return r == ENOTSUP ? 0 : -1;
#endif
}

static void fill(fx_stats *s)
{
    memset(s, 0xa5, sizeof *s);
}

/* Argument checks come first in both builds. */
static void test_read_rejects_null_out_and_empty_range(void **state)
{
    (void)state;
    int32_t w = 0;
    fx_stats s;
    assert_int_equal(fx_stats_read(NULL, 0, NULL), EINVAL);
    assert_int_equal(fx_stats_read(&w, 0, &s), EINVAL);
}

static void test_reset_rejects_empty_range(void **state)
{
    (void)state;
    int32_t w = 0;
    assert_int_equal(fx_stats_reset(&w, 0), EINVAL);
}

static void test_list_rejects_null_count_and_null_out(void **state)
{
    (void)state;
    fx_stats_word out[1];
    size_t n = 99;
    assert_int_equal(fx_stats_list(out, 1, NULL), EINVAL);
    assert_int_equal(fx_stats_list(NULL, 1, &n), EINVAL);
}

#ifndef FXT_STATS_BUILD

static void test_default_build_reports_disabled(void **state)
{
    (void)state;
    assert_int_equal(fx_stats_enabled(), 0);
}

static void test_default_build_read_zeroes_and_returns_enotsup(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    fx_stats s;
    fill(&s);
    assert_int_equal(fx_stats_read(&m, sizeof m, &s), ENOTSUP);
    fx_stats zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&s, &zero, sizeof s);
    fill(&s);
    assert_int_equal(fx_stats_read(NULL, 0, &s), ENOTSUP);
    assert_memory_equal(&s, &zero, sizeof s);
}

static void test_default_build_reset_returns_enotsup(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fx_stats_reset(&m, sizeof m), ENOTSUP);
    assert_int_equal(fx_stats_reset(NULL, 0), ENOTSUP);
}

static void test_default_build_list_is_empty_and_returns_enotsup(void **state)
{
    (void)state;
    fx_stats_word out[4];
    size_t n = 99;
    assert_int_equal(fx_stats_list(out, 4, &n), ENOTSUP);
    assert_int_equal(n, 0);
}

#else /* FXT_STATS_BUILD */

static fx_stats read_of(const void *obj, size_t size)
{
    fx_stats s;
    fill(&s);
    assert_int_equal(fx_stats_read(obj, size, &s), 0);
    return s;
}

/* Waits until thread `tid` of this process sleeps (state S): a thread whose
 * only blocking call is a lock is then asleep in the kernel on it. */
static void wait_until_sleeping(pid_t tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    int64_t limit = fxt_now_ns() + 20 * INT64_C(1000000000);
    for (;;) {
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        char buf[256];
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        const char *paren = strrchr(buf, ')'); /* "pid (comm) S ..." */
        assert_non_null(paren);
        if (paren[1] == ' ' && paren[2] == 'S')
            return;
        assert_true(fxt_now_ns() < limit);
        sched_yield();
    }
}

struct locker {
    fx_mutex *m;
    pid_t tid; /* written before locking */
};

static void *lock_and_unlock(void *arg)
{
    struct locker *l = arg;
    __atomic_store_n(&l->tid, gettid(), __ATOMIC_RELEASE);
    int r = fx_mutex_lock(l->m);
    if (r == 0)
        r = fx_mutex_unlock(l->m);
    return (void *)(intptr_t)r; /* the main thread asserts */
}

static void test_stats_build_reports_enabled(void **state)
{
    (void)state;
    assert_int_equal(fx_stats_enabled(), 1);
}

static void test_uncontended_lock_is_not_counted(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(fx_mutex_lock(&m), 0);
        assert_int_equal(fx_mutex_unlock(&m), 0);
    }
    assert_int_equal(fx_mutex_trylock(&m), 0);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    fx_stats s = read_of(&m, sizeof m);
    assert_int_equal(s.words, 0);
    assert_int_equal(s.contended + s.waits + s.wakes + s.spins + s.timeouts, 0);
}

static void test_blocked_lock_counts_contention_wait_and_wake(void **state)
{
    (void)state;
    static fx_mutex m = FX_MUTEX_INIT;
    struct locker l = { &m, 0 };
    assert_int_equal(fx_mutex_lock(&m), 0);
    pthread_t t = fxt_thread(lock_and_unlock, &l);
    pid_t tid;
    while ((tid = __atomic_load_n(&l.tid, __ATOMIC_ACQUIRE)) == 0)
        sched_yield();
    wait_until_sleeping(tid);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    assert_int_equal((intptr_t)fxt_join(t), 0);
    fx_stats s = read_of(&m, sizeof m);
    assert_int_equal(s.words, 1);
    assert_int_equal(s.contended, 1);
    assert_true(s.waits >= 1);
    assert_true(s.wakes >= 1);
    assert_int_equal(s.timeouts, 0);
    assert_int_equal(s.untracked, 0);
}

static void test_timed_out_lock_counts_one_timeout(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fx_mutex_lock(&m), 0);
    struct timespec soon = fx_deadline_in(2 * 1000 * 1000);
    assert_int_equal(fx_mutex_timedlock(&m, &soon), ETIMEDOUT);
    fx_stats s = read_of(&m, sizeof m);
    assert_int_equal(s.contended, 1);
    assert_int_equal(s.timeouts, 1);
    assert_true(s.waits >= 1);
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

static void test_futex_wait_counts_the_system_call_and_its_timeout(void **state)
{
    (void)state;
    int32_t w = 0;
    struct timespec soon = fx_deadline_in(1000 * 1000);
    assert_int_equal(fx_futex_wait(&w, 0, &soon), ETIMEDOUT);
    fx_stats s = read_of(&w, sizeof w);
    assert_int_equal(s.waits, 1);
    assert_int_equal(s.timeouts, 1);
    assert_int_equal(s.wakes + s.contended + s.spins, 0);
}

static void test_past_deadline_counts_a_timeout_without_a_wait(void **state)
{
    (void)state;
    int32_t w = 0;
    struct timespec past = { -1, 0 };
    assert_int_equal(fx_futex_wait(&w, 0, &past), ETIMEDOUT);
    fx_stats s = read_of(&w, sizeof w);
    assert_int_equal(s.waits, 0);
    assert_int_equal(s.timeouts, 1);
}

static void test_changed_value_makes_no_wait(void **state)
{
    (void)state;
    int32_t w = 1;
    assert_int_equal(fx_futex_wait(&w, 0, NULL), EAGAIN);
    fx_stats s = read_of(&w, sizeof w);
    assert_int_equal(s.words, 0);
    assert_int_equal(s.waits, 0);
}

static void test_futex_wake_counts_each_system_call(void **state)
{
    (void)state;
    int32_t w = 0;
    for (int i = 0; i < 3; i++)
        assert_int_equal(fx_futex_wake(&w, 1), 0);
    assert_int_equal(fx_futex_wake(&w, 0), 0); /* no system call for 0 */
    fx_stats s = read_of(&w, sizeof w);
    assert_int_equal(s.wakes, 3);
    assert_int_equal(s.waits, 0);
}

static void test_range_read_sums_the_slots_of_an_object(void **state)
{
    (void)state;
    int32_t w[4] = { 0, 0, 0, 0 };
    assert_int_equal(fx_futex_wake(&w[0], 1), 0);
    assert_int_equal(fx_futex_wake(&w[2], 1), 0);
    assert_int_equal(fx_futex_wake(&w[2], 1), 0);
    fx_stats all = read_of(w, sizeof w);
    assert_int_equal(all.words, 2);
    assert_int_equal(all.wakes, 3);
    fx_stats first = read_of(&w[0], sizeof w[0]);
    assert_int_equal(first.words, 1);
    assert_int_equal(first.wakes, 1);
    fx_stats second = read_of(&w[1], sizeof w[1]);
    assert_int_equal(second.words, 0);
    assert_int_equal(second.wakes, 0);
}

static void test_totals_include_every_slot(void **state)
{
    (void)state;
    int32_t a = 0, b = 0;
    assert_int_equal(fx_futex_wake(&a, 1), 0);
    assert_int_equal(fx_futex_wake(&b, 1), 0);
    fx_stats t = read_of(NULL, 0);
    assert_int_equal(t.words, 2);
    assert_int_equal(t.wakes, 2);
}

static void test_reset_of_a_slot_keeps_the_others(void **state)
{
    (void)state;
    int32_t a = 0, b = 0;
    assert_int_equal(fx_futex_wake(&a, 1), 0);
    assert_int_equal(fx_futex_wake(&b, 1), 0);
    assert_int_equal(fx_stats_reset(&a, sizeof a), 0);
    assert_int_equal(read_of(&a, sizeof a).wakes, 0);
    assert_int_equal(read_of(&b, sizeof b).wakes, 1);
    assert_int_equal(read_of(NULL, 0).wakes, 1);
}

static void test_reset_all_clears_totals_and_records(void **state)
{
    (void)state;
    int32_t a = 0;
    assert_int_equal(fx_futex_wake(&a, 1), 0);
    assert_int_equal(fx_stats_reset(NULL, 0), 0);
    fx_stats t = read_of(NULL, 0);
    assert_int_equal(t.words, 0);
    assert_int_equal(t.wakes, 0);
}

static void test_list_puts_the_hottest_slot_first(void **state)
{
    (void)state;
    int32_t cold = 0, hot = 0, warm = 0;
    assert_int_equal(fx_futex_wake(&cold, 1), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(fx_futex_wake(&hot, 1), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(fx_futex_wake(&warm, 1), 0);
    fx_stats_word out[2];
    size_t n = 0;
    assert_int_equal(fx_stats_list(out, 2, &n), 0);
    assert_int_equal(n, 2);
    assert_ptr_equal(out[0].word, &hot);
    assert_int_equal(out[0].stats.wakes, 5);
    assert_int_equal(out[0].stats.words, 1);
    assert_ptr_equal(out[1].word, &warm);
    assert_int_equal(out[1].stats.wakes, 3);
}

static void test_list_with_no_room_counts_nothing(void **state)
{
    (void)state;
    int32_t a = 0;
    assert_int_equal(fx_futex_wake(&a, 1), 0);
    size_t n = 99;
    assert_int_equal(fx_stats_list(NULL, 0, &n), 0);
    assert_int_equal(n, 0);
}

static void test_full_table_counts_untracked_events_in_totals(void **state)
{
    (void)state;
    enum { N = FX_STATS_WORDS + 100 };
    static int32_t words[N];
    for (int i = 0; i < N; i++)
        assert_int_equal(fx_futex_wake(&words[i], 1), 0);
    fx_stats t = read_of(NULL, 0);
    assert_int_equal(t.wakes, N);
    assert_int_equal(t.words, FX_STATS_WORDS);
    assert_int_equal(t.untracked, 100);
    fx_stats one = read_of(&words[0], sizeof words[0]);
    assert_int_equal(one.untracked, 100);
}

static int wake_in_child(void *arg)
{
    int32_t *w = arg;
    for (int i = 0; i < 4; i++)
        FXT_CHILD_CHECK(fx_futex_wake(w, 1) == 0, 1);
    fx_stats s;
    FXT_CHILD_CHECK(fx_stats_read(w, sizeof *w, &s) == 0, 2);
    FXT_CHILD_CHECK(s.wakes == 5, 3); /* the parent's one, copied by fork, + 4 */
    return 0;
}

static void test_counts_belong_to_the_calling_process(void **state)
{
    (void)state;
    int32_t *w = fxt_shared_alloc(sizeof *w);
    assert_int_equal(fx_futex_wake(w, 1), 0);
    assert_int_equal(fxt_run_child(wake_in_child, w), 0);
    assert_int_equal(read_of(w, sizeof *w).wakes, 1);
    fxt_shared_free(w, sizeof *w);
}

#endif /* FXT_STATS_BUILD */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_read_rejects_null_out_and_empty_range, reset_all),
        cmocka_unit_test_setup(test_reset_rejects_empty_range, reset_all),
        cmocka_unit_test_setup(test_list_rejects_null_count_and_null_out, reset_all),
#ifndef FXT_STATS_BUILD
        cmocka_unit_test_setup(test_default_build_reports_disabled, reset_all),
        cmocka_unit_test_setup(test_default_build_read_zeroes_and_returns_enotsup, reset_all),
        cmocka_unit_test_setup(test_default_build_reset_returns_enotsup, reset_all),
        cmocka_unit_test_setup(test_default_build_list_is_empty_and_returns_enotsup, reset_all),
#else
        cmocka_unit_test_setup(test_stats_build_reports_enabled, reset_all),
        cmocka_unit_test_setup(test_uncontended_lock_is_not_counted, reset_all),
        cmocka_unit_test_setup(test_blocked_lock_counts_contention_wait_and_wake, reset_all),
        cmocka_unit_test_setup(test_timed_out_lock_counts_one_timeout, reset_all),
        cmocka_unit_test_setup(test_futex_wait_counts_the_system_call_and_its_timeout, reset_all),
        cmocka_unit_test_setup(test_past_deadline_counts_a_timeout_without_a_wait, reset_all),
        cmocka_unit_test_setup(test_changed_value_makes_no_wait, reset_all),
        cmocka_unit_test_setup(test_futex_wake_counts_each_system_call, reset_all),
        cmocka_unit_test_setup(test_range_read_sums_the_slots_of_an_object, reset_all),
        cmocka_unit_test_setup(test_totals_include_every_slot, reset_all),
        cmocka_unit_test_setup(test_reset_of_a_slot_keeps_the_others, reset_all),
        cmocka_unit_test_setup(test_reset_all_clears_totals_and_records, reset_all),
        cmocka_unit_test_setup(test_list_puts_the_hottest_slot_first, reset_all),
        cmocka_unit_test_setup(test_list_with_no_room_counts_nothing, reset_all),
        cmocka_unit_test_setup(test_full_table_counts_untracked_events_in_totals, reset_all),
        cmocka_unit_test_setup(test_counts_belong_to_the_calling_process, reset_all),
#endif
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
