/* docs/man/async.c - the EXAMPLE of the fx_async pages: an event loop that
 * takes a mutex without blocking, by polling the waiter's fd. */
#include <futexsync.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static fx_mutex lock = FX_MUTEX_INIT;

static void *holder(void *arg)
{
    fx_counter *started = arg;
    fx_mutex_lock(&lock);
    fx_counter_add(started, 1);
    struct timespec hold = { 0, 50 * FX_NSEC_PER_MSEC };
    nanosleep(&hold, NULL); /* hold the lock for 50 ms */
    fx_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    fx_counter started = FX_COUNTER_INIT(0);
    pthread_t t;
    pthread_create(&t, NULL, holder, &started);
    fx_counter_wait(&started, 1, NULL); /* the lock is held now */

    fx_async *w;
    if (fx_async_create(&w, FX_ASYNC_AUTO) != 0)
        return 1;
    struct timespec deadline = fx_deadline_in(5 * FX_NSEC_PER_SEC);
    int r = fx_async_mutex_lock(w, &lock, &deadline);
    while (r == EINPROGRESS) {
        struct pollfd p = { .fd = fx_async_fd(w), .events = POLLIN };
        if (poll(&p, 1, -1) < 0)
            continue; /* EINTR: poll again */
        r = fx_async_complete(w);
    }
    printf("locked: %d\n", r);
    if (r == 0)
        fx_mutex_unlock(&lock);
    pthread_join(t, NULL);
    fx_async_destroy(w);
    return r == 0 ? 0 : 1;
}
