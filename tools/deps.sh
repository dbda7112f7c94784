#!/bin/sh
# deps.sh - find what building and testing ufnc needs; install the missing
# Debian packages when run as root (apt-get update once, then apt-get install),
# otherwise print the exact command and fail.  Asks nothing.
#
#   tools/deps.sh        check, and install as root
#   tools/deps.sh -n     only say what is missing and the command that would install it
#
# The CUDA toolkit is optional: without nvcc ufnc and the tests build for the
# host (and the simulator) only, and this says so.  It is not a Debian package
# here (NVIDIA's installer or repository provides it), so it is never installed.
#
# DEPS_ROOT (for the tests of this script, tests/deps/run.sh) is put in front of
# every file looked for.
set -u

dry=0
[ "${1:-}" = "-n" ] && dry=1

# What is needed, one line each: a command on PATH or an absolute file path
# (a shell pattern is allowed), the Debian package that provides it, and why.
needs() {
    cat <<'EOF'
cc                      gcc             the C compiler
/usr/include/stdio.h    libc6-dev       the C library's headers
make                    make            the build
flex                    flex            the scanner generator (grammar/ufn.l)
bison                   bison           the parser generator (grammar/ufn.y)
/usr/include/cmocka.h   libcmocka-dev   the unit tests
/usr/include/mpfr.h     libmpfr-dev     the accuracy tests of the math functions (tests/math)
/usr/include/dlpack/dlpack.h libdlpack-dev DLPack import/export in libufnrt
pkg-config              pkgconf         ufn.pc, tested by check-install
cmake                   cmake           the CMake package, tested by check-install
mandoc                  mandoc          man pages: mandoc -Tlint in make check
groff                   groff-base      man pages: groff -ww in make check, and man -l
c++                     g++             the C++ compile of the math header
clang                   clang           the fuzz harness (libFuzzer)
/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a libclang-rt-dev libFuzzer's runtime
mpicc                   libopenmpi-dev  libufnmpi (ufn_mpi.h): MPI's headers and compiler
mpirun                  openmpi-bin     make check-mpi runs its tests under mpirun
EOF
}

# found THING: is the command on PATH, or does a file match the path pattern?
found() {
    case "$1" in
    /*) for f in ${DEPS_ROOT:-}$1; do [ -e "$f" ] && return 0; done; return 1 ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
    esac
}

missing="" why=""
while read -r thing pkg reason; do
    [ -n "$thing" ] || continue
    if ! found "$thing"; then
        case " $missing " in *" $pkg "*) ;; *) missing="$missing $pkg" ;; esac
        why="$why
  $pkg: $reason (no $thing)"
    fi
done <<EOF
$(needs)
EOF

install_cmd="apt-get install -y --no-install-recommends$missing"
if [ -n "$missing" ]; then
    echo "deps: missing:$why"
    if [ "$dry" = 1 ]; then
        echo "deps: would run: apt-get update && $install_cmd"
        exit 1
    elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "deps: installing:$missing"
        export DEBIAN_FRONTEND=noninteractive
        # Wait for another apt-get (an unattended upgrade, a neighbour's
        # install) to finish rather than fail at once on its lock.
        # shellcheck disable=SC2086 # $missing is a list of words
        if ! apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null ||
           ! apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends \
                $missing -qq >/dev/null; then
            echo "deps: failed: apt-get update && $install_cmd" >&2
            exit 1
        fi
    else
        echo "deps: run this as root, then try again:" >&2
        echo "    sudo sh -c 'apt-get update && $install_cmd'" >&2
        exit 1
    fi
fi

# nvcc is found the way ufnc finds it: $NVCC, $CUDA_HOME/bin, PATH, and the
# toolkit's usual home.
nvcc=${NVCC:-}
[ -z "$nvcc" ] && [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ] && nvcc=$CUDA_HOME/bin/nvcc
[ -z "$nvcc" ] && nvcc=$(command -v nvcc 2>/dev/null)
[ -z "$nvcc" ] && [ -x "${DEPS_ROOT:-}/usr/local/cuda/bin/nvcc" ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc" ]; then
    echo "deps: no nvcc: building for the host and the simulator only;" \
         "install the CUDA toolkit (or set NVCC or CUDA_HOME) for GPU code"
elif [ -z "$missing" ]; then
    echo "deps: everything found (nvcc: $nvcc)"
fi
exit 0
