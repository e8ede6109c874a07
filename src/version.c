/*
 * src/version.c - the runtime version of the library (futexsync/version.h).
 */
#include "futexsync/version.h"
#include "futexsync/layout.h"

#define FXI_STR2(x) #x
#define FXI_STR(x) FXI_STR2(x)

int fx_version(void)
{
    return FUTEXSYNC_VERSION;
}

const char *fx_version_string(void)
{
    return FXI_STR(FUTEXSYNC_VERSION_MAJOR) "." FXI_STR(FUTEXSYNC_VERSION_MINOR) "." FXI_STR(
        FUTEXSYNC_VERSION_PATCH);
}

int fx_layout_version(void)
{
    return FUTEXSYNC_LAYOUT;
}
