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
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "futexsync needs these Debian packages: ${missing[*]}" >&2
        echo "run:  sudo apt-get install -y ${missing[*]}" >&2
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
        fx_require_packages "${missing[@]}"
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
