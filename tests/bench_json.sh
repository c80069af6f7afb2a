#!/bin/bash
# bench_json.sh PERFSIFT - `make bench`, issue 7: perfsift json on the bench
# capture (tests/bench.sh records it) against perf data convert --to-json:
#   perfsift json --perf-compat  vs  perf data convert --to-json (goal: 5x
#                                    faster; the outputs compared byte for byte)
#   perfsift json (the document), --lines and --format speedscope, timed
#   peak RSS of --lines on the small and the large capture (goal: flat, one
#   record's objects at a time) and of perf data convert
set -euo pipefail
PERFSIFT=${1:-$(dirname "$0")/../perfsift}
DIR=${BENCH_DIR:-/tmp/perfsift-bench}
f=$DIR/large.data
[ -s "$f" ] || { echo "bench_json: run tests/bench.sh first (it records $f)" >&2; exit 1; }
export HOME=$DIR/home; mkdir -p "$HOME"
out=$DIR/json.out
trap 'rm -f "$out" "$DIR/perf.json" "$DIR/ours-perf.json"' EXIT

source "$(dirname "$0")/bench_lib.sh"

size=$(echo "$(stat -L -c %s "$f") / 1048576" | bc -l)
read -r pc prss <<< "$(best 1 /dev/null perf data convert --to-json "$DIR/perf.json" --force -i "$f")"
read -r oc _ <<< "$(best 3 "$DIR/ours-perf.json" "$PERFSIFT" json -q --perf-compat "$f")"
cmp -s "$DIR/perf.json" "$DIR/ours-perf.json" && same=identical || same=DIFFERENT
jmb=$(( $(stat -c %s "$DIR/ours-perf.json") >> 20 ))
rm -f "$DIR/perf.json" "$DIR/ours-perf.json"
read -r od _ <<< "$(best 1 "$out" "$PERFSIFT" json -q "$f")"
dmb=$(( $(stat -c %s "$out") >> 20 ))
read -r ol lrss <<< "$(best 1 "$out" "$PERFSIFT" json -q --lines "$f")"
read -r os srss <<< "$(best 1 "$out" "$PERFSIFT" json -q --format speedscope "$f")"
read -r _ small_rss <<< "$(best 1 /dev/null "$PERFSIFT" json -q --lines "$DIR/small.data")"
printf 'json %6.1f MB  perf data convert --to-json %7.3fs | perfsift json --perf-compat %6.3fs | ratio %5.1fx (goal 5x) | %d MB, output %s\n' \
    "$size" "$pc" "$oc" "$(echo "$pc / $oc" | bc -l)" "$jmb" "$same"
printf 'json %6.1f MB  perfsift json %6.3fs (%d MB) | --lines %6.3fs | --format speedscope %6.3fs (%d KB peak)\n' \
    "$size" "$od" "$dmb" "$ol" "$os" "$srss"
printf 'json peak RSS: --lines small capture %d KB, large capture %d KB (one record at a time; RSS counts the mapped capture'"'"'s pages read ahead) | perf data convert %d KB\n' \
    "$small_rss" "$lrss" "$prss"
