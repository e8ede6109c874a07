/*
 * sem_queue - a bounded producer/consumer queue in MAP_SHARED memory between
 * processes, built from two fx_sem counting semaphores and an fx_mutex.
 *
 *   spaces  free slots (starts at CAPACITY): a producer takes one, a consumer
 *           gives one back
 *   items   filled slots (starts at 0, the all-zero value): a consumer takes
 *           one, a producer gives one back
 *   lock    guards the ring indexes, shared by both sides
 *
 * 2 producer processes put 10,000 numbered items each through a 16-slot ring;
 * 2 consumer processes take them and tick each item's box in shared memory.
 * When the producers are done, the parent puts one "stop" item per consumer.
 * Expected: every box ticked exactly once.
 */
#define _GNU_SOURCE
#include <futexsync.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PRODUCERS 2
#define CONSUMERS 2
#define PER_PRODUCER 10000
#define TOTAL (PRODUCERS * PER_PRODUCER)
#define CAPACITY 16
#define STOP (-1)

struct queue {
    fx_sem spaces;
    fx_sem items;
    fx_mutex lock;
    int32_t head; /* next slot to take, under lock */
    int32_t tail; /* next slot to fill, under lock */
    int32_t ring[CAPACITY];
    int32_t ticks[TOTAL]; /* how often each item was consumed */
    int32_t errors;
};

static int put(struct queue *q, int32_t item)
{
    if (fx_sem_wait(&q->spaces) != 0 || fx_mutex_lock(&q->lock) != 0)
        return -1;
    q->ring[q->tail] = item;
    q->tail = (q->tail + 1) % CAPACITY;
    fx_mutex_unlock(&q->lock);
    return fx_sem_post(&q->items);
}

static int take(struct queue *q, int32_t *item)
{
    if (fx_sem_wait(&q->items) != 0 || fx_mutex_lock(&q->lock) != 0)
        return -1;
    *item = q->ring[q->head];
    q->head = (q->head + 1) % CAPACITY;
    fx_mutex_unlock(&q->lock);
    return fx_sem_post(&q->spaces);
}

static int producer(struct queue *q, int id)
{
    for (int i = 0; i < PER_PRODUCER; i++)
        if (put(q, id * PER_PRODUCER + i) != 0)
            return 1;
    return 0;
}

static int consumer(struct queue *q)
{
    for (;;) {
        int32_t item;
        if (take(q, &item) != 0)
            return 1;
        if (item == STOP)
            return 0;
        if (item < 0 || item >= TOTAL)
            __atomic_fetch_add(&q->errors, 1, __ATOMIC_RELAXED);
        else
            __atomic_fetch_add(&q->ticks[item], 1, __ATOMIC_RELAXED);
    }
}

static pid_t spawn(struct queue *q, int role, int id)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(role ? producer(q, id) : consumer(q));
    return pid;
}

static int reap(pid_t pid)
{
    int st;
    return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

int main(void)
{
    struct queue *q = mmap(NULL, sizeof *q, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    /* Zero-filled memory: items = 0, an unlocked mutex. Only spaces starts
     * at the capacity. */
    fx_sem_init(&q->spaces, CAPACITY);

    pid_t consumers[CONSUMERS], producers[PRODUCERS];
    for (int c = 0; c < CONSUMERS; c++)
        consumers[c] = spawn(q, 0, c);
    for (int p = 0; p < PRODUCERS; p++)
        producers[p] = spawn(q, 1, p);
    int failed = 0;
    for (int p = 0; p < PRODUCERS; p++)
        failed += reap(producers[p]);
    for (int c = 0; c < CONSUMERS; c++)
        failed += put(q, STOP) != 0;
    for (int c = 0; c < CONSUMERS; c++)
        failed += reap(consumers[c]);

    int missing = 0, duplicated = 0;
    for (int i = 0; i < TOTAL; i++) {
        missing += q->ticks[i] == 0;
        duplicated += q->ticks[i] > 1;
    }
    int ok = failed == 0 && missing == 0 && duplicated == 0 && q->errors == 0 &&
             fx_sem_value(&q->items) == 0 && fx_sem_value(&q->spaces) == CAPACITY;
    printf("sem_queue: %d producer and %d consumer processes, %d items through a %d-slot "
           "queue: %d missing, %d duplicated, %d failed processes %s\n",
           PRODUCERS, CONSUMERS, TOTAL, CAPACITY, missing, duplicated, failed,
           ok ? "ok" : "WRONG");
    munmap(q, sizeof *q);
    return ok ? 0 : 1;
}
