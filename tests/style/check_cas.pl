#!/usr/bin/perl
# No compare-and-swap of the library relies on its failure order: every
# __atomic_compare_exchange(_n) under src/ passes __ATOMIC_RELAXED as its
# failure order, and a value reloaded by a failed CAS that decides an
# acquisition is ordered by an explicit acquire (a fence or a re-read) that
# the checks can see. GenMC 0.10.3 reads a CAS with its success order
# (docs/verification.md, "Failure orders"), so a stronger failure order would
# be an order no check verifies.
#
# usage: check_cas.pl SRCDIR   (prints each breach; exits 1 if there is any)
use strict;
use warnings;
use File::Find;

my ($root) = @ARGV;
die "usage: check_cas.pl SRCDIR\n" unless defined $root;
my (@bad, $seen);
find({no_chdir => 1, wanted => sub {
    return unless /\.[ch]$/;
    my $file = $File::Find::name;
    open my $fh, '<', $file or die "$file: $!\n";
    my $t = do { local $/; <$fh> };
    close $fh;
    # Comments removed, line breaks kept.
    $t =~ s{/\*.*?\*/}{ "\n" x (() = $& =~ /\n/g) }gse;
    $t =~ s{//[^\n]*}{}g;
    while ($t =~ /\b__atomic_compare_exchange(?:_n)?\s*\(/g) {
        my $start = pos($t);
        my $line = 1 + (() = substr($t, 0, $start) =~ /\n/g);
        my ($depth, $arg, @args) = (1, '');
        for (my $i = $start; $i < length $t; $i++) {
            my $c = substr($t, $i, 1);
            $depth++ if $c eq '(';
            $depth-- if $c eq ')';
            if ($depth == 0) { push @args, $arg; last }
            if ($c eq ',' && $depth == 1) { push @args, $arg; $arg = ''; next }
            $arg .= $c;
        }
        s/^\s+|\s+$//g for @args;
        $seen++;
        (my $rel = $file) =~ s{^\Q$root\E/?}{};
        if (@args != 6) {
            push @bad, "$rel:$line: a compare-and-swap with " . scalar(@args) . " arguments";
        } elsif ($args[5] ne '__ATOMIC_RELAXED') {
            push @bad, "$rel:$line: failure order $args[5], not __ATOMIC_RELAXED";
        }
    }
}}, "$root/src");
die "no compare-and-swap found under $root/src: wrong directory?\n" unless $seen;
print "$_\n" for @bad;
printf "%d compare-and-swaps under src/, %d relying on a failure order\n", $seen, scalar @bad;
exit(@bad ? 1 : 0);
