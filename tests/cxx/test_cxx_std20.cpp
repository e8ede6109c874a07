// futexsync.hpp against C++20's <barrier>, <latch> and <semaphore>, and the
// annotated guards (futexsync::unique_lock, shared_lock) with the condition
// variable.
#include <futexsync.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

extern "C" {
#include "fxtest.h"
}

using namespace std::chrono_literals;

static_assert(sizeof(futexsync::barrier<>) == sizeof(fx_barrier));
static_assert(noexcept(std::declval<futexsync::condition_variable &>().notify_one()));
static_assert(noexcept(std::declval<futexsync::condition_variable &>().notify_all()));
static_assert(futexsync::binary_semaphore::max() == 1);
static_assert(futexsync::counting_semaphore<8>::max() >= 8);
static_assert(futexsync::latch::max() == INT32_MAX);
static_assert(futexsync::barrier<>::max() == FX_BARRIER_MAX_PARTIES);

static void test_barrier_completion_runs_once_per_phase_before_any_party_leaves(void **)
{
    constexpr int kParties = 3, kPhases = 200;
    int phase = 0; // written by the completion only
    std::atomic<int> wrong{0};
    auto done = [&]() noexcept { phase++; };
    futexsync::barrier b(kParties, done);
    auto work = [&] {
        for (int i = 0; i < kPhases; i++) {
            (void)b.arrive_and_wait();
            if (phase != 2 * i + 1) // this phase's completion ran, no later one
                wrong++;
            (void)b.arrive_and_wait(); // nobody runs ahead while others read
        }
    };
    std::thread t1(work), t2(work);
    work();
    t1.join();
    t2.join();
    assert_int_equal(wrong.load(), 0);
    assert_int_equal(phase, 2 * kPhases);
}

static void test_barrier_completion_sees_every_partys_writes_of_the_phase(void **)
{
    constexpr int kParties = 4, kPhases = 100;
    int slot[kParties] = {};
    int phase = 0, missed = 0; // the completion's
    auto check = [&]() noexcept {
        phase++;
        for (int s : slot)
            missed += s != phase;
    };
    futexsync::barrier b(kParties, check);
    auto work = [&](int me) {
        for (int i = 1; i <= kPhases; i++) {
            slot[me] = i;
            (void)b.arrive_and_wait();
        }
    };
    std::vector<std::thread> ts;
    for (int i = 1; i < kParties; i++)
        ts.emplace_back(work, i);
    work(0);
    for (auto &t : ts)
        t.join();
    assert_int_equal(phase, kPhases);
    assert_int_equal(missed, 0);
}

static void test_barrier_completion_runs_in_the_thread_told_it_arrived_last(void **)
{
    std::atomic<int> runs{0}, serial{0};
    std::thread::id ran_in, serial_in;
    futexsync::barrier b(2, [&]() noexcept {
        runs++;
        ran_in = std::this_thread::get_id();
    });
    auto work = [&] {
        if (b.arrive_and_wait()) {
            serial++;
            serial_in = std::this_thread::get_id();
        }
    };
    std::thread t(work);
    work();
    t.join();
    assert_int_equal(runs.load(), 1);
    assert_int_equal(serial.load(), 1);
    assert_true(ran_in == serial_in);
}

static void test_latch_wait_returns_once_counted_down_to_zero(void **)
{
    futexsync::latch l(3);
    int results[3] = {};
    std::vector<std::thread> ts;
    for (int i = 0; i < 3; i++)
        ts.emplace_back([&, i] {
            results[i] = i + 1;
            l.count_down();
        });
    l.wait();
    assert_true(l.try_wait());
    assert_int_equal(results[0] + results[1] + results[2], 6); // published
    for (auto &t : ts)
        t.join();
}

static void test_latch_try_wait_is_false_until_zero(void **)
{
    futexsync::latch l(2);
    assert_false(l.try_wait());
    l.count_down();
    assert_false(l.try_wait());
    l.count_down();
    assert_true(l.try_wait());
}

static void test_latch_arrive_and_wait_releases_every_party_together(void **)
{
    futexsync::latch l(3);
    std::atomic<int> arrived{0}, early{0};
    auto work = [&] {
        arrived++;
        l.arrive_and_wait();
        if (arrived.load() != 3)
            early++;
    };
    std::thread t1(work), t2(work);
    work();
    t1.join();
    t2.join();
    assert_int_equal(early.load(), 0);
}

static void test_latch_counted_down_past_zero_stays_open(void **)
{
    futexsync::latch l(1);
    l.count_down(3);
    assert_true(l.try_wait());
    l.wait();
}

static void test_zero_filled_latch_is_open(void **)
{
    futexsync::latch l;
    assert_true(l.try_wait());
    l.wait();
}

static void test_latch_with_a_negative_count_is_einval(void **)
{
    try {
        futexsync::latch l(-1);
        fail_msg("no exception");
    } catch (const std::system_error &e) {
        assert_int_equal(e.code().value(), EINVAL);
    }
}

static void test_binary_semaphore_two_releases_give_one_token(void **)
{
    futexsync::binary_semaphore s(0);
    s.release();
    s.release();
    assert_int_equal(fx_sem_value(s.native_handle()), 1);
    assert_true(s.try_acquire());
    assert_false(s.try_acquire());
    s.release(5);
    assert_true(s.try_acquire());
    assert_false(s.try_acquire());
}

static void test_binary_semaphore_concurrent_releases_give_one_token(void **)
{
    futexsync::binary_semaphore s(0);
    futexsync::barrier start(4);
    std::vector<std::thread> ts;
    for (int i = 0; i < 4; i++)
        ts.emplace_back([&] {
            (void)start.arrive_and_wait();
            for (int j = 0; j < 1000; j++)
                s.release();
        });
    for (auto &t : ts)
        t.join();
    assert_int_equal(fx_sem_value(s.native_handle()), 1);
}

static void test_binary_semaphore_release_wakes_a_sleeping_acquirer(void **)
{
    futexsync::binary_semaphore s(0);
    std::atomic<pid_t> tid{0};
    bool got = false;
    std::thread t([&] {
        tid = fxt_gettid();
        got = s.try_acquire_for(60s);
    });
    while (tid.load() == 0)
        std::this_thread::yield();
    assert_true(fxt_wait_asleep(tid.load(), s.native_handle(), 60000));
    s.release();
    t.join();
    assert_true(got);
    assert_int_equal(fx_sem_value(s.native_handle()), 0);
}

static void test_binary_semaphore_constructed_with_two_is_einval(void **)
{
    try {
        futexsync::binary_semaphore s(2);
        fail_msg("no exception");
    } catch (const std::system_error &e) {
        assert_int_equal(e.code().value(), EINVAL);
    }
}

static void test_counting_semaphore_release_adds_every_token(void **)
{
    futexsync::counting_semaphore<8> s(0);
    s.release(3);
    s.release();
    assert_int_equal(fx_sem_value(s.native_handle()), 4);
}

static void test_unique_lock_unlocks_and_relocks_in_its_scope(void **)
{
    futexsync::mutex m;
    {
        futexsync::unique_lock<futexsync::mutex> l(m);
        assert_true(l.owns_lock());
        assert_false(m.try_lock());
        l.unlock();
        assert_false(l.owns_lock());
        assert_true(m.try_lock());
        m.unlock();
        l.lock();
        assert_true(l.owns_lock());
    }
    assert_true(m.try_lock());
    m.unlock();
    futexsync::unique_lock<futexsync::mutex> d(m, std::defer_lock);
    assert_false(d.owns_lock());
    assert_true(d.try_lock_for(1s));
}

static void test_unique_lock_unlock_without_the_lock_is_eperm(void **)
{
    futexsync::mutex m;
    futexsync::unique_lock<futexsync::mutex> l(m, std::defer_lock);
    try {
        l.unlock();
        fail_msg("no exception");
    } catch (const std::system_error &e) {
        assert_int_equal(e.code().value(), EPERM);
    }
}

static void test_shared_lock_holds_a_shared_mutex_shared(void **)
{
    futexsync::shared_mutex sm;
    {
        futexsync::shared_lock<futexsync::shared_mutex> r(sm);
        assert_true(r.owns_lock());
        assert_true(sm.try_lock_shared());
        sm.unlock_shared();
        assert_false(sm.try_lock());
        r.unlock();
        assert_true(sm.try_lock());
        sm.unlock();
        assert_true(r.try_lock());
    }
    assert_true(sm.try_lock());
    sm.unlock();
}

static void test_condition_variable_waits_on_a_futexsync_unique_lock(void **)
{
    futexsync::mutex m;
    futexsync::condition_variable cv;
    bool ready = false;
    std::thread t([&] {
        futexsync::lock_guard<futexsync::mutex> g(m);
        ready = true;
        cv.notify_one();
    });
    futexsync::unique_lock<futexsync::mutex> l(m);
    assert_true(cv.wait_for(l, 60s, [&] { return ready; }));
    assert_true(l.owns_lock());
    l.unlock();
    t.join();
}

static void test_condition_variable_waits_on_the_held_mutex_itself(void **)
{
    futexsync::robust_mutex rm;
    futexsync::condition_variable cv;
    bool ready = false;
    std::thread t([&] {
        std::lock_guard<futexsync::robust_mutex> g(rm);
        ready = true;
        cv.notify_all();
    });
    rm.lock();
    while (!ready)
        cv.wait(rm);
    assert_int_equal(fx_rmutex_owner(rm.native_handle()), fxt_gettid());
    assert_true(cv.wait_for(rm, 10ms) == std::cv_status::timeout);
    assert_int_equal(fx_rmutex_owner(rm.native_handle()), fxt_gettid());
    rm.unlock();
    t.join();
}

int main()
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier_completion_runs_once_per_phase_before_any_party_leaves),
        cmocka_unit_test(test_barrier_completion_sees_every_partys_writes_of_the_phase),
        cmocka_unit_test(test_barrier_completion_runs_in_the_thread_told_it_arrived_last),
        cmocka_unit_test(test_latch_wait_returns_once_counted_down_to_zero),
        cmocka_unit_test(test_latch_try_wait_is_false_until_zero),
        cmocka_unit_test(test_latch_arrive_and_wait_releases_every_party_together),
        cmocka_unit_test(test_latch_counted_down_past_zero_stays_open),
        cmocka_unit_test(test_zero_filled_latch_is_open),
        cmocka_unit_test(test_latch_with_a_negative_count_is_einval),
        cmocka_unit_test(test_binary_semaphore_two_releases_give_one_token),
        cmocka_unit_test(test_binary_semaphore_concurrent_releases_give_one_token),
        cmocka_unit_test(test_binary_semaphore_release_wakes_a_sleeping_acquirer),
        cmocka_unit_test(test_binary_semaphore_constructed_with_two_is_einval),
        cmocka_unit_test(test_counting_semaphore_release_adds_every_token),
        cmocka_unit_test(test_unique_lock_unlocks_and_relocks_in_its_scope),
        cmocka_unit_test(test_unique_lock_unlock_without_the_lock_is_eperm),
        cmocka_unit_test(test_shared_lock_holds_a_shared_mutex_shared),
        cmocka_unit_test(test_condition_variable_waits_on_a_futexsync_unique_lock),
        cmocka_unit_test(test_condition_variable_waits_on_the_held_mutex_itself),
    };
    return fxt_run_group_tests(tests, nullptr, nullptr);
}
