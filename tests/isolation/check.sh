#!/bin/sh
# tests/isolation/check.sh - what the isolated runner of tests/fxtest.h
# reports for isolation_demo.c's deliberately failing tests.
#
#     check.sh DEMO next     a failing test does not fail the next: exactly
#                            it is reported failed and the next passes; and
#                            in one process (FXT_ISOLATE=0) the next does
#                            fail, so the demo demonstrates a real cascade
#     check.sh DEMO crash    a test that dies of a signal, and one that hangs,
#                            fail alone too, each named; the hung one's whole
#                            process group is killed
#
# A cross build runs DEMO through $FUTEXSYNC_EMULATOR (qemu-user).
set -u
demo=$1 mode=$2
fail=0
bad() { echo "check.sh: $*"; fail=1; }

# run ENV... : DEMO's output (indented: its summary lines are not this
# test's) in $out and its exit status in $status. The command substitution
# ends only when every process holding the output pipe has ended.
run() {
    # shellcheck disable=SC2086 # FUTEXSYNC_EMULATOR: a cross build's command words
    out=$(env "$@" ${FUTEXSYNC_EMULATOR:-} "$demo" $args 2>&1)
    status=$?
    echo "--- $* $demo $args: exit status $status"
    printf '%s\n' "$out" | sed 's/^/  | /'
}
has() { printf '%s\n' "$out" | grep -qxF -- "$1" || bad "no line \"$1\""; }
hasnt() { ! printf '%s\n' "$out" | grep -qxF -- "$1" || bad "a line \"$1\""; }
count() { # count PATTERN N: N lines match the extended regex PATTERN
    n=$(printf '%s\n' "$out" | grep -cE -- "$1")
    [ "$n" -eq "$2" ] || bad "$n lines match /$1/, not $2"
}

case $mode in
next)
    args=
    run FXT_ISOLATE=1
    [ "$status" -eq 1 ] || bad "exit status $status, not 1 (one failed test)"
    has "[  FAILED  ] fails_while_its_thread_holds_the_mutex"
    has "[       OK ] takes_the_mutex"
    count '^\[  FAILED  \] ' 3 # the test's line, the summary's count, its name in the list
    has "[  PASSED  ] 1 test(s)."
    has "[  FAILED  ] 1 test(s), listed below:"
    args=
    run FXT_ISOLATE=0
    [ "$status" -eq 2 ] || bad "in one process: exit status $status, not 2 (both failed)"
    has "[  FAILED  ] takes_the_mutex"
    ;;
crash)
    args=more
    run FXT_ISOLATE=1 FXT_TEST_TIMEOUT=5
    [ "$status" -eq 3 ] || bad "exit status $status, not 3 (three failed tests)"
    has "[  FAILED  ] fails_while_its_thread_holds_the_mutex"
    has "[       OK ] takes_the_mutex"
    has "[  FAILED  ] dies_of_a_signal"
    has "[       OK ] takes_the_mutex_after_the_signal"
    has "[  FAILED  ] hangs_beside_a_process_of_its_own"
    has "[       OK ] takes_the_mutex_after_the_hang"
    printf '%s\n' "$out" | grep -q "dies_of_a_signal: its process was killed by signal 6" ||
        bad "the signal that killed dies_of_a_signal is not named"
    printf '%s\n' "$out" | grep -q "hangs_beside_a_process_of_its_own: no verdict within 5 s" ||
        bad "the time limit of hangs_beside_a_process_of_its_own is not named"
    has "[  PASSED  ] 3 test(s)."
    has "[  FAILED  ] 3 test(s), listed below:"
    hasnt "[  FAILED  ] takes_the_mutex_after_the_hang"
    ;;
*)
    echo "usage: check.sh DEMO next|crash" >&2
    exit 2
    ;;
esac
[ "$fail" -eq 0 ] || exit 1
echo "check.sh ($mode): each failure stayed in its own test"
