/*
 * tests/genmc/cond.c - fx_cond (src/cond.c) under GenMC, with an fx_mutex
 * (src/mutex.c) or, with RMUTEX defined, an fx_rmutex (src/rmutex.c).
 *
 * The predicate is a plain token count under the mutex. NW waiters each
 * wait until a token is there and take it:
 *     lock; while (tokens == 0) fx_cond_wait; tokens--; unlock
 * Default: NS signallers each add a token and call fx_cond_signal while
 * holding the mutex (NS = NW). With BROADCAST: one broadcaster adds NW tokens
 * and calls fx_cond_broadcast once. With OUTSIDE the notification comes
 * after the unlock (allowed by the contract, and a harder case).
 * Checks: no lost wake-up (--check-liveness: every waiter returns; a waiter
 * asleep while a token waits for it is an error); the mutex still excludes
 * (GenMC reports a race on the plain count otherwise, and an owner count is
 * asserted on entry); tokens conserved (0 left, every waiter took one); the
 * cond ends with no counted waiter and the mutex free.
 * -DFXG_TIMEOUT: the waiters use the timed wait, whose deadline passes at
 * any point (model.h); a waiter that times out and finds no token gives up
 * (holding the mutex, as the contract says), so the tokens left at the end
 * are exactly the waiters that gave up, and nobody else may be stranded.
 */
#include "model.h"

#include "src/mutex.c"
#include "src/rmutex.c"
#include "src/cond.c"

#ifndef NW
#define NW 2
#endif

static fx_cond c;
static int tokens; /* plain: under the mutex */
static int gave_up; /* FXG_TIMEOUT: waiters that timed out with no token (under the mutex) */
static int owners; /* atomic, relaxed: a witness */
#ifdef RMUTEX
static fx_rmutex m;
#define LOCK() assert(fx_rmutex_lock(&m) == 0)
#define UNLOCK() assert(fx_rmutex_unlock(&m) == 0)
#define WAIT() assert(fx_cond_wait_rmutex(&c, &m) == 0)
#define TIMEDWAIT(d) fx_cond_timedwait_rmutex(&c, &m, (d))
#else
static fx_mutex m;
#define LOCK() assert(fx_mutex_lock(&m) == 0)
#define UNLOCK() assert(fx_mutex_unlock(&m) == 0)
#define WAIT() assert(fx_cond_wait(&c, &m) == 0)
#define TIMEDWAIT(d) fx_cond_timedwait(&c, &m, (d))
#endif
#define ENTER() assert(__atomic_fetch_add(&owners, 1, __ATOMIC_RELAXED) == 0)
#define LEAVE() __atomic_fetch_sub(&owners, 1, __ATOMIC_RELAXED)

static void *waiter(void *arg)
{
    fxg_thread_start((uint32_t)(intptr_t)arg + 1);
    LOCK();
    ENTER();
    while (tokens == 0) {
        LEAVE();
#ifdef FXG_TIMEOUT
        struct timespec d = {1, 0};
        int r = TIMEDWAIT(&d);
        assert(r == 0 || r == ETIMEDOUT);
        ENTER();
        if (r == ETIMEDOUT && tokens == 0) {
            gave_up++;
            LEAVE();
            UNLOCK();
            return NULL;
        }
#else
        WAIT();
        ENTER();
#endif
    }
    tokens--;
    LEAVE();
    UNLOCK();
    return NULL;
}

#ifdef BROADCAST
#define NS 1
#define ADD NW
#define NOTIFY() assert(fx_cond_broadcast(&c) == 0)
#else
#define NS NW
#define ADD 1
#define NOTIFY() assert(fx_cond_signal(&c) == 0)
#endif

static void *notifier(void *arg)
{
    fxg_thread_start((uint32_t)(NW + 1 + (intptr_t)arg));
    LOCK();
    ENTER();
    tokens += ADD;
    LEAVE();
#ifdef OUTSIDE
    UNLOCK();
    NOTIFY();
#else
    NOTIFY();
    UNLOCK();
#endif
    return NULL;
}

int main(void)
{
    pthread_t w[NW], n[NS];
    fxg_clock_start();
    fxg_spawn(w, NW, waiter);
    fxg_spawn(n, NS, notifier);
    fxg_join(w, NW);
    fxg_join(n, NS);
    fxg_clock_join();
    assert(tokens == gave_up);
    assert(c.waiters == 0);
#ifdef RMUTEX
    assert(m.owner == 0);
#else
    assert(m.state == UNLOCKED);
#endif
    return 0;
}
