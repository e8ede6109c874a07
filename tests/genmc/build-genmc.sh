#!/usr/bin/env bash
# tests/genmc/build-genmc.sh - builds GenMC 0.10.3 once per machine, into a
# cache outside the clone, and prints the path of the genmc binary.
#
#   tests/genmc/build-genmc.sh            build if need be, print the binary's path
#   tests/genmc/build-genmc.sh --path     print the path only if already built
#
# Source: the snapshot genmc-0.10.3.tar.gz (CI cannot fetch it), found as
# $FUTEXSYNC_GENMC_SRC, else <repo>/../shared/tools/, else /work/shared/tools/.
# Cache: $FUTEXSYNC_GENMC_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/futexsync/
# genmc-0.10.3. GenMC is built in place there (its binary looks up its own
# include/ directory by the absolute path it was configured with).
# Build deps are installed with apt-get when run as root; otherwise the
# missing packages are printed. Exit 0: built (path on stdout); exit 2:
# GenMC cannot be had here (reason on stderr) - callers skip.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
ver=0.10.3
cache="${FUTEXSYNC_GENMC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/futexsync/genmc-$ver}"
bin="$cache/genmc-$ver/genmc"

if [ -x "$bin" ] && [ -f "$cache/.built" ]; then
    echo "$bin"
    exit 0
fi
[ "${1:-}" = --path ] && { echo "genmc: not built (run $0)" >&2; exit 2; }

src=""
for c in "${FUTEXSYNC_GENMC_SRC:-}" "$repo/../shared/tools/genmc-$ver.tar.gz" \
         "/work/shared/tools/genmc-$ver.tar.gz"; do
    [ -n "$c" ] && [ -f "$c" ] && { src="$c"; break; }
done
if [ -z "$src" ]; then
    echo "genmc: source snapshot genmc-$ver.tar.gz not found" \
         "(set FUTEXSYNC_GENMC_SRC)" >&2
    exit 2
fi

# shellcheck source=../../scripts/deps.sh
. "$repo/scripts/deps.sh"
pkgs=(autoconf automake make g++ libedit-dev llvm-14-dev clang-14 libclang-14-dev
      libffi-dev zlib1g-dev)
mapfile -t missing < <(fx_missing_packages "${pkgs[@]}")
if [ ${#missing[@]} -gt 0 ]; then
    if fx_can_install; then
        echo "== genmc: installing ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2 || echo "note: apt-get update reported errors" >&2
        if ! apt-get -o DPkg::Lock::Timeout=900 install -y -qq \
                --no-install-recommends "${missing[@]}" >&2; then
            echo "genmc: cannot install ${missing[*]}" >&2
            exit 2
        fi
    else
        echo "genmc: needs ${missing[*]}; run: sudo apt-get install -y ${missing[*]}" >&2
        exit 2
    fi
fi

mkdir -p "$cache"
# One build at a time per cache: a second caller waits, then finds it built.
exec 9>"$cache/.lock"
flock 9
if [ -x "$bin" ] && [ -f "$cache/.built" ]; then
    echo "$bin"
    exit 0
fi
rm -rf "$cache/genmc-$ver"
tar xzf "$src" -C "$cache"
start=$(date +%s)
log="$cache/build.log"
echo "== genmc: building $ver in $cache (about 7 minutes on 2 cores; log: $log)" >&2
if ! ( cd "$cache/genmc-$ver" &&
       autoreconf --install &&
       ./configure --with-llvm=/usr/lib/llvm-14 &&
       make -j"${FUTEXSYNC_GENMC_JOBS:-2}" ) >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "genmc: build failed (log: $log)" >&2
    exit 2
fi
echo "built in $(( $(date +%s) - start )) s on $(nproc) cores, $(date -u +%FT%TZ)" \
    > "$cache/.built"
echo "== genmc: $(cat "$cache/.built")" >&2
echo "$bin"
