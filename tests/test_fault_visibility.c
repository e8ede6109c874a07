/*
 * tests/test_fault_visibility.c - environments that hide a live owner from the
 * liveness probe (issue 18): never two owners, never a second initialiser.
 *
 * An owner (fx_rmutex holder, or a thread inside an fx_once initialiser) lives
 * in one process, a waiter in another; each applies its environment (another
 * UID, a non-dumpable process, a seccomp filter refusing process_vm_readv,
 * /proc with hidepid or not mounted in a private mount namespace, other PID or
 * user namespaces) and then:
 *   - fx_rmutex: a timedlock with a deadline well past several liveness checks
 *     gets ETIMEDOUT (not EOWNERDEAD) and a trylock EBUSY while the owner
 *     sleeps holding the mutex; the owner then unlocks and the waiter's lock
 *     gets 0;
 *   - fx_once: a caller waits through several liveness checks without running
 *     the initialiser; when the owner's initialiser returns, the caller
 *     returns 0 and the initialiser ran once.
 * Root-only cases skip with a message without root. Also here: no lock call
 * is a cancellation point (a pending deferred cancel does not act inside
 * trylock, lock, timedlock or fx_cond_wait_rmutex's re-lock, where the
 * probe runs), and running out of file descriptors changes no verdict.
 */
#define _GNU_SOURCE
#include "fxtest.h"
#include "fxfault.h" /* FXF_CANCELLED_FRAME */
#include "../src/internal/probe_periods.h"

#include <errno.h>
#include <futexsync.h>
#include <futexsync/layout.h>
#include <grp.h>
#include <linux/audit.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>


#define OWNER_UID 4242
#define WAITER_UID 4243

/* The shared page. */
struct vis {
    fx_rmutex m;
    fx_once o;
    fx_cond c;
    int32_t held;    /* the owner holds m / runs the initialiser */
    int32_t release; /* the owner may let go */
    int32_t runs;    /* initialiser runs */
    int32_t tid;     /* a thread's TID, where a test needs it */
    int32_t result;  /* a result recorded before a cancellation acts */
    int32_t relock;  /* the cancelled thread is back from the cond wait */
};

static struct vis *vis_new(void)
{
    return fxt_shared_alloc(sizeof(struct vis));
}

static bool is_root(void)
{
    if (geteuid() == 0)
        return true;
    print_message("skipped: needs root\n");
    return false;
}

/* Environments ---------------------------------------------------------------- */

typedef int (*setup_fn)(void);

static int become(uid_t uid)
{
    if (setgroups(0, NULL) != 0 || setgid(uid) != 0 || setuid(uid) != 0)
        return 60;
    return 0;
}

static int as_owner_uid(void)
{
    return become(OWNER_UID);
}

static int as_waiter_uid(void)
{
    return become(WAITER_UID);
}

static int as_owner_uid_nodump(void)
{
    int r = become(OWNER_UID);
    if (r == 0 && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        r = 61;
    return r;
}

/* process_vm_readv answers `err` to this process and its children. */
static int refuse_vm_readv(int err)
{
    return fxt_refuse_syscall(SYS_process_vm_readv, err, 0) == 0 ? 0 : 63;
}

static int vm_readv_eperm(void)
{
    return refuse_vm_readv(EPERM);
}

static int vm_readv_enosys(void)
{
    return refuse_vm_readv(ENOSYS);
}

/* A private mount namespace whose /proc is a new instance mounted with
 * `options`, or none when options is NULL; then the waiter's UID. */
static int private_proc(const char *options)
{
    if (unshare(CLONE_NEWNS) != 0)
        return 64;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return 65;
    if (umount2("/proc", MNT_DETACH) != 0)
        return 66;
    if (options != NULL &&
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, options) != 0)
        return 67;
    return as_waiter_uid();
}

static int proc_hidepid1(void)
{
    return private_proc("hidepid=1");
}

static int proc_hidepid2(void)
{
    return private_proc("hidepid=2");
}

static int proc_unmounted(void)
{
    return private_proc(NULL);
}

static int new_user_ns(void)
{
    return unshare(CLONE_NEWUSER) == 0 ? 0 : 68;
}

static int user_ns_probe_child(void *unused)
{
    (void)unused;
    return unshare(CLONE_NEWUSER) == 0 ? 0 : errno;
}

/* Whether a forked child can make a user namespace: the kernel refuses it
 * to a multi-threaded process (EINVAL; a sanitizer's runtime thread makes
 * every child one) and where unprivileged or all user namespaces are
 * disabled (EPERM, ENOSPC). Asked at run time; a refusal skips the case. */
static bool user_ns_available(void)
{
    int e = fxt_run_child(user_ns_probe_child, NULL);
    if (e == 0)
        return true;
    print_message("skipped: a forked child cannot unshare(CLONE_NEWUSER): %s\n", strerror(e));
    return false;
}

/* The owner and the waiter ---------------------------------------------------- */

/* Locks m, records its TID and dies holding it. */
static int lock_and_die_in(struct vis *v)
{
    if (fx_rmutex_lock(&v->m) != 0)
        return 1;
    fxt_flag_set(&v->tid, fxt_gettid());
    raise(SIGKILL);
    return 2;
}

static int lock_and_die(void *p)
{
    return lock_and_die_in(p);
}

static struct vis *the_vis; /* in each forked process: the shared page */

static void owner_initialiser(void *arg)
{
    struct vis *v = arg;
    __atomic_fetch_add(&v->runs, 1, __ATOMIC_SEQ_CST);
    fxt_flag_set(&v->held, 1);
    (void)fxt_flag_wait(&v->release, 1, 60000);
}

static void waiter_initialiser(void *arg)
{
    struct vis *v = arg;
    __atomic_fetch_add(&v->runs, 1, __ATOMIC_SEQ_CST);
}

static int owner_rmutex(void)
{
    struct vis *v = the_vis;
    if (fx_rmutex_lock(&v->m) != 0)
        return 20;
    fxt_flag_set(&v->held, 1);
    if (!fxt_flag_wait(&v->release, 1, 60000))
        return 21;
    return fx_rmutex_unlock(&v->m) == 0 ? 0 : 22;
}

static int owner_once(void)
{
    struct vis *v = the_vis;
    return fx_once_call(&v->o, owner_initialiser, v) == 0 ? 0 : 23;
}

/* While the owner holds m: ETIMEDOUT after many liveness checks, EBUSY; then
 * the owner's unlock lets the waiter in. */
static int waiter_rmutex(void)
{
    struct vis *v = the_vis;
    if (!fxt_flag_wait(&v->held, 1, 30000))
        return 30;
    struct timespec d = fx_deadline_in(1200 * FX_NSEC_PER_MSEC);
    int r = fx_rmutex_timedlock(&v->m, &d);
    if (r != ETIMEDOUT)
        return r == EOWNERDEAD ? 31 : 32; /* 31: a live owner judged dead */
    r = fx_rmutex_trylock(&v->m);
    if (r != EBUSY)
        return r == EOWNERDEAD ? 33 : 34;
    fxt_flag_set(&v->release, 1);
    r = fx_rmutex_lock(&v->m);
    if (r != 0)
        return r == EOWNERDEAD ? 35 : 36;
    return fx_rmutex_unlock(&v->m) == 0 ? 0 : 37;
}

static void *once_caller(void *arg)
{
    struct vis *v = arg;
    return (void *)(intptr_t)fx_once_call(&v->o, waiter_initialiser, v);
}

/* While the owner runs the initialiser: callers wait through many liveness
 * checks and never run it; it ran once when the owner's returned. */
static int waiter_once(void)
{
    struct vis *v = the_vis;
    if (!fxt_flag_wait(&v->held, 1, 30000))
        return 40;
    pthread_t t;
    if (pthread_create(&t, NULL, once_caller, v) != 0)
        return 41;
    struct timespec pause = {0, 8 * FXI_ONCE_CHECK_MS * 1000000L};
    nanosleep(&pause, NULL); /* eight liveness checks of the caller */
    int runs = __atomic_load_n(&v->runs, __ATOMIC_SEQ_CST);
    fxt_flag_set(&v->release, 1);
    void *ret;
    if (pthread_join(t, &ret) != 0)
        return 42;
    if (runs != 1)
        return 43; /* the initialiser ran a second time while the first ran */
    if ((intptr_t)ret != 0)
        return 44;
    return __atomic_load_n(&v->runs, __ATOMIC_SEQ_CST) == 1 ? 0 : 45;
}

/* How a role's process is started: in the test's namespaces, or as the
 * second process of a new PID namespace (TID 2 there: its number names
 * another task, or none, in the test's namespace). */
enum place { HERE, NEW_PIDNS };

struct role {
    setup_fn setup; /* or NULL */
    int (*body)(void);
    enum place place;
};

static int role_run(const struct role *r)
{
    if (r->setup != NULL) {
        int e = r->setup();
        if (e != 0)
            return e;
    }
    return r->body();
}

static int role_child(void *p)
{
    const struct role *r = p;
    if (r->place == HERE)
        return role_run(r);
    /* This process stays outside; its first child is the namespace's init
     * (PID 1), which runs the role in its own child (PID 2). */
    if (unshare(CLONE_NEWPID) != 0)
        return 70;
    pid_t init = fork();
    if (init < 0)
        return 71;
    if (init == 0) {
        pid_t c = fork();
        if (c < 0)
            _exit(72);
        if (c == 0)
            _exit(role_run(r));
        int st;
        while (waitpid(c, &st, 0) < 0 && errno == EINTR) {
        }
        _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    }
    int st;
    while (waitpid(init, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Runs the owner and the waiter; asserts that both succeeded. */
static void run_pair(struct vis *v, struct role owner, struct role waiter)
{
    the_vis = v;
    pid_t o = fxt_fork(role_child, &owner);
    pid_t w = fxt_fork(role_child, &waiter);
    int ws = fxt_wait_child(w, 60000);
    fxt_flag_set(&v->release, 1); /* whatever the waiter did */
    int os = fxt_wait_child(o, 60000);
    assert_int_equal(ws, 0);
    assert_int_equal(os, 0);
}

static void rmutex_case(setup_fn owner_setup, enum place op, setup_fn waiter_setup,
                        enum place wp)
{
    struct vis *v = vis_new();
    run_pair(v, (struct role){owner_setup, owner_rmutex, op},
             (struct role){waiter_setup, waiter_rmutex, wp});
    assert_int_equal(fx_rmutex_owner(&v->m), 0);
    fxt_shared_free(v, sizeof *v);
}

static void once_case(setup_fn owner_setup, enum place op, setup_fn waiter_setup,
                      enum place wp)
{
    struct vis *v = vis_new();
    run_pair(v, (struct role){owner_setup, owner_once, op},
             (struct role){waiter_setup, waiter_once, wp});
    assert_int_equal(v->o.state, FX_ONCE_DONE);
    assert_int_equal(v->runs, 1);
    fxt_shared_free(v, sizeof *v);
}

/* The matrix ------------------------------------------------------------------ */

static void rmutex_owner_of_another_uid_is_not_judged_dead(void **state)
{
    (void)state;
    if (is_root())
        rmutex_case(as_owner_uid, HERE, as_waiter_uid, HERE);
}

static void once_initialiser_of_another_uid_is_not_run_twice(void **state)
{
    (void)state;
    if (is_root())
        once_case(as_owner_uid, HERE, as_waiter_uid, HERE);
}

static void rmutex_nondumpable_owner_of_another_uid_is_not_judged_dead(void **state)
{
    (void)state;
    if (is_root())
        rmutex_case(as_owner_uid_nodump, HERE, as_waiter_uid, HERE);
}

static void once_nondumpable_initialiser_of_another_uid_is_not_run_twice(void **state)
{
    (void)state;
    if (is_root())
        once_case(as_owner_uid_nodump, HERE, as_waiter_uid, HERE);
}

static void rmutex_owner_is_not_judged_dead_when_seccomp_refuses_vm_readv_eperm(void **state)
{
    (void)state;
    fxt_require_seccomp();
    rmutex_case(NULL, HERE, vm_readv_eperm, HERE);
}

static void rmutex_owner_is_not_judged_dead_when_seccomp_refuses_vm_readv_enosys(void **state)
{
    (void)state;
    fxt_require_seccomp();
    rmutex_case(NULL, HERE, vm_readv_enosys, HERE);
}

static void once_initialiser_is_not_run_twice_when_seccomp_refuses_vm_readv_eperm(void **state)
{
    (void)state;
    fxt_require_seccomp();
    once_case(NULL, HERE, vm_readv_eperm, HERE);
}

static void once_initialiser_is_not_run_twice_when_seccomp_refuses_vm_readv_enosys(void **state)
{
    (void)state;
    fxt_require_seccomp();
    once_case(NULL, HERE, vm_readv_enosys, HERE);
}

static void rmutex_owner_is_not_judged_dead_under_proc_hidepid1(void **state)
{
    (void)state;
    if (is_root())
        rmutex_case(as_owner_uid, HERE, proc_hidepid1, HERE);
}

static void rmutex_owner_is_not_judged_dead_under_proc_hidepid2(void **state)
{
    (void)state;
    if (is_root())
        rmutex_case(as_owner_uid, HERE, proc_hidepid2, HERE);
}

static void rmutex_owner_is_not_judged_dead_without_proc(void **state)
{
    (void)state;
    if (is_root())
        rmutex_case(as_owner_uid, HERE, proc_unmounted, HERE);
}

static void once_initialiser_is_not_run_twice_under_proc_hidepid1(void **state)
{
    (void)state;
    if (is_root())
        once_case(as_owner_uid, HERE, proc_hidepid1, HERE);
}

static void once_initialiser_is_not_run_twice_under_proc_hidepid2(void **state)
{
    (void)state;
    if (is_root())
        once_case(as_owner_uid, HERE, proc_hidepid2, HERE);
}

static void once_initialiser_is_not_run_twice_without_proc(void **state)
{
    (void)state;
    if (is_root())
        once_case(as_owner_uid, HERE, proc_unmounted, HERE);
}

static void rmutex_owner_in_a_user_namespace_is_not_judged_dead(void **state)
{
    (void)state;
    if (is_root() && user_ns_available())
        rmutex_case(new_user_ns, HERE, NULL, HERE);
}

static void rmutex_waiter_in_a_user_namespace_does_not_judge_the_owner_dead(void **state)
{
    (void)state;
    if (is_root() && user_ns_available())
        rmutex_case(NULL, HERE, new_user_ns, HERE);
}

static void once_initialiser_and_caller_in_different_user_namespaces_run_it_once(void **state)
{
    (void)state;
    if (is_root() && user_ns_available()) {
        once_case(new_user_ns, HERE, NULL, HERE);
        once_case(NULL, HERE, new_user_ns, HERE);
    }
}

/* PID namespaces: a TID written in one namespace names another task, or
 * none, in the other; the probe trusts ESRCH only between processes that
 * proved they run in the initial one. */

static void rmutex_owner_in_the_initial_pid_namespace_is_not_judged_dead_from_a_child_one(
    void **state)
{
    (void)state;
    if (is_root())
        rmutex_case(NULL, HERE, NULL, NEW_PIDNS);
}

static void rmutex_owner_in_a_child_pid_namespace_is_not_judged_dead_from_the_initial_one(
    void **state)
{
    (void)state;
    if (is_root())
        rmutex_case(NULL, NEW_PIDNS, NULL, HERE);
}

static void rmutex_owner_in_a_sibling_pid_namespace_is_not_judged_dead(void **state)
{
    (void)state;
    if (is_root())
        rmutex_case(NULL, NEW_PIDNS, NULL, NEW_PIDNS);
}

static void once_initialiser_in_another_pid_namespace_is_not_run_twice(void **state)
{
    (void)state;
    if (is_root()) {
        once_case(NULL, HERE, NULL, NEW_PIDNS);
        once_case(NULL, NEW_PIDNS, NULL, HERE);
        once_case(NULL, NEW_PIDNS, NULL, NEW_PIDNS);
    }
}

/* Inside one nested PID namespace (a container) the kernel reports the
 * death: the owner's robust list marks the word at its SIGKILL, and the
 * waiter there takes the mutex with EOWNERDEAD (tests/test_owner_death.c
 * holds the whole matrix against glibc's robust mutex). */
static int nested_dead_owner(void)
{
    struct vis *v = the_vis;
    pid_t o = fork();
    if (o < 0)
        return 80;
    if (o == 0)
        _exit(lock_and_die_in(v));
    int st;
    while (waitpid(o, &st, 0) < 0 && errno == EINTR) {
    }
    FXT_CHILD_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, 81); /* reaped: gone */
    FXT_CHILD_CHECK(fx_rmutex_owner(&v->m) == 0, 82); /* marked ORPHANED */
    struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_SEC);
    int r = fx_rmutex_timedlock(&v->m, &d);
    FXT_CHILD_CHECK(r == EOWNERDEAD, 86);
    FXT_CHILD_CHECK(fx_rmutex_consistent(&v->m) == 0 && fx_rmutex_unlock(&v->m) == 0, 87);
    return 0;
}

static void rmutex_dead_owner_in_a_nested_pid_namespace_is_recovered(void **state)
{
    (void)state;
    if (!is_root() || !fxt_rmutex_robust())
        return;
    struct vis *v = vis_new();
    the_vis = v;
    struct role nested = {NULL, nested_dead_owner, NEW_PIDNS};
    assert_int_equal(fxt_run_child(role_child, &nested), 0);
    fxt_shared_free(v, sizeof *v);
}

/* Positive cases: the probe still recovers a dead owner where it can tell. */


static int waiter_recovers(void *p)
{
    int e = vm_readv_eperm();
    if (e != 0)
        return e;
    struct vis *v = p;
    int r = fx_rmutex_lock(&v->m);
    if (r != EOWNERDEAD)
        return 10 + r;
    if (fx_rmutex_consistent(&v->m) != 0 || fx_rmutex_unlock(&v->m) != 0)
        return 3;
    return 0;
}

static void rmutex_dead_owner_is_recovered_when_seccomp_refuses_vm_readv(void **state)
{
    (void)state;
    fxt_require_seccomp();
    struct vis *v = vis_new();
    assert_int_equal(fxt_run_child(lock_and_die, v), 128 + SIGKILL); /* reaped */
    assert_int_equal(fxt_run_child(waiter_recovers, v), 0);
    fxt_shared_free(v, sizeof *v);
}

/* Without /proc, a process learns that it runs in the initial PID namespace
 * from a pidfd of itself (Linux 6.11): a dead owner is still recovered. */
static bool pidfd_knows_the_pid_namespace(void)
{
    int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (fd < 0)
        return false;
    int ns = ioctl(fd, _IO(0xFF, 5) /* PIDFD_GET_PID_NAMESPACE */, 0);
    close(fd);
    if (ns < 0)
        return false;
    close(ns);
    return true;
}

static int waiter_without_proc_recovers(void *p)
{
    /* Forked after /proc is gone: the child learns its namespace afresh
     * (the fork epoch's page is wiped), from the pidfd alone. */
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        umount2("/proc", MNT_DETACH) != 0)
        return 1;
    if (access("/proc/self", F_OK) == 0)
        return 2;
    pid_t c = fork();
    if (c < 0)
        return 3;
    if (c == 0) {
        struct vis *v = p;
        int r = fx_rmutex_lock(&v->m);
        if (r != EOWNERDEAD)
            _exit(10 + r);
        _exit(fx_rmutex_consistent(&v->m) == 0 && fx_rmutex_unlock(&v->m) == 0 ? 0 : 4);
    }
    int st;
    while (waitpid(c, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void rmutex_dead_owner_is_recovered_without_proc(void **state)
{
    (void)state;
    if (!is_root())
        return;
    if (!pidfd_knows_the_pid_namespace()) {
        print_message("skipped: no PIDFD_GET_PID_NAMESPACE (Linux < 6.11)\n");
        return;
    }
    struct vis *v = vis_new();
    assert_int_equal(fxt_run_child(lock_and_die, v), 128 + SIGKILL);
    assert_int_equal(fxt_run_child(waiter_without_proc_recovers, v), 0);
    fxt_shared_free(v, sizeof *v);
}

/* Cancellation ------------------------------------------------------------------ */

/* A deferred cancel pending across the lock calls: none acts on it (they are
 * not cancellation points); pthread_testcancel after them does. The owner is
 * a killed, reaped process and process_vm_readv is refused, so each call
 * reaches the probe's fallback (on main: open() of /proc). */
FXF_CANCELLED_FRAME static void *cancel_across_locks(void *p)
{
    struct vis *v = p;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    pthread_cancel(pthread_self());
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
    int r = fx_rmutex_trylock(&v->m);
    int ok = r == EOWNERDEAD && fx_rmutex_consistent(&v->m) == 0 && fx_rmutex_unlock(&v->m) == 0;
    /* The owner dies again, for lock and timedlock. */
    struct timespec d = fx_deadline_in(5 * FX_NSEC_PER_SEC);
    for (int i = 0; ok && i < 2; i++) {
        /* waitpid is a cancellation point: not the call under test. */
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
        if (fxt_run_child(lock_and_die, v) != 128 + SIGKILL)
            ok = 0;
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
        r = i == 0 ? fx_rmutex_lock(&v->m) : fx_rmutex_timedlock(&v->m, &d);
        ok = ok && r == EOWNERDEAD && fx_rmutex_consistent(&v->m) == 0 &&
             fx_rmutex_unlock(&v->m) == 0;
    }
    v->result = ok ? 1 : 2;
    pthread_testcancel();
    return NULL;
}

static int cancel_child(void *p)
{
    struct vis *v = p;
    int e = vm_readv_eperm();
    if (e != 0)
        return e;
    if (fxt_run_child(lock_and_die, v) != 128 + SIGKILL)
        return 1;
    pthread_t t;
    if (pthread_create(&t, NULL, cancel_across_locks, v) != 0)
        return 2;
    void *ret;
    if (pthread_join(t, &ret) != 0)
        return 3;
    FXT_CHILD_CHECK(v->result != 0, 4); /* 4: cancelled inside a lock call */
    FXT_CHILD_CHECK(v->result == 1, 5);
    FXT_CHILD_CHECK(ret == PTHREAD_CANCELED, 6);
    return 0;
}

static void rmutex_lock_calls_do_not_act_on_a_pending_cancel(void **state)
{
    (void)state;
    fxt_require_seccomp();
    struct vis *v = vis_new();
    assert_int_equal(fxt_run_child(cancel_child, v), 0);
    fxt_shared_free(v, sizeof *v);
}

/* fx_cond_wait_rmutex: the cancel arrives while the waiter re-locks m, whose
 * owner (another process) then dies: the re-lock is not a cancellation point,
 * so the wait returns EOWNERDEAD with m held, and only then does the cancel
 * act. */
static void relock_cleanup(void *p)
{
    struct vis *v = p;
    if (v->relock == 0)
        v->result = 3; /* cancelled inside the wait's re-lock */
}

FXF_CANCELLED_FRAME static void *cond_waiter(void *p)
{
    struct vis *v = p;
    fxt_flag_set(&v->tid, fxt_gettid());
    if (fx_rmutex_lock(&v->m) != 0) {
        v->result = 4;
        return NULL;
    }
    fxt_flag_set(&v->held, 1);
    int r;
    pthread_cleanup_push(relock_cleanup, v);
    r = fx_cond_wait_rmutex(&v->c, &v->m);
    v->relock = 1;
    pthread_cleanup_pop(0);
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    if (r == EOWNERDEAD && fx_rmutex_consistent(&v->m) == 0 && fx_rmutex_unlock(&v->m) == 0)
        v->result = 1;
    else
        v->result = 10 + r;
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
    pthread_testcancel();
    return NULL;
}

/* Takes m once the waiter sleeps on the cond, signals it, and holds m until
 * killed. */
static int cond_owner(void *p)
{
    struct vis *v = p;
    if (!fxt_flag_wait(&v->held, 1, 30000))
        return 1;
    if (fx_rmutex_lock(&v->m) != 0) /* granted once the waiter is in the wait */
        return 2;
    if (fx_cond_signal(&v->c) != 0)
        return 3;
    fxt_flag_set(&v->release, 1);
    for (;;)
        pause();
}

static int cond_cancel_child(void *p)
{
    struct vis *v = p;
    int e = vm_readv_eperm();
    if (e != 0)
        return e;
    pid_t o = fxt_fork(cond_owner, v);
    pthread_t t;
    if (pthread_create(&t, NULL, cond_waiter, v) != 0)
        return 1;
    if (!fxt_flag_wait(&v->release, 1, 30000))
        return 2;
    /* The waiter, signalled, sleeps in the re-lock on m's word. */
    if (!fxt_wait_asleep(__atomic_load_n(&v->tid, __ATOMIC_ACQUIRE), &v->m.owner, 30000))
        return 3;
    pthread_cancel(t);
    kill(o, SIGKILL);
    if (fxt_wait_child(o, 30000) != 128 + SIGKILL) /* reaped: ESRCH */
        return 4;
    void *ret;
    if (pthread_join(t, &ret) != 0)
        return 5;
    FXT_CHILD_CHECK(v->result != 3, 6); /* 6: cancelled inside the re-lock */
    FXT_CHILD_CHECK(v->result == 1, 7);
    FXT_CHILD_CHECK(ret == PTHREAD_CANCELED, 8);
    FXT_CHILD_CHECK(fx_rmutex_owner(&v->m) == 0, 9);
    return 0;
}

static void cond_wait_rmutex_relock_does_not_act_on_a_pending_cancel(void **state)
{
    (void)state;
    fxt_require_seccomp();
    struct vis *v = vis_new();
    assert_int_equal(fxt_run_child(cond_cancel_child, v), 0);
    fxt_shared_free(v, sizeof *v);
}

/* File descriptors ----------------------------------------------------------------- */

/* Out of file descriptors and with process_vm_readv refused: a live owner
 * stays alive, a dead one is recovered. */
static int no_fd_waiter(void *p)
{
    struct vis *v = p;
    int e = vm_readv_eperm();
    if (e != 0)
        return e;
    struct rlimit rl = {0, 0};
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1;
    if (!fxt_flag_wait(&v->held, 1, 30000))
        return 2;
    struct timespec d = fx_deadline_in(300 * FX_NSEC_PER_MSEC);
    int r = fx_rmutex_timedlock(&v->m, &d);
    if (r != ETIMEDOUT)
        return 10 + r;
    fxt_flag_set(&v->release, 1); /* the owner now dies holding m */
    r = fx_rmutex_lock(&v->m);
    if (r != EOWNERDEAD)
        return 50 + r;
    return fx_rmutex_consistent(&v->m) == 0 && fx_rmutex_unlock(&v->m) == 0 ? 0 : 3;
}

static int hold_then_die(void *p)
{
    struct vis *v = p;
    if (fx_rmutex_lock(&v->m) != 0)
        return 1;
    fxt_flag_set(&v->held, 1);
    if (!fxt_flag_wait(&v->release, 1, 60000))
        return 2;
    raise(SIGKILL);
    return 3;
}

static void rmutex_verdicts_do_not_change_without_file_descriptors(void **state)
{
    (void)state;
    fxt_require_seccomp();
    struct vis *v = vis_new();
    pid_t o = fxt_fork(hold_then_die, v);
    /* The waiter is the owner's sibling: the owner, reaped by us, is gone. */
    pid_t w = fxt_fork(no_fd_waiter, v);
    assert_int_equal(fxt_wait_child(o, 60000), 128 + SIGKILL);
    assert_int_equal(fxt_wait_child(w, 60000), 0);
    fxt_shared_free(v, sizeof *v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rmutex_owner_of_another_uid_is_not_judged_dead),
        cmocka_unit_test(once_initialiser_of_another_uid_is_not_run_twice),
        cmocka_unit_test(rmutex_nondumpable_owner_of_another_uid_is_not_judged_dead),
        cmocka_unit_test(once_nondumpable_initialiser_of_another_uid_is_not_run_twice),
        cmocka_unit_test(rmutex_owner_is_not_judged_dead_when_seccomp_refuses_vm_readv_eperm),
        cmocka_unit_test(rmutex_owner_is_not_judged_dead_when_seccomp_refuses_vm_readv_enosys),
        cmocka_unit_test(once_initialiser_is_not_run_twice_when_seccomp_refuses_vm_readv_eperm),
        cmocka_unit_test(once_initialiser_is_not_run_twice_when_seccomp_refuses_vm_readv_enosys),
        cmocka_unit_test(rmutex_owner_is_not_judged_dead_under_proc_hidepid1),
        cmocka_unit_test(rmutex_owner_is_not_judged_dead_under_proc_hidepid2),
        cmocka_unit_test(rmutex_owner_is_not_judged_dead_without_proc),
        cmocka_unit_test(once_initialiser_is_not_run_twice_under_proc_hidepid1),
        cmocka_unit_test(once_initialiser_is_not_run_twice_under_proc_hidepid2),
        cmocka_unit_test(once_initialiser_is_not_run_twice_without_proc),
        cmocka_unit_test(rmutex_owner_in_a_user_namespace_is_not_judged_dead),
        cmocka_unit_test(rmutex_waiter_in_a_user_namespace_does_not_judge_the_owner_dead),
        cmocka_unit_test(once_initialiser_and_caller_in_different_user_namespaces_run_it_once),
        cmocka_unit_test(
            rmutex_owner_in_the_initial_pid_namespace_is_not_judged_dead_from_a_child_one),
        cmocka_unit_test(
            rmutex_owner_in_a_child_pid_namespace_is_not_judged_dead_from_the_initial_one),
        cmocka_unit_test(rmutex_owner_in_a_sibling_pid_namespace_is_not_judged_dead),
        cmocka_unit_test(once_initialiser_in_another_pid_namespace_is_not_run_twice),
        cmocka_unit_test(rmutex_dead_owner_in_a_nested_pid_namespace_is_recovered),
        cmocka_unit_test(rmutex_dead_owner_is_recovered_when_seccomp_refuses_vm_readv),
        cmocka_unit_test(rmutex_dead_owner_is_recovered_without_proc),
        cmocka_unit_test(rmutex_lock_calls_do_not_act_on_a_pending_cancel),
        cmocka_unit_test(cond_wait_rmutex_relock_does_not_act_on_a_pending_cancel),
        cmocka_unit_test(rmutex_verdicts_do_not_change_without_file_descriptors),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
