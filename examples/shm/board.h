/*
 * examples/shm/board.h - the shared "board" that shm_server and shm_client,
 * two separately started programs, meet on through shm_open.
 *
 * Clients write a request under the board's fx_rmutex and wait on the cond
 * for its answer; the server answers every pending request (the square of
 * the value) and broadcasts. The lock survives either side's death: the next
 * locker gets EOWNERDEAD, repairs the board from its own fields and goes on.
 * All-zero bytes are a valid board, so the server's ftruncate of a new object
 * is its whole initialisation.
 */
#ifndef EXAMPLES_SHM_BOARD_H
#define EXAMPLES_SHM_BOARD_H

#include <errno.h>
#include <futexsync.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* The board's shm_open name: $FX_BOARD, or this default. */
#define BOARD_NAME "/futexsync-example-board"
#define BOARD_SLOTS 64

struct board {
    fx_rmutex lock;           /* guards everything below */
    fx_cond changed;          /* a new request, or new answers */
    int32_t next_ticket;      /* tickets handed out */
    int32_t served;           /* tickets answered, in order */
    int32_t state[BOARD_SLOTS];   /* SLOT_* of ticket t, at t % BOARD_SLOTS */
    int64_t request[BOARD_SLOTS];
    int64_t answer[BOARD_SLOTS];
    int32_t server_pid;       /* the serving process, 0 when none */
    int32_t repairs;          /* EOWNERDEAD acquisitions repaired */
};

enum { SLOT_EMPTY = 0, SLOT_WRITING, SLOT_READY, SLOT_ANSWERED };

/* Called with the lock taken with EOWNERDEAD: the previous holder died
 * somewhere inside. A ticket still being written is dropped (its client is
 * dead), then the board is consistent again. */
static inline void board_repair(struct board *b)
{
    for (int32_t t = b->served; t != b->next_ticket; t++)
        if (b->state[t % BOARD_SLOTS] == SLOT_WRITING)
            b->state[t % BOARD_SLOTS] = SLOT_ANSWERED; /* nobody waits for it */
    b->repairs++;
    (void)fx_rmutex_consistent(&b->lock);
}

/* Locks the board, repairing it after a holder's death. 0 or an errno. */
static inline int board_lock(struct board *b)
{
    int r = fx_rmutex_lock(&b->lock);
    if (r == EOWNERDEAD) {
        board_repair(b);
        r = 0;
    }
    return r;
}

static inline const char *board_name(void)
{
    const char *n = getenv("FX_BOARD");
    return n != NULL && n[0] == '/' ? n : BOARD_NAME;
}

/* True once the absolute CLOCK_MONOTONIC deadline has passed. */
static inline int board_passed(const struct timespec *d)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > d->tv_sec || (now.tv_sec == d->tv_sec && now.tv_nsec >= d->tv_nsec);
}

#endif
