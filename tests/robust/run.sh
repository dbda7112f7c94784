#!/bin/sh
# run.sh - the robustness suite (mk/robust.mk): one line per part, a summary.
# Usage: run.sh BUILD_DIR UFNC STUB_LIBCUDA
#   BUILD_DIR  where mk/robust.mk built hostile, rules (build/robust)
#   STUB       a libcuda.so without a GPU (the toolkit's stub), or empty
set -u
dir=$1 ufnc=$2 stub=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0 failed=""

# part NAME COMMAND...: run, one line, the log's interesting end on failure
part() {
    name=$1
    shift
    log=$dir/$name.log
    if "$@" > "$log" 2>&1; then
        pass=$((pass + 1))
        printf 'ok    %s%s\n' "$name" "$(sed -n -e 's/^\[  PASSED  \] \([0-9]*\) test.*/ (\1 cases)/p' \
            -e 's/^compiler robustness: \([0-9]*\) passed.*/ (\1 cases)/p' "$log")"
    else
        fail=$((fail + 1)); failed="$failed $name"
        printf 'FAIL  %s\n' "$name"
        grep -v '^\[ RUN\|^\[       OK' "$log" | cut -c1-200 | head -30 | sed 's/^/      /'
    fi
}

part compiler "$here/compiler.sh" "$ufnc" "$dir/compiler"
part hostile-host env UFN_BACKEND=host "$dir/hostile" calls
part hostile-sim env UFN_BACKEND=sim "$dir/hostile" calls
part hostile-sim-oom env UFN_BACKEND=sim UFN_SIM_MEMORY=1M "$dir/hostile" sim-oom
part hostile-no-driver env UFN_BACKEND=cuda UFN_CUDA_LIBRARY=/nonexistent/libcuda.so.1 "$dir/hostile" no-driver
if [ -n "$stub" ] && [ -f "$stub" ]; then
    part hostile-stub-driver env UFN_BACKEND=cuda UFN_CUDA_LIBRARY="$stub" "$dir/hostile" stub-driver
    part hostile-auto-stub env UFN_BACKEND=auto UFN_CUDA_LIBRARY="$stub" "$dir/hostile" auto-stub
else
    echo "skip  hostile-stub-driver: no stub libcuda.so (the CUDA toolkit's lib64/stubs)"
fi
part hostile-auto-no-driver env UFN_BACKEND=auto UFN_CUDA_LIBRARY=/nonexistent/libcuda.so.1 "$dir/hostile" auto-stub
part hostile-bad-backend env UFN_BACKEND=bogus "$dir/hostile" bad-backend
part hostile-fork-host env UFN_BACKEND=host "$dir/hostile" fork
part hostile-fork-sim env UFN_BACKEND=sim "$dir/hostile" fork
part rules-host env UFN_BACKEND=host "$dir/rules"
part rules-sim env UFN_BACKEND=sim "$dir/rules"
part agree-host env UFN_BACKEND=host "$dir/agree"
part agree-sim env UFN_BACKEND=sim "$dir/agree"
part rules-cuda "$here/rules-cuda.sh" "$ufnc" "$here/rules.ufn" "$dir/rules-cuda"

echo "robust: $pass passed, $fail failed${failed:+ (${failed# })}"
[ $fail -eq 0 ]
