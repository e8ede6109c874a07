/*
 * shm_client - attaches to the board of a running shm_server and asks it for
 * the square of each number on its command line.
 *
 *     shm_client [--timeout MS] N...   prints "N^2 = ...", one line each
 *     shm_client --die-holding         takes the board's lock and dies
 *                                      (SIGKILL) in the middle of a request
 *     shm_client --remove              shm_unlink()s the board
 *
 * Exit status: 0 answered; 2 no board (no server ever started); 3 no answer
 * within the timeout (default 2000 ms: the server is gone); 1 other errors.
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

int main(int argc, char **argv)
{
    int timeout_ms = 2000;
    int i = 1;
    if (argc > 1 && strcmp(argv[1], "--remove") == 0)
        return shm_unlink(board_name()) == 0 ? 0 : 1;
    struct board *b = attach();
    if (argc > 1 && strcmp(argv[1], "--die-holding") == 0) {
        if (board_lock(b) != 0)
            return 1;
        int32_t slot = b->next_ticket++ % BOARD_SLOTS;
        b->state[slot] = SLOT_WRITING; /* half a request: the repair drops it */
        printf("shm_client: dying with the board's lock held\n");
        fflush(stdout);
        raise(SIGKILL);
    }
    if (argc > 2 && strcmp(argv[1], "--timeout") == 0) {
        timeout_ms = atoi(argv[2]);
        i = 3;
    }
    int status = 0;
    for (; i < argc; i++) {
        int64_t x = strtoll(argv[i], NULL, 10), y = 0;
        int r = ask(b, x, timeout_ms, &y);
        if (r != 0) {
            if (r == 3)
                fprintf(stderr, "shm_client: no answer for %lld within %d ms\n", (long long)x,
                        timeout_ms);
            status = r;
            break;
        }
        printf("%lld^2 = %lld\n", (long long)x, (long long)y);
        if (y != x * x)
            status = 1;
    }
    munmap(b, sizeof *b);
    return status;
}
