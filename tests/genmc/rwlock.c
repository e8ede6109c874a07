/*
 * tests/genmc/rwlock.c - fx_rwlock (src/rwlock.c) under GenMC.
 *
 * NR readers take the lock shared (fx_rwlock_rdlock) and NWR writers
 * exclusive (fx_rwlock_wrlock), ITER times each; fx_rwlock_unlock releases.
 * Writers increment a plain counter; readers read it.
 * Checks: exclusion (a writer finds no other writer and no reader inside;
 * a reader finds no writer inside: counts asserted on entry); the critical
 * sections are ordered (GenMC reports a race on the plain counter
 * otherwise: a writer's unlock not met by the next holder's acquire, or a
 * reader's unlock not met by the next writer's); the count is conserved
 * (NWR * ITER); no lost wake-up (--check-liveness); the lock ends free.
 * -DSPLIT: readers release with fx_rwlock_rdunlock and writers with
 * fx_rwlock_wrunlock (the mode-specific paths) instead of fx_rwlock_unlock.
 */
#include "model.h"

#include "src/rwlock.c"

#ifndef NR
#define NR 1
#endif
#ifndef NWR
#define NWR 1
#endif
#ifndef ITER
#define ITER 1
#endif
#ifdef SPLIT
#define RD_UNLOCK fx_rwlock_rdunlock
#define WR_UNLOCK fx_rwlock_wrunlock
#else
#define RD_UNLOCK fx_rwlock_unlock
#define WR_UNLOCK fx_rwlock_unlock
#endif

static fx_rwlock l;
static int readers, writers; /* inside: atomic, relaxed (witnesses only) */
static int counter;          /* plain */

static void *reader(void *arg)
{
    fxg_thread_start((uint32_t)(intptr_t)arg + 1);
    for (int i = 0; i < ITER; i++) {
        assert(fx_rwlock_rdlock(&l) == 0);
        __atomic_fetch_add(&readers, 1, __ATOMIC_RELAXED);
        assert(__atomic_load_n(&writers, __ATOMIC_RELAXED) == 0);
        int seen = counter;
        assert(seen >= 0 && seen <= NWR * ITER);
        __atomic_fetch_sub(&readers, 1, __ATOMIC_RELAXED);
        assert(RD_UNLOCK(&l) == 0);
    }
    return NULL;
}

static void *writer(void *arg)
{
    fxg_thread_start((uint32_t)(NR + 1 + (intptr_t)arg));
    for (int i = 0; i < ITER; i++) {
        assert(fx_rwlock_wrlock(&l) == 0);
        assert(__atomic_fetch_add(&writers, 1, __ATOMIC_RELAXED) == 0);
        assert(__atomic_load_n(&readers, __ATOMIC_RELAXED) == 0);
        counter++;
        __atomic_fetch_sub(&writers, 1, __ATOMIC_RELAXED);
        assert(WR_UNLOCK(&l) == 0);
    }
    return NULL;
}

int main(void)
{
    pthread_t r[NR > 0 ? NR : 1], w[NWR > 0 ? NWR : 1];
    fxg_spawn(r, NR, reader);
    fxg_spawn(w, NWR, writer);
    fxg_join(r, NR);
    fxg_join(w, NWR);
    assert(counter == NWR * ITER);
    assert((l.state & 0x00ffffff) == 0); /* no reader counted, WL clear */
    return 0;
}
