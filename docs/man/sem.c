/* docs/man/sem.c - the EXAMPLE of the fx_sem pages: a thread hands out work
 * items; a timed wait gives up when none comes. */
#include <futexsync.h>
#include <pthread.h>
#include <stdio.h>

static fx_sem items = FX_SEM_INIT(0);

static void *producer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10; i++)
        fx_sem_post(&items);
    return NULL;
}

int main(void)
{
    pthread_t t;
    int taken = 0;
    pthread_create(&t, NULL, producer, NULL);
    for (;;) {
        struct timespec deadline = fx_deadline_in(200 * FX_NSEC_PER_MSEC);
        int r = fx_sem_timedwait(&items, &deadline);
        if (r == ETIMEDOUT)
            break;
        if (r != 0)
            return 1;
        taken++;
    }
    pthread_join(t, NULL);
    printf("took %d items\n", taken);
    return taken == 10 ? 0 : 1;
}
