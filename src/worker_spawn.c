/*
 * src/worker_spawn.c - the supervisor starts its worker and reaps it, each
 * step in the order the release needs.
 *
 * Invariant: fn(arg) runs only once the handle watches the child (it waits
 * at a gate until attach has succeeded; a failed attach kills and reaps it
 * there, leaving no child, zombie or descriptor), and the zombie, which pins
 * the worker's PID for the release (src/worker.c, leader_pinned), goes only
 * after the release has run.
 *
 * States: src/worker.c; the gate, the reap, why this API and not another:
 * docs/design/worker.md ("Spawn and reap").
 */
#include "futexsync/worker.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal/futex.h"
#include "internal/sleep.h"
#include "internal/worker.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* A child of the calling thread: fork(), or with FX_WORKER_NEWPID the first
 * process of a new PID namespace. clone(CLONE_NEWPID) has no libc wrapper
 * that forks (glibc's clone needs a stack and a function): the raw system
 * call with no stack continues, as fork does, on a copy of this one. */
static pid_t start_child(int flags)
{
    if (!(flags & FX_WORKER_NEWPID))
        return fork();
#if defined(__s390__) || defined(__CRIS__)
    return (pid_t)syscall(SYS_clone, 0L, (long)(CLONE_NEWPID | SIGCHLD), 0L, 0L, 0L);
#else
    return (pid_t)syscall(SYS_clone, (long)(CLONE_NEWPID | SIGCHLD), 0L, 0L, 0L, 0L);
#endif
}

/* The child: waits for the supervisor's byte (attach done), then runs fn. Its
 * copy of the handle keeps the exec pipe's write end, closed by its exec or
 * its exit (the exec event); the read end is the supervisor's. */
static _Noreturn void run_child(fxi_worker *w, const int gate[2], struct fxi_worker_call c,
                                int (*fn)(void *), void *arg)
{
    close(gate[1]);
    char go;
    ssize_t n;
    do
        n = read(gate[0], &go, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1)
        _exit(127); /* the supervisor gave up: fn never runs */
    close(gate[0]);
    if (w->pipe[0] >= 0)
        close(w->pipe[0]);
    w->pipe[0] = -1;
    (void)fxi_worker_call_end(c, 0); /* the caller's cancelability and errno */
    _exit(fn(arg));
}

/* Waits for a child that has been sent SIGKILL, and frees its zombie. */
static void reap_killed(pid_t pid)
{
    siginfo_t si;
    while (waitid(P_PID, (id_t)pid, &si, WEXITED) != 0 && errno == EINTR) {
    }
}

int fx_worker_spawn(fx_worker *h, int flags, int (*fn)(void *), void *arg, pid_t *pid)
{
    fxi_worker *w = fxi_worker_of(h);
    if (w == NULL || fn == NULL || (flags & ~(FX_WORKER_NOEXEC | FX_WORKER_NEWPID)) != 0)
        return EINVAL;
    struct fxi_worker_call c = fxi_worker_call_begin();
    int r = fx_worker_prepare(h, flags);
    if (r != 0)
        return fxi_worker_call_end(c, r);
    int gate[2] = {-1, -1};
    pid_t child = -1;
    if (!fxi_worker_sigchld_ok())
        r = ECHILD; /* its exit would leave no zombie: do not start it */
    else if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, gate) != 0)
        r = errno;
    else if ((child = start_child(flags)) < 0)
        r = errno;
    else if (child == 0)
        run_child(w, gate, c, fn, arg);
    if (r == 0) {
        close(gate[0]);
        gate[0] = -1;
        r = fx_worker_attach(h, child);
        if (r == 0) {
            /* A worker killed at the gate cannot take the byte (EPIPE, no
             * signal): its pidfd reports the exit all the same. */
            (void)send(gate[1], "", 1, MSG_NOSIGNAL);
        } else {
            (void)kill(child, SIGKILL); /* still at the gate: fn never runs */
            reap_killed(child);
        }
    }
    if (gate[0] >= 0)
        close(gate[0]);
    if (gate[1] >= 0)
        close(gate[1]);
    if (r != 0)
        (void)fx_worker_detach(h);
    else if (pid != NULL)
        *pid = child;
    return fxi_worker_call_end(c, r);
}

/* The wait status of a reaped child, as waitpid gives it. */
static int wait_status(const siginfo_t *si)
{
    switch (si->si_code) {
    case CLD_EXITED:
        return (si->si_status & 0xff) << 8;
    case CLD_DUMPED:
        return (si->si_status & 0x7f) | 0x80;
    default: /* CLD_KILLED */
        return si->si_status & 0x7f;
    }
}

/* Reaps the worker if it has exited, its release done (event is the
 * report's): 0 (*status filled), ECHILD (reaped by someone else), or
 * EINPROGRESS (still running: an exec'd worker). */
static int reap_exited(fxi_worker *w, int event, int *status)
{
    if (event != FX_WORKER_EXITED) {
        struct pollfd p = {w->pidfd, POLLIN, 0};
        if (poll(&p, 1, 0) <= 0)
            return EINPROGRESS;
    }
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int e = waitid((idtype_t)P_PIDFD, (id_t)w->pidfd, &si, WEXITED | WNOHANG);
    if (e != 0 && errno == EINVAL) {
        /* No P_PIDFD (before Linux 5.4): by PID, which the unreaped zombie
         * still pins to this worker. */
        memset(&si, 0, sizeof si);
        e = waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG);
    }
    if (e == 0 && si.si_pid == 0) {
        /* Exited, but not reapable yet: a tracer that is not the parent
         * sees the exit first. Look again in a millisecond. */
        struct timespec ms = {0, 1000000};
        (void)nanosleep(&ms, NULL);
        return EINPROGRESS;
    }
    fxi_workers_lock();
    w->reaped = 1; /* no other handle's release counts its TIDs any more */
    fxi_workers_unlock();
    if (e != 0)
        return ECHILD;
    if (status != NULL)
        *status = wait_status(&si);
    return 0;
}

FXI_CANCEL_FRAME int fx_worker_reap(fx_worker *h, const struct timespec *deadline, int *status)
{
    fxi_worker *w = fxi_worker_of(h);
    if (!fxi_worker_attached(w))
        return EINVAL;
    if (w->reaped)
        return ECHILD;
    int saved = errno;
    int r;
    for (;;) {
        /* The release first (once), then the zombie. */
        fx_worker_report rep;
        r = fx_worker_check(h, &rep);
        if (r == 0) {
            struct fxi_worker_call c = fxi_worker_call_begin();
            r = fxi_worker_call_end(c, reap_exited(w, rep.event, status));
            if (r != EINPROGRESS)
                break;
        } else if (r != EINPROGRESS) {
            break;
        }
        if ((r = fxi_worker_sleep(w, deadline)) != 0)
            break;
    }
    errno = saved;
    return r;
}
