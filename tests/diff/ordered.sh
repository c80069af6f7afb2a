#!/bin/bash
# ordered.sh - `--ordered` delivers samples in the order perf delivers them:
# the (time, tid) sequence of SAMPLE records from `perfsift dump --ordered`
# equals the sequence `perf script -F tid,time --ns` prints, on the corpus
# captures (reversed and shuffled hand-made files included) perf scripts
# without an error.
source "$(dirname "$0")/lib.sh"
require_perf
# Under SANITIZE every other corpus capture (the hand-made order cases all):
# perf's side is most of the time, and the plain run compares them all.
i=0
for f in "$SHARED"/corpus/captures/*.data "$SHARED"/corpus/edge/w_*.data; do
    n=$(basename "$f")
    i=$((i + 1))
    [ "${SCRIPT_SETS:-}" = sanitize ] && [ "${f#*/edge/}" = "$f" ] && [ $((i % 2)) = 0 ] && continue
    # stat captures have no samples; perf misreads pipe-tracepoints; perf
    # script splits sample-read-group's group samples (a script concern)
    case $n in stat-*|pipe-tracepoints.data|sample-read-group.data) continue;; esac
    perf_run script -i "$f" -F tid,time --ns > "$TMPD/perf.txt" 2> "$TMPD/perf.err" || continue
    grep -qiE 'error|failed|unexpected|incompatible' "$TMPD/perf.err" && continue
    python3 -c '
import sys
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 2 and f[0].isdigit() and f[1].endswith(":") and "." in f[1]:
        s, ns = f[1].rstrip(":").split(".")
        print(f[0], int(s) * 1000000000 + int(ns))' "$TMPD/perf.txt" > "$TMPD/perf.seq"
    "$PERFSIFT" dump --json --ordered -q --no-stack "$f" 2> "$TMPD/ours.err" |
        python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    # samples with tid -1 are left out on both sides: perf prints them as
    # "-1", which the perf-side parser above skips (it takes numeric tids)
    if r["type"] == "SAMPLE" and "time" in r and r.get("tid") != -1:
        print(r["tid"], r["time"])' > "$TMPD/ours.seq"
    if [ -s "$TMPD/perf.seq" ] && cmp -s "$TMPD/perf.seq" "$TMPD/ours.seq"; then
        pass "ordered $n ($(wc -l < "$TMPD/ours.seq") samples)"
    elif [ ! -s "$TMPD/perf.seq" ]; then
        continue
    else
        fail "ordered $n"; diff "$TMPD/perf.seq" "$TMPD/ours.seq" | head -4
    fi
done
finish
