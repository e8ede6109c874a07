/*
 * tests/genmc/rmutex_death.c - fx_rmutex's owner death and take-over
 * (src/rmutex.c, src/rmutex_watch.c) under GenMC.
 *
 * Thread 1 (the owner) locks the rmutex, writes the protected data (plain)
 * and dies holding it (model.h, "Owner death"). NW waiters (default 2,
 * TIDs 2..NW+1) start once it holds the rmutex and lock it, each once, so
 * any of them may sleep on the word before the death, or come after it.
 * Who frees the dead owner's word:
 *   default          the owner is of the kind the kernel reports (its
 *                    identity word is its TID): the model's kernel thread
 *                    marks the word ORPHANED, keeping W, and wakes one
 *                    sleeper if W was set (the robust-list walk); the
 *                    next acquirer takes ORPHANED with EOWNERDEAD;
 *   -DFXG_PROBED     every thread is PROBED (no robust list): nobody marks
 *                    the word; the waiters' liveness watch (its re-check
 *                    falls due once the owner is dead) probes the owner
 *                    and takes the word over from the dead TID with
 *                    EOWNERDEAD;
 *   -DRECOVER        besides, a supervisor (TID NW+2) that has seen the
 *                    owner die calls fx_rmutex_recover(m, 1): 0 (it made
 *                    the word ORPHANED and woke one sleeper) or EPERM (a
 *                    waiter or the kernel was first);
 *   -DNO_CONSISTENT  the EOWNERDEAD taker unlocks without
 *                    fx_rmutex_consistent: the word becomes NOTRECOVERABLE
 *                    and every other waiter gets ENOTRECOVERABLE;
 *   -DCOND           (with NO_CONSISTENT) instead of unlocking, the taker
 *                    waits on an fx_cond with the inconsistent rmutex
 *                    (src/cond.c): ENOTRECOVERABLE at once, the rmutex
 *                    released as NOTRECOVERABLE (as POSIX asks).
 * (NO_CONSISTENT, not NOTREC: src/internal/rmutex_word.h defines NOTREC.)
 * Checks: exactly one EOWNERDEAD overall, and it is the first acquisition
 * after the death; the taker sees the dead owner's writes (GenMC reports a
 * race on the plain data otherwise, and the value is asserted), repairs
 * them and makes the rmutex consistent; every later owner sees the repair;
 * no two owners (an owner count asserted 0 on entry, a plain counter, and
 * fx_rmutex_owner naming the caller inside); nobody hangs (--check-liveness:
 * a waiter asleep on a dead owner's word that nobody marks, wakes or
 * judges is reported); the word ends FREE (NOTREC with -DNO_CONSISTENT).
 */
#include "model.h"

#include "src/rmutex.c"
#ifdef FXG_PROBED
#include "src/rmutex_watch.c"
#endif
#ifdef COND
#include "src/cond.c"
static fx_cond c;
#endif

#ifndef NW
#define NW 2
#endif
#define OWNER 1

static fx_rmutex m;
static int holds;   /* the owner holds m: the waiters start */
static int owners;  /* atomic, relaxed: a witness */
static int counter; /* plain: acquisitions */
static int data;    /* plain: 1 the dead owner's, 2 repaired */
static int eod;     /* atomic: EOWNERDEAD returns */
static int notrec;  /* atomic: ENOTRECOVERABLE returns */

static void enter(uint32_t me)
{
    assert(__atomic_fetch_add(&owners, 1, __ATOMIC_RELAXED) == 0);
    assert(fx_rmutex_owner(&m) == (pid_t)me);
    counter++;
}

static void leave(void)
{
    __atomic_fetch_sub(&owners, 1, __ATOMIC_RELAXED);
}

static void *owner(void *arg)
{
    (void)arg;
    fxg_thread_start(OWNER);
    assert(fx_rmutex_lock(&m) == 0);
    __atomic_store_n(&holds, 1, __ATOMIC_RELEASE);
    enter(OWNER);
    data = 1;
    leave();
    fxg_die(OWNER); /* holding m */
    return NULL;
}

static void *waiter(void *arg)
{
    uint32_t me = (uint32_t)(intptr_t)arg + 2;
    fxg_thread_start(me);
    fxg_await(&holds);
    int r = fx_rmutex_lock(&m);
    if (r == ENOTRECOVERABLE) {
        assert((uint32_t)__atomic_load_n(&m.owner, __ATOMIC_RELAXED) == NOTREC);
        __atomic_fetch_add(&notrec, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    assert(r == 0 || r == EOWNERDEAD);
    enter(me);
    if (r == EOWNERDEAD) {
        assert(__atomic_fetch_add(&eod, 1, __ATOMIC_RELAXED) == 0);
        assert(data == 1); /* the dead owner's state, to repair */
        data = 2;
#ifndef NO_CONSISTENT
        assert(fx_rmutex_consistent(&m) == 0);
#endif
    } else {
        /* Not first after the death: the taker came before, and repaired. */
        assert(__atomic_load_n(&eod, __ATOMIC_RELAXED) == 1);
        assert(data == 2);
    }
    leave();
#ifdef COND
    assert(fx_cond_wait_rmutex(&c, &m) == ENOTRECOVERABLE);
    assert(c.waiters == 0);
#else
    assert(fx_rmutex_unlock(&m) == 0);
#endif
    return NULL;
}

#ifdef RECOVER
static void *supervisor(void *arg)
{
    (void)arg;
    fxg_thread_start(NW + 2);
    fxg_await(&fxg_dead[OWNER]); /* it reaped the owner */
    int r = fx_rmutex_recover(&m, OWNER);
    assert(r == 0 || r == EPERM);
    return NULL;
}
#endif

int main(void)
{
    pthread_t o, w[NW];
    pthread_create(&o, NULL, owner, NULL);
#ifndef FXG_PROBED
    fxg_kernel_start(OWNER, &m.owner);
#endif
#ifdef RECOVER
    pthread_t s;
    pthread_create(&s, NULL, supervisor, NULL);
#endif
    fxg_spawn(w, NW, waiter);
    pthread_join(o, NULL);
    fxg_join(w, NW);
#ifndef FXG_PROBED
    fxg_kernel_join();
#endif
#ifdef RECOVER
    pthread_join(s, NULL);
#endif
    assert(eod == 1);
#ifdef NO_CONSISTENT
    assert(notrec == NW - 1);
    assert(counter == 2);
    assert((uint32_t)m.owner == NOTREC);
#else
    assert(notrec == 0);
    assert(counter == 1 + NW);
    assert(m.owner == 0);
#endif
    return 0;
}
