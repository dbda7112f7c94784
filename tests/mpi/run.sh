#!/bin/sh
# libufnmpi under mpirun: tests/mpi/test_mpi on 1, 2 and 4 ranks on the
# host backend, and on 2 and 3 ranks with two simulated GPUs each, and the MPI sample
# (samples/mpi/hidden_layer) on 2 ranks against 1 process.
#
#   run.sh MPIRUN OUTDIR TEST SAMPLE
#
# One line per run, then a summary; exit 1 if any failed.  Each run's
# output is in OUTDIR/NAME.log.
#
# The machine may have fewer cores than ranks (--oversubscribe), and the
# tests may run as root, which Open MPI refuses unless told
# (--allow-run-as-root).  pml ob1 with the self and vader BTLs skips the
# ~200 ms the default spends probing network transports
# (docs/reference: scale-out.md 4.1).  A rank that hangs is killed after
# 60 s (timeout), and the run fails.
mpirun=$1 out=$2 test=$3 sample=$4
mkdir -p "$out"
pass=0 fail=0 failed=""

flags="--oversubscribe --mca pml ob1 --mca btl self,vader"
[ "$(id -u)" -eq 0 ] && flags="$flags --allow-run-as-root"
# Open MPI leaks by design: under LeakSanitizer (make check-asan) only
# leaks outside MPI count (lsan.supp says how).
supp=$(cd "$(dirname "$0")" && pwd)/lsan.supp
export LSAN_OPTIONS="suppressions=$supp:fast_unwind_on_malloc=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export OMPI_MCA_mca_base_component_disable_dlclose=1 PMIX_MCA_mca_base_component_disable_dlclose=1

verdict() {
    if [ "$1" -eq 0 ]; then
        pass=$((pass + 1)); printf 'ok    %s\n' "$2"
    else
        fail=$((fail + 1)); failed="$failed $3"; printf 'FAIL  %s\n' "$2"
        sed 's/^/      /' "$out/$3.log" | tail -30
    fi
}

# run NAME NP ENV... -- PROGRAM ARGS...
run() {
    name=$1 np=$2
    shift 2
    envs=""
    while [ "$1" != "--" ]; do envs="$envs -x $1"; shift; done
    shift
    # shellcheck disable=SC2086
    timeout 60 "$mpirun" $flags -np "$np" $envs "$@" > "$out/$name.log" 2>&1
}

# (4 ranks: with fewer, Open MPI combines a commutative operator in rank
# order anyway, and test_mpi's check of the order could not fail)
for np in 1 2 4; do
    run "host-$np" "$np" UFN_BACKEND=host -- "$test"
    verdict $? "test_mpi on $np rank(s), host backend" "host-$np"
done
for np in 2 3; do
    run "sim-$np" "$np" UFN_BACKEND=sim UFN_SIM_DEVICES=2 UFN_DEVICES=all -- "$test"
    verdict $? "test_mpi on $np rank(s), two simulated GPUs each (UFN_DEVICES=all)" "sim-$np"
done

# The sample: the same layer on 1 and 2 processes; the largest activation
# is the same bit for bit, the sums agree to float32 rounding.
run sample-1 1 UFN_BACKEND=sim UFN_SIM_DEVICES=2 -- "$sample" --n 300001
st1=$?
run sample-2 2 UFN_BACKEND=sim UFN_SIM_DEVICES=2 -- "$sample" --n 300001
st2=$?
line() { sed -n 's/.*sum of activations \([^ ]*\) .*largest |activation| \([^ ]*\)$/\1 \2/p' "$out/$1.log"; }
one=$(line sample-1) two=$(line sample-2)
cat "$out/sample-1.log" "$out/sample-2.log" > "$out/sample.log"
same=1
if [ "$st1" -eq 0 ] && [ "$st2" -eq 0 ] && [ -n "$one" ] && [ -n "$two" ]; then
    echo "$one $two" | awk '{ d = $1 - $3; if (d < 0) d = -d;
                              exit !(d <= 1e-5 * ($1 < 0 ? -$1 : $1) && $2 == $4) }' && same=0
fi
verdict $same "samples/mpi/hidden_layer: 2 ranks agree with 1 process ($one / $two)" sample

echo "mpi: $pass passed, $fail failed${failed:+ (logs: $out/<name>.log for$failed)}"
[ "$fail" -eq 0 ]
