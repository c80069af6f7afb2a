#!/bin/bash
# diff.sh - `perfsift diff` (issue 8, its folded and flame graph parts):
#  - --folded, -n, -s equal difffolded.pl's rules on inferno's diff-folded
#    suite, sorted (inferno truncates fractional counts, difffolded.pl keeps
#    them: compared after truncating ours); a bad line warns and is skipped;
#  - captures and folded text mixed: a capture against itself, or against
#    its own folded text, changes nothing;
#  - --svg: valid XML; on a hand-made pair every frame is coloured by its
#    inclusive change (red grew, blue shrank, white same), flamegraph.pl's
#    leaf-only colouring with --leaf-only; both counts in the tooltips;
#    headless Chromium renders it;
#  - bad usage exits 2.
source "$(dirname "$0")/lib.sh"
INF=$SHARED/external/inferno/diff-folded
d() { env -i PATH="$PATH" HOME="$TMPD/home" LC_ALL=C "$PERFSIFT" diff "$@"; }

for c in "default|" "normalize|-n" "strip_hex|-s"; do
    name=${c%%|*} opt=${c#*|}
    # shellcheck disable=SC2086
    if d -q --folded $opt "$INF/before.txt" "$INF/after.txt" | cmp -s - <(LC_ALL=C sort "$INF/results/$name.txt"); then
        pass "diff --folded $opt: inferno $name"
    else
        fail "diff --folded $opt: inferno $name"
    fi
done
if d -q --folded "$INF/before_fractionals.txt" "$INF/after.txt" |
       awk '{ $(NF-1) = int($(NF-1)); print }' | LC_ALL=C sort | cmp -s - <(LC_ALL=C sort "$INF/results/fractionals.txt") &&
   d -q --folded "$INF/before_fractionals.txt" "$INF/after.txt" | grep -q '^dd;\[unknown\];read 14.2343983248723 13$'; then
    pass "diff --folded: fractional counts kept as Perl prints them (inferno truncates)"
else
    fail "diff --folded: fractional counts"
fi
if d --folded "$INF/bad_before.txt" "$INF/after.txt" 2>"$TMPD/err" >"$TMPD/out" &&
   grep -q 'ignored 1 lines' "$TMPD/err" &&
   grep -q '^dd;\[unknown\];read;system_call_\[k\];__fdget_pos_\[k\] 0 15$' "$TMPD/out"; then
    pass "diff --folded: a line without a count is reported and skipped"
else
    fail "diff --folded: bad line"
fi

cap=$SHARED/corpus/captures/mthread-fp.data
d -q --folded "$cap" "$cap" > "$TMPD/self.txt"
if [ -s "$TMPD/self.txt" ] && awk '$(NF-1) != $NF { bad = 1 } END { exit bad }' "$TMPD/self.txt"; then
    pass "diff: a capture against itself changes nothing ($(wc -l < "$TMPD/self.txt") stacks)"
else
    fail "diff: a capture against itself"
fi
"$PERFSIFT" folded -q "$cap" > "$TMPD/cap.folded"
d -q --folded "$TMPD/cap.folded" "$cap" | cmp -s - "$TMPD/self.txt" &&
    pass "diff: folded text and capture mixed" || fail "diff: folded text and capture mixed"

# a hand-made pair: b grew by 10, c stayed, e shrank by 5
printf 'a;b 10\na;c 10\nd;e 10\n' > "$TMPD/base.folded"
printf 'a;b 20\na;c 10\nd;e 5\n' > "$TMPD/new.folded"
fills() {   # svg -> "name fill" per frame
    python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
for g in ET.parse(sys.argv[1]).getroot().iter(ns + "g"):
    t, r = g.find(ns + "title"), g.find(ns + "rect")
    if t is not None and r is not None:
        print(t.text.split(" (")[0], r.get("fill"), "|", t.text)
PY
}
d -q --svg "$TMPD/d.svg" "$TMPD/base.folded" "$TMPD/new.folded" &&
    xmllint --noout "$TMPD/d.svg" 2>/dev/null && pass "diff --svg: well-formed" || fail "diff --svg: not well-formed"
fills "$TMPD/d.svg" > "$TMPD/fills.txt"
# inclusive: all +5 (red), a +10 (red, the largest: deepest red), b +10, c same
# (white), d -5 (blue), e -5
if grep -q '^a rgb(255,0,0) ' "$TMPD/fills.txt" && grep -q '^b rgb(255,0,0) ' "$TMPD/fills.txt" &&
   grep -q '^c rgb(255,255,255) ' "$TMPD/fills.txt" && grep -q '^d rgb(105,105,255) ' "$TMPD/fills.txt" &&
   grep -q '^all rgb(255,105,105) ' "$TMPD/fills.txt"; then
    pass "diff --svg: every frame coloured by its inclusive change"
else
    fail "diff --svg: inclusive colours"; cat "$TMPD/fills.txt"
fi
grep -q '^a .*base: 20; change +10' "$TMPD/fills.txt" && pass "diff --svg: tooltips with both counts and the change" ||
    fail "diff --svg: tooltips"
d -q --svg "$TMPD/leaf.svg" --leaf-only "$TMPD/base.folded" "$TMPD/new.folded"
fills "$TMPD/leaf.svg" > "$TMPD/leaf.txt"
if grep -q '^a rgb(255,255,255) ' "$TMPD/leaf.txt" && grep -q '^b rgb(255,0,0) ' "$TMPD/leaf.txt"; then
    pass "diff --svg --leaf-only: flamegraph.pl's leaf colouring"
else
    fail "diff --svg --leaf-only"; cat "$TMPD/leaf.txt"
fi
d -q --svg "$TMPD/bw.svg" --base-widths "$TMPD/base.folded" "$TMPD/new.folded"
fills "$TMPD/bw.svg" > "$TMPD/bw.txt"
grep -q '^e rgb(105,105,255) .*(10 ' "$TMPD/bw.txt" && pass "diff --svg --base-widths: widths from BASE, hues kept" ||
    { fail "diff --svg --base-widths"; cat "$TMPD/bw.txt"; }
if command -v chromium >/dev/null; then
    timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$TMPD/chrome" --screenshot="$TMPD/d.png" --window-size=1200,300 \
        "file://$TMPD/d.svg" >/dev/null 2>&1
    python3 "$ROOT/tests/tools/svgcheck.py" png "$TMPD/d.png" 5 >/dev/null &&
        pass "diff --svg: Chromium renders it" || fail "diff --svg: Chromium screenshot blank or missing"
else
    fail "diff --svg: chromium is not installed (make deps)"
fi

d --folded "$cap" >/dev/null 2>&1; [ $? -eq 2 ] && pass "diff: one input is a usage error" || fail "diff: one input"
d "$cap" "$cap" >/dev/null 2>&1; [ $? -eq 2 ] && pass "diff: the table is refused as not written yet" || fail "diff: table"
d --folded /nonexistent "$cap" >/dev/null 2>"$TMPD/err"; [ $? -eq 1 ] && grep -q nonexistent "$TMPD/err" &&
    pass "diff: a missing input is named, exit 1" || fail "diff: missing input"
finish
