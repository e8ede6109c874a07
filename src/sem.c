/*
 * src/sem.c - the counting semaphore.
 *
 * Slots and their values (the design; keep it true)
 *
 *   slot     value            meaning
 *   value    0 .. MAX         tokens available; the futex word waiters sleep on
 *            MAX+1 .. 2^31-1  only for an instant: posts at MAX that are
 *                             about to take their increment back
 *            negative         never written by the library -> EINVAL
 *   waiters  0 .. threads     threads registered in the slow path of a wait
 *            negative         never written by the library -> EINVAL from
 *                             every operation but fx_sem_value, token or not
 *            INT32_MAX        never written either: W1 refuses to count
 *                             itself there (EINVAL) rather than wrap it
 *   (MAX = FX_SEM_VALUE_MAX = 2^30 - 1: the room above it absorbs any number
 *   of concurrent posts at the maximum without reaching the sign bit.)
 *
 *   step                                      by                 system call
 *   P1 value += 1 (fetch_add); if it was      post               none
 *      >= MAX: value -= 1, EOVERFLOW
 *   P2 if waiters != 0: wake one on value     post               FUTEX_WAKE(1)
 *   T  value v -> v-1 (CAS, only if v > 0)    trywait, wait      none
 *   W1 waiters += 1 (CAS, only if 0 <= n <    wait, slow path    none
 *      INT32_MAX; else EINVAL)
 *   W2 v := value; v > 0: T, then W5          wait
 *   W3 sleep while value == 0, at most        wait               FUTEX_WAIT(0)
 *      until the next recheck (FXI_RECHECK_NS)
 *   W4 woken, EAGAIN, EINTR, recheck: back    wait
 *      to W2; ETIMEDOUT: one last T, then W5
 *   W5 waiters -= 1                           wait               none
 *   C  cancelled in W3: W5, then wake one     wait's cleanup     FUTEX_WAKE(1)
 *      if a token is there and waiters != 0   handler
 *
 * Invariant (checked by models/sem.pml): while a waiter sleeps in W3 and a
 * token is there, some thread is responsible for taking it or waking a
 * sleeper (a poster between P1 and P2, a woken waiter before its W2), or a
 * recheck of every sleeper is due within FXI_RECHECK_NS. P1 and P2 are
 * seq_cst and W1 is followed by the kernel's full barrier before its compare
 * in W3 (the Dekker pattern), so a post sees the waiter or the waiter's
 * futex wait sees the token; W1 and W2 themselves are relaxed.
 *
 * Why it works (the post at the maximum, no lost wake-up, one wake per post,
 * deaths in the wake window, cancellation) and the spin policy:
 * docs/design/sem.md.
 */
#include "futexsync/sem.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal/annotate.h"
#include "internal/deadline.h"
#include "internal/fault.h"
#include "internal/futex.h"
#include "internal/sleep.h"
#include "internal/waiters.h"
#include "internal/spin.h"

#ifndef FXI_SEM_SPIN
#define FXI_SEM_SPIN 100   /* the longest ordinary spin, in pauses */
#endif
#ifndef FXI_SEM_PROBE
#define FXI_SEM_PROBE 1024 /* a probe's spin: it must outlast a wake-up */
#endif

/* This thread's spin budget (see the spin policy). */
static _Thread_local struct fxi_spin sem_spin = FXI_SPIN_INIT(FXI_SEM_SPIN);

int fx_sem_init(fx_sem *s, int32_t value)
{
    if (fxi_bad_slot(s) || value < 0 || value > FX_SEM_VALUE_MAX)
        return EINVAL;
    /* Relaxed: init happens before any sharing, like a memset. */
    __atomic_store_n(&s->value, value, __ATOMIC_RELAXED);
    __atomic_store_n(&s->waiters, 0, __ATOMIC_RELAXED);
    return 0;
}

/* 1 when the waiters slot holds a value the library never writes (negative).
 * Every operation but fx_sem_value checks it first, so a bad slot gives
 * EINVAL whether or not a token is there. Relaxed: a plausibility check of
 * the slot, not synchronization; the load touches the value's cache line, so
 * the uncontended paths pay no miss for it. */
static inline bool sem_waiters_bad(const fx_sem *s)
{
    return __atomic_load_n(&s->waiters, __ATOMIC_RELAXED) < 0;
}

/* T: takes a token if there is one. Returns 0, EAGAIN (value 0) or EINVAL. */
static inline int sem_take(fx_sem *s)
{
    /* Relaxed: only a guess for the CAS, which synchronizes. */
    int32_t v = __atomic_load_n(&s->value, __ATOMIC_RELAXED);
    for (;;) {
        if (v <= 0)
            return v == 0 ? EAGAIN : EINVAL;
        /* Acquire on success: the taker sees what the poster wrote before
         * P1. On failure v is reloaded (relaxed, only the next guess). */
        if (__atomic_compare_exchange_n(&s->value, &v, v - 1, true, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            return 0;
    }
}

/* P2's wake, out of line: the post's path that finds nobody waiting then
 * needs no stack frame. */
__attribute__((noinline, cold)) static int sem_post_wake(fx_sem *s)
{
    FXI_FAULT("sem.post.before_wake");
    fxi_futex_wake_raw(&s->value, 1, FXI_BITSET_ANY);
    return 0;
}

static inline __attribute__((always_inline)) int sem_post_body(fx_sem *s)
{
    /* P1, seq_cst: release for the taker, and the first half of the Dekker
     * pair with W1/W2 (see the table). A fetch_add rather than a load and a
     * CAS: one atomic operation, which never fails under contention.
     * @step sem.post.add */
    int32_t v = __atomic_fetch_add(&s->value, 1, __ATOMIC_SEQ_CST);
    /* @step sem.post.overflow */
    if (v < 0 || v >= FX_SEM_VALUE_MAX) {
        /* Relaxed: taking back our own increment publishes nothing. */
        __atomic_fetch_sub(&s->value, 1, __ATOMIC_RELAXED);
        return v < 0 ? EINVAL : EOVERFLOW;
    }
    /* P2, seq_cst: ordered after P1 in the total order. A garbage negative
     * count only costs a wake nobody needed. @step sem.post.wake */
    if (__atomic_load_n(&s->waiters, __ATOMIC_SEQ_CST) != 0)
        return sem_post_wake(s);
    return 0;
}

/* sem_post_body under a race detector. */
__attribute__((noinline, cold)) static int sem_post_announced(fx_sem *s)
{
    fxi_ann_own_words(s, sizeof *s);
    fxi_ann_happens_before(s);
    return sem_post_body(s);
}

int fx_sem_post(fx_sem *s)
{
    if (fxi_bad_slot(s) || sem_waiters_bad(s))
        return EINVAL;
    if (fxi_ann_on()) /* one look at the race-detector probe */
        return sem_post_announced(s);
    return sem_post_body(s);
}

/* Cancellation (fx_sem_wait and fx_sem_timedwait are cancellation points,
 * as sem_wait): the cleanup handler of a waiter cancelled in W3, after W1.
 * W5; then, since a post's wake may have picked this thread just before the
 * cancellation acted, a token still there is passed on to another counted
 * waiter (a wake it may not need costs one system call). Seq_cst: the count
 * and the value are read after our decrement, in the order of P1/P2. */
static void sem_cancelled(void *arg)
{
    fx_sem *s = arg;
    __atomic_fetch_sub(&s->waiters, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&s->value, __ATOMIC_SEQ_CST) > 0 &&
        __atomic_load_n(&s->waiters, __ATOMIC_SEQ_CST) != 0)
        fxi_futex_wake_raw(&s->value, 1, FXI_BITSET_ANY);
}

/* W2..W4 after W1: 0 (a token taken), ETIMEDOUT or EINVAL. */
FXI_CANCEL_FRAME static int sem_sleep(fx_sem *s, const struct timespec *deadline)
{
    struct fxi_recheck rc FXI_RECHECK_CALL = FXI_RECHECK_INIT_SCOPED(FXI_RECHECK_NS);
    for (;;) {
        /* W2, relaxed: it only chooses between T, whose CAS acquires the
         * token, and W3, whose compare the kernel makes after a full barrier
         * that follows W1 (the waiter's side of the Dekker pair, see
         * internal/waiters.h). @step sem.wait_slow.W2 */
        int32_t v = __atomic_load_n(&s->value, __ATOMIC_RELAXED);
        if (v < 0)
            return EINVAL;
        /* @step sem.wait_slow.take */
        if (v > 0) {
            /* T, acquire on success as in sem_take; a failed CAS means
             * another thread changed the value: look again. */
            if (__atomic_compare_exchange_n(&s->value, &v, v - 1, true, __ATOMIC_ACQUIRE,
                                            __ATOMIC_RELAXED))
                return 0;
            continue;
        }
        /* W3, a cancellation point (see sem_cancelled).
         * @step sem.wait_slow.W3 */
        int r = fxi_futex_sleep_cancel(&s->value, 0, deadline, &rc);
        /* @step sem.wait_slow.timed_out */
        if (r == ETIMEDOUT) {
            /* Not woken (a wake makes the futex return 0). A token posted
             * as the deadline passed still counts: POSIX lets a wait that
             * can succeed succeed. */
            r = sem_take(s);
            return r == EAGAIN ? ETIMEDOUT : r;
        }
        /* W4: woken, a token arrived before we slept, a signal, or the
         * recheck is due: look again with the same absolute deadline.
         * @step sem.wait_slow.W4 */
    }
}

/* The slow path of wait and timedwait: spin, then W1..W5. */
__attribute__((noinline, cold)) FXI_CANCEL_FRAME static int
sem_wait_slow(fx_sem *s, const struct timespec *deadline)
{
    /* A cancellation point when the wait would block (sem.h): a pending
     * cancellation acts here, before anything changes. Not on the path that
     * finds a token, which it would make slower (bench/README.md). */
    pthread_testcancel();
    /* @step sem.wait_slow.spin */
    int budget = fxi_spin_start(&sem_spin, FXI_SEM_PROBE);
    for (int i = 0; i < budget; i++) {
        /* Relaxed: a hint for when to try T, which synchronizes. */
        if (__atomic_load_n(&s->value, __ATOMIC_RELAXED) != 0) {
            int r = sem_take(s);
            if (r != EAGAIN) {
                fxi_spin_won(&sem_spin, FXI_SEM_SPIN);
                return r;
            }
        }
        fxi_cpu_relax();
    }
    fxi_spin_lost(&sem_spin, 0);
    if (sem_waiters_bad(s))
        return EINVAL;
    /* tv_nsec is checked only now that we would block (POSIX). */
    if (fxi_deadline_check(deadline))
        return EINVAL;

    /* W1, relaxed: the kernel's barrier before W3's compare orders it (the
     * Dekker pair with P2, internal/waiters.h); a count the increment would
     * wrap is refused, nothing changed. @step sem.wait_slow.W1 */
    if (fxi_waiters_enter(&s->waiters, __ATOMIC_RELAXED) < 0)
        return EINVAL;
    int r;
    pthread_cleanup_push(sem_cancelled, s);
    r = sem_sleep(s, deadline);
    pthread_cleanup_pop(0);
    /* W5, relaxed: the count only tells posters whether to call the kernel;
     * a poster that still sees us costs one wake nobody needs.
     * @step sem.wait_slow.W5 */
    __atomic_fetch_sub(&s->waiters, 1, __ATOMIC_RELAXED);
    return r;
}

/* wait (deadline NULL) and timedwait. */
static inline __attribute__((always_inline)) FXI_CANCEL_FRAME int
sem_wait_body(fx_sem *s, const struct timespec *deadline)
{
    /* @step sem.wait.take */
    int r = sem_take(s);
    if (r == EAGAIN)
        r = sem_wait_slow(s, deadline);
    return r;
}

/* wait, timedwait and trywait (nowait) under a race detector. */
__attribute__((noinline, cold)) FXI_CANCEL_FRAME static int
sem_wait_announced(fx_sem *s, const struct timespec *deadline, bool nowait)
{
    fxi_ann_own_words(s, sizeof *s);
    int r = nowait ? sem_take(s) : sem_wait_body(s, deadline);
    if (r == 0)
        fxi_ann_happens_after(s);
    return r;
}

FXI_CANCEL_FRAME int fx_sem_wait(fx_sem *s)
{
    if (fxi_bad_slot(s) || sem_waiters_bad(s))
        return EINVAL;
    if (fxi_ann_on()) /* one look at the race-detector probe */
        return sem_wait_announced(s, NULL, false);
    return sem_wait_body(s, NULL);
}

FXI_CANCEL_FRAME int fx_sem_timedwait(fx_sem *s, const struct timespec *deadline)
{
    if (fxi_bad_slot(s) || sem_waiters_bad(s))
        return EINVAL;
    if (fxi_ann_on()) /* one look at the race-detector probe */
        return sem_wait_announced(s, deadline, false);
    return sem_wait_body(s, deadline);
}

int fx_sem_trywait(fx_sem *s)
{
    if (fxi_bad_slot(s) || sem_waiters_bad(s))
        return EINVAL;
    if (fxi_ann_on()) /* one look at the race-detector probe */
        return sem_wait_announced(s, NULL, true);
    return sem_take(s);
}

int32_t fx_sem_value(const fx_sem *s)
{
    if (fxi_bad_slot(s))
        return -EINVAL;
    if (fxi_ann_on())
        fxi_ann_own_words(s, sizeof *s);
    /* Relaxed: a snapshot for monitoring; it orders nothing. */
    int32_t v = __atomic_load_n(&s->value, __ATOMIC_RELAXED);
    return v < 0 ? -EINVAL : v;
}
