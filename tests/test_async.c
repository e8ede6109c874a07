/*
 * tests/test_async.c - asynchronous waiters (futexsync/async.h).
 *
 * The behaviour tests run twice, once per back end: the group "async_uring"
 * forces FX_ASYNC_URING (io_uring futex operations) and "async_thread" forces
 * FX_ASYNC_THREAD (helper thread). The group "async_backends" checks how the
 * back end is chosen: io_uring when the kernel offers it, the helper thread
 * when FUTEXSYNC_ASYNC=thread asks for it or when seccomp refuses io_uring.
 */
#define _GNU_SOURCE
#include "fxtest.h"
#include "fxfault.h" /* fxf_count_at_thread */
#include "../src/internal/probe_periods.h"

#include <dirent.h>
#include <errno.h>
#include <futexsync.h>
#include <futexsync/layout.h>
#include <linux/audit.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif
#ifndef SYS_io_uring_register
#define SYS_io_uring_register 427
#endif
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1u << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1u << 13)
#endif

#define MS (1000 * 1000LL)

static int backend_uring = FX_ASYNC_URING;
static int backend_thread = FX_ASYNC_THREAD;

/* Helpers -------------------------------------------------------------------- */

static int backend_of(void **state)
{
    return *(int *)*state;
}

/* Whether this kernel lets this process use io_uring's futex operations, asked
 * of the kernel itself at run time (never inferred from its version): a ring
 * set up as the library sets its own up, and the opcodes it needs reported
 * supported. NULL when they are usable; otherwise why not. io_uring_setup
 * failing with ENOSYS (no io_uring, or an emulator or filter without it), EPERM
 * (kernel.io_uring_disabled, seccomp) or EINVAL (a flag older than Linux 6.1)
 * is such a reason; any other failure fails the test. */
static const char *uring_unavailable(void)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
    long fd = syscall(SYS_io_uring_setup, 4L, &p);
    if (fd < 0) {
        if (errno == ENOSYS)
            return "io_uring_setup: ENOSYS";
        if (errno == EPERM)
            return "io_uring_setup: EPERM";
        if (errno == EINVAL)
            return "io_uring_setup: EINVAL";
        fail_msg("io_uring_setup: unexpected errno %d", errno);
    }
    static uint64_t buf[(sizeof(struct io_uring_probe) + 256 * sizeof(struct io_uring_probe_op)) /
                        sizeof(uint64_t)];
    memset(buf, 0, sizeof buf);
    struct io_uring_probe *probe = (struct io_uring_probe *)(void *)buf;
    long rc = syscall(SYS_io_uring_register, (int)fd, IORING_REGISTER_PROBE, probe, 256);
    close((int)fd);
    if (rc < 0)
        return "IORING_REGISTER_PROBE refused";
    static const unsigned ops[] = {51 /* IORING_OP_FUTEX_WAIT */, IORING_OP_LINK_TIMEOUT,
                                   IORING_OP_ASYNC_CANCEL};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i] > probe->last_op || !(probe->ops[ops[i]].flags & IO_URING_OP_SUPPORTED))
            return "IORING_OP_FUTEX_WAIT (Linux 6.7) not supported";
    return NULL;
}

/* A waiter of the group's back end. Both back ends must be tested: the uring
 * group fails when FX_ASYNC_URING is refused on a kernel that offers io_uring's
 * futex operations (uring_unavailable), and is skipped, with the kernel's
 * reason, only where it does not. */
static fx_async *new_waiter(void **state)
{
    fx_async *w = NULL;
    int r = fx_async_create(&w, backend_of(state));
    if (r == ENOTSUP && backend_of(state) == FX_ASYNC_URING) {
        const char *why = uring_unavailable();
        if (why != NULL) {
            print_message("io_uring futex operations unavailable (%s): uring group skipped\n",
                          why);
            skip();
        }
        fail_msg("FX_ASYNC_URING refused where the kernel offers io_uring futex operations");
    }
    assert_int_equal(r, 0);
    assert_int_equal(fx_async_backend(w), backend_of(state));
    assert_true(fx_async_fd(w) >= 0);
    return w;
}

/* 1 when fd is readable within timeout_ms, 0 otherwise. */
static int wait_readable(int fd, int timeout_ms)
{
    int64_t limit = fxt_now_ns() + timeout_ms * MS;
    for (;;) {
        int64_t left = (limit - fxt_now_ns()) / MS;
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, left > 0 ? (int)left : 0);
        if (r == 1)
            return 1;
        if (r == 0 || (r < 0 && errno != EINTR))
            return 0;
    }
}

static bool readable_now(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};
    return poll(&p, 1, 0) == 1;
}

/* Polls the fd and completes until the operation finishes: its result, or
 * -1 if it has not finished within timeout_ms. */
static int complete_within(fx_async *w, int timeout_ms)
{
    int64_t limit = fxt_now_ns() + timeout_ms * MS;
    for (;;) {
        int64_t left = (limit - fxt_now_ns()) / MS;
        if (left <= 0 || !wait_readable(fx_async_fd(w), (int)left))
            return -1;
        int r = fx_async_complete(w);
        if (r != EINPROGRESS)
            return r;
    }
}

/* Polls w's fd and completes until n completions have said EINPROGRESS (each
 * must), or timeout_ms passes. Returns how many there were. */
static int drive_readinesses(fx_async *w, int n, int timeout_ms)
{
    int64_t limit = fxt_now_ns() + timeout_ms * MS;
    int done = 0;
    while (done < n) {
        int64_t left = (limit - fxt_now_ns()) / MS;
        if (left <= 0 || !wait_readable(fx_async_fd(w), (int)left))
            break;
        assert_int_equal(fx_async_complete(w), EINPROGRESS);
        done++;
    }
    return done;
}

/* complete_within, counting the completions that said EINPROGRESS. */
static int complete_counting(fx_async *w, int timeout_ms, int *in_progress)
{
    int64_t limit = fxt_now_ns() + timeout_ms * MS;
    *in_progress = 0;
    for (;;) {
        int64_t left = (limit - fxt_now_ns()) / MS;
        if (left <= 0 || !wait_readable(fx_async_fd(w), (int)left))
            return -1;
        int r = fx_async_complete(w);
        if (r != EINPROGRESS)
            return r;
        (*in_progress)++;
    }
}

/* Carries an arm call with a short deadline (its result `armed`) to its end.
 * The call must arm (EINPROGRESS), and complete then gives the result; but a
 * loaded machine may pass the deadline before the call is made, which then
 * rightly gives ETIMEDOUT without arming. */
static int finish_short_wait(fx_async *w, int armed, const struct timespec *d,
                             int *in_progress)
{
    int unused;
    if (in_progress == NULL)
        in_progress = &unused;
    *in_progress = 0;
    if (armed != EINPROGRESS) {
        assert_int_equal(armed, ETIMEDOUT);
        assert_true(fxt_now_ns() >= fxt_ts_ns(d));
        print_message("(the deadline passed before the wait was armed)\n");
        return armed;
    }
    return complete_counting(w, 5000, in_progress);
}

static int count_dir(const char *path)
{
    DIR *d = opendir(path);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static int count_fds(void)
{
    return count_dir("/proc/self/fd") - 1; /* the DIR's own descriptor */
}

static int count_threads(void)
{
    return count_dir("/proc/self/task");
}

/* The thread count once it is `want`, or whatever it is after 5 s: a thread
 * just joined may linger in /proc/self/task for a moment (pthread_join returns
 * when the kernel clears the thread's TID word, before the task is released). */
static int threads_settled(int want)
{
    int64_t limit = fxt_now_ns() + 5000 * MS;
    int n;
    while ((n = count_threads()) != want && fxt_now_ns() < limit)
        usleep(1000);
    return n;
}

/* Waits (up to 5 s) until thread `tid` of this process is gone from /proc:
 * pthread_join returns when the kernel clears the thread's TID word, a moment
 * before the task is released, and until then its TID still looks alive. */
static void wait_thread_gone(pid_t tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d", (int)tid);
    int64_t limit = fxt_now_ns() + 5000 * MS;
    while (access(path, F_OK) == 0) {
        assert_true(fxt_now_ns() < limit);
        usleep(200);
    }
}

static void *note_tid_main(void *p)
{
    __atomic_store_n((pid_t *)p, fxt_gettid(), __ATOMIC_RELEASE);
    return NULL;
}

/* The thread count of the test's process at rest, before the test starts a
 * thread of the library's. The test runs in a process of its own
 * (fxt_run_group_tests): no thread of an earlier test can still be leaving.
 * A thread of ours is started, joined and seen gone first, so that a runtime
 * that starts a thread of its own with the first pthread_create (a
 * sanitizer's) has done so. */
static int threads_at_rest(void)
{
    pid_t tid = 0;
    fxt_join(fxt_thread(note_tid_main, &tid));
    wait_thread_gone(__atomic_load_n(&tid, __ATOMIC_ACQUIRE));
    return count_threads();
}

/* Whether a line of /proc/<tid>/syscall shows a futex call on addr
 * ("202 0x<addr> ..."; futex_time64 on 32-bit architectures). */
static bool futex_call_on(const char *line, const void *addr)
{
    long nr;
    unsigned long long arg0;
    return sscanf(line, "%ld 0x%llx", &nr, &arg0) == 2 && fxt_is_futex_call(nr) &&
           arg0 == (unsigned long long)(uintptr_t)addr;
}

/* How many threads of this process sleep in futex(2) on addr, read from
 * /proc/self/task/<tid>/syscall. */
static int futex_sleepers(const void *addr)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[300], line[256];
        snprintf(path, sizeof path, "/proc/self/task/%s/syscall", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        if (fgets(line, sizeof line, f) != NULL && futex_call_on(line, addr))
            n++;
        fclose(f);
    }
    closedir(d);
    return n;
}

/* Waits (observing /proc, up to 5 s) until n threads sleep on addr. */
static void wait_futex_sleepers(const void *addr, int n)
{
    int64_t limit = fxt_now_ns() + 5000 * MS;
    while (futex_sleepers(addr) < n) {
        assert_true(fxt_now_ns() < limit);
        usleep(200);
    }
}

/* Sleepers the waiter itself puts on a word: its helper thread. */
static int own_sleepers(void **state)
{
    return backend_of(state) == FX_ASYNC_THREAD ? 1 : 0;
}

static int64_t ts_ns(const struct timespec *t)
{
    return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

/* Threads and the objects they touch.
 *
 * A failed assertion leaves the test at once (cmocka longjmps out of it), so
 * a helper thread it started may go on running. Everything such a thread
 * touches (the lock, its own record) is therefore taken from fxt_arena,
 * memory that is never reused: a later test cannot hand it the same address
 * for something else. Helper threads wait with deadlines, and every join is
 * timed, so a lost wake-up fails the test instead of hanging the binary. */

#define LIMIT_MS 10000 /* how long a helper thread waits for the test */

/* Joins t, failing the test if it has not ended within LIMIT_MS. */
static void join_within(pthread_t t)
{
    assert_true(fxt_join_timed(t, LIMIT_MS, NULL));
}

static fx_mutex *arena_mutex(void)
{
    return fxt_arena(sizeof(fx_mutex)); /* zero-filled: FX_MUTEX_INIT */
}

static fx_rmutex *arena_rmutex(void)
{
    return fxt_arena(sizeof(fx_rmutex)); /* zero-filled: FX_RMUTEX_INIT */
}

/* A thread that holds a mutex until told to release it. */
struct holder {
    fx_mutex *m;
    fx_counter stage; /* 1 locked, 2 release asked, 3 released */
    pthread_t thread;
};

static void *holder_main(void *p)
{
    struct holder *h = p;
    struct timespec limit = fx_deadline_in(LIMIT_MS * MS);
    fx_mutex_lock(h->m);
    fx_counter_store(&h->stage, 1);
    fx_counter_wait(&h->stage, 2, &limit); /* a failed test never asks */
    fx_mutex_unlock(h->m);
    fx_counter_store(&h->stage, 3);
    return NULL;
}

/* Starts a holder of m (in the arena) and returns once it holds m. */
static struct holder *holder_start(fx_mutex *m)
{
    struct holder *h = fxt_arena(sizeof *h);
    h->m = m;
    h->thread = fxt_thread(holder_main, h);
    struct timespec limit = fx_deadline_in(LIMIT_MS * MS);
    assert_int_equal(fx_counter_wait(&h->stage, 1, &limit), 0);
    return h;
}

static void holder_release(struct holder *h)
{
    fx_counter_store(&h->stage, 2);
}

static void holder_join(struct holder *h)
{
    if (fx_counter_load(&h->stage) < 2)
        holder_release(h);
    join_within(h->thread);
}

/* Arm, ready at once ------------------------------------------------------------ */

static void test_mutex_free_is_acquired_at_once(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fx_async_mutex_lock(w, &m, NULL), 0);
    assert_int_equal(m.state, FX_MUTEX_LOCKED);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_complete(w), EINVAL); /* nothing armed */
    assert_int_equal(fx_mutex_unlock(&m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_mutex_free_ignores_passed_and_bad_deadlines(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex m = FX_MUTEX_INIT;
    struct timespec past = {-1, 0}, bad = {0, 1000000000L};
    assert_int_equal(fx_async_mutex_lock(w, &m, &past), 0);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    assert_int_equal(fx_async_mutex_lock(w, &m, &bad), 0);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

struct nofutex_arg {
    fx_mutex *m;
    int backend;
};

static int ready_now_child(void *p)
{
    struct nofutex_arg *a = p;
    fx_async *w;
    FXT_CHILD_CHECK(fx_async_create(&w, a->backend) == 0, 2);
    FXT_CHILD_CHECK(fx_async_mutex_lock(w, a->m, NULL) == 0, 3);
    FXT_CHILD_CHECK(fx_mutex_unlock(a->m) == 0, 4);
    FXT_CHILD_CHECK(fx_async_destroy(w) == 0, 5);
    return 0;
}

static void test_mutex_free_makes_no_futex_call(void **state)
{
    fx_async_destroy(new_waiter(state)); /* skips when unavailable */
    fx_mutex m = FX_MUTEX_INIT;
    struct nofutex_arg a = {&m, backend_of(state)};
    assert_int_equal(fxt_run_without_futex(&m, sizeof m, ready_now_child, &a), 0);
}

/* Arm while held, acquire after the release ------------------------------------ */

static void test_mutex_held_by_thread_is_acquired_after_release(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex();
    struct holder *h = holder_start(m);
    assert_int_equal(fx_async_mutex_lock(w, m, NULL), EINPROGRESS);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_complete(w), EINPROGRESS); /* early: harmless */
    holder_release(h);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_not_equal(m->state, FX_MUTEX_UNLOCKED); /* held by us */
    assert_false(readable_now(fx_async_fd(w)));
    holder_join(h);
    assert_int_equal(fx_mutex_trylock(m), EBUSY);
    assert_int_equal(fx_mutex_unlock(m), 0);
    assert_int_equal(m->state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_async_destroy(w), 0);
}

/* The loop of test_epoll_wait_is_not_interrupted_by_the_wake, on a thread of
 * its own: closing an io_uring ring makes the kernel finish the teardown
 * asynchronously and run one clean-up task-work item in every thread that
 * submitted to it, which interrupts that thread's next blocking system call
 * with EINTR (as a signal would). The main thread has destroyed many rings by
 * now; a fresh thread has submitted to none but its own. */
struct epoll_loop {
    int backend;
    struct holder *h;
    int create, add, arm, nready, err, data, complete, destroy;
};

static void *epoll_loop_main(void *p)
{
    struct epoll_loop *e = p;
    fx_async *w = NULL;
    e->create = fx_async_create(&w, e->backend);
    if (e->create != 0)
        return NULL;
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 7};
    e->add = epoll_ctl(ep, EPOLL_CTL_ADD, fx_async_fd(w), &ev);
    e->arm = fx_async_mutex_lock(w, e->h->m, NULL);
    holder_release(e->h);
    /* No signal is sent to this thread: the wake reaches it as readiness
     * only (io_uring: no task-work notification interrupts the wait). */
    struct epoll_event out = {0};
    errno = 0;
    e->nready = epoll_wait(ep, &out, 1, 5000);
    e->err = errno;
    e->data = (int)out.data.u32;
    e->complete = fx_async_complete(w);
    if (e->complete == 0)
        fx_mutex_unlock(e->h->m);
    close(ep);
    e->destroy = fx_async_destroy(w);
    return NULL;
}

static void test_epoll_wait_is_not_interrupted_by_the_wake(void **state)
{
    fx_async_destroy(new_waiter(state)); /* skips when unavailable */
    fx_mutex *m = arena_mutex();
    struct holder *h = holder_start(m);
    struct epoll_loop *e = fxt_arena(sizeof *e);
    e->backend = backend_of(state);
    e->h = h;
    join_within(fxt_thread(epoll_loop_main, e));
    assert_int_equal(e->create, 0);
    assert_int_equal(e->add, 0);
    assert_int_equal(e->arm, EINPROGRESS);
    assert_int_equal(e->nready, 1);
    assert_int_equal(e->err, 0);
    assert_int_equal(e->data, 7);
    assert_int_equal(e->complete, 0);
    assert_int_equal(e->destroy, 0);
    holder_join(h);
    assert_int_equal(m->state, FX_MUTEX_UNLOCKED);
}

struct xproc {
    fx_mutex m;
    fx_counter stage; /* 1 child holds m, 2 parent armed: release */
    int32_t word;
    fx_counter count;
};

static int hold_in_child(void *p)
{
    struct xproc *x = p;
    struct timespec d = fx_deadline_in(10000 * MS);
    FXT_CHILD_CHECK(fx_mutex_lock(&x->m) == 0, 2);
    fx_counter_store(&x->stage, 1);
    FXT_CHILD_CHECK(fx_counter_wait(&x->stage, 2, &d) == 0, 3);
    FXT_CHILD_CHECK(fx_mutex_unlock(&x->m) == 0, 4);
    return 0;
}

static void test_mutex_held_by_process_is_acquired_after_release(void **state)
{
    struct xproc *x = fxt_shared_alloc(sizeof *x);
    pid_t pid = fxt_fork(hold_in_child, x); /* before any helper thread */
    struct timespec d = fx_deadline_in(10000 * MS);
    assert_int_equal(fx_counter_wait(&x->stage, 1, &d), 0);
    fx_async *w = new_waiter(state);
    assert_int_equal(fx_async_mutex_lock(w, &x->m, NULL), EINPROGRESS);
    assert_false(readable_now(fx_async_fd(w)));
    fx_counter_store(&x->stage, 2);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_not_equal(x->m.state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fxt_wait_child(pid, 10000), 0);
    assert_int_equal(fx_mutex_unlock(&x->m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
    fxt_shared_free(x, sizeof *x);
}

/* Deadlines ---------------------------------------------------------------------- */

static void test_mutex_deadline_expires_with_etimedout(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex();
    struct holder *h = holder_start(m);
    struct timespec d = fx_deadline_in(40 * MS);
    int r = fx_async_mutex_lock(w, m, &d);
    assert_int_equal(finish_short_wait(w, r, &d, NULL), ETIMEDOUT);
    assert_true(fxt_now_ns() >= ts_ns(&d));
    assert_false(readable_now(fx_async_fd(w)));
    holder_release(h);
    holder_join(h);
    /* The abandoned CONTENDED mark cost a needless wake, nothing else. */
    assert_int_equal(m->state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_mutex_passed_deadline_is_not_armed(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex();
    struct holder *h = holder_start(m);
    struct timespec past = {-1, 0};
    assert_int_equal(fx_async_mutex_lock(w, m, &past), ETIMEDOUT);
    struct timespec now = fx_deadline_in(0);
    assert_int_equal(fx_async_mutex_lock(w, m, &now), ETIMEDOUT);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_complete(w), EINVAL);
    holder_join(h);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_mutex_bad_deadline_when_held_is_einval(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex();
    struct holder *h = holder_start(m);
    struct timespec bad = {0, 1000000000L}, neg = {0, -1};
    assert_int_equal(fx_async_mutex_lock(w, m, &bad), EINVAL);
    assert_int_equal(fx_async_mutex_lock(w, m, &neg), EINVAL);
    assert_int_equal(fx_async_complete(w), EINVAL);
    holder_join(h);
    assert_int_equal(fx_async_destroy(w), 0);
}

/* Cancellation ------------------------------------------------------------------- */

static void test_cancel_before_wake_leaves_mutex_to_others(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex();
    struct holder *h = holder_start(m);
    assert_int_equal(fx_async_mutex_lock(w, m, NULL), EINPROGRESS);
    wait_futex_sleepers(&m->state, own_sleepers(state));
    assert_int_equal(fx_async_cancel(w), 0);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_complete(w), EINVAL);
    assert_int_equal(fx_async_cancel(w), 0); /* idle: nothing to do */
    holder_release(h);
    holder_join(h);
    assert_int_equal(m->state, FX_MUTEX_UNLOCKED);
    assert_false(readable_now(fx_async_fd(w)));
    /* The waiter is reusable after a cancellation. */
    assert_int_equal(fx_async_mutex_lock(w, m, NULL), 0);
    assert_int_equal(fx_mutex_unlock(m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

struct blocked_locker {
    fx_mutex *m;
    int result; /* -1 until the lock call returned */
    pid_t tid;  /* its TID once it runs (atomic) */
    int32_t go; /* fxt_flag: 1 once it may lock */
};

static void *blocked_locker_main(void *p)
{
    struct blocked_locker *b = p;
    __atomic_store_n(&b->tid, fxt_gettid(), __ATOMIC_RELEASE);
    fxt_flag_wait(&b->go, 1, LIMIT_MS);
    struct timespec d = fx_deadline_in(10000 * MS);
    int r = fx_mutex_timedlock(b->m, &d);
    __atomic_store_n(&b->result, r, __ATOMIC_RELEASE);
    if (r == 0)
        fx_mutex_unlock(b->m);
    return NULL;
}

static void test_cancel_after_wake_passes_the_wake_on(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex();
    struct holder *h = holder_start(m);
    /* The waiter queues on the word first, then a blocking locker: the
     * release wakes the waiter (futex queues are FIFO at equal priority). */
    assert_int_equal(fx_async_mutex_lock(w, m, NULL), EINPROGRESS);
    wait_futex_sleepers(&m->state, own_sleepers(state));
    struct blocked_locker *b = fxt_arena(sizeof *b);
    b->m = m;
    b->result = -1;
    pthread_t t = fxt_thread(blocked_locker_main, b);
    /* The locker's first recheck re-reads the word, and in private memory
     * it is its only one (the sleeps after it have no timer): it must have
     * come and gone before the release, or it could take the mutex that
     * the release leaves free for the waiter it woke. */
    int64_t limit = fxt_now_ns() + LIMIT_MS * MS;
    pid_t tid;
    while ((tid = __atomic_load_n(&b->tid, __ATOMIC_ACQUIRE)) == 0) {
        assert_true(fxt_now_ns() < limit);
        sched_yield();
    }
    fxf_count_at_thread("futex.scope.private", tid);
    fxt_flag_set(&b->go, 1);
    wait_futex_sleepers(&m->state, own_sleepers(state) + 1);
    limit = fxt_now_ns() + LIMIT_MS * MS;
    while (fxf_counted() == 0) {
        assert_true(fxt_now_ns() < limit);
        usleep(1000);
    }
    assert_true(fxt_wait_asleep(tid, &m->state, LIMIT_MS));
    holder_release(h);
    assert_int_equal(wait_readable(fx_async_fd(w), 5000), 1);
    holder_join(h);
    /* The waiter took the only wake; the locker sleeps until it is passed on. */
    assert_int_equal(__atomic_load_n(&b->result, __ATOMIC_ACQUIRE), -1);
    assert_int_equal(fx_async_cancel(w), 0);
    join_within(t);
    assert_int_equal(b->result, 0);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(m->state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_destroy_while_armed_cancels(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex();
    struct holder *h = holder_start(m);
    assert_int_equal(fx_async_mutex_lock(w, m, NULL), EINPROGRESS);
    assert_int_equal(fx_async_destroy(w), 0);
    holder_release(h);
    holder_join(h);
    assert_int_equal(m->state, FX_MUTEX_UNLOCKED);
}

static void test_cancel_and_destroy_leak_no_fd_or_thread(void **state)
{
    int threads = threads_at_rest();
    fx_async_destroy(new_waiter(state)); /* skips when unavailable */
    int fds = count_fds();
    assert_int_equal(threads_settled(threads), threads);
    for (int i = 0; i < 6; i++) {
        fx_async *w = new_waiter(state);
        /* io_uring: the eventfd and the ring; thread: the eventfd and a
         * helper thread. */
        assert_int_equal(count_fds(), fds + (backend_of(state) == FX_ASYNC_URING ? 2 : 1));
        assert_int_equal(threads_settled(threads + own_sleepers(state)),
                         threads + own_sleepers(state));
        fx_mutex *m = arena_mutex();
    struct holder *h = holder_start(m);
        assert_int_equal(fx_async_mutex_lock(w, m, NULL), EINPROGRESS);
        if (i % 2 == 1) {
            holder_release(h); /* cancel after the fd fired */
            assert_int_equal(wait_readable(fx_async_fd(w), 5000), 1);
        }
        assert_int_equal(fx_async_cancel(w), 0);
        holder_join(h);
        assert_int_equal(fx_async_destroy(w), 0);
        assert_int_equal(m->state, FX_MUTEX_UNLOCKED);
    }
    assert_int_equal(count_fds(), fds);
    assert_int_equal(threads_settled(threads), threads);
}

/* Many waiters through one loop ----------------------------------------------------- */

#define MANY 16

static void test_many_waiters_on_one_mutex_through_one_epoll_loop(void **state)
{
    fx_mutex *m = arena_mutex();
    fx_async *w[MANY];
    int ep = epoll_create1(EPOLL_CLOEXEC);
    assert_true(ep >= 0);
    struct holder *h = holder_start(m);
    for (int i = 0; i < MANY; i++) {
        w[i] = new_waiter(state);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, fx_async_fd(w[i]), &ev), 0);
        assert_int_equal(fx_async_mutex_lock(w[i], m, NULL), EINPROGRESS);
    }
    holder_release(h);
    int acquired[MANY] = {0}, total = 0, inside = 0;
    int64_t limit = fxt_now_ns() + 10000 * MS;
    while (total < MANY && fxt_now_ns() < limit) {
        struct epoll_event ev[MANY];
        int n = epoll_wait(ep, ev, MANY, 100);
        for (int k = 0; k < n; k++) {
            int i = (int)ev[k].data.u32;
            int r = fx_async_complete(w[i]);
            if (r == EINPROGRESS)
                continue;
            assert_int_equal(r, 0);
            assert_int_equal(inside++, 0); /* mutual exclusion */
            acquired[i]++;
            total++;
            inside--;
            assert_int_equal(fx_mutex_unlock(m), 0);
        }
    }
    holder_join(h);
    for (int i = 0; i < MANY; i++) {
        assert_int_equal(acquired[i], 1);
        assert_false(readable_now(fx_async_fd(w[i])));
        assert_int_equal(fx_async_destroy(w[i]), 0);
    }
    assert_int_equal(m->state, FX_MUTEX_UNLOCKED);
    close(ep);
}

/* Raw futex words ---------------------------------------------------------------------- */

static void test_futex_wait_woken_by_the_loop_thread_itself(void **state)
{
    fx_async *w = new_waiter(state);
    int32_t word = 0;
    assert_int_equal(fx_async_futex_wait(w, &word, 0, NULL), EINPROGRESS);
    /* The calling thread runs on: it is the one that wakes the word, once
     * the wait sits in the kernel's queue. */
    int64_t limit = fxt_now_ns() + 5000 * MS;
    int woken;
    while ((woken = fx_futex_wake(&word, 1)) == 0)
        assert_true(fxt_now_ns() < limit);
    assert_int_equal(woken, 1);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_futex_value_differs_gives_eagain_at_once(void **state)
{
    fx_async *w = new_waiter(state);
    int32_t word = 5;
    assert_int_equal(fx_async_futex_wait(w, &word, 4, NULL), EAGAIN);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_futex_deadline_expires_with_etimedout(void **state)
{
    fx_async *w = new_waiter(state);
    int32_t word = 0;
    struct timespec d = fx_deadline_in(30 * MS);
    int r = fx_async_futex_wait(w, &word, 0, &d), in_progress = -1;
    assert_int_equal(finish_short_wait(w, r, &d, &in_progress), ETIMEDOUT);
    assert_true(fxt_now_ns() >= ts_ns(&d));
    /* The deadline makes the fd readable once, and that completes it (io_uring:
     * the fired timeout's completion and the cancelled wait's are both taken). */
    assert_int_equal(in_progress, 0);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_destroy(w), 0);
}

static int wake_from_child(void *p)
{
    struct xproc *x = p;
    struct timespec d = fx_deadline_in(10000 * MS);
    FXT_CHILD_CHECK(fx_counter_wait(&x->stage, 2, &d) == 0, 2);
    /* A plain (not private) FUTEX_WAKE from another process, the word
     * unchanged: the waiter can only finish by being woken. */
    int woken;
    int64_t limit = fxt_now_ns() + 5000 * MS;
    while ((woken = fx_futex_wake(&x->word, 1)) == 0)
        FXT_CHILD_CHECK(fxt_now_ns() < limit, 3);
    FXT_CHILD_CHECK(woken == 1, 4);
    return 0;
}

static void test_futex_in_shared_memory_woken_by_another_process(void **state)
{
    struct xproc *x = fxt_shared_alloc(sizeof *x);
    pid_t pid = fxt_fork(wake_from_child, x);
    fx_async *w = new_waiter(state);
    assert_int_equal(fx_async_futex_wait(w, &x->word, 0, NULL), EINPROGRESS);
    fx_counter_store(&x->stage, 2);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_equal(fxt_wait_child(pid, 10000), 0);
    assert_int_equal(fx_async_destroy(w), 0);
    fxt_shared_free(x, sizeof *x);
}

static void test_futex_bad_arguments_are_einval(void **state)
{
    fx_async *w = new_waiter(state);
    int32_t words[2] = {0, 0};
    struct timespec bad = {0, 1000000000L};
    assert_int_equal(fx_async_futex_wait(w, NULL, 0, NULL), EINVAL);
    assert_int_equal(fx_async_futex_wait(w, (int32_t *)(void *)((char *)words + 1), 0, NULL),
                     EINVAL);
    assert_int_equal(fx_async_futex_wait(w, &words[0], 0, &bad), EINVAL);
    assert_int_equal(fx_async_futex_wait(NULL, &words[0], 0, NULL), EINVAL);
    assert_int_equal(fx_async_destroy(w), 0);
}

/* Counters ------------------------------------------------------------------------------- */

static void test_counter_at_target_is_ready_at_once(void **state)
{
    fx_async *w = new_waiter(state);
    fx_counter c = FX_COUNTER_INIT(7);
    assert_int_equal(fx_async_counter_wait(w, &c, 7, NULL), 0);
    assert_int_equal(c.waiters, 0);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_destroy(w), 0);
}

struct adder {
    fx_counter *c;
    int times;
};

static void *adder_main(void *p)
{
    struct adder *a = p;
    for (int i = 0; i < a->times; i++)
        fx_counter_add(a->c, 1);
    return NULL;
}

static void test_counter_reaches_target_from_another_thread(void **state)
{
    fx_async *w = new_waiter(state);
    fx_counter *c = fxt_arena(sizeof *c);
    assert_int_equal(fx_async_counter_wait(w, c, 3, NULL), EINPROGRESS);
    assert_int_equal(c->waiters, 1); /* counted while armed: writers wake it */
    struct adder *a = fxt_arena(sizeof *a);
    a->c = c;
    a->times = 3;
    pthread_t t = fxt_thread(adder_main, a);
    assert_int_equal(complete_within(w, 5000), 0);
    join_within(t);
    assert_int_equal(fx_counter_load(c), 3);
    assert_int_equal(c->waiters, 0);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_destroy(w), 0);
}

static int count_down_in_child(void *p)
{
    struct xproc *x = p;
    struct timespec d = fx_deadline_in(10000 * MS);
    FXT_CHILD_CHECK(fx_counter_wait(&x->stage, 2, &d) == 0, 2);
    for (int i = 0; i < 4; i++)
        fx_counter_add(&x->count, -1);
    return 0;
}

static void test_counter_reaches_target_from_another_process(void **state)
{
    struct xproc *x = fxt_shared_alloc(sizeof *x);
    fx_counter_store(&x->count, 4);
    pid_t pid = fxt_fork(count_down_in_child, x);
    fx_async *w = new_waiter(state);
    assert_int_equal(fx_async_counter_wait(w, &x->count, 0, NULL), EINPROGRESS);
    fx_counter_store(&x->stage, 2);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_equal(x->count.waiters, 0);
    assert_int_equal(fxt_wait_child(pid, 10000), 0);
    assert_int_equal(fx_async_destroy(w), 0);
    fxt_shared_free(x, sizeof *x);
}

static void test_counter_deadline_expires_and_uncounts(void **state)
{
    fx_async *w = new_waiter(state);
    fx_counter c = FX_COUNTER_INIT(1);
    struct timespec d = fx_deadline_in(30 * MS);
    int r = fx_async_counter_wait(w, &c, 0, &d);
    assert_int_equal(finish_short_wait(w, r, &d, NULL), ETIMEDOUT);
    assert_true(fxt_now_ns() >= ts_ns(&d));
    assert_int_equal(c.waiters, 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static int add_child(void *p)
{
    fx_counter_add(p, 1);
    return 0;
}

static void test_counter_cancel_uncounts_so_writers_skip_the_kernel(void **state)
{
    fx_async *w = new_waiter(state);
    fx_counter c = FX_COUNTER_INIT(1);
    assert_int_equal(fx_async_counter_wait(w, &c, 0, NULL), EINPROGRESS);
    assert_int_equal(c.waiters, 1);
    assert_int_equal(fx_async_cancel(w), 0);
    assert_int_equal(c.waiters, 0);
    assert_int_equal(fxt_run_without_futex(&c, sizeof c, add_child, &c), 0);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_counter_negative_waiters_slot_is_einval(void **state)
{
    fx_async *w = new_waiter(state);
    fx_counter c = {0, -1};
    assert_int_equal(fx_async_counter_wait(w, &c, 1, NULL), EINVAL);
    assert_int_equal(fx_async_counter_wait(w, NULL, 1, NULL), EINVAL);
    assert_int_equal(fx_async_destroy(w), 0);
}

/* Issue 19: a count the waiter's R1 would wrap (INT32_MAX) is refused as a
 * negative one is, and left alone (it used to be armed, the count wrapped to
 * INT32_MIN under it). */
static void test_counter_waiters_slot_that_would_wrap_is_einval(void **state)
{
    fx_async *w = new_waiter(state);
    fx_counter c = {0, INT32_MAX};
    assert_int_equal(fx_async_counter_wait(w, &c, 1, NULL), EINVAL);
    assert_int_equal(c.waiters, INT32_MAX);
    assert_int_equal(fx_async_destroy(w), 0);
}

/* executeLocked ------------------------------------------------------------------------- */

struct run_record {
    fx_mutex *m;
    int runs;
    int32_t state_inside;
};

static void record_run(void *p)
{
    struct run_record *rr = p;
    rr->runs++;
    rr->state_inside = __atomic_load_n(&rr->m->state, __ATOMIC_RELAXED);
}

static void test_run_on_free_mutex_runs_before_returning(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex m = FX_MUTEX_INIT;
    struct run_record rr = {&m, 0, 0};
    assert_int_equal(fx_async_mutex_run(w, &m, NULL, record_run, &rr), 0);
    assert_int_equal(rr.runs, 1);
    assert_int_not_equal(rr.state_inside, FX_MUTEX_UNLOCKED);
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_run_on_held_mutex_runs_in_complete_once_acquired(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex();
    struct run_record rr = {m, 0, 0};
    struct holder *h = holder_start(m);
    struct timespec d = fx_deadline_in(10000 * MS);
    assert_int_equal(fx_async_mutex_run(w, m, &d, record_run, &rr), EINPROGRESS);
    assert_int_equal(rr.runs, 0);
    holder_release(h);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_equal(rr.runs, 1);
    assert_int_not_equal(rr.state_inside, FX_MUTEX_UNLOCKED);
    holder_join(h);
    assert_int_equal(m->state, FX_MUTEX_UNLOCKED); /* unlocked after the callback */
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_run_does_not_run_on_timeout_or_cancel(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex();
    struct run_record rr = {m, 0, 0};
    struct holder *h = holder_start(m);
    struct timespec d = fx_deadline_in(20 * MS);
    int r = fx_async_mutex_run(w, m, &d, record_run, &rr);
    assert_int_equal(finish_short_wait(w, r, &d, NULL), ETIMEDOUT);
    assert_int_equal(fx_async_mutex_run(w, m, NULL, record_run, &rr), EINPROGRESS);
    assert_int_equal(fx_async_cancel(w), 0);
    holder_join(h);
    assert_int_equal(rr.runs, 0);
    assert_int_equal(m->state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_run_without_callback_is_einval(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex m = FX_MUTEX_INIT;
    assert_int_equal(fx_async_mutex_run(w, &m, NULL, NULL, NULL), EINVAL);
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_async_destroy(w), 0);
}

/* Misuse ------------------------------------------------------------------------------------ */

static void test_arming_an_armed_waiter_is_ebusy(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex(), *free_m = arena_mutex();
    int32_t word = 0;
    fx_counter c = FX_COUNTER_INIT(0);
    struct holder *h = holder_start(m);
    assert_int_equal(fx_async_mutex_lock(w, m, NULL), EINPROGRESS);
    assert_int_equal(fx_async_mutex_lock(w, free_m, NULL), EBUSY);
    assert_int_equal(fx_async_futex_wait(w, &word, 0, NULL), EBUSY);
    assert_int_equal(fx_async_counter_wait(w, &c, 0, NULL), EBUSY);
    assert_int_equal(free_m->state, FX_MUTEX_UNLOCKED);
    holder_release(h);
    assert_int_equal(complete_within(w, 5000), 0);
    holder_join(h);
    assert_int_equal(fx_mutex_unlock(m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_mutex_bad_arguments_are_einval(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex bad = {7};
    int32_t words[2] = {0, 0};
    assert_int_equal(fx_async_mutex_lock(w, NULL, NULL), EINVAL);
    assert_int_equal(fx_async_mutex_lock(w, (fx_mutex *)(void *)((char *)words + 2), NULL),
                     EINVAL);
    assert_int_equal(fx_async_mutex_lock(w, &bad, NULL), EINVAL);
    assert_int_equal(bad.state, 7);
    assert_int_equal(fx_async_mutex_lock(NULL, &bad, NULL), EINVAL);
    assert_int_equal(fx_async_destroy(w), 0);
}

struct other_thread {
    fx_async *w;
    fx_mutex *m;
    int arm, complete, cancel, destroy;
    int32_t state_after_arm;
};

static void *other_thread_main(void *p)
{
    struct other_thread *o = p;
    o->arm = fx_async_mutex_lock(o->w, o->m, NULL);
    o->state_after_arm = __atomic_load_n(&o->m->state, __ATOMIC_RELAXED);
    if (o->arm == 0)
        fx_mutex_unlock(o->m); /* the thread that locked it unlocks it */
    o->complete = fx_async_complete(o->w);
    o->cancel = fx_async_cancel(o->w);
    o->destroy = fx_async_destroy(o->w);
    return NULL;
}

/* Runs other_thread_main on a new thread, its record in the arena. */
static struct other_thread *other_thread_run(fx_async *w, fx_mutex *m)
{
    struct other_thread *o = fxt_arena(sizeof *o);
    o->w = w;
    o->m = m;
    join_within(fxt_thread(other_thread_main, o));
    return o;
}

static void test_other_threads_get_eperm(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex(), *free_m = arena_mutex();
    struct holder *h = holder_start(m);
    assert_int_equal(fx_async_mutex_lock(w, m, NULL), EINPROGRESS);
    /* Armed: only the creator may complete, cancel or destroy it. */
    struct other_thread *o = other_thread_run(w, free_m);
    assert_int_equal(o->arm, EBUSY);
    assert_int_equal(o->complete, EPERM);
    assert_int_equal(o->cancel, EPERM);
    assert_int_equal(o->destroy, EPERM);
    assert_int_equal(free_m->state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_async_cancel(w), 0);
    /* Idle: an arm that must wait is refused to another thread... */
    struct other_thread *o2 = other_thread_run(w, m);
    assert_int_equal(o2->arm, EPERM);
    assert_int_equal(o2->destroy, EPERM);
    /* ... one that need not wait succeeds from any thread. */
    struct other_thread *o3 = other_thread_run(w, free_m);
    assert_int_equal(o3->arm, 0);
    assert_int_equal(o3->state_after_arm, FX_MUTEX_LOCKED);
    assert_int_equal(free_m->state, FX_MUTEX_UNLOCKED);
    holder_join(h);
    assert_int_equal(fx_async_destroy(w), 0);
}

static int forked_child_uses_parent_waiter(void *p)
{
    struct other_thread *o = p;
    FXT_CHILD_CHECK(fx_async_mutex_lock(o->w, o->m, NULL) == EPERM, 2);
    FXT_CHILD_CHECK(fx_async_destroy(o->w) == EPERM, 3);
    return 0;
}

static void test_forked_child_gets_eperm(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = fxt_shared_alloc(sizeof *m);
    assert_int_equal(fx_mutex_lock(m), 0);
    struct other_thread o = {w, m, 0, 0, 0, 0, 0};
    assert_int_equal(fxt_run_child(forked_child_uses_parent_waiter, &o), 0);
    assert_int_equal(fx_mutex_unlock(m), 0);
    assert_int_equal(m->state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_async_destroy(w), 0);
    fxt_shared_free(m, sizeof *m);
}

/* The thread rule holds for an idle waiter too: another thread's complete
 * and cancel are refused before the waiter's state is looked at. */
struct idle_other {
    fx_async *w;
    int complete, cancel, destroy;
};

static void *idle_other_main(void *p)
{
    struct idle_other *o = p;
    o->complete = fx_async_complete(o->w);
    o->cancel = fx_async_cancel(o->w);
    o->destroy = fx_async_destroy(o->w);
    return NULL;
}

static struct idle_other *idle_other_run(fx_async *w)
{
    struct idle_other *o = fxt_arena(sizeof *o);
    o->w = w;
    join_within(fxt_thread(idle_other_main, o));
    return o;
}

static void test_cancel_of_an_idle_waiter_from_another_thread_is_eperm(void **state)
{
    fx_async *w = new_waiter(state);
    struct idle_other *o = idle_other_run(w);
    assert_int_equal(o->cancel, EPERM);
    /* Nothing happened: the creator still uses and destroys it. */
    int32_t word = 0;
    assert_int_equal(fx_async_futex_wait(w, &word, 1, NULL), EAGAIN);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_complete_of_an_idle_waiter_from_another_thread_is_eperm(void **state)
{
    fx_async *w = new_waiter(state);
    struct idle_other *o = idle_other_run(w);
    assert_int_equal(o->complete, EPERM);
    assert_int_equal(fx_async_complete(w), EINVAL); /* the creator: nothing armed */
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_destroy_of_an_idle_waiter_from_another_thread_is_eperm(void **state)
{
    fx_async *w = new_waiter(state);
    struct idle_other *o = idle_other_run(w);
    assert_int_equal(o->destroy, EPERM);
    assert_int_equal(fx_async_destroy(w), 0);
}

static int forked_child_cancels_parent_idle_waiter(void *p)
{
    fx_async *w = p;
    FXT_CHILD_CHECK(fx_async_cancel(w) == EPERM, 2);
    FXT_CHILD_CHECK(fx_async_complete(w) == EPERM, 3);
    return 0;
}

static void test_cancel_of_the_parents_idle_waiter_in_a_forked_child_is_eperm(void **state)
{
    fx_async *w = new_waiter(state);
    assert_int_equal(fxt_run_child(forked_child_cancels_parent_idle_waiter, w), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_null_waiter_is_einval(void **state)
{
    (void)state;
    assert_int_equal(fx_async_fd(NULL), -EINVAL);
    assert_int_equal(fx_async_backend(NULL), -EINVAL);
    assert_int_equal(fx_async_complete(NULL), EINVAL);
    assert_int_equal(fx_async_cancel(NULL), EINVAL);
    assert_int_equal(fx_async_destroy(NULL), EINVAL);
}

/* Signals and mutual exclusion under load ------------------------------------------------- */

#define ROUNDS 100

struct handshake {
    fx_mutex m;
    fx_counter stage; /* 3i+1: contender holds m; 3i+2: the loop is armed */
    int count;        /* protected by m */
    int rounds;       /* the contender's; written by the loop while it waits */
};

static void *handshake_contender(void *p)
{
    struct handshake *hs = p;
    for (int i = 0; i < hs->rounds; i++) {
        struct timespec limit = fx_deadline_in(LIMIT_MS * MS);
        if (fx_counter_wait(&hs->stage, 3 * i, &limit) != 0)
            break; /* the test failed */
        fx_mutex_lock(&hs->m);
        fx_counter_store(&hs->stage, 3 * i + 1);
        fx_counter_wait(&hs->stage, 3 * i + 2, &limit);
        hs->count++;
        fx_mutex_unlock(&hs->m);
    }
    return NULL;
}

static void test_waits_absorb_a_signal_storm_on_the_loop_thread(void **state)
{
    fx_async *w = new_waiter(state);
    struct handshake *hs = fxt_arena(sizeof *hs);
    hs->rounds = INT32_MAX;
    struct fxt_storm *storm = fxt_storm_start(pthread_self());
    pthread_t t = fxt_thread(handshake_contender, hs);
    /* At least ROUNDS rounds and 50 ms, so that the storm is under way ... */
    int64_t until = fxt_now_ns() + 50 * MS;
    int i;
    bool last = false;
    struct timespec far = fx_deadline_in(60000 * MS); /* a linked timeout, never due */
    for (i = 0; !last; i++) {
        struct timespec limit = fx_deadline_in(LIMIT_MS * MS);
        assert_int_equal(fx_counter_wait(&hs->stage, 3 * i + 1, &limit), 0);
        /* Every round waits: the contender holds the mutex until armed. */
        assert_int_equal(fx_async_mutex_lock(w, &hs->m, i % 2 ? &far : NULL), EINPROGRESS);
        /* ... and until signals have arrived (a busy machine may not
         * have run the storm's thread yet). */
        last = i + 1 >= ROUNDS && fxt_now_ns() >= until && fxt_signal_count() >= 10;
        assert_true(fxt_now_ns() < until + LIMIT_MS * MS);
        if (last)
            hs->rounds = i + 1; /* read by the contender after stage 3i+2 */
        fx_counter_store(&hs->stage, 3 * i + 2);
        assert_int_equal(complete_within(w, 5000), 0);
        hs->count++;
        assert_int_equal(fx_mutex_unlock(&hs->m), 0);
        fx_counter_store(&hs->stage, 3 * i + 3);
    }
    join_within(t);
    long signals = fxt_storm_stop(storm);
    assert_true(signals > 0);
    assert_int_equal(hs->count, 2 * i);
    assert_int_equal(hs->m.state, FX_MUTEX_UNLOCKED);
    print_message("%d rounds, %ld signals\n", i, signals);
    assert_int_equal(fx_async_destroy(w), 0);
}

struct contender {
    fx_mutex *m;
    volatile int *count; /* protected by m; volatile: every access is made */
    fx_counter started;
    int stop;            /* set by the loop when it is done */
    int added;           /* the contender's own additions to *count */
    int sections;        /* critical sections run (atomic) */
};

/* Holds the mutex ~20 us at a time, with ~20 us in between, until told to
 * stop, so that the loop's acquisitions often meet it held. */
static void *contender_main(void *p)
{
    struct contender *c = p;
    int64_t limit = fxt_now_ns() + LIMIT_MS * MS; /* a failed test never stops it */
    fx_counter_store(&c->started, 1);
    while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED) && fxt_now_ns() < limit) {
        fx_mutex_lock(c->m);
        int64_t until = fxt_now_ns() + 20000;
        while (fxt_now_ns() < until) {
            (*c->count)++;
            c->added++;
        }
        fx_mutex_unlock(c->m);
        __atomic_fetch_add(&c->sections, 1, __ATOMIC_RELAXED);
        until = fxt_now_ns() + 20000;
        while (fxt_now_ns() < until)
            continue;
    }
    return NULL;
}

static void test_async_and_blocking_lockers_exclude_each_other(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex();
    volatile int *count = fxt_arena(sizeof *count);
    int mine = 0, waited = 0;
    struct contender *c = fxt_arena(sizeof *c);
    c->m = m;
    c->count = count;
    pthread_t t = fxt_thread(contender_main, c);
    struct timespec limit_ts = fx_deadline_in(LIMIT_MS * MS);
    assert_int_equal(fx_counter_wait(&c->started, 1, &limit_ts), 0);
    struct timespec far = fx_deadline_in(60000 * MS); /* a linked timeout, never due */
    for (int i = 0; i < ROUNDS; i++) {
        int r = fx_async_mutex_lock(w, m, i % 2 ? &far : NULL);
        if (r == EINPROGRESS) {
            waited++;
            r = complete_within(w, 5000);
        }
        assert_int_equal(r, 0);
        int before = *count, added = 0;
        int64_t until = fxt_now_ns() + 20000;
        while (fxt_now_ns() < until) {
            (*count)++;
            added++;
        }
        assert_int_equal(*count, before + added); /* nobody else inside */
        mine += added;
        assert_int_equal(fx_mutex_unlock(m), 0);
        until = fxt_now_ns() + 20000; /* the loop's other work */
        while (fxt_now_ns() < until)
            continue;
    }
    int64_t limit = fxt_now_ns() + 5000 * MS;
    while (__atomic_load_n(&c->sections, __ATOMIC_RELAXED) == 0)
        assert_true(fxt_now_ns() < limit); /* the contender got in at least once */
    __atomic_store_n(&c->stop, 1, __ATOMIC_RELAXED);
    join_within(t);
    assert_int_equal(*count, mine + c->added); /* no update lost */
    assert_int_equal(m->state, FX_MUTEX_UNLOCKED);
    print_message("%d of %d async acquisitions waited\n", waited, ROUNDS);
    assert_int_equal(fx_async_destroy(w), 0);
}

/* Latency: the fd is readable soon after the unlock ---------------------------------------- */

struct timed_holder {
    fx_mutex m;
    fx_counter go;
    int64_t unlocked_at;
};

static void *timed_holder_main(void *p)
{
    struct timed_holder *th = p;
    for (int i = 0; i < 20; i++) {
        struct timespec limit = fx_deadline_in(LIMIT_MS * MS);
        if (fx_counter_wait(&th->go, 3 * i, &limit) != 0)
            break; /* the test failed */
        fx_mutex_lock(&th->m);
        fx_counter_store(&th->go, 3 * i + 1);
        fx_counter_wait(&th->go, 3 * i + 2, &limit);
        __atomic_store_n(&th->unlocked_at, fxt_now_ns(), __ATOMIC_SEQ_CST);
        fx_mutex_unlock(&th->m);
    }
    return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void test_fd_becomes_readable_soon_after_unlock(void **state)
{
    fx_async *w = new_waiter(state);
    struct timed_holder *th = fxt_arena(sizeof *th);
    pthread_t t = fxt_thread(timed_holder_main, th);
    int64_t lat[20];
    for (int i = 0; i < 20; i++) {
        struct timespec limit = fx_deadline_in(LIMIT_MS * MS);
        assert_int_equal(fx_counter_wait(&th->go, 3 * i + 1, &limit), 0);
        assert_int_equal(fx_async_mutex_lock(w, &th->m, NULL), EINPROGRESS);
        fx_counter_store(&th->go, 3 * i + 2);
        assert_int_equal(wait_readable(fx_async_fd(w), 5000), 1);
        lat[i] = fxt_now_ns() - __atomic_load_n(&th->unlocked_at, __ATOMIC_SEQ_CST);
        assert_int_equal(complete_within(w, 5000), 0);
        assert_int_equal(fx_mutex_unlock(&th->m), 0);
        fx_counter_store(&th->go, 3 * i + 3);
    }
    join_within(t);
    qsort(lat, 20, sizeof lat[0], cmp_i64);
    print_message("unlock -> fd readable: median %.1f us, max %.1f us\n", lat[10] / 1e3,
                  lat[19] / 1e3);
    assert_true(lat[10] < 50 * MS); /* generous: a busy CI machine */
    assert_int_equal(fx_async_destroy(w), 0);
}

/* Re-entrant mutexes (fx_rmutex) ------------------------------------------------------------ */

static int32_t owner_word(const fx_rmutex *m)
{
    return __atomic_load_n(&m->owner, __ATOMIC_RELAXED);
}

/* The depth slot; read by its owner only. */
static int32_t depth_slot(const fx_rmutex *m)
{
    return __atomic_load_n(&m->depth, __ATOMIC_RELAXED);
}

/* Polls w's fd and completes for ms milliseconds; every completion must say
 * EINPROGRESS (the operation must not finish). Returns how many there were:
 * an rmutex waiter's fd fires at each liveness re-check of the owner. */
static int drive_in_progress(fx_async *w, int ms)
{
    int64_t until = fxt_now_ns() + ms * MS;
    int n = 0;
    for (;;) {
        int64_t left = (until - fxt_now_ns()) / MS;
        if (left <= 0)
            return n;
        if (wait_readable(fx_async_fd(w), (int)left)) {
            assert_int_equal(fx_async_complete(w), EINPROGRESS);
            n++;
        }
    }
}

/* A thread that locks an rmutex, then unlocks it or exits holding it, as told. */
enum { RH_UNLOCK = 1, RH_EXIT = 2 };

struct rholder {
    fx_rmutex *m;
    fx_counter stage; /* 1: holds m; 2: told what to do (mode); 3: done */
    int mode;         /* RH_*, written before stage 2 */
    int lock_result;
    int unlock_result;
    pid_t tid;
    int32_t word; /* the owner word it writes (fxt_rmutex_self_word) */
    pthread_t thread;
};

static void *rholder_main(void *p)
{
    struct rholder *h = p;
    struct timespec limit = fx_deadline_in(LIMIT_MS * MS);
    h->lock_result = fx_rmutex_lock(h->m);
    h->tid = fxt_gettid();
    h->word = fxt_rmutex_self_word();
    fx_counter_store(&h->stage, 1);
    /* A failed test never tells it: it unlocks at the limit. */
    if (fx_counter_wait(&h->stage, 2, &limit) != 0 || h->mode == RH_UNLOCK)
        h->unlock_result = fx_rmutex_unlock(h->m);
    fx_counter_store(&h->stage, 3);
    return NULL; /* RH_EXIT: the thread ends holding m */
}

/* Starts an rholder of m (in the arena) and returns once it holds m. */
static struct rholder *rholder_start(fx_rmutex *m)
{
    struct rholder *h = fxt_arena(sizeof *h);
    h->m = m;
    h->thread = fxt_thread(rholder_main, h);
    struct timespec limit = fx_deadline_in(LIMIT_MS * MS);
    assert_int_equal(fx_counter_wait(&h->stage, 1, &limit), 0);
    return h;
}

static void rholder_tell(struct rholder *h, int mode)
{
    h->mode = mode;
    fx_counter_store(&h->stage, 2);
}

static void rholder_join(struct rholder *h)
{
    if (fx_counter_load(&h->stage) < 2)
        rholder_tell(h, RH_UNLOCK);
    join_within(h->thread);
}

/* An rmutex whose owner thread has exited holding it (and is gone); its TID
 * in *tid (when not NULL). An owner with a robust list (its word names it
 * without FX_RMUTEX_PROBED) is reported by the kernel at its exit: the word
 * is FX_RMUTEX_ORPHANED at once (no WAITERS: nobody slept), so
 * fx_rmutex_owner says 0 and fx_rmutex_recover finds nothing to recover. A
 * PROBED owner's word still names it, for the liveness probe to find dead. */
static fx_rmutex *rmutex_of_a_dead_thread(pid_t *tid)
{
    fx_rmutex *m = arena_rmutex();
    struct rholder *h = rholder_start(m);
    assert_int_equal(owner_word(m), h->word);
    const bool probed = (h->word & FX_RMUTEX_PROBED) != 0;
    rholder_tell(h, RH_EXIT);
    join_within(h->thread);
    wait_thread_gone(h->tid);
    if (probed) {
        assert_int_equal(fx_rmutex_owner(m), h->tid);
    } else {
        assert_int_equal(owner_word(m), FX_RMUTEX_ORPHANED);
        assert_int_equal(fx_rmutex_owner(m), 0);
        assert_int_equal(fx_rmutex_recover(m, h->tid), EPERM);
    }
    if (tid != NULL)
        *tid = h->tid;
    return m;
}

static void test_rmutex_free_is_acquired_at_once(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex m = FX_RMUTEX_INIT;
    struct timespec past = {-1, 0}, bad = {0, 1000000000L};
    assert_int_equal(fx_async_rmutex_lock(w, &m, NULL), 0);
    assert_int_equal(fx_rmutex_owner(&m), fxt_gettid());
    assert_int_equal(depth_slot(&m), 1);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_complete(w), EINVAL); /* nothing armed */
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(owner_word(&m), 0);
    /* Whatever the deadline (POSIX: it can succeed at once). */
    assert_int_equal(fx_async_rmutex_lock(w, &m, &past), 0);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(fx_async_rmutex_lock(w, &m, &bad), 0);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(owner_word(&m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_reentry_is_ready_at_once(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex m = FX_RMUTEX_INIT;
    struct timespec past = {-1, 0};
    assert_int_equal(fx_rmutex_lock(&m), 0);
    assert_int_equal(fx_async_rmutex_lock(w, &m, NULL), 0);
    assert_int_equal(depth_slot(&m), 2);
    assert_int_equal(fx_async_rmutex_lock(w, &m, &past), 0);
    assert_int_equal(depth_slot(&m), 3);
    assert_int_equal(fx_rmutex_owner(&m), fxt_gettid());
    assert_false(readable_now(fx_async_fd(w)));
    for (int i = 0; i < 3; i++)
        assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(owner_word(&m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_reentry_past_the_depth_limit_is_eagain(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex m = FX_RMUTEX_INIT;
    assert_int_equal(fx_rmutex_lock(&m), 0);
    m.depth = FX_RMUTEX_DEPTH_MAX; /* the owner's slot: reach the limit at once */
    assert_int_equal(fx_async_rmutex_lock(w, &m, NULL), EAGAIN);
    assert_int_equal(depth_slot(&m), FX_RMUTEX_DEPTH_MAX);
    assert_false(readable_now(fx_async_fd(w)));
    m.depth = 1;
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(owner_word(&m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

struct rnofutex_arg {
    fx_rmutex *m;
    int backend;
};

static int rmutex_ready_now_child(void *p)
{
    struct rnofutex_arg *a = p;
    fx_async *w;
    FXT_CHILD_CHECK(fx_async_create(&w, a->backend) == 0, 2);
    FXT_CHILD_CHECK(fx_async_rmutex_lock(w, a->m, NULL) == 0, 3);
    FXT_CHILD_CHECK(fx_async_rmutex_lock(w, a->m, NULL) == 0, 4); /* re-entry */
    FXT_CHILD_CHECK(fx_rmutex_unlock(a->m) == 0, 5);
    FXT_CHILD_CHECK(fx_rmutex_unlock(a->m) == 0, 6);
    FXT_CHILD_CHECK(fx_async_destroy(w) == 0, 7);
    return 0;
}

static void test_rmutex_free_and_reentry_make_no_futex_call(void **state)
{
    fx_async_destroy(new_waiter(state)); /* skips when unavailable */
    fx_rmutex m = FX_RMUTEX_INIT;
    struct rnofutex_arg a = {&m, backend_of(state)};
    assert_int_equal(fxt_run_without_futex(&m, sizeof m, rmutex_ready_now_child, &a), 0);
}

static void test_rmutex_held_by_thread_is_acquired_after_release(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex *m = arena_rmutex();
    struct rholder *h = rholder_start(m);
    const bool probed = (h->word & FX_RMUTEX_PROBED) != 0;
    assert_int_equal(fx_async_rmutex_lock(w, m, NULL), EINPROGRESS);
    /* Marked: the holder's unlock wakes the waiter. */
    assert_int_equal(owner_word(m), h->word | FX_RMUTEX_WAITERS);
    if (probed) {
        /* Held by a live owner without a robust list: the fd fires for the
         * liveness re-checks and complete re-arms; it never acquires. */
        assert_int_equal(drive_readinesses(w, 2, 5000), 2);
    } else {
        /* The kernel reports this owner's death: no re-check time, so the
         * fd stays quiet for what would have been three re-checks. */
        assert_int_equal(drive_in_progress(w, 3 * (FXI_RMUTEX_FIRST_CHECK_MS +
                                                    FXI_RMUTEX_RECHECK_MS)),
                         0);
    }
    rholder_tell(h, RH_UNLOCK);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_equal(fx_rmutex_owner(m), fxt_gettid());
    assert_int_equal(depth_slot(m), 1);
    assert_false(readable_now(fx_async_fd(w)));
    rholder_join(h);
    assert_int_equal(h->lock_result, 0);
    assert_int_equal(h->unlock_result, 0);
    assert_int_equal(fx_rmutex_trylock(m), 0); /* re-entry: ours */
    assert_int_equal(fx_rmutex_unlock(m), 0);
    assert_int_equal(fx_rmutex_unlock(m), 0);
    assert_int_equal(owner_word(m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_taken_by_the_loop_meanwhile_completes_as_reentry(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex *m = arena_rmutex();
    struct rholder *h = rholder_start(m);
    assert_int_equal(fx_async_rmutex_lock(w, m, NULL), EINPROGRESS);
    rholder_join(h); /* released (the waiter is woken) */
    /* Before completing, the loop thread takes m by other means. */
    assert_int_equal(fx_rmutex_lock(m), 0);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_equal(fx_rmutex_owner(m), fxt_gettid());
    assert_int_equal(depth_slot(m), 2); /* one level each */
    assert_int_equal(fx_rmutex_unlock(m), 0);
    assert_int_equal(fx_rmutex_unlock(m), 0);
    assert_int_equal(owner_word(m), 0);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_destroy(w), 0);
}

struct rxproc {
    fx_rmutex m;
    fx_counter stage; /* 1 child holds m, 2 parent armed: release */
    int32_t word;     /* the child's owner word (fxt_rmutex_self_word), before stage 1 */
};

static int rmutex_hold_in_child(void *p)
{
    struct rxproc *x = p;
    struct timespec d = fx_deadline_in(10000 * MS);
    FXT_CHILD_CHECK(fx_rmutex_lock(&x->m) == 0, 2);
    x->word = fxt_rmutex_self_word();
    fx_counter_store(&x->stage, 1);
    FXT_CHILD_CHECK(fx_counter_wait(&x->stage, 2, &d) == 0, 3);
    FXT_CHILD_CHECK(fx_rmutex_unlock(&x->m) == 0, 4);
    return 0;
}

static void test_rmutex_held_by_process_is_acquired_after_release(void **state)
{
    fx_async_destroy(new_waiter(state)); /* skips when unavailable */
    struct rxproc *x = fxt_shared_alloc(sizeof *x);
    pid_t pid = fxt_fork(rmutex_hold_in_child, x);
    struct timespec d = fx_deadline_in(10000 * MS);
    assert_int_equal(fx_counter_wait(&x->stage, 1, &d), 0);
    fx_async *w = new_waiter(state);
    assert_int_equal(fx_async_rmutex_lock(w, &x->m, NULL), EINPROGRESS);
    assert_int_equal(x->word & FX_RMUTEX_TID_MAX, pid);
    assert_int_equal(owner_word(&x->m), x->word | FX_RMUTEX_WAITERS);
    drive_in_progress(w, 30);
    fx_counter_store(&x->stage, 2);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_equal(fx_rmutex_owner(&x->m), fxt_gettid());
    assert_int_equal(depth_slot(&x->m), 1);
    assert_int_equal(fxt_wait_child(pid, 10000), 0);
    assert_int_equal(fx_rmutex_unlock(&x->m), 0);
    assert_int_equal(owner_word(&x->m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
    fxt_shared_free(x, sizeof *x);
}

/* Holds the mutex until killed. */
static int rmutex_hold_until_killed(void *p)
{
    struct rxproc *x = p;
    struct timespec d = fx_deadline_in(10000 * MS);
    FXT_CHILD_CHECK(fx_rmutex_lock(&x->m) == 0, 2);
    fx_counter_store(&x->stage, 1);
    fx_counter_wait(&x->stage, 99, &d); /* never stored */
    return 3;
}

static void test_rmutex_owner_process_killed_gives_eownerdead_within_250ms(void **state)
{
    fx_async_destroy(new_waiter(state)); /* skips when unavailable */
    struct rxproc *x = fxt_shared_alloc(sizeof *x);
    pid_t pid = fxt_fork(rmutex_hold_until_killed, x);
    struct timespec d = fx_deadline_in(10000 * MS);
    assert_int_equal(fx_counter_wait(&x->stage, 1, &d), 0);
    fx_async *w = new_waiter(state);
    assert_int_equal(fx_async_rmutex_lock(w, &x->m, NULL), EINPROGRESS);
    /* Killed 75 ms into the wait (past the first check, inside a 50 ms
     * re-check period), left unreaped: a zombie is dead too. */
    drive_in_progress(w, 75);
    int64_t killed = fxt_now_ns();
    assert_int_equal(kill(pid, SIGKILL), 0);
    fxt_reap_where_zombies_look_alive(pid);
    int r = complete_within(w, 5000);
    int64_t took = fxt_now_ns() - killed;
    assert_int_equal(r, EOWNERDEAD);
    print_message("owner process killed -> EOWNERDEAD through the async path: %.1f ms\n",
                  took / 1e6);
    assert_true(took < 250 * MS);
    assert_int_equal(fx_rmutex_owner(&x->m), fxt_gettid());
    assert_int_equal(depth_slot(&x->m), 1 | FX_RMUTEX_INCONSISTENT);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_rmutex_consistent(&x->m), 0);
    assert_int_equal(depth_slot(&x->m), 1);
    assert_int_equal(fx_rmutex_unlock(&x->m), 0);
    assert_int_equal(owner_word(&x->m), 0);
    assert_int_equal(fxt_wait_child(pid, 10000), 128 + SIGKILL);
    assert_int_equal(fx_async_destroy(w), 0);
    fxt_shared_free(x, sizeof *x);
}

static void test_rmutex_owner_thread_exit_gives_eownerdead_within_250ms(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex *m = arena_rmutex();
    struct rholder *h = rholder_start(m);
    assert_int_equal(fx_async_rmutex_lock(w, m, NULL), EINPROGRESS);
    drive_in_progress(w, 20);
    rholder_tell(h, RH_EXIT);
    join_within(h->thread);
    int64_t exited = fxt_now_ns();
    int r = complete_within(w, 5000);
    int64_t took = fxt_now_ns() - exited;
    assert_int_equal(r, EOWNERDEAD);
    print_message("owner thread exited -> EOWNERDEAD through the async path: %.1f ms\n",
                  took / 1e6);
    assert_true(took < 250 * MS);
    assert_int_equal(fx_rmutex_owner(m), fxt_gettid());
    assert_int_equal(depth_slot(m), 1 | FX_RMUTEX_INCONSISTENT);
    assert_int_equal(fx_rmutex_consistent(m), 0);
    assert_int_equal(fx_rmutex_unlock(m), 0);
    assert_int_equal(owner_word(m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_dead_owner_is_taken_at_once_even_past_the_deadline(void **state)
{
    fx_async *w = new_waiter(state);
    pid_t dead;
    fx_rmutex *m = rmutex_of_a_dead_thread(&dead);
    struct timespec past = {-1, 0};
    assert_int_equal(fx_async_rmutex_lock(w, m, &past), EOWNERDEAD);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_rmutex_owner(m), fxt_gettid());
    assert_int_equal(depth_slot(m), 1 | FX_RMUTEX_INCONSISTENT);
    assert_int_equal(fx_rmutex_consistent(m), 0);
    assert_int_equal(fx_rmutex_unlock(m), 0);
    /* A dead owner without a robust list (its TID | FX_RMUTEX_PROBED, with
     * sleepers marked): the liveness probe finds it dead at once, past the
     * deadline too, and the take-over keeps WAITERS. */
    fx_rmutex *p = arena_rmutex();
    p->owner = dead | FX_RMUTEX_PROBED | FX_RMUTEX_WAITERS;
    p->depth = 1;
    assert_int_equal(fx_async_rmutex_lock(w, p, &past), EOWNERDEAD);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_rmutex_owner(p), fxt_gettid());
    assert_true(owner_word(p) & FX_RMUTEX_WAITERS);
    assert_int_equal(depth_slot(p), 1 | FX_RMUTEX_INCONSISTENT);
    assert_int_equal(fx_rmutex_consistent(p), 0);
    assert_int_equal(fx_rmutex_unlock(p), 0);
    assert_int_equal(owner_word(p), 0);
    /* Orphaned by fx_rmutex_recover: the same, at once. */
    fx_rmutex *o = arena_rmutex();
    o->owner = FX_RMUTEX_ORPHANED;
    assert_int_equal(fx_async_rmutex_lock(w, o, NULL), EOWNERDEAD);
    assert_int_equal(fx_rmutex_consistent(o), 0);
    assert_int_equal(fx_rmutex_unlock(o), 0);
    assert_int_equal(owner_word(o), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_not_recoverable_is_enotrecoverable_at_once(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex m = {.owner = FX_RMUTEX_NOTRECOVERABLE};
    struct timespec past = {-1, 0};
    assert_int_equal(fx_async_rmutex_lock(w, &m, NULL), ENOTRECOVERABLE);
    assert_int_equal(fx_async_rmutex_lock(w, &m, &past), ENOTRECOVERABLE);
    assert_int_equal(owner_word(&m), FX_RMUTEX_NOTRECOVERABLE);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_complete(w), EINVAL);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_made_not_recoverable_while_armed_gives_enotrecoverable(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex *m = arena_rmutex();
    m->owner = FX_RMUTEX_ORPHANED;
    struct rholder *h = rholder_start(m); /* takes it with EOWNERDEAD */
    assert_int_equal(h->lock_result, EOWNERDEAD);
    assert_int_equal(fx_async_rmutex_lock(w, m, NULL), EINPROGRESS);
    rholder_tell(h, RH_UNLOCK); /* without consistent: not recoverable */
    assert_int_equal(complete_within(w, 5000), ENOTRECOVERABLE);
    assert_int_equal(owner_word(m), FX_RMUTEX_NOTRECOVERABLE);
    assert_false(readable_now(fx_async_fd(w)));
    rholder_join(h);
    assert_int_equal(h->unlock_result, 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_armed_wait_wakes_for_the_owner_rechecks(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex *m = arena_rmutex();
    /* Re-checks are made for an owner without a robust list only: the word
     * names a live thread (one holding another mutex) | FX_RMUTEX_PROBED. */
    struct rholder *h = rholder_start(arena_rmutex());
    m->owner = h->tid | FX_RMUTEX_PROBED;
    m->depth = 1;
    int64_t start = fxt_now_ns();
    assert_int_equal(fx_async_rmutex_lock(w, m, NULL), EINPROGRESS);
    /* No deadline, and the live owner neither releases nor touches the word:
     * only the re-check bound of each sleep makes the fd readable. The first
     * comes FXI_RMUTEX_FIRST_CHECK_MS after the owner was first seen, the next
     * ones FXI_RMUTEX_RECHECK_MS apart (never sooner: absolute timers). */
    assert_int_equal(drive_readinesses(w, 3, 5000), 3);
    int64_t took = fxt_now_ns() - start;
    print_message("3 liveness re-checks in %.1f ms\n", took / 1e6);
    assert_true(took >= (FXI_RMUTEX_FIRST_CHECK_MS + 2 * FXI_RMUTEX_RECHECK_MS) * MS);
    assert_int_equal(fx_rmutex_owner(m), h->tid);
    assert_int_equal(fx_async_cancel(w), 0);
    rholder_join(h);
    /* The owner's word, as the waiter marked it. */
    assert_int_equal(owner_word(m), h->tid | FX_RMUTEX_PROBED | FX_RMUTEX_WAITERS);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_deadline_expires_with_etimedout(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex *m = arena_rmutex();
    struct rholder *h = rholder_start(m);
    assert_int_equal(owner_word(m), h->word);
    const bool probed = (h->word & FX_RMUTEX_PROBED) != 0;
    struct timespec d = fx_deadline_in(120 * MS);
    int rechecks = 0;
    int r = fx_async_rmutex_lock(w, m, &d);
    assert_int_equal(finish_short_wait(w, r, &d, &rechecks), ETIMEDOUT);
    assert_true(fxt_now_ns() >= ts_ns(&d));
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_rmutex_owner(m), h->tid); /* still the holder's */
    rholder_join(h);
    assert_int_equal(h->unlock_result, 0);
    /* The WAITERS mark left behind cost the holder a needless wake only. */
    assert_int_equal(owner_word(m), 0);
    print_message("%d liveness re-checks before a 120 ms deadline\n", rechecks);
    if (!probed)
        assert_int_equal(rechecks, 0); /* the kernel reports this owner's death */
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_passed_deadline_is_not_armed(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex *m = arena_rmutex();
    struct rholder *h = rholder_start(m);
    struct timespec past = {-1, 0};
    assert_int_equal(fx_async_rmutex_lock(w, m, &past), ETIMEDOUT);
    struct timespec now = fx_deadline_in(0);
    assert_int_equal(fx_async_rmutex_lock(w, m, &now), ETIMEDOUT);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_complete(w), EINVAL);
    assert_int_equal(fx_rmutex_owner(m), h->tid);
    rholder_join(h);
    assert_int_equal(owner_word(m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_cancel_before_wake_leaves_it_to_others(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex *m = arena_rmutex();
    struct rholder *h = rholder_start(m);
    assert_int_equal(fx_async_rmutex_lock(w, m, NULL), EINPROGRESS);
    assert_int_equal(fx_async_cancel(w), 0);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_complete(w), EINVAL);
    assert_int_equal(fx_async_cancel(w), 0); /* idle: nothing to do */
    assert_int_equal(fx_rmutex_owner(m), h->tid);
    rholder_join(h);
    assert_int_equal(h->unlock_result, 0);
    assert_int_equal(owner_word(m), 0);
    assert_false(readable_now(fx_async_fd(w)));
    /* The waiter is reusable after a cancellation. */
    assert_int_equal(fx_async_rmutex_lock(w, m, NULL), 0);
    assert_int_equal(fx_rmutex_unlock(m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

/* A raw futex sleeper on a word, without deadline tricks of its own: only a
 * wake ends its sleep (or the 5 s limit, which fails the test). */
struct futex_observer {
    int32_t *word;
    int32_t value;
    fx_counter started;
    pid_t tid;
    int result;
};

static void *futex_observer_main(void *p)
{
    struct futex_observer *o = p;
    o->tid = fxt_gettid();
    fx_counter_store(&o->started, 1);
    struct timespec d = fx_deadline_in(5000 * MS);
    int r;
    do
        r = fx_futex_wait(o->word, o->value, &d);
    while (r == EINTR);
    o->result = r;
    return NULL;
}

static void test_rmutex_cancel_after_wake_passes_the_wake_on(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex *m = arena_rmutex();
    struct rholder *h = rholder_start(m);
    assert_int_equal(owner_word(m), h->word);
    const bool probed = (h->word & FX_RMUTEX_PROBED) != 0;
    assert_int_equal(fx_async_rmutex_lock(w, m, NULL), EINPROGRESS);
    /* The waiter sleeps on the word, queued ahead of the observer started
     * next: with no re-check time when the kernel reports the owner's death;
     * for an owner without a robust list (PROBED), past the first liveness
     * check (1 ms), sleeping again for 50 ms. */
    if (probed) {
        assert_int_equal(wait_readable(fx_async_fd(w), 5000), 1);
        assert_int_equal(fx_async_complete(w), EINPROGRESS);
    }
    wait_futex_sleepers(&m->owner, own_sleepers(state));
    struct futex_observer *o = fxt_arena(sizeof *o);
    o->word = &m->owner;
    o->value = h->word | FX_RMUTEX_WAITERS;
    pthread_t t = fxt_thread(futex_observer_main, o);
    struct timespec limit = fx_deadline_in(LIMIT_MS * MS);
    assert_int_equal(fx_counter_wait(&o->started, 1, &limit), 0);
    assert_true(fxt_wait_asleep(o->tid, &m->owner, 5000));
    /* The release wakes one sleeper: the waiter, first in the queue (or, if
     * its 50 ms ran out meanwhile, the observer directly). */
    rholder_tell(h, RH_UNLOCK);
    assert_int_equal(wait_readable(fx_async_fd(w), 5000), 1);
    rholder_join(h);
    /* Cancelling hands the wake it took on: the observer wakes. */
    assert_int_equal(fx_async_cancel(w), 0);
    join_within(t);
    assert_int_equal(o->result, 0);
    assert_int_equal(owner_word(m), 0);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_cancel_and_destroy_leak_no_fd_or_thread(void **state)
{
    int threads = threads_at_rest();
    fx_async_destroy(new_waiter(state)); /* skips when unavailable */
    int fds = count_fds();
    assert_int_equal(threads_settled(threads), threads);
    for (int i = 0; i < 4; i++) {
        fx_async *w = new_waiter(state);
        fx_rmutex *m = arena_rmutex();
        struct rholder *h = rholder_start(m);
        assert_int_equal(fx_async_rmutex_lock(w, m, NULL), EINPROGRESS);
        if (i % 2 == 1) {
            rholder_tell(h, RH_UNLOCK); /* cancel after the fd fired */
            assert_int_equal(wait_readable(fx_async_fd(w), 5000), 1);
        }
        if (i >= 2)
            assert_int_equal(fx_async_cancel(w), 0);
        rholder_join(h);
        assert_int_equal(fx_async_destroy(w), 0); /* i < 2: cancels too */
        assert_int_equal(owner_word(m), 0);
    }
    assert_int_equal(count_fds(), fds);
    assert_int_equal(threads_settled(threads), threads);
}

/* executeLocked with an fx_rmutex */

struct rrun {
    fx_rmutex *m;
    int repair; /* call fx_rmutex_consistent after EOWNERDEAD */
    int runs;
    int status;
    pid_t owner_inside;
    int32_t depth_inside;
    int consistent;
};

static void rrun_fn(void *p, int status)
{
    struct rrun *r = p;
    r->runs++;
    r->status = status;
    r->owner_inside = fx_rmutex_owner(r->m);
    r->depth_inside = depth_slot(r->m);
    r->consistent = -1;
    if (r->repair && status == EOWNERDEAD)
        r->consistent = fx_rmutex_consistent(r->m);
}

static void test_rmutex_run_on_free_runs_before_returning(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex m = FX_RMUTEX_INIT;
    struct rrun rr = {.m = &m};
    assert_int_equal(fx_async_rmutex_run(w, &m, NULL, rrun_fn, &rr), 0);
    assert_int_equal(rr.runs, 1);
    assert_int_equal(rr.status, 0);
    assert_int_equal(rr.owner_inside, fxt_gettid());
    assert_int_equal(rr.depth_inside, 1);
    assert_int_equal(owner_word(&m), 0); /* unlocked after the callback */
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_run_on_reentry_keeps_the_outer_level(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex m = FX_RMUTEX_INIT;
    struct rrun rr = {.m = &m};
    assert_int_equal(fx_rmutex_lock(&m), 0);
    assert_int_equal(fx_async_rmutex_run(w, &m, NULL, rrun_fn, &rr), 0);
    assert_int_equal(rr.runs, 1);
    assert_int_equal(rr.depth_inside, 2);
    assert_int_equal(fx_rmutex_owner(&m), fxt_gettid());
    assert_int_equal(depth_slot(&m), 1);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(owner_word(&m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_run_on_held_runs_in_complete_once_acquired(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex *m = arena_rmutex();
    struct rrun rr = {.m = m};
    struct rholder *h = rholder_start(m);
    struct timespec d = fx_deadline_in(10000 * MS);
    assert_int_equal(fx_async_rmutex_run(w, m, &d, rrun_fn, &rr), EINPROGRESS);
    drive_in_progress(w, 10);
    assert_int_equal(rr.runs, 0);
    rholder_tell(h, RH_UNLOCK);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_equal(rr.runs, 1);
    assert_int_equal(rr.status, 0);
    assert_int_equal(rr.owner_inside, fxt_gettid());
    assert_int_equal(rr.depth_inside, 1);
    rholder_join(h);
    assert_int_equal(owner_word(m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_run_repairs_after_owner_death(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex *m = arena_rmutex();
    struct rrun rr = {.m = m, .repair = 1};
    struct rholder *h = rholder_start(m);
    assert_int_equal(fx_async_rmutex_run(w, m, NULL, rrun_fn, &rr), EINPROGRESS);
    drive_in_progress(w, 10);
    rholder_tell(h, RH_EXIT);
    join_within(h->thread);
    /* complete returns the status the callback was given. */
    assert_int_equal(complete_within(w, 5000), EOWNERDEAD);
    assert_int_equal(rr.runs, 1);
    assert_int_equal(rr.status, EOWNERDEAD);
    assert_int_equal(rr.owner_inside, fxt_gettid());
    assert_int_equal(rr.depth_inside, 1 | FX_RMUTEX_INCONSISTENT);
    assert_int_equal(rr.consistent, 0);
    /* Repaired, then unlocked: an ordinary free mutex. */
    assert_int_equal(owner_word(m), 0);
    assert_int_equal(fx_rmutex_lock(m), 0);
    assert_int_equal(fx_rmutex_unlock(m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_run_without_repair_makes_it_not_recoverable(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex *m = rmutex_of_a_dead_thread(NULL);
    struct rrun rr = {.m = m, .repair = 0};
    assert_int_equal(fx_async_rmutex_run(w, m, NULL, rrun_fn, &rr), EOWNERDEAD);
    assert_int_equal(rr.runs, 1); /* at once: the owner was found dead */
    assert_int_equal(rr.status, EOWNERDEAD);
    assert_int_equal(rr.consistent, -1);
    assert_int_equal(owner_word(m), FX_RMUTEX_NOTRECOVERABLE);
    assert_int_equal(fx_rmutex_trylock(m), ENOTRECOVERABLE);
    assert_int_equal(fx_async_rmutex_run(w, m, NULL, rrun_fn, &rr), ENOTRECOVERABLE);
    assert_int_equal(rr.runs, 1); /* not run again */
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_run_does_not_run_on_timeout_cancel_or_error(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex *m = arena_rmutex();
    struct rrun rr = {.m = m};
    struct rholder *h = rholder_start(m);
    struct timespec d = fx_deadline_in(20 * MS);
    int r = fx_async_rmutex_run(w, m, &d, rrun_fn, &rr);
    assert_int_equal(finish_short_wait(w, r, &d, NULL), ETIMEDOUT);
    assert_int_equal(fx_async_rmutex_run(w, m, NULL, rrun_fn, &rr), EINPROGRESS);
    assert_int_equal(fx_async_cancel(w), 0);
    assert_int_equal(fx_async_rmutex_run(w, m, NULL, NULL, &rr), EINVAL);
    rholder_join(h);
    assert_int_equal(rr.runs, 0);
    assert_int_equal(owner_word(m), 0);
    assert_int_equal(fx_async_rmutex_run(w, m, NULL, NULL, &rr), EINVAL); /* free, too */
    assert_int_equal(owner_word(m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_rmutex_bad_arguments_are_einval(void **state)
{
    fx_async *w = new_waiter(state);
    int32_t words[4] = {0, 0, 0, 0};
    fx_rmutex bad = {.owner = 0x00400000}; /* above FX_RMUTEX_TID_MAX: never written */
    struct rrun rr = {.m = &bad};
    assert_int_equal(fx_async_rmutex_lock(w, NULL, NULL), EINVAL);
    assert_int_equal(fx_async_rmutex_lock(w, (fx_rmutex *)(void *)((char *)words + 2), NULL),
                     EINVAL);
    assert_int_equal(fx_async_rmutex_lock(w, &bad, NULL), EINVAL);
    assert_int_equal(fx_async_rmutex_run(w, &bad, NULL, rrun_fn, &rr), EINVAL);
    assert_int_equal(owner_word(&bad), 0x00400000);
    assert_int_equal(fx_async_rmutex_lock(NULL, &bad, NULL), EINVAL);
    assert_int_equal(fx_async_rmutex_run(NULL, &bad, NULL, rrun_fn, &rr), EINVAL);
    assert_int_equal(rr.runs, 0);
    /* A bad tv_nsec matters only when the call would wait. */
    fx_rmutex *m = arena_rmutex();
    struct rholder *h = rholder_start(m);
    struct timespec badns = {0, 1000000000L}, neg = {0, -1};
    assert_int_equal(fx_async_rmutex_lock(w, m, &badns), EINVAL);
    assert_int_equal(fx_async_rmutex_lock(w, m, &neg), EINVAL);
    assert_int_equal(fx_async_complete(w), EINVAL);
    rholder_join(h);
    assert_int_equal(fx_async_destroy(w), 0);
}

struct rother {
    fx_async *w;
    fx_rmutex *m;
    pid_t tid;
    int arm;
    pid_t owner_after_arm;
    int unlock;
};

static void *rother_main(void *p)
{
    struct rother *o = p;
    o->tid = fxt_gettid();
    o->arm = fx_async_rmutex_lock(o->w, o->m, NULL);
    o->owner_after_arm = fx_rmutex_owner(o->m);
    if (o->arm == 0)
        o->unlock = fx_rmutex_unlock(o->m); /* the acquirer unlocks it */
    return NULL;
}

static struct rother *rother_run(fx_async *w, fx_rmutex *m)
{
    struct rother *o = fxt_arena(sizeof *o);
    o->w = w;
    o->m = m;
    join_within(fxt_thread(rother_main, o));
    return o;
}

static void test_rmutex_other_threads_get_eperm_unless_ready_at_once(void **state)
{
    fx_async *w = new_waiter(state);
    fx_rmutex *m = arena_rmutex(), *free_m = arena_rmutex();
    struct rholder *h = rholder_start(m);
    assert_int_equal(fx_async_rmutex_lock(w, m, NULL), EINPROGRESS);
    struct rother *o = rother_run(w, free_m); /* armed: busy for everyone */
    assert_int_equal(o->arm, EBUSY);
    assert_int_equal(owner_word(free_m), 0);
    assert_int_equal(fx_async_cancel(w), 0);
    struct rother *o2 = rother_run(w, m); /* would have to wait: not its loop */
    assert_int_equal(o2->arm, EPERM);
    assert_int_equal(fx_rmutex_owner(m), h->tid);
    /* Ready at once: the calling thread is the one that acquires. */
    struct rother *o3 = rother_run(w, free_m);
    assert_int_equal(o3->arm, 0);
    assert_int_equal(o3->owner_after_arm, o3->tid);
    assert_int_equal(o3->unlock, 0);
    assert_int_equal(owner_word(free_m), 0);
    rholder_join(h);
    assert_int_equal(fx_async_destroy(w), 0);
}

/* Back-end selection ---------------------------------------------------------------------- */

/* FX_ASYNC_URING succeeds wherever the kernel offers io_uring's futex
 * operations to this process (on i686 too, where the ring was once mapped
 * with the old struct-argument mmap and the create failed with ENOMEM), and is
 * ENOTSUP, the documented answer, wherever it does not. */
static void test_uring_create_succeeds_exactly_where_the_kernel_offers_it(void **state)
{
    (void)state;
    fx_async *w = NULL;
    const char *why = uring_unavailable();
    int r = fx_async_create(&w, FX_ASYNC_URING);
    if (why == NULL) {
        assert_int_equal(r, 0);
        assert_int_equal(fx_async_backend(w), FX_ASYNC_URING);
        assert_int_equal(fx_async_destroy(w), 0);
    } else {
        print_message("io_uring futex operations unavailable (%s)\n", why);
        assert_int_equal(r, ENOTSUP);
        assert_null(w);
    }
}

static bool uring_expected(void)
{
    return uring_unavailable() == NULL;
}

static void test_auto_picks_uring_where_the_kernel_offers_it(void **state)
{
    (void)state;
    fx_async *w;
    assert_int_equal(fx_async_create(&w, FX_ASYNC_AUTO), 0);
    if (uring_expected()) {
        assert_int_equal(fx_async_backend(w), FX_ASYNC_URING);
    } else {
        print_message("io_uring futex operations not expected here\n");
        assert_true(fx_async_backend(w) == FX_ASYNC_URING ||
                    fx_async_backend(w) == FX_ASYNC_THREAD);
    }
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_env_variable_forces_the_thread_back_end(void **state)
{
    (void)state;
    fx_async *w;
    assert_int_equal(setenv("FUTEXSYNC_ASYNC", "thread", 1), 0);
    assert_int_equal(fx_async_create(&w, FX_ASYNC_AUTO), 0);
    assert_int_equal(fx_async_backend(w), FX_ASYNC_THREAD);
    assert_int_equal(fx_async_destroy(w), 0);
    /* The variable chooses for FX_ASYNC_AUTO only. */
    if (uring_expected()) {
        assert_int_equal(fx_async_create(&w, FX_ASYNC_URING), 0);
        assert_int_equal(fx_async_backend(w), FX_ASYNC_URING);
        assert_int_equal(fx_async_destroy(w), 0);
    }
    assert_int_equal(unsetenv("FUTEXSYNC_ASYNC"), 0);
}

static void test_unknown_backend_is_einval(void **state)
{
    (void)state;
    fx_async *w = NULL;
    assert_int_equal(fx_async_create(&w, 7), EINVAL);
    assert_int_equal(fx_async_create(&w, -1), EINVAL);
    assert_null(w);
    assert_int_equal(fx_async_create(NULL, FX_ASYNC_AUTO), EINVAL);
}

/* In a child: a seccomp filter makes io_uring_setup fail with `err`. */
static int refuse_io_uring(int err)
{
    return fxt_refuse_syscall(SYS_io_uring_setup, err, 0);
}

static int fallback_child(void *p)
{
    int err = *(int *)p;
    FXT_CHILD_CHECK(refuse_io_uring(err) == 0, 2);
    fx_async *w;
    FXT_CHILD_CHECK(fx_async_create(&w, FX_ASYNC_URING) == ENOTSUP, 3);
    FXT_CHILD_CHECK(fx_async_create(&w, FX_ASYNC_AUTO) == 0, 4);
    FXT_CHILD_CHECK(fx_async_backend(w) == FX_ASYNC_THREAD, 5);
    /* The fallback really waits: a futex word woken by this thread. */
    int32_t word = 0;
    FXT_CHILD_CHECK(fx_async_futex_wait(w, &word, 0, NULL) == EINPROGRESS, 6);
    int64_t limit = fxt_now_ns() + 5000 * MS;
    while (fx_futex_wake(&word, 1) == 0)
        FXT_CHILD_CHECK(fxt_now_ns() < limit, 7);
    struct pollfd pf = {fx_async_fd(w), POLLIN, 0};
    FXT_CHILD_CHECK(poll(&pf, 1, 5000) == 1, 8);
    FXT_CHILD_CHECK(fx_async_complete(w) == 0, 9);
    FXT_CHILD_CHECK(fx_async_destroy(w) == 0, 10);
    return 0;
}

static void test_seccomp_eperm_on_io_uring_falls_back_to_thread(void **state)
{
    (void)state;
    fxt_require_seccomp();
    int err = EPERM;
    assert_int_equal(fxt_run_child(fallback_child, &err), 0);
}

static void test_seccomp_enosys_on_io_uring_falls_back_to_thread(void **state)
{
    (void)state;
    fxt_require_seccomp();
    int err = ENOSYS;
    assert_int_equal(fxt_run_child(fallback_child, &err), 0);
}

/* Bounded recheck: a wake lost in shared memory -------------------------------
 *
 * The word is released without a wake, as when the releaser (or the process
 * its wake picked) was killed in the wake window: the waiter re-reads its word
 * at its next recheck (FXI_ASYNC_RECHECK_NS, 500 ms) and finishes. */

/* Returns once a thread of this process sleeps in the futex system call on
 * addr (its /proc/self/task/<tid>/syscall reads "202 0x<addr> ..."): the
 * thread back end's helper, which sleeps after the arm call returns. The
 * io_uring back end queues its wait inside the arm call: nothing to wait for.
 * Fails after LIMIT_MS. */
static void wait_for_helper_asleep_on(void **state, const void *addr)
{
    if (backend_of(state) != FX_ASYNC_THREAD)
        return;
    int64_t limit = fxt_now_ns() + LIMIT_MS * MS;
    while (fxt_now_ns() < limit) {
        DIR *d = opendir("/proc/self/task");
        assert_non_null(d);
        struct dirent *e;
        bool found = false;
        while (!found && (e = readdir(d)) != NULL) {
            char path[300], line[256];
            snprintf(path, sizeof path, "/proc/self/task/%s/syscall", e->d_name);
            FILE *f = fopen(path, "r");
            if (f == NULL)
                continue;
            found = fgets(line, sizeof line, f) != NULL && futex_call_on(line, addr);
            fclose(f);
        }
        closedir(d);
        if (found)
            return;
        sched_yield();
    }
    fail_msg("the helper thread never slept on the word");
}

static void test_mutex_wait_whose_wake_was_lost_rereads_the_word(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex();
    /* Held by a process that will die in its release's wake window. */
    __atomic_store_n(&m->state, FX_MUTEX_CONTENDED, __ATOMIC_RELEASE);
    assert_int_equal(fx_async_mutex_lock(w, m, NULL), EINPROGRESS);
    wait_for_helper_asleep_on(state, &m->state);
    __atomic_store_n(&m->state, FX_MUTEX_UNLOCKED, __ATOMIC_RELEASE); /* no wake */
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_equal(m->state, FX_MUTEX_CONTENDED); /* taken as a sleeper takes it */
    assert_int_equal(fx_mutex_unlock(m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_counter_wait_whose_wake_was_lost_rereads_the_word(void **state)
{
    fx_async *w = new_waiter(state);
    fx_counter *c = fxt_arena(sizeof *c);
    assert_int_equal(fx_async_counter_wait(w, c, 1, NULL), EINPROGRESS);
    wait_for_helper_asleep_on(state, &c->value);
    /* The writer stored the target and was killed before its wake. */
    __atomic_store_n(&c->value, 1, __ATOMIC_SEQ_CST);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_equal(c->waiters, 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

/* An idle wait's rechecks (FXI_ASYNC_RECHECK_NS, 500 ms, src/async/async.h)
 * find the word unchanged: the helper thread sleeps again without making the
 * fd readable; io_uring makes it readable (its timer completes on the ring)
 * and complete re-arms, EINPROGRESS. IDLE_MS spans at least two of them. */
#define IDLE_MS 1300

/* Polls and completes for IDLE_MS: each completion must say EINPROGRESS.
 * Returns how many readinesses there were. */
static int idle_readinesses(fx_async *w)
{
    int n = 0;
    int64_t limit = fxt_now_ns() + IDLE_MS * MS;
    for (;;) {
        int64_t left = (limit - fxt_now_ns()) / MS;
        if (left <= 0 || !wait_readable(fx_async_fd(w), (int)left))
            return n;
        assert_int_equal(fx_async_complete(w), EINPROGRESS);
        n++;
    }
}

static void test_idle_mutex_wait_rechecks_without_a_result(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex();
    assert_int_equal(fx_mutex_lock(m), 0);
    assert_int_equal(fx_async_mutex_lock(w, m, NULL), EINPROGRESS);
    int n = idle_readinesses(w);
    if (backend_of(state) == FX_ASYNC_THREAD)
        assert_int_equal(n, 0); /* the helper keeps its rechecks to itself */
    assert_int_equal(fx_mutex_unlock(m), 0);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_equal(fx_mutex_unlock(m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_idle_counter_wait_rechecks_without_a_result(void **state)
{
    fx_async *w = new_waiter(state);
    fx_counter *c = fxt_arena(sizeof *c);
    assert_int_equal(fx_async_counter_wait(w, c, 1, NULL), EINPROGRESS);
    int n = idle_readinesses(w);
    if (backend_of(state) == FX_ASYNC_THREAD)
        assert_int_equal(n, 0);
    assert_int_equal(c->waiters, 1); /* still counted: writers wake it */
    assert_int_equal(fx_counter_add(c, 1), 1);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_equal(c->waiters, 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

/* The deadline comes after several rechecks the back end repeated itself:
 * the wait still ends with ETIMEDOUT, not before the deadline. */
static void test_mutex_deadline_after_idle_rechecks_expires_with_etimedout(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex *m = arena_mutex();
    assert_int_equal(fx_mutex_lock(m), 0);
    int64_t t0 = fxt_now_ns();
    struct timespec dl = fx_deadline_in(IDLE_MS * MS);
    assert_int_equal(fx_async_mutex_lock(w, m, &dl), EINPROGRESS);
    assert_int_equal(complete_within(w, IDLE_MS + 10000), ETIMEDOUT);
    assert_true(fxt_now_ns() - t0 >= IDLE_MS * MS);
    assert_int_equal(m->state, FX_MUTEX_CONTENDED); /* its unlock wakes */
    assert_int_equal(fx_mutex_unlock(m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_counter_deadline_after_idle_rechecks_expires_with_etimedout(void **state)
{
    fx_async *w = new_waiter(state);
    fx_counter *c = fxt_arena(sizeof *c);
    int64_t t0 = fxt_now_ns();
    struct timespec dl = fx_deadline_in(IDLE_MS * MS);
    assert_int_equal(fx_async_counter_wait(w, c, 1, &dl), EINPROGRESS);
    assert_int_equal(complete_within(w, IDLE_MS + 10000), ETIMEDOUT);
    assert_true(fxt_now_ns() - t0 >= IDLE_MS * MS);
    assert_int_equal(c->waiters, 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

/* Deadlines racing wakes ----------------------------------------------------------
 *
 * Waits whose deadline is 5-50 us ahead, against a thread that keeps waking
 * the word (a raw futex wake, a mutex or rmutex release, a counter change),
 * so that the wait's timer fires at about the moment its wait is woken. Every
 * armed wait must make the fd readable again (a generous RACE_LOST_MS
 * later at worst) until fx_async_complete finishes it; a mutex wake the
 * waiter consumed must reach the other sleepers: a raw futex sleeper on the
 * mutex, which nothing but an unlock's wake brings back, never times out. */

#define RACE_MS 400       /* how long each race runs */
#define RACE_LOST_MS 3000 /* an fd unreadable this long has lost its readiness */

enum { RACE_FUTEX, RACE_MUTEX, RACE_RMUTEX, RACE_COUNTER };

struct race {
    int kind;
    int32_t word;
    fx_mutex m;
    fx_rmutex rm;
    fx_counter c;
    int32_t stop;       /* 1: the helper threads end */
    int32_t stranded;   /* raw mutex sleeps that no wake ended */
    int32_t sleeper_rounds;
};

static bool race_stopped(struct race *r)
{
    return __atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) != 0;
}

/* Holds a lock for 0-40 us, so that the loop's wait is often armed and its
 * deadline falls near the release. */
static void race_hold(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    int64_t until = fxt_now_ns() + (int64_t)((*seed >> 16) % 41) * 1000;
    while (fxt_now_ns() < until)
        ;
}

/* Wakes the word the loop waits on, as fast as it can. */
static void *race_waker_main(void *p)
{
    struct race *r = p;
    uint32_t seed = 777;
    while (!race_stopped(r)) {
        switch (r->kind) {
        case RACE_FUTEX:
            fx_futex_wake(&r->word, INT32_MAX);
            break;
        case RACE_MUTEX:
            if (fx_mutex_lock(&r->m) == 0) {
                race_hold(&seed);
                fx_mutex_unlock(&r->m);
            }
            break;
        case RACE_RMUTEX:
            if (fx_rmutex_lock(&r->rm) == 0) {
                race_hold(&seed);
                fx_rmutex_unlock(&r->rm);
            }
            break;
        default:
            fx_counter_add(&r->c, 1);
            fx_counter_add(&r->c, -1);
            break;
        }
    }
    return NULL;
}

/* A mutex locker that sleeps with a plain futex wait ("Futexes Are Tricky",
 * mutex2, the protocol fx_mutex shares): only an unlock's wake ends its
 * sleep, so a wake that the async waiter consumed and kept strands it. */
static void *race_sleeper_main(void *p)
{
    struct race *r = p;
    while (!race_stopped(r)) {
        int32_t c = FX_MUTEX_UNLOCKED;
        if (!__atomic_compare_exchange_n(&r->m.state, &c, FX_MUTEX_LOCKED, false,
                                         __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            if (c != FX_MUTEX_CONTENDED)
                c = __atomic_exchange_n(&r->m.state, FX_MUTEX_CONTENDED, __ATOMIC_ACQUIRE);
            while (c != FX_MUTEX_UNLOCKED) {
                struct timespec limit = fx_deadline_in(RACE_LOST_MS * MS);
                if (fx_futex_wait(&r->m.state, FX_MUTEX_CONTENDED, &limit) == ETIMEDOUT)
                    __atomic_fetch_add(&r->stranded, 1, __ATOMIC_RELAXED);
                c = __atomic_exchange_n(&r->m.state, FX_MUTEX_CONTENDED, __ATOMIC_ACQUIRE);
            }
        }
        /* Released as mutex2 releases (fx_mutex_unlock would tell a race
         * detector of an unlock without its lock). */
        if (__atomic_exchange_n(&r->m.state, FX_MUTEX_UNLOCKED, __ATOMIC_RELEASE) ==
            FX_MUTEX_CONTENDED)
            fx_futex_wake(&r->m.state, 1);
        __atomic_fetch_add(&r->sleeper_rounds, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static int race_arm(fx_async *w, struct race *r, const struct timespec *dl)
{
    switch (r->kind) {
    case RACE_FUTEX:
        return fx_async_futex_wait(w, &r->word, 0, dl);
    case RACE_MUTEX:
        return fx_async_mutex_lock(w, &r->m, dl);
    case RACE_RMUTEX:
        return fx_async_rmutex_lock(w, &r->rm, dl);
    default:
        return fx_async_counter_wait(w, &r->c, 1, dl);
    }
}

/* Runs the race for one kind; fails on the first lost readiness. */
static void race_deadlines_against_wakes(void **state, int kind)
{
    fx_async *w = new_waiter(state);
    struct race *r = fxt_arena(sizeof *r);
    r->kind = kind;
    pthread_t waker = fxt_thread(race_waker_main, r);
    pthread_t sleeper = 0;
    if (kind == RACE_MUTEX)
        sleeper = fxt_thread(race_sleeper_main, r);
    uint32_t seed = 12345;
    long ops = 0, lost = 0, armed = 0;
    int64_t end = fxt_now_ns() + RACE_MS * MS;
    int late = EINPROGRESS, bad = 0;
    while (fxt_now_ns() < end && lost == 0 && bad == 0) {
        seed = seed * 1103515245u + 12345u;
        /* A lock is armed for only when it is held: let the waker take it. */
        while ((kind == RACE_MUTEX || kind == RACE_RMUTEX) && fxt_now_ns() < end &&
               __atomic_load_n(kind == RACE_MUTEX ? &r->m.state : &r->rm.owner,
                               __ATOMIC_RELAXED) == 0)
            sched_yield();
        struct timespec dl = fx_deadline_in((5 + (int64_t)((seed >> 16) % 46)) * 1000);
        int res = race_arm(w, r, &dl);
        if (res == EINPROGRESS)
            armed++;
        while (res == EINPROGRESS) {
            if (!wait_readable(fx_async_fd(w), RACE_LOST_MS)) {
                /* Lost: would complete have finished at once? */
                late = fx_async_complete(w);
                lost++;
                if (late == EINPROGRESS)
                    fx_async_cancel(w);
                res = late;
                break;
            }
            res = fx_async_complete(w);
        }
        if (res == 0 && kind == RACE_MUTEX)
            fx_mutex_unlock(&r->m);
        else if (res == 0 && kind == RACE_RMUTEX)
            fx_rmutex_unlock(&r->rm);
        if (res != 0 && res != ETIMEDOUT && !(kind == RACE_FUTEX && res == EAGAIN))
            bad = res;
        ops++;
    }
    __atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
    join_within(waker);
    if (kind == RACE_MUTEX)
        join_within(sleeper);
    assert_int_equal(fx_async_destroy(w), 0);
    print_message("%ld waits, %ld armed\n", ops, armed);
    if (lost != 0)
        fail_msg("the fd stayed unreadable %d ms after a deadline 5-50 us ahead "
                 "(op %ld); fx_async_complete then gave %d",
                 RACE_LOST_MS, ops, late);
    assert_int_equal(bad, 0);
    assert_true(ops > 0);
    assert_int_equal(r->stranded, 0);
}

static void test_futex_wait_racing_its_deadline_never_loses_readiness(void **state)
{
    race_deadlines_against_wakes(state, RACE_FUTEX);
}

static void test_mutex_wait_racing_its_deadline_never_loses_readiness_or_a_wake(void **state)
{
    race_deadlines_against_wakes(state, RACE_MUTEX);
}

static void test_rmutex_wait_racing_its_deadline_never_loses_readiness(void **state)
{
    race_deadlines_against_wakes(state, RACE_RMUTEX);
}

static void test_counter_wait_racing_its_deadline_never_loses_readiness(void **state)
{
    race_deadlines_against_wakes(state, RACE_COUNTER);
}

/* Groups ------------------------------------------------------------------------------------- */

#define BACKEND_TESTS(be)                                                                   \
    cmocka_unit_test_prestate(test_mutex_free_is_acquired_at_once, be),                     \
        cmocka_unit_test_prestate(test_mutex_free_ignores_passed_and_bad_deadlines, be),    \
        cmocka_unit_test_prestate(test_mutex_free_makes_no_futex_call, be),                 \
        cmocka_unit_test_prestate(test_mutex_held_by_thread_is_acquired_after_release, be), \
        cmocka_unit_test_prestate(test_epoll_wait_is_not_interrupted_by_the_wake, be),      \
        cmocka_unit_test_prestate(test_mutex_held_by_process_is_acquired_after_release, be), \
        cmocka_unit_test_prestate(test_mutex_deadline_expires_with_etimedout, be),          \
        cmocka_unit_test_prestate(test_mutex_passed_deadline_is_not_armed, be),             \
        cmocka_unit_test_prestate(test_mutex_bad_deadline_when_held_is_einval, be),         \
        cmocka_unit_test_prestate(test_cancel_before_wake_leaves_mutex_to_others, be),      \
        cmocka_unit_test_prestate(test_cancel_after_wake_passes_the_wake_on, be),           \
        cmocka_unit_test_prestate(test_destroy_while_armed_cancels, be),                    \
        cmocka_unit_test_prestate(test_cancel_and_destroy_leak_no_fd_or_thread, be),        \
        cmocka_unit_test_prestate(test_many_waiters_on_one_mutex_through_one_epoll_loop, be), \
        cmocka_unit_test_prestate(test_futex_wait_woken_by_the_loop_thread_itself, be),     \
        cmocka_unit_test_prestate(test_futex_value_differs_gives_eagain_at_once, be),       \
        cmocka_unit_test_prestate(test_futex_deadline_expires_with_etimedout, be),          \
        cmocka_unit_test_prestate(test_futex_in_shared_memory_woken_by_another_process, be), \
        cmocka_unit_test_prestate(test_futex_bad_arguments_are_einval, be),                 \
        cmocka_unit_test_prestate(test_counter_at_target_is_ready_at_once, be),             \
        cmocka_unit_test_prestate(test_counter_reaches_target_from_another_thread, be),     \
        cmocka_unit_test_prestate(test_counter_reaches_target_from_another_process, be),    \
        cmocka_unit_test_prestate(test_counter_deadline_expires_and_uncounts, be),          \
        cmocka_unit_test_prestate(test_counter_cancel_uncounts_so_writers_skip_the_kernel, be), \
        cmocka_unit_test_prestate(test_counter_negative_waiters_slot_is_einval, be),        \
        cmocka_unit_test_prestate(test_counter_waiters_slot_that_would_wrap_is_einval, be), \
        cmocka_unit_test_prestate(test_run_on_free_mutex_runs_before_returning, be),        \
        cmocka_unit_test_prestate(test_run_on_held_mutex_runs_in_complete_once_acquired, be), \
        cmocka_unit_test_prestate(test_run_does_not_run_on_timeout_or_cancel, be),          \
        cmocka_unit_test_prestate(test_run_without_callback_is_einval, be)        ,          \
        cmocka_unit_test_prestate(test_arming_an_armed_waiter_is_ebusy, be),                \
        cmocka_unit_test_prestate(test_mutex_bad_arguments_are_einval, be),                 \
        cmocka_unit_test_prestate(test_other_threads_get_eperm, be),                        \
        cmocka_unit_test_prestate(test_forked_child_gets_eperm, be),                        \
        cmocka_unit_test_prestate(test_cancel_of_an_idle_waiter_from_another_thread_is_eperm, be), \
        cmocka_unit_test_prestate(test_complete_of_an_idle_waiter_from_another_thread_is_eperm, be), \
        cmocka_unit_test_prestate(test_destroy_of_an_idle_waiter_from_another_thread_is_eperm, be), \
        cmocka_unit_test_prestate(test_cancel_of_the_parents_idle_waiter_in_a_forked_child_is_eperm, be), \
        cmocka_unit_test_prestate(test_mutex_wait_whose_wake_was_lost_rereads_the_word, be), \
        cmocka_unit_test_prestate(test_counter_wait_whose_wake_was_lost_rereads_the_word, be), \
        cmocka_unit_test_prestate(test_idle_mutex_wait_rechecks_without_a_result, be), \
        cmocka_unit_test_prestate(test_idle_counter_wait_rechecks_without_a_result, be), \
        cmocka_unit_test_prestate(test_mutex_deadline_after_idle_rechecks_expires_with_etimedout, be), \
        cmocka_unit_test_prestate(test_counter_deadline_after_idle_rechecks_expires_with_etimedout, be), \
        cmocka_unit_test_prestate(test_futex_wait_racing_its_deadline_never_loses_readiness, be), \
        cmocka_unit_test_prestate(test_mutex_wait_racing_its_deadline_never_loses_readiness_or_a_wake, be), \
        cmocka_unit_test_prestate(test_rmutex_wait_racing_its_deadline_never_loses_readiness, be), \
        cmocka_unit_test_prestate(test_counter_wait_racing_its_deadline_never_loses_readiness, be), \
        cmocka_unit_test_prestate(test_waits_absorb_a_signal_storm_on_the_loop_thread, be), \
        cmocka_unit_test_prestate(test_async_and_blocking_lockers_exclude_each_other, be),  \
        cmocka_unit_test_prestate(test_fd_becomes_readable_soon_after_unlock, be), \
        cmocka_unit_test_prestate(test_rmutex_free_is_acquired_at_once, be), \
        cmocka_unit_test_prestate(test_rmutex_reentry_is_ready_at_once, be), \
        cmocka_unit_test_prestate(test_rmutex_reentry_past_the_depth_limit_is_eagain, be), \
        cmocka_unit_test_prestate(test_rmutex_free_and_reentry_make_no_futex_call, be), \
        cmocka_unit_test_prestate(test_rmutex_held_by_thread_is_acquired_after_release, be), \
        cmocka_unit_test_prestate(test_rmutex_taken_by_the_loop_meanwhile_completes_as_reentry, be), \
        cmocka_unit_test_prestate(test_rmutex_held_by_process_is_acquired_after_release, be), \
        cmocka_unit_test_prestate(test_rmutex_owner_process_killed_gives_eownerdead_within_250ms, be), \
        cmocka_unit_test_prestate(test_rmutex_owner_thread_exit_gives_eownerdead_within_250ms, be), \
        cmocka_unit_test_prestate(test_rmutex_dead_owner_is_taken_at_once_even_past_the_deadline, be), \
        cmocka_unit_test_prestate(test_rmutex_not_recoverable_is_enotrecoverable_at_once, be), \
        cmocka_unit_test_prestate(test_rmutex_made_not_recoverable_while_armed_gives_enotrecoverable, be), \
        cmocka_unit_test_prestate(test_rmutex_armed_wait_wakes_for_the_owner_rechecks, be), \
        cmocka_unit_test_prestate(test_rmutex_deadline_expires_with_etimedout, be), \
        cmocka_unit_test_prestate(test_rmutex_passed_deadline_is_not_armed, be), \
        cmocka_unit_test_prestate(test_rmutex_cancel_before_wake_leaves_it_to_others, be), \
        cmocka_unit_test_prestate(test_rmutex_cancel_after_wake_passes_the_wake_on, be), \
        cmocka_unit_test_prestate(test_rmutex_cancel_and_destroy_leak_no_fd_or_thread, be), \
        cmocka_unit_test_prestate(test_rmutex_run_on_free_runs_before_returning, be), \
        cmocka_unit_test_prestate(test_rmutex_run_on_reentry_keeps_the_outer_level, be), \
        cmocka_unit_test_prestate(test_rmutex_run_on_held_runs_in_complete_once_acquired, be), \
        cmocka_unit_test_prestate(test_rmutex_run_repairs_after_owner_death, be), \
        cmocka_unit_test_prestate(test_rmutex_run_without_repair_makes_it_not_recoverable, be), \
        cmocka_unit_test_prestate(test_rmutex_run_does_not_run_on_timeout_cancel_or_error, be), \
        cmocka_unit_test_prestate(test_rmutex_bad_arguments_are_einval, be), \
        cmocka_unit_test_prestate(test_rmutex_other_threads_get_eperm_unless_ready_at_once, be)

int main(void)
{
    const struct CMUnitTest backends[] = {
        cmocka_unit_test(test_null_waiter_is_einval),
        cmocka_unit_test(test_unknown_backend_is_einval),
        cmocka_unit_test(test_uring_create_succeeds_exactly_where_the_kernel_offers_it),
        cmocka_unit_test(test_auto_picks_uring_where_the_kernel_offers_it),
        cmocka_unit_test(test_env_variable_forces_the_thread_back_end),
        cmocka_unit_test(test_seccomp_eperm_on_io_uring_falls_back_to_thread),
        cmocka_unit_test(test_seccomp_enosys_on_io_uring_falls_back_to_thread),
    };
    const struct CMUnitTest uring[] = {BACKEND_TESTS(&backend_uring)};
    const struct CMUnitTest thread[] = {BACKEND_TESTS(&backend_thread)};
    int failed = fxt_run_group_tests_name("async_backends", backends, NULL, NULL);
    failed += fxt_run_group_tests_name("async_uring", uring, NULL, NULL);
    failed += fxt_run_group_tests_name("async_thread", thread, NULL, NULL);
    return failed < 255 ? failed : 255;
}
