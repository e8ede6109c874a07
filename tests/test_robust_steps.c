/*
 * tests/test_robust_steps.c - an fx_rmutex owner killed at each step of the
 * robust-list protocol (src/internal/robust.h) is still told to the next
 * thread, and a fork child inherits no list_op_pending of its parent's.
 *
 * An acquisition leaves its entry in list_op_pending until its unlock, which
 * stores it again only when another operation replaced it; the unlink
 * precedes the releasing CAS. Each test kills an owner process at an
 * FXI_FAULT point between two of those steps (fxf_kill_at; the unlock's
 * point has one name on the fast and the slow path, since a race detector's
 * build takes the slow one for every unlock), then looks at
 * the word before anyone touches it: where the owner's thread had a robust
 * list (fxt_rmutex_robust) the kernel must have marked it ORPHANED at the
 * death; where it had none (qemu-user), it still names the dead PROBED
 * owner. Either way the next lock gets EOWNERDEAD.
 */
#define _GNU_SOURCE
#include "fxtest.h"
#include "fxfault.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <futexsync/layout.h>
#include <futexsync/rmutex.h>
#include <futexsync/time.h>

#define KILLED (128 + SIGKILL)

struct page {
    fx_rmutex a, b;
    pthread_mutex_t g; /* glibc's robust mutex: its operations replace list_op_pending */
    int32_t word;      /* the owner word the child wrote, for the PROBED case */
};

/* m's dead owner was told: ORPHANED where the kernel walked the owner's
 * list, else still its PROBED word; then the next lock gets EOWNERDEAD. */
static void assert_told(struct page *p, fx_rmutex *m, bool robust)
{
    int32_t v = __atomic_load_n(&m->owner, __ATOMIC_ACQUIRE);
    if (robust)
        assert_int_equal(v, FX_RMUTEX_ORPHANED);
    else
        assert_int_equal(v, p->word); /* left to the liveness probe */
    struct timespec d = fx_deadline_in(20 * FX_NSEC_PER_SEC);
    assert_int_equal(fx_rmutex_timedlock(m, &d), EOWNERDEAD);
    assert_int_equal(fx_rmutex_consistent(m), 0);
    assert_int_equal(fx_rmutex_unlock(m), 0);
}

static int lock_dies_before_link(void *arg)
{
    struct page *p = arg;
    p->word = fxt_rmutex_self_word();
    fxf_kill_at("rmutex.acquired.unlinked");
    int r = fx_rmutex_lock(&p->a);
    return r == 0 ? 1 : 2; /* not reached: killed at the point */
}

static int unlock_dies_after_unlink(void *arg)
{
    struct page *p = arg;
    p->word = fxt_rmutex_self_word();
    FXT_CHILD_CHECK(fx_rmutex_lock(&p->a) == 0, 1);
    fxf_kill_at("rmutex.unlock.unlinked");
    return fx_rmutex_unlock(&p->a) == 0 ? 2 : 3;
}

static int unlock_after_a_glibc_robust_op_dies_after_unlink(void *arg)
{
    struct page *p = arg;
    p->word = fxt_rmutex_self_word();
    FXT_CHILD_CHECK(fx_rmutex_lock(&p->a) == 0, 1);
    /* glibc sets list_op_pending to its own entry, then to NULL. */
    FXT_CHILD_CHECK(pthread_mutex_lock(&p->g) == 0, 2);
    FXT_CHILD_CHECK(pthread_mutex_unlock(&p->g) == 0, 3);
    fxf_kill_at("rmutex.unlock.unlinked");
    return fx_rmutex_unlock(&p->a) == 0 ? 4 : 5;
}

static int slow_release_dies_after_unlink(void *arg)
{
    struct page *p = arg;
    p->word = fxt_rmutex_self_word();
    FXT_CHILD_CHECK(fx_rmutex_lock(&p->a) == 0, 1);
    FXT_CHILD_CHECK(fx_rmutex_lock(&p->b) == 0, 2);
    /* b is not the record's first entry: its unlock takes the slow path. */
    fxf_kill_at("rmutex.unlock.unlinked");
    return fx_rmutex_unlock(&p->b) == 0 ? 3 : 4;
}

static struct page *new_page(void)
{
    struct page *p = fxt_shared_alloc(sizeof *p);
    pthread_mutexattr_t at;
    assert_int_equal(pthread_mutexattr_init(&at), 0);
    assert_int_equal(pthread_mutexattr_setpshared(&at, PTHREAD_PROCESS_SHARED), 0);
    /* ENOTSUP where glibc found no robust list (an emulator): then it never
     * touches list_op_pending, and its mutex here is a plain one. */
    assert_int_equal(pthread_mutexattr_setrobust(&at, PTHREAD_MUTEX_ROBUST), 0);
    int r = pthread_mutex_init(&p->g, &at);
    if (r == ENOTSUP) {
        assert_int_equal(pthread_mutexattr_setrobust(&at, PTHREAD_MUTEX_STALLED), 0);
        r = pthread_mutex_init(&p->g, &at);
    }
    assert_int_equal(r, 0);
    pthread_mutexattr_destroy(&at);
    return p;
}

/* Runs fn in a child killed at its point, then checks that the death of
 * the owner of b (when fn held it at the point) and of a was told. Whether
 * the kernel walks the child's list is asked in this process: the child,
 * forked from it, is alike. */
static void killed_owner_row(int (*fn)(void *), bool held_b)
{
    struct page *p = new_page();
    assert_int_equal(fxt_run_child(fn, p), KILLED);
    bool robust = fxt_rmutex_robust();
    if (held_b)
        assert_told(p, &p->b, robust);
    assert_told(p, &p->a, robust); /* held, or in its release, at the point */
    fxt_shared_free(p, sizeof *p);
}

static void owner_killed_after_its_cas_before_its_link_is_told(void **state)
{
    (void)state;
    killed_owner_row(lock_dies_before_link, false);
}

static void owner_killed_between_unlink_and_release_is_told(void **state)
{
    (void)state;
    killed_owner_row(unlock_dies_after_unlink, false);
}

static void owner_killed_after_unlink_is_told_though_glibc_replaced_the_pending(void **state)
{
    (void)state;
    killed_owner_row(unlock_after_a_glibc_robust_op_dies_after_unlink, false);
}

static void owner_killed_in_a_slow_release_after_unlink_is_told_for_both(void **state)
{
    (void)state;
    killed_owner_row(slow_release_dies_after_unlink, true);
}

/* The calling thread's robust-list head, or NULL where the kernel has none
 * for it (qemu-user: ENOSYS). */
static struct robust_list_head *own_head(void)
{
    struct robust_list_head *h = NULL;
    size_t len = 0;
    if (syscall(SYS_get_robust_list, 0, &h, &len) != 0 || len != sizeof *h)
        return NULL;
    return h;
}

static int child_reads_its_pending(void *arg)
{
    (void)arg;
    struct robust_list_head *h = own_head();
    FXT_CHILD_CHECK(h != NULL, 1);
    FXT_CHILD_CHECK(h->list_op_pending == NULL, 2);
    return 0;
}

static void fork_child_inherits_no_pending_entry_of_a_held_rmutex(void **state)
{
    (void)state;
    struct page *p = new_page();
    bool robust = fxt_rmutex_robust(); /* before: it locks an rmutex of its own */
    assert_int_equal(fx_rmutex_lock(&p->a), 0);
    struct robust_list_head *h = own_head();
    if (!robust) {
        printf("# no robust list the library joins here: nothing pending to inherit\n");
    } else {
        assert_non_null(h);
        /* The acquisition keeps its entry pending until its unlock. */
        assert_ptr_equal(h->list_op_pending, (void *)&p->a.link[FX_RMUTEX_LINKS - 1]);
        assert_int_equal(fxt_run_child(child_reads_its_pending, NULL), 0);
        assert_ptr_equal(h->list_op_pending, (void *)&p->a.link[FX_RMUTEX_LINKS - 1]);
    }
    assert_int_equal(fx_rmutex_unlock(&p->a), 0);
    if (h != NULL)
        assert_null(h->list_op_pending);
    fxt_shared_free(p, sizeof *p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(owner_killed_after_its_cas_before_its_link_is_told),
        cmocka_unit_test(owner_killed_between_unlink_and_release_is_told),
        cmocka_unit_test(owner_killed_after_unlink_is_told_though_glibc_replaced_the_pending),
        cmocka_unit_test(owner_killed_in_a_slow_release_after_unlink_is_told_for_both),
        cmocka_unit_test(fork_child_inherits_no_pending_entry_of_a_held_rmutex),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
