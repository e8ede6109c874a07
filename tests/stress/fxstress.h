/*
 * tests/stress/fxstress.h - the stress harness and its adapter interface.
 *
 * One harness (tests/stress/fxstress.c) drives every primitive through a
 * small adapter: many threads in several forked processes operate on one
 * object in MAP_SHARED memory for a set time, under random signals (handler
 * without SA_RESTART), random short deadlines and, for primitives that
 * survive it, random SIGKILLs of the process that owns the object. Invariants
 * are checked all the time:
 *
 *   - the protected record: a multi-word record updated without atomics
 *     inside the critical section; a torn record (words that disagree) means
 *     two threads were inside at once, and at the end its count must equal
 *     the number of acquisitions (lost updates = 0);
 *   - the owner slot: each thread entering the critical section exchanges its
 *     id into the slot and must find it empty, and finds its own id there on
 *     the way out (no two owners);
 *   - a progress watchdog: every thread must acquire again within
 *     --watchdog seconds (no lost wake-up, no starvation);
 *   - owner death: every kill of an owner is followed by an EOWNERDEAD, the
 *     record is repaired and made consistent, and the recovery time measured.
 *
 * Adding a primitive = adding one file tests/stress/adapt_<name>.c, holding
 * a `struct fxs_adapter` and FXS_ADAPTER(<variable>). CMake links every
 * adapt_*.c into fxstress and registers a short ctest run "stress_<name>" for
 * each line of the form `    .name = "<name>",` it finds in them (names
 * starting with broken_ are expected to fail: --expect-fail).
 *
 * Locks (kind FXS_LOCK) give lock / trylock / timedlock / unlock; the harness
 * runs the mix (lock, trylock, timedlock with random short deadlines, some of
 * them already past, a few with an invalid tv_nsec) and checks each result:
 *
 *     lock        0, or EOWNERDEAD with FXS_OWNER_DEATH
 *     trylock     0, EBUSY (or EOWNERDEAD)
 *     timedlock   0, ETIMEDOUT, EINVAL only for the invalid tv_nsec (or
 *                 EOWNERDEAD)
 *     unlock      0
 *
 *   A reader-writer lock also gives the shared operations (rdlock, ...):
 *   readers check that no writer is inside and that the record is not torn.
 *   A counting primitive (a semaphore used as a lock) sets max_holders > 1:
 *   the harness then checks that at most max_holders are inside at once
 *   instead of using the record.
 *   With FXS_OWNER_DEATH the harness SIGKILLs processes whose thread owns the
 *   lock, respawns them, and expects the next acquirer to get EOWNERDEAD and
 *   call consistent() after repairing the record.
 *
 * Anything else (kind FXS_CUSTOM: a counter, a barrier, a condition variable,
 * once) gives step(), one operation of its own mix per call, using
 * fxs_cs_enter/fxs_cs_leave around whatever it treats as a critical section,
 * fxs_progress for completed operations that are not critical sections, and
 * fxs_count/fxs_fail for its figures and failures.
 *
 * Either kind may give finish() for its end-of-run checks (in the parent,
 * after every worker stopped), and leave(): a primitive whose blocking waits
 * are ended only by other workers (a barrier round, a condition that another
 * thread makes true) would leave a thread blocked for ever when the others
 * stop; each thread calls leave() once when the run stops (not after its own
 * failure), and leave() returns once the thread may exit, after releasing
 * whoever waits for it.
 */
#ifndef FXSTRESS_H
#define FXSTRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

enum fxs_kind {
    FXS_LOCK,   /* lock/trylock/timedlock/unlock (+ optional shared mode) */
    FXS_CUSTOM, /* step() */
};

/* Capabilities. */
#define FXS_OWNER_DEATH 1u /* lock returns EOWNERDEAD after its owner died */
#define FXS_NO_PROCESSES 2u /* threads of one process only (not process-shared) */
/* FXS_CUSTOM: the harness may SIGKILL a process whose threads are all asleep
 * inside fxs_wait_begin/fxs_wait_end (or between steps): the adapter's
 * checks must still hold after such a death (a FXS_LOCK adapter gets these
 * kills without asking). */
#define FXS_WAITER_KILLS 4u

struct fxs_thread; /* one worker thread, opaque */

struct fxs_adapter {
    const char *name;    /* the ctest name is stress_<name> */
    const char *what;    /* one line for --list */
    enum fxs_kind kind;
    unsigned caps;       /* FXS_* capabilities */
    size_t size;         /* bytes of the object (placed 64-byte aligned, zeroed) */

    /* Optional: prepares the zeroed object before any process starts. */
    int (*setup)(void *obj);

    /* FXS_LOCK: exclusive operations (trylock and timedlock may be NULL). */
    int (*lock)(void *obj);
    int (*trylock)(void *obj);
    int (*timedlock)(void *obj, const struct timespec *deadline);
    int (*unlock)(void *obj);
    /* FXS_LOCK, optional shared (reader) operations, used when rdlock != NULL. */
    int (*rdlock)(void *obj);
    int (*tryrdlock)(void *obj);
    int (*timedrdlock)(void *obj, const struct timespec *deadline);
    int (*rdunlock)(void *obj);
    /* FXS_OWNER_DEATH: marks the lock consistent after EOWNERDEAD. */
    int (*consistent)(void *obj);
    /* FXS_OWNER_DEATH, optional: the explicit recovery path, called by the
     * parent after half of the kills for each thread of the process it
     * reaped; returns 0 when that thread owned the lock (which is released
     * for the next acquirer's EOWNERDEAD), or a positive errno (EPERM: not
     * the owner). */
    int (*reaped)(void *obj, pid_t tid);
    /* FXS_LOCK: holders allowed at once (0 means 1). */
    int max_holders;

    /* FXS_CUSTOM: one operation; returns 0, or nonzero after fxs_fail(). */
    int (*step)(void *obj, struct fxs_thread *t);
    /* Optional end-of-run check, in the parent after all workers stopped
     * (any kind); returns 0, or nonzero after fxs_fail(). */
    int (*finish)(void *obj);
    /* Optional: called by each worker thread once when the run stops (see
     * above); returns 0, or nonzero after fxs_fail(). */
    int (*leave)(void *obj, struct fxs_thread *t);
    /* FXS_WAITER_KILLS, optional: the memory its waits sleep on, when not
     * the object itself (returns its start and sets *len). */
    void *(*wait_area)(void *obj, size_t *len);
    /* FXS_WAITER_KILLS, optional: called by the parent for each thread of a
     * process it killed as a waiter, right after the kill (the process was
     * frozen: none of its threads runs user code again) and before it is
     * respawned (the successor may not run a step before the run stops):
     * undoes what only that thread would have undone. */
    void (*killed)(void *obj, int thread_index);
};

/* Registers an adapter (at program start). */
void fxs_register(const struct fxs_adapter *a);
#define FXS_ADAPTER(var)                                                  \
    __attribute__((constructor)) static void fxs_register_##var(void)     \
    {                                                                     \
        fxs_register(&(var));                                             \
    }

/* --- for FXS_CUSTOM adapters ------------------------------------------- */

/* Marks a failure (printf format; t may be NULL in finish()); the run stops
 * and reports it. Returns 1. */
int fxs_fail(struct fxs_thread *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Enters and leaves the checked critical section: owner slot, record check
 * and update, one acquisition counted for the watchdog and the totals. */
int fxs_cs_enter(struct fxs_thread *t);
int fxs_cs_leave(struct fxs_thread *t);
/* FXS_WAITER_KILLS: bracket one blocking call during which the thread holds
 * nothing that the others need. A process is killed as a waiter only when,
 * frozen (SIGSTOP), each of its worker threads is stopped inside a futex
 * wait on the object (or on wait_area) between these two calls, or in user
 * space between steps. */
void fxs_wait_begin(struct fxs_thread *t);
void fxs_wait_end(struct fxs_thread *t);
/* A uniformly random number in [0, n) from the thread's generator. */
uint32_t fxs_rand(struct fxs_thread *t, uint32_t n);
/* A random short deadline (some already past); never an invalid tv_nsec. */
struct timespec fxs_deadline(struct fxs_thread *t);
/* Counters printed in the report (index: one of the FXS_N_* below). */
enum {
    FXS_N_OPS,         /* operations started */
    FXS_N_ACQUIRED,    /* exclusive critical sections entered */
    FXS_N_SHARED,      /* shared (reader) critical sections entered */
    FXS_N_BUSY,        /* try operations that found the object busy */
    FXS_N_TIMEOUTS,    /* timed operations that returned ETIMEDOUT */
    FXS_N_BADDEADLINE, /* timed operations given an invalid tv_nsec */
    FXS_N_WAITS,       /* custom: blocking waits completed */
    FXS_N_COUNTERS
};
void fxs_count(struct fxs_thread *t, int which, uint64_t n);
/* Marks progress for the watchdog: a completed operation that is not a
 * critical section (fxs_cs_enter marks its own). */
void fxs_progress(struct fxs_thread *t);
/* Global index of the thread (0 .. processes * threads - 1). */
int fxs_thread_index(const struct fxs_thread *t);
/* Worker threads in the run (processes * threads), fixed for the run; valid
 * in setup() too. */
int fxs_threads_total(void);
/* True once some thread or the parent has reported a failure. */
bool fxs_failed(void);
/* In finish(): the total of one counter over all threads. */
uint64_t fxs_total(int which);
/* In finish(): how many threads were asleep on the object when their
 * process was killed as a waiter (a slot that counts sleepers may keep
 * that many). */
uint64_t fxs_waiters_killed(void);

#endif /* FXSTRESS_H */
