/*
 * shm_server - creates (or re-attaches to) the shared board (board_name()) and
 * answers the clients' requests until SIGTERM/SIGINT or its time runs out.
 *
 *     shm_server [SECONDS]       default 30 (1..86400); prints "ready" once
 *                                serving; a bad argument prints the usage
 *                                line and exits 2
 *
 * Started again after a crash, it attaches to the same board and goes on; a
 * client that died holding the board's lock costs one repair (EOWNERDEAD).
 * On a clean exit it leaves the board in place (shm_unlink is the clients'
 * and the administrator's choice: `shm_client --remove`).
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

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

int main(int argc, char **argv)
{
    long seconds = 30;
    if (argc > 1) {
        char *end;
        errno = 0;
        seconds = strtol(argv[1], &end, 10);
        if (argc > 2 || errno != 0 || end == argv[1] || *end != '\0' || seconds < 1 ||
            seconds > 86400) {
            fprintf(argc > 1 && strcmp(argv[1], "--help") == 0 ? stdout : stderr,
                    "usage: shm_server [SECONDS]\n");
            return strcmp(argv[1], "--help") == 0 ? 0 : 2;
        }
    }
    int fd = shm_open(board_name(), O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, sizeof(struct board)) != 0) {
        perror("shm_server: shm_open/ftruncate");
        return 1;
    }
    struct board *b = mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (b == MAP_FAILED) {
        perror("shm_server: mmap");
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    if (board_lock(b) != 0)
        return 1;
    b->server_pid = (int32_t)getpid();
    fx_rmutex_unlock(&b->lock);
    printf("ready\n");
    fflush(stdout);

    struct timespec end = fx_deadline_in((int64_t)seconds * FX_NSEC_PER_SEC);
    long answered = 0;
    int status = 0;
    while (!stop && !board_passed(&end)) {
        if (board_lock(b) != 0) {
            status = 1;
            break;
        }
        int more = 0;
        while (b->served != b->next_ticket) {
            int32_t slot = b->served % BOARD_SLOTS;
            if (b->state[slot] == SLOT_WRITING)
                break; /* its client is still writing; we are woken when it is done */
            if (b->state[slot] == SLOT_READY) {
                b->answer[slot] = b->request[slot] * b->request[slot];
                b->state[slot] = SLOT_ANSWERED;
                answered++;
            }
            b->served++;
            more = 1;
        }
        if (more)
            fx_cond_broadcast(&b->changed);
        /* Sleep until a client writes, or 100 ms to look at the clock. */
        struct timespec tick = fx_deadline_in(100 * FX_NSEC_PER_MSEC);
        int r = fx_cond_timedwait_rmutex(&b->changed, &b->lock, &tick);
        if (r == EOWNERDEAD)
            board_repair(b);
        else if (r != 0 && r != ETIMEDOUT) {
            fprintf(stderr, "shm_server: wait: %s\n", strerror(r));
            status = 1;
            break;
        }
        fx_rmutex_unlock(&b->lock);
    }
    if (board_lock(b) == 0) {
        b->server_pid = 0;
        printf("shm_server: answered %ld requests, %d repairs in the board's life\n", answered,
               (int)b->repairs);
        fx_rmutex_unlock(&b->lock);
    }
    munmap(b, sizeof *b);
    return status;
}
