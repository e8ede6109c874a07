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
#ifndef FXI_INTERNAL_SYSCALL_H
#define FXI_INTERNAL_SYSCALL_H

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
#if defined(__riscv) && __riscv_xlen == 64 && defined(__linux__)
    /* The system call instruction itself, not libc's syscall(): a futex
     * sleep runs with asynchronous cancellation enabled (src/sleep.c), so
     * the unwinder must be able to leave the instruction a SIGCANCEL
     * interrupts, and glibc's syscall() has no unwind tables on riscv64
     * (those of x86-64, i386, aarch64 and arm are assembly with CFI): the
     * unwinding stopped there, and the library's cleanup handlers (the
     * cond's mutex retaken, the sem's waiter uncounted) never ran. Here
     * the instruction lies in the caller's frame, which has unwind tables
     * (-fexceptions -fasynchronous-unwind-tables). The kernel's result:
     * -errno in [-4095, -1] on failure; errno is not touched. */
    register long a7_ __asm__("a7") = nr;
    register long a0_ __asm__("a0") = a;
    register long a1_ __asm__("a1") = b;
    register long a2_ __asm__("a2") = c;
    register long a3_ __asm__("a3") = d;
    register long a4_ __asm__("a4") = e;
    register long a5_ __asm__("a5") = f;
    __asm__ volatile("ecall"
                     : "+r"(a0_)
                     : "r"(a7_), "r"(a1_), "r"(a2_), "r"(a3_), "r"(a4_), "r"(a5_)
                     : "memory");
    return a0_;
#else
    int saved = errno;
    long r = syscall(nr, a, b, c, d, e, f);
    /* syscall() reports the kernel's [-4095, -1] as -1 with errno set; no
     * system call succeeds with -1. */
    if (r == -1) {
        r = -errno;
        errno = saved;
    }
    return r;
#endif
}

#endif
