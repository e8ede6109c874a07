/*
 * tests/stress/adapt_counter.c - fx_counter in the stress harness, as a
 * ticket lock: each operation takes a ticket (fx_counter_add on `next`),
 * waits with fx_counter_wait until `turn` equals it (random short deadlines,
 * some already past, sometimes none; ETIMEDOUT means wait again), holds the
 * checked critical section, and passes the turn on with fx_counter_add or
 * fx_counter_store. The turns are strictly ordered, so a single lost wake-up
 * stops every thread: the watchdog and the end-of-run join catch it. Waking
 * all waiters on every change, each for a different target, is exactly the
 * counter's design.
 *
 * The ticket lock gets no waiter kills: a process killed while it waits for
 * its turn takes its ticket with it, and the line stops by design (a lock
 * made of a counter is not robust). The second adapter, counter_targets,
 * is the one whose waiters are killed (FXS_WAITER_KILLS): two counters,
 * `up` and `down`; odd thread indexes are movers (each step adds 1 to `up`
 * and -1 to `down`), even ones are waiters: each step picks a target up to
 * 64 ahead of the value it reads and waits for it with fx_counter_wait_ge
 * on `up` or fx_counter_wait_le on `down` (untimed half of the time,
 * otherwise with random short deadlines, ETIMEDOUT meaning wait again).
 * After each move a mover rests in fx_counter_wait for a value a third
 * counter never takes, with a random short deadline: it must time out.
 * Checked: a wait returns only once the value reached its target (the
 * counters move one way only, so it must still be there), no waiter is
 * stranded after a waiter process died asleep, possibly with a wake taken
 * with it (the watchdog, the recovery time), and at the end each counter
 * equals what the movers added (no update lost). The waiters slots are not
 * checked: they may keep the dead waiters' counts (documented: needless
 * wakes, nothing else). When the run stops, every leaving thread keeps
 * moving both counters until every thread has left, so that no waiter
 * waits for a mover that has gone.
 */
#include <errno.h>
#include <futexsync/counter.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fxstress.h"

struct tickets {
    fx_counter next; /* the next ticket to hand out */
    fx_counter turn; /* the ticket being served */
};

static int c_step(void *o, struct fxs_thread *t)
{
    struct tickets *k = o;
    int32_t mine = fx_counter_add(&k->next, 1) - 1;
    for (;;) {
        int r;
        if (fxs_rand(t, 4) == 0) {
            r = fx_counter_wait(&k->turn, mine, NULL);
        } else {
            struct timespec d = fxs_deadline(t);
            r = fx_counter_wait(&k->turn, mine, &d);
        }
        if (r == 0)
            break;
        if (r != ETIMEDOUT)
            return fxs_fail(t, "fx_counter_wait returned %d (%s)", r, strerror(r));
        fxs_count(t, FXS_N_TIMEOUTS, 1);
    }
    fxs_count(t, FXS_N_WAITS, 1);
    if (fxs_cs_enter(t))
        return 1;
    int32_t turn = fx_counter_load(&k->turn);
    if (turn != mine)
        return fxs_fail(t, "ticket %d served during turn %d", (int)mine, (int)turn);
    if (fxs_cs_leave(t))
        return 1;
    if (fxs_rand(t, 2))
        fx_counter_add(&k->turn, 1);
    else
        fx_counter_store(&k->turn, (int32_t)((uint32_t)mine + 1u));
    return 0;
}

static int c_finish(void *o)
{
    struct tickets *k = o;
    int32_t next = fx_counter_load(&k->next), turn = fx_counter_load(&k->turn);
    if (next != turn)
        return fxs_fail(NULL, "tickets handed out %d, served %d", (int)next, (int)turn);
    if ((uint32_t)next != (uint32_t)fxs_total(FXS_N_ACQUIRED))
        return fxs_fail(NULL, "%d tickets for %llu critical sections", (int)next,
                        (unsigned long long)fxs_total(FXS_N_ACQUIRED));
    if (k->next.waiters != 0 || k->turn.waiters != 0)
        return fxs_fail(NULL, "waiters slots %d and %d at the end, not 0", (int)k->next.waiters,
                        (int)k->turn.waiters);
    return 0;
}

static const struct fxs_adapter counter_adapter = {
    .name = "counter",
    .what = "fx_counter: a ticket lock of add/store/wait with deadlines",
    .kind = FXS_CUSTOM,
    .size = sizeof(struct tickets),
    .step = c_step,
    .finish = c_finish,
};
FXS_ADAPTER(counter_adapter)

/* counter_targets ------------------------------------------------------------- */

#define TTHREADS 256 /* at least processes * threads of the harness */
#define TAHEAD 64    /* the farthest target ahead of the value read */

struct targets {
    fx_counter up;    /* only ever incremented */
    fx_counter down;  /* only ever decremented */
    fx_counter pace;  /* always 0: the movers rest in timed waits for 1 */
    int32_t left;     /* threads that have left the run */
    uint64_t moved[TTHREADS]; /* steps each mover (thread index) made */
    int32_t in_move[TTHREADS]; /* 1 between a move's first add and its tally */
};

/* The harness kills only processes whose threads, frozen, are all inside a
 * wait or between steps: never a mover inside a move (which would leave a
 * move added to one counter, both or neither, and untallied). */
static void t_killed(void *o, int thread_index)
{
    struct targets *x = o;
    if (__atomic_load_n(&x->in_move[thread_index], __ATOMIC_RELAXED))
        fxs_fail(NULL, "thread %d was killed as a waiter inside a move", thread_index);
}

/* One move of both counters; the caller counts it. */
static int t_move(struct targets *x, struct fxs_thread *t)
{
    int me = fxs_thread_index(t);
    /* Relaxed, this one and the tally: read by the parent after this
     * process died or after every worker stopped (waitpid orders them). */
    __atomic_store_n(&x->in_move[me], 1, __ATOMIC_RELAXED);
    int32_t u = fx_counter_add(&x->up, 1), d = fx_counter_add(&x->down, -1);
    if (u <= 0 || d >= 0)
        return fxs_fail(t, "after a move: up %d, down %d", (int)u, (int)d);
    __atomic_fetch_add(&x->moved[me], 1, __ATOMIC_RELAXED);
    __atomic_store_n(&x->in_move[me], 0, __ATOMIC_RELAXED);
    return 0;
}

static int t_wait(struct targets *x, struct fxs_thread *t)
{
    bool ge = fxs_rand(t, 2) == 0;
    fx_counter *c = ge ? &x->up : &x->down;
    int32_t ahead = 1 + (int32_t)fxs_rand(t, TAHEAD);
    int32_t target = ge ? fx_counter_load(c) + ahead : fx_counter_load(c) - ahead;
    for (;;) {
        bool timed = fxs_rand(t, 2) == 0;
        struct timespec d = fxs_deadline(t);
        fxs_wait_begin(t);
        int r = ge ? fx_counter_wait_ge(c, target, timed ? &d : NULL)
                   : fx_counter_wait_le(c, target, timed ? &d : NULL);
        fxs_wait_end(t);
        if (r == 0)
            break;
        if (r != ETIMEDOUT || !timed)
            return fxs_fail(t, "fx_counter_wait_%s(%d)%s returned %d (%s)", ge ? "ge" : "le",
                            (int)target, timed ? " with a deadline" : "", r, strerror(r));
        fxs_count(t, FXS_N_TIMEOUTS, 1);
    }
    int32_t v = fx_counter_load(c);
    if (ge ? v < target : v > target)
        return fxs_fail(t, "fx_counter_wait_%s(%d) returned 0 with the value %d", ge ? "ge" : "le",
                        (int)target, (int)v);
    fxs_count(t, FXS_N_WAITS, 1);
    fxs_progress(t);
    return 0;
}

static int t_setup(void *o)
{
    if (fxs_threads_total() > TTHREADS || fxs_threads_total() < 2)
        return -1; /* needs a mover and a waiter */
    memset(o, 0, sizeof(struct targets));
    return 0;
}

static int t_step(void *o, struct fxs_thread *t)
{
    struct targets *x = o;
    if ((fxs_thread_index(t) & 1) == 0)
        return t_wait(x, t);
    if (t_move(x, t))
        return 1;
    fxs_progress(t);
    /* Rest, so that the waiters fall asleep (every move wakes them all), in
     * a wait that can be killed too: for a value `pace` never takes. */
    struct timespec d = fxs_deadline(t);
    fxs_wait_begin(t);
    int r = fx_counter_wait(&x->pace, 1, &d);
    fxs_wait_end(t);
    if (r != ETIMEDOUT)
        return fxs_fail(t, "fx_counter_wait for a value never stored returned %d", r);
    return 0;
}

/* Keep moving until every thread has left: a waiter that has not left yet
 * waits for a target up to TAHEAD ahead, and nobody else would move. */
static int t_leave(void *o, struct fxs_thread *t)
{
    struct targets *x = o;
    __atomic_add_fetch(&x->left, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&x->left, __ATOMIC_ACQUIRE) < fxs_threads_total() && !fxs_failed()) {
        if (t_move(x, t))
            return 1;
        sched_yield();
    }
    return 0;
}

static int t_finish(void *o)
{
    struct targets *x = o;
    uint64_t moves = 0;
    for (int i = 0; i < TTHREADS; i++)
        moves += x->moved[i];
    int32_t up = fx_counter_load(&x->up), down = fx_counter_load(&x->down);
    if ((uint32_t)up != (uint32_t)moves || (uint32_t)-down != (uint32_t)moves)
        return fxs_fail(NULL, "%" PRIu64 " moves, but up is %d and down %d", moves, (int)up,
                        (int)down);
    return 0;
}

static const struct fxs_adapter counter_targets_adapter = {
    .name = "counter_targets",
    .what = "fx_counter: wait_ge/wait_le for targets ahead, movers and waiters, waiter kills",
    .kind = FXS_CUSTOM,
    .caps = FXS_WAITER_KILLS,
    .size = sizeof(struct targets),
    .setup = t_setup,
    .step = t_step,
    .leave = t_leave,
    .killed = t_killed,
    .finish = t_finish,
};
FXS_ADAPTER(counter_targets_adapter)
