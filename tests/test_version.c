/*
 * tests/test_version.c - the runtime version calls agree with the macros of
 * futexsync/version.h, which is where CMake and pkg-config take the version
 * from too.
 */
#define _GNU_SOURCE
#include "fxtest.h"

#include <futexsync.h>
#include <futexsync/layout.h>
#include <stdio.h>
#include <string.h>

static void version_matches_the_header_macros(void **state)
{
    (void)state;
    assert_int_equal(fx_version(), FUTEXSYNC_VERSION);
    assert_int_equal(FUTEXSYNC_VERSION, FUTEXSYNC_VERSION_MAJOR * 10000 +
                                            FUTEXSYNC_VERSION_MINOR * 100 + FUTEXSYNC_VERSION_PATCH);
}

static void version_string_is_major_minor_patch(void **state)
{
    (void)state;
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", FUTEXSYNC_VERSION_MAJOR, FUTEXSYNC_VERSION_MINOR,
             FUTEXSYNC_VERSION_PATCH);
    assert_string_equal(fx_version_string(), want);
    /* A static string: the same pointer every time. */
    assert_ptr_equal(fx_version_string(), fx_version_string());
}

static void layout_version_matches_the_header(void **state)
{
    (void)state;
    assert_int_equal(fx_layout_version(), FUTEXSYNC_LAYOUT);
    assert_true(FUTEXSYNC_LAYOUT >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_matches_the_header_macros),
        cmocka_unit_test(version_string_is_major_minor_patch),
        cmocka_unit_test(layout_version_matches_the_header),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
