/*
 * tests/test_fault_wipeonfork.c - issue 21: a kernel, emulator or sandbox that
 * accepts madvise(MADV_WIPEONFORK) and ignores it (qemu-user does) must not
 * make a fork child act with its parent's TID.
 *
 * The "accepted and ignored" case is forced with a seccomp filter: madvise(...,
 * MADV_WIPEONFORK) returns SECCOMP_RET_ERRNO with errno 0, that is 0, without
 * reaching the kernel. The filter is installed in a fresh child before its
 * first call of the library, whose once-per-process setup therefore sees the
 * advice accepted. This process itself never calls the library: each case
 * runs in a child of its own, whose setup starts from nothing.
 *
 * Where the system itself accepts and ignores the advice (qemu-user: probed
 * at run time, wipe_ignored_here), the cases run as they are, without a
 * filter; where it wipes and seccomp is unavailable, they skip.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fxtest.h"

#include <futexsync/layout.h>
#include <futexsync/once.h>
#include <futexsync/rmutex.h>

#include "../src/internal/process.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

/* The low 32 bits of system call argument i in struct seccomp_data. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define FXT_ARG_LO(i) (offsetof(struct seccomp_data, args[i]) + 4)
#else
#define FXT_ARG_LO(i) offsetof(struct seccomp_data, args[i])
#endif

/* Installs a filter that answers `action` to system call `nr` when the low
 * 32 bits of its argument `arg` equal `val` (arg < 0: always), and allows
 * everything else. 0 or -1. */
static int install_filter(long nr, int arg, uint32_t val, uint32_t action)
{
    struct sock_filter prog[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FXT_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, FXT_ARG_LO(arg < 0 ? 0 : arg)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, val, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, arg < 0 ? action : SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, action),
    };
    struct sock_fprog fprog = {.len = sizeof prog / sizeof prog[0], .filter = prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
}

/* What this system does with the advice, probed once without the library
 * in a child: 0 wipes a fork child's copy, 1 accepts it and ignores it (an
 * emulator: qemu-user), 2 refuses it (Linux before 4.14). */
static int wipe_probe_child(void *arg)
{
    (void)arg;
    long size = sysconf(_SC_PAGESIZE);
    volatile int32_t *p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 10;
    if (madvise((void *)p, (size_t)size, MADV_WIPEONFORK) != 0)
        return 2;
    *p = 42;
    pid_t c = fork();
    if (c == 0)
        _exit(*p == 42 ? 1 : 0);
    if (c < 0)
        return 11;
    return fxt_wait_child(c, 60000);
}

static int wipe_here = -1;

static bool wipe_ignored_here(void)
{
    if (wipe_here == -1)
        wipe_here = fxt_run_child(wipe_probe_child, NULL);
    assert_in_range(wipe_here, 0, 2);
    return wipe_here == 1;
}

/* madvise(..., MADV_WIPEONFORK) returns 0 and does nothing: a filter makes it
 * so, unless the system does it already. */
static int ignore_wipeonfork(void)
{
    if (wipe_here == 1)
        return 0;
    return install_filter(SYS_madvise, 2, MADV_WIPEONFORK, SECCOMP_RET_ERRNO | 0);
}

/* In the test: the cases that need the advice ignored can run here. */
static void need_ignored_wipe(void)
{
    if (!wipe_ignored_here())
        fxt_require_seccomp();
}

/* In the test: the system wipes (the identity may be cached) and seccomp
 * works, or the test skips saying which is missing. */
static void need_wiping_kernel(void)
{
    if (wipe_ignored_here() || wipe_here == 2) {
        print_message("[  SKIP    ] madvise(MADV_WIPEONFORK) is %s here: nothing is cached\n",
                      wipe_here == 2 ? "refused" : "accepted but ignored (an emulator)");
        skip();
    }
    fxt_require_seccomp();
}

/* The filter does what the test needs: the advice is "accepted" and a fork
 * child still sees the page's contents. Checked without the library. */
static int filter_accepts_and_ignores(void *arg)
{
    (void)arg;
    FXT_CHILD_CHECK(ignore_wipeonfork() == 0, 10);
    long size = sysconf(_SC_PAGESIZE);
    volatile int32_t *p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    FXT_CHILD_CHECK(p != MAP_FAILED, 11);
    FXT_CHILD_CHECK(madvise((void *)p, (size_t)size, MADV_WIPEONFORK) == 0, 12);
    *p = 42;
    pid_t c = fork();
    if (c == 0)
        _exit(*p == 42 ? 0 : 1);
    FXT_CHILD_CHECK(c > 0, 13);
    return fxt_wait_child(c, 60000) == 0 ? 0 : 14;
}

static void seccomp_errno_zero_makes_madvise_wipeonfork_a_no_op(void **state)
{
    (void)state;
    fxt_require_seccomp();
    assert_int_equal(fxt_run_child(filter_accepts_and_ignores, NULL), 0);
}

struct shared {
    fx_rmutex m;
    fx_once o;
    int32_t trylock;      /* the child's fx_rmutex_trylock result */
    int32_t unlock;       /* its fx_rmutex_unlock result */
    int32_t once;         /* its fx_once_call result */
    int32_t child_init;   /* the child ran an initialiser */
    int32_t child_done;   /* the child returned from fx_once_call */
    int32_t child_pid;    /* the parent initialiser's child */
};

static int rmutex_case(void *arg)
{
    struct shared *sh = arg;
    FXT_CHILD_CHECK(ignore_wipeonfork() == 0, 10);
    FXT_CHILD_CHECK(fx_rmutex_lock(&sh->m) == 0, 11); /* the library's first call */
    pid_t me = fxt_gettid();
    pid_t c = fork();
    if (c == 0) {
        /* Another process: the parent owns m, we do not. */
        sh->trylock = fx_rmutex_trylock(&sh->m);
        sh->unlock = fx_rmutex_unlock(&sh->m);
        _exit(0);
    }
    FXT_CHILD_CHECK(c > 0, 12);
    FXT_CHILD_CHECK(fxt_wait_child(c, 60000) == 0, 13);
    FXT_CHILD_CHECK(sh->trylock == EBUSY, 14); /* old code: 0, a re-entry */
    FXT_CHILD_CHECK(sh->unlock == EPERM, 15);
    FXT_CHILD_CHECK(fx_rmutex_owner(&sh->m) == me, 16);
    FXT_CHILD_CHECK(sh->m.depth == 1, 17);
    FXT_CHILD_CHECK(fx_rmutex_unlock(&sh->m) == 0, 18);
    return 0;
}

static void ignored_wipeonfork_child_does_not_own_the_parents_rmutex(void **state)
{
    (void)state;
    need_ignored_wipe();
    struct shared *sh = fxt_shared_alloc(sizeof *sh);
    assert_int_equal(fxt_run_child(rmutex_case, sh), 0);
    fxt_shared_free(sh, sizeof *sh);
}

static void child_init(void *arg)
{
    struct shared *sh = arg;
    sh->child_init = 1;
}

/* The parent's initialiser: a child calls fx_once_call on the same flag
 * while it runs. The child must wait for it (not EDEADLK, not run its own);
 * the initialiser returns once the child sleeps on the flag, or has returned
 * (the old code: EDEADLK at once). */
static void parent_init(void *arg)
{
    struct shared *sh = arg;
    pid_t c = fork();
    if (c == 0) {
        sh->once = fx_once_call(&sh->o, child_init, sh);
        __atomic_store_n(&sh->child_done, 1, __ATOMIC_RELEASE);
        _exit(0);
    }
    if (c < 0)
        return;
    for (int i = 0; i < 200 && !__atomic_load_n(&sh->child_done, __ATOMIC_ACQUIRE); i++)
        if (fxt_wait_asleep(c, &sh->o, 50))
            break;
    sh->child_pid = c;
}

static int once_case(void *arg)
{
    struct shared *sh = arg;
    FXT_CHILD_CHECK(ignore_wipeonfork() == 0, 10);
    FXT_CHILD_CHECK(fx_once_call(&sh->o, parent_init, sh) == 0, 11); /* first call */
    pid_t c = sh->child_pid;
    FXT_CHILD_CHECK(c > 0, 12);
    FXT_CHILD_CHECK(fxt_wait_child(c, 60000) == 0, 13);
    FXT_CHILD_CHECK(sh->once == 0, 14); /* old code: EDEADLK */
    FXT_CHILD_CHECK(sh->child_init == 0, 15);
    FXT_CHILD_CHECK(sh->o.state == FX_ONCE_DONE, 16);
    return 0;
}

static void ignored_wipeonfork_child_waits_for_the_parents_once_initialiser(void **state)
{
    (void)state;
    need_ignored_wipe();
    struct shared *sh = fxt_shared_alloc(sizeof *sh);
    assert_int_equal(fxt_run_child(once_case, sh), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* An owner that dies holding the rmutex is seen dead where the advice is
 * ignored too: the process still learns that it runs in the initial PID
 * namespace (old code: it never did without a proven wipe, so every owner's
 * liveness was "unknown" and a dead owner's rmutex was never recovered: the
 * wait ran into its deadline, ETIMEDOUT). */
static int dead_owner_case(void *arg)
{
    struct shared *sh = arg;
    FXT_CHILD_CHECK(ignore_wipeonfork() == 0, 10);
    pid_t c = fork();
    if (c == 0)
        _exit(fx_rmutex_lock(&sh->m) == 0 ? 0 : 1); /* dies holding it */
    FXT_CHILD_CHECK(c > 0, 11);
    FXT_CHILD_CHECK(fxt_wait_child(c, 60000) == 0, 12); /* dead and reaped */
    struct timespec d;
    clock_gettime(CLOCK_MONOTONIC, &d);
    d.tv_sec += 10;
    int r = fx_rmutex_timedlock(&sh->m, &d);
    FXT_CHILD_CHECK(r != ETIMEDOUT, 13);
    FXT_CHILD_CHECK(r == EOWNERDEAD, 14);
    FXT_CHILD_CHECK(fx_rmutex_consistent(&sh->m) == 0, 15);
    FXT_CHILD_CHECK(fx_rmutex_unlock(&sh->m) == 0, 16);
    return 0;
}

static void ignored_wipeonfork_dead_owner_gives_eownerdead(void **state)
{
    (void)state;
    need_ignored_wipe();
    struct shared *sh = fxt_shared_alloc(sizeof *sh);
    assert_int_equal(fxt_run_child(dead_owner_case, sh), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* Where the kernel wipes the page, the identity is cached: after the first
 * call, fx_rmutex's lock and unlock make no gettid system call (the check
 * must not turn a working kernel into the slow fallback). */
static int cached_case(void *arg)
{
    struct shared *sh = arg;
    FXT_CHILD_CHECK(fx_rmutex_lock(&sh->m) == 0, 10);
    FXT_CHILD_CHECK(fx_rmutex_unlock(&sh->m) == 0, 11);
    FXT_CHILD_CHECK(install_filter(SYS_gettid, -1, 0, SECCOMP_RET_KILL_PROCESS) == 0, 12);
    FXT_CHILD_CHECK(fx_rmutex_lock(&sh->m) == 0, 13);
    FXT_CHILD_CHECK(fx_rmutex_unlock(&sh->m) == 0, 14);
    return 0;
}

static void wiping_kernel_keeps_the_identity_cached(void **state)
{
    (void)state;
    need_wiping_kernel();
    if (FXT_UNDER_TSAN) {
        print_message("[  SKIP    ] under a race detector nothing is cached (the next test)\n");
        skip();
    }
    struct shared *sh = fxt_shared_alloc(sizeof *sh);
    assert_int_equal(fxt_run_child(cached_case, sh), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* Under a race detector the identity is never cached, even where the kernel
 * wipes the page: a cached TID also tells fx_rmutex's fast paths that no
 * detector is there, so that they need not look at its probe. The same
 * sequence as above asks gettid again. */
static void race_detector_keeps_no_identity_cache(void **state)
{
    (void)state;
    need_wiping_kernel();
    if (!FXT_UNDER_TSAN) {
        print_message("[  SKIP    ] not a race detector's build (the tsan build runs it)\n");
        skip();
    }
    struct shared *sh = fxt_shared_alloc(sizeof *sh);
    assert_int_equal(fxt_run_child(cached_case, sh), 128 + SIGSYS);
    fxt_shared_free(sh, sizeof *sh);
}

/* Where the check cannot read the kernel's account of the page (no /proc:
 * every openat refused), nothing is cached: every call asks gettid, which
 * the second filter then kills. */
static int refused_case(void *arg)
{
    struct shared *sh = arg;
    FXT_CHILD_CHECK(install_filter(SYS_openat, -1, 0, SECCOMP_RET_ERRNO | ENOENT) == 0, 10);
    FXT_CHILD_CHECK(fx_rmutex_lock(&sh->m) == 0, 11);
    FXT_CHILD_CHECK(fx_rmutex_unlock(&sh->m) == 0, 12);
    FXT_CHILD_CHECK(install_filter(SYS_gettid, -1, 0, SECCOMP_RET_KILL_PROCESS) == 0, 13);
    sh->trylock = 1; /* reached the call that must ask gettid */
    int r = fx_rmutex_lock(&sh->m);
    return r == 0 ? 14 : 15;
}

static void wipe_check_without_proc_caches_nothing(void **state)
{
    (void)state;
    fxt_require_seccomp();
    struct shared *sh = fxt_shared_alloc(sizeof *sh);
    assert_int_equal(fxt_run_child(refused_case, sh), 128 + SIGSYS);
    assert_int_equal(sh->trylock, 1);
    fxt_shared_free(sh, sizeof *sh);
}

/* The first use of the identity cache creates no process or thread: a
 * filter that kills on clone and clone3 (a sandbox that forbids them) lets
 * the process lock, unlock and run an initialiser. */
static void count_run(void *p)
{
    (*(int *)p)++;
}

static int no_clone_case(void *arg)
{
    struct shared *sh = arg;
    FXT_CHILD_CHECK(install_filter(SYS_clone, -1, 0, SECCOMP_RET_KILL_PROCESS) == 0, 10);
#ifdef SYS_clone3
    FXT_CHILD_CHECK(install_filter(SYS_clone3, -1, 0, SECCOMP_RET_KILL_PROCESS) == 0, 11);
#endif
    FXT_CHILD_CHECK(fx_rmutex_lock(&sh->m) == 0, 12);
    FXT_CHILD_CHECK(fx_rmutex_lock(&sh->m) == 0, 13); /* re-entry: the cache */
    FXT_CHILD_CHECK(fx_rmutex_unlock(&sh->m) == 0 && fx_rmutex_unlock(&sh->m) == 0, 14);
    fx_once o = FX_ONCE_INIT;
    int runs = 0;
    FXT_CHILD_CHECK(fx_once_call(&o, count_run, &runs) == 0 && runs == 1, 15);
    return 0;
}

static void first_use_creates_no_process(void **state)
{
    (void)state;
    fxt_require_seccomp();
    struct shared *sh = fxt_shared_alloc(sizeof *sh);
    assert_int_equal(fxt_run_child(no_clone_case, sh), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* A range that is not whole pages is refused, not rounded up by the kernel
 * into its neighbours: the library's tables once were 4,040 bytes with the
 * supervisor's state in the rest of their page, which every fork child got
 * zeroed. */
static char partial_area[2 * 65536] __attribute__((aligned(65536)));

static int partial_area_kept(void *unused)
{
    (void)unused;
    return partial_area[sizeof partial_area / 2 - 1] == 7 ? 0 : 1;
}

static void wipe_of_a_partial_page_is_refused(void **state)
{
    (void)state;
    long ps = sysconf(_SC_PAGESIZE);
    assert_true(ps > 0 && (size_t)ps <= sizeof partial_area / 2);
    partial_area[sizeof partial_area / 2 - 1] = 7; /* in the first page's tail */
    assert_false(fxi_wipe_at_fork(partial_area, (size_t)ps - 8));
    assert_false(fxi_wipe_at_fork(partial_area + 8, (size_t)ps));
    assert_int_equal(fxt_run_child(partial_area_kept, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seccomp_errno_zero_makes_madvise_wipeonfork_a_no_op),
        cmocka_unit_test(ignored_wipeonfork_child_does_not_own_the_parents_rmutex),
        cmocka_unit_test(ignored_wipeonfork_child_waits_for_the_parents_once_initialiser),
        cmocka_unit_test(ignored_wipeonfork_dead_owner_gives_eownerdead),
        cmocka_unit_test(wiping_kernel_keeps_the_identity_cached),
        cmocka_unit_test(race_detector_keeps_no_identity_cache),
        cmocka_unit_test(wipe_check_without_proc_caches_nothing),
        cmocka_unit_test(first_use_creates_no_process),
        cmocka_unit_test(wipe_of_a_partial_page_is_refused),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
