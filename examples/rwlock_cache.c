/*
 * rwlock_cache - a read-mostly cache guarded by one fx_rwlock.
 *
 * A 256-entry direct-mapped cache remembers an expensive function of 1024
 * possible keys. Lookups take the lock for reading; a miss computes the value
 * and installs it under the write lock (evicting the entry that was there).
 * Each entry is three words (key, value, check) that a torn read would mix up.
 *
 * 4 threads do 100,000 lookups each over a skewed key distribution (most
 * lookups hit, so reads dominate). Expected: every lookup returns exactly
 * expensive(key), and hits + misses equals the number of lookups.
 */
#define _GNU_SOURCE
#include <futexsync.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define THREADS 4
#define LOOKUPS 100000
#define KEYS 1024
#define ENTRIES 256

struct entry {
    int32_t key; /* -1: empty */
    int64_t value;
    int64_t check; /* value ^ key, to catch a torn entry */
};

static fx_rwlock lock = FX_RWLOCK_INIT; /* zero: no init call */
static struct entry cache[ENTRIES];
static long hits, misses, wrong;

static int64_t expensive(int32_t key)
{
    uint64_t x = (uint64_t)key * 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 50; i++)
        x ^= x >> 31, x *= 0xbf58476d1ce4e5b9ull;
    return (int64_t)(x >> 1);
}

/* Returns the value for key, and whether it was a hit. */
static int64_t lookup(int32_t key, int *hit)
{
    struct entry *e = &cache[key % ENTRIES];
    if (fx_rwlock_rdlock(&lock) != 0) /* EAGAIN: FX_RWLOCK_MAX_READERS readers */
        return *hit = 0, 0;
    int found = e->key == key;
    int64_t value = e->value, check = e->check;
    fx_rwlock_rdunlock(&lock); /* the mode is known: skip reading the word */
    if (found && (value ^ key) == check) {
        *hit = 1;
        return value;
    }
    if (found)
        __atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED); /* torn entry */
    *hit = 0;
    value = expensive(key); /* computed outside the lock */
    fx_rwlock_wrlock(&lock);
    e->key = key;
    e->value = value;
    e->check = value ^ key;
    fx_rwlock_wrunlock(&lock);
    return value;
}

static void *worker(void *arg)
{
    uint32_t x = (uint32_t)(uintptr_t)arg * 2654435761u + 1;
    long h = 0, m = 0, bad = 0;
    for (int i = 0; i < LOOKUPS; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        /* 15 of 16 lookups go to 128 hot keys, the rest anywhere. */
        int32_t key = (x & 15) ? (int32_t)((x >> 4) % 128) : (int32_t)((x >> 4) % KEYS);
        int hit;
        if (lookup(key, &hit) != expensive(key))
            bad++;
        hit ? h++ : m++;
    }
    __atomic_fetch_add(&hits, h, __ATOMIC_RELAXED);
    __atomic_fetch_add(&misses, m, __ATOMIC_RELAXED);
    __atomic_fetch_add(&wrong, bad, __ATOMIC_RELAXED);
    return NULL;
}

int main(void)
{
    for (int i = 0; i < ENTRIES; i++)
        cache[i].key = -1;
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)) != 0) {
            perror("pthread_create");
            return 1;
        }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    int ok = wrong == 0 && hits + misses == (long)THREADS * LOOKUPS && hits > misses;
    printf("rwlock_cache: %d threads x %d lookups: %ld hits, %ld misses, %ld wrong values %s\n",
           THREADS, LOOKUPS, hits, misses, wrong, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
