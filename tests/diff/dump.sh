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
# DUMP_STRICT_PIPE_OFFSETS=1: fail pipe captures on the offset convention
# (perf counts from the end of the pipe header, perfsift from the file start).
source "$(dirname "$0")/lib.sh"
require_perf

# The big-endian rewrites in corpus/endian hold the same records at the same
# offsets as their little-endian twins (corpus/endian/README.md), and perf
# 6.1 mis-swaps them: it misreads other-endian pipe streams, and leaves
# MMAP2 prot/flags and EVENT_UPDATE scale unswapped. perf's dump of the twin
# is the reference for these.
twins=()
for be in "$SHARED"/corpus/endian/*_be.data; do
    twins+=(--reference-for "$(basename "$be")" "${be%_be.data}.data")
done

caps=()
while read -r f; do caps+=("$f"); done < <(all_captures)

python3 "$here/dump_compare.py" --perfsift "$PERFSIFT" --name-prefix "dump " \
    --jobs "${DUMP_JOBS:-$(nproc 2>/dev/null || echo 2)}" \
    --max-records "${DUMP_MAX_RECORDS:-0}" ${DUMP_ALL:+--all} \
    ${DUMP_STRICT_PIPE_OFFSETS:+--strict-pipe-offsets} \
    --reference-why "the little-endian twin: perf 6.1 mis-swaps other-endian captures" \
    "${twins[@]}" "${caps[@]}" > "$TMPD/dump.out"
rc=$?
cat "$TMPD/dump.out"
awk '/^TOTALS/ { for (i = 3; i <= NF; i++) { split($i, kv, "="); t[kv[1]] += kv[2] } }
     END { printf "dump totals: perf records %d, perfsift records %d, compared %d, fields %d, differences %d\n",
                  t["perf_records"], t["perfsift_records"], t["compared"], t["fields"], t["diffs"] }' "$TMPD/dump.out"
nfail=$(grep -c '^FAIL' "$TMPD/dump.out")
if [ $rc -ne 0 ] && [ "$nfail" -eq 0 ]; then
    fail "dump: dump_compare.py exit $rc"
fi
finish
