#!/bin/bash
# bench.sh PERFSIFT - `make bench`: record a capture of >= 90 MB (a CPU-bound
# workload with deep frame-pointer stacks, perf record -g -F 20000), then
# time `perfsift info --stats` against `perf report --stats` on it (best of
# 3) and print the ratio and both peak RSS. A second, ~10 MB capture shows
# that perfsift's peak RSS does not grow with the capture's size.
# Then the same for `perfsift script` against `perf script` (both to
# /dev/null, outputs compared once). Goal: 5x faster, RSS <= a quarter.
# Last, DWARF call graphs (issue 4): a >= 100 MB `perf record --call-graph
# dwarf` capture of bench/dwarf.c (no frame pointers, inlined helpers, libc
# qsort calling back, libm), `perfsift script` against `perf script`, plain
# and with --inline. perf runs once there, capped at 600 s (">600s"); both
# outputs go to files in BENCH_DIR and are compared (differing lines counted).
# Not part of `make check`: timings are not assertions.
set -euo pipefail
PERFSIFT=${1:-$(dirname "$0")/../perfsift}
DIR=${BENCH_DIR:-/tmp/perfsift-bench}
mkdir -p "$DIR"
# bin OUT CAPTURES... -- cc args: build OUT (in a temp file), the same
# bytes from whichever checkout (paths mapped out of the debug info, so the
# build-id does not change); a binary that did change drops the captures
# recorded from the old one, whose build-ids would no longer match (every
# sample would resolve to [unknown])
TESTS=$(cd "$(dirname "$0")" && pwd)
bin() {
    local out=$1 caps=()
    shift
    while [ "$1" != -- ]; do caps+=("$1"); shift; done
    shift
    (cd "$DIR" && cc -ffile-prefix-map="$TESTS"=tests -ffile-prefix-map="$DIR"=. "$@" -o "$out.new")
    if ! cmp -s "$out.new" "$out"; then
        mv "$out.new" "$out"
        rm -f "${caps[@]}"
    else
        rm -f "$out.new"
    fi
}
bin "$DIR/deep" "$DIR/small.data" "$DIR/large.data" -- \
    -O1 -g -fno-omit-frame-pointer -pthread "$TESTS/bench/deep.c"

record() {      # name seconds
    [ -s "$DIR/$1.data" ] && return
    echo "recording $1 ($2 s of deep stacks at 20 kHz) ..." >&2
    perf record -q -g -F 20000 -o "$DIR/$1.data" -- "$DIR/deep" "$2" 2>/dev/null >/dev/null
}
# out runs command... -> "seconds maxrss_kb status cpu_seconds" (best of
# runs; cpu: user + system time of the run with the best wall time, all
# threads, which says more than wall time on a busy machine)
measure_to() {
    local out=$1 runs=$2 best="" cpu="" rss=0 rc=0 i t0 t1 t m c
    shift 2
    for ((i = 0; i < runs; i++)); do
        t0=$(date +%s%N)
        rc=0
        /usr/bin/time -o "$DIR/time.txt" -f '%M %U %S' "$@" >"$out" 2>/dev/null || rc=$?
        t1=$(date +%s%N)
        t=$(echo "($t1 - $t0) / 1000000000" | bc -l)
        read -r m c < <(tail -n 1 "$DIR/time.txt" | awk '{print $1, $2 + $3}')
        if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t cpu=$c; fi
        [ "$m" -gt "$rss" ] && rss=$m
    done
    echo "$best $rss $rc $cpu"
}
measure() {     # prints "seconds maxrss_kb" (best of 3)
    measure_to /dev/null 3 "$@" | cut -d' ' -f1,2
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

# DWARF call graphs: perf once (it can be slow, --inline above all), capped.
bin "$DIR/dwarf" "$DIR/dwarf.data" -- -O2 -g -fomit-frame-pointer -pthread \
    "$TESTS/bench/dwarf.c" -lm
f="$DIR/dwarf.data"
if [ ! -s "$f" ]; then
    echo "recording dwarf (3 s, --call-graph dwarf at 4 kHz) ..." >&2
    perf record -q -N -F 4000 --call-graph dwarf -o "$f" -- "$DIR/dwarf" 3 2>/dev/null >/dev/null
fi
size=$(stat -c %s "$f")
for opt in "" --inline; do
    read -r pt pr prc pc <<< "$(measure_to "$DIR/dwarf-perf.txt" 1 timeout 600 perf script ${opt:+"$opt"} -i "$f")"
    read -r ot or orc oc <<< "$(measure_to "$DIR/dwarf-ours.txt" 3 "$PERFSIFT" script -q ${opt:+"$opt"} "$f")"
    pts=$(printf '%.3fs' "$pt") ratio=$(printf '%.1fx' "$(echo "$pt / $ot" | bc -l)")
    cpu=$(printf '%.2fs/%.2fs = %.1fx' "$pc" "$oc" "$(echo "$pc / $oc" | bc -l)")
    rss_ratio=$(printf '%.1fx' "$(echo "$pr / $or" | bc -l)")
    if [ "$prc" -eq 124 ]; then
        pts=">600s" ratio=$(printf '>%.1fx' "$(echo "600 / $ot" | bc -l)") cpu=n/a
        same="not compared (perf timed out)"
    elif [ "$orc" -ne 0 ] || [ "$prc" -ne 0 ]; then
        ratio=n/a rss_ratio=n/a cpu=n/a same="none (exit status: perf $prc, perfsift $orc)"
    elif cmp -s "$DIR/dwarf-perf.txt" "$DIR/dwarf-ours.txt"; then
        same=identical
    else
        same="DIFFERENT ($(diff "$DIR/dwarf-perf.txt" "$DIR/dwarf-ours.txt" | grep -c '^>' || true) of $(wc -l < "$DIR/dwarf-perf.txt") lines)"
    fi
    printf '%-6s %6.1f MB  perf script%-9s %7s %7d KB | perfsift script%-9s %6.3fs %7d KB | time ratio perf/perfsift %6s | CPU (user+sys) perf/perfsift %s | RSS ratio perf/perfsift %5s | output %s\n' \
        dwarf "$(echo "$size / 1048576" | bc -l)" "${opt:+ $opt}" "$pts" "$pr" "${opt:+ $opt}" "$ot" "$or" \
        "$ratio" "$cpu" "$rss_ratio" "$same"
done
