/* docs/man/stats.c - the EXAMPLE of the fx_stats pages: how contended was a
 * lock? (Counts need a library built with FUTEXSYNC_STATS=ON; the default
 * build answers ENOTSUP.) */
#include <futexsync.h>
#include <futexsync/stats.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>

static fx_mutex lock = FX_MUTEX_INIT;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100000; i++) {
        fx_mutex_lock(&lock);
        fx_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);

    fx_stats s;
    int r = fx_stats_read(&lock, sizeof lock, &s);
    if (r == ENOTSUP) {
        puts("not a stats build");
        return fx_stats_enabled() == 0 ? 0 : 1;
    }
    if (r != 0)
        return 1;
    printf("contended %" PRIu64 ", futex waits %" PRIu64 ", wakes %" PRIu64 "\n",
           s.contended, s.waits, s.wakes);
    return 0;
}
