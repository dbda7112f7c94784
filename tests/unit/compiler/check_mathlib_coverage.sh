#!/bin/sh
# Every UFN_FN helper of include/ufn_math.h and ufn_complex.h must be called in
# tests/unit/compiler/ufn_math_device.cu, so that nvcc compiles each one for
# the device.  Prints the missing names and fails if there are any.
# Usage: check_mathlib_coverage.sh [SRCDIR]
src=${1:-.}
missing=$(grep -ho 'UFN_FN [a-z0-9_ ]*[ *]ufn_[a-z0-9_]*(' "$src"/include/ufn_math.h "$src"/include/ufn_complex.h |
    sed 's/.*[ *]\(ufn_[a-z0-9_]*\)(/\1/' | sort -u |
    while read -r fn; do
        grep -q "\\b$fn(" "$src"/tests/unit/compiler/ufn_math_device.cu || echo "$fn"
    done)
if [ -n "$missing" ]; then
    echo "ufn_math_device.cu does not call:" $missing
    exit 1
fi
