/*
 * src/internal/annotate.h - tells race detectors what futexsync locks are.
 *
 * Built with -fsanitize=thread, every lock and unlock is announced to
 * ThreadSanitizer through <sanitizer/tsan_interface.h>, so a user's TSan run
 * reports futexsync locks as mutexes (in race reports and lock-order checks)
 * rather than as bare atomics. With -DFUTEXSYNC_HELGRIND, the same hooks feed
 * Valgrind's Helgrind and DRD through <valgrind/helgrind.h>. In every other
 * build the hooks compile to nothing, so they cost nothing on the fast paths.
 *
 * Objects are never created or destroyed (all-zero is valid), so every TSan
 * call carries __tsan_mutex_linker_init: "no constructor, no destructor".
 */
#ifndef FX_INTERNAL_ANNOTATE_H
#define FX_INTERNAL_ANNOTATE_H

#if defined(__SANITIZE_THREAD__)
#define FX_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FX_TSAN 1
#endif
#endif

/* FX_ANN_ACTIVE is 1 when the hooks below do something (TSan or Helgrind
 * builds): an unlock must then find out whether it will succeed before it
 * announces the release, which costs the default build a load it can skip. */
#if defined(FX_TSAN) || defined(FUTEXSYNC_HELGRIND)
#define FX_ANN_ACTIVE 1
#else
#define FX_ANN_ACTIVE 0
#endif

/* Flags of an annotated operation. */
#define FX_ANN_EXCLUSIVE   0u /* an exclusive lock */
#define FX_ANN_SHARED      1u /* a reader's lock of a reader-writer lock */
#define FX_ANN_TRY         2u /* a try-lock (or timed lock: it may fail) */
#define FX_ANN_FAILED      4u /* post_lock only: the try failed */
#define FX_ANN_RECURSIVE   8u /* the object is re-entrant */

#if defined(FX_TSAN)
#include <sanitizer/tsan_interface.h>

static inline unsigned fx_ann_tsan_flags(unsigned f)
{
    unsigned t = __tsan_mutex_linker_init;
    if (f & FX_ANN_SHARED)
        t |= __tsan_mutex_read_lock;
    if (f & FX_ANN_TRY)
        t |= __tsan_mutex_try_lock;
    if (f & FX_ANN_FAILED)
        t |= __tsan_mutex_try_lock_failed;
    if (f & FX_ANN_RECURSIVE)
        t |= __tsan_mutex_write_reentrant;
    return t;
}
#define fx_ann_pre_lock(a, f) __tsan_mutex_pre_lock((void *)(a), fx_ann_tsan_flags(f))
#define fx_ann_post_lock(a, f, rec) \
    __tsan_mutex_post_lock((void *)(a), fx_ann_tsan_flags(f), (rec))
#define fx_ann_pre_unlock(a, f) \
    ((void)__tsan_mutex_pre_unlock((void *)(a), fx_ann_tsan_flags(f) & ~__tsan_mutex_linker_init))
#define fx_ann_post_unlock(a, f) \
    __tsan_mutex_post_unlock((void *)(a), fx_ann_tsan_flags(f) & ~__tsan_mutex_linker_init)

#elif defined(FUTEXSYNC_HELGRIND)
#include <valgrind/helgrind.h>

/* Helgrind models every futexsync lock as a reader-writer lock: exclusive
 * acquisitions are writes, shared ones reads. */
#define fx_ann_pre_lock(a, f) ((void)(a), (void)(f))
#define fx_ann_post_lock(a, f, rec)                                          \
    do {                                                                     \
        (void)(rec);                                                         \
        if (!((f) & FX_ANN_FAILED))                                          \
            ANNOTATE_RWLOCK_ACQUIRED((a), !((f) & FX_ANN_SHARED));           \
    } while (0)
#define fx_ann_pre_unlock(a, f) ANNOTATE_RWLOCK_RELEASED((a), !((f) & FX_ANN_SHARED))
#define fx_ann_post_unlock(a, f) ((void)(a), (void)(f))
/* Helgrind and DRD do not know atomic instructions. They ignore the accesses
 * to a word they know as a lock (or as a happens-before address), but would
 * report the library's atomics on an object's other words (an rwlock's
 * writer sequence, a semaphore's waiter count, a barrier's party count, a
 * condition variable's slots) as races between the threads using it. */
#define fx_ann_own_words(p, size) \
    ANNOTATE_BENIGN_RACE_SIZED((p), (size), "futexsync: the object's own atomic words")

#else
#define fx_ann_pre_lock(a, f) ((void)(a), (void)(f))
#define fx_ann_post_lock(a, f, rec) ((void)(a), (void)(f), (void)(rec))
#define fx_ann_pre_unlock(a, f) ((void)(a), (void)(f))
#define fx_ann_post_unlock(a, f) ((void)(a), (void)(f))
#endif

/* TSan knows atomics: nothing to tell it about the objects' own words. */
#if !defined(fx_ann_own_words)
#define fx_ann_own_words(p, size) ((void)(p), (void)(size))
#endif

#endif /* FX_INTERNAL_ANNOTATE_H */
