/*
 * src/internal/tid.h - the calling thread's kernel TID, cached, and whether
 * another TID is still alive.
 *
 * fx_tid() returns gettid() of the calling thread. The first call in a thread
 * makes the system call and keeps the answer in an initial-exec TLS variable,
 * so every later call is one %fs-relative load and a test: owner-tracked
 * primitives (fx_rmutex) call it on their fast paths.
 *
 * Fork safety: a pthread_atfork child handler, registered once per process
 * (pthread_once) before any thread caches its TID, clears the cache in the
 * child, whose only thread has a new TID. A forked child therefore never acts
 * with its parent's TID. Limits, by construction of the mechanism:
 *   - children made without the atfork handlers (a raw clone() or _Fork(),
 *     a vfork() child that calls anything but exec/_exit) inherit the cached
 *     value and would act with the parent thread's TID;
 *   - the TID is relative to the caller's PID namespace: threads sharing an
 *     owner-tracked object must live in the same PID namespace;
 *   - a TID is reused by the kernel after the PID counter wraps at
 *     /proc/sys/kernel/pid_max (32768 by default): a TID names a thread only
 *     while that thread lives.
 * The TLS model is initial-exec: fine for executables and the static library
 * they link; a shared object built from it and loaded with dlopen() needs
 * glibc's surplus static TLS, which is normally available for one int.
 */
#ifndef FX_INTERNAL_TID_H
#define FX_INTERNAL_TID_H

#include <stdbool.h>
#include <sys/types.h>

/* The cache: 0 until the thread's first fx_tid() (and again in a fork child). */
extern _Thread_local pid_t fx_tid_cache __attribute__((tls_model("initial-exec")));

/* Fills the cache (registering the fork handler first); returns the TID. */
pid_t fx_tid_slow(void);

/* The calling thread's kernel TID, > 0. No system call after the first. */
static inline pid_t fx_tid(void)
{
    pid_t t = fx_tid_cache;
    return __builtin_expect(t != 0, 1) ? t : fx_tid_slow();
}

/* True when no live thread has this TID in the caller's PID namespace: its
 * /proc/<tid>/stat is missing or shows state Z (zombie: exited, not yet reaped
 * by its parent) or X (dead). When /proc/<tid>/stat cannot be opened at all (no
 * /proc, or hidepid hides other users' threads) the answer is
 * kill(tid, 0) == ESRCH, which cannot see zombies. Costs a few microseconds
 * (open/read/close of a procfs file; measured ~5 us): never call it on a fast
 * path. errno is preserved. */
bool fx_tid_dead(pid_t tid);

#endif /* FX_INTERNAL_TID_H */
