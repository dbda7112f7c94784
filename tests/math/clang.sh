#!/bin/sh
# clang.sh - a module built by clang computes the bits a gcc build does.
#
#   clang.sh UFNC LIBUFNRT CMPDUMP GCC_MATHBITS OUTDIR
#
# tests/e2e/mathbits.ufn is compiled with `ufnc --cc=clang` (host code
# only) and linked with tests/e2e/mathbits.c built by cc (gcc), whose own
# check compares every result with ufn_math.h's scalar functions as gcc
# compiled them: contiguous, strided, one element a call.  It runs on every
# host ISA, and its dump must equal the gcc-built program's bit for bit
# (cmpdump).  Without clang it says so and passes.
ufnc=$1 lib=$2 cmpdump=$3 gccprog=$4 out=$5
if ! command -v clang >/dev/null 2>&1; then
    echo "check-math: clang skipped: no clang"
    exit 0
fi
mkdir -p "$out" || exit 1
"$ufnc" --target=host --cc=clang -o "$out/mathbits.o" -H "$out/mathbits.h" tests/e2e/mathbits.ufn || exit 1
${CC:-cc} -std=c11 -O2 -Iinclude -Isamples -Itests/e2e -I"$out" -o "$out/mathbits" tests/e2e/mathbits.c \
    "$out/mathbits.o" "$lib" -lm -lpthread -ldl || exit 1
UFN_BACKEND=host "$gccprog" --dump "$out/gcc.dump" > "$out/gcc.log" 2>&1 || { cat "$out/gcc.log"; exit 1; }
status=0
for isa in avx512 avx2 baseline; do
    if ! UFN_BACKEND=host UFN_HOST_ISA=$isa "$out/mathbits" --dump "$out/clang.$isa.dump" > "$out/clang.$isa.log" 2>&1; then
        grep -E 'FAIL|^    ' "$out/clang.$isa.log" | head -12
        echo "FAIL  clang-built mathbits, UFN_HOST_ISA=$isa: differs from the scalar functions (log: $out/clang.$isa.log)"
        status=1
    elif ! "$cmpdump" "$out/clang.$isa.dump" "$out/gcc.dump" > "$out/cmp.$isa.log"; then
        grep MISMATCH "$out/cmp.$isa.log" | head -6
        echo "FAIL  clang-built mathbits, UFN_HOST_ISA=$isa: differs from the gcc build"
        status=1
    else
        echo "ok    clang-built mathbits, UFN_HOST_ISA=$isa: bit-identical to the gcc build and the scalar functions"
    fi
done
exit $status
