/* tests/test_fault_wake.c - issue 11, class 7: a process killed in the wake
 * window, on either side, strands no sleeper of a process-shared fx_mutex,
 * fx_sem, fx_barrier, fx_counter or fx_cond (with fx_mutex and fx_rmutex).
 *
 * Each test forces its schedule with the fault harness (fxfault.h): the woken
 * side by a victim pinned to the releaser's CPU at SCHED_IDLE and killed
 * right after the release's FUTEX_WAKE picked it; the notifier side by the
 * library's FXI_FAULT point just before the wake. The bystanders must then get
 * through by the library's bounded sleeps (FXI_RECHECK_NS) alone: nothing else
 * ever wakes them. */
#define _GNU_SOURCE
#include "fxfault.h"
#include "fxtest.h"

#include <errno.h>
#include <futexsync.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* What each bystander is given to get through after the fault: the library
 * promises one recheck period; this is generous for a loaded machine. */
enum { RECOVER_MS = 15000 };

#define KILLED (128 + SIGKILL)

struct shared {
    fx_mutex m;
    fx_rmutex rm;
    fx_sem s;
    fx_barrier b;
    fx_counter n;
    fx_cond c;
    int32_t pred;
};

static struct shared *new_shared(void)
{
    return fxt_shared_alloc(sizeof(struct shared));
}

/* Prints the recovery time (the last bystander's return after the release). */
static void report(const char *what, const struct fxf_result *r)
{
    for (int i = 0; i < FXF_MAX_BYSTANDERS; i++)
        if (r->bystander[i] != 0 && r->bystander[i] != -2)
            return; /* not recovered: the assertions say so */
    printf("# %s: recovered in %lld ms\n", what, (long long)(r->recovery_ns / 1000000));
}

static void assert_recovered(const struct fxf_result *r, int bystanders)
{
    assert_int_equal(r->setup, 0);
    for (int i = 0; i < bystanders; i++)
        assert_int_equal(r->bystander[i], 0);
}

/* The woken side's schedule rests on the scheduler: the victim, at
 * SCHED_IDLE on the releaser's CPU, does not run between the wake and its
 * SIGKILL. On a loaded machine (ctest -j, other jobs on the CPU) or under an
 * emulator, whose releaser takes far longer from the wake to the kill, it
 * sometimes runs first: it consumes the wake and returns 0, the bystanders
 * get through, and the run tested nothing. Such a run is done again on
 * fresh objects, up to WINDOW_TRIES times; any other outcome is asserted.
 * s->arg is the test's struct shared and s->word lies in it; returns the
 * struct shared of the last run (the test's checks and free apply to it). */
enum { WINDOW_TRIES = 20 };

static struct shared *wake_window(struct fxf_schedule *s, int bystanders, struct fxf_result *r)
{
    struct shared *sh = s->arg;
    size_t off = (size_t)((const char *)s->word - (const char *)sh);
    for (int i = 1;; i++) {
        fxf_run_wake_window(s, RECOVER_MS, r);
        bool missed = r->setup == 0 && r->releaser == 0 && r->victim == 0;
        for (int b = 0; b < bystanders; b++)
            missed = missed && r->bystander[b] == 0;
        if (!missed || i == WINDOW_TRIES)
            return sh;
        printf("# run %d: the victim ran before its SIGKILL (a loaded CPU or an emulator):"
               " again on fresh objects\n", i);
        fxt_shared_free(sh, sizeof *sh);
        sh = new_shared();
        s->arg = sh;
        s->word = (const char *)sh + off;
    }
}

/* --- fx_mutex -------------------------------------------------------------- */

static int mutex_hold(void *a)
{
    return fx_mutex_lock(&((struct shared *)a)->m);
}

static int mutex_release(void *a)
{
    return fx_mutex_unlock(&((struct shared *)a)->m);
}

static int mutex_block(void *a)
{
    struct shared *sh = a;
    FXT_CHILD_CHECK(fx_mutex_lock(&sh->m) == 0, 1);
    FXT_CHILD_CHECK(fx_mutex_unlock(&sh->m) == 0, 2);
    return 0;
}

static void test_mutex_sleepers_recover_when_woken_process_dies(void **state)
{
    (void)state;
    struct shared *sh = new_shared();
    struct fxf_schedule s = {mutex_hold, mutex_release, mutex_block, &sh->m.state, sh, 1};
    struct fxf_result r;
    sh = wake_window(&s, 1, &r);
    report("mutex, woken process killed", &r);
    assert_int_equal(r.releaser, 0);
    assert_int_equal(r.victim, KILLED);
    assert_recovered(&r, 1);
    assert_int_equal(fx_mutex_trylock(&sh->m), 0); /* left free */
    fxt_shared_free(sh, sizeof *sh);
}

static void test_mutex_sleepers_recover_when_unlocker_dies_before_wake(void **state)
{
    (void)state;
    struct shared *sh = new_shared();
    struct fxf_schedule s = {mutex_hold, mutex_release, mutex_block, &sh->m.state, sh, 2};
    struct fxf_result r;
    fxf_run_notifier_death(&s, "mutex.unlock.before_wake", RECOVER_MS, &r);
    report("mutex, unlocker killed before its wake", &r);
    assert_int_equal(r.releaser, KILLED);
    assert_recovered(&r, 2);
    assert_int_equal(fx_mutex_trylock(&sh->m), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* --- fx_sem ---------------------------------------------------------------- */

static int sem_post(void *a)
{
    return fx_sem_post(&((struct shared *)a)->s);
}

static int sem_block(void *a)
{
    return fx_sem_wait(&((struct shared *)a)->s);
}

/* sem_block, then the token back, as a lock is released again: a victim
 * that ran before its SIGKILL (wake_window) then lets the bystander through,
 * and the run is seen to have tested nothing. Kept, the token would leave
 * the bystander asleep, as if the library had lost the wake. */
static int sem_block_and_repost(void *a)
{
    FXT_CHILD_CHECK(fx_sem_wait(&((struct shared *)a)->s) == 0, 1);
    FXT_CHILD_CHECK(fx_sem_post(&((struct shared *)a)->s) == 0, 2);
    return 0;
}

static void test_sem_sleepers_recover_when_woken_process_dies(void **state)
{
    (void)state;
    struct shared *sh = new_shared();
    struct fxf_schedule s = {NULL, sem_post, sem_block_and_repost, &sh->s.value, sh, 1};
    struct fxf_result r;
    sh = wake_window(&s, 1, &r);
    report("sem, woken process killed", &r);
    assert_int_equal(r.releaser, 0);
    assert_int_equal(r.victim, KILLED);
    assert_recovered(&r, 1);
    /* The bystander took the token (it got through) and gave it back. */
    assert_int_equal(fx_sem_value(&sh->s), 1);
    fxt_shared_free(sh, sizeof *sh);
}

static void test_sem_sleepers_recover_when_poster_dies_before_wake(void **state)
{
    (void)state;
    struct shared *sh = new_shared();
    struct fxf_schedule s = {NULL, sem_post, sem_block, &sh->s.value, sh, 1};
    struct fxf_result r;
    fxf_run_notifier_death(&s, "sem.post.before_wake", RECOVER_MS, &r);
    report("sem, poster killed before its wake", &r);
    assert_int_equal(r.releaser, KILLED);
    assert_recovered(&r, 1);
    assert_int_equal(fx_sem_value(&sh->s), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* --- fx_barrier ------------------------------------------------------------ */

enum { PARTIES = 3 }; /* two bystanders and the last arrival */

static int barrier_arrive(void *a)
{
    int r = fx_barrier_wait(&((struct shared *)a)->b, PARTIES);
    return r == 0 || r == FX_BARRIER_SERIAL_THREAD ? 0 : 1;
}

static void test_barrier_sleepers_recover_when_last_arrival_dies_before_wake(void **state)
{
    (void)state;
    struct shared *sh = new_shared();
    struct fxf_schedule s = {NULL, barrier_arrive, barrier_arrive, &sh->b.state, sh, 2};
    struct fxf_result r;
    fxf_run_notifier_death(&s, "barrier.last.before_wake", RECOVER_MS, &r);
    report("barrier, last arrival killed before its wake", &r);
    assert_int_equal(r.releaser, KILLED);
    assert_recovered(&r, 2);
    fxt_shared_free(sh, sizeof *sh);
}

/* --- fx_counter ------------------------------------------------------------ */

static int counter_add(void *a)
{
    fx_counter_add(&((struct shared *)a)->n, 1);
    return 0;
}

static int counter_block(void *a)
{
    return fx_counter_wait(&((struct shared *)a)->n, 1, NULL);
}

static void test_counter_waiters_recover_when_writer_dies_before_wake(void **state)
{
    (void)state;
    struct shared *sh = new_shared();
    struct fxf_schedule s = {NULL, counter_add, counter_block, &sh->n.value, sh, 2};
    struct fxf_result r;
    fxf_run_notifier_death(&s, "counter.before_wake", RECOVER_MS, &r);
    report("counter, writer killed before its wake", &r);
    assert_int_equal(r.releaser, KILLED);
    assert_recovered(&r, 2);
    fxt_shared_free(sh, sizeof *sh);
}

/* --- fx_cond with fx_mutex ------------------------------------------------- */

/* The notifier sets the predicate under the mutex and signals after
 * unlocking, so that dying at the signal's fault point holds no lock. */
static int cond_signal(void *a)
{
    struct shared *sh = a;
    FXT_CHILD_CHECK(fx_mutex_lock(&sh->m) == 0, 1);
    sh->pred = 1;
    FXT_CHILD_CHECK(fx_mutex_unlock(&sh->m) == 0, 2);
    return fx_cond_signal(&sh->c) == 0 ? 0 : 3;
}

static int cond_broadcast(void *a)
{
    struct shared *sh = a;
    FXT_CHILD_CHECK(fx_mutex_lock(&sh->m) == 0, 1);
    sh->pred = 1;
    FXT_CHILD_CHECK(fx_mutex_unlock(&sh->m) == 0, 2);
    return fx_cond_broadcast(&sh->c) == 0 ? 0 : 3;
}

static int cond_block(void *a)
{
    struct shared *sh = a;
    FXT_CHILD_CHECK(fx_mutex_lock(&sh->m) == 0, 1);
    while (!sh->pred)
        FXT_CHILD_CHECK(fx_cond_wait(&sh->c, &sh->m) == 0, 2);
    FXT_CHILD_CHECK(fx_mutex_unlock(&sh->m) == 0, 3);
    return 0;
}

static void test_cond_waiters_recover_when_signalled_process_dies(void **state)
{
    (void)state;
    struct shared *sh = new_shared();
    struct fxf_schedule s = {NULL, cond_signal, cond_block, &sh->c.seq, sh, 1};
    struct fxf_result r;
    sh = wake_window(&s, 1, &r);
    report("cond, signalled process killed", &r);
    assert_int_equal(r.releaser, 0);
    assert_int_equal(r.victim, KILLED);
    assert_recovered(&r, 1);
    fxt_shared_free(sh, sizeof *sh);
}

static void test_cond_waiters_recover_when_signaller_dies_before_wake(void **state)
{
    (void)state;
    struct shared *sh = new_shared();
    struct fxf_schedule s = {NULL, cond_signal, cond_block, &sh->c.seq, sh, 1};
    struct fxf_result r;
    fxf_run_notifier_death(&s, "cond.signal.before_wake", RECOVER_MS, &r);
    report("cond, signaller killed before its wake", &r);
    assert_int_equal(r.releaser, KILLED);
    assert_recovered(&r, 1);
    fxt_shared_free(sh, sizeof *sh);
}

static void test_cond_waiters_recover_when_broadcaster_dies_before_wake(void **state)
{
    (void)state;
    struct shared *sh = new_shared();
    struct fxf_schedule s = {NULL, cond_broadcast, cond_block, &sh->c.seq, sh, 3};
    struct fxf_result r;
    fxf_run_notifier_death(&s, "cond.broadcast.before_wake", RECOVER_MS, &r);
    report("cond, broadcaster killed before its wake", &r);
    assert_int_equal(r.releaser, KILLED);
    assert_recovered(&r, 3);
    fxt_shared_free(sh, sizeof *sh);
}

static void test_cond_parked_waiters_recover_when_broadcast_woken_process_dies(void **state)
{
    (void)state;
    struct shared *sh = new_shared();
    struct fxf_schedule s = {NULL, cond_broadcast, cond_block, &sh->c.seq, sh, 3};
    struct fxf_result r;
    sh = wake_window(&s, 3, &r);
    report("cond, broadcast's woken process killed", &r);
    assert_int_equal(r.releaser, 0);
    assert_int_equal(r.victim, KILLED);
    assert_recovered(&r, 3);
    fxt_shared_free(sh, sizeof *sh);
}

/* --- fx_cond with fx_rmutex ------------------------------------------------ */

static int rcond_signal(void *a)
{
    struct shared *sh = a;
    FXT_CHILD_CHECK(fx_rmutex_lock(&sh->rm) == 0, 1);
    sh->pred = 1;
    FXT_CHILD_CHECK(fx_rmutex_unlock(&sh->rm) == 0, 2);
    return fx_cond_signal(&sh->c) == 0 ? 0 : 3;
}

static int rcond_block(void *a)
{
    struct shared *sh = a;
    FXT_CHILD_CHECK(fx_rmutex_lock(&sh->rm) == 0, 1);
    while (!sh->pred)
        FXT_CHILD_CHECK(fx_cond_wait_rmutex(&sh->c, &sh->rm) == 0, 2);
    FXT_CHILD_CHECK(fx_rmutex_unlock(&sh->rm) == 0, 3);
    return 0;
}

static void test_rmutex_cond_waiters_recover_when_signalled_process_dies(void **state)
{
    (void)state;
    struct shared *sh = new_shared();
    struct fxf_schedule s = {NULL, rcond_signal, rcond_block, &sh->c.seq, sh, 1};
    struct fxf_result r;
    sh = wake_window(&s, 1, &r);
    report("rmutex cond, signalled process killed", &r);
    assert_int_equal(r.releaser, 0);
    assert_int_equal(r.victim, KILLED);
    assert_recovered(&r, 1);
    fxt_shared_free(sh, sizeof *sh);
}

static void test_rmutex_cond_waiters_recover_when_signaller_dies_before_wake(void **state)
{
    (void)state;
    struct shared *sh = new_shared();
    struct fxf_schedule s = {NULL, rcond_signal, rcond_block, &sh->c.seq, sh, 1};
    struct fxf_result r;
    fxf_run_notifier_death(&s, "cond.signal.before_wake", RECOVER_MS, &r);
    report("rmutex cond, signaller killed before its wake", &r);
    assert_int_equal(r.releaser, KILLED);
    assert_recovered(&r, 1);
    fxt_shared_free(sh, sizeof *sh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutex_sleepers_recover_when_woken_process_dies),
        cmocka_unit_test(test_mutex_sleepers_recover_when_unlocker_dies_before_wake),
        cmocka_unit_test(test_sem_sleepers_recover_when_woken_process_dies),
        cmocka_unit_test(test_sem_sleepers_recover_when_poster_dies_before_wake),
        cmocka_unit_test(test_barrier_sleepers_recover_when_last_arrival_dies_before_wake),
        cmocka_unit_test(test_counter_waiters_recover_when_writer_dies_before_wake),
        cmocka_unit_test(test_cond_waiters_recover_when_signalled_process_dies),
        cmocka_unit_test(test_cond_waiters_recover_when_signaller_dies_before_wake),
        cmocka_unit_test(test_cond_waiters_recover_when_broadcaster_dies_before_wake),
        cmocka_unit_test(test_cond_parked_waiters_recover_when_broadcast_woken_process_dies),
        cmocka_unit_test(test_rmutex_cond_waiters_recover_when_signalled_process_dies),
        cmocka_unit_test(test_rmutex_cond_waiters_recover_when_signaller_dies_before_wake),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
