#!/bin/bash
# info_json.sh - `perfsift info --json` on every capture (lib.sh all_captures):
#   - the output parses (jq) and validates against schemas/info.schema.json
#     (python3-jsonschema, draft 2020-12), and the schema itself is a valid
#     2020-12 schema whose every property has a description;
#   - every attr object (events and EVENT_DESC) validates against the --attr
#     schema (schemas/attr.schema.json $defs/attr), and in native file-mode
#     captures parses (ps_attr_parse, tests/tools/attrcmp.c) to the same
#     perf_event_attr as the attr table's bytes: every field, by name;
#   - values agree with what `perf report --header-only -I` prints for the
#     same file now: hostname, os release, perf version, arch, nrcpus,
#     cpudesc, cpuid, total memory, cmdline, event names and ids, sibling
#     lists, NUMA nodes, caches, PMU mappings, BPF program ids, compression,
#     sample times and the data/feature offsets;
#   - strings that are not UTF-8 come back byte for byte: a copy of a capture
#     with odd bytes in its hostname is read by both.
# A capture perf cannot read is checked for schema and parse only; one that
# perfsift refuses (exit 1, message, no output) passes as refused.
# PERFSIFT: binary under test. CC / BUILD: compiler and build dir of
# libperfsift.a (for tests/tools/attrcmp.c).
source "$(dirname "$0")/lib.sh"
require_perf
BUILD=${BUILD:-build}
CC=${CC:-cc}
T=$TMPD
PERF_FAIL='incompatible|failed to process|decompress|unexpected end|bad event|non matching|broken or missing|cannot find event|data size field is 0|Segmentation|error'

if ! python3 -c 'import jsonschema' 2>/dev/null; then
    fail "info-json-deps: python3-jsonschema is not installed; run 'make deps'" \
         "(Debian package python3-jsonschema)"
    finish
fi
if ! command -v jq >/dev/null; then
    fail "info-json-deps: jq is not installed; run 'make deps'"
    finish
fi
san=
[ "$BUILD" = build-san ] && san="-fsanitize=address,undefined"
if ! $CC -std=c11 -Wall -Wextra -Werror $san -I"$ROOT/libparse/include" -o "$T/attrcmp" \
        "$ROOT/tests/tools/attrcmp.c" "$ROOT/$BUILD/libperfsift.a" \
        $(pkg-config --libs libtraceevent jansson sqlite3 libelf libdw libzstd zlib) 2> "$T/cc.err"; then
    fail "info-json-tools: tests/tools/attrcmp.c does not build: $(head -c 300 "$T/cc.err")"
    finish
fi

# A copy of a capture whose HOSTNAME holds bytes that are not UTF-8, a
# backslash and a literal "\x41" (which must not read back as "A").
make_odd_hostname() {   # SRC DST
    local off
    off=$("$PERFSIFT" info --json -q "$1" | jq '.header.feature_sections.HOSTNAME.offset')
    python3 - "$1" "$2" "$off" <<'PY'
import sys
src, dst, off = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = bytearray(open(src, "rb").read())
odd = b"h\xffst\\x41\xc3\xa9\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80-\xe2\x82"
n = int.from_bytes(data[off:off + 4], "little")
assert len(odd) < n
data[off + 4:off + 4 + n] = odd + bytes(n - len(odd))
open(dst, "wb").write(bytes(data))
PY
}

# --- run perf and perfsift on every capture ----------------------------------

{ all_captures; echo "$T/odd-hostname.data"; } > "$T/list"
if ! make_odd_hostname "$SHARED/corpus/captures/cpuhog-plain.data" "$T/odd-hostname.data"; then
    fail "info-json odd-hostname: could not make the fixture"
fi
i=0
while read -r f; do
    i=$((i + 1))
    d=$T/c$i
    mkdir -p "$d"
    "$PERFSIFT" info --json -q "$f" > "$d/ours.json" 2> "$d/ours.err"
    echo $? > "$d/ours.rc"
    jq -e . "$d/ours.json" > /dev/null 2> "$d/jq.err"
    echo $? > "$d/jq.rc"
    perf_run report --header-only -I -i "$f" > "$d/perf.txt" 2> "$d/perf.err"
    prc=$?
    perf_ok=1
    if [ $prc -ne 0 ] || grep -qiE "$PERF_FAIL" "$d/perf.err" ||
       grep -q '^# hostname : (null)' "$d/perf.txt"; then
        perf_ok=0
    fi
    echo $perf_ok > "$d/perf.ok"
    printf '%s\t%s\n' "$f" "$d" >> "$T/manifest"
done < "$T/list"

# --- compare -------------------------------------------------------------------

python3 - "$T/manifest" "$ROOT/schemas/info.schema.json" "$ROOT/schemas/attr.schema.json" \
          "$T/attrcmp" "$SHARED" "$ROOT" "$T" > "$T/results" <<'PY'
import json, os, re, struct, subprocess, sys
import jsonschema

manifest, schema_path, attr_schema_path, attrcmp, shared, root, tmp = sys.argv[1:]
V = jsonschema.Draft202012Validator

def out(line):
    print(line, flush=True)

# --- the schemas ---------------------------------------------------------------

def undocumented(node, path=""):
    """Paths of properties without a description."""
    bad = []
    if isinstance(node, dict):
        for k, v in node.get("properties", {}).items():
            if not isinstance(v, dict) or "description" not in v:
                bad.append(path + "/properties/" + k)
        for k, v in node.items():
            bad += undocumented(v, path + "/" + k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            bad += undocumented(v, "%s/%d" % (path, i))
    return bad

schema = json.load(open(schema_path))
try:
    V.check_schema(schema)
    bad = undocumented(schema)
    if bad:
        out("FAIL info-json-schema: properties without a description: " + ", ".join(bad[:5]))
    else:
        out("PASS info-json-schema (valid draft 2020-12, every property described)")
except jsonschema.SchemaError as e:
    out("FAIL info-json-schema: not a valid schema: %s" % e.message)
    sys.exit(1)
validator = V(schema)
attr_schema = json.load(open(attr_schema_path))
attr_schema.pop("oneOf", None)
attr_schema["$ref"] = "#/$defs/attr"
attr_validator = V(attr_schema)

# --- strings --------------------------------------------------------------------

def unescape(s):
    """The capture's bytes behind a text string ($defs/text)."""
    b = s.encode("utf-8")
    return re.sub(rb"\\(\\|x[0-9a-f]{2})",
                  lambda m: b"\\" if m.group(1) == b"\\" else bytes([int(m.group(1)[1:], 16)]), b)

def perf_lines(path):
    return open(path, "rb").read().split(b"\n")

def value(lines, prefix):
    """perf's value after '# <prefix> : ', or None."""
    p = b"# " + prefix.encode() + b" : "
    for l in lines:
        if l.startswith(p):
            return l[len(p):]
    return None

# --- checks: each returns a list of problems -------------------------------------

def check_structure(doc):
    f, h = doc["features"], doc["header"]
    errs = []
    keys = {k for k in f if k not in ("present", "failed")}
    want = {n.lower() for n in f["present"] if not n.startswith("UNKNOWN_")}
    if keys != want:
        errs.append("feature members %s != present %s" % (sorted(keys), sorted(want)))
    if h["container"] == "file" and not set(f["present"]) <= set(h["features"]):
        errs.append("present features not in the header bitmap")
    return errs

def attrs_of(doc):
    for e in doc["events"]:
        yield "event %d" % e["idx"], e["attr"]
    for i, e in enumerate(doc["features"].get("event_desc", {}).get("events", [])):
        yield "event_desc %d" % i, e["attr"]

def check_attr_schema(doc):
    errs = []
    for where, a in attrs_of(doc):
        a = {k: v for k, v in a.items() if k != "__reserved_2"}
        for e in attr_validator.iter_errors(a):
            errs.append("%s attr vs attr.schema.json: %s" % (where, e.message[:150]))
            break
    return errs

def check_attr_bytes(doc, path, n):
    """Native file mode: the JSON attr parses to the attr table's bytes."""
    h = doc["header"]
    if h["container"] != "file" or h["swapped"] or h["attr_size"] <= 16:
        return []
    errs = []
    data = open(path, "rb").read()
    nr = h["attrs"]["size"] // h["attr_size"]
    for e in doc["events"][:nr]:
        off = h["attrs"]["offset"] + e["idx"] * h["attr_size"]
        size = struct.unpack_from("<I", data, off + 4)[0] if off + 8 <= len(data) else 0
        if size < 64 or size > h["attr_size"] - 16 or "__reserved_2" in e["attr"]:
            continue    # ps_attr_parse steps by the size field; nothing to compare
        bin_path, json_path = "%s/a%d.bin" % (tmp, n), "%s/a%d.json" % (tmp, n)
        open(bin_path, "wb").write(data[off:off + size])
        json.dump(e["attr"], open(json_path, "w"))
        r = subprocess.run([attrcmp, json_path, bin_path], capture_output=True, text=True)
        if r.returncode != 0:
            errs.append("event %d attr != attr table bytes: %s" %
                        (e["idx"], (r.stdout + r.stderr).strip().replace("\n", "; ")[:200]))
    return errs

def cmp(errs, what, ours, perf):
    if perf is not None and ours != perf:
        errs.append("%s: perf %r, ours %r" % (what, perf, ours))

def text_feature(f, key):
    v = f.get(key)
    return unescape(v) if isinstance(v, str) else None

def check_strings(f, lines, errs):
    for key, label in [("hostname", "hostname"), ("osrelease", "os release"),
                       ("version", "perf version"), ("arch", "arch"),
                       ("cpudesc", "cpudesc"), ("cpuid", "cpuid")]:
        p = value(lines, label)
        if p is not None and p != b"(null)":
            cmp(errs, label, text_feature(f, key), p)
    p = value(lines, "cmdline")
    if p is not None and p.strip():
        ours = b"".join(unescape(a).replace(b"'", b"\\'") + b" " for a in f.get("cmdline", []))
        cmp(errs, "cmdline", ours, p)

def check_numbers(doc, lines, errs):
    f, h = doc["features"], doc["header"]
    for key, label in [("online", "nrcpus online"), ("available", "nrcpus avail")]:
        p = value(lines, label)
        if p is not None and p != b"0":
            cmp(errs, label, f.get("nrcpus", {}).get(key), int(p))
    p = value(lines, "total memory")
    if p is not None and p != b"0 kB":
        cmp(errs, "total memory", f.get("total_mem"), int(p.split()[0]))
    if h["container"] == "file":
        for ours, label in [(h["data"]["offset"], "data offset   "),
                            (h["data"]["size"], "data size     "),
                            (h["feat_offset"], "feat offset   ")]:
            p = value(lines, label)
            if p is not None:
                cmp(errs, label.strip(), ours, int(p))

EVENT = re.compile(rb"^# event : name = (.*?), (?:, id = \{ ([0-9, ]*) \})?")

def check_events(f, lines, errs):
    perf = []
    for l in lines:
        m = EVENT.match(l)
        if m:
            ids = [int(x) for x in m.group(2).split(b",")] if m.group(2) else []
            perf.append((m.group(1), ids))
    if not perf:
        return
    ours = [(unescape(e["name"]) if e["name"] is not None else b"(null)", e["ids"])
            for e in f.get("event_desc", {}).get("events", []) if e["attr"]["size"]]
    cmp(errs, "events (name, ids)", ours, perf)

def check_topology(f, lines, errs):
    t = f.get("cpu_topology")
    for key, label in [("package_cpus", "sibling sockets"), ("die_cpus", "sibling dies   "),
                       ("core_cpus", "sibling threads")]:
        p = [l.split(b" : ", 1)[1] for l in lines if l.startswith(b"# " + label.encode() + b" : ")]
        if p:
            cmp(errs, label.strip(), [unescape(s) for s in t[key]] if t else None, p)
    p = [tuple(int(x) for x in m.groups() if x is not None) for m in
         (re.match(rb"# CPU (\d+): Core ID (-?\d+), (?:Die ID (-?\d+), )?Socket ID (-?\d+)", l)
          for l in lines) if m]
    if p and t and t["cpus"] is not None:
        cmp(errs, "cpu ids", [(c["cpu"], c["core_id"]) + ((c["die_id"],) if len(p[0]) == 4 else ())
                              + (c["socket_id"],) for c in t["cpus"]], p)
    p = [tuple(int(x) for x in m.groups()) for m in
         (re.match(rb"# node(\d+) meminfo  : total = (\d+) kB, free = (\d+) kB", l)
          for l in lines) if m]
    if p:
        cmp(errs, "numa nodes", [(n["node"], n["mem_total"], n["mem_free"])
                                 for n in f.get("numa_topology", [])], p)
    p = [m.groups() for m in (re.match(rb"#  L(\d+) (.{15}) +(\S+) \[(.*)\]$", l)
                              for l in lines) if m]
    if p:
        ours = [(str(c["level"]).encode(), (unescape(c["type"]) + b" " * 15)[:15].rstrip(),
                 unescape(c["size"]), unescape(c["map"]))
                for c in f.get("cache", {}).get("caches", [])]
        cmp(errs, "caches", ours, [(a, b.rstrip(), c, d) for a, b, c, d in p])

def check_misc(f, lines, errs):
    p = next((l for l in lines
              if l.startswith(b"# pmu mappings: ") and b"not available" not in l), None)
    if p:
        ours = b", ".join(unescape(m["name"]) + b" = " + str(m["type"]).encode()
                          for m in f.get("pmu_mappings", []))
        cmp(errs, "pmu mappings", ours, p[len(b"# pmu mappings: "):])
    p = sorted({int(m.group(1))
                for m in (re.match(rb"# bpf_prog_info (\d+):", l) for l in lines) if m})
    if p:
        cmp(errs, "bpf prog ids", sorted({b["id"] for b in f.get("bpf_prog_info", [])
                                         if b.get("sub_progs")}), p)
    m = next((re.match(rb"# compressed : (\w+), level = (\d+), ratio = (\d+)", l) for l in lines
              if l.startswith(b"# compressed : ")), None)
    if m and m.group(1) != b"Unknown":
        c = f.get("compressed", {})
        cmp(errs, "compressed", (c.get("type_name"), c.get("level"), c.get("ratio")),
            (m.group(1).decode().lower(), int(m.group(2)), int(m.group(3))))
    for key, label in [("first", "time of first sample"), ("last", "time of last sample")]:
        p = value(lines, label)
        if p is not None and p != b"0.000000":
            t = f.get("sample_time", {}).get(key)
            t = int(t) if isinstance(t, str) else t     # a u64 past 2^53: a string
            ours = None if t is None else ("%d.%06d" % (t // 10**9, t % 10**9 // 1000)).encode()
            cmp(errs, label, ours, p)

def check_perf(doc, perf_txt):
    lines = perf_lines(perf_txt)
    f, errs = doc["features"], []
    check_strings(f, lines, errs)
    check_numbers(doc, lines, errs)
    check_events(f, lines, errs)
    check_topology(f, lines, errs)
    check_misc(f, lines, errs)
    return errs

# --- per capture ------------------------------------------------------------------

def display(path):
    for base, tag in [(shared + "/", ""), (root + "/", ""), (tmp + "/", "fixture/")]:
        if path.startswith(base):
            return tag + path[len(base):]
    return path

def check(n, path, d):
    name = "info-json " + display(path)
    rc = int(open(d + "/ours.rc").read())
    err = open(d + "/ours.err", errors="replace").read().strip()
    if rc not in (0, 1):
        return out("FAIL %s: perfsift exit %d: %s" % (name, rc, err[:200]))
    if os.path.getsize(d + "/ours.json") == 0:
        if rc == 1 and err:
            return out("PASS %s (perfsift refuses: %s)" % (name, err[:100]))
        return out("FAIL %s: no output, exit %d" % (name, rc))
    if int(open(d + "/jq.rc").read()) != 0:
        return out("FAIL %s: jq cannot parse it: %s" % (name, open(d + "/jq.err").read()[:200]))
    doc = json.load(open(d + "/ours.json"))
    for e in validator.iter_errors(doc):
        return out("FAIL %s: schema: at /%s: %s" %
                   (name, "/".join(map(str, e.absolute_path)), e.message[:200]))
    errs = check_structure(doc) + check_attr_schema(doc) + check_attr_bytes(doc, path, n)
    note = ""
    if not int(open(d + "/perf.ok").read()):
        note = " (perf cannot read it: no values compared)"
    elif doc["features"]["failed"]:
        # perf stops processing features at the first failure
        note = " (%s failed to decode: no values compared)" % ",".join(doc["features"]["failed"])
    else:
        errs += check_perf(doc, d + "/perf.txt")
    if errs:
        return out("FAIL %s: %s" % (name, errs[0]))
    out("PASS %s%s" % (name, note))

for n, line in enumerate(open(manifest)):
    path, d = line.rstrip("\n").split("\t")
    try:
        check(n, path, d)
    except Exception as e:      # a checker bug or an unexpected shape: say where
        out("FAIL info-json %s: checker error %s: %s" % (display(path), type(e).__name__, e))
PY
cat "$T/results"
nfail=$((nfail + $(grep -c '^FAIL' "$T/results")))
[ -s "$T/results" ] || fail "info-json: the checker printed nothing"
grep -q 'fixture/odd-hostname.data' "$T/results" || fail "info-json odd-hostname: not checked"

# --- other-endian twins: the same document but for the byte order -------------

norm='del(.header.mtime, .header.byte_order, .header.swapped)'
for le in "$SHARED"/corpus/endian/*.data; do
    be=${le%.data}_be.data
    [ -e "$be" ] || continue
    n=$(basename "$le" .data)
    "$PERFSIFT" info --json -q "$le" | jq -S "$norm" > "$T/le.json"
    "$PERFSIFT" info --json -q "$be" | jq -S "$norm" > "$T/be.json"
    if [ -s "$T/le.json" ] && cmp -s "$T/le.json" "$T/be.json" &&
       [ "$("$PERFSIFT" info --json -q "$be" | jq -r .header.byte_order)" = big ]; then
        pass "info-json-endian $n (${n}_be.data: same document, byte_order big)"
    else
        fail "info-json-endian $n: ${n}_be.data differs"
        diff "$T/le.json" "$T/be.json" | head -6
    fi
done
finish
