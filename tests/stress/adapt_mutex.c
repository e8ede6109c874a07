/*
 * tests/stress/adapt_mutex.c - fx_mutex in the stress harness: the lock mix
 * (lock, trylock, timedlock with random short deadlines) from every thread of
 * every process. No owner death: fx_mutex does not track its owner.
 */
#include <futexsync/mutex.h>

#include "fxstress.h"

static int m_lock(void *o) { return fx_mutex_lock(o); }
static int m_trylock(void *o) { return fx_mutex_trylock(o); }
static int m_timedlock(void *o, const struct timespec *d) { return fx_mutex_timedlock(o, d); }
static int m_unlock(void *o) { return fx_mutex_unlock(o); }

static const struct fxs_adapter mutex_adapter = {
    .name = "mutex",
    .what = "fx_mutex: lock/trylock/timedlock/unlock",
    .kind = FXS_LOCK,
    .size = sizeof(fx_mutex),
    .lock = m_lock,
    .trylock = m_trylock,
    .timedlock = m_timedlock,
    .unlock = m_unlock,
};
FXS_ADAPTER(mutex_adapter)
