#!/bin/bash
# nofile.sh - a capture whose MMAPs name a FIFO, a directory and a missing
# file (testdata/nofile.data; its three workload binaries lived at
# /tmp/perfsift-nofile/{fifo,dir,missing}.bin and are replaced here by a
# FIFO, a directory and nothing): `perfsift script` must not hang or fail;
# samples in them print "[unknown] (<path>)". HOME is empty: perf record
# put copies of the binaries in ~/.debug, which would (rightly) be used.
source "$(dirname "$0")/lib.sh"
D=/tmp/perfsift-nofile
rm -rf "$D" && mkdir -p "$D/dir.bin" && mkfifo "$D/fifo.bin" || { fail "nofile: cannot set up $D"; finish; }
HOME="$TMPD/home" timeout 30 "$PERFSIFT" script -q "$ROOT/testdata/nofile.data" > "$TMPD/out.txt" 2> "$TMPD/err.txt"
rc=$?
if [ $rc -ne 0 ]; then
    fail "nofile: perfsift script rc $rc (124 = hung)"; head -3 "$TMPD/err.txt"
else
    pass "nofile: script finishes on FIFO/directory/missing DSOs"
fi
for k in fifo dir missing; do
    n=$(grep -c "($D/$k.bin)" "$TMPD/out.txt")
    bad=$(grep "($D/$k.bin)" "$TMPD/out.txt" | grep -vc '\[unknown\]')
    if [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]; then
        pass "nofile: $k.bin: $n frames, all [unknown]"
    else
        fail "nofile: $k.bin: $n frames, $bad with a symbol"
    fi
done
rm -rf "$D"
finish
