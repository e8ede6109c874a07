/*
 * tests/genmc/rmutex_async.c - fx_rmutex's event-loop acquirer
 * (src/internal/rmutex.h: fxi_rmutex_acquire_step, fxi_rmutex_abandon_wait;
 * what src/async/ builds on) giving up a wait, under GenMC with
 * -DFXG_TIMEOUT (its deadline passes once, at any point: model.h).
 *
 * Thread 1 holds the rmutex and unlocks it at any point. Thread 2, once
 * thread 1 holds it, acquires it step by step as the async layer does:
 * a step, and on EBUSY a futex wait on the word it names, bounded by its
 * deadline; after every wait it steps again, unless its deadline has
 * passed: then it gives up with fxi_rmutex_abandon_wait (it may have
 * consumed the wake of thread 1's unlock). Thread 3 locks the rmutex
 * with fx_rmutex_lock, once thread 1 holds it.
 * Checks: no two owners (an owner count, a plain counter); nobody hangs
 * (--check-liveness: thread 3 asleep after thread 2 took the only wake and
 * left is reported); the word ends FREE.
 */
#include "model.h"

#include "src/rmutex.c"

static fx_rmutex m;
static int holds;   /* thread 1 holds m: the others start */
static int owners;  /* atomic, relaxed: a witness */
static int counter; /* plain */
static int gave_up; /* thread 2's (plain: its own) */

static void inside(void)
{
    assert(__atomic_fetch_add(&owners, 1, __ATOMIC_RELAXED) == 0);
    counter++;
    __atomic_fetch_sub(&owners, 1, __ATOMIC_RELAXED);
}

static void *holder(void *arg)
{
    (void)arg;
    fxg_thread_start(1);
    assert(fx_rmutex_lock(&m) == 0);
    __atomic_store_n(&holds, 1, __ATOMIC_RELEASE);
    inside();
    assert(fx_rmutex_unlock(&m) == 0);
    return NULL;
}

static void *stepper(void *arg)
{
    (void)arg;
    fxg_thread_start(2);
    fxg_await(&holds);
    const struct timespec deadline = {1, 0};
    struct fxi_rmutex_waiter w;
    fxi_rmutex_waiter_init(&w, 0);
    for (;;) {
        int32_t *word, on;
        struct timespec recheck;
        int r = fxi_rmutex_acquire_step(&m, &w, &word, &on, &recheck);
        if (r == 0) {
            inside();
            assert(fx_rmutex_unlock(&m) == 0);
            return NULL;
        }
        assert(r == EBUSY);
        assert(word == &m.owner);
        /* The owner is not PROBED: no re-check, the caller's deadline. */
        fxi_futex_wait_raw(word, on, &deadline, FXI_BITSET_ANY);
        if (fxi_deadline_passed(&deadline)) {
            fxi_rmutex_abandon_wait(&m);
            gave_up = 1;
            return NULL;
        }
    }
}

static void *locker(void *arg)
{
    (void)arg;
    fxg_thread_start(3);
    fxg_await(&holds);
    assert(fx_rmutex_lock(&m) == 0);
    inside();
    assert(fx_rmutex_unlock(&m) == 0);
    return NULL;
}

int main(void)
{
    pthread_t t1, t2, t3;
    fxg_clock_start();
    pthread_create(&t1, NULL, holder, NULL);
    pthread_create(&t2, NULL, stepper, NULL);
    pthread_create(&t3, NULL, locker, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    pthread_join(t3, NULL);
    fxg_clock_join();
    assert(counter == 3 - gave_up);
    assert(m.owner == 0);
    return 0;
}
