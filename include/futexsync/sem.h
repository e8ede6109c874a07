/*
 * futexsync/sem.h - an 8-byte, process-shared counting semaphore.
 *
 * An fx_sem counts tokens: fx_sem_post adds one, fx_sem_wait takes one,
 * sleeping until there is one, fx_sem_trywait and fx_sem_timedwait take one
 * only now or before a deadline, and fx_sem_value reads the count.
 *
 *     static fx_sem items = FX_SEM_INIT(0);   // all-zero bytes: no token
 *     fx_sem_post(&items);                    // a producer adds one
 *     fx_sem_wait(&items);                    // a consumer takes one or sleeps
 *     int r = fx_sem_trywait(&items);         // 0, or EAGAIN: no token now
 *
 * All-zero bytes hold 0 tokens; FX_SEM_INIT(v) and fx_sem_init start at v.
 * No init call, attribute or destroy is needed; it works across processes in
 * MAP_SHARED memory. post, trywait and a wait that finds a token make no
 * system call while no thread waits. Waits are not FIFO: a thread arriving
 * while a woken one is on its way may take the token first (the woken one
 * then sleeps again). A process killed inside a wait leaves the waiter count
 * one too high, which only costs later posts one futex wake each. In memory
 * other processes can reach, a sleeper re-reads the word at least every half
 * second, so a process killed between a post and its wake, or after a wake
 * picked it but before it returned, leaves no sleeper asleep for longer while
 * a token is there; the idle sleepers of one semaphore cost one wake-up per
 * period and process, together. In private memory a sleeper rechecks once,
 * then sleeps until woken, as with pthread (docs/reliability.md). A negative
 * slot (never written) gives EINVAL from every call, fx_sem_value reading the
 * value slot only; a waiters slot of INT32_MAX, from a wait that would block.
 * Calls return 0 or a positive errno value; a call whose result is a value
 * returns it (>= 0) or a negative errno value; errno is never set.
 */
#ifndef FUTEXSYNC_SEM_H
#define FUTEXSYNC_SEM_H

#include <stdint.h>
#include <time.h>
#include "futexsync/annotations.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fx_sem {
    int32_t value;   /* tokens, 0 .. FX_SEM_VALUE_MAX */
    int32_t waiters; /* threads in a blocking wait, any process */
} fx_sem;

/* A semaphore holding v tokens (0 .. FX_SEM_VALUE_MAX), with no waiter. */
#define FX_SEM_INIT(v) { (v), 0 }

/* The largest value: a post that would exceed it returns EOVERFLOW. (Below
 * INT32_MAX, so that posts racing at the maximum never reach the sign bit.) */
#define FX_SEM_VALUE_MAX 0x3fffffff

/* Sets the value (0 .. FX_SEM_VALUE_MAX) and clears the waiter count. Not to
 * be called while any thread uses the semaphore. Returns 0, or EINVAL for a
 * NULL or misaligned s or a value outside that range. */
int fx_sem_init(fx_sem *s, int32_t value);

/* Adds one token and wakes one waiter if any. Returns 0, EOVERFLOW when the
 * value is already FX_SEM_VALUE_MAX (nothing changes), or EINVAL. A post at
 * the maximum may push the value above it for an instant before taking its
 * increment back. */
int fx_sem_post(fx_sem *s);

/* Takes one token, sleeping until one is posted. Returns 0 or EINVAL (bad s,
 * or a slot holding a value the library never writes). Never EINTR.
 * A cancellation point when it would block, as sem_wait: a deferred
 * pthread_cancel pending when the call finds no token, or arriving while the
 * thread sleeps, acts there; a cancelled wait takes no token and leaves no
 * trace in s (a post's wake that reached it is passed on to another waiter).
 * A call that finds a token takes it and returns without looking for a
 * pending cancellation (POSIX asks sem_wait to look even then; the look
 * would cost the uncontended wait half its time again): the next
 * cancellation point acts on it. */
int fx_sem_wait(fx_sem *s);

/* Takes one token only if one is available now. Returns 0, EAGAIN when the
 * value is 0 (as POSIX sem_trywait), or EINVAL. Not a cancellation point. */
int fx_sem_trywait(fx_sem *s) FX_WARN_UNUSED;

/* fx_sem_wait that gives up at the absolute CLOCK_MONOTONIC deadline (NULL:
 * none). Returns 0 (also when a token is available and the deadline already
 * passed), ETIMEDOUT, or EINVAL (bad s or slot, or tv_nsec out of range when
 * it would block). Never EINTR. A cancellation point, as fx_sem_wait. */
int fx_sem_timedwait(fx_sem *s, const struct timespec *deadline) FX_WARN_UNUSED;

/* The current value (>= 0; a snapshot that may change at once), or -EINVAL
 * for a NULL or misaligned s or a negative value slot. */
int32_t fx_sem_value(const fx_sem *s);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_SEM_H */
