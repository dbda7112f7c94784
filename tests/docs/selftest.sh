#!/bin/sh
# selftest.sh - run-examples.sh must be able to fail: a document whose
# examples are right passes, and each kind of wrong one fails.
here=$(dirname "$0")
st=0
if "$here/run-examples.sh" "$here/selftest/good.md" >/dev/null 2>&1; then
    echo "ok    selftest: good.md passes"
else
    echo "FAIL  selftest: good.md should pass:"
    "$here/run-examples.sh" "$here/selftest/good.md" 2>&1 | sed 's/^/      /'
    st=1
fi
for bad in bad-output.md bad-status.md bad-marker.md bad-escape.7; do
    if "$here/run-examples.sh" "$here/selftest/$bad" >/dev/null 2>&1; then
        echo "FAIL  selftest: $bad should fail"
        st=1
    else
        echo "ok    selftest: $bad fails"
    fi
done
# lint-man.sh must notice a page mandoc warns about (bad-escape.7 has no date).
if "$here/lint-man.sh" "$here/selftest/bad-escape.7" >/dev/null 2>&1; then
    echo "FAIL  selftest: lint-man.sh passes a page without a date"
    st=1
else
    echo "ok    selftest: lint-man.sh notices a page without a date"
fi

# check-names.sh must notice a function missing from ufn(7)'s lists.
fake=${TMPDIR:-/tmp}/selftest-names.$$
mkdir -p "$fake/man" && ln -s "$(pwd)/stdlib" "$(pwd)/compiler" "$fake/" &&
    sed '/^\.BR asinh ,$/d' man/ufn.7 >"$fake/man/ufn.7"
if "$here/check-names.sh" "$fake" >/dev/null 2>&1; then
    echo "FAIL  selftest: check-names.sh misses a deleted name"
    st=1
else
    echo "ok    selftest: check-names.sh notices a deleted name"
fi
rm -rf "$fake"

# check-options.sh must notice an option missing from ufnc(1).
page=${TMPDIR:-/tmp}/selftest-options.$$
grep -v '^\.B \\-\\-keep$' man/ufnc.1 >"$page"
if "$here/check-options.sh" "${BUILD:-build}/bin/ufnc" "$page" >/dev/null 2>&1; then
    echo "FAIL  selftest: check-options.sh misses a deleted option"
    st=1
else
    echo "ok    selftest: check-options.sh notices a deleted option"
fi
rm -f "$page"
exit $st
