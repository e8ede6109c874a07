/*
 * src/async/uring.c - the io_uring back end of the asynchronous waiters,
 * and a minimal io_uring ring on the raw system calls. A wait is an
 * IORING_OP_FUTEX_WAIT on the word, linked to an IORING_OP_LINK_TIMEOUT at
 * the sleep's bound; the kernel signals the waiter's registered eventfd when
 * it queues the completion. Every request posts exactly one completion,
 * counted in `inflight`; an operation's wait is over only when all have been
 * reaped.
 *
 *   Invariant (readiness is never lost): the eventfd is cleared only by
 *   uring_settle, before the deferred work is run, and runs repeat until
 *   IORING_SQ_TASKRUN is clear, so any work queued afterwards finds an empty
 *   list and signals the eventfd again. A futex completion of 0 (a consumed
 *   wake) always reaches the kind as WOKEN. An idle mutex or counter recheck
 *   is re-armed inside complete (uring_recheck), without a step of the
 *   kind.
 *
 * The ring's setup flags, the completion results, why (the kernel's
 * signalling rule, a timeout racing a wake), the EINTR of a ring's teardown
 * and the minimal ring (no liburing; opcodes defined here for headers older
 * than Linux 6.7): docs/async.md, "Back end: io_uring".
 */
#include <errno.h>
#include <linux/io_uring.h>
#include <linux/time_types.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "async/async.h"
#include "internal/deadline.h"
#include "internal/syscall.h"

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif
#ifndef SYS_io_uring_enter
#define SYS_io_uring_enter 426
#endif
#ifndef SYS_io_uring_register
#define SYS_io_uring_register 427
#endif

/* enum io_uring_op after IORING_OP_SENDMSG_ZC (48), the last one Linux 6.1
 * knows: READ_MULTISHOT 49, WAITID 50, FUTEX_WAIT 51. */
_Static_assert(IORING_OP_SENDMSG_ZC == 48, "io_uring opcode numbering");
#define FXI_IORING_OP_FUTEX_WAIT 51

/* futex2 flags (include/uapi/linux/futex.h, Linux 6.7), passed in sqe->fd.
 * futexsync never sets FXI_FUTEX2_PRIVATE: its words may be in MAP_SHARED
 * memory and are woken by plain FUTEX_WAKE from any process, and a private
 * wait would be keyed differently from those wakes even in private memory. */
#define FXI_FUTEX2_SIZE_U32 0x02u
#define FXI_FUTEX2_PRIVATE  128u
#define FXI_FUTEX_BITSET_MATCH_ANY 0xffffffffu

#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1u << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1u << 13)
#endif

/* munmap() and mmap() of libc, with errno kept: the raw SYS_mmap is the old
 * struct-argument call on i386 (EFAULT) and absent on some 32-bit
 * architectures, while libc's takes the offset in whatever form this one's
 * kernel wants (mmap2 and pages, or bytes). */
static void uring_munmap(void *p, size_t len)
{
    int saved = errno;
    munmap(p, len);
    errno = saved;
}

static void uring_unmap(struct fxi_uring *r)
{
    if (r->sqe_map != NULL)
        uring_munmap(r->sqe_map, r->sqe_map_len);
    if (r->cq_map != NULL && r->cq_map != r->sq_map)
        uring_munmap(r->cq_map, r->cq_map_len);
    if (r->sq_map != NULL)
        uring_munmap(r->sq_map, r->sq_map_len);
    r->sq_map = r->cq_map = r->sqe_map = NULL;
}

/* Closes the ring. The kernel cancels whatever is still in flight, but
 * asynchronously: callers that care about a wake a request may consume
 * cancel and reap their requests before closing. */
static void uring_close(struct fxi_uring *r)
{
    uring_unmap(r);
    if (r->fd >= 0)
        fxi_close(r->fd);
    r->fd = -1;
}

/* Maps a part of the ring: the address, or NULL with *err set. */
static void *uring_map(int fd, size_t len, long long offset, int *err)
{
    int saved = errno;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, (off_t)offset);
    *err = errno;
    errno = saved;
    return p == MAP_FAILED ? NULL : p;
}

/* Sets up a ring of `entries` submission entries with the setup `flags`.
 * Returns 0, or the positive errno of io_uring_setup (ENOSYS: no io_uring;
 * EPERM: disabled by sysctl or seccomp; EINVAL: a flag this kernel does not
 * know; EMFILE, ENOMEM...), or ENOMEM when the rings cannot be mapped for
 * want of memory and ENOTSUP when they cannot be mapped at all (a kernel,
 * emulator or filter refusing the mapping of an io_uring fd). */
static int uring_open(struct fxi_uring *r, unsigned entries, unsigned flags)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    p.flags = flags;
    long fd = fxi_syscall(SYS_io_uring_setup, (long)entries, (long)(uintptr_t)&p, 0, 0, 0, 0);
    if (fxi_syscall_failed(fd))
        return (int)-fd;
    r->fd = (int)fd;
    r->features = p.features;

    r->sq_map_len = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
    r->cq_map_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    if (p.features & IORING_FEAT_SINGLE_MMAP) {
        /* One mapping holds both rings (Linux 5.4 and later). */
        if (r->cq_map_len > r->sq_map_len)
            r->sq_map_len = r->cq_map_len;
        r->cq_map_len = r->sq_map_len;
    }
    int err = ENOMEM;
    r->sq_map = uring_map(r->fd, r->sq_map_len, (long long)IORING_OFF_SQ_RING, &err);
    if (r->sq_map == NULL)
        goto fail;
    if (p.features & IORING_FEAT_SINGLE_MMAP) {
        r->cq_map = r->sq_map;
    } else {
        r->cq_map = uring_map(r->fd, r->cq_map_len, (long long)IORING_OFF_CQ_RING, &err);
        if (r->cq_map == NULL)
            goto fail;
    }
    r->sqe_map_len = p.sq_entries * sizeof(struct io_uring_sqe);
    r->sqe_map = uring_map(r->fd, r->sqe_map_len, (long long)IORING_OFF_SQES, &err);
    if (r->sqe_map == NULL)
        goto fail;

    char *sq = r->sq_map, *cq = r->cq_map;
    r->sq_head = (uint32_t *)(void *)(sq + p.sq_off.head);
    r->sq_tail = (uint32_t *)(void *)(sq + p.sq_off.tail);
    r->sq_mask = (uint32_t *)(void *)(sq + p.sq_off.ring_mask);
    r->sq_flags = (uint32_t *)(void *)(sq + p.sq_off.flags);
    r->sq_array = (uint32_t *)(void *)(sq + p.sq_off.array);
    r->sqes = r->sqe_map;
    r->cq_head = (uint32_t *)(void *)(cq + p.cq_off.head);
    r->cq_tail = (uint32_t *)(void *)(cq + p.cq_off.tail);
    r->cq_mask = (uint32_t *)(void *)(cq + p.cq_off.ring_mask);
    r->cqes = (struct io_uring_cqe *)(void *)(cq + p.cq_off.cqes);
    return 0;

fail:
    uring_close(r);
    return err == ENOMEM || err == EAGAIN ? ENOMEM : ENOTSUP;
}

/* True if the kernel implements every opcode of ops[0..n). */
static bool uring_supports(struct fxi_uring *r, const unsigned *ops, int n)
{
    /* struct io_uring_probe ends in a flexible array of 256 entries here;
     * uint64_t storage keeps it aligned. */
    uint64_t buf[(sizeof(struct io_uring_probe) + 256 * sizeof(struct io_uring_probe_op)) /
                 sizeof(uint64_t)];
    memset(buf, 0, sizeof buf);
    struct io_uring_probe *probe = (struct io_uring_probe *)(void *)buf;
    long rc = fxi_syscall(SYS_io_uring_register, r->fd, IORING_REGISTER_PROBE,
                           (long)(uintptr_t)probe, 256, 0, 0);
    if (fxi_syscall_failed(rc))
        return false;
    for (int i = 0; i < n; i++) {
        if (ops[i] > probe->last_op || !(probe->ops[ops[i]].flags & IO_URING_OP_SUPPORTED))
            return false;
    }
    return true;
}

/* Makes the kernel signal the eventfd `efd` when completions are posted and,
 * in a IORING_SETUP_DEFER_TASKRUN ring, as soon as deferred work (a futex
 * wake, a fired timer) is queued for the submitter. */
static int uring_register_eventfd(struct fxi_uring *r, int efd)
{
    int32_t fd = efd;
    long rc = fxi_syscall(SYS_io_uring_register, r->fd, IORING_REGISTER_EVENTFD,
                           (long)(uintptr_t)&fd, 1, 0, 0);
    return fxi_syscall_failed(rc) ? (int)-rc : 0;
}

/* How many submission entries are free. */
static unsigned uring_room(struct fxi_uring *r)
{
    /* Relaxed: the tail is ours; acquire on the head (see uring_sqe). */
    uint32_t tail = __atomic_load_n(r->sq_tail, __ATOMIC_RELAXED) + r->sq_pending;
    uint32_t head = __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);
    return *r->sq_mask + 1 - (tail - head);
}

/* The next free submission entry, zeroed, or NULL when the ring is full. The
 * entry is published by uring_submit(). */
static struct io_uring_sqe *uring_sqe(struct fxi_uring *r)
{
    /* Relaxed: the tail is ours; acquire on the head, which the kernel
     * advances once it has consumed entries we may then reuse. */
    uint32_t tail = __atomic_load_n(r->sq_tail, __ATOMIC_RELAXED) + r->sq_pending;
    uint32_t head = __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);
    uint32_t mask = *r->sq_mask;
    if (tail - head > mask)
        return NULL;
    uint32_t idx = tail & mask;
    struct io_uring_sqe *sqe = &r->sqes[idx];
    memset(sqe, 0, sizeof *sqe);
    r->sq_array[idx] = idx;
    r->sq_pending++;
    return sqe;
}

/* io_uring_enter(2) with errno kept: the count it returns, or -errno. */
static long uring_enter(struct fxi_uring *r, unsigned to_submit, unsigned min_complete,
                                  unsigned flags)
{
    return fxi_syscall(SYS_io_uring_enter, r->fd, (long)to_submit, (long)min_complete,
                        (long)flags, 0, 0);
}

/* Publishes the entries taken with uring_sqe() and submits them. Returns
 * 0 when the kernel consumed every one. Otherwise returns the errno of
 * io_uring_enter (EAGAIN for a short count): *consumed entries are then in
 * flight (the caller cancels them) and the rest are withdrawn. */
static int uring_submit(struct fxi_uring *r, unsigned *consumed)
{
    unsigned n = r->sq_pending;
    uint32_t tail = __atomic_load_n(r->sq_tail, __ATOMIC_RELAXED);
    /* Release: the entries and the array slots are written before the kernel
     * can see the new tail. */
    __atomic_store_n(r->sq_tail, tail + n, __ATOMIC_RELEASE);
    r->sq_pending = 0;
    long rc;
    do
        rc = uring_enter(r, n, 0, 0);
    while (rc == -EINTR);
    unsigned done = !fxi_syscall_failed(rc) ? (unsigned)rc : 0;
    *consumed = done;
    if (done == n)
        return 0;
    /* Withdraw what the kernel did not consume: without SQPOLL it reads the
     * ring only inside io_uring_enter, so moving the tail back is safe. */
    __atomic_store_n(r->sq_tail, tail + done, __ATOMIC_RELEASE);
    return fxi_syscall_failed(rc) ? (int)-rc : EAGAIN;
}

/* The oldest unreaped completion, or NULL. */
static struct io_uring_cqe *uring_peek(struct fxi_uring *r)
{
    /* Relaxed: the head is ours. Acquire on the tail: the entry the kernel
     * wrote before advancing it is visible. */
    uint32_t head = __atomic_load_n(r->cq_head, __ATOMIC_RELAXED);
    uint32_t tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
    if (head == tail)
        return NULL;
    return &r->cqes[head & *r->cq_mask];
}

/* Gives the completion returned by uring_peek() back to the kernel. */
static void uring_seen(struct fxi_uring *r)
{
    uint32_t head = __atomic_load_n(r->cq_head, __ATOMIC_RELAXED);
    /* Release: we have read the entry before the kernel may overwrite it. */
    __atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
}

/* True when the ring needs the submitter to enter the kernel: deferred work
 * is queued (IORING_SQ_TASKRUN, with IORING_SETUP_TASKRUN_FLAG) or completions
 * are waiting to be reaped. */
static bool uring_has_work(struct fxi_uring *r)
{
    /* Acquire: pairs with the kernel setting the flag before it signals. */
    if (__atomic_load_n(r->sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_TASKRUN)
        return true;
    return uring_peek(r) != NULL;
}

/* The back end ------------------------------------------------------------------ */

/* Request tags (user_data) of the io_uring back end. */
enum { TAG_FUTEX = 1, TAG_TIMEOUT = 2, TAG_CANCEL = 3 };

static int uring_backend_open(fx_async *w)
{
    struct fxi_async_uring *u = &w->uring;
    int r = uring_open(&u->ring, 4,
                       IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
                              IORING_SETUP_TASKRUN_FLAG);
    if (r != 0) {
        /* ENOSYS: no io_uring (or seccomp); EPERM: io_uring_disabled or
         * seccomp; EINVAL: a setup flag older than 6.1; ENOTSUP: rings
         * that cannot be mapped. */
        return r == ENOSYS || r == EPERM || r == EINVAL ? ENOTSUP : r;
    }
    static const unsigned ops[] = {FXI_IORING_OP_FUTEX_WAIT, IORING_OP_LINK_TIMEOUT,
                                   IORING_OP_ASYNC_CANCEL};
    if (!uring_supports(&u->ring, ops, 3)) {
        uring_close(&u->ring);
        return ENOTSUP;
    }
    r = uring_register_eventfd(&u->ring, w->efd);
    if (r != 0) {
        uring_close(&u->ring);
        return r;
    }
    u->inflight = 0;
    return 0;
}

static void uring_reap(struct fxi_async_uring *u)
{
    struct io_uring_cqe *cqe;
    while ((cqe = uring_peek(&u->ring)) != NULL) {
        if (cqe->user_data == TAG_FUTEX) {
            u->futex_done = true;
            u->futex_res = cqe->res;
        } else if (cqe->user_data == TAG_TIMEOUT) {
            u->timeout_done = true;
        }
        if (u->inflight > 0)
            u->inflight--;
        uring_seen(&u->ring);
    }
}

/* Runs the deferred work (posting the completions it produces) and reaps. */
static void uring_flush(struct fxi_async_uring *u)
{
    if (uring_has_work(&u->ring)) {
        long rc;
        do
            rc = uring_enter(&u->ring, 0, 0, IORING_ENTER_GETEVENTS);
        while (rc == -EINTR);
    }
    uring_reap(u);
}

/* The one way the eventfd is cleared: clear it, then run the deferred work
 * until none is left queued. The kernel signals the eventfd only when work is
 * queued on an empty list, and a run can leave work queued (work queued while
 * it runs: a fired timeout's cancellation of the futex wait, a wake racing
 * the timer). Work left queued when the eventfd is cleared would never signal
 * again, for this wait and every later one. So: the eventfd is cleared first,
 * then each run starts from the flag IORING_SQ_TASKRUN (which the kernel
 * clears as it starts a run and sets again when work is left or queued), and
 * the loop ends only when the flag is clear: any work queued after that finds
 * an empty list and signals. Should the flag stay set after FXI_URING_RUNS
 * runs, the eventfd is signalled here, so that the loop comes back. */
#define FXI_URING_RUNS 64
static void uring_settle(fx_async *w)
{
    struct fxi_async_uring *u = &w->uring;
    fxi_efd_clear(w->efd);
    for (int runs = 0; runs < FXI_URING_RUNS; runs++) {
        uring_flush(u);
        /* Acquire: pairs with the kernel's setting of the flag. */
        if (!(__atomic_load_n(u->ring.sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_TASKRUN))
            return;
    }
    fxi_efd_signal(w->efd);
}

/* Waits until every request has completed. Called only when each one will
 * complete promptly (the futex wait has ended or is being cancelled), so this
 * never waits for the word. False if the kernel refused to wait. */
static bool uring_drain(struct fxi_async_uring *u)
{
    uring_flush(u);
    while (u->inflight > 0) {
        long rc = uring_enter(&u->ring, 0, 1, IORING_ENTER_GETEVENTS);
        if (fxi_syscall_failed(rc) && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY && rc != -ETIME)
            return false;
        uring_reap(u);
    }
    return true;
}

/* How the futex wait ended, from its completion's result. */
static int uring_last(const struct fxi_async_uring *u, int canceled)
{
    if (u->futex_res == 0)
        return LAST_WOKEN;
    if (u->futex_res == -ECANCELED)
        return canceled;
    return LAST_CHANGED; /* -EAGAIN, or an error: look at the word again */
}

/* Sleeps 1 ms (CLOCK_MONOTONIC), errno kept and no cancellation point. The
 * timespec is the kernel's: 64-bit through clock_nanosleep_time64 on 32-bit
 * architectures (libc's struct timespec may have either width there), else
 * the native clock_nanosleep, whose old timespec has the kernel's long. */
static void uring_pause_1ms(void)
{
#if defined(SYS_clock_nanosleep_time64)
    struct __kernel_timespec t64 = {.tv_sec = 0, .tv_nsec = 1000000};
    if (fxi_syscall(SYS_clock_nanosleep_time64, CLOCK_MONOTONIC, 0, (long)(uintptr_t)&t64, 0, 0,
                    0) != -ENOSYS)
        return;
#endif
#if defined(SYS_clock_nanosleep)
    struct __kernel_old_timespec t = {.tv_sec = 0, .tv_nsec = 1000000};
    fxi_syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (long)(uintptr_t)&t, 0, 0, 0);
#endif
}

/* Submits an IORING_OP_ASYNC_CANCEL of the futex wait. A submission refused
 * for want of memory is retried for up to a second. */
static bool uring_submit_cancel(struct fxi_async_uring *u)
{
    for (int tries = 0; tries < 1000; tries++) {
        struct io_uring_sqe *sqe = uring_sqe(&u->ring);
        if (sqe == NULL)
            return false; /* cannot happen: at most 2 of 4 entries are in use */
        sqe->opcode = IORING_OP_ASYNC_CANCEL;
        sqe->addr = TAG_FUTEX;
        sqe->user_data = TAG_CANCEL;
        unsigned consumed;
        int r = uring_submit(&u->ring, &consumed);
        u->inflight += consumed;
        if (r == 0)
            return true;
        uring_pause_1ms();
    }
    return false;
}

/* The one error path: the kernel will not take a cancellation or will not
 * wait for a completion. Closes the ring, which cancels everything in flight
 * (the next arm opens a new one), and clears the eventfd. The caller assumes
 * the worst: a consumed wake. */
static int uring_give_up(fx_async *w)
{
    uring_close(&w->uring.ring);
    w->uring.inflight = 0;
    fxi_efd_clear(w->efd);
    return LAST_WOKEN;
}

/* Stops the wait in flight and reports how it ended (LAST_*). */
static int uring_stop(fx_async *w)
{
    struct fxi_async_uring *u = &w->uring;
    uring_flush(u);
    if ((!u->futex_done && !uring_submit_cancel(u)) || !uring_drain(u))
        return uring_give_up(w);
    uring_settle(w); /* nothing in flight: only stale signals remain */
    return uring_last(u, LAST_CANCELED);
}

static int uring_arm(fx_async *w, const struct fxi_sleep *s, int *failed_last)
{
    struct fxi_async_uring *u = &w->uring;
    if (u->ring.fd < 0) {
        /* The ring was given up after a failed cancellation: a new one. */
        int r = uring_backend_open(w);
        if (r != 0) {
            *failed_last = LAST_CANCELED;
            return r == ENOTSUP ? ENOMEM : r;
        }
    }
    if (uring_room(&u->ring) < 2) {
        /* Cannot happen: every request is reaped before the next arm. */
        *failed_last = LAST_CANCELED;
        return EAGAIN;
    }
    struct io_uring_sqe *sqe = uring_sqe(&u->ring);
    sqe->opcode = FXI_IORING_OP_FUTEX_WAIT;
    sqe->fd = (int32_t)FXI_FUTEX2_SIZE_U32; /* futex2 flags: 32 bits, shared */
    sqe->addr = (uint64_t)(uintptr_t)s->word;
    sqe->off = (uint32_t)s->expected;     /* addr2: the value */
    sqe->addr3 = FXI_FUTEX_BITSET_MATCH_ANY; /* the mask */
    sqe->user_data = TAG_FUTEX;
    if (s->has_until) {
        sqe->flags |= IOSQE_IO_LINK;
        u->ts.tv_sec = (long long)s->until.tv_sec;
        u->ts.tv_nsec = s->until.tv_nsec;
        struct io_uring_sqe *t = uring_sqe(&u->ring);
        t->opcode = IORING_OP_LINK_TIMEOUT;
        t->addr = (uint64_t)(uintptr_t)&u->ts;
        t->len = 1;
        t->timeout_flags = IORING_TIMEOUT_ABS; /* CLOCK_MONOTONIC by default */
        t->user_data = TAG_TIMEOUT;
    }
    u->futex_done = false;
    u->timeout_done = false;
    u->word = s->word;
    u->expected = s->expected;
    u->recheck_ns = s->recheck_ns;
    unsigned consumed;
    int r = uring_submit(&u->ring, &consumed);
    u->inflight += consumed;
    if (r == 0)
        return 0;
    *failed_last = consumed > 0 ? uring_stop(w) : LAST_CANCELED;
    return r == EBUSY ? EAGAIN : r;
}

/* The recheck bound of a mutex or counter wait passed (the linked timeout
 * fired before the deadline; nothing in flight): the back end's own recheck.
 * A word that still holds its value is waited on again until the next
 * recheck (or the deadline), and complete() sees EINPROGRESS with no step of
 * the kind; a changed word is CHANGED, for the kind to look at. */
static int uring_recheck(fx_async *w, int *last)
{
    struct fxi_async_uring *u = &w->uring;
    /* Relaxed: only chooses between re-arming and a step of the kind; the
     * kernel compares the value again, atomically with queueing the wait. */
    if (__atomic_load_n(u->word, __ATOMIC_RELAXED) != u->expected) {
        *last = LAST_CHANGED;
        return 0;
    }
    struct fxi_sleep s = {.word = u->word, .expected = u->expected, .has_until = true,
                         .recheck_ns = u->recheck_ns};
    bool own = fxi_async_next_recheck(u->recheck_ns, w->has_deadline, &w->deadline, &s.until);
    if (!own && fxi_deadline_passed(&w->deadline)) {
        w->own_bound = false;
        *last = LAST_TIMEDOUT; /* the kernel rejects a passed deadline */
        return 0;
    }
    w->own_bound = own;
    int failed_last = LAST_CANCELED;
    if (uring_arm(w, &s, &failed_last) == 0)
        return EINPROGRESS;
    /* Not re-armed: the kind steps (and its re-arm reports the error). A
     * wake consumed by a wait the failure stopped is passed on as WOKEN. */
    *last = failed_last == LAST_WOKEN ? LAST_WOKEN : LAST_CHANGED;
    return 0;
}

/* complete(): EINPROGRESS, or 0 with *last once the wait is over. */
static int uring_poll(fx_async *w, int *last)
{
    struct fxi_async_uring *u = &w->uring;
    uring_settle(w); /* work queued after it signals again */
    /* The linked timeout completes after the futex wait (-ECANCELED) or by
     * firing, which cancels the wait (or finds it woken): either way the
     * futex wait's completion is there or follows promptly, and is drained
     * now rather than costing the loop another readiness. */
    if (!u->futex_done && !u->timeout_done)
        return EINPROGRESS;
    /* The other completion follows promptly. */
    if (!uring_drain(u)) {
        int worst = uring_give_up(w);
        *last = u->futex_done ? uring_last(u, LAST_TIMEDOUT) : worst;
        return 0;
    }
    uring_settle(w); /* nothing in flight: only stale signals remain */
    *last = uring_last(u, LAST_TIMEDOUT);
    if (*last == LAST_TIMEDOUT && w->own_bound && u->recheck_ns > 0)
        return uring_recheck(w, last);
    return 0;
}

static void uring_backend_close(fx_async *w)
{
    uring_close(&w->uring.ring);
}

const struct fx_async_backend fxi_async_uring = {
    .open = uring_backend_open,
    .close = uring_backend_close,
    .arm = uring_arm,
    .poll = uring_poll,
    .stop = uring_stop,
};
