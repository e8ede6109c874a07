/*
 * tests/test_time.c - fx_deadline_in(): now(CLOCK_MONOTONIC) + timeout_ns,
 * normalized, saturating instead of wrapping.
 *
 * Each check brackets the result between two CLOCK_MONOTONIC readings taken
 * just before and just after the call: the exact expected value is
 * before + timeout <= d <= after + timeout.
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <futexsync.h>
#include <stdint.h>
#include <time.h>

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

/* The most negative timeout gives a deadline long past (negative tv_sec),
 * exactly now - 9223372036.854775808 s: it does not wrap into the future. */
static void deadline_in_int64_min_is_in_the_past(void **state)
{
    (void)state;
    struct timespec d = assert_deadline_exact(INT64_MIN);
    assert_true(d.tv_sec < 0);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
