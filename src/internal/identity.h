/*
 * src/internal/identity.h - who the calling thread is, for the owner-tracked
 * primitives (fx_rmutex, fx_once): its identity word (TID | LOCALNS) cached
 * per thread with the process's fork epoch, the records of the rmutexes it
 * holds and of the fx_once initialisers it runs, and whether another
 * identity is still alive (the liveness probe). One module (src/identity.c),
 * which resets the records itself whenever it fills the cache: a record is
 * never older than the cache that names its thread.
 *
 * fxi_tid() returns gettid() of the calling thread: the first call in a
 * thread makes the system call and caches the answer in an initial-exec TLS
 * variable, so owner-tracked primitives call it on their fast paths.
 *
 * Invariant (fork safety, from a child's first instruction whatever the order
 * of any pthread_atfork handlers): a cache entry carries the PID of the
 * process that filled it and is trusted only while that equals the process's
 * fork epoch, a word in a page the kernel zeroes in every fork child
 * (MADV_WIPEONFORK, proven once per process: src/process.c). Where the
 * advice fails (Linux before 4.14, a page larger than FXI_TID_PAGE), the wipe
 * is not proven, or a race detector runs, nothing is cached: every fxi_tid()
 * makes the system call, so a good cache also means "no detector".
 *
 * The limits (vfork, a reused PID or TID, PID namespaces, dlopen and the
 * initial-exec TLS): docs/reliability.md (classes 1 and 2) and
 * docs/design/rmutex.md, "Identity of the caller".
 */
#ifndef FXI_INTERNAL_IDENTITY_H
#define FXI_INTERNAL_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "process.h" /* by its own directory: tests include this header by path */

struct fx_rmutex;

/* The records of a thread, each for the identity `tid` it was filled for (a
 * record for another identity counts as empty: where no cache can be kept
 * every call is slow and the identity decides, and a fork child inherits
 * its parent thread's records). */
#define FXI_HELD_MAX 8 /* rmutexes recorded; beyond them only counted */
#define FXI_ONCE_MAX 8 /* nested initialisers recorded; deeper ones counted */
struct robust_list_head;
struct fxi_self {
    /* The cache: epoch << 32 | identity word (the epoch below: the PID);
     * UINT64_MAX until the thread's first fxi_id(). */
    uint64_t cache;
    /* The thread's robust futex list when fx_rmutex may join it
     * (src/internal/robust.h), else NULL; learned for the TID rl_tid. */
    struct robust_list_head *rl;
    uint32_t rl_tid;
    struct {                      /* the rmutexes this thread holds (outermost) */
        uint32_t tid;             /* the identity the record is for */
        uint32_t k;               /* rmutexes recorded in more[0..k) */
        uint32_t extra;           /* held beyond the FXI_HELD_MAX recorded */
        struct fx_rmutex *first;  /* one recorded rmutex, or NULL: the common case */
        struct fx_rmutex *more[FXI_HELD_MAX - 1];
    } held;
    struct {                      /* the fx_once initialisers this thread runs */
        uint32_t tid;
        uint32_t n;               /* running (nested), the first FXI_ONCE_MAX recorded */
        const void *o[FXI_ONCE_MAX];
    } once;
};
extern _Thread_local struct fxi_self fxi_self __attribute__((tls_model("initial-exec")));

/* The identity word of a thread, as fx_rmutex and fx_once write it:
 * its TID (bits 0-21) alone when the thread has a robust list fx_rmutex can
 * join (fxi_self.rl: the kernel reports its death), else the TID |
 * FXI_ID_PROBED (bit 27) | FXI_ID_LOCALNS (bit 28) unless its process proved
 * that it runs in the initial PID namespace (then a TID names the same task
 * for every process that proved it too). The cache's low half holds it, so
 * the fast paths' CAS costs nothing more. fx_once writes the same word. */
#define FXI_ID_TID_MASK 0x003fffffu
#define FXI_ID_LOCALNS  0x10000000u
#define FXI_ID_PROBED   0x08000000u

/* Fills the cache (setting the epoch page up first) and, when the cache can
 * be kept, empties the thread's records for the identity; returns the
 * identity word. Where nothing can be cached (no proven MADV_WIPEONFORK) the
 * namespace is still learned once per process, kept with the PID that
 * learned it (a fork child, whose PID differs, learns its own), so a dead
 * owner is recognised there as anywhere. Limit: a child in a new PID
 * namespace whose PID there equals the learner's (the learner the initial
 * namespace's init, or a dead ancestor whose PID was reused, the processes
 * in between never having called fxi_tid) takes the learner's answer. */
uint32_t fxi_tid_slow(void);

/* The calling thread's identity word (TID | FXI_ID_LOCALNS) in *self and
 * true, with one load of the cache and one of the epoch, when the cache is
 * good: the fast paths of fx_rmutex then also trust the record of held
 * rmutexes, and know that no race detector is there. False otherwise (*self
 * then means nothing: call fxi_tid()). */
static inline __attribute__((always_inline)) bool fxi_tid_plain(uint32_t *self)
{
    uint64_t c = fxi_self.cache;
    /* Relaxed: as in fxi_id. */
    uint32_t epoch = (uint32_t)__atomic_load_n(&fxi_tid_epoch[0], __ATOMIC_RELAXED);
    *self = (uint32_t)c;
    return (uint32_t)(c >> 32) == epoch;
}

/* The calling thread's identity word (above). No system call after the first. */
static inline uint32_t fxi_id(void)
{
    uint64_t c = fxi_self.cache;
    /* Relaxed: the epoch guards only this thread's own cache (identity.c). */
    int32_t epoch = __atomic_load_n(&fxi_tid_epoch[0], __ATOMIC_RELAXED);
    return __builtin_expect((int32_t)(c >> 32) == epoch, 1) ? (uint32_t)c : fxi_tid_slow();
}

/* The calling thread's kernel TID, > 0. No system call after the first. */
static inline pid_t fxi_tid(void)
{
    return (pid_t)(fxi_id() & FXI_ID_TID_MASK);
}

/* The probe of an owner's identity word (an fx_rmutex PROBED word, an
 * fx_once word) by the calling process: UNKNOWN unless both the owner and
 * the caller's process proved they run in the initial PID namespace (ESRCH
 * is relative to the caller's namespace, and a TID written in another names
 * nothing, or another task, here); else fxi_tid_probe of the TID. */
int fxi_id_probe(uint32_t owner);

/* Whether a TID in the owner's identity word names the same task for the
 * calling process: both proved they run in the initial PID namespace. */
bool fxi_id_comparable(uint32_t owner);

/* The record of held rmutexes ------------------------------------------------
 * The owner word names its owner by identity only, and a TID is reused once
 * its thread is gone: a new thread whose TID equals a dead owner's finds its
 * own identity in the word. The record tells it apart from the real owner:
 * the word names us AND we recorded the acquisition. While fxi_tid_plain
 * says the cache is good, the record is this thread's (fxi_tid_slow emptied
 * it for the identity it cached), so fx_rmutex's fast paths use
 * fxi_self.held.first without looking at held.tid. */

/* Whether the record of `self` says it holds m: 1 yes, 0 no, -1 cannot tell
 * (more held than recorded, m not among the recorded). */
int fxi_held_has(const struct fx_rmutex *m, uint32_t self);
/* Records an outermost acquisition of m by self (nothing when recorded
 * already: fx_rmutex_recover took m from us, live). */
void fxi_held_add(struct fx_rmutex *m, uint32_t self);
/* Forgets the outermost acquisition of m by self (final unlock). */
void fxi_held_del(const struct fx_rmutex *m, uint32_t self);
/* Empties the record, for self. */
void fxi_held_reset(uint32_t self);
/* Under a race detector: at this thread's exit, announces the release of
 * the rmutexes it still records (the detector cannot see the death). */
void fxi_held_announce_exit(void);

/* The record of running fx_once initialisers ------------------------------- */

/* Whether `me` runs o's initialiser. When more are running than are
 * recorded, an identity match is taken as yes (EDEADLK, never a second run). */
bool fxi_once_inside(const void *o, uint32_t me);
/* Enters o's initialiser; returns the depth to give fxi_once_leave. */
uint32_t fxi_once_enter(const void *o, uint32_t me);
/* Leaves the initialiser entered at `depth`. */
void fxi_once_leave(uint32_t depth);
/* Leaves the innermost initialiser (its thread exits or unwinds out of it). */
void fxi_once_abandon(void);

#endif /* FXI_INTERNAL_IDENTITY_H */
