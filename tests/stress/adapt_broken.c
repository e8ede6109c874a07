/*
 * tests/stress/adapt_broken.c - deliberately broken locks, to prove that the
 * harness catches what it claims to catch. ctest runs them with
 * --expect-fail: the test passes only when the harness reports the failure.
 * --all skips them.
 *
 *   broken_nolock    a lock that does not exclude: two owners, torn record
 *   broken_lostwake  the 0/1/2 futex mutex without "mark CONTENDED before
 *                    sleeping": waiters sleep on LOCKED and the unlock of a
 *                    LOCKED word wakes nobody, so waiters are lost (run with
 *                    --no-signals: a signal's EINTR would rescue them)
 */
#include <errno.h>
#include <futexsync/futex.h>
#include <stdint.h>

#include "fxstress.h"

static int nl_lock(void *o)
{
    (void)o;
    return 0;
}
static int nl_unlock(void *o)
{
    (void)o;
    return 0;
}

static const struct fxs_adapter broken_nolock = {
    .name = "broken_nolock",
    .what = "broken on purpose (--expect-fail): no exclusion at all",
    .kind = FXS_LOCK,
    .size = sizeof(int32_t),
    .lock = nl_lock,
    .unlock = nl_unlock,
};
FXS_ADAPTER(broken_nolock)

static int lw_lock(void *o)
{
    int32_t *w = o;
    for (;;) {
        int32_t v = 0;
        if (__atomic_compare_exchange_n(w, &v, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 0;
        /* The bug: sleeps on LOCKED without marking the word CONTENDED. */
        fx_futex_wait(w, 1, NULL);
    }
}
static int lw_unlock(void *o)
{
    int32_t *w = o;
    if (__atomic_exchange_n(w, 0, __ATOMIC_RELEASE) == 2)
        fx_futex_wake(w, 1);
    return 0;
}

static const struct fxs_adapter broken_lostwake = {
    .name = "broken_lostwake",
    .what = "broken on purpose (--expect-fail): waiters sleep without marking CONTENDED",
    .kind = FXS_LOCK,
    .size = sizeof(int32_t),
    .lock = lw_lock,
    .unlock = lw_unlock,
};
FXS_ADAPTER(broken_lostwake)
