/*
 * src/internal/rmutex.h - fx_rmutex entry points for other primitives.
 *
 * Two clients are foreseen:
 *
 * 1. A condition variable waiting with an fx_rmutex (pthread_cond_wait with a
 *    recursive robust mutex): fxi_rmutex_release_all() gives the mutex up
 *    entirely and returns the depth, fxi_rmutex_reacquire() takes it back at
 *    that depth. EOWNERDEAD reaches the waiter when the mutex's owner died while
 *    it waited (the waiter then owns it, inconsistent, at its saved depth).
 *
 * 2. An event-loop (asynchronous) acquirer that sleeps by other means (an
 *    io_uring futex wait, a helper thread, epoll on a timer):
 *    fxi_rmutex_acquire_step() makes one non-blocking attempt and, when the
 *    mutex is busy, says which word to futex-wait on, with which value, and
 *    until when at the latest (the owner-liveness re-check time).
 *    fxi_rmutex_abandon_wait() gives up a wait without losing a wake.
 *
 * Sleeping on m->owner must always be bounded by the re-check time: owner
 * death is detected only by acquirers that wake up and look. For the same
 * reason a condition variable must not FUTEX_CMP_REQUEUE its waiters onto
 * m->owner unless those waiters' sleeps are bounded by FXI_RMUTEX_RECHECK_MS;
 * the simple correct scheme is to wake them and let each call
 * fxi_rmutex_reacquire(). (fxi_rmutex_reacquire acquires as a thread that may
 * have slept on the word, keeping FX_RMUTEX_WAITERS set, so a bounded requeue
 * would not lose wake-ups either.)
 */
#ifndef FXI_INTERNAL_RMUTEX_H
#define FXI_INTERNAL_RMUTEX_H

#include <stdint.h>
#include <time.h>

#include "futexsync/rmutex.h"
#include "futexsync/layout.h" /* depths and FX_RMUTEX_INCONSISTENT, in the calls below */

/* Condition-variable support ---------------------------------------------- */

/* Releases m completely (any depth) for a condition wait and stores the depth
 * in *saved_depth (1..FX_RMUTEX_DEPTH_MAX). Wakes one sleeper when there is one.
 * As in POSIX, releasing an inconsistent mutex (acquired with EOWNERDEAD,
 * fx_rmutex_consistent not called) makes it not recoverable. Returns 0, EPERM
 * when the caller does not own m, EINVAL (bad m, slot values). */
int fxi_rmutex_release_all(fx_rmutex *m, int32_t *saved_depth);

/* Takes m back after a condition wait, blocking as long as needed, and restores
 * the saved depth. Returns 0; EOWNERDEAD (the owner died meanwhile: the caller
 * owns m at saved_depth, inconsistent); ENOTRECOVERABLE (not acquired); EINVAL
 * (bad m or slot values, saved_depth outside 1..FX_RMUTEX_DEPTH_MAX, or the
 * caller already owns m). Never EINTR. */
int fxi_rmutex_reacquire(fx_rmutex *m, int32_t saved_depth);

/* Event-loop acquirer ------------------------------------------------------ */

/* The state of one asynchronous acquisition, owned by the caller. Initialise
 * with fxi_rmutex_waiter_init before the first step, keep it across steps. */
struct fxi_rmutex_waiter {
    int32_t depth;    /* depth installed on success; 0: a plain lock (re-entry
                         allowed, depth 1) */
    int32_t seen;     /* owner TID being watched (0: none yet) */
    int32_t slept;    /* 1 once a step returned EBUSY: the caller may have slept
                         on the word, so it acquires with FX_RMUTEX_WAITERS kept */
    int64_t check_at; /* CLOCK_MONOTONIC ns when the owner's liveness is due */
    int64_t since;    /* CLOCK_MONOTONIC ns when it began to watch `seen` */
    int32_t looked;   /* 1 once `seen` (PROBED) was looked at: the process's
                         prober may look for this waiter from then on */
};

/* Prepares *w for a plain lock (depth 0) or for a re-acquisition at depth
 * (1..FX_RMUTEX_DEPTH_MAX, re-entry then being an error). */
void fxi_rmutex_waiter_init(struct fxi_rmutex_waiter *w, int32_t depth);

/* One non-blocking acquisition step, with the calling thread as the acquirer.
 * Returns:
 *   0                 acquired (or re-entered, for a plain lock)
 *   EOWNERDEAD        acquired; the previous owner died (depth 1, or w->depth,
 *                     with FX_RMUTEX_INCONSISTENT): repair, then consistent
 *   ENOTRECOVERABLE   not acquired, never will be
 *   EAGAIN            re-entry would pass FX_RMUTEX_DEPTH_MAX
 *   EINVAL            bad m or w, a slot value the library never writes, or a
 *                     re-acquisition (w->depth > 0) by the current owner
 *   EBUSY             another thread holds m. *word is the word to futex-wait on
 *                     (&m->owner), *sleep_on the value to wait for it to leave;
 *                     the owner's FX_RMUTEX_WAITERS bit is set, so its release
 *                     will wake a sleeper. Sleep until woken or until
 *                     *recheck_at (absolute CLOCK_MONOTONIC) at the latest,
 *                     whichever comes first, then step again: the step at or
 *                     after *recheck_at checks whether the owner is alive.
 * A waiter woken from the word must step again, or call fxi_rmutex_abandon_wait;
 * it must not simply leave. */
int fxi_rmutex_acquire_step(fx_rmutex *m, struct fxi_rmutex_waiter *w, int32_t **word,
                           int32_t *sleep_on, struct timespec *recheck_at);

/* Called by an asynchronous waiter that stops waiting for m (cancelled, timed
 * out) after a step returned EBUSY: it may have consumed a wake meant to make
 * someone take m (after an unlock or an fx_rmutex_recover), so it passes one on
 * to the next sleeper. A wake nobody needed costs one system call. */
void fxi_rmutex_abandon_wait(fx_rmutex *m);

#endif /* FXI_INTERNAL_RMUTEX_H */
