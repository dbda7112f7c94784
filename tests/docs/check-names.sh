#!/bin/sh
# check-names.sh - ufn(7) lists exactly the functions, constants and type
# names the compiler knows.
#
#   check-names.sh [TOP]
#
# The lists in man/ufn.7 stand between `.\" names: SECTION` and
# `.\" names: end` comments.  In each, every name of the compiler's table must
# appear, and (but in the prose of the built-ins) every name the page sets in
# bold at the start of a line (.B sqrt, .BR sqrt , .BI log( x ...) must be in
# the table:
#   math, cmath   compiler/math.def (MATH/CMATH rows, CONST, CCONST)
#   numpy         the np.* names of compiler/builtins.c, constants, type names
#   builtins      the Python built-ins of compiler/builtins.c
#   types         the type names and aliases of compiler/types.c
top=${1:-.}
page=$top/man/ufn.7
def=$top/compiler/math.def
tmp=${TMPDIR:-/tmp}/check-names.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT

# The rows of math.def: MACRO(name, ...) at the start of a line.
rows() { sed -n "s/^$1(\([a-z0-9_]*\),.*/\1/p" "$def" | sort -u; }
rows MATH >"$tmp/math"
rows CONST >>"$tmp/math"
{ rows CMATH; rows CONST; rows CCONST; } | sort -u >"$tmp/cmath"
sort -u -o "$tmp/math" "$tmp/math"

# compiler/builtins.c: {"abs", B_ABS} and the numpy table {"arcsin", "asin"}.
grep -o '{"[a-z0-9_]*", B_[A-Z]*}' "$top/compiler/builtins.c" | sed 's/{"\([a-z0-9_]*\)".*/\1/' |
    sort -u >"$tmp/builtins"
grep -o '{"[a-z0-9]*", "[a-z0-9]*"}' "$top/compiler/builtins.c" | sed 's/{"\([a-z0-9]*\)".*/\1/' \
    >"$tmp/numpy"
grep -o '{"[a-z0-9_]*", TY_[A-Z0-9]*}' "$top/compiler/types.c" | sed 's/{"\([a-z0-9_]*\)".*/\1/' |
    sort -u >"$tmp/types"
# np.X also names the constants, abs, and the types (but bool and float_,
# which NumPy means otherwise); the page shows a few of the types.
printf '%s\n' pi e inf nan abs absolute bool_ float32 int16 >>"$tmp/numpy"
sort -u -o "$tmp/numpy" "$tmp/numpy"

# The text of a section of the page, and the names it sets in bold.
section() {
    awk -v s="$1" '
        $0 ~ "^\\.\\\\\" names: " s "$" { on = 1; next }
        /^\.\\" names: end$/ { on = 0 }
        on' "$page"
}
bold_names() {
    awk '/^\.(B|BR|BI) / {
            w = $2
            sub(/\($/, "", w)
            sub(/^np\./, "", w)
            if (w ~ /^[a-z_][a-z0-9_]*$/) print w
        }' | sort -u
}

st=0
for s in math cmath numpy builtins types; do
    if [ -z "$(section "$s")" ]; then
        echo "FAIL  ufn(7) has no '.\\\" names: $s' list"
        st=1
        continue
    fi
    section "$s" | sed 's/\\-/-/g' >"$tmp/$s.text"
    missing=$(while read -r n; do
        grep -q "\\(^\\|[^a-z0-9_]\\)$n\\([^a-z0-9_]\\|\$\\)" "$tmp/$s.text" || printf ' %s' "$n"
    done <"$tmp/$s")
    unknown=
    [ "$s" != builtins ] && unknown=$(bold_names <"$tmp/$s.text" | comm -23 - "$tmp/$s" | tr '\n' ' ')
    if [ -n "$missing" ] || [ -n "$unknown" ]; then
        echo "FAIL  ufn(7) $s list:${missing:+ missing$missing}${unknown:+; not in the compiler: $unknown}"
        st=1
    else
        echo "ok    ufn(7) $s list ($(wc -l <"$tmp/$s") names)"
    fi
done
exit $st
