/* docs/man/version.c - the EXAMPLE of the version pages: the header a
 * program was built with against the library it runs with. */
#include <futexsync.h>
#include <futexsync/layout.h>
#include <stdio.h>

int main(void)
{
    printf("built with %d.%d.%d, running %s\n", FUTEXSYNC_VERSION_MAJOR,
           FUTEXSYNC_VERSION_MINOR, FUTEXSYNC_VERSION_PATCH, fx_version_string());
    if (fx_layout_version() != FUTEXSYNC_LAYOUT) {
        fprintf(stderr, "objects laid out differently: do not share memory\n");
        return 1;
    }
    return fx_version() / 10000 == FUTEXSYNC_VERSION_MAJOR ? 0 : 1;
}
