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
 */
#include <errno.h>
#include <futexsync/counter.h>
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
