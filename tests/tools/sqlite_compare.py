#!/usr/bin/env python3
# sqlite_compare.py PERF_DB PERFSIFT_DB - compare a database made by
# `perf script -s export-to-sqlite.py DB all calls callchains` with one
# made by `perfsift sqlite` of the same capture (tests/diff/sqlite.sh).
#
#  - every table and view of perf's is there, tables with the same columns
#    and declared types;
#  - the rows of selected_events, machines, threads, comms, comm_threads,
#    dsos, symbols, samples (all columns) and context_switches are equal
#    with every id replaced by what it names (so the comparison does not
#    depend on numbering), and call_paths hold the same tree: the same set
#    of paths of symbol names (or addresses) root to leaf;
#  - when both databases number rows alike ("exact"), ids must match too.
# perf leaves tracepoint samples out (its script has handlers for them);
# perfsift keeps them: their samples are left out here, and the rows they
# alone add (threads, comms, dsos, symbols ...) are allowed as extra.
# Prints "ok exact", "ok" or the first differences; exit status 1 on a
# difference.
import json
import sqlite3
import sys
from collections import Counter

COMPARED = ["selected_events", "machines", "threads", "comms", "comm_threads", "dsos",
            "symbols", "samples", "context_switches"]


def connect(path):
    db = sqlite3.connect(path)
    db.text_factory = lambda b: b.decode("utf-8", "surrogateescape")
    return db


def rows(db, table):
    try:
        return db.execute("SELECT * FROM %s ORDER BY id" % table).fetchall()
    except sqlite3.OperationalError:
        return None


def schema(db):
    objs = {}
    for name, kind in db.execute("SELECT name, type FROM sqlite_master"):
        if kind == "table":
            cols = [(r[1], r[2]) for r in db.execute("PRAGMA table_info(%s)" % name)]
            objs[name] = ("table", cols)
        elif kind == "view":
            objs[name] = ("view", None)
    return objs


def vdso(d):
    """perf names its own [vdso] after a temp copy with a random name"""
    if d[0] == "[vdso]" and (d[1] == "[vdso]" or d[1].startswith("/tmp/perf-vdso.so-")):
        return ("[vdso]", "[vdso]", "")
    return tuple(d)


class Names:
    """ids of one database replaced by what they name"""

    def __init__(self, db):
        self.ev = {r[0]: r[1] for r in db.execute("SELECT id, name FROM selected_events")}
        self.mach = {r[0]: (r[1], r[2]) for r in db.execute("SELECT * FROM machines")}
        th = {r[0]: r for r in db.execute("SELECT * FROM threads")}
        self.th = {i: (r[3], r[4]) for i, r in th.items()}
        self.thread_rows = th
        self.comm = {r[0]: (r[1], self.th.get(r[2]), r[3], r[4])
                     for r in db.execute("SELECT id, comm, c_thread_id, c_time, exec_flag "
                                         "FROM comms")}
        self.dso = {r[0]: vdso(r[2:]) for r in db.execute("SELECT * FROM dsos")}
        self.sym = {r[0]: (self.dso.get(r[1]), r[2], r[3], r[4], r[5])
                    for r in db.execute("SELECT * FROM symbols")}
        self.paths = {}
        cp = {}
        try:
            for i, parent, sym, ip in db.execute("SELECT * FROM call_paths ORDER BY id"):
                cp[i] = (parent, sym, ip)
        except sqlite3.OperationalError:
            pass
        self.cp = cp

    def path(self, i):
        if i in self.paths:
            return self.paths[i]
        out = []
        j = i
        while j > 1 and j in self.cp:
            parent, sym, ip = self.cp[j]
            s = self.sym.get(sym)
            out.append((s[0][0], s[4]) if sym else ("", "%x" % (ip & (2**64 - 1))))
            j = parent
        self.paths[i] = tuple(reversed(out))
        return self.paths[i]

    def row(self, table, r):
        if table == "selected_events":
            return (r[1],)
        if table == "machines":
            return r[1:]
        if table == "threads":
            return (self.mach.get(r[1]), self.th.get(r[2]), r[3], r[4])
        if table == "comms":
            return self.comm[r[0]] + (r[5] if len(r) > 5 and self.has_calls else None,)
        if table == "comm_threads":
            return (self.comm.get(r[1]), self.th.get(r[2]))
        if table == "dsos":
            return (self.mach.get(r[1]),) + vdso(r[2:])
        if table == "symbols":
            return self.sym[r[0]]
        if table == "samples":
            return (self.ev.get(r[1]), self.mach.get(r[2]), self.th.get(r[3]),
                    self.comm.get(r[4]), self.dso.get(r[5]), self.sym.get(r[6])) + r[7:11] + \
                   (self.dso.get(r[11]), self.sym.get(r[12])) + r[13:21] + \
                   (self.path(r[21]),) + r[22:]
        if table == "context_switches":
            return (self.mach.get(r[1]), r[2], r[3], self.th.get(r[4]), self.comm.get(r[5]),
                    self.th.get(r[6]), self.comm.get(r[7]), r[8])
        raise KeyError(table)


def tp_main(fields_path, db_path):
    """--tp FIELDS.jsonl DB: tracepoint tables == perf's scripting fields"""
    db = connect(db_path)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                       "AND name LIKE 'tracepoint_%'")}
    ours = []
    for sid, ev in db.execute("SELECT s.id, e.name FROM samples s JOIN selected_events e "
                              "ON e.id = s.evsel_id WHERE s.id > 0 ORDER BY s.id"):
        t = "tracepoint_" + ev.replace(":", "_")
        if t in tables:
            cur = db.execute('SELECT * FROM "%s" WHERE sample_id = ?' % t, (sid,))
            cols = [d[0] for d in cur.description]
            row = cur.fetchone()
            ours.append((t, dict(zip(cols, row)) if row else {}))
    perf = [json.loads(line) for line in open(fields_path)]
    if len(perf) != len(ours):
        print("tracepoint samples: perf %d, perfsift %d" % (len(perf), len(ours)))
        return 1
    bad = 0
    for i, (p, (t, row)) in enumerate(zip(perf, ours)):
        want_t = "tracepoint_" + p["event"].replace("__", "_", 1)
        diffs = [] if want_t == t else ["table %s, perf's event %s" % (t, p["event"])]
        used = set()
        for k, v in p["fields"].items():
            if k.startswith("common_") and k != "common_pid":
                continue
            # a field named sample_id (or as an earlier one, ignoring
            # case) is a column with "_"s added
            col = k
            while col.lower() == "sample_id" or col.lower() in used:
                col += "_"
            used.add(col.lower())
            got = row.get(col)
            if isinstance(v, dict):
                v = bytes.fromhex(v["hex"])
                if isinstance(got, str):
                    got = got.encode()
                    v = v.split(b"\0")[0]
            elif isinstance(v, str) and isinstance(got, bytes):
                # perf 6.1 hands an array of char, u8 or s8 that reads as a
                # C string (last byte 0, printable up to the first 0) as
                # str, cut at the first 0, until one sample of the event
                # does not (PERF-DIFFERENCES.md): perfsift keeps u8 arrays'
                # bytes
                got = got.split(b"\0")[0].decode("utf-8", "surrogateescape")
            elif isinstance(v, int) and isinstance(got, int):
                # perf 6.1's Python scripting reads a signed field narrower
                # than 8 bytes without sign extension (-14 in an int comes
                # as 4294967282); perfsift stores the signed value
                if got < 0 <= v and any(v == got % 2**b and v >= 2**(b - 1)
                                        for b in (8, 16, 32)):
                    got = v
                v, got = v % 2**64, got % 2**64
            if got != v:
                diffs.append("%s: perf %r, perfsift %r" % (k, v, got))
        if diffs:
            bad += 1
            if bad <= 3:
                print("sample %d (%s): %s" % (i + 1, t, "; ".join(diffs[:3])))
    if bad:
        print("%d of %d tracepoint samples differ" % (bad, len(perf)))
        return 1
    print("ok %d" % len(perf))
    return 0


def main():
    if sys.argv[1] == "--tp":
        return tp_main(sys.argv[2], sys.argv[3])
    perf = connect(sys.argv[1])
    ours = connect(sys.argv[2])
    errors = []
    ps, os_ = schema(perf), schema(ours)
    for name, (kind, cols) in sorted(ps.items()):
        if name not in os_:
            errors.append("%s %s missing" % (kind, name))
        elif os_[name] != (kind, cols):
            errors.append("%s %s: columns %s, perf's %s" % (kind, name, os_[name][1], cols))
    pn, on = Names(perf), Names(ours)
    # perf's `calls` also runs its thread-stack code on samples with an
    # addr (page faults): calls rows, has_calls and call paths perfsift
    # does not make; samples' own call paths are still compared
    perf_calls = perf.execute("SELECT count(*) FROM calls").fetchone()[0] > 1
    pn.has_calls = on.has_calls = not perf_calls
    # tracepoint events are perfsift's extra samples
    extra_ev = {i for i, n in on.ev.items() if n not in set(pn.ev.values())}
    exact = not extra_ev and not perf_calls
    for t in COMPARED:
        pr, orows = rows(perf, t), rows(ours, t)
        if pr is None:
            if orows not in (None, []):
                errors.append("%s: perf dropped it empty, perfsift has %d rows" % (t, len(orows)))
            continue
        if orows is None:
            errors.append("%s: missing" % t)
            continue
        if t == "samples":
            orows = [r for r in orows if r[1] not in extra_ev]
        if exact and t != "comms" and pr != orows:
            exact = False
        if exact and t == "comms" and [r[:5] for r in pr] != [r[:5] for r in orows]:
            exact = False
        pc = Counter(pn.row(t, r) for r in pr)
        oc = Counter(on.row(t, r) for r in orows)
        if t == "symbols":
            # perf holds symbol objects alike (one per inline chain entry,
            # two "unknown" ones where a sample's addr is its ip): as
            # many rows of each, also where perfsift may have more rows
            dup = [k for k in oc if oc[k] > max(pc[k], 1)]
            if dup:
                errors.append("symbols: perfsift has more rows alike than perf: %s %d, perf's %d"
                              % (dup[0], oc[dup[0]], pc[dup[0]]))
        missing = pc - oc
        more = oc - pc
        if missing or (more and (not extra_ev or t == "samples")):
            errors.append("%s: %d rows only perf has, %d only perfsift has; e.g.\n  perf:     %s\n"
                          "  perfsift: %s" % (t, sum(missing.values()), sum(more.values()),
                                              sorted(missing, key=repr)[:2],
                                              sorted(more, key=repr)[:2]))
    # the call trees
    pp = {pn.path(i) for i in pn.cp if i > 1}
    op = {on.path(i) for i in on.cp if i > 1}
    if not perf_calls and (pp - op or (op - pp and not extra_ev)):
        errors.append("call_paths: %d paths only perf has, %d only perfsift has; e.g.\n"
                      "  perf:     %s\n  perfsift: %s" % (len(pp - op), len(op - pp),
                                                          sorted(pp - op)[:1],
                                                          sorted(op - pp)[:1]))
    if errors:
        print("\n".join(errors[:6]))
        return 1
    print("ok exact" if exact else "ok (perf's calls rows not compared)" if perf_calls
          else "ok")
    return 0


sys.exit(main())
