/* Rejected by clang -Wthread-safety -Werror: x is written without m. */
#include <futexsync.h>

static fx_mutex m = FX_MUTEX_INIT;
static int x FX_GUARDED_BY(m);

int main(void)
{
    x++; /* the missing fx_mutex_lock */
    if (fx_mutex_trylock(&m) != 0)
        return 0;
    x++;
    fx_mutex_unlock(&m);
    return 0;
}
