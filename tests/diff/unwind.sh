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
#  3. A child that a shell forks and execs (testdata/dwarf-forkexec.data):
#     perf looks its ld.so and libc FDEs up at its parent's base. One that
#     maps its libc as data (testdata/dwarf-datamap.data): at that base
#     too, but for the pcs libunwind has cached. One whose first sample
#     names the binary by its RELRO page (testdata/dwarf-datareg.data).
#  4. -F iregs,uregs print the registers as perf does.
#  5. The [vdso] (testdata/dwarf-vdso.data, recorded without the BUILD_ID
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

# dwarf-forkexec.data (libparse/unwind_base.c): the child of a fork keeps
# its parent's maps in perf, so its own libc is looked up at the lowest
# libc map of the two; the capture must have the parent's lower, else it
# tests nothing (script.sh compares it with perf under every option set)
FE="$ROOT/testdata/dwarf-forkexec.data"
perf_run script --show-mmap-events --show-task-events -i "$FE" 2>/dev/null |
    python3 -c '
import re, sys
lows, forked = [None, None], 0
for line in sys.stdin:
    forked |= "PERF_RECORD_FORK" in line
    m = re.search(r"PERF_RECORD_MMAP2 .*\[(0x[0-9a-f]+)\(.*libc\.so", line)
    if m:
        a = int(m.group(1), 16)
        lows[forked] = a if lows[forked] is None else min(lows[forked], a)
sys.exit(not (None not in lows and lows[0] < lows[1]))' &&
    pass "unwind dwarf-forkexec.data: the parent's libc lies below the child's" ||
    fail "unwind dwarf-forkexec.data: the child's libc is not above its parent's (re-record it: testdata/dwarf/build.sh forkexec)"
same "dwarf-forkexec.data, inline frames" "$FE" --inline

# dwarf-datamap.data: the program maps its libc as data below the running
# one half way through; perf's libc lookups move to that map, and only
# the pcs in libunwind's cache (libparse/unwind_cache.c) still unwind.
DM="$ROOT/testdata/dwarf-datamap.data"
perf_run script --show-mmap-events -i "$DM" 2>/dev/null |
    python3 -c '
import re, sys
maps, samples = [], [0, 0]
for line in sys.stdin:
    m = re.search(r"PERF_RECORD_MMAP2 .*\[(0x[0-9a-f]+)\(.*\]: (\S+) .*libc\.so", line)
    if m:
        maps.append((int(m.group(1), 16), "x" in m.group(2)))
    elif "cpu-clock" in line:
        samples[any(not x for _, x in maps[5:])] += 1
code = [a for a, x in maps if x]
data = [a for a, x in maps[5:] if not x]
sys.exit(not (code and data and min(data) < min(code) and min(samples) > 20))' &&
    pass "unwind dwarf-datamap.data: libc mapped as data below the running libc, samples before and after" ||
    fail "unwind dwarf-datamap.data: no libc data map below the running libc between samples (re-record it: testdata/dwarf/build.sh datamap)"
same "dwarf-datamap.data, inline frames" "$DM" --inline

# dwarf-datareg.data: the first sample names the binary by its RELRO page,
# whose file page two PT_LOADs share (libparse/unwind_space.c); the load
# bias must be the one the binary's other maps agree with, or its frames
# have no CFI and every chain stops at walk().
DR="$ROOT/testdata/dwarf-datareg.data"
n=$(perf_run script -F ip,sym -i "$DR" 2>/dev/null | grep -c ' main$')
if [ "$n" -gt 40 ]; then
    pass "unwind dwarf-datareg.data: perf unwinds $n chains through main"
else
    fail "unwind dwarf-datareg.data: only $n chains reach main (re-record it: testdata/dwarf/build.sh datareg)"
fi
same "dwarf-datareg.data, inline frames" "$DR" --inline
same "dwarf-datareg.data, srcline" "$DR" -F +srcline
same "dwarf-datareg-lld.data (every map at offset 0)" "$ROOT/testdata/dwarf-datareg-lld.data" --inline

# -F iregs/uregs (cmd/script_regs.c): the registers as perf prints them,
# after the call chain or srcline; asked for where the samples have none,
# perf's error
C="$SHARED/corpus/captures"
same "dwarf-inline.data -F +uregs" "$ROOT/testdata/dwarf-inline.data" -F +uregs
same "dwarf-shlib.data -F comm,ip,sym,uregs,srcline" "$ROOT/testdata/dwarf-shlib.data" \
    -F comm,ip,sym,uregs,srcline
# --full-source-path: srcline with binutils' whole file names (DWARF 5
# libc's "./stdlib/./stdlib/msort.c", the programs' absolute ones)
same "dwarf-shlib.data -F +srcline --full-source-path" "$ROOT/testdata/dwarf-shlib.data" \
    -F +srcline --full-source-path
same "dwarf-inline.data -F comm,ip,sym,srcline --full-source-path" \
    "$ROOT/testdata/dwarf-inline.data" -F comm,ip,sym,srcline --full-source-path
same "cpuhog-fp.data -F +srcline --full-source-path" "$C/cpuhog-fp.data" -F +srcline --full-source-path
# --stop-bt ends a chain after the named frame, an inlined one too
same "dwarf-inline.data --stop-bt round_,fold_block" "$ROOT/testdata/dwarf-inline.data" \
    --stop-bt round_,fold_block
same "sample-fields.data -F +iregs,+uregs" "$C/sample-fields.data" -F +iregs,+uregs
same "sample-fields.data -F ip,sym,iregs" "$C/sample-fields.data" -F ip,sym,iregs
perf_run script -F +iregs -i "$C/cpuhog-fp.data" > /dev/null 2> "$TMPD/perf.err"
env -i PATH="$PATH" HOME="$TMPD/home" "$PERFSIFT" script -q -F +iregs "$C/cpuhog-fp.data" \
    > "$TMPD/ours.txt" 2> "$TMPD/ours.err"
if [ $? -ne 0 ] && [ ! -s "$TMPD/ours.txt" ] && grep -q "IREGS attribute" "$TMPD/perf.err" &&
   cmp -s "$TMPD/perf.err" "$TMPD/ours.err"; then
    pass "unwind cpuhog-fp.data -F +iregs: perf's error, no output"
else
    fail "unwind cpuhog-fp.data -F +iregs: $(head -c 200 "$TMPD/ours.err")"
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
