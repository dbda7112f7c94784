#!/usr/bin/awk -f
# spills.awk -v spills=FILE LOG: ufnc's messages without its -Wspill
# warnings (each with its two lines of source and caret), which go to FILE.
# mk/e2e.mk fails a clean module that prints anything else.
/\[-Wspill\]$/ { print > spills; skip = 2; next }
skip > 0 && /^ +[0-9]* \|/ { print > spills; skip--; next }
{ skip = 0; print }
