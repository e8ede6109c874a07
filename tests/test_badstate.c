/*
 * tests/test_badstate.c - every operation on every slot value class.
 *
 * For each row of the table below (a primitive, one of its int32 slots, one
 * operation), the slot is set to each value of a fixed set of 6,126 values
 * (every value in [-1024, 1024], every single-bit and all-but-one-bit
 * pattern, 0x55555555, 0xAAAAAAAA, INT32_MIN, INT32_MAX, 4,000 random
 * values from a fixed seed, and 9 fx_rmutex owner words: rmutex_words), the
 * other slots to the row's base values (zero unless the row says otherwise),
 * and the operation is called once. The row's
 * check then states the result: EINVAL for a value the library never writes
 * (and the slot left as it was), the documented result for the values it does
 * write (and the slots the operation leaves). Which values are written is
 * taken from each primitive's header and the state table at the top of its
 * source; the expected results and slots are the table's transitions for one
 * thread. No call may crash or hang: blocking operations appear only as timed
 * operations with a deadline that has passed or is 200 us away (or untimed
 * where the value cannot block), and every call must return within a second.
 *
 * Primitives: fx_mutex, fx_counter, the futex layer, fx_sem, fx_rwlock,
 * fx_cond (with its fx_mutex as a fifth slot), fx_barrier, fx_once, fx_rmutex,
 * and the async layer's waits on those words (deadlines passed, so nothing is
 * armed). The totals are printed first ("badstate: ... calls").
 *
 * Each row runs in a forked child with an alarm, so a crash or a hang is
 * reported as that row's failure, with the value that caused it.
 *
 * Adding a primitive: write its op and check functions and add its rows to
 * `rows` (the value of the slot under test is `v`; the other slots hold the
 * row's base values).
 */
#define _GNU_SOURCE
#include "fxtest.h"
#include "fxspec.h"

#include <errno.h>
#include <futexsync/async.h>
#include <futexsync/barrier.h>
#include <futexsync/cond.h>
#include <futexsync/counter.h>
#include <futexsync/futex.h>
#include <futexsync/layout.h>
#include <futexsync/mutex.h>
#include <futexsync/once.h>
#include <futexsync/rmutex.h>
#include <futexsync/rwlock.h>
#include <futexsync/sem.h>
#include <futexsync/time.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The values ----------------------------------------------------------------- */

#define NRANDOM 4000
/* The fx_rmutex owner words of FUTEXSYNC_LAYOUT 2 that the classes above
 * may miss: ORPHANED | WAITERS, and PROBED words (with WAITERS, LOCALNS) of
 * a live TID (1, init) and of one almost never in use (FX_RMUTEX_TID_MAX,
 * the largest the kernel can hand out; the check asks /proc all the same),
 * and that TID without PROBED. */
#define RM_DEAD_TID FX_RMUTEX_TID_MAX
static const int32_t rmutex_words[] = {
    FX_RMUTEX_ORPHANED | FX_RMUTEX_WAITERS,
    1 | FX_RMUTEX_PROBED,
    1 | FX_RMUTEX_PROBED | FX_RMUTEX_WAITERS,
    1 | FX_RMUTEX_PROBED | FX_RMUTEX_LOCALNS,
    1 | FX_RMUTEX_PROBED | FX_RMUTEX_LOCALNS | FX_RMUTEX_WAITERS,
    RM_DEAD_TID,
    RM_DEAD_TID | FX_RMUTEX_PROBED,
    RM_DEAD_TID | FX_RMUTEX_PROBED | FX_RMUTEX_WAITERS,
    RM_DEAD_TID | FX_RMUTEX_PROBED | FX_RMUTEX_LOCALNS | FX_RMUTEX_WAITERS,
};
#define NRMUTEX (sizeof rmutex_words / sizeof rmutex_words[0])
static int32_t values[2049 + 64 + 4 + NRANDOM + NRMUTEX];
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
    for (size_t i = 0; i < NRMUTEX; i++)
        values[nvalues++] = rmutex_words[i];
}

/* Deadlines. */
static struct timespec past(void) { return (struct timespec){.tv_sec = -1, .tv_nsec = 0}; }
static struct timespec soon(void) { return fx_deadline_in(200 * FX_NSEC_PER_USEC); }
static struct timespec bad_nsec(void) { return (struct timespec){.tv_sec = 0, .tv_nsec = 1000000000L}; }

/* The table ------------------------------------------------------------------ */

/* Up to 10 int32 slots; slot i is obj.s[i]. A condition variable uses slots
 * 0..3 and its mutex slot 4 (16 bytes after the cond: token 16). An fx_rmutex
 * (FX_RMUTEX_SIZE: 40 bytes on 64-bit targets, 24 on 32-bit ones, aligned as
 * a pointer) uses them all: owner 0, depth 1, then its reserved and link
 * slots; so the object is aligned as a pointer. The check functions state
 * slots 0..4; every slot from 5 on must be left 0 (no row's base sets one,
 * and only fx_rmutex reaches there: its link slots, which hold the owner's
 * robust-list entry only while it is held, NULL again after the unlock). */
#define NSLOTS 10
struct object {
    _Alignas(void *) int32_t s[NSLOTS];
};
_Static_assert(sizeof(struct object) >= FX_RMUTEX_SIZE, "an fx_rmutex fits in the object");

struct row {
    const char *name;
    int slot;                                   /* the slot set to v */
    bool (*applies)(int32_t v);                 /* NULL: every value */
    int (*op)(struct object *o, int32_t v);     /* returns the result */
    /* NULL when the result and the slots are as documented, else why not. */
    const char *(*check)(int32_t v, int r, const struct object *after);
    int32_t base[NSLOTS];                       /* the other slots (default 0) */
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

/* The waiters slot: never negative; a negative one is never written, nor
 * INT32_MAX, which the wait's increment would wrap (issue 19). */
static int op_counter_wait_waiters(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = past();
    return fx_counter_wait((fx_counter *)o, 1, &d); /* value 0: would block */
}
static const char *ck_counter_wait_waiters(int32_t v, int r, const struct object *a)
{
    if (v < 0 || v == INT32_MAX) {
        if (r != EINVAL)
            return "a negative (or INT32_MAX) waiters slot did not give EINVAL";
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

/* Whether the slots after the call are exactly {a0, a1, a2, a3, a4} and
 * every slot beyond them is still 0. */
static bool slots_are(const struct object *a, int32_t a0, int32_t a1, int32_t a2, int32_t a3,
                      int32_t a4)
{
    for (int i = 5; i < NSLOTS; i++)
        if (a->s[i] != 0)
            return false;
    return a->s[0] == a0 && a->s[1] == a1 && a->s[2] == a2 && a->s[3] == a3 && a->s[4] == a4;
}

/* --- fx_sem: slots value (0) and waiters (1). -------------------------------
 * Written: value 0 .. INT32_MAX (0 .. FX_SEM_VALUE_MAX, and above it for an
 * instant while a post at the maximum takes its increment back), waiters
 * 0 .. INT32_MAX - 1. Negative values are never written: EINVAL from the
 * operations that read the slot; a wait that would block refuses INT32_MAX
 * too (its increment would wrap). (A post reads waiters only to decide whether to wake:
 * src/sem.c P2, "a garbage negative count only costs a wake nobody needed".) */

static int op_sem_init_5(struct object *o, int32_t v)
{
    (void)v;
    return fx_sem_init((fx_sem *)o, 5);
}
static const char *ck_sem_init_5(int32_t v, int r, const struct object *a)
{
    (void)v;
    return r == 0 && slots_are(a, 5, 0, 0, 0, 0) ? NULL : "init did not set value 5, waiters 0";
}

static int op_sem_init_v(struct object *o, int32_t v)
{
    return fx_sem_init((fx_sem *)o, v);
}
static const char *ck_sem_init_v(int32_t v, int r, const struct object *a)
{
    if (v < 0 || v > FX_SEM_VALUE_MAX)
        return r == EINVAL && slots_are(a, v, 0, 0, 0, 0) ? NULL
                                                           : "an out-of-range value was accepted";
    return r == 0 && slots_are(a, v, 0, 0, 0, 0) ? NULL : "init of a valid value failed";
}

static int op_sem_post(struct object *o, int32_t v)
{
    (void)v;
    return fx_sem_post((fx_sem *)o);
}
static const char *ck_sem_post_value(int32_t v, int r, const struct object *a)
{
    if (v < 0)
        return never_written(v, r, a->s[0]);
    if (v >= FX_SEM_VALUE_MAX)
        return r == EOVERFLOW && slots_are(a, v, 0, 0, 0, 0) ? NULL
                                                              : "post at the maximum not EOVERFLOW/unchanged";
    return r == 0 && slots_are(a, v + 1, 0, 0, 0, 0) ? NULL : "post did not add one token";
}
/* A negative waiters slot is never written: every operation that reads it
 * gives EINVAL and changes nothing (issue 11, class 9). */
static const char *ck_sem_post_waiters(int32_t v, int r, const struct object *a)
{
    if (v < 0)
        return r == EINVAL && slots_are(a, 0, v, 0, 0, 0) ? NULL
                                                           : "post accepted a negative waiters slot";
    return r == 0 && slots_are(a, 1, v, 0, 0, 0) ? NULL
                                                  : "post did not add a token, or touched waiters";
}

static int op_sem_trywait(struct object *o, int32_t v)
{
    (void)v;
    return fx_sem_trywait((fx_sem *)o);
}
static const char *ck_sem_trywait_value(int32_t v, int r, const struct object *a)
{
    if (v < 0)
        return never_written(v, r, a->s[0]);
    if (v == 0)
        return r == EAGAIN && slots_are(a, 0, 0, 0, 0, 0) ? NULL : "trywait on 0 not EAGAIN";
    return r == 0 && slots_are(a, v - 1, 0, 0, 0, 0) ? NULL : "trywait did not take a token";
}
static const char *ck_sem_trywait_waiters(int32_t v, int r, const struct object *a)
{
    if (v < 0)
        return r == EINVAL && slots_are(a, 0, v, 0, 0, 0) ? NULL
                                                           : "trywait accepted a negative waiters slot";
    return r == EAGAIN && slots_are(a, 0, v, 0, 0, 0) ? NULL
                                                       : "trywait on 0 not EAGAIN, or touched waiters";
}

static bool sem_value_nonblocking(int32_t v) { return v != 0; }
static int op_sem_wait(struct object *o, int32_t v)
{
    (void)v;
    return fx_sem_wait((fx_sem *)o);
}
static const char *ck_sem_wait_value(int32_t v, int r, const struct object *a)
{
    if (v < 0)
        return never_written(v, r, a->s[0]);
    return r == 0 && slots_are(a, v - 1, 0, 0, 0, 0) ? NULL : "wait did not take a token";
}

static int op_sem_timed_past(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = past();
    return fx_sem_timedwait((fx_sem *)o, &d);
}
static int op_sem_timed_soon(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = soon();
    return fx_sem_timedwait((fx_sem *)o, &d);
}
static int op_sem_timed_bad(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = bad_nsec();
    return fx_sem_timedwait((fx_sem *)o, &d);
}
/* A token available is taken whatever the deadline (POSIX); on 0 the wait
 * times out and leaves the waiters slot as it found it. */
static const char *ck_sem_timed_value(int32_t v, int r, const struct object *a)
{
    if (v < 0)
        return never_written(v, r, a->s[0]);
    if (v > 0)
        return r == 0 && slots_are(a, v - 1, 0, 0, 0, 0) ? NULL : "an available token was not taken";
    return r == ETIMEDOUT && slots_are(a, 0, 0, 0, 0, 0) ? NULL
                                                          : "a wait on 0 did not time out cleanly";
}
static const char *ck_sem_timed_bad_value(int32_t v, int r, const struct object *a)
{
    if (v < 0)
        return never_written(v, r, a->s[0]);
    if (v > 0)
        return r == 0 && slots_are(a, v - 1, 0, 0, 0, 0) ? NULL : "an available token was not taken";
    return r == EINVAL && slots_are(a, 0, 0, 0, 0, 0) ? NULL
                                                       : "a bad tv_nsec on 0 did not give EINVAL";
}
static const char *ck_sem_timed_waiters(int32_t v, int r, const struct object *a)
{
    if (v < 0)
        return r == EINVAL && slots_are(a, 0, v, 0, 0, 0) ? NULL
                                                           : "a negative waiters slot did not give EINVAL";
    if (v == INT32_MAX) /* one more waiter would wrap: refused (issue 19) */
        return r == EINVAL && slots_are(a, 0, v, 0, 0, 0)
                   ? NULL
                   : "a waiters slot the increment would wrap did not give EINVAL";
    return r == ETIMEDOUT && slots_are(a, 0, v, 0, 0, 0) ? NULL
                                                          : "the wait did not time out and restore waiters";
}
/* A wait that finds a token (value 1) reads the waiters slot too. */
static const char *ck_sem_token_waiters(int32_t v, int r, const struct object *a)
{
    if (v < 0)
        return r == EINVAL && slots_are(a, 1, v, 0, 0, 0) ? NULL
                                                           : "a wait with a token accepted a negative waiters slot";
    return r == 0 && slots_are(a, 0, v, 0, 0, 0) ? NULL : "the wait did not take the token";
}
static const char *ck_sem_timed_bad_waiters(int32_t v, int r, const struct object *a)
{
    return r == EINVAL && slots_are(a, 0, v, 0, 0, 0) ? NULL
                                                       : "a bad tv_nsec (or waiters) did not give EINVAL";
}

static int op_sem_value(struct object *o, int32_t v)
{
    (void)v;
    return fx_sem_value((fx_sem *)o);
}
static const char *ck_sem_value(int32_t v, int r, const struct object *a)
{
    if (r != (v < 0 ? -EINVAL : v))
        return "fx_sem_value is not the value (or -EINVAL for a negative one)";
    return slots_are(a, v, 0, 0, 0, 0) ? NULL : "fx_sem_value changed the slots";
}

/* --- fx_rwlock: slots state (0) and writer_seq (1). --------------------------
 * Written: every state with bits 24..28 clear (the header: readers up to
 * FX_RWLOCK_MAX_READERS, WL, WP, RW, WW), and every writer_seq. The expected results are the transitions of the table at the
 * top of src/rwlock.c, for one thread and nobody asleep (tests/fxspec.h). */

#define RW_WL ((uint32_t)FX_RWLOCK_WRITE_LOCKED)
#define RW_WW ((uint32_t)FX_RWLOCK_WRITERS_WAITING)

static bool rw_rd_nonblocking(int32_t v) { return fxspec_rw_rd_nonblocking((uint32_t)v); }
static bool rw_wr_nonblocking(int32_t v) { return fxspec_rw_wr_nonblocking((uint32_t)v); }

static const char *rw_expect(int32_t v, int r, const struct object *a, int want, uint32_t s,
                             uint32_t seq)
{
    if ((uint32_t)v & FXSPEC_RW_BAD)
        return never_written(v, r, a->s[0]);
    if (r != want)
        return "the result is not the table's";
    if ((uint32_t)a->s[0] != s || (uint32_t)a->s[1] != seq)
        return "the state or writer_seq after the call is not the table's";
    return NULL;
}

static int op_rw_rdlock(struct object *o, int32_t v)
{
    (void)v;
    return fx_rwlock_rdlock((fx_rwlock *)o);
}
static int op_rw_timedrd_past(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = past();
    return fx_rwlock_timedrdlock((fx_rwlock *)o, &d);
}
static int op_rw_timedrd_soon(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = soon();
    return fx_rwlock_timedrdlock((fx_rwlock *)o, &d);
}
static int op_rw_timedrd_bad(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = bad_nsec();
    return fx_rwlock_timedrdlock((fx_rwlock *)o, &d);
}
static const char *ck_rw_rd(int32_t v, int r, const struct object *a)
{
    uint32_t s = (uint32_t)v, seq = 0;
    int want = fxspec_rw_rdlock(&s, &seq, FXSPEC_DL_PAST);
    return rw_expect(v, r, a, want, s, seq);
}
static const char *ck_rw_rd_bad(int32_t v, int r, const struct object *a)
{
    uint32_t s = (uint32_t)v, seq = 0;
    int want = fxspec_rw_rdlock(&s, &seq, FXSPEC_DL_BAD);
    return rw_expect(v, r, a, want, s, seq);
}

static int op_rw_wrlock(struct object *o, int32_t v)
{
    (void)v;
    return fx_rwlock_wrlock((fx_rwlock *)o);
}
static int op_rw_timedwr_past(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = past();
    return fx_rwlock_timedwrlock((fx_rwlock *)o, &d);
}
static int op_rw_timedwr_soon(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = soon();
    return fx_rwlock_timedwrlock((fx_rwlock *)o, &d);
}
static int op_rw_timedwr_bad(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = bad_nsec();
    return fx_rwlock_timedwrlock((fx_rwlock *)o, &d);
}
static const char *ck_rw_wr(int32_t v, int r, const struct object *a)
{
    uint32_t s = (uint32_t)v, seq = 0;
    int want = fxspec_rw_wrlock(&s, &seq, FXSPEC_DL_PAST);
    return rw_expect(v, r, a, want, s, seq);
}
static const char *ck_rw_wr_bad(int32_t v, int r, const struct object *a)
{
    uint32_t s = (uint32_t)v, seq = 0;
    int want = fxspec_rw_wrlock(&s, &seq, FXSPEC_DL_BAD);
    return rw_expect(v, r, a, want, s, seq);
}

static int op_rw_tryrd(struct object *o, int32_t v)
{
    (void)v;
    return fx_rwlock_tryrdlock((fx_rwlock *)o);
}
static const char *ck_rw_tryrd(int32_t v, int r, const struct object *a)
{
    uint32_t s = (uint32_t)v;
    int want = fxspec_rw_tryrdlock(&s);
    return rw_expect(v, r, a, want, s, 0);
}

static int op_rw_trywr(struct object *o, int32_t v)
{
    (void)v;
    return fx_rwlock_trywrlock((fx_rwlock *)o);
}
static const char *ck_rw_trywr(int32_t v, int r, const struct object *a)
{
    uint32_t s = (uint32_t)v;
    int want = fxspec_rw_trywrlock(&s);
    return rw_expect(v, r, a, want, s, 0);
}

static int op_rw_unlock(struct object *o, int32_t v)
{
    (void)v;
    return fx_rwlock_unlock((fx_rwlock *)o);
}
static const char *ck_rw_unlock(int32_t v, int r, const struct object *a)
{
    uint32_t s = (uint32_t)v, seq = 0;
    int want = fxspec_rw_unlock(&s, &seq);
    return rw_expect(v, r, a, want, s, seq);
}

static int op_rw_rdunlock(struct object *o, int32_t v)
{
    (void)v;
    return fx_rwlock_rdunlock((fx_rwlock *)o);
}
static const char *ck_rw_rdunlock(int32_t v, int r, const struct object *a)
{
    uint32_t s = (uint32_t)v, seq = 0;
    int want = fxspec_rw_rdunlock(&s, &seq);
    return rw_expect(v, r, a, want, s, seq);
}

static int op_rw_wrunlock(struct object *o, int32_t v)
{
    (void)v;
    return fx_rwlock_wrunlock((fx_rwlock *)o);
}
static const char *ck_rw_wrunlock(int32_t v, int r, const struct object *a)
{
    uint32_t s = (uint32_t)v, seq = 0;
    int want = fxspec_rw_wrunlock(&s, &seq);
    return rw_expect(v, r, a, want, s, seq);
}

static int op_rw_init(struct object *o, int32_t v)
{
    (void)v;
    fx_rwlock_init((fx_rwlock *)o);
    return 0;
}
static const char *ck_zero_all(int32_t v, int r, const struct object *a)
{
    (void)v, (void)r;
    return slots_are(a, 0, 0, 0, 0, 0) ? NULL : "init did not zero the object";
}

/* writer_seq: any value. A writer that sleeps renews its intent on it and
 * waits on it; when it gives up it takes WP/WW away and advances it again for
 * the wake of the writers it might leave asleep; the unlock that wakes a
 * writer advances it; all wrapping. */
static int op_rw_seq_timedwr(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = past();
    return fx_rwlock_timedwrlock((fx_rwlock *)o, &d); /* state WL: held */
}
static const char *ck_rw_seq_timedwr(int32_t v, int r, const struct object *a)
{
    return r == ETIMEDOUT && slots_are(a, (int32_t)RW_WL, (int32_t)((uint32_t)v + 2u), 0, 0, 0)
               ? NULL
               : "a writer on a held lock did not time out leaving WL alone and writer_seq "
                 "advanced twice (renewal, give-up)";
}
static int op_rw_seq_unlock(struct object *o, int32_t v)
{
    (void)v;
    return fx_rwlock_unlock((fx_rwlock *)o); /* state WL | WW */
}
static const char *ck_rw_seq_unlock(int32_t v, int r, const struct object *a)
{
    return r == 0 && slots_are(a, 0, (int32_t)((uint32_t)v + 1u), 0, 0, 0)
               ? NULL
               : "the unlock did not free the lock and advance writer_seq by one";
}
static int op_rw_seq_try(struct object *o, int32_t v)
{
    (void)v;
    fx_rwlock *l = (fx_rwlock *)o;
    int r = fx_rwlock_trywrlock(l);
    if (r != 0 || fx_rwlock_wrunlock(l) != 0)
        return -1;
    r = fx_rwlock_tryrdlock(l);
    if (r != 0 || fx_rwlock_rdunlock(l) != 0)
        return -2;
    return 0;
}
static const char *ck_rw_seq_same(int32_t v, int r, const struct object *a)
{
    return r == 0 && slots_are(a, 0, v, 0, 0, 0) ? NULL
                                                  : "the uncontended operations failed or touched writer_seq";
}

/* --- fx_cond: slots seq (0), waiters (1), mutex (2), park (3); its fx_mutex
 * in slot 4. ---------------------------------------------------------------
 * Written (src/cond.c's table): every seq; waiters >= 0; mutex 0 (none), 2
 * (several), 3 (any fx_rmutex) or a token = 0 or 1 (mod 4); park 0. Never written -> EINVAL
 * from the operations that read the slot: signal reads waiters; broadcast
 * waiters and park; a wait every slot and the mutex word. The mutex lies 16
 * bytes after the cond, so the token a waiter records is 16 (its offset). */

#define COND_TOKEN 16
#define COND_A FX_COND_ARMED
#define COND_B FX_COND_BCAST

static bool cond_token_written(int32_t t) { return fxspec_cond_token_written(t); }
static bool cond_token_never_written(int32_t t) { return !cond_token_written(t); }
static int32_t cond_advance(int32_t s) { return fxspec_cond_advance(s); }

static fx_cond *cond_of(struct object *o) { return (fx_cond *)&o->s[0]; }
static fx_mutex *cond_mutex_of(struct object *o) { return (fx_mutex *)&o->s[4]; }

static int op_cond_init(struct object *o, int32_t v)
{
    (void)v;
    fx_cond_init(cond_of(o));
    return 0;
}
static const char *ck_cond_init(int32_t v, int r, const struct object *a)
{
    (void)v, (void)r;
    return slots_are(a, 0, 0, 0, 0, FX_MUTEX_LOCKED) ? NULL
                                                     : "init did not zero the cond (or touched the mutex)";
}

static int op_cond_signal(struct object *o, int32_t v)
{
    (void)v;
    return fx_cond_signal(cond_of(o));
}
static int op_cond_broadcast(struct object *o, int32_t v)
{
    (void)v;
    return fx_cond_broadcast(cond_of(o));
}
/* Nobody waits (waiters 0): both return 0 and change nothing, whatever the
 * slots they do not read. */
static const char *ck_cond_notify_nobody(int32_t v, int r, const struct object *a, int slot)
{
    struct object want = {{0, 0, 0, 0, 0}};
    want.s[slot] = v;
    if (r != 0)
        return "a notify with no waiter did not return 0";
    return memcmp(a, &want, sizeof want) == 0 ? NULL : "a notify with no waiter changed a slot";
}
static const char *ck_cond_notify_seq(int32_t v, int r, const struct object *a)
{
    return ck_cond_notify_nobody(v, r, a, 0);
}
static const char *ck_cond_signal_mutex(int32_t v, int r, const struct object *a)
{
    return ck_cond_notify_nobody(v, r, a, 2);
}
static const char *ck_cond_signal_park(int32_t v, int r, const struct object *a)
{
    return ck_cond_notify_nobody(v, r, a, 3);
}
static const char *ck_cond_signal_waiters(int32_t v, int r, const struct object *a)
{
    if (v < 0)
        return never_written(v, r, a->s[1]);
    /* seq 0 is not armed: no advance; the wake finds nobody asleep. */
    return r == 0 && slots_are(a, 0, v, 0, 0, 0) ? NULL : "signal changed the slots";
}
/* One registered waiter (not asleep): signal advances an armed counter. */
static const char *ck_cond_signal_seq_one(int32_t v, int r, const struct object *a)
{
    int32_t want = (v & COND_A) ? cond_advance(v) : v;
    return r == 0 && slots_are(a, want, 1, 0, 0, 0) ? NULL
                                                     : "signal did not advance exactly an armed counter";
}
static const char *ck_cond_broadcast_seq_one(int32_t v, int r, const struct object *a)
{
    int32_t want = ((v & COND_A) ? cond_advance(v) : v) | COND_B;
    return r == 0 && slots_are(a, want, 1, 0, 0, 0) ? NULL
                                                     : "broadcast did not advance an armed counter and set BCAST";
}
static const char *ck_cond_broadcast_waiters(int32_t v, int r, const struct object *a)
{
    if (v < 0)
        return never_written(v, r, a->s[1]);
    if (v == 0)
        return r == 0 && slots_are(a, 0, 0, 0, 0, 0) ? NULL : "broadcast with no waiter changed slots";
    return r == 0 && slots_are(a, COND_B, v, 0, 0, 0) ? NULL
                                                       : "broadcast with waiters did not set BCAST only";
}
static const char *ck_cond_broadcast_park(int32_t v, int r, const struct object *a)
{
    if (v != 0)
        return never_written(v, r, a->s[3]);
    return r == 0 && slots_are(a, 0, 0, 0, 0, 0) ? NULL : "broadcast changed the slots";
}

static int op_cond_timed_past(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = past();
    return fx_cond_timedwait(cond_of(o), cond_mutex_of(o), &d);
}
static int op_cond_timed_soon(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = soon();
    return fx_cond_timedwait(cond_of(o), cond_mutex_of(o), &d);
}
static int op_cond_timed_bad(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = bad_nsec();
    return fx_cond_timedwait(cond_of(o), cond_mutex_of(o), &d);
}
static int op_cond_wait(struct object *o, int32_t v)
{
    (void)v;
    return fx_cond_wait(cond_of(o), cond_mutex_of(o));
}

/* A wait that times out (W1..W8 alone): registers (ARMED), records the
 * token, releases the mutex, times out, re-acquires it (as CONTENDED when
 * BCAST was set: it may have been moved to the mutex word), and as the last
 * waiter out clears BCAST. */
static const char *ck_cond_timed_seq(int32_t v, int r, const struct object *a)
{
    int32_t seq = (v | COND_A) & ~COND_B;
    int32_t m = (v & COND_B) ? FX_MUTEX_CONTENDED : FX_MUTEX_LOCKED;
    return r == ETIMEDOUT && slots_are(a, seq, 0, COND_TOKEN, 0, m)
               ? NULL
               : "the wait did not time out with the table's slots and the mutex held";
}
static const char *ck_cond_timed_waiters(int32_t v, int r, const struct object *a)
{
    if (v < 0)
        return r == EINVAL && slots_are(a, 0, v, 0, 0, FX_MUTEX_LOCKED)
                   ? NULL
                   : "a negative waiters slot did not give EINVAL (mutex kept)";
    if (v == INT32_MAX) /* one more waiter would wrap: refused up front (class 9) */
        return r == EINVAL && slots_are(a, 0, v, 0, 0, FX_MUTEX_LOCKED)
                   ? NULL
                   : "a waiters slot the increment would wrap did not give EINVAL (mutex kept)";
    /* Other waiters are counted: the token becomes MIXED (2). */
    return r == ETIMEDOUT && slots_are(a, COND_A, v, v == 0 ? COND_TOKEN : 2, 0, FX_MUTEX_LOCKED)
               ? NULL
               : "the wait did not time out, restore waiters and record the token";
}
static const char *ck_cond_timed_token(int32_t v, int r, const struct object *a)
{
    if (!cond_token_written(v))
        return r == EINVAL && slots_are(a, 0, 0, v, 0, FX_MUTEX_LOCKED)
                   ? NULL
                   : "a token never written did not give EINVAL (mutex kept)";
    /* A first waiter alone replaces what a past population left. */
    return r == ETIMEDOUT && slots_are(a, COND_A, 0, COND_TOKEN, 0, FX_MUTEX_LOCKED)
               ? NULL
               : "the wait did not time out and record its token";
}
static const char *ck_cond_timed_park(int32_t v, int r, const struct object *a)
{
    if (v != 0)
        return r == EINVAL && slots_are(a, 0, 0, 0, v, FX_MUTEX_LOCKED)
                   ? NULL
                   : "a non-zero park did not give EINVAL (mutex kept)";
    return r == ETIMEDOUT && slots_are(a, COND_A, 0, COND_TOKEN, 0, FX_MUTEX_LOCKED)
               ? NULL
               : "the wait did not time out";
}
/* The mutex word: never written -> EINVAL; free -> EPERM; held -> the wait
 * times out and returns with it LOCKED (its unlock woke nobody). */
static const char *ck_cond_timed_mutex_word(int32_t v, int r, const struct object *a)
{
    if (!mutex_written(v))
        return r == EINVAL && slots_are(a, 0, 0, 0, 0, v) ? NULL
                                                          : "a mutex word never written did not give EINVAL";
    if (v == FX_MUTEX_UNLOCKED)
        return r == EPERM && slots_are(a, 0, 0, 0, 0, 0) ? NULL : "a free mutex did not give EPERM";
    return r == ETIMEDOUT && slots_are(a, COND_A, 0, COND_TOKEN, 0, FX_MUTEX_LOCKED)
               ? NULL
               : "the wait did not time out with the mutex held";
}
/* A bad tv_nsec: EINVAL before anything is read or written. */
static const char *ck_cond_timed_bad(int32_t v, int r, const struct object *a, int slot)
{
    struct object want = {{0, 0, 0, 0, FX_MUTEX_LOCKED}};
    want.s[slot] = v;
    if (r != EINVAL)
        return "a bad tv_nsec did not give EINVAL";
    return memcmp(a, &want, sizeof want) == 0 ? NULL : "a bad tv_nsec changed a slot";
}
static const char *ck_cond_timed_bad_seq(int32_t v, int r, const struct object *a)
{
    return ck_cond_timed_bad(v, r, a, 0);
}
static const char *ck_cond_timed_bad_waiters(int32_t v, int r, const struct object *a)
{
    return ck_cond_timed_bad(v, r, a, 1);
}
static const char *ck_cond_timed_bad_mutex(int32_t v, int r, const struct object *a)
{
    return ck_cond_timed_bad(v, r, a, 2);
}
static const char *ck_cond_timed_bad_park(int32_t v, int r, const struct object *a)
{
    return ck_cond_timed_bad(v, r, a, 3);
}
/* fx_cond_wait (no deadline) only where it cannot block: values never
 * written. */
static bool negative(int32_t v) { return v < 0; }
static bool nonzero(int32_t v) { return v != 0; }
static bool mutex_word_nonblocking(int32_t v) { return !mutex_written(v) || v == 0; }
static const char *ck_cond_wait_waiters(int32_t v, int r, const struct object *a)
{
    return r == EINVAL && slots_are(a, 0, v, 0, 0, FX_MUTEX_LOCKED) ? NULL : "not EINVAL, or changed";
}
static const char *ck_cond_wait_token(int32_t v, int r, const struct object *a)
{
    return r == EINVAL && slots_are(a, 0, 0, v, 0, FX_MUTEX_LOCKED) ? NULL : "not EINVAL, or changed";
}
static const char *ck_cond_wait_park(int32_t v, int r, const struct object *a)
{
    return r == EINVAL && slots_are(a, 0, 0, 0, v, FX_MUTEX_LOCKED) ? NULL : "not EINVAL, or changed";
}
static const char *ck_cond_wait_mutex_word(int32_t v, int r, const struct object *a)
{
    int want = v == 0 ? EPERM : EINVAL;
    return r == want && slots_are(a, 0, 0, 0, 0, v) ? NULL : "not EPERM/EINVAL, or changed";
}

/* --- fx_barrier: slots state (0) and parties (1). ----------------------------
 * Written (src/barrier.c's table): parties 0 (unused) or the count of the
 * first wait, 1 .. FX_BARRIER_MAX_PARTIES; state: arrivals A (bits 0..14)
 * below the recorded count, the sleepers bit, any round number. A >= parties
 * or a parties slot out of range: never written -> EINVAL. The state rows use
 * a barrier of 3 parties (parties slot 3) and waits that pass 3. */

#define B_ROUND_1 FXSPEC_B_ROUND_1
#define B_PARTIES 3

static int op_barrier_init(struct object *o, int32_t v)
{
    (void)v;
    fx_barrier_init((fx_barrier *)o);
    return 0;
}

static int op_barrier_timed_past(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = past();
    return fx_barrier_timedwait((fx_barrier *)o, B_PARTIES, &d);
}
static int op_barrier_timed_soon(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = soon();
    return fx_barrier_timedwait((fx_barrier *)o, B_PARTIES, &d);
}
static int op_barrier_timed_bad(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = bad_nsec();
    return fx_barrier_timedwait((fx_barrier *)o, B_PARTIES, &d);
}
static int op_barrier_wait(struct object *o, int32_t v)
{
    (void)v;
    return fx_barrier_wait((fx_barrier *)o, B_PARTIES);
}
static int op_barrier_wait_other_count(struct object *o, int32_t v)
{
    (void)v;
    struct timespec d = past();
    return fx_barrier_timedwait((fx_barrier *)o, B_PARTIES + 1, &d);
}

/* The last arrival opens the next round (arrivals and sleepers cleared, the
 * round number + 1, wrapping); an earlier one times out and withdraws, having
 * set the sleepers bit before it slept. */
static const char *ck_barrier_state(int32_t v, int r, const struct object *a, bool bad)
{
    uint32_t s = (uint32_t)v;
    int32_t p = B_PARTIES;
    int want = fxspec_barrier_wait(&s, &p, B_PARTIES, bad ? FXSPEC_DL_BAD : FXSPEC_DL_PAST);
    if (want == EINVAL && !bad)
        return never_written(v, r, a->s[0]);
    if (r != want)
        return "the result is not the table's (serial, time-out and withdrawal, or EINVAL)";
    return slots_are(a, (int32_t)s, p, 0, 0, 0) ? NULL : "the state after the wait is not the table's";
}
static const char *ck_barrier_timed(int32_t v, int r, const struct object *a)
{
    return ck_barrier_state(v, r, a, false);
}
static const char *ck_barrier_timed_bad(int32_t v, int r, const struct object *a)
{
    return ck_barrier_state(v, r, a, true);
}
static bool barrier_nonblocking(int32_t v)
{
    return ((uint32_t)v & FXSPEC_B_ARRIVED) >= B_PARTIES - 1;
}
static const char *ck_barrier_other_count(int32_t v, int r, const struct object *a)
{
    return r == EINVAL && slots_are(a, v, B_PARTIES, 0, 0, 0)
               ? NULL
               : "a party count other than the recorded one did not give EINVAL unchanged";
}
static const char *ck_barrier_init(int32_t v, int r, const struct object *a)
{
    (void)v, (void)r;
    return slots_are(a, 0, 0, 0, 0, 0) ? NULL : "init did not zero the barrier";
}

/* The parties slot, state 0: a wait passing the recorded count (or 3 when
 * the slot holds no valid count) times out, is the serial thread of a
 * 1-party barrier, records 3 in an unused barrier, or gets EINVAL. */
static bool parties_in_range(int32_t p) { return p >= 1 && p <= FX_BARRIER_MAX_PARTIES; }
static int op_barrier_parties(struct object *o, int32_t v)
{
    struct timespec d = past();
    return fx_barrier_timedwait((fx_barrier *)o, parties_in_range(v) ? v : B_PARTIES, &d);
}
static const char *ck_barrier_parties(int32_t v, int r, const struct object *a)
{
    if (v != 0 && !parties_in_range(v))
        return never_written(v, r, a->s[1]);
    int32_t p = v == 0 ? B_PARTIES : v;
    if (p == 1)
        return r == FX_BARRIER_SERIAL_THREAD && slots_are(a, (int32_t)B_ROUND_1, 1, 0, 0, 0)
                   ? NULL
                   : "the only party of a round was not its serial thread";
    return r == ETIMEDOUT && slots_are(a, FX_BARRIER_SLEEPERS, p, 0, 0, 0)
               ? NULL
               : "the wait did not time out with the count recorded";
}

/* --- fx_once: the slot state (layout 2). ---------------------------------------
 * Written: 0 (not run), DONE (0x80000000), RUNNING | tid (tid in
 * 1..TID_MASK) with or without WAITERS, and with PROBED [| LOCALNS];
 * RUNNING alone (| WAITERS): abandoned, the kernel's mark of a dead
 * initialiser, run again at once. Never written -> EINVAL: any other value
 * without RUNNING, LOCALNS without PROBED, PROBED without a tid, a bit of
 * 22..26 or 29. A RUNNING word with a tid names a thread the caller would
 * wait for: the table runs only the values a call answers at once, and the
 * caller's own TID | PROBED (taken over: not inside its initialiser) is a
 * test of its own below. */

static bool once_written(int32_t v)
{
    if (v & FX_ONCE_RUNNING) {
        int32_t id = v & ~(FX_ONCE_RUNNING | FX_ONCE_WAITERS);
        if (id == 0)
            return true; /* abandoned */
        if ((id & FX_ONCE_LOCALNS) && !(id & FX_ONCE_PROBED))
            return false;
        return (id & FX_ONCE_TID_MASK) != 0 &&
               (id & ~(FX_ONCE_LOCALNS | FX_ONCE_PROBED | FX_ONCE_TID_MASK)) == 0;
    }
    return v == FX_ONCE_NOT_RUN || v == FX_ONCE_DONE;
}
static bool once_abandoned(int32_t v)
{
    return (v & ~FX_ONCE_WAITERS) == FX_ONCE_RUNNING;
}
static bool once_answers_at_once(int32_t v)
{
    return !(v & FX_ONCE_RUNNING) || once_abandoned(v) || !once_written(v);
}

static int once_runs;
static void once_count(void *arg)
{
    (void)arg;
    once_runs++;
}
static int op_once_call(struct object *o, int32_t v)
{
    (void)v;
    once_runs = 0;
    return fx_once_call((fx_once *)o, once_count, NULL);
}
static const char *ck_once_call(int32_t v, int r, const struct object *a)
{
    if (!once_written(v)) {
        if (once_runs != 0)
            return "the initialiser ran on a state never written";
        return never_written(v, r, a->s[0]);
    }
    if (v == FX_ONCE_NOT_RUN || once_abandoned(v))
        return r == 0 && once_runs == 1 && slots_are(a, FX_ONCE_DONE, 0, 0, 0, 0)
                   ? NULL
                   : "the first call did not run the initialiser once and publish DONE";
    return r == 0 && once_runs == 0 && slots_are(a, FX_ONCE_DONE, 0, 0, 0, 0)
               ? NULL
               : "a call on DONE did not return 0 at once";
}
static int op_once_null_fn(struct object *o, int32_t v)
{
    (void)v;
    return fx_once_call((fx_once *)o, NULL, NULL);
}
static const char *ck_once_null_fn(int32_t v, int r, const struct object *a)
{
    return r == EINVAL && slots_are(a, v, 0, 0, 0, 0) ? NULL : "a NULL function did not give EINVAL";
}

/* --- the async layer: the words it acts on (fx_mutex state, fx_counter
 * waiters and value, a raw futex word), with deadlines that have passed or a
 * bad tv_nsec: no wait is ever armed, so the results are immediate. ---------- */

static fx_async *async_waiter(void)
{
    static fx_async *w; /* one per forked row child */
    if (w == NULL && fx_async_create(&w, FX_ASYNC_AUTO) != 0)
        w = NULL;
    return w;
}

static int op_async_mutex_past(struct object *o, int32_t v)
{
    (void)v;
    fx_async *w = async_waiter();
    struct timespec d = past();
    return w ? fx_async_mutex_lock(w, (fx_mutex *)o, &d) : -1;
}
static int op_async_mutex_bad(struct object *o, int32_t v)
{
    (void)v;
    fx_async *w = async_waiter();
    struct timespec d = bad_nsec();
    return w ? fx_async_mutex_lock(w, (fx_mutex *)o, &d) : -1;
}
/* As fx_mutex_timedlock: a free mutex is taken whatever the deadline; a held
 * one times out, marked CONTENDED by the step that would have slept. */
static const char *ck_async_mutex_past(int32_t v, int r, const struct object *a)
{
    if (!mutex_written(v))
        return never_written(v, r, a->s[0]);
    if (v == FX_MUTEX_UNLOCKED)
        return r == 0 && a->s[0] == FX_MUTEX_LOCKED ? NULL : "a free mutex was not taken";
    return r == ETIMEDOUT && a->s[0] == FX_MUTEX_CONTENDED ? NULL
                                                          : "a held mutex did not time out CONTENDED";
}
/* A bad tv_nsec is seen before anything is armed or marked. */
static const char *ck_async_mutex_bad(int32_t v, int r, const struct object *a)
{
    if (!mutex_written(v))
        return never_written(v, r, a->s[0]);
    if (v == FX_MUTEX_UNLOCKED)
        return r == 0 && a->s[0] == FX_MUTEX_LOCKED ? NULL : "a free mutex was not taken";
    return r == EINVAL && a->s[0] == v ? NULL : "a bad tv_nsec on a held mutex: not EINVAL unchanged";
}

static int op_async_counter_other(struct object *o, int32_t v)
{
    (void)v;
    fx_async *w = async_waiter();
    struct timespec d = past();
    fx_counter *c = (fx_counter *)o;
    return w ? fx_async_counter_wait(w, c, (int32_t)((uint32_t)c->value + 1u), &d) : -1;
}
static const char *ck_async_counter_value(int32_t v, int r, const struct object *a)
{
    return r == ETIMEDOUT && slots_are(a, v, 0, 0, 0, 0) ? NULL
                                                          : "a wait for another value did not time out";
}
static const char *ck_async_counter_waiters(int32_t v, int r, const struct object *a)
{
    if (v < 0 || v == INT32_MAX) /* INT32_MAX: R1 would wrap it (issue 19) */
        return r == EINVAL && slots_are(a, 0, v, 0, 0, 0)
                   ? NULL
                   : "a negative (or INT32_MAX) waiters slot did not give EINVAL";
    return r == ETIMEDOUT && slots_are(a, 0, v, 0, 0, 0) ? NULL
                                                          : "the wait did not time out and restore waiters";
}
static int op_async_counter_current(struct object *o, int32_t v)
{
    fx_async *w = async_waiter();
    struct timespec d = past();
    return w ? fx_async_counter_wait(w, (fx_counter *)o, v, &d) : -1;
}
static const char *ck_async_counter_current(int32_t v, int r, const struct object *a)
{
    return r == 0 && slots_are(a, v, 0, 0, 0, 0) ? NULL : "a wait for the current value did not return 0";
}

static int op_async_futex_same(struct object *o, int32_t v)
{
    fx_async *w = async_waiter();
    struct timespec d = past();
    return w ? fx_async_futex_wait(w, &o->s[0], v, &d) : -1;
}
static int op_async_futex_other(struct object *o, int32_t v)
{
    fx_async *w = async_waiter();
    return w ? fx_async_futex_wait(w, &o->s[0], (int32_t)~(uint32_t)v, NULL) : -1;
}

/* --- fx_rmutex: slots owner (0) and depth (1). --------------------------------
 * Written (src/rmutex.c's table, FUTEXSYNC_LAYOUT 2): owner 0; ORPHANED with
 * or without WAITERS; NOTRECOVERABLE; or a held word: a TID in
 * 1 .. FX_RMUTEX_TID_MAX, alone (an owner whose death the kernel reports:
 * never judged by its TID, so a trylock on it is EBUSY, alive or dead, even
 * when the TID is the caller's own and the caller never acquired it) or with
 * PROBED (an owner without a robust list, judged by the liveness probe) and
 * then maybe LOCALNS (its process did not prove it runs in the initial PID
 * namespace: never judged, EBUSY), each with or without WAITERS. Anything
 * else (LOCALNS without PROBED, PROBED or LOCALNS without a TID, any of bits
 * 22..26, a TID above the maximum, a flag besides WAITERS on ORPHANED) ->
 * EINVAL from every operation. depth: the owner's count
 * 1 .. FX_RMUTEX_DEPTH_MAX plus INCONSISTENT; another value in the depth
 * slot of a mutex the caller owns -> EINVAL from re-entry, unlock and
 * consistent. A PROBED owner's TID is alive or dead: a trylock on a live
 * owner's mutex is EBUSY, on a dead one's EOWNERDEAD (the caller takes it
 * over, keeping WAITERS); the test asks /proc as the library does, before and
 * after the call, and accepts either answer only if the thread was born or
 * died in between. The probe judges only between processes that proved they
 * run in the initial PID namespace: elsewhere every PROBED owner is EBUSY.
 * The link slots hold the owner's robust-list entry while a thread with a
 * robust list holds the mutex, and are NULL again once it is released. */

#define RM_W ((uint32_t)FX_RMUTEX_WAITERS)
#define RM_P ((uint32_t)FX_RMUTEX_PROBED)
#define RM_L ((uint32_t)FX_RMUTEX_LOCALNS)

static uint32_t rm_held_tid(int32_t v)
{
    uint32_t u = (uint32_t)v;
    if ((u & (RM_P | RM_L)) == RM_L)
        return 0; /* LOCALNS without PROBED */
    uint32_t t = u & ~(RM_W | RM_P | RM_L);
    return t >= 1 && t <= (uint32_t)FX_RMUTEX_TID_MAX ? t : 0;
}
static bool rm_orphaned(int32_t v) { return ((uint32_t)v & ~RM_W) == (uint32_t)FX_RMUTEX_ORPHANED; }
static bool rm_written(int32_t v)
{
    return v == 0 || rm_orphaned(v) || v == FX_RMUTEX_NOTRECOVERABLE || rm_held_tid(v);
}

/* The identity word the library writes for the calling thread (the header:
 * its TID alone when the kernel reports its death, else TID | PROBED, and
 * LOCALNS unless its process proved it runs in the initial PID namespace),
 * read from a mutex it acquires; once per thread (each row's child is a new
 * process, so a new thread). */
static uint32_t rm_self(void)
{
    static pid_t for_tid;
    static uint32_t word;
    pid_t tid = fxt_gettid();
    if (for_tid != tid) {
        fx_rmutex m = FX_RMUTEX_INIT;
        assert_int_equal(fx_rmutex_trylock(&m), 0);
        word = (uint32_t)m.owner;
        assert_int_equal(fx_rmutex_unlock(&m), 0);
        assert_true((word & ~(RM_P | RM_L)) == (uint32_t)tid); /* our TID, no W */
        assert_true((word & RM_P) || !(word & RM_L));         /* no L without P */
        for_tid = tid;
    }
    return word;
}

/* Whether this process proves that it runs in the initial PID namespace, as
 * the library asks (the inode of its PID namespace is PROC_PID_INIT_INO): only
 * then does it judge a PROBED owner by its TID. */
static bool rm_initial_pidns(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 && st.st_ino == 0xEFFFFFFCu;
}

/* Whether a thread with this TID lives in user space (a zombie does not, nor
 * a kernel thread, which has no address space and can own no lock word).
 * Where the library's probe cannot see that (process_vm_readv refused, as
 * under qemu-user: fxtest.h), its documented fallback decides: any task
 * with that number is alive (kill(tid, 0) succeeds or says EPERM). */
static bool tid_alive(pid_t t)
{
    if (!fxt_zombies_look_dead()) {
        int saved = errno;
        bool alive = kill(t, 0) == 0 || errno == EPERM;
        errno = saved;
        return alive;
    }
    char path[40], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)t);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    char st;
    unsigned flags;
    if (p == NULL || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %u", &st, &flags) != 2)
        return false;
    return st != 'Z' && st != 'X' && st != 'x' && !(flags & 0x00200000u /* PF_KTHREAD */);
}

/* The calling thread keeps a record of the rmutexes it acquired (a word
 * naming it is its own only with the record): after a row's call left the
 * mutex held by the caller, release it through the library so that the
 * record forgets this address and the robust list lets go of the object,
 * then put the slots back as the call left them for the check. (A word
 * naming the caller that it never acquired is refused with EPERM and left
 * as it is.) */
static void rm_forget(struct object *o)
{
    int32_t self = (int32_t)rm_self();
    int32_t s0 = o->s[0], s1 = o->s[1];
    if (((uint32_t)s0 & ~RM_W) != (uint32_t)self)
        return;
    o->s[0] = self;
    o->s[1] = 1;
    fx_rmutex_unlock((fx_rmutex *)o);
    o->s[0] = s0;
    o->s[1] = s1;
}

/* Makes the caller the owner through the library (recorded), with depth d. */
static void rm_own(struct object *o, int32_t d)
{
    o->s[0] = 0;
    assert_int_equal(fx_rmutex_trylock((fx_rmutex *)o), 0);
    o->s[1] = d;
}

/* Whether the mutex is in a robust list: its entry (the last link slot) is
 * set. */
static bool rm_linked(const struct object *o)
{
    return ((const fx_rmutex *)(const void *)o)->link[FX_RMUTEX_LINKS - 1] != NULL;
}

static int rm_alive_before; /* -1: not a PROBED foreign TID the probe judges */
static int rm_linked_held;  /* the entry was set while the call left m held */
static int op_rm_trylock(struct object *o, int32_t v)
{
    uint32_t t = rm_held_tid(v);
    bool probed = ((uint32_t)v & (RM_P | RM_L)) == RM_P;
    rm_alive_before = t && probed && t != (uint32_t)fxt_gettid() ? tid_alive((pid_t)t) : -1;
    int r = fx_rmutex_trylock((fx_rmutex *)o);
    rm_linked_held = rm_linked(o);
    rm_forget(o);
    return r;
}
/* Taken by the caller: the word names it (W as given), depth 1 (| INC), and
 * the link slots held its robust-list entry exactly when it has a list (no
 * PROBED in its identity word). */
static const char *rm_taken(int r, const struct object *a, int want_r, int32_t word,
                            int32_t depth, const char *why)
{
    if (r != want_r || !slots_are(a, word, depth, 0, 0, 0))
        return why;
    bool robust = !(rm_self() & RM_P);
    return rm_linked_held == robust ? NULL
                                    : "the held mutex was not in the owner's robust list "
                                      "(or was, without one)";
}
static const char *ck_rm_trylock(int32_t v, int r, const struct object *a)
{
    uint32_t self = rm_self();
    uint32_t u = (uint32_t)v;
    if (!rm_written(v))
        return never_written(v, r, a->s[0]);
    if (v == 0)
        return rm_taken(r, a, 0, (int32_t)self, 1, "a free mutex was not taken at depth 1");
    if (rm_orphaned(v))
        return rm_taken(r, a, EOWNERDEAD, (int32_t)(self | (u & RM_W)),
                        1 | FX_RMUTEX_INCONSISTENT,
                        "an orphaned mutex was not taken with EOWNERDEAD, inconsistent, W kept");
    if (v == FX_RMUTEX_NOTRECOVERABLE)
        return r == ENOTRECOVERABLE && slots_are(a, v, 0, 0, 0, 0) ? NULL
                                                                    : "not ENOTRECOVERABLE unchanged";
    if (!(u & RM_P)) {
        /* The kernel reports this owner's death: never judged by its TID,
         * alive or dead, ours or not. */
        return r == EBUSY && slots_are(a, v, 0, 0, 0, 0) ? NULL
                                                          : "a kernel-tracked owner was not EBUSY";
    }
    if ((u & RM_L) || !rm_initial_pidns()) {
        /* Owner or caller not proven in the initial PID namespace. */
        return r == EBUSY && slots_are(a, v, 0, 0, 0, 0) ? NULL
                                                          : "an unprovable owner was not EBUSY";
    }
    int32_t over = (int32_t)(self | (u & RM_W)); /* taken over, W kept */
    if (rm_held_tid(v) == (uint32_t)fxt_gettid()) {
        /* Our TID, but we never acquired it: left by a dead thread that had
         * our TID, taken over like any dead owner's. */
        return rm_taken(r, a, EOWNERDEAD, over, 1 | FX_RMUTEX_INCONSISTENT,
                        "our TID | PROBED without our acquisition was not taken over");
    }
    bool after = tid_alive((pid_t)rm_held_tid(v));
    bool busy_ok = rm_alive_before == 1 || after, dead_ok = rm_alive_before == 0 || !after;
    if (r == EBUSY && busy_ok)
        return slots_are(a, v, 0, 0, 0, 0) ? NULL : "EBUSY changed the slots";
    if (r == EOWNERDEAD && dead_ok)
        return rm_taken(r, a, EOWNERDEAD, over, 1 | FX_RMUTEX_INCONSISTENT,
                        "a dead owner's mutex was not taken over (W kept, depth 1, inconsistent)");
    return "not EBUSY for a live owner / EOWNERDEAD for a dead one";
}

static int op_rm_owner(struct object *o, int32_t v)
{
    (void)v;
    return (int)fx_rmutex_owner((fx_rmutex *)o);
}
static const char *ck_rm_owner(int32_t v, int r, const struct object *a)
{
    int want = rm_written(v) ? (int)rm_held_tid(v) : -EINVAL;
    return r == want && slots_are(a, v, 0, 0, 0, 0) ? NULL : "fx_rmutex_owner is not the owner's TID";
}

/* Unlock and consistent by a thread that never acquired the mutex: EPERM for
 * every value written, the caller's own TID (with or without PROBED)
 * included -- a word naming the caller is its own only with its record. */
static int op_rm_unlock(struct object *o, int32_t v)
{
    (void)v;
    return fx_rmutex_unlock((fx_rmutex *)o);
}
static int op_rm_consistent(struct object *o, int32_t v)
{
    (void)v;
    return fx_rmutex_consistent((fx_rmutex *)o);
}
static const char *ck_rm_not_owner(int32_t v, int r, const struct object *a, int32_t depth)
{
    if (!rm_written(v))
        return r == EINVAL && slots_are(a, v, depth, 0, 0, 0) ? NULL
                                                              : "a value never written did not give EINVAL";
    return r == EPERM && slots_are(a, v, depth, 0, 0, 0) ? NULL : "not EPERM unchanged for a non-owner";
}
static const char *ck_rm_unlock_owner(int32_t v, int r, const struct object *a)
{
    return ck_rm_not_owner(v, r, a, 1);
}
static const char *ck_rm_consistent_owner(int32_t v, int r, const struct object *a)
{
    return ck_rm_not_owner(v, r, a, 1 | FX_RMUTEX_INCONSISTENT);
}

/* recover(tid): releases a held mutex whose owner's TID is tid (PROBED or
 * not) to ORPHANED (src/rmutex.c's table: T(|W) -> D, waking one sleeper if
 * W; the woken sleeper acquires with W); EPERM otherwise (free, orphaned
 * already, not recoverable). */
static int op_rm_recover(struct object *o, int32_t v)
{
    uint32_t t = rm_held_tid(v);
    return fx_rmutex_recover((fx_rmutex *)o, t ? (pid_t)t : 1);
}
static const char *ck_rm_recover(int32_t v, int r, const struct object *a)
{
    if (!rm_written(v))
        return never_written(v, r, a->s[0]);
    if (rm_held_tid(v)) {
        return r == 0 && slots_are(a, FX_RMUTEX_ORPHANED, 0, 0, 0, 0)
                   ? NULL
                   : "recover did not orphan the mutex";
    }
    return r == EPERM && slots_are(a, v, 0, 0, 0, 0) ? NULL : "recover of no owner is not EPERM";
}

static int op_rm_init(struct object *o, int32_t v)
{
    (void)v;
    fx_rmutex_init((fx_rmutex *)o);
    return 0;
}
/* The first reserved slot and the first slot of the link slots. */
#define RM_RESERVED_SLOT ((int)(offsetof(fx_rmutex, reserved) / sizeof(int32_t)))
#define RM_LINK_SLOT     ((int)(offsetof(fx_rmutex, link) / sizeof(int32_t)))

/* The depth slot of a mutex the caller owns (the op acquires it through the
 * library, then writes the depth slot). */
static bool rm_depth_written(int32_t d)
{
    return (d & ~(FX_RMUTEX_DEPTH_MASK | FX_RMUTEX_INCONSISTENT)) == 0 &&
           (d & FX_RMUTEX_DEPTH_MASK) != 0;
}
static int op_rm_depth_trylock(struct object *o, int32_t v)
{
    rm_own(o, v);
    int r = fx_rmutex_trylock((fx_rmutex *)o);
    rm_forget(o);
    return r;
}
static const char *ck_rm_depth_reenter(int32_t v, int r, const struct object *a)
{
    int32_t self = (int32_t)rm_self();
    if (!rm_depth_written(v))
        return r == EINVAL && slots_are(a, self, v, 0, 0, 0) ? NULL
                                                             : "a depth never written did not give EINVAL";
    if ((v & FX_RMUTEX_DEPTH_MASK) == FX_RMUTEX_DEPTH_MAX)
        return r == EAGAIN && slots_are(a, self, v, 0, 0, 0) ? NULL : "re-entry at the maximum not EAGAIN";
    return r == 0 && slots_are(a, self, v + 1, 0, 0, 0) ? NULL : "re-entry did not add one level";
}
static int op_rm_depth_unlock(struct object *o, int32_t v)
{
    rm_own(o, v);
    int r = fx_rmutex_unlock((fx_rmutex *)o);
    rm_forget(o);
    return r;
}
static const char *ck_rm_depth_unlock(int32_t v, int r, const struct object *a)
{
    int32_t self = (int32_t)rm_self();
    if (!rm_depth_written(v))
        return r == EINVAL && slots_are(a, self, v, 0, 0, 0) ? NULL
                                                             : "a depth never written did not give EINVAL";
    if ((v & FX_RMUTEX_DEPTH_MASK) > 1)
        return r == 0 && slots_are(a, self, v - 1, 0, 0, 0) ? NULL : "an inner unlock did not drop a level";
    /* The last level: free, or not recoverable if never made consistent. */
    int32_t owner = (v & FX_RMUTEX_INCONSISTENT) ? FX_RMUTEX_NOTRECOVERABLE : 0;
    return r == 0 && slots_are(a, owner, v, 0, 0, 0) ? NULL
                                                     : "the final unlock did not free (or doom) the mutex";
}
static int op_rm_depth_consistent(struct object *o, int32_t v)
{
    rm_own(o, v);
    int r = fx_rmutex_consistent((fx_rmutex *)o);
    rm_forget(o);
    return r;
}
static const char *ck_rm_depth_consistent(int32_t v, int r, const struct object *a)
{
    int32_t self = (int32_t)rm_self();
    if (!rm_depth_written(v) || !(v & FX_RMUTEX_INCONSISTENT))
        return r == EINVAL && slots_are(a, self, v, 0, 0, 0) ? NULL
                                                             : "consistent on no inconsistency did not give EINVAL";
    return r == 0 && slots_are(a, self, v & ~FX_RMUTEX_INCONSISTENT, 0, 0, 0)
               ? NULL
               : "consistent did not clear INCONSISTENT only";
}

static const struct row rows[] = {
    {"mutex_init_any_state", 0, NULL, op_mutex_init, ck_mutex_init, {0}},
    {"mutex_trylock_any_state", 0, NULL, op_mutex_trylock, ck_mutex_trylock, {0}},
    {"mutex_lock_nonblocking_states", 0, mutex_nonblocking, op_mutex_lock, ck_mutex_lock, {0}},
    {"mutex_timedlock_past_any_state", 0, NULL, op_mutex_timed_past, ck_mutex_timed, {0}},
    {"mutex_timedlock_soon_any_state", 0, NULL, op_mutex_timed_soon, ck_mutex_timed, {0}},
    {"mutex_timedlock_bad_nsec_any_state", 0, NULL, op_mutex_timed_bad, ck_mutex_timed_bad, {0}},
    {"mutex_unlock_any_state", 0, NULL, op_mutex_unlock, ck_mutex_unlock, {0}},
    {"counter_init_any_value", 0, NULL, op_counter_init, ck_counter_init, {0}},
    {"counter_load_any_value", 0, NULL, op_counter_load, ck_counter_same, {0}},
    {"counter_add_any_value_wraps", 0, NULL, op_counter_add, ck_counter_add, {0}},
    {"counter_store_any_value", 0, NULL, op_counter_store, ck_counter_store, {0}},
    {"counter_wait_current_any_value", 0, NULL, op_counter_wait_equal, ck_counter_wait_equal, {0}},
    {"counter_wait_other_past_any_value", 0, NULL, op_counter_wait_other_past, ck_counter_wait_other, {0}},
    {"counter_wait_other_soon_some_values", 0, every_16th, op_counter_wait_other_soon,
     ck_counter_wait_other, {0}},
    {"counter_wait_bad_nsec_any_value", 0, NULL, op_counter_wait_bad, ck_counter_wait_bad, {0}},
    {"counter_wait_any_waiters", 1, NULL, op_counter_wait_waiters, ck_counter_wait_waiters, {0}},
    {"counter_wait_at_once_any_waiters", 1, NULL, op_counter_wait_waiters_fast,
     ck_counter_waiters_fast, {0}},
    {"counter_add_store_any_waiters", 1, NULL, op_counter_add_waiters, ck_counter_add_waiters, {0}},
    {"futex_wait_current_past_any_value", 0, NULL, op_futex_wait_equal_past, ck_futex_timeout, {0}},
    {"futex_wait_current_soon_some_values", 0, every_16th, op_futex_wait_equal_soon,
     ck_futex_timeout, {0}},
    {"futex_wait_other_any_value", 0, NULL, op_futex_wait_other, ck_futex_eagain, {0}},
    {"futex_wait_bad_nsec_any_value", 0, NULL, op_futex_wait_bad, ck_futex_einval, {0}},
    {"futex_wake_any_value", 0, NULL, op_futex_wake, ck_futex_wake, {0}},
#define LOCKED_MUTEX {0, 0, 0, 0, FX_MUTEX_LOCKED}
    /* fx_sem */
    {"sem_init_any_value_slot", 0, NULL, op_sem_init_5, ck_sem_init_5, {0}},
    {"sem_init_any_waiters_slot", 1, NULL, op_sem_init_5, ck_sem_init_5, {0}},
    {"sem_init_rejects_values_out_of_range", 0, NULL, op_sem_init_v, ck_sem_init_v, {0}},
    {"sem_post_any_value", 0, NULL, op_sem_post, ck_sem_post_value, {0}},
    {"sem_post_any_waiters", 1, NULL, op_sem_post, ck_sem_post_waiters, {0}},
    {"sem_trywait_any_value", 0, NULL, op_sem_trywait, ck_sem_trywait_value, {0}},
    {"sem_trywait_any_waiters", 1, NULL, op_sem_trywait, ck_sem_trywait_waiters, {0}},
    {"sem_wait_nonblocking_values", 0, sem_value_nonblocking, op_sem_wait, ck_sem_wait_value, {0}},
    {"sem_timedwait_past_any_value", 0, NULL, op_sem_timed_past, ck_sem_timed_value, {0}},
    {"sem_timedwait_soon_some_values", 0, every_16th, op_sem_timed_soon, ck_sem_timed_value, {0}},
    {"sem_timedwait_bad_nsec_any_value", 0, NULL, op_sem_timed_bad, ck_sem_timed_bad_value, {0}},
    {"sem_timedwait_past_any_waiters", 1, NULL, op_sem_timed_past, ck_sem_timed_waiters, {0}},
    {"sem_timedwait_past_token_any_waiters", 1, NULL, op_sem_timed_past, ck_sem_token_waiters,
     {1, 0, 0, 0, 0}},
    {"sem_timedwait_bad_nsec_any_waiters", 1, NULL, op_sem_timed_bad, ck_sem_timed_bad_waiters, {0}},
    {"sem_value_any_value", 0, NULL, op_sem_value, ck_sem_value, {0}},
    /* fx_rwlock */
    {"rwlock_init_any_state", 0, NULL, op_rw_init, ck_zero_all, {0}},
    {"rwlock_init_any_writer_seq", 1, NULL, op_rw_init, ck_zero_all, {0}},
    {"rwlock_tryrdlock_any_state", 0, NULL, op_rw_tryrd, ck_rw_tryrd, {0}},
    {"rwlock_trywrlock_any_state", 0, NULL, op_rw_trywr, ck_rw_trywr, {0}},
    {"rwlock_rdlock_nonblocking_states", 0, rw_rd_nonblocking, op_rw_rdlock, ck_rw_rd, {0}},
    {"rwlock_timedrdlock_past_any_state", 0, NULL, op_rw_timedrd_past, ck_rw_rd, {0}},
    {"rwlock_timedrdlock_soon_some_states", 0, every_16th, op_rw_timedrd_soon, ck_rw_rd, {0}},
    {"rwlock_timedrdlock_bad_nsec_any_state", 0, NULL, op_rw_timedrd_bad, ck_rw_rd_bad, {0}},
    {"rwlock_wrlock_nonblocking_states", 0, rw_wr_nonblocking, op_rw_wrlock, ck_rw_wr, {0}},
    {"rwlock_timedwrlock_past_any_state", 0, NULL, op_rw_timedwr_past, ck_rw_wr, {0}},
    {"rwlock_timedwrlock_soon_some_states", 0, every_16th, op_rw_timedwr_soon, ck_rw_wr, {0}},
    {"rwlock_timedwrlock_bad_nsec_any_state", 0, NULL, op_rw_timedwr_bad, ck_rw_wr_bad, {0}},
    {"rwlock_unlock_any_state", 0, NULL, op_rw_unlock, ck_rw_unlock, {0}},
    {"rwlock_rdunlock_any_state", 0, NULL, op_rw_rdunlock, ck_rw_rdunlock, {0}},
    {"rwlock_wrunlock_any_state", 0, NULL, op_rw_wrunlock, ck_rw_wrunlock, {0}},
    {"rwlock_timedwrlock_held_any_writer_seq", 1, NULL, op_rw_seq_timedwr, ck_rw_seq_timedwr,
     {(int32_t)RW_WL, 0, 0, 0, 0}},
    {"rwlock_unlock_waking_writer_any_writer_seq", 1, NULL, op_rw_seq_unlock, ck_rw_seq_unlock,
     {(int32_t)(RW_WL | RW_WW), 0, 0, 0, 0}},
    {"rwlock_uncontended_any_writer_seq", 1, NULL, op_rw_seq_try, ck_rw_seq_same, {0}},
    /* fx_cond */
    {"cond_init_any_seq", 0, NULL, op_cond_init, ck_cond_init, LOCKED_MUTEX},
    {"cond_init_any_waiters", 1, NULL, op_cond_init, ck_cond_init, LOCKED_MUTEX},
    {"cond_init_any_mutex_token", 2, NULL, op_cond_init, ck_cond_init, LOCKED_MUTEX},
    {"cond_init_any_park", 3, NULL, op_cond_init, ck_cond_init, LOCKED_MUTEX},
    {"cond_signal_no_waiter_any_seq", 0, NULL, op_cond_signal, ck_cond_notify_seq, {0}},
    {"cond_signal_one_waiter_any_seq", 0, NULL, op_cond_signal, ck_cond_signal_seq_one,
     {0, 1, 0, 0, 0}},
    {"cond_signal_any_waiters", 1, NULL, op_cond_signal, ck_cond_signal_waiters, {0}},
    {"cond_signal_any_mutex_token", 2, NULL, op_cond_signal, ck_cond_signal_mutex, {0}},
    {"cond_signal_any_park", 3, NULL, op_cond_signal, ck_cond_signal_park, {0}},
    {"cond_broadcast_no_waiter_any_seq", 0, NULL, op_cond_broadcast, ck_cond_notify_seq, {0}},
    {"cond_broadcast_one_waiter_any_seq", 0, NULL, op_cond_broadcast, ck_cond_broadcast_seq_one,
     {0, 1, 0, 0, 0}},
    {"cond_broadcast_any_waiters", 1, NULL, op_cond_broadcast, ck_cond_broadcast_waiters, {0}},
    {"cond_broadcast_any_mutex_token", 2, NULL, op_cond_broadcast, ck_cond_signal_mutex, {0}},
    {"cond_broadcast_any_park", 3, NULL, op_cond_broadcast, ck_cond_broadcast_park, {0}},
    {"cond_timedwait_past_any_seq", 0, NULL, op_cond_timed_past, ck_cond_timed_seq, LOCKED_MUTEX},
    {"cond_timedwait_soon_some_seq", 0, every_16th, op_cond_timed_soon, ck_cond_timed_seq,
     LOCKED_MUTEX},
    {"cond_timedwait_past_any_waiters", 1, NULL, op_cond_timed_past, ck_cond_timed_waiters,
     LOCKED_MUTEX},
    {"cond_timedwait_past_any_mutex_token", 2, NULL, op_cond_timed_past, ck_cond_timed_token,
     LOCKED_MUTEX},
    {"cond_timedwait_past_any_park", 3, NULL, op_cond_timed_past, ck_cond_timed_park, LOCKED_MUTEX},
    {"cond_timedwait_past_any_mutex_word", 4, NULL, op_cond_timed_past, ck_cond_timed_mutex_word, {0}},
    {"cond_timedwait_bad_nsec_any_seq", 0, NULL, op_cond_timed_bad, ck_cond_timed_bad_seq,
     LOCKED_MUTEX},
    {"cond_timedwait_bad_nsec_any_waiters", 1, NULL, op_cond_timed_bad, ck_cond_timed_bad_waiters,
     LOCKED_MUTEX},
    {"cond_timedwait_bad_nsec_any_mutex_token", 2, NULL, op_cond_timed_bad, ck_cond_timed_bad_mutex,
     LOCKED_MUTEX},
    {"cond_timedwait_bad_nsec_any_park", 3, NULL, op_cond_timed_bad, ck_cond_timed_bad_park,
     LOCKED_MUTEX},
    {"cond_wait_negative_waiters", 1, negative, op_cond_wait, ck_cond_wait_waiters, LOCKED_MUTEX},
    {"cond_wait_tokens_never_written", 2, cond_token_never_written, op_cond_wait,
     ck_cond_wait_token, LOCKED_MUTEX},
    {"cond_wait_nonzero_park", 3, nonzero, op_cond_wait, ck_cond_wait_park, LOCKED_MUTEX},
    {"cond_wait_free_or_garbage_mutex_word", 4, mutex_word_nonblocking, op_cond_wait,
     ck_cond_wait_mutex_word, {0}},
    /* fx_barrier */
    {"barrier_init_any_state", 0, NULL, op_barrier_init, ck_barrier_init, {0, B_PARTIES, 0, 0, 0}},
    {"barrier_init_any_parties", 1, NULL, op_barrier_init, ck_barrier_init, {0}},
    {"barrier_timedwait_past_any_state", 0, NULL, op_barrier_timed_past, ck_barrier_timed,
     {0, B_PARTIES, 0, 0, 0}},
    {"barrier_timedwait_soon_some_states", 0, every_16th, op_barrier_timed_soon, ck_barrier_timed,
     {0, B_PARTIES, 0, 0, 0}},
    {"barrier_timedwait_bad_nsec_any_state", 0, NULL, op_barrier_timed_bad, ck_barrier_timed_bad,
     {0, B_PARTIES, 0, 0, 0}},
    {"barrier_wait_nonblocking_states", 0, barrier_nonblocking, op_barrier_wait, ck_barrier_timed,
     {0, B_PARTIES, 0, 0, 0}},
    {"barrier_wait_other_count_any_state", 0, NULL, op_barrier_wait_other_count,
     ck_barrier_other_count, {0, B_PARTIES, 0, 0, 0}},
    {"barrier_timedwait_past_any_parties", 1, NULL, op_barrier_parties, ck_barrier_parties, {0}},
    /* fx_once */
    {"once_call_states_answered_at_once", 0, once_answers_at_once, op_once_call, ck_once_call, {0}},
    {"once_call_null_function_any_state", 0, NULL, op_once_null_fn, ck_once_null_fn, {0}},
    /* the async layer */
    {"async_mutex_lock_past_any_state", 0, NULL, op_async_mutex_past, ck_async_mutex_past, {0}},
    {"async_mutex_lock_bad_nsec_any_state", 0, NULL, op_async_mutex_bad, ck_async_mutex_bad, {0}},
    {"async_counter_wait_other_past_any_value", 0, NULL, op_async_counter_other,
     ck_async_counter_value, {0}},
    {"async_counter_wait_current_any_value", 0, NULL, op_async_counter_current,
     ck_async_counter_current, {0}},
    {"async_counter_wait_past_any_waiters", 1, NULL, op_async_counter_other,
     ck_async_counter_waiters, {0}},
    {"async_futex_wait_current_past_any_value", 0, NULL, op_async_futex_same, ck_futex_timeout, {0}},
    {"async_futex_wait_other_any_value", 0, NULL, op_async_futex_other, ck_futex_eagain, {0}},
    /* fx_rmutex */
    {"rmutex_init_any_owner", 0, NULL, op_rm_init, ck_zero_all, {0}},
    {"rmutex_init_any_depth", 1, NULL, op_rm_init, ck_zero_all, {0}},
    {"rmutex_trylock_any_owner", 0, NULL, op_rm_trylock, ck_rm_trylock, {0}},
    {"rmutex_owner_any_owner", 0, NULL, op_rm_owner, ck_rm_owner, {0}},
    {"rmutex_init_any_reserved", RM_RESERVED_SLOT, NULL, op_rm_init, ck_zero_all, {0}},
    {"rmutex_init_any_link", RM_LINK_SLOT, NULL, op_rm_init, ck_zero_all, {0}},
    {"rmutex_unlock_by_non_owner_any_owner", 0, NULL, op_rm_unlock, ck_rm_unlock_owner,
     {0, 1, 0, 0, 0}},
    {"rmutex_consistent_by_non_owner_any_owner", 0, NULL, op_rm_consistent,
     ck_rm_consistent_owner, {0, 1 | FX_RMUTEX_INCONSISTENT, 0, 0, 0}},
    {"rmutex_recover_any_owner", 0, NULL, op_rm_recover, ck_rm_recover, {0}},
    {"rmutex_reentry_any_depth", 1, NULL, op_rm_depth_trylock, ck_rm_depth_reenter, {0}},
    {"rmutex_unlock_by_owner_any_depth", 1, NULL, op_rm_depth_unlock, ck_rm_depth_unlock, {0}},
    {"rmutex_consistent_by_owner_any_depth", 1, NULL, op_rm_depth_consistent,
     ck_rm_depth_consistent, {0}},
#undef LOCKED_MUTEX
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
        memcpy(o.s, row->base, sizeof o.s);
        o.s[row->slot] = v;
        int64_t t0 = fxt_now_ns();
        int r = row->op(&o, v);
        int64_t dt = fxt_now_ns() - t0;
        const char *why = row->check(v, r, &o);
        if (why == NULL && dt > 1000000000LL)
            why = "the call took more than a second";
        if (why) {
            char after[NSLOTS * 13 + 1];
            size_t n = 0;
            for (int k = 0; k < NSLOTS; k++)
                n += (size_t)snprintf(after + n, sizeof after - n, k ? ", %d" : "%d", (int)o.s[k]);
            fprintf(stderr, "%s: slot %d = %d (0x%08x): result %d, slots after {%s}: %s\n",
                    row->name, row->slot, (int)v, (unsigned)v, r, after, why);
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

/* Untimed twins ----------------------------------------------------------------
 *
 * Every timed row whose deadline has passed has an untimed twin: the same
 * operation without a deadline, on the same values. Where the timed call,
 * as its row expects, times out (the value is a state the call sleeps on),
 * the twin is not run: it would sleep until woken, as documented (rows whose
 * every value sleeps, such as a cond wait on any sequence, have no twin). On every
 * other value (a result at once: taken, EINVAL, EAGAIN, ...; or a result the
 * timed row rejects) the twin must return at once, with the timed call's
 * result and slots. Each call runs under its own alarm: a twin that sleeps
 * where it must answer is reported with the row and the value (issue 11,
 * class 9: a bad slot must give EINVAL up front, never a hang). */

static int op_counter_wait_waiters_untimed(struct object *o, int32_t v)
{
    (void)v;
    return fx_counter_wait((fx_counter *)o, 1, NULL); /* value 0: would block */
}
static int op_barrier_parties_untimed(struct object *o, int32_t v)
{
    return fx_barrier_wait((fx_barrier *)o, parties_in_range(v) ? v : B_PARTIES);
}

struct twin {
    const char *name;                       /* the twin's own test name */
    const char *timed;                      /* the row it doubles */
    int (*untimed)(struct object *o, int32_t v);
};

static const struct twin twins[] = {
    {"mutex_lock_untimed_any_state", "mutex_timedlock_past_any_state", op_mutex_lock},
    {"counter_wait_untimed_any_waiters", "counter_wait_any_waiters",
     op_counter_wait_waiters_untimed},
    {"sem_wait_untimed_any_value", "sem_timedwait_past_any_value", op_sem_wait},
    {"sem_wait_untimed_any_waiters", "sem_timedwait_past_any_waiters", op_sem_wait},
    {"sem_wait_untimed_token_any_waiters", "sem_timedwait_past_token_any_waiters", op_sem_wait},
    {"rwlock_rdlock_untimed_any_state", "rwlock_timedrdlock_past_any_state", op_rw_rdlock},
    {"rwlock_wrlock_untimed_any_state", "rwlock_timedwrlock_past_any_state", op_rw_wrlock},
    {"cond_wait_untimed_any_waiters", "cond_timedwait_past_any_waiters", op_cond_wait},
    {"cond_wait_untimed_any_mutex_token", "cond_timedwait_past_any_mutex_token", op_cond_wait},
    {"cond_wait_untimed_any_park", "cond_timedwait_past_any_park", op_cond_wait},
    {"cond_wait_untimed_any_mutex_word", "cond_timedwait_past_any_mutex_word", op_cond_wait},
    {"barrier_wait_untimed_any_state", "barrier_timedwait_past_any_state", op_barrier_wait},
    {"barrier_wait_untimed_any_parties", "barrier_timedwait_past_any_parties",
     op_barrier_parties_untimed},
};
#define NTWINS (sizeof twins / sizeof twins[0])

/* What the alarm handler reports: set before each untimed call. */
static const char *twin_name;
static int32_t twin_value;

static void put_str(const char *p)
{
    ssize_t n = write(2, p, strlen(p));
    (void)n;
}

static void twin_hang(int sig)
{
    (void)sig;
    /* Async-signal-safe: write(2) of a hand-formatted line, then _exit. */
    char hex[11] = "0x00000000";
    uint32_t u = (uint32_t)twin_value;
    for (int i = 0; i < 8; i++)
        hex[9 - i] = "0123456789abcdef"[(u >> (4 * i)) & 15u];
    put_str(twin_name);
    put_str(": slot value ");
    put_str(hex);
    put_str(": the untimed call did not return (hang)\n");
    _exit(3);
}

static const struct row *row_named(const char *name)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

static int run_twin_child(void *arg)
{
    const struct twin *t = arg;
    const struct row *row = row_named(t->timed);
    if (row == NULL)
        return 4;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = twin_hang;
    sigaction(SIGALRM, &sa, NULL);
    twin_name = t->name;
    size_t run = 0;
    for (size_t i = 0; i < nvalues; i++) {
        int32_t v = values[i];
        if (row->applies && !row->applies(v))
            continue;
        struct object timed, o;
        memcpy(timed.s, row->base, sizeof timed.s);
        timed.s[row->slot] = v;
        memcpy(&o, &timed, sizeof o);
        int rt = row->op(&timed, v);
        if (rt == ETIMEDOUT && row->check(v, rt, &timed) == NULL)
            continue; /* a state the call sleeps on, as documented */
        twin_value = v;
        alarm(5);
        int r = t->untimed(&o, v);
        alarm(0);
        if (r != rt || memcmp(o.s, timed.s, sizeof o.s) != 0) {
            fprintf(stderr,
                    "%s: slot %d = %d (0x%08x): untimed result %d, slots {%d, %d, %d, %d, %d}; "
                    "timed result %d, slots {%d, %d, %d, %d, %d}\n",
                    t->name, row->slot, (int)v, (unsigned)v, r, (int)o.s[0], (int)o.s[1],
                    (int)o.s[2], (int)o.s[3], (int)o.s[4], rt, (int)timed.s[0],
                    (int)timed.s[1], (int)timed.s[2], (int)timed.s[3], (int)timed.s[4]);
            return 1;
        }
        run++;
    }
    return run > 0 ? 0 : 2;
}

static void run_twin(void **state)
{
    const struct twin *t = *state;
    /* 0: every value answered at once as the timed call did; 1: a different
     * answer (printed); 2: no value to run; 3: a hang (printed); 4: no such
     * timed row; 128 + n: a crash. */
    assert_int_equal(fxt_run_child(run_twin_child, (void *)t), 0);
}

/* NULL and misaligned objects: EINVAL from every entry point that can say it,
 * and no crash from those that cannot. */
static void null_and_misaligned_objects_give_einval(void **state)
{
    (void)state;
    /* Room for the largest object, an fx_rmutex, past the misaligned start. */
    _Alignas(void *) int32_t buf[12] = {0};
    _Static_assert(sizeof buf >= FX_RMUTEX_SIZE + sizeof(void *), "an fx_rmutex fits after mis");
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
        assert_int_equal(fx_sem_init(bad[i], 1), EINVAL);
        assert_int_equal(fx_sem_post(bad[i]), EINVAL);
        assert_int_equal(fx_sem_wait(bad[i]), EINVAL);
        assert_int_equal(fx_sem_trywait(bad[i]), EINVAL);
        assert_int_equal(fx_sem_timedwait(bad[i], &d), EINVAL);
        assert_int_equal(fx_sem_value(bad[i]), -EINVAL);
        fx_rwlock_init(bad[i]);
        assert_int_equal(fx_rwlock_rdlock(bad[i]), EINVAL);
        assert_int_equal(fx_rwlock_tryrdlock(bad[i]), EINVAL);
        assert_int_equal(fx_rwlock_timedrdlock(bad[i], &d), EINVAL);
        assert_int_equal(fx_rwlock_wrlock(bad[i]), EINVAL);
        assert_int_equal(fx_rwlock_trywrlock(bad[i]), EINVAL);
        assert_int_equal(fx_rwlock_timedwrlock(bad[i], &d), EINVAL);
        assert_int_equal(fx_rwlock_unlock(bad[i]), EINVAL);
        assert_int_equal(fx_rwlock_rdunlock(bad[i]), EINVAL);
        assert_int_equal(fx_rwlock_wrunlock(bad[i]), EINVAL);
        fx_cond_init(bad[i]);
        assert_int_equal(fx_cond_signal(bad[i]), EINVAL);
        assert_int_equal(fx_cond_broadcast(bad[i]), EINVAL);
        fx_mutex m = {FX_MUTEX_LOCKED};
        fx_cond c = FX_COND_INIT;
        assert_int_equal(fx_cond_wait(bad[i], &m), EINVAL);
        assert_int_equal(fx_cond_timedwait(bad[i], &m, &d), EINVAL);
        assert_int_equal(fx_cond_wait(&c, bad[i]), EINVAL);
        assert_int_equal(fx_cond_timedwait(&c, bad[i], &d), EINVAL);
        fx_barrier_init(bad[i]);
        assert_int_equal(fx_barrier_wait(bad[i], 1), EINVAL);
        assert_int_equal(fx_barrier_timedwait(bad[i], 1, &d), EINVAL);
        assert_int_equal(fx_once_call(bad[i], once_count, NULL), EINVAL);
        fx_rmutex_init(bad[i]);
        assert_int_equal(fx_rmutex_lock(bad[i]), EINVAL);
        assert_int_equal(fx_rmutex_trylock(bad[i]), EINVAL);
        assert_int_equal(fx_rmutex_timedlock(bad[i], &d), EINVAL);
        assert_int_equal(fx_rmutex_unlock(bad[i]), EINVAL);
        assert_int_equal(fx_rmutex_consistent(bad[i]), EINVAL);
        assert_int_equal(fx_rmutex_recover(bad[i], 1), EINVAL);
        assert_int_equal(fx_rmutex_owner(bad[i]), -EINVAL);
        assert_int_equal(m.state, FX_MUTEX_LOCKED);
    }
    assert_int_equal(once_runs, 0);
    /* An fx_rmutex is aligned as a pointer (its link slots are pointers): one
     * aligned as an int32 only is misaligned too, where pointers are wider. */
    if (_Alignof(fx_rmutex) > sizeof(int32_t)) {
        fx_rmutex *m4 = (fx_rmutex *)(void *)&buf[1];
        fx_rmutex_init(m4);
        assert_int_equal(fx_rmutex_init(m4), EINVAL);
        assert_int_equal(fx_rmutex_lock(m4), EINVAL);
        assert_int_equal(fx_rmutex_trylock(m4), EINVAL);
        assert_int_equal(fx_rmutex_timedlock(m4, &d), EINVAL);
        assert_int_equal(fx_rmutex_unlock(m4), EINVAL);
        assert_int_equal(fx_rmutex_consistent(m4), EINVAL);
        assert_int_equal(fx_rmutex_recover(m4, 1), EINVAL);
        assert_int_equal(fx_rmutex_owner(m4), -EINVAL);
    }
    /* The misaligned calls wrote nothing. */
    for (int i = 0; i < 12; i++)
        assert_int_equal(buf[i], 0);
}

/* An owner word naming the caller's own TID that the caller never acquired
 * (src/rmutex.c: "a word naming S is the caller's only together with its
 * record"). Without PROBED the kernel tracks that owner, which may be a
 * thread of another PID namespace with the same number: never judged, so
 * EBUSY / ETIMEDOUT, unlock and consistent EPERM, and fx_rmutex_owner names
 * it. With PROBED (no LOCALNS), where the caller's process proved it runs in
 * the initial PID namespace, it was left by a dead thread that had our TID:
 * lock, trylock and timedlock take it over with EOWNERDEAD, W kept, while
 * unlock and consistent still give EPERM. */
static int rm_own_tid_lock_child(void *arg)
{
    /* This process's own TID | PROBED, with the flags given. */
    int32_t word = (int32_t)fxt_gettid() | FX_RMUTEX_PROBED | *(const int32_t *)arg;
    static fx_rmutex m; /* as in the parent: no list entry on a dead frame */
    m = (fx_rmutex){.owner = word};
    alarm(5); /* a lock that sleeps where it must take over: SIGALRM */
    int r = fx_rmutex_lock(&m);
    if (r != EOWNERDEAD)
        return 10 + r;
    if ((uint32_t)m.owner != (rm_self() | ((uint32_t)word & RM_W)))
        return 2;
    if (fx_rmutex_consistent(&m) != 0 || fx_rmutex_unlock(&m) != 0 || m.owner != 0)
        return 3;
    return 0;
}

static void rmutex_own_tid_without_acquisition(void **state)
{
    (void)state;
    const int32_t tid = (int32_t)fxt_gettid();
    const int32_t self = (int32_t)rm_self();
    const int32_t flags[] = {0, FX_RMUTEX_WAITERS};
    struct timespec d = past();
    for (int i = 0; i < 2; i++) {
        /* Kernel-tracked: not judged by its TID. */
        fx_rmutex m = {.owner = tid | flags[i], .depth = 1 | FX_RMUTEX_INCONSISTENT};
        assert_int_equal(fx_rmutex_trylock(&m), EBUSY);
        assert_int_equal(m.owner, tid | flags[i]);
        assert_int_equal(fx_rmutex_owner(&m), tid);
        assert_int_equal(fx_rmutex_unlock(&m), EPERM);
        assert_int_equal(fx_rmutex_consistent(&m), EPERM);
        assert_int_equal(fx_rmutex_timedlock(&m, &d), ETIMEDOUT);
        assert_int_equal(m.owner & ~FX_RMUTEX_WAITERS, tid); /* W may now be set */
        assert_null(m.link[FX_RMUTEX_LINKS - 1]);
        assert_int_equal(fx_rmutex_recover(&m, tid), 0);
        assert_int_equal(m.owner, FX_RMUTEX_ORPHANED);

        /* PROBED: the probe's side, the TID reuse rule. */
        if (!rm_initial_pidns()) {
            print_message("[  NOTE    ] not in the initial PID namespace: no verdict on a"
                          " PROBED word\n");
            continue;
        }
        const int32_t probed = tid | FX_RMUTEX_PROBED | flags[i];
        /* Static: a failed assertion leaves no robust-list entry on a dead
         * stack frame. */
        static fx_rmutex p, q;
        p = (fx_rmutex){.owner = probed, .depth = 1};
        assert_int_equal(fx_rmutex_unlock(&p), EPERM);
        assert_int_equal(fx_rmutex_consistent(&p), EPERM);
        assert_int_equal(p.owner, probed);
        assert_int_equal(fx_rmutex_owner(&p), tid);
        assert_int_equal(fx_rmutex_trylock(&p), EOWNERDEAD);
        assert_int_equal(p.owner, self | flags[i]);
        assert_int_equal(p.depth, 1 | FX_RMUTEX_INCONSISTENT);
        assert_int_equal(fx_rmutex_consistent(&p), 0);
        assert_int_equal(fx_rmutex_unlock(&p), 0);
        assert_int_equal(p.owner, 0);
        q = (fx_rmutex){.owner = probed};
        assert_int_equal(fx_rmutex_timedlock(&q, &d), EOWNERDEAD);
        assert_int_equal(q.owner, self | flags[i]);
        assert_int_equal(fx_rmutex_consistent(&q), 0);
        assert_int_equal(fx_rmutex_unlock(&q), 0);
        int32_t w = flags[i];
        assert_int_equal(fxt_run_child(rm_own_tid_lock_child, (void *)&w), 0);
    }
}

/* The RUNNING words the once table leaves out: the caller's own TID | PROBED
 * (with or without WAITERS) when the caller is not running that initialiser
 * names a dead thread that had the TID (and no robust list): taken over at
 * once, the initialiser runs.
 * (EDEADLK from inside the initialiser: test_once.c.) */
static void once_running_in_the_caller_is_taken_over(void **state)
{
    (void)state;
    int32_t flags[] = {0, FX_ONCE_WAITERS};
    for (int i = 0; i < 2; i++) {
        int32_t v = FX_ONCE_RUNNING | FX_ONCE_PROBED | flags[i] | (int32_t)fxt_gettid();
        fx_once o = {.state = v};
        once_runs = 0;
        assert_int_equal(fx_once_call(&o, once_count, NULL), 0);
        assert_int_equal(o.state, FX_ONCE_DONE);
        assert_int_equal(once_runs, 1);
    }
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

/* Prints how many calls the table makes (the README's figure). */
static void print_totals(size_t nrows)
{
    size_t calls = 0;
    for (size_t r = 0; r < nrows; r++)
        for (size_t i = 0; i < nvalues; i++)
            calls += !rows[r].applies || rows[r].applies(values[i]);
    printf("badstate: %zu values, %zu rows, %zu calls\n", nvalues, nrows, calls);
}

int main(void)
{
    build_values();
    enum { NROWS = sizeof rows / sizeof rows[0] };
    struct CMUnitTest tests[NROWS + NTWINS + 4];
    tests[0] = (struct CMUnitTest){.name = "the_value_set_has_every_class",
                                   .test_func = the_value_set_has_every_class};
    tests[1] = (struct CMUnitTest){.name = "null_and_misaligned_objects_give_einval",
                                   .test_func = null_and_misaligned_objects_give_einval};
    tests[2] = (struct CMUnitTest){.name = "once_running_in_the_caller_is_taken_over",
                                   .test_func = once_running_in_the_caller_is_taken_over};
    tests[3] = (struct CMUnitTest){.name = "rmutex_own_tid_without_acquisition",
                                   .test_func = rmutex_own_tid_without_acquisition};
    for (size_t i = 0; i < NROWS; i++)
        tests[i + 4] = (struct CMUnitTest){.name = rows[i].name,
                                           .test_func = run_row,
                                           .initial_state = (void *)&rows[i]};
    for (size_t i = 0; i < NTWINS; i++)
        tests[NROWS + 4 + i] = (struct CMUnitTest){.name = twins[i].name,
                                                   .test_func = run_twin,
                                                   .initial_state = (void *)&twins[i]};
    print_totals(NROWS);
    return fxt_run_group_isolated("badstate", tests, NROWS + NTWINS + 4, NULL, NULL);
}
