#!/bin/bash
# run.sh TARGET... - run each libFuzzer target for FUZZ_SECONDS, FUZZ_JOBS
# at a time (make fuzz). Seeds are made from the captures on first use
# (seeds.py); each target's corpus grows in $FUZZ_BUILD/corpus/T and
# survives between runs. A crash, leak, timeout or sanitizer report leaves
# its input in $FUZZ_BUILD/artifacts/T/ and fails the run; minimize it
# (tests/fuzz/README.md) into tests/fuzz/regress/T/. FUZZ_SEED=N gives
# libFuzzer -seed=N (a CI run replays the same way on another machine).
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=${FUZZ_BUILD:-build-fuzz}
S=${FUZZ_SECONDS:-60}
J=${FUZZ_JOBS:-2}
NICE=${FUZZ_NICE:-0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/lsan.supp:print_suppressions=0}
[ -d "$B/seeds" ] || python3 "$here/seeds.py" "$B/seeds" || exit 1

one() {     # target: one run, its log kept, a summary line printed
    local t=$1 rc dirs
    mkdir -p "$B/corpus/$t" "$B/seeds/$t" "$B/artifacts/$t"
    dirs=("$B/corpus/$t" "$B/seeds/$t")
    [ -d "$here/regress/$t" ] && dirs+=("$here/regress/$t")
    local seed=()
    [ -n "${FUZZ_SEED:-}" ] && seed=(-seed="$FUZZ_SEED")
    nice -n "$NICE" "$B/fuzz_$t" "${seed[@]}" -max_total_time="$S" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
        -malloc_limit_mb=1024 -max_len=262144 -dict="$here/perf.dict" -print_final_stats=1 \
        -artifact_prefix="$B/artifacts/$t/" "${dirs[@]}" >"$B/fuzz_$t.log" 2>&1
    rc=$?
    local last
    last=$(grep -E '^#[0-9]+' "$B/fuzz_$t.log" | tail -n 1)
    if [ $rc -eq 0 ]; then
        echo "PASS fuzz_$t ${S}s: $last"
    else
        echo "FAIL fuzz_$t (exit $rc): see $B/fuzz_$t.log, input in $B/artifacts/$t/"
        grep -E 'ERROR|SUMMARY|runtime error' "$B/fuzz_$t.log" | head -n 5
    fi
    return $rc
}
export -f one
export B S here NICE FUZZ_SEED
out=$(mktemp)
printf '%s\n' "$@" | xargs -P "$J" -I{} bash -c 'one {}' | tee "$out"
pass=$(grep -c '^PASS' "$out")
fail=$(grep -c '^FAIL' "$out")
rm -f "$out"
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
