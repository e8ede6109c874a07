# scripts/deps.sh - sourced by demo.sh and test.sh: installs what is missing.
#
# fx_missing_packages PKG...   Prints the given Debian packages that are not
# installed, one per line.
fx_missing_packages() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            echo "$p"
    done
}

# fx_can_install   True when this shell may install packages (root with apt-get).
fx_can_install() {
    [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null
}

# fx_require_packages PKG...   Debian packages that must be present; a name
# PKG:ARCH is a package of a foreign architecture (Debian multiarch, e.g.
# libcmocka-dev:i386). When some are missing: as root, adds their foreign
# architectures if need be and installs them with apt-get; otherwise prints
# the exact commands to run and exits 1.
fx_require_packages() {
    local missing arches=() a p
    mapfile -t missing < <(fx_missing_packages "$@")
    [ ${#missing[@]} -eq 0 ] && return 0
    for p in "${missing[@]}"; do
        case $p in *:*) a=${p##*:}
            [ "$a" = "$(dpkg --print-architecture)" ] ||
                dpkg --print-foreign-architectures | grep -qx "$a" ||
                [[ " ${arches[*]} " == *" $a "* ]] || arches+=("$a") ;;
        esac
    done
    if fx_can_install; then
        echo "== installing: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        for a in ${arches[@]+"${arches[@]}"}; do dpkg --add-architecture "$a"; done
        # An index that fails to download (a mirror mid-sync, often a
        # foreign architecture's) is reported, not fatal: apt-get install
        # then says whether what it needs is there.
        apt-get update -qq || echo "note: apt-get update reported errors (see above)" >&2
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "futexsync needs these Debian packages: ${missing[*]}" >&2
        printf 'run:  ' >&2
        for a in ${arches[@]+"${arches[@]}"}; do printf 'sudo dpkg --add-architecture %s && ' "$a" >&2; done
        echo "sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
}

# fx_want_packages PKG...   Optional packages: installed when root, otherwise
# named in a note; their absence never fails the run.
fx_want_packages() {
    local missing
    mapfile -t missing < <(fx_missing_packages "$@")
    [ ${#missing[@]} -eq 0 ] && return 0
    if fx_can_install; then
        (fx_require_packages "${missing[@]}") ||
            echo "note: optional packages could not be installed: ${missing[*]}" >&2
    else
        echo "note: optional packages absent (sudo apt-get install -y ${missing[*]})" >&2
    fi
}

# Parallel build jobs: the number of cores, at most 4.
fx_jobs() {
    local n
    n=$(nproc 2>/dev/null || echo 2)
    [ "$n" -gt 4 ] && n=4
    echo "$n"
}

# fx_cross_cmocka TRIPLE   cmocka 1.1.5 built for TRIPLE (aarch64-linux-gnu,
# riscv64-linux-gnu, i686-linux-gnu) with the cross compiler and the project's
# toolchain file cmake/TRIPLE.cmake, once, into a cache outside the clone;
# prints its install prefix,
# ${XDG_CACHE_HOME:-$HOME/.cache}/futexsync/cmocka-1.1.5-TRIPLE (the toolchain
# file's default). Debian 12 has no riscv64 architecture to take libcmocka-dev
# from, and libcmocka-dev:i386 would need the i386 architecture's package
# index, so every target builds it from Debian's source tarball:
# $FUTEXSYNC_CMOCKA_SRC, or ../shared/tools/cmocka_1.1.5.orig.tar.xz beside
# the clone (the same file as https://cmocka.org/files/1.1/cmocka-1.1.5.tar.xz).
fx_cross_cmocka() {
    local triple=$1 root cache prefix src build
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    cache=${XDG_CACHE_HOME:-$HOME/.cache}/futexsync
    prefix=$cache/cmocka-1.1.5-$triple
    if [ -f "$prefix/.complete" ]; then
        echo "$prefix"
        return 0
    fi
    src=${FUTEXSYNC_CMOCKA_SRC:-$root/../shared/tools/cmocka_1.1.5.orig.tar.xz}
    if [ ! -f "$src" ]; then
        echo "cmocka's source for $triple is missing: set FUTEXSYNC_CMOCKA_SRC to" \
             "cmocka-1.1.5.tar.xz (https://cmocka.org/files/1.1/)" >&2
        return 1
    fi
    if ! echo "f0ccd8242d55e2fd74b16ba518359151f6f8383ff8aef4976e48393f77bba8b6  $src" |
            sha256sum -c --status; then
        echo "$src is not cmocka 1.1.5's source (sha256 differs)" >&2
        return 1
    fi
    echo "== building cmocka 1.1.5 for $triple into $prefix" >&2
    build=$(mktemp -d "$cache/.cmocka-$triple.XXXXXX" 2>/dev/null) ||
        { mkdir -p "$cache" && build=$(mktemp -d "$cache/.cmocka-$triple.XXXXXX"); } || return 1
    rm -rf "$prefix"
    if ! { tar -xJf "$src" -C "$build" &&
           cmake -S "$build/cmocka-1.1.5" -B "$build/b" -DCMAKE_BUILD_TYPE=Release \
                 -DCMAKE_TOOLCHAIN_FILE="$root/cmake/$triple.cmake" \
                 -DFUTEXSYNC_CMOCKA_PREFIX="$prefix" -DCMAKE_INSTALL_PREFIX="$prefix" \
                 -DCMAKE_INSTALL_LIBDIR=lib -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF &&
           cmake --build "$build/b" -j "$(fx_jobs)" &&
           cmake --install "$build/b"; } >"$build.log" 2>&1; then
        cat "$build.log" >&2
        rm -rf "$build" "$build.log"
        return 1
    fi
    rm -rf "$build" "$build.log"
    touch "$prefix/.complete"
    echo "$prefix"
}
