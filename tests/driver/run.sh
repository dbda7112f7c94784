#!/bin/sh
# tests/driver/run.sh UFNC - ufnc's command line as a build system sees it:
# exit statuses, output kinds, -H, -MD/-MF/-MT/-MQ/-MP (compared with what
# gcc writes for the same names), -v, -d, --prefix, the toolchain options,
# and byte-identical outputs from two compilations.  The parts that need
# nvcc say "skipped: no nvcc" without one.  One line per check, a summary.
set -u
ufnc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ufn-driver.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
export NO_COLOR=1
unset NVCC CUDA_HOME
# make -j's jobserver decides nvcc's threads (jobs.c): the cases say when
# there is one, whatever make runs this script
unset MAKEFLAGS MFLAGS
have_nvcc=
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then have_nvcc=1; fi

pass=0 fail=0 skip=0 failed=
ok() { pass=$((pass + 1)); printf 'ok    %s\n' "$1"; }
bad() {
    fail=$((fail + 1)); failed="$failed $1"
    printf 'FAIL  %s: %s\n' "$1" "$2"
    [ -s "$tmp/err" ] && sed 's/^/      | /' "$tmp/err" | head -15
}
skipped() { skip=$((skip + 1)); printf 'skip  %s: skipped: %s\n' "$1" "$2"; }

# run NAME STATUS ARGS...: ufnc ARGS in $tmp/w, expecting exit STATUS;
# stdout in $tmp/out, stderr in $tmp/err.  Returns 0 if the status matched.
run() {
    name=$1 want=$2
    shift 2
    (cd "$tmp/w" && "$ufnc" "$@") >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ "$st" -ne "$want" ]; then
        bad "$name" "exit status $st, expected $want"
        return 1
    fi
    return 0
}
has() { grep -q -- "$2" "$1"; }
# Each case starts with an empty device-code cache of its own (the cache's
# cases below keep theirs), so that every tool runs as the case expects.
export UFN_CACHE_DIR="$tmp/cache"
fresh() {
    rm -rf "$tmp/w" "$tmp/cache" && mkdir -p "$tmp/w" && cp "$top/tests/driver/mod.ufn" "$top/tests/driver/bad.ufn" "$tmp/w/"
}

# ---- exit statuses -------------------------------------------------------------------

fresh
if run status-0 0 mod.ufn --target=host,sim && [ -s "$tmp/w/mod.o" ] && [ -s "$tmp/w/mod.h" ]; then
    ok "status 0: mod.o and mod.h written"
elif [ "$st" -eq 0 ]; then bad status-0 "mod.o or mod.h missing"; fi

fresh
if run status-1 1 bad.ufn --target=host -MD && has "$tmp/err" "^bad.ufn:6:12: error: " \
   && [ -z "$(ls "$tmp/w" | grep -v '\.ufn$')" ]; then
    ok "status 1: source errors, no output written"
elif [ "$st" -eq 1 ]; then bad status-1 "wrong message, or outputs left: $(ls "$tmp/w")"; fi

usage() {   # NAME MESSAGE-PATTERN ARGS...
    n=$1 pat=$2
    shift 2
    fresh
    if run "$n" 2 "$@"; then
        if has "$tmp/err" "$pat" && has "$tmp/err" "try 'ufnc --help'" && [ ! -e "$tmp/w/mod.o" ]; then
            ok "status 2: $n"
        else bad "$n" "expected a message matching '$pat'"; fi
    fi
}
usage no-input "no input file"
usage unknown-option "unknown option '--frob'" --frob mod.ufn
usage two-inputs "more than one input file ('bad.ufn')" mod.ufn bad.ufn
usage two-outputs "more than one -o option" mod.ufn -o a.o -o b.o
usage output-kind "the extension must be .o, .cu, .c, .h or .ptx" mod.ufn -o mod.txt
usage not-ufn "input 'mod.c' is not a .ufn (or .py) module" mod.c
usage bad-target "unknown target 'gpu'" mod.ufn --target=host,gpu
usage empty-target "no target given" mod.ufn --target=
usage bad-dump "expected tokens, ast or types, not 'tree'" mod.ufn -d tree
usage bad-color "expected auto, always or never" mod.ufn --color=sometimes
usage missing-value "option -o needs an argument" mod.ufn -o
usage ptx-without-cuda "PTX needs --target to include cuda" mod.ufn --target=host -o mod.ptx
usage header-ufn-h "the header ufn.h would hide libufnrt's header of that name" mod.ufn --target=host -o ufn.o
usage header-dlpack "the header inc/ufn_dlpack.h would hide" mod.ufn --target=host -H inc/ufn_dlpack.h

# An output that is the input or another output (issue 14): once exit 0,
# with the source or the object overwritten.  The source must survive.
usage_keeps_source() {   # NAME MESSAGE-PATTERN ARGS...
    usage "$@"
    cmp -s "$top/tests/driver/mod.ufn" "$tmp/w/mod.ufn" || bad "$1" "mod.ufn was changed"
}
usage_keeps_source header-is-input "-H mod.ufn: that is the input file" mod.ufn --target=host -H mod.ufn
usage_keeps_source depfile-is-input "-MF mod.ufn: that is the input file" mod.ufn --target=host -MF mod.ufn
usage header-is-object "-o out/m.o and -H out/m.o: the same file as another output" mod.ufn --target=host -o out/m.o -H out/m.o
usage depfile-is-object "-o out/m.o and -MF out/m.o: the same file" mod.ufn --target=host -o out/m.o -MF out/m.o
usage depfile-is-header "-H m.d and -MF m.d: the same file" mod.ufn --target=host -o m.o -H m.d -MD
usage header-is-object-spelt-otherwise "-o mod.o and -H ./mod.o: the same file" mod.ufn --target=host -H ./mod.o
usage header-named-like-a-module "-H helpers.ufn: an output may not be named like a module" mod.ufn --target=host -H helpers.ufn
fresh
ln -s mod.ufn "$tmp/w/link.h"
if run header-is-input-by-link 2 mod.ufn --target=host -H link.h && has "$tmp/err" "-H link.h: that is the input file" \
   && cmp -s "$top/tests/driver/mod.ufn" "$tmp/w/mod.ufn"; then
    ok "status 2: -H names a link to the input"
elif [ "$st" -eq 2 ]; then bad header-is-input-by-link "message, or mod.ufn changed"; fi
fresh
if run outputs-to-dev-null 0 mod.ufn --target=host -H /dev/null -MF /dev/null && [ -c /dev/null ] && [ -s "$tmp/w/mod.o" ]; then
    ok "-H /dev/null -MF /dev/null: a device may take several outputs"
fi

# --module-name goes into file names and C symbols: a C identifier or a
# usage error (once 'a b' reached cc, and '..' wrote a .cu outside the
# temporary directory).
for name in "a b" 1x "a;b" ../../x .. "" "x-y"; do
    usage "module-name '$name'" "--module-name: '$name' is not a C identifier" mod.ufn --target=host,sim --module-name="$name"
done

# A header named like a C library header hides it wherever the output
# directory is on the include path (ufn.mk puts it there).
for h in stdint math stdlib ufn_abi; do
    fresh
    cp "$tmp/w/mod.ufn" "$tmp/w/$h.ufn"
    if run "header-$h" 2 "$h.ufn" --target=host && has "$tmp/err" "the header $h.h would hide .* header of that name" \
       && [ ! -e "$tmp/w/$h.h" ] && [ ! -e "$tmp/w/$h.o" ]; then
        ok "status 2: $h.ufn would write $h.h"
    elif [ "$st" -eq 2 ]; then bad "header-$h" "message or outputs"; fi
done
fresh
cp "$tmp/w/mod.ufn" "$tmp/w/stdint.ufn"
if run header-stdint-renamed 0 stdint.ufn --target=host,sim -H stdint_ufn.h && [ -s "$tmp/w/stdint.o" ] \
   && [ -s "$tmp/w/stdint_ufn.h" ]; then
    ok "stdint.ufn builds with -H naming another header"
fi

fresh
if NVCC=/nonexistent run nvcc-missing 3 mod.ufn && has "$tmp/err" "NVCC=/nonexistent is not an executable" \
   && has "$tmp/err" "--target=host,sim" && [ ! -e "$tmp/w/mod.o" ] && [ ! -e "$tmp/w/mod.h" ]; then
    ok "status 3: default target, NVCC=/nonexistent: a hint, no outputs"
elif [ "$st" -eq 3 ]; then bad nvcc-missing "message or outputs"; fi
fresh
if run nvcc-option-missing 3 mod.ufn --nvcc=/nonexistent/nvcc && has "$tmp/err" "is not an executable"; then
    ok "status 3: --nvcc=/nonexistent"
fi
fresh
if run cc-missing 3 mod.ufn --target=host --cc=/nonexistent/cc && has "$tmp/err" "cannot run /nonexistent/cc" \
   && [ ! -e "$tmp/w/mod.o" ]; then
    ok "status 3: --cc=/nonexistent"
fi
fresh
if CC=false run cc-fails 3 mod.ufn --target=host && has "$tmp/err" "false failed (exit status 1)" && [ ! -e "$tmp/w/mod.o" ]; then
    ok "status 3: CC=false fails, no output"
fi

# With no CUDA toolkit at all: /usr/local hidden in a private mount namespace
# (needs root), so that not even /usr/local/cuda/bin/nvcc is found.
fresh
if ! unshare -m true 2>/dev/null; then
    skipped no-toolkit "needs unshare -m (root)"
elif (cd "$tmp/w" && unshare -m sh -c 'mount -t tmpfs none /usr/local && PATH=/usr/bin:/bin exec "$0" mod.ufn' "$ufnc") \
         >"$tmp/out" 2>"$tmp/err"; [ $? -eq 3 ] && has "$tmp/err" "nvcc not found (looked at" \
     && has "$tmp/err" "build without CUDA code with --target=host,sim" && [ ! -e "$tmp/w/mod.o" ] && [ ! -e "$tmp/w/mod.h" ]; then
    if (cd "$tmp/w" && unshare -m sh -c 'mount -t tmpfs none /usr/local && PATH=/usr/bin:/bin exec "$0" mod.ufn --target=host,sim' "$ufnc") \
           2>"$tmp/err" && [ -s "$tmp/w/mod.o" ]; then
        ok "no CUDA toolkit anywhere: exit 3 with a hint by default, --target=host,sim works"
    else bad no-toolkit "--target=host,sim failed without a toolkit"; fi
else bad no-toolkit "expected exit 3 and the 'nvcc not found' hint"; fi

# ---- error floods ------------------------------------------------------------------------

# 1000 copies of one signature: 999 errors, once 30 MB in 10 s.  ufnc stops
# after 50 (-fmax-errors), each message written with one call.
fresh
awk 'BEGIN { printf "from numba import vectorize\n\n@vectorize(["
             for (i = 0; i < 1000; i++) printf "%s\047float32(float32)\047", i ? ", " : ""
             printf "])\ndef f(x):\n    return x\n" }' >"$tmp/w/flood.ufn"
if run flood 1 flood.ufn --target=host -MD && [ "$(grep -c ': error: ' "$tmp/err")" -eq 50 ] \
   && [ "$(tail -n 1 "$tmp/err")" = "ufnc: note: stopping after 50 errors (-fmax-errors=50; 0 for no limit)" ] \
   && [ ! -e "$tmp/w/flood.o" ] && [ ! -e "$tmp/w/flood.d" ]; then
    ok "1000 duplicate signatures: 50 errors, then ufnc stops"
elif [ "$st" -eq 1 ]; then bad flood "$(grep -c ': error: ' "$tmp/err") errors, or the last line, or outputs"; : >"$tmp/err"; fi
if run flood-3 1 flood.ufn --target=host -fmax-errors=3 && [ "$(grep -c ': error: ' "$tmp/err")" -eq 3 ]; then
    ok "-fmax-errors=3 stops after 3"
elif [ "$st" -eq 1 ]; then bad flood-3 "$(grep -c ': error: ' "$tmp/err") errors"; : >"$tmp/err"; fi
if run flood-0 1 flood.ufn --target=host -fmax-errors=0 && [ "$(grep -c ': error: ' "$tmp/err")" -eq 999 ] \
   && ! has "$tmp/err" "stopping after"; then
    ok "-fmax-errors=0: every error"
elif [ "$st" -eq 1 ]; then bad flood-0 "$(grep -c ': error: ' "$tmp/err") errors"; : >"$tmp/err"; fi
usage max-errors-bad "-fmax-errors: expected a number of errors (0: no limit), not 'x'" mod.ufn -fmax-errors=x
usage max-errors-negative "not '-1'" mod.ufn -fmax-errors=-1
usage warning-unknown "unknown warning option '-Wfrobnicate'" mod.ufn -Wfrobnicate
usage warning-error-unknown "unknown warning option '-Werror=frob'" mod.ufn -Werror=frob

# ---- nvcc's failures, as ufnc's diagnostics ----------------------------------------------

fake=$top/tests/driver/fake-nvcc
# nvcc that exits 0 but leaves no fatbin, an empty one or garbage: once exit 0
# and an object with a bogus fatbin in it.
for mode in nothing empty garbage truncated; do
    fresh
    if FAKE_NVCC=$mode run "fatbin-$mode" 3 mod.ufn --nvcc="$fake" \
       && has "$tmp/err" "^ufnc: error: nvcc exited with status 0 but .*(mod.fatbin): the toolkit at .* looks broken" \
       && [ ! -e "$tmp/w/mod.o" ] && [ ! -e "$tmp/w/mod.h" ]; then
        ok "nvcc exits 0, fatbin $mode: exit 3, no outputs"
    elif [ "$st" -eq 3 ]; then bad "fatbin-$mode" "message or outputs"; fi
done
# ptxas fails for one architecture: the error names the function, that
# architecture, and an --arch without it (found by building each alone).
fresh
if FAKE_NVCC=ptxas90 run nvcc-ptxas-fails 3 mod.ufn --nvcc="$fake" \
   && has "$tmp/err" "^ptxas error   : Entry function 'mod__scale__f32__contig' uses too much shared data" \
   && has "$tmp/err" "^mod.ufn:7:5: error: nvcc failed on the device code of scale for sm_90 (exit status 255)$" \
   && has "$tmp/err" "^ufnc: note: .* --arch=sm_80 leaves sm_90 out, or --target=host,sim builds without GPU code$" \
   && [ ! -e "$tmp/w/mod.o" ]; then
    ok "ptxas fails on sm_90: an error at the function, naming sm_90, and what to do"
elif [ "$st" -eq 3 ]; then bad nvcc-ptxas-fails "message"; fi
fresh
if FAKE_NVCC=frontend run nvcc-frontend-fails 3 mod.ufn --nvcc="$fake" \
   && has "$tmp/err" "^mod.ufn:7:5: error: nvcc failed on the device code of scale for sm_80 and sm_90 (exit status 1)$"; then
    ok "nvcc's front end fails at a .ufn line: an error at the function it is in"
elif [ "$st" -eq 3 ]; then bad nvcc-frontend-fails "message"; fi
fresh
if FAKE_NVCC=fatal run nvcc-fatal 3 mod.ufn --nvcc="$fake" \
   && has "$tmp/err" "^ufnc: error: nvcc failed on the device code of module mod for sm_80 and sm_90 (exit status 1)$" \
   && has "$tmp/err" "^ufnc: note: .*--target=host,sim builds without GPU code$"; then
    ok "nvcc fails naming nothing: an error for the module, and what to do"
elif [ "$st" -eq 3 ]; then bad nvcc-fatal "message"; fi

# A signal while nvcc runs: nvcc's own temporaries (tmpxft_*) went to
# TMPDIR, where nothing removed them; now its TMPDIR is ufnc's private one.
fresh
mkdir -p "$tmp/tx" "$tmp/log"
(cd "$tmp/w" && TMPDIR="$tmp/tx" FAKE_NVCC=tmpxft FAKE_LOG="$tmp/log" exec "$ufnc" mod.ufn --nvcc="$fake") 2>"$tmp/err" &
pid=$!
i=0
while [ ! -f "$tmp/log/started" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $pid
wait $pid 2>/dev/null
st=$?
if [ $st -eq 143 ] && [ -z "$(ls -A "$tmp/tx")" ]; then
    ok "SIGTERM during nvcc: its temporaries go with ufnc's directory"
else bad nvcc-temporaries "status $st, left in TMPDIR: $(ls -A "$tmp/tx" | head -3 | tr '\n' ' ')"; fi
kill "$(cat "$tmp/log/started" 2>/dev/null)" 2>/dev/null

# The real thing: ptxas's report read back.  CUDA's float64 sin spills 4
# bytes on sm_90 (issue 13: with the default architectures an error, exit 3,
# naming nothing); now a warning at the ufunc naming the architectures, an
# error with -Werror=spill.  ufnc's own sin does not spill: --fast-math
# brings CUDA's back.
cat >"$tmp/sp.ufn" <<'UFN'
import math
from numba import vectorize


@vectorize(['float64(float64, float64)'], target='cuda')
def sinplus(a, b):
    return math.sin(a) + b
UFN
spill_msg="^sp.ufn:6:5: warning: sinplus('float64(float64, float64)'): ptxas spills registers to local memory on [sm_0-9, and]*sm_90[sm_0-9, and]* ([0-9]* bytes); the kernel may run slower on th[a-z]* GPUs* \[-Wspill\]$"
spill() {   # NAME STATUS ARGS...: sp.ufn compiled
    fresh
    cp "$tmp/sp.ufn" "$tmp/w/"
    n=$1 want=$2
    shift 2
    run "$n" "$want" sp.ufn --fast-math "$@"
}
if [ -z "$have_nvcc" ]; then skipped spill "no nvcc"
else
    if spill spill-default-archs 0 && [ -s "$tmp/w/sp.o" ] && has "$tmp/err" "$spill_msg" \
       && [ "$(grep -c ': warning: ' "$tmp/err")" -eq 1 ] && ! has "$tmp/err" "ptxas info"; then
        ok "default architectures: a ptxas spill is a warning naming the ufunc and sm_90, the object is built"
    elif [ "$st" -eq 0 ]; then bad spill-default-archs "message"; fi
    if spill spill-werror 1 --arch=sm_90 -Werror=spill -MD \
       && has "$tmp/err" "^sp.ufn:6:5: error: sinplus(.*): ptxas spills .* on sm_90 .* \[-Werror=spill\]$" \
       && [ ! -e "$tmp/w/sp.o" ] && [ ! -e "$tmp/w/sp.h" ] && [ ! -e "$tmp/w/sp.d" ]; then
        ok "-Werror=spill: an error, exit 1, no outputs"
    elif [ "$st" -eq 1 ]; then bad spill-werror "message or outputs"; fi
    if spill spill-werror-all 1 --arch=sm_90 -Werror && has "$tmp/err" "error: .*\[-Werror=spill\]$"; then
        ok "-Werror makes the spill an error too"
    fi
    if spill spill-no-error 0 --arch=sm_90 -Werror -Wno-error=spill && has "$tmp/err" "warning: .*\[-Wspill\]$"; then
        ok "-Werror -Wno-error=spill: the spill stays a warning"
    fi
    if spill spill-off 0 --arch=sm_90 -Wno-spill && [ ! -s "$tmp/err" ]; then
        ok "-Wno-spill: no warning"
    elif [ "$st" -eq 0 ]; then bad spill-off "something printed"; fi
    if spill spill-usage 0 --arch=sm_90 -Xnvcc --resource-usage && has "$tmp/err" "^ptxas info    : Used [0-9]* registers" \
       && has "$tmp/err" "warning: .*\[-Wspill\]$"; then
        ok "-Xnvcc --resource-usage shows ptxas's report as nvcc prints it"
    fi
fi

# No contraction by default (DESIGN 9): a*b+c is a multiply and an add on
# the GPU as on the host; --fast-math keeps nvcc's fma.
cat >"$tmp/fma.ufn" <<'UFN'
from numba import vectorize


@vectorize(['float32(float32, float32, float32)', 'float64(float64, float64, float64)'])
def muladd(a, b, c):
    return a * b + c
UFN
if [ -z "$have_nvcc" ]; then skipped fmad "no nvcc"
else
    fresh
    cp "$tmp/fma.ufn" "$tmp/w/"
    if run fmad-off 0 fma.ufn --arch=sm_90 -o fma.ptx && ! has "$tmp/w/fma.ptx" 'fma\.' \
       && has "$tmp/w/fma.ptx" 'mul\.rn\.f32' && has "$tmp/w/fma.ptx" 'add\.rn\.f64'; then
        ok "the PTX of a*b+c has no fma by default"
    elif [ "$st" -eq 0 ]; then bad fmad-off "fma in the PTX: $(grep -c 'fma\.' "$tmp/w/fma.ptx")"; fi
    if run fmad-fast 0 fma.ufn --arch=sm_90 --fast-math -o fast.ptx && has "$tmp/w/fast.ptx" 'fma\.rn\.ftz\.f32'; then
        ok "--fast-math: nvcc contracts a*b+c into an fma"
    elif [ "$st" -eq 0 ]; then bad fmad-fast "no fma in the PTX"; fi
fi

# ---- no CUDA toolkit needed for host and sim -----------------------------------------

fresh
if NVCC=/nonexistent PATH=/usr/bin:/bin run host-no-nvcc 0 mod.ufn --target=host && [ -s "$tmp/w/mod.o" ]; then
    ok "--target=host with NVCC=/nonexistent and no nvcc in PATH"
fi
fresh
if NVCC=/nonexistent PATH=/usr/bin:/bin run sim-no-nvcc 0 mod.ufn --target=host,sim && [ -s "$tmp/w/mod.o" ]; then
    ok "--target=host,sim without nvcc"
fi

# ---- output kinds ----------------------------------------------------------------------

fresh
if run kind-cu 0 mod.ufn -o out.cu && has "$tmp/w/out.cu" "UFN_KERNEL" && has "$tmp/w/out.cu" '#line 8 "mod.ufn"' \
   && [ ! -e "$tmp/w/mod.h" ] && [ ! -e "$tmp/w/out.h" ] && [ ! -e "$tmp/w/mod.o" ]; then
    ok "-o .cu: device source with #line to the .ufn, nothing else"
elif [ "$st" -eq 0 ]; then bad kind-cu "unexpected .cu or outputs: $(ls "$tmp/w")"; fi
fresh
if run kind-c 0 mod.ufn -o out.c && has "$tmp/w/out.c" "int scale_float32(size_t n" \
   && cc -std=c11 -Wall -Werror -fopenmp-simd -I"$top/include" -c "$tmp/w/out.c" -o "$tmp/w/out_c.o" 2>"$tmp/err"; then
    ok "-o .c: host stub that compiles with -Wall -Werror"
elif [ "$st" -eq 0 ]; then bad kind-c "host stub missing an entry or does not compile"; fi
fresh
if run kind-h 0 mod.ufn -o out.h && has "$tmp/w/out.h" "int scale(const ufn_array \*x, ufn_array \*out);" \
   && printf '#include "out.h"\nint main(void) { return 0; }\n' >"$tmp/w/use.c" \
   && cc -std=c99 -Wall -Wextra -Werror -pedantic -I"$top/include" -I"$tmp/w" -c "$tmp/w/use.c" -o "$tmp/w/use.o" 2>"$tmp/err" \
   && g++ -x c++ -Wall -Werror -I"$top/include" -I"$tmp/w" -c "$tmp/w/use.c" -o "$tmp/w/use2.o" 2>"$tmp/err" \
   && [ ! -e "$tmp/w/mod.o" ]; then
    ok "-o .h: header alone, valid C99 and C++"
elif [ "$st" -eq 0 ]; then bad kind-h "header missing an entry or does not compile"; fi
fresh
if [ -z "$have_nvcc" ]; then skipped kind-ptx "no nvcc"
elif run kind-ptx 0 mod.ufn --arch=sm_80 -o out.ptx && has "$tmp/w/out.ptx" "^.target sm_80" \
     && has "$tmp/w/out.ptx" "^.visible .entry" && [ ! -e "$tmp/w/mod.o" ]; then
    ok "-o .ptx: PTX of the newest --arch"
elif [ "$st" -eq 0 ]; then bad kind-ptx "not PTX for sm_80"; fi

# Line endings: CRLF and a lone CR (old Mac OS) end lines as LF does, as
# in Python; the generated code is the same (a CR-only file once failed
# with a syntax error), and a message shows the right line.
fresh
mkdir -p "$tmp/w/lf" "$tmp/w/cr" "$tmp/w/crlf"
cp "$tmp/w/mod.ufn" "$tmp/w/lf/"
tr '\n' '\r' <"$tmp/w/mod.ufn" >"$tmp/w/cr/mod.ufn"
sed 's/$/\r/' "$tmp/w/mod.ufn" >"$tmp/w/crlf/mod.ufn"
why=
for k in lf cr crlf; do
    (cd "$tmp/w/$k" && "$ufnc" mod.ufn -o mod.c) 2>"$tmp/err" || why="$why $k: exit status $?"
done
[ -z "$why" ] && { cmp -s "$tmp/w/lf/mod.c" "$tmp/w/cr/mod.c" || why="the code from CR differs"; }
[ -z "$why" ] && { cmp -s "$tmp/w/lf/mod.c" "$tmp/w/crlf/mod.c" || why="the code from CRLF differs"; }
if [ -z "$why" ]; then ok "CR-only and CRLF line endings give the code LF gives"; else bad line-endings "$why"; fi
fresh
printf 'from numba import vectorize\r\r\r@vectorize(["float32(float32)"])\rdef f(x):\r    return x + z\r' >"$tmp/w/cr.ufn"
if run cr-error 1 cr.ufn --target=host && has "$tmp/err" "^cr.ufn:6:16: error: in f: name 'z' is not defined" \
   && has "$tmp/err" '^     6 |     return x + z$'; then
    ok "a CR-only file's error names its line and shows it"
elif [ "$st" -eq 1 ]; then bad cr-error "wrong place or line"; fi

# A path with a quote and a backslash ends up in #line directives.
fresh
mkdir -p "$tmp/w/q\"d\\x"
cp "$tmp/w/mod.ufn" "$tmp/w/q\"d\\x/"
if run odd-path 0 "q\"d\\x/mod.ufn" --target=host,sim -o odd.o && [ ! -s "$tmp/err" ] && [ -s "$tmp/w/odd.o" ]; then
    ok "a source path with '\"' and '\\': quoted in #line, no compiler warning"
elif [ "$st" -eq 0 ]; then bad odd-path "the C compiler complained"; fi

# ---- -H ------------------------------------------------------------------------------------

fresh
mkdir -p "$tmp/w/inc"
if run header-elsewhere 0 mod.ufn --target=host -o mod.o -H inc/api.h && [ -s "$tmp/w/inc/api.h" ] && [ ! -e "$tmp/w/mod.h" ]; then
    ok "-H puts the header where it says"
elif [ "$st" -eq 0 ]; then bad header-elsewhere "header not at inc/api.h only"; fi
fresh
if run header-with-cu 0 mod.ufn -o dev.cu -H api.h && [ -s "$tmp/w/api.h" ] && [ -s "$tmp/w/dev.cu" ]; then
    ok "-H with -o .cu writes both"
fi

# ---- dependency files --------------------------------------------------------------------

# mod2.ufn imports modules from directories whose names need quoting.
depsetup() {
    fresh
    mkdir -p "$tmp/w/lib dir" "$tmp/w/hash#dir"
    cp "$top/tests/driver/helpers.ufn" "$tmp/w/lib dir/helpers_with_a_rather_long_name_for_wrapping.ufn"
    cp "$top/tests/driver/helpers.ufn" "$tmp/w/hash#dir/more_helpers.ufn"
    cp "$top/tests/driver/mod2.ufn" "$tmp/w/"
}
depsetup
if run md-default 0 mod2.ufn --target=host -I "lib dir" -I "hash#dir" -o "out dir.o" -MD \
   && printf '%s\n' 'out\ dir.o out\ dir.h: mod2.ufn \' \
        ' lib\ dir/helpers_with_a_rather_long_name_for_wrapping.ufn \' \
        ' hash\#dir/more_helpers.ufn' >"$tmp/want" && cmp -s "$tmp/want" "$tmp/w/out dir.d"; then
    ok "-MD: out dir.d names the object, the header, the module and its imports"
elif [ "$st" -eq 0 ]; then diff "$tmp/want" "$tmp/w/out dir.d" >"$tmp/err"; bad md-default "depfile differs"; fi
depsetup
mkdir -p "$tmp/w/obj"
if run md-subdir 0 mod2.ufn --target=host -I "lib dir" -I "hash#dir" -o obj/m.o -MD -MP && [ -s "$tmp/w/obj/m.d" ] \
   && has "$tmp/w/obj/m.d" '^obj/m.o obj/m.h: mod2.ufn' && has "$tmp/w/obj/m.d" '^hash\\#dir/more_helpers.ufn:$'; then
    ok "-MD -MP: obj/m.d next to the object, phony rules"
elif [ "$st" -eq 0 ]; then cp "$tmp/w/obj/m.d" "$tmp/err"; bad md-subdir "depfile"; fi

# gcc writes the same rule for the same names: a C file with the same name
# that includes files with the same paths.
if ! command -v gcc >/dev/null 2>&1; then skipped md-gcc "no gcc"
else
    depsetup
    mkdir -p "$tmp/g/lib dir" "$tmp/g/hash#dir"
    printf '#include "lib dir/helpers_with_a_rather_long_name_for_wrapping.ufn"\n#include "hash#dir/more_helpers.ufn"\n' >"$tmp/g/mod2.ufn"
    : >"$tmp/g/lib dir/helpers_with_a_rather_long_name_for_wrapping.ufn"
    : >"$tmp/g/hash#dir/more_helpers.ufn"
    same=1
    : >"$tmp/diffs"
    gcc_same() {
        (cd "$tmp/w" && "$ufnc" mod2.ufn --target=host -I "lib dir" -I "hash#dir" -o x.o -MF u.d "$@") 2>>"$tmp/diffs" || same=
        (cd "$tmp/g" && gcc -x c -nostdinc -E mod2.ufn -o /dev/null -MD -MF g.d "$@") 2>>"$tmp/diffs" || same=
        if ! cmp -s "$tmp/w/u.d" "$tmp/g/g.d"; then
            same=; echo "$*:" >>"$tmp/diffs"; diff "$tmp/g/g.d" "$tmp/w/u.d" >>"$tmp/diffs"
        fi
    }
    gcc_same -MT x.o
    gcc_same -MT 'a$b' -MT 'c#d' -MP
    gcc_same -MQ 'a$b' -MQ 'c#d' -MQ 'e\ f' -MQ 'g\\ h' -MT plain
    gcc_same -MQ 'out dir.o' -MT y.h -MP
    gcc_same -MT a_very_long_target_name_that_takes_up_most_of_the_line_before_the_colon.o
    gcc_same -MQ b -MT a -MQ d -MT c
    cp "$tmp/diffs" "$tmp/err"
    if [ -n "$same" ]; then ok "-MF -MT -MQ -MP: byte for byte what gcc writes"
    else bad md-gcc "differs from gcc (< gcc, > ufnc)"; fi
fi
depsetup
mkdir -p "$tmp/w/deps"
if run mf-dir 0 mod2.ufn --target=host -I "lib dir" -I "hash#dir" -MF deps/x.d && [ -s "$tmp/w/deps/x.d" ]; then
    ok "-MF alone writes the dependency file"
fi
fresh
if run md-header-kind 0 mod.ufn -o only.h -MD && printf 'only.h: mod.ufn\n' >"$tmp/want" && cmp -s "$tmp/want" "$tmp/w/only.d"; then
    ok "-MD with -o .h: the header is the only target"
elif [ "$st" -eq 0 ]; then cp "$tmp/w/only.d" "$tmp/err"; bad md-header-kind "depfile"; fi

# ---- -v, -d, --keep, colour ----------------------------------------------------------------

fresh
if run verbose 0 mod.ufn --target=host,sim -v && [ "$(grep -c '^(cd .* && cc .* -c ' "$tmp/err")" -eq 2 ] \
   && has "$tmp/err" ' -r -nostdlib -o mod.o mod.host.o mod.sim.o)$'; then
    ok "-v prints each tool command"
elif [ "$st" -eq 0 ]; then bad verbose "tool commands not printed"; fi
if [ -n "$have_nvcc" ]; then
    fresh
    if run verbose-nvcc 0 mod.ufn --arch=sm_80,sm_86 -v && has "$tmp/err" "nvcc .* --fatbin -gencode arch=compute_80,code=sm_80 -gencode 'arch=compute_86,code=\[sm_86,compute_86\]' -o mod.fatbin mod.cu --threads 0)$"; then
        ok "-v prints the nvcc command, shell-quoted"
    elif [ "$st" -eq 0 ]; then bad verbose-nvcc "no such nvcc command"; fi
else skipped verbose-nvcc "no nvcc"; fi
for what in tokens ast types; do
    fresh
    if run "dump-$what" 0 mod.ufn -d "$what" && [ -s "$tmp/out" ] && [ ! -e "$tmp/w/mod.o" ] && [ ! -e "$tmp/w/mod.h" ]; then
        case $what in
        tokens) has "$tmp/out" '^8:5-8:11 return$' ;;
        ast) has "$tmp/out" 'def scale' ;;
        types) has "$tmp/out" '^ufunc scale(float32) -> float32' ;;
        esac && ok "-d $what dumps to stdout and writes nothing" || { cp "$tmp/out" "$tmp/err"; bad "dump-$what" "dump content"; }
    fi
done
# Standard output that cannot be written is an error (it once exited 0).
if [ ! -c /dev/full ]; then skipped stdout-full "no /dev/full"
else
    for args in "-d tokens" "-d ast" "-d types" --help --version; do
        fresh
        # shellcheck disable=SC2086 # the options are words
        (cd "$tmp/w" && "$ufnc" mod.ufn $args) >/dev/full 2>"$tmp/err"
        st=$?
        if [ $st -eq 3 ] && has "$tmp/err" "^ufnc: error: cannot write standard output: No space left on device"; then
            ok "$args > /dev/full: exit 3 with a message"
        else bad "stdout-full $args" "exit status $st, expected 3 and a message"; fi
    done
fi
fresh
mkdir -p "$tmp/t"
if TMPDIR="$tmp/t" run tempdir-removed 0 mod.ufn --target=host,sim && [ -z "$(ls -A "$tmp/t")" ]; then
    ok "the temporary directory is removed"
elif [ "$st" -eq 0 ]; then bad tempdir-removed "left $(ls -A "$tmp/t")"; fi
fresh
rm -rf "$tmp/t"; mkdir -p "$tmp/t"
if TMPDIR="$tmp/t" run keep 0 mod.ufn --target=host,sim --keep && has "$tmp/err" "keeping intermediate files in $tmp/t/ufnc-" \
   && [ -s "$(echo "$tmp"/t/ufnc-*/mod.host.c)" ] && [ -s "$(echo "$tmp"/t/ufnc-*/mod.cu)" ]; then
    ok "--keep keeps the generated C in the directory it names"
fi
fresh
if run color-never 1 bad.ufn && ! grep -q "$(printf '\033')" "$tmp/err"; then ok "NO_COLOR: no escape sequences"; fi
fresh
if run color-always 1 bad.ufn --color=always && grep -q "$(printf '\033\\[1;31merror:')" "$tmp/err"; then
    ok "--color=always paints errors"
fi
fresh
if run version 0 --version && has "$tmp/out" '^ufnc [0-9]'; then ok "--version"; fi
fresh
if run help 0 --help && has "$tmp/out" '^usage: ufnc' && has "$tmp/out" 'Exit status'; then ok "--help"; fi

# ---- --prefix and names ----------------------------------------------------------------------

fresh
cp "$top/tests/errors/c_keyword_name.ufn" "$tmp/w/dbl.ufn"
if run prefix 0 dbl.ufn --target=host --prefix=my_ && has "$tmp/w/dbl.h" "int my_double(const ufn_array \*x, ufn_array \*out);" \
   && has "$tmp/w/dbl.h" "int my_double_float64(size_t n, const double \*x, double \*out);"; then
    ok "--prefix=my_ turns a clash into my_double"
fi
fresh
if run prefix-invalid 1 mod.ufn --target=host --prefix=9x && has "$tmp/err" "'9xscale' is not a valid C name"; then
    ok "--prefix that makes no C name is an error"
fi
fresh
if run module-name 0 mod.ufn --target=host --module-name=other -o x.c && has "$tmp/w/x.c" "other__scale__f32"; then
    ok "--module-name names the generated symbols"
fi

# ---- what a build system passes to a compiler (issue 19) --------------------------------

fresh
if run conv-c 0 -c -Wall -Wextra mod.ufn --target=host,sim && [ -s "$tmp/w/mod.o" ] && [ ! -s "$tmp/err" ]; then
    ok "-c, -Wall and -Wextra are accepted and say nothing"
elif [ "$st" -eq 0 ]; then bad conv-c "something printed"; fi
fresh
if run conv-O 0 mod.ufn --target=host,sim -O -v && [ "$(grep -c '^(cd .* && cc .* -O1 ' "$tmp/err")" -eq 2 ]; then
    ok "-O is -O1, as in gcc"
elif [ "$st" -eq 0 ]; then bad conv-O "cc not run with -O1"; fi
fresh
if run conv-g 0 mod.ufn --target=host,sim -g -v && [ "$(grep -c '^(cd .* && cc .* -g -fdebug-prefix-map=' "$tmp/err")" -eq 2 ] \
   && readelf -S "$tmp/w/mod.o" | grep -q '\.debug_line' && readelf --debug-dump=line "$tmp/w/mod.o" | grep -q 'mod\.ufn'; then
    ok "-g: host code with debug information, lines in mod.ufn"
elif [ "$st" -eq 0 ]; then bad conv-g "no -g or no line table naming mod.ufn"; fi
fresh
if run conv-no-g 0 mod.ufn --target=host,sim && ! readelf -S "$tmp/w/mod.o" | grep -q '\.debug_line'; then
    ok "without -g: no debug information"
elif [ "$st" -eq 0 ]; then bad conv-no-g "debug information"; fi
if [ -z "$have_nvcc" ]; then skipped conv-g-nvcc "no nvcc"
else
    fresh
    if run conv-g-nvcc 0 mod.ufn --arch=sm_80 -g -o mod.ptx -v && has "$tmp/err" "nvcc .* -lineinfo " \
       && has "$tmp/w/mod.ptx" '^[[:space:]]*\.loc' && ! has "$tmp/err" ' -G '; then
        ok "-g: nvcc -lineinfo (line information, optimised code)"
    elif [ "$st" -eq 0 ]; then bad conv-g-nvcc "no -lineinfo or no .loc in the PTX"; fi
fi
fresh
cp "$tmp/w/mod.ufn" "$tmp/w/-x.ufn"
if run conv-dashdash 0 --target=host -- -x.ufn && [ -s "$tmp/w/-x.o" ]; then
    ok "--: an input whose name starts with '-'"
fi
usage conv-dash-without "unknown option '-x.ufn'" --target=host -x.ufn
fresh
if run conv-D 0 mod.ufn --target=host -DNDEBUG -D LEVEL=2 \
   && has "$tmp/err" "^ufnc: warning: -DNDEBUG is ignored: a .ufn module has no preprocessor (set a constant in the module) \[-Wignored-define\]$" \
   && has "$tmp/err" "^ufnc: warning: -DLEVEL=2 is ignored" && [ -s "$tmp/w/mod.o" ]; then
    ok "-DNAME, -D NAME=V: accepted, with a warning that names -Wignored-define"
elif [ "$st" -eq 0 ]; then bad conv-D "message"; fi
fresh
if run conv-D-quiet 0 mod.ufn --target=host -DNDEBUG -Wno-ignored-define && [ ! -s "$tmp/err" ]; then
    ok "-Wno-ignored-define silences it"
elif [ "$st" -eq 0 ]; then bad conv-D-quiet "something printed"; fi
fresh
if run conv-D-werror 1 mod.ufn --target=host -DNDEBUG -Werror && has "$tmp/err" "error: -DNDEBUG is ignored.*\[-Werror=ignored-define\]$" \
   && [ ! -e "$tmp/w/mod.o" ]; then
    ok "-D with -Werror: an error, no output"
elif [ "$st" -eq 1 ]; then bad conv-D-werror "message"; fi
usage conv-D-bad "-D1X=2: expected NAME or NAME=VALUE" mod.ufn -D1X=2
usage conv-W-names "unknown warning option '-Wfrob' (the warnings are spill, .*ignored-define)" mod.ufn -Wfrob
fresh
if run conv-h-header 0 -h inc.h mod.ufn --target=host && [ -s "$tmp/w/inc.h" ] && [ ! -e "$tmp/w/mod.h" ] \
   && [ ! -s "$tmp/out" ]; then
    ok "-h FILE writes the header there, as ISPC's -h"
elif [ "$st" -eq 0 ]; then bad conv-h-header "no inc.h, or help printed"; fi
fresh
if run conv-h-help 0 -h && has "$tmp/out" '^usage: ufnc'; then ok "-h alone prints the help"; fi
usage conv-h-missing "option -h needs an argument" mod.ufn -h

# Architectures: nvcc's -arch spelling, native (asked of the driver), all,
# all-major.  fake-nvcc fails the build; -v shows what it was asked for.
archs_of() {   # the -gencode architectures of the nvcc command -v printed
    grep -o 'arch=compute_[0-9]*,code=[^ ]*' "$tmp/err" | tr -d "'[]" | sed 's/.*code=//; s/,compute_[0-9]*/+ptx/' | tr ',\n' '  '
}
ptx_of() {    # the PTX each -gencode is built from: one cicc run each
    grep -o 'arch=compute_[0-9]*' "$tmp/err" | sed 's/arch=compute_//' | tr '\n' ' '
}
arch_case() {   # NAME WANT ARGS...
    aname=$1 awant=$2
    shift 2
    fresh
    if run "$aname" 3 mod.ufn --nvcc="$fake" -v "$@" && [ "$(archs_of)" = "$awant" ]; then
        ok "$aname: $awant"
    elif [ "$st" -eq 3 ]; then bad "$aname" "built for '$(archs_of)', expected '$awant'"; fi
}
fake=$top/tests/driver/fake-nvcc
list="sm_75 sm_80 sm_86 sm_87 sm_89 sm_90 sm_90a sm_100 sm_103 sm_110 sm_120 sm_121"
# nvcc's threads: every CPU (0) outside make; under make -j3 one plus the
# free jobserver slots, no more than the architectures (2 here); 1 when
# make hid its jobserver (make 4.3, a recipe without '+').
threads_of() { grep -o -- ' --threads [0-9]*)$' "$tmp/err" | grep -o '[0-9]*'; }
fresh
if run threads-alone 3 mod.ufn --nvcc="$fake" -v && [ "$(threads_of)" = 0 ]; then
    ok "nvcc --threads 0 outside make"
elif [ "$st" -eq 3 ]; then bad threads-alone "--threads $(threads_of)"; fi
fresh
if MAKEFLAGS=" -j3 --jobserver-auth=98,99" run threads-hidden 3 mod.ufn --nvcc="$fake" -v && [ "$(threads_of)" = 1 ]; then
    ok "nvcc --threads 1 under make -j3 without its jobserver"
elif [ "$st" -eq 3 ]; then bad threads-hidden "--threads $(threads_of)"; fi
fresh
printf 'all:\n\t+"$(UFNC)" mod.ufn --nvcc="$(FAKE)" -v 2>err; test $$? = 3\n' >"$tmp/w/Makefile"
if (cd "$tmp/w" && make -s -j3 UFNC="$ufnc" FAKE="$fake") >"$tmp/out" 2>&1 && cp "$tmp/w/err" "$tmp/err" \
   && [ "$(threads_of)" = 2 ]; then
    ok "nvcc --threads 2 under make -j3 (+ recipe): its slot and one from the jobserver, for 2 architectures"
else cat "$tmp/out" >>"$tmp/err"; bad threads-jobserver "--threads $(threads_of)"; fi
fresh
mkdir -p "$tmp/w/tools" && cp "$fake" "$tmp/w/tools/nvcc"
if run nvcc-relative 3 mod.ufn --nvcc=tools/nvcc -v && has "$tmp/err" "^ufnc: error: nvcc exited with status 0 but wrote no fatbin" \
   && ! has "$tmp/err" "cannot run"; then
    ok "--nvcc=tools/nvcc: a relative path names the same file from ufnc's directory"
elif [ "$st" -eq 3 ]; then bad nvcc-relative "message"; fi
FAKE_GPU_CODE=$list arch_case arch-nvcc-spelling "sm_80 sm_90+ptx " -arch=sm_80,sm_90
FAKE_GPU_CODE=$list arch_case arch-nvcc-spelling-space "sm_86+ptx " -arch sm_86
FAKE_GPU_CODE=$list arch_case arch-cmake-spelling "sm_80 sm_90+ptx " --arch=80,90-real
FAKE_GPU_CODE=$list arch_case arch-all "sm_75 sm_80 sm_86 sm_87 sm_89 sm_90 sm_100 sm_103 sm_110 sm_120 sm_121+ptx " --arch=all
# cicc once per front end (NVVM 7 to sm_90, NVVM 20 from sm_100), the
# newest from its own PTX; and an explicit pair keeps one PTX each.
if [ "$(ptx_of)" = "75 100 121 " ]; then ok "arch-all: SASS from three PTX (two front ends and the newest)"
else bad arch-all-ptx "PTX built for '$(ptx_of)', expected '75 100 121 '"; fi
FAKE_GPU_CODE=$list arch_case arch-all-major "sm_75 sm_80 sm_90 sm_100 sm_110 sm_120+ptx " --arch=all-major
fresh
if UFN_CUDA_LIBRARY=/nonexistent/libcuda.so.1 run arch-native-no-driver 3 mod.ufn --nvcc="$fake" --arch=native \
   && has "$tmp/err" "^ufnc: error: --arch=native: no CUDA driver to ask which GPUs this machine has (/nonexistent/libcuda.so.1: .*); name the architectures instead, e.g. --arch=sm_90$" \
   && [ ! -e "$tmp/w/mod.o" ]; then
    ok "--arch=native without a driver: exit 3, a clear error (nvcc would build sm_75 and say little)"
elif [ "$st" -eq 3 ]; then bad arch-native-no-driver "message"; fi
if ! cc -shared -fPIC -o "$tmp/fakecuda.so" "$top/tests/driver/fake-cuda.c" 2>"$tmp/err"; then
    bad arch-native "cannot build fake-cuda.c"
else
    UFN_CUDA_LIBRARY=$tmp/fakecuda.so FAKE_GPUS=90,80,90 arch_case arch-native "sm_80 sm_90+ptx " --arch=native
    UFN_CUDA_LIBRARY=$tmp/fakecuda.so FAKE_GPUS=90,80,90 arch_case arch-native-nvcc-spelling "sm_80 sm_90+ptx " -arch=native
    fresh
    if UFN_CUDA_LIBRARY=$tmp/fakecuda.so FAKE_GPUS= run arch-native-none 3 mod.ufn --nvcc="$fake" --arch=native \
       && has "$tmp/err" "^ufnc: error: --arch=native: the CUDA driver reports no GPU; name the architectures"; then
        ok "--arch=native with no GPU: exit 3, a clear error"
    elif [ "$st" -eq 3 ]; then bad arch-native-none "message"; fi
    fresh
    if UFN_CUDA_LIBRARY=$tmp/fakecuda.so FAKE_GPUS=70 run arch-native-old 3 mod.ufn --nvcc="$fake" --arch=native \
       && has "$tmp/err" "GPU 0 is sm_70, older than sm_75"; then
        ok "--arch=native with an sm_70: exit 3, CUDA 13 cannot build for it"
    elif [ "$st" -eq 3 ]; then bad arch-native-old "message"; fi
fi

# ---- the device-code cache (issue 19) -------------------------------------------------

# host and sim code go through cc, cached as the fatbin is: these cases need
# no nvcc.  cached NAME STATUS WANT-STORED WANT-HITS ARGS...: -v counts.
cached() {
    cn=$1 cst=$2 cstored=$3 chits=$4
    shift 4
    run "$cn" "$cst" mod.ufn --target=host,sim -v "$@" || return 1
    s=$(grep -c '^ufnc: cc (.*): [0-9.]* s, stored in the cache$' "$tmp/err")
    h=$(grep -c '^ufnc: cc (.*): [0-9.]* s, from the cache (' "$tmp/err")
    if [ "$s" -ne "$cstored" ] || [ "$h" -ne "$chits" ]; then
        bad "$cn" "$s stored and $h from the cache, expected $cstored and $chits"
        return 1
    fi
}
entries() { find "$tmp/cache" -type f 2>/dev/null | wc -l; }
fresh
if cached cache-miss 0 2 0 && cp "$tmp/w/mod.o" "$tmp/first.o" && [ "$(entries)" -eq 2 ]; then
    ok "cache: a first build stores the host and simulator objects"
fi
if cached cache-hit 0 0 2 && ! has "$tmp/err" '^(cd .* && cc .* -c ' && cmp -s "$tmp/w/mod.o" "$tmp/first.o"; then
    ok "cache: a rebuild takes both from the cache, runs no cc, same object"
elif [ "$st" -eq 0 ]; then bad cache-hit "cc ran, or the object differs"; fi
if cached cache-flags 0 2 0 -O2 && [ "$(entries)" -eq 4 ]; then
    ok "cache: another flag (-O2) misses"
fi
if cached cache-no-cache 0 0 0 --no-cache && [ "$(grep -c '^(cd .* && cc .* -c ' "$tmp/err")" -eq 2 ] && [ "$(entries)" -eq 4 ]; then
    ok "cache: --no-cache neither reads nor writes it"
fi
for f in "$tmp"/cache/*; do      # damage every entry: 8 bytes in the middle
    size=$(wc -c <"$f")
    printf 'damaged!' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
done
if cached cache-corrupt 0 2 0 && cmp -s "$tmp/w/mod.o" "$tmp/first.o" && cached cache-repaired 0 0 2; then
    ok "cache: a damaged entry is a miss, and is replaced"
fi
# Another program named cc that prints the same --version (make check-asan's
# wrapper adds sanitizer flags and execs the real cc): its objects are not cc's.
mkdir -p "$tmp/wrap"
printf '#!/bin/sh\nexec %s -DWRAPPED "$@"\n' "$(command -v cc)" >"$tmp/wrap/cc" && chmod +x "$tmp/wrap/cc"
if PATH="$tmp/wrap:$PATH" cached cache-wrapper 0 2 0; then
    ok "cache: another program named cc, with the same --version, misses"
fi
cp "$tmp/w/mod.ufn" "$tmp/w/mod.keep"
{ echo '# a line more: every #line changes'; cat "$tmp/w/mod.keep"; } >"$tmp/w/mod.ufn"
if cached cache-source 0 2 0; then ok "cache: a changed source misses"; fi
cp "$tmp/w/mod.keep" "$tmp/w/mod.ufn"
fresh
if UFN_CACHE_SIZE=0 cached cache-bounded 0 2 0 && [ "$(entries)" -eq 0 ]; then
    ok "cache: UFN_CACHE_SIZE bounds it (0 MiB: nothing kept)"
fi
fresh
if UFN_CACHE_DIR=/proc/no/such/dir cached cache-unwritable 0 0 0 && [ -s "$tmp/w/mod.o" ]; then
    ok "cache: a directory that cannot be made is no cache, not an error"
fi
fresh
mkdir -p "$tmp/home" "$tmp/xdg"
if (unset UFN_CACHE_DIR; XDG_CACHE_HOME="$tmp/xdg" run cache-xdg 0 mod.ufn --target=host,sim) \
   && [ "$(find "$tmp/xdg/ufnc" -type f | wc -l)" -eq 2 ] \
   && (unset UFN_CACHE_DIR XDG_CACHE_HOME; HOME="$tmp/home" run cache-home 0 mod.ufn --target=host,sim) \
   && [ "$(find "$tmp/home/.cache/ufnc" -type f | wc -l)" -eq 2 ]; then
    ok "cache: \$XDG_CACHE_HOME/ufnc, else ~/.cache/ufnc"
elif [ "$st" -eq 0 ]; then bad cache-default-dir "no entries where expected"; fi
# Concurrent builds of one module into one empty cache: every one works,
# the objects are the same, no temporary is left.
fresh
for k in 1 2 3 4; do
    (cd "$tmp/w" && "$ufnc" mod.ufn --target=host,sim -o "par$k.o" 2>"$tmp/err$k"; echo $? >"$tmp/st$k") &
done
wait
why=
for k in 1 2 3 4; do
    [ "$(cat "$tmp/st$k")" = 0 ] || why="$why run $k: exit $(cat "$tmp/st$k")"
    cmp -s "$tmp/w/par1.o" "$tmp/w/par$k.o" || why="$why par$k.o differs"
done
[ "$(entries)" -eq 2 ] || why="$why $(entries) files in the cache"
if [ -z "$why" ]; then ok "cache: four concurrent builds, one cache: all work, same objects"
else : >"$tmp/err"; bad cache-concurrent "$why"; fi
if [ -z "$have_nvcc" ]; then skipped cache-nvcc "no nvcc"
else
    fresh
    cp "$tmp/sp.ufn" "$tmp/w/"
    if run cache-nvcc-miss 0 sp.ufn --fast-math --arch=sm_90 -v && has "$tmp/err" '^ufnc: nvcc: .* s, stored in the cache$' \
       && cp "$tmp/w/sp.o" "$tmp/first.o" \
       && run cache-nvcc-hit 0 sp.ufn --fast-math --arch=sm_90 -v && has "$tmp/err" '^ufnc: nvcc: .* s, from the cache (' \
       && ! has "$tmp/err" ' --fatbin ' && has "$tmp/err" "$spill_msg" && cmp -s "$tmp/w/sp.o" "$tmp/first.o"; then
        ok "cache: nvcc's fatbin from the cache, its spill warning said again, same object"
    elif [ "$st" -eq 0 ]; then bad cache-nvcc "nvcc ran, no warning, or the object differs"; fi
    if run cache-nvcc-flags 0 sp.ufn --fast-math --arch=sm_90 -Xnvcc -DX -v \
       && has "$tmp/err" '^ufnc: nvcc: .* s, stored in the cache$'; then
        ok "cache: another nvcc flag misses"
    elif [ "$st" -eq 0 ]; then bad cache-nvcc-flags "another nvcc flag did not miss the cache"; fi
fi

# ---- determinism ------------------------------------------------------------------------------

# ---- the host forms of @cuda.jit kernels ---------------------------------------------------
# The comment above each kernel in the .cu names the form its host block
# runner takes (emit_kernel.c; ufn(7) KERNELS): the grid-stride form where
# kernel_uses.c proves it legal, the plain runner where it does not.
fresh
cp "$top/tests/e2e/jitlang.ufn" "$tmp/w/"
if run kernel-forms 0 jitlang.ufn --target=host -o jitlang.cu; then
    form_ok=1
    for want in "stride_scale:a block runner, grid-stride form" "stride_count:a block runner, grid-stride form" \
                "stride_shape:a block runner, grid-stride form" \
                "stride_carry:a block runner" "stride_return:a block runner" \
                "matmul:a block runner split at its barriers" "warps:the thread entry on the runtime's engine"; do
        k=${want%%:*} form=${want#*:}
        if ! grep -q -- "@cuda.jit def $k, '[^']*' (host: $form)" "$tmp/w/jitlang.cu"; then
            bad kernel-forms "$k: not '$form'"; form_ok=
        fi
    done
    cp "$top/tests/e2e/warps.ufn" "$tmp/w/"
    if run kernel-forms-warps 0 warps.ufn --target=host -o warps.cu; then
        for want in "warp_block_sum:a block runner split at its barriers and warp functions, each warp's lanes in lock-step" \
                    "lanes:a block runner split at its barriers and warp functions, each warp's lanes in lock-step" \
                    "divergent_shuffle:the thread entry on the runtime's engine"; do
            k=${want%%:*} form=${want#*:}
            if ! grep -q -- "@cuda.jit def $k, '[^']*' (host: $form)" "$tmp/w/warps.cu"; then
                bad kernel-forms "$k: not '$form'"; form_ok=
            fi
        done
    else
        form_ok=
    fi
    [ -n "$form_ok" ] && ok "kernel-forms: each kernel's host form named in the .cu"
    # a split runner turns loops of uniform bounds inside out (one in each
    # of matmul and prefix_sums; prefix_sums' range(t + 1) stays per thread)
    for k in matmul prefix_sums row_dots row_scatter; do
        n=$(awk "/__${k}__.*__jit__run\\(/,/^UFN_RUNNER_VARIANTS/" "$tmp/w/jitlang.cu" | grep -c 'interchanged: this loop outside')
        if [ "$n" = 1 ]; then ok "kernel-forms: $k's runner has one interchanged loop"
        else bad kernel-forms "$k's runner has $n interchanged loops, expected 1"; fi
    done
    # ... and runs one whose body only assigns locals per strip of threads
    # (emit_kernel.c), where the block fits the strips; row_scatter's stores
    for want in matmul:1 prefix_sums:1 row_dots:1 row_scatter:0; do
        k=${want%%:*}
        n=$(awk "/__${k}__.*__jit__run\\(/,/^UFN_RUNNER_VARIANTS/" "$tmp/w/jitlang.cu" | grep -c 'strip-mined: per strip')
        if [ "$n" = "${want#*:}" ]; then ok "kernel-forms: $k's runner has $n strip-mined loops"
        else bad kernel-forms "$k's runner has $n strip-mined loops, expected ${want#*:}"; fi
    done
    # indices that jit_index_plain bounds are plain arithmetic: all of
    # matmul's, given extents below 2^40 (a copy of the runner for larger
    # ones keeps the wrap-around); row_dots' s[(t + k) % blockDim.x] keeps it
    run_of() { awk "/__${1}__.*__jit__run\\(/,/^UFN_RUNNER_VARIANTS/" "$tmp/w/jitlang.cu"; }
    any_of() { awk "/__${1}__.*__jit__run_any\\(void/,/^}/" "$tmp/w/jitlang.cu"; }
    if [ "$(run_of matmul | grep -c ufn_wrap_index)" = 0 ] && run_of matmul | grep -q 'indices below assume smaller extents' \
       && [ "$(any_of matmul | grep -c ufn_wrap_index)" = 2 ] && [ "$(run_of row_dots | grep -c ufn_wrap_index)" = 2 ] \
       && [ -z "$(any_of row_dots)" ] && [ "$(run_of row_scatter | grep -c ufn_wrap_index)" = 0 ]; then
        ok "kernel-forms: matmul's and row_scatter's indices are plain arithmetic, row_dots' modulo by blockDim is not"
    else bad kernel-forms "plain indices: matmul $(run_of matmul | grep -c ufn_wrap_index) wraps, row_dots $(run_of row_dots | grep -c ufn_wrap_index)"; fi
fi

# Two compilations of the same source with different temporary directories
# give the same bytes; an object also when written to another path.
same_outputs() {   # NAME ARGS...; $ext is the output kind
    n=$1
    shift
    fresh
    mkdir -p "$tmp/w/one" "$tmp/w/two" "$tmp/t1" "$tmp/t2"
    for k in one two; do
        [ $k = one ] && t=$tmp/t1 || t=$tmp/t2
        out=mod.$ext
        [ "$ext" = o ] && out=$k/mod.o
        (cd "$tmp/w" && TMPDIR=$t "$ufnc" mod.ufn --no-cache "$@" -o "$out") 2>"$tmp/err" || { bad "$n" "compilation failed"; return; }
        [ "$ext" = o ] || mv "$tmp/w/mod.$ext" "$tmp/w/$k/"
    done
    for f in "$tmp"/w/one/*; do
        if ! cmp -s "$f" "$tmp/w/two/$(basename "$f")"; then bad "$n" "$(basename "$f") differs"; return; fi
    done
    ok "$n: byte-identical $(cd "$tmp/w/one" && echo *)"
}
for ext in o cu c h; do same_outputs "deterministic-$ext" --target=host,sim; done
ext=o; same_outputs "deterministic-debug" --target=host,sim -g
if [ -n "$have_nvcc" ]; then
    ext=o; same_outputs "deterministic-fatbin-sm_80" --arch=sm_80
    ext=o; same_outputs "deterministic-fatbin-default-archs"
    ext=ptx; same_outputs "deterministic-ptx" --arch=sm_80
else skipped deterministic-fatbin "no nvcc"; fi

echo "driver: $pass passed, $fail failed, $skip skipped${failed:+ ($failed )}"
[ "$fail" -eq 0 ]
