/*
 * src/internal/annotate_hb.h - happens-before hooks for primitives that are
 * not locks (semaphore, barrier, once, counter).
 *
 * A semaphore post, a barrier arrival, a finished initialiser or a counter
 * update publishes the caller's writes to the thread that later returns from
 * the wait (or loads the counter's value). The atomics
 * of the library already carry that order, and ThreadSanitizer sees atomics;
 * Helgrind and DRD do not, so with -DFUTEXSYNC_HELGRIND these hooks tell them
 * (ANNOTATE_HAPPENS_BEFORE / _AFTER on the object's address). Under TSan they
 * become __tsan_release / __tsan_acquire, which state the same order
 * explicitly. In every other build they compile to nothing.
 */
#ifndef FX_INTERNAL_ANNOTATE_HB_H
#define FX_INTERNAL_ANNOTATE_HB_H

#include "internal/annotate.h" /* defines FX_TSAN under -fsanitize=thread */

#if defined(FX_TSAN)
#include <sanitizer/tsan_interface.h>
#define fx_ann_happens_before(a) __tsan_release((void *)(a))
#define fx_ann_happens_after(a) __tsan_acquire((void *)(a))
#elif defined(FUTEXSYNC_HELGRIND)
#include <valgrind/helgrind.h>
#define fx_ann_happens_before(a) ANNOTATE_HAPPENS_BEFORE(a)
#define fx_ann_happens_after(a) ANNOTATE_HAPPENS_AFTER(a)
#else
#define fx_ann_happens_before(a) ((void)(a))
#define fx_ann_happens_after(a) ((void)(a))
#endif

#endif /* FX_INTERNAL_ANNOTATE_HB_H */
