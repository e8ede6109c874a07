/*
 * src/async.c - asynchronous waiters: futex words, mutexes, re-entrant
 * mutexes and counters waited on from an event loop.
 *
 * A waiter runs one operation at a time. The operation is a kind (a raw futex
 * wait, a mutex acquisition, an rmutex acquisition, a counter wait) described
 * by three functions: `ready` (an attempt that needs no waiting and leaves no
 * trace), `step` (one move of the kind's protocol after the last wait ended:
 * finish, or name the word and value to sleep on next, and optionally the
 * time by which the sleep must end) and `abandon` (leave the protocol cleanly
 * when cancelled). The back end (io_uring or a helper thread) only sleeps on
 * the word it is given, until the bound it is given, and reports how that
 * sleep ended.
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
 *   WAITING -> WAITING  complete             the wait ended; kind.step(last)
 *                                            names a new (word, value): re-arm
 *   WAITING -> IDLE     complete             the wait ended; kind.step(last)
 *                                            gives the result (run kinds: the
 *                                            callback runs, the lock is
 *                                            unlocked)
 *   WAITING -> IDLE     cancel               the back end stops the wait and
 *                                            says how it ended; kind.abandon
 *
 *   How a wait ended (`last`): WOKEN (0; a wake may have been consumed),
 *   CHANGED (EAGAIN: the word differed when the kernel looked), RECHECK (the
 *   kind's own bound `until` passed before the deadline, not woken), TIMEDOUT
 *   (the deadline passed, not woken), CANCELED (stopped by cancel, not woken).
 *   The back end's timer cannot tell `until` from the deadline: the core
 *   remembers which of the two it gave (w->own_bound) and turns a timeout of
 *   its own bound into RECHECK. Before each re-arm the core checks the
 *   deadline itself, so a passed deadline never reaches the kernel (which
 *   rejects negative times).
 *
 * Kinds
 *
 *   futex    ready: *word != expected -> EAGAIN. step(FIRST): sleep on
 *            (word, expected); WOKEN -> 0, CHANGED -> EAGAIN, TIMEDOUT ->
 *            ETIMEDOUT. abandon: nothing (a raw wait owes nobody a wake).
 *   mutex    ready: fx_mutex_trylock (0 -> LOCKED, no system call).
 *            step: fx_mutex_acquire_step (src/mutex.c), which takes a free
 *            lock as CONTENDED or marks a held one CONTENDED so that its
 *            unlock wakes a sleeper; EBUSY -> sleep on (state, CONTENDED),
 *            or ETIMEDOUT after TIMEDOUT (a last try first). abandon: after
 *            WOKEN, fx_mutex_abandon_wait passes the consumed wake on.
 *   rmutex   ready: fx_rmutex_trylock, by the calling thread: free -> 0,
 *            its own -> re-entry (0, or EAGAIN at the depth limit),
 *            ORPHANED or a dead owner (checked at once, memo permitting)
 *            -> EOWNERDEAD, NOTREC -> ENOTRECOVERABLE; no system call when
 *            free or re-entered. step(FIRST) starts an fx_rmutex_waiter
 *            (depth 0: a plain lock); every step but TIMEDOUT is
 *            fx_rmutex_acquire_step (src/rmutex.c) by the waiter's thread
 *            (the only one that may step, so the TID written is the loop
 *            thread's): 0 / EOWNERDEAD (acquired, W kept once it has slept)
 *            / ENOTRECOVERABLE / EINVAL / EAGAIN finish; EBUSY (W marked)
 *            -> sleep on (owner, T|W) until the liveness re-check time it
 *            names (FIRST_CHECK after it first sees owner T, then RECHECK
 *            after each check that found T alive). RECHECK and WOKEN both
 *            step again: the step at or after the re-check time reads
 *            /proc/T/stat, so a death is seen within RECHECK of it, as by
 *            a blocked fx_rmutex_lock. TIMEDOUT: a last non-waiting try,
 *            fx_rmutex_trylock (as fx_rmutex_timedlock at its deadline:
 *            liveness checked at once), EBUSY -> ETIMEDOUT. We were not
 *            woken (or our last step re-marked W), so taking a free word
 *            without W is a barger's take. abandon: after WOKEN,
 *            fx_rmutex_abandon_wait passes the consumed wake on (the one
 *            meant to make someone take the mutex or re-mark W).
 *   counter  ready: value == target -> 0. step(FIRST): R1 waiters += 1,
 *            then R2 look (src/internal/counter_wait.h, the protocol of
 *            src/counter.c); value == target -> leave, 0; else sleep on
 *            (value, v). TIMEDOUT: a last look, leave. abandon: leave.
 *            The waiter stays counted while WAITING, so writers wake it.
 *
 *   Run kinds (fx_async_mutex_run, fx_async_rmutex_run): when the result
 *   means "held" (mutex: 0; rmutex: 0 or EOWNERDEAD) the callback runs on
 *   the finishing thread, the waiter already idle, then the lock is unlocked
 *   once (rmutex: an EOWNERDEAD acquisition the callback did not make
 *   consistent becomes NOTREC there, as with the blocking API). Cancel and
 *   errors drop the callback.
 *
 * Back end: io_uring (FX_ASYNC_URING). A ring of 4 entries per waiter, set up
 * with IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN | TASKRUN_FLAG and the
 * waiter's eventfd registered. A wait is IORING_OP_FUTEX_WAIT (32-bit, not
 * private, any bitset) on the word, linked to an IORING_OP_LINK_TIMEOUT with
 * the sleep's absolute CLOCK_MONOTONIC bound (when it has one). When the
 * waker's FUTEX_WAKE reaches the request, the kernel queues its completion as
 * deferred work and signals the eventfd right there, in the waker's context:
 * the loop thread is not interrupted (no task-work signal), it finds the fd
 * readable. Completion results: futex 0 = WOKEN, -EAGAIN = CHANGED,
 * -ECANCELED = TIMEDOUT (the linked timeout cancelled it) or CANCELED (our
 * IORING_OP_ASYNC_CANCEL); any other error is reported as CHANGED, as
 * src/futex.c does, so the kind looks at the word again. Every request posts
 * exactly one completion, counted in `inflight`; an operation's wait is over
 * only when all have been reaped.
 *
 *   Closing a ring (fx_async_destroy) is the one interruption: the kernel
 *   finishes the teardown in a worker (io_ring_exit_work), which queues a
 *   TWA_SIGNAL task-work item on every task that submitted to the ring, so
 *   the creating thread's next blocking system call returns EINTR once
 *   (measured: 46 of 50 epoll_wait calls made right after a destroy). The
 *   thread is on that list because it submitted; short of keeping rings
 *   open, we know of no way to leave it early. Documented in async.h.
 *
 *   eventfd discipline: complete() clears the eventfd *before* running the
 *   deferred work (io_uring_enter GETEVENTS), so work queued after that run
 *   signals it again and nothing is lost; the signals that become stale
 *   (those of the work we just ran) are cleared once nothing is in flight,
 *   when no signal can be lost. When the linked timeout fires, its
 *   completion comes first and the cancelled wait's a moment later:
 *   complete() waits for the latter (io_uring_enter with min_complete 1;
 *   it is already on its way) instead of returning EINPROGRESS, so a timer
 *   costs the loop one readiness, not two.
 *
 * Back end: helper thread (FX_ASYNC_THREAD). One thread per waiter, all
 * signals blocked, parked on the futex word `req`. Every futex call goes
 * through the futex layer (src/internal/futex.h). Three sequence words:
 * req (requests posted by the loop), done (requests whose wait is over),
 * quiet (requests the helper has finished with, eventfd written).
 *
 *   loop (arm)           request fields; req += 1 (release); wake req
 *   helper               sees req (acquire); unless `cancel`: futex wait on
 *                        (word, value, bound), again after EINTR; result;
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
 */
#include "futexsync/async.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "internal/annotate.h"
#include "internal/counter_wait.h"
#include "internal/deadline.h"
#include "internal/futex.h"
#include "internal/mutex.h"
#include "internal/rmutex.h"
#include "internal/uring.h"

/* How a back end's wait ended (see the table). */
enum {
    LAST_FIRST = -1,       /* no wait yet: the operation is being armed */
    LAST_RECHECK = -2,     /* the kind's own bound passed first; not woken */
    LAST_WOKEN = 0,        /* woken; may have consumed a wake */
    LAST_CHANGED = EAGAIN, /* the word did not hold the value */
    LAST_TIMEDOUT = ETIMEDOUT,
    LAST_CANCELED = ECANCELED,
};

enum { STATE_IDLE, STATE_WAITING };

/* The futex wait a kind asks for. The kind may bound it (`until`); the core
 * folds the caller's deadline in before the back end sees it. */
struct fx_sleep {
    int32_t *word;
    int32_t expected;
    bool has_until;        /* the sleep ends by `until` at the latest */
    struct timespec until; /* absolute CLOCK_MONOTONIC */
};

struct fx_async_kind {
    /* A first attempt that needs no waiting and leaves no trace: the result,
     * or EINPROGRESS when the operation has to wait. */
    int (*ready)(fx_async *w);
    /* One move after the last wait ended (`last`): the result, or EINPROGRESS
     * with *s set (s->has_until is false on entry). Never EINPROGRESS for
     * LAST_TIMEDOUT. */
    int (*step)(fx_async *w, int last, struct fx_sleep *s);
    /* Leaves the protocol after a wait that ended with `last`. */
    void (*abandon)(fx_async *w, int last);
};

/* Request tags (user_data) of the io_uring back end. */
enum { TAG_FUTEX = 1, TAG_TIMEOUT = 2, TAG_CANCEL = 3 };

struct fx_async_uring {
    struct fx_uring ring;
    unsigned inflight;  /* submitted requests whose completion is not reaped */
    bool futex_done;    /* the futex wait's completion has been reaped */
    bool timeout_done;  /* the linked timeout's completion has been reaped */
    int32_t futex_res;  /* ... and its result */
    struct __kernel_timespec ts; /* the bound of the linked timeout */
};

struct fx_async_thread {
    pthread_t thread;
    bool started;
    int32_t req;    /* requests posted by the loop: the helper sleeps on it */
    int32_t done;   /* requests whose futex wait is over (result written) */
    int32_t quiet;  /* requests the helper is finished with (eventfd written) */
    int32_t cancel; /* 1: the loop cancels the current request */
    int32_t watch;  /* 1: the loop sleeps on quiet */
    int32_t quit;   /* 1: the helper exits at the next request */
    /* The request: written by the loop before req's release increment. */
    int32_t *word;
    int32_t expected;
    bool bounded;          /* the sleep ends at `bound` at the latest */
    struct timespec bound; /* absolute CLOCK_MONOTONIC */
    int efd;
    /* The result: written by the helper before done's store. */
    int result;
};

struct fx_async {
    int backend;   /* FX_ASYNC_URING or FX_ASYNC_THREAD */
    pid_t owner;   /* TID of the creating thread */
    int efd;       /* the eventfd the loop polls */
    int state;     /* STATE_* */
    const struct fx_async_kind *kind;
    bool has_deadline;
    struct timespec deadline;
    bool own_bound; /* the wait in flight is bounded by the kind's `until`,
                       which comes before the deadline */
    /* The operation's arguments. */
    union {
        struct {
            int32_t *word;
            int32_t expected;
        } futex;
        fx_mutex *mutex;
        struct {
            fx_rmutex *m;
            struct fx_rmutex_waiter rw; /* the acquisition's state */
        } rmutex;
        struct {
            fx_counter *c;
            int32_t target;
            bool counted; /* registered in c->waiters */
        } counter;
    } op;
    void (*fn)(void *);       /* fx_async_mutex_run's callback, or NULL */
    void (*rfn)(void *, int); /* fx_async_rmutex_run's callback, or NULL */
    void *arg;
    struct fx_async_uring uring;
    struct fx_async_thread thread;
};

/* System calls with errno kept --------------------------------------------- */

static void fx_efd_clear(int efd)
{
    int saved = errno;
    uint64_t v;
    /* Non-blocking: EAGAIN when it was clear already. */
    (void)!read(efd, &v, sizeof v);
    errno = saved;
}

static void fx_efd_signal(int efd)
{
    int saved = errno;
    uint64_t one = 1;
    (void)!write(efd, &one, sizeof one);
    errno = saved;
}

static void fx_close(int fd)
{
    int saved = errno;
    close(fd);
    errno = saved;
}

static bool fx_async_is_owner(const fx_async *w)
{
    return gettid() == w->owner;
}

/* io_uring back end ---------------------------------------------------------- */

/* Set when the kernel refused io_uring or its futex operations, so that
 * FX_ASYNC_AUTO stops asking. Relaxed: a hint, each answer is the same. */
static int32_t fx_async_no_uring;

static int fx_uring_backend_open(fx_async *w)
{
    struct fx_async_uring *u = &w->uring;
    int r = fx_uring_open(&u->ring, 4,
                          IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
                              IORING_SETUP_TASKRUN_FLAG);
    if (r != 0) {
        /* ENOSYS: no io_uring (or seccomp); EPERM: io_uring_disabled or
         * seccomp; EINVAL: a setup flag older than 6.1. */
        return r == ENOSYS || r == EPERM || r == EINVAL ? ENOTSUP : r;
    }
    static const unsigned ops[] = {FX_IORING_OP_FUTEX_WAIT, IORING_OP_LINK_TIMEOUT,
                                   IORING_OP_ASYNC_CANCEL};
    if (!fx_uring_supports(&u->ring, ops, 3)) {
        fx_uring_close(&u->ring);
        return ENOTSUP;
    }
    r = fx_uring_register_eventfd(&u->ring, w->efd);
    if (r != 0) {
        fx_uring_close(&u->ring);
        return r;
    }
    u->inflight = 0;
    return 0;
}

static void fx_uring_reap(struct fx_async_uring *u)
{
    struct io_uring_cqe *cqe;
    while ((cqe = fx_uring_peek(&u->ring)) != NULL) {
        if (cqe->user_data == TAG_FUTEX) {
            u->futex_done = true;
            u->futex_res = cqe->res;
        } else if (cqe->user_data == TAG_TIMEOUT) {
            u->timeout_done = true;
        }
        if (u->inflight > 0)
            u->inflight--;
        fx_uring_seen(&u->ring);
    }
}

/* Runs the deferred work (posting the completions it produces) and reaps. */
static void fx_uring_flush(struct fx_async_uring *u)
{
    if (fx_uring_has_work(&u->ring)) {
        long rc;
        do
            rc = fx_uring_enter(&u->ring, 0, 0, IORING_ENTER_GETEVENTS);
        while (rc == -EINTR);
    }
    fx_uring_reap(u);
}

/* Waits until every request has completed. Called only when each one will
 * complete promptly (the futex wait has ended or is being cancelled), so this
 * never waits for the word. False if the kernel refused to wait. */
static bool fx_uring_drain(struct fx_async_uring *u)
{
    fx_uring_flush(u);
    while (u->inflight > 0) {
        long rc = fx_uring_enter(&u->ring, 0, 1, IORING_ENTER_GETEVENTS);
        if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY && rc != -ETIME)
            return false;
        fx_uring_reap(u);
    }
    return true;
}

/* How the futex wait ended, from its completion's result. */
static int fx_uring_last(const struct fx_async_uring *u, int canceled)
{
    if (u->futex_res == 0)
        return LAST_WOKEN;
    if (u->futex_res == -ECANCELED)
        return canceled;
    return LAST_CHANGED; /* -EAGAIN, or an error: look at the word again */
}

/* Submits an IORING_OP_ASYNC_CANCEL of the futex wait. A submission refused
 * for want of memory is retried for up to a second. */
static bool fx_uring_submit_cancel(struct fx_async_uring *u)
{
    for (int tries = 0; tries < 1000; tries++) {
        struct io_uring_sqe *sqe = fx_uring_sqe(&u->ring);
        if (sqe == NULL)
            return false; /* cannot happen: at most 2 of 4 entries are in use */
        sqe->opcode = IORING_OP_ASYNC_CANCEL;
        sqe->addr = TAG_FUTEX;
        sqe->user_data = TAG_CANCEL;
        unsigned consumed;
        int r = fx_uring_submit(&u->ring, &consumed);
        u->inflight += consumed;
        if (r == 0)
            return true;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return false;
}

/* Stops the wait in flight and reports how it ended (LAST_*). */
static int fx_uring_stop(fx_async *w)
{
    struct fx_async_uring *u = &w->uring;
    fx_uring_flush(u);
    if (!u->futex_done && !fx_uring_submit_cancel(u)) {
        /* The kernel will not take a cancellation: close the ring, which
         * cancels everything, and assume the worst (a consumed wake). */
        fx_uring_close(&u->ring);
        u->inflight = 0;
        fx_efd_clear(w->efd);
        return LAST_WOKEN;
    }
    if (!fx_uring_drain(u)) {
        fx_uring_close(&u->ring);
        u->inflight = 0;
        fx_efd_clear(w->efd);
        return LAST_WOKEN;
    }
    fx_efd_clear(w->efd); /* nothing in flight: only stale signals remain */
    return fx_uring_last(u, LAST_CANCELED);
}

static int fx_uring_arm(fx_async *w, const struct fx_sleep *s, int *failed_last)
{
    struct fx_async_uring *u = &w->uring;
    if (u->ring.fd < 0) {
        /* The ring was given up after a failed cancellation: a new one. */
        int r = fx_uring_backend_open(w);
        if (r != 0) {
            *failed_last = LAST_CANCELED;
            return r == ENOTSUP ? ENOMEM : r;
        }
    }
    if (fx_uring_room(&u->ring) < 2) {
        /* Cannot happen: every request is reaped before the next arm. */
        *failed_last = LAST_CANCELED;
        return EAGAIN;
    }
    struct io_uring_sqe *sqe = fx_uring_sqe(&u->ring);
    sqe->opcode = FX_IORING_OP_FUTEX_WAIT;
    sqe->fd = (int32_t)FX_FUTEX2_SIZE_U32; /* futex2 flags: 32 bits, shared */
    sqe->addr = (uint64_t)(uintptr_t)s->word;
    sqe->off = (uint32_t)s->expected;     /* addr2: the value */
    sqe->addr3 = FX_FUTEX_BITSET_MATCH_ANY; /* the mask */
    sqe->user_data = TAG_FUTEX;
    if (s->has_until) {
        sqe->flags |= IOSQE_IO_LINK;
        u->ts.tv_sec = (long long)s->until.tv_sec;
        u->ts.tv_nsec = s->until.tv_nsec;
        struct io_uring_sqe *t = fx_uring_sqe(&u->ring);
        t->opcode = IORING_OP_LINK_TIMEOUT;
        t->addr = (uint64_t)(uintptr_t)&u->ts;
        t->len = 1;
        t->timeout_flags = IORING_TIMEOUT_ABS; /* CLOCK_MONOTONIC by default */
        t->user_data = TAG_TIMEOUT;
    }
    u->futex_done = false;
    u->timeout_done = false;
    unsigned consumed;
    int r = fx_uring_submit(&u->ring, &consumed);
    u->inflight += consumed;
    if (r == 0)
        return 0;
    *failed_last = consumed > 0 ? fx_uring_stop(w) : LAST_CANCELED;
    return r == EBUSY ? EAGAIN : r;
}

/* complete(): EINPROGRESS, or 0 with *last once the wait is over. */
static int fx_uring_poll(fx_async *w, int *last)
{
    struct fx_async_uring *u = &w->uring;
    fx_efd_clear(w->efd); /* first: work queued after the flush signals again */
    fx_uring_flush(u);
    /* The linked timeout completes after the futex wait (-ECANCELED) or by
     * firing, which cancels the wait (or finds it woken): either way the
     * futex wait's completion is there or follows promptly, and is drained
     * now rather than costing the loop another readiness. */
    if (!u->futex_done && !u->timeout_done)
        return EINPROGRESS;
    /* The other completion follows promptly. */
    if (!fx_uring_drain(u)) {
        fx_uring_close(&u->ring);
        u->inflight = 0;
    }
    fx_efd_clear(w->efd); /* nothing in flight: only stale signals remain */
    *last = fx_uring_last(u, LAST_TIMEDOUT);
    return 0;
}

/* Helper-thread back end ------------------------------------------------------ */

static void *fx_async_helper(void *arg)
{
    struct fx_async_thread *t = arg;
    int32_t seen = 0;
    for (;;) {
        /* Acquire: the request fields written before the increment. */
        int32_t req = __atomic_load_n(&t->req, __ATOMIC_ACQUIRE);
        if (req == seen) {
            fx_futex_wait_raw(&t->req, seen, NULL, FX_BITSET_ANY);
            continue;
        }
        seen = req;
        /* Relaxed: written before the increment we acquired. */
        if (__atomic_load_n(&t->quit, __ATOMIC_RELAXED))
            break;
        int r;
        for (;;) {
            /* Seq_cst: the Dekker pair with the loop's cancel (see top). */
            if (__atomic_load_n(&t->cancel, __ATOMIC_SEQ_CST)) {
                r = LAST_CANCELED;
                break;
            }
            r = fx_futex_wait_raw(t->word, t->expected, t->bounded ? &t->bound : NULL,
                                  FX_BITSET_ANY);
            if (r != EINTR)
                break;
        }
        t->result = r;
        /* Release: the result is visible to whoever sees done. */
        __atomic_store_n(&t->done, seen, __ATOMIC_RELEASE);
        if (!__atomic_load_n(&t->cancel, __ATOMIC_SEQ_CST))
            fx_efd_signal(t->efd);
        /* Seq_cst: the Dekker pair with the loop's watch / cancel. */
        __atomic_store_n(&t->quiet, seen, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&t->watch, __ATOMIC_SEQ_CST) ||
            __atomic_load_n(&t->cancel, __ATOMIC_SEQ_CST))
            fx_futex_wake_raw(&t->quiet, 1, FX_BITSET_ANY);
    }
    return NULL;
}

static int fx_thread_backend_open(fx_async *w)
{
    struct fx_async_thread *t = &w->thread;
    t->efd = w->efd;
    /* The helper takes no signal meant for the application. */
    sigset_t all, old;
    sigfillset(&all);
    int saved = errno;
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int r = pthread_create(&t->thread, NULL, fx_async_helper, t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    if (r != 0)
        return r;
    t->started = true;
    return 0;
}

static void fx_thread_backend_close(fx_async *w)
{
    struct fx_async_thread *t = &w->thread;
    if (!t->started)
        return;
    __atomic_store_n(&t->quit, 1, __ATOMIC_RELAXED);
    /* Release: quit is visible to the helper that sees the increment. */
    __atomic_fetch_add(&t->req, 1, __ATOMIC_RELEASE);
    fx_futex_wake_raw(&t->req, 1, FX_BITSET_ANY);
    int saved = errno;
    pthread_join(t->thread, NULL);
    errno = saved;
    t->started = false;
}

static int fx_thread_arm(fx_async *w, const struct fx_sleep *s, int *failed_last)
{
    (void)failed_last;
    struct fx_async_thread *t = &w->thread;
    t->word = s->word;
    t->expected = s->expected;
    t->bounded = s->has_until;
    t->bound = s->until;
    __atomic_store_n(&t->cancel, 0, __ATOMIC_RELAXED); /* published by req */
    /* Release: the request fields above happen-before the helper's read. */
    __atomic_fetch_add(&t->req, 1, __ATOMIC_RELEASE);
    fx_futex_wake_raw(&t->req, 1, FX_BITSET_ANY);
    return 0;
}

/* Sleeps until the helper is finished with request `req`: quiet == req.
 * With `kick`, the helper may still sleep on the word and is woken there. */
static void fx_thread_wait_quiet(struct fx_async_thread *t, int32_t req, bool kick)
{
    int32_t before = (int32_t)((uint32_t)req - 1u);
    __atomic_store_n(&t->watch, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&t->quiet, __ATOMIC_SEQ_CST) != req) {
        struct timespec d, *dl = NULL;
        /* Relaxed: only decides whether a kick is still needed. */
        if (kick && __atomic_load_n(&t->done, __ATOMIC_RELAXED) != req) {
            /* The helper may sleep on the word: wake everyone there, then
             * look again within 1 ms in case it was not asleep yet. */
            fx_futex_wake_raw(t->word, INT32_MAX, FX_BITSET_ANY);
            clock_gettime(CLOCK_MONOTONIC, &d);
            d.tv_nsec += 1000000;
            if (d.tv_nsec >= 1000000000L) {
                d.tv_nsec -= 1000000000L;
                d.tv_sec += 1;
            }
            dl = &d;
        }
        fx_futex_wait_raw(&t->quiet, before, dl, FX_BITSET_ANY);
    }
    __atomic_store_n(&t->watch, 0, __ATOMIC_RELAXED);
}

static int fx_thread_poll(fx_async *w, int *last)
{
    struct fx_async_thread *t = &w->thread;
    /* Relaxed: req is ours. */
    int32_t req = __atomic_load_n(&t->req, __ATOMIC_RELAXED);
    fx_efd_clear(w->efd); /* first: a write still to come signals again */
    /* Acquire: the result written before done. */
    if (__atomic_load_n(&t->done, __ATOMIC_ACQUIRE) != req)
        return EINPROGRESS;
    /* The wait is over; the helper is at most one write() from quiet. */
    fx_thread_wait_quiet(t, req, false);
    fx_efd_clear(w->efd);
    *last = t->result;
    return 0;
}

static int fx_thread_stop(fx_async *w)
{
    struct fx_async_thread *t = &w->thread;
    int32_t req = __atomic_load_n(&t->req, __ATOMIC_RELAXED);
    /* Seq_cst: the Dekker pairs with the helper (see top). */
    __atomic_store_n(&t->cancel, 1, __ATOMIC_SEQ_CST);
    fx_thread_wait_quiet(t, req, true);
    fx_efd_clear(w->efd); /* the helper is finished with this request */
    return t->result; /* written before done, itself before quiet */
}

/* Back-end dispatch ----------------------------------------------------------- */

static int fx_backend_arm(fx_async *w, const struct fx_sleep *s, int *failed_last)
{
    return w->backend == FX_ASYNC_URING ? fx_uring_arm(w, s, failed_last)
                                        : fx_thread_arm(w, s, failed_last);
}

static int fx_backend_poll(fx_async *w, int *last)
{
    return w->backend == FX_ASYNC_URING ? fx_uring_poll(w, last) : fx_thread_poll(w, last);
}

static int fx_backend_stop(fx_async *w)
{
    return w->backend == FX_ASYNC_URING ? fx_uring_stop(w) : fx_thread_stop(w);
}

/* Kind: raw futex word ------------------------------------------------------- */

static int fx_kind_futex_ready(fx_async *w)
{
    /* Relaxed: only decides between EAGAIN and waiting; the kernel re-checks
     * the value atomically with queueing the wait. */
    return __atomic_load_n(w->op.futex.word, __ATOMIC_RELAXED) != w->op.futex.expected
               ? EAGAIN
               : EINPROGRESS;
}

static int fx_kind_futex_step(fx_async *w, int last, struct fx_sleep *s)
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

static void fx_kind_futex_abandon(fx_async *w, int last)
{
    (void)w;
    (void)last;
}

static const struct fx_async_kind fx_kind_futex = {
    fx_kind_futex_ready,
    fx_kind_futex_step,
    fx_kind_futex_abandon,
};

/* Kind: fx_mutex acquisition ------------------------------------------------- */

static int fx_kind_mutex_ready(fx_async *w)
{
    int r = fx_mutex_trylock(w->op.mutex);
    return r == EBUSY ? EINPROGRESS : r;
}

static int fx_kind_mutex_step(fx_async *w, int last, struct fx_sleep *s)
{
    fx_mutex *m = w->op.mutex;
    int32_t sleep_on = 0;
    /* Announced as a try-lock around the one step that may take the lock:
     * the loop runs other code between steps, which the race detector must
     * keep watching. */
    fx_ann_pre_lock(m, FX_ANN_TRY);
    int r = fx_mutex_acquire_step(m, &sleep_on);
    fx_ann_post_lock(m, r ? FX_ANN_TRY | FX_ANN_FAILED : FX_ANN_TRY, 0);
    if (r != EBUSY)
        return r; /* 0: held (as CONTENDED), or EINVAL */
    if (last == LAST_TIMEDOUT)
        return ETIMEDOUT; /* the word stays CONTENDED: its unlock wakes */
    s->word = &m->state;
    s->expected = sleep_on;
    return EINPROGRESS;
}

static void fx_kind_mutex_abandon(fx_async *w, int last)
{
    if (last == LAST_WOKEN)
        fx_mutex_abandon_wait(w->op.mutex);
}

static const struct fx_async_kind fx_kind_mutex = {
    fx_kind_mutex_ready,
    fx_kind_mutex_step,
    fx_kind_mutex_abandon,
};

/* Kind: fx_rmutex acquisition ------------------------------------------------ */

static int fx_kind_rmutex_ready(fx_async *w)
{
    /* By the calling thread, whichever it is: free, re-entry, orphaned, a
     * dead owner, not recoverable. Leaves no trace when it is busy (no W). */
    int r = fx_rmutex_trylock(w->op.rmutex.m);
    return r == EBUSY ? EINPROGRESS : r;
}

static int fx_kind_rmutex_step(fx_async *w, int last, struct fx_sleep *s)
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
        fx_rmutex_waiter_init(&w->op.rmutex.rw, 0);
    /* Only the waiter's thread steps (fx_async_start and complete check it),
     * so the TID the step writes into the word is the loop thread's. */
    int32_t *word = NULL, sleep_on = 0;
    struct timespec recheck_at;
    int r = fx_rmutex_acquire_step(m, &w->op.rmutex.rw, &word, &sleep_on, &recheck_at);
    if (r != EBUSY)
        return r; /* 0, EOWNERDEAD, ENOTRECOVERABLE, EINVAL, EAGAIN */
    s->word = word;
    s->expected = sleep_on;
    s->has_until = true; /* the owner's liveness is due then */
    s->until = recheck_at;
    return EINPROGRESS;
}

static void fx_kind_rmutex_abandon(fx_async *w, int last)
{
    if (last == LAST_WOKEN)
        fx_rmutex_abandon_wait(w->op.rmutex.m);
}

static const struct fx_async_kind fx_kind_rmutex = {
    fx_kind_rmutex_ready,
    fx_kind_rmutex_step,
    fx_kind_rmutex_abandon,
};

/* Kind: fx_counter wait ------------------------------------------------------ */

static int fx_kind_counter_ready(fx_async *w)
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

static int fx_kind_counter_step(fx_async *w, int last, struct fx_sleep *s)
{
    fx_counter *c = w->op.counter.c;
    if (last == LAST_FIRST) {
        fx_counter_waiter_enter(c); /* R1 */
        w->op.counter.counted = true;
    }
    int32_t v = fx_counter_waiter_look(c); /* R2, seq_cst: acquire on success */
    if (v == w->op.counter.target || last == LAST_TIMEDOUT) {
        fx_counter_waiter_leave(c); /* R5 */
        w->op.counter.counted = false;
        return v == w->op.counter.target ? 0 : ETIMEDOUT;
    }
    s->word = &c->value;
    s->expected = v;
    return EINPROGRESS;
}

static void fx_kind_counter_abandon(fx_async *w, int last)
{
    (void)last; /* writers wake every waiter: no wake to pass on */
    if (w->op.counter.counted) {
        fx_counter_waiter_leave(w->op.counter.c);
        w->op.counter.counted = false;
    }
}

static const struct fx_async_kind fx_kind_counter = {
    fx_kind_counter_ready,
    fx_kind_counter_step,
    fx_kind_counter_abandon,
};

/* The core ---------------------------------------------------------------------- */

/* The operation will not hold a lock for a run callback: forget it. */
static void fx_async_drop_callback(fx_async *w)
{
    w->fn = NULL;
    w->rfn = NULL;
}

/* The operation is over with result r: the waiter becomes idle, and a run
 * callback runs with the lock held. */
static int fx_async_finish(fx_async *w, int r)
{
    void (*fn)(void *) = w->fn;
    void (*rfn)(void *, int) = w->rfn;
    void *arg = w->arg;
    /* Taken before the callback, which may arm the waiter again. */
    fx_mutex *m = fn != NULL ? w->op.mutex : NULL;
    fx_rmutex *rm = rfn != NULL ? w->op.rmutex.m : NULL;
    w->state = STATE_IDLE;
    w->kind = NULL;
    fx_async_drop_callback(w);
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
static bool fx_async_bound(const fx_async *w, struct fx_sleep *s)
{
    if (!w->has_deadline)
        return s->has_until;
    if (s->has_until && (s->until.tv_sec < w->deadline.tv_sec ||
                         (s->until.tv_sec == w->deadline.tv_sec &&
                          s->until.tv_nsec < w->deadline.tv_nsec)))
        return true;
    s->has_until = true;
    s->until = w->deadline;
    return false;
}

/* Steps the kind after a wait that ended with `last`, until it finishes or
 * a new wait is armed. */
static int fx_async_advance(fx_async *w, int last)
{
    for (;;) {
        struct fx_sleep s;
        s.has_until = false;
        int r = w->kind->step(w, last, &s);
        if (r != EINPROGRESS)
            return fx_async_finish(w, r);
        if (w->has_deadline && fx_deadline_passed(&w->deadline)) {
            last = LAST_TIMEDOUT;
            continue;
        }
        w->own_bound = fx_async_bound(w, &s);
        int failed_last = LAST_CANCELED;
        r = fx_backend_arm(w, &s, &failed_last);
        if (r == 0) {
            w->state = STATE_WAITING;
            return EINPROGRESS;
        }
        w->kind->abandon(w, failed_last);
        fx_async_drop_callback(w);
        return fx_async_finish(w, r);
    }
}

/* Arms the operation whose arguments are in w->op. */
static int fx_async_start(fx_async *w, const struct fx_async_kind *kind,
                          const struct timespec *deadline)
{
    w->kind = kind;
    int r = kind->ready(w);
    if (r != EINPROGRESS)
        return fx_async_finish(w, r);
    /* It has to wait: now the deadline is checked (POSIX), and the waiter's
     * resources, which belong to their creator, come into play. */
    if (fx_deadline_check(deadline) != 0)
        r = EINVAL;
    else if (!fx_async_is_owner(w))
        r = EPERM;
    if (r != EINPROGRESS) {
        fx_async_drop_callback(w);
        return fx_async_finish(w, r);
    }
    w->has_deadline = deadline != NULL;
    if (deadline != NULL)
        w->deadline = *deadline;
    return fx_async_advance(w, LAST_FIRST);
}

/* Public API -------------------------------------------------------------------- */

static int fx_async_env_backend(void)
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
        backend = fx_async_env_backend();

    int saved = errno;
    fx_async *w = calloc(1, sizeof *w);
    if (w == NULL) {
        errno = saved;
        return ENOMEM;
    }
    w->owner = gettid();
    w->uring.ring.fd = -1;
    w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (w->efd < 0) {
        int r = errno;
        errno = saved;
        free(w);
        return r;
    }
    errno = saved;

    int r = ENOTSUP;
    if (backend != FX_ASYNC_THREAD &&
        (backend == FX_ASYNC_URING || !__atomic_load_n(&fx_async_no_uring, __ATOMIC_RELAXED))) {
        r = fx_uring_backend_open(w);
        if (r == ENOTSUP)
            __atomic_store_n(&fx_async_no_uring, 1, __ATOMIC_RELAXED);
        if (r == 0)
            w->backend = FX_ASYNC_URING;
    }
    if (r != 0 && backend != FX_ASYNC_URING) {
        /* FX_ASYNC_THREAD, or FX_ASYNC_AUTO without a usable io_uring. */
        r = fx_thread_backend_open(w);
        if (r == 0)
            w->backend = FX_ASYNC_THREAD;
    }
    if (r != 0) {
        fx_close(w->efd);
        free(w);
        return r;
    }
    *waiter = w;
    return 0;
}

int fx_async_cancel(fx_async *w)
{
    if (w == NULL)
        return EINVAL;
    if (w->state == STATE_IDLE)
        return 0;
    if (!fx_async_is_owner(w))
        return EPERM;
    int last = fx_backend_stop(w);
    w->kind->abandon(w, last);
    fx_async_drop_callback(w);
    fx_async_finish(w, ECANCELED);
    return 0;
}

int fx_async_destroy(fx_async *w)
{
    if (w == NULL)
        return EINVAL;
    if (!fx_async_is_owner(w))
        return EPERM;
    fx_async_cancel(w);
    if (w->backend == FX_ASYNC_URING)
        fx_uring_close(&w->uring.ring);
    else
        fx_thread_backend_close(w);
    fx_close(w->efd);
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
    if (w == NULL || w->state == STATE_IDLE)
        return EINVAL;
    if (!fx_async_is_owner(w))
        return EPERM;
    int last;
    if (fx_backend_poll(w, &last) == EINPROGRESS)
        return EINPROGRESS;
    w->state = STATE_IDLE; /* the wait is over; advance re-arms or finishes */
    if (last == LAST_TIMEDOUT && w->own_bound)
        last = LAST_RECHECK; /* the kind's bound, not the deadline */
    return fx_async_advance(w, last);
}

int fx_async_futex_wait(fx_async *w, int32_t *slot, int32_t expected,
                        const struct timespec *deadline)
{
    if (w == NULL || fx_bad_slot(slot))
        return EINVAL;
    if (w->state != STATE_IDLE)
        return EBUSY;
    w->op.futex.word = slot;
    w->op.futex.expected = expected;
    fx_async_drop_callback(w);
    return fx_async_start(w, &fx_kind_futex, deadline);
}

int fx_async_mutex_lock(fx_async *w, fx_mutex *m, const struct timespec *deadline)
{
    if (w == NULL || fx_bad_slot(m))
        return EINVAL;
    if (w->state != STATE_IDLE)
        return EBUSY;
    w->op.mutex = m;
    fx_async_drop_callback(w);
    return fx_async_start(w, &fx_kind_mutex, deadline);
}

int fx_async_mutex_run(fx_async *w, fx_mutex *m, const struct timespec *deadline,
                       void (*fn)(void *arg), void *arg)
{
    if (w == NULL || fx_bad_slot(m) || fn == NULL)
        return EINVAL;
    if (w->state != STATE_IDLE)
        return EBUSY;
    w->op.mutex = m;
    fx_async_drop_callback(w);
    w->fn = fn;
    w->arg = arg;
    return fx_async_start(w, &fx_kind_mutex, deadline);
}

int fx_async_counter_wait(fx_async *w, fx_counter *c, int32_t target,
                          const struct timespec *deadline)
{
    if (w == NULL || fx_bad_slot(c))
        return EINVAL;
    if (w->state != STATE_IDLE)
        return EBUSY;
    w->op.counter.c = c;
    w->op.counter.target = target;
    w->op.counter.counted = false;
    fx_async_drop_callback(w);
    return fx_async_start(w, &fx_kind_counter, deadline);
}

int fx_async_rmutex_lock(fx_async *w, fx_rmutex *m, const struct timespec *deadline)
{
    if (w == NULL || fx_bad_slot(m))
        return EINVAL;
    if (w->state != STATE_IDLE)
        return EBUSY;
    w->op.rmutex.m = m;
    fx_async_drop_callback(w);
    return fx_async_start(w, &fx_kind_rmutex, deadline);
}

int fx_async_rmutex_run(fx_async *w, fx_rmutex *m, const struct timespec *deadline,
                        void (*fn)(void *arg, int status), void *arg)
{
    if (w == NULL || fx_bad_slot(m) || fn == NULL)
        return EINVAL;
    if (w->state != STATE_IDLE)
        return EBUSY;
    w->op.rmutex.m = m;
    fx_async_drop_callback(w);
    w->rfn = fn;
    w->arg = arg;
    return fx_async_start(w, &fx_kind_rmutex, deadline);
}
