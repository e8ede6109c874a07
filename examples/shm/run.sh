#!/bin/sh
# examples/shm/run.sh BINDIR - two separately started programs meet through
# shm_open, and killing either leaves the other working:
#   1. a client with no board exits 2 at once;
#   2. the server creates the board, a client gets its answers;
#   0. usage errors (bad numbers, unknown options) exit 2, --help exits 0;
#   3. a client dies (SIGKILL) holding the board's lock: the next client is
#      answered, the lock repaired by whoever took it next (EOWNERDEAD);
#      then a supervised client (--supervise, futexsync/worker.h) dies holding
#      it: its supervisor releases the lock at once;
#   4. the server is SIGKILLed: a client gets "no answer" (exit 3) within its
#      timeout instead of hanging, and the board's lock stays usable;
#   5. another client dies holding the lock while no server runs; a new server
#      attaches to the same board, repairs it and answers again;
#   6. SIGTERM stops the server cleanly; --remove unlinks the board.
set -eu
bin=$1
FX_BOARD="/futexsync-example-$$"
export FX_BOARD
dir=$(mktemp -d)
# A cross build (FUTEXSYNC_EMULATOR, e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu"):
# the programs are started through wrappers that run them under the emulator.
if [ -n "${FUTEXSYNC_EMULATOR:-}" ]; then
    for p in shm_client shm_server; do
        printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$FUTEXSYNC_EMULATOR" "$bin/$p" >"$dir/$p"
        chmod +x "$dir/$p"
    done
    bin=$dir
fi
spid=""
cleanup() {
    [ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
    "$bin/shm_client" --remove 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "shm example FAILED: $*" >&2; exit 1; }
expect() { # expect STATUS COMMAND...: runs it, checks the exit status
    want=$1; shift
    set +e; "$@" >"$dir/out" 2>&1; got=$?; set -e
    cat "$dir/out"
    [ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want"
}
start_server() { # waits for the server's "ready" line, through a fifo
    rm -f "$dir/fifo"; mkfifo "$dir/fifo"
    "$bin/shm_server" 60 >"$dir/fifo" &
    spid=$!
    exec 3<"$dir/fifo"
    read -r line <&3 || fail "the server exited before it was ready"
    [ "$line" = ready ] || fail "server said '$line'"
    echo "server $spid ready"
}

echo "-- 0. usage"
expect 0 "$bin/shm_client" --help
grep -q "^usage: shm_client" "$dir/out" || fail "no usage line"
for bad in "12x" "--timeout abc 3" "--timeout 10" "99999999999" "--bogus" ""; do
    # shellcheck disable=SC2086 # the words are the arguments
    expect 2 "$bin/shm_client" $bad
    grep -q "^usage: shm_client" "$dir/out" || fail "no usage line for '$bad'"
done
expect 2 "$bin/shm_server" 3x
echo "-- 1. no board yet"
expect 2 "$bin/shm_client" 3
echo "-- 2. server and client"
start_server
expect 0 "$bin/shm_client" 3 4
grep -q "^4^2 = 16$" "$dir/out" || fail "wrong answer"
echo "-- 3. a client dies holding the lock"
expect 137 sh -c "exec '$bin/shm_client' --die-holding"
expect 0 "$bin/shm_client" 5
grep -q "^5^2 = 25$" "$dir/out" || fail "no answer after a client's death"
expect 137 "$bin/shm_client" --supervise --die-holding
# Released by the kernel's robust list at the death (0 left for the supervisor),
# or by the supervisor where the worker had no robust list (1).
grep -Eq "exited; the supervisor released [01] lock" "$dir/out" || fail "no supervisor report"
expect 0 "$bin/shm_client" 8
grep -q "^8^2 = 64$" "$dir/out" || fail "no answer after a supervised client's death"
echo "-- 4. the server is killed"
kill -9 "$spid"; wait "$spid" 2>/dev/null || true; spid=""; exec 3<&-
expect 3 "$bin/shm_client" --timeout 300 6
echo "-- 5. a client dies holding the lock, then a new server takes over the board"
expect 137 sh -c "exec '$bin/shm_client' --die-holding"
start_server
expect 0 "$bin/shm_client" 7
grep -q "^7^2 = 49$" "$dir/out" || fail "no answer from the new server"
echo "-- 6. clean stop"
kill -TERM "$spid"
cat <&3
wait "$spid" || fail "the server's exit status was $?"
spid=""
"$bin/shm_client" --remove || fail "shm_unlink"
echo "shm example: ok"
