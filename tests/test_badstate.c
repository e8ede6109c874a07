/*
 * tests/test_badstate.c - every operation on every slot value class.
 *
 * For each row of the table below (a primitive, one of its int32 slots, one
 * operation), the slot is set to each value of a fixed set of about 6,200
 * values (every value in [-1024, 1024], every single-bit and all-but-one-bit
 * pattern, 0x55555555, 0xAAAAAAAA, INT32_MIN, INT32_MAX, and 4,000 random
 * values from a fixed seed), the other slots to zero, and the operation is
 * called once. The row's check then states the result: EINVAL for a value the
 * library never writes (and the slot left as it was), the documented result
 * for the values it does write (and the slot the operation leaves). No call
 * may crash or hang: blocking operations appear only as timed operations with
 * a deadline that has passed or is 200 us away, and every call must return
 * within a second.
 *
 * Each row runs in a forked child with an alarm, so a crash or a hang is
 * reported as that row's failure, with the value that caused it.
 *
 * Adding a primitive: write its op and check functions and add its rows to
 * `rows` (the value of the slot under test is `v`; the object is zero apart
 * from that slot).
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <errno.h>
#include <futexsync/counter.h>
#include <futexsync/futex.h>
#include <futexsync/mutex.h>
#include <futexsync/time.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The values ----------------------------------------------------------------- */

#define NRANDOM 4000
static int32_t values[2049 + 64 + 4 + NRANDOM];
static size_t nvalues;

static void build_values(void)
{
    nvalues = 0;
    for (int32_t v = -1024; v <= 1024; v++)
        values[nvalues++] = v;
    for (int b = 0; b < 32; b++) {
        values[nvalues++] = (int32_t)(1u << b);
        values[nvalues++] = (int32_t)~(1u << b);
    }
    values[nvalues++] = (int32_t)0x55555555u;
    values[nvalues++] = (int32_t)0xAAAAAAAAu;
    values[nvalues++] = INT32_MIN;
    values[nvalues++] = INT32_MAX;
    uint64_t s = 0x2545F4914F6CDD1DULL; /* fixed seed: the same values every run */
    for (int i = 0; i < NRANDOM; i++) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        values[nvalues++] = (int32_t)(uint32_t)((s * 0x2545F4914F6CDD1DULL) >> 32);
    }
}

/* Deadlines. */
static struct timespec past(void) { return (struct timespec){.tv_sec = -1, .tv_nsec = 0}; }
static struct timespec soon(void) { return fx_deadline_in(200 * FX_NSEC_PER_USEC); }
static struct timespec bad_nsec(void) { return (struct timespec){.tv_sec = 0, .tv_nsec = 1000000000L}; }

/* The table ------------------------------------------------------------------ */

/* Up to 4 int32 slots; slot i is obj.s[i]. */
struct object {
    int32_t s[4];
};

struct row {
    const char *name;
    int slot;                                   /* the slot set to v */
    bool (*applies)(int32_t v);                 /* NULL: every value */
    int (*op)(struct object *o, int32_t v);     /* returns the result */
    /* NULL when the result and the slots are as documented, else why not. */
    const char *(*check)(int32_t v, int r, const struct object *after);
};

/* --- fx_mutex: one slot, state. The values the library writes. ------------ */

static bool mutex_written(int32_t v)
{
    return v == FX_MUTEX_UNLOCKED || v == FX_MUTEX_LOCKED || v == FX_MUTEX_CONTENDED;
}
static bool mutex_nonblocking(int32_t v) { return !(v == FX_MUTEX_LOCKED || v == FX_MUTEX_CONTENDED); }

/* EINVAL and the slot untouched, for a value the library never writes. */
static const char *never_written(int32_t v, int r, int32_t after)
{
    if (r != EINVAL)
        return "a value the library never writes did not give EINVAL";
    if (after != v)
        return "a value the library never writes was overwritten";
    return NULL;
}

static int op_mutex_init(struct object *o, int32_t v)
{
    (void)v;
    fx_mutex_init((fx_mutex *)o);
    return 0;
}
static const char *ck_mutex_init(int32_t v, int r, const struct object *a)
{
    (void)v, (void)r;
    return a->s[0] == FX_MUTEX_UNLOCKED ? NULL : "init did not make the mutex unlocked";
}

static int op_mutex_trylock(struct object *o, int32_t v)
{
    (void)v;
    return fx_mutex_trylock((fx_mutex *)o);
}
static const char *ck_mutex_trylock(int32_t v, int r, const struct object *a)
{
    if (!mutex_written(v))
        return never_written(v, r, a->s[0]);
    if (v == FX_MUTEX_UNLOCKED)
        return r == 0 && a->s[0] == FX_MUTEX_LOCKED ? NULL : "trylock of a free mutex failed";
    return r == EBUSY && a->s[0] == v ? NULL : "trylock of a held mutex is not EBUSY/unchanged";
}

static int op_mutex_lock(struct object *o, int32_t v)
{
    (void)v;
    return fx_mutex_lock((fx_mutex *)o);
}
static const char *ck_mutex_lock(int32_t v, int r, const struct object *a)
{
    if (!mutex_written(v))
        return never_written(v, r, a->s[0]);
    return r == 0 && a->s[0] == FX_MUTEX_LOCKED ? NULL : "lock of a free mutex failed";
}

/* A timed lock on a held state times out, leaving the word CONTENDED (it
 * marked the word before it slept). */
static const char *ck_mutex_timed(int32_t v, int r, const struct object *a)
{
    if (!mutex_written(v))
        return never_written(v, r, a->s[0]);
    if (v == FX_MUTEX_UNLOCKED)
        return r == 0 && a->s[0] == FX_MUTEX_LOCKED ? NULL : "timedlock of a free mutex failed";
    if (r != ETIMEDOUT)
        return "timedlock of a held mutex did not time out";
    return a->s[0] == FX_MUTEX_CONTENDED ? NULL : "a timed-out waiter left the word not CONTENDED";
}
static int op_mutex_timed_past(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = past();
    return fx_mutex_timedlock((fx_mutex *)o, &d);
}
static int op_mutex_timed_soon(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = soon();
    return fx_mutex_timedlock((fx_mutex *)o, &d);
}
static int op_mutex_timed_bad(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = bad_nsec();
    return fx_mutex_timedlock((fx_mutex *)o, &d);
}
static const char *ck_mutex_timed_bad(int32_t v, int r, const struct object *a)
{
    if (!mutex_written(v))
        return never_written(v, r, a->s[0]);
    if (v == FX_MUTEX_UNLOCKED) /* POSIX: it can succeed at once, so it does */
        return r == 0 && a->s[0] == FX_MUTEX_LOCKED ? NULL : "a free mutex was not taken";
    return r == EINVAL ? NULL : "a bad tv_nsec on a held mutex did not give EINVAL";
}

static int op_mutex_unlock(struct object *o, int32_t v)
{
    (void)v;
    return fx_mutex_unlock((fx_mutex *)o);
}
static const char *ck_mutex_unlock(int32_t v, int r, const struct object *a)
{
    if (!mutex_written(v))
        return never_written(v, r, a->s[0]);
    if (v == FX_MUTEX_UNLOCKED)
        return r == EPERM && a->s[0] == FX_MUTEX_UNLOCKED ? NULL : "unlock of a free mutex is not EPERM";
    return r == 0 && a->s[0] == FX_MUTEX_UNLOCKED ? NULL : "unlock of a held mutex failed";
}

/* --- fx_counter: slots value (0) and waiters (1). --------------------------- */

static bool every_16th(int32_t v) { return ((uint32_t)v & 15u) == 5u; }

static int op_counter_load(struct object *o, int32_t v)
{
    return fx_counter_load((fx_counter *)o) == v ? 0 : -1;
}
static const char *ck_counter_same(int32_t v, int r, const struct object *a)
{
    if (r != 0)
        return "the operation's result is wrong";
    return a->s[0] == v && a->s[1] == 0 ? NULL : "the slots changed";
}

static const int32_t deltas[] = {1, -1, INT32_MAX, INT32_MIN, 0x40000001};
static int op_counter_add(struct object *o, int32_t v)
{
    fx_counter *c = (fx_counter *)o;
    uint32_t expect = (uint32_t)v;
    for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++) {
        expect += (uint32_t)deltas[i];
        if (fx_counter_add(c, deltas[i]) != (int32_t)expect)
            return -1;
    }
    return fx_counter_load(c) == (int32_t)expect ? 0 : -2;
}
static const char *ck_counter_add(int32_t v, int r, const struct object *a)
{
    uint32_t expect = (uint32_t)v;
    for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++)
        expect += (uint32_t)deltas[i];
    if (r != 0)
        return "add did not return value + delta modulo 2^32";
    return a->s[0] == (int32_t)expect && a->s[1] == 0 ? NULL : "add left the slots wrong";
}

static int op_counter_store(struct object *o, int32_t v)
{
    fx_counter_store((fx_counter *)o, (int32_t)~(uint32_t)v);
    return 0;
}
static const char *ck_counter_store(int32_t v, int r, const struct object *a)
{
    (void)r;
    return a->s[0] == (int32_t)~(uint32_t)v && a->s[1] == 0 ? NULL : "store left the slots wrong";
}

static int op_counter_wait_equal(struct object *o, int32_t v)
{
    struct timespec d = past();
    return fx_counter_wait((fx_counter *)o, v, &d);
}
static const char *ck_counter_wait_equal(int32_t v, int r, const struct object *a)
{
    if (r != 0)
        return "wait for the current value did not return 0";
    return a->s[0] == v && a->s[1] == 0 ? NULL : "wait changed the slots";
}

static int op_counter_wait_other_past(struct object *o, int32_t v)
{
    struct timespec d = past();
    return fx_counter_wait((fx_counter *)o, (int32_t)((uint32_t)v + 1u), &d);
}
static int op_counter_wait_other_soon(struct object *o, int32_t v)
{
    struct timespec d = soon();
    return fx_counter_wait((fx_counter *)o, (int32_t)((uint32_t)v + 1u), &d);
}
static const char *ck_counter_wait_other(int32_t v, int r, const struct object *a)
{
    if (r != ETIMEDOUT)
        return "wait for another value did not time out";
    return a->s[0] == v && a->s[1] == 0 ? NULL : "a timed-out wait left the slots changed";
}

static int op_counter_wait_bad(struct object *o, int32_t v)
{
    struct timespec d = bad_nsec();
    return fx_counter_wait((fx_counter *)o, (int32_t)((uint32_t)v + 1u), &d);
}
static const char *ck_counter_wait_bad(int32_t v, int r, const struct object *a)
{
    if (r != EINVAL)
        return "a bad tv_nsec did not give EINVAL";
    return a->s[0] == v && a->s[1] == 0 ? NULL : "the slots changed";
}

/* The waiters slot: never negative; a negative one is never written. */
static int op_counter_wait_waiters(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = past();
    return fx_counter_wait((fx_counter *)o, 1, &d); /* value 0: would block */
}
static const char *ck_counter_wait_waiters(int32_t v, int r, const struct object *a)
{
    if (v < 0) {
        if (r != EINVAL)
            return "a negative waiters slot did not give EINVAL";
    } else if (r != ETIMEDOUT) {
        return "a valid waiters slot did not let the wait time out";
    }
    return a->s[0] == 0 && a->s[1] == v ? NULL : "the wait did not restore the waiters slot";
}

static int op_counter_wait_waiters_fast(struct object *o, int32_t v)
{
    (void)v;
    return fx_counter_wait((fx_counter *)o, 0, NULL); /* the value already is 0 */
}
static const char *ck_counter_waiters_fast(int32_t v, int r, const struct object *a)
{
    if (r != 0)
        return "a wait that can return at once did not return 0";
    return a->s[0] == 0 && a->s[1] == v ? NULL : "the slots changed";
}

static int op_counter_add_waiters(struct object *o, int32_t v)
{
    (void)v;
    fx_counter *c = (fx_counter *)o;
    if (fx_counter_add(c, 7) != 7)
        return -1;
    fx_counter_store(c, -3);
    return fx_counter_load(c) == -3 ? 0 : -2;
}
static const char *ck_counter_add_waiters(int32_t v, int r, const struct object *a)
{
    if (r != 0)
        return "add/store/load gave wrong values";
    return a->s[0] == -3 && a->s[1] == v ? NULL : "add/store changed the waiters slot";
}

static int op_counter_init(struct object *o, int32_t v)
{
    fx_counter_init((fx_counter *)o, v);
    return 0;
}
static const char *ck_counter_init(int32_t v, int r, const struct object *a)
{
    (void)r;
    return a->s[0] == v && a->s[1] == 0 ? NULL : "init did not set value and clear waiters";
}

/* --- the futex layer: one slot, the word. ----------------------------------- */

static int op_futex_wait_equal_past(struct object *o, int32_t v)
{
    struct timespec d = past();
    return fx_futex_wait(&o->s[0], v, &d);
}
static int op_futex_wait_equal_soon(struct object *o, int32_t v)
{
    struct timespec d = soon();
    return fx_futex_wait(&o->s[0], v, &d);
}
static const char *ck_futex_timeout(int32_t v, int r, const struct object *a)
{
    if (r != ETIMEDOUT)
        return "a wait on the current value did not time out";
    return a->s[0] == v ? NULL : "the word changed";
}
static int op_futex_wait_other(struct object *o, int32_t v)
{
    return fx_futex_wait(&o->s[0], (int32_t)~(uint32_t)v, NULL);
}
static const char *ck_futex_eagain(int32_t v, int r, const struct object *a)
{
    if (r != EAGAIN)
        return "a wait on another value did not give EAGAIN";
    return a->s[0] == v ? NULL : "the word changed";
}
static int op_futex_wait_bad(struct object *o, int32_t v)
{
    struct timespec d = bad_nsec();
    return fx_futex_wait(&o->s[0], v, &d);
}
static const char *ck_futex_einval(int32_t v, int r, const struct object *a)
{
    if (r != EINVAL)
        return "a bad tv_nsec on a wait that would sleep did not give EINVAL";
    return a->s[0] == v ? NULL : "the word changed";
}
static int op_futex_wake(struct object *o, int32_t v)
{
    (void)v;
    if (fx_futex_wake(&o->s[0], 1) != 0 || fx_futex_wake(&o->s[0], INT32_MAX) != 0 ||
        fx_futex_wake(&o->s[0], 0) != 0)
        return -1;
    return fx_futex_wake(&o->s[0], -1) == -EINVAL ? 0 : -2;
}
static const char *ck_futex_wake(int32_t v, int r, const struct object *a)
{
    if (r != 0)
        return "wake with nobody waiting did not return 0 (or -EINVAL for count -1)";
    return a->s[0] == v ? NULL : "wake changed the word";
}

static const struct row rows[] = {
    {"mutex_init_any_state", 0, NULL, op_mutex_init, ck_mutex_init},
    {"mutex_trylock_any_state", 0, NULL, op_mutex_trylock, ck_mutex_trylock},
    {"mutex_lock_nonblocking_states", 0, mutex_nonblocking, op_mutex_lock, ck_mutex_lock},
    {"mutex_timedlock_past_any_state", 0, NULL, op_mutex_timed_past, ck_mutex_timed},
    {"mutex_timedlock_soon_any_state", 0, NULL, op_mutex_timed_soon, ck_mutex_timed},
    {"mutex_timedlock_bad_nsec_any_state", 0, NULL, op_mutex_timed_bad, ck_mutex_timed_bad},
    {"mutex_unlock_any_state", 0, NULL, op_mutex_unlock, ck_mutex_unlock},
    {"counter_init_any_value", 0, NULL, op_counter_init, ck_counter_init},
    {"counter_load_any_value", 0, NULL, op_counter_load, ck_counter_same},
    {"counter_add_any_value_wraps", 0, NULL, op_counter_add, ck_counter_add},
    {"counter_store_any_value", 0, NULL, op_counter_store, ck_counter_store},
    {"counter_wait_current_any_value", 0, NULL, op_counter_wait_equal, ck_counter_wait_equal},
    {"counter_wait_other_past_any_value", 0, NULL, op_counter_wait_other_past, ck_counter_wait_other},
    {"counter_wait_other_soon_some_values", 0, every_16th, op_counter_wait_other_soon,
     ck_counter_wait_other},
    {"counter_wait_bad_nsec_any_value", 0, NULL, op_counter_wait_bad, ck_counter_wait_bad},
    {"counter_wait_any_waiters", 1, NULL, op_counter_wait_waiters, ck_counter_wait_waiters},
    {"counter_wait_at_once_any_waiters", 1, NULL, op_counter_wait_waiters_fast,
     ck_counter_waiters_fast},
    {"counter_add_store_any_waiters", 1, NULL, op_counter_add_waiters, ck_counter_add_waiters},
    {"futex_wait_current_past_any_value", 0, NULL, op_futex_wait_equal_past, ck_futex_timeout},
    {"futex_wait_current_soon_some_values", 0, every_16th, op_futex_wait_equal_soon,
     ck_futex_timeout},
    {"futex_wait_other_any_value", 0, NULL, op_futex_wait_other, ck_futex_eagain},
    {"futex_wait_bad_nsec_any_value", 0, NULL, op_futex_wait_bad, ck_futex_einval},
    {"futex_wake_any_value", 0, NULL, op_futex_wake, ck_futex_wake},
};

/* The runner ------------------------------------------------------------------ */

static int run_row_child(void *arg)
{
    const struct row *row = arg;
    alarm(60); /* a hang becomes SIGALRM, reported by the parent */
    size_t checked = 0;
    for (size_t i = 0; i < nvalues; i++) {
        int32_t v = values[i];
        if (row->applies && !row->applies(v))
            continue;
        struct object o;
        memset(&o, 0, sizeof o);
        o.s[row->slot] = v;
        int64_t t0 = fxt_now_ns();
        int r = row->op(&o, v);
        int64_t dt = fxt_now_ns() - t0;
        const char *why = row->check(v, r, &o);
        if (why == NULL && dt > 1000000000LL)
            why = "the call took more than a second";
        if (why) {
            fprintf(stderr, "%s: slot %d = %d (0x%08x): result %d, slots after {%d, %d}: %s\n",
                    row->name, row->slot, (int)v, (unsigned)v, r, (int)o.s[0], (int)o.s[1], why);
            return 1;
        }
        checked++;
    }
    return checked > 0 ? 0 : 2;
}

static void run_row(void **state)
{
    const struct row *row = *state;
    /* 0: every value as documented; 1: a wrong result (printed); 2: no value
     * applied; 128 + SIGALRM: a hang; 128 + other: a crash. */
    assert_int_equal(fxt_run_child(run_row_child, (void *)row), 0);
}

/* NULL and misaligned objects: EINVAL from every entry point that can say it,
 * and no crash from those that cannot. */
static void null_and_misaligned_objects_give_einval(void **state)
{
    (void)state;
    int32_t buf[4] = {0, 0, 0, 0};
    void *mis = (char *)buf + 1;
    struct timespec d = past();
    void *bad[] = {NULL, mis};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(fx_mutex_lock(bad[i]), EINVAL);
        assert_int_equal(fx_mutex_trylock(bad[i]), EINVAL);
        assert_int_equal(fx_mutex_timedlock(bad[i], &d), EINVAL);
        assert_int_equal(fx_mutex_unlock(bad[i]), EINVAL);
        fx_mutex_init(bad[i]);
        assert_int_equal(fx_counter_wait(bad[i], 0, &d), EINVAL);
        assert_int_equal(fx_counter_add(bad[i], 5), 0);
        assert_int_equal(fx_counter_load(bad[i]), 0);
        fx_counter_store(bad[i], 5);
        fx_counter_init(bad[i], 5);
        assert_int_equal(fx_futex_wait(bad[i], 0, &d), EINVAL);
        assert_int_equal(fx_futex_wake(bad[i], 1), -EINVAL);
    }
    /* The misaligned calls wrote nothing. */
    for (int i = 0; i < 4; i++)
        assert_int_equal(buf[i], 0);
}

static void the_value_set_has_every_class(void **state)
{
    (void)state;
    assert_true(nvalues == sizeof values / sizeof values[0]);
    bool has_min = false, has_max = false;
    for (size_t i = 0; i < nvalues; i++) {
        has_min |= values[i] == INT32_MIN;
        has_max |= values[i] == INT32_MAX;
    }
    assert_true(has_min && has_max);
}

int main(void)
{
    build_values();
    enum { NROWS = sizeof rows / sizeof rows[0] };
    struct CMUnitTest tests[NROWS + 2];
    tests[0] = (struct CMUnitTest){.name = "the_value_set_has_every_class",
                                   .test_func = the_value_set_has_every_class};
    tests[1] = (struct CMUnitTest){.name = "null_and_misaligned_objects_give_einval",
                                   .test_func = null_and_misaligned_objects_give_einval};
    for (size_t i = 0; i < NROWS; i++)
        tests[i + 2] = (struct CMUnitTest){.name = rows[i].name,
                                           .test_func = run_row,
                                           .initial_state = (void *)&rows[i]};
    return _cmocka_run_group_tests("badstate", tests, NROWS + 2, NULL, NULL);
}
