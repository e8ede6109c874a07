/*
 * futexsync/rmutex.h - a re-entrant, owner-tracked, process-shared mutex that
 * recovers when its owner dies (POSIX robust-mutex semantics).
 *
 * An fx_rmutex is held by one thread, its owner, which may lock it again; when
 * the owner dies holding it, the next locker gets it with EOWNERDEAD, repairs
 * the data and calls fx_rmutex_consistent.
 *
 *     static fx_rmutex m;                  // all-zero bytes: free
 *     static long balance;                 // guarded by m
 *     int r = fx_rmutex_lock(&m);          // or trylock, timedlock
 *     if (r == EOWNERDEAD) {               // held; its owner died inside
 *         balance = 0;                     // repair, then say so (else the
 *         r = fx_rmutex_consistent(&m);    // unlock makes m not recoverable)
 *     }
 *     if (r == 0) { balance++; fx_rmutex_unlock(&m); }
 *
 * All-zero bytes are a free mutex; it works across processes in MAP_SHARED
 * memory, mapped at any address, with no init call. Its owner is the kernel
 * TID, cached per thread and never trusted in a fork child. An uncontended
 * lock, trylock, timedlock, unlock, re-entry and consistent make no system
 * call. A dead owner is reported at once where the kernel walks its robust
 * futex list, else within a quarter of a second by a liveness check
 * (fx_rmutex_lock); an owner not proved dead counts as alive: never two owners.
 * A held mutex must stay mapped in its owner. As pthread_mutex_lock, the calls
 * are not async-signal-safe: a signal handler must not call them while the
 * thread it interrupted is inside one (docs/design/rmutex.md). Calls return 0
 * or a positive errno value; a call whose result is a value returns it (>= 0)
 * or a negative errno value; errno is never set.
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

/* The robust-list entry's geometry, glibc's, which the struct's arrays need:
 * int32_t reserved words and the links (prev and next on 64-bit targets,
 * next on 32-bit ones); glibc's futex_offset is the offset from
 * `link[FX_RMUTEX_LINKS - 1]` back to `owner`. */
#if UINTPTR_MAX > 0xffffffffu
#define FX_RMUTEX_RESERVED 4
#define FX_RMUTEX_LINKS    2
#else
#define FX_RMUTEX_RESERVED 3
#define FX_RMUTEX_LINKS    1
#endif

typedef struct FX_CAPABILITY("mutex") fx_rmutex {
    int32_t owner; /* who holds it (futexsync/layout.h) */
    int32_t depth; /* recursion depth, and the repair flag; owner-only */
    int32_t reserved[FX_RMUTEX_RESERVED]; /* zero */
    void *link[FX_RMUTEX_LINKS]; /* the owner's robust-list entry; owner-only */
} fx_rmutex;

/* sizeof(fx_rmutex): 40 bytes on 64-bit targets, 24 on 32-bit ones. */
#define FX_RMUTEX_SIZE sizeof(fx_rmutex)
/* A free mutex: all-zero bytes. */
#define FX_RMUTEX_INIT { 0, 0, { 0 }, { 0 } }

/* Makes *m a free mutex (the same as zeroing it). Not while anyone uses it.
 * Returns 0, or EINVAL for a NULL or misaligned m (nothing written). */
int fx_rmutex_init(fx_rmutex *m);

/* Acquires m, or re-enters it when the caller owns it (depth + 1). Returns 0;
 * EOWNERDEAD when the previous owner died holding it (the caller now owns it at
 * depth 1: repair the data, then fx_rmutex_consistent); ENOTRECOVERABLE (not
 * acquired); EAGAIN when re-entry would pass the largest depth, 2^30 - 1; EINVAL for a
 * NULL or misaligned m or a slot value the library never writes. Never EINTR.
 *
 * Owner death. The owning thread links m into its robust futex list, the
 * list the kernel walks when a thread exits, is killed or execs (glibc's
 * robust pthread mutexes use the same list): the kernel marks the word
 * ORPHANED and wakes one sleeper, which acquires with EOWNERDEAD. So a waiter
 * sleeps until it is woken, with no periodic check, and recovery works in
 * any PID namespace, across namespaces, and at exec, wherever a robust
 * process-shared pthread_mutex_t is recovered: like it, an owner killed by
 * its own exec from a non-main thread (the thread takes the main thread's
 * TID) is not reported. A thread without a usable list (another libc than
 * glibc, a thread made by a raw clone(), a kernel or emulator that refuses
 * get_robust_list) marks its word PROBED: its waiters check whether its
 * TID is alive, without a file descriptor (process_vm_readv, else kill(tid,
 * 0)): a waiter first looks a millisecond after it finds the owner, then one
 * waiter of each process looks for all of them while the others sleep
 * untimed (where futex_waitv or the kernel's MADV_WIPEONFORK is missing, as
 * under qemu-user, each looks on its own), so that a waiter notices a dead
 * owner at most a quarter of a second after the death or after its own
 * arrival, whichever is later, plus scheduling delays. They judge it dead
 * only when both they and it proved they run in the initial PID namespace;
 * where they cannot tell, the owner counts as alive: never two owners.
 * Limits: the memory of a held mutex must stay mapped in its owner (as for
 * glibc's robust mutexes, the kernel walks the list in the owner's address
 * space); and a thread without a list that dies between being woken and
 * acquiring can leave sleepers with a list asleep on a free mutex.
 *
 * TID reuse. Each thread also records the rmutexes it acquired (the first 8
 * it holds at once; beyond that the word alone is trusted), so a thread whose
 * TID equals a PROBED dead owner's does not take the mutex for its own: lock,
 * trylock and timedlock take it over with EOWNERDEAD (for fx_rmutex_unlock
 * and fx_rmutex_consistent it is not the owner). A word naming a TID without
 * PROBED is never judged by its TID.
 *
 * exec. The kernel walks the exec'ing thread's list: a mutex held by the
 * main thread across its exec, or by any thread killed by another thread's
 * exec, is handed on with EOWNERDEAD. fx_rmutex_recover(m, tid) remains for
 * a supervisor that knows more (futexsync/worker.h). Guarantees and limits:
 * docs/reliability.md, section "Owner death: fx_rmutex". */
int fx_rmutex_lock(fx_rmutex *m) FX_ACQUIRE(m) FX_WARN_UNUSED;

/* As fx_rmutex_lock, without waiting: EBUSY when another live thread owns m. A
 * dead owner's mutex is taken with EOWNERDEAD at once: the kernel marked it,
 * or, for a PROBED owner, the call checks its liveness (at most once every
 * 50 ms per calling thread for the same owner). */
int fx_rmutex_trylock(fx_rmutex *m) FX_TRY_ACQUIRE(0, m) FX_WARN_UNUSED;

/* As fx_rmutex_lock, giving up at the absolute CLOCK_MONOTONIC deadline (NULL:
 * none) with ETIMEDOUT. Succeeds even with a past deadline when m can be taken
 * at once (free, re-entry, or a dead owner, as trylock). EINVAL also for a
 * tv_nsec outside [0, 999999999] when it would wait; a dead owner's mutex is
 * then still taken at once with EOWNERDEAD, as by trylock, and an EINVAL
 * leaves the word as it was (no waiters bit). */
int fx_rmutex_timedlock(fx_rmutex *m, const struct timespec *deadline)
    FX_TRY_ACQUIRE(0, m) FX_WARN_UNUSED;

/* Leaves one level; at depth 0 releases m and wakes one sleeper if any. If the
 * caller acquired m with EOWNERDEAD and did not call fx_rmutex_consistent, the
 * final unlock makes m not recoverable and wakes every sleeper (they return
 * ENOTRECOVERABLE). Returns 0, EPERM when the caller does not own m (also when
 * its TID is that of a PROBED owner that died: fx_rmutex_lock, TID reuse), or
 * EINVAL (bad m, or a depth slot the library never writes: nothing is
 * released). */
int fx_rmutex_unlock(fx_rmutex *m) FX_RELEASE(m);

/* Marks the state protected by m repaired after an EOWNERDEAD acquisition.
 * Returns 0, EPERM when the caller does not own m (also when its TID is that
 * of a PROBED owner that died: fx_rmutex_lock, TID reuse), EINVAL when m is
 * not inconsistent (or for bad m / slot values). */
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
