/*
 * src/process.c - facts about the calling process and about other tasks: the
 * fork epoch's page and whether the kernel wipes it at fork (proven once per
 * process), whether the process runs in the initial PID namespace, and
 * whether a TID still names a live task (the liveness probe).
 *
 * See src/internal/process.h for what is guaranteed and the limits.
 */
#include "internal/process.h"

#include "internal/annotate.h"
#include "internal/syscall.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18 /* Linux 4.14 */
#endif

/* Zero (matches no cache) until a thread of this process caches its TID,
 * and for ever when the page cannot be marked. In .bss: anonymous memory,
 * which MADV_WIPEONFORK accepts (file-backed memory it refuses). */
__attribute__((visibility("hidden"), aligned(FXI_TID_PAGE))) int32_t
    fxi_tid_epoch[FXI_TID_PAGE / sizeof(int32_t)];

static pthread_once_t proc_once = PTHREAD_ONCE_INIT;
static bool proc_wiped; /* the epoch's page is wiped at fork: proven once */
/* Identities may be cached: the wipe is proven and no race detector is
 * there (src/internal/process.h, fxi_process_caches). */
static bool proc_cached;
/* Where the epoch's page is not proven wiped at fork (nothing is cached),
 * the namespace answer cannot live in that page: it is kept here with the
 * PID of the process that learned it, PID << 2 | answer (1 initial, 2 other
 * or unknown; 0 not learned; a PID has at most 22 bits), and trusted only by
 * a process of that PID, so a fork child learns its own. Relaxed: every
 * thread of a process stores the same value, and reads only its process's. */
static uint32_t proc_ns_unwiped;

/* Whether the kernel marked the epoch's page MADV_WIPEONFORK, asked of the
 * kernel's own account of the mapping: the VmFlags line of the mapping that
 * holds the page in /proc/self/smaps shows `wf` only when the kernel set
 * VM_WIPEONFORK there. An emulator (qemu-user), a sandbox or a kernel that
 * accepted the advice and ignored it shows no `wf` (or no such mapping, or
 * no /proc): false, cache nothing. Raw system calls: no cancellation point,
 * no stdio; the file is read only up to that mapping (the kernel makes each
 * mapping's record when it is read). */
static bool proc_wipe_proven(void)
{
    long fd = fxi_syscall(SYS_openat, (long)AT_FDCWD, (long)"/proc/self/smaps",
                          (long)(O_RDONLY | O_CLOEXEC), 0L, 0L, 0L);
    if (fxi_syscall_failed(fd))
        return false;
    const uintptr_t page = (uintptr_t)fxi_tid_epoch;
    char buf[4096];
    size_t have = 0;
    bool inside = false, wiped = false, done = false;
    while (!done) {
        long n = fxi_syscall(SYS_read, fd, (long)(buf + have), (long)(sizeof buf - 1 - have), 0L,
                             0L, 0L);
        if (n == -EINTR)
            continue;
        if (fxi_syscall_failed(n) || n == 0)
            break;
        have += (size_t)n;
        buf[have] = '\0';
        char *line = buf, *nl;
        while (!done && (nl = strchr(line, '\n')) != NULL) {
            *nl = '\0';
            char *end;
            uintptr_t lo = (uintptr_t)strtoull(line, &end, 16);
            if (*end == '-' && end != line) {
                /* A mapping's first line: "lo-hi perms ...". */
                uintptr_t hi = (uintptr_t)strtoull(end + 1, NULL, 16);
                if (inside || lo > page)
                    done = true; /* past the page: its record had no VmFlags */
                inside = lo <= page && page < hi;
            } else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
                wiped = strstr(line + 8, " wf") != NULL;
                done = true;
            }
            line = nl + 1;
        }
        have -= (size_t)(line - buf);
        memmove(buf, line, have);
        if (have == sizeof buf - 1)
            have = 0; /* a line longer than the buffer: no line we look for */
    }
    fxi_syscall(SYS_close, fd, 0L, 0L, 0L, 0L, 0L);
    return wiped;
}

static void proc_setup(void)
{
    /* Written here once and read by every thread's fxi_tid_slow after
     * pthread_once: the library's own word, hidden from Helgrind and DRD. */
    fxi_ann_own_words(&proc_wiped, sizeof proc_wiped);
    fxi_ann_own_words(&proc_cached, sizeof proc_cached);
    fxi_ann_own_words(&proc_ns_unwiped, sizeof proc_ns_unwiped);
    long size = sysconf(_SC_PAGESIZE);
    if (size <= 0 || size > FXI_TID_PAGE || (uintptr_t)fxi_tid_epoch % (uintptr_t)size != 0)
        return; /* cannot mark exactly the epoch's page: cache nothing */
    if (madvise(fxi_tid_epoch, (size_t)size, MADV_WIPEONFORK) != 0) {
        /* A kernel before 4.14 (EINVAL): nothing would reset the epoch in a
         * fork child, so no TID is ever cached. */
        return;
    }
    /* Helgrind and DRD would see the epoch, stored by the probe and by each
     * thread's first fxi_tid() and read by all, as a race: it is the
     * library's own word, ordered as the comments say. Once per process:
     * the hook looks at the probe itself. Two words: the epoch and the
     * namespace word after it. */
    fxi_ann_own_words(fxi_tid_epoch, 2 * sizeof fxi_tid_epoch[0]);
    /* Accepted is not done: trust the page only once the kernel shows it
     * marked. Otherwise nothing is cached, as where madvise fails. */
    proc_wiped = proc_wipe_proven();
    proc_cached = proc_wiped && !fxi_ann_detected();
}

bool fxi_process_caches(void)
{
    pthread_once(&proc_once, proc_setup);
    return proc_cached;
}

bool fxi_wipe_at_fork(void *page, size_t size)
{
    int saved = errno;
    pthread_once(&proc_once, proc_setup);
    /* Whole pages only: the kernel rounds the range up to a page boundary,
     * and would wipe in a fork child whatever else shares the last page. */
    long ps = sysconf(_SC_PAGESIZE);
    bool whole = ps > 0 && (uintptr_t)page % (uintptr_t)ps == 0 && size % (size_t)ps == 0;
    bool ok = whole && proc_wiped && madvise(page, size, MADV_WIPEONFORK) == 0;
    errno = saved;
    return ok;
}

#ifndef PIDFD_GET_PID_NAMESPACE
#define PIDFD_GET_PID_NAMESPACE _IO(0xFF, 5) /* linux/pidfd.h, Linux 6.11 */
#endif
#define FXI_PROC_PID_INIT_INO 0xEFFFFFFCu /* the initial PID namespace's inode */

/* True when this process proves that it runs in the initial PID namespace:
 * the inode of its PID namespace is PROC_PID_INIT_INO. Asked of a pidfd of
 * itself (Linux 6.11), else of /proc/self/ns/pid (a /proc of another PID
 * namespace resolves `self` to the same task, or not at all). Any failure:
 * false. Raw close (glibc's is a cancellation point), errno preserved. */
static bool proc_initial_pidns(void)
{
    int saved = errno;
    struct stat st;
    int known = 0;
    long pidfd = syscall(SYS_pidfd_open, (long)getpid(), 0L);
    if (pidfd >= 0) {
        int ns = ioctl((int)pidfd, PIDFD_GET_PID_NAMESPACE, 0);
        syscall(SYS_close, pidfd);
        if (ns >= 0) {
            known = fstat(ns, &st) == 0;
            syscall(SYS_close, (long)ns);
        }
    }
    if (!known)
        known = stat("/proc/self/ns/pid", &st) == 0;
    errno = saved;
    return known && st.st_ino == FXI_PROC_PID_INIT_INO;
}

/* Whether this process proved that it runs in the initial PID namespace.
 * Learned once per process and kept
 * in the epoch's page (fxi_tid_epoch[1]: 0 not yet, 1 initial, 2 other or
 * unknown), which a fork child gets zeroed: a child in a new PID namespace
 * learns its own. The first answer stays (relaxed CAS from 0: every thread
 * of a process asks the same question about the same namespace). */
static bool proc_ns_initial(void)
{
    int32_t st = __atomic_load_n(&fxi_tid_epoch[1], __ATOMIC_RELAXED);
    if (st == 0) {
        int32_t want = proc_initial_pidns() ? 1 : 2;
        if (__atomic_compare_exchange_n(&fxi_tid_epoch[1], &st, want, false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            st = want;
    }
    return st == 1;
}

/* The same for process `pid` where the epoch's page is not wiped at fork. */
static bool proc_ns_unwiped_initial(pid_t pid)
{
    uint32_t v = __atomic_load_n(&proc_ns_unwiped, __ATOMIC_RELAXED);
    if ((v & 3u) == 0 || (v >> 2) != (uint32_t)pid) {
        v = (uint32_t)pid << 2 | (proc_initial_pidns() ? 1u : 2u);
        __atomic_store_n(&proc_ns_unwiped, v, __ATOMIC_RELAXED);
    }
    return (v & 3u) == 1;
}

bool fxi_process_initial_ns(void)
{
    pthread_once(&proc_once, proc_setup);
    int saved = errno;
    bool initial = proc_wiped ? proc_ns_initial() : proc_ns_unwiped_initial(getpid());
    errno = saved;
    return initial;
}

int fxi_tid_probe(pid_t tid)
{
    int saved = errno;
    int answer;
    /* One system call, no file descriptor, no cancellation point: the kernel
     * looks the TID up (ESRCH: no task with that number in the caller's PID
     * namespace), then its address space (ESRCH again when it has none left:
     * a zombie, or a thread past exit_mm -- both before any permission check),
     * then checks the permission (EPERM) and reads address 0 (EFAULT). So
     * EFAULT, success and a genuine EPERM all prove a task with an address
     * space. A seccomp filter can also answer EPERM or ENOSYS (as can a kernel
     * without CONFIG_CROSS_MEMORY_ATTACH): then kill(tid, 0) decides, which
     * sees a task by its number only (ESRCH: none; a zombie looks alive). */
    char byte;
    struct iovec local = {&byte, 1};
    struct iovec remote = {NULL, 1};
    long r = syscall(SYS_process_vm_readv, (long)tid, &local, 1L, &remote, 1L, 0L);
    if (r >= 0 || errno == EFAULT) {
        answer = FXI_TID_ALIVE;
    } else if (errno == ESRCH) {
        answer = FXI_TID_DEAD;
    } else if (syscall(SYS_kill, (long)tid, 0L) == 0 || errno == EPERM) {
        answer = FXI_TID_ALIVE; /* a task with that number exists */
    } else {
        /* ESRCH: no task with that number (an EPERM above was a filter's,
         * or the task died since). Anything else: nothing is known. */
        answer = errno == ESRCH ? FXI_TID_DEAD : FXI_TID_UNKNOWN;
    }
    errno = saved;
    return answer;
}
