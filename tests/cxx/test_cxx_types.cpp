// The C++ types of futexsync.hpp: their behaviour over the C objects (timeouts,
// chrono clocks, the standard lock wrappers, owner death, call_once).
#include <futexsync.hpp>
#include <futexsync/layout.h>

#include <atomic>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

extern "C" {
#include "fxtest.h"
}

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

static void test_zero_filled_memory_is_an_unlocked_mutex(void **)
{
    alignas(futexsync::mutex) unsigned char mem[sizeof(futexsync::mutex)];
    std::memset(mem, 0, sizeof mem);
    auto *m = reinterpret_cast<futexsync::mutex *>(mem);
    assert_true(m->try_lock());
    assert_int_equal(m->native_handle()->state, FX_MUTEX_LOCKED);
    m->unlock();
    assert_int_equal(m->native_handle()->state, FX_MUTEX_UNLOCKED);
}

static void test_mutex_try_lock_for_times_out_while_held(void **)
{
    futexsync::mutex m;
    m.lock();
    auto t0 = steady::now();
    assert_false(m.try_lock_for(50ms));
    assert_true(steady::now() - t0 >= 50ms);
    m.unlock();
    assert_true(m.try_lock_for(50ms));
    m.unlock();
}

static void test_mutex_try_lock_until_a_system_clock_deadline_waits_for_that_clock(void **)
{
    futexsync::mutex m;
    m.lock();
    auto tp = std::chrono::system_clock::now() + 50ms;
    assert_false(m.try_lock_until(tp));
    assert_true(std::chrono::system_clock::now() >= tp);
    m.unlock();
}

static void test_mutex_try_lock_until_a_past_deadline_takes_a_free_mutex(void **)
{
    futexsync::mutex m;
    assert_true(m.try_lock_until(steady::now() - 1h));
    assert_false(m.try_lock_until(steady::time_point::min()));
    assert_false(m.try_lock_until(std::chrono::system_clock::time_point::min()));
    assert_false(m.try_lock_for(std::chrono::hours::min()));
    m.unlock();
}

static void test_mutex_unlock_of_an_unlocked_mutex_throws_eperm(void **)
{
    futexsync::mutex m;
    try {
        m.unlock();
        fail_msg("no exception");
    } catch (const std::system_error &e) {
        assert_int_equal(e.code().value(), EPERM);
        assert_true(e.code().category() == std::generic_category());
    }
}

static void test_std_lock_wrappers_exclude_each_other(void **)
{
    futexsync::mutex m;
    futexsync::robust_mutex rm;
    futexsync::shared_mutex sm;
    long count = 0;
    auto work = [&](int kind) {
        for (int i = 0; i < 20000; i++) {
            if (kind == 0) {
                std::lock_guard<futexsync::mutex> g(m);
                count++;
            } else if (kind == 1) {
                std::unique_lock<futexsync::mutex> u(m);
                count++;
            } else {
                std::scoped_lock s(m, rm, sm);
                count++;
            }
        }
    };
    std::thread a(work, 0), b(work, 1), c(work, 2);
    a.join();
    b.join();
    c.join();
    assert_int_equal(count, 60000);
    assert_true(m.try_lock() && rm.try_lock() && sm.try_lock());
    m.unlock();
    rm.unlock();
    sm.unlock();
}

static void test_shared_lock_admits_readers_and_excludes_writers(void **)
{
    futexsync::shared_mutex sm;
    std::shared_lock<futexsync::shared_mutex> r(sm);
    bool writer = true, reader = false;
    std::thread t([&] {
        reader = sm.try_lock_shared_for(20ms);
        if (reader)
            sm.unlock_shared();
        writer = sm.try_lock_for(20ms);
    });
    t.join();
    assert_false(writer);
    assert_true(reader);
    r.unlock();
    assert_true(sm.try_lock_until(steady::now() + 1s));
    assert_false(sm.try_lock_shared());
    sm.unlock();
}

static void test_condition_variable_wait_for_times_out_holding_the_lock(void **)
{
    futexsync::mutex m;
    futexsync::condition_variable cv;
    std::unique_lock<futexsync::mutex> l(m);
    auto t0 = steady::now();
    assert_true(cv.wait_for(l, 30ms) == std::cv_status::timeout);
    assert_true(steady::now() - t0 >= 30ms);
    assert_true(l.owns_lock());
    assert_false(m.try_lock());
    assert_false(cv.wait_until(l, std::chrono::system_clock::now() + 10ms, [] { return false; }));
    assert_true(l.owns_lock());
}

static void test_condition_variable_wait_with_predicate_returns_after_notify(void **)
{
    futexsync::mutex m;
    futexsync::condition_variable cv;
    bool ready = false;
    std::thread t([&] {
        std::lock_guard<futexsync::mutex> g(m);
        ready = true;
        cv.notify_one();
    });
    std::unique_lock<futexsync::mutex> l(m);
    assert_true(cv.wait_for(l, 60s, [&] { return ready; }));
    l.unlock();
    t.join();
}

static void test_condition_variable_on_a_robust_mutex_releases_its_whole_depth(void **)
{
    futexsync::robust_mutex rm;
    futexsync::condition_variable cv;
    std::unique_lock<futexsync::robust_mutex> l(rm);
    rm.lock(); // depth 2
    bool got = false;
    std::thread t([&] {
        std::lock_guard<futexsync::robust_mutex> g(rm); // only while we wait
        got = true;
        cv.notify_one();
    });
    assert_true(cv.wait_for(l, 60s, [&] { return got; }));
    assert_int_equal(fx_rmutex_owner(rm.native_handle()), fxt_gettid());
    rm.unlock(); // depth 2 restored: one level left, held by l
    assert_int_equal(fx_rmutex_owner(rm.native_handle()), fxt_gettid());
    l.unlock();
    t.join();
    assert_int_equal(fx_rmutex_owner(rm.native_handle()), 0);
}

static void test_condition_variable_wait_without_the_lock_throws_eperm(void **)
{
    futexsync::mutex m;
    futexsync::condition_variable cv;
    std::unique_lock<futexsync::mutex> l(m, std::defer_lock);
    try {
        cv.wait(l);
        fail_msg("no exception");
    } catch (const std::system_error &e) {
        assert_int_equal(e.code().value(), EPERM);
    }
}

static void test_condition_variable_any_waits_on_a_futexsync_mutex(void **)
{
    futexsync::mutex m;
    std::condition_variable_any cv;
    int stage = 0;
    std::thread t([&] {
        std::unique_lock<futexsync::mutex> l(m);
        stage = 1;
        cv.notify_all();
        cv.wait(l, [&] { return stage == 2; });
    });
    {
        std::unique_lock<futexsync::mutex> l(m);
        cv.wait(l, [&] { return stage == 1; });
        stage = 2;
        cv.notify_all();
    }
    t.join();
    assert_int_equal(stage, 2);
}

static void test_call_once_runs_the_callable_once_across_threads(void **)
{
    futexsync::once_flag flag;
    std::atomic<int> runs{0};
    std::vector<std::thread> ts;
    for (int i = 0; i < 4; i++)
        ts.emplace_back([&] { futexsync::call_once(flag, [&](int d) { runs += d; }, 1); });
    for (auto &t : ts)
        t.join();
    assert_int_equal(runs.load(), 1);
    assert_int_equal(flag.native_handle()->state, FX_ONCE_DONE);
}

static void test_call_once_exception_reaches_the_caller_and_the_next_call_runs(void **)
{
    futexsync::once_flag flag;
    bool caught = false;
    try {
        futexsync::call_once(flag, [] { throw std::runtime_error("init failed"); });
    } catch (const std::runtime_error &e) {
        caught = std::strcmp(e.what(), "init failed") == 0;
    }
    assert_true(caught);
    // As std::call_once: the throwing run does not count, the next call runs.
    int runs = 0;
    futexsync::call_once(flag, [&] { runs++; });
    assert_int_equal(runs, 1);
    futexsync::call_once(flag, [&] { runs++; });
    assert_int_equal(runs, 1);
}

static void test_call_once_from_its_own_callable_throws_edeadlk(void **)
{
    futexsync::once_flag flag;
    int err = 0;
    futexsync::call_once(flag, [&] {
        try {
            futexsync::call_once(flag, [] {});
        } catch (const std::system_error &e) {
            err = e.code().value();
        }
    });
    assert_int_equal(err, EDEADLK);
}

static void test_semaphore_try_acquire_for_times_out_without_tokens(void **)
{
    futexsync::counting_semaphore<4> s(1);
    assert_true(s.try_acquire());
    auto t0 = steady::now();
    assert_false(s.try_acquire_for(30ms));
    assert_true(steady::now() - t0 >= 30ms);
    s.release(2);
    assert_int_equal(fx_sem_value(s.native_handle()), 2);
    assert_true(s.try_acquire_until(std::chrono::system_clock::now() + 1s));
    s.acquire();
    assert_false(s.try_acquire());
}

static void test_barrier_has_one_serial_arrival_per_round(void **)
{
    futexsync::barrier b(3);
    std::atomic<int> serial{0};
    auto work = [&] {
        for (int i = 0; i < 100; i++)
            if (b.arrive_and_wait())
                serial++;
    };
    std::thread t1(work), t2(work);
    work();
    t1.join();
    t2.join();
    assert_int_equal(serial.load(), 100);
}

static void test_zero_filled_barrier_needs_its_party_count(void **)
{
    futexsync::barrier b;
    try {
        b.arrive_and_wait();
        fail_msg("no exception");
    } catch (const std::system_error &e) {
        assert_int_equal(e.code().value(), EINVAL);
    }
    assert_true(b.arrive_and_wait(1));
    assert_true(b.arrive_and_wait()); // the count is recorded now
}

// In a forked child, stderr to the pipe p[1]: notify_one on a condition
// variable whose waiters slot holds a value the library never writes.
static int notify_a_corrupt_cond(void *p)
{
    int *fds = static_cast<int *>(p);
    dup2(fds[1], 2);
    futexsync::condition_variable cv;
    cv.native_handle()->waiters = -1;
    cv.notify_one();
    return 0;
}

static void test_notify_on_a_corrupt_condition_variable_terminates_with_a_message(void **)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    int status = fxt_run_child(notify_a_corrupt_cond, fds);
    close(fds[1]);
    char buf[256] = {};
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    assert_int_equal(status, 128 + SIGABRT); // std::terminate
    assert_true(n > 0);
    assert_non_null(std::strstr(buf, "futexsync: fx_cond_signal: Invalid argument"));
}

static void test_unique_lock_relocked_while_held_throws_edeadlk(void **)
{
    futexsync::mutex m;
    futexsync::unique_lock<futexsync::mutex> l(m);
    try {
        l.lock();
        fail_msg("no exception");
    } catch (const std::system_error &e) {
        assert_int_equal(e.code().value(), EDEADLK);
    }
    assert_true(l.owns_lock());
}

int main()
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_filled_memory_is_an_unlocked_mutex),
        cmocka_unit_test(test_mutex_try_lock_for_times_out_while_held),
        cmocka_unit_test(test_mutex_try_lock_until_a_system_clock_deadline_waits_for_that_clock),
        cmocka_unit_test(test_mutex_try_lock_until_a_past_deadline_takes_a_free_mutex),
        cmocka_unit_test(test_mutex_unlock_of_an_unlocked_mutex_throws_eperm),
        cmocka_unit_test(test_std_lock_wrappers_exclude_each_other),
        cmocka_unit_test(test_shared_lock_admits_readers_and_excludes_writers),
        cmocka_unit_test(test_condition_variable_wait_for_times_out_holding_the_lock),
        cmocka_unit_test(test_condition_variable_wait_with_predicate_returns_after_notify),
        cmocka_unit_test(test_condition_variable_on_a_robust_mutex_releases_its_whole_depth),
        cmocka_unit_test(test_condition_variable_wait_without_the_lock_throws_eperm),
        cmocka_unit_test(test_condition_variable_any_waits_on_a_futexsync_mutex),
        cmocka_unit_test(test_call_once_runs_the_callable_once_across_threads),
        cmocka_unit_test(test_call_once_exception_reaches_the_caller_and_the_next_call_runs),
        cmocka_unit_test(test_call_once_from_its_own_callable_throws_edeadlk),
        cmocka_unit_test(test_semaphore_try_acquire_for_times_out_without_tokens),
        cmocka_unit_test(test_barrier_has_one_serial_arrival_per_round),
        cmocka_unit_test(test_zero_filled_barrier_needs_its_party_count),
        cmocka_unit_test(test_notify_on_a_corrupt_condition_variable_terminates_with_a_message),
        cmocka_unit_test(test_unique_lock_relocked_while_held_throws_edeadlk),
    };
    return fxt_run_group_tests(tests, nullptr, nullptr);
}
