// Links against an installed futexsync from C++17 through futexsync.hpp: the
// standard lock wrappers and condition variables over the futexsync types,
// the annotated guards, latch, barrier with a completion function and
// binary_semaphore.
#include <futexsync.hpp>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <thread>

static_assert(sizeof(futexsync::mutex) == sizeof(fx_mutex) && sizeof(fx_mutex) == 4);
static_assert(sizeof(futexsync::robust_mutex) == sizeof(fx_rmutex) && sizeof(fx_rmutex) == FX_RMUTEX_SIZE);
static_assert(sizeof(futexsync::shared_mutex) == sizeof(fx_rwlock) && sizeof(fx_rwlock) == 8);
static_assert(sizeof(futexsync::condition_variable) == sizeof(fx_cond) && sizeof(fx_cond) == 16);
static_assert(sizeof(futexsync::counting_semaphore<>) == sizeof(fx_sem) && sizeof(fx_sem) == 8);
static_assert(sizeof(futexsync::barrier<>) == sizeof(fx_barrier) && sizeof(fx_barrier) == 8);
static_assert(sizeof(futexsync::latch) == sizeof(fx_counter) && sizeof(fx_counter) == 8);
static_assert(futexsync::binary_semaphore::max() == 1);
static_assert(sizeof(futexsync::once_flag) == sizeof(fx_once) && sizeof(fx_once) == FX_ONCE_SIZE);

int main()
{
    futexsync::mutex m;
    futexsync::robust_mutex rm;
    futexsync::shared_mutex sm;
    futexsync::condition_variable cv;
    std::condition_variable_any cva;
    long count = 0, both = 0; // count under m, both under rm + sm
    int stage = 0, backwards = 0; // under m
    auto work = [&] {
        long last = 0, went_back = 0; // this thread's reads of both
        for (int i = 0; i < 20000; i++) {
            {
                std::lock_guard<futexsync::mutex> g(m);
                count++;
            }
            {
                std::scoped_lock s(rm, sm);
                both++;
            }
            std::shared_lock<futexsync::shared_mutex> r(sm);
            went_back += both < last; // both only grows
            last = both;
        }
        std::unique_lock<futexsync::mutex> l(m);
        backwards += went_back;
        stage++;
        cv.notify_all();
        cva.notify_all();
    };
    futexsync::latch started(2);
    int phases = 0; // the completion's
    futexsync::barrier phase(2, [&]() noexcept { phases++; });
    futexsync::binary_semaphore token(0);
    std::thread t([&] {
        started.arrive_and_wait();
        work();
        (void)phase.arrive_and_wait();
        token.release();
        token.release(); // still one token
    });
    started.arrive_and_wait();
    work();
    (void)phase.arrive_and_wait();
    {
        futexsync::unique_lock<futexsync::mutex> l(m);
        while (stage != 2)
            cv.wait(l);
    }
    {
        std::unique_lock<futexsync::mutex> l(m);
        cva.wait(l, [&] { return stage == 2; });
    }
    t.join();
    {
        std::lock_guard<futexsync::robust_mutex> g(rm);
        if (rm.inconsistent()) // nobody died here
            return 1;
    }
    token.acquire();
    bool one_token = !token.try_acquire();
    bool ok = count == 40000 && both == 40000 && stage == 2 && backwards == 0 && phases == 1 &&
              one_token;
    std::printf("consumer (futexsync.hpp): %ld %ld %s\n", count, both, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
