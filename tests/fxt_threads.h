/*
 * tests/fxt_threads.h - waiting for another thread to reach a state, without
 * sleeping for a guessed time: for tests of the primitives' blocking paths.
 *
 * fxt_wait_asleep(tid) returns once the thread is blocked in the kernel (state
 * S in /proc/self/task/<tid>/stat). The test threads that use it block only in
 * a futex wait, so "asleep" means "queued on the futex": a wake issued after
 * this returns is guaranteed to find it.
 */
#ifndef FXT_THREADS_H
#define FXT_THREADS_H

#include "fxtest.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The calling thread's kernel TID. */
static inline pid_t fxt_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* An atomic read of a slot other threads may be changing. */
static inline int32_t fxt_load(const int32_t *slot)
{
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

/* Spins (yielding) until *slot == want; fails the test after 10 s. */
static inline void fxt_wait_slot(const int32_t *slot, int32_t want)
{
    int64_t limit = fxt_now_ns() + 10 * 1000000000LL;
    while (__atomic_load_n(slot, __ATOMIC_ACQUIRE) != want) {
        assert_true(fxt_now_ns() < limit);
        sched_yield();
    }
}

/* Spins (yielding) until (*slot & mask) == want; fails after 10 s. */
static inline void fxt_wait_bits(const int32_t *slot, int32_t mask, int32_t want)
{
    int64_t limit = fxt_now_ns() + 10 * 1000000000LL;
    while ((__atomic_load_n(slot, __ATOMIC_ACQUIRE) & mask) != want) {
        assert_true(fxt_now_ns() < limit);
        sched_yield();
    }
}

/* The scheduler state letter of thread tid of this process, or '?'. */
static inline char fxt_thread_state(pid_t tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return '?';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    return p != NULL && p[1] == ' ' ? p[2] : '?';
}

/* Waits until thread tid (of this process) sleeps in the kernel; fails the
 * test after 10 s. A published TID of 0 means "not started yet". */
static inline void fxt_wait_asleep(const pid_t *tid)
{
    int64_t limit = fxt_now_ns() + 10 * 1000000000LL;
    for (;;) {
        pid_t t = __atomic_load_n(tid, __ATOMIC_ACQUIRE);
        if (t != 0 && fxt_thread_state(t) == 'S')
            return;
        assert_true(fxt_now_ns() < limit);
        sched_yield();
    }
}

#endif /* FXT_THREADS_H */
