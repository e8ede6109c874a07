/*
 * src/internal/syscall.h - a raw system call that leaves errno alone.
 *
 * futexsync returns errors and never sets errno, so the few raw system calls
 * it makes (the futex layer's, src/futex.c, and io_uring's, src/async/uring.c)
 * go through fxi_syscall: the kernel's result, or -errno on failure, with
 * errno put back as the caller had it.
 */
#ifndef FX_INTERNAL_SYSCALL_H
#define FX_INTERNAL_SYSCALL_H

#include <errno.h>
#include <unistd.h>

static inline long fxi_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
    int saved = errno;
    long r = syscall(nr, a, b, c, d, e, f);
    if (r < 0) {
        r = -errno;
        errno = saved;
    }
    return r;
}

#endif
