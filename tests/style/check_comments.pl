#!/usr/bin/perl
# A line of code carries at most one comment, and a source file's opening
# comment holds its state table and invariant, not the design text
# (CONTRIBUTING.md, "Comments"). Over src/**/*.[ch] it reports, as
# file:line,
#
#   (a) two comments stacked directly above a line of code (the first ends on
#       the line before the second starts, the second on the line before the
#       code): fold them into one, an @step tag as its last words;
#   (b) a line of code with a comment after it and a comment directly above
#       it: move the one after the code into the one above. A preprocessor
#       line is exempt: a #define's own comment and the one over its run of
#       #defines (the naming rule's documentation of a macro) are one each;
#   (c) an opening comment (the comment the file starts with) longer than
#       $CAP lines, unless its table makes it so: a longer one may hold at
#       most $PROSE lines of text besides its table rows. A table row is a
#       line indented past the comment's text margin (" *   " or deeper: the
#       states, the transitions, a diagram); an empty " *" line is no text.
#       The design text goes to docs/design/<p>.md.
#
# usage: check_comments.pl ROOT [FILE...]   (FILEs, relative to ROOT, instead
# of src/; prints each breach; exits 1 if there is any)
use strict;
use warnings;
use File::Find;

my $CAP = 45;      # lines of an opening comment
my $PROSE = 30;    # its lines of text besides table rows, when it is longer

my ($root, @files) = @ARGV;
die "usage: check_comments.pl ROOT [FILE...]\n" unless defined $root;
if (!@files) {
    find({no_chdir => 1, wanted => sub {
        push @files, substr($File::Find::name, length($root) + 1) if /\.[ch]$/;
    }}, "$root/src");
    @files = sort @files;
}

my @bad;
for my $rel (@files) {
    open my $fh, '<', "$root/$rel" or die "$root/$rel: $!\n";
    my $s = do { local $/; <$fh> };
    close $fh;
    my $n = length $s;
    # Per line: does it hold code (anything but blanks and comments)?
    # Per comment: [first line, last line, code before it, code after it].
    my (@code, @com, @pp);
    {
        my $ln = 0;
        $pp[++$ln] = /^\s*#/ ? 1 : 0 for split /\n/, $s, -1;
    }
    my ($line, $i) = (1, 0);
    while ($i < $n) {
        my $c = substr($s, $i, 1);
        if ($c eq "\n") { $line++; $i++; next; }
        if (substr($s, $i, 2) eq '/*' || substr($s, $i, 2) eq '//') {
            my $block = substr($s, $i, 2) eq '/*';
            my $e = $block ? index($s, '*/', $i + 2) : index($s, "\n", $i);
            $e = $n if $e < 0;
            my $text = substr($s, $i, $e - $i);
            my $last = $line + ($text =~ tr/\n//);
            push @com, [$line, $last, $code[$line] ? 1 : 0, 0, $text];
            $i = $block ? $e + 2 : $e;
            $line = $last;
            next;
        }
        if ($c eq '"' || $c eq "'") {
            my $j = $i + 1;
            while ($j < $n && substr($s, $j, 1) ne $c && substr($s, $j, 1) ne "\n") {
                $j++ if substr($s, $j, 1) eq '\\';
                $j++;
            }
            $code[$line] = 1;
            $i = $j + 1;
            next;
        }
        if ($c !~ /\s/) {
            $code[$line] = 1;
            $com[-1][3] = 1 if @com && $com[-1][1] == $line;
        }
        $i++;
    }
    # Comments standing on their own lines, by the line each ends on.
    my %ends;
    for my $k (0 .. $#com) {
        my ($f, $l, $before, $after) = @{$com[$k]};
        $ends{$l} = $k if !$before && !$after;
    }
    for my $k (0 .. $#com) {
        my ($f, $l, $before, $after) = @{$com[$k]};
        next if $before || $after;
        next unless $code[$l + 1];
        if (exists $ends{$f - 1}) {
            push @bad, "$rel:" . ($l + 1) . ": two comments above one line of code "
                . "(lines $com[$ends{$f - 1}][0] and $f)";
        }
        # (b): the line below has a comment after its code.
        for my $t (@com) {
            if ($t->[0] == $l + 1 && $t->[2] && !$pp[$l + 1]) {
                push @bad, "$rel:" . ($l + 1) . ": a comment after the code and one above it "
                    . "(line $f)";
                last;
            }
        }
    }
    # (c): the opening comment.
    if (@com && $com[0][0] == 1 && $com[0][4] =~ m{^/\*}) {
        my @lines = split /\n/, $com[0][4], -1;
        my $all = @lines;
        my $rows = grep { /^\s*\*(   |\s*$)/ } @lines;
        push @bad, "$rel:1: the opening comment has $all lines, " . ($all - $rows)
            . " of text besides its table rows (at most $CAP, or $PROSE besides the rows; "
            . "the design text goes to docs/design/)"
            if $all > $CAP && $all - $rows > $PROSE;
    }
}
print "$_\n" for @bad;
print scalar(@bad) . " breach(es) of the comment rules (CONTRIBUTING.md, \"Comments\")\n"
    if @bad;
exit(@bad ? 1 : 0);
