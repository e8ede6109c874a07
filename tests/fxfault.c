/* tests/fxfault.c - the deterministic fault harness (see fxfault.h). */
#define _GNU_SOURCE
#include "fxfault.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fxtest.h"

/* The armed step of this process; only touched with __atomic builtins. */
static const char *fxf_armed;
/* When not NULL, the armed step kills only once *fxf_gate is set (a flag in
 * shared memory, set by another process); set before fxf_armed. */
static const int32_t *fxf_gate;

/* The counted step of this process and how often it was reached since
 * fxf_count_at; only touched with __atomic builtins. */
static const char *fxf_counting;
static long fxf_hits;
/* The thread whose points are counted, or 0 for every thread, and the
 * time (fxt_now_ns) before which points are not counted; set before
 * fxf_counting. */
static pid_t fxf_counting_tid;
static int64_t fxf_count_from_ns;

/* The library's weak reference (src/internal/fault.h) resolves to this. */
void fxi_fault_point(const char *step);
void fxi_fault_point(const char *step)
{
    /* Acquire: pairs with fxf_count_at's release (the zeroed count). The
     * count is seq_cst: the step comes before what its thread does next, so
     * a test that saw that sees the count. */
    const char *counting = __atomic_load_n(&fxf_counting, __ATOMIC_ACQUIRE);
    if (counting != NULL && strcmp(counting, step) == 0) {
        pid_t only = __atomic_load_n(&fxf_counting_tid, __ATOMIC_RELAXED);
        if ((only == 0 || only == fxt_gettid()) &&
            fxt_now_ns() >= __atomic_load_n(&fxf_count_from_ns, __ATOMIC_RELAXED))
            __atomic_fetch_add(&fxf_hits, 1, __ATOMIC_SEQ_CST);
    }
    /* Acquire: pairs with the release of fxf_kill_at in another thread (and
     * so makes fxf_gate, stored before it, visible). */
    const char *armed = __atomic_load_n(&fxf_armed, __ATOMIC_ACQUIRE);
    if (armed == NULL || strcmp(armed, step) != 0)
        return;
    /* Acquire: pairs with the releaser's release store of the gate flag. */
    if (fxf_gate == NULL || __atomic_load_n(fxf_gate, __ATOMIC_ACQUIRE) != 0)
        kill(getpid(), SIGKILL);
}

void fxf_kill_at(const char *step)
{
    __atomic_store_n(&fxf_armed, step, __ATOMIC_RELEASE);
}

void fxf_count_at(const char *step)
{
    fxf_count_where(step, 0, 0);
}

void fxf_count_at_thread(const char *step, pid_t tid)
{
    fxf_count_where(step, tid, 0);
}

void fxf_count_from(const char *step, int64_t from_ns)
{
    fxf_count_where(step, 0, from_ns);
}

void fxf_count_where(const char *step, pid_t tid, int64_t from_ns)
{
    __atomic_store_n(&fxf_counting, NULL, __ATOMIC_RELEASE);
    /* Relaxed: ordered before fxf_counting's release below. */
    __atomic_store_n(&fxf_counting_tid, tid, __ATOMIC_RELAXED);
    __atomic_store_n(&fxf_count_from_ns, from_ns, __ATOMIC_RELAXED);
    __atomic_store_n(&fxf_hits, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fxf_counting, step, __ATOMIC_RELEASE);
}

long fxf_counted(void)
{
    return __atomic_load_n(&fxf_hits, __ATOMIC_SEQ_CST);
}

int fxf_first_cpu(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            return c;
    return -1;
}

int fxf_pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : errno;
}

int fxf_sched_idle(void)
{
    struct sched_param p;
    memset(&p, 0, sizeof p);
    return sched_setscheduler(0, SCHED_IDLE, &p) == 0 ? 0 : errno;
}

/* What the harness shares with its children (MAP_SHARED). */
struct fxf_ctl {
    int32_t ready;      /* the releaser has prepared */
    int32_t go;         /* the parent lets the releaser release */
    int32_t victim;     /* the victim's pid, for the releaser's SIGKILL */
    int32_t released;   /* the releaser is about to release (fxf_victim.step's gate) */
    int64_t released_at;
    int64_t done_at[FXF_MAX_BYSTANDERS];
};

/* The schedule and control block of the current run; children inherit them. */
static const struct fxf_schedule *fxf_cur;
static const struct fxf_victim *fxf_cur_victim;
static struct fxf_ctl *fxf_ctl;
static const char *fxf_cur_step;
static int fxf_cur_cpu;

enum { FXF_HANDSHAKE_MS = 30000 };

/* Exit codes of the harness's own steps in the children (above the test's). */
enum { FXF_PIN = 200, FXF_IDLE, FXF_PREPARE, FXF_GO };

static int fxf_releaser(void *unused)
{
    (void)unused;
    if (fxf_cur_cpu >= 0 && fxf_pin(fxf_cur_cpu) != 0)
        return FXF_PIN;
    if (fxf_cur->prepare != NULL && fxf_cur->prepare(fxf_cur->arg) != 0)
        return FXF_PREPARE;
    fxt_flag_set(&fxf_ctl->ready, 1);
    if (!fxt_flag_wait(&fxf_ctl->go, 1, FXF_HANDSHAKE_MS))
        return FXF_GO;
    if (fxf_cur_step != NULL)
        fxf_kill_at(fxf_cur_step);
    fxf_ctl->released_at = fxt_now_ns();
    /* Release: pairs with the acquire load of the gate in fxi_fault_point. */
    __atomic_store_n(&fxf_ctl->released, 1, __ATOMIC_RELEASE);
    int r = fxf_cur->release(fxf_cur->arg);
    /* At once, with no blocking call in between: the victim was woken onto
     * this CPU and, at SCHED_IDLE, has not run since. */
    pid_t victim = (pid_t)__atomic_load_n(&fxf_ctl->victim, __ATOMIC_ACQUIRE);
    if (victim > 0)
        kill(victim, SIGKILL);
    return r;
}

static int fxf_victim(void *unused)
{
    (void)unused;
    if (fxf_pin(fxf_cur_cpu) != 0)
        return FXF_PIN;
    if (fxf_sched_idle() != 0)
        return FXF_IDLE;
    if (fxf_cur_victim->step != NULL) {
        fxf_gate = &fxf_ctl->released;
        fxf_kill_at(fxf_cur_victim->step);
    }
    return fxf_cur_victim->block(fxf_cur->arg);
}

static int fxf_bystander(void *index)
{
    int r = fxf_cur->block(fxf_cur->arg);
    fxf_ctl->done_at[(intptr_t)index] = fxt_now_ns();
    return r;
}

/* Both runs: the releaser prepared, the victim (if any) and the bystanders
 * asleep on the word in that order, then the release. */
static void fxf_run(const struct fxf_schedule *s, const struct fxf_victim *v, const char *step,
                    int timeout_ms, struct fxf_result *out)
{
    bool with_victim = v != NULL;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < FXF_MAX_BYSTANDERS; i++)
        out->bystander[i] = -2;
    out->victim = -2;
    fxf_cur = s;
    fxf_cur_victim = v;
    fxf_cur_step = step;
    fxf_ctl = fxt_shared_alloc(sizeof *fxf_ctl);
    fxf_cur_cpu = with_victim ? fxf_first_cpu() : -1;
    if (with_victim && fxf_cur_cpu < 0) {
        out->setup = 1;
        return;
    }
    pid_t rel = fxt_fork(fxf_releaser, NULL);
    if (!fxt_flag_wait(&fxf_ctl->ready, 1, FXF_HANDSHAKE_MS)) {
        out->setup = 2;
        out->releaser = fxt_wait_child(rel, 1);
        return;
    }
    pid_t vic = -1;
    if (with_victim) {
        vic = fxt_fork(fxf_victim, NULL);
        if (!fxt_wait_asleep(vic, v->word, FXF_HANDSHAKE_MS))
            out->setup = 3;
        __atomic_store_n(&fxf_ctl->victim, (int32_t)vic, __ATOMIC_RELEASE);
    }
    pid_t by[FXF_MAX_BYSTANDERS];
    int n = s->bystanders < 1 ? 1 : s->bystanders > FXF_MAX_BYSTANDERS ? FXF_MAX_BYSTANDERS
                                                                       : s->bystanders;
    for (int i = 0; i < n; i++) {
        by[i] = fxt_fork(fxf_bystander, (void *)(intptr_t)i);
        if (!fxt_wait_asleep(by[i], s->word, FXF_HANDSHAKE_MS) && out->setup == 0)
            out->setup = 4;
    }
    /* The victim re-reads its word at its rechecks: it must sleep again. */
    if (with_victim && !fxt_wait_asleep(vic, v->word, FXF_HANDSHAKE_MS) && out->setup == 0)
        out->setup = 5;
    fxt_flag_set(&fxf_ctl->go, 1);
    out->releaser = fxt_wait_child(rel, FXF_HANDSHAKE_MS);
    if (with_victim)
        out->victim = fxt_wait_child(vic, FXF_HANDSHAKE_MS);
    int64_t last = 0;
    for (int i = 0; i < n; i++) {
        out->bystander[i] = fxt_wait_child(by[i], timeout_ms);
        if (fxf_ctl->done_at[i] > last)
            last = fxf_ctl->done_at[i];
    }
    out->recovery_ns = last - fxf_ctl->released_at;
    fxt_shared_free(fxf_ctl, sizeof *fxf_ctl);
    fxf_ctl = NULL;
}

void fxf_run_wake_window(const struct fxf_schedule *s, int timeout_ms, struct fxf_result *out)
{
    struct fxf_victim v = {s->block, s->word, NULL};
    fxf_run(s, &v, NULL, timeout_ms, out);
}

void fxf_run_victim_wake_window(const struct fxf_schedule *s, const struct fxf_victim *v,
                                int timeout_ms, struct fxf_result *out)
{
    fxf_run(s, v, NULL, timeout_ms, out);
}

void fxf_run_notifier_death(const struct fxf_schedule *s, const char *step, int timeout_ms,
                            struct fxf_result *out)
{
    fxf_run(s, NULL, step, timeout_ms, out);
}
