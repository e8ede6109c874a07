/*
 * futexsync/annotations.h - attribute macros of the public declarations.
 *
 * The FX_ thread-safety macros make fx_mutex, fx_rmutex and fx_rwlock
 * capabilities of clang's thread-safety analysis (-Wthread-safety), say what
 * each call takes and releases, and are there for a program's own declarations;
 * FX_WARN_UNUSED marks the calls whose ignored result is a bug.
 *
 *     static fx_mutex m = FX_MUTEX_INIT;
 *     static long total FX_GUARDED_BY(m);
 *     fx_mutex_lock(&m);                 // FX_ACQUIRE: held from here on
 *     total++;
 *     fx_mutex_unlock(&m);
 *     if (fx_mutex_trylock(&m) == 0) {   // FX_TRY_ACQUIRE(0, m)
 *         total++;
 *         fx_mutex_unlock(&m);
 *     }
 *     total++;                           // warning: m is not held
 *
 * So a program compiled with clang -Wthread-safety is told when it touches data
 * declared `guarded_by` a lock it does not hold, forgets an unlock, or unlocks
 * twice. On other compilers (and clangs without the attributes) the FX_
 * thread-safety macros expand to nothing. How the int results of the C calls
 * map onto the analysis, and which calls are FX_WARN_UNUSED, is said at
 * FX_ACQUIRE, FX_TRY_ACQUIRE, FX_REQUIRES and FX_WARN_UNUSED below (docs/cxx.md
 * has the C++ side).
 */
#ifndef FUTEXSYNC_ANNOTATIONS_H
#define FUTEXSYNC_ANNOTATIONS_H

/* The spelling every thread-safety macro below expands through: the
 * attribute x where clang has the analysis, else nothing. Not for direct
 * use. */
#if defined(__clang__) && defined(__has_attribute)
#if __has_attribute(capability) && __has_attribute(try_acquire_capability)
#define FX_TSA_(x) __attribute__((x))
#endif
#endif
#ifndef FX_TSA_
#define FX_TSA_(x)
#endif

/* On a type: its objects are capabilities ("mutex" in the diagnostics). */
#define FX_CAPABILITY(name)        FX_TSA_(capability(name))
/* On a class whose constructor acquires and destructor releases (RAII). */
#define FX_SCOPED_CAPABILITY       FX_TSA_(scoped_lockable)
/* On data: only touched while holding cap (shared for reads). */
#define FX_GUARDED_BY(cap)         FX_TSA_(guarded_by(cap))
#define FX_PT_GUARDED_BY(cap)      FX_TSA_(pt_guarded_by(cap))
/* On a struct member guarded by another member of the same struct, named
 * bare (`int bal FX_MEMBER_GUARDED_BY(m);`). C++ checks it as FX_GUARDED_BY.
 * C cannot: there clang (14) looks the name up outside the struct ("use of
 * undeclared identifier"), so in C it expands to nothing and only documents.
 * C code checks such members through the functions that touch them,
 * declared FX_REQUIRES(&p->m). */
#ifdef __cplusplus
#define FX_MEMBER_GUARDED_BY(cap)    FX_GUARDED_BY(cap)
#define FX_MEMBER_PT_GUARDED_BY(cap) FX_PT_GUARDED_BY(cap)
#else
#define FX_MEMBER_GUARDED_BY(cap)
#define FX_MEMBER_PT_GUARDED_BY(cap)
#endif
/* On functions: the caller must hold cap (exclusively, or shared).
 * fx_cond_wait and its variants FX_REQUIRES the mutex (held on entry and on
 * return). */
#define FX_REQUIRES(cap)           FX_TSA_(requires_capability(cap))
#define FX_REQUIRES_SHARED(cap)    FX_TSA_(requires_shared_capability(cap))
/* On functions: cap is held exclusively (shared) on return.
 * fx_mutex_lock and fx_rwlock_wrlock fail only for bad input (EINVAL): they
 * are FX_ACQUIRE, the lock is taken as held after the call, so the usual
 * `fx_mutex_lock(&m);` needs no test. fx_rmutex_lock holds the mutex after 0
 * and after EOWNERDEAD (a non-zero success): FX_ACQUIRE, so the analysis takes
 * every return as held; its failures (ENOTRECOVERABLE, EAGAIN, EINVAL) leave
 * it not held, and a function that returns on them must say so
 * (FX_NO_THREAD_SAFETY_ANALYSIS or an FX_ASSERT_CAPABILITY helper): a limit of
 * an analysis that knows one success value. */
#define FX_ACQUIRE(cap)            FX_TSA_(acquire_capability(cap))
#define FX_ACQUIRE_SHARED(cap)     FX_TSA_(acquire_shared_capability(cap))
/* On functions: cap is held on return when the result equals ok.
 * A call that may give up (trylock, timedlock, try/timed rd/wrlock), and
 * fx_rwlock_rdlock (EAGAIN when FX_RWLOCK_MAX_READERS hold it), returns 0
 * when it took the lock: FX_TRY_ACQUIRE(0, m). The analysis follows
 * `if (fx_mutex_trylock(&m) == 0)`, `if (!fx_mutex_trylock(&m))`, `!= 0`,
 * and the same tests of a local int that holds the result.
 * fx_rmutex_trylock and fx_rmutex_timedlock are FX_TRY_ACQUIRE(0, m): the
 * analysis takes EOWNERDEAD from them as "not taken", so a program recovering
 * there does the same. */
#define FX_TRY_ACQUIRE(ok, cap)    FX_TSA_(try_acquire_capability(ok, cap))
#define FX_TRY_ACQUIRE_SHARED(ok, cap) FX_TSA_(try_acquire_shared_capability(ok, cap))
/* The same for C++ member functions: the capability is *this. */
#define FX_TRY_ACQUIRE_SELF(ok)    FX_TSA_(try_acquire_capability(ok))
#define FX_TRY_ACQUIRE_SHARED_SELF(ok) FX_TSA_(try_acquire_shared_capability(ok))
/* On functions: cap is released (held exclusively, shared, or either way). */
#define FX_RELEASE(cap)            FX_TSA_(release_capability(cap))
#define FX_RELEASE_SHARED(cap)     FX_TSA_(release_shared_capability(cap))
#define FX_RELEASE_GENERIC(cap)    FX_TSA_(release_generic_capability(cap))
/* On functions: the caller must not hold cap. */
#define FX_EXCLUDES(cap)           FX_TSA_(locks_excluded(cap))
/* On functions that check at run time that cap is held. */
#define FX_ASSERT_CAPABILITY(cap)  FX_TSA_(assert_capability(cap))
/* On functions that return a reference to cap. */
#define FX_RETURN_CAPABILITY(cap)  FX_TSA_(lock_returned(cap))
/* On a function the analysis must not check. */
#define FX_NO_THREAD_SAFETY_ANALYSIS FX_TSA_(no_thread_safety_analysis)

/* On functions whose ignored result is a bug (warn_unused_result, gcc and
 * clang); nothing on other compilers. It is on every try and timed lock or
 * wait (whether it took the lock, token or barrier round), the fx_rmutex
 * acquisitions and fx_cond_wait_rmutex/timedwait_rmutex (EOWNERDEAD: the data
 * needs repair; ENOTRECOVERABLE: not held), fx_rwlock_rdlock (EAGAIN),
 * fx_once_call (EDEADLK: nothing ran), fx_async_create and the fx_async lock
 * calls. gcc does not take a (void) cast as a use: test the result. */
#if defined(__GNUC__) || defined(__clang__)
#define FX_WARN_UNUSED __attribute__((warn_unused_result))
#else
#define FX_WARN_UNUSED
#endif

#endif /* FUTEXSYNC_ANNOTATIONS_H */
