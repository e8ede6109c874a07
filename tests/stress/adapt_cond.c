/*
 * tests/stress/adapt_cond.c - fx_cond in the stress harness: a bounded queue
 * of 4 items between producer and consumer threads (even and odd thread
 * indexes) of every process, guarded by one fx_mutex and two condition
 * variables ("not empty", "not full").
 *
 * A producer inserts items numbered 1, 2, 3... of its own, waiting on "not
 * full" while the queue is full; a consumer takes the oldest item, waiting on
 * "not empty" while the queue is empty. Each then notifies the other side:
 * fx_cond_signal three times in four, fx_cond_broadcast otherwise, half of the
 * time after unlocking the mutex. Waits are fx_cond_wait (half of them) or
 * fx_cond_timedwait with random short deadlines, some already past, 1 in 32
 * with an invalid tv_nsec (EINVAL, the mutex still held); a timed-out wait
 * re-checks the predicate and waits again. Signals interrupt the sleepers.
 *
 * Checked: the mutex excludes (the harness's owner slot and record are
 * updated by every holder, including after each wait returns: a broadcast
 * moves waiters onto the mutex word, and each must still get the mutex
 * alone); the queue never holds fewer than 0 or more than 4 items; each
 * consumer receives every producer's items in order, none twice, none lost
 * (the FIFO queue keeps one producer's items in order); at the end every
 * produced item was consumed or is still queued, and the condition
 * variables' park slots are 0 and their waiters slots 0 (see the waiter
 * kills below). Producers block only on a full
 * queue and consumers only on an empty one, so some side can always move: a
 * lost wake-up leaves a thread asleep in fx_cond_wait for good, which the
 * watchdog and the end-of-run join report. When the run stops, each thread
 * closes the queue and broadcasts (leave), so that nobody waits for a thread
 * that has left.
 *
 * In the shared queue a lost wake-up is usually repaired by the next
 * notification (another item, another signal). The second adapter,
 * cond_pairs, makes every one count: thread i of the first half hands items
 * one at a time to thread i of the second half (another process by
 * default), through a one-item slot and a condition variable of the pair;
 * all pairs share one mutex. Only one side of a pair can be waiting (the
 * producer while the slot is full, the consumer while it is empty), and it
 * is notified exactly once per change, by fx_cond_signal three times in
 * four, so a single lost wake-up stops the pair for good: the producer waits
 * for the consumer, which sleeps next to a full slot. cond_pairs_rmutex is
 * the same with one fx_rmutex and fx_cond_wait_rmutex/_timedwait_rmutex.
 *
 * Waiter kills (FXS_WAITER_KILLS): the harness SIGKILLs processes whose
 * threads are all asleep inside a wait (on the cond word, the park word or
 * the mutex word while re-acquiring; they hold nothing) or between steps;
 * the process is respawned with the same thread indexes, and its threads go
 * on with the shared state where the dead ones left it. A signal the dead
 * waiter consumed must not be lost to a survivor (a consumer asleep next to
 * a queued item, a pair partner sleeping for ever): the watchdog and the
 * recovery time say so; every item check above still holds. At the end the
 * waiters slots may keep the dead waiters' counts (at most the number of
 * threads killed asleep; it costs needless wakes only); park is 0.
 */
#include <errno.h>
#include <futexsync/cond.h>
#include <futexsync/mutex.h>
#include <futexsync/rmutex.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fxstress.h"

#define QCAP 4
#define QTHREADS 256 /* at least processes * threads of the harness */

struct queue {
    fx_mutex m;
    fx_cond not_empty;
    fx_cond not_full;
    /* Guarded by m. */
    int32_t count, head, closed;
    uint64_t item[QCAP];     /* producer index << 32 | its item number */
    uint32_t produced[QTHREADS]; /* items made by each producer */
    uint32_t seen[QTHREADS];     /* the last item number of each producer taken */
    uint64_t consumed;
};

/* Enter and leave the harness's critical section around the mutex. */
static int hold(struct queue *q, struct fxs_thread *t)
{
    (void)q;
    return fxs_cs_enter(t);
}
static int release(struct queue *q, struct fxs_thread *t)
{
    (void)q;
    return fxs_cs_leave(t);
}

/* One wait on c, with the harness's critical section left while the mutex is
 * released. Returns 0 (the caller re-checks), or 1 after fxs_fail. */
static int wait_on(struct queue *q, fx_cond *c, struct fxs_thread *t)
{
    uint32_t k = fxs_rand(t, 64);
    struct timespec d;
    bool bad = false;
    if (k >= 32) {
        if (release(q, t))
            return 1;
        fxs_wait_begin(t);
        int r = fx_cond_wait(c, &q->m);
        fxs_wait_end(t);
        if (hold(q, t))
            return 1;
        if (r != 0)
            return fxs_fail(t, "fx_cond_wait returned %d (%s)", r, strerror(r));
        fxs_count(t, FXS_N_WAITS, 1);
        return 0;
    }
    d = fxs_deadline(t);
    if (k == 0) {
        d.tv_nsec = fxs_rand(t, 2) ? 1000000000L + (long)fxs_rand(t, 1000) : -1L;
        bad = true;
        fxs_count(t, FXS_N_BADDEADLINE, 1);
    }
    if (release(q, t))
        return 1;
    fxs_wait_begin(t);
    int r = fx_cond_timedwait(c, &q->m, &d);
    fxs_wait_end(t);
    if (hold(q, t))
        return 1;
    if (bad)
        return r == EINVAL ? 0
                           : fxs_fail(t, "fx_cond_timedwait with an invalid tv_nsec returned %d", r);
    if (r == ETIMEDOUT) {
        fxs_count(t, FXS_N_TIMEOUTS, 1);
        return 0;
    }
    if (r != 0)
        return fxs_fail(t, "fx_cond_timedwait returned %d (%s)", r, strerror(r));
    fxs_count(t, FXS_N_WAITS, 1);
    return 0;
}

/* Signal or broadcast c, with the mutex held or not (unlocks it either way).
 * Returns 0, or 1 after fxs_fail. */
static int notify_and_unlock(struct queue *q, fx_cond *c, struct fxs_thread *t)
{
    bool bcast = fxs_rand(t, 4) == 0, inside = fxs_rand(t, 2) == 0;
    int r = 0;
    if (inside)
        r = bcast ? fx_cond_broadcast(c) : fx_cond_signal(c);
    if (release(q, t))
        return 1;
    int u = fx_mutex_unlock(&q->m);
    if (u != 0)
        return fxs_fail(t, "fx_mutex_unlock returned %d", u);
    if (!inside)
        r = bcast ? fx_cond_broadcast(c) : fx_cond_signal(c);
    if (r != 0)
        return fxs_fail(t, "fx_cond_%s returned %d", bcast ? "broadcast" : "signal", r);
    return 0;
}

static int lock_queue(struct queue *q, struct fxs_thread *t)
{
    int r = fx_mutex_lock(&q->m);
    if (r != 0)
        return fxs_fail(t, "fx_mutex_lock returned %d", r);
    return hold(q, t);
}

static int check_count(struct queue *q, struct fxs_thread *t)
{
    if (q->count < 0 || q->count > QCAP)
        return fxs_fail(t, "the queue holds %d items (capacity %d)", (int)q->count, QCAP);
    return 0;
}

static int produce(struct queue *q, struct fxs_thread *t)
{
    int me = fxs_thread_index(t);
    if (lock_queue(q, t))
        return 1;
    while (q->count == QCAP && !q->closed) {
        if (wait_on(q, &q->not_full, t) || check_count(q, t))
            return 1;
    }
    if (q->count == QCAP) { /* closed: the run is over */
        release(q, t);
        fx_mutex_unlock(&q->m);
        return 0;
    }
    uint32_t n = ++q->produced[me];
    q->item[(q->head + q->count) % QCAP] = (uint64_t)me << 32 | n;
    q->count++;
    if (check_count(q, t))
        return 1;
    return notify_and_unlock(q, &q->not_empty, t);
}

static int consume(struct queue *q, struct fxs_thread *t)
{
    if (lock_queue(q, t))
        return 1;
    while (q->count == 0 && !q->closed) {
        if (wait_on(q, &q->not_empty, t) || check_count(q, t))
            return 1;
    }
    if (q->count == 0) {
        release(q, t);
        fx_mutex_unlock(&q->m);
        return 0;
    }
    uint64_t it = q->item[q->head];
    q->head = (q->head + 1) % QCAP;
    q->count--;
    q->consumed++;
    uint32_t p = (uint32_t)(it >> 32), n = (uint32_t)it;
    if (p >= QTHREADS || (p & 1u) != 0)
        return fxs_fail(t, "item %#" PRIx64 " from no producer", it);
    if (n != q->seen[p] + 1)
        return fxs_fail(t, "item %u of producer %u taken after its item %u"
                           " (lost, duplicated or reordered)",
                        n, p, q->seen[p]);
    q->seen[p] = n;
    if (check_count(q, t))
        return 1;
    return notify_and_unlock(q, &q->not_full, t);
}

static int c_setup(void *o)
{
    if (fxs_threads_total() > QTHREADS || fxs_threads_total() < 2)
        return -1; /* needs a producer and a consumer */
    memset(o, 0, sizeof(struct queue));
    return 0;
}

static int c_step(void *o, struct fxs_thread *t)
{
    struct queue *q = o;
    return (fxs_thread_index(t) & 1) == 0 ? produce(q, t) : consume(q, t);
}

/* The run stops: close the queue and wake both sides, so that no thread
 * waits for an item or for room that a departed thread would have made. */
static int c_leave(void *o, struct fxs_thread *t)
{
    struct queue *q = o;
    if (lock_queue(q, t))
        return 1;
    q->closed = 1;
    int r = fx_cond_broadcast(&q->not_empty), r2 = fx_cond_broadcast(&q->not_full);
    if (release(q, t))
        return 1;
    fx_mutex_unlock(&q->m);
    if (r != 0 || r2 != 0)
        return fxs_fail(t, "fx_cond_broadcast returned %d and %d", r, r2);
    return 0;
}

static int c_finish(void *o)
{
    struct queue *q = o;
    uint64_t produced = 0, queued[QTHREADS] = {0};
    for (int i = 0; i < q->count; i++)
        queued[q->item[(q->head + i) % QCAP] >> 32]++;
    for (int p = 0; p < QTHREADS; p += 2) {
        produced += q->produced[p];
        if (q->seen[p] + queued[p] != q->produced[p])
            return fxs_fail(NULL, "producer %d made %u items: %u taken, %" PRIu64 " queued", p,
                            q->produced[p], q->seen[p], queued[p]);
    }
    if (produced != q->consumed + (uint64_t)q->count)
        return fxs_fail(NULL, "%" PRIu64 " items produced, %" PRIu64 " consumed, %d queued",
                        produced, q->consumed, (int)q->count);
    const fx_cond *cs[2] = {&q->not_empty, &q->not_full};
    uint64_t left = 0;
    for (int i = 0; i < 2; i++) {
        if (cs[i]->waiters < 0 || cs[i]->park != 0)
            return fxs_fail(NULL, "condition variable %d: waiters %d, park %d at the end", i,
                            (int)cs[i]->waiters, (int)cs[i]->park);
        left += (uint64_t)cs[i]->waiters;
    }
    /* A waiter killed asleep stays counted (costs needless wakes only). */
    if (left > fxs_waiters_killed())
        return fxs_fail(NULL, "%" PRIu64 " waiters counted at the end, %" PRIu64
                              " killed asleep", left, fxs_waiters_killed());
    if (q->m.state != 0)
        return fxs_fail(NULL, "the mutex word is %d at the end", (int)q->m.state);
    return 0;
}

/* cond_pairs ----------------------------------------------------------------- */

#define NPAIRS 64

struct pairs {
    fx_mutex m; /* one mutex for every pair (cond_pairs) */
    fx_rmutex rm; /* ... or this one (cond_pairs_rmutex) */
    int32_t use_rmutex;
    int32_t closed;
    int32_t npairs;
    struct pair {
        fx_cond c;     /* the one waiting side of the pair waits here */
        int32_t full;  /* the slot holds an item */
        uint32_t item; /* the item number, 1, 2, 3... */
        uint32_t made, taken;
    } p[NPAIRS];
};

static int pairs_lock(struct pairs *x, struct fxs_thread *t)
{
    int r = x->use_rmutex ? fx_rmutex_lock(&x->rm) : fx_mutex_lock(&x->m);
    if (r != 0) /* no owner dies here: EOWNERDEAD is a failure too */
        return fxs_fail(t, "fx_%smutex_lock returned %d", x->use_rmutex ? "r" : "", r);
    return fxs_cs_enter(t);
}

static int pairs_unlock(struct pairs *x, struct fxs_thread *t)
{
    if (fxs_cs_leave(t))
        return 1;
    int r = x->use_rmutex ? fx_rmutex_unlock(&x->rm) : fx_mutex_unlock(&x->m);
    return r ? fxs_fail(t, "fx_%smutex_unlock returned %d", x->use_rmutex ? "r" : "", r) : 0;
}

/* One wait on the pair's cond: as wait_on, with this adapter's mutex. */
static int pairs_wait(struct pairs *x, fx_cond *c, struct fxs_thread *t)
{
    uint32_t k = fxs_rand(t, 64);
    if (fxs_cs_leave(t))
        return 1;
    int r;
    bool bad = false;
    fxs_wait_begin(t);
    if (k >= 32) {
        r = x->use_rmutex ? fx_cond_wait_rmutex(c, &x->rm) : fx_cond_wait(c, &x->m);
    } else {
        struct timespec d = fxs_deadline(t);
        if (k == 0) {
            d.tv_nsec = fxs_rand(t, 2) ? 1000000000L + (long)fxs_rand(t, 1000) : -1L;
            bad = true;
            fxs_count(t, FXS_N_BADDEADLINE, 1);
        }
        r = x->use_rmutex ? fx_cond_timedwait_rmutex(c, &x->rm, &d)
                          : fx_cond_timedwait(c, &x->m, &d);
    }
    fxs_wait_end(t);
    if (fxs_cs_enter(t))
        return 1;
    if (bad)
        return r == EINVAL ? 0 : fxs_fail(t, "a wait with an invalid tv_nsec returned %d", r);
    if (r == ETIMEDOUT && k < 32) {
        fxs_count(t, FXS_N_TIMEOUTS, 1);
        return 0;
    }
    if (r != 0)
        return fxs_fail(t, "fx_cond_%swait returned %d (%s)", k < 32 ? "timed" : "", r,
                        strerror(r));
    fxs_count(t, FXS_N_WAITS, 1);
    return 0;
}

static int pairs_setup(void *o)
{
    struct pairs *x = o;
    int n = fxs_threads_total();
    if (n < 2 || n % 2 != 0 || n / 2 > NPAIRS)
        return -1; /* needs an even number of threads, at most 128 */
    memset(x, 0, sizeof *x);
    x->npairs = n / 2;
    return 0;
}

static int pairs_setup_rmutex(void *o)
{
    struct pairs *x = o;
    int r = pairs_setup(o);
    x->use_rmutex = 1;
    return r;
}

static int pairs_step(void *o, struct fxs_thread *t)
{
    struct pairs *x = o;
    int me = fxs_thread_index(t);
    bool producer = me < x->npairs;
    struct pair *p = &x->p[producer ? me : me - x->npairs];
    if (pairs_lock(x, t))
        return 1;
    /* The producer waits while the slot is full, the consumer while empty. */
    while (p->full == producer && !x->closed)
        if (pairs_wait(x, &p->c, t))
            return 1;
    if (p->full == producer) /* closed: the run is over */
        return pairs_unlock(x, t);
    if (producer) {
        p->item = ++p->made;
        p->full = 1;
    } else {
        if (p->item != p->taken + 1)
            return fxs_fail(t, "took item %u after item %u", p->item, p->taken);
        p->taken = p->item;
        p->full = 0;
    }
    bool bcast = fxs_rand(t, 4) == 0, inside = fxs_rand(t, 2) == 0;
    int r = 0;
    if (inside)
        r = bcast ? fx_cond_broadcast(&p->c) : fx_cond_signal(&p->c);
    if (pairs_unlock(x, t))
        return 1;
    if (!inside)
        r = bcast ? fx_cond_broadcast(&p->c) : fx_cond_signal(&p->c);
    if (r != 0)
        return fxs_fail(t, "fx_cond_%s returned %d", bcast ? "broadcast" : "signal", r);
    return 0;
}

static int pairs_leave(void *o, struct fxs_thread *t)
{
    struct pairs *x = o;
    if (pairs_lock(x, t))
        return 1;
    x->closed = 1;
    for (int i = 0; i < x->npairs; i++)
        if (fx_cond_broadcast(&x->p[i].c) != 0)
            return fxs_fail(t, "fx_cond_broadcast failed");
    return pairs_unlock(x, t);
}

static int pairs_finish(void *o)
{
    struct pairs *x = o;
    uint64_t moved = 0, left = 0;
    for (int i = 0; i < x->npairs; i++) {
        struct pair *p = &x->p[i];
        if (p->made != p->taken + (uint32_t)p->full)
            return fxs_fail(NULL, "pair %d: %u made, %u taken, slot full %d", i, p->made,
                            p->taken, (int)p->full);
        if (p->c.waiters < 0 || p->c.park != 0)
            return fxs_fail(NULL, "pair %d: waiters %d, park %d at the end", i,
                            (int)p->c.waiters, (int)p->c.park);
        left += (uint64_t)p->c.waiters;
        moved += p->taken;
    }
    /* A waiter killed asleep stays counted (costs needless wakes only). */
    if (left > fxs_waiters_killed())
        return fxs_fail(NULL, "%" PRIu64 " waiters counted at the end, %" PRIu64
                              " killed asleep", left, fxs_waiters_killed());
    if (x->m.state != 0)
        return fxs_fail(NULL, "the mutex word is %d at the end", (int)x->m.state);
    if (x->rm.owner != 0) /* (its depth slot keeps the last owner's depth) */
        return fxs_fail(NULL, "the rmutex owner word is %#x at the end", (unsigned)x->rm.owner);
    printf("  items handed over %" PRIu64 " in %d pairs\n", moved, (int)x->npairs);
    return 0;
}

static const struct fxs_adapter cond_pairs_adapter = {
    .name = "cond_pairs",
    .what = "fx_cond: producer/consumer pairs across processes, one-item slots",
    .kind = FXS_CUSTOM,
    .caps = FXS_WAITER_KILLS,
    .size = sizeof(struct pairs),
    .setup = pairs_setup,
    .step = pairs_step,
    .leave = pairs_leave,
    .finish = pairs_finish,
};
FXS_ADAPTER(cond_pairs_adapter)

static const struct fxs_adapter cond_pairs_rmutex_adapter = {
    .name = "cond_pairs_rmutex",
    .what = "fx_cond with fx_rmutex: producer/consumer pairs across processes",
    .kind = FXS_CUSTOM,
    .caps = FXS_WAITER_KILLS,
    .size = sizeof(struct pairs),
    .setup = pairs_setup_rmutex,
    .step = pairs_step,
    .leave = pairs_leave,
    .finish = pairs_finish,
};
FXS_ADAPTER(cond_pairs_rmutex_adapter)

static const struct fxs_adapter cond_adapter = {
    .name = "cond",
    .what = "fx_cond: a bounded queue, producers and consumers, signal/broadcast, timeouts",
    .kind = FXS_CUSTOM,
    .caps = FXS_WAITER_KILLS,
    .size = sizeof(struct queue),
    .setup = c_setup,
    .step = c_step,
    .leave = c_leave,
    .finish = c_finish,
};
FXS_ADAPTER(cond_adapter)
