/*
 * tests/fuzz/fuzz_states.c - libFuzzer target: random operation sequences on
 * random slot contents, checked against a specification of each operation.
 *
 * The input is the initial slot contents (an fx_mutex, an
 * fx_counter, a raw futex word, an fx_sem, an fx_rwlock, an fx_cond and the
 * fx_mutex it waits with, an fx_barrier and an fx_once with its robust-list
 * slots: sizeof(struct slots)), then
 * 5-byte operations: an opcode and a 32-bit argument. An operation may also
 * overwrite a slot with an arbitrary value, or with a value the library
 * writes, so every sequence of library states and foreign values is
 * reachable. Each operation's result and the slots it leaves are compared
 * with what the specification (the op_* functions below and tests/fxspec.h,
 * from the headers and the state tables of the sources) says for the slot
 * values before it; a mismatch aborts, which libFuzzer reports with the input
 * that caused it.
 *
 * The fuzzer is single-threaded: an operation that would block forever (lock
 * of a held mutex, a wait without deadline on a value that does not change)
 * is never issued, nor a once call on a flag that names another thread as
 * its running initialiser (it would wait for that thread); timed operations
 * get a deadline that has passed (negative tv_sec, or just past), an invalid
 * tv_nsec, or rarely 20 us ahead.
 *
 *   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DFUTEXSYNC_FUZZ=ON
 *   build-fuzz/tests/fuzz/fuzz_states -max_total_time=60
 */
#define _GNU_SOURCE
#include <errno.h>
#include <futexsync/barrier.h>
#include <futexsync/cond.h>
#include <futexsync/counter.h>
#include <futexsync/futex.h>
#include <futexsync/layout.h>
#include <futexsync/mutex.h>
#include <futexsync/once.h>
#include <stddef.h>
#include <futexsync/rwlock.h>
#include <futexsync/sem.h>
#include <futexsync/time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fxspec.h"

struct slots {
    fx_mutex m;
    fx_counter c;
    int32_t word;
    fx_sem sem;
    fx_rwlock rw;
    fx_cond cond;
    fx_mutex cm; /* the cond's mutex, right after it: its token is 16 */
    fx_barrier b;
    fx_once once;
};
#define NSLOTS ((int)(sizeof(struct slots) / sizeof(int32_t)))
/* Slots 0..14 the other objects, 15 padding, then the fx_once (its word is
 * slot ONCE_SLOT) with its robust-list slots. */
#define ONCE_SLOT ((int)(offsetof(struct slots, once) / sizeof(int32_t)))
_Static_assert(offsetof(struct slots, once) == 64 && sizeof(struct slots) == 64 + sizeof(fx_once),
               "15 slots and a pad, then the fx_once");

static void fail(const char *what, int64_t got, int64_t want, int32_t before)
{
    fprintf(stderr, "fuzz_states: %s: got %lld, specified %lld (slot before: %d)\n", what,
            (long long)got, (long long)want, (int)before);
    abort();
}
#define EXPECT(what, got, want, before)                                   \
    do {                                                                  \
        int64_t g_ = (got), w_ = (want);                                  \
        if (g_ != w_)                                                     \
            fail(what, g_, w_, before);                                   \
    } while (0)

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A deadline chosen by the argument: never one that makes a wait long. */
static struct timespec deadline_of(uint32_t arg, int *bad)
{
    *bad = 0;
    switch ((arg >> 24) & 7) {
    case 0:
    case 1:
        return (struct timespec){.tv_sec = -1 - (time_t)(arg & 0xff), .tv_nsec = (long)(arg & 0xffff)};
    case 2:
    case 3:
        return fx_deadline_in(-(int64_t)(arg & 0xffffff)); /* just past */
    case 4:
        *bad = 1;
        return (struct timespec){.tv_sec = 0, .tv_nsec = 1000000000L + (long)(arg & 0xffff)};
    case 5:
        *bad = 1;
        return (struct timespec){.tv_sec = 1, .tv_nsec = -1 - (long)(arg & 0xffff)};
    case 6:
        if ((arg & 0xff) == 0)
            return fx_deadline_in(20 * FX_NSEC_PER_USEC); /* rarely a real wait */
        return (struct timespec){.tv_sec = 0, .tv_nsec = 0};
    default:
        return (struct timespec){.tv_sec = 0, .tv_nsec = 999999999L};
    }
}

/* The specification of fx_mutex on one state value. */
static int held(int32_t v) { return v == FX_MUTEX_LOCKED || v == FX_MUTEX_CONTENDED; }
static int foreign(int32_t v) { return !(v == FX_MUTEX_UNLOCKED || held(v)); }

static void op_mutex(struct slots *s, uint8_t op, uint32_t arg)
{
    int32_t v = s->m.state;
    int r, bad;
    struct timespec d;
    switch (op) {
    case 0: /* trylock */
        r = fx_mutex_trylock(&s->m);
        EXPECT("trylock result", r, foreign(v) ? EINVAL : held(v) ? EBUSY : 0, v);
        EXPECT("trylock state", s->m.state, v == FX_MUTEX_UNLOCKED ? FX_MUTEX_LOCKED : v, v);
        break;
    case 1: /* lock, only where it cannot block */
        if (held(v))
            return;
        r = fx_mutex_lock(&s->m);
        EXPECT("lock result", r, foreign(v) ? EINVAL : 0, v);
        EXPECT("lock state", s->m.state, foreign(v) ? v : FX_MUTEX_LOCKED, v);
        break;
    case 2: /* timedlock */
        d = deadline_of(arg, &bad);
        r = fx_mutex_timedlock(&s->m, &d);
        if (foreign(v)) {
            EXPECT("timedlock result (foreign)", r, EINVAL, v);
            EXPECT("timedlock state (foreign)", s->m.state, v, v);
        } else if (v == FX_MUTEX_UNLOCKED) {
            EXPECT("timedlock result (free)", r, 0, v);
            EXPECT("timedlock state (free)", s->m.state, FX_MUTEX_LOCKED, v);
        } else {
            /* It marks the word CONTENDED before it would sleep. */
            EXPECT("timedlock result (held)", r, bad ? EINVAL : ETIMEDOUT, v);
            EXPECT("timedlock state (held)", s->m.state, FX_MUTEX_CONTENDED, v);
        }
        break;
    case 3: /* unlock */
        r = fx_mutex_unlock(&s->m);
        EXPECT("unlock result", r, foreign(v) ? EINVAL : held(v) ? 0 : EPERM, v);
        EXPECT("unlock state", s->m.state, foreign(v) ? v : FX_MUTEX_UNLOCKED, v);
        break;
    default: /* init */
        fx_mutex_init(&s->m);
        EXPECT("init state", s->m.state, FX_MUTEX_UNLOCKED, v);
        break;
    }
}

static void op_counter(struct slots *s, uint8_t op, uint32_t arg)
{
    int32_t v = s->c.value, w = s->c.waiters;
    int32_t target;
    int r, bad;
    struct timespec d;
    switch (op) {
    case 0: /* add: wraps modulo 2^32 */
        r = (int)fx_counter_add(&s->c, (int32_t)arg);
        EXPECT("add result", (int32_t)r, (int32_t)((uint32_t)v + arg), v);
        EXPECT("add value", s->c.value, (int32_t)((uint32_t)v + arg), v);
        break;
    case 1:
        fx_counter_store(&s->c, (int32_t)arg);
        EXPECT("store value", s->c.value, (int32_t)arg, v);
        break;
    case 2:
        EXPECT("load", fx_counter_load(&s->c), v, v);
        break;
    case 3: /* wait for the current value: at once, whatever the rest */
        d = deadline_of(arg, &bad);
        r = fx_counter_wait(&s->c, v, (arg & 1) ? &d : NULL);
        EXPECT("wait (current) result", r, 0, v);
        break;
    case 4: /* wait for another value */
        d = deadline_of(arg, &bad);
        target = (int32_t)((uint32_t)v + (arg | 1));
        r = fx_counter_wait(&s->c, target, &d);
        /* A waiters slot the library never writes (negative, or INT32_MAX,
         * which the waiter's count would wrap) is refused before any wait. */
        EXPECT("wait (other) result", r, (w < 0 || w == INT32_MAX || bad) ? EINVAL : ETIMEDOUT,
               w);
        EXPECT("wait (other) value", s->c.value, v, v);
        break;
    default:
        fx_counter_init(&s->c, (int32_t)arg);
        EXPECT("init value", s->c.value, (int32_t)arg, v);
        EXPECT("init waiters", s->c.waiters, 0, w);
        return;
    }
    /* Only a wait touches waiters, and it restores it before returning. */
    EXPECT("waiters slot", s->c.waiters, w, w);
}

static void op_futex(struct slots *s, uint8_t op, uint32_t arg)
{
    int32_t v = s->word;
    int r, bad;
    struct timespec d = deadline_of(arg, &bad);
    switch (op) {
    case 0: /* wait on the current value */
        r = fx_futex_wait(&s->word, v, &d);
        EXPECT("futex wait (current)", r, bad ? EINVAL : ETIMEDOUT, v);
        break;
    case 1: /* wait on another value */
        r = fx_futex_wait(&s->word, (int32_t)((uint32_t)v ^ (arg | 1u)), NULL);
        EXPECT("futex wait (other)", r, EAGAIN, v);
        break;
    default: { /* wake: nobody sleeps */
        int count = (int)arg;
        r = fx_futex_wake(&s->word, count);
        EXPECT("futex wake", r, count < 0 ? -EINVAL : 0, v);
        break;
    }
    }
    EXPECT("futex word", s->word, v, v);
}

/* Entry points given a NULL or misaligned object. */
static void op_badptr_fn(void *arg)
{
    (void)arg;
    abort(); /* never called: the flag is rejected first */
}
static void op_badptr(uint32_t arg)
{
    static int32_t buf[4];
    void *p = (arg & 1) ? NULL : (void *)((char *)buf + 1 + (arg >> 1) % 3);
    struct timespec d = {.tv_sec = -1, .tv_nsec = 0};
    EXPECT("bad mutex lock", fx_mutex_lock(p), EINVAL, 0);
    EXPECT("bad mutex trylock", fx_mutex_trylock(p), EINVAL, 0);
    EXPECT("bad mutex timedlock", fx_mutex_timedlock(p, &d), EINVAL, 0);
    EXPECT("bad mutex unlock", fx_mutex_unlock(p), EINVAL, 0);
    EXPECT("bad counter wait", fx_counter_wait(p, 0, &d), EINVAL, 0);
    EXPECT("bad counter add", fx_counter_add(p, 1), 0, 0);
    EXPECT("bad futex wait", fx_futex_wait(p, 0, &d), EINVAL, 0);
    EXPECT("bad futex wake", fx_futex_wake(p, 1), -EINVAL, 0);
    EXPECT("bad sem post", fx_sem_post(p), EINVAL, 0);
    EXPECT("bad sem timedwait", fx_sem_timedwait(p, &d), EINVAL, 0);
    EXPECT("bad sem value", fx_sem_value(p), -EINVAL, 0);
    EXPECT("bad rwlock timedrdlock", fx_rwlock_timedrdlock(p, &d), EINVAL, 0);
    EXPECT("bad rwlock timedwrlock", fx_rwlock_timedwrlock(p, &d), EINVAL, 0);
    EXPECT("bad rwlock unlock", fx_rwlock_unlock(p), EINVAL, 0);
    EXPECT("bad cond signal", fx_cond_signal(p), EINVAL, 0);
    EXPECT("bad cond broadcast", fx_cond_broadcast(p), EINVAL, 0);
    EXPECT("bad barrier timedwait", fx_barrier_timedwait(p, 2, &d), EINVAL, 0);
    EXPECT("bad once call", fx_once_call(p, op_badptr_fn, NULL), EINVAL, 0);
    for (int i = 0; i < 4; i++)
        EXPECT("misaligned calls wrote nothing", buf[i], 0, 0);
}


/* The specification of fx_sem (src/sem.c: value >= 0, waiters >= 0). Every
 * operation but fx_sem_value reads both slots: a negative one gives EINVAL
 * and changes nothing (issue 11, class 9). */
static void op_sem(struct slots *s, uint8_t op, uint32_t arg)
{
    int32_t v = s->sem.value, w = s->sem.waiters;
    bool ill = v < 0 || w < 0;
    int r, bad;
    struct timespec d;
    switch (op) {
    case 0: /* post */
        r = fx_sem_post(&s->sem);
        EXPECT("sem post result", r, ill ? EINVAL : v >= FX_SEM_VALUE_MAX ? EOVERFLOW : 0, v);
        EXPECT("sem post value", s->sem.value, !ill && v < FX_SEM_VALUE_MAX ? v + 1 : v, v);
        break;
    case 1: /* trywait */
        r = fx_sem_trywait(&s->sem);
        EXPECT("sem trywait result", r, ill ? EINVAL : v == 0 ? EAGAIN : 0, v);
        EXPECT("sem trywait value", s->sem.value, !ill && v > 0 ? v - 1 : v, v);
        break;
    case 2: /* timedwait: a token is taken whatever the deadline */
        d = deadline_of(arg, &bad);
        r = fx_sem_timedwait(&s->sem, &d);
        /* Blocking would count the caller: a waiters slot of INT32_MAX,
         * which that would wrap, is refused (EINVAL). */
        EXPECT("sem timedwait result", r,
               ill                               ? EINVAL
               : v > 0                           ? 0
               : (bad || w == INT32_MAX)         ? EINVAL
                                                 : ETIMEDOUT,
               v);
        EXPECT("sem timedwait value", s->sem.value, !ill && v > 0 ? v - 1 : v, v);
        break;
    case 3: /* wait, only where it returns at once */
        if (v == 0 && w >= 0)
            return;
        r = fx_sem_wait(&s->sem);
        EXPECT("sem wait result", r, ill ? EINVAL : 0, v);
        EXPECT("sem wait value", s->sem.value, !ill ? v - 1 : v, v);
        break;
    case 4:
        EXPECT("sem value", fx_sem_value(&s->sem), v < 0 ? -EINVAL : v, v);
        break;
    default: { /* init */
        int32_t nv = (int32_t)(arg % 4 == 0 ? arg : arg % 8);
        bool ok = nv >= 0 && nv <= FX_SEM_VALUE_MAX;
        r = fx_sem_init(&s->sem, nv);
        EXPECT("sem init result", r, ok ? 0 : EINVAL, v);
        EXPECT("sem init value", s->sem.value, ok ? nv : v, v);
        EXPECT("sem init waiters", s->sem.waiters, ok ? 0 : w, w);
        return;
    }
    }
    /* Only a wait touches waiters, and it restores it before returning. */
    EXPECT("sem waiters slot", s->sem.waiters, w, w);
}

/* The specification of fx_rwlock: tests/fxspec.h (src/rwlock.c's table). */
static void op_rwlock(struct slots *s, uint8_t op, uint32_t arg)
{
    uint32_t v = (uint32_t)s->rw.state, want = v, seq = (uint32_t)s->rw.writer_seq;
    int r, e, bad;
    struct timespec d = deadline_of(arg, &bad);
    int dl = bad ? FXSPEC_DL_BAD : FXSPEC_DL_PAST;
    switch (op) {
    case 0:
        r = fx_rwlock_tryrdlock(&s->rw);
        e = fxspec_rw_tryrdlock(&want);
        break;
    case 1:
        r = fx_rwlock_trywrlock(&s->rw);
        e = fxspec_rw_trywrlock(&want);
        break;
    case 2:
        r = fx_rwlock_timedrdlock(&s->rw, &d);
        e = fxspec_rw_rdlock(&want, &seq, dl);
        break;
    case 3:
        r = fx_rwlock_timedwrlock(&s->rw, &d);
        e = fxspec_rw_wrlock(&want, &seq, dl);
        break;
    case 4:
        r = fx_rwlock_unlock(&s->rw);
        e = fxspec_rw_unlock(&want, &seq);
        break;
    case 5:
        r = fx_rwlock_rdunlock(&s->rw);
        e = fxspec_rw_rdunlock(&want, &seq);
        break;
    case 6:
        r = fx_rwlock_wrunlock(&s->rw);
        e = fxspec_rw_wrunlock(&want, &seq);
        break;
    case 7: /* rdlock, only where it returns at once */
        if (!fxspec_rw_rd_nonblocking(v))
            return;
        r = fx_rwlock_rdlock(&s->rw);
        e = fxspec_rw_rdlock(&want, &seq, FXSPEC_DL_NONE);
        break;
    case 8:
        if (!fxspec_rw_wr_nonblocking(v))
            return;
        r = fx_rwlock_wrlock(&s->rw);
        e = fxspec_rw_wrlock(&want, &seq, FXSPEC_DL_NONE);
        break;
    default:
        fx_rwlock_init(&s->rw);
        EXPECT("rwlock init state", s->rw.state, 0, (int32_t)v);
        EXPECT("rwlock init writer_seq", s->rw.writer_seq, 0, (int32_t)v);
        return;
    }
    EXPECT("rwlock result", r, e, (int32_t)v);
    EXPECT("rwlock state", s->rw.state, (int32_t)want, (int32_t)v);
    EXPECT("rwlock writer_seq", s->rw.writer_seq, (int32_t)seq, (int32_t)v);
}

/* The specification of fx_cond (src/cond.c's table) with its mutex cm. */
static void op_cond(struct slots *s, uint8_t op, uint32_t arg)
{
    fx_cond c0 = s->cond;
    int32_t m0 = s->cm.state;
    fx_cond want = c0;
    int32_t mwant = m0;
    int r, e, bad;
    struct timespec d;
    bool cond_ok = c0.waiters >= 0 && c0.park == 0 && fxspec_cond_token_written(c0.mutex);
    bool mutex_ok = m0 == FX_MUTEX_UNLOCKED || m0 == FX_MUTEX_LOCKED || m0 == FX_MUTEX_CONTENDED;
    switch (op) {
    case 0: /* signal: reads waiters only */
        r = fx_cond_signal(&s->cond);
        e = c0.waiters < 0 ? EINVAL : 0;
        if (c0.waiters > 0 && (c0.seq & FX_COND_ARMED))
            want.seq = fxspec_cond_advance(c0.seq);
        break;
    case 1: /* broadcast: reads park and waiters */
        r = fx_cond_broadcast(&s->cond);
        e = (c0.park != 0 || c0.waiters < 0) ? EINVAL : 0;
        if (e == 0 && c0.waiters > 0)
            want.seq = ((c0.seq & FX_COND_ARMED) ? fxspec_cond_advance(c0.seq) : c0.seq) |
                       FX_COND_BCAST;
        break;
    case 2: /* timedwait: EINVAL/EPERM before waiting, or a time-out */
        d = deadline_of(arg, &bad);
        r = fx_cond_timedwait(&s->cond, &s->cm, &d);
        if (bad || !cond_ok || !mutex_ok || c0.waiters == INT32_MAX) {
            e = EINVAL;
        } else if (m0 == FX_MUTEX_UNLOCKED) {
            e = EPERM;
        } else {
            e = ETIMEDOUT;
            /* W1 arms; the last waiter out clears BCAST; the token is this
             * mutex's, or MIXED when other waiters are counted with another;
             * the mutex comes back LOCKED, or CONTENDED for a waiter that
             * may have been moved to its word (BCAST seen). */
            want.seq = c0.seq | FX_COND_ARMED;
            if (c0.waiters == 0)
                want.seq &= ~FX_COND_BCAST;
            want.mutex = (c0.waiters == 0 || c0.mutex == 16) ? 16 : 2;
            mwant = (c0.seq & FX_COND_BCAST) ? FX_MUTEX_CONTENDED : FX_MUTEX_LOCKED;
        }
        break;
    case 3: /* wait, only where it returns at once */
        /* A waiters count its increment would wrap is refused up front. */
        if (cond_ok && mutex_ok && m0 != FX_MUTEX_UNLOCKED && c0.waiters != INT32_MAX)
            return;
        r = fx_cond_wait(&s->cond, &s->cm);
        e = (cond_ok && mutex_ok && c0.waiters != INT32_MAX) ? EPERM : EINVAL;
        break;
    case 4:
        fx_cond_init(&s->cond);
        memset(&want, 0, sizeof want);
        r = e = 0;
        break;
    default: /* the cond's mutex: a state the library writes */
        s->cm.state = (int32_t)(arg % 3);
        return;
    }
    EXPECT("cond result", r, e, c0.seq);
    EXPECT("cond seq", s->cond.seq, want.seq, c0.seq);
    EXPECT("cond waiters", s->cond.waiters, want.waiters, c0.waiters);
    EXPECT("cond mutex token", s->cond.mutex, want.mutex, c0.mutex);
    EXPECT("cond park", s->cond.park, want.park, c0.park);
    EXPECT("cond's mutex word", s->cm.state, mwant, m0);
}

/* The specification of fx_barrier: tests/fxspec.h (src/barrier.c's table). */
static void op_barrier(struct slots *s, uint8_t op, uint32_t arg)
{
    uint32_t st = (uint32_t)s->b.state, want = st;
    int32_t p = s->b.parties, pwant = p;
    /* The recorded count, or a small one. */
    int32_t n = (arg & 1) && p >= 1 && p <= FX_BARRIER_MAX_PARTIES ? p : 1 + (int32_t)(arg >> 1) % 4;
    int r, e, bad;
    struct timespec d;
    switch (op) {
    case 0:
        d = deadline_of(arg, &bad);
        r = fx_barrier_timedwait(&s->b, n, &d);
        e = fxspec_barrier_wait(&want, &pwant, n, bad ? FXSPEC_DL_BAD : FXSPEC_DL_PAST);
        break;
    case 1: /* wait, only where it returns at once */
        if (fxspec_barrier_wait(&want, &pwant, n, FXSPEC_DL_PAST) == ETIMEDOUT)
            return;
        want = st;
        pwant = p;
        r = fx_barrier_wait(&s->b, n);
        e = fxspec_barrier_wait(&want, &pwant, n, FXSPEC_DL_NONE);
        break;
    case 2: /* a party count out of range */
        r = fx_barrier_wait(&s->b, (arg & 1) ? 0 : FX_BARRIER_MAX_PARTIES + 1 + (int32_t)(arg >> 16));
        e = EINVAL;
        break;
    default:
        fx_barrier_init(&s->b);
        want = 0;
        pwant = 0;
        r = e = 0;
        break;
    }
    EXPECT("barrier result", r, e, (int32_t)st);
    EXPECT("barrier state", s->b.state, (int32_t)want, (int32_t)st);
    EXPECT("barrier parties", s->b.parties, pwant, p);
}

/* The specification of fx_once (src/once.c's table). */
static int once_runs;
static void once_fn(void *arg)
{
    (void)arg;
    once_runs++;
}
static void op_once(struct slots *s, uint8_t op, uint32_t arg)
{
    (void)arg;
    int32_t v = s->once.state;
    static int32_t self;
    if (self == 0)
        self = (int32_t)syscall(SYS_gettid);
    bool running = (v & FX_ONCE_RUNNING) != 0;
    int32_t id = v & ~(FX_ONCE_RUNNING | FX_ONCE_WAITERS);
    bool abandoned = running && id == 0; /* the kernel's mark: run again */
    bool tid = running && (id & FX_ONCE_TID_MASK) != 0 &&
               !((id & FX_ONCE_LOCALNS) && !(id & FX_ONCE_PROBED)) &&
               (id & ~(FX_ONCE_LOCALNS | FX_ONCE_PROBED | FX_ONCE_TID_MASK)) == 0;
    /* Our TID in a PROBED word without LOCALNS (the fuzzer runs in the
     * initial PID namespace): a dead thread's, taken over. */
    bool mine = tid && (id & (FX_ONCE_PROBED | FX_ONCE_LOCALNS)) == FX_ONCE_PROBED &&
                (id & FX_ONCE_TID_MASK) == self;
    bool written = running ? (abandoned || tid) : (v == FX_ONCE_NOT_RUN || v == FX_ONCE_DONE);
    if (tid && !mine)
        return; /* it would wait for that thread (or take over after 100 ms) */
    once_runs = 0;
    int r = fx_once_call(&s->once, op ? once_fn : NULL, NULL);
    if (!op) {
        EXPECT("once (NULL fn) result", r, EINVAL, v);
        EXPECT("once (NULL fn) state", s->once.state, v, v);
        return;
    }
    /* Our TID outside its initialiser: a dead thread's, taken over. */
    EXPECT("once result", r, !written ? EINVAL : 0, v);
    EXPECT("once runs", once_runs, (v == FX_ONCE_NOT_RUN || abandoned || mine) ? 1 : 0, v);
    EXPECT("once state", s->once.state,
           (v == FX_ONCE_NOT_RUN || v == FX_ONCE_DONE || abandoned || mine) ? FX_ONCE_DONE : v,
           v);
}

/* A value the library writes, into one of the new primitives' slots. */
static void library_value(struct slots *s, uint8_t op, uint32_t arg)
{
    static const int32_t rw_bits[] = {0, 1, 2, (int32_t)FX_RWLOCK_WRITE_LOCKED,
                                      FX_RWLOCK_WRITER_PENDING, FX_RWLOCK_READERS_WAITING,
                                      FX_RWLOCK_WRITERS_WAITING, FX_RWLOCK_MAX_READERS};
    switch (op % 6) {
    case 0:
        s->sem.value = (int32_t)(arg % 4);
        break;
    case 1: { /* an OR of some of the rwlock's bits */
        uint32_t v = 0;
        for (int i = 0; i < 8; i++)
            if (arg & (1u << i))
                v |= (uint32_t)rw_bits[i];
        s->rw.state = (int32_t)v;
        break;
    }
    case 2:
        s->cond.waiters = (int32_t)(arg % 3);
        s->cond.seq = (int32_t)(arg >> 2);
        break;
    case 3:
        s->cond.mutex = (arg & 1) ? 16 : (int32_t)(arg % 3);
        break;
    case 4:
        s->b.parties = (int32_t)(arg % 5);
        s->b.state = (int32_t)((arg >> 8) & 0xffff8000u) | (int32_t)(arg % 4);
        break;
    default: {
        static int32_t self;
        if (self == 0)
            self = (int32_t)syscall(SYS_gettid);
        /* A dead PROBED thread's word naming us, the kernel's mark of an
         * abandoned initialiser, DONE or NOT_RUN. */
        int32_t w = (int32_t)(arg & (uint32_t)FX_ONCE_WAITERS);
        s->once.state = (arg & 3) == 0   ? FX_ONCE_RUNNING | FX_ONCE_PROBED | w | self
                        : (arg & 3) == 1 ? FX_ONCE_RUNNING | w
                        : (arg & 3) == 2 ? FX_ONCE_DONE
                                         : FX_ONCE_NOT_RUN;
        break;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct slots s;
    int32_t *slot = (int32_t *)&s;
    uint8_t init[sizeof s] = {0};
    memcpy(init, data, size < sizeof s ? size : sizeof s);
    for (int i = 0; i < NSLOTS; i++)
        slot[i] = (int32_t)rd32(init + 4 * i);
    for (size_t i = sizeof s; i + 5 <= size; i += 5) {
        uint8_t op = data[i];
        uint32_t arg = rd32(data + i + 1);
        switch (op >> 4) {
        case 0:
        case 1:
            op_mutex(&s, op % 5, arg);
            break;
        case 2:
        case 3:
            op_counter(&s, op % 6, arg);
            break;
        case 4:
            op_futex(&s, op % 3, arg);
            break;
        case 5: /* a foreign write into one slot */
            slot[(op & 15) == 15 ? ONCE_SLOT : (op & 15)] = (int32_t)arg;
            break;
        case 6:
            op_badptr(arg);
            break;
        case 7: /* a small library value into the mutex: states it writes */
            s.m.state = (int32_t)(arg % 4);
            break;
        case 8:
            op_sem(&s, op % 6, arg);
            break;
        case 9:
        case 10:
            op_rwlock(&s, op % 10, arg);
            break;
        case 11:
        case 12:
            op_cond(&s, op % 6, arg);
            break;
        case 13:
            op_barrier(&s, op % 4, arg);
            break;
        case 14:
            op_once(&s, op % 2, arg);
            break;
        default:
            library_value(&s, op, arg);
            break;
        }
    }
    return 0;
}
