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
exit $st
