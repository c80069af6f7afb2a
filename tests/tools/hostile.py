#!/usr/bin/env python3
"""hostile.py OUTDIR PATH... - perf.data files made to hurt a reader
(tests/diff/hostile.sh). Little-endian file mode, one software event.

  mmap-paths.data   an MMAP per PATH given (FIFOs, devices, /proc files,
                    directories, huge files, symlink loops) and a sample in
                    each, its call chain through all of them
  jit-fifo.data     samples of pid 4194301, whose /tmp/perf-4194301.map the
                    test makes a FIFO
  buildid-dots.data BUILD_ID feature and MMAP2 build-ids whose file names
                    climb out of the build-id cache (../)
  callchain-nr.data samples claiming 2^32-1 and 2^64-1 call chain entries
  comm-huge.data    a 65000-byte COMM without a NUL, a 65000-byte MMAP name
  tracing-bad.data  tracepoint samples whose TRACING_DATA has malformed
                    formats (unbalanced print fmt, fields past the payload,
                    REC-> of missing fields, sizes past the end, a format
                    count of 2^32-1)
  numa-cpus.data    a NUMA node whose cpu list is 0-2147483646
  big/many-dsos.data 70000 files mapped, a sample in each (report only)
  zstd-bomb.data    COMPRESSED records: 256 MiB of zeros (records of size 0),
                    from 8 KB
  zstd-rounds.data  COMPRESSED records inflating to 128 MiB of valid
                    FINISHED_ROUND records, from 11 KB
  bpf-btf-open.data (from corpus bpf-events.data, when PS_SHARED names
                    it) a program named through a BTF blob whose string
                    section does not end with a NUL
The zstd ones need the zstd program; without it they are not made.
"""
import os, struct, subprocess, sys

SOFTWARE, TRACEPOINT = 1, 2
IP, TID, TIME, CALLCHAIN, PERIOD, RAW = 0x1, 0x2, 0x4, 0x20, 0x100, 0x400
MISC_USER = 2
PID = 4194301


def attr(typ=SOFTWARE, config=0, sample_type=IP | TID | TIME | PERIOD | CALLCHAIN):
    flags = 1 << 8 | 1 << 9          # mmap, comm
    a = struct.pack('<IIQQQQQ', typ, 128, config, 1, sample_type, 0, flags)
    return a + bytes(128 - len(a))


def rec(typ, body, misc=0):
    body += bytes(-len(body) % 8)
    return struct.pack('<IHH', typ, misc, 8 + len(body)) + body


def comm(pid, name):
    return rec(3, struct.pack('<II', pid, pid) + name + b'\0')


def mmap(pid, addr, length, name):
    return rec(1, struct.pack('<IIQQQ', pid, pid, addr, length, 0) + name + b'\0', MISC_USER)


def mmap2_bid(pid, addr, length, name, bid):
    body = struct.pack('<IIQQQ', pid, pid, addr, length, 0)
    body += struct.pack('<BBH', len(bid), 0, 0) + bid + bytes(20 - len(bid))
    body += struct.pack('<II', 5, 2) + name + b'\0'
    return rec(10, body, MISC_USER | 1 << 14)


def sample(pid, ip, chain, t=1, raw=None, nr=None):
    body = struct.pack('<QIIQQ', ip, pid, pid, t, 1)
    body += struct.pack('<Q', len(chain) if nr is None else nr)
    body += b''.join(struct.pack('<Q', x) for x in chain)
    if raw is not None:
        body += struct.pack('<I', len(raw)) + raw
    return rec(9, body, MISC_USER)


def capture(path, attrs, data, features=()):
    """features: (bit, payload) in bit order"""
    head = 104
    attr_off = head
    attr_sec = b''.join(a + struct.pack('<QQ', 0, 0) for a in attrs)
    data_off = attr_off + len(attr_sec)
    feat_off = data_off + len(data)
    bits = 0
    idx = b''
    payload = b''
    pay_off = feat_off + 16 * len(features)
    for bit, p in features:
        bits |= 1 << bit
        idx += struct.pack('<QQ', pay_off + len(payload), len(p))
        payload += p
    hdr = b'PERFILE2' + struct.pack('<QQQQQQQQ', head, 128 + 16, attr_off, len(attr_sec),
                                    data_off, len(data), 0, 0)
    hdr += bits.to_bytes(32, 'little')
    with open(path, 'wb') as f:
        f.write(hdr + attr_sec + data + idx + payload)


def perf_string(s):
    s += b'\0'
    s += bytes(-len(s) % 64)
    return struct.pack('<I', len(s)) + s


def mmap_paths(out, paths):
    data = comm(1000, b'hostile')
    base = 0x400000
    ips = []
    for i, p in enumerate(paths):
        addr = base + i * 0x100000
        data += mmap(1000, addr, 0x100000, p.encode())
        ips.append(addr + 0x1234)
    for ip in ips:
        data += sample(1000, ip, ips)
    capture(os.path.join(out, 'mmap-paths.data'), [attr()], data)


def jit_fifo(out):
    data = comm(PID, b'jit') + mmap(PID, 0x7f0000000000, 0x10000, b'//anon')
    data += sample(PID, 0x7f0000000100, [0x7f0000000100])
    capture(os.path.join(out, 'jit-fifo.data'), [attr()], data)


def buildid_dots(out):
    names = [b'../../../../../../etc/passwd', b'/usr/../../../../etc/shadow',
             b'..', b'/.debug/../../x', b'[kernel.kallsyms]/../../../etc']
    bid = bytes(range(1, 21))
    data = comm(1000, b'bid')
    feat = b''
    for i, n in enumerate(names):
        addr = 0x400000 + i * 0x100000
        data += mmap2_bid(1000, addr, 0x100000, n, bid)
        data += sample(1000, addr + 0x10, [addr + 0x10])
        body = struct.pack('<i', 1000) + bid + bytes(4) + n + b'\0'
        body += bytes(-len(body) % 64)
        feat += struct.pack('<IHH', 0, 2, 8 + len(body)) + body
    capture(os.path.join(out, 'buildid-dots.data'), [attr()], data, [(2, feat)])


def callchain_nr(out):
    data = comm(1000, b'deep') + mmap(1000, 0x400000, 0x1000, b'/bin/true')
    data += sample(1000, 0x400010, [0x400010, 0x400020], nr=2**32 - 1)
    data += sample(1000, 0x400010, [0x400010], nr=2**64 - 1)
    data += sample(1000, 0x400010, [0xfffffffffffffe00, 0x400010])    # context marker
    capture(os.path.join(out, 'callchain-nr.data'), [attr()], data)


def comm_huge(out):
    body = struct.pack('<II', 1000, 1000) + b'C' * 65000
    body = body[:65520]
    data = struct.pack('<IHH', 3, 0, 8 + len(body)) + body            # no NUL at all
    name = b'/' + b'n' * 65000
    data += mmap(1000, 0x400000, 0x1000, name[:65400])
    data += sample(1000, 0x400010, [0x400010])
    capture(os.path.join(out, 'comm-huge.data'), [attr()], data)


def tracing_blob(formats, nr_override=None):
    b = b'\x17\x08\x44tracing' + b'0.6\0' + b'\0' + b'\x08' + struct.pack('<I', 4096)
    page = (b'\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n'
            b'\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n')
    b += b'header_page\0' + struct.pack('<Q', len(page)) + page
    ev = b'# compressed entry header\n\ttype_len    :    5 bits\n'
    b += b'header_event\0' + struct.pack('<Q', len(ev)) + ev
    b += struct.pack('<I', 0)                                       # ftrace formats
    b += struct.pack('<I', 1) + b'hostile\0'
    b += struct.pack('<I', len(formats) if nr_override is None else nr_override)
    for f in formats:
        b += struct.pack('<Q', len(f)) + f
    b += struct.pack('<I', 0)                                       # kallsyms
    printk = b'0xffffffff81000000 : "x"\n0x1 : \n:\n'
    b += struct.pack('<I', len(printk)) + printk
    b += struct.pack('<Q', 0)
    return b


def fmt(i, fields, pf):
    t = b'name: ev%d\nID: %d\nformat:\n' % (i, 100 + i)
    t += b'\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n'
    t += b'\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n' + fields
    return t + b'\nprint fmt: ' + pf + b'\n'


def tracing_bad(out):
    f1 = b'\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n'
    f_far = b'\tfield:char big[4096];\toffset:60000;\tsize:4096;\tsigned:0;\n'
    f_loc = b'\tfield:__data_loc char[] s;\toffset:8;\tsize:4;\tsigned:0;\n'
    formats = [
        fmt(0, f1, b'"a=%d", ((((REC->a'),
        fmt(1, f1, b'"%s", __print_flags(REC->nope, "|", {1, "A"})'),
        fmt(2, f_far, b'"%s", REC->big'),
        fmt(3, f_loc, b'"%s", __get_str(s)'),
        fmt(4, f1, b'"%s %s %s %s %s %s", REC->a, REC->a'),
        fmt(5, b'\tfield:int x;\toffset:4294967295;\tsize:4294967295;\tsigned:1;\n', b'"%d", REC->x'),
        b'name: ev6\nID: 106\nformat:\n\tfield:',
        b'\0\0\0garbage\xff\xfe',
    ]
    attrs, data = [], comm(1000, b'tp')
    for i in range(6):
        attrs.append(attr(TRACEPOINT, 100 + i, IP | TID | TIME | PERIOD | RAW))
    # with several attrs the id must be in each sample: keep one event per file
    blobs = [tracing_blob(formats), tracing_blob(formats[:2], nr_override=2**32 - 1),
             tracing_blob(formats)[:200]]
    for k, blob in enumerate(blobs):
        data = comm(1000, b'tp')
        for j in range(3):
            raw = struct.pack('<HBBi', 100 + j, 0, 0, 1000) + struct.pack('<I', 0xffff0004) + bytes(8)
            data += rec(9, struct.pack('<QIIQQ', 0x400010, 1000, 1000, 1, 1) +
                        struct.pack('<I', len(raw)) + raw, MISC_USER)
        capture(os.path.join(out, 'tracing-bad-%d.data' % k), [attrs[0]], data, [(1, blob)])


def numa_cpus(out):
    """NUMA_TOPOLOGY naming 2^31-1 CPUs in one node (perf's parser checks
    each against every one before it)"""
    node = struct.pack('<IQQ', 0, 1 << 20, 1 << 19) + perf_string(b'0-2147483646')
    data = comm(1000, b'numa') + sample(1000, 0x400010, [0x400010])
    capture(os.path.join(out, 'numa-cpus.data'), [attr()], data,
            [(14, struct.pack('<I', 1) + node)])


def many_dsos(out, n=70000):
    """big/many-dsos.data: n files mapped, a sample in each (report looked
    each frame's DSO up by a scan of all those before it)"""
    data = [comm(1000, b'dsos')]
    for i in range(n):
        addr = 0x400000 + i * 0x1000
        data.append(mmap(1000, addr, 0x1000, b'/nonexistent/lib%d.so' % i))
        data.append(sample(1000, addr + 0x10, [addr + 0x10]))
    os.makedirs(os.path.join(out, 'big'), exist_ok=True)
    capture(os.path.join(out, 'big', 'many-dsos.data'), [attr()], b''.join(data))


def zstd(data):
    try:
        return subprocess.run(['zstd', '-3', '-q', '-c'], input=data, check=True,
                              capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def compressed_capture(path, stream):
    if stream is None:
        return
    data = comm(1000, b'bomb')
    for i in range(0, len(stream), 60000):
        data += rec(81, stream[i:i + 60000])
    feat = struct.pack('<IIIII', 0, 1, 3, 1000, 4096 * 129)    # version, zstd, level, ratio, mmap_len
    capture(path, [attr()], data, [(27, feat)])


def feature_sections(b):
    """{bit: payload} of a little-endian file-mode capture"""
    data_off, data_size = struct.unpack_from('<QQ', b, 40)
    words = struct.unpack_from('<4Q', b, 72)
    bits = [i for i in range(256) if words[i // 64] >> (i % 64) & 1]
    table = data_off + data_size
    secs = {}
    for k, bit in enumerate(bits):
        off, size = struct.unpack_from('<QQ', b, table + 16 * k)
        secs[bit] = b[off:off + size]
    return secs


def with_features(b, secs):
    """b with its feature table and payloads replaced by secs"""
    data_off, data_size = struct.unpack_from('<QQ', b, 40)
    table = data_off + data_size
    words = [0, 0, 0, 0]
    for bit in secs:
        words[bit // 64] |= 1 << (bit % 64)
    head = bytearray(b[:table])
    struct.pack_into('<4Q', head, 72, *words)
    idx, payload = b'', b''
    pay_off = table + 16 * len(secs)
    for bit in sorted(secs):
        idx += struct.pack('<QQ', pay_off + len(payload), len(secs[bit]))
        payload += secs[bit]
    return bytes(head) + idx + payload


def bpf_btf_open(out, shared):
    """bpf-events.data whose first program names its function by a BTF
    blob (BPF_BTF) whose string section lacks its final NUL"""
    src = os.path.join(shared, 'corpus', 'captures', 'bpf-events.data')
    if not os.path.exists(src):
        return
    b = open(src, 'rb').read()
    secs = feature_sections(b)
    p = secs[25]
    count, info_len, data_len, arrays = struct.unpack_from('<IIIQ', p, 0)
    info = bytearray(p[20:20 + info_len])
    data = p[20 + info_len:20 + info_len + data_len] + struct.pack('<II', 0, 1)
    # btf_id 7, func_info records of 8 bytes at the end of data, one of them
    struct.pack_into('<IIQI', info, 128, 7, 8, data_len, 1)
    strs = b'\0' + b'A' * 39
    btf = struct.pack('<HBBIIIII', 0xeb9f, 1, 0, 24, 0, 12, 12, len(strs))
    btf += struct.pack('<III', 1, 2 << 24, 0) + strs       # type 1: PTR named "AAA..."
    secs[25] = (struct.pack('<IIIQ', count, info_len, len(data), arrays | 1 << 5) + info +
                data + p[20 + info_len + data_len:])
    secs[26] = struct.pack('<III', 1, 7, len(btf)) + btf
    with open(os.path.join(out, 'bpf-btf-open.data'), 'wb') as f:
        f.write(with_features(b, secs))


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    mmap_paths(out, paths)
    jit_fifo(out)
    buildid_dots(out)
    callchain_nr(out)
    comm_huge(out)
    tracing_bad(out)
    numa_cpus(out)
    many_dsos(out)
    compressed_capture(os.path.join(out, 'zstd-bomb.data'), zstd(bytes(1 << 28)))
    rounds = struct.pack('<IHH', 68, 0, 8) * (1 << 24)
    compressed_capture(os.path.join(out, 'zstd-rounds.data'), zstd(rounds))
    if os.environ.get('PS_SHARED'):
        bpf_btf_open(out, os.environ['PS_SHARED'])


if __name__ == '__main__':
    main()
