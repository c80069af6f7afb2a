#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""svgcheck.py - checks of `perfsift flamegraph` SVGs, written apart from the C.

  layout SVG FOLDED [flamegraph options]   the frames flamegraph.pl would draw
        from FOLDED (a port of its facts: Perl sort, flow() with its %Node
        keys, widths, pruning, labels, --hash colours), compared with the
        SVG's frames: position, size, fill, tooltip and label of each
  sums SVG FOLDED       per depth and name, drawn widths add up to
        count / total * (width - 20), and every frame sits on its parent
  colours SVG...        every frame name has one colour in all the SVGs
  zoom DOM SVG X Y      a browser's DOM after ?x=X&y=Y: the frame there is
        zoomed to the full width, as the ancestors are (faded), its
        descendants scale with it and all else hides
  png PNG MIN           the PNG has at least MIN distinct colours
  dom DOM FOLDED REGEX  a browser's DOM after ?s=REGEX: exactly the frames
        whose names match are highlighted, and "Matched: P%" is the share
        of FOLDED's counts under a matching frame (to 0.1)

  batch                 lines "NAME<TAB>one of the above" on stdin, each
        answered with a PASS NAME or FAIL NAME line

Prints "ok ..." and exits 0, or prints what differs and exits 1.
Where perfsift means to differ from flamegraph.pl (flame_svg.c says so)
the model follows perfsift: the root is labelled "all", an icicle graph
with a subtitle starts below it, and characters XML cannot hold are U+FFFD.
"""
import argparse
import collections
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"
XPAD, FRAMEPAD = 10, 1
LINE_RE = re.compile(r"^(.*)\s+?(\d+(?:\.\d*)?)$", re.ASCII)
SEARCH_COLOR = "rgb(230,0,230)"


def pnum(v):
    """How Perl prints a number."""
    return "%.15g" % v


def perl_split(sep_re, s):
    """Perl's split: trailing empty fields dropped; '' gives nothing."""
    parts = re.split(sep_re, s)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def read_lines(path):
    data = open(path, "rb").read().decode("utf-8", "surrogateescape")
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


# --- flamegraph.pl's model ------------------------------------------------

def namehash(name):
    vector, weight, mx, mod = 0.0, 1.0, 1.0, 10
    name = re.sub(r".(.*?)`", "", name, count=1)
    for c in name:
        i = ord(c) % mod
        vector += (i / (mod - 1)) * weight
        mod += 1
        mx += weight
        weight *= 0.70
        if mod > 12:
            break
    return 1 - vector / mx


FLAT = {  # channel = base + int(span * v[which])
    "hot": ((205, 50, 3), (0, 230, 1), (0, 55, 2)),
    "mem": ((0, 0, 1), (190, 50, 2), (0, 210, 1)),
    "io": ((80, 60, 1), (80, 60, 1), (190, 55, 2)),
    "red": ((200, 55, 1), (50, 80, 1), (50, 80, 1)),
    "green": ((50, 60, 1), (200, 55, 1), (50, 60, 1)),
    "blue": ((80, 60, 1), (80, 60, 1), (205, 50, 1)),
    "yellow": ((175, 55, 1), (175, 55, 1), (50, 20, 1)),
    "purple": ((190, 65, 1), (80, 60, 1), (190, 65, 1)),
    "aqua": ((50, 60, 1), (165, 55, 1), (165, 55, 1)),
    "orange": ((190, 65, 1), (90, 65, 1), (0, 0, 1)),
}


def multi(palette, name):
    if palette == "java":
        if re.search(r"_\[j\]$", name): return "green"
        if re.search(r"_\[i\]$", name): return "aqua"
        if re.search(r"^L?(java|javax|jdk|net|org|com|io|sun)/", name): return "green"
        if ":::" in name: return "green"
        if "::" in name: return "yellow"
        if re.search(r"_\[k\]$", name): return "orange"
        return "red"
    if palette == "perl":
        if "::" in name: return "yellow"
        if "Perl" in name or ".pl" in name: return "green"
        if re.search(r"_\[k\]$", name): return "orange"
        return "red"
    if palette == "js":
        if re.search(r"_\[j\]$", name): return "green" if "/" in name else "aqua"
        if "::" in name: return "yellow"
        if re.search(r"/.*\.js", name): return "green"
        if ":" in name: return "aqua"
        if name == " ": return "green"
        if "_[k]" in name: return "orange"
        return "red"
    if palette == "wakeup":
        return "aqua"
    if palette == "chain":
        return "aqua" if "_[w]" in name else "blue"
    return palette


def color(palette, name):
    v1 = namehash(name)
    v2 = v3 = namehash(name[::-1])
    v = [0, v1, v2, v3]
    chans = FLAT[multi(palette, name)]
    return "rgb(%d,%d,%d)" % tuple(b + int(s * v[w]) for b, s, w in chans)


def color_scale(value, mx, negate):
    r = g = b = 255
    if negate:
        value = -value
    if value > 0:
        g = b = int(210 * (mx - value) / mx)
    elif value < 0:
        r = g = int(210 * (mx + value) / mx)
    return "rgb(%d,%d,%d)" % (r, g, b)


def parse(line):
    m = LINE_RE.match(line)
    if not m:
        return None
    stack, samples, samples2 = m.group(1), m.group(2), None
    m2 = LINE_RE.match(stack)
    if m2:
        samples2 = samples
        stack, samples = m2.group(1), m2.group(2)
    return stack, samples, samples2


def model(lines, o):
    """flamegraph.pl's %Node after flow(): {key: {stime, delta}}, and totals."""
    data = []
    for line in lines:
        if o.reverse:
            p = parse(line)
            if p is None:
                data.append(" ")
                continue
            stack, s1, s2 = p
            rev = ";".join(reversed(perl_split(";", stack)))
            data.append(rev + " " + s1 + ("" if s2 is None else " " + s2))
        else:
            data.append(line)
    data = data if o.flamechart else sorted(data)
    node, tmp = {}, {}
    last, time, maxdelta = [], 0.0, 1.0

    def flow(last, this, v, d):
        same = 0
        while same < len(last) and same < len(this) and last[same] == this[same]:
            same += 1
        for i in range(len(last) - 1, same - 1, -1):
            k = "%s;%d" % (last[i], i)
            n = node.setdefault("%s;%s" % (k, pnum(v)), {})
            n["stime"] = tmp[k]["stime"]
            if "delta" in tmp[k]:
                n["delta"] = tmp[k]["delta"]
            n.update(func=last[i], depth=i, etime=v)
            del tmp[k]
        for i in range(same, len(this)):
            k = "%s;%d" % (this[i], i)
            tmp[k] = {"stime": v}
            if d is not None:
                tmp[k]["delta"] = d if i == len(this) - 1 else 0
        return this

    for line in data:
        p = parse(line)
        if p is None:
            continue
        stack, s1, s2 = p
        delta = None
        if s2 is not None:
            delta = float(s2) - float(s1)
            maxdelta = max(maxdelta, abs(delta))
        if o.colors == "chain":
            parts = perl_split(";--;", stack)
            stack = (parts.pop(0) if parts else "") + ";--;"
            parts = [x.replace(";", "_[w];") + "_[w]" for x in parts]
            stack += ";--;".join(parts)
        last = flow(last, [""] + perl_split(";", stack), time, delta)
        time += float(s2 if s2 is not None else s1)
    flow(last, [], time, None)
    return node, time, maxdelta


def xml_safe(s):
    """perfsift writes what XML 1.0 cannot hold as U+FFFD."""
    return re.sub("[\x00-\x08\x0b-\x1f\udc80-\udcff\ufffe\uffff]", "\ufffd", s)


def expected_frames(lines, o):
    node, time, maxdelta = model(lines, o)
    if time == 0:
        return None
    timemax = time
    if o.total and o.total >= time:
        timemax = o.total
    wpt = (o.width - 2 * XPAD) / timemax
    mw = o.minwidth.rstrip("%")
    mwt = timemax * float(mw) / 100 if o.minwidth.endswith("%") else float(mw) / wpt
    kept = [n for n in node.values() if n["etime"] - n["stime"] >= mwt]
    depthmax = max(n["depth"] for n in kept)
    fs = o.fontsize
    ypad1, ypad2, ypad3 = fs * 3, fs * 2 + 10, fs * 2
    height = (depthmax + 1) * o.height + ypad1 + ypad2
    top = ypad1
    if o.subtitle:
        height += ypad3
        top += ypad3
    out = []
    for n in kept:
        func, depth, stime, etime = n["func"], n["depth"], n["stime"], n["etime"]
        if func == "" and depth == 0:
            etime = timemax
        x1, x2 = XPAD + stime * wpt, XPAD + etime * wpt
        if not o.inverted:
            y1 = height - ypad2 - (depth + 1) * o.height + FRAMEPAD
            y2 = height - ypad2 - depth * o.height
        else:
            y1 = top + depth * o.height
            y2 = top + (depth + 1) * o.height - FRAMEPAD
        samples = float("%.0f" % ((etime - stime) * o.factor))
        stxt = "{:,}".format(int(samples))
        bare = re.sub(r"_\[[kwij]\]$", "", func)
        if func == "" and depth == 0:
            title = "all (%s %s, 100%%)" % (stxt, o.countname)
        else:
            title = "%s (%s %s, %.2f%%" % (bare, stxt, o.countname,
                                          100 * samples / (timemax * o.factor))
            if "delta" in n:
                d = -n["delta"] if o.negate else n["delta"]
                d = 0 if d == 0 else d  # Perl: -0 of an integer 0 is 0
                title += "; %s%.2f%%" % ("+" if d > 0 else "", 100 * d / (timemax * o.factor))
            title += ")"
        if func == "--":
            fill = "rgb(160,160,160)"
        elif func == "-":
            fill = "rgb(200,200,200)"
        elif "delta" in n:
            fill = color_scale(n["delta"], maxdelta, o.negate)
        else:
            fill = color(o.colors, func)
        chars = int((x2 - x1) / (fs * o.fontwidth))
        text = ""
        if chars >= 3:
            t = "all" if depth == 0 else bare
            text = t[:chars]
            if chars < len(t):
                text = text[:-2] + ".."
        xs, x2s = "%.1f" % x1, "%.1f" % x2
        out.append((xs, pnum(y1), "%.1f" % (float(x2s) - float(xs)), "%.1f" % (y2 - y1),
                    fill, xml_safe(title), xml_safe(text)))
    return out


def stacks(path):
    """Each valid line's frame names as tooltips show them, root "all"
    first, and the count that gives its width."""
    for line in read_lines(path):
        p = parse(line)
        if p is not None:
            stack, s1, s2 = p
            names = [re.sub(r"_\[[kwij]\]$", "", f) for f in perl_split(";", stack)]
            yield ["all"] + names, float(s2 if s2 is not None else s1)


# --- the SVG --------------------------------------------------------------

def svg_frames(path):
    root = ET.parse(path).getroot()
    frames = root.find(NS + "g[@id='frames']")
    out = []
    for g in frames:
        r = g.find(NS + "rect")
        t = g.find(NS + "text")
        out.append((r.get("x"), r.get("y"), r.get("width"), r.get("height"), r.get("fill"),
                    g.find(NS + "title").text, t.text or ""))
    return root, out


def flame_opts(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--width", type=int, default=1200)
    p.add_argument("--height", type=int, default=16)
    p.add_argument("--minwidth", default="0.1")
    p.add_argument("--fontsize", type=float, default=12)
    p.add_argument("--fontwidth", type=float, default=0.59)
    p.add_argument("--colors", default="hot")
    p.add_argument("--countname", default="samples")
    p.add_argument("--subtitle", default="")
    p.add_argument("--total", type=float, default=0)
    p.add_argument("--factor", type=float, default=1)
    for flag in ("reverse", "inverted", "flamechart", "negate"):
        p.add_argument("--" + flag, action="store_true")
    o, _ = p.parse_known_args(argv)
    return o


def cmd_layout(args):
    o = flame_opts(args[2:])
    exp = expected_frames(read_lines(args[1]), o)
    _, got = svg_frames(args[0])
    want, have = collections.Counter(exp), collections.Counter(got)
    if want == have:
        print("ok %d frames" % len(got))
        return 0
    print("%d frames expected, %d drawn" % (len(exp), len(got)))
    for f in list((want - have).elements())[:5]:
        print("  missing: %r" % (f,))
    for f in list((have - want).elements())[:5]:
        print("  extra:   %r" % (f,))
    return 1


def cmd_sums(args):
    """Independent of the merge order: widths per (depth, name) and nesting."""
    root, got = svg_frames(args[0])
    width = float(root.get("width"))
    total, per = 0.0, collections.Counter()
    for names, c in stacks(args[1]):
        total += c
        for d, f in enumerate(names):
            per[(d, f)] += c
    root_y = [float(f[1]) for f in got if f[5].startswith("all (")][0]
    ys = sorted({float(f[1]) for f in got}, reverse=root_y == max(float(f[1]) for f in got))
    depth_of = {y: i for i, y in enumerate(ys)}
    drawn = collections.Counter()
    for f in got:
        name = f[5][:f[5].rfind(" (")]
        drawn[(depth_of[float(f[1])], name)] += float(f[2])
    bad = 0
    for key, c in per.items():
        want = c / total * (width - 2 * XPAD)
        # each frame is off by at most 0.1 px of rounding, 0.05 each edge
        n = sum(1 for f in got if (depth_of[float(f[1])], f[5][:f[5].rfind(" (")]) == key)
        if abs(drawn[key] - want) > 0.1 * max(n, 1) + 1e-6:
            print("width of %r: drawn %.2f, counts give %.2f" % (key, drawn[key], want))
            bad += 1
    by_depth = collections.defaultdict(list)
    for f in got:
        by_depth[depth_of[float(f[1])]].append((float(f[0]), float(f[0]) + float(f[2])))
    for d in range(1, len(ys)):
        for x1, x2 in by_depth[d]:
            if not any(p1 - 0.051 <= x1 and x2 <= p2 + 0.051 for p1, p2 in by_depth[d - 1]):
                print("frame at depth %d [%.1f, %.1f] has no parent under it" % (d, x1, x2))
                bad += 1
    if bad:
        return 1
    print("ok %d (depth, name) widths, %d frames nested" % (len(per), len(got)))
    return 0


def cmd_colours(args):
    """Across the SVGs, each frame name has one colour."""
    seen = {}
    for path in args:
        for f in svg_frames(path)[1]:
            seen.setdefault(f[5][:f[5].rfind(" (")], set()).add(f[4])
    two = sorted(n for n, c in seen.items() if len(c) > 1)
    if two or not seen:
        print("%d names with more than one colour: %s" % (len(two), " ".join(two[:5])))
        return 1
    print("ok %d names, one colour each in %d graphs" % (len(seen), len(args)))
    return 0


def png_colours(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "8-bit RGB(A) only"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * bpp
    prev, colours, i = bytearray(stride), set(), 0
    while i < len(raw):
        ftype, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if ftype == 1: line[x] = (line[x] + a) & 255
            elif ftype == 2: line[x] = (line[x] + b) & 255
            elif ftype == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        colours.update(bytes(line[x:x + 3]) for x in range(0, stride, bpp))
        prev = line
    return colours


def cmd_png(args):
    n = len(png_colours(args[0]))
    if n < int(args[1]):
        print("%s: %d distinct colours, want at least %s (blank?)" % (args[0], n, args[1]))
        return 1
    print("ok %d distinct colours" % n)
    return 0


def cmd_dom(args):
    dom, folded, term = args
    root = ET.fromstring(open(dom, encoding="utf-8").read())
    frames = root.find(NS + "g[@id='frames']")
    rx = re.compile(term)
    bad = 0
    for g in frames:
        title = g.find(NS + "title").text
        name = title[:title.rfind(" (")]
        lit = g.find(NS + "rect").get("fill") == SEARCH_COLOR
        if lit != bool(rx.search(name)):
            print("frame %r: highlighted %s, matches %s" % (name, lit, not lit))
            bad += 1
    matched = root.find(NS + "text[@id='matched']").text or ""
    total = hit = 0.0
    for names, c in stacks(folded):
        total += c
        if any(rx.search(f) for f in names):
            hit += c
    m = re.match(r"Matched: ([0-9.]+)%$", matched)
    want = 100 * hit / total
    if not m or abs(float(m.group(1)) - want) > 0.1 + 1e-9:
        print("matched text %r, counts give %.3f%%" % (matched, want))
        bad += 1
    if bad:
        return 1
    print("ok %s, %d frames" % (matched, len(frames)))
    return 0


def cmd_zoom(args):
    """A browser's DOM after ?x=X&y=Y, against the SVG it loaded: the frame
    at X, Y spans the width, its ancestors too (faded), what lies above it
    scales with it, and the rest hides."""
    dom, svg, zx, zy = args
    root, orig = svg_frames(svg)
    full = float(root.get("width")) - 2 * XPAD
    target = [f for f in orig if f[0] == zx and f[1] == zy][0]
    tx, tw, ty = float(target[0]), float(target[2]), float(target[1])
    root_y = [float(f[1]) for f in orig if f[5].startswith("all (")][0]
    down = root_y > ty          # a flame graph: the root is at the bottom
    groups = list(ET.fromstring(open(dom, encoding="utf-8").read()).find(NS + "g[@id='frames']"))
    bad, seen = 0, collections.Counter()
    for f, g in zip(orig, groups):
        x, w, y = float(f[0]), float(f[2]), float(f[1])
        r = g.find(NS + "rect")
        gx, gw, cls = float(r.get("x")), float(r.get("width")), g.get("class") or ""
        if (y > ty if down else y < ty) and x <= tx + 0.01 and x + w >= tx + tw - 0.01:
            want = ("parent", XPAD, full)
        elif (y <= ty if down else y >= ty) and x >= tx - 0.01 and x + w <= tx + tw + 0.01:
            want = ("", XPAD + (x - tx) * full / tw, w * full / tw)
        else:
            want = ("hide", gx, gw)
        seen[want[0] or "zoomed"] += 1
        if cls != want[0] or abs(gx - want[1]) > 0.11 or abs(gw - want[2]) > 0.11:
            print("frame %r: class %r x %.1f w %.1f, want %r %.1f %.1f"
                  % (f[5], cls, gx, gw, want[0], want[1], want[2]))
            bad += 1
    if bad or len(groups) != len(orig):
        print("%d frames wrong of %d (%d in the DOM)" % (bad, len(orig), len(groups)))
        return 1
    print("ok %d zoomed, %d ancestors, %d hidden" % (seen["zoomed"], seen["parent"], seen["hide"]))
    return 0


CMDS = {"zoom": cmd_zoom, "layout": cmd_layout, "sums": cmd_sums, "colours": cmd_colours,
        "png": cmd_png, "dom": cmd_dom}


def cmd_batch(args):
    """Lines "NAME<TAB>command args..." from stdin (args split as a shell
    would); prints "PASS NAME: ..." or "FAIL NAME: ..." for each."""
    import contextlib
    import io
    import shlex
    bad = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        name, cmd = line.rstrip("\n").split("\t", 1)
        argv = shlex.split(cmd)
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                rc = CMDS[argv[0]](argv[1:])
        except Exception as e:  # a broken SVG is a failure, not a crash
            rc = 1
            buf.write("%s: %s\n" % (type(e).__name__, e))
        text = buf.getvalue().strip().split("\n")
        if rc == 0:
            print("PASS %s: %s" % (name, text[-1]))
        else:
            bad += 1
            print("FAIL %s: %s" % (name, text[0]))
            for t in text[1:6]:
                print("    " + t)
    return 1 if bad else 0


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "batch":
        return cmd_batch(sys.argv[2:])
    if len(sys.argv) < 3 or sys.argv[1] not in CMDS:
        print(__doc__, file=sys.stderr)
        return 2
    return CMDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
