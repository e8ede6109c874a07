/*
 * src/internal/robust.h - fx_rmutex entries in the kernel's robust futex list.
 *
 * At a thread's exit and at its exec, the kernel walks the list the thread
 * registered with set_robust_list (libc's head, one per thread): for each
 * entry e it looks at the word at e + futex_offset and, when the word's low
 * 30 bits are the dying thread's TID, sets bit 30 (FUTEX_OWNER_DIED) and
 * wakes one sleeper if bit 31 (FUTEX_WAITERS) is set. It also looks at the
 * head's list_op_pending entry: the same for a word naming the TID, and a
 * wake of one sleeper for a word whose owner bits are 0 (a death between a
 * release and its wake, or between a wake and the woken thread's CAS).
 *
 * An fx_rmutex joins the list of the thread that owns it, an fx_once the
 * list of the thread that runs its initialiser: its last link slot is the
 * entry, placed so that entry + futex_offset is its word
 * (include/futexsync/rmutex.h, once.h). The head is libc's, so the entries keep
 * libc's discipline: glibc on 64-bit targets links entries both ways, each
 * `prev` 8 bytes before its `next` (the head's own prev too), every pointer
 * naming the `next` slot of its target, bit 0 of a `next` marking a PI
 * target (kept as found, never set by us); on 32-bit targets the list is
 * singly linked. A thread uses the list only when its head's futex_offset
 * is exactly the one of this layout (fxi_rl_usable): any other libc, a
 * thread without a head (a raw clone), or a kernel or emulator without the
 * calls (ENOSYS) leaves its fx_rmutex words to the liveness probe.
 *
 * Only the owning thread touches its list, and the kernel reads it only
 * when that thread has stopped running user code, so stores ordered by
 * compiler fences are enough (the kernel sees the thread's own program
 * order). An object's own link slots are relaxed atomics: its next owner
 * writes them after the word's CAS, ordered by the word, and a release
 * made in a cancellation's unwinding is one a race detector may not see
 * ordered (the slots order nothing themselves). An entry is linked after
 * the CAS that made the word name the thread and unlinked before the CAS
 * that releases it, each CAS covered by list_op_pending: an entry never stays
 * linked once its object may be freed by its next owner, and a death between
 * two steps is still told. An fx_rmutex acquisition leaves its entry in
 * list_op_pending as well as in the list (the kernel then takes it once, as
 * the pending one: the same mark and wake), so that the unlock that follows
 * finds it there and stores nothing before its unlink; any other operation
 * (ours, fx_once's, glibc's robust mutexes') replaces it, and the unlock puts
 * it back. A fork child takes list_op_pending NULL (src/identity.c's
 * pthread_atfork handler), as glibc's fork expects of its parent.
 */
#ifndef FXI_INTERNAL_ROBUST_H
#define FXI_INTERNAL_ROBUST_H

#include <linux/futex.h>
#include <stddef.h>
#include <stdint.h>

#include "futexsync/once.h"
#include "futexsync/rmutex.h"

_Static_assert(FX_ONCE_LINKS == FX_RMUTEX_LINKS &&
                   offsetof(fx_once, link[FX_ONCE_LINKS - 1]) - offsetof(fx_once, state) ==
                       offsetof(fx_rmutex, link[FX_RMUTEX_LINKS - 1]) - offsetof(fx_rmutex, owner),
               "fx_once and fx_rmutex join the robust list with one futex_offset");

/* An object's entry: the `next` slot of its link slots (fx_rmutex and
 * fx_once have the same geometry: include/futexsync/rmutex.h, once.h). */
#define FXI_RL_NEXT (FX_RMUTEX_LINKS - 1)
static inline struct robust_list *fxi_rl_entry_of(void **link)
{
    return (struct robust_list *)(void *)&link[FXI_RL_NEXT];
}
static inline struct robust_list *fxi_rl_entry(fx_rmutex *m)
{
    return fxi_rl_entry_of(m->link);
}

/* The futex_offset this layout needs from the thread's head. */
#define FXI_RL_OFFSET \
    ((long)offsetof(fx_rmutex, owner) - (long)offsetof(fx_rmutex, link[FXI_RL_NEXT]))

/* Whether a head may carry fx_rmutex entries (src/identity.c learns it once
 * per thread): glibc's, with this layout's futex_offset. */
static inline int fxi_rl_usable(const struct robust_list_head *h)
{
#if defined(__GLIBC__)
    return h != NULL && h->futex_offset == FXI_RL_OFFSET;
#else
    (void)h;
    return 0; /* another libc's discipline is not known: the probe decides */
#endif
}

/* Publishes `e` (an entry, or NULL) as the operation in progress. */
static inline void fxi_rl_pending(struct robust_list_head *h, struct robust_list *e)
{
    /* The kernel reads it only once this thread has stopped: the fences keep
     * it in program order around the word's CAS. */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    h->list_op_pending = e;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* fxi_rl_pending(h, e) unless e is there already: an unlock after its
 * lock (above). */
static inline void fxi_rl_pending_again(struct robust_list_head *h, struct robust_list *e)
{
    if (h->list_op_pending != e)
        fxi_rl_pending(h, e);
}

/* The `next` slot of entry e, and on 64-bit targets its `prev` slot. */
static inline uintptr_t *fxi_rl_next_of(uintptr_t e)
{
    return (uintptr_t *)(e & ~(uintptr_t)1);
}
#if FX_RMUTEX_LINKS == 2
static inline uintptr_t *fxi_rl_prev_of(uintptr_t e)
{
    return (uintptr_t *)((e & ~(uintptr_t)1) - sizeof(void *));
}
#endif

/* Links the object of link slots `link` at the head of the list (it is
 * not linked). */
static inline void fxi_rl_link_slots(struct robust_list_head *h, void **link)
{
    uintptr_t e = (uintptr_t)fxi_rl_entry_of(link);
    uintptr_t first = (uintptr_t)h->list.next;
#if FX_RMUTEX_LINKS == 2
    *fxi_rl_prev_of(first) = e;
    __atomic_store_n(&link[0], (void *)&h->list, __ATOMIC_RELAXED);
#endif
    __atomic_store_n(&link[FXI_RL_NEXT], (void *)first, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the entry is whole before it is reachable */
    h->list.next = (struct robust_list *)e;
}
static inline void fxi_rl_link(struct robust_list_head *h, fx_rmutex *m)
{
    fxi_rl_link_slots(h, m->link);
}

/* Unlinks the object of link slots `link` from h's list; nothing when it
 * is not linked (its `next` slot is NULL: an owner's unlink leaves it so,
 * and every link fills it). Both slots are cleared: a released object keeps
 * no pointer into a thread's list. */
static inline void fxi_rl_unlink_slots(struct robust_list_head *h, void **link)
{
    uintptr_t next = (uintptr_t)__atomic_load_n(&link[FXI_RL_NEXT], __ATOMIC_RELAXED);
    if (next == 0)
        return;
#if FX_RMUTEX_LINKS == 2
    (void)h;
    uintptr_t prev = (uintptr_t)__atomic_load_n(&link[0], __ATOMIC_RELAXED);
    *fxi_rl_prev_of(next) = prev;
    *fxi_rl_next_of(prev) = next;
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* unreachable before the slots go */
    __atomic_store_n(&link[0], NULL, __ATOMIC_RELAXED);
#else
    uintptr_t e = (uintptr_t)fxi_rl_entry_of(link);
    uintptr_t *p = (uintptr_t *)&h->list.next;
    while ((*p & ~(uintptr_t)1) != e && (*p & ~(uintptr_t)1) != (uintptr_t)&h->list)
        p = fxi_rl_next_of(*p);
    if ((*p & ~(uintptr_t)1) == e)
        *p = next;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
    __atomic_store_n(&link[FXI_RL_NEXT], NULL, __ATOMIC_RELAXED);
}
static inline void fxi_rl_unlink(struct robust_list_head *h, fx_rmutex *m)
{
    fxi_rl_unlink_slots(h, m->link);
}

#endif /* FXI_INTERNAL_ROBUST_H */
