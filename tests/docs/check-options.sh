#!/bin/sh
# check-options.sh - ufnc(1) describes exactly the options of `ufnc --help`.
#
#   check-options.sh UFNC PAGE
#
# The options of --help are the first column of its lines that start with
# "  -"; those of the page are the tags of its .TP paragraphs under OPTIONS.
# An option that --help shows and the page lacks, or the other way round,
# fails the check.
ufnc=$1 page=$2
tmp=${TMPDIR:-/tmp}/check-options.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT

# "  -MD, -MMD          write ..." -> -MD -MMD; "--arch=LIST" -> --arch;
# "-O0 .. -O3" is four options; "-Wno-NAME" is -Wno- (the page writes
# -Wno-\fIname\fP).  -h, the short --help, is not in --help.
{ "$ufnc" --help | awk '/^  -/ { sub(/^  /, ""); sub(/   .*/, ""); print }' |
    sed 's/-O0 \.\. -O3/-O0 -O1 -O2 -O3/; s/NAME//g' | grep -o -- '-[-A-Za-z0-9]*'; echo -h; } |
    sort -u >"$tmp/help"

# The line after each .TP between .SH OPTIONS and the next .SH, unescaped.
awk '/^\.SH / { on = ($2 == "OPTIONS") } on && tag { print; tag = 0 } on && /^\.TP/ { tag = 1 }' "$page" |
    sed 's/\\-/-/g' | grep -o -- '-[-A-Za-z0-9]*' | sed 's/=$//' | sort -u >"$tmp/page"

missing=$(comm -23 "$tmp/help" "$tmp/page" | tr '\n' ' ')
extra=$(comm -13 "$tmp/help" "$tmp/page" | tr '\n' ' ')
if [ -n "$missing" ] || [ -n "$extra" ]; then
    echo "FAIL  $page:${missing:+ options of --help it lacks: $missing}${extra:+; options --help lacks: $extra}"
    exit 1
fi
echo "ok    $page describes the $(wc -l <"$tmp/help") options of ufnc --help"
