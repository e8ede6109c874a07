/* tests/test_rwlock.c - fx_rwlock: every return code, the fairness policy,
 * torn-read stress, threads, processes, signals, bad input, and the
 * no-system-call promise. */
#define _GNU_SOURCE
#include "fxfault.h"
#include "fxtest.h"
#include "fxt_threads.h"

#include <errno.h>
#include <futexsync.h>
#include <futexsync/layout.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RW_BIT FX_RWLOCK_READERS_WAITING
#define WW_BIT FX_RWLOCK_WRITERS_WAITING

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0) {
    }
}

/* A thread that takes the lock in one mode, records when, and releases it
 * when told to (or at once). */
struct locker {
    fx_rwlock *l;
    int write;           /* 1: wrlock, 0: rdlock */
    int timed;           /* use the timed variant with a long deadline */
    int hold;            /* 1: keep it until `release` is set */
    pid_t tid;           /* published before locking */
    int result;          /* the lock call's return, -1 before */
    int32_t *clock;      /* shared ticket counter */
    int32_t stamp;       /* ticket taken while holding the lock */
    int32_t release;     /* set by the test to make a holder unlock */
    int unlock_result;
    int specific;        /* unlock with rdunlock/wrunlock */
};

static void *locker_main(void *p)
{
    struct locker *k = p;
    __atomic_store_n(&k->tid, fxt_gettid(), __ATOMIC_RELEASE);
    int r;
    if (k->timed) {
        struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
        r = k->write ? fx_rwlock_timedwrlock(k->l, &d) : fx_rwlock_timedrdlock(k->l, &d);
    } else {
        r = k->write ? fx_rwlock_wrlock(k->l) : fx_rwlock_rdlock(k->l);
    }
    if (r == 0 && k->clock)
        k->stamp = __atomic_fetch_add(k->clock, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&k->result, r, __ATOMIC_RELEASE);
    if (r == 0) {
        if (k->hold)
            fxt_wait_slot(&k->release, 1);
        if (k->specific)
            k->unlock_result = k->write ? fx_rwlock_wrunlock(k->l) : fx_rwlock_rdunlock(k->l);
        else
            k->unlock_result = fx_rwlock_unlock(k->l);
    }
    return NULL;
}

static struct locker locker(fx_rwlock *l, int write, int32_t *clock)
{
    return (struct locker){l, write, 0, 0, 0, -1, clock, -1, 0, -1, 0};
}

/* --- modes and return codes ----------------------------------------------- */

static void test_zero_bytes_are_an_unlocked_lock(void **state)
{
    (void)state;
    fx_rwlock l;
    memset(&l, 0, sizeof l);
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(fx_rwlock_wrlock(&l), 0);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(l.state, 0);
    fx_rwlock m = FX_RWLOCK_INIT;
    assert_memory_equal(&l, &m, sizeof l);
    memset(&m, 0x5a, sizeof m);
    fx_rwlock_init(&m);
    assert_memory_equal(&l, &m, sizeof l);
}

static void test_readers_share_the_lock(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    assert_int_equal(fx_rwlock_tryrdlock(&l), 0);
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(fx_rwlock_timedrdlock(&l, &d), 0);
    assert_int_equal(l.state, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(l.state, 0);
}

static void test_writer_excludes_everyone(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    assert_int_equal(fx_rwlock_trywrlock(&l), 0);
    assert_int_equal(l.state, FX_RWLOCK_WRITE_LOCKED);
    assert_int_equal(fx_rwlock_tryrdlock(&l), EBUSY);
    assert_int_equal(fx_rwlock_trywrlock(&l), EBUSY);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(l.state, 0);
}

static void test_readers_exclude_writers(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    assert_int_equal(fx_rwlock_tryrdlock(&l), 0);
    assert_int_equal(fx_rwlock_trywrlock(&l), EBUSY);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(fx_rwlock_trywrlock(&l), 0);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
}

static void test_unlock_of_a_free_lock_gives_eperm(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    assert_int_equal(fx_rwlock_unlock(&l), EPERM);
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(fx_rwlock_unlock(&l), EPERM);
    assert_int_equal(l.state, 0);
}

static void test_mode_specific_unlocks_release_their_mode(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    assert_int_equal(fx_rwlock_rdunlock(&l), 0);
    assert_int_equal(l.state, 1);
    assert_int_equal(fx_rwlock_rdunlock(&l), 0);
    assert_int_equal(l.state, 0);
    assert_int_equal(fx_rwlock_wrlock(&l), 0);
    assert_int_equal(fx_rwlock_wrunlock(&l), 0);
    assert_int_equal(l.state, 0);
}

static void test_mode_specific_unlock_of_the_wrong_mode_gives_eperm(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    assert_int_equal(fx_rwlock_rdunlock(&l), EPERM); /* free */
    assert_int_equal(fx_rwlock_wrunlock(&l), EPERM);
    assert_int_equal(l.state, 0);
    assert_int_equal(fx_rwlock_wrlock(&l), 0);
    assert_int_equal(fx_rwlock_rdunlock(&l), EPERM); /* write-held */
    assert_int_equal(l.state, FX_RWLOCK_WRITE_LOCKED);
    assert_int_equal(fx_rwlock_wrunlock(&l), 0);
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    assert_int_equal(fx_rwlock_wrunlock(&l), EPERM); /* read-held */
    assert_int_equal(l.state, 1);
    assert_int_equal(fx_rwlock_rdunlock(&l), 0);
    fx_rwlock waiting = {FX_RWLOCK_READERS_WAITING, 0}; /* free, stale bit */
    assert_int_equal(fx_rwlock_rdunlock(&waiting), EPERM);
    assert_int_equal(fx_rwlock_wrunlock(&waiting), EPERM);
    assert_int_equal(waiting.state, FX_RWLOCK_READERS_WAITING);
}

static void test_too_many_readers_gives_eagain(void **state)
{
    (void)state;
    fx_rwlock l = {FX_RWLOCK_MAX_READERS, 0};
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(fx_rwlock_tryrdlock(&l), EAGAIN);
    assert_int_equal(fx_rwlock_rdlock(&l), EAGAIN);
    assert_int_equal(fx_rwlock_timedrdlock(&l, &d), EAGAIN);
    assert_int_equal(fx_rwlock_trywrlock(&l), EBUSY);
    assert_int_equal(l.state, FX_RWLOCK_MAX_READERS);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(fx_rwlock_tryrdlock(&l), 0);
    assert_int_equal(l.state, FX_RWLOCK_MAX_READERS);
}

static void test_timedwrlock_times_out_while_read_held(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    int64_t t0 = fxt_now_ns();
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_rwlock_timedwrlock(&l, &d), ETIMEDOUT);
    assert_true(fxt_now_ns() - t0 >= 30 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    /* The writer left no waiting bit behind. */
    assert_int_equal(l.state, 0);
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
}

static void test_timedrdlock_times_out_while_write_held(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    assert_int_equal(fx_rwlock_wrlock(&l), 0);
    int64_t t0 = fxt_now_ns();
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_rwlock_timedrdlock(&l, &d), ETIMEDOUT);
    assert_true(fxt_now_ns() - t0 >= 30 * FX_NSEC_PER_MSEC);
    d = fx_deadline_in(10 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_rwlock_timedwrlock(&l, &d), ETIMEDOUT);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(l.state, 0);
}

static void test_timed_locks_with_passed_deadline_succeed_when_free(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    struct timespec past = {0, 0};
    assert_int_equal(fx_rwlock_timedrdlock(&l, &past), 0);
    assert_int_equal(fx_rwlock_timedwrlock(&l, &past), ETIMEDOUT);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(fx_rwlock_timedwrlock(&l, &past), 0);
    assert_int_equal(fx_rwlock_timedrdlock(&l, &past), ETIMEDOUT);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
}

static void test_negative_seconds_is_a_passed_deadline(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    struct timespec d = {-1, 500};
    assert_int_equal(fx_rwlock_wrlock(&l), 0);
    assert_int_equal(fx_rwlock_timedrdlock(&l, &d), ETIMEDOUT);
    assert_int_equal(fx_rwlock_timedwrlock(&l, &d), ETIMEDOUT);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
}

static void test_bad_nanoseconds_einval_only_when_blocking(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    struct timespec bad = {0, 1000000000L};
    struct timespec neg = {0, -1};
    assert_int_equal(fx_rwlock_timedrdlock(&l, &bad), 0);
    assert_int_equal(fx_rwlock_timedwrlock(&l, &bad), EINVAL);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(fx_rwlock_timedwrlock(&l, &neg), 0);
    assert_int_equal(fx_rwlock_timedrdlock(&l, &neg), EINVAL);
    assert_int_equal(fx_rwlock_timedwrlock(&l, &bad), EINVAL);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(l.state, 0);
}

static void test_null_and_misaligned_give_einval(void **state)
{
    (void)state;
    _Alignas(8) char buf[16] = {0};
    fx_rwlock *bad = (fx_rwlock *)(void *)(buf + 2);
    struct timespec d = fx_deadline_in(0);
    fx_rwlock *objs[] = {NULL, bad};
    for (int i = 0; i < 2; i++) {
        fx_rwlock *l = objs[i];
        assert_int_equal(fx_rwlock_init(l), EINVAL);
        assert_int_equal(fx_rwlock_rdlock(l), EINVAL);
        assert_int_equal(fx_rwlock_tryrdlock(l), EINVAL);
        assert_int_equal(fx_rwlock_timedrdlock(l, &d), EINVAL);
        assert_int_equal(fx_rwlock_wrlock(l), EINVAL);
        assert_int_equal(fx_rwlock_trywrlock(l), EINVAL);
        assert_int_equal(fx_rwlock_timedwrlock(l, &d), EINVAL);
        assert_int_equal(fx_rwlock_unlock(l), EINVAL);
        assert_int_equal(fx_rwlock_rdunlock(l), EINVAL);
        assert_int_equal(fx_rwlock_wrunlock(l), EINVAL);
    }
    for (size_t i = 0; i < sizeof buf; i++)
        assert_int_equal(buf[i], 0);
}

static void test_state_never_written_gives_einval(void **state)
{
    (void)state;
    int32_t garbage[] = {0x01000000, 0x10000005, 0x3f000000, (int32_t)0xc1ffffffu};
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        fx_rwlock l = {garbage[i], 0};
        struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
        assert_int_equal(fx_rwlock_rdlock(&l), EINVAL);
        assert_int_equal(fx_rwlock_tryrdlock(&l), EINVAL);
        assert_int_equal(fx_rwlock_timedrdlock(&l, &d), EINVAL);
        assert_int_equal(fx_rwlock_wrlock(&l), EINVAL);
        assert_int_equal(fx_rwlock_trywrlock(&l), EINVAL);
        assert_int_equal(fx_rwlock_timedwrlock(&l, &d), EINVAL);
        assert_int_equal(fx_rwlock_unlock(&l), EINVAL);
        assert_int_equal(fx_rwlock_rdunlock(&l), EINVAL);
        assert_int_equal(fx_rwlock_wrunlock(&l), EINVAL);
        assert_int_equal(l.state, garbage[i]);
    }
}

/* --- blocking and the fairness policy ------------------------------------- */

static void test_writer_waits_for_readers_then_enters(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    struct locker w = locker(&l, 1, NULL);
    pthread_t t = fxt_thread(locker_main, &w);
    fxt_wait_sleeping(&w.tid, &l.writer_seq);
    assert_int_equal(__atomic_load_n(&w.result, __ATOMIC_ACQUIRE), -1);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(fx_rwlock_rdunlock(&l), 0); /* the last reader wakes it */
    fxt_join(t);
    assert_int_equal(w.result, 0);
    assert_int_equal(w.unlock_result, 0);
    assert_int_equal(l.state, 0);
}

static void test_waiting_writer_blocks_new_readers(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    int32_t clock = 0;
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    struct locker w = locker(&l, 1, &clock);
    pthread_t tw = fxt_thread(locker_main, &w);
    fxt_wait_bits(&l.state, WW_BIT, WW_BIT);
    /* A reader arriving now must wait for the writer. */
    assert_int_equal(fx_rwlock_tryrdlock(&l), EBUSY);
    struct timespec d = fx_deadline_in(20 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_rwlock_timedrdlock(&l, &d), ETIMEDOUT);
    struct locker r = locker(&l, 0, &clock);
    pthread_t tr = fxt_thread(locker_main, &r);
    fxt_wait_sleeping(&r.tid, &l.state);
    fxt_wait_sleeping(&w.tid, &l.writer_seq);
    assert_int_equal(fx_rwlock_unlock(&l), 0); /* last reader: the writer goes */
    fxt_join(tw);
    fxt_join(tr);
    assert_int_equal(w.result, 0);
    assert_int_equal(r.result, 0);
    assert_true(w.stamp < r.stamp);
    assert_int_equal(l.state, 0);
}

static void test_waiting_writer_goes_before_sleeping_readers(void **state)
{
    (void)state;
    enum { READERS = 3 };
    fx_rwlock l = FX_RWLOCK_INIT;
    int32_t clock = 0;
    assert_int_equal(fx_rwlock_wrlock(&l), 0);
    struct locker r[READERS];
    pthread_t tr[READERS];
    for (int i = 0; i < READERS; i++) {
        r[i] = locker(&l, 0, &clock);
        r[i].timed = i & 1;
        r[i].hold = 1; /* all readers hold at once: they share the lock */
        r[i].specific = i & 1;
        tr[i] = fxt_thread(locker_main, &r[i]);
        fxt_wait_sleeping(&r[i].tid, &l.state);
    }
    struct locker w = locker(&l, 1, &clock);
    w.specific = 1;
    pthread_t tw = fxt_thread(locker_main, &w);
    fxt_wait_sleeping(&w.tid, &l.writer_seq);
    assert_int_equal(fxt_load(&l.state) & (RW_BIT | WW_BIT), RW_BIT | WW_BIT);
    assert_int_equal(fx_rwlock_wrunlock(&l), 0); /* the writer first ... */
    fxt_join(tw);
    assert_int_equal(w.result, 0);
    assert_int_equal(w.stamp, 0);
    for (int i = 0; i < READERS; i++)
        fxt_wait_slot(&r[i].result, 0); /* ... then all readers, together */
    assert_int_equal(fxt_load(&l.state) & 0x7fffff, READERS);
    for (int i = 0; i < READERS; i++)
        __atomic_store_n(&r[i].release, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < READERS; i++) {
        fxt_join(tr[i]);
        assert_int_equal(r[i].unlock_result, 0);
        assert_true(r[i].stamp >= 1);
    }
    assert_int_equal(l.state, 0);
}

static void test_each_waiting_writer_gets_its_turn(void **state)
{
    (void)state;
    enum { WRITERS = 3 };
    fx_rwlock l = FX_RWLOCK_INIT;
    int32_t clock = 0;
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    struct locker w[WRITERS];
    pthread_t tw[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
        w[i] = locker(&l, 1, &clock);
        w[i].timed = i & 1;
        tw[i] = fxt_thread(locker_main, &w[i]);
        fxt_wait_sleeping(&w[i].tid, &l.writer_seq);
    }
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    int seen = 0;
    for (int i = 0; i < WRITERS; i++) {
        fxt_join(tw[i]);
        assert_int_equal(w[i].result, 0);
        assert_int_equal(w[i].unlock_result, 0);
        seen |= 1 << w[i].stamp;
    }
    assert_int_equal(seen, (1 << WRITERS) - 1);
    assert_int_equal(l.state, 0);
}

#define WP_BIT FX_RWLOCK_WRITER_PENDING

/* Issue 11, class 6: a writer that times out while readers hold the lock
 * leaves no bit that keeps new readers out. */
static void test_timed_out_writer_lets_new_readers_in(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    struct timespec d = fx_deadline_in(40 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_rwlock_timedwrlock(&l, &d), ETIMEDOUT);
    assert_int_equal(l.state & (WP_BIT | WW_BIT), 0);
    assert_int_equal(fx_rwlock_tryrdlock(&l), 0);
    d = fx_deadline_in(40 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_rwlock_timedrdlock(&l, &d), 0);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(l.state, 0);
}

/* The same when the deadline has already passed (ETIMEDOUT at once). */
static void test_past_deadline_writer_lets_new_readers_in(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    struct timespec past = {0, 0};
    assert_int_equal(fx_rwlock_timedwrlock(&l, &past), ETIMEDOUT);
    struct timespec negative = {-1, 0};
    assert_int_equal(fx_rwlock_timedwrlock(&l, &negative), ETIMEDOUT);
    assert_int_equal(l.state & (WP_BIT | WW_BIT), 0);
    assert_int_equal(fx_rwlock_tryrdlock(&l), 0);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(l.state, 0);
}

/* A writer that gives up on a bad tv_nsec leaves nothing behind either. */
static void test_bad_deadline_writer_lets_new_readers_in(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    struct timespec bad = {0, 1000000000L};
    assert_int_equal(fx_rwlock_timedwrlock(&l, &bad), EINVAL);
    assert_int_equal(l.state & (WP_BIT | WW_BIT), 0);
    assert_int_equal(fx_rwlock_tryrdlock(&l), 0);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    assert_int_equal(l.state, 0);
}

/* A reader that holds the lock and waits for another reader to get in does
 * not deadlock because a writer timed out in between. */
static void test_reader_waiting_for_reader_survives_timed_out_writer(void **state)
{
    (void)state;
    fx_rwlock *l = fxt_arena(sizeof *l); /* a failed run leaves a thread on it */
    assert_int_equal(fx_rwlock_rdlock(l), 0);
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_rwlock_timedwrlock(l, &d), ETIMEDOUT);
    struct locker *r = fxt_arena(sizeof *r);
    *r = locker(l, 0, NULL); /* untimed rdlock */
    pthread_t tr = fxt_thread(locker_main, r);
    assert_true(fxt_join_timed(tr, 10000, NULL)); /* we hold: it must get in */
    assert_int_equal(r->result, 0);
    assert_int_equal(r->unlock_result, 0);
    assert_int_equal(fx_rwlock_unlock(l), 0);
    assert_int_equal(l->state, 0);
}

/* A writer that times out while another writer sleeps keeps the writer
 * preference of the one still waiting: new readers stay out. */
static void test_timed_out_writer_keeps_readers_out_for_a_waiting_writer(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    int32_t clock = 0;
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    struct locker w = locker(&l, 1, &clock);
    pthread_t tw = fxt_thread(locker_main, &w);
    fxt_wait_sleeping(&w.tid, &l.writer_seq);
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_rwlock_timedwrlock(&l, &d), ETIMEDOUT);
    /* The sleeping writer was woken and says again that it waits. */
    fxt_wait_bits(&l.state, WP_BIT | WW_BIT, WP_BIT | WW_BIT);
    assert_int_equal(fx_rwlock_tryrdlock(&l), EBUSY);
    assert_int_equal(__atomic_load_n(&w.result, __ATOMIC_ACQUIRE), -1);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    fxt_join(tw);
    assert_int_equal(w.result, 0);
    assert_int_equal(w.unlock_result, 0);
    assert_int_equal(l.state, 0);
}

static void test_timed_reader_leaving_does_not_strand_writers(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    assert_int_equal(fx_rwlock_wrlock(&l), 0);
    struct timespec d = fx_deadline_in(20 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_rwlock_timedrdlock(&l, &d), ETIMEDOUT);
    assert_int_equal(l.state & RW_BIT, RW_BIT);
    struct locker w = locker(&l, 1, NULL);
    pthread_t tw = fxt_thread(locker_main, &w);
    fxt_wait_sleeping(&w.tid, &l.writer_seq);
    assert_int_equal(fx_rwlock_unlock(&l), 0); /* RW is stale: the writer goes */
    fxt_join(tw);
    assert_int_equal(w.result, 0);
    assert_int_equal(l.state, 0);
}

/* --- processes that die while they wait (issue 11, classes 7 and 8) ------- */

static int sleeping_reader(void *arg)
{
    fx_rwlock *l = arg;
    FXT_CHILD_CHECK(fx_rwlock_rdlock(l) == 0, 2);
    FXT_CHILD_CHECK(fx_rwlock_unlock(l) == 0, 3);
    return 0;
}

static int sleeping_writer(void *arg)
{
    fx_rwlock *l = arg;
    FXT_CHILD_CHECK(fx_rwlock_wrlock(l) == 0, 2);
    FXT_CHILD_CHECK(fx_rwlock_unlock(l) == 0, 3);
    return 0;
}

static int wrlock_hold(void *arg)
{
    return fx_rwlock_wrlock(arg);
}

static int rwlock_release(void *arg)
{
    return fx_rwlock_unlock(arg);
}

/* The woken side of the wake window (fxfault.h): the releaser holds the
 * write lock; the victim writer sleeps, then `other` (a reader or a writer)
 * sleeps; the releaser releases (the wake goes to the victim, which sleeps
 * first and is the only one woken) and kills the victim before it runs.
 * Should the victim run first, it dies as soon as it comes back from that
 * sleep (the fault point after a writer's sleep), before it can look at the
 * lock, like a process killed between the kernel's wake and its return.
 * `other` must still get the lock, although no later release will wake it. */
static void kill_woken_writer(int (*other)(void *), size_t other_word_offset)
{
    fx_rwlock *l = fxt_shared_alloc(sizeof *l);
    const void *word = (const char *)l + other_word_offset;
    struct fxf_schedule s = {wrlock_hold, rwlock_release, other, word, l, 1};
    struct fxf_victim v = {sleeping_writer, &l->writer_seq, "rwlock.wrlock.slept"};
    struct fxf_result r;
    fxf_run_victim_wake_window(&s, &v, 10000, &r);
    print_message("     the other sleeper got the lock %.3f s after the release the killed "
                  "victim consumed\n",
                  (double)r.recovery_ns / 1e9);
    assert_int_equal(r.setup, 0); /* victim and other asleep */
    assert_int_equal(r.releaser, 0);
    assert_int_equal(r.victim, 128 + SIGKILL);
    assert_int_equal(r.bystander[0], 0);
    assert_int_equal(l->state & (int32_t)~(RW_BIT | WW_BIT | WP_BIT), 0);
    fxt_shared_free(l, sizeof *l);
}

static void test_killed_woken_writer_does_not_strand_sleeping_reader(void **state)
{
    (void)state;
    kill_woken_writer(sleeping_reader, offsetof(fx_rwlock, state));
}

static void test_killed_woken_writer_does_not_strand_sleeping_writer(void **state)
{
    (void)state;
    kill_woken_writer(sleeping_writer, offsetof(fx_rwlock, writer_seq));
}

/* A writer that waits and is killed: its WP/WW must not keep readers out
 * (for more than about a second; the bound asserted here is generous for a
 * loaded machine, the time is printed). */
static void dead_waiting_writer(bool release_first)
{
    fx_rwlock *l = fxt_shared_alloc(sizeof *l);
    assert_int_equal(fx_rwlock_rdlock(l), 0);
    pid_t w = fxt_fork(sleeping_writer, l);
    assert_true(fxt_wait_asleep(w, &l->writer_seq, 10000));
    assert_int_equal(fxt_load(&l->state) & (WP_BIT | WW_BIT), WP_BIT | WW_BIT);
    kill(w, SIGKILL);
    assert_int_equal(fxt_wait_child(w, 10000), 128 + SIGKILL);
    if (release_first)
        assert_int_equal(fx_rwlock_unlock(l), 0); /* free, WP left */
    int64_t t0 = fxt_now_ns();
    pid_t r = fxt_fork(sleeping_reader, l); /* an untimed rdlock */
    int rst = fxt_wait_child(r, 10000);
    int64_t dt = fxt_now_ns() - t0;
    print_message("     a new reader got in %.3f s after the waiting writer's death\n",
                  (double)dt / 1e9);
    assert_int_equal(rst, 0);
    if (!release_first)
        assert_int_equal(fx_rwlock_unlock(l), 0);
    assert_int_equal(l->state, 0);
    assert_int_equal(fx_rwlock_tryrdlock(l), 0);
    assert_int_equal(fx_rwlock_unlock(l), 0);
    fxt_shared_free(l, sizeof *l);
}

static void test_dead_waiting_writer_lets_readers_in_while_read_held(void **state)
{
    (void)state;
    dead_waiting_writer(false);
}

static void test_dead_waiting_writer_lets_readers_in_when_free(void **state)
{
    (void)state;
    dead_waiting_writer(true);
}

/* Issue 19: a reader killed in rdlock after its fast path failed (a writer
 * holds the lock, or waits for it) must leave no reader counted. The old fast
 * path added itself (fetch_add) and took the increment back after looking:
 * a reader killed between the two stayed counted for good, a phantom reader
 * every later writer waited for. The fault point rwlock.rdlock.slow is that
 * step: after the fast path's look, before anything else. */
static int reader_killed_after_fast_path(void *arg)
{
    fx_rwlock *l = arg;
    fxf_kill_at("rwlock.rdlock.slow");
    int r = fx_rwlock_rdlock(l);
    return r == 0 ? 1 : 2; /* not killed: 1 if it took a lock it should not have */
}

static void test_reader_killed_in_rdlock_while_write_held_leaves_no_reader(void **state)
{
    (void)state;
    fx_rwlock *l = fxt_shared_alloc(sizeof *l);
    assert_int_equal(fx_rwlock_wrlock(l), 0);
    assert_int_equal(fxt_wait_child(fxt_fork(reader_killed_after_fast_path, l), 10000),
                     128 + SIGKILL);
    assert_int_equal(fxt_load(&l->state) & 0x7fffff, 0); /* no reader counted */
    assert_int_equal(fx_rwlock_wrunlock(l), 0);
    /* A later writer gets in (with the phantom reader it timed out). */
    struct timespec d = fx_deadline_in(2 * FX_NSEC_PER_SEC);
    assert_int_equal(fx_rwlock_timedwrlock(l, &d), 0);
    assert_int_equal(fx_rwlock_wrunlock(l), 0);
    assert_int_equal(l->state, 0);
    fxt_shared_free(l, sizeof *l);
}

static void test_reader_killed_in_rdlock_while_a_writer_waits_lets_the_writer_in(void **state)
{
    (void)state;
    fx_rwlock *l = fxt_shared_alloc(sizeof *l);
    assert_int_equal(fx_rwlock_rdlock(l), 0);
    pid_t w = fxt_fork(sleeping_writer, l); /* waits for our read hold */
    assert_true(fxt_wait_asleep(w, &l->writer_seq, 10000));
    assert_int_equal(fxt_load(&l->state) & (WP_BIT | WW_BIT), WP_BIT | WW_BIT);
    int rst = fxt_wait_child(fxt_fork(reader_killed_after_fast_path, l), 10000);
    int32_t counted = fxt_load(&l->state) & 0x7fffff;
    int unlocked = fx_rwlock_rdunlock(l);
    /* The writer gets in and out (with the phantom reader it waited for
     * ever: fxt_wait_child kills it after 10 s). */
    int wst = fxt_wait_child(w, 10000);
    assert_int_equal(rst, 128 + SIGKILL);
    assert_int_equal(counted, 1); /* ours alone */
    assert_int_equal(unlocked, 0);
    assert_int_equal(wst, 0);
    assert_int_equal(fxt_load(&l->state) & 0x00ffffff, 0);
    assert_int_equal(fx_rwlock_tryrdlock(l), 0);
    assert_int_equal(fx_rwlock_rdunlock(l), 0);
    fxt_shared_free(l, sizeof *l);
}

/* Issue 19: a release by a thread that holds nothing costs that thread an
 * EPERM and nobody else anything. The old rdunlock subtracted first and took
 * the subtraction back: meanwhile the others saw a word it made up (a free
 * lock read as 0xffffffff, bad bits: a writer's lock gave EINVAL; a
 * write-held one read as R = max without WL: the writer's unlock gave EPERM,
 * and the lock could end write-held by nobody). The misusing thread runs
 * against writers only: while correct readers hold the lock, a read release
 * by a thread that holds nothing cannot be told from theirs (the lock tracks
 * no owners), as with pthread. */
struct misuse {
    fx_rwlock l;
    int32_t stop;      /* the writers are done */
    int32_t bad_misuse; /* misuse calls that did not return EPERM */
    int32_t bad_writer; /* writer calls that did not return 0 */
    int32_t held;       /* writers inside (mutual exclusion check) */
    int32_t overlap;    /* a writer found another inside */
};

#define MISUSE_PAIRS 100000

static void *misuse_writer(void *arg)
{
    struct misuse *m = arg;
    for (int i = 0; i < MISUSE_PAIRS; i++) {
        struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_SEC);
        int r = (i & 1) ? fx_rwlock_timedwrlock(&m->l, &d) : fx_rwlock_wrlock(&m->l);
        if (r != 0) {
            __atomic_fetch_add(&m->bad_writer, 1, __ATOMIC_RELAXED);
            continue;
        }
        if (__atomic_fetch_add(&m->held, 1, __ATOMIC_RELAXED) != 0)
            __atomic_fetch_add(&m->overlap, 1, __ATOMIC_RELAXED);
        __atomic_fetch_sub(&m->held, 1, __ATOMIC_RELAXED);
        r = (i & 2) ? fx_rwlock_wrunlock(&m->l) : fx_rwlock_unlock(&m->l);
        if (r != 0)
            __atomic_fetch_add(&m->bad_writer, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void *misuse_rdunlocker(void *arg)
{
    struct misuse *m = arg;
    while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
        if (fx_rwlock_rdunlock(&m->l) != EPERM)
            __atomic_fetch_add(&m->bad_misuse, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void test_rdunlock_without_a_read_hold_costs_the_writers_nothing(void **state)
{
    (void)state;
    struct misuse m;
    memset(&m, 0, sizeof m);
    pthread_t bad = fxt_thread(misuse_rdunlocker, &m);
    pthread_t w1 = fxt_thread(misuse_writer, &m);
    pthread_t w2 = fxt_thread(misuse_writer, &m);
    fxt_join(w1);
    fxt_join(w2);
    __atomic_store_n(&m.stop, 1, __ATOMIC_RELEASE);
    fxt_join(bad);
    assert_int_equal(m.bad_writer, 0);
    assert_int_equal(m.overlap, 0);
    assert_int_equal(m.bad_misuse, 0);
    assert_int_equal(m.l.state, 0); /* free, held by nobody, nobody waiting */
    assert_int_equal(fx_rwlock_trywrlock(&m.l), 0);
    assert_int_equal(fx_rwlock_wrunlock(&m.l), 0);
}

/* The same for the write release: a thread that holds nothing gets EPERM
 * while readers hold the lock, and the readers are not disturbed. */
static void *misuse_reader(void *arg)
{
    struct misuse *m = arg;
    for (int i = 0; i < MISUSE_PAIRS; i++) {
        if (fx_rwlock_rdlock(&m->l) != 0) {
            __atomic_fetch_add(&m->bad_writer, 1, __ATOMIC_RELAXED);
            continue;
        }
        if ((fxt_load(&m->l.state) & FX_RWLOCK_WRITE_LOCKED) != 0)
            __atomic_fetch_add(&m->overlap, 1, __ATOMIC_RELAXED);
        if (((i & 1) ? fx_rwlock_rdunlock(&m->l) : fx_rwlock_unlock(&m->l)) != 0)
            __atomic_fetch_add(&m->bad_writer, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void *misuse_wrunlocker(void *arg)
{
    struct misuse *m = arg;
    while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
        if (fx_rwlock_wrunlock(&m->l) != EPERM)
            __atomic_fetch_add(&m->bad_misuse, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void test_wrunlock_without_a_write_hold_costs_the_readers_nothing(void **state)
{
    (void)state;
    struct misuse m;
    memset(&m, 0, sizeof m);
    pthread_t bad = fxt_thread(misuse_wrunlocker, &m);
    pthread_t r1 = fxt_thread(misuse_reader, &m);
    pthread_t r2 = fxt_thread(misuse_reader, &m);
    fxt_join(r1);
    fxt_join(r2);
    __atomic_store_n(&m.stop, 1, __ATOMIC_RELEASE);
    fxt_join(bad);
    assert_int_equal(m.bad_writer, 0);
    assert_int_equal(m.overlap, 0);
    assert_int_equal(m.bad_misuse, 0);
    assert_int_equal(m.l.state, 0);
}

/* A live writer that waits longer than the stale time keeps the writer
 * preference: its sleep on writer_seq keeps readers out until it has had its
 * turn. */
static void test_live_waiting_writer_keeps_readers_out_past_the_stale_time(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    int32_t clock = 0;
    assert_int_equal(fx_rwlock_rdlock(&l), 0);
    struct locker w = locker(&l, 1, &clock);
    pthread_t tw = fxt_thread(locker_main, &w);
    fxt_wait_sleeping(&w.tid, &l.writer_seq);
    struct timespec d = fx_deadline_in(1500 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_rwlock_timedrdlock(&l, &d), ETIMEDOUT);
    assert_int_equal(fx_rwlock_tryrdlock(&l), EBUSY);
    assert_int_equal(__atomic_load_n(&w.result, __ATOMIC_ACQUIRE), -1);
    assert_int_equal(fx_rwlock_unlock(&l), 0);
    fxt_join(tw);
    assert_int_equal(w.result, 0);
    assert_int_equal(w.unlock_result, 0);
    assert_int_equal(l.state, 0);
}

/* --- issue 31: the writers' intent and the wakes it costs ----------------- */

enum { IDLE_WRITERS = 4 };

/* Voluntary context switches of thread tid of this process: its sleeps,
 * each ended by a wake, a recheck or a hand-off (-1 if unreadable). */
static long thread_wakeups(pid_t tid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
            break;
    fclose(f);
    return v;
}

/* Waits until, of the n writers, one sleeps on word as its designated sleeper
 * (futex(2)) and the others untimed (futex_waitv(2), src/sleep.c): the
 * designated one's index; -1 after 10 s; -2 when no writer ever slept
 * untimed (designation cannot be used here: futex_waitv or MADV_WIPEONFORK
 * missing, and every sleeper rechecks). */
static int writers_settled(const struct locker *w, int n, const void *word)
{
    int64_t limit = fxt_now_ns() + 10 * 1000000000LL;
    bool untimed_seen = false;
    while (fxt_now_ns() < limit) {
        int designated = -1, ones = 0, twos = 0;
        for (int i = 0; i < n; i++) {
            int how = fxt_futex_sleep_how(__atomic_load_n(&w[i].tid, __ATOMIC_ACQUIRE), word);
            if (how == 1) {
                ones++;
                designated = i;
            }
            twos += how == 2;
        }
        untimed_seen = untimed_seen || twos > 0;
        if (ones == 1 && twos == n - 1)
            return designated;
        sched_yield();
    }
    return untimed_seen ? -1 : -2;
}

/* Waits until thread tid has slept `more` times after `from`; false after
 * 10 s. */
static bool wakeups_reach(pid_t tid, long from, long more)
{
    int64_t limit = fxt_now_ns() + 10 * 1000000000LL;
    while (fxt_now_ns() < limit) {
        long n = thread_wakeups(tid);
        if (n >= 0 && n - from >= more)
            return true;
        sched_yield();
    }
    return false;
}

/* Issue 31: writers waiting behind a held write lock in shared memory pay
 * the rechecks of one of them, their designated sleeper (src/sleep.c), and
 * nothing more. The designated writer's recheck used to renew its intent by
 * moving writer_seq, the word the others sleep on, so each of its rechecks
 * handed every other writer a recheck of its own (the word had changed),
 * which renewed in turn: every waiting writer woke at every recheck. The
 * window is counted in the designated writer's rechecks, not in time. */
static void test_waiting_writers_in_shared_memory_do_not_wake_one_another(void **state)
{
    (void)state;
    fx_rwlock *l = fxt_shared_alloc(sizeof *l);
    struct locker *w = fxt_arena(IDLE_WRITERS * sizeof *w);
    pthread_t t[IDLE_WRITERS];
    assert_int_equal(fx_rwlock_wrlock(l), 0);
    for (int i = 0; i < IDLE_WRITERS; i++) {
        w[i] = locker(l, 1, NULL);
        t[i] = fxt_thread(locker_main, &w[i]);
        fxt_wait_sleeping(&w[i].tid, &l->writer_seq);
    }
    int d = writers_settled(w, IDLE_WRITERS, &l->writer_seq);
    if (d == -2) {
        assert_int_equal(fx_rwlock_unlock(l), 0);
        for (int i = 0; i < IDLE_WRITERS; i++)
            fxt_join(t[i]);
        fxt_shared_free(l, sizeof *l);
        print_message("     no designated sleeper here (futex_waitv or MADV_WIPEONFORK "
                      "missing): every waiter rechecks\n");
        skip();
    }
    assert_true(d >= 0);
    /* Two rechecks of the designated writer first: the others registered
     * while writer_seq moved for each one's first sleep (its declaration),
     * and the first recheck after that hands them one recheck. */
    long start = thread_wakeups(w[d].tid);
    assert_true(start >= 0);
    assert_true(wakeups_reach(w[d].tid, start, 2));
    long before[IDLE_WRITERS];
    for (int i = 0; i < IDLE_WRITERS; i++)
        before[i] = thread_wakeups(w[i].tid);
    enum { RECHECKS = 4 };
    assert_true(wakeups_reach(w[d].tid, before[d], RECHECKS));
    long designated = thread_wakeups(w[d].tid) - before[d];
    long others = 0;
    for (int i = 0; i < IDLE_WRITERS; i++)
        if (i != d)
            others += thread_wakeups(w[i].tid) - before[i];
    print_message("     %ld rechecks of the designated writer, %ld wake-ups of the %d others\n",
                  designated, others, IDLE_WRITERS - 1);
    assert_int_equal(fxt_futex_sleep_how(w[d].tid, &l->writer_seq), 1); /* still designated */
    assert_true(others < designated);
    assert_int_equal(fx_rwlock_unlock(l), 0);
    for (int i = 0; i < IDLE_WRITERS; i++) {
        fxt_join(t[i]);
        assert_int_equal(w[i].result, 0);
        assert_int_equal(w[i].unlock_result, 0);
    }
    assert_int_equal(l->state, 0);
    fxt_shared_free(l, sizeof *l);
}

/* The reader of blind_reader_child: it cannot open a file (its scope check
 * cannot tell private memory from shared), and waits with a deadline. */
struct blind_reader {
    fx_rwlock *l;
    int refused; /* 0 once openat is refused to this thread */
    int result;  /* its timedrdlock's */
};

static void *blind_reader_main(void *p)
{
    struct blind_reader *b = p;
    b->refused = fxt_refuse_syscall(SYS_openat, EACCES, 0);
    if (b->refused != 0)
        return NULL;
    struct timespec d = fx_deadline_in(3 * FX_NSEC_PER_SEC); /* past the stale time */
    b->result = fx_rwlock_timedrdlock(b->l, &d);
    if (b->result == 0)
        fx_rwlock_rdunlock(b->l);
    return NULL;
}

/* The child of test_reader_whose_scope_check_failed_does_not_strand_a_sleeping_writer:
 * 0, or the number of the check that failed. Everything is the child's own
 * private memory. */
static int blind_reader_child(void *arg)
{
    (void)arg;
    fx_rwlock *l = fxt_arena(sizeof *l);
    struct locker *w = fxt_arena(sizeof *w);
    struct blind_reader *b = fxt_arena(sizeof *b);
    *w = locker(l, 1, NULL);
    b->l = l;
    b->result = -1;
    FXT_CHILD_CHECK(fx_rwlock_rdlock(l) == 0, 1);
    fxf_count_at("futex.scope.private");
    pthread_t tw;
    FXT_CHILD_CHECK(pthread_create(&tw, NULL, locker_main, w) == 0, 2);
    /* The writer's first recheck found the memory private: from then on
     * it sleeps without rechecks (and stops looking at the lock). */
    int64_t limit = fxt_now_ns() + 10 * 1000000000LL;
    while (fxf_counted() < 1 && fxt_now_ns() < limit)
        sched_yield();
    FXT_CHILD_CHECK(fxf_counted() == 1, 3);
    FXT_CHILD_CHECK(fxt_wait_asleep(__atomic_load_n(&w->tid, __ATOMIC_ACQUIRE),
                                    &l->writer_seq, 10000),
                    4);
    fxf_count_at("futex.scope.shared");
    pthread_t tb;
    FXT_CHILD_CHECK(pthread_create(&tb, NULL, blind_reader_main, b) == 0, 5);
    FXT_CHILD_CHECK(fxt_join_timed(tb, 20000, NULL), 6);
    FXT_CHILD_CHECK(b->refused == 0, 7);
    FXT_CHILD_CHECK(fxf_counted() >= 1, 8); /* the reader's check said shared */
    FXT_CHILD_CHECK(b->result == 0 || b->result == ETIMEDOUT, 9);
    /* The reader has left: the last reader's release must reach the
     * writer. */
    FXT_CHILD_CHECK(fx_rwlock_rdunlock(l) == 0, 10);
    FXT_CHILD_CHECK(fxt_join_timed(tw, 10000, NULL), 11);
    FXT_CHILD_CHECK(w->result == 0 && w->unlock_result == 0, 12);
    FXT_CHILD_CHECK(l->state == 0, 13);
    return 0;
}

/* Issue 31: a private lock; a writer waits, and its scope check said private,
 * so it sleeps without rechecks; a reader whose scope check failed (a seccomp
 * filter refuses it openat) watched the writer's intent, took it for dead
 * after the stale time and cleared it without waking the writer, came in and
 * left: the writer slept for ever on a free lock. A failed scope check may
 * cost wake-ups, never a wake. */
static void test_reader_whose_scope_check_failed_does_not_strand_a_sleeping_writer(void **state)
{
    (void)state;
    fxt_require_seccomp();
    assert_int_equal(fxt_run_child(blind_reader_child, NULL), 0);
}

/* The child of test_fork_child_reader_is_not_kept_out_by_a_parent_writer:
 * its copy of the lock holds the parent's read hold and the intent of a
 * writer that does not exist here. */
static int fork_child_reader(void *arg)
{
    fx_rwlock *l = arg;
    FXT_CHILD_CHECK(fx_rwlock_rdunlock(l) == 0, 2); /* the copied hold */
    FXT_CHILD_CHECK(fx_rwlock_rdlock(l) == 0, 3);
    FXT_CHILD_CHECK(fx_rwlock_rdunlock(l) == 0, 4);
    return 0;
}

/* Issue 31: fork() while another thread waits to write a private lock: in the
 * child nobody holds the lock, and the intent is that of a thread that does
 * not exist there; a reader used to wait for ever (in private memory nobody
 * watched the intent). */
static void test_fork_child_reader_is_not_kept_out_by_a_parent_writer(void **state)
{
    (void)state;
    fx_rwlock *l = fxt_arena(sizeof *l);
    assert_int_equal(fx_rwlock_rdlock(l), 0);
    struct locker *w = fxt_arena(sizeof *w);
    *w = locker(l, 1, NULL);
    pthread_t tw = fxt_thread(locker_main, w);
    fxt_wait_sleeping(&w->tid, &l->writer_seq);
    assert_int_equal(fxt_load(&l->state) & (WP_BIT | WW_BIT), WP_BIT | WW_BIT);
    pid_t c = fxt_fork(fork_child_reader, l);
    assert_int_equal(fxt_wait_child(c, 20000), 0);
    assert_int_equal(__atomic_load_n(&w->result, __ATOMIC_ACQUIRE), -1); /* still waits here */
    assert_int_equal(fx_rwlock_rdunlock(l), 0);
    fxt_join(tw);
    assert_int_equal(w->result, 0);
    assert_int_equal(w->unlock_result, 0);
    assert_int_equal(l->state, 0);
}

/* --- stress: no torn reads, progress for both kinds ------------------------ */

enum { WORDS = 8 };

struct torn {
    fx_rwlock l;
    int32_t stop;
    int64_t data[WORDS]; /* protected by l: all equal between writes */
    long writes;         /* protected by l */
    int32_t bad_reads;
    int32_t errors;
};

static void check_read(struct torn *t)
{
    int64_t v = t->data[0];
    for (int i = 1; i < WORDS; i++)
        if (t->data[i] != v)
            __atomic_fetch_add(&t->bad_reads, 1, __ATOMIC_RELAXED);
}

static void write_all(struct torn *t)
{
    int64_t v = t->data[0] + 1;
    for (int i = 0; i < WORDS; i++)
        t->data[i] = v;
    t->writes++;
}

static int torn_step(struct torn *t, unsigned i)
{
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    int r;
    switch (i % 20) {
    case 0:
        r = fx_rwlock_wrlock(&t->l);
        break;
    case 1:
        r = fx_rwlock_timedwrlock(&t->l, &d);
        break;
    case 2:
        r = fx_rwlock_trywrlock(&t->l);
        if (r == EBUSY)
            return 0;
        break;
    case 3:
    case 4:
        r = fx_rwlock_tryrdlock(&t->l);
        if (r == EBUSY)
            return 0;
        break;
    case 5:
    case 6:
        r = fx_rwlock_timedrdlock(&t->l, &d);
        break;
    default:
        r = fx_rwlock_rdlock(&t->l);
        break;
    }
    if (r != 0)
        return 1;
    if (i % 20 < 3)
        write_all(t);
    else
        check_read(t);
    if ((i >> 5) & 1)
        return fx_rwlock_unlock(&t->l) != 0;
    return (i % 20 < 3 ? fx_rwlock_wrunlock(&t->l) : fx_rwlock_rdunlock(&t->l)) != 0;
}

static void *torn_main(void *p)
{
    struct torn *t = p;
    unsigned seed = (unsigned)(uintptr_t)&seed;
    for (int n = 0; n < 20000; n++) {
        seed = seed * 1103515245u + 12345u;
        if (torn_step(t, seed >> 8))
            __atomic_fetch_add(&t->errors, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void test_threads_never_see_a_torn_value(void **state)
{
    (void)state;
    enum { THREADS = 4 };
    struct torn *t = calloc(1, sizeof *t);
    assert_non_null(t);
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        th[i] = fxt_thread(torn_main, t);
    for (int i = 0; i < THREADS; i++)
        fxt_join(th[i]);
    assert_int_equal(t->errors, 0);
    assert_int_equal(t->bad_reads, 0);
    assert_true(t->writes > 0);
    assert_int_equal(t->data[WORDS - 1], t->writes);
    assert_int_equal(t->l.state, 0);
    free(t);
}

static int torn_child(void *p)
{
    struct torn *t = p;
    unsigned seed = (unsigned)getpid();
    for (int n = 0; n < 10000; n++) {
        seed = seed * 1103515245u + 12345u;
        FXT_CHILD_CHECK(torn_step(t, seed >> 8) == 0, 1);
    }
    return 0;
}

static void test_processes_never_see_a_torn_value(void **state)
{
    (void)state;
    enum { CHILDREN = 3 };
    struct torn *t = fxt_shared_alloc(sizeof *t);
    pid_t pid[CHILDREN];
    for (int i = 0; i < CHILDREN; i++)
        pid[i] = fxt_fork(torn_child, t);
    for (int i = 0; i < CHILDREN; i++)
        assert_int_equal(fxt_wait_child(pid[i], 60000), 0);
    assert_int_equal(t->bad_reads, 0);
    assert_true(t->writes > 0);
    assert_int_equal(t->data[0], t->writes);
    assert_int_equal(t->l.state, 0);
    fxt_shared_free(t, sizeof *t);
}

struct stream {
    fx_rwlock l;
    int32_t stop;
    int32_t running;
    long ops;
};

static void *reader_stream_main(void *p)
{
    struct stream *s = p;
    __atomic_fetch_add(&s->running, 1, __ATOMIC_RELEASE);
    long n = 0;
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        if (fx_rwlock_rdlock(&s->l) != 0)
            return NULL;
        for (volatile int i = 0; i < 200; i++) {
        }
        fx_rwlock_rdunlock(&s->l);
        n++;
    }
    __atomic_fetch_add(&s->ops, n, __ATOMIC_RELAXED);
    return NULL;
}

static void test_writer_progresses_under_a_reader_stream(void **state)
{
    (void)state;
    enum { READERS = 4, ROUNDS = 50 };
    struct stream s = {FX_RWLOCK_INIT, 0, 0, 0};
    pthread_t t[READERS];
    for (int i = 0; i < READERS; i++)
        t[i] = fxt_thread(reader_stream_main, &s);
    fxt_wait_slot(&s.running, READERS);
    int64_t worst = 0;
    for (int i = 0; i < ROUNDS; i++) {
        int64_t t0 = fxt_now_ns();
        struct timespec d = fx_deadline_in(5 * FX_NSEC_PER_SEC); /* generous */
        assert_int_equal(fx_rwlock_timedwrlock(&s.l, &d), 0);
        int64_t dt = fxt_now_ns() - t0;
        worst = dt > worst ? dt : worst;
        assert_int_equal(fx_rwlock_unlock(&s.l), 0);
    }
    __atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < READERS; i++)
        fxt_join(t[i]);
    assert_true(s.ops > 0);
    assert_true(worst < 5 * FX_NSEC_PER_SEC);
    assert_int_equal(s.l.state, 0);
}

/* --- signals ---------------------------------------------------------------- */

static void test_signal_storm_never_interrupts_blocked_locks(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    for (int write = 0; write < 2; write++) {
        /* Block a reader behind a writer, then a writer behind a reader. */
        assert_int_equal(write ? fx_rwlock_rdlock(&l) : fx_rwlock_wrlock(&l), 0);
        struct locker k = locker(&l, write, NULL);
        pthread_t t = fxt_thread(locker_main, &k);
        fxt_wait_sleeping(&k.tid, write ? (void *)&l.writer_seq : (void *)&l.state);
        struct fxt_storm *storm = fxt_storm_start(t);
        /* Until signals have hit the sleeper (a loaded machine may start
         * the storm late: wait for the handler runs, not for a time). */
        int64_t limit = fxt_now_ns() + 10 * FX_NSEC_PER_SEC;
        while (fxt_signal_count() < 20 && fxt_now_ns() < limit)
            sleep_ms(1);
        assert_int_equal(__atomic_load_n(&k.result, __ATOMIC_ACQUIRE), -1);
        assert_int_equal(fx_rwlock_unlock(&l), 0);
        fxt_join(t);
        assert_true(fxt_storm_stop(storm) > 0);
        assert_int_equal(k.result, 0);
        assert_int_equal(k.unlock_result, 0);
        assert_int_equal(l.state, 0);
    }
}

struct timed {
    fx_rwlock *l;
    int write;
    int result;
    int64_t elapsed;
};

static void *timed_main(void *p)
{
    struct timed *t = p;
    /* Start waiting once the storm reaches this thread (a loaded machine
     * may start it late), so that its signals fall into the wait. */
    int64_t limit = fxt_now_ns() + 10 * FX_NSEC_PER_SEC;
    while (fxt_signal_count() == 0 && fxt_now_ns() < limit)
        sleep_ms(1);
    int64_t t0 = fxt_now_ns();
    struct timespec d = fx_deadline_in(200 * FX_NSEC_PER_MSEC);
    t->result = t->write ? fx_rwlock_timedwrlock(t->l, &d) : fx_rwlock_timedrdlock(t->l, &d);
    t->elapsed = fxt_now_ns() - t0;
    return NULL;
}

static void test_signal_storm_keeps_the_deadline(void **state)
{
    (void)state;
    fx_rwlock l = FX_RWLOCK_INIT;
    assert_int_equal(fx_rwlock_wrlock(&l), 0);
    for (int write = 0; write < 2; write++) {
        struct timed tm = {&l, write, -1, 0};
        pthread_t t = fxt_thread(timed_main, &tm);
        struct fxt_storm *storm = fxt_storm_start(t);
        fxt_join(t);
        assert_true(fxt_storm_stop(storm) > 0);
        assert_int_equal(tm.result, ETIMEDOUT);
        assert_true(tm.elapsed >= 200 * FX_NSEC_PER_MSEC);
        assert_true(tm.elapsed < 10 * FX_NSEC_PER_SEC);
    }
    assert_int_equal(fx_rwlock_unlock(&l), 0);
}

/* --- no system call when uncontended ------------------------------------- */

static int uncontended_ops(void *p)
{
    fx_rwlock *l = p;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    for (int i = 0; i < 1000; i++) {
        FXT_CHILD_CHECK(fx_rwlock_rdlock(l) == 0, 1);
        FXT_CHILD_CHECK(fx_rwlock_tryrdlock(l) == 0, 2);
        FXT_CHILD_CHECK(fx_rwlock_timedrdlock(l, &d) == 0, 3);
        FXT_CHILD_CHECK(fx_rwlock_trywrlock(l) == EBUSY, 4);
        for (int k = 0; k < 3; k++)
            FXT_CHILD_CHECK(fx_rwlock_unlock(l) == 0, 5);
        FXT_CHILD_CHECK(fx_rwlock_wrlock(l) == 0, 6);
        FXT_CHILD_CHECK(fx_rwlock_tryrdlock(l) == EBUSY, 7);
        FXT_CHILD_CHECK(fx_rwlock_unlock(l) == 0, 8);
        FXT_CHILD_CHECK(fx_rwlock_trywrlock(l) == 0, 9);
        FXT_CHILD_CHECK(fx_rwlock_unlock(l) == 0, 10);
        FXT_CHILD_CHECK(fx_rwlock_timedwrlock(l, &d) == 0, 11);
        FXT_CHILD_CHECK(fx_rwlock_unlock(l) == 0, 12);
        FXT_CHILD_CHECK(fx_rwlock_unlock(l) == EPERM, 13);
        FXT_CHILD_CHECK(fx_rwlock_rdlock(l) == 0, 14);
        FXT_CHILD_CHECK(fx_rwlock_rdunlock(l) == 0, 15);
        FXT_CHILD_CHECK(fx_rwlock_wrlock(l) == 0, 16);
        FXT_CHILD_CHECK(fx_rwlock_wrunlock(l) == 0, 17);
    }
    return 0;
}

static void test_uncontended_operations_make_no_futex_call(void **state)
{
    (void)state;
    fx_rwlock *l = fxt_shared_alloc(sizeof *l);
    assert_int_equal(fxt_run_without_futex(l, sizeof *l, uncontended_ops, l), 0);
    fxt_shared_free(l, sizeof *l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_bytes_are_an_unlocked_lock),
        cmocka_unit_test(test_readers_share_the_lock),
        cmocka_unit_test(test_writer_excludes_everyone),
        cmocka_unit_test(test_readers_exclude_writers),
        cmocka_unit_test(test_unlock_of_a_free_lock_gives_eperm),
        cmocka_unit_test(test_mode_specific_unlocks_release_their_mode),
        cmocka_unit_test(test_mode_specific_unlock_of_the_wrong_mode_gives_eperm),
        cmocka_unit_test(test_too_many_readers_gives_eagain),
        cmocka_unit_test(test_timedwrlock_times_out_while_read_held),
        cmocka_unit_test(test_timedrdlock_times_out_while_write_held),
        cmocka_unit_test(test_timed_locks_with_passed_deadline_succeed_when_free),
        cmocka_unit_test(test_negative_seconds_is_a_passed_deadline),
        cmocka_unit_test(test_bad_nanoseconds_einval_only_when_blocking),
        cmocka_unit_test(test_null_and_misaligned_give_einval),
        cmocka_unit_test(test_state_never_written_gives_einval),
        cmocka_unit_test(test_writer_waits_for_readers_then_enters),
        cmocka_unit_test(test_waiting_writer_blocks_new_readers),
        cmocka_unit_test(test_waiting_writer_goes_before_sleeping_readers),
        cmocka_unit_test(test_each_waiting_writer_gets_its_turn),
        cmocka_unit_test(test_timed_out_writer_lets_new_readers_in),
        cmocka_unit_test(test_past_deadline_writer_lets_new_readers_in),
        cmocka_unit_test(test_bad_deadline_writer_lets_new_readers_in),
        cmocka_unit_test(test_reader_waiting_for_reader_survives_timed_out_writer),
        cmocka_unit_test(test_timed_out_writer_keeps_readers_out_for_a_waiting_writer),
        cmocka_unit_test(test_timed_reader_leaving_does_not_strand_writers),
        cmocka_unit_test(test_killed_woken_writer_does_not_strand_sleeping_reader),
        cmocka_unit_test(test_killed_woken_writer_does_not_strand_sleeping_writer),
        cmocka_unit_test(test_dead_waiting_writer_lets_readers_in_while_read_held),
        cmocka_unit_test(test_dead_waiting_writer_lets_readers_in_when_free),
        cmocka_unit_test(test_reader_killed_in_rdlock_while_write_held_leaves_no_reader),
        cmocka_unit_test(test_reader_killed_in_rdlock_while_a_writer_waits_lets_the_writer_in),
        cmocka_unit_test(test_rdunlock_without_a_read_hold_costs_the_writers_nothing),
        cmocka_unit_test(test_wrunlock_without_a_write_hold_costs_the_readers_nothing),
        cmocka_unit_test(test_live_waiting_writer_keeps_readers_out_past_the_stale_time),
        cmocka_unit_test(test_waiting_writers_in_shared_memory_do_not_wake_one_another),
        cmocka_unit_test(test_reader_whose_scope_check_failed_does_not_strand_a_sleeping_writer),
        cmocka_unit_test(test_fork_child_reader_is_not_kept_out_by_a_parent_writer),
        cmocka_unit_test(test_threads_never_see_a_torn_value),
        cmocka_unit_test(test_processes_never_see_a_torn_value),
        cmocka_unit_test(test_writer_progresses_under_a_reader_stream),
        cmocka_unit_test(test_signal_storm_never_interrupts_blocked_locks),
        cmocka_unit_test(test_signal_storm_keeps_the_deadline),
        cmocka_unit_test(test_uncontended_operations_make_no_futex_call),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
