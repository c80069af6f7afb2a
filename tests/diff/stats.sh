#!/bin/bash
# stats.sh - `perfsift info --stats` equals `perf report --stats`, byte for
# byte, on every capture perf reads without an error message. Where perf
# fails or misreads (its stderr says so), perf is no oracle: perfsift must
# then read the capture (exit 0), or refuse it with a message naming the
# offset (exit 1); checked against the upstream counts where we know them.
source "$(dirname "$0")/lib.sh"
require_perf
PERF_FAIL='incompatible|failed to process|decompress|unexpected end|bad event|non matching|broken or missing|cannot find event|data size field is 0|Segmentation|error'

# Upstream facts (shared/external/README.md): records perfsift must count.
declare -A expect=(
    [probe.data.stream]="SAMPLE events:          1|MMAP events:        112|MMAP2 events:          8"
    [pipe-z.data]="SAMPLE events:        137"
)

while read -r f; do
    n=$(basename "$f")
    perf_run report --stats -i "$f" > "$TMPD/perf.txt" 2> "$TMPD/perf.err"
    prc=$?
    "$PERFSIFT" info --stats -q "$f" > "$TMPD/ours.txt" 2> "$TMPD/ours.err"
    orc=$?
    if [ $prc -eq 0 ] && ! grep -qiE "$PERF_FAIL" "$TMPD/perf.err"; then
        if cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt"; then
            pass "stats $n"
        else
            fail "stats $n"; diff "$TMPD/perf.txt" "$TMPD/ours.txt" | head -8
        fi
        continue
    fi
    # perf is no oracle here
    if [ $orc -eq 0 ]; then
        ok=1
        if [ -n "${expect[$n]:-}" ]; then
            IFS='|' read -ra want <<< "${expect[$n]}"
            for w in "${want[@]}"; do grep -qF "$w" "$TMPD/ours.txt" || ok=0; done
        fi
        [ $ok = 1 ] && pass "stats $n (perf fails: $(grep -m1 -iE "$PERF_FAIL" "$TMPD/perf.err" | cut -c1-60); perfsift reads it)" \
                    || fail "stats $n: upstream counts not matched"
    elif [ $orc -eq 1 ] && grep -q 'offset 0x' "$TMPD/ours.err"; then
        pass "stats $n (perf fails; perfsift: $(head -c 150 "$TMPD/ours.err"))"
    else
        fail "stats $n: perfsift exit $orc: $(head -c 300 "$TMPD/ours.err")"
    fi
done < <(all_captures)
# perf's --stats takes --symfs and ignores it (no symbol is resolved): so
# does info, so a 'perf report --stats --symfs D' line ports unchanged.
f=$SHARED/corpus/captures/cpuhog-fp.data
perf_run report --stats --symfs "$TMPD/nowhere" -i "$f" > "$TMPD/perf.txt" 2>/dev/null
if "$PERFSIFT" info --stats --symfs "$TMPD/nowhere" "$f" > "$TMPD/ours.txt" &&
   cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt"; then
    pass "stats --symfs accepted and ignored"
else
    fail "stats --symfs: perfsift refused it or differs"
fi
finish
