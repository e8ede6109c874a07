/*
 * src/worker_proc.c - what /proc says of a supervised worker: its TIDs as
 * it writes them (the NSpid lines), its threads, its PID namespace; and
 * whether this /proc is of the caller's PID namespace at all. Read by
 * fx_worker_attach and fx_worker_refresh (src/worker.c), never on the
 * release path. Why: docs/design/worker.md ("Which TIDs are the worker's").
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "futexsync/layout.h"
#include "internal/worker.h"

/* The NSpid line of a /proc status file: the task's PID (or TID) in each
 * PID namespace from that /proc's down to the task's own. Returns how many
 * fields it has (0 when it cannot be read), the first in *first and the last
 * in *last. */
static int proc_nspid(const char *path, long *first, long *last)
{
    char buf[2048];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *p = strstr(buf, "\nNSpid:");
    if (p == NULL)
        return 0;
    p += strlen("\nNSpid:");
    int fields = 0;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p < '0' || *p > '9')
            break;
        char *end;
        *last = strtol(p, &end, 10);
        if (fields++ == 0)
            *first = *last;
        p = end;
    }
    return fields;
}

/* A /proc of an ancestor namespace (a supervisor started by unshare -pf
 * without --mount-proc) shows this process with more than one NSpid field,
 * one of a namespace it is not in has no /proc/self: only exactly one
 * field, equal to getpid(), is ours. */
bool fxi_worker_proc_ours(void)
{
    long first = 0, last = 0;
    return proc_nspid("/proc/self/status", &first, &last) == 1 && first == (long)getpid();
}

int32_t fxi_worker_proc_nstid(pid_t pid, pid_t tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid, (int)tid);
    long first = 0, last = 0;
    if (proc_nspid(path, &first, &last) == 0)
        return 0;
    return last > 0 && last <= FX_RMUTEX_TID_MAX ? (int32_t)last : 0;
}

uint64_t fxi_worker_proc_ns(const char *who)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%s/ns/pid", who);
    return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static int find_tid(const fxi_worker *w, pid_t tid)
{
    for (int i = 0; i < w->ntids; i++)
        if (w->tid[i] == tid)
            return i;
    return -1;
}

int fxi_worker_learn_tids(fxi_worker *w)
{
    char path[48];
    snprintf(path, sizeof path, "/proc/%d/task", (int)w->pid);
    DIR *d = opendir(path);
    if (d == NULL)
        return ENOENT;
    int r = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long t = strtol(e->d_name, NULL, 10);
        if (t <= 0 || t > FX_RMUTEX_TID_MAX || find_tid(w, (pid_t)t) >= 0)
            continue;
        int32_t ns = fxi_worker_proc_nstid(w->pid, (pid_t)t);
        if (ns == 0)
            ns = (w->nstid[0] == w->pid) ? (int32_t)t : 0; /* same namespace */
        if (ns == 0)
            continue; /* its TID there is unknown: not covered */
        if (w->ntids == FX_WORKER_TIDS_MAX) {
            r = ENOSPC;
            break;
        }
        w->tid[w->ntids] = (int32_t)t;
        w->nstid[w->ntids] = ns;
        w->ntids++;
    }
    closedir(d);
    return r;
}
