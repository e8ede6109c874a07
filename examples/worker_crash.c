/*
 * worker_crash - 4 worker processes share a counter under an fx_rmutex in
 * MAP_SHARED memory; one of them crashes inside its critical section, and
 * their supervisor (the parent, futexsync/worker.h) releases the lock.
 *
 * Each increment is a small transaction on the shared record:
 *
 *     journal = {old count, old per-worker count, worker}; in_progress = 1
 *     count += 1                 <- the victim crashes right here
 *     done[worker] += 1; check = count
 *     in_progress = 0
 *
 * so a worker that dies inside leaves a torn record (count != check) and the
 * journal needed to undo it. The survivors stop halfway through their rounds
 * until the supervisor tells them the victim is gone (so none of them has
 * finished, and none has been watching the dead owner with its own liveness
 * check: the lock comes back through the supervisor); meanwhile the victim
 * takes the lock and crashes (SIGKILL) right after `count += 1`.
 *
 * The parent is the workers' supervisor (futexsync/worker.h, the seed's
 * bindWorkerExit): it starts each worker with fx_worker_spawn (fork, and a
 * handle attached before the worker runs) and binds the lock to it; at the
 * end fx_worker_reap frees each worker's zombie, after its release. When
 * the victim dies, the kernel tells the supervisor
 * (its pidfd), which releases the lock at once (fx_rmutex_recover) instead of
 * leaving it to the waiters' own liveness checks (which some environments
 * blind: hidden /proc, seccomp, PID namespaces, exec). The next survivor to
 * lock the mutex gets EOWNERDEAD, rolls the torn increment back from the journal,
 * calls fx_rmutex_consistent and carries on. At the end the count must equal
 * the sum of the per-worker completed increments: 3 survivors x ROUNDS plus
 * what the victim completed before its death. Exits non-zero if anything is
 * wrong.
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
    int64_t crashed_ns;       /* when the victim crashed */
    fx_counter paused;        /* survivors waiting halfway */
    fx_counter resume;        /* 1 once the supervisor has released the victim's lock */
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

/* What fx_worker_spawn hands a worker: the shared record and its number. */
struct worker_arg {
    struct shared *sh;
    int w;
};

static int worker(void *p)
{
    struct shared *sh = ((struct worker_arg *)p)->sh;
    int w = ((struct worker_arg *)p)->w;
    for (int i = 0; i < ROUNDS; i++) {
        if (w != VICTIM && i == ROUNDS / 2) {
            /* Halfway, survivors wait (outside the lock) until the
             * supervisor has seen the victim die. */
            fx_counter_add(&sh->paused, 1);
            fx_counter_wait(&sh->resume, 1, NULL);
        }
        if (w == VICTIM && i == VICTIM_DIES_AT)
            fx_counter_wait(&sh->paused, WORKERS - 1, NULL); /* all survivors halfway */
        int r = fx_rmutex_lock(&sh->lock);
        if (r == EOWNERDEAD) {
            sh->recovered_ns = now_ns();
            repair(sh);
            if (fx_rmutex_consistent(&sh->lock) != 0)
                sh->errors++;
        } else if (r != 0) {
            __atomic_fetch_add(&sh->errors, 1, __ATOMIC_RELAXED);
            return 1;
        }
        if (sh->in_progress || sh->count != sh->check)
            sh->errors++; /* a torn record that nobody repaired */

        sh->journal_worker = w;
        sh->journal_count = sh->count;
        sh->journal_done = sh->done[w];
        sh->in_progress = 1;
        sh->count++;
        if (w == VICTIM && i == VICTIM_DIES_AT) {
            sh->crashed_ns = now_ns();
            raise(SIGKILL);                   /* crash holding the lock */
        }
        sh->done[w]++;
        sh->check = sh->count;
        sh->in_progress = 0;

        if (fx_rmutex_unlock(&sh->lock) != 0)
            sh->errors++;
    }
    return 0;
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
    fx_worker sup[WORKERS];
    pid_t pids[WORKERS];
    struct worker_arg args[WORKERS];
    fflush(NULL); /* nothing buffered for the workers to copy */
    for (int w = 0; w < WORKERS; w++) {
        /* A forked worker, watched from its first line; the lock bound to it. */
        args[w] = (struct worker_arg){sh, w};
        int r = fx_worker_spawn(&sup[w], 0, worker, &args[w], &pids[w]);
        if (r == 0)
            r = fx_worker_bind_rmutex(&sup[w], &sh->lock);
        if (r != 0) {
            printf("worker_crash: fx_worker_spawn/bind: %s\n", strerror(r));
            return 1;
        }
    }

    /* The victim crashes inside its critical section; its supervisor hears
     * of it and releases the lock. Reaping comes after the release. */
    struct timespec deadline = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    fx_worker_report rep[WORKERS];
    int r = fx_worker_wait(&sup[VICTIM], &deadline, &rep[VICTIM]);
    int64_t released_ns = now_ns();
    if (r != 0) {
        printf("worker_crash: the victim never died (%d)\n", r);
        return 1;
    }
    printf("worker_crash: worker %d (pid %d) crashed inside its critical section, holding "
           "the lock; its supervisor released %d lock(s) %.2f ms later (0: the kernel's "
           "robust list had released it at the death)\n",
           VICTIM, (int)pids[VICTIM], (int)rep[VICTIM].released,
           (double)(released_ns - sh->crashed_ns) / 1e6);
    fx_counter_store(&sh->resume, 1);

    /* The survivors finish; each handle reports a clean exit (nothing held);
     * then each worker is reaped (after its release: reap keeps the order). */
    int bad_exits = 0, left_held = 0;
    for (int w = 0; w < WORKERS; w++) {
        if (w != VICTIM && fx_worker_wait(&sup[w], &deadline, &rep[w]) != 0)
            bad_exits++;
        else if (w != VICTIM)
            left_held += rep[w].released;
        int st;
        if (fx_worker_reap(&sup[w], &deadline, &st) != 0)
            bad_exits++;
        else if (w == VICTIM ? !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
                             : !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
            bad_exits++;
        fx_worker_detach(&sup[w]);
    }

    int64_t completed = 0;
    for (int w = 0; w < WORKERS; w++)
        completed += sh->done[w];
    int64_t expected = (int64_t)(WORKERS - 1) * ROUNDS + VICTIM_DIES_AT;
    int ok = bad_exits == 0 && left_held == 0 && rep[VICTIM].event == FX_WORKER_EXITED &&
             rep[VICTIM].released <= 1 && sh->errors == 0 && sh->repairs == 1 &&
             sh->count == completed && completed == expected && sh->check == sh->count &&
             sh->done[VICTIM] == VICTIM_DIES_AT && fx_rmutex_owner(&sh->lock) == 0;

    printf("worker_crash: the next survivor to lock got EOWNERDEAD %.2f ms after the crash and rolled back "
           "the torn increment (%d repair)\n",
           (double)(sh->recovered_ns - sh->crashed_ns) / 1e6, (int)sh->repairs);
    printf("worker_crash: completed increments: %lld = %d survivors x %d + %lld by the victim "
           "before it died; shared count = %lld (expected %lld) %s\n",
           (long long)completed, WORKERS - 1, ROUNDS, (long long)sh->done[VICTIM],
           (long long)sh->count, (long long)expected, ok ? "ok" : "WRONG");
    if (!ok)
        printf("worker_crash: bad exits %d, released by survivors' handles %d, errors %d, "
               "repairs %d\n",
               bad_exits, left_held, (int)sh->errors, (int)sh->repairs);
    munmap(sh, sizeof *sh);
    return ok ? 0 : 1;
}
