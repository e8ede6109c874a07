/*
 * src/identity.c - the calling thread's identity (its TID cache, filled
 * against the process's fork epoch, and its robust list), its records of
 * held rmutexes and running fx_once initialisers, and the probe of another
 * thread's identity word. Facts about the process (the epoch's page, the PID
 * namespace, the liveness of a TID) are src/process.c's.
 *
 * See src/internal/identity.h for what is guaranteed and the limits.
 */
#include "internal/identity.h"

#include "internal/annotate.h"
#include "internal/robust.h"
#include "internal/syscall.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* cache: high half, the epoch of the process that filled it (its PID);
 * low half, the identity word. The initial value matches no
 * page (no PID is 0xffffffff). The records start empty. */
_Thread_local struct fxi_self fxi_self __attribute__((tls_model("initial-exec"))) = {
    .cache = UINT64_MAX};

/* In a fork child: the forking thread's list_op_pending, which an fx_rmutex
 * it holds keeps (src/internal/robust.h), is taken back before the child's
 * code runs, so that no entry of the parent's outlives the child's view of
 * its object (glibc's fork assumes it NULL and re-registers the head).
 * Registered once per process, by the first thread found to have a list;
 * fork children inherit the registration. */
static void rl_fork_child(void)
{
    if (fxi_self.rl != NULL)
        fxi_self.rl->list_op_pending = NULL;
}
static bool rl_fork_ok; /* written once under pthread_once, which orders it */
static void rl_fork_setup(void)
{
    /* Read by every thread after pthread_once: the library's own word,
     * hidden from Helgrind and DRD (as src/process.c's). */
    fxi_ann_own_words(&rl_fork_ok, sizeof rl_fork_ok);
    rl_fork_ok = pthread_atfork(NULL, NULL, rl_fork_child) == 0;
}
static pthread_once_t rl_fork_once = PTHREAD_ONCE_INIT;

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
    if (head != NULL) {
        pthread_once(&rl_fork_once, rl_fork_setup);
        if (!rl_fork_ok)
            head = NULL; /* no handler (ENOMEM): the probe decides, as without a list */
    }
    fxi_self.rl = head;
    fxi_self.rl_tid = t;
    return head;
}

uint32_t fxi_tid_slow(void)
{
    int saved = errno;
    bool cached = fxi_process_caches(); /* sets the epoch's page up first */
    uint32_t t = (uint32_t)syscall(SYS_gettid);
    errno = saved;
    /* A thread whose death the kernel reports is named by its TID alone
     * (the kernel compares the word's low 30 bits with it); any other
     * carries PROBED, and LOCALNS unless its process proved it runs in the
     * initial PID namespace. */
    uint32_t id = t;
    if (tid_robust_list(t) == NULL)
        id |= FXI_ID_PROBED | (fxi_process_initial_ns() ? 0 : FXI_ID_LOCALNS);
    if (!cached)
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
    return !(owner & FXI_ID_LOCALNS) && fxi_process_initial_ns();
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
        fxi_ann_pre_unlock(fxi_self.held.first, FXI_ANN_RECURSIVE);
        fxi_ann_post_unlock(fxi_self.held.first, FXI_ANN_RECURSIVE);
    }
    for (uint32_t i = 0; i < fxi_self.held.k; i++) {
        fxi_ann_pre_unlock(fxi_self.held.more[i], FXI_ANN_RECURSIVE);
        fxi_ann_post_unlock(fxi_self.held.more[i], FXI_ANN_RECURSIVE);
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
