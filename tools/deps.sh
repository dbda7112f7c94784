#!/bin/sh
# Find the build's dependencies and install the missing Debian packages when
# run as root (apt-get update once, then apt-get install); otherwise print the
# exact command.  nvcc is optional: without it ufnc builds for the host only.
missing=""
need() { # need COMMAND-OR-FILE PACKAGE
    case "$1" in
        /*) [ -e "$1" ] || missing="$missing $2" ;;
        *) command -v "$1" >/dev/null 2>&1 || missing="$missing $2" ;;
    esac
}
need flex flex
need bison bison
need cc gcc
need pkg-config pkg-config
need /usr/include/cmocka.h libcmocka-dev
need mandoc mandoc
need /usr/include/dlpack/dlpack.h libdlpack-dev
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "deps: installing$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null || {
            echo "deps: apt-get install$missing failed" >&2; exit 1; }
    else
        echo "deps: missing:$missing" >&2
        echo "deps: install them with: sudo apt-get install$missing" >&2
        exit 1
    fi
fi
nvcc=${NVCC:-$(command -v nvcc 2>/dev/null)}
[ -z "$nvcc" ] && [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] && nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
if [ -z "$nvcc" ]; then
    echo "deps: nvcc not found: building for the host only (install the CUDA toolkit for GPU code)"
fi
exit 0
