/*
 * tests/test_owner_death.c - a dead fx_rmutex owner is recovered wherever
 * glibc's robust process-shared pthread_mutex_t is (issue 30, acceptance 1),
 * without a supervisor: the owner holds both objects, dies, and a waiter
 * takes both, the reference first; each row asserts that the reference was
 * recovered (EOWNERDEAD) and that fx_rmutex's result is the same. In the
 * SIGKILL rows the owner dies inside an fx_once initialiser too, which the
 * waiter then runs again.
 *
 * Under ThreadSanitizer the reference is left out: its interceptors cannot
 * follow a robust mutex locked in one process and recovered in another, and
 * report the recovery as an unlock of an unlocked mutex.
 *
 * Rows: where the owner and the waiter run (the same process tree on the
 * host; one container, a new PID namespace; a container two deep; sibling
 * containers; the owner in a container and the waiter on the host, and the
 * reverse) times how the owner dies (its thread returns holding both; its
 * process is SIGKILLed). The exec rows are in test_fault_exec.c. Each role
 * runs in the namespace its row names: a process that unshares a PID
 * namespace stays outside it, and its first child (PID 1 there) forks the
 * role. Rows with a namespace need root and a kernel that gives one (not
 * qemu-user): they are skipped with a message elsewhere.
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <futexsync.h>

struct page {
    pthread_mutex_t gm; /* the reference */
    fx_rmutex m;
    int32_t held;       /* fxt_flag: the owner holds both */
    int32_t dead;       /* fxt_flag: the owner is gone (reaped) */
    int32_t g_result;   /* the waiter's results */
    int32_t m_result;
    fx_once o;          /* SIGKILL rows: the owner dies inside its initialiser */
    int32_t o_result;
    int32_t o_runs;     /* initialiser runs that returned */
};

enum death { THREAD_EXIT, SIGKILLED };

/* The reference is taken and recovered: not under ThreadSanitizer (above). */
#define REFERENCE (!FXT_UNDER_TSAN)

static struct page *page;
static enum death how;

static void *hold_and_return(void *p)
{
    (void)p;
    if ((REFERENCE && pthread_mutex_lock(&page->gm) != 0) || fx_rmutex_lock(&page->m) != 0)
        _exit(80);
    return NULL; /* the thread ends holding both */
}

static void lock_all_and_die(void *arg)
{
    (void)arg;
    if ((REFERENCE && pthread_mutex_lock(&page->gm) != 0) || fx_rmutex_lock(&page->m) != 0)
        _exit(82);
    fxt_flag_set(&page->held, 1);
    raise(SIGKILL);
}

static void count_run(void *arg)
{
    (void)arg;
    page->o_runs++;
}

/* The owner's role: takes both and dies as the row says. */
static int owner_role(void)
{
    if (how == THREAD_EXIT) {
        pthread_t t;
        if (pthread_create(&t, NULL, hold_and_return, NULL) != 0 || pthread_join(t, NULL) != 0)
            return 81;
        fxt_flag_set(&page->held, 1);
        return 0;
    }
    /* Inside fx_once's initialiser, so that the flag's recovery is asserted
     * beside the mutexes'. */
    return fx_once_call(&page->o, lock_all_and_die, NULL) == 0 ? 83 : 84;
}

/* The waiter's role: once the owner is gone, takes both (2 s each). */
static int waiter_role(void)
{
    if (!fxt_flag_wait(&page->dead, 1, 60000))
        return 90;
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    rt.tv_sec += 2;
    int g = REFERENCE ? pthread_mutex_timedlock(&page->gm, &rt) : EOWNERDEAD;
    struct timespec d = fx_deadline_in(2 * FX_NSEC_PER_SEC);
    int r = fx_rmutex_timedlock(&page->m, &d);
    page->g_result = g;
    page->m_result = r;
    if (REFERENCE && g == EOWNERDEAD && (pthread_mutex_consistent(&page->gm) != 0 ||
                                         pthread_mutex_unlock(&page->gm) != 0))
        return 91;
    if (r == EOWNERDEAD && (fx_rmutex_consistent(&page->m) != 0 || fx_rmutex_unlock(&page->m) != 0))
        return 92;
    /* A flag whose initialiser died is run again (a flag never started, in
     * the thread-exit rows, is run the first time). */
    page->o_result = fx_once_call(&page->o, count_run, NULL);
    return 0;
}

static int (*role)(void);

/* Runs `role` `depth` PID namespaces below the caller's, never as a
 * namespace's first process (PID 1 ignores even its own SIGKILL, and a
 * namespace ends with it): returns its exit status (128 + signal). */
static int wait_status(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int run_in(int depth)
{
    if (depth == 0)
        return role();
    if (unshare(CLONE_NEWPID) != 0)
        return 70;
    pid_t init = fork();
    if (init < 0)
        return 71;
    if (init == 0) {
        if (depth > 1)
            _exit(run_in(depth - 1));
        pid_t c = fork(); /* PID 2 of the innermost namespace */
        if (c < 0)
            _exit(72);
        if (c == 0)
            _exit(role());
        _exit(wait_status(c));
    }
    return wait_status(init);
}

static int role_depth;
static int role_child(void *p)
{
    (void)p;
    return run_in(role_depth);
}

static pid_t start_role(int (*fn)(void), int depth)
{
    role = fn;
    role_depth = depth;
    return fxt_fork(role_child, NULL);
}

/* Owner and waiter in one place: the owner is forked there, reaped, then
 * the waiter's role runs. */
static int owner_child(void *p)
{
    (void)p;
    return owner_role();
}

static int same_place(void)
{
    pid_t o = fxt_fork(owner_child, NULL);
    int os = fxt_wait_child(o, 60000);
    if (os != (how == SIGKILLED ? 128 + SIGKILL : 0))
        return 60;
    fxt_flag_set(&page->dead, 1);
    return waiter_role();
}

/* Whether a forked child may unshare a PID namespace here. */
static bool pid_namespaces(void)
{
    static int known = -1;
    if (known < 0) {
        pid_t c = fork();
        if (c == 0)
            _exit(unshare(CLONE_NEWPID) == 0 ? 0 : 1);
        int st = 1;
        while (c > 0 && waitpid(c, &st, 0) < 0 && errno == EINTR) {
        }
        known = c > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    if (!known)
        print_message("[  SKIP    ] no PID namespace can be created here (root and a kernel,"
                      " not an emulator, are needed)\n");
    return known;
}

/* One row: the owner `owner_depth` and the waiter `waiter_depth` PID
 * namespaces below this process; `same`: both in one place (then
 * owner_depth is the place's depth). */
static void row(int owner_depth, int waiter_depth, bool same, enum death d)
{
    if ((owner_depth > 0 || waiter_depth > 0) && !pid_namespaces())
        skip();
    page = fxt_shared_alloc(sizeof *page);
    pthread_mutexattr_t at;
    assert_int_equal(pthread_mutexattr_init(&at), 0);
    assert_int_equal(pthread_mutexattr_setpshared(&at, PTHREAD_PROCESS_SHARED), 0);
    assert_int_equal(pthread_mutexattr_setrobust(&at, PTHREAD_MUTEX_ROBUST), 0);
    assert_int_equal(pthread_mutex_init(&page->gm, &at), 0);
    pthread_mutexattr_destroy(&at);
    how = d;
    if (same) {
        assert_int_equal(fxt_wait_child(start_role(same_place, owner_depth), 60000), 0);
    } else {
        pid_t w = start_role(waiter_role, waiter_depth);
        pid_t o = start_role(owner_role, owner_depth);
        assert_int_equal(fxt_wait_child(o, 60000), d == SIGKILLED ? 128 + SIGKILL : 0);
        fxt_flag_set(&page->dead, 1);
        assert_int_equal(fxt_wait_child(w, 60000), 0);
    }
    assert_int_equal(page->held, 1);
    printf("row owner %d deep, waiter %d deep%s, %s: glibc %s, fx_rmutex %s\n", owner_depth,
           waiter_depth, same ? " (one place)" : "", d == SIGKILLED ? "SIGKILL" : "thread exit",
           strerror(page->g_result), strerror(page->m_result));
    if (fxt_rmutex_robust())
        assert_int_equal(page->g_result, EOWNERDEAD); /* the reference recovers */
    if (page->g_result == EOWNERDEAD)
        assert_int_equal(page->m_result, EOWNERDEAD);
    assert_int_equal(page->o_result, 0);
    assert_int_equal(page->o_runs, 1);
    assert_int_equal(page->o.state, FX_ONCE_DONE);
    fxt_shared_free(page, sizeof *page);
}

#define ROWS(name, o, w, same)                                                               \
    static void name##_thread_exit_is_recovered_as_glibc(void **state)                       \
    {                                                                                        \
        (void)state;                                                                         \
        row(o, w, same, THREAD_EXIT);                                                        \
    }                                                                                        \
    static void name##_sigkill_is_recovered_as_glibc(void **state)                           \
    {                                                                                        \
        (void)state;                                                                         \
        row(o, w, same, SIGKILLED);                                                          \
    }

ROWS(host, 0, 0, true)
ROWS(one_container, 1, 1, true)
ROWS(container_two_deep, 2, 2, true)
ROWS(owner_in_container_waiter_on_host, 1, 0, false)
ROWS(owner_on_host_waiter_in_container, 0, 1, false)
ROWS(sibling_containers, 1, 1, false)

#define TEST_ROWS(name)                                                                      \
    cmocka_unit_test(name##_thread_exit_is_recovered_as_glibc),                              \
        cmocka_unit_test(name##_sigkill_is_recovered_as_glibc)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST_ROWS(host),
        TEST_ROWS(one_container),
        TEST_ROWS(container_two_deep),
        TEST_ROWS(owner_in_container_waiter_on_host),
        TEST_ROWS(owner_on_host_waiter_in_container),
        TEST_ROWS(sibling_containers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
