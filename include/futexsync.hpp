// futexsync.hpp - C++17 types over the futexsync C objects (header-only).
//
// Each type holds exactly one member, the C object, so it has the C object's
// size and alignment, a C process and a C++ process can share it in
// MAP_SHARED memory, and zero-filled memory is a valid object (the default
// constructors only zero the C object, and are constexpr). None is copyable
// or movable. native_handle() gives the C object.
//
//   futexsync::mutex               fx_mutex   Lockable, TimedLockable
//   futexsync::robust_mutex        fx_rmutex  recursive; owner death throws
//                                             futexsync::owner_dead with the
//                                             lock held, then consistent()
//   futexsync::shared_mutex        fx_rwlock  SharedTimedLockable
//   futexsync::condition_variable  fx_cond    waits on std::unique_lock of
//                                             mutex or robust_mutex
//   futexsync::counting_semaphore  fx_sem
//   futexsync::barrier             fx_barrier
//   futexsync::once_flag, call_once fx_once
//
// They work with std::lock_guard, std::unique_lock, std::scoped_lock,
// std::shared_lock and std::condition_variable_any. Errors other than a
// timeout throw std::system_error (generic_category, the C call's errno).
// Deadlines come from any std::chrono clock: steady_clock time points are
// CLOCK_MONOTONIC times on Linux and are passed on as they are; a time point
// of another clock is converted through its distance from that clock's now(),
// and a wait that times out before that clock reaches the time point waits
// again (so a system_clock deadline follows the clock when it is set).
//
// Clang's thread-safety analysis: the lock types are capabilities like the C
// ones (futexsync/annotations.h). std::lock_guard and std::unique_lock carry
// no annotations, so code checked with -Wthread-safety takes its locks with
// futexsync::lock_guard (scoped) or the member functions.
#ifndef FUTEXSYNC_HPP
#define FUTEXSYNC_HPP

#include "futexsync.h"

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <exception>
#include <mutex>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <utility>

namespace futexsync {

namespace detail {

[[noreturn]] inline void throw_errno(int err, const char *what)
{
    throw std::system_error(err, std::generic_category(), what);
}

// Nanoseconds of d, saturated to the range of int64_t.
template <class Rep, class Period>
inline std::int64_t saturated_ns(std::chrono::duration<Rep, Period> d)
{
    const long double s = std::chrono::duration<long double>(d).count();
    if (s >= 9.2e9L)
        return INT64_MAX;
    if (s <= -9.2e9L)
        return INT64_MIN;
    return static_cast<std::int64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

// A CLOCK_MONOTONIC deadline rel from now.
template <class Rep, class Period>
inline struct timespec deadline_in(std::chrono::duration<Rep, Period> rel)
{
    return fx_deadline_in(saturated_ns(rel));
}

// The CLOCK_MONOTONIC deadline of time point tp of any clock.
template <class Clock, class Duration>
inline struct timespec deadline_at(const std::chrono::time_point<Clock, Duration> &tp)
{
    if constexpr (std::is_same_v<Clock, std::chrono::steady_clock>) {
        // steady_clock is CLOCK_MONOTONIC on Linux (libstdc++ and libc++).
        std::int64_t ns = saturated_ns(tp.time_since_epoch());
        std::int64_t sec = ns / 1000000000;
        std::int64_t rem = ns % 1000000000;
        if (rem < 0) {
            rem += 1000000000;
            sec -= 1;
        }
        struct timespec ts;
        ts.tv_sec = static_cast<std::time_t>(sec);
        ts.tv_nsec = static_cast<long>(rem);
        return ts;
    } else {
        const auto now = Clock::now();
        if (!(now < tp)) // passed (and tp - now could overflow for min())
            return fx_deadline_in(-1);
        return deadline_in(tp - now);
    }
}

// Calls attempt(deadline) with the monotonic deadline of tp until it returns
// something other than ETIMEDOUT or Clock has reached tp; returns the last
// result.
template <class Clock, class Duration, class F>
inline int until(const std::chrono::time_point<Clock, Duration> &tp, F attempt)
{
    for (;;) {
        struct timespec d = deadline_at(tp);
        int r = attempt(&d);
        if (r != ETIMEDOUT || std::is_same_v<Clock, std::chrono::steady_clock> ||
            !(Clock::now() < tp))
            return r;
    }
}

// true when the call r took the object (0), false for the one "not now"
// result `no` (EBUSY, ETIMEDOUT, EAGAIN), owner_dead for EOWNERDEAD (the
// robust_mutex is then held), std::system_error for anything else.
inline bool tried(int r, int no, const char *what);

} // namespace detail

// Takes m in the constructor and releases it in the destructor, like
// std::lock_guard, with thread-safety annotations.
template <class Mutex>
class FX_SCOPED_CAPABILITY lock_guard {
public:
    explicit lock_guard(Mutex &m) FX_ACQUIRE(m) : m_(m) { m_.lock(); }
    lock_guard(Mutex &m, std::adopt_lock_t) FX_REQUIRES(m) : m_(m) {}
    ~lock_guard() FX_RELEASE() FX_NO_THREAD_SAFETY_ANALYSIS { m_.unlock(); }
    lock_guard(const lock_guard &) = delete;
    lock_guard &operator=(const lock_guard &) = delete;

private:
    Mutex &m_;
};

// fx_mutex: a 4-byte non-recursive mutex that does not track its owner.
class FX_CAPABILITY("mutex") mutex {
public:
    using native_handle_type = fx_mutex *;

    constexpr mutex() noexcept : m_{0} {}
    mutex(const mutex &) = delete;
    mutex &operator=(const mutex &) = delete;

    void lock() FX_ACQUIRE() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (int r = fx_mutex_lock(&m_))
            detail::throw_errno(r, "fx_mutex_lock");
    }
    [[nodiscard]] bool try_lock() FX_TRY_ACQUIRE_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        return detail::tried(fx_mutex_trylock(&m_), EBUSY, "fx_mutex_trylock");
    }
    template <class Rep, class Period>
    [[nodiscard]] bool try_lock_for(const std::chrono::duration<Rep, Period> &rel)
        FX_TRY_ACQUIRE_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        struct timespec d = detail::deadline_in(rel);
        return detail::tried(fx_mutex_timedlock(&m_, &d), ETIMEDOUT, "fx_mutex_timedlock");
    }
    template <class Clock, class Duration>
    [[nodiscard]] bool try_lock_until(const std::chrono::time_point<Clock, Duration> &tp)
        FX_TRY_ACQUIRE_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        int r = detail::until(tp, [this](const struct timespec *d) {
            return fx_mutex_timedlock(&m_, d);
        });
        return detail::tried(r, ETIMEDOUT, "fx_mutex_timedlock");
    }
    void unlock() FX_RELEASE() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (int r = fx_mutex_unlock(&m_))
            detail::throw_errno(r, "fx_mutex_unlock");
    }
    native_handle_type native_handle() noexcept { return &m_; }

private:
    fx_mutex m_;
};

// Thrown by robust_mutex when its previous owner died holding it. The
// calling thread holds the mutex (once, at depth 1): repair the protected
// data, call consistent(), then unlock() it (no guard was built). Unlocking
// without consistent() makes the mutex not recoverable.
class owner_dead : public std::system_error {
public:
    explicit owner_dead(const char *what)
        : std::system_error(EOWNERDEAD, std::generic_category(), what)
    {
    }
};

inline bool detail::tried(int r, int no, const char *what)
{
    if (r == 0)
        return true;
    if (r == no)
        return false;
    if (r == EOWNERDEAD)
        throw owner_dead(what);
    throw_errno(r, what);
}

// fx_rmutex: recursive, owner-tracked, survives the death of its owner.
class FX_CAPABILITY("mutex") robust_mutex {
public:
    using native_handle_type = fx_rmutex *;

    constexpr robust_mutex() noexcept : m_{0, 0} {}
    robust_mutex(const robust_mutex &) = delete;
    robust_mutex &operator=(const robust_mutex &) = delete;

    // Throws owner_dead (mutex held), or std::system_error (not held) with
    // ENOTRECOVERABLE, EAGAIN (too deep) or EINVAL.
    void lock() FX_ACQUIRE() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        detail::tried(fx_rmutex_lock(&m_), 0, "fx_rmutex_lock");
    }
    [[nodiscard]] bool try_lock() FX_TRY_ACQUIRE_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        return detail::tried(fx_rmutex_trylock(&m_), EBUSY, "fx_rmutex_trylock");
    }
    template <class Rep, class Period>
    [[nodiscard]] bool try_lock_for(const std::chrono::duration<Rep, Period> &rel)
        FX_TRY_ACQUIRE_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        struct timespec d = detail::deadline_in(rel);
        return detail::tried(fx_rmutex_timedlock(&m_, &d), ETIMEDOUT, "fx_rmutex_timedlock");
    }
    template <class Clock, class Duration>
    [[nodiscard]] bool try_lock_until(const std::chrono::time_point<Clock, Duration> &tp)
        FX_TRY_ACQUIRE_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        int r = detail::until(tp, [this](const struct timespec *d) {
            return fx_rmutex_timedlock(&m_, d);
        });
        return detail::tried(r, ETIMEDOUT, "fx_rmutex_timedlock");
    }
    void unlock() FX_RELEASE() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (int r = fx_rmutex_unlock(&m_))
            detail::throw_errno(r, "fx_rmutex_unlock");
    }
    // Marks the data repaired after owner_dead (the caller holds the mutex).
    void consistent() FX_REQUIRES(this) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (int r = fx_rmutex_consistent(&m_))
            detail::throw_errno(r, "fx_rmutex_consistent");
    }
    native_handle_type native_handle() noexcept { return &m_; }

private:
    fx_rmutex m_;
};

// fx_rwlock: readers share it, a writer holds it alone (writers first).
class FX_CAPABILITY("mutex") shared_mutex {
public:
    using native_handle_type = fx_rwlock *;

    constexpr shared_mutex() noexcept : l_{0, 0} {}
    shared_mutex(const shared_mutex &) = delete;
    shared_mutex &operator=(const shared_mutex &) = delete;

    void lock() FX_ACQUIRE() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (int r = fx_rwlock_wrlock(&l_))
            detail::throw_errno(r, "fx_rwlock_wrlock");
    }
    [[nodiscard]] bool try_lock() FX_TRY_ACQUIRE_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        return detail::tried(fx_rwlock_trywrlock(&l_), EBUSY, "fx_rwlock_trywrlock");
    }
    template <class Rep, class Period>
    [[nodiscard]] bool try_lock_for(const std::chrono::duration<Rep, Period> &rel)
        FX_TRY_ACQUIRE_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        struct timespec d = detail::deadline_in(rel);
        return detail::tried(fx_rwlock_timedwrlock(&l_, &d), ETIMEDOUT, "fx_rwlock_timedwrlock");
    }
    template <class Clock, class Duration>
    [[nodiscard]] bool try_lock_until(const std::chrono::time_point<Clock, Duration> &tp)
        FX_TRY_ACQUIRE_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        int r = detail::until(tp, [this](const struct timespec *d) {
            return fx_rwlock_timedwrlock(&l_, d);
        });
        return detail::tried(r, ETIMEDOUT, "fx_rwlock_timedwrlock");
    }
    void unlock() FX_RELEASE() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (int r = fx_rwlock_wrunlock(&l_))
            detail::throw_errno(r, "fx_rwlock_wrunlock");
    }

    // Throws std::system_error with EAGAIN when FX_RWLOCK_MAX_READERS hold it.
    void lock_shared() FX_ACQUIRE_SHARED() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (int r = fx_rwlock_rdlock(&l_))
            detail::throw_errno(r, "fx_rwlock_rdlock");
    }
    [[nodiscard]] bool try_lock_shared()
        FX_TRY_ACQUIRE_SHARED_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        return detail::tried(fx_rwlock_tryrdlock(&l_), EBUSY, "fx_rwlock_tryrdlock");
    }
    template <class Rep, class Period>
    [[nodiscard]] bool try_lock_shared_for(const std::chrono::duration<Rep, Period> &rel)
        FX_TRY_ACQUIRE_SHARED_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        struct timespec d = detail::deadline_in(rel);
        return detail::tried(fx_rwlock_timedrdlock(&l_, &d), ETIMEDOUT, "fx_rwlock_timedrdlock");
    }
    template <class Clock, class Duration>
    [[nodiscard]] bool try_lock_shared_until(const std::chrono::time_point<Clock, Duration> &tp)
        FX_TRY_ACQUIRE_SHARED_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        int r = detail::until(tp, [this](const struct timespec *d) {
            return fx_rwlock_timedrdlock(&l_, d);
        });
        return detail::tried(r, ETIMEDOUT, "fx_rwlock_timedrdlock");
    }
    void unlock_shared() FX_RELEASE_SHARED() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (int r = fx_rwlock_rdunlock(&l_))
            detail::throw_errno(r, "fx_rwlock_rdunlock");
    }
    native_handle_type native_handle() noexcept { return &l_; }

private:
    fx_rwlock l_;
};

// fx_cond over futexsync::mutex, or over futexsync::robust_mutex (held at
// any depth; the whole depth is released for the wait and restored).
// Spurious wake-ups are possible (use the predicate forms). notify_* need not
// hold the mutex. With a robust_mutex whose owner died while we waited, the
// wait throws owner_dead with the lock held (repair, consistent()); when the
// mutex became not recoverable it throws std::system_error(ENOTRECOVERABLE)
// and the unique_lock no longer owns it.
class condition_variable {
public:
    using native_handle_type = fx_cond *;

    constexpr condition_variable() noexcept : c_{0, 0, 0, 0} {}
    condition_variable(const condition_variable &) = delete;
    condition_variable &operator=(const condition_variable &) = delete;

    void notify_one()
    {
        if (int r = fx_cond_signal(&c_))
            detail::throw_errno(r, "fx_cond_signal");
    }
    void notify_all()
    {
        if (int r = fx_cond_broadcast(&c_))
            detail::throw_errno(r, "fx_cond_broadcast");
    }

    template <class Mutex>
    void wait(std::unique_lock<Mutex> &lock)
    {
        result(wait_on(&c_, held(lock), nullptr), lock);
    }
    template <class Mutex, class Predicate>
    void wait(std::unique_lock<Mutex> &lock, Predicate pred)
    {
        while (!pred())
            wait(lock);
    }
    template <class Mutex, class Clock, class Duration>
    std::cv_status wait_until(std::unique_lock<Mutex> &lock,
                              const std::chrono::time_point<Clock, Duration> &tp)
    {
        auto *m = held(lock);
        int r = detail::until(tp, [this, m](const struct timespec *d) {
            return wait_on(&c_, m, d);
        });
        return result(r, lock);
    }
    template <class Mutex, class Clock, class Duration, class Predicate>
    bool wait_until(std::unique_lock<Mutex> &lock,
                    const std::chrono::time_point<Clock, Duration> &tp, Predicate pred)
    {
        while (!pred())
            if (wait_until(lock, tp) == std::cv_status::timeout)
                return pred();
        return true;
    }
    template <class Mutex, class Rep, class Period>
    std::cv_status wait_for(std::unique_lock<Mutex> &lock,
                            const std::chrono::duration<Rep, Period> &rel)
    {
        return wait_until(lock, std::chrono::steady_clock::now() + clamp(rel));
    }
    template <class Mutex, class Rep, class Period, class Predicate>
    bool wait_for(std::unique_lock<Mutex> &lock, const std::chrono::duration<Rep, Period> &rel,
                  Predicate pred)
    {
        return wait_until(lock, std::chrono::steady_clock::now() + clamp(rel), pred);
    }
    native_handle_type native_handle() noexcept { return &c_; }

private:
    // The unique_lock holds m: the analysis cannot see that.
    static int wait_on(fx_cond *c, fx_mutex *m, const struct timespec *d)
        FX_NO_THREAD_SAFETY_ANALYSIS
    {
        return d ? fx_cond_timedwait(c, m, d) : fx_cond_wait(c, m);
    }
    static int wait_on(fx_cond *c, fx_rmutex *m, const struct timespec *d)
        FX_NO_THREAD_SAFETY_ANALYSIS
    {
        return d ? fx_cond_timedwait_rmutex(c, m, d) : fx_cond_wait_rmutex(c, m);
    }
    template <class Mutex>
    static auto held(std::unique_lock<Mutex> &lock)
    {
        static_assert(std::is_same_v<Mutex, mutex> || std::is_same_v<Mutex, robust_mutex>,
                      "futexsync::condition_variable waits on futexsync::mutex or "
                      "futexsync::robust_mutex (std::condition_variable_any on others)");
        if (!lock.owns_lock())
            detail::throw_errno(EPERM, "futexsync::condition_variable: lock not held");
        return lock.mutex()->native_handle();
    }
    template <class Mutex>
    static std::cv_status result(int r, std::unique_lock<Mutex> &lock)
    {
        if (r == 0)
            return std::cv_status::no_timeout;
        if (r == ETIMEDOUT)
            return std::cv_status::timeout;
        if (r == EOWNERDEAD)
            throw owner_dead("fx_cond_wait_rmutex");
        if (r == ENOTRECOVERABLE)
            lock.release(); // returned without the mutex
        detail::throw_errno(r, "fx_cond_wait");
    }
    // rel in steady_clock's duration, without overflowing now() + rel.
    template <class Rep, class Period>
    static std::chrono::steady_clock::duration clamp(const std::chrono::duration<Rep, Period> &rel)
    {
        using D = std::chrono::steady_clock::duration;
        const std::int64_t ns = detail::saturated_ns(rel);
        const std::int64_t lim = INT64_MAX / 4; // about 73 years
        return std::chrono::duration_cast<D>(
            std::chrono::nanoseconds(ns > lim ? lim : ns < -lim ? -lim : ns));
    }
    fx_cond c_;
};

// fx_sem: a counting semaphore shared by threads and processes.
template <std::ptrdiff_t LeastMaxValue = FX_SEM_VALUE_MAX>
class counting_semaphore {
    static_assert(LeastMaxValue >= 0 && LeastMaxValue <= FX_SEM_VALUE_MAX,
                  "fx_sem holds at most FX_SEM_VALUE_MAX tokens");

public:
    using native_handle_type = fx_sem *;

    static constexpr std::ptrdiff_t max() noexcept { return FX_SEM_VALUE_MAX; }

    constexpr counting_semaphore() noexcept : s_{0, 0} {}
    // desired must be in [0, max()]: the C object holds it as it is.
    constexpr explicit counting_semaphore(std::ptrdiff_t desired)
        : s_{checked(desired), 0}
    {
    }
    counting_semaphore(const counting_semaphore &) = delete;
    counting_semaphore &operator=(const counting_semaphore &) = delete;

    // Adds update tokens; std::system_error(EOVERFLOW) past max() (the tokens
    // posted before it stay).
    void release(std::ptrdiff_t update = 1)
    {
        if (update < 0)
            detail::throw_errno(EINVAL, "futexsync::counting_semaphore::release");
        for (; update > 0; update--)
            if (int r = fx_sem_post(&s_))
                detail::throw_errno(r, "fx_sem_post");
    }
    void acquire()
    {
        if (int r = fx_sem_wait(&s_))
            detail::throw_errno(r, "fx_sem_wait");
    }
    [[nodiscard]] bool try_acquire()
    {
        return detail::tried(fx_sem_trywait(&s_), EAGAIN, "fx_sem_trywait");
    }
    template <class Rep, class Period>
    [[nodiscard]] bool try_acquire_for(const std::chrono::duration<Rep, Period> &rel)
    {
        struct timespec d = detail::deadline_in(rel);
        return detail::tried(fx_sem_timedwait(&s_, &d), ETIMEDOUT, "fx_sem_timedwait");
    }
    template <class Clock, class Duration>
    [[nodiscard]] bool try_acquire_until(const std::chrono::time_point<Clock, Duration> &tp)
    {
        int r = detail::until(tp, [this](const struct timespec *d) {
            return fx_sem_timedwait(&s_, d);
        });
        return detail::tried(r, ETIMEDOUT, "fx_sem_timedwait");
    }
    native_handle_type native_handle() noexcept { return &s_; }

private:
    static constexpr std::int32_t checked(std::ptrdiff_t v)
    {
        if (v < 0 || v > FX_SEM_VALUE_MAX)
            detail::throw_errno(EINVAL, "futexsync::counting_semaphore");
        return static_cast<std::int32_t>(v);
    }
    fx_sem s_;
};

using binary_semaphore = counting_semaphore<1>;

// fx_barrier: a reusable barrier for a fixed number of parties. The count is
// the C object's parties slot: set by the constructor, or recorded by the
// first arrive_and_wait(parties) on a zero-filled barrier.
class barrier {
public:
    using native_handle_type = fx_barrier *;

    constexpr barrier() noexcept : b_{0, 0} {}
    // parties in [1, FX_BARRIER_MAX_PARTIES].
    constexpr explicit barrier(std::int32_t parties) : b_{0, checked(parties)} {}
    barrier(const barrier &) = delete;
    barrier &operator=(const barrier &) = delete;

    // Waits for the recorded number of parties. Returns true in the one
    // thread per round that arrived last. std::system_error(EINVAL) when no
    // count is recorded yet.
    bool arrive_and_wait()
    {
        // Relaxed: the slot is written once (constructor or first wait's
        // CAS) before this thread can take part; the C call checks it again.
        return arrive_and_wait(__atomic_load_n(&b_.parties, __ATOMIC_RELAXED));
    }
    // The same with the count given (it must match the recorded one).
    bool arrive_and_wait(std::int32_t parties)
    {
        int r = fx_barrier_wait(&b_, parties);
        if (r == FX_BARRIER_SERIAL_THREAD)
            return true;
        if (r != 0)
            detail::throw_errno(r, "fx_barrier_wait");
        return false;
    }
    native_handle_type native_handle() noexcept { return &b_; }

private:
    static constexpr std::int32_t checked(std::int32_t p)
    {
        if (p < 1 || p > FX_BARRIER_MAX_PARTIES)
            detail::throw_errno(EINVAL, "futexsync::barrier");
        return p;
    }
    fx_barrier b_;
};

// fx_once.
class once_flag {
public:
    using native_handle_type = fx_once *;

    constexpr once_flag() noexcept : o_{0} {}
    once_flag(const once_flag &) = delete;
    once_flag &operator=(const once_flag &) = delete;
    native_handle_type native_handle() noexcept { return &o_; }

private:
    fx_once o_;
};

// Runs f(args...) once per flag, like std::call_once: concurrent callers wait
// until it has returned. An exception from f propagates to the caller that ran
// it and leaves the flag not run, so the next call runs f (the library is built
// with -fexceptions: the exception unwinds through fx_once_call, whose cleanup
// handler gives the run up). It throws std::system_error with EDEADLK when f
// calls call_once on its own flag.
template <class Callable, class... Args>
void call_once(once_flag &flag, Callable &&f, Args &&...args)
{
    struct run {
        Callable &f;
        std::tuple<Args &&...> args;
    } r{f, std::forward_as_tuple(std::forward<Args>(args)...)};
    int e = fx_once_call(
        flag.native_handle(),
        [](void *p) {
            run &r = *static_cast<run *>(p);
            std::apply(std::forward<Callable>(r.f), std::move(r.args));
        },
        &r);
    if (e != 0)
        detail::throw_errno(e, "fx_once_call");
}

static_assert(sizeof(mutex) == sizeof(fx_mutex) && alignof(mutex) == alignof(fx_mutex));
static_assert(sizeof(robust_mutex) == sizeof(fx_rmutex) &&
              alignof(robust_mutex) == alignof(fx_rmutex));
static_assert(sizeof(shared_mutex) == sizeof(fx_rwlock) &&
              alignof(shared_mutex) == alignof(fx_rwlock));
static_assert(sizeof(condition_variable) == sizeof(fx_cond) &&
              alignof(condition_variable) == alignof(fx_cond));
static_assert(sizeof(counting_semaphore<>) == sizeof(fx_sem) &&
              alignof(counting_semaphore<>) == alignof(fx_sem));
static_assert(sizeof(barrier) == sizeof(fx_barrier) && alignof(barrier) == alignof(fx_barrier));
static_assert(sizeof(once_flag) == sizeof(fx_once) && alignof(once_flag) == alignof(fx_once));
static_assert(std::is_standard_layout_v<mutex> && std::is_standard_layout_v<robust_mutex> &&
              std::is_standard_layout_v<shared_mutex> &&
              std::is_standard_layout_v<condition_variable> &&
              std::is_standard_layout_v<counting_semaphore<>> &&
              std::is_standard_layout_v<barrier> && std::is_standard_layout_v<once_flag>);

} // namespace futexsync

#endif // FUTEXSYNC_HPP
