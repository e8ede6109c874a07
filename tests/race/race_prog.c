/*
 * tests/race/race_prog.c - the program the race-detector tests run.
 *
 *   race_prog racy        two threads add to a shared int; one holds an
 *                         fx_mutex, the other forgets it: a data race
 *   race_prog locked      both hold the fx_mutex (lock/unlock): no race
 *   race_prog try         both take it with trylock or timedlock: no race
 *   race_prog inversion   one thread takes m1 then m2, a later one m2 then
 *                         m1: a lock-order inversion (no actual deadlock:
 *                         the threads run one after the other)
 *   race_prog ordered     both take m1 then m2: no inversion
 *   race_prog KIND-racy   as racy and locked, with another primitive as the
 *   race_prog KIND-locked lock: KIND is rmutex (taken twice: re-entry),
 *                         rwlock (one thread writes under wrlock, the other
 *                         reads under rdlock, or without it when racy) or
 *                         sem (a binary fx_sem: wait, then post);
 *                         or as the order between the threads: cond (they
 *                         take turns through an fx_cond and an fx_mutex;
 *                         racy: one forgets both), barrier (they add in
 *                         alternate phases of an fx_barrier; racy: without
 *                         it), once (each round's fx_once initialiser sets
 *                         a value, both threads read it after fx_once_call;
 *                         racy: one reads without calling it), counter (one
 *                         thread sets a value, then adds 1; the other waits
 *                         for the count, then reads it, then acknowledges;
 *                         racy: it reads before waiting)
 *
 * Built against the library (tests/race/CMakeLists.txt): its TSan build,
 * or the default one with -fsanitize=thread, or plain for Helgrind and DRD. The
 * detector, not this program, judges: it prints the total and exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <futexsync/barrier.h>
#include <futexsync/cond.h>
#include <futexsync/counter.h>
#include <futexsync/mutex.h>
#include <futexsync/once.h>
#include <futexsync/rmutex.h>
#include <futexsync/rwlock.h>
#include <futexsync/sem.h>
#include <futexsync/time.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 20000

static fx_mutex m1, m2;
static int shared; /* protected by m1 (unless the variant forgets it) */
static int variant_try;

static void take(fx_mutex *m, int i)
{
    if (!variant_try) {
        fx_mutex_lock(m);
    } else if (i & 1) {
        while (fx_mutex_trylock(m) == EBUSY)
            ;
    } else {
        struct timespec d = fx_deadline_in(FX_NSEC_PER_MSEC);
        while (fx_mutex_timedlock(m, &d) == ETIMEDOUT)
            d = fx_deadline_in(FX_NSEC_PER_MSEC);
    }
}

static void *adder(void *arg)
{
    int locked = *(int *)arg;
    for (int i = 0; i < ROUNDS; i++) {
        if (locked)
            take(&m1, i);
        shared++;
        if (locked)
            fx_mutex_unlock(&m1);
    }
    return NULL;
}

/* The other primitives, in race_prog KIND-racy / KIND-locked. */
enum kind { K_RMUTEX, K_RWLOCK, K_SEM, K_COND, K_BARRIER, K_ONCE, K_COUNTER, K_KINDS };
static const char *const kind_names[K_KINDS] = {"rmutex", "rwlock", "sem",    "cond",
                                                "barrier", "once",  "counter"};
static fx_rmutex rm;
static fx_rwlock rw;
static fx_sem sem = FX_SEM_INIT(1);
static volatile int sink;

/* The ordering primitives hand over at every step (a sleep and a wake under
 * valgrind): fewer rounds. */
#define ORDER_ROUNDS 2000
static fx_cond cv;
static int turn; /* whose turn it is, under m1 */
static fx_barrier bar;
static fx_once flags[ORDER_ROUNDS];
static int values[ORDER_ROUNDS]; /* once, counter: the value of round i */
static fx_counter count, ack; /* rounds published, rounds read */
static int synced; /* 0 in the racy variants of cond, barrier and once */

static void set_value(void *arg)
{
    values[(intptr_t)arg] = 1;
}

/* Thread w (0 or 1) of the cond, barrier and once variants. */
static void order(enum kind kind, int w)
{
    int seen = 0; /* once: values read after fx_once_call */
    for (int i = 0; i < ORDER_ROUNDS; i++) {
        switch (kind) {
        case K_COND:
            if (!synced) {
                if (w == 1) { /* the racy variant: thread 0 forgets everything */
                    fx_mutex_lock(&m1);
                    shared++;
                    fx_mutex_unlock(&m1);
                } else {
                    shared++;
                }
                break;
            }
            fx_mutex_lock(&m1);
            while (turn != w)
                fx_cond_wait(&cv, &m1);
            shared++;
            turn = 1 - w;
            fx_cond_signal(&cv);
            fx_mutex_unlock(&m1);
            break;
        case K_BARRIER:
            if (i % 2 == w)
                shared++;
            if (synced)
                fx_barrier_wait(&bar, 2);
            break;
        case K_ONCE:
            if (synced || w == 1)
                if (fx_once_call(&flags[i], set_value, (void *)(intptr_t)i) != 0)
                    return; /* EINVAL/EDEADLK: cannot happen with these flags */
            seen += values[i];
            break;
        default: /* K_COUNTER */
            /* Lock step (the counters wait for equality): thread 1
             * publishes round i and waits until thread 0 has read it. */
            if (w == 1) {
                values[i] = 1;
                fx_counter_add(&count, 1);
                fx_counter_wait(&ack, i + 1, NULL);
            } else {
                if (!synced)
                    seen += values[i]; /* racy: before the count says so */
                fx_counter_wait(&count, i + 1, NULL);
                if (synced)
                    seen += values[i];
                fx_counter_add(&ack, 1);
            }
            break;
        }
    }
    if ((kind == K_ONCE || kind == K_COUNTER) && w == 0)
        shared = seen; /* every round's value, seen after its once or count */
}

static void *order_thread(void *arg)
{
    order((enum kind)(intptr_t)arg, 1);
    return NULL;
}

struct user {
    enum kind kind;
    int locked; /* takes the lock (the racy variant's main thread does not) */
    int writer; /* rwlock: writes under wrlock, else reads under rdlock */
};

static void *user(void *arg)
{
    const struct user *u = arg;
    for (int i = 0; i < ROUNDS; i++) {
        if (u->locked) {
            switch (u->kind) {
            case K_RMUTEX:
                if (fx_rmutex_lock(&rm) != 0 || fx_rmutex_lock(&rm) != 0)
                    return NULL;
                break;
            case K_RWLOCK:
                u->writer ? fx_rwlock_wrlock(&rw) : fx_rwlock_rdlock(&rw);
                break;
            case K_SEM:
                fx_sem_wait(&sem);
                break;
            default: /* the ordering kinds run order() */
                break;
            }
        }
        if (u->kind == K_RWLOCK && !u->writer)
            sink = shared;
        else
            shared++;
        if (u->locked) {
            switch (u->kind) {
            case K_RMUTEX:
                fx_rmutex_unlock(&rm);
                fx_rmutex_unlock(&rm);
                break;
            case K_RWLOCK:
                fx_rwlock_unlock(&rw);
                break;
            case K_SEM:
                fx_sem_post(&sem);
                break;
            default:
                break;
            }
        }
    }
    return NULL;
}

static void *one_two(void *arg)
{
    (void)arg;
    fx_mutex_lock(&m1);
    fx_mutex_lock(&m2);
    shared++;
    fx_mutex_unlock(&m2);
    fx_mutex_unlock(&m1);
    return NULL;
}

static void *two_one(void *arg)
{
    (void)arg;
    fx_mutex_lock(&m2);
    fx_mutex_lock(&m1);
    shared++;
    fx_mutex_unlock(&m1);
    fx_mutex_unlock(&m2);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *v = argc > 1 ? argv[1] : "";
    pthread_t t;
    if (strcmp(v, "racy") == 0 || strcmp(v, "locked") == 0 || strcmp(v, "try") == 0) {
        int with_lock = 1, main_lock = strcmp(v, "racy") != 0;
        variant_try = strcmp(v, "try") == 0;
        pthread_create(&t, NULL, adder, &with_lock);
        adder(&main_lock); /* the racy variant forgets the lock here */
        pthread_join(t, NULL);
    } else if (strcmp(v, "inversion") == 0 || strcmp(v, "ordered") == 0) {
        pthread_create(&t, NULL, one_two, NULL);
        pthread_join(t, NULL);
        pthread_create(&t, NULL, strcmp(v, "inversion") == 0 ? two_one : one_two, NULL);
        pthread_join(t, NULL);
    } else {
        const char *dash = strchr(v, '-');
        size_t k = 0, len = dash ? (size_t)(dash - v) : 0;
        while (k < K_KINDS &&
               !(strlen(kind_names[k]) == len && strncmp(v, kind_names[k], len) == 0))
            k++;
        if (k == K_KINDS ||
            (strcmp(dash + 1, "racy") != 0 && strcmp(dash + 1, "locked") != 0)) {
            fprintf(stderr, "usage: race_prog racy|locked|try|inversion|ordered|"
                            "{rmutex,rwlock,sem,cond,barrier,once,counter}-{racy,locked}\n");
            return 2;
        }
        int locked = strcmp(dash + 1, "locked") == 0;
        if (k >= K_COND) {
            synced = locked;
            pthread_create(&t, NULL, order_thread, (void *)(intptr_t)k);
            order((enum kind)k, 0);
            pthread_join(t, NULL);
        } else {
            struct user other = {(enum kind)k, 1, 1};
            struct user self = {(enum kind)k, locked, 0};
            pthread_create(&t, NULL, user, &other);
            user(&self); /* the racy variant forgets the lock here */
            pthread_join(t, NULL);
        }
    }
    printf("shared = %d\n", shared);
    return 0;
}
