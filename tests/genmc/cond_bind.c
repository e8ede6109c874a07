/*
 * tests/genmc/cond_bind.c - fx_cond's W1..W2 (src/cond.c: the waiter count
 * and cond_bind, which records the waiters' mutex) for two waiters with
 * different fx_mutexes, under GenMC.
 *
 * Waiters with different mutexes are not serialized by a mutex, so the
 * record of which mutex the waiters use rests on a store-buffering test in
 * user space: each waiter counts itself (W1) and reads the mutex slot, and a
 * first waiter that replaced another mutex's token reads the count; of two
 * such waiters at least one must see the other and mark the slot MIXED
 * (otherwise a broadcast's driver, W7, would move the other's waiter onto its
 * own mutex word). The slot starts with the token of m[1], as a past
 * population of m[1]'s waiters leaves it: that is the case in which a waiter
 * of m[1] that finds its own token there records nothing.
 *
 * Two waiters, each holding its own mutex, call fx_cond_wait; once both are
 * asleep (queued in the futex model) the notifier asserts that the slot says
 * MIXED, then broadcasts, and both return holding their mutex.
 * Checks: the MIXED record (an assertion); no lost wake-up (--check-liveness:
 * both waiters return); the cond ends with no counted waiter and b cleared
 * or harmless, the mutexes free.
 */
#define FXG_COUNT_QUEUED
#include "model.h"

#include "src/mutex.c"
#include "src/rmutex.c"
#include "src/cond.c"

static fx_cond c;
static fx_mutex m[2];

static void *waiter(void *arg)
{
    int i = (int)(intptr_t)arg;
    fxg_thread_start((uint32_t)i + 1);
    assert(fx_mutex_lock(&m[i]) == 0);
    assert(fx_cond_wait(&c, &m[i]) == 0);
    assert(fx_mutex_unlock(&m[i]) == 0);
    return NULL;
}

static void *notifier(void *arg)
{
    (void)arg;
    fxg_thread_start(3);
    /* Both waiters are asleep on seq: each has passed W2 (the mutexes are
     * uncontended, so these are the only futex waits so far). */
    fxg_await_queued(2);
    assert(__atomic_load_n(&c.mutex, __ATOMIC_RELAXED) == TOKEN_MIXED);
    assert(fx_cond_broadcast(&c) == 0);
    return NULL;
}

int main(void)
{
    pthread_t w[2], n;
    c.mutex = cond_mutex_token(&c, &m[1]);
    for (int i = 0; i < 2; i++)
        pthread_create(&w[i], NULL, waiter, (void *)(intptr_t)i);
    pthread_create(&n, NULL, notifier, NULL);
    fxg_join(w, 2);
    pthread_join(n, NULL);
    assert(c.waiters == 0);
    assert(m[0].state == UNLOCKED && m[1].state == UNLOCKED);
    return 0;
}
