/*
 * futexsync/barrier.h - an 8-byte, process-shared, reusable barrier.
 *
 * An fx_barrier holds its callers back until a set number of them, the
 * parties, have arrived: fx_barrier_wait waits for the round to end, and
 * fx_barrier_timedwait at most until a deadline.
 *
 *     static fx_barrier b = FX_BARRIER_INIT;   // all-zero bytes
 *     // in each of 4 threads, after its share of a step:
 *     if (fx_barrier_wait(&b, 4) == FX_BARRIER_SERIAL_THREAD)
 *         puts("step done");                   // the last arrival only
 *
 * All-zero bytes are a barrier for any number of parties: each wait gives the
 * count and the first records it, so no init call is needed. It works across
 * processes in MAP_SHARED memory. Rounds repeat without limit. A timed wait
 * that times out withdraws its arrival; a process that dies inside a wait
 * leaves its arrival counted. In memory other processes can reach, a sleeper
 * re-reads the word at least every half second, so a last arrival killed
 * between ending the round and its wake leaves no sleeper asleep for longer;
 * the idle sleepers of one barrier cost one wake-up per period and process,
 * together. In private memory a sleeper rechecks once and then sleeps until
 * woken, as with pthread (docs/reliability.md). A slot value the library never
 * writes gives EINVAL (docs/design/barrier.md). Calls return 0 or a positive
 * errno value; a call whose result is a value returns it (>= 0) or a negative
 * errno value; errno is never set. The one exception: the wait returns
 * FX_BARRIER_SERIAL_THREAD (-1) to the one thread per round that arrived
 * last, as pthread_barrier_wait does.
 */
#ifndef FUTEXSYNC_BARRIER_H
#define FUTEXSYNC_BARRIER_H

#include <stdint.h>
#include <time.h>
#include "futexsync/annotations.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fx_barrier {
    int32_t state;   /* round, sleepers bit, arrivals */
    int32_t parties; /* 0, or the recorded party count */
} fx_barrier;

/* A barrier for any number of parties: all-zero bytes. */
#define FX_BARRIER_INIT { 0, 0 }

/* Returned by the wait to the one thread per round that arrived last (the
 * counterpart of PTHREAD_BARRIER_SERIAL_THREAD; never a valid errno). */
#define FX_BARRIER_SERIAL_THREAD (-1)

/* The most parties a round may have (its arrivals are counted in 15 bits). */
#define FX_BARRIER_MAX_PARTIES 32767

/* Makes *b an unused barrier (the same as zeroing it), forgetting the party
 * count. Not to be called while any thread is inside a wait. Returns 0, or
 * EINVAL for a NULL or misaligned b (nothing written). */
int fx_barrier_init(fx_barrier *b);

/* Arrives at the barrier and sleeps until `parties` threads have arrived in
 * this round. Returns FX_BARRIER_SERIAL_THREAD (the last arrival), 0 (the
 * others), or EINVAL: NULL or misaligned b, parties outside 1 ..
 * FX_BARRIER_MAX_PARTIES, parties different from the count recorded by the
 * first wait (a bug that would otherwise release a round early or hang it),
 * or a slot holding a value the library never writes. Never EINTR.
 * Every write a party made before arriving happens-before everything every
 * party does after the wait returns. Exactly `parties` threads must take part
 * in each round (more threads than that simply start the next round early,
 * which is undefined use).
 * Not a cancellation point (as pthread_barrier_wait), nor is the timed form. */
int fx_barrier_wait(fx_barrier *b, int32_t parties);

/* fx_barrier_wait that gives up at the absolute CLOCK_MONOTONIC deadline
 * (NULL: none), withdrawing its arrival. The round then still needs `parties`
 * arrivals; if it ends at that moment, the wait returns 0 instead. Returns
 * FX_BARRIER_SERIAL_THREAD, 0, ETIMEDOUT, or EINVAL (as for fx_barrier_wait,
 * or a tv_nsec out of range when it would block; the last arrival never
 * blocks). Never EINTR. */
int fx_barrier_timedwait(fx_barrier *b, int32_t parties, const struct timespec *deadline)
    FX_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_BARRIER_H */
