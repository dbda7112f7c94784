# match.awk - does a command's output match what the document shows?
#
#   awk -f match.awk EXPECTED ACTUAL
#
# Lines are compared whole, without trailing blanks, and blank lines at the
# end of either side do not count.  In the expected text a line that is
# only "..." matches any number of lines (none included), and "..." inside a
# line matches any text: documents use it for what changes from run to run
# (times, addresses, temporary names).  Exits 0 on a match; otherwise prints
# both sides and exits 1.

function rtrim(s) { sub(/[ \t\r]+$/, "", s); return s }

# One line against one pattern with "..." wildcards.
function linematch(p, a,    seg, n, i, pos, k, last) {
    if (index(p, "...") == 0)
        return p == a
    n = split(p, seg, /\.\.\./)
    if (substr(a, 1, length(seg[1])) != seg[1])
        return 0
    pos = length(seg[1]) + 1
    for (i = 2; i < n; i++) {
        k = index(substr(a, pos), seg[i])
        if (k == 0)
            return 0
        pos += k - 1 + length(seg[i])
    }
    last = seg[n]
    if (length(a) - pos + 1 < length(last))
        return 0
    return substr(a, length(a) - length(last) + 1) == last
}

FILENAME == ARGV[1] { want[++m] = rtrim($0); next }
{ got[++n] = rtrim($0) }

END {
    while (m > 0 && want[m] == "") m--
    while (n > 0 && got[n] == "") n--
    # ok[i, j]: want[i..m] matches got[j..n]; filled from the end.
    for (i = m + 1; i >= 1; i--)
        for (j = n + 1; j >= 1; j--) {
            if (i == m + 1)
                r = (j == n + 1)
            else if (want[i] ~ /^[ \t]*\.\.\.$/)
                r = ok[i + 1, j] || (j <= n && ok[i, j + 1])
            else
                r = j <= n && linematch(want[i], got[j]) && ok[i + 1, j + 1]
            ok[i, j] = r
        }
    if (ok[1, 1])
        exit 0
    print "    the document shows:"
    for (i = 1; i <= m; i++) print "      | " want[i]
    print "    the command printed:"
    for (j = 1; j <= n; j++) print "      | " got[j]
    exit 1
}
