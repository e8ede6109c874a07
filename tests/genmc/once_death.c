/*
 * tests/genmc/once_death.c - fx_once (src/once.c) when the thread running
 * the initialiser dies inside it, under GenMC.
 *
 * Thread 1 calls fx_once_call; its initialiser writes a plain value (its
 * partial work) and the thread dies there (model.h, "Owner death": no
 * cleanup handler runs, as for a thread killed by a signal). NC callers
 * (default 1, TIDs 2..NC+1) start once it runs the initialiser, so they may
 * sleep on the word before the death or come after it. Who frees the word:
 *   default          the initialiser's thread is of the kind the kernel
 *                    reports: the model's kernel thread marks the word
 *                    ABANDONED (RUNNING without a TID, W kept) and wakes one
 *                    sleeper if W was set; the next caller runs the
 *                    initialiser;
 *   -DFXG_PROBED     PROBED threads: the callers' liveness check (due once
 *                    the initialiser's thread is dead) probes it and takes
 *                    the word over;
 *   -DRECOVER        besides, a supervisor (TID NC+2) that has seen the
 *                    death calls fx_once_recover(o, 1): 0 (it reset the word
 *                    to NOT_RUN and woke the sleepers) or EPERM (a caller
 *                    or the kernel was first).
 * Checks: every caller returns 0 after a complete run of the initialiser,
 * and sees its writes; the initialiser is run to its end exactly once, and
 * the run after the death sees what the dead attempt wrote (GenMC reports
 * a race on the plain values otherwise, and they are asserted); nobody
 * hangs (--check-liveness); the word ends DONE.
 */
#include "model.h"

#include "src/once.c"

#ifndef NC
#define NC 1
#endif
#define DIER 1

static fx_once o;
static int inside;  /* thread 1 runs the initialiser: the callers start */
static int partial; /* plain: the dead attempt's work */
static int value;   /* plain: the complete run's */
static int runs;    /* atomic, relaxed: initialisers started */

static void init(void *arg)
{
    if (__atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED) == 0) {
        assert(arg != NULL); /* the first run is thread 1's */
        __atomic_store_n(&inside, 1, __ATOMIC_RELEASE);
        partial = 1;
        fxg_die(DIER);
        pthread_exit(NULL); /* inside the initialiser */
    }
    assert(partial == 1); /* the dead attempt's work, to redo */
    value = 42;
}

static void *dier(void *arg)
{
    (void)arg;
    fxg_thread_start(DIER);
    int r = fx_once_call(&o, init, &o);
    assert(0 && "the initialiser's thread returned");
    (void)r;
    return NULL;
}

static void *caller(void *arg)
{
    fxg_thread_start((uint32_t)(intptr_t)arg + 2);
    fxg_await(&inside);
    assert(fx_once_call(&o, init, NULL) == 0);
    assert(value == 42);
    return NULL;
}

#ifdef RECOVER
static void *supervisor(void *arg)
{
    (void)arg;
    fxg_thread_start(NC + 2);
    fxg_await(&fxg_dead[DIER]); /* it reaped thread 1 */
    int r = fx_once_recover(&o, DIER);
    assert(r == 0 || r == EPERM);
    return NULL;
}
#endif

int main(void)
{
    pthread_t d, t[NC];
    pthread_create(&d, NULL, dier, NULL);
#ifndef FXG_PROBED
    fxg_kernel_start(DIER, &o.state);
#endif
#ifdef RECOVER
    pthread_t s;
    pthread_create(&s, NULL, supervisor, NULL);
#endif
    fxg_spawn(t, NC, caller);
    pthread_join(d, NULL);
    fxg_join(t, NC);
#ifndef FXG_PROBED
    fxg_kernel_join();
#endif
#ifdef RECOVER
    pthread_join(s, NULL);
#endif
    assert(runs == 2);
    assert(o.state == FX_ONCE_DONE);
    return 0;
}
