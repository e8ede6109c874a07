#define _GNU_SOURCE
#include "fxtest.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <futexsync/layout.h>
#include <futexsync/rmutex.h>
#include <futexsync/time.h>

#include "fxfault.h" /* FXF_CANCELLED_FRAME */

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif

void *fxt_shared_alloc(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    return p;
}

void fxt_shared_free(void *p, size_t size)
{
    munmap(p, size);
}

pid_t fxt_fork(int (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(fn(arg) & 0xff);
    return pid;
}

/* Children reaped early by fxt_reap_where_zombies_look_alive: their
 * statuses, for fxt_wait_child. */
static pthread_mutex_t fxt_reaped_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    pid_t pid;
    int status;
} fxt_reaped[16];

static bool fxt_reaped_take(pid_t pid, int *status)
{
    bool found = false;
    pthread_mutex_lock(&fxt_reaped_lock);
    for (size_t i = 0; i < sizeof fxt_reaped / sizeof fxt_reaped[0]; i++) {
        if (fxt_reaped[i].pid == pid && pid > 0) {
            *status = fxt_reaped[i].status;
            fxt_reaped[i].pid = 0;
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&fxt_reaped_lock);
    return found;
}

int fxt_wait_child(pid_t pid, int timeout_ms)
{
    int reaped;
    if (fxt_reaped_take(pid, &reaped))
        return reaped;
    int64_t limit = fxt_now_ns() + (int64_t)timeout_ms * 1000000;
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) {
            if (WIFEXITED(st))
                return WEXITSTATUS(st);
            if (WIFSIGNALED(st))
                return 128 + WTERMSIG(st);
            continue;
        }
        if (r < 0 && errno != EINTR)
            return -1;
        if (fxt_now_ns() > limit) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        usleep(1000);
    }
}

int fxt_run_child(int (*fn)(void *), void *arg)
{
    return fxt_wait_child(fxt_fork(fn, arg), 60000);
}

int64_t fxt_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

pthread_t fxt_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, fn, arg), 0);
    return t;
}

void *fxt_join(pthread_t t)
{
    void *ret = NULL;
    assert_int_equal(pthread_join(t, &ret), 0);
    return ret;
}

/* Signal storm ------------------------------------------------------------- */

static volatile long fxt_signals_seen; /* only touched with __atomic builtins */

static void fxt_storm_handler(int sig)
{
    (void)sig;
    __atomic_fetch_add(&fxt_signals_seen, 1, __ATOMIC_RELAXED);
}

struct fxt_storm {
    pthread_t thread;
    pthread_t target;
    int stop; /* set with __atomic_store_n */
    struct sigaction old;
};

static void *fxt_storm_main(void *arg)
{
    struct fxt_storm *s = arg;
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        pthread_kill(s->target, SIGUSR1);
        usleep(20);
    }
    return NULL;
}

struct fxt_storm *fxt_storm_start(pthread_t target)
{
    struct fxt_storm *s = calloc(1, sizeof *s);
    assert_non_null(s);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fxt_storm_handler;
    sa.sa_flags = 0; /* no SA_RESTART: blocking calls see EINTR */
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGUSR1, &sa, &s->old), 0);
    __atomic_store_n(&fxt_signals_seen, 0, __ATOMIC_RELAXED);
    s->target = target;
    s->thread = fxt_thread(fxt_storm_main, s);
    return s;
}

long fxt_storm_stop(struct fxt_storm *s)
{
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
    fxt_join(s->thread);
    long n = __atomic_load_n(&fxt_signals_seen, __ATOMIC_RELAXED);
    /* Keep the handler installed: a signal still in flight must not kill us. */
    free(s);
    return n;
}

long fxt_storm_hits(long n, int cap_ms)
{
    int64_t limit = fxt_now_ns() + (int64_t)cap_ms * 1000000;
    long seen;
    while ((seen = __atomic_load_n(&fxt_signals_seen, __ATOMIC_RELAXED)) < n &&
           fxt_now_ns() < limit) {
        /* Polling interval only: the CPU is the storm's and its target's. */
        struct timespec pause = {0, 100000};
        nanosleep(&pause, NULL);
    }
    return seen;
}

/* The no-futex proof --------------------------------------------------------- */

/* futex_time64, where the library's timed waits go on 32-bit architectures;
 * elsewhere SYS_futex again (a second, harmless compare). */
#ifdef SYS_futex_time64
#define FXT_SYS_FUTEX_TIME64 SYS_futex_time64
#else
#define FXT_SYS_FUTEX_TIME64 SYS_futex
#endif

struct fxt_nofutex {
    const void *addr;
    size_t len;
    int (*fn)(void *);
    void *arg;
};

static int fxt_nofutex_child(void *p)
{
    struct fxt_nofutex *nf = p;
    uint64_t lo = (uint64_t)(uintptr_t)nf->addr;
    uint64_t hi = lo + nf->len;
    /* Both ends must share their upper 32 bits for the two-word compare. */
    if ((lo >> 32) != ((hi - 1) >> 32))
        return 120;
    uint32_t a_hi = (uint32_t)(lo >> 32), a_lo = (uint32_t)lo, a_end = (uint32_t)hi;
    struct sock_filter prog[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FXT_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex_waitv, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FXT_SYS_FUTEX_TIME64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        /* futex(uaddr, ...) or futex_time64: kill when lo <= uaddr < hi */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]) + 4),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, a_hi, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, a_lo, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, a_end, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    };
    struct sock_fprog fprog = {.len = sizeof prog / sizeof prog[0], .filter = prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return 121;
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0)
        return 122;
    return nf->fn(nf->arg);
}

int fxt_refuse_syscall(long nr, int err, unsigned flags)
{
    struct sock_filter prog[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FXT_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((uint32_t)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog fprog = {.len = sizeof prog / sizeof prog[0], .filter = prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog) == 0 ? 0 : -1;
}

/* The seccomp probe's child: an allow-all filter, installed or not. */
static int fxt_seccomp_probe_child(void *arg)
{
    (void)arg;
    struct sock_filter prog[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    struct sock_fprog fprog = {.len = 1, .filter = prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return errno > 0 && errno < 255 ? errno : 255;
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0)
        return errno > 0 && errno < 255 ? errno : 255;
    return 0;
}

/* 0 once probed and working, else the errno of the probe (-1 not probed). */
static int fxt_seccomp_errno = -1;

bool fxt_seccomp_works(void)
{
    int e = __atomic_load_n(&fxt_seccomp_errno, __ATOMIC_ACQUIRE);
    if (e == -1) {
        e = fxt_run_child(fxt_seccomp_probe_child, NULL);
        __atomic_store_n(&fxt_seccomp_errno, e, __ATOMIC_RELEASE);
    }
    return e == 0;
}

void fxt_require_seccomp(void)
{
    if (fxt_seccomp_works())
        return;
    print_message("[  SKIP    ] seccomp filters unavailable here: seccomp(SECCOMP_SET_MODE_FILTER)"
                  " fails (%s; an emulator such as qemu-user does not implement it)\n",
                  strerror(__atomic_load_n(&fxt_seccomp_errno, __ATOMIC_ACQUIRE)));
    skip();
}

int fxt_run_without_futex(const void *addr, size_t len, int (*fn)(void *), void *arg)
{
    fxt_require_seccomp();
    struct fxt_nofutex nf = {addr, len, fn, arg};
    return fxt_run_child(fxt_nofutex_child, &nf);
}

/* Zombies and the liveness probe ---------------------------------------------- */

/* 0 once probed: process_vm_readv works; else its errno (-1 not probed). */
static int fxt_vm_readv_errno = -1;

bool fxt_rmutex_robust(void)
{
    fx_rmutex m = FX_RMUTEX_INIT;
    if (fx_rmutex_trylock(&m) != 0)
        return false;
    bool robust = !(m.owner & FX_RMUTEX_PROBED);
    fx_rmutex_unlock(&m);
    return robust;
}

int32_t fxt_rmutex_self_word(void)
{
    int32_t word = (int32_t)fxt_gettid();
    if (!fxt_rmutex_robust()) {
        /* The initial PID namespace's inode number, PROC_PID_INIT_INO. */
        struct stat st;
        bool initial = stat("/proc/self/ns/pid", &st) == 0 && st.st_ino == 0xEFFFFFFCu;
        word |= FX_RMUTEX_PROBED | (initial ? 0 : FX_RMUTEX_LOCALNS);
    }
    return word;
}

bool fxt_zombies_look_dead(void)
{
    int e = __atomic_load_n(&fxt_vm_readv_errno, __ATOMIC_ACQUIRE);
    if (e == -1) {
        char byte = 1, copy = 0;
        struct iovec local = {&copy, 1}, remote = {&byte, 1};
        e = process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == 1 ? 0 : errno;
        __atomic_store_n(&fxt_vm_readv_errno, e, __ATOMIC_RELEASE);
    }
    return e == 0;
}

static void fxt_zombie_note(const char *tag, const char *what)
{
    static int told; /* the reason, once per process */
    if (__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED)) {
        print_message("[  %-8s] %s (zombies look alive here: see above)\n", tag, what);
        return;
    }
    print_message("[  %-8s] %s: process_vm_readv fails here (%s; an emulator such as"
                  " qemu-user does not implement it), so the library's liveness probe"
                  " falls back to kill(tid, 0), which sees a zombie alive until reaped\n",
                  tag, what, strerror(__atomic_load_n(&fxt_vm_readv_errno, __ATOMIC_ACQUIRE)));
}

void fxt_require_zombies_look_dead(void)
{
    if (fxt_zombies_look_dead())
        return;
    fxt_zombie_note("SKIP", "an unreaped zombie cannot look dead");
    skip();
}

void fxt_reap_where_zombies_look_alive(pid_t pid)
{
    if (fxt_zombies_look_dead())
        return;
    fxt_zombie_note("NOTE", "the killed owner is reaped at once");
    int st = fxt_wait_child(pid, 10000);
    pthread_mutex_lock(&fxt_reaped_lock);
    for (size_t i = 0; i < sizeof fxt_reaped / sizeof fxt_reaped[0]; i++) {
        if (fxt_reaped[i].pid == 0) {
            fxt_reaped[i].pid = pid;
            fxt_reaped[i].status = st;
            break;
        }
    }
    pthread_mutex_unlock(&fxt_reaped_lock);
}

/* More helpers --------------------------------------------------------------- */

pid_t fxt_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* Reads a small /proc file into buf (NUL-terminated); the byte count or -1. */
static ssize_t fxt_read_proc(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n;
    do
        n = read(fd, buf, size - 1);
    while (n < 0 && errno == EINTR);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

char fxt_task_state(pid_t tid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)tid);
    if (fxt_read_proc(path, buf, sizeof buf) <= 0)
        return 0;
    const char *p = strrchr(buf, ')');
    return p != NULL && p[1] == ' ' ? p[2] : 0;
}

/* The system call number that /proc/<tid>/syscall shows for a futex wait,
 * learned once per process by a probe: a thread sleeps in futex(FUTEX_WAIT)
 * on a word of ours, and whatever number /proc shows beside that word's
 * address is it. Natively it is SYS_futex; under an emulator that runs the
 * program's system calls as its host's (qemu-user), /proc shows the host's
 * call, with another number. -1 until learned, -2 when the probe saw nothing
 * (no /proc, or /proc shows other addresses than the program's). */
static long fxt_futex_nr_seen = -1;
static int32_t fxt_futex_probe_word;
static pid_t fxt_futex_probe_tid;

static void *fxt_futex_probe_main(void *arg)
{
    (void)arg;
    __atomic_store_n(&fxt_futex_probe_tid, fxt_gettid(), __ATOMIC_RELEASE);
    while (__atomic_load_n(&fxt_futex_probe_word, __ATOMIC_ACQUIRE) == 0)
        syscall(SYS_futex, &fxt_futex_probe_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    return NULL;
}

static long fxt_futex_nr_probe(void)
{
    long seen = __atomic_load_n(&fxt_futex_nr_seen, __ATOMIC_ACQUIRE);
    if (seen != -1)
        return seen;
    seen = -2;
    __atomic_store_n(&fxt_futex_probe_word, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&fxt_futex_probe_tid, 0, __ATOMIC_RELAXED);
    pthread_t t;
    if (pthread_create(&t, NULL, fxt_futex_probe_main, NULL) != 0)
        return seen; /* not cached: the next call asks again */
    int64_t limit = fxt_now_ns() + 10 * 1000000000LL;
    pid_t tid;
    while ((tid = __atomic_load_n(&fxt_futex_probe_tid, __ATOMIC_ACQUIRE)) == 0 &&
           fxt_now_ns() < limit)
        sched_yield();
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/syscall", (int)tid);
    while (tid != 0 && fxt_now_ns() < limit) {
        long nr;
        unsigned long long arg0;
        if (fxt_read_proc(path, buf, sizeof buf) <= 0)
            break;
        if (sscanf(buf, "%ld 0x%llx", &nr, &arg0) == 2 && nr >= 0 &&
            arg0 == (unsigned long long)(uintptr_t)&fxt_futex_probe_word) {
            seen = nr;
            break;
        }
        struct timespec pause = {0, 100000};
        nanosleep(&pause, NULL);
    }
    __atomic_store_n(&fxt_futex_probe_word, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &fxt_futex_probe_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    pthread_join(t, NULL);
    __atomic_store_n(&fxt_futex_nr_seen, seen, __ATOMIC_RELEASE);
    return seen;
}

/* 1: tid sleeps in a futex wait on addr; 0: not (yet). */
bool fxt_is_futex_call(long nr)
{
#ifdef SYS_futex_time64
    if (nr == SYS_futex_time64)
        return true;
#endif
#ifdef SYS_futex
    if (nr == SYS_futex)
        return true;
#endif
    /* Any other number: the one /proc showed for the probe's wait. */
    return nr >= 0 && nr == fxt_futex_nr_probe();
}

/* Whether the futex_waitv call of task tid, whose arguments are waiters
 * and n, sleeps on addr among its words (the untimed sleepers of shared
 * memory wait on their word and a private hand-off word at once). */
static bool fxt_waitv_has(pid_t tid, unsigned long long waiters, unsigned long long n,
                          const void *addr)
{
    struct {
        uint64_t val, uaddr;
        uint32_t flags, reserved;
    } v[8];
    if (n == 0 || n > 8)
        return false;
    struct iovec local = {v, (size_t)n * sizeof v[0]};
    struct iovec remote = {(void *)(uintptr_t)waiters, local.iov_len};
    if (process_vm_readv(tid, &local, 1, &remote, 1, 0) != (ssize_t)local.iov_len)
        return false;
    for (unsigned i = 0; i < n; i++)
        if (v[i].uaddr == (uint64_t)(uintptr_t)addr)
            return true;
    return false;
}

int fxt_futex_sleep_how(pid_t tid, const void *addr)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/syscall", (int)tid);
    if (fxt_read_proc(path, buf, sizeof buf) <= 0)
        return -1;
    /* "<nr> 0x<arg0> 0x<arg1> ...", or "running", or "-1 ..." outside a call. */
    long nr;
    unsigned long long arg0, arg1 = 0;
    if (sscanf(buf, "%ld 0x%llx 0x%llx", &nr, &arg0, &arg1) < 2)
        return 0;
#ifdef SYS_futex_waitv
    if (nr == SYS_futex_waitv)
        return fxt_waitv_has(tid, arg0, arg1, addr) ? 2 : 0;
#endif
    return fxt_is_futex_call(nr) && arg0 == (unsigned long long)(uintptr_t)addr ? 1 : 0;
}

static bool fxt_asleep_once(pid_t tid, const void *addr, long unused)
{
    (void)unused;
    if (fxt_task_state(tid) != 'S')
        return false;
    int how = fxt_futex_sleep_how(tid, addr);
    if (how == 0)
        return false;
    if (how < 0) {
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%d/wchan", (int)tid);
        if (fxt_read_proc(path, buf, sizeof buf) <= 0 || strstr(buf, "futex") == NULL)
            return false;
    }
    /* Still sleeping after the system call was read: not a stale 'S'. */
    return fxt_task_state(tid) == 'S';
}

/* Polls once(tid, p, n) until it holds (true) or timeout_ms passed (false). */
static bool fxt_poll_task(bool (*once)(pid_t, const void *, long), pid_t tid, const void *p,
                          long n, int timeout_ms)
{
    int64_t limit = fxt_now_ns() + (int64_t)timeout_ms * 1000000;
    for (;;) {
        if (once(tid, p, n))
            return true;
        if (fxt_now_ns() > limit)
            return false;
        /* Polling interval only; the answer comes from the kernel's view. */
        struct timespec pause = {0, 50000};
        nanosleep(&pause, NULL);
    }
}

bool fxt_wait_asleep(pid_t tid, const void *addr, int timeout_ms)
{
    return fxt_poll_task(fxt_asleep_once, tid, addr, 0, timeout_ms);
}

/* 1: tid sleeps in system call nr, or where /proc shows another number or
 * none, in a wait channel naming wchan. */
static bool fxt_in_syscall_once(pid_t tid, const void *wchan, long nr)
{
    if (fxt_task_state(tid) != 'S')
        return false;
    char path[64], buf[512];
    long seen = -1;
    snprintf(path, sizeof path, "/proc/%d/syscall", (int)tid);
    if (fxt_read_proc(path, buf, sizeof buf) > 0 && sscanf(buf, "%ld", &seen) == 1 && seen == nr)
        return fxt_task_state(tid) == 'S';
    snprintf(path, sizeof path, "/proc/%d/wchan", (int)tid);
    if (fxt_read_proc(path, buf, sizeof buf) <= 0 || strstr(buf, (const char *)wchan) == NULL)
        return false;
    return fxt_task_state(tid) == 'S';
}

bool fxt_wait_in_syscall(pid_t tid, long nr, const char *wchan, int timeout_ms)
{
    return fxt_poll_task(fxt_in_syscall_once, tid, wchan, nr, timeout_ms);
}

void fxt_signal_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fxt_storm_handler;
    sa.sa_flags = 0; /* no SA_RESTART: blocking calls see EINTR */
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
    __atomic_store_n(&fxt_signals_seen, 0, __ATOMIC_RELAXED);
}

long fxt_signal_count(void)
{
    return __atomic_load_n(&fxt_signals_seen, __ATOMIC_RELAXED);
}

bool fxt_join_timed(pthread_t t, int timeout_ms, void **ret)
{
    struct timespec limit;
    clock_gettime(CLOCK_REALTIME, &limit); /* pthread_timedjoin_np's clock */
    limit.tv_sec += timeout_ms / 1000;
    limit.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
    if (limit.tv_nsec >= 1000000000) {
        limit.tv_nsec -= 1000000000;
        limit.tv_sec += 1;
    }
    void *r = NULL;
    int e = pthread_timedjoin_np(t, &r, &limit);
    if (e == ETIMEDOUT)
        return false;
    assert_int_equal(e, 0);
    if (ret != NULL)
        *ret = r;
    return true;
}

void fxt_flag_set(int32_t *flag, int32_t v)
{
    __atomic_store_n(flag, v, __ATOMIC_RELEASE);
}

bool fxt_flag_wait(const int32_t *flag, int32_t v, int timeout_ms)
{
    int64_t limit = fxt_now_ns() + (int64_t)timeout_ms * 1000000;
    for (int spins = 0; __atomic_load_n(flag, __ATOMIC_ACQUIRE) != v; spins++) {
        if (fxt_now_ns() > limit)
            return false;
        if (spins < 100) {
            sched_yield();
        } else {
            /* A long wait: stop burning the CPU the other side may need. */
            struct timespec pause = {0, 20000};
            nanosleep(&pause, NULL);
        }
    }
    return true;
}

void *fxt_arena(size_t size)
{
    /* Carved from 1 MiB mappings (not malloc: nothing here is a leak to
     * LeakSanitizer). Tests run one at a time: no lock needed. */
    static char *chunk;
    static size_t left;
    enum { CHUNK = 1 << 20 };
    size = (size + 15) & ~(size_t)15;
    assert_true(size <= CHUNK);
    if (size > left) {
        chunk = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        assert_true(chunk != MAP_FAILED);
        left = CHUNK;
    }
    void *p = chunk;
    chunk += size;
    left -= size;
    return p;
}

int64_t fxt_ts_ns(const struct timespec *ts)
{
    return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

struct fxt_storm *fxt_storm_start_child(pthread_t target)
{
    struct fxt_storm *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fxt_storm_handler;
    sa.sa_flags = 0; /* no SA_RESTART: blocking calls see EINTR */
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, &s->old) != 0) {
        free(s);
        return NULL;
    }
    __atomic_store_n(&fxt_signals_seen, 0, __ATOMIC_RELAXED);
    s->target = target;
    if (pthread_create(&s->thread, NULL, fxt_storm_main, s) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

long fxt_storm_stop_child(struct fxt_storm *s)
{
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
    if (pthread_join(s->thread, NULL) != 0)
        return -1;
    long n = __atomic_load_n(&fxt_signals_seen, __ATOMIC_RELAXED);
    /* Keep the handler installed: a signal still in flight must not kill us. */
    free(s);
    return n;
}

static void fxt_cancel_cleanup(void *arg)
{
    struct fxt_cancel *c = arg;
    __atomic_store_n(&c->cleanup_ran, 1, __ATOMIC_RELAXED); /* read after the join */
    if (c->cleanup != NULL)
        c->cleanup(c->arg);
}

FXF_CANCELLED_FRAME static void *fxt_cancel_main(void *arg)
{
    struct fxt_cancel *c = arg;
    int old = PTHREAD_CANCEL_ENABLE;
    if (c->pending)
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    if (c->prepare != NULL && c->prepare(c->arg) != 0)
        return NULL; /* ready never set: the test fails */
    pthread_cleanup_push(fxt_cancel_cleanup, c);
    c->tid = fxt_gettid();
    fxt_flag_set(&c->ready, 1);
    if (c->pending) {
        fxt_flag_wait(&c->ready, 2, c->timeout_ms); /* the cancellation is pending now */
        pthread_setcancelstate(old, &old);
    }
    c->wait(c->arg);
    pthread_cleanup_pop(0);
    return NULL; /* the wait returned: not PTHREAD_CANCELED, the test fails */
}

static void fxt_cancel_run(struct fxt_cancel *c, int pending, int timeout_ms)
{
    c->pending = pending;
    c->timeout_ms = timeout_ms;
    pthread_t t = fxt_thread(fxt_cancel_main, c);
    assert_true(fxt_flag_wait(&c->ready, 1, timeout_ms));
    if (!pending)
        assert_true(fxt_wait_asleep(c->tid, c->word, timeout_ms));
    assert_int_equal(pthread_cancel(t), 0);
    if (pending)
        fxt_flag_set(&c->ready, 2);
    void *ret = NULL;
    assert_true(fxt_join_timed(t, timeout_ms, &ret));
    assert_ptr_equal(ret, PTHREAD_CANCELED);
    assert_int_equal(c->cleanup_ran, 1);
}

void fxt_cancel_blocked(struct fxt_cancel *c, int timeout_ms)
{
    fxt_cancel_run(c, 0, timeout_ms);
}

void fxt_cancel_pending(struct fxt_cancel *c, int timeout_ms)
{
    fxt_cancel_run(c, 1, timeout_ms);
}

/* Races against a deadline (fxtest.h) ---------------------------------------------- */

bool fxt_race_next(struct fxt_race *r, int rounds)
{
    bool both = r->seen[0] > 0 && r->seen[1] > 0;
    if (r->rounds >= rounds && (both || r->rounds >= 10 * rounds))
        return false;
    r->rounds++;
    return true;
}

struct timespec fxt_race_deadline(const struct fxt_race *r)
{
    return fx_deadline_in(r->lead_ns);
}

int fxt_race_release(struct fxt_race *r, const struct timespec *deadline, int (*release)(void *),
                     void *arg)
{
    /* From 100 us before to 400 us after the deadline, in 25 us steps. */
    r->at_ns = fxt_ts_ns(deadline) + ((r->rounds - 1) % 21 - 4) * 25000LL;
    if (fxt_now_ns() >= r->at_ns) {
        /* Past the point already: the waiter took longer than the lead. */
        if (r->lead_ns < 256000000)
            r->lead_ns *= 2;
        r->in_time = false;
        r->late++;
        return release(arg);
    }
    /* Asleep until shortly before the point, then a spin to it: a thread
     * that spun for the whole lead would have used up its time slice by
     * then, and a loaded machine would preempt it there. The margin grows
     * while the wake-up overshoots it. */
    int64_t wake = r->at_ns - r->margin_ns;
    struct timespec t = {(time_t)(wake / 1000000000), (long)(wake % 1000000000)};
    if (wake > fxt_now_ns())
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
            ;
    bool early = fxt_now_ns() < r->at_ns;
    while (fxt_now_ns() < r->at_ns)
        ;
    int ret = release(arg);
    /* In time: at the point, and not preempted on the way (a loaded
     * machine's time slices are milliseconds; an emulator's system call
     * alone can take a few hundred microseconds). */
    r->in_time = early && fxt_now_ns() - r->at_ns < 1000000;
    if (!r->in_time) {
        r->late++;
        if (!early && r->margin_ns < 16000000)
            r->margin_ns *= 2;
    }
    return ret;
}

void fxt_race_count(struct fxt_race *r, int outcome)
{
    if (r->in_time)
        r->seen[outcome != 0]++;
}

/* Isolated test runs (fxtest.h) -------------------------------------------------- */

/* What a child reports beside its exit status, in memory shared with the
 * parent: an exit status of 0 alone could come from a test that called
 * exit(0) itself. */
enum { FXT_ISO_NONE, FXT_ISO_PASSED, FXT_ISO_SKIPPED, FXT_ISO_NOT_RUN, FXT_ISO_FAILED };

/* The child's one test and the group's fixtures, which the wrappers call. */
static CMUnitTestFunction fxt_iso_func;
static CMFixtureFunction fxt_iso_setup, fxt_iso_teardown;
static bool fxt_iso_entered, fxt_iso_returned, fxt_iso_teardown_failed;

/* cmocka longjmps out of a test that fails or skips: a test that returned
 * passed, one that did not and counts no failure skipped. */
static void fxt_iso_test(void **state)
{
    fxt_iso_entered = true;
    fxt_iso_func(state);
    fxt_iso_returned = true;
}

/* The child runs its test as a cmocka group of one, whose "Running 1
 * test(s)" and summary would clutter the output and repeat the summary line
 * that scripts count once per binary. The subunit format prints no group
 * lines, so the child starts in it, and the group fixtures, which cmocka
 * calls after the group's first line and before its summary, switch to the
 * standard format around the test. */
static int fxt_iso_group_setup(void **state)
{
    cmocka_set_message_output(CM_OUTPUT_STDOUT);
    return fxt_iso_setup != NULL ? fxt_iso_setup(state) : 0;
}

static int fxt_iso_group_teardown(void **state)
{
    int r = fxt_iso_teardown != NULL ? fxt_iso_teardown(state) : 0;
    if (r != 0) {
        fxt_iso_teardown_failed = true;
        print_error("[  ERROR   ] --- the group teardown failed (%d)\n", r);
    }
    cmocka_set_message_output(CM_OUTPUT_SUBUNIT);
    return r;
}

static const int fxt_iso_signals[] = {SIGINT, SIGTERM, SIGHUP};
static volatile pid_t fxt_iso_current; /* the running test's process (group) */
static sigset_t fxt_iso_mask;         /* the signal mask before the run */

/* A run interrupted (^C, a kill of the binary) ends its test's processes. */
static void fxt_iso_interrupted(int sig)
{
    pid_t pid = fxt_iso_current;
    if (pid > 0)
        kill(-pid, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

static _Noreturn void fxt_iso_child(const char *group, const struct CMUnitTest *test,
                                    pid_t parent, int *verdict)
{
    for (size_t i = 0; i < sizeof fxt_iso_signals / sizeof fxt_iso_signals[0]; i++)
        signal(fxt_iso_signals[i], SIG_DFL);
    sigprocmask(SIG_SETMASK, &fxt_iso_mask, NULL);
    /* Its own process group, which the parent kills whole; and its death
     * with the parent's (the parent cannot clean up after a SIGKILL). */
    (void)setpgid(0, 0);
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(125);
    struct CMUnitTest one = *test;
    fxt_iso_func = test->test_func;
    if (one.test_func != NULL)
        one.test_func = fxt_iso_test;
    cmocka_set_message_output(CM_OUTPUT_SUBUNIT);
    int failed = _cmocka_run_group_tests(group, &one, 1, fxt_iso_group_setup,
                                         fxt_iso_group_teardown);
    if (failed != 0 || fxt_iso_teardown_failed) {
        *verdict = FXT_ISO_FAILED; /* cmocka printed why */
        fflush(NULL);
        _exit(1); /* not exit(): a failed test may have left a thread holding stdio's locks */
    }
    *verdict = fxt_iso_returned  ? FXT_ISO_PASSED
               : fxt_iso_entered ? FXT_ISO_SKIPPED
                                 : FXT_ISO_NOT_RUN;
    /* exit(), not _exit(): a sanitizer's checks at exit (LeakSanitizer's
     * leak check, ThreadSanitizer's exit status) belong to this test. */
    exit(0);
}

/* Runs test in a child: FXT_ISO_PASSED, _SKIPPED, _NOT_RUN or _FAILED (what
 * cmocka could not say about a failure is printed here). verdict: shared
 * memory, for the child's word. */
static int fxt_iso_run_one(const char *group, const struct CMUnitTest *test, int *verdict,
                           int64_t limit_ns)
{
    *verdict = FXT_ISO_NONE;
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        print_error("[  ERROR   ] --- fork: %s\n", strerror(errno));
        print_message("[  FAILED  ] %s\n", test->name);
        return FXT_ISO_FAILED;
    }
    if (pid == 0)
        fxt_iso_child(group, test, parent, verdict);
    (void)setpgid(pid, pid); /* as the child does: whichever runs first */
    fxt_iso_current = pid;
    /* Wait for its end without reaping it (WNOWAIT): while it is unreaped,
     * its PID, and so its process group's ID, cannot be reused, and the
     * kill below reaches only what the test left. SIGCHLD is blocked during
     * the run, so its end is seen at once, however it falls between the
     * two calls. */
    int64_t deadline = fxt_now_ns() + limit_ns;
    bool timed_out = false;
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
            break;
        int64_t left = deadline - fxt_now_ns();
        if (left <= 0) {
            timed_out = true;
            kill(pid, SIGKILL); /* should it have no group of its own */
            break;
        }
        struct timespec t = {(time_t)(left / 1000000000), (long)(left % 1000000000)};
        sigtimedwait(&chld, NULL, &t);
    }
    kill(-pid, SIGKILL); /* the test's leftovers, or the whole test if it hangs */
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    fxt_iso_current = 0;
    if (timed_out) {
        print_error("[  ERROR   ] --- %s: no verdict within %lld s (FXT_TEST_TIMEOUT): "
                    "its processes were killed\n",
                    test->name, (long long)(limit_ns / 1000000000));
    } else if (WIFSIGNALED(st)) {
        print_error("[  ERROR   ] --- %s: its process was killed by signal %d (%s)\n", test->name,
                    WTERMSIG(st), strsignal(WTERMSIG(st)));
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && *verdict != FXT_ISO_NONE &&
               *verdict != FXT_ISO_FAILED) {
        return *verdict;
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 1 && *verdict == FXT_ISO_FAILED) {
        return FXT_ISO_FAILED; /* cmocka reported it */
    } else if (*verdict == FXT_ISO_PASSED) {
        print_error("[  ERROR   ] --- %s: its process exited with status %d after the test "
                    "passed (a sanitizer's report above?)\n",
                    test->name, WEXITSTATUS(st));
    } else {
        print_error("[  ERROR   ] --- %s: its process exited with status %d before the test "
                    "ended\n",
                    test->name, WEXITSTATUS(st));
    }
    print_message("[  FAILED  ] %s\n", test->name);
    return FXT_ISO_FAILED;
}

/* Whether a test of the group runs: a cmocka test (a name and a function),
 * selected by the filters. */
static bool fxt_iso_selected(const struct CMUnitTest *t)
{
    if (t->name == NULL ||
        (t->test_func == NULL && t->setup_func == NULL && t->teardown_func == NULL))
        return false;
    const char *only = getenv("CMOCKA_TEST_FILTER"), *skip = getenv("CMOCKA_SKIP_FILTER");
    if (only != NULL && fnmatch(only, t->name, 0) != 0)
        return false;
    return skip == NULL || fnmatch(skip, t->name, 0) != 0;
}

/* The summary's list of the count tests whose outcome was `which`, headed
 * and closed as cmocka does ("[  FAILED  ] ... listed below"). */
static void fxt_iso_list(const struct CMUnitTest *tests, size_t n, const int *outcome, int which,
                         unsigned count, const char *label)
{
    if (count == 0)
        return;
    print_error("[  %-7s ] %u test(s), listed below:\n", label, count);
    for (size_t i = 0; i < n; i++)
        if (fxt_iso_selected(&tests[i]) && outcome[i] == which)
            print_error("[  %-7s ] %s\n", label, tests[i].name);
    print_error("\n %u %s TEST(S)\n", count, label);
}

int fxt_run_group_isolated(const char *group_name, const struct CMUnitTest *tests, size_t n,
                           CMFixtureFunction group_setup, CMFixtureFunction group_teardown)
{
    const char *iso = getenv("FXT_ISOLATE"), *out = getenv("CMOCKA_MESSAGE_OUTPUT");
    if ((iso != NULL && strcmp(iso, "0") == 0) || (out != NULL && strcasecmp(out, "stdout") != 0))
        return _cmocka_run_group_tests(group_name, tests, n, group_setup, group_teardown);
    const char *limit_env = getenv("FXT_TEST_TIMEOUT");
    long limit_s = limit_env != NULL ? strtol(limit_env, NULL, 10) : 0;
    if (limit_s <= 0 || limit_s > 86400)
        limit_s = 60;
    /* Line-buffered, so that a child's lines reach the log in order with
     * its unbuffered stderr, and are not lost if it dies. */
    fflush(stdout);
    setvbuf(stdout, NULL, _IOLBF, 0);
    fxt_iso_setup = group_setup; /* for the children */
    fxt_iso_teardown = group_teardown;
    int *verdict = fxt_shared_alloc(sizeof *verdict);
    int *outcome = calloc(n > 0 ? n : 1, sizeof *outcome);
    assert_non_null(outcome);
    struct sigaction sa, old[sizeof fxt_iso_signals / sizeof fxt_iso_signals[0]];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fxt_iso_interrupted;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fxt_iso_signals / sizeof fxt_iso_signals[0]; i++)
        sigaction(fxt_iso_signals[i], &sa, &old[i]);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &fxt_iso_mask);

    unsigned selected = 0, executed = 0, passed = 0, skipped = 0, failed = 0;
    for (size_t i = 0; i < n; i++)
        selected += fxt_iso_selected(&tests[i]);
    print_message("[==========] Running %u test(s).\n", selected);
    for (size_t i = 0; i < n; i++) {
        if (!fxt_iso_selected(&tests[i]))
            continue;
        outcome[i] = fxt_iso_run_one(group_name, &tests[i], verdict, limit_s * 1000000000LL);
        executed += outcome[i] != FXT_ISO_NOT_RUN;
        passed += outcome[i] == FXT_ISO_PASSED;
        skipped += outcome[i] == FXT_ISO_SKIPPED;
        failed += outcome[i] == FXT_ISO_FAILED;
    }
    /* The summary as cmocka prints it. */
    print_message("[==========] %u test(s) run.\n", executed);
    print_error("[  PASSED  ] %u test(s).\n", passed);
    fxt_iso_list(tests, n, outcome, FXT_ISO_SKIPPED, skipped, "SKIPPED");
    fxt_iso_list(tests, n, outcome, FXT_ISO_FAILED, failed, "FAILED");
    sigprocmask(SIG_SETMASK, &fxt_iso_mask, NULL);
    /* A SIGCHLD left pending is discarded with its default disposition. */
    for (size_t i = 0; i < sizeof fxt_iso_signals / sizeof fxt_iso_signals[0]; i++)
        sigaction(fxt_iso_signals[i], &old[i], NULL);
    free(outcome);
    fxt_shared_free(verdict, sizeof *verdict);
    return failed < 255 ? (int)failed : 255;
}
