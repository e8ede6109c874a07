/*
 * src/stats.c - per-slot counters of the stats build (FUTEXSYNC_STATS=ON),
 * and the ENOTSUP answers of the default build.
 *
 * The table: FX_STATS_WORDS records, one cache line each (two hot locks never
 * share a line), found by open addressing with linear probing from a hash of
 * the slot's address. A record's key goes through these states:
 *
 *   key      meaning                     transition                 by
 *   0        free                        0 -> address (CAS)         first event on a slot
 *   address  the record of that slot     address -> 0               fx_stats_reset(NULL, 0)
 *
 * Keys are never removed one by one, so a probe that reaches a free record
 * knows the slot has no record further on. A full table counts into the
 * `untracked` record, which the totals include. Counters only grow (or are
 * zeroed by a reset); nothing else is published through the table, so every
 * atomic here is relaxed: the numbers are monitoring data, and a reader needs
 * no ordering with the operations it counts.
 *
 * docs/stats.md.
 */
#include "futexsync/stats.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(FUTEXSYNC_STATS)

#include "internal/stats.h"

_Static_assert((FX_STATS_WORDS & (FX_STATS_WORDS - 1)) == 0, "FX_STATS_WORDS is a power of 2");

struct fx_stat_rec {
    uintptr_t key;                /* 0: free; else the slot's address */
    uint64_t n[FX_STAT_K_COUNT];  /* indexed by enum fxi_stat_kind */
} __attribute__((aligned(64)));

static struct fx_stat_rec stat_table[FX_STATS_WORDS];
static struct fx_stat_rec stat_untracked; /* events the table had no room for */

static inline size_t stat_hash(uintptr_t key)
{
    /* Fibonacci hashing of the word index: neighbouring slots spread out. */
    uint64_t h = (uint64_t)(key >> 2) * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 32) & (FX_STATS_WORDS - 1);
}

/* The record of word, claimed if it has none; NULL when the table is full. */
static struct fx_stat_rec *stat_find(uintptr_t key)
{
    size_t i = stat_hash(key);
    for (size_t probe = 0; probe < FX_STATS_WORDS; probe++) {
        struct fx_stat_rec *r = &stat_table[i];
        /* Relaxed: the key is the only datum of the claim (see the top). */
        uintptr_t k = __atomic_load_n(&r->key, __ATOMIC_RELAXED);
        if (k == key)
            return r;
        if (k == 0) {
            if (__atomic_compare_exchange_n(&r->key, &k, key, false, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED) ||
                k == key)
                return r; /* claimed by us, or by a thread counting the same slot */
        }
        i = (i + 1) & (FX_STATS_WORDS - 1);
    }
    return NULL;
}

void fxi_stat_add(const void *word, enum fxi_stat_kind kind, uint64_t n)
{
    struct fx_stat_rec *r = stat_find((uintptr_t)word);
    if (r == NULL)
        r = &stat_untracked;
    /* Relaxed: a counter (see the top). */
    __atomic_fetch_add(&r->n[kind], n, __ATOMIC_RELAXED);
}

void fxi_stat_waited(const void *word, long r)
{
    struct fx_stat_rec *rec = stat_find((uintptr_t)word);
    if (rec == NULL)
        rec = &stat_untracked;
    /* Relaxed: counters (see the top). */
    __atomic_fetch_add(&rec->n[FX_STAT_K_WAITS], 1, __ATOMIC_RELAXED);
    if (r == -ETIMEDOUT)
        __atomic_fetch_add(&rec->n[FX_STAT_K_TIMEOUTS], 1, __ATOMIC_RELAXED);
}

/* Adds record r's counters to *out. */
static void stat_sum(const struct fx_stat_rec *r, fx_stats *out)
{
    /* Relaxed: counters (see the top). */
    out->contended += __atomic_load_n(&r->n[FX_STAT_K_CONTENDED], __ATOMIC_RELAXED);
    out->waits += __atomic_load_n(&r->n[FX_STAT_K_WAITS], __ATOMIC_RELAXED);
    out->wakes += __atomic_load_n(&r->n[FX_STAT_K_WAKES], __ATOMIC_RELAXED);
    out->spins += __atomic_load_n(&r->n[FX_STAT_K_SPINS], __ATOMIC_RELAXED);
    out->timeouts += __atomic_load_n(&r->n[FX_STAT_K_TIMEOUTS], __ATOMIC_RELAXED);
}

static void stat_zero(struct fx_stat_rec *r)
{
    for (int k = 0; k < FX_STAT_K_COUNT; k++)
        __atomic_store_n(&r->n[k], 0, __ATOMIC_RELAXED); /* relaxed: a counter */
}

static uint64_t stat_untracked_events(void)
{
    fx_stats u;
    memset(&u, 0, sizeof u);
    stat_sum(&stat_untracked, &u);
    return u.contended + u.waits + u.wakes + u.spins + u.timeouts;
}

/* True when key lies in [start, start + size). */
static inline bool stat_in(uintptr_t key, uintptr_t start, size_t size)
{
    return key - start < size;
}

int fx_stats_enabled(void)
{
    return 1;
}

int fx_stats_read(const void *obj, size_t size, fx_stats *out)
{
    if (out == NULL || (obj != NULL && size == 0))
        return EINVAL;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < FX_STATS_WORDS; i++) {
        const struct fx_stat_rec *r = &stat_table[i];
        /* Relaxed: see the top. */
        uintptr_t k = __atomic_load_n(&r->key, __ATOMIC_RELAXED);
        if (k == 0 || (obj != NULL && !stat_in(k, (uintptr_t)obj, size)))
            continue;
        stat_sum(r, out);
        out->words++;
    }
    out->untracked = stat_untracked_events();
    if (obj == NULL)
        stat_sum(&stat_untracked, out);
    return 0;
}

int fx_stats_reset(const void *obj, size_t size)
{
    if (obj != NULL && size == 0)
        return EINVAL;
    for (size_t i = 0; i < FX_STATS_WORDS; i++) {
        struct fx_stat_rec *r = &stat_table[i];
        /* Relaxed: see the top. */
        uintptr_t k = __atomic_load_n(&r->key, __ATOMIC_RELAXED);
        if (k == 0 || (obj != NULL && !stat_in(k, (uintptr_t)obj, size)))
            continue;
        stat_zero(r);
        if (obj == NULL)
            __atomic_store_n(&r->key, 0, __ATOMIC_RELAXED);
    }
    if (obj == NULL)
        stat_zero(&stat_untracked);
    return 0;
}

/* Ordering of fx_stats_list: more futex calls first, then more contention. */
static bool stat_hotter(const fx_stats *a, const fx_stats *b)
{
    uint64_t ca = a->waits + a->wakes, cb = b->waits + b->wakes;
    if (ca != cb)
        return ca > cb;
    return a->contended > b->contended;
}

int fx_stats_list(fx_stats_word *out, size_t max, size_t *count)
{
    if (count == NULL || (out == NULL && max > 0))
        return EINVAL;
    size_t n = 0;
    uint64_t untracked = stat_untracked_events();
    for (size_t i = 0; i < FX_STATS_WORDS && max > 0; i++) {
        const struct fx_stat_rec *r = &stat_table[i];
        /* Relaxed: see the top. */
        uintptr_t k = __atomic_load_n(&r->key, __ATOMIC_RELAXED);
        if (k == 0)
            continue;
        fx_stats_word w;
        memset(&w, 0, sizeof w);
        w.word = (const void *)k;
        stat_sum(r, &w.stats);
        w.stats.words = 1;
        w.stats.untracked = untracked;
        if (w.stats.contended + w.stats.waits + w.stats.wakes + w.stats.spins +
                w.stats.timeouts ==
            0)
            continue; /* reset since it was claimed */
        /* Insertion into the sorted top-max prefix of out. */
        size_t pos = n < max ? n++ : max;
        if (pos == max) {
            if (!stat_hotter(&w.stats, &out[max - 1].stats))
                continue;
            pos = max - 1;
        }
        while (pos > 0 && stat_hotter(&w.stats, &out[pos - 1].stats)) {
            out[pos] = out[pos - 1];
            pos--;
        }
        out[pos] = w;
    }
    *count = n;
    return 0;
}

#else /* !FUTEXSYNC_STATS: the API exists, and says it counts nothing */

int fx_stats_enabled(void)
{
    return 0;
}

int fx_stats_read(const void *obj, size_t size, fx_stats *out)
{
    if (out == NULL || (obj != NULL && size == 0))
        return EINVAL;
    memset(out, 0, sizeof *out);
    return ENOTSUP;
}

int fx_stats_reset(const void *obj, size_t size)
{
    if (obj != NULL && size == 0)
        return EINVAL;
    return ENOTSUP;
}

int fx_stats_list(fx_stats_word *out, size_t max, size_t *count)
{
    if (count == NULL || (out == NULL && max > 0))
        return EINVAL;
    *count = 0;
    return ENOTSUP;
}

#endif
