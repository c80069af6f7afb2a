#!/bin/bash
# symfs.sh - `perfsift script --symfs DIR` and `--kallsyms FILE` equal perf
# script with the same options: binaries are looked for under DIR only (the
# corpus workload binaries are there, the system libraries are not), the
# build-id cache moves to DIR/.debug, and FILE gives kernel symbols without
# any build-id check (the corpus kernel is not the running one).
source "$(dirname "$0")/lib.sh"
require_perf
S="$TMPD/symfs"
mkdir -p "$S" && cp -r "$SHARED/corpus/symfs/." "$S/"
cp -rn "$SHARED/corpus/symfs/." / 2>/dev/null     # JIT maps are read from /tmp, as perf
grep -v '^0000000000000000' /proc/kallsyms > "$TMPD/kallsyms"
C="$SHARED/corpus/captures"

compare() {     # name capture options...
    local name=$1 f=$2; shift 2
    perf_run script "$@" -i "$f" > "$TMPD/perf.txt" 2> /dev/null
    env -i PATH="$PATH" HOME="$TMPD/home" LC_ALL=C \
        "$PERFSIFT" script -q "$@" "$f" > "$TMPD/ours.txt" 2> "$TMPD/ours.err"
    if [ -s "$TMPD/perf.txt" ] && cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt"; then
        pass "symfs $name ($(wc -l < "$TMPD/perf.txt") lines)"
    else
        fail "symfs $name ($(diff "$TMPD/perf.txt" "$TMPD/ours.txt" | grep -c '^>') of $(wc -l < "$TMPD/perf.txt") lines differ)"
        diff "$TMPD/perf.txt" "$TMPD/ours.txt" | head -6
    fi
}

for c in cpuhog-fp jit-map mthread-fp inject-buildid uprobe; do
    compare "$c --symfs" "$C/$c.data" --symfs "$S"
done
for c in cpuhog-fp syscalls-tp sched-tp-syswide; do
    compare "$c --kallsyms" "$C/$c.data" --kallsyms "$TMPD/kallsyms"
done
compare "cpuhog-fp --symfs --kallsyms -G" "$C/cpuhog-fp.data" -G --symfs "$S" --kallsyms "$TMPD/kallsyms"
# kernel symbols that stop early (testdata/kallsyms-head50): the first
# kernel sample's ip lies past them. perf looks it up (loading the symbols,
# the kernel map shrinking to them) before its chain, whose lookup of the
# same ip then finds no map: "[unknown] ([unknown])"
compare "diffpair/sh1 --kallsyms head50" "$ROOT/testdata/diffpair/sh1.data" \
    --kallsyms "$ROOT/testdata/kallsyms-head50"
# the outputs must show what the options change
grep -q 'bar+0x[0-9a-f]* (/tmp/perfcorpus/bin/cpuhog)' <(env -i PATH="$PATH" HOME="$TMPD/home" \
    "$PERFSIFT" script -q --symfs "$S" "$C/cpuhog-fp.data") &&
    pass "symfs: workload symbols found under --symfs" || fail "symfs: no workload symbol under --symfs"
grep -q '+0x[0-9a-f]* (\[kernel.kallsyms\])' <(env -i PATH="$PATH" HOME="$TMPD/home" \
    "$PERFSIFT" script -q --kallsyms "$TMPD/kallsyms" "$C/cpuhog-fp.data") &&
    pass "symfs: kernel symbols from --kallsyms" || fail "symfs: no kernel symbol from --kallsyms"
# a --kallsyms that is not there: perf script refuses it ("Invalid file"),
# and so does every perfsift command that reads symbols (sqlite writing
# nothing), where they used to print no kernel symbols without a word
perf_run script --kallsyms "$TMPD/no-kallsyms" -i "$C/cpuhog-fp.data" > /dev/null 2>&1; prc=$?
bad=""
for cmd in "script" "report --stdio" "folded" "json" "sqlite -o $TMPD/k.db"; do
    # shellcheck disable=SC2086
    env -i PATH="$PATH" HOME="$TMPD/home" LC_ALL=C "$PERFSIFT" $cmd --kallsyms \
        "$TMPD/no-kallsyms" "$C/cpuhog-fp.data" > /dev/null 2> "$TMPD/err"; rc=$?
    [ $rc -eq 1 ] && grep -q -- "--kallsyms $TMPD/no-kallsyms" "$TMPD/err" || bad="$bad ${cmd%% *}:$rc"
done
[ -e "$TMPD/k.db" ] && bad="$bad sqlite-wrote"
if [ $prc -ne 0 ] && [ -z "$bad" ]; then
    pass "symfs: a missing --kallsyms is an error, as in perf (exit 1, named)"
else
    fail "symfs: missing --kallsyms: perf exit $prc; perfsift:$bad"
fi
finish
