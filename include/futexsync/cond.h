/*
 * futexsync/cond.h - a 16-byte, zero-initialised, process-shared condition
 * variable for fx_mutex and for fx_rmutex.
 *
 * An fx_cond lets a mutex holder wait for a change: fx_cond_wait and its timed
 * and fx_rmutex forms release the mutex and sleep; fx_cond_signal and
 * fx_cond_broadcast release the waiters.
 *
 *     static fx_mutex m; static fx_cond c;   // all-zero bytes
 *     static int ready;                      // guarded by m
 *     fx_mutex_lock(&m);                     // the waiter
 *     while (!ready)
 *         fx_cond_wait(&c, &m);              // 0: released, or spurious
 *     fx_mutex_unlock(&m);
 *     fx_mutex_lock(&m); ready = 1; fx_mutex_unlock(&m);   // the notifier
 *     fx_cond_signal(&c);
 *
 * No init call, attribute or destroy is needed; it works across processes in
 * MAP_SHARED memory (the mutex too); no slot holds a pointer. Rules (POSIX's):
 * wait with the mutex held; threads that wait at the same time use the same
 * mutex (of either type; another once nobody waits). The mutex must not overlap
 * the fx_cond. A wait returns 0 spuriously only in the cases fx_cond_wait
 * lists, and never EINTR; the four waits are cancellation points. A broadcast
 * does not stampede: its waiters take the mutex one after another
 * (docs/design/cond.md). Signal and broadcast make no system call when no
 * thread waits. A slot value the library never writes gives EINVAL from the
 * calls that read it, before a wait changes anything or sleeps. Calls return 0
 * or a positive errno value; a call whose result is a value returns it (>= 0)
 * or a negative errno value; errno is never set.
 */
#ifndef FUTEXSYNC_COND_H
#define FUTEXSYNC_COND_H

#include <stdint.h>
#include <time.h>

#include "futexsync/mutex.h"
#include "futexsync/rmutex.h"
#include "futexsync/annotations.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fx_cond {
    int32_t seq;     /* the word waiters sleep on: a counter and two bits */
    int32_t waiters; /* threads inside a wait */
    int32_t mutex;   /* the waiters' mutex: 0 none, 2 several, 3 rmutex, else a token */
    int32_t park;    /* always 0: released waiters parked by broadcast */
} fx_cond;

/* A condition variable nobody waits on: all-zero bytes (the encoding of the
 * slots: futexsync/layout.h). */
#define FX_COND_INIT { 0, 0, 0, 0 }

/* Makes *c a condition variable nobody waits on (the same as zeroing it). Not
 * to be called while any thread uses it. Returns 0, or EINVAL for a NULL or
 * misaligned c (nothing written). */
int fx_cond_init(fx_cond *c);

/* Atomically releases m (which the caller must hold) and sleeps until
 * released by fx_cond_signal/fx_cond_broadcast (or spuriously, as below),
 * then re-acquires m before returning.
 * Returns 0; EPERM if m is not locked (fx_mutex does not track its owner, so
 * a mutex held by another thread is not detected); EINVAL for a NULL or
 * misaligned c or m, a mutex overlapping c, or a slot value the library never
 * writes in c or m. After EPERM or EINVAL the call did not wait and m is as it
 * was, except when m's state is overwritten with such a value while the
 * thread waits: then it returns EINVAL without m. Never EINTR.
 *
 * Spurious wake-ups. fx_cond_wait, fx_cond_timedwait and their _rmutex
 * variants return 0 only when (a) fx_cond_signal or fx_cond_broadcast was
 * called during or after the call that is waiting, and released it: a
 * broadcast releases every thread that waits when it is called; a signal
 * wakes one thread that sleeps in the kernel, and in addition releases every
 * waiter that is at that moment between releasing the mutex and going to
 * sleep (so a signal may release more than one waiter, but never a thread
 * that started waiting after it returned, and never none while one waits);
 * (b) a signal handler interrupts a sleeping waiter, or its recheck comes (in
 * memory that other processes can reach, a sleeping waiter re-reads the
 * sequence at least every half second, so that a wake lost to a process
 * killed in the wake window strands nobody; in private memory once, within
 * half a second of falling asleep), after a signal or broadcast made the
 * sequence move on since it started waiting (another waiter was signalled:
 * such waiters return within that period); or (c) something outside
 * futexsync calls a futex wake on &c->seq. Otherwise they keep waiting:
 * signal handlers are absorbed. As always, call them in a loop that
 * re-checks the predicate. No number of signals brings the sequence back to
 * a value a waiter is about to sleep on: a waiter could only miss a wake-up
 * if it stayed stopped between releasing the mutex and entering the kernel
 * while 2^30 other waits on the same condition variable registered and were
 * released.
 *
 * Cancellation. The four waits are cancellation points, as pthread_cond_wait
 * and pthread_cond_timedwait: a deferred pthread_cancel pending at the call
 * acts there (m still held), and one that arrives while the thread sleeps
 * acts in the sleep. Either way m is held again by the cancelled thread
 * before its cleanup handlers run (an fx_rmutex at the depth it had; held
 * INCONSISTENT if its owner died meanwhile, which the handler cannot be
 * told), and the wait leaves no trace in c. A signal whose wake reached a
 * thread as it was cancelled is passed on to another waiter (POSIX: a
 * cancelled waiter consumes no signal). Only the sleep runs with
 * asynchronous cancellation enabled, as in glibc. */
int fx_cond_wait(fx_cond *c, fx_mutex *m) FX_REQUIRES(m);

/* fx_cond_wait with an absolute CLOCK_MONOTONIC deadline (NULL: none).
 * Returns 0 when released (also when the release races with the deadline),
 * ETIMEDOUT when the deadline passed first (also at once for a deadline
 * already passed), with m re-acquired in both cases; EPERM or EINVAL as
 * fx_cond_wait, and EINVAL for a deadline whose tv_nsec is outside
 * [0, 999999999]. Never EINTR. Spurious wake-ups and cancellation: as
 * fx_cond_wait. */
int fx_cond_timedwait(fx_cond *c, fx_mutex *m, const struct timespec *deadline)
    FX_REQUIRES(m);

/* fx_cond_wait for a re-entrant fx_rmutex m, which the calling thread must own
 * (at any depth). The whole depth is released for the wait, so that another
 * thread can take m, and restored on return (both when m is re-acquired with 0
 * and with EOWNERDEAD). Spurious wake-ups and cancellation: as fx_cond_wait.
 * Returns:
 *   0                released (fx_cond_wait's spurious wake-up policy), m
 *                    held at the depth it had;
 *   EOWNERDEAD       released, and m's owner died while we waited: m is held
 *                    at the depth it had, INCONSISTENT. Repair the protected
 *                    state and call fx_rmutex_consistent (once, at any depth);
 *                    if the final unlock comes first, m becomes not
 *                    recoverable. The death is noticed as
 *                    fx_rmutex_lock notices it (<futexsync/rmutex.h>);
 *   ENOTRECOVERABLE  m is not held: it became not recoverable while we waited
 *                    (the call waited as usual), or the caller held it
 *                    INCONSISTENT (acquired with EOWNERDEAD, not yet
 *                    consistent): releasing it made it not recoverable, as
 *                    fx_rmutex_unlock would, and the call returns at once
 *                    without waiting;
 *   EPERM            the caller does not own m (free, owned by another thread,
 *                    orphaned or not recoverable): no wait, nothing changed;
 *   EINVAL           NULL or misaligned c or m, m overlapping c, a slot value
 *                    the library never writes in c or in m (owner word, or the
 *                    owner's depth slot): no wait, nothing changed; or m's slots
 *                    overwritten with such values while the thread waits: then
 *                    returned without m.
 * Never EINTR, never EAGAIN. */
int fx_cond_wait_rmutex(fx_cond *c, fx_rmutex *m) FX_REQUIRES(m) FX_WARN_UNUSED;

/* fx_cond_wait_rmutex with an absolute CLOCK_MONOTONIC deadline (NULL: none).
 * Returns as fx_cond_wait_rmutex, plus ETIMEDOUT when the deadline passed
 * before a release (at once for a deadline already passed), with m
 * re-acquired at its depth; if m's owner died meanwhile, EOWNERDEAD instead
 * (m held, INCONSISTENT); ENOTRECOVERABLE if m became not recoverable. The
 * re-acquisition is not limited by the deadline (as POSIX). EINVAL also for a
 * deadline whose tv_nsec is outside [0, 999999999] (nothing changed). */
int fx_cond_timedwait_rmutex(fx_cond *c, fx_rmutex *m, const struct timespec *deadline)
    FX_REQUIRES(m) FX_WARN_UNUSED;

/* Releases at least one thread waiting on c, if any (exactly one when all
 * waiters sleep in the kernel). Which ones: fx_cond_wait's spurious wake-up
 * policy. Need not be called with the mutex held. Makes no system call when
 * no thread waits. Not a cancellation point. Returns 0, or EINVAL for a NULL
 * or misaligned c or a negative waiters slot. */
int fx_cond_signal(fx_cond *c);

/* Releases every thread waiting on c; they re-acquire the mutex one after
 * another, without a stampede: the fx_mutex waiters it releases are moved
 * (futex requeue) onto the mutex word and woken one at a time by the mutex's
 * unlocks; fx_rmutex waiters are never moved onto the rmutex (a thread asleep
 * there must wake now and then to notice a dead owner): each released waiter,
 * once it holds the rmutex, wakes the next one, which then waits for the
 * rmutex in the rmutex's own bounded sleeps. Waiters with different mutexes
 * at the same time, of one type or of both, are still all released (never
 * moved onto a mutex they did not use, when they can be told apart: always
 * between an fx_rmutex and an fx_mutex), woken one after another instead of
 * moved. Need not be called with the mutex held. Makes no system call when no
 * thread waits. Not a cancellation point. Returns 0, or EINVAL for a NULL or
 * misaligned c, a negative waiters slot or a non-zero park slot. */
int fx_cond_broadcast(fx_cond *c);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_COND_H */
