/*
 * tests/fxtest.h - helpers shared by the futexsync tests.
 *
 * Forked children never call cmocka's assertions (a failure would unwind into
 * the child's copy of the test runner): a child function returns 0 on success
 * or a small distinct code naming the check that failed, and the parent asserts
 * on the exit status. FXT_CHILD_CHECK makes that one line.
 */
#ifndef FXTEST_H
#define FXTEST_H

#include <pthread.h>
#include <setjmp.h> /* cmocka needs these four first */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

/* In a child function: return `code` unless cond holds. */
#define FXT_CHILD_CHECK(cond, code) \
    do {                            \
        if (!(cond))                \
            return (code);          \
    } while (0)

/* Zero-filled MAP_SHARED | MAP_ANONYMOUS memory, shared with forked children. */
void *fxt_shared_alloc(size_t size);
void fxt_shared_free(void *p, size_t size);

/* Forks; the child runs fn(arg) and exits with its return value (0..255). */
pid_t fxt_fork(int (*fn)(void *), void *arg);
/* Reaps pid: its exit status, or 128 + the signal that killed it. Gives up
 * (kills it and returns -1) after timeout_ms. */
int fxt_wait_child(pid_t pid, int timeout_ms);
/* fxt_fork + fxt_wait_child with a 60 s limit. */
int fxt_run_child(int (*fn)(void *), void *arg);

/* Monotonic time in nanoseconds. */
int64_t fxt_now_ns(void);

/* Thread creation that fails the test instead of returning an error. */
pthread_t fxt_thread(void *(*fn)(void *), void *arg);
void *fxt_join(pthread_t t);

/* Signal storm: a thread sends SIGUSR1 to `target` every ~20 us until stopped.
 * The handler is installed without SA_RESTART, so every blocking system call
 * of the target returns EINTR; futexsync must absorb them all. */
struct fxt_storm;
struct fxt_storm *fxt_storm_start(pthread_t target);
/* Stops the storm; returns how many signals the handler ran (in any thread). */
long fxt_storm_stop(struct fxt_storm *s);

/* The no-system-call proof: runs fn(arg) in a forked child under a seccomp
 * filter that kills the child with SIGSYS if it makes a futex or futex_waitv
 * system call whose address lies in [addr, addr + len). Other futex calls
 * (the C library's, a sanitizer runtime's) are allowed, so the proof is exact
 * about the object under test. Returns the child's fxt_wait_child status: 0
 * when fn returned 0 and no futex call touched the object, 128 + SIGSYS when
 * one did. */
int fxt_run_without_futex(const void *addr, size_t len, int (*fn)(void *), void *arg);

#endif /* FXTEST_H */
