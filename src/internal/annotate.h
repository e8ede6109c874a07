/*
 * src/internal/annotate.h - tells race detectors what futexsync locks are.
 *
 * Every lock and unlock is announced to the race detector the USER's program
 * runs under, with no special build of the library:
 *
 * - ThreadSanitizer: the library holds weak references to the entry points of
 *   <sanitizer/tsan_interface.h> (__tsan_mutex_pre_lock, ...). They resolve
 *   only when the TSan runtime is linked into the program (any program built
 *   with -fsanitize=thread), and stay null otherwise.
 * - Helgrind and DRD: Valgrind client requests (src/annotate.c issues them
 *   with the instruction sequence of <valgrind/valgrind.h>, which is not a
 *   dependency of the library), sent only when the program runs under
 *   Valgrind.
 *
 * Which of the two is there is found out once per process (src/annotate.c,
 * fx_ann_probe) and kept in fxi_ann_mode. A public call looks at that word
 * once (FX_ANN_CALL): one relaxed load and a branch that is not taken when no
 * detector is there; the announcements themselves are out of line
 * (fxi_ann_*, cold).
 *
 * The CMake option FUTEXSYNC_HELGRIND (off by default) adds what only
 * Helgrind and DRD need: the objects' own words marked as such
 * (fx_ann_own_words below), and checked unlock paths in fx_rmutex and
 * fx_rwlock (FX_RM_ANNOTATED, FX_RWLOCK_CHECK_FIRST).
 *
 * Built with -fsanitize=thread (the library's own TSan build, FX_TSAN), the
 * hooks call the TSan entry points directly, as the runtime is always there.
 *
 * Objects are never created or destroyed (all-zero is valid), so every TSan
 * call carries __tsan_mutex_linker_init: "no constructor, no destructor".
 */
#ifndef FX_INTERNAL_ANNOTATE_H
#define FX_INTERNAL_ANNOTATE_H

#include <stddef.h>

#if defined(__SANITIZE_THREAD__)
#define FX_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FX_TSAN 1
#endif
#endif

/* FX_ANN_CALL(f, args...): one look at the race-detector probe per public
 * call. f is an always-inline body whose last parameter `on` says whether to
 * run the hooks (it tests `if (on)` around each), and f_announced (defined
 * with FX_ANN_TWIN) its out-of-line, cold instance with on = 1. Without a
 * detector a call costs one load and an untaken branch and runs no hook, and
 * the fast path keeps the registers and stack frame of the plain body. */
#define FX_ANN_CALL(f, ...) (FX_ANN_ACTIVE ? f##_announced(__VA_ARGS__) : f(__VA_ARGS__, 0))
/* FX_ANN_TWIN(f, (params), (args)): defines f_announced for FX_ANN_CALL, e.g.
 * FX_ANN_TWIN(fx_mutex_try, (fx_mutex *m), (m)). FX_ANN_TWIN_WITH gives the
 * twin more attributes (FX_CANCEL_FRAME, when f is a cancellation point). */
#define FX_ANN_TWIN(f, params, args) FX_ANN_TWIN_WITH(, f, params, args)
#define FX_ANN_TWIN_WITH(attrs, f, params, args)                            \
    __attribute__((noinline, cold)) attrs static int f##_announced params   \
    {                                                                       \
        return f(FX_ANN_UNPAREN args, 1);                                   \
    }
#define FX_ANN_UNPAREN(...) __VA_ARGS__

/* Flags of an annotated operation. */
#define FX_ANN_EXCLUSIVE   0u /* an exclusive lock */
#define FX_ANN_SHARED      1u /* a reader's lock of a reader-writer lock */
#define FX_ANN_TRY         2u /* a try-lock (or timed lock: it may fail) */
#define FX_ANN_FAILED      4u /* post_lock only: the try failed */
#define FX_ANN_RECURSIVE   8u /* the object is re-entrant */

#if defined(FX_TSAN)
#include <sanitizer/tsan_interface.h>

/* FX_ANN_ACTIVE is true when the hooks below do something: an unlock must
 * then find out whether it will succeed before it announces the release,
 * which costs a load the other builds skip. */
#define FX_ANN_ACTIVE 1
/* Whether a race detector is there (the probe's answer): always, here. */
static inline int fxi_ann_detected(void)
{
    return 1;
}

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
/* TSan knows atomics: nothing to tell it about the objects' own words. */
#define fx_ann_own_words(p, size) ((void)(p), (void)(size))
#define fx_ann_own_words_once(p, size) ((void)(p), (void)(size))

#else /* the release library: whichever detector the program runs under */

/* fxi_ann_mode: FX_ANN_UNKNOWN until fx_ann_probe has run, then
 * FX_ANN_NONE, or FX_ANN_TSAN_ON and/or FX_ANN_VG_ON. */
#define FX_ANN_UNKNOWN 0
#define FX_ANN_NONE    1
#define FX_ANN_TSAN_ON 2
#define FX_ANN_VG_ON   4
/* Hidden: the library's own, read with one PC-relative load (no GOT
 * indirection), in a static or a shared build. */
#define FX_ANN_HIDDEN __attribute__((visibility("hidden")))
extern FX_ANN_HIDDEN int fxi_ann_mode;

/* True unless the program is known to run under no race detector (the first
 * call of a hook then probes). Relaxed: the word goes once from UNKNOWN to
 * the value every thread would compute, and publishes nothing else. */
static inline __attribute__((always_inline)) int fx_ann_on(void)
{
    return __builtin_expect(__atomic_load_n(&fxi_ann_mode, __ATOMIC_RELAXED) != FX_ANN_NONE, 0);
}

/* The announcements (src/annotate.c); each probes first if need be. */
#define FX_ANN_COLD __attribute__((cold)) FX_ANN_HIDDEN
FX_ANN_COLD void fxi_ann_pre_lock(const void *a, unsigned f);
FX_ANN_COLD void fxi_ann_post_lock(const void *a, unsigned f, int rec);
FX_ANN_COLD void fxi_ann_pre_unlock(const void *a, unsigned f);
FX_ANN_COLD void fxi_ann_post_unlock(const void *a, unsigned f);
FX_ANN_COLD void fxi_ann_own_words(const void *p, size_t size);
FX_ANN_COLD void fxi_ann_happens_before(const void *a);
FX_ANN_COLD void fxi_ann_happens_after(const void *a);
/* Whether a race detector is there, probing first if need be (for the fork
 * epoch of src/internal/identity.h, which carries the answer to the fast paths). */
FX_ANN_COLD int fxi_ann_detected(void);

#define FX_ANN_ACTIVE fx_ann_on()

/* Expressions (void), usable wherever the old no-op forms were. */
#define fx_ann_pre_lock(a, f) \
    (fx_ann_on() ? fxi_ann_pre_lock((const void *)(a), (f)) : (void)0)
#define fx_ann_post_lock(a, f, rec) \
    (fx_ann_on() ? fxi_ann_post_lock((const void *)(a), (f), (rec)) : (void)0)
#define fx_ann_pre_unlock(a, f) \
    (fx_ann_on() ? fxi_ann_pre_unlock((const void *)(a), (f)) : (void)0)
#define fx_ann_post_unlock(a, f) \
    (fx_ann_on() ? fxi_ann_post_unlock((const void *)(a), (f)) : (void)0)
/* Helgrind and DRD do not know atomic instructions. They ignore the accesses
 * to a word they know as a lock (or as a happens-before address), but may
 * report the library's atomics on an object's other words (an rwlock's
 * writer sequence, a semaphore's waiter count, a barrier's party count, a
 * condition variable's slots) as races between the threads using it. TSan
 * knows atomics and needs nothing here. Marking those words is a hook on
 * paths that have no other (fx_cond_signal with nobody waiting, a done
 * fx_once), where its check would slow them: it is compiled only with the
 * CMake option FUTEXSYNC_HELGRIND (-DFUTEXSYNC_HELGRIND). Helgrind is silent
 * on tests/race without it; DRD reports the words of fx_cond, fx_barrier
 * and fx_counter without it. */
/* The same for words set up once per process (not on any operation's
 * path), in every build: free enough to need no option. */
#define fx_ann_own_words_once(p, size) fxi_ann_own_words((const void *)(p), (size))
#if defined(FUTEXSYNC_HELGRIND)
#define fx_ann_own_words(p, size) \
    (fx_ann_on() ? fxi_ann_own_words((const void *)(p), (size)) : (void)0)
#else
#define fx_ann_own_words(p, size) ((void)(p), (void)(size))
#endif
#endif

#endif /* FX_INTERNAL_ANNOTATE_H */
