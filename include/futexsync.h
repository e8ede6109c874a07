/*
 * futexsync.h - umbrella header: every futexsync primitive.
 *
 * futexsync is a static C library of Linux futex-based synchronization
 * primitives. Each one is a few 4-byte-aligned int32_t slots that may live
 * anywhere (a global, a struct field, MAP_SHARED memory used by several
 * processes); all-zero bytes are a valid, unlocked object. Deadlines are
 * absolute CLOCK_MONOTONIC timespecs.
 *
 * Not included here: futexsync/layout.h, the encoding of the objects' slots,
 * for programs that read or write the words themselves; and
 * futexsync/stats.h, the statistics of the stats build. Include them where
 * they are used.
 *
 * Returns (README, Conventions): 0 or a positive errno value; a call whose
 * result is a value returns it (>= 0) or a negative errno value; errno is
 * never set.
 */
#ifndef FUTEXSYNC_H
#define FUTEXSYNC_H

#include <errno.h> /* EOWNERDEAD, ETIMEDOUT...: the values the calls return */
#include "futexsync/version.h"
#include "futexsync/annotations.h"
#include "futexsync/time.h"
#include "futexsync/futex.h"
#include "futexsync/mutex.h"
#include "futexsync/counter.h"
#include "futexsync/async.h"
#include "futexsync/rmutex.h"
#include "futexsync/cond.h"
#include "futexsync/sem.h"
#include "futexsync/rwlock.h"
#include "futexsync/barrier.h"
#include "futexsync/once.h"
#include "futexsync/worker.h"

#endif /* FUTEXSYNC_H */
