/*
 * src/internal/annotate_hb.h - happens-before hooks for primitives that are
 * not locks (semaphore, barrier, once, counter).
 *
 * A semaphore post, a barrier arrival, a finished initialiser or a counter
 * update publishes the caller's writes to the thread that later returns from
 * the wait (or loads the counter's value). The atomics of the library carry
 * that order, but a race detector does not see them: the release library is
 * not instrumented, and Helgrind and DRD do not understand atomic
 * instructions. These hooks state the order on the object's address: to
 * ThreadSanitizer as __tsan_release / __tsan_acquire, to Helgrind and DRD as
 * ANNOTATE_HAPPENS_BEFORE / _AFTER, whichever the program runs under (see
 * internal/annotate.h: found out at run time, one relaxed load and an
 * untaken branch when there is none).
 */
#ifndef FX_INTERNAL_ANNOTATE_HB_H
#define FX_INTERNAL_ANNOTATE_HB_H

#include "internal/annotate.h" /* FX_TSAN, fx_ann_on, fxi_ann_* */

#if defined(FX_TSAN)
#define fx_ann_happens_before(a) __tsan_release((void *)(a))
#define fx_ann_happens_after(a) __tsan_acquire((void *)(a))
#else
#define fx_ann_happens_before(a) \
    (fx_ann_on() ? fxi_ann_happens_before((const void *)(a)) : (void)0)
#define fx_ann_happens_after(a) \
    (fx_ann_on() ? fxi_ann_happens_after((const void *)(a)) : (void)0)
#endif

#endif /* FX_INTERNAL_ANNOTATE_HB_H */
