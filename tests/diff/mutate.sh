#!/bin/bash
# mutate.sh - damaged captures never crash, hang or balloon: for every
# capture of the project and of shared/ (lib.sh all_captures), prefixes cut
# at record boundaries and at 64 random offsets, and 200 seeded random
# byte/bit flips, each through dump, script, folded or json in a forked
# child (tests/tools/mutate.c): exit 0, or 1 with a message; never a
# signal, never over 10 s, never over MUTATE_MEM_MB of address space
# (setrlimit RLIMIT_AS, as ulimit -v).
# Cost: captures over 64 KiB get fewer cases (scaled by 64 KiB/size, at
# least 8 of each kind); two drivers share the captures (2 cores), smallest
# first, and start no case after MUTATE_SECONDS (45; 30 under SANITIZE):
# on a slow or busy machine the biggest captures are left out, and named.
# Under SANITIZE (SCRIPT_SETS=sanitize) a quarter of the cases: 16 cuts at
# boundaries, 16 random cuts and 50 flips per capture, scaled the same way,
# and no address-space bound (ASan reserves terabytes of shadow).
# MUTATE_SEED changes the flips; a failing input is kept in $KEEP (printed).
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
if [ "${SCRIPT_SETS:-all}" = sanitize ]; then
    args+=(-c 16 -r 16 -n 50 -t "${MUTATE_SECONDS:-30}")
else
    args+=(-t "${MUTATE_SECONDS:-45}")
fi
# smallest first, dealt alternately to the two drivers
mapfile -t caps < <(all_captures | while read -r f; do [ -f "$f" ] && echo "$(stat -c %s "$f") $f"; done |
                    sort -n | cut -d' ' -f2-)
odd=() even=()
for i in "${!caps[@]}"; do
    if [ $((i % 2)) = 0 ]; then even+=("${caps[$i]}"); else odd+=("${caps[$i]}"); fi
done
"$drv" "${args[@]}" "${even[@]}" > "$TMPD/a.out" 2>&1 &
"$drv" "${args[@]}" "${odd[@]}" > "$TMPD/b.out" 2>&1
wait
grep -h 'time budget' "$TMPD/a.out" "$TMPD/b.out"
total=$(cat "$TMPD/a.out" "$TMPD/b.out" | awk '/^mutate:/ {c += $2; b += $4} END {print c+0, b+0}')
set -- $total
if [ "$1" -gt 0 ] && [ "$2" -eq 0 ] && ! grep -q '^FAIL' "$TMPD/a.out" "$TMPD/b.out"; then
    tried=$(cat "$TMPD/a.out" "$TMPD/b.out" | grep -c '^PASS mutate ')
    pass "mutate: $1 damaged cases over $tried of ${#caps[@]} captures, all exit 0 or 1 with a message"
    rm -rf "$KEEP"
else
    fail "mutate: $2 of $1 cases misbehaved; inputs kept in $KEEP"
    cat "$TMPD/a.out" "$TMPD/b.out" | grep -v '^PASS' | head -n 40
fi
finish
