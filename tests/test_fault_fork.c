/*
 * tests/test_fault_fork.c - issue 11, class 2: a fork child acts with its own
 * TID from its first instruction, whatever the order of the pthread_atfork
 * handlers.
 *
 * The child handler registered here comes before any the library could
 * register (nothing in this process calls the library before it), so it runs
 * first in the child. On main the library reset its TID cache in a child
 * handler registered at the first fxi_tid(), after ours: our handler then ran
 * with the parent's TID cached and unlocked, in shared memory, the fx_rmutex
 * the parent still held. That test comes first: the order is per process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fxtest.h"

#include <futexsync/rmutex.h>

struct shared {
    fx_rmutex m;
    int32_t unlock_in_handler; /* the child handler's fx_rmutex_unlock result */
    int32_t lock_in_handler;   /* its fx_rmutex_trylock result */
    int32_t ran;
};
static struct shared *sh;

static void child_handler(void)
{
    /* The parent holds sh->m: the child is another thread, not the owner. */
    sh->unlock_in_handler = fx_rmutex_unlock(&sh->m);
    sh->lock_in_handler = fx_rmutex_trylock(&sh->m);
    sh->ran = 1;
}

static void fork_child_handler_running_before_the_librarys_is_not_the_parent(void **state)
{
    (void)state;
    sh = fxt_shared_alloc(sizeof *sh);
    assert_int_equal(pthread_atfork(NULL, NULL, child_handler), 0);
    assert_int_equal(fx_rmutex_lock(&sh->m), 0); /* the library's first call */
    pid_t parent_tid = fxt_gettid();
    pid_t c = fork();
    if (c == 0)
        _exit(0);
    assert_true(c > 0);
    assert_int_equal(fxt_wait_child(c, 60000), 0);
    assert_int_equal(sh->ran, 1);
    assert_int_equal(sh->unlock_in_handler, EPERM);
    assert_int_equal(sh->lock_in_handler, EBUSY);
    assert_int_equal(fx_rmutex_owner(&sh->m), parent_tid); /* still ours */
    assert_int_equal(sh->m.depth, 1);
    assert_int_equal(fx_rmutex_unlock(&sh->m), 0);
    fxt_shared_free(sh, sizeof *sh);
}

/* _Fork() runs no atfork handler at all (nor does a raw clone() without
 * CLONE_VM): the child still acts with its own TID, because the kernel hands
 * it the epoch page zeroed (main: the parent's TID was still cached and the
 * child's unlock released the parent's lock). */
static void child_of_a_fork_without_atfork_handlers_is_not_the_parent(void **state)
{
    (void)state;
    struct shared *s = fxt_shared_alloc(sizeof *s);
    assert_int_equal(fx_rmutex_lock(&s->m), 0);
    pid_t parent_tid = fxt_gettid();
    pid_t c = _Fork();
    if (c == 0) {
        s->unlock_in_handler = fx_rmutex_unlock(&s->m);
        s->lock_in_handler = fx_rmutex_trylock(&s->m);
        s->ran = 1;
        _exit(0);
    }
    assert_true(c > 0);
    assert_int_equal(fxt_wait_child(c, 60000), 0);
    assert_int_equal(s->ran, 1);
    assert_int_equal(s->unlock_in_handler, EPERM);
    assert_int_equal(s->lock_in_handler, EBUSY);
    assert_int_equal(fx_rmutex_owner(&s->m), parent_tid);
    assert_int_equal(fx_rmutex_unlock(&s->m), 0);
    fxt_shared_free(s, sizeof *s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fork_child_handler_running_before_the_librarys_is_not_the_parent),
        cmocka_unit_test(child_of_a_fork_without_atfork_handlers_is_not_the_parent),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
