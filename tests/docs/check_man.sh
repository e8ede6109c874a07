#!/bin/sh
# tests/docs/check_man.sh MANDIR SRCROOT CC LIBRARY [CFLAGS] - the generated manual
# (scripts/gen-man.sh) as a reader meets it:
#   - every public function of the headers has a page; every page renders
#     with groff -man -ww without a warning;
#   - no roff escape reaches the reader literally (a printed \& or \fB);
#   - every page has a non-empty NAME, SYNOPSIS and DESCRIPTION, and a
#     function's page a non-empty RETURN VALUE and ERRORS;
#   - the errno values a function's contract names (its DESCRIPTION, the
#     header comment) are exactly its ERRORS entries, but for promises
#     ("Never EINTR") and errors inherited from the call it varies ("As for
#     fx_x(3): ..."); the errno names are <errno.h>'s own;
#   - every function has a contract comment in its header, and every public
#     macro a comment (in MACROS, "Undocumented" otherwise); no page points
#     into the source tree (src/, docs/, README), which an
#     installed user does not have, or prints a backquote;
#   - each EXAMPLE program, docs/man/*.c, compiles with -Wall -Wextra -Werror
#     and runs successfully against LIBRARY (CFLAGS: the library's
#     sanitizer flags, for the examples too), through $FUTEXSYNC_EMULATOR
#     in a cross build (qemu-user).
set -eu
man=$1 src=$2 cc=$3 lib=$4 cflags=${5:-}
fail=0
bad() { echo "check_man: $*" >&2; fail=1; }
command -v groff >/dev/null || { echo "check_man: groff is missing (apt-get install groff-base)" >&2; exit 1; }

sed -e 's://.*$::' "$src"/include/futexsync/*.h | perl -0777 -pe 's:/\*.*?\*/::gs' |
    grep -oE '[ *]fx_[a-z0-9_]+[[:space:]]*\(' | grep -oE 'fx_[a-z0-9_]+' | sort -u >"$man/.public"
[ -s "$man/.public" ] || bad "no public function found in the headers"
while read -r f; do
    [ -f "$man/$f.3" ] || bad "no page for $f"
done <"$man/.public"

echo '#include <errno.h>' | "$cc" -E -dM - | awk '$2 ~ /^E[A-Z0-9]+$/ { print $2 }' | sort -u >"$man/.errnos"

for page in "$man"/*.3; do
    warn=$(LC_ALL=C groff -man -Tutf8 -ww -z "$page" 2>&1) || bad "groff failed on $page"
    [ -z "$warn" ] || bad "groff warns on $page: $warn"
    # Escapes that reach the reader literally (double-escaped roff).
    if LC_ALL=C groff -man -Tutf8 "$page" 2>/dev/null | grep -qE '\\[&e]|\\f[BIRP]'; then
        bad "$page prints a roff escape literally"
    fi
    perl -e '
        my ($page, $errfile, $public) = @ARGV;
        open my $fh, "<", $errfile or die; my %errno = map { chomp; $_ => 1 } <$fh>; close $fh;
        open $fh, "<", $page or die; my @l = <$fh>; close $fh;
        my (%sec, $cur);
        for (@l) {
            chomp;
            if (/^\.SH\s+"?([^"]*)"?\s*$/) { $cur = $1; $sec{$cur} //= ""; next }
            next unless defined $cur;
            next if /^\.(?:PP|fi|nf|EX|EE|TP|br|sp)\b/;
            $sec{$cur} .= "$_\n";
        }
        my $st = 0;
        my $fn = $page =~ m{/(fx_[a-z0-9_]+)\.3$} ? $1 : undef;
        my @req = ("NAME", "SYNOPSIS", "DESCRIPTION", $fn ? ("RETURN VALUE", "ERRORS") : ());
        for my $s (@req) {
            if (!defined $sec{$s} || $sec{$s} !~ /\w/) { print STDERR "check_man: $page: section $s missing or empty\n"; $st = 1 }
        }
        my $all = join "\n", @l;
        if ($all =~ m{(\b(?:src|docs|tests)/[\w./-]+|\bREADME\b)}) { print STDERR "check_man: $page points into the source tree: $1\n"; $st = 1 }
        if ($all =~ /^Undocumented:/m) { print STDERR "check_man: $page: the header gives a call or a macro no comment\n"; $st = 1 }
        if ($all =~ /`/) { print STDERR "check_man: $page prints a backquote\n"; $st = 1 }
        if ($fn) {
            my $plain = sub { my $t = shift; $t =~ s/\\f[BIRP]//g; $t =~ s/\\-/-/g; $t =~ s/\\e/\\/g; $t =~ s/\s*\n\s*/ /g; return $t };
            my $desc = $plain->($sec{DESCRIPTION} // "");
            # Promises: "Never EINTR", "never EINTR, never EAGAIN", "never EINTR or EAGAIN".
            $desc =~ s/\b[Nn]ever\s+-?E[A-Z0-9]+(?:(?:,\s*|\s+or\s+|\s+nor\s+)(?:never\s+)?-?E[A-Z0-9]+)*//g;
            my %named; $named{$1} = 1 while $desc =~ /\b-?(E[A-Z0-9]{2,})\b/g;
            delete $named{$_} for grep { !$errno{$_} } keys %named;
            my (%listed, %inherited);
            my @e = split /\n/, ($sec{ERRORS} // "");
            for my $i (0 .. $#e) {
                next unless $e[$i] =~ /^\.B\s+(E[A-Z0-9]+)\s*$/;
                my $en = $1;
                $listed{$en} = 1;
                $inherited{$en} = 1 if ($e[$i + 1] // "") =~ /^[Aa]s for \\fB(fx_[a-z0-9_]+)\\fP\(3\)/;
            }
            for (sort keys %named) { next if $listed{$_}; print STDERR "check_man: $page: $_ is named by the contract but not in ERRORS\n"; $st = 1 }
            for (sort keys %listed) {
                next if $named{$_} || $inherited{$_};
                print STDERR "check_man: $page: ERRORS lists $_, which the contract does not name\n"; $st = 1;
                print STDERR "check_man: $page: $_ is not an errno value\n" unless $errno{$_};
            }
        }
        exit $st;
    ' "$page" "$man/.errnos" "$man/.public" || fail=1
done

for ex in "$src"/docs/man/*.c; do
    [ -f "$ex" ] || continue
    base=$(basename "$ex" .c)
    [ -f "$src/include/futexsync/$base.h" ] || bad "$ex: no header futexsync/$base.h for it"
    grep -q '^\.SH EXAMPLE' "$man/futexsync_$base.3" || bad "futexsync_$base.3 has no EXAMPLE"
    # shellcheck disable=SC2086
    if ! "$cc" -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE $cflags -I"$src/include" "$ex" "$lib" -pthread \
            -o "$man/.example_$base" 2>"$man/.example_$base.log"; then
        cat "$man/.example_$base.log" >&2
        bad "$ex does not compile"
        continue
    fi
    # shellcheck disable=SC2086 # FUTEXSYNC_EMULATOR: a cross build's command words
    ${FUTEXSYNC_EMULATOR:-} "$man/.example_$base" >"$man/.example_$base.out" 2>&1 || { cat "$man/.example_$base.out" >&2; bad "$ex failed"; }
done
rm -f "$man"/.public "$man"/.errnos "$man"/.example_*
[ "$fail" -eq 0 ] || exit 1
echo "check_man: $(find "$man" -name '*.3' | wc -l) pages render cleanly; sections and ERRORS match the headers; examples run"
