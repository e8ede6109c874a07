/*
 * tests/test_syscall.c - fxi_syscall (src/internal/syscall.h), the raw system
 * call of the futex and io_uring layers: a result is an error only in
 * [-4095, -1], as the kernel defines it, and errno is left as it was.
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../src/internal/syscall.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* An anonymous page mapped with the raw mmap system call at `hint` (never
 * replacing a mapping): fxi_syscall's result. */
static long raw_mmap_at(uintptr_t hint, long len)
{
#ifdef SYS_mmap2
    long nr = SYS_mmap2; /* 32-bit: the page-offset mmap (SYS_mmap is the old one) */
#else
    long nr = SYS_mmap;
#endif
    return fxi_syscall(nr, (long)hint, len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
}

/* A mapping above 2 GiB is a success although, on a 32-bit machine, its
 * address is a negative long: fxi_syscall returns the address itself (not a
 * made-up -errno, which leaked the mapping). On 64-bit the address is
 * positive and the test checks the same thing. */
static void result_above_2_gib_is_an_address_not_an_error(void **state)
{
    (void)state;
    long page = sysconf(_SC_PAGESIZE);
    /* Several candidates above 2 GiB, in case one is taken (the 32-bit
     * stack and vdso sit near the top). On 64-bit, AddressSanitizer keeps
     * the range above 2 GiB for its shadow gap: two more candidates high
     * in the address space that ThreadSanitizer also lets a program map. */
    static const uintptr_t hints[] = {
        0xa0000000u, 0xb0000000u, 0xc0000000u, 0x90000000u,
#if UINTPTR_MAX > 0xffffffffu
        (uintptr_t)0x7f0000000000ull, (uintptr_t)0x7ef000000000ull,
#endif
    };
    bool mapped = false;
    for (size_t i = 0; i < sizeof hints / sizeof hints[0] && !mapped; i++) {
        errno = 12345;
        long r = raw_mmap_at(hints[i], page);
        assert_int_equal(errno, 12345);
        if (r == -EEXIST || r == -ENOMEM)
            continue; /* that range is taken: the next candidate */
        assert_false(fxi_syscall_failed(r));
        assert_true((uintptr_t)r == hints[i]);
        /* The page is really there, and is ours to unmap. */
        *(volatile int *)(uintptr_t)r = 7;
        assert_int_equal(fxi_syscall(SYS_munmap, r, page, 0, 0, 0, 0), 0);
        mapped = true;
    }
    assert_true(mapped);
}

/* A failure is -errno, errno untouched, and fxi_syscall_failed says so for
 * exactly [-4095, -1]. */
static void failure_is_minus_errno_and_errno_is_kept(void **state)
{
    (void)state;
    errno = 4242;
    long r = fxi_syscall(SYS_munmap, 1, 4096, 0, 0, 0, 0); /* misaligned */
    assert_int_equal(r, -EINVAL);
    assert_int_equal(errno, 4242);
    assert_true(fxi_syscall_failed(r));
    r = fxi_syscall(SYS_close, -1, 0, 0, 0, 0, 0);
    assert_int_equal(r, -EBADF);
    assert_int_equal(errno, 4242);
    assert_true(fxi_syscall_failed(-1));
    assert_true(fxi_syscall_failed(-4095));
    assert_false(fxi_syscall_failed(-4096));
    assert_false(fxi_syscall_failed(0));
    assert_false(fxi_syscall_failed(LONG_MIN));
    assert_false(fxi_syscall_failed((long)(uintptr_t)0xc0000000u));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(result_above_2_gib_is_an_address_not_an_error),
        cmocka_unit_test(failure_is_minus_errno_and_errno_is_kept),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
