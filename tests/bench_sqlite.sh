#!/bin/bash
# bench_sqlite.sh PERFSIFT - `make bench`, issue 6: perfsift sqlite on the
# bench capture (tests/bench.sh records it) against
#   perf script -s export-to-sqlite.py DB all calls callchains  (goal: 10x)
#   a plain C loop inserting the same rows with prepared statements
#   (tests/tools/sqlite_insert_floor.c: SQLite's own limit for them)
# and rows written per second.
set -euo pipefail
PERFSIFT=${1:-$(dirname "$0")/../perfsift}
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${BENCH_DIR:-/tmp/perfsift-bench}
E2S=$( (find /usr/lib/perf-core /usr/libexec/perf-core -name export-to-sqlite.py 2>/dev/null ||
        true) | head -1)
f=$DIR/large.data
[ -s "$f" ] || { echo "bench_sqlite: run tests/bench.sh first (it records $f)" >&2; exit 1; }
export HOME=$DIR/home; mkdir -p "$HOME"

secs() {    # command... -> wall seconds
    local t0 t1
    t0=$(date +%s%N)
    "$@" > /dev/null 2>&1
    t1=$(date +%s%N)
    echo "($t1 - $t0) / 1000000000" | bc -l
}

best=""
for _ in 1 2 3; do
    rm -f "$DIR/ours.db"
    t=$(secs "$PERFSIFT" sqlite -q "$f" -o "$DIR/ours.db")
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
done
cc -O2 -o "$DIR/sqlite_insert_floor" "$HERE/tools/sqlite_insert_floor.c" -lsqlite3
rm -f "$DIR/floor.db"
t0=$(date +%s%N)
rows=$("$DIR/sqlite_insert_floor" "$DIR/ours.db" "$DIR/floor.db")
floor=$(echo "($(date +%s%N) - $t0) / 1000000000" | bc -l)
samples=$(sqlite3 "$DIR/ours.db" 'SELECT count(*) FROM samples WHERE id > 0')
size=$(echo "$(stat -L -c %s "$f") / 1048576" | bc -l)
if [ -n "$E2S" ] && /usr/bin/python3 -c 'import PySide2.QtSql' 2>/dev/null; then
    rm -f "$DIR/perf.db"
    perf_t=$(cd "$DIR" && secs perf script -i "$f" -s "$E2S" perf.db all calls callchains)
    printf 'sqlite %6.1f MB, %d samples  export-to-sqlite.py %7.3fs | perfsift sqlite %6.3fs | ratio %5.1fx (goal 10x)\n' \
        "$size" "$samples" "$perf_t" "$best" "$(echo "$perf_t / $best" | bc -l)"
else
    echo "sqlite: export-to-sqlite.py or PySide2.QtSql missing (make deps): perf not timed"
fi
printf 'sqlite %d rows: perfsift %.0f rows/s | plain prepared-statement inserts %6.3fs, %.0f rows/s | perfsift / floor %.1fx\n' \
    "$rows" "$(echo "$rows / $best" | bc -l)" "$floor" "$(echo "$rows / $floor" | bc -l)" \
    "$(echo "$best / $floor" | bc -l)"
