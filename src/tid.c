/*
 * src/tid.c - the per-thread TID cache and the liveness test of a TID.
 *
 * See src/internal/tid.h for what is guaranteed and the limits.
 */
#include "internal/tid.h"

#include "internal/annotate.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18 /* Linux 4.14 */
#endif

/* High half: the epoch of the process that filled it (its PID and detector
 * bit); low half: the TID. The initial value matches no page (no PID is
 * 0xffffffff). */
_Thread_local uint64_t fxi_tid_cache __attribute__((tls_model("initial-exec"))) = UINT64_MAX;

/* Zero (matches no cache) until a thread of this process caches its TID,
 * and for ever when the page cannot be marked. In .bss: anonymous memory,
 * which MADV_WIPEONFORK accepts (file-backed memory it refuses). */
__attribute__((visibility("hidden"), aligned(FXI_TID_PAGE))) int32_t
    fxi_tid_epoch[FXI_TID_PAGE / sizeof(int32_t)];

static pthread_once_t fx_tid_once = PTHREAD_ONCE_INIT;
static bool fx_tid_wiped; /* the epoch's page is marked MADV_WIPEONFORK */

static void fx_tid_setup(void)
{
    /* Written here once and read by every thread's fxi_tid_slow after
     * pthread_once: the library's own word, hidden from Helgrind and DRD. */
    fx_ann_own_words_once(&fx_tid_wiped, sizeof fx_tid_wiped);
    long size = sysconf(_SC_PAGESIZE);
    if (size <= 0 || size > FXI_TID_PAGE || (uintptr_t)fxi_tid_epoch % (uintptr_t)size != 0)
        return; /* cannot mark exactly the epoch's page: cache nothing */
    if (madvise(fxi_tid_epoch, (size_t)size, MADV_WIPEONFORK) != 0) {
        /* A kernel before 4.14 (EINVAL): nothing would reset the epoch in a
         * fork child, so no TID is ever cached. */
        return;
    }
    /* Helgrind and DRD would see the epoch, stored by each thread's first
     * fxi_tid() and read by all, as a race: it is the library's own word,
     * ordered as the comments say. Once per process, so not behind the
     * FUTEXSYNC_HELGRIND option. */
    fx_ann_own_words_once(fxi_tid_epoch, sizeof fxi_tid_epoch[0]);
    fx_tid_wiped = true;
}

pid_t fxi_tid_slow(void)
{
    int saved = errno;
    pthread_once(&fx_tid_once, fx_tid_setup);
    pid_t t = (pid_t)syscall(SYS_gettid);
    pid_t pid = getpid();
    errno = saved;
    if (fx_tid_wiped) {
        /* The epoch is this process's PID, with the detector bit (the
         * probe's answer, the same in every thread). In a fork child the
         * kernel hands the page over zeroed, so no cache copied from the
         * parent (whose PID it holds) is trusted, before or after the child's
         * first thread stores the child's PID here. Relaxed: every thread of a process
         * stores the same value; it guards only each thread's own cache. */
        uint32_t epoch = (uint32_t)pid | (fxi_ann_detected() ? FXI_TID_DETECTOR : 0);
        /* The record of held rmutexes is emptied for t first: once the
         * cache is good, fx_rmutex's fast paths trust the record. */
        if (fxi_rmutex_record_reset != NULL)
            fxi_rmutex_record_reset((uint32_t)t);
        fxi_tid_cache = (uint64_t)epoch << 32 | (uint32_t)t;
        __atomic_store_n(&fxi_tid_epoch[0], (int32_t)epoch, __ATOMIC_RELAXED);
    }
    return t;
}

/* /proc/<tid>/stat: 1 dead (missing, Z, X), 0 alive, -1 cannot tell (no fd,
 * no /proc, hidden). */
static int fx_tid_proc_dead(pid_t tid)
{
    char path[40];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return errno == ENOENT ? 1 : -1;
    /* "tid (comm) S ...": comm may hold spaces and ')' but is at most 64
     * bytes, and every field after the state is a number, so the state is
     * the character two after the last ')' of the first 256 bytes. */
    char buf[256];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 1; /* the thread was released between open and read */
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')');
    char state = (close_paren != NULL && close_paren[1] == ' ') ? close_paren[2] : '?';
    return state == 'Z' || state == 'X' || state == 'x';
}

bool fxi_tid_dead(pid_t tid)
{
    int saved = errno;
    bool dead;
    /* One system call, no file descriptor: the kernel looks the TID up, then
     * its address space. ESRCH: no such thread, or one that has left user
     * space for good (a zombie, or one past exit_mm on its way out) -- it can
     * never touch a lock word again. A thread with an address space gives
     * EFAULT (address 0 is never mapped for reading here) or, when we may not
     * inspect it, EPERM -- which a seccomp filter can also give, so EPERM and
     * ENOSYS (no CONFIG_CROSS_MEMORY_ATTACH) ask /proc, then kill(). */
    char byte;
    struct iovec local = {&byte, 1};
    struct iovec remote = {NULL, 1};
    if (process_vm_readv(tid, &local, 1, &remote, 1, 0) >= 0 || errno == EFAULT) {
        dead = false;
    } else if (errno == ESRCH) {
        dead = true;
    } else {
        int p = fx_tid_proc_dead(tid);
        if (p >= 0) {
            dead = p == 1;
        } else {
            /* Fail safe: kill(tid, 0) cannot see zombies, so a zombie looks
             * alive here (never a live thread dead). */
            dead = kill(tid, 0) != 0 && errno == ESRCH;
        }
    }
    errno = saved;
    return dead;
}
