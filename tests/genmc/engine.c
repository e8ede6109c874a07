/*
 * tests/genmc/engine.c - the waiting engine (src/sleep.c) itself under
 * GenMC, above the kernel and clock of model.h's FXG_ENGINE block (read its
 * head for what is modelled and what is stubbed). The scenarios are those of
 * models/engine.pml, on the C code.
 *
 * Two sleepers, each waiting until the word of its own object (word[0],
 * word[1]) is no longer 0, as a primitive's caller does: re-read the word,
 * fxi_futex_sleep on the value read, again. Their first sleep is bounded by
 * their own recheck (sleeper 0: FXI_PROBE_NS; sleeper 1: 1.5 times that, so
 * that sleeper 0 is in the engine first); at it the scope check reads the
 * pagemap (a shared page unless -DFXGE_PAGEMAP says otherwise) and, in
 * shared memory, they enter the engine: sleeper 0 becomes the prober, and
 * sleeper 1 is listed and sleeps untimed in futex_waitv on its word and its
 * tell word. While both sleep (model.h's quiet hook: the environment, at a
 * moment when no thread runs, once sleeper 1 is asleep in futex_waitv), the
 * environment changes a word; the first sleeper through then sets the other
 * word. Changes are made without a FUTEX_WAKE (the waker killed between its
 * change and its wake, the one way a wake is lost in shared memory) unless
 * said otherwise: only the engine's look, or the prober's own compare, can
 * end those sleeps.
 *
 *   default    the environment sets word[1], the listed sleeper's: the
 *              prober's look at the next tick must tell it (TOLD); through,
 *              it sets word[0], which the prober must see at its own
 *              compare or its next look.
 *   -DHANDOFF  the environment sets word[0], the prober's, and wakes it: the
 *              prober's call ends woken and the role passes to the listed
 *              sleeper (pass_role), which sleeps on as the prober; sleeper
 *              0, through, sets word[1], which the new prober must see.
 *   -DPROBED   sleeper 1 sleeps in fxi_futex_sleep_probed (straight into the
 *              engine, after a first plain sleep of 1.5 periods) on a word
 *              naming owner OWNER, which the environment kills (fxge_dead:
 *              only the liveness probe can tell): the look probes the owner
 *              and tells the listed sleeper (the look's owner batches); it
 *              takes over (through) once told and the owner found dead, and
 *              sets word[0].
 *   -DTIMED    as the default, but sleeper 1, through, leaves word[0] as it
 *              is, and sleeper 0's call has a deadline (2.5 periods): the
 *              prober's sleep ends at it, it returns ETIMEDOUT and the role
 *              falls free (or passes on, if sleeper 1 is listed still).
 *   -DREFUSED  futex_waitv is refused (ENOSYS) after the engine's setup: the
 *              sleeper to be listed finds it so, stops the engine for the
 *              process and keeps its own recheck, which sees the change the
 *              environment makes (after 2 ticks) to its word.
 *   -DTOGETHER both sleepers with the same first recheck, so that they
 *              enter the engine at the same tick, the one's join racing the
 *              other's look: over 300 s, not run (docs/verification.md).
 *   -DFXGE_PAGEMAP=1  private memory: after the first recheck both sleep
 *              untimed outside the engine; the environment sets word[1] with
 *              its FUTEX_WAKE, and so does sleeper 1 with word[0] (in private
 *              memory no wake is lost to a death).
 *
 * Checks: every thread gets through (--check-liveness: no execution ends
 * with a sleep that no wake and no time can end); every sleep returns 0
 * (no deadline); each call is out of the engine when it returns (its node
 * OUT), and at the end the role is free, nobody listed, the lock free; the
 * environment acted in every execution.
 */
#define FXG_ENGINE
#include "model.h"

/* src/sleep.c, its table made small (run.sh generates the copy) */
#include "fxg_sleep.c"

/* The struct copies of sleep.c that GenMC cannot turn into loads and stores
 * itself (an entry moved by list_unlink, through a pointer; a recheck time
 * stored through the caller's pointer): clang makes them calls of memcpy,
 * which GenMC's interpreter refuses. They are copied here field by field,
 * each field with the size it is read with elsewhere (a byte-wise copy
 * would be a mixed-size access); any other copy stops the check. */
void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    if (n == sizeof(struct listed)) {
        struct listed *d = dst;
        const struct listed *s = src;
        d->word = s->word;
        d->owner = s->owner;
        d->node = s->node;
        d->watch = s->watch;
        d->expected = s->expected;
        d->watch_value = s->watch_value;
        d->looked = s->looked;
    } else {
        assert(n == sizeof(struct timespec) && "model: a struct copy engine.c does not know");
        struct timespec *d = dst;
        const struct timespec *s = src;
        d->tv_sec = s->tv_sec;
        d->tv_nsec = s->tv_nsec;
    }
    return dst;
}

#define OWNER 5

static int32_t word[2] = {0, OWNER};
static int acted; /* the environment's change made (under fxg_kernel) */
static int timed_out; /* TIMED: sleeper 0's call returned ETIMEDOUT */

#ifdef PROBED
static uint32_t owner_of(const int32_t *w)
{
    /* Relaxed: the look's hint; the sleeper judges the value it reads. */
    return __atomic_load_n(w, __ATOMIC_RELAXED) == OWNER ? OWNER : 0;
}
#endif

/* The environment: under fxg_kernel, whenever no client runs (model.h). */
static void environment(void)
{
#if FXGE_PAGEMAP == 1
    bool due = !acted && fxge_nq >= 2; /* both asleep */
#elif defined(REFUSED)
    bool due = !acted && fxge_ticks >= 2; /* sleeper 1 past its first recheck */
#else
    bool due = !acted && fxge_waitvs >= 1; /* sleeper 1 listed, asleep */
#endif
    if (!due)
        return;
    acted = 1;
#if defined(PROBED)
    __atomic_store_n(&fxge_dead[OWNER], 1, __ATOMIC_RELAXED);
#elif defined(HANDOFF)
    __atomic_store_n(&word[0], 1, __ATOMIC_RELEASE);
    fxge_wake_locked(&word[0], 1);
#else
    __atomic_store_n(&word[1], 1, __ATOMIC_RELEASE);
#if FXGE_PAGEMAP == 1
    fxge_wake_locked(&word[1], 1);
#endif
#endif
}

/* Through: the other sleeper's word changes (its wake lost, but in private
 * memory). */
static void set_other(int k)
{
    __atomic_store_n(&word[1 - k], 1, __ATOMIC_RELEASE);
#if FXGE_PAGEMAP == 1
    fxge_wake(&word[1 - k], 1);
#endif
}

static void *sleeper(void *arg)
{
    int k = (int)(intptr_t)arg;
#ifdef PROBED
    if (k == 1) {
        int32_t later = 0;
        struct timespec first = {0, FXI_PROBE_NS * 3 / 2};
        assert(fxi_futex_wait_raw(&later, 0, &first, FXI_BITSET_ANY) == ETIMEDOUT);
        bool judge = false;
        while (__atomic_load_n(&word[1], __ATOMIC_ACQUIRE) == OWNER) {
            if (judge && fxge_id_probe(OWNER) == FXI_TID_DEAD)
                break; /* the take-over */
            int r = fxi_futex_sleep_probed(&word[1], OWNER, owner_of, NULL, &judge);
            assert(r == 0);
        }
        set_other(1);
        fxge_finish();
        return NULL;
    }
#endif
#ifdef TOGETHER
    struct fxi_recheck s = FXI_RECHECK_INIT_SCOPED(FXI_PROBE_NS);
#else
    struct fxi_recheck s = FXI_RECHECK_INIT_SCOPED(k == 0 ? FXI_PROBE_NS : FXI_PROBE_NS * 3 / 2);
#endif
    const struct timespec *deadline = NULL;
#ifdef TIMED
    const struct timespec d = {0, FXI_PROBE_NS * 5 / 2};
    if (k == 0)
        deadline = &d;
#endif
    int32_t v;
    while ((v = __atomic_load_n(&word[k], __ATOMIC_ACQUIRE)) == 0) {
        int r = fxi_futex_sleep(&word[k], v, deadline, &s);
        assert(__atomic_load_n(&s.me.state, __ATOMIC_RELAXED) == OUT);
        if (r == ETIMEDOUT && deadline != NULL) {
            timed_out = 1;
            break;
        }
        assert(r == 0);
    }
    assert(s.scope != (FXGE_PAGEMAP == 1 ? FXI_SCOPE_SHARED : FXI_SCOPE_PRIVATE));
#if defined(HANDOFF)
    if (k == 0)
        set_other(k);
#elif !defined(TIMED)
    if (k == 1)
        set_other(k);
#endif
    fxge_finish();
    return NULL;
}

int main(void)
{
#ifndef PROBED
    word[1] = 0;
#endif
    fxge_quiet = environment;
    engine_ready(); /* the setup, once, before the threads (model.h) */
    assert(__atomic_load_n(&engine_usable, __ATOMIC_RELAXED));
#ifdef REFUSED
    fxge_waitv_refused = 1;
#endif
    pthread_t t[2];
    fxge_start(2);
    pthread_create(&t[0], NULL, sleeper, (void *)0);
    pthread_create(&t[1], NULL, sleeper, (void *)1);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    fxge_stop();
    assert(acted);
#ifdef TIMED
    assert(timed_out); /* nothing changes word[0] */
#endif
#ifdef REFUSED
    assert(!engine_usable);
#endif
    assert(engine.prober == 0 && engine.listed == 0 && engine.lock == 0);
    return 0;
}
