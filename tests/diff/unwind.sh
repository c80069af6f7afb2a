#!/bin/bash
# unwind.sh - DWARF call chains (issue 4).
#  1. The user frames perfsift unwinds from the captured registers and
#     stack have the same addresses as perf's (inlined callers included).
#  2. Which processes perf unwinds at all (libparse/unwind.c, gate_open()):
#     the external dwarf captures, whose programs are not on this machine,
#     print byte for byte what perf prints, with and without a --symfs that
#     hides every file (and perf's own [vdso]); so do pipe copies of
#     cpp-recursion.perf.data without the ARCH feature, whose maps come
#     before or after the first sample.
#  3. The [vdso] (testdata/dwarf-vdso.data, recorded without the BUILD_ID
#     feature): perf unwinds through it with its own vdso's CFI, so the
#     capture must have [vdso] frames with callers; under a --symfs that
#     hides perf's own vdso (and holds the program and its libraries) the
#     chains stop at the vdso frame, where it has no CFI.
source "$(dirname "$0")/lib.sh"
require_perf
cp -rn "$SHARED/corpus/symfs/." / 2>/dev/null
install_dwarf_bins
F="$SHARED/corpus/captures/cpuhog-dwarf.data"
perf_run script -F comm,tid,time,ip -i "$F" 2>/dev/null > "$TMPD/perf.txt"
env -i PATH="$PATH" HOME="$TMPD/home" "$PERFSIFT" script -q -F comm,tid,time,ip "$F" \
    > "$TMPD/ours.txt"
frames=$(grep -c '^	' "$TMPD/perf.txt")
if [ "$frames" -gt 200 ] && cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt"; then
    pass "unwind cpuhog-dwarf.data: $frames frame addresses equal perf's"
else
    fail "unwind cpuhog-dwarf.data: $(diff "$TMPD/perf.txt" "$TMPD/ours.txt" | grep -c '^>') of $frames frames differ"
    diff "$TMPD/perf.txt" "$TMPD/ours.txt" | head -6
fi

# same NAME FILE [OPTIONS...]: perf script and perfsift script print the same
same() {
    local name=$1 f=$2
    shift 2
    perf_run script "$@" -i "$f" > "$TMPD/perf.txt" 2>/dev/null
    env -i PATH="$PATH" HOME="$TMPD/home" ${READ_STEP:+PERFSIFT_TEST_READ_STEP=$READ_STEP} \
        "$PERFSIFT" script -q "$@" "$f" > "$TMPD/ours.txt" 2>/dev/null
    if [ -s "$TMPD/perf.txt" ] && cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt"; then
        pass "unwind $name: $(wc -l < "$TMPD/perf.txt") lines equal perf's"
    else
        fail "unwind $name: $(diff "$TMPD/perf.txt" "$TMPD/ours.txt" | grep -c '^[<>]') lines differ"
        diff "$TMPD/perf.txt" "$TMPD/ours.txt" | head -6
    fi
}

E="$SHARED/external"
for f in hotspot/cpp-recursion.perf.data hotspot/cpp-recursion.perf.data.old \
         hotspot/perf.data.true.v2 perfparser/vector_static_clang.perf.data \
         perfparser/vector_static_gcc.perf.data perfparser/contentsize.data \
         perfparser/fork_static_gcc.perf.data.zstd \
         perfparser/parallel_static_gcc.perf.data.zstd \
         perfparser/vector_static_gcc.perf.data.zstd; do
    [ -e "$E/$f" ] || { fail "unwind $f: capture missing"; continue; }
    same "$(basename "$f")" "$E/$f"
    same "$(basename "$f") --symfs" "$E/$f" --symfs "$TMPD/nothing"
done

# Pipe copies without HEADER_ARCH (and without the [vdso] map, which perf
# would open): perf sets up a process at its first map until the first
# sample; then it takes this machine's arch and wants a 64-bit file.
if perf_run inject -i "$E/hotspot/cpp-recursion.perf.data" -o - > "$TMPD/cr.pipe" 2>/dev/null &&
   python3 - "$TMPD/cr.pipe" "$TMPD/cr" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()

def records():
    off = 16
    while off + 8 <= len(d):
        typ, misc, size = struct.unpack_from('<IHH', d, off)
        if size == 0:
            break
        yield typ, bytearray(d[off:off + size])
        off += size

def write(name, early_sample):
    out, first_map, moved = bytearray(d[:16]), None, False
    recs = [(t, r) for t, r in records()
            if not (t == 80 and struct.unpack_from('<Q', r, 8)[0] == 6)      # ARCH
            and not (t == 10 and r[72:].split(b'\0')[0] == b'[vdso]')]
    for t, r in recs:
        if t == 10 and first_map is None:
            first_map = struct.unpack_from('<Q', r, len(r) - 8)[0]     # sample_id time
    for t, r in recs:
        if t == 9 and early_sample and not moved:   # the first sample, before the maps
            struct.pack_into('<Q', r, 24, first_map - 1000)
            moved = True
        out += r
    open(name, 'wb').write(out)

write(sys.argv[2] + '-noarch.pipe', False)
write(sys.argv[2] + '-noarch-late.pipe', True)
PY
then
    same "pipe without ARCH, maps first" "$TMPD/cr-noarch.pipe"
    same "pipe without ARCH, a sample first" "$TMPD/cr-noarch-late.pipe"
else
    fail "unwind pipe without ARCH: could not make the captures"
fi

V="$ROOT/testdata/dwarf-vdso.data"
perf_run script -F ip,dso -i "$V" 2>/dev/null > "$TMPD/vdso.txt"
callers=$(awk '/\(\[vdso\]\)$/ { v = 1; next } v && /^\t/ { n++ } { v = 0 }
               END { print n + 0 }' "$TMPD/vdso.txt")
if [ "$callers" -gt 50 ]; then
    pass "unwind dwarf-vdso.data: perf unwinds $callers [vdso] frames into their caller"
else
    fail "unwind dwarf-vdso.data: only $callers [vdso] frames with a caller (re-record it)"
fi
VS="$TMPD/vdso-symfs"
mkdir -p "$VS/tmp/perfsift-dwarf" "$VS/usr/lib/x86_64-linux-gnu"
cp /tmp/perfsift-dwarf/vdso "$VS/tmp/perfsift-dwarf/"
cp /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \
    "$VS/usr/lib/x86_64-linux-gnu/"
same "dwarf-vdso.data --symfs (no [vdso] CFI)" "$V" --symfs "$VS" --no-inline
# with --symfs, perf hands addr2line the host's stripped libc (no .symtab
# under the symfs), which follows its build-id to /usr/lib/debug
same "dwarf-vdso.data --symfs, inline frames" "$V" --symfs "$VS"
same "dwarf-vdso.data --symfs, srcline" "$V" --symfs "$VS" -F +srcline

# The reader thread (libparse/source.c) forced on, in chunks of a page, for
# captures far below the size it starts at by itself: records straddle
# chunks and the time-ordering queue borrows from them; nothing changes.
for f in "$F" "$ROOT/testdata/dwarf-shlib.data" "$E/perfparser/parallel_static_gcc.perf.data.zstd"; do
    READ_STEP=4096 same "$(basename "$f") read in 4 KiB chunks" "$f"
done

finish
