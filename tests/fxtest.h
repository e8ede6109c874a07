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
#include <linux/audit.h>

/* The seccomp audit architecture of this build's target, which every seccomp
 * filter of the tests checks first (a system call made in another ABI has
 * other numbers). From the compiler's target macros. */
#if defined(__x86_64__) && !defined(__ILP32__)
#define FXT_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define FXT_AUDIT_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__) && defined(__AARCH64EL__)
#define FXT_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define FXT_AUDIT_ARCH AUDIT_ARCH_RISCV64
#elif defined(__arm__) && !defined(__ARMEB__)
#define FXT_AUDIT_ARCH AUDIT_ARCH_ARM
#else
#error "tests/fxtest.h: FXT_AUDIT_ARCH unknown for this architecture"
#endif

/* 1 in a ThreadSanitizer build: the library then runs under a race detector,
 * which changes what it may do (src/internal/identity.h: no TID cached). */
#if defined(__SANITIZE_THREAD__)
#define FXT_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FXT_UNDER_TSAN 1
#endif
#endif
#ifndef FXT_UNDER_TSAN
#define FXT_UNDER_TSAN 0
#endif

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
/* Lets the storm hit its target: waits until the handler has run n times
 * since the storm started, for at most cap_ms (the storm or its target may
 * be slow to run on a loaded machine, and a sanitizer may defer the handler
 * of a thread asleep in a system call: this does not insist). Returns the
 * count. For a test that asserts what a thread did while signals hit it. */
long fxt_storm_hits(long n, int cap_ms);

/* The no-system-call proof: runs fn(arg) in a forked child under a seccomp
 * filter that kills the child with SIGSYS if it makes a futex or futex_waitv
 * system call whose address lies in [addr, addr + len). Other futex calls
 * (the C library's, a sanitizer runtime's) are allowed, so the proof is exact
 * about the object under test. Returns the child's fxt_wait_child status: 0
 * when fn returned 0 and no futex call touched the object, 128 + SIGSYS when
 * one did. */
int fxt_run_without_futex(const void *addr, size_t len, int (*fn)(void *), void *arg);
/* fxt_run_without_futex (and every test that installs a seccomp filter) needs
 * seccomp(): fxt_seccomp_works() probes once, in a forked child, whether this
 * process may install a filter (an emulator such as qemu-user does not
 * implement the call). fxt_require_seccomp() skips the calling test, with a
 * message naming seccomp, where it may not; call it from the test function
 * itself (cmocka's skip), never from a forked child. fxt_run_without_futex
 * calls it. */
bool fxt_seccomp_works(void);
void fxt_require_seccomp(void);
/* In a forked child: system call nr answers -err from now on, every other
 * call is allowed, and a call made in another ABI kills the process. flags:
 * 0 (the calling thread and the threads it creates later) or
 * SECCOMP_FILTER_FLAG_TSYNC (every thread of the process). 0, or -1 when the
 * filter could not be installed. */
int fxt_refuse_syscall(long nr, int err, unsigned flags);

/* Owner death seen by the library's liveness probe (src/process.c): through
 * process_vm_readv, an unreaped zombie (and a kernel thread) is dead; where
 * that call is refused (qemu-user does not implement it, nor does a kernel
 * without CONFIG_CROSS_MEMORY_ATTACH; a seccomp filter may refuse it) the
 * fallback kill(tid, 0) sees every task with that number alive, a zombie
 * until it is reaped (include/futexsync/rmutex.h). fxt_zombies_look_dead()
 * probes which, once per process: process_vm_readv of a byte of this
 * process. fxt_require_zombies_look_dead() skips the calling test, with a
 * message, where they look alive (call it from the test function). */
bool fxt_zombies_look_dead(void);

/* Whether the calling thread's fx_rmutex words are reported by the kernel at
 * its death (it joins the robust futex list: glibc on a real kernel), asked
 * of the library's own state: the owner word of an rmutex the thread holds
 * has no FX_RMUTEX_PROBED. False under qemu-user (no get_robust_list). */
bool fxt_rmutex_robust(void);
/* The owner word (without FX_RMUTEX_WAITERS) the calling thread writes into
 * an fx_rmutex it acquires, as include/futexsync/layout.h defines it: its
 * gettid() where fxt_rmutex_robust(), else gettid() | FX_RMUTEX_PROBED, and
 * | FX_RMUTEX_LOCALNS unless the process runs in the initial PID namespace
 * (/proc/self/ns/pid is PROC_PID_INIT_INO). Callable from a forked child. */
int32_t fxt_rmutex_self_word(void);
void fxt_require_zombies_look_dead(void);
/* For a test that SIGKILLs an owner process (a child of this one) and leaves
 * it a zombie for the library to find dead: where zombies look alive, reaps
 * pid at once (waiting for its death, at most 10 s) and says so, so that the
 * rest of the test asserts what the fallback guarantees; fxt_wait_child(pid)
 * later returns the status reaped here. Nothing where zombies look dead.
 * Callable from any thread of the test process. */
void fxt_reap_where_zombies_look_alive(pid_t pid);

/* More helpers --------------------------------------------------------------- */

/* The calling thread's kernel thread ID (gettid(2)). */
pid_t fxt_gettid(void);

/* Waits until thread `tid` (of this or any other process: a single-threaded
 * child's tid is its pid) is asleep in a futex wait on `addr`, and returns
 * true; returns false if that does not happen within timeout_ms.
 *
 * "Asleep" means: /proc/<tid>/stat shows state 'S' and /proc/<tid>/syscall
 * shows the futex system call with `addr` as its first argument (the kernel
 * only reports the system call of a task that is not running, so the thread is
 * queued on the futex, or a wake of it is in flight). When /proc/<tid>/syscall
 * is unreadable, the wait channel (/proc/<tid>/wchan mentions "futex") is the
 * fallback; it cannot check the address. The check polls, so it is only a
 * way to know that a sleeper has reached the kernel before waking it or
 * asserting on the state it leaves; it never replaces a wake. */
bool fxt_wait_asleep(pid_t tid, const void *addr, int timeout_ms);
/* As fxt_wait_asleep for any blocking system call: waits until task tid
 * sleeps (state 'S') in system call nr as /proc/<tid>/syscall shows it, or,
 * where that file cannot be read or shows another number (an emulator such
 * as qemu-user shows its host's calls), with a wait channel
 * (/proc/<tid>/wchan) that contains wchan ("poll" for ppoll). true, or false
 * after timeout_ms. */
bool fxt_wait_in_syscall(pid_t tid, long nr, const char *wchan, int timeout_ms);
/* The one-letter state of task tid (any process's) in /proc/<tid>/stat, or 0
 * when it cannot be read. The command name in parentheses may hold
 * anything: the state follows the last ')'. */
char fxt_task_state(pid_t tid);

/* True when the system call number `nr` (as /proc/<tid>/syscall shows it) is
 * a futex wait's: futex, or futex_time64 on 32-bit architectures, which the
 * library's timed waits use there. */
bool fxt_is_futex_call(long nr);
/* How task tid sleeps on the futex word addr, from /proc/<tid>/syscall: 1 in
 * futex(2) on it (a bounded or plain sleep), 2 in futex_waitv(2) with addr
 * among its words (an untimed sleeper of shared memory, src/sleep.c), 0 not
 * in such a call, -1 when the file cannot be read. */
int fxt_futex_sleep_how(pid_t tid, const void *addr);

/* Installs the SIGUSR1 handler of the signal storm (no SA_RESTART: a blocking
 * system call of the thread that receives it returns EINTR) and resets the
 * count of handler runs, for tests that send single signals (pthread_kill).
 * The handler stays installed for the rest of the process. */
void fxt_signal_install(void);
/* How many times the handler ran since fxt_signal_install()/fxt_storm_start(). */
long fxt_signal_count(void);

/* pthread_join with a limit: true (and *ret, if ret is not NULL) when t ended
 * within timeout_ms; false when it is still running (it is then left running:
 * the caller fails the test instead of hanging). */
bool fxt_join_timed(pthread_t t, int timeout_ms, void **ret);

/* Flags for handshakes between threads or processes (MAP_SHARED memory) that
 * do not rely on the primitives under test: fxt_flag_set stores v (release),
 * fxt_flag_wait polls (acquire, yielding the CPU) until *flag == v and returns
 * true, or false after timeout_ms. */
void fxt_flag_set(int32_t *flag, int32_t v);
bool fxt_flag_wait(const int32_t *flag, int32_t v, int timeout_ms);

/* Zero-filled, 16-byte-aligned memory that is never freed nor reused, for the
 * objects a test shares with its threads (the primitive, the threads' own
 * records). A thread that a failing test leaves blocked keeps using them, so
 * they must not become a later test's stack or heap. Private to the process;
 * call it from the test's main thread. */
void *fxt_arena(size_t size);

/* A timespec as nanoseconds (tv_sec must be within +-292 years). */
int64_t fxt_ts_ns(const struct timespec *ts);

/* The signal storm for forked children, which must not call cmocka's
 * assertions: as fxt_storm_start / fxt_storm_stop, but a failure to install
 * the handler or to start the thread returns NULL instead of asserting, and
 * the stop never asserts (it returns -1 when the thread could not be joined). */
struct fxt_storm *fxt_storm_start_child(pthread_t target);
long fxt_storm_stop_child(struct fxt_storm *s);

/* Cancellation of a thread in a wait (a cancellation point). The test fills
 * in the callbacks and the word, in fxt_arena memory (a thread that a failing
 * test leaves blocked keeps using it); the harness runs wait() in a thread of
 * its own: prepare(), then the cleanup handler pushed, then wait(). Callbacks
 * that a cancellation unwinds (wait, and prepare for a pending one) are
 * FXF_CANCELLED_FRAME (fxfault.h). */
struct fxt_cancel {
    /* Takes what the wait needs (the cond's mutex), or NULL: 0, or a failure
     * (the thread then ends before it is ready, and the test fails). */
    int (*prepare)(void *arg);
    /* The wait under test, called with the cleanup handler pushed; it must
     * not return before it is cancelled (a return fails the test). */
    void (*wait)(void *arg);
    /* The cleanup handler, run by the cancellation with what prepare took,
     * or NULL. */
    void (*cleanup)(void *arg);
    const void *word; /* the futex word wait() sleeps on */
    void *arg;
    /* Set by the harness. */
    pid_t tid;           /* the waiting thread */
    int32_t ready;       /* fxt_flag: 1 once tid is set, 2 once the cancellation is pending */
    int32_t cleanup_ran; /* the cleanup handler ran */
    int pending;         /* which of the two runs */
    int timeout_ms;
};

/* A thread blocked in c->wait is cancelled: asserts that it sleeps on c->word,
 * then that it ends cancelled (PTHREAD_CANCELED) within timeout_ms, its
 * cleanup handler run. */
void fxt_cancel_blocked(struct fxt_cancel *c, int timeout_ms);
/* A cancellation pending before the wait: the thread runs prepare() and waits
 * for the cancellation with cancellation disabled, then enables it and calls
 * c->wait, which must act on it; asserts as fxt_cancel_blocked. */
void fxt_cancel_pending(struct fxt_cancel *c, int timeout_ms);

/* Races against a deadline -----------------------------------------------------
 *
 * A regression test that releases (signals, unlocks) around a timed waiter's
 * deadline, round after round, must see both outcomes of the race (the
 * waiter released, or timed out) to have exercised it. A round's release
 * point lies from 100 us before to 400 us after the deadline, which was set
 * a lead time ahead; on a loaded machine the waiter may take longer than
 * that lead to fall asleep, and the release then comes late and proves
 * nothing about the race. So only the rounds released at their point (and
 * not preempted on the way) count, a round that reached its point late
 * doubles the lead of the next (4 ms at first, 256 ms at most), and the
 * rounds go on past the test's number until both outcomes were counted (ten
 * times the number at most). The release sleeps until shortly before its
 * point and spins the rest: a thread that spun through the whole lead would
 * be preempted at the point. */
struct fxt_race {
    int64_t lead_ns;   /* how far ahead the next round's deadline is */
    int64_t margin_ns; /* how long before the point the release's spin starts */
    int64_t at_ns;     /* this round's release point */
    bool in_time;      /* this round's release came at its point */
    int rounds;        /* rounds begun */
    int late;          /* rounds whose release came late */
    int seen[2];       /* counted rounds that ended each way */
};
#define FXT_RACE_INIT {4000000, 200000, 0, false, 0, 0, {0, 0}}
/* Whether to begin another round: at least `rounds` of them, then on until
 * both outcomes were counted, ten times `rounds` at most. */
bool fxt_race_next(struct fxt_race *r, int rounds);
/* The deadline for this round's waiter: the lead from now. */
struct timespec fxt_race_deadline(const struct fxt_race *r);
/* Once the waiter sleeps (or has returned): spins until the round's point
 * around deadline and calls release(arg) there; its result. */
int fxt_race_release(struct fxt_race *r, const struct timespec *deadline, int (*release)(void *),
                     void *arg);
/* The round's outcome (0 or 1), counted if it was released at its point. */
void fxt_race_count(struct fxt_race *r, int outcome);

/* Isolated test runs -----------------------------------------------------------
 *
 * fxt_run_group_tests replaces cmocka_run_group_tests in every test binary's
 * main: each test of the group runs in a forked child process of its own.
 * A failing assertion longjmps out of the test function and leaves behind
 * whatever the test started: threads still running or asleep in a primitive,
 * locks they hold, the test's stack and arena objects they use. In one
 * process those break the tests after it; in a child of its own they die
 * with it (its whole process group is killed once it ends), so a failure,
 * a crash or a hang stays in the test that caused it.
 *
 * The parent stays single-threaded and runs no test, so every child starts
 * from the same state: the library's per-process state (cached TIDs, the
 * probes' answers) is that of a process that has run nothing, and no test
 * may rely on state set by an earlier one. The group's setup and teardown run in each
 * child, around its one test. The parent prints cmocka's frame ("Running N
 * test(s)", the summary with "[  PASSED  ] N test(s)." and the failed
 * tests' names); each child prints its test's lines ([ RUN ], [ OK ],
 * [ FAILED ] with cmocka's message), and the parent names what cmocka
 * cannot: a test whose process died of a signal (CMOCKA_TEST_ABORT=1 turns
 * a failed assertion into that), exited on its own, failed a sanitizer's
 * check at its exit (ThreadSanitizer's exit status 66, LeakSanitizer's 23),
 * or gave no verdict within FXT_TEST_TIMEOUT seconds (60 by default, below
 * the binaries' ctest TIMEOUT).
 *
 * Environment: CMOCKA_TEST_FILTER and CMOCKA_SKIP_FILTER select tests by
 * name (fnmatch patterns, as cmocka 2 reads them). FXT_ISOLATE=0 runs the
 * group in one process, as cmocka_run_group_tests does (a debugger's view);
 * so does a CMOCKA_MESSAGE_OUTPUT other than STDOUT (TAP, SUBUNIT and XML
 * number or collect the tests of a whole group). Returns the number of
 * failed tests (at most 255: a process's exit status). */
int fxt_run_group_isolated(const char *group_name, const struct CMUnitTest *tests, size_t n,
                           CMFixtureFunction group_setup, CMFixtureFunction group_teardown);
#define fxt_run_group_tests(group_tests, group_setup, group_teardown)                      \
    fxt_run_group_isolated(#group_tests, group_tests,                                      \
                           sizeof(group_tests) / sizeof((group_tests)[0]), group_setup,   \
                           group_teardown)
#define fxt_run_group_tests_name(group_name, group_tests, group_setup, group_teardown)     \
    fxt_run_group_isolated(group_name, group_tests,                                        \
                           sizeof(group_tests) / sizeof((group_tests)[0]), group_setup,   \
                           group_teardown)

#endif /* FXTEST_H */
