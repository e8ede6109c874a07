#!/usr/bin/env bash
# tests/package/check.sh - the package as users meet it, beyond the static
# install that scripts/test.sh checks with the consumers of tests/install:
#   1. vendored with add_subdirectory, a parent's install installs nothing of
#      futexsync, unless the parent sets FUTEXSYNC_INSTALL=ON (then every
#      public header, layout.h and stats.h included);
#   1b. the installed archive's global fx_ symbols are exactly the public
#      functions (internal symbols are named fxi_), and it holds no test hook
#      (tests/package/test_hooks.sh: no fxi_fault_point);
#   2. -DBUILD_SHARED_LIBS=ON gives libfutexsync.so.<major> (SONAME) that
#      exports exactly the functions the public headers declare, holds no
#      test hook, and a pkg-config consumer runs against it;
#   3. the installed man pages (made from the headers by scripts/gen-man.sh)
#      have a page for every public function, and groff renders each cleanly.
# Usage: tests/package/check.sh WORKDIR    (run from the source tree's root)
set -euo pipefail
src=$(pwd)
work=$1
mkdir -p "$work"
fail() { echo "package check FAILED: $*" >&2; exit 1; }
quiet() { "$@" >"$work/last.log" 2>&1 || { cat "$work/last.log"; fail "$*"; }; }

# The public functions: every fx_ name a public header declares (comments out).
public_names() {
    sed -e 's://.*$::' include/futexsync/*.h |
        perl -0777 -pe 's:/\*.*?\*/::gs' |
        grep -oE '[ *]fx_[a-z0-9_]+[[:space:]]*\(' | grep -oE 'fx_[a-z0-9_]+' | sort -u
}
public_names >"$work/public.txt"
[ -s "$work/public.txt" ] || fail "no public function found in include/futexsync/*.h"

echo "-- vendored: a parent's install installs nothing of futexsync by default"
quiet cmake -S tests/package/vendor -B "$work/vendor" -DFUTEXSYNC_SOURCE_DIR="$src"
quiet cmake --build "$work/vendor" -j 2
quiet "$work/vendor/vendor_app"
quiet cmake --install "$work/vendor" --prefix "$work/vendor-prefix"
others=$(cd "$work/vendor-prefix" && find . -type f ! -path ./bin/vendor_app | sort)
[ -z "$others" ] || fail "the parent's install also installed: $others"
quiet cmake -S tests/package/vendor -B "$work/vendor-on" -DFUTEXSYNC_SOURCE_DIR="$src" \
    -DFUTEXSYNC_INSTALL=ON
quiet cmake --build "$work/vendor-on" -j 2
quiet cmake --install "$work/vendor-on" --prefix "$work/vendor-on-prefix"
[ -f "$work/vendor-on-prefix/include/futexsync.h" ] ||
    fail "FUTEXSYNC_INSTALL=ON did not install the headers"
for h in include/futexsync/*.h; do   # layout.h and stats.h too, which the umbrella leaves out
    [ -f "$work/vendor-on-prefix/$h" ] || fail "FUTEXSYNC_INSTALL=ON did not install $h"
done
echo "   ok: nothing by default; headers, library and package with FUTEXSYNC_INSTALL=ON"

echo "-- the installed archive: the public namespace holds only the headers' functions"
archive=$(find "$work/vendor-on-prefix" -name libfutexsync.a | head -1)
[ -n "$archive" ] || fail "no libfutexsync.a installed"
nm -g --defined-only "$archive" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[A-Z]$/ { print $3 }' |
    grep '^fx_' | sort -u >"$work/archive_fx.txt" || true
if ! diff -u "$work/public.txt" "$work/archive_fx.txt" >"$work/archive.diff"; then
    cat "$work/archive.diff"
    fail "global fx_ symbols of libfutexsync.a differ from the public headers' functions (internal names take fxi_)"
fi
echo "   ok: $(wc -l <"$work/archive_fx.txt") global fx_ symbols, all public; internals are fxi_"
quiet sh tests/package/test_hooks.sh "$archive"
echo "   ok: no test hook in the installed archive"

echo "-- shared library: SONAME and exported symbols"
quiet cmake -S . -B "$work/shared" -DBUILD_SHARED_LIBS=ON -DFUTEXSYNC_BUILD_TESTS=OFF \
    -DFUTEXSYNC_BUILD_EXAMPLES=OFF -DFUTEXSYNC_BUILD_BENCH=OFF -DFUTEXSYNC_WERROR=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
quiet cmake --build "$work/shared" -j 2
quiet cmake --install "$work/shared" --prefix "$work/shared-prefix"
so=$(ls "$work/shared-prefix"/lib*/libfutexsync.so.*.*.* 2>/dev/null | head -1)
[ -n "$so" ] || fail "no libfutexsync.so.X.Y.Z installed"
major=$(sed -n 's/^#define FUTEXSYNC_VERSION_MAJOR \([0-9]*\)$/\1/p' include/futexsync/version.h)
soname=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libfutexsync.so.$major" ] || fail "SONAME is '$soname', not libfutexsync.so.$major"
nm -D --defined-only "$so" | awk '$2 ~ /^[A-Z]$/ && $2 != "A" { sub(/@.*/, "", $3); print $3 }' |
    sort -u >"$work/exported.txt"
if ! diff -u "$work/public.txt" "$work/exported.txt" >"$work/exports.diff"; then
    cat "$work/exports.diff"
    fail "the shared library's exports differ from the public headers' functions (- header only, + exported only)"
fi
echo "   ok: SONAME $soname, $(wc -l <"$work/exported.txt") exported functions = the headers' functions"
quiet sh tests/package/test_hooks.sh "$so"
echo "   ok: no test hook in the shared library (nm -D)"
pcdir=$(dirname "$(find "$work/shared-prefix" -name futexsync.pc | head -1)")
# shellcheck disable=SC2046
gcc -std=c11 -Wall -Wextra -Werror tests/package/vendor/main.c -o "$work/shared-app" \
    $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs futexsync) \
    -Wl,-rpath,"$(dirname "$so")"
ldd "$work/shared-app" >"$work/ldd.txt"
grep -q "libfutexsync.so.$major" "$work/ldd.txt" || fail "the consumer did not link the shared library"
quiet "$work/shared-app"
echo "   ok: a pkg-config consumer runs against libfutexsync.so.$major"

echo "-- man pages: one for every public function, installed, and each one renders"
missing=""
man3=$(find "$work/shared-prefix" -type d -path '*/man/man3' | head -1)
[ -n "$man3" ] || fail "no man3 directory installed"
while read -r f; do
    [ -f "$man3/$f.3" ] || missing="$missing $f"
done <"$work/public.txt"
[ -z "$missing" ] || fail "no installed man page for:$missing"
if command -v groff >/dev/null; then
    for page in "$man3"/*.3; do
        warn=$(LC_ALL=C groff -ww -z -man "$page" 2>&1) || fail "groff failed on $page"
        [ -z "$warn" ] || fail "groff warns on $page: $warn"
    done
fi
echo "   ok: $(wc -l <"$work/public.txt") functions, each with an installed page"
echo "package checks passed"
