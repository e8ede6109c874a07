/*
 * tests/test_fault_identity.c - regression tests of issue 11's identity
 * classes: who owns an fx_rmutex or runs an fx_once initialiser when TIDs are
 * reused, file descriptors run out, signals keep ending sleeps, or a deadline
 * is malformed. Each test is named after the behaviour; each failed on main
 * before the fix (the class is given above it).
 *
 * TID reuse is forced through /proc/sys/kernel/ns_last_pid when it is
 * writable (root in the PID namespace), else the test is skipped with a
 * message. The fork class lives in test_fault_fork.c: it needs a process in
 * which the library has not run yet.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fxtest.h"

#include <futexsync/layout.h>
#include <futexsync/once.h>
#include <futexsync/rmutex.h>

/* A TID no thread can have: above pid_max (0 when pid_max allows every TID
 * the rmutex word can hold). */
static pid_t absent_tid(void)
{
    FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
    long max = 0;
    if (f != NULL) {
        if (fscanf(f, "%ld", &max) != 1)
            max = 0;
        fclose(f);
    }
    return max > 0 && max <= FX_RMUTEX_TID_MAX ? (pid_t)FX_RMUTEX_TID_MAX : 0;
}

/* In a forked child whose rmutex and fx_once words must say PROBED (the
 * kernel will not report its death): get_robust_list answers ENOSYS from now
 * on, as under qemu-user. Where no seccomp filter can be installed (qemu-user
 * itself), the thread must be PROBED already, which its own word tells.
 * true when the child's words say PROBED. */
static bool refuse_robust_list(void)
{
    return fxt_refuse_syscall(SYS_get_robust_list, ENOSYS, 0) == 0 || !fxt_rmutex_robust();
}

/* --- TID reuse (class 1) -------------------------------------------------------- */

/* A word naming the caller's TID that the caller never acquired was left by a
 * dead thread that had this TID: lock takes it over with EOWNERDEAD instead
 * of "re-entering" a lock it never took (main: 0, depth 2). */
static void rmutex_lock_of_a_word_naming_our_tid_without_our_acquisition_is_eownerdead(void **state)
{
    (void)state;
    fx_rmutex *m = fxt_arena(sizeof *m);
    /* Left by a thread without a robust list (PROBED): the kernel reported
     * nothing, the TID is judged. */
    m->owner = (int32_t)(fxt_gettid() | FX_RMUTEX_PROBED);
    m->depth = 1;
    assert_int_equal(fx_rmutex_lock(m), EOWNERDEAD);
    assert_int_equal(fx_rmutex_owner(m), fxt_gettid());
    assert_int_equal(m->depth, 1 | FX_RMUTEX_INCONSISTENT);
    assert_int_equal(fx_rmutex_consistent(m), 0);
    assert_int_equal(fx_rmutex_unlock(m), 0);
    assert_int_equal(m->owner, 0);
}

/* ... and unlock refuses it with EPERM, changing nothing (main: 0, freed). */
static void rmutex_unlock_of_a_word_naming_our_tid_without_our_acquisition_is_eperm(void **state)
{
    (void)state;
    fx_rmutex *m = fxt_arena(sizeof *m);
    m->owner = (int32_t)(fxt_gettid() | FX_RMUTEX_PROBED);
    m->depth = 1;
    assert_int_equal(fx_rmutex_unlock(m), EPERM);
    assert_int_equal(fx_rmutex_consistent(m), EPERM);
    assert_int_equal(m->owner, (int32_t)(fxt_gettid() | FX_RMUTEX_PROBED));
    assert_int_equal(m->depth, 1);
}

static bool set_last_pid(pid_t p)
{
    int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char b[24];
    int n = snprintf(b, sizeof b, "%d", (int)p);
    bool ok = write(fd, b, (size_t)n) == n;
    close(fd);
    return ok;
}

static bool can_force_tids(void)
{
    if (access("/proc/sys/kernel/ns_last_pid", W_OK) == 0)
        return true;
    print_message("skipped: /proc/sys/kernel/ns_last_pid is not writable (needs root)\n");
    return false;
}

/* Runs fn(arg) in a new thread whose TID is `tid`, forcing the kernel's next
 * PID with ns_last_pid; other processes allocate PIDs too, so it retries.
 * Returns fn's result, or NULL with *got = false when the TID never came. */
struct on_tid {
    pid_t want;
    void *(*fn)(void *);
    void *arg;
    void *ret;
    bool ran;
};

static void *on_tid_thread(void *p)
{
    struct on_tid *o = p;
    if (fxt_gettid() != o->want)
        return NULL;
    o->ran = true;
    o->ret = o->fn(o->arg);
    return NULL;
}

static bool run_on_tid(pid_t tid, void *(*fn)(void *), void *arg, void **ret)
{
    struct on_tid *o = fxt_arena(sizeof *o);
    o->want = tid;
    o->fn = fn;
    o->arg = arg;
    for (int i = 0; i < 2000 && !o->ran; i++) {
        if (!set_last_pid(tid - 1))
            return false;
        fxt_join(fxt_thread(on_tid_thread, o));
    }
    if (o->ran && ret != NULL)
        *ret = o->ret;
    return o->ran;
}

static void *lock_and_exit(void *p)
{
    intptr_t r = fx_rmutex_lock(p);
    return (void *)(intptr_t)(r == 0 ? (intptr_t)fxt_gettid() : -r);
}

struct reuse {
    fx_rmutex m;
    int lock, consistent, unlock;
};

static void *lock_consistent_unlock(void *p)
{
    struct reuse *r = p;
    r->lock = fx_rmutex_lock(&r->m);
    r->consistent = fx_rmutex_consistent(&r->m);
    r->unlock = fx_rmutex_unlock(&r->m);
    return r;
}

/* A thread exits holding m; the kernel gives its TID to a new thread, which
 * locks m: it is not the owner, it takes a dead thread's mutex over with
 * EOWNERDEAD (main: 0 as a "re-entry", then EINVAL from consistent). */
static void rmutex_new_thread_with_a_dead_owners_tid_takes_the_mutex_over(void **state)
{
    (void)state;
    if (!can_force_tids())
        return;
    struct reuse *r = fxt_arena(sizeof *r);
    intptr_t t = (intptr_t)fxt_join(fxt_thread(lock_and_exit, &r->m));
    assert_true(t > 0);
    /* Marked ORPHANED by the kernel at the exit where the thread had a
     * robust list; else its TID stays in the word. */
    assert_int_equal(fx_rmutex_owner(&r->m), fxt_rmutex_robust() ? 0 : (pid_t)t);
    if (!run_on_tid((pid_t)t, lock_consistent_unlock, r, NULL)) {
        print_message("skipped: TID %d was not handed out again in 2000 tries\n", (int)t);
        return;
    }
    assert_int_equal(r->lock, EOWNERDEAD);
    assert_int_equal(r->consistent, 0);
    assert_int_equal(r->unlock, 0);
    assert_int_equal(r->m.owner, 0);
}

/* The lost take-over. A waiter W finds owner T dead; before its take-over CAS
 * (fault point rmutex.takeover) another thread recovers the mutex and
 * releases it, and T's TID goes to a new thread N, which locks the mutex
 * normally and holds it. W's CAS (from T|WAITERS) fails on N's T. Main kept
 * the verdict "T is dead" and recovered the mutex from the live N: two owners.
 * Now W judges the new value afresh: N lives, so W sleeps (re-marking WAITERS)
 * and gets the mutex with 0 only after N's unlock. */
struct lost {
    fx_rmutex *m;
    pid_t dead;         /* T */
    int32_t armed;      /* the fault hook acts once, in W's thread */
    pid_t waiter;       /* W's TID */
    int32_t n_locked;   /* N holds m */
    int32_t n_release;  /* N may unlock */
    int32_t n_result;   /* N's lock result */
    uint32_t n_word;    /* the owner word N's lock wrote */
    int32_t hook_entered; /* W reached the fault point */
    int32_t hook_done;  /* the controller has done the hook's work */
    int32_t w_result;   /* W's lock result, -1 while it waits */
    int32_t n_unlocked; /* N unlocked (before W's return, if W waited) */
    pthread_t n;        /* N, joined by the test */
    bool hook_ok;
};
static struct lost *lost;

static void *recover_and_release(void *p)
{
    fx_rmutex *m = p;
    int r = fx_rmutex_trylock(m);
    if (r == EOWNERDEAD && fx_rmutex_consistent(m) == 0 && fx_rmutex_unlock(m) == 0)
        return (void *)1;
    return NULL;
}

static void *n_thread(void *p)
{
    struct lost *l = p;
    l->n_result = fx_rmutex_lock(l->m);
    /* Relaxed: N's own write, read back before anyone else may change it (W
     * waits in the fault hook until the controller is done). */
    l->n_word = (uint32_t)__atomic_load_n(&l->m->owner, __ATOMIC_RELAXED);
    fxt_flag_set(&l->n_locked, 1);
    fxt_flag_wait(&l->n_release, 1, 90000);
    fxt_flag_set(&l->n_unlocked, 1);
    fx_rmutex_unlock(l->m);
    return NULL;
}

/* The controller does the hook's work in a thread the test created before W
 * (code run inside the hook is inside W's lock attempt, where race detectors
 * ignore synchronization, so it must not create the threads itself). */
static void *controller(void *p)
{
    struct lost *l = p;
    if (!fxt_flag_wait(&l->hook_entered, 1, 60000))
        return NULL;
    /* Another acquirer recovers and releases m (it finds T dead too). */
    l->hook_ok = recover_and_release(l->m) != NULL;
    /* T's TID goes to N, which locks m and holds it. */
    pthread_t n = 0;
    for (int i = 0; l->hook_ok && i < 2000; i++) {
        if (!set_last_pid(l->dead - 1))
            break;
        pthread_t t = fxt_thread(n_thread, l);
        /* n_thread locks at once; keep it only if it got T's TID. */
        if (fxt_flag_wait(&l->n_locked, 1, 60000) && fx_rmutex_owner(l->m) == l->dead) {
            n = t;
            break;
        }
        fxt_flag_set(&l->n_release, 1);
        fxt_join(t);
        l->n_locked = 0;
        l->n_release = 0;
        l->n_unlocked = 0;
    }
    l->hook_ok = l->hook_ok && n != 0;
    l->n = n;
    fxt_flag_set(&l->hook_done, 1);
    return NULL;
}

void fxi_fault_point(const char *step);
void fxi_fault_point(const char *step)
{
    struct lost *l = lost;
    if (l == NULL || strcmp(step, "rmutex.takeover") != 0 || fxt_gettid() != l->waiter ||
        !__atomic_exchange_n(&l->armed, 0, __ATOMIC_ACQ_REL))
        return;
    fxt_flag_set(&l->hook_entered, 1);
    fxt_flag_wait(&l->hook_done, 1, 90000);
}

static void *w_thread(void *p)
{
    struct lost *l = p;
    l->waiter = fxt_gettid();
    __atomic_store_n(&l->armed, 1, __ATOMIC_RELEASE);
    int r = fx_rmutex_lock(l->m);
    fxt_flag_set(&l->w_result, r);
    if (r == 0 || r == EOWNERDEAD) {
        if (r == EOWNERDEAD)
            fx_rmutex_consistent(l->m);
        fx_rmutex_unlock(l->m);
    }
    return NULL;
}

static void rmutex_waiter_that_lost_the_takeover_does_not_recover_a_live_reused_tid(void **state)
{
    (void)state;
    if (!can_force_tids())
        return;
    struct lost *l = fxt_arena(sizeof *l);
    l->m = fxt_arena(sizeof *l->m);
    l->w_result = -1;
    intptr_t t = (intptr_t)fxt_join(fxt_thread(lock_and_exit, l->m));
    assert_true(t > 0);
    l->dead = (pid_t)t;
    /* W must see T|WAITERS: it sleeps once before its first liveness check.
     * Mark WAITERS now so that its CAS is from T|WAITERS in any case. */
    l->m->owner = (int32_t)((uint32_t)t | (uint32_t)FX_RMUTEX_PROBED | (uint32_t)FX_RMUTEX_WAITERS);
    lost = l;
    pthread_t c = fxt_thread(controller, l);
    pthread_t w = fxt_thread(w_thread, l);
    assert_true(fxt_flag_wait(&l->hook_done, 1, 60000));
    if (!l->hook_ok) {
        fxt_flag_set(&l->n_release, 1);
        fxt_join(w);
        fxt_join(c);
        if (l->n != 0)
            fxt_join(l->n);
        lost = NULL;
        print_message("skipped: TID %d was not handed out again in 2000 tries\n", (int)t);
        return;
    }
    /* N's word names T: alone where the kernel reports N's death, else with
     * PROBED (and LOCALNS outside the initial PID namespace). */
    assert_int_equal(l->n_word & ~(uint32_t)(FX_RMUTEX_PROBED | FX_RMUTEX_LOCALNS), (uint32_t)t);
    assert_int_equal((l->n_word & (uint32_t)FX_RMUTEX_PROBED) == 0, fxt_rmutex_robust());
    /* W either returned (main: EOWNERDEAD while N holds m) or re-marked
     * WAITERS on N's value to sleep until N's unlock. */
    uint32_t nw = l->n_word | (uint32_t)FX_RMUTEX_WAITERS;
    bool slept = false;
    for (int i = 0; i < 60000 && !slept; i++) {
        if (__atomic_load_n(&l->w_result, __ATOMIC_ACQUIRE) != -1)
            break;
        slept = (uint32_t)__atomic_load_n(&l->m->owner, __ATOMIC_ACQUIRE) == nw;
        if (!slept)
            usleep(1000);
    }
    int32_t early = __atomic_load_n(&l->w_result, __ATOMIC_ACQUIRE);
    fxt_flag_set(&l->n_release, 1);
    fxt_join(w);
    fxt_join(c);
    fxt_join(l->n);
    lost = NULL;
    assert_int_equal(l->n_result, 0);
    assert_int_equal(early, -1); /* W did not get m while N held it */
    assert_true(slept);
    assert_int_equal(l->w_result, 0);
    assert_int_equal(l->n_unlocked, 1);
}

/* --- fx_once and a reused TID (class 5) ------------------------------------------ */

static void exit_inside(void *p)
{
    (void)p;
    _exit(0); /* the process dies inside the initialiser: the flag stays RUNNING */
}

static int run_and_die(void *p)
{
    /* Without a robust list (PROBED): the kernel leaves the word to the
     * callers' probe. exit_inside never returns: reaching the return is the
     * failure. */
    if (!refuse_robust_list())
        return 3;
    return fx_once_call(p, exit_inside, NULL) == 0 ? 1 : 2;
}

static void mark_run(void *p)
{
    *(int32_t *)((fx_once *)p + 1) = 1;
}

static int call_once_again(void *p)
{
    fx_once *o = p;
    int r = fx_once_call(o, mark_run, o);
    FXT_CHILD_CHECK(r == 0, 20 + (r & 7));
    FXT_CHILD_CHECK(*(int32_t *)(o + 1) == 1, 30);
    FXT_CHILD_CHECK(o->state == FX_ONCE_DONE, 31);
    return 0;
}

/* A process dies inside the initialiser; the kernel gives its PID (= TID) to
 * a new process, which calls fx_once_call on the flag: it is not inside the
 * initialiser, so it runs it (main: EDEADLK on every call, for ever). */
static void once_new_process_with_a_dead_initialisers_tid_runs_the_initialiser(void **state)
{
    (void)state;
    if (!can_force_tids())
        return;
    fx_once *o = fxt_shared_alloc(2 * sizeof(fx_once));
    pid_t dead = fxt_fork(run_and_die, o);
    assert_int_equal(fxt_wait_child(dead, 60000), 0);
    assert_int_equal(o->state & FX_ONCE_TID_MASK, dead);
    /* A child with another PID waits one check period (100 ms) before it
     * takes over: at most 200 tries. */
    for (int i = 0; i < 200; i++) {
        if (!set_last_pid(dead - 1))
            break;
        pid_t c = fxt_fork(call_once_again, o);
        int st = fxt_wait_child(c, 60000);
        if (c == dead) {
            assert_int_equal(st, 0);
            fxt_shared_free(o, 2 * sizeof(fx_once));
            return;
        }
        /* Another PID: that child took the dead thread's flag over too. */
        assert_int_equal(st, 0);
        o->state = FX_ONCE_RUNNING | FX_ONCE_PROBED | dead;
        *(int32_t *)(o + 1) = 0;
    }
    print_message("skipped: PID %d was not handed out again in 200 tries\n", (int)dead);
    fxt_shared_free(o, 2 * sizeof(fx_once));
}

/* --- fx_rmutex_timedlock with a bad tv_nsec (class 13) ---------------------------- */

/* A dead owner's mutex is taken at once with EOWNERDEAD, as trylock does; EINVAL
 * only when the call would wait; no WAITERS bit is left behind (main: EINVAL
 * with WAITERS set on the dead owner's word). */
static void rmutex_timedlock_with_bad_nsec_takes_a_dead_owners_mutex(void **state)
{
    (void)state;
    pid_t dead = absent_tid();
    if (dead == 0) {
        print_message("skipped: pid_max allows every TID an rmutex can name\n");
        return;
    }
    fx_rmutex *m = fxt_arena(sizeof *m);
    m->owner = (int32_t)(dead | FX_RMUTEX_PROBED);
    m->depth = 1;
    struct timespec bad = {0, 1000000000L};
    assert_int_equal(fx_rmutex_timedlock(m, &bad), EOWNERDEAD);
    assert_int_equal(fx_rmutex_owner(m), fxt_gettid());
    assert_int_equal(m->depth, 1 | FX_RMUTEX_INCONSISTENT);
    assert_int_equal(fx_rmutex_consistent(m), 0);
    assert_int_equal(fx_rmutex_unlock(m), 0);
}

/* ... and on a live owner: EINVAL, the word as it was (no WAITERS). */
static void *hold_until(void *p)
{
    int32_t *flags = p; /* [0]: locked, [1]: release */
    fx_rmutex *m = (fx_rmutex *)(flags + 2);
    if (fx_rmutex_lock(m) != 0)
        return NULL; /* flags[0] never set: the test's wait fails */
    fxt_flag_set(&flags[0], 1);
    fxt_flag_wait(&flags[1], 1, 90000);
    fx_rmutex_unlock(m);
    return NULL;
}

static void rmutex_timedlock_with_bad_nsec_on_a_live_owner_is_einval_leaving_no_waiters_bit(
    void **state)
{
    (void)state;
    int32_t *flags = fxt_arena(2 * sizeof(int32_t) + sizeof(fx_rmutex));
    fx_rmutex *m = (fx_rmutex *)(flags + 2);
    pthread_t t = fxt_thread(hold_until, flags);
    assert_true(fxt_flag_wait(&flags[0], 1, 60000));
    int32_t before = m->owner;
    struct timespec bad = {0, -1};
    assert_int_equal(fx_rmutex_timedlock(m, &bad), EINVAL);
    assert_int_equal(m->owner, before);
    assert_false((uint32_t)m->owner & (uint32_t)FX_RMUTEX_WAITERS);
    fxt_flag_set(&flags[1], 1);
    fxt_join(t);
    assert_int_equal(m->owner, 0);
}

/* --- out of file descriptors (class 14) ------------------------------------------ */

/* Uses up every file descriptor below a lowered RLIMIT_NOFILE. */
static bool exhaust_fds(void)
{
    struct rlimit rl = {64, 64};
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        return false;
    int fd;
    while ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
        ;
    return errno == EMFILE;
}

struct zombie {
    fx_rmutex m;
    fx_once o;
    int32_t pad[2];
};

static int die_holding(void *p)
{
    /* Without a robust list (as under qemu-user): the owner is PROBED, and
     * the waiter's probe must tell the zombie dead. */
    if (!refuse_robust_list())
        return 2;
    return fx_rmutex_lock(&((struct zombie *)p)->m) == 0 ? 0 : 1;
}

static void die_inside(void *p)
{
    (void)p;
    _exit(0); /* no cleanup handler runs: the flag stays RUNNING */
}

static int die_initialising(void *p)
{
    if (!refuse_robust_list())
        return 3;
    /* die_inside never returns: reaching the return is the failure. */
    return fx_once_call(&((struct zombie *)p)->o, die_inside, NULL) == 0 ? 1 : 2;
}

static int run_once_count;
static void count_run(void *p)
{
    (void)p;
    run_once_count++;
}

/* The tester: forks the dying child, leaves it a zombie (waitid WNOWAIT waits
 * for its exit without reaping it), runs out of descriptors, then asks. */
static int zombie_tester(void *p)
{
    struct zombie *z = p;
    bool rmutex = z->pad[0] == 0;
    pid_t c = fxt_fork(rmutex ? die_holding : die_initialising, z);
    FXT_CHILD_CHECK(c > 0, 10);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    FXT_CHILD_CHECK(waitid(P_PID, (id_t)c, &si, WEXITED | WNOWAIT) == 0, 11);
    FXT_CHILD_CHECK(si.si_pid == c && si.si_status == 0, 12);
    FXT_CHILD_CHECK(exhaust_fds(), 13);
    if (rmutex) {
        FXT_CHILD_CHECK(fx_rmutex_owner(&z->m) == c, 14);
        int r = fx_rmutex_trylock(&z->m);
        FXT_CHILD_CHECK(r == EOWNERDEAD, 15);
    } else {
        FXT_CHILD_CHECK((z->o.state & FX_ONCE_TID_MASK) == c, 16);
        FXT_CHILD_CHECK(fx_once_call(&z->o, count_run, NULL) == 0, 17);
        FXT_CHILD_CHECK(run_once_count == 1, 18);
    }
    return 0;
}

/* A dead owner whose process is an unreaped zombie (its parent is the very
 * process that waits) is recovered although no file descriptor is left
 * (main: the /proc open failed with EMFILE, kill(tid, 0) saw the zombie as
 * alive: EBUSY for ever). */
static void rmutex_zombie_owner_is_dead_with_no_file_descriptor_left(void **state)
{
    (void)state;
    fxt_require_zombies_look_dead();
    struct zombie *z = fxt_shared_alloc(sizeof *z);
    z->pad[0] = 0;
    assert_int_equal(fxt_wait_child(fxt_fork(zombie_tester, z), 60000), 0);
    fxt_shared_free(z, sizeof *z);
}

/* The same for fx_once: the flag left RUNNING by a zombie is run again within
 * the check period (main: never; the tester hung). */
static void once_zombie_initialiser_is_dead_with_no_file_descriptor_left(void **state)
{
    (void)state;
    fxt_require_zombies_look_dead();
    struct zombie *z = fxt_shared_alloc(sizeof *z);
    z->pad[0] = 1;
    assert_int_equal(fxt_wait_child(fxt_fork(zombie_tester, z), 30000), 0);
    fxt_shared_free(z, sizeof *z);
}

/* --- signals against the liveness schedule (class 4) -------------------------- */

static void on_tick(int sig)
{
    (void)sig;
}

/* A waiter whose every sleep a periodic signal ends (every 10 ms, well inside
 * the 100 ms check period; no SA_RESTART) still checks the initialiser's
 * liveness on schedule and runs the initialiser of a dead one (main: the
 * check timer restarted from "now" after each EINTR and never expired). */
static int once_under_signal_timer(void *p)
{
    (void)p;
    static fx_once o;
    o.state = FX_ONCE_RUNNING | FX_ONCE_PROBED | FX_ONCE_TID_MASK; /* the largest TID: never allocated here */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_tick;
    sigemptyset(&sa.sa_mask);
    FXT_CHILD_CHECK(sigaction(SIGUSR2, &sa, NULL) == 0, 10);
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR2;
    timer_t timer;
    FXT_CHILD_CHECK(timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0, 11);
    struct itimerspec its = {{0, 10000000L}, {0, 10000000L}};
    FXT_CHILD_CHECK(timer_settime(timer, 0, &its, NULL) == 0, 12);
    int r = fx_once_call(&o, count_run, NULL);
    timer_delete(timer);
    FXT_CHILD_CHECK(r == 0, 13);
    FXT_CHILD_CHECK(run_once_count == 1, 14);
    FXT_CHILD_CHECK(o.state == FX_ONCE_DONE, 15);
    return 0;
}

static void once_waiter_under_a_periodic_signal_takes_over_from_a_dead_initialiser(void **state)
{
    (void)state;
    assert_int_equal(fxt_wait_child(fxt_fork(once_under_signal_timer, NULL), 30000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rmutex_lock_of_a_word_naming_our_tid_without_our_acquisition_is_eownerdead),
        cmocka_unit_test(rmutex_unlock_of_a_word_naming_our_tid_without_our_acquisition_is_eperm),
        cmocka_unit_test(rmutex_new_thread_with_a_dead_owners_tid_takes_the_mutex_over),
        cmocka_unit_test(rmutex_waiter_that_lost_the_takeover_does_not_recover_a_live_reused_tid),
        cmocka_unit_test(once_new_process_with_a_dead_initialisers_tid_runs_the_initialiser),
        cmocka_unit_test(rmutex_timedlock_with_bad_nsec_takes_a_dead_owners_mutex),
        cmocka_unit_test(
            rmutex_timedlock_with_bad_nsec_on_a_live_owner_is_einval_leaving_no_waiters_bit),
        cmocka_unit_test(rmutex_zombie_owner_is_dead_with_no_file_descriptor_left),
        cmocka_unit_test(once_zombie_initialiser_is_dead_with_no_file_descriptor_left),
        cmocka_unit_test(once_waiter_under_a_periodic_signal_takes_over_from_a_dead_initialiser),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
