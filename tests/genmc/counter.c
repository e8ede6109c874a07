/*
 * tests/genmc/counter.c - fx_counter (src/counter.c) under GenMC.
 *
 * NW waiters each wait for the counter to reach NA (fx_counter_wait_ge);
 * NA adders each write a plain message, then add 1. The counter starts at 0.
 * Checks: no lost wake-up (--check-liveness: every waiter returns once the
 * last add is done); the count is conserved (NA at the end, no counted
 * waiter); the adds' writes are visible to a waiter that saw the target
 * (GenMC reports a race on the plain messages otherwise).
 *
 * -DSTORE: the adders set the counter with fx_counter_store instead (NA must
 * be 1: one setter, which stores NA). -DLOADER: one more thread reads the
 * counter once with fx_counter_load and, if it sees NA (every add or the
 * store done), reads the messages: the load's acquire must bring them.
 * -DFXG_TIMEOUT: the waiters wait with a deadline that passes at any point
 * (model.h); one that times out leaves the count and waits again untimed.
 */
#include "model.h"

#include "src/counter.c"

#ifndef NW
#define NW 1
#endif
#ifndef NA
#define NA 2
#endif
#if defined(STORE) && NA != 1
#error "STORE: one setter (NA 1)"
#endif

static fx_counter c;
static int msg[NA]; /* plain */

static void *waiter(void *arg)
{
    fxg_thread_start((uint32_t)(intptr_t)arg + 1);
#ifdef FXG_TIMEOUT
    struct timespec d = {1, 0};
    int r = fx_counter_wait_ge(&c, NA, &d);
    assert(r == 0 || r == ETIMEDOUT);
    if (r == ETIMEDOUT)
#endif
        assert(fx_counter_wait_ge(&c, NA, NULL) == 0);
    for (int i = 0; i < NA; i++)
        assert(msg[i] == 1);
    return NULL;
}

static void *adder(void *arg)
{
    int a = (int)(intptr_t)arg;
    fxg_thread_start((uint32_t)(NW + 1 + a));
    msg[a] = 1;
#ifdef STORE
    assert(fx_counter_store(&c, NA) == 0);
#else
    fx_counter_add(&c, 1);
#endif
    return NULL;
}

#ifdef LOADER
static void *loader(void *arg)
{
    (void)arg;
    fxg_thread_start((uint32_t)(NW + NA + 1));
    if (fx_counter_load(&c) == NA)
        for (int i = 0; i < NA; i++)
            assert(msg[i] == 1);
    return NULL;
}
#endif

int main(void)
{
    pthread_t w[NW], a[NA];
    fxg_spawn(w, NW, waiter);
    fxg_clock_start();
    fxg_spawn(a, NA, adder);
#ifdef LOADER
    pthread_t l[1];
    fxg_spawn(l, 1, loader);
    fxg_join(l, 1);
#endif
    fxg_join(w, NW);
    fxg_join(a, NA);
    fxg_clock_join();
    assert(fx_counter_load(&c) == NA);
    assert(c.waiters == 0);
    return 0;
}
