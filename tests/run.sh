#!/bin/bash
# run.sh - `make check`: every unit test binary given as an argument, then
# every differential test tests/diff/*.sh (real perf is the oracle, run now).
# Each prints PASS <name> / FAIL <name> lines; this script counts them and
# ends with "N passed, N failed". Exit status 1 if anything failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export PERFSIFT=${PERFSIFT:-$here/../perfsift}
export PS_TESTS=$here
log=$(mktemp /tmp/perfsift-check.XXXXXX)
trap 'rm -f "$log"' EXIT

run() {     # name, command...: stream output, keep PASS/FAIL lines
    local name=$1; shift
    echo "== $name"
    "$@" 2>&1 | grep -v -E '^[0-9]+ passed, [0-9]+ failed' | tee -a "$log"
    local rc=${PIPESTATUS[0]}
    if [ "$rc" -ne 0 ] && ! grep -q '^FAIL' <(tail -n 1000 "$log"); then
        echo "FAIL $name (exit $rc)" | tee -a "$log"
    fi
}

if ! command -v perf >/dev/null; then
    echo "FAIL perf-installed: perf not found (install linux-perf; make deps)" | tee -a "$log"
fi
for t in "$@"; do
    run "$(basename "$t")" "$t"
done
for t in "$here"/diff/*.sh; do
    [ -e "$t" ] && [ "$(basename "$t")" != lib.sh ] || continue
    run "$(basename "$t" .sh)" bash "$t"
done
pass=$(grep -c '^PASS' "$log")
fail=$(grep -c '^FAIL' "$log")
echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
