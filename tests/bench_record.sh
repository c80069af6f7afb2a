#!/bin/bash
# bench_record.sh PERFSIFT - `make bench`, issue 9: the cpu-bound corpus
# workload (cpuhog: foo/bar) run alone, under perf record and under perfsift
# record at the same frequency, fp and dwarf callchains; best wall time of 3
# runs each. Goal: perfsift record adds no more overhead than perf record.
set -euo pipefail
PERFSIFT=${1:-$(dirname "$0")/../perfsift}
DIR=${BENCH_DIR:-/tmp/perfsift-bench}
SHARED=${PS_SHARED:-$(cd "$(dirname "$0")/../../shared" && pwd)}
BIN=$SHARED/corpus/symfs/tmp/perfcorpus/bin
[ -x /tmp/perfcorpus/bin/cpuhog ] && BIN=/tmp/perfcorpus/bin
ROUNDS=${ROUNDS:-600}               # millions of iterations: 1-2 s here
mkdir -p "$DIR"
export HOME=$DIR/home; mkdir -p "$HOME"
trap 'rm -f "$DIR/rec-perf.data" "$DIR/rec-ours.data" "$DIR"/rec-*.old "$DIR/rec.out"' EXIT

source "$(dirname "$0")/bench_lib.sh"

read -r base _ <<< "$(best 3 "$DIR/rec.out" "$BIN/cpuhog" "$ROUNDS")"
for mode in "-g" "--call-graph dwarf,4096"; do
    # shellcheck disable=SC2086
    read -r tp _ <<< "$(best 3 "$DIR/rec.out" perf record -q -F 4000 $mode -o "$DIR/rec-perf.data" \
        -- "$BIN/cpuhog" "$ROUNDS")"
    # shellcheck disable=SC2086
    read -r to _ <<< "$(best 3 "$DIR/rec.out" "$PERFSIFT" record -q -F 4000 $mode \
        -o "$DIR/rec-ours.data" -- "$BIN/cpuhog" "$ROUNDS")"
    printf 'record %-24s cpuhog %d: alone %6.3fs | perf record %6.3fs (+%5.1f%%) | perfsift record %6.3fs (+%5.1f%%) | sizes %d / %d KB\n' \
        "-F 4000 $mode" "$ROUNDS" "$base" "$tp" "$(echo "($tp - $base) * 100 / $base" | bc -l)" \
        "$to" "$(echo "($to - $base) * 100 / $base" | bc -l)" \
        $(( $(stat -c %s "$DIR/rec-perf.data") >> 10 )) $(( $(stat -c %s "$DIR/rec-ours.data") >> 10 ))
done
