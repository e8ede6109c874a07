/*
 * src/internal/process.h - facts about the calling process and about other
 * tasks, which the per-thread identity (src/internal/identity.h) and the
 * sleepers' table (src/sleep.c) build on: the page holding the process's fork
 * epoch, and whether the kernel wipes it at fork (proven once per process,
 * from the kernel's own account of the mapping); whether the process runs in
 * the initial PID namespace; and whether a TID names a live task (the
 * liveness probe). One module, src/process.c. No process or thread is
 * created to learn any of it.
 */
#ifndef FXI_INTERNAL_PROCESS_H
#define FXI_INTERNAL_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The page whose first word is the process's fork epoch: its PID once a
 * thread has cached its TID, 0 in a fork child until then (and for ever
 * where nothing can be cached). FXI_TID_PAGE is the page size: 4 KiB on x86, and
 * elsewhere 64 KiB, the largest page size Linux uses, so that the array holds
 * a whole page whatever the kernel's (a larger alignment than the page in an
 * x86 program's data confuses Valgrind's DRD). Hidden: read PC-relative, not
 * through the GOT, on every fxi_tid(). */
#if defined(__x86_64__) || defined(__i386__)
#define FXI_TID_PAGE 4096
#else
#define FXI_TID_PAGE 65536
#endif
extern int32_t fxi_tid_epoch[FXI_TID_PAGE / sizeof(int32_t)]
    __attribute__((visibility("hidden"), aligned(FXI_TID_PAGE)));

/* Whether identities may be cached against the epoch: its page is proven
 * wiped at fork and no race detector is there (under one every fxi_id() is
 * slow, so that fxi_tid_plain's yes also means "no detector" and the fast
 * paths need not look at its probe). Runs the process's setup once. */
bool fxi_process_caches(void);

/* Marks [page, page + size) (whole pages of zero-initialised static
 * memory) MADV_WIPEONFORK, and true only when the kernel was proven to honour
 * that advice in this process (the epoch's probe): a fork child then gets the
 * range zeroed. False where it cannot be trusted, and, marking nothing, when
 * the range is not whole pages (the kernel would round it up and wipe the
 * neighbours): make the object's type page-aligned, so that its size is a
 * multiple of the page. */
bool fxi_wipe_at_fork(void *page, size_t size);

/* Whether the calling process proved that it runs in the initial PID
 * namespace (the inode of its PID namespace, asked of a pidfd of itself,
 * else of /proc/self/ns/pid; any failure: false). Learned once per process
 * and kept in the epoch's page, or, where that page is not wiped at fork,
 * with the PID that learned it (a fork child, whose PID differs, learns its
 * own). errno is preserved. */
bool fxi_process_initial_ns(void);

/* The liveness probe's answers. UNKNOWN acts as ALIVE everywhere: fail
 * towards safety, never two owners. */
enum { FXI_TID_ALIVE = 0, FXI_TID_DEAD = 1, FXI_TID_UNKNOWN = 2 };

/* Whether a thread with this TID lives in the caller's PID namespace, asked
 * without a file descriptor and without a cancellation point (so it may run
 * inside any lock call, and running out of file descriptors changes
 * nothing): process_vm_readv(tid) of one byte at address 0 fails with ESRCH
 * when no thread has the TID or when it has no address space left (a zombie:
 * exited, not yet reaped by its parent; or a thread past the point of its exit
 * where it releases its memory -- it runs no user code again): DEAD. EFAULT or
 * a genuine EPERM (not allowed to inspect it, which the kernel checks after
 * the address space) prove a live task: ALIVE. Where the call is refused
 * (EPERM or ENOSYS from a seccomp filter, ENOSYS from a kernel without
 * CONFIG_CROSS_MEMORY_ATTACH), kill(tid, 0) decides: ESRCH DEAD, success or
 * EPERM ALIVE (a zombie looks alive: fail safe), anything else UNKNOWN. No
 * /proc: a hidden or missing /proc never makes a live thread look dead. One
 * system call on the usual path, but never call it on a fast path. errno is
 * preserved. */
int fxi_tid_probe(pid_t tid);

/* fxi_tid_probe(tid) == FXI_TID_DEAD. */
static inline bool fxi_tid_dead(pid_t tid)
{
    return fxi_tid_probe(tid) == FXI_TID_DEAD;
}

#endif /* FXI_INTERNAL_PROCESS_H */
