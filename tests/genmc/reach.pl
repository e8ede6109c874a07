#!/usr/bin/perl
# tests/genmc/reach.pl - puts a reach marker at every step tag of one C file,
# in place (a copy of src/: tests/genmc/reach.sh runs it), and prints one
# line per tag: "tag<TAB>kind<TAB>file:line".
#
# A tag is the last words of a comment, "@step <tag> */": the comment that
# says why its statement is written so ("/* Release: ... @step x */"), or a
# lone "/* @step x */" where the statement needs no why. The step is the
# code after that comment (CONTRIBUTING.md, "Comments").
#
# A marker is a printf that GenMC's interpreter performs ("@reached <tag>"),
# so a GenMC run lists every site that some explored execution executed. A
# step is the code from its tag's comment to the next tag's comment or the
# end of the block; the marker goes where that step acts:
#
#   op      the step's atomic operations and futex calls (__atomic_*
#           builtins, fxi_futex_*, and the one-operation wrappers cas_state,
#           load_state, sem_take, fxi_waiters_enter, fxi_counter_waiter_*):
#           the n-th call becomes (marker "<tag>#n", call). The step is
#           reached when any of them runs, whether or not a CAS succeeds;
#           kind "op/N" says how many there are;
#   branch  no operation, and the step is an if (or while, or an else):
#           "if (C)" becomes "if ((tested, (C)) && reached)" -- reached
#           only when its branch is taken (the Promela models cite such tags
#           at the guarded branch); "@tested <tag>" says the test ran;
#   stmt    no operation, another statement (an assignment, a return, the
#           end of a loop's body): a marker statement before it;
#   decl    a tag outside any function (a table of states): no site.
#
# A tag whose comment begins after code on the same line marks that
# statement: after a "{" the marker is the branch's first statement,
# otherwise the statement is an op as above or is wrapped as
# "{ marker; statement }" (it may be the body of an if without braces).
# Markers are inserted within the lines, so line numbers stay those of src/
# (the prelude ends with #line 1); the line printed is the tag's.
# A tag no rule fits is printed with kind "none" and left unmarked:
# reach.sh fails on it.
use strict;
use warnings;

my ($file, $label) = @ARGV;
die "usage: reach.pl FILE [LABEL]\n" unless defined $file;
$label //= $file;
open(my $fh, '<', $file) or die "$file: $!\n";
my $s = do { local $/; <$fh> };
close $fh;
my $n = length $s;

# What each character is: c code, m comment, s string or character literal,
# p preprocessor line.
my @k = ('c') x $n;
my @cstart;    # for a character of a comment: where that comment begins
{
    my $i = 0;
    my $bol = 1;
    while ($i < $n) {
        my $c = substr($s, $i, 1);
        if ($bol && substr($s, $i) =~ /^[ \t]*#/) {
            # a directive, with its continuation lines
            while ($i < $n) {
                my $e = index($s, "\n", $i);
                $e = $n - 1 if $e < 0;
                my $line = substr($s, $i, $e - $i);
                $k[$_] = 'p' for $i .. $e;
                $i = $e + 1;
                last unless $line =~ /\\\s*$/;
            }
            next;
        }
        $bol = 0;
        if (substr($s, $i, 2) eq '/*') {
            my $e = index($s, '*/', $i + 2);
            die "$file: unterminated comment\n" if $e < 0;
            $k[$_] = 'm' for $i .. $e + 1;
            $cstart[$_] = $i for $i .. $e + 1;
            $i = $e + 2;
            next;
        }
        if (substr($s, $i, 2) eq '//') {
            my $e = index($s, "\n", $i);
            $e = $n if $e < 0;
            $k[$_] = 'm' for $i .. $e - 1;
            $cstart[$_] = $i for $i .. $e - 1;
            $i = $e;
            next;
        }
        if ($c eq '"' || $c eq "'") {
            my $j = $i + 1;
            while ($j < $n && substr($s, $j, 1) ne $c) {
                $j++ if substr($s, $j, 1) eq '\\';
                $j++;
            }
            $k[$_] = 's' for $i .. $j;
            $i = $j + 1;
            next;
        }
        $bol = 1 if $c eq "\n";
        $i++;
    }
}

sub line_of { my ($p) = @_; return 1 + (substr($s, 0, $p) =~ tr/\n//); }
sub is_code { my ($p) = @_; return $p >= 0 && $p < $n && $k[$p] eq 'c'; }
sub is_space { return substr($s, $_[0], 1) =~ /\s/; }

# The next code character at or after p that is not blank.
sub next_code {
    my ($p) = @_;
    $p++ while $p < $n && !(is_code($p) && !is_space($p));
    return $p;
}
# The previous code character before p that is not blank.
sub prev_code {
    my ($p) = @_;
    $p--;
    $p-- while $p >= 0 && !(is_code($p) && !is_space($p));
    return $p;
}
# The ")" matching the "(" at p.
sub close_paren {
    my ($p) = @_;
    my $d = 0;
    for (my $i = $p; $i < $n; $i++) {
        next unless is_code($i);
        my $c = substr($s, $i, 1);
        $d++ if $c eq '(';
        if ($c eq ')') {
            $d--;
            return $i if $d == 0;
        }
    }
    die "$file: unbalanced parenthesis at line " . line_of($p) . "\n";
}
sub word_at {
    my ($p) = @_;
    return '' unless is_code($p) && substr($s, $p) =~ /^([A-Za-z_]\w*)/;
    return '' if $p > 0 && is_code($p - 1) && substr($s, $p - 1, 1) =~ /\w/;
    return $1;
}

my $OP = qr/^(?:__atomic_\w+|fxi_futex_\w+|cas_state|load_state|sem_take|fxi_waiters_enter|fxi_counter_waiter_\w+)$/;

# Brace depth at every position (code braces only).
my @depth;
{
    my $d = 0;
    for my $i (0 .. $n - 1) {
        $depth[$i] = $d;
        next unless $k[$i] eq 'c';
        my $c = substr($s, $i, 1);
        $d++ if $c eq '{';
        $d-- if $c eq '}';
    }
}

my @ins;    # [position, text, order]
my $order = 0;
sub ins { push @ins, [$_[0], $_[1], $order++]; }

# "if (C)" at p (p at the "if"): the branch marker.
sub mark_if {
    my ($p, $tag) = @_;
    my $o = next_code($p + length word_at($p));
    return 0 unless substr($s, $o, 1) eq '(';
    my $c = close_paren($o);
    ins($o + 1, "(FXG_TESTED(\"$tag\"), (");
    ins($c, ")) && FXG_TAKEN(\"$tag\")");
    return 1;
}
# The call of the operation named at p: (marker, call).
sub mark_op {
    my ($p, $tag, $nth) = @_;
    $tag .= "#$nth";
    my $o = next_code($p + length word_at($p));
    my $c = close_paren($o);
    ins($p, "(FXG_REACHED(\"$tag\"), ");
    ins($c + 1, ")");
}

# A tag: "@step <tag>" ending a block comment. t0 is where its comment
# begins, t1 where it ends.
my $TAG = qr{\@step\s+([A-Za-z0-9_.]+)\s*\*/};

my @out;
while ($s =~ m{$TAG}g) {
    my ($tag, $at, $t1) = ($1, $-[0], $+[0]);
    next unless $k[$at] eq 'm' && substr($s, $cstart[$at], 2) eq '/*';
    my $t0 = $cstart[$at];
    my $line = line_of($at);
    my $where = "$label:$line";
    my $bol = rindex($s, "\n", $t0 - 1) + 1;
    my ($kind, $why) = ('none', '');
    my $nops = 0;
    my $pre = '';
    for my $i ($bol .. $t0 - 1) { $pre .= substr($s, $i, 1) if $k[$i] eq 'c'; }

    if ($k[$t0] eq 'p' || grep { $k[$_] eq 'p' } $bol .. $t0) {
        $why = 'in a preprocessor line';
    } elsif ($depth[$t0] == 0) {
        $kind = 'decl';
    } elsif ($pre =~ /\S/) {
        # After code on the same line: that statement.
        my $first = next_code($bol);
        my $last = prev_code($t0);
        if (substr($s, $last, 1) eq '{') {
            ins($last + 1, " FXG_REACHED(\"$tag\");");
            $kind = 'branch';
        } elsif (substr($s, $last, 1) eq ';') {
            my @ops;
            for (my $i = $first; $i < $last; $i++) {
                my $w = word_at($i);
                push @ops, $i if $w =~ $OP && substr($s, next_code($i + length $w), 1) eq '(';
            }
            if (@ops) {
                mark_op($ops[$_], $tag, $_ + 1) for 0 .. $#ops;
                $nops = @ops;
                $kind = 'op';
            } else {
                ins($first, "{ FXG_REACHED(\"$tag\"); ");
                ins($last + 1, " }");
                $kind = 'stmt';
            }
        } else {
            $why = 'after code that ends neither a statement nor with {';
        }
    } else {
        # On a line of its own: the step runs to the next tag or the end of
        # the block (a tag after code on a later line belongs to that line's
        # statement: then the step ends where that line begins).
        my ($d, $first, $else, @ops) = (0, undef, undef);
        my $i = $t1;
        my $end = $n;
        while ($i < $n) {
            if ($k[$i] eq 'm') {
                my $e = $i;
                $e++ while $e < $n && $k[$e] eq 'm';
                if (substr($s, $i, $e - $i) =~ /$TAG\z/) {
                    my $lb = rindex($s, "\n", $i - 1) + 1;
                    $end = (grep { is_code($_) && !is_space($_) } $lb .. $i - 1) ? $lb : $i;
                    last;
                }
                $i = $e;
                next;
            }
            if (!is_code($i) || is_space($i)) { $i++; next; }
            my $c = substr($s, $i, 1);
            $first //= $i;
            if ($c eq '{') { $d++; }
            elsif ($c eq '}') {
                $d--;
                if ($d < 0) {
                    if ($i == $first && word_at(next_code($i + 1)) eq 'else') {
                        $else = next_code($i + 1);
                        $d = 0;
                    } else {
                        $end = $i;
                        last;
                    }
                }
            } else {
                my $w = word_at($i);
                if ($w ne '') {
                    push @ops, $i if $w =~ $OP && substr($s, next_code($i + length $w), 1) eq '(';
                    $i += length $w;
                    next;
                }
            }
            $i++;
        }
        @ops = grep { $_ < $end } @ops;
        $first = undef if defined $first && $first >= $end && substr($s, $first, 1) ne '}';
        if (@ops) {
            mark_op($ops[$_], $tag, $_ + 1) for 0 .. $#ops;
            $nops = @ops;
            $kind = 'op';
        } elsif (defined $else) {
            my $after = next_code($else + 4);
            if (word_at($after) eq 'if' && mark_if($after, $tag)) {
                $kind = 'branch';
            } elsif (substr($s, $after, 1) eq '{') {
                ins($after + 1, " FXG_REACHED(\"$tag\");");
                $kind = 'branch';
            } else {
                $why = 'an else without braces';
            }
        } elsif (defined $first && (word_at($first) eq 'if' || word_at($first) eq 'while')
                 && mark_if($first, $tag)) {
            $kind = 'branch';
        } elsif (defined $first) {
            my $pc = prev_code($t0);
            my $pw = $pc >= 3 ? substr($s, $pc - 3, 4) : '';
            if (substr($s, $pc, 1) eq ')' || $pw eq 'else') {
                $why = 'the body of an if, while or else without braces';
            } else {
                ins($first, "FXG_REACHED(\"$tag\"); ");
                $kind = 'stmt';
            }
        } else {
            $why = 'no code after the tag';
        }
    }
    $kind .= '/' . $nops if $kind eq 'op';
    push @out, join("\t", $tag, $kind, $where) . ($why ne '' ? "\t$why" : '') . "\n";
}

for my $e (sort { $b->[0] <=> $a->[0] || $b->[2] <=> $a->[2] } @ins) {
    substr($s, $e->[0], 0) = $e->[1];
}
if (@ins) {
    my $prelude = <<'EOF';
#ifndef FXG_REACH
#define FXG_REACH
int printf(const char *, ...);
#define FXG_REACHED(t) ((void)printf("@reached " t "\n"))
#define FXG_TAKEN(t) (printf("@reached " t "\n"), 1)
#define FXG_TESTED(t) ((void)printf("@tested " t "\n"))
#endif
#line 1
EOF
    $s = $prelude . $s;
    open(my $w, '>', $file) or die "$file: $!\n";
    print $w $s;
    close $w;
}
print @out;
