#!/bin/sh
# tests/sanitizer/race_user.sh - runs tests/sanitizer/race_user.c under a race
# detector and judges: for each MODE, `PROG MODE locked` must run clean (exit
# 0, no race reported) and `PROG MODE racy` must be reported as a data race.
#
#   race_user.sh tsan     PROG [MODE...]   PROG built with -fsanitize=thread
#   race_user.sh helgrind PROG [MODE...]   PROG built plain, run under
#   race_user.sh drd      PROG [MODE...]   valgrind --tool=helgrind / drd
#
# MODE: mutex rmutex rwlock sem cond barrier once counter (default: all).
# ROUNDS (environment): rounds per thread (default 1000 for tsan, 100 under
# valgrind, which runs one thread at a time).
# Exits 0 when every check holds, 1 otherwise (each failure is printed with
# the detector's output).
set -u

tool=${1:?usage: race_user.sh tsan|helgrind|drd PROG [MODE...]}
prog=${2:?usage: race_user.sh tsan|helgrind|drd PROG [MODE...]}
shift 2
[ $# -gt 0 ] || set -- mutex rmutex rwlock sem cond barrier once counter

case $tool in
tsan)
    prefix=
    race='WARNING: ThreadSanitizer: data race'
    rounds=${ROUNDS:-1000}
    # Exit status 66 when something was reported; the library's own objects
    # are never destroyed, so TSan's report of a still-locked mutex at exit
    # is not expected either.
    TSAN_OPTIONS="exitcode=66${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
    export TSAN_OPTIONS
    ;;
helgrind)
    prefix='valgrind --tool=helgrind --error-exitcode=66'
    race='Possible data race'
    rounds=${ROUNDS:-100}
    ;;
drd)
    prefix='valgrind --tool=drd --error-exitcode=66'
    race='Conflicting'
    rounds=${ROUNDS:-100}
    ;;
*)
    echo "race_user.sh: unknown tool $tool" >&2
    exit 2
    ;;
esac

out=$(mktemp)
trap 'rm -f "$out"' EXIT
failures=0

fail() {
    echo "FAIL: $tool $*"
    sed 's/^/    /' "$out"
    failures=$((failures + 1))
}

for mode in "$@"; do
    # shellcheck disable=SC2086
    $prefix "$prog" "$mode" locked "$rounds" >"$out" 2>&1
    status=$?
    if [ $status -ne 0 ]; then
        fail "$mode locked: exit status $status (expected 0: no report, exact counter)"
    elif grep -q "$race" "$out"; then
        fail "$mode locked: a race was reported"
    else
        echo "ok: $tool $mode locked: no race reported, $(grep -o 'counter = .*' "$out")"
    fi

    # shellcheck disable=SC2086
    $prefix "$prog" "$mode" racy "$rounds" >"$out" 2>&1
    status=$?
    if ! grep -q "$race" "$out"; then
        fail "$mode racy: no race reported (exit status $status)"
    else
        echo "ok: $tool $mode racy: race reported"
    fi
done

[ $failures -eq 0 ] || { echo "race_user.sh: $failures failure(s)"; exit 1; }
exit 0
