/*
 * src/internal/probe_periods.h - when the waiters of a PROBED owner (an
 * fx_rmutex owner or fx_once initialiser whose thread has no usable robust
 * list, so the kernel will not report its death) check that it lives.
 *
 * Tuning, not contract: the public headers state the bound these give in
 * words (a waiter notices a dead owner at most a quarter of a second after
 * the death or after its own arrival). The schedule: docs/design/rmutex.md
 * ("How owner death is detected") and docs/design/once.md.
 */
#ifndef FXI_INTERNAL_PROBE_PERIODS_H
#define FXI_INTERNAL_PROBE_PERIODS_H

/* fx_rmutex: an acquirer that finds the mutex held by a PROBED owner checks
 * the owner's liveness after FXI_RMUTEX_FIRST_CHECK_MS of waiting; then the
 * process's prober checks for it every FXI_RMUTEX_LONG_RECHECK_MS (the
 * waiting engine's look period, FXI_PROBE_NS), or, where waiters cannot
 * share that, each checks every FXI_RMUTEX_RECHECK_MS, and every
 * FXI_RMUTEX_LONG_RECHECK_MS once it has watched the same owner for
 * FXI_RMUTEX_LONG_AFTER_MS. A trylock checks the same owner at most once
 * per FXI_RMUTEX_RECHECK_MS per thread. */
#define FXI_RMUTEX_FIRST_CHECK_MS  1
#define FXI_RMUTEX_RECHECK_MS      50
#define FXI_RMUTEX_LONG_AFTER_MS   100
#define FXI_RMUTEX_LONG_RECHECK_MS 250

/* fx_once: a caller sleeping on a PROBED initialiser checks it
 * FXI_ONCE_CHECK_MS after its first sleep, then at each look of the waiting
 * engine, or, where the engine cannot run, every FXI_ONCE_CHECK_MS. */
#define FXI_ONCE_CHECK_MS 100

#endif /* FXI_INTERNAL_PROBE_PERIODS_H */
