#!/bin/bash
# json.sh - `perfsift json` (issue 7) on every capture of testdata/ and
# shared/corpus/captures/, and on testdata/utf8.data (non-ASCII comm, DSO
# path and symbol, and a comm that is not UTF-8):
#   - every form (document, --lines, --perf-compat, --format speedscope)
#     parses with jq and validates against its schema in schemas/ (draft
#     2020-12; each schema is itself valid and describes every property);
#   - --perf-compat equals `perf data convert --to-json` as parsed JSON
#     wherever perf converts the capture (and says whether the bytes are
#     the same too); on utf8.data it equals perf's once perf's sign-extended
#     \uffffffXX escapes are undone, names compared as bytes;
#   - the document's samples carry what `perfsift script -F comm,pid,tid,
#     time,cpu,event,period,ip,sym,dso,trace` prints for them, frame by
#     frame, in the same order (and so does a filtered run against script
#     with the same filters; --time against perf data convert --time);
#   - speedscope files validate against speedscope's own file-format schema
#     (from the npm package, fetched once into /tmp) and load in speedscope
#     in headless Chromium, which names the profile and lists the frames;
#   - pipe captures, which perf 6.1 cannot convert (it writes the headers
#     before reading the stream that declares them, and crashes): the
#     --perf-compat headers are what `perf report --header-only` reads from
#     the stream, and testdata/json/pipe-mixcpu.data (cpu-clock, which does
#     not sample the cpu, declared before sched_switch, which does) has
#     "cpu" in every sample, perf script's [cpu] or -1, as perf writes for
#     such files; its speedscope file has a profile per thread and event,
#     named by both, one for each pid/tid and event perf script prints;
#     with --samples-only a pipe capture's document keeps the features and
#     events the stream declares (hostname as perf report --header-only);
#   - --srcline on a capture with tracepoints (whose script fields have no
#     ip) and cpu-clock, all with call chains: every frame's srcline is the
#     one `perf script -F event,ip,sym,dso,srcline` prints under it;
#   - -o writes atomically (nothing left behind on bad input).
# SCRIPT_SETS=sanitize (make check SANITIZE=1) runs a few captures only.
source "$(dirname "$0")/lib.sh"
require_perf
T=$TMPD
ps() { HOME="$T/home" "$PERFSIFT" "$@"; }     # no build-id cache, as perf_run
SPEEDSCOPE_VERSION=1.25.0
SPEEDSCOPE_DIR=/tmp/perfsift-speedscope-$SPEEDSCOPE_VERSION

for tool in jq chromium; do
    command -v $tool >/dev/null || { fail "json-deps: $tool is not installed (make deps)"; finish; }
done
if ! python3 -c 'import jsonschema, referencing' 2>/dev/null; then
    fail "json-deps: python3-jsonschema is not installed (make deps)"
    finish
fi

# The binaries testdata/utf8.data was recorded from, at the path it names.
UTF8_DIR=/tmp/perfsift-ütf8
install_bin "$ROOT/testdata/utf8/libwork.so" "$UTF8_DIR/libwörk.so" &&
    install_bin "$ROOT/testdata/utf8/spin" "$UTF8_DIR/spïn"
install_dwarf_bins

# speedscope's file-format schema and viewer, from its npm package
if [ ! -f "$SPEEDSCOPE_DIR/package/dist/release/file-format-schema.json" ]; then
    mkdir -p "$SPEEDSCOPE_DIR.tmp"
    if (cd "$SPEEDSCOPE_DIR.tmp" && timeout 120 npm pack -q "speedscope@$SPEEDSCOPE_VERSION" >/dev/null 2>&1 &&
        tar xzf "speedscope-$SPEEDSCOPE_VERSION.tgz"); then
        rm -rf "$SPEEDSCOPE_DIR" && mv "$SPEEDSCOPE_DIR.tmp" "$SPEEDSCOPE_DIR"
    else
        rm -rf "$SPEEDSCOPE_DIR.tmp"
        fail "json-deps: cannot fetch npm package speedscope@$SPEEDSCOPE_VERSION (npm pack)"
    fi
fi

# and perf 3.x captures of ChromeOS (no CPUID header: perf prints this
# machine's; a sample whose pid is not its thread's; kernel modules)
{ ls -d "$ROOT"/testdata/*.data "$ROOT"/testdata/json/*.data; ls -d "$SHARED"/corpus/captures/*.data
  for q in throttle-3.8 raw-3.4 systemwide.1-3.8; do echo "$SHARED/external/quipper/perf.data.$q"; done
} > "$T/list"
if [ "${SCRIPT_SETS:-}" = sanitize ]; then
    grep -E '/(utf8|pipe-z|pipe-mixcpu|dwarf-inline|cpuhog-fp|sample-read-group|syscalls-tp)\.data$' \
        "$T/list" > "$T/list2" && mv "$T/list2" "$T/list"
fi
# samples of tid -1 of two processes (perf's thread of tid -1 keeps the
# first one's pid): made here, tests/tools/tidless.py
python3 "$ROOT/tests/tools/tidless.py" "$T/tidless.data" && echo "$T/tidless.data" >> "$T/list"
FIELDS=comm,pid,tid,time,cpu,event,period,ip,sym,dso,trace

# --- run perfsift (every form), perf data convert and perfsift script -----------

one_capture() {     # capture dir
    local f=$1 d=$2 form opt fl
    mkdir -p "$d"
    for form in doc lines perf speedscope; do
        case $form in
        doc) opt=;; lines) opt=--lines;; perf) opt=--perf-compat;; speedscope) opt="--format speedscope";;
        esac
        # shellcheck disable=SC2086
        ps json -q $opt "$f" > "$d/$form.json" 2> "$d/$form.err"
        echo $? > "$d/$form.rc"
        if [ $form = lines ]; then jq -c . "$d/$form.json" > /dev/null 2> "$d/$form.jq"
        else jq -e . "$d/$form.json" > /dev/null 2> "$d/$form.jq"; fi
        echo $? > "$d/$form.jqrc"
    done
    perf_run data convert --to-json "$d/perf-ref.json" -i "$f" --force > /dev/null 2> "$d/perf-ref.err"
    echo $? > "$d/perf-ref.rc"
    # a pipe capture (its header is 16 bytes): the headers perf reads from it
    if [ -f "$f" ] && [ "$(od -An -tu8 -j8 -N8 "$f" | tr -d ' ')" = 16 ]; then
        perf_run report --header-only -i "$f" > "$d/perf-header.txt" 2> /dev/null
        ps json -q --samples-only "$f" > "$d/samples-only.json" 2> /dev/null
    fi
    case $f in */pipe-mixcpu.data)
        perf_run script -G -i "$f" -F sw:time -F trace:time,cpu > "$d/perf-cpu.txt" 2> /dev/null
        perf_run script -G -i "$f" -F pid,tid,event > "$d/perf-threads.txt" 2> /dev/null ;;
    esac
    # script's -F refuses fields a capture lacks: the first list it takes
    for fl in $FIELDS ${FIELDS/cpu,/} ${FIELDS/time,cpu,/}; do
        if ps script -q -F "$fl" "$f" > "$d/script.txt" 2> "$d/script.err"; then
            echo "$fl" > "$d/script.fields"
            break
        fi
    done
}
i=0
while read -r f; do
    i=$((i + 1))
    printf '%s\t%s\n' "$f" "$T/c$i" >> "$T/manifest"
done < "$T/list"
export -f one_capture ps perf_run
export PERFSIFT T FIELDS
tr '\t' '\n' < "$T/manifest" | xargs -d '\n' -n 2 -P 2 bash -c 'one_capture "$1" "$2"' _

# filters: perfsift json with script's filters against script with them
FC=$SHARED/corpus/captures/multi-sys.data
[ -e "$FC" ] || FC=$ROOT/testdata/multi-sys.data
FOPTS="--comms perf-exec,sh,cpuhog,swapper --cpu 0"
d=$T/filter; mkdir -p "$d"
# shellcheck disable=SC2086
ps json -q $FOPTS "$FC" > "$d/doc.json" 2> "$d/doc.err"
# shellcheck disable=SC2086
ps script -q $FOPTS -F "$FIELDS" "$FC" > "$d/script.txt" 2> "$d/script.err"
echo "$FIELDS" > "$d/script.fields"
# --time, --pid and --event: the same against script
TC=$SHARED/corpus/captures/cpuhog-fp.data
d=$T/time; mkdir -p "$d"
t0=$(ps json -q --perf-compat "$TC" | jq '[.samples[].timestamp] | (.[0] + .[-1]) / 2e9' |
     awk '{ printf "%.6f", $1 }')     # perf takes at most 9 decimals
TOPTS="--time $t0, --pid 22850"
# shellcheck disable=SC2086
ps json -q $TOPTS -e cpu-clock:ppp "$TC" > "$d/doc.json" 2> "$d/doc.err"
# shellcheck disable=SC2086
ps script -q $TOPTS -F "${FIELDS/cpu,/}" "$TC" > "$d/script.txt" 2> "$d/script.err"
echo "${FIELDS/cpu,/}" > "$d/script.fields"

# --srcline: every event's frames, tracepoints' too, against perf's srclines
SC=$SHARED/corpus/captures/syscalls-tp.data
d=$T/srcline; mkdir -p "$d"
ps json -q --srcline "$SC" > "$d/doc.json" 2> "$d/doc.err"
echo $? > "$d/doc.rc"
perf_run script -i "$SC" -F event,ip,sym,dso,srcline > "$d/perf.txt" 2> "$d/perf.err"
echo $? > "$d/perf.rc"

# --- check -------------------------------------------------------------------------

python3 - "$T" "$ROOT" "$SHARED" "$SPEEDSCOPE_DIR/package/dist/release/file-format-schema.json" \
        > "$T/results" <<'PY'
import json, os, re, sys
import jsonschema
from referencing import Registry, Resource

tmp, root, shared, ss_schema_path = sys.argv[1:]
V = jsonschema.Draft202012Validator

def out(line):
    print(line, flush=True)

def display(path):
    for base in (shared + "/", root + "/"):
        if path.startswith(base):
            return path[len(base):]
    return path

# --- schemas ------------------------------------------------------------------------

def undocumented(node, path=""):
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

registry = Registry()
schemas = {}
for name in ["info", "attr", "json", "json-lines", "json-perf", "json-speedscope"]:
    s = json.load(open("%s/schemas/%s.schema.json" % (root, name)))
    registry = registry.with_resource(s["$id"], Resource.from_contents(s))
    schemas[name] = s
for name in ["json", "json-lines", "json-perf", "json-speedscope"]:
    try:
        V.check_schema(schemas[name])
        bad = undocumented(schemas[name])
        if bad:
            out("FAIL json-schema %s: properties without a description: %s" % (name, ", ".join(bad[:4])))
        else:
            out("PASS json-schema %s (valid draft 2020-12, every property described)" % name)
    except jsonschema.SchemaError as e:
        out("FAIL json-schema %s: not a valid schema: %s" % (name, e.message))
validators = {form: V(schemas[name], registry=registry) for form, name in
              [("doc", "json"), ("lines", "json-lines"), ("perf", "json-perf"),
               ("speedscope", "json-speedscope")]}
ss_official = None
if os.path.exists(ss_schema_path):
    ss_official = jsonschema.Draft7Validator(json.load(open(ss_schema_path)))

def load(form, path):
    if form == "lines":
        return [json.loads(l) for l in open(path, encoding="utf-8")]
    return json.load(open(path, encoding="utf-8"))

def schema_errors(form, doc):
    # --lines: the records are the document's (check_lines_equal): only the
    # marker lines need the schema here, and a few records to be sure
    docs = doc[:1] + doc[1:-1][:20] + doc[-1:] if form == "lines" else [doc]
    for n, d in enumerate(docs):
        for e in validators[form].iter_errors(d):
            where = "/".join(map(str, e.absolute_path))
            return "line %d: /%s: %s" % (n + 1, where, e.message[:160]) if form == "lines" \
                else "/%s: %s" % (where, e.message[:160])
    return None

# --- names: our reversible text and perf's broken escapes, both to bytes --------------

def unescape(s):
    b = s.encode("utf-8")
    return re.sub(rb"\\(\\|x[0-9a-f]{2})",
                  lambda m: b"\\" if m.group(1) == b"\\" else bytes([int(m.group(1)[1:], 16)]), b)

def unescape_compat(s):
    """--perf-compat: backslashes are single, only \\xNN of non-UTF-8 bytes"""
    return re.sub(rb"\\x([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]), s.encode("utf-8"))

def perf_text_fixed(path):
    """perf's JSON with each sign-extended \\uffffffXX made the byte XX"""
    raw = open(path, "rb").read()
    raw = re.sub(rb"\\uffffff([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]), raw)
    return json.loads(raw.decode("utf-8", "surrogateescape"))

def to_bytes_tree(v, conv):
    if isinstance(v, dict):
        return {k: to_bytes_tree(x, conv) for k, x in v.items()}
    if isinstance(v, list):
        return [to_bytes_tree(x, conv) for x in v]
    if isinstance(v, str):
        return conv(v)
    return v

# --- the document's samples against perfsift script's text --------------------------

def script_blocks(path):
    """(header line, [frame lines]) per sample; bytes as surrogateescape text"""
    blocks = []
    for line in open(path, "rb").read().decode("utf-8", "surrogateescape").split("\n"):
        if not line.strip():
            continue
        if line.startswith("\t") and blocks:
            blocks[-1][1].append(line.strip())
        else:
            blocks.append((line, []))
    return blocks

def se(b):
    return b.decode("utf-8", "surrogateescape")

def frame_ok(fr, line, fields):
    """'ADDR SYM (DSO)' / 'ADDR SYM+0xOFF (inlined)' of a frame line"""
    toks = line.split(" ")
    try:
        addr = int(toks[0], 16)
    except ValueError:
        return "frame line %r has no address" % line
    ips = {int(fr["ip"], 16)} | ({int(fr["rel"], 16)} if "rel" in fr else set())
    if "ip" in fields and addr not in ips:
        return "frame address %x not in %s" % (addr, sorted(hex(x) for x in ips))
    sym = se(unescape(fr["sym"])) if fr["sym"] is not None else "[unknown]"
    if "sym" in fields and not line[len(toks[0]) + 1:].startswith(sym):
        return "frame %r: sym %r" % (line, sym)
    if fr.get("inlined"):
        if not line.endswith("(inlined)"):
            return "frame %r: not (inlined)" % line
    elif "dso" in fields and not line.endswith("(%s)" % se(unescape(fr["dso"]))):
        return "frame %r: dso %r" % (line, fr["dso"])
    return None

def sample_ok(s, block, fields):
    head, frames = block
    if "comm" in fields and not head.lstrip().startswith(se(unescape(s["comm"]))):
        return "comm %r, script %r" % (s["comm"], head[:60])
    if "pid" in fields and "%5d/%-5d" % (s["pid"], s["tid"]) not in head:
        return "pid/tid %d/%d, script %r" % (s["pid"], s["tid"], head[:80])
    if "cpu" in fields and "cpu" in s and "[%03d]" % s["cpu"] not in head:
        return "cpu %d, script %r" % (s["cpu"], head[:80])
    if "time" in fields and "time" in s:
        t = "%d.%06d:" % (s["time"] // 10**9, s["time"] % 10**9 // 1000)
        if " " + t not in " " + head:
            return "time %s, script %r" % (t, head[:80])
    words = head.split()
    if "period" in fields and str(s["period"]) not in words:
        return "period %s, script %r" % (s["period"], head[:100])
    if "event" in fields and se(unescape(s["event"])) + ":" not in head:
        return "event %r, script %r" % (s["event"], head[:100])
    if "trace" in fields and "trace" in s and se(unescape(s["trace"])) not in head:
        return "trace %r, script %r" % (s["trace"][:60], head[:160])
    if frames or len(s["frames"]) > 1:
        if len(frames) != len(s["frames"]):
            return "%d frames, script %d" % (len(s["frames"]), len(frames))
        for fr, line in zip(s["frames"], frames):
            e = frame_ok(fr, line, fields)
            if e:
                return e
    elif s["frames"] and "ip" in fields:
        fr = s["frames"][0]
        if "%16x" % int(fr["ip"], 16) not in head:
            return "ip %s, script %r" % (fr["ip"], head[-100:])
        sym = se(unescape(fr["sym"])) if fr["sym"] is not None else "[unknown]"
        if "sym" in fields and " %s" % sym not in head:
            return "sym %r, script %r" % (sym, head[-100:])
        if "dso" in fields and "(%s)" % se(unescape(fr["dso"])) not in head:
            return "dso %r, script %r" % (fr["dso"], head[-100:])
    return None

def check_script(name, doc, d):
    if not os.path.exists(d + "/script.fields"):
        return out("PASS %s (script refuses every field list: %s)" %
                   (name, open(d + "/script.err").read().strip()[:80]))
    fields = set(open(d + "/script.fields").read().strip().split(","))
    samples = [r for r in doc["records"] if r["type"] == "SAMPLE"]
    if not samples and doc["summary"]["samples"] == 0:
        return out("PASS %s (no samples: script prints %d lines of perf stat output)" %
                   (name, len(open(d + "/script.txt").read().splitlines())))
    blocks = script_blocks(d + "/script.txt")
    if len(blocks) != len(samples):
        return out("FAIL %s: %d samples, script prints %d" % (name, len(samples), len(blocks)))
    for n, (s, b) in enumerate(zip(samples, blocks)):
        e = sample_ok(s, b, fields)
        if e:
            return out("FAIL %s: sample %d (offset %s): %s" % (name, n, s["offset"], e))
    out("PASS %s (%d samples, -F %s)" % (name, len(samples), ",".join(sorted(fields))))

# --- per capture ------------------------------------------------------------------------

def check_forms(path, d):
    docs = {}
    for form in ["doc", "lines", "perf", "speedscope"]:
        name = "json %s %s" % (form, display(path))
        rc = int(open("%s/%s.rc" % (d, form)).read())
        err = open("%s/%s.err" % (d, form), errors="replace").read().strip()
        if rc != 0:
            if rc == 1 and err and os.path.getsize("%s/%s.json" % (d, form)) == 0:
                out("PASS %s (perfsift refuses: %s)" % (name, err[:100]))
            else:
                out("FAIL %s: exit %d: %s" % (name, rc, err[:200]))
            continue
        if int(open("%s/%s.jqrc" % (d, form)).read()) != 0:
            out("FAIL %s: jq cannot parse it: %s" % (name, open("%s/%s.jq" % (d, form)).read()[:200]))
            continue
        doc = load(form, "%s/%s.json" % (d, form))
        e = schema_errors(form, doc)
        if e is None and form == "speedscope" and ss_official is not None:
            for x in ss_official.iter_errors(doc):
                e = "speedscope's schema: /%s: %s" % ("/".join(map(str, x.absolute_path)), x.message[:150])
                break
        if e:
            out("FAIL %s: schema: %s" % (name, e))
            continue
        docs[form] = doc
        out("PASS %s (jq, schema%s)" % (name, ", speedscope's schema" if form == "speedscope" else ""))
    return docs

def check_speedscope_threads(path, d, docs):
    """a profile per (pid/tid, event) perf script prints, named by both"""
    if not os.path.exists(d + "/perf-threads.txt") or "speedscope" not in docs:
        return
    name = "json speedscope profiles==perf script threads and events %s" % display(path)
    want = sorted({tuple(l.split()[:2]) for l in open(d + "/perf-threads.txt") if l.strip()})
    want = [(t, e.rstrip(":")) for t, e in want]
    got = sorted(tuple(p["name"].split()[-2:]) for p in docs["speedscope"]["profiles"])
    if got != want:
        return out("FAIL %s: profiles %s, perf %s" % (name, got[:4], want[:4]))
    if len({e for _, e in want}) < 2:
        return out("FAIL %s: one event only: the capture tests nothing" % name)
    out("PASS %s (%d profiles)" % (name, len(got)))

def check_samples_only(path, d, docs):
    """a pipe declares its features and events with records, which
    --samples-only does not write but must still read"""
    if not os.path.exists(d + "/samples-only.json") or "doc" not in docs:
        return
    name = "json --samples-only pipe declarations %s" % display(path)
    try:
        so = json.load(open(d + "/samples-only.json", encoding="utf-8"))
    except ValueError as e:
        return out("FAIL %s: not JSON: %s" % (name, e))
    host = next((l.rstrip("\n")[len("# hostname : "):] for l in open(d + "/perf-header.txt")
                 if l.startswith("# hostname : ")), None)
    if so.get("features") != docs["doc"].get("features") or so.get("events") != docs["doc"].get("events"):
        return out("FAIL %s: features/events differ from the whole document's (%d features, %d events)"
                   % (name, len(so.get("features") or {}), len(so.get("events") or [])))
    if host is None or so["features"].get("hostname") != host:
        return out("FAIL %s: hostname %r, perf %r" % (name, so["features"].get("hostname"), host))
    if any(r["type"] != "SAMPLE" for r in so["records"]):
        return out("FAIL %s: records that are not samples" % name)
    out("PASS %s (%d events)" % (name, len(so["events"])))

def check_lines_equal(path, docs):
    if "doc" not in docs or "lines" not in docs:
        return
    name = "json lines==document %s" % display(path)
    lines = docs["lines"]
    if lines[1:-1] != docs["doc"]["records"] or lines[0]["type"] != "perfsift-header" or \
       lines[-1]["type"] != "perfsift-end":
        return out("FAIL %s: the records differ" % name)
    out("PASS %s" % name)

# --- pipe captures: what perf would write if it did not crash on them ----------

PIPE_HEADERS = [("hostname", "hostname"), ("os release", "os-release"),
                ("perf version", "perf-version"), ("arch", "arch"),
                ("nrcpus online", "nrcpus-online"), ("nrcpus avail", "nrcpus-avail"),
                ("cpudesc", "cpu-desc"), ("cpuid", "cpuid")]

def check_pipe_headers(name, d, ours, rc):
    perf = {}
    for line in open(d + "/perf-header.txt", encoding="utf-8", errors="replace"):
        m = re.match(r"# ([a-z ]+?) : (.*)$", line.rstrip("\n"))
        if m:
            perf.setdefault(m.group(1), m.group(2))
    h = ours["headers"]
    wrong = ["%s: ours %r, perf %r" % (o, h.get(o), perf[p]) for p, o in PIPE_HEADERS
             if p in perf and str(h.get(o)) != perf[p]]
    if "cmdline" in perf and "".join(a + " " for a in h.get("cmdline", [])) != perf["cmdline"]:
        wrong.append("cmdline: ours %r, perf %r" % (h.get("cmdline"), perf["cmdline"]))
    if "hostname" not in perf:
        wrong.append("perf report --header-only printed no hostname")
    if wrong:
        return out("FAIL %s: pipe headers: %s" % (name, "; ".join(wrong)[:300]))
    if os.path.exists(d + "/perf-cpu.txt"):
        return check_pipe_cpus(name, d, ours, rc)
    out("PASS %s (perf cannot convert it: exit %d; headers as perf reads them)" % (name, rc))

def check_pipe_cpus(name, d, ours, rc):
    """perf script -F sw:time -F trace:time,cpu: "[NNN] time:" or "time:" """
    want = []
    for line in open(d + "/perf-cpu.txt"):
        m = re.match(r"\s*(?:\[(\d+)\]\s+)?(\d+\.\d+):", line)
        if m:
            want.append((int(m.group(1)) if m.group(1) else -1, m.group(2)))
    got = [(s.get("cpu"), "%d.%06d" % (s["timestamp"] // 10**9, s["timestamp"] % 10**9 // 1000))
           for s in ours["samples"]]
    if got != want:
        n = next((i for i, (x, y) in enumerate(zip(got, want)) if x != y), min(len(got), len(want)))
        return out("FAIL %s: sample %d of %d/%d: ours (cpu, time) %s, perf %s" % (
            name, n, len(got), len(want), got[n] if n < len(got) else "-",
            want[n] if n < len(want) else "-"))
    if {c for c, _ in want} & {-1} == set() or all(c == -1 for c, _ in want):
        return out("FAIL %s: the capture lacks samples with and without a cpu" % name)
    out("PASS %s (perf cannot convert it: exit %d; headers as perf reads them; "
        "%d samples' cpu as perf script's)" % (name, rc, len(want)))

def check_perf(path, d, docs):
    name = "json perf-compat==perf %s" % display(path)
    rc = int(open(d + "/perf-ref.rc").read())
    try:
        ref_ok = rc == 0 and os.path.getsize(d + "/perf-ref.json") > 0
    except OSError:
        ref_ok = False
    if not ref_ok:
        if "perf" in docs and os.path.exists(d + "/perf-header.txt"):
            return check_pipe_headers(name, d, docs["perf"], rc)
        return out("PASS %s (perf cannot convert it: exit %d)" % (name, rc))
    if "perf" not in docs:
        return out("FAIL %s: perf converts it, perfsift does not" % name)
    if path.endswith("/utf8.data"):
        ours = to_bytes_tree(docs["perf"], unescape_compat)
        ref = to_bytes_tree(perf_text_fixed(d + "/perf-ref.json"),
                            lambda s: s.encode("utf-8", "surrogateescape"))
        mangled = open(d + "/perf-ref.json", "rb").read().count(b"\\uffffff")
        if ours != ref:
            return out("FAIL %s: differs from perf's with its escapes undone" % name)
        if not mangled:
            return out("FAIL %s: perf did not mangle names: the fixture tests nothing" % name)
        return out("PASS %s (names right where perf wrote %d \\uffffffXX escapes)" % (name, mangled))
    ref = json.load(open(d + "/perf-ref.json"))
    if docs["perf"] != ref:
        a, b = docs["perf"], ref
        why = "headers" if a.get("headers") != b.get("headers") else "samples"
        if why == "samples":
            n = next((i for i, (x, y) in enumerate(zip(a["samples"], b["samples"])) if x != y),
                     min(len(a["samples"]), len(b["samples"])))
            why = "sample %d of %d/%d: ours %s, perf %s" % (
                n, len(a["samples"]), len(b["samples"]),
                json.dumps(a["samples"][n])[:150] if n < len(a["samples"]) else "-",
                json.dumps(b["samples"][n])[:150] if n < len(b["samples"]) else "-")
        return out("FAIL %s: %s" % (name, why))
    same = open(d + "/perf.json", "rb").read() == open(d + "/perf-ref.json", "rb").read()
    out("PASS %s (%d samples%s)" % (name, len(ref["samples"]), ", same bytes" if same else ""))

for line in open(tmp + "/manifest"):
    path, d = line.rstrip("\n").split("\t")
    try:
        docs = check_forms(path, d)
        check_lines_equal(path, docs)
        check_speedscope_threads(path, d, docs)
        check_samples_only(path, d, docs)
        check_perf(path, d, docs)
        if "doc" in docs:
            check_script("json document==script %s" % display(path), docs["doc"], d)
    except Exception as e:
        out("FAIL json %s: checker error %s: %s" % (display(path), type(e).__name__, e))

# filters, against script and perf with the same filters
try:
    d = tmp + "/filter"
    doc = json.load(open(d + "/doc.json"))
    if doc["summary"]["filtered"] == 0 or not any(r["type"] == "SAMPLE" for r in doc["records"]):
        out("FAIL json filters: --comms/--cpu kept all or nothing")
    else:
        check_script("json filters==script --comms --cpu", doc, d)
    d = tmp + "/time"
    doc = json.load(open(d + "/doc.json"))
    if doc["summary"]["filtered"] == 0:
        out("FAIL json filters --time: kept everything")
    else:
        check_script("json filters==script --time --pid (and -e)", doc, d)
except Exception as e:
    out("FAIL json filters: checker error %s: %s" % (type(e).__name__, e))

# --srcline against perf script's srcline lines (one under each frame line)
def srcline_blocks(path):
    blocks, after_frame = [], False
    for line in open(path, "rb").read().decode("utf-8", "surrogateescape").split("\n"):
        if not line.strip():
            after_frame = False
        elif line.startswith("\t") and blocks:
            blocks[-1].append(None)
            after_frame = True
        elif after_frame and line.startswith("  "):
            blocks[-1][-1] = line.strip()
            after_frame = False
        else:
            blocks.append([])      # a sample's line: event name, no ip
            after_frame = False
    return blocks

try:
    d = tmp + "/srcline"
    name = "json --srcline==perf script srcline (tracepoints with call chains)"
    if int(open(d + "/doc.rc").read()) != 0:
        out("FAIL %s: perfsift refuses: %s" % (name, open(d + "/doc.err").read().strip()[:160]))
    elif int(open(d + "/perf.rc").read()) != 0:
        out("FAIL %s: perf script fails: %s" % (name, open(d + "/perf.err").read().strip()[:160]))
    else:
        samples = [r for r in json.load(open(d + "/doc.json"))["records"] if r["type"] == "SAMPLE"]
        blocks = srcline_blocks(d + "/perf.txt")
        events = {s["event"] for s in samples}
        bad = next((n for n, (s, b) in enumerate(zip(samples, blocks))
                    if [f.get("srcline") for f in s["frames"]] != b), None)
        if len(samples) != len(blocks):
            out("FAIL %s: %d samples, perf %d" % (name, len(samples), len(blocks)))
        elif bad is not None:
            out("FAIL %s: sample %d: ours %s, perf %s" % (name, bad,
                [f.get("srcline") for f in samples[bad]["frames"]][:6], blocks[bad][:6]))
        elif not any(":" in e and "clock" not in e for e in events):
            out("FAIL %s: no tracepoint sample: the capture tests nothing" % name)
        else:
            out("PASS %s (%d samples of %d events, %d frames)" %
                (name, len(samples), len(events), sum(len(b) for b in blocks)))
except Exception as e:
    out("FAIL json --srcline: checker error %s: %s" % (type(e).__name__, e))
PY
cat "$T/results"
nfail=$((nfail + $(grep -c '^FAIL' "$T/results")))
[ -s "$T/results" ] || fail "json: the checker printed nothing"
grep -q 'perf-compat==perf testdata/utf8.data' "$T/results" || fail "json utf8: not checked"

# --- speedscope in headless Chromium ---------------------------------------------------

SS=$SPEEDSCOPE_DIR/package/dist/release
U=$(grep -n '/utf8.data$' "$T/list" | cut -d: -f1)
if [ -n "$U" ] && [ -f "$SS/index.html" ] && [ -s "$T/c$U/speedscope.json" ]; then
    # speedscope loads a profileURL only over http: serve a copy of it
    mkdir -p "$T/www" && ln -s "$SS"/* "$T/www/" && cp "$T/c$U/speedscope.json" "$T/www/p.json"
    python3 -m http.server 0 --bind 127.0.0.1 --directory "$T/www" > "$T/http.log" 2>&1 &
    http_pid=$!
    port=
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        port=$(grep -o 'port [0-9]*' "$T/http.log" | head -1 | cut -d' ' -f2)
        [ -n "$port" ] && break
        sleep 0.5
    done
    url="http://127.0.0.1:$port/index.html#profileURL=http://127.0.0.1:$port/p.json&view=sandwich"
    timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --user-data-dir="$T/chrome" \
        --virtual-time-budget=5000 --dump-dom "$url" > "$T/ss-dom.html" 2> "$T/ss-chrome.err"
    kill "$http_pid" 2>/dev/null
    wait "$http_pid" 2>/dev/null
    missing=
    for want in '<title>utf8.data - speedscope' 'spïn ' 'wörk' '__libc_start_call_main'; do
        grep -qF "$want" "$T/ss-dom.html" || missing="$missing '$want'"
    done
    if [ -z "$missing" ]; then
        pass "json speedscope chromium: speedscope $SPEEDSCOPE_VERSION loads utf8.data's file (title, profile, frames in the sandwich view)"
    else
        fail "json speedscope chromium: not shown:$missing ($(grep -o '<title>[^<]*' "$T/ss-dom.html" | head -1))"
    fi
else
    fail "json speedscope chromium: no speedscope viewer or no file for utf8.data"
fi

# --- -o: atomic ----------------------------------------------------------------------------

f=$SHARED/corpus/captures/cpuhog-plain.data
ps json -q "$f" -o "$T/o.json" && ps json -q "$f" > "$T/stdout.json"
head -c 100 "$f" > "$T/cut.data"
if cmp -s "$T/o.json" "$T/stdout.json" && ! ps json -q "$T/cut.data" -o "$T/bad.json" 2>/dev/null &&
   [ ! -e "$T/bad.json" ] && [ -z "$(ls "$T" | grep 'bad.json.tmp')" ]; then
    pass "json -o: same as stdout; nothing written for a cut capture"
else
    fail "json -o: differs from stdout, or left a file for a cut capture"
fi
finish
