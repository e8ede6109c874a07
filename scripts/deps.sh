# scripts/deps.sh - sourced by demo.sh and test.sh: installs what is missing.
#
# fx_require_packages PKG...   Debian packages that must be present. When some
# are missing: as root, installs them with apt-get; otherwise prints the exact
# command to run and exits 1.
fx_require_packages() {
    local missing=()
    local p
    for p in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$p")
        fi
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
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
    local missing=()
    local p
    for p in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$p")
        fi
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
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
