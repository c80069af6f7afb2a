#!/bin/bash
# tracepoint.sh - the trace text of tracepoint samples (libtraceevent fed the
# TRACING_DATA blob as perf feeds it, spec 10.3). On every capture with a
# tracepoint event, the "trace" string of each SAMPLE of `perfsift dump
# --ordered --json`, in order, equals what `perf script --kallsyms /dev/null
# -F trace:trace --ns` prints now (kernel addresses stay hex, as with the
# corpus oracles' script-trace commands). Other event types are switched off
# with -F hw:/sw: where perf has events of that type.
#
# perf prints samples whose tid is -1 (pid known) with the rest; none of the
# captures has one with pid and tid both -1, which perf could not charge to a
# thread, so those are left out on our side only.
#
# Also: tp_be.data (the big-endian rewrite of tp.data) gives tp.data's text
# and typed fields; the edge files perf refuses for their tracing data decode
# everything else, with a warning naming the event.
source "$(dirname "$0")/lib.sh"
require_perf

# perf script -F trace:trace, with the other types of the capture switched
# off: -F hw: / -F sw: when perf has events of that type (a dummy event does
# not count; perf then says "... events do not exist" and we drop that one).
perf_trace() {  # capture -> $TMPD/perf.txt; exit status of perf
    local f=$1 hw=0 sw=0 try rc
    perf_run evlist -v -i "$f" 2> /dev/null | grep -v '^#' > "$TMPD/evlist"
    grep -q -v -E '(^|[:,]) type: [0-9]+,' "$TMPD/evlist" && hw=1
    grep -q -E '(^|[:,]) type: 1,' "$TMPD/evlist" && sw=1
    for try in 1 2 3; do
        opts=()
        [ $hw = 1 ] && opts+=(-F hw:)
        [ $sw = 1 ] && opts+=(-F sw:)
        perf_run script --kallsyms /dev/null -i "$f" -F trace:trace "${opts[@]}" --ns \
            > "$TMPD/perf.txt" 2> "$TMPD/perf.err"
        rc=$?
        if grep -q 'hardware events do not exist' "$TMPD/perf.err"; then hw=0; continue; fi
        if grep -q 'software events do not exist' "$TMPD/perf.err"; then sw=0; continue; fi
        return $rc
    done
    return 1
}

ours_trace() {  # capture -> $TMPD/ours.txt, $TMPD/ours.err
    "$PERFSIFT" dump --ordered --json --no-stack "$1" 2> "$TMPD/ours.err" |
        jq -r 'select(.type == "SAMPLE" and (has("trace") or has("trace_error"))
                      and ((.tid // 0) != -1 or (.pid // 0) != -1))
               | .trace // ("ERROR " + .trace_error)' > "$TMPD/ours.txt"
}

# Every capture perf lists a tracepoint event for; the ones the brief names
# must be among them.
: > "$TMPD/tp-captures"
while read -r f; do
    perf_run evlist -v -i "$f" 2> /dev/null | grep -q -E '(^|[:,]) type: 2,' &&
        echo "$f" >> "$TMPD/tp-captures"
done < <(every_capture)     # all of them, also under SANITIZE
for want in sched-tp-syswide.data syscalls-tp.data uprobe.data pipe-tracepoints.data \
            tp.data tp_be.data w_tp.data w_tp05.data w_tpunk.data args.perf.data \
            probe.data.file probe.data.stream parallel_static_gcc.perf.data.zstd \
            multi-sys.data maple-tp.data ipi-cpumask.data dio-zd.data; do
    grep -q "/$want\$" "$TMPD/tp-captures" ||
        fail "tracepoint capture $want: not found, or perf lists no tracepoint in it"
done

while read -r f; do
    n=${f#"$SHARED"/}; n=${n#"$ROOT"/}
    if ! perf_trace "$f"; then
        fail "trace $n: perf script failed: $(head -c 200 "$TMPD/perf.err")"
        continue
    fi
    ours_trace "$f"
    nr=$(wc -l < "$TMPD/perf.txt")
    if [ "$nr" -gt 0 ] && cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt"; then
        pass "trace $n ($nr samples)"
    elif [ "$nr" -eq 0 ] && [ ! -s "$TMPD/ours.txt" ]; then
        pass "trace $n: its tracepoints have no samples, and none are printed"
    else
        fail "trace $n: $nr lines from perf, $(wc -l < "$TMPD/ours.txt") from perfsift"
        diff "$TMPD/perf.txt" "$TMPD/ours.txt" | head -6 | cut -c1-300
    fi
done < "$TMPD/tp-captures"

# the big-endian twin: same text and same typed fields, sample for sample
E=$SHARED/corpus/endian
for x in tp tp_be; do
    "$PERFSIFT" dump --json -q "$E/$x.data" |
        jq -c 'select(.type == "SAMPLE") | [.trace, .fields]' > "$TMPD/$x.fields"
done
if [ "$(grep -c '"prev_comm"' "$TMPD/tp.fields")" -gt 10 ] &&
   cmp -s "$TMPD/tp.fields" "$TMPD/tp_be.fields"; then
    pass "trace endian/tp_be.data: text and fields equal tp.data's"
else
    fail "trace endian/tp_be.data: differs from tp.data"
    diff "$TMPD/tp.fields" "$TMPD/tp_be.fields" | head -4 | cut -c1-300
fi

# typed fields against the text perf prints: sched_switch's pids and comms
"$PERFSIFT" dump --json -q "$SHARED/corpus/captures/sched-tp-syswide.data" |
    jq -r 'select(.type == "SAMPLE" and .event == "sched:sched_switch") | .fields as $f
           | "\(.trace) | prev_comm=\($f.prev_comm) prev_pid=\($f.prev_pid)"
             + " prev_prio=\($f.prev_prio) ==> next_comm=\($f.next_comm)"
             + " next_pid=\($f.next_pid) next_prio=\($f.next_prio)"' |
    awk -F' [|] ' '{ t = $1; sub(/ prev_state=[^ ]* /, " ", t); if (t != $2) bad++; n++ }
                   END { exit !(n > 10 && bad == 0) }' &&
    pass "trace fields: sched_switch fields agree with the text" ||
    fail "trace fields: sched_switch fields disagree with the text"

# tracing data perf refuses: a warning naming the event, every record decoded
edge() {  # file warning-regex
    local f=$SHARED/corpus/edge/$1
    "$PERFSIFT" dump --json "$f" > "$TMPD/out" 2> "$TMPD/err"
    local rc=$? nrec nsamp
    nrec=$(wc -l < "$TMPD/out")
    nsamp=$(grep -c '"type":"SAMPLE"' "$TMPD/out")
    if [ $rc -eq 0 ] && [ "$nsamp" -gt 0 ] && grep -qE "$2" "$TMPD/err" &&
       [ "$(grep -c warning "$TMPD/err")" -eq 1 ] && ! grep -q '"trace"' "$TMPD/out"; then
        pass "trace edge $1 ($nrec records, $nsamp samples, one warning)"
    else
        fail "trace edge $1: exit $rc, $nsamp samples; stderr: $(head -c 300 "$TMPD/err")"
    fi
}
edge w_tpnotd.data 'no tracing data.*not decoded for: sched:sched_switch'
edge w_tpwrong.data "tracepoint 'sched:sched_switch' \\(id [0-9]+\\): no format in the tracing data"
finish
