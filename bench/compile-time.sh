#!/bin/sh
# bench/compile-time.sh UFNC [MODULE...] - how long `ufnc m.ufn -o m.o` takes
# (issue 19): one architecture, the default list (every sm_75+ nvcc
# builds), all-major, and a rebuild from the device-code cache.  Cold
# builds use --no-cache; the cache is a private directory.  Writes a
# markdown table to stdout (bench/compile-time.md; RESULTS.md includes it).
#
# Also times nvcc alone on the same .cu the way ufnc built the default list
# before (its own PTX for every architecture: cicc once per architecture)
# and the way it does now (one PTX per front end), for comparison.
set -u
ufnc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 0 ] && set -- polar hidden_layer gaussian
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ufn-ctime.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
export UFN_CACHE_DIR="$tmp/cache"

secs() {   # COMMAND...: wall seconds, 2 decimals; "fail" if it fails
    s=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || { echo fail; return; }
    e=$(date +%s.%N)
    echo "$s $e" | awk '{ printf "%.2f", $2 - $1 }'
}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
list=$("$nvcc" --list-gpu-code | grep -x 'sm_[0-9]*' | sed 's/sm_//' | awk '$1 >= 75' | sort -n | tr '\n' ' ')
newest=$(echo $list | awk '{ print $NF }')
codes=$(echo $list | sed 's/\([0-9]*\)/sm_\1/g; s/ /,/g')

echo "| module | sm_90 alone | default ($(echo $list | wc -w) architectures) | ratio | all-major | default, from the cache | nvcc alone: one PTX per front end (now) | nvcc alone: one PTX per architecture (before) |"
echo "|---|---|---|---|---|---|---|---|"
for m in "$@"; do
    cp "$top/samples/$m.ufn" "$tmp/"
    cd "$tmp" || exit 2
    one=$(secs "$ufnc" -w --no-cache --arch=sm_90 "$m.ufn" -o "$m.o")
    all=$(secs "$ufnc" -w --no-cache "$m.ufn" -o "$m.o")
    major=$(secs "$ufnc" -w --no-cache --arch=all-major "$m.ufn" -o "$m.o")
    "$ufnc" -w "$m.ufn" -o "$m.o" >/dev/null 2>&1        # fills the cache
    cached=$(secs "$ufnc" -w "$m.ufn" -o "$m.o")
    rm -rf keep && mkdir keep
    TMPDIR="$tmp/keep" "$ufnc" -w --no-cache --keep --target=cuda,host "$m.ufn" -o k.o >/dev/null 2>&1
    kept=$(echo "$tmp"/keep/ufnc-*)
    nvvm7=$(for a in $list; do [ "$a" -lt 100 ] && [ "$a" != "$newest" ] && printf 'sm_%s,' "$a"; done)
    nvvm20=$(for a in $list; do [ "$a" -ge 100 ] && [ "$a" != "$newest" ] && printf 'sm_%s,' "$a"; done)
    now=$(cd "$kept" && secs "$nvcc" -Iinclude -O3 -Xptxas=-O3 --fmad=false --fatbin --threads 0 \
        -gencode "arch=compute_75,code=[${nvvm7%,}]" -gencode "arch=compute_100,code=[${nvvm20%,}]" \
        -gencode "arch=compute_$newest,code=[sm_$newest,compute_$newest]" -o now.fatbin "$m.cu")
    gen=""
    for a in $list; do
        if [ "$a" = "$newest" ]; then gen="$gen -gencode arch=compute_$a,code=[sm_$a,compute_$a]"
        else gen="$gen -gencode arch=compute_$a,code=sm_$a"; fi
    done
    before=$(cd "$kept" && secs "$nvcc" -Iinclude -O3 -Xptxas=-O3 --fmad=false --fatbin --threads 0 $gen \
        -o before.fatbin "$m.cu")
    ratio=$(echo "$all $one" | awk '{ printf "%.1f×", $1 / $2 }')
    echo "| $m | $one s | $all s | $ratio | $major s | $cached s | $now s | $before s |"
done
