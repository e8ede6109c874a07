#!/bin/sh
# scripts/gen-man.sh - the section 3 manual, made from the public headers.
#
# The headers are the reference: each public function is declared under the
# comment that states its contract, and each header opens with a comment on
# its object (layout, guarantees, limits). This script turns them into man
# pages, so the manual cannot drift from the headers:
#   <function>.3          one page per public function: NAME (the first
#                         sentence of its comment), SYNOPSIS, DESCRIPTION (the
#                         comment), RETURN VALUE (its "Returns ..." sentences
#                         or table), ERRORS (each errno value the comment
#                         names, with the clauses and sentences that name it),
#                         NOTES, EXAMPLE, SEE ALSO
#   futexsync_<object>.3  one page per header: the header's opening comment,
#                         the list of its calls, and MACROS: every public
#                         macro it defines (FX_*, FUTEXSYNC_*) with its value
#                         and its comment
#   futexsync.3           the overview: every header and every call
#
# The conventions it reads in the header comments (docs/man/README.md):
#   - A function's comment ends just above its declaration; declarations
#     stacked under one comment share it.
#   - A macro's comment is the one on its #define line, or the one that ends
#     just above it (#define and #if lines stacked under one comment share
#     it; a blank line or a declaration ends the stack), or both; a macro
#     with neither that the header's opening comment names is "See
#     DESCRIPTION"; any other is "Undocumented", which the man_pages and
#     naming_rule tests refuse.
#   - "Returns ..." sentences state the results: "Returns 0, EBUSY when it is
#     held, or EINVAL." or a "Returns:" table of "VALUE   meaning" rows.
#     -EXXX is read as EXXX (calls whose result is a value).
#   - "Never EINTR." (never, then errno names) is a promise, not an error.
#   - A comment that opens with another call's name ("fx_sem_wait that gives
#     up ...") or says "Returns as fx_x", "return values ... as fx_x" or
#     (in its first sentence) "like fx_x" also returns that call's errors.
#   - `code` is set in italics; references to the source tree (src/, docs/,
#     README, CHANGELOG.md), which an installed user does not have, are left
#     out: a parenthesis holding one is dropped, else its sentence.
#   - docs/man/<object>.c, when it exists, is the EXAMPLE of every page of
#     futexsync/<object>.h (tests/docs/check_man.sh compiles it).
# Usage: scripts/gen-man.sh OUTDIR HEADER...   (POSIX sh and perl)
exec perl -x "$0" "$@"
#!perl
use strict;
use warnings;

my ($out, @headers) = @ARGV;
die "usage: gen-man.sh OUTDIR HEADER...\n" unless defined $out && @headers;
mkdir $out unless -d $out;
(my $srcroot = $0) =~ s{/?scripts/gen-man\.sh$}{};
$srcroot = '.' if $srcroot eq '';

sub slurp { my ($f) = @_; open(my $fh, '<', $f) or die "$f: $!\n"; local $/; my $t = <$fh>; close $fh; return $t }

# The version, from version.h next to the headers.
my $vh = slurp((grep { m{/version\.h$} } @headers)[0] // do { (my $d = $headers[0]) =~ s{[^/]*$}{version.h}; $d });
my @v = map { $vh =~ /^#define FUTEXSYNC_VERSION_$_ (\d+)$/m ? $1 : 0 } qw(MAJOR MINOR PATCH);
my $version = join '.', @v;

# ---- reading the headers --------------------------------------------------
sub comment_text {   # the inside of /* ... */ -> lines without the leading " * "
    my ($c) = @_;
    my @l = split /\n/, $c, -1;
    for (@l) { s/^\s*\*(?: |$)//; s/^\s*\*$//; s/\s+$//; }
    shift @l while @l && $l[0] eq '';
    pop @l while @l && $l[-1] eq '';
    return join "\n", @l;
}

my (@objects, %func);   # objects in order; functions by name
for my $h (@headers) {
    my $text = slurp($h);
    (my $hdr = $h) =~ s{.*include/}{};
    (my $base = $hdr) =~ s{.*/}{}; $base =~ s{\.h$}{};
    my $obj = { hdr => $hdr, base => $base, funcs => [], macros => [], macro => {} };
    my $top = $text =~ s{^\s*/\*(.*?)\*/}{}s ? comment_text($1) : "$hdr - <$hdr>";
    my ($title, $rest) = split /\n\n/, $top, 2;
    $title =~ s/\n/ /g; $title =~ s/^\S+ - //; $title =~ s/\.$//;
    $obj->{title} = $title; $obj->{body} = $rest // '';
    # Walk the rest: comments, preprocessor lines, declarations.
    my ($doc, $fresh, $prevdoc, $stacked) = ('', 0, '', 0);
    my ($gdoc, $gopen) = ('', 0);   # the comment a run of #define lines stands under
    my @lines = split /\n/, $text;
    my $i = 0;
    while ($i < @lines) {
        my $l = $lines[$i];
        if ($l =~ m{^\s*/\*}) {
            my $c = $l;
            while ($c !~ m{\*/} && $i + 1 < @lines) { $c .= "\n" . $lines[++$i]; }
            $c =~ s{^\s*/\*}{}; $c =~ s{\*/.*}{}s;
            $doc = comment_text($c); $fresh = 1; $stacked = 0; $i++;
            ($gdoc, $gopen) = ($doc, 1);
            next;
        }
        if ($l =~ /^\s*#/) {
            my $d = $l;
            while ($lines[$i] =~ /\\$/ && $i + 1 < @lines) { $d .= "\n" . $lines[++$i] }
            # A trailing comment that goes on below the directive.
            if ($d =~ m{/\*} && $d !~ m{/\*.*?\*/\s*$}s) {
                while ($d !~ m{/\*.*\*/}s && $i + 1 < @lines) { $d .= "\n" . $lines[++$i] }
            }
            if ($d =~ /^\s*#\s*define\s+((?:FX|FUTEXSYNC)_[A-Za-z0-9_]*)(\([^)]*\))?(.*)$/s
                && $1 !~ /^FUTEXSYNC_\w+_H$/) {
                my ($name, $params, $rest) = ($1, $2 // '', $3);
                my $own = $rest =~ m{/\*(.*?)\*/}s ? comment_text($1) : '';
                (my $value = $rest) =~ s{/\*.*?\*/}{}gs;
                $value =~ s/\\\n/ /g; $value =~ s/\s+/ /g; $value =~ s/^ //; $value =~ s/ $//;
                my $m = $obj->{macro}{$name};
                if (!$m) {
                    $m = $obj->{macro}{$name} = { name => $name, params => $params, values => [], own => '', group => '' };
                    push @{ $obj->{macros} }, $m;
                }
                push @{ $m->{values} }, $value unless grep { $_ eq $value } @{ $m->{values} };
                $m->{own} = $own if $m->{own} eq '';
                $m->{group} = $gdoc if $m->{group} eq '' && $gopen;
            } elsif ($d !~ /^\s*#\s*(?:if|ifdef|ifndef|elif|else|endif)\b/) {
                $gopen = 0;
            }
            $fresh = 0; $stacked = 0; $i++; next;
        }
        $gopen = 0;
        if ($l =~ /^\s*$/ || $l =~ /[{}]/ || $l !~ /\bfx_[a-z0-9_]+\s*\(/) {
            ($fresh, $stacked) = (0, 0) if $l =~ /^\s*$/ || $l =~ /[{}]/;
            $i++; next;
        }
        my $d = $l;
        while ($d !~ /;/ && $i + 1 < @lines) { $d .= "\n" . $lines[++$i]; }
        $i++;
        $d =~ s{/\*.*?\*/}{}gs;
        $d =~ /\b(fx_[a-z0-9_]+)\s*\(/ or next;
        my $name = $1;
        $d =~ s/\s*\n\s*/ /g;
        $d =~ s/\s*\bFX_[A-Z_]+(?:\([^()]*\))?//g;   # attribute macros: not for readers
        $d =~ s/^\s+//; $d =~ s/\s+;/;/;
        my $fdoc = $fresh ? $doc : $stacked ? $prevdoc : '';
        $fdoc = 'Undocumented: the header states no contract for this call.' if $fdoc eq '';
        # "the policy above" means the header's opening text: its own page.
        $fdoc =~ s/\babove(?=[),.;:])/in futexsync_$base(3)/g;
        ($prevdoc, $stacked, $fresh) = ($fdoc, 1, 0);
        (my $rtype = $d) =~ s/\b\Q$name\E\s*\(.*//; $rtype =~ s/\s+$//;
        my $f = { name => $name, decl => $d, doc => $fdoc, rtype => $rtype, obj => $obj };
        push @{ $obj->{funcs} }, $f;
        $func{$name} = $f;
    }
    push @objects, $obj;
}

# ---- from comment text to what the sections need ---------------------------
my $ERR = qr/\b-?(E[A-Z0-9]{2,})\b/;
my %is_errno = map { $_ => 1 } qw(E2BIG EACCES EADDRINUSE EAGAIN EALREADY EBADF EBUSY
    ECANCELED ECHILD EDEADLK EDOM EEXIST EFAULT EFBIG EINPROGRESS EINTR EINVAL EIO EISDIR
    EMFILE EMLINK ENAMETOOLONG ENFILE ENODEV ENOENT ENOEXEC ENOLCK ENOMEM ENOSPC ENOSYS
    ENOTRECOVERABLE ENOTSUP EOPNOTSUPP EOVERFLOW EOWNERDEAD EPERM EPIPE ERANGE EROFS ESRCH
    ETIMEDOUT ETXTBSY EWOULDBLOCK EXDEV);
sub errnos_in { my ($s) = @_; my @e; while ($s =~ /$ERR/g) { push @e, $1 if $is_errno{$1} } return @e }

sub flat { my ($s) = @_; $s =~ s/\s*\n\s*/ /g; $s =~ s/\s{2,}/ /g; return $s }

# Sentences of a flat text: a period at parenthesis depth 0, then space and a
# capital, a backquote or an open parenthesis (not "..", not "e.g.").
sub sentences {
    my ($s) = @_;
    my @out; my $cur = ''; my $depth = 0;
    my @c = split //, $s;
    for my $k (0 .. $#c) {
        my $ch = $c[$k];
        $cur .= $ch;
        $depth++ if $ch eq '(' || $ch eq '[';
        $depth-- if ($ch eq ')' || $ch eq ']') && $depth > 0;
        if ($ch eq '.' && $depth == 0 && ($k == $#c || (substr($s, $k + 1, 2) =~ /^ [A-Za-z`(*-]/))
            && ($k == 0 || $c[$k - 1] ne '.') && $cur !~ /\b(?:e\.g|i\.e|etc)\.$/) {
            $cur =~ s/^\s+//; push @out, $cur; $cur = '';
        }
    }
    $cur =~ s/^\s+//; push @out, $cur if $cur =~ /\S/;
    return @out;
}

# Splits $s at the matches of $re that are outside parentheses and brackets.
sub split_top {
    my ($re, $s) = @_;
    my ($mask, $depth) = ('', 0);
    for my $ch (split //, $s) {
        $depth++ if $ch eq '(' || $ch eq '[';
        $mask .= $depth > 0 ? "\x{1}" : $ch;
        $depth-- if ($ch eq ')' || $ch eq ']') && $depth > 0;
    }
    my (@parts, $at);
    $at = 0;
    while ($mask =~ /$re/g) {
        my ($from, $to) = ($-[0], $+[0]);
        next if $to == $from;
        push @parts, substr($s, $at, $from - $at);
        $at = $to;
    }
    push @parts, substr($s, $at);
    return @parts;
}

# "returns 0, EBUSY ..." in lower case: a list of values right after it.
my $RETLIST_AFTER = qr/-?(?:0|E[A-Z0-9]{2,})(?:\s*\([^)]*\))?(?:,\s|\s+or\s)/;
my $RETLIST = qr/\breturns\s+$RETLIST_AFTER/;

# A sentence that states results: "Returns ..." (not the table's stand-in),
# or a list of values after a colon ("...: 0, ETIMEDOUT, or EINVAL").
sub is_returns {
    my ($s) = @_;
    return 0 if $s =~ /^Returns: \(table\)/;
    return 1 if $s =~ /^-?(E[A-Z0-9]{2,})\b/ && $is_errno{$1};
    return $s =~ /\bReturns\b/ || $s =~ $RETLIST || $s =~ /:\s+-?0,\s+(?:or\s+)?-?E[A-Z0-9]{2,}\b/;
}

sub is_never { my ($s) = @_; return $s =~ /^(?:and |but )?never\b/i }

# A comment's results: the "Returns ..." sentences, or a "Returns:" table.
sub returns_of {
    my ($f) = @_;
    return $f->{returns} if $f->{returns};
    my $doc = $f->{doc};
    my (@rsent, @table, %mean, @order, @never, @inherit);
    # A "Returns:" table: rows "  VALUE   meaning" after a line that names
    # Returns and ends with a colon ("Returns:", "Returns at once, ...:").
    my $TABLE = qr/(?:^|(?<=\n)|(?<=\.\s))([^\n.]*\bReturns\b[^\n.]*):[ \t]*\n((?:[ \t]+\S.*(?:\n|$))+)/;
    my $thead = '';
    if ($doc =~ $TABLE) {
        my $rows = $2;
        ($thead = $1) =~ s/^\s+//;
        $thead = '' if $thead eq 'Returns';
        my $cur;
        for my $row (split /\n/, $rows) {
            if ($row =~ /^\s{1,3}(-?E[A-Z0-9]+|-?\d+|[A-Z_]+)\s{2,}(.*)$/) {
                $cur = [$1, $2]; push @table, $cur;
            } elsif ($cur) { $cur->[1] .= ' ' . ($row =~ s/^\s+//r) }
        }
    }
    my $flat = flat($doc);
    if (@table) {   # the table's text is not sentences
        my $t = $doc; $t =~ s/$TABLE/Returns: (table).\n/;
        $flat = flat($t);
    }
    my @sent = sentences($flat);
    for my $r (@table) {
        my $e = $r->[0]; $e =~ s/^-//;
        my $m = $r->[1]; $m =~ s/[;.]\s*$//;
        if ($is_errno{$e}) { push @order, $e unless exists $mean{$e}; push @{ $mean{$e} }, $m }
    }
    for my $s (@sent) {
        if (is_never($s)) { push @never, $s; next }
        if (is_returns($s)) {
            push @rsent, $s;
            # Clauses: split at ; and at ", " or " or " before a value.
            my $body = $s;
            $s =~ /^-?E[A-Z0-9]{2,}\b/ or $body =~ s/^.*?\bReturns\b:?\s*// or $body =~ s/^.*?\breturns\s+(?=$RETLIST_AFTER)// or $body =~ s/^.*?:\s+(?=-?0,)//;
            # A segment that starts with a value is a list of values: split
            # it at each value; another names its values inside a clause.
            my @cl;
            for my $seg (split_top(qr/;\s*/, $body)) {
                if ($seg =~ /^\s*(?:or\s+|plus\s+|and\s+)?-?(?:E[A-Z0-9]{2,}|\d|as\b|FX_[A-Z0-9_]+\b)/) {
                    push @cl, split_top(qr/,\s+(?:or\s+|plus\s+|and\s+)?(?=-?(?:E[A-Z0-9]{2,}|\d)\b)|\s+(?:or|plus)\s+(?=-?E[A-Z0-9]{2,}\b)/, $seg);
                } else { push @cl, split_top(qr/,\s+or\s+(?=-?E[A-Z0-9]{2,}\b)/, $seg) }
            }
            my @pending;
            for my $c (@cl) {
                $c =~ s/^\s*(?:or|plus|and)\s+//; $c =~ s/[.]\s*$//;
                if ($c =~ /^-?(E[A-Z0-9]{2,})\b[,:]?\s*(.*)$/ && $is_errno{$1}) {
                    my ($e, $m) = ($1, $2);
                    if ($m eq '') { push @pending, $e; next }
                    # "EPERM or EINVAL as fx_cond_wait", "EMFILE or ENFILE (no
                    # descriptor)": the values joined by "or" share it.
                    for my $p (grep { $m =~ /^as\b/ || $body =~ /\b\Q$_\E\s+or\s+-?\Q$e\E\b/ } @pending) {
                        push @order, $p unless exists $mean{$p}; push @{ $mean{$p} }, $m;
                    }
                    for my $p (@pending) { push @order, $p unless exists $mean{$p}; $mean{$p} //= [] }
                    push @order, $e unless exists $mean{$e}; push @{ $mean{$e} }, $m;
                    @pending = ();
                    # Further errno names inside the clause (e.g. "(EMFILE, ENFILE)").
                    for my $e2 (errnos_in($m)) { next if exists $mean{$e2}; push @order, $e2; push @{ $mean{$e2} }, "$m (as $e)" if 0; $mean{$e2} = [$c] }
                } else {
                    for my $e2 (errnos_in($c)) { next if exists $mean{$e2}; push @order, $e2; $mean{$e2} = [$c] }
                }
            }
            for my $p (@pending) { push @order, $p unless exists $mean{$p}; $mean{$p} //= [] }
        }
    }
    # Every other sentence that names an errno value adds to its meaning: the
    # clause (between semicolons) that names it.
    for my $s (@sent) {
        next if is_never($s) || is_returns($s);
        # "fx_async_complete then gives ...": another call's results, named
        # here only for a value this contract does not already explain.
        my $other = $s =~ /^(fx_[a-z0-9_]+)\b/ && $1 ne $f->{name};
        my %seen;
        for my $c (map { split_top(qr/,\s+or\s+(?=-?E[A-Z0-9]{2,}\b)/, $_) } split_top(qr/;\s+/, $s)) {
            for my $e (errnos_in($c)) {
                next if $seen{$e}++;
                next if $other && exists $mean{$e};
                next if $c =~ /\b[Nn]ever\s+(?:-?E[A-Z0-9]+(?:,?\s+(?:or|nor|never)\s+)?)*\Q$e\E\b/;
                push @order, $e unless exists $mean{$e};
                (my $m = $c) =~ s/^-?\Q$e\E\s+//;
                push @{ $mean{$e} }, $m;
            }
        }
    }
    # A variant of another call returns its errors too.
    my $first = (@sent ? $sent[0] : '');
    my @from;
    push @from, $1 if $doc =~ /^(fx_[a-z0-9_]+)\s/;
    push @from, $1 while $flat =~ /Returns as (fx_[a-z0-9_]+)/g;
    push @from, $1 while $flat =~ /\breturn values\b[^.]*?\bas (fx_[a-z0-9_]+)/g;
    push @from, $1 if $first =~ /\blike (fx_[a-z0-9_]+)/;
    for my $g (@from) {
        next if $g eq $f->{name} || !$func{$g};
        my $r = returns_of($func{$g});
        for my $e (@{ $r->{order} }) {
            my $as = "as for $g";   # meaning() says what $g's contract says
            if (!exists $mean{$e}) { push @order, $e; $mean{$e} = [$as] }
            elsif (grep { /\balso\b/ } @{ $mean{$e} }) { push @{ $mean{$e} }, $as }
        }
        push @inherit, $g;
    }
    $f->{returns} = { rsent => \@rsent, table => \@table, thead => $thead, mean => \%mean, order => \@order,
                      never => \@never, inherit => \@inherit };
    return $f->{returns};
}

# ---- roff ------------------------------------------------------------------
my $PATHS = qr{(?:\b(?:src|docs|tests|bench|examples|models|scripts)/[\w./-]*|\bREADME(?:\.md)?\b|\bCHANGELOG\.md\b|\bCONTRIBUTING\.md\b)};

# Drops what points into the source tree: a parenthesis holding a path (or
# "README, Conventions"), else the sentence that names it.
sub unsourced {
    my ($s) = @_;
    $s =~ s/\s*\([^()]*$PATHS[^()]*\)//g;
    return $s unless $s =~ $PATHS;
    my @keep = grep { $_ !~ $PATHS } sentences(flat($s));
    return join ' ', @keep;
}

sub inline {   # text -> roff inline markup (escaped)
    my ($s) = @_;
    $s =~ s/\\/\\e/g;
    $s =~ s/-/\\-/g;
    $s =~ s/`([^`]+)`/\\fI$1\\fP/g;
    $s =~ s/(?<![\w\\])(fx_[a-z0-9_]+)(\(\)|\(3\))?/$func{$1} ? "\\fB$1\\fP" . ($2 \/\/ '') : $1 . ($2 \/\/ '')/ge;
    $s =~ s/^([.'])/\\&$1/;
    return $s;
}

sub para_lines {   # comment text -> roff paragraphs (indented runs kept as is)
    my ($text) = @_;
    my @o;
    my @paras = split /\n\s*\n/, $text;
    for my $p (@paras) {
        my @l = split /\n/, $p;
        my ($pre, @fill) = (0);
        my $flush = sub {
            return unless @fill;
            my $t = unsourced(join("\n", @fill));
            push @o, map { inline($_) } split /\n/, join("\n", map { flat($_) } sentences(flat($t))) if $t =~ /\S/;
            @fill = ();
        };
        push @o, '.PP';
        for my $l (@l) {
            my $indented = $l =~ /^    / || ($l =~ /^  \S/ && $l =~ /\S   +\S/) || ($pre && $l =~ /^\s{2,}\S/);
            if ($indented) {
                $flush->();
                push @o, '.nf' unless $pre; $pre = 1;
                push @o, inline(unsourced($l));
            } else {
                if ($pre) { push @o, '.fi'; $pre = 0 }
                push @fill, $l;
            }
        }
        $flush->();
        push @o, '.fi' if $pre;
    }
    # No .PP straight after a section heading, no empty paragraphs.
    my @clean;
    for my $x (@o) { next if $x eq '.PP' && (!@clean || $clean[-1] eq '.PP'); push @clean, $x }
    shift @clean if @clean && $clean[0] eq '.PP';
    pop @clean if @clean && $clean[-1] eq '.PP';
    return @clean;
}

sub summary {   # the first sentence, for NAME and the lists
    my ($text) = @_;
    my @s = sentences(flat(unsourced($text)));
    my $s = @s ? $s[0] : '';
    $s =~ s/\.$//;
    $s = lcfirst $s if $s =~ /^[A-Z][a-z]/;
    $s =~ s/\s*\bReturns\b.*$// if length $s > 200;
    return $s;
}

# A NAME line: the summary's head when it is long (up to the first ": " or
# "; " outside parentheses), plain text (no fonts: whatis reads it).
sub name_line {
    my ($text) = @_;
    # A comment that opens with a heading ("Deadlines from other clocks.")
    # is named by its next paragraph.
    my @par = split /\n\s*\n/, $text;
    $text = $par[1] if @par > 1 && $par[0] !~ /\n/ && length $par[0] <= 40;
    my $s = summary($text);
    if (length $s > 70) {
        my ($head) = split_top(qr/[:;]\s/, $s);
        $s = $head if length $head >= 15;
    }
    $s =~ s/`//g;
    $s =~ s/\\/\\e/g; $s =~ s/-/\\-/g;
    return $s;
}

sub th { my ($name) = @_; return ".TH " . uc($name) . " 3 \"\" \"futexsync $version\" \"futexsync Manual\"" }

sub write_page {
    my ($file, @lines) = @_;
    open(my $fh, '>', "$out/$file") or die "$out/$file: $!\n";
    print $fh map { "$_\n" } @lines;
    close $fh;
}

# The meaning of an errno value a contract names without one ("Returns 0,
# EBUSY when it is held, or EINVAL."): for EINVAL the library's rule on bad
# input; else what the header's opening text says of it; else the meaning
# another call of the header gives it; else the DESCRIPTION.
sub errno_fallback {
    my ($obj, $f, $e) = @_;
    return ('a NULL or misaligned object, or a slot holding a value the library never writes (the rule of all futexsync calls, futexsync(3)).')
        if $e eq 'EINVAL';
    return ('the deadline passed first.') if $e eq 'ETIMEDOUT';
    (my $top = $obj->{body}) =~ s/^ {4,}.*$//mg;   # not the tables
    my @s = grep { !is_never($_) && grep { $_ eq $e } errnos_in($_) } sentences(flat(unsourced($top)));
    s/^[^.]*?:\s+-\s+//, s/^-\s+// for @s;   # "Rules: - A waiter ..." -> "A waiter ..."
    return @s if @s;
    for my $g (@{ $obj->{funcs} }) {
        next if $g == $f;
        my $m = returns_of($g)->{mean}{$e} or next;
        my @m = grep { /\S/ && !/^as\b/i } @$m or next;
        (my $x = $m[0]) =~ s/^\(([^()]*)\)$/$1/;
        return ("as for $g->{name}(3): $x");
    }
    return ('see DESCRIPTION.');
}

# The text of errno $e in $f's ERRORS: the clauses its contract gives it,
# each ended, those after the first that start in lower case joined with
# "; "; a bare one from errno_fallback; "also ..." after the general case;
# "as fx_x" replaced by what fx_x's contract says of $e (one level deep).
sub meaning {
    my ($obj, $f, $e, $deep) = @_;
    my @m = grep { /\S/ } @{ returns_of($f)->{mean}{$e} // [] };
    my %u; @m = grep { !$u{$_}++ } @m;
    @m = errno_fallback($obj, $f, $e) unless @m;
    unshift @m, errno_fallback($obj, $f, $e) if $m[0] =~ /^\(?also\b/ && $e =~ /^(?:EINVAL|ETIMEDOUT)$/;
    my $m = '';
    for my $x (@m) {
        $x = unsourced($x); $x =~ s/^\s+//; $x =~ s/^\(([^()]*)\)$/$1/;
        if ($deep && $x =~ /^as (?:for )?(fx_[a-z0-9_]+)\.?$/ && $func{$1} && $1 ne $f->{name}) {
            my $g = $func{$1};
            $x = "as for $1(3): " . meaning($g->{obj}, $g, $e, 0);
        }
        $x .= '.' unless $x =~ /[.:]$/;
        if ($m ne '' && $x =~ /^[a-z]/) { $m =~ s/\.$/;/; $m .= " $x" }
        else { $m .= ($m eq '' ? '' : ' ') . $x }
    }
    return $m;
}

# A macro's entry: its name (and parameters), and its value when it has
# one value that is not an attribute's spelling.
sub macro_tag {
    my ($m) = @_;
    my $tag = "\\fB$m->{name}\\fP" . inline($m->{params});
    my @v = @{ $m->{values} };
    $tag .= ' = ' . inline($v[0]) if $m->{params} eq '' && @v == 1 && $v[0] ne ''
        && $v[0] !~ /\b(?:FX_TSA_|__attribute__)\b/;
    return $tag;
}

# A macro's description: the comment on its line, and the one it stands
# under ("Back ends, for ...: io_uring if usable"); else "See DESCRIPTION"
# when the header's opening comment names it; else "Undocumented".
sub macro_text {
    my ($obj, $m) = @_;
    my ($own, $group) = map { my $x = flat(unsourced($_)); $x =~ s/^\s+|\s+$//g; $x } ($m->{own}, $m->{group});
    my $t;
    if ($own ne '' && $group ne '') {
        my @gs = sentences($group);
        $t = @gs == 1 ? ($group =~ s/[.:]$//r) . ": $own" : "$own. $group";
    } else {
        $t = $own ne '' ? $own : $group;
    }
    if ($t eq '') {
        return $obj->{body} =~ /\b\Q$m->{name}\E\b/ ? 'See DESCRIPTION.'
             : "Undocumented: the header says nothing of $m->{name}.";
    }
    $t .= '.' unless $t =~ /[.!?]$/;
    return $t;
}

my $LINK = 'Link with \\fI\\-lfutexsync \\-pthread\\fP (or \\fIpkg\\-config \\-\\-libs futexsync\\fP).';
my $CONVENTION = 'Functions of futexsync return 0 or a positive errno value, or, when their result is a value, that value (>= 0) or a negative errno value; they never set \\fIerrno\\fP.';
my $DEADLINES = 'Deadlines are absolute \\fBCLOCK_MONOTONIC\\fP times (\\fBfx_deadline_in\\fP(3)).';

sub example_lines {
    my ($obj) = @_;
    my $ex = "$srcroot/docs/man/$obj->{base}.c";
    return () unless -f $ex;
    my $code = slurp($ex);
    $code =~ s{^/\*.*?\*/\n*}{}s;   # its own header comment is for the repository
    my @o = ('.SH EXAMPLE', '.EX');
    for my $l (split /\n/, $code) {
        $l =~ s/\\/\\e/g;
        $l =~ s/^([.'])/\\&$1/;
        push @o, $l;
    }
    push @o, '.EE';
    return @o;
}

for my $obj (@objects) {
    my @fs = @{ $obj->{funcs} };
    for my $f (@fs) {
        my $r = returns_of($f);
        my @p = (th($f->{name}), '.SH NAME', "$f->{name} \\- " . (name_line($f->{doc}) || name_line($obj->{title})));
        push @p, '.SH SYNOPSIS', '.nf', ".B #include <$obj->{hdr}>", '.PP';
        (my $d = $f->{decl}) =~ s/\\/\\e/g;
        $d =~ s/^\s*([.'])/\\&$1/;
        push @p, ".BI \"" . ($d =~ s/"/\\(dq/gr) . "\"", '.fi', '.PP', $LINK;
        push @p, '.SH DESCRIPTION', para_lines($f->{doc} || $obj->{title});
        # RETURN VALUE
        push @p, '.SH "RETURN VALUE"';
        my @rv = map { inline(unsourced($_)) } @{ $r->{rsent} };
        if (@{ $r->{table} }) {
            push @rv, '.PP' if @rv;
            push @rv, inline(unsourced($r->{thead})) . ':' if $r->{thead} ne '';
            for my $row (@{ $r->{table} }) { push @rv, '.TP', '.B ' . $row->[0], inline(unsourced($row->[1])) }
        }
        if (!@rv) {   # no "Returns": the sentences that say what comes back
            my @say = grep { /\breturns?\b/i || errnos_in($_) } grep { !is_never($_) } sentences(flat(unsourced($f->{doc})));
            if (@say) { push @rv, map { inline($_) } @say }
            elsif ($f->{rtype} =~ /^void$/) { push @rv, 'This function returns no value.' }
            else { push @rv, inline(ucfirst(summary($f->{doc}))) . '.' }
        }
        push @p, @rv, '.PP', $CONVENTION;
        push @p, $DEADLINES if $f->{decl} =~ /\bdeadline\b/;
        # ERRORS
        push @p, '.SH ERRORS';
        if (@{ $r->{order} }) {
            for my $e (@{ $r->{order} }) {
                my $m = meaning($obj, $f, $e, 1);
                push @p, '.TP', ".B $e", inline($m);
            }
        } else {
            push @p, 'This function returns no errno value.';
        }
        # NOTES: the promises ("Never EINTR.").
        if (@{ $r->{never} }) {
            push @p, '.SH NOTES', join(' ', map { inline(unsourced($_)) } @{ $r->{never} });
        }
        push @p, example_lines($obj);
        push @p, '.SH SEE ALSO', join(",\n", ".BR futexsync_$obj->{base} (3)",
                                     map { ".BR $_->{name} (3)" } grep { $_ ne $f } @fs);
        write_page("$f->{name}.3", @p);
    }
    # The object's page.
    my @p = (th("futexsync_$obj->{base}"), '.SH NAME', "futexsync_$obj->{base} \\- " . inline($obj->{title}),
             '.SH SYNOPSIS', '.nf', ".B #include <$obj->{hdr}>", '.fi', '.PP', $LINK,
             '.SH DESCRIPTION');
    my @b = para_lines($obj->{body});
    push @p, (@b ? @b : inline($obj->{title}) . '.');
    if (@fs) {
        push @p, '.SH FUNCTIONS';
        push @p, '.TP', ".BR $_->{name} (3)", inline(summary($_->{doc})) for @fs;
    }
    if (@{ $obj->{macros} }) {
        push @p, '.SH MACROS';
        push @p, '.TP', macro_tag($_), inline(macro_text($obj, $_)) for @{ $obj->{macros} };
    }
    push @p, example_lines($obj);
    push @p, '.SH SEE ALSO', '.BR futexsync (3)';
    write_page("futexsync_$obj->{base}.3", @p);
}

# The overview page.
my @p = (th('futexsync'), '.SH NAME',
    'futexsync \- Linux futex\-based synchronization primitives in int32 slots',
    '.SH SYNOPSIS', '.nf', '.B #include <futexsync.h>', '.fi', '.PP', $LINK,
    '.SH DESCRIPTION',
    'Each object is a few aligned int32_t slots that the caller places anywhere: a global, a struct field, or memory shared between processes.',
    'All\-zero bytes are a valid, unlocked object; no init call, attribute or destroy is needed.',
    '.SS Conventions',
    'Every call returns 0 or a positive errno value; a call whose result is a value returns it (>= 0) or a negative errno value; \fIerrno\fP is never set.',
    'The exceptions: \fBfx_counter_add\fP and \fBfx_counter_load\fP return the count, any int32_t, and the last arrival at a barrier gets \fBFX_BARRIER_SERIAL_THREAD\fP (\-1).',
    'Bad input (a NULL or misaligned pointer, a slot holding a value the library never writes) gives \fBEINVAL\fP. No lock or wait returns \fBEINTR\fP; only the raw \fBfx_futex_wait\fP does.',
    'Deadlines are absolute \fBCLOCK_MONOTONIC\fP times; \fBfx_deadline_in\fP(3) makes one.',
    'The errno names come from \fI<errno.h>\fP, which \fI<futexsync.h>\fP includes.');
# What the umbrella header leaves out, from its own #include lines.
(my $umbrella = $headers[0]) =~ s{/futexsync/[^/]*$}{/futexsync.h};
if (-f $umbrella) {
    my %in = map { $_ => 1 } slurp($umbrella) =~ m{^\s*#\s*include\s*["<]futexsync/(\w+)\.h[">]}mg;
    my @out = map { "\\fI<$_->{hdr}>\\fP" } grep { !$in{ $_->{base} } } @objects;
    push @p, '.PP', '\fI<futexsync.h>\fP includes every header below but '
        . (@out > 1 ? join(', ', @out[0 .. $#out - 1]) . ' and ' . $out[-1] : $out[0])
        . ', which a program that uses them includes itself.' if @out;
}
for my $obj (@objects) {
    push @p, ".SS <$obj->{hdr}>: " . inline($obj->{title}), ".BR futexsync_$obj->{base} (3)";
    push @p, '.TP', ".BR $_->{name} (3)", inline(summary($_->{doc})) for @{ $obj->{funcs} };
}
push @p, '.SH SEE ALSO', join(",\n", map { ".BR futexsync_$_->{base} (3)" } @objects);
write_page('futexsync.3', @p);
