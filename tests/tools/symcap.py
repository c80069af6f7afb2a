#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""symcap.py SPEC OUT - write a tiny perf.data that asks "which symbol is
this address?", to compare `perf script` with `perfsift script` on
addresses chosen at will (symbol edges, PLT slots, JIT maps, kallsyms).
This is how libparse/symbols.c's rules were checked against perf 6.1.

One cpu-clock event, sample_type IP|TID|TIME|PERIOD|CALLCHAIN with
sample_id_all; each sample's callchain is a context marker then the given
addresses, so perf prints one "\\t%16x sym+0xoff (dso)" line per address.

SPEC lines (numbers in hex, '#' comments):
  comm PID TID NAME
  mmap2 PID TID START LEN PGOFF PROT FILE [BUILDID]   user MMAP2 (BUILDID: misc bit)
  mmap PID TID START LEN PGOFF FILE                   user MMAP (v1)
  kmmap START LEN PGOFF FILE                          kernel MMAP, pid -1
  buildid MISC HEX FILE                               HEADER_BUILD_ID entry
  sample PID TID IP [u|k] [IP,IP,...]                 chain (default: IP)

Example:
  printf 'comm 1 1 x\\nmmap2 1 1 7f0000000000 100000 0 5 /bin/bash\\n'\\
'sample 1 1 0 u 7f0000030000,7f0000030010\\n' > s.spec
  tests/tools/symcap.py s.spec s.data
  HOME=$(mktemp -d) perf script -i s.data; HOME=... ./perfsift script -i s.data
"""
import struct
import sys

CTX_KERNEL = 0xffffffffffffff80
CTX_USER = 0xfffffffffffffe00


def pad8(b):
    return b + b'\0' * ((8 - len(b) % 8) % 8)


def record(typ, misc, body):
    return struct.pack('<IHH', typ, misc, 8 + len(body)) + body


def trailer(pid, tid, t):
    return struct.pack('<IIQ', pid, tid, t)


def mmap2(w, t):
    pid, tid = int(w[1]), int(w[2])
    start, ln, pgoff, prot = int(w[3], 16), int(w[4], 16), int(w[5], 16), int(w[6])
    misc = 2
    if len(w) > 8:
        bid = bytes.fromhex(w[8])
        ids = struct.pack('<BBH', len(bid), 0, 0) + bid + b'\0' * (20 - len(bid))
        misc |= 1 << 14                     # PERF_RECORD_MISC_MMAP_BUILD_ID
    else:
        ids = struct.pack('<IIQQ', 8, 1, 1234, 0)
    body = struct.pack('<IIQQQ', pid, tid, start, ln, pgoff) + ids + \
        struct.pack('<II', prot, 2) + pad8(w[7].encode() + b'\0')
    return record(10, misc, body + trailer(pid, tid, t))


def build_id(w):
    bid = bytes.fromhex(w[2])
    name = w[3].encode() + b'\0'
    name += b'\0' * ((64 - len(name) % 64) % 64)
    body = struct.pack('<i', -1) + bid + b'\0' * (20 - len(bid)) + \
        struct.pack('<BBH', len(bid), 0, 0) + name
    return record(67, int(w[1]) | (1 << 15), body)   # misc bit 15: size is valid


def sample(w, t):
    pid, tid = int(w[1]), int(w[2])
    kernel = len(w) > 4 and w[4] == 'k'
    ips = w[5].split(',') if len(w) > 5 else [w[3]]
    chain = [CTX_KERNEL if kernel else CTX_USER] + [int(x, 16) for x in ips]
    body = struct.pack('<QIIQQ', int(w[3], 16), pid, tid, t, 1)
    body += struct.pack('<Q', len(chain)) + b''.join(struct.pack('<Q', c) for c in chain)
    return record(9, 1 if kernel else 2, body)


def parse(spec):
    recs, bids, t = [], [], 1000
    for line in open(spec):
        w = line.split()
        if not w or w[0].startswith('#'):
            continue
        t += 1
        if w[0] == 'comm':
            pid, tid = int(w[1]), int(w[2])
            body = struct.pack('<II', pid, tid) + pad8(w[3].encode() + b'\0')
            recs.append(record(3, 0, body + trailer(pid, tid, t)))
        elif w[0] == 'mmap2':
            recs.append(mmap2(w, t))
        elif w[0] in ('mmap', 'kmmap'):
            kernel = w[0] == 'kmmap'
            pid, tid = (0xffffffff, 0) if kernel else (int(w[1]), int(w[2]))
            a = w[1:] if kernel else w[3:]
            body = struct.pack('<IIQQQ', pid, tid, int(a[0], 16), int(a[1], 16), int(a[2], 16))
            body += pad8(a[3].encode() + b'\0')
            recs.append(record(1, 1 if kernel else 2, body + trailer(pid, tid, t)))
        elif w[0] == 'buildid':
            bids.append(build_id(w))
        elif w[0] == 'sample':
            recs.append(sample(w, t))
        else:
            sys.exit('symcap: bad line: ' + line.rstrip())
    return b''.join(recs), b''.join(bids)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    data, bids = parse(sys.argv[1])
    sample_type = 0x1 | 0x2 | 0x4 | 0x20 | 0x100     # IP TID TIME CALLCHAIN PERIOD
    flags = (1 << 8) | (1 << 9) | (1 << 18) | (1 << 23)   # mmap comm sample_id_all mmap2
    attr = struct.pack('<IIQQQQQIIQQQQIiQIHHIIQ', 1, 128, 0, 1, sample_type, 0, flags,
                       0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    attrs = attr + struct.pack('<QQ', 0, 0)          # no ids
    data_off = 104 + len(attrs)
    feat, feats = 0, b''
    if bids:
        feat = 1 << 2                                 # HEADER_BUILD_ID
        feats = struct.pack('<QQ', data_off + len(data) + 16, len(bids)) + bids
    header = struct.pack('<QQQQQQQQQ', 0x32454c4946524550, 104, len(attrs),
                         104, len(attrs), data_off, len(data), 0, 0)
    header += struct.pack('<QQQQ', feat, 0, 0, 0)
    with open(sys.argv[2], 'wb') as f:
        f.write(header + attrs + data + feats)


main()
