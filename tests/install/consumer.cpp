// Links against an installed libfutexsync.a from C++17: 2 threads x 50000.
#include <futexsync.h>
#include <cstdio>
#include <thread>

int main()
{
    fx_mutex lock = FX_MUTEX_INIT;
    fx_counter done = FX_COUNTER_INIT(2);
    long count = 0;
    auto work = [&] {
        for (int i = 0; i < 50000; i++) {
            fx_mutex_lock(&lock);
            count++;
            fx_mutex_unlock(&lock);
        }
        fx_counter_add(&done, -1);
    };
    std::thread t(work);
    work();
    struct timespec deadline = fx_deadline_in(10 * FX_NSEC_PER_SEC);
    int r = fx_counter_wait(&done, 0, &deadline);
    t.join();
    bool ok = r == 0 && count == 100000;
    std::printf("consumer (C++): %ld %s\n", count, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
