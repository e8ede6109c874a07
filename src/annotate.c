/*
 * src/annotate.c - the race-detector announcements (see internal/annotate.h):
 * ThreadSanitizer through weak references to its interface, Helgrind and DRD
 * through Valgrind client requests.
 *
 * fxi_ann_mode, one word per process:
 *
 *   value                        meaning                      set by
 *   FXI_ANN_UNKNOWN (0)           not probed yet               (static init)
 *   FXI_ANN_NONE (1)              no detector: hooks skipped   ann_probe
 *   FXI_ANN_TSAN_ON | FXI_ANN_VG_ON  the detectors found        ann_probe
 *
 *   UNKNOWN -> NONE or TSAN_ON|VG_ON (any combination but 0), once; never
 *   changes after that.
 *
 * Invariant: a value other than UNKNOWN is what ann_probe computes in
 * any thread of the process (the TSan runtime is linked in or not; the
 * process runs under Valgrind from its first instruction or not), so two
 * threads probing at once store the same value.
 *
 * How the race tests use it: docs/verification.md.
 */
#include "internal/annotate.h"

#include <stddef.h>

__attribute__((visibility("hidden"))) int fxi_ann_mode = FXI_ANN_UNKNOWN;

/* ThreadSanitizer ------------------------------------------------------------
 * The entry points of <sanitizer/tsan_interface.h> (GCC's and LLVM's are the
 * same), declared weak: null unless the TSan runtime is in the program. */
extern void __tsan_mutex_pre_lock(void *addr, unsigned flags) __attribute__((weak));
extern void __tsan_mutex_post_lock(void *addr, unsigned flags, int recursion)
    __attribute__((weak));
extern int __tsan_mutex_pre_unlock(void *addr, unsigned flags) __attribute__((weak));
extern void __tsan_mutex_post_unlock(void *addr, unsigned flags) __attribute__((weak));
extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void __tsan_release(void *addr) __attribute__((weak));

/* The flags of tsan_interface.h that the library uses. */
#define TSAN_LINKER_INIT     (1u << 0) /* __tsan_mutex_linker_init */
#define TSAN_WRITE_REENTRANT (1u << 1) /* __tsan_mutex_write_reentrant */
#define TSAN_READ_LOCK       (1u << 3) /* __tsan_mutex_read_lock */
#define TSAN_TRY_LOCK        (1u << 4) /* __tsan_mutex_try_lock */
#define TSAN_TRY_LOCK_FAILED (1u << 5) /* __tsan_mutex_try_lock_failed */

static unsigned tsan_flags(unsigned f)
{
    unsigned t = TSAN_LINKER_INIT;
    if (f & FXI_ANN_SHARED)
        t |= TSAN_READ_LOCK;
    if (f & FXI_ANN_TRY)
        t |= TSAN_TRY_LOCK;
    if (f & FXI_ANN_FAILED)
        t |= TSAN_TRY_LOCK_FAILED;
    if (f & FXI_ANN_RECURSIVE)
        t |= TSAN_WRITE_REENTRANT;
    return t;
}

static int tsan_linked(void)
{
    return __tsan_mutex_pre_lock != NULL && __tsan_mutex_post_lock != NULL &&
           __tsan_mutex_pre_unlock != NULL && __tsan_mutex_post_unlock != NULL &&
           __tsan_acquire != NULL && __tsan_release != NULL;
}

/* Valgrind --------------------------------------------------------------------
 * A client request is a marker sequence of instructions that does nothing on
 * a real CPU and that Valgrind's JIT recognises (the sequences below are
 * those of <valgrind/valgrind.h>, VALGRIND_DO_CLIENT_REQUEST_EXPR). The
 * arguments are passed in memory; the result is `dflt` when not under
 * Valgrind. Other architectures: no request, Helgrind and DRD see atomics
 * only. */
#define VG_RUNNING_ON_VALGRIND 0x1001u   /* VG_USERREQ__RUNNING_ON_VALGRIND */
/* helgrind.h: VG_USERREQ_TOOL_BASE('H','G') + 256 + index in its enum. */
#define VG_HG_RWLOCK_ACQUIRED  0x48470111u /* void *lock, long is_w */
#define VG_HG_RWLOCK_RELEASED  0x48470112u /* void *lock */
#define VG_HG_USERSO_SEND_PRE  0x48470121u /* ANNOTATE_HAPPENS_BEFORE(tag) */
#define VG_HG_USERSO_RECV_POST 0x48470122u /* ANNOTATE_HAPPENS_AFTER(tag) */
#define VG_HG_ARANGE_UNTRACKED 0x48470127u /* VALGRIND_HG_DISABLE_CHECKING */

static unsigned long vg_request(unsigned long dflt, unsigned long req, unsigned long a1,
                                   unsigned long a2)
{
    volatile unsigned long args[6] = {req, a1, a2, 0, 0, 0};
    unsigned long result = dflt;
#if defined(__x86_64__)
    __asm__ volatile("rolq $3,  %%rdi ; rolq $13, %%rdi\n\t"
                     "rolq $61, %%rdi ; rolq $51, %%rdi\n\t"
                     "xchgq %%rbx,%%rbx"
                     : "=d"(result)
                     : "a"(&args[0]), "0"(dflt)
                     : "cc", "memory");
#elif defined(__aarch64__)
    __asm__ volatile("mov x3, %1\n\t"
                     "mov x4, %2\n\t"
                     "ror x12, x12, #3  ;  ror x12, x12, #13 \n\t"
                     "ror x12, x12, #51 ;  ror x12, x12, #61 \n\t"
                     "orr x10, x10, x10\n\t"
                     "mov %0, x3"
                     : "=r"(result)
                     : "r"(dflt), "r"(&args[0])
                     : "cc", "memory", "x3", "x4");
#else
    (void)args;
#endif
    return result;
}

/* The probe and the announcements ------------------------------------------ */

static int ann_probe(void)
{
    int m = 0;
    if (tsan_linked())
        m |= FXI_ANN_TSAN_ON;
    if (vg_request(0, VG_RUNNING_ON_VALGRIND, 0, 0) != 0) {
        m |= FXI_ANN_VG_ON;
        /* Helgrind and DRD do not know atomics either: this word's accesses
         * from several threads are ours, not the program's races. */
        vg_request(0, VG_HG_ARANGE_UNTRACKED, (unsigned long)&fxi_ann_mode,
                      sizeof fxi_ann_mode);
    }
    if (m == 0)
        m = FXI_ANN_NONE;
    /* Relaxed: see fxi_ann_on; every thread stores the same value. */
    __atomic_store_n(&fxi_ann_mode, m, __ATOMIC_RELAXED);
    return m;
}

static int ann_mode(void)
{
    /* Relaxed: as in fxi_ann_on. */
    int m = __atomic_load_n(&fxi_ann_mode, __ATOMIC_RELAXED);
    return m != FXI_ANN_UNKNOWN ? m : ann_probe();
}

bool fxi_ann_detected(void)
{
    return ann_mode() != FXI_ANN_NONE;
}

void fxi_ann_pre_lock(const void *a, unsigned f)
{
    if (ann_mode() & FXI_ANN_TSAN_ON)
        __tsan_mutex_pre_lock((void *)a, tsan_flags(f));
}

/* Helgrind models every futexsync lock as a reader-writer lock: exclusive
 * acquisitions are writes, shared ones reads. */
void fxi_ann_post_lock(const void *a, unsigned f, int rec)
{
    int m = ann_mode();
    if (m & FXI_ANN_TSAN_ON)
        __tsan_mutex_post_lock((void *)a, tsan_flags(f), rec);
    if ((m & FXI_ANN_VG_ON) && !(f & FXI_ANN_FAILED))
        vg_request(0, VG_HG_RWLOCK_ACQUIRED, (unsigned long)a, !(f & FXI_ANN_SHARED));
}

void fxi_ann_pre_unlock(const void *a, unsigned f)
{
    int m = ann_mode();
    if (m & FXI_ANN_TSAN_ON)
        (void)__tsan_mutex_pre_unlock((void *)a, tsan_flags(f) & ~TSAN_LINKER_INIT);
    if (m & FXI_ANN_VG_ON)
        vg_request(0, VG_HG_RWLOCK_RELEASED, (unsigned long)a, 0);
}

void fxi_ann_post_unlock(const void *a, unsigned f)
{
    if (ann_mode() & FXI_ANN_TSAN_ON)
        __tsan_mutex_post_unlock((void *)a, tsan_flags(f) & ~TSAN_LINKER_INIT);
}

void fxi_ann_own_words(const void *p, size_t size)
{
    if (ann_mode() & FXI_ANN_VG_ON)
        vg_request(0, VG_HG_ARANGE_UNTRACKED, (unsigned long)p, (unsigned long)size);
}

void fxi_ann_happens_before(const void *a)
{
    int m = ann_mode();
    if (m & FXI_ANN_TSAN_ON)
        __tsan_release((void *)a);
    if (m & FXI_ANN_VG_ON)
        vg_request(0, VG_HG_USERSO_SEND_PRE, (unsigned long)a, 0);
}

void fxi_ann_happens_after(const void *a)
{
    int m = ann_mode();
    if (m & FXI_ANN_TSAN_ON)
        __tsan_acquire((void *)a);
    if (m & FXI_ANN_VG_ON)
        vg_request(0, VG_HG_USERSO_RECV_POST, (unsigned long)a, 0);
}
