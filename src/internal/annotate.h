/*
 * src/internal/annotate.h - tells race detectors what futexsync locks are.
 *
 * One mechanism, in every build: the library finds out once per process
 * which race detector the program runs under, and each public call looks at
 * that answer once, with one load and one branch that is not taken when
 * there is none. The announcements themselves are out of line and cold
 * (src/annotate.c):
 *
 * - ThreadSanitizer: weak references to the entry points of
 *   <sanitizer/tsan_interface.h> (__tsan_mutex_pre_lock, ...). They resolve
 *   when the TSan runtime is linked into the program (a program built with
 *   -fsanitize=thread, or the library's own TSan build), null otherwise.
 * - Helgrind and DRD: Valgrind client requests (the instruction sequence of
 *   <valgrind/valgrind.h>, which is not a dependency of the library), sent
 *   only when the program runs under Valgrind.
 *
 * A public call looks once, in one of two shapes. Where the operation is
 * short, it branches to a cold copy of itself with the hooks around it
 * (src/mutex.c), so that the path without a detector keeps no register and
 * no stack frame for them:
 *
 *     if (fxi_ann_on())                   one relaxed load, untaken branch
 *         return mutex_acquire_announced(m, NULL, FXI_ANN_EXCLUSIVE);
 *     return mutex_acquire(m, NULL);
 *
 * Elsewhere it keeps the answer in a local (src/rwlock.c):
 *
 *     const bool on = fxi_ann_on();
 *     if (on) fxi_ann_pre_lock(l, FXI_ANN_SHARED);
 *     ...the operation...
 *     if (on) fxi_ann_post_lock(l, r ? FXI_ANN_SHARED | FXI_ANN_FAILED : FXI_ANN_SHARED, 0);
 *
 * A hook called without a detector does nothing (it looks at the answer
 * itself), so a path that runs only under one (an _announced copy) calls
 * the hooks without looking first.
 *
 * Objects are never created or destroyed (all-zero is valid), so every TSan
 * call carries __tsan_mutex_linker_init: "no constructor, no destructor".
 */
#ifndef FXI_INTERNAL_ANNOTATE_H
#define FXI_INTERNAL_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>

/* Flags of an announced operation. */
#define FXI_ANN_EXCLUSIVE   0u /* an exclusive lock */
#define FXI_ANN_SHARED      1u /* a reader's lock of a reader-writer lock */
#define FXI_ANN_TRY         2u /* a try-lock (or timed lock: it may fail) */
#define FXI_ANN_FAILED      4u /* post_lock only: the try failed */
#define FXI_ANN_RECURSIVE   8u /* the object is re-entrant */

/* fxi_ann_mode: FXI_ANN_UNKNOWN until the probe of src/annotate.c has run,
 * then FXI_ANN_NONE, or FXI_ANN_TSAN_ON and/or FXI_ANN_VG_ON. */
#define FXI_ANN_UNKNOWN 0
#define FXI_ANN_NONE    1
#define FXI_ANN_TSAN_ON 2
#define FXI_ANN_VG_ON   4
/* Hidden: the library's own, read with one PC-relative load (no GOT
 * indirection), in a static or a shared build. */
extern __attribute__((visibility("hidden"))) int fxi_ann_mode;

/* True unless the program is known to run under no race detector (the first
 * hook then probes). Relaxed: the word goes once from UNKNOWN to the value
 * every thread would compute, and publishes nothing else. */
static inline __attribute__((always_inline)) bool fxi_ann_on(void)
{
    return __builtin_expect(__atomic_load_n(&fxi_ann_mode, __ATOMIC_RELAXED) != FXI_ANN_NONE, 0);
}

/* The announcements (src/annotate.c); each probes first if need be. The lock
 * hooks: pre before the attempt, post after it (FXI_ANN_FAILED when it
 * failed); pre_unlock before the release, post_unlock after it. */
#define FXI_ANN_COLD __attribute__((cold, visibility("hidden")))
FXI_ANN_COLD void fxi_ann_pre_lock(const void *a, unsigned f);
FXI_ANN_COLD void fxi_ann_post_lock(const void *a, unsigned f, int rec);
FXI_ANN_COLD void fxi_ann_pre_unlock(const void *a, unsigned f);
FXI_ANN_COLD void fxi_ann_post_unlock(const void *a, unsigned f);
/* Happens-before on an address, for the primitives that are not locks
 * (semaphore, barrier, once, counter): a post, an arrival, a finished
 * initialiser or a counter update publishes the caller's writes to the
 * thread that later returns from the wait (or loads the value). The
 * library's atomics carry that order, but a detector does not see them: the
 * release library is not instrumented, and Helgrind and DRD do not know
 * atomic instructions. To TSan __tsan_release / __tsan_acquire, to Helgrind
 * and DRD ANNOTATE_HAPPENS_BEFORE / _AFTER. */
FXI_ANN_COLD void fxi_ann_happens_before(const void *a);
FXI_ANN_COLD void fxi_ann_happens_after(const void *a);
/* Helgrind and DRD do not know atomic instructions. They ignore the accesses
 * to a word they know as a lock (or as a happens-before address), but would
 * report the library's atomics on an object's other words (an rwlock's
 * writer sequence, a semaphore's waiter count, a barrier's party count, a
 * condition variable's slots) as races between the threads using it: this
 * marks [p, p + size) as the library's, for good. A call marks the words
 * before it writes them; a call that only reads them needs no mark (every
 * write of the library came after one, and the detector ignores the range
 * from then on), so fast paths that only look (fx_cond_signal with nobody
 * waiting, a done fx_once) pay nothing for it. TSan knows atomics and needs
 * nothing here. */
FXI_ANN_COLD void fxi_ann_own_words(const void *p, size_t size);
/* Whether a race detector is there, probing first if need be. */
FXI_ANN_COLD bool fxi_ann_detected(void);

#endif /* FXI_INTERNAL_ANNOTATE_H */
