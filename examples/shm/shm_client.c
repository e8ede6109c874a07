/*
 * shm_client - attaches to the board of a running shm_server and asks it for
 * the square of each number on its command line.
 *
 *     shm_client [--timeout MS] N...   prints "N^2 = ...", one line each
 *     shm_client --die-holding         takes the board's lock and dies
 *                                      (SIGKILL) in the middle of a request
 *     shm_client --supervise ARGS...   runs `shm_client ARGS...` in a worker
 *                                      process it forks and supervises
 *                                      (futexsync/worker.h): if the worker
 *                                      dies or execs holding the board's
 *                                      lock, the lock is released at once
 *     shm_client --remove              shm_unlink()s the board
 *     shm_client --help
 *
 * Exit status: 0 answered; 2 no board (no server ever started), or a usage
 * error; 3 no answer within the timeout (default 2000 ms: the server is
 * gone); 1 other errors; with --supervise, the worker's status (128 + the
 * signal that killed it).
 * A dead server does not block the board: the lock stays usable (a holder's
 * death is repaired by the next locker), only answers stop until a server
 * runs again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "board.h"

static struct board *attach(void)
{
    int fd = shm_open(board_name(), O_RDWR, 0);
    if (fd < 0) {
        fprintf(stderr, "shm_client: no board %s (start shm_server first): %s\n", board_name(),
                strerror(errno));
        exit(2);
    }
    struct board *b = mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (b == MAP_FAILED) {
        perror("shm_client: mmap");
        exit(1);
    }
    return b;
}

/* Asks for x * x. 0 and *answer, 3 after timeout_ms without an answer. */
static int ask(struct board *b, int64_t x, int timeout_ms, int64_t *answer)
{
    if (board_lock(b) != 0)
        return 1;
    if (b->next_ticket - b->served >= BOARD_SLOTS) {
        fx_rmutex_unlock(&b->lock);
        fprintf(stderr, "shm_client: the board is full (is the server running?)\n");
        return 3;
    }
    int32_t ticket = b->next_ticket++;
    int32_t slot = ticket % BOARD_SLOTS;
    b->state[slot] = SLOT_WRITING;
    b->request[slot] = x;
    b->state[slot] = SLOT_READY;
    fx_cond_broadcast(&b->changed);

    struct timespec deadline = fx_deadline_in((int64_t)timeout_ms * FX_NSEC_PER_MSEC);
    int r = 0;
    while (b->state[slot] != SLOT_ANSWERED || b->served - ticket <= 0) {
        r = fx_cond_timedwait_rmutex(&b->changed, &b->lock, &deadline);
        if (r == EOWNERDEAD) {
            board_repair(b); /* the server (or another client) died holding it */
            r = 0;
        } else if (r != 0) {
            break;
        }
    }
    if (r == 0)
        *answer = b->answer[slot];
    else
        b->state[slot] = SLOT_ANSWERED; /* we stop waiting: nobody needs the answer */
    fx_rmutex_unlock(&b->lock);
    return r == 0 ? 0 : r == ETIMEDOUT ? 3 : 1;
}

static int usage(FILE *f)
{
    fprintf(f, "usage: shm_client [--supervise] [--timeout MS] N...\n"
               "       shm_client [--supervise] --die-holding\n"
               "       shm_client --remove | --help\n");
    return 2;
}

/* A whole decimal number in [lo, hi]: 0, or -1 for anything else. */
static int parse_num(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

#define NUM_MAX 2147483647LL /* |N| <= 2^31 - 1, so that N^2 fits */

/* Whether argv[i..] is --die-holding, or [--timeout MS] N... (checked before
 * the board is touched: a usage error asks nothing). */
static int args_ok(int argc, char **argv, int i)
{
    long long v;
    if (i < argc && strcmp(argv[i], "--die-holding") == 0)
        return i + 1 == argc;
    if (i < argc && strcmp(argv[i], "--timeout") == 0) {
        if (i + 1 >= argc || parse_num(argv[i + 1], 0, 3600000, &v) != 0)
            return 0;
        i += 2;
    }
    if (i >= argc)
        return 0;
    for (; i < argc; i++)
        if (parse_num(argv[i], -NUM_MAX, NUM_MAX, &v) != 0)
            return 0;
    return 1;
}

/* Runs argv[i..] (checked by args_ok) against the board. */
static int run(struct board *b, int argc, char **argv, int i)
{
    if (strcmp(argv[i], "--die-holding") == 0) {
        if (board_lock(b) != 0)
            return 1;
        int32_t slot = b->next_ticket++ % BOARD_SLOTS;
        b->state[slot] = SLOT_WRITING; /* half a request: the repair drops it */
        printf("shm_client: dying with the board's lock held\n");
        fflush(stdout);
        raise(SIGKILL);
    }
    long long timeout_ms = 2000, x;
    if (strcmp(argv[i], "--timeout") == 0) {
        (void)parse_num(argv[i + 1], 0, 3600000, &timeout_ms);
        i += 2;
    }
    int status = 0;
    for (; i < argc; i++) {
        (void)parse_num(argv[i], -NUM_MAX, NUM_MAX, &x);
        int64_t y = 0;
        int r = ask(b, x, (int)timeout_ms, &y);
        if (r != 0) {
            if (r == 3)
                fprintf(stderr, "shm_client: no answer for %lld within %lld ms\n", x,
                        timeout_ms);
            status = r;
            break;
        }
        printf("%lld^2 = %lld\n", x, (long long)y);
        if (y != x * x)
            status = 1;
    }
    return status;
}

/* --supervise: the rest of the arguments run in a forked worker whose death
 * or exec releases the board's lock at once, whoever looks at it next. */
struct run_args {
    struct board *b;
    int argc;
    char **argv;
    int i;
};

static int run_worker(void *p)
{
    struct run_args *a = p;
    int status = run(a->b, a->argc, a->argv, a->i);
    fflush(NULL); /* the worker ends with _exit */
    return status;
}

static int supervise(struct board *b, int argc, char **argv, int i)
{
    fx_worker w;
    pid_t pid;
    struct run_args a = {b, argc, argv, i};
    fflush(NULL);
    int r = fx_worker_spawn(&w, 0, run_worker, &a, &pid);
    if (r != 0) {
        fprintf(stderr, "shm_client: fx_worker_spawn: %s\n", strerror(r));
        return 1;
    }
    r = fx_worker_bind_rmutex(&w, &b->lock);
    fx_worker_report rep;
    if (r == 0)
        r = fx_worker_wait(&w, NULL, &rep);
    if (r != 0) {
        fprintf(stderr, "shm_client: supervising worker %d: %s\n", (int)pid, strerror(r));
        kill(pid, SIGKILL);
    } else {
        printf("shm_client: worker %d %s; the supervisor released %d lock(s)\n", (int)pid,
               rep.event == FX_WORKER_EXITED ? "exited" : "exec'd", (int)rep.released);
    }
    /* The zombie goes only now, after the release (an exec'd worker: once
     * the new program has exited). */
    int st = 0;
    int e = fx_worker_reap(&w, NULL, &st);
    fx_worker_detach(&w);
    if (r != 0 || e != 0)
        return 1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--remove") == 0)
        return shm_unlink(board_name()) == 0 ? 0 : 1;
    int sup = argc > 1 && strcmp(argv[1], "--supervise") == 0;
    int i = sup ? 2 : 1;
    if (!args_ok(argc, argv, i))
        return usage(stderr);
    struct board *b = attach();
    int status = sup ? supervise(b, argc, argv, i) : run(b, argc, argv, i);
    munmap(b, sizeof *b);
    return status;
}
