/*
 * futexsync/worker.h - a supervisor's handle on a worker process it started:
 * when the worker exits or execs, the fx_rmutex and fx_once objects bound to
 * it that it still holds are released for their next user.
 *
 * An fx_worker watches one child process: fx_worker_spawn (or prepare, fork and
 * attach) starts it, the bind calls name the objects it may hold, and
 * fx_worker_check, wait or reap release those once the kernel reports it gone.
 *
 *     static fx_rmutex *lock;                    // in MAP_SHARED memory
 *     int run_worker(void *arg);                 // the worker's code
 *     fx_worker w; fx_worker_report rep; int st;
 *     if (fx_worker_spawn(&w, 0, run_worker, NULL, NULL) == 0) {
 *         fx_worker_bind_rmutex(&w, lock);
 *         fx_worker_wait(&w, NULL, &rep);        // or poll fx_worker_fd(&w)
 *         fx_worker_reap(&w, NULL, &st);         // the zombie, after that
 *         fx_worker_detach(&w);
 *     }
 *
 * Waiters of an fx_rmutex or fx_once notice a dead owner by looking at its TID,
 * which some environments forbid and which exec fools; a supervisor does not
 * look: a pidfd tells it the exit, a pipe only the worker keeps open the exec.
 * Each bound object that one of the worker's TIDs holds is then released
 * (fx_worker_check), and its next user recovers it. The caller keeps rules the
 * supervisor cannot check (fx_worker_attach, fx_worker_bind_rmutex,
 * fx_worker_detach). Calls return 0 or a positive errno value; a call whose
 * result is a value returns it (>= 0) or a negative errno value; errno is never
 * set. EINTR is never returned. Deadlines are absolute CLOCK_MONOTONIC (NULL:
 * none).
 */
#ifndef FUTEXSYNC_WORKER_H
#define FUTEXSYNC_WORKER_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "futexsync/annotations.h"
#include "futexsync/once.h"
#include "futexsync/rmutex.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Capacities of a handle. */
#define FX_WORKER_BIND_MAX 16 /* bound objects */
#define FX_WORKER_TIDS_MAX 16 /* TIDs of the worker (its main thread included) */

/* Flags for fx_worker_prepare and fx_worker_spawn. */
#define FX_WORKER_NOEXEC 1 /* watch for exit only (no pipe) */
#define FX_WORKER_NEWPID 2 /* the worker is the first process (PID 1) of a new PID namespace */

/* Events, in fx_worker_report.event. */
#define FX_WORKER_RUNNING 0 /* not gone yet */
#define FX_WORKER_EXITED  1 /* the worker process has exited (a zombie or reaped) */
#define FX_WORKER_EXECED  2 /* it exec'd (it may be running another program) */

/* What the release did; the counts are of bound objects held by one of the
 * worker's TIDs when it was found gone. */
typedef struct fx_worker_report {
    int32_t event;     /* FX_WORKER_* above */
    int32_t released;  /* released: their next user recovers them */
    int32_t ambiguous; /* kept: another live worker of this process has that TID */
    int32_t unsure;    /* kept: the TID may name another task now (reaped, reused) */
} fx_worker_report;

/* A worker handle: caller-provided memory, no allocation, opaque: its state
 * is private to the library (use the functions). 512 bytes, aligned as a
 * uint64_t, on every target. It holds descriptors and is linked into a list
 * of this process while attached: do not copy it or share it with another
 * process, and detach it before its memory is reused. */
typedef struct fx_worker {
    uint64_t fx_private[64];
} fx_worker;

/* Sets *w up for one worker, before the fork that starts it: makes the exec
 * pipe (close-on-exec) unless flags has FX_WORKER_NOEXEC. Like every
 * descriptor a handle keeps (the pidfd and fx_worker_fd's too), the pipe's
 * ends are above 2 even in a process started with 0-2 closed, so a worker
 * that redirects its standard descriptors keeps the write end. flags: 0 or
 * FX_WORKER_NOEXEC | FX_WORKER_NEWPID. Returns 0; EINVAL (NULL w, unknown
 * flags); EBUSY (w is attached: detach it first); EMFILE or ENFILE (no
 * descriptor for the pipe). A prepared handle that is never attached is
 * freed with fx_worker_detach. Not a cancellation point.
 * The pipe tells the exec: only the worker keeps its write end (attach closes
 * the parent's), so end-of-file on the read end means that every process
 * image that held the write end has exec'd or exited. Limits: a child the
 * worker forks without exec keeps the write end, so the worker's exec is seen
 * only once that child has exec'd or exited too (its exit is still seen at
 * once); and a worker that closes the descriptor itself (closefrom,
 * close_range, a daemon's close-all loop) is taken for one that exec'd:
 * prepare such a worker, or one started by posix_spawn or fork+exec, with
 * FX_WORKER_NOEXEC (exit only). */
int fx_worker_prepare(fx_worker *w, int flags) FX_WARN_UNUSED;

/* Attaches the prepared *w to its worker pid, right after the fork (or
 * clone) that started it, in the parent: closes the parent's write end of
 * the exec pipe, opens a pidfd, learns the worker's TIDs (fx_worker_check lists them) and
 * links w into the process's list of attached handles. Returns 0; EINVAL
 * (NULL, unprepared or already attached w, pid <= 0, FX_WORKER_NEWPID for a
 * worker whose NSpid is not 1); ECHILD (pid is not a live or unreaped child
 * of this process, or SIGCHLD is ignored or has SA_NOCLDWAIT: its exit would
 * leave no zombie to pin its TID); ESRCH (no such process); ENOSYS (no
 * pidfd_open: Linux before 5.3); EMFILE, ENFILE, ENOMEM. On error w stays
 * prepared (detach frees it). Not a cancellation point: a cancellation
 * pending or arriving meanwhile acts at the caller's next one, after attach
 * has returned with its descriptors in w.
 * The pidfd (pidfd_open, Linux 5.3) tells the exit: it is readable once the
 * worker has exited, and it names the process, not the number, so PID reuse
 * cannot fool it. For a worker the caller starts itself (its own fork or
 * clone, a posix_spawn with FX_WORKER_NOEXEC):
 *
 *     fx_worker_prepare(&w, 0);            // before fork: the exec pipe
 *     pid_t pid = fork();                  // (or clone(), CLONE_NEWPID too)
 *     if (pid == 0) { ... the worker ...; _exit(0); }
 *     fx_worker_attach(&w, pid);           // right after fork, in the parent
 *
 * then bind, wait or check, reap and detach as after fx_worker_spawn (or
 * waitpid(pid) once wait or check has reported it gone, never before).
 * Rules the caller keeps (the supervisor cannot check them): the worker is a
 * child of the calling process (forked by any of its threads), SIGCHLD is not
 * ignored and has no SA_NOCLDWAIT, and nobody reaps it (a SIGCHLD handler's
 * waitpid(-1) loop included) before check or wait has reported it gone
 * (fx_worker_reap keeps that order itself). */
int fx_worker_attach(fx_worker *w, pid_t pid) FX_WARN_UNUSED;

/* Starts a supervised worker: prepares *w (flags as for fx_worker_prepare),
 * forks a child, attaches *w to it, and only then lets the child run
 * fn(arg), which ends with _exit(fn's result): fn runs supervised from its
 * first line and never returns into the caller's frames. *pid, when pid is
 * not NULL, receives the worker's PID. With FX_WORKER_NEWPID the child is
 * made by clone(CLONE_NEWPID) as the first process (PID 1) of a new PID
 * namespace, which takes CAP_SYS_ADMIN. The child is a copy of the caller
 * with one thread, as after fork(2): in a multithreaded caller fn may call
 * only async-signal-safe functions until it execs; the copies of the
 * caller's stdio buffers are never flushed by the child (fflush(NULL)
 * before the call if output is pending, and in fn before it returns). A
 * FX_WORKER_NEWPID child runs no pthread_atfork handler and has no robust
 * futex list (the fx_rmutex and fx_once objects it holds are released by
 * this supervisor or found by their waiters' probe); as PID 1 it gets only
 * the signals it has a handler for, SIGKILL and SIGSTOP aside, and its exit
 * ends every process of its namespace. Returns 0 (w attached, its worker
 * running); EINVAL (NULL w or fn, unknown flags); EBUSY (w is attached:
 * detach it first); ECHILD (SIGCHLD is ignored or has SA_NOCLDWAIT: nothing
 * would pin the worker's PID, and no child is started); EPERM
 * (FX_WORKER_NEWPID without the privilege); EAGAIN (a process limit:
 * RLIMIT_NPROC, threads-max); ENOMEM (no memory, or a PID namespace whose
 * first process has exited); ENOSPC (too many nested PID namespaces); ENOSYS
 * (no pidfd_open: Linux before 5.3); EMFILE, ENFILE (no descriptor for the
 * exec pipe, the pidfd or the call's own socketpair). On error nothing is
 * left behind: fn has not run, a child already made is killed and reaped,
 * no descriptor of the call stays open, and w is not prepared. Not a
 * cancellation point. */
int fx_worker_spawn(fx_worker *w, int flags, int (*fn)(void *arg), void *arg,
                    pid_t *pid) FX_WARN_UNUSED;

/* Adds the worker's threads started since attach to its TIDs, as
 * /proc/<pid>/task lists them (call it once the worker has started them).
 * Returns 0; EINVAL (w not attached); ESRCH (already reported gone); ENOENT
 * (/proc cannot show them: no /proc, hidepid, another PID namespace's /proc);
 * ENOSPC (more than FX_WORKER_TIDS_MAX TIDs: the first ones are kept). Not
 * a cancellation point, though it opens and reads /proc files. */
int fx_worker_refresh(fx_worker *w);

/* Binds m to the worker: released if one of the worker's TIDs owns it when
 * the worker is gone. Binding an object already bound is a no-op. Returns 0;
 * EINVAL (w not attached, NULL or misaligned m); ENOSPC (FX_WORKER_BIND_MAX
 * objects bound already); ESRCH (the worker was already reported gone).
 * Not a cancellation point. Rules the caller keeps: after an exec, the new
 * program must not acquire objects bound to the worker: it runs with the dead
 * image's TID, so the supervisor cannot tell its ownership from the dead
 * image's; objects bound to a worker in another PID namespace must not be
 * used by processes of other PID namespaces that no fx_worker of this process
 * supervises (a TID there means nothing here). Two live workers of this
 * process that both have the TID (two namespaces' first processes are both 1)
 * make the release ambiguous: nothing is released, the object is counted
 * `ambiguous`, and it waits for its owner's own recovery. */
int fx_worker_bind_rmutex(fx_worker *w, fx_rmutex *m);

/* As fx_worker_bind_rmutex for an fx_once: reset to "not run" if one of the
 * worker's TIDs is running its initialiser when the worker is gone. Not a
 * cancellation point. */
int fx_worker_bind_once(fx_worker *w, fx_once *o);

/* The file descriptor to poll for reading (epoll, poll, an event loop next to
 * fx_async's fd): readable once the worker has exited or exec'd; then call
 * fx_worker_check. Once the worker has exited it stays readable (remove it
 * from the loop); after an exec it is readable again when the exec'd
 * process exits, and check repeats its report. -EINVAL when w is not
 * attached. Do not read or close it yourself. Not a cancellation point. */
int fx_worker_fd(const fx_worker *w);

/* Looks, without waiting for the worker, whether it is gone; the first time
 * it is, releases the bound objects its TIDs hold, then reports (later calls
 * repeat the report). It blocks at most 20 ms, only when the exec pipe's
 * end-of-file comes from a worker it may not inspect (process_vm_readv
 * refused: a non-dumpable worker, seccomp), to tell its exit from an exec.
 * Returns 0 (gone; *report filled if report is not NULL), EINPROGRESS (still
 * running, report->event FX_WORKER_RUNNING), EINVAL (w not attached). Not a
 * cancellation point, though it polls and reads the worker's descriptors.
 *
 * What is released. When the worker is gone, each bound object whose owner
 * is one of the worker's TIDs (fx_rmutex_owner; an fx_once running in that
 * TID) is released with fx_rmutex_recover (the next acquirer is told that the
 * owner died, a sleeper is woken) or fx_once_recover (the next caller runs
 * the initialiser again), within the supervisor's scheduling delay of the
 * event. The worker's TIDs, as it writes them into owner words:
 *   - its main thread's: its PID, pinned by the kernel until the worker is
 *     reaped (so the supervisor must reap only after the release: check and
 *     wait never reap, fx_worker_reap releases first; a worker reaped before
 *     is not released from, and is counted `unsure`); after an exec the new
 *     program has it (a non-main thread that execs takes the main thread's
 *     TID);
 *   - in another PID namespace, its TID there: the last field of the NSpid
 *     line of /proc/<pid>/status, read by attach while the worker lives,
 *     only from a /proc of the supervisor's own PID namespace (attach checks
 *     it: another namespace's /proc, as under unshare -pf without
 *     --mount-proc, names other processes by those numbers); or, where /proc
 *     cannot show it, 1 for a worker started as the first process of a new
 *     PID namespace (CLONE_NEWPID) and prepared with FX_WORKER_NEWPID;
 *   - its other threads' (up to FX_WORKER_TIDS_MAX), as /proc/<pid>/task
 *     lists them when attach or fx_worker_refresh runs. Released only when
 *     no task has that TID any more (kill(tid, 0) finds none; in another PID
 *     namespace, only after the exit of a worker that was the namespace's
 *     first process, which ends every task in it): a TID freed by the thread's
 *     death and reused by another thread keeps the object (`unsure`; the
 *     waiters' own liveness check still applies), and threads started after
 *     the last refresh are not covered. */
int fx_worker_check(fx_worker *w, fx_worker_report *report);

/* As fx_worker_check, blocking until the worker is gone or the absolute
 * CLOCK_MONOTONIC deadline (NULL: none) passes; it sleeps in the kernel
 * until then, whatever the deadline (one as far as the largest time_t, as
 * fx_deadline_from makes of a huge CLOCK_REALTIME time, included). Returns
 * 0 (gone: released, *report filled); ETIMEDOUT; EINVAL (w not attached, or
 * tv_nsec outside [0, 999999999] when it would wait). Never EINTR. A cancellation point, as
 * pthread_cond_wait, acting only while it sleeps between looks, when it
 * holds no lock and no descriptor of its own: a cancelled wait leaves w
 * attached as it was, with nothing to clean up. */
int fx_worker_wait(fx_worker *w, const struct timespec *deadline, fx_worker_report *report);

/* Reaps the worker in the order the release needs: waits until the worker
 * process has exited (after an exec, until the exec'd program exits) or the
 * absolute CLOCK_MONOTONIC deadline (NULL: none) passes, runs the release
 * first as fx_worker_check does if no check or wait has yet, and only then
 * frees the zombie, storing its wait status as waitpid(2) gives it
 * (WIFEXITED, WEXITSTATUS, WIFSIGNALED, WTERMSIG) in *status when status is
 * not NULL. A deadline already passed makes it a look that never blocks. For
 * any attached worker, spawned or attached by the caller. w stays attached:
 * fx_worker_check repeats the report; the worker's PID is free from now on
 * and may name another process. Returns 0 (reaped); ETIMEDOUT (not exited:
 * nothing reaped); ECHILD (already reaped: by an earlier fx_worker_reap, or
 * against the rules above by another waitpid, which the release counted
 * `unsure`); EINVAL (w not attached, or tv_nsec outside [0, 999999999] when
 * it would wait). Never EINTR. A cancellation point, as fx_worker_wait,
 * acting only while it sleeps: a cancelled reap has reaped nothing and
 * leaves w attached, with nothing to clean up. */
int fx_worker_reap(fx_worker *w, const struct timespec *deadline, int *status);

/* Unlinks w from the list of attached handles, closes its descriptors and
 * forgets its bindings; nothing is released and the worker is not reaped
 * (fx_worker_reap it first, or waitpid it once it is reported gone).
 * In the worker itself (a fork child's copy of the prepared handle, told
 * from the supervisor's by a stamp that fork does not carry over, not by a
 * PID, which is 1 for both when each is the first process of a PID
 * namespace) it closes the read end only: the write end must stay open
 * until the worker execs or exits. Returns 0, or EINVAL (NULL, or w not prepared). Not a
 * cancellation point. A handle is used by one thread at a time, and detached
 * before its memory is reused (attached handles are linked into a list of
 * this process, which the release consults for ambiguity). */
int fx_worker_detach(fx_worker *w);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_WORKER_H */
