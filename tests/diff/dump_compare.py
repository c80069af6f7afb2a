#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dump_compare.py - `perfsift dump --json` against `perf report -D`, as values.

Usage: dump_compare.py [options] CAPTURE...

For each CAPTURE (a file, or a directory capture), runs the real perf (at
test time, on a copy in a temporary directory, with an empty HOME and no
perf config) and perfsift on the same bytes, parses perf's raw dump and
perfsift's NDJSON, and compares them record by record: the same records at
the same offsets with the same sizes and types, and for each record every
field perf prints (the sample fields, the fields of each non-sample record,
and the cpu/time prefix perf takes from the sample or from the
sample_id_all trailer). perf report -D prints nothing of a pipe-mode ATTR
record; those are compared with the events of `perf evlist -v`.

How the two are lined up:
  * perf prints kernel records in time order (its ordered-events queue) and
    user records (type >= 64) at once, so its print order is not file order.
    Records are matched by (data file, file offset) instead; perfsift must
    list them in file order (checked on its side).
  * records decoded from a COMPRESSED record carry the container's offset in
    both tools; inside one container they are matched by type, size and time,
    in order (perf keeps file order among records of equal time).
  * perf does not print COMPRESSED records it decoded; they are left out.
  * pipe mode: perf counts offsets from the end of the 16-byte pipe header,
    perfsift from the start of the file. The delta is applied and reported
    as a NOTE, not hidden (--strict-pipe-offsets makes it a failure).
  * where perf stops early (its output says 'failed to process type', 'bad
    event header size', "Couldn't decompress"...), only the records perf
    printed are compared, each must match one of perfsift's, and the output
    says so.
  * the cpu/time prefix follows the events' sample_types as `perf evlist -v`
    reports them (or perf's hex dump of the ATTR records when evlist cannot
    read an old pipe stream).
  * a sample field perfsift decodes but perf does not print is a failure too
    (the two disagree on the sample layout).
  * two things perf prints are not record data and are reported as
    'NOTE not compared' with both values: the sample_id prefix of a record
    type perf does not know, and a name perf reads on into the sample_id
    trailer because the record has no byte left for it.
  * --reference-for NAME FILE runs perf on FILE (a twin perf reads right)
    instead of on the capture NAME; the output says so.

Prints, per capture, 'PASS <name>: ...' or 'FAIL <name>: ...' with the
first differing record (offset, type, field, perf's value, perfsift's
value), then one line per kind of difference (kind, type.field, count,
first example; --all lists every one), and 'TOTALS <name> perf_records=N
perfsift_records=N compared=N fields=N diffs=N'. 'SKIP <name>: reason' when
perf reads nothing of the capture (it refuses it), or cannot read its event
attributes and stops after a few records decoded without them. Captures run
in parallel (--jobs); output keeps the order given.
Exit status: 0 when nothing failed, 1 otherwise (missing perf is a FAIL).
Python 3 standard library only.
"""
import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

U64 = (1 << 64) - 1
U32 = (1 << 32) - 1
PERF_CONTEXT_USER = 0xfffffffffffffe00
PIPE_HEADER_SIZE = 16

# --- perf's output -----------------------------------------------------------------

HDR_RE = re.compile(r'^(0x[0-9a-f]+|0)@(.*) \[0x([0-9a-f]+)\]: event: (\d+)$')
REC_RE = re.compile(r'^((?:-?\d+ )*)(0x[0-9a-f]+|0) \[0x([0-9a-f]+)\]: '
                    r'PERF_RECORD_([A-Z0-9_]+)(.*)$')
HEX_RE = re.compile(rb'^\.  [0-9a-f]{4}:  ((?:[0-9a-f]{2} )+)')
# what perf says when it stops before the end of the data (the line 'Error:' too)
PERF_STOPPED = ('failed to process type', 'bad event header size', "Couldn't decompress",
                'incompatible file format', 'non matching sample_type',
                'non matching sample_id_all', 'data size field is 0', 'Segmentation fault',
                'unexpected end of event stream', "Can't parse sample")


def perf_stopped(line):
    return line.strip() == 'Error:' or any(s in line for s in PERF_STOPPED)


class PerfRecord(object):
    """One record as perf report -D prints it: the 'OFFSET@PATH [SIZE]: event: TYPE'
    line, the 'PREFIX OFFSET [SIZE]: PERF_RECORD_NAME REST' line and what follows."""
    __slots__ = ('file', 'off', 'size', 'type_id', 'name', 'prefix', 'rest', 'lines', 'raw')

    def __init__(self, file, off, size, type_id):
        self.file, self.off, self.size, self.type_id = file, off, size, type_id
        self.name = None
        self.prefix = []
        self.rest = ''
        self.lines = []
        self.raw = None         # bytes of perf's hex dump, kept for ATTR records only


def file_key(path):
    """perf prints DIR/data.N for the per-thread files of a directory capture."""
    m = re.search(r'/data\.(\d+)$', path)
    return int(m.group(1)) if m else None


def parse_perf_dump(path):
    """perf report -D text -> list of PerfRecord (print order), pipe flag, messages."""
    recs, msgs = [], []
    cur = None
    pipe = False
    with open(path, 'rb') as f:
        data = f.read()
    for raw in data.split(b'\n'):
        if raw[:2] == b'. ' or raw == b'.':
            # hex dump of the raw record, AUX packets; kept for ATTR (pipe mode attrs)
            if cur is not None and cur.type_id == 64 and cur.name is None:
                m = HEX_RE.match(raw)
                if m:
                    cur.raw = (cur.raw or b'') + bytes.fromhex(m.group(1).decode())
            continue
        line = raw.decode('utf-8', 'surrogateescape')
        if line[:1] == '0' and '@' in line:
            m = HDR_RE.match(line)
            if m:
                cur = PerfRecord(file_key(m.group(2)), int(m.group(1), 16),
                                 int(m.group(3), 16), int(m.group(4)))
                pipe = pipe or m.group(2) == 'pipe'
                recs.append(cur)
                continue
        if 'PERF_RECORD_' in line:
            m = REC_RE.match(line)
            if m and cur is not None and cur.name is None and int(m.group(2), 16) == cur.off:
                cur.prefix = m.group(1).split()
                cur.name = m.group(4)
                cur.rest = m.group(5)
                continue
        if line.startswith('Aggregated stats:'):
            break
        if perf_stopped(line):
            msgs.append(line.strip())
        elif cur is not None:
            cur.lines.append(line)
    return recs, pipe, msgs


# perf_event_attr bitfields in flags order (bit, width), as perf evlist -v names them
ATTR_FLAGS = (('disabled', 0, 1), ('inherit', 1, 1), ('pinned', 2, 1), ('exclusive', 3, 1),
              ('exclude_user', 4, 1), ('exclude_kernel', 5, 1), ('exclude_hv', 6, 1),
              ('exclude_idle', 7, 1), ('mmap', 8, 1), ('comm', 9, 1), ('freq', 10, 1),
              ('inherit_stat', 11, 1), ('enable_on_exec', 12, 1), ('task', 13, 1),
              ('watermark', 14, 1), ('precise_ip', 15, 2), ('mmap_data', 17, 1),
              ('sample_id_all', 18, 1), ('exclude_host', 19, 1), ('exclude_guest', 20, 1),
              ('exclude_callchain_kernel', 21, 1), ('exclude_callchain_user', 22, 1),
              ('mmap2', 23, 1), ('comm_exec', 24, 1), ('use_clockid', 25, 1),
              ('context_switch', 26, 1), ('write_backward', 27, 1), ('namespaces', 28, 1),
              ('ksymbol', 29, 1), ('bpf_event', 30, 1), ('aux_output', 31, 1), ('cgroup', 32, 1),
              ('text_poke', 33, 1), ('build_id', 34, 1), ('inherit_thread', 35, 1),
              ('remove_on_exec', 36, 1), ('sigtrap', 37, 1))
SAMPLE_BITS = ('IP', 'TID', 'TIME', 'ADDR', 'READ', 'CALLCHAIN', 'ID', 'CPU', 'PERIOD',
               'STREAM_ID', 'RAW', 'BRANCH_STACK', 'REGS_USER', 'STACK_USER', 'WEIGHT',
               'DATA_SRC', 'IDENTIFIER', 'TRANSACTION', 'REGS_INTR', 'PHYS_ADDR', 'AUX',
               'CGROUP', 'DATA_PAGE_SIZE', 'CODE_PAGE_SIZE', 'WEIGHT_STRUCT')
READ_BITS = ('TOTAL_TIME_ENABLED', 'TOTAL_TIME_RUNNING', 'ID', 'GROUP', 'LOST')
# event names may hold ':' ('cycles:ppp'); the attr starts with one of these keys
EVLIST_NAME_RE = re.compile(r'^(.*?): (?=(?:type|size|config): |\{ sample_period)')
EVLIST_KEY_RE = re.compile(r'(?:^|, )(type|size|config|\{ sample_period, sample_freq \}|'
                           r'sample_type|read_format|[a-z_0-9]+): ([^,]+)')


def bits_of(names, table):
    v = 0
    for n in names.split('|'):
        if n in table:
            v |= 1 << table.index(n)
        else:
            raise ValueError('unknown name %r' % n)
    return v


def parse_evlist(text):
    """perf evlist -v -> list of (name, sample_type set, sample_id_all, attr fields)."""
    out = []
    for line in text.splitlines():
        if line.startswith('#') or ': ' not in line:
            continue
        m = re.search(r'\bsample_type: ([A-Z_|0-9]+)', line)
        st = set(m.group(1).split('|')) if m else set()
        sid = bool(re.search(r'\bsample_id_all: 1\b', line))
        m = EVLIST_NAME_RE.match(line)
        name = m.group(1) if m else line.split(':', 1)[0]
        # the attr as perf holds it (fields perf leaves out are 0)
        attr = {'type': 0, 'size': 0, 'config': 0, 'sample_period': 0, 'sample_type': 0,
                'read_format': 0, 'flags': 0}
        flagbits = {n: (b, w) for n, b, w in ATTR_FLAGS}
        try:
            if not m:
                raise ValueError(line)
            for k, v in EVLIST_KEY_RE.findall(line[m.end():]):
                v = v.strip()
                if k in ('type', 'size'):
                    attr[k] = int(v)
                elif k == 'config':
                    attr[k] = pint(v)
                elif k.startswith('{'):
                    attr['sample_period'] = int(v)
                elif k == 'sample_type':
                    attr[k] = bits_of(v, SAMPLE_BITS)
                elif k == 'read_format':
                    attr[k] = bits_of(v, READ_BITS)
                elif k in flagbits:
                    attr['flags'] |= int(v) << flagbits[k][0]
        except ValueError:
            attr = None
        out.append((name, st, sid, attr))
    return out


# --- value helpers -------------------------------------------------------------------

def toint(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        return int(v, 16) if v.startswith('0x') else int(v)
    raise ValueError(repr(v))


def pint(s):
    """a number as perf prints it: %d, %u, %#x (0 is '0'), %016x (bare hex)."""
    return int(s, 16) if s.startswith('0x') else int(s)


def text_as_dump(s):
    """perf's bytes as perfsift's dump prints a name (cmd/info_json.c
    text_n()): each valid UTF-8 sequence as is, a backslash doubled, any
    other byte as \\xNN."""
    b = s.encode('utf-8', 'surrogateescape')
    out, i = [], 0
    while i < len(b):
        c = b[i]
        n = 1 if c < 0x80 else 2 if 0xc2 <= c < 0xe0 else 3 if 0xe0 <= c < 0xf0 else \
            4 if 0xf0 <= c <= 0xf4 else 0
        try:
            ch = b[i:i + n].decode('utf-8') if n and i + n <= len(b) else None
        except UnicodeDecodeError:
            ch = None
        if ch is None:
            out.append('\\x%02x' % c)
            i += 1
        else:
            out.append('\\\\' if ch == '\\' else ch)
            i += n
    return ''.join(out)


def unit_number(n):
    """perf's unit_number__scnprintf() for page sizes ('N/A' for 0)."""
    if not n:
        return 'N/A'
    i = 0
    while n // 1024 > 1 and i < 3:
        n //= 1024
        i += 1
    return '%d%s' % (n, 'BKMG'[i])


def cpu_list(text):
    """perf's cpu_map__snprint() text ('0-3,5', '-1') -> list of cpus."""
    out = []
    text = text.strip()
    if not text:
        return out
    for tok in text.split(','):
        m = re.fullmatch(r'(-?\d+)(?:-(-?\d+))?', tok.strip())
        if not m:
            raise ValueError('cpu list %r' % text)
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) is not None else a
        out.extend(range(a, b + 1))
    return out


def show(v):
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int):
        return hex(v) if v > 0xffff or v < -0xffff else str(v)
    if isinstance(v, list):
        if len(v) > 6:
            return '[' + ', '.join(show(x) for x in v[:6]) + ', ... (%d)]' % len(v)
        return '[' + ', '.join(show(x) for x in v) + ']'
    if isinstance(v, tuple):
        return '(' + ', '.join(show(x) for x in v) + ')'
    if v is None:
        return '(absent)'
    return repr(v)


class Missing(Exception):
    """perf prints a field that perfsift's JSON does not have."""


def get(o, *path):
    for k in path:
        if not isinstance(o, dict) or k not in o:
            raise Missing('.'.join(path))
        o = o[k]
    return o


# --- perf's fields of each record type -----------------------------------------------
# Each parser takes the PerfRecord and returns {field: value}; each expect_* takes
# perfsift's JSON object and the same field names and returns perfsift's value (or
# raises Missing). Field names follow dump's JSON keys where there is one.

SAMPLE_RE = re.compile(r'^\(IP, (0x[0-9a-f]+|0)\): (-?\d+)/(-?\d+): (0x[0-9a-f]+|0) '
                       r'period: (\d+) addr: (0x[0-9a-f]+|0)$')
CHAIN_RE = re.compile(r'^\.\.\.\.\. +(\d+): ([0-9a-f]{16})$')
BRANCH_RE = re.compile(r'^\.\.\.\.\. +(\d+): ([0-9a-f]{16}) -> ([0-9a-f]{16}) (\d+) cycles '
                       r'(.)(.)(.)(.) ([0-9a-f]+) ?(.*)$')
REG_RE = re.compile(r'^\.\.\.\. (\S+) +0x([0-9a-f]+)$')
READ_VAL_RE = re.compile(r'^\.\.\.\.\. id ([0-9a-f]{16}), value ([0-9a-f]{16})(?:, lost (\d+))?$')
# perf 6.1 branch_type_name(): PERF_BR_* names
BRANCH_TYPE_NAMES = ('N/A', 'COND', 'UNCOND', 'IND', 'CALL', 'IND_CALL', 'RET', 'SYSCALL',
                     'SYSRET', 'COND_CALL', 'COND_RET', 'ERET', 'IRQ', 'SERROR', 'NO_TX',
                     'EXTEND_ABI')
ABI_NAMES = {1: '32-bit', 2: '64-bit'}


CHAIN_STATES = ('callchain', 'lbr_callchain', 'branch_callstack')
SAMPLE_LINE_RES = [(re.compile(p), k) for p, k in (
    (r'^\.\.\. (FP chain|LBR call chain|branch stack|branch callstack): nr:(\d+)$', 'list'),
    (r'^\.\.\. (user|intr) regs: mask (0x[0-9a-f]+|0) ABI (.*)$', 'regs'),
    (r'^\.\.\. ustack: size (\d+), offset (0x[0-9a-f]+|0)$', 'ustack'),
    (r'^\.\.\. weight: (\d+)(?:,(0x[0-9a-f]+|0),(0x[0-9a-f]+|0))?$', 'weight'),
    (r'^\. data_src: (0x[0-9a-f]+|0)$', 'data_src'),
    (r'^\.\. phys_addr: (0x[0-9a-f]+|0)$', 'phys_addr'),
    (r'^\.\. (data|code) page size: (\S+)$', 'page_size'),
    (r'^\.\.\. transaction: ([0-9a-f]+)$', 'transaction'),
    (r'^\.\.\. (sample_read):$', 'read'),
    (r'^\.\.\.\.\.\. time (enabled|running) ([0-9a-f]{16})$', 'read_time'),
    (r'^\.\.\.\. group nr (\d+)$', 'read_nr'),
)]
LIST_STATES = {'FP chain': 'callchain', 'LBR call chain': 'lbr_callchain',
               'branch stack': 'branch_stack', 'branch callstack': 'branch_callstack'}


def perf_sample(r):
    f = {}
    m = SAMPLE_RE.match(r.rest)
    if not m:
        f['_unparsed'] = r.rest
        return f
    f['misc'] = pint(m.group(1))
    f['pid'] = int(m.group(2))
    f['tid'] = int(m.group(3))
    f['ip'] = pint(m.group(4))
    f['period'] = int(m.group(5))
    f['addr'] = pint(m.group(6))
    state = None
    unknown = []
    for line in r.lines:
        if line.startswith('.....') and not line.startswith('......'):
            if state in CHAIN_STATES:
                m = CHAIN_RE.match(line)
                if m:
                    f[state].append(int(m.group(2), 16))
                    continue
            elif state == 'branch_stack':
                m = BRANCH_RE.match(line)
                if m:
                    f[state].append((int(m.group(2), 16), int(m.group(3), 16), int(m.group(4)),
                                     m.group(5) == 'M', m.group(6) == 'P', m.group(7) == 'A',
                                     m.group(8) == 'T', int(m.group(9), 16),
                                     m.group(10).strip()))
                    continue
            elif state == 'read':
                m = READ_VAL_RE.match(line)
                if m:
                    f['read.values'].append((int(m.group(1), 16), int(m.group(2), 16),
                                             int(m.group(3)) if m.group(3) is not None else None))
                    continue
            unknown.append(line)
            continue
        if state in ('regs_user', 'regs_intr') and line.startswith('.... '):
            m = REG_RE.match(line)
            if m:
                f[state + '.values'].append(int(m.group(2), 16))
                continue
        s = line.strip()
        if not s or s.startswith('... thread:') or s.startswith('...... dso:'):
            continue                            # perf report's own resolution, not the record
        for rx, kind in SAMPLE_LINE_RES:
            m = rx.match(s)
            if m:
                break
        else:
            unknown.append(line)
            continue
        if kind == 'list':
            state = LIST_STATES[m.group(1)]
            f[state] = []
            f[state + '.nr'] = int(m.group(2))
        elif kind == 'regs':
            state = 'regs_' + m.group(1)
            f[state + '.mask'] = pint(m.group(2))
            f[state + '.abi'] = m.group(3)
            f[state + '.values'] = []
        elif kind == 'ustack':
            f['stack_user.size'] = int(m.group(1))
            state = None
        elif kind == 'weight':
            if m.group(2) is not None:
                f['weight'] = (int(m.group(1)), pint(m.group(2)), pint(m.group(3)))
            else:
                f['weight'] = int(m.group(1))
            state = None
        elif kind in ('data_src', 'phys_addr'):
            f[kind] = pint(m.group(1))
        elif kind == 'page_size':
            f[m.group(1) + '_page_size'] = m.group(2)
        elif kind == 'transaction':
            f['transaction'] = int(m.group(1), 16)
        elif kind == 'read':
            state = 'read'
            f['read.values'] = []
        elif kind == 'read_time':
            f['read.time_' + m.group(1)] = int(m.group(2), 16)
        elif kind == 'read_nr':
            f['read.nr'] = int(m.group(1))
    if unknown:
        f['_unknown_lines'] = unknown
    return f


def branch_flags(v):
    """perf 6.1's struct branch_flags view of the flags u64 (little-endian bitfields:
    mispred, predicted, in_tx, abort, cycles:16, type:4, spec:2, new_type:4, priv:3,
    reserved:31), in the order branch_stack__printf() prints them: cycles, M, P, A, T,
    reserved, then the name of the branch type ('' for type 0)."""
    btype = (v >> 20) & 0xf
    return ((v >> 4) & 0xffff, bool(v & 1), bool(v & 2), bool(v & 8), bool(v & 4),
            (v >> 33) & 0x7fffffff, BRANCH_TYPE_NAMES[btype] if btype else '')


def expect_sample(o, field, f):
    if field == 'misc':
        return toint(get(o, 'misc'))
    if field in ('pid', 'tid'):
        return o.get(field, -1)                 # perf: -1 without PERF_SAMPLE_TID
    if field in ('ip', 'addr'):
        return toint(o.get(field, 0))           # perf: 0 without IP / ADDR
    if field == 'period':
        return toint(get(o, 'period'))
    if field == 'callchain':
        return [toint(x) for x in get(o, 'callchain')]
    if field == 'callchain.nr':
        return len(get(o, 'callchain'))
    if field in ('branch_stack', 'branch_stack.nr'):
        br = get(o, 'branch_stack')
        if field.endswith('.nr'):
            return len(br)
        return [(toint(b['from']), toint(b['to'])) + branch_flags(toint(b['flags'])) for b in br]
    if field in ('branch_callstack', 'branch_callstack.nr'):
        br = get(o, 'branch_stack')
        if field.endswith('.nr'):
            return len(br) + 1
        if not br:
            return []
        return [toint(br[0]['to'])] + [toint(b['from']) for b in br]
    if field in ('lbr_callchain', 'lbr_callchain.nr'):
        chain = [toint(x) for x in get(o, 'callchain')]
        br = get(o, 'branch_stack')
        if PERF_CONTEXT_USER not in chain or not br:
            v = None                            # perf prints no LBR chain then
        else:
            k = chain.index(PERF_CONTEXT_USER) + 1
            v = chain[:k] + [toint(br[0]['to'])] + [toint(b['from']) for b in br]
        if field.endswith('.nr'):
            return None if v is None else len(v)
        return v
    if field.startswith('regs_'):
        kind, part = field.split('.')
        regs = get(o, kind)
        if part == 'mask':
            return toint(regs['mask'])
        if part == 'abi':
            a = toint(regs['abi'])
            return ABI_NAMES.get(a, 'none' if a == 0 else 'unknown')
        return [toint(x) for x in regs['regs']]
    if field == 'stack_user.size':
        su = get(o, 'stack_user')
        return toint(su['dyn_size']) if toint(su['size']) else 0
    if field == 'weight':
        w = toint(get(o, 'weight'))
        if isinstance(f.get('weight'), tuple):  # WEIGHT_STRUCT: var1_dw, var2_w, var3_w
            return (w & U32, (w >> 32) & 0xffff, (w >> 48) & 0xffff)
        return w
    if field in ('data_src', 'phys_addr', 'transaction'):
        return toint(get(o, field))
    if field in ('data_page_size', 'code_page_size'):
        return unit_number(toint(get(o, field)))
    if field.startswith('read.'):
        rd = get(o, 'read')
        part = field[5:]
        if part in ('time_enabled', 'time_running'):
            return toint(get(rd, part))
        if part == 'nr':
            return len(rd['values'])
        if part == 'values':
            out = []
            for v in rd['values']:
                lost = toint(v['lost']) if 'lost' in v else None
                if 'id' not in v:
                    raise Missing('read.values[].id')
                out.append((toint(v['id']), toint(v['value']), lost))
            return out
    raise Missing(field)


MMAP_RE = re.compile(r'^ (-?\d+)/(-?\d+): \[(0x[0-9a-f]+|0)\((0x[0-9a-f]+|0)\) @ (0x[0-9a-f]+|0)\]: '
                     r'([rx]) (.*)$')
MMAP2_RE = re.compile(r'^ (-?\d+)/(-?\d+): \[(0x[0-9a-f]+|0)\((0x[0-9a-f]+|0)\) @ (0x[0-9a-f]+|0) '
                      r'(?:([0-9a-f]+):([0-9a-f]+) (\d+) (\d+)|<([0-9a-f]*)>)\]: '
                      r'([r-])([w-])([x-])([sp]) (.*)$')


def perf_mmap(r):
    m = MMAP_RE.match(r.rest)
    if not m:
        return {'_unparsed': r.rest}
    return {'pid': int(m.group(1)), 'tid': int(m.group(2)), 'start': pint(m.group(3)),
            'len': pint(m.group(4)), 'pgoff': pint(m.group(5)),
            'misc.mmap_data': m.group(6) == 'r', 'filename': text_as_dump(m.group(7))}


def perf_mmap2(r):
    m = MMAP2_RE.match(r.rest)
    if not m:
        return {'_unparsed': r.rest}
    f = {'pid': int(m.group(1)), 'tid': int(m.group(2)), 'start': pint(m.group(3)),
         'len': pint(m.group(4)), 'pgoff': pint(m.group(5))}
    if m.group(10) is not None:
        f['build_id'] = m.group(10)
    else:
        f['maj'] = int(m.group(6), 16)
        f['min'] = int(m.group(7), 16)
        f['ino'] = int(m.group(8))
        f['ino_generation'] = int(m.group(9))
    f['prot.rwx'] = (m.group(11) == 'r', m.group(12) == 'w', m.group(13) == 'x')
    f['flags.shared'] = m.group(14) == 's'
    f['filename'] = text_as_dump(m.group(15))
    return f


def expect_mmap(o, field, f):
    if field == 'misc.mmap_data':
        return bool(toint(get(o, 'misc')) & 0x2000)
    if field == 'prot.rwx':
        p = toint(get(o, 'prot'))
        return (bool(p & 1), bool(p & 2), bool(p & 4))
    if field == 'flags.shared':
        return bool(toint(get(o, 'flags')) & 1)      # MAP_SHARED
    if field in ('filename', 'build_id'):
        return get(o, field)
    return toint(get(o, field))


def perf_comm(r):
    m = re.match(r'^( exec)?: (.*):(-?\d+)/(-?\d+)$', r.rest, re.S)
    if not m:
        return {'_unparsed': r.rest}
    return {'exec': m.group(1) is not None, 'comm': text_as_dump(m.group(2)),
            'pid': int(m.group(3)), 'tid': int(m.group(4))}


def perf_task(r):
    m = re.match(r'^\((-?\d+):(-?\d+)\):\((-?\d+):(-?\d+)\)$', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    return {'pid': int(m.group(1)), 'tid': int(m.group(2)), 'ppid': int(m.group(3)),
            'ptid': int(m.group(4))}


def perf_lost(r):
    m = re.match(r'^: id:(\d+): lost:(\d+)$', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    return {'id': int(m.group(1)), 'lost': int(m.group(2))}


def perf_lost_samples(r):
    m = re.match(r'^: id:(\d+): lost samples :(\d+)$', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    return {'sample_id.id': int(m.group(1)), 'lost': int(m.group(2))}


def expect_lost_samples(o, field, f):
    if field == 'sample_id.id':
        return toint(o.get('sample_id', {}).get('id', U64))    # perf: -1ULL without an id
    return toint(get(o, field))


def perf_read(r):
    m = re.match(r'^: (-?\d+) (-?\d+) (.*) (\d+)$', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    f = {'pid': int(m.group(1)), 'tid': int(m.group(2)), 'event': text_as_dump(m.group(3)),
         'read.value': int(m.group(4))}
    for line in r.lines:
        m = re.match(r'^\.\.\. (time enabled|time running|id|lost) +: (\d+)$', line)
        if m:
            f['read.' + m.group(1).replace(' ', '_')] = int(m.group(2))
    return f


def expect_read(o, field, f):
    if field in ('pid', 'tid', 'event'):
        return get(o, field)
    rd = get(o, 'read')
    part = field[5:]
    if part in ('time_enabled', 'time_running'):
        return toint(get(rd, part))
    vals = get(rd, 'values')
    if not vals:
        raise Missing('read.values')
    if part == 'value':
        return toint(vals[0]['value'])
    return toint(get(vals[0], part))


def perf_switch(r):
    m = re.match(r'^ (IN         |OUT        |OUT preempt)(?:  (next|prev) pid/tid: +(-?\d+)/(-?\d+) *)?$',
                 r.rest)
    if not m:
        return {'_unparsed': r.rest}
    f = {'out': m.group(1).startswith('OUT'), 'preempt': m.group(1) == 'OUT preempt'}
    if m.group(2):
        f['next_prev_pid'] = int(m.group(3))
        f['next_prev_tid'] = int(m.group(4))
    return f


def expect_switch(o, field, f):
    if field == 'preempt':
        # perf prints 'preempt' only for a switch out
        return bool(get(o, 'out')) and bool(get(o, 'preempt'))
    return get(o, field)


def perf_namespaces(r):
    m = re.match(r'^ (-?\d+)/(-?\d+) - nr_namespaces: (\d+)$', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    f = {'pid': int(m.group(1)), 'tid': int(m.group(2)), 'link_info.nr': int(m.group(3))}
    text = ' '.join(r.lines)
    f['link_info'] = [(int(a), int(b, 16)) for a, b in
                      re.findall(r'\d+/[a-z]+: (\d+)/(0x[0-9a-f]+|0)', text)]
    return f


def expect_namespaces(o, field, f):
    if field == 'link_info':
        return [(toint(x['dev']), toint(x['ino'])) for x in get(o, 'link_info')]
    if field == 'link_info.nr':
        return len(get(o, 'link_info'))
    return get(o, field)


def perf_cgroup(r):
    m = re.match(r'^ cgroup: (\d+) (.*)$', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    return {'id': int(m.group(1)), 'path': text_as_dump(m.group(2))}


def perf_ksymbol(r):
    m = re.match(r'^ addr ([0-9a-f]+) len (\d+) type (\d+) flags (0x[0-9a-f]+|0) name (.*)$', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    return {'addr': int(m.group(1), 16), 'len': int(m.group(2)), 'ksym_type': int(m.group(3)),
            'flags': pint(m.group(4)), 'name': text_as_dump(m.group(5))}


def perf_bpf_event(r):
    m = re.match(r'^ type (\d+), flags (\d+), id (\d+)$', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    return {'bpf_type': int(m.group(1)), 'flags': int(m.group(2)), 'id': int(m.group(3))}


def perf_text_poke(r):
    m = re.match(r'^ ([0-9a-f]+) old len (\d+) new len (\d+)', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    return {'addr': int(m.group(1), 16), 'old.len': int(m.group(2)), 'new.len': int(m.group(3))}


def expect_text_poke(o, field, f):
    if field in ('old.len', 'new.len'):
        return len(get(o, field.split('.')[0])) // 2
    return toint(get(o, field))


def perf_aux(r):
    m = re.match(r'^ offset: (0x[0-9a-f]+|0) size: (0x[0-9a-f]+|0) flags: (0x[0-9a-f]+|0)', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    return {'aux_offset': pint(m.group(1)), 'aux_size': pint(m.group(2)), 'flags': pint(m.group(3))}


def perf_itrace_start(r):
    m = re.match(r'^ pid: (\d+) tid: (\d+)$', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    return {'pid': int(m.group(1)), 'tid': int(m.group(2))}


def expect_u32(o, field, f):
    return toint(get(o, field)) & U32


def perf_hw_id(r):
    m = re.match(r'^ hw_id: (0x[0-9a-f]+|0)$', r.rest)
    return {'hw_id': pint(m.group(1))} if m else {'_unparsed': r.rest}


def perf_id_index(r):
    m = re.match(r'^ nr: (\d+)$', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    f = {'entries.nr': int(m.group(1)), 'entries': []}
    for line in r.lines:
        m = re.match(r'^ \.\.\. id: (\d+)  idx: (\d+)  cpu: (-?\d+)  tid: (-?\d+)'
                     r'(?:  machine_pid: (-?\d+)  vcpu: (-?\d+))?$', line)
        if m:
            e = tuple(int(x) for x in m.groups()[:4])
            if m.group(5) is not None:
                e += (int(m.group(5)), int(m.group(6)))
            f['entries'].append(e)
    return f


def expect_id_index(o, field, f):
    ents = get(o, 'entries')
    if field == 'entries.nr':
        return len(ents)
    out = []
    for i, e in enumerate(ents):
        t = (toint(e['id']), toint(e['idx']), toint(e['cpu']), toint(e['tid']))
        if i < len(f['entries']) and len(f['entries'][i]) > 4:
            t += (toint(get(e, 'machine_pid')), toint(get(e, 'vcpu')))
        out.append(t)
    return out


def perf_thread_map(r):
    m = re.match(r'^ nr: (\d+) threads?: ?(.*)$', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    pids = [int(x) for x in m.group(2).split(',') if x.strip()]
    return {'threads.nr': int(m.group(1)), 'threads.pid': pids}


def expect_thread_map(o, field, f):
    th = get(o, 'threads')
    if field == 'threads.nr':
        return len(th)
    return [toint(t['pid']) for t in th]


def perf_cpu_map(r):
    m = re.match(r'^: (.*)$', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    return {'cpus': cpu_list(m.group(1))}


def expect_cpus(o, field, f):
    return [toint(c) for c in get(o, 'cpus')]


STAT_CONFIG_TAGS = {'aggr_mode': 0, 'interval': 1, 'scale': 2}


def perf_stat_config(r):
    f = {}
    for line in r.lines:
        m = re.match(r'^\.\.\. (aggr_mode|scale|interval) +(-?\d+)$', line)
        if m:
            f['config.' + m.group(1)] = int(m.group(2))
    return f


def expect_stat_config(o, field, f):
    tag = STAT_CONFIG_TAGS[field.split('.')[1]]
    val = 0                                     # perf starts from a zeroed config
    for e in get(o, 'config'):
        if toint(e['tag']) == tag:
            val = toint(e['val'])
    if field.endswith('.interval'):
        return val & U32
    v = val & U32                               # aggr_mode and scale are ints in perf
    return v - (1 << 32) if v >= 1 << 31 else v


def perf_stat(r):
    f = {}
    for line in r.lines:
        m = re.match(r'^\.\.\. id (\d+), cpu (-?\d+), thread (-?\d+)$', line)
        if m:
            f['id'], f['cpu'], f['thread'] = int(m.group(1)), int(m.group(2)), int(m.group(3))
        m = re.match(r'^\.\.\. value (\d+), enabled (\d+), running (\d+)$', line)
        if m:
            f['val'], f['ena'], f['run'] = int(m.group(1)), int(m.group(2)), int(m.group(3))
    return f


def perf_stat_round(r):
    f = {}
    for line in r.lines:
        m = re.match(r'^\.\.\. time (\d+), type (FINAL|INTERVAL)$', line)
        if m:
            f['time'] = int(m.group(1))
            f['round_type.final'] = m.group(2) == 'FINAL'
    return f


def expect_stat_round(o, field, f):
    if field == 'round_type.final':
        return toint(get(o, 'round_type')) == 1
    return toint(get(o, field))


EVENT_UPDATE_TYPES = {'unit': 0, 'scale': 1, 'name': 2, 'cpus': 3}


def perf_event_update(r):
    f = {}
    for line in r.lines:
        m = re.match(r'^\.\.\. id: +(\d+)$', line)
        if m:
            f['id'] = int(m.group(1))
            continue
        m = re.match(r'^\.\.\. (unit|scale|name): +(.*)$', line)
        if m:
            f[m.group(1)] = float(m.group(2)) if m.group(1) == 'scale' else text_as_dump(m.group(2))
            f['update_type'] = EVENT_UPDATE_TYPES[m.group(1)]
            continue
        m = re.match(r'^\.\.\. (-?\d.*)$', line)
        if m and 'id' in f:
            f['cpus'] = cpu_list(m.group(1))
            f['update_type'] = EVENT_UPDATE_TYPES['cpus']
            continue
        if line.strip() == '... unknown type':
            f['update_type.unknown'] = True
    return f


def expect_event_update(o, field, f):
    if field == 'scale':
        return float(get(o, 'scale'))
    if field == 'cpus':
        return [toint(c) for c in get(o, 'cpus')]
    if field == 'update_type.unknown':
        return toint(get(o, 'update_type')) > 3
    v = get(o, field)
    return v if isinstance(v, str) else toint(v)


TIME_CONV_KEYS = {'Time Shift': 'time_shift', 'Time Muliplier': 'time_mult',
                  'Time Zero': 'time_zero', 'Time Cycles': 'time_cycles',
                  'Time Mask': 'time_mask', 'Cap Time Zero': 'cap_user_time_zero',
                  'Cap Time Short': 'cap_user_time_short'}


def perf_time_conv(r):
    f = {}
    for line in r.lines:
        m = re.match(r'^\.\.\. (Time Shift|Time Muliplier|Time Zero|Time Cycles|Time Mask|'
                     r'Cap Time Zero|Cap Time Short) +(-?(?:0x[0-9a-f]+|\d+))$', line)
        if m:
            f[TIME_CONV_KEYS[m.group(1)]] = pint(m.group(2))
    return f


def expect_time_conv(o, field, f):
    v = toint(get(o, field))
    if field.startswith('cap_'):
        return v - (1 << 32) if v >= 1 << 31 else v
    return v


def perf_auxtrace_info(r):
    m = re.match(r'^ type: (\d+)$', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    f = {'auxtrace_type': int(m.group(1))}
    if f['auxtrace_type'] == 1:
        # intel_pt_print_info(): one '  Label  value' line per priv[] entry, in order
        vals = []
        for line in r.lines:
            if not line:
                continue
            m = re.match(r'^  \S.*?\s+(0x[0-9a-f]+|-?\d+)$', line)
            if not m:
                break
            vals.append(pint(m.group(1)) & U64)
        f['priv.intel_pt'] = vals
    return f


def expect_auxtrace_info(o, field, f):
    if field == 'priv.intel_pt':
        return [toint(x) for x in get(o, 'priv')][:len(f[field])]
    return toint(get(o, field))


def perf_auxtrace(r):
    m = re.match(r'^ size: (0x[0-9a-f]+|0)  offset: (0x[0-9a-f]+|0)  ref: (0x[0-9a-f]+|0)  '
                 r'idx: (\d+)  tid: (-?\d+)  cpu: (-?\d+)$', r.rest)
    if not m:
        return {'_unparsed': r.rest}
    return {'data_size': pint(m.group(1)), 'data_offset': pint(m.group(2)),
            'reference': pint(m.group(3)), 'idx': int(m.group(4)), 'tid': int(m.group(5)),
            'cpu': int(m.group(6))}


def perf_nothing(r):
    return {}


NAME_FIELDS = ('comm', 'filename', 'path', 'name', 'event', 'unit', 'build_id')


def expect_plain(o, field, f):
    v = get(o, field)
    if isinstance(v, bool) or field in NAME_FIELDS:
        return v
    return toint(v)


# perf's name -> (parser of perf's text, perfsift's value of a field)
TYPES = {
    'SAMPLE': (perf_sample, expect_sample),
    'MMAP': (perf_mmap, expect_mmap),
    'MMAP2': (perf_mmap2, expect_mmap),
    'COMM': (perf_comm, expect_plain),
    'FORK': (perf_task, expect_plain),
    'EXIT': (perf_task, expect_plain),
    'LOST': (perf_lost, expect_plain),
    'LOST_SAMPLES': (perf_lost_samples, expect_lost_samples),
    'THROTTLE': (perf_nothing, expect_plain),       # perf report: ': unhandled!'
    'UNTHROTTLE': (perf_nothing, expect_plain),
    'READ': (perf_read, expect_read),
    'SWITCH': (perf_switch, expect_switch),
    'SWITCH_CPU_WIDE': (perf_switch, expect_switch),
    'NAMESPACES': (perf_namespaces, expect_namespaces),
    'CGROUP': (perf_cgroup, expect_plain),
    'KSYMBOL': (perf_ksymbol, expect_plain),
    'BPF_EVENT': (perf_bpf_event, expect_plain),
    'TEXT_POKE': (perf_text_poke, expect_text_poke),
    'AUX': (perf_aux, expect_plain),
    'ITRACE_START': (perf_itrace_start, expect_u32),
    'AUX_OUTPUT_HW_ID': (perf_hw_id, expect_plain),
    'ID_INDEX': (perf_id_index, expect_id_index),
    'THREAD_MAP': (perf_thread_map, expect_thread_map),
    'CPU_MAP': (perf_cpu_map, expect_cpus),
    'STAT_CONFIG': (perf_stat_config, expect_stat_config),
    'STAT': (perf_stat, expect_plain),
    'STAT_ROUND': (perf_stat_round, expect_stat_round),
    'EVENT_UPDATE': (perf_event_update, expect_event_update),
    'TIME_CONV': (perf_time_conv, expect_time_conv),
    'AUXTRACE_INFO': (perf_auxtrace_info, expect_auxtrace_info),
    'AUXTRACE': (perf_auxtrace, expect_plain),
}


# --- the cpu/time prefix ---------------------------------------------------------------

class Layout(object):
    """What perf's evlist__print_tstamp() prints before each record: the cpu (if
    the combined sample_type has CPU), the time (if it has TIME), or '-1 -1' for a
    non-sample record when the first event has no sample_id_all."""

    def __init__(self, evlist, pipe, perf_recs):
        self.source = 'perf evlist -v'
        sts = [e[1] for e in evlist]
        if not sts and pipe:
            # perf evlist cannot read some old pipe streams; the attrs are then taken
            # from perf's own hex dump of the ATTR records
            self.source = "perf's hex dump of the ATTR records"
            for p in perf_recs:
                if p.type_id == 64 and p.raw and len(p.raw) >= 56:
                    st = int.from_bytes(p.raw[32:40], 'little')
                    sts.append({n for n, bit in (('CPU', 1 << 7), ('TIME', 1 << 2)) if st & bit})
        self.known = bool(sts)
        if pipe and sts:
            # perf caches the combined sample_type the first time it prints a record
            # after the first ATTR, when its evlist holds only the first event
            comb = sts[0]
        else:
            comb = set().union(*sts) if sts else set()
        self.cpu = 'CPU' in comb
        self.time = 'TIME' in comb


def perf_prefix(r, lay):
    """-> dict of prefix fields, or {'_prefix_unparsed': ...}."""
    t = r.prefix
    if t == ['-1', '-1'] and r.name != 'SAMPLE':
        return {'prefix.sample_id_all': False}
    want = int(lay.cpu) + int(lay.time)
    if len(t) != want:
        return {'_prefix_unparsed': ' '.join(t)}
    f = {}
    i = 0
    if lay.cpu:
        f['prefix.cpu'] = int(t[i])
        i += 1
    if lay.time:
        f['prefix.time'] = int(t[i])
    return f


def expect_prefix(o, field, is_sample):
    if field == 'prefix.sample_id_all':
        return bool(o.get('sample_id'))
    src = o if is_sample else o.get('sample_id', {})
    if field == 'prefix.cpu':
        return toint(src['cpu']) & U32 if 'cpu' in src else U32
    return toint(src['time']) if 'time' in src else U64


# --- running the tools ------------------------------------------------------------------

def perf_env(home):
    return {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'HOME': home, 'LC_ALL': 'C',
            'TZ': 'UTC', 'PERF_PAGER': 'cat', 'PERF_CONFIG_NOSYSTEM': '1',
            'PERF_CONFIG_NOGLOBAL': '1'}


def run_perf(perf, capture, tmp):
    """perf report -D and perf evlist -v on a copy of capture inside tmp."""
    home = os.path.join(tmp, 'home')
    os.makedirs(home, exist_ok=True)
    work = os.path.join(tmp, 'in')
    os.makedirs(work, exist_ok=True)
    copy = os.path.join(work, os.path.basename(capture.rstrip('/')))
    if os.path.isdir(capture):
        shutil.copytree(capture, copy)
    else:
        shutil.copyfile(capture, copy)
    for root, dirs, files in os.walk(work):
        for n in dirs + files:
            os.chmod(os.path.join(root, n), 0o755 if n in dirs else 0o644)
    out = os.path.join(tmp, 'perf-D.txt')
    err = os.path.join(tmp, 'perf-D.err')
    env = perf_env(home)
    with open(out, 'wb') as fo, open(err, 'wb') as fe:
        rc = subprocess.call([perf, 'report', '-D', '-i', copy], stdout=fo, stderr=fe,
                             stdin=subprocess.DEVNULL, cwd=tmp, env=env, timeout=300)
    ev = subprocess.run([perf, 'evlist', '-v', '-i', copy], stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, cwd=tmp, env=env,
                        timeout=120)
    evtext = ev.stdout.decode('utf-8', 'replace') if ev.returncode == 0 else ''
    return rc, out, err, evtext, copy


def run_perfsift(perfsift, capture, tmp):
    out = os.path.join(tmp, 'perfsift.json')
    err = os.path.join(tmp, 'perfsift.err')
    with open(out, 'wb') as fo, open(err, 'wb') as fe:
        rc = subprocess.call([perfsift, 'dump', '--json', '--no-stack', '-q', capture],
                             stdout=fo, stderr=fe, stdin=subprocess.DEVNULL, timeout=300)
    recs = []
    bad = None
    with open(out, 'rb') as f:
        for n, line in enumerate(f):
            try:
                recs.append(json.loads(line))
            except ValueError as e:
                bad = 'line %d of perfsift output is not JSON: %s' % (n + 1, e)
                break
    with open(err, 'rb') as f:
        errtext = f.read().decode('utf-8', 'replace').strip()
    return rc, recs, errtext, bad


# --- comparison -------------------------------------------------------------------------

class Result(object):
    def __init__(self):
        self.diffs = []          # (where, type, field, perf value, perfsift value, kind)
        self.uncompared = []     # (where, type, field, perf value, perfsift value, why)
        self.fields = 0
        self.compared = 0
        self.containers = 0      # perfsift's COMPRESSED records perf did not print
        self.notes = []

    def add(self, where, typ, field, pv, ov, kind='diff'):
        self.diffs.append((where, typ, field, pv, ov, kind))


def where_of(file, off, inner=None):
    s = ('data.%d:' % file if file is not None else '') + hex(off)
    if inner is not None:
        s += '+%d' % inner
    return s


def compare_record(p, o, lay, res, where):
    """One perf record against one perfsift record."""
    name = p.name or '?'
    res.compared += 1
    # framing
    if p.size != o.get('size'):
        res.add(where, name, 'size', p.size, o.get('size'))
    if p.type_id != o.get('type_id'):
        res.add(where, name, 'type_id', p.type_id, o.get('type_id'))
    if p.name is None:
        res.add(where, '?', 'record line', '(perf printed no PERF_RECORD_ line)', o.get('type'),
                'perf-unparsed')
        return
    if p.name != o.get('type') and not (p.name == 'UNKNOWN' and o.get('type') == 'UNKNOWN'):
        res.add(where, name, 'type', p.name, o.get('type'))
        return
    res.fields += 3
    parse, expect = TYPES.get(p.name, (perf_nothing, expect_plain))
    try:
        f = parse(p)
    except ValueError as e:
        f = {'_unparsed': '%s (%s)' % (p.rest, e)}
    if p.type_id < 64:
        f.update(perf_prefix(p, lay))
    if '_unparsed' in f:
        res.add(where, name, 'perf text', f['_unparsed'], None, 'perf-unparsed')
    if '_prefix_unparsed' in f:
        res.add(where, name, 'prefix', f['_prefix_unparsed'],
                'expected: %s' % ' '.join(x for x, y in (('cpu', lay.cpu), ('time', lay.time)) if y),
                'perf-unparsed')
    if '_unknown_lines' in f:
        res.add(where, name, 'perf lines', f['_unknown_lines'][0], None, 'perf-unparsed')
    if p.name == 'SAMPLE' and '_unparsed' not in f:
        sample_presence(o, f, res, where)
    for k, why in not_comparable(p, o, f):
        try:
            ov = expect_prefix(o, k, False) if k.startswith('prefix.') else expect(o, k, f)
        except (Missing, KeyError, ValueError, TypeError):
            ov = None
        res.uncompared.append((where, name, k, f.pop(k), ov, why))
    for k in sorted(f):
        if k.startswith('_'):
            continue
        pv = f[k]
        try:
            if k.startswith('prefix.'):
                ov = expect_prefix(o, k, p.name == 'SAMPLE')
            else:
                ov = expect(o, k, f)
        except Missing as e:
            res.add(where, name, k, pv, 'missing %s' % e, 'missing-json')
            continue
        except (KeyError, ValueError, TypeError) as e:
            res.add(where, name, k, pv, 'cannot read: %r' % e, 'missing-json')
            continue
        res.fields += 1
        if isinstance(pv, float) or isinstance(ov, float):
            same = ov is not None and abs(float(pv) - float(ov)) <= 5e-7 * max(1.0, abs(float(ov)))
        else:
            same = pv == ov
        if not same:
            if isinstance(pv, list) and isinstance(ov, list):
                # point at the first differing element
                for i in range(max(len(pv), len(ov))):
                    a = pv[i] if i < len(pv) else None
                    b = ov[i] if i < len(ov) else None
                    if a != b:
                        res.add(where, name, '%s[%d]' % (k, i), a, b)
                        break
            else:
                res.add(where, name, k, pv, ov)


# perfsift's sample keys -> what perf prints when the event's sample_type has the field
SAMPLE_PRESENCE = (('callchain', ('callchain',)), ('branch_stack', ('branch_stack', 'branch_callstack')),
                   ('stack_user', ('stack_user.size',)), ('weight', ('weight',)),
                   ('data_src', ('data_src',)), ('phys_addr', ('phys_addr',)),
                   ('transaction', ('transaction',)), ('read', ('read.values',)),
                   ('data_page_size', ('data_page_size',)), ('code_page_size', ('code_page_size',)))


def sample_presence(o, f, res, where):
    """perf prints a sample field exactly when the event's sample_type has it: a field
    perfsift decodes that perf does not print means the two disagree on the layout."""
    for key in ('regs_user', 'regs_intr'):
        if key in o and key + '.abi' not in f:
            f[key + '.abi'] = 'none'            # perf prints no registers for ABI_NONE
    for key, printed in SAMPLE_PRESENCE:
        if key in o and not any(k in f for k in printed):
            res.add(where, 'SAMPLE', key, '(not printed: not in the sample)', 'decoded',
                    'extra-in-json')


# bytes before the name in records that end in one (perf_record_* layouts)
NAME_AT = {'MMAP': ('filename', 40), 'MMAP2': ('filename', 72), 'COMM': ('comm', 16),
           'CGROUP': ('path', 16), 'KSYMBOL': ('name', 24)}


def trailer_size(o):
    sid = o.get('sample_id', {})
    n = 8 if 'pid' in sid else 0
    return n + 8 * sum(1 for k in ('time', 'id', 'stream_id', 'cpu', 'identifier') if k in sid)


def not_comparable(p, o, f):
    """Fields perf prints that are not data of the record: (field, why) pairs. Each is
    reported as a NOTE with both values; none is silently dropped."""
    out = []
    if p.name == 'UNKNOWN':
        for k in f:
            if k.startswith('prefix.') and k != 'prefix.sample_id_all':
                out.append((k, 'perf parses a sample_id trailer out of a record type it does '
                               'not know; perfsift keeps unknown records opaque (spec 7.3.1: '
                               'skip by size)'))
    if p.name in NAME_AT:
        key, at = NAME_AT[p.name]
        if key in f and o.get('size', 0) - trailer_size(o) - at <= 0:
            out.append((key, 'the record has no byte left for the name before its sample_id '
                             'trailer: perf reads the C string on into the trailer'))
    # an early MMAP2 without prot/flags: its name sits where perf reads them
    if p.name == 'MMAP2' and o.get('size', 0) - trailer_size(o) - 64 in range(1, 9):
        for k in f:
            if k.startswith('prot') or k.startswith('flags') or k == 'filename':
                if (k, None) not in [(x, None) for x, _ in out]:
                    out.append((k, 'early MMAP2 layout without prot/flags: perf reads the '
                                   'name\'s bytes as prot/flags; perfsift reads them as the name'))
    return out


def o_time(o):
    if o.get('type') == 'SAMPLE':
        return o.get('time')
    return o.get('sample_id', {}).get('time')


def match_group(plist, olist, lay, res):
    """Records sharing one (file, offset): one record, or a COMPRESSED container's contents."""
    used = [False] * len(plist)
    unmatched_o = []
    for o in olist:
        cand = None
        ot = o_time(o)
        for strict in (True, False):
            for i, p in enumerate(plist):
                if used[i] or p.type_id != o.get('type_id'):
                    continue
                if strict:
                    if p.size != o.get('size'):
                        continue
                    if p.type_id < 64 and lay.time and p.prefix:
                        pt = perf_prefix(p, lay).get('prefix.time')
                        if pt is not None and pt != (ot if ot is not None else U64):
                            continue
                cand = i
                break
            if cand is not None:
                break
        if cand is None:
            unmatched_o.append(o)
            continue
        used[cand] = True
        where = where_of(plist[cand].file, plist[cand].off,
                         o.get('inner_offset') if 'inner_offset' in o else None)
        compare_record(plist[cand], o, lay, res, where)
    unmatched_p = [p for i, p in enumerate(plist) if not used[i]]
    return unmatched_p, unmatched_o


ATTR_FLAGS_MASK = (1 << 38) - 1


def compare_attrs(ours, evlist, res):
    """Pipe mode: perfsift's ATTR records against the events of perf evlist -v (perf's
    dump prints nothing of an ATTR record), in order."""
    attrs = [o for o in ours if o.get('type') == 'ATTR']
    if not attrs or not evlist:
        return
    if len(attrs) != len(evlist):
        res.notes.append('perf evlist -v lists %d events for %d ATTR records: ATTR fields not '
                         'compared' % (len(evlist), len(attrs)))
        return
    for o, ev in zip(attrs, evlist):
        where = hex(toint(o['offset']))
        pa = ev[3]
        if pa is None:
            res.notes.append('perf evlist -v line for %s not understood: ATTR %s not compared'
                             % (ev[0], where))
            continue
        for k in ('type', 'size', 'config', 'sample_period', 'sample_type', 'read_format', 'flags'):
            try:
                ov = toint(get(o, 'attr', k))
            except Missing as e:
                res.add(where, 'ATTR', 'attr.' + k, pa[k], 'missing %s' % e, 'missing-json')
                continue
            if k == 'flags':
                ov &= ATTR_FLAGS_MASK
            res.fields += 1
            if ov != pa[k]:
                res.add(where, 'ATTR', 'attr.' + k, pa[k], ov)


def compare(perf_recs, pipe, msgs, ours, evlist, max_records, res, strict_pipe_offsets=False):
    lay = Layout(evlist, pipe, perf_recs)
    if lay.known and lay.source != 'perf evlist -v':
        res.notes.append('perf evlist -v printed nothing: sample_types read from %s' % lay.source)
    if not lay.known:
        res.notes.append('perf evlist -v printed nothing: the cpu/time prefix is read as '
                         '"cpu time" when perf prints two numbers, "time" when one')
        lay.cpu = any(len(p.prefix) == 2 and p.prefix != ['-1', '-1'] for p in perf_recs)
        lay.time = any(p.prefix and p.prefix != ['-1', '-1'] for p in perf_recs)
    delta = PIPE_HEADER_SIZE if pipe else 0
    if pipe and strict_pipe_offsets:
        first = min((toint(o['offset']) for o in ours), default=0)
        res.add(hex(first), '-', 'offset', 'stream offset (from the end of the pipe header)',
                'file offset (perf + %d)' % PIPE_HEADER_SIZE, 'pipe-offsets')
    elif pipe:
        res.notes.append('pipe mode: perf counts offsets from the end of the %d-byte pipe header, '
                         'perfsift from the start of the file (perfsift = perf + %d)'
                         % (PIPE_HEADER_SIZE, PIPE_HEADER_SIZE))
    partial = bool(msgs)
    # perfsift's side: file order
    last = {}
    for i, o in enumerate(ours):
        key = o.get('file')
        off = toint(o['offset'])
        if key in last and off < last[key][0]:
            res.add(hex(off), o.get('type'), 'order',
                    'perfsift lists %s after %s' % (hex(off), hex(last[key][0])), None, 'order')
            break
        last[key] = (off, i)
    # cut-off
    limit_off = None
    if max_records and len(ours) > max_records:
        o = ours[max_records]
        limit_off = (o.get('file'), toint(o['offset']) - delta)
        res.notes.append('compared the first %d of %d perfsift records (up to offset %s); the '
                         'rest is not checked' % (max_records, len(ours), hex(limit_off[1])))

    def beyond(file, off):
        if limit_off is None:
            return False
        a = -1 if file is None else file
        b = -1 if limit_off[0] is None else limit_off[0]
        return (a, off) >= (b, limit_off[1])

    pg = {}
    for p in perf_recs:
        if beyond(p.file, p.off):
            continue
        pg.setdefault((p.file, p.off), []).append(p)
    og = {}
    for o in ours:
        key = (o.get('file'), toint(o['offset']) - delta)
        if beyond(*key):
            continue
        og.setdefault(key, []).append(o)
    keys = sorted(set(pg) | set(og), key=lambda k: (-1 if k[0] is None else k[0], k[1]))
    missing_in_perf = []
    for k in keys:
        plist = pg.get(k, [])
        olist = og.get(k, [])
        printed_compressed = any(p.name in ('COMPRESSED', 'COMPRESSED2') for p in plist)
        if not printed_compressed:
            # perf decodes COMPRESSED without printing it
            n = len(olist)
            olist = [o for o in olist if o.get('type') not in ('COMPRESSED', 'COMPRESSED2')
                     or 'inner_offset' in o]
            res.containers += n - len(olist)
        up, uo = match_group(plist, olist, lay, res)
        for p in up:
            res.add(where_of(p.file, p.off), p.name or str(p.type_id), 'record',
                    'PERF_RECORD_%s [%#x] type %d' % (p.name, p.size, p.type_id),
                    '(no such record)', 'record-missing-in-perfsift')
        for o in uo:
            missing_in_perf.append((k, o))
    compare_attrs(ours, evlist, res)
    if not partial:
        for k, o in missing_in_perf:
            res.add(where_of(k[0], k[1], o.get('inner_offset')), o.get('type'), 'record',
                    '(perf printed no such record)', '%s [%#x] type %s' % (o.get('type'),
                                                                          o.get('size'), o.get('type_id')),
                    'record-missing-in-perf')
    else:
        res.notes.append('perf stopped early (%s): compared the %d records perf printed; %d '
                         'perfsift records have no perf counterpart'
                         % (msgs[0][:100], len(perf_recs), len(missing_in_perf)))


# --- main --------------------------------------------------------------------------------

def summarize(name, res, nperf, nours, out):
    kinds = {}
    for d in res.diffs:
        kinds.setdefault((d[5], d[1], d[2].split('[')[0]), []).append(d)
    ok = not res.diffs
    head = ('PASS' if ok else 'FAIL') + ' ' + name
    desc = '%d records compared, %d fields (perf printed %d records, perfsift %d%s)' % (
        res.compared, res.fields, nperf, nours,
        ' with %d COMPRESSED containers perf does not print' % res.containers
        if res.containers else '')
    if not ok:
        d = res.diffs[0]
        desc = '%d differences; first at %s %s field %s: perf %s, perfsift %s; %s' % (
            len(res.diffs), d[0], d[1], d[2], show(d[3]), show(d[4]), desc)
    out.write('%s: %s\n' % (head, desc))
    for n in res.notes:
        out.write('  NOTE %s\n' % n)
    groups = {}
    for u in res.uncompared:
        groups.setdefault((u[1], u[2], u[5]), []).append(u)
    for (typ, field, why), us in sorted(groups.items()):
        u = us[0]
        out.write('  NOTE not compared: %s.%s in %d record(s), first at %s: perf %s, perfsift %s: '
                  '%s\n' % (typ, field, len(us), u[0], show(u[3]), show(u[4]), why))
    for (kind, typ, field), ds in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        d = ds[0]
        out.write('  %-26s %s.%s: %d record(s); first at %s: perf %s, perfsift %s\n' % (
            kind, typ, field, len(ds), d[0], show(d[3]), show(d[4])))
    out.write('TOTALS %s perf_records=%d perfsift_records=%d compared=%d fields=%d diffs=%d\n' % (
        name, nperf, nours, res.compared, res.fields, len(res.diffs)))
    return ok


def check_one(job):
    """Compare one capture; returns (status, text) with status 'PASS', 'FAIL' or 'SKIP'."""
    capture, ref, why, a = job
    name = a.name_prefix + os.path.basename(capture.rstrip('/'))
    out = io.StringIO()
    tmp = tempfile.mkdtemp(prefix='perfsift-dumpcmp.')
    try:
        rc, pout, perr, evtext, copy = run_perf(a.perf, ref or capture, tmp)
        perf_recs, pipe, msgs = parse_perf_dump(pout)
        with open(perr, 'rb') as f:
            errtext = f.read().decode('utf-8', 'replace')
        for line in errtext.splitlines():
            if perf_stopped(line):
                msgs.append(line.strip())
        if rc != 0 and not msgs:
            msgs.append('perf exit status %d' % rc)
        if not perf_recs:
            why_not = msgs[0] if msgs else (errtext.strip().splitlines() or ['no output'])[-1]
            why_not = why_not.replace(tmp + '/in/', '')
            return 'SKIP', 'SKIP %s: perf report -D printed no record (%s)\n' % (name, why_not[:160])
        evlist = parse_evlist(evtext)
        if not evlist and msgs and not pipe:
            # perf could not build its event list from the file header (attr.size 136,
            # which perf 6.1 refuses or misreads depending on its stack contents), yet
            # printed a few records before failing: those were decoded with no valid attr
            return 'SKIP', ('SKIP %s: perf cannot read the event attributes (perf evlist -v '
                            'prints nothing) and stops after %d record(s): %s\n'
                            % (name, len(perf_recs), msgs[0][:120]))
        orc, ours, oerr, bad = run_perfsift(a.perfsift, capture if ref else copy, tmp)
        if bad:
            return 'FAIL', 'FAIL %s: %s\n' % (name, bad)
        res = Result()
        if ref:
            res.notes.append('perf reference: %s%s' % (os.path.basename(ref),
                                                      ' (%s)' % why if why else ''))
        if orc != 0:
            res.notes.append('perfsift exit %d: %s' % (orc, oerr.splitlines()[-1][:200] if oerr else ''))
            if not msgs:
                res.add('-', '-', 'exit status', 0, orc, 'perfsift-error')
        compare(perf_recs, pipe, msgs, ours, evlist, a.max_records, res, a.strict_pipe_offsets)
        ok = summarize(name, res, len(perf_recs), len(ours), out)
        if a.all and res.diffs:
            for d in res.diffs:
                out.write('  DIFF %-10s %-14s %-26s perf %s perfsift %s [%s]\n' % (
                    d[0], d[1], d[2], show(d[3]), show(d[4]), d[5]))
        return ('PASS' if ok else 'FAIL'), out.getvalue()
    except subprocess.TimeoutExpired as e:
        return 'FAIL', 'FAIL %s: timed out: %s\n' % (name, ' '.join(e.cmd))
    except Exception as e:                      # a bug here must not read as a pass
        return 'FAIL', 'FAIL %s: dump_compare.py error: %r\n' % (name, e)
    finally:
        if a.keep:
            sys.stderr.write('kept %s\n' % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('captures', nargs='+', metavar='CAPTURE')
    ap.add_argument('--perfsift', default=os.environ.get('PERFSIFT', '/work/main/perfsift'))
    ap.add_argument('--perf', default=os.environ.get('PERF', 'perf'))
    ap.add_argument('--name-prefix', default='', help='text put before each capture name')
    ap.add_argument('--reference-for', nargs=2, action='append', default=[],
                    metavar=('NAME', 'FILE'),
                    help='for the capture named NAME, run perf on FILE instead (a twin perf '
                         'reads correctly); may be repeated')
    ap.add_argument('--reference-why', metavar='TEXT', help='why --reference-for is used (printed)')
    ap.add_argument('--max-records', type=int, default=0,
                    help='compare only the first N perfsift records (by offset); 0 = all')
    ap.add_argument('--strict-pipe-offsets', action='store_true',
                    help='fail pipe-mode captures whose offsets count from the file start '
                         '(perf counts from the end of the pipe header); default: a NOTE')
    ap.add_argument('-j', '--jobs', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--all', action='store_true', help='list every difference')
    ap.add_argument('--keep', action='store_true', help='keep the temporary directories')
    a = ap.parse_args()
    out = sys.stdout
    if not shutil.which(a.perf) or not os.access(a.perfsift, os.X_OK):
        what = 'perf not found (%s)' % a.perf if not shutil.which(a.perf) else \
            'perfsift binary not found (%s)' % a.perfsift
        for c in a.captures:
            out.write('FAIL %s%s: %s\n' % (a.name_prefix, os.path.basename(c.rstrip('/')), what))
        return 1
    refs = dict(a.reference_for)
    jobs = [(c, refs.get(os.path.basename(c.rstrip('/'))), a.reference_why, a) for c in a.captures]
    counts = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
    if a.jobs > 1 and len(jobs) > 1:
        import multiprocessing
        pool = multiprocessing.get_context('fork').Pool(a.jobs)
        results = pool.imap(check_one, jobs)
    else:
        pool = None
        results = map(check_one, jobs)
    for status, text in results:
        counts[status] += 1
        out.write(text)
        out.flush()
    if pool:
        pool.close()
        pool.join()
    if len(jobs) > 1:
        out.write('%s%d passed, %d failed, %d skipped\n' % (a.name_prefix, counts['PASS'],
                                                              counts['FAIL'], counts['SKIP']))
    return 1 if counts['FAIL'] else 0


if __name__ == '__main__':
    sys.exit(main())
