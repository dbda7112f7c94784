#!/bin/sh
# Run cmocka test binaries, one line per binary (cmocka prints each case).
# Usage: run-unit.sh BIN...
pass=0 fail=0 failed=""
for t in "$@"; do
    if "$t" > "$t.log" 2>&1; then
        pass=$((pass + 1))
        printf 'ok    %s (%s cases)\n' "${t##*/}" "$(grep -c '^\[       OK \]' "$t.log")"
    else
        fail=$((fail + 1)); failed="$failed ${t##*/}"
        printf 'FAIL  %s\n' "${t##*/}"
        sed 's/^/      /' "$t.log" | grep -v '^      \[ RUN\|OK \]' | head -40
    fi
done
echo "unit: $pass passed, $fail failed${failed:+ ($failed )}"
[ "$fail" -eq 0 ]
