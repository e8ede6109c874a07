/*
 * tests/seccomp/seccomp_run.c - runs a test program under a seccomp filter
 * that allows the system calls docs/reliability.md lists for fx_rmutex and
 * fx_once and for the other primitives (the tests coordinate with fx_counter
 * and fx_futex_wait), and those of the test harness, listed below. At any
 * other call the program's process group is killed and the call is named.
 *
 *     seccomp_run DOC PROGRAM [ARG...]
 *
 * Exit status: the program's; 1 when a call on neither list was made or the
 * lists are wrong; SC_SKIP (77) where no filter can be installed (qemu-user
 * implements none) or this architecture has no lists.
 *
 * What this proves, and what it does not. A filter sees a call's number and
 * arguments, not which code made it: the library enters the kernel through
 * libc (syscall(), madvise(), getpid()) as the harness does, so the two
 * cannot be told apart by instruction pointer either. The cmocka programs
 * (test_rmutex, test_once, test_owner_death) need far more than the library
 * (fork, threads, waits, their own nested filters, output), so they run under
 * the union of the lists: every path of fx_rmutex and fx_once those tests
 * reach (owner death, PROBED owners, refused probes, cancellation) makes no
 * call outside it. The harness's list is written here, apart, each entry
 * with its reason, so that it is visibly not the library's. A library call
 * that only the harness's list allows (clone, say) is not caught by this
 * run: library_only.c closes that gap, running the library's paths in
 * processes whose filter allows exactly the document's list for fx_rmutex
 * and fx_once, the harness's setup done before the filter. Both read the
 * library's lists from the document, the one place they are written; an
 * unknown or duplicated name there fails the run.
 *
 * A refused call is reported by a seccomp listener (SECCOMP_RET_USER_NOTIF,
 * Linux 5.0): the launcher, which is not filtered, names it and kills the
 * test's process group, and the program's, at once (a forked child killed alone would leave the
 * test waiting for it until its timeout). Where the kernel has no listener,
 * the call kills the process that made it (SECCOMP_RET_KILL_PROCESS).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sc_list.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* alike on every architecture (Linux 5.3) */
#endif

#ifdef SC_AUDIT_ARCH
/* What the test harness needs (cmocka, tests/fxtest.c, the tests' own
 * code), whether or not the library needs it as well. Per architecture, the
 * names it lacks are skipped (sc_list.h). */
static const char *const harness[] = {
    /* This launcher's exec of the program, and the dynamic loader and libc
     * starting it: the libraries opened, read, mapped and protected, TLS,
     * the main thread's robust list and rseq area, the stack limit, the
     * stack protector's random bytes; a glibc older than 2.33 stats with
     * fstat and stat, a 32-bit one with statx. */
    "execve", "access", "faccessat", "arch_prctl", "brk", "mmap", "mprotect", "munmap",
    "openat", "read", "pread64", "close", "fstat", "newfstatat", "stat", "statx",
    "set_tid_address", "set_robust_list", "rseq", "prlimit64", "getrandom",
    /* cmocka's report (stdio to a pipe or terminal: write, its isatty's
     * ioctl) and the signal handlers it installs around each test. */
    "write", "ioctl", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn",
    /* Forked children and threads: their creation (fork is clone; glibc's
     * pthread_create is clone3, or clone before Linux 5.3), their ends (a
     * thread's stack given back with madvise), reaping, pthread_join and
     * libc's own locks. Shared memory is mmap'd (above); a waiter's state is
     * read from /proc/<pid>/task/<tid>/stat (openat, read, close above). */
    "clone", "clone3", "exit", "exit_group", "madvise", "wait4", "waitid", "futex",
    /* Signals the tests send: SIGKILL to owners, storms of SIGUSR1 to a
     * thread, raise(). */
    "kill", "tgkill", "getpid", "gettid",
    /* The tests' own filters (a refused process_vm_readv, the no-futex
     * proof) and PR_SET_PDEATHSIG. */
    "prctl", "seccomp",
    /* The harness's waits: a bounded sleep while it polls a child's state,
     * pause(), yields, and their restart after a stop. */
    "clock_nanosleep", "pause", "sched_yield", "restart_syscall",
    /* fxtest's own liveness probe (whether zombies look dead here). */
    "process_vm_readv",
    /* test_owner_death: owners and waiters in new PID namespaces. */
    "unshare",
    /* fxtest.c's isolated runner: each test in a child process whose
     * process group it kills whole, and which dies with the runner
     * (PR_SET_PDEATHSIG, then a check that the runner has not died first);
     * the runner waits for the child's SIGCHLD with a time limit. */
    "setpgid", "getppid", "rt_sigtimedwait", "rt_sigtimedwait_time64",
};

/* The child: its own process group (so that the whole test can be killed),
 * the filter, then the program. `report` gets the listener's number (0
 * without one), or -errno when the filter was refused. The descriptor table is shared with
 * the launcher until the exec, which gives the program its own copy without
 * the (close-on-exec) listener and leaves the launcher's holding it. */
static int child(const struct sc_list *lib, const struct sc_list *harn, bool notify, int report,
                 char **argv)
{
    (void)setpgid(0, 0);
    int listener = -1;
#ifdef SECCOMP_IOCTL_NOTIF_RECV
    int e = sc_install(lib, harn, notify ? SECCOMP_RET_USER_NOTIF : SECCOMP_RET_KILL_PROCESS,
                       notify ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &listener);
#else
    int e = notify ? EINVAL : sc_install(lib, harn, SECCOMP_RET_KILL_PROCESS, 0, &listener);
#endif
    int msg = e != 0 ? -e : notify ? listener : 0;
    if (write(report, &msg, sizeof msg) != (ssize_t)sizeof msg || e != 0)
        _exit(125);
    execv(argv[0], argv);
    fprintf(stderr, "seccomp_run: %s: %s\n", argv[0], strerror(errno));
    _exit(126);
}

/* Waits for the program's end. With a listener, the first call on neither
 * list is named, and the program's process group is killed at once: a
 * forked child of the test killed alone would leave its parent waiting for
 * it until the test's timeout. Returns the wait status; *bad when a call was
 * refused. */
static int supervise(pid_t pid, int listener, const char *prog, bool *bad)
{
    (void)prog;
    int pidfd = listener < 0 ? -1 : (int)syscall(SYS_pidfd_open, pid, 0);
    while (pidfd >= 0) {
        struct pollfd p[2] = {{listener, POLLIN, 0}, {pidfd, POLLIN, 0}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
#ifdef SECCOMP_IOCTL_NOTIF_RECV
        if (p[0].revents & POLLIN) {
            struct seccomp_notif n;
            memset(&n, 0, sizeof n);
            if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &n) == 0) {
                fprintf(stderr,
                        "seccomp_run: %s (pid %d) made system call %d (%s), on neither the "
                        "library's list nor the harness's: killed\n",
                        prog, (int)n.pid, n.data.nr, sc_name(n.data.nr));
                *bad = true;
                /* The test's process group (fxtest.c runs each test in a
                 * group of its own), then the runner's. */
                pid_t group = getpgid((pid_t)n.pid);
                if (group > 0)
                    kill(-group, SIGKILL);
                kill(-pid, SIGKILL);
            }
        }
#endif
        if (p[1].revents & POLLIN)
            break;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            perror("waitpid");
            return -1;
        }
    }
    /* Whatever of the test's process group outlived it. */
    kill(-pid, SIGKILL);
    if (pidfd >= 0)
        close(pidfd);
    return st;
}

#endif /* SC_AUDIT_ARCH */

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: seccomp_run DOC PROGRAM [ARG...]\n");
        return 2;
    }
    if (sc_skip_here())
        return SC_SKIP;
#ifndef SC_AUDIT_ARCH
    (void)argv;
    return SC_SKIP; /* sc_skip_here said why */
#else
    static struct sc_list lib, others, all, harn;
    /* Every name of the section must be known (a typo anywhere fails); the
     * filter takes fx_rmutex's and fx_once's, and the other primitives'. */
    if (sc_doc_list(argv[1], NULL, &all) != 0 ||
        sc_doc_list(argv[1], SC_DOC_RMUTEX_ONCE, &lib) != 0 ||
        sc_doc_list(argv[1], SC_DOC_OTHERS, &others) != 0)
        return 1;
    for (int i = 0; i < others.n; i++)
        if (sc_add(&lib, others.name[i]) != 0)
            return 1;
    for (size_t i = 0; i < sizeof harness / sizeof harness[0]; i++)
        if (sc_add(&harn, harness[i]) != 0)
            return 1;
    if (sc_skip_without_filter())
        return SC_SKIP;
    int st = -1, attempt;
    bool bad = false;
    /* First with a listener (Linux 5.0; its end is seen through a pidfd,
     * Linux 5.3), which names a refused call; where the kernel has neither,
     * a refused call kills the process that made it. */
    int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (self >= 0)
        close(self);
    for (attempt = self >= 0 ? 0 : 1; attempt < 2; attempt++) {
        bool notify = attempt == 0;
        int report[2];
        if (pipe2(report, O_CLOEXEC) != 0) {
            perror("pipe2");
            return 1;
        }
        fflush(NULL);
        /* fork(), but with the descriptor table shared until the exec. */
        pid_t pid = (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
        if (pid < 0) {
            perror("clone");
            return 1;
        }
        if (pid == 0)
            _exit(child(&lib, &harn, notify, report[1], argv + 2));
        int msg = 0;
        ssize_t n = read(report[0], &msg, sizeof msg);
        close(report[0]);
        close(report[1]);
        if (n == (ssize_t)sizeof msg && msg >= 0) {
            st = supervise(pid, notify ? msg : -1, argv[2], &bad);
            if (notify)
                close(msg);
            break;
        }
        int cst;
        (void)waitpid(pid, &cst, 0);
        if (!notify || (msg != -EINVAL && msg != -EBUSY)) {
            fprintf(stderr, "seccomp_run: the filter was refused: %s\n",
                    n == (ssize_t)sizeof msg ? strerror(-msg) : "no answer");
            return 1;
        }
    }
    if (bad)
        return 1;
    if (st == -1)
        return 1;
    if (WIFSIGNALED(st)) {
        if (WTERMSIG(st) == SIGSYS)
            fprintf(stderr,
                    "seccomp_run: %s made a system call on neither list (the library's %d, "
                    "the harness's %d): `strace -f` it to name the call\n",
                    argv[2], lib.n, harn.n);
        else
            fprintf(stderr, "seccomp_run: %s was killed by signal %d\n", argv[2], WTERMSIG(st));
        return 1;
    }
    printf("seccomp_run: %s ran under %d + %d allowed calls (%s%s): exit status %d\n", argv[2],
           lib.n, harn.n, SC_ARCH_NAME, attempt == 0 ? "" : ", no listener", WEXITSTATUS(st));
    return WEXITSTATUS(st);
#endif
}
