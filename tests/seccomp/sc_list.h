/*
 * tests/seccomp/sc_list.h - system call lists and the allow-list filter of
 * the seccomp tests (seccomp_run.c, library_only.c).
 *
 * The library's list is not written here: it is read from its one home,
 * docs/reliability.md, section "System calls the library makes", so that the
 * document and the filter cannot drift apart. The names are those of the
 * kernel's system call table (<sys/syscall.h> SYS_<name>); a name the table
 * below does not know is an error (a typo in the document, or a call these
 * tests must learn), one known but absent from this architecture (futex_time64
 * on a 64-bit one) is skipped.
 */
#ifndef SC_LIST_H
#define SC_LIST_H

#include <stdbool.h>
#include <stdint.h>

/* The audit architecture the filters accept; any other ABI is denied (a
 * system call made through another ABI has other numbers). Only where the
 * harness lists of the tests are known. */
#if defined(__x86_64__) && !defined(__ILP32__)
#define SC_AUDIT_ARCH AUDIT_ARCH_X86_64
#define SC_ARCH_NAME "x86-64"
#elif defined(__aarch64__) && defined(__AARCH64EL__)
#define SC_AUDIT_ARCH AUDIT_ARCH_AARCH64
#define SC_ARCH_NAME "aarch64"
#elif defined(__riscv) && __riscv_xlen == 64
#define SC_AUDIT_ARCH AUDIT_ARCH_RISCV64
#define SC_ARCH_NAME "riscv64"
#endif

/* The exit status of a test that could not run here (ctest SKIP_RETURN_CODE). */
#define SC_SKIP 77

/* Why the tests cannot run here, or NULL: no lists for this architecture,
 * or a sanitizer runtime, whose own calls (and, under TSan, the library's
 * race-detector mode) are on no list. */
const char *sc_unsupported(void);
/* The launchers' first check: prints "SKIP: <why>" and returns true when
 * sc_unsupported() says the filter cannot be used here. */
bool sc_skip_here(void);
/* The launchers' check once their lists are read: prints "SKIP: <why>" and
 * returns true when sc_probe() finds that no filter can be installed here. */
bool sc_skip_without_filter(void);

/* The heading of the library's section, of its subsection that lists the
 * calls of fx_rmutex and fx_once (and of what they reach), and of the one
 * for the other primitives (which the tests use to coordinate). */
#define SC_DOC_SECTION "## System calls the library makes"
#define SC_DOC_RMUTEX_ONCE "### fx_rmutex and fx_once"
#define SC_DOC_OTHERS "### The other primitives"

#define SC_MAX 256

struct sc_list {
    int n;
    long nr[SC_MAX];           /* numbers on this architecture */
    char name[SC_MAX][32];     /* their names */
};

/* The number of `name` here: 1 and *nr, 0 when the name is known but not a
 * system call of this architecture, -1 when unknown. */
int sc_lookup(const char *name, long *nr);

/* The name of number nr ("?" when unknown). */
const char *sc_name(long nr);

/* Adds name to l (skipped where this architecture lacks it). 0, or -1 and a
 * message on stderr when the name is unknown or l is full. */
int sc_add(struct sc_list *l, const char *name);

/* Whether l holds number nr. */
bool sc_has(const struct sc_list *l, long nr);

/* Reads the names of subsection `sub` (a "### " heading's start; NULL: every
 * subsection) of SC_DOC_SECTION in the file `doc`: its lines "- `name` ...",
 * up to the next heading. 0, or -1 and a message on stderr (no such file or
 * section, no name, an unknown name, a name listed twice in `sub`). */
int sc_doc_list(const char *doc, const char *sub, struct sc_list *l);

/* Installs, in the calling thread (all of the process's threads with
 * SECCOMP_FILTER_FLAG_TSYNC in `flags`), a filter that allows exactly the
 * numbers of the lists a and b (b may be NULL) in this architecture's ABI and
 * answers every other call with `deny` (a SECCOMP_RET_* action); a call of
 * another ABI kills the process. Sets no_new_privs first. With
 * SECCOMP_FILTER_FLAG_NEW_LISTENER, *listener is the notification descriptor
 * (close-on-exec). 0, or an errno value. */
int sc_install(const struct sc_list *a, const struct sc_list *b, uint32_t deny, unsigned flags,
               int *listener);

/* Whether a seccomp filter can be installed here: an allow-all filter, in a
 * forked child. 0, or the errno of the failure (qemu-user: ENOSYS or
 * EINVAL), or -1 when the child could not run. */
int sc_probe(void);

#endif
