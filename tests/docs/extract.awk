# extract.awk - the examples of one document, for run-examples.sh.
#
#   awk -v fmt=md|roff -v out=DIR -f extract.awk DOC
#
# Every example in a document is preceded by a marker that says how to test
# it (README.md uses HTML comments, which Markdown does not show; the man
# pages use roff comments):
#
#   <!-- test: file NAME -->          .\" test: file NAME
#   ```c                              .EX
#   ...                               ...
#   ```                               .EE
#
#   file NAME                the block is the file NAME, written when the
#                            examples reach it, in the directory the
#                            session is in then (each document's examples
#                            share one shell: see run-examples.sh)
#   run [status=N] [needs=A,B] [cwd=top]
#                            a terminal session: "$ " starts a command (a
#                            trailing backslash continues it on the next
#                            line), the lines below it are its output.
#                            The last command must exit with N (default 0),
#                            the others with 0.  needs= names what must be
#                            there (install, cmake, nvcc, mpi); cwd=top runs the
#                            block in the repository's top directory
#   skip REASON              not run; the reason is printed
#
# Between the marker and the block only blank lines (Markdown) or requests
# (roff: .in, .RS, ...) may stand.  A block without a marker is an error, so
# an untested example cannot slip in.
#
# Output in DIR: manifest, one line per example,
#     ID <TAB> LINE <TAB> KIND <TAB> ARGS
# and the bodies: ID.file (file), ID.K.cmd and ID.K.exp (run, command K).
# roff escapes in man-page examples are turned back into plain text; an
# escape this script does not know is an error, never passed on.

function fail(msg) {
    printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
    errors++
}

function unescape(s,    r, i, c, n) {
    r = ""
    while ((i = index(s, "\\")) > 0) {
        r = r substr(s, 1, i - 1)
        c = substr(s, i + 1, 1)
        n = 2
        if (c == "e" || c == "\\") r = r "\\"
        else if (c == "-") r = r "-"
        else if (c == "&") r = r ""
        else if (c == "(") {
            n = 4
            c = substr(s, i + 2, 2)
            if (c == "aq") r = r "'"
            else if (c == "dq") r = r "\""
            else if (c == "ga") r = r "`"
            else if (c == "ti") r = r "~"
            else if (c == "ha") r = r "^"
            else if (c == "rs") r = r "\\"
            else { fail("unknown roff escape \\(" c " in an example"); r = r "?" }
        } else { fail("unknown roff escape \\" c " in an example"); r = r "?" }
        s = substr(s, i + n)
    }
    return r s
}

function begin_block(    a, nf) {
    id++
    nf = split(marker, a, /[ \t]+/)
    kind = a[1]
    args = marker
    sub(/^[^ \t]+[ \t]*/, "", args)
    if (kind != "file" && kind != "run" && kind != "skip")
        fail("unknown test marker '" kind "'")
    if (kind == "file" && (nf != 2 || args ~ /^\// || args ~ /\.\./))
        fail("'test: file' needs one relative file name")
    printf "%03d\t%d\t%s\t%s\n", id, FNR, kind, args > (out "/manifest")
    ncmd = 0
    cont = 0
    inblock = 1
    marker = ""
}

function block_line(line) {
    if (fmt == "roff")
        line = unescape(line)
    if (kind == "file") {
        print line > (out "/" sprintf("%03d", id) ".file")
    } else if (kind == "run") {
        if (cont) {
            print line > cmdfile
            cont = line ~ /\\$/
        } else if (line ~ /^\$ /) {
            ncmd++
            close_files()
            cmdfile = out "/" sprintf("%03d.%d", id, ncmd) ".cmd"
            expfile = out "/" sprintf("%03d.%d", id, ncmd) ".exp"
            print substr(line, 3) > cmdfile
            printf "" > expfile
            cont = line ~ /\\$/
        } else if (ncmd == 0) {
            fail("output before the first \"$ \" command")
        } else {
            print line > expfile
        }
    }
}

function close_files() {
    if (cmdfile != "") { close(cmdfile); close(expfile) }
    cmdfile = expfile = ""
}

function end_block() {
    close_files()
    if (kind == "file")
        close(out "/" sprintf("%03d", id) ".file")
    if (kind == "run" && ncmd == 0)
        fail("a 'test: run' example without a \"$ \" command")
    if (cont)
        fail("the last command ends with a backslash")
    inblock = 0
}

BEGIN {
    if (fmt != "md" && fmt != "roff") {
        print "extract.awk: fmt must be md or roff" > "/dev/stderr"
        exit 2
    }
    printf "" > (out "/manifest")
}

# ---- Markdown -----------------------------------------------------------

fmt == "md" && inblock {
    if ($0 ~ /^[ \t]*```/) end_block()
    else block_line($0)
    next
}

fmt == "md" && /^[ \t]*<!--[ \t]*test:/ {
    if (marker != "") fail("two test markers in a row")
    marker = $0
    sub(/^[ \t]*<!--[ \t]*test:[ \t]*/, "", marker)
    sub(/[ \t]*-->[ \t]*$/, "", marker)
    markerline = FNR
    next
}

fmt == "md" && /^[ \t]*```/ {
    if (marker == "") {
        fail("an example without a test marker (<!-- test: ... --> on the line before)")
        kind = "none"
        inblock = 1
    } else
        begin_block()
    next
}

fmt == "md" && marker != "" && !/^[ \t]*$/ {
    fail("text between a test marker and its example")
    marker = ""
}

# ---- roff -----------------------------------------------------------------

fmt == "roff" && inblock {
    if ($0 ~ /^\.EE/) end_block()
    else if ($0 ~ /^[.']/ && $0 !~ /^\.\\"/) fail("a request inside an example: " $0)
    else if ($0 !~ /^\.\\"/) block_line($0)
    next
}

fmt == "roff" && /^\.\\"[ \t]*test:/ {
    if (marker != "") fail("two test markers in a row")
    marker = $0
    sub(/^\.\\"[ \t]*test:[ \t]*/, "", marker)
    sub(/[ \t]+$/, "", marker)
    markerline = FNR
    next
}

fmt == "roff" && /^\.EX/ {
    if (marker == "") { fail("an example without a test marker (.\\\" test: ... on a line before)"); kind = "none"; inblock = 1 }
    else begin_block()
    next
}

fmt == "roff" && marker != "" && !/^[.']/ {
    fail("text between a test marker and its example")
    marker = ""
}

END {
    if (inblock) fail("an example that never ends")
    if (marker != "") fail("a test marker without an example")
    exit errors ? 1 : 0
}
