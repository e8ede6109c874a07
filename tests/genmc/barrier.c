/*
 * tests/genmc/barrier.c - fx_barrier (src/barrier.c) under GenMC.
 *
 * NT threads (default 2) pass a barrier of NT parties ROUNDS times (default
 * 2: the second round reuses the word after the first one's wake). Before
 * round r each thread writes its plain slot of round r; after it, it reads
 * every thread's slot of round r.
 * Checks: no lost wake-up (--check-liveness: all pass every round); nobody
 * leaves a round before all have arrived, and the arrivals' writes are
 * visible after it (GenMC reports a race on the plain slots otherwise);
 * exactly one FX_BARRIER_SERIAL_THREAD per round (generations counted); the
 * word ends with no arrival counted, at round ROUNDS.
 * -DFXG_TIMEOUT (one round): every party waits with fx_barrier_timedwait,
 * whose deadline passes at any point (model.h); a party that times out
 * withdraws its arrival, so the round ends for both parties or for none.
 */
#include "model.h"

#include "src/barrier.c"

#ifndef NT
#define NT 2
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

static fx_barrier b;
static int slot[ROUNDS][NT]; /* plain */
static int serials[ROUNDS];  /* atomic, relaxed */
static int gave_up;          /* FXG_TIMEOUT: parties that timed out (atomic) */

static void *party(void *arg)
{
    int me = (int)(intptr_t)arg;
    fxg_thread_start((uint32_t)me + 1);
    for (int r = 0; r < ROUNDS; r++) {
        slot[r][me] = 1;
#ifdef FXG_TIMEOUT
        struct timespec d = {1, 0};
        int ret = fx_barrier_timedwait(&b, NT, &d);
        if (ret == ETIMEDOUT) {
            __atomic_fetch_add(&gave_up, 1, __ATOMIC_RELAXED);
            return NULL;
        }
#else
        int ret = fx_barrier_wait(&b, NT);
#endif
        assert(ret == 0 || ret == FX_BARRIER_SERIAL_THREAD);
        if (ret == FX_BARRIER_SERIAL_THREAD)
            __atomic_fetch_add(&serials[r], 1, __ATOMIC_RELAXED);
        for (int i = 0; i < NT; i++)
            assert(slot[r][i] == 1);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[NT];
    fxg_clock_start();
    fxg_spawn(t, NT, party);
    fxg_join(t, NT);
    fxg_clock_join();
#ifdef FXG_TIMEOUT
    /* ROUNDS 1: the round ended for every party, or for none. */
    int g = __atomic_load_n(&gave_up, __ATOMIC_RELAXED);
    assert(ROUNDS == 1 && (g == 0 || g == NT));
    assert(serials[0] == (g == 0));
    assert((b.state & 0x7fff) == 0);                 /* no arrival left counted */
    assert(((uint32_t)b.state >> 16) == (g == 0));   /* the round number */
#else
    for (int r = 0; r < ROUNDS; r++)
        assert(serials[r] == 1);
    assert((b.state & 0x7fff) == 0);                 /* no arrival counted */
    assert(((uint32_t)b.state >> 16) == ROUNDS);     /* the round number */
#endif
    return 0;
}
