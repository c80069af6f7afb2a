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
#  - the table (the default) is the text `perf diff` prints now for the same
#    pair of corpus captures, for every -c and several --sort keys;
#  - a capture against itself: every delta +0.00%, ratio 1, wdiff 0,
#    significance 0;
#  - testdata/hog-4to1.data against hog-1to1.data (foo/bar 4:1, then 1:1):
#    foo shrinks, bar grows, both significant beyond 99.9%, inclusive
#    deltas have the same signs; --min-significance keeps only them;
#    --percent-limit hides small rows; a folded side matches by symbol;
#  - the differential SVG of that pair renders in headless Chromium, foo
#    blue and bar red;
#  - bad usage exits 2.
source "$(dirname "$0")/lib.sh"
require_perf
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
# inputs from pipes (<(...)): each read once (its magic was read first,
# and the rest lost: an empty diff, or "bad magic")
d -q --folded <(cat "$TMPD/cap.folded") <(cat "$cap") | cmp -s - "$TMPD/self.txt" &&
d -q <(cat "$cap") <(cat "$cap") | cmp -s - <(d -q "$cap" "$cap") &&
    pass "diff: folded text and a capture from pipes" || fail "diff: inputs from pipes"

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


# --- the perf diff table --------------------------------------------------------
C=$SHARED/corpus/captures
T=$ROOT/testdata
install_bin "$T/hog/hog" /tmp/perfsift-hog/hog
table() {      # NAME BASE NEW opts...: perfsift diff == perf diff
    local name=$1 a=$2 b=$3; shift 3
    perf_run diff "$@" "$a" "$b" 2>/dev/null > "$TMPD/perf.txt"
    d -q "$@" "$a" "$b" > "$TMPD/ours.txt" 2>&1
    if [ -s "$TMPD/perf.txt" ] && diff -u "$TMPD/perf.txt" "$TMPD/ours.txt" > "$TMPD/dd.txt"; then
        pass "diff table $name $(basename "$a") $(basename "$b") $*"
    else
        fail "diff table $name $(basename "$a") $(basename "$b") $*"; head -12 "$TMPD/dd.txt"
    fi
}
# pair:compute; every -c on the first pair
if [ "${SCRIPT_SETS:-}" = sanitize ]; then
    runs="cpuhog-fp:mthread-fp:delta-abs cpuhog-fp:mthread-fp:ratio"
else
    runs="cpuhog-fp:mthread-fp:delta cpuhog-fp:mthread-fp:delta-abs cpuhog-fp:mthread-fp:ratio
          cpuhog-fp:mthread-fp:wdiff:3,2 mthread-fp:compressed:delta lost:mthread-fp:ratio
          cpuhog-multi-id:cpuhog-fp:wdiff:1,2"
fi
for r in $runs; do
    a=${r%%:*} r=${r#*:}
    b=${r%%:*} c=${r#*:}
    table compute "$C/$a.data" "$C/$b.data" -c "$c"
done
table sort "$T/hog-4to1.data" "$T/hog-1to1.data" --sort pid,sym
# an event of BASE without samples: perf prints its section all the same,
# and when NEW has samples of it, every delta as "-nan%" (0 of a 0 total)
table empty-event "$T/emptyev.data" "$C/sched-tp-syswide.data"
if grep -q "^# Event 'sched:sched_process_fork'" "$TMPD/ours.txt" && grep -q -- '-nan%' "$TMPD/ours.txt"; then
    pass "diff table: an event without samples in BASE has its section and -nan% deltas"
else
    fail "diff table: an event without samples in BASE"; head -12 "$TMPD/ours.txt"
fi
table empty-event "$T/emptyev.data" "$C/sched-tp-syswide.data" -c delta
table empty-event "$C/cgroups.data" "$C/mthread-fp.data"
# keys with a symbol but no dso: perf's tree, rebuilt (cmd/diff_shape.c),
# picks which unresolved address a merged row shows
table shape "$T/shape-a.data" "$T/shape-b.data" --sort sym
table shape "$T/shape-b.data" "$T/shape-a.data" --sort cpu,sym
# -p: the base and new periods beside the change
table period "$T/hog-4to1.data" "$T/hog-1to1.data" -p
table period "$T/hog-4to1.data" "$T/hog-1to1.data" -p -c ratio
table period "$T/diffpair/sh1.data" "$T/diffpair/sh2.data" --period -c wdiff:1,2
# -F: each change's formula, from the periods and totals, for every -c
# (with -p beside it; an event without samples in BASE)
table formula "$T/hog-4to1.data" "$T/hog-1to1.data" -F
table formula "$T/hog-4to1.data" "$T/hog-1to1.data" -F -c delta -p
table formula "$T/diffpair/sh1.data" "$T/diffpair/sh2.data" --formula -c ratio
table formula "$C/cpuhog-fp.data" "$C/mthread-fp.data" -F -c wdiff:3,2 --sort comm,dso,sym
table formula "$T/emptyev.data" "$C/sched-tp-syswide.data" -F
# perf diff's filters: -C comms, -d dsos, -S symbols hide the rows their
# samples make (the totals keep them; a key left one value is not shown),
# --cpu drops samples; -b keeps the rows both have, the Baseline column
# (and -F) then of what remains
table filter "$T/hog-4to1.data" "$T/hog-1to1.data" -S foo,bar
table filter "$T/hog-4to1.data" "$T/hog-1to1.data" -d hog -F
table filter "$T/hog-4to1.data" "$T/hog-1to1.data" -C hog --sort comm,dso,sym -c ratio
table filter "$T/diffpair/sh1.data" "$T/diffpair/sh2.data" -d '[kernel.kallsyms]' -S exc_page_fault,next_uptodate_folio
table filter "$T/multi-sys.data" "$C/sched-tp-syswide.data" --cpu 1
table baseline-only "$T/diffpair/sh1.data" "$T/diffpair/sh2.data" -b
table baseline-only "$T/diffpair/sh1.data" "$T/diffpair/sh2.data" -b -F -c delta --sort comm,dso,sym
# -t: each column's own text, padded to its width but the last, apart by
# the separator (which turns into '.' inside names: "std::x" with -t :)
table separator "$T/hog-4to1.data" "$T/hog-1to1.data" -t ,
table separator "$T/hog-4to1.data" "$T/hog-1to1.data" -t '|' -p -F -c ratio
table separator "$T/diffpair/sh1.data" "$T/diffpair/sh2.data" -t ';' -c wdiff:1,2 --sort comm,sym
table separator "$T/diffpair/sh1.data" "$T/diffpair/sh2.data" -t : -b -c delta --sort comm,dso,sym
# --percentage relative: changes of the samples the filters let through
# (summed per sample), the Baseline column of the rows they made
table relative "$T/hog-4to1.data" "$T/hog-1to1.data" --percentage relative -S foo,bar
table relative "$T/diffpair/sh1.data" "$T/diffpair/sh2.data" --percentage relative -C sh,wc -F
table relative "$T/diffpair/sh1.data" "$T/diffpair/sh2.data" --percentage relative -b -d '[kernel.kallsyms]' -F
# 0/0 and x/0 as perf divides them: -nan% (perf's negative NaN, with -t
# too), +inf% where NEW's filtered total is 0
table relative "$T/diffpair/sh2.data" "$T/diffpair/sh1.data" --percentage relative -C sh,wc -t ,
table separator "$T/emptyev.data" "$C/sched-tp-syswide.data" -t , -c delta
# --time: percentages of each capture's span; seconds for both, or
# BASE's:NEW's (hog-4to1 runs 37756.44-37757.81, hog-1to1 37758.85-37759.92)
table time "$T/hog-4to1.data" "$T/hog-1to1.data" --time 10%/2
table time "$T/hog-4to1.data" "$T/hog-1to1.data" --time 0%-50% -F
table time "$T/hog-4to1.data" "$T/hog-1to1.data" --time 37756.5,37757.5
table time "$T/hog-4to1.data" "$T/hog-1to1.data" --time 37756.5,37757.5:37759.0,37759.5 -c ratio
# the symbol key before others: perf's output order finds unresolved
# addresses alike, so the keys after it order them (testdata/diffpair)
table sym-first "$T/diffpair/sh1.data" "$T/diffpair/sh2.data" --sort sym,dso,comm
table sym-first "$T/diffpair/sh2.data" "$T/diffpair/sh1.data" --sort sym,comm -c ratio
if [ "${SCRIPT_SETS:-}" != sanitize ]; then
    table shape "$T/shape-a.data" "$T/shape-a.data" --sort sym,comm
    table shape "$T/shape-b.data" "$T/shape-a.data" --sort comm,sym
    table sort "$C/jit-map.data" "$C/jitdump.data" --sort sym
    table sort "$C/mthread-fp.data" "$C/compressed.data" --sort comm,dso
    # a directory capture (perf record --threads); a DSO's unresolved
    # addresses merged, shown by the lowest as perf compares them (a
    # kernel address below a user one)
    table dir "$C/threads-dir.data" "$C/threads-dir.data"
    table unresolved "$SHARED/external/quipper/perf.data.lost_samples-4.4" \
        "$SHARED/external/quipper/perf.data.lost_samples-4.4"
fi

# a capture against itself changes nothing
d -q --children --significance "$C/mthread-fp.data" "$C/mthread-fp.data" > "$TMPD/self.txt"
if [ "$(grep -c '^  ' "$TMPD/self.txt")" -gt 3 ] &&
   awk '/^  / { if ($2 != "+0.00%" || $4 != "+0.00%" || $5 != "0.0%") bad = 1 } END { exit bad }' "$TMPD/self.txt" &&
   d -q -c ratio "$C/mthread-fp.data" "$C/mthread-fp.data" | awk '/^  / { if ($2 != "1.000000") bad = 1 } END { exit bad }' &&
   d -q -c wdiff:1,1 "$C/mthread-fp.data" "$C/mthread-fp.data" | awk '/^  / { if ($2 != "0") bad = 1 } END { exit bad }'; then
    pass "diff table: a capture against itself is all zeros"
else
    fail "diff table: a capture against itself"; head -12 "$TMPD/self.txt"
fi

# the hog pair: foo 4:1 -> 1:1
d -q --children --significance "$T/hog-4to1.data" "$T/hog-1to1.data" > "$TMPD/hog.txt"
row() { awk -v s="$1" '/^  / && $NF == s && $(NF-1) == "[.]"' "$TMPD/hog.txt"; }
foo=$(row foo) bar=$(row bar)
# columns: Baseline, Delta Abs, Base Incl, Delta Incl, Signif, DSO, sym
if [ -n "$foo" ] && [ -n "$bar" ] &&
   echo "$foo" | awk '{ exit !($2 ~ /^-/ && $4 ~ /^-/ && $5 + 0 >= 99.9 && $2 + 0 < -20) }' &&
   echo "$bar" | awk '{ exit !($2 ~ /^\+/ && $4 ~ /^\+/ && $5 + 0 >= 99.9 && $2 + 0 > 20) }'; then
    pass "diff table: foo/bar 4:1 -> 1:1: foo shrank, bar grew, both significant"
else
    fail "diff table: hog pair signs and significance"; head -12 "$TMPD/hog.txt"
fi
# Signif is the z-test of the help text, recomputed here from each row's
# sample counts (perfsift report --json --sort dso,sym) for every row
"$PERFSIFT" report -q --json --sort dso,sym "$T/hog-4to1.data" > "$TMPD/a.json"
"$PERFSIFT" report -q --json --sort dso,sym "$T/hog-1to1.data" > "$TMPD/b.json"
d -q --significance "$T/hog-4to1.data" "$T/hog-1to1.data" > "$TMPD/signif.txt"
if python3 - "$TMPD/a.json" "$TMPD/b.json" "$TMPD/signif.txt" <<'PY'
import json, math, sys
def rows(path):
    e = json.load(open(path))["events"][0]
    return e["samples"], {(r["dso"], r["symbol"]): r["samples"] for r in e["rows"] if r["symbol"]}
n1, a = rows(sys.argv[1])
n2, b = rows(sys.argv[2])
checked = 0
for line in open(sys.argv[3]):
    w = line.split()
    if not line.startswith("  ") or w[-2] not in ("[.]", "[k]"):
        continue
    key = (w[-3], w[-1])
    if key not in a and key not in b:
        continue
    k1, k2 = a.get(key, 0), b.get(key, 0)
    p = (k1 + k2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    conf = 0.0 if se == 0 else 1 - math.erfc(abs(k2 / n2 - k1 / n1) / se / math.sqrt(2))
    got = float(w[-4].rstrip("%"))
    assert abs(got - 100 * conf) <= 0.051, (line, conf)
    checked += 1
assert checked >= 4, checked
PY
then pass "diff table --significance: the two-proportion z-test, recomputed from sample counts"
else fail "diff table --significance: values"; head -12 "$TMPD/signif.txt"
fi
d -q --min-significance 99 "$T/hog-4to1.data" "$T/hog-1to1.data" > "$TMPD/sig.txt"
if [ "$(grep '^  ' "$TMPD/sig.txt" | awk '{ print $NF }' | sort | tr '\n' ' ')" = "bar foo " ]; then
    pass "diff table --min-significance 99: only foo and bar"
else
    fail "diff table --min-significance"; cat "$TMPD/sig.txt"
fi
d -q --percent-limit 10 "$T/hog-4to1.data" "$T/hog-1to1.data" > "$TMPD/lim.txt"
[ "$(grep -c '^  ' "$TMPD/lim.txt")" -eq 2 ] && pass "diff table --percent-limit 10: two rows" ||
    { fail "diff table --percent-limit"; cat "$TMPD/lim.txt"; }
"$PERFSIFT" folded -q "$T/hog-1to1.data" > "$TMPD/hog.folded"
d -q --sort sym "$T/hog-1to1.data" "$TMPD/hog.folded" > "$TMPD/mixed.txt"
if awk '/^  / && ($NF == "foo" || $NF == "bar") { n++; if ($2 != "+0.00%" && $3 != "+0.00%") bad = 1 } END { exit bad || n != 2 }' "$TMPD/mixed.txt"; then
    pass "diff table: a capture against its own folded text, matched by symbol"
else
    fail "diff table: capture and folded"; cat "$TMPD/mixed.txt"
fi

# the differential flame graph of the pair, in Chromium
d -q --svg "$TMPD/hog.svg" "$T/hog-4to1.data" "$T/hog-1to1.data"
fills "$TMPD/hog.svg" > "$TMPD/hogfills.txt"
if grep -q '^foo rgb([0-9]*,[0-9]*,255) ' "$TMPD/hogfills.txt" && grep -q '^bar rgb(255,' "$TMPD/hogfills.txt"; then
    pass "diff --svg hog pair: foo blue (shrank), bar red (grew)"
else
    fail "diff --svg hog pair colours"; grep -E '^(foo|bar) ' "$TMPD/hogfills.txt"
fi
if [ "${SCRIPT_SETS:-}" = sanitize ]; then
    :   # the browser runs no perfsift code: once, in the plain run
elif command -v chromium >/dev/null; then
    timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$TMPD/chrome2" --screenshot="$TMPD/hog.png" --window-size=1200,500 \
        "file://$TMPD/hog.svg" >/dev/null 2>&1
    python3 "$ROOT/tests/tools/svgcheck.py" png "$TMPD/hog.png" 5 >/dev/null &&
        pass "diff --svg hog pair: Chromium renders it" || fail "diff --svg hog pair: Chromium screenshot"
else
    fail "diff --svg: chromium is not installed (make deps)"
fi

d --folded "$cap" >/dev/null 2>&1; [ $? -eq 2 ] && pass "diff: one input is a usage error" || fail "diff: one input"
d -c bogus "$cap" "$cap" >/dev/null 2>&1; [ $? -eq 2 ] && pass "diff: a bad -c is a usage error" || fail "diff: -c bogus"
d --folded -C x "$cap" "$cap" >/dev/null 2>&1; [ $? -eq 2 ] && pass "diff: the table's filters with --folded are a usage error" || fail "diff: --folded -C"
d --sort dso,symbol_to "$cap" "$cap" >/dev/null 2>&1; [ $? -eq 2 ] && pass "diff: a branch view sort key is a usage error" || fail "diff: --sort symbol_to"
d --folded /nonexistent "$cap" >/dev/null 2>"$TMPD/err"; [ $? -eq 1 ] && grep -q nonexistent "$TMPD/err" &&
    pass "diff: a missing input is named, exit 1" || fail "diff: missing input"
finish
