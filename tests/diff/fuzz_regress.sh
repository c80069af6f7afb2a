#!/bin/bash
# fuzz_regress.sh - every input the fuzzers once failed on
# (tests/fuzz/regress/TARGET/*) replayed through that target, built with
# the normal compiler (sanitizers under SANITIZE=1): exit 0, no report.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/fuzz/lsan.supp:print_suppressions=0}
[ -d "$here/../$B" ] && B="$here/../$B"
pass=0 fail=0
for d in "$here"/fuzz/regress/*/; do
    t=$(basename "$d")
    bin="$B/tests/replay_$t"
    for f in "$d"*; do
        [ -f "$f" ] || continue
        if [ ! -x "$bin" ]; then
            echo "FAIL fuzz-regress $t/$(basename "$f"): $bin not built"; fail=$((fail + 1)); continue
        fi
        if out=$(timeout 60 "$bin" "$f" 2>&1); then
            echo "PASS fuzz-regress $t/$(basename "$f")"; pass=$((pass + 1))
        else
            echo "FAIL fuzz-regress $t/$(basename "$f")"; echo "$out" | tail -n 15; fail=$((fail + 1))
        fi
    done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
