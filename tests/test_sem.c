/* tests/test_sem.c - fx_sem: every return code, threads, processes, signals,
 * bad input, and the no-system-call promise. */
#define _GNU_SOURCE
#include "fxfault.h"
#include "fxtest.h"

#include <errno.h>
#include <futexsync.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* Spins (yielding) until *slot == want; fails the test after 10 s. */
static void wait_slot(const int32_t *slot, int32_t want)
{
    int64_t limit = fxt_now_ns() + 10 * FX_NSEC_PER_SEC;
    while (__atomic_load_n(slot, __ATOMIC_ACQUIRE) != want) {
        assert_true(fxt_now_ns() < limit);
        sched_yield();
    }
}

/* --- values and return codes -------------------------------------------- */

static void test_zero_bytes_are_an_empty_semaphore(void **state)
{
    (void)state;
    fx_sem s;
    memset(&s, 0, sizeof s);
    assert_int_equal(fx_sem_value(&s), 0);
    assert_int_equal(fx_sem_trywait(&s), EAGAIN);
    assert_int_equal(fx_sem_post(&s), 0);
    assert_int_equal(fx_sem_value(&s), 1);
    assert_int_equal(fx_sem_wait(&s), 0);
    assert_int_equal(fx_sem_value(&s), 0);
}

static void test_init_macro_and_function_set_the_value(void **state)
{
    (void)state;
    fx_sem a = FX_SEM_INIT(3);
    fx_sem b;
    memset(&b, 0xff, sizeof b);
    assert_int_equal(fx_sem_init(&b, 3), 0);
    assert_memory_equal(&a, &b, sizeof a);
    for (int i = 0; i < 3; i++)
        assert_int_equal(fx_sem_trywait(&b), 0);
    assert_int_equal(fx_sem_trywait(&b), EAGAIN);
}

static void test_init_rejects_value_outside_range(void **state)
{
    (void)state;
    fx_sem s = FX_SEM_INIT(5);
    assert_int_equal(fx_sem_init(&s, -1), EINVAL);
    assert_int_equal(fx_sem_init(&s, FX_SEM_VALUE_MAX + 1), EINVAL);
    assert_int_equal(fx_sem_value(&s), 5); /* untouched */
    assert_int_equal(fx_sem_init(&s, FX_SEM_VALUE_MAX), 0);
}

static void test_post_then_wait_takes_the_token(void **state)
{
    (void)state;
    fx_sem s = FX_SEM_INIT(0);
    assert_int_equal(fx_sem_post(&s), 0);
    assert_int_equal(fx_sem_post(&s), 0);
    assert_int_equal(fx_sem_value(&s), 2);
    assert_int_equal(fx_sem_wait(&s), 0);
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(fx_sem_timedwait(&s, &d), 0);
    assert_int_equal(fx_sem_value(&s), 0);
}

static void test_trywait_on_empty_gives_eagain(void **state)
{
    (void)state;
    fx_sem s = FX_SEM_INIT(0);
    assert_int_equal(fx_sem_trywait(&s), EAGAIN);
    assert_int_equal(fx_sem_value(&s), 0);
}

static void test_post_at_maximum_gives_eoverflow(void **state)
{
    (void)state;
    fx_sem s = FX_SEM_INIT(FX_SEM_VALUE_MAX - 1);
    assert_int_equal(fx_sem_post(&s), 0);
    assert_int_equal(fx_sem_post(&s), EOVERFLOW);
    assert_int_equal(fx_sem_value(&s), FX_SEM_VALUE_MAX);
    assert_int_equal(fx_sem_trywait(&s), 0);
    assert_int_equal(fx_sem_post(&s), 0);
}

struct overflow_racer {
    fx_sem *s;
    int overflows;
};

static void *overflow_racer_main(void *p)
{
    struct overflow_racer *o = p;
    for (int i = 0; i < 20000; i++)
        o->overflows += fx_sem_post(o->s) == EOVERFLOW;
    return NULL;
}

static void test_posts_racing_at_maximum_all_overflow(void **state)
{
    (void)state;
    fx_sem s = FX_SEM_INIT(FX_SEM_VALUE_MAX);
    struct overflow_racer o[3] = {{&s, 0}, {&s, 0}, {&s, 0}};
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        t[i] = fxt_thread(overflow_racer_main, &o[i]);
    for (int i = 0; i < 3; i++) {
        fxt_join(t[i]);
        assert_int_equal(o[i].overflows, 20000);
    }
    assert_int_equal(fx_sem_value(&s), FX_SEM_VALUE_MAX);
}

static void test_timedwait_times_out(void **state)
{
    (void)state;
    fx_sem s = FX_SEM_INIT(0);
    int64_t t0 = fxt_now_ns();
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_sem_timedwait(&s, &d), ETIMEDOUT);
    assert_true(fxt_now_ns() - t0 >= 30 * FX_NSEC_PER_MSEC);
    assert_int_equal(s.waiters, 0);
}

static void test_timedwait_with_passed_deadline_takes_available_token(void **state)
{
    (void)state;
    fx_sem s = FX_SEM_INIT(1);
    struct timespec past = {0, 0};
    assert_int_equal(fx_sem_timedwait(&s, &past), 0);
    assert_int_equal(fx_sem_timedwait(&s, &past), ETIMEDOUT);
}

static void test_timedwait_negative_seconds_is_a_passed_deadline(void **state)
{
    (void)state;
    fx_sem s = FX_SEM_INIT(0);
    struct timespec d = {-5, 0};
    assert_int_equal(fx_sem_timedwait(&s, &d), ETIMEDOUT);
}

static void test_timedwait_bad_nanoseconds_einval_only_when_blocking(void **state)
{
    (void)state;
    fx_sem s = FX_SEM_INIT(1);
    struct timespec bad = {0, 1000000000L};
    struct timespec neg = {0, -1};
    assert_int_equal(fx_sem_timedwait(&s, &bad), 0); /* can succeed at once */
    assert_int_equal(fx_sem_timedwait(&s, &bad), EINVAL);
    assert_int_equal(fx_sem_timedwait(&s, &neg), EINVAL);
    assert_int_equal(s.waiters, 0);
}

static void test_null_and_misaligned_give_einval(void **state)
{
    (void)state;
    _Alignas(8) char buf[16] = {0};
    fx_sem *bad = (fx_sem *)(void *)(buf + 1);
    struct timespec d = fx_deadline_in(0);
    assert_int_equal(fx_sem_init(NULL, 0), EINVAL);
    assert_int_equal(fx_sem_init(bad, 0), EINVAL);
    assert_int_equal(fx_sem_post(NULL), EINVAL);
    assert_int_equal(fx_sem_post(bad), EINVAL);
    assert_int_equal(fx_sem_wait(NULL), EINVAL);
    assert_int_equal(fx_sem_wait(bad), EINVAL);
    assert_int_equal(fx_sem_trywait(NULL), EINVAL);
    assert_int_equal(fx_sem_trywait(bad), EINVAL);
    assert_int_equal(fx_sem_timedwait(NULL, &d), EINVAL);
    assert_int_equal(fx_sem_timedwait(bad, &d), EINVAL);
    assert_int_equal(fx_sem_value(NULL), -EINVAL);
    assert_int_equal(fx_sem_value(bad), -EINVAL);
    for (size_t i = 0; i < sizeof buf; i++)
        assert_int_equal(buf[i], 0);
}

static void test_negative_value_slot_gives_einval(void **state)
{
    (void)state;
    fx_sem s = {-7, 0};
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(fx_sem_post(&s), EINVAL);
    assert_int_equal(fx_sem_wait(&s), EINVAL);
    assert_int_equal(fx_sem_trywait(&s), EINVAL);
    assert_int_equal(fx_sem_timedwait(&s, &d), EINVAL);
    assert_int_equal(fx_sem_value(&s), -EINVAL);
    assert_int_equal(s.value, -7);
    assert_int_equal(s.waiters, 0);
}

static void test_negative_waiters_slot_gives_einval_when_blocking(void **state)
{
    (void)state;
    fx_sem s = {0, -1};
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(fx_sem_wait(&s), EINVAL);
    assert_int_equal(fx_sem_timedwait(&s, &d), EINVAL);
    assert_int_equal(s.waiters, -1);
}

/* Issue 19: a waiters count the wait's increment would wrap (INT32_MAX) is a
 * slot the library never writes: the wait refuses it at once. The waits run
 * in a child, so that a wait that sleeps instead (the old increment wrapped
 * the count negative, and every post then refused its token with EINVAL)
 * shows as a hang, not a stuck test. */
static int child_wait_on_wrapping_count(void *arg)
{
    fx_sem *s = arg;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    FXT_CHILD_CHECK(fx_sem_timedwait(s, &d) == EINVAL, 1);
    FXT_CHILD_CHECK(s->value == 0 && s->waiters == INT32_MAX, 2);
    FXT_CHILD_CHECK(fx_sem_wait(s) == EINVAL, 3);
    FXT_CHILD_CHECK(s->value == 0 && s->waiters == INT32_MAX, 4);
    /* Nothing was changed: a post still adds its token. */
    FXT_CHILD_CHECK(fx_sem_post(s) == 0 && s->value == 1, 5);
    return 0;
}

static void test_wait_with_waiters_slot_that_would_wrap_gives_einval_at_once(void **state)
{
    (void)state;
    fx_sem *s = fxt_shared_alloc(sizeof *s);
    s->value = 0;
    s->waiters = INT32_MAX;
    assert_int_equal(fxt_wait_child(fxt_fork(child_wait_on_wrapping_count, s), 10000), 0);
    fxt_shared_free(s, sizeof *s);
}

/* Issue 11, class 9: the check does not depend on whether a token is there. */
static void test_negative_waiters_slot_gives_einval_with_a_token_there(void **state)
{
    (void)state;
    fx_sem s = {3, -1};
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(fx_sem_wait(&s), EINVAL);
    assert_int_equal(fx_sem_timedwait(&s, &d), EINVAL);
    assert_int_equal(fx_sem_trywait(&s), EINVAL);
    assert_int_equal(s.value, 3); /* no token taken */
    assert_int_equal(s.waiters, -1);
}

static void test_post_with_negative_waiters_slot_gives_einval_and_adds_nothing(void **state)
{
    (void)state;
    fx_sem s = {0, INT32_MIN};
    assert_int_equal(fx_sem_post(&s), EINVAL);
    assert_int_equal(s.value, 0);
    assert_int_equal(s.waiters, INT32_MIN);
}

/* --- cancellation (issue 13): wait and timedwait are cancellation points -- */

struct cancel_case {
    struct fxt_cancel run;
    fx_sem s;
    int timed;
    int result;
};

FXF_CANCELLED_FRAME static void cancel_wait(void *arg)
{
    struct cancel_case *k = arg;
    struct timespec far = fx_deadline_in(3600 * FX_NSEC_PER_SEC);
    k->result = k->timed ? fx_sem_timedwait(&k->s, &far) : fx_sem_wait(&k->s);
}

FXF_CANCELLED_FRAME static void pending_cancel_wait(void *arg)
{
    struct cancel_case *k = arg;
    k->result = fx_sem_wait(&k->s);
    if (k->result == 0)
        k->result = fx_sem_wait(&k->s); /* after taking a token: this one blocks */
}

static struct cancel_case *cancel_case_new(void (*wait)(void *))
{
    struct cancel_case *k = fxt_arena(sizeof *k);
    k->result = -1;
    k->run.wait = wait;
    k->run.word = &k->s.value;
    k->run.arg = k;
    return k;
}

/* A thread blocked in the wait is cancelled and joined promptly; the
 * semaphore is left with no waiter and works on. */
static void run_cancel_case(int timed)
{
    struct cancel_case *k = cancel_case_new(cancel_wait);
    k->timed = timed;
    fxt_cancel_blocked(&k->run, 10000);
    assert_int_equal(k->result, -1); /* the wait never returned */
    assert_int_equal(k->s.waiters, 0);
    assert_int_equal(fx_sem_post(&k->s), 0);
    assert_int_equal(fx_sem_trywait(&k->s), 0);
}

static void test_cancelled_wait_is_joined_and_leaves_no_waiter(void **state)
{
    (void)state;
    run_cancel_case(0);
}

static void test_cancelled_timedwait_is_joined_and_leaves_no_waiter(void **state)
{
    (void)state;
    run_cancel_case(1);
}

/* A cancellation pending when the wait would block acts at the call. */
static void run_pending_cancel_case(int32_t tokens, int result)
{
    struct cancel_case *k = cancel_case_new(pending_cancel_wait);
    assert_int_equal(fx_sem_init(&k->s, tokens), 0);
    fxt_cancel_pending(&k->run, 10000);
    assert_int_equal(k->result, result);
    assert_int_equal(fx_sem_value(&k->s), 0);
    assert_int_equal(k->s.waiters, 0);
}

static void test_pending_cancellation_acts_at_a_wait_that_would_block(void **state)
{
    (void)state;
    run_pending_cancel_case(0, -1); /* cancelled in the first call */
}

/* sem.h: a wait that finds a token takes it without looking for a pending
 * cancellation; the next wait, which would block, acts on it. */
static void test_pending_cancellation_lets_a_wait_take_a_token_there(void **state)
{
    (void)state;
    run_pending_cancel_case(1, 0); /* the first call took the token */
}

/* --- threads --------------------------------------------------------------- */

struct waiter {
    fx_sem *s;
    int result;
    int timed;
};

static void *waiter_main(void *p)
{
    struct waiter *w = p;
    int r;
    if (w->timed) {
        struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
        r = fx_sem_timedwait(w->s, &d);
    } else {
        r = fx_sem_wait(w->s);
    }
    __atomic_store_n(&w->result, r, __ATOMIC_RELEASE);
    return NULL;
}

static void test_wait_blocks_until_post(void **state)
{
    (void)state;
    fx_sem s = FX_SEM_INIT(0);
    struct waiter w = {&s, -1, 0};
    pthread_t t = fxt_thread(waiter_main, &w);
    wait_slot(&s.waiters, 1); /* registered: it sleeps or is about to */
    assert_int_equal(__atomic_load_n(&w.result, __ATOMIC_ACQUIRE), -1);
    assert_int_equal(fx_sem_post(&s), 0);
    fxt_join(t);
    assert_int_equal(w.result, 0);
    assert_int_equal(s.value, 0);
    assert_int_equal(s.waiters, 0);
}

static void test_each_post_releases_exactly_one_waiter(void **state)
{
    (void)state;
    enum { N = 4 };
    fx_sem s = FX_SEM_INIT(0);
    struct waiter w[N];
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        w[i] = (struct waiter){&s, -1, i & 1};
        t[i] = fxt_thread(waiter_main, &w[i]);
    }
    wait_slot(&s.waiters, N);
    for (int k = 1; k <= N; k++) {
        assert_int_equal(fx_sem_post(&s), 0);
        int64_t limit = fxt_now_ns() + 10 * FX_NSEC_PER_SEC;
        int done;
        do { /* wait until the released waiter has returned */
            assert_true(fxt_now_ns() < limit);
            sched_yield();
            done = 0;
            for (int i = 0; i < N; i++)
                done += __atomic_load_n(&w[i].result, __ATOMIC_ACQUIRE) == 0;
        } while (done < k);
        assert_int_equal(done, k); /* one waiter per post, never two */
        assert_int_equal(__atomic_load_n(&s.waiters, __ATOMIC_ACQUIRE), N - k);
        assert_int_equal(fx_sem_value(&s), 0);
    }
    for (int i = 0; i < N; i++) {
        fxt_join(t[i]);
        assert_int_equal(w[i].result, 0);
    }
}

enum { PC_THREADS = 3, PC_ITEMS = 20000 };

struct pc {
    fx_sem items;
    fx_sem *spaces; /* NULL: unbounded */
    long consumed[PC_THREADS];
    int errors;
};

struct pc_consumer {
    struct pc *pc;
    int id;
};

static void *producer_main(void *p)
{
    struct pc *pc = p;
    for (int i = 0; i < PC_ITEMS; i++) {
        if (pc->spaces && fx_sem_wait(pc->spaces) != 0)
            __atomic_fetch_add(&pc->errors, 1, __ATOMIC_RELAXED);
        if (fx_sem_post(&pc->items) != 0)
            __atomic_fetch_add(&pc->errors, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void *consumer_main(void *p)
{
    struct pc_consumer *c = p;
    struct pc *pc = c->pc;
    int id = c->id;
    for (int i = 0; i < PC_ITEMS; i++) {
        int r;
        if (i % 3 == 0) {
            struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
            r = fx_sem_timedwait(&pc->items, &d);
        } else if (i % 3 == 1) {
            while ((r = fx_sem_trywait(&pc->items)) == EAGAIN)
                sched_yield();
        } else {
            r = fx_sem_wait(&pc->items);
        }
        if (r != 0)
            __atomic_fetch_add(&pc->errors, 1, __ATOMIC_RELAXED);
        pc->consumed[id]++;
        if (pc->spaces && fx_sem_post(pc->spaces) != 0)
            __atomic_fetch_add(&pc->errors, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void test_threads_consume_every_post_exactly_once(void **state)
{
    (void)state;
    fx_sem spaces = FX_SEM_INIT(8);
    struct pc pc = {FX_SEM_INIT(0), &spaces, {0}, 0};
    pthread_t t[2 * PC_THREADS];
    struct pc_consumer c[PC_THREADS];
    for (int i = 0; i < PC_THREADS; i++) {
        c[i] = (struct pc_consumer){&pc, i};
        t[2 * i] = fxt_thread(consumer_main, &c[i]);
        t[2 * i + 1] = fxt_thread(producer_main, &pc);
    }
    for (int i = 0; i < 2 * PC_THREADS; i++)
        fxt_join(t[i]);
    assert_int_equal(pc.errors, 0);
    for (int i = 0; i < PC_THREADS; i++)
        assert_int_equal(pc.consumed[i], PC_ITEMS);
    assert_int_equal(fx_sem_value(&pc.items), 0);
    assert_int_equal(fx_sem_value(&spaces), 8);
    assert_int_equal(pc.items.waiters, 0);
    assert_int_equal(spaces.waiters, 0);
}

struct racer {
    fx_sem *s;
    long taken;
    long timeouts;
    int errors;
};

static void *timed_racer_main(void *p)
{
    struct racer *r = p;
    for (int i = 0; i < 3000; i++) {
        struct timespec d = fx_deadline_in((i % 7) * 20 * FX_NSEC_PER_USEC);
        int e = fx_sem_timedwait(r->s, &d);
        if (e == 0)
            r->taken++;
        else if (e == ETIMEDOUT)
            r->timeouts++;
        else
            r->errors++;
    }
    return NULL;
}

static void test_timeouts_racing_posts_lose_no_token(void **state)
{
    (void)state;
    enum { N = 3 };
    fx_sem s = FX_SEM_INIT(0);
    struct racer r[N];
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        r[i] = (struct racer){&s, 0, 0, 0};
        t[i] = fxt_thread(timed_racer_main, &r[i]);
    }
    long posted = 0;
    for (int i = 0; i < 6000; i++) {
        assert_int_equal(fx_sem_post(&s), 0);
        posted++;
        if (i % 16 == 0)
            sched_yield();
    }
    long taken = 0;
    for (int i = 0; i < N; i++) {
        fxt_join(t[i]);
        assert_int_equal(r[i].errors, 0);
        taken += r[i].taken;
    }
    assert_int_equal(taken + fx_sem_value(&s), posted);
    assert_int_equal(s.waiters, 0);
}

/* --- processes ------------------------------------------------------------- */

struct shared_pp {
    fx_sem ping;
    fx_sem pong;
    int32_t rounds_seen;
};

static int pong_child(void *p)
{
    struct shared_pp *sh = p;
    for (int i = 0; i < 2000; i++) {
        FXT_CHILD_CHECK(fx_sem_wait(&sh->ping) == 0, 1);
        FXT_CHILD_CHECK(sh->rounds_seen == 2 * i + 1, 2);
        sh->rounds_seen++;
        FXT_CHILD_CHECK(fx_sem_post(&sh->pong) == 0, 3);
    }
    return 0;
}

static void test_processes_ping_pong_in_shared_memory(void **state)
{
    (void)state;
    struct shared_pp *sh = fxt_shared_alloc(sizeof *sh); /* zero: both empty */
    pid_t pid = fxt_fork(pong_child, sh);
    for (int i = 0; i < 2000; i++) {
        assert_int_equal(sh->rounds_seen, 2 * i);
        sh->rounds_seen++;
        assert_int_equal(fx_sem_post(&sh->ping), 0);
        assert_int_equal(fx_sem_wait(&sh->pong), 0);
    }
    assert_int_equal(fxt_wait_child(pid, 30000), 0);
    assert_int_equal(sh->rounds_seen, 4000);
    fxt_shared_free(sh, sizeof *sh);
}

struct shared_many {
    fx_sem items;
    fx_sem done;
};

static int consumer_child(void *p)
{
    struct shared_many *sh = p;
    for (int i = 0; i < 1000; i++) {
        struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
        FXT_CHILD_CHECK(fx_sem_timedwait(&sh->items, &d) == 0, 1);
    }
    FXT_CHILD_CHECK(fx_sem_post(&sh->done) == 0, 2);
    return 0;
}

static void test_processes_share_tokens_exactly(void **state)
{
    (void)state;
    enum { CHILDREN = 3 };
    struct shared_many *sh = fxt_shared_alloc(sizeof *sh);
    pid_t pid[CHILDREN];
    for (int i = 0; i < CHILDREN; i++)
        pid[i] = fxt_fork(consumer_child, sh);
    for (int i = 0; i < CHILDREN * 1000; i++)
        assert_int_equal(fx_sem_post(&sh->items), 0);
    for (int i = 0; i < CHILDREN; i++) {
        struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
        assert_int_equal(fx_sem_timedwait(&sh->done, &d), 0);
    }
    for (int i = 0; i < CHILDREN; i++)
        assert_int_equal(fxt_wait_child(pid[i], 30000), 0);
    assert_int_equal(fx_sem_value(&sh->items), 0);
    assert_int_equal(sh->items.waiters, 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* --- signals --------------------------------------------------------------- */

static void test_signal_storm_never_interrupts_wait(void **state)
{
    (void)state;
    fx_sem s = FX_SEM_INIT(0);
    struct waiter w = {&s, -1, 0};
    pthread_t t = fxt_thread(waiter_main, &w);
    wait_slot(&s.waiters, 1);
    struct fxt_storm *storm = fxt_storm_start(t);
    fxt_storm_hits(100, 500); /* signals hit the sleeping waiter */
    assert_int_equal(__atomic_load_n(&w.result, __ATOMIC_ACQUIRE), -1);
    assert_int_equal(fx_sem_post(&s), 0);
    fxt_join(t);
    long n = fxt_storm_stop(storm);
    assert_true(n > 0);
    assert_int_equal(w.result, 0);
}

struct timed {
    fx_sem *s;
    int result;
    int64_t elapsed;
};

static void *timed_main(void *p)
{
    struct timed *t = p;
    int64_t t0 = fxt_now_ns();
    struct timespec d = fx_deadline_in(60 * FX_NSEC_PER_MSEC);
    t->result = fx_sem_timedwait(t->s, &d);
    t->elapsed = fxt_now_ns() - t0;
    return NULL;
}

static void test_signal_storm_keeps_timedwait_deadline(void **state)
{
    (void)state;
    fx_sem s = FX_SEM_INIT(0);
    struct timed tw = {&s, -1, 0};
    pthread_t t = fxt_thread(timed_main, &tw);
    struct fxt_storm *storm = fxt_storm_start(t);
    fxt_join(t);
    long n = fxt_storm_stop(storm);
    assert_true(n > 0);
    assert_int_equal(tw.result, ETIMEDOUT);
    assert_true(tw.elapsed >= 60 * FX_NSEC_PER_MSEC);
    assert_true(tw.elapsed < 10 * FX_NSEC_PER_SEC);
}

/* --- no system call when nobody waits -------------------------------------- */

static int uncontended_ops(void *p)
{
    fx_sem *s = p;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    for (int i = 0; i < 1000; i++) {
        FXT_CHILD_CHECK(fx_sem_post(s) == 0, 1);
        FXT_CHILD_CHECK(fx_sem_post(s) == 0, 2);
        FXT_CHILD_CHECK(fx_sem_post(s) == 0, 3);
        FXT_CHILD_CHECK(fx_sem_wait(s) == 0, 4);
        FXT_CHILD_CHECK(fx_sem_trywait(s) == 0, 5);
        FXT_CHILD_CHECK(fx_sem_timedwait(s, &d) == 0, 6);
        FXT_CHILD_CHECK(fx_sem_trywait(s) == EAGAIN, 7);
        FXT_CHILD_CHECK(fx_sem_value(s) == 0, 8);
    }
    FXT_CHILD_CHECK(fx_sem_init(s, FX_SEM_VALUE_MAX) == 0, 9);
    FXT_CHILD_CHECK(fx_sem_post(s) == EOVERFLOW, 10);
    return 0;
}

static void test_uncontended_operations_make_no_futex_call(void **state)
{
    (void)state;
    fx_sem *s = fxt_shared_alloc(sizeof *s);
    assert_int_equal(fxt_run_without_futex(s, sizeof *s, uncontended_ops, s), 0);
    fxt_shared_free(s, sizeof *s);
}

static int blocking_op(void *p)
{
    struct timespec d = fx_deadline_in(FX_NSEC_PER_MSEC);
    return fx_sem_timedwait(p, &d) == ETIMEDOUT ? 0 : 1;
}

static void test_no_futex_proof_catches_a_blocking_wait(void **state)
{
    (void)state;
    fx_sem *s = fxt_shared_alloc(sizeof *s);
    assert_int_equal(fxt_run_without_futex(s, sizeof *s, blocking_op, s), 128 + SIGSYS);
    fxt_shared_free(s, sizeof *s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_bytes_are_an_empty_semaphore),
        cmocka_unit_test(test_init_macro_and_function_set_the_value),
        cmocka_unit_test(test_init_rejects_value_outside_range),
        cmocka_unit_test(test_post_then_wait_takes_the_token),
        cmocka_unit_test(test_trywait_on_empty_gives_eagain),
        cmocka_unit_test(test_post_at_maximum_gives_eoverflow),
        cmocka_unit_test(test_posts_racing_at_maximum_all_overflow),
        cmocka_unit_test(test_timedwait_times_out),
        cmocka_unit_test(test_timedwait_with_passed_deadline_takes_available_token),
        cmocka_unit_test(test_timedwait_negative_seconds_is_a_passed_deadline),
        cmocka_unit_test(test_timedwait_bad_nanoseconds_einval_only_when_blocking),
        cmocka_unit_test(test_null_and_misaligned_give_einval),
        cmocka_unit_test(test_negative_value_slot_gives_einval),
        cmocka_unit_test(test_negative_waiters_slot_gives_einval_when_blocking),
        cmocka_unit_test(test_wait_with_waiters_slot_that_would_wrap_gives_einval_at_once),
        cmocka_unit_test(test_cancelled_wait_is_joined_and_leaves_no_waiter),
        cmocka_unit_test(test_cancelled_timedwait_is_joined_and_leaves_no_waiter),
        cmocka_unit_test(test_pending_cancellation_acts_at_a_wait_that_would_block),
        cmocka_unit_test(test_pending_cancellation_lets_a_wait_take_a_token_there),
        cmocka_unit_test(test_negative_waiters_slot_gives_einval_with_a_token_there),
        cmocka_unit_test(test_post_with_negative_waiters_slot_gives_einval_and_adds_nothing),
        cmocka_unit_test(test_wait_blocks_until_post),
        cmocka_unit_test(test_each_post_releases_exactly_one_waiter),
        cmocka_unit_test(test_threads_consume_every_post_exactly_once),
        cmocka_unit_test(test_timeouts_racing_posts_lose_no_token),
        cmocka_unit_test(test_processes_ping_pong_in_shared_memory),
        cmocka_unit_test(test_processes_share_tokens_exactly),
        cmocka_unit_test(test_signal_storm_never_interrupts_wait),
        cmocka_unit_test(test_signal_storm_keeps_timedwait_deadline),
        cmocka_unit_test(test_uncontended_operations_make_no_futex_call),
        cmocka_unit_test(test_no_futex_proof_catches_a_blocking_wait),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
