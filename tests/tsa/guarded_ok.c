/* Accepted by clang -Wthread-safety -Werror: every access to the guarded
 * data holds its lock, taken by each kind of acquire. */
#include <errno.h>
#include <futexsync.h>

static fx_mutex m = FX_MUTEX_INIT;
static int x FX_GUARDED_BY(m);
static fx_rwlock l = FX_RWLOCK_INIT;
static int y FX_GUARDED_BY(l);
static fx_rmutex r = FX_RMUTEX_INIT;
static int z FX_GUARDED_BY(r);

static void add_locked(int d) FX_REQUIRES(&m)
{
    x += d;
}

int main(void)
{
    int sum = 0;
    fx_mutex_lock(&m); /* fails only for a bad m (EINVAL) */
    add_locked(1);
    fx_mutex_unlock(&m);
    if (fx_mutex_trylock(&m) == 0) {
        x++;
        fx_mutex_unlock(&m);
    }
    if (!fx_mutex_trylock(&m)) {
        x++;
        fx_mutex_unlock(&m);
    }
    int t = fx_mutex_timedlock(&m, NULL);
    if (t == 0) {
        x++;
        fx_mutex_unlock(&m);
    }
    if (fx_rwlock_rdlock(&l) == 0) {
        sum += y;
        fx_rwlock_rdunlock(&l);
    }
    fx_rwlock_wrlock(&l);
    y = 1;
    fx_rwlock_wrunlock(&l);
    if (fx_rmutex_lock(&r) == EOWNERDEAD) /* held after 0 and EOWNERDEAD */
        fx_rmutex_consistent(&r);
    z++;
    fx_rmutex_unlock(&r);
    fx_mutex_lock(&m);
    sum += x;
    fx_mutex_unlock(&m);
    if (fx_rwlock_tryrdlock(&l) != 0)
        return 1;
    sum += y;
    fx_rwlock_unlock(&l);
    return sum == 0;
}
