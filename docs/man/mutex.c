/* docs/man/mutex.c - the EXAMPLE of the fx_mutex pages. */
#include <futexsync.h>
#include <pthread.h>
#include <stdio.h>

static fx_mutex lock = FX_MUTEX_INIT;
static long total;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100000; i++) {
        fx_mutex_lock(&lock);
        total++;
        fx_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    printf("total %ld\n", total);
    return total == 400000 ? 0 : 1;
}
