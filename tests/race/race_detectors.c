/*
 * tests/race/race_detectors.c - proves that race detectors see fx_mutex as a
 * mutex (src/internal/annotate.h): a race in user code that forgets the lock
 * is reported, the same code holding the lock is not, and the detector knows
 * the lock (it names it in the report, and its lock-order checker reports an
 * inversion between two fx_mutexes). The same racy/silent pair runs for
 * fx_rmutex (re-entered), fx_rwlock (a writer and a reader) and a binary
 * fx_sem, and for the order that fx_cond (turns), fx_barrier (phases),
 * fx_once (initialiser, then readers) and fx_counter (count, then wait) put
 * between two threads.
 *
 *   race_detectors tsan     PROG   PROG built with -fsanitize=thread
 *   race_detectors helgrind PROG   PROG built plain, run under
 *   race_detectors drd      PROG   valgrind --tool=helgrind / drd
 *
 * PROG is race_prog (race_prog.c); each variant runs as a child whose output
 * is captured and matched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct tool {
    const char *name;
    const char *const *prefix;   /* command before PROG */
    const char *race;            /* what a data race report contains */
    const char *names_mutex;     /* what shows that the lock was seen as a lock */
    const char *inversion;       /* what a lock-order report contains (NULL: none) */
};

static const char *const tsan_prefix[] = {NULL};
static const char *const helgrind_prefix[] = {"valgrind", "--tool=helgrind", "--error-exitcode=66", NULL};
static const char *const drd_prefix[] = {"valgrind", "--tool=drd", "--error-exitcode=66", NULL};

static const struct tool tools[] = {
    {"tsan", tsan_prefix, "WARNING: ThreadSanitizer: data race", "(mutexes: write M",
     "WARNING: ThreadSanitizer: lock-order-inversion (potential deadlock)"},
    {"helgrind", helgrind_prefix, "Possible data race", "was first observed", "lock order"},
    {"drd", drd_prefix, "Conflicting", NULL, NULL},
};

static const struct tool *tool;
static const char *prog;
#define DETECTED 66 /* TSAN_OPTIONS exitcode, valgrind --error-exitcode */

struct run {
    int status;  /* exit status, or 128 + signal, or -1 */
    char out[1 << 16];
};

/* Runs `prefix PROG variant` with stdout and stderr captured. */
static void run_variant(const char *variant, struct run *r)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const char *argv[16];
        int n = 0;
        for (const char *const *p = tool->prefix; *p; p++)
            argv[n++] = *p;
        argv[n++] = prog;
        argv[n++] = variant;
        argv[n] = NULL;
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[0]);
        close(fd[1]);
        /* halt_on_error: the first report ends the run with exitcode. */
        setenv("TSAN_OPTIONS", "exitcode=66 halt_on_error=1 detect_deadlocks=1", 1);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0;
    time_t end = time(NULL) + 120;
    for (;;) {
        struct pollfd p = {.fd = fd[0], .events = POLLIN};
        int k = poll(&p, 1, 1000);
        if (k > 0) {
            ssize_t got = read(fd[0], r->out + len, sizeof r->out - 1 - len);
            if (got <= 0)
                break;
            len += (size_t)got;
            if (len == sizeof r->out - 1) /* keep draining, drop the rest */
                len = sizeof r->out / 2;
        } else if (k < 0 && errno != EINTR) {
            break;
        }
        if (time(NULL) > end) {
            kill(pid, SIGKILL);
            break;
        }
    }
    r->out[len] = '\0';
    close(fd[0]);
    int st;
    waitpid(pid, &st, 0);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

static struct run *fresh(void)
{
    static struct run r;
    memset(&r, 0, sizeof r);
    return &r;
}

static void expect(struct run *r, int status, const char *needle, bool present)
{
    bool found = needle && strstr(r->out, needle) != NULL;
    if (r->status != status || (needle && found != present)) {
        fprintf(stderr, "--- %s output (status %d) ---\n%s\n--- end ---\n", tool->name, r->status,
                r->out);
    }
    assert_int_equal(r->status, status);
    if (needle)
        assert_true(found == present);
}

static void racy_access_without_the_lock_is_reported(void **state)
{
    (void)state;
    struct run *r = fresh();
    run_variant("racy", r);
    expect(r, DETECTED, tool->race, true);
}

static void the_report_shows_the_fx_mutex_held(void **state)
{
    (void)state;
    struct run *r = fresh();
    run_variant("racy", r);
    expect(r, DETECTED, tool->names_mutex, true);
}

static void accesses_under_lock_are_silent(void **state)
{
    (void)state;
    struct run *r = fresh();
    run_variant("locked", r);
    expect(r, 0, tool->race, false);
    assert_non_null(strstr(r->out, "shared = 40000"));
}

static void accesses_under_trylock_and_timedlock_are_silent(void **state)
{
    (void)state;
    struct run *r = fresh();
    run_variant("try", r);
    expect(r, 0, tool->race, false);
    assert_non_null(strstr(r->out, "shared = 40000"));
}

static void lock_order_inversion_is_reported(void **state)
{
    (void)state;
    struct run *r = fresh();
    run_variant("inversion", r);
    expect(r, DETECTED, tool->inversion, true);
}

static void consistent_lock_order_is_silent(void **state)
{
    (void)state;
    struct run *r = fresh();
    run_variant("ordered", r);
    expect(r, 0, tool->inversion, false);
    assert_non_null(strstr(r->out, "shared = 2"));
}

/* KIND-racy is reported; KIND-locked is silent and every update counted (the
 * rwlock's second thread only reads). */
static void other_primitive(const char *kind, const char *total)
{
    char variant[32];
    struct run *r = fresh();
    snprintf(variant, sizeof variant, "%s-racy", kind);
    run_variant(variant, r);
    expect(r, DETECTED, tool->race, true);
    r = fresh();
    snprintf(variant, sizeof variant, "%s-locked", kind);
    run_variant(variant, r);
    expect(r, 0, tool->race, false);
    assert_non_null(strstr(r->out, total));
}

static void rmutex_racy_reported_locked_silent(void **state)
{
    (void)state;
    other_primitive("rmutex", "shared = 40000");
}

static void rwlock_racy_reader_reported_rdlocked_silent(void **state)
{
    (void)state;
    other_primitive("rwlock", "shared = 20000");
}

static void sem_racy_reported_locked_silent(void **state)
{
    (void)state;
    other_primitive("sem", "shared = 40000");
}

static void cond_turns_silent_unordered_reported(void **state)
{
    (void)state;
    other_primitive("cond", "shared = 4000");
}

static void barrier_phases_silent_unordered_reported(void **state)
{
    (void)state;
    other_primitive("barrier", "shared = 2000");
}

static void once_readers_silent_unordered_reported(void **state)
{
    (void)state;
    other_primitive("once", "shared = 2000");
}

static void counter_waiter_silent_unordered_reported(void **state)
{
    (void)state;
    other_primitive("counter", "shared = 2000");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: race_detectors tsan|helgrind|drd PROG\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (strcmp(tools[i].name, argv[1]) == 0)
            tool = &tools[i];
    if (!tool) {
        fprintf(stderr, "race_detectors: unknown tool %s\n", argv[1]);
        return 2;
    }
    prog = argv[2];
    struct CMUnitTest tests[13];
    size_t n = 0;
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(racy_access_without_the_lock_is_reported);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(accesses_under_lock_are_silent);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(accesses_under_trylock_and_timedlock_are_silent);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(rmutex_racy_reported_locked_silent);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(rwlock_racy_reader_reported_rdlocked_silent);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(sem_racy_reported_locked_silent);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(cond_turns_silent_unordered_reported);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(barrier_phases_silent_unordered_reported);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(once_readers_silent_unordered_reported);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(counter_waiter_silent_unordered_reported);
    if (tool->names_mutex)
        tests[n++] = (struct CMUnitTest)cmocka_unit_test(the_report_shows_the_fx_mutex_held);
    if (tool->inversion) {
        tests[n++] = (struct CMUnitTest)cmocka_unit_test(lock_order_inversion_is_reported);
        tests[n++] = (struct CMUnitTest)cmocka_unit_test(consistent_lock_order_is_silent);
    }
    return _cmocka_run_group_tests(tool->name, tests, n, NULL, NULL);
}
