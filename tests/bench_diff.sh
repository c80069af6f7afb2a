#!/bin/bash
# bench_diff.sh PERFSIFT - `make bench`, issue 8: the perf diff table and
# the perf report table on the bench captures (tests/bench.sh records them:
# small.data ~5 MB and large.data >= 90 MB of deep frame-pointer stacks),
# side by side with perf:
#   perfsift diff small.data large.data    vs  perf diff (goal: 10x faster)
#   perfsift report --no-children -g none  vs  perf report --stdio
#     large.data                               --no-children -g none
#   perfsift report --children -g none     vs  perf report --stdio
#                                              --children -g none
#   perfsift report large.data             vs  perf report --stdio (its
#                                              default: call graphs)
# Outputs are compared (same text, or the number of differing lines).
# Not part of `make check`: timings are not assertions.
set -euo pipefail
PERFSIFT=${1:-$(dirname "$0")/../perfsift}
DIR=${BENCH_DIR:-/tmp/perfsift-bench}
a=$DIR/small.data b=$DIR/large.data
[ -s "$a" ] && [ -s "$b" ] || { echo "bench_diff: run tests/bench.sh first (it records $b)" >&2; exit 1; }
export HOME=$DIR/home; mkdir -p "$HOME"

source "$(dirname "$0")/bench_lib.sh"

notip() {       # perf report's random tip block out
    awk '/^# \(Tip:/ { tip = NR } { l[NR] = $0 }
         END { for (i = 1; i <= NR; i++) if (!tip || i < tip - 1 || i > tip + 1) print l[i] }' "$1"
}
same() {        # FILE1 FILE2 -> "identical" or "N lines differ"
    local n
    n=$(diff <(notip "$1") "$2" | grep -c '^[<>]' || true)
    [ "$n" -eq 0 ] && echo identical || echo "$n lines differ"
}
size=$(echo "($(stat -c %s "$a") + $(stat -c %s "$b")) / 1048576" | bc -l)
read -r pd _ <<< "$(best 1 "$DIR/diff-perf.txt" perf diff "$a" "$b")"
read -r od orss <<< "$(best 3 "$DIR/diff-ours.txt" "$PERFSIFT" diff -q "$a" "$b")"
printf 'diff   %6.1f MB  perf diff                 %7.3fs | perfsift diff    %6.3fs | ratio %6.1fx (goal 10x) | output %s | peak RSS %d KB\n' \
    "$size" "$pd" "$od" "$(echo "$pd / $od" | bc -l)" "$(same "$DIR/diff-perf.txt" "$DIR/diff-ours.txt")" "$orss"
size=$(echo "$(stat -c %s "$b") / 1048576" | bc -l)
for mode in --no-children --children; do
    read -r pr _ <<< "$(best 1 "$DIR/report-perf.txt" perf report --stdio -i "$b" $mode -g none)"
    read -r or orss <<< "$(best 3 "$DIR/report-ours.txt" "$PERFSIFT" report -q $mode -g none "$b")"
    printf 'report %6.1f MB  perf report %-13s %7.3fs | perfsift report  %6.3fs | ratio %6.1fx (goal 10x) | output %s | peak RSS %d KB\n' \
        "$size" "$mode" "$pr" "$or" "$(echo "$pr / $or" | bc -l)" "$(same "$DIR/report-perf.txt" "$DIR/report-ours.txt")" "$orss"
done
# perf's default view: children and the call graph under each row
read -r pr _ <<< "$(best 1 "$DIR/report-perf.txt" perf report --stdio -i "$b")"
sed -i 's/\[\.\.\.\] (inlined)$/[...]/' "$DIR/report-perf.txt"     # perf's uninitialized flag
read -r or orss <<< "$(best 3 "$DIR/report-ours.txt" "$PERFSIFT" report -q "$b")"
printf 'report %6.1f MB  perf report (call graphs) %7.3fs | perfsift report  %6.3fs | ratio %6.1fx | output %s | peak RSS %d KB\n' \
    "$size" "$pr" "$or" "$(echo "$pr / $or" | bc -l)" "$(same "$DIR/report-perf.txt" "$DIR/report-ours.txt")" "$orss"
