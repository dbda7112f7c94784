#!/bin/sh
# Run the C interop tests (mk/interop.mk): each program on the backends it
# is for, one line each, then a summary; exit 1 if any failed.
#   run.sh DIR   (DIR holds the programs and libfakenvtx.so)
dir=$1
pass=0 fail=0
# run NAME [PATTERN] VAR=VALUE...: the program must exit 0 and, with a
# PATTERN (a word with no '='), print a line matching it on stderr.
run() {
    name=$1; shift
    pattern=
    case $1 in *=*) ;; *) pattern=$1; shift ;; esac
    env "$@" "$dir/$name" > "$dir/$name.log" 2> "$dir/$name.err"
    rc=$?
    if [ $rc -eq 0 ] && { [ -z "$pattern" ] || grep -qE "$pattern" "$dir/$name.err"; }; then
        pass=$((pass + 1)); echo "  ok    $name ($*)"
    else
        fail=$((fail + 1)); echo "  FAIL  $name ($*): exit status $rc${pattern:+, stderr should match '$pattern'}"
        cat "$dir/$name.log" "$dir/$name.err" | sed 's/^/        /' | tail -20
    fi
}
nvtx=$dir/libfakenvtx.so
run openmp UFN_BACKEND=host
run devices UFN_BACKEND=sim UFN_SIM_DEVICES=2
run devices UFN_BACKEND=host
run view UFN_BACKEND=sim UFN_SIM_DEVICES=2
run view UFN_BACKEND=host
run trace UFN_BACKEND=sim UFN_NVTX_LIBRARY=$nvtx
run trace UFN_BACKEND=host UFN_NVTX_LIBRARY=$nvtx
# durations on the timed lines, none on frees; the summary at exit
run trace '^ufn: sim  launch .*axpb.* elements device 0 \([0-9]+\.[0-9]{3} us\)$' \
    UFN_BACKEND=sim UFN_TRACE=1
run trace '^ufn: sim  launch .*axpb.* elements device 0 \([0-9]+\.[0-9]{3} us\)$' \
    UFN_BACKEND=sim UFN_TRACE=time
run trace '^ufn: summary   host-loop +2 +2000 elements +[0-9]+\.[0-9]{3}$' \
    UFN_BACKEND=host UFN_TRACE=summary
run trace '^ufn: summary   launch +2 +2000 elements' UFN_BACKEND=sim UFN_TRACE=summary,1
echo "interop: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
