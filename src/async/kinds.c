/*
 * src/async/kinds.c - the operations an asynchronous waiter runs: a raw
 * futex wait, an fx_mutex or fx_rmutex acquisition, an fx_counter wait. Each
 * is a kind (struct fxi_async_kind, src/async/async.h) that the core
 * (src/async/core.c) steps through its waits.
 *
 * Invariant: a kind keeps its primitive's protocol as the blocking call does.
 * Its step is that call's step (fxi_mutex_acquire_step, fxi_rmutex_acquire_step
 * by the waiter's thread, the counter's R1 and R2), its abandon passes a
 * consumed wake on (or leaves the counter's waiters), and its sleep is bounded
 * as the blocking call's: a mutex or counter sleep by its recheck time
 * (FXI_ASYNC_RECHECK_NS), an rmutex sleep by its owner's liveness re-check.
 * A run kind's callback runs only when the result means "held", then the lock
 * is unlocked once.
 *
 * Each kind's ready, step and abandon, the recheck rule and the run kinds:
 * docs/async.md, "Kinds (src/async/kinds.c)".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "async/async.h"
#include "internal/annotate.h"
#include "internal/counter_wait.h"
#include "internal/deadline.h"
#include "internal/futex.h"
#include "internal/mutex.h"
#include "internal/rmutex.h"

/* The library's bounded-recheck rule (src/internal/futex.h), for the kinds
 * that sleep on a shared protocol (mutex, counter): a sleeper whose wake was
 * lost in shared memory (a waker or a woken process killed in the wake
 * window) re-reads its word within FXI_ASYNC_RECHECK_NS (src/async/async.h).
 * Bounds the sleep s by the next recheck time, which is absolute and moves
 * on only once it has passed, so that spurious readiness cannot postpone it. */
static void kind_recheck(fx_async *w, int last, struct fxi_sleep *s)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (last == LAST_FIRST || !fxi_ts_before(&now, &w->recheck))
        w->recheck = fxi_ts_add_ns(now, FXI_ASYNC_RECHECK_NS);
    s->has_until = true;
    s->until = w->recheck;
    /* Only a re-read of the word: the back end repeats it while the word
     * holds its value (the step would name the same sleep). */
    s->recheck_ns = FXI_ASYNC_RECHECK_NS;
}

/* Kind: raw futex word ------------------------------------------------------- */

static int kind_futex_ready(fx_async *w)
{
    /* Relaxed: only decides between EAGAIN and waiting; the kernel re-checks
     * the value atomically with queueing the wait. */
    return __atomic_load_n(w->op.futex.word, __ATOMIC_RELAXED) != w->op.futex.expected
               ? EAGAIN
               : EINPROGRESS;
}

static int kind_futex_step(fx_async *w, int last, struct fxi_sleep *s)
{
    switch (last) {
    case LAST_FIRST:
        s->word = w->op.futex.word;
        s->expected = w->op.futex.expected;
        return EINPROGRESS;
    case LAST_WOKEN:
        return 0;
    case LAST_CHANGED:
        return EAGAIN;
    default:
        return ETIMEDOUT;
    }
}

static void kind_futex_abandon(fx_async *w, int last)
{
    (void)w;
    (void)last;
}

const struct fxi_async_kind fxi_async_kind_futex = {
    .ready = kind_futex_ready,
    .step = kind_futex_step,
    .abandon = kind_futex_abandon,
};

/* Kind: fx_mutex acquisition ------------------------------------------------- */

static int kind_mutex_ready(fx_async *w)
{
    int r = fx_mutex_trylock(w->op.mutex);
    return r == EBUSY ? EINPROGRESS : r;
}

static int kind_mutex_step(fx_async *w, int last, struct fxi_sleep *s)
{
    fx_mutex *m = w->op.mutex;
    int32_t sleep_on = 0;
    /* Announced as a try-lock around the one step that may take the lock:
     * the loop runs other code between steps, which the race detector must
     * keep watching. One look at the race-detector probe. */
    const bool on = fxi_ann_on();
    if (on)
        fxi_ann_pre_lock(m, FXI_ANN_TRY);
    int r = fxi_mutex_acquire_step(m, &sleep_on);
    if (on)
        fxi_ann_post_lock(m, r ? FXI_ANN_TRY | FXI_ANN_FAILED : FXI_ANN_TRY, 0);
    if (r != EBUSY)
        return r; /* 0: held (as CONTENDED), or EINVAL */
    if (last == LAST_TIMEDOUT)
        return ETIMEDOUT; /* the word stays CONTENDED: its unlock wakes */
    s->word = &m->state;
    s->expected = sleep_on;
    kind_recheck(w, last, s);
    return EINPROGRESS;
}

static void kind_mutex_abandon(fx_async *w, int last)
{
    if (last == LAST_WOKEN)
        fxi_mutex_abandon_wait(w->op.mutex);
}

const struct fxi_async_kind fxi_async_kind_mutex = {
    .ready = kind_mutex_ready,
    .step = kind_mutex_step,
    .abandon = kind_mutex_abandon,
};

/* Kind: fx_rmutex acquisition ------------------------------------------------ */

static int kind_rmutex_ready(fx_async *w)
{
    /* By the calling thread, whichever it is: free, re-entry, orphaned, a
     * dead owner, not recoverable. Leaves no trace when it is busy (no W). */
    int r = fx_rmutex_trylock(w->op.rmutex.m);
    return r == EBUSY ? EINPROGRESS : r;
}

static int kind_rmutex_step(fx_async *w, int last, struct fxi_sleep *s)
{
    fx_rmutex *m = w->op.rmutex.m;
    if (last == LAST_TIMEDOUT) {
        /* The caller's deadline: not woken (or the last step re-marked W),
         * so nothing is owed. A last try as fx_rmutex_timedlock makes at its
         * deadline: free, orphaned or a dead owner (checked at once). */
        int r = fx_rmutex_trylock(m);
        return r == EBUSY ? ETIMEDOUT : r;
    }
    if (last == LAST_FIRST)
        fxi_rmutex_waiter_init(&w->op.rmutex.rw, 0);
    /* Only the waiter's thread steps (async_start and complete check it),
     * so the TID the step writes into the word is the loop thread's. */
    int32_t *word = NULL, sleep_on = 0;
    struct timespec recheck_at;
    int r = fxi_rmutex_acquire_step(m, &w->op.rmutex.rw, &word, &sleep_on, &recheck_at);
    if (r != EBUSY)
        return r; /* 0, EOWNERDEAD, ENOTRECOVERABLE, EINVAL, EAGAIN */
    s->word = word;
    s->expected = sleep_on;
    s->has_until = true; /* the owner's liveness is due then */
    s->until = recheck_at;
    return EINPROGRESS;
}

static void kind_rmutex_abandon(fx_async *w, int last)
{
    if (last == LAST_WOKEN)
        fxi_rmutex_abandon_wait(w->op.rmutex.m);
}

const struct fxi_async_kind fxi_async_kind_rmutex = {
    .ready = kind_rmutex_ready,
    .step = kind_rmutex_step,
    .abandon = kind_rmutex_abandon,
};

/* Kind: fx_counter wait ------------------------------------------------------ */

static int kind_counter_ready(fx_async *w)
{
    fx_counter *c = w->op.counter.c;
    /* Acquire, as fx_counter_wait's fast path: the writer's earlier work is
     * visible to the caller. */
    if (__atomic_load_n(&c->value, __ATOMIC_ACQUIRE) == w->op.counter.target)
        return 0;
    /* Relaxed: only a plausibility check of the slot. */
    if (__atomic_load_n(&c->waiters, __ATOMIC_RELAXED) < 0)
        return EINVAL;
    return EINPROGRESS;
}

static int kind_counter_step(fx_async *w, int last, struct fxi_sleep *s)
{
    fx_counter *c = w->op.counter.c;
    if (last == LAST_FIRST) {
        if (fxi_counter_waiter_enter(c) != 0) /* R1 */
            return EINVAL; /* a count the library never writes */
        w->op.counter.counted = true;
    }
    int32_t v = fxi_counter_waiter_look(c); /* R2, acquire */
    if (v == w->op.counter.target || last == LAST_TIMEDOUT) {
        fxi_counter_waiter_leave(c); /* R5 */
        w->op.counter.counted = false;
        return v == w->op.counter.target ? 0 : ETIMEDOUT;
    }
    s->word = &c->value;
    s->expected = v;
    kind_recheck(w, last, s);
    return EINPROGRESS;
}

static void kind_counter_abandon(fx_async *w, int last)
{
    (void)last; /* writers wake every waiter: no wake to pass on */
    if (w->op.counter.counted) {
        fxi_counter_waiter_leave(w->op.counter.c);
        w->op.counter.counted = false;
    }
}

const struct fxi_async_kind fxi_async_kind_counter = {
    .ready = kind_counter_ready,
    .step = kind_counter_step,
    .abandon = kind_counter_abandon,
};
