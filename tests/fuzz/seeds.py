#!/usr/bin/env python3
"""seeds.py OUTDIR - seed corpora for the fuzz targets, made from the
captures in testdata/, ../shared/corpus/captures/ and ../shared/external/
(read at run time, never copied into git). One folder per target:
file, pipe, ring, tracepoint, features, and the emitters' captures."""
import glob, hashlib, json, os, re, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
SHARED = os.path.normpath(os.path.join(ROOT, '..', 'shared'))
MAX_SEED = 128 * 1024      # bigger captures slow every fuzz iteration
MAX_EMIT = 48 * 1024       # the emitters are slower still


def captures():
    paths = glob.glob(os.path.join(ROOT, 'testdata', '*.data'))
    paths += glob.glob(os.path.join(SHARED, 'corpus', 'captures', '*.data'))
    try:
        with open(os.path.join(SHARED, 'external', 'manifest.json')) as f:
            for e in json.load(f):
                if e.get('kind') == 'capture':
                    paths.append(os.path.join(SHARED, 'external', e['file']))
    except OSError:
        pass
    for p in sorted(paths):
        if os.path.isfile(p):
            with open(p, 'rb') as f:
                yield p, f.read()


def put(outdir, target, data):
    d = os.path.join(outdir, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), 'wb') as f:
        f.write(data)


def sections(data):
    """(feature id, payload) of a little-endian file-mode capture."""
    if len(data) < 104 or data[:8] != b'PERFILE2' or struct.unpack_from('<Q', data, 8)[0] != 104:
        return
    doff, dsize = struct.unpack_from('<QQ', data, 40)
    bits = int.from_bytes(data[72:104], 'little')
    off = doff + dsize
    for feat in range(256):
        if bits >> feat & 1:
            if off + 16 > len(data):
                return
            so, sz = struct.unpack_from('<QQ', data, off)
            off += 16
            if so + sz <= len(data):
                yield feat, data[so:so + sz]


def tracing_seed(blob):
    """[u16 payload length][payload][blob]: a payload for each event ID."""
    ids = [int(m) for m in re.findall(rb'\nID: (\d+)', blob)][:8] or [0]
    for i in ids:
        payload = struct.pack('<H', i & 0xffff) + bytes(range(1, 63))
        yield struct.pack('<H', len(payload)) + payload + blob


def ring_seeds():
    ring = os.path.join(ROOT, 'testdata', 'ring')
    attrs = glob.glob(os.path.join(ring, '*.attr.*'))
    dumps = [p for p in glob.glob(os.path.join(ring, '*')) if p.endswith(('.snap', '.stream'))]
    for a in attrs:
        for d in dumps:
            ab, db = open(a, 'rb').read(), open(d, 'rb').read()
            form = 2 if d.endswith('.snap') else 1
            yield struct.pack('<BB', len(ab) & 0xff, (len(ab) >> 8 & 0x0f) | form << 4) + ab + db


def main():
    out = sys.argv[1]
    for path, data in captures():
        pipe = data[:8] == b'PERFILE2' and struct.unpack_from('<Q', data, 8)[0] == 16
        if len(data) <= MAX_SEED:
            put(out, 'pipe' if pipe else 'file', data)
        if len(data) <= MAX_EMIT:
            for t in ('script', 'folded', 'json', 'sqlite'):
                put(out, t, data)
        chunks = b''
        for feat, payload in sections(data):
            payload = payload[:0xffff]
            chunks += struct.pack('<BH', feat, len(payload)) + payload
            if feat == 1 and len(payload) <= MAX_SEED:
                for s in tracing_seed(payload):
                    put(out, 'tracepoint', s)
        if chunks:
            put(out, 'features', chunks[:MAX_SEED])
    for s in ring_seeds():
        put(out, 'ring', s)


if __name__ == '__main__':
    main()
