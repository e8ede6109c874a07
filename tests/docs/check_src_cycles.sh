#!/bin/sh
# tests/docs/check_src_cycles.sh - no cycle among the library's object files:
# an edge a -> b when object a references (U, or weak w/v) a symbol that
# object b defines; the graph must be acyclic (a weak back-reference counts:
# it is a dependency all the same). The objects are those of the futexsync
# target, given on the command line (ctest passes $<TARGET_OBJECTS:futexsync>).
# Usage: tests/docs/check_src_cycles.sh OBJECT.o...
set -eu
[ $# -gt 0 ] || { echo "usage: $0 OBJECT.o..." >&2; exit 2; }
NM=${NM:-nm}
for o in "$@"; do
    [ -f "$o" ] || { echo "check_src_cycles: missing object $o" >&2; exit 2; }
    name=$(basename "$o" | sed 's/\.o$//; s/\.obj$//; s/\.c$//')
    rel=$(printf '%s\n' "$o" | sed -n 's#.*/CMakeFiles/[^/]*\.dir/##p')
    [ -n "$rel" ] && name=$(printf '%s\n' "$rel" | sed 's/\.o$//; s/\.c$//')
    # "D name sym" for every defined global, "U name sym" for every reference
    "$NM" -P "$o" | awk -v n="$name" '
        $2 ~ /^[TDBRCSGVW]$/ && $2 != "U" { print "D", n, $1; next }
        $2 == "U" || $2 == "w" || $2 == "v" { print "U", n, $1 }'
done | awk '
    $1 == "D" { def[$3] = $2; nodes[$2] = 1; next }
    $1 == "U" { ref[++nr] = $2 " " $3; nodes[$2] = 1 }
    function visit(n,   i, k, m, list, j, found) {
        state[n] = 1; path[++depth] = n
        k = split(edges[n], list, " ")
        for (i = 1; i <= k; i++) {
            m = list[i]
            if (state[m] == 1) {
                printf "src cycle:"
                found = 0
                for (j = 1; j <= depth; j++) if (found || path[j] == m) { found = 1; printf " %s ->", path[j] }
                printf " %s (%s)\n", m, why[n " " m]
                bad = 1
            } else if (state[m] == 0) visit(m)
        }
        depth--; state[n] = 2
    }
    END {
        for (i = 1; i <= nr; i++) {
            split(ref[i], r, " ")
            a = r[1]; s = r[2]; b = def[s]
            if (b == "" || b == a || seen[a " " b]++) continue
            edges[a] = edges[a] " " b; why[a " " b] = s
        }
        for (n in nodes) if (state[n] == 0) visit(n)
        if (bad) exit 1
        c = 0; for (n in nodes) c++
        printf "no cycle among %d objects\n", c
    }'
