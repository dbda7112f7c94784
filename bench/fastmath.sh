#!/bin/sh
# fastmath.sh - ufnc's own math functions (the default) against the vendors'
# on bench-ufnc's workloads, two ways:
#   libmvec   glibc's libmvec in the host loops, everything else as the
#             default (IEEE division, no contraction): the default host path
#             before issue 18, which its speed aim is measured against;
#   fast      --fast-math: libmvec and gcc's -ffast-math (divisions by a
#             loop-invariant become products with a hoisted reciprocal,
#             contraction, reassociation).
#
#   BUILD=build bench/fastmath.sh [SIZE [ROUNDS]]     (after make bench-build)
#
# Builds the bench modules twice more into $BUILD/bench-libmvec and
# $BUILD/bench-fast (the libmvec build passes -DUFN_FAST_MATH to the C
# compiler through --cc, which makes ufn_libm.h call the vendor's functions
# without -ffast-math), links two more bench-ufnc, runs the three in turn
# ROUNDS times (default 3) at SIZE elements (default 1e7), and prints a
# Markdown table of the fastest time of each (the minimum: this machine is
# shared, and a median measures the neighbours), and the ratios.  Then
# bench/fastmath_lanes.c: the functions alone, both sides compiled with the
# default flags, in CPU time (see there why).
build=${BUILD:-build}
size=${1:-1e7} rounds=${2:-3}
ufnc=$build/bin/ufnc fast=$build/bench-fast libmvec=$build/bench-libmvec
# build_variant DIR FLAG...: the bench modules built with ufnc FLAG..., and a
# bench-ufnc linked against them
build_variant() {
    dir=$1; shift
    mkdir -p "$dir/mod" || exit 1
    for m in sqrt polar gaussian l2_norm hidden_layer pulses zero_suppress; do
        "$ufnc" -w "$@" --target=host,sim "samples/$m.ufn" -o "$dir/mod/$m.o" || exit 1
    done
    "$ufnc" -w "$@" --literals=numpy --target=host,sim --prefix=lit_ --module-name=gaussian_lit \
        samples/gaussian.ufn -o "$dir/mod/gaussian_lit.o" || exit 1
    ${CC:-cc} -O2 -g -std=c11 -D_GNU_SOURCE -Iinclude -Icompiler -Iruntime -I"$build/gen" -I"$dir/mod" \
        -Ibench/harness -o "$dir/bench-ufnc" $(ls bench/harness/*.c | grep -v transfers.c) \
        "$build/bench/mod/gauss_how.c" "$dir"/mod/*.o "$build/lib/libufnrt.a" -ldl -lpthread -lm || exit 1
}
build_variant "$fast" --fast-math
build_variant "$libmvec" --cc="${CC:-cc} -DUFN_FAST_MATH"
: > "$fast/default.json"; : > "$fast/fast.json"; : > "$fast/libmvec.json"
r=1
# one_run BINARY JSON: one round of every workload
one_run() { "$1" time --sizes "$size" --round $r >> "$2" || exit 1; }
# the order turns round by round, so that none of the three always runs
# first (with a fixed order sqrt, the same code in all three, came out
# 1.12-1.18x apart)
while [ $r -le "$rounds" ]; do
    case $((r % 3)) in
    1) one_run "$build/bench/bench-ufnc" "$fast/default.json"; one_run "$libmvec/bench-ufnc" "$fast/libmvec.json"
       one_run "$fast/bench-ufnc" "$fast/fast.json" ;;
    2) one_run "$libmvec/bench-ufnc" "$fast/libmvec.json"; one_run "$fast/bench-ufnc" "$fast/fast.json"
       one_run "$build/bench/bench-ufnc" "$fast/default.json" ;;
    0) one_run "$fast/bench-ufnc" "$fast/fast.json"; one_run "$build/bench/bench-ufnc" "$fast/default.json"
       one_run "$libmvec/bench-ufnc" "$fast/libmvec.json" ;;
    esac
    r=$((r + 1))
done
python3 - "$fast/default.json" "$fast/libmvec.json" "$fast/fast.json" <<'PY'
import json, sys
def mins(path):
    best = {}
    for line in open(path):
        d = json.loads(line)
        if d["impl"] != "ufnc":
            continue
        k = d["workload"]
        best[k] = min(best.get(k, 1e9), d["min"])
        isa, threads, n = d["isa"], d["threads"], d["n"]
    return best, isa, threads, n
a, isa, threads, n = mins(sys.argv[1])
v, _, _, _ = mins(sys.argv[2])
b, _, _, _ = mins(sys.argv[3])
print(f"n = {n:.0e}, {threads} threads, host ISA {isa}; fastest of the rounds, ms\n")
print("| workload | default (ufnc's math) | libmvec, IEEE division | --fast-math | default / libmvec | default / fast |")
print("|---|---|---|---|---|---|")
for k in a:
    if k in b and k in v:
        print(f"| {k} | {a[k]*1e3:.2f} | {v[k]*1e3:.2f} | {b[k]*1e3:.2f} | {a[k]/v[k]:.2f}x | {a[k]/b[k]:.2f}x |")
PY
echo
${CC:-cc} -std=c11 -O3 -ffp-contract=off -fno-math-errno -fno-trapping-math -fopenmp-simd -Iinclude \
    -o "$fast/fastmath-lanes" bench/fastmath_lanes.c -lmvec -lm || exit 1
"$fast/fastmath-lanes"
