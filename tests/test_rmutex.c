/*
 * tests/test_rmutex.c - the re-entrant owner-tracked mutex with owner-death
 * recovery (fx_rmutex), with threads and with forked processes on MAP_SHARED
 * memory.
 *
 * Owner deaths are made real: a thread returns while holding the mutex, or a
 * child process holding it is SIGKILLed and left unreaped (a zombie, the hard
 * case for liveness checks). "Blocked" waiters are observed, not assumed: the
 * owner word carries FX_RMUTEX_WAITERS and /proc shows the waiter sleeping.
 *
 * The depth overflow is reached by writing the depth slot directly (its
 * layout is public: count | FX_RMUTEX_INCONSISTENT).
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <futexsync.h>
#include <futexsync/layout.h>

#include "../src/internal/rmutex.h"
#include "../src/internal/identity.h"
#include "../src/internal/probe_periods.h"

#define W_BIT 0x80000000u
#define RECOVERY_LIMIT_MS 250

static pid_t my_tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

static uint32_t owner_word(const fx_rmutex *m)
{
    return (uint32_t)__atomic_load_n(&m->owner, __ATOMIC_SEQ_CST);
}

/* Whether this process runs in the initial PID namespace, asked of the
 * kernel: the inode of its PID namespace is PROC_PID_INIT_INO. */
static bool in_initial_pidns(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 && st.st_ino == 0xEFFFFFFCu;
}

/* The owner word that thread `tid` of this process writes
 * (include/futexsync/layout.h): its TID alone where the kernel reports its
 * death, else TID | PROBED, plus LOCALNS unless the process runs in the
 * initial PID namespace. */
static uint32_t word_of(pid_t tid)
{
    if (fxt_rmutex_robust())
        return (uint32_t)tid;
    return (uint32_t)tid | (uint32_t)FX_RMUTEX_PROBED |
           (in_initial_pidns() ? 0u : (uint32_t)FX_RMUTEX_LOCALNS);
}

static int32_t depth_slot(const fx_rmutex *m)
{
    return __atomic_load_n(&m->depth, __ATOMIC_SEQ_CST);
}

/* The scheduler state letter of a thread ('S' sleeping, 'Z' zombie...), or 0. */
static char thread_state(pid_t tid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    return (p != NULL && p[1] == ' ') ? p[2] : 0;
}

/* Waits (polling observable state, 10 s at most) until `tid` sleeps in the
 * kernel while the owner word of m carries the WAITERS bit: the waiter is
 * blocked in the futex wait. */
static void wait_until_blocked(const fx_rmutex *m, pid_t tid)
{
    int64_t limit = fxt_now_ns() + 10 * FX_NSEC_PER_SEC;
    while (!((owner_word(m) & W_BIT) && thread_state(tid) == 'S')) {
        assert_true(fxt_now_ns() < limit);
        usleep(200);
    }
}

static double ms_between(int64_t a, int64_t b)
{
    return (double)(b - a) / 1e6;
}

/* Waits until thread `tid` of this process is gone, as a liveness probe
 * sees it (tgkill(tid, 0) answers ESRCH; 10 s at most), and returns the
 * time. Under an emulator such as qemu-user pthread_join returns before the
 * host thread has left. */
static int64_t wait_thread_gone(pid_t tid)
{
    int64_t limit = fxt_now_ns() + 10 * FX_NSEC_PER_SEC;
    while (syscall(SYS_tgkill, (long)getpid(), (long)tid, 0L) == 0) {
        assert_true(fxt_now_ns() < limit);
        sched_yield();
    }
    return fxt_now_ns();
}

/* The limit on the time from an owner's death at died_ns to EOWNERDEAD for
 * a waiter that began its lock at start_ns. The kernel's report wakes the
 * waiter at once; a PROBED owner's death is seen at the waiter's next
 * liveness check, FXI_RMUTEX_RECHECK_MS apart, or FXI_RMUTEX_LONG_RECHECK_MS
 * once it may have watched the owner for FXI_RMUTEX_LONG_AFTER_MS (a loaded
 * machine or an emulator can stretch a test's steps that long). The rest of
 * RECOVERY_LIMIT_MS is for the death itself and the wake. */
static int recovery_limit_ms(int64_t start_ns, int64_t died_ns)
{
    if (!fxt_rmutex_robust() && died_ns - start_ns >= FXI_RMUTEX_LONG_AFTER_MS * FX_NSEC_PER_MSEC)
        return RECOVERY_LIMIT_MS + FXI_RMUTEX_LONG_RECHECK_MS - FXI_RMUTEX_RECHECK_MS;
    return RECOVERY_LIMIT_MS;
}

/* A thread that holds a mutex ------------------------------------------------ */

enum holder_end { HOLDER_UNLOCK, HOLDER_EXIT_HOLDING };

struct holder {
    fx_rmutex *m;
    int depth;            /* how many times to lock */
    enum holder_end end;  /* unlock everything, or return still holding */
    fx_counter held;      /* 1 once it holds m */
    fx_counter release;   /* set to 1 to let it end */
    pid_t tid;
    int r;                /* first failing return code, or 0 */
};

static void *holder_main(void *p)
{
    struct holder *h = p;
    h->tid = my_tid();
    for (int i = 0; i < h->depth; i++) {
        int r = fx_rmutex_lock(h->m);
        if (r != 0 && h->r == 0)
            h->r = r;
    }
    fx_counter_add(&h->held, 1);
    fx_counter_wait(&h->release, 1, NULL);
    if (h->end == HOLDER_UNLOCK) {
        for (int i = 0; i < h->depth; i++) {
            int r = fx_rmutex_unlock(h->m);
            if (r != 0 && h->r == 0)
                h->r = r;
        }
    }
    return NULL;
}

static pthread_t start_holder(struct holder *h, fx_rmutex *m, int depth, enum holder_end end)
{
    memset(h, 0, sizeof *h);
    h->m = m;
    h->depth = depth;
    h->end = end;
    pthread_t t = fxt_thread(holder_main, h);
    assert_int_equal(fx_counter_wait(&h->held, 1, NULL), 0);
    assert_int_equal(h->r, 0);
    return t;
}

/* A thread that waits for a mutex ------------------------------------------- */

enum waiter_op { WAIT_LOCK, WAIT_TIMEDLOCK_10S };

struct waiter {
    fx_rmutex *m;
    enum waiter_op op;
    bool repair;          /* after EOWNERDEAD: consistent */
    fx_counter started;   /* 1 when about to call the lock */
    fx_counter acquired;  /* 1 when the lock call returned */
    fx_counter go;        /* set to 1 to let it unlock and end */
    pid_t tid;
    int r;                /* what the lock call returned */
    int consistent_r;
    int unlock_r;
    uint32_t word_after;  /* the owner word right after acquiring */
    int64_t start_ns;     /* when the lock call began */
    int64_t done_ns;      /* when the lock call returned */
};

static void *waiter_main(void *p)
{
    struct waiter *w = p;
    w->tid = my_tid();
    fx_counter_add(&w->started, 1);
    w->start_ns = fxt_now_ns();
    if (w->op == WAIT_LOCK) {
        w->r = fx_rmutex_lock(w->m);
    } else {
        struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_SEC);
        w->r = fx_rmutex_timedlock(w->m, &d);
    }
    w->done_ns = fxt_now_ns();
    w->word_after = owner_word(w->m);
    fx_counter_add(&w->acquired, 1);
    if (w->r == 0 || w->r == EOWNERDEAD) {
        fx_counter_wait(&w->go, 1, NULL);
        if (w->r == EOWNERDEAD && w->repair)
            w->consistent_r = fx_rmutex_consistent(w->m);
        w->unlock_r = fx_rmutex_unlock(w->m);
    }
    return NULL;
}

static pthread_t start_waiter(struct waiter *w, fx_rmutex *m, enum waiter_op op, bool repair)
{
    memset(w, 0, sizeof *w);
    w->m = m;
    w->op = op;
    w->repair = repair;
    pthread_t t = fxt_thread(waiter_main, w);
    assert_int_equal(fx_counter_wait(&w->started, 1, NULL), 0);
    wait_until_blocked(m, w->tid);
    return t;
}

/* A process that holds a mutex until it is killed --------------------------- */

struct shared {
    fx_rmutex m;
    fx_rmutex other;
    fx_counter held;    /* the holder process holds m */
    fx_counter never;   /* never changes: the holder sleeps on it */
    fx_counter ready;
    int32_t result;
    int32_t result2;
    int64_t start_ns;
    int64_t done_ns;
    pid_t parent_tid;
    int probed; /* the holder refuses itself get_robust_list: a PROBED owner */
};

/* A child that may block forever dies with the test process, even when a
 * failed assertion left it behind. */
static void die_with_parent(void)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/* In a child that must own its rmutexes as PROBED (the kernel will not
 * report its death): get_robust_list answers ENOSYS, as under qemu-user.
 * Where no seccomp filter can be installed (qemu-user itself), the thread
 * must already be PROBED, which its own word tells. */
static void refuse_robust_list(const struct shared *s)
{
    if (s->probed && fxt_refuse_syscall(SYS_get_robust_list, ENOSYS, 0) != 0 &&
        fxt_rmutex_robust())
        _exit(13);
}

static int holder_child(void *p)
{
    struct shared *s = p;
    die_with_parent();
    refuse_robust_list(s);
    if (fx_rmutex_lock(&s->m) != 0)
        return 10;
    if (fx_rmutex_lock(&s->m) != 0) /* depth 2: the death is at any depth */
        return 11;
    fx_counter_add(&s->held, 1);
    fx_counter_wait(&s->never, 1, NULL);
    return 12;
}

/* Forks a child that holds s->m (depth 2) and sleeps until killed. A child
 * that fails first is reported with its status, not waited for. */
static pid_t spawn_holder_process(struct shared *s)
{
    pid_t pid = fxt_fork(holder_child, s);
    struct timespec d = fx_deadline_in(30 * FX_NSEC_PER_SEC);
    if (fx_counter_wait(&s->held, 1, &d) != 0)
        fail_msg("the holder process never held the mutex: status %d",
                 fxt_wait_child(pid, 1000));
    assert_int_equal(fx_rmutex_owner(&s->m), pid); /* its only thread: TID == PID */
    return pid;
}

/* SIGKILLs the holder and waits until it is a zombie, which is left unreaped
 * (reaped at once where the liveness probe sees zombies alive: fxtest.h). */
static void kill_holder_keep_zombie(pid_t pid)
{
    assert_int_equal(kill(pid, SIGKILL), 0);
    siginfo_t info;
    memset(&info, 0, sizeof info);
    assert_int_equal(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT), 0);
    assert_int_equal(thread_state(pid), 'Z');
    fxt_reap_where_zombies_look_alive(pid);
}

static void reap_killed(pid_t pid)
{
    assert_int_equal(fxt_wait_child(pid, 10000), 128 + SIGKILL);
}

static struct shared *new_shared(void)
{
    struct shared *s = fxt_shared_alloc(sizeof *s);
    s->parent_tid = my_tid();
    return s;
}

/* Basics ---------------------------------------------------------------------- */

static void test_zero_init_is_free_and_sized_for_the_robust_list(void **state)
{
    (void)state;
    static const fx_rmutex init = FX_RMUTEX_INIT;
    fx_rmutex m;
    /* glibc's robust-list geometry: the entry (last link slot) sits 32 bytes
     * after the owner word on 64-bit targets, 20 on 32-bit ones. */
    assert_int_equal(sizeof m, sizeof(void *) == 8 ? 40 : 24);
    assert_int_equal(offsetof(fx_rmutex, link[FX_RMUTEX_LINKS - 1]),
                     sizeof(void *) == 8 ? 32 : 20);
    assert_int_equal(init.owner, 0);
    assert_int_equal(init.depth, 0);
    m.owner = 1234;
    m.depth = 7;
    fx_rmutex_init(&m);
    assert_int_equal(m.owner, 0);
    assert_int_equal(m.depth, 0);
    assert_int_equal(fx_rmutex_owner(&m), 0);
    assert_int_equal(fx_rmutex_trylock(&m), 0);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
}

static void test_lock_records_owner_tid_and_unlock_frees(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    assert_int_equal(fx_rmutex_lock(&m), 0);
    assert_int_equal(fx_rmutex_owner(&m), my_tid());
    assert_int_equal(owner_word(&m), word_of(my_tid()));
    assert_int_equal(depth_slot(&m), 1);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(fx_rmutex_owner(&m), 0);
    assert_int_equal(owner_word(&m), 0);
}

static void *trylock_result_thread(void *p)
{
    fx_rmutex *m = p;
    intptr_t r = fx_rmutex_trylock(m);
    if (r == 0)
        fx_rmutex_unlock(m);
    return (void *)r;
}

static int other_thread_trylock(fx_rmutex *m)
{
    return (int)(intptr_t)fxt_join(fxt_thread(trylock_result_thread, m));
}

static void test_reentry_grows_depth_and_frees_at_zero(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    struct timespec past = {.tv_sec = -1, .tv_nsec = 0};
    assert_int_equal(fx_rmutex_lock(&m), 0);
    assert_int_equal(fx_rmutex_lock(&m), 0);
    assert_int_equal(fx_rmutex_trylock(&m), 0);
    assert_int_equal(fx_rmutex_timedlock(&m, &past), 0);
    assert_int_equal(depth_slot(&m), 4);
    for (int left = 3; left >= 1; left--) {
        assert_int_equal(fx_rmutex_unlock(&m), 0);
        assert_int_equal(depth_slot(&m), left);
        assert_int_equal(fx_rmutex_owner(&m), my_tid());
        assert_int_equal(other_thread_trylock(&m), EBUSY);
    }
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(fx_rmutex_owner(&m), 0);
    assert_int_equal(other_thread_trylock(&m), 0);
}

static void test_reentry_of_an_older_mutex_while_holding_another(void **state)
{
    (void)state;
    fx_rmutex a = FX_RMUTEX_INIT, b = FX_RMUTEX_INIT;
    assert_int_equal(fx_rmutex_lock(&a), 0);
    assert_int_equal(fx_rmutex_lock(&b), 0);
    assert_int_equal(fx_rmutex_lock(&a), 0); /* not the last one acquired */
    assert_int_equal(fx_rmutex_trylock(&a), 0);
    assert_int_equal(depth_slot(&a), 3);
    assert_int_equal(fx_rmutex_unlock(&b), 0);
    assert_int_equal(fx_rmutex_lock(&a), 0);
    assert_int_equal(depth_slot(&a), 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(fx_rmutex_unlock(&a), 0);
    assert_int_equal(owner_word(&a), 0);
    assert_int_equal(owner_word(&b), 0);
    assert_int_equal(other_thread_trylock(&a), 0);
}

/* The thread's record of held rmutexes keeps 8 and counts the rest: any
 * number held, re-entered and released in any order, each final unlock frees
 * exactly its mutex, and a release of a mutex no longer held is EPERM. */
static void test_more_mutexes_than_recorded_release_in_any_order(void **state)
{
    (void)state;
    enum { N = 11 };
    fx_rmutex m[N];
    memset(m, 0, sizeof m);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < N; i++)
            assert_int_equal(fx_rmutex_lock(&m[i]), 0);
        for (int i = 0; i < N; i++) {
            assert_int_equal(fx_rmutex_lock(&m[i]), 0); /* re-entry, wherever recorded */
            assert_int_equal(depth_slot(&m[i]), 2);
        }
        for (int j = 0; j < N; j++) {
            int i = (j * 7 + round * 3) % N; /* every index once, not in order */
            assert_int_equal(fx_rmutex_unlock(&m[i]), 0);
            assert_int_equal(fx_rmutex_owner(&m[i]), fxt_gettid());
            assert_int_equal(fx_rmutex_unlock(&m[i]), 0);
            assert_int_equal(owner_word(&m[i]), 0);
            assert_int_equal(fx_rmutex_unlock(&m[i]), EPERM);
            assert_int_equal(other_thread_trylock(&m[i]), 0);
        }
    }
}

static void test_unlock_by_non_owner_is_eperm(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    assert_int_equal(fx_rmutex_unlock(&m), EPERM); /* free */
    struct holder h;
    pthread_t t = start_holder(&h, &m, 2, HOLDER_UNLOCK);
    assert_int_equal(fx_rmutex_unlock(&m), EPERM);
    assert_int_equal(fx_rmutex_owner(&m), h.tid);
    assert_int_equal(depth_slot(&m), 2);
    fx_counter_store(&h.release, 1);
    fxt_join(t);
    assert_int_equal(h.r, 0);
    assert_int_equal(fx_rmutex_owner(&m), 0);
}

static void test_trylock_is_ebusy_while_another_thread_owns(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    struct holder h;
    pthread_t t = start_holder(&h, &m, 1, HOLDER_UNLOCK);
    assert_int_equal(fx_rmutex_trylock(&m), EBUSY);
    assert_int_equal(fx_rmutex_trylock(&m), EBUSY); /* memo of the liveness check */
    assert_int_equal(fx_rmutex_owner(&m), h.tid);
    fx_counter_store(&h.release, 1);
    fxt_join(t);
    assert_int_equal(fx_rmutex_trylock(&m), 0);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
}

static void test_timedlock_times_out_while_another_thread_owns(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    struct holder h;
    pthread_t t = start_holder(&h, &m, 1, HOLDER_UNLOCK);
    int64_t start = fxt_now_ns();
    struct timespec d = fx_deadline_in(80 * FX_NSEC_PER_MSEC); /* spans a liveness re-check */
    assert_int_equal(fx_rmutex_timedlock(&m, &d), ETIMEDOUT);
    assert_true(fxt_now_ns() - start >= 80 * FX_NSEC_PER_MSEC);
    struct timespec past = {.tv_sec = -5, .tv_nsec = 0};
    assert_int_equal(fx_rmutex_timedlock(&m, &past), ETIMEDOUT);
    assert_int_equal(fx_rmutex_owner(&m), h.tid);
    fx_counter_store(&h.release, 1);
    fxt_join(t);
    assert_int_equal(h.r, 0);
}

static void test_timedlock_checks_deadline_only_when_it_would_wait(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    struct timespec bad = {.tv_sec = 0, .tv_nsec = 1000000000L};
    struct timespec past = {.tv_sec = 0, .tv_nsec = 0};
    assert_int_equal(fx_rmutex_timedlock(&m, &bad), 0); /* free: succeeds */
    assert_int_equal(fx_rmutex_timedlock(&m, &bad), 0); /* re-entry */
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(fx_rmutex_timedlock(&m, &past), 0);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    struct holder h;
    pthread_t t = start_holder(&h, &m, 1, HOLDER_UNLOCK);
    bad.tv_nsec = -1;
    assert_int_equal(fx_rmutex_timedlock(&m, &bad), EINVAL);
    fx_counter_store(&h.release, 1);
    fxt_join(t);
}

static void test_null_and_misaligned_are_einval(void **state)
{
    (void)state;
    int32_t raw[4] = {0, 0, 0, 0};
    fx_rmutex *bad = (fx_rmutex *)(void *)((char *)raw + 1);
    fx_rmutex *nul = NULL;
    struct timespec d = fx_deadline_in(0);
    fx_rmutex *list[] = {nul, bad};
    for (int i = 0; i < 2; i++) {
        fx_rmutex *m = list[i];
        assert_int_equal(fx_rmutex_init(m), EINVAL); /* nothing written */
        assert_int_equal(fx_rmutex_lock(m), EINVAL);
        assert_int_equal(fx_rmutex_trylock(m), EINVAL);
        assert_int_equal(fx_rmutex_timedlock(m, &d), EINVAL);
        assert_int_equal(fx_rmutex_unlock(m), EINVAL);
        assert_int_equal(fx_rmutex_consistent(m), EINVAL);
        assert_int_equal(fx_rmutex_recover(m, 1), EINVAL);
        assert_int_equal(fx_rmutex_owner(m), -EINVAL);
    }
    assert_memory_equal(raw, ((int32_t[4]){0, 0, 0, 0}), sizeof raw);
}

static void test_garbage_owner_word_is_einval_and_never_hangs(void **state)
{
    (void)state;
    const uint32_t garbage[] = {
        0x00400000u,               /* TID beyond FX_RMUTEX_TID_MAX */
        0x00400000u | W_BIT,       /* the same with WAITERS */
        W_BIT,                     /* WAITERS and no owner */
        0x40000000u | 5u,          /* ORPHANED with a TID */
        0x20000000u | W_BIT,       /* NOTRECOVERABLE with WAITERS */
        0x10000000u,               /* an unknown bit */
        0x10000000u | 5u,          /* LOCALNS without PROBED */
        0x08000000u,               /* PROBED without a TID */
        0x00800000u | 5u,          /* a bit of 22..26 with a TID */
        0x7fffffffu,
        0xffffffffu,
    };
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        fx_rmutex m = {.owner = (int32_t)garbage[i], .depth = 1};
        struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_SEC);
        assert_int_equal(fx_rmutex_lock(&m), EINVAL);
        assert_int_equal(fx_rmutex_trylock(&m), EINVAL);
        assert_int_equal(fx_rmutex_timedlock(&m, &d), EINVAL);
        assert_int_equal(fx_rmutex_unlock(&m), EINVAL);
        assert_int_equal(fx_rmutex_consistent(&m), EINVAL);
        assert_int_equal(fx_rmutex_recover(&m, 5), EINVAL);
        assert_int_equal(fx_rmutex_owner(&m), -EINVAL);
        assert_int_equal(owner_word(&m), garbage[i]); /* left untouched */
    }
}

static void test_garbage_depth_slot_of_owner_is_einval(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    const int32_t garbage[] = {0, (int32_t)0x80000001u, 0x40000000, 0x40000000 | (int32_t)0x80000000u};
    assert_int_equal(fx_rmutex_lock(&m), 0);
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        m.depth = garbage[i];
        assert_int_equal(fx_rmutex_lock(&m), EINVAL);
        assert_int_equal(fx_rmutex_trylock(&m), EINVAL);
        assert_int_equal(fx_rmutex_unlock(&m), EINVAL);
        assert_int_equal(fx_rmutex_consistent(&m), EINVAL);
        assert_int_equal(fx_rmutex_owner(&m), my_tid()); /* nothing was released */
        assert_int_equal(depth_slot(&m), garbage[i]);
    }
    m.depth = 1;
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(fx_rmutex_owner(&m), 0);
}

static void test_depth_overflow_is_eagain(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    struct timespec d = fx_deadline_in(FX_NSEC_PER_SEC);
    assert_int_equal(fx_rmutex_lock(&m), 0);
    m.depth = FX_RMUTEX_DEPTH_MAX; /* test-only: the documented depth slot */
    assert_int_equal(fx_rmutex_lock(&m), EAGAIN);
    assert_int_equal(fx_rmutex_trylock(&m), EAGAIN);
    assert_int_equal(fx_rmutex_timedlock(&m, &d), EAGAIN);
    assert_int_equal(depth_slot(&m), FX_RMUTEX_DEPTH_MAX);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(depth_slot(&m), FX_RMUTEX_DEPTH_MAX - 1);
    assert_int_equal(fx_rmutex_lock(&m), 0); /* back at the maximum */
    assert_int_equal(fx_rmutex_lock(&m), EAGAIN);
    m.depth = 1;
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(fx_rmutex_owner(&m), 0);
}

static void test_owner_reports_tid_zero_or_einval(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    assert_int_equal(fx_rmutex_owner(&m), 0);
    m.owner = 4242;
    assert_int_equal(fx_rmutex_owner(&m), 4242);
    m.owner = (int32_t)(4242u | W_BIT);
    assert_int_equal(fx_rmutex_owner(&m), 4242);
    m.owner = FX_RMUTEX_ORPHANED;
    assert_int_equal(fx_rmutex_owner(&m), 0);
    m.owner = FX_RMUTEX_NOTRECOVERABLE;
    assert_int_equal(fx_rmutex_owner(&m), 0);
    m.owner = 0x00400000;
    assert_int_equal(fx_rmutex_owner(&m), -EINVAL);
}

/* Owner death: threads ------------------------------------------------------- */

static void test_thread_exit_while_holding_nested_gives_eownerdead(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    struct holder h;
    pthread_t t = start_holder(&h, &m, 3, HOLDER_EXIT_HOLDING);
    assert_int_equal(depth_slot(&m), 3);
    fx_counter_store(&h.release, 1);
    fxt_join(t); /* returned holding the mutex at depth 3 */
    /* The kernel marked the word at the thread's exit (its robust list),
     * where the library could join the list; elsewhere it still names it. */
    assert_int_equal(fx_rmutex_owner(&m), fxt_rmutex_robust() ? 0 : h.tid);
    int64_t start = wait_thread_gone(h.tid);
    assert_int_equal(fx_rmutex_lock(&m), EOWNERDEAD);
    double ms = ms_between(start, fxt_now_ns());
    printf("rmutex: lock after the owner thread exited: EOWNERDEAD after %.2f ms\n", ms);
    assert_true(ms < RECOVERY_LIMIT_MS);
    assert_int_equal(fx_rmutex_owner(&m), my_tid());
    assert_int_equal(depth_slot(&m), 1 | FX_RMUTEX_INCONSISTENT);
    assert_int_equal(fx_rmutex_consistent(&m), 0);
    assert_int_equal(depth_slot(&m), 1);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(fx_rmutex_lock(&m), 0);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
}

static void test_blocked_waiter_recovers_when_owner_thread_exits(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    struct holder h;
    pthread_t ht = start_holder(&h, &m, 2, HOLDER_EXIT_HOLDING);
    struct waiter w;
    pthread_t wt = start_waiter(&w, &m, WAIT_LOCK, true);
    fx_counter_store(&h.release, 1);
    fxt_join(ht);
    int64_t died = wait_thread_gone(h.tid);
    assert_int_equal(fx_counter_wait(&w.acquired, 1, NULL), 0);
    double ms = ms_between(died, w.done_ns);
    int limit = recovery_limit_ms(w.start_ns, died);
    printf("rmutex: blocked waiter recovered from an exited owner thread in %.2f ms "
           "(limit %d ms)\n",
           ms, limit);
    assert_int_equal(w.r, EOWNERDEAD);
    assert_true(ms < limit);
    fx_counter_store(&w.go, 1);
    fxt_join(wt);
    assert_int_equal(w.consistent_r, 0);
    assert_int_equal(w.unlock_r, 0);
    assert_int_equal(fx_rmutex_owner(&m), 0);
    assert_int_equal(fx_rmutex_lock(&m), 0);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
}

/* Owner death: processes ------------------------------------------------------- */

static int blocked_waiter_child(void *p)
{
    struct shared *s = p;
    die_with_parent();
    fx_counter_add(&s->ready, 1);
    s->start_ns = fxt_now_ns();
    int r = fx_rmutex_lock(&s->m);
    s->done_ns = fxt_now_ns();
    s->result = r;
    FXT_CHILD_CHECK(r == EOWNERDEAD, 20);
    FXT_CHILD_CHECK(fx_rmutex_owner(&s->m) == getpid(), 21);
    FXT_CHILD_CHECK(fx_rmutex_consistent(&s->m) == 0, 22);
    FXT_CHILD_CHECK(fx_rmutex_unlock(&s->m) == 0, 23);
    return 0;
}

static void test_sigkill_of_owner_process_recovers_blocked_waiter_in_time(void **state)
{
    (void)state;
    struct shared *s = new_shared();
    pid_t holder = spawn_holder_process(s);
    pid_t waiter = fxt_fork(blocked_waiter_child, s);
    assert_int_equal(fx_counter_wait(&s->ready, 1, NULL), 0);
    wait_until_blocked(&s->m, waiter);
    /* Let it settle into its steady cycle (a liveness check every
     * FXI_RMUTEX_RECHECK_MS) rather than kill within its first, 1 ms check:
     * this measures the common case of a waiter that has waited a while. */
    usleep(3 * FXI_RMUTEX_RECHECK_MS * 1000 / 2);
    int64_t killed = fxt_now_ns();
    assert_int_equal(kill(holder, SIGKILL), 0); /* not reaped: a zombie until below */
    fxt_reap_where_zombies_look_alive(holder);
    /* Where zombies look alive to the liveness probe, the death shows only
     * once the owner is reaped, just now. */
    int64_t dead = fxt_zombies_look_dead() ? killed : fxt_now_ns();
    assert_int_equal(fxt_wait_child(waiter, 10000), 0);
    double ms = ms_between(dead, s->done_ns);
    int limit = recovery_limit_ms(s->start_ns, dead);
    printf("rmutex: SIGKILL of the owner process -> blocked waiter process got EOWNERDEAD "
           "in %.2f ms (limit %d ms; the death showed %.2f ms after the kill)\n",
           ms, limit, ms_between(killed, dead));
    assert_int_equal(s->result, EOWNERDEAD);
    assert_true(ms < limit);
    reap_killed(holder);
    assert_int_equal(fx_rmutex_owner(&s->m), 0);
    fxt_shared_free(s, sizeof *s);
}

static void test_lock_arriving_after_owner_process_was_killed_gets_eownerdead(void **state)
{
    (void)state;
    struct shared *s = new_shared();
    pid_t holder = spawn_holder_process(s);
    kill_holder_keep_zombie(holder);
    int64_t start = fxt_now_ns();
    assert_int_equal(fx_rmutex_lock(&s->m), EOWNERDEAD);
    double ms = ms_between(start, fxt_now_ns());
    printf("rmutex: lock arriving after the owner was killed: EOWNERDEAD in %.2f ms\n", ms);
    assert_true(ms < RECOVERY_LIMIT_MS);
    assert_int_equal(fx_rmutex_owner(&s->m), my_tid());
    assert_int_equal(depth_slot(&s->m), 1 | FX_RMUTEX_INCONSISTENT); /* depth 1, not 2 */
    assert_int_equal(fx_rmutex_consistent(&s->m), 0);
    assert_int_equal(fx_rmutex_unlock(&s->m), 0);
    reap_killed(holder);
    fxt_shared_free(s, sizeof *s);
}

static void test_trylock_takes_dead_owners_mutex_at_once(void **state)
{
    (void)state;
    struct shared *s = new_shared();
    pid_t holder = spawn_holder_process(s);
    kill_holder_keep_zombie(holder);
    assert_int_equal(fx_rmutex_trylock(&s->m), EOWNERDEAD); /* the first try */
    assert_int_equal(fx_rmutex_owner(&s->m), my_tid());
    assert_int_equal(depth_slot(&s->m), 1 | FX_RMUTEX_INCONSISTENT);
    assert_int_equal(fx_rmutex_consistent(&s->m), 0);
    assert_int_equal(fx_rmutex_unlock(&s->m), 0);
    reap_killed(holder);
    fxt_shared_free(s, sizeof *s);
}

static void test_trylock_loop_sees_death_when_its_liveness_memo_expires(void **state)
{
    (void)state;
    struct shared *s = new_shared();
    pid_t holder = spawn_holder_process(s);
    assert_int_equal(fx_rmutex_trylock(&s->m), EBUSY); /* found alive: memo */
    int64_t memo = fxt_now_ns(); /* the memo's check was made before this */
    kill_holder_keep_zombie(holder);
    /* This thread found the same owner alive less than FXI_RMUTEX_RECHECK_MS
     * ago, so it may keep answering EBUSY until then, not longer: every
     * EBUSY comes from a call that began within FXI_RMUTEX_RECHECK_MS of the
     * memo's check (however long the calls themselves are kept waiting for
     * a CPU), and the first call after that takes the mutex. */
    int r;
    for (;;) {
        int64_t call = fxt_now_ns();
        r = fx_rmutex_trylock(&s->m);
        if (r != EBUSY)
            break;
        assert_true(call - memo < FXI_RMUTEX_RECHECK_MS * FX_NSEC_PER_MSEC);
    }
    assert_int_equal(r, EOWNERDEAD);
    assert_int_equal(fx_rmutex_consistent(&s->m), 0);
    assert_int_equal(fx_rmutex_unlock(&s->m), 0);
    reap_killed(holder);
    fxt_shared_free(s, sizeof *s);
}

static void test_timedlock_with_past_deadline_takes_dead_owners_mutex(void **state)
{
    (void)state;
    struct shared *s = new_shared();
    pid_t holder = spawn_holder_process(s);
    kill_holder_keep_zombie(holder);
    struct timespec past = {.tv_sec = -1, .tv_nsec = 0};
    assert_int_equal(fx_rmutex_timedlock(&s->m, &past), EOWNERDEAD);
    assert_int_equal(fx_rmutex_consistent(&s->m), 0);
    assert_int_equal(fx_rmutex_unlock(&s->m), 0);
    reap_killed(holder);
    fxt_shared_free(s, sizeof *s);
}

static void test_two_blocked_waiters_one_recovers_and_waiters_bit_stays(void **state)
{
    (void)state;
    struct shared *s = new_shared();
    pid_t holder = spawn_holder_process(s);
    struct waiter a, b;
    pthread_t ta = start_waiter(&a, &s->m, WAIT_LOCK, true);
    pthread_t tb = start_waiter(&b, &s->m, WAIT_TIMEDLOCK_10S, true);
    assert_int_equal(kill(holder, SIGKILL), 0);
    fxt_reap_where_zombies_look_alive(holder);
    /* Exactly one of them takes it, with EOWNERDEAD; the other still sleeps,
     * so the word must still say WAITERS. */
    int64_t limit = fxt_now_ns() + 10 * FX_NSEC_PER_SEC;
    while (fx_counter_load(&a.acquired) + fx_counter_load(&b.acquired) == 0) {
        assert_true(fxt_now_ns() < limit);
        usleep(200);
    }
    struct waiter *first = fx_counter_load(&a.acquired) ? &a : &b;
    struct waiter *second = first == &a ? &b : &a;
    assert_int_equal(first->r, EOWNERDEAD);
    assert_true(first->word_after & W_BIT);
    assert_int_equal(fx_rmutex_owner(&s->m), first->tid);
    wait_until_blocked(&s->m, second->tid);
    assert_int_equal(fx_counter_load(&second->acquired), 0);
    fx_counter_store(&first->go, 1); /* consistent, unlock: wakes the second */
    assert_int_equal(fx_counter_wait(&second->acquired, 1, NULL), 0);
    assert_int_equal(second->r, 0);
    fx_counter_store(&second->go, 1);
    fxt_join(ta);
    fxt_join(tb);
    assert_int_equal(first->consistent_r, 0);
    assert_int_equal(first->unlock_r, 0);
    assert_int_equal(second->unlock_r, 0);
    assert_int_equal(owner_word(&s->m), 0);
    reap_killed(holder);
    fxt_shared_free(s, sizeof *s);
}

/* Explicit recovery ------------------------------------------------------------ */

static int exit_holding_child(void *p)
{
    struct shared *s = p;
    refuse_robust_list(s);
    if (fx_rmutex_lock(&s->m) != 0)
        return 30;
    return 0; /* exits holding it */
}

static void test_recover_releases_and_next_acquirer_gets_eownerdead(void **state)
{
    (void)state;
    struct shared *s = new_shared();
    s->probed = 1; /* the kernel would mark a listed owner's word itself */
    pid_t child = fxt_fork(exit_holding_child, s);
    assert_int_equal(fxt_wait_child(child, 10000), 0); /* reaped */
    assert_int_equal(fx_rmutex_owner(&s->m), child);
    assert_int_equal(fx_rmutex_recover(&s->m, child), 0);
    assert_int_equal(owner_word(&s->m), (uint32_t)FX_RMUTEX_ORPHANED);
    assert_int_equal(fx_rmutex_owner(&s->m), 0);
    assert_int_equal(fx_rmutex_recover(&s->m, child), EPERM); /* no longer the owner */
    assert_int_equal(fx_rmutex_unlock(&s->m), EPERM);
    assert_int_equal(fx_rmutex_trylock(&s->m), EOWNERDEAD);
    assert_int_equal(depth_slot(&s->m), 1 | FX_RMUTEX_INCONSISTENT);
    assert_int_equal(fx_rmutex_consistent(&s->m), 0);
    assert_int_equal(fx_rmutex_unlock(&s->m), 0);
    assert_int_equal(fx_rmutex_trylock(&s->m), 0);
    assert_int_equal(fx_rmutex_unlock(&s->m), 0);
    fxt_shared_free(s, sizeof *s);
}

static void test_recover_of_a_non_owner_is_eperm(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    assert_int_equal(fx_rmutex_recover(&m, 1234), EPERM); /* free */
    assert_int_equal(fx_rmutex_lock(&m), 0);
    assert_int_equal(fx_rmutex_recover(&m, my_tid() + 1), EPERM);
    assert_int_equal(fx_rmutex_recover(&m, 0), EPERM);
    assert_int_equal(fx_rmutex_recover(&m, -1), EPERM);
    assert_int_equal(fx_rmutex_owner(&m), my_tid());
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    m.owner = FX_RMUTEX_NOTRECOVERABLE;
    assert_int_equal(fx_rmutex_recover(&m, 1234), EPERM);
}

static void test_recover_wakes_a_blocked_waiter(void **state)
{
    (void)state;
    struct shared *s = new_shared();
    pid_t holder = spawn_holder_process(s);
    struct waiter w;
    pthread_t t = start_waiter(&w, &s->m, WAIT_LOCK, true);
    /* The holder is still alive, so the waiter cannot recover by itself: only
     * recover's wake can give it the mutex. (recover trusts its caller that
     * the TID is dead; the holder stands in for a dead one here.) */
    int64_t start = fxt_now_ns();
    assert_int_equal(fx_rmutex_recover(&s->m, holder), 0);
    assert_int_equal(fx_counter_wait(&w.acquired, 1, NULL), 0);
    double ms = ms_between(start, w.done_ns);
    printf("rmutex: fx_rmutex_recover -> blocked waiter got EOWNERDEAD in %.2f ms\n", ms);
    assert_int_equal(w.r, EOWNERDEAD);
    assert_true(ms < RECOVERY_LIMIT_MS);
    fx_counter_store(&w.go, 1);
    fxt_join(t);
    assert_int_equal(w.consistent_r, 0);
    assert_int_equal(w.unlock_r, 0);
    assert_int_equal(kill(holder, SIGKILL), 0);
    reap_killed(holder);
    fxt_shared_free(s, sizeof *s);
}

/* A waiter that sleeps on the word with no timeout of its own (the event-loop
 * entry points): only recover's wake can end its sleep, and once woken its
 * next step must take the mutex, never ask to sleep again. */
struct step_sleeper {
    fx_rmutex *m;
    fx_counter ready;
    pid_t tid;
    int r;
    int wait_r;
    int steps;
};

static void *step_sleeper_main(void *p)
{
    struct step_sleeper *ss = p;
    ss->tid = my_tid();
    struct fxi_rmutex_waiter w;
    fxi_rmutex_waiter_init(&w, 0);
    int32_t *word, sleep_on;
    struct timespec recheck;
    fx_counter_add(&ss->ready, 1);
    for (;;) {
        ss->steps++;
        ss->r = fxi_rmutex_acquire_step(ss->m, &w, &word, &sleep_on, &recheck);
        if (ss->r != EBUSY)
            break;
        struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_SEC); /* ignores recheck */
        do
            ss->wait_r = fx_futex_wait(word, sleep_on, &d);
        while (ss->wait_r == EINTR);
        if (ss->wait_r == ETIMEDOUT)
            break;
    }
    return NULL;
}

static void test_waiter_woken_by_recover_takes_the_mutex_without_sleeping_again(void **state)
{
    (void)state;
    struct shared *s = new_shared();
    s->probed = 1; /* else the kernel's mark at the kill would wake the sleeper */
    pid_t holder = spawn_holder_process(s);
    struct step_sleeper ss;
    memset(&ss, 0, sizeof ss);
    ss.m = &s->m;
    pthread_t t = fxt_thread(step_sleeper_main, &ss);
    assert_int_equal(fx_counter_wait(&ss.ready, 1, NULL), 0);
    wait_until_blocked(&s->m, ss.tid);
    kill_holder_keep_zombie(holder);
    reap_killed(holder);
    assert_int_equal(fx_rmutex_recover(&s->m, holder), 0);
    fxt_join(t);
    assert_int_equal(ss.r, EOWNERDEAD);
    assert_int_not_equal(ss.wait_r, ETIMEDOUT);
    /* The thread ended holding it: the kernel marked it, where it could. */
    if (fxt_rmutex_robust()) {
        assert_int_equal(owner_word(&s->m) & ~W_BIT, (uint32_t)FX_RMUTEX_ORPHANED);
    } else {
        assert_int_equal(fx_rmutex_owner(&s->m), ss.tid);
        assert_int_equal(fx_rmutex_recover(&s->m, ss.tid), 0);
    }
    fxt_shared_free(s, sizeof *s);
}

/* Consistent and the unrecoverable path ------------------------------------------ */

/* Makes the calling thread the owner of m with EOWNERDEAD (a helper thread
 * exits holding it). */
static void acquire_inconsistent(fx_rmutex *m)
{
    struct holder h;
    pthread_t t = start_holder(&h, m, 1, HOLDER_EXIT_HOLDING);
    fx_counter_store(&h.release, 1);
    fxt_join(t);
    assert_int_equal(fx_rmutex_lock(m), EOWNERDEAD);
}

static void test_consistent_then_continue_normally(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    acquire_inconsistent(&m);
    assert_int_equal(fx_rmutex_lock(&m), 0); /* re-entry while inconsistent */
    assert_int_equal(depth_slot(&m), 2 | FX_RMUTEX_INCONSISTENT);
    assert_int_equal(fx_rmutex_unlock(&m), 0); /* inner: nothing happens */
    assert_int_equal(fx_rmutex_owner(&m), my_tid());
    assert_int_equal(fx_rmutex_consistent(&m), 0);
    assert_int_equal(fx_rmutex_consistent(&m), EINVAL); /* already consistent */
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(owner_word(&m), 0);
    assert_int_equal(other_thread_trylock(&m), 0);
}

static void test_consistent_by_non_owner_is_eperm(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    assert_int_equal(fx_rmutex_consistent(&m), EPERM); /* free */
    struct holder h;
    pthread_t t = start_holder(&h, &m, 1, HOLDER_UNLOCK);
    assert_int_equal(fx_rmutex_consistent(&m), EPERM);
    fx_counter_store(&h.release, 1);
    fxt_join(t);
}

static void test_consistent_when_not_inconsistent_is_einval(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    assert_int_equal(fx_rmutex_lock(&m), 0);
    assert_int_equal(fx_rmutex_consistent(&m), EINVAL);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
}

static void test_unlock_without_consistent_makes_it_unrecoverable(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_SEC);
    struct timespec past = {.tv_sec = -1, .tv_nsec = 0};
    acquire_inconsistent(&m);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(owner_word(&m), (uint32_t)FX_RMUTEX_NOTRECOVERABLE);
    assert_int_equal(fx_rmutex_lock(&m), ENOTRECOVERABLE);
    assert_int_equal(fx_rmutex_trylock(&m), ENOTRECOVERABLE);
    assert_int_equal(fx_rmutex_timedlock(&m, &d), ENOTRECOVERABLE);
    assert_int_equal(fx_rmutex_timedlock(&m, &past), ENOTRECOVERABLE);
    assert_int_equal(fx_rmutex_unlock(&m), EPERM);
    assert_int_equal(fx_rmutex_consistent(&m), EPERM);
    assert_int_equal(fx_rmutex_recover(&m, my_tid()), EPERM);
    assert_int_equal(fx_rmutex_owner(&m), 0);
    assert_int_equal(other_thread_trylock(&m), ENOTRECOVERABLE);
}

static void test_unrecoverable_wakes_every_blocked_waiter(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    acquire_inconsistent(&m);
    struct waiter a, b;
    pthread_t ta = start_waiter(&a, &m, WAIT_LOCK, false);
    pthread_t tb = start_waiter(&b, &m, WAIT_TIMEDLOCK_10S, false);
    int64_t start = fxt_now_ns();
    assert_int_equal(fx_rmutex_unlock(&m), 0); /* not consistent: NOTRECOVERABLE */
    fxt_join(ta);
    fxt_join(tb);
    assert_int_equal(a.r, ENOTRECOVERABLE);
    assert_int_equal(b.r, ENOTRECOVERABLE);
    /* Woken by the unlock, not by their liveness re-checks. */
    assert_true(ms_between(start, a.done_ns) < RECOVERY_LIMIT_MS);
    assert_true(ms_between(start, b.done_ns) < RECOVERY_LIMIT_MS);
    assert_int_equal(owner_word(&m), (uint32_t)FX_RMUTEX_NOTRECOVERABLE);
}

/* A waiter woken by recover is responsible for the other sleepers (it will
 * acquire with WAITERS kept, or re-mark it). If a thread that never slept takes
 * the orphaned mutex first (no WAITERS) and unlocks it without consistent, the
 * woken waiter leaves with ENOTRECOVERABLE: the NOTRECOVERABLE transition must
 * wake the remaining sleepers itself (a lost wake-up found by the Promela
 * model). The sleepers here wait with no timeout of their own, so only that
 * wake can end their sleep; a woken one pauses before stepping again. */
struct paused_sleeper {
    fx_rmutex *m;
    fx_counter ready;
    fx_counter woken;   /* 1 once woken from the word */
    fx_counter go;      /* set to 1 to let it step again */
    pid_t tid;
    int r;
    int wait_r;
};

static void *paused_sleeper_main(void *p)
{
    struct paused_sleeper *ps = p;
    ps->tid = my_tid();
    struct fxi_rmutex_waiter w;
    fxi_rmutex_waiter_init(&w, 0);
    int32_t *word, sleep_on;
    struct timespec recheck;
    ps->r = fxi_rmutex_acquire_step(ps->m, &w, &word, &sleep_on, &recheck);
    fx_counter_add(&ps->ready, 1);
    while (ps->r == EBUSY) {
        struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_SEC); /* ignores recheck */
        do
            ps->wait_r = fx_futex_wait(word, sleep_on, &d);
        while (ps->wait_r == EINTR);
        if (ps->wait_r == ETIMEDOUT)
            return NULL;
        if (ps->wait_r == 0 && fx_counter_load(&ps->woken) == 0) {
            fx_counter_add(&ps->woken, 1);
            fx_counter_wait(&ps->go, 1, NULL);
        }
        ps->r = fxi_rmutex_acquire_step(ps->m, &w, &word, &sleep_on, &recheck);
    }
    return NULL;
}

static void test_unrecoverable_wakes_sleepers_a_woken_waiter_was_responsible_for(void **state)
{
    (void)state;
    struct shared *s = new_shared();
    pid_t holder = spawn_holder_process(s); /* alive: stands in for a dead owner */
    struct paused_sleeper ps[2];
    pthread_t t[2];
    memset(ps, 0, sizeof ps);
    for (int i = 0; i < 2; i++) {
        ps[i].m = &s->m;
        t[i] = fxt_thread(paused_sleeper_main, &ps[i]);
        assert_int_equal(fx_counter_wait(&ps[i].ready, 1, NULL), 0);
        assert_int_equal(ps[i].r, EBUSY);
        wait_until_blocked(&s->m, ps[i].tid);
    }
    assert_int_equal(fx_rmutex_recover(&s->m, holder), 0); /* wakes one of them */
    int64_t limit = fxt_now_ns() + 10 * FX_NSEC_PER_SEC;
    while (fx_counter_load(&ps[0].woken) + fx_counter_load(&ps[1].woken) == 0) {
        assert_true(fxt_now_ns() < limit);
        usleep(200);
    }
    int woken = fx_counter_load(&ps[0].woken) ? 0 : 1;
    int other = 1 - woken;
    assert_int_equal(fx_counter_load(&ps[other].woken), 0);
    /* A thread that never slept takes the orphaned mutex first, without
     * WAITERS, and unlocks it without consistent. */
    assert_int_equal(owner_word(&s->m), (uint32_t)FX_RMUTEX_ORPHANED);
    assert_int_equal(fx_rmutex_trylock(&s->m), EOWNERDEAD);
    assert_int_equal(owner_word(&s->m) & W_BIT, 0);
    assert_int_equal(fx_rmutex_unlock(&s->m), 0);
    assert_int_equal(owner_word(&s->m), (uint32_t)FX_RMUTEX_NOTRECOVERABLE);
    fx_counter_store(&ps[woken].go, 1);
    fx_counter_store(&ps[other].go, 1);
    fxt_join(t[0]);
    fxt_join(t[1]);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(ps[i].r, ENOTRECOVERABLE);
        assert_int_not_equal(ps[i].wait_r, ETIMEDOUT);
    }
    assert_int_equal(kill(holder, SIGKILL), 0);
    reap_killed(holder);
    fxt_shared_free(s, sizeof *s);
}

/* Fork --------------------------------------------------------------------------- */

static int fork_child_checks(void *p)
{
    struct shared *s = p;
    /* The parent's thread holds s->m; the child's cached TID must be its own. */
    FXT_CHILD_CHECK(fx_rmutex_owner(&s->m) == s->parent_tid, 40);
    FXT_CHILD_CHECK(fx_rmutex_trylock(&s->m) == EBUSY, 41);
    FXT_CHILD_CHECK(fx_rmutex_unlock(&s->m) == EPERM, 42);
    FXT_CHILD_CHECK(fx_rmutex_consistent(&s->m) == EPERM, 43);
    struct timespec d = fx_deadline_in(20 * FX_NSEC_PER_MSEC);
    FXT_CHILD_CHECK(fx_rmutex_timedlock(&s->m, &d) == ETIMEDOUT, 44);
    FXT_CHILD_CHECK(fx_rmutex_lock(&s->other) == 0, 45);
    FXT_CHILD_CHECK(fx_rmutex_owner(&s->other) == getpid(), 46);
    FXT_CHILD_CHECK(getpid() != s->parent_tid, 47);
    FXT_CHILD_CHECK(fx_rmutex_unlock(&s->other) == 0, 48);
    return 0;
}

static void test_fork_while_holding_child_acts_with_its_own_tid(void **state)
{
    (void)state;
    struct shared *s = new_shared();
    assert_int_equal(fx_rmutex_lock(&s->other), 0); /* caches the parent's TID */
    assert_int_equal(fx_rmutex_unlock(&s->other), 0);
    assert_int_equal(fx_rmutex_lock(&s->m), 0); /* the child inherits the re-entry hint */
    assert_int_equal(fxt_run_child(fork_child_checks, s), 0);
    assert_int_equal(fx_rmutex_owner(&s->m), my_tid());
    assert_int_equal(depth_slot(&s->m), 1);
    assert_int_equal(fx_rmutex_unlock(&s->m), 0);
    fxt_shared_free(s, sizeof *s);
}

/* Contention ---------------------------------------------------------------------- */

#define CONTENDERS 4
#define ROUNDS 20000

struct contention {
    fx_rmutex m;
    long count; /* protected by m */
    int errors;
};

static void contend(struct contention *c)
{
    for (int i = 0; i < ROUNDS; i++) {
        if (fx_rmutex_lock(&c->m) != 0)
            c->errors++;
        if (i % 3 == 0 && fx_rmutex_lock(&c->m) != 0) /* some re-entry */
            c->errors++;
        c->count++;
        if (i % 3 == 0 && fx_rmutex_unlock(&c->m) != 0)
            c->errors++;
        if (fx_rmutex_unlock(&c->m) != 0)
            c->errors++;
    }
}

static void *contend_thread(void *p)
{
    contend(p);
    return NULL;
}

static void test_contended_threads_keep_exact_count(void **state)
{
    (void)state;
    static struct contention c;
    memset(&c, 0, sizeof c);
    pthread_t t[CONTENDERS];
    for (int i = 0; i < CONTENDERS; i++)
        t[i] = fxt_thread(contend_thread, &c);
    for (int i = 0; i < CONTENDERS; i++)
        fxt_join(t[i]);
    assert_int_equal(c.errors, 0);
    assert_int_equal(c.count, (long)CONTENDERS * ROUNDS);
    assert_int_equal(owner_word(&c.m), 0);
}

static int contend_child(void *p)
{
    contend(p);
    return 0;
}

static void test_contended_processes_keep_exact_count(void **state)
{
    (void)state;
    struct contention *c = fxt_shared_alloc(sizeof *c);
    pid_t pids[3];
    for (int i = 0; i < 3; i++)
        pids[i] = fxt_fork(contend_child, c);
    for (int i = 0; i < 3; i++)
        assert_int_equal(fxt_wait_child(pids[i], 60000), 0);
    assert_int_equal(c->errors, 0);
    assert_int_equal(c->count, 3L * ROUNDS);
    assert_int_equal(owner_word(&c->m), 0);
    fxt_shared_free(c, sizeof *c);
}

/* Signals --------------------------------------------------------------------------- */

struct releaser {
    fx_rmutex *m;
    pid_t waiter;
    struct holder *h;
};

/* Lets the holder go once the waiter has been blocked (under the storm) long
 * enough to cross several liveness re-checks. Blocked: the WAITERS bit it
 * set, not its sleep, which the storm may never let a sampler see (under an
 * emulator each signal's handling outlasts the storm's period). */
static void *releaser_main(void *p)
{
    struct releaser *r = p;
    int64_t limit = fxt_now_ns() + 10 * FX_NSEC_PER_SEC;
    while (!(owner_word(r->m) & W_BIT) && fxt_now_ns() < limit)
        usleep(200);
    usleep(120 * 1000); /* the storm's duration, not synchronization */
    fx_counter_store(&r->h->release, 1);
    return NULL;
}

static void test_signal_storm_never_gives_eintr(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    struct holder h;
    pthread_t ht = start_holder(&h, &m, 1, HOLDER_UNLOCK);
    struct fxt_storm *storm = fxt_storm_start(pthread_self());
    struct timespec d = fx_deadline_in(70 * FX_NSEC_PER_MSEC);
    assert_int_equal(fx_rmutex_timedlock(&m, &d), ETIMEDOUT);
    struct releaser rel = {&m, my_tid(), &h};
    pthread_t rt = fxt_thread(releaser_main, &rel);
    assert_int_equal(fx_rmutex_lock(&m), 0);
    long signals = fxt_storm_stop(storm);
    assert_true(signals > 0);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    fxt_join(rt);
    fxt_join(ht);
    assert_int_equal(h.r, 0);
}

/* No system call ------------------------------------------------------------------- */

/* Installs a seccomp filter that kills the process on any system call but exit
 * and exit_group: from then on, every operation must be pure user space. */
static int forbid_all_system_calls(void)
{
    struct sock_filter prog[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FXT_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit_group, 4, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit, 3, 0),
        /* Under a race detector the library keeps no TID cache
         * (src/internal/identity.h): each call asks gettid and getpid. */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FXT_UNDER_TSAN ? SYS_gettid : SYS_exit, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FXT_UNDER_TSAN ? SYS_getpid : SYS_exit, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog fprog = {.len = sizeof prog / sizeof prog[0], .filter = prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
}

static int uncontended_sequence(fx_rmutex *m)
{
    struct timespec d = {.tv_sec = -1, .tv_nsec = 0};
    if (fx_rmutex_lock(m) != 0)
        return 1;
    if (fx_rmutex_lock(m) != 0) /* re-entry */
        return 2;
    if (fx_rmutex_trylock(m) != 0)
        return 3;
    if (fx_rmutex_timedlock(m, &d) != 0)
        return 4;
    if (fx_rmutex_consistent(m) != EINVAL)
        return 5;
    if (fx_rmutex_owner(m) <= 0)
        return 6;
    for (int i = 0; i < 4; i++)
        if (fx_rmutex_unlock(m) != 0)
            return 7;
    if (fx_rmutex_trylock(m) != 0 || fx_rmutex_unlock(m) != 0)
        return 8;
    if (fx_rmutex_timedlock(m, NULL) != 0 || fx_rmutex_unlock(m) != 0)
        return 9;
    if (fx_rmutex_unlock(m) != EPERM || fx_rmutex_recover(m, 1) != EPERM)
        return 10;
    return 0;
}

static int no_syscall_child(void *p)
{
    fx_rmutex *m = p;
    /* Warm up: the TID cache (gettid, pthread_atfork) and, under sanitizers,
     * their bookkeeping of this mutex. */
    if (uncontended_sequence(m) != 0)
        return 50;
    if (forbid_all_system_calls() != 0)
        return 51;
    int r = uncontended_sequence(m);
    /* Leave without the C library's exit path (sanitizer runtimes make system
     * calls at exit): exit_group is allowed. */
    syscall(SYS_exit_group, r == 0 ? 0 : 60 + r);
    return 59;
}

static void test_uncontended_paths_make_no_system_call(void **state)
{
    (void)state;
    fx_rmutex *m = fxt_shared_alloc(sizeof *m);
    /* The futex proof on the object, and inside it a filter forbidding every
     * system call: no futex call, and no liveness check (/proc, kill). */
    assert_int_equal(fxt_run_without_futex(m, sizeof *m, no_syscall_child, m), 0);
    assert_int_equal(owner_word(m), 0);
    fxt_shared_free(m, sizeof *m);
}

/* The TID cache and the liveness test ------------------------------------------------ */

static void *tid_of_thread(void *unused)
{
    (void)unused;
    return (void *)(intptr_t)(fxi_tid() == my_tid() && fxi_tid() == my_tid());
}

static int tid_child(void *p)
{
    pid_t parent = *(pid_t *)p;
    FXT_CHILD_CHECK(fxi_tid() == getpid(), 70);
    FXT_CHILD_CHECK(fxi_tid() != parent, 71);
    return 0;
}

static void test_tid_cache_is_each_threads_own_and_reset_in_fork_children(void **state)
{
    (void)state;
    pid_t me = fxi_tid();
    assert_int_equal(me, my_tid());
    assert_int_equal((intptr_t)fxt_join(fxt_thread(tid_of_thread, NULL)), 1);
    assert_int_equal(fxt_run_child(tid_child, &me), 0);
    assert_int_equal(fxi_tid(), me);
}

static int sleep_forever_child(void *p)
{
    fx_counter never = FX_COUNTER_INIT(0);
    (void)p;
    die_with_parent();
    fx_counter_wait(&never, 1, NULL);
    return 0;
}

static void test_liveness_check_sees_live_zombie_and_reaped_tids(void **state)
{
    (void)state;
    assert_false(fxi_tid_dead(my_tid()));
    assert_false(fxi_tid_dead(1)); /* init: alive (or hidden: kill says EPERM) */
    pid_t child = fxt_fork(sleep_forever_child, NULL);
    assert_false(fxi_tid_dead(child));
    kill_holder_keep_zombie(child);
    assert_true(fxi_tid_dead(child)); /* a zombie is dead */
    reap_killed(child);
    assert_true(fxi_tid_dead(child)); /* gone */
    enum { CHECKS = 200 };
    int64_t start = fxt_now_ns();
    for (int i = 0; i < CHECKS; i++)
        assert_false(fxi_tid_dead(my_tid()));
    printf("rmutex: one liveness check (/proc/<tid>/stat) costs %.1f us\n",
           (double)(fxt_now_ns() - start) / CHECKS / 1e3);
}

/* Internal entry points: condition variables and event loops -------------------------- */

static void test_release_all_and_reacquire_restore_the_depth(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    int32_t saved = 0;
    for (int i = 0; i < 3; i++)
        assert_int_equal(fx_rmutex_lock(&m), 0);
    assert_int_equal(fxi_rmutex_release_all(&m, &saved), 0);
    assert_int_equal(saved, 3);
    assert_int_equal(fx_rmutex_owner(&m), 0);
    assert_int_equal(other_thread_trylock(&m), 0);
    assert_int_equal(fxi_rmutex_reacquire(&m, saved), 0);
    assert_int_equal(depth_slot(&m), 3);
    assert_int_equal(fxi_rmutex_reacquire(&m, 1), EINVAL); /* already the owner */
    for (int i = 0; i < 3; i++)
        assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(fx_rmutex_owner(&m), 0);
    assert_int_equal(fxi_rmutex_release_all(&m, &saved), EPERM);
    assert_int_equal(fxi_rmutex_reacquire(&m, 0), EINVAL);
    assert_int_equal(fxi_rmutex_reacquire(&m, FX_RMUTEX_DEPTH_MAX + 1), EINVAL);
}

static void test_reacquire_reports_eownerdead_to_the_condition_waiter(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    int32_t saved = 0;
    assert_int_equal(fx_rmutex_lock(&m), 0);
    assert_int_equal(fx_rmutex_lock(&m), 0);
    assert_int_equal(fxi_rmutex_release_all(&m, &saved), 0);
    struct holder h; /* takes it while we "wait", and dies holding it */
    pthread_t t = start_holder(&h, &m, 1, HOLDER_EXIT_HOLDING);
    fx_counter_store(&h.release, 1);
    fxt_join(t);
    assert_int_equal(fxi_rmutex_reacquire(&m, saved), EOWNERDEAD);
    assert_int_equal(depth_slot(&m), 2 | FX_RMUTEX_INCONSISTENT);
    assert_int_equal(fx_rmutex_consistent(&m), 0);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(owner_word(&m), 0);
}

static void test_release_all_of_inconsistent_mutex_makes_it_unrecoverable(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    int32_t saved = 0;
    acquire_inconsistent(&m);
    assert_int_equal(fxi_rmutex_release_all(&m, &saved), 0);
    assert_int_equal(saved, 1);
    assert_int_equal(fxi_rmutex_reacquire(&m, saved), ENOTRECOVERABLE);
}

static void test_acquire_step_reports_word_value_and_recheck_time(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    struct fxi_rmutex_waiter w;
    int32_t *word = NULL, sleep_on = 0;
    struct timespec recheck;
    fxi_rmutex_waiter_init(&w, 0);
    assert_int_equal(fxi_rmutex_acquire_step(&m, &w, &word, &sleep_on, &recheck), 0);
    assert_int_equal(fxi_rmutex_acquire_step(&m, &w, &word, &sleep_on, &recheck), 0); /* re-entry */
    assert_int_equal(depth_slot(&m), 2);
    fxi_rmutex_waiter_init(&w, 2);
    assert_int_equal(fxi_rmutex_acquire_step(&m, &w, &word, &sleep_on, &recheck), EINVAL);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(fx_rmutex_unlock(&m), 0);

    struct holder h;
    pthread_t t = start_holder(&h, &m, 1, HOLDER_UNLOCK);
    fxi_rmutex_waiter_init(&w, 0);
    int64_t before = fxt_now_ns();
    assert_int_equal(fxi_rmutex_acquire_step(&m, &w, &word, &sleep_on, &recheck), EBUSY);
    assert_ptr_equal(word, &m.owner);
    assert_int_equal((uint32_t)sleep_on, word_of(h.tid) | W_BIT);
    assert_int_equal(owner_word(&m), (uint32_t)sleep_on);
    int64_t at = (int64_t)recheck.tv_sec * FX_NSEC_PER_SEC + recheck.tv_nsec;
    if (fxt_rmutex_robust()) {
        /* The kernel reports this owner's death: no re-check is ever due. */
        assert_true(at > fxt_now_ns() + 3600 * FX_NSEC_PER_SEC);
    } else {
        assert_true(at > before &&
                    at <= fxt_now_ns() + FXI_RMUTEX_FIRST_CHECK_MS * FX_NSEC_PER_MSEC);
        /* Sleep until the re-check time, as an event loop would: the owner
         * is alive, so the next re-check is FXI_RMUTEX_RECHECK_MS away. */
        assert_int_equal(fx_futex_wait(word, sleep_on, &recheck), ETIMEDOUT);
        before = fxt_now_ns();
        assert_int_equal(fxi_rmutex_acquire_step(&m, &w, &word, &sleep_on, &recheck), EBUSY);
        at = (int64_t)recheck.tv_sec * FX_NSEC_PER_SEC + recheck.tv_nsec;
        assert_true(at >= before + FXI_RMUTEX_RECHECK_MS * FX_NSEC_PER_MSEC);
    }
    fxi_rmutex_abandon_wait(&m);
    fx_counter_store(&h.release, 1);
    fxt_join(t);
    assert_int_equal(fxi_rmutex_acquire_step(&m, &w, &word, &sleep_on, &recheck), 0);
    /* It had slept: it keeps WAITERS, so its unlock wakes whoever may remain. */
    assert_int_equal(owner_word(&m), word_of(my_tid()) | W_BIT);
    assert_int_equal(fx_rmutex_unlock(&m), 0);
    assert_int_equal(owner_word(&m), 0);
}

/* Two event-loop waiters sleep on the word with no timeout; the first one woken
 * abandons its wait: the wake must reach the second. */
struct abandoner {
    fx_rmutex *m;
    bool abandon;
    fx_counter ready;
    pid_t tid;
    int r;      /* last step result, or the abandon marker */
    int wait_r;
};

#define ABANDONED 1000

static void *abandoner_main(void *p)
{
    struct abandoner *a = p;
    a->tid = my_tid();
    struct fxi_rmutex_waiter w;
    fxi_rmutex_waiter_init(&w, 0);
    int32_t *word, sleep_on;
    struct timespec recheck;
    a->r = fxi_rmutex_acquire_step(a->m, &w, &word, &sleep_on, &recheck);
    fx_counter_add(&a->ready, 1);
    while (a->r == EBUSY) {
        struct timespec d = fx_deadline_in(10 * FX_NSEC_PER_SEC);
        a->wait_r = fx_futex_wait(word, sleep_on, &d);
        if (a->wait_r == ETIMEDOUT)
            return NULL;
        if (a->wait_r == 0 && a->abandon) {
            fxi_rmutex_abandon_wait(a->m);
            a->r = ABANDONED;
            return NULL;
        }
        a->r = fxi_rmutex_acquire_step(a->m, &w, &word, &sleep_on, &recheck);
    }
    if (a->r == 0)
        fx_rmutex_unlock(a->m);
    return NULL;
}

static void test_abandoned_wait_passes_the_wake_on(void **state)
{
    (void)state;
    fx_rmutex m = FX_RMUTEX_INIT;
    assert_int_equal(fx_rmutex_lock(&m), 0);
    struct abandoner first, second;
    memset(&first, 0, sizeof first);
    memset(&second, 0, sizeof second);
    first.m = second.m = &m;
    first.abandon = true;
    /* FIFO among equal-priority futex waiters: the first to sleep is woken. */
    pthread_t t1 = fxt_thread(abandoner_main, &first);
    assert_int_equal(fx_counter_wait(&first.ready, 1, NULL), 0);
    wait_until_blocked(&m, first.tid);
    pthread_t t2 = fxt_thread(abandoner_main, &second);
    assert_int_equal(fx_counter_wait(&second.ready, 1, NULL), 0);
    wait_until_blocked(&m, second.tid);
    assert_int_equal(fx_rmutex_unlock(&m), 0); /* wakes one */
    fxt_join(t1);
    fxt_join(t2);
    assert_int_equal(first.r, ABANDONED);
    assert_int_equal(second.r, 0);
    assert_int_not_equal(second.wait_r, ETIMEDOUT);
    assert_int_equal(owner_word(&m), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_init_is_free_and_sized_for_the_robust_list),
        cmocka_unit_test(test_lock_records_owner_tid_and_unlock_frees),
        cmocka_unit_test(test_reentry_grows_depth_and_frees_at_zero),
        cmocka_unit_test(test_reentry_of_an_older_mutex_while_holding_another),
        cmocka_unit_test(test_more_mutexes_than_recorded_release_in_any_order),
        cmocka_unit_test(test_unlock_by_non_owner_is_eperm),
        cmocka_unit_test(test_trylock_is_ebusy_while_another_thread_owns),
        cmocka_unit_test(test_timedlock_times_out_while_another_thread_owns),
        cmocka_unit_test(test_timedlock_checks_deadline_only_when_it_would_wait),
        cmocka_unit_test(test_null_and_misaligned_are_einval),
        cmocka_unit_test(test_garbage_owner_word_is_einval_and_never_hangs),
        cmocka_unit_test(test_garbage_depth_slot_of_owner_is_einval),
        cmocka_unit_test(test_depth_overflow_is_eagain),
        cmocka_unit_test(test_owner_reports_tid_zero_or_einval),
        cmocka_unit_test(test_thread_exit_while_holding_nested_gives_eownerdead),
        cmocka_unit_test(test_blocked_waiter_recovers_when_owner_thread_exits),
        cmocka_unit_test(test_sigkill_of_owner_process_recovers_blocked_waiter_in_time),
        cmocka_unit_test(test_lock_arriving_after_owner_process_was_killed_gets_eownerdead),
        cmocka_unit_test(test_trylock_takes_dead_owners_mutex_at_once),
        cmocka_unit_test(test_trylock_loop_sees_death_when_its_liveness_memo_expires),
        cmocka_unit_test(test_timedlock_with_past_deadline_takes_dead_owners_mutex),
        cmocka_unit_test(test_two_blocked_waiters_one_recovers_and_waiters_bit_stays),
        cmocka_unit_test(test_recover_releases_and_next_acquirer_gets_eownerdead),
        cmocka_unit_test(test_recover_of_a_non_owner_is_eperm),
        cmocka_unit_test(test_recover_wakes_a_blocked_waiter),
        cmocka_unit_test(test_waiter_woken_by_recover_takes_the_mutex_without_sleeping_again),
        cmocka_unit_test(test_consistent_then_continue_normally),
        cmocka_unit_test(test_consistent_by_non_owner_is_eperm),
        cmocka_unit_test(test_consistent_when_not_inconsistent_is_einval),
        cmocka_unit_test(test_unlock_without_consistent_makes_it_unrecoverable),
        cmocka_unit_test(test_unrecoverable_wakes_every_blocked_waiter),
        cmocka_unit_test(test_unrecoverable_wakes_sleepers_a_woken_waiter_was_responsible_for),
        cmocka_unit_test(test_fork_while_holding_child_acts_with_its_own_tid),
        cmocka_unit_test(test_contended_threads_keep_exact_count),
        cmocka_unit_test(test_contended_processes_keep_exact_count),
        cmocka_unit_test(test_signal_storm_never_gives_eintr),
        cmocka_unit_test(test_uncontended_paths_make_no_system_call),
        cmocka_unit_test(test_tid_cache_is_each_threads_own_and_reset_in_fork_children),
        cmocka_unit_test(test_liveness_check_sees_live_zombie_and_reaped_tids),
        cmocka_unit_test(test_release_all_and_reacquire_restore_the_depth),
        cmocka_unit_test(test_reacquire_reports_eownerdead_to_the_condition_waiter),
        cmocka_unit_test(test_release_all_of_inconsistent_mutex_makes_it_unrecoverable),
        cmocka_unit_test(test_acquire_step_reports_word_value_and_recheck_time),
        cmocka_unit_test(test_abandoned_wait_passes_the_wake_on),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
