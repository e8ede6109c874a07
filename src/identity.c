/*
 * src/identity.c - the calling thread's identity (TID cache, fork epoch, PID
 * namespace), its records of held rmutexes and running fx_once
 * initialisers, and the liveness probe of another identity.
 *
 * See src/internal/identity.h for what is guaranteed and the limits.
 */
#include "internal/identity.h"

#include "internal/annotate.h"
#include "internal/robust.h"
#include "internal/syscall.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
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
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18 /* Linux 4.14 */
#endif

/* cache: high half, the epoch of the process that filled it (its PID);
 * low half, the identity word. The initial value matches no
 * page (no PID is 0xffffffff). The records start empty. */
_Thread_local struct fxi_self fxi_self __attribute__((tls_model("initial-exec"))) = {
    .cache = UINT64_MAX};

/* Zero (matches no cache) until a thread of this process caches its TID,
 * and for ever when the page cannot be marked. In .bss: anonymous memory,
 * which MADV_WIPEONFORK accepts (file-backed memory it refuses). */
__attribute__((visibility("hidden"), aligned(FXI_TID_PAGE))) int32_t
    fxi_tid_epoch[FXI_TID_PAGE / sizeof(int32_t)];

static pthread_once_t tid_once = PTHREAD_ONCE_INIT;
static bool tid_wiped; /* the epoch's page is wiped at fork: proven once */
/* TIDs are cached: the wipe is proven and no race detector is there. Under
 * one, every fxi_id() is slow, so that fxi_tid_plain's yes also means "no
 * detector" and fx_rmutex's fast paths need not look at its probe. */
static bool tid_cached;
/* Where the epoch's page is not proven wiped at fork (nothing is cached),
 * the namespace answer cannot live in that page: it is kept here with the
 * PID of the process that learned it, PID << 2 | answer (1 initial, 2 other
 * or unknown; 0 not learned; a PID has at most 22 bits), and trusted only by
 * a process of that PID, so a fork child learns its own. Relaxed: every
 * thread of a process stores the same value, and reads only its process's. */
static uint32_t tid_ns_unwiped;

/* Whether the kernel marked the epoch's page MADV_WIPEONFORK, asked of the
 * kernel's own account of the mapping: the VmFlags line of the mapping that
 * holds the page in /proc/self/smaps shows `wf` only when the kernel set
 * VM_WIPEONFORK there. An emulator (qemu-user), a sandbox or a kernel that
 * accepted the advice and ignored it shows no `wf` (or no such mapping, or
 * no /proc): false, cache nothing. Raw system calls: no cancellation point,
 * no stdio; the file is read only up to that mapping (the kernel makes each
 * mapping's record when it is read). */
static bool tid_wipe_proven(void)
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

static void tid_setup(void)
{
    /* Written here once and read by every thread's fxi_tid_slow after
     * pthread_once: the library's own word, hidden from Helgrind and DRD. */
    fxi_ann_own_words(&tid_wiped, sizeof tid_wiped);
    fxi_ann_own_words(&tid_cached, sizeof tid_cached);
    fxi_ann_own_words(&tid_ns_unwiped, sizeof tid_ns_unwiped);
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
     * the hook looks at the probe itself. */
    fxi_ann_own_words(fxi_tid_epoch, 2 * sizeof fxi_tid_epoch[0]); /* + namespace */
    /* Accepted is not done: trust the page only once the kernel shows it
     * marked. Otherwise nothing is cached, as where madvise fails. */
    tid_wiped = tid_wipe_proven();
    tid_cached = tid_wiped && !fxi_ann_detected();
}

bool fxi_wipe_at_fork(void *page, size_t size)
{
    int saved = errno;
    pthread_once(&tid_once, tid_setup);
    bool ok = tid_wiped && madvise(page, size, MADV_WIPEONFORK) == 0;
    errno = saved;
    return ok;
}

#ifndef PIDFD_GET_PID_NAMESPACE
#define PIDFD_GET_PID_NAMESPACE _IO(0xFF, 5) /* linux/pidfd.h, Linux 6.11 */
#endif
#define FX_PROC_PID_INIT_INO 0xEFFFFFFCu /* the initial PID namespace's inode */

/* True when this process proves that it runs in the initial PID namespace:
 * the inode of its PID namespace is PROC_PID_INIT_INO. Asked of a pidfd of
 * itself (Linux 6.11), else of /proc/self/ns/pid (a /proc of another PID
 * namespace resolves `self` to the same task, or not at all). Any failure:
 * false. Raw close (glibc's is a cancellation point), errno preserved. */
static bool tid_initial_pidns(void)
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
    return known && st.st_ino == FX_PROC_PID_INIT_INO;
}

/* The identity bits of this process: 0 once it proved it runs in the initial
 * PID namespace, FXI_ID_LOCALNS otherwise. Learned once per process and kept
 * in the epoch's page (fxi_tid_epoch[1]: 0 not yet, 1 initial, 2 other or
 * unknown), which a fork child gets zeroed: a child in a new PID namespace
 * learns its own. The first answer stays (relaxed CAS from 0: every thread
 * of a process asks the same question about the same namespace). */
static uint32_t tid_ns_bits(void)
{
    int32_t st = __atomic_load_n(&fxi_tid_epoch[1], __ATOMIC_RELAXED);
    if (st == 0) {
        int32_t want = tid_initial_pidns() ? 1 : 2;
        if (__atomic_compare_exchange_n(&fxi_tid_epoch[1], &st, want, false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            st = want;
    }
    return st == 1 ? 0 : FXI_ID_LOCALNS;
}


/* The identity bits of process `pid` where nothing is cached (above). */
static uint32_t tid_ns_bits_unwiped(pid_t pid)
{
    uint32_t v = __atomic_load_n(&tid_ns_unwiped, __ATOMIC_RELAXED);
    if ((v & 3u) == 0 || (v >> 2) != (uint32_t)pid) {
        v = (uint32_t)pid << 2 | (tid_initial_pidns() ? 1u : 2u);
        __atomic_store_n(&tid_ns_unwiped, v, __ATOMIC_RELAXED);
    }
    return (v & 3u) == 1 ? 0 : FXI_ID_LOCALNS;
}

/* The namespace bits of the calling process (above), by whichever store
 * this process can trust. */
static uint32_t tid_process_ns(void)
{
    pthread_once(&tid_once, tid_setup);
    int saved = errno;
    uint32_t bits = tid_wiped ? tid_ns_bits() : tid_ns_bits_unwiped(getpid());
    errno = saved;
    return bits;
}

/* The robust list of the calling thread (TID t) when fx_rmutex may join it:
 * asked of the kernel once per thread and TID (a fork child's thread has
 * another TID, and glibc registers its list anew there). ENOSYS (qemu-user,
 * a seccomp filter), no head (a thread made by a raw clone()) or another
 * futex_offset: NULL, and the thread's words say PROBED. */
static struct robust_list_head *tid_robust_list(uint32_t t)
{
    if (fxi_self.rl_tid == t)
        return fxi_self.rl;
    struct robust_list_head *head = NULL;
    size_t len = 0;
    long r = fxi_syscall(SYS_get_robust_list, 0L, (long)&head, (long)&len, 0L, 0L, 0L);
    if (fxi_syscall_failed(r) || len != sizeof *head || !fxi_rl_usable(head))
        head = NULL;
    fxi_self.rl = head;
    fxi_self.rl_tid = t;
    return head;
}

uint32_t fxi_tid_slow(void)
{
    int saved = errno;
    pthread_once(&tid_once, tid_setup);
    uint32_t t = (uint32_t)syscall(SYS_gettid);
    errno = saved;
    /* A thread whose death the kernel reports is named by its TID alone
     * (the kernel compares the word's low 30 bits with it); any other
     * carries PROBED, and LOCALNS unless its process proved it runs in the
     * initial PID namespace. */
    uint32_t id = tid_robust_list(t) != NULL ? t : t | FXI_ID_PROBED | tid_process_ns();
    if (!tid_cached)
        return id; /* nothing cached: every call asks */
    /* The epoch is this process's PID. In a fork child the kernel hands the
     * page over zeroed, so no cache copied from the parent (whose PID it
     * holds) is trusted, before or after the child's first thread stores the
     * child's PID here. Relaxed: every thread of a process stores the same
     * value; it guards only each thread's own cache. */
    uint32_t epoch = (uint32_t)getpid();
    errno = saved;
    /* The records are emptied for id first: once the cache is good,
     * fx_rmutex's fast paths trust the record of held rmutexes. */
    fxi_held_reset(id);
    fxi_self.once.tid = 0; /* no identity: the record of initialisers is empty */
    fxi_self.once.n = 0;
    fxi_self.cache = (uint64_t)epoch << 32 | id;
    __atomic_store_n(&fxi_tid_epoch[0], (int32_t)epoch, __ATOMIC_RELAXED);
    return id;
}

bool fxi_id_comparable(uint32_t owner)
{
    return !(owner & FXI_ID_LOCALNS) && tid_process_ns() == 0;
}

int fxi_id_probe(uint32_t owner)
{
    /* ESRCH means "no such task in the caller's PID namespace": trusted only
     * when both the owner and the caller proved they run in the initial one,
     * where the number names the same task for both. */
    if (!fxi_id_comparable(owner))
        return FXI_TID_UNKNOWN;
    return fxi_tid_probe((pid_t)(owner & FXI_ID_TID_MASK));
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

/* The record of held rmutexes ------------------------------------------------ */

void fxi_held_reset(uint32_t self)
{
    fxi_self.held.tid = self;
    fxi_self.held.k = 0;
    fxi_self.held.extra = 0;
    fxi_self.held.first = NULL;
}

int fxi_held_has(const struct fx_rmutex *m, uint32_t self)
{
    if (fxi_self.held.tid != self)
        return 0;
    if (fxi_self.held.first == m)
        return 1;
    for (uint32_t i = fxi_self.held.k; i-- > 0;)
        if (fxi_self.held.more[i] == m)
            return 1;
    return fxi_self.held.extra != 0 ? -1 : 0;
}

void fxi_held_add(struct fx_rmutex *m, uint32_t self)
{
    if (fxi_self.held.tid != self)
        fxi_held_reset(self); /* no cache kept, or a fork child */
    else if (fxi_held_has(m, self) == 1)
        return; /* recorded already: fx_rmutex_recover took m from us, live */
    if (fxi_self.held.first == NULL)
        fxi_self.held.first = m;
    else if (fxi_self.held.k < FXI_HELD_MAX - 1)
        fxi_self.held.more[fxi_self.held.k++] = m;
    else
        fxi_self.held.extra++;
}

void fxi_held_del(const struct fx_rmutex *m, uint32_t self)
{
    if (fxi_self.held.tid != self)
        return;
    if (fxi_self.held.first == m) {
        fxi_self.held.first = NULL;
        return;
    }
    uint32_t k = fxi_self.held.k;
    for (uint32_t i = k; i-- > 0;) {
        if (fxi_self.held.more[i] == m) {
            for (; i + 1 < k; i++)
                fxi_self.held.more[i] = fxi_self.held.more[i + 1];
            fxi_self.held.k = k - 1;
            return;
        }
    }
    if (fxi_self.held.extra != 0)
        fxi_self.held.extra--; /* one of the unrecorded ones */
}

/* A thread that exits holding rmutexes announces their release (the recorded
 * ones) to the race detector: it cannot see the death, and would otherwise
 * report the EOWNERDEAD acquisition as a double lock. Armed at each
 * announced acquisition, only when a detector is there. */
static pthread_key_t held_exit_key;
static pthread_once_t held_exit_once = PTHREAD_ONCE_INIT;

static void held_exit(void *unused)
{
    (void)unused;
    if (fxi_self.held.first != NULL) {
        fxi_ann_pre_unlock(fxi_self.held.first, FX_ANN_RECURSIVE);
        fxi_ann_post_unlock(fxi_self.held.first, FX_ANN_RECURSIVE);
    }
    for (uint32_t i = 0; i < fxi_self.held.k; i++) {
        fxi_ann_pre_unlock(fxi_self.held.more[i], FX_ANN_RECURSIVE);
        fxi_ann_post_unlock(fxi_self.held.more[i], FX_ANN_RECURSIVE);
    }
    fxi_held_reset(fxi_self.held.tid);
}

static void held_exit_init(void)
{
    pthread_key_create(&held_exit_key, held_exit);
}

void fxi_held_announce_exit(void)
{
    if (!fxi_ann_detected())
        return;
    pthread_once(&held_exit_once, held_exit_init);
    pthread_setspecific(held_exit_key, (void *)1); /* non-NULL: run the destructor */
}

/* The record of running fx_once initialisers --------------------------------- */

bool fxi_once_inside(const void *o, uint32_t me)
{
    if (fxi_self.once.tid != me)
        return false;
    uint32_t n = fxi_self.once.n;
    uint32_t k = n < FXI_ONCE_MAX ? n : FXI_ONCE_MAX;
    for (uint32_t i = 0; i < k; i++)
        if (fxi_self.once.o[i] == o)
            return true;
    return n > FXI_ONCE_MAX;
}

uint32_t fxi_once_enter(const void *o, uint32_t me)
{
    if (fxi_self.once.tid != me) {
        fxi_self.once.tid = me; /* no cache kept, or a fork child */
        fxi_self.once.n = 0;
    }
    uint32_t depth = fxi_self.once.n++;
    if (depth < FXI_ONCE_MAX)
        fxi_self.once.o[depth] = o;
    return depth;
}

void fxi_once_leave(uint32_t depth)
{
    fxi_self.once.n = depth;
}

void fxi_once_abandon(void)
{
    if (fxi_self.once.n > 0)
        fxi_self.once.n--;
}
