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

# fx_require_packages PKG...   Debian packages that must be present. When some
# are missing: as root, installs them with apt-get; otherwise prints the exact
# command to run and exits 1.
fx_require_packages() {
    local missing
    mapfile -t missing < <(fx_missing_packages "$@")
    [ ${#missing[@]} -eq 0 ] && return 0
    if fx_can_install; then
        echo "== installing: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        # An index that fails to download (a mirror mid-sync, often a
        # foreign architecture's) is reported, not fatal: apt-get install
        # then says whether what it needs is there.
        apt-get update -qq || echo "note: apt-get update reported errors (see above)" >&2
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "futexsync needs these Debian packages: ${missing[*]}" >&2
        echo "run:  sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
}

# fx_require_i386_packages PKG...   Packages of the i386 architecture
# (Debian multiarch) or multilib ones, for the i686 stage of test.sh. As
# root, adds the architecture if need be and installs what is missing; an
# index that fails to download (a mirror mid-sync) is reported, not fatal,
# as apt-get install then says whether what it needs is there. Otherwise
# prints the commands and exits 1.
fx_require_i386_packages() {
    local missing
    mapfile -t missing < <(fx_missing_packages "$@")
    [ ${#missing[@]} -eq 0 ] && return 0
    if fx_can_install; then
        echo "== installing (i386): ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        dpkg --print-foreign-architectures | grep -qx i386 || dpkg --add-architecture i386
        apt-get update -qq || echo "note: apt-get update reported errors (see above)" >&2
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "the i686 stage needs: ${missing[*]}" >&2
        echo "run:  sudo dpkg --add-architecture i386 && sudo apt-get update &&" \
             "sudo apt-get install -y ${missing[*]}" >&2
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
