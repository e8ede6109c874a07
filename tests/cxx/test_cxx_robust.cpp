// futexsync::robust_mutex after an owner death, under each std wrapper: the
// wrapper acquires (nothing is leaked when its scope ends), the death is
// reported by inconsistent(), and a scope that ignores it leaves the mutex
// not recoverable, so the next acquisition anywhere throws not_recoverable.
#include <futexsync.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <system_error>
#include <thread>

extern "C" {
#include "fxtest.h"
}

using namespace std::chrono_literals;

namespace {

// What the mutex protects, in MAP_SHARED memory with it.
struct shared_state {
    futexsync::robust_mutex rm;
    futexsync::shared_mutex sm;
    futexsync::condition_variable cv;
    int value;   // under rm
    int waiting; // under rm: the parent waits on cv
};

shared_state *make_state()
{
    return new (fxt_shared_alloc(sizeof(shared_state))) shared_state{};
}

void free_state(shared_state *s)
{
    fxt_shared_free(s, sizeof(shared_state));
}

// A forked child: takes rm, half-updates the value and exits holding it.
int die_holding(void *p)
{
    auto *s = static_cast<shared_state *>(p);
    if (!s->rm.try_lock())
        return 2;
    s->value = -1; // half-updated
    return 0;
}

void orphan_by_a_process(shared_state *s)
{
    assert_int_equal(fxt_run_child(die_holding, s), 0);
}

// A forked child is killed (SIGKILL) holding rm in the middle of an update.
int killed_holding(void *p)
{
    auto *s = static_cast<shared_state *>(p);
    if (!s->rm.try_lock())
        return 2;
    s->value = -1;
    raise(SIGKILL);
    return 3;
}

void orphan_by_a_killed_process(shared_state *s)
{
    assert_int_equal(fxt_run_child(killed_holding, s), 128 + SIGKILL);
}

// A thread of this process exits holding rm.
void orphan_by_a_thread(shared_state *s)
{
    std::thread t([s] { s->rm.lock(); });
    t.join();
}

// In a forked child: the mutex can be taken as usual (consistent, free).
int lock_cleanly(void *p)
{
    auto *s = static_cast<shared_state *>(p);
    if (!s->rm.try_lock_for(10s))
        return 2;
    bool bad = s->rm.inconsistent() || s->value != 7;
    s->rm.unlock();
    return bad ? 3 : 0;
}

// The next acquisition, in another thread, fails with ENOTRECOVERABLE for
// lock and try_lock (and does not wait: the mutex is not held).
void assert_not_recoverable_elsewhere(shared_state *s)
{
    int lock_err = 0, try_err = 0;
    std::thread t([&] {
        try {
            s->rm.lock();
        } catch (const futexsync::not_recoverable &e) {
            lock_err = e.code().value();
        }
        try {
            (void)s->rm.try_lock_for(10s);
        } catch (const std::system_error &e) {
            try_err = e.code().value();
        }
    });
    t.join();
    assert_int_equal(lock_err, ENOTRECOVERABLE);
    assert_int_equal(try_err, ENOTRECOVERABLE);
    assert_int_equal(fx_rmutex_owner(s->rm.native_handle()), 0);
}

} // namespace

static void test_lock_guard_after_owner_death_holds_the_mutex_inconsistent(void **)
{
    shared_state *s = make_state();
    orphan_by_a_process(s);
    {
        std::lock_guard<futexsync::robust_mutex> g(s->rm);
        assert_int_equal(fx_rmutex_owner(s->rm.native_handle()), fxt_gettid());
        assert_true(s->rm.inconsistent());
        s->value = 7; // the repair
        s->rm.consistent();
        assert_false(s->rm.inconsistent());
    }
    assert_int_equal(fx_rmutex_owner(s->rm.native_handle()), 0);
    assert_int_equal(fxt_run_child(lock_cleanly, s), 0);
    free_state(s);
}

static void test_lock_guard_ignoring_owner_death_leaves_the_mutex_not_recoverable(void **)
{
    shared_state *s = make_state();
    orphan_by_a_process(s);
    {
        std::lock_guard<futexsync::robust_mutex> g(s->rm);
        s->value++; // uses the half-updated value, does not repair
    }
    assert_not_recoverable_elsewhere(s);
    free_state(s);
}

static void test_unique_lock_after_owner_death_holds_the_mutex_inconsistent(void **)
{
    shared_state *s = make_state();
    orphan_by_a_thread(s);
    {
        std::unique_lock<futexsync::robust_mutex> l(s->rm);
        assert_true(l.owns_lock());
        assert_true(s->rm.inconsistent());
        s->value = 7;
        s->rm.consistent();
        l.unlock();
        l.lock(); // an ordinary acquisition now
        assert_false(s->rm.inconsistent());
    }
    assert_int_equal(fxt_run_child(lock_cleanly, s), 0);
    free_state(s);
}

static void test_unique_lock_ignoring_owner_death_leaves_the_mutex_not_recoverable(void **)
{
    shared_state *s = make_state();
    orphan_by_a_thread(s);
    {
        std::unique_lock<futexsync::robust_mutex> l(s->rm, std::defer_lock);
        assert_true(l.try_lock_for(10s));
    }
    assert_not_recoverable_elsewhere(s);
    free_state(s);
}

static void test_scoped_lock_after_owner_death_holds_both_and_releases_both(void **)
{
    shared_state *s = make_state();
    orphan_by_a_killed_process(s);
    {
        std::scoped_lock g(s->sm, s->rm);
        assert_true(s->rm.inconsistent());
        s->value = 7;
        s->rm.consistent();
    }
    assert_int_equal(fxt_run_child(lock_cleanly, s), 0);
    {
        std::shared_lock<futexsync::shared_mutex> r(s->sm, std::try_to_lock);
        assert_true(r.owns_lock());
    }
    free_state(s);
}

static void test_scoped_lock_ignoring_owner_death_leaves_the_mutex_not_recoverable(void **)
{
    shared_state *s = make_state();
    orphan_by_a_killed_process(s);
    {
        std::scoped_lock g(s->rm, s->sm);
    }
    assert_not_recoverable_elsewhere(s);
    // The other mutex of the scope was released too.
    std::thread t([s] {
        std::shared_lock<futexsync::shared_mutex> r(s->sm);
        r.unlock();
        std::unique_lock<futexsync::shared_mutex> w(s->sm);
    });
    t.join();
    // ... and std::lock of the pair now throws without holding sm.
    try {
        std::scoped_lock g(s->sm, s->rm);
        fail_msg("no exception");
    } catch (const futexsync::not_recoverable &) {
    }
    assert_true(s->sm.try_lock());
    s->sm.unlock();
    free_state(s);
}

static void test_try_lock_after_owner_death_returns_true_inconsistent(void **)
{
    shared_state *s = make_state();
    orphan_by_a_process(s);
    assert_true(s->rm.try_lock());
    assert_true(s->rm.inconsistent());
    s->rm.lock(); // re-entry keeps the state
    assert_true(s->rm.inconsistent());
    s->rm.consistent();
    s->rm.unlock();
    s->rm.unlock();
    assert_true(s->rm.try_lock());
    assert_false(s->rm.inconsistent());
    s->rm.unlock();
    free_state(s);
}

static int take_notify_and_die(void *p)
{
    auto *s = static_cast<shared_state *>(p);
    s->rm.lock(); // free once the parent waits
    if (!s->waiting)
        return 2;
    s->waiting = 0;
    s->cv.notify_one();
    return 0; // exits holding rm
}

static void test_condition_variable_wait_after_owner_death_returns_holding_it_inconsistent(void **)
{
    shared_state *s = make_state();
    std::unique_lock<futexsync::robust_mutex> l(s->rm);
    s->waiting = 1;
    pid_t pid = fxt_fork(take_notify_and_die, s);
    // The child stays a zombie while this thread waits; where zombies look
    // alive to the library's probe, another thread reaps it (fxtest.h).
    std::thread reaper([pid] { fxt_reap_where_zombies_look_alive(pid); });
    while (s->waiting)
        s->cv.wait(l);
    reaper.join();
    assert_true(l.owns_lock());
    assert_true(s->rm.inconsistent());
    s->value = 7;
    s->rm.consistent();
    l.unlock();
    assert_int_equal(fxt_wait_child(pid, 60000), 0);
    assert_int_equal(fxt_run_child(lock_cleanly, s), 0);
    free_state(s);
}

// In a forked child: takes rm once the parent's wait releases it, and exits
// holding it.
static int wait_for_it_and_die_holding(void *p)
{
    auto *s = static_cast<shared_state *>(p);
    return s->rm.try_lock_for(10s) ? 0 : 2;
}

// In a forked child: takes rm from its dead owner, wakes the waiter and
// unlocks without consistent(): rm is not recoverable.
static int take_and_retire(void *p)
{
    auto *s = static_cast<shared_state *>(p);
    if (!s->rm.try_lock_for(10s) || !s->rm.inconsistent())
        return 2;
    s->waiting = 0;
    s->cv.notify_all();
    s->rm.unlock();
    return 0;
}

static void test_condition_variable_wait_on_a_mutex_made_not_recoverable_throws_not_holding_it(
    void **)
{
    shared_state *s = make_state();
    std::unique_lock<futexsync::robust_mutex> l(s->rm);
    s->waiting = 1;
    int first = -1, second = -1;
    std::thread t([&] { // while this thread waits on cv
        first = fxt_run_child(wait_for_it_and_die_holding, s);
        second = fxt_run_child(take_and_retire, s);
    });
    int err = 0;
    try {
        while (s->waiting)
            s->cv.wait(l);
    } catch (const futexsync::not_recoverable &e) {
        err = e.code().value();
    }
    t.join();
    assert_int_equal(first, 0);
    assert_int_equal(second, 0);
    assert_int_equal(err, ENOTRECOVERABLE);
    assert_false(l.owns_lock());
    assert_int_equal(fx_rmutex_owner(s->rm.native_handle()), 0);
    free_state(s);
}

static void test_lock_robust_reports_owner_dead_then_not_recoverable(void **)
{
    shared_state *s = make_state();
    orphan_by_a_process(s);
    assert_true(s->rm.lock_robust() == std::errc::owner_dead);
    assert_true(s->rm.inconsistent());
    s->rm.unlock();
    assert_true(s->rm.lock_robust() == std::errc::state_not_recoverable);
    assert_true(s->rm.try_lock_robust() == std::errc::state_not_recoverable);
    assert_int_equal(fx_rmutex_owner(s->rm.native_handle()), 0);
    free_state(s);
}

static void test_lock_robust_of_a_free_mutex_gives_no_error(void **)
{
    futexsync::robust_mutex rm;
    assert_true(rm.lock_robust() == std::errc{});
    assert_false(rm.inconsistent());
    std::errc other{};
    std::thread t([&] { other = rm.try_lock_robust(); });
    t.join();
    assert_true(other == std::errc::device_or_resource_busy);
    rm.unlock();
}

int main()
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lock_guard_after_owner_death_holds_the_mutex_inconsistent),
        cmocka_unit_test(test_lock_guard_ignoring_owner_death_leaves_the_mutex_not_recoverable),
        cmocka_unit_test(test_unique_lock_after_owner_death_holds_the_mutex_inconsistent),
        cmocka_unit_test(test_unique_lock_ignoring_owner_death_leaves_the_mutex_not_recoverable),
        cmocka_unit_test(test_scoped_lock_after_owner_death_holds_both_and_releases_both),
        cmocka_unit_test(test_scoped_lock_ignoring_owner_death_leaves_the_mutex_not_recoverable),
        cmocka_unit_test(test_try_lock_after_owner_death_returns_true_inconsistent),
        cmocka_unit_test(
            test_condition_variable_wait_after_owner_death_returns_holding_it_inconsistent),
        cmocka_unit_test(
            test_condition_variable_wait_on_a_mutex_made_not_recoverable_throws_not_holding_it),
        cmocka_unit_test(test_lock_robust_reports_owner_dead_then_not_recoverable),
        cmocka_unit_test(test_lock_robust_of_a_free_mutex_gives_no_error),
    };
    return fxt_run_group_tests(tests, nullptr, nullptr);
}
