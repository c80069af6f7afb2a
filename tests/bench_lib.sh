# bench_lib.sh - sourced by the bench scripts (not run). DIR: where the
# bench captures and scratch files live.

# best RUNS OUT COMMAND... -> "seconds maxrss_kb": the best wall time of RUNS
# runs (stdout to OUT) and the largest peak RSS among them.
best() {
    local runs=$1 o=$2 b="" r=0 i t0 t1 t m
    shift 2
    for ((i = 0; i < runs; i++)); do
        t0=$(date +%s%N)
        /usr/bin/time -o "$DIR/time.txt" -f '%M' "$@" > "$o" 2>/dev/null
        t1=$(date +%s%N)
        t=$(echo "($t1 - $t0) / 1000000000" | bc -l)
        m=$(tail -n 1 "$DIR/time.txt")
        if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then b=$t; fi
        [ "$m" -gt "$r" ] && r=$m
    done
    echo "$b $r"
}
