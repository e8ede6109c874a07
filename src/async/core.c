/*
 * src/async/core.c - asynchronous waiters: futex words, mutexes, re-entrant
 * mutexes and counters waited on from an event loop. A waiter runs one
 * operation at a time, a kind (src/async/kinds.c: ready, step, abandon); the
 * back end (src/async/uring.c, src/async/thread.c) only sleeps on the word it
 * is given, until the bound it is given, and reports how that sleep ended.
 *
 * Waiter states (w->state, touched only by the creating thread)
 *
 *   state     meaning
 *   IDLE      nothing armed; the eventfd is not readable
 *   WAITING   a kind's operation is under way and exactly one futex wait
 *             is in flight in the back end
 *
 *   transition          by                   what happens
 *   IDLE -> IDLE        arm, ready at once   kind.ready gives the result
 *                                            (run kinds: the callback runs,
 *                                            the lock is unlocked)
 *   IDLE -> WAITING     arm                  kind.step(FIRST) -> (word, value
 *                                            [, until]); the back end arms a
 *                                            futex wait bounded by the earlier
 *                                            of `until` and the deadline
 *   IDLE -> IDLE        arm, deadline past   kind.step(FIRST), kind.step(TIMEDOUT)
 *   WAITING -> WAITING  complete             the wait is still in flight
 *                                            (spurious readiness): nothing
 *   WAITING -> WAITING  complete             a mutex or counter recheck found
 *                                            the word unchanged: the back end
 *                                            re-armed it (io_uring; the helper
 *                                            thread does so unseen), no step
 *   WAITING -> WAITING  complete             the wait ended; kind.step(last)
 *                                            names a new (word, value): re-arm
 *   WAITING -> IDLE     complete             the wait ended; kind.step(last)
 *                                            gives the result (run kinds: the
 *                                            callback runs, the lock is
 *                                            unlocked)
 *   WAITING -> IDLE     cancel               the back end stops the wait and
 *                                            says how it ended; kind.abandon
 *   any -> same         complete, cancel or  EPERM, nothing done: checked
 *                       destroy by another   first, whatever the state
 *                       thread (or a fork
 *                       child)
 *   IDLE -> IDLE        arm by another       EPERM once ready has failed
 *                       thread               (no resource of the waiter used)
 *
 * How a wait ended (`last`: WOKEN, CHANGED, RECHECK, TIMEDOUT, CANCELED),
 * how the core tells its own bound from the deadline, the kinds and the back
 * ends' ops table: docs/async.md, "Inside: the core, the kinds, the back ends".
 */
#include "futexsync/async.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "async/async.h"
#include "internal/deadline.h"
#include "internal/futex.h"
#include "internal/mutex.h"
#include "internal/rmutex.h"
#include "internal/identity.h"

/* The thread rule (async.h): a waiter is used only by the thread that
 * created it. fxi_tid() is right in a fork child from its first instruction
 * (src/internal/identity.h), so a child never passes for its parent's thread. */
static bool async_is_owner(const fx_async *w)
{
    return fxi_tid() == w->owner;
}

/* The first check of complete, cancel and destroy, whatever the waiter's
 * state: EINVAL for NULL, EPERM for any thread but the creator (another
 * thread, or a fork child on its parent's waiter), then nothing is done. */
static int async_check(const fx_async *w)
{
    if (w == NULL)
        return EINVAL;
    return async_is_owner(w) ? 0 : EPERM;
}

/* Set when the kernel refused io_uring or its futex operations, so that
 * FX_ASYNC_AUTO stops asking. Relaxed: a hint, each answer is the same. */
static int32_t async_no_uring;

/* The core ---------------------------------------------------------------------- */

/* The operation will not hold a lock for a run callback: forget it. */
static void async_drop_callback(fx_async *w)
{
    w->fn = NULL;
    w->rfn = NULL;
}

/* The operation is over with result r: the waiter becomes idle, and a run
 * callback runs with the lock held. */
static int async_finish(fx_async *w, int r)
{
    void (*fn)(void *) = w->fn;
    void (*rfn)(void *, int) = w->rfn;
    void *arg = w->arg;
    /* Taken before the callback, which may arm the waiter again. */
    fx_mutex *m = fn != NULL ? w->op.mutex : NULL;
    fx_rmutex *rm = rfn != NULL ? w->op.rmutex.m : NULL;
    w->state = STATE_IDLE;
    w->kind = NULL;
    async_drop_callback(w);
    if (r == 0 && fn != NULL) {
        fn(arg); /* the waiter is idle: fn may arm it again */
        int u = fx_mutex_unlock(m);
        if (u != 0)
            r = u;
    } else if ((r == 0 || r == EOWNERDEAD) && rfn != NULL) {
        rfn(arg, r); /* EOWNERDEAD: fn repairs and calls consistent */
        /* One level; an inconsistent final unlock makes m NOTREC. */
        int u = fx_rmutex_unlock(rm);
        if (u != 0)
            r = u;
    }
    return r;
}

/* Folds the caller's deadline into the sleep's bound: the wait ends at the
 * earlier of the two. Returns true when the bound is the kind's own `until`
 * (strictly before the deadline), so that its timeout means RECHECK. */
static bool async_bound(const fx_async *w, struct fxi_sleep *s)
{
    if (!w->has_deadline)
        return s->has_until;
    if (s->has_until && fxi_ts_before(&s->until, &w->deadline))
        return true;
    s->has_until = true;
    s->until = w->deadline;
    return false;
}

/* Steps the kind after a wait that ended with `last`, until it finishes or
 * a new wait is armed. */
static int async_advance(fx_async *w, int last)
{
    for (;;) {
        struct fxi_sleep s;
        s.has_until = false;
        s.recheck_ns = 0;
        int r = w->kind->step(w, last, &s);
        if (r != EINPROGRESS)
            return async_finish(w, r);
        if (w->has_deadline && fxi_deadline_passed(&w->deadline)) {
            last = LAST_TIMEDOUT;
            continue;
        }
        w->own_bound = async_bound(w, &s);
        int failed_last = LAST_CANCELED;
        r = w->be->arm(w, &s, &failed_last);
        if (r == 0) {
            w->state = STATE_WAITING;
            return EINPROGRESS;
        }
        w->kind->abandon(w, failed_last);
        async_drop_callback(w);
        return async_finish(w, r);
    }
}

/* Arms the operation whose arguments are in w->op. */
static int async_start(fx_async *w, const struct fxi_async_kind *kind,
                       const struct timespec *deadline)
{
    w->kind = kind;
    int r = kind->ready(w);
    if (r != EINPROGRESS)
        return async_finish(w, r);
    /* It has to wait: now the deadline is checked (POSIX), and the waiter's
     * resources, which belong to their creator, come into play. */
    if (fxi_deadline_check(deadline) != 0)
        r = EINVAL;
    else if (!async_is_owner(w))
        r = EPERM;
    if (r != EINPROGRESS) {
        async_drop_callback(w);
        return async_finish(w, r);
    }
    w->has_deadline = deadline != NULL;
    if (deadline != NULL)
        w->deadline = *deadline;
    return async_advance(w, LAST_FIRST);
}

/* Public API -------------------------------------------------------------------- */

static int async_env_backend(void)
{
    const char *e = getenv("FUTEXSYNC_ASYNC");
    if (e == NULL)
        return FX_ASYNC_AUTO;
    if (strcmp(e, "thread") == 0)
        return FX_ASYNC_THREAD;
    if (strcmp(e, "uring") == 0 || strcmp(e, "io_uring") == 0)
        return FX_ASYNC_URING;
    return FX_ASYNC_AUTO;
}

int fx_async_create(fx_async **waiter, int backend)
{
    if (waiter == NULL ||
        (backend != FX_ASYNC_AUTO && backend != FX_ASYNC_URING && backend != FX_ASYNC_THREAD))
        return EINVAL;
    if (backend == FX_ASYNC_AUTO)
        backend = async_env_backend();

    int saved = errno;
    fx_async *w = calloc(1, sizeof *w);
    errno = saved; /* calloc is no system call: fxi_syscall cannot keep it */
    if (w == NULL)
        return ENOMEM;
    w->owner = fxi_tid();
    w->uring.ring.fd = -1;
    long efd = fxi_syscall(SYS_eventfd2, 0, EFD_CLOEXEC | EFD_NONBLOCK, 0, 0, 0, 0);
    if (fxi_syscall_failed(efd)) {
        free(w);
        return (int)-efd;
    }
    w->efd = (int)efd;

    int r = ENOTSUP;
    if (backend != FX_ASYNC_THREAD &&
        (backend == FX_ASYNC_URING || !__atomic_load_n(&async_no_uring, __ATOMIC_RELAXED))) {
        r = fxi_async_uring.open(w);
        if (r == ENOTSUP)
            __atomic_store_n(&async_no_uring, 1, __ATOMIC_RELAXED);
        if (r == 0) {
            w->backend = FX_ASYNC_URING;
            w->be = &fxi_async_uring;
        }
    }
    if (r != 0 && backend != FX_ASYNC_URING) {
        /* FX_ASYNC_THREAD, or FX_ASYNC_AUTO without a usable io_uring. */
        r = fxi_async_thread.open(w);
        if (r == 0) {
            w->backend = FX_ASYNC_THREAD;
            w->be = &fxi_async_thread;
        }
    }
    if (r != 0) {
        fxi_close(w->efd);
        free(w);
        return r;
    }
    *waiter = w;
    return 0;
}

int fx_async_cancel(fx_async *w)
{
    int c = async_check(w);
    if (c != 0)
        return c;
    if (w->state == STATE_IDLE)
        return 0;
    int last = w->be->stop(w);
    w->kind->abandon(w, last);
    async_drop_callback(w);
    async_finish(w, ECANCELED);
    return 0;
}

int fx_async_destroy(fx_async *w)
{
    int c = async_check(w);
    if (c != 0)
        return c;
    fx_async_cancel(w);
    w->be->close(w);
    fxi_close(w->efd);
    free(w);
    return 0;
}

int fx_async_fd(const fx_async *w)
{
    return w == NULL ? -EINVAL : w->efd;
}

int fx_async_backend(const fx_async *w)
{
    return w == NULL ? -EINVAL : w->backend;
}

int fx_async_complete(fx_async *w)
{
    int c = async_check(w);
    if (c != 0)
        return c;
    if (w->state == STATE_IDLE)
        return EINVAL;
    int last;
    if (w->be->poll(w, &last) == EINPROGRESS)
        return EINPROGRESS;
    w->state = STATE_IDLE; /* the wait is over; advance re-arms or finishes */
    if (last == LAST_TIMEDOUT && w->own_bound)
        last = LAST_RECHECK; /* the kind's bound, not the deadline */
    return async_advance(w, last);
}

int fx_async_futex_wait(fx_async *w, int32_t *slot, int32_t expected,
                        const struct timespec *deadline)
{
    if (w == NULL || fxi_bad_slot(slot))
        return EINVAL;
    if (w->state != STATE_IDLE)
        return EBUSY;
    w->op.futex.word = slot;
    w->op.futex.expected = expected;
    async_drop_callback(w);
    return async_start(w, &fxi_async_kind_futex, deadline);
}

int fx_async_mutex_lock(fx_async *w, fx_mutex *m, const struct timespec *deadline)
{
    if (w == NULL || fxi_bad_slot(m))
        return EINVAL;
    if (w->state != STATE_IDLE)
        return EBUSY;
    w->op.mutex = m;
    async_drop_callback(w);
    return async_start(w, &fxi_async_kind_mutex, deadline);
}

int fx_async_mutex_run(fx_async *w, fx_mutex *m, const struct timespec *deadline,
                       void (*fn)(void *arg), void *arg)
{
    if (w == NULL || fxi_bad_slot(m) || fn == NULL)
        return EINVAL;
    if (w->state != STATE_IDLE)
        return EBUSY;
    w->op.mutex = m;
    async_drop_callback(w);
    w->fn = fn;
    w->arg = arg;
    return async_start(w, &fxi_async_kind_mutex, deadline);
}

int fx_async_counter_wait(fx_async *w, fx_counter *c, int32_t target,
                          const struct timespec *deadline)
{
    if (w == NULL || fxi_bad_slot(c))
        return EINVAL;
    if (w->state != STATE_IDLE)
        return EBUSY;
    w->op.counter.c = c;
    w->op.counter.target = target;
    w->op.counter.counted = false;
    async_drop_callback(w);
    return async_start(w, &fxi_async_kind_counter, deadline);
}

int fx_async_rmutex_lock(fx_async *w, fx_rmutex *m, const struct timespec *deadline)
{
    if (w == NULL || fxi_bad_slot(m))
        return EINVAL;
    if (w->state != STATE_IDLE)
        return EBUSY;
    w->op.rmutex.m = m;
    async_drop_callback(w);
    return async_start(w, &fxi_async_kind_rmutex, deadline);
}

int fx_async_rmutex_run(fx_async *w, fx_rmutex *m, const struct timespec *deadline,
                        void (*fn)(void *arg, int status), void *arg)
{
    if (w == NULL || fxi_bad_slot(m) || fn == NULL)
        return EINVAL;
    if (w->state != STATE_IDLE)
        return EBUSY;
    w->op.rmutex.m = m;
    async_drop_callback(w);
    w->rfn = fn;
    w->arg = arg;
    return async_start(w, &fxi_async_kind_rmutex, deadline);
}

