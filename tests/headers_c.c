/* The umbrella header compiles as strict C11 next to <pthread.h>, and the
 * object sizes and initialisers are the ones the contract fixes. */
#include <pthread.h>
#include <futexsync.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(fx_mutex) == 4, "fx_mutex is 4 bytes");
_Static_assert(sizeof(fx_counter) == 8, "fx_counter is 8 bytes");
_Static_assert(sizeof(fx_rmutex) == (sizeof(void *) == 8 ? 40 : 24), "fx_rmutex: glibc's robust-list geometry");
_Static_assert(sizeof(fx_sem) == 8, "fx_sem is 8 bytes");
_Static_assert(sizeof(fx_rwlock) == 8, "fx_rwlock is 8 bytes");
_Static_assert(sizeof(fx_barrier) == 8, "fx_barrier is 8 bytes");
_Static_assert(sizeof(fx_once) == sizeof(fx_rmutex), "fx_once: the robust-list geometry of fx_rmutex");
static fx_sem g_sem = FX_SEM_INIT(1);
static fx_rwlock g_rwlock = FX_RWLOCK_INIT;
static fx_barrier g_barrier = FX_BARRIER_INIT;
static fx_once g_once = FX_ONCE_INIT;
static void nothing(void *p) { (void)p; }

static fx_mutex g_mutex = FX_MUTEX_INIT;
static fx_counter g_counter = FX_COUNTER_INIT(7);

int main(void)
{
    fx_mutex zero;
    memset(&zero, 0, sizeof zero);
    if (memcmp(&zero, &g_mutex, sizeof zero) != 0) {
        fprintf(stderr, "FX_MUTEX_INIT is not all-zero\n");
        return 1;
    }
    if (fx_mutex_lock(&g_mutex) != 0 || fx_mutex_unlock(&g_mutex) != 0)
        return 1;
    if (fx_counter_add(&g_counter, 1) != 8)
        return 1;
    if (fx_sem_wait(&g_sem) != 0 || fx_rwlock_rdlock(&g_rwlock) != 0 ||
        fx_rwlock_unlock(&g_rwlock) != 0 ||
        fx_barrier_wait(&g_barrier, 1) != FX_BARRIER_SERIAL_THREAD ||
        fx_once_call(&g_once, nothing, NULL) != 0)
        return 1;
    puts("headers_c: ok");
    return 0;
}
