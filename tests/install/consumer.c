/* Links against an installed libfutexsync.a: 2 threads x 50000 increments;
 * and the installed <futexsync/layout.h> (not in the umbrella) agrees with
 * the library on the layout version. */
#include <futexsync.h>
#include <futexsync/layout.h>
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
    int layout_ok = fx_layout_version() == FUTEXSYNC_LAYOUT;
    printf("consumer (C): %ld %s, layout %d %s\n", count, count == 100000 ? "ok" : "WRONG",
           FUTEXSYNC_LAYOUT, layout_ok ? "ok" : "WRONG");
    return count == 100000 && layout_ok ? 0 : 1;
}
