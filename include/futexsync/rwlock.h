/*
 * futexsync/rwlock.h - an 8-byte, process-shared reader-writer lock.
 *
 * Layout: two int32_t slots: `state` (the readers holding the lock, a
 * reader counting itself only when it gets in; the writer; whether a writer
 * waits and who may sleep) and `writer_seq`, the writers' own futex word, so
 * that readers and writers never wake each other needlessly (nor do waiting
 * writers wake one another). Their encoding is in futexsync/layout.h; a
 * state the library never writes gives EINVAL.
 *
 * All-zero bytes (FX_RWLOCK_INIT) are an unlocked lock; no init call, attribute
 * or destroy is needed, and the lock works across processes in MAP_SHARED
 * memory. Uncontended lock and unlock operations make no system call.
 *
 * Fairness (writer preference): a writer that waits keeps new readers out,
 * so a stream of readers never starves writers: the readers inside drain and
 * the writer enters. A release wakes one sleeping writer if there is one, and
 * all sleeping readers only when no writer waits, so readers may wait as long
 * as writers keep coming: the lock is made for read-mostly data. There is no
 * FIFO order within each kind, and a thread arriving at a free lock may take
 * it before a woken one.
 *
 * fx_rwlock_unlock releases either mode (the state says which), like
 * pthread_rwlock_unlock. fx_rwlock_rdunlock and fx_rwlock_wrunlock release
 * the mode the caller names, which saves reading the lock word before the
 * release: under read contention that read costs a second transfer of the
 * word's cache line, so the read-mostly fast path is rdlock + rdunlock. The
 * lock does not track its owners: releasing a hold the caller does not have
 * is a bug. When the lock is not held in that mode (free, or held in the
 * other mode) the call gives EPERM and changes nothing, whatever other
 * threads do with the lock meanwhile; while other threads hold it in that
 * mode it cannot be told from their release, and releases one of their
 * holds (as pthread_rwlock_unlock may do anything then).
 * A thread that holds the lock and locks it again in either mode may
 * deadlock (a second read lock waits if a writer is waiting in between).
 *
 * Processes that die: a process that dies inside a lock call before it holds
 * the lock (on its fast path, or while it waits, also after a release woke
 * it, before it returned from the kernel) strands nobody: in memory that
 * other processes can reach, every sleeper re-reads the word at least every
 * half second (a waiting writer every quarter second), and the intent of a
 * writer that died waiting (its pending and waiting bits) stops keeping
 * blocked readers out within about one second (fx_rwlock_tryrdlock keeps
 * giving EBUSY until a blocking reader has cleared it). So does, in a fork() child, the intent of a parent's
 * thread that waited to write a lock in private memory. A process that dies
 * HOLDING the lock leaves it held for good, as with pthread_rwlock_t (the
 * lock does not track its owners); use fx_rmutex where owner death must be
 * survived.
 *
 * Returns (README, Conventions): 0 or a positive errno value; a call whose
 * result is a value returns it (>= 0) or a negative errno value; errno is
 * never set.
 */
#ifndef FUTEXSYNC_RWLOCK_H
#define FUTEXSYNC_RWLOCK_H

#include <stdint.h>
#include <time.h>
#include "futexsync/annotations.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct FX_CAPABILITY("mutex") fx_rwlock {
    int32_t state;      /* reader count or writer, and the waiting bits */
    int32_t writer_seq; /* the writers' futex word */
} fx_rwlock;

/* An unlocked lock: all-zero bytes. */
#define FX_RWLOCK_INIT { 0, 0 }

/* The most readers that may hold the lock at once (2^22): one more read
 * lock gives EAGAIN. */
#define FX_RWLOCK_MAX_READERS 0x00400000

/* Makes *l an unlocked lock (the same as zeroing it). Not to be called while
 * any thread uses the lock. Returns 0, or EINVAL for a NULL or misaligned l
 * (nothing written). */
int fx_rwlock_init(fx_rwlock *l);

/* Acquires l for reading, sleeping as long as needed. Returns 0, EAGAIN when
 * FX_RWLOCK_MAX_READERS readers hold it, or EINVAL (NULL or misaligned l, or a
 * state the library never writes). Never EINTR. */
int fx_rwlock_rdlock(fx_rwlock *l) FX_TRY_ACQUIRE_SHARED(0, l) FX_WARN_UNUSED;

/* Acquires l for reading only if that is possible now: returns 0, EBUSY when a
 * writer holds it or waits for it (or a dead waiting writer's intent has not
 * been cleared yet), EAGAIN (too many readers), or EINVAL. */
int fx_rwlock_tryrdlock(fx_rwlock *l) FX_TRY_ACQUIRE_SHARED(0, l) FX_WARN_UNUSED;

/* fx_rwlock_rdlock that gives up at the absolute CLOCK_MONOTONIC deadline
 * (NULL: none). Returns 0 (also when it can be taken at once and the deadline
 * already passed), ETIMEDOUT, EAGAIN, or EINVAL (also for tv_nsec out of range
 * when it would block). Never EINTR. */
int fx_rwlock_timedrdlock(fx_rwlock *l, const struct timespec *deadline)
    FX_TRY_ACQUIRE_SHARED(0, l) FX_WARN_UNUSED;

/* Acquires l for writing, sleeping as long as needed. Returns 0 or EINVAL. */
int fx_rwlock_wrlock(fx_rwlock *l) FX_ACQUIRE(l);

/* Acquires l for writing only if it is free now: 0, EBUSY, or EINVAL. */
int fx_rwlock_trywrlock(fx_rwlock *l) FX_TRY_ACQUIRE(0, l) FX_WARN_UNUSED;

/* fx_rwlock_wrlock with a deadline: 0, ETIMEDOUT, or EINVAL, as for
 * fx_rwlock_timedrdlock. */
int fx_rwlock_timedwrlock(fx_rwlock *l, const struct timespec *deadline)
    FX_TRY_ACQUIRE(0, l) FX_WARN_UNUSED;

/* Releases one hold of l, read or write (the state tells which), and wakes
 * waiters if the lock became free. Returns 0, EPERM if l was not locked
 * (nothing changes), or EINVAL. */
int fx_rwlock_unlock(fx_rwlock *l) FX_RELEASE_GENERIC(l);

/* Releases one read hold of l: the same as fx_rwlock_unlock for a reader,
 * without reading the word first. Returns 0, EPERM if l was not read-held
 * (free or write-held: nothing changes), or EINVAL. */
int fx_rwlock_rdunlock(fx_rwlock *l) FX_RELEASE_SHARED(l);

/* Releases the write hold of l: the same as fx_rwlock_unlock for the writer.
 * Returns 0, EPERM if l was not write-held (nothing changes), or EINVAL. */
int fx_rwlock_wrunlock(fx_rwlock *l) FX_RELEASE(l);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_RWLOCK_H */
