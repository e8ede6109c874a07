/*
 * futexsync/version.h - which futexsync a program was built with, and which
 * one it runs with.
 *
 * Versions follow semantic versioning (CHANGELOG.md). FUTEXSYNC_LAYOUT is the
 * version of the objects' memory layout, the contract between separately built
 * binaries that share an object in MAP_SHARED memory: two programs may use the
 * same object when their FUTEXSYNC_LAYOUT is equal, whatever their library
 * versions. It changes only with a major version (see "Versions and
 * stability" in README.md): 2 since 2.0.0 (fx_rmutex joined the kernel's
 * robust futex list; CHANGELOG.md lists every change), and the golden table
 * of tests/test_layout.c pins every slot encoding.
 *
 * Returns (README, Conventions): 0 or a positive errno value; a call whose
 * result is a value returns it (>= 0) or a negative errno value; errno is
 * never set.
 */
#ifndef FUTEXSYNC_VERSION_H
#define FUTEXSYNC_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

/* The version of these headers: MAJOR.MINOR.PATCH. */
#define FUTEXSYNC_VERSION_MAJOR 2
#define FUTEXSYNC_VERSION_MINOR 0
#define FUTEXSYNC_VERSION_PATCH 0

/* MAJOR * 10000 + MINOR * 100 + PATCH: compare with #if. */
#define FUTEXSYNC_VERSION                                                                \
    (FUTEXSYNC_VERSION_MAJOR * 10000 + FUTEXSYNC_VERSION_MINOR * 100 + FUTEXSYNC_VERSION_PATCH)

/* The layout version of every object (fx_mutex, fx_rmutex, ...). */
#define FUTEXSYNC_LAYOUT 2

/* The FUTEXSYNC_VERSION of the library the program runs with; differs from the
 * macro when a program is linked against another build (a shared library
 * replaced after the program was built). */
int fx_version(void);

/* The same as "MAJOR.MINOR.PATCH", a static string. */
const char *fx_version_string(void);

/* The FUTEXSYNC_LAYOUT of the library the program runs with. */
int fx_layout_version(void);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_VERSION_H */
