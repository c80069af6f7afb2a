#!/bin/bash
# hostile.sh - captures made to hurt a reader (tests/tools/hostile.py makes
# them now): MMAPs naming a FIFO, devices, /proc files, a directory, a
# 100 GB sparse file and a symlink loop; a JIT map that is a FIFO;
# build-id file names climbing out of the build-id cache; call chains of
# 2^32-1 and 2^64-1 entries; a 65000-byte COMM; malformed tracing data; a
# zstd bomb; a NUMA node of 2^31-1 CPUs; a BTF blob whose strings are not
# terminated; a .gnu_debuglink naming a 100 GB file; a sparse kallsyms;
# 70000 mapped files (report). Every command must end within 10 s, under
# a 4 GiB address space (ulimit -v; not under ASan), with exit 0, or 1 and
# a message. A capture read through a FIFO.
# With strace (plain build): no FIFO opened without O_NONBLOCK, nothing
# opened under the build-id cache through "..", no device or /proc file
# opened but for reading symbols the kernel way (/proc/kallsyms, modules).
. "$(dirname "$0")/lib.sh"
H=$TMPD/h
mkdir -p "$H/dir" "$TMPD/home/.debug/.build-id"
mkfifo "$H/fifo"
truncate -s 100G "$H/huge"
ln -s "$H/loop" "$H/loop"
JITFIFO=/tmp/perf-4194301.map
rm -f "$JITFIFO"
mkfifo "$JITFIFO"
trap 'rm -rf "$TMPD"; rm -f "$JITFIFO"' EXIT
# a binary whose .gnu_debuglink names a 100 GB sparse file beside it (its
# CRC was read whole for srcline)
mkdir -p "$H/dl"
: > "$H/dl/true.debug"
objcopy --remove-section=.gnu_debuglink --add-gnu-debuglink="$H/dl/true.debug" \
    /bin/true "$H/dl/true" 2> /dev/null && truncate -s 100G "$H/dl/true.debug"
PATHS=("$H/fifo" "$H/dir" "$H/huge" "$H/loop" /dev/zero /dev/urandom /dev/null /dev/tty
       /proc/kmsg /proc/self/mem /proc/kcore /proc/self/pagemap /proc/self/fd/0 /sys/kernel
       "$H/dl/true")
python3 "$ROOT/tests/tools/hostile.py" "$H/caps" "${PATHS[@]}" || fail "hostile: generator failed"
SAN=0 LIMIT=10
# ASan runs these 5-10x slower, beside other test files: a hang still shows
[ "${SCRIPT_SETS:-all}" = sanitize ] && SAN=1 LIMIT=40

run_one() {     # capture, command words...: bounded run, exit 0 or 1 with a message
    local cap=$1 rc
    shift
    (
        [ $SAN = 1 ] || ulimit -v 4194304
        cd "$TMPD" && HOME=$TMPD/home timeout $LIMIT "$PERFSIFT" "$@" "$cap" < /dev/null > /dev/null 2> "$TMPD/err"
    )
    rc=$?
    if [ $rc = 0 ] || { [ $rc = 1 ] && [ -s "$TMPD/err" ]; }; then
        return 0
    fi
    echo "  $(basename "$cap") $*: exit $rc $( [ $rc = 124 ] && echo "(over $LIMIT s)"): $(head -c 300 "$TMPD/err")"
    return 1
}

for cap in "$H"/caps/*.data; do
    bad=0
    for cmd in "info" "info --header" "dump" "script" "script -F +srcline" "folded --all" "json" \
               "sqlite -f -o $TMPD/out.db"; do
        # shellcheck disable=SC2086
        run_one "$cap" $cmd || bad=1
    done
    if [ $bad = 0 ]; then
        pass "hostile $(basename "$cap"): every command ends in time with exit 0 or 1 and a message"
    else
        fail "hostile $(basename "$cap")"
    fi
done

# a BTF blob libbpf would reject (no NUL ends its strings) names no
# program: the name was read on past the blob
if [ -f "$H/caps/bpf-btf-open.data" ]; then
    if "$PERFSIFT" info --header "$H/caps/bpf-btf-open.data" 2> /dev/null |
       grep -qa '^# bpf_prog_info 120: bpf_prog_59f4a931744dcdc6_corpus_prog0 addr'; then
        pass "hostile bpf-btf-open: a BTF string section without its NUL is not used"
    else
        fail "hostile bpf-btf-open: $("$PERFSIFT" info --header "$H/caps/bpf-btf-open.data" 2>&1 |
             grep -a 'bpf_prog_info 120' | head -c 200)"
    fi
fi

# 70000 files mapped: report within the time limit (it was quadratic)
if run_one "$H/caps/big/many-dsos.data" report --stdio; then
    pass "hostile many-dsos: report of 70000 mapped files ends in time"
else
    fail "hostile many-dsos"
fi

# a kallsyms file of 2 GB of holes: one line of NULs, read up to the
# 1 GiB text cap a buffer at a time (a byte at a time took 0.9 s of CPU);
# the user CPU time is measured, not the wall time of the kernel's
# zeroing of the holes
truncate -s 2G "$H/kallsyms.sparse"
KLIMIT=0.4
[ $SAN = 1 ] && KLIMIT=5
TIMEFORMAT=%U
cpu=$( { time HOME=$TMPD/home timeout $LIMIT "$PERFSIFT" script --kallsyms "$H/kallsyms.sparse" \
           "$SHARED/corpus/captures/cpuhog-fp.data" > /dev/null 2> "$TMPD/err"; } 2>&1 )
rc=$?
if [ $rc = 0 ] && awk -v t="$cpu" -v l=$KLIMIT 'BEGIN { exit !(t < l) }'; then
    pass "hostile kallsyms of 2 GB of holes: read in $cpu s of CPU"
else
    fail "hostile kallsyms of 2 GB of holes: exit $rc, $cpu s of CPU (over $KLIMIT s?)"
fi

# a capture named as a FIFO is read once: report looked at it before its
# run and then waited for a second writer forever
CAP=$SHARED/corpus/captures/cpuhog-fp.data
"$PERFSIFT" report --stdio --children < "$CAP" - > "$TMPD/want" 2> /dev/null
mkfifo "$H/cap.fifo"
cat "$CAP" > "$H/cap.fifo" &
HOME=$TMPD/home timeout $LIMIT "$PERFSIFT" report --stdio --children "$H/cap.fifo" \
    > "$TMPD/got" 2> "$TMPD/err"
rc=$?
kill $! 2> /dev/null
if [ $rc = 0 ] && cmp -s "$TMPD/want" "$TMPD/got"; then
    pass "hostile report of a FIFO: read once, as standard input"
else
    fail "hostile report of a FIFO: exit $rc $(head -c 200 "$TMPD/err")"
fi

# what was opened (plain builds: strace and ASan do not mix well)
if command -v strace >/dev/null && [ $SAN = 0 ]; then
    for cap in mmap-paths jit-fifo buildid-dots; do
        HOME=$TMPD/home timeout 20 strace -f -qq -e trace=open,openat -o "$TMPD/trace" \
            "$PERFSIFT" script -F +srcline "$H/caps/$cap.data" < /dev/null > /dev/null 2>&1
        bad=$(grep -E "\"($H/fifo|$JITFIFO)\"" "$TMPD/trace" | grep -v O_NONBLOCK)
        bad+=$(grep -E "\"$TMPD/home/\.debug[^\"]*/\.\./" "$TMPD/trace")
        bad+=$(grep -E '"(/dev/(zero|urandom|tty)|/proc/(kmsg|self/mem|kcore|self/pagemap))"' \
               "$TMPD/trace" | grep -v ENOENT)
        if [ -z "$bad" ]; then
            pass "hostile $cap: no blocking FIFO open, no '..' under the build-id cache, no device read"
        else
            fail "hostile $cap: opened: $(echo "$bad" | head -n 5)"
        fi
    done
else
    echo "SKIP hostile open checks: no strace, or a sanitizer build"
fi
finish
