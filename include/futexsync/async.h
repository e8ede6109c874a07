/*
 * futexsync/async.h - waiting from an event loop, without blocking it.
 *
 * An fx_async waiter lets an event-loop thread arm a wait on a futexsync word
 * (a raw futex, an fx_mutex, fx_rmutex or fx_counter) and keep looping: its
 * file descriptor turns readable when fx_async_complete can move it on.
 *
 *     static fx_mutex m;
 *     fx_async *w;                                // one fd, for good:
 *     if (fx_async_create(&w, FX_ASYNC_AUTO) != 0) return;
 *     struct pollfd p = { .fd = fx_async_fd(w), .events = POLLIN };
 *     int r = fx_async_mutex_lock(w, &m, NULL);   // 0: held at once
 *     while (r == EINPROGRESS) {                  // armed: the loop goes on
 *         poll(&p, 1, -1);                        // (here with this fd only)
 *         r = fx_async_complete(w);               // 0: held; or not yet
 *     }
 *     if (r == 0) fx_mutex_unlock(&m);            // fx_async_destroy(w): done
 *
 * A waiter serves any number of waits, one at a time, and belongs to the thread
 * that created it: from another thread (a forked child's included), arming a
 * wait that must wait, completing, cancelling and destroying give EPERM and do
 * nothing. A lock taken through it is held and released as any other; the words
 * may be in MAP_SHARED memory, changed by other processes. No wake-up is lost
 * between arming and the kernel's wait, and fx_async_complete never blocks.
 * Deadlines are absolute CLOCK_MONOTONIC (NULL: none): one already passed arms
 * nothing, a bad tv_nsec gives EINVAL when the call would wait (docs/async.md).
 * Calls return 0 or a positive errno value; a call whose result is a value
 * returns it (>= 0) or a negative errno value; errno is never set. EINTR is
 * never returned.
 */
#ifndef FUTEXSYNC_ASYNC_H
#define FUTEXSYNC_ASYNC_H

#include <stdint.h>
#include <time.h>

#include "futexsync/annotations.h"
#include "futexsync/counter.h"
#include "futexsync/mutex.h"
#include "futexsync/rmutex.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An asynchronous waiter: opaque, created by fx_async_create. */
typedef struct fx_async fx_async;

/* Back ends, for fx_async_create and fx_async_backend. */
#define FX_ASYNC_AUTO   0 /* io_uring if usable, else a helper thread */
#define FX_ASYNC_URING  1 /* io_uring futex operations (Linux 6.7+) */
#define FX_ASYNC_THREAD 2 /* a helper thread and an eventfd */

/* Creates an idle waiter with the given back end and stores it in *waiter.
 * Returns 0; EINVAL (NULL waiter, unknown back end); ENOTSUP (FX_ASYNC_URING,
 * or FUTEXSYNC_ASYNC=uring with FX_ASYNC_AUTO, where io_uring's futex
 * operations are unavailable); or the errno of the resource that could not be
 * had (EMFILE, ENFILE, ENOMEM, EAGAIN for a thread).
 * Back ends. FX_ASYNC_URING waits with io_uring's IORING_OP_FUTEX_WAIT
 * (Linux 6.7 and later; the deadline, or an rmutex's re-check time, is a
 * linked absolute CLOCK_MONOTONIC timeout); the kernel signals the waiter's
 * eventfd from the waker's context, so the waits never interrupt the calling
 * thread (but see fx_async_destroy). FX_ASYNC_THREAD gives each waiter a
 * helper thread that sleeps on the word with an ordinary futex wait and
 * signals the eventfd. FX_ASYNC_AUTO picks io_uring when the kernel offers
 * its futex operations (not when io_uring is missing, disabled by the
 * kernel.io_uring_disabled sysctl or refused by seccomp) and the thread
 * otherwise; the environment variable FUTEXSYNC_ASYNC=thread (or =uring)
 * forces the choice made for FX_ASYNC_AUTO. */
int fx_async_create(fx_async **waiter, int backend) FX_WARN_UNUSED;

/* Cancels the armed wait if there is one (see fx_async_cancel), closes the
 * fd, ends the helper thread or ring, and frees the waiter. Returns 0, EINVAL
 * for NULL, or EPERM from another thread than the creator (nothing done; the
 * thread is checked first, whether or not a wait is armed).
 * io_uring: the kernel finishes closing the ring asynchronously and runs one
 * clean-up task-work item in the creating thread, which makes that thread's
 * next blocking system call (epoll_wait, poll...) return EINTR once, shortly
 * after this call, as a signal would: retry on EINTR. */
int fx_async_destroy(fx_async *waiter);

/* The file descriptor to poll for reading; the same one for the waiter's
 * whole life (it is never readable while the waiter is idle, except for a
 * moment after fx_async_cancel races with a wake). -EINVAL for NULL. Do not
 * read or close it yourself. It is readable when the word may have changed,
 * when the deadline has passed, when a PROBED fx_rmutex owner's liveness is
 * due for a check, every 500 ms of an fx_mutex or fx_counter wait on the
 * io_uring back end (the library's bounded recheck: a wake lost when a
 * process died in the wake window delays the waiter, never strands it;
 * complete re-arms at once while the word is unchanged, and the helper-thread
 * back end makes the same recheck without making the fd readable), or
 * spuriously. */
int fx_async_fd(const fx_async *waiter);

/* The back end in use: FX_ASYNC_URING or FX_ASYNC_THREAD; -EINVAL for NULL. */
int fx_async_backend(const fx_async *waiter);

/* Arms a wait for *slot to be woken while it holds `expected` (the
 * asynchronous fx_futex_wait). Returns EINPROGRESS (armed), EAGAIN at once if
 * *slot != expected, ETIMEDOUT if the deadline has passed, EINVAL (NULL or
 * misaligned slot, bad tv_nsec), EBUSY (the waiter is already armed), EPERM
 * (not the creating thread). fx_async_complete then gives 0 (woken, perhaps
 * spuriously: re-check the word), EAGAIN (the word no longer held `expected`
 * when the kernel looked) or ETIMEDOUT. */
int fx_async_futex_wait(fx_async *waiter, int32_t *slot, int32_t expected,
                        const struct timespec *deadline);

/* Acquires m asynchronously (the asynchronous fx_mutex_timedlock). Returns 0
 * when m was free and is now held by the caller (whatever the deadline; no
 * fd involved), EINPROGRESS (armed), ETIMEDOUT (held, and the deadline has
 * passed), EINVAL (bad m or state, bad tv_nsec), EBUSY (already armed), EPERM
 * (not the creating thread, and m was held). fx_async_complete then gives 0
 * (m is held by the caller), EINPROGRESS, ETIMEDOUT or EINVAL. m is then held
 * as any fx_mutex: release it with fx_mutex_unlock. */
int fx_async_mutex_lock(fx_async *waiter, fx_mutex *m, const struct timespec *deadline)
    FX_WARN_UNUSED;

/* executeLocked: acquires m like fx_async_mutex_lock and, once it is held,
 * calls fn(arg) on the calling thread with m held, then unlocks m. When m is
 * free, fn runs before this call returns 0; otherwise the call returns
 * EINPROGRESS and fn runs inside the fx_async_complete call that acquires m
 * (which then returns 0). fn never runs when the result is an error
 * (ETIMEDOUT, cancellation...). fn must not unlock m (EPERM from the unlock
 * is then returned). EINVAL also for a NULL fn. */
int fx_async_mutex_run(fx_async *waiter, fx_mutex *m, const struct timespec *deadline,
                       void (*fn)(void *arg), void *arg);

/* Acquires the re-entrant mutex m asynchronously (the asynchronous
 * fx_rmutex_timedlock). The acquirer is the calling thread when the call
 * finishes at once, and the waiter's thread (its loop thread, the only one
 * allowed to arm a wait and to complete it) otherwise; its TID becomes m's
 * owner, and it releases m with fx_rmutex_unlock.
 *
 * Returns at once, with no fd involved:
 *   0                 m was free and is now held at depth 1, or the caller
 *                     already held it (re-entry: depth + 1); whatever the
 *                     deadline
 *   EOWNERDEAD        m's owner had died (or m was orphaned by
 *                     fx_rmutex_recover): the caller now holds m at depth 1,
 *                     inconsistent; repair the data, then fx_rmutex_consistent
 *                     (liveness checked at once, as by fx_rmutex_trylock)
 *   ENOTRECOVERABLE   m is not recoverable; not acquired
 *   EAGAIN            re-entry would pass the largest depth (2^30 - 1)
 *   EINPROGRESS       armed: another live thread holds m
 *   ETIMEDOUT         held by a live thread and the deadline has passed
 *   EINVAL            NULL waiter, bad m or slot value, bad tv_nsec
 *   EBUSY             the waiter is already armed
 *   EPERM             not the creating thread, and m is held by another
 * fx_async_complete then gives EINPROGRESS, 0 (held at depth 1; or depth + 1
 * if the loop thread has meanwhile taken m by other means: a re-entry),
 * EOWNERDEAD (as above), ENOTRECOVERABLE, ETIMEDOUT, EINVAL, or EAGAIN (that
 * re-entry would pass the largest depth, 2^30 - 1).
 *
 * A supervisor's fx_worker (futexsync/worker.h) releases a bound rmutex when
 * its worker exits or execs, which wakes an armed wait at once: poll
 * fx_worker_fd next to the waiter's fd and call fx_worker_check when it is
 * readable (docs/async.md, "Supervised workers").
 *
 * Owner death while armed: an owner on its robust futex list (glibc on a
 * real kernel) has the kernel mark the word and wake one sleeper when it
 * dies, so the armed wait is untimed and the fd becomes readable then. Only
 * a PROBED owner (no robust list) bounds the armed wait by its liveness
 * re-check time (as for a blocked fx_rmutex_lock that checks on its own: a
 * millisecond after the owner is first seen, then every 50 ms, and every
 * quarter of a second once it has watched the same owner for a tenth of a
 * second), when fx_async_complete checks it: alive, it
 * re-arms (EINPROGRESS); dead, it takes m with EOWNERDEAD. A release, a
 * recovery or the switch to not-recoverable
 * wakes the waiter at once. */
int fx_async_rmutex_lock(fx_async *waiter, fx_rmutex *m, const struct timespec *deadline)
    FX_WARN_UNUSED;

/* executeLocked for an fx_rmutex: acquires m like fx_async_rmutex_lock and,
 * once it is held, calls fn(arg, status) on the acquiring thread, where
 * status is the acquisition's result: 0, or EOWNERDEAD when the previous
 * owner died. After EOWNERDEAD fn repairs the protected data and calls
 * fx_rmutex_consistent(m); if it does not, the unlock that follows makes m
 * not recoverable (every later acquire, and every waiter, gets
 * ENOTRECOVERABLE), exactly as with the blocking API. Then m is unlocked
 * once (a re-entry just goes back to its depth). fn must not unlock m.
 *
 * When m can be had at once (free, re-entry, a dead owner), fn runs before
 * this call returns; otherwise the call returns EINPROGRESS and fn runs
 * inside the fx_async_complete call that acquires m. Either returns the
 * status fn was given (0 or EOWNERDEAD) when fn ran, or the error of the
 * unlock after it (EPERM if fn unlocked m); fn never runs when the result is
 * another error (ENOTRECOVERABLE, ETIMEDOUT, EAGAIN, cancellation...). EINVAL
 * also for a NULL fn. */
int fx_async_rmutex_run(fx_async *waiter, fx_rmutex *m, const struct timespec *deadline,
                        void (*fn)(void *arg, int status), void *arg);

/* Waits asynchronously until c's value equals target (the asynchronous
 * fx_counter_wait). Returns 0 at once when it does, EINPROGRESS (armed: the
 * waiter is counted in c->waiters until it finishes or is cancelled, so
 * writers wake it), ETIMEDOUT, EINVAL (bad c, negative or INT32_MAX waiters
 * slot, bad tv_nsec), EBUSY, EPERM. fx_async_complete then gives 0, EINPROGRESS or
 * ETIMEDOUT. */
int fx_async_counter_wait(fx_async *waiter, fx_counter *c, int32_t target,
                          const struct timespec *deadline);

/* Moves the armed operation on; call it when the fd is readable (calling it
 * earlier is harmless), and soon: a woken mutex (or rmutex) waiter is the one
 * responsible for the lock's hand-off until it completes (fx_async_cancel
 * passes the wake on). Returns EINPROGRESS while the operation goes on (a
 * spurious readiness, the mutex was taken by someone else first, or an
 * rmutex owner was found alive, and the wait is re-armed: keep polling the
 * same fd, which will become readable again), or the operation's result,
 * after which the waiter is idle and may be armed again. EINVAL if nothing is
 * armed, EPERM from another thread than the creator (checked first, whether
 * or not a wait is armed). Never blocks waiting for the word: it may make a
 * few non-blocking system calls, and either finishes the operation or
 * re-arms; it leaves the fd unreadable unless there is more to do. */
int fx_async_complete(fx_async *waiter);

/* Stops the armed operation, if any, and leaves the waiter idle: the
 * operation does not happen (a mutex is not acquired, a run callback does
 * not run). No wake is lost: a wake the waiter had taken from a mutex's (or
 * an rmutex's) sleepers is passed on to the next one. Returns 0 (also when nothing was
 * armed), EINVAL for NULL, EPERM from another thread than the creator (checked
 * first, whether or not a wait is armed). Cancelling a wait of the thread
 * back end wakes every sleeper on the word once, to reach the helper thread;
 * all futexsync sleepers re-check and sleep again (a raw futex user sees a
 * spurious wake-up). */
int fx_async_cancel(fx_async *waiter);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_ASYNC_H */
