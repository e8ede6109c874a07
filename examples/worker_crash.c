/*
 * worker_crash - 4 worker processes share a counter under an fx_rmutex in
 * MAP_SHARED memory; one of them is SIGKILLed inside its critical section.
 *
 * Each increment is a small transaction on the shared record:
 *
 *     journal = {old count, old per-worker count, worker}; in_progress = 1
 *     count += 1                 <- the victim is killed right here
 *     done[worker] += 1; check = count
 *     in_progress = 0
 *
 * so a worker that dies inside leaves a torn record (count != check) and the
 * journal needed to undo it. The victim announces through an fx_counter that
 * it is inside (after `count += 1`) and waits there (the survivors wait for
 * that announcement halfway through their rounds, so all are still working
 * when it dies); the parent SIGKILLs it
 * and does not reap it (it stays a zombie until the end: the recovery needs no
 * help from the parent). A survivor blocked on the mutex gets EOWNERDEAD,
 * rolls the torn increment back from the journal, calls fx_rmutex_consistent
 * and carries on. At the end the count must equal the sum of the per-worker
 * completed increments: 3 survivors x ROUNDS plus what the victim completed
 * before its death. Exits non-zero if anything is wrong.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <futexsync.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 4
#define ROUNDS 20000
#define VICTIM 0
#define VICTIM_DIES_AT 5000 /* the victim's increment during which it is killed */

struct shared {
    fx_rmutex lock;
    /* The protected record. */
    int64_t count;
    int64_t check;            /* == count whenever no increment is in progress */
    int64_t done[WORKERS];    /* increments completed by each worker */
    int32_t in_progress;      /* 1 while an increment is being applied */
    int32_t journal_worker;
    int64_t journal_count;
    int64_t journal_done;
    /* Outside the record. */
    int32_t repairs;          /* EOWNERDEAD seen, repaired (under the lock) */
    int32_t errors;           /* unexpected return codes or torn records */
    int64_t recovered_ns;     /* when the EOWNERDEAD acquisition returned */
    fx_counter inside;        /* the victim is inside its critical section */
    fx_counter never;         /* never changes: the victim waits on it */
    fx_counter running;       /* survivors still working: the latch */
};

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Undoes an increment that a dead owner left half done. Called holding the
 * lock after EOWNERDEAD. */
static void repair(struct shared *sh)
{
    if (sh->in_progress) {
        sh->count = sh->journal_count;
        sh->check = sh->journal_count;
        sh->done[sh->journal_worker] = sh->journal_done;
        sh->in_progress = 0;
    }
    sh->repairs++;
}

static void worker(struct shared *sh, int w)
{
    for (int i = 0; i < ROUNDS; i++) {
        if (w != VICTIM && i == ROUNDS / 2) {
            /* Halfway, survivors wait (outside the lock) until the victim is
             * inside its critical section, so that none of them has finished
             * when it dies. */
            fx_counter_wait(&sh->inside, 1, NULL);
        }
        int r = fx_rmutex_lock(&sh->lock);
        if (r == EOWNERDEAD) {
            sh->recovered_ns = now_ns();
            repair(sh);
            if (fx_rmutex_consistent(&sh->lock) != 0)
                sh->errors++;
        } else if (r != 0) {
            __atomic_fetch_add(&sh->errors, 1, __ATOMIC_RELAXED);
            return;
        }
        if (sh->in_progress || sh->count != sh->check)
            sh->errors++; /* a torn record that nobody repaired */

        sh->journal_worker = w;
        sh->journal_count = sh->count;
        sh->journal_done = sh->done[w];
        sh->in_progress = 1;
        sh->count++;
        if (w == VICTIM && i == VICTIM_DIES_AT) {
            fx_counter_store(&sh->inside, 1);  /* "I am inside": kill me now */
            fx_counter_wait(&sh->never, 1, NULL);
        }
        sh->done[w]++;
        sh->check = sh->count;
        sh->in_progress = 0;

        if (fx_rmutex_unlock(&sh->lock) != 0)
            sh->errors++;
    }
}

int main(void)
{
    struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    /* Zero-filled shared memory is a free fx_rmutex and zero counters. */
    fx_counter_store(&sh->running, WORKERS - 1);

    pid_t pids[WORKERS];
    for (int w = 0; w < WORKERS; w++) {
        fflush(NULL);
        pids[w] = fork();
        if (pids[w] < 0) {
            perror("fork");
            return 1;
        }
        if (pids[w] == 0) {
            worker(sh, w);
            if (w != VICTIM)
                fx_counter_add(&sh->running, -1);
            _exit(0);
        }
    }

    /* Kill the victim once it is inside its critical section. */
    struct timespec deadline = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    int r = fx_counter_wait(&sh->inside, 1, &deadline);
    if (r != 0) {
        printf("worker_crash: the victim never got inside (%d)\n", r);
        return 1;
    }
    int64_t killed_ns = now_ns();
    kill(pids[VICTIM], SIGKILL);
    printf("worker_crash: worker %d (pid %d) SIGKILLed inside its critical section, "
           "holding the lock; not reaped until the end\n",
           VICTIM, (int)pids[VICTIM]);

    /* The survivors finish on their own; then reap everyone. */
    r = fx_counter_wait(&sh->running, 0, &deadline);
    int bad_exits = 0;
    for (int w = 0; w < WORKERS; w++) {
        int st;
        if (waitpid(pids[w], &st, 0) != pids[w])
            bad_exits++;
        else if (w == VICTIM ? !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
                             : !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
            bad_exits++;
    }

    int64_t completed = 0;
    for (int w = 0; w < WORKERS; w++)
        completed += sh->done[w];
    int64_t expected = (int64_t)(WORKERS - 1) * ROUNDS + VICTIM_DIES_AT;
    int ok = r == 0 && bad_exits == 0 && sh->errors == 0 && sh->repairs == 1 &&
             sh->count == completed && completed == expected && sh->check == sh->count &&
             sh->done[VICTIM] == VICTIM_DIES_AT && fx_rmutex_owner(&sh->lock) == 0;

    printf("worker_crash: a survivor got EOWNERDEAD %.1f ms after the kill and rolled back "
           "the torn increment (%d repair)\n",
           (double)(sh->recovered_ns - killed_ns) / 1e6, (int)sh->repairs);
    printf("worker_crash: completed increments: %lld = %d survivors x %d + %lld by the victim "
           "before it died; shared count = %lld (expected %lld) %s\n",
           (long long)completed, WORKERS - 1, ROUNDS, (long long)sh->done[VICTIM],
           (long long)sh->count, (long long)expected, ok ? "ok" : "WRONG");
    if (!ok)
        printf("worker_crash: latch %d, bad exits %d, errors %d, repairs %d\n", r, bad_exits,
               (int)sh->errors, (int)sh->repairs);
    munmap(sh, sizeof *sh);
    return ok ? 0 : 1;
}
