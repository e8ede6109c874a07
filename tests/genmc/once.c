/*
 * tests/genmc/once.c - fx_once (src/once.c) under GenMC.
 *
 * NT threads (default 2) call fx_once_call with an initialiser that writes
 * a plain value and counts its runs; each then reads the value.
 * Checks: the initialiser runs exactly once; every caller returns 0 after
 * it has returned, and sees its writes (GenMC reports a race on the plain
 * value otherwise: the DONE exchange's release met by the callers'
 * acquire); no lost wake-up for a caller that slept while it ran
 * (--check-liveness); the word ends DONE.
 */
#include "model.h"

#include "src/once.c"

#ifndef NT
#define NT 2
#endif

static fx_once o;
static int value; /* plain, written by the initialiser */
static int runs;  /* atomic, relaxed */

static void init(void *arg)
{
    (void)arg;
    __atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
    value = 42;
}

static void *caller(void *arg)
{
    fxg_thread_start((uint32_t)(intptr_t)arg + 1);
    assert(fx_once_call(&o, init, NULL) == 0);
    assert(value == 42);
    return NULL;
}

int main(void)
{
    pthread_t t[NT];
    fxg_spawn(t, NT, caller);
    fxg_join(t, NT);
    assert(runs == 1);
    assert(o.state == FX_ONCE_DONE);
    return 0;
}
