/*
 * src/async/async.h - what the parts of the asynchronous waiters share: the
 * waiter, the kinds' ops table (src/async/kinds.c) and the back ends' ops
 * table (src/async/uring.c, src/async/thread.c). The core (src/async/core.c)
 * runs a kind's protocol and sleeps through the waiter's back end. The
 * design: the state table at the top of core.c.
 */
#ifndef FXI_ASYNC_ASYNC_H
#define FXI_ASYNC_ASYNC_H

#include "futexsync/async.h"

#include <errno.h>
#include <linux/time_types.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal/deadline.h"
#include "internal/rmutex.h"
#include "internal/syscall.h"

/* How a back end's wait ended (see the table). */
enum {
    LAST_FIRST = -1,       /* no wait yet: the operation is being armed */
    LAST_RECHECK = -2,     /* the kind's own bound passed first; not woken */
    LAST_WOKEN = 0,        /* woken; may have consumed a wake */
    LAST_CHANGED = EAGAIN, /* the word did not hold the value */
    LAST_TIMEDOUT = ETIMEDOUT,
    LAST_CANCELED = ECANCELED,
};

enum { STATE_IDLE, STATE_WAITING };

/* The futex wait a kind asks for. The kind may bound it (`until`); the core
 * folds the caller's deadline in before the back end sees it. */
struct fxi_sleep {
    int32_t *word;
    int32_t expected;
    bool has_until;        /* the sleep ends by `until` at the latest */
    struct timespec until; /* absolute CLOCK_MONOTONIC */
    /* > 0: the kind's `until` is only a re-read of the word (mutex, counter:
     * the bounded recheck, FXI_ASYNC_RECHECK_NS). When it passes before the
     * deadline and the word still holds `expected`, the back end sleeps again
     * until the next recheck, recheck_ns later, without reporting (the kind
     * would name the same sleep). 0: `until` ends the wait (rmutex: the
     * owner's liveness check). Set by the kind with its `until`. */
    int64_t recheck_ns;
};

/* The recheck period of the async mutex and counter waits (the library's
 * bounded-recheck rule, src/internal/futex.h, with a period of its own): a
 * wake lost in shared memory is made up within this time plus the scheduling
 * delay of the back end, which leaves the 1 s stranding bound (docs/reliability.md) half a second
 * of slack. Longer than FXI_RECHECK_NS because an io_uring recheck costs the
 * loop a readiness and a few system calls (docs/async.md). */
#define FXI_ASYNC_RECHECK_NS (500 * 1000000LL)

struct fxi_async_kind {
    /* A first attempt that needs no waiting and leaves no trace: the result,
     * or EINPROGRESS when the operation has to wait. */
    int (*ready)(fx_async *w);
    /* One move after the last wait ended (`last`): the result, or EINPROGRESS
     * with *s set (s->has_until is false on entry). Never EINPROGRESS for
     * LAST_TIMEDOUT. */
    int (*step)(fx_async *w, int last, struct fxi_sleep *s);
    /* Leaves the protocol after a wait that ended with `last`. */
    void (*abandon)(fx_async *w, int last);
};


/* A back end: sleeps on the word it is given, until the bound it is given,
 * and reports how that sleep ended. */
struct fx_async_backend {
    /* Sets the back end up for a new waiter (its eventfd is w->efd): 0,
     * ENOTSUP when the kernel does not offer it, or the errno of a resource. */
    int (*open)(fx_async *w);
    /* Releases what open set up; nothing is in flight. */
    void (*close)(fx_async *w);
    /* Arms one futex wait (s->has_until: bounded by s->until). On failure
     * returns the errno and sets *failed_last to how the wait ended. */
    int (*arm)(fx_async *w, const struct fxi_sleep *s, int *failed_last);
    /* complete(): EINPROGRESS, or 0 with *last once the wait is over. A
     * recheck (s->recheck_ns) that finds the word unchanged is not over: the
     * back end sleeps again by itself, and sets w->own_bound for the bound of
     * the sleep that did end. */
    int (*poll)(fx_async *w, int *last);
    /* Stops the wait in flight and reports how it ended (LAST_*). */
    int (*stop)(fx_async *w);
};

extern const struct fx_async_backend fxi_async_uring;
extern const struct fx_async_backend fxi_async_thread;

extern const struct fxi_async_kind fxi_async_kind_futex;
extern const struct fxi_async_kind fxi_async_kind_mutex;
extern const struct fxi_async_kind fxi_async_kind_rmutex;
extern const struct fxi_async_kind fxi_async_kind_counter;

/* The io_uring back end's state (src/async/uring.c). */
struct fxi_uring {
    int fd;              /* the ring; -1 when closed */
    unsigned features;   /* io_uring_params.features */
    /* submission ring */
    uint32_t *sq_head, *sq_tail, *sq_mask, *sq_flags, *sq_array;
    struct io_uring_sqe *sqes;
    uint32_t sq_pending; /* SQEs written since the last submission */
    /* completion ring */
    uint32_t *cq_head, *cq_tail, *cq_mask;
    struct io_uring_cqe *cqes;
    /* mappings */
    void *sq_map, *cq_map;
    size_t sq_map_len, cq_map_len;
    void *sqe_map;
    size_t sqe_map_len;
};

struct fxi_async_uring {
    struct fxi_uring ring;
    unsigned inflight;  /* submitted requests whose completion is not reaped */
    bool futex_done;    /* the futex wait's completion has been reaped */
    bool timeout_done;  /* the linked timeout's completion has been reaped */
    int32_t futex_res;  /* ... and its result */
    struct __kernel_timespec ts; /* the bound of the linked timeout */
    int32_t *word;      /* the wait in flight: its word, value and */
    int32_t expected;
    int64_t recheck_ns; /* fxi_sleep.recheck_ns */
};

struct fxi_async_thread {
    pthread_t thread;
    bool started;
    int32_t req;    /* requests posted by the loop: the helper sleeps on it */
    int32_t done;   /* requests whose futex wait is over (result written) */
    int32_t quiet;  /* requests the helper is finished with (eventfd written) */
    int32_t cancel; /* 1: the loop cancels the current request */
    int32_t watch;  /* 1: the loop sleeps on quiet */
    int32_t quit;   /* 1: the helper exits at the next request */
    /* The request: written by the loop before req's release increment. */
    int32_t *word;
    int32_t expected;
    bool bounded;          /* the sleep ends at `bound` at the latest */
    struct timespec bound; /* absolute CLOCK_MONOTONIC */
    bool own;              /* `bound` is the kind's, before the deadline */
    int64_t recheck_ns;    /* fxi_sleep.recheck_ns */
    bool has_deadline;     /* the caller's deadline, for the rechecks' bounds */
    struct timespec deadline;
    int efd;
    /* The result: written by the helper before done's store. */
    int result;
    bool result_own; /* the sleep that ended was bounded by the kind's bound */
};

struct fx_async {
    int backend;   /* FX_ASYNC_URING or FX_ASYNC_THREAD */
    const struct fx_async_backend *be; /* its ops */
    pid_t owner;   /* TID of the creating thread */
    int efd;       /* the eventfd the loop polls */
    int state;     /* STATE_* */
    const struct fxi_async_kind *kind;
    bool has_deadline;
    struct timespec deadline;
    struct timespec recheck; /* a mutex or counter wait's next re-read of its
                                word (src/async/kinds.c) */
    bool own_bound; /* the wait in flight is bounded by the kind's `until`,
                       which comes before the deadline */
    /* The operation's arguments. */
    union {
        struct {
            int32_t *word;
            int32_t expected;
        } futex;
        fx_mutex *mutex;
        struct {
            fx_rmutex *m;
            struct fxi_rmutex_waiter rw; /* the acquisition's state */
        } rmutex;
        struct {
            fx_counter *c;
            int32_t target;
            bool counted; /* registered in c->waiters */
        } counter;
    } op;
    void (*fn)(void *);       /* fx_async_mutex_run's callback, or NULL */
    void (*rfn)(void *, int); /* fx_async_rmutex_run's callback, or NULL */
    void *arg;
    struct fxi_async_uring uring;
    struct fxi_async_thread thread;
};

/* A back end's own recheck (fxi_sleep.recheck_ns): the kind's bound passed
 * before the deadline and the word still held its value. Sets *bound to the
 * next sleep's bound, the earlier of the next recheck (recheck_ns from now:
 * the recheck time moves on only once it has passed) and the deadline, and
 * returns true when it is the recheck. */
static inline bool fxi_async_next_recheck(int64_t recheck_ns, bool has_deadline,
                                         const struct timespec *deadline,
                                         struct timespec *bound)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    *bound = fxi_ts_add_ns(now, recheck_ns);
    if (has_deadline && !fxi_ts_before(bound, deadline)) {
        *bound = *deadline;
        return false;
    }
    return true;
}

/* System calls with errno kept (fxi_syscall) -------------------------------- */

/* Clears the eventfd; non-blocking: EAGAIN when it was clear already. */
static inline void fxi_efd_clear(int efd)
{
    uint64_t v;
    (void)fxi_syscall(SYS_read, efd, (long)(uintptr_t)&v, (long)sizeof v, 0, 0, 0);
}

static inline void fxi_efd_signal(int efd)
{
    uint64_t one = 1;
    (void)fxi_syscall(SYS_write, efd, (long)(uintptr_t)&one, (long)sizeof one, 0, 0, 0);
}

static inline void fxi_close(int fd)
{
    (void)fxi_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
}

#endif /* FXI_ASYNC_ASYNC_H */
