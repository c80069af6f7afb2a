#!/bin/bash
# srcline.sh - libparse's in-process addr2line (srcline.c: libdw plus
# binutils 2.40's own rules) answers exactly what `addr2line -a -i -f`
# (binutils, what perf 6.1 runs for srcline and inline frames) prints, on
# many addresses of many files: the testdata/dwarf binaries, the corpus
# workloads, programs built now (C and C++ at -O0/-O2 with DWARF 4 and 5,
# template-heavy C++, no debug info, assembly with aliases), stripped
# system libraries (through their separate debug files), and the debug
# files under
# /usr/lib/debug (libc6-dbg: DWARF 5 from headers, gas aliases, compressed
# sections binutils refuses; the big ones and a sample of the others).
# Addresses: inside function symbols, and a few
# anywhere in each file's executable sections. File names compare whole
# (perf prints them whole with --full-source-path).
source "$(dirname "$0")/lib.sh"
if ! command -v addr2line >/dev/null; then
    fail "srcline-deps: addr2line (binutils) is not installed; run 'make deps'"
    finish
fi
CC=${CC:-cc}
san=
[ "$BUILD" = build-san ] && san="-fsanitize=address,undefined"
T=$TMPD
if ! $CC -std=c11 -Wall -Wextra -Werror $san -o "$T/a2l" "$ROOT/tests/tools/a2l.c" \
        "$ROOT/${BUILD:-build}/libperfsift.a" \
        $(pkg-config --libs libtraceevent jansson sqlite3 libelf libdw libzstd zlib) -liberty \
        2> "$T/cc.err"; then
    fail "srcline-tools: tests/tools/a2l.c does not build: $(head -c 300 "$T/cc.err")"
    finish
fi

# Programs made here, so the compilers' current output is covered too.
build_programs() {
    cat > "$T/h.h" <<'EOF'
static inline __attribute__((always_inline)) int mix(int x) { return (x * 31) ^ (x >> 3); }
static inline int step(int x) { return mix(x) + mix(x + 1); }
static __attribute__((noinline)) int hot(int n) { int s = 0; for (int i = 0; i < n; i++) s += step(i); return s; }
EOF
    cat > "$T/m.c" <<'EOF'
#include "h.h"
int main(int argc, char **argv) { (void)argv; return hot(argc * 1000) & 1; }
EOF
    cat > "$T/t.cc" <<'EOF'
#include <algorithm>
#include <map>
#include <string>
#include <vector>
namespace ns {
template <typename T> struct Acc {
    T v{};
    void add(T x) { v += x * 3; }
    __attribute__((noinline)) T get() const { return v; }
};
struct S { virtual ~S() {} virtual int f(int x) { return x + 1; } };
}
static inline int sq(int x) { return x * x; }
int work(std::vector<int> &v) {
    ns::Acc<long> a;
    std::sort(v.begin(), v.end());
    for (int x : v) a.add(sq(x));
    std::map<std::string, int> m;
    m["a"] = (int)a.get();
    ns::S s;
    return m["a"] + s.f(2);
}
int main() { std::vector<int> v{3, 1, 2}; return work(v) & 1; }
EOF
    # templates without linkage names on their DIEs: binutils settles
    # their names as queries come (srcline.c innermost_name)
    cat > "$T/rx.cc" <<'EOF'
#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <vector>
int main(int argc, char **argv) {
    std::vector<std::string> lines;
    for (int i = 0; i < 50 * argc; i++)
        lines.push_back("user" + std::to_string(i) + "@host.example.com id=" + std::to_string(i));
    std::regex re(R"(([a-z]+)(\d+)@([a-z]+)\.example\.com id=(\d+))");
    std::map<std::string, long> counts;
    for (auto &l : lines) {
        std::smatch m;
        if (std::regex_match(l, m, re))
            counts[m[3].str()] += std::stol(m[4].str());
    }
    std::sort(lines.begin(), lines.end(), [](const std::string &a, const std::string &b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b; });
    return (int)counts.size() + (argv[0][0] == 'x');
}
EOF
    cat > "$T/a.S" <<'EOF'
        .text
        .globl  fn_a
        .type   fn_a, @function
        .globl  fn_b
        .type   fn_b, @function
        .set    fn_c, fn_a
        .type   fn_c, @function
fn_a:
fn_b:
        nop
        nop
        ret
        .size   fn_a, .-fn_a
        .size   fn_b, .-fn_b
        .globl  main
        .type   main, @function
main:
        call    fn_a
        xorl    %eax, %eax
        ret
        .size   main, .-main
        .section .note.GNU-stack,"",@progbits
EOF
    local v o
    for v in 4 5; do
        for o in 0 2; do
            $CC -O$o -gdwarf-$v -o "$T/c$v$o" "$T/m.c" &&
                g++ -O$o -gdwarf-$v -o "$T/cc$v$o" "$T/t.cc" || return 1
        done
    done
    # clang: no .debug_aranges, inlined instances with DW_FORM_rnglistx ranges
    if command -v clang >/dev/null; then
        clang -O2 -g -o "$T/k52" "$T/m.c" && clang++ -O2 -g -o "$T/kk52" "$T/t.cc" || return 1
    fi
    # gcc -gz=zlib-gnu: .zdebug_* sections, which BFD inflates
    $CC -O0 -g -gz=zlib-gnu -o "$T/zgnu0" "$T/m.c" || return 1
    $CC -O2 -g -gz=zlib-gnu -o "$T/zgnu2" "$T/m.c" || return 1
    # split DWARF 5: a skeleton unit binutils cannot read (libparse/dwcu.c)
    (cd "$T" && $CC -O2 -g -gsplit-dwarf -o split m.c) || return 1
    $CC -O2 -o "$T/nodebug" "$T/m.c" && $CC -g -o "$T/asm" "$T/a.S" &&
        g++ -O2 -g -o "$T/regex" "$T/rx.cc"
}

# Addresses: three inside each sized function symbol (at most $2 in all),
# plus a few anywhere in executable sections.
addresses() {   # FILE MAX [SYMBOL-FILE]
    python3 - "$1" "$2" "${3:-$1}" <<'PY'
import random, subprocess, sys
random.seed(4)
f, n, symf = sys.argv[1], int(sys.argv[2]), sys.argv[3]
addrs = set()
out = subprocess.run(["nm", "-S", "--defined-only", symf], capture_output=True, text=True).stdout
if not out.strip():
    out = subprocess.run(["nm", "-D", "-S", "--defined-only", symf], capture_output=True, text=True).stdout
for l in out.splitlines():
    p = l.split()
    if len(p) == 4 and p[2] in "tTwWiI" and int(p[1], 16) > 0:
        a, s = int(p[0], 16), int(p[1], 16)
        addrs.update(a + random.randrange(s) for _ in range(3))
secs = subprocess.run(["readelf", "-SW", f], capture_output=True, text=True).stdout
for l in secs.splitlines():
    p = l.replace("[ ", "[").split()
    if len(p) > 7 and "X" in p[7] and p[1].startswith("."):
        lo, sz = int(p[3], 16), int(p[5], 16)
        if sz:
            addrs.update(lo + random.randrange(sz) for _ in range(5))
addrs = sorted(addrs)
if len(addrs) > n:
    addrs = sorted(random.sample(addrs, n))
print("\n".join("%x" % a for a in addrs))
PY
}

# addr2line's lines without the discriminators (perf drops them too).
normalize() {
    sed -E -e 's/ \(discriminator [0-9]+\)$//'
}

compare() {     # FILE LABEL MAX [SYMBOL-FILE]
    local n
    addresses "$1" "$3" "${4:-}" > "$T/addrs"
    n=$(wc -l < "$T/addrs")
    addr2line -a -i -f -e "$1" < "$T/addrs" 2>/dev/null | normalize > "$T/theirs"
    "$T/a2l" "$1" < "$T/addrs" | normalize > "$T/ours"
    if [ "$n" -gt 0 ] && cmp -s "$T/theirs" "$T/ours"; then
        pass "srcline $2: $n addresses as addr2line"
    else
        fail "srcline $2: $(diff "$T/theirs" "$T/ours" | grep -c '^>') lines differ from addr2line ($n addresses)"
        diff "$T/theirs" "$T/ours" | head -6
    fi
}

if ! build_programs 2> "$T/build.err"; then
    fail "srcline-programs: the test programs do not build: $(head -c 300 "$T/build.err")"
    finish
fi
for p in c40 c42 c50 c52 cc40 cc42 cc50 cc52 nodebug asm split zgnu0 zgnu2; do
    compare "$T/$p" "$p" 400
done
for p in k52 kk52; do
    [ -f "$T/$p" ] && compare "$T/$p" "$p (clang)" 400
done
compare "$T/regex" regex 4000
for p in inline inline-clang inline-lld inline-split inline-zgnu shlib libwork.so; do
    compare "$ROOT/testdata/dwarf/$p" "testdata/dwarf/$p" 400
done
for p in "$SHARED"/corpus/symfs/tmp/perfcorpus/bin/*; do
    [ -f "$p" ] && compare "$p" "corpus/$(basename "$p")" 200
done
# stripped libraries: addr2line follows their build-id (or debuglink) to
# the separate debug file; libstdc++ has none (dynamic symbols only)
for lib in libc.so.6 libm.so.6 libstdc++.so.6; do
    f=$(readlink -f /usr/lib/x86_64-linux-gnu/$lib)
    [ -f "$f" ] || continue
    bid=$(readelf -n "$f" 2>/dev/null | awk '/Build ID/ {print $3}')
    dbg=/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug
    [ -f "$dbg" ] || dbg=$f
    compare "$f" "stripped $lib" 1500 "$dbg"
done
# the separate debug files (libc6-dbg and whatever else is installed):
# every big one with many addresses, every 16th small one (time)
ndebug=0
for d in /usr/lib/debug/.build-id/*/*.debug; do
    [ -f "$d" ] || continue
    ndebug=$((ndebug + 1))
    if [ "$(stat -c %s "$d")" -gt 1000000 ]; then
        compare "$d" "${d#/usr/lib/debug/.build-id/}" 3000
    elif [ $((ndebug % 16)) -eq 1 ]; then
        compare "$d" "${d#/usr/lib/debug/.build-id/}" 100
    fi
done
if [ "$ndebug" -eq 0 ]; then
    fail "srcline-debug-files: no /usr/lib/debug/.build-id files (install libc6-dbg: make deps)"
fi
finish
