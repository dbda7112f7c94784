#!/bin/sh
# lint-man.sh - the man pages must render without a complaint: mandoc -Tlint
# prints nothing (errors, warnings and style hints alike), and groff, when it
# is installed, warns about nothing either (man -l uses it).
# Usage: lint-man.sh PAGE...
st=0
for page in "$@"; do
    out=$(mandoc -Tlint "$page" 2>&1)
    if [ -n "$out" ]; then
        echo "FAIL  mandoc -Tlint $page:"
        echo "$out" | sed 's/^/      /'
        st=1
    else
        echo "ok    mandoc -Tlint $page"
    fi
    if command -v groff >/dev/null 2>&1; then
        out=$(LC_ALL=C groff -man -Tutf8 -ww -z "$page" 2>&1)
        if [ -n "$out" ]; then
            echo "FAIL  groff -man -ww $page:"
            echo "$out" | sed 's/^/      /'
            st=1
        else
            echo "ok    groff -man -ww $page"
        fi
    else
        echo "skip  groff -man -ww $page: skipped: no groff"
    fi
done
exit $st
