/*
 * tests/stress/adapt_rmutex.c - fx_rmutex in the stress harness, with owner
 * deaths: the harness SIGKILLs processes whose thread owns the mutex, and the
 * next acquirer must get EOWNERDEAD (the liveness check of a blocked or
 * arriving acquirer, or, after half of the kills, fx_rmutex_recover called by
 * the parent for every thread it reaped). One lock in four re-enters the
 * mutex once and leaves that level again before the critical section, so
 * owners also die at depth 2.
 */
#include <errno.h>
#include <futexsync/rmutex.h>

#include "fxstress.h"

/* One lock in four, once the caller owns m (0 or EOWNERDEAD): re-enter it
 * (depth 2), which must give 0, and leave that level, which must give 0. A
 * failure of either is reported to the harness as EPROTO, which no lock
 * returns. */
static int reenter(fx_rmutex *m, int r)
{
    static _Thread_local unsigned calls;
    if ((r != 0 && r != EOWNERDEAD) || ++calls % 4 != 0)
        return r;
    if (fx_rmutex_lock(m) != 0 || fx_rmutex_unlock(m) != 0)
        return EPROTO;
    return r;
}

static int r_lock(void *o) { return reenter(o, fx_rmutex_lock(o)); }
static int r_trylock(void *o) { return fx_rmutex_trylock(o); }
static int r_timedlock(void *o, const struct timespec *d) { return fx_rmutex_timedlock(o, d); }
static int r_unlock(void *o) { return fx_rmutex_unlock(o); }
static int r_consistent(void *o) { return fx_rmutex_consistent(o); }
static int r_reaped(void *o, pid_t tid) { return fx_rmutex_recover(o, tid); }

static const struct fxs_adapter rmutex_adapter = {
    .name = "rmutex",
    .what = "fx_rmutex: lock (with re-entry)/trylock/timedlock/unlock, owner kills, recover",
    .kind = FXS_LOCK,
    .caps = FXS_OWNER_DEATH,
    .size = sizeof(fx_rmutex),
    .lock = r_lock,
    .trylock = r_trylock,
    .timedlock = r_timedlock,
    .unlock = r_unlock,
    .consistent = r_consistent,
    .reaped = r_reaped,
};
FXS_ADAPTER(rmutex_adapter)
