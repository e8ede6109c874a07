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

#include <dirent.h>
#include <errno.h>
#include <futexsync.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif

#define MS (1000 * 1000LL)

static int backend_uring = FX_ASYNC_URING;
static int backend_thread = FX_ASYNC_THREAD;

/* Helpers -------------------------------------------------------------------- */

static int backend_of(void **state)
{
    return *(int *)*state;
}

/* A waiter of the group's back end. Both back ends must be tested: on a kernel
 * without io_uring futex operations (before Linux 6.7, or io_uring disabled)
 * the uring group fails, unless FUTEXSYNC_TEST_NO_URING=1 states that this
 * machine cannot run it, in which case the group is reported as skipped. */
static fx_async *new_waiter(void **state)
{
    fx_async *w = NULL;
    int r = fx_async_create(&w, backend_of(state));
    if (r == ENOTSUP && backend_of(state) == FX_ASYNC_URING) {
        const char *allow = getenv("FUTEXSYNC_TEST_NO_URING");
        if (allow != NULL && strcmp(allow, "1") == 0) {
            print_message("io_uring futex operations unavailable and "
                          "FUTEXSYNC_TEST_NO_URING=1: uring group skipped\n");
            skip();
        }
        fail_msg("io_uring futex operations unavailable on this kernel; set "
                 "FUTEXSYNC_TEST_NO_URING=1 to test the thread back end alone");
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

/* How many threads of this process sleep in futex(2) on addr, read from
 * /proc/self/task/<tid>/syscall ("202 0x<addr> ..."). */
static int futex_sleepers(const void *addr)
{
    char want[64];
    snprintf(want, sizeof want, "%d 0x%lx ", (int)SYS_futex, (unsigned long)(uintptr_t)addr);
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
        if (fgets(line, sizeof line, f) != NULL && strncmp(line, want, strlen(want)) == 0)
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

/* A thread that holds a mutex until told to release it. */
struct holder {
    fx_mutex *m;
    fx_counter stage; /* 1 locked, 2 release asked, 3 released */
    pthread_t thread;
};

static void *holder_main(void *p)
{
    struct holder *h = p;
    fx_mutex_lock(h->m);
    fx_counter_store(&h->stage, 1);
    fx_counter_wait(&h->stage, 2, NULL);
    fx_mutex_unlock(h->m);
    fx_counter_store(&h->stage, 3);
    return NULL;
}

static void holder_start(struct holder *h, fx_mutex *m)
{
    h->m = m;
    fx_counter_init(&h->stage, 0);
    h->thread = fxt_thread(holder_main, h);
    assert_int_equal(fx_counter_wait(&h->stage, 1, NULL), 0);
}

static void holder_release(struct holder *h)
{
    fx_counter_store(&h->stage, 2);
}

static void holder_join(struct holder *h)
{
    if (fx_counter_load(&h->stage) < 2)
        holder_release(h);
    fxt_join(h->thread);
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
    fx_mutex m = FX_MUTEX_INIT;
    struct holder h;
    holder_start(&h, &m);
    assert_int_equal(fx_async_mutex_lock(w, &m, NULL), EINPROGRESS);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_complete(w), EINPROGRESS); /* early: harmless */
    holder_release(&h);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_not_equal(m.state, FX_MUTEX_UNLOCKED); /* held by us */
    assert_false(readable_now(fx_async_fd(w)));
    holder_join(&h);
    assert_int_equal(fx_mutex_trylock(&m), EBUSY);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_epoll_wait_is_not_interrupted_by_the_wake(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex m = FX_MUTEX_INIT;
    struct holder h;
    holder_start(&h, &m);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    assert_true(ep >= 0);
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 7};
    assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, fx_async_fd(w), &ev), 0);
    assert_int_equal(fx_async_mutex_lock(w, &m, NULL), EINPROGRESS);
    holder_release(&h);
    /* No signal is sent to this thread: the wake reaches it as readiness
     * only (io_uring: no task-work notification interrupts the wait). */
    struct epoll_event out;
    errno = 0;
    assert_int_equal(epoll_wait(ep, &out, 1, 5000), 1);
    assert_int_equal(errno, 0);
    assert_int_equal(out.data.u32, 7);
    assert_int_equal(fx_async_complete(w), 0);
    holder_join(&h);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    close(ep);
    assert_int_equal(fx_async_destroy(w), 0);
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
    fx_mutex m = FX_MUTEX_INIT;
    struct holder h;
    holder_start(&h, &m);
    struct timespec d = fx_deadline_in(40 * MS);
    assert_int_equal(fx_async_mutex_lock(w, &m, &d), EINPROGRESS);
    assert_int_equal(complete_within(w, 5000), ETIMEDOUT);
    assert_true(fxt_now_ns() >= ts_ns(&d));
    assert_false(readable_now(fx_async_fd(w)));
    holder_release(&h);
    holder_join(&h);
    /* The abandoned CONTENDED mark cost a needless wake, nothing else. */
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_mutex_passed_deadline_is_not_armed(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex m = FX_MUTEX_INIT;
    struct holder h;
    holder_start(&h, &m);
    struct timespec past = {-1, 0};
    assert_int_equal(fx_async_mutex_lock(w, &m, &past), ETIMEDOUT);
    struct timespec now = fx_deadline_in(0);
    assert_int_equal(fx_async_mutex_lock(w, &m, &now), ETIMEDOUT);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_complete(w), EINVAL);
    holder_join(&h);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_mutex_bad_deadline_when_held_is_einval(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex m = FX_MUTEX_INIT;
    struct holder h;
    holder_start(&h, &m);
    struct timespec bad = {0, 1000000000L}, neg = {0, -1};
    assert_int_equal(fx_async_mutex_lock(w, &m, &bad), EINVAL);
    assert_int_equal(fx_async_mutex_lock(w, &m, &neg), EINVAL);
    assert_int_equal(fx_async_complete(w), EINVAL);
    holder_join(&h);
    assert_int_equal(fx_async_destroy(w), 0);
}

/* Cancellation ------------------------------------------------------------------- */

static void test_cancel_before_wake_leaves_mutex_to_others(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex m = FX_MUTEX_INIT;
    struct holder h;
    holder_start(&h, &m);
    assert_int_equal(fx_async_mutex_lock(w, &m, NULL), EINPROGRESS);
    wait_futex_sleepers(&m.state, own_sleepers(state));
    assert_int_equal(fx_async_cancel(w), 0);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(fx_async_complete(w), EINVAL);
    assert_int_equal(fx_async_cancel(w), 0); /* idle: nothing to do */
    holder_release(&h);
    holder_join(&h);
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
    assert_false(readable_now(fx_async_fd(w)));
    /* The waiter is reusable after a cancellation. */
    assert_int_equal(fx_async_mutex_lock(w, &m, NULL), 0);
    assert_int_equal(fx_mutex_unlock(&m), 0);
    assert_int_equal(fx_async_destroy(w), 0);
}

struct blocked_locker {
    fx_mutex *m;
    int result; /* -1 until the lock call returned */
};

static void *blocked_locker_main(void *p)
{
    struct blocked_locker *b = p;
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
    fx_mutex m = FX_MUTEX_INIT;
    struct holder h;
    holder_start(&h, &m);
    /* The waiter queues on the word first, then a blocking locker: the
     * release wakes the waiter (futex queues are FIFO at equal priority). */
    assert_int_equal(fx_async_mutex_lock(w, &m, NULL), EINPROGRESS);
    wait_futex_sleepers(&m.state, own_sleepers(state));
    struct blocked_locker b = {&m, -1};
    pthread_t t = fxt_thread(blocked_locker_main, &b);
    wait_futex_sleepers(&m.state, own_sleepers(state) + 1);
    holder_release(&h);
    assert_int_equal(wait_readable(fx_async_fd(w), 5000), 1);
    holder_join(&h);
    /* The waiter took the only wake; the locker sleeps until it is passed on. */
    assert_int_equal(__atomic_load_n(&b.result, __ATOMIC_ACQUIRE), -1);
    assert_int_equal(fx_async_cancel(w), 0);
    fxt_join(t);
    assert_int_equal(b.result, 0);
    assert_false(readable_now(fx_async_fd(w)));
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_destroy_while_armed_cancels(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex m = FX_MUTEX_INIT;
    struct holder h;
    holder_start(&h, &m);
    assert_int_equal(fx_async_mutex_lock(w, &m, NULL), EINPROGRESS);
    assert_int_equal(fx_async_destroy(w), 0);
    holder_release(&h);
    holder_join(&h);
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
}

static void test_cancel_and_destroy_leak_no_fd_or_thread(void **state)
{
    fx_async_destroy(new_waiter(state)); /* skips when unavailable */
    int fds = count_fds(), threads = count_threads();
    for (int i = 0; i < 6; i++) {
        fx_async *w = new_waiter(state);
        /* io_uring: the eventfd and the ring; thread: the eventfd and a
         * helper thread. */
        assert_int_equal(count_fds(), fds + (backend_of(state) == FX_ASYNC_URING ? 2 : 1));
        assert_int_equal(count_threads(), threads + own_sleepers(state));
        fx_mutex m = FX_MUTEX_INIT;
        struct holder h;
        holder_start(&h, &m);
        assert_int_equal(fx_async_mutex_lock(w, &m, NULL), EINPROGRESS);
        if (i % 2 == 1) {
            holder_release(&h); /* cancel after the fd fired */
            assert_int_equal(wait_readable(fx_async_fd(w), 5000), 1);
        }
        assert_int_equal(fx_async_cancel(w), 0);
        holder_join(&h);
        assert_int_equal(fx_async_destroy(w), 0);
        assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
    }
    assert_int_equal(count_fds(), fds);
    assert_int_equal(count_threads(), threads);
}

/* Many waiters through one loop ----------------------------------------------------- */

#define MANY 16

static void test_many_waiters_on_one_mutex_through_one_epoll_loop(void **state)
{
    fx_mutex m = FX_MUTEX_INIT;
    fx_async *w[MANY];
    int ep = epoll_create1(EPOLL_CLOEXEC);
    assert_true(ep >= 0);
    struct holder h;
    holder_start(&h, &m);
    for (int i = 0; i < MANY; i++) {
        w[i] = new_waiter(state);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, fx_async_fd(w[i]), &ev), 0);
        assert_int_equal(fx_async_mutex_lock(w[i], &m, NULL), EINPROGRESS);
    }
    holder_release(&h);
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
            assert_int_equal(fx_mutex_unlock(&m), 0);
        }
    }
    holder_join(&h);
    for (int i = 0; i < MANY; i++) {
        assert_int_equal(acquired[i], 1);
        assert_false(readable_now(fx_async_fd(w[i])));
        assert_int_equal(fx_async_destroy(w[i]), 0);
    }
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
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
    assert_int_equal(fx_async_futex_wait(w, &word, 0, &d), EINPROGRESS);
    assert_int_equal(complete_within(w, 5000), ETIMEDOUT);
    assert_true(fxt_now_ns() >= ts_ns(&d));
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
    fx_counter c = FX_COUNTER_INIT(0);
    assert_int_equal(fx_async_counter_wait(w, &c, 3, NULL), EINPROGRESS);
    assert_int_equal(c.waiters, 1); /* counted while armed: writers wake it */
    struct adder a = {&c, 3};
    pthread_t t = fxt_thread(adder_main, &a);
    assert_int_equal(complete_within(w, 5000), 0);
    fxt_join(t);
    assert_int_equal(fx_counter_load(&c), 3);
    assert_int_equal(c.waiters, 0);
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
    assert_int_equal(fx_async_counter_wait(w, &c, 0, &d), EINPROGRESS);
    assert_int_equal(complete_within(w, 5000), ETIMEDOUT);
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
    fx_mutex m = FX_MUTEX_INIT;
    struct run_record rr = {&m, 0, 0};
    struct holder h;
    holder_start(&h, &m);
    struct timespec d = fx_deadline_in(10000 * MS);
    assert_int_equal(fx_async_mutex_run(w, &m, &d, record_run, &rr), EINPROGRESS);
    assert_int_equal(rr.runs, 0);
    holder_release(&h);
    assert_int_equal(complete_within(w, 5000), 0);
    assert_int_equal(rr.runs, 1);
    assert_int_not_equal(rr.state_inside, FX_MUTEX_UNLOCKED);
    holder_join(&h);
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED); /* unlocked after the callback */
    assert_int_equal(fx_async_destroy(w), 0);
}

static void test_run_does_not_run_on_timeout_or_cancel(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex m = FX_MUTEX_INIT;
    struct run_record rr = {&m, 0, 0};
    struct holder h;
    holder_start(&h, &m);
    struct timespec d = fx_deadline_in(20 * MS);
    assert_int_equal(fx_async_mutex_run(w, &m, &d, record_run, &rr), EINPROGRESS);
    assert_int_equal(complete_within(w, 5000), ETIMEDOUT);
    assert_int_equal(fx_async_mutex_run(w, &m, NULL, record_run, &rr), EINPROGRESS);
    assert_int_equal(fx_async_cancel(w), 0);
    holder_join(&h);
    assert_int_equal(rr.runs, 0);
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
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
    fx_mutex m = FX_MUTEX_INIT, free_m = FX_MUTEX_INIT;
    int32_t word = 0;
    fx_counter c = FX_COUNTER_INIT(0);
    struct holder h;
    holder_start(&h, &m);
    assert_int_equal(fx_async_mutex_lock(w, &m, NULL), EINPROGRESS);
    assert_int_equal(fx_async_mutex_lock(w, &free_m, NULL), EBUSY);
    assert_int_equal(fx_async_futex_wait(w, &word, 0, NULL), EBUSY);
    assert_int_equal(fx_async_counter_wait(w, &c, 0, NULL), EBUSY);
    assert_int_equal(free_m.state, FX_MUTEX_UNLOCKED);
    holder_release(&h);
    assert_int_equal(complete_within(w, 5000), 0);
    holder_join(&h);
    assert_int_equal(fx_mutex_unlock(&m), 0);
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

static void test_other_threads_get_eperm(void **state)
{
    fx_async *w = new_waiter(state);
    fx_mutex m = FX_MUTEX_INIT, free_m = FX_MUTEX_INIT;
    struct holder h;
    holder_start(&h, &m);
    assert_int_equal(fx_async_mutex_lock(w, &m, NULL), EINPROGRESS);
    /* Armed: only the creator may complete, cancel or destroy it. */
    struct other_thread o = {w, &free_m, 0, 0, 0, 0, 0};
    fxt_join(fxt_thread(other_thread_main, &o));
    assert_int_equal(o.arm, EBUSY);
    assert_int_equal(o.complete, EPERM);
    assert_int_equal(o.cancel, EPERM);
    assert_int_equal(o.destroy, EPERM);
    assert_int_equal(free_m.state, FX_MUTEX_UNLOCKED);
    assert_int_equal(fx_async_cancel(w), 0);
    /* Idle: an arm that must wait is refused to another thread... */
    struct other_thread o2 = {w, &m, 0, 0, 0, 0, 0};
    fxt_join(fxt_thread(other_thread_main, &o2));
    assert_int_equal(o2.arm, EPERM);
    assert_int_equal(o2.destroy, EPERM);
    /* ... one that need not wait succeeds from any thread. */
    struct other_thread o3 = {w, &free_m, 0, 0, 0, 0, 0};
    fxt_join(fxt_thread(other_thread_main, &o3));
    assert_int_equal(o3.arm, 0);
    assert_int_equal(o3.state_after_arm, FX_MUTEX_LOCKED);
    assert_int_equal(free_m.state, FX_MUTEX_UNLOCKED);
    holder_join(&h);
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
        fx_counter_wait(&hs->stage, 3 * i, NULL);
        fx_mutex_lock(&hs->m);
        fx_counter_store(&hs->stage, 3 * i + 1);
        fx_counter_wait(&hs->stage, 3 * i + 2, NULL);
        hs->count++;
        fx_mutex_unlock(&hs->m);
    }
    return NULL;
}

static void test_waits_absorb_a_signal_storm_on_the_loop_thread(void **state)
{
    fx_async *w = new_waiter(state);
    struct handshake hs;
    memset(&hs, 0, sizeof hs);
    hs.rounds = INT32_MAX;
    struct fxt_storm *storm = fxt_storm_start(pthread_self());
    pthread_t t = fxt_thread(handshake_contender, &hs);
    /* At least ROUNDS rounds and 50 ms, so that the storm is under way. */
    int64_t until = fxt_now_ns() + 50 * MS;
    int i;
    bool last = false;
    struct timespec far = fx_deadline_in(60000 * MS); /* a linked timeout, never due */
    for (i = 0; !last; i++) {
        assert_int_equal(fx_counter_wait(&hs.stage, 3 * i + 1, NULL), 0);
        /* Every round waits: the contender holds the mutex until armed. */
        assert_int_equal(fx_async_mutex_lock(w, &hs.m, i % 2 ? &far : NULL), EINPROGRESS);
        last = i + 1 >= ROUNDS && fxt_now_ns() >= until;
        if (last)
            hs.rounds = i + 1; /* read by the contender after stage 3i+2 */
        fx_counter_store(&hs.stage, 3 * i + 2);
        assert_int_equal(complete_within(w, 5000), 0);
        hs.count++;
        assert_int_equal(fx_mutex_unlock(&hs.m), 0);
        fx_counter_store(&hs.stage, 3 * i + 3);
    }
    fxt_join(t);
    long signals = fxt_storm_stop(storm);
    assert_true(signals > 0);
    assert_int_equal(hs.count, 2 * i);
    assert_int_equal(hs.m.state, FX_MUTEX_UNLOCKED);
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
    fx_counter_store(&c->started, 1);
    while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
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
    fx_mutex m = FX_MUTEX_INIT;
    volatile int count = 0;
    int mine = 0, waited = 0;
    struct contender c = {&m, &count, FX_COUNTER_INIT(0), 0, 0, 0};
    pthread_t t = fxt_thread(contender_main, &c);
    assert_int_equal(fx_counter_wait(&c.started, 1, NULL), 0);
    struct timespec far = fx_deadline_in(60000 * MS); /* a linked timeout, never due */
    for (int i = 0; i < ROUNDS; i++) {
        int r = fx_async_mutex_lock(w, &m, i % 2 ? &far : NULL);
        if (r == EINPROGRESS) {
            waited++;
            r = complete_within(w, 5000);
        }
        assert_int_equal(r, 0);
        int before = count, added = 0;
        int64_t until = fxt_now_ns() + 20000;
        while (fxt_now_ns() < until) {
            count++;
            added++;
        }
        assert_int_equal(count, before + added); /* nobody else inside */
        mine += added;
        assert_int_equal(fx_mutex_unlock(&m), 0);
        until = fxt_now_ns() + 20000; /* the loop's other work */
        while (fxt_now_ns() < until)
            continue;
    }
    int64_t limit = fxt_now_ns() + 5000 * MS;
    while (__atomic_load_n(&c.sections, __ATOMIC_RELAXED) == 0)
        assert_true(fxt_now_ns() < limit); /* the contender got in at least once */
    __atomic_store_n(&c.stop, 1, __ATOMIC_RELAXED);
    fxt_join(t);
    assert_int_equal(count, mine + c.added); /* no update lost */
    assert_int_equal(m.state, FX_MUTEX_UNLOCKED);
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
        fx_counter_wait(&th->go, 3 * i, NULL);
        fx_mutex_lock(&th->m);
        fx_counter_store(&th->go, 3 * i + 1);
        fx_counter_wait(&th->go, 3 * i + 2, NULL);
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
    struct timed_holder th;
    memset(&th, 0, sizeof th);
    pthread_t t = fxt_thread(timed_holder_main, &th);
    int64_t lat[20];
    for (int i = 0; i < 20; i++) {
        fx_counter_wait(&th.go, 3 * i + 1, NULL);
        assert_int_equal(fx_async_mutex_lock(w, &th.m, NULL), EINPROGRESS);
        fx_counter_store(&th.go, 3 * i + 2);
        assert_int_equal(wait_readable(fx_async_fd(w), 5000), 1);
        lat[i] = fxt_now_ns() - __atomic_load_n(&th.unlocked_at, __ATOMIC_SEQ_CST);
        assert_int_equal(complete_within(w, 5000), 0);
        assert_int_equal(fx_mutex_unlock(&th.m), 0);
        fx_counter_store(&th.go, 3 * i + 3);
    }
    fxt_join(t);
    qsort(lat, 20, sizeof lat[0], cmp_i64);
    print_message("unlock -> fd readable: median %.1f us, max %.1f us\n", lat[10] / 1e3,
                  lat[19] / 1e3);
    assert_true(lat[10] < 50 * MS); /* generous: a busy CI machine */
    assert_int_equal(fx_async_destroy(w), 0);
}

/* Back-end selection ---------------------------------------------------------------------- */

/* Whether this kernel and process let io_uring's futex operations work:
 * Linux 6.7 or later, kernel.io_uring_disabled = 0, no seccomp filter. */
static bool uring_expected(void)
{
    struct utsname u;
    int major = 0, minor = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
        return false;
    if (major < 6 || (major == 6 && minor < 7))
        return false;
    FILE *f = fopen("/proc/sys/kernel/io_uring_disabled", "r");
    int disabled = 0;
    if (f != NULL) {
        if (fscanf(f, "%d", &disabled) != 1)
            disabled = 1;
        fclose(f);
    }
    if (disabled != 0)
        return false;
    f = fopen("/proc/self/status", "r");
    assert_non_null(f);
    char line[256];
    int seccomp = 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "Seccomp: %d", &seccomp) == 1)
            break;
    fclose(f);
    return seccomp == 0;
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
    struct sock_filter prog[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog fprog = {.len = sizeof prog / sizeof prog[0], .filter = prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
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
    int err = EPERM;
    assert_int_equal(fxt_run_child(fallback_child, &err), 0);
}

static void test_seccomp_enosys_on_io_uring_falls_back_to_thread(void **state)
{
    (void)state;
    int err = ENOSYS;
    assert_int_equal(fxt_run_child(fallback_child, &err), 0);
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
        cmocka_unit_test_prestate(test_run_on_free_mutex_runs_before_returning, be),        \
        cmocka_unit_test_prestate(test_run_on_held_mutex_runs_in_complete_once_acquired, be), \
        cmocka_unit_test_prestate(test_run_does_not_run_on_timeout_or_cancel, be),          \
        cmocka_unit_test_prestate(test_run_without_callback_is_einval, be)        ,          \
        cmocka_unit_test_prestate(test_arming_an_armed_waiter_is_ebusy, be),                \
        cmocka_unit_test_prestate(test_mutex_bad_arguments_are_einval, be),                 \
        cmocka_unit_test_prestate(test_other_threads_get_eperm, be),                        \
        cmocka_unit_test_prestate(test_forked_child_gets_eperm, be),                        \
        cmocka_unit_test_prestate(test_waits_absorb_a_signal_storm_on_the_loop_thread, be), \
        cmocka_unit_test_prestate(test_async_and_blocking_lockers_exclude_each_other, be),  \
        cmocka_unit_test_prestate(test_fd_becomes_readable_soon_after_unlock, be)

int main(void)
{
    const struct CMUnitTest backends[] = {
        cmocka_unit_test(test_null_waiter_is_einval),
        cmocka_unit_test(test_unknown_backend_is_einval),
        cmocka_unit_test(test_auto_picks_uring_where_the_kernel_offers_it),
        cmocka_unit_test(test_env_variable_forces_the_thread_back_end),
        cmocka_unit_test(test_seccomp_eperm_on_io_uring_falls_back_to_thread),
        cmocka_unit_test(test_seccomp_enosys_on_io_uring_falls_back_to_thread),
    };
    const struct CMUnitTest uring[] = {BACKEND_TESTS(&backend_uring)};
    const struct CMUnitTest thread[] = {BACKEND_TESTS(&backend_thread)};
    int failed = cmocka_run_group_tests_name("async_backends", backends, NULL, NULL);
    failed += cmocka_run_group_tests_name("async_uring", uring, NULL, NULL);
    failed += cmocka_run_group_tests_name("async_thread", thread, NULL, NULL);
    return failed;
}
