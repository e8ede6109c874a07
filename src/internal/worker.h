/*
 * src/internal/worker.h - the private state behind an fx_worker handle, and
 * what src/worker.c, src/worker_proc.c and src/worker_spawn.c share.
 *
 * The public fx_worker is opaque storage (include/futexsync/worker.h: 512
 * bytes, aligned as a uint64_t); the handle's fields are this struct, laid
 * over the caller's memory. src/worker.c pins that it fits. The library
 * never touches the public array, and the caller never reads the fields, so
 * the two types never access the same bytes in one program; may_alias says
 * so to the compiler anyway.
 *
 * The edges between the files go one way: worker_spawn.c calls worker.c,
 * worker.c calls worker_proc.c (tests/docs/check_src_cycles.sh).
 */
#ifndef FXI_INTERNAL_WORKER_H
#define FXI_INTERNAL_WORKER_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "futexsync/worker.h"

#define FXI_WORKER_PREPARED 0x66787770 /* "fxwp" */
#define FXI_WORKER_ATTACHED 0x66787761 /* "fxwa" */

/* The fields of a handle (the states: src/worker.c). */
struct __attribute__((__may_alias__)) fxi_worker {
    int32_t magic; /* FXI_WORKER_PREPARED, _ATTACHED, or anything else: neither */
    int32_t flags;
    int32_t pid;
    int32_t pidfd;
    uint64_t stamp; /* the process that prepared it, among its fork copies */
    int32_t pipe[2];
    int32_t epfd;
    int32_t ntids;
    int32_t tid[FX_WORKER_TIDS_MAX];   /* in this process's PID namespace */
    int32_t nstid[FX_WORKER_TIDS_MAX]; /* as the worker writes them */
    uint64_t ns;                       /* the worker's PID namespace (0: unknown) */
    int32_t nbound;
    int32_t kind[FX_WORKER_BIND_MAX];
    void *obj[FX_WORKER_BIND_MAX];
    fx_worker_report report;
    int32_t reaped; /* fx_worker_reap took the zombie (written under the list's lock) */
    int32_t pad;
    struct fxi_worker *next;
};
typedef struct fxi_worker fxi_worker;

static inline fxi_worker *fxi_worker_of(fx_worker *h)
{
    return (fxi_worker *)(void *)h;
}

static inline const fxi_worker *fxi_worker_of_const(const fx_worker *h)
{
    return (const fxi_worker *)(const void *)h;
}

static inline bool fxi_worker_attached(const fxi_worker *w)
{
    return w != NULL && w->magic == FXI_WORKER_ATTACHED;
}

/* What a call saves on entry and gives back on return: errno, and the
 * caller's cancelability. Every call that takes the list's lock, makes a
 * descriptor or waits for a child runs with cancellation disabled: a
 * cancellation point acting inside (poll, read, open, waitid, close) would
 * end the thread holding the lock, every later call of the process blocking
 * for good, or leak a descriptor or a child. A pending cancellation acts at
 * the caller's next cancellation point; fx_worker_wait's and
 * fx_worker_reap's is their sleep (fxi_worker_sleep), where they hold
 * nothing. */
struct fxi_worker_call {
    int saved_errno;
    int cancel_state;
};

static inline struct fxi_worker_call fxi_worker_call_begin(void)
{
    struct fxi_worker_call c = {errno, PTHREAD_CANCEL_ENABLE};
    (void)pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &c.cancel_state);
    return c;
}

static inline int fxi_worker_call_end(struct fxi_worker_call c, int r)
{
    int ignored;
    (void)pthread_setcancelstate(c.cancel_state, &ignored);
    errno = c.saved_errno;
    return r;
}

/* src/worker.c ------------------------------------------------------------- */

/* The process's list of attached handles: its lock. */
void fxi_workers_lock(void);
void fxi_workers_unlock(void);

/* Whether SIGCHLD leaves a zombie (not ignored, no SA_NOCLDWAIT): without
 * one nothing pins the worker's PID until the release. */
bool fxi_worker_sigchld_ok(void);

/* Sleeps until one of the attached w's descriptors is readable (the worker
 * exited, or the exec pipe has news), a signal, or the deadline (NULL:
 * none). Returns 0 (look again), ETIMEDOUT, or EINVAL (a bad tv_nsec). The
 * cancellation point of fx_worker_wait and fx_worker_reap, with the caller's
 * cancelability: it holds no lock and makes no descriptor. */
int fxi_worker_sleep(fxi_worker *w, const struct timespec *deadline);

/* src/worker_proc.c: what /proc says of the worker ------------------------- */

/* Whether /proc is of the caller's PID namespace, so that /proc/<pid> is
 * the process this one calls pid. */
bool fxi_worker_proc_ours(void);

/* The TID of thread tid of process pid in the thread's own PID namespace
 * (the last field of its NSpid line); 0 when it cannot be read. */
int32_t fxi_worker_proc_nstid(pid_t pid, pid_t tid);

/* The inode of a PID namespace ("self" or a PID); 0 when unknown. */
uint64_t fxi_worker_proc_ns(const char *who);

/* Adds to w's TIDs the threads /proc/<pid>/task lists; 0, ENOENT, ENOSPC.
 * Called with the list's lock held (the release of another handle reads
 * the TIDs). */
int fxi_worker_learn_tids(fxi_worker *w);

#endif /* FXI_INTERNAL_WORKER_H */
