#!/bin/bash
# header.sh - `perfsift info --header` equals `perf report --header-only -I`,
# byte for byte, on every capture perf reads without an error message
# (perf's output is made now, on the same file, so '# captured on' - the
# file's mtime - agrees too).
source "$(dirname "$0")/lib.sh"
require_perf
PERF_FAIL='incompatible|failed to process|decompress|unexpected end|bad event|non matching|broken or missing|cannot find event|data size field is 0|Segmentation|error'

while read -r f; do
    n=$(basename "$f")
    perf_run report --header-only -I -i "$f" > "$TMPD/perf.txt" 2> "$TMPD/perf.err"
    prc=$?
    # perf 6.1 prints '(null)' everywhere for attrs it cannot read (VER8)
    if [ $prc -ne 0 ] || grep -qiE "$PERF_FAIL" "$TMPD/perf.err" ||
       grep -q '^# hostname : (null)' "$TMPD/perf.txt"; then
        "$PERFSIFT" info --header -q "$f" > "$TMPD/ours.txt" 2> "$TMPD/ours.err"
        orc=$?
        if [ $orc -le 1 ] && [ -s "$TMPD/ours.txt" -o $orc -eq 1 ]; then
            pass "header $n (perf fails; perfsift exit $orc)"
        else
            fail "header $n: perfsift exit $orc: $(head -c 200 "$TMPD/ours.err")"
        fi
        continue
    fi
    TZ=UTC "$PERFSIFT" info --header -q "$f" > "$TMPD/ours.txt" 2> "$TMPD/ours.err"
    if cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt"; then
        pass "header $n"
    else
        fail "header $n"; diff "$TMPD/perf.txt" "$TMPD/ours.txt" | head -6
    fi
done < <(all_captures)
finish
