/*
 * tests/genmc/rwlock_timed.c - fx_rwlock's timed locks (src/rwlock.c) that
 * time out, under GenMC with -DFXG_TIMEOUT (the deadline passes once, at
 * any point: model.h).
 *
 * A holder takes the lock (a writer, or with -DWRITER a reader) and
 * releases it at any point; once it holds the lock, a timed locker (a
 * reader, or with -DWRITER a writer) asks for it with a deadline: it gets
 * the lock (0) or ETIMEDOUT, possibly after sleeping. A timed-out writer
 * gives up its intent (writer_give_up: WP and WW cleared, a waiting writer
 * or the readers woken). -DLATE=1: a reader, -DLATE=2: a writer, also
 * comes once the holder has the lock (so perhaps while the timed locker
 * waits), and must get in however the timed locker ends.
 * Checks: exclusion (counts asserted on entry), the critical sections
 * ordered (a race on the plain counter otherwise), no lost wake-up
 * (--check-liveness: a reader held back by a writer that gave up, or a
 * sleeper nobody wakes, is reported), and the state word ends 0: no
 * reader counted, WL clear, and no WP, WW or RW left behind (a stale WP or
 * WW would keep the next readers out until its intent goes stale).
 */
#include "model.h"

#include "src/rwlock.c"

#ifndef LATE
#define LATE 0
#endif

static fx_rwlock l;
static int holds;            /* the holder has the lock: the timed locker starts */
static int readers, writers; /* inside: atomic, relaxed (witnesses only) */
static int counter;          /* plain */

static void enter_read(void)
{
    __atomic_fetch_add(&readers, 1, __ATOMIC_RELAXED);
    assert(__atomic_load_n(&writers, __ATOMIC_RELAXED) == 0);
    assert(counter >= 0);
    __atomic_fetch_sub(&readers, 1, __ATOMIC_RELAXED);
}

static void enter_write(void)
{
    assert(__atomic_fetch_add(&writers, 1, __ATOMIC_RELAXED) == 0);
    assert(__atomic_load_n(&readers, __ATOMIC_RELAXED) == 0);
    counter++;
    __atomic_fetch_sub(&writers, 1, __ATOMIC_RELAXED);
}

static void *holder(void *arg)
{
    (void)arg;
    fxg_thread_start(1);
#ifdef WRITER
    assert(fx_rwlock_rdlock(&l) == 0);
    __atomic_store_n(&holds, 1, __ATOMIC_RELEASE);
    enter_read();
#else
    assert(fx_rwlock_wrlock(&l) == 0);
    __atomic_store_n(&holds, 1, __ATOMIC_RELEASE);
    enter_write();
#endif
    assert(fx_rwlock_unlock(&l) == 0);
    return NULL;
}

static void *timed(void *arg)
{
    (void)arg;
    fxg_thread_start(2);
    fxg_await(&holds);
    struct timespec d = {1, 0};
#ifdef WRITER
    int r = fx_rwlock_timedwrlock(&l, &d);
#else
    int r = fx_rwlock_timedrdlock(&l, &d);
#endif
    assert(r == 0 || r == ETIMEDOUT);
    if (r == 0) {
#ifdef WRITER
        enter_write();
#else
        enter_read();
#endif
        assert(fx_rwlock_unlock(&l) == 0);
    }
    return NULL;
}

#if LATE
/* A locker that comes while the timed one may wait. */
static void *late(void *arg)
{
    (void)arg;
    fxg_thread_start(3);
    fxg_await(&holds);
#if LATE == 1
    assert(fx_rwlock_rdlock(&l) == 0);
    enter_read();
#else
    assert(fx_rwlock_wrlock(&l) == 0);
    enter_write();
#endif
    assert(fx_rwlock_unlock(&l) == 0);
    return NULL;
}
#endif

int main(void)
{
    pthread_t h, t;
    fxg_clock_start();
    pthread_create(&h, NULL, holder, NULL);
    pthread_create(&t, NULL, timed, NULL);
#if LATE
    pthread_t r;
    pthread_create(&r, NULL, late, NULL);
    pthread_join(r, NULL);
#endif
    pthread_join(h, NULL);
    pthread_join(t, NULL);
    fxg_clock_join();
    /* No reader counted, WL clear, and no waiter's bit left: a timed-out
     * locker took back its marks (the writer's give-up clears WP and WW)
     * or a release cleared them. */
    assert(l.state == 0);
    return 0;
}
