#!/bin/bash
# flamegraph.sh - `perfsift flamegraph` (issue 5). flamegraph.pl is not
# installed here, so its rules are the oracle through tests/tools/svgcheck.py,
# a Python port of its facts written apart from the C (Perl sort, flow() with
# its %Node keys, widths, pruning, labels, --hash colours, red/blue deltas).
#  1. Every SVG is well-formed XML (xmllint), for every option and palette.
#  2. Layout = the model's on the peers' folded files (FlameGraph's and
#     inferno's stackcollapse results, inferno's difffolded results) and on
#     an input of edge cases; widths add up to count / total * (W - 20)
#     per (depth, name) and frames sit on their parents (svgcheck sums).
#  3. Hand-computed anchors: colours of differential frames, one --hash
#     colour, titles "Icicle Graph"/"Flame Chart", minwidth pruning.
#  4. Colours are stable: a name has one colour in every graph; runs repeat.
#  5. From captures: FILE and `perfsift folded FILE | --folded-input -` draw
#     the same SVG; example-perf-stacks through --script-input draws the
#     frames of its stackcollapse result.
#  6. Errors: no counts -> an SVG saying so and exit 1; bad options exit 2;
#     -o is atomic. 15k folded lines take well under a second.
#  7. A real browser (headless Chromium): the SVG renders (not blank),
#     ?s=REGEX highlights exactly the matching frames with the right
#     "Matched: P%", and ?x=X&y=Y zooms to the frame there (it spans the
#     width, ancestors fade, descendants scale, the rest hides).
#     Missing chromium or xmllint is a FAIL.
# Python starts slowly here, so the svgcheck runs are queued and answered by
# one process at the end, and one xmllint reads every SVG.
source "$(dirname "$0")/lib.sh"
FGR=$SHARED/external/FlameGraph/test/results
INF=$SHARED/external/inferno
EPS=$INF/collapse-perf/results/example-perf-stacks-collapsed.txt
fg() { "$PERFSIFT" flamegraph -q "$@"; }

for tool in xmllint chromium; do
    if ! command -v $tool >/dev/null; then
        fail "flamegraph: $tool is not installed (make deps: libxml2-utils, chromium)"
    fi
done

checks=$TMPD/checks.txt
: > "$checks"
queue() { local n=$1; shift; printf '%s\t%s\n' "$n" "$*" >> "$checks"; }

draw() {        # name, flamegraph args...: $TMPD/<name>.svg
    local n=$1; shift
    fg "$@" -o "$TMPD/$n.svg" 2> "$TMPD/$n.err" && return 0
    fail "flamegraph $n: exit $?: $(head -1 "$TMPD/$n.err")"
    return 1
}

anchor() {      # name, svg, text the SVG must hold...
    local n=$1 svg=$2 miss=""; shift 2
    for want in "$@"; do
        grep -qF "$want" "$svg" || miss="$miss [$want]"
    done
    if [ -z "$miss" ]; then pass "flamegraph $n"; else fail "flamegraph $n: missing$miss"; fi
}

# Inputs: edge cases of sort order, merges, collisions and odd text; and
# 15000 lines of stacks from a call tree of 20000 nodes (for speed).
python3 - "$TMPD" <<'PY'
import random, sys
lines = [
    "a;b 5", "a;b!;c 3", "a;b;d 2", "a;b;d;e 0",     # b twice: Perl merges adjacent only
    "q;r 3", "q;r!;s 0", "q;r;t 0",                  # a zero-width r replaces the wide one
    "x;y 0", "x;y 4", "main;foo 12 7", "main;foo 12", "main;bar 3 0",
    "libc.so`malloc;x`y 3",                          # module` prefixes in the hash
    "gr\u00fc\u00dfe;\u65e5\u672c\u8a9e\u306e\u95a2\u6570\u540d\u524d\u306f\u3068\u3066\u3082\u9577\u3044 40",
    "amp&lt<gt>\"q;-;--;k_[k];j_[j];w_[w];i_[i] 6",  # markup, grey frames, annotations
    "trail;; 2", ";lead 1", "a  b  7", "tab\tsep\t9", "justnum 1.5", "dot 2.",
    "crlf 3\r", "bad line", "", "   ",               # 4 lines flamegraph.pl ignores
    "java/lang/Thread.run;Lorg/foo;C::x;y:::z 8",
    "node;/a/b.js:1;Builtin:x; ;f_[j];/x_[j];k_[k] 5",
    "perl;Perl_pp;foo.pl;A::B;z_[k] 4", "a;--;w1;w2;--;w3 3",
    "ctl\x01x;\x7f 2", "zero 0 0", "big;stack 100",
]
open(sys.argv[1] + "/edge.folded", "w", encoding="utf-8").write("\n".join(lines) + "\n")
r = random.Random(7)
names = ["%s_%d" % (r.choice(["do", "run", "std::vector<int>::push_back", "sys_read_[k]"]), i)
         for i in range(3000)]
parent, label = {0: None}, {0: "main"}
for i in range(1, 20000):
    parent[i] = r.randrange(max(0, i - 2000), i) if r.random() < 0.7 else r.randrange(i)
    label[i] = r.choice(names)
stacks = set()
while len(stacks) < 15000:
    n, path = r.randrange(20000), []
    while n is not None:
        path.append(label[n]); n = parent[n]
    stacks.add(";".join(reversed(path)))
with open(sys.argv[1] + "/15k.folded", "w") as f:
    for s in sorted(stacks):
        f.write("%s %d\n" % (s, int(r.paretovariate(1.2))))
PY

# --- 1+2. the peers' folded files, default options ----------------------------
for f in "$FGR"/*.txt "$INF"/collapse-perf/results/*.txt "$INF"/diff-folded/results/*.txt; do
    b=$(basename "$f" .txt)
    [ "$b" = no-events-collapsed ] && continue     # empty: see section 6
    [ -e "$TMPD/peer-$b.svg" ] && b=$b-inferno      # both suites have the rust ones
    draw "peer-$b" --folded-input "$f" && queue "flamegraph layout $b" layout "$TMPD/peer-$b.svg" "$f"
done

# --- 1+2. every option, on example-perf-stacks and the edge cases ---------------
opts=(
    "" "--minwidth 0" "--minwidth 2" "--minwidth 0.5%" "--reverse" "--inverted"
    "--flamechart" "--reverse --flamechart --inverted" "--width 640 --height 22"
    "--fontsize 9 --fontwidth 0.8" "--total 5000" "--total 10" "--factor 2.5"
    "--countname bytes --nametype Frame:" "--subtitle sub --inverted"
    "--title T --subtitle S --notes N" "--bgcolors blue" "--bgcolors #102030"
    "--fonttype Courier --hash" "--negate"
)
for p in hot mem io wakeup chain java js perl red green blue aqua yellow purple orange; do
    opts+=("--colors $p")
done
i=0
for o in "${opts[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    draw "eps$i" --folded-input "$EPS" $o &&
        queue "flamegraph eps ${o:-defaults}" layout "$TMPD/eps$i.svg" "$EPS" $o
    # shellcheck disable=SC2086
    draw "edge$i" --folded-input "$TMPD/edge.folded" $o &&
        queue "flamegraph edge ${o:-defaults}" layout "$TMPD/edge$i.svg" "$TMPD/edge.folded" $o
done
for f in "$EPS" "$FGR/perf-java-stacks-01-collapsed-all.txt" \
         "$FGR/perf-cycles-instructions-01-collapsed-all.txt"; do
    b=$(basename "$f" .txt)
    draw "sums-$b" --folded-input "$f" --minwidth 0 &&
        queue "flamegraph widths $b" sums "$TMPD/sums-$b.svg" "$f"
done
for f in "$INF"/diff-folded/results/*.txt; do
    b=$(basename "$f" .txt)
    draw "diff-$b" --folded-input "$f" --negate --reverse &&
        queue "flamegraph diff $b --negate --reverse" layout "$TMPD/diff-$b.svg" "$f" \
              --negate --reverse
done
"$PERFSIFT" flamegraph --folded-input "$TMPD/edge.folded" 2>&1 > /dev/null |
    grep -q 'warning: ignored 4 lines with invalid format' &&
    pass "flamegraph edge: warns 'ignored 4 lines with invalid format'" ||
    fail "flamegraph edge: no warning of the 4 invalid lines"

# --- 3. hand-computed anchors ------------------------------------------------------
# Sorted: grow, half, same, shrink; total 13 (90.77 px each), maxdelta 4:
# grow +4 red, shrink -4 blue, half +2 at 210 * 2 / 4, same and the parent
# (opened by the first line, but not its leaf) white.
printf '%s\n' 'main;grow 1 5' 'main;shrink 5 1' 'main;same 3 3' 'main;half 2 4' > "$TMPD/d.folded"
if draw dcol --folded-input "$TMPD/d.folded" && draw dneg --folded-input "$TMPD/d.folded" --negate
then
    anchor "differential colours" "$TMPD/dcol.svg" \
        '<title>grow (5 samples, 38.46%; +30.77%)</title><rect x="10.0" y="37" width="453.8" height="15.0" fill="rgb(255,0,0)"' \
        '<title>half (4 samples, 30.77%; +15.38%)</title><rect x="463.8" y="37" width="363.1" height="15.0" fill="rgb(255,105,105)"' \
        '<title>same (3 samples, 23.08%; 0.00%)</title><rect x="826.9" y="37" width="272.3" height="15.0" fill="rgb(255,255,255)"' \
        '<title>shrink (1 samples, 7.69%; -30.77%)</title><rect x="1099.2" y="37" width="90.8" height="15.0" fill="rgb(0,0,255)"' \
        '<title>main (13 samples, 100.00%; 0.00%)</title><rect x="10.0" y="53" width="1180.0" height="15.0" fill="rgb(255,255,255)"'
    anchor "differential colours --negate" "$TMPD/dneg.svg" \
        '<title>grow (5 samples, 38.46%; -30.77%)</title><rect x="10.0" y="37" width="453.8" height="15.0" fill="rgb(0,0,255)"' \
        '<title>shrink (1 samples, 7.69%; +30.77%)</title><rect x="1099.2" y="37" width="90.8" height="15.0" fill="rgb(255,0,0)"'
fi
# namehash("main") = 0.36335, of "niam" 0.85437: hot = (205+42, 83, 46)
anchor "hot colour of 'main' by hand" "$TMPD/peer-perf-cycles-instructions-01-collapsed-pid.svg" \
    '<title>main (274 samples, 82.28%)</title><rect x="219.1" y="165" width="970.9" height="15.0" fill="rgb(247,83,46)"' \
    '<text id="title" x="600.00" y="24">Flame Graph</text>'
anchor "title Icicle Graph" "$TMPD/eps6.svg" '>Icicle Graph</text>'
anchor "title Flame Chart" "$TMPD/eps7.svg" '>Flame Chart</text>'
n0=$(grep -c '<g>' "$TMPD/eps2.svg"); n2=$(grep -c '<g>' "$TMPD/eps3.svg")
if [ "$n2" -lt "$n0" ] && [ "$n2" -gt 0 ]; then
    pass "flamegraph minwidth: 2 px keeps $n2 of $n0 frames"
else
    fail "flamegraph minwidth: 2 px keeps $n2 of $n0 frames"
fi

# --- 4. colour stability -------------------------------------------------------------
# The colour hashes the whole name, annotation included, and tooltips show it
# without: so compare graphs folded alike (all --pid, all --kernel).
for kind in pid kernel; do
    svgs=""
    for f in "$FGR"/perf-*-collapsed-$kind.txt; do
        svgs="$svgs $TMPD/peer-$(basename "$f" .txt).svg"
    done
    queue "flamegraph colours ($kind)" colours $svgs
done
fg --folded-input "$EPS" -o "$TMPD/again.svg"
cmp -s "$TMPD/again.svg" "$TMPD/eps1.svg" && pass "flamegraph: two runs, same bytes" ||
    fail "flamegraph: two runs differ"

# --- 5. from captures --------------------------------------------------------------
for cap in "$ROOT"/testdata/threads-z.data "$ROOT"/testdata/multi-sys.data; do
    b=$(basename "$cap" .data)
    fg "$cap" --pid --countname u -o "$TMPD/cap-$b.svg" 2>/dev/null
    rc1=$?
    "$PERFSIFT" folded -q --pid "$cap" 2>/dev/null |
        fg --folded-input - --countname u > "$TMPD/capf-$b.svg"
    n=$(grep -c '<g>' "$TMPD/cap-$b.svg")
    if [ $rc1 -eq 0 ] && cmp -s "$TMPD/cap-$b.svg" "$TMPD/capf-$b.svg" && [ "$n" -gt 2 ]; then
        pass "flamegraph $b: capture = perfsift folded | --folded-input - ($n frames)"
    else
        fail "flamegraph $b: capture (exit $rc1) and folded text draw differently"
    fi
done
zcat "$SHARED/external/FlameGraph/example-perf-stacks.txt.gz" > "$TMPD/eps.txt"
fg --script-input "$TMPD/eps.txt" --countname samples -o "$TMPD/script.svg" &&
    queue "flamegraph example-perf-stacks via --script-input" layout "$TMPD/script.svg" "$EPS"

# --- 6. errors, output, speed ----------------------------------------------------------
printf 'no count here\n\n' > "$TMPD/none.folded"
fg --folded-input "$TMPD/none.folded" -o "$TMPD/none.svg" 2> "$TMPD/none.err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'ERROR: No valid input' "$TMPD/none.svg" &&
   grep -q 'no stack counts' "$TMPD/none.err"; then
    pass "flamegraph: no counts -> an SVG saying so, exit 1"
else
    fail "flamegraph: no counts: exit $rc, $(head -1 "$TMPD/none.err")"
fi
fg --folded-input "$INF/collapse-perf/results/no-events-collapsed.txt" > /dev/null 2>&1
[ $? -eq 1 ] && pass "flamegraph: empty input exits 1" || fail "flamegraph: empty input"
printf 'a;b 1%0400d\nc 5\n' 0 > "$TMPD/huge.folded"
fg --folded-input "$TMPD/huge.folded" > /dev/null 2> "$TMPD/huge.err"
rc=$?
[ $rc -eq 1 ] && grep -q 'too large' "$TMPD/huge.err" &&
    pass "flamegraph: a count past a double's range exits 1" ||
    fail "flamegraph: a count past a double's range: exit $rc"
for bad in "--colors nope" "--minwidth abc" "--minwidth 1%%" "--bgcolors pink" "--width 0" \
           "--notes a<b" "--bogus" "--pid" "x.data"; do
    # shellcheck disable=SC2086
    "$PERFSIFT" flamegraph $bad --folded-input "$EPS" > /dev/null 2> "$TMPD/bad.err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q "Try 'perfsift flamegraph --help'" "$TMPD/bad.err"; then
        pass "flamegraph: '$bad' refused (exit 2)"
    else
        fail "flamegraph: '$bad': exit $rc $(head -1 "$TMPD/bad.err")"
    fi
done
"$PERFSIFT" flamegraph --help | grep -q -- '--folded-input' &&
    pass "flamegraph --help" || fail "flamegraph --help"
echo keep > "$TMPD/kept.out"
fg --folded-input "$TMPD/missing.folded" -o "$TMPD/kept.out" 2>/dev/null
rc=$?
fg --folded-input "$EPS" -o "$TMPD/no/such/dir.svg" 2>/dev/null
rc2=$?
if [ $rc -eq 1 ] && [ "$(cat "$TMPD/kept.out")" = keep ] && [ $rc2 -eq 1 ] &&
   ! ls "$TMPD" | grep -q '\.tmp\.'; then
    pass "flamegraph -o: failures leave no file and keep the old one"
else
    fail "flamegraph -o: rc $rc/$rc2, $(ls "$TMPD" | grep '\.tmp\.')"
fi
# CPU time (user + sys), not wall time: test files run side by side, and
# the machine's load must not decide this check
/usr/bin/time -f '%U %S' -o "$TMPD/15k.time" \
    "$PERFSIFT" flamegraph -q --folded-input "$TMPD/15k.folded" -o "$TMPD/15k.svg"
ms=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$TMPD/15k.time")
limit=1000; [ -n "${PERFSIFT##*build-san*}" ] || limit=5000   # ASan is slower
if [ "$ms" -lt "$limit" ]; then
    pass "flamegraph: 15000 folded lines in $ms ms of CPU ($(grep -c '<g>' "$TMPD/15k.svg") frames)"
else
    fail "flamegraph: 15000 folded lines took $ms ms of CPU (limit $limit)"
fi
queue "flamegraph 15k layout" layout "$TMPD/15k.svg" "$TMPD/15k.folded"

# --- 7. a real browser ---------------------------------------------------------------
chrome() {      # chromium's headless flags, then its own
    timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$(mktemp -d "$TMPD/chrome.XXXXXX")" "$@" 2> "$TMPD/chrome.err"
}
if command -v chromium >/dev/null; then
    svg=$TMPD/peer-perf-java-stacks-01-collapsed-all.svg
    chrome --screenshot="$TMPD/shot.png" --window-size=1200,800 "file://$svg" > /dev/null
    if [ -s "$TMPD/shot.png" ]; then
        queue "flamegraph chromium screenshot not blank" png "$TMPD/shot.png" 50
    else
        fail "flamegraph chromium: no screenshot: $(grep -v dbus "$TMPD/chrome.err" | head -2)"
    fi
    # ?s= alone, then with ?x=&y= (zoom to a frame in the middle of the
    # graph): each term with its URL encoding
    f=$FGR/perf-java-stacks-01-collapsed-all.txt
    chrome --dump-dom "file://$svg?s=netty" > "$TMPD/dom1.svg"
    queue "flamegraph chromium ?s=netty" dom "$TMPD/dom1.svg" "$f" netty
    xy=$(grep -o 'processSelectedKeysOptimized ([^<]*</title><rect x="[^"]*" y="[^"]*"' "$svg" |
         sed 's/.*x="\([^"]*\)" y="\([^"]*\)"/\1 \2/')
    t='^org/mozilla/javascript/(WrapFactory|gen/)'
    enc='%5Eorg%2Fmozilla%2Fjavascript%2F(WrapFactory%7Cgen%2F)'
    chrome --dump-dom "file://$svg?s=$enc&x=${xy% *}&y=${xy#* }" > "$TMPD/dom2.svg"
    queue "flamegraph chromium ?s=$t&x=${xy% *}&y=${xy#* }: search" dom "$TMPD/dom2.svg" "$f" "'$t'"
    queue "flamegraph chromium ?s=$t&x=${xy% *}&y=${xy#* }: zoom" zoom "$TMPD/dom2.svg" "$svg" $xy
fi

# --- the queued checks, and one xmllint over every SVG drawn ---------------------------
python3 "$ROOT/tests/tools/svgcheck.py" batch < "$checks" || nfail=$((nfail + 1))
svgs=$(ls "$TMPD"/*.svg | grep -v '/dom[0-9]*\.svg$')
if xmllint --noout $svgs 2> "$TMPD/xmllint.err"; then
    pass "flamegraph: $(echo "$svgs" | wc -l) SVGs are well-formed XML (xmllint)"
else
    fail "flamegraph: not well-formed: $(grep -o '^[^:]*\.svg' "$TMPD/xmllint.err" | sort -u | head -3)"
fi
finish
