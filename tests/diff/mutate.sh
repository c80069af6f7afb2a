#!/bin/bash
# mutate.sh - damaged captures never crash, hang or balloon: prefixes cut
# at record boundaries and at random offsets, and seeded random byte/bit
# flips, each through dump, script, folded or json (most record-boundary
# cuts: info --stats) in a forked child (tests/tools/mutate.c): exit 0,
# or 1 with a message; never a signal, never over 10 s, never over
# MUTATE_MEM_MB of address space (setrlimit RLIMIT_AS, as ulimit -v).
# The corpus (shared/corpus: captures, edge, endian) gets every case: every
# prefix cut at a record boundary, 64 random cuts and 200 flips per capture.
# The other captures (testdata/ and shared/external/, lib.sh all_captures)
# get fewer when over 64 KiB (scaled by 64 KiB/size, at least 8 of each
# kind), smallest first, and start no case after MUTATE_SECONDS (45; the
# captures left are named).
# Under SANITIZE (SCRIPT_SETS=sanitize) a quarter of the cases everywhere:
# 16 cuts at boundaries, 16 random cuts and 50 flips per capture, scaled
# the same way, within MUTATE_SECONDS (30), and no address-space bound
# (ASan reserves terabytes of shadow).
# Two drivers share the captures (2 cores). MUTATE_SEED changes the flips;
# a failing input is kept in $KEEP (printed).
. "$(dirname "$0")/lib.sh"
B=${BUILD:-build}
[ -x "$B/tests/mutate" ] || B="$ROOT/$B"
drv="$B/tests/mutate"
if [ ! -x "$drv" ]; then
    fail "mutate: $drv is not built (make check builds it)"
    finish
fi
KEEP=$(mktemp -d /tmp/perfsift-mutate-keep.XXXXXX)
args=(-s "${MUTATE_SEED:-1}" -m "${MUTATE_MEM_MB:-1024}" -k "$KEEP")
by_size() { while read -r f; do [ -f "$f" ] && echo "$(stat -c %s "$f") $f"; done | sort -n | cut -d' ' -f2-; }
mapfile -t corpus < <(all_captures | grep -F "$SHARED/corpus/" | by_size)
mapfile -t others < <(all_captures | grep -vF "$SHARED/corpus/" | by_size)
caps=("${corpus[@]}" "${others[@]}")
if [ "${SCRIPT_SETS:-all}" = sanitize ]; then
    corpus=() others=("${caps[@]}")
    args+=(-c 16 -r 16 -n 50)
    budget=${MUTATE_SECONDS:-30}
else
    budget=${MUTATE_SECONDS:-45}
fi
# dealt alternately to the two drivers: the corpus whole, then the others
# within the time budget
drive() {   # drive PARITY: the corpus captures, then the others, of that parity
    local i c=() o=()
    for i in "${!corpus[@]}"; do [ $((i % 2)) = "$1" ] && c+=("${corpus[$i]}"); done
    for i in "${!others[@]}"; do [ $((i % 2)) = "$1" ] && o+=("${others[$i]}"); done
    if [ ${#c[@]} -gt 0 ]; then
        "$drv" "${args[@]}" -c 1000000 -b 1000000000000 "${c[@]}"
    fi
    [ ${#o[@]} -gt 0 ] && "$drv" "${args[@]}" -t "$budget" "${o[@]}"
    return 0
}
drive 0 > "$TMPD/a.out" 2>&1 &
drive 1 > "$TMPD/b.out" 2>&1
wait
grep -h 'time budget' "$TMPD/a.out" "$TMPD/b.out"
total=$(cat "$TMPD/a.out" "$TMPD/b.out" | awk '/^mutate:/ {c += $2; b += $4} END {print c+0, b+0}')
set -- $total
if [ "$1" -gt 0 ] && [ "$2" -eq 0 ] && ! grep -q '^FAIL' "$TMPD/a.out" "$TMPD/b.out"; then
    tried=$(cat "$TMPD/a.out" "$TMPD/b.out" | grep -c '^PASS mutate ')
    pass "mutate: $1 damaged cases over $tried of ${#caps[@]} captures (the ${#corpus[@]} of the corpus with every case), all exit 0 or 1 with a message"
    rm -rf "$KEEP"
else
    fail "mutate: $2 of $1 cases misbehaved; inputs kept in $KEEP"
    cat "$TMPD/a.out" "$TMPD/b.out" | grep -v '^PASS' | head -n 40
fi
finish
