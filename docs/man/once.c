/* docs/man/once.c - the EXAMPLE of the fx_once pages: a table built by the
 * first thread that needs it. */
#include <futexsync.h>
#include <pthread.h>
#include <stdio.h>

static fx_once table_once = FX_ONCE_INIT;
static int squares[100];
static int builds;

static void build(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++)
        squares[i] = i * i;
    builds++;
}

static void *user(void *arg)
{
    (void)arg;
    if (fx_once_call(&table_once, build, NULL) != 0)
        return (void *)1;
    return squares[9] == 81 ? NULL : (void *)1;
}

int main(void)
{
    pthread_t t[4];
    void *r[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, user, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], &r[i]);
    printf("built %d time(s)\n", builds);
    return builds == 1 && !r[0] && !r[1] && !r[2] && !r[3] ? 0 : 1;
}
