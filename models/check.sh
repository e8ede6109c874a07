#!/usr/bin/env bash
# models/check.sh - runs the spin model checks of models/*.pml.
#
# Every "//@check" line of a model is one verification run (see
# models/README.md for the conventions):
#
#   //@check safety [words]          assertions + invalid end states
#   //@check ltl <claim> [words]     the LTL claim, acceptance cycles, weak fairness
#
#   words: -DNAME[=V]  preprocessor macro, given to spin -a (the model) and to
#                      gcc (pan.c: e.g. -DNFAIR=3, -DVECTORSZ=2048)
#          -xARG       any other dash word is a pan run-time flag (e.g.
#                      -m2000000 for the search depth)
#          expect-fail the check must find a violation: documents a property
#                      the design does not have
#          long        a check of minutes: run only with --long (ctest -L long,
#                      FUTEXSYNC_LONG_CHECKS), so the CI run stays short
#
# and "//@mirrors <path> <function>... sha256=<hex>" pins the C functions the
# model mirrors: the hash is over their bodies (from the column-0 line of the
# definition to the closing brace at column 0) with comments and whitespace
# removed, so a comment-only edit leaves the model fresh while a code change
# in a mirrored function reports it STALE until it has been reviewed against
# the new source and the hash updated (--rehash). A model cites the C by step
# tags, "@<primitive>.<step>", each of which must stand exactly once in src/
# (recursively) as a comment "/* @step <primitive>.<step> */".
#
# Per check: spin -a; gcc -O2 [-DSAFETY -DNOCLAIM]; ./pan [-a -f -N claim], in a
# temporary directory. A check fails on errors > 0, on an incomplete search
# (depth limit reached, search truncated, out of memory), and on any build or
# run error. A summary table is printed; the exit status is 0 when every check
# passed.
#
# usage: models/check.sh [options] [model.pml ...]   (default: models/*.pml)
#   -j N, --jobs N      run N checks at a time (default: FX_SPIN_JOBS, or 1);
#                       each pan may use up to FX_SPIN_MEMLIM MB (the largest
#                       check needs ~550 MB); the table keeps the models' order
#   -k, --keep          keep the work directories (kept anyway on failure)
#   -q, --quiet         print the table only
#   --only REGEX        run only the checks whose "model check words" match
#   --long              also run the checks marked "long" (skipped by default)
#   --stop-on-fail      stop at the first check that does not pass (with -j,
#                       checks already running finish; no new one starts)
#   --no-source-check   skip the //@mirrors pins and the step tags (mutated
#                       copies, see mutate.sh)
#   --tsv FILE          also write the results, one tab-separated line per check
#   --rehash            rewrite the //@mirrors hashes of the given models to the
#                       current sources (after reviewing the model!), then exit
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

keep=0 quiet=0 only="" long=0 stop=0 srccheck=1 tsv="" rehash=0 jobs=${FX_SPIN_JOBS:-1}
models=()
while [ $# -gt 0 ]; do
    case "$1" in
    -j | --jobs) jobs=$2; shift ;;
    -j[0-9]*) jobs=${1#-j} ;;
    -k | --keep) keep=1 ;;
    -q | --quiet) quiet=1 ;;
    --only) only=$2; shift ;;
    --long) long=1 ;;
    --stop-on-fail) stop=1 ;;
    --no-source-check) srccheck=0 ;;
    --tsv) tsv=$2; shift ;;
    --rehash) rehash=1 ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check.sh: unknown option $1" >&2; exit 2 ;;
    *) models+=("$1") ;;
    esac
    shift
done
[ ${#models[@]} -gt 0 ] || models=("$here"/*.pml)

for tool in spin gcc; do
    command -v $tool >/dev/null || { echo "check.sh: $tool not found (apt-get install spin gcc)" >&2; exit 2; }
done

[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "check.sh: bad job count '$jobs'" >&2; exit 2; }

# Cap pan's memory (MB): a model that outgrows it fails as incomplete.
memlim=${FX_SPIN_MEMLIM:-2048}
# How pan.c is compiled. -O1: gcc -O2 spends more time compiling pan.c (5 to
# 10 s per check) than most searches take; -O1 compiles in a quarter of that
# and searches at nearly the same speed (FX_SPIN_OPT=-O2 for long searches).
opt=${FX_SPIN_OPT:--O1}

say() { [ $quiet -eq 1 ] || echo "$@"; }

# The pin of "//@mirrors <path> <function>...": sha256 of the functions'
# bodies, in the order given, without comments (gcc -fpreprocessed drops them
# and expands nothing) and without whitespace. A body runs from the column-0
# line that names the function (or object) before "(" or "=" and whose
# header ends in "{" (not ";": a prototype) to the next "}" at column 0.
# Prints the hash, or "missing <function>" and returns 1.
body_hash() {
    local src=$1 out
    shift
    out=$(gcc -fpreprocessed -dD -E -P -x c "$root/$src" 2>/dev/null |
        awk -v names="$*" '
        BEGIN { n = split(names, want, " ") }
        function header_opens(i,   k) {
            for (k = i; k <= nl; k++) {
                if (line[k] ~ /;[[:space:]]*$/) return 0
                if (line[k] ~ /\{[[:space:]]*$/) return 1
            }
            return 0
        }
        { line[++nl] = $0 }
        END {
            for (j = 1; j <= n; j++) {
                found = 0
                for (i = 1; i <= nl && !found; i++) {
                    if (line[i] !~ /^[A-Za-z_]/) continue
                    if (line[i] !~ ("(^|[^A-Za-z0-9_])" want[j] "[[:space:]]*(\\(|=)")) continue
                    if (!header_opens(i)) continue
                    for (k = i; k <= nl; k++) {
                        print line[k]
                        if (line[k] ~ /^}/) break
                    }
                    found = 1
                }
                if (!found) { print "missing " want[j]; exit 1 }
            }
        }') || { echo "${out##*$'\n'}"; return 1; }
    printf '%s' "$out" | tr -d ' \t\n\r\f\v' | sha256sum | cut -c1-64
}

if [ $rehash -eq 1 ]; then
    for m in "${models[@]}"; do
        grep '^//@mirrors ' "$m" | while read -r _ src rest; do
            fns=${rest% sha256=*}
            sum=$(body_hash "$src" $fns) || { echo "$m: $src: $sum" >&2; continue; }
            sed -i "s|^//@mirrors $src $fns sha256=.*|//@mirrors $src $fns sha256=$sum|" "$m"
            echo "$m: $src $fns sha256=$sum"
        done
    done
    exit 0
fi

# Every step tag in src/: "count tag" lines.
steps=$(grep -rhoE '@step [A-Za-z0-9_.]+' "$root/src" | awk '{print $2}' | sort | uniq -c)

[ -z "$tsv" ] || : >"$tsv"
failed=0
total_states=0
res=$(mktemp -d "${TMPDIR:-/tmp}/fxcheck.XXXXXX")
trap 'rm -rf "$res"' EXIT

# Every row of the table is a file $res/<n>.row (tab-separated fields) and
# every message a file $res/<n>.msg, numbered in the models' order, so that
# checks running in parallel still print in order.
n=0
row_to() { # file, then: model check result states transitions depth seconds memory
    local f=$1
    shift
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >"$f"
}

# The checks to run: C_MODEL, C_KIND and C_REST by row number.
declare -A C_MODEL C_KIND C_REST
for model in "${models[@]}"; do
    name=$(basename "$model" .pml)
    if [ ! -f "$model" ]; then
        row_to "$res/$n.row" "$name" "-" ERROR - - - - -
        n=$((n + 1))
        continue
    fi

    # The function pins and the step tags.
    if [ $srccheck -eq 1 ]; then
        while read -r _ src rest; do
            fns=${rest% sha256=*}
            want=${rest##* sha256=}
            if [ ! -f "$root/$src" ]; then
                echo "$name: mirrored source $src not found" >"$res/$n.msg"
                row_to "$res/$n.row" "$name" "mirrors $src" MISSING - - - - -
            elif ! have=$(body_hash "$src" $fns); then
                echo "$name: $src: $have (renamed or removed? review the model)" >"$res/$n.msg"
                row_to "$res/$n.row" "$name" "mirrors $src" MISSING - - - - -
            elif [ "$have" != "$want" ]; then
                {
                    echo "$name: the code of a function the model mirrors in $src changed since the"
                    echo "  model was checked against it ($fns). Review models/$name.pml, update the"
                    echo "  model, then run models/check.sh --rehash models/$name.pml"
                } >"$res/$n.msg"
                row_to "$res/$n.row" "$name" "mirrors $src" STALE - - - - -
            else
                row_to "$res/$n.row" "$name" "mirrors $src" PINNED - - - - -
            fi
            n=$((n + 1))
        done < <(grep '^//@mirrors ' "$model")
        bad=""
        ntags=0
        for tag in $(grep -v '^//@' "$model" | grep -oE '@[a-z_]+\.[A-Za-z0-9_.]*[A-Za-z0-9_]' | sort -u); do
            ntags=$((ntags + 1))
            cnt=$(awk -v t="${tag#@}" '$2 == t {print $1}' <<<"$steps")
            [ "${cnt:-0}" = 1 ] || bad="$bad ${tag#@}(${cnt:-0})"
        done
        if [ -n "$bad" ]; then
            {
                echo "$name: cited step tags not found exactly once in src/ (count):"
                echo "   $bad"
            } >"$res/$n.msg"
            row_to "$res/$n.row" "$name" "steps ($ntags cited)" MISSING - - - - -
        else
            row_to "$res/$n.row" "$name" "steps ($ntags cited)" PINNED - - - - -
        fi
        n=$((n + 1))
    fi

    while read -r _ kind rest; do
        C_MODEL[$n]=$model
        C_KIND[$n]=$kind
        C_REST[$n]=$rest
        n=$((n + 1))
    done < <(grep '^//@check ' "$model")
done

# One check: writes $res/$i.row, and $res/$i.msg when there is something to say.
run_check() {
    local i=$1 model=${C_MODEL[$1]} kind=${C_KIND[$1]} rest=${C_REST[$1]}
    local name claim="" w defs=() panflags=() expect_fail=0
    name=$(basename "$model" .pml)
    exec 3>"$res/$i.msg"
    set -- $rest
    if [ "$kind" = ltl ]; then
        claim=$1
        shift
    elif [ "$kind" != safety ]; then
        echo "$name: unknown check kind '$kind'" >&3
        row_to "$res/$i.row" "$name" "$kind $rest" ERROR - - - - -
        return
    fi
    for w in "$@"; do
        case "$w" in
        -D*) defs+=("$w") ;;
        expect-fail) expect_fail=1 ;;
        long) ;;
        -*) panflags+=("$w") ;;
        *) echo "$name: unknown word '$w' in //@check $kind $rest" >&3; expect_fail=2 ;;
        esac
    done
    local label="$kind${claim:+ $claim}${*:+ $*}"
    if [ $expect_fail -eq 2 ]; then
        row_to "$res/$i.row" "$name" "$label" ERROR - - - - -
        return
    fi

    local work t0 t1 secs result="" errors="" states="-" trans="-" depth="-" mem="-"
    local ccflags runflags out incomplete
    work=$(mktemp -d "${TMPDIR:-/tmp}/fxspin.$name.XXXXXX")
    cp "$model" "$work/$name.pml"
    t0=$(date +%s.%N)
    if [ "$kind" = safety ]; then
        ccflags=(-DSAFETY -DNOCLAIM)
        runflags=()
    else
        ccflags=()
        runflags=(-a -f -N "$claim")
    fi
    if ! (cd "$work" && spin -a "${defs[@]}" "$name.pml") >"$work/spin.log" 2>&1 ||
        grep -qi 'error' "$work/spin.log"; then
        result=ERROR
        echo "$name: $label: spin -a failed:" >&3
        sed 's/^/    /' "$work/spin.log" >&3
    elif ! (cd "$work" && gcc "$opt" -w "${defs[@]}" "${ccflags[@]}" -DCOLLAPSE \
        -DMEMLIM="$memlim" -o pan pan.c) >"$work/gcc.log" 2>&1; then
        result=ERROR
        echo "$name: $label: gcc pan.c failed:" >&3
        sed 's/^/    /' "$work/gcc.log" >&3
    else
        (cd "$work" && ./pan -w20 "${runflags[@]}" "${panflags[@]}") >"$work/pan.log" 2>&1
        out="$work/pan.log"
        errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$out" | tail -1)
        states=$(awk '/states, stored/ {print $1; exit}' "$out")
        trans=$(awk '/transitions \(=/ {print $1; exit}' "$out")
        depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' "$out" | tail -1)
        mem=$(awk '/total actual memory usage/ {print $1; exit}' "$out")
        incomplete=""
        grep -q 'max search depth too small' "$out" && incomplete="depth limit reached"
        grep -q 'out of memory' "$out" && incomplete="out of memory"
        grep -q '^pan: error' "$out" && incomplete="$(grep -m1 '^pan: error' "$out")"
        # The search must have checked what the line asked for.
        if [ "$kind" = safety ]; then
            grep -Eq 'assertion violations[[:space:]]+\+$' "$out" &&
                grep -Eq 'invalid end states[[:space:]]+\+' "$out" ||
                incomplete="${incomplete:-assertions or end states not checked}"
        else
            grep -Eq "never claim[[:space:]]+\+ \($claim\)" "$out" &&
                grep -Eq 'acceptance +cycles[[:space:]]+\+ \(fairness enabled\)' "$out" ||
                incomplete="${incomplete:-claim $claim with fairness not checked}"
        fi
        if [ -z "$errors" ]; then
            result=ERROR
            echo "$name: $label: pan did not finish:" >&3
            tail -5 "$out" | sed 's/^/    /' >&3
        elif [ "$errors" -gt 0 ]; then
            if [ $expect_fail -eq 1 ]; then
                result="FAIL-OK"
            else
                result=FAIL
                # Replay the counterexample into the work directory.
                (cd "$work" && spin -t -p -g -l "${defs[@]}" "$name.pml") \
                    >"$work/trail.txt" 2>&1
                echo "$name: $label: $errors error(s); counterexample in $work/trail.txt" >&3
                grep -m3 -E 'assertion violated|acceptance cycle|invalid end state' "$out" |
                    sed 's/^/    /' >&3
            fi
        elif [ -n "$incomplete" ]; then
            result=INCOMPLETE
            echo "$name: $label: incomplete search: $incomplete" >&3
        elif [ $expect_fail -eq 1 ]; then
            result=NO-FAIL
            echo "$name: $label: expected a violation, the search found none" >&3
        else
            result=PASS
        fi
    fi
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
    case "$result" in
    PASS | FAIL-OK) [ $keep -eq 1 ] || rm -rf "$work" ;;
    esac
    row_to "$res/$i.row" "$name" "$label" "$result" "${states:--}" "${trans:--}" "${depth:--}" \
        "$secs" "${mem:--}"
}

# A row that is not a pass.
row_failed() {
    [ -f "$res/$1.row" ] || return 1
    case "$(cut -f3 "$res/$1.row")" in
    PASS | FAIL-OK | PINNED) return 1 ;;
    esac
    return 0
}

# The job pool: at most $jobs checks at a time; with --stop-on-fail, none
# starts once a finished one (or a source pin) has failed.
stopped=0
for ((i = 0; i < n; i++)); do
    [ -n "${C_MODEL[$i]+x}" ] || continue
    name=$(basename "${C_MODEL[$i]}" .pml)
    if [ -n "$only" ] && ! [[ "$name ${C_KIND[$i]} ${C_REST[$i]}" =~ $only ]]; then
        continue
    fi
    if [ $long -eq 0 ] && [[ " ${C_REST[$i]} " == *" long "* ]]; then
        continue
    fi
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n
    done
    if [ $stop -eq 1 ]; then
        for ((k = 0; k < i; k++)); do
            row_failed $k && stopped=1
        done
        [ $stopped -eq 0 ] || break
    fi
    run_check "$i" &
done
wait

rows=()
for ((i = 0; i < n; i++)); do
    [ -f "$res/$i.row" ] || continue
    [ $quiet -eq 1 ] || [ ! -s "$res/$i.msg" ] || cat "$res/$i.msg"
    IFS=$'\t' read -r m c r st tr d se me <"$res/$i.row"
    rows+=("$(printf '%-12s %-58s %-10s %12s %13s %9s %8s %8s' "$m" "$c" "$r" "$st" "$tr" "$d" "$se" "$me")")
    [ -z "$tsv" ] || cat "$res/$i.row" >>"$tsv"
    case "$r" in
    PASS | FAIL-OK) [ "$st" = "-" ] || total_states=$((total_states + ${st%%.*})) ;;
    PINNED) ;;
    *) failed=1 ;;
    esac
done

if [ $quiet -eq 0 ] || [ ${#rows[@]} -gt 0 ]; then
    printf '%-12s %-58s %-10s %12s %13s %9s %8s %8s\n' model check result \
        "states" "transitions" depth "time(s)" "mem(MB)"
    printf '%s\n' "${rows[@]}"
    say "states stored in passing checks: $total_states"
    say "(FAIL-OK: a violation was expected and found; see the model's header)"
fi
exit $failed
