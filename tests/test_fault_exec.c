/*
 * tests/test_fault_exec.c - fx_rmutex held across execve(), against glibc's
 * robust process-shared mutex in the same set-up (issue 30, acceptance 1).
 *
 * The kernel walks a thread's robust list when the thread execs and when
 * another thread's exec kills it, so fx_rmutex, which joins that list, is
 * handed on with EOWNERDEAD wherever a robust pthread_mutex_t is: each row
 * holds both objects in the same thread across the same exec and asserts the
 * same outcome for both (the reference first). The one exec the kernel does
 * not report, a non-main thread's own (it takes the main thread's TID before
 * the walk), is left to fx_rmutex_recover, as documented. fx_once still
 * judges its initialiser by the liveness probe (a non-main thread's TID is
 * freed by its exec).
 *
 * Under ThreadSanitizer the reference is left out (its interceptors cannot
 * follow a robust mutex recovered in another process image) and only
 * fx_rmutex's outcome is asserted, against the kernel's documented one.
 *
 * The shared page is a memfd the child keeps across execve(); the new image
 * is this test binary again, started with "--exec-child MODE FD".
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <errno.h>
#include <fcntl.h>
#include <futexsync.h>
#include <futexsync/layout.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* The reference is taken and recovered: not under ThreadSanitizer (above). */
#define REFERENCE (!FXT_UNDER_TSAN)

struct page {
    pthread_mutex_t gm; /* glibc's robust, process-shared mutex: the reference */
    fx_rmutex m;
    fx_once o;
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
    if (strcmp(mode, "probe") == 0)
        return 0;
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
    /* "hold": say so, and run until released. */
    if (fx_counter_store(&pg->ready, 1) != 0)
        return 92;
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    return fx_counter_wait(&pg->release, 1, &d) == 0 ? 0 : 93;
}

/* Whether a child may exec this test program: "--exec-child probe" exits 0.
 * qemu-user without binfmt_misc cannot: the kernel refuses the target's
 * program (ENOEXEC). Probed once; every test here execs, so each skips with
 * a message where it cannot. */
static void require_exec(void)
{
    static int probed = -1; /* 0 works, else the errno of execv, or EINVAL */
    if (probed == -1) {
        int pipefd[2];
        assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            char *argv[] = {"test_fault_exec", "--exec-child", "probe", "-1", NULL};
            execv("/proc/self/exe", argv);
            int e = errno;
            if (write(pipefd[1], &e, sizeof e) != (ssize_t)sizeof e)
                _exit(126);
            _exit(127);
        }
        close(pipefd[1]);
        int e = 0;
        ssize_t n = read(pipefd[0], &e, sizeof e);
        close(pipefd[0]);
        int st = fxt_wait_child(pid, 30000);
        probed = n == (ssize_t)sizeof e ? e : st == 0 ? 0 : EINVAL;
    }
    if (probed == 0)
        return;
    print_message("[  SKIP    ] this test program cannot be exec'd here: execv(/proc/self/exe)"
                  " fails (%s; an emulator such as qemu-user without binfmt_misc cannot"
                  " exec a program of its target)\n",
                  strerror(probed));
    skip();
}

/* Forks a child that takes the mutex and then execs this binary in `mode`. */
static pid_t lock_then_exec(struct page *pg, int fd, const char *mode)
{
    pid_t pid = fork();
    if (pid == 0) {
        if ((REFERENCE && pthread_mutex_lock(&pg->gm) != 0) || fx_rmutex_lock(&pg->m) != 0)
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
    pthread_mutexattr_t at;
    assert_int_equal(pthread_mutexattr_init(&at), 0);
    assert_int_equal(pthread_mutexattr_setpshared(&at, PTHREAD_PROCESS_SHARED), 0);
    assert_int_equal(pthread_mutexattr_setrobust(&at, PTHREAD_MUTEX_ROBUST), 0);
    assert_int_equal(pthread_mutex_init(&(*pg)->gm, &at), 0);
    pthread_mutexattr_destroy(&at);
    return fd;
}

static void rmutex_exec_image_locking_its_predecessors_mutex_gets_eownerdead(void **state)
{
    (void)state;
    require_exec();
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

/* Takes both mutexes with a deadline 2 s away, the reference first; returns
 * their results (glibc's in *g). Each taken one is made consistent and
 * released. */
static int take_both(struct page *pg, int *g, int want)
{
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    rt.tv_sec += 2;
    *g = REFERENCE ? pthread_mutex_timedlock(&pg->gm, &rt) : want;
    if (REFERENCE && *g == EOWNERDEAD)
        assert_int_equal(pthread_mutex_consistent(&pg->gm), 0);
    if (REFERENCE && (*g == 0 || *g == EOWNERDEAD))
        assert_int_equal(pthread_mutex_unlock(&pg->gm), 0);
    struct timespec d = fx_deadline_in(2 * FX_NSEC_PER_SEC);
    int r = fx_rmutex_timedlock(&pg->m, &d);
    if (r == EOWNERDEAD)
        assert_int_equal(fx_rmutex_consistent(&pg->m), 0);
    if (r == 0 || r == EOWNERDEAD)
        assert_int_equal(fx_rmutex_unlock(&pg->m), 0);
    printf("exec row: glibc robust mutex %s, fx_rmutex %s\n",
           REFERENCE ? strerror(*g) : "(not run)", strerror(r));
    return r;
}

static void rmutex_exec_holder_is_recovered_as_a_robust_pthread_mutex(void **state)
{
    (void)state;
    require_exec();
    struct page *pg;
    int fd = make_page(&pg);
    pid_t pid = lock_then_exec(pg, fd, "hold");
    assert_true(pid > 0);
    struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_SEC);
    assert_int_equal(fx_counter_wait(&pg->ready, 1, &d), 0);
    /* The new program runs with the holder's TID; the kernel walked the
     * list at the exec. */
    int g, r = take_both(pg, &g, EOWNERDEAD);
    assert_int_equal(g, EOWNERDEAD);
    assert_int_equal(r, g);
    assert_int_equal(fx_counter_add(&pg->release, 1), 1);
    assert_int_equal(fxt_wait_child(pid, 30000), 0);
    munmap(pg, sizeof *pg);
    close(fd);
}

/* --- exec by a non-main thread, or killed by another thread's exec --- */

struct exec_arg {
    struct page *pg;
    int fd;
    int32_t locked; /* fxt_flag: the thread holds m */
};

static void exec_hold(int fd)
{
    char fdarg[16];
    snprintf(fdarg, sizeof fdarg, "%d", fd);
    char *argv[] = {"test_fault_exec", "--exec-child", "hold", fdarg, NULL};
    execv("/proc/self/exe", argv);
    _exit(81);
}

static void *lock_and_exec(void *p)
{
    struct exec_arg *a = p;
    if ((REFERENCE && pthread_mutex_lock(&a->pg->gm) != 0) || fx_rmutex_lock(&a->pg->m) != 0)
        _exit(80);
    exec_hold(a->fd); /* a non-main thread: it takes the main thread's TID */
    return NULL;
}

static void *lock_and_wait(void *p)
{
    struct exec_arg *a = p;
    if ((REFERENCE && pthread_mutex_lock(&a->pg->gm) != 0) || fx_rmutex_lock(&a->pg->m) != 0)
        _exit(80);
    fxt_flag_set(&a->locked, 1);
    for (;;)
        pause(); /* until the main thread's exec kills it */
    return NULL;
}

static void init_and_exec(void *p)
{
    exec_hold(((struct exec_arg *)p)->fd);
}

static void *once_and_exec(void *p)
{
    struct exec_arg *a = p;
    if (fx_once_call(&a->pg->o, init_and_exec, a) != 0)
        _exit(86);
    _exit(82); /* the initialiser returned: it did not exec */
}

/* The child: a second thread takes the mutex (or runs the initialiser) and
 * execs, or (main_execs) the main thread execs while it holds the mutex. */
static pid_t fork_exec_case(struct exec_arg *a, void *(*thread)(void *), bool main_execs)
{
    pid_t pid = fork();
    if (pid == 0) {
        pthread_t t;
        if (pthread_create(&t, NULL, thread, a) != 0)
            _exit(83);
        if (main_execs) {
            if (!fxt_flag_wait(&a->locked, 1, 30000))
                _exit(84);
            exec_hold(a->fd); /* kills the thread that holds m */
        }
        pthread_join(t, NULL);
        _exit(85);
    }
    return pid;
}

/* Runs the case and returns fx_rmutex's result, glibc's in *g. */
static int exec_case(void *(*thread)(void *), bool main_execs, int *g, pid_t *owner, int want)
{
    require_exec();
    struct page *pg;
    int fd = make_page(&pg);
    struct exec_arg *a = fxt_shared_alloc(sizeof *a);
    a->pg = pg;
    a->fd = fd;
    pid_t pid = fork_exec_case(a, thread, main_execs);
    assert_true(pid > 0);
    struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_SEC);
    assert_int_equal(fx_counter_wait(&pg->ready, 1, &d), 0); /* the new program runs */
    *owner = fx_rmutex_owner(&pg->m);
    int r = take_both(pg, g, want);
    if (r == ETIMEDOUT) {
        /* Not reported by the kernel: whoever knows of the exec recovers it. */
        assert_int_equal(fx_rmutex_recover(&pg->m, *owner), 0);
        assert_int_equal(fx_rmutex_lock(&pg->m), EOWNERDEAD);
        assert_int_equal(fx_rmutex_consistent(&pg->m), 0);
        assert_int_equal(fx_rmutex_unlock(&pg->m), 0);
    }
    assert_int_equal(fx_counter_add(&pg->release, 1), 1);
    assert_int_equal(fxt_wait_child(pid, 30000), 0);
    fxt_shared_free(a, sizeof *a);
    munmap(pg, sizeof *pg);
    close(fd);
    return r;
}

static void rmutex_non_main_owner_that_execs_is_left_to_recover_as_glibc(void **state)
{
    (void)state;
    int g;
    pid_t owner;
    int r = exec_case(lock_and_exec, false, &g, &owner, ETIMEDOUT);
    /* The kernel walks the exec'ing thread's list with the main thread's
     * TID, which it has taken: neither word is marked. */
    assert_int_equal(g, ETIMEDOUT);
    assert_int_equal(r, g);
    assert_true(owner > 0);
}

static void rmutex_owner_killed_by_another_threads_exec_is_recovered_as_glibc(void **state)
{
    (void)state;
    int g;
    pid_t owner;
    int r = exec_case(lock_and_wait, true, &g, &owner, EOWNERDEAD);
    assert_int_equal(owner, 0); /* marked ORPHANED at the thread's death */
    assert_int_equal(g, EOWNERDEAD);
    assert_int_equal(r, g);
}

static int once_calls;
static void count_call(void *p)
{
    (void)p;
    once_calls++;
}

/* A non-main thread that execs inside the initialiser takes the main
 * thread's TID before the kernel walks its list (as for fx_rmutex and
 * glibc's robust mutexes): the word keeps naming its old TID, and whoever
 * knows of the exec recovers it; then the initialiser runs again. */
static void once_non_main_initialiser_that_execs_is_left_to_recover(void **state)
{
    (void)state;
    require_exec();
    struct page *pg;
    int fd = make_page(&pg);
    struct exec_arg *a = fxt_shared_alloc(sizeof *a);
    a->pg = pg;
    a->fd = fd;
    pid_t pid = fork_exec_case(a, once_and_exec, false);
    assert_true(pid > 0);
    struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_SEC);
    assert_int_equal(fx_counter_wait(&pg->ready, 1, &d), 0);
    int32_t s = pg->o.state;
    assert_true(s & FX_ONCE_RUNNING); /* left by the exec'd thread */
    pid_t t = s & FX_ONCE_TID_MASK;
    assert_true(t > 0 && t != pid); /* its own TID, not the main thread's */
    assert_int_equal(fx_once_recover(&pg->o, t), 0);
    once_calls = 0;
    assert_int_equal(fx_once_call(&pg->o, count_call, NULL), 0);
    assert_int_equal(once_calls, 1);
    assert_int_equal(pg->o.state, FX_ONCE_DONE);
    assert_int_equal(fx_counter_add(&pg->release, 1), 1);
    assert_int_equal(fxt_wait_child(pid, 30000), 0);
    fxt_shared_free(a, sizeof *a);
    munmap(pg, sizeof *pg);
    close(fd);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--exec-child") == 0)
        return exec_child(argv[2], atoi(argv[3]));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rmutex_exec_image_locking_its_predecessors_mutex_gets_eownerdead),
        cmocka_unit_test(rmutex_exec_holder_is_recovered_as_a_robust_pthread_mutex),
        cmocka_unit_test(rmutex_non_main_owner_that_execs_is_left_to_recover_as_glibc),
        cmocka_unit_test(rmutex_owner_killed_by_another_threads_exec_is_recovered_as_glibc),
        cmocka_unit_test(once_non_main_initialiser_that_execs_is_left_to_recover),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
