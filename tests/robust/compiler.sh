#!/bin/sh
# compiler.sh - ufnc under hostile conditions: tools that fail or hang,
# signals during a build, paths with spaces, unreadable, empty, directory and
# huge inputs, deep nesting, very long lines, bytes that are not UTF-8.
#
# Usage: compiler.sh UFNC WORKDIR
#
# Every case checks what DESIGN section 1 promises: the exit status (1 source,
# 3 tool; never a crash), an output either complete or absent, no stale output
# of an older run left behind (removed, as gcc does), nothing left in TMPDIR,
# temporary files in a private directory.
# Waiting for a fake tool to start is bounded by a generous timeout; nothing
# here measures speed.
set -u
ufnc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
here=$(cd "$(dirname "$0")" && pwd)
fake=$here/fake-tool
real_cc=$(command -v "${CC:-cc}")
pass=0 fail=0 failed=""

ok() { pass=$((pass + 1)); printf 'ok    %s\n' "$1"; }
bad() {
    fail=$((fail + 1)); failed="$failed $1"
    printf 'FAIL  %s: %s\n' "$1" "$2"
    [ -f "$d/err" ] && cut -c1-160 "$d/err" | sed 's/^/      /' | head -5
}

rm -rf "$work"
mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd)

# A fresh case directory $d: tmp/ (TMPDIR), out/, log/ (what the fake saw).
fresh() {
    d=$work/$1
    mkdir -p "$d/tmp" "$d/out" "$d/log"
    cat > "$d/m.ufn" <<'EOF'
from numba import vectorize


@vectorize(['float32(float32)', 'float64(float64)'])
def twice(x):
    return x * 2
EOF
}

# Old outputs, to see that a failed build removes them: after a failure they
# would be stale (older than the source) and linked by mistake.
old_outputs() {
    printf 'old object' > "$d/out/m.o"
    printf 'old header' > "$d/out/m.h"
    printf 'old deps' > "$d/out/m.d"
}

# What a failed build may leave: nothing in TMPDIR, no object or header (new
# or old), no temporary next to them.  Prints what is wrong.
after_failure() {
    left=$(find "$d/tmp" -mindepth 1 | head -3)
    [ -n "$left" ] && echo "left in TMPDIR: $left"
    [ -e "$d/out/m.o" ] && echo "an object is left ($(head -c 10 "$d/out/m.o"))"
    [ -e "$d/out/m.h" ] && echo "a header is left ($(head -c 10 "$d/out/m.h"))"
    extra=$(ls -A "$d/out" | grep -v '^m\.[ohd]$' | head -3)
    [ -n "$extra" ] && echo "new files next to the outputs: $extra"
}

# status STATUS WANT: a plain exit status, never a crash
status_is() {
    [ "$1" -eq "$2" ] && return 0
    [ "$1" -ge 128 ] && echo "killed by signal $(($1 - 128))" || echo "exit status $1, expected $2"
    return 1
}

# ---- tools that fail -----------------------------------------------------------------------------

tool_fails() { # NAME MODE TOOL-OPTIONS...
    name=$1 mode=$2
    shift 2
    fresh "$name"
    old_outputs
    TMPDIR=$d/tmp FAKE_MODE=$mode FAKE_LOG=$d/log "$ufnc" "$d/m.ufn" "$@" -o "$d/out/m.o" -MD 2> "$d/err"
    st=$?
    why=$(status_is $st 3; after_failure)
    [ -e "$d/out/m.d" ] && why="$why; the dependency file is left"
    grep -q 'failed' "$d/err" || why="$why; no message saying the tool failed"
    mode_seen=$(cat "$d/log/cwd-mode" 2>/dev/null)
    [ "$mode_seen" = 700 ] || why="$why; the tool ran in a directory of mode '$mode_seen', not 700"
    case $(cat "$d/log/cwd" 2>/dev/null) in
        "$d/tmp/"*) ;;
        *) why="$why; the tool did not run inside TMPDIR" ;;
    esac
    if [ -z "$why" ]; then ok "$name"; else bad "$name" "$why"; fi
}

tool_fails nvcc-fails fail --nvcc="$fake" --arch=sm_80
tool_fails cc-fails fail --target=host --cc="$fake"
tool_fails cc-writes-half-an-object partial --target=host,sim --cc="$fake"
tool_fails nvcc-writes-half-a-fatbin partial --nvcc="$fake" --arch=sm_80 --cc="$real_cc"

# No old outputs: none appear either.
fresh cc-fails-no-old-output
TMPDIR=$d/tmp FAKE_MODE=fail FAKE_LOG=$d/log "$ufnc" "$d/m.ufn" --target=host --cc="$fake" -o "$d/out/m.o" 2> "$d/err"
why=$(status_is $? 3; after_failure)
if [ -z "$why" ]; then ok cc-fails-no-old-output; else bad cc-fails-no-old-output "$why"; fi

# A tool that is not there.
fresh cc-missing
old_outputs
TMPDIR=$d/tmp "$ufnc" "$d/m.ufn" --target=host --cc="$d/no-such-cc" -o "$d/out/m.o" 2> "$d/err"
why=$(status_is $? 3; after_failure)
[ "$(cat "$d/out/m.d")" = "old deps" ] || why="$why; the dependency file of another run (no -MD here) was touched"
grep -q 'no-such-cc' "$d/err" || why="$why; the message does not name the tool"
if [ -z "$why" ]; then ok cc-missing; else bad cc-missing "$why"; fi

# An error in the source removes the outputs of the last good build too.
fresh source-error-removes-old-outputs
old_outputs
printf 'from numba import vectorize\n\n@vectorize(["float32(float32)"])\ndef f(x):\n    return y\n' > "$d/bad.ufn"
TMPDIR=$d/tmp "$ufnc" "$d/bad.ufn" --target=host -o "$d/out/m.o" -MD 2> "$d/err"
why=$(status_is $? 1; after_failure)
[ -e "$d/out/m.d" ] && why="$why; the dependency file is left"
if [ -z "$why" ]; then ok source-error-removes-old-outputs; else bad source-error-removes-old-outputs "$why"; fi

# A dependency file sent to a FIFO (as to /dev/null, which a test must not
# risk): written into it, never replaced by a regular file or removed.
fresh depfile-to-a-fifo
mkfifo "$d/out/deps"
cat "$d/out/deps" > "$d/read-from-fifo" &
reader=$!
TMPDIR=$d/tmp "$ufnc" "$d/m.ufn" --target=host -o "$d/out/m.o" -MD -MF "$d/out/deps" 2> "$d/err"
why=$(status_is $? 0)
[ -p "$d/out/deps" ] || { why="$why; the FIFO was replaced"; kill $reader 2>/dev/null; }
wait $reader
grep -q 'm\.h: ' "$d/read-from-fifo" || why="$why; the rule did not go through the FIFO"
head -c 4 "$d/out/m.o" 2>/dev/null | grep -q ELF || why="$why; no object"
if [ -z "$why" ]; then ok depfile-to-a-fifo; else bad depfile-to-a-fifo "$why"; fi

# ---- signals during a build ------------------------------------------------------------------------

# wait_for FILE: up to 60 s (the tool must start; a loaded machine is slow)
wait_for() {
    i=0
    while [ ! -f "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    [ -f "$1" ]
}

# gone PID: the process has ended (up to 20 s)
gone() {
    i=0
    while kill -0 "$1" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
    ! kill -0 "$1" 2>/dev/null
}

signal_case() { # NAME SIGNAL STATUS TOOL-OPTIONS...
    name=$1 sig=$2 want=$3
    shift 3
    fresh "$name"
    old_outputs
    TMPDIR=$d/tmp FAKE_MODE=hang FAKE_LOG=$d/log "$ufnc" "$d/m.ufn" "$@" -o "$d/out/m.o" -MD 2> "$d/err" &
    pid=$!
    if ! wait_for "$d/log/started"; then
        kill -KILL $pid 2>/dev/null
        bad "$name" "the fake tool never started"
        return
    fi
    tool=$(cat "$d/log/started")
    kill -"$sig" $pid
    wait $pid 2>/dev/null
    st=$?
    why=""
    [ $st -eq "$want" ] || why="ufnc ended with status $st, expected $want (killed by SIG$sig)"
    if ! gone "$tool"; then
        why="$why; the tool (pid $tool) still runs after ufnc ended"
        kill -KILL "$tool" 2>/dev/null
    fi
    why="$why$(after_failure)"
    [ -e "$d/out/m.d" ] && why="$why; the dependency file is left"
    if [ -z "$why" ]; then ok "$name"; else bad "$name" "$why"; fi
}

signal_case sigterm-during-nvcc TERM 143 --nvcc="$fake" --arch=sm_80
signal_case sigint-during-cc INT 130 --target=host --cc="$fake"
signal_case sighup-during-cc HUP 129 --target=host,sim --cc="$fake"

# ---- paths -----------------------------------------------------------------------------------------

fresh paths-with-spaces
mkdir -p "$d/my dir" "$d/out dir" "$d/tmp dir"
cp "$d/m.ufn" "$d/my dir/my mod.ufn"
(cd "$d" && TMPDIR="$d/tmp dir" "$ufnc" "my dir/my mod.ufn" --target=host,sim -o "out dir/x y.o" -MD 2> "$d/err")
st=$?
why=$(status_is $st 0)
head -c 4 "$d/out dir/x y.o" 2>/dev/null | grep -q ELF || why="$why; no object"
grep -q 'twice' "$d/out dir/x y.h" 2>/dev/null || why="$why; no header"
grep -q 'my\\ dir/my\\ mod.ufn' "$d/out dir/x y.d" 2>/dev/null || why="$why; the dependency file does not escape the spaces"
[ -z "$(ls -A "$d/tmp dir")" ] || why="$why; files left in TMPDIR"
if [ -z "$why" ]; then ok paths-with-spaces; else bad paths-with-spaces "$why"; fi

fresh output-directory-missing
TMPDIR=$d/tmp "$ufnc" "$d/m.ufn" --target=host -o "$d/no/such/dir/m.o" 2> "$d/err"
why=$(status_is $? 3; after_failure)
grep -q 'cannot write' "$d/err" || why="$why; no 'cannot write' message"
if [ -z "$why" ]; then ok output-directory-missing; else bad output-directory-missing "$why"; fi

fresh tmpdir-missing
TMPDIR=$d/no-such-tmp "$ufnc" "$d/m.ufn" --target=host -o "$d/out/m.o" 2> "$d/err"
why=$(status_is $? 3; after_failure)
grep -q 'temporary directory' "$d/err" || why="$why; no message about the temporary directory"
if [ -z "$why" ]; then ok tmpdir-missing; else bad tmpdir-missing "$why"; fi

# ---- inputs ----------------------------------------------------------------------------------------

# source_case NAME WANT-STATUS MESSAGE-REGEX FILE [OPTIONS]: compile FILE to a .c
source_case() {
    name=$1 want=$2 msg=$3 file=$4
    shift 4
    TMPDIR=$d/tmp "$ufnc" "$file" -o "$d/out/m.c" "$@" > "$d/out.txt" 2> "$d/err"
    st=$?
    why=$(status_is $st "$want")
    if [ -n "$msg" ] && ! grep -Eq "$msg" "$d/err"; then why="$why; no message matching '$msg'"; fi
    [ "$want" -ne 0 ] && [ -e "$d/out/m.c" ] && why="$why; an output was written"
    if [ -z "$why" ]; then ok "$name"; else bad "$name" "$why"; fi
    rm -f "$d/out/m.c"
}

fresh inputs
source_case missing-input 1 'cannot read .*No such file' "$d/nope.ufn"
mkdir -p "$d/dir.ufn"
source_case directory-input 1 'cannot read .*Is a directory' "$d/dir.ufn"
: > "$d/empty.ufn"
source_case empty-input 0 '' "$d/empty.ufn"
truncate -s 65M "$d/huge.ufn"
source_case huge-input 1 'cannot read .*(too large|File too large)' "$d/huge.ufn"
rm -f "$d/huge.ufn"

# Unreadable: root reads anything, so run ufnc as nobody when we are root.
cp "$d/m.ufn" "$d/secret.ufn"
chmod 000 "$d/secret.ufn"
if [ "$(id -u)" != 0 ]; then
    source_case unreadable-input 1 'cannot read .*Permission denied' "$d/secret.ufn"
elif command -v setpriv >/dev/null 2>&1; then
    chmod 777 "$d" "$d/out"
    setpriv --reuid=65534 --regid=65534 --clear-groups "$ufnc" "$d/secret.ufn" -o "$d/out/m.c" 2> "$d/err"
    st=$?
    why=$(status_is $st 1)
    grep -q 'Permission denied' "$d/err" || why="$why; no 'Permission denied'"
    if [ -z "$why" ]; then ok unreadable-input; else bad unreadable-input "$why"; fi
else
    echo "skip  unreadable-input: running as root without setpriv"
fi

# ---- deep nesting and long lines -----------------------------------------------------------------------

# repeat N TEXT: TEXT N times, no newline
repeat() { awk -v n="$1" -v t="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", t }'; }

kernel_with() { # BODY-EXPRESSION -> $d/k.ufn
    {
        printf 'from numba import vectorize\n\n\n@vectorize(["float64(float64)"])\ndef f(x):\n    return '
        cat
        printf '\n'
    } > "$d/k.ufn"
}

fresh nesting
{ repeat 100000 '('; printf 'x'; repeat 100000 ')'; } | kernel_with
source_case deep-parentheses 1 'error: .*(nest|deep|tall|exhausted|limit)' "$d/k.ufn"
{ repeat 100000 '['; printf 'x'; repeat 100000 ']'; } | kernel_with
source_case deep-brackets 1 'error: ' "$d/k.ufn"
{ repeat 100000 '-'; printf 'x'; } | kernel_with
source_case deep-unary-minus 1 'error: .*(nest|deep|tall|exhausted|limit)' "$d/k.ufn"
{ printf 'x'; repeat 200000 ' + x'; } | kernel_with
source_case long-sum 1 'error: .*(nest|deep|tall|exhausted|limit)' "$d/k.ufn"
{ printf 'x'; repeat 200000 ' ** x'; } | kernel_with
source_case long-power-chain 1 'error: .*(nest|deep|tall|exhausted|limit)' "$d/k.ufn"
{ repeat 100000 'f('; printf 'x'; repeat 100000 ')'; } | kernel_with
source_case deep-calls 1 'error: ' "$d/k.ufn"
# just under the limits (200 brackets, expressions 1000 high): the whole
# pipeline recurses that deep, and must cope
{ repeat 199 '('; printf 'x + 1'; repeat 199 ')'; } | kernel_with
source_case parentheses-under-the-limit 0 '' "$d/k.ufn"
{ printf 'x'; repeat 900 ' * x'; } | kernel_with
source_case product-under-the-limit 0 '' "$d/k.ufn"
# deep blocks
awk 'BEGIN { print "from numba import vectorize\n\n\n@vectorize([\"float64(float64)\"])\ndef f(x):";
             for (i = 1; i <= 300; i++) printf "%" (4 * i) "sif x > %d:\n", "", i;
             printf "%" (4 * 301) "sreturn x\n", ""; print "    return x" }' > "$d/k.ufn"
source_case deep-blocks 1 'error: .*(indent|deep|nest|limit)' "$d/k.ufn"

fresh long-lines
# a 4 MB docstring on one line: valid
{ printf 'from numba import vectorize\n\n\n@vectorize(["float64(float64)"])\ndef f(x):\n    """'
  repeat 100000 'forty bytes of documentation, repeated. '; printf '"""\n    return x\n'; } > "$d/k.ufn"
source_case long-docstring-line 0 '' "$d/k.ufn"
# a 4 MB line with an error on it: the message and the line still come
{ printf 'from numba import vectorize\n\n\n@vectorize(["float64(float64)"])\ndef f(x):\n    return y  #'
  repeat 100000 ' forty bytes of comment, again and again'; printf '\n'; } > "$d/k.ufn"
source_case long-line-with-error 1 "error: .*'y'" "$d/k.ufn"
# a 1 MB name
{ printf 'from numba import vectorize\n\n\n@vectorize(["float64(float64)"])\ndef f(x):\n    return '
  repeat 1000000 'a'; printf '\n'; } > "$d/k.ufn"
source_case long-name 1 'error: ' "$d/k.ufn"
# 20 MB of comments before a valid kernel
{ repeat 500000 '# a comment line of forty bytes, again.\n'; cat "$d/../nesting/m.ufn"; } > "$d/k.ufn"
source_case many-comment-lines 0 '' "$d/k.ufn"

fresh bytes
printf 'from numba import vectorize\n\n\n@vectorize(["float64(float64)"])\ndef f(x):\n    y\377\376 = x\n    return x\n' > "$d/k.ufn"
source_case invalid-utf8-in-a-name 1 'error: ' "$d/k.ufn"
printf 'from numba import vectorize\n\n\n@vectorize(["float64(float64)"])\ndef f(x):\n    """\377\376"""\n    return x\n' > "$d/k.ufn"
source_case invalid-utf8-in-a-string 1 'error: .*UTF-8' "$d/k.ufn"
printf 'from numba import vectorize\n# \377\376\n\n@vectorize(["float64(float64)"])\ndef f(x):\n    return x\n' > "$d/k.ufn"
source_case invalid-utf8-in-a-comment 1 'error: .*UTF-8' "$d/k.ufn"
printf 'from numba import vectorize\n\n\n@vectorize(["float64(float64)"])\ndef f(x):\n    return x\000 + 1\n' > "$d/k.ufn"
source_case nul-byte 1 'error: .*(0x00|NUL|null)' "$d/k.ufn"
printf 'from numba import vectorize\n\n\n@vectorize(["float64(float64)"])\ndef f(x):\n    return "\000"\n' > "$d/k.ufn"
source_case nul-byte-in-a-string 1 'error: ' "$d/k.ufn"
# fixed "random" bytes: the same input every run
LC_ALL=C awk 'BEGIN { srand(42); for (i = 0; i < 100000; i++) printf "%c", int(rand() * 256) }' > "$d/k.ufn"
TMPDIR=$d/tmp "$ufnc" "$d/k.ufn" -o "$d/out/m.c" > /dev/null 2> "$d/err"
st=$?
if [ $st -eq 1 ]; then ok random-bytes; else bad random-bytes "status $st (input kept in $d/k.ufn)"; fi

echo "compiler robustness: $pass passed, $fail failed${failed:+ (${failed# })}"
[ $fail -eq 0 ]
