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
#
# and "//@source <path> sha256=<hex>" pins the source file the model mirrors:
# when that file changes, the model is reported STALE until it has been
# reviewed against the new source and the hash updated (--rehash).
#
# Per check: spin -a; gcc -O2 [-DSAFETY -DNOCLAIM]; ./pan [-a -f -N claim], in a
# temporary directory. A check fails on errors > 0, on an incomplete search
# (depth limit reached, search truncated, out of memory), and on any build or
# run error. A summary table is printed; the exit status is 0 when every check
# passed.
#
# usage: models/check.sh [options] [model.pml ...]   (default: models/*.pml)
#   -k, --keep          keep the work directories (kept anyway on failure)
#   -q, --quiet         print the table only
#   --only REGEX        run only the checks whose "model check words" match
#   --stop-on-fail      stop at the first check that does not pass
#   --no-source-check   skip the //@source pins (mutated copies, see mutate.sh)
#   --tsv FILE          also write the results, one tab-separated line per check
#   --rehash            rewrite the //@source hashes of the given models to the
#                       current sources (after reviewing the model!), then exit
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

keep=0 quiet=0 only="" stop=0 srccheck=1 tsv="" rehash=0
models=()
while [ $# -gt 0 ]; do
    case "$1" in
    -k | --keep) keep=1 ;;
    -q | --quiet) quiet=1 ;;
    --only) only=$2; shift ;;
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

# Cap pan's memory (MB): a model that outgrows it fails as incomplete.
memlim=${FX_SPIN_MEMLIM:-2048}

say() { [ $quiet -eq 1 ] || echo "$@"; }

if [ $rehash -eq 1 ]; then
    for m in "${models[@]}"; do
        grep -o '^//@source [^ ]*' "$m" | while read -r _ src; do
            sum=$(sha256sum "$root/$src" | cut -c1-64)
            sed -i "s|^//@source $src sha256=.*|//@source $src sha256=$sum|" "$m"
            echo "$m: $src sha256=$sum"
        done
    done
    exit 0
fi

[ -z "$tsv" ] || : >"$tsv"
rows=()
failed=0
total_states=0

row() { # model check result states transitions depth seconds memory
    rows+=("$(printf '%-12s %-58s %-10s %12s %13s %9s %8s %8s' "$@")")
    [ -z "$tsv" ] || printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$tsv"
}

for model in "${models[@]}"; do
    name=$(basename "$model" .pml)
    if [ ! -f "$model" ]; then
        row "$name" "-" ERROR - - - - -
        failed=1
        continue
    fi

    # The source pins.
    if [ $srccheck -eq 1 ]; then
        while read -r _ src pin; do
            want=${pin#sha256=}
            if [ ! -f "$root/$src" ]; then
                say "$name: pinned source $src not found"
                row "$name" "source $src" MISSING - - - - -
                failed=1
                continue
            fi
            have=$(sha256sum "$root/$src" | cut -c1-64)
            if [ "$have" != "$want" ]; then
                say "$name: $src changed since the model was checked against it."
                say "  Review models/$name.pml against $src, update the model, then run"
                say "  models/check.sh --rehash models/$name.pml"
                row "$name" "source $src" STALE - - - - -
                failed=1
            else
                row "$name" "source $src" PINNED - - - - -
            fi
        done < <(grep '^//@source ' "$model")
    fi

    while read -r _ kind rest; do
        set -- $rest
        claim=""
        if [ "$kind" = ltl ]; then
            claim=$1
            shift
        elif [ "$kind" != safety ]; then
            say "$name: unknown check kind '$kind'"
            row "$name" "$kind $rest" ERROR - - - - -
            failed=1
            continue
        fi
        defs=() panflags=() expect_fail=0
        for w in "$@"; do
            case "$w" in
            -D*) defs+=("$w") ;;
            expect-fail) expect_fail=1 ;;
            -*) panflags+=("$w") ;;
            *) say "$name: unknown word '$w' in //@check $kind $rest"; expect_fail=2 ;;
            esac
        done
        label="$kind${claim:+ $claim}${*:+ $*}"
        if [ -n "$only" ] && ! [[ "$name $label" =~ $only ]]; then
            continue
        fi
        if [ $expect_fail -eq 2 ]; then
            row "$name" "$label" ERROR - - - - -
            failed=1
            continue
        fi

        work=$(mktemp -d "${TMPDIR:-/tmp}/fxspin.$name.XXXXXX")
        cp "$model" "$work/$name.pml"
        t0=$(date +%s.%N)
        result="" errors="" states="-" trans="-" depth="-" mem="-"
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
            say "$name: $label: spin -a failed:"
            [ $quiet -eq 1 ] || sed 's/^/    /' "$work/spin.log"
        elif ! (cd "$work" && gcc -O2 -w "${defs[@]}" "${ccflags[@]}" -DCOLLAPSE \
            -DMEMLIM="$memlim" -o pan pan.c) >"$work/gcc.log" 2>&1; then
            result=ERROR
            say "$name: $label: gcc pan.c failed:"
            [ $quiet -eq 1 ] || sed 's/^/    /' "$work/gcc.log"
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
                say "$name: $label: pan did not finish:"
                [ $quiet -eq 1 ] || tail -5 "$out" | sed 's/^/    /'
            elif [ "$errors" -gt 0 ]; then
                if [ $expect_fail -eq 1 ]; then
                    result="FAIL-OK"
                else
                    result=FAIL
                    # Replay the counterexample into the work directory.
                    (cd "$work" && spin -t -p -g -l "${defs[@]}" "$name.pml") \
                        >"$work/trail.txt" 2>&1
                    say "$name: $label: $errors error(s); counterexample in $work/trail.txt"
                    [ $quiet -eq 1 ] || grep -m3 -E 'assertion violated|acceptance cycle|invalid end state' "$out" | sed 's/^/    /'
                fi
            elif [ -n "$incomplete" ]; then
                result=INCOMPLETE
                say "$name: $label: incomplete search: $incomplete"
            elif [ $expect_fail -eq 1 ]; then
                result=NO-FAIL
                say "$name: $label: expected a violation, the search found none"
            else
                result=PASS
            fi
        fi
        t1=$(date +%s.%N)
        secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
        row "$name" "$label" "$result" "${states:--}" "${trans:--}" "${depth:--}" "$secs" "${mem:--}"
        case "$result" in
        PASS | FAIL-OK)
            [ "$states" = "-" ] || total_states=$((total_states + ${states%%.*}))
            [ $keep -eq 1 ] || rm -rf "$work"
            ;;
        *)
            failed=1
            ;;
        esac
        if [ $failed -eq 1 ] && [ $stop -eq 1 ]; then
            break 2
        fi
    done < <(grep '^//@check ' "$model")
done

if [ $quiet -eq 0 ] || [ ${#rows[@]} -gt 0 ]; then
    printf '%-12s %-58s %-10s %12s %13s %9s %8s %8s\n' model check result \
        "states" "transitions" depth "time(s)" "mem(MB)"
    printf '%s\n' "${rows[@]}"
    say "states stored in passing checks: $total_states"
    say "(FAIL-OK: a violation was expected and found; see the model's header)"
fi
exit $failed
