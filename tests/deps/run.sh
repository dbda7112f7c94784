#!/bin/sh
# tests/deps/run.sh - tools/deps.sh on pretend machines: an empty one, a
# complete one, one without nvcc, as a user and as root with a fake apt-get
# that records what it was asked.  Nothing is installed for real.
#
# Usage: tests/deps/run.sh WORKDIR
set -u
deps=$(cd "$(dirname "$0")/../.." && pwd)/tools/deps.sh
work=$1
rm -rf "$work" && mkdir -p "$work" || exit 1
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok    $1"; }
bad() { fail=$((fail + 1)); echo "FAIL  $1"; sed 's/^/      /' "$work/out"; }

# A bin directory with only what deps.sh itself runs, plus the named fakes.
# fakebin DIR [NAME=SCRIPT-BODY]...
fakebin() {
    dir=$1; shift
    mkdir -p "$dir"
    for c in sh cat; do ln -sf "$(command -v $c)" "$dir/$c"; done
    for f in "$@"; do
        printf '#!%s\n%s\n' "$(command -v sh)" "${f#*=}" > "$dir/${f%%=*}"
        chmod +x "$dir/${f%%=*}"
    done
}

# run EXPECTED-STATUS PATH DEPS_ROOT ARGS...: run deps.sh, check its status
run() {
    want=$1 path=$2 root=$3; shift 3
    env -i PATH="$path" DEPS_ROOT="$root" "$(command -v sh)" "$deps" "$@" > "$work/out" 2>&1
    got=$?
    [ "$got" = "$want" ] || { echo "exit status $got, expected $want" >> "$work/out"; return 1; }
}
has() { grep -q -- "$1" "$work/out" || { echo "expected: $1" >> "$work/out"; return 1; }; }
hasnt() { ! grep -q -- "$1" "$work/out" || { echo "unexpected: $1" >> "$work/out"; return 1; }; }

# Every tool a complete machine has, as do-nothing commands.
tools="cc make flex bison pkg-config cmake mandoc groff c++ clang mpicc mpirun"
full_root=$work/fullroot
for f in /usr/include/stdio.h /usr/include/cmocka.h /usr/include/mpfr.h /usr/include/dlpack/dlpack.h \
         /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a; do
    mkdir -p "$full_root${f%/*}" && : > "$full_root$f"
done
fakes=""; noflex=""
for t in $tools; do
    fakes="$fakes $t=true"
    [ "$t" = flex ] || noflex="$noflex $t=true"
done

# 1. An empty machine: everything is missing, -n names each package and the command.
fakebin "$work/empty"
if run 1 "$work/empty" "$work/nothing" -n &&
   has "would run: apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev make flex bison libcmocka-dev libmpfr-dev libdlpack-dev pkgconf cmake mandoc groff-base g++ clang libclang-rt-dev libopenmpi-dev openmpi-bin$" &&
   has "flex: the scanner generator"; then ok "empty machine: -n lists every package"
else bad "empty machine: -n lists every package"; fi

# 2. A complete machine with nvcc: nothing to do, and says where nvcc is.
# shellcheck disable=SC2086
fakebin "$work/full" $fakes nvcc=true
if run 0 "$work/full" "$full_root" &&
   has "everything found (nvcc: $work/full/nvcc)" && hasnt missing; then ok "complete machine: nothing to install"
else bad "complete machine: nothing to install"; fi

# 3. No nvcc anywhere: not an error, but said clearly.
# shellcheck disable=SC2086
fakebin "$work/nonvcc" $fakes
if run 0 "$work/nonvcc" "$full_root" && has "no nvcc: building for the host"; then
    ok "no nvcc: a host-only build, said"
else bad "no nvcc: a host-only build, said"; fi

# 4. As a user, with flex and cmocka missing: the exact sudo command, failure.
# shellcheck disable=SC2086
fakebin "$work/user" $noflex nvcc=true id='echo 1000'
rm -f "$full_root/usr/include/cmocka.h"
if run 1 "$work/user" "$full_root" &&
   has "sudo sh -c 'apt-get update && apt-get install -y --no-install-recommends flex libcmocka-dev'"; then
    ok "as a user: prints the exact command and fails"
else bad "as a user: prints the exact command and fails"; fi

# 5. As root: apt-get update once, then one apt-get install of what is missing.
log=$work/apt.log
# shellcheck disable=SC2086
fakebin "$work/root" $noflex nvcc=true id='echo 0' \
    apt-get="echo \"\$*\" >> $log"
if run 0 "$work/root" "$full_root" && cp "$log" "$work/out" &&
   [ "$(grep -c ' update ' "$log")" = 1 ] && [ "$(grep -c ' install ' "$log")" = 1 ] &&
   [ "$(head -1 "$log")" = "-o DPkg::Lock::Timeout=600 update -qq" ] &&
   has "^-o DPkg::Lock::Timeout=600 install -y --no-install-recommends flex libcmocka-dev -qq$"; then
    ok "as root: apt-get update once, then install"
else bad "as root: apt-get update once, then install"; fi

# 6. As root, when apt-get fails: deps fails and says which command.
# shellcheck disable=SC2086
fakebin "$work/rootfail" $noflex nvcc=true id='echo 0' apt-get='exit 100'
if run 1 "$work/rootfail" "$full_root" && has "deps: failed: apt-get update"; then
    ok "as root: a failing apt-get fails deps"
else bad "as root: a failing apt-get fails deps"; fi

echo "deps: $pass passed, $fail failed"
[ "$fail" = 0 ]
