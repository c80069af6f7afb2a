#!/bin/bash
# header.sh - `perfsift info --header` equals `perf report --header-only -I`,
# byte for byte, on every capture perf reads without an error message
# (perf's output is made now, on the same file, so '# captured on' - the
# file's mtime - agrees too); `perfsift script --header-only` equals
# `perf script --header-only` (features in brief without -I), and
# script --header / -I on a few.
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
    # script --header-only: without -I, the topology and cache features
    # only say they are there
    perf_run script --header-only -i "$f" > "$TMPD/perf.txt" 2> /dev/null
    prc=$?
    TZ=UTC "$PERFSIFT" script --header-only -q "$f" > "$TMPD/ours.txt" 2> "$TMPD/ours.err"
    if [ $prc -ne 0 ] && grep -q '^# missing features' "$TMPD/ours.txt"; then
        pass "header script --header-only $n (perf script refuses it, exit $prc; perfsift reads it)"
    elif cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt"; then
        pass "header script --header-only $n"
    else
        fail "header script --header-only $n"; diff "$TMPD/perf.txt" "$TMPD/ours.txt" | head -6
    fi
done < <(all_captures)
# script --header: the header, then the samples; a pipe stream's features
# as they arrive (and with -I alone, only those)
for spec in "cpuhog-fp|--header" "pipe-mode|--header" "pipe-mode|-I -G" "sched-tp-syswide|--header -I"; do
    f=$SHARED/corpus/captures/${spec%%|*}.data opts=${spec#*|}
    # shellcheck disable=SC2086
    perf_run script $opts -i "$f" > "$TMPD/perf.txt" 2> /dev/null
    # shellcheck disable=SC2086
    TZ=UTC "$PERFSIFT" script -q $opts "$f" > "$TMPD/ours.txt" 2> "$TMPD/ours.err"
    if [ "$(grep -c '^# ' "$TMPD/perf.txt")" -gt 10 ] && cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt"; then
        pass "header script $opts $(basename "$f")"
    else
        fail "header script $opts $(basename "$f")"; diff "$TMPD/perf.txt" "$TMPD/ours.txt" | head -6
    fi
done
finish
