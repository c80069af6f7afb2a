#!/bin/bash
# build.sh - rebuild testdata/utf8.data and the two binaries it names. Run as
# root (perf record), from anywhere: testdata/utf8/build.sh
# The binaries live at /tmp/perfsift-ütf8/spïn and /tmp/perfsift-ütf8/libwörk.so
# in the capture (a non-ASCII directory, file and symbol: wörk); they are kept
# here under ASCII names, and tests/diff/json.sh copies them back before perf
# and perfsift read the capture. spïn also renames itself to "b\xffd\xc3é"
# (not UTF-8) halfway. A rebuild gives a new capture: commit all together.
set -euo pipefail
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=/tmp/perfsift-ütf8
mkdir -p "$OUT" /tmp/perfsift-utf8-home
cp "$SRC/work.c" "$OUT/wörk.c"
cp "$SRC/spin.c" "$OUT/spïn.c"
cd "$OUT"
gcc -O1 -g0 -fno-omit-frame-pointer -shared -fPIC -o libwörk.so wörk.c
gcc -O1 -g0 -fno-omit-frame-pointer -o spïn spïn.c -L. -lwörk -Wl,-rpath,"$OUT"
strip -K wörk -K main spïn libwörk.so
rm -f "$SRC/../utf8.data"
env -i PATH="$PATH" HOME=/tmp/perfsift-utf8-home LC_ALL=C \
    perf record -q -F 499 -g -o "$SRC/../utf8.data" -- "$OUT/spïn" >/dev/null
chmod 644 "$SRC/../utf8.data"
cp spïn "$SRC/spin"
cp libwörk.so "$SRC/libwork.so"
