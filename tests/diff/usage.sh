#!/bin/bash
# usage.sh - every command's command line: --help prints its usage on stdout
# and exits 0; an unknown option or a missing argument exits 2 with exactly
# two lines on stderr, getopt's naming the option and the --help hint (the
# hint used to follow a second, vaguer "unknown option" line).
source "$(dirname "$0")/lib.sh"
for c in info dump script folded json flamegraph diff report sqlite record; do
    if "$PERFSIFT" "$c" --help > "$TMPD/out" 2>&1 && grep -q "^usage: perfsift $c" "$TMPD/out"; then
        pass "usage $c --help"
    else
        fail "usage $c --help: $(head -c 200 "$TMPD/out")"
    fi
    "$PERFSIFT" "$c" --no-such-option > /dev/null 2> "$TMPD/err"
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l < "$TMPD/err")" -eq 2 ] &&
       grep -q "no-such-option" "$TMPD/err" && tail -1 "$TMPD/err" | grep -qx "Try 'perfsift $c --help'."; then
        pass "usage $c: an unknown option is named once, then the hint"
    else
        fail "usage $c --no-such-option: exit $rc: $(tr '\n' '|' < "$TMPD/err" | head -c 300)"
    fi
done
finish
