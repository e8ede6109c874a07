/*
 * src/sleep.c - the one waiting engine: how every primitive sleeps on its
 * word (fxi_futex_sleep, fxi_futex_sleep_cancel, fxi_futex_sleep_probed).
 * Where no wake can be lost to a death (private memory) a call sleeps
 * untimed after its first recheck; elsewhere one sleeper of the process, the
 * prober, looks at every listed sleeper's word on the look grid
 * (FXI_PROBE_NS) and the others sleep untimed on their word and tell word.
 *
 * A sleeper's place (struct fxi_sleeper, in its call's frame):
 *
 *   state    event                                       next state
 *   OUT      a call comes to sleep, the role is free      PROBER
 *   OUT      a call comes to sleep, the role is held      LISTED (at the tail)
 *   LISTED   a look finds its word changed, or the        TOLD: tell += 1,
 *              owner its word names dead (owner())          wake it; it returns
 *   LISTED   the prober's call ends (any way), it is      PROBER: tell += 1,
 *              the first listed                             wake it; it sleeps
 *                                                           on as the prober
 *   LISTED   its own sleep ends (wake, word changed,      OUT (unlinked)
 *              signal, deadline, cancellation)
 *   TOLD     back from its sleep                          OUT: the caller
 *                                                           re-reads its word
 *   PROBER   its look is due (a grid tick has passed      PROBER (the look
 *              since the last look of any prober)           done first, also
 *                                                           when its deadline
 *                                                           fell on the tick)
 *   PROBER   its own sleep ends                           OUT; the role goes
 *                                                           to the head, if any
 *
 * Invariant: while a sleeper is listed, the role is held: by a sleeping
 * prober, or by a sleeper that was told so and, once back, looks at once if
 * a tick has passed (next_look is the process's, not the prober's). So a
 * change of a listed sleeper's word is seen within one period of the change
 * (plus scheduling), and an idle process costs one wake-up per period
 * whatever the number of its sleepers and objects. A fork child never sees
 * its parent's sleepers (the engine's pages are MADV_WIPEONFORK).
 *
 * Why this shape, private memory, the fallbacks to a call's own recheck:
 * docs/design/futex.md, "Private memory sleeps untimed", "One waiting engine".
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
#include "internal/sleep.h"
#include "internal/identity.h"
#include "internal/syscall.h"

enum { OUT = 0, LISTED, TOLD, PROBER };

/* The process's sleepers, alone in their page so that the whole of it, lock
 * included, is wiped at fork: the type is page-aligned, so its size is whole
 * pages and nothing else shares them (the kernel wipes whole pages). */
static struct __attribute__((aligned(FXI_TID_PAGE))) {
    uint32_t lock;      /* 0 free, 1 held, 2 held and contended */
    int32_t prober;     /* 1 while a call holds the role */
    uint32_t listed;    /* LISTED sleepers: the first entries of `listed` */
    uint32_t looks;     /* looks made (an entry's `looked` names one) */
    int64_t next_look;  /* CLOCK_MONOTONIC ns: the next look is due */
} engine;
_Static_assert(sizeof engine == FXI_TID_PAGE, "the engine is its page");

/* A LISTED sleeper as the look reads it: the look walks this array, not the
 * nodes, which lie on as many stacks as there are sleepers. Guarded by the
 * engine's lock; in pages of their own, wiped at fork. Untouched pages cost
 * nothing; a process with more sleepers at once than entries lets the
 * others keep their own recheck. */
struct listed {
    int32_t *word;
    uint32_t (*owner)(const int32_t *word);
    struct fxi_sleeper *node;
    const int32_t *watch;
    int32_t expected;
    int32_t watch_value;
    uint32_t looked;
};
#define FXI_LISTED_MAX 32768u
static struct __attribute__((aligned(FXI_TID_PAGE))) {
    struct listed e[FXI_LISTED_MAX];
} listed;
_Static_assert(sizeof listed % 65536 == 0, "the entries are whole pages");

static pthread_once_t engine_once = PTHREAD_ONCE_INIT;
/* Whether the engine works in this process: set once, before any use, by
 * engine_setup (read after pthread_once), cleared by a later refusal of
 * futex_waitv. Kept by a fork child, whose kernel and page advice are its
 * parent's. */
static bool engine_usable;

/* futex_waitv must answer as the kernel does: EAGAIN when a word differs,
 * ETIMEDOUT for a past deadline. An emulator or a sandbox that returns 0 or
 * ENOSYS fails this, and every call then keeps its own recheck. */
static bool waitv_works(void)
{
    uint32_t h = 1;
    int32_t w = 0;
    bool by_tell;
    const struct timespec past = {0, 0};
    return fxi_futex_wait2_raw(&w, 1, &h, 1, &past, &by_tell) == EAGAIN &&
           fxi_futex_wait2_raw(&w, 0, &h, 1, &past, &by_tell) == ETIMEDOUT;
}

static void engine_setup(void)
{
    /* The table is the library's own, ordered by its lock (whose atomics
     * Helgrind and DRD do not see). */
    fxi_ann_own_words(&engine, sizeof engine);
    fxi_ann_own_words(&listed, sizeof listed);
    /* Relaxed: pthread_once orders it for every later caller. */
    __atomic_store_n(&engine_usable,
                     waitv_works() && fxi_wipe_at_fork(&engine, sizeof engine) &&
                         fxi_wipe_at_fork(&listed, sizeof listed),
                     __ATOMIC_RELAXED);
}

static bool engine_ready(void)
{
    pthread_once(&engine_once, engine_setup);
    /* Relaxed: set by the setup (ordered by pthread_once), or cleared by a
     * refusal, a hint: a thread that misses it meets the same refusal. */
    return __atomic_load_n(&engine_usable, __ATOMIC_RELAXED);
}

/* The table's lock: held for a few loads and stores and the wakes of told
 * sleepers, never across a sleep of the caller, a probe or a cancellation
 * point. Acquire/release: it orders the table's and the nodes' plain
 * fields. */
static void engine_lock(void)
{
    uint32_t *l = &engine.lock;
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

static void engine_unlock(void)
{
    if (__atomic_exchange_n(&engine.lock, 0, __ATOMIC_RELEASE) == 2)
        fxi_futex_wake_private(&engine.lock, 1);
}

/* Under the lock: n's state. Relaxed atomic: its own thread reads it
 * without the lock only to see whether it is OUT, which no other thread
 * changes (internal/sleep.h, fxi_recheck_end). */
static void set_state(struct fxi_sleeper *n, uint32_t state)
{
    __atomic_store_n(&n->state, state, __ATOMIC_RELAXED);
}

/* Under the lock: n joins the LISTED entries, unless they are full. */
static bool list_link(struct fxi_sleeper *n)
{
    if (engine.listed == FXI_LISTED_MAX)
        return false;
    n->slot = engine.listed++;
    listed.e[n->slot] =
        (struct listed){n->word, n->owner, n, n->watch, n->expected, n->watch_value, 0};
    return true;
}

/* Under the lock: n leaves them; the last entry takes its place. */
static void list_unlink(struct fxi_sleeper *n)
{
    struct listed *last = &listed.e[--engine.listed];
    listed.e[n->slot] = *last;
    last->node->slot = n->slot;
}

/* Under the lock: a LISTED sleeper is told (TOLD or PROBER) and woken. The
 * wake is made under the lock, so the node is still there to be woken; a
 * sleeper not yet asleep finds its tell word moved (EAGAIN). */
static void tell(struct fxi_sleeper *n, uint32_t state)
{
    list_unlink(n);
    set_state(n, state);
    /* Relaxed: the lock orders it; the kernel compares it in futex_waitv. */
    __atomic_store_n(&n->tell, n->tell + 1, __ATOMIC_RELAXED);
    fxi_futex_wake_private(&n->tell, 1);
}

/* Under the lock, the prober's call ending: the role goes to the sleeper
 * in the first entry (any listed one would do), or falls free when there is
 * none. */
static void pass_role(void)
{
    engine.prober = engine.listed > 0;
    /* @step sleep.role.pass */
    if (engine.listed > 0)
        tell(listed.e[0].node, PROBER);
}

/* One look's verdicts on owners, so that an owner of many words is probed
 * once. */
struct verdicts {
    uint32_t id[64];
    bool dead[64];
    unsigned n;
};

static int verdict_of(const struct verdicts *v, uint32_t id)
{
    for (unsigned k = 0; k < v->n; k++)
        if (v->id[k] == id)
            return (int)k;
    return -1;
}

/* Whether a sleeper's word, or the word it watches, moved from the value
 * it saw. Relaxed: a hint; the told sleeper re-reads its words as its
 * primitive says. The words stay valid while their sleeper sleeps. */
static bool moved(const int32_t *word, int32_t expected, const int32_t *watch, int32_t seen)
{
    return __atomic_load_n(word, __ATOMIC_RELAXED) != expected ||
           (watch != NULL && __atomic_load_n(watch, __ATOMIC_RELAXED) != seen);
}

/* The look, done by the prober at each grid tick: every listed sleeper
 * whose word no longer holds the value it slept on is told (its change's
 * wake may have been lost), and so is every one whose word names an owner
 * the liveness probe finds dead. The probes are system calls, so they are
 * made outside the lock, a batch of owners at a time; the verdict applies
 * to the owner the word names when it is told, which the told sleeper
 * judges again on the value it reads. Returns whether the owner named in
 * the prober's own word (me) is dead. */
static bool engine_look(const struct fxi_sleeper *me)
{
    engine_lock();
    uint32_t look = ++engine.looks;
    bool owners = false;
    for (uint32_t i = 0; i < engine.listed;) {
        struct listed *e = &listed.e[i];
        owners |= e->owner != NULL;
        /* A told entry's place is taken by the last one: look at i again.
         * @step sleep.look.values */
        if (moved(e->word, e->expected, e->watch, e->watch_value))
            tell(e->node, TOLD);
        else
            i++;
    }
    engine_unlock();
    struct verdicts v;
    /* @step sleep.look.owners */
    while (owners) {
        v.n = 0;
        engine_lock();
        for (uint32_t i = 0; i < engine.listed; i++) {
            struct listed *e = &listed.e[i];
            if (e->owner == NULL || e->looked == look)
                continue;
            uint32_t id = e->owner(e->word);
            if (id != 0 && verdict_of(&v, id) < 0) {
                if (v.n == 64)
                    continue; /* the next batch */
                v.id[v.n++] = id;
            }
            e->looked = look;
        }
        engine_unlock();
        if (v.n == 0)
            break;
        bool any = false;
        /* @step sleep.look.probe */
        for (unsigned k = 0; k < v.n; k++)
            any |= v.dead[k] = fxi_id_probe(v.id[k]) == FXI_TID_DEAD;
        if (!any)
            continue;
        engine_lock();
        /* @step sleep.look.dead */
        for (uint32_t i = 0; i < engine.listed;) {
            struct listed *e = &listed.e[i];
            int k = e->owner != NULL ? verdict_of(&v, e->owner(e->word)) : -1;
            if (k >= 0 && v.dead[k])
                tell(e->node, TOLD);
            else
                i++;
        }
        engine_unlock();
    }
    /* @step sleep.look.own */
    if (me->owner == NULL)
        return false;
    uint32_t id = me->owner(me->word);
    return id != 0 && fxi_id_probe(id) == FXI_TID_DEAD;
}

/* The futex wait itself, the part a cancellation may interrupt: asynchronous
 * cancellation is enabled around the system call only (cancel), as glibc does
 * around the futex wait of pthread_cond_wait. Everything else (the clock, the
 * table's lock, the look) stays outside: clock_gettime may run where the
 * unwinder cannot go (the vDSO, a libc without unwind tables), and the lock
 * must never be left held. tell: also sleep while *tell == h (futex_waitv);
 * *by_tell then says whether only the tell word ended it. */
FXI_CANCEL_FRAME static int engine_wait(int32_t *word, int32_t expected,
                                       const struct timespec *until, uint32_t *tell, uint32_t h,
                                       bool *by_tell, bool cancel)
{
    int type = 0;
    *by_tell = false;
    if (cancel)
        pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &type);
    int r = tell != NULL ? fxi_futex_wait2_raw(word, expected, tell, h, until, by_tell)
                         : fxi_futex_wait_raw(word, expected, until, FXI_BITSET_ANY);
    if (cancel) {
        /* A test's fault point: a cancellation acting here, after a wake
         * picked this thread, is the in-process way to lose a wake (the
         * caller's cleanup handler passes it on). */
        if (r == 0 && !*by_tell)
            FXI_FAULT("futex.sleep_cancel.woken");
        pthread_setcanceltype(type, &type);
    }
    return r;
}

/* How an engine sleep ended, for its caller: a FUTEX_WAKE of its word, told
 * by the prober (the word changed, or its owner is dead), or anything else
 * (the word changed, a signal). */
enum { ENDED = 0, WOKEN, TOLD_BY_LOOK };

/* n holds the role: sleeps on word bounded by the look grid, looking for the
 * process at each tick, until its own sleep ends. */
FXI_CANCEL_FRAME static int engine_probe(struct fxi_sleeper *n, int32_t *word, int32_t expected,
                                        const struct timespec *deadline, bool cancel, int *how)
{
    for (;;) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        /* The prober alone reads and writes next_look; the role passes under
         * the lock, which orders it. @step sleep.probe.due */
        if (fxi_ts_ns(&now) >= engine.next_look) {
            engine.next_look = fxi_recheck_grid(fxi_ts_ns(&now), FXI_PROBE_NS);
            FXI_FAULT("sleep.look");
            /* Its own words too: the word it sleeps on is compared by the
             * kernel at its next sleep, the one it watches only here. */
            if (engine_look(n) || moved(word, expected, n->watch, n->watch_value)) {
                *how = TOLD_BY_LOOK;
                return 0;
            }
        }
        /* After the look: a deadline that fell on the tick does not skip it.
         * @step sleep.probe.deadline */
        if (deadline != NULL && !fxi_ts_before(&now, deadline))
            return ETIMEDOUT;
        struct timespec tick = fxi_ns_ts(engine.next_look);
        bool mine = deadline != NULL && fxi_ts_before(deadline, &tick);
        bool by_tell;
        /* @step sleep.probe.wait */
        int r = engine_wait(word, expected, mine ? deadline : &tick, NULL, 0, &by_tell, cancel);
        /* A signal: sleep on (the word is compared again), so that a storm
         * of them does not pass the role around at each one; a cancellation
         * acts inside engine_wait. */
        if (r != ETIMEDOUT && r != EINTR) {
            *how = r == 0 ? WOKEN : ENDED;
            return 0;
        }
    }
}

/* Under the lock: the call of n is back from the engine. */
static void engine_leave_locked(struct fxi_sleeper *n)
{
    if (n->state == LISTED)
        list_unlink(n);
    else if (n->state == PROBER)
        pass_role();
    set_state(n, OUT);
}

void fxi_recheck_end_slow(struct fxi_recheck *s)
{
    engine_lock();
    engine_leave_locked(&s->me);
    engine_unlock();
}

/* One sleep of a call in the engine: as the prober, or listed. Returns 0
 * (*how says why), ETIMEDOUT (the caller's deadline passed), or ENOSYS
 * (futex_waitv refused since the setup: nothing slept, and nobody uses the
 * engine from now on). n is OUT again on return, however the sleep ends;
 * a cancellation's unwinding leaves it to the call's fxi_recheck_end. */
FXI_CANCEL_FRAME static int engine_sleep(struct fxi_sleeper *n, int32_t *word, int32_t expected,
                                        uint32_t (*owner)(const int32_t *),
                                        const struct timespec *deadline, bool cancel, int *how)
{
    *how = ENDED;
    n->word = word;
    n->expected = expected;
    n->owner = owner;
    /* n->watch and n->watch_value: set by the caller. */
    fxi_ann_own_words(n, sizeof *n);
    engine_lock();
    /* @step sleep.join */
    bool is_listed = engine.prober, full = false;
    if (!is_listed) {
        engine.prober = 1;
        set_state(n, PROBER);
    } else if (list_link(n)) {
        set_state(n, LISTED);
    } else {
        full = true;
    }
    uint32_t h = n->tell;
    engine_unlock();
    if (full)
        return ENOSYS; /* the caller keeps its own recheck */
    FXI_FAULT(is_listed ? "sleep.listed" : "sleep.prober");
    int r = 0;
    if (is_listed) {
        bool by_tell;
        /* @step sleep.listed.wait */
        r = engine_wait(word, expected, deadline, &n->tell, h, &by_tell, cancel);
        engine_lock();
        if (r == ENOSYS) {
            /* Refused after the probe accepted it (a seccomp filter
             * installed since): nobody sleeps untimed from now on. */
            __atomic_store_n(&engine_usable, false, __ATOMIC_RELAXED);
        } else if (r == 0 && !by_tell) {
            *how = WOKEN; /* a consumed wake is reported, told or not */
        } else if (n->state == TOLD) {
            *how = TOLD_BY_LOOK;
            r = 0;
        }
        /* Relaxed: whether the word still holds the value slept on; it
         * decides only who probes next. @step sleep.listed.back */
        bool go_on = n->state == PROBER && r != ETIMEDOUT && r != ENOSYS && *how == ENDED &&
                     !moved(word, expected, n->watch, n->watch_value);
        if (!go_on)
            engine_leave_locked(n);
        engine_unlock();
        if (!go_on)
            return r == ETIMEDOUT || r == ENOSYS ? r : 0;
    }
    /* @step sleep.probe */
    r = engine_probe(n, word, expected, deadline, cancel, how);
    engine_lock();
    engine_leave_locked(n);
    engine_unlock();
    return r;
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
    FXI_FAULT(priv ? "futex.scope.private" : "futex.scope.shared");
}

/* A sleep bounded by the call's own recheck: its first sleep (the scope not
 * asked yet), and every sleep where the engine cannot be used. The recheck
 * time is absolute and moves on only once it has passed, so neither signals
 * nor spurious wakes postpone it; at the first recheck the scope is asked. */
FXI_CANCEL_FRAME static int sleep_bounded(int32_t *word, int32_t expected,
                                         const struct timespec *deadline, struct fxi_recheck *s,
                                         bool cancel)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (s->tick.tv_nsec < 0 || !fxi_ts_before(&now, &s->tick)) {
        /* The first sleep of this call, or the recheck is due: the caller has
         * re-read its word since the last tick. The next tick falls on the
         * recheck grid (internal/sleep.h). */
        s->tick = fxi_ns_ts(fxi_recheck_grid(fxi_ts_ns(&now), s->period_ns));
    }
    bool mine = deadline != NULL && fxi_ts_before(deadline, &s->tick);
    bool by_tell;
    int r = engine_wait(word, expected, mine ? deadline : &s->tick, NULL, 0, &by_tell, cancel);
    s->woken = r == 0;
    if (r != ETIMEDOUT)
        return 0; /* woken, EAGAIN (the word changed) or EINTR */
    if (mine || fxi_deadline_passed(deadline))
        return ETIMEDOUT;
    /* @step futex.sleep.recheck */
    if (s->scope == FXI_SCOPE_UNKNOWN)
        recheck_scope(word, s);
    return 0; /* the recheck is due: the caller re-reads its word */
}

FXI_CANCEL_FRAME static int sleep_call(int32_t *word, int32_t expected,
                                      const struct timespec *deadline, struct fxi_recheck *s,
                                      bool cancel)
{
    if (s->scope == FXI_SCOPE_PRIVATE) {
        /* No recheck: only a wake, a change of the word, a signal or the
         * caller's own deadline ends the sleep. */
        bool by_tell;
        int r = engine_wait(word, expected, deadline, NULL, 0, &by_tell, cancel);
        s->woken = r == 0;
        return r == ETIMEDOUT ? ETIMEDOUT : 0;
    }
    if (s->scope == FXI_SCOPE_SHARED && engine_ready()) {
        int how;
        s->me.watch = s->watch;
        s->me.watch_value = s->watch_value;
        int r = engine_sleep(&s->me, word, expected, NULL, deadline, cancel, &how);
        if (r != ENOSYS) {
            s->woken = how == WOKEN;
            return r;
        }
    }
    return sleep_bounded(word, expected, deadline, s, cancel);
}

int fxi_futex_sleep(int32_t *word, int32_t expected, const struct timespec *deadline,
                    struct fxi_recheck *s)
{
    return sleep_call(word, expected, deadline, s, false);
}

FXI_CANCEL_FRAME int fxi_futex_sleep_cancel(int32_t *word, int32_t expected,
                                           const struct timespec *deadline,
                                           struct fxi_recheck *s)
{
    return sleep_call(word, expected, deadline, s, true);
}

int fxi_futex_sleep_probed(int32_t *word, int32_t expected, uint32_t (*owner)(const int32_t *word),
                           const struct timespec *deadline, bool *judge)
{
    *judge = false;
    if (!engine_ready())
        return ENOSYS;
    struct fxi_sleeper n = {.state = OUT};
    int how;
    int r = engine_sleep(&n, word, expected, owner, deadline, false, &how);
    *judge = how == TOLD_BY_LOOK;
    return r;
}
