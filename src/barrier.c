/*
 * src/barrier.c - the reusable barrier.
 *
 * The state word (the design; keep it true)
 *
 *   bits     name      meaning
 *   0..14    A         arrivals in the current round, 0 .. parties - 1
 *   15       S         waiters may sleep on the word: the round's end wakes
 *   16..31   G         the round number, modulo 2^16
 *
 *   The parties slot: 0 (unused) -> P on the first wait (CAS), then fixed.
 *   A >= P, P < 0 or P > MAX: never written -> EINVAL.
 *
 *   transition                          by                    system call
 *   (G, S, A) -> (G, S, A+1)            arrival, not last     none
 *   (G, S, P-1) -> (G+1, 0, 0)          last arrival          FUTEX_WAKE(all)
 *                                                             if S was set
 *   (G, 0, A) -> (G, S, A)              waiter about to sleep FUTEX_WAIT
 *   (G, S, A) -> (G, S, A-1)            timed waiter leaving  none
 *   (none: a re-read of G)              sleeper, at its       its FUTEX_WAIT
 *                                       recheck               ends then
 *
 * Invariant (checked by models/barrier.pml): while a waiter sleeps on the
 * word of a round that has ended, the last arrival is about to wake it (it
 * set G+1 and saw S), or a recheck is due within FXI_RECHECK_NS. S is set by
 * a CAS on the word the last arrival replaces by a CAS, and a waiter leaves
 * when G is no longer its round.
 *
 * Why it works (no lost wake-up, death in the wake window, wrap-around,
 * withdrawal, memory order) and the spin policy: docs/design/barrier.md.
 */
#include "futexsync/barrier.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "futexsync/layout.h"
#include "internal/annotate.h"
#include "internal/deadline.h"
#include "internal/fault.h"
#include "internal/futex.h"
#include "internal/sleep.h"
#include "internal/spin.h"

#ifndef FXI_BARRIER_SPIN
#define FXI_BARRIER_SPIN 1024
#endif
#ifndef FXI_BARRIER_SPIN_MIN
#define FXI_BARRIER_SPIN_MIN 8
#endif

/* This thread's spin budget (see the spin policy). */
static _Thread_local struct fxi_spin barrier_spin = FXI_SPIN_INIT(FXI_BARRIER_SPIN);

#define ARRIVED  0x7fffu
#define SLEEPERS 0x8000u
#define ROUND    0xffff0000u
#define ROUND_1  0x10000u
_Static_assert(SLEEPERS == FX_BARRIER_SLEEPERS && ARRIVED == FX_BARRIER_MAX_PARTIES,
               "the state's bits are futexsync/layout.h's and futexsync/barrier.h's");

static inline uint32_t load_state(fx_barrier *b, int order)
{
    return (uint32_t)__atomic_load_n(&b->state, order);
}

static inline bool cas_state(fx_barrier *b, uint32_t *expected, uint32_t desired, int success)
{
    int32_t e = (int32_t)*expected;
    bool ok = __atomic_compare_exchange_n(&b->state, &e, (int32_t)desired, false, success,
                                          __ATOMIC_RELAXED);
    *expected = (uint32_t)e;
    return ok;
}

int fx_barrier_init(fx_barrier *b)
{
    if (fxi_bad_slot(b))
        return EINVAL;
    /* Relaxed: init happens before any sharing, like a memset. */
    __atomic_store_n(&b->state, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&b->parties, 0, __ATOMIC_RELAXED);
    return 0;
}

/* Records parties on first use, or checks it against the recorded count. */
static int check_parties(fx_barrier *b, int32_t parties)
{
    if (parties < 1 || parties > FX_BARRIER_MAX_PARTIES)
        return EINVAL;
    /* Relaxed: the count is plain data; the state word carries the order. */
    int32_t p = __atomic_load_n(&b->parties, __ATOMIC_RELAXED);
    if (p == 0 && __atomic_compare_exchange_n(&b->parties, &p, parties, false,
                                              __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return 0;
    return p == parties ? 0 : EINVAL; /* a mismatch, or a value never written */
}

/* After arriving (not last) in round `mine`: waits for the round to end. */
static int wait_round(fx_barrier *b, uint32_t mine, const struct timespec *deadline)
{
    /* @step barrier.wait_round.spin */
    int budget = fxi_spin_start(&barrier_spin, FXI_BARRIER_SPIN);
    for (int i = 0; i < budget; i++) {
        /* Acquire: seeing the next round means seeing every party's writes. */
        if ((load_state(b, __ATOMIC_ACQUIRE) & ROUND) != mine) {
            fxi_spin_won(&barrier_spin, FXI_BARRIER_SPIN);
            return 0;
        }
        fxi_cpu_relax();
    }
    fxi_spin_lost(&barrier_spin, FXI_BARRIER_SPIN_MIN);
    struct fxi_recheck rc FXI_RECHECK_CALL = FXI_RECHECK_INIT_SCOPED(FXI_RECHECK_NS);
    /* @step barrier.wait_round.loop */
    for (;;) {
        /* Acquire, as above. @step barrier.wait_round.look */
        uint32_t s = load_state(b, __ATOMIC_ACQUIRE);
        if ((s & ROUND) != mine)
            return 0;
        /* @step barrier.wait_round.mark_sleepers */
        if (!(s & SLEEPERS)) {
            /* Relaxed: S only makes the last arrival wake us; the word is
             * re-read (acquire) after the sleep. */
            if (!cas_state(b, &s, s | SLEEPERS, __ATOMIC_RELAXED))
                continue;
            s |= SLEEPERS;
        }
        /* @step barrier.wait_round.sleep */
        int r = fxi_futex_sleep(&b->state, (int32_t)s, deadline, &rc);
        /* @step barrier.wait_round.woken */
        if (r != ETIMEDOUT)
            continue; /* woken, the word changed, a signal or a recheck: look again */
        /* Timed out: withdraw, unless the round has just ended.
         * @step barrier.wait_round.timed_out */
        for (;;) {
            /* Acquire, as above. @step barrier.wait_round.withdraw_look */
            s = load_state(b, __ATOMIC_ACQUIRE);
            if ((s & ROUND) != mine)
                return 0;
            /* Relaxed: leaving publishes nothing; the round needs one more
             * arrival again. Fails (s reloaded) if anything changed.
             * @step barrier.wait_round.withdraw */
            if (cas_state(b, &s, s - 1, __ATOMIC_RELAXED))
                return ETIMEDOUT;
        }
    }
}

static inline __attribute__((always_inline)) int
barrier_wait(fx_barrier *b, int32_t parties, const struct timespec *deadline)
{
    if (check_parties(b, parties) != 0)
        return EINVAL;
    uint32_t n = (uint32_t)parties;
    /* Relaxed: a guess for the CAS. @step barrier.arrive.load */
    uint32_t s = load_state(b, __ATOMIC_RELAXED);
    for (;;) {
        /* @step barrier.arrive.count */
        uint32_t a = s & ARRIVED;
        if (a >= n)
            return EINVAL; /* more arrivals than parties: never written */
        /* @step barrier.arrive.last */
        if (a + 1 == n) {
            /* The last arrival: open the next round. Acq_rel: acquires every
             * arrival of this round (they form a release sequence of RMWs)
             * and releases it all to the waiters. */
            if (!cas_state(b, &s, (s & ROUND) + ROUND_1, __ATOMIC_ACQ_REL))
                continue;
            /* @step barrier.arrive.wake */
            if (s & SLEEPERS) {
                FXI_FAULT("barrier.last.before_wake");
                fxi_futex_wake_raw(&b->state, INT32_MAX, FXI_BITSET_ANY);
            }
            return FX_BARRIER_SERIAL_THREAD;
        }
        /* This arrival will wait: tv_nsec is checked now (POSIX), before
         * the arrival is counted. */
        if (fxi_deadline_check(deadline))
            return EINVAL;
        /* Release: publishes our writes to the last arrival, whose acq_rel
         * CAS reads this RMW's release sequence. No acquire: nothing is
         * read on its strength; the other parties' writes reach us through
         * the last arrival, whose new round our acquire loads in wait_round
         * see (GenMC: tests/genmc/barrier.c, docs/verification.md).
         * @step barrier.arrive.cas */
        if (cas_state(b, &s, s + 1, __ATOMIC_RELEASE))
            break;
    }
    return wait_round(b, s & ROUND, deadline);
}

/* barrier_wait under a race detector: every arrival happens-before every
 * return of its round. */
__attribute__((noinline, cold)) static int
barrier_wait_announced(fx_barrier *b, int32_t parties, const struct timespec *deadline)
{
    fxi_ann_own_words(b, sizeof *b);
    if (check_parties(b, parties) != 0)
        return EINVAL;
    fxi_ann_happens_before(b);
    int r = barrier_wait(b, parties, deadline);
    if (r == 0 || r == FX_BARRIER_SERIAL_THREAD)
        fxi_ann_happens_after(b);
    return r;
}

int fx_barrier_wait(fx_barrier *b, int32_t parties)
{
    if (fxi_bad_slot(b))
        return EINVAL;
    if (fxi_ann_on()) /* one look at the race-detector probe */
        return barrier_wait_announced(b, parties, NULL);
    return barrier_wait(b, parties, NULL);
}

int fx_barrier_timedwait(fx_barrier *b, int32_t parties, const struct timespec *deadline)
{
    if (fxi_bad_slot(b))
        return EINVAL;
    if (fxi_ann_on()) /* one look at the race-detector probe */
        return barrier_wait_announced(b, parties, deadline);
    return barrier_wait(b, parties, deadline);
}
