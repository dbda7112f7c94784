#!/bin/sh
# tools/check-cycles.sh OBJECT... - are the calls between these files one-way?
#
# Reads the symbols each object defines and uses (nm), draws an arrow from a
# file to every other file whose function or variable it uses, and fails,
# listing the arrows of each cycle, when the files call each other in a
# circle (directly or through others).  Works on any set of objects:
#   tools/check-cycles.sh build/compiler/*.o
#   tools/check-cycles.sh $(find build/runtime -name '*.o')
# `make check-layers` runs it on the compiler and on the runtime.
set -eu
[ $# -gt 0 ] || { echo "usage: $0 OBJECT..." >&2; exit 2; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
for o in "$@"; do
    f=$(basename "$o" .o)
    nm --defined-only "$o" | awk -v f="$f" '$2 ~ /^[TDBRVW]$/ { print $3, f }'
done | sort -u >"$tmp/defs"
for o in "$@"; do
    f=$(basename "$o" .o)
    nm -u "$o" | awk -v f="$f" '{ print $2, f }'
done | sort -u >"$tmp/uses"
# "user definer symbol" for every use of another file's symbol
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $2, $3, $1 }' | sort -u >"$tmp/edges"
awk '{ print $1, $2 }' "$tmp/edges" | sort -u >"$tmp/pairs"
# tsort says whether there is a cycle; if there is, a transitive closure
# (Floyd-Warshall over the few dozen files) finds the arrows that lie on one:
# a -> b is on a cycle exactly when b reaches a.
if tsort "$tmp/pairs" >/dev/null 2>&1; then
    echo "no cycles among $# files ($(wc -l <"$tmp/pairs") caller-callee pairs)"
    exit 0
fi
echo "calls go round in circles among these files (caller -> callee: symbols):"
awk 'NR == FNR { if (!($1 in id)) { id[$1] = ++n; name[n] = $1 }
                 if (!($2 in id)) { id[$2] = ++n; name[n] = $2 }
                 r[id[$1], id[$2]] = 1; next }
     FNR == 1 { for (k = 1; k <= n; k++) for (i = 1; i <= n; i++) if (r[i, k])
                    for (j = 1; j <= n; j++) if (r[k, j]) r[i, j] = 1 }
     r[id[$2], id[$1]] { e = $1 " -> " $2; if (!(e in seen)) { seen[e] = 1; order[++m] = e }
                         syms[e] = syms[e] " " $3 }
     END { for (k = 1; k <= m; k++) print "  " order[k] ":" syms[order[k]] }' \
    "$tmp/pairs" "$tmp/edges"
exit 1
