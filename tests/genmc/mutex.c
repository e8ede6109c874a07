/*
 * tests/genmc/mutex.c - fx_mutex (src/mutex.c) under GenMC.
 *
 * NT threads (default 2) each take the mutex ITER times (default 2) with
 * fx_mutex_lock, or fx_mutex_trylock first when TRY is defined, and
 * increment a plain (non-atomic) counter inside.
 * Checks: no two owners (an owner count asserted 0 on entry); the critical
 * sections are ordered (GenMC reports any race on the plain counter: an
 * unlock's release not met by the next lock's acquire); the count is
 * conserved (NT * ITER at the end); no lost wake-up (--check-liveness: no
 * execution ends with a thread asleep on the word).
 * -DFXG_TIMEOUT: the first thread uses fx_mutex_timedlock, whose deadline
 * passes at any point (model.h): a timed-out attempt never got in and left
 * nothing that blocks the other thread.
 */
#include "model.h"

#include "src/mutex.c"

#ifndef NT
#define NT 2
#endif
#ifndef ITER
#define ITER 2
#endif

static fx_mutex m;
static int owners;  /* threads inside: atomic, relaxed (a witness only) */
static int counter; /* plain: the accesses must be ordered by the mutex */
static int timeouts; /* FXG_TIMEOUT: the first thread's ETIMEDOUTs (its own) */

static void *client(void *arg)
{
    fxg_thread_start((uint32_t)(intptr_t)arg + 1);
    for (int i = 0; i < ITER; i++) {
#ifdef TRY
        if (fx_mutex_trylock(&m) != 0)
#endif
#ifdef FXG_TIMEOUT
        if ((intptr_t)arg == 0) {
            /* The first thread gives up at its deadline: then it never got
             * in, and must have left nothing that blocks the other. */
            struct timespec d = {1, 0};
            int r = fx_mutex_timedlock(&m, &d);
            assert(r == 0 || r == ETIMEDOUT);
            if (r == ETIMEDOUT) {
                timeouts++;
                continue;
            }
        } else
#endif
            assert(fx_mutex_lock(&m) == 0);
        assert(__atomic_fetch_add(&owners, 1, __ATOMIC_RELAXED) == 0);
        counter++;
        __atomic_fetch_sub(&owners, 1, __ATOMIC_RELAXED);
        assert(fx_mutex_unlock(&m) == 0);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[NT];
    fxg_clock_start();
    fxg_spawn(t, NT, client);
    fxg_join(t, NT);
    fxg_clock_join();
    assert(counter == NT * ITER - timeouts);
    assert(m.state == UNLOCKED);
    return 0;
}
