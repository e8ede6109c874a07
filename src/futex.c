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
 *
 * docs/design/futex.md.
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
static int32_t no_futex_time64;
#endif

static long sys_futex_old_time(int32_t *uaddr, int op, uint32_t val,
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
static long sys_futex(int32_t *uaddr, int op, uint32_t val, const struct timespec *timeout,
                         int32_t *uaddr2, uint32_t val3)
{
    int cmd = op & FUTEX_CMD_MASK;
    if (timeout != NULL && (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET)) {
#if defined(SYS_futex_time64)
        if (!__atomic_load_n(&no_futex_time64, __ATOMIC_RELAXED)) {
            struct __kernel_timespec t = {.tv_sec = (int64_t)timeout->tv_sec,
                                          .tv_nsec = timeout->tv_nsec};
            long r = fxi_syscall(SYS_futex_time64, (long)(uintptr_t)uaddr, op, (long)val,
                                 (long)(uintptr_t)&t, (long)(uintptr_t)uaddr2, (long)val3);
            if (r != -ENOSYS)
                return r;
            __atomic_store_n(&no_futex_time64, 1, __ATOMIC_RELAXED);
        }
#endif
        return sys_futex_old_time(uaddr, op, val, timeout, uaddr2, val3);
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
        FXI_STAT_TIMEOUT_IF(word, __atomic_load_n(word, __ATOMIC_RELAXED) == expected);
        return __atomic_load_n(word, __ATOMIC_RELAXED) != expected ? EAGAIN : ETIMEDOUT;
    }
    /* An untimed FUTEX_WAIT is restarted by the kernel after a signal handler
     * installed with SA_RESTART, while a timed one returns EINTR whatever the
     * handler's flags. So a wait without deadline sleeps until a deadline
     * that never comes (68 years of CLOCK_MONOTONIC): a handler that ran is
     * always reported as EINTR, as fx_futex_wait promises. */
    static const struct timespec forever = {.tv_sec = INT32_MAX, .tv_nsec = 0};
    long r = sys_futex(word, FUTEX_WAIT_BITSET, (uint32_t)expected,
                          deadline != NULL ? deadline : &forever, NULL, bitset);
    FXI_STAT_WAITED(word, r);
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

/* struct futex_waitv of <linux/futex.h> (Linux 5.16), spelled out for
 * older headers. */
struct waitv_entry {
    uint64_t val;
    uint64_t uaddr;
    uint32_t flags;
    uint32_t reserved;
};
#define FXI_FUTEX2_SIZE_U32 0x02u
#define FXI_FUTEX2_PRIVATE  128u /* FUTEX_PRIVATE_FLAG */

int fxi_futex_wait2_raw(int32_t *word, int32_t expected, uint32_t *handoff, uint32_t h,
                        const struct timespec *deadline, bool *by_handoff)
{
    *by_handoff = false;
#if defined(SYS_futex_waitv)
    if (deadline != NULL && deadline->tv_sec < 0)
        return ETIMEDOUT; /* as fxi_futex_wait_raw: long past */
    /* The shared word last: when both words woke us, the kernel answers
     * the highest index, so a consumed wake of `word` is never reported as
     * a hand-off only. */
    struct waitv_entry v[2] = {
        {.val = h, .uaddr = (uint64_t)(uintptr_t)handoff,
         .flags = FXI_FUTEX2_SIZE_U32 | FXI_FUTEX2_PRIVATE, .reserved = 0},
        {.val = (uint32_t)expected, .uaddr = (uint64_t)(uintptr_t)word,
         .flags = FXI_FUTEX2_SIZE_U32, .reserved = 0},
    };
    struct __kernel_timespec t = {0, 0};
    if (deadline != NULL) {
        t.tv_sec = (int64_t)deadline->tv_sec;
        t.tv_nsec = deadline->tv_nsec;
    }
    long r = fxi_syscall(SYS_futex_waitv, (long)(uintptr_t)v, 2, 0,
                         deadline != NULL ? (long)(uintptr_t)&t : 0L, CLOCK_MONOTONIC, 0);
    FXI_STAT_WAITED(word, r < 0 ? r : 0);
    if (r == 0 || r == 1) {
        *by_handoff = r == 0;
        return 0;
    }
    switch (-r) {
    case EAGAIN:
    case ETIMEDOUT:
    case EINTR:
    case ENOSYS:
        return (int)-r;
    default:
        /* EFAULT, or EINVAL from a kernel that knows the call but not these
         * flags: as unsupported. */
        return ENOSYS;
    }
#else
    (void)word, (void)expected, (void)handoff, (void)h, (void)deadline;
    return ENOSYS;
#endif
}

int fxi_futex_wait_private(uint32_t *word, uint32_t expected)
{
    long r = sys_futex((int32_t *)word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, expected, NULL, NULL,
                          0);
    return r == 0 ? 0 : (int)-r;
}

int fxi_futex_wake_private(uint32_t *word, int count)
{
    long r = sys_futex((int32_t *)word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, (uint32_t)count, NULL,
                          NULL, 0);
    return r < 0 ? 0 : (int)r;
}

int fxi_futex_wake_raw(int32_t *word, int count, uint32_t bitset)
{
    long r = sys_futex(word, FUTEX_WAKE_BITSET, (uint32_t)count, NULL, NULL, bitset);
    FXI_STAT_WAKE(word);
    return r < 0 ? 0 : (int)r;
}

int fxi_futex_requeue_raw(int32_t *word, int32_t expected, int wake, int32_t *target,
                         int requeue)
{
    /* FUTEX_CMP_REQUEUE passes the requeue limit in the timeout argument. */
    long r = sys_futex(word, FUTEX_CMP_REQUEUE, (uint32_t)wake,
                          (const struct timespec *)(uintptr_t)(unsigned)requeue, target,
                          (uint32_t)expected);
    FXI_STAT_WAKE(word);
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
    return fxi_futex_wait_raw(slot, expected, deadline, FXI_BITSET_ANY);
}

int fx_futex_wake(int32_t *slot, int count)
{
    if (fxi_bad_slot(slot) || count < 0)
        return -EINVAL;
    if (count == 0)
        return 0; /* the kernel would wake one for a count of 0 */
    return fxi_futex_wake_raw(slot, count, FXI_BITSET_ANY);
}
