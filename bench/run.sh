#!/bin/sh
# bench/run.sh - what `make bench` runs (mk/bench.mk builds the programs first).
#
#   1. installs what the baselines need when missing: NumPy and Numba from
#      Debian for /usr/bin/python3, matplotlib for the plot (as root; else it
#      says what to install and goes on without)
#   2. records the machine
#   3. the cross-check: ufnc on host and sim, NumPy, Numba, all against a
#      float64 reference, before any timing (report.py only counts timings of
#      implementations that passed)
#   4. BENCH_ROUNDS rounds of: the C harness (ufnc + floors), NumPy + Numba
#      with the workqueue threading layer, Numba parallel with the default one
#   5. transfers in sim, static GPU metrics, compile times
#   6. bench/python/report.py writes bench/RESULTS.md, bench/throughput.png
#      and bench/results/<date>-<host>.json
set -eu

BUILD=${BUILD:-build}
UFNC=${UFNC:-$BUILD/bin/ufnc}
ROUNDS=${BENCH_ROUNDS:-3}
LONG=${BENCH_LONG:-}
ONLY=${BENCH_ONLY:-}
PY=/usr/bin/python3          # Debian's python3, where python3-numpy/numba live
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(cd "$BUILD/bench" && pwd)
UFNC=$(cd "$(dirname "$UFNC")" && pwd)/$(basename "$UFNC")
WORK=$BIN/run

say() { printf 'bench: %s\n' "$*" >&2; }

need_pkgs=
$PY -c 'import numpy, numba' 2>/dev/null || need_pkgs="python3-numpy python3-numba"
$PY -c 'import matplotlib' 2>/dev/null || need_pkgs="$need_pkgs python3-matplotlib"
if [ -n "$need_pkgs" ]; then
    if [ "$(id -u)" = 0 ]; then
        say "installing $need_pkgs"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need_pkgs >/dev/null 2>&1 ||
            { apt-get update -q >/dev/null 2>&1 &&
              DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need_pkgs >/dev/null 2>&1; } ||
            say "could not install $need_pkgs"
    else
        say "missing: $need_pkgs (sudo apt-get install $need_pkgs)"
    fi
fi
have_py=yes
$PY -c 'import numpy, numba' 2>/dev/null || { have_py=; say "no NumPy/Numba: baselines skipped"; }

rm -rf "$WORK"
mkdir -p "$WORK/check"
long=; [ -n "$LONG" ] && [ "$LONG" != 0 ] && long=--long
only=; [ -n "$ONLY" ] && only="--only $ONLY"

# ---- 2. the machine ----------------------------------------------------------------------
{
    printf '{"date": "%s", "host": "%s", ' "$(date -u +%Y-%m-%dT%H:%MZ)" "$(hostname)"
    printf '"cpu": "%s", ' "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    printf '"cpu_family_model": "%s", ' "$(awk -F': ' '/^cpu family/{f=$2} /^model[[:space:]]*:/{m=$2} END{print f "/" m}' /proc/cpuinfo)"
    printf '"nproc": %s, ' "$(nproc)"
    printf '"loadavg": "%s", ' "$(cut -d" " -f1-3 /proc/loadavg)"
    printf '"avx512": %s, ' "$(grep -q avx512f /proc/cpuinfo && echo true || echo false)"
    printf '"thp": "%s", ' "$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
    printf '"kernel": "%s", ' "$(uname -r)"
    printf '"glibc": "%s", ' "$(ldd --version 2>&1 | head -1 | sed 's/.* //')"
    printf '"gcc": "%s", ' "$(${CC:-cc} --version | head -1)"
    printf '"nvcc": "%s", ' "$( (${NVCC:-nvcc} --version 2>/dev/null || echo none) | tail -1)"
    printf '"ufnc": "%s", ' "$($UFNC --version 2>&1 | head -1)"
    printf '"git": "%s", ' "$(git -C "$HERE/.." rev-parse --short HEAD 2>/dev/null || echo unknown)"
    printf '"rounds": %s, "long": %s, ' "$ROUNDS" "$([ -n "$long" ] && echo true || echo false)"
    printf '"ufn_num_threads": "%s", ' "${UFN_NUM_THREADS:-}"
    printf '"bench_ufnc": %s, ' "$($BIN/bench-ufnc info)"
    printf '"python": %s}\n' "$([ -n "$have_py" ] && $PY "$HERE/python/machine.py" || echo null)"
} > "$WORK/machine.json"

# ---- 3. the check, before any timing --------------------------------------------------------
say "checking outputs (host, sim, NumPy, Numba) against a float64 reference"
UFN_BACKEND=host $BIN/bench-ufnc check --dir "$WORK/check" $only
UFN_BACKEND=sim $BIN/bench-ufnc check --dir "$WORK/check" $only
if [ -n "$have_py" ]; then
    (cd "$HERE/python" && NUMBA_THREADING_LAYER=workqueue $PY check.py "$WORK/check") > "$WORK/check.jsonl" ||
        say "some implementations failed the check: their timings will not count (see RESULTS.md)"
fi

# ---- 4. timing rounds, interleaved between processes -------------------------------------------
r=1
while [ "$r" -le "$ROUNDS" ]; do
    say "round $r of $ROUNDS: ufnc (host backend) and the memory floors"
    $BIN/bench-ufnc time --round "$r" $long $only >> "$WORK/c.jsonl"
    if [ -n "$have_py" ]; then
        say "round $r of $ROUNDS: NumPy, Numba cpu, Numba parallel (workqueue)"
        (cd "$HERE/python" && NUMBA_THREADING_LAYER=workqueue $PY baselines.py time --round "$r" $long $only) >> "$WORK/py.jsonl"
        say "round $r of $ROUNDS: Numba parallel (default threading layer)"
        (cd "$HERE/python" && env -u NUMBA_THREADING_LAYER $PY baselines.py time --impls numba-par --round "$r" $long $only) >> "$WORK/py.jsonl"
    fi
    r=$((r + 1))
done

# ---- 5. transfers, GPU metrics, compile times ------------------------------------------------------
say "transfers of the seed pipelines on the sim backend"
$BIN/bench-transfers 100000 > "$WORK/transfers.jsonl"
say "static GPU metrics (nvcc/ptxas, sm_90)"
$PY "$HERE/python/gpu_metrics.py" "$UFNC" "$HERE/../samples" sm_90 > "$WORK/gpu.jsonl"
say "compile times (front end on 10,000 lines; ufnc vs nvcc per sample)"
$PY "$HERE/python/compile_time.py" "$UFNC" "$HERE/../samples" --arch sm_80 --runs 3 > "$WORK/compile.jsonl"
$PY "$HERE/python/compile_time.py" "$UFNC" "$HERE/../samples" --only polar --runs 2 --no-frontend >> "$WORK/compile.jsonl"

# ---- 6. the report ----------------------------------------------------------------------------------
$PY "$HERE/python/report.py" "$WORK" "$HERE"
say "wrote bench/RESULTS.md, bench/throughput.png and bench/results/"
