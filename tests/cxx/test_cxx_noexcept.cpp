// A user program built with -fno-exceptions (tests/CMakeLists.txt): every
// futexsync.hpp type works, expected outcomes are return values (try_ forms,
// robust_mutex::lock_robust), and an error calls the program's
// FUTEXSYNC_ERROR_HANDLER with the errno instead of throwing.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <system_error>
#include <thread>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#error "this test must be built with -fno-exceptions"
#endif

// Where the handler leaves the errno: MAP_SHARED, read by the parent.
static std::int32_t *g_reported;

[[noreturn]] static void on_error(int err, const char *)
{
    *g_reported = err;
    _exit(77);
}
#define FUTEXSYNC_ERROR_HANDLER on_error
#include <futexsync.hpp>

extern "C" {
#include "fxtest.h"
}

using namespace std::chrono_literals;

// Runs fn in a forked child and returns the errno its error handler got, or
// -1 when the child exited another way.
static int error_of(int (*fn)(void *), void *arg)
{
    *g_reported = 0;
    int status = fxt_run_child(fn, arg);
    return status == 77 ? *g_reported : -1;
}

static void test_mutex_and_std_wrappers_work_without_exceptions(void **)
{
    futexsync::mutex m;
    long count = 0;
    auto work = [&] {
        for (int i = 0; i < 10000; i++) {
            std::lock_guard<futexsync::mutex> g(m);
            count++;
        }
    };
    std::thread t(work);
    work();
    t.join();
    assert_int_equal(count, 20000);
    assert_true(m.try_lock_for(1s));
    assert_false(m.try_lock());
    m.unlock();
}

static void test_shared_mutex_works_without_exceptions(void **)
{
    futexsync::shared_mutex sm;
    {
        std::shared_lock<futexsync::shared_mutex> r(sm);
        assert_false(sm.try_lock_for(10ms));
    }
    futexsync::unique_lock<futexsync::shared_mutex> w(sm);
    assert_false(sm.try_lock_shared());
}

static int die_holding(void *p)
{
    return static_cast<futexsync::robust_mutex *>(p)->try_lock() ? 0 : 2;
}

static void test_robust_mutex_owner_death_is_a_return_value_without_exceptions(void **)
{
    void *mem = fxt_shared_alloc(sizeof(futexsync::robust_mutex));
    auto *rm = new (mem) futexsync::robust_mutex;
    assert_int_equal(fxt_run_child(die_holding, rm), 0);
    assert_true(rm->lock_robust() == std::errc::owner_dead);
    assert_true(rm->inconsistent());
    rm->unlock(); // without consistent(): not recoverable
    assert_true(rm->lock_robust() == std::errc::state_not_recoverable);
    fxt_shared_free(mem, sizeof(futexsync::robust_mutex));
}

static int lock_it(void *p)
{
    static_cast<futexsync::robust_mutex *>(p)->lock();
    return 0;
}

static void test_lock_of_a_not_recoverable_mutex_calls_the_error_handler(void **)
{
    void *mem = fxt_shared_alloc(sizeof(futexsync::robust_mutex));
    auto *rm = new (mem) futexsync::robust_mutex;
    assert_int_equal(fxt_run_child(die_holding, rm), 0);
    {
        std::lock_guard<futexsync::robust_mutex> g(*rm); // ignores the death
    }
    assert_int_equal(error_of(lock_it, rm), ENOTRECOVERABLE);
    fxt_shared_free(mem, sizeof(futexsync::robust_mutex));
}

static int unlock_unlocked(void *)
{
    futexsync::mutex m;
    m.unlock();
    return 0;
}

static void test_unlock_of_an_unlocked_mutex_calls_the_error_handler_with_eperm(void **)
{
    assert_int_equal(error_of(unlock_unlocked, nullptr), EPERM);
}

static void test_condition_variable_waits_without_exceptions(void **)
{
    futexsync::mutex m;
    futexsync::condition_variable cv;
    bool ready = false;
    std::thread t([&] {
        futexsync::lock_guard<futexsync::mutex> g(m);
        ready = true;
        cv.notify_all();
    });
    {
        std::unique_lock<futexsync::mutex> l(m);
        assert_true(cv.wait_for(l, 60s, [&] { return ready; }));
    }
    t.join();
    futexsync::unique_lock<futexsync::mutex> l(m);
    assert_true(cv.wait_for(l, 1ms) == std::cv_status::timeout);
}

static void test_semaphores_latch_and_barrier_work_without_exceptions(void **)
{
    futexsync::binary_semaphore b(0);
    b.release();
    b.release();
    assert_true(b.try_acquire());
    assert_false(b.try_acquire_for(1ms));
    futexsync::counting_semaphore<> s(2);
    s.acquire();
    assert_true(s.try_acquire());
    assert_false(s.try_acquire());
    futexsync::latch l(2);
    int phases = 0;
    futexsync::barrier bar(2, [&]() noexcept { phases++; });
    std::thread t([&] {
        l.count_down();
        (void)bar.arrive_and_wait();
    });
    l.arrive_and_wait();
    (void)bar.arrive_and_wait();
    t.join();
    assert_int_equal(phases, 1);
}

static int barrier_without_count(void *)
{
    futexsync::barrier<> b;
    (void)b.arrive_and_wait();
    return 0;
}

static void test_zero_filled_barrier_without_a_count_calls_the_error_handler(void **)
{
    assert_int_equal(error_of(barrier_without_count, nullptr), EINVAL);
}

static void test_call_once_runs_once_without_exceptions(void **)
{
    futexsync::once_flag f;
    int runs = 0;
    futexsync::call_once(f, [&] { runs++; });
    futexsync::call_once(f, [&] { runs++; });
    assert_int_equal(runs, 1);
}

int main()
{
    g_reported = static_cast<std::int32_t *>(fxt_shared_alloc(sizeof *g_reported));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutex_and_std_wrappers_work_without_exceptions),
        cmocka_unit_test(test_shared_mutex_works_without_exceptions),
        cmocka_unit_test(test_robust_mutex_owner_death_is_a_return_value_without_exceptions),
        cmocka_unit_test(test_lock_of_a_not_recoverable_mutex_calls_the_error_handler),
        cmocka_unit_test(test_unlock_of_an_unlocked_mutex_calls_the_error_handler_with_eperm),
        cmocka_unit_test(test_condition_variable_waits_without_exceptions),
        cmocka_unit_test(test_semaphores_latch_and_barrier_work_without_exceptions),
        cmocka_unit_test(test_zero_filled_barrier_without_a_count_calls_the_error_handler),
        cmocka_unit_test(test_call_once_runs_once_without_exceptions),
    };
    int r = fxt_run_group_tests(tests, nullptr, nullptr);
    fxt_shared_free(g_reported, sizeof *g_reported);
    return r;
}
