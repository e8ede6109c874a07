/*
 * tests/test_regressions.c - regression tests for bug classes found in other
 * lock implementations (issue 4), where the primitive's own test file has no
 * test aimed at exactly that class. The README's "Regression classes" table
 * lists, for each class, these tests and the ones in the primitives' files.
 *
 *   the WAITERS/CONTENDED state lost while waiters remain: a thread woken
 *     from the kernel takes the lock back with the mark that makes its
 *     release wake the next sleeper (fx_mutex CONTENDED, fx_rmutex WAITERS,
 *     fx_rwlock WRITERS_WAITING, fx_once WAITERS after a take-over);
 *   a TID cached across fork: a child forked inside an fx_once initialiser
 *     acts with its own TID (it waits for its parent's initialiser instead of
 *     taking it for its own and failing with EDEADLK);
 *   a wake lost when a timed waiter times out at the same moment as the
 *     release: fx_cond (a signal at the deadline of one of two waiters always
 *     releases one of them) and fx_rmutex (a timed waiter that wins keeps the
 *     WAITERS mark for the sleeper behind it).
 *
 * Each test synchronizes with fxt_wait_asleep (the thread is queued on the
 * futex word) rather than with sleeps.
 */
#define _GNU_SOURCE
#include "fxtest.h"
#include "fxt_threads.h"

#include <errno.h>
#include <futexsync/cond.h>
#include <futexsync/layout.h>
#include <futexsync/mutex.h>
#include <futexsync/once.h>
#include <futexsync/rmutex.h>
#include <futexsync/rwlock.h>
#include <futexsync/time.h>
#include <sched.h>
#include <unistd.h>

#define ROUNDS 20

/* Two threads block on a held lock, each recording the lock word it finds
 * right after acquiring. */
struct contender {
    void *lock;
    pid_t tid;
    int32_t word;     /* an rmutex contender's owner word (fxt_rmutex_self_word) */
    int32_t seen;     /* the word while it held the lock */
    int32_t order;    /* 1: it acquired first, 2: second */
    int32_t *counter; /* shared acquisition order */
    int result;
};

static int32_t next_order(int32_t *counter)
{
    return __atomic_add_fetch(counter, 1, __ATOMIC_ACQ_REL);
}

/* --- fx_mutex: CONTENDED kept while sleepers remain -------------------------- */

static void *mutex_contender(void *arg)
{
    struct contender *c = arg;
    fx_mutex *m = c->lock;
    __atomic_store_n(&c->tid, fxt_gettid(), __ATOMIC_RELEASE);
    c->result = fx_mutex_lock(m);
    c->order = next_order(c->counter);
    c->seen = __atomic_load_n(&m->state, __ATOMIC_RELAXED);
    if (c->result == 0)
        c->result = fx_mutex_unlock(m);
    return NULL;
}

/* The first waiter woken by the unlock takes the mutex while the other still
 * sleeps: it must take it as CONTENDED, or its unlock would wake nobody. */
static void mutex_woken_waiter_keeps_contended_while_others_sleep(void **state)
{
    (void)state;
    for (int round = 0; round < ROUNDS; round++) {
        fx_mutex *m = fxt_arena(sizeof *m);
        int32_t *counter = fxt_arena(sizeof *counter);
        struct contender *c = fxt_arena(2 * sizeof *c);
        assert_int_equal(fx_mutex_lock(m), 0);
        pthread_t th[2];
        for (int i = 0; i < 2; i++) {
            c[i] = (struct contender){.lock = m, .counter = counter};
            th[i] = fxt_thread(mutex_contender, &c[i]);
            fxt_wait_sleeping(&c[i].tid, &m->state);
        }
        assert_int_equal(m->state, FX_MUTEX_CONTENDED);
        assert_int_equal(fx_mutex_unlock(m), 0);
        for (int i = 0; i < 2; i++) {
            assert_true(fxt_join_timed(th[i], 10000, NULL));
            assert_int_equal(c[i].result, 0);
        }
        struct contender *first = c[0].order == 1 ? &c[0] : &c[1];
        assert_int_equal(first->seen, FX_MUTEX_CONTENDED);
        assert_int_equal(m->state, FX_MUTEX_UNLOCKED);
    }
}

/* --- fx_rmutex: WAITERS kept while sleepers remain -------------------------- */

static void *rmutex_contender(void *arg)
{
    struct contender *c = arg;
    fx_rmutex *m = c->lock;
    c->word = fxt_rmutex_self_word(); /* read after the join */
    __atomic_store_n(&c->tid, fxt_gettid(), __ATOMIC_RELEASE);
    c->result = fx_rmutex_lock(m);
    c->order = next_order(c->counter);
    c->seen = __atomic_load_n(&m->owner, __ATOMIC_RELAXED);
    if (c->result == 0)
        c->result = fx_rmutex_unlock(m);
    return NULL;
}

/* As for fx_mutex: the waiter that gets the rmutex first, while the other
 * still waits, owns it as TID | WAITERS. (Blocked rmutex waiters also wake
 * every FXI_RMUTEX_RECHECK_MS to check that the owner lives, so the test looks
 * at the word, not only at whether both got through.) */
static void rmutex_woken_waiter_keeps_waiters_bit_while_others_sleep(void **state)
{
    (void)state;
    for (int round = 0; round < ROUNDS; round++) {
        fx_rmutex *m = fxt_arena(sizeof *m);
        int32_t *counter = fxt_arena(sizeof *counter);
        struct contender *c = fxt_arena(2 * sizeof *c);
        assert_int_equal(fx_rmutex_lock(m), 0);
        pthread_t th[2];
        for (int i = 0; i < 2; i++) {
            c[i] = (struct contender){.lock = m, .counter = counter};
            th[i] = fxt_thread(rmutex_contender, &c[i]);
            fxt_wait_sleeping(&c[i].tid, &m->owner);
        }
        assert_int_equal(m->owner, fxt_rmutex_self_word() | FX_RMUTEX_WAITERS);
        assert_int_equal(fx_rmutex_unlock(m), 0);
        for (int i = 0; i < 2; i++) {
            assert_true(fxt_join_timed(th[i], 10000, NULL));
            assert_int_equal(c[i].result, 0);
        }
        struct contender *first = c[0].order == 1 ? &c[0] : &c[1];
        assert_int_equal(first->seen, first->word | FX_RMUTEX_WAITERS);
        assert_int_equal(m->owner, 0);
    }
}

/* --- fx_rwlock: WRITERS_WAITING re-armed by a woken writer ------------------ */

static void *writer_contender(void *arg)
{
    struct contender *c = arg;
    fx_rwlock *l = c->lock;
    __atomic_store_n(&c->tid, fxt_gettid(), __ATOMIC_RELEASE);
    c->result = fx_rwlock_wrlock(l);
    c->order = next_order(c->counter);
    c->seen = __atomic_load_n(&l->state, __ATOMIC_RELAXED);
    if (c->result == 0)
        c->result = fx_rwlock_wrunlock(l);
    return NULL;
}

/* The unlock clears WRITERS_WAITING and wakes one writer; that writer, having
 * slept, sets it again when it acquires, because another writer may still
 * sleep on writer_seq (and here one does): its unlock must wake it. */
static void rwlock_woken_writer_rearms_writers_waiting_while_writers_sleep(void **state)
{
    (void)state;
    for (int round = 0; round < ROUNDS; round++) {
        fx_rwlock *l = fxt_arena(sizeof *l);
        int32_t *counter = fxt_arena(sizeof *counter);
        struct contender *c = fxt_arena(2 * sizeof *c);
        assert_int_equal(fx_rwlock_wrlock(l), 0);
        pthread_t th[2];
        for (int i = 0; i < 2; i++) {
            c[i] = (struct contender){.lock = l, .counter = counter};
            th[i] = fxt_thread(writer_contender, &c[i]);
            fxt_wait_sleeping(&c[i].tid, &l->writer_seq);
        }
        assert_true(l->state & FX_RWLOCK_WRITERS_WAITING);
        assert_int_equal(fx_rwlock_wrunlock(l), 0);
        for (int i = 0; i < 2; i++) {
            assert_true(fxt_join_timed(th[i], 10000, NULL));
            assert_int_equal(c[i].result, 0);
        }
        struct contender *first = c[0].order == 1 ? &c[0] : &c[1];
        assert_int_equal(first->seen & (FX_RWLOCK_WRITE_LOCKED | FX_RWLOCK_WRITERS_WAITING),
                         FX_RWLOCK_WRITE_LOCKED | FX_RWLOCK_WRITERS_WAITING);
        assert_int_equal(l->state, 0);
    }
}

/* --- fx_once: WAITERS kept by the thread that takes over --------------------- */

struct once_case {
    fx_once flag;
    pid_t tid[2];
    int32_t word[2]; /* each caller's identity word (fxt_rmutex_self_word) */
    int32_t runs;
    int32_t seen; /* the flag while the initialiser ran */
    int result[2];
};
static struct once_case *once_case;

static void once_takeover_init(void *arg)
{
    struct once_case *oc = arg;
    __atomic_add_fetch(&oc->runs, 1, __ATOMIC_ACQ_REL);
    /* The other caller is asleep on the flag again (it waits for us now).
     * The take-over comes at the first liveness check, which a slow machine
     * (an emulator) can reach before the other thread has even started: its
     * TID is awaited first. No assertion here (not the test's thread). */
    pid_t me = fxt_gettid();
    const pid_t *slot = &oc->tid[__atomic_load_n(&oc->tid[0], __ATOMIC_ACQUIRE) == me ? 1 : 0];
    int64_t limit = fxt_now_ns() + 10 * 1000000000LL;
    pid_t other;
    while ((other = __atomic_load_n(slot, __ATOMIC_ACQUIRE)) == 0 && fxt_now_ns() < limit)
        sched_yield();
    if (other == 0 || !fxt_wait_asleep(other, &oc->flag.state, 10000))
        return; /* seen stays 0: the test fails */
    oc->seen = __atomic_load_n(&oc->flag.state, __ATOMIC_ACQUIRE);
}

static void *once_caller(void *arg)
{
    int i = (int)(intptr_t)arg;
    struct once_case *oc = once_case;
    oc->word[i] = fxt_rmutex_self_word(); /* read after the join */
    __atomic_store_n(&oc->tid[i], fxt_gettid(), __ATOMIC_RELEASE);
    oc->result[i] = fx_once_call(&oc->flag, once_takeover_init, oc);
    return NULL;
}

/* Two callers sleep on a flag left RUNNING by a PROBED thread that no longer exists,
 * with WAITERS set (they set it, or found it). At their liveness check one
 * takes the initialiser over: it must keep WAITERS in the word, since the
 * other still sleeps on it, so that the end of the initialiser wakes it. The
 * initialiser looks at the word once the other caller is asleep again. */
static void once_takeover_keeps_waiters_for_the_other_sleeper(void **state)
{
    (void)state;
    struct once_case *oc = fxt_arena(sizeof *oc);
    once_case = oc;
    /* The largest TID (PID_MAX_LIMIT - 1): practically never allocated. */
    oc->flag.state = FX_ONCE_RUNNING | FX_ONCE_PROBED | FX_ONCE_WAITERS | FX_ONCE_TID_MASK;
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        th[i] = fxt_thread(once_caller, (void *)(intptr_t)i);
    for (int i = 0; i < 2; i++)
        assert_true(fxt_join_timed(th[i], 10000, NULL));
    assert_int_equal(oc->result[0], 0);
    assert_int_equal(oc->result[1], 0);
    assert_int_equal(oc->runs, 1);
    pid_t runner = oc->seen & FX_ONCE_TID_MASK;
    assert_true(runner == oc->tid[0] || runner == oc->tid[1]);
    /* The runner's own word: fx_once writes the identity word fx_rmutex does
     * (include/futexsync/layout.h). */
    int32_t word = oc->word[runner == oc->tid[0] ? 0 : 1];
    assert_int_equal(oc->seen, FX_ONCE_RUNNING | FX_ONCE_WAITERS | word);
    assert_int_equal(oc->flag.state, FX_ONCE_DONE);
}

/* --- fx_once: TID across fork ------------------------------------------------- */

struct once_fork {
    fx_once flag;
    int32_t runs;
};

static void once_fork_never(void *arg)
{
    struct once_fork *f = arg;
    __atomic_add_fetch(&f->runs, 1, __ATOMIC_ACQ_REL);
}

static int once_fork_child(void *arg)
{
    struct once_fork *f = arg;
    /* The parent's thread is inside the initialiser of this flag. A child
     * that believed it had the parent's TID would get EDEADLK at once; it
     * must wait until the parent's initialiser returns, and not run its own. */
    int r = fx_once_call(&f->flag, once_fork_never, f);
    FXT_CHILD_CHECK(r != EDEADLK, 10);
    FXT_CHILD_CHECK(r == 0, 11);
    FXT_CHILD_CHECK(__atomic_load_n(&f->runs, __ATOMIC_ACQUIRE) == 1, 12);
    return 0;
}

static pid_t once_fork_pid;
static void once_fork_init(void *arg)
{
    struct once_fork *f = arg;
    __atomic_store_n(&f->runs, 1, __ATOMIC_RELEASE);
    once_fork_pid = fxt_fork(once_fork_child, f);
    /* Return only once the child waits for us on the flag. */
    if (!fxt_wait_asleep(once_fork_pid, &f->flag.state, 10000))
        once_fork_pid = -once_fork_pid;
}

/* The initialiser's thread forks; the child calls fx_once_call on the same
 * (shared) flag, which names the parent's thread as its runner. */
static void once_fork_child_of_the_initialiser_waits_for_it(void **state)
{
    (void)state;
    struct once_fork *f = fxt_shared_alloc(sizeof *f);
    assert_int_equal(fx_once_call(&f->flag, once_fork_init, f), 0);
    assert_true(once_fork_pid > 0); /* the child was asleep on the flag */
    assert_int_equal(fxt_wait_child(once_fork_pid, 10000), 0);
    assert_int_equal(f->runs, 1);
    assert_int_equal(f->flag.state, FX_ONCE_DONE);
    fxt_shared_free(f, sizeof *f);
}

/* --- fx_cond: a signal racing a timed waiter's deadline ----------------------- */

struct cond_case {
    fx_mutex m;
    int32_t pad[3];
    fx_cond c;
    pid_t tid[2];
    struct timespec deadline;
    int result[2];
    int32_t done[2];
};
struct cond_arg {
    struct cond_case *cc;
    int i; /* 0: the timed waiter, 1: the untimed one */
};

static void *cond_waiter(void *arg)
{
    struct cond_arg *a = arg;
    struct cond_case *cc = a->cc;
    int i = a->i;
    int r = fx_mutex_lock(&cc->m);
    __atomic_store_n(&cc->tid[i], fxt_gettid(), __ATOMIC_RELEASE);
    if (r == 0) {
        r = i == 0 ? fx_cond_timedwait(&cc->c, &cc->m, &cc->deadline)
                   : fx_cond_wait(&cc->c, &cc->m);
        fx_mutex_unlock(&cc->m);
    }
    cc->result[i] = r;
    __atomic_store_n(&cc->done[i], 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Waits until the thread publishing its TID in *tid sleeps on addr, or has
 * finished (*done): a timed waiter may time out first. */
static void wait_asleep_or_done(const pid_t *tid, const int32_t *done, const void *addr)
{
    int64_t limit = fxt_now_ns() + 10 * 1000000000LL;
    while (!__atomic_load_n(done, __ATOMIC_ACQUIRE)) {
        pid_t t = __atomic_load_n(tid, __ATOMIC_ACQUIRE);
        if (t != 0 && fxt_wait_asleep(t, addr, 1))
            return;
        assert_true(fxt_now_ns() < limit);
    }
}

/* Reports how the rounds of a race went; true when both outcomes were seen
 * among the rounds released at their point (fxtest.h, fxt_race). */
static bool race_straddled(const char *what, const struct fxt_race *r)
{
    print_message("# %d rounds (%d released late): %d timed out, %d %s\n", r->rounds, r->late,
                  r->seen[0], r->seen[1], what);
    return r->seen[0] > 0 && r->seen[1] > 0;
}

static int signal_cond(void *c)
{
    return fx_cond_signal(c);
}

/* Waiter 1 waits without a deadline, waiter 0 with one a few ms away; a
 * single signal comes from 100 us before to 400 us after that deadline.
 * Either waiter 0 was released (it returns 0, even if its deadline passed
 * as it woke), or it timed out and the signal released waiter 1: a
 * timed-out waiter never swallows the wake. */
#define RACE_ROUNDS 84

static void cond_timeout_racing_signal_loses_no_wakeup(void **state)
{
    (void)state;
    struct fxt_race race = FXT_RACE_INIT;
    while (fxt_race_next(&race, RACE_ROUNDS)) {
        struct cond_case *cc = fxt_arena(sizeof *cc);
        struct cond_arg *args = fxt_arena(2 * sizeof *args);
        pthread_t th[2];
        args[1] = (struct cond_arg){cc, 1};
        th[1] = fxt_thread(cond_waiter, &args[1]);
        fxt_wait_sleeping(&cc->tid[1], &cc->c.seq);
        cc->deadline = fxt_race_deadline(&race);
        args[0] = (struct cond_arg){cc, 0};
        th[0] = fxt_thread(cond_waiter, &args[0]);
        wait_asleep_or_done(&cc->tid[0], &cc->done[0], &cc->c.seq);
        assert_int_equal(fxt_race_release(&race, &cc->deadline, signal_cond, &cc->c), 0);
        assert_true(fxt_join_timed(th[0], 10000, NULL));
        assert_true(cc->result[0] == 0 || cc->result[0] == ETIMEDOUT);
        fxt_race_count(&race, cc->result[0] == 0);
        if (cc->result[0] == ETIMEDOUT) {
            /* The signal's wake went to waiter 1 (nothing else will come). */
            assert_true(fxt_join_timed(th[1], 10000, NULL));
        } else {
            /* Waiter 0 was released. Waiter 1 may be too: a waiter that had
             * left the kernel at its deadline when the signal advanced the
             * sequence counts as released, and the signal's wake then finds
             * waiter 1 asleep (cond.h: exactly one only when all sleep). */
            assert_int_equal(fx_cond_broadcast(&cc->c), 0);
            assert_true(fxt_join_timed(th[1], 10000, NULL));
        }
        assert_int_equal(cc->result[1], 0);
        assert_int_equal(cc->c.waiters, 0);
    }
    /* The rounds straddled the race (otherwise it was not exercised). */
    assert_true(race_straddled("released", &race));
}

/* --- fx_rmutex: an unlock racing a timed waiter's deadline -------------------- */

struct rm_case {
    fx_rmutex m;
    pid_t tid[2];
    int32_t word; /* the timed waiter's owner word (fxt_rmutex_self_word) */
    struct timespec deadline;
    int result[2];
    int32_t done[2];
    int32_t held_word; /* the word while the timed waiter held the mutex */
};

static void *rm_timed_waiter(void *arg)
{
    struct rm_case *rc = arg;
    rc->word = fxt_rmutex_self_word(); /* read after the join */
    __atomic_store_n(&rc->tid[0], fxt_gettid(), __ATOMIC_RELEASE);
    int r = fx_rmutex_timedlock(&rc->m, &rc->deadline);
    if (r == 0) {
        rc->held_word = __atomic_load_n(&rc->m.owner, __ATOMIC_RELAXED);
        fx_rmutex_unlock(&rc->m);
    }
    rc->result[0] = r;
    __atomic_store_n(&rc->done[0], 1, __ATOMIC_RELEASE);
    return NULL;
}

static void *rm_waiter(void *arg)
{
    struct rm_case *rc = arg;
    __atomic_store_n(&rc->tid[1], fxt_gettid(), __ATOMIC_RELEASE);
    int r = fx_rmutex_lock(&rc->m);
    if (r == 0)
        fx_rmutex_unlock(&rc->m);
    rc->result[1] = r;
    __atomic_store_n(&rc->done[1], 1, __ATOMIC_RELEASE);
    return NULL;
}

/* As mutex_timeout_racing_unlock_loses_no_wake (tests/test_mutex.c), for
 * fx_rmutex: the owner unlocks around the deadline of a timed waiter while a
 * second waiter sleeps. Woken at its deadline, the timed waiter steps once
 * more and takes the free mutex; it has slept, so it must own it with WAITERS
 * set, which makes its unlock wake the second waiter. Otherwise it timed out
 * without taking the wake, and the second waiter gets the mutex. (A blocked
 * rmutex waiter also wakes every FXI_RMUTEX_RECHECK_MS to check the owner's
 * liveness, so a lost wake would only delay it: the test checks the mark.) */
static int unlock_rmutex(void *m)
{
    return fx_rmutex_unlock(m);
}

static void rmutex_timeout_racing_unlock_keeps_the_waiters_bit(void **state)
{
    (void)state;
    struct fxt_race race = FXT_RACE_INIT;
    while (fxt_race_next(&race, RACE_ROUNDS)) {
        struct rm_case *rc = fxt_arena(sizeof *rc);
        assert_int_equal(fx_rmutex_lock(&rc->m), 0);
        pthread_t t1 = fxt_thread(rm_waiter, rc);
        fxt_wait_sleeping(&rc->tid[1], &rc->m.owner);
        rc->deadline = fxt_race_deadline(&race);
        pthread_t t0 = fxt_thread(rm_timed_waiter, rc);
        wait_asleep_or_done(&rc->tid[0], &rc->done[0], &rc->m.owner);
        assert_int_equal(fxt_race_release(&race, &rc->deadline, unlock_rmutex, &rc->m), 0);
        assert_true(fxt_join_timed(t0, 10000, NULL));
        assert_true(fxt_join_timed(t1, 10000, NULL));
        assert_int_equal(rc->result[1], 0);
        if (rc->result[0] == 0)
            assert_int_equal(rc->held_word, rc->word | FX_RMUTEX_WAITERS);
        else
            assert_int_equal(rc->result[0], ETIMEDOUT);
        fxt_race_count(&race, rc->result[0] == 0);
        assert_int_equal(rc->m.owner, 0);
    }
    assert_true(race_straddled("acquired", &race));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mutex_woken_waiter_keeps_contended_while_others_sleep),
        cmocka_unit_test(rmutex_woken_waiter_keeps_waiters_bit_while_others_sleep),
        cmocka_unit_test(rwlock_woken_writer_rearms_writers_waiting_while_writers_sleep),
        cmocka_unit_test(once_takeover_keeps_waiters_for_the_other_sleeper),
        cmocka_unit_test(once_fork_child_of_the_initialiser_waits_for_it),
        cmocka_unit_test(cond_timeout_racing_signal_loses_no_wakeup),
        cmocka_unit_test(rmutex_timeout_racing_unlock_keeps_the_waiters_bit),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
