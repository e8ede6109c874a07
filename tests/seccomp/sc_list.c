/*
 * tests/seccomp/sc_list.c - see sc_list.h.
 */
#define _GNU_SOURCE
#include "sc_list.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Calls numbered alike on every architecture since Linux 5.1, which older
 * headers may lack (the library spells them out the same way). */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif

/* Every name the lists may use, on any architecture. */
static const char *const known[] = {
    "access", "arch_prctl", "brk", "clock_gettime", "clock_gettime64", "clock_nanosleep",
    "clock_nanosleep_time64", "clone", "clone3", "close", "epoll_create1", "epoll_ctl", "eventfd2",
    "execve", "exit", "exit_group", "faccessat", "fcntl", "fstat", "fstatat64", "futex",
    "futex_time64", "futex_waitv", "get_robust_list", "getdents64", "getpid", "getppid",
    "getrandom", "gettid", "io_uring_enter", "io_uring_register", "io_uring_setup", "ioctl", "kill",
    "madvise", "mmap", "mprotect", "munmap", "newfstatat", "openat", "pause", "pidfd_open", "pipe2",
    "poll", "ppoll", "prctl", "pread64", "preadv", "prlimit64", "process_vm_readv", "read",
    "restart_syscall", "rseq", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigtimedwait",
    "rt_sigtimedwait_time64", "sched_yield", "seccomp", "set_robust_list", "setpgid",
    "set_tid_address", "socketpair", "stat", "statx", "tgkill", "unshare", "wait4", "waitid",
    "write",
};

/* The numbers of those this architecture has. */
#define SC_E(n) {#n, SYS_##n}
static const struct {
    const char *name;
    long nr;
} table[] = {
#ifdef SYS_access
    SC_E(access),
#endif
#ifdef SYS_arch_prctl
    SC_E(arch_prctl),
#endif
#ifdef SYS_brk
    SC_E(brk),
#endif
#ifdef SYS_clock_gettime
    SC_E(clock_gettime),
#endif
#ifdef SYS_clock_gettime64
    SC_E(clock_gettime64),
#endif
#ifdef SYS_clock_nanosleep
    SC_E(clock_nanosleep),
#endif
#ifdef SYS_clock_nanosleep_time64
    SC_E(clock_nanosleep_time64),
#endif
#ifdef SYS_clone
    SC_E(clone),
#endif
#ifdef SYS_clone3
    SC_E(clone3),
#endif
#ifdef SYS_close
    SC_E(close),
#endif
#ifdef SYS_epoll_create1
    SC_E(epoll_create1),
#endif
#ifdef SYS_epoll_ctl
    SC_E(epoll_ctl),
#endif
#ifdef SYS_eventfd2
    SC_E(eventfd2),
#endif
#ifdef SYS_execve
    SC_E(execve),
#endif
#ifdef SYS_exit
    SC_E(exit),
#endif
#ifdef SYS_exit_group
    SC_E(exit_group),
#endif
#ifdef SYS_faccessat
    SC_E(faccessat),
#endif
#ifdef SYS_fcntl
    SC_E(fcntl),
#endif
#ifdef SYS_fstat
    SC_E(fstat),
#endif
#ifdef SYS_fstatat64
    SC_E(fstatat64),
#endif
#ifdef SYS_futex
    SC_E(futex),
#endif
#ifdef SYS_futex_time64
    SC_E(futex_time64),
#endif
#ifdef SYS_futex_waitv
    SC_E(futex_waitv),
#endif
#ifdef SYS_get_robust_list
    SC_E(get_robust_list),
#endif
#ifdef SYS_getdents64
    SC_E(getdents64),
#endif
#ifdef SYS_getpid
    SC_E(getpid),
#endif
#ifdef SYS_getppid
    SC_E(getppid),
#endif
#ifdef SYS_getrandom
    SC_E(getrandom),
#endif
#ifdef SYS_gettid
    SC_E(gettid),
#endif
#ifdef SYS_io_uring_enter
    SC_E(io_uring_enter),
#endif
#ifdef SYS_io_uring_register
    SC_E(io_uring_register),
#endif
#ifdef SYS_io_uring_setup
    SC_E(io_uring_setup),
#endif
#ifdef SYS_ioctl
    SC_E(ioctl),
#endif
#ifdef SYS_kill
    SC_E(kill),
#endif
#ifdef SYS_madvise
    SC_E(madvise),
#endif
#ifdef SYS_mmap
    SC_E(mmap),
#endif
#ifdef SYS_mprotect
    SC_E(mprotect),
#endif
#ifdef SYS_munmap
    SC_E(munmap),
#endif
#ifdef SYS_newfstatat
    SC_E(newfstatat),
#endif
#ifdef SYS_openat
    SC_E(openat),
#endif
#ifdef SYS_pause
    SC_E(pause),
#endif
#ifdef SYS_pidfd_open
    SC_E(pidfd_open),
#endif
#ifdef SYS_pipe2
    SC_E(pipe2),
#endif
#ifdef SYS_poll
    SC_E(poll),
#endif
#ifdef SYS_ppoll
    SC_E(ppoll),
#endif
#ifdef SYS_prctl
    SC_E(prctl),
#endif
#ifdef SYS_pread64
    SC_E(pread64),
#endif
#ifdef SYS_preadv
    SC_E(preadv),
#endif
#ifdef SYS_prlimit64
    SC_E(prlimit64),
#endif
#ifdef SYS_process_vm_readv
    SC_E(process_vm_readv),
#endif
#ifdef SYS_read
    SC_E(read),
#endif
#ifdef SYS_restart_syscall
    SC_E(restart_syscall),
#endif
#ifdef SYS_rseq
    SC_E(rseq),
#endif
#ifdef SYS_rt_sigaction
    SC_E(rt_sigaction),
#endif
#ifdef SYS_rt_sigprocmask
    SC_E(rt_sigprocmask),
#endif
#ifdef SYS_rt_sigreturn
    SC_E(rt_sigreturn),
#endif
#ifdef SYS_rt_sigtimedwait
    SC_E(rt_sigtimedwait),
#endif
#ifdef SYS_rt_sigtimedwait_time64
    SC_E(rt_sigtimedwait_time64),
#endif
#ifdef SYS_sched_yield
    SC_E(sched_yield),
#endif
#ifdef SYS_seccomp
    SC_E(seccomp),
#endif
#ifdef SYS_socketpair
    SC_E(socketpair),
#endif
#ifdef SYS_set_robust_list
    SC_E(set_robust_list),
#endif
#ifdef SYS_setpgid
    SC_E(setpgid),
#endif
#ifdef SYS_set_tid_address
    SC_E(set_tid_address),
#endif
#ifdef SYS_stat
    SC_E(stat),
#endif
#ifdef SYS_statx
    SC_E(statx),
#endif
#ifdef SYS_tgkill
    SC_E(tgkill),
#endif
#ifdef SYS_unshare
    SC_E(unshare),
#endif
#ifdef SYS_wait4
    SC_E(wait4),
#endif
#ifdef SYS_waitid
    SC_E(waitid),
#endif
#ifdef SYS_write
    SC_E(write),
#endif
};

const char *sc_unsupported(void)
{
#if !defined(SC_AUDIT_ARCH)
    return "no system call lists for this architecture in tests/seccomp";
#elif defined(SC_SANITIZED)
    return "a sanitizer build: its runtime makes system calls of its own";
#else
    return NULL;
#endif
}

bool sc_skip_here(void)
{
    const char *why = sc_unsupported();
    if (why == NULL)
        return false;
    printf("SKIP: %s\n", why);
    return true;
}

bool sc_skip_without_filter(void)
{
    int e = sc_probe();
    if (e == 0)
        return false;
    printf("SKIP: seccomp(SECCOMP_SET_MODE_FILTER) fails here (%s; an emulator such as "
           "qemu-user implements no filter)\n",
           e > 0 ? strerror(e) : "the probe's child did not run");
    return true;
}

int sc_lookup(const char *name, long *nr)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].name, name) == 0) {
            *nr = table[i].nr;
            return 1;
        }
    }
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i], name) == 0)
            return 0;
    return -1;
}

const char *sc_name(long nr)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].nr == nr)
            return table[i].name;
    return "?";
}

bool sc_has(const struct sc_list *l, long nr)
{
    for (int i = 0; i < l->n; i++)
        if (l->nr[i] == nr)
            return true;
    return false;
}

int sc_add(struct sc_list *l, const char *name)
{
    long nr;
    int k = sc_lookup(name, &nr);
    if (k < 0) {
        fprintf(stderr, "system call `%s` is not known to tests/seccomp/sc_list.c\n", name);
        return -1;
    }
    if (k == 0 || sc_has(l, nr))
        return 0; /* not on this architecture, or an alias already in */
    if (l->n == SC_MAX || strlen(name) >= sizeof l->name[0]) {
        fprintf(stderr, "`%s`: the list is full or the name too long\n", name);
        return -1;
    }
    l->nr[l->n] = nr;
    strcpy(l->name[l->n], name);
    l->n++;
    return 0;
}

/* The name of a list line "- `name` ...", copied into buf; NULL if the line
 * is no such line. */
static const char *item_name(const char *line, char *buf, size_t size)
{
    if (strncmp(line, "- `", 3) != 0)
        return NULL;
    const char *s = line + 3;
    size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");
    if (n == 0 || n >= size || s[n] != '`')
        return NULL;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

int sc_doc_list(const char *doc, const char *sub, struct sc_list *l)
{
    FILE *f = fopen(doc, "r");
    if (f == NULL) {
        fprintf(stderr, "%s: %s\n", doc, strerror(errno));
        return -1;
    }
    /* Every name read, those this architecture lacks too: one listed twice
     * is an error. */
    static struct sc_list all;
    all.n = 0;
    l->n = 0;
    int status = 0;
    bool in_section = false, in_sub = false, found = false;
    char line[1024];
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "## ", 3) == 0) {
            in_section = strcmp(line, SC_DOC_SECTION) == 0;
            in_sub = false;
            continue;
        }
        if (!in_section)
            continue;
        if (strncmp(line, "### ", 4) == 0) {
            in_sub = sub == NULL || strncmp(line, sub, strlen(sub)) == 0;
            found |= in_sub;
            continue;
        }
        char name[32];
        if (!in_sub || item_name(line, name, sizeof name) == NULL)
            continue;
        for (int i = 0; i < all.n; i++) {
            if (strcmp(all.name[i], name) == 0 && sub != NULL) {
                fprintf(stderr, "%s: `%s` is listed twice under \"%s\"\n", doc, name, sub);
                status = -1;
            }
        }
        if (all.n < SC_MAX)
            strcpy(all.name[all.n++], name);
        if (sc_add(l, name) != 0)
            status = -1;
    }
    fclose(f);
    if (!found) {
        fprintf(stderr, "%s: no \"%s\" in its section \"%s\"\n", doc,
                sub != NULL ? sub : "###", SC_DOC_SECTION);
        return -1;
    }
    if (all.n == 0) {
        fprintf(stderr, "%s: \"%s\" lists no system call\n", doc,
                sub != NULL ? sub : SC_DOC_SECTION);
        return -1;
    }
    return status;
}

int sc_install(const struct sc_list *a, const struct sc_list *b, uint32_t deny, unsigned flags,
               int *listener)
{
#ifndef SC_AUDIT_ARCH
    (void)a, (void)b, (void)deny, (void)flags, (void)listener;
    return ENOSYS;
#else
    static struct sock_filter prog[8 + 4 * SC_MAX];
    unsigned n = 0;
    prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                             offsetof(struct seccomp_data, arch));
    prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SC_AUDIT_ARCH, 1, 0);
    prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                             offsetof(struct seccomp_data, nr));
#if defined(__x86_64__)
    /* The x32 ABI reports AUDIT_ARCH_X86_64 too, with this bit in the number. */
    prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
    prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#endif
    const struct sc_list *lists[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        for (int i = 0; lists[k] != NULL && i < lists[k]->n; i++) {
            prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                                     (uint32_t)lists[k]->nr[i], 0, 1);
            prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        }
    }
    prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, deny);
    struct sock_fprog fprog = {.len = (unsigned short)n, .filter = prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return errno;
    long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog);
    if (r < 0)
        return errno;
    if (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) {
        *listener = (int)r;
        return 0;
    }
    return r == 0 ? 0 : EBUSY; /* TSYNC: a thread that cannot take the filter */
#endif
}

int sc_probe(void)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        struct sock_fprog fprog = {.len = 1, .filter = &allow};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
            syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0)
            _exit(errno > 0 && errno < 255 ? errno : 255);
        _exit(0);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
