/*
 * tests/stress/adapt_sem.c - fx_sem in the stress harness, as a counting
 * resource: the semaphore starts with N tokens, and a wait (fx_sem_wait,
 * fx_sem_trywait, fx_sem_timedwait with random short deadlines) takes one
 * before the holder enters, a post gives it back after. Checked by the
 * harness: never more than N holders inside at once (and, for N = 1, the
 * protected record: no two owners, no torn record, no lost update); checked
 * at the end: the value is N again and the waiters slot 0, or at most the
 * number of waiters killed asleep (every token given back, every live waiter
 * gone). A lost wake-up leaves a waiter asleep with a
 * token available: the watchdog and the end-of-run join catch it.
 *
 *   sem         N = 3 tokens, 12 threads in 3 processes by default
 *   sem_binary  N = 1: the semaphore as a lock, with the record checks
 */
#include <errno.h>
#include <futexsync/sem.h>

#include "fxstress.h"

#define SEM_TOKENS 3

static int s_setup_n(void *o, int32_t n) { return fx_sem_init(o, n); }
static int s_setup(void *o) { return s_setup_n(o, SEM_TOKENS); }
static int s_setup_binary(void *o) { return s_setup_n(o, 1); }
static int s_wait(void *o) { return fx_sem_wait(o); }
/* The harness expects EBUSY from a try operation that finds no room. */
static int s_trywait(void *o)
{
    int r = fx_sem_trywait(o);
    return r == EAGAIN ? EBUSY : r;
}
static int s_timedwait(void *o, const struct timespec *d) { return fx_sem_timedwait(o, d); }
static int s_post(void *o) { return fx_sem_post(o); }

static int s_finish_n(void *o, int32_t n)
{
    fx_sem *s = o;
    if (fx_sem_value(s) != n)
        return fxs_fail(NULL, "value %d at the end, not %d: tokens lost or made up",
                        (int)fx_sem_value(s), (int)n);
    /* A waiter killed while asleep never takes its registration back (W5):
     * the slot keeps one per such thread, which only makes every later post
     * try a wake; anything else left is a leak. */
    int32_t w = __atomic_load_n(&s->waiters, __ATOMIC_ACQUIRE);
    if (w < 0 || (uint64_t)w > fxs_waiters_killed())
        return fxs_fail(NULL, "waiters slot %d at the end, not 0 .. %llu (waiters killed asleep)",
                        (int)w, (unsigned long long)fxs_waiters_killed());
    return 0;
}
static int s_finish(void *o) { return s_finish_n(o, SEM_TOKENS); }
static int s_finish_binary(void *o) { return s_finish_n(o, 1); }

static const struct fxs_adapter sem_adapter = {
    .name = "sem",
    .what = "fx_sem with 3 tokens: wait/trywait/timedwait then post; at most 3 holders",
    .kind = FXS_LOCK,
    .size = sizeof(fx_sem),
    .setup = s_setup,
    .lock = s_wait,
    .trylock = s_trywait,
    .timedlock = s_timedwait,
    .unlock = s_post,
    .max_holders = SEM_TOKENS,
    .finish = s_finish,
};
FXS_ADAPTER(sem_adapter)

static const struct fxs_adapter sem_binary_adapter = {
    .name = "sem_binary",
    .what = "fx_sem with 1 token, used as a lock: the record checks",
    .kind = FXS_LOCK,
    .size = sizeof(fx_sem),
    .setup = s_setup_binary,
    .lock = s_wait,
    .trylock = s_trywait,
    .timedlock = s_timedwait,
    .unlock = s_post,
    .finish = s_finish_binary,
};
FXS_ADAPTER(sem_binary_adapter)
