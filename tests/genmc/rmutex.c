/*
 * tests/genmc/rmutex.c - fx_rmutex (src/rmutex.c) under GenMC.
 *
 * NT threads (default 2) each take the rmutex ITER times (default 1), and
 * DEPTH times recursively (default 2), incrementing a plain counter inside.
 * Checks: no two owners (an owner count asserted 0 on the outermost entry;
 * fx_rmutex_owner names the caller inside); the critical sections are
 * ordered (GenMC reports a race on the plain counter otherwise); the count
 * is conserved; no lost wake-up (--check-liveness); the word ends free.
 * Owner deaths (EOWNERDEAD, recovery) are not modelled: every owner lives.
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

static void *client(void *arg)
{
    uint32_t me = (uint32_t)(intptr_t)arg + 1;
    fxg_thread_start(me);
    for (int i = 0; i < ITER; i++) {
        for (int d = 0; d < DEPTH; d++)
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
    fxg_spawn(t, NT, client);
    fxg_join(t, NT);
    assert(counter == NT * ITER);
    assert(m.owner == 0);
    return 0;
}
