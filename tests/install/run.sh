#!/bin/sh
# tests/install/run.sh - `make install` into a staging directory, then a user's
# program (samples/polar.ufn, and a module importing another) compiled,
# linked and run using ONLY the staged tree, three ways: ufnc + pkg-config,
# the staged ufn.mk, the staged CMake package.  Then `make uninstall`.
#
# Usage: tests/install/run.sh WORKDIR     (from the top of the source tree)
#
# The staged tree is used through PATH, PKG_CONFIG_LIBDIR (so no other .pc
# file is seen) with `pkg-config --define-prefix` or PKG_CONFIG_SYSROOT_DIR,
# and CMAKE_PREFIX_PATH; the build tree is never on any of them.  With nvcc
# the first build's modules carry sm_80 GPU code as well, to show the staged
# ufnc drives nvcc (the arch list does not matter here); the other builds,
# and all without nvcc, use --target=host,sim, which is quicker.
# Word splitting of $(pkg-config ...) and $gpuflags is meant.
# shellcheck disable=SC2046,SC2086
set -u
src=$(pwd)
work=$1
prefix=/usr/local
stage=$work/stage
root=$stage$prefix
proj=$work/project
log=$work/log
rm -rf "$work" && mkdir -p "$work" || exit 1
pass=0 fail=0 skip=0

ok() { pass=$((pass + 1)); echo "ok    $1"; }
bad() { fail=$((fail + 1)); echo "FAIL  $1"; sed 's/^/      /' "$log" | tail -40; }
skipped() { skip=$((skip + 1)); echo "skip  $1: $2"; }
# step NAME COMMAND...: run COMMAND with its output in $log, report NAME
step() { name=$1; shift; if "$@" > "$log" 2>&1; then ok "$name"; else bad "$name"; fi; }
# keep FILE COMMAND...: run COMMAND, its output both shown and kept in FILE
keep() { f=$1; shift; "$@" > "$f" 2>&1; st=$?; cat "$f"; return $st; }

if [ -n "${NVCC:-}" ] || command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    gpuflags=--arch=sm_80
else
    gpuflags=--target=host,sim
    echo "check-install: no nvcc: modules built with --target=host,sim"
fi
ufnflags=--target=host,sim

# Only the staged tree, and the system's own tools.
PATH=$root/bin:/usr/local/cuda/bin:/usr/bin:/bin
PKG_CONFIG_LIBDIR=$root/lib/pkgconfig
export PATH PKG_CONFIG_LIBDIR
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR CMAKE_PREFIX_PATH LD_LIBRARY_PATH UFNC \
      UFN_CFLAGS UFN_LIBS UFN_BACKEND CPATH LIBRARY_PATH MAKEFLAGS MFLAGS MAKELEVEL
pc() { pkg-config --define-prefix "$@"; }
version=$(sed -n 's/^.define UFN_VERSION_STRING "\(.*\)"/\1/p' include/ufn.h)
major=${version%%.*}

# run COMMAND...: the program must say ok on the host backend and on the simulator
run() {
    for b in host sim; do
        env UFN_BACKEND=$b "$@" || return 1
    done
}

# --- install ------------------------------------------------------------------------

step "make install DESTDIR=... PREFIX=$prefix" \
    make --no-print-directory -C "$src" install DESTDIR="$stage" PREFIX="$prefix"

layout() {
    for f in bin/ufnc lib/libufnrt.a "lib/libufnrt.so.$version" lib/libufnrt.so.$major \
             lib/libufnrt.so include/ufn.h include/ufn_dlpack.h include/ufn/dlpack/dlpack.h \
             lib/pkgconfig/ufn.pc share/ufnc/ufn.mk lib/cmake/ufn/ufnConfig.cmake \
             lib/cmake/ufn/ufnConfigVersion.cmake; do
        [ -e "$root/$f" ] || { echo "missing: $f"; return 1; }
    done
    for m in "$src"/man/*.[1-8]; do
        [ -e "$m" ] || continue
        s=${m##*.}
        [ -e "$root/share/man/man$s/${m##*/}" ] || { echo "missing man page: ${m##*/}"; return 1; }
    done
    [ "$(readlink "$root/lib/libufnrt.so")" = "libufnrt.so.$major" ] &&
    [ "$(readlink "$root/lib/libufnrt.so.$major")" = "libufnrt.so.$version" ] &&
    readelf -d "$root/lib/libufnrt.so.$version" | grep "SONAME.*\[libufnrt.so.$major\]" &&
    ! readelf -d "$root/lib/libufnrt.so.$version" | grep 'NEEDED.*libcuda'
}
step "layout, soname libufnrt.so.$major, no libcuda needed" layout

# DESTDIR and the source tree must not leak into any installed text file.
no_leak() { ! grep -rlI -e "$stage" -e "$src" "$stage"; }
step "no DESTDIR or source-tree path in an installed text file" no_leak

# --- ufnc + pkg-config ------------------------------------------------------------------

mkdir -p "$proj" && cp tests/install/project/* samples/polar.ufn "$proj/" || exit 1
cd "$proj" || exit 1

direct() {
    [ "$(command -v ufnc)" = "$root/bin/ufnc" ] &&
    [ "$(pc --variable=ufnc ufn)" = "$root/bin/ufnc" ] &&
    ufnc $gpuflags polar.ufn -o polar.o &&
    ufnc $gpuflags scale.ufn -o scale.o &&
    { [ "$gpuflags" != --arch=sm_80 ] || nm polar.o | grep -q ' polar__fatbin$' ||
      { echo "no GPU code in polar.o"; return 1; }; } &&
    cc -std=c11 -Wall -Wextra -Werror -o prog main.c polar.o scale.o $(pc --cflags --libs ufn) &&
    LD_LIBRARY_PATH=$root/lib ldd ./prog | grep "libufnrt.so.$major => $root/lib/" &&
    run env LD_LIBRARY_PATH="$root/lib" ./prog
}
step "ufnc, then cc main.c ... \$(pkg-config --cflags --libs ufn), run (shared)" direct

dlpack() {
    # ufn_from_dlpack refuses a NULL tensor: exit 0
    printf '#include <ufn_dlpack.h>\nint main(void) { ufn_array a;\n%s\n' \
        'return ufn_from_dlpack(NULL, &a) < 0 ? 0 : 1; }' > dl.c &&
    cc -std=c11 -Wall -Wextra -o dl dl.c $(pc --cflags --libs ufn) &&
    env LD_LIBRARY_PATH="$root/lib" ./dl
}
step "ufn_dlpack.h with the system's dlpack.h, linked" dlpack

# The installed copy of dlpack.h, where the system has none: hide it in a
# private mount namespace (root only).
dlpack_copy() {
    unshare -m sh -c 'mount -t tmpfs none /usr/include/dlpack &&
        [ ! -e /usr/include/dlpack/dlpack.h ] &&
        cc -std=c11 -Wall -Wextra -H -c -o dl2.o dl.c '"$(pc --cflags ufn)"' 2>&1 |
        grep "ufn/dlpack/dlpack.h"'
}
if [ "$(id -u)" = 0 ] && [ -d /usr/include/dlpack ] && unshare -m true 2>/dev/null; then
    step "ufn_dlpack.h falls back on the installed dlpack.h" dlpack_copy
else
    skipped "ufn_dlpack.h falls back on the installed dlpack.h" "needs root and unshare"
fi
rm -f ./*.o ./*.h prog dl dl.c

# --- ufn.mk -------------------------------------------------------------------------------

# edit FILE: make FILE newer than every output, even where file times count
# whole seconds (a time in the future would make make warn of clock skew)
edit() { sleep 1 && touch "$1"; }
with_mk() { PKG_CONFIG_SYSROOT_DIR=$stage make --no-print-directory UFNFLAGS="$ufnflags" "$@"; }
ufnmk() {
    keep "$log.make" with_mk && grep "^$root/bin/ufnc .*polar.ufn" "$log.make" &&
    run env LD_LIBRARY_PATH="$root/lib" ./prog &&
    { with_mk -q || { echo "a second make would rebuild"; return 1; }; } &&
    edit scale_helpers.ufn &&
    { ! with_mk -q || { echo "make missed the edited import"; return 1; }; } &&
    keep "$log.make" with_mk && grep "ufnc.*scale.ufn" "$log.make" &&
    ! grep "polar.ufn" "$log.make" && with_mk -q
}
step "the staged ufn.mk: make (default goal), run, up to date, an edited import rebuilds" ufnmk
rm -f ./*.o ./*.h ./*.d prog

# --- CMake ----------------------------------------------------------------------------------

cm() {
    keep "$log.cmake" cmake -S . -B cbuild -DCMAKE_PREFIX_PATH="$root" -DUFNFLAGS="$ufnflags" \
        -DUFN_ARCHITECTURES="80;90" &&
    grep "ufn $version, ufnc: $root/bin/ufnc" "$log.cmake" &&
    cmake --build cbuild &&
    run ./cbuild/prog && run ./cbuild/prog_static &&
    ldd ./cbuild/prog | grep "libufnrt.so.$major => $root/lib/" &&
    ! ldd ./cbuild/prog_static | grep libufnrt
}
step "the staged CMake package: ufn::ufnrt (shared, RPATH) and ufn::ufnrt_static, run" cm

cm_archs() {
    grep -q -- "ufnc --arch=80,90 .*polar.ufn" cbuild/CMakeFiles/prog.dir/build.make &&
    grep -q -- "ufnc --arch=86 .*polar.ufn" cbuild/CMakeFiles/prog_arch.dir/build.make &&
    run ./cbuild/prog_arch &&
    cmake -S . -B coff -DCMAKE_PREFIX_PATH="$root" -DUFNFLAGS="$ufnflags" -DUFN_ARCHITECTURES=OFF >/dev/null &&
    ! grep -q -- "--arch=" coff/CMakeFiles/prog.dir/build.make &&
    grep -q -- "ufnc --arch=86 " coff/CMakeFiles/prog_arch.dir/build.make
}
step "CMake: UFN_ARCHITECTURES (80;90) for every target, a target's property (86) wins, OFF: ufnc's default" cm_archs

cm_depfile() {
    cmake --build cbuild > "$log.1" && ! grep "Compiling" "$log.1" &&
    edit scale_helpers.ufn && cmake --build cbuild > "$log.2" &&
    grep "Compiling scale.ufn" "$log.2" && ! grep "Compiling polar.ufn" "$log.2"
}
step "CMake: up to date, then DEPFILE rebuilds scale.ufn after its import changed" cm_depfile

versions() {
    for want in "$version:yes" "$major:yes" "$((major + 1)).0:no" "$major.99:no"; do
        rm -rf vbuild
        cmake -S "$src/tests/install/version" -B vbuild -DCMAKE_PREFIX_PATH="$root" \
              -DWANT="${want%:*}" | grep "found: ${want#*:}" || { echo "find_package(ufn ${want%:*})"; return 1; }
    done
}
step "find_package(ufn VERSION): $version, $major yes; $((major + 1)).0, $major.99 no" versions
cd "$src" || exit 1

# --- another layout --------------------------------------------------------------------------

# Directories outside the prefix's usual places: ufn.pc and the CMake
# package must still find everything.
stage2=$work/stage2
other() {
    make --no-print-directory -C "$src" install DESTDIR="$stage2" PREFIX=/opt/ufn \
        LIBDIR=/opt/ufn/lib64 INCLUDEDIR=/opt/ufn/include/ufn-0 DATADIR=/opt/share &&
    # DATADIR lies outside PREFIX, so --define-prefix cannot move it: the sysroot does
    export PKG_CONFIG_LIBDIR="$stage2/opt/ufn/lib64/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage2" &&
    [ "$(pkg-config --variable=ufnmk ufn)" = "$stage2/opt/share/ufnc/ufn.mk" ] &&
    [ "$(pkg-config --variable=ufnc ufn)" = "$stage2/opt/ufn/bin/ufnc" ] &&
    [ "$(pkg-config --cflags --libs ufn)" = "-I$stage2/opt/ufn/include/ufn-0 -L$stage2/opt/ufn/lib64 -lufnrt -lm " ] &&
    mkdir -p "$work/p2" && cp "$proj"/main.c "$proj"/*.ufn "$proj"/CMakeLists.txt "$work/p2" &&
    cmake -S "$work/p2" -B "$work/p2/b" -DCMAKE_PREFIX_PATH="$stage2/opt/ufn" \
          -DUFNFLAGS=--target=host,sim && cmake --build "$work/p2/b" --target prog &&
    run "$work/p2/b/prog"
}
step "PREFIX=/opt/ufn LIBDIR=.../lib64 INCLUDEDIR=... DATADIR=...: pkg-config and CMake" other
export PKG_CONFIG_LIBDIR="$root/lib/pkgconfig"; unset PKG_CONFIG_SYSROOT_DIR

# --- uninstall -------------------------------------------------------------------------------

uninstall() {
    make --no-print-directory -C "$src" uninstall DESTDIR="$stage" PREFIX="$prefix" &&
    left=$(find "$stage" ! -type d) || return 1
    [ -z "$left" ] || { echo "left behind: $left"; return 1; }
}
step "make uninstall leaves no file behind" uninstall

echo "install: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
