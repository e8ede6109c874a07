/*
 * src/internal/sleep.h - the waiting engine every primitive sleeps through
 * (src/sleep.c), above the futex layer (internal/futex.h).
 */
#ifndef FXI_INTERNAL_SLEEP_H
#define FXI_INTERNAL_SLEEP_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "futex.h"

/* For every library function whose frame a cancellation unwinds (those
 * between fxi_futex_sleep_cancel or a pthread_testcancel and the caller's own
 * frames, the one that pushed the library's cleanup handler included): no
 * AddressSanitizer redzones. glibc's unwinder reaches each cleanup handler
 * with an internal longjmp that AddressSanitizer does not see, so the
 * redzones of the frames it leaves stay poisoned, and the next calls, which
 * reuse that stack, are reported as overflows (a false report, which the
 * sanitizer's own hint attributes to custom unwinding). Those functions are
 * then not checked by AddressSanitizer; UndefinedBehaviorSanitizer and
 * ThreadSanitizer still see them. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FXI_CANCEL_FRAME_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(FXI_CANCEL_FRAME_ASAN)
#define FXI_CANCEL_FRAME __attribute__((no_sanitize_address))
#else
#define FXI_CANCEL_FRAME
#endif

/* The blocking sleep of every primitive (src/sleep.c, the waiting engine).
 *
 * In shared memory a single wake cannot be trusted: a waker can be killed
 * between publishing its change and its FUTEX_WAKE, and a woken sleeper can be
 * killed before it returns to user space, consuming the wake. So a sleeper's
 * word is looked at again now and then, and a sleeper whose word changed is
 * made to re-read it and take whatever the object now allows.
 *
 * A call's first sleep is bounded by its own recheck (period_ns); at that
 * recheck it asks whether its words are in memory no other process can
 * futex-wake (docs/design/futex.md, "Private memory sleeps untimed"). If
 * they surely are, it sleeps untimed from then on, as a pthread wait does.
 * Otherwise it joins the process's engine: one sleeping call of the process
 * looks at every other one's word each FXI_PROBE_NS, and they sleep
 * untimed. Any doubt keeps the look.
 *
 * Declare a struct fxi_recheck per blocking call, FXI_RECHECK_CALL, with
 * FXI_RECHECK_INIT_SCOPED(period_ns), and pass it to every fxi_futex_sleep of
 * that call. */

/* A call's place among the process's sleepers (src/sleep.c): in its call's
 * frame, listed in the engine while it sleeps untimed. */
struct fxi_sleeper {
    int32_t *word;
    uint32_t (*owner)(const int32_t *word); /* names a PROBED owner, or NULL */
    const int32_t *watch;                   /* another word to look at, or NULL */
    int32_t watch_value;                    /* ... and the value its caller saw */
    int32_t expected;
    uint32_t tell;   /* process-private futex word: moves when it is told */
    uint32_t state;  /* src/sleep.c's state table; 0 (OUT) outside the engine */
    uint32_t slot;   /* its entry in the engine while LISTED */
};
struct fxi_recheck {
    struct timespec tick; /* the next recheck; tv_nsec < 0 before the first sleep */
    int64_t period_ns;    /* the first recheck's period, > 0 */
    int woken;            /* set by each fxi_futex_sleep: 1 if a FUTEX_WAKE ended it */
    int scope;            /* FXI_SCOPE_*: what the first recheck found */
    /* Another word the call may end up sleeping on (a requeue target: the
     * cond's park and its mutex's word), or NULL: it must be private too. */
    const int32_t *also[2];
    /* A word whose change the caller must see although it does not sleep
     * on it (a waiting writer of fx_rwlock sleeps on writer_seq and decides
     * on the state word), and the value it last read; NULL: none. Set
     * before each sleep: the engine tells the call when either word moved. */
    const int32_t *watch;
    int32_t watch_value;
    struct fxi_sleeper me;
};
/* scope: not asked yet; every word of the call is surely in memory that no
 * other process can futex-wake (no recheck); shared, or not known (the
 * engine's look). */
enum { FXI_SCOPE_UNKNOWN = 0, FXI_SCOPE_PRIVATE = 1, FXI_SCOPE_SHARED = 2 };
/* The blocking waits of fx_mutex, fx_cond, fx_sem, fx_rwlock, fx_barrier and
 * fx_counter: their recheck is only for deaths in other processes. */
#define FXI_RECHECK_INIT_SCOPED(p) {.tick = {0, -1}, .period_ns = (p), .scope = FXI_SCOPE_UNKNOWN}

/* Gives up the call's place among the process's sleepers, if it still has
 * one (a cancellation's unwinding out of a sleep). Every struct fxi_recheck
 * is declared FXI_RECHECK_CALL, so this runs however the call ends. */
void fxi_recheck_end_slow(struct fxi_recheck *s);
static inline void fxi_recheck_end(struct fxi_recheck *s)
{
    /* Relaxed: only this thread moves its node to or from OUT. */
    if (__builtin_expect(__atomic_load_n(&s->me.state, __ATOMIC_RELAXED) != 0, 0))
        fxi_recheck_end_slow(s);
}
#define FXI_RECHECK_CALL __attribute__((cleanup(fxi_recheck_end)))

/* The first multiple of period_ns after now_ns (both CLOCK_MONOTONIC ns,
 * i.e. since boot): the recheck times of every sleeper with the same period,
 * in every process, fall on one grid, so the kernel serves their timers
 * together -- one timer interrupt for all instead of one each, which is what
 * keeps idle sleepers cheap. A sleep still lasts at most one period (the first
 * one of a call may be shorter). CLOCK_MONOTONIC is far from overflowing. */
static inline int64_t fxi_recheck_grid(int64_t now_ns, int64_t period_ns)
{
    return (now_ns / period_ns + 1) * period_ns;
}

/* The recheck period of the primitives that have no period of their own: a
 * sleeper whose wake was lost re-reads its word within this time. */
#define FXI_RECHECK_NS (500 * 1000000LL)

/* Sleeps while *word == expected, until woken, the caller's absolute
 * CLOCK_MONOTONIC deadline (NULL: none; tv_nsec already checked), or a
 * recheck or look that finds the word changed. Returns ETIMEDOUT only when
 * the caller's deadline has passed; 0 otherwise (woken, the word changed, a
 * signal, or a recheck is due): the caller re-reads its word and calls
 * again with the same s and deadline. s->woken tells a wake (1) from the
 * other reasons (0), for a caller whose word does not show everything a
 * wake means (fx_cond). */
int fxi_futex_sleep(int32_t *word, int32_t expected, const struct timespec *deadline,
                   struct fxi_recheck *s);

/* True once the first recheck of the call of s has found every word of the
 * call in memory that no other process can futex-wake: its sleeps have no
 * recheck from then on. A caller that still needs to look again at some
 * time of its own (the rwlock readers' stale-intent watch, whose other side,
 * a waiting writer's sleep, is counted rather than renewed) passes it as a
 * deadline. */
static inline int fxi_recheck_private(const struct fxi_recheck *s)
{
    return s->scope == FXI_SCOPE_PRIVATE;
}

/* fxi_futex_sleep as a cancellation point: asynchronous cancellation of the
 * calling thread is enabled around the sleep only (as glibc does around the
 * futex wait of pthread_cond_wait), so a deferred pthread_cancel that is
 * pending, or arrives while the thread sleeps, acts there. Only the waits
 * whose pthread counterparts are cancellation points use it (fx_cond and
 * fx_sem waits); their callers push a cleanup handler (pthread_cleanup_push)
 * that restores the object's invariants before the caller's handlers run.
 * The sleep itself touches no lock and no allocation, so it is safe to
 * cancel anywhere inside it. */
int fxi_futex_sleep_cancel(int32_t *word, int32_t expected, const struct timespec *deadline,
                          struct fxi_recheck *s);

/* A sleep on the word of an owner whose death only the liveness probe can
 * tell (fx_rmutex's and fx_once's PROBED owners), in the engine in any
 * memory: its prober probes owner(word), the identity word of the PROBED
 * owner the word names (0: none), at each look, once per owner, and tells
 * the sleepers of the words whose owner is dead.
 * Returns 0 (woken, the word changed, a signal, or told), ETIMEDOUT (the
 * absolute CLOCK_MONOTONIC deadline, NULL none, passed; its tv_nsec checked
 * already), or ENOSYS: nothing slept, the caller sleeps on its own schedule
 * (no futex_waitv or no wipe at fork). *judge: the owner was found dead;
 * the caller judges the value it reads. Not a cancellation point. */
#define FXI_PROBE_NS (250 * 1000000LL)
int fxi_futex_sleep_probed(int32_t *word, int32_t expected, uint32_t (*owner)(const int32_t *word),
                           const struct timespec *deadline, bool *judge);

#endif /* FXI_INTERNAL_SLEEP_H */
