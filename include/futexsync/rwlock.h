/*
 * futexsync/rwlock.h - an 8-byte, process-shared reader-writer lock.
 *
 * An fx_rwlock is held by any number of readers or by one writer: rdlock and
 * wrlock take it, their try and timed forms give up, and the unlocks free it.
 *
 *     static fx_rwlock l = FX_RWLOCK_INIT;   // all-zero bytes: unlocked
 *     static int v, copy;                    // v: read-mostly, guarded by l
 *     if (fx_rwlock_rdlock(&l) == 0) {       // else EAGAIN: too many readers
 *         copy = v;
 *         fx_rwlock_rdunlock(&l);
 *     }
 *     fx_rwlock_wrlock(&l);                  // one writer, no reader
 *     v++;
 *     fx_rwlock_wrunlock(&l);
 *
 * No init call, attribute or destroy is needed; it works across processes in
 * MAP_SHARED memory; uncontended calls make no system call. A waiting writer
 * keeps new readers out, and a release wakes one sleeping writer if there is
 * one, else the sleeping readers: readers never starve writers but may wait as
 * long as writers keep coming. No FIFO order within each kind: a thread
 * arriving at a free lock may take it before a woken one. It tracks no owner: a
 * holder that locks it again, in either mode, may deadlock. A process that dies
 * in a lock call before it holds the lock strands nobody (in shared memory a
 * sleeper re-reads the word at least every half second, a waiting writer every
 * quarter second); one that dies holding it leaves it held for good, as with
 * pthread_rwlock_t (docs/reliability.md). A state never written gives EINVAL.
 * Calls return 0 or a positive errno value; a call whose result is a value
 * returns it (>= 0) or a negative errno value; errno is never set.
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
 * state the library never writes). Never EINTR. A reader that locks l again
 * waits if a writer is waiting in between. The intent of a writer that died
 * waiting (its pending and waiting bits), and, in a fork() child, that of a
 * parent's thread that waited to write a lock in private memory, stop keeping
 * blocked readers out within about one second. */
int fx_rwlock_rdlock(fx_rwlock *l) FX_TRY_ACQUIRE_SHARED(0, l) FX_WARN_UNUSED;

/* Acquires l for reading only if that is possible now: returns 0, EBUSY when a
 * writer holds it or waits for it (or a dead waiting writer's intent has not
 * been cleared yet: a blocking reader clears it), EAGAIN (too many readers),
 * or EINVAL. */
int fx_rwlock_tryrdlock(fx_rwlock *l) FX_TRY_ACQUIRE_SHARED(0, l) FX_WARN_UNUSED;

/* fx_rwlock_rdlock that gives up at the absolute CLOCK_MONOTONIC deadline
 * (NULL: none). Returns 0 (also when it can be taken at once and the deadline
 * already passed), ETIMEDOUT, EAGAIN, or EINVAL (also for tv_nsec out of range
 * when it would block). Never EINTR. */
int fx_rwlock_timedrdlock(fx_rwlock *l, const struct timespec *deadline)
    FX_TRY_ACQUIRE_SHARED(0, l) FX_WARN_UNUSED;

/* Acquires l for writing, sleeping as long as needed. Returns 0 or EINVAL. */
int fx_rwlock_wrlock(fx_rwlock *l) FX_ACQUIRE(l);

/* Acquires l for writing only if it is free now: 0, EBUSY when it is held
 * (by readers or a writer), or EINVAL. */
int fx_rwlock_trywrlock(fx_rwlock *l) FX_TRY_ACQUIRE(0, l) FX_WARN_UNUSED;

/* fx_rwlock_wrlock with a deadline: 0, ETIMEDOUT, or EINVAL, as for
 * fx_rwlock_timedrdlock. */
int fx_rwlock_timedwrlock(fx_rwlock *l, const struct timespec *deadline)
    FX_TRY_ACQUIRE(0, l) FX_WARN_UNUSED;

/* Releases one hold of l, read or write (the state tells which), and wakes
 * waiters if the lock became free, as pthread_rwlock_unlock. Returns 0, EPERM
 * if l was not locked (nothing changes), or EINVAL. The lock tracks no
 * owners: releasing a hold the caller does not have is a bug. When the lock
 * is not held in that mode, the release changes nothing, whatever other
 * threads do with the lock meanwhile; while other threads hold it in that
 * mode, it cannot be told from their release and releases one of their holds
 * (as pthread_rwlock_unlock may do anything then). */
int fx_rwlock_unlock(fx_rwlock *l) FX_RELEASE_GENERIC(l);

/* Releases one read hold of l: the same as fx_rwlock_unlock for a reader,
 * without reading the word first, which under read contention saves a second
 * transfer of its cache line (rdlock + rdunlock is the fast read path).
 * Returns 0, EPERM if l was not read-held (free or write-held: nothing
 * changes), or EINVAL. A hold the caller does not have: as for
 * fx_rwlock_unlock. */
int fx_rwlock_rdunlock(fx_rwlock *l) FX_RELEASE_SHARED(l);

/* Releases the write hold of l: the same as fx_rwlock_unlock for the writer.
 * Returns 0, EPERM if l was not write-held (nothing changes), or EINVAL. A
 * hold the caller does not have: as for fx_rwlock_unlock. */
int fx_rwlock_wrunlock(fx_rwlock *l) FX_RELEASE(l);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_RWLOCK_H */
