/*
 * tests/test_mutex.c - the three-state mutex: fx_mutex_lock, trylock,
 * timedlock, unlock.
 *
 * Waiters are known to be blocked when fxt_wait_asleep() sees them in the
 * futex system call on the mutex word. A thread always unlocks what it locked
 * itself (the race detector models the mutex as a lock). Every wait for
 * another thread or process has a limit, so a lost wake fails a test instead
 * of hanging it; the objects threads use come from fxt_arena(), so a thread
 * that a failed test leaves blocked cannot disturb the next test. The
 * fork-based tests run first, before the process has threads.
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <errno.h>
#include <futexsync.h>
#include <futexsync/layout.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define LIMIT_MS 10000 /* generous limit for anything that must happen */

static int32_t state_of(fx_mutex *m)
{
    return __atomic_load_n(&m->state, __ATOMIC_SEQ_CST);
}

static void set_state(fx_mutex *m, int32_t v)
{
    __atomic_store_n(&m->state, v, __ATOMIC_SEQ_CST);
}

/* A thread that acquires m (lock, timedlock or trylock) and, if it got it,
 * bumps *count and unlocks (with `hold`: only once `release` is set).
 * Lockers live in fxt_arena() memory and copy their deadline. */
enum locker_op { OP_LOCK, OP_TIMEDLOCK, OP_TRYLOCK };

struct locker {
    fx_mutex *m;
    enum locker_op op;
    const struct timespec *deadline; /* NULL or &deadline_copy */
    struct timespec deadline_copy;
    int *count;      /* incremented under the lock when not NULL */
    int hold;        /* when acquired, set `acquired` and wait for `release` */
    pid_t tid;       /* published before the call */
    int32_t ready;   /* fxt_flag: tid set */
    int32_t acquired; /* fxt_flag: holding (with hold) */
    int32_t release; /* fxt_flag: may unlock now */
    int32_t done;    /* fxt_flag: returned */
    int result;      /* of the acquire */
    int unlock_result;
    int64_t returned_ns; /* fxt_now_ns() when the acquire returned */
    pthread_t thread;
};

static void *locker_main(void *p)
{
    struct locker *l = p;
    l->tid = fxt_gettid();
    fxt_flag_set(&l->ready, 1);
    switch (l->op) {
    case OP_LOCK:
        l->result = fx_mutex_lock(l->m);
        break;
    case OP_TIMEDLOCK:
        l->result = fx_mutex_timedlock(l->m, l->deadline);
        break;
    case OP_TRYLOCK:
        l->result = fx_mutex_trylock(l->m);
        break;
    }
    l->returned_ns = fxt_now_ns();
    if (l->result == 0) {
        if (l->count != NULL)
            (*l->count)++;
        if (l->hold) {
            fxt_flag_set(&l->acquired, 1);
            fxt_flag_wait(&l->release, 1, LIMIT_MS);
        }
        l->unlock_result = fx_mutex_unlock(l->m);
    }
    fxt_flag_set(&l->done, 1);
    return NULL;
}

static struct locker *locker_start(fx_mutex *m, enum locker_op op,
                                   const struct timespec *deadline, int *count, int hold)
{
    struct locker *l = fxt_arena(sizeof *l);
    l->m = m;
    l->op = op;
    if (deadline != NULL) {
        l->deadline_copy = *deadline;
        l->deadline = &l->deadline_copy;
    }
    l->count = count;
    l->hold = hold;
    l->result = -1;
    l->unlock_result = -1;
    l->thread = fxt_thread(locker_main, l);
    assert_true(fxt_flag_wait(&l->ready, 1, LIMIT_MS));
    return l;
}

/* Waits until the locker sleeps in the kernel on the mutex word. */
static void locker_wait_asleep(struct locker *l)
{
    assert_true(fxt_wait_asleep(l->tid, &l->m->state, LIMIT_MS));
}

/* Joins the locker (failing instead of hanging) and returns its result; an
 * acquired lock must have been released with 0. */
static int locker_join(struct locker *l)
{
    assert_true(fxt_join_timed(l->thread, LIMIT_MS, NULL));
    if (l->result == 0)
        assert_int_equal(l->unlock_result, 0);
    return l->result;
}

/* A thread holding m until released. */
static struct locker *holder_start(fx_mutex *m)
{
    struct locker *l = locker_start(m, OP_LOCK, NULL, NULL, 1);
    assert_true(fxt_flag_wait(&l->acquired, 1, LIMIT_MS));
    assert_int_equal(l->result, 0);
    return l;
}

/* A mutex for tests with threads (see fxt_arena). */
static fx_mutex *mutex_new(void)
{
    return fxt_arena(sizeof(fx_mutex));
}

static void holder_stop(struct locker *l)
{
    fxt_flag_set(&l->release, 1);
    assert_int_equal(locker_join(l), 0);
}

/* Cross-process ----------------------------------------------------------------- */

/* MAP_SHARED memory for the process tests. */
struct shared {
    fx_mutex m;
    int32_t count; /* protected by m */
    int32_t held;    /* fxt_flag */
    int32_t release; /* fxt_flag */
    int32_t go;      /* fxt_flag */
    pid_t parent_tid;
};

static struct shared *shared_new(void)
{
    return fxt_shared_alloc(sizeof(struct shared));
}

static void shared_free(struct shared *sh)
{
    fxt_shared_free(sh, sizeof *sh);
}

/* Child: lock, say so, hold until released, unlock. */
static int child_holds(void *p)
{
    struct shared *sh = p;
    FXT_CHILD_CHECK(fx_mutex_lock(&sh->m) == 0, 10);
    fxt_flag_set(&sh->held, 1);
    FXT_CHILD_CHECK(fxt_flag_wait(&sh->release, 1, LIMIT_MS), 11);
    FXT_CHILD_CHECK(fx_mutex_unlock(&sh->m) == 0, 12);
    return 0;
}

static void mutex_trylock_held_by_other_process_is_ebusy(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    pid_t pid = fxt_fork(child_holds, sh);
    assert_true(fxt_flag_wait(&sh->held, 1, LIMIT_MS));
    assert_int_equal(fx_mutex_trylock(&sh->m), EBUSY);
    assert_int_equal(state_of(&sh->m), FX_MUTEX_LOCKED);
    fxt_flag_set(&sh->release, 1);
    assert_int_equal(fxt_wait_child(pid, LIMIT_MS), 0);
    assert_int_equal(fx_mutex_trylock(&sh->m), 0); /* released by the child */
    assert_int_equal(fx_mutex_unlock(&sh->m), 0);
    shared_free(sh);
}

static void mutex_timedlock_held_by_other_process_times_out(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    pid_t pid = fxt_fork(child_holds, sh);
    assert_true(fxt_flag_wait(&sh->held, 1, LIMIT_MS));
    struct timespec d = fx_deadline_in(100 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_mutex_timedlock(&sh->m, &d), ETIMEDOUT);
    assert_true(fxt_now_ns() >= fxt_ts_ns(&d));
    fxt_flag_set(&sh->release, 1);
    assert_int_equal(fxt_wait_child(pid, LIMIT_MS), 0);
    assert_int_equal(state_of(&sh->m), FX_MUTEX_UNLOCKED);
    shared_free(sh);
}

/* Child: the parent holds the lock; trylock must fail with EBUSY. */
static int child_trylock_busy(void *p)
{
    struct shared *sh = p;
    FXT_CHILD_CHECK(fx_mutex_trylock(&sh->m) == EBUSY, 10);
    return 0;
}

static void mutex_trylock_in_child_while_parent_holds_is_ebusy(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    assert_int_equal(fx_mutex_lock(&sh->m), 0);
    assert_int_equal(fxt_run_child(child_trylock_busy, sh), 0);
    assert_int_equal(fx_mutex_unlock(&sh->m), 0);
    shared_free(sh);
}

/* Child: the parent holds the lock; timedlock must time out after the deadline. */
static int child_timedlock_times_out(void *p)
{
    struct shared *sh = p;
    struct timespec d = fx_deadline_in(100 * FX_NSEC_PER_MSEC);
    FXT_CHILD_CHECK(fx_mutex_timedlock(&sh->m, &d) == ETIMEDOUT, 10);
    FXT_CHILD_CHECK(fxt_now_ns() >= fxt_ts_ns(&d), 11);
    return 0;
}

static void mutex_timedlock_in_child_while_parent_holds_times_out(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    assert_int_equal(fx_mutex_lock(&sh->m), 0);
    assert_int_equal(fxt_run_child(child_timedlock_times_out, sh), 0);
    assert_int_equal(fx_mutex_unlock(&sh->m), 0);
    shared_free(sh);
}

/* Child: holds the lock until the parent sleeps on it, then unlocks, which
 * must wake the parent in the other process. */
static int child_releases_sleeping_parent(void *p)
{
    struct shared *sh = p;
    FXT_CHILD_CHECK(fx_mutex_lock(&sh->m) == 0, 10);
    fxt_flag_set(&sh->held, 1);
    FXT_CHILD_CHECK(fxt_wait_asleep(sh->parent_tid, &sh->m.state, LIMIT_MS), 11);
    FXT_CHILD_CHECK(__atomic_load_n(&sh->m.state, __ATOMIC_SEQ_CST) == FX_MUTEX_CONTENDED, 12);
    FXT_CHILD_CHECK(fx_mutex_unlock(&sh->m) == 0, 13);
    return 0;
}

static void mutex_timedlock_acquires_when_other_process_unlocks(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    sh->parent_tid = fxt_gettid();
    pid_t pid = fxt_fork(child_releases_sleeping_parent, sh);
    assert_true(fxt_flag_wait(&sh->held, 1, LIMIT_MS));
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    assert_int_equal(fx_mutex_timedlock(&sh->m, &d), 0);
    assert_int_equal(fxt_wait_child(pid, LIMIT_MS), 0);
    assert_int_equal(fx_mutex_unlock(&sh->m), 0);
    assert_int_equal(state_of(&sh->m), FX_MUTEX_UNLOCKED);
    shared_free(sh);
}

#define PROCS 4
#define PROC_ROUNDS 10000

static int child_increments(void *p)
{
    struct shared *sh = p;
    FXT_CHILD_CHECK(fxt_flag_wait(&sh->go, 1, LIMIT_MS), 10);
    for (int i = 0; i < PROC_ROUNDS; i++) {
        FXT_CHILD_CHECK(fx_mutex_lock(&sh->m) == 0, 11);
        sh->count++; /* plain read-modify-write: only the mutex protects it */
        FXT_CHILD_CHECK(fx_mutex_unlock(&sh->m) == 0, 12);
    }
    return 0;
}

static void mutex_excludes_across_processes(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    pid_t pids[PROCS];
    int status[PROCS];
    for (int i = 0; i < PROCS; i++)
        pids[i] = fxt_fork(child_increments, sh);
    fxt_flag_set(&sh->go, 1);
    for (int i = 0; i < PROCS; i++) /* reap them all before any assertion */
        status[i] = fxt_wait_child(pids[i], 60000);
    for (int i = 0; i < PROCS; i++)
        assert_int_equal(status[i], 0);
    assert_int_equal(sh->count, PROCS * PROC_ROUNDS);
    assert_int_equal(state_of(&sh->m), FX_MUTEX_UNLOCKED);
    shared_free(sh);
}

/* Child: blocks in lock (the parent holds it), then counts itself. */
static int child_waits_then_counts(void *p)
{
    struct shared *sh = p;
    FXT_CHILD_CHECK(fx_mutex_lock(&sh->m) == 0, 10);
    sh->count++;
    FXT_CHILD_CHECK(fx_mutex_unlock(&sh->m) == 0, 11);
    return 0;
}

static void mutex_all_process_waiters_acquire_after_release(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    assert_int_equal(fx_mutex_lock(&sh->m), 0);
    pid_t pids[3];
    int status[3];
    bool asleep = true;
    for (int i = 0; i < 3; i++)
        pids[i] = fxt_fork(child_waits_then_counts, sh);
    for (int i = 0; i < 3; i++)
        asleep = asleep && fxt_wait_asleep(pids[i], &sh->m.state, LIMIT_MS);
    int32_t seen = state_of(&sh->m);
    int unlocked = fx_mutex_unlock(&sh->m);
    for (int i = 0; i < 3; i++) /* reap them all before any assertion */
        status[i] = fxt_wait_child(pids[i], LIMIT_MS);
    assert_true(asleep);
    assert_int_equal(seen, FX_MUTEX_CONTENDED);
    assert_int_equal(unlocked, 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(status[i], 0);
    assert_int_equal(sh->count, 3);
    assert_int_equal(state_of(&sh->m), FX_MUTEX_UNLOCKED);
    shared_free(sh);
}

/* The no-system-call proof ------------------------------------------------------- */

static int uncontended_lock_unlock(void *p)
{
    fx_mutex *m = p;
    for (int i = 0; i < 1000; i++) {
        FXT_CHILD_CHECK(fx_mutex_lock(m) == 0, 10);
        FXT_CHILD_CHECK(fx_mutex_unlock(m) == 0, 11);
    }
    return 0;
}

static void mutex_uncontended_lock_and_unlock_make_no_futex_call(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fxt_run_without_futex(&m, sizeof m, uncontended_lock_unlock, &m), 0);
}

static int uncontended_trylock(void *p)
{
    fx_mutex *m = p;
    for (int i = 0; i < 1000; i++) {
        FXT_CHILD_CHECK(fx_mutex_trylock(m) == 0, 10);
        FXT_CHILD_CHECK(fx_mutex_unlock(m) == 0, 11);
    }
    return 0;
}

static void mutex_uncontended_trylock_makes_no_futex_call(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fxt_run_without_futex(&m, sizeof m, uncontended_trylock, &m), 0);
}

static int uncontended_timedlock(void *p)
{
    fx_mutex *m = p;
    struct timespec far = fx_deadline_in(60 * FX_NSEC_PER_SEC);
    struct timespec past = fx_deadline_in(-FX_NSEC_PER_SEC);
    for (int i = 0; i < 1000; i++) {
        FXT_CHILD_CHECK(fx_mutex_timedlock(m, &far) == 0, 10);
        FXT_CHILD_CHECK(fx_mutex_unlock(m) == 0, 11);
        FXT_CHILD_CHECK(fx_mutex_timedlock(m, &past) == 0, 12);
        FXT_CHILD_CHECK(fx_mutex_unlock(m) == 0, 13);
        FXT_CHILD_CHECK(fx_mutex_timedlock(m, NULL) == 0, 14);
        FXT_CHILD_CHECK(fx_mutex_unlock(m) == 0, 15);
    }
    return 0;
}

static void mutex_uncontended_timedlock_makes_no_futex_call(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fxt_run_without_futex(&m, sizeof m, uncontended_timedlock, &m), 0);
}

/* The failures that need no sleep make no futex call either. */
static int busy_trylock(void *p)
{
    fx_mutex *m = p;
    FXT_CHILD_CHECK(fx_mutex_lock(m) == 0, 10);
    for (int i = 0; i < 1000; i++)
        FXT_CHILD_CHECK(fx_mutex_trylock(m) == EBUSY, 11);
    FXT_CHILD_CHECK(fx_mutex_unlock(m) == 0, 12);
    return 0;
}

static void mutex_busy_trylock_makes_no_futex_call(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fxt_run_without_futex(&m, sizeof m, busy_trylock, &m), 0);
}

static int eperm_unlock(void *p)
{
    fx_mutex *m = p;
    FXT_CHILD_CHECK(fx_mutex_unlock(m) == EPERM, 10);
    return 0;
}

static void mutex_eperm_unlock_makes_no_futex_call(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fxt_run_without_futex(&m, sizeof m, eperm_unlock, &m), 0);
}

/* The proof is not vacuous: a timedlock that has to sleep is caught. */
static int contended_timedlock(void *p)
{
    fx_mutex *m = p;
    FXT_CHILD_CHECK(fx_mutex_lock(m) == 0, 10);
    struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_MSEC);
    FXT_CHILD_CHECK(fx_mutex_timedlock(m, &d) == ETIMEDOUT, 11);
    return 0; /* not reached: the futex wait kills the child */
}

static void mutex_sleeping_timedlock_is_caught_by_the_proof(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fxt_run_without_futex(&m, sizeof m, contended_timedlock, &m),
                     128 + SIGSYS);
}

/* Initial state and basic operations ---------------------------------------------- */

static void mutex_init_macro_is_unlocked(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_mutex_trylock(&m), 0);
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

static void mutex_zeroed_memory_is_unlocked(void **state)
{
    (void)state;
    fx_mutex m;
    memset(&m, 0, sizeof m);
    assert_int_equal(fx_mutex_trylock(&m), 0);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    fx_mutex *sm = fxt_shared_alloc(sizeof *sm); /* fresh zero pages */
    assert_int_equal(fx_mutex_lock(sm), 0);
    assert_int_equal(fx_mutex_unlock(sm), 0);
    fxt_shared_free(sm, sizeof *sm);
}

static void mutex_init_makes_it_unlocked(void **state)
{
    (void)state;
    fx_mutex m;
    memset(&m, 0xff, sizeof m);
    fx_mutex_init(&m);
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_mutex_trylock(&m), 0);
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

static void mutex_lock_then_unlock_returns_zero(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(fx_mutex_lock(&m), 0);
        assert_int_equal(fx_mutex_unlock(&m), 0);
    }
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
}

static void mutex_state_is_locked_when_uncontended(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fx_mutex_lock(&m), 0);
    assert_int_equal(m.state, FX_MUTEX_LOCKED);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    assert_int_equal(fx_mutex_trylock(&m), 0);
    assert_int_equal(m.state, FX_MUTEX_LOCKED);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(fx_mutex_timedlock(&m, &d), 0);
    assert_int_equal(m.state, FX_MUTEX_LOCKED);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
}

static void mutex_trylock_held_by_same_thread_is_ebusy(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fx_mutex_lock(&m), 0);
    assert_int_equal(fx_mutex_trylock(&m), EBUSY);
    assert_int_equal(m.state, FX_MUTEX_LOCKED);
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

static void mutex_trylock_held_by_other_thread_is_ebusy(void **state)
{
    (void)state;
    fx_mutex *m = mutex_new();
    struct locker *h = holder_start(m);
    assert_int_equal(fx_mutex_trylock(m), EBUSY);
    assert_int_equal(state_of(m), FX_MUTEX_LOCKED);
    holder_stop(h);
    assert_int_equal(fx_mutex_trylock(m), 0);
    assert_int_equal(fx_mutex_unlock(m), 0);
}

static void mutex_unlock_of_unlocked_is_eperm_and_stays_zero(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fx_mutex_unlock(&m), EPERM);
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_mutex_lock(&m), 0);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    assert_int_equal(fx_mutex_unlock(&m), EPERM); /* a second unlock */
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
}

/* Timed lock ------------------------------------------------------------------------ */

static void mutex_timedlock_held_by_other_thread_times_out(void **state)
{
    (void)state;
    fx_mutex *m = mutex_new();
    struct locker *h = holder_start(m);
    struct timespec d = fx_deadline_in(50 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_mutex_timedlock(m, &d), ETIMEDOUT);
    assert_true(fxt_now_ns() >= fxt_ts_ns(&d));
    holder_stop(h);
    assert_int_equal(state_of(m), FX_MUTEX_UNLOCKED);
}

/* Not before the deadline, and not long after it. */
static void mutex_timedlock_waits_until_the_deadline(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fx_mutex_lock(&m), 0);
    int64_t start = fxt_now_ns();
    struct timespec d = fx_deadline_in(200 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_mutex_timedlock(&m, &d), ETIMEDOUT);
    int64_t end = fxt_now_ns();
    assert_true(end >= fxt_ts_ns(&d));
    assert_true(end - start >= 200 * FX_NSEC_PER_MSEC);
    assert_true(end - fxt_ts_ns(&d) < 2 * FX_NSEC_PER_SEC);
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

/* As in POSIX: a lock that is free is taken whatever the deadline. */
static void mutex_timedlock_free_with_past_deadline_succeeds(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    struct timespec d = fx_deadline_in(-FX_NSEC_PER_SEC);
    assert_int_equal(fx_mutex_timedlock(&m, &d), 0);
    assert_int_equal(m.state, FX_MUTEX_LOCKED);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    struct timespec zero = {0, 0};
    assert_int_equal(fx_mutex_timedlock(&m, &zero), 0);
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

static void mutex_timedlock_free_with_negative_deadline_succeeds(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    struct timespec d = {-1, 0};
    assert_int_equal(fx_mutex_timedlock(&m, &d), 0);
    assert_int_equal(m.state, FX_MUTEX_LOCKED);
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

static void mutex_timedlock_held_with_negative_deadline_times_out_at_once(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fx_mutex_lock(&m), 0);
    struct timespec d = {-1, 0};
    int64_t start = fxt_now_ns();
    assert_int_equal(fx_mutex_timedlock(&m, &d), ETIMEDOUT);
    d.tv_sec = -1000000;
    d.tv_nsec = 999999999;
    assert_int_equal(fx_mutex_timedlock(&m, &d), ETIMEDOUT);
    assert_true(fxt_now_ns() - start < FX_NSEC_PER_SEC);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
}

static void mutex_timedlock_held_with_past_deadline_times_out_at_once(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fx_mutex_lock(&m), 0);
    struct timespec d = fx_deadline_in(-FX_NSEC_PER_MSEC);
    int64_t start = fxt_now_ns();
    assert_int_equal(fx_mutex_timedlock(&m, &d), ETIMEDOUT);
    assert_true(fxt_now_ns() - start < FX_NSEC_PER_SEC);
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

static void mutex_timedlock_held_with_bad_tv_nsec_is_einval(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fx_mutex_lock(&m), 0);
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    d.tv_nsec = -1;
    assert_int_equal(fx_mutex_timedlock(&m, &d), EINVAL);
    d.tv_nsec = 1000000000L;
    assert_int_equal(fx_mutex_timedlock(&m, &d), EINVAL);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
}

static void mutex_timedlock_free_with_bad_tv_nsec_succeeds(void **state)
{
    (void)state;
    fx_mutex m = FX_MUTEX_INIT;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    d.tv_nsec = -1;
    assert_int_equal(fx_mutex_timedlock(&m, &d), 0);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    d.tv_nsec = 1000000000L;
    assert_int_equal(fx_mutex_timedlock(&m, &d), 0);
    assert_int_equal(fx_mutex_unlock(&m), 0);
}

static void mutex_timedlock_null_deadline_waits_for_unlock(void **state)
{
    (void)state;
    fx_mutex *m = mutex_new();
    assert_int_equal(fx_mutex_lock(m), 0);
    struct locker *w = locker_start(m, OP_TIMEDLOCK, NULL, NULL, 0);
    locker_wait_asleep(w);
    assert_int_equal(fx_mutex_unlock(m), 0);
    assert_int_equal(locker_join(w), 0);
    assert_int_equal(state_of(m), FX_MUTEX_UNLOCKED);
}

/* The state word ---------------------------------------------------------------------- */

static void mutex_state_is_contended_after_a_waiter_slept(void **state)
{
    (void)state;
    fx_mutex *m = mutex_new();
    assert_int_equal(fx_mutex_lock(m), 0);
    assert_int_equal(state_of(m), FX_MUTEX_LOCKED);
    struct locker *w = locker_start(m, OP_LOCK, NULL, NULL, 1);
    locker_wait_asleep(w);
    assert_int_equal(state_of(m), FX_MUTEX_CONTENDED);
    assert_int_equal(fx_mutex_unlock(m), 0);
    /* The woken waiter cannot know it was the last: it holds it CONTENDED. */
    assert_true(fxt_flag_wait(&w->acquired, 1, LIMIT_MS));
    assert_int_equal(state_of(m), FX_MUTEX_CONTENDED);
    fxt_flag_set(&w->release, 1);
    assert_int_equal(locker_join(w), 0);
}

static void mutex_state_is_zero_after_the_last_unlock(void **state)
{
    (void)state;
    fx_mutex *m = mutex_new();
    assert_int_equal(fx_mutex_lock(m), 0);
    struct locker *w[2];
    for (int i = 0; i < 2; i++) {
        w[i] = locker_start(m, OP_LOCK, NULL, NULL, 0);
        locker_wait_asleep(w[i]);
    }
    assert_int_equal(fx_mutex_unlock(m), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(locker_join(w[i]), 0);
    assert_int_equal(state_of(m), FX_MUTEX_UNLOCKED);
}

/* Bad input --------------------------------------------------------------------------- */

static void mutex_null_is_einval(void **state)
{
    (void)state;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(fx_mutex_lock(NULL), EINVAL);
    assert_int_equal(fx_mutex_trylock(NULL), EINVAL);
    assert_int_equal(fx_mutex_timedlock(NULL, NULL), EINVAL);
    assert_int_equal(fx_mutex_timedlock(NULL, &d), EINVAL);
    assert_int_equal(fx_mutex_unlock(NULL), EINVAL);
    assert_int_equal(fx_mutex_init(NULL), EINVAL);
}

static void mutex_misaligned_is_einval(void **state)
{
    (void)state;
    _Alignas(4) char buf[8] = {0};
    char zero[8] = {0};
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    for (int off = 1; off < 4; off++) {
        fx_mutex *m = (fx_mutex *)(void *)(buf + off);
        assert_int_equal(fx_mutex_lock(m), EINVAL);
        assert_int_equal(fx_mutex_trylock(m), EINVAL);
        assert_int_equal(fx_mutex_timedlock(m, NULL), EINVAL);
        assert_int_equal(fx_mutex_timedlock(m, &d), EINVAL);
        assert_int_equal(fx_mutex_unlock(m), EINVAL);
        assert_int_equal(fx_mutex_init(m), EINVAL);
    }
    assert_memory_equal(buf, zero, sizeof buf); /* nothing was written */
}

static const int32_t garbage[] = {3, 7, -1, INT32_MIN, INT32_MAX, 0x100};
#define NGARBAGE (sizeof garbage / sizeof garbage[0])

/* Runs op on a mutex holding each garbage value, in a thread so that a hang
 * fails the test; every call must give EINVAL and leave the value alone. */
static void assert_garbage_einval(enum locker_op op, const struct timespec *deadline)
{
    for (size_t i = 0; i < NGARBAGE; i++) {
        fx_mutex *m = mutex_new();
        set_state(m, garbage[i]);
        struct locker *l = locker_start(m, op, deadline, NULL, 0);
        assert_true(fxt_join_timed(l->thread, LIMIT_MS, NULL));
        assert_int_equal(l->result, EINVAL);
        assert_int_equal(state_of(m), garbage[i]);
    }
}

static void mutex_lock_on_garbage_is_einval_and_leaves_it(void **state)
{
    (void)state;
    assert_garbage_einval(OP_LOCK, NULL);
}

static void mutex_trylock_on_garbage_is_einval_and_leaves_it(void **state)
{
    (void)state;
    assert_garbage_einval(OP_TRYLOCK, NULL);
}

static void mutex_timedlock_on_garbage_is_einval_and_leaves_it(void **state)
{
    (void)state;
    struct timespec far = fx_deadline_in(60 * FX_NSEC_PER_SEC);
    struct timespec past = fx_deadline_in(-FX_NSEC_PER_SEC);
    assert_garbage_einval(OP_TIMEDLOCK, NULL);
    assert_garbage_einval(OP_TIMEDLOCK, &far);
    assert_garbage_einval(OP_TIMEDLOCK, &past);
}

static void mutex_unlock_on_garbage_is_einval_and_leaves_it(void **state)
{
    (void)state;
    for (size_t i = 0; i < NGARBAGE; i++) {
        fx_mutex m;
        set_state(&m, garbage[i]);
        assert_int_equal(fx_mutex_unlock(&m), EINVAL);
        assert_int_equal(state_of(&m), garbage[i]);
    }
}

/* Mutual exclusion ---------------------------------------------------------------------- */

#define THREADS 4
#define THREAD_ROUNDS 100000

struct excl {
    fx_mutex m;
    int count; /* plain int: only the mutex protects it */
    int errors;
    pthread_barrier_t start;
};

static void *excl_main(void *p)
{
    struct excl *e = p;
    pthread_barrier_wait(&e->start);
    for (int i = 0; i < THREAD_ROUNDS; i++) {
        if (fx_mutex_lock(&e->m) != 0) {
            __atomic_fetch_add(&e->errors, 1, __ATOMIC_RELAXED);
            continue;
        }
        e->count++;
        if (fx_mutex_unlock(&e->m) != 0)
            __atomic_fetch_add(&e->errors, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void mutex_excludes_across_threads(void **state)
{
    (void)state;
    struct excl *e = fxt_arena(sizeof *e); /* zero: an unlocked mutex */
    assert_int_equal(pthread_barrier_init(&e->start, NULL, THREADS), 0);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        t[i] = fxt_thread(excl_main, e);
    for (int i = 0; i < THREADS; i++)
        assert_true(fxt_join_timed(t[i], 60000, NULL));
    pthread_barrier_destroy(&e->start);
    assert_int_equal(e->errors, 0);
    assert_int_equal(e->count, THREADS * THREAD_ROUNDS);
    assert_int_equal(state_of(&e->m), FX_MUTEX_UNLOCKED);
}

/* Signals ---------------------------------------------------------------------------- */

/* Lets the storm hit a sleeper: waits for it to sleep, then for some signals
 * (the handler may run late under a sanitizer, so this does not insist). */
static void let_storm_hit(struct locker *l)
{
    locker_wait_asleep(l);
    int64_t limit = fxt_now_ns() + 500 * FX_NSEC_PER_MSEC;
    while (fxt_signal_count() < 100 && fxt_now_ns() < limit)
        sched_yield();
    locker_wait_asleep(l); /* still (or again) blocked in the lock */
}

static void mutex_lock_under_signal_storm_never_returns_eintr(void **state)
{
    (void)state;
    fx_mutex *m = mutex_new();
    assert_int_equal(fx_mutex_lock(m), 0);
    struct locker *w = locker_start(m, OP_LOCK, NULL, NULL, 0);
    struct fxt_storm *s = fxt_storm_start(w->thread);
    let_storm_hit(w);
    assert_int_equal(fx_mutex_unlock(m), 0);
    bool done = fxt_flag_wait(&w->done, 1, LIMIT_MS);
    long signals = fxt_storm_stop(s);
    assert_true(done);
    assert_int_equal(locker_join(w), 0);
    assert_true(signals > 0);
    assert_int_equal(state_of(m), FX_MUTEX_UNLOCKED);
}

static void mutex_timedlock_under_signal_storm_keeps_the_deadline(void **state)
{
    (void)state;
    fx_mutex *m = mutex_new();
    assert_int_equal(fx_mutex_lock(m), 0);
    struct timespec d = fx_deadline_in(300 * FX_NSEC_PER_MSEC);
    struct locker *w = locker_start(m, OP_TIMEDLOCK, &d, NULL, 0);
    struct fxt_storm *s = fxt_storm_start(w->thread);
    bool done = fxt_flag_wait(&w->done, 1, LIMIT_MS);
    long signals = fxt_storm_stop(s);
    assert_true(done);
    assert_int_equal(locker_join(w), ETIMEDOUT);
    assert_true(w->returned_ns >= fxt_ts_ns(&d));
    assert_true(w->returned_ns - fxt_ts_ns(&d) < 2 * FX_NSEC_PER_SEC);
    assert_true(signals > 0);
    assert_int_equal(fx_mutex_unlock(m), 0);
}

/* A timed lock acquired under a storm: the wake still reaches it. */
static void mutex_timedlock_under_signal_storm_acquires_on_unlock(void **state)
{
    (void)state;
    fx_mutex *m = mutex_new();
    assert_int_equal(fx_mutex_lock(m), 0);
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    struct locker *w = locker_start(m, OP_TIMEDLOCK, &d, NULL, 0);
    struct fxt_storm *s = fxt_storm_start(w->thread);
    let_storm_hit(w);
    assert_int_equal(fx_mutex_unlock(m), 0);
    bool done = fxt_flag_wait(&w->done, 1, LIMIT_MS);
    long signals = fxt_storm_stop(s);
    assert_true(done);
    assert_int_equal(locker_join(w), 0);
    assert_true(signals > 0);
}

/* Regressions: lost wakes ------------------------------------------------------------ */

/* Waits until the locker sleeps on the word or has already returned (a
 * timed locker that was slow to start may time out before it sleeps). */
static void wait_asleep_or_done(struct locker *l)
{
    int64_t limit = fxt_now_ns() + LIMIT_MS * FX_NSEC_PER_MSEC;
    while (fxt_now_ns() < limit) {
        if (__atomic_load_n(&l->done, __ATOMIC_ACQUIRE))
            return;
        if (fxt_wait_asleep(l->tid, &l->m->state, 1))
            return;
    }
    fail_msg("locker neither slept nor returned");
}

/* A timed waiter T sleeps first (so the unlock's single wake goes to it), a
 * plain waiter P behind it; the holder unlocks just around T's deadline. If T
 * could consume the wake and then report ETIMEDOUT without passing the lock on
 * or re-marking the word, P would sleep forever. P must always get the lock. */
#define RACE_ROUNDS 200

static int unlock_mutex(void *m)
{
    return fx_mutex_unlock(m);
}

static void mutex_timeout_racing_unlock_loses_no_wake(void **state)
{
    (void)state;
    fx_mutex *m = mutex_new();
    struct fxt_race race = FXT_RACE_INIT;
    while (fxt_race_next(&race, RACE_ROUNDS)) {
        assert_int_equal(fx_mutex_lock(m), 0);
        struct timespec d = fxt_race_deadline(&race);
        struct locker *t = locker_start(m, OP_TIMEDLOCK, &d, NULL, 0);
        wait_asleep_or_done(t);
        struct locker *p = locker_start(m, OP_LOCK, NULL, NULL, 0);
        locker_wait_asleep(p);
        /* Unlock from 100 us before to 400 us after the deadline (the
         * kernel's timer slack and wake-up latency put the real race some
         * way after it), in 25 us steps (fxt_race_release). */
        assert_int_equal(fxt_race_release(&race, &d, unlock_mutex, m), 0);
        int rt = locker_join(t);
        assert_true(rt == 0 || rt == ETIMEDOUT);
        fxt_race_count(&race, rt == 0);
        assert_int_equal(locker_join(p), 0);
        assert_int_equal(state_of(m), FX_MUTEX_UNLOCKED);
    }
    /* The rounds released at their point straddled the race: T sometimes
     * got the lock, sometimes timed out (otherwise the test would not have
     * exercised the race). */
    print_message("# %d rounds (%d released late): %d timed out, %d acquired\n", race.rounds,
                  race.late, race.seen[0], race.seen[1]);
    assert_true(race.seen[0] > 0);
    assert_true(race.seen[1] > 0);
}

/* N waiters blocked; one release; all N must eventually acquire (each unlock
 * wakes the next, so the CONTENDED mark must survive while any remains). */
#define WAITERS 4
#define RELEASE_ROUNDS 30

static void mutex_all_waiters_acquire_after_release(void **state)
{
    (void)state;
    fx_mutex *m = mutex_new();
    for (int round = 0; round < RELEASE_ROUNDS; round++) {
        int *count = fxt_arena(sizeof *count);
        struct timespec far = fx_deadline_in(30 * FX_NSEC_PER_SEC);
        assert_int_equal(fx_mutex_lock(m), 0);
        struct locker *w[WAITERS];
        for (int i = 0; i < WAITERS; i++) {
            w[i] = locker_start(m, i % 2 ? OP_TIMEDLOCK : OP_LOCK, &far, count, 0);
            locker_wait_asleep(w[i]);
        }
        assert_int_equal(state_of(m), FX_MUTEX_CONTENDED);
        assert_int_equal(fx_mutex_unlock(m), 0);
        for (int i = 0; i < WAITERS; i++)
            assert_int_equal(locker_join(w[i]), 0);
        assert_int_equal(*count, WAITERS);
        assert_int_equal(state_of(m), FX_MUTEX_UNLOCKED);
    }
}

/* Like the above, but the releasing thread barges back in (lock and trylock
 * take a free word as LOCKED, not CONTENDED) several times while the woken
 * waiter is on its way: the sleepers must still all get through. */
static void mutex_barging_locker_strands_no_sleeper(void **state)
{
    (void)state;
    fx_mutex *m = mutex_new();
    for (int round = 0; round < RELEASE_ROUNDS; round++) {
        int *count = fxt_arena(sizeof *count);
        assert_int_equal(fx_mutex_lock(m), 0);
        struct locker *w[WAITERS];
        for (int i = 0; i < WAITERS; i++) {
            w[i] = locker_start(m, OP_LOCK, NULL, count, 0);
            locker_wait_asleep(w[i]);
        }
        for (int b = 0; b < 8; b++) {
            assert_int_equal(fx_mutex_unlock(m), 0);
            if (b % 2) {
                assert_int_equal(fx_mutex_lock(m), 0);
            } else {
                int r;
                while ((r = fx_mutex_trylock(m)) == EBUSY)
                    sched_yield();
                assert_int_equal(r, 0);
            }
        }
        assert_int_equal(fx_mutex_unlock(m), 0);
        for (int i = 0; i < WAITERS; i++)
            assert_int_equal(locker_join(w[i]), 0);
        assert_int_equal(*count, WAITERS);
        assert_int_equal(state_of(m), FX_MUTEX_UNLOCKED);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* Fork-based tests first, while this process has no other thread. */
        cmocka_unit_test(mutex_trylock_held_by_other_process_is_ebusy),
        cmocka_unit_test(mutex_timedlock_held_by_other_process_times_out),
        cmocka_unit_test(mutex_trylock_in_child_while_parent_holds_is_ebusy),
        cmocka_unit_test(mutex_timedlock_in_child_while_parent_holds_times_out),
        cmocka_unit_test(mutex_timedlock_acquires_when_other_process_unlocks),
        cmocka_unit_test(mutex_excludes_across_processes),
        cmocka_unit_test(mutex_all_process_waiters_acquire_after_release),
        cmocka_unit_test(mutex_uncontended_lock_and_unlock_make_no_futex_call),
        cmocka_unit_test(mutex_uncontended_trylock_makes_no_futex_call),
        cmocka_unit_test(mutex_uncontended_timedlock_makes_no_futex_call),
        cmocka_unit_test(mutex_busy_trylock_makes_no_futex_call),
        cmocka_unit_test(mutex_eperm_unlock_makes_no_futex_call),
        cmocka_unit_test(mutex_sleeping_timedlock_is_caught_by_the_proof),
        /* Single thread and threads. */
        cmocka_unit_test(mutex_init_macro_is_unlocked),
        cmocka_unit_test(mutex_zeroed_memory_is_unlocked),
        cmocka_unit_test(mutex_init_makes_it_unlocked),
        cmocka_unit_test(mutex_lock_then_unlock_returns_zero),
        cmocka_unit_test(mutex_state_is_locked_when_uncontended),
        cmocka_unit_test(mutex_trylock_held_by_same_thread_is_ebusy),
        cmocka_unit_test(mutex_trylock_held_by_other_thread_is_ebusy),
        cmocka_unit_test(mutex_unlock_of_unlocked_is_eperm_and_stays_zero),
        cmocka_unit_test(mutex_timedlock_held_by_other_thread_times_out),
        cmocka_unit_test(mutex_timedlock_waits_until_the_deadline),
        cmocka_unit_test(mutex_timedlock_free_with_past_deadline_succeeds),
        cmocka_unit_test(mutex_timedlock_free_with_negative_deadline_succeeds),
        cmocka_unit_test(mutex_timedlock_held_with_negative_deadline_times_out_at_once),
        cmocka_unit_test(mutex_timedlock_held_with_past_deadline_times_out_at_once),
        cmocka_unit_test(mutex_timedlock_held_with_bad_tv_nsec_is_einval),
        cmocka_unit_test(mutex_timedlock_free_with_bad_tv_nsec_succeeds),
        cmocka_unit_test(mutex_timedlock_null_deadline_waits_for_unlock),
        cmocka_unit_test(mutex_state_is_contended_after_a_waiter_slept),
        cmocka_unit_test(mutex_state_is_zero_after_the_last_unlock),
        cmocka_unit_test(mutex_null_is_einval),
        cmocka_unit_test(mutex_misaligned_is_einval),
        cmocka_unit_test(mutex_lock_on_garbage_is_einval_and_leaves_it),
        cmocka_unit_test(mutex_trylock_on_garbage_is_einval_and_leaves_it),
        cmocka_unit_test(mutex_timedlock_on_garbage_is_einval_and_leaves_it),
        cmocka_unit_test(mutex_unlock_on_garbage_is_einval_and_leaves_it),
        cmocka_unit_test(mutex_excludes_across_threads),
        cmocka_unit_test(mutex_lock_under_signal_storm_never_returns_eintr),
        cmocka_unit_test(mutex_timedlock_under_signal_storm_keeps_the_deadline),
        cmocka_unit_test(mutex_timedlock_under_signal_storm_acquires_on_unlock),
        cmocka_unit_test(mutex_timeout_racing_unlock_loses_no_wake),
        cmocka_unit_test(mutex_all_waiters_acquire_after_release),
        cmocka_unit_test(mutex_barging_locker_strands_no_sleeper),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
