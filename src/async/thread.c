/*
 * src/async/thread.c - the helper-thread back end of the asynchronous
 * waiters.
 *
 * Back end: helper thread (FX_ASYNC_THREAD). One thread per waiter, all
 * signals blocked, parked on the futex word `req`. Every futex call goes
 * through the futex layer (src/internal/futex.h). Three sequence words:
 * req (requests posted by the loop), done (requests whose wait is over),
 * quiet (requests the helper has finished with, eventfd written).
 *
 *   loop (arm)           request fields; req += 1 (release); wake req
 *   helper               sees req (acquire); unless `cancel`: futex wait on
 *                        (word, value, bound), again after EINTR, and again
 *                        after a recheck bound (recheck_ns > 0, before the
 *                        deadline) passed: bound := the next recheck or the
 *                        deadline, and the wait re-reads the word (EAGAIN
 *                        if it changed); result;
 *                        done := req; unless `cancel`: write the eventfd;
 *                        quiet := req; if `cancel` or `watch`: wake quiet
 *   loop (complete)      clear the eventfd, then: done != req? not yet (the
 *                        eventfd write is still to come: nothing is lost,
 *                        nothing spins). Else the helper is a write() away
 *                        from quiet: watch := 1, sleep on quiet until it is
 *                        req, clear the eventfd again, take the result
 *   loop (cancel)        cancel := 1; until quiet == req: while done != req
 *                        wake every sleeper on the word (the helper is one of
 *                        them: a targeted wake is impossible, since every
 *                        sleeper listens to all bitset bits), and sleep on
 *                        quiet for at most 1 ms (a kick that came before the
 *                        helper slept is repeated); then clear the eventfd
 *
 *   Dekker pairs, all seq_cst: (cancel, helper's look before sleeping), and
 *   (cancel or watch, quiet): either the helper sees the flag and wakes
 *   quiet, or the loop sees quiet before sleeping on it.
 *
 * docs/async.md, "Back end: helper thread".
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "async/async.h"
#include "internal/deadline.h"
#include "internal/futex.h"

static void *async_helper(void *arg)
{
    struct fxi_async_thread *t = arg;
    int32_t seen = 0;
    for (;;) {
        /* Acquire: the request fields written before the increment. */
        int32_t req = __atomic_load_n(&t->req, __ATOMIC_ACQUIRE);
        if (req == seen) {
            fxi_futex_wait_raw(&t->req, seen, NULL, FXI_BITSET_ANY);
            continue;
        }
        seen = req;
        /* Relaxed: written before the increment we acquired. */
        if (__atomic_load_n(&t->quit, __ATOMIC_RELAXED))
            break;
        int r;
        struct timespec bound = t->bound;
        bool own = t->own;
        for (;;) {
            /* Seq_cst: the Dekker pair with the loop's cancel (see top). */
            if (__atomic_load_n(&t->cancel, __ATOMIC_SEQ_CST)) {
                r = LAST_CANCELED;
                break;
            }
            r = fxi_futex_wait_raw(t->word, t->expected, t->bounded ? &bound : NULL,
                                  FXI_BITSET_ANY);
            if (r == EINTR)
                continue;
            if (r == ETIMEDOUT && own && t->recheck_ns > 0) {
                /* The recheck, not the deadline: the next wait re-reads the
                 * word (EAGAIN: it changed, a wake was lost) and otherwise
                 * sleeps to the next recheck. The loop is not woken. */
                own = fxi_async_next_recheck(t->recheck_ns, t->has_deadline, &t->deadline,
                                            &bound);
                continue;
            }
            break;
        }
        t->result = r;
        t->result_own = own;
        /* Release: the result is visible to whoever sees done. */
        __atomic_store_n(&t->done, seen, __ATOMIC_RELEASE);
        if (!__atomic_load_n(&t->cancel, __ATOMIC_SEQ_CST))
            fxi_efd_signal(t->efd);
        /* Seq_cst: the Dekker pair with the loop's watch / cancel. */
        __atomic_store_n(&t->quiet, seen, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&t->watch, __ATOMIC_SEQ_CST) ||
            __atomic_load_n(&t->cancel, __ATOMIC_SEQ_CST))
            fxi_futex_wake_raw(&t->quiet, 1, FXI_BITSET_ANY);
    }
    return NULL;
}

static int thread_backend_open(fx_async *w)
{
    struct fxi_async_thread *t = &w->thread;
    t->efd = w->efd;
    /* The helper takes no signal meant for the application. */
    sigset_t all, old;
    sigfillset(&all);
    int saved = errno;
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int r = pthread_create(&t->thread, NULL, async_helper, t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    if (r != 0)
        return r;
    t->started = true;
    return 0;
}

static void thread_backend_close(fx_async *w)
{
    struct fxi_async_thread *t = &w->thread;
    if (!t->started)
        return;
    __atomic_store_n(&t->quit, 1, __ATOMIC_RELAXED);
    /* Release: quit is visible to the helper that sees the increment. */
    __atomic_fetch_add(&t->req, 1, __ATOMIC_RELEASE);
    fxi_futex_wake_raw(&t->req, 1, FXI_BITSET_ANY);
    int saved = errno;
    pthread_join(t->thread, NULL);
    errno = saved;
    t->started = false;
}

static int thread_arm(fx_async *w, const struct fxi_sleep *s, int *failed_last)
{
    (void)failed_last;
    struct fxi_async_thread *t = &w->thread;
    t->word = s->word;
    t->expected = s->expected;
    t->bounded = s->has_until;
    t->bound = s->until;
    t->own = w->own_bound;
    t->recheck_ns = s->recheck_ns;
    t->has_deadline = w->has_deadline;
    t->deadline = w->deadline;
    __atomic_store_n(&t->cancel, 0, __ATOMIC_RELAXED); /* published by req */
    /* Release: the request fields above happen-before the helper's read. */
    __atomic_fetch_add(&t->req, 1, __ATOMIC_RELEASE);
    fxi_futex_wake_raw(&t->req, 1, FXI_BITSET_ANY);
    return 0;
}

/* Sleeps until the helper is finished with request `req`: quiet == req.
 * With `kick`, the helper may still sleep on the word and is woken there. */
static void thread_wait_quiet(struct fxi_async_thread *t, int32_t req, bool kick)
{
    int32_t before = (int32_t)((uint32_t)req - 1u);
    __atomic_store_n(&t->watch, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&t->quiet, __ATOMIC_SEQ_CST) != req) {
        struct timespec d, *dl = NULL;
        /* Relaxed: only decides whether a kick is still needed. */
        if (kick && __atomic_load_n(&t->done, __ATOMIC_RELAXED) != req) {
            /* The helper may sleep on the word: wake everyone there, then
             * look again within 1 ms in case it was not asleep yet. */
            fxi_futex_wake_raw(t->word, INT32_MAX, FXI_BITSET_ANY);
            clock_gettime(CLOCK_MONOTONIC, &d);
            d = fxi_ts_add_ns(d, 1000000);
            dl = &d;
        }
        fxi_futex_wait_raw(&t->quiet, before, dl, FXI_BITSET_ANY);
    }
    __atomic_store_n(&t->watch, 0, __ATOMIC_RELAXED);
}

static int thread_poll(fx_async *w, int *last)
{
    struct fxi_async_thread *t = &w->thread;
    /* Relaxed: req is ours. */
    int32_t req = __atomic_load_n(&t->req, __ATOMIC_RELAXED);
    fxi_efd_clear(w->efd); /* first: a write still to come signals again */
    /* Acquire: the result written before done. */
    if (__atomic_load_n(&t->done, __ATOMIC_ACQUIRE) != req)
        return EINPROGRESS;
    /* The wait is over; the helper is at most one write() from quiet. */
    thread_wait_quiet(t, req, false);
    fxi_efd_clear(w->efd);
    *last = t->result;
    w->own_bound = t->result_own; /* the helper may have moved the bound */
    return 0;
}

static int thread_stop(fx_async *w)
{
    struct fxi_async_thread *t = &w->thread;
    int32_t req = __atomic_load_n(&t->req, __ATOMIC_RELAXED);
    /* Seq_cst: the Dekker pairs with the helper (see top). */
    __atomic_store_n(&t->cancel, 1, __ATOMIC_SEQ_CST);
    thread_wait_quiet(t, req, true);
    fxi_efd_clear(w->efd); /* the helper is finished with this request */
    return t->result; /* written before done, itself before quiet */
}

const struct fx_async_backend fxi_async_thread = {
    .open = thread_backend_open,
    .close = thread_backend_close,
    .arm = thread_arm,
    .poll = thread_poll,
    .stop = thread_stop,
};
