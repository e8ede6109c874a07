/*
 * src/worker.c - a supervisor releases what its dead (or exec'd) worker held.
 *
 * The handle's states (the design; keep it true)
 *
 *   fx_magic / event        name      meaning
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
 *
 * The release (under the list's lock, so that no handle changes meanwhile):
 * for each bound object, its owner TID t (as written: fx_rmutex_owner, the
 * fx_once word's TID bits) is released with the primitive's recover call,
 * a CAS from the exact value that names t, only when all of these hold:
 *   - t is one of the worker's TIDs as it writes them;
 *   - the main thread's TID is pinned: waitid(P_PIDFD, WNOWAIT) still finds
 *     the child (alive, or a zombie nobody has reaped);
 *   - t is the main thread's, or no task has t (kill(t, 0) == ESRCH; in
 *     another PID namespace, only once the namespace's first process, the
 *     worker, has exited);
 *   - the worker is in this process's PID namespace, or no other attached
 *     handle whose worker has not exited has t among its TIDs and no thread
 *     of this process has it.
 * Otherwise the object is kept and counted (unsure, ambiguous). Invariant: an
 * object is released only for a TID that no live task can write into its
 * word, under the caller's rules of worker.h (no reap before the release,
 * nothing bound used by the exec'd program or by unsupervised processes of
 * other PID namespaces).
 *
 * Why, and the limits: docs/design/worker.md.
 */
#include "futexsync/worker.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "futexsync/mutex.h"
#include "futexsync/time.h"
#include "internal/deadline.h"
#include "internal/futex.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

#define PREPARED 0x66787770 /* "fxwp" */
#define ATTACHED 0x66787761 /* "fxwa" */

enum { KIND_RMUTEX = 1, KIND_ONCE = 2 };

/* The attached handles of this process, for the ambiguity check. */
static fx_mutex workers_mutex = FX_MUTEX_INIT;
static fx_worker *workers;

static void workers_lock(void)
{
    (void)fx_mutex_lock(&workers_mutex); /* a valid static mutex: only 0 */
}

static void workers_unlock(void)
{
    (void)fx_mutex_unlock(&workers_mutex);
}

static bool attached(const fx_worker *w)
{
    return w != NULL && w->fx_magic == ATTACHED;
}

static void close_fd(int32_t *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* What a call saves on entry and gives back on return: errno, and the
 * caller's cancelability. Every call that takes the list's lock or makes a
 * descriptor runs with cancellation disabled: a cancellation point acting
 * inside (poll, read, open, waitid, close) would end the thread holding the
 * lock, every later call of the process blocking for good, or leak a
 * descriptor. A pending cancellation acts at the caller's next cancellation
 * point; fx_worker_wait's is its own sleep, where it holds nothing. */
struct call {
    int saved_errno;
    int cancel_state;
};

static struct call call_begin(void)
{
    struct call c = {errno, PTHREAD_CANCEL_ENABLE};
    (void)pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &c.cancel_state);
    return c;
}

static int call_end(struct call c, int r)
{
    int ignored;
    (void)pthread_setcancelstate(c.cancel_state, &ignored);
    errno = c.saved_errno;
    return r;
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
static bool prepared_here(const fx_worker *w)
{
    if (w->fx_pid != (int32_t)getpid())
        return false;
    /* Acquire: the page's mapping before its word (paired with the release
     * above); relaxed for the word, as in stamp_new. */
    const uint64_t *page = __atomic_load_n(&first_stamp, __ATOMIC_ACQUIRE);
    if (page == NULL)
        return true;
    uint64_t first = __atomic_load_n(page, __ATOMIC_RELAXED);
    return first != 0 && w->fx_stamp >= first;
}

/* /proc ---------------------------------------------------------------------- */

/* The NSpid line of a /proc status file: the task's PID (or TID) in each
 * PID namespace from that /proc's down to the task's own. Returns how many
 * fields it has (0 when it cannot be read), the first in *first and the last
 * in *last. */
static int proc_nspid(const char *path, long *first, long *last)
{
    char buf[2048];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *p = strstr(buf, "\nNSpid:");
    if (p == NULL)
        return 0;
    p += strlen("\nNSpid:");
    int fields = 0;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p < '0' || *p > '9')
            break;
        char *end;
        *last = strtol(p, &end, 10);
        if (fields++ == 0)
            *first = *last;
        p = end;
    }
    return fields;
}

/* Whether /proc is of the caller's PID namespace, so that /proc/<pid> is
 * the process this one calls pid. A /proc of an ancestor namespace (a
 * supervisor started by unshare -pf without --mount-proc) shows this
 * process with more than one NSpid field, one of a namespace it is not in
 * has no /proc/self: only exactly one field, equal to getpid(), is ours. */
static bool proc_ours(void)
{
    long first = 0, last = 0;
    return proc_nspid("/proc/self/status", &first, &last) == 1 && first == (long)getpid();
}

/* The last field of the NSpid line of /proc/<pid>/task/<tid>/status: the
 * TID in the thread's own PID namespace. 0 when it cannot be read. */
static int32_t proc_nstid(pid_t pid, pid_t tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid, (int)tid);
    long first = 0, last = 0;
    if (proc_nspid(path, &first, &last) == 0)
        return 0;
    return last > 0 && last <= FX_RMUTEX_TID_MAX ? (int32_t)last : 0;
}

/* The inode of a PID namespace ("self" or a PID); 0 when unknown. */
static uint64_t proc_ns(const char *who)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%s/ns/pid", who);
    return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static int find_tid(const fx_worker *w, pid_t tid)
{
    for (int i = 0; i < w->fx_ntids; i++)
        if (w->fx_tid[i] == tid)
            return i;
    return -1;
}

/* Adds the threads /proc/<pid>/task lists; 0, ENOENT, ENOSPC. Called with
 * the list's lock held (the release of another handle reads the TIDs). */
static int learn_tids(fx_worker *w)
{
    char path[48];
    snprintf(path, sizeof path, "/proc/%d/task", (int)w->fx_pid);
    DIR *d = opendir(path);
    if (d == NULL)
        return ENOENT;
    int r = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long t = strtol(e->d_name, NULL, 10);
        if (t <= 0 || t > FX_RMUTEX_TID_MAX || find_tid(w, (pid_t)t) >= 0)
            continue;
        int32_t ns = proc_nstid(w->fx_pid, (pid_t)t);
        if (ns == 0)
            ns = (w->fx_nstid[0] == w->fx_pid) ? (int32_t)t : 0; /* same namespace */
        if (ns == 0)
            continue; /* its TID there is unknown: not covered */
        if (w->fx_ntids == FX_WORKER_TIDS_MAX) {
            r = ENOSPC;
            break;
        }
        w->fx_tid[w->fx_ntids] = (int32_t)t;
        w->fx_nstid[w->fx_ntids] = ns;
        w->fx_ntids++;
    }
    closedir(d);
    return r;
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

static bool namespaced(const fx_worker *w)
{
    return w->fx_nstid[0] != w->fx_tid[0] || w->fx_ns == 0 || w->fx_ns != proc_ns("self");
}

/* Whether another live thing of this process may write t into a word. */
static bool ambiguous(const fx_worker *w, int32_t t)
{
    for (const fx_worker *o = workers; o != NULL; o = o->fx_next) {
        /* An exec'd worker's process lives on: only an exit ends its TIDs. */
        if (o == w || o->fx_report.event == FX_WORKER_EXITED)
            continue;
        for (int i = 0; i < o->fx_ntids; i++)
            if (o->fx_nstid[i] == t || o->fx_tid[i] == t)
                return true;
    }
    /* A thread of this very process with that TID (tgkill: 0 when it lives). */
    return syscall(SYS_tgkill, getpid(), (pid_t)t, 0) == 0;
}

/* Whether the child is still there (alive or a zombie): its PID is pinned. */
static bool leader_pinned(const fx_worker *w)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid((idtype_t)P_PIDFD, (id_t)w->fx_pidfd, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
        return true;
    if (errno != EINVAL)
        return false; /* ECHILD: reaped (or never ours) */
    /* A kernel without P_PIDFD (before 5.4): by PID; the pidfd proved the
     * process had not been reaped when it became readable. */
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)w->fx_pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
}

/* Whether an rmutex's owner is PROBED: a thread the kernel does not report
 * (its word names it without a robust list). Relaxed: a guess; the recover
 * CAS from the exact value decides. */
static bool probed(void *obj)
{
    return __atomic_load_n(&((fx_rmutex *)obj)->owner, __ATOMIC_RELAXED) & FX_RMUTEX_PROBED;
}

static void release(fx_worker *w, int event)
{
    fx_worker_report *r = &w->fx_report;
    r->event = event;
    bool pinned = leader_pinned(w);
    bool ns = namespaced(w);
    /* In another namespace a thread's TID there is free for sure only once
     * the namespace is gone: its first process (the worker) exited. */
    bool ns_gone = event == FX_WORKER_EXITED && w->fx_nstid[0] == 1;
    for (int b = 0; b < w->fx_nbound; b++) {
        int32_t t = owner_of(w->fx_kind[b], w->fx_obj[b]);
        int k = -1;
        for (int i = 0; t != 0 && i < w->fx_ntids; i++)
            if (w->fx_nstid[i] == t)
                k = i;
        if (k < 0)
            continue; /* not the worker's */
        if (w->fx_kind[b] == KIND_RMUTEX && !probed(w->fx_obj[b]) &&
            (event == FX_WORKER_EXITED || k == 0))
            continue; /* the kernel marked its words at the death or the exec:
                       * a TID still there is another thread's */
        if (!pinned) {
            r->unsure++;
            continue;
        }
        if (k != 0) {
            bool free_tid = ns ? ns_gone
                               : kill(w->fx_tid[k], 0) != 0 && errno == ESRCH;
            if (!free_tid) {
                r->unsure++;
                continue;
            }
        }
        if (ns && ambiguous(w, t)) {
            r->ambiguous++;
            continue;
        }
        int e = w->fx_kind[b] == KIND_RMUTEX ? fx_rmutex_recover(w->fx_obj[b], t)
                                             : fx_once_recover(w->fx_obj[b], t);
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
static int exiting(const fx_worker *w)
{
    char byte;
    struct iovec local = {&byte, 1};
    struct iovec remote = {NULL, 1};
    if (process_vm_readv(w->fx_pid, &local, 1, &remote, 1, 0) >= 0 || errno == EFAULT)
        return 0;
    return errno == ESRCH ? 1 : -1;
}

/* Looks for the events: FX_WORKER_RUNNING, _EXITED, _EXECED. Blocks only
 * when the worker's exit or exec cannot be told apart (exiting() == -1), for
 * at most EXIT_GRACE_MS. */
#define EXIT_GRACE_MS 20
static int event_of(fx_worker *w)
{
    struct pollfd p = {w->fx_pidfd, POLLIN, 0};
    if (poll(&p, 1, 0) > 0)
        return FX_WORKER_EXITED;
    if (w->fx_pipe[0] < 0)
        return FX_WORKER_RUNNING; /* no pipe, or its end-of-file was an exit */
    char buf[64];
    for (;;) {
        ssize_t n = read(w->fx_pipe[0], buf, sizeof buf);
        if (n == 0)
            break;
        if (n < 0 && errno != EINTR)
            return FX_WORKER_RUNNING; /* EAGAIN: nothing more to read */
        /* The worker wrote into the pipe: not an event; drain it. */
    }
    /* End-of-file: every image that held the write end exec'd or exited.
     * The pipe is done with: the fd's epoll set waits for the pidfd alone. */
    (void)epoll_ctl(w->fx_epfd, EPOLL_CTL_DEL, w->fx_pipe[0], NULL);
    close_fd(&w->fx_pipe[0]);
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
static int check_locked(fx_worker *w, fx_worker_report *report)
{
    int r = 0;
    if (w->fx_report.event == FX_WORKER_RUNNING) {
        int ev = event_of(w);
        if (ev != FX_WORKER_RUNNING)
            release(w, ev);
        else
            r = EINPROGRESS;
    }
    if (report != NULL)
        *report = w->fx_report;
    return r;
}

/* The calls ------------------------------------------------------------------ */

int fx_worker_prepare(fx_worker *w, int flags)
{
    if (w == NULL || (flags & ~(FX_WORKER_NOEXEC | FX_WORKER_NEWPID)) != 0)
        return EINVAL;
    struct call c = call_begin();
    /* An attached handle is linked into the list: wiping it would cut the
     * list (the handles after it would escape the ambiguity check). */
    workers_lock();
    bool linked = false;
    for (const fx_worker *o = workers; o != NULL && !linked; o = o->fx_next)
        linked = o == w;
    uint64_t stamp = linked ? 0 : stamp_new();
    workers_unlock();
    if (linked)
        return call_end(c, EBUSY);
    memset(w, 0, sizeof *w);
    w->fx_flags = flags;
    w->fx_pidfd = -1;
    w->fx_epfd = -1;
    w->fx_pipe[0] = w->fx_pipe[1] = -1;
    w->fx_pid = (int32_t)getpid(); /* the supervisor, until attach */
    w->fx_stamp = stamp;
    int r = 0;
    if (!(flags & FX_WORKER_NOEXEC)) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0) {
            r = errno;
        } else if ((p[0] = high_fd(p[0])) < 0 || (p[1] = high_fd(p[1])) < 0) {
            r = errno;
            close(p[0] < 0 ? p[1] : p[0]); /* the one still open */
        } else {
            w->fx_pipe[0] = p[0];
            w->fx_pipe[1] = p[1];
            /* Only the read end: check and wait never block on it. */
            (void)fcntl(p[0], F_SETFL, O_NONBLOCK);
        }
    }
    if (r == 0)
        w->fx_magic = PREPARED;
    return call_end(c, r);
}

int fx_worker_attach(fx_worker *w, pid_t pid)
{
    if (w == NULL || w->fx_magic != PREPARED || pid <= 0 || pid > FX_RMUTEX_TID_MAX)
        return EINVAL;
    struct call c = call_begin();
    int r = 0;
    struct sigaction sa;
    int pidfd = -1, epfd = -1;
    if (sigaction(SIGCHLD, NULL, &sa) == 0 &&
        (sa.sa_handler == SIG_IGN || (sa.sa_flags & SA_NOCLDWAIT))) {
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
        (w->fx_pipe[0] >= 0 &&
         (ev.data.fd = w->fx_pipe[0], epoll_ctl(epfd, EPOLL_CTL_ADD, w->fx_pipe[0], &ev) != 0))) {
        r = errno;
        goto out;
    }
    /* The main thread's TID as the worker writes it, where /proc shows it. */
    bool proc = proc_ours();
    int32_t nstid = proc ? proc_nstid(pid, pid) : 0;
    if (nstid != 0 && (w->fx_flags & FX_WORKER_NEWPID) && nstid != 1) {
        r = EINVAL;
        goto out;
    }
    if (nstid == 0)
        nstid = (w->fx_flags & FX_WORKER_NEWPID) ? 1 : (int32_t)pid;
    char who[16];
    snprintf(who, sizeof who, "%d", (int)pid);
    /* Done: nothing fails from here. */
    close_fd(&w->fx_pipe[1]);
    w->fx_pid = (int32_t)pid;
    w->fx_pidfd = pidfd;
    w->fx_epfd = epfd;
    w->fx_tid[0] = (int32_t)pid;
    w->fx_nstid[0] = nstid;
    w->fx_ntids = 1;
    w->fx_ns = proc ? proc_ns(who) : 0;
    workers_lock();
    if (proc)
        (void)learn_tids(w); /* the other threads, if /proc shows them */
    w->fx_magic = ATTACHED;
    w->fx_next = workers;
    workers = w;
    workers_unlock();
    pidfd = epfd = -1;
out:
    if (pidfd >= 0)
        close(pidfd);
    if (epfd >= 0)
        close(epfd);
    return call_end(c, r);
}

int fx_worker_refresh(fx_worker *w)
{
    if (!attached(w))
        return EINVAL;
    struct call c = call_begin();
    workers_lock();
    int r = ESRCH;
    if (w->fx_report.event == FX_WORKER_RUNNING)
        r = proc_ours() ? learn_tids(w) : ENOENT; /* another namespace's /proc: blind */
    workers_unlock();
    return call_end(c, r);
}

static int bind_obj(fx_worker *w, int kind, void *obj)
{
    if (!attached(w) || fxi_bad_slot(obj))
        return EINVAL;
    int r = 0;
    workers_lock();
    if (w->fx_report.event != FX_WORKER_RUNNING) {
        r = ESRCH;
        goto out;
    }
    for (int i = 0; i < w->fx_nbound; i++)
        if (w->fx_obj[i] == obj && w->fx_kind[i] == kind)
            goto out;
    if (w->fx_nbound == FX_WORKER_BIND_MAX) {
        r = ENOSPC;
        goto out;
    }
    w->fx_kind[w->fx_nbound] = kind;
    w->fx_obj[w->fx_nbound] = obj;
    w->fx_nbound++;
out:
    workers_unlock();
    return r;
}

int fx_worker_bind_rmutex(fx_worker *w, fx_rmutex *m)
{
    return bind_obj(w, KIND_RMUTEX, m);
}

int fx_worker_bind_once(fx_worker *w, fx_once *o)
{
    return bind_obj(w, KIND_ONCE, o);
}

int fx_worker_fd(const fx_worker *w)
{
    return attached(w) ? w->fx_epfd : -EINVAL;
}

int fx_worker_check(fx_worker *w, fx_worker_report *report)
{
    if (!attached(w))
        return EINVAL;
    struct call c = call_begin();
    workers_lock();
    int r = check_locked(w, report);
    workers_unlock();
    return call_end(c, r);
}

FX_CANCEL_FRAME int fx_worker_wait(fx_worker *w, const struct timespec *deadline,
                                   fx_worker_report *report)
{
    if (!attached(w))
        return EINVAL;
    int saved = errno;
    int r;
    for (;;) {
        r = fx_worker_check(w, report);
        if (r != EINPROGRESS)
            break;
        struct timespec left, *tmo = NULL;
        if (deadline != NULL) {
            if (fxi_deadline_check(deadline) != 0) {
                r = EINVAL;
                break;
            }
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (!fxi_ts_before(&now, deadline)) {
                r = ETIMEDOUT;
                break;
            }
            /* Saturating: a deadline near the largest time_t has more
             * nanoseconds than an int64_t holds (ppoll takes any tv_sec). */
            left = fxi_ts_sub(*deadline, now);
            tmo = &left;
        }
        /* Both descriptors: readable at exit, or at the exec pipe's EOF. A
         * signal (EINTR) or a byte the worker wrote ends the poll early:
         * check again, with the same deadline. The one cancellation point
         * of the calls (with the caller's cancelability): nothing is held
         * here, the handle stays attached. */
        struct pollfd p[2] = {{w->fx_pidfd, POLLIN, 0}, {w->fx_pipe[0], POLLIN, 0}};
        (void)ppoll(p, w->fx_pipe[0] >= 0 ? 2 : 1, tmo, NULL);
    }
    errno = saved;
    return r;
}

int fx_worker_detach(fx_worker *w)
{
    if (w == NULL || (w->fx_magic != PREPARED && w->fx_magic != ATTACHED))
        return EINVAL;
    struct call c = call_begin();
    if (w->fx_magic == ATTACHED) {
        workers_lock();
        for (fx_worker **p = &workers; *p != NULL; p = &(*p)->fx_next) {
            if (*p == w) {
                *p = w->fx_next;
                break;
            }
        }
        workers_unlock();
    }
    close_fd(&w->fx_pipe[0]);
    /* The worker's copy of the prepared handle keeps the write end: closing
     * it would look like an exec. It closes with the worker's exec or exit. */
    if (w->fx_magic == ATTACHED || prepared_here(w))
        close_fd(&w->fx_pipe[1]);
    close_fd(&w->fx_pidfd);
    close_fd(&w->fx_epfd);
    w->fx_nbound = 0;
    w->fx_magic = 0;
    return call_end(c, 0);
}
