/*
 * tests/genmc/sem.c - fx_sem (src/sem.c) under GenMC.
 *
 * NW waiters each take one token with fx_sem_wait (fx_sem_trywait first
 * when TRY is defined); NP posters each post NW / NP tokens (NP divides NW),
 * after writing a plain message that every waiter reads once it has a
 * token. The semaphore starts at 0.
 * Checks: no lost wake-up (--check-liveness: every waiter returns, since as
 * many tokens are posted as are waited for); tokens conserved (value 0 and
 * no counted waiter at the end, every wait returned 0); a token carries the
 * poster's writes (GenMC reports a race on the plain message otherwise:
 * the post's release met by the take's acquire).
 * -DFXG_TIMEOUT: the waiters use fx_sem_timedwait, whose deadline passes at
 * any point (model.h); a waiter that times out took nothing, so the tokens
 * left at the end are exactly the timed-out waits, and no waiter counted.
 */
#include "model.h"

#include "src/sem.c"

#ifndef NW
#define NW 2
#endif
#ifndef NP
#define NP 1
#endif

static fx_sem s;
static int msg[NP]; /* plain, written before the posts */
static int timeouts; /* FXG_TIMEOUT: waits that gave up (atomic, relaxed) */

static void *waiter(void *arg)
{
    fxg_thread_start((uint32_t)(intptr_t)arg + 1);
#ifdef TRY
    if (fx_sem_trywait(&s) != 0)
#endif
#ifdef FXG_TIMEOUT
    {
        struct timespec d = {1, 0};
        int r = fx_sem_timedwait(&s, &d);
        assert(r == 0 || r == ETIMEDOUT);
        if (r == ETIMEDOUT) {
            __atomic_fetch_add(&timeouts, 1, __ATOMIC_RELAXED);
            return NULL;
        }
    }
#else
        assert(fx_sem_wait(&s) == 0);
#endif
#if NP == 1
    assert(msg[0] == 1);
#endif
    return NULL;
}

static void *poster(void *arg)
{
    int p = (int)(intptr_t)arg;
    fxg_thread_start((uint32_t)(NW + 1 + p));
    msg[p] = 1;
    for (int i = 0; i < NW / NP; i++)
        assert(fx_sem_post(&s) == 0);
    return NULL;
}

int main(void)
{
    pthread_t w[NW], p[NP];
    fxg_clock_start();
    fxg_spawn(w, NW, waiter);
    fxg_spawn(p, NP, poster);
    fxg_join(w, NW);
    fxg_join(p, NP);
    fxg_clock_join();
    assert(s.value == __atomic_load_n(&timeouts, __ATOMIC_RELAXED));
    assert(s.waiters == 0);
    return 0;
}
