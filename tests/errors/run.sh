#!/bin/sh
# tests/errors/run.sh UFNC [NAME...] - the bad programs of tests/errors/.
#
# Each case is NAME.ufn with its expected diagnostics in NAME.expected:
#   - every line ufnc prints to stderr that does not start with a space
#     (the "file:line:col: error: message" lines, notes, warnings and
#     "ufnc: error:" lines), exactly, in order; the source line and caret
#     that follow each one are not compared, except that
#   - NAME.stderr, when present, holds the whole of stderr (snippets and
#     carets included) and is compared instead;
#   - a first line "# exit N" expects exit status N (default 1; a case
#     whose diagnostics are warnings only expects 0 and its outputs);
#   - NAME.args, when present, holds extra command-line arguments (one
#     line, split on spaces) placed before the file name.
# Imported helper modules live in lib/ (not cases themselves).
#
# Cases run from inside tests/errors/ so diagnostics name files as
# "NAME.ufn"; output goes to a private directory that must stay empty: a
# failed compilation leaves nothing behind.  With UFN_UPDATE_GOLDEN=1 the
# .expected files are (re)written instead: review the diff.
#
# One line per case, then a summary; exit 1 if any case failed.
set -u
ufnc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
cd "$(dirname "$0")" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ufn-errors.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ $# -eq 0 ]; then set -- *.ufn; fi
pass=0 fail=0 failed=
for f in "$@"; do
    name=${f%.ufn}
    args=
    [ -f "$name.args" ] && args=$(head -n 1 "$name.args")
    mkdir "$tmp/out"
    # shellcheck disable=SC2086 # args are split on purpose
    NO_COLOR=1 "$ufnc" $args "$name.ufn" -o "$tmp/out/$name.o" --target=host,sim \
        >"$tmp/stdout" 2>"$tmp/stderr"
    status=$?
    grep -v '^ ' "$tmp/stderr" >"$tmp/lines"
    if [ "${UFN_UPDATE_GOLDEN:-0}" = 1 ]; then
        { [ "$status" -ne 1 ] && echo "# exit $status"; cat "$tmp/lines"; } >"$name.expected"
        [ -f "$name.stderr" ] && cp "$tmp/stderr" "$name.stderr"
    fi
    want=1
    if [ ! -f "$name.expected" ]; then
        why="no $name.expected (UFN_UPDATE_GOLDEN=1 writes it)"
    else
        first=$(head -n 1 "$name.expected")
        case $first in "# exit "*) want=${first#\# exit } ;; esac
        grep -v '^# exit ' "$name.expected" >"$tmp/want"
        why=
        if [ "$status" -ne "$want" ]; then
            why="exit status $status, expected $want"
        elif [ -f "$name.stderr" ] && ! cmp -s "$tmp/stderr" "$name.stderr"; then
            why="stderr differs from $name.stderr"
            diff -u "$name.stderr" "$tmp/stderr" | sed 's/^/      /' | head -20 >"$tmp/diff"
        elif ! cmp -s "$tmp/lines" "$tmp/want"; then
            why="diagnostics differ from $name.expected"
            diff -u "$tmp/want" "$tmp/lines" | sed 's/^/      /' | head -20 >"$tmp/diff"
        elif [ ! -s "$tmp/want" ]; then
            why="$name.expected lists no diagnostic"
        elif [ "$want" -ne 0 ] && [ -n "$(ls -A "$tmp/out")" ]; then
            why="left files behind: $(ls -A "$tmp/out" | tr '\n' ' ')"
        fi
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
        printf 'ok    %s\n' "$name"
    else
        fail=$((fail + 1)); failed="$failed $name"
        printf 'FAIL  %s: %s\n' "$name" "$why"
        [ -f "$tmp/diff" ] && cat "$tmp/diff"
        sed 's/^/      | /' "$tmp/stderr" | head -20
    fi
    rm -rf "$tmp/out" "$tmp/diff"
done
echo "errors: $pass passed, $fail failed${failed:+ ($failed )}"
[ "$fail" -eq 0 ]
