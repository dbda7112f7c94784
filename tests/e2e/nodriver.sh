#!/bin/sh
# No GPU and no CUDA driver: what a program built from a sample does.
#
#   nodriver.sh NODRIVER SAMPLE
#
# NODRIVER is tests/e2e/nodriver.c linked with a sample module; SAMPLE is a
# sample program (build/samples/sqrt).  By default they run on the host
# backend; with UFN_BACKEND=cuda they fail with UFN_ERR_NO_DRIVER and a
# message, never a crash.  The CUDA toolkit's stub libcuda (which answers
# every call with CUDA_ERROR_STUB_LIBRARY) is tried too when installed.
# Skipped where a CUDA driver is installed: there cuda is the right answer.
nodriver=$1 sample=$2
pass=0 fail=0

if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    echo "e2e nodriver: skipped: a CUDA driver (libcuda.so.1) is installed here"
    exit 0
fi

# expect STATUS DESCRIPTION COMMAND...: the command's exit status and output
expect() {
    want=$1 what=$2
    shift 2
    output=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -eq "$want" ] && { [ -z "$grep_for" ] || printf '%s\n' "$output" | grep -q "$grep_for"; }; then
        pass=$((pass + 1))
        printf 'ok    %s\n' "$what"
    else
        fail=$((fail + 1))
        printf 'FAIL  %s: exit status %s (expected %s)%s\n' "$what" "$rc" "$want" \
            "${grep_for:+, output should contain \"$grep_for\"}"
        printf '%s\n' "$output" | head -12 | sed 's/^/      /'
    fi
    grep_for=
}

grep_for="on the host backend"
expect 0 "sample without UFN_BACKEND runs on host" env -u UFN_BACKEND "$sample"
grep_for="all checks passed"
expect 0 "nodriver: the default backend is host" env -u UFN_BACKEND "$nodriver" host
grep_for="all checks passed"
expect 0 "nodriver: UFN_BACKEND=auto is host" env UFN_BACKEND=auto "$nodriver" host
grep_for="all checks passed"
expect 0 "nodriver: UFN_BACKEND=cuda is refused" env UFN_BACKEND=cuda "$nodriver" no-driver
grep_for="all checks passed"
expect 0 "nodriver: UFN_CUDA_LIBRARY=/nonexistent is refused" \
    env UFN_BACKEND=cuda UFN_CUDA_LIBRARY=/nonexistent/libcuda.so.1 "$nodriver" no-driver
# The sample reports the refused call and exits 2 (not a signal, not 0).
grep_for="UFN_ERR_NO_DRIVER: gpu_sqrt: .*libcuda.so.1"
expect 2 "sample with UFN_BACKEND=cuda exits 2 naming UFN_ERR_NO_DRIVER" \
    env UFN_BACKEND=cuda "$sample"

stub=
for d in "${CUDA_HOME:-/usr/local/cuda}/lib64/stubs" /usr/local/cuda/lib64/stubs; do
    [ -f "$d/libcuda.so" ] && { stub=$d/libcuda.so; break; }
done
if [ -n "$stub" ]; then
    grep_for="all checks passed"
    expect 0 "nodriver: the toolkit's stub driver is refused" \
        env UFN_BACKEND=cuda UFN_CUDA_LIBRARY="$stub" "$nodriver" no-driver
    grep_for="all checks passed"
    expect 0 "nodriver: with the stub driver auto picks host" \
        env UFN_BACKEND=auto UFN_CUDA_LIBRARY="$stub" "$nodriver" host
else
    echo "ok    (the toolkit's stub libcuda.so is not installed: not tried)"
fi
echo "e2e nodriver: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
