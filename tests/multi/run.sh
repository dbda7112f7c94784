#!/bin/sh
# Several devices, seen from outside: tests/e2e/multigpu on four simulated
# GPUs, its UFN_TRACE read line by line, and UFN_DEVICES.
#
#   run.sh PROGRAM OUTDIR
#
# The program checks its own numbers (make check-e2e runs it on host and
# sim and compares them); here, what each device did: every device
# launches kernels and receives its share of the host data, the partial
# results of the reductions travel to device 0 by peer copies, and a device
# set from UFN_DEVICES (kept with MULTIGPU_ENV_SET=1) is the one used.  One
# line per case, then a summary; exit 1 if any failed.
prog=$1 out=$2
mkdir -p "$out"
pass=0 fail=0 failed=""

# run NAME EXPECTED-STATUS ENV... : the program's output in $out/NAME.log
run() {
    name=$1 want=$2
    shift 2
    env UFN_BACKEND=sim UFN_SIM_DEVICES=4 UFN_TRACE=1 "$@" "$prog" > "$out/$name.log" 2>&1
    status=$?
    [ "$status" -eq "$want" ] || { why="exit status $status, expected $want"; return 1; }
    return 0
}

# has NAME PATTERN [COUNT]: at least COUNT (default 1) lines match
has() {
    n=$(grep -c -- "$2" "$out/$1.log")
    [ "$n" -ge "${3:-1}" ] || { why="no line matches '$2'"; return 1; }
}

hasnt() {
    ! grep -q -- "$2" "$out/$1.log" || { why="a line matches '$2'"; return 1; }
}

verdict() {
    if [ "$1" -eq 0 ]; then
        pass=$((pass + 1)); printf 'ok    %s\n' "$2"
    else
        fail=$((fail + 1)); failed="$failed $2"
        printf 'FAIL  %s: %s (log: %s)\n' "$2" "$why" "$out/$2.log"
    fi
}

# A timed event's line ends with its duration (UFN_TRACE=1): $T matches it.
T=' ([0-9]*\.[0-9][0-9][0-9] us)$'

# Every device of the set works, and only on its own share.
ok=0
run all 0 || ok=1
for d in 0 1 2 3; do
    [ $ok -eq 0 ] && { has all "launch .* device $d$T" 3 || ok=1; }
    [ $ok -eq 0 ] && { has all "H2D .* device $d$T" || ok=1; }
done
for d in 1 2 3; do   # partial results of the folds meet on device 0
    [ $ok -eq 0 ] && { has all "P2P .* device $d to device 0$T" || ok=1; }
done
[ $ok -eq 0 ] && { has all "4 devices in the set" || ok=1; }
verdict $ok all

ok=0
run list 0 MULTIGPU_ENV_SET=1 UFN_DEVICES=1,3 || ok=1
[ $ok -eq 0 ] && { has list "2 devices in the set" || ok=1; }
[ $ok -eq 0 ] && { has list "launch .* device 1$T" && has list "launch .* device 3$T" || ok=1; }
[ $ok -eq 0 ] && { hasnt list "launch .* device [02]$T" || ok=1; }
[ $ok -eq 0 ] && { has list "P2P .* device 3 to device 1$T" || ok=1; }
verdict $ok list

ok=0
run env-all 0 MULTIGPU_ENV_SET=1 UFN_DEVICES=all || ok=1
[ $ok -eq 0 ] && { has env-all "4 devices in the set" || ok=1; }
verdict $ok env-all

ok=0
run no-such-device 1 MULTIGPU_ENV_SET=1 UFN_DEVICES=0,7 || ok=1
[ $ok -eq 0 ] && { has no-such-device "UFN_DEVICES=0,7: no sim device 7: there are 4 (0 to 3)" || ok=1; }
verdict $ok no-such-device

ok=0
run not-a-list 1 MULTIGPU_ENV_SET=1 UFN_DEVICES=0,x || ok=1
[ $ok -eq 0 ] && { has not-a-list 'UFN_DEVICES=0,x is neither "all" nor a list' || ok=1; }
verdict $ok not-a-list

# The host backend has one device: any list is accepted and the set is {0}.
ok=0
run host 0 UFN_BACKEND=host MULTIGPU_ENV_SET=1 UFN_DEVICES=0,5 || ok=1
[ $ok -eq 0 ] && { has host "1 device in the set" || ok=1; }
verdict $ok host

echo "multi: $pass passed, $fail failed${failed:+ ($failed )}"
[ "$fail" -eq 0 ]
