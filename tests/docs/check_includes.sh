#!/bin/sh
# tests/docs/check_includes.sh - no #include cycle anywhere in src/, bench/,
# tests/ and include/: every quoted #include is resolved (next to the file,
# then src/, include/, tests/) and the graph is searched for a cycle.
# Usage: tests/docs/check_includes.sh [SOURCE_DIR]
set -eu
cd "${1:-.}"
find src bench tests include examples -name '*.[ch]' -o -name '*.hpp' -o -name '*.cpp' |
    sort | while read -r f; do
    d=$(dirname "$f")
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
        while read -r inc; do
            for base in "$d" src include tests; do
                if [ -f "$base/$inc" ]; then
                    # normalise a/b/../c
                    t=$(printf '%s\n' "$base/$inc" | sed -e ':a' -e 's#[^/]*/\.\./##' -e 'ta' -e 's#^\./##')
                    printf '%s %s\n' "$f" "$t"
                    break
                fi
            done
        done
done | awk '
    { edges[$1] = edges[$1] " " $2; nodes[$1] = 1; nodes[$2] = 1 }
    function visit(n,   i, k, m, list) {
        state[n] = 1; path[++depth] = n
        k = split(edges[n], list, " ")
        for (i = 1; i <= k; i++) {
            m = list[i]
            if (state[m] == 1) {
                printf "include cycle:"
                for (j = 1; j <= depth; j++) if (found || path[j] == m) { found = 1; printf " %s ->", path[j] }
                printf " %s\n", m
                bad = 1
            } else if (state[m] == 0) visit(m)
        }
        depth--; state[n] = 2
    }
    END {
        for (n in nodes) if (state[n] == 0) visit(n)
        if (bad) exit 1
        printf "no include cycle among %d files\n", length(nodes)
    }'
