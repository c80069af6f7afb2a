#!/bin/bash
# endian.sh - each big-endian rewrite in shared/corpus/endian decodes to
# exactly the same records as its little-endian twin (pipe mode too, where
# perf 6.1 itself is wrong): `perfsift dump --json` of X.data and X_be.data
# are equal record for record, and so are their --stats. Tracepoint RAW
# payloads stay in the producer's byte order (the tracing data says which),
# so those bytes are compared after the twin's own decoding, not here.
source "$(dirname "$0")/lib.sh"
for be in "$SHARED"/corpus/endian/*_be.data; do
    le=${be%_be.data}.data
    n=$(basename "$be")
    "$PERFSIFT" dump --json -q "$le" > "$TMPD/le.json" 2> "$TMPD/le.err" || { fail "endian $n: twin: $(head -c 200 "$TMPD/le.err")"; continue; }
    "$PERFSIFT" dump --json -q "$be" > "$TMPD/be.json" 2> "$TMPD/be.err" || { fail "endian $n: $(head -c 200 "$TMPD/be.err")"; continue; }
    sed -i -E 's/"raw":"[0-9a-f]*",?//' "$TMPD/le.json" "$TMPD/be.json"
    nrec=$(wc -l < "$TMPD/le.json")
    if [ "$nrec" -gt 10 ] && cmp -s "$TMPD/le.json" "$TMPD/be.json"; then
        pass "endian $n ($nrec records identical)"
    else
        fail "endian $n"; diff "$TMPD/le.json" "$TMPD/be.json" | head -4 | cut -c1-300
    fi
    "$PERFSIFT" info --stats -q "$le" > "$TMPD/le.st"
    "$PERFSIFT" info --stats -q "$be" > "$TMPD/be.st"
    cmp -s "$TMPD/le.st" "$TMPD/be.st" && pass "endian-stats $n" || fail "endian-stats $n"
done
finish
