#!/bin/sh
# bench/pipeline/run.sh BENCH_BIN [SIZE...] - the hidden layer three calls,
# composed, pipelined, against the one-pass memory floor (bench-pipeline)
# and NumPy (numpy_hidden.py, if python3 has numpy), one JSON line per size
# and implementation: bench/pipeline/README.md says how to read them.
bin=$1
shift
[ $# -eq 0 ] && set -- 1e7 1e8
here=$(dirname "$0")
for n in "$@"; do
    "$bin" "$n" || exit 1
    # one thread, its CPU time: readable on a loaded machine
    UFN_NUM_THREADS=1 BENCH_CLOCK=cpu "$bin" "$n" || exit 1
    if python3 -c 'import numpy' 2>/dev/null; then
        python3 "$here/numpy_hidden.py" "$n" || exit 1
    else
        echo "{\"n\": $n, \"numpy\": null, \"why\": \"no numpy for python3\"}"
    fi
done
