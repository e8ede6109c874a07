/*
 * src/futex.c - the futex layer: the only file that makes the futex(2) system
 * call. Every primitive sleeps and wakes through the functions below.
 *
 * Waits use FUTEX_WAIT_BITSET, whose timeout is an absolute CLOCK_MONOTONIC
 * time (the default clock of that operation): the kernel itself compares the
 * deadline, so a wait restarted after a signal keeps the same deadline and
 * there is no relative-time arithmetic to get wrong. No operation carries
 * FUTEX_PRIVATE_FLAG, so every word works in MAP_SHARED memory; the kernel
 * keys a private mapping by (mm, address) anyway.
 */
#include "futexsync/futex.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <linux/futex.h>
#include <linux/time_types.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal/deadline.h"
#include "internal/fault.h"
#include "internal/futex.h"
#include "internal/stats.h"
#include "internal/syscall.h"

/* The kernel's timespec for the futex call: 64-bit on every architecture
 * through futex_time64 (32-bit ones, Linux 5.1 and later) or the 64-bit
 * futex; the old 32-bit one through a 32-bit architecture's futex, where a
 * deadline past 2038 is clamped (a CLOCK_MONOTONIC time that far is never
 * reached). libc's struct timespec is neither when a 32-bit program is built
 * with _TIME_BITS=64, so it is never passed to the kernel as is. */
#if defined(SYS_futex_time64)
/* Set when futex_time64 is ENOSYS (a kernel before 5.1). Relaxed: a hint;
 * each thread that misses it gets the same ENOSYS once. */
static int32_t fx_no_futex_time64;
#endif

static long fx_sys_futex_old_time(int32_t *uaddr, int op, uint32_t val,
                                  const struct timespec *timeout, int32_t *uaddr2, uint32_t val3)
{
#if defined(SYS_futex)
    int64_t sec = (int64_t)timeout->tv_sec; /* time_t may have 32 bits or 64 */
    struct __kernel_old_timespec t = {.tv_sec = (__kernel_old_time_t)sec,
                                      .tv_nsec = timeout->tv_nsec};
    if (sizeof t.tv_sec < sizeof(int64_t) && sec > INT32_MAX) {
        t.tv_sec = INT32_MAX;
        t.tv_nsec = 999999999L;
    }
    return fxi_syscall(SYS_futex, (long)(uintptr_t)uaddr, op, (long)val, (long)(uintptr_t)&t,
                       (long)(uintptr_t)uaddr2, (long)val3);
#else
    (void)uaddr, (void)op, (void)val, (void)timeout, (void)uaddr2, (void)val3;
    return -ENOSYS;
#endif
}

/* The one place the system call is made. Returns the kernel's result, or
 * -errno on failure (errno is left as it was: futexsync never sets it).
 * `timeout` is a wait's deadline, converted to the kernel's timespec here;
 * any other operation passes it through untouched (FUTEX_CMP_REQUEUE puts a
 * count in that slot). */
static long fx_sys_futex(int32_t *uaddr, int op, uint32_t val, const struct timespec *timeout,
                         int32_t *uaddr2, uint32_t val3)
{
    int cmd = op & FUTEX_CMD_MASK;
    if (timeout != NULL && (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET)) {
#if defined(SYS_futex_time64)
        if (!__atomic_load_n(&fx_no_futex_time64, __ATOMIC_RELAXED)) {
            struct __kernel_timespec t = {.tv_sec = (int64_t)timeout->tv_sec,
                                          .tv_nsec = timeout->tv_nsec};
            long r = fxi_syscall(SYS_futex_time64, (long)(uintptr_t)uaddr, op, (long)val,
                                 (long)(uintptr_t)&t, (long)(uintptr_t)uaddr2, (long)val3);
            if (r != -ENOSYS)
                return r;
            __atomic_store_n(&fx_no_futex_time64, 1, __ATOMIC_RELAXED);
        }
#endif
        return fx_sys_futex_old_time(uaddr, op, val, timeout, uaddr2, val3);
    }
#if defined(SYS_futex)
    return fxi_syscall(SYS_futex, (long)(uintptr_t)uaddr, op, (long)val, (long)(uintptr_t)timeout,
                      (long)(uintptr_t)uaddr2, (long)val3);
#else
    return fxi_syscall(SYS_futex_time64, (long)(uintptr_t)uaddr, op, (long)val,
                       (long)(uintptr_t)timeout, (long)(uintptr_t)uaddr2, (long)val3);
#endif
}

int fxi_futex_wait_raw(int32_t *word, int32_t expected, const struct timespec *deadline,
                      uint32_t bitset)
{
    if (deadline != NULL && deadline->tv_sec < 0) {
        /* The kernel rejects a negative time with EINVAL; for futexsync it is
         * simply a deadline long past. The value check still comes first.
         * Relaxed: this load only chooses between two failure reports. */
        FX_STAT_TIMEOUT_IF(word, __atomic_load_n(word, __ATOMIC_RELAXED) == expected);
        return __atomic_load_n(word, __ATOMIC_RELAXED) != expected ? EAGAIN : ETIMEDOUT;
    }
    /* An untimed FUTEX_WAIT is restarted by the kernel after a signal handler
     * installed with SA_RESTART, while a timed one returns EINTR whatever the
     * handler's flags. So a wait without deadline sleeps until a deadline
     * that never comes (68 years of CLOCK_MONOTONIC): a handler that ran is
     * always reported as EINTR, as fx_futex_wait promises. */
    static const struct timespec forever = {.tv_sec = INT32_MAX, .tv_nsec = 0};
    long r = fx_sys_futex(word, FUTEX_WAIT_BITSET, (uint32_t)expected,
                          deadline != NULL ? deadline : &forever, NULL, bitset);
    FX_STAT_WAITED(word, r);
    if (r == 0)
        return 0;
    switch (-r) {
    case EAGAIN:    /* the word no longer held `expected` (EWOULDBLOCK) */
    case ETIMEDOUT:
    case EINTR:
        return (int)-r;
    default:
        /* EFAULT (unmapped word) or an EINVAL the checks above exclude. The
         * callers' loops re-read the word, so report it as changed. */
        return EAGAIN;
    }
}

/* Whether no other process can futex-wake `word`: true only when the page
 * holding it is present and anonymous in this process, which the kernel
 * keys by (mm, address) for a futex without FUTEX_PRIVATE_FLAG; false for
 * anything else or when in doubt (no /proc, no file descriptor, a page not
 * present or swapped out, a file page of a MAP_PRIVATE mapping not yet
 * copied, shared anonymous memory, a 32-bit build). One entry of the
 * pagemap file: bit 63 present, bit 62 swapped, bit 61 a file page or
 * shared anonymous memory. The descriptor is opened, read and closed here,
 * with raw system calls (not cancellation points, errno kept) and
 * O_CLOEXEC, so nothing is cached that a fork, an exec or the caller's
 * close() could make wrong. docs/design/futex.md, "Private memory sleeps
 * untimed", tells why pagemap and why only at the first recheck. */
static bool fx_word_private(const int32_t *word)
{
#if defined(__LP64__) && defined(SYS_openat) && defined(SYS_pread64)
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        return false;
    /* thread-self: the caller's own view, which also works after the main
     * thread has exited (/proc/self then names a zombie leader). */
    long fd = fxi_syscall(SYS_openat, AT_FDCWD, (long)(uintptr_t)"/proc/thread-self/pagemap",
                          O_RDONLY | O_CLOEXEC, 0, 0, 0);
    if (fd < 0) /* before Linux 3.17 */
        fd = fxi_syscall(SYS_openat, AT_FDCWD, (long)(uintptr_t)"/proc/self/pagemap",
                         O_RDONLY | O_CLOEXEC, 0, 0, 0);
    if (fd < 0)
        return false;
    uint64_t entry = 0;
    long off = (long)((uintptr_t)word / (uintptr_t)page * sizeof entry);
    long n = fxi_syscall(SYS_pread64, fd, (long)(uintptr_t)&entry, (long)sizeof entry, off, 0, 0);
    fxi_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
    const uint64_t present = 1ull << 63, swapped = 1ull << 62, file_or_shared = 1ull << 61;
    return n == (long)sizeof entry && (entry & (present | swapped | file_or_shared)) == present;
#else
    (void)word;
    return false;
#endif
}

/* The scope of the call of s, asked once, at its first recheck: private only
 * if its word and every other word it may sleep on are. */
static void fx_recheck_scope(const int32_t *word, struct fxi_recheck *s)
{
    bool priv = fx_word_private(word);
    for (int i = 0; priv && i < 2; i++)
        priv = s->also[i] == NULL || fx_word_private(s->also[i]);
    s->scope = priv ? FXI_SCOPE_PRIVATE : FXI_SCOPE_SHARED;
    FX_FAULT(priv ? "futex.scope.private" : "futex.scope.shared");
}

/* fxi_futex_sleep without the scope question: 1 in *ask when the recheck
 * came and the scope is still to be asked (the caller asks it outside any
 * asynchronous-cancellation region: the question opens a descriptor). */
FX_CANCEL_FRAME static int fx_futex_sleep_once(int32_t *word, int32_t expected,
                                               const struct timespec *deadline,
                                               struct fxi_recheck *s, bool *ask)
{
    *ask = false;
    if (s->scope == FXI_SCOPE_PRIVATE) {
        /* No recheck: only a wake, a change of the word, a signal or the
         * caller's own deadline ends the sleep. */
        int r = fxi_futex_wait_raw(word, expected, deadline, FX_BITSET_ANY);
        s->woken = r == 0;
        return r == ETIMEDOUT ? ETIMEDOUT : 0;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (s->tick.tv_nsec < 0 || !fxi_ts_before(&now, &s->tick)) {
        /* The first sleep of this call, or the recheck is due: the caller has
         * re-read its word since the last tick. The next tick is set from now
         * only here, once the previous one has passed, on the recheck grid
         * (internal/futex.h). */
        s->tick = fxi_ns_ts(fxi_recheck_grid(fxi_ts_ns(&now), s->period_ns));
    }
    bool mine = deadline != NULL && fxi_ts_before(deadline, &s->tick);
    int r = fxi_futex_wait_raw(word, expected, mine ? deadline : &s->tick, FX_BITSET_ANY);
    s->woken = r == 0;
    if (r != ETIMEDOUT)
        return 0; /* woken, EAGAIN (the word changed) or EINTR */
    if (mine || fxi_deadline_passed(deadline))
        return ETIMEDOUT;
    *ask = s->scope == FXI_SCOPE_UNKNOWN;
    /* @step futex.sleep.recheck */
    return 0; /* the recheck is due */
}

FX_CANCEL_FRAME int fxi_futex_sleep(int32_t *word, int32_t expected, const struct timespec *deadline,
                   struct fxi_recheck *s)
{
    bool ask;
    int r = fx_futex_sleep_once(word, expected, deadline, s, &ask);
    if (ask)
        fx_recheck_scope(word, s);
    return r;
}

FX_CANCEL_FRAME int fxi_futex_sleep_cancel(int32_t *word, int32_t expected, const struct timespec *deadline,
                          struct fxi_recheck *s)
{
    int type;
    bool ask;
    /* Acts at once on a pending cancellation (glibc); otherwise a
     * pthread_cancel during the sleep interrupts it with SIGCANCEL. */
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &type);
    int r = fx_futex_sleep_once(word, expected, deadline, s, &ask);
    /* A test's fault point: a cancellation acting here, after a wake picked
     * this thread, is the in-process way to lose a wake (the caller's
     * cleanup handler passes it on). */
    if (s->woken)
        FX_FAULT("futex.sleep_cancel.woken");
    pthread_setcanceltype(type, &type);
    if (ask)
        fx_recheck_scope(word, s);
    return r;
}

int fxi_futex_wake_raw(int32_t *word, int count, uint32_t bitset)
{
    long r = fx_sys_futex(word, FUTEX_WAKE_BITSET, (uint32_t)count, NULL, NULL, bitset);
    FX_STAT_WAKE(word);
    return r < 0 ? 0 : (int)r;
}

int fxi_futex_requeue_raw(int32_t *word, int32_t expected, int wake, int32_t *target,
                         int requeue)
{
    /* FUTEX_CMP_REQUEUE passes the requeue limit in the timeout argument. */
    long r = fx_sys_futex(word, FUTEX_CMP_REQUEUE, (uint32_t)wake,
                          (const struct timespec *)(uintptr_t)(unsigned)requeue, target,
                          (uint32_t)expected);
    FX_STAT_WAKE(word);
    return r < 0 ? (r == -EAGAIN ? -EAGAIN : 0) : (int)r;
}

/* Public API ---------------------------------------------------------------- */

int fx_futex_wait(int32_t *slot, int32_t expected, const struct timespec *deadline)
{
    if (fxi_bad_slot(slot))
        return EINVAL;
    /* Relaxed: this only decides between EAGAIN and sleeping; the kernel
     * re-checks the value atomically with queueing the sleeper. */
    if (__atomic_load_n(slot, __ATOMIC_RELAXED) != expected)
        return EAGAIN;
    if (fxi_deadline_check(deadline))
        return EINVAL;
    return fxi_futex_wait_raw(slot, expected, deadline, FX_BITSET_ANY);
}

int fx_futex_wake(int32_t *slot, int count)
{
    if (fxi_bad_slot(slot) || count < 0)
        return -EINVAL;
    if (count == 0)
        return 0; /* the kernel would wake one for a count of 0 */
    return fxi_futex_wake_raw(slot, count, FX_BITSET_ANY);
}
