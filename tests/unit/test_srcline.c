/* SPDX-License-Identifier: MIT */
/*
 * test_srcline.c - unit tests of dwline.c, u64map.c, bfdsym.c, dwfunc.c
 * and srcline.c. Line programs are hand-built byte arrays (DWARF 2 to 5,
 * 32- and 64-bit, little- and big-endian) checked row by row: special
 * opcodes, advance_pc, const_add_pc, fixed_advance_pc and min_inst,
 * BFD 2.40's default file (0 in DWARF 5, 1 before), the last of rows at
 * one address winning, nothing at or after end_sequence, sequences out of
 * order, nested (dropped), overlapping (trimmed) and unfinished (ignored),
 * a small opcode_base, and headers that must be refused. Then every
 * truncation and 20000 seeded mutants of those programs, and of this
 * binary's own .debug_line, in exact-size heap buffers (a sanitizer build
 * sees every over-read) under a watchdog alarm (a hang kills it). The rest
 * runs on this binary itself (built with -g): functions below mark a line
 * with __LINE__ next to a call whose return address is recorded, and
 * srcline must name the function, this file and that line, the inline
 * chain of an always_inline call, and BFD's choice among symbol aliases;
 * copies of the binary with garbage DWARF, or a .debug_info bigger than
 * the file, must answer from the symbol table; a file opened ahead by the
 * worker thread must answer as one opened on the spot. Comparison with
 * the real addr2line on many files is tests/diff/srcline.sh's.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "../../libparse/bfdsym.h"
#include "../../libparse/dwfunc.h"
#include "../../libparse/dwline.h"
#include "../../libparse/srcline.h"
#include "../../libparse/u64map.h"

#define NMUTANTS      20000
#define NMUTANTS_SELF 500       /* of this file's own (large) unit */
#define WATCHDOG      120       /* seconds: a hang ends the run with SIGALRM */
#define DEF           UINT64_MAX /* expected file: the version's default */

/* A hang (a decoder looping on a mutant, a map probing forever) kills the
 * run instead of stalling make check. */
__attribute__((constructor)) static void watchdog(void)
{
    alarm(WATCHDOG);
}

/* ---- marked functions of this file ------------------------------------- */

static volatile uintptr_t probe_ra;
static unsigned marker_line, inl_line, inl_call_line;

__attribute__((noinline)) void srcline_probe(void)
{
    probe_ra = (uintptr_t)__builtin_return_address(0);
}

__attribute__((noinline)) int srcline_marker(int x)
{
    int y = x * 3 + 1;

    srcline_probe(); marker_line = __LINE__;
    return y + (int)(probe_ra & 1);
}

static inline __attribute__((always_inline)) int inl_inner(int x)
{
    srcline_probe(); inl_line = __LINE__;
    return x + 1;
}

__attribute__((noinline)) int inl_outer(int x)
{
    int r = inl_inner(x); inl_call_line = __LINE__;

    return r * 2;
}

/* A static function: BFD names it with the STT_FILE before it. */
static __attribute__((noinline)) int local_fn(int x)
{
    return x * 7 + (int)(probe_ra & 3);
}

/* Two symbols at one address: BFD 2.40 takes the first in .symtab order
 * unless a later one is strictly larger, so the larger always wins here;
 * two of equal size: the first in .symtab order. */
__asm__(".text\n"
        ".globl ps_t_alias_small\n.type ps_t_alias_small,@function\n"
        ".globl ps_t_alias_big\n.type ps_t_alias_big,@function\n"
        "ps_t_alias_small:\nps_t_alias_big:\n nop\n nop\n nop\n ret\n"
        ".size ps_t_alias_small,2\n.size ps_t_alias_big,4\n"
        ".globl ps_t_alias_one\n.type ps_t_alias_one,@function\n"
        ".globl ps_t_alias_two\n.type ps_t_alias_two,@function\n"
        "ps_t_alias_one:\nps_t_alias_two:\n nop\n ret\n"
        ".size ps_t_alias_one,2\n.size ps_t_alias_two,2\n");
void ps_t_alias_small(void);
void ps_t_alias_one(void);

/* What the marks give, as ELF addresses of this binary. */
static struct self {
    int      ready;
    char     path[4096];
    uint64_t bias;
    uint64_t marker;            /* inside srcline_marker's call */
    uint64_t inl;               /* inside inl_inner inlined in inl_outer */
    uint64_t marker_fn, local, alias_big, alias_one;
    uint64_t text_lo, text_hi;
} self;

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(uint64_t *)arg = info->dlpi_addr;
    return 1;
}

typedef struct secinfo {
    int      found;
    uint64_t off, size, addr;   /* in the file; sh_size; sh_addr */
    uint64_t shdr_off;          /* the section header's offset in the file */
} secinfo;

static secinfo section_of(const char *path, const char *name)
{
    secinfo si;
    int fd = open(path, O_RDONLY);
    Elf *elf;
    Elf_Scn *scn = NULL;
    GElf_Ehdr eh;
    size_t shstrndx;

    memset(&si, 0, sizeof(si));
    elf_version(EV_CURRENT);
    if (fd < 0)
        return si;
    if ((elf = elf_begin(fd, ELF_C_READ, NULL)) != NULL && gelf_getehdr(elf, &eh) != NULL &&
        elf_getshdrstrndx(elf, &shstrndx) == 0)
        while ((scn = elf_nextscn(elf, scn)) != NULL) {
            GElf_Shdr sh;
            const char *n;

            if (gelf_getshdr(scn, &sh) == NULL)
                break;
            n = elf_strptr(elf, shstrndx, sh.sh_name);
            if (n != NULL && strcmp(n, name) == 0) {
                si.found = 1;
                si.off = sh.sh_offset;
                si.size = sh.sh_size;
                si.addr = sh.sh_addr;
                si.shdr_off = eh.e_shoff + elf_ndxscn(scn) * (uint64_t)eh.e_shentsize;
                break;
            }
        }
    elf_end(elf);
    close(fd);
    return si;
}

static uint64_t elf_addr(uintptr_t runtime)
{
    return runtime - self.bias;
}

static void setup(void)
{
    int (*volatile marker)(int) = srcline_marker;
    int (*volatile outer)(int) = inl_outer;
    int (*volatile local)(int) = local_fn;
    ssize_t n;
    secinfo text;

    if (self.ready)
        return;
    self.ready = 1;
    n = readlink("/proc/self/exe", self.path, sizeof(self.path) - 1);
    if (n <= 0)
        abort();
    self.path[n] = '\0';
    dl_iterate_phdr(first_object, &self.bias);
    marker(1);
    self.marker = elf_addr(probe_ra - 1);      /* inside the call instruction */
    outer(2);
    self.inl = elf_addr(probe_ra - 1);
    local(3);
    self.marker_fn = elf_addr((uintptr_t)srcline_marker);
    self.local = elf_addr((uintptr_t)local_fn);
    self.alias_big = elf_addr((uintptr_t)ps_t_alias_small);
    self.alias_one = elf_addr((uintptr_t)ps_t_alias_one);
    text = section_of(self.path, ".text");
    self.text_lo = text.addr;
    self.text_hi = text.addr + text.size;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');

    return s != NULL ? s + 1 : path;
}

/* This file's name, as its STT_FILE symbol and the end of its DWARF path. */
static const char *this_file(void)
{
    return base_name(__FILE__);
}

static int same_base(const char *path, const char *base)
{
    return path != NULL && strcmp(base_name(path), base) == 0;
}

static int eq(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* ---- a seeded generator ------------------------------------------------ */

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * UINT64_C(0x2545f4914f6cdd1d);
}

/* ---- building line programs -------------------------------------------- */

typedef struct bytes {
    uint8_t v[4096];
    size_t  n;
    int     be;                 /* multi-byte fields big-endian */
} bytes;

static void put(bytes *b, uint64_t v, unsigned n)
{
    unsigned i;

    if (b->n + n > sizeof(b->v))
        abort();
    for (i = 0; i < n; i++)
        b->v[b->n + i] = (uint8_t)(v >> 8 * (b->be ? n - 1 - i : i));
    b->n += n;
}

static void patch(bytes *b, size_t at, uint64_t v, unsigned n)
{
    size_t keep = b->n;

    b->n = at;
    put(b, v, n);
    b->n = keep;
}

static void u8(bytes *b, unsigned v) { put(b, v, 1); }

static void uleb(bytes *b, uint64_t v)
{
    do {
        uint8_t c = v & 0x7f;

        v >>= 7;
        u8(b, c | (v ? 0x80 : 0));
    } while (v);
}

static void sleb(bytes *b, int64_t v)
{
    uint64_t u = (uint64_t)v;
    int neg = v < 0;

    for (;;) {
        uint8_t c = u & 0x7f;

        u >>= 7;
        if (neg)
            u |= ~(~UINT64_C(0) >> 7);
        if ((!neg && u == 0 && !(c & 0x40)) || (neg && u == ~UINT64_C(0) && (c & 0x40))) {
            u8(b, c);
            return;
        }
        u8(b, c | 0x80);
    }
}

static void str(bytes *b, const char *s)
{
    do
        u8(b, (uint8_t)*s);
    while (*s++);
}

typedef struct hdr {
    int      version, dw64, be;
    unsigned min_inst, max_ops;
    int      line_base;
    unsigned line_range, opcode_base;
} hdr;

static hdr std_hdr(int version)
{
    hdr h = { version, 0, 0, 1, 1, -5, 14, 13 };

    return h;
}

typedef struct prog {
    bytes *b;
    hdr    h;
    size_t start, len_at;
} prog;

/* The unit's header: gcc's opcode lengths (2 arguments for any opcode
 * past the standard 12), directories and files as a compiler writes them. */
static void prog_begin(prog *p, bytes *b, const hdr *h)
{
    static const uint8_t lens[] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
    unsigned w = h->dw64 ? 8 : 4, i;
    size_t hlen_at, hstart;

    p->b = b;
    p->h = *h;
    p->start = b->n;
    b->be = h->be;
    if (h->dw64)
        put(b, 0xffffffffu, 4);
    p->len_at = b->n;
    put(b, 0, w);
    put(b, (uint64_t)h->version, 2);
    if (h->version >= 5) {
        u8(b, 8);               /* address_size */
        u8(b, 0);               /* segment_selector_size */
    }
    hlen_at = b->n;
    put(b, 0, w);
    hstart = b->n;
    u8(b, h->min_inst);
    if (h->version >= 4)
        u8(b, h->max_ops);
    u8(b, 1);                   /* default_is_stmt */
    u8(b, (uint8_t)(int8_t)h->line_base);
    u8(b, h->line_range);
    u8(b, h->opcode_base);
    for (i = 1; i < h->opcode_base; i++)
        u8(b, i <= 12 ? lens[i - 1] : 2);
    if (h->version >= 5) {
        u8(b, 1);
        uleb(b, DW_LNCT_path);
        uleb(b, DW_FORM_string);
        uleb(b, 1);
        str(b, "/src");
        u8(b, 2);
        uleb(b, DW_LNCT_path);
        uleb(b, DW_FORM_string);
        uleb(b, DW_LNCT_directory_index);
        uleb(b, DW_FORM_udata);
        uleb(b, 3);
        str(b, "a.c");
        uleb(b, 0);
        str(b, "a.c");
        uleb(b, 0);
        str(b, "b.h");
        uleb(b, 0);
    } else {
        str(b, "/inc");
        u8(b, 0);
        str(b, "a.c");
        uleb(b, 0);
        uleb(b, 0);
        uleb(b, 0);
        str(b, "b.h");
        uleb(b, 1);
        uleb(b, 0);
        uleb(b, 0);
        u8(b, 0);
    }
    patch(b, hlen_at, b->n - hstart, w);
}

static void prog_end(prog *p)
{
    unsigned w = p->h.dw64 ? 8 : 4;

    patch(p->b, p->len_at, p->b->n - (p->len_at + w), w);
}

static void op_set_address(prog *p, uint64_t a)
{
    u8(p->b, 0);
    uleb(p->b, 9);
    u8(p->b, DW_LNE_set_address);
    put(p->b, a, 8);
}

static void op_end_sequence(prog *p)
{
    u8(p->b, 0);
    uleb(p->b, 1);
    u8(p->b, DW_LNE_end_sequence);
}

static void op_discriminator(prog *p, unsigned v)
{
    u8(p->b, 0);
    uleb(p->b, 2);
    u8(p->b, DW_LNE_set_discriminator);
    uleb(p->b, v & 0x7f);
}

static void op_copy(prog *p) { u8(p->b, DW_LNS_copy); }
static void op_const_add_pc(prog *p) { u8(p->b, DW_LNS_const_add_pc); }

static void op_advance_pc(prog *p, uint64_t n)
{
    u8(p->b, DW_LNS_advance_pc);
    uleb(p->b, n);
}

static void op_advance_line(prog *p, int64_t n)
{
    u8(p->b, DW_LNS_advance_line);
    sleb(p->b, n);
}

static void op_set_file(prog *p, uint64_t f)
{
    u8(p->b, DW_LNS_set_file);
    uleb(p->b, f);
}

static void op_fixed_advance_pc(prog *p, unsigned n)
{
    u8(p->b, DW_LNS_fixed_advance_pc);
    put(p->b, n, 2);
}

static void op_special(prog *p, unsigned addr_adv, int line_delta)
{
    int op = line_delta - p->h.line_base + (int)(p->h.line_range * addr_adv) +
             (int)p->h.opcode_base;

    if (line_delta < p->h.line_base || line_delta >= p->h.line_base + (int)p->h.line_range ||
        op > 255)
        abort();
    u8(p->b, (unsigned)op);
}

/* ---- expected rows ----------------------------------------------------- */

typedef struct want {
    uint64_t addr;
    int      found;
    uint64_t file;              /* DEF: the version's default file */
    unsigned line;
} want;

/* Each of w[] looked up in the unit at off. */
static void check_wants(ps_dwlines *d, uint64_t off, const want *w, size_t n, int version)
{
    size_t i;

    for (i = 0; i < n; i++) {
        uint64_t file = 12345, wfile = w[i].file == DEF ? (version >= 5 ? 0 : 1) : w[i].file;
        unsigned line = 54321;
        int rc = ps_dwlines__find(d, off, w[i].addr, &file, &line);

        CHECK(rc == w[i].found);
        if (w[i].found && rc == 1) {
            CHECK(file == wfile);
            CHECK(line == w[i].line);
        }
        if (rc != w[i].found || (rc == 1 && (file != wfile || line != w[i].line)))
            fprintf(stderr, "  v%d off %#llx addr %#llx: rc %d file %llu line %u,"
                    " want rc %d file %llu line %u\n", version, (unsigned long long)off,
                    (unsigned long long)w[i].addr, rc, (unsigned long long)file, line,
                    w[i].found, (unsigned long long)wfile, w[i].line);
    }
}

#define CHECK_WANTS(d, off, w, version) check_wants(d, off, w, sizeof(w) / sizeof((w)[0]), version)

/* The decoder over an exact-size heap copy of b (a sanitizer build sees
 * any read past it); one open at a time. */
static uint8_t *exact_copy;

static ps_dwlines *open_exact(const bytes *b)
{
    free(exact_copy);
    exact_copy = malloc(b->n ? b->n : 1);
    if (exact_copy == NULL)
        abort();
    memcpy(exact_copy, b->v, b->n);
    return ps_dwlines__new(exact_copy, b->n, b->be);
}

static void close_exact(ps_dwlines *d)
{
    ps_dwlines__free(d);
    free(exact_copy);
    exact_copy = NULL;
}

typedef void gen_fn(bytes *b, const hdr *h);

/* The program gen writes with header h: its version, and each of w[]
 * looked up twice (the second time in the cached table). */
static void check_program(gen_fn *gen, const hdr *h, const want *w, size_t n)
{
    bytes b = { .n = 0 };
    ps_dwlines *d;

    gen(&b, h);
    d = open_exact(&b);
    CHECK(d != NULL);
    CHECK(ps_dwlines__version(d, 0) == h->version);
    check_wants(d, 0, w, n, h->version);
    check_wants(d, 0, w, n, h->version);
    close_exact(d);
}

#define CHECK_PROGRAM(gen, h, w) check_program(gen, h, w, sizeof(w) / sizeof((w)[0]))

/* Rows at B+0 (10), +4 (12), +0xc (9), +0x1c (file 2, 9), +0x2d (file 2,
 * 10), end at +0x30; every way of moving the address once. */
#define BASIC_AT UINT64_C(0x1000)

static void gen_basic(bytes *b, const hdr *h, uint64_t base)
{
    prog p;

    prog_begin(&p, b, h);
    op_set_address(&p, base);
    op_advance_line(&p, 9);
    op_copy(&p);                        /* base: line 10 */
    op_special(&p, 4, 2);               /* +4: 12 */
    op_advance_pc(&p, 8);
    op_advance_line(&p, -3);
    op_copy(&p);                        /* +0xc: 9 */
    op_fixed_advance_pc(&p, 0x10);
    op_set_file(&p, 2);
    op_copy(&p);                        /* +0x1c: file 2, line 9 */
    op_const_add_pc(&p);                /* (255 - 13) / 14 = 17 */
    op_special(&p, 0, 1);               /* +0x2d: file 2, line 10 */
    op_discriminator(&p, 3);
    op_advance_pc(&p, 3);
    op_end_sequence(&p);                /* +0x30 */
    prog_end(&p);
}

static const want basic_wants[] = {
    { BASIC_AT - 1, 0, 0, 0 },
    { BASIC_AT, 1, DEF, 10 },
    { BASIC_AT + 3, 1, DEF, 10 },
    { BASIC_AT + 4, 1, DEF, 12 },
    { BASIC_AT + 0xb, 1, DEF, 12 },
    { BASIC_AT + 0xc, 1, DEF, 9 },
    { BASIC_AT + 0x1b, 1, DEF, 9 },
    { BASIC_AT + 0x1c, 1, 2, 9 },
    { BASIC_AT + 0x2c, 1, 2, 9 },
    { BASIC_AT + 0x2d, 1, 2, 10 },
    { BASIC_AT + 0x2f, 1, 2, 10 },
    { BASIC_AT + 0x30, 0, 0, 0 },
    { BASIC_AT + 0x31, 0, 0, 0 },
    { BASIC_AT + 0x1000, 0, 0, 0 },
    { 0, 0, 0, 0 },
    { UINT64_MAX, 0, 0, 0 },
};

static void gen_basic_std(bytes *b, const hdr *h)
{
    gen_basic(b, h, BASIC_AT);
}

static void test_dwline_basic_rows(void)
{
    int v, dw64, be;

    for (v = 2; v <= 5; v++)
        for (dw64 = 0; dw64 <= 1; dw64++)
            for (be = 0; be <= 1; be++) {
                hdr h = std_hdr(v);

                h.dw64 = dw64;
                h.be = be;
                CHECK_PROGRAM(gen_basic_std, &h, basic_wants);
            }
}

/* min_inst 4 multiplies advance_pc, const_add_pc and special opcodes'
 * advances, not fixed_advance_pc's; DWARF 2 and 3 headers have no
 * max_ops byte (reading one would shift line_base and the rest). */
static void gen_min_inst(bytes *b, const hdr *h)
{
    prog p;

    prog_begin(&p, b, h);
    op_set_address(&p, 0x2000);
    op_copy(&p);                        /* 0x2000: 1 */
    op_advance_pc(&p, 2);
    op_advance_line(&p, 1);
    op_copy(&p);                        /* 0x2008: 2 */
    op_const_add_pc(&p);                /* 4 * (255 - 10) / 12 = 80 */
    op_advance_line(&p, 1);
    op_copy(&p);                        /* 0x2058: 3 */
    op_fixed_advance_pc(&p, 3);
    op_advance_line(&p, 1);
    op_copy(&p);                        /* 0x205b: 4 */
    op_special(&p, 1, 1);               /* 0x205f: 5 */
    op_advance_pc(&p, 1);
    op_end_sequence(&p);                /* 0x2063 */
    prog_end(&p);
}

static void test_dwline_min_inst(void)
{
    static const want w[] = {
        { 0x1fff, 0, 0, 0 }, { 0x2000, 1, DEF, 1 }, { 0x2007, 1, DEF, 1 },
        { 0x2008, 1, DEF, 2 }, { 0x2057, 1, DEF, 2 }, { 0x2058, 1, DEF, 3 },
        { 0x205a, 1, DEF, 3 }, { 0x205b, 1, DEF, 4 }, { 0x205e, 1, DEF, 4 },
        { 0x205f, 1, DEF, 5 }, { 0x2062, 1, DEF, 5 }, { 0x2063, 0, 0, 0 },
    };
    int v;

    for (v = 2; v <= 5; v++) {
        hdr h = std_hdr(v);

        h.min_inst = 4;
        h.line_base = -3;
        h.line_range = 12;
        h.opcode_base = 10;     /* DWARF 2's nine standard opcodes */
        CHECK_PROGRAM(gen_min_inst, &h, w);
    }
}

/* A sequence without set_file is in file 1 before DWARF 5 and in file 0
 * in DWARF 5 (BFD 2.40), and so is the next one after end_sequence even
 * though the first set a file. */
static void gen_default_file(bytes *b, const hdr *h)
{
    prog p;

    prog_begin(&p, b, h);
    op_set_address(&p, 0x4000);
    op_advance_line(&p, 19);
    op_copy(&p);                        /* 0x4000: default, 20 */
    op_set_file(&p, 2);
    op_special(&p, 8, 1);               /* 0x4008: file 2, 21 */
    op_advance_pc(&p, 8);
    op_end_sequence(&p);                /* 0x4010 */
    op_set_address(&p, 0x5000);
    op_copy(&p);                        /* 0x5000: default, 1 */
    op_advance_pc(&p, 4);
    op_end_sequence(&p);
    prog_end(&p);
}

static const want default_file_wants[] = {
    { 0x4000, 1, DEF, 20 }, { 0x4007, 1, DEF, 20 }, { 0x4008, 1, 2, 21 },
    { 0x400f, 1, 2, 21 }, { 0x4010, 0, 0, 0 }, { 0x5000, 1, DEF, 1 },
    { 0x5003, 1, DEF, 1 }, { 0x5004, 0, 0, 0 },
};

static void test_dwline_default_file(void)
{
    int v;

    for (v = 2; v <= 5; v++) {
        hdr h = std_hdr(v);

        CHECK_PROGRAM(gen_default_file, &h, default_file_wants);
    }
}

/* Rows at one address: the last one wins (file and line), an end row at
 * the address of a row still ends the sequence there. */
static void gen_same_addr(bytes *b, const hdr *h)
{
    prog p;

    prog_begin(&p, b, h);
    op_set_address(&p, 0x3000);
    op_advance_line(&p, 4);
    op_copy(&p);                        /* 0x3000: 5 */
    op_advance_line(&p, 2);
    op_set_file(&p, 3);
    op_copy(&p);                        /* 0x3000: file 3, 7 */
    op_special(&p, 0, 1);               /* 0x3000: file 3, 8 (wins) */
    op_advance_pc(&p, 0x10);
    op_set_file(&p, 1);
    op_copy(&p);                        /* 0x3010: file 1, 8 */
    op_advance_line(&p, 1);
    op_copy(&p);                        /* 0x3010: 9 (wins) */
    op_advance_pc(&p, 0x10);
    op_advance_line(&p, 5);
    op_copy(&p);                        /* 0x3020: 14, then the end there */
    op_end_sequence(&p);
    prog_end(&p);
}

static const want same_addr_wants[] = {
    { 0x2fff, 0, 0, 0 }, { 0x3000, 1, 3, 8 }, { 0x300f, 1, 3, 8 },
    { 0x3010, 1, 1, 9 }, { 0x301f, 1, 1, 9 }, { 0x3020, 0, 0, 0 },
};

static void test_dwline_same_address_last_wins(void)
{
    int v;

    for (v = 4; v <= 5; v++) {
        hdr h = std_hdr(v);

        CHECK_PROGRAM(gen_same_addr, &h, same_addr_wants);
    }
}

/* Sequences: A [0x2000, 0x2040), then B [0x1000, 0x1010) below it, C
 * [0x2010, 0x2018) nested in A (dropped), D [0x2030, 0x2060) overlapping
 * A (trimmed to start at 0x2040, its first row still answering there), and
 * E unfinished (no end_sequence: ignored). */
static void gen_seqs(bytes *b, const hdr *h, int with_tie)
{
    prog p;

    prog_begin(&p, b, h);
    op_set_address(&p, 0x2000);         /* A */
    op_advance_line(&p, 99);
    op_copy(&p);                        /* 0x2000: 100 */
    op_advance_pc(&p, 0x20);
    op_advance_line(&p, 1);
    op_copy(&p);                        /* 0x2020: 101 */
    op_advance_pc(&p, 0x20);
    op_end_sequence(&p);                /* 0x2040 */
    op_set_address(&p, 0x1000);         /* B */
    op_copy(&p);                        /* 0x1000: 1 */
    op_advance_pc(&p, 0x10);
    op_end_sequence(&p);
    op_set_address(&p, 0x2010);         /* C */
    op_advance_line(&p, 499);
    op_copy(&p);                        /* 0x2010: 500 */
    op_advance_pc(&p, 8);
    op_end_sequence(&p);
    op_set_address(&p, 0x2030);         /* D */
    op_advance_line(&p, 599);
    op_copy(&p);                        /* 0x2030: 600 */
    op_advance_pc(&p, 0x20);
    op_advance_line(&p, 1);
    op_copy(&p);                        /* 0x2050: 601 */
    op_advance_pc(&p, 0x10);
    op_end_sequence(&p);                /* 0x2060 */
    if (with_tie) {
        /* F [0x9000, 0x9010) then G [0x9000, 0x9040): the longer first,
         * the shorter nested in it */
        op_set_address(&p, 0x9000);
        op_advance_line(&p, 699);
        op_copy(&p);
        op_advance_pc(&p, 0x10);
        op_end_sequence(&p);
        op_set_address(&p, 0x9000);
        op_advance_line(&p, 799);
        op_copy(&p);
        op_advance_pc(&p, 0x40);
        op_end_sequence(&p);
    }
    op_set_address(&p, 0x8000);         /* E */
    op_copy(&p);
    op_advance_pc(&p, 0x10);
    op_copy(&p);
    prog_end(&p);
}

static const want seqs_wants[] = {
    { 0x0fff, 0, 0, 0 }, { 0x1000, 1, DEF, 1 }, { 0x100f, 1, DEF, 1 },
    { 0x1010, 0, 0, 0 }, { 0x1fff, 0, 0, 0 }, { 0x2000, 1, DEF, 100 },
    { 0x2010, 1, DEF, 100 }, { 0x2017, 1, DEF, 100 }, { 0x2018, 1, DEF, 100 },
    { 0x2020, 1, DEF, 101 }, { 0x2030, 1, DEF, 101 }, { 0x203f, 1, DEF, 101 },
    { 0x2040, 1, DEF, 600 }, { 0x204f, 1, DEF, 600 }, { 0x2050, 1, DEF, 601 },
    { 0x205f, 1, DEF, 601 }, { 0x2060, 0, 0, 0 }, { 0x8000, 0, 0, 0 },
    { 0x8010, 0, 0, 0 },
    /* with the tie: G, the longer, from 0x9000 to 0x9040 */
    { 0x9000, 1, DEF, 800 }, { 0x9008, 1, DEF, 800 }, { 0x9030, 1, DEF, 800 },
    { 0x9040, 0, 0, 0 },
};

static void gen_seqs_tie(bytes *b, const hdr *h)
{
    gen_seqs(b, h, 1);
}

static void test_dwline_sequences(void)
{
    int v;

    for (v = 4; v <= 5; v++) {
        hdr h = std_hdr(v);

        CHECK_PROGRAM(gen_seqs_tie, &h, seqs_wants);
    }
}

/* opcode_base 4: opcodes 4 to 255 are special (8 is no const_add_pc);
 * opcode_base 14: opcode 13 is a standard one with 2 ULEB arguments,
 * skipped. */
static void test_dwline_opcode_base(void)
{
    bytes b = { .n = 0 };
    hdr h = std_hdr(4);
    prog p;
    ps_dwlines *d;
    static const want small[] = {
        { 0x100, 0, 0, 0 }, { 0x101, 1, 1, 9 }, { 0x102, 1, 1, 11 }, { 0x103, 0, 0, 0 },
    };
    static const want big[] = {
        { 0x600, 1, 1, 1 }, { 0x607, 1, 1, 1 }, { 0x608, 1, 1, 3 }, { 0x60c, 0, 0, 0 },
    };

    h.opcode_base = 4;
    h.line_base = -1;
    h.line_range = 4;
    prog_begin(&p, &b, &h);
    op_set_address(&p, 0x100);
    op_advance_line(&p, 9);             /* 3 < opcode_base: standard */
    u8(&b, 8);                          /* adj 4: +1, line -1: 0x101, 9 */
    u8(&b, 11);                         /* adj 7: +1, line +2: 0x102, 11 */
    op_advance_pc(&p, 1);
    op_end_sequence(&p);
    prog_end(&p);
    d = open_exact(&b);
    CHECK_WANTS(d, 0, small, 4);
    close_exact(d);

    memset(&b, 0, sizeof(b));
    h = std_hdr(4);
    h.opcode_base = 14;
    prog_begin(&p, &b, &h);
    op_set_address(&p, 0x600);
    op_copy(&p);                        /* 0x600: 1 */
    u8(&b, 13);                         /* vendor opcode, two ULEBs */
    uleb(&b, 300);
    uleb(&b, UINT64_C(1) << 40);
    op_advance_pc(&p, 8);
    op_special(&p, 0, 2);               /* 0x608: 3 */
    op_advance_pc(&p, 4);
    op_end_sequence(&p);
    prog_end(&p);
    d = open_exact(&b);
    CHECK_WANTS(d, 0, big, 4);
    close_exact(d);
}

/* Several units in one section, each found at its own offset; offsets
 * that are no unit's give nothing (and version 0). */
static void test_dwline_units_and_offsets(void)
{
    bytes b = { .n = 0 };
    hdr h4 = std_hdr(4), h5 = std_hdr(5);
    size_t off2, off3;
    ps_dwlines *d;
    uint64_t file;
    unsigned line;

    h5.dw64 = 1;
    gen_basic(&b, &h4, BASIC_AT);
    off2 = b.n;
    gen_default_file(&b, &h5);
    off3 = b.n;
    gen_basic(&b, &h5, BASIC_AT);
    d = open_exact(&b);
    CHECK_WANTS(d, off3, basic_wants, 5);
    CHECK_WANTS(d, 0, basic_wants, 4);
    CHECK_WANTS(d, off2, default_file_wants, 5);
    CHECK(ps_dwlines__find(d, 0, 0x4000, &file, &line) == 0);   /* not unit 1's */
    CHECK(ps_dwlines__find(d, off2, BASIC_AT, &file, &line) == 0);
    CHECK(ps_dwlines__version(d, 0) == 4);
    CHECK(ps_dwlines__version(d, off2) == 5);
    CHECK(ps_dwlines__version(d, off3) == 5);
    CHECK(ps_dwlines__find(d, 1, BASIC_AT, &file, &line) == 0);
    CHECK(ps_dwlines__version(d, 1) == 0);
    CHECK(ps_dwlines__find(d, off2 + 6, 0x4000, &file, &line) == 0);
    CHECK(ps_dwlines__find(d, b.n, BASIC_AT, &file, &line) == 0);
    CHECK(ps_dwlines__find(d, b.n - 1, BASIC_AT, &file, &line) == 0);
    CHECK(ps_dwlines__find(d, b.n + 1, BASIC_AT, &file, &line) == 0);
    CHECK(ps_dwlines__find(d, b.n + 4096, BASIC_AT, &file, &line) == 0);
    CHECK(ps_dwlines__find(d, UINT64_MAX, BASIC_AT, &file, &line) == 0);
    CHECK(ps_dwlines__version(d, UINT64_MAX) == 0);
    /* still right after the tables above were made */
    CHECK_WANTS(d, 0, basic_wants, 4);
    CHECK_WANTS(d, off3, basic_wants, 5);
    close_exact(d);

    d = ps_dwlines__new(NULL, 0, 0);
    CHECK(d != NULL);
    CHECK(ps_dwlines__find(d, 0, 0, &file, &line) == 0);
    CHECK(ps_dwlines__version(d, 0) == 0);
    ps_dwlines__free(d);
    ps_dwlines__free(NULL);
}

/* Lengths: unit_length and header_length past their room are refused
 * (32- and 64-bit, and the reserved 0xfffffff0); a unit_length that ends
 * before end_sequence leaves that sequence unfinished. */
static void test_dwline_lengths(void)
{
    bytes b;
    hdr h;
    ps_dwlines *d;
    uint64_t file;
    unsigned line;
    int dw64;

    for (dw64 = 0; dw64 <= 1; dw64++) {
        unsigned w = dw64 ? 8 : 4;
        size_t len_at = dw64 ? 4 : 0, hlen_at = len_at + w + 2, end;
        uint64_t len;

        memset(&b, 0, sizeof(b));
        h = std_hdr(4);
        h.dw64 = dw64;
        gen_basic(&b, &h, BASIC_AT);
        end = b.n;
        len = end - (len_at + w);

        patch(&b, len_at, len + 1, w);          /* one byte too long */
        d = open_exact(&b);
        CHECK(ps_dwlines__find(d, 0, BASIC_AT, &file, &line) == 0);
        CHECK(ps_dwlines__version(d, 0) == 0);
        close_exact(d);

        patch(&b, len_at, dw64 ? UINT64_C(0xffffffffffffff00) : 0xfffffff0u, w);
        d = open_exact(&b);
        CHECK(ps_dwlines__find(d, 0, BASIC_AT, &file, &line) == 0);
        close_exact(d);

        patch(&b, len_at, len - 1, w);          /* the end_sequence cut */
        d = open_exact(&b);
        CHECK(ps_dwlines__find(d, 0, BASIC_AT, &file, &line) == 0);
        CHECK(ps_dwlines__version(d, 0) == 4);
        close_exact(d);

        patch(&b, len_at, len, w);
        patch(&b, hlen_at, dw64 ? UINT64_MAX : 0xffffffffu, w);
        d = open_exact(&b);
        CHECK(ps_dwlines__find(d, 0, BASIC_AT, &file, &line) == 0);
        close_exact(d);

        /* header_length reaching into the next unit, but within the section */
        gen_basic(&b, &h, BASIC_AT + 0x100);
        patch(&b, hlen_at, end - (hlen_at + w) + 1, w);
        d = open_exact(&b);
        CHECK(ps_dwlines__find(d, 0, BASIC_AT, &file, &line) == 0);
        CHECK(ps_dwlines__find(d, end, BASIC_AT + 0x100, &file, &line) == 1);
        close_exact(d);
    }
    /* 64-bit length escape with no room for the 8 bytes after it */
    memset(&b, 0, sizeof(b));
    put(&b, 0xffffffffu, 4);
    put(&b, 0x10, 4);
    d = open_exact(&b);
    CHECK(ps_dwlines__find(d, 0, 0, &file, &line) == 0);
    close_exact(d);
}

/* Headers and opcodes that must be refused without reading further: a
 * version outside 2..5, line_range 0 (a divisor), opcode_base 0, a
 * set_address of 3 bytes (the sequence before it is kept), an extended
 * opcode longer than what is left. */
static void test_dwline_refused(void)
{
    static const int bad_versions[] = { 0, 1, 6, 0xffff };
    bytes b;
    hdr h;
    prog p;
    ps_dwlines *d;
    uint64_t file;
    unsigned line;
    size_t i;

    for (i = 0; i < sizeof(bad_versions) / sizeof(bad_versions[0]); i++) {
        memset(&b, 0, sizeof(b));
        h = std_hdr(4);
        gen_basic(&b, &h, BASIC_AT);
        patch(&b, 4, (uint64_t)bad_versions[i], 2);
        d = open_exact(&b);
        CHECK(ps_dwlines__find(d, 0, BASIC_AT, &file, &line) == 0);
        CHECK(ps_dwlines__version(d, 0) == 0);
        close_exact(d);
    }

    memset(&b, 0, sizeof(b));
    h = std_hdr(4);
    h.line_range = 0;
    prog_begin(&p, &b, &h);
    op_set_address(&p, 0x100);
    op_const_add_pc(&p);
    u8(&b, 200);                        /* special */
    op_end_sequence(&p);
    prog_end(&p);
    d = open_exact(&b);
    CHECK(ps_dwlines__find(d, 0, 0x100, &file, &line) == 0);
    close_exact(d);

    memset(&b, 0, sizeof(b));
    h = std_hdr(4);
    h.opcode_base = 0;
    prog_begin(&p, &b, &h);
    op_set_address(&p, 0x100);
    op_copy(&p);
    op_advance_pc(&p, 1);
    op_end_sequence(&p);
    prog_end(&p);
    d = open_exact(&b);
    CHECK(ps_dwlines__find(d, 0, 0x100, &file, &line) == 0);
    close_exact(d);

    /* a finished sequence, then a corrupt opcode: the first one stays */
    memset(&b, 0, sizeof(b));
    h = std_hdr(5);
    prog_begin(&p, &b, &h);
    op_set_address(&p, 0x100);
    op_copy(&p);
    op_advance_pc(&p, 4);
    op_end_sequence(&p);
    u8(&b, 0);
    uleb(&b, 4);
    u8(&b, DW_LNE_set_address);
    put(&b, 0x200, 3);
    op_copy(&p);
    op_advance_pc(&p, 4);
    op_end_sequence(&p);
    prog_end(&p);
    d = open_exact(&b);
    file = 9;
    CHECK(ps_dwlines__find(d, 0, 0x100, &file, &line) == 1);
    CHECK(file == 0 && line == 1);
    CHECK(ps_dwlines__find(d, 0, 0x200, &file, &line) == 0);
    close_exact(d);

    /* an end_sequence whose length runs past the unit (and the section)
     * ends nothing: the sequence stays unfinished */
    memset(&b, 0, sizeof(b));
    h = std_hdr(4);
    prog_begin(&p, &b, &h);
    op_set_address(&p, 0x100);
    op_copy(&p);
    op_advance_pc(&p, 4);
    u8(&b, 0);
    uleb(&b, 1000);
    u8(&b, DW_LNE_end_sequence);
    prog_end(&p);
    d = open_exact(&b);
    CHECK(ps_dwlines__find(d, 0, 0x100, &file, &line) == 0);
    close_exact(d);

    /* DW_LNE_HP_source_file_correlation (0x80) is skipped by its length,
     * whatever its contents, as BFD does */
    memset(&b, 0, sizeof(b));
    h = std_hdr(4);
    prog_begin(&p, &b, &h);
    op_set_address(&p, 0x100);
    op_copy(&p);
    u8(&b, 0);
    uleb(&b, 6);
    u8(&b, 0x80);
    put(&b, 0x0101010101, 5);           /* would be copy rows if run */
    op_advance_pc(&p, 4);
    op_end_sequence(&p);
    prog_end(&p);
    d = open_exact(&b);
    CHECK(ps_dwlines__find(d, 0, 0x100, &file, &line) == 1 && line == 1);
    CHECK(ps_dwlines__find(d, 0, 0x103, &file, &line) == 1 && line == 1);
    CHECK(ps_dwlines__find(d, 0, 0x104, &file, &line) == 0);
    close_exact(d);
}

/* ---- robustness: truncations and mutants -------------------------------- */

typedef struct seed {
    bytes    b;
    uint64_t offs[3];
    size_t   nr_offs;
} seed;

static void make_seeds(seed *s, size_t *n)
{
    hdr h;
    size_t k = 0;

    memset(s, 0, 8 * sizeof(*s));
    h = std_hdr(4);
    gen_basic(&s[k].b, &h, BASIC_AT);
    s[k++].nr_offs = 1;
    h = std_hdr(5);
    gen_basic(&s[k].b, &h, BASIC_AT);
    s[k++].nr_offs = 1;
    h.dw64 = 1;
    gen_default_file(&s[k].b, &h);
    s[k++].nr_offs = 1;
    h = std_hdr(3);
    h.be = 1;
    gen_basic(&s[k].b, &h, BASIC_AT);
    s[k++].nr_offs = 1;
    h = std_hdr(5);
    gen_same_addr(&s[k].b, &h);
    s[k++].nr_offs = 1;
    h = std_hdr(4);
    gen_seqs(&s[k].b, &h, 0);
    s[k++].nr_offs = 1;
    h = std_hdr(2);
    h.min_inst = 4;
    h.opcode_base = 10;
    gen_min_inst(&s[k].b, &h);
    s[k++].nr_offs = 1;
    h = std_hdr(4);                     /* three units */
    gen_basic(&s[k].b, &h, BASIC_AT);
    s[k].offs[1] = s[k].b.n;
    h = std_hdr(5);
    h.dw64 = 1;
    gen_seqs(&s[k].b, &h, 1);
    s[k].offs[2] = s[k].b.n;
    gen_basic(&s[k].b, &h, BASIC_AT + 0x10000);
    s[k++].nr_offs = 3;
    *n = k;
}

/* Addresses worth asking about in the seeds. */
static const uint64_t probes[] = {
    0, 0x100, 0x1000, 0x1003, 0x1004, 0x100c, 0x101c, 0x102d, 0x102f, 0x1030,
    0x2000, 0x2008, 0x2010, 0x2030, 0x2040, 0x204c, 0x2050, 0x2053, 0x2060,
    0x3000, 0x3010, 0x3020, 0x4000, 0x4008, 0x5000, 0x8000, 0x9000, 0x11000,
    0x1102d, UINT64_MAX,
};

static unsigned long answered;     /* finds that gave a row, to see the
                                    * mutants reach the opcodes */

/* Every lookup of the probes at each offset: 0 or 1 (never -1 here: no
 * allocation fails), the version 0 or 2..5. @return the bad answers */
static unsigned ask_all(const uint8_t *v, size_t n, int swap, const uint64_t *offs, size_t nr_offs,
                        uint64_t extra)
{
    ps_dwlines *d = ps_dwlines__new(v, n, swap);
    unsigned bad = 0;
    size_t i, k;

    if (d == NULL)
        return 1;
    for (k = 0; k < nr_offs; k++) {
        int ver;

        for (i = 0; i <= sizeof(probes) / sizeof(probes[0]); i++) {
            uint64_t file = 0;
            unsigned line = 0;
            int rc = ps_dwlines__find(d, offs[k], i < sizeof(probes) / sizeof(probes[0]) ?
                                      probes[i] : extra, &file, &line);

            bad += rc < 0 || rc > 1;
            answered += rc == 1;
        }
        ver = ps_dwlines__version(d, offs[k]);
        bad += ver != 0 && (ver < 2 || ver > 5);
    }
    ps_dwlines__free(d);
    return bad;
}

/* A prefix of n bytes must answer as the whole does, or not at all (no
 * later sequence of these seeds takes addresses from an earlier one). */
static unsigned prefix_agrees(const seed *s, const uint8_t *v, size_t n)
{
    ps_dwlines *whole = ps_dwlines__new(s->b.v, s->b.n, s->b.be);
    ps_dwlines *part = ps_dwlines__new(v, n, s->b.be);
    unsigned bad = 0;
    size_t i, k;

    for (k = 0; k < s->nr_offs; k++)
        for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
            uint64_t f1 = 0, f2 = 0;
            unsigned l1 = 0, l2 = 0;
            int r1 = ps_dwlines__find(whole, s->offs[k], probes[i], &f1, &l1);
            int r2 = ps_dwlines__find(part, s->offs[k], probes[i], &f2, &l2);

            bad += r2 != 0 && (r2 != 1 || r1 != 1 || f1 != f2 || l1 != l2);
        }
    ps_dwlines__free(whole);
    ps_dwlines__free(part);
    return bad;
}

static void test_dwline_truncations(void)
{
    seed s[8];
    size_t nr, i, n;
    unsigned bad = 0, bad_fixed = 0;

    make_seeds(s, &nr);
    for (i = 0; i < nr; i++)
        for (n = 0; n <= s[i].b.n; n++) {
            uint8_t *v = malloc(n ? n : 1);

            memcpy(v, s[i].b.v, n);
            bad += ask_all(v, n, s[i].b.be, s[i].offs, s[i].nr_offs, BASIC_AT);
            bad += prefix_agrees(&s[i], v, n);
            /* the same, with the first unit's length saying the prefix is
             * all there is: the decoder then runs into the cut */
            if (n >= 12 && n <= (s[i].nr_offs > 1 ? s[i].offs[1] : s[i].b.n)) {
                int dw64 = v[0] == 0xff && v[1] == 0xff && v[2] == 0xff && v[3] == 0xff;
                unsigned w = dw64 ? 8 : 4, j;
                uint64_t len = n - (dw64 ? 12 : 4);

                for (j = 0; j < w; j++)
                    v[(dw64 ? 4 : 0) + j] = (uint8_t)(len >> 8 * (s[i].b.be ? w - 1 - j : j));
                bad_fixed += ask_all(v, n, s[i].b.be, s[i].offs, 1, BASIC_AT);
                bad_fixed += prefix_agrees(&s[i], v, n);
            }
            free(v);
        }
    CHECK(bad == 0);
    CHECK(bad_fixed == 0);
}

static void mutate(uint8_t *v, size_t n, uint64_t *rs)
{
    static const uint8_t interesting[] = { 0, 1, 0x7f, 0x80, 0xfe, 0xff };
    unsigned k, nmut = 1 + (unsigned)(rnd(rs) % 4);

    for (k = 0; k < nmut && n > 0; k++) {
        /* half the mutations in the first 48 bytes: the header */
        size_t at = (rnd(rs) & 1) ? rnd(rs) % (n < 48 ? n : 48) : rnd(rs) % n;

        switch (rnd(rs) % 4) {
        case 0: v[at] = (uint8_t)rnd(rs); break;
        case 1: v[at] ^= (uint8_t)(1u << rnd(rs) % 8); break;
        case 2: v[at] = interesting[rnd(rs) % sizeof(interesting)]; break;
        default: v[at] += (rnd(rs) & 1) ? 1 : 0xff; break;
        }
    }
}

/* One mutant of src in an exact-size buffer (sometimes cut short).
 * @return the bad answers */
static unsigned one_mutant(const uint8_t *src, size_t n, int swap, const uint64_t *offs,
                           size_t nr_offs, uint64_t extra, uint64_t *rs)
{
    uint8_t *v;
    unsigned bad;

    if (rnd(rs) % 8 == 0 && n > 0)
        n = (size_t)(rnd(rs) % n);
    v = malloc(n ? n : 1);
    memcpy(v, src, n);
    mutate(v, n, rs);
    bad = ask_all(v, n, swap, offs, nr_offs, extra);
    free(v);
    return bad;
}

static void test_dwline_mutants(void)
{
    seed s[8];
    size_t nr, i;
    uint64_t rs = UINT64_C(0x9e3779b97f4a7c15);
    unsigned bad = 0;

    make_seeds(s, &nr);
    answered = 0;
    for (i = 0; i < NMUTANTS; i++) {
        const seed *sd = &s[i % nr];

        bad += one_mutant(sd->b.v, sd->b.n, sd->b.be, sd->offs, sd->nr_offs,
                          rnd(&rs) % 0x10000, &rs);
    }
    CHECK(bad == 0);
    CHECK(answered > NMUTANTS);         /* most mutants still have rows */
}

/* Line numbers are BFD's unsigned int: they wrap at 32 bits, both ways. */
static void test_dwline_line_wraps(void)
{
    bytes b = { .n = 0 };
    hdr h = std_hdr(4);
    prog p;
    ps_dwlines *d;
    uint64_t file;
    unsigned line = 0;

    prog_begin(&p, &b, &h);
    op_set_address(&p, 0x100);
    op_advance_line(&p, -2);            /* line -1: 0xffffffff */
    op_copy(&p);
    op_advance_pc(&p, 4);
    op_advance_line(&p, UINT32_MAX + INT64_C(3));   /* -1 + 2^32 + 2: 1 */
    op_copy(&p);
    op_advance_pc(&p, 4);
    op_end_sequence(&p);
    prog_end(&p);
    d = open_exact(&b);
    CHECK(ps_dwlines__find(d, 0, 0x100, &file, &line) == 1);
    CHECK(line == UINT32_MAX);
    CHECK(ps_dwlines__find(d, 0, 0x104, &file, &line) == 1);
    CHECK(line == 1);
    close_exact(d);
}

/* An advance_line past INT64_MAX in a corrupt .debug_line: the line
 * register wraps as BFD's unsigned int does (no signed overflow). */
static void test_dwline_line_overflow(void)
{
    bytes b = { .n = 0 };
    hdr h = std_hdr(4);
    prog p;
    ps_dwlines *d;
    uint64_t file;
    unsigned line = 7;

    prog_begin(&p, &b, &h);
    op_set_address(&p, 0x100);
    op_advance_line(&p, INT64_MAX);     /* 1 + INT64_MAX */
    op_copy(&p);
    op_advance_pc(&p, 4);
    op_advance_line(&p, INT64_MAX);
    op_special(&p, 0, 8);               /* the special opcode's add too */
    op_advance_pc(&p, 4);
    op_end_sequence(&p);
    prog_end(&p);
    d = open_exact(&b);
    CHECK(ps_dwlines__find(d, 0, 0x100, &file, &line) == 1);
    CHECK(line == 0);                   /* (1 + 0x7fffffffffffffff) mod 2^32 */
    CHECK(ps_dwlines__find(d, 0, 0x104, &file, &line) == 1);
    CHECK(line == 0xffffffffu + 8);     /* (0 + 0x7fffffffffffffff + 8) mod 2^32 */
    close_exact(d);
}


/* ---- this binary's own .debug_line -------------------------------------- */

static uint8_t *self_debug_line(size_t *size)
{
    int fd;
    Elf *elf;
    Elf_Scn *scn = NULL;
    size_t shstrndx;
    uint8_t *copy = NULL;

    setup();
    *size = 0;
    if ((fd = open(self.path, O_RDONLY)) < 0)
        return NULL;
    if ((elf = elf_begin(fd, ELF_C_READ, NULL)) != NULL && elf_getshdrstrndx(elf, &shstrndx) == 0)
        while ((scn = elf_nextscn(elf, scn)) != NULL) {
            GElf_Shdr sh;
            const char *n;
            Elf_Data *data;

            if (gelf_getshdr(scn, &sh) == NULL)
                break;
            n = elf_strptr(elf, shstrndx, sh.sh_name);
            if (n == NULL || strcmp(n, ".debug_line") != 0)
                continue;
            if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
                break;
            if ((data = elf_getdata(scn, NULL)) != NULL && data->d_size > 0 &&
                (copy = malloc(data->d_size)) != NULL) {
                memcpy(copy, data->d_buf, data->d_size);
                *size = data->d_size;
            }
            break;
        }
    elf_end(elf);
    close(fd);
    return copy;
}

/* The units of a .debug_line, by their lengths. */
static size_t unit_offsets(const uint8_t *v, size_t n, uint64_t *offs, size_t max)
{
    size_t off = 0, k = 0;

    while (off + 4 <= n && k < max) {
        uint32_t l32;
        uint64_t len, hdr_len = 4;

        memcpy(&l32, v + off, 4);
        len = l32;
        if (l32 == 0xffffffffu) {
            if (off + 12 > n)
                break;
            memcpy(&len, v + off + 4, 8);
            hdr_len = 12;
        }
        if (len > n - off - hdr_len)
            break;
        offs[k++] = off;
        off += hdr_len + (size_t)len;
    }
    return k;
}

static void test_dwline_self(void)
{
    size_t n, nr, i, found = 0, unit = 0;
    uint8_t *sec = self_debug_line(&n);
    uint64_t *offs;
    ps_dwlines *d;

    CHECK(sec != NULL && n > 0);
    if (sec == NULL)
        return;
    offs = calloc(4096, sizeof(*offs));
    nr = unit_offsets(sec, n, offs, 4096);
    CHECK(nr > 0);
    d = ps_dwlines__new(sec, n, 0);
    for (i = 0; i < nr; i++) {
        uint64_t file = 0;
        unsigned line = 0;
        int ver = ps_dwlines__version(d, offs[i]);

        CHECK(ver >= 2 && ver <= 5);
        if (ps_dwlines__find(d, offs[i], self.marker, &file, &line) == 1) {
            found++;
            unit = i;
            CHECK(line == marker_line);
            if (line != marker_line)
                fprintf(stderr, "  marker at %#llx: line %u, want %u\n",
                        (unsigned long long)self.marker, line, marker_line);
            CHECK(ps_dwlines__find(d, offs[i], self.inl, &file, &line) == 1);
            CHECK(line == inl_line);
        }
    }
    CHECK(found == 1);                  /* in one unit: this file's */
    ps_dwlines__free(d);

    /* mutants in exact-size buffers: of the units of at most 4 KiB in
     * turn, and a few of this file's (large: ASan's code has many rows) */
    if (found == 1) {
        uint64_t rs = UINT64_C(0xd1b54a32d192ed03), zero = 0;
        size_t small = 0, k = 0, m;
        unsigned bad = 0;

        answered = 0;
        for (m = 0; m < NMUTANTS + NMUTANTS_SELF; m++) {
            uint64_t addr = self.text_lo + rnd(&rs) % (self.text_hi - self.text_lo + 1);
            size_t lo, hi;

            if (m < NMUTANTS) {         /* the next small unit */
                for (i = 0; i < nr; i++) {
                    k = (k + 1) % nr;
                    hi = k + 1 < nr ? offs[k + 1] : n;
                    if (hi - offs[k] <= 4096)
                        break;
                }
                if (i == nr)
                    continue;
                small++;
            } else {
                k = unit;
                addr = m % 2 ? self.marker : addr;
            }
            lo = offs[k];
            hi = k + 1 < nr ? offs[k + 1] : n;
            bad += one_mutant(sec + lo, hi - lo, 0, &zero, 1, addr, &rs);
        }
        CHECK(small == NMUTANTS);
        CHECK(bad == 0);
        CHECK(answered > NMUTANTS_SELF / 4);    /* the marker, in many mutants */
    }
    free(offs);
    free(sec);
}

/* ---- u64map -------------------------------------------------------------- */

/* The inverse of the odd multiplier mod 2^64 (Newton's iteration). */
static uint64_t inverse(uint64_t a)
{
    uint64_t x = a;
    int i;

    for (i = 0; i < 6; i++)
        x *= 2 - a * x;
    return x;
}

static void test_u64map(void)
{
    ps_u64map m;
    uint64_t *v, i, k, bad = 0;
    /* keys whose Fibonacci hash is the same at every capacity, placed at
     * the table's last slot: the longest probe runs, wrapping to slot 0 */
    uint64_t inv = inverse(UINT64_C(0x9e3779b97f4a7c15));
    const uint64_t ncoll = 3000, nseq = 40000;

    CHECK(inv * UINT64_C(0x9e3779b97f4a7c15) == 1);
    ps_u64map__init(&m);
    CHECK(ps_u64map__get(&m, 0) == NULL);
    CHECK(ps_u64map__get(&m, 42) == NULL);
    CHECK(m.nr == 0);

    CHECK(ps_u64map__put(&m, 0, 100) == 0);
    CHECK((v = ps_u64map__get(&m, 0)) != NULL && *v == 100);
    CHECK(ps_u64map__put(&m, UINT64_MAX, 7) == 0);
    CHECK((v = ps_u64map__get(&m, UINT64_MAX)) != NULL && *v == 7);
    CHECK(ps_u64map__get(&m, 1) == NULL);
    *ps_u64map__get(&m, 0) = 101;       /* written through */
    CHECK(*ps_u64map__get(&m, 0) == 101);

    for (i = 0; i < ncoll; i++)
        bad += ps_u64map__put(&m, (UINT64_C(0xffffffff) << 32 | i) * inv, i) != 0;
    for (i = 0; i < nseq; i++) {        /* aligned, high-bit and sequential keys */
        bad += ps_u64map__put(&m, (i + 1) << 12, i ^ 0x5555) != 0;
        bad += ps_u64map__put(&m, (i + 1) << 40 | 1, ~i) != 0;
        bad += ps_u64map__put(&m, UINT64_C(0x8000000000000000) + i * 3 + 2, i * i) != 0;
    }
    CHECK(bad == 0);
    CHECK(m.nr == 2 + ncoll + 3 * nseq);
    CHECK(m.cap >= 2 * m.nr && (m.cap & (m.cap - 1)) == 0);
    for (i = 0, bad = 0; i < ncoll; i++) {
        v = ps_u64map__get(&m, (UINT64_C(0xffffffff) << 32 | i) * inv);
        bad += v == NULL || *v != i;
        /* absent keys with the same hash: the whole run is walked */
        bad += ps_u64map__get(&m, (UINT64_C(0xffffffff) << 32 | (i + ncoll)) * inv) != NULL;
    }
    for (i = 0; i < nseq; i++) {
        bad += (v = ps_u64map__get(&m, (i + 1) << 12)) == NULL || *v != (i ^ 0x5555);
        bad += (v = ps_u64map__get(&m, (i + 1) << 40 | 1)) == NULL || *v != ~i;
        k = UINT64_C(0x8000000000000000) + i * 3 + 2;
        bad += (v = ps_u64map__get(&m, k)) == NULL || *v != i * i;
        bad += ps_u64map__get(&m, k + 1) != NULL;
        bad += ps_u64map__get(&m, ((i + 1) << 12) + 1) != NULL;
    }
    CHECK(bad == 0);
    CHECK((v = ps_u64map__get(&m, 0)) != NULL && *v == 101);
    CHECK((v = ps_u64map__get(&m, UINT64_MAX)) != NULL && *v == 7);
    ps_u64map__free(&m);
    CHECK(m.nr == 0 && m.cap == 0 && ps_u64map__get(&m, 0) == NULL);
    ps_u64map__free(&m);                /* twice is fine */

    /* the colliding keys alone: the run starts at the last slot and
     * wraps to slot 0 */
    ps_u64map__init(&m);
    for (i = 0, bad = 0; i < ncoll; i++)
        bad += ps_u64map__put(&m, (UINT64_C(0xffffffff) << 32 | i) * inv, i + 1) != 0;
    for (i = 0; i < ncoll; i++) {
        v = ps_u64map__get(&m, (UINT64_C(0xffffffff) << 32 | i) * inv);
        bad += v == NULL || *v != i + 1;
    }
    bad += ps_u64map__get(&m, 0) != NULL;
    CHECK(bad == 0);
    CHECK(m.nr == ncoll);
    ps_u64map__free(&m);

    /* growth one key at a time: every key stays reachable */
    ps_u64map__init(&m);
    for (i = 0, bad = 0; i < 1000; i++) {
        bad += ps_u64map__put(&m, i * 64, i) != 0;
        for (k = 0; k <= i; k += 1 + i / 16)
            bad += (v = ps_u64map__get(&m, k * 64)) == NULL || *v != k;
    }
    CHECK(bad == 0);
    ps_u64map__free(&m);
}

/* ---- bfdsym and dwfunc on this binary ------------------------------------ */

/* The .symtab index of a symbol, or 0. */
static size_t symtab_index(Elf *elf, const char *want)
{
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *data;
        size_t i;

        if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0 ||
            (data = elf_getdata(scn, NULL)) == NULL)
            continue;
        for (i = 1; i < data->d_size / sh.sh_entsize; i++) {
            GElf_Sym s;
            const char *n;

            if (gelf_getsym(data, (int)i, &s) != NULL &&
                (n = elf_strptr(elf, sh.sh_link, s.st_name)) != NULL && strcmp(n, want) == 0)
                return i;
        }
    }
    return 0;
}

static void test_bfdsym_self(void)
{
    int fd;
    Elf *elf;
    ps_bfdsyms *t;
    const char *file, *name;
    uint64_t value;
    size_t one, two;

    setup();
    fd = open(self.path, O_RDONLY);
    CHECK(fd >= 0);
    elf = elf_begin(fd, ELF_C_READ, NULL);
    CHECK(elf != NULL);
    t = ps_bfdsyms__new(elf);
    CHECK(t != NULL);
    if (t == NULL)
        goto out;
    CHECK(ps_bfdsyms__in_section(t, self.marker));
    CHECK(ps_bfdsyms__in_section(t, self.text_lo));
    CHECK(!ps_bfdsyms__in_section(t, 0));
    CHECK(!ps_bfdsyms__in_section(t, UINT64_MAX));

    name = ps_bfdsyms__find(t, self.marker, &file, &value);
    CHECK(eq(name, "srcline_marker"));
    CHECK(value == self.marker_fn);
    CHECK(file == NULL);                /* globals follow a later FILE */
    name = ps_bfdsyms__find(t, self.marker_fn, &file, &value);
    CHECK(eq(name, "srcline_marker"));
    name = ps_bfdsyms__find(t, self.local, &file, &value);
    CHECK(eq(name, "local_fn"));
    CHECK(value == self.local);
    CHECK(same_base(file, this_file()));
    name = ps_bfdsyms__find(t, self.inl, &file, &value);
    CHECK(eq(name, "inl_outer"));

    /* aliases: the strictly larger wins, else the first in .symtab order */
    name = ps_bfdsyms__find(t, self.alias_big, &file, &value);
    CHECK(eq(name, "ps_t_alias_big"));
    name = ps_bfdsyms__find(t, self.alias_big + 3, &file, &value);  /* past small's size */
    CHECK(eq(name, "ps_t_alias_big"));
    CHECK(value == self.alias_big);
    one = symtab_index(elf, "ps_t_alias_one");
    two = symtab_index(elf, "ps_t_alias_two");
    CHECK(one != 0 && two != 0);
    name = ps_bfdsyms__find(t, self.alias_one, &file, &value);
    CHECK(eq(name, one < two ? "ps_t_alias_one" : "ps_t_alias_two"));

    /* no end: the last byte of .text still has a function */
    CHECK(ps_bfdsyms__find(t, self.text_hi - 1, &file, &value) != NULL);
    CHECK(ps_bfdsyms__find(t, 0, &file, &value) == NULL && file == NULL);
    ps_bfdsyms__free(t);
out:
    ps_bfdsyms__free(NULL);
    elf_end(elf);
    close(fd);
}

static void test_dwfunc_self(void)
{
    int fd;
    Dwarf *dw;
    Dwarf_Die cu, out[8];
    ps_dwfuncs *t;
    long n;

    setup();
    fd = open(self.path, O_RDONLY);
    dw = dwarf_begin(fd, DWARF_C_READ);
    CHECK(dw != NULL);
    t = ps_dwfuncs__new();
    CHECK(t != NULL);
    if (dw == NULL || t == NULL)
        goto out;
    CHECK(dwarf_addrdie(dw, self.marker, &cu) != NULL);
    n = ps_dwfuncs__chain(t, &cu, self.marker, out, 8);
    CHECK(n == 1);
    CHECK(n >= 1 && eq(dwarf_diename(&out[0]), "srcline_marker"));
    CHECK(n >= 1 && dwarf_tag(&out[0]) == DW_TAG_subprogram);

    CHECK(dwarf_addrdie(dw, self.inl, &cu) != NULL);
    n = ps_dwfuncs__chain(t, &cu, self.inl, out, 8);
    CHECK(n == 2);
    if (n == 2) {
        CHECK(dwarf_tag(&out[0]) == DW_TAG_inlined_subroutine);
        CHECK(dwarf_tag(&out[1]) == DW_TAG_subprogram);
        CHECK(eq(dwarf_diename(&out[1]), "inl_outer"));
    }
    CHECK(ps_dwfuncs__chain(t, &cu, self.inl, out, 1) == 1);
    CHECK(ps_dwfuncs__chain(t, &cu, 0, out, 8) == 0);
    CHECK(ps_dwfuncs__chain(t, &cu, UINT64_MAX, out, 8) == 0);
out:
    ps_dwfuncs__free(t);
    ps_dwfuncs__free(NULL);
    if (dw != NULL)
        dwarf_end(dw);
    close(fd);
}

/* ---- srcline ------------------------------------------------------------- */

static void test_srcline_self(void)
{
    ps_srcline *c;
    ps_srcinfo a, b;
    const ps_srcloc *first;
    uint64_t addr, step;
    unsigned bad = 0, lookups = 0, named = 0;
    size_t chars = 0;

    setup();
    CHECK(ps_srcline__new(&c) == 0);
    CHECK(ps_srcline__find(c, self.path, self.marker, &a) == 0);
    CHECK(a.nr == 1);
    if (a.nr >= 1) {
        CHECK(eq(a.loc[0].func, "srcline_marker"));
        CHECK(same_base(a.loc[0].file, this_file()));
        CHECK(a.loc[0].line == marker_line);
        if (a.loc[0].line != marker_line || !same_base(a.loc[0].file, this_file()))
            fprintf(stderr, "  marker: %s:%u, want %s:%u\n",
                    a.loc[0].file ? a.loc[0].file : "??", a.loc[0].line, this_file(), marker_line);
    }
    /* the cached answer: the same records */
    CHECK(ps_srcline__find(c, self.path, self.marker, &b) == 0);
    CHECK(b.loc == a.loc && b.nr == a.nr);
    first = a.loc;

    /* the inline chain: inl_inner at its line, then inl_outer at the call */
    CHECK(ps_srcline__find(c, self.path, self.inl, &a) == 0);
    CHECK(a.nr == 2);
    if (a.nr == 2) {
        CHECK(eq(a.loc[0].func, "inl_inner"));
        CHECK(same_base(a.loc[0].file, this_file()));
        CHECK(a.loc[0].line == inl_line);
        CHECK(eq(a.loc[1].func, "inl_outer"));
        CHECK(same_base(a.loc[1].file, this_file()));
        CHECK(a.loc[1].line == inl_call_line);
    }

    /* assembly without DWARF: the symbol BFD picks */
    CHECK(ps_srcline__find(c, self.path, self.alias_big + 1, &a) == 0);
    CHECK(a.nr == 1 && eq(a.loc[0].func, "ps_t_alias_big"));

    /* outside every section: nothing */
    CHECK(ps_srcline__find(c, self.path, 0, &a) == 0 && a.nr == 0);
    CHECK(ps_srcline__find(c, self.path, UINT64_MAX - 15, &a) == 0 && a.nr == 0);

    /* a sweep of .text: every answer well-formed (the cache grows many
     * times over), and the first answer kept in place */
    step = (self.text_hi - self.text_lo) / 3000 + 1;
    for (addr = self.text_lo; addr < self.text_hi; addr += step, lookups++) {
        size_t i;

        if (ps_srcline__find(c, self.path, addr, &a) != 0 || a.nr > 1024) {
            bad++;
            continue;
        }
        for (i = 0; i < a.nr; i++)      /* readable ("" is addr2line's too) */
            chars += (a.loc[i].func ? strlen(a.loc[i].func) : 0) +
                     (a.loc[i].file ? strlen(a.loc[i].file) : 0);
        named += a.nr > 0 && a.loc[0].func != NULL;
    }
    CHECK(lookups > 100);
    CHECK(bad == 0);
    CHECK(chars > 0 && named > lookups / 2);
    CHECK(ps_srcline__find(c, self.path, self.marker, &b) == 0);
    CHECK(b.loc == first && b.nr == 1);
    CHECK(b.nr == 1 && b.loc[0].line == marker_line);
    ps_srcline__free(c);
    ps_srcline__free(NULL);
}

static void test_srcline_not_elf(void)
{
    char path[] = "/tmp/ps-srcline-XXXXXX";
    int fd = mkstemp(path);
    static const char text[] = "not an ELF file\n\x7f" "ELF but not really\n";
    ps_srcline *c;
    ps_srcinfo a;

    CHECK(fd >= 0);
    CHECK(write(fd, text, sizeof(text)) == (ssize_t)sizeof(text));
    close(fd);
    CHECK(ps_srcline__new(&c) == 0);
    CHECK(ps_srcline__find(c, "/nonexistent/ps-srcline/none", 0x1000, &a) == 0);
    CHECK(a.nr == 0);
    CHECK(ps_srcline__find(c, "/nonexistent/ps-srcline/none", 0x1000, &a) == 0);
    CHECK(a.nr == 0);
    CHECK(ps_srcline__find(c, path, 0, &a) == 0 && a.nr == 0);
    CHECK(ps_srcline__find(c, path, 0x10, &a) == 0 && a.nr == 0);
    CHECK(ps_srcline__find(c, "/tmp", 0x10, &a) == 0 && a.nr == 0);
    CHECK(ps_srcline__find(c, "", 0x10, &a) == 0 && a.nr == 0);
    ps_srcline__free(c);
    unlink(path);
}

/* Equal answers: the same records, field by field ("??" alike). */
static int same_str(const char *a, const char *b)
{
    return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

static int same_info(const ps_srcinfo *a, const ps_srcinfo *b)
{
    size_t i;

    if (a->nr != b->nr)
        return 0;
    for (i = 0; i < a->nr; i++)
        if (!same_str(a->loc[i].func, b->loc[i].func) ||
            !same_str(a->loc[i].file, b->loc[i].file) || a->loc[i].line != b->loc[i].line)
            return 0;
    return 1;
}

/* Files opened ahead by the worker answer as files opened on the spot:
 * waited for when being opened, taken back when still queued, left
 * unopened when freed queued. */
static void test_srcline_prefetch(void)
{
    static const char *const missing[] = {
        "/nonexistent/ps-srcline/a", "/nonexistent/ps-srcline/b", "/tmp",
    };
    ps_srcline *c, *plain;
    ps_srcinfo a, b;
    uint64_t addrs[4];
    size_t i, k;

    setup();
    addrs[0] = self.marker;
    addrs[1] = self.inl;
    addrs[2] = self.alias_big + 1;
    addrs[3] = 0;
    for (k = 0; k < 2; k++) {
        CHECK(ps_srcline__new(&c) == 0);
        CHECK(ps_srcline__new(&plain) == 0);
        /* k == 0: the file is the worker's first; k == 1: it waits behind
         * others, and the lookup may take it back from the queue */
        for (i = 0; k == 1 && i < sizeof(missing) / sizeof(missing[0]); i++)
            CHECK(ps_srcline__prefetch(c, missing[i]) == 0);
        CHECK(ps_srcline__prefetch(c, self.path) == 0);
        CHECK(ps_srcline__prefetch(c, self.path) == 0);     /* known: left alone */
        for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
            CHECK(ps_srcline__find(c, self.path, addrs[i], &a) == 0);
            CHECK(ps_srcline__find(plain, self.path, addrs[i], &b) == 0);
            CHECK(same_info(&a, &b));
        }
        CHECK(ps_srcline__find(c, missing[0], 0x1000, &a) == 0 && a.nr == 0);
        ps_srcline__free(plain);
        ps_srcline__free(c);
    }
    /* freed with files still queued or being opened */
    CHECK(ps_srcline__new(&c) == 0);
    CHECK(ps_srcline__prefetch(c, self.path) == 0);
    for (i = 0; i < sizeof(missing) / sizeof(missing[0]); i++)
        CHECK(ps_srcline__prefetch(c, missing[i]) == 0);
    ps_srcline__free(c);
}

static int write_copy(char *path, const uint8_t *img, size_t n)
{
    int fd = mkstemp(path);

    if (fd < 0)
        return -1;
    if (write(fd, img, n) != (ssize_t)n) {
        close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    struct stat st;
    uint8_t *v;
    int fd = open(path, O_RDONLY);

    *n = 0;
    if (fd < 0 || fstat(fd, &st) != 0 || (v = malloc((size_t)st.st_size)) == NULL) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (read(fd, v, (size_t)st.st_size) != (ssize_t)st.st_size) {
        free(v);
        close(fd);
        return NULL;
    }
    close(fd);
    *n = (size_t)st.st_size;
    return v;
}

static void garble(uint8_t *img, size_t n, const secinfo *s, uint64_t *rs)
{
    uint64_t i;

    if (!s->found || s->off + s->size > n)
        return;
    for (i = 0; i < s->size; i++)
        img[s->off + i] = (uint8_t)rnd(rs);
}

/* What srcline says at the marker in a copy of this binary. */
typedef struct seen {
    size_t   nr;
    int      named;             /* loc[0] is srcline_marker */
    int      has_file;
    unsigned line;
} seen;

/* srcline at the marks and across .text of the copy at path: every
 * lookup answers, none crashes. */
static seen ask_copy(const char *path)
{
    ps_srcline *c;
    ps_srcinfo a;
    seen s = { 0, 0, 0, 0 };
    uint64_t addr, step = (self.text_hi - self.text_lo) / 500 + 1;
    unsigned bad = 0;

    CHECK(ps_srcline__new(&c) == 0);
    CHECK(ps_srcline__find(c, path, self.inl, &a) == 0);
    for (addr = self.text_lo; addr < self.text_hi; addr += step)
        bad += ps_srcline__find(c, path, addr, &a) != 0;
    CHECK(bad == 0);
    CHECK(ps_srcline__find(c, path, self.marker, &a) == 0);
    s.nr = a.nr;
    if (a.nr > 0) {
        s.named = eq(a.loc[0].func, "srcline_marker");
        s.has_file = a.loc[0].file != NULL;
        s.line = a.loc[0].line;
    }
    ps_srcline__free(c);
    return s;
}

/* ask_copy() on img written to a temporary file. */
static seen ask_image(const uint8_t *img, size_t n)
{
    char path[] = "/tmp/ps-srcline-XXXXXX";
    seen s = { 0, 0, 0, 0 };

    CHECK(write_copy(path, img, n) == 0);
    s = ask_copy(path);
    unlink(path);
    return s;
}

static void test_srcline_corrupt_copies(void)
{
    size_t n;
    uint8_t *orig, *img;
    secinfo info, line, abbrev;
    seen a;
    uint64_t rs = UINT64_C(0x853c49e6748fea9b);
    int round;

    setup();
    orig = slurp(self.path, &n);
    CHECK(orig != NULL);
    if (orig == NULL)
        return;
    info = section_of(self.path, ".debug_info");
    line = section_of(self.path, ".debug_line");
    abbrev = section_of(self.path, ".debug_abbrev");
    CHECK(info.found && line.found && abbrev.found);
    img = malloc(n);

    /* garbage in .debug_info and .debug_line (three seeds), in
     * .debug_line alone (the function still from DWARF), in .debug_abbrev
     * (libdw reads no DIE right): srcline_marker named all the same */
    for (round = 0; round < 5; round++) {
        const secinfo *garbage[5][2] = {
            { &info, &line }, { &info, &line }, { &info, &line }, { &line, NULL },
            { &abbrev, NULL },
        };

        memcpy(img, orig, n);
        garble(img, n, garbage[round][0], &rs);
        if (garbage[round][1] != NULL)
            garble(img, n, garbage[round][1], &rs);
        a = ask_image(img, n);
        CHECK(a.nr == 1 && a.named);
    }

    /* a .debug_info larger than the file: binutils refuses the DWARF,
     * addr2line names the symbol, no line, no file (a global) */
    if (info.shdr_off + 64 <= n && orig[EI_CLASS] == ELFCLASS64) {
        uint64_t huge = (uint64_t)n * 2;

        memcpy(img, orig, n);
        memcpy(img + info.shdr_off + 32, &huge, 8);        /* Elf64_Shdr.sh_size */
        a = ask_image(img, n);
        CHECK(a.nr == 1 && a.named);
        CHECK(a.line == 0 && !a.has_file);
    }
    free(img);
    free(orig);
}

static const struct harness_test tests[] = {
    TEST(test_dwline_basic_rows),
    TEST(test_dwline_min_inst),
    TEST(test_dwline_default_file),
    TEST(test_dwline_same_address_last_wins),
    TEST(test_dwline_sequences),
    TEST(test_dwline_opcode_base),
    TEST(test_dwline_units_and_offsets),
    TEST(test_dwline_lengths),
    TEST(test_dwline_refused),
    TEST(test_dwline_line_wraps),
    TEST(test_dwline_line_overflow),
    TEST(test_dwline_truncations),
    TEST(test_dwline_mutants),
    TEST(test_dwline_self),
    TEST(test_u64map),
    TEST(test_bfdsym_self),
    TEST(test_dwfunc_self),
    TEST(test_srcline_self),
    TEST(test_srcline_not_elf),
    TEST(test_srcline_prefetch),
    TEST(test_srcline_corrupt_copies),
};

TEST_MAIN(tests)
