#!/bin/sh
# Every sample's device code compiled for ufnc's DEFAULT arch list (every
# sm_75+ the installed nvcc builds, plus PTX of the newest), with ptxas's
# resource usage recorded.  (--target=cuda: make samples builds the host and
# sim code already.)
#
#   nvcc-samples.sh UFNC OUTDIR NVCC SAMPLE.ufn...
#
# NVCC is the one the build found (empty: none, and the test is skipped).
# ufnc itself makes ptxas spills errors (except in modules with recursive
# helpers, whose stack is unbounded: lucas), so the test is that every
# sample compiles; OUTDIR/registers.log gets one line per kernel and
# architecture ("registers", "spill stores", "stack") for whoever looks
# at register pressure.  Two compilations run at a time.
ufnc=$1 out=$2 nvcc=$3
shift 3
if [ -z "$nvcc" ]; then
    echo "e2e nvcc: skipped: no nvcc"
    exit 0
fi
mkdir -p "$out"

# One sample: compile, keep ptxas's report, summarise it in NAME.regs.
compile_one() {
    ufn=$1
    name=$(basename "$ufn" .ufn)
    if "$ufnc" --target=cuda --nvcc="$nvcc" -Xnvcc --resource-usage -o "$out/$name.o" -H "$out/$name.h" "$ufn" \
        > "$out/$name.ptxas" 2>&1; then
        awk -v name="$name" '
            # ptxas -v: "Compiling entry function 'F' for 'sm_80'", then
            # "Function properties for F" / "N bytes stack frame, M bytes spill
            # stores, ..." / "Used R registers"; device functions get their
            # own properties lines (with the arch of the entry before them).
            function unquote(s) { gsub(/[\047`]/, "", s); return s }
            /Compiling entry function/ { fn = unquote($7); arch = unquote($9) }
            /Function properties for/  { props = unquote($NF) }
            /bytes stack frame/        { if (props != fn && props != "")
                                             printf "%-16s %-8s    - registers %4s spill stores %4s stack  %s (device function)\n", name, arch, $5, $1, props
                                         else { stack = $1; spill = $5 } }
            /Used [0-9]+ registers/    { regs = $0; sub(/.*Used /, "", regs); sub(/ registers.*/, "", regs)
                                         if (fn != "") printf "%-16s %-8s %4s registers %4s spill stores %4s stack  %s\n", name, arch, regs, spill, stack, fn
                                         fn = ""; stack = spill = 0 }
        ' "$out/$name.ptxas" > "$out/$name.regs"
        echo "ok $name"
    else
        echo "FAIL $name"
    fi
}

i=0
for ufn in "$@"; do
    compile_one "$ufn" > "$out/$(basename "$ufn" .ufn).status" &
    i=$((i + 1))
    [ $((i % 2)) -eq 0 ] && wait      # two at a time: this machine has two cores
done
wait
pass=0 fail=0 failed=""
: > "$out/registers.log"
for ufn in "$@"; do
    name=$(basename "$ufn" .ufn)
    if grep -q '^ok' "$out/$name.status" && [ -s "$out/$name.regs" ]; then
        pass=$((pass + 1))
        cat "$out/$name.regs" >> "$out/registers.log"
        archs=$(awk '{print $2}' "$out/$name.regs" | sort -u | wc -l)
        kernels=$(awk '$3 != "-" {print $NF}' "$out/$name.regs" | sort -u | wc -l)
        regs=$(awk '$3 != "-" {print $3}' "$out/$name.regs" | sort -n | sed -n '1p;$p' | paste -sd- -)
        printf 'ok    %-16s %2d kernels x %2d archs, %s registers\n' "$name" "$kernels" "$archs" "$regs"
    else
        fail=$((fail + 1)); failed="$failed $name"
        printf 'FAIL  %s (log: %s)\n' "$name" "$out/$name.ptxas"
        grep -i 'error\|warning' "$out/$name.ptxas" | head -10 | sed 's/^/      /'
    fi
done
echo "      (every kernel's registers: $out/registers.log)"
echo "e2e nvcc: $pass passed, $fail failed${failed:+ ($failed )}"
[ "$fail" -eq 0 ]
