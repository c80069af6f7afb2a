#!/bin/bash
# run.sh - `make check`: every unit test binary given as an argument, then
# every differential test tests/diff/*.sh (real perf is the oracle, run now).
# Each prints PASS <name> / FAIL <name> lines; this script counts them and
# ends with "N passed, N failed". Exit status 1 if anything failed.
#
# Test files run PS_JOBS at a time (default: twice the number of CPUs; the tests
# are independent: each works in its own temp dir). Each file's output is
# printed whole when it finishes, so the log reads like a sequential run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export PERFSIFT=${PERFSIFT:-$here/../perfsift}
export PS_TESTS=$here
# Two files per CPU: the tests wait on perf, pipes and browsers often enough
# that one per CPU leaves the CPUs half idle.
jobs_max=${PS_JOBS:-$((2 * $(nproc 2>/dev/null || echo 1)))}
out=$(mktemp -d /tmp/perfsift-check.XXXXXX)
trap 'rm -rf "$out"' EXIT

# The longest files start first so that the last to finish is a short one
# (longest-processing-time-first); the rest keep their order.
slow_first="script folded flamegraph dump header json sqlite srcline stats"
# Files whose capture loop (all_captures in diff/lib.sh) is split over
# several processes with PS_SHARD=i/n: name:n.
sharded="script:3 folded:2"

run() {     # name, command...: output to $out/name.out, then shown whole
    local name=$1; shift
    local t0=$SECONDS
    "$@" > "$out/$name.out" 2>&1
    local rc=$?
    grep -v -E '^[0-9]+ passed, [0-9]+ failed' "$out/$name.out" > "$out/$name.log"
    if [ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$out/$name.log"; then
        echo "FAIL $name (exit $rc)" >> "$out/$name.log"
    fi
    # Wall time per file, listed at the end: the CI budget is 20 minutes.
    echo "$((SECONDS - t0)) $name" > "$out/$name.time"
    { echo "== $name ($((SECONDS - t0)) s)"; cat "$out/$name.log"; } |
        flock "$out/.print" cat
}

spawn() {   # run in the background, at most jobs_max at once
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
    run "$@" &
}

# PS_ORACLE_CACHE=DIR: perf's outputs are remembered in DIR
# (tests/tools/oracle/perf): the same read-only perf command on the same
# bytes runs once, in this run and in later ones on the same machine (a
# sanitizer run after a plain one compares with the outputs perf gave it).
# Off by default: each first run pays ~0.1 s for the wrapper and the
# hashing, more than one run of make check saves.
if [ -n "${PS_ORACLE_CACHE:-}" ] && command -v perf >/dev/null; then
    mkdir -p "$PS_ORACLE_CACHE/bin"
    touch "$PS_ORACLE_CACHE/.perfsift-oracle"
    ln -sfn "$here/tools/oracle/perf" "$PS_ORACLE_CACHE/bin/perf"
    export PATH="$PS_ORACLE_CACHE/bin:$PATH"
fi
if ! command -v perf >/dev/null; then
    echo "FAIL perf-installed: perf not found (install linux-perf; make deps)" |
        tee "$out/perf-installed.log"
fi
diffs=()
for s in $slow_first; do
    [ -e "$here/diff/$s.sh" ] && diffs+=("$here/diff/$s.sh")
done
for t in "$here"/diff/*.sh; do
    n=$(basename "$t" .sh)
    [ "$n" != lib.sh ] && [ "$n" != lib ] || continue
    case " $slow_first " in *" $n "*) continue ;; esac
    diffs+=("$t")
done
# PS_SKIP="name ...": leave those differential files out, each named (a
# quicker partial run while working on something else).
for t in "${diffs[@]}"; do
    n=$(basename "$t" .sh)
    case " ${PS_SKIP:-} " in
        *" $n "*) echo "== $n: not run (PS_SKIP)" ; continue ;;
    esac
    k=$(echo " $sharded " | grep -oE " $n:[0-9]+ " | cut -d: -f2)
    if [ -z "$k" ]; then
        spawn "$n" bash "$t"
        continue
    fi
    for ((i = 0; i < ${k% }; i++)); do
        spawn "$n.$((i + 1))of${k% }" env PS_SHARD="$i/${k% }" bash "$t"
    done
done
for t in "$@"; do
    spawn "$(basename "$t")" "$t"
done
wait

echo
echo "slowest test files (seconds):"
cat "$out"/*.time | sort -rn | head -8 | sed 's/^/  /'
pass=$(cat "$out"/*.log | grep -c '^PASS')
fail=$(cat "$out"/*.log | grep -c '^FAIL')
echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
