#!/bin/sh
# ufnmk_goal.sh - a makefile that includes tools/ufn.mk before its own
# targets (as ufn.mk's header and README.md show) keeps its first target as
# the default goal, also once ufnc has written dependency files: their rules
# (polar.o polar.h: polar.ufn) must not take over.
# Usage: ufnmk_goal.sh [TOP]
top=$(cd "${1:-.}" && pwd)
dir=${TMPDIR:-/tmp}/ufnmk_goal.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
printf 'include %s/tools/ufn.mk\n\napp:\n\t@echo app\n' "$top" >"$dir/Makefile"
printf 'polar.o polar.h: \\\n polar.ufn\n' >"$dir/polar.d"
touch "$dir/polar.ufn" "$dir/polar.o" "$dir/polar.h"
out=$(cd "$dir" && env -u MAKEFLAGS -u MAKELEVEL make -s PKG_CONFIG=true 2>&1)
if [ "$out" = app ]; then
    echo "ok    ufn.mk keeps the makefile's default goal"
else
    echo "FAIL  ufn.mk: with a dependency file, make ran: $out"
    exit 1
fi
