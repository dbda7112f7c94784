#!/bin/sh
# run-fuzz.sh - the fuzz targets' runs (see mk/fuzz.mk).
#
#   run-fuzz.sh check  DIR SECONDS   replay the regression inputs and the
#                                    corpus, then fuzz each target SECONDS
#                                    from a copy of its corpus
#   run-fuzz.sh replay DIR           replay only, with replay_* (no libFuzzer)
#   run-fuzz.sh cc-smoke DIR         the cc mode (FUZZ_CC=1, frontend.h) on a
#                                    few inputs of each corpus, and once with
#                                    a C compiler that always fails, which
#                                    must be a finding
#   run-fuzz.sh cc     DIR TARGET SECONDS [JOBS]
#                                    fuzz TARGET in the cc mode for SECONDS,
#                                    from a scratch copy of its corpus
#   run-fuzz.sh long   DIR TARGET RUNS [JOBS]
#                                    fuzz TARGET for RUNS executions in all,
#                                    in JOBS processes (default 1) sharing one
#                                    corpus, into its corpus in the
#                                    repository, then minimise the corpus
#                                    (libFuzzer -merge)
#
# DIR holds the binaries (fuzz_frontend, fuzz_gen, or replay_*).  The seed
# inputs are tests/fuzz/corpus/<target>/ and the regression inputs
# tests/fuzz/regress/<target>/ (every crash found becomes one).
set -u
mode=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/corpus
regress=$here/regress
dict=$here/ufn.dict
targets="frontend gen"
# A crash, a leak, a sanitizer report or an input slower than 10 s fails.
opts="-timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

mkdir -p "$regress/frontend" "$regress/gen" "$corpus/frontend" "$corpus/gen"

dict_for() {
    [ "$1" = frontend ] && [ -f "$dict" ] && echo "-dict=$dict"
}

# The end of a libFuzzer log: its stats, or the report of a finding.
report() {
    if grep -q 'ERROR: libFuzzer\|ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer\|==ERROR' "$1"; then
        grep -B2 -A30 'ERROR\|runtime error' "$1" | head -60
        grep 'Test unit written to' "$1"
        return 1
    fi
    return 0
}

# The binary that runs a target's inputs once: libFuzzer's, or replay_*.
runner() {
    if [ -x "$dir/fuzz_$1" ]; then echo "$dir/fuzz_$1 -runs=0"; else echo "$dir/replay_$1"; fi
}

case $mode in
cc-smoke)
    rc=0
    scratch=$dir/cc-smoke
    rm -rf "$scratch"
    mkdir -p "$scratch/tmp"
    # frontend: the samples, valid modules all; gen: its corpus's first 12
    # inputs by name (every gen input is a valid module)
    mkdir -p "$scratch/frontend" "$scratch/gen"
    cp "$here"/../../samples/*.ufn "$scratch/frontend/"
    find "$corpus/gen" -type f | sort | head -n 12 | while read -r f; do cp "$f" "$scratch/gen/"; done
    for t in $targets; do
        n=$(ls "$scratch/$t" | wc -l)
        if FUZZ_CC=1 TMPDIR=$scratch/tmp $(runner "$t") "$scratch/$t" > "$scratch/$t.log" 2>&1; then
            echo "ok    $t: $n valid modules in the cc mode, each built by cc and its header compiled"
        else
            echo "FAIL $t: the cc mode"; tail -30 "$scratch/$t.log"; rc=1
        fi
    done
    # The oracle is real: a C compiler that fails makes a finding.
    if FUZZ_CC=1 FUZZ_CC_CC=false TMPDIR=$scratch/tmp $(runner gen) "$scratch/gen" > "$scratch/false.log" 2>&1 ||
       ! grep -q "but building it with cc (host and sim) failed" "$scratch/false.log"; then
        echo "FAIL the cc mode did not notice a C compiler that fails"; tail -10 "$scratch/false.log"; rc=1
    else
        echo "ok    the cc mode reports a C compiler that fails"
    fi
    rm -rf "$scratch/tmp"
    exit $rc
    ;;
cc)
    t=$3 secs=$4 jobs=${5:-1}
    dir=$(cd "$dir" && pwd)
    work=$dir/cc-work-$t log=$dir/cc-$t.log
    rm -rf "$work" "$dir/cc-tmp-$t"
    mkdir -p "$work/corpus" "$dir/cc-tmp-$t" "$dir/artifacts-cc-$t"
    cp "$corpus/$t"/* "$work/corpus/" 2>/dev/null
    echo "fuzz-cc: fuzz_$t with FUZZ_CC=1 for $secs s in $jobs process(es), log in $log"
    start=$(date +%s)
    # cc runs at nice 19 on a busy machine: a generous time per input (the
    # later -timeout wins), or a slow cc is a false finding.  -fork with
    # -ignore_crashes goes on after a finding, so that one run collects
    # every kind it meets (a finding is cheap to meet again).
    (cd "$work" && FUZZ_CC=1 TMPDIR=$dir/cc-tmp-$t "$dir/fuzz_$t" -max_total_time="$secs" -fork="$jobs" \
        -ignore_crashes=1 $opts -timeout=300 $(dict_for "$t") -artifact_prefix="$dir/artifacts-cc-$t/" \
        "$work/corpus") > "$log" 2>&1
    st=$?
    end=$(date +%s)
    total=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
    found=$(ls "$dir/artifacts-cc-$t" | grep -c '^crash-')
    echo "fuzz-cc: ${total:-?} executions, $found finding(s), exit status $st after $((end - start)) s"
    if [ "$found" -gt 0 ]; then
        echo "fuzz-cc: the findings (each a module ufnc accepts and cc does not build):"
        ls "$dir/artifacts-cc-$t"/crash-* | sed 's/^/    /'
        exit 1
    fi
    [ $st -eq 0 ] || { report "$log"; exit 1; }
    ;;
check)
    secs=$3 rc=0
    for t in $targets; do
        log=$dir/check-$t.log
        # 1. replay: every regression input and the corpus, once
        if ! "$dir/fuzz_$t" -runs=0 $opts "$regress/$t" "$corpus/$t" > "$log" 2>&1; then
            echo "FAIL fuzz_$t: replaying the corpus and the regression inputs"; report "$log"; rc=1; continue
        fi
        n=$(find "$regress/$t" "$corpus/$t" -type f | wc -l)
        echo "ok    fuzz_$t replayed $n inputs"
        # 2. fuzz from a scratch copy, so the repository's corpus stays as committed
        work=$dir/work-$t
        rm -rf "$work" "$dir/artifacts-$t"
        mkdir -p "$work" "$dir/artifacts-$t"
        cp "$corpus/$t"/* "$work/" 2>/dev/null
        if "$dir/fuzz_$t" -max_total_time="$secs" $opts $(dict_for "$t") \
               -artifact_prefix="$dir/artifacts-$t/" "$work" > "$log" 2>&1; then
            runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
            cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
            echo "ok    fuzz_$t ran ${runs:-?} inputs in ${secs}s ($cov), no finding"
        else
            echo "FAIL fuzz_$t found a problem (inputs in $dir/artifacts-$t/; add one to tests/fuzz/regress/$t/):"
            report "$log"
            rc=1
        fi
    done
    exit $rc
    ;;
replay)
    rc=0
    for t in $targets; do
        if "$dir/replay_$t" "$regress/$t" "$corpus/$t" > "$dir/replay-$t.log" 2>&1; then
            echo "ok    replay_$t: $(tail -1 "$dir/replay-$t.log")"
        else
            echo "FAIL replay_$t"; tail -40 "$dir/replay-$t.log"; rc=1
        fi
    done
    exit $rc
    ;;
long)
    t=$3 runs=$4 jobs=${5:-1}
    dir=$(cd "$dir" && pwd)        # the jobs run inside $dir/jobs-$t
    log=$dir/long-$t.log
    rm -rf "$dir/jobs-$t"
    mkdir -p "$dir/artifacts-$t" "$dir/new-$t" "$dir/jobs-$t"
    start=$(date +%s)
    echo "fuzz-long: fuzz_$t, $runs executions in $jobs process(es), logs in $log and $dir/jobs-$t/"
    if [ "$jobs" -gt 1 ]; then
        # libFuzzer's -jobs: each job runs RUNS/JOBS executions, writing
        # fuzz-N.log in the current directory (which the parent prints into
        # its own log as each job ends); they share new-$t.
        (cd "$dir/jobs-$t" && "$dir/fuzz_$t" -jobs="$jobs" -workers="$jobs" -runs=$((runs / jobs)) \
            $opts $(dict_for "$t") -artifact_prefix="$dir/artifacts-$t/" "$dir/new-$t" "$corpus/$t") \
            > "$log" 2>&1
        st=$?
    else
        "$dir/fuzz_$t" -runs="$runs" $opts $(dict_for "$t") -artifact_prefix="$dir/artifacts-$t/" \
            "$dir/new-$t" "$corpus/$t" > "$log" 2>&1
        st=$?
    fi
    end=$(date +%s)
    grep '^stat::\|^#[0-9]*.*DONE' "$log" | tail -$((12 * jobs))
    total=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{ n += $1 } END { print n + 0 }')
    echo "fuzz-long: $total executions in all, exit status $st after $((end - start)) s"
    if [ $st -ne 0 ] || [ "$total" -lt "$runs" ]; then
        report "$log"
        exit 1
    fi
    # Keep a minimal corpus: whatever covers what old and new inputs cover,
    # from inputs of 2 KB at most (the repository keeps it, so it stays small).
    rm -rf "$dir/merged-$t"
    mkdir -p "$dir/merged-$t"
    "$dir/fuzz_$t" -set_cover_merge=1 $opts -max_len=2048 "$dir/merged-$t" "$corpus/$t" "$dir/new-$t" \
        > "$dir/merge-$t.log" 2>&1 &&
        rm -rf "$corpus/$t" && mv "$dir/merged-$t" "$corpus/$t" &&
        echo "fuzz-long: corpus $t minimised to $(ls "$corpus/$t" | wc -l) inputs, $(du -sh "$corpus/$t" | cut -f1)"
    ;;
*)
    echo "usage: run-fuzz.sh check DIR SECONDS | replay DIR | cc-smoke DIR | cc DIR TARGET SECONDS [JOBS]" \
         "| long DIR TARGET RUNS [JOBS]" >&2
    exit 2
    ;;
esac
