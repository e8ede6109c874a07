/*
 * tests/stress/adapt_rwlock.c - fx_rwlock in the stress harness, in both
 * modes: 30% of the operations are shared (rdlock, tryrdlock, timedrdlock),
 * the others exclusive (wrlock, trywrlock, timedwrlock), all with random
 * short deadlines, from every thread of every process. Checked by the
 * harness all the time: a reader never sees a torn record and never finds a
 * writer inside; a writer finds neither another writer nor a reader inside,
 * and its updates are never lost. Half of the releases use the mode-specific
 * unlock (fx_rwlock_rdunlock / fx_rwlock_wrunlock), the others
 * fx_rwlock_unlock, which reads the mode from the word. At the end the state
 * word must be 0: free, and no waiting bit left behind.
 */
#include <futexsync/rwlock.h>

#include "fxstress.h"

static int w_lock(void *o) { return fx_rwlock_wrlock(o); }
static int w_trylock(void *o) { return fx_rwlock_trywrlock(o); }
static int w_timedlock(void *o, const struct timespec *d) { return fx_rwlock_timedwrlock(o, d); }
static int r_lock(void *o) { return fx_rwlock_rdlock(o); }
static int r_trylock(void *o) { return fx_rwlock_tryrdlock(o); }
static int r_timedlock(void *o, const struct timespec *d) { return fx_rwlock_timedrdlock(o, d); }

/* Alternates between the generic and the mode-specific unlock (a per-thread
 * counter: the harness passes no thread to the lock operations). */
static int use_generic(void)
{
    static _Thread_local unsigned calls;
    return (++calls & 1u) != 0;
}
static int w_unlock(void *o) { return use_generic() ? fx_rwlock_unlock(o) : fx_rwlock_wrunlock(o); }
static int r_unlock(void *o) { return use_generic() ? fx_rwlock_unlock(o) : fx_rwlock_rdunlock(o); }

static int rw_finish(void *o)
{
    fx_rwlock *l = o;
    int32_t s = __atomic_load_n(&l->state, __ATOMIC_ACQUIRE);
    if (s != 0)
        return fxs_fail(NULL, "state word 0x%08x at the end, not 0", (unsigned)s);
    return 0;
}

static const struct fxs_adapter rwlock_adapter = {
    .name = "rwlock",
    .what = "fx_rwlock: readers (30%) and writers, every lock form, both unlock forms",
    .kind = FXS_LOCK,
    .size = sizeof(fx_rwlock),
    .lock = w_lock,
    .trylock = w_trylock,
    .timedlock = w_timedlock,
    .unlock = w_unlock,
    .rdlock = r_lock,
    .tryrdlock = r_trylock,
    .timedrdlock = r_timedlock,
    .rdunlock = r_unlock,
    .finish = rw_finish,
};
FXS_ADAPTER(rwlock_adapter)
