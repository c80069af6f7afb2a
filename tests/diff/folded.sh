#!/bin/bash
# folded.sh - `perfsift folded` (issue 5).
#  1. The peers' suites: FlameGraph's stackcollapse-perf.pl results with
#     --script-input --compat=perl (70 of 78; the 8 stale ones, listed in
#     shared/external/README.md, differ from the current script only by the
#     leading "L" of Java class names: checked as such), inferno's
#     collapse-perf results with the default mode.
#  2. The Perl script's bugs (tests/folded/*.txt, expected outputs beside
#     them): --compat=perl reproduces them, the default does not.
#  3. Every capture perf reads: the direct fold equals perf's own `perf
#     script` text folded with --script-input (same options), for the
#     default mode, annotations, pid/tid, srcline, inline, weights and
#     --compat=perl; --compat=perf-py equals perf's stackcollapse.py.
#  4. -o writes atomically; bad options and inputs are refused.
# SCRIPT_SETS=sanitize (make check SANITIZE=1) runs a subset: the suites and
# a representative dozen captures with two sets.
source "$(dirname "$0")/lib.sh"
require_perf
FG=$SHARED/external/FlameGraph/test
INF=$SHARED/external/inferno/collapse-perf
cp -rn "$SHARED/corpus/symfs/." / 2>/dev/null
install_dwarf_bins

ours() { env -i PATH="$PATH" HOME="$TMPD/home" LC_ALL=C "$PERFSIFT" "$@"; }
folded() { ours folded -q "$@"; }

if first_shard; then    # PS_SHARD (tests/run.sh): once, not per shard
# --- 1. FlameGraph's suite --------------------------------------------------
stale="perf-java-faults-01-pid perf-java-faults-01-tid perf-java-stacks-01-pid
perf-java-stacks-01-tid perf-java-stacks-02-pid perf-java-stacks-02-tid
perf-vertx-stacks-01-pid perf-vertx-stacks-01-tid"
ok=0 bad=""
for t in "$FG"/*.txt; do
    n=$(basename "$t" .txt)
    for o in pid tid kernel jit all addrs; do
        exp=$FG/results/$n-collapsed-$o.txt
        [ -f "$exp" ] || continue
        folded --script-input "$t" --compat=perl --"$o" > "$TMPD/out" 2>/dev/null
        if tr ' ' '\n' <<< "$stale" | grep -qx -- "$n-$o"; then
            # the results were made when only the comm "java" had its Java
            # names tidied; the script now tidies "java-PID" too
            python3 - "$exp" "$TMPD/out" <<'PY' && ok=$((ok + 1)) || bad="$bad $n-$o(stale)"
import sys, re
exp = open(sys.argv[1], 'rb').read().decode('latin-1').splitlines()
def fix(line):
    stack, count = line.rsplit(' ', 1)
    fr = stack.split(';')
    return ';'.join(fr[:1] + [f[1:] if f.startswith('L') and '/' in f else f for f in fr[1:]]) + ' ' + count
want = sorted(fix(l) for l in exp)
got = open(sys.argv[2], 'rb').read().decode('latin-1').splitlines()
# sorting again: removing an L can move a line
sys.exit(0 if sorted(got) == want and got == sorted(got, key=lambda s: s.encode('latin-1')) else 1)
PY
        elif cmp -s "$exp" "$TMPD/out"; then
            ok=$((ok + 1))
        else
            bad="$bad $n-$o"
        fi
    done
done
if [ -z "$bad" ] && [ "$ok" -eq 78 ]; then
    pass "folded FlameGraph suite --compat=perl: 78 of 78 (8 stale results checked as such)"
else
    fail "folded FlameGraph suite --compat=perl: $ok of 78; differ:$bad"
fi

# inferno's expectations: its fixes of the Perl script are the default's
# (EOF flush, one-line samples, template arguments, .ko and vmlinux-VER as
# kernel, jitted-PID-N.so as JIT, Rust legacy names); inferno keeps quotes,
# which stackcollapse-perf.pl (and so perfsift) deletes.
for exp in "$INF"/results/*-collapsed*.txt; do
    b=$(basename "$exp" .txt)
    n=${b%-collapsed*}; o=${b#*-collapsed}; o=${o#-}
    in=$INF/$n.txt
    [ -f "$in" ] || in=$FG/$n.txt
    if [ -f "$in" ]; then
        folded --script-input "$in" ${o:+--$o} > "$TMPD/out" 2>/dev/null
    elif [ "$n" = example-perf-stacks ]; then
        zcat "$SHARED/external/FlameGraph/example-perf-stacks.txt.gz" |
            folded --script-input - > "$TMPD/out" 2>/dev/null
    else
        fail "folded inferno $b: no input"; continue
    fi
    if tr -d "\"'" < "$exp" | LC_ALL=C sort | cmp -s - "$TMPD/out"; then
        pass "folded inferno $b${o:+ --$o}"
    else
        fail "folded inferno $b${o:+ --$o}"
        diff <(tr -d "\"'" < "$exp" | LC_ALL=C sort) "$TMPD/out" | head -4 | cut -c1-200
    fi
done

# --- 2. the Perl script's bugs ----------------------------------------------
for t in "$ROOT"/tests/folded/*.txt; do
    n=$(basename "$t" .txt)
    case $n in *.perl|*.default) continue ;; esac
    for mode in perl default; do
        exp=$ROOT/tests/folded/$n.$mode
        [ -f "$exp" ] || { fail "folded $n: no $n.$mode"; continue; }
        args=(); [ $mode = perl ] && args=(--compat=perl)
        opts=$(sed -n 's/^# options: //p' "$t")
        # shellcheck disable=SC2086
        if folded --script-input "$t" "${args[@]}" $opts 2>/dev/null | cmp -s - "$exp"; then
            pass "folded $n --compat=${mode/default/none}"
        else
            fail "folded $n --compat=${mode/default/none}"
            # shellcheck disable=SC2086
            folded --script-input "$t" "${args[@]}" $opts 2>&1 | diff - "$exp" | head -5
        fi
    done
done
fi

# --- 3. captures: direct fold == perf's text folded ------------------------
# name|folded options|perf script options. perf's text for each distinct
# perf option set is made once per capture. The corpus runs all sets (srcline
# on testdata and a few others: perf takes a second a capture for it), the
# other captures the first; perf's stackcollapse.py runs on testdata
# and the corpus. Where perf's text cannot say what the capture says, the
# text is not compared: without PERF_SAMPLE_TID (the first number after the
# comm is then the period), and -F +pid on tracepoints (perf then hides
# their call chains).
SETS=(
    "default||"
    "annotate|--all --addrs --weight samples|"
    "pid-tid|--pid --tid|-F +pid"
    "perl|--compat=perl --pid --kernel|"
    "srcline|--srcline|-F +srcline"
    "inline|--inline --context|"
)
EXT_SETS=("${SETS[0]}")
PY_SETS=("--include-pid --include-tid --kernel" "--no-comm --tidy-java")  # the 2nd: testdata
if [ "${SCRIPT_SETS:-}" = sanitize ]; then
    SETS=("${SETS[0]}" "${SETS[3]}"); EXT_SETS=(); PY_SETS=("--include-tid")
fi
PY=$(find /usr/lib/perf-core /usr/libexec/perf-core -name stackcollapse.py 2>/dev/null | head -1)
[ -n "$PY" ] || fail "folded: perf's stackcollapse.py not found (linux-perf)"

perf_text() {   # capture popts set -> file with perf's text (made once)
    local key
    key=$TMPD/perf-$(printf '%s' "$2" | tr -c 'a-z0-9' '_').txt
    if [ ! -e "$key" ]; then
        # shellcheck disable=SC2086
        # where perf is known to print wrongly (testdata/PERF-DIFFERENCES.md)
        # or dies half-way (SIGPIPE from addr2line on files that are not
        # ELF), fold perfsift script's text, which equals perf's elsewhere
        if ! perf_run script $2 -i "$1" > "$key" 2>/dev/null ||
           known_bug "$(basename "$1")" "$3"; then
            # shellcheck disable=SC2086
            ours script -q $2 "$1" > "$key" 2>/dev/null
        fi
    fi
    echo "$key"
}
known_bug() {
    grep -qF -e "| $1 | $2 |" -e "| $1 | all |" "$ROOT/testdata/PERF-DIFFERENCES.md" 2>/dev/null
}

while read -r f; do
    n=$(basename "$f")
    if [ "${SCRIPT_SETS:-}" = sanitize ]; then     # a representative few
        case $n in cpuhog-*|mthread-fp.data|jit*|sample-read-group.data|pipe-*|syscalls-tp.data|dwarf-*) ;;
        *) continue ;; esac
    fi
    rm -f "$TMPD"/perf-*.txt
    perf_run script -i "$f" > "$TMPD/perf-.txt" 2>/dev/null || continue   # perf cannot read it
    known_bug "$n" default && ours script -q "$f" > "$TMPD/perf-.txt" 2>/dev/null
    events=$("$PERFSIFT" info --events -q "$f" 2>/dev/null)
    if ! grep -q 'sample_type=[A-Z_|]*TID' <<< "$events"; then
        echo "note: folded $n: no PERF_SAMPLE_TID, perf's text is ambiguous; not compared"
        continue
    fi
    sets=("${SETS[@]}") corpus=1
    case $f in
    "$SHARED"/external/*|*/endian/*|*/edge/*) sets=("${EXT_SETS[@]}") corpus=0 ;;
    esac
    [ ${#sets[@]} -gt 0 ] || continue
    for set in "${sets[@]}"; do
        IFS='|' read -r sname fopts popts <<< "$set"
        if [ "$sname" = pid-tid ] && grep -q 'type=2 ' <<< "$events"; then
            continue
        fi
        # perf's srcline costs ~1 s a capture: testdata and a few others.
        # Not memfd.data: perf dies at its first memfd frame, and the
        # srcline line perfsift prints there ("memfd:spin (deleted)[7]")
        # reads as a frame line to stackcollapse-perf.pl's pattern, so the
        # text says nothing certain
        case $sname/$f in
        srcline/*/memfd.data) continue ;;
        srcline/"$ROOT"/testdata/*|srcline/*/cpuhog-*|srcline/*/jit*|srcline/*/mthread*) ;;
        srcline/*) continue ;;
        esac
        sref=default; [ "$sname" = srcline ] && sref=srcline-all
        # shellcheck disable=SC2086
        folded --script-input "$(perf_text "$f" "$popts" $sref)" $fopts > "$TMPD/text.txt" 2>/dev/null
        # shellcheck disable=SC2086
        folded $fopts "$f" > "$TMPD/direct.txt" 2> "$TMPD/direct.err"
        if cmp -s "$TMPD/text.txt" "$TMPD/direct.txt"; then
            pass "folded $n [$sname] ($(wc -l < "$TMPD/direct.txt") stacks)"
        else
            fail "folded $n [$sname]: direct differs from perf script's text"
            diff "$TMPD/text.txt" "$TMPD/direct.txt" | head -4 | cut -c1-200
        fi
    done
    [ $corpus = 1 ] || continue
    for o in "${PY_SETS[@]}"; do
        case $o in --no-comm*) case $f in "$ROOT"/testdata/*) ;; *) continue ;; esac ;; esac
        # shellcheck disable=SC2086
        perf_run script -i "$f" -s "$PY" -- $o > "$TMPD/py.txt" 2>/dev/null
        prc=$?
        # shellcheck disable=SC2086
        folded --compat=perf-py $o "$f" > "$TMPD/ours.txt" 2>/dev/null
        orc=$?
        if [ $prc -ne 0 ]; then
            # perf's Python scripting dies on some captures (a segfault on
            # names that are not UTF-8): nothing to compare, perfsift must
            # still fold them
            if [ $orc -eq 0 ] && [ -s "$TMPD/ours.txt" ]; then
                pass "folded $n --compat=perf-py $o (perf's stackcollapse.py fails: exit $prc)"
            else
                fail "folded $n --compat=perf-py $o: perf fails (exit $prc), perfsift exit $orc"
            fi
        elif cmp -s "$TMPD/py.txt" "$TMPD/ours.txt"; then
            pass "folded $n --compat=perf-py $o"
        else
            fail "folded $n --compat=perf-py $o"
            diff "$TMPD/py.txt" "$TMPD/ours.txt" | head -4 | cut -c1-200
        fi
    done
done < <(all_captures)

if first_shard; then    # PS_SHARD (tests/run.sh): once, not per shard
# --- 4. output, options, errors ---------------------------------------------
cap=$SHARED/corpus/captures/cpuhog-fp.data
folded "$cap" > "$TMPD/stdout.txt"
folded -o "$TMPD/out.folded" "$cap" && cmp -s "$TMPD/stdout.txt" "$TMPD/out.folded" &&
    [ -z "$(ls "$TMPD" | grep 'out.folded.tmp')" ] &&
    pass "folded -o writes the same as stdout, no temp file left" ||
    fail "folded -o"
echo keep > "$TMPD/keep.folded"
head -c 300 "$cap" > "$TMPD/bad.data"
if ! folded -o "$TMPD/keep.folded" "$TMPD/bad.data" 2>/dev/null &&
   [ "$(cat "$TMPD/keep.folded")" = keep ] && ! ls "$TMPD"/keep.folded.tmp.* >/dev/null 2>&1; then
    pass "folded -o: a failed run leaves the existing output and no temp file"
else
    fail "folded -o: a failed run touched the output or left a temp file"
fi
folded --weight bogus "$cap" >/dev/null 2>&1; [ $? -eq 2 ] && pass "folded: bad --weight is a usage error" || fail "folded: bad --weight"
folded --compat=python "$cap" >/dev/null 2>&1; [ $? -eq 2 ] && pass "folded: bad --compat is a usage error" || fail "folded: bad --compat"
folded --script-input /nonexistent >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && grep -q nonexistent "$TMPD/err" && pass "folded: missing --script-input file named, exit 1" || fail "folded: missing script input (rc $rc)"
"$PERFSIFT" folded --help | grep -q -- '--compat' && pass "folded --help" || fail "folded --help"
# --weight: samples count 1 each, period sums periods (cpuhog-fp: 250000 ns a sample)
s=$(folded --weight samples "$cap" | awk '{n += $NF} END {print n}')
p=$(folded --weight period "$cap" | awk '{n += $NF} END {print n}')
[ "$s" -gt 0 ] && [ "$p" -eq $((s * 250000)) ] && pass "folded --weight samples|period ($s samples)" ||
    fail "folded --weight: $s samples, $p period"
# --event-filter: a two-event capture folds one event at a time
multi=$SHARED/corpus/captures/sample-read-group.data
a=$(folded --event-filter cpu-clock "$multi" | awk '{n += $NF} END {print n+0}')
b=$(folded --event-filter page-faults "$multi" | awk '{n += $NF} END {print n+0}')
[ "$a" -gt "$b" ] && [ "$b" -gt 0 ] && pass "folded --event-filter picks one event ($a, $b)" ||
    fail "folded --event-filter: cpu-clock $a, page-faults $b"
fi
finish
