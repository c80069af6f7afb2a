#!/bin/bash
# build.sh - rebuild testdata/dwarf-inline.data, testdata/dwarf-shlib.data,
# testdata/dwarf-vdso.data, testdata/dwarf-nocfi.data and
# testdata/dwarf-forkexec.data, testdata/dwarf-datamap.data,
# testdata/dwarf-datareg.data, testdata/dwarf-clang.data,
# testdata/dwarf-lld.data, testdata/dwarf-split.data,
# testdata/dwarf-zgnu.data, testdata/nopie.data and the binaries they name
# (and the binary lambda, no capture);
# with arguments (inline, shlib, vdso, nocfi, forkexec, datamap, datareg,
# clang, lld, split, zgnu, nopie, lambda) only those. Run as root (perf record):
#   testdata/dwarf/build.sh [inline] [shlib] [vdso] [nocfi] [forkexec] [datamap] [datareg] [clang] [lld] [split] [zgnu] [nopie] [lambda]
# The sources are compiled inside /tmp/perfsift-dwarf (the path the captures
# record, and DW_AT_comp_dir, so nothing names the checkout), recorded there
# with perf 6.1 (an empty HOME, no build-id cache), then the binaries are
# copied here: tests/diff/lib.sh install_dwarf_bins puts them back before
# perf and perfsift read the captures. A rebuild gives new captures (other
# samples, times and pids): commit the binaries and captures together.
set -euo pipefail
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=/tmp/perfsift-dwarf
CFLAGS=(-O2 -g -fomit-frame-pointer)
mkdir -p "$OUT" /tmp/perfsift-dwarf-home
cp "$SRC"/inline.c "$SRC"/shlib.c "$SRC"/vdso.c "$SRC"/libwork.c "$SRC"/libwork.h \
   "$SRC"/nocfi.c "$SRC"/nocfi-asm.S "$SRC"/datamap.c "$SRC"/datareg.c "$SRC"/nopie.c \
   "$SRC"/nopie-cxx.c "$SRC"/lambda.cpp "$OUT"/
cd "$OUT"

rec() {         # name "perf record options" command...
    local out=$SRC/../dwarf-$1.data opts=$2
    shift 2
    rm -f "$out"        # else perf keeps the old one as $out.old
    # shellcheck disable=SC2086
    env -i PATH="$PATH" HOME=/tmp/perfsift-dwarf-home LC_ALL=C \
        PERF_CONFIG_NOSYSTEM=1 PERF_CONFIG_NOGLOBAL=1 \
        perf record -q -N $opts -o "$out" -- "$@" >/dev/null
    chmod 644 "$out"
    ls -l "$out"
}

build_inline() {
    gcc "${CFLAGS[@]}" -o inline inline.c
    rec inline "-F 300 --call-graph dwarf,4096" ./inline
    cp inline "$SRC"/
}

build_shlib() {
    gcc "${CFLAGS[@]}" -fPIC -shared -o libwork.so libwork.c -lm
    gcc "${CFLAGS[@]}" -o shlib shlib.c -L. -lwork -lm -Wl,-rpath,/tmp/perfsift-dwarf
    rec shlib "-F 300 --call-graph dwarf,8192" ./shlib
    cp shlib libwork.so "$SRC"/
}

# -B: no BUILD_ID feature, so perf's [vdso] is a copy of its own (the
# running kernel's), whose CFI it unwinds through
build_vdso() {
    gcc "${CFLAGS[@]}" -o vdso vdso.c
    rec vdso "-B -F 2000 --call-graph dwarf,4096" ./vdso
    cp vdso "$SRC"/
}

# Frame pointers, assembly without CFI and lazy PLT entries without ld's
# unwind info: pcs whose file has CFI but no FDE for them, where perf's
# libunwind guesses the caller (libparse/unwind.c, guess_caller())
build_nocfi() {
    gcc -O2 -g -fno-omit-frame-pointer -fno-builtin-abs -o nocfi nocfi.c nocfi-asm.S \
        -Wl,-z,lazy -Wl,--no-ld-generated-unwind-info
    rec nocfi "-F 2000 --call-graph dwarf,4096" ./nocfi
    cp nocfi "$SRC"/
}

# A shell forks and execs ./inline: in perf the child keeps a copy of the
# shell's maps, so its own ld.so and libc are looked up at the lowest map
# of each (libparse/unwind_base.c). Only a capture where that is the
# shell's (ASLR: about one run in two) shows it: re-run until this says so.
build_forkexec() {
    [ -x inline ] || gcc "${CFLAGS[@]}" -o inline inline.c
    rec forkexec "-F 300 --call-graph dwarf,4096" sh -c './inline; true'
    cp inline "$SRC"/
}

# libc mapped as data below the running libc half way through: perf's
# lookups move there, libunwind's cache keeps the pcs it had unwound
# (libparse/unwind_base.c, unwind_cache.c)
build_datamap() {
    gcc "${CFLAGS[@]}" -o datamap datamap.c
    rec datamap "-F 200 --call-graph dwarf,4096" ./datamap
    cp datamap "$SRC"/
}

# A register pointing into the binary's RELRO page, whose file page two
# PT_LOADs share, names the binary first (libparse/unwind_space.c). Only
# a capture whose first sample has its ip outside the binary shows it
# (about two runs in three): re-run until perfsift built without
# ps_unwind__load_bias()'s check stops the chains at walk().
build_datareg() {
    gcc "${CFLAGS[@]}" -o datareg datareg.c -lm
    rec datareg "-F 300 --call-graph dwarf,1024" ./datareg
    # lld puts all four segments in file page 0: every map is at offset 0
    gcc "${CFLAGS[@]}" -fuse-ld=lld -o datareg-lld datareg.c -lm
    rec datareg-lld "-F 300 --call-graph dwarf,1024" ./datareg-lld
    cp datareg datareg-lld "$SRC"/
}

# inline.c built by clang: no .debug_aranges, and inlined instances in
# pieces whose DW_AT_ranges is a DW_FORM_rnglistx, which binutils 2.40
# does not read (libparse/dwcu.c, dwfunc.c)
build_clang() {
    clang "${CFLAGS[@]}" -o inline-clang inline.c
    rec clang "-F 300 --call-graph dwarf,1024" ./inline-clang
    cp inline-clang "$SRC"/
}

# inline.c linked by lld: its segments sit a page past their file
# offsets, and perf hands addr2line addresses moved by .text's address -
# offset (libparse/sym_user.c, objdump_delta())
build_lld() {
    gcc "${CFLAGS[@]}" -fuse-ld=lld -o inline-lld inline.c
    rec lld "-F 300 --call-graph dwarf,1024" ./inline-lld
    cp inline-lld "$SRC"/
}

# inline.c with gcc's -gsplit-dwarf: the skeleton unit's DW_AT_ranges
# list takes its addresses from .debug_addr, which binutils 2.40 cannot
# read, so addr2line knows no line of the binary (libparse/dwcu.c). The
# .dwo is not kept: neither addr2line nor perfsift reads it.
build_split() {
    gcc "${CFLAGS[@]}" -gsplit-dwarf -o inline-split inline.c
    rec split "-F 300 --call-graph dwarf,1024" ./inline-split
    cp inline-split "$SRC"/
}

# inline.c with -gz=zlib-gnu: .zdebug_* sections; BFD 2.40 looks for
# .debug_rnglists as ".zdebug_rnglist", finds none, and gives up at the
# unit whose DW_AT_ranges needs it (libparse/dwcu.c)
build_zgnu() {
    gcc "${CFLAGS[@]}" -gz=zlib-gnu -o inline-zgnu inline.c
    rec zgnu "-F 300 --call-graph dwarf,1024" ./inline-zgnu
    cp inline-zgnu "$SRC"/
}

# Frame pointers (-g), not DWARF: a non-PIE executable linked at 0x10000
# whose hidden() has no .symtab entry, so its chain entries have no symbol
# and their raw addresses fall inside filler's file offsets (what perf's
# db-export looks them up with); nopie-cxx.c, without -g, holds a function
# with a C++ name (tests/folded/inline-cxxname.txt)
build_nopie() {
    local out=$SRC/../nopie.data
    gcc -O1 -fno-omit-frame-pointer -c nopie-cxx.c -o nopie-cxx.o
    gcc -O1 -g -fno-omit-frame-pointer -fno-toplevel-reorder -fno-reorder-functions \
        -no-pie -Wl,-Ttext-segment=0x10000 -o nopie nopie.c nopie-cxx.o
    objcopy --strip-symbol=hidden nopie
    rm -f "$out"
    env -i PATH="$PATH" HOME=/tmp/perfsift-dwarf-home LC_ALL=C \
        PERF_CONFIG_NOSYSTEM=1 PERF_CONFIG_NOGLOBAL=1 \
        perf record -q -N -g -F 500 -o "$out" -- ./nopie >/dev/null
    chmod 644 "$out"
    ls -l "$out"
    cp nopie "$SRC"/
}

# No capture: a C++ binary for tests/folded/inline-fresh.txt, whose
# lambda's inlined instance addr2line names differently on a first
# question (stackcollapse-perf.pl --inline runs addr2line per address)
build_lambda() {
    g++ -O2 -g -fomit-frame-pointer -o lambda lambda.cpp
    cp lambda "$SRC"/
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(inline shlib vdso nocfi forkexec datamap datareg clang lld split zgnu nopie lambda)
for t in "${targets[@]}"; do
    case $t in
    inline|shlib|vdso|nocfi|forkexec|datamap|datareg|clang|lld|split|zgnu|nopie|lambda) ;;
    *) echo "build.sh: unknown capture '$t' (inline, shlib, vdso, nocfi, forkexec, datamap, datareg, clang, lld," \
              "split, zgnu, nopie, lambda)" >&2; exit 2 ;;
    esac
done
for t in "${targets[@]}"; do
    "build_$t"
done
