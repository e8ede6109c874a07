#!/bin/sh
# tests/docs/check_docs.sh [SOURCE_DIR] - where two places must agree, check it:
#  1. README.md is under 300 lines of at most 100 characters (the landing page;
#     the rest lives in docs/).
#  2. Every public function declared in include/futexsync/*.h is named in the
#     README's "API at a glance" section, or on its docs/ page
#     (docs/design/<header>.md or docs/<header>.md).
#  3. Every relative link in README.md, docs/**/*.md and bench/README.md points
#     at a file or directory that exists.
#  4. Every public header that declares a function states the return rule in
#     the words of the README's Conventions (its "**returns**:" item, up to
#     "errno is never set"; backquotes and comment layout aside).
#  5. The recheck periods the headers promise ("at least every half second",
#     "a waiting writer every quarter second") are the source's:
#     FXI_RECHECK_NS (src/internal/sleep.h), FXI_RWLOCK_WRITER_RECHECK_NS
#     (src/rwlock.c).
#  6. The owner-death bounds rmutex.h and once.h state in words ("a waiter
#     notices a dead owner at most a quarter of a second after the death")
#     are the periods of src/internal/probe_periods.h.
#  7. Every public header but layout.h (the slot-encoding reference) opens
#     with a comment of at most 30 lines, /* to */ included, that shows a
#     usage example: a line of C indented four spaces past the comment's
#     " * " (gen-man's preformatted text), with no backquote, that calls a
#     public function (fx_...() and ends, a // comment aside, in ; { or ).
#     Issue 33: what the object is, how to call it and its contract, read in
#     a minute; the design lives in docs/design/.
# Prints one line per problem and exits 1 if there is any. POSIX sh, grep, sed,
# awk and find only.
set -u
root=${1:-$(dirname "$0")/../..}
cd "$root" || exit 2
fail=0
problem() {
    printf 'docs_check: %s\n' "$*"
    fail=1
}

# 1. README length: under 300 lines of at most 100 characters.
max_lines=299
lines=$(wc -l < README.md)
if [ "$lines" -gt "$max_lines" ]; then
    problem "README.md has $lines lines, more than $max_lines: move the details to docs/"
fi
long=$(awk 'length > 100 { print FILENAME ":" NR ": " length " characters" }' README.md)
if [ -n "$long" ]; then
    problem "README.md lines over 100 characters:
$long"
fi

# 2. Public functions. A declaration is a line outside comments and preprocessor
# lines that names fx_<name>( ; the first such name on the line is the function.
api=$(awk '/^## API at a glance/ {on = 1; next} /^## / {on = 0} on' README.md)
if [ -z "$api" ]; then
    problem "README.md has no '## API at a glance' section"
fi
nfun=0
for h in include/futexsync/*.h; do
    base=$(basename "$h" .h)
    funcs=$(awk '
        {
            # Drop comments, which may span lines.
            line = $0; out = ""
            while (1) {
                if (incomment) {
                    p = index(line, "*/")
                    if (p == 0) { line = ""; break }
                    line = substr(line, p + 2); incomment = 0
                }
                p = index(line, "/*")
                if (p == 0) { out = out line; break }
                out = out substr(line, 1, p - 1); line = substr(line, p + 2); incomment = 1
            }
            sub(/\/\/.*/, "", out)
            # Declarations start in column 0; skip the preprocessor and the
            # indented continuation lines.
            if (out ~ /^[ \t#]/ || out == "") next
            if (match(out, /fx_[a-z0-9_]+\(/)) print substr(out, RSTART, RLENGTH - 1)
        }
    ' "$h" | sort -u)
    for f in $funcs; do
        nfun=$((nfun + 1))
        if printf '%s\n' "$api" | grep -q "\`$f("; then
            continue
        fi
        if printf '%s\n' "$api" | grep -q "\`$f\`"; then
            continue
        fi
        found=0
        for page in "docs/design/$base.md" "docs/$base.md"; do
            if [ -f "$page" ] && grep -q "$f" "$page"; then
                found=1
            fi
        done
        if [ "$found" -eq 0 ]; then
            problem "$f (declared in $h) is in neither the README's API at a glance nor docs/design/$base.md or docs/$base.md"
        fi
    done
done
if [ "$nfun" -eq 0 ]; then
    problem "found no public function in include/futexsync/*.h: the declaration pattern no longer matches"
fi

# 3. Relative links: [text](target) with target not a URL nor a bare #anchor.
# Code spans are removed first, so that `a[i](x)` in code is not a link.
nlinks=0
for md in README.md bench/README.md $(find docs -name '*.md' 2>/dev/null | sort); do
    [ -f "$md" ] || continue
    dir=$(dirname "$md")
    # shellcheck disable=SC2016 # the backquotes are sed's, not the shell's
    targets=$(sed -e 's/`[^`]*`//g' "$md" |
        grep -o '\]([^)[:space:]]*)' |
        sed -e 's/^](//' -e 's/)$//' -e 's/#.*$//')
    for t in $targets; do
        case "$t" in
        '' | *://* | mailto:*) continue ;;
        esac
        nlinks=$((nlinks + 1))
        case "$t" in
        /*) path=".$t" ;;
        *) path="$dir/$t" ;;
        esac
        if [ ! -e "$path" ]; then
            problem "$md links to $t, which does not exist"
        fi
    done
done

# 4. The return rule, once in the README, in the same words in every header.
# shellcheck disable=SC2016 # the backquotes are the Markdown's, not the shell's
# The Conventions section's "**returns**:" item, joined across its lines.
rule=$(awk '/^## Conventions/ {on = 1; next} /^## / {on = 0} on' README.md |
    awk '/^- \*\*returns\*\*:/ {on = 1; sub(/^- \*\*returns\*\*: */, ""); t = $0; next}
         on && /^  / {sub(/^ +/, ""); t = t " " $0; next} {on = 0} END {print t}' |
    sed -n 's/^\(.*`errno` is never set\).*/\1/p' | tr -d '`')
nrule=0
if [ -z "$rule" ]; then
    problem "README.md's Conventions have no '**returns**:' item ending in 'errno is never set'"
else
    for h in include/futexsync/*.h; do
        # Only headers that declare a call (not annotations.h, layout.h).
        grep -qE '^[a-z].*[ *]fx_[a-z0-9_]+\(' "$h" || continue
        text=$(sed -e 's/^ *\*\/\{0,1\} \{0,1\}//' -e 's/^\/\* \{0,1\}//' "$h" | tr '\n' ' ' | tr -s ' ')
        case "$text" in
        *"$rule"*) nrule=$((nrule + 1)) ;;
        *) problem "$h does not state the README's return rule: \"$rule\"" ;;
        esac
    done
fi

# 5. Recheck periods: a period in the source, in the words the headers use.
period_words() {
    case "$1" in
    250) echo "quarter second" ;;
    500) echo "half second" ;;
    1000) echo "second" ;;
    *) echo "$1 ms" ;;
    esac
}
period_ms() { # NAME FILE: the N of "#define NAME (N * 1000000LL)"
    sed -n "s/^#define $1 (\([0-9]*\) \* 1000000LL).*/\1/p" "$2"
}
recheck_ms=$(period_ms FXI_RECHECK_NS src/internal/sleep.h)
writer_ms=$(period_ms FXI_RWLOCK_WRITER_RECHECK_NS src/rwlock.c)
nperiod=0
if [ -z "$recheck_ms" ] || [ -z "$writer_ms" ]; then
    problem "cannot read FXI_RECHECK_NS or FXI_RWLOCK_WRITER_RECHECK_NS as (N * 1000000LL)"
else
    want_all="at least every $(period_words "$recheck_ms")"
    want_writer="waiting writer every $(period_words "$writer_ms")"
    for h in include/futexsync/*.h; do
        said=$(sed -e 's/^ *\*\/\{0,1\} \{0,1\}//' -e 's/^\/\* \{0,1\}//' "$h" | tr '\n' ' ' | tr -s ' ' |
               grep -o 'at least every [a-z0-9]* [a-z]*\|waiting writer every [a-z0-9]* [a-z]*')
        [ -n "$said" ] || continue
        while IFS= read -r phrase; do
            case "$phrase" in
            "$want_all" | "$want_writer") nperiod=$((nperiod + 1)) ;;
            *) problem "$h says \"$phrase\"; the source's periods are $recheck_ms ms (\"$want_all\") and $writer_ms ms for writers (\"$want_writer\")" ;;
            esac
        done <<EOF_PHRASES
$said
EOF_PHRASES
    done
    [ "$nperiod" -gt 0 ] || problem "no header states the recheck period (\"$want_all\")"
fi

# 6. Owner-death bounds: the probe periods, in the words the headers use.
ms_words() {
    case "$1" in
    1) echo "a millisecond" ;;
    100) echo "a tenth of a second" ;;
    250) echo "a quarter of a second" ;;
    500) echo "half a second" ;;
    1000) echo "a second" ;;
    *) echo "$1 ms" ;;
    esac
}
probe_ms() { # NAME: the N of "#define NAME N"
    sed -n "s/^#define $1  *\([0-9]*\)$/\1/p" src/internal/probe_periods.h
}
flat_header() {
    sed -e 's/^ *\*\/\{0,1\} \{0,1\}//' -e 's/^\/\* \{0,1\}//' "$1" | tr '\n' ' ' | tr -s ' '
}
first_ms=$(probe_ms FXI_RMUTEX_FIRST_CHECK_MS)
recheck_rm_ms=$(probe_ms FXI_RMUTEX_RECHECK_MS)
long_ms=$(probe_ms FXI_RMUTEX_LONG_RECHECK_MS)
once_ms=$(probe_ms FXI_ONCE_CHECK_MS)
nbound=0
if [ -z "$first_ms" ] || [ -z "$recheck_rm_ms" ] || [ -z "$long_ms" ] || [ -z "$once_ms" ]; then
    problem "cannot read the FXI_*_MS periods of src/internal/probe_periods.h as #define NAME N"
else
    # A PROBED initialiser's callers look at the engine's period (the
    # rmutex's long one: src/rmutex_watch.c asserts it) or at their own.
    once_bound=$long_ms
    [ "$once_ms" -gt "$once_bound" ] && once_bound=$once_ms
    while IFS='|' read -r h phrase; do
        case "$(flat_header "$h")" in
        *"$phrase"*) nbound=$((nbound + 1)) ;;
        *) problem "$h does not say \"$phrase\" (the periods of src/internal/probe_periods.h)" ;;
        esac
    done <<EOF_BOUNDS
include/futexsync/rmutex.h|first looks $(ms_words "$first_ms") after it finds the owner
include/futexsync/rmutex.h|notices a dead owner at most $(ms_words "$long_ms") after the death
include/futexsync/rmutex.h|at most once every $(ms_words "$recheck_rm_ms") per calling thread
include/futexsync/once.h|$(ms_words "$once_ms") after they first sleep
include/futexsync/once.h|notices a dead initialiser at most $(ms_words "$once_bound") after the death
EOF_BOUNDS
fi

# 7. Short openings with an example.
max_opening=30
nopening=0
for h in include/futexsync/*.h; do
    [ "$(basename "$h")" = layout.h ] && continue
    # The opening comment: from line 1, which opens it, to the first "*/".
    shape=$(awk '
        NR == 1 && $0 !~ /^\/\*/ { print "none"; exit }
        /^ \*     / {
            code = substr($0, 4); sub(/\/\/.*/, "", code); sub(/[ \t]+$/, "", code)
            if (code !~ /`/ && code ~ /fx_[a-z0-9_]+\(/ && code ~ /[;{)]$/) example = 1
        }
        /\*\// { print NR, example + 0; exit }
    ' "$h")
    case "$shape" in
    none | "") problem "$h does not open with a comment"; continue ;;
    esac
    n=${shape% *} ex=${shape#* }
    [ "$n" -le "$max_opening" ] ||
        problem "$h opens with a comment of $n lines, more than $max_opening: move the design to docs/design/ and a call's details to its own comment"
    [ "$ex" -eq 1 ] ||
        problem "$h's opening comment shows no usage example (a line of C, indented four spaces past \" * \", that calls fx_...())"
    nopening=$((nopening + 1))
done
[ "$nopening" -gt 0 ] || problem "found no public header to check the opening of"

if [ "$fail" -eq 0 ]; then
    echo "docs_check: ok (README.md $lines lines, $nfun public functions, $nlinks relative links, the return rule in $nrule headers, $nperiod recheck periods, $nbound owner-death bounds, $nopening short openings with an example)"
fi
exit "$fail"
