// The umbrella header compiles as C++17 (extern "C", no _Atomic in public
// types) next to <pthread.h>, and links against the C library.
#include <pthread.h>
#include <futexsync.h>
#include <cstdio>
#include <thread>

static_assert(sizeof(fx_mutex) == 4, "fx_mutex is 4 bytes");
static_assert(sizeof(fx_counter) == 8, "fx_counter is 8 bytes");
static_assert(sizeof(fx_rmutex) == 8, "fx_rmutex is 8 bytes");

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
    if (r != 0 || total != 2000) {
        std::fprintf(stderr, "headers_cxx: r=%d total=%ld\n", r, total);
        return 1;
    }
    std::puts("headers_cxx: ok");
    return 0;
}
