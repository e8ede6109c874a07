#!/usr/bin/env bash
# tests/tsa/check.sh CLANG CLANGXX INCLUDE_DIR: Clang's thread-safety analysis
# over the futexsync annotations, in C (guarded.c) and C++ (guarded.cpp).
# Each program must compile with -Wthread-safety -Werror as written, and
# each of its seeded mistakes (#ifdef SEED_<name>) must be rejected with a
# thread-safety diagnostic on the line marked @SEED_<name>.
set -u
cc=$1 cxx=$2 inc=$3
dir=$(cd "$(dirname "$0")" && pwd)
flags=(-fsyntax-only -Wall -Wextra -Wthread-safety -Wthread-safety-beta -Werror -I "$inc")
fail=0
compile() { # file [extra flags]: the compiler's output; status as the compiler's
    local f=$1
    shift
    case $f in
    *.c) "$cc" -std=c11 "${flags[@]}" "$@" "$dir/$f" 2>&1 ;;
    *) "$cxx" -std=c++17 "${flags[@]}" "$@" "$dir/$f" 2>&1 ;;
    esac
}
for f in guarded.c guarded.cpp; do
    if ! out=$(compile "$f"); then
        echo "FAIL: $f should compile clean:"
        echo "$out"
        fail=1
    else
        echo "ok: $f compiles clean"
    fi
    seeds=$(grep -o '^#ifdef SEED_[A-Za-z0-9_]*' "$dir/$f" | sed 's/^#ifdef //' | sort -u)
    if [ -z "$seeds" ]; then
        echo "FAIL: $f has no seeded mistakes"
        fail=1
    fi
    for s in $seeds; do
        line=$(grep -n "@$s\b" "$dir/$f" | cut -d: -f1)
        if [ -z "$line" ]; then
            echo "FAIL: $f: no line marked @$s"
            fail=1
            continue
        fi
        if out=$(compile "$f" "-D$s"); then
            echo "FAIL: $f -D$s compiled"
            fail=1
        elif ! hit=$(grep -m1 -E "$f:$line:[0-9]+: error: .*\[-Werror,-Wthread-safety" <<<"$out"); then
            echo "FAIL: $f -D$s failed without a thread-safety error on line $line:"
            echo "$out"
            fail=1
        else
            echo "ok: $f -D$s rejected: ${hit#"$dir/"}"
        fi
    done
done
exit $fail
