#!/usr/bin/env bash
# scripts/demo.sh - the README's main command: builds futexsync, runs the
# examples (each prints its result and fails when it is wrong) and a short
# benchmark summary.
#
# It installs (as root, with apt-get) only what building the library and its
# examples needs: cmake make gcc libc6-dev pkg-config. Optional extras are
# never installed unless asked for:
#   --with-extras   also install the benchmark's peers, nsync (libnsync-dev)
#                   and Concurrency Kit (libck-dev), and gnuplot-nox for
#                   futexsync-bench --plot
#   --no-bench      skip the benchmark step
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

extras=0
bench=1
for arg in "$@"; do
    case "$arg" in
    --with-extras) extras=1 ;;
    --no-bench) bench=0 ;;
    -h | --help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "demo.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
    esac
done

steps=$((3 + bench))
step=0
stage() { step=$((step + 1)); echo "== step $step of $steps: $*"; }

stage "packages"
fx_require_packages cmake make gcc libc6-dev pkg-config
extra_pkgs=(libnsync-dev libck-dev gnuplot-nox)
if [ "$extras" = 1 ]; then
    fx_want_packages "${extra_pkgs[@]}"
else
    mapfile -t absent < <(fx_missing_packages "${extra_pkgs[@]}")
    [ ${#absent[@]} -eq 0 ] ||
        echo "   optional extras not installed: ${absent[*]} (scripts/demo.sh --with-extras)"
fi

build=${FUTEXSYNC_BUILD_DIR:-build/demo}
stage "build (cmake, $build)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DFUTEXSYNC_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(fx_jobs)" >/dev/null

status=0
stage "examples"
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
# Two separately started programs meeting through shm_open.
sh examples/shm/run.sh "$build/examples/shm" || { echo "!! shm FAILED"; status=1; }

if [ "$bench" = 1 ]; then
    stage "benchmark (short run; futexsync-bench --help for the full suite)"
    "$build/bench/futexsync-bench" --quick || status=1
fi
exit $status
