#!/bin/sh
# prefix.sh - an installed ufnc for the documents' examples, in PREFIX.
#
#   prefix.sh TOP BUILD PREFIX
#
# Runs `make install PREFIX=PREFIX` in TOP.  If that installs ufnc and
# ufn.pc, the examples use the real install (exit 0).  If the Makefile does
# not install anything yet, the build tree is laid out as an install would
# be - symbolic links and an ufn.pc written here - so that the examples run
# against the in-tree build (exit 10; the examples marked needs=install are
# then skipped).  Its ufn.pc links -lm even for the shared library: the
# host loops in a module's object call libm (and libmvec) themselves.  A failing `make install`, or one that leaves out ufnc or
# ufn.pc, is an error (exit 1).
top=$1 build=$2 prefix=$3
log=$prefix.install.log
mkdir -p "$(dirname "$prefix")"

if ! (cd "$top" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS \
        make --no-print-directory install BUILD="$build" PREFIX="$prefix") >"$log" 2>&1; then
    echo "prefix: make install PREFIX=$prefix failed:"
    sed 's/^/    /' "$log"
    exit 1
fi
if [ -x "$prefix/bin/ufnc" ] && [ -f "$prefix/lib/pkgconfig/ufn.pc" ]; then
    exit 0
fi
if [ -e "$prefix" ]; then
    echo "prefix: make install PREFIX=$prefix installed no bin/ufnc or lib/pkgconfig/ufn.pc"
    exit 1
fi

# No install target yet: the in-tree build, laid out as an install.
b=$top/$build
mkdir -p "$prefix/bin" "$prefix/lib/pkgconfig" "$prefix/include" "$prefix/share/ufnc" || exit 1
ln -s "$b/bin/ufnc" "$prefix/bin/ufnc"
ln -s "$b/lib/libufnrt.a" "$prefix/lib/libufnrt.a"
ln -s "$b/lib/libufnrt.so" "$prefix/lib/libufnrt.so"
ln -s "$b/lib/libufnrt.so" "$prefix/lib/libufnrt.so.0"      # its soname
ln -s "$top/include/ufn.h" "$prefix/include/ufn.h"
ln -s "$top/include/ufn_dlpack.h" "$prefix/include/ufn_dlpack.h"
ln -s "$top/tools/ufn.mk" "$prefix/share/ufnc/ufn.mk"
cat >"$prefix/lib/pkgconfig/ufn.pc" <<EOF
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include
ufnc=\${prefix}/bin/ufnc
ufnmk=\${prefix}/share/ufnc/ufn.mk

Name: ufn
Description: ufnc's runtime (emulated install of the build tree, for tests)
Version: 0.1.0
Cflags: -I\${includedir}
Libs: -L\${libdir} -lufnrt -ldl -lpthread -lm
EOF
exit 10
