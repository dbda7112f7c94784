#!/bin/sh
# Run the C interop tests (mk/interop.mk): each program on the backends it
# is for, one line each, then a summary; exit 1 if any failed.
dir=$1
pass=0 fail=0
run() {
    name=$1; shift
    if env "$@" "$dir/$name" > "$dir/$name.log" 2>&1; then
        pass=$((pass + 1)); echo "  ok    $name ($*)"
    else
        fail=$((fail + 1)); echo "  FAIL  $name ($*)"; sed 's/^/        /' "$dir/$name.log"
    fi
}
run openmp UFN_BACKEND=host
run devices UFN_BACKEND=sim UFN_SIM_DEVICES=2
run devices UFN_BACKEND=host
run view UFN_BACKEND=sim UFN_SIM_DEVICES=2
run view UFN_BACKEND=host
echo "interop: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
