#!/usr/bin/env bash
# scripts/demo.sh - the README's main command: builds futexsync, runs the
# examples (each prints its result and fails when it is wrong) and a short
# benchmark summary. Installs what is missing (Debian).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

fx_require_packages cmake make gcc libc6-dev pkg-config
# Optional peers for the benchmark table: nsync, Concurrency Kit, gnuplot.
fx_want_packages libnsync-dev libck-dev gnuplot-nox

build=${FUTEXSYNC_BUILD_DIR:-build/demo}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DFUTEXSYNC_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(fx_jobs)" >/dev/null

status=0
echo "== examples"
# The seed scenarios first, then every other example in name order.
for ex in counter_threads counter_processes slots; do
    "$build/examples/$ex" || { echo "!! $ex FAILED"; status=1; }
done
for path in "$build"/examples/*; do
    ex=$(basename "$path")
    case "$ex" in counter_threads|counter_processes|slots) continue ;; esac
    if [ -f "$path" ] && [ -x "$path" ]; then
        "$path" || { echo "!! $ex FAILED"; status=1; }
    fi
done

echo "== benchmark (short run; futexsync-bench --help for the full suite)"
"$build/bench/futexsync-bench" --quick || status=1
exit $status
