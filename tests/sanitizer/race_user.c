/*
 * tests/sanitizer/race_user.c - a user's program, built with the user's race
 * detector (-fsanitize=thread, or plain for Helgrind/DRD) and linked against
 * the ordinary release libfutexsync.a: 8 threads update a shared int under
 * each futexsync primitive, so that a race detector that is told nothing by
 * the library would report a race that is not there.
 *
 *   race_user MODE locked [ROUNDS]   through the primitive: no race
 *   race_user MODE racy   [ROUNDS]   the same program without it: a race
 *
 * MODE:
 *   mutex    fx_mutex lock, counter++, unlock
 *   rmutex   fx_rmutex lock, counter++, unlock
 *   rwlock   fx_rwlock wrlock, counter++, unlock
 *   sem      a binary fx_sem (initial 1): wait, counter++, post
 *   cond     handoff: the threads take turns (turn % 8 == id) through an
 *            fx_cond and an fx_mutex, counter++ in their turn
 *   barrier  phases of an fx_barrier of 8: in phase p, thread p % 8 does
 *            counter++
 *   once     round r: every thread calls fx_once_call(&once[r]); the
 *            initialiser does counter++ and sets value[r], which every
 *            thread then reads (racy: a plain flag instead of the fx_once)
 *   counter  publication through fx_counter: the thread whose turn it is
 *            waits for the count, does counter++, then adds 1 to the count
 *
 * locked: exits 0 when the final counter is exact, 1 otherwise. racy: exits 0
 * whatever the counter. The detector judges: tests/sanitizer/race_user.sh.
 */
#define _GNU_SOURCE
#include <futexsync/barrier.h>
#include <futexsync/cond.h>
#include <futexsync/counter.h>
#include <futexsync/mutex.h>
#include <futexsync/once.h>
#include <futexsync/rmutex.h>
#include <futexsync/rwlock.h>
#include <futexsync/sem.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define MAX_ROUNDS 100000

static int counter; /* the user's shared data */
static int locked;
static int rounds;
static const char *mode;

static fx_mutex mutex;
static fx_rmutex rmutex;
static fx_rwlock rwlock;
static fx_sem sem = FX_SEM_INIT(1);
static fx_cond cond;
static int turn; /* cond: whose turn it is, under mutex */
static fx_barrier barrier;
static fx_counter count;
static fx_once *once;
static int *once_value; /* set by round r's initialiser */
static int *racy_flag;  /* racy once: the plain flag */

static int failed; /* a primitive returned an error (written before join) */

static void check(int r, const char *what)
{
    if (r != 0) {
        fprintf(stderr, "race_user: %s returned %d\n", what, r);
        __atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
    }
}

static void once_init(void *arg)
{
    int r = (int)(intptr_t)arg;
    counter++;
    once_value[r] = r + 1;
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int r = 0; r < rounds; r++) {
        if (strcmp(mode, "mutex") == 0) {
            if (locked)
                check(fx_mutex_lock(&mutex), "fx_mutex_lock");
            counter++;
            if (locked)
                check(fx_mutex_unlock(&mutex), "fx_mutex_unlock");
        } else if (strcmp(mode, "rmutex") == 0) {
            if (locked)
                check(fx_rmutex_lock(&rmutex), "fx_rmutex_lock");
            counter++;
            if (locked)
                check(fx_rmutex_unlock(&rmutex), "fx_rmutex_unlock");
        } else if (strcmp(mode, "rwlock") == 0) {
            if (locked)
                check(fx_rwlock_wrlock(&rwlock), "fx_rwlock_wrlock");
            counter++;
            if (locked)
                check(fx_rwlock_unlock(&rwlock), "fx_rwlock_unlock");
        } else if (strcmp(mode, "sem") == 0) {
            if (locked)
                check(fx_sem_wait(&sem), "fx_sem_wait");
            counter++;
            if (locked)
                check(fx_sem_post(&sem), "fx_sem_post");
        } else if (strcmp(mode, "cond") == 0) {
            if (!locked) {
                counter++;
                continue;
            }
            check(fx_mutex_lock(&mutex), "fx_mutex_lock");
            while (turn % THREADS != id)
                check(fx_cond_wait(&cond, &mutex), "fx_cond_wait");
            counter++;
            turn++;
            check(fx_cond_broadcast(&cond), "fx_cond_broadcast");
            check(fx_mutex_unlock(&mutex), "fx_mutex_unlock");
        } else if (strcmp(mode, "barrier") == 0) {
            if (r % THREADS == id)
                counter++;
            if (locked) {
                int b = fx_barrier_wait(&barrier, THREADS);
                check(b == FX_BARRIER_SERIAL_THREAD ? 0 : b, "fx_barrier_wait");
            }
        } else if (strcmp(mode, "once") == 0) {
            if (locked) {
                check(fx_once_call(&once[r], once_init, (void *)(intptr_t)r), "fx_once_call");
                if (once_value[r] != r + 1)
                    check(-1, "the fx_once initialiser's value");
            } else if (!racy_flag[r]) {
                racy_flag[r] = 1;
                once_init((void *)(intptr_t)r);
            }
        } else if (strcmp(mode, "counter") == 0) {
            if (locked)
                check(fx_counter_wait(&count, r * THREADS + id, NULL), "fx_counter_wait");
            counter++;
            if (locked)
                fx_counter_add(&count, 1);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"mutex", "rmutex", "rwlock", "sem",
                                        "cond",  "barrier", "once",  "counter"};
    if (argc < 3 || argc > 4 || (strcmp(argv[2], "locked") != 0 && strcmp(argv[2], "racy") != 0)) {
        fprintf(stderr, "usage: race_user MODE locked|racy [ROUNDS]\n");
        return 2;
    }
    mode = NULL;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(argv[1], modes[i]) == 0)
            mode = modes[i];
    if (mode == NULL) {
        fprintf(stderr, "race_user: unknown mode %s\n", argv[1]);
        return 2;
    }
    locked = strcmp(argv[2], "locked") == 0;
    rounds = argc == 4 ? atoi(argv[3]) : 1000;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "race_user: ROUNDS must be 1..%d\n", MAX_ROUNDS);
        return 2;
    }
    once = calloc((size_t)rounds, sizeof *once);
    once_value = calloc((size_t)rounds, sizeof *once_value);
    racy_flag = calloc((size_t)rounds, sizeof *racy_flag);
    if (once == NULL || once_value == NULL || racy_flag == NULL)
        return 2;

    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) != 0)
            return 2;
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);

    int expect = rounds * THREADS;
    if (strcmp(mode, "barrier") == 0 || strcmp(mode, "once") == 0)
        expect = rounds;
    printf("race_user %s %s: counter = %d (expected %d)\n", mode, argv[2], counter, expect);
    if (locked && (failed || counter != expect))
        return 1;
    return 0;
}
