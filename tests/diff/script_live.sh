#!/bin/bash
# script_live.sh - captures recorded now, on this machine, so that the
# kernel symbols come from the running kernel's /proc/kallsyms (the corpus
# captures were made under another kernel, whose build-id perf and perfsift
# both refuse): `perfsift script` equals `perf script` on
#   - frame-pointer call chains through kernel and user space,
#   - a C++ program (demangling as perf's),
#   - tracepoints printing kernel functions with %ps (resolved),
#   - a pipe-mode capture (no build-ids: kallsyms used unchecked);
#   - the --dsos and -S filters, --time's forms;
#   - -F tod, flags, ipc; --per-event-dump; --switch-on/--switch-off; -L.
source "$(dirname "$0")/lib.sh"
require_perf
W='i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done; ls -R /usr/lib > /dev/null'

cat > "$TMPD/k.cc" <<'EOF'
#include <vector>
namespace ns {
template <typename T> struct Box {
    static T __attribute__((noinline)) work(T n) { T s = 0; for (T i = 0; i < n; i++) s += i * i % 7; return s; }
};
}
int main(int argc, char **) {
    volatile long r = 0;
    std::vector<long> v(16, argc);
    for (int i = 0; i < 60; i++) r += ns::Box<long>::work(1000000 + v[i % 16]);
    return (int)(r & 1);
}
EOF
CXX=$(command -v g++ || command -v clang++)

record() {  # name perf-record-args...
    local name=$1; shift
    if ! perf record -q -o "$TMPD/$name.data" "$@" > /dev/null 2> "$TMPD/$name.rec.err"; then
        fail "script-live $name: perf record failed: $(head -1 "$TMPD/$name.rec.err")"
        return 1
    fi
}

compare() {  # name capture options...
    local name=$1 f=$2; shift 2
    perf_run script "$@" -i "$f" > "$TMPD/perf.txt" 2> /dev/null
    env -i PATH="$PATH" HOME="$TMPD/home" LC_ALL=C \
        "$PERFSIFT" script -q "$@" "$f" > "$TMPD/ours.txt" 2> "$TMPD/ours.err"
    if [ ! -s "$TMPD/perf.txt" ]; then
        fail "script-live $name [$*]: perf printed nothing"
    elif cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt"; then
        pass "script-live $name [$*] ($(wc -l < "$TMPD/perf.txt") lines)"
    else
        fail "script-live $name [$*] ($(diff "$TMPD/perf.txt" "$TMPD/ours.txt" | grep -c '^>') of $(wc -l < "$TMPD/perf.txt") lines differ)"
        diff "$TMPD/perf.txt" "$TMPD/ours.txt" | head -6
    fi
}

# kernel symbols must really resolve in the perf output, or the test proves little
if record fp -g -F 999 -- sh -c "$W"; then
    compare fp "$TMPD/fp.data"
    grep -q '+0x[0-9a-f]* (\[kernel.kallsyms\])' "$TMPD/ours.txt" &&
        pass "script-live fp: kernel frames are symbolized" ||
        fail "script-live fp: no symbolized kernel frame (is /proc/kallsyms readable?)"
    compare fp "$TMPD/fp.data" -G --ns
    compare fp "$TMPD/fp.data" -F comm,pid,tid,time,ip,sym,dso --max-stack 4
    # --dsos (short names or a whole path) and -S (the sample ip's symbol)
    compare fp "$TMPD/fp.data" --dsos '[kernel.kallsyms]' -G
    compare fp "$TMPD/fp.data" --dsos "libc.so.6,$(readlink -f "$(command -v sh)")"
    syms=$("$PERFSIFT" script -q -G -F ip,sym "$TMPD/fp.data" | awk "{ print \$2 }" | sort | uniq -c | sort -rn |
           awk '$2 != "[unknown]" && n < 2 { printf "%s%s", (n++ ? "," : ""), $2 }')
    compare fp "$TMPD/fp.data" -S "$syms" -F comm,tid,ip,sym
    compare fp "$TMPD/fp.data" --stop-bt "do_syscall_64,$syms"
    # --time: percentages of the span (SAMPLE_TIME), several ranges of
    # seconds, --reltime
    read -r t0 t1 <<< "$("$PERFSIFT" script -q -G -F time "$TMPD/fp.data" |
        awk '{ sub(":", "", $1); t[NR] = $1 } END { printf "%s %s", t[int(NR / 4)], t[int(NR / 2)] }')"
    compare fp "$TMPD/fp.data" -G --time 10%/2
    compare fp "$TMPD/fp.data" -G --time 0%-20%,50%-60% --ns
    compare fp "$TMPD/fp.data" -G --time 30%
    compare fp "$TMPD/fp.data" -G --time ",$t0 $t1,"
    compare fp "$TMPD/fp.data" -G --reltime --time 0.01,0.05
    compare fp "$TMPD/fp.data" -G --reltime --time ,0.02
fi
# --per-event-dump: each event's samples in INPUT.EVENT.dump, side-band
# records and perf's "Wrote N MB" lines on stdout. DUMP_STDIN=1: the
# capture read from standard input (perf names the files "(null).EVENT.dump")
dump_compare() {    # name capture options...
    local name=$1 f=$2 d ok=1 n=0 in=x.data; shift 2
    [ -n "${DUMP_STDIN:-}" ] && in=-
    mkdir -p "$TMPD/dp" "$TMPD/do"
    cp "$f" "$TMPD/dp/x.data" && cp "$f" "$TMPD/do/x.data"
    (cd "$TMPD/dp" && perf_run script --per-event-dump "$@" -i $in < x.data > out.txt 2> /dev/null)
    (cd "$TMPD/do" && "$PERFSIFT" script -q --per-event-dump "$@" $in < x.data > out.txt 2> err.txt)
    for d in "$TMPD"/dp/*.dump; do
        n=$((n + 1))
        cmp -s "$d" "$TMPD/do/$(basename "$d")" || ok=0
    done
    if [ $n -gt 0 ] && [ $ok = 1 ] && grep -q 'perf script: Wrote' "$TMPD/dp/out.txt" &&
       cmp -s "$TMPD/dp/out.txt" "$TMPD/do/out.txt"; then
        pass "script-live $name --per-event-dump $* ($n files)"
    else
        fail "script-live $name --per-event-dump $*: $(diff "$TMPD/dp/out.txt" "$TMPD/do/out.txt" | head -3)"
    fi
    rm -rf "$TMPD/dp" "$TMPD/do"
}
[ -s "$TMPD/fp.data" ] && dump_compare fp "$TMPD/fp.data" --show-task-events

# -F tod (the wall clock from CLOCK_DATA, recorded with -k), flags (blank
# without itrace), ipc (nothing without cycle counts); tod without clock
# data is perf's error
if record clk -k monotonic -g -F 999 -- sh -c "$W"; then
    compare clk "$TMPD/clk.data" -F +tod,+flags,+ipc
    compare clk "$TMPD/clk.data" -F comm,tod,time,event,ip,sym --ns -G --show-task-events
    perf_run script -F +tod -i "$TMPD/fp.data" > /dev/null 2> "$TMPD/perf.err"
    "$PERFSIFT" script -q -F +tod "$TMPD/fp.data" > "$TMPD/ours.txt" 2> "$TMPD/ours.err"
    if [ $? -ne 0 ] && [ ! -s "$TMPD/ours.txt" ] && grep -q "missing clock data" "$TMPD/perf.err" &&
       cmp -s "$TMPD/perf.err" "$TMPD/ours.err"; then
        pass "script-live fp -F +tod: perf's error without clock data"
    else
        fail "script-live fp -F +tod: $(head -c 200 "$TMPD/ours.err")"
    fi
fi
if [ -n "$CXX" ] && $CXX -O1 -g -fno-omit-frame-pointer -o "$TMPD/k" "$TMPD/k.cc"; then
    if record cxx -g -F 999 -- "$TMPD/k"; then
        compare cxx "$TMPD/cxx.data"
        grep -q 'ns::Box<long>::work+0x' "$TMPD/ours.txt" &&
            pass "script-live cxx: C++ names demangled (ns::Box<long>::work)" ||
            fail "script-live cxx: no demangled ns::Box<long>::work frame"
        compare cxx "$TMPD/cxx.data" --no-demangle -G
        compare cxx "$TMPD/cxx.data" -S 'ns::Box<long>::work' --dsos k -G
    fi
else
    fail "script-live cxx: no C++ compiler (make deps installs g++)"
fi
if record tp -a -e timer:hrtimer_start,timer:hrtimer_expire_entry -- sleep 0.2; then
    compare tp "$TMPD/tp.data"
    compare tp "$TMPD/tp.data" --show-task-events --ns
    dump_compare tp "$TMPD/tp.data"
fi
# --switch-on/--switch-off (perf's evswitch: an off event alone hides only
# its first sample), --show-on-off-events
SW=$SHARED/corpus/captures/sched-tp-syswide.data
compare switch "$SW" --switch-on sched:sched_switch
compare switch "$SW" --switch-off sched:sched_switch
compare switch "$SW" --switch-on sched:sched_process_fork --switch-off sched:sched_process_exit \
    --show-on-off-events
# -L: perf's latency columns (comm in 8, the cpu as a number)
compare latency "$SW" -L --show-task-events
[ -s "$TMPD/fp.data" ] && compare latency "$TMPD/fp.data" -L --max-stack 4
if ! "$PERFSIFT" script -q --switch-on nope "$SW" > /dev/null 2> "$TMPD/sw.err" &&
   grep -q "no event 'nope'" "$TMPD/sw.err"; then
    pass "script-live switch: an unknown --switch-on event is an error"
else
    fail "script-live switch: --switch-on nope: $(head -c 200 "$TMPD/sw.err")"
fi
if perf record -q -g -F 999 -o - -- sh -c "$W" > "$TMPD/pipe.data" 2> /dev/null; then
    compare pipe "$TMPD/pipe.data"
    compare pipe "$TMPD/pipe.data" -G --show-mmap-events
    # a pipe's dump files open as its attrs arrive
    dump_compare pipe "$TMPD/pipe.data" --show-task-events
    DUMP_STDIN=1 dump_compare pipe "$TMPD/pipe.data"
else
    fail "script-live pipe: perf record -o - failed"
fi
# a pipe's tracepoints are all "unknown tracepoint" when their attrs arrive:
# perf opens that file once per event, each stream writing from its own
# offset, and reports its size as it is when it asks
dump_compare pipe-pS "$ROOT/testdata/pipe-pS.data"
finish
