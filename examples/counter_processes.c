/*
 * counter_processes - 4 forked processes x 10,000 increments of a count in
 * MAP_SHARED memory, under an fx_mutex that lives in the same memory.
 *
 * The parent does not poll: it waits on an fx_counter used as a latch (each
 * worker adds -1 when done; the parent waits for 0), then reaps the children.
 * Expected count: 40000.
 */
#define _GNU_SOURCE
#include <futexsync.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKERS 4
#define ROUNDS 10000

struct shared {
    fx_mutex lock;
    int32_t count;   /* protected by lock */
    fx_counter left; /* workers still running: the latch */
};

int main(void)
{
    /* Zero-filled shared memory is already an unlocked mutex and a 0 counter. */
    struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    fx_counter_store(&sh->left, WORKERS);

    pid_t pids[WORKERS];
    for (int w = 0; w < WORKERS; w++) {
        pids[w] = fork();
        if (pids[w] < 0) {
            perror("fork");
            return 1;
        }
        if (pids[w] == 0) {
            for (int i = 0; i < ROUNDS; i++) {
                fx_mutex_lock(&sh->lock);
                sh->count++;
                fx_mutex_unlock(&sh->lock);
            }
            fx_counter_add(&sh->left, -1);
            _exit(0);
        }
    }

    struct timespec deadline = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    int r = fx_counter_wait(&sh->left, 0, &deadline);
    int failed_children = 0;
    for (int w = 0; w < WORKERS; w++) {
        int st;
        if (waitpid(pids[w], &st, 0) != pids[w] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed_children++;
    }
    int ok = r == 0 && failed_children == 0 && sh->count == WORKERS * ROUNDS;
    printf("counter_processes: %d processes x %d increments = %d (expected %d) %s\n", WORKERS,
           ROUNDS, sh->count, WORKERS * ROUNDS, ok ? "ok" : "WRONG");
    if (r != 0)
        printf("counter_processes: latch wait returned %d\n", r);
    munmap(sh, sizeof *sh);
    return ok ? 0 : 1;
}
