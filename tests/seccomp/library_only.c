/*
 * tests/seccomp/library_only.c - the paths of fx_rmutex and fx_once run in
 * processes whose seccomp filter allows exactly the system calls that
 * docs/reliability.md lists for them, and those of the ends of threads and
 * processes: `exit` (a thread returns), `exit_group` (a process ends), and
 * glibc's end of a thread, which blocks signals (`rt_sigprocmask`) and gives
 * its stack back (`madvise`, which the library's list has too).
 *
 *     library_only DOC
 *
 * seccomp_run.c runs the cmocka tests under the library's list and the
 * harness's, so it cannot catch a library call that only the harness's list
 * allows (clone, wait4, write...). Here the harness does its part first:
 * the shared page, the owner processes (forked, then each installs the
 * filter itself), the threads (started, then the filter is synchronised onto
 * them: SECCOMP_FILTER_FLAG_TSYNC), the SIGSYS handler. From then on only the
 * library and the steps below run, and they coordinate through the library
 * itself (fx_futex_wait and fx_futex_wake on gate words, spins on the words
 * of the objects): any call outside the list traps, and the handler records
 * its number and the step for the report, then ends the process.
 *
 * The steps: first use, recursion, trylock and a timed lock of an fx_rmutex;
 * a contended lock and a timed-out one; a thread's death holding an rmutex
 * and a process's (the kernel tells: robust list); a PROBED owner process's
 * death, which only the library's liveness probe finds; fx_once run, done,
 * contended; an initialiser's process dying (told by the kernel), and a
 * PROBED initialiser's process dying with two sleepers, who take over after
 * the probe (in shared memory: the designated sleeper and an untimed one).
 * The PROBED steps need the initial PID namespace (elsewhere the probe may
 * not trust ESRCH: src/identity.c) and are skipped outside it.
 *
 * Exit status: 0, 1 (a trapped call or a failed step), 77 where no filter
 * can be installed (qemu-user) or this architecture has no lists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <futexsync/futex.h>
#include <futexsync/layout.h>
#include <futexsync/once.h>
#include <futexsync/rmutex.h>
#include <futexsync/time.h>

#include "sc_list.h"

#ifdef SC_AUDIT_ARCH
/* The ends of threads and processes, beside the library's list: nothing
 * else runs after the filter but the library and the steps. */
static const char *const ends[] = {"exit", "exit_group", "madvise", "rt_sigprocmask"};

/* The gates: a word each, opened once (0 -> 1). */
enum {
    G_T1_UP, G_T2_UP, G_T1_CONTEND, G_M1_HELD, G_T1_TIMED, G_M5_HELD, G_M5_DONE, G_T1_DIE,
    G_M4_HELD,
    G_P1, G_P1_LOCKED, G_P2, G_P2_LOCKED, G_T2_ONCE, G_O1_RUNNING, G_P4, G_P4_ENTERED,
    G_P3, G_P3_ENTERED, G_T2_TAKEOVER, G_T2_DONE, G_COUNT
};

/* Who made a trapped call. */
enum { WHO_SUBJECT = 1, WHO_P1, WHO_P2, WHO_P3, WHO_P4 };
static const char *const who_name[] = {"?", "the subject process", "owner process 1",
                                       "owner process 2 (PROBED)",
                                       "initialiser process 3 (PROBED)",
                                       "initialiser process 4"};

static const char *const step_name[] = {
    "setup",
    "rmutex: first use, recursion, trylock, timedlock",
    "rmutex: a contended lock",
    "rmutex: a timed-out lock",
    "rmutex: a thread dies holding it",
    "rmutex: a process dies holding it (robust list)",
    "rmutex: a PROBED owner process dies (the probe)",
    "once: run and done",
    "once: a contended call",
    "once: the initialiser's process dies (robust list)",
    "once: a PROBED initialiser's process dies, two sleepers take over",
    "done",
};
#define STEPS ((int32_t)(sizeof step_name / sizeof step_name[0]))

/* Shared by the subject, its threads and the owner processes. */
struct page {
    int32_t gate[G_COUNT];
    int32_t step;       /* the subject's step under way */
    int32_t trapped;    /* the trapped call's number, -1 none */
    int32_t trapped_by; /* WHO_* */
    int32_t trapped_in; /* the step */
    int32_t failed;     /* the line of a failed check, 0 none */
    int32_t probed;     /* the PROBED steps ran */
    int32_t runs[4];
    fx_rmutex m[6];
    fx_once o[4];
};
static struct page *pg;
static int32_t me = WHO_SUBJECT;

/* A failed check ends the process; the report names the line. */
#define CHECK(cond)                                                  \
    do {                                                             \
        if (!(cond)) {                                               \
            __atomic_store_n(&pg->failed, __LINE__, __ATOMIC_SEQ_CST); \
            _exit(1);                                                \
        }                                                            \
    } while (0)

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    int32_t none = -1;
    if (__atomic_compare_exchange_n(&pg->trapped, &none, si->si_syscall, false,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        pg->trapped_by = me;
        pg->trapped_in = __atomic_load_n(&pg->step, __ATOMIC_SEQ_CST);
    }
    _exit(1);
}

static void gate_open(int g)
{
    __atomic_store_n(&pg->gate[g], 1, __ATOMIC_SEQ_CST);
    (void)fx_futex_wake(&pg->gate[g], INT32_MAX);
}

/* Bounded: a process that failed a check never opens its gates. */
static void gate_wait(int g)
{
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    while (__atomic_load_n(&pg->gate[g], __ATOMIC_SEQ_CST) == 0)
        CHECK(fx_futex_wait(&pg->gate[g], 0, &d) != ETIMEDOUT);
}

/* Spins until `bit` shows in *word: a sleeper marked it before sleeping. */
static void spin_for(const int32_t *word, int32_t bit)
{
    while (!(__atomic_load_n(word, __ATOMIC_SEQ_CST) & bit)) {
    }
}

static struct timespec in_ms(int64_t ms)
{
    return fx_deadline_in(ms * FX_NSEC_PER_MSEC);
}

static void set_step(int32_t s)
{
    __atomic_store_n(&pg->step, s, __ATOMIC_SEQ_CST);
}

static void count_run(void *p)
{
    __atomic_fetch_add((int32_t *)p, 1, __ATOMIC_SEQ_CST);
}

/* The owner processes ------------------------------------------------------ */

static void die_inside(void *gate)
{
    gate_open((int)(intptr_t)gate);
    _exit(0);
}

/* Forked before the subject's filter; installs the same one. `probed`: no
 * robust list (the kernel will not tell its death), as a thread of a raw
 * clone() or another libc. */
static pid_t owner(int32_t who, bool probed, const struct sc_list *lib,
                   const struct sc_list *end)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    me = who;
    if (probed && syscall(SYS_set_robust_list, NULL, sizeof(struct robust_list_head)) != 0)
        _exit(2);
    if (sc_install(lib, end, SECCOMP_RET_TRAP, 0, NULL) != 0)
        _exit(3);
    switch (who) {
    case WHO_P1:
    case WHO_P2: {
        fx_rmutex *m = &pg->m[who == WHO_P1 ? 2 : 3];
        gate_wait(who == WHO_P1 ? G_P1 : G_P2);
        CHECK(fx_rmutex_lock(m) == 0);
        gate_open(who == WHO_P1 ? G_P1_LOCKED : G_P2_LOCKED);
        _exit(0); /* holding m */
    }
    case WHO_P3:
        gate_wait(G_P3);
        CHECK(fx_once_call(&pg->o[2], die_inside, (void *)(intptr_t)G_P3_ENTERED) == 0);
        break;
    case WHO_P4:
        gate_wait(G_P4);
        CHECK(fx_once_call(&pg->o[3], die_inside, (void *)(intptr_t)G_P4_ENTERED) == 0);
        break;
    }
    _exit(4); /* the initialiser never returns */
}

/* The subject's threads ---------------------------------------------------- */

static void *thread1(void *unused)
{
    (void)unused;
    gate_open(G_T1_UP);
    /* A contended lock: held until the subject sleeps on it. */
    gate_wait(G_T1_CONTEND);
    CHECK(fx_rmutex_lock(&pg->m[1]) == 0);
    gate_open(G_M1_HELD);
    spin_for(&pg->m[1].owner, FX_RMUTEX_WAITERS);
    CHECK(fx_rmutex_unlock(&pg->m[1]) == 0);
    /* A timed-out lock: held past the subject's deadline. */
    gate_wait(G_T1_TIMED);
    CHECK(fx_rmutex_lock(&pg->m[5]) == 0);
    gate_open(G_M5_HELD);
    gate_wait(G_M5_DONE);
    CHECK(fx_rmutex_unlock(&pg->m[5]) == 0);
    /* Death holding an rmutex: the thread returns with m[4] held. */
    gate_wait(G_T1_DIE);
    CHECK(fx_rmutex_lock(&pg->m[4]) == 0);
    gate_open(G_M4_HELD);
    return NULL;
}

static void slow_init(void *p)
{
    gate_open(G_O1_RUNNING);
    spin_for(&pg->o[1].state, FX_ONCE_WAITERS);
    count_run(p);
}

static void *thread2(void *unused)
{
    (void)unused;
    gate_open(G_T2_UP);
    gate_wait(G_T2_ONCE);
    CHECK(fx_once_call(&pg->o[1], slow_init, &pg->runs[1]) == 0);
    gate_wait(G_T2_TAKEOVER);
    if (__atomic_load_n(&pg->probed, __ATOMIC_SEQ_CST))
        CHECK(fx_once_call(&pg->o[2], count_run, &pg->runs[2]) == 0);
    gate_open(G_T2_DONE);
    /* Parked: the subject's exit ends it. */
    static int32_t park;
    for (;;)
        (void)fx_futex_wait(&park, 0, NULL);
    return NULL;
}

/* The subject --------------------------------------------------------------- */

/* Whether this process runs in the initial PID namespace (its inode is
 * PROC_PID_INIT_INO): where a TID names the same task for every process. */
static bool initial_pid_namespace(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 && st.st_ino == 0xEFFFFFFCu;
}

static int subject(const struct sc_list *lib, const struct sc_list *end)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    if (setpgid(0, 0) != 0 || sigaction(SIGSYS, &sa, NULL) != 0)
        return 2;
    bool probed = initial_pid_namespace();
    pg->probed = probed;
    if (owner(WHO_P1, false, lib, end) < 0 || owner(WHO_P4, false, lib, end) < 0)
        return 3;
    if (probed && (owner(WHO_P2, true, lib, end) < 0 || owner(WHO_P3, true, lib, end) < 0))
        return 3;
    pthread_t t1, t2;
    if (pthread_create(&t1, NULL, thread1, NULL) != 0 ||
        pthread_create(&t2, NULL, thread2, NULL) != 0)
        return 4;
    /* Started: glibc's start of a thread (rseq, its robust list) is done. */
    gate_wait(G_T1_UP);
    gate_wait(G_T2_UP);
    if (sc_install(lib, end, SECCOMP_RET_TRAP, SECCOMP_FILTER_FLAG_TSYNC, NULL) != 0)
        return 5;

    set_step(1);
    fx_rmutex *m = &pg->m[0];
    CHECK(fx_rmutex_lock(m) == 0);
    CHECK(fx_rmutex_lock(m) == 0);
    CHECK(fx_rmutex_trylock(m) == 0);
    CHECK(fx_rmutex_unlock(m) == 0 && fx_rmutex_unlock(m) == 0 && fx_rmutex_unlock(m) == 0);
    struct timespec d = in_ms(1000);
    CHECK(fx_rmutex_timedlock(m, &d) == 0);
    CHECK(fx_rmutex_unlock(m) == 0);

    set_step(2);
    gate_open(G_T1_CONTEND);
    gate_wait(G_M1_HELD);
    CHECK(fx_rmutex_lock(&pg->m[1]) == 0);
    CHECK(fx_rmutex_unlock(&pg->m[1]) == 0);

    set_step(3);
    gate_open(G_T1_TIMED);
    gate_wait(G_M5_HELD);
    d = in_ms(20);
    CHECK(fx_rmutex_timedlock(&pg->m[5], &d) == ETIMEDOUT);
    gate_open(G_M5_DONE);

    set_step(4);
    gate_open(G_T1_DIE);
    gate_wait(G_M4_HELD);
    CHECK(fx_rmutex_lock(&pg->m[4]) == EOWNERDEAD);
    CHECK(fx_rmutex_consistent(&pg->m[4]) == 0 && fx_rmutex_unlock(&pg->m[4]) == 0);

    set_step(5);
    gate_open(G_P1);
    gate_wait(G_P1_LOCKED);
    d = in_ms(10000);
    CHECK(fx_rmutex_timedlock(&pg->m[2], &d) == EOWNERDEAD);
    CHECK(fx_rmutex_consistent(&pg->m[2]) == 0 && fx_rmutex_unlock(&pg->m[2]) == 0);

    set_step(6);
    if (probed) {
        gate_open(G_P2);
        gate_wait(G_P2_LOCKED);
        d = in_ms(10000);
        CHECK(fx_rmutex_timedlock(&pg->m[3], &d) == EOWNERDEAD);
        CHECK(fx_rmutex_consistent(&pg->m[3]) == 0 && fx_rmutex_unlock(&pg->m[3]) == 0);
    }

    set_step(7);
    CHECK(fx_once_call(&pg->o[0], count_run, &pg->runs[0]) == 0 && pg->runs[0] == 1);
    CHECK(fx_once_call(&pg->o[0], count_run, &pg->runs[0]) == 0 && pg->runs[0] == 1);

    set_step(8);
    gate_open(G_T2_ONCE);
    gate_wait(G_O1_RUNNING);
    CHECK(fx_once_call(&pg->o[1], count_run, &pg->runs[1]) == 0 && pg->runs[1] == 1);

    set_step(9);
    gate_open(G_P4);
    gate_wait(G_P4_ENTERED);
    CHECK(fx_once_call(&pg->o[3], count_run, &pg->runs[3]) == 0 && pg->runs[3] == 1);

    set_step(10);
    if (probed) {
        gate_open(G_P3);
        gate_wait(G_P3_ENTERED);
    }
    gate_open(G_T2_TAKEOVER);
    if (probed)
        CHECK(fx_once_call(&pg->o[2], count_run, &pg->runs[2]) == 0);
    gate_wait(G_T2_DONE);
    CHECK(!probed || pg->runs[2] == 1);

    set_step(STEPS - 1);
    return 0;
}

#endif /* SC_AUDIT_ARCH */

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: library_only DOC\n");
        return 2;
    }
    if (sc_skip_here())
        return SC_SKIP;
#ifndef SC_AUDIT_ARCH
    (void)argv;
    return SC_SKIP; /* sc_skip_here said why */
#else
    static struct sc_list lib, end;
    if (sc_doc_list(argv[1], SC_DOC_RMUTEX_ONCE, &lib) != 0)
        return 1;
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++)
        if (sc_add(&end, ends[i]) != 0)
            return 1;
    if (sc_skip_without_filter())
        return SC_SKIP;
    pg = mmap(NULL, sizeof *pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (pg == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    pg->trapped = -1;
    /* The owner processes outlive the subject (their parent, which does not
     * reap them: a zombie is what the probe must find dead); they are
     * reaped here. */
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0)
        _exit(subject(&lib, &end));
    int sst = 0, st;
    while (waitpid(pid, &sst, 0) < 0 && errno == EINTR) {
    }
    /* After a success every owner has exited (its death was a step); after
     * a failure some may wait on a gate. */
    kill(-pid, SIGKILL);
    int owners = 0, owners_ok = 0;
    for (pid_t w; (w = wait(&st)) > 0 || errno == EINTR;) {
        if (w > 0) {
            owners++;
            owners_ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
        }
    }
    int32_t step = pg->step;
    if (pg->trapped >= 0) {
        printf("library_only: %s made system call %d (%s) during \"%s\": not in the "
               "library's list (%s, \"%s\") nor the ends of threads and processes\n",
               who_name[pg->trapped_by], pg->trapped, sc_name(pg->trapped),
               step_name[pg->trapped_in], argv[1], SC_DOC_RMUTEX_ONCE);
        return 1;
    }
    if (!WIFEXITED(sst) || WEXITSTATUS(sst) != 0 || step != STEPS - 1) {
        printf("library_only: the subject ended (status 0x%x) during \"%s\"", (unsigned)sst,
               step >= 0 && step < STEPS ? step_name[step] : "?");
        if (pg->failed != 0)
            printf(", check at line %d failed", pg->failed);
        printf("\n");
        return 1;
    }
    if (owners_ok != owners) {
        printf("library_only: %d of the %d owner processes did not exit with status 0\n",
               owners - owners_ok, owners);
        return 1;
    }
    printf("library_only: %d steps%s under exactly the library's %d calls (%s) and %d for "
           "the ends of threads and processes\n",
           STEPS - 2, pg->probed ? "" : " (PROBED ones skipped: not the initial PID namespace)",
           lib.n, SC_ARCH_NAME, end.n);
    return 0;
#endif
}
