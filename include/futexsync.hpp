// futexsync.hpp - C++17 types over the futexsync C objects (header-only).
//
// Each synchronization type holds exactly one member, the C object (barrier
// also holds its completion function, when that has state), so it has the C
// object's size and alignment, a C process and a C++ process can share it in
// MAP_SHARED memory, and zero-filled memory is a valid object (the default
// constructors only zero the C object, and are constexpr). None is copyable
// or movable. native_handle() gives the C object.
//
//   futexsync::mutex               fx_mutex   Lockable, TimedLockable
//   futexsync::robust_mutex        fx_rmutex  recursive, TimedLockable; after
//                                             an owner death lock() returns
//                                             holding it and inconsistent() is
//                                             true until consistent()
//   futexsync::shared_mutex        fx_rwlock  SharedTimedLockable
//   futexsync::condition_variable  fx_cond    waits on a unique_lock (std or
//                                             futexsync) of mutex or
//                                             robust_mutex, or on the mutex
//   futexsync::counting_semaphore  fx_sem     binary_semaphore: max() is 1
//   futexsync::latch               fx_counter
//   futexsync::barrier<F>          fx_barrier F: a completion function
//   futexsync::once_flag, call_once fx_once
//   futexsync::lock_guard, unique_lock, shared_lock: scoped guards with
//                                             thread-safety annotations
//
// The lock types work with std::lock_guard, std::unique_lock,
// std::scoped_lock, std::shared_lock and std::condition_variable_any: a
// lock call that throws has acquired nothing.
//
// Owner death (robust_mutex). An acquisition that finds the previous owner
// dead takes the mutex as usual (lock() returns, try_lock() gives true, a
// condition_variable wait returns) and the mutex is inconsistent: the data it
// protects may be half-updated. The new owner checks inconsistent(), repairs
// the data and calls consistent(). If it unlocks without consistent(), the
// mutex becomes not recoverable: every later acquisition, in any thread or
// process, throws futexsync::not_recoverable (ENOTRECOVERABLE) and acquires
// nothing, so a program that ignores the death cannot go on using the data.
// lock_robust() and try_lock_robust() report the same outcomes as a
// std::errc without exceptions.
//
// Errors. A timeout or "not now" is a false return of the try_ forms. Any
// other error is a bug or a broken object (EINVAL, EPERM, EDEADLK, EAGAIN
// past a depth or reader limit, EOVERFLOW) or a not-recoverable robust_mutex:
// with exceptions it throws std::system_error (generic_category, the C call's
// errno; futexsync::not_recoverable for ENOTRECOVERABLE). Without exceptions
// (-fno-exceptions, or FUTEXSYNC_EXCEPTIONS defined to 0) it calls
// FUTEXSYNC_ERROR_HANDLER(err, what) when the program defines that macro
// before including this header (a [[noreturn]] function of (int, const char
// *)), otherwise it writes "futexsync: <what>: <strerror>" to stderr; then
// std::terminate(). Errors in noexcept functions (notify_*) take the second
// path in both modes.
//
// Deadlines come from any std::chrono clock: steady_clock time points are
// CLOCK_MONOTONIC times on Linux and are passed on as they are; a time point
// of another clock is converted through its distance from that clock's
// now(), and a wait that times out before that clock reaches the time point
// waits again (so a system_clock deadline follows the clock when it is set).
//
// Clang's thread-safety analysis: the lock types are capabilities like the C
// ones (futexsync/annotations.h). std::lock_guard and std::unique_lock carry
// no annotations, so code checked with -Wthread-safety takes its locks with
// futexsync::lock_guard, unique_lock or shared_lock, or the member
// functions, and waits with condition_variable::wait(futexsync::unique_lock)
// or wait(mutex) (FX_REQUIRES). A wait predicate that reads guarded data is a
// lambda the analysis checks on its own: annotate it, [&]() FX_REQUIRES(m).
// docs/cxx.md lists where these types differ from their std counterparts.
#ifndef FUTEXSYNC_HPP
#define FUTEXSYNC_HPP

#include "futexsync.h"
#include "futexsync/layout.h" // robust_mutex::inconsistent() reads the depth slot

#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <mutex>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <utility>

#ifndef FUTEXSYNC_EXCEPTIONS
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define FUTEXSYNC_EXCEPTIONS 1
#else
#define FUTEXSYNC_EXCEPTIONS 0
#endif
#endif

namespace futexsync {

// Thrown when a robust_mutex is not recoverable (its owner died and the next
// owner unlocked it without consistent()): nothing was acquired.
class not_recoverable : public std::system_error {
public:
    explicit not_recoverable(const char *what)
        : std::system_error(ENOTRECOVERABLE, std::generic_category(), what)
    {
    }
};

namespace detail {

// An error where no exception may leave: the handler, or a message; then
// std::terminate.
[[noreturn]] inline void fatal(int err, const char *what) noexcept
{
#ifdef FUTEXSYNC_ERROR_HANDLER
    FUTEXSYNC_ERROR_HANDLER(err, what);
#else
    std::fprintf(stderr, "futexsync: %s: %s\n", what, std::strerror(err));
#endif
    std::terminate();
}

// An error: an exception when the program has them, fatal() otherwise.
[[noreturn]] inline void throw_errno(int err, const char *what)
{
#if FUTEXSYNC_EXCEPTIONS
    if (err == ENOTRECOVERABLE)
        throw not_recoverable(what);
    throw std::system_error(err, std::generic_category(), what);
#else
    fatal(err, what);
#endif
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

// true when the call r took the object (0, or EOWNERDEAD: a robust_mutex is
// then held and inconsistent), false for the one "not now" result `no`
// (EBUSY, ETIMEDOUT, EAGAIN), an error (throw_errno) for anything else.
inline bool tried(int r, int no, const char *what)
{
    if (r == 0 || r == EOWNERDEAD)
        return true;
    if (r == no)
        return false;
    throw_errno(r, what);
}

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

class condition_variable;

// std::unique_lock with thread-safety annotations: the analysis follows its
// unlock() and lock() in the scope. Not movable (a scoped capability stays
// in its scope), no release(); the try_to_lock constructor is try_lock().
template <class Mutex>
class FX_SCOPED_CAPABILITY unique_lock {
public:
    using mutex_type = Mutex;

    explicit unique_lock(Mutex &m) FX_ACQUIRE(m) : m_(m), owns_(false)
    {
        m_.lock();
        owns_ = true;
    }
    unique_lock(Mutex &m, std::defer_lock_t) noexcept FX_EXCLUDES(m) : m_(m), owns_(false) {}
    unique_lock(Mutex &m, std::adopt_lock_t) FX_REQUIRES(m) : m_(m), owns_(true) {}
    ~unique_lock() FX_RELEASE() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (owns_)
            m_.unlock();
    }
    unique_lock(const unique_lock &) = delete;
    unique_lock &operator=(const unique_lock &) = delete;

    void lock() FX_ACQUIRE() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (owns_)
            detail::throw_errno(EDEADLK, "futexsync::unique_lock::lock");
        m_.lock();
        owns_ = true;
    }
    [[nodiscard]] bool try_lock() FX_TRY_ACQUIRE_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (owns_)
            detail::throw_errno(EDEADLK, "futexsync::unique_lock::try_lock");
        return owns_ = m_.try_lock();
    }
    template <class Rep, class Period>
    [[nodiscard]] bool try_lock_for(const std::chrono::duration<Rep, Period> &rel)
        FX_TRY_ACQUIRE_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (owns_)
            detail::throw_errno(EDEADLK, "futexsync::unique_lock::try_lock_for");
        return owns_ = m_.try_lock_for(rel);
    }
    template <class Clock, class Duration>
    [[nodiscard]] bool try_lock_until(const std::chrono::time_point<Clock, Duration> &tp)
        FX_TRY_ACQUIRE_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (owns_)
            detail::throw_errno(EDEADLK, "futexsync::unique_lock::try_lock_until");
        return owns_ = m_.try_lock_until(tp);
    }
    void unlock() FX_RELEASE() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (!owns_)
            detail::throw_errno(EPERM, "futexsync::unique_lock::unlock");
        m_.unlock();
        owns_ = false;
    }
    bool owns_lock() const noexcept { return owns_; }
    explicit operator bool() const noexcept { return owns_; }
    Mutex *mutex() const noexcept FX_RETURN_CAPABILITY(m_) { return &m_; }

private:
    friend class condition_variable;
    Mutex &m_;
    bool owns_;
};

// std::shared_lock with thread-safety annotations (a shared hold of m).
template <class Mutex>
class FX_SCOPED_CAPABILITY shared_lock {
public:
    using mutex_type = Mutex;

    explicit shared_lock(Mutex &m) FX_ACQUIRE_SHARED(m) : m_(m), owns_(false)
    {
        m_.lock_shared();
        owns_ = true;
    }
    shared_lock(Mutex &m, std::defer_lock_t) noexcept FX_EXCLUDES(m) : m_(m), owns_(false) {}
    shared_lock(Mutex &m, std::adopt_lock_t) FX_REQUIRES_SHARED(m) : m_(m), owns_(true) {}
    ~shared_lock() FX_RELEASE() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (owns_)
            m_.unlock_shared();
    }
    shared_lock(const shared_lock &) = delete;
    shared_lock &operator=(const shared_lock &) = delete;

    void lock() FX_ACQUIRE_SHARED() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (owns_)
            detail::throw_errno(EDEADLK, "futexsync::shared_lock::lock");
        m_.lock_shared();
        owns_ = true;
    }
    [[nodiscard]] bool try_lock() FX_TRY_ACQUIRE_SHARED_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (owns_)
            detail::throw_errno(EDEADLK, "futexsync::shared_lock::try_lock");
        return owns_ = m_.try_lock_shared();
    }
    template <class Rep, class Period>
    [[nodiscard]] bool try_lock_for(const std::chrono::duration<Rep, Period> &rel)
        FX_TRY_ACQUIRE_SHARED_SELF(true) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (owns_)
            detail::throw_errno(EDEADLK, "futexsync::shared_lock::try_lock_for");
        return owns_ = m_.try_lock_shared_for(rel);
    }
    void unlock() FX_RELEASE() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (!owns_)
            detail::throw_errno(EPERM, "futexsync::shared_lock::unlock");
        m_.unlock_shared();
        owns_ = false;
    }
    bool owns_lock() const noexcept { return owns_; }
    explicit operator bool() const noexcept { return owns_; }
    Mutex *mutex() const noexcept FX_RETURN_CAPABILITY(m_) { return &m_; }

private:
    Mutex &m_;
    bool owns_;
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

// fx_rmutex: recursive, owner-tracked, survives the death of its owner.
//
// Every acquisition (lock, the try_ forms, a condition_variable wait) that
// finds the previous owner dead takes the mutex (at depth 1) and reports
// success; inconsistent() is then true. Repair the data and call
// consistent(). The final unlock() of an inconsistent mutex makes it not
// recoverable for good: every later acquisition, in any thread or process,
// throws not_recoverable (or fails the same way without exceptions) and
// acquires nothing. (std::lock of several mutexes may unlock one it took, to
// back off: for a mutex just taken from a dead owner that unlock is such an
// unlock.) So the std wrappers work unchanged:
//
//     std::lock_guard<futexsync::robust_mutex> g(m);
//     if (m.inconsistent()) {
//         repair(data);      // or leave it: the mutex is then retired
//         m.consistent();
//     }
//     use(data);
class FX_CAPABILITY("mutex") robust_mutex {
public:
    using native_handle_type = fx_rmutex *;

    constexpr robust_mutex() noexcept : m_{0, 0, {0}, {nullptr}} {}
    robust_mutex(const robust_mutex &) = delete;
    robust_mutex &operator=(const robust_mutex &) = delete;

    // Returns holding the mutex (inconsistent() tells whether its owner
    // died). Errors acquire nothing: not_recoverable, std::system_error with
    // EAGAIN (too deep) or EINVAL.
    void lock() FX_ACQUIRE() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        int r = fx_rmutex_lock(&m_);
        if (r != 0 && r != EOWNERDEAD)
            detail::throw_errno(r, "fx_rmutex_lock");
    }
    // true when it took the mutex (also from a dead owner: inconsistent()).
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
    // lock() without exceptions: std::errc{} (held), std::errc::owner_dead
    // (held, inconsistent), or, not held, state_not_recoverable,
    // resource_unavailable_try_again (too deep), invalid_argument. The
    // analysis cannot tell these apart: a caller checked with -Wthread-safety
    // uses lock() or marks its function FX_NO_THREAD_SAFETY_ANALYSIS.
    [[nodiscard]] std::errc lock_robust() noexcept FX_NO_THREAD_SAFETY_ANALYSIS
    {
        return static_cast<std::errc>(fx_rmutex_lock(&m_));
    }
    // try_lock() without exceptions: as lock_robust, or
    // device_or_resource_busy (EBUSY: another live thread holds it).
    [[nodiscard]] std::errc try_lock_robust() noexcept FX_NO_THREAD_SAFETY_ANALYSIS
    {
        return static_cast<std::errc>(fx_rmutex_trylock(&m_));
    }
    void unlock() FX_RELEASE() FX_NO_THREAD_SAFETY_ANALYSIS
    {
        if (int r = fx_rmutex_unlock(&m_))
            detail::throw_errno(r, "fx_rmutex_unlock");
    }
    // true while the calling thread holds the mutex taken from a dead owner
    // and has not called consistent(). Meaningful only to the owner.
    [[nodiscard]] bool inconsistent() const noexcept FX_REQUIRES(this)
    {
        // Relaxed: the depth slot is written only by the owner, which is the
        // calling thread.
        return (__atomic_load_n(&m_.depth, __ATOMIC_RELAXED) & FX_RMUTEX_INCONSISTENT) != 0;
    }
    // Marks the data repaired (the caller holds the inconsistent mutex).
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

    // An error (EAGAIN) when FX_RWLOCK_MAX_READERS hold it.
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

namespace detail {
template <class M>
inline constexpr bool is_cond_mutex_v = std::is_same_v<M, mutex> || std::is_same_v<M, robust_mutex>;
template <class L>
struct is_cond_lock : std::false_type {};
template <class M>
struct is_cond_lock<std::unique_lock<M>> : std::bool_constant<is_cond_mutex_v<M>> {};
template <class M>
struct is_cond_lock<futexsync::unique_lock<M>> : std::bool_constant<is_cond_mutex_v<M>> {};
} // namespace detail

// fx_cond over futexsync::mutex, or over futexsync::robust_mutex (held at
// any depth; the whole depth is released for the wait and restored). The
// wait takes a std::unique_lock or futexsync::unique_lock of the mutex, or
// the mutex itself (held by the caller: FX_REQUIRES, for the thread-safety
// analysis). Spurious wake-ups are possible (use the predicate forms).
// notify_* need not hold the mutex.
//
// With a robust_mutex whose owner died while we waited, the wait returns
// holding it, inconsistent() true (repair, consistent()); when the mutex
// became not recoverable it fails with not_recoverable and the mutex is not
// held (a unique_lock then no longer owns it).
class condition_variable {
public:
    using native_handle_type = fx_cond *;

    constexpr condition_variable() noexcept : c_{0, 0, 0, 0} {}
    condition_variable(const condition_variable &) = delete;
    condition_variable &operator=(const condition_variable &) = delete;

    // fx_cond_signal/broadcast fail only for a bad object: fatal here.
    void notify_one() noexcept
    {
        if (int r = fx_cond_signal(&c_))
            detail::fatal(r, "fx_cond_signal");
    }
    void notify_all() noexcept
    {
        if (int r = fx_cond_broadcast(&c_))
            detail::fatal(r, "fx_cond_broadcast");
    }

    // On a unique_lock (std or futexsync).
    template <class Lock, std::enable_if_t<detail::is_cond_lock<Lock>::value, int> = 0>
    void wait(Lock &lock)
    {
        result(wait_on(&c_, held(lock), nullptr), lock);
    }
    template <class Lock, class Predicate,
              std::enable_if_t<detail::is_cond_lock<Lock>::value, int> = 0>
    void wait(Lock &lock, Predicate pred) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        while (!pred())
            wait(lock);
    }
    template <class Lock, class Clock, class Duration,
              std::enable_if_t<detail::is_cond_lock<Lock>::value, int> = 0>
    std::cv_status wait_until(Lock &lock, const std::chrono::time_point<Clock, Duration> &tp)
    {
        auto *m = held(lock);
        int r = detail::until(tp, [this, m](const struct timespec *d) {
            return wait_on(&c_, m, d);
        });
        return result(r, lock);
    }
    template <class Lock, class Clock, class Duration, class Predicate,
              std::enable_if_t<detail::is_cond_lock<Lock>::value, int> = 0>
    bool wait_until(Lock &lock, const std::chrono::time_point<Clock, Duration> &tp,
                    Predicate pred) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        while (!pred())
            if (wait_until(lock, tp) == std::cv_status::timeout)
                return pred();
        return true;
    }
    template <class Lock, class Rep, class Period,
              std::enable_if_t<detail::is_cond_lock<Lock>::value, int> = 0>
    std::cv_status wait_for(Lock &lock, const std::chrono::duration<Rep, Period> &rel)
    {
        return wait_until(lock, std::chrono::steady_clock::now() + clamp(rel));
    }
    template <class Lock, class Rep, class Period, class Predicate,
              std::enable_if_t<detail::is_cond_lock<Lock>::value, int> = 0>
    bool wait_for(Lock &lock, const std::chrono::duration<Rep, Period> &rel, Predicate pred)
    {
        return wait_until(lock, std::chrono::steady_clock::now() + clamp(rel), pred);
    }

    // On the mutex the caller holds (lock(), lock_guard, an annotated
    // unique_lock, ...): the analysis checks that it is held.
    template <class Mutex, std::enable_if_t<detail::is_cond_mutex_v<Mutex>, int> = 0>
    void wait(Mutex &m) FX_REQUIRES(m)
    {
        detail_result(wait_on(&c_, m.native_handle(), nullptr));
    }
    template <class Mutex, class Predicate,
              std::enable_if_t<detail::is_cond_mutex_v<Mutex>, int> = 0>
    void wait(Mutex &m, Predicate pred) FX_REQUIRES(m) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        while (!pred())
            wait(m);
    }
    template <class Mutex, class Clock, class Duration,
              std::enable_if_t<detail::is_cond_mutex_v<Mutex>, int> = 0>
    std::cv_status wait_until(Mutex &m, const std::chrono::time_point<Clock, Duration> &tp)
        FX_REQUIRES(m)
    {
        auto *n = m.native_handle();
        int r = detail::until(tp, [this, n](const struct timespec *d) {
            return wait_on(&c_, n, d);
        });
        return detail_result(r);
    }
    template <class Mutex, class Clock, class Duration, class Predicate,
              std::enable_if_t<detail::is_cond_mutex_v<Mutex>, int> = 0>
    bool wait_until(Mutex &m, const std::chrono::time_point<Clock, Duration> &tp,
                    Predicate pred) FX_REQUIRES(m) FX_NO_THREAD_SAFETY_ANALYSIS
    {
        while (!pred())
            if (wait_until(m, tp) == std::cv_status::timeout)
                return pred();
        return true;
    }
    template <class Mutex, class Rep, class Period,
              std::enable_if_t<detail::is_cond_mutex_v<Mutex>, int> = 0>
    std::cv_status wait_for(Mutex &m, const std::chrono::duration<Rep, Period> &rel)
        FX_REQUIRES(m)
    {
        return wait_until(m, std::chrono::steady_clock::now() + clamp(rel));
    }
    template <class Mutex, class Rep, class Period, class Predicate,
              std::enable_if_t<detail::is_cond_mutex_v<Mutex>, int> = 0>
    bool wait_for(Mutex &m, const std::chrono::duration<Rep, Period> &rel, Predicate pred)
        FX_REQUIRES(m)
    {
        return wait_until(m, std::chrono::steady_clock::now() + clamp(rel), pred);
    }
    native_handle_type native_handle() noexcept { return &c_; }

private:
    // The caller holds m: the lock types say so, the analysis cannot see it.
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
    template <class Lock>
    static auto held(Lock &lock)
    {
        if (!lock.owns_lock())
            detail::throw_errno(EPERM, "futexsync::condition_variable: lock not held");
        return lock.mutex()->native_handle();
    }
    template <class Mutex>
    static void forget(std::unique_lock<Mutex> &lock) noexcept
    {
        lock.release();
    }
    template <class Mutex>
    static void forget(futexsync::unique_lock<Mutex> &lock) noexcept
    {
        lock.owns_ = false;
    }
    // 0 and EOWNERDEAD (held, inconsistent): no timeout.
    static std::cv_status detail_result(int r)
    {
        if (r == 0 || r == EOWNERDEAD)
            return std::cv_status::no_timeout;
        if (r == ETIMEDOUT)
            return std::cv_status::timeout;
        detail::throw_errno(r, "fx_cond_wait");
    }
    template <class Lock>
    static std::cv_status result(int r, Lock &lock)
    {
        if (r == ENOTRECOVERABLE)
            forget(lock); // returned without the mutex
        return detail_result(r);
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
// counting_semaphore<1> (binary_semaphore) holds at most one token: max() is
// 1, and a release while the token is there leaves it at 1 (std leaves that
// undefined). Other LeastMaxValue: max() is FX_SEM_VALUE_MAX and a release
// past it fails with EOVERFLOW.
template <std::ptrdiff_t LeastMaxValue = FX_SEM_VALUE_MAX>
class counting_semaphore {
    static_assert(LeastMaxValue >= 0 && LeastMaxValue <= FX_SEM_VALUE_MAX,
                  "fx_sem holds at most FX_SEM_VALUE_MAX tokens");
    static constexpr bool binary = LeastMaxValue == 1;

public:
    using native_handle_type = fx_sem *;

    static constexpr std::ptrdiff_t max() noexcept { return binary ? 1 : FX_SEM_VALUE_MAX; }

    constexpr counting_semaphore() noexcept : s_{0, 0} {}
    // desired must be in [0, max()]: the C object holds it as it is.
    constexpr explicit counting_semaphore(std::ptrdiff_t desired)
        : s_{checked(desired), 0}
    {
    }
    counting_semaphore(const counting_semaphore &) = delete;
    counting_semaphore &operator=(const counting_semaphore &) = delete;

    // Adds update tokens; an error (EOVERFLOW) past max() (the tokens posted
    // before it stay). binary_semaphore: makes the token available (once).
    void release(std::ptrdiff_t update = 1)
    {
        if (update < 0)
            detail::throw_errno(EINVAL, "futexsync::counting_semaphore::release");
        if constexpr (binary) {
            if (update > 0)
                give_one();
            return;
        }
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
        if (v < 0 || v > max())
            detail::throw_errno(EINVAL, "futexsync::counting_semaphore");
        return static_cast<std::int32_t>(v);
    }
    // fx_sem_post's protocol (src/sem.c, P1 and P2) for a value that may only
    // go from 0 to 1: a CAS instead of P1's fetch_add, then the same wake.
    void give_one()
    {
        std::int32_t v = 0;
        // Seq_cst, as P1: release for the taker, and ordered before the
        // waiters load below (the Dekker pair with a waiter's count and
        // re-check). A failed CAS publishes nothing: relaxed; v is then the
        // value seen.
        while (!__atomic_compare_exchange_n(&s_.value, &v, 1, false, __ATOMIC_SEQ_CST,
                                            __ATOMIC_RELAXED)) {
            if (v > 0)
                return; // the token is there: it stays one
            if (v < 0)
                detail::throw_errno(EINVAL, "futexsync::binary_semaphore::release");
        }
        // Seq_cst, as P2.
        if (__atomic_load_n(&s_.waiters, __ATOMIC_SEQ_CST) != 0) {
            int r = fx_futex_wake(&s_.value, 1);
            if (r < 0)
                detail::throw_errno(-r, "fx_futex_wake");
        }
    }
    fx_sem s_;
};

using binary_semaphore = counting_semaphore<1>;

// std::latch over fx_counter: the value counts down to 0. Zero-filled memory
// is a latch that is already open. Counting down past 0 leaves it open (std:
// undefined).
class latch {
public:
    using native_handle_type = fx_counter *;

    static constexpr std::ptrdiff_t max() noexcept { return INT32_MAX; }

    constexpr latch() noexcept : c_{0, 0} {}
    // expected in [0, max()].
    constexpr explicit latch(std::ptrdiff_t expected) : c_{checked(expected), 0} {}
    latch(const latch &) = delete;
    latch &operator=(const latch &) = delete;

    // update in [0, max()]. Writes before it happen-before the return of
    // every wait that it opens.
    void count_down(std::ptrdiff_t update = 1)
    {
        (void)fx_counter_add(&c_, -checked(update));
    }
    [[nodiscard]] bool try_wait() const noexcept { return fx_counter_load(&c_) <= 0; }
    void wait() const
    {
        if (int r = fx_counter_wait_le(const_cast<fx_counter *>(&c_), 0, nullptr))
            detail::throw_errno(r, "fx_counter_wait_le");
    }
    void arrive_and_wait(std::ptrdiff_t update = 1)
    {
        count_down(update);
        wait();
    }
    native_handle_type native_handle() noexcept { return &c_; }

private:
    static constexpr std::int32_t checked(std::ptrdiff_t v)
    {
        if (v < 0 || v > max())
            detail::throw_errno(EINVAL, "futexsync::latch");
        return static_cast<std::int32_t>(v);
    }
    fx_counter c_;
};

namespace detail {
// barrier<>'s completion: none.
struct no_completion {
    void operator()() noexcept {}
};
// Holds a completion function: as an empty base when it can (barrier<> keeps
// fx_barrier's size), else as a member after the C object.
template <class F, bool = std::is_empty_v<F> && !std::is_final_v<F>>
struct completion_holder : private F {
    constexpr explicit completion_holder(F f) : F(std::move(f)) {}
    F &get() noexcept { return *this; }
};
template <class F>
struct completion_holder<F, false> {
    constexpr explicit completion_holder(F f) : f_(std::move(f)) {}
    F &get() noexcept { return f_; }
    F f_;
};
} // namespace detail

// fx_barrier: a reusable barrier for a fixed number of parties, with an
// optional completion function as std::barrier<CompletionFunction>: one
// party of each phase runs it, after all have arrived and before any leaves
// (the barrier then takes two rounds of the C object per phase). The count
// is the C object's parties slot: set by the constructor, or recorded by the
// first arrive_and_wait(parties) on a zero-filled barrier<>.
template <class CompletionFunction = detail::no_completion>
class barrier : private detail::completion_holder<CompletionFunction> {
    static_assert(std::is_invocable_v<CompletionFunction &>,
                  "the completion function is called with no arguments");
    static constexpr bool has_completion =
        !std::is_same_v<CompletionFunction, detail::no_completion>;
    using holder = detail::completion_holder<CompletionFunction>;

public:
    using native_handle_type = fx_barrier *;

    static constexpr std::ptrdiff_t max() noexcept { return FX_BARRIER_MAX_PARTIES; }

    constexpr barrier() noexcept : holder(CompletionFunction()), b_{0, 0} {}
    // expected in [1, max()].
    constexpr explicit barrier(std::ptrdiff_t expected,
                               CompletionFunction f = CompletionFunction())
        : holder(std::move(f)), b_{0, checked(expected)}
    {
    }
    barrier(const barrier &) = delete;
    barrier &operator=(const barrier &) = delete;

    // Waits for the recorded number of parties. Returns true in the one
    // thread per phase that arrived last (std: void); that thread ran the
    // completion function. An error (EINVAL) when no count is recorded yet.
    bool arrive_and_wait()
    {
        // Relaxed: the slot is written once (constructor or first wait's
        // CAS) before this thread can take part; the C call checks it again.
        return arrive_and_wait(__atomic_load_n(&b_.parties, __ATOMIC_RELAXED));
    }
    // The same with the count given (it must match the recorded one).
    bool arrive_and_wait(std::int32_t parties)
    {
        bool last = round(parties);
        if constexpr (has_completion) {
            // Every party is inside this phase's second round until the last
            // arrival of the first has run the completion and arrived there.
            if (last)
                complete();
            (void)round(parties);
        }
        return last;
    }
    native_handle_type native_handle() noexcept { return &b_; }

private:
    bool round(std::int32_t parties)
    {
        int r = fx_barrier_wait(&b_, parties);
        if (r == FX_BARRIER_SERIAL_THREAD)
            return true;
        if (r != 0)
            detail::throw_errno(r, "fx_barrier_wait");
        return false;
    }
    // As std::barrier: an exception from the completion calls std::terminate
    // (the other parties wait for this one).
    void complete() noexcept { holder::get()(); }
    static constexpr std::int32_t checked(std::ptrdiff_t p)
    {
        if (p < 1 || p > FX_BARRIER_MAX_PARTIES)
            detail::throw_errno(EINVAL, "futexsync::barrier");
        return static_cast<std::int32_t>(p);
    }
    fx_barrier b_;
};

// fx_once.
class once_flag {
public:
    using native_handle_type = fx_once *;

    constexpr once_flag() noexcept : o_{0, {0}, {nullptr}} {}
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
// handler gives the run up). An error (EDEADLK) when f calls call_once on its
// own flag.
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
static_assert(sizeof(binary_semaphore) == sizeof(fx_sem));
static_assert(sizeof(latch) == sizeof(fx_counter) && alignof(latch) == alignof(fx_counter));
static_assert(sizeof(barrier<>) == sizeof(fx_barrier) &&
              alignof(barrier<>) == alignof(fx_barrier));
static_assert(sizeof(once_flag) == sizeof(fx_once) && alignof(once_flag) == alignof(fx_once));
static_assert(std::is_standard_layout_v<mutex> && std::is_standard_layout_v<robust_mutex> &&
              std::is_standard_layout_v<shared_mutex> &&
              std::is_standard_layout_v<condition_variable> &&
              std::is_standard_layout_v<counting_semaphore<>> &&
              std::is_standard_layout_v<latch> && std::is_standard_layout_v<barrier<>> &&
              std::is_standard_layout_v<once_flag>);

} // namespace futexsync

#endif // FUTEXSYNC_HPP
