/*
 * tests/test_handoff.c - a waiter whose handoffs are far polls instead of
 * spinning (src/internal/spin.h, "Near and far handoffs"): fx_mutex and
 * fx_rmutex.
 *
 * The verdict "far" is forced here, per thread, through the library's
 * FXI_FAULT_VERDICT("spin.handoff_far") (src/internal/fault.h), so the poll
 * runs on any machine. Its fault point "spin.poll", reached just before each
 * sleep of the poll, can hold the poller there: the test then changes the
 * word while it is known to be between two looks.
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <errno.h>
#include <futexsync.h>
#include <futexsync/layout.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>

#define LIMIT_MS 10000

/* Set by a thread for itself: its contended acquisitions poll. */
static _Thread_local bool far_here;
/* Polls seen (any thread), and the gate a poll waits at while held. */
static int32_t polls;
static int32_t gate_closed;
static int32_t gate_open;

bool fxi_fault_verdict(const char *step, bool verdict);
bool fxi_fault_verdict(const char *step, bool verdict)
{
    if (strcmp(step, "spin.handoff_far") == 0 && far_here)
        return true;
    return verdict;
}

/* The calling thread's timer slack, in nanoseconds. */
static long slack_now(void)
{
    return (long)prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
}

/* The timer slack of the last poll sleep's thread, as the sleep began. */
static long slack_in_sleep;

void fxi_fault_point(const char *step);
void fxi_fault_point(const char *step)
{
    if (strcmp(step, "spin.poll.sleep") == 0 && far_here)
        __atomic_store_n(&slack_in_sleep, slack_now(), __ATOMIC_SEQ_CST);
    if (strcmp(step, "spin.poll") != 0 || !far_here)
        return;
    __atomic_fetch_add(&polls, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&gate_closed, __ATOMIC_ACQUIRE))
        fxt_flag_wait(&gate_open, 1, LIMIT_MS);
}

static void gate_reset(bool closed)
{
    __atomic_store_n(&polls, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&gate_open, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&gate_closed, closed, __ATOMIC_RELEASE);
}

enum op { MUTEX_LOCK, MUTEX_TIMEDLOCK, RMUTEX_LOCK };

struct waiter {
    enum op op;
    bool far;
    fx_mutex *m;
    fx_rmutex *r;
    struct timespec deadline;
    pid_t tid;
    int32_t ready;
    int32_t done;
    int result;
    int32_t word_held; /* the word as the waiter saw it while holding */
    int32_t word;      /* the rmutex owner word it writes (fxt_rmutex_self_word) */
    long slack;        /* the timer slack it sets for itself first (0: none) */
    long slack_after;  /* its timer slack once the lock call returned */
    int64_t returned_ns;
    pthread_t thread;
};

static void *waiter_main(void *p)
{
    struct waiter *w = p;
    if (w->op == RMUTEX_LOCK)
        w->word = fxt_rmutex_self_word();
    far_here = w->far;
    if (w->slack != 0 && prctl(PR_SET_TIMERSLACK, (unsigned long)w->slack, 0, 0, 0) != 0)
        w->slack = -1; /* refused: the test sees it */
    w->tid = fxt_gettid();
    fxt_flag_set(&w->ready, 1);
    switch (w->op) {
    case MUTEX_LOCK:
        w->result = fx_mutex_lock(w->m);
        break;
    case MUTEX_TIMEDLOCK:
        w->result = fx_mutex_timedlock(w->m, &w->deadline);
        break;
    case RMUTEX_LOCK:
        w->result = fx_rmutex_lock(w->r);
        break;
    }
    w->returned_ns = fxt_now_ns();
    w->slack_after = slack_now();
    if (w->result == 0) {
        if (w->op == RMUTEX_LOCK) {
            w->word_held = __atomic_load_n(&w->r->owner, __ATOMIC_RELAXED);
            w->result = fx_rmutex_unlock(w->r);
        } else {
            w->word_held = __atomic_load_n(&w->m->state, __ATOMIC_RELAXED);
            w->result = fx_mutex_unlock(w->m);
        }
    }
    fxt_flag_set(&w->done, 1);
    return NULL;
}

/* Starts a waiter (deadline: MUTEX_TIMEDLOCK's, else NULL) and returns once
 * it runs. */
static struct waiter *waiter_start(enum op op, bool far, fx_mutex *m, fx_rmutex *r,
                                   const struct timespec *deadline)
{
    struct waiter *w = fxt_arena(sizeof *w);
    w->op = op;
    w->far = far;
    w->m = m;
    w->r = r;
    if (deadline != NULL)
        w->deadline = *deadline;
    w->result = -1;
    w->thread = fxt_thread(waiter_main, w);
    assert_true(fxt_flag_wait(&w->ready, 1, LIMIT_MS));
    return w;
}

static int waiter_join(struct waiter *w)
{
    assert_true(fxt_join_timed(w->thread, LIMIT_MS, NULL));
    return w->result;
}

/* Locks m, then starts a far waiter on it and returns once the waiter
 * stands at the gate, before the first sleep of its poll. */
static struct waiter *poller_at_gate(fx_mutex *m)
{
    gate_reset(true);
    assert_int_equal(fx_mutex_lock(m), 0);
    struct waiter *w = waiter_start(MUTEX_LOCK, true, m, NULL, NULL);
    assert_true(fxt_flag_wait(&polls, 1, LIMIT_MS));
    return w;
}

/* A far waiter leaves the word LOCKED while it polls, so the holder's
 * unlock makes no wake; its next look finds the lock free and takes it as
 * LOCKED, as a spinner would, not as CONTENDED, as a sleeper must. */
static void far_mutex_waiter_takes_a_lock_released_without_a_wake(void **state)
{
    (void)state;
    fx_mutex *m = fxt_arena(sizeof *m);
    struct waiter *w = poller_at_gate(m);
    assert_int_equal(__atomic_load_n(&m->state, __ATOMIC_RELAXED), FX_MUTEX_LOCKED);
    assert_int_equal(fx_mutex_unlock(m), 0);
    fxt_flag_set(&gate_open, 1);
    assert_int_equal(waiter_join(w), 0);
    assert_int_equal(w->word_held, FX_MUTEX_LOCKED);
    assert_int_equal(__atomic_load_n(&polls, __ATOMIC_SEQ_CST), 1);
    assert_int_equal(__atomic_load_n(&m->state, __ATOMIC_RELAXED), FX_MUTEX_UNLOCKED);
}

/* The poller sleeps on a word of its own: the wake of an unlock goes to the
 * thread asleep on the mutex, never to the poller. */
static void far_mutex_poller_spends_no_wake_of_a_sleeper(void **state)
{
    (void)state;
    fx_mutex *m = fxt_arena(sizeof *m);
    struct waiter *poller = poller_at_gate(m);
    struct waiter *sleeper = waiter_start(MUTEX_LOCK, false, m, NULL, NULL);
    assert_true(fxt_wait_asleep(sleeper->tid, &m->state, LIMIT_MS));
    assert_int_equal(fx_mutex_unlock(m), 0);
    /* The sleeper gets through while the poller still stands at the gate. */
    assert_int_equal(waiter_join(sleeper), 0);
    assert_int_equal(__atomic_load_n(&poller->done, __ATOMIC_ACQUIRE), 0);
    fxt_flag_set(&gate_open, 1);
    assert_int_equal(waiter_join(poller), 0);
    assert_int_equal(__atomic_load_n(&m->state, __ATOMIC_RELAXED), FX_MUTEX_UNLOCKED);
}

/* A deadline nearer than the poll's first sleep ends the poll before it
 * sleeps; a later one is kept exactly as by a spinning waiter. */
static void far_mutex_timedlock_keeps_its_deadline(void **state)
{
    (void)state;
    fx_mutex *m = fxt_arena(sizeof *m);
    gate_reset(false);
    assert_int_equal(fx_mutex_lock(m), 0);
    /* 2 us: less than one poll sleep. */
    struct timespec soon = fx_deadline_in(2000);
    struct waiter *w = waiter_start(MUTEX_TIMEDLOCK, true, m, NULL, &soon);
    assert_int_equal(waiter_join(w), ETIMEDOUT);
    assert_int_equal(__atomic_load_n(&polls, __ATOMIC_SEQ_CST), 0);

    assert_int_equal(fx_mutex_unlock(m), 0);

    /* A later deadline: the waiter polls, then times out at it. The deadline
     * runs from before the waiter's thread starts, which a loaded machine
     * (a sanitizer build beside other tests) can delay past 50 ms: then the
     * waiter arrives too late to poll, and it is tried again with a deadline
     * twice as far. Each try on a fresh word: the waiter that timed out
     * left its word CONTENDED, and a CONTENDED word is not polled (its
     * sleepers are queued ahead). */
    for (int64_t ns = 50 * FX_NSEC_PER_MSEC;; ns *= 2) {
        m = fxt_arena(sizeof *m);
        assert_int_equal(fx_mutex_lock(m), 0);
        gate_reset(false);
        struct timespec later = fx_deadline_in(ns);
        w = waiter_start(MUTEX_TIMEDLOCK, true, m, NULL, &later);
        assert_int_equal(waiter_join(w), ETIMEDOUT);
        assert_true(w->returned_ns >= fxt_ts_ns(&w->deadline));
        assert_int_equal(fx_mutex_unlock(m), 0);
        if (__atomic_load_n(&polls, __ATOMIC_SEQ_CST) >= 1 || ns >= 2 * FX_NSEC_PER_SEC)
            break;
    }
    assert_true(__atomic_load_n(&polls, __ATOMIC_SEQ_CST) >= 1);
}

/* A bad tv_nsec is reported as by any waiter, without a sleep first. */
static void far_mutex_timedlock_with_bad_tv_nsec_is_einval_without_polling(void **state)
{
    (void)state;
    fx_mutex *m = fxt_arena(sizeof *m);
    gate_reset(false);
    assert_int_equal(fx_mutex_lock(m), 0);
    struct timespec bad = fx_deadline_in(FX_NSEC_PER_SEC);
    bad.tv_nsec = 1000000000;
    struct waiter *w = waiter_start(MUTEX_TIMEDLOCK, true, m, NULL, &bad);
    assert_int_equal(waiter_join(w), EINVAL);
    assert_int_equal(__atomic_load_n(&polls, __ATOMIC_SEQ_CST), 0);
    assert_int_equal(fx_mutex_unlock(m), 0);
}

/* Signals end the poll's sleeps early; each counts as one, so the poll
 * still ends, the waiter sleeps as any other, and the unlock's wake finds
 * it. The poller is held at its first look until the storm is seen to hit
 * it (under an emulator a storm starts slowly). */
static void far_mutex_poll_under_signal_storm_acquires_on_unlock(void **state)
{
    (void)state;
    fx_mutex *m = fxt_arena(sizeof *m);
    struct waiter *w = poller_at_gate(m);
    struct fxt_storm *s = fxt_storm_start(w->thread);
    int64_t limit = fxt_now_ns() + (int64_t)LIMIT_MS * FX_NSEC_PER_MSEC;
    while (fxt_signal_count() == 0 && fxt_now_ns() < limit)
        sched_yield();
    fxt_flag_set(&gate_open, 1);
    assert_true(fxt_wait_asleep(w->tid, &m->state, LIMIT_MS));
    assert_int_equal(__atomic_load_n(&m->state, __ATOMIC_RELAXED), FX_MUTEX_CONTENDED);
    assert_int_equal(fx_mutex_unlock(m), 0);
    bool done = fxt_flag_wait(&w->done, 1, LIMIT_MS);
    long signals = fxt_storm_stop(s);
    assert_true(done);
    assert_int_equal(waiter_join(w), 0);
    assert_true(signals > 0);
    assert_int_equal(__atomic_load_n(&polls, __ATOMIC_SEQ_CST), 3);
}

/* The same for fx_rmutex: the poller leaves W clear, so the owner's unlock
 * takes its fast path, and the poller takes the word with no W. */
/* A poll's sleeps are short: each runs with a timer slack of a tenth of the
 * shortest (the thread's own, 50 us by default, would make it last several
 * times longer than asked), and the thread has its own slack back after. */
static void far_poll_sleeps_with_a_short_slack_and_gives_the_threads_back(void **state)
{
    (void)state;
    fx_mutex *m = fxt_arena(sizeof *m);
    gate_reset(false);
    __atomic_store_n(&slack_in_sleep, 0, __ATOMIC_SEQ_CST);
    assert_int_equal(fx_mutex_lock(m), 0);
    struct waiter *w = fxt_arena(sizeof *w);
    w->op = MUTEX_LOCK;
    w->far = true;
    w->m = m;
    w->slack = 200000;
    w->result = -1;
    w->thread = fxt_thread(waiter_main, w);
    /* The poll's looks are over once it sleeps on the mutex word. */
    assert_true(fxt_flag_wait(&w->ready, 1, LIMIT_MS));
    assert_true(fxt_wait_asleep(w->tid, &m->state, LIMIT_MS));
    assert_int_equal(fx_mutex_unlock(m), 0);
    assert_int_equal(waiter_join(w), 0);
    assert_int_equal(w->slack, 200000);
    assert_int_equal(__atomic_load_n(&polls, __ATOMIC_SEQ_CST), 3);
    assert_int_equal(__atomic_load_n(&slack_in_sleep, __ATOMIC_SEQ_CST), 1000);
    assert_int_equal(w->slack_after, 200000);
}

static void far_rmutex_waiter_takes_a_lock_released_without_a_wake(void **state)
{
    (void)state;
    fx_rmutex *r = fxt_arena(sizeof *r);
    gate_reset(true);
    assert_int_equal(fx_rmutex_lock(r), 0);
    int32_t mine = __atomic_load_n(&r->owner, __ATOMIC_RELAXED);
    struct waiter *w = waiter_start(RMUTEX_LOCK, true, NULL, r, NULL);
    /* At the gate, before its first sleep. */
    assert_true(fxt_flag_wait(&polls, 1, LIMIT_MS));
    assert_int_equal(__atomic_load_n(&r->owner, __ATOMIC_RELAXED), mine); /* no W */
    assert_int_equal(fx_rmutex_unlock(r), 0);
    fxt_flag_set(&gate_open, 1);
    assert_int_equal(waiter_join(w), 0);
    assert_true(w->word_held > 0); /* no W */
    assert_int_equal(w->word_held, w->word);
    assert_int_equal(__atomic_load_n(&polls, __ATOMIC_SEQ_CST), 1);
    assert_int_equal(__atomic_load_n(&r->owner, __ATOMIC_RELAXED), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(far_mutex_waiter_takes_a_lock_released_without_a_wake),
        cmocka_unit_test(far_mutex_poller_spends_no_wake_of_a_sleeper),
        cmocka_unit_test(far_mutex_timedlock_keeps_its_deadline),
        cmocka_unit_test(far_mutex_timedlock_with_bad_tv_nsec_is_einval_without_polling),
        cmocka_unit_test(far_mutex_poll_under_signal_storm_acquires_on_unlock),
        cmocka_unit_test(far_poll_sleeps_with_a_short_slack_and_gives_the_threads_back),
        cmocka_unit_test(far_rmutex_waiter_takes_a_lock_released_without_a_wake),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
