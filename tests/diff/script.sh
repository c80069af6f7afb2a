#!/bin/bash
# script.sh - `perfsift script` equals `perf script`, byte for byte, with
# the same options, on every capture perf reads (testdata/, the corpus, the
# external captures). Symbols: the corpus workload binaries and JIT maps
# are installed from shared/corpus/symfs into / (never overwriting), as
# oracle.sh does, so user-space symbols resolve the same for both tools.
# Differences allowed only where testdata/PERF-DIFFERENCES.md lists them:
# a line there "capture|option set|reason" skips nothing silently -- the
# test still runs and reports "(known perf bug)".
#
# SCRIPT_SETS=quick runs only the default set; SCRIPT_SETS=sanitize three
# sets (what `make check SANITIZE=1` runs, to keep CI under its time limit).
source "$(dirname "$0")/lib.sh"
require_perf
PERF_FAIL='incompatible|failed to process|decompress|unexpected end|bad event|non matching|broken or missing|cannot find event|data size field is 0|Segmentation|Bus error|problem processing|Invalid|unsupported|too large'

# install the corpus binaries / JIT maps where the captures name them
cp -rn "$SHARED/corpus/symfs/." / 2>/dev/null
install_dwarf_bins

# Option sets (name|options). Every capture runs the first six (the default
# and five others); testdata and the corpus also run the rest, whose pids,
# comms and times are the corpus captures'.
SETS=(
    "default|"
    "nocg-ns|-G --ns --reltime"
    "fields|-F comm,tid,pid,time,event,ip,sym,dso"
    "fields-plus|-F +pid,-period --max-stack 3 --deltatime"
    "sideband|--show-task-events --show-mmap-events --show-switch-events --show-namespace-events --show-lost-events --show-bpf-events --show-cgroup-events --show-text-poke-events -G"
    "typed|-F sw:comm,tid,time,event,ip,sym,symoff -F trace:comm,cpu,event,trace,ip -F hw:-period,+pid"
    "rounds|--show-round-events --show-task-events --deltatime"
    "misc-cpu|-F comm,tid,cpu,time,misc,event,ip --cpu 0"
    "filters|--comms cpuhog,mt-main,sysio,sh,swapper,perf-exec,memtouch,mthread --cpu 0 -G"
    "pid-time|--pid 22850,23099,23186,28100 --tid 23131,23188 --time 1559.4,2541.56 --ns"
    "srcline-all|-F +srcline"
)
EXT_SETS=("${SETS[@]:0:6}")
if [ "${SCRIPT_SETS:-}" = quick ]; then
    SETS=("${SETS[0]}"); EXT_SETS=("${SETS[0]}")
elif [ "${SCRIPT_SETS:-}" = sanitize ]; then
    SETS=("${SETS[0]}" "${SETS[4]}" "${SETS[5]}"); EXT_SETS=("${SETS[0]}")
fi

known_bug() {   # capture set -> 0 if listed in PERF-DIFFERENCES.md
    grep -qF -e "| $1 | $2 |" -e "| $1 | all |" "$ROOT/testdata/PERF-DIFFERENCES.md" 2>/dev/null
}

# DWARF call chains are unwound from the copied user stack, with inlined
# functions and source lines from DWARF (issue 4): those captures also run
# these sets.
DWARF_SETS=(
    "inline|--inline"
    "srcline|-F +srcline"
    "srcline-noinline|--no-inline -F +srcline --max-stack 5"
    "nostack|--max-stack 0"
)
dwarf_capture() {
    "$PERFSIFT" info --events -q "$1" 2>/dev/null | grep -q 'REGS_USER.*STACK_USER'
}

# A known perf bug on an other-endian twin X_be.data: perfsift must print
# for it what perf prints for X.data.
twin_ok() {
    local twin=${1%_be.data}.data
    [ "$1" != "$twin" ] && [ -e "$twin" ] || return 1
    # shellcheck disable=SC2086
    perf_run script $2 -i "$twin" 2>/dev/null | cmp -s - "$TMPD/ours.txt"
}

# AUX area traces (Intel PT ...) are not decoded: perf is asked not to
# either (--itrace= : no synthesized samples), and perfsift must say so.
aux_capture() {
    "$PERFSIFT" info --stats -q "$1" 2>/dev/null | grep -qE 'AUXTRACE_INFO events: +[1-9]'
}

while read -r f; do
    n=$(basename "$f")
    pextra="" dsets=()
    dwarf_capture "$f" && dsets=("${DWARF_SETS[@]}")
    if aux_capture "$f"; then
        pextra="--itrace="
        if "$PERFSIFT" script "$f" 2>&1 >/dev/null | grep -q 'AUX area trace data'; then
            pass "script $n: warns that AUX trace data is not decoded"
        else
            fail "script $n: no warning about undecoded AUX trace data"
        fi
    fi
    sets=("${SETS[@]}")
    case $f in "$SHARED"/external/*) sets=("${EXT_SETS[@]}") ;; esac
    sets+=("${dsets[@]}")
    for set in "${sets[@]}"; do
        sname=${set%%|*}; opts="${set#*|}"
        # shellcheck disable=SC2086
        perf_run script $opts $pextra -i "$f" > "$TMPD/perf.txt" 2> "$TMPD/perf.err"
        prc=$?
        # shellcheck disable=SC2086
        env -i PATH="$PATH" HOME="$TMPD/home" LC_ALL=C \
            "$PERFSIFT" script -q $opts "$f" > "$TMPD/ours.txt" 2> "$TMPD/ours.err"
        orc=$?
        if [ $prc -ne 0 ] || grep -qiE "$PERF_FAIL" "$TMPD/perf.err"; then
            # perf refuses or misreads: perfsift must refuse the same
            # options (exit 2/1) or read the capture cleanly
            if [ $prc -ne 0 ] && [ $orc -ne 0 ]; then
                pass "script $n [$sname] (both refuse)"
            elif [ $orc -le 1 ] && [ -s "$TMPD/ours.err" -o $orc -eq 0 ]; then
                pass "script $n [$sname] (perf: $(grep -m1 -iE "$PERF_FAIL" "$TMPD/perf.err" | cut -c1-50))"
            else
                fail "script $n [$sname]: perf rc $prc, perfsift rc $orc"
                head -3 "$TMPD/ours.err"
            fi
            continue
        fi
        if cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt"; then
            pass "script $n [$sname]"
        elif known_bug "$n" "$sname"; then
            case $n in
            *_be.data)
                if twin_ok "$f" "$opts"; then
                    pass "script $n [$sname] (perf bug on other-endian files; equals perf on the twin)"
                else
                    fail "script $n [$sname]: listed perf bug, but differs from perf on the twin"
                fi ;;
            *) pass "script $n [$sname] (differs: known perf bug, testdata/PERF-DIFFERENCES.md)" ;;
            esac
        else
            fail "script $n [$sname] ($(wc -l < "$TMPD/perf.txt") lines, $(diff "$TMPD/perf.txt" "$TMPD/ours.txt" | grep -c '^>') differ; perfsift rc $orc)"
            diff "$TMPD/perf.txt" "$TMPD/ours.txt" | head -6
        fi
    done
done < <(all_captures)

# same_as_perf WHAT FILE OPTS: perfsift script equals perf script there
same_as_perf() {
    # shellcheck disable=SC2086
    perf_run script $3 -i "$2" > "$TMPD/perf.txt" 2>/dev/null
    local prc=$?
    # shellcheck disable=SC2086
    "$PERFSIFT" script -q $3 "$2" > "$TMPD/ours.txt" 2>/dev/null
    if [ $prc = 0 ] && cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt"; then
        pass "script $(basename "$2") [$3]: $1"
    else
        fail "script $(basename "$2") [$3]: $(diff "$TMPD/perf.txt" "$TMPD/ours.txt" | grep -c '^[<>]') lines differ"
    fi
}
# same_refusal WHAT FILE OPTS: perf and perfsift both refuse the options
# with perf's message, after the same standard output
same_refusal() {
    # shellcheck disable=SC2086
    perf_run script $3 -i "$2" > "$TMPD/perf.txt" 2> "$TMPD/perf.err"
    local prc=$?
    # shellcheck disable=SC2086
    TZ=UTC "$PERFSIFT" script -q $3 "$2" > "$TMPD/ours.txt" 2> "$TMPD/ours.err"
    local orc=$?
    if [ $prc -ne 0 ] && [ $orc -eq 1 -o $orc -eq 2 ] && [ -s "$TMPD/ours.err" ] &&
       cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt" && grep -qxF "$(head -1 "$TMPD/ours.err")" "$TMPD/perf.err"; then
        pass "script $(basename "$2") [$3]: $1"
    else
        fail "script $(basename "$2") [$3]: perf rc $prc, perfsift rc $orc: $(head -c 150 "$TMPD/ours.err")"
    fi
}
# the fields are checked against the first event of each type that is not
# the dummy: here cpu-clock, after a dummy, lacks them
for opts in "-F +iregs" "-F +cpu" "-F +addr"; do
    same_refusal "checked against cpu-clock, not the dummy" "$ROOT/testdata/dummy-first.data" "$opts"
done
# "-F type:" with no field asks for events of the type (the dummy is none),
# with one it does not (perf flags the type as set by wildcard); perf names
# only hw, sw and tracepoint types in its messages
TP=$ROOT/testdata/tp-only.data
for opts in "-F sw:" "-F break:" "-F trace:comm -F raw:," "-F raw:trace"; do
    same_refusal "perf's message" "$TP" "$opts"
done
same_refusal "a dummy is no software event" "$SHARED/corpus/captures/sched-tp-syswide.data" "-F sw:"
same_as_perf "a type with a field need not exist" "$TP" "-F hw:comm,ip -F trace:comm,trace"
# the header prints before the options are checked; --header-only checks none
MS=$ROOT/testdata/multi-sys.data
same_refusal "the header, then the refusal" "$MS" "--header -F +iregs"
same_refusal "the header, then the refusal" "$MS" "--header --cpu 7"
for opts in "--header-only -F +iregs" "--header-only --cpu 7" "--header-only -F hw:"; do
    TZ=UTC same_as_perf "no check with --header-only" "$MS" "$opts"
done
# machine_pid and vcpu print only for guests (perf's guest options) and
# callindent only in branch traces, but a sample with only those is a line
for opts in "-F machine_pid" "-F +machine_pid,+vcpu" "-F callindent" "-F trace:vcpu -F sw:comm,vcpu"; do
    same_as_perf "fields with nothing to print" "$MS" "$opts"
done
# -F srccode: the sample ip's source line from the file addr2line names
# (the workload's source, installed where it was compiled), once per thread
# and line; "sh -c" forks the traced child
install_bin "$ROOT/testdata/dwarf/inline.c" /tmp/perfsift-dwarf/inline.c
for f in dwarf-inline.data dwarf-forkexec.data; do
    for opts in "-F +srccode" "-F comm,tid,ip,sym,srccode -G"; do
        same_as_perf "source lines" "$ROOT/testdata/$f" "$opts"
    done
done
same_refusal "srccode needs the ip" "$MS" "-F srccode"
# perf's -F warnings, word for word (on stderr; -q hides them), and its
# message without a space
for opts in "-F +trace" "-F comm -F sw:comm -F sw:+tid -F tid -F trace:+ip"; do
    # shellcheck disable=SC2086
    perf_run script $opts -i "$MS" 2>&1 > /dev/null | grep -E 'Overriding|not valid' > "$TMPD/perf.err"
    # shellcheck disable=SC2086
    "$PERFSIFT" script $opts "$MS" 2>&1 > /dev/null | grep -E 'Overriding|not valid' > "$TMPD/ours.err"
    # shellcheck disable=SC2086
    if [ -s "$TMPD/perf.err" ] && cmp -s "$TMPD/perf.err" "$TMPD/ours.err" &&
       [ -z "$("$PERFSIFT" script -q $opts "$MS" 2>&1 > /dev/null)" ]; then
        pass "script multi-sys.data [$opts]: perf's warnings"
    else
        fail "script multi-sys.data [$opts]: warnings differ: $(diff "$TMPD/perf.err" "$TMPD/ours.err" | head -3)"
    fi
done
same_refusal "perf's message" "$MS" "-F comm,symoff"
# --dsos leaves out samples whose ip is in no map (they have no DSO), as
# perf's machine__resolve(): captures with such samples
set -f      # "[kernel.kallsyms]" is no glob
for f in "$SHARED/external/hotspot/cpp-recursion.perf.data" \
         "$SHARED/external/quipper/perf.data.lost_samples-4.4"; do
    for opts in "--dsos [kernel.kallsyms] -G" "--dsos libc.so.6"; do
        same_as_perf "samples in no map left out" "$f" "$opts"
    done
done
# PERF_SAMPLE_READ groups: each value's period is its increase since the
# id's previous sample, filtered or not (perf splits before it filters)
for opts in "--time 10%/2" "--time 0%-10%,50%-60%" "--dsos [kernel.kallsyms]"; do
    same_as_perf "read values' periods across filtered samples" \
        "$SHARED/corpus/captures/sample-read-group.data" "$opts"
done
set +f
# -F flags is one switch for every event type in perf 6.1, whatever type
# the list names: captures with tracepoints and software events
for f in "$ROOT/testdata/multi-sys.data" "$SHARED/corpus/captures/syscalls-tp.data"; do
    for opts in "-F sw:+flags" "-F trace:comm,flags" "-F +flags -F sw:comm" "-F +flags -F -flags"; do
        same_as_perf "flags for every type" "$f" "$opts"
    done
done
# perf reads the data.* files of a directory capture one after the other
# in readdir() order (perf_data__open_dir() does not sort them), which is
# the output order without ordering (--show-round-events). The fixture's
# two files under both names: in one copy readdir() order is not data.0,
# data.1.
for swap in 0 1; do
    d=$TMPD/threads-swap$swap.data
    mkdir -p "$d"
    cp "$ROOT/testdata/threads-2.data/data" "$d/data"
    cp "$ROOT/testdata/threads-2.data/data.$swap" "$d/data.0"
    cp "$ROOT/testdata/threads-2.data/data.$((1 - swap))" "$d/data.1"
    for opts in "--show-round-events" "--show-round-events --show-task-events -G" ""; do
        same_as_perf "data.* files in readdir() order ($(ls -f "$d" | grep '^data\.' | tr '\n' ' '))" \
            "$d" "$opts"
    done
done
# Fields of later perfs perf 6.1 does not know, on a capture whose samples
# carry PERF_SAMPLE_CGROUP: both refuse with "Invalid field requested."
for opts in "-F cgroup" "-F +cgroup" "-F comm,dsoff"; do
    f=$SHARED/corpus/captures/cgroups.data
    # shellcheck disable=SC2086
    perf_run script $opts -i "$f" > "$TMPD/perf.txt" 2> "$TMPD/perf.err"
    prc=$?
    # shellcheck disable=SC2086
    "$PERFSIFT" script -q $opts "$f" > "$TMPD/ours.txt" 2> "$TMPD/ours.err"
    orc=$?
    if [ $prc -ne 0 ] && [ $orc -eq 2 ] && [ ! -s "$TMPD/ours.txt" ] &&
       grep -qx 'Invalid field requested.' "$TMPD/perf.err" &&
       grep -qx 'Invalid field requested.' "$TMPD/ours.err"; then
        pass "script cgroups.data [$opts]: refused as perf 6.1 refuses it"
    else
        fail "script cgroups.data [$opts]: perf rc $prc, perfsift rc $orc: $(head -c 100 "$TMPD/ours.err")"
    fi
done
# -F tod on pipe captures: perf checks only a file's header for CLOCK_DATA;
# a pipe's comes as a record, and a sample before it (or with none, -k not
# given) prints "disabled" for its time of day
for f in "$ROOT/testdata/pipe-clock.data" "$ROOT/testdata/pipe-z.data"; do
    for opts in "-F +tod" "-F +tod --ns --show-task-events"; do
        TZ=UTC same_as_perf "time of day in a pipe" "$f" "$opts"
    done
done
finish
