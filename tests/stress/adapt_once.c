/*
 * tests/stress/adapt_once.c - fx_once in the stress harness: every thread of
 * every process races to be the first caller of the same fresh flag, again
 * and again.
 *
 * A ring of 65,536 flags lives in a MAP_SHARED region. `frontier` names the
 * current flag k: each step calls fx_once_call on flag k, whose initialiser
 * counts its runs of that flag, writes k into the flag's payload (plain
 * memory), and, as its last act, moves the frontier on to k + 1; the callers
 * that lost the race wait inside fx_once_call (asleep on the word) and then
 * all race for flag k + 1. Checked:
 *   - exactly one initialiser run per flag: its run count goes from 0 to 1
 *     only, and every caller finds it 1 after fx_once_call returned;
 *   - what the initialiser wrote is visible to every caller once
 *     fx_once_call returned (the payload is k);
 *   - initialisers of different flags never overlap: each runs inside the
 *     harness's checked critical section (owner slot and record), and the
 *     next flag only opens when the previous initialiser is done with it;
 *   - at the end, the number of initialiser runs equals the number of flags
 *     opened, every used flag of the current lap says DONE with one run, and
 *     the flags ahead are untouched.
 * The initialiser of flag k also resets flag k + 32,768 (the same slot as
 * flag k - 32,768) for the next lap, after waiting for any caller still
 * inside that older flag: a caller announces the flag it is about to use,
 * then re-reads the frontier and skips the step if that flag is 16,384 or
 * more behind (so no caller can be inside a flag being reset).
 *
 * Waiter kills (FXS_WAITER_KILLS): the harness SIGKILLs processes whose
 * threads are all asleep inside fx_once_call waiting for another process's
 * initialiser (or between steps; the initialiser itself is never killed
 * here, only its waiters), and respawns them. The dead waiter must not
 * block the others: the initialiser still finishes, every surviving caller
 * returns and sees the flag done exactly once (the checks above), and the
 * next flags go on (the watchdog, the recovery time). The parent withdraws
 * the dead thread's announcement in cur[] (killed()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <futexsync/layout.h>
#include <futexsync/once.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "fxstress.h"

#define NFLAGS  65536u
#define OTHREADS 256 /* at least processes * threads of the harness */

struct flags {
    uint64_t frontier;       /* the flag being raced for */
    uint64_t cur[OTHREADS];  /* 1 + the flag each thread is using, 0 none */
    fx_once flag[NFLAGS];
    uint32_t runs[NFLAGS];   /* initialiser runs of each flag (this lap) */
    uint64_t payload[NFLAGS]; /* written by the initialiser: the flag number */
};

struct obj {
    struct flags *f; /* mapped by setup, before the workers are forked */
};

struct init_ctx {
    struct fxs_thread *t;
    struct flags *f;
    uint64_t k;
    bool ran, failed;
};

static void initialiser(void *arg)
{
    struct init_ctx *c = arg;
    struct flags *f = c->f;
    uint64_t k = c->k;
    uint32_t slot = (uint32_t)(k % NFLAGS);
    c->ran = true;
    if (fxs_cs_enter(c->t)) {
        c->failed = true;
        return;
    }
    uint32_t before = __atomic_fetch_add(&f->runs[slot], 1, __ATOMIC_RELAXED);
    if (before != 0) {
        c->failed = true;
        fxs_fail(c->t, "flag %" PRIu64 ": initialiser run %u times", k, before + 1);
        return;
    }
    ((volatile uint64_t *)f->payload)[slot] = k;
    if (fxs_rand(c->t, 8) == 0)
        sched_yield(); /* let the other callers pile up asleep on the flag */
    if (fxs_cs_leave(c->t)) {
        c->failed = true;
        return;
    }

    /* Reset the slot of flag k + NFLAGS/2 for the next lap, once nobody is
     * inside its previous user, flag k - NFLAGS/2. */
    if (k >= NFLAGS / 2) {
        uint64_t old = k - NFLAGS / 2;
        for (int i = 0; i < fxs_threads_total(); i++)
            while (__atomic_load_n(&f->cur[i], __ATOMIC_SEQ_CST) == old + 1 && !fxs_failed())
                sched_yield();
    }
    uint32_t next = (uint32_t)((k + NFLAGS / 2) % NFLAGS);
    /* Relaxed: the frontier's release store below publishes the reset to
     * the callers of that flag, a lap from now. */
    __atomic_store_n(&f->flag[next].state, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&f->runs[next], 0, __ATOMIC_RELAXED);
    ((volatile uint64_t *)f->payload)[next] = UINT64_MAX;
    __atomic_store_n(&f->frontier, k + 1, __ATOMIC_RELEASE);
}

static int o_step(void *o, struct fxs_thread *t)
{
    struct flags *f = ((struct obj *)o)->f;
    int me = fxs_thread_index(t);
    uint64_t k = __atomic_load_n(&f->frontier, __ATOMIC_ACQUIRE);
    /* Announce, then re-check (seq_cst both: against the resetter's loads). */
    __atomic_store_n(&f->cur[me], k + 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&f->frontier, __ATOMIC_SEQ_CST) - k >= NFLAGS / 4) {
        __atomic_store_n(&f->cur[me], 0, __ATOMIC_RELEASE);
        return 0; /* descheduled for a long time: that flag is too old */
    }
    uint32_t slot = (uint32_t)(k % NFLAGS);
    int32_t pre = __atomic_load_n(&f->flag[slot].state, __ATOMIC_RELAXED);
    struct init_ctx c = {.t = t, .f = f, .k = k};
    /* A caller that lost the race sleeps in here, killable; the winner runs
     * the initialiser in here too, but inside the harness's critical
     * section (fxs_cs_enter), never killed. */
    fxs_wait_begin(t);
    int r = fx_once_call(&f->flag[slot], initialiser, &c);
    fxs_wait_end(t);
    if (c.failed)
        return 1;
    if (r != 0)
        return fxs_fail(t, "fx_once_call on flag %" PRIu64 " returned %d (%s)", k, r, strerror(r));
    uint32_t runs = __atomic_load_n(&f->runs[slot], __ATOMIC_RELAXED);
    uint64_t p = ((volatile uint64_t *)f->payload)[slot];
    __atomic_store_n(&f->cur[me], 0, __ATOMIC_RELEASE);
    if (runs != 1)
        return fxs_fail(t, "flag %" PRIu64 ": %u initialiser runs seen after the call", k, runs);
    if (p != k)
        return fxs_fail(t, "flag %" PRIu64 ": the initialiser's payload reads %" PRIu64, k, p);
    if (!c.ran && pre != FX_ONCE_DONE)
        fxs_count(t, FXS_N_WAITS, 1); /* lost the race, waited for the winner */
    fxs_progress(t);
    return 0;
}

static int o_setup(void *o)
{
    if (fxs_threads_total() > OTHREADS)
        return -1;
    void *p = mmap(NULL, sizeof(struct flags), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED)
        return -1;
    ((struct obj *)o)->f = p; /* zero: every flag not run */
    return 0;
}

static int o_finish(void *o)
{
    struct flags *f = ((struct obj *)o)->f;
    uint64_t n = f->frontier, runs = fxs_total(FXS_N_ACQUIRED);
    int bad = 0;
    if (runs != n)
        bad = fxs_fail(NULL, "%" PRIu64 " flags opened, %" PRIu64 " initialiser runs", n, runs);
    uint64_t from = n > NFLAGS / 2 ? n - NFLAGS / 2 : 0;
    for (uint64_t k = from; k < n + NFLAGS / 2 && !bad; k++) {
        uint32_t s = (uint32_t)(k % NFLAGS);
        bool used = k < n;
        if (f->flag[s].state != (used ? FX_ONCE_DONE : FX_ONCE_NOT_RUN) || f->runs[s] != used)
            bad = fxs_fail(NULL, "flag %" PRIu64 " (%s): state %d, %u runs", k,
                           used ? "run" : "ahead", (int)f->flag[s].state, f->runs[s]);
    }
    munmap(f, sizeof *f);
    return bad;
}

/* A caller killed asleep leaves its announcement; its successor would
 * overwrite it at its first step, but may run none (the run stops), and the
 * initialiser half a lap on would wait for it for ever. The dead thread is
 * inside no flag: withdraw it (release, as the caller's own withdrawal). */
static void o_killed(void *o, int thread_index)
{
    struct flags *f = ((struct obj *)o)->f;
    __atomic_store_n(&f->cur[thread_index], 0, __ATOMIC_RELEASE);
}

/* The flags, where the callers sleep, are outside the harness's object. */
static void *o_wait_area(void *o, size_t *len)
{
    *len = sizeof(struct flags);
    return ((struct obj *)o)->f;
}

static const struct fxs_adapter once_adapter = {
    .name = "once",
    .what = "fx_once: every thread of every process races for each fresh flag",
    .kind = FXS_CUSTOM,
    .caps = FXS_WAITER_KILLS,
    .wait_area = o_wait_area,
    .killed = o_killed,
    .size = sizeof(struct obj),
    .setup = o_setup,
    .step = o_step,
    .finish = o_finish,
};
FXS_ADAPTER(once_adapter)
