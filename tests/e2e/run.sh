#!/bin/sh
# Run programs on the host and sim backends and compare what they computed.
#
#   run.sh LABEL OUTDIR CMPDUMP PROGRAM...
#
# E2E_DEVICE=cuda (make check-gpu) runs them on the GPU instead of the
# simulator, and compares the host runs with that.
#
# Each PROGRAM (a sample or a feature test) checks its own numbers against
# its reference and exits 0 when they are right.  It runs six times:
#   host            UFN_BACKEND=host, the best vector ISA of this CPU, a
#                   thread per CPU
#   host-avx2       UFN_HOST_ISA=avx2 (AVX2 loops; the best one below it on
#                   a CPU without AVX2)
#   host-baseline   UFN_HOST_ISA=baseline (SSE2 loops)
#   host-1thread    UFN_NUM_THREADS=1
#   host-5threads   UFN_NUM_THREADS=5 (more threads than this machine's
#                   cores: other splits of the same calls)
#   sim             UFN_BACKEND=sim, the generated CUDA C on the simulator
# and each run must report the backend it was asked for.  Then cmpdump
# compares the results of each host run with the simulator's, bit for bit:
# ufnc's math functions give one answer per input (ufn(7)), whatever the
# backend, ISA or thread count (tests/e2e/cmpdump.c).
# One line per program, then a summary; exit 1 if any failed.
label=$1 out=$2 cmpdump=$3
shift 3
device=${E2E_DEVICE:-sim}
hosts="host host-avx2 host-baseline host-1thread host-5threads"
mkdir -p "$out"
pass=0 fail=0 failed=""

for prog in "$@"; do
    name=${prog##*/}
    log=$out/$name.log
    rm -f "$out/$name".*.dump
    : > "$log"
    ok=1
    for cfg in $hosts $device; do
        case $cfg in
            host) env="UFN_BACKEND=host" backend=host ;;
            host-avx2) env="UFN_BACKEND=host UFN_HOST_ISA=avx2" backend=host ;;
            host-baseline) env="UFN_BACKEND=host UFN_HOST_ISA=baseline" backend=host ;;
            host-1thread) env="UFN_BACKEND=host UFN_NUM_THREADS=1" backend=host ;;
            host-5threads) env="UFN_BACKEND=host UFN_NUM_THREADS=5" backend=host ;;
            sim|cuda) env="UFN_BACKEND=$cfg" backend=$cfg ;;
        esac
        echo "--- $name on $cfg ($env)" >> "$log"
        env $env "$prog" --dump "$out/$name.$cfg.dump" > "$out/$name.$cfg.log" 2>&1
        rc=$?
        cat "$out/$name.$cfg.log" >> "$log"
        if [ $rc -ne 0 ]; then
            echo "--- $name on $cfg: exit status $rc" >> "$log"
            ok=0
        elif ! grep -q "on the $backend backend" "$out/$name.$cfg.log"; then
            echo "--- $name on $cfg: did not say it ran on the $backend backend" >> "$log"
            ok=0
        fi
    done
    for cfg in $hosts; do
        [ -s "$out/$name.$cfg.dump" ] && [ -s "$out/$name.$device.dump" ] || continue
        echo "--- $name: $cfg against $device" >> "$log"
        "$cmpdump" "$out/$name.$cfg.dump" "$out/$name.$device.dump" >> "$log" 2>&1 || ok=0
    done
    if [ $ok -eq 1 ]; then
        pass=$((pass + 1))
        total=$(grep -c ' values, ' "$log")
        printf 'ok    %-16s 5 host runs and %s agree: %s arrays compared, all bit-identical\n' "$name" "$device" "$total"
    else
        fail=$((fail + 1)); failed="$failed $name"
        printf 'FAIL  %s (log: %s)\n' "$name" "$log"
        grep -E '^    [^ (]|MISMATCH|FAIL|failed|exit status|did not say|error|not found' "$log" | head -24 | sed 's/^/      /'
    fi
done
echo "$label: $pass passed, $fail failed${failed:+ ($failed )}"
[ "$fail" -eq 0 ]
