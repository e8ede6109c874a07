/* docs/man/counter.c - the EXAMPLE of the fx_counter pages: wait until every
 * worker has finished. */
#include <futexsync.h>
#include <pthread.h>
#include <stdio.h>

#define WORKERS 4
static fx_counter finished = FX_COUNTER_INIT(0);

static void *worker(void *arg)
{
    (void)arg;
    fx_counter_add(&finished, 1); /* wakes the waiters once it reaches their target */
    return NULL;
}

int main(void)
{
    pthread_t t[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    struct timespec deadline = fx_deadline_in(5 * FX_NSEC_PER_SEC);
    int r = fx_counter_wait_ge(&finished, WORKERS, &deadline);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    printf("wait: %d, finished %d\n", r, fx_counter_load(&finished));
    return r == 0 ? 0 : 1;
}
