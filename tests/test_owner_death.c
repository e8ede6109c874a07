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
 * report the recovery as an unlock of an unlocked mutex. Where the kernel
 * knows no robust list of glibc's (an emulator such as qemu-user refuses
 * set_robust_list) it is absent too, as a probe at run time tells, and the
 * row says so.
 *
 * Where the owner's thread has no usable robust list (qemu-user: its words
 * say FX_RMUTEX_PROBED, fxt_rmutex_robust()), fx_rmutex and fx_once find
 * the dead owner by the liveness probe, which judges a TID only between
 * processes that proved they run in the initial PID namespace: there the
 * waiter recovers both by itself, as everywhere with a robust list. In a
 * row with a container the owner counts as alive (never two owners): the
 * waiter's timed lock times out and its fx_once_call keeps waiting, until a
 * supervisor that knows the owner is dead recovers both (fx_rmutex_recover,
 * fx_once_recover); the row asserts each step of that.
 *
 * Rows: where the owner and the waiter run (the same process tree on the
 * host; one container, a new PID namespace; a container two deep; sibling
 * containers; the owner in a container and the waiter on the host, and the
 * reverse) times how the owner dies (its thread returns holding both; its
 * process is SIGKILLed). The exec rows are in test_fault_exec.c. Each role
 * runs in the namespace its row names: a process that unshares a PID
 * namespace stays outside it, and its first child (PID 1 there) forks the
 * role. Rows with a namespace need root and a kernel that gives one: they
 * are skipped with a message elsewhere.
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <futexsync.h>
#include <futexsync/layout.h>

#include "../src/internal/probe_periods.h"

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
    int32_t reference;  /* gm was made: the owner and the waiter take it */
    int32_t judged;     /* fx can tell the owner's death by itself (the row) */
    pid_t owner_tid;    /* the owner's thread, as its own PID namespace names it */
    uint32_t m_left;    /* m's owner word and o's state as the dead owner left them */
    int32_t o_left;
    /* Rows where fx cannot judge the owner: the supervisor's way out. */
    int32_t m_recover;  /* fx_rmutex_recover(owner_tid) */
    int32_t m_after;    /* the trylock after it */
    int32_t o_waited;   /* 1: the fx_once_call still waited after the bound */
    int32_t o_recover;  /* fx_once_recover(owner_tid) */
};

enum death { THREAD_EXIT, SIGKILLED };

/* How long a waiter that cannot judge the owner is shown to keep waiting:
 * past the first liveness checks and two of the long re-checks of
 * fx_rmutex, six of fx_once's. */
#define UNJUDGED_WAIT_MS (FXI_RMUTEX_LONG_AFTER_MS + 2 * FXI_RMUTEX_LONG_RECHECK_MS)

static struct page *page;
static enum death how;

static void *hold_and_return(void *p)
{
    (void)p;
    page->owner_tid = (pid_t)syscall(SYS_gettid);
    if ((page->reference && pthread_mutex_lock(&page->gm) != 0) || fx_rmutex_lock(&page->m) != 0)
        _exit(80);
    return NULL; /* the thread ends holding both */
}

static void lock_all_and_die(void *arg)
{
    (void)arg;
    page->owner_tid = (pid_t)syscall(SYS_gettid);
    if ((page->reference && pthread_mutex_lock(&page->gm) != 0) || fx_rmutex_lock(&page->m) != 0)
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

static void *call_once(void *p)
{
    (void)p;
    page->o_result = fx_once_call(&page->o, count_run, NULL);
    return NULL;
}

/* Where fx cannot judge the owner, a caller of the flag the owner died
 * inside keeps waiting (its sleep has marked FX_ONCE_WAITERS), until the
 * supervisor's fx_once_recover wakes it to run the initialiser. */
static int call_once_after_recover(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, call_once, NULL) != 0)
        return 93;
    int64_t limit = fxt_now_ns() + 60 * FX_NSEC_PER_SEC;
    /* Relaxed: a sign that the caller sleeps; the join orders its results. */
    while (!(__atomic_load_n(&page->o.state, __ATOMIC_RELAXED) & FX_ONCE_WAITERS)) {
        if (fxt_now_ns() > limit)
            return 94;
        sched_yield();
    }
    page->o_waited = !fxt_flag_wait(&page->o.state, FX_ONCE_DONE, UNJUDGED_WAIT_MS);
    page->o_recover = fx_once_recover(&page->o, page->owner_tid);
    return pthread_join(t, NULL) == 0 ? 0 : 95;
}

/* The waiter's role: once the owner is gone, takes both (2 s each; where fx
 * cannot judge the owner, UNJUDGED_WAIT_MS, then the supervisor's way). */
static int waiter_role(void)
{
    if (!fxt_flag_wait(&page->dead, 1, 60000))
        return 90;
    /* Relaxed: the owner is gone; only this process writes them from now. */
    page->m_left = (uint32_t)__atomic_load_n(&page->m.owner, __ATOMIC_RELAXED);
    page->o_left = __atomic_load_n(&page->o.state, __ATOMIC_RELAXED);
    if (page->reference) {
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        rt.tv_sec += 2;
        int g = pthread_mutex_timedlock(&page->gm, &rt);
        page->g_result = g;
        if (g == EOWNERDEAD && (pthread_mutex_consistent(&page->gm) != 0 ||
                                pthread_mutex_unlock(&page->gm) != 0))
            return 91;
    }
    struct timespec d = fx_deadline_in(page->judged ? 2 * FX_NSEC_PER_SEC
                                                    : UNJUDGED_WAIT_MS * FX_NSEC_PER_MSEC);
    int r = fx_rmutex_timedlock(&page->m, &d);
    page->m_result = r;
    if (!page->judged && r == ETIMEDOUT) {
        page->m_recover = fx_rmutex_recover(&page->m, page->owner_tid);
        r = page->m_after = fx_rmutex_trylock(&page->m);
    }
    if (r == EOWNERDEAD && (fx_rmutex_consistent(&page->m) != 0 || fx_rmutex_unlock(&page->m) != 0))
        return 92;
    /* A flag whose initialiser died is run again (a flag never started, in
     * the thread-exit rows, is run the first time). */
    if (!page->judged && page->o_left != FX_ONCE_NOT_RUN)
        return call_once_after_recover();
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

/* Whether this process runs in the initial PID namespace, asked of the
 * kernel: the inode of its PID namespace is PROC_PID_INIT_INO. */
static bool in_initial_pidns(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 && st.st_ino == 0xEFFFFFFCu;
}

static void robust_attr(pthread_mutexattr_t *at)
{
    assert_int_equal(pthread_mutexattr_init(at), 0);
    assert_int_equal(pthread_mutexattr_setpshared(at, PTHREAD_PROCESS_SHARED), 0);
    assert_int_equal(pthread_mutexattr_setrobust(at, PTHREAD_MUTEX_ROBUST), 0);
}

static void *lock_and_return(void *p)
{
    return (void *)(intptr_t)pthread_mutex_lock(p);
}

/* Whether glibc's robust process-shared mutex is a reference here, asked
 * once per process: pthread_mutex_init makes one (glibc answers ENOTSUP
 * where its set_robust_list failed at start-up, as riscv64's does under
 * qemu-user), and a thread that returns holding it leaves it to trylock
 * with EOWNERDEAD (a glibc that assumes the call works without asking,
 * aarch64's under qemu-user, makes the mutex, but the kernel never learned
 * its list: trylock says EBUSY). Not under ThreadSanitizer (above). */
static bool reference_works(void)
{
    static int known = -1;
    if (known >= 0)
        return known;
    if (FXT_UNDER_TSAN)
        return (known = 0);
    static pthread_mutex_t pm;
    pthread_mutexattr_t at;
    robust_attr(&at);
    int r = pthread_mutex_init(&pm, &at);
    pthread_mutexattr_destroy(&at);
    const char *why = "pthread_mutex_init of a robust process-shared mutex answers ENOTSUP";
    if (r != ENOTSUP) {
        assert_int_equal(r, 0);
        assert_int_equal((intptr_t)fxt_join(fxt_thread(lock_and_return, &pm)), 0);
        r = pthread_mutex_trylock(&pm);
        if (r != EBUSY)
            assert_int_equal(r, EOWNERDEAD);
        if (r == EOWNERDEAD) {
            assert_int_equal(pthread_mutex_consistent(&pm), 0);
            assert_int_equal(pthread_mutex_unlock(&pm), 0);
        }
        why = "a robust mutex whose owner thread returned holding it stays EBUSY to trylock";
    }
    known = r == EOWNERDEAD;
    if (!known)
        print_message("[  NOTE    ] no reference: %s here (the kernel knows no robust list of"
                      " glibc's: an emulator such as qemu-user refuses set_robust_list);"
                      " fx_rmutex and fx_once are checked alone\n",
                      why);
    return known;
}

/* Makes the reference in page->gm where it works (above). */
static bool make_reference(void)
{
    if (!reference_works())
        return false;
    pthread_mutexattr_t at;
    robust_attr(&at);
    assert_int_equal(pthread_mutex_init(&page->gm, &at), 0);
    pthread_mutexattr_destroy(&at);
    return true;
}

/* One row: the owner `owner_depth` and the waiter `waiter_depth` PID
 * namespaces below this process; `same`: both in one place (then
 * owner_depth is the place's depth). */
static void row(int owner_depth, int waiter_depth, bool same, enum death d)
{
    if ((owner_depth > 0 || waiter_depth > 0) && !pid_namespaces())
        skip();
    page = fxt_shared_alloc(sizeof *page);
    page->reference = make_reference();
    /* The owner's words say PROBED where its thread has no robust list (as
     * this process's, whose children the roles are), and LOCALNS where its
     * process did not prove it runs in the initial PID namespace; the probe
     * judges only between two that proved it. */
    bool robust = fxt_rmutex_robust();
    /* The kernel knows glibc's list wherever fx_rmutex joins it: there the
     * reference is missing only under ThreadSanitizer. */
    if (robust && !FXT_UNDER_TSAN)
        assert_true(page->reference);
    bool initial = in_initial_pidns();
    bool owner_local = owner_depth > 0 || !initial;
    bool waiter_local = waiter_depth > 0 || !initial;
    page->judged = robust || (!owner_local && !waiter_local);
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
    printf("row owner %d deep, waiter %d deep%s, %s: glibc %s, fx_rmutex %s%s\n", owner_depth,
           waiter_depth, same ? " (one place)" : "", d == SIGKILLED ? "SIGKILL" : "thread exit",
           page->reference ? strerror(page->g_result) : "absent", strerror(page->m_result),
           page->judged ? "" : ", then recovered by the supervisor");
    if (page->reference)
        assert_int_equal(page->g_result, EOWNERDEAD); /* the reference recovers */
    /* What the owner's death left: the kernel's marks where it reports the
     * death, else the owner's PROBED identity, untouched. */
    assert_true(page->owner_tid > 0);
    uint32_t m_id = (uint32_t)page->owner_tid | (uint32_t)FX_RMUTEX_PROBED |
                    (owner_local ? (uint32_t)FX_RMUTEX_LOCALNS : 0u);
    int32_t o_id = page->owner_tid | FX_ONCE_PROBED | (owner_local ? FX_ONCE_LOCALNS : 0);
    assert_int_equal(page->m_left, robust ? (uint32_t)FX_RMUTEX_ORPHANED : m_id);
    if (d == THREAD_EXIT)
        assert_int_equal(page->o_left, FX_ONCE_NOT_RUN);
    else
        assert_int_equal(page->o_left, FX_ONCE_RUNNING | (robust ? 0 : o_id));
    if (page->judged) {
        /* fx recovers the dead owner by itself: the kernel's report, or
         * the probe between processes of the initial PID namespace. */
        assert_int_equal(page->m_result, EOWNERDEAD);
    } else {
        /* The owner counts as alive: the lock times out; the supervisor's
         * recover hands it on with EOWNERDEAD. */
        assert_int_equal(page->m_result, ETIMEDOUT);
        assert_int_equal(page->m_recover, 0);
        assert_int_equal(page->m_after, EOWNERDEAD);
        if (d == SIGKILLED) {
            assert_true(page->o_waited);
            assert_int_equal(page->o_recover, 0);
        }
    }
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
    return fxt_run_group_tests(tests, NULL, NULL);
}
