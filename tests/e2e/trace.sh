#!/bin/sh
# The transfers of the seeds' device-array pipelines, asserted exactly.
#
#   trace.sh OUTDIR PROGRAM...
#
# Each PROGRAM runs on the simulator with UFN_TRACE=1; the device
# allocations, frees, copies, launches and synchronisations it reports must
# be exactly tests/e2e/trace/NAME.expected (whose '#' lines are comments).
# Pinned host buffers (the staging of host-array calls, sized by
# UFN_STAGE_BYTES) are host memory and a tuning detail: left out.  A timed
# event's duration, " (12.345 us)" at the end of its line, changes from run
# to run: the expected line has " (... us)" there, and a line without a
# duration, or with one written otherwise, does not match it.
out=$1
shift
here=$(dirname "$0")
mkdir -p "$out"
pass=0 fail=0 failed=""
for prog in "$@"; do
    name=${prog##*/}
    expected=$here/trace/$name.expected
    got=$out/$name.trace
    # device 0 of the default simulator, whatever the caller's environment
    env -u UFN_DEVICE -u UFN_SIM_DEVICES -u UFN_SIM_MEMORY UFN_BACKEND=sim UFN_TRACE=1 \
        "$prog" > "$out/$name.trace.stdout" 2> "$out/$name.trace.stderr"
    rc=$?
    grep '^ufn: sim ' "$out/$name.trace.stderr" | grep -v ' pinned ' | tr -s ' ' |
        sed -E 's/ \([0-9]+\.[0-9]{3} us\)$/ (... us)/' > "$got"
    grep -v '^#' "$expected" | tr -s ' ' > "$got.expected"
    if [ $rc -eq 0 ] && cmp -s "$got" "$got.expected"; then
        pass=$((pass + 1))
        printf 'ok    %-16s %s events as expected (%s H2D, %s D2H, %s launches)\n' "$name" \
            "$(wc -l < "$got")" "$(grep -c ' H2D ' "$got")" "$(grep -c ' D2H ' "$got")" \
            "$(grep -c ' launch ' "$got")"
    else
        fail=$((fail + 1)); failed="$failed $name"
        printf 'FAIL  %s: exit status %s; the trace differs from %s (< expected, > got):\n' \
            "$name" "$rc" "$expected"
        diff "$got.expected" "$got" | sed 's/^/      /' | head -30
    fi
done
echo "e2e trace: $pass passed, $fail failed${failed:+ ($failed )}"
[ "$fail" -eq 0 ]
