/*
 * bench/count.c - what the bench measures besides time: futex system calls,
 * CPU time and sleeps; plus the clock and the calibrated busy work.
 *
 * Futex system calls are counted the same way for every lock, with no special
 * build of anything, by one of two exact methods:
 *
 *   perf     a per-thread perf event on the tracepoint syscalls:sys_enter_futex
 *            (opened by each worker thread for itself, enabled only around its
 *            measured loop). Counting happens in the kernel; the cost is a few
 *            tens of ns per futex call, so the counted runs are also the timed
 *            ones. Needs tracefs and permission (root, CAP_PERFMON or
 *            perf_event_paranoid <= -1).
 *   seccomp  a seccomp filter makes every futex system call of the process
 *            raise SIGSYS, except the one made by the handler's own syscall
 *            instruction (the filter tests the instruction pointer); the
 *            handler counts the call, makes it with the same arguments and
 *            puts the result in the interrupted thread's return register.
 *            Unprivileged and exact, but each futex call costs a signal
 *            delivery (about 1-3 us), so these runs are counted only, never
 *            timed, and they happen in a forked child (a filter cannot be
 *            removed). x86-64 only; not in sanitizer builds (the runtimes make
 *            futex calls of their own inside the handler's reach).
 *
 * Always measured, free: CPU time (user + system) and voluntary context
 * switches (each one is a sleep in the kernel, for these locks a futex wait
 * that blocked) from getrusage(RUSAGE_THREAD / RUSAGE_SELF).
 */
#define _GNU_SOURCE
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FXB_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FXB_SANITIZED 1
#endif
#endif

/* --- time and busy work --------------------------------------------------- */

int64_t fxb_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void fxb_sleep_ns(int64_t ns)
{
    struct timespec t = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &t, &t) == EINTR) {
    }
}

__attribute__((noinline, aligned(64))) void fxb_work(uint64_t iters)
{
    for (uint64_t i = 0; i < iters; i++)
        __asm__ __volatile__("" : "+r"(i));
}

static double fxb_ipn = 1.0; /* busy-work iterations per ns */

void fxb_calibrate(void)
{
    /* The fastest of many short runs: the others were interrupted or ran while
     * the CPU was slowed by other work (SMT siblings, other virtual machines). */
    const uint64_t n = 1000000;
    double best = 0;
    for (int i = 0; i < 40; i++) {
        int64_t t0 = fxb_now_ns();
        fxb_work(n);
        int64_t dt = fxb_now_ns() - t0;
        double ipn = (double)n / (double)(dt > 0 ? dt : 1);
        if (ipn > best)
            best = ipn;
    }
    fxb_ipn = best;
}

double fxb_iters_per_ns(void)
{
    return fxb_ipn;
}

uint64_t fxb_ns_to_iters(double ns)
{
    return ns <= 0 ? 0 : (uint64_t)(ns * fxb_ipn + 0.5);
}

/* --- CPU time and sleeps --------------------------------------------------- */

static void fxb_usage(int who, struct fxb_usage *u)
{
    struct rusage ru;
    getrusage(who, &ru);
    u->cpu_ns = ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
                ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
    u->vcsw = ru.ru_nvcsw;
}

void fxb_usage_thread(struct fxb_usage *u)
{
    fxb_usage(RUSAGE_THREAD, u);
}

void fxb_usage_process(struct fxb_usage *u)
{
    fxb_usage(RUSAGE_SELF, u);
}

/* --- perf tracepoint ---------------------------------------------------------- */

static long fxb_perf_id = -1; /* tracepoint id of syscalls:sys_enter_futex */

static long fxb_perf_tracepoint_id(void)
{
    static const char *paths[] = {
        "/sys/kernel/tracing/events/syscalls/sys_enter_futex/id",
        "/sys/kernel/debug/tracing/events/syscalls/sys_enter_futex/id",
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        FILE *f = fopen(paths[i], "r");
        if (f == NULL)
            continue;
        long id = -1;
        if (fscanf(f, "%ld", &id) != 1)
            id = -1;
        fclose(f);
        if (id >= 0)
            return id;
    }
    return -1;
}

static int fxb_perf_open(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_TRACEPOINT;
    a.size = sizeof a;
    a.config = (uint64_t)fxb_perf_id;
    a.disabled = 1;
    a.sample_period = 0; /* counting only */
    /* this thread only, any CPU */
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* --- seccomp trap ------------------------------------------------------------- */

static __thread uint64_t fxb_tl_futex_calls;
static __thread int fxb_tl_counting;

#if defined(__x86_64__) && !defined(FXB_SANITIZED)
#define FXB_HAVE_SECCOMP 1

/* The handler's own system call: its return address (right after the syscall
 * instruction, which is what seccomp reports as the instruction pointer) is
 * the one place the filter lets futex calls through. */
long fxb_raw_syscall6(long nr, long a, long b, long c, long d, long e, long f);
extern const char fxb_raw_syscall_ret[];
__asm__(".text\n"
        ".globl fxb_raw_syscall6\n"
        ".hidden fxb_raw_syscall6\n"
        ".type fxb_raw_syscall6, @function\n"
        "fxb_raw_syscall6:\n"
        "    movq %rdi, %rax\n"
        "    movq %rsi, %rdi\n"
        "    movq %rdx, %rsi\n"
        "    movq %rcx, %rdx\n"
        "    movq %r8, %r10\n"
        "    movq %r9, %r8\n"
        "    movq 8(%rsp), %r9\n"
        "    syscall\n"
        ".globl fxb_raw_syscall_ret\n"
        ".hidden fxb_raw_syscall_ret\n"
        "fxb_raw_syscall_ret:\n"
        "    ret\n"
        ".size fxb_raw_syscall6, .-fxb_raw_syscall6\n");

static void fxb_sigsys(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    ucontext_t *uc = ctx;
    greg_t *g = uc->uc_mcontext.gregs;
    if (fxb_tl_counting)
        fxb_tl_futex_calls++;
    g[REG_RAX] = fxb_raw_syscall6(si->si_syscall, g[REG_RDI], g[REG_RSI], g[REG_RDX], g[REG_R10],
                                  g[REG_R8], g[REG_R9]);
}

int fxb_seccomp_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fxb_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, NULL) != 0)
        return errno;
    uint64_t ip = (uint64_t)(uintptr_t)fxb_raw_syscall_ret;
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        /* little-endian: the low half of instruction_pointer first */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)ip, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                 offsetof(struct seccomp_data, instruction_pointer) + 4),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(ip >> 32), 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
    };
    struct sock_fprog prog = { (unsigned short)(sizeof f / sizeof f[0]), f };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return errno;
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
        return errno;
    return 0;
}
#else
int fxb_seccomp_install(void)
{
    return ENOTSUP;
}
#endif

/* --- the counters --------------------------------------------------------------- */

const char *fxb_count_name(enum fxb_count_method m)
{
    switch (m) {
    case FXB_COUNT_PERF:
        return "perf";
    case FXB_COUNT_SECCOMP:
        return "seccomp";
    case FXB_COUNT_AUTO:
        return "auto";
    default:
        return "none";
    }
}

enum fxb_count_method fxb_count_probe(enum fxb_count_method wanted, const char **why)
{
    *why = "";
    if (wanted == FXB_COUNT_NONE)
        return FXB_COUNT_NONE;
    if (wanted == FXB_COUNT_PERF || wanted == FXB_COUNT_AUTO) {
        fxb_perf_id = fxb_perf_tracepoint_id();
        int fd = fxb_perf_id >= 0 ? fxb_perf_open() : -1;
        if (fd >= 0) {
            close(fd);
            return FXB_COUNT_PERF;
        }
        *why = fxb_perf_id < 0 ? "perf: no tracefs syscalls:sys_enter_futex"
                               : "perf: perf_event_open refused (permission)";
        if (wanted == FXB_COUNT_PERF)
            return FXB_COUNT_NONE;
    }
#if defined(FXB_HAVE_SECCOMP)
    return FXB_COUNT_SECCOMP;
#else
    *why = "no exact futex counting here (perf refused; seccomp needs x86-64, no sanitizer)";
    return FXB_COUNT_NONE;
#endif
}

int fxb_counter_open(struct fxb_counter *c, enum fxb_count_method m)
{
    c->method = m;
    c->fd = -1;
    if (m == FXB_COUNT_PERF) {
        c->fd = fxb_perf_open();
        if (c->fd < 0)
            return errno;
    }
    return 0;
}

void fxb_counter_start(struct fxb_counter *c)
{
    if (c->method == FXB_COUNT_PERF) {
        ioctl(c->fd, PERF_EVENT_IOC_RESET, 0);
        ioctl(c->fd, PERF_EVENT_IOC_ENABLE, 0);
    } else if (c->method == FXB_COUNT_SECCOMP) {
        fxb_tl_futex_calls = 0;
        fxb_tl_counting = 1;
    }
}

void fxb_counter_stop(struct fxb_counter *c)
{
    if (c->method == FXB_COUNT_PERF)
        ioctl(c->fd, PERF_EVENT_IOC_DISABLE, 0);
    else if (c->method == FXB_COUNT_SECCOMP)
        fxb_tl_counting = 0;
}

uint64_t fxb_counter_read(struct fxb_counter *c)
{
    if (c->method == FXB_COUNT_PERF) {
        uint64_t v = 0;
        if (read(c->fd, &v, sizeof v) != (ssize_t)sizeof v)
            return UINT64_MAX;
        return v;
    }
    if (c->method == FXB_COUNT_SECCOMP)
        return fxb_tl_futex_calls;
    return UINT64_MAX;
}

void fxb_counter_close(struct fxb_counter *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}
