/* tests/test_sleep.c - the sleepers of shared memory pay one look per
 * process, not one each nor one per object (src/sleep.c, the waiting
 * engine): one sleeper, the prober, looks for all, the others sleep untimed
 * in futex_waitv, and the role passes on when the prober's sleep ends,
 * however it ends, so that a wake lost to a death in another process is
 * still made up for within a look period.
 *
 * Which thread is the prober is read from the kernel, not guessed: the
 * prober waits in futex(2) on its word, the listed ones in futex_waitv(2)
 * with their word among theirs (/proc/<tid>/syscall). Where futex_waitv
 * does not work (a kernel before 5.16, an emulator), every sleeper rechecks
 * and these tests skip, saying so (as where MADV_WIPEONFORK is not
 * honoured). */
#define _GNU_SOURCE
#include "fxfault.h"
#include "fxtest.h"

#include <dirent.h>
#include <errno.h>
#include <linux/seccomp.h>
#include <futexsync.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum { SLEEPERS = 5, SETTLE_MS = 5000 };

/* Waits until, of the n tasks tids (of any process), exactly one sleeps as the
 * prober (in futex(2) on word) and the n-1 others listed; its index, or -1
 * after SETTLE_MS (two recheck periods bring every sleeper there). */
static int wait_settled(const pid_t *tids, int n, const void *word)
{
    int64_t limit = fxt_now_ns() + (int64_t)SETTLE_MS * 1000000;
    while (fxt_now_ns() < limit) {
        int prober = -1, ones = 0, twos = 0;
        for (int i = 0; i < n; i++) {
            int how = tids[i] ? fxt_futex_sleep_how(tids[i], word) : 0;
            if (how == 1) {
                ones++;
                prober = i;
            }
            twos += how == 2;
        }
        if (ones == 1 && twos == n - 1)
            return prober;
        struct timespec pause = {0, 2000000}; /* polling interval only */
        nanosleep(&pause, NULL);
    }
    return -1;
}

/* Voluntary context switches of a task: its wake-ups. */
static long wakeups(pid_t pid, pid_t tid)
{
    char path[96], line[128];
    snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid, (int)tid);
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
            break;
    fclose(f);
    return v;
}

/* Whether every thread of process pid is stopped (state T in
 * /proc/<pid>/task/<tid>/stat): a SIGSTOP has taken effect, which kill()
 * does not wait for. */
static bool all_stopped(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (d == NULL)
        return false;
    bool stopped = true;
    struct dirent *e;
    while (stopped && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char state = fxt_task_state((pid_t)atoi(e->d_name));
        stopped = state == 'T' || state == 't';
    }
    closedir(d);
    return stopped;
}

/* Whether the library's engine can run here (it asks the same, once
 * per process): futex_waitv answers as the kernel does, and a page marked
 * MADV_WIPEONFORK is really zeroed in a fork child (an emulator may accept
 * the advice and ignore it). */
static bool engine_works(void)
{
#ifdef SYS_futex_waitv
    uint32_t w = 0;
    struct {
        uint64_t val, uaddr;
        uint32_t flags, reserved;
    } v = {1, (uintptr_t)&w, 0x02, 0};
    long r = syscall(SYS_futex_waitv, &v, 1, 0, NULL, CLOCK_MONOTONIC);
    if (r != -1 || errno != EAGAIN)
        return false;
    long page = sysconf(_SC_PAGESIZE);
    int32_t *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
    if (p == MAP_FAILED)
        return false;
    *p = 1;
    bool wiped = madvise(p, (size_t)page, MADV_WIPEONFORK) == 0;
    if (wiped) {
        pid_t c = fork();
        if (c == 0)
            _exit(*(volatile int32_t *)p == 0 ? 0 : 1);
        int st = -1;
        wiped = c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    munmap(p, (size_t)page);
    return wiped;
#else
    return false;
#endif
}

#define SKIP_WITHOUT_ENGINE()                                                              \
    do {                                                                                  \
        if (!engine_works()) {                                                       \
            printf("# futex_waitv or MADV_WIPEONFORK does not work here: every sleeper "   \
                   "rechecks; skipped\n");                                                \
            skip();                                                                       \
        }                                                                                 \
    } while (0)

/* --- sleepers of a shared fx_sem, threads of this process ------------------ */

struct sem_box {
    fx_sem s;
    int32_t passed;
};

struct sleeper {
    struct sem_box *b;
    pid_t tid;
    int result;
};

static void *sem_sleeper(void *p)
{
    struct sleeper *k = p;
    __atomic_store_n(&k->tid, fxt_gettid(), __ATOMIC_RELEASE);
    k->result = fx_sem_wait(&k->b->s);
    __atomic_fetch_add(&k->b->passed, 1, __ATOMIC_ACQ_REL);
    return NULL;
}

struct crowd {
    struct sem_box *b;
    struct sleeper k[SLEEPERS];
    pthread_t t[SLEEPERS];
    pid_t tids[SLEEPERS];
    bool gone[SLEEPERS];
};

static void crowd_start(struct crowd *c)
{
    memset(c, 0, sizeof *c);
    c->b = fxt_shared_alloc(sizeof *c->b);
    for (int i = 0; i < SLEEPERS; i++) {
        c->k[i].b = c->b;
        c->t[i] = fxt_thread(sem_sleeper, &c->k[i]);
    }
    for (int i = 0; i < SLEEPERS; i++) {
        while ((c->tids[i] = __atomic_load_n(&c->k[i].tid, __ATOMIC_ACQUIRE)) == 0)
            sched_yield();
    }
}

/* The tids of the sleepers still there, in *live (their indexes in idx). */
static int crowd_live(const struct crowd *c, pid_t *live, int *idx)
{
    int n = 0;
    for (int i = 0; i < SLEEPERS; i++)
        if (!c->gone[i]) {
            idx[n] = i;
            live[n++] = c->tids[i];
        }
    return n;
}

/* Index (in c) of the prober once the live ones settled. */
static int crowd_settled(const struct crowd *c)
{
    pid_t live[SLEEPERS];
    int idx[SLEEPERS];
    int n = crowd_live(c, live, idx);
    int d = wait_settled(live, n, &c->b->s.value);
    assert_true(d >= 0);
    return idx[d];
}

static void crowd_cancel(struct crowd *c, int i)
{
    assert_int_equal(pthread_cancel(c->t[i]), 0);
    void *ret = NULL;
    assert_true(fxt_join_timed(c->t[i], 10000, &ret));
    assert_ptr_equal(ret, PTHREAD_CANCELED);
    c->gone[i] = true;
}

/* Posts a token the way a poster killed between its change and its wake
 * leaves it: published, nobody woken. */
static void post_without_wake(fx_sem *s)
{
    __atomic_fetch_add(&s->value, 1, __ATOMIC_SEQ_CST);
}

/* Returns how long (ms) until *passed reaches want; fails after 10 s. */
static int64_t ms_until_passed(const int32_t *passed, int32_t want, int64_t t0)
{
    assert_true(fxt_flag_wait(passed, want, 10000));
    return (fxt_now_ns() - t0) / 1000000;
}

static void crowd_finish(struct crowd *c)
{
    int n = 0;
    for (int i = 0; i < SLEEPERS; i++)
        n += !c->gone[i];
    int32_t before = __atomic_load_n(&c->b->passed, __ATOMIC_ACQUIRE);
    for (int i = before; i < n; i++)
        assert_int_equal(fx_sem_post(&c->b->s), 0);
    for (int i = 0; i < SLEEPERS; i++)
        if (!c->gone[i]) {
            assert_true(fxt_join_timed(c->t[i], 10000, NULL));
            assert_int_equal(c->k[i].result, 0);
        }
    fxt_shared_free(c->b, sizeof *c->b);
}

static void test_shared_sleepers_of_one_word_are_looked_at_by_one(void **state)
{
    (void)state;
    SKIP_WITHOUT_ENGINE();
    struct crowd c;
    crowd_start(&c);
    (void)crowd_settled(&c);
    long before = 0, after = 0;
    for (int i = 0; i < SLEEPERS; i++)
        before += wakeups(getpid(), c.tids[i]);
    /* A measuring window, not a synchronization: 8 look periods
     * (FXI_PROBE_NS), in which the process's prober wakes 8 times, where
     * every sleeper of its own would wake 8 times each. */
    struct timespec window = {2, 0};
    nanosleep(&window, NULL);
    for (int i = 0; i < SLEEPERS; i++)
        after += wakeups(getpid(), c.tids[i]);
    printf("# %d sleepers: %ld wake-ups in 2 s\n", SLEEPERS, after - before);
    assert_true(after - before <= 10);
    crowd_finish(&c);
}

static void test_prober_cancelled_hands_the_look_on(void **state)
{
    (void)state;
    SKIP_WITHOUT_ENGINE();
    struct crowd c;
    crowd_start(&c);
    int d = crowd_settled(&c);
    crowd_cancel(&c, d);
    /* The hand-off: another sleeper of this process holds the recheck now,
     * with no tick of its own needed to get there. */
    int d2 = crowd_settled(&c);
    assert_int_not_equal(d2, d);
    /* And it does recheck: a token whose wake was lost gets taken. */
    int64_t t0 = fxt_now_ns();
    post_without_wake(&c.b->s);
    int64_t ms = ms_until_passed(&c.b->passed, 1, t0);
    printf("# lost wake made up for in %lld ms\n", (long long)ms);
    assert_true(ms < 2000);
    crowd_finish(&c);
}

static void test_listed_sleeper_cancelled_leaves_the_prober_in_place(void **state)
{
    (void)state;
    SKIP_WITHOUT_ENGINE();
    struct crowd c;
    crowd_start(&c);
    int d = crowd_settled(&c);
    crowd_cancel(&c, d == 0 ? 1 : 0);
    assert_int_equal(crowd_settled(&c), d);
    crowd_finish(&c);
}

/* --- the prober looks for sleepers waiting for other things ---------------- */

struct target_waiter {
    fx_counter *c;
    int32_t target;
    pid_t tid;
    int32_t done;
    int result;
};

static void *target_main(void *p)
{
    struct target_waiter *w = p;
    __atomic_store_n(&w->tid, fxt_gettid(), __ATOMIC_RELEASE);
    w->result = fx_counter_wait(w->c, w->target, NULL);
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Starts waiter a, lets it sleep past its first recheck (so that it holds
 * the role), then starts waiter b, and waits until a sleeps as the prober
 * and b untimed in futex_waitv, both on their counter's word. 0, or a code
 * (10..13: which step failed); no cmocka assert, so that a forked child can
 * call it too. */
static int start_prober_and_listed(struct target_waiter *a, struct target_waiter *b,
                                        pthread_t *ta, pthread_t *tb)
{
    const int32_t *word = &a->c->value;
    if (pthread_create(ta, NULL, target_main, a) != 0)
        return 10;
    while (__atomic_load_n(&a->tid, __ATOMIC_ACQUIRE) == 0)
        sched_yield();
    if (!fxt_wait_asleep(a->tid, word, 10000))
        return 11;
    long w0 = wakeups(getpid(), a->tid);
    int64_t limit = fxt_now_ns() + 10 * 1000000000LL;
    while (wakeups(getpid(), a->tid) < w0 + 2 && fxt_now_ns() < limit)
        sched_yield(); /* its first recheck came and went */
    if (pthread_create(tb, NULL, target_main, b) != 0)
        return 12;
    while (__atomic_load_n(&b->tid, __ATOMIC_ACQUIRE) == 0)
        sched_yield();
    pid_t tids[2] = {a->tid, b->tid};
    return wait_settled(tids, 2, word) == 0 ? 0 : 13;
}

static void test_look_tells_a_listed_waiter_whose_target_came(void **state)
{
    (void)state;
    SKIP_WITHOUT_ENGINE();
    fx_counter *c = fxt_shared_alloc(sizeof *c);
    /* A waits for 100 and holds the recheck (it slept past its first one
     * before B came); B waits for 10, untimed. */
    struct target_waiter a = {c, 100, 0, 0, -1}, b = {c, 10, 0, 0, -1};
    pthread_t ta, tb;
    assert_int_equal(start_prober_and_listed(&a, &b, &ta, &tb), 0);
    /* B's target comes from a writer killed before its wake: only A's
     * recheck, not A's own target, can get B out. */
    int64_t t0 = fxt_now_ns();
    __atomic_store_n(&c->value, 10, __ATOMIC_SEQ_CST);
    assert_true(fxt_flag_wait(&b.done, 1, 10000));
    int64_t ms = (fxt_now_ns() - t0) / 1000000;
    printf("# the untimed waiter got its target in %lld ms\n", (long long)ms);
    assert_true(ms < 2000);
    assert_int_equal(b.result, 0);
    assert_int_equal(__atomic_load_n(&a.done, __ATOMIC_ACQUIRE), 0);
    assert_int_equal(fx_counter_store(c, 100), 0);
    fxt_join(ta);
    fxt_join(tb);
    assert_int_equal(a.result, 0);
    fxt_shared_free(c, sizeof *c);
}

/* --- one prober for every object of the process ----------------------------- */

enum { OBJECTS = 8 };

/* Many objects with one waiter each: one of them is the prober, in
 * futex(2) on its own word; the others sleep untimed in futex_waitv(2) on
 * theirs. With one looker per word, each would sleep in futex(2). */
static void test_waiters_of_many_objects_share_one_prober(void **state)
{
    (void)state;
    SKIP_WITHOUT_ENGINE();
    fx_counter *c = fxt_shared_alloc(OBJECTS * sizeof *c);
    struct target_waiter w[OBJECTS];
    pthread_t t[OBJECTS];
    for (int i = 0; i < OBJECTS; i++) {
        w[i] = (struct target_waiter){&c[i], 1, 0, 0, -1};
        t[i] = fxt_thread(target_main, &w[i]);
    }
    int64_t limit = fxt_now_ns() + (int64_t)SETTLE_MS * 1000000;
    int ones = 0, twos = 0;
    while (fxt_now_ns() < limit) {
        ones = twos = 0;
        for (int i = 0; i < OBJECTS; i++) {
            pid_t tid = __atomic_load_n(&w[i].tid, __ATOMIC_ACQUIRE);
            int how = tid ? fxt_futex_sleep_how(tid, &c[i].value) : 0;
            ones += how == 1;
            twos += how == 2;
        }
        if (ones == 1 && twos == OBJECTS - 1)
            break;
        struct timespec pause = {0, 2000000}; /* polling interval only */
        nanosleep(&pause, NULL);
    }
    printf("# %d objects: %d waiters in futex, %d in futex_waitv\n", OBJECTS, ones, twos);
    assert_int_equal(ones, 1);
    assert_int_equal(twos, OBJECTS - 1);
    for (int i = 0; i < OBJECTS; i++)
        assert_int_equal(fx_counter_store(&c[i], 1), 0);
    for (int i = 0; i < OBJECTS; i++) {
        fxt_join(t[i]);
        assert_int_equal(w[i].result, 0);
    }
    fxt_shared_free(c, OBJECTS * sizeof *c);
}

/* --- a prober whose deadline falls on a tick ---------------------------------- */

struct on_tick {
    fx_counter c;
    struct timespec deadline; /* a look tick, past the first recheck */
};

/* The child: the only sleeper of its process, so the prober; its wait ends
 * at its deadline, which is a tick of the look grid. The looks counted are
 * those from half a period before the tick: the look before it can only be
 * late, and then it is counted too (never a false failure); the one at the
 * tick is counted only if it is made. */
static int deadline_on_tick_child(void *arg)
{
    struct on_tick *o = arg;
    int64_t d = (int64_t)o->deadline.tv_sec * 1000000000LL + o->deadline.tv_nsec;
    fxf_count_from("sleep.look", d - 125000000LL);
    FXT_CHILD_CHECK(fx_counter_wait(&o->c, 1, &o->deadline) == ETIMEDOUT, 3);
    /* The look due at the tick was made before the wait returned. */
    FXT_CHILD_CHECK(fxf_counted() >= 1, 5);
    return 0;
}

/* A wake lost to a death is made up at the next look even when the prober's
 * own deadline falls on that tick (any whole-second deadline does): the look
 * comes first. Skipping it used to hand the role to a sleeper whose first
 * look was a period later, doubling the repair bound. */
static void test_prober_whose_deadline_falls_on_a_tick_looks_first(void **state)
{
    (void)state;
    SKIP_WITHOUT_ENGINE();
    struct on_tick *o = fxt_shared_alloc(sizeof *o);
    const int64_t period = 250000000LL; /* FXI_PROBE_NS */
    int64_t t = (fxt_now_ns() + 1500000000LL) / period * period + period;
    o->deadline = (struct timespec){(time_t)(t / 1000000000LL), (long)(t % 1000000000LL)};
    assert_int_equal(fxt_run_child(deadline_on_tick_child, o), 0);
    fxt_shared_free(o, sizeof *o);
}

/* --- a word watched, not slept on ---------------------------------------------- */

struct writer_waiter {
    fx_rwlock *l;
    pid_t tid;
    int32_t done;
    int result;
};

static void *writer_main(void *p)
{
    struct writer_waiter *w = p;
    __atomic_store_n(&w->tid, fxt_gettid(), __ATOMIC_RELEASE);
    w->result = fx_rwlock_wrlock(w->l);
    if (w->result == 0)
        w->result = fx_rwlock_unlock(w->l);
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Takes a read hold and keeps it until killed. */
static int read_hold_child(void *arg)
{
    FXT_CHILD_CHECK(fx_rwlock_rdlock(arg) == 0, 2);
    for (;;)
        pause();
}

/* Waiting writers sleep on writer_seq but decide on the state word. The
 * last reader is killed between the CAS that frees the lock and its wake of
 * a writer (its writer_seq += 1): the state moved, writer_seq did not. Both
 * writers, the prober and a listed one, must still be told and get in. */
static void test_writers_told_when_the_state_moves_under_writer_seq(void **state)
{
    (void)state;
    SKIP_WITHOUT_ENGINE();
    fx_rwlock *l = fxt_shared_alloc(sizeof *l);
    /* The reader is another process, so that its release by hand below
     * leaves no read hold in this one (a race detector would see one). */
    pid_t reader = fxt_fork(read_hold_child, l);
    /* Bounded: a reader that never takes its hold fails the test, not CI. */
    int64_t give_up = fxt_now_ns() + 10 * 1000000000LL;
    while ((__atomic_load_n(&l->state, __ATOMIC_ACQUIRE) & (FX_RWLOCK_MAX_READERS - 1)) == 0) {
        assert_true(fxt_now_ns() < give_up);
        sched_yield();
    }
    struct writer_waiter w[2] = {{l, 0, 0, -1}, {l, 0, 0, -1}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        t[i] = fxt_thread(writer_main, &w[i]);
    pid_t tids[2];
    for (int i = 0; i < 2; i++)
        while ((tids[i] = __atomic_load_n(&w[i].tid, __ATOMIC_ACQUIRE)) == 0) {
            assert_true(fxt_now_ns() < give_up);
            sched_yield();
        }
    /* One in futex(2), the other in futex_waitv(2): both in the engine. */
    assert_true(wait_settled(tids, 2, &l->writer_seq) >= 0);
    /* The reader's release, killed before its wake: one reader fewer, the
     * writers' bits left, writer_seq untouched, nobody woken. */
    int32_t s = __atomic_load_n(&l->state, __ATOMIC_SEQ_CST);
    assert_int_equal(s & (int32_t)(FX_RWLOCK_MAX_READERS - 1), 1);
    assert_true(__atomic_compare_exchange_n(&l->state, &s, s - 1, false, __ATOMIC_SEQ_CST,
                                            __ATOMIC_SEQ_CST));
    for (int i = 0; i < 2; i++) {
        assert_true(fxt_flag_wait(&w[i].done, 1, 10000));
        assert_int_equal(w[i].result, 0);
        fxt_join(t[i]);
    }
    assert_int_equal(fx_rwlock_trywrlock(l), 0);
    assert_int_equal(fx_rwlock_unlock(l), 0);
    assert_int_equal(kill(reader, SIGKILL), 0);
    assert_int_equal(fxt_wait_child(reader, 10000), 128 + SIGKILL);
    fxt_shared_free(l, sizeof *l);
}

/* --- futex_waitv refused after the probe ------------------------------------ */

/* The child of the test below (its own process: the filter stays for its
 * life). A waits for 100 and holds the recheck, B waits for 10 untimed;
 * then futex_waitv is refused, a store of 5 wakes both, and B's next
 * untimed sleep is refused: B must fall back to a bounded sleep of its own
 * (not spin on the refusal) and get a target whose wake is lost. */
static int refused_waitv_child(void *p)
{
    fx_counter *c = p;
    struct target_waiter a = {c, 100, 0, 0, -1}, b = {c, 10, 0, 0, -1};
    pthread_t ta, tb;
    int r = start_prober_and_listed(&a, &b, &ta, &tb);
    if (r != 0)
        return r;
    /* futex_waitv refused to every thread from now on: a filter installed
     * after the library's probe accepted the call. */
#ifdef SYS_futex_waitv
    if (fxt_refuse_syscall(SYS_futex_waitv, ENOSYS, SECCOMP_FILTER_FLAG_TSYNC) != 0)
        return 20;
#endif
    if (fx_counter_store(c, 5) != 0)
        return 14;
    /* B sleeps again in futex(2) on the word, bounded, not in futex_waitv. */
    int64_t limit = fxt_now_ns() + 10 * 1000000000LL;
    while (fxt_futex_sleep_how(b.tid, &c->value) != 1 && fxt_now_ns() < limit)
        sched_yield();
    if (fxt_futex_sleep_how(b.tid, &c->value) != 1)
        return 15;
    /* No spinning on the refusal: a bounded sleeper wakes a few times a
     * second at most. */
    long wb = wakeups(getpid(), b.tid);
    struct timespec second = {1, 0};
    nanosleep(&second, NULL); /* the window observed, not a synchronization */
    if (wakeups(getpid(), b.tid) - wb > 6)
        return 16;
    /* B's target from a writer killed before its wake: B's own recheck. */
    __atomic_store_n(&c->value, 10, __ATOMIC_SEQ_CST);
    if (!fxt_flag_wait(&b.done, 1, 2000))
        return 17;
    if (b.result != 0 || __atomic_load_n(&a.done, __ATOMIC_ACQUIRE) != 0)
        return 18;
    if (fx_counter_store(c, 100) != 0 || pthread_join(ta, NULL) != 0 ||
        pthread_join(tb, NULL) != 0 || a.result != 0)
        return 19;
    return 0;
}

static void test_listed_sleeper_refused_futex_waitv_later_sleeps_bounded(void **state)
{
    (void)state;
    SKIP_WITHOUT_ENGINE();
    fx_counter *c = fxt_shared_alloc(sizeof *c);
    pid_t child = fxt_fork(refused_waitv_child, c);
    assert_int_equal(fxt_wait_child(child, 60000), 0);
    fxt_shared_free(c, sizeof *c);
}

/* --- a fork child's sleepers have their own prober -------------------------- */

struct family {
    fx_sem s;
    int32_t child_pid;
    pid_t parent_tids[2];
    pid_t child_tids[2];
    int32_t ready; /* 1: the parent's sleepers settled; 2: the child forked */
};

struct fam_thread {
    struct family *f;
    pid_t *tid; /* where it publishes its TID */
};

static void *family_sleeper(void *p)
{
    struct fam_thread *a = p;
    __atomic_store_n(a->tid, fxt_gettid(), __ATOMIC_RELEASE);
    return (void *)(intptr_t)fx_sem_wait(&a->f->s);
}

/* The grandchild: two sleepers of its own on the same word as its parent's
 * (whose engine, prober included, it would inherit without the
 * wipe at fork). Exit 0 once both took a token. */
static int family_child(void *p)
{
    struct family *f = p;
    struct fam_thread a[2] = {{f, &f->child_tids[0]}, {f, &f->child_tids[1]}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, family_sleeper, &a[i]) != 0)
            return 10;
    for (int i = 0; i < 2; i++) {
        void *r;
        if (pthread_join(t[i], &r) != 0 || r != NULL)
            return 11;
    }
    return 0;
}

/* The parent: two sleepers settle, then a fork from its main thread. */
static int family_parent(void *p)
{
    struct family *f = p;
    struct fam_thread a[2] = {{f, &f->parent_tids[0]}, {f, &f->parent_tids[1]}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, family_sleeper, &a[i]) != 0)
            return 20;
    /* Its sleepers settled (the test watches them): fork now. */
    while (__atomic_load_n(&f->ready, __ATOMIC_ACQUIRE) < 1)
        sched_yield();
    pid_t c = fxt_fork(family_child, f);
    __atomic_store_n(&f->child_pid, c, __ATOMIC_RELEASE);
    __atomic_store_n(&f->ready, 2, __ATOMIC_RELEASE);
    int st = fxt_wait_child(c, 30000);
    return st == 0 ? 0 : 30 + (st & 0x3f);
}

static void test_fork_child_sleepers_have_their_own_prober(void **state)
{
    (void)state;
    SKIP_WITHOUT_ENGINE();
#if FXT_UNDER_TSAN
    /* Its parent forks with sleeper threads running, and the child starts
     * threads: ThreadSanitizer does not support that (it stops the child).
     * The other builds run it. */
    printf("# ThreadSanitizer cannot start threads after a multi-threaded fork: skipped\n");
    skip();
#endif
    struct family *f = fxt_shared_alloc(sizeof *f);
    pid_t parent = fxt_fork(family_parent, f);
    assert_true(parent > 0);
    while (__atomic_load_n(&f->parent_tids[1], __ATOMIC_ACQUIRE) == 0 ||
           __atomic_load_n(&f->parent_tids[0], __ATOMIC_ACQUIRE) == 0)
        sched_yield();
    assert_true(wait_settled(f->parent_tids, 2, &f->s.value) >= 0);
    fxt_flag_set(&f->ready, 1);
    assert_true(fxt_flag_wait(&f->ready, 2, 10000));
    pid_t child = __atomic_load_n(&f->child_pid, __ATOMIC_ACQUIRE);
    assert_true(child > 0);
    while (__atomic_load_n(&f->child_tids[1], __ATOMIC_ACQUIRE) == 0 ||
           __atomic_load_n(&f->child_tids[0], __ATOMIC_ACQUIRE) == 0)
        sched_yield();
    /* The child's own: one prober, one listed (with the parent's engine
     * it would have two untimed sleepers and nobody rechecking). */
    assert_true(wait_settled(f->child_tids, 2, &f->s.value) >= 0);
    /* Only the child's recheck can now make up for a lost wake: stop the
     * parent's sleepers (the parent waits for the child in the kernel). */
    assert_int_equal(kill(parent, SIGSTOP), 0);
    /* Stopped for real before the tokens come: a parent's sleeper still
     * running (at its recheck) could take one, and a child's would then
     * wait for good. */
    int64_t stop_limit = fxt_now_ns() + 10 * 1000000000LL;
    while (!all_stopped(parent) && fxt_now_ns() < stop_limit)
        sched_yield();
    assert_true(all_stopped(parent));
    int64_t t0 = fxt_now_ns();
    post_without_wake(&f->s);
    post_without_wake(&f->s);
    int64_t limit = t0 + 10 * 1000000000LL;
    while (__atomic_load_n(&f->s.value, __ATOMIC_ACQUIRE) != 0 && fxt_now_ns() < limit)
        sched_yield();
    int64_t ms = (fxt_now_ns() - t0) / 1000000;
    printf("# the child's sleepers took the lost tokens in %lld ms\n", (long long)ms);
    assert_int_equal(__atomic_load_n(&f->s.value, __ATOMIC_ACQUIRE), 0);
    assert_true(ms < 3000);
    assert_int_equal(kill(parent, SIGCONT), 0);
    assert_int_equal(fxt_wait_child(parent, 30000), 0);
    fxt_shared_free(f, sizeof *f);
}

/* --- waiters of PROBED owners: one prober per process (src/sleep.c) ------- */

enum { PROBED_OBJECTS = 4 };

/* fx_rmutex objects that a child owns as PROBED (it refuses itself
 * get_robust_list, as under qemu-user: the kernel will not report its death;
 * only the liveness probe can). */
struct probed_box {
    fx_rmutex m[PROBED_OBJECTS];
    fx_counter held;
    fx_counter never;
};

static int probed_holder(void *p)
{
    struct probed_box *b = p;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (fxt_refuse_syscall(SYS_get_robust_list, ENOSYS, 0) != 0)
        return 13;
    for (int i = 0; i < PROBED_OBJECTS; i++)
        if (fx_rmutex_lock(&b->m[i]) != 0)
            return 10;
    fx_counter_add(&b->held, 1);
    fx_counter_wait(&b->never, 1, NULL);
    return 12;
}

struct probed_waiter {
    fx_rmutex *m;
    const struct timespec *deadline; /* NULL: fx_rmutex_lock */
    pid_t tid;
    int result;
};

/* Locks its mutex (repairing it after EOWNERDEAD) and unlocks it. */
static void *probed_waiter_run(void *p)
{
    struct probed_waiter *w = p;
    __atomic_store_n(&w->tid, fxt_gettid(), __ATOMIC_RELEASE);
    int r = w->deadline != NULL ? fx_rmutex_timedlock(w->m, w->deadline) : fx_rmutex_lock(w->m);
    if (r == EOWNERDEAD && fx_rmutex_consistent(w->m) != 0)
        r = -1;
    if ((r == 0 || r == EOWNERDEAD) && fx_rmutex_unlock(w->m) != 0)
        r = -2;
    w->result = r;
    return NULL;
}

static pthread_t probed_waiter_start(struct probed_waiter *w)
{
    pthread_t t = fxt_thread(probed_waiter_run, w);
    while (__atomic_load_n(&w->tid, __ATOMIC_ACQUIRE) == 0)
        sched_yield();
    return t;
}

/* Waits until, of the n waiters, exactly one sleeps in futex(2) on its word
 * (the prober) and the others in futex_waitv(2); the prober's index, or -1
 * after SETTLE_MS. */
static int probed_settled(struct probed_waiter *w, int n)
{
    int64_t limit = fxt_now_ns() + (int64_t)SETTLE_MS * 1000000;
    while (fxt_now_ns() < limit) {
        int prober = -1, ones = 0, twos = 0;
        for (int i = 0; i < n; i++) {
            int how = fxt_futex_sleep_how(w[i].tid, &w[i].m->owner);
            if (how == 1) {
                ones++;
                prober = i;
            }
            twos += how == 2;
        }
        if (ones == 1 && twos == n - 1)
            return prober;
        struct timespec pause = {0, 2000000}; /* polling interval only */
        nanosleep(&pause, NULL);
    }
    return -1;
}

/* The preconditions: the engine (futex_waitv, a wipe at fork), a seccomp
 * filter for the PROBED child, and zombies the probe can see dead. */
static void probed_require(void)
{
    SKIP_WITHOUT_ENGINE();
    fxt_require_seccomp();
}

static void kill_probed_holder(pid_t child)
{
    assert_int_equal(kill(child, SIGKILL), 0);
    fxt_reap_where_zombies_look_alive(child);
}

/* Many waiters of many objects: one of them looks for all, in futex(2);
 * the others sleep untimed in futex_waitv(2), and each is told when its
 * owner dies. Before the prober, each waiter rechecked on its own. */
static void test_probed_waiters_of_many_objects_share_one_prober(void **state)
{
    (void)state;
    probed_require();
    struct probed_box *b = fxt_shared_alloc(sizeof *b);
    pid_t child = fxt_fork(probed_holder, b);
    assert_int_equal(fx_counter_wait(&b->held, 1, NULL), 0);
    assert_true(fx_rmutex_owner(&b->m[0]) == child);
    struct probed_waiter w[PROBED_OBJECTS] = {{0}};
    pthread_t t[PROBED_OBJECTS];
    for (int i = 0; i < PROBED_OBJECTS; i++) {
        w[i].m = &b->m[i];
        t[i] = probed_waiter_start(&w[i]);
    }
    assert_true(probed_settled(w, PROBED_OBJECTS) >= 0);
    kill_probed_holder(child);
    for (int i = 0; i < PROBED_OBJECTS; i++) {
        assert_true(fxt_join_timed(t[i], 30000, NULL));
        assert_int_equal(w[i].result, EOWNERDEAD);
    }
    fxt_wait_child(child, 10000);
    fxt_shared_free(b, sizeof *b);
}

/* Many waiters of one object: one prober; at the owner's death one waiter
 * is told and recovers it, and the others acquire it after him. */
static void test_probed_waiters_of_one_object_share_one_prober(void **state)
{
    (void)state;
    probed_require();
    struct probed_box *b = fxt_shared_alloc(sizeof *b);
    pid_t child = fxt_fork(probed_holder, b);
    assert_int_equal(fx_counter_wait(&b->held, 1, NULL), 0);
    struct probed_waiter w[SLEEPERS] = {{0}};
    pthread_t t[SLEEPERS];
    for (int i = 0; i < SLEEPERS; i++) {
        w[i].m = &b->m[0];
        t[i] = probed_waiter_start(&w[i]);
    }
    assert_true(probed_settled(w, SLEEPERS) >= 0);
    kill_probed_holder(child);
    int dead = 0;
    for (int i = 0; i < SLEEPERS; i++) {
        assert_true(fxt_join_timed(t[i], 30000, NULL));
        assert_true(w[i].result == 0 || w[i].result == EOWNERDEAD);
        dead += w[i].result == EOWNERDEAD;
    }
    assert_int_equal(dead, 1);
    fxt_wait_child(child, 10000);
    fxt_shared_free(b, sizeof *b);
}

/* The prober's call ends (its deadline) while another waiter sleeps untimed:
 * the role passes to that waiter, which then sees the owner's death. Without
 * the hand-off it would sleep for ever. */
static void test_probe_role_passes_when_the_prober_times_out(void **state)
{
    (void)state;
    probed_require();
    struct probed_box *b = fxt_shared_alloc(sizeof *b);
    pid_t child = fxt_fork(probed_holder, b);
    assert_int_equal(fx_counter_wait(&b->held, 1, NULL), 0);
    /* The timed waiter must become the prober and the other register
     * untimed before its deadline: on a loaded machine a later try gives
     * them more time. */
    bool handed = false;
    for (int64_t patience_ms = 2000; !handed && patience_ms <= 16000; patience_ms *= 2) {
        struct timespec deadline;
        int64_t at = fxt_now_ns() + patience_ms * 1000000;
        deadline.tv_sec = (time_t)(at / 1000000000);
        deadline.tv_nsec = (long)(at % 1000000000);
        struct probed_waiter a = {.m = &b->m[0], .deadline = &deadline};
        struct probed_waiter k = {.m = &b->m[0]};
        pthread_t ta = probed_waiter_start(&a);
        /* a alone: it takes the role (it sleeps in futex(2)). */
        int64_t limit = fxt_now_ns() + (int64_t)SETTLE_MS * 1000000;
        while (fxt_futex_sleep_how(a.tid, &b->m[0].owner) != 1 && fxt_now_ns() < limit)
            sched_yield();
        pthread_t tk = probed_waiter_start(&k);
        struct probed_waiter both[2] = {a, k};
        int prober = probed_settled(both, 2);
        assert_true(fxt_join_timed(ta, 30000, NULL));
        assert_int_equal(a.result, ETIMEDOUT);
        if (prober == 0) {
            /* k now holds the role: it sleeps in futex(2). */
            struct probed_waiter one[1] = {k};
            assert_int_equal(probed_settled(one, 1), 0);
            handed = true;
            kill_probed_holder(child);
        } else {
            /* a's deadline came before k settled: k goes on waiting. */
            assert_int_equal(kill(child, SIGSTOP), 0);
        }
        if (handed) {
            assert_true(fxt_join_timed(tk, 30000, NULL));
            assert_int_equal(k.result, EOWNERDEAD);
        } else {
            /* Release k: the holder is stopped, not dead; kill it and let k
             * recover, then start over with a new holder. */
            kill_probed_holder(child);
            assert_true(fxt_join_timed(tk, 30000, NULL));
            assert_int_equal(k.result, EOWNERDEAD);
            fxt_wait_child(child, 10000);
            memset(b, 0, sizeof *b);
            child = fxt_fork(probed_holder, b);
            assert_int_equal(fx_counter_wait(&b->held, 1, NULL), 0);
        }
    }
    assert_true(handed);
    fxt_wait_child(child, 10000);
    fxt_shared_free(b, sizeof *b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_sleepers_of_one_word_are_looked_at_by_one),
        cmocka_unit_test(test_prober_cancelled_hands_the_look_on),
        cmocka_unit_test(test_listed_sleeper_cancelled_leaves_the_prober_in_place),
        cmocka_unit_test(test_look_tells_a_listed_waiter_whose_target_came),
        cmocka_unit_test(test_waiters_of_many_objects_share_one_prober),
        cmocka_unit_test(test_prober_whose_deadline_falls_on_a_tick_looks_first),
        cmocka_unit_test(test_writers_told_when_the_state_moves_under_writer_seq),
        cmocka_unit_test(test_listed_sleeper_refused_futex_waitv_later_sleeps_bounded),
        cmocka_unit_test(test_fork_child_sleepers_have_their_own_prober),
        cmocka_unit_test(test_probed_waiters_of_many_objects_share_one_prober),
        cmocka_unit_test(test_probed_waiters_of_one_object_share_one_prober),
        cmocka_unit_test(test_probe_role_passes_when_the_prober_times_out),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
