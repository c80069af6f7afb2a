#!/bin/bash
# build.sh - rebuild testdata/dwarf-inline.data and testdata/dwarf-shlib.data
# and the binaries they name. Run as root (perf record), from anywhere:
#   testdata/dwarf/build.sh
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
cp "$SRC"/inline.c "$SRC"/shlib.c "$SRC"/libwork.c "$SRC"/libwork.h "$OUT"/
cd "$OUT"

gcc "${CFLAGS[@]}" -o inline inline.c
gcc "${CFLAGS[@]}" -fPIC -shared -o libwork.so libwork.c -lm
gcc "${CFLAGS[@]}" -o shlib shlib.c -L. -lwork -lm -Wl,-rpath,/tmp/perfsift-dwarf

rec() {         # output stack-size command...
    local out=$1 size=$2
    shift 2
    rm -f "$out"        # else perf keeps the old one as $out.old
    env -i PATH="$PATH" HOME=/tmp/perfsift-dwarf-home LC_ALL=C \
        PERF_CONFIG_NOSYSTEM=1 PERF_CONFIG_NOGLOBAL=1 \
        perf record -q -N -F 300 --call-graph "dwarf,$size" -o "$out" -- "$@" >/dev/null
}
rec "$SRC/../dwarf-inline.data" 4096 ./inline
rec "$SRC/../dwarf-shlib.data" 8192 ./shlib

chmod 644 "$SRC/../dwarf-inline.data" "$SRC/../dwarf-shlib.data"
cp inline shlib libwork.so "$SRC"/
ls -l "$SRC/../dwarf-inline.data" "$SRC/../dwarf-shlib.data"
