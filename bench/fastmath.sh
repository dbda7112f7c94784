#!/bin/sh
# fastmath.sh - ufnc's own math functions (the default) against the vendors'
# (--fast-math: glibc's libmvec in the host loops) on bench-ufnc's workloads.
#
#   BUILD=build bench/fastmath.sh [SIZE [ROUNDS]]     (after make bench-build)
#
# Builds the bench modules a second time with --fast-math into
# $BUILD/bench-fast, links a second bench-ufnc, runs the two in turn ROUNDS
# times (default 3) at SIZE elements (default 1e7), and prints a Markdown
# table of the fastest time of each (the minimum: this machine is shared,
# and a median measures the neighbours), and their ratio.  Then
# bench/fastmath_lanes.c: the functions alone, both sides compiled with the
# default flags, in CPU time (see there why).
build=${BUILD:-build}
size=${1:-1e7} rounds=${2:-3}
ufnc=$build/bin/ufnc fast=$build/bench-fast
mkdir -p "$fast/mod" || exit 1
for m in sqrt polar gaussian l2_norm hidden_layer pulses zero_suppress; do
    "$ufnc" -w --fast-math --target=host,sim "samples/$m.ufn" -o "$fast/mod/$m.o" || exit 1
done
"$ufnc" -w --fast-math --literals=numpy --target=host,sim --prefix=lit_ --module-name=gaussian_lit \
    samples/gaussian.ufn -o "$fast/mod/gaussian_lit.o" || exit 1
${CC:-cc} -O2 -g -std=c11 -D_GNU_SOURCE -Iinclude -Icompiler -Iruntime -I"$build/gen" -I"$fast/mod" \
    -Ibench/harness -o "$fast/bench-ufnc" $(ls bench/harness/*.c | grep -v transfers.c) \
    "$build/bench/mod/gauss_how.c" "$fast"/mod/*.o "$build/lib/libufnrt.a" -ldl -lpthread -lm || exit 1
: > "$fast/default.json"; : > "$fast/fast.json"
r=1
while [ $r -le "$rounds" ]; do
    "$build/bench/bench-ufnc" time --sizes "$size" --round $r >> "$fast/default.json" || exit 1
    "$fast/bench-ufnc" time --sizes "$size" --round $r >> "$fast/fast.json" || exit 1
    r=$((r + 1))
done
python3 - "$fast/default.json" "$fast/fast.json" <<'PY'
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
b, _, _, _ = mins(sys.argv[2])
print(f"n = {n:.0e}, {threads} threads, host ISA {isa}; fastest of the rounds, ms\n")
print("| workload | default (ufnc's math) | --fast-math (libmvec) | default / fast |")
print("|---|---|---|---|")
for k in a:
    if k in b:
        print(f"| {k} | {a[k]*1e3:.2f} | {b[k]*1e3:.2f} | {a[k]/b[k]:.2f}x |")
PY
echo
${CC:-cc} -std=c11 -O3 -ffp-contract=off -fno-math-errno -fno-trapping-math -fopenmp-simd -Iinclude \
    -o "$fast/fastmath-lanes" bench/fastmath_lanes.c -lmvec -lm || exit 1
"$fast/fastmath-lanes"
