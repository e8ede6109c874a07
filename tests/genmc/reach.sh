#!/usr/bin/env bash
# tests/genmc/reach.sh - which of the library's step sites the GenMC checks
# reach (docs/verification.md, "Reach"). A site is a step tag of src/ (the
# last words of a comment, "@step <tag> */"): its atomic operations or futex
# calls, else its branch or statement (tests/genmc/reach.pl says exactly
# where each marker goes).
#
# A copy of src/ gets a marker at every tag (reach.pl: a printf, which
# GenMC's interpreter performs whenever an explored execution runs it), and
# every check of run.sh runs on that copy under RC11 (the memory model does
# not change which code runs: IMM explores the same programs). A site is
# reached when some check printed its marker.
#
#   tests/genmc/reach.sh               every check; prints the table
#   tests/genmc/reach.sh --only REGEX  the checks whose name matches (ERE)
#   tests/genmc/reach.sh --sites       the sites and their markers only
#   -j N                               N checks at a time (default 2)
#   --work DIR                         where the copy and the outputs go
#
# It checks itself: mutex.acquire.fast (every mutex lock) must be reached,
# and a control marker on fx_mutex_unlock's EPERM return (no client unlocks
# a free mutex: each asserts that its unlock returns 0) must not.
#
# Exit 0: the table printed, the reached share at or above FLOOR; 1: below
# it, a check failed, a control misbehaved, or a tag could not be marked;
# 77: GenMC is not there (ctest counts the test as skipped).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

# The ratchet: the share of sites reached (percent, one decimal) may not
# fall below this. When a client reaches more, raise it to the share the
# run printed ("reached: N of M sites, P %"), in the same commit.
FLOOR=94.3

jobs=2
only=".*"
sites_only=0
work="${FUTEXSYNC_GENMC_REACH_WORK:-$repo/build/genmc-reach}"
while [ $# -gt 0 ]; do
    case "$1" in
        --only) only="$2"; shift 2 ;;
        --sites) sites_only=1; shift ;;
        --work) work="$2"; shift 2 ;;
        -j) jobs="$2"; shift 2 ;;
        *) echo "usage: $0 [--only REGEX] [--sites] [--work DIR] [-j N]" >&2; exit 2 ;;
    esac
done

if [ $sites_only -eq 0 ] && ! "$here/build-genmc.sh" --path >/dev/null 2>&1; then
    echo "SKIP: GenMC 0.10.3 is not built on this machine; the reach of the GenMC" \
         "checks is not measured (build it once: tests/genmc/build-genmc.sh)"
    exit 77
fi

mkdir -p "$work"
work="$(cd "$work" && pwd)"
tree="$work/tree"
rm -rf "$tree" "$work/run"
mkdir -p "$tree"
cp -r "$repo/src" "$repo/include" "$tree/"

# The markers, and the list of sites: tag, kind, file:line.
sites="$work/sites.tsv"
: >"$sites"
(cd "$tree" && grep -rl --include='*.[ch]' '@step ' src | sort) | while read -r f; do
    perl "$here/reach.pl" "$tree/$f" "$f" >>"$sites"
done
if grep -qP '\tnone\t' "$sites"; then
    echo "reach: tags no marker could be put at:" >&2
    grep -P '\tnone\t' "$sites" >&2
    exit 1
fi
ntags=$(grep -rhoE '@step [A-Za-z0-9_.]+' "$repo/src" | wc -l)
if [ "$(wc -l <"$sites")" -ne "$ntags" ]; then
    echo "reach: $ntags tags in src/, $(wc -l <"$sites") marked" >&2
    exit 1
fi

# The control that no run may reach (see the top).
anchor='return EPERM; /* not locked, or another thread unlocked it first */'
if [ "$(grep -cF -- "$anchor" "$tree/src/mutex.c")" != 1 ]; then
    echo "reach: the control's anchor is not in src/mutex.c exactly once: $anchor" >&2
    exit 1
fi
ANCHOR="$anchor" perl -pi -e \
    's/\Q$ENV{ANCHOR}\E/{ FXG_REACHED("control.unreachable"); return EPERM; }/' \
    "$tree/src/mutex.c"

# Every marked file still compiles (the GenMC runs would fail later, and
# files no client includes are never compiled there).
cut -f3 "$sites" | cut -d: -f1 | sort -u | grep '\.c$' | while read -r f; do
    "${CC:-cc}" -std=c11 -D_GNU_SOURCE -fsyntax-only -I"$tree/include" -I"$tree/src" \
        "$tree/$f" || { echo "reach: the marked $f does not compile" >&2; exit 1; }
done

if [ $sites_only -eq 1 ]; then
    column -t -s $'\t' "$sites"
    exit 0
fi

# The checks, RC11 only. run.sh keeps each run's output (its markers).
# --disable-sr: with the markers, GenMC 0.10.3's symmetry reduction reports
# a false "Attempt to access freed memory!" in cond_depart (its two
# symmetric waiters); without it the marked copy explores as many executions
# as run.sh on src/ and finds no error (docs/verification.md, "Reach").
status=0
"$here/run.sh" --src "$tree" --work "$work/run" --only "^($only)/rc11\$" -j "$jobs" \
    --genmc-opts --disable-sr || status=$?
if [ $status -ne 0 ]; then
    echo "reach: a GenMC check failed on the marked copy (above); no table" >&2
    exit 1
fi

# check TAB reached|tested TAB tag (tag without its #n)
hits="$work/hits.tsv"
for out in "$work/run"/*.rc11.out; do
    name=$(basename "$out" .rc11.out)
    { grep -aoE '^@(reached|tested) [A-Za-z0-9_.#]+' "$out" || true; } | sort -u |
        awk -v c="$name" '{ sub(/^@/, "", $1); print c "\t" $1 "\t" $2 }'
done >"$hits"

# The table: one line per site, then per file, then the total.
table="$work/reach.tsv"
awk -F'\t' -v OFS='\t' '
    FNR == NR {
        split($3, t, "#")
        if ($2 == "reached") {
            by[t[1]] = by[t[1]] (index("," by[t[1]] ",", "," $1 ",") ? "" : (by[t[1]] == "" ? "" : ",") $1)
            if (t[2] != "") op[t[1] "#" t[2]] = 1
        } else {
            tested[t[1]] = 1
        }
        next
    }
    $2 == "decl" { next }
    {
        n = 0
        if ($2 ~ /^op\//) {
            split($2, k, "/")
            for (i = 1; i <= k[2]; i++) n += (($1 "#" i) in op)
        }
        st = ($1 in by) ? "reached" : (($1 in tested) ? "tested" : "no")
        if (st == "reached" && $2 ~ /^op\// && n < k[2]) st = "reached(" n "/" k[2] ")"
        print $1, $2, $3, st, (($1 in by) ? by[$1] : "-")
    }' "$hits" "$sites" >"$table"

printf '%-38s %-7s %-26s %-13s %s\n' site kind where status checks
awk -F'\t' '{ printf "%-38s %-7s %-26s %-13s %s\n", $1, $2, $3, $4, $5 }' "$table"
echo
echo "per file (reached / sites):"
awk -F'\t' '{ split($3, w, ":"); f = w[1]; n[f]++; if ($4 ~ /^reached/) r[f]++; if (!(f in seen)) { seen[f] = 1; o[++k] = f } }
    END { for (i = 1; i <= k; i++) printf "  %-28s %3d / %3d\n", o[i], r[o[i]], n[o[i]] }' "$table"

total=$(wc -l <"$table")
reached=$(awk -F'\t' '$4 ~ /^reached/' "$table" | wc -l)
share=$(awk -v r="$reached" -v t="$total" 'BEGIN { printf "%.1f", 100 * r / t }')
echo "reached: $reached of $total sites, $share % (floor $FLOOR %)"

ok=1
if ! awk -F'\t' '$1 == "mutex.acquire.fast" && $4 ~ /^reached/ { f = 1 } END { exit !f }' "$table"; then
    echo "reach: FAIL: the control mutex.acquire.fast was not reached (markers not seen?)"
    ok=0
fi
if grep -q 'control\.unreachable' "$hits"; then
    echo "reach: FAIL: the unreachable control marker was reached"
    ok=0
fi
if [ "$only" = ".*" ] && awk -v s="$share" -v f="$FLOOR" 'BEGIN { exit !(s + 0 < f + 0) }'; then
    echo "reach: FAIL: $share % is below the floor $FLOOR % (a check reaches less than before)"
    ok=0
fi
[ $ok -eq 1 ] || exit 1
echo "reach: table in $table"
