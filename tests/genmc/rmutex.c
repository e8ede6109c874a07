/*
 * tests/genmc/rmutex.c - fx_rmutex (src/rmutex.c) under GenMC.
 *
 * NT threads (default 2) each take the rmutex ITER times (default 1), and
 * DEPTH times recursively (default 2), incrementing a plain counter inside.
 * Checks: no two owners (an owner count asserted 0 on the outermost entry;
 * fx_rmutex_owner names the caller inside); the critical sections are
 * ordered (GenMC reports a race on the plain counter otherwise); the count
 * is conserved; no lost wake-up (--check-liveness); the word ends free.
 * Every owner lives here; owner death, EOWNERDEAD and recovery are
 * tests/genmc/rmutex_death.c's.
 * -DTRY: the outermost acquisition tries fx_rmutex_trylock first.
 * -DFXG_TIMEOUT: thread 1's outermost acquisition is fx_rmutex_timedlock,
 * whose deadline passes at any point (model.h); timed out, it skips its
 * critical section and must leave nothing that blocks the other.
 */
#include "model.h"

#include "src/rmutex.c"

#ifndef NT
#define NT 2
#endif
#ifndef ITER
#define ITER 1
#endif
#ifndef DEPTH
#define DEPTH 2
#endif

static fx_rmutex m;
static int owners;  /* atomic, relaxed: a witness */
static int counter; /* plain */
static int timeouts; /* FXG_TIMEOUT: thread 1's (plain: its own) */

static void *client(void *arg)
{
    uint32_t me = (uint32_t)(intptr_t)arg + 1;
    fxg_thread_start(me);
    for (int i = 0; i < ITER; i++) {
#ifdef FXG_TIMEOUT
        if (me == 1) {
            struct timespec t = {1, 0};
            int r = fx_rmutex_timedlock(&m, &t);
            assert(r == 0 || r == ETIMEDOUT);
            if (r == ETIMEDOUT) {
                timeouts++;
                continue;
            }
        } else
#endif
#ifdef TRY
        if (fx_rmutex_trylock(&m) != 0)
#endif
            assert(fx_rmutex_lock(&m) == 0);
        for (int d = 1; d < DEPTH; d++)
            assert(fx_rmutex_lock(&m) == 0);
        assert(__atomic_fetch_add(&owners, 1, __ATOMIC_RELAXED) == 0);
        assert(fx_rmutex_owner(&m) == (pid_t)me);
        counter++;
        __atomic_fetch_sub(&owners, 1, __ATOMIC_RELAXED);
        for (int d = 0; d < DEPTH; d++)
            assert(fx_rmutex_unlock(&m) == 0);
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
    assert(m.owner == 0);
    return 0;
}
