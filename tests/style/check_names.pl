#!/usr/bin/perl
# The naming rule of CONTRIBUTING.md ("Names"), checked over the sources:
#
#   public (include/futexsync/*.h)               fx_<prim>_*, macros FX_*
#   library-internal: extern in src/, or
#     static inline in a src/ header             fxi_*, macros FXI_* (never
#                                                FX_*, the public prefix)
#   file-static in src/**/*.c (functions and
#     objects)                                   no fx_ / fxi_ prefix
#   function-like macros, everywhere             upper case
#
# usage: check_names.pl SRCDIR [ARCHIVE]
# ARCHIVE (libfutexsync.a): its global symbols must all be fx_* or fxi_*.
# Prints each breach; exits 1 if there is any.
use strict;
use warnings;
use File::Find;

my %exempt; # no file is exempt

my ($root, $archive) = @ARGV;
die "usage: check_names.pl SRCDIR [ARCHIVE]\n" unless defined $root;
my @bad;

# Comments, strings and __attribute__((...)) removed; line breaks kept.
sub strip {
    my ($t) = @_;
    $t =~ s{/\*.*?\*/}{ "\n" x (() = $& =~ /\n/g) }gse;
    $t =~ s{//[^\n]*}{}g;
    $t =~ s{"(?:\\.|[^"\\\n])*"}{""}g;
    my $out = '';
    while ((my $j = index($t, '__attribute__')) >= 0) {
        $out .= substr($t, 0, $j);
        my $k = index($t, '(', $j);
        my $depth = 0;
        for (; $k < length $t; $k++) {
            my $c = substr($t, $k, 1);
            $depth++ if $c eq '(';
            if ($c eq ')') { $depth--; last if $depth == 0 }
        }
        $t = substr($t, $k + 1);
    }
    return $out . $t;
}

sub line_of { my ($t, $pos) = @_; return 1 + (() = substr($t, 0, $pos) =~ /\n/g) }

sub files_under {
    my ($dir, $re) = @_;
    my @f;
    return @f unless -d "$root/$dir";
    find({ wanted => sub { push @f, $File::Find::name if -f && /$re/ }, no_chdir => 1 },
         "$root/$dir");
    return sort @f;
}

for my $path (files_under('src', qr/\.[ch]$/)) {
    (my $rel = $path) =~ s{^\Q$root\E/}{};
    next if $exempt{$rel};
    my $t = do { local $/; open my $fh, '<', $path or die "$path: $!"; strip(<$fh>) };
    my $header = $rel =~ /\.h$/;
    while ($t =~ /^[ \t]*(?:[A-Z_][A-Z0-9_]*[ \t]+)*static\b(?:[^;{(=]*?|[^;(=]*?\{[^{}]*\}\s*)\b([A-Za-z_]\w*)\s*[(=;\[]/mg) {
        my ($name, $pos) = ($1, $-[1]);
        my $line = line_of($t, $pos);
        if ($header && $name !~ /^fxi_/) {
            push @bad, "$rel:$line: $name: static in a src/ header must be fxi_*";
        } elsif (!$header && $name =~ /^fxi?_/) {
            push @bad, "$rel:$line: $name: file-static must not be fx_* or fxi_*";
        }
    }
    next if $header;
    while ($t =~ /^(?!(?:[A-Z_][A-Z0-9_]*[ \t]+)*static\b|typedef\b|extern\b|struct\b|enum\b|union\b|#)[A-Za-z_][^;{(=#]*?\b([A-Za-z_]\w*)\s*\([^;]*?\)\s*\{/mg) {
        my ($name, $pos) = ($1, $-[1]);
        next if $name eq 'main' || $name =~ /^fxi?_/;
        push @bad, "$rel:" . line_of($t, $pos) . ": $name: extern function must be fx_* or fxi_*";
    }
}

for my $path (files_under('src', qr/\.[ch]$/), files_under('include', qr/\.(h|hpp)$/)) {
    (my $rel = $path) =~ s{^\Q$root\E/}{};
    next if $exempt{$rel};
    my $t = do { local $/; open my $fh, '<', $path or die "$path: $!"; strip(<$fh>) };
    if ($rel =~ m{^src/}) {
        while ($t =~ /^\s*#\s*define\s+(FX_\w*)/mg) {
            my ($name, $pos) = ($1, $-[1]);
            push @bad, "$rel:" . line_of($t, $pos) . ": $name: a macro of src/ is FXI_*, not FX_* (public)";
        }
    }
    while ($t =~ /^\s*#\s*define\s+([A-Za-z_]\w*)\(/mg) {
        my ($name, $pos) = ($1, $-[1]);
        push @bad, "$rel:" . line_of($t, $pos) . ": $name: function-like macro must be upper case"
            if $name ne uc $name;
    }
}

if (defined $archive) {
    open my $nm, '-|', 'nm', '--defined-only', '-g', $archive or die "nm: $!";
    while (<$nm>) {
        my @p = split;
        next unless @p == 3 && $p[2] !~ /\./ && $p[2] !~ /^_/;  # DW.ref.*, _init
        push @bad, "global symbol $p[2] of $archive must be fx_* or fxi_*" if $p[2] !~ /^fxi?_/;
    }
    close $nm or die "nm failed on $archive\n";
}

print "$_\n" for @bad;
printf "check_names: %d breach(es) of the naming rule\n", scalar @bad;
exit(@bad ? 1 : 0);
