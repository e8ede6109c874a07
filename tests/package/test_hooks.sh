#!/bin/sh
# tests/package/test_hooks.sh LIBRARY... - the library built for users holds
# no test hook. The tests force schedules through fxi_fault_point
# (src/internal/fault.h), which only the test variant futexsync_testing
# calls; in libfutexsync.a or libfutexsync.so that name, defined or referenced,
# would let any program that defines it run code on the library's slow paths.
# More generally, a weak reference the library leaves undefined is a name a
# program can hook: the only ones allowed are the race detectors' entry points
# (__tsan_*, src/annotate.c) and the toolchain's own (__gmon_start__, _ITM_*,
# __cxa_finalize). A .so is read with nm -D, an archive with nm.
set -eu
status=0
for lib in "$@"; do
    case $lib in
    *.so | *.so.*) syms=$(nm -D "$lib") ;;
    *) syms=$(nm "$lib" 2>/dev/null) ;;
    esac
    [ -n "$syms" ] || { echo "test_hooks: no symbols read from $lib" >&2; exit 1; }
    defined=$(printf '%s\n' "$syms" | awk 'NF == 3 && $2 != "U" && $2 != "w" && $2 != "v" { sub(/@.*/, "", $3); print $3 }' | sort -u)
    hooks=$(printf '%s\n' "$syms" | awk '{ n = $NF; sub(/@.*/, "", n) } n ~ /^fxi_fault/ || n ~ /^fxi_test/ { print n }' | sort -u)
    weak=$(printf '%s\n' "$syms" | awk 'NF == 2 && ($1 == "w" || $1 == "v") { sub(/@.*/, "", $2); print $2 }' | sort -u |
        grep -v -e '^__tsan_' -e '^__gmon_start__$' -e '^_ITM_' -e '^__cxa_finalize$' || true)
    open=""
    for w in $weak; do
        printf '%s\n' "$defined" | grep -qx "$w" || open="$open $w"
    done
    if [ -n "$hooks" ] || [ -n "$open" ]; then
        # shellcheck disable=SC2086 # the names are words
        names=$(printf '%s\n' $hooks $open | sort -u | paste -sd ' ' -)
        echo "test_hooks FAILED: $lib holds test hooks: $names" >&2
        status=1
    else
        echo "ok: $lib holds no test hook"
    fi
done
exit $status
