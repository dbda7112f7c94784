#!/bin/sh
# Print the summary of `make check` from the log of suite results.
log=$1
echo
echo "==== make check summary ===="
cat "$log"
if grep -q '^FAIL' "$log"; then
    echo "==== $(grep -c '^FAIL' "$log") suite(s) FAILED ===="
    exit 1
fi
echo "==== all $(grep -c '^PASS' "$log") suites passed ===="
