/*
 * src/rmutex_watch.c - when an fx_rmutex acquirer looks at a PROBED owner:
 * an owner whose death the kernel does not report (src/rmutex.c's state
 * table, "T with P"), judged by the liveness probe (src/internal/process.h).
 *
 * A waiter looks FIRST_CHECK after it first sees the owner, then every
 * RECHECK, and every LONG_RECHECK on the recheck grid once it has watched the
 * same owner for LONG_AFTER. Once it has looked, it sleeps through the
 * process's prober (src/sleep.c, fxi_futex_sleep_probed), which looks for
 * every sleeper of the process at once, on the LONG_RECHECK grid: an idle
 * process pays one wake-up per period whatever the number of its waiters
 * and objects. A non-waiting attempt (trylock, a timed lock's last try)
 * looks at once, at most once per RECHECK per thread for the same owner.
 * Each answer is only about the value it was asked for: src/rmutex.c makes
 * the one CAS from that value.
 *
 * docs/design/rmutex.md, "PROBED owners: one prober per process".
 */
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "internal/deadline.h"
#include "internal/futex.h"
#include "internal/sleep.h"
#include "internal/rmutex.h"
#include "internal/rmutex_word.h"

/* Thread-local memo of the last look made by a non-waiting attempt. */
static _Thread_local struct {
    const fx_rmutex *m;
    uint32_t tid;
    int64_t until;
} watch_memo;

bool fxi_rmutex_dead_now(const fx_rmutex *m, uint32_t t)
{
    int64_t now = fxi_now_ns();
    if (watch_memo.m == m && watch_memo.tid == t && now < watch_memo.until)
        return false;
    if (fxi_id_probe(t) == FXI_TID_DEAD)
        return true;
    watch_memo.m = m;
    watch_memo.tid = t;
    watch_memo.until = now + RECHECK_NS;
    return false;
}

bool fxi_rmutex_watch(struct fxi_rmutex_waiter *w, uint32_t t)
{
    bool dead = false;
    /* @step rmutex.step.now */
    int64_t now = fxi_now_ns();
    /* @step rmutex.step.new_owner */
    if ((uint32_t)w->seen != t) {
        w->seen = (int32_t)t;
        w->looked = 0;
        w->since = now;
        w->check_at = now + FIRST_CHECK_NS;
    /* @step rmutex.step.check_due */
    } else if (now >= w->check_at) {
        dead = fxi_id_probe(t) == FXI_TID_DEAD;
        w->looked = 1;
        /* A waiter that has watched the same live owner for long looks less
         * often, on the recheck grid (internal/sleep.h): many idle waiters
         * that cannot sleep through the prober cost little. */
        w->check_at = now - w->since < LONG_AFTER_NS ? now + RECHECK_NS
                                                     : fxi_recheck_grid(now, LONG_RECHECK_NS);
    }
    return dead;
}

_Static_assert(FXI_PROBE_NS == LONG_RECHECK_NS, "the prober keeps the long-watch schedule");

uint32_t fxi_rmutex_word_owner(const int32_t *word)
{
    /* Relaxed: a hint; the sleeper woken for it judges the value it reads. */
    uint32_t v = (uint32_t)__atomic_load_n(word, __ATOMIC_RELAXED) & ~WAITERS;
    return (v & PROBED) && fxi_rmutex_held_tid(v) != 0 ? v : 0;
}
