/*
 * src/sleep.c - the blocking sleep of every primitive (fxi_futex_sleep):
 * bounded by a recheck where a death in another process can lose a wake,
 * unbounded where none can, and in shared memory paid for by one sleeper of
 * each word per process, not by every sleeper.
 *
 * Designation: the sleepers of one word, among this process's threads, once
 * their first recheck found the word shared (or their call rechecks in every
 * memory, FX_RECHECK_INIT):
 *
 *   state of a word's entry      event                       next state
 *   (designated, untimed)
 *   free                         a call comes to sleep       (1, 0): it is
 *                                                              the designated
 *   (1, n)                       another call comes          (1, n+1): it
 *                                                              sleeps untimed
 *   (1, n)                       the designated call ends    (0, n); if n > 0
 *                                                              handoff += 1,
 *                                                              wake one on it;
 *                                                              free if n = 0
 *   (d, n+1)                     an untimed sleep returns    (1, n) if d = 0
 *                                  (woken, hand-off, word      (it takes the
 *                                  changed, signal, its        role), else
 *                                  deadline)                   (1, n)
 *   (d, n+1)                     an untimed sleeper is       (d, n); if d = 0
 *                                  cancelled                   and n > 0 hand
 *                                                              off as above
 *   (1, n), n > 0                the designated one's        handoff += 1,
 *                                  recheck finds the word      wake all on it:
 *                                  not the value the n slept   each re-reads
 *                                  on (or they slept on        its word as at
 *                                  different values)           a recheck
 *
 * The designated call sleeps bounded by its recheck, as every sleeper did
 * before (its tick), and keeps the role across its sleeps until it returns.
 * An untimed sleeper waits on two words at once (futex_waitv): the object's
 * word, and the entry's process-private hand-off word with the value it read
 * when it registered. So a hand-off reaches an untimed sleeper whether it is
 * asleep (the wake), on its way to sleep (the hand-off word changed: EAGAIN)
 * or on its way back (it finds the role free), and it reaches only this
 * process's sleepers of this word.
 *
 * Invariant: while an entry counts untimed sleepers, it has a designated call
 * or a hand-off in flight that one of them will take; and at each recheck
 * of the designated call, every untimed sleeper whose own recheck would
 * have found its word changed is woken to re-read it. So an untimed sleeper
 * misses only rechecks that would have found nothing, a wake lost to a
 * death in another process still costs at most one recheck period, and an
 * idle object costs one sleeper's rechecks per process, whatever the number
 * of sleepers. Threads of one process die together, so an
 * entry never outlives its designated call but through a fork, and the
 * table lives in a page the kernel hands a fork child zeroed
 * (MADV_WIPEONFORK, proven once per process by src/identity.c). Where that
 * proof, futex_waitv (Linux 5.16) or a free entry is missing, every sleeper
 * rechecks, as each did before. docs/design/futex.md, "Shared memory pays
 * per object", tells the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "internal/annotate.h"
#include "internal/deadline.h"
#include "internal/fault.h"
#include "internal/futex.h"
#include "internal/identity.h"
#include "internal/syscall.h"

/* The sleepers of one word in this process. */
struct fxi_watch {
    const int32_t *word; /* NULL: free */
    int32_t untimed;     /* sleepers registered untimed */
    int32_t designated;  /* 1 while a call holds the word's recheck */
    uint32_t handoff;    /* process-private futex word: moves when the role falls free */
    int32_t slept_on;    /* the value the untimed sleepers slept on, when alike */
    int32_t alike;       /* 0 none registered since the last recheck, 1 all
                          * on slept_on, 2 on different values */
};

#define FX_WATCHES ((FXI_TID_PAGE - 64) / sizeof(struct fxi_watch))

/* The table, alone in its page(s) so that the whole of it, lock included,
 * is wiped at fork: the type is page-aligned, so its size is whole pages and
 * nothing else shares them (the kernel wipes whole pages). */
static struct __attribute__((aligned(FXI_TID_PAGE))) {
    uint32_t lock; /* 0 free, 1 held, 2 held and someone sleeps on it */
    struct fxi_watch w[FX_WATCHES];
} watch_table;
_Static_assert(sizeof watch_table == FXI_TID_PAGE, "the table is its page");

static pthread_once_t watch_once = PTHREAD_ONCE_INIT;
/* Whether designation works in this process: set once, before any use, by
 * watch_setup (read after pthread_once). Kept by a fork child, whose
 * kernel and page advice are its parent's. */
static bool watch_usable;

/* futex_waitv must answer as the kernel does: EAGAIN when a word differs,
 * ETIMEDOUT for a past deadline. An emulator or a sandbox that returns 0 or
 * ENOSYS fails this, and every sleeper then rechecks. */
static bool waitv_works(void)
{
    uint32_t h = 1;
    int32_t w = 0;
    bool by_handoff;
    const struct timespec past = {0, 0};
    return fxi_futex_wait2_raw(&w, 1, &h, 1, &past, &by_handoff) == EAGAIN &&
           fxi_futex_wait2_raw(&w, 0, &h, 1, &past, &by_handoff) == ETIMEDOUT;
}

static void watch_setup(void)
{
    /* The table's words are the library's own, ordered by its lock (whose
     * atomics Helgrind and DRD do not see). */
    fxi_ann_own_words(&watch_table, sizeof watch_table);
    /* Relaxed: pthread_once orders it for every later caller. */
    __atomic_store_n(&watch_usable,
                     waitv_works() && fxi_wipe_at_fork(&watch_table, sizeof watch_table),
                     __ATOMIC_RELAXED);
}

/* The table's lock: held for a few loads and stores, never across a sleep
 * of the caller or a cancellation point. Acquire/release: it orders the
 * table's plain fields. */
static void watch_lock(void)
{
    uint32_t *l = &watch_table.lock;
    uint32_t c = 0;
    if (__atomic_compare_exchange_n(l, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return;
    if (c != 2)
        c = __atomic_exchange_n(l, 2, __ATOMIC_ACQUIRE);
    while (c != 0) {
        fxi_futex_wait_private(l, 2);
        c = __atomic_exchange_n(l, 2, __ATOMIC_ACQUIRE);
    }
}

static void watch_unlock(void)
{
    if (__atomic_exchange_n(&watch_table.lock, 0, __ATOMIC_RELEASE) == 2)
        fxi_futex_wake_private(&watch_table.lock, 1);
}

/* Under the lock: the entry of word, a free one set up for it, or NULL
 * when the table is full. */
static struct fxi_watch *watch_find(const int32_t *word)
{
    struct fxi_watch *free_one = NULL;
    for (size_t i = 0; i < FX_WATCHES; i++) {
        struct fxi_watch *e = &watch_table.w[i];
        if (e->word == word)
            return e;
        if (e->word == NULL && free_one == NULL)
            free_one = e;
    }
    if (free_one != NULL) {
        free_one->word = word;
        free_one->untimed = 0;
        free_one->designated = 0;
        free_one->alike = 0;
    }
    return free_one;
}

/* Under the lock: after the designated call left, or an untimed sleeper
 * left without taking the free role. Wakes (after the unlock) one untimed
 * sleeper to take it, or frees the entry when none is left. */
static bool watch_pass(struct fxi_watch *e)
{
    if (e->designated)
        return false;
    if (e->untimed == 0) {
        e->word = NULL;
        return false;
    }
    /* Relaxed: the lock orders it; the kernel compares it in futex_waitv. */
    __atomic_store_n(&e->handoff, e->handoff + 1, __ATOMIC_RELAXED);
    return true;
}

/* Joins word's sleepers: the designated one (s->watch set) or an untimed one
 * (returns the entry and the hand-off value in *h). NULL and no role when
 * designation cannot be used: the caller sleeps bounded. */
static struct fxi_watch *watch_join(const int32_t *word, int32_t expected,
                                       struct fxi_recheck *s, uint32_t *h)
{
    pthread_once(&watch_once, watch_setup);
    /* Relaxed: set once by the setup (ordered by pthread_once), or cleared
     * by a refusal (a hint, see sleep_once). */
    if (!__atomic_load_n(&watch_usable, __ATOMIC_RELAXED))
        return NULL;
    watch_lock();
    struct fxi_watch *e = watch_find(word);
    if (e != NULL) {
        if (!e->designated) {
            e->designated = 1;
            s->watch = e;
            e = NULL;
        } else {
            e->untimed++;
            *h = e->handoff;
            if (e->alike == 0) {
                e->slept_on = expected;
                e->alike = 1;
            } else if (e->slept_on != expected) {
                e->alike = 2;
            }
        }
    }
    watch_unlock();
    FX_FAULT(s->watch != NULL ? "sleep.designated" : e != NULL ? "sleep.untimed" : "sleep.alone");
    return e;
}

/* An untimed sleeper of e is back. take: it goes on sleeping or returns to
 * its call, and takes the role if it is free (the call gives it up when it
 * ends); otherwise (cancelled) it passes a free role on. */
static void watch_back(struct fxi_watch *e, struct fxi_recheck *s, bool take)
{
    watch_lock();
    if (--e->untimed == 0)
        e->alike = 0;
    bool wake = false;
    if (take && !e->designated) {
        e->designated = 1;
        s->watch = e;
    } else {
        wake = watch_pass(e);
    }
    watch_unlock();
    if (wake)
        fxi_futex_wake_private(&e->handoff, 1);
}

void fxi_recheck_end_slow(struct fxi_recheck *s)
{
    struct fxi_watch *e = s->untimed_in;
    if (e != NULL) {
        s->untimed_in = NULL;
        watch_back(e, s, false);
    }
    e = s->watch;
    if (e == NULL)
        return;
    s->watch = NULL;
    watch_lock();
    e->designated = 0;
    bool wake = watch_pass(e);
    watch_unlock();
    /* @step sleep.end.handoff */
    if (wake)
        fxi_futex_wake_private(&e->handoff, 1);
}

/* Whether no other process can futex-wake `word`: true only when the page
 * holding it is present and anonymous in this process, which the kernel
 * keys by (mm, address) for a futex without FUTEX_PRIVATE_FLAG; false for
 * anything else or when in doubt (no /proc, no file descriptor, a page not
 * present or swapped out, a file page of a MAP_PRIVATE mapping not yet
 * copied, shared anonymous memory). One entry of the pagemap file: bit 63
 * present, bit 62 swapped, bit 61 a file page or shared anonymous memory.
 * It is read with preadv, whose offset is passed as two longs (low, high)
 * in the same registers on every architecture, 32-bit ones included
 * (pread64 splits and aligns it differently on each). The descriptor is
 * opened, read and closed here, with raw system calls (not cancellation
 * points, errno kept) and O_CLOEXEC, so nothing is cached that a fork, an
 * exec or the caller's close() could make wrong. docs/design/futex.md,
 * "Private memory sleeps untimed", tells why pagemap and why only at the
 * first recheck. */
static bool word_private(const int32_t *word)
{
#if defined(SYS_openat) && defined(SYS_preadv)
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        return false;
    /* thread-self: the caller's own view, which also works after the main
     * thread has exited (/proc/self then names a zombie leader). */
    long fd = fxi_syscall(SYS_openat, AT_FDCWD, (long)(uintptr_t)"/proc/thread-self/pagemap",
                          O_RDONLY | O_CLOEXEC, 0, 0, 0);
    if (fd < 0) /* before Linux 3.17 */
        fd = fxi_syscall(SYS_openat, AT_FDCWD, (long)(uintptr_t)"/proc/self/pagemap",
                         O_RDONLY | O_CLOEXEC, 0, 0, 0);
    if (fd < 0)
        return false;
    uint64_t entry = 0;
    struct iovec iov = {&entry, sizeof entry};
    /* The offset fits a long: 8 bytes per page of the address space (at
     * most 8 MiB for a 32-bit one), so its high half is 0. */
    long off = (long)((uintptr_t)word / (uintptr_t)page * sizeof entry);
    long n = fxi_syscall(SYS_preadv, fd, (long)(uintptr_t)&iov, 1, off, 0, 0);
    fxi_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
    const uint64_t present = 1ull << 63, swapped = 1ull << 62, file_or_shared = 1ull << 61;
    return n == (long)sizeof entry && (entry & (present | swapped | file_or_shared)) == present;
#else
    (void)word;
    return false;
#endif
}

/* The scope of the call of s, asked once, at its first recheck: private only
 * if its word and every other word it may sleep on are. */
static void recheck_scope(const int32_t *word, struct fxi_recheck *s)
{
    bool priv = word_private(word);
    for (int i = 0; priv && i < 2; i++)
        priv = s->also[i] == NULL || word_private(s->also[i]);
    s->scope = priv ? FXI_SCOPE_PRIVATE : FXI_SCOPE_SHARED;
    FX_FAULT(priv ? "futex.scope.private" : "futex.scope.shared");
}

/* The designated sleeper's recheck, done for the untimed ones too: each of
 * them would, at a recheck of its own, re-read the word and act on it if it
 * no longer holds the value it slept on (a change whose wake was lost: a
 * counter past its target, a barrier's next round, a cond's signal, which
 * the designated one may not be waiting for itself). So when the word is
 * not the value they all slept on, they are all handed a recheck: woken
 * through the hand-off word, they re-read and sleep again or go. In an idle
 * object nothing changed and nobody is woken. */
static void watch_recheck(struct fxi_watch *e, const int32_t *word)
{
    watch_lock();
    /* Relaxed: compared only; whoever is woken re-reads it as its
     * primitive says. */
    bool changed = e->untimed > 0 &&
                   (e->alike == 2 || __atomic_load_n(word, __ATOMIC_RELAXED) != e->slept_on);
    if (changed) {
        e->alike = 0; /* those who sleep again register afresh */
        __atomic_store_n(&e->handoff, e->handoff + 1, __ATOMIC_RELAXED);
    }
    watch_unlock();
    /* @step sleep.recheck.all */
    if (changed)
        fxi_futex_wake_private(&e->handoff, INT32_MAX);
}

/* Before a sleep in a shared scope: the call's part among word's sleepers
 * (the role it holds, or an untimed registration for this sleep). */
static void sleep_enter(const int32_t *word, int32_t expected, struct fxi_recheck *s)
{
    if (s->scope != FXI_SCOPE_SHARED)
        return; /* not asked yet (bounded) or private (untimed): no role */
    if (s->watch != NULL) {
        if (s->watch->word == word) /* ours while we hold the role */
            return;
        fxi_recheck_end(s); /* a call that moved to another word */
    }
    uint32_t h = 0;
    struct fxi_watch *e = watch_join(word, expected, s, &h);
    if (e != NULL) {
        s->untimed_in = e;
        s->handoff_seen = h;
    }
}

/* After the sleep: an untimed sleeper is back (and takes the role if it is
 * free); the designated one's recheck is the untimed ones' too; the scope
 * is asked at the first recheck. recheck: the sleep ended at a recheck. */
static void sleep_leave(const int32_t *word, struct fxi_recheck *s, bool recheck)
{
    struct fxi_watch *e = s->untimed_in;
    if (e != NULL) {
        s->untimed_in = NULL;
        watch_back(e, s, true);
    }
    if (recheck && s->watch != NULL)
        watch_recheck(s->watch, word);
    if (recheck && s->scope == FXI_SCOPE_UNKNOWN)
        recheck_scope(word, s);
}

/* Before a bounded sleep: the time of its next recheck. Done outside any
 * asynchronous-cancellation region, as everything that reads the clock:
 * clock_gettime may run where the unwinder cannot go (the vDSO, a libc
 * built without unwind tables, as Debian's riscv64 one), so a cancellation
 * acting inside it would skip the callers' cleanup. */
static void sleep_tick(struct fxi_recheck *s)
{
    if (s->scope == FXI_SCOPE_PRIVATE || s->untimed_in != NULL)
        return; /* no timer of its own */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (s->tick.tv_nsec < 0 || !fxi_ts_before(&now, &s->tick)) {
        /* The first sleep of this call, or the recheck is due: the caller has
         * re-read its word since the last tick. The next tick is set from now
         * only here, once the previous one has passed, on the recheck grid
         * (internal/futex.h). */
        s->tick = fxi_ns_ts(fxi_recheck_grid(fxi_ts_ns(&now), s->period_ns));
    }
}

/* After a sleep that ended at its recheck tick (*recheck): ETIMEDOUT if the
 * caller's deadline has passed too (then no recheck is done), else 0. Outside
 * any asynchronous-cancellation region (it reads the clock, see above). */
static int sleep_tick_passed(const struct timespec *deadline, bool *recheck)
{
    if (*recheck && fxi_deadline_passed(deadline)) {
        *recheck = false;
        return ETIMEDOUT;
    }
    return 0;
}

/* The sleep itself, the part a cancellation may interrupt: nothing here but
 * the futex system calls. *recheck: true when it ended at the recheck tick
 * set by sleep_tick (what follows is done outside any
 * asynchronous-cancellation region: the clock, asking the scope, which opens
 * a descriptor, the designated sleeper's recheck, which takes the table's
 * lock). */
FX_CANCEL_FRAME static int sleep_once(int32_t *word, int32_t expected,
                                               const struct timespec *deadline,
                                               struct fxi_recheck *s, bool *recheck)
{
    *recheck = false;
    if (s->scope == FXI_SCOPE_PRIVATE) {
        /* No recheck: only a wake, a change of the word, a signal or the
         * caller's own deadline ends the sleep. */
        int r = fxi_futex_wait_raw(word, expected, deadline, FX_BITSET_ANY);
        s->woken = r == 0;
        return r == ETIMEDOUT ? ETIMEDOUT : 0;
    }
    if (s->untimed_in != NULL) {
        /* Untimed: the designated sleeper rechecks for us. Ends on a wake
         * of the word, a hand-off, a change of either word, a signal or the
         * caller's deadline. */
        bool by_handoff;
        int r = fxi_futex_wait2_raw(word, expected, &s->untimed_in->handoff, s->handoff_seen,
                                    deadline, &by_handoff);
        s->woken = r == 0 && !by_handoff;
        if (r != ENOSYS)
            return r == ETIMEDOUT ? ETIMEDOUT : 0;
        /* Refused after the probe accepted it (a seccomp filter installed
         * since): nobody sleeps untimed from now on. Relaxed: a hint; a
         * thread that misses it gets the same refusal. This call returns as
         * for a recheck: its caller re-reads the word and sleeps again,
         * bounded (no tick was set for this sleep). */
        __atomic_store_n(&watch_usable, false, __ATOMIC_RELAXED);
        s->woken = false;
        return 0;
    }
    bool mine = deadline != NULL && fxi_ts_before(deadline, &s->tick);
    int r = fxi_futex_wait_raw(word, expected, mine ? deadline : &s->tick, FX_BITSET_ANY);
    s->woken = r == 0;
    if (r != ETIMEDOUT)
        return 0; /* woken, EAGAIN (the word changed) or EINTR */
    if (mine)
        return ETIMEDOUT;
    *recheck = true;
    /* @step futex.sleep.recheck */
    return 0; /* the recheck is due (unless the deadline passed too) */
}

FX_CANCEL_FRAME int fxi_futex_sleep(int32_t *word, int32_t expected,
                                    const struct timespec *deadline, struct fxi_recheck *s)
{
    bool recheck;
    sleep_enter(word, expected, s);
    sleep_tick(s);
    int r = sleep_once(word, expected, deadline, s, &recheck);
    if (r == 0)
        r = sleep_tick_passed(deadline, &recheck);
    sleep_leave(word, s, recheck);
    return r;
}

FX_CANCEL_FRAME int fxi_futex_sleep_cancel(int32_t *word, int32_t expected,
                                           const struct timespec *deadline,
                                           struct fxi_recheck *s)
{
    int type;
    bool recheck;
    sleep_enter(word, expected, s);
    sleep_tick(s);
    /* Acts at once on a pending cancellation (glibc); otherwise a
     * pthread_cancel during the sleep interrupts it with SIGCANCEL. The
     * unwinding runs the call's fxi_recheck_end (FXI_RECHECK_CALL), which
     * gives up its part among the sleepers. */
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &type);
    int r = sleep_once(word, expected, deadline, s, &recheck);
    /* A test's fault point: a cancellation acting here, after a wake picked
     * this thread, is the in-process way to lose a wake (the caller's
     * cleanup handler passes it on). */
    if (s->woken)
        FX_FAULT("futex.sleep_cancel.woken");
    pthread_setcanceltype(type, &type);
    if (r == 0)
        r = sleep_tick_passed(deadline, &recheck);
    sleep_leave(word, s, recheck);
    return r;
}

/* Sleepers of owners only the liveness probe can judge ---------------------
 *
 * A sleeper whose word names an owner whose death the kernel will not report
 * (fx_rmutex's PROBED owners) must have that owner looked at now and then.
 * One call per process does it for all of them, the prober: it sleeps on its
 * own word bounded by FXI_PROBE_NS on the recheck grid, and at each tick
 * probes the owner of every registered word (once per owner); where one is
 * dead, it wakes one of that word's sleepers (through the slot's process-private tell word), which then
 * judges at once and takes over. The others sleep untimed on two words
 * (futex_waitv): their object's word, and their slot's tell word with the
 * value read when they registered.
 *
 *   state                     event                        next state
 *   prober 0, sleepers n      a call comes to sleep        prober 1: it is the
 *                                                            prober
 *   prober 1                  another call comes           its slot's
 *                                                            sleepers + 1: untimed
 *   prober 1                  the prober's call returns    prober 0; if any slot
 *                                                            has sleepers, its
 *                                                            tell += 1, wake one
 *   prober 1, tick            a word's owner is dead       that slot's tell += 1,
 *                                                            wake one
 *   sleepers n + 1            an untimed sleep returns     sleepers n; if prober 0,
 *                                                            pass it on as above
 *
 * Invariant: while a slot counts sleepers, the role is held, or a tell
 * moved since a sleeper registered and that sleeper, or the next to return,
 * will pass it on or take it (it returns to its caller, which sleeps again
 * and finds the role free). So an idle process costs one wake-up per tick,
 * whatever the number of sleepers and words. Where the table is full, cannot
 * be wiped at fork, or futex_waitv is missing, the caller sleeps on its own
 * schedule (ENOSYS).
 */
struct fxi_probed {
    const int32_t *word; /* NULL: never used; FX_PROBED_GONE: free */
    uint32_t (*owner)(const int32_t *word); /* its PROBED owner, or 0 */
    int32_t sleepers;    /* untimed sleepers of word in this process */
    uint32_t tell;       /* process-private futex word: moves to wake one */
};

/* 256 KiB of slots whatever the page size (untouched pages cost nothing):
 * about 10,900 words at once, found by their address's hash. */
#define FX_PROBED_SLOTS ((262144 - 64) / sizeof(struct fxi_probed))
/* A slot whose word left: the chains of linear probing run past it. */
#define FX_PROBED_GONE ((const int32_t *)(uintptr_t)1)

/* Guarded by watch_table.lock; alone in its pages (a page-aligned type, as
 * watch_table's), wiped at fork. */
static struct __attribute__((aligned(FXI_TID_PAGE))) {
    int32_t prober; /* 1 while a call holds the role */
    struct fxi_probed s[FX_PROBED_SLOTS];
} probed_table;
_Static_assert(sizeof probed_table % FXI_TID_PAGE == 0, "the prober's table is whole pages");

static bool probed_usable;

static void probed_setup(void)
{
    pthread_once(&watch_once, watch_setup);
    fxi_ann_own_words(&probed_table, sizeof probed_table);
    /* Relaxed: pthread_once orders it for every later caller. */
    __atomic_store_n(&probed_usable,
                     __atomic_load_n(&watch_usable, __ATOMIC_RELAXED) &&
                         fxi_wipe_at_fork(&probed_table, sizeof probed_table),
                     __ATOMIC_RELAXED);
}
static pthread_once_t probed_once = PTHREAD_ONCE_INIT;

/* Under the lock: word's slot, a free one set up for it, or NULL (full).
 * Open addressing by the word's address, linear probing; a freed slot is
 * marked GONE, which a search passes and an insertion reuses. */
static struct fxi_probed *probed_find(const int32_t *word, uint32_t (*owner)(const int32_t *))
{
    size_t h = (size_t)(((uintptr_t)word >> 2) * (uintptr_t)0x9E3779B97F4A7C15ull);
    struct fxi_probed *reuse = NULL;
    for (size_t k = 0; k < FX_PROBED_SLOTS; k++) {
        struct fxi_probed *p = &probed_table.s[(h + k) % FX_PROBED_SLOTS];
        if (p->word == word)
            return p;
        if (p->word == FX_PROBED_GONE && reuse == NULL)
            reuse = p;
        if (p->word == NULL) {
            reuse = reuse != NULL ? reuse : p;
            break;
        }
    }
    if (reuse != NULL) {
        reuse->word = word;
        reuse->owner = owner;
        reuse->sleepers = 0;
    }
    return reuse;
}

/* Whether slot p holds a word with sleepers. */
static bool probed_busy(const struct fxi_probed *p)
{
    return p->word != NULL && p->word != FX_PROBED_GONE && p->sleepers > 0;
}

/* Under the lock: moves p's tell so that one of its sleepers returns. */
static uint32_t *probed_tell(struct fxi_probed *p)
{
    /* Relaxed: the lock orders it; the kernel compares it in futex_waitv. */
    __atomic_store_n(&p->tell, p->tell + 1, __ATOMIC_RELAXED);
    return &p->tell;
}

/* Under the lock, the role being free: the tell word to wake for a sleeper
 * to take it, or NULL when nobody sleeps. */
static uint32_t *probed_pass(void)
{
    for (size_t i = 0; i < FX_PROBED_SLOTS; i++)
        if (probed_busy(&probed_table.s[i]))
            return probed_tell(&probed_table.s[i]);
    return NULL;
}

/* One tick's verdicts, so that an owner of many words is probed once. */
struct probed_memo {
    uint32_t id[16];
    bool dead[16];
    unsigned n;
};

/* Whether the owner named in `word` (owner() says who) is dead, by the
 * liveness probe, asked once per owner and tick. */
static bool probed_dead(const int32_t *word, uint32_t (*owner)(const int32_t *),
                        struct probed_memo *memo)
{
    uint32_t id = owner(word);
    if (id == 0)
        return false;
    for (unsigned k = 0; k < memo->n && k < 16; k++)
        if (memo->id[k] == id)
            return memo->dead[k];
    bool dead = fxi_id_probe(id) == FXI_TID_DEAD;
    memo->id[memo->n % 16] = id;
    memo->dead[memo->n % 16] = dead;
    memo->n++;
    return dead;
}

/* The prober's tick: asks whether each registered word's owner is dead,
 * outside the lock (the probe is a system call), a batch of slots at a time,
 * and wakes one sleeper of each word whose owner is. The words stay valid
 * while their sleepers are registered; a slot freed or reused meanwhile is
 * told apart by its count and its word. */
static void probed_look(struct probed_memo *memo)
{
    enum { BATCH = 32 };
    struct fxi_probed seen[BATCH];
    for (size_t i = 0; i < FX_PROBED_SLOTS; i += BATCH) {
        size_t n = FX_PROBED_SLOTS - i < BATCH ? FX_PROBED_SLOTS - i : BATCH;
        watch_lock();
        for (size_t k = 0; k < n; k++)
            seen[k] = probed_table.s[i + k];
        watch_unlock();
        for (size_t k = 0; k < n; k++) {
            if (!probed_busy(&seen[k]) || !probed_dead(seen[k].word, seen[k].owner, memo))
                continue;
            struct fxi_probed *p = &probed_table.s[i + k];
            watch_lock();
            uint32_t *tell = p->word == seen[k].word && probed_busy(p) ? probed_tell(p) : NULL;
            watch_unlock();
            if (tell != NULL)
                fxi_futex_wake_private(tell, 1);
        }
    }
}

/* The prober's sleeps, until its own wait ends: woken, the word changed, a
 * signal, the caller's deadline, or its own owner judged dead (*judge). */
static int probed_prober(int32_t *word, int32_t expected, uint32_t (*owner)(const int32_t *),
                         const struct timespec *deadline, bool *judge)
{
    for (;;) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        struct timespec tick = fxi_ns_ts(fxi_recheck_grid(fxi_ts_ns(&now), FXI_PROBE_NS));
        bool mine = deadline != NULL && fxi_ts_before(deadline, &tick);
        int r = fxi_futex_wait_raw(word, expected, mine ? deadline : &tick, FX_BITSET_ANY);
        if (r != ETIMEDOUT)
            return 0;
        if (mine || fxi_deadline_passed(deadline))
            return ETIMEDOUT;
        FX_FAULT("sleep.probed.look");
        struct probed_memo memo = {.n = 0};
        probed_look(&memo);
        if (probed_dead(word, owner, &memo)) {
            *judge = true;
            return 0;
        }
    }
}

int fxi_futex_sleep_probed(int32_t *word, int32_t expected, uint32_t (*owner)(const int32_t *word),
                           const struct timespec *deadline, bool *judge)
{
    *judge = false;
    pthread_once(&probed_once, probed_setup);
    /* Relaxed: set once by the setup, or cleared by a refusal (a hint). */
    if (!__atomic_load_n(&probed_usable, __ATOMIC_RELAXED))
        return ENOSYS;
    watch_lock();
    struct fxi_probed *p = NULL;
    bool prober = !probed_table.prober;
    uint32_t h = 0;
    if (prober) {
        probed_table.prober = 1;
    } else if ((p = probed_find(word, owner)) != NULL) {
        p->sleepers++;
        h = p->tell;
    }
    watch_unlock();
    if (!prober && p == NULL)
        return ENOSYS; /* full: the caller sleeps on its own schedule */
    FX_FAULT(prober ? "sleep.probed.prober" : "sleep.probed.untimed");
    int r;
    if (prober) {
        r = probed_prober(word, expected, owner, deadline, judge);
    } else {
        bool told;
        r = fxi_futex_wait2_raw(word, expected, &p->tell, h, deadline, &told);
        /* Told (its word judged dead, or the role falls to it), or anything
         * else: the caller judges at once; it costs one look. */
        *judge = r != ETIMEDOUT;
        if (r == ENOSYS) /* refused since the setup: nobody sleeps untimed */
            __atomic_store_n(&probed_usable, false, __ATOMIC_RELAXED);
    }
    watch_lock();
    if (prober)
        probed_table.prober = 0;
    else if (--p->sleepers == 0)
        p->word = FX_PROBED_GONE;
    uint32_t *tell = probed_table.prober ? NULL : probed_pass();
    watch_unlock();
    if (tell != NULL)
        fxi_futex_wake_private(tell, 1);
    return r == ETIMEDOUT || r == ENOSYS ? r : 0;
}
