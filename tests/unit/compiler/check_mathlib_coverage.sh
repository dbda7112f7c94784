#!/bin/sh
# Every UFN_FN helper of include/ufn_math.h and ufn_complex.h, and every
# public function of ufn_libm*.h (ufn_NAME_f32/f64: their internal ufn_libm_*
# and ufn_dd_* pieces are reached through them), must be called in
# tests/unit/compiler/ufn_math_device.cu (the math.def rows through
# ufn_math_calls.h), so that nvcc compiles each one for the device.  Prints
# the missing names and fails if there are any.
# Usage: check_mathlib_coverage.sh [SRCDIR]
src=${1:-.}
missing=$( (grep -ho 'UFN_FN [a-z0-9_ ]*[ *]ufn_[a-z0-9_]*(' "$src"/include/ufn_math.h "$src"/include/ufn_complex.h;
            grep -ho 'UFN_FN [a-z0-9_ ]*[ *]ufn_[a-z0-9]*_f[36][24](' "$src"/include/ufn_libm*.h) |
    sed 's/.*[ *]\(ufn_[a-z0-9_]*\)(/\1/' | sort -u |
    while read -r fn; do
        grep -q "\\b$fn(" "$src"/tests/unit/compiler/ufn_math_device.cu ||
            grep -q "\\b$fn\\b" "$src"/compiler/math.def || echo "$fn"
    done)
if [ -n "$missing" ]; then
    echo "ufn_math_device.cu does not call:" $missing
    exit 1
fi
