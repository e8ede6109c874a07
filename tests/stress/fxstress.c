/*
 * tests/stress/fxstress.c - the stress harness (see fxstress.h).
 *
 *   fxstress --list
 *   fxstress [options] ADAPTER...      (or --all)
 *     --duration S         seconds per adapter (default 2)
 *     --processes N        worker processes (default 3; 1..16)
 *     --threads N          threads per process (default 4; 1..16)
 *     --no-signals         no SIGUSR1 storm
 *     --signal-us N        mean gap between signals to a process (default 200)
 *     --no-kills           no SIGKILL of owners (only with FXS_OWNER_DEATH)
 *     --kill-ms N          mean gap between kills (default 100)
 *     --no-waiter-kills    no SIGKILL of waiting processes
 *     --waiter-kill-ms N   mean gap between kills of waiting processes
 *                          (default 150)
 *     --watchdog S         a thread that does not acquire for S seconds is a
 *                          failure (default 10)
 *     --recovery-limit S   an owner death not recovered within S seconds is a
 *                          failure (default 1)
 *     --seed N             random seed (default: from the clock; printed)
 *     --expect-fail        succeed only if every run FAILS (the broken_*
 *                          adapters: proof that the harness sees the bug)
 *
 * The parent forks the worker processes and stays single-threaded: it is the
 * watchdog, the killer (it respawns killed processes) and the judge at the
 * end.
 *
 * Kills of waiting processes (every process-shared lock, and the custom
 * adapters with FXS_WAITER_KILLS: cond, counter, barrier, once; issue 11
 * classes 7 and 8): the parent freezes a chosen worker process (SIGSTOP,
 * and waitpid WUNTRACED until every thread of it has stopped), looks at
 * each of its stopped worker threads (/proc/<pid>/task/<tid>/syscall), and
 * kills it (SIGKILL) if each one is stopped inside a futex wait (not a
 * wake) on the object (a custom adapter: on its wait area, between
 * fxs_wait_begin and fxs_wait_end) or in user space between operations, at
 * least one in a wait; otherwise it lets it go on (SIGCONT) and looks again
 * a little later. A stopped thread takes no step between the look and the
 * kill: the process dies holding nothing, as a waiter, possibly with a wake
 * already consumed. The others must lose nothing and strand nobody (the
 * watchdog); the time until every other thread has acquired again is printed
 * as the recovery time. Each worker process runs its threads and, in its main thread, sends
 * SIGUSR1 to random threads of its own. Exit status 0 when every adapter run
 * passed.
 */
#define _GNU_SOURCE
#include "fxstress.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXP 16
#define MAXT 16
#define MAXTH (MAXP * MAXT)
#define OBJ_MAX 8192
#define RECORD_WORDS 7
#define MAX_ADAPTERS 64

/* What a thread is doing, for the diagnostics of a hang. */
enum { OP_IDLE, OP_LOCK, OP_TRYLOCK, OP_TIMEDLOCK, OP_RDLOCK, OP_TRYRDLOCK, OP_TIMEDRDLOCK,
       OP_CS, OP_UNLOCK, OP_RDUNLOCK, OP_STEP, OP_RECOVER, OP_LEAVE, OP_EXITED, OP_WAIT };
static const char *const op_names[] = {"idle", "lock", "trylock", "timedlock", "rdlock",
                                       "tryrdlock", "timedrdlock", "critical section", "unlock",
                                       "rdunlock", "step", "recovery", "leave", "exited",
                                       "wait"};

/* Per-thread figures, written by the thread (relaxed atomics), read by the
 * parent. */
struct stats {
    uint64_t n[FXS_N_COUNTERS];
    int64_t last_acq_ns; /* the watchdog's stamp */
    int64_t max_gap_ns;  /* longest time between two acquisitions */
    int32_t op;          /* OP_* */
    int32_t live;        /* 1 while its process runs */
    int32_t tid;         /* the thread's kernel TID, for adapter->reaped */
} __attribute__((aligned(64)));

/* Everything the processes share. */
struct shared {
    unsigned char obj[OBJ_MAX] __attribute__((aligned(64)));
    struct {
        uint64_t count;
        uint64_t w[RECORD_WORDS];
    } rec __attribute__((aligned(64))); /* the protected record: plain accesses */
    int32_t owner __attribute__((aligned(64))); /* 0 or the owner's ID_OF() */
    int32_t holders;  /* inside now (max_holders > 1) */
    int32_t readers;  /* shared holders inside now */
    int32_t stop;
    int32_t failed;
    char msg[1024];
    uint64_t signals;
    int32_t incarnation[MAXP]; /* respawns of each process slot */
    /* Owner deaths. */
    int64_t kill_ns;         /* when the last kill was sent */
    int32_t pending;         /* 1: a kill of an owner awaits its EOWNERDEAD */
    int32_t victim;          /* the owner-slot id of the killed owner; every
                              * thread of its process died with it */
    uint64_t kills;           /* owner processes killed */
    uint64_t recoveries;      /* EOWNERDEADs handled */
    uint64_t in_cs_recovered; /* ... of them with the owner slot naming a dead thread */
    uint64_t repairs;         /* ... of them that found the record torn or behind */
    uint64_t spurious_deaths; /* EOWNERDEADs with no kill pending (a kill that raced) */
    uint64_t reaped_released; /* adapter->reaped calls that released the lock */
    int64_t rec_min_ns, rec_max_ns, rec_sum_ns;
    /* Kills of waiting processes (the parent's own figures). */
    uint64_t wkills;          /* waiting processes killed */
    uint64_t wkilled_asleep;  /* ... their threads asleep on the object then */
    uint64_t wkill_skipped;   /* chosen processes never found all asleep */
    uint64_t wlooks;          /* freezes of a chosen process to look at it */
    uint64_t wrecovered;      /* kills after which every other thread acquired */
    int64_t wrec_min_ns, wrec_max_ns, wrec_sum_ns;
    uint64_t wrec_over_1s;    /* ... of them taking more than a second */
    struct stats st[MAXTH];
};

/* A thread's id in the owner slot: its index and its process's incarnation,
 * so that a respawned thread is never taken for the one that was killed. */
#define ID_OF(gi, gen) ((int32_t)((((uint32_t)(gen) & 0x3fffffu) << 9) | (uint32_t)((gi) + 1)))
#define ID_THREAD(id) ((int)((uint32_t)(id) & 511u) - 1)

struct fxs_thread {
    int gi;
    int32_t id; /* ID_OF(gi, incarnation) */
    uint64_t rng;
    struct stats *st;
    pthread_t th;
};

static struct config {
    double duration;
    int procs, threads;
    bool signals, kills, expect_fail;
    int signal_us, kill_ms;
    double watchdog, recovery_limit;
    uint64_t seed;
    bool waiter_kills;
    int waiter_kill_ms;
} cfg = {2.0, 3, 4, true, true, false, 200, 100, 10.0, 1.0, 0, true, 150};

/* Two owner-slot ids of threads of the same incarnation of one process: the
 * killed owner may have released the lock to a sibling just before the kill,
 * and the sibling died with it. */
static bool same_process(int32_t a, int32_t b)
{
    return a > 0 && b > 0 && ((uint32_t)a >> 9) == ((uint32_t)b >> 9) &&
           ID_THREAD(a) / cfg.threads == ID_THREAD(b) / cfg.threads;
}

static const struct fxs_adapter *adapters[MAX_ADAPTERS];
static int nadapters;
static const struct fxs_adapter *ad; /* the adapter being run */
static struct shared *sh;
static void *obj;

void fxs_register(const struct fxs_adapter *a)
{
    if (nadapters < MAX_ADAPTERS)
        adapters[nadapters++] = a;
}

/* Helpers ------------------------------------------------------------------ */

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static struct timespec ts_of(int64_t ns)
{
    struct timespec t;
    t.tv_sec = (time_t)(ns / 1000000000);
    t.tv_nsec = (long)(ns % 1000000000);
    if (t.tv_nsec < 0) {
        t.tv_nsec += 1000000000;
        t.tv_sec -= 1;
    }
    return t;
}

static uint64_t rng_next(uint64_t *s)
{
    /* xorshift64* */
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

uint32_t fxs_rand(struct fxs_thread *t, uint32_t n)
{
    return n ? (uint32_t)((rng_next(&t->rng) >> 32) % n) : 0;
}

struct timespec fxs_deadline(struct fxs_thread *t)
{
    uint32_t k = fxs_rand(t, 16);
    if (k == 0) /* a negative tv_sec: long past */
        return (struct timespec){.tv_sec = -1 - (time_t)fxs_rand(t, 3), .tv_nsec = fxs_rand(t, 1000000000)};
    if (k == 1) /* just past */
        return ts_of(now_ns() - (int64_t)fxs_rand(t, 100000));
    if (k == 2) /* longer: up to 5 ms */
        return ts_of(now_ns() + (int64_t)fxs_rand(t, 5000000));
    return ts_of(now_ns() + (int64_t)fxs_rand(t, 300000)); /* up to 300 us */
}

void fxs_count(struct fxs_thread *t, int which, uint64_t n)
{
    __atomic_fetch_add(&t->st->n[which], n, __ATOMIC_RELAXED);
}

int fxs_thread_index(const struct fxs_thread *t)
{
    return t->gi;
}

int fxs_threads_total(void)
{
    return cfg.procs * cfg.threads;
}

bool fxs_failed(void)
{
    return __atomic_load_n(&sh->failed, __ATOMIC_ACQUIRE) != 0;
}

uint64_t fxs_total(int which)
{
    uint64_t s = 0;
    for (int i = 0; i < MAXTH; i++)
        s += __atomic_load_n(&sh->st[i].n[which], __ATOMIC_RELAXED);
    return s;
}

int fxs_fail(struct fxs_thread *t, const char *fmt, ...)
{
    /* The first failure wins the message. */
    if (__atomic_exchange_n(&sh->failed, 1, __ATOMIC_ACQ_REL) == 0) {
        char buf[sizeof sh->msg];
        int off = 0;
        if (t)
            off = snprintf(buf, sizeof buf, "thread %d (pid %d): ", t->gi, (int)getpid());
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf + off, sizeof buf - (size_t)off, fmt, ap);
        va_end(ap);
        memcpy(sh->msg, buf, sizeof buf);
    }
    __atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
    return 1;
}

static bool stopping(void)
{
    return __atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE) != 0;
}

uint64_t fxs_waiters_killed(void)
{
    return sh->wkilled_asleep;
}

static void set_op(struct fxs_thread *t, int op)
{
    __atomic_store_n(&t->st->op, op, __ATOMIC_RELAXED);
}

/* Relaxed: the parent reads op for the waiter kills only while this thread
 * is stopped (group stop), i.e. after it entered the kernel and was switched
 * out, which orders this store before the parent's read. */
void fxs_wait_begin(struct fxs_thread *t)
{
    set_op(t, OP_WAIT);
}

void fxs_wait_end(struct fxs_thread *t)
{
    set_op(t, OP_STEP);
}

/* The protected record ------------------------------------------------------- */

static uint64_t rec_word(uint64_t count, int i)
{
    return count * 0x9E3779B97F4A7C15ULL + (uint64_t)i;
}

/* Plain (volatile) accesses: the lock is what protects them. */
static bool rec_consistent(uint64_t *count)
{
    volatile uint64_t *c = &sh->rec.count;
    volatile uint64_t *w = sh->rec.w;
    uint64_t v = *c;
    *count = v;
    for (int i = 0; i < RECORD_WORDS; i++)
        if (w[i] != rec_word(v, i))
            return false;
    return true;
}

static void rec_write(uint64_t v)
{
    volatile uint64_t *c = &sh->rec.count;
    volatile uint64_t *w = sh->rec.w;
    *c = v;
    for (int i = 0; i < RECORD_WORDS; i++)
        w[i] = rec_word(v, i);
}

/* The same, sometimes yielding halfway: a record torn by a second owner (or
 * by the death of this one) is then likely to be seen. */
static void rec_write_slow(struct fxs_thread *t, uint64_t v)
{
    volatile uint64_t *c = &sh->rec.count;
    volatile uint64_t *w = sh->rec.w;
    bool slow = fxs_rand(t, 64) == 0;
    *c = v;
    for (int i = 0; i < RECORD_WORDS; i++) {
        if (slow && i == RECORD_WORDS / 2)
            sched_yield();
        w[i] = rec_word(v, i);
    }
}

static void acquired(struct fxs_thread *t, int which)
{
    fxs_progress(t);
    fxs_count(t, which, 1);
}

void fxs_progress(struct fxs_thread *t)
{
    int64_t now = now_ns();
    int64_t gap = now - __atomic_load_n(&t->st->last_acq_ns, __ATOMIC_RELAXED);
    if (gap > __atomic_load_n(&t->st->max_gap_ns, __ATOMIC_RELAXED))
        __atomic_store_n(&t->st->max_gap_ns, gap, __ATOMIC_RELAXED);
    __atomic_store_n(&t->st->last_acq_ns, now, __ATOMIC_RELAXED);
}

int fxs_cs_enter(struct fxs_thread *t)
{
    set_op(t, OP_CS);
    int max = ad->max_holders > 1 ? ad->max_holders : 1;
    if (max > 1) {
        int32_t h = __atomic_add_fetch(&sh->holders, 1, __ATOMIC_SEQ_CST);
        if (h > max)
            return fxs_fail(t, "%d holders inside, at most %d allowed", h, max);
        acquired(t, FXS_N_ACQUIRED);
        return 0;
    }
    int32_t prev = __atomic_exchange_n(&sh->owner, t->id, __ATOMIC_SEQ_CST);
    if (prev != 0)
        return fxs_fail(t, "two owners: thread %d was still inside", ID_THREAD(prev));
    int32_t r = __atomic_load_n(&sh->readers, __ATOMIC_SEQ_CST);
    if (r != 0)
        return fxs_fail(t, "exclusive owner with %d readers inside", r);
    uint64_t count;
    if (!rec_consistent(&count))
        return fxs_fail(t, "torn record on entry (count %" PRIu64 ")", count);
    /* Counted inside the critical section, before the record: a recovery
     * (under the lock) can then rebuild the count from the totals. */
    acquired(t, FXS_N_ACQUIRED);
    rec_write_slow(t, count + 1);
    return 0;
}

int fxs_cs_leave(struct fxs_thread *t)
{
    int max = ad->max_holders > 1 ? ad->max_holders : 1;
    if (max > 1) {
        __atomic_sub_fetch(&sh->holders, 1, __ATOMIC_SEQ_CST);
        return 0;
    }
    uint64_t count;
    if (!rec_consistent(&count))
        return fxs_fail(t, "torn record on exit (count %" PRIu64 ")", count);
    int32_t prev = __atomic_exchange_n(&sh->owner, 0, __ATOMIC_SEQ_CST);
    if (prev != t->id)
        return fxs_fail(t, "owner slot held %d on exit, not this thread", ID_THREAD(prev));
    return 0;
}

static int shared_enter(struct fxs_thread *t)
{
    set_op(t, OP_CS);
    __atomic_add_fetch(&sh->readers, 1, __ATOMIC_SEQ_CST);
    int32_t o = __atomic_load_n(&sh->owner, __ATOMIC_SEQ_CST);
    if (o != 0)
        return fxs_fail(t, "reader inside with the writer %d", ID_THREAD(o));
    uint64_t count;
    if (!rec_consistent(&count))
        return fxs_fail(t, "reader saw a torn record (count %" PRIu64 ")", count);
    acquired(t, FXS_N_SHARED);
    return 0;
}

static int shared_leave(struct fxs_thread *t)
{
    (void)t;
    __atomic_sub_fetch(&sh->readers, 1, __ATOMIC_SEQ_CST);
    return 0;
}

/* After EOWNERDEAD, under the lock: repair the record and the owner slot,
 * mark the lock consistent, and time the recovery. */
static int recover(struct fxs_thread *t)
{
    set_op(t, OP_RECOVER);
    int64_t now = now_ns();
    if (!__atomic_load_n(&sh->pending, __ATOMIC_ACQUIRE) &&
        __atomic_load_n(&sh->kills, __ATOMIC_ACQUIRE) == 0)
        return fxs_fail(t, "EOWNERDEAD without any death");
    uint64_t total = fxs_total(FXS_N_ACQUIRED), count;
    bool ok = rec_consistent(&count);
    if (!ok || count != total) {
        rec_write(total);
        __atomic_fetch_add(&sh->repairs, 1, __ATOMIC_RELAXED);
    }
    int32_t o = __atomic_exchange_n(&sh->owner, 0, __ATOMIC_SEQ_CST);
    if (o != 0 && same_process(o, __atomic_load_n(&sh->victim, __ATOMIC_ACQUIRE)))
        __atomic_fetch_add(&sh->in_cs_recovered, 1, __ATOMIC_RELAXED);
    else if (o != 0)
        return fxs_fail(t, "after EOWNERDEAD the owner slot names %d, a thread still alive",
                        ID_THREAD(o));
    int r = ad->consistent(obj);
    if (r != 0)
        return fxs_fail(t, "consistent() after EOWNERDEAD returned %d", r);
    __atomic_fetch_add(&sh->recoveries, 1, __ATOMIC_RELAXED);
    if (__atomic_exchange_n(&sh->pending, 0, __ATOMIC_ACQ_REL)) {
        int64_t d = now - __atomic_load_n(&sh->kill_ns, __ATOMIC_ACQUIRE);
        __atomic_fetch_add(&sh->rec_sum_ns, d, __ATOMIC_RELAXED);
        if (d > __atomic_load_n(&sh->rec_max_ns, __ATOMIC_RELAXED))
            __atomic_store_n(&sh->rec_max_ns, d, __ATOMIC_RELAXED);
        int64_t mn = __atomic_load_n(&sh->rec_min_ns, __ATOMIC_RELAXED);
        if (mn == 0 || d < mn)
            __atomic_store_n(&sh->rec_min_ns, d, __ATOMIC_RELAXED);
    } else {
        __atomic_fetch_add(&sh->spurious_deaths, 1, __ATOMIC_RELAXED);
    }
    return 0;
}

/* The lock workload ----------------------------------------------------------- */

static void pause_outside(struct fxs_thread *t)
{
    uint32_t k = fxs_rand(t, 8);
    if (k == 0)
        sched_yield();
    else
        for (uint32_t i = fxs_rand(t, 200); i > 0; i--)
            __asm__ __volatile__("" ::: "memory");
}

static void pause_inside(struct fxs_thread *t)
{
    /* Sometimes hold the lock across a yield, so that others block. */
    if (fxs_rand(t, 16) == 0)
        sched_yield();
}

static int lock_step(struct fxs_thread *t)
{
    bool shared = ad->rdlock && fxs_rand(t, 100) < 30;
    uint32_t k = fxs_rand(t, 100);
    int op, r, res_ok;
    bool badline = false;
    fxs_count(t, FXS_N_OPS, 1);
    if (k < 40 || (k < 70 && !(shared ? ad->tryrdlock : ad->trylock)) ||
        (k >= 70 && !(shared ? ad->timedrdlock : ad->timedlock))) {
        op = shared ? OP_RDLOCK : OP_LOCK;
        set_op(t, op);
        r = shared ? ad->rdlock(obj) : ad->lock(obj);
        res_ok = r == 0;
    } else if (k < 70) {
        op = shared ? OP_TRYRDLOCK : OP_TRYLOCK;
        set_op(t, op);
        r = shared ? ad->tryrdlock(obj) : ad->trylock(obj);
        res_ok = r == 0 || r == EBUSY;
        if (r == EBUSY)
            fxs_count(t, FXS_N_BUSY, 1);
    } else {
        op = shared ? OP_TIMEDRDLOCK : OP_TIMEDLOCK;
        struct timespec dl = fxs_deadline(t);
        if (fxs_rand(t, 32) == 0) {
            dl.tv_nsec = fxs_rand(t, 2) ? 1000000000L + (long)fxs_rand(t, 1000) : -1L;
            badline = true;
            fxs_count(t, FXS_N_BADDEADLINE, 1);
        }
        set_op(t, op);
        r = shared ? ad->timedrdlock(obj, &dl) : ad->timedlock(obj, &dl);
        res_ok = r == 0 || (badline ? r == EINVAL : r == ETIMEDOUT);
        if (r == ETIMEDOUT)
            fxs_count(t, FXS_N_TIMEOUTS, 1);
    }
    if (r == EOWNERDEAD && (ad->caps & FXS_OWNER_DEATH) && !shared) {
        if (recover(t))
            return 1;
        r = 0;
        res_ok = 1;
    }
    if (!res_ok)
        return fxs_fail(t, "%s returned %d (%s)%s", op_names[op], r, strerror(r),
                        badline ? " with an invalid tv_nsec" : "");
    if (r != 0)
        return 0;
    if (shared) {
        if (shared_enter(t))
            return 1;
        pause_inside(t);
        shared_leave(t);
        set_op(t, OP_RDUNLOCK);
        r = ad->rdunlock(obj);
        if (r != 0)
            return fxs_fail(t, "rdunlock returned %d", r);
    } else {
        if (fxs_cs_enter(t))
            return 1;
        pause_inside(t);
        if (fxs_cs_leave(t))
            return 1;
        set_op(t, OP_UNLOCK);
        r = ad->unlock(obj);
        if (r != 0)
            return fxs_fail(t, "unlock returned %d (%s)", r, strerror(r));
    }
    return 0;
}

static void *thread_main(void *arg)
{
    struct fxs_thread *t = arg;
    __atomic_store_n(&t->st->tid, (int32_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
    while (!stopping()) {
        int r;
        if (ad->kind == FXS_LOCK) {
            r = lock_step(t);
        } else {
            set_op(t, OP_STEP);
            fxs_count(t, FXS_N_OPS, 1);
            r = ad->step(obj, t);
        }
        if (r)
            break;
        set_op(t, OP_IDLE);
        pause_outside(t);
    }
    if (ad->leave && !fxs_failed()) {
        set_op(t, OP_LEAVE);
        ad->leave(obj, t);
    }
    set_op(t, OP_EXITED);
    return NULL;
}

/* Worker processes ------------------------------------------------------------ */

static void on_signal(int sig)
{
    (void)sig;
    __atomic_fetch_add(&sh->signals, 1, __ATOMIC_RELAXED);
}

static int worker_process(int p)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = 0; /* no SA_RESTART: every blocking call sees EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);

    struct fxs_thread th[MAXT];
    uint64_t seed = cfg.seed ^ ((uint64_t)getpid() << 20) ^ (uint64_t)now_ns();
    for (int i = 0; i < cfg.threads; i++) {
        th[i].gi = p * cfg.threads + i;
        th[i].id = ID_OF(th[i].gi, __atomic_load_n(&sh->incarnation[p], __ATOMIC_ACQUIRE));
        th[i].rng = seed + (uint64_t)i * 0x9E3779B97F4A7C15ULL + 1;
        th[i].st = &sh->st[th[i].gi];
        if (pthread_create(&th[i].th, NULL, thread_main, &th[i]) != 0) {
            fxs_fail(NULL, "pthread_create failed in process %d", p);
            cfg.threads = i;
            break;
        }
    }
    /* This thread is the process's signal storm. */
    uint64_t rng = seed ^ 0xabcdef;
    while (!stopping()) {
        if (cfg.signals && cfg.threads > 0) {
            uint64_t x = rng_next(&rng);
            struct timespec d = {0, (long)((x >> 40) % (uint64_t)(2 * cfg.signal_us + 1)) * 1000};
            nanosleep(&d, NULL);
            pthread_kill(th[(x >> 8) % (uint64_t)cfg.threads].th, SIGUSR1);
        } else {
            struct timespec d = {0, 5000000};
            nanosleep(&d, NULL);
        }
    }
    for (int i = 0; i < cfg.threads; i++)
        pthread_join(th[i].th, NULL);
    return 0;
}

static pid_t spawn(int p)
{
    int64_t now = now_ns();
    __atomic_fetch_add(&sh->incarnation[p], 1, __ATOMIC_ACQ_REL);
    for (int i = 0; i < cfg.threads; i++) {
        struct stats *st = &sh->st[p * cfg.threads + i];
        __atomic_store_n(&st->tid, 0, __ATOMIC_RELAXED); /* the new thread publishes its own */
        __atomic_store_n(&st->last_acq_ns, now, __ATOMIC_RELAXED);
        __atomic_store_n(&st->op, OP_IDLE, __ATOMIC_RELAXED);
        __atomic_store_n(&st->live, 1, __ATOMIC_RELEASE);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(worker_process(p));
    if (pid < 0)
        fxs_fail(NULL, "fork failed: %s", strerror(errno));
    return pid;
}

static void mark_dead(int p)
{
    for (int i = 0; i < cfg.threads; i++)
        __atomic_store_n(&sh->st[p * cfg.threads + i].live, 0, __ATOMIC_RELEASE);
}

/* Reaps pid (> 0) within timeout_ns; returns its wait status, or -1 on
 * timeout. */
static int reap(pid_t pid, int64_t timeout_ns)
{
    if (pid <= 0)
        return 0;
    int64_t end = now_ns() + timeout_ns;
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return st;
        if (r < 0 && errno != EINTR)
            return 0;
        if (now_ns() > end)
            return -1;
        struct timespec d = {0, 50000};
        nanosleep(&d, NULL);
    }
}

static void describe_threads(void)
{
    for (int i = 0; i < cfg.procs * cfg.threads; i++) {
        struct stats *st = &sh->st[i];
        if (!__atomic_load_n(&st->live, __ATOMIC_ACQUIRE))
            continue;
        int op = __atomic_load_n(&st->op, __ATOMIC_RELAXED);
        if (op != OP_EXITED)
            fprintf(stderr, "  thread %d: in %s, last acquisition %.3f s ago\n", i, op_names[op],
                    (double)(now_ns() - __atomic_load_n(&st->last_acq_ns, __ATOMIC_RELAXED)) / 1e9);
    }
}

/* Kills of waiting processes ------------------------------------------------------ */

/* Where the stopped thread tid of process pid is, from
 * /proc/<pid>/task/<tid>/syscall: 1 inside a futex wait on an address in
 * [lo, hi) (asleep in it, or woken and not yet back in user space: a wake
 * consumed); 0 in user space ("-1 sp pc": stopped on its way back from an
 * interrupt, not from a system call); -1 anything else (another system
 * call, "running", unreadable). */
static int where_is(pid_t pid, pid_t tid, uintptr_t lo, uintptr_t hi)
{
    char path[96], buf[256];
    snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    long nr;
    unsigned long a0, a1;
    if (sscanf(buf, "%ld", &nr) != 1) /* "running": not stopped */
        return -1;
    if (nr == -1)
        return 0;
#ifdef SYS_futex_time64
    /* A 32-bit architecture: the library waits only through futex_time64
     * (every one of its waits is timed, and futex_time64 takes only waits:
     * src/futex.c), and wakes through futex. Only futex_time64 is a wait
     * here, whatever the arguments say: a thread stopped on its way back
     * from a system call it has finished shows the call's number with
     * arguments that need not be the call's any more. On i686 (the x86-64
     * kernel's 32-bit fast system call, through the vDSO) a finished
     * FUTEX_WAKE was seen as "240 <word> 0x0 0x0 ...", op 0, FUTEX_WAIT:
     * the last arrival of a barrier, between its wake and its return with
     * the serial result, was killed as a waiter, and the round's serial
     * party was lost with it (the other parties then waited for ever).
     * On a kernel before 5.1 (futex_time64 ENOSYS, waits through futex) no
     * process is found waiting: no kills, never a wrong one. */
    bool futex = nr == SYS_futex_time64;
#else
    bool futex = nr == SYS_futex;
#endif
    if (!futex || sscanf(buf, "%ld %lx %lx", &nr, &a0, &a1) != 3)
        return -1;
    /* A wait, not a wake: a thread stopped inside FUTEX_WAKE may still hold
     * what it is about to release (a notifier under the mutex). (A finished
     * futex_time64 call reading op 0 is still the wait it was.) */
    unsigned long op = a1 & 127ul; /* without FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME */
    if (op != 0ul /* FUTEX_WAIT */ && op != 9ul /* FUTEX_WAIT_BITSET */)
        return -1;
    return a0 >= lo && a0 < hi ? 1 : -1;
}

/* Stops every thread of worker process pid (SIGSTOP) and waits until the
 * group stop is complete (waitpid WUNTRACED reports it once the last thread
 * has stopped). Returns 1 when stopped; 0 when it did not stop within a
 * second (it is let go on); -1 when it ended by itself (*status set). */
static int freeze(pid_t pid, int *status)
{
    if (kill(pid, SIGSTOP) != 0)
        return 0;
    int64_t end = now_ns() + 1000000000;
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WUNTRACED | WNOHANG);
        if (r == pid && WIFSTOPPED(st))
            return 1;
        if (r == pid) {
            *status = st;
            return -1;
        }
        if (now_ns() > end) {
            kill(pid, SIGCONT);
            return 0;
        }
        struct timespec d = {0, 20000};
        nanosleep(&d, NULL);
    }
}

/* True if process slot p (pid), frozen, holds nothing and waits: every
 * worker thread is stopped inside a futex wait on the object (a lock: while
 * acquiring; a custom adapter: between fxs_wait_begin and fxs_wait_end), or
 * in user space between operations (OP_IDLE); at least one in a wait. A
 * thread that left its wait and took the lock, but had not yet said so
 * (op), is stopped in user space, not in the wait: not a waiter. */
static int last_asleep; /* threads in a wait of the last process found waiting */

static bool waiting_and_holding_nothing(int p, pid_t pid)
{
    uintptr_t lo = (uintptr_t)obj, hi = lo + ad->size;
    if (ad->wait_area) {
        size_t len = 0;
        lo = (uintptr_t)ad->wait_area(obj, &len);
        hi = lo + len;
    }
    bool custom = ad->kind == FXS_CUSTOM;
    int asleep = 0;
    for (int i = 0; i < cfg.threads; i++) {
        struct stats *st = &sh->st[p * cfg.threads + i];
        pid_t tid = __atomic_load_n(&st->tid, __ATOMIC_ACQUIRE);
        if (tid <= 0)
            return false;
        int w = where_is(pid, tid, lo, hi);
        int op = __atomic_load_n(&st->op, __ATOMIC_RELAXED);
        bool acquiring = op == OP_LOCK || op == OP_TIMEDLOCK || op == OP_RDLOCK ||
                         op == OP_TIMEDRDLOCK;
        if (w == 1 && (custom ? op == OP_WAIT : acquiring))
            asleep++;
        else if (!(w == 0 && op == OP_IDLE))
            return false;
    }
    last_asleep = asleep;
    return asleep > 0;
}

/* Processes killed as waiters, not yet reaped. Reaping one (the kernel
 * tears its /proc entries down in the reaper's waitpid) was seen to take
 * the parent seconds on a loaded machine; nothing waits for it: the victim
 * was frozen, so its threads run no user code after the SIGKILL, and its
 * slot is respawned at once. A zombie is reaped once it is a second old, or
 * at the end of the run. */
#define ZOMBIES 64
static struct zombie {
    pid_t pid;
    int64_t killed_ns;
} zombies[ZOMBIES];
static int nzombies;

/* Reaps the zombies killed before `before` (all: INT64_MAX), waiting for
 * each until `deadline`; one not dead by then is a failure. */
static void reap_zombies(int64_t before, int64_t deadline)
{
    int keep = 0;
    for (int i = 0; i < nzombies; i++) {
        int st;
        pid_t r = 0;
        if (zombies[i].killed_ns < before)
            while ((r = waitpid(zombies[i].pid, &st, WNOHANG)) == 0 && now_ns() < deadline) {
                struct timespec d = {0, 50000};
                nanosleep(&d, NULL);
            }
        if (r != 0)
            continue;
        if (zombies[i].killed_ns < before) {
            fxs_fail(NULL, "a process killed as a waiter did not die");
            kill(zombies[i].pid, SIGKILL);
            waitpid(zombies[i].pid, &st, 0);
            continue;
        }
        zombies[keep++] = zombies[i];
    }
    nzombies = keep;
}

/* One adapter run ---------------------------------------------------------------- */

static int run_adapter(const struct fxs_adapter *a)
{
    ad = a;
    memset(sh, 0, sizeof *sh);
    nzombies = 0;
    obj = sh->obj;
    if (a->size > OBJ_MAX) {
        fprintf(stderr, "%s: object of %zu bytes is larger than %d\n", a->name, a->size, OBJ_MAX);
        return 1;
    }
    int procs = (a->caps & FXS_NO_PROCESSES) ? 1 : cfg.procs;
    int saved_procs = cfg.procs;
    cfg.procs = procs;
    bool kills = cfg.kills && (a->caps & FXS_OWNER_DEATH) && a->kind == FXS_LOCK;
    /* Waiting processes are killed for the library's process-shared locks
     * (not the pthread reference adapters: glibc's process-shared locks
     * strand sleepers after such a death, which is what these kills show). */
    bool wkills = cfg.waiter_kills &&
                  (a->kind == FXS_LOCK || (a->caps & FXS_WAITER_KILLS)) &&
                  !(a->caps & FXS_NO_PROCESSES) &&
                  strncmp(a->name, "ref_", 4) != 0 && strncmp(a->name, "broken_", 7) != 0;
    rec_write(0);
    if (a->setup && a->setup(obj) != 0) {
        fprintf(stderr, "%s: setup failed\n", a->name);
        cfg.procs = saved_procs;
        return 1;
    }

    printf("stress %s: %d process(es) x %d threads, %.1f s, signals %s, kills %s, waiter kills %s, "
           "seed %" PRIu64 "\n",
           a->name, procs, cfg.threads, cfg.duration, cfg.signals ? "on" : "off",
           kills ? "on" : ((a->caps & FXS_OWNER_DEATH) ? "off" : "n/a (no owner death)"),
           wkills ? "on" : "off", cfg.seed);
    fflush(stdout);

    pid_t pids[MAXP];
    int64_t start = now_ns();
    for (int p = 0; p < procs; p++)
        pids[p] = spawn(p);

    uint64_t krng = cfg.seed ^ 0x5eed;
    int64_t next_kill = start + (int64_t)cfg.kill_ms * 1000000;
    int64_t end = start + (int64_t)(cfg.duration * 1e9);
    int64_t wd = (int64_t)(cfg.watchdog * 1e9);
    uint64_t respawns = 0;
    int wkilled = -1;            /* the slot killed last (its threads are new) */
    bool wk_pending = false;     /* a waiter kill whose recovery is awaited */
    int64_t wk_ns = 0;
    int64_t next_wkill = start + (int64_t)cfg.waiter_kill_ms * 1000000;
    sh->wrec_min_ns = INT64_MAX;
    while (!stopping() && now_ns() < end) {
        struct timespec d = {0, 10000000};
        nanosleep(&d, NULL);
        int64_t now = now_ns();
        /* A worker that died by itself is a failure (a crash, a TSan or ASan
         * report). */
        for (int p = 0; p < procs; p++) {
            int st;
            if (pids[p] > 0 && waitpid(pids[p], &st, WNOHANG) == pids[p]) {
                mark_dead(p);
                pids[p] = -1;
                fxs_fail(NULL, "worker process %d exited early (%s %d)", p,
                         WIFSIGNALED(st) ? "signal" : "status",
                         WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            }
        }
        /* The watchdog. */
        for (int i = 0; i < procs * cfg.threads; i++) {
            struct stats *st = &sh->st[i];
            if (!__atomic_load_n(&st->live, __ATOMIC_ACQUIRE))
                continue;
            int64_t gap = now - __atomic_load_n(&st->last_acq_ns, __ATOMIC_RELAXED);
            if (gap > wd) {
                fxs_fail(NULL, "watchdog: thread %d has not acquired for %.1f s (in %s)", i,
                         (double)gap / 1e9, op_names[__atomic_load_n(&st->op, __ATOMIC_RELAXED)]);
            }
        }
        /* A kill whose recovery is overdue. */
        if (kills && __atomic_load_n(&sh->pending, __ATOMIC_ACQUIRE) &&
            now - __atomic_load_n(&sh->kill_ns, __ATOMIC_RELAXED) > (int64_t)(cfg.recovery_limit * 1e9)) {
            if (same_process(__atomic_load_n(&sh->owner, __ATOMIC_SEQ_CST),
                             __atomic_load_n(&sh->victim, __ATOMIC_RELAXED)))
                fxs_fail(NULL, "owner death not recovered within %.2f s", cfg.recovery_limit);
            else /* it died outside the lock: nothing to recover */
                __atomic_store_n(&sh->pending, 0, __ATOMIC_RELEASE);
        }
        /* Kill an owner. */
        if (kills && now >= next_kill && !__atomic_load_n(&sh->pending, __ATOMIC_ACQUIRE)) {
            int32_t o = __atomic_load_n(&sh->owner, __ATOMIC_SEQ_CST);
            int p = o > 0 ? ID_THREAD(o) / cfg.threads : 0;
            if (o > 0 && p < procs && pids[p] > 0) { /* never kill(-1, ...) */
                __atomic_store_n(&sh->victim, o, __ATOMIC_RELAXED);
                __atomic_store_n(&sh->kill_ns, now_ns(), __ATOMIC_RELAXED);
                __atomic_store_n(&sh->pending, 1, __ATOMIC_RELEASE);
                kill(pids[p], SIGKILL);
                int st = reap(pids[p], 5000000000LL);
                mark_dead(p);
                __atomic_fetch_add(&sh->kills, 1, __ATOMIC_RELAXED);
                if (st == -1)
                    fxs_fail(NULL, "a killed process did not die");
                /* Half of the time, the explicit recovery path. */
                if (a->reaped && (rng_next(&krng) & 1)) {
                    for (int i = 0; i < cfg.threads; i++) {
                        struct stats *vs = &sh->st[p * cfg.threads + i];
                        pid_t tid = __atomic_load_n(&vs->tid, __ATOMIC_ACQUIRE);
                        int r = tid > 0 ? a->reaped(obj, tid) : EPERM;
                        if (r == 0)
                            sh->reaped_released++;
                        else if (r != EPERM)
                            fxs_fail(NULL, "reaped(%d) returned %d", (int)tid, r);
                        __atomic_store_n(&vs->tid, 0, __ATOMIC_RELEASE);
                    }
                }
                pids[p] = spawn(p);
                respawns++;
                uint64_t x = rng_next(&krng);
                next_kill = now_ns() + (int64_t)(x % (uint64_t)(2 * cfg.kill_ms + 1)) * 1000000;
            }
        }
        /* Zombies of waiter kills a second old (dead for long: no wait). */
        if (nzombies > 0 && zombies[0].killed_ns < now - 1000000000LL)
            reap_zombies(now - 1000000000LL, now + 5000000000LL);
        /* The recovery after a waiter kill: every other live thread has
         * acquired since. The time is when this loop (every 10 ms) first
         * sees it: an upper bound. */
        if (wk_pending) {
            bool all = true;
            for (int i = 0; i < procs * cfg.threads && all; i++) {
                struct stats *st = &sh->st[i];
                if (i / cfg.threads == wkilled ||
                    !__atomic_load_n(&st->live, __ATOMIC_ACQUIRE))
                    continue;
                int64_t t = __atomic_load_n(&st->last_acq_ns, __ATOMIC_RELAXED);
                if (t <= wk_ns)
                    all = false;
            }
            if (all) {
                int64_t d = now_ns() - wk_ns;
                sh->wrecovered++;
                sh->wrec_sum_ns += d;
                if (d < sh->wrec_min_ns)
                    sh->wrec_min_ns = d;
                if (d > sh->wrec_max_ns)
                    sh->wrec_max_ns = d;
                if (d > 1000000000LL)
                    sh->wrec_over_1s++;
                wk_pending = false;
            }
        }
        /* Kill a waiting process. */
        if (wkills && !wk_pending && nzombies < ZOMBIES && now >= next_wkill &&
            !__atomic_load_n(&sh->pending, __ATOMIC_ACQUIRE)) {
            int p = (int)(rng_next(&krng) % (uint64_t)procs);
            bool done = false;
            int64_t until = now_ns() + 50000000; /* look for 50 ms, then later again */
            while (pids[p] > 0 && !stopping() && now_ns() < until) {
                int st = 0;
                int f = freeze(pids[p], &st);
                sh->wlooks++;
                if (f < 0) { /* it ended by itself: a failure */
                    mark_dead(p);
                    pids[p] = -1;
                    fxs_fail(NULL, "worker process %d exited early (%s %d)", p,
                             WIFSIGNALED(st) ? "signal" : "status",
                             WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
                    break;
                }
                if (f > 0 && waiting_and_holding_nothing(p, pids[p])) {
                    kill(pids[p], SIGKILL); /* stopped: it takes no step before it dies */
                    wk_ns = now_ns();
                    done = true;
                    break;
                }
                if (f > 0)
                    kill(pids[p], SIGCONT);
                struct timespec d = {0, 500000}; /* let it run before the next look */
                nanosleep(&d, NULL);
            }
            if (done) {
                mark_dead(p);
                zombies[nzombies].pid = pids[p];
                zombies[nzombies++].killed_ns = wk_ns;
                sh->wkills++;
                sh->wkilled_asleep += (uint64_t)last_asleep;
                /* Frozen when killed, its threads never run user code
                 * again: what only they would have undone can be undone
                 * now, and the slot respawned. */
                if (a->killed)
                    for (int i = 0; i < cfg.threads; i++)
                        a->killed(obj, p * cfg.threads + i);
                pids[p] = spawn(p);
                respawns++;
                wkilled = p;
                wk_pending = true;
                uint64_t x = rng_next(&krng);
                next_wkill = now_ns() + (int64_t)(x % (uint64_t)(2 * cfg.waiter_kill_ms + 1)) * 1000000;
            } else {
                sh->wkill_skipped++;
                next_wkill = now_ns() + (int64_t)cfg.waiter_kill_ms * 1000000;
            }
        }
    }
    double elapsed = (double)(now_ns() - start) / 1e9;
    __atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
    reap_zombies(INT64_MAX, now_ns() + 5000000000LL);

    /* Every thread must finish its operation within the watchdog time after
     * the stop (one deadline for all: a hang costs it once, not once per
     * process): one stuck in a wait is a hang. */
    bool hung = false;
    int64_t finish_by = now_ns() + wd;
    for (int p = 0; p < procs; p++) {
        if (pids[p] <= 0)
            continue;
        int st = reap(pids[p], finish_by - now_ns());
        if (st == -1) {
            if (!hung) {
                fxs_fail(NULL, "threads did not finish within %.1f s after the stop", cfg.watchdog);
                fprintf(stderr, "stress %s: hang; threads still running:\n", a->name);
                describe_threads();
            }
            hung = true;
            kill(pids[p], SIGKILL);
            waitpid(pids[p], &st, 0);
        } else if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
            fxs_fail(NULL, "worker process %d ended with %s %d", p,
                     WIFSIGNALED(st) ? "signal" : "status",
                     WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        }
        mark_dead(p);
    }

    /* The end-of-run checks. */
    uint64_t acq = fxs_total(FXS_N_ACQUIRED), count = 0;
    bool consistent = true;
    if (!hung && a->kind == FXS_LOCK && a->max_holders <= 1) {
        /* A last owner death may be pending: the parent takes the lock once. */
        int r = a->lock(obj);
        if (r == EOWNERDEAD && (a->caps & FXS_OWNER_DEATH)) {
            struct fxs_thread me = {.gi = -1, .id = -1, .rng = 1, .st = &sh->st[MAXTH - 1]};
            if (recover(&me) == 0)
                r = 0;
            acq = fxs_total(FXS_N_ACQUIRED);
        }
        if (r != 0)
            fxs_fail(NULL, "the parent's final lock returned %d", r);
        consistent = rec_consistent(&count);
        if (r == 0 && a->unlock(obj) != 0)
            fxs_fail(NULL, "the parent's final unlock failed");
    } else {
        consistent = rec_consistent(&count);
    }
    if (!hung && a->finish)
        a->finish(obj);
    int64_t lost = (int64_t)(acq - count);
    if (!consistent)
        fxs_fail(NULL, "the record is torn at the end");
    if (a->max_holders <= 1 && lost != 0)
        fxs_fail(NULL, "lost updates: %" PRIu64 " acquisitions, record count %" PRIu64, acq, count);
    if (__atomic_load_n(&sh->owner, __ATOMIC_SEQ_CST) != 0)
        fxs_fail(NULL, "the owner slot is not empty at the end");

    /* The figures. */
    uint64_t ops = fxs_total(FXS_N_OPS);
    printf("  operations        %" PRIu64 " (%.0f/s)\n", ops, (double)ops / elapsed);
    printf("  acquisitions      %" PRIu64 " exclusive, %" PRIu64 " shared\n", acq,
           fxs_total(FXS_N_SHARED));
    printf("  busy (try)        %" PRIu64 "\n", fxs_total(FXS_N_BUSY));
    printf("  timeouts          %" PRIu64 "\n", fxs_total(FXS_N_TIMEOUTS));
    printf("  invalid deadlines %" PRIu64 "\n", fxs_total(FXS_N_BADDEADLINE));
    if (a->kind == FXS_CUSTOM)
        printf("  waits completed   %" PRIu64 "\n", fxs_total(FXS_N_WAITS));
    printf("  signals handled   %" PRIu64 "\n", __atomic_load_n(&sh->signals, __ATOMIC_RELAXED));
    if (kills) {
        printf("  kills survived    %" PRIu64 " (%" PRIu64 " inside the critical section, %" PRIu64
               " processes respawned)\n",
               sh->kills, sh->in_cs_recovered, respawns);
        printf("  recoveries        %" PRIu64 " (record repaired %" PRIu64 " times)\n",
               sh->recoveries, sh->repairs);
        if (a->reaped)
            printf("  explicit recovery %" PRIu64 " locks released by reaped()\n",
                   sh->reaped_released);
        if (sh->recoveries > sh->spurious_deaths)
            printf("  recovery time     min %.3f ms, mean %.3f ms, max %.3f ms\n",
                   (double)sh->rec_min_ns / 1e6,
                   (double)sh->rec_sum_ns / 1e6 / (double)(sh->recoveries - sh->spurious_deaths),
                   (double)sh->rec_max_ns / 1e6);
    }
    if (wkills) {
        printf("  waiter kills      %" PRIu64 " waiting processes killed (%" PRIu64
               " looks at a frozen process; %" PRIu64 " times none found it all waiting "
               "within 50 ms)\n",
               sh->wkills, sh->wlooks, sh->wkill_skipped);
        if (sh->wrecovered > 0)
            printf("  waiter recovery   every other thread acquired again: min %.3f ms, mean %.3f "
                   "ms, max %.3f ms (%" PRIu64 " of %" PRIu64 " over 1 s)\n",
                   (double)sh->wrec_min_ns / 1e6,
                   (double)sh->wrec_sum_ns / 1e6 / (double)sh->wrecovered,
                   (double)sh->wrec_max_ns / 1e6, sh->wrec_over_1s, sh->wrecovered);
    }
    int64_t maxgap = 0;
    for (int i = 0; i < procs * cfg.threads; i++)
        if (sh->st[i].max_gap_ns > maxgap)
            maxgap = sh->st[i].max_gap_ns;
    printf("  longest wait      %.1f ms between two acquisitions of one thread\n",
           (double)maxgap / 1e6);
    printf("  lost updates      %" PRId64 " (record count %" PRIu64 ")\n",
           a->max_holders <= 1 ? lost : 0, count);
    cfg.procs = saved_procs;
    if (sh->failed) {
        printf("  FAIL: %s\n", sh->msg);
        return 1;
    }
    printf("  PASS\n");
    return 0;
}

static const struct fxs_adapter *find(const char *name)
{
    for (int i = 0; i < nadapters; i++)
        if (strcmp(adapters[i]->name, name) == 0)
            return adapters[i];
    return NULL;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: fxstress [--duration S] [--processes N] [--threads N] [--no-signals]\n"
            "                [--signal-us N] [--no-kills] [--kill-ms N] [--watchdog S]\n"
            "                [--no-waiter-kills] [--waiter-kill-ms N]\n"
            "                [--recovery-limit S] [--seed N] [--expect-fail]\n"
            "                (--all | --list | ADAPTER...)\n");
}

int main(int argc, char **argv)
{
    const struct fxs_adapter *run[MAX_ADAPTERS];
    int nrun = 0;
    bool all = false;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(name) (strcmp(a, name) == 0 && v && (i++, 1))
        if (OPT("--duration"))
            cfg.duration = atof(v);
        else if (OPT("--processes"))
            cfg.procs = atoi(v);
        else if (OPT("--threads"))
            cfg.threads = atoi(v);
        else if (OPT("--signal-us"))
            cfg.signal_us = atoi(v);
        else if (OPT("--kill-ms"))
            cfg.kill_ms = atoi(v);
        else if (OPT("--watchdog"))
            cfg.watchdog = atof(v);
        else if (OPT("--recovery-limit"))
            cfg.recovery_limit = atof(v);
        else if (OPT("--seed"))
            cfg.seed = strtoull(v, NULL, 0);
        else if (strcmp(a, "--no-signals") == 0)
            cfg.signals = false;
        else if (strcmp(a, "--no-kills") == 0)
            cfg.kills = false;
        else if (strcmp(a, "--no-waiter-kills") == 0)
            cfg.waiter_kills = false;
        else if (OPT("--waiter-kill-ms"))
            cfg.waiter_kill_ms = atoi(v);
        else if (strcmp(a, "--expect-fail") == 0)
            cfg.expect_fail = true;
        else if (strcmp(a, "--all") == 0)
            all = true;
        else if (strcmp(a, "--list") == 0) {
            for (int k = 0; k < nadapters; k++)
                printf("%-16s %s\n", adapters[k]->name, adapters[k]->what);
            return 0;
        } else if (a[0] == '-') {
            usage();
            return 2;
        } else {
            const struct fxs_adapter *f = find(a);
            if (!f) {
                fprintf(stderr, "fxstress: no adapter %s (--list)\n", a);
                return 2;
            }
            if (nrun < MAX_ADAPTERS)
                run[nrun++] = f;
        }
#undef OPT
    }
    if (all)
        for (int k = 0; k < nadapters && nrun < MAX_ADAPTERS; k++)
            if (strncmp(adapters[k]->name, "broken_", 7) != 0)
                run[nrun++] = adapters[k];
    if (nrun == 0 || cfg.procs < 1 || cfg.procs > MAXP || cfg.threads < 1 || cfg.threads > MAXT ||
        cfg.duration <= 0 || cfg.signal_us < 1 || cfg.kill_ms < 1 || cfg.waiter_kill_ms < 1) {
        usage();
        return 2;
    }
    if (cfg.seed == 0)
        cfg.seed = (uint64_t)now_ns() | 1;

    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    /* A signal sent while a worker is being created must not kill it. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);

    int failed = 0;
    for (int k = 0; k < nrun; k++) {
        int f = run_adapter(run[k]);
        if (cfg.expect_fail) /* the harness must catch a broken primitive */
            printf("  %s\n", f ? "failure expected and found" : "FAIL: a failure was expected");
        failed |= cfg.expect_fail ? !f : f;
    }
    munmap(sh, sizeof *sh);
    return failed;
}
