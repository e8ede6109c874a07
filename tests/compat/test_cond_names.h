/*
 * tests/compat/test_cond_names.h - what test_cond.c needs since the slot
 * encodings moved to <futexsync/layout.h> and the owner-death check periods
 * became internal (src/internal/probe_periods.h), until test_cond.c, which
 * another branch rewrites, includes them itself. tests/CMakeLists.txt
 * force-includes this file into test_cond.c alone (-include); delete both
 * with that rewrite.
 */
#ifndef FXT_COMPAT_TEST_COND_NAMES_H
#define FXT_COMPAT_TEST_COND_NAMES_H

/* test_cond.c's own first line, before any system header (identical, so its
 * redefinition there is allowed). */
#define _GNU_SOURCE

#include <futexsync/layout.h>

#include "../../src/internal/probe_periods.h"

/* The periods' former public names, as test_cond.c spells them. */
#define FX_RMUTEX_RECHECK_MS      FXI_RMUTEX_RECHECK_MS
#define FX_RMUTEX_LONG_AFTER_MS   FXI_RMUTEX_LONG_AFTER_MS
#define FX_RMUTEX_LONG_RECHECK_MS FXI_RMUTEX_LONG_RECHECK_MS

#endif /* FXT_COMPAT_TEST_COND_NAMES_H */
