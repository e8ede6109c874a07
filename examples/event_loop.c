/*
 * event_loop - an epoll loop keeps ticking while it waits, without blocking,
 * for an fx_mutex that another process holds; then it runs its critical
 * section on the loop (the executeLocked pattern).
 *
 * A forked child takes the mutex, which lives in MAP_SHARED memory, and holds
 * it for 200 ms. As soon as the child holds it, the parent arms
 * fx_async_mutex_run() and goes on running its epoll loop, whose 10 ms
 * timerfd ticks all along. When the child unlocks, the waiter's fd becomes
 * readable, fx_async_complete() acquires the mutex and runs the critical
 * section, which reads what the child wrote under the lock.
 *
 * Prints the ticks the loop handled during the wait (about 20). Exits
 * non-zero if the loop was blocked (fewer than 10 ticks), or the critical
 * section did not run, or did not see the child's write. FUTEXSYNC_ASYNC=thread
 * runs it on the helper-thread back end instead of io_uring.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <futexsync.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HOLD_MS 200
#define TICK_MS 10

struct shared {
    fx_mutex lock;
    fx_counter held; /* 1 once the child holds the lock */
    int32_t value;   /* written by the child under the lock */
};

struct loop_state {
    struct shared *sh;
    long ticks;           /* timer events handled by the loop */
    long ticks_in_cs;     /* ... when the critical section ran */
    int ran;              /* the critical section ran */
    int32_t value_seen;   /* what it read */
};

static void critical_section(void *arg)
{
    struct loop_state *st = arg;
    st->ran = 1;
    st->ticks_in_cs = st->ticks;
    st->value_seen = st->sh->value; /* the lock orders the child's write before us */
    st->sh->value += 1;
}

static int child(struct shared *sh)
{
    if (fx_mutex_lock(&sh->lock) != 0)
        return 1;
    struct timespec until = fx_deadline_in(HOLD_MS * FX_NSEC_PER_MSEC);
    fx_counter_store(&sh->held, 1);
    sh->value = 42;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
        continue;
    return fx_mutex_unlock(&sh->lock) == 0 ? 0 : 1;
}

int main(void)
{
    struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0)
        _exit(child(sh));

    /* Start waiting only once the child really holds the lock. */
    struct timespec limit = fx_deadline_in(10 * FX_NSEC_PER_SEC);
    if (fx_counter_wait(&sh->held, 1, &limit) != 0) {
        fprintf(stderr, "the child never took the lock\n");
        return 1;
    }

    fx_async *w;
    int r = fx_async_create(&w, FX_ASYNC_AUTO);
    if (r != 0) {
        fprintf(stderr, "fx_async_create: %s\n", strerror(r));
        return 1;
    }
    int ep = epoll_create1(EPOLL_CLOEXEC);
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    struct itimerspec every = {{0, TICK_MS * FX_NSEC_PER_MSEC}, {0, TICK_MS * FX_NSEC_PER_MSEC}};
    struct epoll_event ev_timer = {.events = EPOLLIN, .data.fd = tfd};
    struct epoll_event ev_wait = {.events = EPOLLIN, .data.fd = fx_async_fd(w)};
    if (ep < 0 || tfd < 0 || timerfd_settime(tfd, 0, &every, NULL) != 0 ||
        epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev_timer) != 0 ||
        epoll_ctl(ep, EPOLL_CTL_ADD, fx_async_fd(w), &ev_wait) != 0) {
        perror("epoll/timerfd");
        return 1;
    }

    struct loop_state st = {sh, 0, -1, 0, 0};
    struct timespec deadline = fx_deadline_in(5 * FX_NSEC_PER_SEC);
    r = fx_async_mutex_run(w, &sh->lock, &deadline, critical_section, &st);
    if (r != EINPROGRESS) {
        fprintf(stderr, "expected to wait for the child's lock, got %s\n", strerror(r));
        return 1;
    }
    printf("event_loop: waiting for the child's mutex (%s back end), loop running\n",
           fx_async_backend(w) == FX_ASYNC_URING ? "io_uring" : "helper-thread");

    /* The event loop: timer ticks and the waiter, until the wait is over. */
    while (r == EINPROGRESS) {
        struct epoll_event evs[2];
        int n = epoll_wait(ep, evs, 2, -1);
        for (int i = 0; i < n; i++) {
            if (evs[i].data.fd == tfd) {
                uint64_t expirations;
                if (read(tfd, &expirations, sizeof expirations) == sizeof expirations)
                    st.ticks++; /* one per wake-up: a blocked loop would count 1 */
            } else if (r == EINPROGRESS) {
                r = fx_async_complete(w);
            }
        }
    }

    int status = 0;
    waitpid(pid, &status, 0);
    printf("event_loop: %ld ticks of %d ms while waiting %d ms for the mutex\n", st.ticks_in_cs,
           TICK_MS, HOLD_MS);
    printf("event_loop: critical section %s, saw the child's value %d\n",
           st.ran ? "ran on the loop" : "did NOT run", (int)st.value_seen);

    int failed = 0;
    if (r != 0) {
        fprintf(stderr, "fx_async_complete: %s\n", strerror(r));
        failed = 1;
    }
    if (!st.ran || st.value_seen != 42 || sh->value != 43) {
        fprintf(stderr, "the critical section did not run as it should\n");
        failed = 1;
    }
    if (st.ran && st.ticks_in_cs < 10) {
        fprintf(stderr, "the loop was blocked: %ld ticks\n", st.ticks_in_cs);
        failed = 1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "the child failed\n");
        failed = 1;
    }
    fx_async_destroy(w);
    close(tfd);
    close(ep);
    munmap(sh, sizeof *sh);
    return failed;
}
