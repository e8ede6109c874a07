/*
 * tests/isolation/isolation_demo.c - a cmocka group whose first test fails
 * the way that used to fail the tests after it: its assertion fails while a
 * thread it started still holds a mutex that the next test takes. It fails
 * on purpose, so ctest does not run it directly: check.sh runs it and judges
 * what the runner of tests/fxtest.h reports.
 *
 *     isolation_demo            the failing test and the one after it
 *     isolation_demo more       also a test that dies of a signal and one
 *                               that hangs beside a process of its own, each
 *                               followed by a test that must pass
 *
 * FXT_ISOLATE=0 runs the group in one process, where the leftover thread
 * does fail the next test (check.sh asserts that too, so that the demo
 * keeps demonstrating something).
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <futexsync.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The mutex the tests share, as tests share a primitive of their file. */
static fx_mutex shared = FX_MUTEX_INIT;

struct holder {
    int32_t holds; /* fxt_flag: 1 once the thread holds `shared` */
};

static void *holder_main(void *arg)
{
    struct holder *h = arg;
    if (fx_mutex_lock(&shared) != 0)
        return NULL;
    fxt_flag_set(&h->holds, 1);
    for (;;)
        pause(); /* holding the mutex, until its process ends */
}

static void fails_while_its_thread_holds_the_mutex(void **state)
{
    (void)state;
    struct holder *h = fxt_arena(sizeof *h);
    fxt_thread(holder_main, h);
    assert_true(fxt_flag_wait(&h->holds, 1, 10000));
    fail_msg("a deliberate failure, with the holder thread still running");
}

static void takes_the_mutex(void **state)
{
    (void)state;
    assert_int_equal(fx_mutex_trylock(&shared), 0);
    fx_mutex_unlock(&shared);
}

static void dies_of_a_signal(void **state)
{
    (void)state;
    fxt_thread(holder_main, fxt_arena(sizeof(struct holder)));
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    abort(); /* not caught by cmocka, unlike SIGSEGV */
}

static void takes_the_mutex_after_the_signal(void **state)
{
    takes_the_mutex(state);
}

/* Blocks forever, with a child process asleep beside it that holds the
 * output pipe open: check.sh reads the output to its end, which it reaches
 * only if the runner killed the hung test's whole process group. */
static void hangs_beside_a_process_of_its_own(void **state)
{
    (void)state;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        for (;;)
            pause();
    assert_int_equal(fx_mutex_lock(&shared), 0);
    assert_int_equal(fx_mutex_lock(&shared), 0); /* a self-deadlock: never returns */
}

static void takes_the_mutex_after_the_hang(void **state)
{
    takes_the_mutex(state);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fails_while_its_thread_holds_the_mutex),
        cmocka_unit_test(takes_the_mutex),
        cmocka_unit_test(dies_of_a_signal),
        cmocka_unit_test(takes_the_mutex_after_the_signal),
        cmocka_unit_test(hangs_beside_a_process_of_its_own),
        cmocka_unit_test(takes_the_mutex_after_the_hang),
    };
    bool more = argc > 1 && strcmp(argv[1], "more") == 0;
    return fxt_run_group_isolated("isolation_demo", tests, more ? 6 : 2, NULL, NULL);
}
