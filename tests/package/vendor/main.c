/* The parent project's program: uses the vendored futexsync. */
#include <futexsync.h>
#include <stdio.h>

int main(void)
{
    static fx_mutex m = FX_MUTEX_INIT;
    if (fx_mutex_lock(&m) != 0 || fx_mutex_unlock(&m) != 0)
        return 1;
    printf("vendor_app: futexsync %s\n", fx_version_string());
    return fx_version() == FUTEXSYNC_VERSION ? 0 : 1;
}
