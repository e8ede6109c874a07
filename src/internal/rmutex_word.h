/*
 * src/internal/rmutex_word.h - fx_rmutex's owner and depth slots: their
 * encoding (the state table of src/rmutex.c) and the predicates on a value,
 * for src/rmutex.c alone.
 */
#ifndef FXI_INTERNAL_RMUTEX_WORD_H
#define FXI_INTERNAL_RMUTEX_WORD_H

#include <linux/futex.h>
#include <stdbool.h>
#include <stdint.h>

#include "futexsync/rmutex.h"
#include "futexsync/layout.h"
#include "internal/identity.h"
#include "internal/probe_periods.h"
#include "internal/robust.h"

/* The owner word, as uint32_t (bit operations on the sign bit). */
#define WAITERS  0x80000000u
#define TID_MAX  ((uint32_t)FX_RMUTEX_TID_MAX)
#define ORPHANED ((uint32_t)FX_RMUTEX_ORPHANED)
#define NOTREC   ((uint32_t)FX_RMUTEX_NOTRECOVERABLE)
#define LOCALNS  ((uint32_t)FX_RMUTEX_LOCALNS)
#define PROBED   ((uint32_t)FX_RMUTEX_PROBED)
_Static_assert(LOCALNS == FXI_ID_LOCALNS && PROBED == FXI_ID_PROBED &&
                   TID_MAX == FXI_ID_TID_MASK,
               "the owner word holds the identity word of src/internal/identity.h");
_Static_assert(ORPHANED == FUTEX_OWNER_DIED && WAITERS == FUTEX_WAITERS &&
                   TID_MAX < FUTEX_TID_MASK,
               "the kernel's robust-list walk marks the owner word");

/* The depth slot. */
#define DEPTH_MASK ((int32_t)FX_RMUTEX_DEPTH_MASK)
#define DEPTH_MAX  ((int32_t)FX_RMUTEX_DEPTH_MAX)
#define INC        ((int32_t)FX_RMUTEX_INCONSISTENT)

#define FIRST_CHECK_NS ((int64_t)FXI_RMUTEX_FIRST_CHECK_MS * 1000000)
#define RECHECK_NS     ((int64_t)FXI_RMUTEX_RECHECK_MS * 1000000)
#define LONG_RECHECK_NS ((int64_t)FXI_RMUTEX_LONG_RECHECK_MS * 1000000)
#define LONG_AFTER_NS  ((int64_t)FXI_RMUTEX_LONG_AFTER_MS * 1000000)

/* The longest spin, in nanoseconds, as fx_mutex's (src/internal/spin.h). */
#ifndef FXI_RMUTEX_SPIN_NS
#define FXI_RMUTEX_SPIN_NS 4000
#endif

/* The owner TID of a HELD or HELD+W value, 0 for any other value. */
static inline uint32_t fxi_rmutex_held_tid(uint32_t v)
{
    uint32_t t = v & ~(WAITERS | LOCALNS | PROBED);
    if ((v & (LOCALNS | PROBED)) == LOCALNS)
        return 0; /* L without P */
    return t - 1u < TID_MAX ? t : 0;
}

static inline bool fxi_rmutex_valid(uint32_t v)
{
    return v == 0 || (v & ~WAITERS) == ORPHANED || v == NOTREC || fxi_rmutex_held_tid(v) != 0;
}

/* The robust list an acquisition or release by self uses: the thread's,
 * when its identity says the kernel reports its death (src/identity.c
 * learned both together), else none. */
static inline struct robust_list_head *fxi_rmutex_list(uint32_t self)
{
    return (self & PROBED) ? NULL : fxi_self.rl;
}

/* Puts m in list_op_pending, or takes it out (e NULL), when self has a list. */
static inline void fxi_rmutex_pending(uint32_t self, struct robust_list *e)
{
    struct robust_list_head *h = fxi_rmutex_list(self);
    if (h != NULL)
        fxi_rl_pending(h, e);
}

/* A NULL m, or one not aligned as its type (the link slots are pointers). */
static inline bool fxi_rmutex_bad(const fx_rmutex *m)
{
    return m == NULL || ((uintptr_t)m & (_Alignof(fx_rmutex) - 1)) != 0;
}

/* A depth slot the owner may hold: count 1..DEPTH_MAX, INC the only flag. */
static inline bool fxi_rmutex_depth_ok(int32_t d)
{
    return (d & ~(DEPTH_MASK | INC)) == 0 && (d & DEPTH_MASK) != 0;
}

static inline uint32_t *fxi_rmutex_word(fx_rmutex *m)
{
    return (uint32_t *)&m->owner;
}

/* The liveness watch of a PROBED owner (src/rmutex_watch.c) -------------- */

struct fxi_rmutex_waiter;
/* Whether the PROBED owner t of m is dead, for a non-waiting attempt: looked
 * at once, unless this thread found t alive on m within RECHECK. */
bool fxi_rmutex_dead_now(const fx_rmutex *m, uint32_t t);
/* Whether the PROBED owner t is dead, on waiter w's schedule: false until a
 * look is due (w->check_at), then the probe's answer; resets the schedule
 * when t is another owner than the one w watched. */
bool fxi_rmutex_watch(struct fxi_rmutex_waiter *w, uint32_t t);
/* For the process's prober (fxi_futex_sleep_probed): the identity word of
 * the PROBED owner an owner word names, or 0. */
uint32_t fxi_rmutex_word_owner(const int32_t *word);

#endif /* FXI_INTERNAL_RMUTEX_WORD_H */
