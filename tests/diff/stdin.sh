#!/bin/bash
# stdin.sh - '-' reads standard input: pipe-mode streams through the rolling
# buffer (records straddling its edge copied), file-mode captures held in
# memory; either way the same records and counts as reading the file.
source "$(dirname "$0")/lib.sh"
for f in "$SHARED"/corpus/captures/{pipe-mode,inject-pipe,pipe-tracepoints,cpuhog-multi-id,compressed}.data \
         "$ROOT"/testdata/pipe-z.data "$SHARED"/corpus/endian/pipe_be.data \
         "$SHARED"/external/linux-perf-data/fibo.compressed2.pipe.data; do
    n=$(basename "$f")
    "$PERFSIFT" dump --json -q "$f" > "$TMPD/file.json" 2>/dev/null
    # a slow writer makes the reader see partial records at buffer edges
    python3 -c '
import sys, time
d = open(sys.argv[1], "rb").read()
for i in range(0, len(d), 4093):
    sys.stdout.buffer.write(d[i:i + 4093]); sys.stdout.flush()
    if i % 65536 < 4093: time.sleep(0.001)' "$f" | "$PERFSIFT" dump --json -q - > "$TMPD/pipe.json" 2>/dev/null
    if [ -s "$TMPD/file.json" ] && cmp -s "$TMPD/file.json" "$TMPD/pipe.json"; then
        pass "stdin $n ($(wc -l < "$TMPD/file.json") records)"
    else
        fail "stdin $n"; diff "$TMPD/file.json" "$TMPD/pipe.json" | head -3 | cut -c1-200
    fi
done
finish
