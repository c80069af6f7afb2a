#!/bin/bash
# unwind.sh - DWARF call chains (issue 4, in progress): the user frames
# perfsift unwinds from the captured registers and stack have the same
# addresses as perf's. perf also expands inlined callers of each frame (one
# more line with the same address, marked "(inlined)"), which perfsift does not do
# yet, so addresses are compared with repeated lines squeezed (uniq) on
# both sides; testdata/PERF-DIFFERENCES.md says where this stands.
source "$(dirname "$0")/lib.sh"
require_perf
cp -rn "$SHARED/corpus/symfs/." / 2>/dev/null
F="$SHARED/corpus/captures/cpuhog-dwarf.data"
perf_run script -F comm,tid,time,ip -i "$F" 2>/dev/null | sed "s/ (inlined)\$//" | uniq > "$TMPD/perf.txt"
env -i PATH="$PATH" HOME="$TMPD/home" "$PERFSIFT" script -q -F comm,tid,time,ip "$F" |
    uniq > "$TMPD/ours.txt"
frames=$(grep -c '^	' "$TMPD/perf.txt")
if [ "$frames" -gt 200 ] && cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt"; then
    pass "unwind cpuhog-dwarf.data: $frames frame addresses equal perf's"
else
    fail "unwind cpuhog-dwarf.data: $(diff "$TMPD/perf.txt" "$TMPD/ours.txt" | grep -c '^>') of $frames frames differ"
    diff "$TMPD/perf.txt" "$TMPD/ours.txt" | head -6
fi
finish
