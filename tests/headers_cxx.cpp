// The umbrella header compiles as C++17 (extern "C", no _Atomic in public
// types) next to <pthread.h>, and links against the C library; futexsync.hpp
// compiles under the same -pedantic flags.
#include <pthread.h>
#include <futexsync.h>
#include <futexsync.hpp>
#include <cstdio>
#include <cstdlib>
#include <thread>

static_assert(sizeof(fx_mutex) == 4, "fx_mutex is 4 bytes");
static_assert(sizeof(fx_counter) == 8, "fx_counter is 8 bytes");
static_assert(sizeof(fx_rmutex) == (sizeof(void *) == 8 ? 40 : 24), "fx_rmutex: glibc's robust-list geometry");
static_assert(sizeof(fx_sem) == 8, "fx_sem is 8 bytes");
static_assert(sizeof(fx_rwlock) == 8, "fx_rwlock is 8 bytes");
static_assert(sizeof(fx_barrier) == 8, "fx_barrier is 8 bytes");
static_assert(sizeof(fx_once) == sizeof(fx_rmutex), "fx_once: the robust-list geometry of fx_rmutex");
static_assert(sizeof(futexsync::barrier<>) == sizeof(fx_barrier), "barrier<> is fx_barrier");
static fx_sem g_sem = FX_SEM_INIT(0);
static fx_rwlock g_rwlock = FX_RWLOCK_INIT;
static fx_barrier g_barrier = FX_BARRIER_INIT;
static fx_once g_once = FX_ONCE_INIT;

static fx_mutex g_mutex = FX_MUTEX_INIT;
static fx_counter g_counter = FX_COUNTER_INIT(0);

int main()
{
    long total = 0;
    std::thread t([&] {
        for (int i = 0; i < 1000; i++) {
            fx_mutex_lock(&g_mutex);
            total++;
            fx_mutex_unlock(&g_mutex);
        }
        fx_counter_add(&g_counter, 1);
    });
    for (int i = 0; i < 1000; i++) {
        fx_mutex_lock(&g_mutex);
        total++;
        fx_mutex_unlock(&g_mutex);
    }
    struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_SEC);
    int r = fx_counter_wait(&g_counter, 1, &d);
    t.join();
    std::thread u([] {
        fx_rwlock_wrlock(&g_rwlock);
        fx_rwlock_unlock(&g_rwlock);
        if (fx_once_call(&g_once, [](void *) {}, nullptr) != 0)
            std::abort();
        fx_sem_post(&g_sem);
        fx_barrier_wait(&g_barrier, 2);
    });
    if (fx_sem_timedwait(&g_sem, &d) != 0 || fx_barrier_timedwait(&g_barrier, 2, &d) > 0)
        r = -1;
    u.join();
    if (r != 0 || total != 2000) {
        std::fprintf(stderr, "headers_cxx: r=%d total=%ld\n", r, total);
        return 1;
    }
    std::puts("headers_cxx: ok");
    return 0;
}
