/*
 * src/version.c - the runtime version of the library (futexsync/version.h).
 */
#include "futexsync/version.h"

#define FX_STR2(x) #x
#define FX_STR(x) FX_STR2(x)

int fx_version(void)
{
    return FUTEXSYNC_VERSION;
}

const char *fx_version_string(void)
{
    return FX_STR(FUTEXSYNC_VERSION_MAJOR) "." FX_STR(FUTEXSYNC_VERSION_MINOR) "." FX_STR(
        FUTEXSYNC_VERSION_PATCH);
}

int fx_layout_version(void)
{
    return FUTEXSYNC_LAYOUT;
}
