/*
 * futexsync/layout.h - the encoding of every object's slots, for programs
 * that read or write the words themselves.
 *
 * A program that only calls futexsync's functions does not need this header,
 * and <futexsync.h> does not include it. A debugger, a monitor that reads
 * objects in shared memory, a test, or another implementation that shares
 * the objects does: two separately built programs may use the same object
 * when their FUTEXSYNC_LAYOUT is equal, whatever their library versions
 * (fx_layout_version() of <futexsync/version.h> gives the running library's).
 * The layout changes only with a major version, and every value below is
 * pinned by the library's tests. A slot holding a value that no operation
 * writes makes the calls on the object return EINVAL.
 *
 * fx_mutex, one int32_t `state`: FX_MUTEX_UNLOCKED, FX_MUTEX_LOCKED or
 * FX_MUTEX_CONTENDED (Drepper's "Futexes Are Tricky" mutex).
 *
 * fx_rmutex, `owner`:
 *
 *     0                          free
 *     tid                        held by thread tid (1..FX_RMUTEX_TID_MAX,
 *                                its gettid() in its own PID namespace);
 *                                the kernel reports its death
 *     tid | FX_RMUTEX_PROBED     held by a thread that has no usable robust
 *                                list: its waiters check that it lives
 *       | FX_RMUTEX_LOCALNS      with PROBED: its process could not prove it
 *                                runs in the initial PID namespace
 *     | FX_RMUTEX_WAITERS        with any of the above: threads may sleep on
 *                                the word
 *     FX_RMUTEX_ORPHANED         free; its owner died (the kernel or
 *       (| FX_RMUTEX_WAITERS)    fx_rmutex_recover marked it): the next
 *                                acquirer gets EOWNERDEAD
 *     FX_RMUTEX_NOTRECOVERABLE   unusable forever: every acquire gives
 *                                ENOTRECOVERABLE
 *
 * `depth`, written only by the owner and meaningful only while a thread owns
 * the mutex (every acquisition overwrites it): the recursion depth
 * (1..FX_RMUTEX_DEPTH_MAX) in FX_RMUTEX_DEPTH_MASK, plus
 * FX_RMUTEX_INCONSISTENT while the owner has acquired it with EOWNERDEAD and
 * not yet called fx_rmutex_consistent. `reserved` and `link`: the owner's
 * entry in its thread's robust futex list (glibc's geometry; written by the
 * owner, read by the kernel; zero when free).
 *
 * fx_once, `state`:
 *
 *     FX_ONCE_NOT_RUN            the initialiser has not run
 *     FX_ONCE_DONE               it has returned
 *     FX_ONCE_RUNNING | tid      it is running in the thread whose kernel TID
 *                                is tid (FX_ONCE_TID_MASK); the kernel
 *                                reports that thread's death
 *       | FX_ONCE_PROBED         a thread without a usable robust list: the
 *                                callers check that it lives
 *       | FX_ONCE_LOCALNS        with PROBED: its process could not prove it
 *                                runs in the initial PID namespace
 *     FX_ONCE_RUNNING            (no tid) its thread died inside it (the
 *                                kernel's mark): the next caller runs it again
 *     | FX_ONCE_WAITERS          with RUNNING: other threads may sleep on the
 *                                word
 *
 * The rest of fx_once, `reserved` and `link`, is the running thread's robust
 * list entry, as fx_rmutex's.
 *
 * fx_rwlock, `state`:
 *
 *     bits 0..22   readers holding the lock (up to FX_RWLOCK_MAX_READERS of
 *                  <futexsync/rwlock.h>), and nobody else
 *     bit 23       FX_RWLOCK_WRITE_LOCKED
 *     bits 24..28  always 0 (a state with one set gives EINVAL)
 *     bit 29       FX_RWLOCK_WRITER_PENDING
 *     bit 30       FX_RWLOCK_READERS_WAITING
 *     bit 31       FX_RWLOCK_WRITERS_WAITING
 *
 * and `writer_seq`, the writers' futex word: a sequence number (any value,
 * wraps) that unlockers advance before waking one writer, and that a waiting
 * writer advances when it declares its intent.
 *
 * fx_barrier, `state`: bits 0..14 the threads arrived in the current round
 * (fewer than the parties), bit 15 FX_BARRIER_SLEEPERS, bits 16..31 the round
 * number (wraps; only equality matters); `parties`: 0 before the first wait,
 * then the party count every wait must pass (1..FX_BARRIER_MAX_PARTIES of
 * <futexsync/barrier.h>).
 *
 * fx_cond:
 *
 *     seq      the word waiters sleep on:
 *                bits 31..2  counter, advanced (mod 2^30) by signal and
 *                            broadcast, at most once per waiter that
 *                            registered since the last advance
 *                bit 1       FX_COND_BCAST: a broadcast may have moved waiters
 *                            off this word; cleared when nobody waits
 *                bit 0       FX_COND_ARMED: a waiter registered at this counter
 *              every 32-bit value is valid
 *     waiters  threads (in any process) inside a wait (all four functions); >= 0
 *              (a wait also refuses INT32_MAX, which its increment would wrap)
 *     mutex    which mutex the current waiters use: 0 none yet, 2 several,
 *              3 fx_rmutex(es), or a token derived from an fx_mutex's address
 *              (never a pointer); values = 3 (mod 4) other than 3, and
 *              = 2 (mod 4) other than 2, are never written
 *     park     always 0: the futex word a broadcast parks released waiters
 *              on until one of them, holding the mutex, moves them to the
 *              mutex word (or wakes the next one)
 *
 * fx_sem and fx_counter hold plain counts, as their headers say; fx_worker
 * and fx_async are private to the process and not part of the layout.
 */
#ifndef FUTEXSYNC_LAYOUT_H
#define FUTEXSYNC_LAYOUT_H

#include <stdint.h>

/* The version of the layout below, 2 since futexsync 2.0.0 (fx_rmutex joined
 * the kernel's robust futex list). */
#define FUTEXSYNC_LAYOUT 2

/* fx_mutex's state. */
#define FX_MUTEX_UNLOCKED  0 /* free */
#define FX_MUTEX_LOCKED    1 /* held, no thread sleeping in the kernel */
#define FX_MUTEX_CONTENDED 2 /* held, threads may be sleeping: unlock wakes one */

/* fx_rmutex's owner slot. */
#define FX_RMUTEX_TID_MAX        0x003fffff /* the largest TID: PID_MAX_LIMIT - 1 */
#define FX_RMUTEX_WAITERS        (-0x7fffffff - 1) /* bit 31: sleepers may exist */
#define FX_RMUTEX_ORPHANED       0x40000000 /* free; next acquirer: EOWNERDEAD */
#define FX_RMUTEX_NOTRECOVERABLE 0x20000000 /* unusable forever */
#define FX_RMUTEX_LOCALNS        0x10000000 /* bit 28, with PROBED: owner not proven
                                               in the initial PID namespace */
#define FX_RMUTEX_PROBED         0x08000000 /* bit 27, with a TID: the kernel will
                                               not report the owner's death */

/* fx_rmutex's depth slot. */
#define FX_RMUTEX_DEPTH_MASK   0x3fffffff /* bits 0-29: the depth */
#define FX_RMUTEX_DEPTH_MAX    0x3fffffff /* one more lock gives EAGAIN */
#define FX_RMUTEX_INCONSISTENT 0x40000000 /* bit 30: EOWNERDEAD, not repaired */

/* fx_once's state. */
#define FX_ONCE_NOT_RUN  0 /* the initialiser has not run */
#define FX_ONCE_DONE     ((int32_t)0x80000000u) /* it has returned; no owner bits, so the
                                                   kernel never marks it */
#define FX_ONCE_RUNNING  0x40000000 /* it runs (with a TID), or its thread died in it */
#define FX_ONCE_WAITERS  ((int32_t)0x80000000u) /* with RUNNING: sleepers may exist */
#define FX_ONCE_TID_MASK 0x003fffff /* the running thread's TID: PID_MAX_LIMIT - 1 */
#define FX_ONCE_LOCALNS  0x10000000 /* with PROBED: not proven in the initial PID ns */
#define FX_ONCE_PROBED   0x08000000 /* with a TID: the kernel will not report its death */

/* fx_rwlock's state. */
#define FX_RWLOCK_WRITE_LOCKED    0x00800000 /* a writer holds the lock */
#define FX_RWLOCK_WRITER_PENDING  0x20000000 /* a writer waits: new readers stay out */
#define FX_RWLOCK_READERS_WAITING 0x40000000 /* readers may sleep on `state` */
#define FX_RWLOCK_WRITERS_WAITING ((int32_t)0x80000000u) /* writers may sleep on
                                                            `writer_seq` */

/* fx_cond's seq. */
#define FX_COND_ARMED 1 /* bit 0: a waiter registered at this counter */
#define FX_COND_BCAST 2 /* bit 1: a broadcast may have moved waiters off seq */

/* fx_barrier's state. */
#define FX_BARRIER_SLEEPERS 0x8000 /* bit 15: waiters may sleep on `state` */

#endif /* FUTEXSYNC_LAYOUT_H */
