/* docs/man/cond.c - the EXAMPLE of the fx_cond pages: a one-slot mailbox. */
#include <futexsync.h>
#include <pthread.h>
#include <stdio.h>

static fx_mutex lock = FX_MUTEX_INIT;
static fx_cond changed = FX_COND_INIT;
static int full, value;

static void *producer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= 100; i++) {
        fx_mutex_lock(&lock);
        while (full)
            fx_cond_wait(&changed, &lock);
        value = i;
        full = 1;
        fx_cond_broadcast(&changed);
        fx_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t t;
    long sum = 0;
    pthread_create(&t, NULL, producer, NULL);
    for (int i = 0; i < 100; i++) {
        fx_mutex_lock(&lock);
        while (!full)
            fx_cond_wait(&changed, &lock);
        sum += value;
        full = 0;
        fx_cond_broadcast(&changed);
        fx_mutex_unlock(&lock);
    }
    pthread_join(t, NULL);
    printf("sum %ld\n", sum);
    return sum == 5050 ? 0 : 1;
}
