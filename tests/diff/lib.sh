# lib.sh - shared by the differential tests (sourced, not run).
# PERFSIFT: the binary under test. SHARED: ../shared beside the checkout.
# perf runs with no config, an empty HOME (no build-id cache) and LC_ALL=C,
# as the corpus oracles were made.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$here/../.." && pwd)
PERFSIFT=${PERFSIFT:-$ROOT/perfsift}
SHARED=${PS_SHARED:-$(cd "$ROOT/../shared" 2>/dev/null && pwd)}
export PS_SHARED=$SHARED
TMPD=$(mktemp -d /tmp/perfsift-diff.XXXXXX)
mkdir -p "$TMPD/home"
trap 'rm -rf "$TMPD"' EXIT
nfail=0

perf_run() {    # perf with a clean environment; stdout as perf prints it
    env -i PATH="$PATH" HOME="$TMPD/home" LC_ALL=C TZ=UTC PERF_PAGER=cat \
        PERF_CONFIG_NOSYSTEM=1 PERF_CONFIG_NOGLOBAL=1 perf "$@"
}

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; nfail=$((nfail + 1)); }

# Every capture of the project and of shared/: testdata/, the corpus
# (captures, edge, endian) and the external captures (from their manifest).
# PS_SHARD=i/n (set by tests/run.sh for the long files) keeps every n-th
# capture from the i-th on, so that n processes share one file's work.
# Under SANITIZE (SCRIPT_SETS=sanitize) every other external capture: the
# sanitizer run looks for memory errors within CI's time (the plain run
# compares them all with perf; mutate.sh and the fuzzers cover the rest).
all_captures() {
    local shard=${PS_SHARD:-0/1} half=0
    [ "${SCRIPT_SETS:-}" = sanitize ] && half=1
    every_capture | awk -v i="${shard%/*}" -v n="${shard#*/}" -v half="$half" \
        -v ext="$SHARED/external/" '
        index($0, ext) == 1 && half && (x++ % 2) { next }
        (k++ % n) == i'
}
# The checks of a sharded file that are not per capture run in shard 0 only.
first_shard() { case ${PS_SHARD:-0/1} in 0/*) return 0 ;; esac; return 1; }
every_capture() {
    ls -d "$ROOT"/testdata/*.data 2>/dev/null
    ls -d "$SHARED"/corpus/captures/*.data "$SHARED"/corpus/edge/*.data \
          "$SHARED"/corpus/endian/*.data
    python3 - "$SHARED/external/manifest.json" <<'PY'
import json, sys, os
base = os.path.dirname(sys.argv[1])
for e in json.load(open(sys.argv[1])):
    if e.get("kind") == "capture":
        print(os.path.join(base, e["file"]))
PY
}

require_perf() {
    if ! command -v perf >/dev/null; then
        fail "perf-installed: perf is not installed (make deps)"
        exit 1
    fi
}

# The binaries testdata/dwarf-*.data were recorded from, back at the path
# the captures name (testdata/dwarf/build.sh made them there).
# install_bin SRC DST: an executable copy of SRC at DST for captures that
# name that path. Test scripts run side by side and read these files: one
# already there is left alone, and a new one appears whole (a rename), never
# truncated under a reader.
install_bin() {
    mkdir -p "$(dirname "$2")"
    cmp -s "$1" "$2" && return 0
    cp "$1" "$2.tmp.$$" && chmod +x "$2.tmp.$$" && mv -f "$2.tmp.$$" "$2"
}
install_dwarf_bins() {
    local b
    for b in inline inline-clang inline-lld inline-split inline-zgnu shlib vdso nocfi datamap datareg \
             datareg-lld nopie libwork.so lambda; do
        install_bin "$ROOT/testdata/dwarf/$b" "/tmp/perfsift-dwarf/$b"
    done
}

finish() { [ "$nfail" -eq 0 ]; exit $?; }
