/*
 * tests/test_layout.c - the golden table of every public slot encoding.
 *
 * Programs built separately share objects when their FUTEXSYNC_LAYOUT is
 * equal, so an encoding may change only together with that number. Both live
 * in futexsync/layout.h (the struct geometry and the documented limits in
 * the primitives' headers). The table below spells each encoding as a
 * literal: a header change fails `slot_encodings_match_the_golden_table`. Whoever changes an
 * encoding updates the table, and then `golden_table_is_the_one_of_its_layout`
 * fails until FUTEXSYNC_LAYOUT is bumped and the new table's digest recorded
 * beside it (and CHANGELOG.md says what changed): an unbumped change cannot
 * pass CI.
 */
#include "fxtest.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <futexsync.h>
#include <futexsync/layout.h>

struct golden {
    const char *name;
    long long header; /* the value the headers give now */
    long long want;   /* the literal of this layout */
};

#define LP64 (sizeof(void *) == 8)
#define ROW(macro, literal) {#macro, (long long)(macro), (long long)(literal)}

static const struct golden table[] = {
    /* fx_mutex */
    ROW(sizeof(fx_mutex), 4),
    ROW(FX_MUTEX_UNLOCKED, 0),
    ROW(FX_MUTEX_LOCKED, 1),
    ROW(FX_MUTEX_CONTENDED, 2),
    /* fx_rmutex */
    ROW(sizeof(fx_rmutex), LP64 ? 40 : 24),
    ROW(_Alignof(fx_rmutex), sizeof(void *)),
    ROW(offsetof(fx_rmutex, owner), 0),
    ROW(offsetof(fx_rmutex, depth), 4),
    ROW(offsetof(fx_rmutex, link[FX_RMUTEX_LINKS - 1]), LP64 ? 32 : 20),
    ROW(FX_RMUTEX_TID_MAX, 0x003fffff),
    ROW((uint32_t)FX_RMUTEX_WAITERS, 0x80000000u),
    ROW(FX_RMUTEX_ORPHANED, 0x40000000),
    ROW(FX_RMUTEX_NOTRECOVERABLE, 0x20000000),
    ROW(FX_RMUTEX_LOCALNS, 0x10000000),
    ROW(FX_RMUTEX_PROBED, 0x08000000),
    ROW(FX_RMUTEX_DEPTH_MASK, 0x3fffffff),
    ROW(FX_RMUTEX_INCONSISTENT, 0x40000000),
    /* fx_once */
    ROW(sizeof(fx_once), LP64 ? 40 : 24),
    ROW(_Alignof(fx_once), sizeof(void *)),
    ROW(offsetof(fx_once, link[FX_ONCE_LINKS - 1]), LP64 ? 32 : 20),
    ROW(FX_ONCE_NOT_RUN, 0),
    ROW((uint32_t)FX_ONCE_DONE, 0x80000000u),
    ROW(FX_ONCE_RUNNING, 0x40000000),
    ROW((uint32_t)FX_ONCE_WAITERS, 0x80000000u),
    ROW(FX_ONCE_TID_MASK, 0x003fffff),
    ROW(FX_ONCE_LOCALNS, 0x10000000),
    ROW(FX_ONCE_PROBED, 0x08000000),
    /* fx_cond, fx_barrier, fx_rwlock, fx_sem, fx_counter */
    ROW(sizeof(fx_cond), 16),
    ROW(FX_COND_ARMED, 0x1),
    ROW(FX_COND_BCAST, 0x2),
    ROW(sizeof(fx_barrier), 8),
    ROW(FX_BARRIER_SLEEPERS, 0x8000),
    ROW(FX_BARRIER_MAX_PARTIES, 0x7fff),
    ROW(sizeof(fx_rwlock), 8),
    ROW(FX_RWLOCK_MAX_READERS, 0x400000),
    ROW(FX_RWLOCK_WRITE_LOCKED, 0x800000),
    ROW(FX_RWLOCK_WRITER_PENDING, 0x20000000),
    ROW(FX_RWLOCK_READERS_WAITING, 0x40000000),
    ROW((uint32_t)FX_RWLOCK_WRITERS_WAITING, 0x80000000u),
    ROW(sizeof(fx_sem), 8),
    ROW(FX_SEM_VALUE_MAX, 0x3fffffff),
    ROW(sizeof(fx_counter), 8),
};

/* The layouts and the digests of their golden tables (FNV-1a of the
 * "name=literal;" rows). Append; never edit a line of a released layout
 * (layout 2 is unreleased until 2.0.0: fx_once joined it). */
static const struct {
    int layout;
    uint64_t digest64; /* on 64-bit targets */
    uint64_t digest32; /* on 32-bit targets */
} recorded[] = {
    {2, 0x58ff6b69d1e01f03u, 0xdc4775cd8200525bu},
};

static uint64_t digest(void)
{
    uint64_t h = 0xcbf29ce484222325u;
    char row[160];
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int n = snprintf(row, sizeof row, "%s=%lld;", table[i].name, table[i].want);
        for (int k = 0; k < n; k++)
            h = (h ^ (unsigned char)row[k]) * 0x100000001b3u;
    }
    return h;
}

static void slot_encodings_match_the_golden_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (table[i].header != table[i].want)
            fail_msg("%s is %lld in the headers, %lld in layout %d's table", table[i].name,
                     table[i].header, table[i].want, FUTEXSYNC_LAYOUT);
    }
}

static void golden_table_is_the_one_of_its_layout(void **state)
{
    (void)state;
    uint64_t d = digest();
    for (size_t i = 0; i < sizeof recorded / sizeof recorded[0]; i++) {
        if (recorded[i].layout != FUTEXSYNC_LAYOUT)
            continue;
        uint64_t want = LP64 ? recorded[i].digest64 : recorded[i].digest32;
        if (d != want)
            fail_msg("the golden table changed (digest 0x%016llx, recorded 0x%016llx) without "
                     "a new FUTEXSYNC_LAYOUT", (unsigned long long)d, (unsigned long long)want);
        return;
    }
    fail_msg("FUTEXSYNC_LAYOUT %d has no recorded digest (this table's: 0x%016llx)",
             FUTEXSYNC_LAYOUT, (unsigned long long)d);
}

/* The library the program runs with agrees (a shared library of another
 * layout would not). */
static void running_library_has_the_built_layout(void **state)
{
    (void)state;
    assert_int_equal(fx_layout_version(), FUTEXSYNC_LAYOUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slot_encodings_match_the_golden_table),
        cmocka_unit_test(golden_table_is_the_one_of_its_layout),
        cmocka_unit_test(running_library_has_the_built_layout),
    };
    return fxt_run_group_tests(tests, NULL, NULL);
}
