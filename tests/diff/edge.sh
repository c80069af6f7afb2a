#!/bin/bash
# edge.sh - the hand-made files of shared/corpus/edge that perf 6.1 refuses
# (its README says what each bends): perfsift reads what is readable, says
# what is odd, and refuses the rest with a message naming file and offset.
# (The files perf accepts are compared with perf in stats.sh and dump.sh.)
source "$(dirname "$0")/lib.sh"
E=$SHARED/corpus/edge

expect() {  # name exit-code stderr-regex (NONE: empty) stdout-regex
    local n=$1 code=$2 errre=$3 outre=$4 rc
    "$PERFSIFT" info --stats "$E/$n" > "$TMPD/out" 2> "$TMPD/err"
    rc=$?
    if [ $rc -eq "$code" ] && grep -qE "$outre" "$TMPD/out" &&
       { [ "$errre" = NONE ] && [ ! -s "$TMPD/err" ] || grep -qE "$errre" "$TMPD/err"; }; then
        pass "edge $n"
    else
        fail "edge $n: exit $rc (want $code); stderr: $(head -c 200 "$TMPD/err")"
    fi
}
samples() { "$PERFSIFT" dump --json -q "$1" | grep '"type":"SAMPLE"' | sed -E 's/"offset":"[^"]*",//'; }

# unterminated recording: warn, read records to the end of the file
expect w_dsz0.data 0 'data size field is 0.*offset|offset 0x30: data size field is 0' 'SAMPLE events: +5'
# a sample whose id no attr lists: an error at its offset, after the records before it
expect w_two.data 1 'offset 0x358, record 8: SAMPLE record: event id 33 matches no event' 'TOTAL events: +8'
# attrs whose id positions differ: refused with perf's reason
expect w_mism.data 1 'offset 0x[0-9a-f]+, record 0: .*non matching sample_type' 'TOTAL events: +0'
# unknown record types are counted and shown, not fatal
expect w_unk.data 0 NONE 'UNKNOWN_30 +events: +1'
# attr padding perf misreads: we step entries by attr_size
expect w_two_pad.data 0 NONE 'SAMPLE events: +7'
# tracepoint attrs without (matching) tracing data: records still decode
expect w_tpnotd.data 0 NONE 'SAMPLE events: +5'
expect w_tpwrong.data 0 NONE 'SAMPLE events: +5'
# VER8 (136-byte) attrs, refused by perf 6.1: the same samples as VER0's twin
if cmp -s <(samples "$E/w_ver8.data") <(samples "$E/w_ver0.data") &&
   [ "$(samples "$E/w_ver8.data" | wc -l)" -eq 5 ]; then
    pass "edge w_ver8.data (same 5 samples as w_ver0.data)"
else
    fail "edge w_ver8.data: samples differ from w_ver0.data"
fi
# zeroed attr section (as perf inject can leave): events come from EVENT_DESC
python3 - "$SHARED/corpus/captures/cpuhog-multi-id.data" "$TMPD/zeroed.data" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[24:40] = bytes(16)            # attrs.offset, attrs.size
open(sys.argv[2], "wb").write(b)
PY
if cmp -s <("$PERFSIFT" info --stats -q "$SHARED/corpus/captures/cpuhog-multi-id.data") \
          <("$PERFSIFT" info --stats -q "$TMPD/zeroed.data") &&
   "$PERFSIFT" info --stats "$TMPD/zeroed.data" 2>&1 >/dev/null | grep -q 'HEADER_EVENT_DESC'; then
    pass "edge zeroed attr section (events from EVENT_DESC, same counts, warned)"
else
    fail "edge zeroed attr section"
fi
finish
