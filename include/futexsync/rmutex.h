/*
 * futexsync/rmutex.h - a re-entrant, owner-tracked, process-shared mutex that
 * recovers when its owner dies (POSIX robust-mutex semantics).
 *
 * Layout: two int32_t slots, 8 bytes.
 *
 *   owner   who holds the mutex:
 *             0                          free
 *             tid                        held by thread tid (1..FX_RMUTEX_TID_MAX),
 *                                        nobody sleeps in the kernel
 *             | FX_RMUTEX_LOCALNS        with tid: the owner's process could not
 *                                        prove it runs in the initial PID
 *                                        namespace (its TID may name another
 *                                        task, or none, in other namespaces)
 *             tid | FX_RMUTEX_WAITERS    held; threads may sleep on the word
 *             FX_RMUTEX_ORPHANED         free; its owner died and was released by
 *                                        fx_rmutex_recover: the next acquirer
 *                                        gets EOWNERDEAD
 *             FX_RMUTEX_NOTRECOVERABLE   unusable forever: every acquire gives
 *                                        ENOTRECOVERABLE
 *           any other value is never written: operations give EINVAL.
 *   depth   written only by the owner: the recursion depth (1..FX_RMUTEX_DEPTH_MAX)
 *           in the low 30 bits, plus FX_RMUTEX_INCONSISTENT while the owner has
 *           acquired it with EOWNERDEAD and not yet called fx_rmutex_consistent.
 *           Meaningful only while a thread owns m: when m is free it may hold
 *           anything (0 when all-zero, the 1 an unlock leaves behind) and the
 *           next acquirer overwrites it. Other values while owned: EINVAL (see
 *           the functions).
 *
 * All-zero bytes (FX_RMUTEX_INIT) are a free mutex; it works across processes in
 * MAP_SHARED memory with no init call. The owner is the kernel TID (gettid()),
 * cached per thread and never trusted in a fork child (the cache is checked
 * against a per-process epoch the kernel wipes at fork). An uncontended lock,
 * trylock, timedlock, unlock, re-entry and consistent make no system call.
 *
 * Owner death is detected by the threads that want the mutex (no robust list,
 * no PI futex): a blocked acquirer sleeps at most FX_RMUTEX_RECHECK_MS at a
 * time (FX_RMUTEX_LONG_RECHECK_MS once it has watched the same owner for
 * FX_RMUTEX_LONG_AFTER_MS) and then checks whether the owner's TID is alive, without a file
 * descriptor and without a cancellation point (process_vm_readv: ESRCH for
 * no such thread or a zombie; where a filter refuses that call, kill(tid, 0),
 * which cannot see zombies). Where liveness cannot be decided the owner is
 * taken for alive: never two owners. A blocked acquirer, or one arriving later, therefore gets the
 * mutex with EOWNERDEAD within about FX_RMUTEX_RECHECK_MS of the death
 * (FX_RMUTEX_LONG_RECHECK_MS when it had waited for that owner longer than
 * FX_RMUTEX_LONG_AFTER_MS; an arriving one within FX_RMUTEX_FIRST_CHECK_MS).
 *
 * TID reuse. The word names its owner by TID, and the kernel reuses the TID
 * of a dead thread. Each thread records the rmutexes it acquired (the first 8
 * it holds at once; beyond that the word alone is trusted), so a thread
 * whose TID equals a dead owner's does not take the mutex for its own: lock,
 * trylock and timedlock take it over with EOWNERDEAD, unlock and consistent
 * give EPERM. A waiter's verdict "the owner is dead" holds only for the word
 * value it read: when its take-over fails the new value is judged afresh.
 * Limits: a dead owner whose TID a new, unrelated thread got before any
 * waiter looked is taken for alive until that thread exits (the word has no
 * generation to tell the two apart), and the few instructions between a
 * waiter's liveness read and its take-over CAS remain a window in which the
 * TID would have to be freed, the mutex recovered and released by another
 * thread, and the TID handed to a new thread that locks the mutex.
 *
 * Signals. As pthread_mutex_lock, the calls are not async-signal-safe: a
 * signal handler must not call them while the thread it interrupted is inside
 * one of them (the thread's record of held rmutexes is updated around the
 * word's CAS, outside any atomic step).
 *
 * exec. A thread that calls execve() while it owns an fx_rmutex keeps its
 * TID, and the new program runs with it: waiters see a live owner for as
 * long as that program runs. glibc's robust mutex is handed on with
 * EOWNERDEAD at exec because the kernel walks the thread's robust list then;
 * that list needs a `next` pointer inside every mutex and has one head per
 * thread, which glibc owns, so this 8-byte mutex cannot join it. The new
 * program itself is not taken for the owner (its record is empty): its own
 * lock of the mutex takes it over with EOWNERDEAD. Otherwise recovery is
 * explicit: whoever knows the owner exec'd (its parent or launcher) calls
 * fx_rmutex_recover(m, tid). Unlock before exec, or exec from a thread that
 * holds no fx_rmutex.
 *
 * exec by another thread. A non-main thread's TID is freed when it execs or
 * when another thread's exec kills it: that owner is recovered as a dead one.
 * The main thread's TID survives its own exec and is handed to the thread
 * that execs when another does: those owners look alive. The way out is a
 * supervisor that learns of the exec: fx_worker_bind_rmutex
 * (futexsync/worker.h) releases the mutex when its worker exits or execs.
 *
 * Where liveness cannot be decided the owner counts as alive: never two
 * owners. A TID means something only in its own PID namespace, so the owner
 * word carries FX_RMUTEX_LOCALNS unless the owner's process proved it runs in
 * the initial PID namespace, and a waiter judges an owner dead only when
 * neither it nor the owner has that bit. Inside a container (a nested PID
 * namespace) a dead owner is therefore never recovered by the waiters, even
 * within one namespace: whoever learns of the death (a supervisor) calls
 * fx_rmutex_recover. Guarantees and limits: docs/reliability.md, section
 * "Owner death: fx_rmutex".
 *
 * Returns (README, Conventions): 0 or a positive errno value; a call whose
 * result is a value returns it (>= 0) or a negative errno value; errno is
 * never set.
 */
#ifndef FUTEXSYNC_RMUTEX_H
#define FUTEXSYNC_RMUTEX_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "futexsync/annotations.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct FX_CAPABILITY("mutex") fx_rmutex {
    int32_t owner; /* TID | FX_RMUTEX_WAITERS, or a special value (above) */
    int32_t depth; /* recursion depth | FX_RMUTEX_INCONSISTENT; owner-only */
} fx_rmutex;

#define FX_RMUTEX_INIT { 0, 0 }

/* The owner slot. */
#define FX_RMUTEX_TID_MAX          0x003fffff      /* PID_MAX_LIMIT - 1 = 2^22 - 1 */
#define FX_RMUTEX_WAITERS          (-0x7fffffff - 1) /* bit 31: sleepers may exist */
#define FX_RMUTEX_ORPHANED         0x40000000      /* free; next acquirer: EOWNERDEAD */
#define FX_RMUTEX_NOTRECOVERABLE   0x20000000      /* unusable forever */
#define FX_RMUTEX_LOCALNS          0x10000000      /* bit 28, with a TID: owner not
                                                      proven in the initial PID ns */

/* The depth slot. */
#define FX_RMUTEX_DEPTH_MASK       0x3fffffff      /* bits 0-29: the depth */
#define FX_RMUTEX_DEPTH_MAX        0x3fffffff      /* one more lock gives EAGAIN */
#define FX_RMUTEX_INCONSISTENT     0x40000000      /* bit 30: EOWNERDEAD, not repaired */

/* Owner-death detection intervals: an acquirer that finds the mutex held
 * checks the owner's liveness after FX_RMUTEX_FIRST_CHECK_MS of waiting, then
 * every FX_RMUTEX_RECHECK_MS. */
#define FX_RMUTEX_FIRST_CHECK_MS   1
#define FX_RMUTEX_RECHECK_MS       50
/* ... and, once it has watched the same owner for FX_RMUTEX_LONG_AFTER_MS,
 * every FX_RMUTEX_LONG_RECHECK_MS: many long-idle waiters cost little. */
#define FX_RMUTEX_LONG_AFTER_MS    100
#define FX_RMUTEX_LONG_RECHECK_MS  250

/* Makes *m a free mutex (the same as zeroing it). Not while anyone uses it.
 * Returns 0, or EINVAL for a NULL or misaligned m (nothing written). */
int fx_rmutex_init(fx_rmutex *m);

/* Acquires m, or re-enters it when the caller owns it (depth + 1). Returns 0;
 * EOWNERDEAD when the previous owner died holding it (the caller now owns it at
 * depth 1: repair the data, then fx_rmutex_consistent); ENOTRECOVERABLE (not
 * acquired); EAGAIN when re-entry would pass FX_RMUTEX_DEPTH_MAX; EINVAL for a
 * NULL or misaligned m or a slot value the library never writes. Never EINTR. */
int fx_rmutex_lock(fx_rmutex *m) FX_ACQUIRE(m) FX_WARN_UNUSED;

/* As fx_rmutex_lock, without waiting: EBUSY when another live thread owns m. It
 * checks the owner's liveness when it finds m held (at most once per
 * FX_RMUTEX_RECHECK_MS per calling thread for the same owner; a few
 * microseconds), so a dead owner's mutex is taken with EOWNERDEAD at once. */
int fx_rmutex_trylock(fx_rmutex *m) FX_TRY_ACQUIRE(0, m) FX_WARN_UNUSED;

/* As fx_rmutex_lock, giving up at the absolute CLOCK_MONOTONIC deadline (NULL:
 * none) with ETIMEDOUT. Succeeds even with a past deadline when m can be taken
 * at once (free, re-entry, or a dead owner, as trylock). EINVAL also for a
 * tv_nsec outside [0, 999999999] when it would wait; a dead owner's mutex is
 * then still taken at once with EOWNERDEAD, as by trylock, and an EINVAL
 * leaves the word as it was (no FX_RMUTEX_WAITERS). */
int fx_rmutex_timedlock(fx_rmutex *m, const struct timespec *deadline)
    FX_TRY_ACQUIRE(0, m) FX_WARN_UNUSED;

/* Leaves one level; at depth 0 releases m and wakes one sleeper if any. If the
 * caller acquired m with EOWNERDEAD and did not call fx_rmutex_consistent, the
 * final unlock makes m not recoverable and wakes every sleeper (they return
 * ENOTRECOVERABLE). Returns 0, EPERM when the caller does not own m, or EINVAL
 * (bad m, or a depth slot the library never writes: nothing is released). */
int fx_rmutex_unlock(fx_rmutex *m) FX_RELEASE(m);

/* Marks the state protected by m repaired after an EOWNERDEAD acquisition.
 * Returns 0, EPERM when the caller does not own m, EINVAL when m is not
 * inconsistent (or for bad m / slot values). */
int fx_rmutex_consistent(fx_rmutex *m) FX_REQUIRES(m);

/* The explicit recovery path: a parent that has reaped dead_tid releases m at
 * once if dead_tid owns it, and wakes a sleeper; the next acquirer gets
 * EOWNERDEAD without waiting for the liveness check. The caller asserts that
 * dead_tid is dead: recovering a live owner breaks mutual exclusion. Only the
 * TID is compared, and the kernel reuses a TID once its thread is gone (a
 * process's main thread: once reaped), so call it while dead_tid cannot come
 * back, e.g. after waitid(WEXITED | WNOWAIT) and before the reap of a
 * single-threaded process. Returns 0
 * when it released m, EPERM when dead_tid is not the owner (also when another
 * thread already recovered m), EINVAL for bad m or slot values. */
int fx_rmutex_recover(fx_rmutex *m, pid_t dead_tid);

/* The owner's TID; 0 when no thread owns m (free, orphaned or not recoverable);
 * -EINVAL for a NULL or misaligned m or a value the library never writes. */
pid_t fx_rmutex_owner(const fx_rmutex *m);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_RMUTEX_H */
