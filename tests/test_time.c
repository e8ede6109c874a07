/*
 * tests/test_time.c - fx_deadline_in(): now(CLOCK_MONOTONIC) + timeout_ns,
 * normalized, saturating instead of wrapping; fx_deadline_from(): an absolute
 * time on another clock as a monotonic deadline.
 *
 * Each check brackets the result between two CLOCK_MONOTONIC readings taken
 * just before and just after the call: the exact expected value is
 * before + timeout <= d <= after + timeout.
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <errno.h>
#include <futexsync.h>
#include <stdint.h>
#include <time.h>

#include "../src/internal/deadline.h"

#define NSEC 1000000000LL

/* An exact (seconds, nanoseconds) pair with 0 <= ns < 1e9. */
struct exact {
    int64_t sec;
    int64_t ns;
};

/* ts + timeout_ns, exactly (floor division; ts.tv_sec is the small uptime). */
static struct exact exact_add(struct timespec ts, int64_t timeout_ns)
{
    int64_t sec = timeout_ns / NSEC, ns = timeout_ns % NSEC;
    if (ns < 0) {
        ns += NSEC;
        sec -= 1;
    }
    ns += ts.tv_nsec;
    if (ns >= NSEC) {
        ns -= NSEC;
        sec += 1;
    }
    struct exact e = {(int64_t)ts.tv_sec + sec, ns};
    return e;
}

static int exact_cmp(struct exact a, struct timespec b)
{
    if (a.sec != (int64_t)b.tv_sec)
        return a.sec < (int64_t)b.tv_sec ? -1 : 1;
    if (a.ns != b.tv_nsec)
        return a.ns < b.tv_nsec ? -1 : 1;
    return 0;
}

static void assert_normalized(struct timespec d)
{
    assert_true(d.tv_nsec >= 0);
    assert_true(d.tv_nsec < NSEC);
}

/* Calls fx_deadline_in(timeout_ns) between two monotonic readings and asserts
 * before + timeout <= result <= after + timeout. */
static struct timespec assert_deadline_exact(int64_t timeout_ns)
{
    struct timespec before, after;
    clock_gettime(CLOCK_MONOTONIC, &before);
    struct timespec d = fx_deadline_in(timeout_ns);
    clock_gettime(CLOCK_MONOTONIC, &after);
    assert_normalized(d);
    assert_true(exact_cmp(exact_add(before, timeout_ns), d) <= 0);
    assert_true(exact_cmp(exact_add(after, timeout_ns), d) >= 0);
    return d;
}

static void deadline_in_zero_is_now(void **state)
{
    (void)state;
    assert_deadline_exact(0);
}

static void deadline_in_positive_adds_the_timeout(void **state)
{
    (void)state;
    assert_deadline_exact(1500 * FX_NSEC_PER_MSEC + 123);
    assert_deadline_exact(1);
    assert_deadline_exact(3600 * FX_NSEC_PER_SEC);
}

static void deadline_in_negative_is_in_the_past(void **state)
{
    (void)state;
    struct timespec d = assert_deadline_exact(-2500 * FX_NSEC_PER_MSEC - 7);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    assert_true(fxt_ts_ns(&d) < fxt_ts_ns(&now));
    assert_deadline_exact(-1);
}

/* tv_nsec stays in [0, 1e9) whatever the carry or borrow: values around
 * multiples of a second, in both directions. */
static void deadline_in_result_is_normalized(void **state)
{
    (void)state;
    static const int64_t timeouts[] = {
        1, -1, 999999999, -999999999, NSEC, -NSEC, NSEC + 1, -NSEC - 1, 2 * NSEC - 1,
        -2 * NSEC + 1, 123456789, -123456789, 500000000, -500000000,
    };
    for (size_t i = 0; i < sizeof timeouts / sizeof timeouts[0]; i++)
        assert_deadline_exact(timeouts[i]);
    /* Every sub-second offset in 1 ms steps, so the carry happens at some
     * point whatever the current tv_nsec. */
    for (int64_t ns = -NSEC; ns <= NSEC; ns += FX_NSEC_PER_MSEC)
        assert_deadline_exact(ns);
}

/* The clock is CLOCK_MONOTONIC: the bracket above uses it, and the result is
 * nowhere near CLOCK_REALTIME (decades away from boot time). */
static void deadline_in_uses_the_monotonic_clock(void **state)
{
    (void)state;
    struct timespec d = assert_deadline_exact(0);
    struct timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    int64_t gap = fxt_ts_ns(&real) - fxt_ts_ns(&d);
    assert_true(gap > 3600 * NSEC || gap < -3600 * NSEC);
}

/* The largest timeout (about 292 years) is a deadline that far in the future:
 * never wrapped into the past. With a 64-bit time_t the exact sum is
 * representable and is the result; were it not, the result would saturate to
 * the largest time_t with tv_nsec 999999999. */
static void deadline_in_int64_max_is_far_future_not_wrapped(void **state)
{
    (void)state;
    struct timespec before, after;
    clock_gettime(CLOCK_MONOTONIC, &before);
    struct timespec d = fx_deadline_in(INT64_MAX);
    clock_gettime(CLOCK_MONOTONIC, &after);
    assert_normalized(d);
    if (sizeof(time_t) >= sizeof(int64_t)) {
        assert_true(exact_cmp(exact_add(before, INT64_MAX), d) <= 0);
        assert_true(exact_cmp(exact_add(after, INT64_MAX), d) >= 0);
    } else {
        /* 32-bit time_t: the sum does not fit, the result saturates. */
        assert_true((int64_t)d.tv_sec == INT32_MAX);
        assert_true(d.tv_nsec == 999999999L);
    }
}

/* The most negative timeout gives a deadline long past (negative tv_sec): it
 * does not wrap into the future. With a 64-bit time_t that is exactly
 * now - 9223372036.854775808 s; with a 32-bit one the sum does not fit and
 * the result saturates to the smallest time_t with tv_nsec 0. */
static void deadline_in_int64_min_is_in_the_past(void **state)
{
    (void)state;
    struct timespec d;
    if (sizeof(time_t) >= sizeof(int64_t)) {
        d = assert_deadline_exact(INT64_MIN);
    } else {
        d = fx_deadline_in(INT64_MIN);
        assert_normalized(d);
        assert_true((int64_t)d.tv_sec == INT32_MIN);
        assert_true(d.tv_nsec == 0);
    }
    assert_true(d.tv_sec < 0);
}

/* fx_deadline_from ---------------------------------------------------------- */

/* ns of a - b. */
static int64_t ts_diff_ns(struct timespec a, struct timespec b)
{
    return ((int64_t)a.tv_sec - (int64_t)b.tv_sec) * NSEC + ((int64_t)a.tv_nsec - b.tv_nsec);
}

/* Generous slack for a loaded machine: the conversion reads two clocks, and
 * a preemption between the test's reads and the call's moves the result. */
#define FROM_SLACK_NS (2 * NSEC)

/* A CLOCK_REALTIME time 30 s ahead becomes a monotonic deadline 30 s ahead
 * (not the monotonic time decades ahead that its raw value would be). */
static void deadline_from_realtime_keeps_the_remaining_time(void **state)
{
    (void)state;
    struct timespec rt, before, after, d = {0, 0};
    clock_gettime(CLOCK_MONOTONIC, &before);
    clock_gettime(CLOCK_REALTIME, &rt);
    struct timespec abs = rt;
    abs.tv_sec += 30;
    assert_int_equal(fx_deadline_from(CLOCK_REALTIME, &abs, &d), 0);
    clock_gettime(CLOCK_MONOTONIC, &after);
    assert_normalized(d);
    int64_t lo = ts_diff_ns(d, after), hi = ts_diff_ns(d, before);
    assert_true(lo >= 30 * NSEC - FROM_SLACK_NS);
    assert_true(hi <= 30 * NSEC + FROM_SLACK_NS);
}

/* CLOCK_MONOTONIC passes through unchanged, even an odd or passed value. */
static void deadline_from_monotonic_is_the_time_itself(void **state)
{
    (void)state;
    const struct timespec in[] = {{12345, 678}, {0, 0}, {-5, 999999999}, {1, 0}};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        struct timespec d = {7, 7};
        assert_int_equal(fx_deadline_from(CLOCK_MONOTONIC, &in[i], &d), 0);
        assert_true(d.tv_sec == in[i].tv_sec);
        assert_true(d.tv_nsec == in[i].tv_nsec);
    }
}

/* A wall-clock time already passed gives a deadline already passed: a timed
 * lock of a held mutex times out at once. */
static void deadline_from_past_realtime_has_passed(void **state)
{
    (void)state;
    struct timespec rt, now, d;
    clock_gettime(CLOCK_REALTIME, &rt);
    rt.tv_sec -= 10;
    assert_int_equal(fx_deadline_from(CLOCK_REALTIME, &rt, &d), 0);
    clock_gettime(CLOCK_MONOTONIC, &now);
    assert_normalized(d);
    assert_true(ts_diff_ns(now, d) >= 10 * NSEC - FROM_SLACK_NS);

    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fx_mutex_lock(&m), 0);
    assert_int_equal(fx_mutex_timedlock(&m, &d), ETIMEDOUT);
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

/* The epoch and the most negative time_t are long passed, not wrapped into
 * the future. */
static void deadline_from_far_past_realtime_is_passed_not_wrapped(void **state)
{
    (void)state;
    const struct timespec in[] = {{0, 0}, {(time_t)(sizeof(time_t) == 8 ? INT64_MIN : INT32_MIN), 0}};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        struct timespec d;
        assert_int_equal(fx_deadline_from(CLOCK_REALTIME, &in[i], &d), 0);
        assert_normalized(d);
        assert_true(d.tv_sec < 0);
    }
}

/* The largest time_t stays the far future, not wrapped into the past. */
static void deadline_from_far_future_realtime_is_far_future_not_wrapped(void **state)
{
    (void)state;
    struct timespec abs = {(time_t)(sizeof(time_t) == 8 ? INT64_MAX : INT32_MAX), 999999999L};
    struct timespec now, d;
    assert_int_equal(fx_deadline_from(CLOCK_REALTIME, &abs, &d), 0);
    clock_gettime(CLOCK_MONOTONIC, &now);
    assert_normalized(d);
    /* More than ten years ahead, whether time_t ends in 2038 or later. */
    assert_true((int64_t)d.tv_sec - (int64_t)now.tv_sec > 10 * 365 * 86400LL);
}

/* A time 30 s ahead on CLOCK_BOOTTIME and CLOCK_TAI is 30 s ahead too. */
static void deadline_from_other_clocks_keeps_the_remaining_time(void **state)
{
    (void)state;
    const int clocks[] = {CLOCK_BOOTTIME, CLOCK_TAI, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE};
    for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
        struct timespec c, before, after, d;
        clock_gettime(CLOCK_MONOTONIC, &before);
        assert_int_equal(clock_gettime(clocks[i], &c), 0);
        c.tv_sec += 30;
        assert_int_equal(fx_deadline_from(clocks[i], &c, &d), 0);
        clock_gettime(CLOCK_MONOTONIC, &after);
        assert_normalized(d);
        assert_true(ts_diff_ns(d, after) >= 30 * NSEC - FROM_SLACK_NS);
        assert_true(ts_diff_ns(d, before) <= 30 * NSEC + FROM_SLACK_NS);
    }
}

/* Bad input: EINVAL and nothing stored. */
static void deadline_from_bad_tv_nsec_is_einval(void **state)
{
    (void)state;
    const long bad[] = {-1, 1000000000L, 2000000000L};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct timespec abs = {100, bad[i]}, d = {7, 7};
        assert_int_equal(fx_deadline_from(CLOCK_REALTIME, &abs, &d), EINVAL);
        assert_int_equal(fx_deadline_from(CLOCK_MONOTONIC, &abs, &d), EINVAL);
        assert_true(d.tv_sec == 7 && d.tv_nsec == 7);
    }
}

static void deadline_from_null_is_einval(void **state)
{
    (void)state;
    struct timespec abs = {100, 0}, d = {7, 7};
    assert_int_equal(fx_deadline_from(CLOCK_REALTIME, NULL, &d), EINVAL);
    assert_int_equal(fx_deadline_from(CLOCK_REALTIME, &abs, NULL), EINVAL);
    assert_int_equal(fx_deadline_from(CLOCK_MONOTONIC, NULL, &d), EINVAL);
    assert_true(d.tv_sec == 7 && d.tv_nsec == 7);
}

/* CPU-time clocks and clock ids that do not exist are refused. */
static void deadline_from_cpu_or_unknown_clock_is_einval(void **state)
{
    (void)state;
    const int bad[] = {CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, -1, 12345};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct timespec abs = {100, 0}, d = {7, 7};
        assert_int_equal(fx_deadline_from(bad[i], &abs, &d), EINVAL);
        assert_true(d.tv_sec == 7 && d.tv_nsec == 7);
    }
}

/* The pthread-style use: a CLOCK_REALTIME deadline 200 ms ahead, converted,
 * makes a timed lock of a held mutex time out after about 200 ms, not wait
 * for the decades its raw value means on CLOCK_MONOTONIC. */
static void deadline_from_realtime_times_out_a_timed_lock(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fx_mutex_lock(&m), 0);
    struct timespec rt, d;
    clock_gettime(CLOCK_REALTIME, &rt);
    rt.tv_nsec += 200 * 1000000L;
    if (rt.tv_nsec >= NSEC) {
        rt.tv_nsec -= NSEC;
        rt.tv_sec += 1;
    }
    int64_t t0 = fxt_now_ns();
    assert_int_equal(fx_deadline_from(CLOCK_REALTIME, &rt, &d), 0);
    assert_int_equal(fx_mutex_timedlock(&m, &d), ETIMEDOUT);
    int64_t waited = fxt_now_ns() - t0;
    assert_true(waited >= 200 * 1000000LL - FROM_SLACK_NS);
    assert_true(waited < 60 * NSEC); /* the ctest TIMEOUT is the real bound */
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

/* fxi_ts_sub (src/internal/deadline.h), the time left until a deadline:
 * exact, normalised, and saturating at the ends of time_t instead of
 * wrapping, as the far deadline of fx_deadline_from(CLOCK_REALTIME,
 * {LONG_MAX, 0}) needs (its nanoseconds do not fit in an int64_t). */
static void ts_sub_is_exact_and_saturates_at_the_ends_of_time_t(void **state)
{
    (void)state;
    const time_t tmax = (time_t)(sizeof(time_t) == 8 ? INT64_MAX : INT32_MAX);
    const time_t tmin = (time_t)(sizeof(time_t) == 8 ? INT64_MIN : INT32_MIN);
    static const struct {
        struct timespec a, b, want;
    } rows[] = {
        {{5, 300}, {2, 100}, {3, 200}},
        {{5, 100}, {2, 300}, {2, 999999800}}, /* a borrow */
        {{2, 100}, {5, 300}, {-4, 999999800}},
        {{7, 0}, {7, 0}, {0, 0}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct timespec d = fxi_ts_sub(rows[i].a, rows[i].b);
        assert_true(d.tv_sec == rows[i].want.tv_sec);
        assert_int_equal(d.tv_nsec, rows[i].want.tv_nsec);
    }
    /* The farthest deadline minus a time since boot: exact, positive. */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    struct timespec far = {tmax, 999999999L}, d = fxi_ts_sub(far, now);
    assert_true(d.tv_sec == tmax - now.tv_sec);
    assert_int_equal(d.tv_nsec, 999999999L - now.tv_nsec);
    /* Past either end: saturated. */
    struct timespec below = {-1, 999999999L}, low = {tmin, 0};
    d = fxi_ts_sub(far, below);
    assert_true(d.tv_sec == tmax && d.tv_nsec == 999999999L);
    d = fxi_ts_sub(low, (struct timespec){1, 0});
    assert_true(d.tv_sec == tmin && d.tv_nsec == 0);
    d = fxi_ts_sub(low, (struct timespec){0, 1}); /* only the borrow passes it */
    assert_true(d.tv_sec == tmin && d.tv_nsec == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deadline_in_zero_is_now),
        cmocka_unit_test(deadline_in_positive_adds_the_timeout),
        cmocka_unit_test(deadline_in_negative_is_in_the_past),
        cmocka_unit_test(deadline_in_result_is_normalized),
        cmocka_unit_test(deadline_in_uses_the_monotonic_clock),
        cmocka_unit_test(deadline_in_int64_max_is_far_future_not_wrapped),
        cmocka_unit_test(deadline_in_int64_min_is_in_the_past),
        cmocka_unit_test(deadline_from_realtime_keeps_the_remaining_time),
        cmocka_unit_test(deadline_from_monotonic_is_the_time_itself),
        cmocka_unit_test(deadline_from_past_realtime_has_passed),
        cmocka_unit_test(deadline_from_far_past_realtime_is_passed_not_wrapped),
        cmocka_unit_test(deadline_from_far_future_realtime_is_far_future_not_wrapped),
        cmocka_unit_test(deadline_from_other_clocks_keeps_the_remaining_time),
        cmocka_unit_test(deadline_from_bad_tv_nsec_is_einval),
        cmocka_unit_test(deadline_from_null_is_einval),
        cmocka_unit_test(deadline_from_cpu_or_unknown_clock_is_einval),
        cmocka_unit_test(deadline_from_realtime_times_out_a_timed_lock),
        cmocka_unit_test(ts_sub_is_exact_and_saturates_at_the_ends_of_time_t),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
