/*
 * futexsync/version.h - which futexsync a program was built with, and which
 * one it runs with.
 *
 * The FUTEXSYNC_VERSION macros give the version of the headers;
 * fx_version, fx_version_string and fx_layout_version that of the library
 * the program runs with.
 *
 *     if (fx_version() / 10000 != FUTEXSYNC_VERSION_MAJOR)
 *         fprintf(stderr, "built with %d.%d, runs with %s\n",
 *                 FUTEXSYNC_VERSION_MAJOR, FUTEXSYNC_VERSION_MINOR,
 *                 fx_version_string());
 *
 * Versions follow semantic versioning (CHANGELOG.md). The layout version is
 * the version of the objects' memory layout, the contract between separately
 * built binaries that share an object in MAP_SHARED memory: two programs may
 * use the same object when their layout versions are equal, whatever their
 * library versions. It changes only with a major version (see "Versions and
 * stability" in README.md). fx_layout_version() gives the running library's;
 * the macro FUTEXSYNC_LAYOUT, beside the slot encodings it versions, is in
 * futexsync/layout.h, which programs that read or write the words include.
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

/* The FUTEXSYNC_VERSION of the library the program runs with; differs from the
 * macro when a program is linked against another build (a shared library
 * replaced after the program was built). */
int fx_version(void);

/* The same as "MAJOR.MINOR.PATCH", a static string. */
const char *fx_version_string(void);

/* The FUTEXSYNC_LAYOUT of the library the program runs with (the layout
 * version of its objects; futexsync/layout.h defines the macro). */
int fx_layout_version(void);

#ifdef __cplusplus
}
#endif

#endif /* FUTEXSYNC_VERSION_H */
