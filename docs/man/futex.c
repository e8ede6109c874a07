/* docs/man/futex.c - the EXAMPLE of the fx_futex pages: a one-shot flag
 * that a thread sleeps on until another sets it. */
#include <futexsync.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static int32_t flag; /* 0 unset, 1 set */

static void *setter(void *arg)
{
    (void)arg;
    __atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
    fx_futex_wake(&flag, 1);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, setter, NULL);
    while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) == 0) {
        int r = fx_futex_wait(&flag, 0, NULL); /* sleeps only while flag is 0 */
        if (r != 0 && r != EAGAIN)
            return 1;
    }
    pthread_join(t, NULL);
    puts("flag set");
    return 0;
}
