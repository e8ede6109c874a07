// Clang's thread-safety analysis over futexsync.hpp (tests/tsa/check.sh). As
// written, this program guards its data with every futexsync lock type, takes
// them with the annotated guards and the member functions, waits on
// condition variables, and compiles clean under -Wthread-safety -Werror.
// Each SEED_<name> block is one mistake: compiled with -DSEED_<name>, the
// analysis must reject the line marked @SEED_<name>.
#include <futexsync.hpp>

#include <chrono>
#include <mutex>

namespace {

futexsync::mutex m;
futexsync::condition_variable cv;
int x FX_GUARDED_BY(m);
bool ready FX_GUARDED_BY(m);
futexsync::robust_mutex rm;
futexsync::condition_variable rcv;
int z FX_GUARDED_BY(rm);
futexsync::shared_mutex sm;
int y FX_GUARDED_BY(sm);

// Members guarded by a member lock.
struct account {
    futexsync::mutex lock;
    long balance FX_MEMBER_GUARDED_BY(lock) = 0;

    void deposit(long v) FX_EXCLUDES(lock)
    {
        futexsync::lock_guard<futexsync::mutex> g(lock);
        balance += v;
    }
    long peek() FX_REQUIRES(lock) { return balance; }
};

void add_locked(int d) FX_REQUIRES(m)
{
    x += d;
}

int mutex_and_cond()
{
    int sum = 0;
    {
        futexsync::lock_guard<futexsync::mutex> g(m);
        add_locked(1);
#ifdef SEED_lock_twice
        m.lock(); // @SEED_lock_twice
#endif
    }
#ifdef SEED_unlocked_write
    x++; // @SEED_unlocked_write
#endif
    {
        futexsync::unique_lock<futexsync::mutex> l(m);
        while (!ready)
            cv.wait(l);
        sum += x;
        cv.wait_for(l, std::chrono::milliseconds(1), [&]() FX_REQUIRES(m) { return ready; });
        l.unlock();
#ifdef SEED_write_after_guard_unlock
        x++; // @SEED_write_after_guard_unlock
#endif
        l.lock();
        x++;
    }
    m.lock();
    while (!ready)
        cv.wait(m);
    (void)cv.wait_for(m, std::chrono::milliseconds(1));
    m.unlock();
#ifdef SEED_cond_wait_unlocked
    cv.wait(m); // @SEED_cond_wait_unlocked
#endif
#ifdef SEED_predicate_not_annotated
    {
        futexsync::unique_lock<futexsync::mutex> l(m);
        cv.wait(l, [&] { return ready; }); // @SEED_predicate_not_annotated
    }
#endif
#ifdef SEED_std_lock_guard_is_not_seen
    {
        std::lock_guard<futexsync::mutex> g(m);
        x++; // @SEED_std_lock_guard_is_not_seen
    }
#endif
    if (m.try_lock()) {
        x++;
        m.unlock();
    }
    futexsync::unique_lock<futexsync::mutex> t(m, std::defer_lock);
    if (t.try_lock_for(std::chrono::milliseconds(1)))
        x++;
#ifdef SEED_try_lock_not_tested
    (void)t.try_lock(); // a second try, not tested
    x++;                // @SEED_try_lock_not_tested
#endif
    return sum;
}

int robust()
{
    {
        futexsync::lock_guard<futexsync::robust_mutex> g(rm);
        if (rm.inconsistent()) {
            z = 0; // the repair
            rm.consistent();
        }
        z++;
        while (z < 0)
            rcv.wait(rm);
    }
#ifdef SEED_robust_write_after_scope
    z++; // @SEED_robust_write_after_scope
#endif
#ifdef SEED_inconsistent_unlocked
    if (rm.inconsistent()) // @SEED_inconsistent_unlocked
        return 1;
#endif
#ifdef SEED_consistent_unlocked
    rm.consistent(); // @SEED_consistent_unlocked
#endif
    futexsync::unique_lock<futexsync::robust_mutex> l(rm);
    rcv.wait_for(l, std::chrono::milliseconds(1), [&]() FX_REQUIRES(rm) { return z > 0; });
    return z;
}

int shared()
{
    int sum = 0;
    {
        futexsync::shared_lock<futexsync::shared_mutex> r(sm);
        sum += y;
#ifdef SEED_write_under_shared_lock
        y = 2; // @SEED_write_under_shared_lock
#endif
        r.unlock();
#ifdef SEED_read_after_shared_unlock
        sum += y; // @SEED_read_after_shared_unlock
#endif
        r.lock();
        sum += y;
    }
    {
        futexsync::lock_guard<futexsync::shared_mutex> w(sm);
        y = 1;
    }
    {
        futexsync::unique_lock<futexsync::shared_mutex> w(sm);
        y++;
    }
#ifdef SEED_read_without_lock
    sum += y; // @SEED_read_without_lock
#endif
    if (sm.try_lock_shared()) {
        sum += y;
        sm.unlock_shared();
    }
    return sum;
}

int members()
{
    account a;
    a.deposit(5);
    a.lock.lock();
    long v = a.peek();
    a.lock.unlock();
#ifdef SEED_member_unlocked
    a.balance = 0; // @SEED_member_unlocked
#endif
#ifdef SEED_member_function_unlocked
    v += a.peek(); // @SEED_member_function_unlocked
#endif
    return static_cast<int>(v);
}

} // namespace

int main()
{
    return mutex_and_cond() + robust() + shared() + members();
}
