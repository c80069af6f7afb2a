#!/bin/bash
# dump.sh - `perfsift dump --json` agrees with `perf report -D` on every
# record of every capture: offsets, sizes, types, every sample field and
# every field perf prints for the other records, compared as values (see
# dump_compare.py). perf runs now, on a copy of each capture in a temporary
# directory. Captures perf refuses outright are skipped with perf's reason;
# where perf stops part-way, what it printed is compared.
#
# PERFSIFT: binary under test (default: the checkout's ./perfsift).
# DUMP_MAX_RECORDS: compare at most this many records per capture (0 = all).
# DUMP_JOBS: captures compared at once (default: number of CPUs).
# DUMP_ALL=1: list every difference, not one line per kind.
source "$(dirname "$0")/lib.sh"
require_perf
MAX=${DUMP_MAX_RECORDS:-0}
JOBS=${DUMP_JOBS:-$(nproc 2>/dev/null || echo 2)}
ALL=${DUMP_ALL:+--all}

# perf 6.1 misreads other-endian pipe streams (corpus/endian/README.md):
# for these its dump of the little-endian twin is the reference.
declare -A twin=(
    [pipe_be.data]=pipe.data
)

one() {     # capture -> dump_compare.py output in $TMPD/out/<n>
    local f=$1 n ref=()
    n=$(basename "$f")
    [ -n "${twin[$n]:-}" ] && ref=(--reference "$(dirname "$f")/${twin[$n]}")
    python3 "$here/dump_compare.py" --perfsift "$PERFSIFT" --name "dump $n" \
        --max-records "$MAX" $ALL "${ref[@]}" "$f" > "$TMPD/out/$2" 2>&1 ||
        grep -q '^FAIL' "$TMPD/out/$2" || echo "FAIL dump $n (dump_compare.py exit $?)" >> "$TMPD/out/$2"
}

mkdir -p "$TMPD/out"
i=0
while read -r f; do
    i=$((i + 1))
    one "$f" "$(printf %04d $i)" &
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
done < <(all_captures)
wait
cat "$TMPD"/out/*
awk '/^TOTALS/ { for (i = 3; i <= NF; i++) { split($i, kv, "="); t[kv[1]] += kv[2] } }
     /^PASS/ { p++ } /^FAIL/ { f++ } /^SKIP/ { s++ }
     END { printf "dump: %d passed, %d failed, %d skipped; perf records %d, compared %d, fields %d, differences %d\n",
                  p, f, s, t["perf_records"], t["compared"], t["fields"], t["diffs"] }' "$TMPD"/out/*
nfail=$(grep -c '^FAIL' "$TMPD"/out/* /dev/null | awk -F: '{ s += $2 } END { print s + 0 }')
finish
