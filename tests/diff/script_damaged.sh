#!/bin/bash
# script_damaged.sh - a capture cut short: `perfsift script` prints every
# sample read before the damage (records waiting in the time-ordering queue
# included), then fails with exit status 1 and a message naming the offset.
# cpuhog-fp.data is one thread in time order, so the output of each cut is
# a prefix of the output of the whole file.
source "$(dirname "$0")/lib.sh"
F="$SHARED/corpus/captures/cpuhog-fp.data"
# no symbols: the cut also loses the build-id table, which changes them
OPTS="-F comm,tid,time,event,ip,period"
env -i PATH="$PATH" HOME="$TMPD/home" "$PERFSIFT" script -q $OPTS "$F" > "$TMPD/full.txt"
for cut in 3000 20000 50000; do
    head -c $cut "$F" > "$TMPD/cut.data"
    env -i PATH="$PATH" HOME="$TMPD/home" "$PERFSIFT" script -q $OPTS "$TMPD/cut.data" \
        > "$TMPD/cut.txt" 2> "$TMPD/cut.err"
    rc=$?
    n=$(grep -c . "$TMPD/cut.txt")
    if [ $rc -eq 1 ] && grep -q 'offset 0x' "$TMPD/cut.err" && [ "$n" -gt 0 ] &&
       cmp -s "$TMPD/cut.txt" <(head -c "$(stat -c %s "$TMPD/cut.txt")" "$TMPD/full.txt"); then
        pass "script-damaged cut at $cut: $n lines before the error, exit 1, offset named"
    else
        fail "script-damaged cut at $cut: rc $rc, $n lines, $(head -1 "$TMPD/cut.err")"
    fi
done
finish
