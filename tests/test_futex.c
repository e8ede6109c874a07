/*
 * tests/test_futex.c - the futex layer: fx_futex_wait and fx_futex_wake.
 *
 * A sleeper is known to be asleep when fxt_wait_asleep() sees it in the futex
 * system call on the slot (from /proc), never after a sleep. Wakes then return
 * exact counts.
 */
#define _GNU_SOURCE
#include "fxfault.h"
#include "fxtest.h"

#include <errno.h>
#include <fcntl.h>
#include <futexsync.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ASLEEP_MS 10000 /* limit for a sleeper to reach the kernel */
#define JOIN_MS 10000   /* limit for a woken thread to finish */

/* A thread (or child) sleeping in fx_futex_wait(slot, expected, deadline).
 * Threads' sleepers and slots live in fxt_arena() memory, so a sleeper that a
 * failed test leaves blocked cannot disturb the next test. */
struct sleeper {
    int32_t *slot;
    int32_t expected;
    const struct timespec *deadline; /* NULL or &deadline_copy */
    struct timespec deadline_copy;
    pid_t tid;     /* published before the wait */
    int32_t ready; /* fxt_flag: tid is set */
    int result;
    pthread_t thread;
};

static void *sleeper_main(void *p)
{
    struct sleeper *s = p;
    s->tid = fxt_gettid();
    fxt_flag_set(&s->ready, 1);
    s->result = fx_futex_wait(s->slot, s->expected, s->deadline);
    return NULL;
}

/* Starts a sleeper thread and returns once it sleeps in the kernel on slot. */
static struct sleeper *sleeper_start(int32_t *slot, int32_t expected,
                                     const struct timespec *deadline)
{
    struct sleeper *s = fxt_arena(sizeof *s);
    s->slot = slot;
    s->expected = expected;
    if (deadline != NULL) {
        s->deadline_copy = *deadline;
        s->deadline = &s->deadline_copy;
    }
    s->result = -1;
    s->thread = fxt_thread(sleeper_main, s);
    assert_true(fxt_flag_wait(&s->ready, 1, ASLEEP_MS));
    assert_true(fxt_wait_asleep(s->tid, slot, ASLEEP_MS));
    return s;
}

/* A futex word for tests with threads. */
static int32_t *slot_new(void)
{
    return fxt_arena(sizeof(int32_t));
}

static int sleeper_join(struct sleeper *s)
{
    assert_true(fxt_join_timed(s->thread, JOIN_MS, NULL));
    return s->result;
}

/* fx_futex_wait --------------------------------------------------------------- */

static void futex_wait_value_mismatch_is_eagain(void **state)
{
    (void)state;
    int32_t slot = 1;
    assert_int_equal(fx_futex_wait(&slot, 0, NULL), EAGAIN);
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(fx_futex_wait(&slot, 2, &d), EAGAIN);
    assert_int_equal(slot, 1);
}

static void futex_wait_past_deadline_is_etimedout(void **state)
{
    (void)state;
    int32_t slot = 0;
    struct timespec d = fx_deadline_in(-FX_NSEC_PER_MSEC);
    assert_int_equal(fx_futex_wait(&slot, 0, &d), ETIMEDOUT);
    d = fx_deadline_in(0);
    assert_int_equal(fx_futex_wait(&slot, 0, &d), ETIMEDOUT);
    struct timespec zero = {0, 0}; /* boot time: long past */
    assert_int_equal(fx_futex_wait(&slot, 0, &zero), ETIMEDOUT);
}

/* A negative tv_sec (which the kernel itself rejects) is a deadline long past. */
static void futex_wait_negative_deadline_is_etimedout(void **state)
{
    (void)state;
    int32_t slot = 0;
    struct timespec d = {-1, 0};
    assert_int_equal(fx_futex_wait(&slot, 0, &d), ETIMEDOUT);
    d.tv_sec = -1000000;
    d.tv_nsec = 999999999;
    assert_int_equal(fx_futex_wait(&slot, 0, &d), ETIMEDOUT);
    d = fx_deadline_in(INT64_MIN);
    assert_int_equal(fx_futex_wait(&slot, 0, &d), ETIMEDOUT);
}

/* A negative deadline still checks the value first. */
static void futex_wait_negative_deadline_with_mismatch_is_eagain(void **state)
{
    (void)state;
    int32_t slot = 5;
    struct timespec d = {-1, 0};
    assert_int_equal(fx_futex_wait(&slot, 0, &d), EAGAIN);
}

static void futex_wait_sleeps_until_the_deadline(void **state)
{
    (void)state;
    int32_t slot = 0;
    int64_t start = fxt_now_ns();
    struct timespec d = fx_deadline_in(100 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_futex_wait(&slot, 0, &d), ETIMEDOUT);
    int64_t end = fxt_now_ns();
    assert_true(end >= fxt_ts_ns(&d));
    assert_true(end - start >= 100 * FX_NSEC_PER_MSEC);
    assert_true(end - fxt_ts_ns(&d) < 2 * FX_NSEC_PER_SEC);
}

/* The deadline's nanoseconds count: a wait until a time 1.5 s away whose
 * tv_nsec is half a second does not return before that time (on i686 with
 * _TIME_BITS=64, libc's timespec passed to the 32-bit futex call lost its
 * tv_nsec and the wait ended half a second early). */
static void futex_wait_keeps_the_nanoseconds_of_its_deadline(void **state)
{
    (void)state;
    int32_t slot = 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    struct timespec d = {.tv_sec = now.tv_sec + 1, .tv_nsec = 500000000L};
    if (now.tv_nsec >= 500000000L)
        d.tv_sec += 1; /* 1.0 to 1.5 s away, never sooner */
    assert_int_equal(fx_futex_wait(&slot, 0, &d), ETIMEDOUT);
    int64_t end = fxt_now_ns();
    assert_true(end >= fxt_ts_ns(&d));
}

/* A deadline past 2038 (a tv_sec beyond 32 bits, where time_t has 64) is
 * far future: the wait sleeps until woken, neither EINVAL, EAGAIN nor an
 * immediate ETIMEDOUT. */
static void futex_wait_with_deadline_beyond_32_bit_seconds_sleeps_until_woken(void **state)
{
    (void)state;
    if (sizeof(time_t) < sizeof(int64_t)) {
        print_message("32-bit time_t: no tv_sec beyond 32 bits to pass\n");
        return;
    }
    int32_t *slot = slot_new();
    struct timespec d;
    d.tv_sec = (time_t)(((int64_t)1 << 32) + 1);
    d.tv_nsec = 1;
    struct sleeper *s = sleeper_start(slot, 0, &d);
    assert_int_equal(fx_futex_wake(slot, 1), 1);
    assert_int_equal(sleeper_join(s), 0);
}

#ifdef SYS_futex_time64
/* In a child: futex_time64 fails with ENOSYS, as on a kernel before 5.1. */
static int refuse_futex_time64(void)
{
    return fxt_refuse_syscall(SYS_futex_time64, ENOSYS, 0);
}

static void on_alarm(int sig)
{
    (void)sig;
}

static int old_futex_child(void *p)
{
    (void)p;
    FXT_CHILD_CHECK(refuse_futex_time64() == 0, 2);
    int32_t slot = 0;
    /* The nanoseconds survive the old 32-bit timespec. */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    struct timespec d = {.tv_sec = now.tv_sec + 1, .tv_nsec = 500000000L};
    if (now.tv_nsec >= 500000000L)
        d.tv_sec += 1;
    FXT_CHILD_CHECK(fx_futex_wait(&slot, 0, &d) == ETIMEDOUT, 3);
    FXT_CHILD_CHECK(fxt_now_ns() >= fxt_ts_ns(&d), 4);
    /* A deadline past 2038 is clamped, not refused: the wait sleeps until a
     * signal interrupts it (EINTR), not EINVAL/EAGAIN or ETIMEDOUT at once. */
    if (sizeof(time_t) >= sizeof(int64_t)) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm; /* no SA_RESTART */
        FXT_CHILD_CHECK(sigaction(SIGALRM, &sa, NULL) == 0, 5);
        struct itimerval it = {.it_value = {.tv_sec = 0, .tv_usec = 200000}};
        FXT_CHILD_CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0, 6);
        struct timespec far;
        far.tv_sec = (time_t)(((int64_t)1 << 32) + 1);
        far.tv_nsec = 1;
        FXT_CHILD_CHECK(fx_futex_wait(&slot, 0, &far) == EINTR, 7);
    }
    return 0;
}
#endif

/* Where futex_time64 exists (32-bit architectures) but the kernel lacks it
 * (ENOSYS, before Linux 5.1), waits fall back to the old futex call with the
 * old 32-bit timespec: nanoseconds kept, a far deadline clamped. */
static void futex_wait_without_futex_time64_keeps_its_deadline(void **state)
{
    (void)state;
#ifdef SYS_futex_time64
    fxt_require_seccomp();
    assert_int_equal(fxt_run_child(old_futex_child, NULL), 0);
#else
    print_message("no futex_time64 on this architecture: its 64-bit futex is the only one\n");
#endif
}

static void futex_wait_null_slot_is_einval(void **state)
{
    (void)state;
    assert_int_equal(fx_futex_wait(NULL, 0, NULL), EINVAL);
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(fx_futex_wait(NULL, 0, &d), EINVAL);
}

static void futex_wait_misaligned_slot_is_einval(void **state)
{
    (void)state;
    _Alignas(4) char buf[8] = {0};
    int32_t *bad = (int32_t *)(void *)(buf + 1);
    assert_int_equal(fx_futex_wait(bad, 0, NULL), EINVAL);
    bad = (int32_t *)(void *)(buf + 2);
    assert_int_equal(fx_futex_wait(bad, 0, NULL), EINVAL);
}

static void futex_wait_negative_tv_nsec_is_einval(void **state)
{
    (void)state;
    int32_t slot = 0;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    d.tv_nsec = -1;
    assert_int_equal(fx_futex_wait(&slot, 0, &d), EINVAL);
    d.tv_sec = -1; /* also when the deadline has passed */
    assert_int_equal(fx_futex_wait(&slot, 0, &d), EINVAL);
}

static void futex_wait_one_billion_tv_nsec_is_einval(void **state)
{
    (void)state;
    int32_t slot = 0;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    d.tv_nsec = 1000000000L;
    assert_int_equal(fx_futex_wait(&slot, 0, &d), EINVAL);
    d.tv_sec = -1;
    assert_int_equal(fx_futex_wait(&slot, 0, &d), EINVAL);
}

/* tv_nsec is checked only when the call would sleep. */
static void futex_wait_bad_tv_nsec_with_mismatch_is_eagain(void **state)
{
    (void)state;
    int32_t slot = 1;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    d.tv_nsec = -1;
    assert_int_equal(fx_futex_wait(&slot, 0, &d), EAGAIN);
    d.tv_nsec = 1000000000L;
    assert_int_equal(fx_futex_wait(&slot, 0, &d), EAGAIN);
}

/* The signal interrupts the wait: EINTR. (Whether the handler already ran is
 * not asserted: ThreadSanitizer defers handlers to the thread's next
 * intercepted call, after the system call has returned EINTR.) */
static void futex_wait_interrupted_by_signal_is_eintr(void **state)
{
    (void)state;
    fxt_signal_install();
    int32_t *slot = slot_new();
    struct sleeper *s = sleeper_start(slot, 0, NULL);
    assert_int_equal(pthread_kill(s->thread, SIGUSR1), 0);
    assert_int_equal(sleeper_join(s), EINTR);
}

static void restart_handler(int sig)
{
    (void)sig;
}

/* Issue 11, class 12: a handler installed with SA_RESTART (glibc's signal()
 * default) makes the kernel restart an untimed FUTEX_WAIT; futex.h promises
 * EINTR whenever a handler ran, so that must not hide it. */
static void futex_wait_interrupted_by_sa_restart_handler_is_eintr(void **state)
{
    (void)state;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = restart_handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGUSR2, &sa, &old), 0);
    int32_t *slot = slot_new();
    struct sleeper *s = sleeper_start(slot, 0, NULL);
    assert_int_equal(pthread_kill(s->thread, SIGUSR2), 0);
    bool ended = fxt_join_timed(s->thread, JOIN_MS, NULL);
    if (!ended) {
        /* Restarted: wake it so the process is clean, then fail. */
        __atomic_store_n(slot, 1, __ATOMIC_RELAXED);
        fx_futex_wake(slot, 1);
        fxt_join(s->thread);
    }
    assert_int_equal(sigaction(SIGUSR2, &old, NULL), 0);
    assert_true(ended);
    assert_int_equal(s->result, EINTR);
}

/* The timed wait takes another kernel path (restart block): still EINTR. */
static void futex_wait_with_deadline_interrupted_by_signal_is_eintr(void **state)
{
    (void)state;
    fxt_signal_install();
    int32_t *slot = slot_new();
    struct timespec d = fx_deadline_in(60 * FX_NSEC_PER_SEC);
    struct sleeper *s = sleeper_start(slot, 0, &d);
    assert_int_equal(pthread_kill(s->thread, SIGUSR1), 0);
    assert_int_equal(sleeper_join(s), EINTR);
}

static void futex_wait_woken_by_other_thread_returns_zero(void **state)
{
    (void)state;
    int32_t *slot = slot_new();
    struct sleeper *s = sleeper_start(slot, 0, NULL);
    assert_int_equal(fx_futex_wake(slot, 1), 1);
    assert_int_equal(sleeper_join(s), 0);
}

static void futex_wait_with_deadline_woken_returns_zero(void **state)
{
    (void)state;
    int32_t *slot = slot_new();
    struct timespec d = fx_deadline_in(60 * FX_NSEC_PER_SEC);
    struct sleeper *s = sleeper_start(slot, 0, &d);
    assert_int_equal(fx_futex_wake(slot, 1), 1);
    assert_int_equal(sleeper_join(s), 0);
}

/* The farthest deadline fx_deadline_in gives is accepted by the kernel: the
 * wait sleeps (no EINVAL, no immediate ETIMEDOUT) until woken. */
static void futex_wait_with_int64_max_deadline_sleeps_until_woken(void **state)
{
    (void)state;
    int32_t *slot = slot_new();
    struct timespec d = fx_deadline_in(INT64_MAX);
    struct sleeper *s = sleeper_start(slot, 0, &d);
    assert_int_equal(fx_futex_wake(slot, 1), 1);
    assert_int_equal(sleeper_join(s), 0);
}

/* The largest deadline there is (what fx_deadline_in saturates to) is accepted
 * too: the wait sleeps until woken. */
static void futex_wait_with_max_time_t_deadline_sleeps_until_woken(void **state)
{
    (void)state;
    int32_t *slot = slot_new();
    struct timespec d;
    d.tv_sec = sizeof(time_t) >= sizeof(int64_t) ? (time_t)INT64_MAX : (time_t)INT32_MAX;
    d.tv_nsec = 999999999L;
    struct sleeper *s = sleeper_start(slot, 0, &d);
    assert_int_equal(fx_futex_wake(slot, 1), 1);
    assert_int_equal(sleeper_join(s), 0);
}

/* Cross-process: a child sleeps on MAP_SHARED memory, the parent wakes it. */
static int child_sleeps(void *p)
{
    int32_t *slot = p;
    int r = fx_futex_wait(slot, 0, NULL);
    FXT_CHILD_CHECK(r == 0, 10 + (r & 0x3f));
    return 0;
}

static void futex_wait_in_other_process_is_woken(void **state)
{
    (void)state;
    int32_t *slot = fxt_shared_alloc(sizeof *slot);
    pid_t pid = fxt_fork(child_sleeps, slot);
    bool asleep = fxt_wait_asleep(pid, slot, ASLEEP_MS);
    int woken = fx_futex_wake(slot, 1);
    assert_int_equal(fxt_wait_child(pid, JOIN_MS), 0); /* reaped before asserting */
    assert_true(asleep);
    assert_int_equal(woken, 1);
    fxt_shared_free(slot, sizeof *slot);
}

/* Cross-process, the other way: the parent sleeps, a child wakes it and
 * reports how many it woke as its exit status. */
struct waker {
    int32_t *slot;
    pid_t sleeper_tid;
};

static int child_wakes(void *p)
{
    struct waker *w = p;
    FXT_CHILD_CHECK(fxt_wait_asleep(w->sleeper_tid, w->slot, ASLEEP_MS), 100);
    __atomic_store_n(w->slot, 1, __ATOMIC_SEQ_CST);
    return fx_futex_wake(w->slot, INT32_MAX);
}

static void futex_wake_from_other_process_wakes_waiter(void **state)
{
    (void)state;
    int32_t *slot = fxt_shared_alloc(sizeof *slot);
    struct waker w = {slot, fxt_gettid()};
    pid_t pid = fxt_fork(child_wakes, &w);
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    assert_int_equal(fx_futex_wait(slot, 0, &d), 0);
    assert_int_equal(fxt_wait_child(pid, JOIN_MS), 1); /* it woke exactly us */
    assert_int_equal(*slot, 1);
    fxt_shared_free(slot, sizeof *slot);
}

/* fx_futex_wake ----------------------------------------------------------------- */

static void futex_wake_one_of_three_returns_one(void **state)
{
    (void)state;
    int32_t *slot = slot_new();
    struct sleeper *s[3];
    for (int i = 0; i < 3; i++)
        s[i] = sleeper_start(slot, 0, NULL);
    assert_int_equal(fx_futex_wake(slot, 1), 1);
    /* Exactly one finishes; the other two still sleep on the slot. */
    int finished = -1;
    int64_t limit = fxt_now_ns() + JOIN_MS * FX_NSEC_PER_MSEC;
    while (finished < 0 && fxt_now_ns() < limit) {
        for (int i = 0; i < 3 && finished < 0; i++)
            if (pthread_tryjoin_np(s[i]->thread, NULL) == 0)
                finished = i;
        sched_yield();
    }
    assert_true(finished >= 0);
    assert_int_equal(s[finished]->result, 0);
    for (int i = 0; i < 3; i++)
        if (i != finished)
            assert_true(fxt_wait_asleep(s[i]->tid, slot, ASLEEP_MS));
    assert_int_equal(fx_futex_wake(slot, INT32_MAX), 2);
    for (int i = 0; i < 3; i++)
        if (i != finished)
            assert_int_equal(sleeper_join(s[i]), 0);
}

static void futex_wake_int32_max_wakes_all(void **state)
{
    (void)state;
    int32_t *slot = slot_new();
    struct sleeper *s[3];
    for (int i = 0; i < 3; i++)
        s[i] = sleeper_start(slot, 0, NULL);
    assert_int_equal(fx_futex_wake(slot, INT32_MAX), 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(sleeper_join(s[i]), 0);
}

static void futex_wake_count_zero_wakes_nobody(void **state)
{
    (void)state;
    int32_t *slot = slot_new();
    struct sleeper *s = sleeper_start(slot, 0, NULL);
    assert_int_equal(fx_futex_wake(slot, 0), 0);
    assert_true(fxt_wait_asleep(s->tid, slot, ASLEEP_MS));
    assert_int_equal(fx_futex_wake(slot, 1), 1);
    assert_int_equal(sleeper_join(s), 0);
}

static void futex_wake_without_sleepers_returns_zero(void **state)
{
    (void)state;
    int32_t slot = 0;
    assert_int_equal(fx_futex_wake(&slot, 1), 0);
    assert_int_equal(fx_futex_wake(&slot, INT32_MAX), 0);
    int32_t *shared = fxt_shared_alloc(sizeof *shared);
    assert_int_equal(fx_futex_wake(shared, INT32_MAX), 0);
    fxt_shared_free(shared, sizeof *shared);
}

/* A wake on another word does not reach the sleeper. */
static void futex_wake_on_other_slot_wakes_nobody(void **state)
{
    (void)state;
    int32_t *slots = fxt_arena(2 * sizeof(int32_t));
    struct sleeper *s = sleeper_start(&slots[0], 0, NULL);
    assert_int_equal(fx_futex_wake(&slots[1], INT32_MAX), 0);
    assert_true(fxt_wait_asleep(s->tid, &slots[0], ASLEEP_MS));
    assert_int_equal(fx_futex_wake(&slots[0], INT32_MAX), 1);
    assert_int_equal(sleeper_join(s), 0);
}

static void futex_wake_null_slot_is_minus_einval(void **state)
{
    (void)state;
    assert_int_equal(fx_futex_wake(NULL, 1), -EINVAL);
    assert_int_equal(fx_futex_wake(NULL, INT32_MAX), -EINVAL);
}

static void futex_wake_misaligned_slot_is_minus_einval(void **state)
{
    (void)state;
    _Alignas(4) char buf[8] = {0};
    assert_int_equal(fx_futex_wake((int32_t *)(void *)(buf + 1), 1), -EINVAL);
    assert_int_equal(fx_futex_wake((int32_t *)(void *)(buf + 3), INT32_MAX), -EINVAL);
}

static void futex_wake_negative_count_is_minus_einval(void **state)
{
    (void)state;
    int32_t slot = 0;
    assert_int_equal(fx_futex_wake(&slot, -1), -EINVAL);
    assert_int_equal(fx_futex_wake(&slot, INT32_MIN), -EINVAL);
}

/* --- the scope of a primitive's sleep (src/futex.c, fxi_futex_sleep) ------
 *
 * In memory no other process can futex-wake (fxt_arena: private anonymous
 * pages) a primitive's waiter sleeps without rechecks once its first recheck
 * has found that out; in MAP_SHARED memory it keeps rechecking. The library's
 * fault points (this file defines fxi_fault_point) say which scope each
 * waiter found, and let a test cancel a waiter right after a wake picked it,
 * the in-process way to lose a wake. */

struct scope_probe {
    int32_t private_seen; /* waiters whose first recheck found private memory */
    int32_t shared_seen;  /* ... shared memory, or could not tell */
    int32_t cancel_armed; /* 1: the next woken cancellable sleep is cancelled there */
};
static struct scope_probe *probe; /* the current test's, in fxt_arena memory */

static struct scope_probe *probe_new(void)
{
    struct scope_probe *p = fxt_arena(sizeof *p);
    __atomic_store_n(&probe, p, __ATOMIC_RELEASE);
    return p;
}

void fxi_fault_point(const char *step);
FXF_CANCELLED_FRAME void fxi_fault_point(const char *step)
{
    struct scope_probe *p = __atomic_load_n(&probe, __ATOMIC_ACQUIRE);
    if (p == NULL)
        return;
    if (strcmp(step, "futex.scope.private") == 0) {
        __atomic_fetch_add(&p->private_seen, 1, __ATOMIC_ACQ_REL);
    } else if (strcmp(step, "futex.scope.shared") == 0) {
        __atomic_fetch_add(&p->shared_seen, 1, __ATOMIC_ACQ_REL);
    } else if (strcmp(step, "futex.sleep_cancel.woken") == 0 &&
               __atomic_exchange_n(&p->cancel_armed, 0, __ATOMIC_ACQ_REL)) {
        /* Asynchronous cancellation is on here: the thread unwinds at once,
         * having consumed the wake. */
        pthread_cancel(pthread_self());
        pthread_testcancel();
    }
}

/* voluntary_ctxt_switches from a thread's open status file: its sleeps
 * (-1 if unreadable). The file may have been opened before /proc became
 * unreachable. */
static long sleeps_in(int status_fd)
{
    char buf[4096];
    ssize_t n = pread(status_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    const char *line = strstr(buf, "\nvoluntary_ctxt_switches:");
    long v = -1;
    if (line == NULL || sscanf(line, "\nvoluntary_ctxt_switches: %ld", &v) != 1)
        return -1;
    return v;
}

/* Voluntary context switches of thread tid of this process: its sleeps. */
static long thread_sleeps(pid_t tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    long n = sleeps_in(fd);
    close(fd);
    assert_true(n >= 0);
    return n;
}

struct locker {
    fx_mutex *m;
    pid_t tid;
    int32_t ready;
    bool gated;   /* waits for gate == 1 before it locks */
    int32_t gate;
    int result;
};

static void *locker_main(void *p)
{
    struct locker *l = p;
    l->tid = fxt_gettid();
    fxt_flag_set(&l->ready, 1);
    if (l->gated && !fxt_flag_wait(&l->gate, 1, ASLEEP_MS)) {
        l->result = -1;
        return NULL;
    }
    l->result = fx_mutex_lock(l->m);
    if (l->result == 0)
        fx_mutex_unlock(l->m);
    return NULL;
}

/* A waiter blocked on a held mutex after its scope is known: how many times
 * it slept again meanwhile. want == 0: in a second (two recheck periods),
 * where nothing may wake it. want > 0: until it has slept again want times
 * (10 s at most): a loaded machine may delay a recheck past any window. */
static long idle_locker_sleeps(fx_mutex *m, int32_t *seen, long want)
{
    struct locker *l = fxt_arena(sizeof *l);
    l->m = m;
    assert_int_equal(fx_mutex_lock(m), 0);
    pthread_t t = fxt_thread(locker_main, l);
    assert_true(fxt_flag_wait(&l->ready, 1, ASLEEP_MS));
    assert_true(fxt_flag_wait(seen, 1, ASLEEP_MS)); /* its first recheck */
    assert_true(fxt_wait_asleep(l->tid, &m->state, ASLEEP_MS));
    long before = thread_sleeps(l->tid), after = before;
    if (want == 0) {
        struct timespec second = {1, 0};
        nanosleep(&second, NULL); /* the window observed, not a synchronization */
        after = thread_sleeps(l->tid);
    } else {
        int64_t limit = fxt_now_ns() + 10 * FX_NSEC_PER_SEC;
        while ((after = thread_sleeps(l->tid)) - before < want && fxt_now_ns() < limit) {
            struct timespec pause = {0, 10000000}; /* polling interval only */
            nanosleep(&pause, NULL);
        }
    }
    assert_int_equal(fx_mutex_unlock(m), 0);
    assert_true(fxt_join_timed(t, JOIN_MS, NULL));
    assert_int_equal(l->result, 0);
    return after - before;
}

/* An idle waiter in private memory pays nothing, as with pthread. */
static void private_mutex_waiter_sleeps_without_rechecks(void **state)
{
    (void)state;
    struct scope_probe *p = probe_new();
    fx_mutex *m = fxt_arena(sizeof *m);
    assert_int_equal(idle_locker_sleeps(m, &p->private_seen, 0), 0);
    assert_int_equal(__atomic_load_n(&p->shared_seen, __ATOMIC_ACQUIRE), 0);
}

/* In MAP_SHARED memory the recheck stays: a wake lost to a process killed in
 * the wake window is made up for (docs/reliability.md). */
static void shared_mutex_waiter_keeps_rechecking(void **state)
{
    (void)state;
    struct scope_probe *p = probe_new();
    fx_mutex *m = fxt_shared_alloc(sizeof *m);
    assert_true(idle_locker_sleeps(m, &p->shared_seen, 2) >= 2);
    assert_int_equal(__atomic_load_n(&p->private_seen, __ATOMIC_ACQUIRE), 0);
    fxt_shared_free(m, sizeof *m);
}

/* The child of private_waiter_without_pagemap_keeps_rechecking: 0, or the
 * number of the check that failed. Everything here is the child's own
 * private memory. */
static int waiter_without_pagemap(void *arg)
{
    (void)arg;
    struct scope_probe *p = probe_new();
    fx_mutex *m = fxt_arena(sizeof *m);
    struct locker *l = fxt_arena(sizeof *l);
    l->m = m;
    l->gated = true;
    if (fx_mutex_lock(m) != 0)
        return 1;
    pthread_t t;
    if (pthread_create(&t, NULL, locker_main, l) != 0)
        return 2;
    if (!fxt_flag_wait(&l->ready, 1, ASLEEP_MS))
        return 3;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)l->tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || sleeps_in(fd) < 0)
        return 4;
    /* From now on no thread of this process can open a file, /proc
     * included, as under a sandbox that refuses it. */
    if (fxt_refuse_syscall(SYS_openat, EACCES, SECCOMP_FILTER_FLAG_TSYNC) != 0)
        return 5;
    if (open("/proc/self/status", O_RDONLY | O_CLOEXEC) >= 0 || errno != EACCES)
        return 6;
    fxt_flag_set(&l->gate, 1);
    /* Its first recheck could not tell, and says so. */
    if (!fxt_flag_wait(&p->shared_seen, 1, ASLEEP_MS))
        return 7;
    if (__atomic_load_n(&p->private_seen, __ATOMIC_ACQUIRE) != 0)
        return 8;
    /* It sleeps again at its rechecks (a loaded machine may delay one past
     * any window: until it has, 10 s at most). */
    long before = sleeps_in(fd), after = before;
    int64_t limit = fxt_now_ns() + 10 * FX_NSEC_PER_SEC;
    while (before >= 0 && (after = sleeps_in(fd)) - before < 2 && fxt_now_ns() < limit) {
        struct timespec pause = {0, 10000000}; /* polling interval only */
        nanosleep(&pause, NULL);
    }
    if (before < 0 || after - before < 2)
        return 9; /* it slept untimed: a lost wake would strand it */
    if (fx_mutex_unlock(m) != 0 || pthread_join(t, NULL) != 0 || l->result != 0)
        return 10;
    close(fd);
    return 0;
}

/* Private memory, but /proc cannot be opened (hidepid, no /proc, a sandbox):
 * the waiter cannot prove its memory private, so it keeps its rechecks
 * (in doubt, towards safety) and says "shared". */
static void private_waiter_without_pagemap_keeps_rechecking(void **state)
{
    (void)state;
    fxt_require_seccomp();
    assert_int_equal(fxt_run_child(waiter_without_pagemap, NULL), 0);
}

/* Without rechecks, a private timed wait still ends at its own deadline. */
static void private_timed_wait_ends_at_its_deadline(void **state)
{
    (void)state;
    struct scope_probe *p = probe_new();
    fx_sem *s = fxt_arena(sizeof *s);
    int64_t t0 = fxt_now_ns();
    struct timespec dl = fx_deadline_in(800 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_sem_timedwait(s, &dl), ETIMEDOUT);
    assert_true(fxt_now_ns() - t0 >= 800 * FX_NSEC_PER_MSEC);
    assert_int_equal(__atomic_load_n(&p->private_seen, __ATOMIC_ACQUIRE), 1);
}

/* Two waiters of one private cond or sem: the first one a wake picks is
 * cancelled before it returns (the fault point above); the other must get the
 * signal or the token, though nothing rechecks. */
struct hand_on {
    fx_mutex m;
    fx_cond c;
    fx_sem s;
    int32_t go; /* the cond's predicate, under m */
    bool use_sem;
    pid_t tid[2];
    int32_t ready[2];
};

struct hand_on_arg {
    struct hand_on *h;
    int i;
};

static void hand_on_unlock(void *m)
{
    fx_mutex_unlock(m);
}

FXF_CANCELLED_FRAME static void *hand_on_waiter(void *p)
{
    struct hand_on_arg *a = p;
    struct hand_on *h = a->h;
    h->tid[a->i] = fxt_gettid();
    fxt_flag_set(&h->ready[a->i], 1);
    /* Untimed: at a deadline the waiter would find the token or the
     * advanced counter by itself. */
    int r = 0;
    if (h->use_sem) {
        r = fx_sem_wait(&h->s);
    } else {
        fx_mutex_lock(&h->m);
        pthread_cleanup_push(hand_on_unlock, &h->m);
        while (h->go == 0 && r == 0)
            r = fx_cond_wait(&h->c, &h->m);
        pthread_cleanup_pop(1);
    }
    return (void *)(intptr_t)r;
}

static void run_hand_on(bool use_sem)
{
    struct scope_probe *p = probe_new();
    struct hand_on *h = fxt_arena(sizeof *h);
    struct hand_on_arg *args = fxt_arena(2 * sizeof *args);
    h->use_sem = use_sem;
    const int32_t *word = use_sem ? &h->s.value : &h->c.seq;
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        args[i] = (struct hand_on_arg){h, i};
        t[i] = fxt_thread(hand_on_waiter, &args[i]);
        assert_true(fxt_flag_wait(&h->ready[i], 1, ASLEEP_MS));
    }
    /* Both past their first recheck: from now on only a wake ends a sleep. */
    assert_true(fxt_flag_wait(&p->private_seen, 2, ASLEEP_MS));
    for (int i = 0; i < 2; i++)
        assert_true(fxt_wait_asleep(h->tid[i], word, ASLEEP_MS));
    __atomic_store_n(&p->cancel_armed, 1, __ATOMIC_RELEASE);
    if (use_sem) {
        assert_int_equal(fx_sem_post(&h->s), 0);
    } else {
        assert_int_equal(fx_mutex_lock(&h->m), 0);
        h->go = 1;
        assert_int_equal(fx_cond_signal(&h->c), 0);
        assert_int_equal(fx_mutex_unlock(&h->m), 0);
    }
    void *ret[2];
    for (int i = 0; i < 2; i++)
        assert_true(fxt_join_timed(t[i], JOIN_MS, &ret[i]));
    assert_int_equal(__atomic_load_n(&p->cancel_armed, __ATOMIC_ACQUIRE), 0); /* it fired */
    int cancelled = (ret[0] == PTHREAD_CANCELED) + (ret[1] == PTHREAD_CANCELED);
    assert_int_equal(cancelled, 1);
    /* The other one got the signal or the token. */
    assert_ptr_equal(ret[0] == PTHREAD_CANCELED ? ret[1] : ret[0], NULL);
    if (use_sem)
        assert_int_equal(fx_sem_value(&h->s), 0);
}

static void private_cond_waiter_cancelled_after_its_wake_hands_the_signal_on(void **state)
{
    (void)state;
    run_hand_on(false);
}

static void private_sem_waiter_cancelled_after_its_wake_hands_the_token_on(void **state)
{
    (void)state;
    run_hand_on(true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* The fork-based tests come first, before this process has threads. */
        cmocka_unit_test(futex_wait_in_other_process_is_woken),
        cmocka_unit_test(futex_wake_from_other_process_wakes_waiter),
        cmocka_unit_test(futex_wait_value_mismatch_is_eagain),
        cmocka_unit_test(futex_wait_past_deadline_is_etimedout),
        cmocka_unit_test(futex_wait_negative_deadline_is_etimedout),
        cmocka_unit_test(futex_wait_negative_deadline_with_mismatch_is_eagain),
        cmocka_unit_test(futex_wait_sleeps_until_the_deadline),
        cmocka_unit_test(futex_wait_keeps_the_nanoseconds_of_its_deadline),
        cmocka_unit_test(futex_wait_with_deadline_beyond_32_bit_seconds_sleeps_until_woken),
        cmocka_unit_test(futex_wait_without_futex_time64_keeps_its_deadline),
        cmocka_unit_test(private_waiter_without_pagemap_keeps_rechecking),
        cmocka_unit_test(futex_wait_null_slot_is_einval),
        cmocka_unit_test(futex_wait_misaligned_slot_is_einval),
        cmocka_unit_test(futex_wait_negative_tv_nsec_is_einval),
        cmocka_unit_test(futex_wait_one_billion_tv_nsec_is_einval),
        cmocka_unit_test(futex_wait_bad_tv_nsec_with_mismatch_is_eagain),
        cmocka_unit_test(futex_wait_interrupted_by_signal_is_eintr),
        cmocka_unit_test(futex_wait_with_deadline_interrupted_by_signal_is_eintr),
        cmocka_unit_test(futex_wait_interrupted_by_sa_restart_handler_is_eintr),
        cmocka_unit_test(futex_wait_woken_by_other_thread_returns_zero),
        cmocka_unit_test(futex_wait_with_deadline_woken_returns_zero),
        cmocka_unit_test(futex_wait_with_int64_max_deadline_sleeps_until_woken),
        cmocka_unit_test(futex_wait_with_max_time_t_deadline_sleeps_until_woken),
        cmocka_unit_test(futex_wake_one_of_three_returns_one),
        cmocka_unit_test(futex_wake_int32_max_wakes_all),
        cmocka_unit_test(futex_wake_count_zero_wakes_nobody),
        cmocka_unit_test(futex_wake_without_sleepers_returns_zero),
        cmocka_unit_test(futex_wake_on_other_slot_wakes_nobody),
        cmocka_unit_test(futex_wake_null_slot_is_minus_einval),
        cmocka_unit_test(futex_wake_misaligned_slot_is_minus_einval),
        cmocka_unit_test(futex_wake_negative_count_is_minus_einval),
        cmocka_unit_test(private_mutex_waiter_sleeps_without_rechecks),
        cmocka_unit_test(shared_mutex_waiter_keeps_rechecking),
        cmocka_unit_test(private_timed_wait_ends_at_its_deadline),
        cmocka_unit_test(private_cond_waiter_cancelled_after_its_wake_hands_the_signal_on),
        cmocka_unit_test(private_sem_waiter_cancelled_after_its_wake_hands_the_token_on),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
