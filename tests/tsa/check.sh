#!/usr/bin/env bash
# tests/tsa/check.sh CLANG CLANGXX INCLUDE_DIR: Clang's thread-safety analysis
# over the futexsync annotations. The *_ok programs must compile with
# -Wthread-safety -Werror; the *_bad ones must fail with the analysis'
# diagnostic for the line marked in them.
set -u
cc=$1 cxx=$2 inc=$3
dir=$(cd "$(dirname "$0")" && pwd)
flags=(-fsyntax-only -Wall -Wextra -Wthread-safety -Wthread-safety-beta -Werror -I "$inc")
fail=0
check() { # lang compiler file expect(ok|bad) pattern
    local out
    if [ "$1" = c ]; then out=$("$2" -std=c11 "${flags[@]}" "$dir/$3" 2>&1)
    else out=$("$2" -std=c++17 "${flags[@]}" "$dir/$3" 2>&1); fi
    local rc=$?
    if [ "$4" = ok ]; then
        if [ $rc -ne 0 ]; then echo "FAIL: $3 should compile:"; echo "$out"; fail=1
        else echo "ok: $3 compiles"; fi
    else
        if [ $rc -eq 0 ]; then echo "FAIL: $3 compiled"; fail=1
        elif ! grep -q -- "$5" <<<"$out"; then
            echo "FAIL: $3 failed without the expected diagnostic '$5':"; echo "$out"; fail=1
        else echo "ok: $3 rejected: $(grep -m1 -- "$5" <<<"$out")"; fi
    fi
}
check c "$cc" guarded_ok.c ok
check c "$cc" guarded_bad.c bad \
    "guarded_bad.c:9:5: error: writing variable 'x' requires holding mutex 'm' exclusively \[-Werror,-Wthread-safety-analysis\]"
check c "$cc" trylock_bad.c bad \
    "trylock_bad.c:12:9: error: writing variable 'x' requires holding mutex 'm' exclusively \[-Werror,-Wthread-safety-analysis\]"
check cxx "$cxx" guarded_ok.cpp ok
check cxx "$cxx" guarded_bad.cpp bad \
    "guarded_bad.cpp:11:5: error: writing variable 'y' requires holding mutex 'l' exclusively \[-Werror,-Wthread-safety-analysis\]"
exit $fail
