/*
 * counter_threads - 4 threads update one count 100,000 times each.
 *
 * First under an fx_mutex: +1 each (400000 expected), then -1 each (0
 * expected). Then the same without a lock, with fx_counter_add. Prints the
 * results and exits non-zero if any is wrong.
 */
#define _POSIX_C_SOURCE 200809L
#include <futexsync.h>
#include <pthread.h>
#include <stdio.h>

#define WORKERS 4
#define ROUNDS 100000

static fx_mutex lock = FX_MUTEX_INIT;
static long count; /* protected by lock */
static fx_counter atomic_count = FX_COUNTER_INIT(0);

struct job {
    int delta;
    int use_counter;
};

static void *worker(void *arg)
{
    const struct job *job = arg;
    for (int i = 0; i < ROUNDS; i++) {
        if (job->use_counter) {
            fx_counter_add(&atomic_count, job->delta);
        } else {
            fx_mutex_lock(&lock);
            count += job->delta;
            fx_mutex_unlock(&lock);
        }
    }
    return NULL;
}

static long run(int delta, int use_counter)
{
    pthread_t t[WORKERS];
    struct job job = {delta, use_counter};
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, &job);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    return use_counter ? fx_counter_load(&atomic_count) : count;
}

static int check(const char *what, long got, long want)
{
    printf("counter_threads: %-28s %7ld (expected %ld) %s\n", what, got, want,
           got == want ? "ok" : "WRONG");
    return got == want ? 0 : 1;
}

int main(void)
{
    int bad = 0;
    bad |= check("fx_mutex, +1 x 4 x 100000:", run(+1, 0), (long)WORKERS * ROUNDS);
    bad |= check("fx_mutex, -1 x 4 x 100000:", run(-1, 0), 0);
    bad |= check("fx_counter_add, +1:", run(+1, 1), (long)WORKERS * ROUNDS);
    bad |= check("fx_counter_add, -1:", run(-1, 1), 0);
    return bad;
}
