/*
 * src/worker.c - a supervisor releases what its dead (or exec'd) worker held.
 *
 * The handle's fields are private (src/internal/worker.h); its states (the
 * design; keep it true):
 *
 *   magic / event           name      meaning
 *   garbage                 -         never prepared: EINVAL from everything
 *   PREPARED                PREPARED  pipe made (or NOEXEC), no worker yet
 *   ATTACHED, RUNNING       RUNNING   pidfd open, TIDs learnt, in the list
 *   ATTACHED, EXITED|EXECED GONE      bound objects released (once)
 *
 *   transition              by                 what happens
 *   - -> PREPARED           prepare            pipe2(O_CLOEXEC), unless NOEXEC
 *                                              (EBUSY on a linked handle)
 *   PREPARED -> RUNNING     attach(pid)        parent's write end closed,
 *                                              pidfd_open, waitid(WNOWAIT)
 *                                              proves a child, TIDs from
 *                                              /proc if it is this PID
 *                                              namespace's, epoll fd,
 *                                              linked in
 *   RUNNING -> RUNNING      refresh, bind      TIDs / objects added
 *   RUNNING -> RUNNING      check: pipe EOF,   an exit in progress (the pipe
 *                           no memory left     closes before the parent is
 *                           (process_vm_readv  told): pipe closed, the pidfd
 *                           ESRCH)             alone reports the exit
 *   RUNNING -> GONE         check or wait      the pidfd is readable (exit)
 *                           seeing the event   or the pipe reads EOF (exec):
 *                                              release (below), once
 *   any -> -                detach             unlinked, fds closed (in the
 *                                              worker, its copy of PREPARED
 *                                              keeps the pipe's write end)
 *   GONE -> GONE, reaped    reap               (src/worker_spawn.c) after
 *                                              the release, once the process
 *                                              has exited: waitid frees the
 *                                              zombie, and with it the PID
 *   - -> RUNNING            spawn              prepare, fork (or clone) a
 *                                              child held at a gate, attach,
 *                                              open the gate; a failed attach
 *                                              kills, reaps and detaches
 *
 * The release (under the list's lock, so that no handle changes meanwhile):
 * each bound object's owner TID t, as written, is released with the
 * primitive's recover call, a CAS from the exact value that names t, only
 * when t is provably the worker's and no live task can have it; otherwise the
 * object is kept and counted (unsure, ambiguous). Invariant: an object is
 * released only for a TID that no live task can write into its word, under
 * the caller's rules of worker.h (no reap before the release, nothing bound
 * used by the exec'd program or by unsupervised processes of other PID
 * namespaces).
 *
 * The release's four conditions, why, and the limits: docs/design/worker.md.
 */
#include "futexsync/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "futexsync/layout.h"
#include "futexsync/mutex.h"
#include "futexsync/time.h"
#include "internal/deadline.h"
#include "internal/futex.h"
#include "internal/sleep.h"
#include "internal/worker.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* The public handle is storage for the private fields, with room to grow
 * (include/futexsync/worker.h states its size; tests/test_worker.c pins it). */
_Static_assert(sizeof(fx_worker) == 512, "fx_worker is 512 bytes on every target");
_Static_assert(sizeof(fxi_worker) <= sizeof(fx_worker), "the handle's fields fit in fx_worker");
_Static_assert(_Alignof(fxi_worker) <= _Alignof(fx_worker),
               "fx_worker is aligned for the handle's fields");

#define PREPARED FXI_WORKER_PREPARED
#define ATTACHED FXI_WORKER_ATTACHED

enum { KIND_RMUTEX = 1, KIND_ONCE = 2 };

/* The attached handles of this process, for the ambiguity check. */
static fx_mutex workers_mutex = FX_MUTEX_INIT;
static fxi_worker *workers;

void fxi_workers_lock(void)
{
    (void)fx_mutex_lock(&workers_mutex); /* a valid static mutex: only 0 */
}

void fxi_workers_unlock(void)
{
    (void)fx_mutex_unlock(&workers_mutex);
}

static void close_fd(int32_t *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* fd itself if it is above the standard descriptors, else a close-on-exec
 * copy of it at 3 or above (fd is closed): -1 and errno when there is none.
 * Every descriptor the supervisor keeps goes through it, so that one started
 * with 0-2 closed does not get its exec pipe there, which the worker's
 * redirection of its stdout (dup2, freopen) would close: an "exec" while it
 * runs. */
static int high_fd(int fd)
{
    if (fd < 0 || fd > STDERR_FILENO)
        return fd;
    int h = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    int e = errno;
    close(fd);
    errno = e;
    return h;
}

/* Who prepared a handle ------------------------------------------------------ */

/* The worker's fork copy of a prepared handle must not close the exec pipe's
 * write end (an "exec"); the supervisor's must. PIDs cannot tell them apart:
 * a supervisor that is the first process of a PID namespace and a worker it
 * starts as the first of a new one both have PID 1. A page that fork wipes
 * (MADV_WIPEONFORK: every child without CLONE_VM gets it zeroed) holds the
 * first stamp this process gave a handle; stamps come from a counter that
 * fork copies, so a child's own stamps all exceed those of the handles it
 * inherited, and a handle is this process's exactly when its stamp is at
 * least the page's first (a child that never prepared one has a zero page).
 * Where the page cannot be made (Linux before 4.14), or the wipe is
 * accepted and ignored (an emulator), the PID alone decides. Written under
 * the list's lock; read without it by detach, which a fork child may call
 * while its copy of the lock is held by a thread it does not have. */
#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18 /* Linux 4.14 */
#endif
static uint64_t *first_stamp; /* the page; NULL until made */
static uint64_t last_stamp;   /* given by this process or its ancestors */

static uint64_t stamp_new(void)
{
    /* Relaxed: the list's lock orders this with the other writers. Made
     * with the first stamp or never, so that no handle of this process has
     * a stamp below the page's first. */
    uint64_t *page = __atomic_load_n(&first_stamp, __ATOMIC_RELAXED);
    if (page == NULL && last_stamp == 0) {
        size_t size = (size_t)sysconf(_SC_PAGESIZE);
        void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED && madvise(p, size, MADV_WIPEONFORK) == 0) {
            page = p;
            /* Release: the mapping before the pointer, for detach's read. */
            __atomic_store_n(&first_stamp, page, __ATOMIC_RELEASE);
        } else if (p != MAP_FAILED) {
            munmap(p, size);
        }
    }
    uint64_t s = ++last_stamp;
    /* Relaxed: only this process reads its page, in a detach that the
     * caller orders after this prepare (a handle has one user at a time). */
    if (page != NULL && __atomic_load_n(page, __ATOMIC_RELAXED) == 0)
        __atomic_store_n(page, s, __ATOMIC_RELAXED);
    return s;
}

/* Whether this process prepared w (not a fork child holding a copy). */
static bool prepared_here(const fxi_worker *w)
{
    if (w->pid != (int32_t)getpid())
        return false;
    /* Acquire: the page's mapping before its word (paired with the release
     * above); relaxed for the word, as in stamp_new. */
    const uint64_t *page = __atomic_load_n(&first_stamp, __ATOMIC_ACQUIRE);
    if (page == NULL)
        return true;
    uint64_t first = __atomic_load_n(page, __ATOMIC_RELAXED);
    return first != 0 && w->stamp >= first;
}

/* The release ---------------------------------------------------------------- */

/* The owner TID of a bound object, as written in its word; 0 for none. */
static int32_t owner_of(int kind, void *obj)
{
    if (kind == KIND_RMUTEX) {
        pid_t t = fx_rmutex_owner(obj);
        return t > 0 ? (int32_t)t : 0;
    }
    /* Relaxed: a guess; fx_once_recover's CAS from the exact value decides. */
    int32_t s = __atomic_load_n(&((fx_once *)obj)->state, __ATOMIC_RELAXED);
    if (!(s & FX_ONCE_RUNNING))
        return 0;
    return s & FX_ONCE_TID_MASK;
}

static bool namespaced(const fxi_worker *w)
{
    return w->nstid[0] != w->tid[0] || w->ns == 0 || w->ns != fxi_worker_proc_ns("self");
}

/* Whether another live thing of this process may write t into a word. */
static bool ambiguous(const fxi_worker *w, int32_t t)
{
    for (const fxi_worker *o = workers; o != NULL; o = o->next) {
        /* An exec'd worker's process lives on: only its exit (or its reap,
         * after an exit that was not the event) ends its TIDs. */
        if (o == w || o->report.event == FX_WORKER_EXITED || o->reaped)
            continue;
        for (int i = 0; i < o->ntids; i++)
            if (o->nstid[i] == t || o->tid[i] == t)
                return true;
    }
    /* A thread of this very process with that TID (tgkill: 0 when it lives). */
    return syscall(SYS_tgkill, getpid(), (pid_t)t, 0) == 0;
}

/* Whether the child is still there (alive or a zombie): its PID is pinned. */
static bool leader_pinned(const fxi_worker *w)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid((idtype_t)P_PIDFD, (id_t)w->pidfd, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
        return true;
    if (errno != EINVAL)
        return false; /* ECHILD: reaped (or never ours) */
    /* A kernel without P_PIDFD (before 5.4): by PID; the pidfd proved the
     * process had not been reaped when it became readable. */
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
}

/* Whether an rmutex's owner is PROBED: a thread the kernel does not report
 * (its word names it without a robust list). Relaxed: a guess; the recover
 * CAS from the exact value decides. */
static bool probed(void *obj)
{
    return __atomic_load_n(&((fx_rmutex *)obj)->owner, __ATOMIC_RELAXED) & FX_RMUTEX_PROBED;
}

static void release(fxi_worker *w, int event)
{
    fx_worker_report *r = &w->report;
    r->event = event;
    bool pinned = leader_pinned(w);
    bool ns = namespaced(w);
    /* In another namespace a thread's TID there is free for sure only once
     * the namespace is gone: its first process (the worker) exited. */
    bool ns_gone = event == FX_WORKER_EXITED && w->nstid[0] == 1;
    for (int b = 0; b < w->nbound; b++) {
        int32_t t = owner_of(w->kind[b], w->obj[b]);
        int k = -1;
        for (int i = 0; t != 0 && i < w->ntids; i++)
            if (w->nstid[i] == t)
                k = i;
        if (k < 0)
            continue; /* not the worker's */
        if (w->kind[b] == KIND_RMUTEX && !probed(w->obj[b]) &&
            (event == FX_WORKER_EXITED || k == 0))
            continue; /* the kernel marked its words at the death or the exec:
                       * a TID still there is another thread's */
        if (!pinned) {
            r->unsure++;
            continue;
        }
        if (k != 0) {
            bool free_tid = ns ? ns_gone
                               : kill(w->tid[k], 0) != 0 && errno == ESRCH;
            if (!free_tid) {
                r->unsure++;
                continue;
            }
        }
        if (ns && ambiguous(w, t)) {
            r->ambiguous++;
            continue;
        }
        int e = w->kind[b] == KIND_RMUTEX ? fx_rmutex_recover(w->obj[b], t)
                                             : fx_once_recover(w->obj[b], t);
        if (e == 0)
            r->released++;
    }
}

/* Whether the worker, whose exec pipe just read end-of-file, is exiting
 * rather than exec'd: the last of its threads closed the pipe in its exit,
 * after releasing its memory, so the main thread's TID has no address space
 * (process_vm_readv: ESRCH, with no file descriptor); after an exec it has
 * the new program's. 1 exiting, 0 exec'd, -1 cannot tell (EPERM: a worker we
 * may not inspect, or a seccomp filter; ENOSYS). */
static int exiting(const fxi_worker *w)
{
    char byte;
    struct iovec local = {&byte, 1};
    struct iovec remote = {NULL, 1};
    if (process_vm_readv(w->pid, &local, 1, &remote, 1, 0) >= 0 || errno == EFAULT)
        return 0;
    return errno == ESRCH ? 1 : -1;
}

/* Looks for the events: FX_WORKER_RUNNING, _EXITED, _EXECED. Blocks only
 * when the worker's exit or exec cannot be told apart (exiting() == -1), for
 * at most EXIT_GRACE_MS. */
#define EXIT_GRACE_MS 20
static int event_of(fxi_worker *w)
{
    struct pollfd p = {w->pidfd, POLLIN, 0};
    if (poll(&p, 1, 0) > 0)
        return FX_WORKER_EXITED;
    if (w->pipe[0] < 0)
        return FX_WORKER_RUNNING; /* no pipe, or its end-of-file was an exit */
    char buf[64];
    for (;;) {
        ssize_t n = read(w->pipe[0], buf, sizeof buf);
        if (n == 0)
            break;
        if (n < 0 && errno != EINTR)
            return FX_WORKER_RUNNING; /* EAGAIN: nothing more to read */
        /* The worker wrote into the pipe: not an event; drain it. */
    }
    /* End-of-file: every image that held the write end exec'd or exited.
     * The pipe is done with: the fd's epoll set waits for the pidfd alone. */
    (void)epoll_ctl(w->epfd, EPOLL_CTL_DEL, w->pipe[0], NULL);
    close_fd(&w->pipe[0]);
    switch (exiting(w)) {
    case 1:
        return FX_WORKER_RUNNING; /* the pidfd reports the exit in a moment */
    case 0:
        return FX_WORKER_EXECED;
    default: {
        /* One absolute bound: signals (EINTR) do not extend it. */
        struct timespec end = fx_deadline_in(EXIT_GRACE_MS * FX_NSEC_PER_MSEC), now;
        for (;;) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (!fxi_ts_before(&now, &end))
                return FX_WORKER_EXECED;
            struct timespec left = fxi_ts_sub(end, now);
            if (ppoll(&p, 1, &left, NULL) > 0)
                return FX_WORKER_EXITED;
        }
    }
    }
}

/* check's body, errno not saved. */
static int check_locked(fxi_worker *w, fx_worker_report *report)
{
    int r = 0;
    if (w->report.event == FX_WORKER_RUNNING) {
        int ev = event_of(w);
        if (ev != FX_WORKER_RUNNING)
            release(w, ev);
        else
            r = EINPROGRESS;
    }
    if (report != NULL)
        *report = w->report;
    return r;
}

/* The calls ------------------------------------------------------------------ */

int fx_worker_prepare(fx_worker *h, int flags)
{
    fxi_worker *w = fxi_worker_of(h);
    if (w == NULL || (flags & ~(FX_WORKER_NOEXEC | FX_WORKER_NEWPID)) != 0)
        return EINVAL;
    struct fxi_worker_call c = fxi_worker_call_begin();
    /* An attached handle is linked into the list: wiping it would cut the
     * list (the handles after it would escape the ambiguity check). */
    fxi_workers_lock();
    bool linked = false;
    for (const fxi_worker *o = workers; o != NULL && !linked; o = o->next)
        linked = o == w;
    uint64_t stamp = linked ? 0 : stamp_new();
    fxi_workers_unlock();
    if (linked)
        return fxi_worker_call_end(c, EBUSY);
    memset(w, 0, sizeof *w);
    w->flags = flags;
    w->pidfd = -1;
    w->epfd = -1;
    w->pipe[0] = w->pipe[1] = -1;
    w->pid = (int32_t)getpid(); /* the supervisor, until attach */
    w->stamp = stamp;
    int r = 0;
    if (!(flags & FX_WORKER_NOEXEC)) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0) {
            r = errno;
        } else if ((p[0] = high_fd(p[0])) < 0 || (p[1] = high_fd(p[1])) < 0) {
            r = errno;
            close(p[0] < 0 ? p[1] : p[0]); /* the one still open */
        } else {
            w->pipe[0] = p[0];
            w->pipe[1] = p[1];
            /* Only the read end: check and wait never block on it. */
            (void)fcntl(p[0], F_SETFL, O_NONBLOCK);
        }
    }
    if (r == 0)
        w->magic = PREPARED;
    return fxi_worker_call_end(c, r);
}

int fx_worker_attach(fx_worker *h, pid_t pid)
{
    fxi_worker *w = fxi_worker_of(h);
    if (w == NULL || w->magic != PREPARED || pid <= 0 || pid > FX_RMUTEX_TID_MAX)
        return EINVAL;
    struct fxi_worker_call c = fxi_worker_call_begin();
    int r = 0;
    int pidfd = -1, epfd = -1;
    if (!fxi_worker_sigchld_ok()) {
        r = ECHILD;
        goto out;
    }
    pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) {
        r = errno == EINVAL ? ESRCH : errno;
        goto out;
    }
    if ((pidfd = high_fd(pidfd)) < 0) {
        r = errno;
        goto out;
    }
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si, WEXITED | WNOHANG | WNOWAIT) != 0 &&
        (errno != EINVAL ||
         waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)) {
        r = ECHILD;
        goto out;
    }
    epfd = high_fd(epoll_create1(EPOLL_CLOEXEC));
    if (epfd < 0) {
        r = errno;
        goto out;
    }
    struct epoll_event ev = {.events = EPOLLIN};
    ev.data.fd = pidfd;
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, pidfd, &ev) != 0 ||
        (w->pipe[0] >= 0 &&
         (ev.data.fd = w->pipe[0], epoll_ctl(epfd, EPOLL_CTL_ADD, w->pipe[0], &ev) != 0))) {
        r = errno;
        goto out;
    }
    /* The main thread's TID as the worker writes it, where /proc shows it. */
    bool proc = fxi_worker_proc_ours();
    int32_t nstid = proc ? fxi_worker_proc_nstid(pid, pid) : 0;
    if (nstid != 0 && (w->flags & FX_WORKER_NEWPID) && nstid != 1) {
        r = EINVAL;
        goto out;
    }
    if (nstid == 0)
        nstid = (w->flags & FX_WORKER_NEWPID) ? 1 : (int32_t)pid;
    char who[16];
    snprintf(who, sizeof who, "%d", (int)pid);
    /* Done: nothing fails from here. */
    close_fd(&w->pipe[1]);
    w->pid = (int32_t)pid;
    w->pidfd = pidfd;
    w->epfd = epfd;
    w->tid[0] = (int32_t)pid;
    w->nstid[0] = nstid;
    w->ntids = 1;
    w->ns = proc ? fxi_worker_proc_ns(who) : 0;
    fxi_workers_lock();
    if (proc)
        (void)fxi_worker_learn_tids(w); /* the other threads, if /proc shows them */
    w->magic = ATTACHED;
    w->next = workers;
    workers = w;
    fxi_workers_unlock();
    pidfd = epfd = -1;
out:
    if (pidfd >= 0)
        close(pidfd);
    if (epfd >= 0)
        close(epfd);
    return fxi_worker_call_end(c, r);
}

int fx_worker_refresh(fx_worker *h)
{
    fxi_worker *w = fxi_worker_of(h);
    if (!fxi_worker_attached(w))
        return EINVAL;
    struct fxi_worker_call c = fxi_worker_call_begin();
    fxi_workers_lock();
    int r = ESRCH;
    if (w->report.event == FX_WORKER_RUNNING)
        r = fxi_worker_proc_ours() ? fxi_worker_learn_tids(w) : ENOENT; /* another namespace's /proc: blind */
    fxi_workers_unlock();
    return fxi_worker_call_end(c, r);
}

static int bind_obj(fxi_worker *w, int kind, void *obj)
{
    if (!fxi_worker_attached(w) || fxi_bad_slot(obj))
        return EINVAL;
    int r = 0;
    fxi_workers_lock();
    if (w->report.event != FX_WORKER_RUNNING) {
        r = ESRCH;
        goto out;
    }
    for (int i = 0; i < w->nbound; i++)
        if (w->obj[i] == obj && w->kind[i] == kind)
            goto out;
    if (w->nbound == FX_WORKER_BIND_MAX) {
        r = ENOSPC;
        goto out;
    }
    w->kind[w->nbound] = kind;
    w->obj[w->nbound] = obj;
    w->nbound++;
out:
    fxi_workers_unlock();
    return r;
}

int fx_worker_bind_rmutex(fx_worker *h, fx_rmutex *m)
{
    return bind_obj(fxi_worker_of(h), KIND_RMUTEX, m);
}

int fx_worker_bind_once(fx_worker *h, fx_once *o)
{
    return bind_obj(fxi_worker_of(h), KIND_ONCE, o);
}

int fx_worker_fd(const fx_worker *h)
{
    const fxi_worker *w = fxi_worker_of_const(h);
    return fxi_worker_attached(w) ? w->epfd : -EINVAL;
}

int fx_worker_check(fx_worker *h, fx_worker_report *report)
{
    fxi_worker *w = fxi_worker_of(h);
    if (!fxi_worker_attached(w))
        return EINVAL;
    struct fxi_worker_call c = fxi_worker_call_begin();
    fxi_workers_lock();
    int r = check_locked(w, report);
    fxi_workers_unlock();
    return fxi_worker_call_end(c, r);
}

bool fxi_worker_sigchld_ok(void)
{
    struct sigaction sa;
    return sigaction(SIGCHLD, NULL, &sa) != 0 ||
           (sa.sa_handler != SIG_IGN && !(sa.sa_flags & SA_NOCLDWAIT));
}

FXI_CANCEL_FRAME int fxi_worker_sleep(fxi_worker *w, const struct timespec *deadline)
{
    struct timespec left, *tmo = NULL;
    if (deadline != NULL) {
        if (fxi_deadline_check(deadline) != 0)
            return EINVAL;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!fxi_ts_before(&now, deadline))
            return ETIMEDOUT;
        /* Saturating: a deadline near the largest time_t has more
         * nanoseconds than an int64_t holds (ppoll takes any tv_sec). */
        left = fxi_ts_sub(*deadline, now);
        tmo = &left;
    }
    /* Both descriptors: readable at exit, or at the exec pipe's EOF. A
     * signal (EINTR) or a byte the worker wrote ends the poll early: the
     * caller looks again, with the same deadline. The one cancellation
     * point of the calls (with the caller's cancelability): nothing is held
     * here, the handle stays attached. */
    struct pollfd p[2] = {{w->pidfd, POLLIN, 0}, {w->pipe[0], POLLIN, 0}};
    (void)ppoll(p, w->pipe[0] >= 0 ? 2 : 1, tmo, NULL);
    return 0;
}

FXI_CANCEL_FRAME int fx_worker_wait(fx_worker *h, const struct timespec *deadline,
                                   fx_worker_report *report)
{
    fxi_worker *w = fxi_worker_of(h);
    if (!fxi_worker_attached(w))
        return EINVAL;
    int saved = errno;
    int r;
    while ((r = fx_worker_check(h, report)) == EINPROGRESS &&
           (r = fxi_worker_sleep(w, deadline)) == 0) {
    }
    errno = saved;
    return r;
}

int fx_worker_detach(fx_worker *h)
{
    fxi_worker *w = fxi_worker_of(h);
    if (w == NULL || (w->magic != PREPARED && w->magic != ATTACHED))
        return EINVAL;
    struct fxi_worker_call c = fxi_worker_call_begin();
    if (w->magic == ATTACHED) {
        fxi_workers_lock();
        for (fxi_worker **p = &workers; *p != NULL; p = &(*p)->next) {
            if (*p == w) {
                *p = w->next;
                break;
            }
        }
        fxi_workers_unlock();
    }
    close_fd(&w->pipe[0]);
    /* The worker's copy of the prepared handle keeps the write end: closing
     * it would look like an exec. It closes with the worker's exec or exit. */
    if (w->magic == ATTACHED || prepared_here(w))
        close_fd(&w->pipe[1]);
    close_fd(&w->pidfd);
    close_fd(&w->epfd);
    w->nbound = 0;
    w->magic = 0;
    return fxi_worker_call_end(c, 0);
}
