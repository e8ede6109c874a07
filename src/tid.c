/*
 * src/tid.c - the per-thread TID cache and the liveness test of a TID.
 *
 * See src/internal/tid.h for what is guaranteed and the limits.
 */
#include "internal/tid.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

_Thread_local pid_t fx_tid_cache __attribute__((tls_model("initial-exec")));

static pthread_once_t fx_tid_once = PTHREAD_ONCE_INIT;

/* Runs in the child of fork(), whose only thread is the copy of the forking
 * thread: that copy's cache holds the parent thread's TID. Other threads'
 * caches did not survive the fork. */
static void fx_tid_atfork_child(void)
{
    fx_tid_cache = 0;
}

/* Set when registration failed; never reset. Relaxed atomics: a flag with
 * no data behind it. */
static int fx_tid_no_cache;

static void fx_tid_register(void)
{
    /* pthread_atfork fails only with ENOMEM. Then no TID may be cached: a
     * fork child would keep it. fx_tid_slow then asks the kernel each time. */
    if (pthread_atfork(NULL, NULL, fx_tid_atfork_child) != 0)
        __atomic_store_n(&fx_tid_no_cache, 1, __ATOMIC_RELAXED);
}

pid_t fx_tid_slow(void)
{
    /* Register the fork handler before the first value is cached, so that no
     * cached TID ever exists without the handler that resets it. */
    pthread_once(&fx_tid_once, fx_tid_register);
    int saved = errno;
    pid_t t = (pid_t)syscall(SYS_gettid);
    errno = saved;
    if (!__atomic_load_n(&fx_tid_no_cache, __ATOMIC_RELAXED))
        fx_tid_cache = t;
    return t;
}

bool fx_tid_dead(pid_t tid)
{
    int saved = errno;
    bool dead;
    char path[40];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0) {
        /* "tid (comm) S ...": comm may hold spaces and ')' but is at most 64
         * bytes, and every field after the state is a number, so the state is
         * the character two after the last ')' of the first 256 bytes. */
        char buf[256];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0) {
            /* The thread was released between open and read. */
            dead = true;
        } else {
            buf[n] = '\0';
            const char *close_paren = strrchr(buf, ')');
            char state = (close_paren != NULL && close_paren[1] == ' ') ? close_paren[2] : '?';
            dead = state == 'Z' || state == 'X' || state == 'x';
        }
    } else {
        /* No /proc, or hidepid hides the entry: ask the kernel whether any
         * thread has this TID (kill accepts a TID). EPERM means it exists. */
        dead = kill(tid, 0) != 0 && errno == ESRCH;
    }
    errno = saved;
    return dead;
}
