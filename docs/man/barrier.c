/* docs/man/barrier.c - the EXAMPLE of the fx_barrier pages: threads meet
 * after each phase; one of them, the last to arrive, reports. */
#include <futexsync.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
static fx_barrier phase = FX_BARRIER_INIT;
static fx_counter done = FX_COUNTER_INIT(0);

static void *worker(void *arg)
{
    (void)arg;
    for (int p = 0; p < 3; p++) {
        fx_counter_add(&done, 1); /* this phase's work */
        int r = fx_barrier_wait(&phase, THREADS);
        if (r == FX_BARRIER_SERIAL_THREAD)
            printf("phase %d: %d done\n", p, fx_counter_load(&done));
        else if (r != 0)
            return (void *)1;
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    return fx_counter_load(&done) == 3 * THREADS ? 0 : 1;
}
