#!/bin/sh
# rules-cuda.sh - the numeric rules on the GPU, without a GPU: the CUDA
# kernels of rules.ufn must be built from the very scalar bodies the host
# loops run (rules.c checks those on host and sim), and those bodies must
# call the ufn_math.h helper of each rule, never C's own / % << >> or casts.
# With nvcc, the module is also compiled for sm_80, so the helpers are known
# to build as device code.
#
# Usage: rules-cuda.sh UFNC RULES.ufn WORKDIR
set -u
ufnc=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work" || exit 1
fail=0
bad() { echo "FAIL  rules-cuda: $*"; fail=1; }

"$ufnc" "$src" --no-line -o "$work/rules.cu" || exit 1
"$ufnc" "$src" --no-line -o "$work/rules.c" || exit 1

# The section of scalar bodies, from its heading to the next heading.
bodies() { sed -n '/^\/\* ---- scalar bodies/,/^\/\* ---- [a-z]/p' "$1" | sed '$d'; }
bodies "$work/rules.cu" > "$work/cu.bodies"
bodies "$work/rules.c" > "$work/c.bodies"
[ -s "$work/cu.bodies" ] || bad "no scalar bodies found in the .cu"
cmp -s "$work/cu.bodies" "$work/c.bodies" || bad "the .cu and the host stub have different scalar bodies"
grep -q '#include "ufn_kernel.h"' "$work/rules.cu" || bad "the .cu does not include ufn_kernel.h (and with it ufn_math.h)"
grep -q '#include "ufn_math.h"' "$work/rules.c" || bad "the host stub does not include ufn_math.h"

# The body of each kernel calls the helper of its rule.
needs() { # KERNEL-PREFIX HELPER
    sed -n "/^UFN_BODY [^;]*rules__$1[^;]*\$/,/^}/p" "$work/cu.bodies" | grep -q "$2(" ||
        bad "$1 does not call $2"
}
needs floordiv__i64 ufn_floordiv_i64
needs floordiv__i32 ufn_floordiv_i64
needs floordiv__u64 ufn_floordiv_u64
needs mod__i64 ufn_mod_i64
needs mod__u64 ufn_mod_u64
needs ffloordiv__f64 ufn_floordiv_f64
needs fmodulo__f32 ufn_mod_f32
needs shl__i64 ufn_shl_i64
needs shr__i64 ufn_shr_i64
needs shl__u64 ufn_shl_u64
needs shr__u64 ufn_shr_u64
needs to_int64__f64 ufn_f64_to_i64
needs to_int32__f64 ufn_f64_to_i32
needs to_int16__f32 ufn_f32_to_i16
needs to_int8__f32 ufn_f32_to_i8
needs to_uint64__f64 ufn_f64_to_u64
needs to_uint32__f32 ufn_f32_to_u32
needs to_uint8__f64 ufn_f64_to_u8
needs int_of__f32 ufn_f32_to_i64
needs int32_of__f64 ufn_f64_to_i32
needs ipow__i64 ufn_pow_i64
# and no raw C operator on integers where a rule applies
if grep -E 'return \(?[a-z_]+ (/|%|<<|>>) [a-z_]+\)?;' "$work/cu.bodies"; then
    bad "a body uses C's own operator"
fi

if [ -z "${NVCC:-}" ] && ! command -v nvcc >/dev/null 2>&1; then
    echo "rules-cuda: device build skipped: no nvcc"
elif ! "$ufnc" "$src" --arch=sm_80 -o "$work/rules_cuda.o" 2> "$work/nvcc.log"; then
    bad "the module does not build for sm_80"; sed 's/^/      /' "$work/nvcc.log" | head -20
else
    echo "rules-cuda: built for sm_80 with nvcc"
fi
[ $fail -eq 0 ] && echo "ok    rules-cuda: the GPU runs the same bodies and helpers as host and sim"
exit $fail
