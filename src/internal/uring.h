/*
 * src/internal/uring.h - a minimal io_uring ring, on the raw system calls.
 *
 * futexsync depends on libc and system calls only, so there is no liburing:
 * this header sets a ring up with io_uring_setup(2), maps its three regions
 * itself, and submits and reaps with io_uring_enter(2). It serves the
 * asynchronous waiters of src/async.c, which need a handful of entries.
 *
 * Debian 12's kernel headers (6.1) predate the futex operations of io_uring
 * (Linux 6.7): their opcode numbers and the futex2 flags are defined here.
 * Opcodes are a fixed ABI; the static assertion below checks that the
 * installed header numbers the operations before them as the kernel does.
 *
 * Every function returns 0 or a positive errno value (or, for counts, a
 * non-negative count or a negative errno) and leaves errno as it found it.
 */
#ifndef FX_INTERNAL_URING_H
#define FX_INTERNAL_URING_H

#include <errno.h>
#include <linux/io_uring.h>
#include <linux/time_types.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

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
 * knows: READ_MULTISHOT 49, WAITID 50, FUTEX_WAIT 51, FUTEX_WAKE 52. */
_Static_assert(IORING_OP_SENDMSG_ZC == 48, "io_uring opcode numbering");
#define FX_IORING_OP_FUTEX_WAIT 51
#define FX_IORING_OP_FUTEX_WAKE 52

/* futex2 flags (include/uapi/linux/futex.h, Linux 6.7), passed in sqe->fd.
 * futexsync never sets FX_FUTEX2_PRIVATE: its words may be in MAP_SHARED
 * memory and are woken by plain FUTEX_WAKE from any process, and a private
 * wait would be keyed differently from those wakes even in private memory. */
#define FX_FUTEX2_SIZE_U32 0x02u
#define FX_FUTEX2_PRIVATE  128u
#define FX_FUTEX_BITSET_MATCH_ANY 0xffffffffu

#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1u << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1u << 13)
#endif

struct fx_uring {
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

static inline void fx_uring_unmap(struct fx_uring *r)
{
    int saved = errno;
    if (r->sqe_map != NULL)
        munmap(r->sqe_map, r->sqe_map_len);
    if (r->cq_map != NULL && r->cq_map != r->sq_map)
        munmap(r->cq_map, r->cq_map_len);
    if (r->sq_map != NULL)
        munmap(r->sq_map, r->sq_map_len);
    r->sq_map = r->cq_map = r->sqe_map = NULL;
    errno = saved;
}

/* Closes the ring. The kernel cancels whatever is still in flight, but
 * asynchronously: callers that care about a wake a request may consume
 * cancel and reap their requests before closing. */
static inline void fx_uring_close(struct fx_uring *r)
{
    fx_uring_unmap(r);
    if (r->fd >= 0) {
        int saved = errno;
        close(r->fd);
        errno = saved;
    }
    r->fd = -1;
}

static inline void *fx_uring_map(int fd, size_t len, long long offset)
{
    int saved = errno;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, offset);
    errno = saved;
    return p == MAP_FAILED ? NULL : p;
}

/* Sets up a ring of `entries` submission entries with the setup `flags`.
 * Returns 0, or the positive errno of io_uring_setup (ENOSYS: no io_uring;
 * EPERM: disabled by sysctl or seccomp; EINVAL: a flag this kernel does not
 * know; EMFILE, ENOMEM...) or of mmap. */
static inline int fx_uring_open(struct fx_uring *r, unsigned entries, unsigned flags)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    p.flags = flags;
    long fd = fx_syscall(SYS_io_uring_setup, (long)entries, (long)(uintptr_t)&p, 0, 0, 0, 0);
    if (fd < 0)
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
    r->sq_map = fx_uring_map(r->fd, r->sq_map_len, (long long)IORING_OFF_SQ_RING);
    if (r->sq_map == NULL)
        goto fail;
    if (p.features & IORING_FEAT_SINGLE_MMAP) {
        r->cq_map = r->sq_map;
    } else {
        r->cq_map = fx_uring_map(r->fd, r->cq_map_len, (long long)IORING_OFF_CQ_RING);
        if (r->cq_map == NULL)
            goto fail;
    }
    r->sqe_map_len = p.sq_entries * sizeof(struct io_uring_sqe);
    r->sqe_map = fx_uring_map(r->fd, r->sqe_map_len, (long long)IORING_OFF_SQES);
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
    fx_uring_close(r);
    return ENOMEM;
}

/* True if the kernel implements every opcode of ops[0..n). */
static inline bool fx_uring_supports(struct fx_uring *r, const unsigned *ops, int n)
{
    /* struct io_uring_probe ends in a flexible array of 256 entries here;
     * uint64_t storage keeps it aligned. */
    uint64_t buf[(sizeof(struct io_uring_probe) + 256 * sizeof(struct io_uring_probe_op)) /
                 sizeof(uint64_t)];
    memset(buf, 0, sizeof buf);
    struct io_uring_probe *probe = (struct io_uring_probe *)(void *)buf;
    long rc = fx_syscall(SYS_io_uring_register, r->fd, IORING_REGISTER_PROBE,
                           (long)(uintptr_t)probe, 256, 0, 0);
    if (rc < 0)
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
static inline int fx_uring_register_eventfd(struct fx_uring *r, int efd)
{
    int32_t fd = efd;
    long rc = fx_syscall(SYS_io_uring_register, r->fd, IORING_REGISTER_EVENTFD,
                           (long)(uintptr_t)&fd, 1, 0, 0);
    return rc < 0 ? (int)-rc : 0;
}

/* How many submission entries are free. */
static inline unsigned fx_uring_room(struct fx_uring *r)
{
    /* Relaxed: the tail is ours; acquire on the head (see fx_uring_sqe). */
    uint32_t tail = __atomic_load_n(r->sq_tail, __ATOMIC_RELAXED) + r->sq_pending;
    uint32_t head = __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);
    return *r->sq_mask + 1 - (tail - head);
}

/* The next free submission entry, zeroed, or NULL when the ring is full. The
 * entry is published by fx_uring_submit(). */
static inline struct io_uring_sqe *fx_uring_sqe(struct fx_uring *r)
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
static inline long fx_uring_enter(struct fx_uring *r, unsigned to_submit, unsigned min_complete,
                                  unsigned flags)
{
    return fx_syscall(SYS_io_uring_enter, r->fd, (long)to_submit, (long)min_complete,
                        (long)flags, 0, 0);
}

/* Publishes the entries taken with fx_uring_sqe() and submits them. Returns
 * 0 when the kernel consumed every one. Otherwise returns the errno of
 * io_uring_enter (EAGAIN for a short count): *consumed entries are then in
 * flight (the caller cancels them) and the rest are withdrawn. */
static inline int fx_uring_submit(struct fx_uring *r, unsigned *consumed)
{
    unsigned n = r->sq_pending;
    uint32_t tail = __atomic_load_n(r->sq_tail, __ATOMIC_RELAXED);
    /* Release: the entries and the array slots are written before the kernel
     * can see the new tail. */
    __atomic_store_n(r->sq_tail, tail + n, __ATOMIC_RELEASE);
    r->sq_pending = 0;
    long rc;
    do
        rc = fx_uring_enter(r, n, 0, 0);
    while (rc == -EINTR);
    unsigned done = rc > 0 ? (unsigned)rc : 0;
    *consumed = done;
    if (done == n)
        return 0;
    /* Withdraw what the kernel did not consume: without SQPOLL it reads the
     * ring only inside io_uring_enter, so moving the tail back is safe. */
    __atomic_store_n(r->sq_tail, tail + done, __ATOMIC_RELEASE);
    return rc < 0 ? (int)-rc : EAGAIN;
}

/* The oldest unreaped completion, or NULL. */
static inline struct io_uring_cqe *fx_uring_peek(struct fx_uring *r)
{
    /* Relaxed: the head is ours. Acquire on the tail: the entry the kernel
     * wrote before advancing it is visible. */
    uint32_t head = __atomic_load_n(r->cq_head, __ATOMIC_RELAXED);
    uint32_t tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
    if (head == tail)
        return NULL;
    return &r->cqes[head & *r->cq_mask];
}

/* Gives the completion returned by fx_uring_peek() back to the kernel. */
static inline void fx_uring_seen(struct fx_uring *r)
{
    uint32_t head = __atomic_load_n(r->cq_head, __ATOMIC_RELAXED);
    /* Release: we have read the entry before the kernel may overwrite it. */
    __atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
}

/* True when the ring needs the submitter to enter the kernel: deferred work
 * is queued (IORING_SQ_TASKRUN, with IORING_SETUP_TASKRUN_FLAG) or completions
 * are waiting to be reaped. */
static inline bool fx_uring_has_work(struct fx_uring *r)
{
    /* Acquire: pairs with the kernel setting the flag before it signals. */
    if (__atomic_load_n(r->sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_TASKRUN)
        return true;
    return fx_uring_peek(r) != NULL;
}

#endif /* FX_INTERNAL_URING_H */
