/*
 * tests/fxfault.h - a deterministic fault harness: schedules that kill a
 * process at a chosen step instead of hoping a stress run hits it.
 *
 * Two schedules, both for objects in MAP_SHARED memory:
 *
 * - "Killed after publishing, before the wake" (the notifier side): the
 *   notifying process arms fxf_kill_at("primitive.step"); the library's
 *   FXI_FAULT point of that name (src/internal/fault.h) then SIGKILLs it. The
 *   fault points exist only in the tests' build of the library,
 *   futexsync_testing, which every test linking fxtest gets. This file
 *   defines fxi_fault_point, so a test that links it (any call of an fxf_
 *   function pulls it in) turns them on; a process that arms nothing runs
 *   them as no-ops.
 *
 * - "Killed in the wake window" (the woken side): a victim process blocks
 *   pinned to the releaser's CPU at SCHED_IDLE. The releaser's wake makes the
 *   victim runnable but cannot preempt the releaser (an idle-policy task never
 *   preempts a normal one on wake-up), so the releaser's next step, a SIGKILL
 *   of the victim, lands before the victim returns to user space: the victim
 *   consumes the wake and takes no step. A bystander that went to sleep after
 *   the victim (the kernel wakes sleepers of equal priority in FIFO order)
 *   then depends only on the library's own recovery.
 *
 * Children never call cmocka asserts: they return codes, the harness returns
 * the statuses (fxt_wait_child: exit code, 128 + signal, -1 on timeout) and
 * the test asserts on them.
 */
#ifndef FXFAULT_H
#define FXFAULT_H

#include <stdint.h>
#include <sys/types.h>

/* In the calling process: the FXI_FAULT point named `step` kills the process
 * with SIGKILL when it is reached. NULL disarms. */
void fxf_kill_at(const char *step);

/* In the calling process: counts, from 0, the FXI_FAULT points named `step`
 * that any thread reaches from now on (NULL stops counting); fxf_counted
 * returns the count. */
void fxf_count_at(const char *step);
long fxf_counted(void);
/* fxf_count_at for the points reached by thread tid (its gettid()) alone. */
void fxf_count_at_thread(const char *step, pid_t tid);
/* fxf_count_at, counting only the points reached at or after the
 * CLOCK_MONOTONIC time from_ns (fxt_now_ns), so a thread can arm a count of
 * what happens later without a second thread to arm it on time. */
void fxf_count_from(const char *step, int64_t from_ns);
/* Both: thread tid alone (0: any), from from_ns on (0: at once). */
void fxf_count_where(const char *step, pid_t tid, int64_t from_ns);

/* A CPU the calling thread may run on (the first of its affinity set), or -1. */
int fxf_first_cpu(void);
/* Pins the calling thread to `cpu`; 0 or an errno value. */
int fxf_pin(int cpu);
/* Moves the calling thread to SCHED_IDLE; 0 or an errno value. */
int fxf_sched_idle(void);

/* One schedule: the blocking call (run by the victim and the bystanders), the
 * release (by the releaser), and what the test shares with them. */
struct fxf_schedule {
    /* In the releaser, before the others start: takes what it will release
     * (a lock), or NULL. Returns 0 or a failure code. */
    int (*prepare)(void *arg);
    /* The release or notification whose wake is at stake. 0 or a code. */
    int (*release)(void *arg);
    /* The blocking call: returns 0 once it got through (a lock is released
     * again before returning), or a failure code. */
    int (*block)(void *arg);
    const void *word; /* the futex word block() sleeps on */
    void *arg;        /* in MAP_SHARED memory */
    int bystanders;   /* 1 .. FXF_MAX_BYSTANDERS */
};

#define FXF_MAX_BYSTANDERS 4

struct fxf_result {
    int releaser;                       /* its status: 0, or 128 + SIGKILL when killed at a step */
    int victim;                         /* 128 + SIGKILL when it died in the window */
    int bystander[FXF_MAX_BYSTANDERS];  /* 0 when each got through in time */
    int64_t recovery_ns;                /* release to the last bystander's return */
    int setup;                          /* 0, or which setup step failed */
};

/* The woken side: releaser and victim pinned to one CPU, victim at
 * SCHED_IDLE, asleep first; then the bystanders asleep, and the victim seen
 * asleep again (it re-reads its word at its rechecks); then the release and
 * at once SIGKILL of the victim. Each bystander is given timeout_ms. */
void fxf_run_wake_window(const struct fxf_schedule *s, int timeout_ms, struct fxf_result *out);

/* A victim that blocks otherwise than the bystanders (a writer, the
 * bystanders readers), for fxf_run_victim_wake_window. */
struct fxf_victim {
    int (*block)(void *arg); /* as fxf_schedule.block, with s->arg */
    const void *word;        /* the futex word it sleeps on */
    /* A backstop, or NULL: the FXI_FAULT point at which the victim dies should
     * it come back from a sleep once the release has begun (the kernel let it
     * run before the releaser's SIGKILL); a return from a sleep before the
     * release (a recheck) passes it. */
    const char *step;
};

/* fxf_run_wake_window with the victim v instead of s->block on s->word. */
void fxf_run_victim_wake_window(const struct fxf_schedule *s, const struct fxf_victim *v,
                                int timeout_ms, struct fxf_result *out);

/* The notifier side: the bystanders block (all asleep on s->word), then the
 * releaser runs release() with fxf_kill_at(step) armed, so it dies at that
 * FXI_FAULT point (its status is then 128 + SIGKILL). No victim. */
void fxf_run_notifier_death(const struct fxf_schedule *s, const char *step, int timeout_ms,
                            struct fxf_result *out);

/* For a test function whose frame a pthread_cancel unwinds (a thread
 * function that is cancelled): no AddressSanitizer redzones. glibc unwinds
 * with internal longjmps that AddressSanitizer does not see, so the redzones
 * of the frames left behind stay poisoned and the thread's exit, reusing that
 * stack, is reported as an overflow (src/internal/futex.h, FXI_CANCEL_FRAME,
 * does the same for the library's frames). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FXF_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(FXF_ASAN)
#define FXF_CANCELLED_FRAME __attribute__((no_sanitize_address))
#else
#define FXF_CANCELLED_FRAME
#endif

#endif /* FXFAULT_H */
