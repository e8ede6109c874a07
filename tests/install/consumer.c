/* Links against an installed libfutexsync.a: 2 threads x 50000 increments. */
#include <futexsync.h>
#include <pthread.h>
#include <stdio.h>

static fx_mutex lock = FX_MUTEX_INIT;
static long count;

static void *work(void *arg)
{
    (void)arg;
    for (int i = 0; i < 50000; i++) {
        fx_mutex_lock(&lock);
        count++;
        fx_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, work, NULL);
    work(NULL);
    pthread_join(t, NULL);
    printf("consumer (C): %ld %s\n", count, count == 100000 ? "ok" : "WRONG");
    return count == 100000 ? 0 : 1;
}
