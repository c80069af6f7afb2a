#!/bin/bash
# bench.sh PERFSIFT - `make bench`: record a capture of >= 90 MB (a CPU-bound
# workload with deep frame-pointer stacks, perf record -g -F 20000), then
# time `perfsift info --stats` against `perf report --stats` on it (best of
# 3) and print the ratio and both peak RSS. A second, ~10 MB capture shows
# that perfsift's peak RSS does not grow with the capture's size.
# Then the same for `perfsift script` against `perf script` (both to
# /dev/null, outputs compared once). Goal: 5x faster, RSS <= a quarter.
# Not part of `make check`: timings are not assertions.
set -euo pipefail
PERFSIFT=${1:-$(dirname "$0")/../perfsift}
DIR=${BENCH_DIR:-/tmp/perfsift-bench}
mkdir -p "$DIR"
cc -O1 -g -fno-omit-frame-pointer -pthread "$(dirname "$0")/bench/deep.c" -o "$DIR/deep"

record() {      # name seconds
    [ -s "$DIR/$1.data" ] && return
    echo "recording $1 ($2 s of deep stacks at 20 kHz) ..." >&2
    perf record -q -g -F 20000 -o "$DIR/$1.data" -- "$DIR/deep" "$2" 2>/dev/null >/dev/null
}
measure() {     # prints "seconds maxrss_kb" (best of 3)
    local best="" rss=0 out
    for _ in 1 2 3; do
        local t0 t1
        t0=$(date +%s%N)
        /usr/bin/time -o "$DIR/time.txt" -f '%M' "$@" >/dev/null 2>&1
        t1=$(date +%s%N)
        t=$(echo "($t1 - $t0) / 1000000000" | bc -l)
        read -r m < "$DIR/time.txt"
        if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
        [ "$m" -gt "$rss" ] && rss=$m
    done
    echo "$best $rss"
}

record small 1
record large 30
for cap in small large; do
    f="$DIR/$cap.data"
    size=$(stat -c %s "$f")
    read -r pt pr <<< "$(measure perf report --stats -i "$f")"
    read -r ot or <<< "$(measure "$PERFSIFT" info --stats "$f")"
    cmp -s <(perf report --stats -i "$f" 2>/dev/null) <("$PERFSIFT" info --stats "$f") &&
        same=identical || same=DIFFERENT
    printf '%-6s %6.1f MB  perf report --stats %6.3fs %7d KB | perfsift info --stats %6.3fs %7d KB | time ratio perf/perfsift %5.1fx | output %s\n' \
        "$cap" "$(echo "$size / 1048576" | bc -l)" "$pt" "$pr" "$ot" "$or" \
        "$(echo "$pt / $ot" | bc -l)" "$same"
done

# perf script: both to /dev/null; the outputs compared once for equality.
for cap in small large; do
    f="$DIR/$cap.data"
    size=$(stat -c %s "$f")
    read -r pt pr <<< "$(measure perf script -i "$f")"
    read -r ot or <<< "$(measure "$PERFSIFT" script -q "$f")"
    cmp -s <(perf script -i "$f" 2>/dev/null) <("$PERFSIFT" script -q "$f" 2>/dev/null) &&
        same=identical || same=DIFFERENT
    printf '%-6s %6.1f MB  perf script %6.3fs %7d KB | perfsift script %6.3fs %7d KB | time ratio perf/perfsift %5.1fx | RSS ratio perf/perfsift %5.1fx | output %s\n' \
        "$cap" "$(echo "$size / 1048576" | bc -l)" "$pt" "$pr" "$ot" "$or" \
        "$(echo "$pt / $ot" | bc -l)" "$(echo "$pr / $or" | bc -l)" "$same"
done
