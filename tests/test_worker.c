/* tests/test_worker.c - fx_worker: a supervisor releases the fx_rmutex and
 * fx_once objects its worker held when the worker exits or execs, within
 * 100 ms, where the waiters' own liveness check is blind (a seccomp filter
 * refusing every call a probe could make, an exec'd TID alive in another
 * program, another PID namespace); never an object a live process holds;
 * the fd for event loops and fx_async; bad input. */
#define _GNU_SOURCE
#include "fxfault.h"
#include "fxtest.h"
#include "../src/internal/futex.h"
#include "../src/internal/sleep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <futexsync.h>
#include <futexsync/layout.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define RELEASE_BOUND_NS (100 * FX_NSEC_PER_MSEC)
#define SLEEPER "/bin/sleep"

struct shared {
    fx_rmutex m;
    fx_once o;
    int32_t held;     /* the worker holds m / runs o's initialiser */
    int32_t go;       /* the worker may exec / exit */
    int32_t calls;    /* o's initialiser started */
    int32_t pad;
    int64_t t_event;  /* just before the kill or the exec */
    int64_t t_got;    /* when the waiter got m (or ran o) */
    int32_t got;      /* what the waiter's call returned */
    pid_t tid;        /* a thread's TID, reported by the worker */
    pid_t grandchild;
};

static struct shared *shared_new(void)
{
    struct shared *sh = fxt_shared_alloc(sizeof *sh);
    sh->got = -1;
    return sh;
}

static void park(void)
{
    for (;;)
        pause();
}

/* A seccomp filter that refuses (EPERM) every system call a liveness probe
 * could make: process_vm_readv, open, kill and their kin. Where nothing can
 * be decided the answer must be "alive", so the waiter's own check never
 * recovers the lock: only the supervisor can. 0 or a code. */
static int blind_the_probe(void)
{
    static const int nrs[] = {
        SYS_process_vm_readv, SYS_openat, SYS_kill, SYS_tgkill, SYS_tkill,
        SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo, SYS_waitid,
#ifdef SYS_open
        SYS_open,
#endif
#ifdef SYS_openat2
        SYS_openat2,
#endif
#ifdef SYS_pidfd_open
        SYS_pidfd_open,
#endif
#ifdef SYS_pidfd_send_signal
        SYS_pidfd_send_signal,
#endif
    };
    enum { N = sizeof nrs / sizeof nrs[0] };
    struct sock_filter prog[6 + 2 * N];
    int k = 0;
    /* Another ABI's system calls (int 0x80 on x86-64) are refused whole. */
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                             offsetof(struct seccomp_data, arch));
    prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FXT_AUDIT_ARCH, 1, 0);
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                             offsetof(struct seccomp_data, nr));
    for (int i = 0; i < N; i++) {
        prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nrs[i], 0, 1);
        prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
    }
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog fprog = {.len = (unsigned short)k, .filter = prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return 90;
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0)
        return 91;
    if (process_vm_readv(1, NULL, 0, NULL, 0, 0) != -1 || errno != EPERM)
        return 92;
    return 0;
}

/* --- workers ------------------------------------------------------------------ */

/* Locks m, says so, waits to be killed. */
static int worker_lock_and_park(void *p)
{
    struct shared *sh = p;
    if (fx_rmutex_lock(&sh->m) != 0)
        return 10;
    fxt_flag_set(&sh->held, 1);
    park();
    return 11;
}

static void *exec_sleeper(void *p)
{
    struct shared *sh = p;
    fxt_flag_wait(&sh->go, 1, 60000);
    char *argv[] = {"sleep", "30", NULL};
    __atomic_store_n(&sh->t_event, fxt_now_ns(), __ATOMIC_RELEASE);
    execv(SLEEPER, argv);
    _exit(12);
}

/* The main thread locks m; another thread execs (the kernel kills the main
 * thread and gives its TID to the thread that exec'd). */
static int worker_lock_then_other_thread_execs(void *p)
{
    struct shared *sh = p;
    if (fx_rmutex_lock(&sh->m) != 0)
        return 10;
    fxt_flag_set(&sh->held, 1);
    pthread_t t;
    if (pthread_create(&t, NULL, exec_sleeper, sh) != 0)
        return 13;
    park();
    return 11;
}

/* The thread that locks m is the one that execs. */
static int worker_lock_then_exec_itself(void *p)
{
    struct shared *sh = p;
    if (fx_rmutex_lock(&sh->m) != 0)
        return 10;
    fxt_flag_set(&sh->held, 1);
    exec_sleeper(sh);
    return 11;
}

static void *lock_in_thread(void *p)
{
    struct shared *sh = p;
    if (fx_rmutex_lock(&sh->m) == 0) {
        __atomic_store_n(&sh->tid, fxt_gettid(), __ATOMIC_RELEASE);
        fxt_flag_set(&sh->held, 1);
    }
    park();
    return NULL;
}

/* A second thread locks m; the main thread waits to be killed. */
static int worker_thread_locks(void *p)
{
    pthread_t t;
    if (pthread_create(&t, NULL, lock_in_thread, p) != 0)
        return 13;
    park();
    return 11;
}

static void park_inside(void *p)
{
    struct shared *sh = p;
    __atomic_fetch_add(&sh->calls, 1, __ATOMIC_RELAXED);
    fxt_flag_set(&sh->held, 1);
    park();
}

static int worker_runs_once_and_parks(void *p)
{
    struct shared *sh = p;
    return fx_once_call(&sh->o, park_inside, sh) == 0 ? 11 : 12; /* not reached */
}

static int worker_exits_when_told(void *p)
{
    struct shared *sh = p;
    fxt_flag_wait(&sh->go, 1, 60000);
    return 0;
}

/* --- waiters ------------------------------------------------------------------- */

static int blind_lock_waiter(void *p)
{
    struct shared *sh = p;
    int r = blind_the_probe();
    if (r != 0)
        return r;
    r = fx_rmutex_lock(&sh->m);
    sh->t_got = fxt_now_ns();
    sh->got = r;
    if (r != EOWNERDEAD)
        return 20;
    if (fx_rmutex_consistent(&sh->m) != 0 || fx_rmutex_unlock(&sh->m) != 0)
        return 21;
    return 0;
}

static void count_call(void *p)
{
    struct shared *sh = p;
    __atomic_fetch_add(&sh->calls, 1, __ATOMIC_RELAXED);
    sh->t_got = fxt_now_ns();
}

static int blind_once_waiter(void *p)
{
    struct shared *sh = p;
    int r = blind_the_probe();
    if (r != 0)
        return r;
    sh->got = fx_once_call(&sh->o, count_call, sh);
    return sh->got == 0 ? 0 : 22;
}

static void *lock_waiter_thread(void *p)
{
    struct shared *sh = p;
    __atomic_store_n(&sh->tid, fxt_gettid(), __ATOMIC_RELEASE);
    int r = fx_rmutex_lock(&sh->m);
    sh->t_got = fxt_now_ns();
    sh->got = r;
    if (r == EOWNERDEAD) {
        (void)fx_rmutex_consistent(&sh->m);
        (void)fx_rmutex_unlock(&sh->m);
    }
    return NULL;
}

/* --- helpers ------------------------------------------------------------------- */

/* A worker whose rmutexes the kernel does not release (get_robust_list
 * refused, as under qemu-user or with another libc): the owners the
 * supervisor exists for. Where the kernel reports the death the supervisor
 * finds the lock released already (test_worker_death_reported_by_the_kernel_
 * leaves_the_supervisor_nothing_to_release). */
static int (*probed_fn)(void *);
static int probed_worker(void *p)
{
    if (fxt_refuse_syscall(SYS_get_robust_list, ENOSYS, 0) != 0 && fxt_rmutex_robust())
        return 95;
    return probed_fn(p);
}

/* Forks fn as a worker with w prepared (flags) and attached. */
static pid_t start_worker(fx_worker *w, int flags, int (*fn)(void *), void *arg)
{
    assert_int_equal(fx_worker_prepare(w, flags), 0);
    probed_fn = fn;
    pid_t pid = fxt_fork(probed_worker, arg);
    assert_true(pid > 0);
    assert_int_equal(fx_worker_attach(w, pid), 0);
    return pid;
}

static struct timespec in_ms(int ms)
{
    return fx_deadline_in((int64_t)ms * FX_NSEC_PER_MSEC);
}

/* The worker pid still runs SLEEPER (it exec'd and lives). */
static void assert_runs_sleeper(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT), 0);
    assert_int_equal(si.si_pid, 0);
    char path[64], comm[32] = "";
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_true(read(fd, comm, sizeof comm - 1) > 0);
    close(fd);
    assert_string_equal(comm, "sleep\n");
}

/* --- exit ---------------------------------------------------------------------- */

static void test_worker_killed_holding_rmutex_is_released_to_a_blind_waiter_within_100ms(void **state)
{
    (void)state;
    fxt_require_seccomp();
    struct shared *sh = shared_new();
    fx_worker w;
    pid_t pid = start_worker(&w, 0, worker_lock_and_park, sh);
    assert_int_equal(fx_worker_bind_rmutex(&w, &sh->m), 0);
    assert_true(fxt_flag_wait(&sh->held, 1, 10000));
    pid_t waiter = fxt_fork(blind_lock_waiter, sh);
    assert_true(fxt_wait_asleep(waiter, &sh->m.owner, 10000));
    sh->t_event = fxt_now_ns();
    assert_int_equal(kill(pid, SIGKILL), 0);
    fx_worker_report rep;
    struct timespec d = in_ms(10000);
    assert_int_equal(fx_worker_wait(&w, &d, &rep), 0);
    assert_int_equal(rep.event, FX_WORKER_EXITED);
    assert_int_equal(rep.released, 1);
    assert_int_equal(rep.ambiguous + rep.unsure, 0);
    assert_int_equal(fxt_wait_child(waiter, 10000), 0);
    assert_int_equal(sh->got, EOWNERDEAD);
    int64_t dt = sh->t_got - sh->t_event;
    assert_true(dt >= 0 && dt < RELEASE_BOUND_NS);
    /* Released once; reaped only now. */
    assert_int_equal(fx_worker_check(&w, &rep), 0);
    assert_int_equal(rep.released, 1);
    assert_int_equal(fxt_wait_child(pid, 10000), 128 + SIGKILL);
    assert_int_equal(fx_worker_detach(&w), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* A thread other than the main one holds m: listed by refresh, released at
 * the worker's death (its TID is free then). */
static void test_worker_thread_found_by_refresh_holding_rmutex_is_released_at_exit(void **state)
{
    (void)state;
    fxt_require_seccomp();
    struct shared *sh = shared_new();
    fx_worker w;
    pid_t pid = start_worker(&w, 0, worker_thread_locks, sh);
    assert_int_equal(fx_worker_bind_rmutex(&w, &sh->m), 0);
    assert_true(fxt_flag_wait(&sh->held, 1, 10000));
    assert_int_equal(fx_worker_refresh(&w), 0);
    assert_int_equal(fx_rmutex_owner(&sh->m), sh->tid);
    assert_true(sh->tid != pid);
    pid_t waiter = fxt_fork(blind_lock_waiter, sh);
    assert_true(fxt_wait_asleep(waiter, &sh->m.owner, 10000));
    sh->t_event = fxt_now_ns();
    assert_int_equal(kill(pid, SIGKILL), 0);
    fx_worker_report rep;
    assert_int_equal(fx_worker_wait(&w, NULL, &rep), 0);
    assert_int_equal(rep.event, FX_WORKER_EXITED);
    assert_int_equal(rep.released, 1);
    assert_int_equal(fxt_wait_child(waiter, 10000), 0);
    assert_int_equal(sh->got, EOWNERDEAD);
    assert_true(sh->t_got - sh->t_event < RELEASE_BOUND_NS);
    assert_int_equal(fxt_wait_child(pid, 10000), 128 + SIGKILL);
    assert_int_equal(fx_worker_detach(&w), 0);
    fxt_shared_free(sh, sizeof *sh);
}

static void test_worker_killed_inside_once_initialiser_lets_a_blind_waiter_run_it(void **state)
{
    (void)state;
    fxt_require_seccomp();
    struct shared *sh = shared_new();
    fx_worker w;
    pid_t pid = start_worker(&w, 0, worker_runs_once_and_parks, sh);
    assert_int_equal(fx_worker_bind_once(&w, &sh->o), 0);
    assert_true(fxt_flag_wait(&sh->held, 1, 10000));
    pid_t waiter = fxt_fork(blind_once_waiter, sh);
    assert_true(fxt_wait_asleep(waiter, &sh->o.state, 10000));
    sh->t_event = fxt_now_ns();
    assert_int_equal(kill(pid, SIGKILL), 0);
    fx_worker_report rep;
    assert_int_equal(fx_worker_wait(&w, NULL, &rep), 0);
    assert_int_equal(rep.released, 1);
    assert_int_equal(fxt_wait_child(waiter, 10000), 0);
    /* Run again, once, by the waiter, soon after the kill. */
    assert_int_equal(sh->calls, 2);
    assert_int_equal(sh->o.state, FX_ONCE_DONE);
    assert_true(sh->t_got - sh->t_event < RELEASE_BOUND_NS);
    assert_int_equal(fxt_wait_child(pid, 10000), 128 + SIGKILL);
    assert_int_equal(fx_worker_detach(&w), 0);
    fxt_shared_free(sh, sizeof *sh);
}

static int holder_until_go(void *p)
{
    struct shared *sh = p;
    if (fx_rmutex_lock(&sh->m) != 0)
        return 30;
    fxt_flag_set(&sh->held, 1);
    if (!fxt_flag_wait(&sh->go, 2, 60000))
        return 31;
    return fx_rmutex_unlock(&sh->m) == 0 ? 0 : 32;
}

static void test_worker_death_leaves_a_bound_rmutex_held_by_another_live_process(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    pid_t holder = fxt_fork(holder_until_go, sh);
    assert_true(fxt_flag_wait(&sh->held, 1, 10000));
    fx_worker w;
    pid_t pid = start_worker(&w, 0, worker_exits_when_told, sh);
    assert_int_equal(fx_worker_bind_rmutex(&w, &sh->m), 0);
    fxt_flag_set(&sh->go, 1);
    fx_worker_report rep;
    assert_int_equal(fx_worker_wait(&w, NULL, &rep), 0);
    assert_int_equal(rep.event, FX_WORKER_EXITED);
    assert_int_equal(rep.released, 0);
    assert_int_equal(fx_rmutex_owner(&sh->m), holder);
    assert_int_equal(fxt_wait_child(pid, 10000), 0);
    fxt_flag_set(&sh->go, 2);
    assert_int_equal(fxt_wait_child(holder, 10000), 0);
    assert_int_equal(fx_worker_detach(&w), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* A worker already reaped before the check: its PID may be reused, so nothing
 * is released on its account. */
static void test_worker_reaped_before_the_check_releases_nothing(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    fx_worker w;
    pid_t pid = start_worker(&w, 0, worker_lock_and_park, sh);
    assert_int_equal(fx_worker_bind_rmutex(&w, &sh->m), 0);
    assert_true(fxt_flag_wait(&sh->held, 1, 10000));
    assert_int_equal(kill(pid, SIGKILL), 0);
    assert_int_equal(fxt_wait_child(pid, 10000), 128 + SIGKILL);
    fx_worker_report rep;
    assert_int_equal(fx_worker_wait(&w, NULL, &rep), 0);
    assert_int_equal(rep.released, 0);
    assert_int_equal(rep.unsure, 1);
    assert_int_equal(fx_rmutex_owner(&sh->m), pid);
    assert_int_equal(fx_worker_detach(&w), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* --- exec ---------------------------------------------------------------------- */

/* blind: the waiter is a child process whose probe is blinded (while the
 * kernel hands the main thread's TID to the thread that execs, that TID is
 * briefly a zombie's, which a seeing probe may catch); otherwise a thread of
 * this process, whose probe sees the owner's TID alive in the exec'd program
 * for good. */
static void run_exec_case(int (*worker)(void *), bool blind)
{
    if (blind)
        fxt_require_seccomp(); /* the blind waiter's filter */
    if (access(SLEEPER, X_OK) != 0) {
        print_message("skipped: no %s to exec\n", SLEEPER);
        skip();
    }
    struct shared *sh = shared_new();
    fx_worker w;
    pid_t pid = start_worker(&w, 0, worker, sh);
    assert_int_equal(fx_worker_bind_rmutex(&w, &sh->m), 0);
    assert_true(fxt_flag_wait(&sh->held, 1, 10000));
    pthread_t t;
    pid_t waiter = 0;
    if (blind) {
        waiter = fxt_fork(blind_lock_waiter, sh);
        assert_true(fxt_wait_asleep(waiter, &sh->m.owner, 10000));
    } else {
        t = fxt_thread(lock_waiter_thread, sh);
        while (__atomic_load_n(&sh->tid, __ATOMIC_ACQUIRE) == 0)
            sched_yield();
        assert_true(fxt_wait_asleep(sh->tid, &sh->m.owner, 10000));
    }
    fxt_flag_set(&sh->go, 1);
    fx_worker_report rep;
    struct timespec d = in_ms(10000);
    assert_int_equal(fx_worker_wait(&w, &d, &rep), 0);
    assert_int_equal(rep.event, FX_WORKER_EXECED);
    assert_int_equal(rep.released, 1);
    if (blind)
        assert_int_equal(fxt_wait_child(waiter, 10000), 0);
    else
        assert_true(fxt_join_timed(t, 10000, NULL));
    assert_int_equal(sh->got, EOWNERDEAD);
    int64_t dt = sh->t_got - __atomic_load_n(&sh->t_event, __ATOMIC_ACQUIRE);
    assert_true(dt >= 0 && dt < RELEASE_BOUND_NS);
    assert_runs_sleeper(pid); /* the exec'd program still runs */
    /* The fd is quiet while the exec'd program runs, readable at its exit;
     * the report stays the exec's. */
    struct pollfd p = {fx_worker_fd(&w), POLLIN, 0};
    assert_int_equal(poll(&p, 1, 0), 0);
    assert_int_equal(kill(pid, SIGKILL), 0);
    assert_int_equal(poll(&p, 1, 10000), 1);
    assert_int_equal(fx_worker_check(&w, &rep), 0);
    assert_int_equal(rep.event, FX_WORKER_EXECED);
    assert_int_equal(rep.released, 1);
    assert_int_equal(fxt_wait_child(pid, 10000), 128 + SIGKILL);
    assert_int_equal(fx_worker_detach(&w), 0);
    fxt_shared_free(sh, sizeof *sh);
}

static void test_worker_main_thread_killed_by_another_threads_exec_is_released_within_100ms(
    void **state)
{
    (void)state;
    run_exec_case(worker_lock_then_other_thread_execs, true);
}

static void test_worker_owner_thread_that_execs_is_released_within_100ms(void **state)
{
    (void)state;
    run_exec_case(worker_lock_then_exec_itself, false);
}

static int worker_forks_keeper_then_exits(void *p)
{
    struct shared *sh = p;
    pid_t g = fork();
    if (g < 0)
        return 40;
    if (g == 0)
        park(); /* keeps the exec pipe's write end, without exec */
    __atomic_store_n(&sh->grandchild, g, __ATOMIC_RELEASE);
    fxt_flag_set(&sh->held, 1);
    fxt_flag_wait(&sh->go, 1, 60000);
    return 0;
}

/* The documented limit of the exec pipe: a child forked without exec keeps
 * it open; the worker's exit is still seen at once through the pidfd. */
static void test_worker_exit_is_seen_while_its_forked_child_keeps_the_exec_pipe(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    fx_worker w;
    pid_t pid = start_worker(&w, 0, worker_forks_keeper_then_exits, sh);
    assert_true(fxt_flag_wait(&sh->held, 1, 10000));
    fx_worker_report rep;
    assert_int_equal(fx_worker_check(&w, &rep), EINPROGRESS);
    assert_int_equal(rep.event, FX_WORKER_RUNNING);
    fxt_flag_set(&sh->go, 1);
    assert_int_equal(fx_worker_wait(&w, NULL, &rep), 0);
    assert_int_equal(rep.event, FX_WORKER_EXITED);
    assert_int_equal(kill(sh->grandchild, SIGKILL), 0);
    assert_int_equal(fxt_wait_child(pid, 10000), 0);
    assert_int_equal(fx_worker_detach(&w), 0);
    fxt_shared_free(sh, sizeof *sh);
}

static fx_worker g_copy; /* the handle whose copy the worker detaches */

static int worker_detaches_its_copy(void *p)
{
    struct shared *sh = p;
    if (fx_worker_detach(&g_copy) != 0)
        return 50;
    fxt_flag_set(&sh->held, 1);
    fxt_flag_wait(&sh->go, 1, 60000);
    return 0;
}

/* A worker that detaches its copy of the handle (a natural clean-up in a fork
 * child) keeps the exec pipe's write end: no exec is reported. */
static void test_worker_detaching_its_copy_of_the_handle_is_not_taken_for_an_exec(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    pid_t pid = start_worker(&g_copy, 0, worker_detaches_its_copy, sh);
    assert_true(fxt_flag_wait(&sh->held, 1, 10000));
    fx_worker_report rep;
    assert_int_equal(fx_worker_check(&g_copy, &rep), EINPROGRESS);
    assert_int_equal(rep.event, FX_WORKER_RUNNING);
    fxt_flag_set(&sh->go, 1);
    assert_int_equal(fx_worker_wait(&g_copy, NULL, &rep), 0);
    assert_int_equal(rep.event, FX_WORKER_EXITED);
    assert_int_equal(fxt_wait_child(pid, 10000), 0);
    assert_int_equal(fx_worker_detach(&g_copy), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* In a forked supervisor: kills the worker pid, which holds the bound
 * rmutex, and requires its exit to release it; reaps it, detaches w. 0 or a
 * code (90-93). */
static int kill_and_release(fx_worker *w, pid_t pid)
{
    FXT_CHILD_CHECK(kill(pid, SIGKILL) == 0, 90);
    fx_worker_report rep;
    FXT_CHILD_CHECK(fx_worker_wait(w, NULL, &rep) == 0, 91);
    FXT_CHILD_CHECK(rep.event == FX_WORKER_EXITED && rep.released == 1, 92);
    FXT_CHILD_CHECK(fxt_wait_child(pid, 10000) == 128 + SIGKILL && fx_worker_detach(w) == 0, 93);
    return 0;
}

/* Locks m, then points its standard descriptors at /dev/null (a worker's
 * usual redirection), and waits to be killed. */
static int worker_lock_redirect_stdio_and_park(void *p)
{
    struct shared *sh = p;
    if (fx_rmutex_lock(&sh->m) != 0)
        return 10;
    int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return 14;
    for (int i = 0; i <= 2; i++)
        if (fd != i && dup2(fd, i) != i)
            return 15;
    fxt_flag_set(&sh->held, 1);
    park();
    return 11;
}

/* The supervisor, in a child started with descriptors 0-2 closed: none of
 * its own descriptors may land there, and the worker's redirection of its
 * standard descriptors is neither an exec nor a release. */
static int supervise_with_std_fds_closed(void *p)
{
    struct shared *sh = p;
    for (int i = 0; i <= 2; i++)
        close(i);
    fx_worker w;
    FXT_CHILD_CHECK(fx_worker_prepare(&w, 0) == 0, 60);
    probed_fn = worker_lock_redirect_stdio_and_park;
    pid_t pid = fxt_fork(probed_worker, sh);
    FXT_CHILD_CHECK(pid > 0, 61);
    FXT_CHILD_CHECK(fx_worker_attach(&w, pid) == 0, 62);
    for (int i = 0; i <= 2; i++)
        FXT_CHILD_CHECK(fcntl(i, F_GETFD) == -1 && errno == EBADF, 63);
    FXT_CHILD_CHECK(fx_worker_bind_rmutex(&w, &sh->m) == 0, 64);
    FXT_CHILD_CHECK(fxt_flag_wait(&sh->held, 1, 10000), 65);
    fx_worker_report rep;
    FXT_CHILD_CHECK(fx_worker_check(&w, &rep) == EINPROGRESS, 66);
    FXT_CHILD_CHECK(rep.event == FX_WORKER_RUNNING && rep.released == 0, 67);
    FXT_CHILD_CHECK(fx_rmutex_owner(&sh->m) == pid, 68);
    return kill_and_release(&w, pid);
}

static void test_worker_that_redirects_stdio_of_a_supervisor_without_std_fds_is_not_execed(
    void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    assert_int_equal(fxt_run_child(supervise_with_std_fds_closed, sh), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* --- PID namespaces (root) ------------------------------------------------------ */

/* Like fxt_fork, but the child is the first process (PID 1) of a new PID
 * namespace. -1 when the kernel refuses (not root, no user namespace). */
static pid_t fork_newpid(int (*fn)(void *), void *arg)
{
    fflush(NULL);
    long pid = syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0)
        _exit(fn(arg));
    return (pid_t)pid;
}

static int newpid_probe_child(void *unused)
{
    (void)unused;
    return getpid() == 1 ? 0 : 1;
}

/* Whether this process may start a child in a new PID namespace: root, and
 * a clone(CLONE_NEWPID) that works (qemu-user refuses the flag with
 * EINVAL), probed once. */
static bool skip_unless_newpid(void)
{
    static int probed = -1; /* 0 works, else the errno of the refusal */
    if (geteuid() != 0) {
        print_message("skipped: a new PID namespace needs root\n");
        return true;
    }
    if (probed == -1) {
        pid_t pid = fork_newpid(newpid_probe_child, NULL);
        probed = pid < 0 ? errno : fxt_wait_child(pid, 10000) == 0 ? 0 : EINVAL;
    }
    if (probed != 0) {
        print_message("[  SKIP    ] a new PID namespace cannot be made here: clone(CLONE_NEWPID)"
                      " fails (%s; an emulator such as qemu-user refuses the flag)\n",
                      strerror(probed));
        return true;
    }
    return false;
}

/* The holder of test_worker_exit_keeps_a_kernel_tracked_lock_of_another_namespaces_pid_1:
 * the first process of a PID namespace made by unshare and a glibc fork,
 * so it has a robust list and its word is its TID there, 1. */
static int other_namespace_pid1_holds(void *p)
{
    struct shared *sh = p;
    if (unshare(CLONE_NEWPID) != 0)
        return 50;
    pid_t y = fork();
    if (y < 0)
        return 51;
    if (y == 0) {
        if (getpid() != 1 || fx_rmutex_lock(&sh->m) != 0)
            _exit(52);
        fxt_flag_set(&sh->held, 1);
        park();
    }
    __atomic_store_n(&sh->grandchild, y, __ATOMIC_RELEASE); /* its PID out here */
    int st;
    while (waitpid(y, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : 53;
}

/* A live process of another PID namespace holds a bound rmutex under the
 * TID number the dead worker had in its own (both are their namespace's
 * PID 1). The kernel marks a dead thread's words at its death, so after
 * the worker's exit a plain TID in the word is another thread's: the
 * supervisor releases nothing (two owners before: it compared the number). */
static void test_worker_exit_keeps_a_kernel_tracked_lock_of_another_namespaces_pid_1(
    void **state)
{
    (void)state;
    if (skip_unless_newpid())
        skip();
    struct shared *sh = shared_new();
    pid_t holder = fxt_fork(other_namespace_pid1_holds, sh);
    assert_true(fxt_flag_wait(&sh->held, 1, 10000));
    assert_int_equal(sh->m.owner, 1); /* kernel-tracked: no PROBED */
    fx_worker w;
    assert_int_equal(fx_worker_prepare(&w, FX_WORKER_NEWPID), 0);
    pid_t pid = fork_newpid(worker_exits_when_told, sh);
    assert_true(pid > 0);
    assert_int_equal(fx_worker_attach(&w, pid), 0);
    assert_int_equal(fx_worker_bind_rmutex(&w, &sh->m), 0);
    fxt_flag_set(&sh->go, 1);
    fx_worker_report rep;
    assert_int_equal(fx_worker_wait(&w, NULL, &rep), 0);
    assert_int_equal(rep.event, FX_WORKER_EXITED);
    assert_int_equal(rep.released, 0);
    assert_int_equal(sh->m.owner, 1); /* still the live holder's */
    assert_int_equal(fx_rmutex_trylock(&sh->m), EBUSY);
    assert_int_equal(fxt_wait_child(pid, 10000), 0);
    assert_int_equal(fx_worker_detach(&w), 0);
    /* The holder's namespace ends with its init; its parent reports it. */
    pid_t y;
    while ((y = __atomic_load_n(&sh->grandchild, __ATOMIC_ACQUIRE)) == 0)
        sched_yield();
    assert_int_equal(kill(y, SIGKILL), 0);
    assert_int_equal(fxt_wait_child(holder, 10000), 0);
    fxt_shared_free(sh, sizeof *sh);
}

static void test_worker_in_new_pid_namespace_holding_rmutex_is_released_within_100ms(void **state)
{
    (void)state;
    if (skip_unless_newpid())
        skip();
    /* Learnt from /proc's NSpid line, then as the first process of a new
     * namespace (FX_WORKER_NEWPID), as where /proc cannot show it. */
    int flags[] = {0, FX_WORKER_NEWPID};
    for (int i = 0; i < 2; i++) {
        struct shared *sh = shared_new();
        fx_worker w;
        assert_int_equal(fx_worker_prepare(&w, flags[i]), 0);
        pid_t pid = fork_newpid(worker_lock_and_park, sh);
        assert_true(pid > 0);
        assert_int_equal(fx_worker_attach(&w, pid), 0);
        assert_int_equal(fx_worker_bind_rmutex(&w, &sh->m), 0);
        assert_true(fxt_flag_wait(&sh->held, 1, 10000));
        /* Its TID there: 1, the TID of this namespace's init, which lives
         * for good: no waiter here could ever recover it. */
        assert_int_equal(fx_rmutex_owner(&sh->m), 1);
        pthread_t t = fxt_thread(lock_waiter_thread, sh);
        while (__atomic_load_n(&sh->tid, __ATOMIC_ACQUIRE) == 0)
            sched_yield();
        assert_true(fxt_wait_asleep(sh->tid, &sh->m.owner, 10000));
        sh->t_event = fxt_now_ns();
        assert_int_equal(kill(pid, SIGKILL), 0);
        fx_worker_report rep;
        assert_int_equal(fx_worker_wait(&w, NULL, &rep), 0);
        assert_int_equal(rep.event, FX_WORKER_EXITED);
        assert_int_equal(rep.released, 1);
        assert_true(fxt_join_timed(t, 10000, NULL));
        assert_int_equal(sh->got, EOWNERDEAD);
        assert_true(sh->t_got - sh->t_event < RELEASE_BOUND_NS);
        assert_int_equal(fxt_wait_child(pid, 10000), 128 + SIGKILL);
        assert_int_equal(fx_worker_detach(&w), 0);
        fxt_shared_free(sh, sizeof *sh);
    }
}

/* The supervisor, itself the first process (PID 1) of a new PID namespace,
 * starts a worker that is the first process of another one: both have PID 1,
 * yet the worker's detach of its copy of the handle keeps the write end. */
static int supervise_as_pid1_a_pid1_worker_that_detaches(void *p)
{
    struct shared *sh = p;
    FXT_CHILD_CHECK(getpid() == 1, 60);
    /* Its own namespace's /proc (unshare -pf --mount-proc), in a mount
     * namespace of its own: /proc shows the worker as it is. */
    FXT_CHILD_CHECK(unshare(CLONE_NEWNS) == 0, 70);
    FXT_CHILD_CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0, 71);
    FXT_CHILD_CHECK(mount("proc", "/proc", "proc", 0, NULL) == 0, 72);
    FXT_CHILD_CHECK(fx_worker_prepare(&g_copy, FX_WORKER_NEWPID) == 0, 61);
    pid_t pid = fork_newpid(worker_detaches_its_copy, sh);
    FXT_CHILD_CHECK(pid > 0, 62);
    FXT_CHILD_CHECK(fx_worker_attach(&g_copy, pid) == 0, 63);
    FXT_CHILD_CHECK(fxt_flag_wait(&sh->held, 1, 10000), 64);
    fx_worker_report rep;
    FXT_CHILD_CHECK(fx_worker_check(&g_copy, &rep) == EINPROGRESS, 65);
    fxt_flag_set(&sh->go, 1);
    FXT_CHILD_CHECK(fx_worker_wait(&g_copy, NULL, &rep) == 0, 66);
    FXT_CHILD_CHECK(rep.event == FX_WORKER_EXITED, 67);
    FXT_CHILD_CHECK(fxt_wait_child(pid, 10000) == 0, 68);
    FXT_CHILD_CHECK(fx_worker_detach(&g_copy) == 0, 69);
    return 0;
}

/* No owner: what fxi_futex_sleep_probed asks of a word. */
static uint32_t no_owner(const int32_t *word)
{
    (void)word;
    return 0;
}

static void test_worker_with_pid_1_like_its_supervisor_detaching_its_copy_is_not_an_exec(
    void **state)
{
    (void)state;
    if (skip_unless_newpid())
        skip();
    /* The sleepers' tables are set up (their pages marked wiped at fork) as
     * any shared sleep of the process would, before the supervisor forks:
     * the state that tells the worker's copy of the handle from the
     * supervisor's once shared a page with them, so the worker got it zeroed
     * and closed the exec pipe. The word differs from the value: nothing
     * sleeps. */
    int32_t word = 0;
    bool judge;
    (void)fxi_futex_sleep_probed(&word, 1, no_owner, NULL, &judge);
    struct shared *sh = shared_new();
    pid_t pid = fork_newpid(supervise_as_pid1_a_pid1_worker_that_detaches, sh);
    assert_true(pid > 0);
    assert_int_equal(fxt_wait_child(pid, 30000), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* The supervisor runs in a new PID namespace under the /proc of the test's
 * (unshare -pf without --mount-proc). Its worker, the first process of yet
 * another namespace, gets here the PID that this /proc shows for the test
 * process (sh->tid): /proc/<pid> is another process. 77: the PID could not
 * be arranged (no writable ns_last_pid). */
static int supervise_under_another_namespaces_proc(void *p)
{
    struct shared *sh = p;
    int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return 77;
    char num[16];
    int n = snprintf(num, sizeof num, "%d", (int)sh->tid - 1);
    bool set = write(fd, num, (size_t)n) == n;
    close(fd);
    if (!set)
        return 77;
    fx_worker w;
    FXT_CHILD_CHECK(fx_worker_prepare(&w, FX_WORKER_NEWPID) == 0, 60);
    pid_t pid = fork_newpid(worker_lock_and_park, sh);
    FXT_CHILD_CHECK(pid > 0, 61);
    if (pid != sh->tid) {
        kill(pid, SIGKILL);
        fxt_wait_child(pid, 10000);
        return 77;
    }
    FXT_CHILD_CHECK(fx_worker_attach(&w, pid) == 0, 62);
    FXT_CHILD_CHECK(fx_worker_bind_rmutex(&w, &sh->m) == 0, 63);
    FXT_CHILD_CHECK(fxt_flag_wait(&sh->held, 1, 10000) && fx_rmutex_owner(&sh->m) == 1, 64);
    FXT_CHILD_CHECK(fx_worker_refresh(&w) == ENOENT, 65); /* /proc cannot show its threads */
    return kill_and_release(&w, pid);
}

/* The first process of the supervisor's namespace: the supervisor is its
 * child, not itself PID 1 (whose TID 1 would make the release ambiguous). */
static int namespace_init_runs_supervisor(void *p)
{
    return fxt_run_child(supervise_under_another_namespaces_proc, p) & 0xff;
}

static void test_worker_newpid_is_attached_under_another_pid_namespaces_proc(void **state)
{
    (void)state;
    if (skip_unless_newpid())
        skip();
    struct shared *sh = shared_new();
    sh->tid = getpid(); /* a PID the supervisor's /proc shows: ours */
    pid_t pid = fork_newpid(namespace_init_runs_supervisor, sh);
    assert_true(pid > 0);
    int status = fxt_wait_child(pid, 30000);
    fxt_shared_free(sh, sizeof *sh);
    if (status == 77) {
        print_message("[  SKIP    ] the worker's PID could not be chosen: no writable"
                      " /proc/sys/kernel/ns_last_pid in a new PID namespace\n");
        skip();
    }
    assert_int_equal(status, 0);
}

static int park_only(void *p)
{
    struct shared *sh = p;
    fxt_flag_set(&sh->go, 9);
    park();
    return 11;
}

/* Two workers, each PID 1 of its own namespace, both bound to m: the owner
 * word's 1 may be either. While the other lives nothing is released. */
static void test_two_live_workers_with_the_same_namespace_tid_make_the_release_fail_safe(void **state)
{
    (void)state;
    if (skip_unless_newpid())
        skip();
    struct shared *sh = shared_new();
    fx_worker a, b;
    assert_int_equal(fx_worker_prepare(&a, FX_WORKER_NEWPID), 0);
    pid_t pa = fork_newpid(worker_lock_and_park, sh);
    assert_true(pa > 0);
    assert_int_equal(fx_worker_attach(&a, pa), 0);
    assert_int_equal(fx_worker_prepare(&b, FX_WORKER_NEWPID), 0);
    pid_t pb = fork_newpid(park_only, sh);
    assert_true(pb > 0);
    assert_int_equal(fx_worker_attach(&b, pb), 0);
    assert_int_equal(fx_worker_bind_rmutex(&a, &sh->m), 0);
    assert_int_equal(fx_worker_bind_rmutex(&b, &sh->m), 0);
    assert_true(fxt_flag_wait(&sh->held, 1, 10000));
    assert_true(fxt_flag_wait(&sh->go, 9, 10000));
    assert_int_equal(kill(pa, SIGKILL), 0);
    fx_worker_report rep;
    assert_int_equal(fx_worker_wait(&a, NULL, &rep), 0);
    assert_int_equal(rep.released, 0);
    assert_int_equal(rep.ambiguous, 1);
    assert_int_equal(fx_rmutex_owner(&sh->m), 1);
    /* Once b is gone too, no live worker can be the holder. */
    assert_int_equal(kill(pb, SIGKILL), 0);
    assert_int_equal(fx_worker_wait(&b, NULL, &rep), 0);
    assert_int_equal(rep.released, 1);
    assert_int_equal(fx_rmutex_lock(&sh->m), EOWNERDEAD);
    assert_int_equal(fx_rmutex_consistent(&sh->m), 0);
    assert_int_equal(fx_rmutex_unlock(&sh->m), 0);
    assert_int_equal(fxt_wait_child(pa, 10000), 128 + SIGKILL);
    assert_int_equal(fxt_wait_child(pb, 10000), 128 + SIGKILL);
    assert_int_equal(fx_worker_detach(&a), 0);
    assert_int_equal(fx_worker_detach(&b), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* --- event loops ----------------------------------------------------------------- */

/* An epoll loop watches the worker's fd and an fx_async rmutex waiter: the
 * worker's thread that holds m execs (its TID lives on in the new program,
 * so the waiter's own checks never let it in); the loop
 * hears of it through the worker's fd, fx_worker_check releases m, and the
 * async waiter completes with EOWNERDEAD, all within 100 ms. */
static void run_async_case(int backend)
{
    if (access(SLEEPER, X_OK) != 0) {
        print_message("skipped: no %s to exec\n", SLEEPER);
        skip();
    }
    fx_async *a;
    int r = fx_async_create(&a, backend);
    if (r == ENOTSUP)
        return; /* no io_uring futex operations: the thread back end covers it */
    assert_int_equal(r, 0);
    struct shared *sh = shared_new();
    fx_worker w;
    pid_t pid = start_worker(&w, 0, worker_lock_then_exec_itself, sh);
    assert_int_equal(fx_worker_bind_rmutex(&w, &sh->m), 0);
    assert_true(fxt_flag_wait(&sh->held, 1, 10000));
    assert_int_equal(fx_async_rmutex_lock(a, &sh->m, NULL), EINPROGRESS);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    assert_true(ep >= 0);
    struct epoll_event ev = {.events = EPOLLIN};
    ev.data.u32 = 1;
    assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, fx_async_fd(a), &ev), 0);
    ev.data.u32 = 2;
    assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, fx_worker_fd(&w), &ev), 0);
    fxt_flag_set(&sh->go, 1);
    int got = EINPROGRESS, released = -1;
    int64_t end = fxt_now_ns() + 10 * FX_NSEC_PER_SEC;
    while (got == EINPROGRESS && fxt_now_ns() < end) {
        struct epoll_event out[2];
        int n = epoll_wait(ep, out, 2, 1000);
        for (int i = 0; i < n; i++) {
            if (out[i].data.u32 == 2) {
                fx_worker_report rep;
                assert_int_equal(fx_worker_check(&w, &rep), 0);
                assert_int_equal(rep.event, FX_WORKER_EXECED);
                released = rep.released;
                assert_int_equal(epoll_ctl(ep, EPOLL_CTL_DEL, fx_worker_fd(&w), NULL), 0);
            } else {
                got = fx_async_complete(a);
            }
        }
    }
    int64_t dt = fxt_now_ns() - __atomic_load_n(&sh->t_event, __ATOMIC_ACQUIRE);
    assert_int_equal(got, EOWNERDEAD);
    assert_int_equal(released, 1);
    assert_true(dt < RELEASE_BOUND_NS);
    assert_int_equal(fx_rmutex_consistent(&sh->m), 0);
    assert_int_equal(fx_rmutex_unlock(&sh->m), 0);
    close(ep);
    assert_int_equal(fx_async_destroy(a), 0);
    assert_runs_sleeper(pid);
    assert_int_equal(kill(pid, SIGKILL), 0);
    assert_int_equal(fxt_wait_child(pid, 10000), 128 + SIGKILL);
    assert_int_equal(fx_worker_detach(&w), 0);
    fxt_shared_free(sh, sizeof *sh);
}

static void test_event_loop_hears_the_worker_fd_and_an_async_waiter_gets_eownerdead(void **state)
{
    (void)state;
    run_async_case(FX_ASYNC_THREAD);
    run_async_case(FX_ASYNC_AUTO);
}

static void test_worker_wait_times_out_under_signals_while_the_worker_runs(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    fx_worker w;
    pid_t pid = start_worker(&w, 0, worker_exits_when_told, sh);
    struct pollfd p = {fx_worker_fd(&w), POLLIN, 0};
    assert_int_equal(poll(&p, 1, 0), 0);
    fx_worker_report rep;
    assert_int_equal(fx_worker_check(&w, &rep), EINPROGRESS);
    struct fxt_storm *s = fxt_storm_start(pthread_self());
    struct timespec d = in_ms(200);
    errno = 0;
    assert_int_equal(fx_worker_wait(&w, &d, &rep), ETIMEDOUT);
    assert_int_equal(errno, 0);
    assert_true(fxt_storm_stop(s) > 0);
    fxt_flag_set(&sh->go, 1);
    assert_int_equal(fx_worker_wait(&w, NULL, &rep), 0);
    assert_int_equal(poll(&p, 1, 0), 1);
    assert_int_equal(fxt_wait_child(pid, 10000), 0);
    assert_int_equal(fx_worker_detach(&w), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* A wait whose deadline is as far as fx_deadline_from(CLOCK_REALTIME,
 * {LONG_MAX, 0}) makes it (tv_sec near the largest time_t, beyond what
 * nanoseconds in an int64_t hold). */
struct far_wait {
    fx_worker *w;
    fx_worker_report rep;
    int r;
    pid_t tid;
};

static void *far_waiter(void *p)
{
    struct far_wait *f = p;
    struct timespec abs = {LONG_MAX, 0}, d;
    f->r = fx_deadline_from(CLOCK_REALTIME, &abs, &d) == 0 ? EINPROGRESS : -1;
    __atomic_store_n(&f->tid, fxt_gettid(), __ATOMIC_RELEASE);
    if (f->r == EINPROGRESS)
        f->r = fx_worker_wait(f->w, &d, &f->rep);
    return NULL;
}

static int64_t cpu_ns(clockid_t c)
{
    struct timespec t;
    assert_int_equal(clock_gettime(c, &t), 0);
    return fxt_ts_ns(&t);
}

/* It sleeps in ppoll, using no CPU, until the worker's exit wakes it; the
 * remaining time must not wrap into a negative timeout (a busy loop). */
static void test_worker_wait_with_a_far_deadline_sleeps_until_the_worker_exits(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    fx_worker w;
    pid_t pid = start_worker(&w, 0, worker_exits_when_told, sh);
    struct far_wait *f = fxt_arena(sizeof *f);
    f->w = &w;
    pthread_t t = fxt_thread(far_waiter, f);
    while (__atomic_load_n(&f->tid, __ATOMIC_ACQUIRE) == 0)
        sched_yield();
    clockid_t c;
    assert_int_equal(pthread_getcpuclockid(t, &c), 0);
    assert_true(fxt_wait_in_syscall(f->tid, SYS_ppoll, "poll", 5000));
    /* One check, then asleep: generous bounds (an emulator translates the
     * code as it first runs it); a spinning wait never sleeps at all. */
    int64_t cpu = cpu_ns(c);
    assert_true(cpu < 250 * FX_NSEC_PER_MSEC);
    assert_true(fxt_wait_in_syscall(f->tid, SYS_ppoll, "poll", 5000));
    assert_true(cpu_ns(c) - cpu < 10 * FX_NSEC_PER_MSEC);
    fxt_flag_set(&sh->go, 1);
    assert_true(fxt_join_timed(t, 10000, NULL));
    assert_int_equal(f->r, 0);
    assert_int_equal(f->rep.event, FX_WORKER_EXITED);
    assert_int_equal(fxt_wait_child(pid, 10000), 0);
    assert_int_equal(fx_worker_detach(&w), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* --- cancellation ------------------------------------------------------------------ */

enum { CALL_ATTACH, CALL_REFRESH, CALL_CHECK, CALL_WAIT, CALL_REAP, CALLS };

struct cancelled_call {
    fx_worker *w;
    pid_t pid;
    int which; /* CALL_* */
    int r;     /* what the call returned; -1 while it has not */
};

/* Calls c->which with a deferred cancellation pending: attach, refresh and
 * check are no cancellation points (they return, the next one acts); wait
 * and reap are, and act on it while they sleep. */
FXF_CANCELLED_FRAME static void *cancelled_call_main(void *p)
{
    struct cancelled_call *c = p;
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    pthread_cancel(pthread_self());
    pthread_setcancelstate(old, &old);
    fx_worker_report rep;
    switch (c->which) {
    case CALL_ATTACH:
        c->r = fx_worker_attach(c->w, c->pid);
        break;
    case CALL_REFRESH:
        c->r = fx_worker_refresh(c->w);
        break;
    case CALL_CHECK:
        c->r = fx_worker_check(c->w, &rep);
        break;
    case CALL_WAIT:
        c->r = fx_worker_wait(c->w, NULL, &rep);
        break;
    default:
        c->r = fx_worker_reap(c->w, NULL, NULL);
        break;
    }
    pthread_testcancel();
    return NULL;
}

static void *park_thread(void *p)
{
    fxt_flag_set(p, 1);
    park();
    return NULL;
}

/* Starts a second thread when told (go 1), for refresh to find; exits when
 * told again (go 2). */
static int worker_starts_a_thread_then_exits(void *p)
{
    struct shared *sh = p;
    pthread_t t;
    if (!fxt_flag_wait(&sh->go, 1, 60000) || pthread_create(&t, NULL, park_thread, &sh->held) != 0)
        return 13;
    return fxt_flag_wait(&sh->go, 2, 60000) ? 0 : 14;
}

/* The descriptors open in this process (0 to 1023). */
static int open_fds(void)
{
    int n = 0;
    for (int fd = 0; fd < 1024; fd++)
        n += fcntl(fd, F_GETFD) != -1;
    return n;
}

/* The supervisor, in a child (a lock left held would stop the test process
 * for good): for each call, a thread cancelled as above; then the list's
 * lock is free (the next call returns), the handle works and, once
 * detached, no descriptor is left open. */
static int supervise_cancelled_calls(void *p)
{
    struct shared *sh = p;
    for (int which = 0; which < CALLS; which++) {
        int code = 80 + 8 * which;
        int fds = open_fds();
        fx_worker w;
        FXT_CHILD_CHECK(fx_worker_prepare(&w, 0) == 0, code);
        __atomic_store_n(&sh->go, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&sh->held, 0, __ATOMIC_RELAXED);
        pid_t pid = fxt_fork(worker_starts_a_thread_then_exits, sh);
        FXT_CHILD_CHECK(pid > 0, code + 1);
        FXT_CHILD_CHECK(which == CALL_ATTACH || fx_worker_attach(&w, pid) == 0, code + 2);
        fxt_flag_set(&sh->go, 1);
        FXT_CHILD_CHECK(fxt_flag_wait(&sh->held, 1, 10000), code + 2);
        struct cancelled_call c = {&w, pid, which, -1};
        pthread_t t;
        FXT_CHILD_CHECK(pthread_create(&t, NULL, cancelled_call_main, &c) == 0, code + 3);
        void *ret = NULL;
        pthread_join(t, &ret);
        static const int want[CALLS] = {0, 0, EINPROGRESS, -1, -1};
        FXT_CHILD_CHECK(ret == PTHREAD_CANCELED && c.r == want[which], code + 4);
        fx_worker_report rep;
        FXT_CHILD_CHECK(fx_worker_check(&w, &rep) == EINPROGRESS, code + 5);
        fxt_flag_set(&sh->go, 2);
        FXT_CHILD_CHECK(fx_worker_wait(&w, NULL, &rep) == 0 && rep.event == FX_WORKER_EXITED,
                        code + 6);
        FXT_CHILD_CHECK(fxt_wait_child(pid, 10000) == 0 && fx_worker_detach(&w) == 0, code + 7);
        FXT_CHILD_CHECK(open_fds() == fds, code + 7);
    }
    return 0;
}

static void test_worker_calls_cancelled_leave_no_lock_held_and_no_descriptor_open(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    pid_t pid = fxt_fork(supervise_cancelled_calls, sh);
    assert_true(pid > 0);
    assert_int_equal(fxt_wait_child(pid, 30000), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* --- spawn and reap ------------------------------------------------------------------ */

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* Spawns fn as a probed worker (see probed_worker) with w: its PID. */
static pid_t spawn_worker(fx_worker *w, int flags, int (*fn)(void *), void *arg)
{
    probed_fn = fn;
    pid_t pid = -1;
    assert_int_equal(fx_worker_spawn(w, flags, probed_worker, arg, &pid), 0);
    assert_true(pid > 0);
    return pid;
}

/* The worker pid is still there, alive or a zombie nobody reaped. */
static bool unreaped(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
}

/* The worker pid has been reaped: it is no child of ours any more. */
static bool reaped(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == -1 && errno == ECHILD;
}

/* m was released by the supervisor: its next user recovers it. */
static void assert_recovers(fx_rmutex *m)
{
    assert_int_equal(fx_rmutex_trylock(m), EOWNERDEAD);
    assert_int_equal(fx_rmutex_consistent(m), 0);
    assert_int_equal(fx_rmutex_unlock(m), 0);
}

static int worker_lock_and_exit_7(void *p)
{
    struct shared *sh = p;
    if (fx_rmutex_lock(&sh->m) != 0)
        return 10;
    fxt_flag_set(&sh->held, 1);
    return 7; /* exits holding m */
}

static int count_and_exit(void *p)
{
    struct shared *sh = p;
    __atomic_fetch_add(&sh->calls, 1, __ATOMIC_RELAXED);
    return 0;
}

/* Spawned, killed holding a bound rmutex: reap releases it first, while the
 * zombie pins the PID (released, none unsure), then reaps, once. */
static void test_worker_spawned_and_killed_is_released_then_reaped_exactly_once(void **state)
{
    (void)state;
    int fds = open_fds();
    struct shared *sh = shared_new();
    fx_worker w;
    pid_t pid = spawn_worker(&w, 0, worker_lock_and_park, sh);
    assert_int_equal(fx_worker_bind_rmutex(&w, &sh->m), 0);
    assert_true(fxt_flag_wait(&sh->held, 1, 10000));
    assert_int_equal(fx_rmutex_owner(&sh->m), pid); /* fn ran in the child */
    /* Running: a reap with its deadline passed reaps nothing. */
    int status = -1;
    struct timespec now = fx_deadline_in(0);
    assert_int_equal(fx_worker_reap(&w, &now, &status), ETIMEDOUT);
    assert_int_equal(status, -1);
    assert_true(unreaped(pid));
    assert_int_equal(kill(pid, SIGKILL), 0);
    /* No check or wait before: reap runs the release itself. */
    assert_int_equal(fx_worker_reap(&w, NULL, &status), 0);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    assert_true(reaped(pid));
    fx_worker_report rep;
    assert_int_equal(fx_worker_check(&w, &rep), 0);
    assert_int_equal(rep.event, FX_WORKER_EXITED);
    assert_int_equal(rep.released, 1);
    assert_int_equal(rep.unsure + rep.ambiguous, 0); /* released while pinned */
    assert_recovers(&sh->m);
    /* Reaped once: nothing more to reap. */
    assert_int_equal(fx_worker_reap(&w, NULL, &status), ECHILD);
    assert_int_equal(fx_worker_wait(&w, NULL, &rep), 0);
    assert_int_equal(rep.released, 1);
    assert_int_equal(fx_worker_detach(&w), 0);
    assert_int_equal(open_fds(), fds);
    fxt_shared_free(sh, sizeof *sh);
}

/* Spawned, exits (status 7) holding a bound rmutex: released, then the
 * status reported by the reap. */
static void test_worker_spawned_that_exits_holding_rmutex_reports_its_status_after_the_release(
    void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    fx_worker w;
    pid_t pid = spawn_worker(&w, FX_WORKER_NOEXEC, worker_lock_and_exit_7, sh);
    assert_int_equal(fx_worker_bind_rmutex(&w, &sh->m), 0);
    int status = -1;
    assert_int_equal(fx_worker_reap(&w, NULL, &status), 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 7);
    assert_true(reaped(pid));
    fx_worker_report rep;
    assert_int_equal(fx_worker_check(&w, &rep), 0);
    assert_int_equal(rep.event, FX_WORKER_EXITED);
    assert_int_equal(rep.released, 1);
    assert_int_equal(rep.unsure + rep.ambiguous, 0);
    assert_recovers(&sh->m);
    assert_int_equal(fx_worker_detach(&w), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* Spawned, execs holding a bound rmutex: released at the exec, reaped only
 * once the exec'd program has exited. */
static void test_worker_spawned_that_execs_is_reaped_only_when_the_new_program_exits(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    fx_worker w;
    pid_t pid = spawn_worker(&w, 0, worker_lock_then_exec_itself, sh);
    assert_int_equal(fx_worker_bind_rmutex(&w, &sh->m), 0);
    assert_true(fxt_flag_wait(&sh->held, 1, 10000));
    fxt_flag_set(&sh->go, 1);
    fx_worker_report rep;
    assert_int_equal(fx_worker_wait(&w, NULL, &rep), 0);
    assert_int_equal(rep.event, FX_WORKER_EXECED);
    assert_int_equal(rep.released, 1);
    assert_recovers(&sh->m);
    struct timespec now = fx_deadline_in(0);
    assert_int_equal(fx_worker_reap(&w, &now, NULL), ETIMEDOUT);
    assert_runs_sleeper(pid);
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status = -1;
    assert_int_equal(fx_worker_reap(&w, NULL, &status), 0);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    assert_true(reaped(pid));
    assert_int_equal(fx_worker_check(&w, &rep), 0);
    assert_int_equal(rep.event, FX_WORKER_EXECED); /* the report repeats */
    assert_int_equal(rep.released, 1);
    assert_int_equal(fx_worker_detach(&w), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* Whether process pid holds a pidfd of process target (its fdinfo's Pid
 * line): 1 yes, 0 no, -1 when fdinfo shows no Pid line (Linux before 5.4). */
static int holds_pidfd_of(pid_t pid, pid_t target)
{
    char dir[64], path[512], buf[512], want[32];
    snprintf(dir, sizeof dir, "/proc/%d/fdinfo", (int)pid);
    snprintf(want, sizeof want, "\nPid:\t%d\n", (int)target);
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int found = -1;
    struct dirent *e;
    while (found != 1 && (e = readdir(d)) != NULL) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        if (strstr(buf, want) != NULL)
            found = 1;
        else if (strstr(buf, "\nPid:\t") != NULL)
            found = 0;
    }
    closedir(d);
    return found;
}

/* fn's first look: the supervisor (its parent) holds its pidfd already. */
static int worker_checks_it_is_watched(void *p)
{
    (void)p;
    return holds_pidfd_of(getppid(), getpid()) == 1 ? 0 : 30;
}

/* The child runs fn only once attach has opened its pidfd: no line of fn
 * runs unsupervised. */
static void test_worker_spawned_runs_fn_only_once_the_supervisor_watches_it(void **state)
{
    (void)state;
    int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
    assert_true(self >= 0);
    int shown = holds_pidfd_of(getpid(), getpid());
    close(self);
    if (shown != 1) {
        print_message("[  SKIP    ] /proc/<pid>/fdinfo shows no pidfd's Pid (Linux before 5.4)\n");
        skip();
    }
    fx_worker w;
    pid_t pid = -1;
    assert_int_equal(fx_worker_spawn(&w, 0, worker_checks_it_is_watched, NULL, &pid), 0);
    int status = -1;
    assert_int_equal(fx_worker_reap(&w, NULL, &status), 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(fx_worker_detach(&w), 0);
}

/* In a child: spawn fails (want), and leaves nothing: no descriptor, no
 * child (alive or zombie), fn never run, w not prepared. */
static int spawn_fails_leaving_nothing(struct shared *sh, int flags, int want, int code)
{
    int fds = open_fds();
    fx_worker w;
    pid_t pid = -5;
    int r = fx_worker_spawn(&w, flags, count_and_exit, sh, &pid);
    FXT_CHILD_CHECK(r == want || (want == EPERM && r == EINVAL), code); /* EINVAL: qemu-user */
    FXT_CHILD_CHECK(pid == -5, code + 1);
    FXT_CHILD_CHECK(open_fds() == fds, code + 2);
    siginfo_t si;
    FXT_CHILD_CHECK(waitid(P_ALL, 0, &si, WEXITED | WNOHANG) == -1 && errno == ECHILD, code + 3);
    FXT_CHILD_CHECK(__atomic_load_n(&sh->calls, __ATOMIC_RELAXED) == 0, code + 4);
    FXT_CHILD_CHECK(fx_worker_detach(&w) == EINVAL, code + 5);
    return 0;
}

/* The supervisor's attach fails after the fork (pidfd_open refused): the
 * child, held at the gate, is killed and reaped before fn runs. */
static int spawn_with_attach_refused(void *p)
{
    FXT_CHILD_CHECK(fxt_refuse_syscall(SYS_pidfd_open, ENOSYS, 0) == 0, 60);
    return spawn_fails_leaving_nothing(p, 0, ENOSYS, 61);
}

/* SIGCHLD ignored: no child is started. */
static int spawn_with_sigchld_ignored(void *p)
{
    FXT_CHILD_CHECK(signal(SIGCHLD, SIG_IGN) != SIG_ERR, 60);
    return spawn_fails_leaving_nothing(p, 0, ECHILD, 61);
}

/* A new PID namespace without the privilege: the clone fails. */
static int spawn_newpid_unprivileged(void *p)
{
    FXT_CHILD_CHECK(geteuid() != 0 || (setresgid(65534, 65534, 65534) == 0 &&
                                       setresuid(65534, 65534, 65534) == 0),
                    60);
    return spawn_fails_leaving_nothing(p, FX_WORKER_NEWPID, EPERM, 61);
}

static void test_worker_spawn_that_fails_leaves_no_child_no_zombie_and_no_descriptor(void **state)
{
    (void)state;
    struct shared *sh = shared_new();
    assert_int_equal(fxt_run_child(spawn_with_sigchld_ignored, sh), 0);
    assert_int_equal(fxt_run_child(spawn_newpid_unprivileged, sh), 0);
    fxt_require_seccomp();
    assert_int_equal(fxt_run_child(spawn_with_attach_refused, sh), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* FX_WORKER_NEWPID: the worker is PID 1 of a new namespace (a raw clone: no
 * robust list, its word PROBED); released through its TID there, reaped. */
static void test_worker_spawned_in_a_new_pid_namespace_is_released_and_reaped(void **state)
{
    (void)state;
    if (skip_unless_newpid())
        skip();
    struct shared *sh = shared_new();
    fx_worker w;
    pid_t pid = -1;
    assert_int_equal(fx_worker_spawn(&w, FX_WORKER_NEWPID, worker_lock_and_park, sh, &pid), 0);
    assert_int_equal(fx_worker_bind_rmutex(&w, &sh->m), 0);
    assert_true(fxt_flag_wait(&sh->held, 1, 10000));
    assert_int_equal(fx_rmutex_owner(&sh->m), 1);
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status = -1;
    assert_int_equal(fx_worker_reap(&w, NULL, &status), 0);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    fx_worker_report rep;
    assert_int_equal(fx_worker_check(&w, &rep), 0);
    assert_int_equal(rep.released, 1);
    assert_recovers(&sh->m);
    assert_int_equal(fx_worker_detach(&w), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* The handle is opaque storage of a size and alignment programs are built
 * with: pinned here and in src/worker.c. */
static void test_worker_handle_is_opaque_storage_of_pinned_size(void **state)
{
    (void)state;
    assert_int_equal(sizeof(fx_worker), 512);
    assert_int_equal(_Alignof(fx_worker), _Alignof(uint64_t));
}

/* --- bad input -------------------------------------------------------------------- */

static void test_worker_bad_input_gives_einval_a_full_table_enospc_a_non_child_echild(void **state)
{
    (void)state;
    fx_worker w;
    memset(&w, 0x5a, sizeof w); /* never prepared */
    assert_int_equal(fx_worker_attach(&w, getpid()), EINVAL);
    assert_int_equal(fx_worker_check(&w, NULL), EINVAL);
    assert_int_equal(fx_worker_wait(&w, NULL, NULL), EINVAL);
    assert_int_equal(fx_worker_fd(&w), -EINVAL);
    assert_int_equal(fx_worker_refresh(&w), EINVAL);
    assert_int_equal(fx_worker_detach(&w), EINVAL);
    assert_int_equal(fx_worker_prepare(NULL, 0), EINVAL);
    assert_int_equal(fx_worker_prepare(&w, 4), EINVAL);
    assert_int_equal(fx_worker_attach(NULL, 1), EINVAL);
    assert_int_equal(fx_worker_detach(NULL), EINVAL);
    assert_int_equal(fx_worker_fd(NULL), -EINVAL);
    assert_int_equal(fx_worker_reap(&w, NULL, NULL), EINVAL);
    assert_int_equal(fx_worker_reap(NULL, NULL, NULL), EINVAL);
    assert_int_equal(fx_worker_spawn(NULL, 0, count_and_exit, NULL, NULL), EINVAL);
    assert_int_equal(fx_worker_spawn(&w, 0, NULL, NULL, NULL), EINVAL);
    assert_int_equal(fx_worker_spawn(&w, 4, count_and_exit, NULL, NULL), EINVAL);

    assert_int_equal(fx_worker_prepare(&w, 0), 0);
    fx_rmutex m = FX_RMUTEX_INIT;
    assert_int_equal(fx_worker_bind_rmutex(&w, &m), EINVAL); /* not attached */
    assert_int_equal(fx_worker_reap(&w, NULL, NULL), EINVAL);    /* not attached */
    assert_int_equal(fx_worker_attach(&w, 0), EINVAL);
    assert_int_equal(fx_worker_attach(&w, -1), EINVAL);
    assert_int_equal(fx_worker_attach(&w, 1), ECHILD); /* init: not our child */
    assert_int_equal(fx_worker_detach(&w), 0);
    assert_int_equal(fx_worker_detach(&w), EINVAL);

    struct shared *sh = shared_new();
    pid_t pid = start_worker(&w, FX_WORKER_NOEXEC, worker_exits_when_told, sh);
    assert_int_equal(fx_worker_attach(&w, pid), EINVAL); /* twice */
    assert_int_equal(fx_worker_prepare(&w, 0), EBUSY);  /* attached: detach first */
    assert_int_equal(fx_worker_spawn(&w, 0, count_and_exit, sh, NULL), EBUSY);
    int32_t raw[3];
    assert_int_equal(fx_worker_bind_rmutex(&w, NULL), EINVAL);
    assert_int_equal(fx_worker_bind_rmutex(&w, (fx_rmutex *)((char *)raw + 1)), EINVAL);
    assert_int_equal(fx_worker_bind_once(&w, NULL), EINVAL);
    assert_int_equal(fx_worker_bind_once(&w, (fx_once *)((char *)raw + 2)), EINVAL);
    fx_rmutex *ms = fxt_arena(FX_WORKER_BIND_MAX * sizeof *ms);
    for (int i = 0; i < FX_WORKER_BIND_MAX; i++)
        assert_int_equal(fx_worker_bind_rmutex(&w, &ms[i]), 0);
    assert_int_equal(fx_worker_bind_rmutex(&w, &ms[0]), 0); /* already bound */
    assert_int_equal(fx_worker_bind_rmutex(&w, &m), ENOSPC);
    fx_once o = FX_ONCE_INIT;
    assert_int_equal(fx_worker_bind_once(&w, &o), ENOSPC);
    struct timespec bad = {0, 1000000000L};
    assert_int_equal(fx_worker_wait(&w, &bad, NULL), EINVAL);
    assert_int_equal(fx_worker_reap(&w, &bad, NULL), EINVAL);
    fxt_flag_set(&sh->go, 1);
    fx_worker_report rep;
    assert_int_equal(fx_worker_wait(&w, NULL, &rep), 0);
    assert_int_equal(rep.released, 0);
    assert_int_equal(fx_worker_wait(&w, &bad, NULL), 0); /* gone: no wait, no check */
    assert_int_equal(fx_worker_bind_rmutex(&w, &m), ESRCH);
    assert_int_equal(fx_worker_refresh(&w), ESRCH);
    assert_int_equal(fx_worker_reap(&w, &bad, NULL), 0); /* exited: no wait */
    assert_int_equal(fx_worker_reap(&w, NULL, NULL), ECHILD);
    assert_true(reaped(pid));
    assert_int_equal(fx_worker_detach(&w), 0);
    assert_int_equal(fx_worker_check(&w, NULL), EINVAL);
    fxt_shared_free(sh, sizeof *sh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worker_killed_holding_rmutex_is_released_to_a_blind_waiter_within_100ms),
        cmocka_unit_test(test_worker_thread_found_by_refresh_holding_rmutex_is_released_at_exit),
        cmocka_unit_test(test_worker_killed_inside_once_initialiser_lets_a_blind_waiter_run_it),
        cmocka_unit_test(test_worker_death_leaves_a_bound_rmutex_held_by_another_live_process),
        cmocka_unit_test(test_worker_reaped_before_the_check_releases_nothing),
        cmocka_unit_test(test_worker_main_thread_killed_by_another_threads_exec_is_released_within_100ms),
        cmocka_unit_test(test_worker_owner_thread_that_execs_is_released_within_100ms),
        cmocka_unit_test(test_worker_exit_is_seen_while_its_forked_child_keeps_the_exec_pipe),
        cmocka_unit_test(test_worker_detaching_its_copy_of_the_handle_is_not_taken_for_an_exec),
        cmocka_unit_test(test_worker_that_redirects_stdio_of_a_supervisor_without_std_fds_is_not_execed),
        cmocka_unit_test(test_worker_in_new_pid_namespace_holding_rmutex_is_released_within_100ms),
        cmocka_unit_test(test_two_live_workers_with_the_same_namespace_tid_make_the_release_fail_safe),
        cmocka_unit_test(test_worker_exit_keeps_a_kernel_tracked_lock_of_another_namespaces_pid_1),
        cmocka_unit_test(test_worker_newpid_is_attached_under_another_pid_namespaces_proc),
        cmocka_unit_test(test_worker_with_pid_1_like_its_supervisor_detaching_its_copy_is_not_an_exec),
        cmocka_unit_test(test_event_loop_hears_the_worker_fd_and_an_async_waiter_gets_eownerdead),
        cmocka_unit_test(test_worker_wait_times_out_under_signals_while_the_worker_runs),
        cmocka_unit_test(test_worker_wait_with_a_far_deadline_sleeps_until_the_worker_exits),
        cmocka_unit_test(test_worker_calls_cancelled_leave_no_lock_held_and_no_descriptor_open),
        cmocka_unit_test(test_worker_spawned_and_killed_is_released_then_reaped_exactly_once),
        cmocka_unit_test(test_worker_spawned_that_exits_holding_rmutex_reports_its_status_after_the_release),
        cmocka_unit_test(test_worker_spawned_that_execs_is_reaped_only_when_the_new_program_exits),
        cmocka_unit_test(test_worker_spawned_runs_fn_only_once_the_supervisor_watches_it),
        cmocka_unit_test(test_worker_spawn_that_fails_leaves_no_child_no_zombie_and_no_descriptor),
        cmocka_unit_test(test_worker_spawned_in_a_new_pid_namespace_is_released_and_reaped),
        cmocka_unit_test(test_worker_handle_is_opaque_storage_of_pinned_size),
        cmocka_unit_test(test_worker_bad_input_gives_einval_a_full_table_enospc_a_non_child_echild),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
