#!/bin/sh
# tests/seeds/run.sh UFNC - every @vectorize, @guvectorize, @cuda.jit and
# device or @jit function of the seed documents compiles: samples/*.ufn and the seed
# modules of tests/golden/ast/ whose kernels are all in the subset, for the
# host and the simulator.  (make check builds their GPU code once, for one
# architecture of each GPU family, in check-e2e-nvcc.)  With nvcc and
# SEEDS_ARCH set (an --arch list, or "default": ufnc's whole default list,
# as make check-gpu does), their GPU code is built here too.  The seeds'
# constructs outside the subset are cases of tests/errors/.  One line per
# module, a summary.
set -u
ufnc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ufn-seeds.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
export NO_COLOR=1
nvcc_arch=
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then nvcc_arch=${SEEDS_ARCH:-}; fi

pass=0 fail=0 failed=
for f in "$top"/samples/*.ufn "$top"/tests/golden/ast/seed_000_intro.ufn \
         "$top"/tests/golden/ast/seed_001_nvidia.ufn "$top"/tests/golden/ast/seed_002_course.ufn \
         "$top"/tests/golden/ast/seed_003_kernels.ufn "$top"/tests/golden/ast/seed_004_seven.ufn; do
    name=$(basename "$f" .ufn)
    why=
    "$ufnc" "$f" --target=host,sim -o "$tmp/$name.o" 2>"$tmp/err" || why="host,sim"
    if [ -z "$why" ] && [ -n "$nvcc_arch" ]; then
        arch="--arch=$nvcc_arch"
        [ "$nvcc_arch" = default ] && arch=
        "$ufnc" "$f" $arch -o "$tmp/$name.gpu.o" 2>"$tmp/err" || why="cuda ($nvcc_arch)"
    fi
    # the kernels are in the object, by their typed entry points (a ufunc's)
    # or their launch entries (a @cuda.jit kernel's, declared in the header)
    if [ -z "$why" ] && ! nm "$tmp/$name.o" | grep -q ' T .*_float\| T .*_int' \
        && ! grep -q '(ufn_launch launch' "$tmp/$name.h"; then why="no entry point in the object"; fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
        printf 'ok    %s (host, sim%s)\n' "$name" "${nvcc_arch:+, $nvcc_arch}"
    else
        fail=$((fail + 1)); failed="$failed $name"
        printf 'FAIL  %s: %s\n' "$name" "$why"
        sed 's/^/      | /' "$tmp/err" | head -20
    fi
done
echo "seeds: $pass passed, $fail failed${failed:+ ($failed )}"
[ "$fail" -eq 0 ]
