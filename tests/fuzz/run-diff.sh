#!/bin/sh
# run-diff.sh - the differential test: random valid modules (ufngen --exact),
# compiled by ufnc, run on the host and sim backends, compared with the
# reference interpreter's results and, where Python has Numba, with Numba's
# CPU target (skipping the results a documented rule makes differ).
#
# Usage: run-diff.sh BUILD UFNGEN FIRST_SEED COUNT WORKDIR [SEED...]
#   BUILD    the build directory (bin/ufnc, lib/libufnrt.a)
#   UFNGEN   the ufngen binary
#   SEED...  more seeds, run after FIRST_SEED..FIRST_SEED+COUNT-1 (those
#            that once failed)
# Environment: PYTHON (default /usr/bin/python3, else python3), CC,
#   DIFF_KEEP=1 keeps every seed's directory (failures are always kept).
set -u
build=$1 ufngen=$2 first=$3 count=$4 work=$5
shift 5
ufnc=$build/bin/ufnc
lib=$build/lib/libufnrt.a
cc=${CC:-cc}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

rm -rf "$work"
mkdir -p "$work" || exit 1

# Python with Numba, or a clear message and no Numba comparison.
py=${PYTHON:-}
if [ -z "$py" ]; then
    for cand in /usr/bin/python3 python3; do
        if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import numba, numpy' >/dev/null 2>&1; then
            py=$cand
            break
        fi
    done
fi
if [ -n "$py" ] && ! "$py" -c 'import numba, numpy' >/dev/null 2>&1; then
    py=
fi
[ -n "$py" ] || echo "diff: Numba comparison skipped: no Python with numba and numpy (the reference interpreter still runs)"

# compare EXPECTED ACTUAL LABEL [masked]: every result line of EXPECTED must
# appear in ACTUAL with the same value; with "masked", lines whose flag is 1
# are skipped and kernels Numba could not compile are reported, not failed.
compare() {
    awk -v label="$3" -v masked="${4:-}" -v stats="$work/stats.$3" '
        FNR == NR { want[$1 " " $2 " " $3] = $4; flag[$1 " " $2 " " $3] = $5; kernel[$1] = 1; next }
        $2 == "numba-error" || ($1 == "module" && $2 == "numba-error") {
            if (masked) { skipped[$1] = $0; next }
        }
        NF != 4 || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ { bad++; if (shown++ < 5) print label ": " $0; next }
        { got[$1 " " $2 " " $3] = $4 }
        END {
            for (k in want) {
                split(k, f, " ")
                if (masked && (flag[k] == 1 || (f[1] in skipped) || ("module" in skipped))) { nskip++; continue }
                ncmp++
                if (!(k in got)) { bad++; if (shown++ < 5) print label ": missing " k; continue }
                if (got[k] != want[k]) {
                    bad++
                    if (shown++ < 5) print label ": " k " is " got[k] ", expected " want[k]
                }
            }
            for (s in skipped) print label ": note: " skipped[s]
            printf "%d %d\n", ncmp, nskip >> stats
            exit bad > 0
        }' "$1" "$2"
}

# The range, then the extra seeds it does not hold.
last=$((first + count - 1))
extra=""
for seed in "$@"; do
    [ "$seed" -ge "$first" ] && [ "$seed" -le "$last" ] || extra="$extra $seed"
done

pass=0 fail=0 numba_dirs=""
for seed in $(seq "$first" "$last") $extra; do
    d=$work/seed$seed
    mkdir -p "$d"
    ok=1
    if ! "$ufngen" --seed "$seed" --exact --dir "$d" --module m > "$d/gen.log" 2>&1; then
        echo "FAIL seed $seed: ufngen failed"; sed 's/^/    /' "$d/gen.log" | head -5; ok=0
    elif ! "$ufnc" "$d/m.ufn" --target=host,sim -o "$d/m.o" > "$d/ufnc.log" 2>&1; then
        echo "FAIL seed $seed: ufnc rejected a valid module"; sed 's/^/    /' "$d/ufnc.log" | head -10; ok=0
    elif ! $cc -std=c11 -I"$root/include" -I"$d" -o "$d/prog" "$d/main.c" "$d/m.o" "$lib" -ldl -lpthread -lm \
            > "$d/cc.log" 2>&1; then
        echo "FAIL seed $seed: the driver does not build"; sed 's/^/    /' "$d/cc.log" | head -10; ok=0
    else
        for be in host sim; do
            if ! UFN_BACKEND=$be "$d/prog" > "$d/$be.txt" 2> "$d/$be.err"; then
                echo "FAIL seed $seed: the program failed on $be"; sed 's/^/    /' "$d/$be.err" | head -5; ok=0
            elif ! out=$(compare "$d/expected.txt" "$d/$be.txt" "$be"); then
                echo "FAIL seed $seed: $be differs from the reference"; echo "$out" | sed 's/^/    /'; ok=0
            fi
        done
    fi
    if [ $ok = 1 ]; then
        pass=$((pass + 1))
        numba_dirs="$numba_dirs $d"
    else
        fail=$((fail + 1))
    fi
done

# Numba: one Python process (importing numba takes seconds), forking for each seed.
numba_fail=0 numba_ok=0 keep=""
if [ -n "$py" ] && [ -n "$numba_dirs" ]; then
    "$py" "$here/numba_all.py" $numba_dirs > "$work/numba.log" 2>&1 || {
        echo "FAIL: numba_all.py failed"; sed 's/^/    /' "$work/numba.log" | tail -5; numba_fail=1; }
    for d in $numba_dirs; do
        [ -f "$d/numba.txt" ] || continue
        if out=$(compare "$d/expected.txt" "$d/numba.txt" numba masked); then
            numba_ok=$((numba_ok + 1))
            [ -n "$out" ] && echo "${d##*/}: $out"
        else
            echo "FAIL ${d##*/}: Numba differs from the reference"; echo "$out" | sed 's/^/    /'
            numba_fail=$((numba_fail + 1))
            keep="$keep $d"
        fi
    done
fi

# Failed seeds stay for a look; passing ones go unless DIFF_KEEP=1.
if [ "${DIFF_KEEP:-0}" != 1 ]; then
    for d in $numba_dirs; do
        case " $keep " in *" $d "*) ;; *) rm -rf "$d" ;; esac
    done
fi
total() { awk -v c="$2" '{ s += $c } END { print s + 0 }' "$work/stats.$1" 2>/dev/null || echo 0; }
if [ -n "$py" ]; then
    numba="Numba: $numba_ok agreed, $numba_fail differed ($(total numba 1) values compared,"
    numba="$numba $(total numba 2) left out by a documented rule or an exception)"
else
    numba="Numba: not run"
fi
echo "diff: seeds $first..$last${extra:+ and$extra}: $pass ran equal on host, sim and the reference ($(total host 1) values), $fail failed"
echo "diff: $numba"
[ $fail -eq 0 ] && [ $numba_fail -eq 0 ]
