/* SPDX-License-Identifier: MIT */
/*
 * test_symbols.c - unit tests of symbols.c. ELF fixtures are built now with
 * the system compiler in a mkdtemp() directory (C with aliases, weak, local,
 * label, zero-size and data symbols, PLT calls and Rust/Java/OCaml names; a
 * C++ program; a stripped one; a debuglink pair), and looked up at the
 * offsets nm and the program headers give. Expected names and offsets are
 * what perf 6.1 printed for the same inputs (checked with synthetic
 * captures): alias choice, fixup_end, the PLT slots, demangling, build-id
 * rules, the JIT map parser's edge cases and its tree's choice among
 * overlapping symbols, kallsyms relocation and module hand-out, and the
 * kernel warning. Hostile paths (FIFO, directory, device, missing, corrupt
 * ELF) must give no symbols, quickly.
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"
#include "../../libparse/symbols.h"

#define JIT_PID   4000000123u           /* no real process has it */
#define KBASE     UINT64_C(0xffffffff81000000)

static char dir[64];
static int have_cc, have_cxx;

/* ---- fixtures --------------------------------------------------------- */

static const char c_src[] =
"#include <stdio.h>\n"
"int gvar = 3; static int svar;\n"
"__attribute__((noinline)) int foo(int x) { return x * 3 + svar; }\n"
"int bar(int x) __attribute__((weak, alias(\"foo\")));\n"
"int __foo_impl(int x) __attribute__((alias(\"foo\")));\n"
"static __attribute__((noinline)) int sfun(int x) { return x + gvar; }\n"
"__attribute__((weak, noinline)) int wfun(int x) { return x - 1; }\n"
"asm(\".text\\n.globl asmfn\\n.type asmfn,@function\\nasmfn:\\n nop\\n nop\\n"
"asm_label:\\n nop\\n ret\\n.globl zerofn\\n.type zerofn,@function\\nzerofn:\\n"
" nop\\n ret\\n nop\\n nop\\n.globl endfn\\n.type endfn,@function\\nendfn:\\n ret\\n"
".size endfn,1\\n\");\n"
"#define F(n) asm(\".globl \\\"\" n \"\\\"\\n"
".type \\\"\" n \"\\\",@function\\n\\\"\" n \"\\\": ret\\n"
".size \\\"\" n \"\\\",1\\n\")\n"
"F(\"_ZN4core3fmt5write17h0123456789abcdefE\");\n"
"F(\"_ZN3foo3bar17h0123456789abcde0E@@VERS\");\n"
"F(\"Lcom/x/Y;z([[Lq/R;)I\");\n"
"F(\"Lbad/Cls;(x)V\");\n"
"F(\"camlFoo__bar_123\");\n"
"F(\"camlStd$2eList__map_42\");\n"
"int main(int argc, char **argv) { (void)argv;"
" printf(\"%d\\n\", foo(argc) + bar(1) + sfun(2) + wfun(3));"
" puts(\"x\"); return 0; }\n";

static const char cxx_src[] =
"#include <cstdio>\n"
"namespace ns { struct K { K(int v) : v(v) {} __attribute__((noinline)) long work(long x)"
" { return x * v; } int v; }; }\n"
"int main(int argc, char **) { ns::K k(argc); std::printf(\"%ld\\n\", k.work(2)); return 0; }\n";

static const char ks1[] =
"ffffffff90000000 T _text\n"
"ffffffff90000000 T _stext\n"
"ffffffff90000100 t local_fn\n"
"ffffffff90000200 W weak_fn\n"
"ffffffff90000300 w lweak\n"
"ffffffff90000400 D data_obj\n"
"ffffffff90000500 r rodata_obj\n"
"ffffffff90000600 T last_text\n"
"ffffffffa0001000 t mod_fn\t[mymod]\n"
"ffffffffa0001100 T mod_fn2\t[mymod]\n"
"ffffffffc0005000 t other_fn\t[othermod]\n";

static void rm_dir(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_symbols: could not remove %s\n", dir);
}

static const char *tpath(const char *name)
{
    static char buf[8][256];
    static int k;

    k = (k + 1) % 8;
    snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
    return buf[k];
}

static int sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    return system(cmd);
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (f == NULL)
        return -1;
    fputs(text, f);
    return fclose(f);
}

static void setup(void)
{
    strcpy(dir, "/tmp/perfsift-symtest.XXXXXX");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
    atexit(rm_dir);
    write_file(tpath("a.c"), c_src);
    write_file(tpath("k.cc"), cxx_src);
    write_file(tpath("ks1"), ks1);
    have_cc = sh("cd %s && cc -O1 -o a a.c 2>/dev/null && cc -O1 -s -rdynamic -o a_strip a.c"
                 " && cp a a_dl_full && objcopy --only-keep-debug a_dl_full a.dbg"
                 " && objcopy --strip-all --add-gnu-debuglink=a.dbg a_dl_full a_dl"
                 " && mkdir -p sub/.debug && mv a.dbg sub/.debug/ && mv a_dl sub/", dir) == 0;
    have_cxx = sh("cd %s && g++ -O1 -o k k.cc 2>/dev/null", dir) == 0;
    if (!have_cc)
        fprintf(stderr, "test_symbols: cc/objcopy missing: ELF fixtures fail\n");
    if (!have_cxx)
        fprintf(stderr, "test_symbols: no g++: C++ fixture skipped\n");
}

/* ---- helpers ---------------------------------------------------------- */

/* The value of a symbol as nm sees it (.symtab, else .dynsym). */
static int nm_value(const char *file, const char *sym, uint64_t *value)
{
    char cmd[512], line[1024], name[512], type;
    unsigned long long v;
    FILE *p;
    int found = 0;

    snprintf(cmd, sizeof(cmd), "nm --defined-only '%s' 2>/dev/null;"
             " nm -D --defined-only '%s' 2>/dev/null", file, file);
    if ((p = popen(cmd, "r")) == NULL)
        return -1;
    while (!found && fgets(line, sizeof(line), p) != NULL)
        if (sscanf(line, "%llx %c %511s", &v, &type, name) == 3 && strcmp(name, sym) == 0) {
            *value = v;
            found = 1;
        }
    pclose(p);
    return found ? 0 : -1;
}

/* vaddr -> file offset through the PT_LOAD holding it. */
static uint64_t file_off(const char *file, uint64_t vaddr)
{
    int fd = open(file, O_RDONLY);
    uint64_t off = vaddr;
    size_t i, n;
    GElf_Phdr ph;
    Elf *e;

    if (fd < 0)
        return vaddr;
    elf_version(EV_CURRENT);
    if ((e = elf_begin(fd, ELF_C_READ, NULL)) != NULL && elf_getphdrnum(e, &n) == 0)
        for (i = 0; i < n; i++)
            if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
                vaddr < ph.p_vaddr + ph.p_memsz)
                off = vaddr - ph.p_vaddr + ph.p_offset;
    if (e)
        elf_end(e);
    close(fd);
    return off;
}

/* .plt's file offset and entry size. */
static int plt_of(const char *file, uint64_t *off, uint64_t *ent)
{
    int fd = open(file, O_RDONLY), rc = -1;
    Elf_Scn *sec = NULL;
    GElf_Shdr sh;
    size_t str;
    Elf *e;

    if (fd < 0)
        return -1;
    elf_version(EV_CURRENT);
    if ((e = elf_begin(fd, ELF_C_READ, NULL)) != NULL && elf_getshdrstrndx(e, &str) == 0)
        while ((sec = elf_nextscn(e, sec)) != NULL)
            if (gelf_getshdr(sec, &sh) && strcmp(elf_strptr(e, str, sh.sh_name), ".plt") == 0) {
                *off = sh.sh_offset;
                *ent = sh.sh_entsize;
                rc = 0;
            }
    if (e)
        elf_end(e);
    close(fd);
    return rc;
}

static int file_build_id_hex(const char *file, uint8_t bid[20])
{
    char cmd[512], line[512], hex[64];
    FILE *p;
    int i, rc = -1;

    snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", file);
    if ((p = popen(cmd, "r")) == NULL)
        return -1;
    while (fgets(line, sizeof(line), p) != NULL)
        if (sscanf(line, " Build ID: %63s", hex) == 1 && strlen(hex) == 40) {
            for (i = 0; i < 20; i++) {
                unsigned v;

                sscanf(hex + 2 * i, "%2x", &v);
                bid[i] = (uint8_t)v;
            }
            rc = 0;
        }
    pclose(p);
    return rc;
}

static ps_map mk_map(int kind, uint64_t start, uint64_t len, uint64_t pgoff, const char *file)
{
    ps_map m;

    memset(&m, 0, sizeof(m));
    m.kind = kind;
    m.start = start;
    m.end = start + len;
    m.pgoff = pgoff;
    m.filename = file;
    m.pid = m.tid = 100;
    m.is_mmap2 = 1;
    m.prot = 5;
    m.time_end = UINT64_MAX;
    return m;
}

typedef struct feats {
    ps_features      f;
    ps_feat_build_id e[4];
} feats;

static void add_bid(feats *x, uint16_t misc, const char *file, const uint8_t *bid, uint8_t size)
{
    ps_feat_build_id *e = &x->e[x->f.build_ids.nr++];

    x->f.present[PS_HEADER_BUILD_ID / 64] |= UINT64_C(1) << (PS_HEADER_BUILD_ID % 64);
    memset(e, 0, sizeof(*e));
    e->misc = misc;
    e->pid = -1;
    memcpy(e->build_id, bid, size);
    e->size = size;
    e->filename = file;
    x->f.build_ids.entries = x->e;
}

static ps_symbols *syms_new(const ps_features *f, const char *kallsyms, const char *symfs,
                            int demangle)
{
    ps_symbols_opts o;
    ps_symbols *s = NULL;
    ps_error err;

    memset(&o, 0, sizeof(o));
    o.kallsyms = kallsyms;
    o.symfs = symfs;
    o.buildid_dir = tpath("cache");
    o.demangle = demangle;
    CHECK(ps_symbols__new(&s, &o, f, &err) == PS_OK && s != NULL);
    return s;
}

/* "name+0xoff" (or "[unknown]"), the dso in *dso. */
static const char *lookup(ps_symbols *s, const ps_map *m, uint64_t addr, const char **dso)
{
    static char buf[4][512];
    static int k;
    ps_resolved r;

    k = (k + 1) % 4;
    ps_symbols__resolve(s, m, 100, addr, &r);
    if (dso)
        *dso = r.dso;
    if (r.sym == NULL)
        snprintf(buf[k], sizeof(buf[k]), "[unknown]");
    else
        snprintf(buf[k], sizeof(buf[k]), "%s+0x%" PRIx64, r.sym->name, r.symoff);
    return buf[k];
}

#define BASE UINT64_C(0x7f0000000000)

/* The symbol at file offset off of an ELF map at BASE, pgoff 0. */
static const char *at_off(ps_symbols *s, const ps_map *m, uint64_t off)
{
    return lookup(s, m, BASE + off, NULL);
}

static uint64_t sym_off(const char *file, const char *sym)
{
    uint64_t v = 0;

    CHECK(nm_value(file, sym, &v) == 0);
    return file_off(file, v);
}

/* ---- tests ------------------------------------------------------------ */

static const char jit_map[] =
"1000 10 plain\n0x2000 0x10 prefixed\n3000 0 zerosize\n4000 20 first\n4000 20 second\n"
"4008 8 inner\nABCD 10 upper\n5000  10 twospace\n6000\t10 tab\n7000 10 \n8000 10 x\n"
"9000 10 ab\n a000 10 leadspace\n-1 10 neg\nb000 10 sym with spaces\nc000 10 last";

static void test_jit_map_parsing(void)
{
    char path[64];
    ps_symbols *s = syms_new(NULL, NULL, NULL, 1);
    ps_map m = mk_map(PS_MAP_ANON, 0, 0x10000, 0, "//anon");
    const char *dso = NULL;
    static const struct { uint64_t a; const char *want; } cases[] = {
        { 0x1000, "plain+0x0" }, { 0x100f, "plain+0xf" }, { 0x1010, "[unknown]" },
        { 0x2008, "prefixed+0x8" }, { 0x3000, "zerosize+0x0" }, { 0x3001, "[unknown]" },
        /* overlapping entries: perf's tree walk meets "first" */
        { 0x4000, "first+0x0" }, { 0x4008, "first+0x8" }, { 0x400c, "first+0xc" },
        { 0x4018, "first+0x18" }, { 0xabd0, "upper+0x3" }, { 0x5004, "twospace+0x4" },
        { 0x6004, "tab+0x4" },
        /* names shorter than 3 bytes are skipped */
        { 0x7000, "[unknown]" }, { 0x8004, "[unknown]" }, { 0x9004, "[unknown]" },
        { 0xa004, "leadspace+0x4" }, { 0xb004, "sym with spaces+0x4" },
        { 0xc00f, "las+0xf" },                  /* the last byte is always cut */
    };
    size_t i;

    if (!s) return;
    snprintf(path, sizeof(path), "/tmp/perf-%u.map", JIT_PID);
    CHECK(write_file(path, jit_map) == 0);
    m.pid = JIT_PID;
    m.prot = 7;
    for (i = 0; i < PS_ARRAY_SIZE(cases); i++) {
        const char *got = lookup(s, &m, cases[i].a, &dso);

        if (strcmp(got, cases[i].want) != 0)
            fprintf(stderr, "  jit %#" PRIx64 ": got %s want %s\n", cases[i].a, got, cases[i].want);
        CHECK(strcmp(got, cases[i].want) == 0);
    }
    snprintf(path, sizeof(path), "/tmp/perf-%u.map", JIT_PID);
    CHECK(strcmp(dso, path) == 0);
    unlink(path);
    ps_symbols__free(s);
}

/* A zero-size symbol hit at its start: perf offsets it from the map start. */
static void test_zero_size_symoff(void)
{
    char path[64];
    ps_symbols *s = syms_new(NULL, NULL, NULL, 1);
    ps_map m = mk_map(PS_MAP_ANON, 0x100, 0x10000, 0, "/dev/zero");
    ps_resolved r;

    if (!s) return;
    snprintf(path, sizeof(path), "/tmp/perf-%u.map", JIT_PID + 1);
    CHECK(write_file(path, "3000 0 zerosize\n") == 0);
    m.pid = JIT_PID + 1;
    ps_symbols__resolve(s, &m, 1, 0x3000, &r);
    CHECK(r.sym != NULL && r.rel == 0x3000 && r.symoff == (uint64_t)-0x100);
    unlink(path);
    ps_symbols__free(s);
}

static void test_anon_maps(void)
{
    ps_symbols *s = syms_new(NULL, NULL, NULL, 1);
    ps_map rw = mk_map(PS_MAP_ANON, 0x1000, 0x1000, 0, "//anon");
    ps_map heap = mk_map(PS_MAP_NO_DSO, 0x5000, 0x1000, 0, "[heap]");
    ps_map stack = mk_map(PS_MAP_NO_DSO, 0x9000, 0x1000, 0, "[stack]");
    ps_resolved r;

    if (!s) return;
    rw.prot = 3;
    ps_symbols__resolve(s, &rw, 100, 0x1010, &r);
    CHECK(strcmp(r.dso, "//anon") == 0 && r.sym == NULL && r.rel == 0x1010);
    heap.prot = 3;
    ps_symbols__resolve(s, &heap, 100, 0x5010, &r);
    CHECK(strcmp(r.dso, "[heap]") == 0 && r.rel == 0x5010);
    stack.prot = 7;                         /* executable: a JIT region */
    stack.pid = 77;
    ps_symbols__resolve(s, &stack, 100, 0x9010, &r);
    CHECK(strcmp(r.dso, "/tmp/perf-77.map") == 0 && r.rel == 0x9010);
    ps_symbols__resolve(s, NULL, 100, 0x9010, &r);
    CHECK(strcmp(r.dso, "[unknown]") == 0 && r.sym == NULL);
    ps_symbols__free(s);
}

static void check_at(ps_symbols *s, const ps_map *m, const char *file, const char *sym,
                     uint64_t delta, const char *want)
{
    const char *got = at_off(s, m, sym_off(file, sym) + delta);

    if (strcmp(got, want) != 0)
        fprintf(stderr, "  %s+%" PRIu64 ": got %s want %s\n", sym, delta, got, want);
    CHECK(strcmp(got, want) == 0);
}

static void test_elf_c_fixture(void)
{
    const char *a = tpath("a");
    ps_symbols *s = syms_new(NULL, NULL, NULL, 1);
    ps_map m = mk_map(PS_MAP_FILE, BASE, 0x100000, 0, a);
    uint64_t plt = 0, ent = 0;
    const char *dso = NULL;

    if (!s || !have_cc) { CHECK(have_cc); ps_symbols__free(s); return; }
    check_at(s, &m, a, "foo", 0, "foo+0x0");           /* global beats weak and "__" */
    check_at(s, &m, a, "foo", 2, "foo+0x2");
    check_at(s, &m, a, "wfun", 0, "wfun+0x0");
    check_at(s, &m, a, "sfun", 1, "sfun+0x1");
    check_at(s, &m, a, "asmfn", 1, "asmfn+0x1");       /* zero size: up to the label */
    check_at(s, &m, a, "asm_label", 1, "asm_label+0x1");
    check_at(s, &m, a, "zerofn", 3, "zerofn+0x3");     /* up to the next symbol */
    check_at(s, &m, a, "gvar", 2, "gvar+0x2");         /* data objects are kept */
    check_at(s, &m, a, "_ZN4core3fmt5write17h0123456789abcdefE", 0, "core::fmt::write+0x0");
    check_at(s, &m, a, "_ZN3foo3bar17h0123456789abcde0E@@VERS", 0, "foo::bar+0x0");
    check_at(s, &m, a, "Lcom/x/Y;z([[Lq/R;)I", 0, "com.x.Y.z(q.R)+0x0");
    check_at(s, &m, a, "Lbad/Cls;(x)V", 0, "bad.Cls(x)+0x0");
    check_at(s, &m, a, "camlFoo__bar_123", 0, "Foo.bar_123+0x0");
    check_at(s, &m, a, "camlStd$2eList__map_42", 0, "Std.List.map_42+0x0");
    /* _init has no size: fixup_end stretches it over the PLT (the "@plt"
     * symbols come after the fixups), and perf's tree walk meets it first */
    CHECK(plt_of(a, &plt, &ent) == 0 && ent > 0);
    CHECK(strncmp(at_off(s, &m, plt + ent + 1), "_init+", 6) == 0);
    lookup(s, &m, BASE, &dso);
    CHECK(strcmp(dso, a) == 0);
    CHECK(ps_symbols__nr_dsos(s) == 1 && ps_symbols__nr_syms(s) > 10);
    ps_symbols__free(s);

    s = syms_new(NULL, NULL, NULL, 0);      /* --no-demangle */
    if (!s) return;
    check_at(s, &m, a, "_ZN4core3fmt5write17h0123456789abcdefE", 0,
             "_ZN4core3fmt5write17h0123456789abcdefE+0x0");
    check_at(s, &m, a, "camlFoo__bar_123", 0, "camlFoo__bar_123+0x0");
    ps_symbols__free(s);
}

static void test_elf_cxx_fixture(void)
{
    const char *k = tpath("k");
    ps_symbols *s;
    ps_map m = mk_map(PS_MAP_FILE, BASE, 0x100000, 0, k);

    if (!have_cxx)
        return;
    if ((s = syms_new(NULL, NULL, NULL, 1)) == NULL) return;
    check_at(s, &m, k, "_ZN2ns1K4workEl", 1, "ns::K::work+0x1");   /* no parameters */
    ps_symbols__free(s);
    if ((s = syms_new(NULL, NULL, NULL, 0)) == NULL) return;
    check_at(s, &m, k, "_ZN2ns1K4workEl", 0, "_ZN2ns1K4workEl+0x0");
    ps_symbols__free(s);
}

static void test_elf_stripped(void)
{
    const char *a = tpath("a_strip");
    ps_symbols *s = syms_new(NULL, NULL, NULL, 1);
    ps_map m = mk_map(PS_MAP_FILE, BASE, 0x100000, 0, a);
    uint64_t v, plt = 0, ent = 0;

    if (!s || !have_cc) { CHECK(have_cc); ps_symbols__free(s); return; }
    CHECK(nm_value(a, "sfun", &v) < 0);                 /* only .dynsym is left */
    check_at(s, &m, a, "foo", 1, "foo+0x1");
    check_at(s, &m, a, "main", 0, "main+0x0");
    /* one "name@plt" per .rela.plt entry, each a slot after the header */
    CHECK(plt_of(a, &plt, &ent) == 0 && ent > 0);
    CHECK(strcmp(at_off(s, &m, plt), "[unknown]") == 0);
    CHECK(strstr(at_off(s, &m, plt + ent + 1), "@plt+0x1") != NULL);
    CHECK(strstr(at_off(s, &m, plt + 2 * ent + 2), "@plt+0x2") != NULL);
    ps_symbols__free(s);
}

static void test_debuglink(void)
{
    const char *a = tpath("sub/a_dl");
    ps_symbols *s = syms_new(NULL, NULL, NULL, 1);
    ps_map m = mk_map(PS_MAP_FILE, BASE, 0x100000, 0, a);

    if (!s || !have_cc) { CHECK(have_cc); ps_symbols__free(s); return; }
    /* sfun is only in the .debug/ file the .gnu_debuglink names */
    CHECK(strcmp(at_off(s, &m, sym_off(tpath("a"), "sfun")), "sfun+0x0") == 0);
    ps_symbols__free(s);
}

static void test_build_ids(void)
{
    const char *a = tpath("a");
    uint8_t bid[20], bad[20];
    uint64_t foo;
    feats x;
    ps_symbols *s;
    ps_map m = mk_map(PS_MAP_FILE, BASE, 0x100000, 0, a);
    const char *dso = NULL;

    if (!have_cc || file_build_id_hex(a, bid) < 0) { CHECK(have_cc && 0); return; }
    foo = sym_off(a, "foo");
    memset(bad, 0x11, sizeof(bad));

    memset(&x, 0, sizeof(x));                           /* header: wrong */
    add_bid(&x, 2, a, bad, 20);
    if ((s = syms_new(&x.f, NULL, NULL, 1)) == NULL) return;
    CHECK(strcmp(lookup(s, &m, BASE + foo, &dso), "[unknown]") == 0 && strcmp(dso, a) == 0);
    ps_symbols__free(s);

    memset(&x, 0, sizeof(x));                           /* header: right */
    add_bid(&x, 2, a, bid, 20);
    if ((s = syms_new(&x.f, NULL, NULL, 1)) == NULL) return;
    CHECK(strcmp(at_off(s, &m, foo), "foo+0x0") == 0);
    ps_symbols__free(s);

    m.has_build_id = 1;                                 /* MMAP2's wins over the header */
    m.build_id_size = 20;
    memcpy(m.build_id, bad, 20);
    if ((s = syms_new(&x.f, NULL, NULL, 1)) == NULL) return;
    CHECK(strcmp(at_off(s, &m, foo), "[unknown]") == 0);
    ps_symbols__free(s);
    m.has_build_id = 0;

    memset(&x, 0, sizeof(x));                           /* 16 bytes of 20: no match */
    add_bid(&x, 2, a, bid, 16);
    if ((s = syms_new(&x.f, NULL, NULL, 1)) == NULL) return;
    CHECK(strcmp(at_off(s, &m, foo), "[unknown]") == 0);
    ps_symbols__free(s);
}

static void test_build_id_cache(void)
{
    const char *gone = tpath("gone/a");
    uint8_t bid[20];
    char hex[41];
    feats x;
    ps_symbols *s;
    ps_map m = mk_map(PS_MAP_FILE, BASE, 0x100000, 0, gone);
    int i;

    if (!have_cc || file_build_id_hex(tpath("a"), bid) < 0) { CHECK(have_cc && 0); return; }
    for (i = 0; i < 20; i++)
        snprintf(hex + 2 * i, 3, "%02x", bid[i]);
    CHECK(sh("mkdir -p %s/cache/.build-id/%.2s/%s && cp %s %s/cache/.build-id/%.2s/%s/elf",
             dir, hex, hex + 2, tpath("a"), dir, hex, hex + 2) == 0);
    memset(&x, 0, sizeof(x));
    add_bid(&x, 2, gone, bid, 20);
    if ((s = syms_new(&x.f, NULL, NULL, 1)) == NULL) return;
    CHECK(strcmp(at_off(s, &m, sym_off(tpath("a"), "foo")), "foo+0x0") == 0);
    ps_symbols__free(s);
    /* --symfs moves the cache to SYMFS/.debug: not found there */
    if ((s = syms_new(&x.f, NULL, tpath("nosymfs"), 1)) == NULL) return;
    CHECK(strcmp(at_off(s, &m, sym_off(tpath("a"), "foo")), "[unknown]") == 0);
    ps_symbols__free(s);
}

static void test_symfs(void)
{
    ps_symbols *s;
    ps_map m = mk_map(PS_MAP_FILE, BASE, 0x100000, 0, "/bin/a");

    if (!have_cc) { CHECK(0); return; }
    CHECK(sh("mkdir -p %s/root/bin && cp %s %s/root/bin/a", dir, tpath("a"), dir) == 0);
    if ((s = syms_new(NULL, NULL, tpath("root"), 1)) == NULL) return;
    CHECK(strcmp(at_off(s, &m, sym_off(tpath("a"), "foo")), "foo+0x0") == 0);
    ps_symbols__free(s);
}

static void test_kallsyms_relocation(void)
{
    const char *ks = tpath("ks1");
    ps_symbols *s = syms_new(NULL, ks, NULL, 1);
    ps_map k = mk_map(PS_MAP_KERNEL, KBASE, 0x1000000, KBASE, "[kernel.kallsyms]_text");
    ps_map mod = mk_map(PS_MAP_MODULE, UINT64_C(0xffffffffa0001000), 0x2000, 0,
                        "/lib/modules/x/kernel/mymod.ko");
    const char *dso = NULL;
    uint64_t st, en;

    if (!s) return;
    CHECK(ps_symbols__kernel_extent(s, &st, &en) == 0);
    /* kallsyms _text is 0xffffffff90000000, the capture's 0xffffffff81000000 */
    CHECK(strcmp(lookup(s, &k, KBASE, &dso), "_stext+0x0") == 0);   /* sized after fixup */
    CHECK(strcmp(dso, "[kernel.kallsyms]") == 0);
    CHECK(strcmp(lookup(s, &k, KBASE + 0x50, NULL), "_stext+0x50") == 0);
    CHECK(strcmp(lookup(s, &k, KBASE + 0x210, NULL), "weak_fn+0x10") == 0);
    CHECK(strcmp(lookup(s, &k, KBASE + 0x310, NULL), "lweak+0x10") == 0);
    CHECK(strcmp(lookup(s, &k, KBASE + 0x550, NULL), "data_obj+0x150") == 0);  /* 'r' dropped */
    /* the last kernel symbol before a module one ends on the next page + 1 */
    CHECK(strcmp(lookup(s, &k, KBASE + 0x1601, NULL), "last_text+0x1001") == 0);
    CHECK(ps_symbols__kernel_extent(s, &st, &en) == 1 && st == KBASE && en == KBASE + 0x2000);
    /* outside the cut kernel map: no map at all */
    CHECK(strcmp(lookup(s, &k, KBASE + 0x3000, &dso), "[unknown]") == 0);
    CHECK(strcmp(dso, "[unknown]") == 0);
    /* module symbols, relative to the module map, end at the next module's */
    CHECK(strcmp(lookup(s, &mod, UINT64_C(0xffffffffa0001050), &dso), "mod_fn+0x50") == 0);
    CHECK(strcmp(dso, "[mymod]") == 0);
    CHECK(strcmp(lookup(s, &mod, UINT64_C(0xffffffffa0002fff), NULL), "mod_fn2+0x1eff") == 0);
    ps_symbols__free(s);

    /* a module looked at before the kernel is loaded keeps no symbols */
    if ((s = syms_new(NULL, ks, NULL, 1)) == NULL) return;
    CHECK(strcmp(lookup(s, &mod, UINT64_C(0xffffffffa0001050), NULL), "[unknown]") == 0);
    CHECK(strcmp(lookup(s, &k, KBASE, NULL), "_stext+0x0") == 0);
    CHECK(strcmp(lookup(s, &mod, UINT64_C(0xffffffffa0001050), NULL), "[unknown]") == 0);
    ps_symbols__free(s);
}

/* Without the ref-reloc symbol perf keeps kallsyms raw: unrelocated,
 * unfixed (zero size: exact hits only, offset from the map start). */
static void test_kallsyms_without_text(void)
{
    const char *ks = tpath("ks3");
    ps_symbols *s = syms_new(NULL, ks, NULL, 1);
    ps_map k = mk_map(PS_MAP_KERNEL, KBASE, 0x1000000, UINT64_C(0xffffffff80000000),
                      "[kernel.kallsyms]_text");

    if (!s) return;
    CHECK(write_file(ks, "ffffffff81000000 T _stext\nffffffff81000100 t local_fn\n") == 0);
    CHECK(strcmp(lookup(s, &k, KBASE + 0x100, NULL), "local_fn+0x7f000000") == 0);
    CHECK(strcmp(lookup(s, &k, KBASE + 0x150, NULL), "[unknown]") == 0);
    ps_symbols__free(s);
}

static void test_kernel_warning(void)
{
    uint8_t bad[20];
    feats x;
    ps_symbols *s;
    ps_map k = mk_map(PS_MAP_KERNEL, KBASE, 0x1000000, KBASE, "[kernel.kallsyms]_text");
    const char *w;

    memset(bad, 0x11, sizeof(bad));
    memset(&x, 0, sizeof(x));
    add_bid(&x, 1, "[kernel.kallsyms]", bad, 20);
    if ((s = syms_new(&x.f, NULL, NULL, 1)) == NULL) return;
    CHECK(ps_symbols__take_warning(s) == NULL);
    CHECK(strcmp(lookup(s, &k, KBASE, NULL), "[unknown]") == 0);
    w = ps_symbols__take_warning(s);
    CHECK(w != NULL && strcmp(w, "No kallsyms or vmlinux with build-id "
                                 "1111111111111111111111111111111111111111 was found") == 0);
    CHECK(ps_symbols__take_warning(s) == NULL);        /* once */
    lookup(s, &k, KBASE + 1, NULL);
    CHECK(ps_symbols__take_warning(s) == NULL);
    ps_symbols__free(s);

    /* a cached kallsyms of that build-id is used instead */
    CHECK(sh("d='%s/cache/[kernel.kallsyms]/%s' && mkdir -p \"$d\" && cp %s \"$d/kallsyms\"",
             dir, "1111111111111111111111111111111111111111", tpath("ks1")) == 0);
    if ((s = syms_new(&x.f, NULL, NULL, 1)) == NULL) return;
    CHECK(strcmp(lookup(s, &k, KBASE, NULL), "_stext+0x0") == 0);
    CHECK(ps_symbols__take_warning(s) == NULL);
    ps_symbols__free(s);

    /* under --symfs perf reads no kallsyms and says nothing */
    if ((s = syms_new(&x.f, NULL, tpath("root"), 1)) == NULL) return;
    CHECK(strcmp(lookup(s, &k, KBASE, NULL), "[unknown]") == 0);
    CHECK(ps_symbols__take_warning(s) == NULL);
    ps_symbols__free(s);
}

static void test_module_names(void)
{
    static const uint8_t bid[20] = { 1 };
    feats x;
    ps_symbols *s;
    ps_map a = mk_map(PS_MAP_MODULE, 0xa000, 0x1000, 0, "/lib/modules/6/kernel/foo-bar.ko.xz");
    ps_map b = mk_map(PS_MAP_MODULE, 0xb000, 0x1000, 0, "[bpf_x]");
    ps_map c = mk_map(PS_MAP_MODULE, 0xc000, 0x1000, 0, "[ath9k]");
    ps_map ksym = mk_map(PS_MAP_KSYMBOL, 0xd000, 0x80, 0, "bpf_prog_1234_f");
    const char *dso = NULL;
    ps_resolved r;

    memset(&x, 0, sizeof(x));
    add_bid(&x, 1, "/lib/modules/3.8/kernel/ath9k.ko", bid, 20);
    if ((s = syms_new(&x.f, NULL, NULL, 1)) == NULL) return;
    lookup(s, &a, 0xa010, &dso);
    CHECK(strcmp(dso, "[foo_bar]") == 0);
    lookup(s, &b, 0xb010, &dso);
    CHECK(strcmp(dso, "[bpf_x]") == 0);
    lookup(s, &c, 0xc010, &dso);                        /* the header's DSO, by its name */
    CHECK(strcmp(dso, "/lib/modules/3.8/kernel/ath9k.ko") == 0);
    ps_symbols__resolve(s, &ksym, 100, 0xd010, &r);
    CHECK(r.sym != NULL && strcmp(r.sym->name, "bpf_prog_1234_f") == 0 && r.symoff == 0x10 &&
          strcmp(r.dso, "bpf_prog_1234_f") == 0 && r.rel == 0x10);
    ps_symbols__free(s);
}

static void test_vdso(void)
{
    static const uint8_t bid[20] = { 1, 2, 3 };
    ps_map v = mk_map(PS_MAP_VDSO, BASE, 0x2000, 0, "[vdso]");
    ps_symbols *s;
    feats x;
    uint64_t off;
    int found = 0;

    if (getauxval(AT_SYSINFO_EHDR) == 0)
        return;
    if ((s = syms_new(NULL, NULL, NULL, 1)) == NULL) return;
    for (off = 0; off < 0x2000 && !found; off += 8)     /* this process's own vdso */
        found = strncmp(at_off(s, &v, off), "__vdso_", 7) == 0;
    CHECK(found);
    ps_symbols__free(s);

    memset(&x, 0, sizeof(x));                           /* named by the header: no file */
    add_bid(&x, 2, "[vdso]", bid, 20);
    if ((s = syms_new(&x.f, NULL, NULL, 1)) == NULL) return;
    for (off = 0, found = 0; off < 0x2000; off += 8)
        found |= strcmp(at_off(s, &v, off), "[unknown]") != 0;
    CHECK(!found);
    ps_symbols__free(s);
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* FIFOs, directories, devices, missing and corrupt files: no symbols,
 * no hang, no crash. */
static void test_hostile_paths(void)
{
    static const char *const names[] = { "fifo", "adir", "/dev/null", "/dev/zero", "missing", "" };
    char jit[64], bad[32];
    ps_symbols *s;
    double t0 = now();
    size_t i;
    long sz;
    FILE *f;

    CHECK(sh("mkfifo %s && mkdir -p %s", tpath("fifo"), tpath("adir")) == 0);
    snprintf(jit, sizeof(jit), "/tmp/perf-%u.map", JIT_PID + 2);
    unlink(jit);
    CHECK(mkfifo(jit, 0600) == 0);
    if ((s = syms_new(NULL, tpath("fifo"), NULL, 1)) == NULL) return;
    for (i = 0; i < PS_ARRAY_SIZE(names); i++) {
        const char *p = names[i][0] == '/' || !names[i][0] ? names[i] : tpath(names[i]);
        ps_map m = mk_map(PS_MAP_FILE, BASE + i * 0x100000, 0x100000, 0, p);

        CHECK(strcmp(lookup(s, &m, m.start + 0x1000, NULL), "[unknown]") == 0);
    }
    {
        ps_map a = mk_map(PS_MAP_ANON, 0x1000, 0x1000, 0, "//anon");
        ps_map k = mk_map(PS_MAP_KERNEL, KBASE, 0x1000, KBASE, "[kernel.kallsyms]_text");

        a.pid = JIT_PID + 2;
        a.prot = 7;
        CHECK(strcmp(lookup(s, &a, 0x1000, NULL), "[unknown]") == 0);
        CHECK(strcmp(lookup(s, &k, KBASE, NULL), "[unknown]") == 0);  /* --kallsyms FIFO */
    }
    ps_symbols__free(s);
    unlink(jit);
    /* truncated and scribbled copies of an ELF file */
    if (have_cc && (f = fopen(tpath("a"), "rb")) != NULL) {
        fseek(f, 0, SEEK_END);
        sz = ftell(f);
        fclose(f);
        for (i = 0; i < 24; i++) {
            ps_map m;

            snprintf(bad, sizeof(bad), "bad%zu", i);
            if (i < 12)
                sh("head -c %ld %s > %s", sz * (long)i / 12 + 7, tpath("a"), tpath(bad));
            else
                sh("cp %s %s && printf '\\377\\377\\377\\377\\377\\377\\377\\377' | dd of=%s bs=1 "
                   "seek=%ld conv=notrunc 2>/dev/null", tpath("a"), tpath(bad), tpath(bad),
                   (sz * (long)(i - 12)) / 12 + 24);
            if ((s = syms_new(NULL, NULL, NULL, 1)) == NULL) return;
            m = mk_map(PS_MAP_FILE, BASE, 0x100000, 0, tpath(bad));
            lookup(s, &m, BASE + 0x1100, NULL);          /* anything, but no crash */
            lookup(s, &m, BASE + 0x3010, NULL);
            ps_symbols__free(s);
        }
    }
    CHECK(now() - t0 < 10.0);
}

static const struct harness_test tests[] = {
    TEST(test_jit_map_parsing),
    TEST(test_zero_size_symoff),
    TEST(test_anon_maps),
    TEST(test_elf_c_fixture),
    TEST(test_elf_cxx_fixture),
    TEST(test_elf_stripped),
    TEST(test_debuglink),
    TEST(test_build_ids),
    TEST(test_build_id_cache),
    TEST(test_symfs),
    TEST(test_kallsyms_relocation),
    TEST(test_kallsyms_without_text),
    TEST(test_kernel_warning),
    TEST(test_module_names),
    TEST(test_vdso),
    TEST(test_hostile_paths),
};

int main(void)
{
    setup();
    return harness_run(tests, PS_ARRAY_SIZE(tests));
}
