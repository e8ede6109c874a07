/* Rejected by clang -Wthread-safety -Werror: the try-lock's success value is
 * 0, so x is written on the branch where fx_mutex_trylock failed (EBUSY). */
#include <futexsync.h>

static fx_mutex m = FX_MUTEX_INIT;
static int x FX_GUARDED_BY(m);

int main(void)
{
    int r = fx_mutex_trylock(&m);
    if (r != 0) {
        x++; /* the wrong branch */
        return 1;
    }
    x++;
    fx_mutex_unlock(&m);
    return 0;
}
