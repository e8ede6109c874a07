/*
 * tests/test_fault_exec.c - fx_rmutex held across execve() (issue 11, class 3).
 *
 * execve() keeps the TID of the thread that calls it, so the owner word still
 * names a live thread: a waiter cannot tell the new program from the one that
 * took the mutex, and glibc's way out (the kernel walks the robust list at
 * exec) needs a pointer inside each mutex. futexsync documents this as a
 * limit (include/futexsync/rmutex.h) with two ways out, tested here:
 *   - the new program's own lock of the mutex takes it over with EOWNERDEAD:
 *     its per-thread record does not hold it, so the word naming its TID was
 *     left by the image before the exec;
 *   - anyone who knows of the exec releases it with fx_rmutex_recover.
 * And the limit itself: a waiter alone does not recover it.
 *
 * The shared page is a memfd the child keeps across execve(); the new image
 * is this test binary again, started with "--exec-child MODE FD".
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <errno.h>
#include <futexsync.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

struct page {
    fx_rmutex m;
    fx_counter ready;   /* 1: the new image runs and holds (mode "hold") */
    fx_counter release; /* 1: the new image may exit */
};

static struct page *map_page(int fd)
{
    void *p = mmap(NULL, sizeof(struct page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* The new image, after execve(): the same TID as the holder before it. */
static int exec_child(const char *mode, int fd)
{
    struct page *pg = map_page(fd);
    if (pg == NULL)
        return 90;
    if (strcmp(mode, "lock") == 0) {
        /* Not re-entry: this image never took the mutex. */
        int r = fx_rmutex_lock(&pg->m);
        if (r != EOWNERDEAD)
            return 10 + r;
        if (fx_rmutex_consistent(&pg->m) != 0 || fx_rmutex_unlock(&pg->m) != 0)
            return 91;
        return 0;
    }
    /* "hold": say so, and run until released (the mutex stays named by our TID). */
    if (fx_counter_store(&pg->ready, 1) != 0)
        return 92;
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    return fx_counter_wait(&pg->release, 1, &d) == 0 ? 0 : 93;
}

/* Forks a child that takes the mutex and then execs this binary in `mode`. */
static pid_t lock_then_exec(struct page *pg, int fd, const char *mode)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (fx_rmutex_lock(&pg->m) != 0)
            _exit(80);
        char fdarg[16];
        snprintf(fdarg, sizeof fdarg, "%d", fd);
        char *argv[] = {"test_fault_exec", "--exec-child", (char *)mode, fdarg, NULL};
        execv("/proc/self/exe", argv);
        _exit(81);
    }
    return pid;
}

static int make_page(struct page **pg)
{
    int fd = memfd_create("fx_exec", 0); /* no MFD_CLOEXEC: the new image keeps it */
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, sizeof(struct page)), 0);
    *pg = map_page(fd);
    assert_non_null(*pg);
    return fd;
}

static void rmutex_exec_image_locking_its_predecessors_mutex_gets_eownerdead(void **state)
{
    (void)state;
    struct page *pg;
    int fd = make_page(&pg);
    pid_t pid = lock_then_exec(pg, fd, "lock");
    assert_true(pid > 0);
    /* 0: the new image got EOWNERDEAD (before the fix: 10, re-entry gave 0). */
    assert_int_equal(fxt_wait_child(pid, 30000), 0);
    /* Released by the new image: free for us. */
    assert_int_equal(fx_rmutex_lock(&pg->m), 0);
    assert_int_equal(fx_rmutex_unlock(&pg->m), 0);
    munmap(pg, sizeof *pg);
    close(fd);
}

static void rmutex_exec_holder_is_not_recovered_by_a_waiter_but_by_recover(void **state)
{
    (void)state;
    struct page *pg;
    int fd = make_page(&pg);
    pid_t pid = lock_then_exec(pg, fd, "hold");
    assert_true(pid > 0);
    struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_SEC);
    assert_int_equal(fx_counter_wait(&pg->ready, 1, &d), 0);
    assert_int_equal(fx_rmutex_owner(&pg->m), pid);
    /* The documented limit: the owner's TID lives (the new program), so a
     * waiter sees a live owner, across several liveness checks. */
    d = fx_deadline_in(400 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_rmutex_timedlock(&pg->m, &d), ETIMEDOUT);
    /* The way out: whoever knows of the exec recovers it. */
    assert_int_equal(fx_rmutex_recover(&pg->m, pid), 0);
    assert_int_equal(fx_rmutex_lock(&pg->m), EOWNERDEAD);
    assert_int_equal(fx_rmutex_consistent(&pg->m), 0);
    assert_int_equal(fx_rmutex_unlock(&pg->m), 0);
    assert_int_equal(fx_counter_add(&pg->release, 1), 1);
    assert_int_equal(fxt_wait_child(pid, 30000), 0);
    munmap(pg, sizeof *pg);
    close(fd);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--exec-child") == 0)
        return exec_child(argv[2], atoi(argv[3]));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rmutex_exec_image_locking_its_predecessors_mutex_gets_eownerdead),
        cmocka_unit_test(rmutex_exec_holder_is_not_recovered_by_a_waiter_but_by_recover),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
