/*
 * tests/stress/adapt_barrier.c - fx_barrier in the stress harness: every
 * thread of every process is a party (12 by default, in 3 processes), and
 * each step is one wait: fx_barrier_wait five times in eight, otherwise
 * fx_barrier_timedwait with a random short deadline (some already past, 1 in
 * 32 with an invalid tv_nsec); a wait that times out has withdrawn its
 * arrival and is retried by the next step, in the same round.
 *
 * Before arriving in its round r, a party writes r into its cell of the
 * round's data (plain memory, cells alternating between two rows by round
 * parity). Checked after every passed round r:
 *   - every party's cell holds r: nobody passes a round before every party
 *     arrived in it, and what each wrote before arriving is visible
 *     (a party that was released, or that withdrew, in the wrong round is
 *     caught here: its cell holds another round);
 *   - exactly one party per round gets FX_BARRIER_SERIAL_THREAD: the serial
 *     parties' rounds follow each other 1, 2, 3... with none missing or twice.
 * At the end: every party passed the same number of rounds (the same round
 * sequence), one serial party per round, and the barrier word shows no
 * arrival left and the round number of the last round (mod 2^16).
 *
 * When the run stops, a thread cannot just go: the others would wait for it
 * for ever. Each leaving thread keeps arriving, with timed waits, until every
 * thread has left, so that the rounds in progress end (a thread holding an
 * arrival taken over from a killed party, below, passes that round first).
 *
 * Waiter kills (FXS_WAITER_KILLS). A party that dies after arriving leaves
 * its arrival counted, and a barrier cannot tell a dead party from a slow
 * one: by design the round then waits for whoever takes its place. So the
 * harness respawns the killed process, and each new thread takes over the
 * party of the thread it replaces, arrival included: a party marks
 * arrived[me] = round + 1 before it arrives and clears it when its wait
 * returns; a thread that starts with the mark set knows its predecessor
 * died asleep in that round, does not arrive again (that would count the
 * party twice and end the round one party short), but waits, untimed, for
 * the round to end on the counter `done` (rounds ended, added to by each
 * round's serial party), and then passes the round like the others (its
 * cells, passed[me]). Checked: the round the dead party had arrived in
 * completes when the others arrive, no survivor stays asleep after its
 * round ended, though the dead may have taken the wake with it (the
 * watchdog, the recovery time), and every check above still holds: the
 * rounds, the serial parties, the barrier word at the end, and no arrival
 * mark left. (The other
 * design, timed waits only with survivors timing out, would check little:
 * a dead party's arrival cannot be withdrawn, so every later round would
 * end one party short.)
 */
#include <errno.h>
#include <futexsync/barrier.h>
#include <futexsync/counter.h>
#include <futexsync/time.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fxstress.h"

#define BTHREADS 256 /* at least processes * threads of the harness */

struct rounds {
    fx_barrier b;
    int32_t parties;
    int32_t left;        /* threads that have left the run */
    uint32_t serial_last; /* the last round (counted from 1) that had its serial party */
    uint64_t serials;
    uint64_t inherited;  /* arrivals taken over from a party killed asleep */
    fx_counter done;     /* rounds ended: the serial party adds 1 */
    uint32_t arrived[BTHREADS]; /* round + 1 while the party is arrived in it */
    uint32_t data[2][BTHREADS]; /* written before arriving: the round number */
    uint32_t passed[BTHREADS];  /* rounds each party has passed (its own) */
};

static int b_setup(void *o)
{
    struct rounds *x = o;
    int n = fxs_threads_total();
    if (n > BTHREADS || n > FX_BARRIER_MAX_PARTIES)
        return -1;
    memset(x, 0, sizeof *x);
    x->parties = n;
    return 0;
}

static int passed(struct rounds *x, struct fxs_thread *t, int me, uint32_t r, int res);

/* One arrival; leaving: a timed wait of 10 ms, for the departure. */
static int b_wait_once(struct rounds *x, struct fxs_thread *t, bool leaving)
{
    int me = fxs_thread_index(t);
    uint32_t r = __atomic_load_n(&x->passed[me], __ATOMIC_RELAXED);
    /* Relaxed: arrived[me] is this party's own; a successor reads it after
     * the predecessor died and the parent forked it. */
    uint32_t inherited = __atomic_load_n(&x->arrived[me], __ATOMIC_RELAXED);
    if (inherited != 0) {
        /* The thread this one replaces died asleep, arrived in round r. */
        if (inherited != r + 1)
            return fxs_fail(t, "inherited an arrival in round %u, but the party is in round %u",
                            inherited - 1, r);
        fxs_wait_begin(t);
        int w = fx_counter_wait_ge(&x->done, (int32_t)(r + 1), NULL);
        fxs_wait_end(t);
        if (w != 0)
            return fxs_fail(t, "fx_counter_wait_ge for the end of round %u returned %d", r, w);
        __atomic_store_n(&x->arrived[me], 0, __ATOMIC_RELAXED);
        __atomic_fetch_add(&x->inherited, 1, __ATOMIC_RELAXED);
        return passed(x, t, me, r, 0);
    }
    volatile uint32_t *cell = &x->data[r & 1u][me];
    *cell = r;

    uint32_t k = fxs_rand(t, 256);
    bool timed = leaving || k >= 160, bad = false;
    struct timespec d;
    int res;
    __atomic_store_n(&x->arrived[me], r + 1, __ATOMIC_RELAXED);
    fxs_wait_begin(t);
    if (timed) {
        d = leaving ? fx_deadline_in(10 * FX_NSEC_PER_MSEC) : fxs_deadline(t);
        if (!leaving && k >= 248) {
            d.tv_nsec = fxs_rand(t, 2) ? 1000000000L + (long)fxs_rand(t, 1000) : -1L;
            bad = true;
            fxs_count(t, FXS_N_BADDEADLINE, 1);
        }
        res = fx_barrier_timedwait(&x->b, x->parties, &d);
    } else {
        res = fx_barrier_wait(&x->b, x->parties);
    }
    fxs_wait_end(t);
    __atomic_store_n(&x->arrived[me], 0, __ATOMIC_RELAXED);
    if (res == ETIMEDOUT && timed && !bad) {
        fxs_count(t, FXS_N_TIMEOUTS, 1);
        return 0; /* withdrawn: the next step arrives again in round r */
    }
    if (res == EINVAL && bad)
        return 0; /* rejected before arriving */
    if (res != 0 && res != FX_BARRIER_SERIAL_THREAD)
        return fxs_fail(t, "fx_barrier_%swait in round %u returned %d (%s)", timed ? "timed" : "",
                        r, res, strerror(res));
    return passed(x, t, me, r, res);
}

/* Party me has passed round r (res: its wait's result, 0 for an inherited
 * arrival). */
static int passed(struct rounds *x, struct fxs_thread *t, int me, uint32_t r, int res)
{
    /* Passed round r: every party arrived in it, after writing its cell. */
    for (int j = 0; j < x->parties; j++) {
        uint32_t c = ((volatile uint32_t *)x->data[r & 1u])[j];
        if (c != r)
            return fxs_fail(t, "passed round %u, but party %d had written round %u before "
                               "arriving",
                            r, j, c);
    }
    if (res == FX_BARRIER_SERIAL_THREAD) {
        uint32_t prev = __atomic_exchange_n(&x->serial_last, r + 1, __ATOMIC_ACQ_REL);
        if (prev != r)
            return fxs_fail(t, "serial party of round %u, the previous serial one was of round %u",
                            r + 1, prev);
        __atomic_fetch_add(&x->serials, 1, __ATOMIC_RELAXED);
        fx_counter_add(&x->done, 1); /* round r has ended: done = r + 1 */
    }
    __atomic_store_n(&x->passed[me], r + 1, __ATOMIC_RELAXED);
    fxs_count(t, FXS_N_WAITS, 1);
    fxs_progress(t);
    return 0;
}

static int b_step(void *o, struct fxs_thread *t)
{
    return b_wait_once(o, t, false);
}

static int b_leave(void *o, struct fxs_thread *t)
{
    struct rounds *x = o;
    /* An arrival taken over from a party killed asleep is passed before this
     * thread counts itself as left: until then the others keep arriving, so
     * its round ends. Counted as left first, a successor that starts only
     * after the stop (a kill near the end of the run) could be the last to
     * leave and go without passing that round, which the others pass on the
     * dead party's arrival: one round behind, its mark left set; or, not the
     * last, wait for ever for a round the others, all gone, never end. */
    if (__atomic_load_n(&x->arrived[fxs_thread_index(t)], __ATOMIC_RELAXED) != 0 &&
        b_wait_once(x, t, true))
        return 1;
    __atomic_add_fetch(&x->left, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&x->left, __ATOMIC_ACQUIRE) < x->parties && !fxs_failed())
        if (b_wait_once(x, t, true))
            return 1;
    return 0;
}

static int b_finish(void *o)
{
    struct rounds *x = o;
    /* No arrival mark left: every wait returned, and every arrival taken
     * over from a dead party was passed by its successor. */
    for (int j = 0; j < x->parties; j++)
        if (x->arrived[j] != 0)
            return fxs_fail(NULL, "party %d is still marked arrived in round %u at the end "
                                  "(it passed %u rounds)",
                            j, x->arrived[j] - 1, x->passed[j]);
    uint32_t n = x->passed[0];
    for (int j = 1; j < x->parties; j++)
        if (x->passed[j] != n)
            return fxs_fail(NULL, "party 0 passed %u rounds, party %d passed %u", n, j,
                            x->passed[j]);
    if (x->serials != n || x->serial_last != n)
        return fxs_fail(NULL, "%u rounds, %llu serial parties (last in round %u)", n,
                        (unsigned long long)x->serials, x->serial_last);
    uint32_t s = (uint32_t)x->b.state;
    if ((s & 0x7fffu) != 0)
        return fxs_fail(NULL, "%u arrivals left in the barrier word 0x%08x", s & 0x7fffu, s);
    if ((s >> 16) != (n & 0xffffu))
        return fxs_fail(NULL, "round number %u in the barrier word after %u rounds", s >> 16, n);
    if ((uint32_t)fx_counter_load(&x->done) != n)
        return fxs_fail(NULL, "%u rounds, the counter of ended rounds says %d", n,
                        (int)fx_counter_load(&x->done));
    if (x->inherited > 0)
        printf("  arrivals taken over from parties killed asleep: %llu\n",
               (unsigned long long)x->inherited);
    if (x->b.parties != x->parties)
        return fxs_fail(NULL, "parties slot %d, not %d", (int)x->b.parties, (int)x->parties);
    return 0;
}

static const struct fxs_adapter barrier_adapter = {
    .name = "barrier",
    .what = "fx_barrier: every thread of every process a party, wait/timedwait, rounds checked",
    .kind = FXS_CUSTOM,
    .caps = FXS_WAITER_KILLS,
    .size = sizeof(struct rounds),
    .setup = b_setup,
    .step = b_step,
    .leave = b_leave,
    .finish = b_finish,
};
FXS_ADAPTER(barrier_adapter)
