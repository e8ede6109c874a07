/*
 * futexsync/once.h - a process-shared run-once flag.
 *
 * An fx_once runs an initialiser once: the first fx_once_call on the flag runs
 * it, later ones return once it has returned, and callers that arrive while it
 * runs wait for it.
 *
 *     static fx_once once;                     // all-zero bytes: not run
 *     void init_tables(void *arg);             // run again if a run dies
 *     if (fx_once_call(&once, init_tables, NULL) == 0)
 *         puts("the tables are ready");        // else EDEADLK or EINVAL
 *
 * All-zero bytes (FX_ONCE_INIT) are a flag whose initialiser has not run; no
 * init call is needed, and the flag works across processes in MAP_SHARED
 * memory. Once the initialiser has returned, fx_once_call is one acquire load:
 * no system call, no write. If the initialiser does not return (its thread
 * exits or is cancelled inside it, a C++ exception leaves it, or its process
 * dies), the flag goes back to "not run" and one waiting or later caller runs
 * the initialiser again (as pthread_once does on cancellation): the initialiser
 * must therefore cope with a partial earlier attempt. Such an end is noticed at
 * once, or by liveness checks for a thread without a robust list (fx_once_call
 * says when, and what a supervisor must recover: fx_once_recover); a thread not
 * proved dead counts as alive: the initialiser never runs twice at once. An
 * initialiser that calls fx_once_call on its own flag gets EDEADLK instead of
 * waiting for itself forever. A state the library never writes gives EINVAL
 * (docs/design/once.md). Calls return 0 or a positive errno value; a call whose
 * result is a value returns it (>= 0) or a negative errno value; errno is never
 * set.
 */
#ifndef FUTEXSYNC_ONCE_H
#define FUTEXSYNC_ONCE_H

#include <stdint.h>
#include <sys/types.h>
#include "futexsync/annotations.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The robust-list entry's geometry, fx_rmutex's (futexsync/rmutex.h), which
 * the struct's arrays need: int32_t reserved words and the links (prev and
 * next on 64-bit targets, next on 32-bit ones). */
#if UINTPTR_MAX > 0xffffffffu
#define FX_ONCE_RESERVED 5
#define FX_ONCE_LINKS    2
#else
#define FX_ONCE_RESERVED 4
#define FX_ONCE_LINKS    1
#endif

typedef struct fx_once {
    int32_t state; /* not run, running (a TID), done (futexsync/layout.h) */
    int32_t reserved[FX_ONCE_RESERVED]; /* zero */
    void *link[FX_ONCE_LINKS]; /* the running thread's robust-list entry */
} fx_once;

/* sizeof(fx_once): 40 bytes on 64-bit targets, 24 on 32-bit ones. */
#define FX_ONCE_SIZE sizeof(fx_once)
/* A flag whose initialiser has not run: all-zero bytes. */
#define FX_ONCE_INIT { 0, { 0 }, { 0 } }

/* Runs fn(arg) if no call on o has run it to completion yet; callers that
 * arrive while it runs wait until it has returned. Returns 0 once fn has
 * returned (in this call or an earlier one, in any thread or process), EDEADLK
 * when called from inside the initialiser of o that this thread is running
 * (nested more than 8 initialisers deep: by a thread whose TID the flag
 * names), or EINVAL
 * (NULL or misaligned o, NULL fn, or a state the library never writes).
 * Never EINTR.
 *
 * Waiting. Callers that arrive while fn runs sleep on the futex until it
 * returns, or until the kernel reports the death of the thread that runs it
 * (that thread links the flag into its robust futex list, as fx_rmutex's
 * owner does: at its exit, its death or its exec the kernel marks the word
 * and wakes a caller, in any PID namespace). For a PROBED initialiser (its
 * thread has no usable robust list: another libc, a raw clone(), qemu-user),
 * a tenth of a second after they first sleep, and after that at each look of
 * the process's waiting engine (four a second; ten where the engine cannot
 * run, as under qemu-user), on a schedule that signal handlers cannot
 * postpone, they check that the running thread still exists (a zombie counts
 * as dead; the check needs no file descriptor): a sleeping caller notices a
 * dead initialiser at most a quarter of a second after the death or after
 * its own first sleep, whichever is later, plus scheduling delays. Where the
 * check cannot decide, the thread counts as alive: the initialiser never runs
 * twice at once. A TID means something only in its own PID namespace: a
 * caller judges a PROBED initialiser dead only when both it and the
 * initialiser's process proved they run in the initial PID namespace
 * (docs/reliability.md).
 *
 * An initialiser that does not return. Exit, cancellation and C++ exceptions
 * are noticed at once (a cleanup handler; the library is built with
 * -fexceptions), the death of the thread or its process, and the exec of the
 * main thread or the death of the thread by another thread's exec, at once
 * by the kernel (the robust list), in any PID namespace. Not covered: a
 * thread that leaves the initialiser by longjmp (the flag stays "running"),
 * fork() while another thread of the process runs an initialiser on a flag
 * in private memory (the child's copy waits for a thread it does not have),
 * and execve() inside the initialiser by a non-main thread (it takes the
 * main thread's TID before the kernel's walk, as for glibc's robust
 * mutexes). The way out is a supervisor: fx_once_recover, or
 * fx_worker_bind_once (futexsync/worker.h).
 *
 * Recursion. Only a call made inside the initialiser that this thread runs
 * gets EDEADLK (each thread records the initialisers it runs): a flag naming
 * the caller's TID otherwise was left by a dead thread that had that TID (the
 * kernel reuses TIDs), and is taken over at once. */
int fx_once_call(fx_once *o, void (*fn)(void *), void *arg) FX_WARN_UNUSED;

/* The explicit recovery path: a supervisor that knows dead_tid is dead puts o
 * back to "not run" if dead_tid is running its initialiser, and wakes every
 * caller waiting on it; one of them (or the next caller) runs the initialiser
 * again, without waiting for the liveness check. The caller asserts that
 * dead_tid is dead (or, after exec, no longer runs the initialiser):
 * recovering a live initialiser lets a second one run at the same time. Only
 * the TID is compared (fx_worker, futexsync/worker.h, calls it while the TID
 * cannot be reused). Returns 0 when it reset o; EPERM when o is not running
 * in dead_tid (not run, done, another thread's, or already recovered); EINVAL
 * for a NULL or misaligned o, dead_tid <= 0 or above the largest TID
 * (PID_MAX_LIMIT - 1, 4194303), or a state the library never writes. */
int fx_once_recover(fx_once *o, pid_t dead_tid);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_ONCE_H */
