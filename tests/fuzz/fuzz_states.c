/*
 * tests/fuzz/fuzz_states.c - libFuzzer target: random operation sequences on
 * random slot contents, checked against a specification of each operation.
 *
 * The input is 16 bytes of initial slot contents (an fx_mutex, an fx_counter
 * and a raw futex word), then 5-byte operations: an opcode and a 32-bit
 * argument. An operation may also overwrite a slot with an arbitrary value,
 * so every sequence of library states and foreign values is reachable. Each
 * operation's result and the slots it leaves are compared with what the
 * specification (spec_* below, from the headers and the state tables of
 * src/mutex.c and src/counter.c) says for the slot values before it; a
 * mismatch aborts, which libFuzzer reports with the input that caused it.
 *
 * The fuzzer is single-threaded: an operation that would block forever (lock
 * of a held mutex, a wait without deadline on a value that does not change)
 * is never issued; timed operations get a deadline that has passed (negative
 * tv_sec, or just past), an invalid tv_nsec, or rarely 20 us ahead.
 *
 *   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DFUTEXSYNC_FUZZ=ON
 *   build-fuzz/tests/fuzz/fuzz_states -max_total_time=60
 */
#define _GNU_SOURCE
#include <errno.h>
#include <futexsync/counter.h>
#include <futexsync/futex.h>
#include <futexsync/mutex.h>
#include <futexsync/time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct slots {
    fx_mutex m;
    fx_counter c;
    int32_t word;
};

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
        EXPECT("wait (other) result", r, (w < 0 || bad) ? EINVAL : ETIMEDOUT, w);
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
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct slots s;
    uint8_t init[16] = {0};
    memcpy(init, data, size < 16 ? size : 16);
    s.m.state = (int32_t)rd32(init);
    s.c.value = (int32_t)rd32(init + 4);
    s.c.waiters = (int32_t)rd32(init + 8);
    s.word = (int32_t)rd32(init + 12);
    for (size_t i = 16; i + 5 <= size; i += 5) {
        uint8_t op = data[i];
        uint32_t arg = rd32(data + i + 1);
        switch (op >> 5) {
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
            switch (op & 3) {
            case 0: s.m.state = (int32_t)arg; break;
            case 1: s.c.value = (int32_t)arg; break;
            case 2: s.c.waiters = (int32_t)arg; break;
            default: s.word = (int32_t)arg; break;
            }
            break;
        case 6:
            op_badptr(arg);
            break;
        default: /* a small library value into the mutex: states it writes */
            s.m.state = (int32_t)(arg % 4);
            break;
        }
    }
    return 0;
}
