/* docs/man/rwlock.c - the EXAMPLE of the fx_rwlock pages: readers share a
 * table, a writer replaces it. */
#include <futexsync.h>
#include <pthread.h>
#include <stdio.h>

static fx_rwlock lock = FX_RWLOCK_INIT;
static int table[2] = { 1, 1 }; /* the invariant: both entries are equal */

static void *reader(void *arg)
{
    long bad = 0;
    (void)arg;
    for (int i = 0; i < 10000; i++) {
        if (fx_rwlock_rdlock(&lock) != 0)
            return (void *)1;
        bad += table[0] != table[1];
        fx_rwlock_rdunlock(&lock);
    }
    return (void *)bad;
}

int main(void)
{
    pthread_t t[2];
    void *bad[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, reader, NULL);
    for (int i = 0; i < 1000; i++) {
        fx_rwlock_wrlock(&lock);
        table[0]++;
        table[1]++;
        fx_rwlock_wrunlock(&lock);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], &bad[i]);
    printf("table %d %d\n", table[0], table[1]);
    return bad[0] == NULL && bad[1] == NULL ? 0 : 1;
}
