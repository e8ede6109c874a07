#!/bin/sh
# scripts/gen-man.sh - the section 3 manual, made from the public headers.
#
# The headers are the reference: each public function is declared under the
# comment that states its contract, and each header opens with a comment on
# its object (layout, guarantees, limits). This script turns them into man
# pages, so the manual cannot drift from the headers:
#   <function>.3          one page per public function: NAME (the first
#                         sentence of its comment), SYNOPSIS, DESCRIPTION (the
#                         comment), SEE ALSO (the other calls of the header)
#   futexsync_<object>.3  one page per header: the header's opening comment
#                         and the list of its calls
#   futexsync.3           the overview: every header and every call
# Usage: scripts/gen-man.sh OUTDIR HEADER...   (POSIX sh and awk)
set -eu
out=$1
shift
mkdir -p "$out"
version=$(sed -n 's/^#define FUTEXSYNC_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
    "$(dirname "$1")/version.h" | paste -sd. -)
awk -v out="$out" -v version="$version" '
function esc(s) {            # text -> roff: backslashes, then leading . and '"'"'
    gsub(/\\/, "\\e", s)
    if (s ~ /^[.'"'"']/) s = "\\&" s
    return s
}
function summary(text,   s, p) {   # the first sentence, on one line
    s = text
    gsub(/\n/, " ", s)
    gsub(/  +/, " ", s)
    p = index(s, ". ")
    if (p > 0) s = substr(s, 1, p - 1)
    sub(/\.$/, "", s)
    if (length(s) > 110) s = substr(s, 1, 107) "..."
    return s
}
function body(text, file,   lines, n, i, l, pre) {  # comment text -> paragraphs
    n = split(text, lines, "\n")
    pre = 0
    for (i = 1; i <= n; i++) {
        l = lines[i]
        if (l == "") { if (pre) { print ".fi" > file; pre = 0 } print ".PP" > file; continue }
        if (l ~ /^    / || l ~ /^  [^ ]/ && l ~ /   /) {   # indented: a table or code
            if (!pre) { print ".nf" > file; pre = 1 }
        } else if (pre) { print ".fi" > file; pre = 0 }
        print esc(l) > file
    }
    if (pre) print ".fi" > file
}
function header_page(   file, i) {
    file = out "/futexsync_" base ".3"
    print ".TH FUTEXSYNC_" toupper(base) " 3 \"\" \"futexsync " version "\" \"futexsync Manual\"" > file
    print ".SH NAME" > file
    print "futexsync_" base " \\- " esc(title) > file
    print ".SH SYNOPSIS" > file
    print ".nf" > file
    print ".B #include <" hdr ">" > file
    print ".fi" > file
    print ".SH DESCRIPTION" > file
    body(topbody, file)
    print ".SH FUNCTIONS" > file
    for (i = 1; i <= nf; i++) {
        print ".TP" > file
        print ".BR " fname[i] " (3)" > file
        print esc(fsum[i]) > file
    }
    print ".SH SEE ALSO" > file
    print ".BR futexsync (3)" > file
    close(file)
    printf "%s\t%s\t%s\n", hdr, base, title > (out "/.index")
    for (i = 1; i <= nf; i++) printf "fn\t%s\t%s\n", fname[i], fsum[i] > (out "/.index")
}
function func_pages(   i, j, file, sep) {
    for (i = 1; i <= nf; i++) {
        file = out "/" fname[i] ".3"
        print ".TH " toupper(fname[i]) " 3 \"\" \"futexsync " version "\" \"futexsync Manual\"" > file
        print ".SH NAME" > file
        print fname[i] " \\- " esc(fsum[i]) > file
        print ".SH SYNOPSIS" > file
        print ".nf" > file
        print ".B #include <" hdr ">" > file
        print ".PP" > file
        print esc(fdecl[i]) > file
        print ".fi" > file
        print ".PP" > file
        print "Link with \\fI\\-lfutexsync \\-pthread\\fP (or \\fIpkg\\-config \\-\\-libs futexsync\\fP)." > file
        print ".SH DESCRIPTION" > file
        body(fdoc[i], file)
        print ".PP" > file
        print "Functions of futexsync return 0 or a positive errno value; a call whose result is a value returns it (>= 0) or a negative errno value; \\fIerrno\\fP is never set (the header says any exception). Deadlines are absolute \\fBCLOCK_MONOTONIC\\fP times." > file
        print ".SH SEE ALSO" > file
        printf ".BR futexsync_%s (3)", base > file
        for (j = 1; j <= nf; j++) if (j != i) printf ",\n.BR %s (3)", fname[j] > file
        print "" > file
        close(file)
    }
}
FNR == 1 {
    if (NR != 1) { header_page(); func_pages() }
    hdr = FILENAME; sub(/.*include\//, "", hdr)
    base = hdr; sub(/.*\//, "", base); sub(/\.h$/, "", base)
    nf = 0; incomment = 0; comment = ""; have_top = 0; decl = ""; lastdoc = ""; docfresh = 0
    title = ""; topbody = ""
}
{
    line = $0
    if (incomment) {
        if (line ~ /\*\//) {
            sub(/\*\/.*/, "", line); sub(/^ *\* ?/, "", line)
            if (line != "") comment = comment line "\n"
            incomment = 0
            sub(/\n+$/, "", comment)
            if (!have_top) {
                have_top = 1
                # The title is the first paragraph, the body the rest.
                p = index(comment, "\n\n")
                title = (p ? substr(comment, 1, p - 1) : comment)
                topbody = (p ? substr(comment, p + 2) : "")
                gsub(/\n/, " ", title); sub(/^[^ ]* - /, "", title); sub(/\.$/, "", title)
            } else { lastdoc = comment; docfresh = 1 }
            comment = ""
        } else {
            sub(/^ *\* ?/, "", line); sub(/^ *\*$/, "", line)
            comment = comment line "\n"
        }
        next
    }
    if (decl == "" && line ~ /^ *\/\*/) {
        if (line ~ /\*\//) {           # a one-line comment
            c = line; sub(/^ *\/\* ?/, "", c); sub(/ *\*\/.*/, "", c)
            if (have_top) { lastdoc = c; docfresh = 1 }
            next
        }
        incomment = 1; c = line; sub(/^ *\/\* ?/, "", c)
        comment = (c == "" ? "" : c "\n")
        next
    }
    if (decl == "" && (line ~ /^ *$/ || line ~ /^#/ || line ~ /[{}]/)) {
        if (line ~ /^ *$/) docfresh = 0
        if (line ~ /^#/ || line ~ /[{}]/) docfresh = 0
        next
    }
    if (decl == "" && line !~ /fx_[a-z0-9_]+ *\(/) next
    decl = decl (decl == "" ? "" : "\n") line
    if (line !~ /;/) next
    d = decl; decl = ""
    if (!match(d, /fx_[a-z0-9_]+ *\(/)) next
    name = substr(d, RSTART, RLENGTH); sub(/ *\($/, "", name)
    gsub(/\n */, " ", d)
    gsub(/ *FX_[A-Z_]+(\([^()]*\))?/, "", d)   # attribute macros: not for readers
    sub(/^ +/, "", d)
    nf++
    fname[nf] = name; fdecl[nf] = d
    fdoc[nf] = (docfresh ? lastdoc : "")
    if (fdoc[nf] == "" && nf > 1) fdoc[nf] = fdoc[nf - 1]
    fsum[nf] = summary(fdoc[nf])
}
END { header_page(); func_pages() }
' "$@"
# The overview page, from the index the headers left.
{
    printf '%s\n' ".TH FUTEXSYNC 3 \"\" \"futexsync $version\" \"futexsync Manual\"" \
        '.SH NAME' \
        'futexsync \- Linux futex-based synchronization primitives in int32 slots' \
        '.SH SYNOPSIS' '.nf' '.B #include <futexsync.h>' '.fi' '.PP' \
        'Link with \fI\-lfutexsync \-pthread\fP (or \fIpkg\-config \-\-libs futexsync\fP).' \
        '.SH DESCRIPTION' \
        'Each object is a few aligned int32_t slots that the caller places anywhere: a global, a struct field, or memory shared between processes.' \
        'All\-zero bytes are a valid, unlocked object; no init call, attribute or destroy is needed.' \
        'Every call returns 0 or a positive errno value; a call whose result is a value returns it (>= 0) or a negative errno value; \fIerrno\fP is never set. The exceptions: \fBfx_counter_add\fP and \fBfx_counter_load\fP return the count, any int32_t, and the last arrival at a barrier gets \fBFX_BARRIER_SERIAL_THREAD\fP (\-1).'
    awk -F'\t' '
        $1 == "fn" { printf ".TP\n.BR %s (3)\n%s\n", $2, $3; next }
        { printf ".SS <%s>: %s\n.BR futexsync_%s (3)\n", $1, $3, $2 }
    ' "$out/.index"
} >"$out/futexsync.3"
rm -f "$out/.index"
