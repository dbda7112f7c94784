#!/bin/sh
# bench/methods/report.sh BENCH_METHODS_BINARY N: time add.reduce (ufnc, the
# floor, NumPy) and write bench/methods.md, which bench/python/report.py puts
# into bench/RESULTS.md.
bin=$1 n=${2:-100000000}
c=$("$bin" "$n") || exit 1
# BENCH_PYTHON: a python3 with NumPy (default Debian's, as the rest of make bench)
py=$(${BENCH_PYTHON:-/usr/bin/python3} bench/methods/numpy_reduce.py "$n" 2>/dev/null) || py="numpy $n 0 0 - -"
printf '%s\n%s\n' "$c" "$py" | awk -v n="$n" '
{ med[$1] = $3 * 1000; hex[$1] = "" $5; rows[$1] = $2; if ($1 == "numpy") version = $6 }
END {
    printf "## ufunc methods: add.reduce (issue 17)\n\n"
    printf "`make bench-methods`: `add_ufunc_reduce` (samples/pulses.ufn, NumPy'\''s pairwise order) over %g float32 on the host backend, interleaved with the floor that reads the same bytes (threaded read-only sum); NumPy'\''s `np.add.reduce` on the same values in its own process. Medians in ms.\n\n", n
    printf "ufnc reproduces NumPy 2.4'\''s order (ufn(3), METHODS); NumPy 1.x sums a contiguous axis in chunks of its 8192-element buffer, so its bits differ beyond 8192 elements.\n\n"
    printf "| n | ufnc | floor | ufnc / floor | NumPy | NumPy / ufnc | same bits as NumPy %s |\n|---|---|---|---|---|---|---|\n", version
    same = (hex["numpy"] == "-") ? "not run" : (hex["ufnc"] == hex["numpy"]) ? "yes" : "no"
    printf "| %g | %.1f | %.1f | %.2fx | %s | %s | %s (%s) |\n", n, med["ufnc"], med["floor"], med["ufnc"] / med["floor"],
        (med["numpy"] > 0 ? sprintf("%.1f", med["numpy"]) : "not run"),
        (med["numpy"] > 0 ? sprintf("%.2fx", med["numpy"] / med["ufnc"]) : "-"), same, hex["ufnc"]
    printf "\nThe gufunc `l2_norm` (samples/l2_norm.ufn, `(i)->()`, a loop over each row) on %g rows of 16 float32 of the same values, 16 rows at a time (emit_lanes.c, each row in the body'\''s order), against the floor that reads its input:\n\n", rows["l2_norm"]
    printf "| rows | ufnc | floor | ufnc / floor |\n|---|---|---|---|\n"
    printf "| %g | %.1f | %.1f | %.2fx |\n", rows["l2_norm"], med["l2_norm"], med["l2_floor"], med["l2_norm"] / med["l2_floor"]
}' > bench/methods.md
cat bench/methods.md
