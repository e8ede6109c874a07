/*
 * src/once.c - run an initialiser exactly once.
 *
 * The state word (the design; keep it true)
 *
 *   value                    name      meaning
 *   0                        NOT_RUN   nobody has run the initialiser to the end
 *   1                        DONE      it has returned: callers return at once
 *   RUNNING | tid            RUNNING   thread `tid` (kernel TID) is running it;
 *                                      tid is an identity word: the TID
 *                                      | LOCALNS unless its process proved it
 *                                      runs in the initial PID namespace
 *   RUNNING | WAITERS | tid            ... and callers may sleep on the word
 *   other                    -         never written by the library -> EINVAL
 *
 *   transition                          by                      system call
 *   0 -> RUNNING|me (CAS)               first caller            none
 *   RUNNING|t -> +WAITERS (CAS)         caller about to sleep   FUTEX_WAIT
 *   RUNNING|me[|W] -> DONE (exchange)   initialiser returned    FUTEX_WAKE(all)
 *                                                               if W was set
 *   RUNNING|me[|W] -> 0 (exchange)      initialiser's thread    FUTEX_WAKE(all)
 *                                       exits, is cancelled or  if W was set
 *                                       unwound by a C++
 *                                       exception (cleanup
 *                                       handler)
 *   RUNNING|t|W -> RUNNING|me|W (CAS)   waiter that found t     none
 *                                       dead (never when t or
 *                                       me has LOCALNS: the
 *                                       probe says unknown),
 *                                       taking over
 *   RUNNING|me[|W] -> RUNNING|me[|W]    a caller whose TID is   none
 *     (CAS, same value)                 in the word but that is
 *                                       not running o's
 *                                       initialiser: taking over
 *   RUNNING|t[|W] -> 0 (CAS from the    fx_once_recover (a      FUTEX_WAKE(all)
 *     exact value)                      supervisor that knows   if W was set
 *                                       t is gone)
 *
 * Invariant: while callers sleep on the word, WAITERS is set in it and the
 * word still names the running initialiser, or that initialiser's thread is
 * about to put DONE or NOT_RUN with an exchange that sees WAITERS and wakes.
 * Every sleep is bounded by an absolute check time (FX_ONCE_CHECK_MS) that
 * ends in a liveness check of the TID. EDEADLK only from inside the caller's
 * own initialiser (its per-thread record), never for a TID alone.
 *
 * Why it works (no lost wake-up, dead initialisers, recursion and reused
 * TIDs, memory order): docs/design/once.md.
 */
#include "futexsync/once.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "futexsync/time.h"
#include "internal/annotate.h"
#include "internal/deadline.h"
#include "internal/fault.h"
#include "internal/futex.h"
#include "internal/identity.h"

enum {
    NOT_RUN = FX_ONCE_NOT_RUN,
    DONE = FX_ONCE_DONE,
    RUNNING = FX_ONCE_RUNNING,
    TID_MASK = FX_ONCE_TID_MASK,
    LOCALNS = FX_ONCE_LOCALNS,
};
_Static_assert(FX_ONCE_LOCALNS == FXI_ID_LOCALNS && FX_ONCE_TID_MASK == FXI_ID_TID_MASK,
               "the state word holds the identity word of src/internal/identity.h");
#define WAITERS FX_ONCE_WAITERS

static inline bool once_valid(int32_t s)
{
    if (s & RUNNING)
        return (s & TID_MASK) != 0 && (s & ~(RUNNING | WAITERS | LOCALNS | TID_MASK)) == 0;
    return s == NOT_RUN || s == DONE;
}

/* Publishes `to` (DONE or NOT_RUN) and wakes the sleepers, if any. */
static void once_finish(fx_once *o, int32_t to)
{
    /* Release: the initialiser's writes happen-before the acquire load of
     * every caller that sees DONE (or of the next initialiser, for 0). */
    int32_t old = __atomic_exchange_n(&o->state, to, __ATOMIC_RELEASE);
    if (old & WAITERS)
        fxi_futex_wake_raw(&o->state, INT32_MAX, FX_BITSET_ANY);
}

static void once_run(fx_once *o, int32_t me, void (*fn)(void *), void *arg);
static void once_abandon(void *p);

/* Cleanup handler: the initialiser's thread exits or is cancelled inside it,
 * or a C++ exception unwinds out of it (the library is built with
 * -fexceptions). The innermost running initialiser is o: it leaves the
 * record, and the flag is free for the next caller. */
static void once_abandon(void *p)
{
    fxi_once_abandon();
    once_finish(p, NOT_RUN);
}

static void once_run(fx_once *o, int32_t me, void (*fn)(void *), void *arg)
{
    /* The record of the initialisers this thread runs (src/identity.c). */
    uint32_t depth = fxi_once_enter(o, (uint32_t)me);
    pthread_cleanup_push(once_abandon, o);
    fn(arg);
    pthread_cleanup_pop(0);
    fxi_once_leave(depth);
    if (fxi_ann_on())
        fxi_ann_happens_before(o);
    once_finish(o, DONE);
}

__attribute__((noinline, cold)) static int once_slow(fx_once *o, void (*fn)(void *), void *arg)
{
    int32_t me = (int32_t)fxi_id_for_once();
    /* One absolute liveness schedule for the whole call. */
    struct fxi_recheck rc FXI_RECHECK_CALL = FX_RECHECK_INIT(FX_ONCE_CHECK_MS * FX_NSEC_PER_MSEC);
    /* Acquire: a caller that sees DONE sees what the initialiser wrote. */
    int32_t s = __atomic_load_n(&o->state, __ATOMIC_ACQUIRE);
    for (;;) {
        if (s == DONE)
            return 0;
        if (s == NOT_RUN) {
            /* Acquire on success: a re-run sees what an abandoned attempt
             * wrote. On failure s is reloaded, with acquire for DONE. */
            if (__atomic_compare_exchange_n(&o->state, &s, RUNNING | me, false,
                                            __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
                once_run(o, me, fn, arg);
                return 0;
            }
            continue;
        }
        if (!once_valid(s))
            return EINVAL;
        int32_t owner = s & (TID_MASK | LOCALNS); /* its identity word */
        bool dead = false;
        if (owner == me) {
            if (fxi_once_inside(o, (uint32_t)me))
                return EDEADLK;
            /* Our TID, but not our initialiser: the thread that had the TID
             * before us died inside it -- when the TID names the same task for
             * every caller (the initial PID namespace, no LOCALNS); else
             * unknown: alive. */
            dead = !(me & LOCALNS);
        } else if (rc.tick.tv_nsec >= 0) {
            /* After a sleep: is the liveness check due? The schedule is
             * absolute (rc.tick), so signals and spurious wakes that end
             * sleeps early cannot put it off. */
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            dead = !fxi_ts_before(&now, &rc.tick) &&
                   fxi_id_probe((uint32_t)owner) == FXI_TID_DEAD;
        }
        if (dead) {
            FX_FAULT("once.takeover");
            /* Take over from the dead thread, keeping WAITERS for the
             * others; the CAS fails if anything changed meanwhile (then s is
             * reloaded and judged afresh). */
            if (__atomic_compare_exchange_n(&o->state, &s, RUNNING | (s & WAITERS) | me, false,
                                            __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
                once_run(o, me, fn, arg);
                return 0;
            }
            continue;
        }
        if (!(s & WAITERS)) {
            /* Acquire (both ways): the bit itself only asks for a wake, but
             * a failure reloads s, which may be DONE. */
            if (!__atomic_compare_exchange_n(&o->state, &s, s | WAITERS, false,
                                             __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
                continue;
            s |= WAITERS;
        }
        /* Woken, the word changed, a signal, or the recheck is due: look
         * again (no caller deadline, so never ETIMEDOUT). */
        (void)fxi_futex_sleep(&o->state, s, NULL, &rc);
        s = __atomic_load_n(&o->state, __ATOMIC_ACQUIRE);
    }
}

/* fx_once_call under a race detector. */
__attribute__((noinline, cold)) static int once_call_announced(fx_once *o, void (*fn)(void *),
                                                              void *arg)
{
    fxi_ann_own_words(o, sizeof *o);
    /* Acquire, as in fx_once_call. */
    if (__atomic_load_n(&o->state, __ATOMIC_ACQUIRE) != DONE) {
        int r = once_slow(o, fn, arg);
        if (r != 0)
            return r;
    }
    fxi_ann_happens_after(o);
    return 0;
}

int fx_once_call(fx_once *o, void (*fn)(void *), void *arg)
{
    if (fxi_bad_slot(o) || fn == NULL)
        return EINVAL;
    /* Acquire: pairs with the release that published DONE. A reader needs
     * no marking of the word for Helgrind and DRD before it (only
     * fxi_ann_own_words before a write does). */
    if (__atomic_load_n(&o->state, __ATOMIC_ACQUIRE) == DONE &&
        !fxi_ann_on()) /* one look at the race-detector probe */
        return 0;
    return fxi_ann_on() ? once_call_announced(o, fn, arg) : once_slow(o, fn, arg);
}

/* RUNNING|t[|W] -> NOT_RUN (CAS from the exact value seen), by a supervisor
 * that knows t is dead (fx_worker); FUTEX_WAKE(all) if W was set. */
int fx_once_recover(fx_once *o, pid_t dead_tid)
{
    if (fxi_bad_slot(o) || dead_tid <= 0 || dead_tid > TID_MASK)
        return EINVAL;
    /* Relaxed: a guess for the CAS, which synchronizes. */
    int32_t s = __atomic_load_n(&o->state, __ATOMIC_RELAXED);
    for (;;) {
        if (!once_valid(s))
            return EINVAL;
        if (!(s & RUNNING) || (s & TID_MASK) != (int32_t)dead_tid)
            return EPERM;
        /* From the exact value seen: a waiter taking over from the same dead
         * thread at the same time and we cannot both win, and a word that
         * names the TID again after a recovery is judged afresh. Release on
         * success: what the caller repaired reaches the next initialiser,
         * whose CAS from NOT_RUN acquires; acquire as well, as rmutex's
         * recover, for what the dead thread wrote before it died. On failure
         * s is reloaded (relaxed: it is judged again, and only the next CAS
         * publishes anything). */
        /* @step once.recover.cas */
        if (__atomic_compare_exchange_n(&o->state, &s, NOT_RUN, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            /* Every sleeper looks again: one of them runs the initialiser. */
            if (s & WAITERS)
                fxi_futex_wake_raw(&o->state, INT32_MAX, FX_BITSET_ANY);
            return 0;
        }
    }
}
