/*
 * src/internal/syscall.h - a raw system call that leaves errno alone.
 *
 * futexsync returns errors and never sets errno, so the few raw system calls
 * it makes (the futex layer's, src/futex.c, and io_uring's, src/async/uring.c)
 * go through fxi_syscall: the kernel's result, or -errno on failure, with
 * errno put back as the caller had it.
 *
 * A failure is a result in [-4095, -1] only (the kernel's convention, which
 * libc's syscall() turns into -1 and errno): any other value is a success,
 * negative ones included, as an address above 2 GiB is on a 32-bit machine.
 * fxi_syscall_failed() is the one test of that.
 */
#ifndef FX_INTERNAL_SYSCALL_H
#define FX_INTERNAL_SYSCALL_H

#include <errno.h>
#include <stdbool.h>
#include <unistd.h>

/* True when a result of fxi_syscall is an error (-errno). */
static inline bool fxi_syscall_failed(long r)
{
    return (unsigned long)r > -4096UL;
}

static inline long fxi_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
    int saved = errno;
    long r = syscall(nr, a, b, c, d, e, f);
    /* syscall() reports the kernel's [-4095, -1] as -1 with errno set; no
     * system call succeeds with -1. */
    if (r == -1) {
        r = -errno;
        errno = saved;
    }
    return r;
}

#endif
