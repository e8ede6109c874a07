/*
 * slots - the "memory + offset" style of Atomics.wait/notify code: one shared
 * int32_t array, slot 0 is the mutex and slot 1 the data it protects.
 * 4 workers x 200 increments; expected 800.
 *
 * fx_mutex is a struct of exactly one int32_t, so a pointer to any 4-byte
 * aligned int32_t slot is a valid mutex.
 */
#define _POSIX_C_SOURCE 200809L
#include <futexsync.h>
#include <futexsync/layout.h>
#include <pthread.h>
#include <stdio.h>

#define WORKERS 4
#define ROUNDS 200

enum { SLOT_LOCK = 0, SLOT_DATA = 1, SLOTS = 2 };

static int32_t memory[SLOTS]; /* all zero: unlocked, count 0 */

static void *worker(void *arg)
{
    (void)arg;
    fx_mutex *lock = (fx_mutex *)&memory[SLOT_LOCK];
    for (int i = 0; i < ROUNDS; i++) {
        fx_mutex_lock(lock);
        int32_t v = memory[SLOT_DATA]; /* a read-modify-write the lock makes atomic */
        memory[SLOT_DATA] = v + 1;
        fx_mutex_unlock(lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    int ok = memory[SLOT_DATA] == WORKERS * ROUNDS && memory[SLOT_LOCK] == FX_MUTEX_UNLOCKED;
    printf("slots: memory[1] = %d after %d workers x %d increments (expected %d), "
           "memory[0] = %d (unlocked) %s\n",
           memory[SLOT_DATA], WORKERS, ROUNDS, WORKERS * ROUNDS, memory[SLOT_LOCK],
           ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
