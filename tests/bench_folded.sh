#!/bin/bash
# bench_folded.sh PERFSIFT - `make bench`, issue 5: folded stacks and flame
# graphs on the bench capture (tests/bench.sh records it: >= 90 MB, deep
# frame-pointer stacks at 20 kHz), side by side with perf:
#   perfsift folded  vs  perf script -s stackcollapse.py (the folding perf
#                        ships; stackcollapse-perf.pl is not packaged)
#   perfsift folded  vs  perf script > /dev/null alone
#   perfsift flamegraph -o x.svg (goal: under a second)
# and peak RSS of perfsift folded on the small and the large capture (goal:
# flat). Outputs are compared: --compat=perf-py with stackcollapse.py's.
# Goals: 50x faster than stackcollapse.py, 10x faster than perf script.
set -euo pipefail
PERFSIFT=${1:-$(dirname "$0")/../perfsift}
DIR=${BENCH_DIR:-/tmp/perfsift-bench}
PY=$( (find /usr/lib/perf-core /usr/libexec/perf-core -name stackcollapse.py 2>/dev/null || true) | head -1)
f=$DIR/large.data
[ -s "$f" ] || { echo "bench_folded: run tests/bench.sh first (it records $f)" >&2; exit 1; }
export HOME=$DIR/home; mkdir -p "$HOME"

source "$(dirname "$0")/bench_lib.sh"

size=$(echo "$(stat -c %s "$f") / 1048576" | bc -l)
read -r ps _ <<< "$(best 1 /dev/null perf script -i "$f")"
read -r py _ <<< "$(best 1 "$DIR/py.folded" perf script -i "$f" -s "$PY")"
read -r of orss <<< "$(best 3 "$DIR/ours.folded" "$PERFSIFT" folded -q "$f")"
read -r opy _ <<< "$(best 1 "$DIR/ours-py.folded" "$PERFSIFT" folded -q --compat=perf-py "$f")"
read -r sv _ <<< "$(best 3 /dev/null "$PERFSIFT" flamegraph -q "$f" -o "$DIR/large.svg")"
read -r _ srss <<< "$(best 1 /dev/null "$PERFSIFT" folded -q "$DIR/small.data")"
cmp -s "$DIR/py.folded" "$DIR/ours-py.folded" && same=identical || same=DIFFERENT
printf 'folded %6.1f MB  perf script -s stackcollapse.py %7.3fs | perfsift folded %6.3fs | ratio %6.1fx (goal 50x) | --compat=perf-py output %s\n' \
    "$size" "$py" "$of" "$(echo "$py / $of" | bc -l)" "$same"
printf 'folded %6.1f MB  perf script > /dev/null         %7.3fs | perfsift folded %6.3fs | ratio %6.1fx (goal 10x)\n' \
    "$size" "$ps" "$of" "$(echo "$ps / $of" | bc -l)"
printf 'flamegraph %6.1f MB  perfsift flamegraph -o svg %6.3fs (goal < 1 s) | %d stacks, %d KB SVG\n' \
    "$size" "$sv" "$(wc -l < "$DIR/ours.folded")" "$(( $(stat -c %s "$DIR/large.svg") / 1024 ))"
printf 'folded peak RSS: small capture %d KB, large capture %d KB (flat: the table holds distinct stacks only)\n' \
    "$srss" "$orss"
