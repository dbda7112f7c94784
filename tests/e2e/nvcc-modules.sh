#!/bin/sh
# Every sample and test module compiled for the CI's architectures (ARCHS:
# one per GPU family, mk/e2e.mk says which and why), with ptxas's resource
# usage recorded.  (--target=cuda: the host and sim code is built by the
# suites that run it; tests/e2e's modules are built for ARCHS by mk/e2e.mk
# itself.)
#
#   nvcc-modules.sh UFNC OUTDIR NVCC ARCHS MODULE.ufn...
#
# NVCC is the one the build found (empty: none, and the test is skipped).
# A module passes when it builds and nvcc says nothing about it: ufnc's
# -Wspill warnings (ptxas spilled registers on some architecture: a
# warning by design, ufnc(1)) are listed in OUTDIR/spills.log.  OUTDIR/
# registers.log gets one line per kernel and architecture ("registers",
# "spill stores", "stack") for whoever looks at register pressure.  Two
# compilations run at a time.
ufnc=$1 out=$2 nvcc=$3 archs=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "$nvcc" ]; then
    echo "e2e nvcc: skipped: no nvcc"
    exit 0
fi
rm -rf "$out"
mkdir -p "$out"

# A module's name here: its directory and file, samples_polar, codegen_polar.
name_of() { echo "$(basename "$(dirname "$1")")_$(basename "$1" .ufn)"; }

# One module: compile, keep ptxas's report, summarise it in NAME.regs.
compile_one() {
    ufn=$1
    name=$(name_of "$ufn")
    if "$ufnc" --target=cuda --nvcc="$nvcc" --arch="$archs" -Xnvcc --resource-usage -o "$out/$name.o" \
        -H "$out/$name.h" "$ufn" \
        > "$out/$name.ptxas" 2>&1; then
        # -Wspill warnings are listed; ufnc's warnings about the source may
        # be (add.ufn has no signatures); a message of nvcc's fails
        grep -v '^ptxas info\|^    [0-9]* bytes stack frame' "$out/$name.ptxas" |
            "$here/spills.awk" -v spills="$out/$name.spills" |
            grep -v '^[^ ]*:[0-9]*:[0-9]*: \(warning\|note\): \|^ *[0-9]* |' > "$out/$name.other"
        if [ -s "$out/$name.other" ]; then
            echo "FAIL nvcc's messages"
            return
        fi
        awk -v name="$name" '
            # ptxas -v: "Compiling entry function 'F' for 'sm_80'", then
            # "Function properties for F" / "N bytes stack frame, M bytes spill
            # stores, ..." / "Used R registers"; device functions get their
            # own properties lines (with the arch of the entry before them).
            function unquote(s) { gsub(/[\047`]/, "", s); return s }
            /Compiling entry function/ { fn = unquote($7); arch = unquote($9) }
            /Function properties for/  { props = unquote($NF) }
            /bytes stack frame/        { if (props != fn && props != "")
                                             printf "%-22s %-8s    - registers %4s spill stores %4s stack  %s (device function)\n", name, arch, $5, $1, props
                                         else { stack = $1; spill = $5 } }
            /Used [0-9]+ registers/    { regs = $0; sub(/.*Used /, "", regs); sub(/ registers.*/, "", regs)
                                         if (fn != "") printf "%-22s %-8s %4s registers %4s spill stores %4s stack  %s\n", name, arch, regs, spill, stack, fn
                                         fn = ""; stack = spill = 0 }
        ' "$out/$name.ptxas" > "$out/$name.regs"
        echo "ok $name"
    else
        echo "FAIL build"
    fi
}

i=0
for ufn in "$@"; do
    compile_one "$ufn" > "$out/$(name_of "$ufn").status" &
    i=$((i + 1))
    [ $((i % 2)) -eq 0 ] && wait      # two at a time: this machine has two cores
done
wait
pass=0 fail=0 failed=""
: > "$out/registers.log"
: > "$out/spills.log"
for ufn in "$@"; do
    name=$(name_of "$ufn")
    if grep -q '^ok' "$out/$name.status" && [ -s "$out/$name.regs" ]; then
        pass=$((pass + 1))
        cat "$out/$name.regs" >> "$out/registers.log"
        narchs=$(awk '{print $2}' "$out/$name.regs" | sort -u | wc -l)
        kernels=$(awk '$3 != "-" {print $NF}' "$out/$name.regs" | sort -u | wc -l)
        regs=$(awk '$3 != "-" {print $3}' "$out/$name.regs" | sort -n | sed -n '1p;$p' | paste -sd- -)
        spills=
        if [ -s "$out/$name.spills" ]; then
            cat "$out/$name.spills" >> "$out/spills.log"
            spills=", $(grep -c 'Wspill' "$out/$name.spills") spill warning(s)"
        fi
        printf 'ok    %-22s %2d kernels x %2d archs, %s registers%s\n' "$name" "$kernels" "$narchs" "$regs" "$spills"
    else
        fail=$((fail + 1)); failed="$failed $name"
        printf 'FAIL  %s: %s (log: %s)\n' "$name" "$(sed 's/^FAIL //' "$out/$name.status")" "$out/$name.ptxas"
        { cat "$out/$name.other" 2>/dev/null; grep -i 'error\|warning' "$out/$name.ptxas"; } | head -10 | sed 's/^/      /'
    fi
done
echo "      (every kernel's registers: $out/registers.log; ptxas's spills: $out/spills.log)"
echo "e2e nvcc ($archs): $pass passed, $fail failed${failed:+ ($failed )}"
[ "$fail" -eq 0 ]
