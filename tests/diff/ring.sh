#!/bin/bash
# ring.sh - raw ring-buffer dumps (`--attr`, libparse/ring.c, spec 14).
#
# (a) shared/corpus/ring: each drained dump decoded with its attr gives the
#     records of the wrapped perf.data that holds the same bytes (perfsift
#     dump --json, offsets and the wrapper's FINISHED_ROUND left out), and
#     the records real perf prints for that perf.data (pid/tid/cpu/time,
#     plus period/ip of samples; side-band records by type). Dumps without a
#     wrapped file (lost.raw, wide.raw) are wrapped here by tests/tools/
#     ringwrap.c. wide.raw is read with the JSON attr testdata/ring/
#     wide.attr.json, written from the corpus README.
# (b) testdata/ring: snapshots (control page + data pages) made by tests/
#     tools/ringsnap.c decode to exactly the records of the drained stream of
#     the same ring; JSON and binary attrs parse to the same perf_event_attr;
#     an overwritten ring keeps the newest records; broken control pages and
#     truncations are clear errors, never crashes.
# (c) live: ringsnap runs here and now, and (b) plus perf's reading of the
#     same records is checked on what it made.
#
# PERFSIFT: binary under test. CC / BUILD: compiler and build dir of
# libperfsift.a (for tests/tools/attrcmp.c).
source "$(dirname "$0")/lib.sh"
require_perf
RING=$SHARED/corpus/ring
TD=$ROOT/testdata/ring
BUILD=${BUILD:-build}
CC=${CC:-cc}
T=$TMPD

# --- tools ------------------------------------------------------------------

build_tools() {
    local san=
    [ "$BUILD" = build-san ] && san="-fsanitize=address,undefined"
    $CC -std=c11 -O2 -Wall -Wextra -Werror -o "$T/ringwrap" "$ROOT/tests/tools/ringwrap.c" &&
    $CC -std=c11 -O2 -fno-omit-frame-pointer -Wall -Wextra -Werror -o "$T/ringsnap" \
        "$ROOT/tests/tools/ringsnap.c" &&
    $CC -std=c11 -Wall -Wextra -Werror $san -I"$ROOT/libparse/include" -o "$T/attrcmp" \
        "$ROOT/tests/tools/attrcmp.c" "$ROOT/$BUILD/libperfsift.a" \
        $(pkg-config --libs libtraceevent jansson sqlite3 libelf libdw libzstd zlib)
}
if ! build_tools 2> "$T/cc.err"; then
    fail "ring-tools: tests/tools do not build: $(head -c 300 "$T/cc.err")"
    finish
fi

# --- helpers ------------------------------------------------------------------

# perfsift's records as NDJSON without offsets: ours ATTR DUMP [options].
# A failed run ends with a {"perfsift_exit": N} line, so no comparison passes.
ours() {
    local attr=$1 dump=$2; shift 2
    "$PERFSIFT" dump --json -q --attr "$attr" "$@" "$dump" > "$T/ours.out"
    local rc=$?
    jq -c 'del(.offset)' "$T/ours.out"
    [ $rc -eq 0 ] || echo "{\"perfsift_exit\": $rc}"
}

# The same of a perf.data file, without the wrapper's FINISHED_ROUND.
ours_data() {
    "$PERFSIFT" dump --json -q "$1" > "$T/ours.out"
    local rc=$?
    jq -c 'select(.type != "FINISHED_ROUND") | del(.offset)' "$T/ours.out"
    [ $rc -eq 0 ] || echo "{\"perfsift_exit\": $rc}"
}

# One line per record, "TYPE pid tid cpu time_ns [period] [ip]", from perf
# script text (stdin) or from perfsift NDJSON (--json), stably sorted by
# time as perf delivers them (a ring holds records in the order they were
# written, which can differ from their times by a few records).
# normalise FIELDS [--json]; FIELDS as given to perf script -F.
normalise() {
    python3 -c '
import json, re, sys
fields = sys.argv[1].split(",")
line_re = re.compile(r"^\s*(\d+)/(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(.*)$")
out = []
for line in sys.stdin:
    if len(sys.argv) > 2:
        r = json.loads(line)
        if "type" not in r:     # {"perfsift_exit": N}
            rec = ["ERROR", 0, 0, 0, 2**64, line.strip()]
        elif r["type"] == "SAMPLE":
            rec = ["SAMPLE", r["pid"], r["tid"], r["cpu"], r["time"]]
            rec += [r["period"]] if "period" in fields else []
            rec += [int(r["ip"], 16)] if "ip" in fields else []
        else:
            i = r.get("sample_id", {})
            rec = [r["type"], i.get("pid"), i.get("tid"), i.get("cpu"), i.get("time")]
        out.append(rec)
        continue
    m = line_re.match(line)
    if not m:
        continue                # continuation lines (NAMESPACES)
    pid, tid, cpu, sec, ns, rest = m.groups()
    rec = [int(pid), int(tid), int(cpu), int(sec) * 10**9 + int(ns)]
    k = re.match(r"PERF_RECORD_([A-Z0-9_]+)", rest)
    if k:
        out.append([k.group(1)] + rec)
        continue
    tok = rest.split()
    rec += [int(tok.pop(0))] if "period" in fields else []
    rec += [int(tok.pop(0), 16)] if "ip" in fields else []
    out.append(["SAMPLE"] + rec)
out.sort(key=lambda r: -1 if r[4] is None else r[4])
for r in out:
    print(*r)
' "$@"
}

SHOW="--show-task-events --show-mmap-events --show-lost-events --show-switch-events
      --show-namespace-events --show-bpf-events --show-cgroup-events --show-text-poke-events"

# perf script of a perf.data vs perfsift's decoding of a dump, normalised.
# perf_vs NAME DATA FIELDS ATTR DUMP [perfsift options]
perf_vs() {
    local name=$1 data=$2 fields=$3 attr=$4 dump=$5; shift 5
    perf_run script -i "$data" --ns -G -F "$fields" $SHOW > "$T/perf.txt" 2> "$T/perf.err"
    if [ $? -ne 0 ] || [ ! -s "$T/perf.txt" ]; then
        fail "$name: perf script failed: $(head -c 200 "$T/perf.err")"
        return
    fi
    normalise "$fields" < "$T/perf.txt" > "$T/perf.norm"
    ours "$attr" "$dump" "$@" | normalise "$fields" --json > "$T/ours.norm"
    if cmp -s "$T/perf.norm" "$T/ours.norm"; then
        pass "$name ($(wc -l < "$T/ours.norm") records)"
    else
        fail "$name"; diff "$T/perf.norm" "$T/ours.norm" | head -8
    fi
}

# same_records NAME FILE_A FILE_B: two NDJSON files hold the same records.
same_records() {
    if [ -s "$2" ] && cmp -s "$2" "$3"; then
        pass "$1 ($(wc -l < "$2") records)"
    else
        fail "$1"; diff "$2" "$3" | head -6
    fi
}

# ctl FILE OFFSET: a u64 of a snapshot's control page.
ctl() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
# put64 FILE OFFSET VALUE: overwrite a u64 (little-endian host) in place.
put64() {
    python3 -c 'import struct, sys
f = open(sys.argv[1], "r+b")
f.seek(int(sys.argv[2]))
f.write(struct.pack("<Q", int(sys.argv[3])))' "$@"
}

# expect_error NAME PATTERN perfsift-args...: exit 1 with a message matching.
expect_error() {
    local name=$1 pat=$2; shift 2
    "$PERFSIFT" dump -q "$@" > /dev/null 2> "$T/err.txt"
    local rc=$?
    if [ $rc -eq 1 ] && grep -qE "$pat" "$T/err.txt"; then
        pass "$name: $(head -c 160 "$T/err.txt")"
    else
        fail "$name: exit $rc, want 1 and /$pat/: $(head -c 200 "$T/err.txt")"
    fi
}

first_id() {   # first_id ATTR DUMP: the event id of the first sample
    "$PERFSIFT" dump --json -q --attr "$1" "$2" | jq -r 'select(.type=="SAMPLE") | .id' | head -1
}

# --- (a) the corpus dumps ---------------------------------------------------------

ours "$RING/self-lost.attr.bin" "$RING/self.raw" > "$T/self.raw.json"
ours_data "$RING/self-wrapped.data" > "$T/self.data.json"
same_records "ring-self-vs-wrapped" "$T/self.data.json" "$T/self.raw.json"
ours "$RING/st.attr.bin" "$RING/st.raw" > "$T/st.raw.json"
ours_data "$RING/st-wrapped.data" > "$T/st.data.json"
same_records "ring-st-vs-wrapped" "$T/st.data.json" "$T/st.raw.json"

perf_vs "ring-self-perf" "$RING/self-wrapped.data" pid,tid,cpu,time,ip,period \
    "$RING/self-lost.attr.bin" "$RING/self.raw"
# Not period: with PERF_SAMPLE_READ perf script prints the read value's
# delta as the period, not the sample's period field.
perf_vs "ring-st-perf" "$RING/st-wrapped.data" pid,tid,cpu,time,ip \
    "$RING/st.attr.bin" "$RING/st.raw"

"$T/ringwrap" "$RING/self-lost.attr.bin" "$(first_id "$RING/self-lost.attr.bin" "$RING/lost.raw")" \
    "$RING/lost.raw" "$T/lost.data"
ours "$RING/self-lost.attr.bin" "$RING/lost.raw" > "$T/lost.raw.json"
if [ "$(jq -c 'select(.type=="LOST") | .lost' "$T/lost.raw.json")" = 166069 ]; then
    pass "ring-lost-record (LOST lost=166069)"
else
    fail "ring-lost-record: no LOST record of 166069 in lost.raw"
fi
perf_vs "ring-lost-perf" "$T/lost.data" pid,tid,cpu,time,ip,period \
    "$RING/self-lost.attr.bin" "$RING/lost.raw"

"$T/ringsnap" wide-attr "$T/wide.attr.bin"
if "$T/attrcmp" "$TD/wide.attr.json" "$T/wide.attr.bin" > "$T/cmp.txt" 2>&1; then
    pass "ring-wide-json-attr (wide.attr.json == corpus ring.c's attr, field by field)"
else
    fail "ring-wide-json-attr: $(head -c 300 "$T/cmp.txt")"
fi
ours "$TD/wide.attr.json" "$RING/wide.raw" > "$T/wide.json.json"
ours "$T/wide.attr.bin" "$RING/wide.raw" > "$T/wide.bin.json"
same_records "ring-wide-json-vs-binary" "$T/wide.bin.json" "$T/wide.json.json"
"$T/ringwrap" "$T/wide.attr.bin" 1107 "$RING/wide.raw" "$T/wide.data"
perf_vs "ring-wide-perf" "$T/wide.data" pid,tid,cpu,time "$TD/wide.attr.json" "$RING/wide.raw"

# --- (b) committed snapshots ---------------------------------------------------------

snap_checks() {    # snap_checks TAG DIR PREFIX: PREFIX.{snap,stream,attr.bin} in DIR
    local tag=$1 p=$2/$3
    local head tail size
    head=$(ctl "$p.snap" 1024); tail=$(ctl "$p.snap" 1032); size=$(ctl "$p.snap" 1048)
    if [ $((tail % size + head - tail)) -gt "$size" ] && [ $((head - tail)) -le "$size" ]; then
        pass "$tag-straddles (data_tail $tail, data_head $head, data_size $size)"
    else
        fail "$tag-straddles: live region [$tail, $head) does not cross the end of $size bytes"
    fi
    ours "$p.attr.bin" "$p.stream" > "$T/stream.json"
    ours "$p.attr.bin" "$p.snap" > "$T/snap.json"
    same_records "$tag-snapshot-vs-stream" "$T/stream.json" "$T/snap.json"
    ours "$p.attr.bin" "$p.snap" --ring-form snapshot > "$T/snap2.json"
    same_records "$tag-forced-snapshot" "$T/stream.json" "$T/snap2.json"
    "$PERFSIFT" dump --json -q --attr "$p.attr.bin" - < "$p.snap" | jq -c 'del(.offset)' \
        > "$T/snap3.json"
    same_records "$tag-snapshot-stdin" "$T/stream.json" "$T/snap3.json"
    "$T/ringwrap" "$p.attr.bin" "$(first_id "$p.attr.bin" "$p.stream")" "$p.stream" "$T/snap.data"
    perf_vs "$tag-snapshot-perf" "$T/snap.data" pid,tid,cpu,time,ip,period "$p.attr.bin" "$p.snap"

    # data_tail far behind: an overwritten ring. The newest records must
    # come out whole, the drained stream being their tail end.
    cp "$p.snap" "$T/ow.snap"
    put64 "$T/ow.snap" 1032 0
    "$PERFSIFT" dump --json --attr "$p.attr.bin" "$T/ow.snap" 2> "$T/ow.err" |
        jq -c 'del(.offset)' > "$T/ow.json"
    local n
    n=$(wc -l < "$T/stream.json")
    if grep -q overwritten "$T/ow.err" && [ "$(wc -l < "$T/ow.json")" -ge "$n" ] &&
       tail -n "$n" "$T/ow.json" | cmp -s - "$T/stream.json"; then
        pass "$tag-overwritten-suffix ($(wc -l < "$T/ow.json") records, the last $n as drained)"
    else
        fail "$tag-overwritten-suffix: $(head -c 200 "$T/ow.err")"
    fi
}
snap_checks ring-fixture "$TD" snap

for pair in "snap.attr.json snap.attr.bin" "st.attr.json $RING/st.attr.bin"; do
    set -- $pair
    j=$TD/$1; b=$2; [ "${b#/}" = "$b" ] && b=$TD/$b
    if "$T/attrcmp" "$j" "$b" > "$T/cmp.txt" 2>&1; then
        pass "ring-json-vs-binary-attr $1"
    else
        fail "ring-json-vs-binary-attr $1: $(head -c 300 "$T/cmp.txt")"
    fi
done
ours "$TD/snap.attr.json" "$TD/snap.snap" > "$T/snap.j.json"
ours "$TD/snap.attr.bin" "$TD/snap.snap" > "$T/snap.b.json"
same_records "ring-snapshot-json-vs-binary-attr" "$T/snap.b.json" "$T/snap.j.json"
ours "$TD/st.attr.json" "$RING/st.raw" > "$T/st.j.json"
same_records "ring-st-json-vs-binary-attr" "$T/st.raw.json" "$T/st.j.json"

# Two attrs, told apart by id: the records all belong to the first.
jq -c '[., {type: "SOFTWARE", config: 9, sample_type: .sample_type,
            sample_id_all: true, ids: [999999]}]' "$TD/snap.attr.json" > "$T/two.json"
ours "$T/two.json" "$TD/snap.snap" > "$T/two.out.json"
same_records "ring-attr-list-ids" "$T/snap.j.json" "$T/two.out.json"
jq -c '.[0].ids = [999998]' "$T/two.json" > "$T/two-bad.json"
expect_error "ring-attr-unknown-id" 'event id [0-9]+ matches no event' \
    --attr "$T/two-bad.json" "$TD/snap.snap"

# The real overwrite-mode ring (read-only mapping) of the fixture.
overwrite_checks() {   # overwrite_checks TAG PREFIX
    "$PERFSIFT" dump --json --attr "$2.attr.bin" "$2.snap" 2> "$T/owr.err" > "$T/owr.json"
    local rc=$?
    local bad
    bad=$(jq -s '[.[] | select(.type == "SAMPLE")] as $s |
                 ([$s[] | select(.pid != $s[0].pid or .tid != $s[0].pid)] | length) +
                 ([range(1; $s | length) | select($s[.].time <= $s[. - 1].time)] | length) +
                 (if ($s | length) < 10 then 1 else 0 end)' "$T/owr.json")
    if [ $rc -eq 0 ] && [ "$bad" = 0 ] && grep -q overwritten "$T/owr.err"; then
        pass "$1 ($(wc -l < "$T/owr.json") records, one task, times increasing)"
    else
        fail "$1: exit $rc, $bad bad samples: $(head -c 200 "$T/owr.err")"
    fi
}
overwrite_checks ring-fixture-overwrite-mode "$TD/overwrite"

# Attr files: each JSON fixture follows the schema.
if python3 -c 'import jsonschema' 2> /dev/null; then
    for j in "$TD"/*.json; do
        if python3 - "$ROOT/schemas/attr.schema.json" "$j" > "$T/schema.txt" 2>&1 <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.Draft202012Validator(schema).validate(json.load(open(sys.argv[2])))
PY
        then pass "ring-schema $(basename "$j")"
        else fail "ring-schema $(basename "$j"): $(tail -n 3 "$T/schema.txt")"
        fi
    done
else
    pass "ring-schema (python3 jsonschema not installed: not validated)"
fi

# --- (b) errors ------------------------------------------------------------------------

A=$TD/snap.attr.bin
head -c 9000 "$TD/snap.snap" > "$T/trunc.snap"
expect_error "ring-truncated-snapshot" 'offset 0x418: snapshot truncated' \
    --attr "$A" "$T/trunc.snap"
expect_error "ring-truncated-snapshot-forced" 'snapshot truncated' \
    --ring-form snapshot --attr "$A" "$T/trunc.snap"
head -c 500 "$TD/snap.snap" > "$T/tiny.snap"
expect_error "ring-tiny-snapshot" 'control page needs 1056 bytes' \
    --ring-form snapshot --attr "$A" "$T/tiny.snap"
cp "$TD/snap.snap" "$T/back.snap"
put64 "$T/back.snap" 1024 "$(( $(ctl "$TD/snap.snap" 1032) - 8 ))"
expect_error "ring-head-below-tail" 'offset 0x400: .*data_head 0x[0-9a-f]+ is below data_tail' \
    --attr "$A" "$T/back.snap"
cp "$TD/snap.snap" "$T/size.snap"
put64 "$T/size.snap" 1048 12
expect_error "ring-bad-data-size" 'data_size 12 is not a non-zero multiple of 8' \
    --ring-form snapshot --attr "$A" "$T/size.snap"
printf '{"sampletype": 1}' > "$T/bad1.json"
expect_error "ring-attr-unknown-field" "unknown field 'sampletype'" \
    --attr "$T/bad1.json" "$TD/snap.stream"
printf '{"sample_type": ["IP", "NOPE"]}' > "$T/bad2.json"
expect_error "ring-attr-bad-bit-name" 'entry 1 is not a PERF_SAMPLE_\* name' \
    --attr "$T/bad2.json" "$TD/snap.stream"
printf '[{"type": 1,' > "$T/bad3.json"
expect_error "ring-attr-bad-json" 'line 1 column [0-9]+' --attr "$T/bad3.json" "$TD/snap.stream"
head -c 60 "$A" > "$T/short.bin"
expect_error "ring-attr-short-binary" 'offset 0x0: attr 0: perf_event_attr needs 64 bytes' \
    --attr "$T/short.bin" "$TD/snap.stream"
{ cat "$A"; head -c 100 "$A"; } > "$T/two-short.bin"
expect_error "ring-attr-second-truncated" 'offset 0x80: attr 1: perf_event_attr size 128' \
    --attr "$T/two-short.bin" "$TD/snap.stream"

# Every truncation of the snapshot and of the stream, and every byte of the
# control page's ring fields flipped: an error value or records, not a crash.
# survives perfsift-args...: exit 0 or 1, and no sanitizer report (whose
# exit code is 1 too).
survives() {
    "$PERFSIFT" dump -q "$@" > /dev/null 2> "$T/fz.err"
    [ $? -le 1 ] && ! grep -qE 'Sanitizer|runtime error' "$T/fz.err"
}
crashes=0
for n in $(seq 0 97 12288) 1023 1024 1055 1056 4095 4096 4097 12287; do
    for f in snap stream; do
        head -c "$n" "$TD/snap.$f" > "$T/cut"
        survives --attr "$A" "$T/cut" || { crashes=$((crashes + 1)); echo "  crash: $f cut at $n"; }
    done
done
for off in $(seq 1024 1055); do
    for v in 0 1 128 255; do
        cp "$TD/snap.snap" "$T/flip"
        printf "$(printf '\\%03o' "$v")" | dd of="$T/flip" bs=1 seek="$off" conv=notrunc status=none
        for form in auto snapshot; do
            survives --ring-form $form --attr "$A" "$T/flip" ||
                { crashes=$((crashes + 1)); echo "  crash: byte $off = $v ($form)"; }
        done
    done
done
if [ $crashes -eq 0 ]; then
    pass "ring-truncations-and-flips (no crash)"
else
    fail "ring-truncations-and-flips: $crashes crashes"
fi

# --- (c) live: a ring made now ---------------------------------------------------------------

if "$T/ringsnap" snap "$T/live" > "$T/live.txt" 2> "$T/live.err" &&
   "$T/ringsnap" overwrite "$T/livow" >> "$T/live.txt" 2>> "$T/live.err"; then
    snap_checks ring-live "$T" live
    # Exact: with data_tail at 0 the kept records are those of the full
    # drained stream (file offset == ring position) that start at or after
    # data_head - data_size.
    lo=$(( $(ctl "$T/live.snap" 1024) - $(ctl "$T/live.snap" 1048) ))
    "$PERFSIFT" dump --json -q --attr "$T/live.attr.bin" "$T/live.full" |
        jq -c --argjson lo "$lo" 'select((.offset | ltrimstr("0x") | ascii_downcase | explode |
            reduce .[] as $d (0; . * 16 + (if $d >= 97 then $d - 87 else $d - 48 end))) >= $lo)
            | del(.offset)' > "$T/live.want.json"
    same_records "ring-live-overwritten-exact" "$T/live.want.json" "$T/ow.json"
    overwrite_checks ring-live-overwrite-mode "$T/livow"
else
    fail "ring-live: ringsnap could not sample itself (perf_event_paranoid=$(cat \
        /proc/sys/kernel/perf_event_paranoid 2> /dev/null)): $(head -c 200 "$T/live.err")"
fi

finish
