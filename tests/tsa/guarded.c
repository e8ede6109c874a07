/* Clang's thread-safety analysis over the C annotations (tests/tsa/check.sh).
 * As written, this program guards its data with every futexsync lock type
 * and waits on condition variables, and compiles clean under
 * -Wthread-safety -Werror. Each SEED_<name> block is one mistake: compiled
 * with -DSEED_<name>, the analysis must reject the line marked @SEED_<name>. */
#include <errno.h>
#include <stddef.h>
#include <futexsync.h>

static fx_mutex m = FX_MUTEX_INIT;
static fx_cond c = FX_COND_INIT;
static int ready FX_GUARDED_BY(m);
static int x FX_GUARDED_BY(m);
static fx_rwlock l = FX_RWLOCK_INIT;
static int y FX_GUARDED_BY(l);
static fx_rmutex r = FX_RMUTEX_INIT;
static fx_cond rc = FX_COND_INIT;
static int z FX_GUARDED_BY(r);

/* A struct whose members a member lock guards: C cannot name m in a member's
 * attribute (FX_MEMBER_GUARDED_BY documents it), so the functions that touch
 * them require it. */
struct account {
    fx_mutex m;
    long balance FX_MEMBER_GUARDED_BY(m);
};

static void deposit_locked(struct account *a, long v) FX_REQUIRES(&a->m)
{
    a->balance += v;
}

static void add_locked(int d) FX_REQUIRES(&m)
{
    x += d;
}

static int mutex_and_cond(void)
{
    int sum = 0;
    fx_mutex_lock(&m); /* fails only for a bad m (EINVAL) */
    add_locked(1);
    while (!ready)
        if (fx_cond_wait(&c, &m) != 0)
            break;
    fx_mutex_unlock(&m);
#ifdef SEED_unlocked_write
    x++; /* @SEED_unlocked_write */
#endif
#ifdef SEED_cond_wait_unlocked
    (void)fx_cond_wait(&c, &m); /* @SEED_cond_wait_unlocked */
#endif
#ifdef SEED_call_requires_unlocked
    add_locked(2); /* @SEED_call_requires_unlocked */
#endif
    if (fx_mutex_trylock(&m) == 0) {
        x++;
        fx_mutex_unlock(&m);
    }
    int t = fx_mutex_trylock(&m);
    if (t != 0) {
#ifdef SEED_trylock_wrong_branch
        x++; /* @SEED_trylock_wrong_branch */
#endif
        return sum;
    }
    sum += x;
    fx_mutex_unlock(&m);
#ifdef SEED_unlock_twice
    fx_mutex_unlock(&m); /* @SEED_unlock_twice */
#endif
    struct timespec d = fx_deadline_in(1000000);
    fx_mutex_lock(&m);
    if (fx_cond_timedwait(&c, &m, &d) == ETIMEDOUT)
        x = 0;
    fx_mutex_unlock(&m);
    return sum;
}

static int rwlock(void)
{
    int sum = 0;
    if (fx_rwlock_rdlock(&l) == 0) {
        sum += y;
#ifdef SEED_write_under_read_lock
        y = 2; /* @SEED_write_under_read_lock */
#endif
        fx_rwlock_rdunlock(&l);
    }
    fx_rwlock_wrlock(&l);
    y = 1;
    fx_rwlock_wrunlock(&l);
#ifdef SEED_read_after_unlock
    sum += y; /* @SEED_read_after_unlock */
#endif
    if (fx_rwlock_tryrdlock(&l) != 0)
        return sum;
    sum += y;
    fx_rwlock_unlock(&l);
    return sum;
}

static int rmutex(void)
{
    int e = fx_rmutex_lock(&r); /* held after 0 and EOWNERDEAD */
    if (e == EOWNERDEAD) {
        z = 0; /* the repair */
        fx_rmutex_consistent(&r);
    }
    z++;
    while (z < 0)
        if (fx_cond_wait_rmutex(&rc, &r) != 0)
            break;
    fx_rmutex_unlock(&r);
#ifdef SEED_rmutex_write_after_unlock
    z++; /* @SEED_rmutex_write_after_unlock */
#endif
#ifdef SEED_consistent_unlocked
    fx_rmutex_consistent(&r); /* @SEED_consistent_unlocked */
#endif
#ifdef SEED_rmutex_cond_wait_unlocked
    (void)fx_cond_wait_rmutex(&rc, &r); /* @SEED_rmutex_cond_wait_unlocked */
#endif
    return 0;
}

static void account(struct account *a)
{
    fx_mutex_lock(&a->m);
    deposit_locked(a, 5);
    fx_mutex_unlock(&a->m);
#ifdef SEED_member_function_unlocked
    deposit_locked(a, 5); /* @SEED_member_function_unlocked */
#endif
}

int main(void)
{
    static struct account a;
    account(&a);
    return mutex_and_cond() + rwlock() + rmutex();
}
