/*
 * tests/genmc/cond_depart.c - fx_cond's W8 (src/cond.c, cond_depart: the
 * last waiter out clears b) racing with waiters of another mutex that
 * register and are moved by a broadcast, under GenMC.
 *
 * The schedule that W2's release and W8's acquire exist for
 * (docs/design/cond.md, "Memory order"): waiter X leaves (W8) holding its
 * own mutex, so no waiter of that mutex can register meanwhile, but waiters
 * Y and Z of other mutexes can. X's decrement brings the count to 0; Y and Z
 * then register (W1, W2) and sleep; a broadcast flags and advances seq (B2),
 * wakes one of them and parks the other (B3); X reads that seq, b set, and
 * re-checks the count. It must see Y and Z counted and leave b alone: if it
 * cleared b, the woken one would find itself unflagged (W5), would not drive
 * the park on (W7), and the parked one would sleep for good. X's re-check
 * sees them only through the release sequence of their W2 (a release) through
 * B2's read-modify-write to X's look at seq (an acquire).
 *
 * X is modelled from the point where it is the one counted waiter, released
 * and about to leave: the cond starts with waiters = 1 and the mutex slot
 * holding another mutex's token, and X runs cond_depart itself (W1..W7 of a
 * released waiter are covered by the other cond checks). Y and Z wait on
 * their own fx_mutexes (the slot then says MIXED, and the drive wakes one);
 * the broadcaster waits until both sleep.
 * Checks: no lost wake-up (--check-liveness: Y and Z return); no waiter is
 * left counted, the mutexes end free.
 */
#define FXG_COUNT_QUEUED
#include "model.h"

#include "src/mutex.c"
#include "src/rmutex.c"
#include "src/cond.c"

static fx_cond c;
static fx_mutex mx; /* X's mutex: only its token, in the slot */
static fx_mutex m;  /* Y's and Z's */

static void *departing(void *arg)
{
    (void)arg;
    fxg_thread_start(1);
    cond_depart(&c); /* W8 of the one counted waiter */
    return NULL;
}

/* Y and Z: identical, argument included, so spawned symmetric (an fx_mutex
 * and a cond never use the caller's TID). */
static void *waiter(void *arg)
{
    (void)arg;
    fxg_thread_start(2);
    assert(fx_mutex_lock(&m) == 0);
    assert(fx_cond_wait(&c, &m) == 0);
    assert(fx_mutex_unlock(&m) == 0);
    return NULL;
}

static void *broadcaster(void *arg)
{
    (void)arg;
    fxg_thread_start(3);
    /* Both waiters are asleep on seq (fxg_queued_on): both wait, in the
     * contract's sense, so the broadcast must release both. */
    fxg_await_queued(2);
    assert(fx_cond_broadcast(&c) == 0);
    return NULL;
}

int main(void)
{
    pthread_t x, w[2], b;
    c.waiters = 1;
    c.mutex = cond_mutex_token(&c, &mx);
    fxg_queued_on = &c.seq;
    pthread_create(&x, NULL, departing, NULL);
    w[0] = __VERIFIER_spawn(waiter, NULL);
    w[1] = __VERIFIER_spawn_symmetric(waiter, NULL, w[0]);
    pthread_create(&b, NULL, broadcaster, NULL);
    pthread_join(x, NULL);
    fxg_join(w, 2);
    pthread_join(b, NULL);
    assert(c.waiters == 0);
    assert(m.state == UNLOCKED);
    return 0;
}
