/*
 * tests/genmc/model.h - what GenMC runs in place of the kernel and of the
 * library's environment, for the harnesses of tests/genmc/ (read
 * docs/verification.md first).
 *
 * A harness includes this file, then the library's OWN source file
 * (#include "../../src/mutex.c"), then its client threads. GenMC compiles
 * the lot to LLVM IR and explores every execution under RC11 or IMM. Nothing
 * here is linked into the library.
 *
 * What is replaced, and by what:
 *
 * - The futex layer (src/internal/futex.h: fxi_futex_wait_raw, _sleep,
 *   _sleep_cancel, _wake_raw, _requeue_raw). src/futex.c, the system call,
 *   is not compiled; the functions below model the kernel's futex:
 *     * a wait compares the word and queues the caller atomically with
 *       respect to every wake and requeue (the kernel's hash-bucket lock:
 *       here one pthread mutex, fxg_kernel, which GenMC models natively);
 *       it returns EAGAIN at once if the word differs;
 *     * a queued waiter blocks until a wake picks it: GenMC's explicit
 *       wait loop (__VERIFIER_spin_start/_end), so with --check-liveness
 *       an execution that ends with a waiter never woken is reported
 *       (a lost wake-up);
 *     * a wake picks up to n queued waiters of that word whose bitset
 *       intersects, oldest first (the kernel's order for equal priorities);
 *       a requeue compares the word, wakes, and moves waiters to the target
 *       word's queue without waking them;
 *     * both calls begin with a seq_cst fence: the kernel's smp_mb() before
 *       it reads the word (futex_wait) and before it looks for waiters
 *       (futex_wake) -- what makes "publish, then wake" and "count, then
 *       wait" a Dekker pair with the kernel's compare.
 *   Not modelled: timeouts (every wait is untimed: a deadline, a recheck or
 *   an owner-liveness re-check never fires; but see -DFXG_TIMEOUT and
 *   -DFXG_PROBED below), spurious wake-ups, EINTR, process death. A recheck
 *   exists only for deaths in other processes (src/internal/futex.h), so
 *   without deaths a wake-up that only a recheck would deliver is reported
 *   as lost: the checks show that none is needed.
 *   fxi_futex_sleep sets the call's scope to FXI_SCOPE_PRIVATE, as the real
 *   one does at its first recheck in private memory.
 *
 * - src/internal/spin.h (the adaptive spin budget, a _Thread_local record,
 *   the pause instruction, the handoff estimate and the far waiter's poll):
 *   a budget of 0, always near, no state. Spinning only
 *   delays a sleep and multiplies GenMC's executions; every spin loop of
 *   the library is a relaxed look before an atomic step it would take
 *   anyway. The checks that show it: -DFXG_SPIN=N gives every spin a
 *   budget of N looks (the adaptive spins and the spin in time alike), and
 *   -DFXG_POLL=N makes every handoff far, so that fx_mutex and fx_rmutex
 *   waiters poll, N looks with a poll "sleep" (no time passes) between.
 *
 * - src/internal/deadline.h: the same checks, but no clock. Time stands
 *   still (clock_gettime gives 0) and fxi_ts_add_ns gives a time never
 *   reached, so no renewal falls due and no watch goes stale (but for the
 *   owner-liveness re-checks of -DFXG_PROBED, under "Owner death"). (The real
 *   fxi_ts_add_ns returns a struct by value, which GenMC 0.10 refuses as
 *   "mixed-size accesses".) With -DFXG_TIMEOUT the callers' deadlines pass
 *   once, at any point (a clock thread): fxi_deadline_passed is true from
 *   then on, and a futex wait given a deadline may end with ETIMEDOUT.
 *
 * - Race-detector announcements (src/annotate.c): fxi_ann_mode says "no
 *   detector" from the start; the announcing twins must never run.
 *
 * - Identity (src/identity.c): each client thread names itself with
 *   fxg_thread_start(tid) (distinct tids from 1). Its identity word is the
 *   TID alone (an owner whose death the kernel reports), or with
 *   -DFXG_PROBED the TID | FXI_ID_PROBED (no robust list: its waiters judge
 *   it with the liveness probe). No thread has a robust list (fxi_self.rl
 *   is NULL: the kernel's walk of it is modelled on the word, below).
 *
 * - Owner death. A client thread "dies" with fxg_die(tid): its last act,
 *   a release store of its death mark (it then returns, or pthread_exit()s
 *   from inside an initialiser: no cleanup handler runs, see below). What
 *   the kernel then does:
 *     * the liveness probe (src/identity.c's fxi_id_probe, src/process.c's
 *       fxi_tid_probe: the look at another thread) answers DEAD for a TID whose death mark it
 *       reads (acquire: the kernel's exit of a thread and a look that finds
 *       it gone synchronize, so what the thread wrote before its death is
 *       visible), ALIVE otherwise: never UNKNOWN;
 *     * the robust-list walk at the thread's exit: fxg_kernel_start(tid,
 *       word) starts a "kernel" thread that, once it reads the death mark,
 *       does to that one word what the walk does to each word of the dead
 *       thread's list (handle_futex_death): if the word's low 30 bits are
 *       the TID, a compare-and-swap (seq_cst, the kernel's cmpxchg between
 *       full barriers) to (word & WAITERS) | OWNER_DIED (bit 30), then a
 *       wake of one sleeper if WAITERS was set. fx_rmutex's ORPHANED and
 *       fx_once's ABANDONED are that mark. The pending-operation case (a
 *       word whose owner bits are 0, woken) is not modelled: no client
 *       thread dies between a release and its wake.
 *     * with -DFXG_PROBED, the library's own re-check times (fx_rmutex's
 *       liveness watch, fx_once's check; src/internal/probe_periods.h) are
 *       real: every look at the clock (fxi_now_ns, clock_gettime) by a
 *       thread finds it FXG_STEP_NS later than its last look, so a check
 *       planned at one look is due at the next; and a futex wait bounded by
 *       such a time ends (ETIMEDOUT) only while the value it sleeps on names
 *       a PROBED owner that is dead, at any point from then on -- the only
 *       job of that re-check, as in models/rmutex.pml (a re-check that
 *       fires while the owner lives changes nothing but could hide a lost
 *       wake-up). The process's prober (fxi_futex_sleep_probed,
 *       src/sleep.c) is modelled by its contract: a sleep that ends when
 *       woken, at the caller's deadline, or told (*judge) once the PROBED
 *       owner of the value slept on is dead.
 *
 * - pthread cancellation (testcancel, cleanup push/pop): no cancellation
 *   happens, so the cleanup handlers never run.
 */
#ifndef FXG_MODEL_H
#define FXG_MODEL_H

#include <assert.h>
#include <errno.h>
#include <genmc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Threads per execution, main included (GenMC numbers them from 0). */
#define FXG_THREADS 8

/* GenMC's own <errno.h> lacks these (Linux values). */
#ifndef EOWNERDEAD
#define EOWNERDEAD 130
#endif
#ifndef ENOTRECOVERABLE
#define ENOTRECOVERABLE 131
#endif

/* ---- thread-local storage ----
 * GenMC 0.10 cannot initialise a _Thread_local variable of struct type
 * ("Constant unimplemented for type"), and every one of the library's is a
 * struct: the spin budgets of sem, cond and barrier (no longer touched: see
 * spin.h below), fx_rmutex's liveness memo (touched only by a non-waiting
 * attempt on a held rmutex, which no client makes; GenMC would report the
 * race if one did) and the identity record fxi_self (made per thread below).
 * So _Thread_local is dropped from the sources' declarations. */
#define _Thread_local

/* ---- src/internal/spin.h, replaced (see above) ---- */
#define FXI_INTERNAL_SPIN_H
struct fxi_spin {
    int unused;
};
#define FXI_SPIN_INIT(max) {0}
#ifndef FXG_SPIN
#define FXG_SPIN 0
#endif
static inline void fxi_cpu_relax(void) {}
static inline int fxi_spin_start(struct fxi_spin *s, int probe)
{
    (void)s;
    (void)probe;
    return FXG_SPIN;
}
static inline void fxi_spin_won(struct fxi_spin *s, int max)
{
    (void)s;
    (void)max;
}
static inline void fxi_spin_lost(struct fxi_spin *s, int min)
{
    (void)s;
    (void)min;
}
/* The spin in time of fx_mutex and fx_rmutex: none in the model. */
static inline int fxi_spin_iterations(int64_t ns)
{
    (void)ns;
    return FXG_SPIN;
}
/* Their handoff estimate: always near, so the spin (of no iterations) runs;
 * a far waiter's poll makes the same relaxed looks with sleeps between, so it
 * adds no other order of the word's operations (models/mutex.pml). */
static inline uint64_t fxi_ticks(void)
{
    return 0;
}
enum { FXI_HANDOFF_SPIN, FXI_HANDOFF_TIMED, FXI_HANDOFF_POLL };
static inline int fxi_handoff_mode(void)
{
#ifdef FXG_POLL
    return FXI_HANDOFF_POLL;
#else
    return FXI_HANDOFF_SPIN;
#endif
}
static inline void fxi_handoff_seen(uint64_t t0)
{
    (void)t0;
}
static inline bool fxi_poll_wait(int k, const struct timespec *deadline)
{
    (void)deadline;
#ifdef FXG_POLL
    return k < FXG_POLL;
#else
    (void)k;
    return false;
#endif
}

/* fx_rmutex arms a thread-exit handler only when a race detector is there
 * (never in the model); GenMC's <pthread.h> has no thread-specific data. */
typedef int pthread_key_t;
static inline int fxg_key_create(pthread_key_t *k, void (*d)(void *))
{
    (void)d;
    *k = 0;
    return 0;
}
static inline int fxg_setspecific(pthread_key_t k, const void *v)
{
    (void)k;
    (void)v;
    assert(0 && "a race-detector path ran in the model");
    return 0;
}
#define pthread_key_create fxg_key_create
#define pthread_setspecific fxg_setspecific
/* GenMC's <pthread.h> defines PTHREAD_ONCE_INIT (0) but comments out the
 * type and the call. */
typedef int pthread_once_t;
static inline int fxg_once(pthread_once_t *o, void (*f)(void))
{
    (void)o;
    (void)f;
    assert(0 && "a race-detector path ran in the model");
    return 0;
}
#define pthread_once fxg_once

/* ---- src/internal/deadline.h, replaced (see above) ---- */
#define FXI_INTERNAL_DEADLINE_H
#define FXG_NEVER ((time_t)1 << 40)
static inline int fxi_deadline_check(const struct timespec *deadline)
{
    if (deadline != NULL && (deadline->tv_nsec < 0 || deadline->tv_nsec > 999999999L))
        return EINVAL;
    return 0;
}
#ifdef FXG_TIMEOUT
/* -DFXG_TIMEOUT: time passes once. A clock thread (fxg_clock_start, which
 * the client calls before its threads, and fxg_clock_join after) sets
 * fxg_expired at any point of the execution; from then on every deadline
 * has passed, and a futex wait that was given one may end with ETIMEDOUT
 * instead of a wake (fxg_wait). Relaxed: time publishes nothing. Without
 * FXG_TIMEOUT both calls do nothing and time stands still. */
static int fxg_expired;
static pthread_t fxg_clock_thread;
static void *fxg_clock(void *arg)
{
    (void)arg;
    __atomic_store_n(&fxg_expired, 1, __ATOMIC_RELAXED);
    return NULL;
}
static inline void fxg_clock_start(void)
{
    pthread_create(&fxg_clock_thread, NULL, fxg_clock, NULL);
}
static inline void fxg_clock_join(void)
{
    pthread_join(fxg_clock_thread, NULL);
}
#define FXG_EXPIRED() __atomic_load_n(&fxg_expired, __ATOMIC_RELAXED)
#else
static inline void fxg_clock_start(void)
{
}
static inline void fxg_clock_join(void)
{
}
#define FXG_EXPIRED() 0
#endif
static inline bool fxi_ts_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}
static inline int64_t fxi_ts_ns(const struct timespec *t)
{
    return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}
#define fxi_ts_add_ns(t, ns) ((struct timespec){.tv_sec = FXG_NEVER, .tv_nsec = 0})
#ifdef FXG_PROBED
/* -DFXG_PROBED: the library's own re-check times are real, from FXG_EPOCH
 * on (above every caller's deadline, below FXG_NEVER); each look at the
 * clock by a thread is FXG_STEP_NS (1000 s, longer than every period of
 * src/internal/probe_periods.h) after its last one. Per thread: the library
 * compares only times its own thread read. */
#define FXG_EPOCH ((time_t)1 << 32)
#define FXG_STEP_NS ((int64_t)1000 * 1000000000)
static int64_t fxg_looks[FXG_THREADS];
static inline int64_t fxi_now_ns(void)
{
    long t = (long)pthread_self();
    assert(t >= 0 && t < FXG_THREADS && "model: raise FXG_THREADS");
    return (int64_t)FXG_EPOCH * 1000000000 + ++fxg_looks[t] * FXG_STEP_NS;
}
/* Field by field, no conditional between two structs (a copy GenMC 0.10
 * refuses); INT64_MAX, "no re-check", is never reached. */
#define fxi_ns_ts(ns)                                                                    \
    ((struct timespec){.tv_sec = (ns) == INT64_MAX ? FXG_NEVER : (ns) / 1000000000,      \
                       .tv_nsec = (ns) == INT64_MAX ? 0 : (ns) % 1000000000})
/* A caller's deadline (the clients' are 1 s): passes with -DFXG_TIMEOUT. */
#define FXG_DEADLINE(d) ((d) != NULL && (d)->tv_sec < FXG_EPOCH)
/* One of the library's re-check times: passes while the owner is dead. */
#define FXG_RECHECK(d) ((d) != NULL && (d)->tv_sec >= FXG_EPOCH && (d)->tv_sec < FXG_NEVER)
#else
static inline int64_t fxi_now_ns(void)
{
    return 0;
}
#define fxi_ns_ts(ns) ((struct timespec){.tv_sec = FXG_NEVER, .tv_nsec = 0})
/* A caller's deadline, as opposed to the library's own recheck times,
 * which the model puts at FXG_NEVER: only the former pass. */
#define FXG_DEADLINE(d) ((d) != NULL && (d)->tv_sec < FXG_NEVER)
#define FXG_RECHECK(d) 0
#endif
static inline bool fxi_deadline_passed(const struct timespec *deadline)
{
    return FXG_DEADLINE(deadline) && FXG_EXPIRED();
}
static inline int fxg_clock_gettime(clockid_t c, struct timespec *t)
{
    (void)c;
    int64_t ns = fxi_now_ns();
    t->tv_sec = ns / 1000000000;
    t->tv_nsec = ns % 1000000000;
    return 0;
}
#define clock_gettime(c, t) fxg_clock_gettime((c), (t))

/* ---- owner death (see above) ---- */
#define FXG_TIDS 8 /* client TIDs 1..FXG_TIDS-1 */
static int fxg_dead[FXG_TIDS]; /* death marks, by TID */

/* The calling thread, of TID tid, dies: its last act. */
static inline void fxg_die(uint32_t tid)
{
    assert(tid > 0 && tid < FXG_TIDS && "model: raise FXG_TIDS");
    __atomic_store_n(&fxg_dead[tid], 1, __ATOMIC_RELEASE);
}

/* Whether the thread of TID tid has died (acquire: what it wrote before). */
static inline bool fxg_is_dead(uint32_t tid)
{
    return tid > 0 && tid < FXG_TIDS && __atomic_load_n(&fxg_dead[tid], __ATOMIC_ACQUIRE) != 0;
}

/* Returns once *flag is not 0 (acquire; GenMC's explicit wait loop): for
 * clients whose threads must start in some state. */
static inline void fxg_await(const int *flag)
{
    int f;
    for (__VERIFIER_loop_begin();
         __VERIFIER_spin_start(), f = __atomic_load_n(flag, __ATOMIC_ACQUIRE),
         __VERIFIER_spin_end(f != 0), f == 0;)
        ;
}

/* ---- pthread cancellation: none happens ---- */
#define pthread_testcancel() ((void)0)
#define pthread_cleanup_push(f, a) {
#define pthread_cleanup_pop(e) }

/* ---- race-detector announcements: no detector ---- */
#include "internal/annotate.h"
int fxi_ann_mode = FXI_ANN_NONE;
#define FXG_NEVER_RUNS(name, params)                                                     \
    void name params { assert(0 && "a race-detector hook ran in the model"); }
FXG_NEVER_RUNS(fxi_ann_pre_lock, (const void *a, unsigned f))
FXG_NEVER_RUNS(fxi_ann_post_lock, (const void *a, unsigned f, int rec))
FXG_NEVER_RUNS(fxi_ann_pre_unlock, (const void *a, unsigned f))
FXG_NEVER_RUNS(fxi_ann_post_unlock, (const void *a, unsigned f))
FXG_NEVER_RUNS(fxi_ann_own_words, (const void *p, size_t size))
FXG_NEVER_RUNS(fxi_ann_happens_before, (const void *a))
FXG_NEVER_RUNS(fxi_ann_happens_after, (const void *a))
bool fxi_ann_detected(void)
{
    return 0;
}

/* ---- the futex model ---- */
#include "internal/futex.h"
#include "internal/sleep.h"

#ifndef FXG_QUEUE
#define FXG_QUEUE 12 /* futex waits per execution, at most */
#endif

/* One futex wait: the word it is queued on (moved by a requeue), its
 * bitset, and whether a wake picked it. `word` and `bitset` are touched only
 * under fxg_kernel; `woken` is also read by the waiter's wait loop. */
struct fxg_waiter {
    int32_t *word;
    uint32_t bitset;
    int woken;
};
static struct fxg_waiter fxg_q[FXG_QUEUE];
static int fxg_nq;
static pthread_mutex_t fxg_kernel = PTHREAD_MUTEX_INITIALIZER;

/* How many wakes and requeues reached a queued waiter: for harnesses that
 * check a primitive's "one wake per event" claims. Kernel-side, under
 * fxg_kernel. */
static int fxg_woken_total;

#ifdef FXG_COUNT_QUEUED
/* How many futex waits were ever queued (release, when a wait is queued):
 * for harnesses that must act once their threads are asleep. If the
 * harness sets fxg_queued_on (before it creates its threads), only the
 * waits on that word count. */
static int fxg_queued;
static int32_t *fxg_queued_on;

/* Returns once n futex waits were queued (acquire: what their threads did
 * before is visible; GenMC's explicit wait loop). */
static inline void fxg_await_queued(int n)
{
    int q;
    for (__VERIFIER_loop_begin();
         __VERIFIER_spin_start(), q = __atomic_load_n(&fxg_queued, __ATOMIC_ACQUIRE),
         __VERIFIER_spin_end(q == n), q != n;)
        ;
}
#endif

/* The kernel's futex_wait: 0 when woken, EAGAIN when *word != expected,
 * ETIMEDOUT when `timed` and time passed (-DFXG_TIMEOUT) before a wake
 * picked it, FXG_RECHECKED when `recheck` (a library re-check time, or the
 * prober's look) and `expected` names a PROBED owner that is dead
 * (-DFXG_PROBED): it leaves the queue under the kernel's lock, so a wake
 * either picked it before (0) or cannot pick it any more. */
#define FXG_RECHECKED (-1)
static int fxg_wait(int32_t *word, int32_t expected, uint32_t bitset, bool timed, bool recheck)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the kernel's smp_mb() (futex_q_lock) */
    pthread_mutex_lock(&fxg_kernel);
    /* Relaxed: the bucket lock and the fence order it (as in the kernel). */
    if (__atomic_load_n(word, __ATOMIC_RELAXED) != expected) {
        pthread_mutex_unlock(&fxg_kernel);
        return EAGAIN;
    }
    int i = fxg_nq++;
    assert(i < FXG_QUEUE && "model: raise FXG_QUEUE");
    fxg_q[i].word = word;
    fxg_q[i].bitset = bitset;
#ifdef FXG_COUNT_QUEUED
    if (fxg_queued_on == NULL || word == fxg_queued_on)
        __atomic_fetch_add(&fxg_queued, 1, __ATOMIC_RELEASE);
#endif
    pthread_mutex_unlock(&fxg_kernel);
    /* Blocked until a wake picks us: GenMC's explicit wait loop. Under
     * --check-liveness an execution in which nobody ever does is an error. */
    int w, e;
#if defined(FXG_TIMEOUT) || defined(FXG_PROBED)
    /* What can end the wait besides a wake: the clock (the caller's
     * deadline passed) and, with -DFXG_PROBED, the death mark of the PROBED
     * owner `expected` names (the identity word sits in the low bits of
     * fx_rmutex's and fx_once's words alike), for a re-check; for a wait
     * that cannot end so, a word never written. Chosen before the loop and
     * read with no branch before the loop's end: GenMC 0.10.3's load
     * annotation walks every path from a wait loop's end back to its
     * loads, around the loops of the caller this function is inlined into,
     * which branches there make exponential (minutes for an fx_rwlock
     * timed lock; it never finished for fx_rmutex's PROBED waiters). */
    static const int fxg_never = 0;
#ifdef FXG_TIMEOUT
    const int *clock = timed ? &fxg_expired : &fxg_never;
#else
    const int *clock = &fxg_never;
    (void)timed;
#endif
#ifdef FXG_PROBED
    const int *mark = recheck && ((uint32_t)expected & 0x08000000u) &&
                              ((uint32_t)expected & 0x003fffffu) < FXG_TIDS
                          ? &fxg_dead[(uint32_t)expected & 0x003fffffu]
                          : &fxg_never;
#else
    const int *mark = &fxg_never;
    (void)recheck;
#endif
    int x, d;
    for (__VERIFIER_loop_begin();
         __VERIFIER_spin_start(), w = __atomic_load_n(&fxg_q[i].woken, __ATOMIC_ACQUIRE),
         x = __atomic_load_n(clock, __ATOMIC_RELAXED), d = __atomic_load_n(mark, __ATOMIC_ACQUIRE),
         e = (x != 0) | ((d != 0) << 1), __VERIFIER_spin_end((w != 0) | (e != 0)), w == 0 && e == 0;)
        ;
#else
    (void)recheck;
    for (__VERIFIER_loop_begin();
         __VERIFIER_spin_start(), w = __atomic_load_n(&fxg_q[i].woken, __ATOMIC_ACQUIRE),
         e = timed && FXG_EXPIRED(), __VERIFIER_spin_end(w != 0 || e), w == 0 && !e;)
        ;
#endif
    if (w != 0)
        return 0;
    pthread_mutex_lock(&fxg_kernel);
    w = __atomic_load_n(&fxg_q[i].woken, __ATOMIC_ACQUIRE);
    if (w == 0)
        fxg_q[i].word = NULL; /* out of the queue: no wake or requeue finds it */
    pthread_mutex_unlock(&fxg_kernel);
    return w != 0 ? 0 : (e & 1) ? ETIMEDOUT : FXG_RECHECKED; /* the caller's deadline first */
}

/* Marks up to n waiters queued on word (bitset intersecting) woken, oldest
 * first; under fxg_kernel. */
static int fxg_wake_locked(int32_t *word, int n, uint32_t bitset)
{
    int woke = 0;
    for (int i = 0; i < fxg_nq && woke < n; i++) {
        if (fxg_q[i].word == word && (fxg_q[i].bitset & bitset) &&
            !__atomic_load_n(&fxg_q[i].woken, __ATOMIC_RELAXED)) {
            __atomic_store_n(&fxg_q[i].woken, 1, __ATOMIC_RELEASE);
            woke++;
        }
    }
    fxg_woken_total += woke;
    return woke;
}

int fxi_futex_wake_raw(int32_t *word, int count, uint32_t bitset)
{
    assert(count > 0);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the kernel's smp_mb() (hb_waiters_pending) */
    pthread_mutex_lock(&fxg_kernel);
    int woke = fxg_wake_locked(word, count, bitset);
    pthread_mutex_unlock(&fxg_kernel);
    return woke;
}

int fxi_futex_requeue_raw(int32_t *word, int32_t expected, int wake, int32_t *target,
                          int requeue)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    pthread_mutex_lock(&fxg_kernel);
    if (__atomic_load_n(word, __ATOMIC_RELAXED) != expected) {
        pthread_mutex_unlock(&fxg_kernel);
        return -EAGAIN;
    }
    int n = wake > 0 ? fxg_wake_locked(word, wake, FXI_BITSET_ANY) : 0;
    for (int i = 0; i < fxg_nq && requeue > 0; i++) {
        if (fxg_q[i].word == word && !__atomic_load_n(&fxg_q[i].woken, __ATOMIC_RELAXED)) {
            fxg_q[i].word = target;
            requeue--;
            n++;
        }
    }
    pthread_mutex_unlock(&fxg_kernel);
    return n;
}

int fxi_futex_wait_raw(int32_t *word, int32_t expected, const struct timespec *deadline,
                       uint32_t bitset)
{
    int r = fxg_wait(word, expected, bitset, FXG_DEADLINE(deadline), FXG_RECHECK(deadline));
    return r == FXG_RECHECKED ? ETIMEDOUT : r;
}

int fxi_futex_sleep(int32_t *word, int32_t expected, const struct timespec *deadline,
                    struct fxi_recheck *s)
{
    s->scope = FXI_SCOPE_PRIVATE;
    int r = fxg_wait(word, expected, FXI_BITSET_ANY, FXG_DEADLINE(deadline), false);
    s->woken = r == 0;
    return r == ETIMEDOUT ? ETIMEDOUT : 0;
}

int fxi_futex_sleep_cancel(int32_t *word, int32_t expected, const struct timespec *deadline,
                           struct fxi_recheck *s)
{
    return fxi_futex_sleep(word, expected, deadline, s);
}

/* The process's prober (src/sleep.c), by its contract (internal/sleep.h):
 * sleeps until woken, the caller's deadline, or told that the PROBED owner
 * of the value slept on is dead (*judge). Never ENOSYS: the prober is there.
 * (FXG_ENGINE, below, compiles src/sleep.c's own instead.) */
#ifndef FXG_ENGINE
int fxi_futex_sleep_probed(int32_t *word, int32_t expected, uint32_t (*owner)(const int32_t *word),
                           const struct timespec *deadline, bool *judge)
{
    (void)owner;
    int r = fxg_wait(word, expected, FXI_BITSET_ANY, FXG_DEADLINE(deadline), true);
    *judge = r == FXG_RECHECKED;
    return r == FXG_RECHECKED ? 0 : r;
}
#endif

/* ---- identity (src/identity.c): named threads, probed by death marks ----
 * fxg_identity.h is src/internal/identity.h as it is, but for the
 * declaration of the thread-local record fxi_self, which becomes
 * (*fxg_self()): the record of the calling thread (GenMC numbers threads
 * from 0, main). run.sh generates it. */
#include "fxg_identity.h"
static fxg_self_t fxg_selves[FXG_THREADS];
fxg_self_t *fxg_self(void)
{
    long t = (long)pthread_self();
    assert(t >= 0 && t < FXG_THREADS && "model: raise FXG_THREADS");
    return &fxg_selves[t];
}
int32_t fxi_tid_epoch[FXI_TID_PAGE / sizeof(int32_t)]
    __attribute__((visibility("hidden"), aligned(FXI_TID_PAGE))) = {1};

/* The per-thread records of held rmutexes and running initialisers:
 * src/identity.c's own functions, extracted by tests/genmc/run.sh. */
#include "identity_records.c"

/* Every client thread calls this first: what src/identity.c's fxi_tid_slow
 * does on a thread's first call, with identity word tid and the process's
 * epoch 1 (the value of fxi_tid_epoch[0]): the records emptied for tid,
 * then the cache. fxi_id() and fxi_tid_plain() then find it in the cache. */
#ifdef FXG_PROBED
#define FXG_ID_BITS FXI_ID_PROBED
#else
#define FXG_ID_BITS 0u
#endif
_Static_assert(FXI_ID_PROBED == 0x08000000u && FXI_ID_TID_MASK == 0x003fffffu,
               "fxg_wait reads the identity word in the value slept on");
static inline void fxg_thread_start(uint32_t tid)
{
    assert(tid > 0 && tid < FXG_TIDS && "model: raise FXG_TIDS");
    uint32_t id = tid | FXG_ID_BITS;
    fxi_held_reset(id);
    fxi_self.rl = NULL; /* no robust list: the kernel's walk is fxg_kernel_mark */
    fxi_self.rl_tid = tid;
    fxi_self.once.tid = id;
    fxi_self.once.n = 0;
    fxi_self.cache = (uint64_t)1 << 32 | id;
}
uint32_t fxi_tid_slow(void)
{
    assert(0 && "model: a client thread did not call fxg_thread_start");
    return 0;
}
void fxi_held_announce_exit(void)
{
}
bool fxi_id_comparable(uint32_t owner)
{
    (void)owner;
    return true;
}
/* The liveness probe: dead once the death mark is seen (see above). */
int fxi_id_probe(uint32_t owner)
{
    return fxg_is_dead(owner & FXI_ID_TID_MASK) ? FXI_TID_DEAD : FXI_TID_ALIVE;
}
int fxi_tid_probe(pid_t tid)
{
    return fxg_is_dead((uint32_t)tid) ? FXI_TID_DEAD : FXI_TID_ALIVE;
}

/* The kernel's robust-list walk at the death of the thread of TID tid, for
 * one word of its list (handle_futex_death; see above). */
static void fxg_kernel_mark(int32_t *word, uint32_t tid)
{
    /* The kernel's get_user: a guess for the cmpxchg, which synchronizes. */
    uint32_t v = (uint32_t)__atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;) {
        if ((v & 0x3fffffffu) != tid) /* FUTEX_TID_MASK */
            return;
        if (__atomic_compare_exchange_n((uint32_t *)word, &v, (v & 0x80000000u) | 0x40000000u,
                                        false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
            break;
    }
    if (v & 0x80000000u) /* FUTEX_WAITERS */
        fxi_futex_wake_raw(word, 1, FXI_BITSET_ANY);
}

/* The "kernel" thread of one death: waits for the death mark of fxg_kt_tid,
 * then walks its list: the one word fxg_kt_word. */
static int32_t *fxg_kt_word;
static uint32_t fxg_kt_tid;
static pthread_t fxg_kt;
static void *fxg_kernel_walk(void *arg)
{
    (void)arg;
    fxg_await(&fxg_dead[fxg_kt_tid]);
    fxg_kernel_mark(fxg_kt_word, fxg_kt_tid);
    return NULL;
}
static inline void fxg_kernel_start(uint32_t tid, int32_t *word)
{
    assert(tid > 0 && tid < FXG_TIDS);
    fxg_kt_tid = tid;
    fxg_kt_word = word;
    pthread_create(&fxg_kt, NULL, fxg_kernel_walk, NULL);
}
static inline void fxg_kernel_join(void)
{
    pthread_join(fxg_kt, NULL);
}

/* Where the waiting engine lists the sleepers of shared memory
 * (src/sleep.c): every fxi_recheck of the model stays private (scope set by
 * fxi_futex_sleep above, never in the engine), so the call's end has
 * nothing to give up and this is never reached. */
#ifdef FXI_RECHECK_CALL
void fxi_recheck_end_slow(struct fxi_recheck *s)
{
    (void)s;
    assert(0 && "model: a sleep registered in a shared scope");
}
#endif

/* ---- client helpers ---- */

/* Spawns n copies of f, with the arguments 0..n-1. With FXG_SYM every
 * copy gets the argument 0 and
 * the copies after the first are declared symmetric to the one before
 * (__VERIFIER_spawn_symmetric; GenMC's symmetry reduction is on by
 * default): GenMC then explores one execution of each
 * class of executions that differ only by a permutation of the copies. Only
 * for clients whose threads are identical, argument included (a thread
 * that uses its TID in the object's word is not). */
static inline void fxg_spawn(pthread_t *t, int n, void *(*f)(void *))
{
    for (int i = 0; i < n; i++) {
#ifdef FXG_SYM
        t[i] = i == 0 ? __VERIFIER_spawn(f, NULL) : __VERIFIER_spawn_symmetric(f, NULL, t[i - 1]);
#else
        pthread_create(&t[i], NULL, f, (void *)(intptr_t)i);
#endif
    }
}

static inline void fxg_join(pthread_t *t, int n)
{
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

/* ==== FXG_ENGINE: src/sleep.c itself, above a kernel with time ==== (begin)
 * A harness that defines FXG_ENGINE before including this file compiles the
 * waiting engine (#include "fxg_sleep.c", which run.sh makes of
 * src/sleep.c) instead of the futex model's fxi_futex_sleep above, which is
 * then unused: everything the engine calls
 * is taken from this block, by macros defined here (after the model's own
 * definitions, before the harness includes src/sleep.c), so nothing above
 * changes. The harness tests/genmc/engine.c says what its checks show.
 *
 * Modelled (the kernel, and time):
 *   * one queue of sleeps (fxge_q, under fxg_kernel, the bucket lock as
 *     above): FUTEX_WAIT (one word) and futex_waitv (two words: the tell
 *     word, index 0, and the sleeper's word, index 1). A sleep compares
 *     every word under the lock (EAGAIN if one differs), then ETIMEDOUT at
 *     once if its absolute deadline is not after now, else it is queued. A
 *     wake of either word of a waitv ends it; a wake that reaches a sleep
 *     already ended but not yet back (not unqueued) still counts as a
 *     wake and is consumed (the kernel's futex_q stays queued until its task
 *     runs); back, a waitv answers the highest index that was woken, a
 *     wake beats an expired timer, as futex_unqueue_multiple does.
 *   * time: fxge_now, CLOCK_MONOTONIC in ns, read by clock_gettime. It
 *     moves only when every client thread is asleep in the kernel or
 *     finished (time passes while nobody runs; a period of 250 ms dwarfs
 *     every step of the code): the client that goes idle last, under the
 *     kernel's lock, first lets the harness's environment act (fxge_quiet),
 *     then moves now to the earliest deadline of the queued sleeps and ends
 *     those (the kernel's hrtimer), at most FXGE_TICKS times an execution.
 *     No thread of its own, so no interleaving of its own. A sleep that no
 *     wake and no time ends stays blocked: GenMC reports it
 *     (--check-liveness), as it does a lost wake above; too few ticks can
 *     only make a check fail, never pass.
 * Stubbed (the choice named where it matters):
 *   * the pagemap read of the scope check (word_private: sysconf, openat,
 *     preadv, close through fxi_syscall): the entry says, for every word,
 *     -DFXGE_PAGEMAP=0 a shared page (file or shared anonymous; the default),
 *     1 a private anonymous present page, 2 no /proc (openat fails);
 *   * futex_waitv refused after the setup (ENOSYS), when the harness sets
 *     fxge_waitv_refused;
 *   * fxi_wipe_at_fork: true (the kernel honours MADV_WIPEONFORK);
 *     pthread_once: runs the setup once; the harness calls engine_ready()
 *     in main, before its threads, so it is never raced;
 *   * fxi_id_probe: owner ids are dead once the harness set fxge_dead[id]
 *     (relaxed: the probe publishes nothing); alive otherwise;
 *   * fxi_ann_own_words: nothing (no race detector);
 *     pthread_setcanceltype: nothing (no cancellation happens);
 *   * sleep.c's fxi_recheck_end_slow is renamed: the inline fxi_recheck_end
 *     of internal/sleep.h, compiled above, calls the model's (which asserts);
 *     the harness does not use FXI_RECHECK_CALL and asserts instead that
 *     each call left the engine (its node OUT). */
#ifdef FXG_ENGINE
#include <sys/syscall.h>
#include <sys/uio.h>

#ifndef FXGE_QUEUE
#define FXGE_QUEUE 16 /* sleeps per execution, at most */
#endif
#ifndef FXGE_TICKS
#define FXGE_TICKS 4 /* moves of the clock per execution, at most */
#endif
#ifndef FXGE_PAGEMAP
#define FXGE_PAGEMAP 0
#endif

struct fxge_sleep {
    const void *word[2]; /* [0]: the tell word of a waitv, else NULL; NULL both: unqueued */
    int64_t deadline;    /* ns, or -1: none */
    int ended;           /* bit 0, 1: word[0], word[1] woken; bit 2: timed out */
};
static struct fxge_sleep fxge_q[FXGE_QUEUE];
static int fxge_nq;
static int64_t fxge_now;   /* ns; written by the clock under fxg_kernel */
/* Under fxg_kernel: */
static int fxge_idle;      /* clients asleep in the kernel or finished */
static int fxge_finished;  /* clients finished */
static int fxge_ticks;     /* times time passed */
static int fxge_calls;     /* futex sleeps made, queued or not */
static int fxge_clients;   /* set by fxge_start */
/* The harness's environment, called under fxg_kernel whenever every
 * client is idle (before time passes): what happens while all sleep. */
static void (*fxge_quiet)(void);
static int32_t fxge_waitvs; /* waitv sleeps ever queued (a futex word) */
static int fxge_dead[8];   /* fxi_id_probe's answer per owner id */
/* Set by the harness after the engine's setup: futex_waitv refused from
 * then on (ENOSYS: a seccomp filter installed since). */
static int fxge_waitv_refused;

/* Under fxg_kernel: a queued, not yet ended sleep ends (bits). */
static void fxge_end_locked(int i, int bits)
{
    if (fxge_q[i].ended == 0)
        fxge_idle--;
    __atomic_store_n(&fxge_q[i].ended, fxge_q[i].ended | bits, __ATOMIC_RELEASE);
}

/* Under fxg_kernel: a client goes idle (asleep, or finished). When that
 * leaves none running and some still asleep, time passes (the tick): to
 * the earliest deadline of the sleeps, which end, at most FXGE_TICKS
 * times an execution. No deadline, or no tick left: nothing ends them. */
static void fxge_idle_locked(void)
{
    if (++fxge_idle < fxge_clients || fxge_finished == fxge_clients)
        return;
    if (fxge_quiet != NULL)
        fxge_quiet();
    if (fxge_ticks == FXGE_TICKS)
        return;
    int64_t d = -1;
    for (int i = 0; i < fxge_nq; i++)
        if (fxge_q[i].word[1] != NULL && fxge_q[i].ended == 0 && fxge_q[i].deadline >= 0 &&
            (d < 0 || fxge_q[i].deadline < d))
            d = fxge_q[i].deadline;
    if (d < 0)
        return;
    fxge_ticks++;
    __atomic_store_n(&fxge_now, d, __ATOMIC_RELAXED);
    for (int i = 0; i < fxge_nq; i++)
        if (fxge_q[i].word[1] != NULL && fxge_q[i].ended == 0 && fxge_q[i].deadline >= 0 &&
            fxge_q[i].deadline <= d)
            fxge_end_locked(i, 4);
}

/* Under fxg_kernel: up to n wakes of word, oldest sleep first. */
static int fxge_wake_locked(const void *word, int n)
{
    int woke = 0;
    for (int i = 0; i < fxge_nq && woke < n; i++)
        for (int k = 0; k < 2; k++)
            if (fxge_q[i].word[k] == word && !(fxge_q[i].ended & (1 << k)) && woke < n) {
                fxge_end_locked(i, 1 << k);
                woke++;
            }
    return woke;
}

/* FUTEX_WAKE (any word: the tell words too) */
static int fxge_wake(const void *word, int n)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the kernel's smp_mb() */
    pthread_mutex_lock(&fxg_kernel);
    int woke = fxge_wake_locked(word, n);
    pthread_mutex_unlock(&fxg_kernel);
    return woke;
}

/* A sleep on w1 (and w0 unless NULL): FXGE_WOKEN0 or FXGE_WOKEN1 (woken:
 * the highest index woken), EAGAIN or ETIMEDOUT. (No out-parameter: GenMC
 * 0.10.3 takes a local of a later call, given the freed address of a small
 * earlier one, for freed memory.) */
enum { FXGE_WOKEN0 = 1000, FXGE_WOKEN1 };
static int fxge_sleep(const void *w0, uint32_t v0, const void *w1, uint32_t v1,
                      const struct timespec *deadline)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the kernel's smp_mb() */
    pthread_mutex_lock(&fxg_kernel);
    assert(++fxge_calls < 4 * FXGE_QUEUE && "model: a loop of futex calls");
    /* Relaxed: the bucket lock and the fence order them. */
    if ((w0 != NULL && __atomic_load_n((const uint32_t *)w0, __ATOMIC_RELAXED) != v0) ||
        __atomic_load_n((const uint32_t *)w1, __ATOMIC_RELAXED) != v1) {
        pthread_mutex_unlock(&fxg_kernel);
        return EAGAIN;
    }
    int64_t d = deadline == NULL ? -1 : fxi_ts_ns(deadline);
    if (deadline != NULL && (deadline->tv_sec < 0 || d <= __atomic_load_n(&fxge_now, __ATOMIC_RELAXED))) {
        pthread_mutex_unlock(&fxg_kernel);
        return ETIMEDOUT;
    }
    int i = fxge_nq++;
    assert(i < FXGE_QUEUE && "model: raise FXGE_QUEUE");
    fxge_q[i].word[0] = w0;
    fxge_q[i].word[1] = w1;
    fxge_q[i].deadline = d;
    if (w0 != NULL) {
        fxge_waitvs++;
        fxge_wake_locked(&fxge_waitvs, 8);
    }
    fxge_idle_locked();
    pthread_mutex_unlock(&fxg_kernel);
    int e;
    for (__VERIFIER_loop_begin();
         __VERIFIER_spin_start(), e = __atomic_load_n(&fxge_q[i].ended, __ATOMIC_ACQUIRE),
         __VERIFIER_spin_end(e != 0), e == 0;)
        ;
    pthread_mutex_lock(&fxg_kernel);
    e = fxge_q[i].ended; /* a wake may have come since the timer */
    fxge_q[i].word[0] = fxge_q[i].word[1] = NULL;
    pthread_mutex_unlock(&fxg_kernel);
    if (!(e & 3))
        return ETIMEDOUT;
    return (e & 2) ? FXGE_WOKEN1 : FXGE_WOKEN0;
}

/* The harness: fxge_start(n) before its n client threads (it counts them),
 * fxge_stop() after joining them; each client calls fxge_finish() last. */
static inline void fxge_start(int n)
{
    fxge_clients = n;
}
static inline void fxge_stop(void)
{
}
static inline void fxge_finish(void)
{
    pthread_mutex_lock(&fxg_kernel);
    fxge_finished++;
    fxge_idle_locked();
    pthread_mutex_unlock(&fxg_kernel);
}
/* Returns once n futex_waitv sleeps were queued (asleep meanwhile). */
static inline void fxge_await_waitvs(int n)
{
    for (;;) {
        pthread_mutex_lock(&fxg_kernel);
        int32_t c = fxge_waitvs;
        pthread_mutex_unlock(&fxg_kernel);
        if (c >= n)
            return;
        fxge_sleep(NULL, 0, &fxge_waitvs, (uint32_t)c, NULL);
    }
}

/* The futex layer (src/internal/futex.h) as src/futex.c answers. */
static int fxge_wait_raw(int32_t *word, int32_t expected, const struct timespec *deadline,
                         uint32_t bitset)
{
    assert(bitset == FXI_BITSET_ANY);
    int r = fxge_sleep(NULL, 0, word, (uint32_t)expected, deadline);
    return r >= FXGE_WOKEN0 ? 0 : r;
}
#define fxi_futex_wait_raw fxge_wait_raw
int fxi_futex_wait2_raw(int32_t *word, int32_t expected, uint32_t *handoff, uint32_t h,
                        const struct timespec *deadline, bool *by_handoff)
{
    if (fxge_waitv_refused)
        return ENOSYS;
    int r = fxge_sleep(handoff, h, word, (uint32_t)expected, deadline);
    *by_handoff = r == FXGE_WOKEN0;
    return r >= FXGE_WOKEN0 ? 0 : r;
}
int fxi_futex_wait_private(uint32_t *word, uint32_t expected)
{
    int r = fxge_sleep(NULL, 0, word, expected, NULL);
    return r >= FXGE_WOKEN0 ? 0 : r;
}
int fxi_futex_wake_private(uint32_t *word, int count)
{
    return fxge_wake(word, count);
}

/* Time */
static inline int fxge_clock_gettime(clockid_t c, struct timespec *t)
{
    (void)c;
    int64_t now = __atomic_load_n(&fxge_now, __ATOMIC_RELAXED);
    t->tv_sec = (time_t)(now / 1000000000);
    t->tv_nsec = (long)(now % 1000000000);
    return 0;
}
#undef clock_gettime
#define clock_gettime(c, t) fxge_clock_gettime((c), (t))
#undef fxi_ns_ts
#define fxi_ns_ts(ns)                                                                       \
    ((struct timespec){.tv_sec = (time_t)((ns) / 1000000000), .tv_nsec = (long)((ns) % 1000000000)})

/* The scope check's pagemap (word_private) */
static inline long fxge_sysconf(int name)
{
    (void)name;
    return 4096;
}
#undef sysconf
#define sysconf(n) fxge_sysconf(n)
#ifndef _SC_PAGESIZE
#define _SC_PAGESIZE 30
#endif
#ifndef AT_FDCWD
#define AT_FDCWD (-100)
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 02000000
#endif
static long fxge_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
    (void)a, (void)c, (void)d, (void)e, (void)f;
    if (nr == SYS_openat)
        return FXGE_PAGEMAP == 2 ? -ENOENT : 3;
    if (nr == SYS_close)
        return 0;
    assert(nr == SYS_preadv && "model: a system call sleep.c does not make");
    struct iovec *iov = (struct iovec *)(uintptr_t)b;
    *(uint64_t *)iov->iov_base = FXGE_PAGEMAP == 1 ? 1ull << 63 : 1ull << 63 | 1ull << 61;
    return 8;
}
#define fxi_syscall fxge_syscall
#define FXI_INTERNAL_SYSCALL_H /* the real fxi_syscall is not compiled */

/* The rest of sleep.c's environment */
bool fxi_wipe_at_fork(void *page, size_t size)
{
    (void)page, (void)size;
    return true;
}
static inline int fxge_once(pthread_once_t *o, void (*f)(void))
{
    if (*o == 0) {
        *o = 1;
        f();
    }
    return 0;
}
#undef pthread_once
#define pthread_once fxge_once
static inline int fxge_id_probe(uint32_t owner)
{
    assert(owner < 8);
    return __atomic_load_n(&fxge_dead[owner], __ATOMIC_RELAXED) ? FXI_TID_DEAD : FXI_TID_ALIVE;
}
#define fxi_id_probe fxge_id_probe
#define fxi_ann_own_words(p, n) ((void)(p), (void)(n))
#ifndef PTHREAD_CANCEL_ASYNCHRONOUS
#define PTHREAD_CANCEL_ASYNCHRONOUS 1
#endif
#define pthread_setcanceltype(t, o) (*(o) = (t), 0)
#define fxi_recheck_end_slow fxge_unused_recheck_end_slow
/* sleep.c's own, under names the model's (above) do not hold; the harness
 * calls them through the same macros. */
#define fxi_futex_sleep fxge_engine_sleep
#define fxi_futex_sleep_cancel fxge_engine_sleep_cancel
#endif /* FXG_ENGINE */
/* ==== FXG_ENGINE ==== (end) */

#endif /* FXG_MODEL_H */
