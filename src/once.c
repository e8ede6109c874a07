/*
 * src/once.c - run an initialiser exactly once.
 *
 * The state word (the design; keep it true). me/t are identity words:
 * the TID alone for a thread on its robust list (the kernel reports its
 * death: src/internal/robust.h), else TID | P | L-unless-initial-namespace.
 *
 *   value                    name       meaning
 *   0                        NOT_RUN    nobody has run the initialiser to the end
 *   0x80000000               DONE       it has returned: callers return at once
 *   RUNNING | t              RUNNING    thread t is running it; with no P, o is
 *                                       in t's robust list
 *   RUNNING (no t)           ABANDONED  t died inside it; the kernel marked the
 *                                       word: as NOT_RUN, W kept
 *   ... | WAITERS            (RUNNING, ABANDONED) callers may sleep on the word
 *   other                    -          never written by the library -> EINVAL
 *
 *   transition                          by                      system call
 *   0 or ABANDONED[|W] ->               first caller (keeps W)  none
 *     RUNNING|me[|W] (CAS), then o linked in me's list
 *   RUNNING|t -> +WAITERS (CAS)         caller about to sleep   FUTEX_WAIT
 *   RUNNING|me[|W] -> DONE (exchange)   initialiser returned    FUTEX_WAKE(all)
 *     after o is unlinked                                       if W was set
 *   RUNNING|me[|W] -> 0 (exchange)      initialiser's thread    FUTEX_WAKE(all)
 *     after o is unlinked               exits, is cancelled or  if W was set
 *                                       unwound by a C++
 *                                       exception (cleanup
 *                                       handler)
 *   RUNNING|t[|W] -> ABANDONED[|W]      the kernel, at t's      FUTEX_WAKE(1) if W
 *                                       death or exec (t no P)
 *   RUNNING|t|W -> RUNNING|me|W (CAS)   waiter that found a     none
 *                                       PROBED t dead (never
 *                                       when t or the caller's
 *                                       process has LOCALNS)
 *   RUNNING|t[|W] -> RUNNING|me[|W]     a caller whose TID is   none
 *     (CAS)                             in a PROBED word but
 *                                       that is not running o's
 *                                       initialiser: taking over
 *   RUNNING|t[|W] -> 0 (CAS from the    fx_once_recover (a      FUTEX_WAKE(all)
 *     exact value)                      supervisor that knows   if W was set
 *                                       t is gone)
 *
 * Invariant: while callers sleep on the word, WAITERS is set in it and the
 * word still names the running initialiser, or that initialiser's thread is
 * about to put DONE or NOT_RUN with an exchange that sees WAITERS and wakes,
 * or the kernel has marked it ABANDONED and woken one of them, who runs the
 * initialiser (or, dying, has the kernel wake another through its
 * list_op_pending). A caller woken to find DONE wakes the others again: the
 * kernel wakes only one when the initialiser's thread dies between its
 * exchange and its wake. A sleep on a word naming t without P is untimed;
 * on a PROBED t it is bounded by an absolute check time (FXI_ONCE_CHECK_MS)
 * that ends in a liveness check of t. EDEADLK only from inside the caller's
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
#include "futexsync/layout.h"
#include "internal/annotate.h"
#include "internal/deadline.h"
#include "internal/fault.h"
#include "internal/futex.h"
#include "internal/sleep.h"
#include "internal/identity.h"
#include "internal/probe_periods.h"
#include "internal/robust.h"

enum {
    NOT_RUN = FX_ONCE_NOT_RUN,
    DONE = FX_ONCE_DONE,
    RUNNING = FX_ONCE_RUNNING,
    TID_MASK = FX_ONCE_TID_MASK,
    LOCALNS = FX_ONCE_LOCALNS,
    PROBED = FX_ONCE_PROBED,
};
_Static_assert(FX_ONCE_LOCALNS == FXI_ID_LOCALNS && FX_ONCE_PROBED == FXI_ID_PROBED &&
                   FX_ONCE_TID_MASK == FXI_ID_TID_MASK,
               "the state word holds the identity word of src/internal/identity.h");
_Static_assert(FX_ONCE_RUNNING == FUTEX_OWNER_DIED && FX_ONCE_WAITERS == (int32_t)FUTEX_WAITERS,
               "the kernel's mark of a dead initialiser is ABANDONED");
#define WAITERS FX_ONCE_WAITERS

static inline bool once_valid(int32_t s)
{
    if (s & RUNNING) {
        int32_t id = s & ~(RUNNING | WAITERS);
        if (id == 0)
            return true; /* ABANDONED */
        if ((id & LOCALNS) && !(id & PROBED))
            return false;
        return (id & TID_MASK) != 0 && (id & ~(LOCALNS | PROBED | TID_MASK)) == 0;
    }
    return s == NOT_RUN || s == DONE;
}

/* The robust list of a thread of identity me (src/identity.c learned both). */
static inline struct robust_list_head *once_list(int32_t me)
{
    return (me & PROBED) ? NULL : fxi_self.rl;
}

/* o's entry in list_op_pending (e NULL: none), where me has a list. */
static inline void once_pending(int32_t me, const fx_once *o)
{
    struct robust_list_head *h = once_list(me);
    if (h != NULL)
        fxi_rl_pending(h, o != NULL ? fxi_rl_entry_of((void **)o->link) : NULL);
}

/* Publishes `to` (DONE or NOT_RUN) and wakes the sleepers, if any: o leaves
 * me's robust list first (under list_op_pending), so that no entry names a
 * word others may reuse. */
static void once_finish(fx_once *o, int32_t me, int32_t to)
{
    struct robust_list_head *h = once_list(me);
    if (h != NULL) {
        fxi_rl_pending(h, fxi_rl_entry_of(o->link));
        fxi_rl_unlink_slots(h, o->link);
    }
    /* Release: the initialiser's writes happen-before the acquire load of
     * every caller that sees DONE (or of the next initialiser, for 0). */
    int32_t old = __atomic_exchange_n(&o->state, to, __ATOMIC_RELEASE);
    if (old & WAITERS)
        fxi_futex_wake_raw(&o->state, INT32_MAX, FXI_BITSET_ANY);
    if (h != NULL)
        fxi_rl_pending(h, NULL);
}

/* Cleanup handler: the initialiser's thread exits or is cancelled inside it,
 * or a C++ exception unwinds out of it (the library is built with
 * -fexceptions). The innermost running initialiser is o: it leaves the
 * record, and the flag is free for the next caller. */
static void once_abandon(void *p)
{
    fxi_once_abandon();
    once_finish(p, (int32_t)fxi_id(), NOT_RUN); /* this thread's identity, as at the start */
}

/* Runs fn once the caller's CAS made the word RUNNING|me (under
 * list_op_pending): links o into me's robust list first. */
static void once_run(fx_once *o, int32_t me, void (*fn)(void *), void *arg)
{
    struct robust_list_head *h = once_list(me);
    if (h != NULL) {
        fxi_rl_link_slots(h, o->link); /* the kernel may now mark the word */
        fxi_rl_pending(h, NULL);
    }
    /* The record of the initialisers this thread runs (src/identity.c). */
    uint32_t depth = fxi_once_enter(o, (uint32_t)me);
    pthread_cleanup_push(once_abandon, o);
    fn(arg);
    pthread_cleanup_pop(0);
    fxi_once_leave(depth);
    if (fxi_ann_on())
        fxi_ann_happens_before(o);
    once_finish(o, me, DONE);
}

/* once_slow's result, list_op_pending taken back first. */
static inline int once_leave(int32_t me, int r)
{
    once_pending(me, NULL);
    return r;
}

/* The PROBED initialiser named in an fx_once word, for the process's
 * prober (src/sleep.c), or 0. */
static uint32_t once_word_owner(const int32_t *word)
{
    /* Relaxed: a hint; the caller told judges the value it reads. */
    int32_t v = __atomic_load_n(word, __ATOMIC_RELAXED);
    return v != DONE && (v & RUNNING) && (v & PROBED) ? (uint32_t)(v & (TID_MASK | LOCALNS | PROBED))
                                                     : 0;
}

/* A sleep on a word naming a PROBED initialiser: the first check is due
 * FXI_ONCE_CHECK_MS after the first sleep, on the caller's own schedule;
 * after it, the process's prober looks (src/sleep.c), and *check is due
 * when it tells. Where the prober cannot be used, every check is the
 * caller's, every FXI_ONCE_CHECK_MS on the recheck grid. Returns whether a
 * FUTEX_WAKE ended the sleep. */
static bool once_sleep_probed(fx_once *o, int32_t s, struct timespec *check)
{
    const int64_t period = FXI_ONCE_CHECK_MS * FX_NSEC_PER_MSEC;
    bool first = check->tv_nsec < 0 && check->tv_sec == 0;
    if (!first) {
        bool judge;
        int r = fxi_futex_sleep_probed(&o->state, s, once_word_owner, NULL, &judge);
        if (r != ENOSYS) {
            /* Due now when told; else not until told (tv_sec 1 marks it). */
            *check = judge ? (struct timespec){0, 0} : (struct timespec){1, -1};
            return r == 0 && !judge;
        }
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (check->tv_nsec < 0 || !fxi_ts_before(&now, check))
        *check = fxi_ns_ts(fxi_recheck_grid(fxi_ts_ns(&now), period));
    return fxi_futex_wait_raw(&o->state, s, check, FXI_BITSET_ANY) == 0;
}

__attribute__((noinline, cold)) static int once_slow(fx_once *o, void (*fn)(void *), void *arg)
{
    int32_t me = (int32_t)fxi_id();
    /* The liveness check of a PROBED initialiser: due at `check` (absolute,
     * so signals and spurious wakes cannot postpone it); tv_nsec < 0: not
     * due until the process's prober tells (or before the first sleep). */
    struct timespec check = {0, -1};
    bool woken = false; /* the last sleep ended by a FUTEX_WAKE */
    /* A death from here on, between a CAS and the link or after a consumed
     * wake, is told to the next caller by the kernel. */
    once_pending(me, o);
    /* Relaxed, as every look at the word below and the failure order of
     * every CAS: the acquire re-read where DONE is seen orders them all, so
     * no path depends on a CAS's failure order (which GenMC does not check). */
    int32_t s = __atomic_load_n(&o->state, __ATOMIC_RELAXED);
    for (;;) {
        if (s == DONE) {
            /* Acquire: the caller sees what the initialiser wrote before its
             * release of DONE, whichever look or failed CAS read DONE. A
             * re-read, not a fence (ThreadSanitizer has no fences): DONE is
             * the word's last value, so it reads DONE from that release.
             * @step once.slow.done_acquire */
            (void)__atomic_load_n(&o->state, __ATOMIC_ACQUIRE);
            /* The kernel wakes one caller when the initialiser's thread dies
             * between its exchange and its wake: pass it on. */
            if (woken)
                fxi_futex_wake_raw(&o->state, INT32_MAX, FXI_BITSET_ANY);
            return once_leave(me, 0);
        }
        if (!once_valid(s))
            return once_leave(me, EINVAL);
        if (s == NOT_RUN || (s & ~WAITERS) == RUNNING) {
            /* Acquire on success: a re-run sees what an abandoned attempt
             * wrote; W kept for the sleepers of an ABANDONED word. On failure
             * s is reloaded (relaxed: DONE is acquired by the re-read above). */
            if (__atomic_compare_exchange_n(&o->state, &s, RUNNING | (s & WAITERS) | me, false,
                                            __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
                once_run(o, me, fn, arg);
                return 0;
            }
            continue;
        }
        int32_t owner = s & (TID_MASK | LOCALNS | PROBED); /* its identity word */
        bool dead = false;
        if (!(owner & PROBED)) {
            /* The kernel reports this thread's death (ABANDONED): no verdict
             * of ours, even for our own TID, which a thread of another PID
             * namespace may have too -- unless it is our initialiser. */
            if (owner == me && fxi_once_inside(o, (uint32_t)me))
                return once_leave(me, EDEADLK);
        } else if ((owner & TID_MASK) == (me & TID_MASK)) {
            if (owner == me && fxi_once_inside(o, (uint32_t)me))
                return once_leave(me, EDEADLK);
            /* Our TID, but not our initialiser: the thread that had the TID
             * before us died inside it -- when the TID names the same task
             * for every caller (the initial PID namespace); else unknown:
             * alive. */
            dead = fxi_id_comparable((uint32_t)owner);
        } else if (check.tv_nsec >= 0) {
            /* After a sleep: is the liveness check due? */
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            dead = !fxi_ts_before(&now, &check) &&
                   fxi_id_probe((uint32_t)owner) == FXI_TID_DEAD;
        }
        if (dead) {
            FXI_FAULT("once.takeover");
            /* Take over from the dead thread, keeping WAITERS for the
             * others; the CAS fails if anything changed meanwhile (then s is
             * reloaded, relaxed, and judged afresh). */
            if (__atomic_compare_exchange_n(&o->state, &s, RUNNING | (s & WAITERS) | me, false,
                                            __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
                once_run(o, me, fn, arg);
                return 0;
            }
            continue;
        }
        if (!(s & WAITERS)) {
            /* Relaxed (both ways): the bit only asks for a wake; a failure
             * reloads s, which may be DONE (acquired by the re-read above). */
            if (!__atomic_compare_exchange_n(&o->state, &s, s | WAITERS, false,
                                             __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                continue;
            s |= WAITERS;
        }
        /* Woken, the word changed, a signal, or the check is due: look
         * again (no caller deadline, so never ETIMEDOUT). Any owner but a
         * PROBED one is slept on untimed: the kernel reports its death. */
        if (owner & PROBED)
            woken = once_sleep_probed(o, s, &check);
        else
            woken = fxi_futex_wait_raw(&o->state, s, NULL, FXI_BITSET_ANY) == 0;
        s = __atomic_load_n(&o->state, __ATOMIC_RELAXED); /* as the first look */
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

/* A NULL o, or one not aligned as its type (the link slots are pointers). */
static inline bool once_bad(const fx_once *o)
{
    return o == NULL || ((uintptr_t)o & (_Alignof(fx_once) - 1)) != 0;
}

int fx_once_call(fx_once *o, void (*fn)(void *), void *arg)
{
    if (once_bad(o) || fn == NULL)
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
    if (once_bad(o) || dead_tid <= 0 || dead_tid > TID_MASK)
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
         * publishes anything). @step once.recover.cas */
        if (__atomic_compare_exchange_n(&o->state, &s, NOT_RUN, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            /* Every sleeper looks again: one of them runs the initialiser. */
            if (s & WAITERS)
                fxi_futex_wake_raw(&o->state, INT32_MAX, FXI_BITSET_ANY);
            return 0;
        }
    }
}
