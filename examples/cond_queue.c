/*
 * cond_queue - a bounded producer/consumer queue shared by processes: an
 * fx_mutex and two fx_cond (not_full, not_empty) in MAP_SHARED memory.
 *
 * 3 producer processes each put 20,000 numbered items into a 16-slot ring;
 * 3 consumer processes take them out. Every consumer marks each item it takes
 * in a shared table, so the parent can check that every item was consumed
 * exactly once. A consumer that takes the last item broadcasts not_empty so
 * the others, asleep on an empty queue, see that the work is done. Zero-filled
 * shared memory is already an unlocked mutex, two condition variables nobody
 * waits on and an empty queue: there is no init call.
 */
#define _GNU_SOURCE
#include <futexsync.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PRODUCERS 3
#define CONSUMERS 3
#define PER_PRODUCER 20000
#define TOTAL (PRODUCERS * PER_PRODUCER)
#define CAPACITY 16

struct shared {
    fx_mutex lock;
    fx_cond not_full;  /* signalled when a slot frees up */
    fx_cond not_empty; /* signalled when an item arrives, broadcast at the end */
    int32_t head, count, taken;    /* under lock */
    int32_t ring[CAPACITY];        /* under lock */
    int32_t per_consumer[CONSUMERS];
    int32_t failures;              /* a wait returned an error, under lock */
    uint8_t seen[TOTAL];           /* seen[id]: times item id was taken, under lock */
};

static void produce(struct shared *sh, int p)
{
    for (int i = 0; i < PER_PRODUCER; i++) {
        fx_mutex_lock(&sh->lock);
        while (sh->count == CAPACITY)
            if (fx_cond_wait(&sh->not_full, &sh->lock) != 0)
                sh->failures++;
        sh->ring[(sh->head + sh->count) % CAPACITY] = p * PER_PRODUCER + i;
        sh->count++;
        fx_cond_signal(&sh->not_empty);
        fx_mutex_unlock(&sh->lock);
    }
}

static void consume(struct shared *sh, int k)
{
    for (;;) {
        fx_mutex_lock(&sh->lock);
        while (sh->count == 0 && sh->taken < TOTAL)
            if (fx_cond_wait(&sh->not_empty, &sh->lock) != 0)
                sh->failures++;
        if (sh->taken == TOTAL) {
            fx_mutex_unlock(&sh->lock);
            return;
        }
        int32_t id = sh->ring[sh->head];
        sh->head = (sh->head + 1) % CAPACITY;
        sh->count--;
        sh->seen[id]++;
        if (++sh->taken == TOTAL)
            fx_cond_broadcast(&sh->not_empty); /* wake the idle consumers: done */
        fx_cond_signal(&sh->not_full);
        fx_mutex_unlock(&sh->lock);
        sh->per_consumer[k]++;
    }
}

int main(void)
{
    struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("mmap");
        return 1;
    }

    pid_t pids[PRODUCERS + CONSUMERS];
    int n = 0;
    for (int k = 0; k < CONSUMERS; k++, n++) {
        if ((pids[n] = fork()) == 0) {
            consume(sh, k);
            _exit(0);
        }
    }
    for (int p = 0; p < PRODUCERS; p++, n++) {
        if ((pids[n] = fork()) == 0) {
            produce(sh, p);
            _exit(0);
        }
    }

    int bad_children = 0;
    for (int i = 0; i < n; i++) {
        int st;
        if (pids[i] < 0 || waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) ||
            WEXITSTATUS(st) != 0)
            bad_children++;
    }

    int once = 0, missing = 0, twice = 0;
    for (int id = 0; id < TOTAL; id++) {
        once += sh->seen[id] == 1;
        missing += sh->seen[id] == 0;
        twice += sh->seen[id] > 1;
    }
    long consumed = 0;
    for (int k = 0; k < CONSUMERS; k++)
        consumed += sh->per_consumer[k];

    int ok = bad_children == 0 && once == TOTAL && consumed == TOTAL && sh->count == 0 &&
             sh->failures == 0;
    printf("cond_queue: %d producers x %d items through a %d-slot queue to %d consumers "
           "(processes)\n",
           PRODUCERS, PER_PRODUCER, CAPACITY, CONSUMERS);
    printf("cond_queue: consumed %ld of %d, per consumer", consumed, TOTAL);
    for (int k = 0; k < CONSUMERS; k++)
        printf(" %d", sh->per_consumer[k]);
    printf("; exactly once %d, missing %d, duplicated %d, wait errors %d, failed children %d "
           "%s\n",
           once, missing, twice, sh->failures, bad_children, ok ? "ok" : "WRONG");
    munmap(sh, sizeof *sh);
    return ok ? 0 : 1;
}
