/* SPDX-License-Identifier: MIT */
/*
 * test_unwind.c - unwind.c without real programs: which samples are
 * unwound (user registers and a non-empty dynamic stack dump), the sample
 * ip as the first address (taken from its slot among the registers the
 * mask packs), a chain that stops there when no map names a file, and
 * which processes perf unwinds at all (HEADER_ARCH x86_64: only once a map
 * of a readable 64-bit ELF file went in, found under its path, in the
 * build-id cache or as perf's own [vdso]; no HEADER_ARCH: at the first
 * map until the first sample, this machine's rule after; aarch64:
 * always). The ELF files are bare headers written to a mkdtemp()
 * directory. Through this process's own vdso (perf's [vdso] when the
 * BUILD_ID feature does not name it): its CFI carries the chain into the
 * caller; a frame without CFI (no file, no FDE) ends the chain, frame
 * pointer or not; a return address saved in memory perf knows but cannot
 * read is a 0, one more frame. Unwinding through real programs is checked
 * against perf by tests/diff/unwind.sh and tests/diff/script.sh on the
 * dwarf captures.
 */
#include <elf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "harness.h"
#include "../../libparse/sym_user.h"
#include "../../libparse/unwind.h"
#include "../../libparse/unwind_int.h"

#define START UINT64_C(0x400000)
#define BID   "\xab\xcd\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12"

static char dir[64];

static void map_in(ps_machine *m, uint32_t pid, unsigned slot, const char *name,
                   const char *bid, uint64_t t);

/* x86-64: AX, BX, SP (7) and IP (8) sampled, packed in that order. */
static const uint64_t regs[] = { 1, 2, 0x7ffc0000, 0x401234 };
static uint8_t stack[64];

static ps_sample dwarf_sample(void)
{
    ps_sample s;

    memset(&s, 0, sizeof(s));
    s.sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    s.pid = s.tid = 42;
    s.regs_user.abi = 2;
    s.regs_user.mask = (1u << 0) | (1u << 1) | (1u << 7) | (1u << 8);
    s.regs_user.nr = 4;
    s.regs_user.regs = regs;
    s.stack_size = sizeof(stack);
    s.stack_data = stack;
    s.stack_dyn_size = sizeof(stack);
    return s;
}

static void test_wanted_needs_regs_and_dyn_stack(void)
{
    ps_sample s = dwarf_sample();

    CHECK(ps_unwind__wanted(&s));
    s.stack_dyn_size = 0;
    CHECK(!ps_unwind__wanted(&s));
    s = dwarf_sample();
    s.regs_user.abi = 0;
    CHECK(!ps_unwind__wanted(&s));
    s = dwarf_sample();
    s.sample_type &= ~(uint64_t)PERF_SAMPLE_STACK_USER;
    CHECK(!ps_unwind__wanted(&s));
}

static void test_first_address_is_the_ip(void)
{
    ps_machine *m;
    ps_unwinder *u;
    ps_sample s = dwarf_sample();
    uint64_t ips[8];

    CHECK(ps_machine__new(&m, NULL) == PS_OK);
    map_in(m, 42, 8, "//anon", NULL, 0);        /* some map: perf sets the process up */
    CHECK(ps_unwinder__new(&u, m, NULL, NULL, NULL) == PS_OK);
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 1);
    CHECK(ips[0] == 0x401234);
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 0) == 0);
    s.regs_user.mask &= ~(uint64_t)(1u << 8);       /* no IP: nothing */
    s.regs_user.nr = 3;
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 0);
    ps_unwinder__free(u);
    ps_machine__free(m);
    ps_unwinder__free(NULL);
}

/* ---- which processes perf unwinds ------------------------------------ */

static const char *tpath(const char *name)
{
    static char buf[4][128];
    static int k;

    k = (k + 1) % 4;
    snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
    return buf[k];
}

/* An ELF header alone: enough for perf's dso__type(). */
static void write_elf(const char *path, int class64)
{
    unsigned char b[sizeof(Elf64_Ehdr)];
    uint16_t machine = class64 ? EM_X86_64 : EM_386;
    FILE *f = fopen(path, "wb");

    memset(b, 0, sizeof(b));
    memcpy(b, ELFMAG, SELFMAG);
    b[EI_CLASS] = class64 ? ELFCLASS64 : ELFCLASS32;
    b[EI_DATA] = ELFDATA2LSB;
    b[EI_VERSION] = EV_CURRENT;
    b[16] = ET_DYN;                             /* e_type, then e_machine */
    memcpy(b + 18, &machine, sizeof(machine));
    b[20] = EV_CURRENT;                         /* e_version */
    b[class64 ? 52 : 40] = class64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);  /* e_ehsize */
    CHECK(f != NULL);
    if (f == NULL)
        return;
    CHECK(fwrite(b, 1, class64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr), f) > 0);
    fclose(f);
}

static void setup_dir(void)
{
    snprintf(dir, sizeof(dir), "/tmp/perfsift-test-unwind.XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    write_elf(tpath("lib64.so"), 1);
    write_elf(tpath("lib32.so"), 0);
    CHECK(mkdir(tpath("cache"), 0755) == 0);
    CHECK(mkdir(tpath("cache/.build-id"), 0755) == 0);
    CHECK(mkdir(tpath("cache/.build-id/ab"), 0755) == 0);
    CHECK(mkdir(tpath("cache/.build-id/ab/cd0102030405060708090a0b0c0d0e0f101112"), 0755) == 0);
    write_elf(tpath("cache/.build-id/ab/cd0102030405060708090a0b0c0d0e0f101112/elf"), 1);
}

static void rm_dir(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_unwind: could not remove %s\n", dir);
}

static ps_event timed(uint32_t type, uint64_t t)
{
    ps_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.type = type;
    ev.misc = PERF_RECORD_MISC_USER;
    ev.has_sample_id = 1;
    ev.sample_id.present = PERF_SAMPLE_TIME;
    ev.sample_id.time = t;
    return ev;
}

/* An MMAP2 of name at start, len bytes; bid: its build-id, or NULL. */
static void map_at(ps_machine *m, uint32_t pid, uint64_t start, uint64_t len,
                   const char *name, const char *bid, uint64_t t)
{
    ps_event ev = timed(PERF_RECORD_MMAP2, t);

    ev.u.mmap2.pid = ev.u.mmap2.tid = pid;
    ev.u.mmap2.start = start;
    ev.u.mmap2.len = len;
    ev.u.mmap2.prot = 5;
    ev.u.mmap2.filename = name;
    if (bid != NULL) {
        ev.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
        ev.u.mmap2.has_build_id = 1;
        ev.u.mmap2.build_id_size = 20;
        memcpy(ev.u.mmap2.build_id, bid, 20);
    }
    CHECK(ps_machine__event(m, &ev, NULL) == PS_OK);
}

/* An MMAP2 of name at START + slot pages, one page long. */
static void map_in(ps_machine *m, uint32_t pid, unsigned slot, const char *name,
                   const char *bid, uint64_t t)
{
    map_at(m, pid, START + slot * UINT64_C(0x1000), 0x1000, name, bid, t);
}

static void fork_in(ps_machine *m, uint32_t pid, uint32_t tid, uint32_t ppid, uint64_t t)
{
    ps_event ev = timed(PERF_RECORD_FORK, t);

    ev.u.fork.pid = pid;
    ev.u.fork.tid = tid;
    ev.u.fork.ppid = ev.u.fork.ptid = ppid;
    ev.u.fork.time = t;
    CHECK(ps_machine__event(m, &ev, NULL) == PS_OK);
}

static ps_features x86_features(const char *arch)
{
    ps_features f;

    memset(&f, 0, sizeof(f));
    f.arch = arch;
    f.present[PS_HEADER_ARCH / 64] |= UINT64_C(1) << (PS_HEADER_ARCH % 64);
    return f;
}

/* How many user addresses pid's sample at time t gets: 0 when perf has no
 * unwinder for the process, else 1 (the ip; no map covers it). */
static size_t nr_user_at(ps_unwinder *u, uint32_t pid, uint32_t tid, uint64_t t)
{
    ps_sample s = dwarf_sample();
    uint64_t ips[8];

    s.pid = pid;
    s.tid = tid;
    s.time = t;
    return ps_unwinder__user(u, &s, UINT64_MAX, ips, 8);
}

static size_t nr_user(ps_unwinder *u, uint32_t pid, uint32_t tid)
{
    return nr_user_at(u, pid, tid, 1000);
}

static void test_x86_needs_a_64bit_file(void)
{
    ps_features f = x86_features("x86_64");
    ps_symbols_opts o;
    ps_symbols *syms;
    ps_machine *m;
    ps_unwinder *u;

    memset(&o, 0, sizeof(o));
    o.buildid_dir = tpath("cache");
    CHECK(ps_machine__new(&m, NULL) == PS_OK);
    CHECK(ps_symbols__new(&syms, &o, &f, NULL) == PS_OK);
    CHECK(ps_unwinder__new(&u, m, &f, syms, NULL) == PS_OK);
    /* no files: "//anon", "[stack]", a missing file, a directory */
    map_in(m, 42, 0, "//anon", NULL, 10);
    map_in(m, 42, 1, "[stack]", NULL, 11);
    map_in(m, 42, 2, tpath("missing.so"), NULL, 12);
    map_in(m, 42, 3, dir, NULL, 13);
    CHECK(nr_user(u, 42, 42) == 0);
    /* a 32-bit file: perf has no x86_32 unwinder, the next map tries again */
    map_in(m, 42, 4, tpath("lib32.so"), NULL, 14);
    CHECK(nr_user(u, 42, 42) == 0);
    CHECK(nr_user(u, 42, 43) == 0);             /* a thread: the same maps */
    fork_in(m, 50, 50, 42, 15);                 /* a copy of them: likewise */
    CHECK(nr_user(u, 50, 50) == 0);
    map_in(m, 42, 5, tpath("lib64.so"), NULL, 16);
    CHECK(nr_user(u, 42, 42) == 1);
    CHECK(nr_user(u, 42, 43) == 1);
    CHECK(nr_user(u, 50, 50) == 0);             /* forked before: not its maps */
    fork_in(m, 51, 51, 42, 17);                 /* forked after: copied with them */
    CHECK(nr_user(u, 51, 51) == 1);
    map_in(m, 42, 5, "//anon", NULL, 18);       /* sticky, even with the file gone */
    CHECK(nr_user(u, 42, 42) == 1);
    CHECK(nr_user(u, 60, 60) == 0);             /* a process never seen */
    /* a missing file whose build-id is in the cache: perf reads that */
    map_in(m, 70, 0, tpath("gone.so"), BID, 19);
    CHECK(nr_user(u, 70, 70) == 1);
    ps_unwinder__free(u);
    ps_symbols__free(syms);
    ps_machine__free(m);
}

static void test_own_vdso_is_a_file(void)
{
    ps_features f = x86_features("x86_64");
    ps_feat_build_id e;
    ps_machine *m;
    ps_unwinder *u;

    if (getauxval(AT_SYSINFO_EHDR) == 0)
        return;                                 /* no vdso here: nothing to stand in */
    CHECK(ps_machine__new(&m, NULL) == PS_OK);
    CHECK(ps_unwinder__new(&u, m, &f, NULL, NULL) == PS_OK);
    map_in(m, 42, 0, "[vdso]", NULL, 10);
    CHECK(nr_user(u, 42, 42) == 1);
    ps_unwinder__free(u);
    /* named by the BUILD_ID feature, perf's [vdso] has no file */
    memset(&e, 0, sizeof(e));
    e.filename = "[vdso]";
    e.size = 20;
    f.build_ids.nr = 1;
    f.build_ids.entries = &e;
    f.present[PS_HEADER_BUILD_ID / 64] |= UINT64_C(1) << (PS_HEADER_BUILD_ID % 64);
    CHECK(ps_unwinder__new(&u, m, &f, NULL, NULL) == PS_OK);
    CHECK(nr_user(u, 42, 42) == 0);
    ps_unwinder__free(u);
    ps_machine__free(m);
}

/* ---- through the [vdso] ------------------------------------------------ */

#define VDSO  UINT64_C(0x7f0000000000)
#define STACK UINT64_C(0x7ffc0000)
#define NOMAP UINT64_C(0x10000010)      /* an address no map covers */

/* The offset of function name in this process's vdso (what perf's own
 * [vdso] copies), and the vdso's size in pages. @return 0, or -1 */
static int vdso_func(ps_symbols *syms, const char *name, uint64_t *off, uint64_t *len)
{
    size_t size;
    const uint8_t *img = ps_user__vdso_image(syms, &size);
    Elf_Scn *scn = NULL;
    char *copy;
    Elf *elf;
    int rc = -1;

    if (img == NULL || (copy = malloc(size)) == NULL)
        return -1;
    memcpy(copy, img, size);
    elf_version(EV_CURRENT);
    elf = elf_memory(copy, size);
    while (elf != NULL && (scn = elf_nextscn(elf, scn)) != NULL) {
        Elf_Data *d = elf_getdata(scn, NULL);
        GElf_Shdr sh;
        GElf_Sym sym;
        size_t i;

        if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_DYNSYM || d == NULL ||
            sh.sh_entsize == 0)
            continue;
        for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            const char *n;

            if (gelf_getsym(d, (int)i, &sym) != NULL &&
                (n = elf_strptr(elf, sh.sh_link, sym.st_name)) != NULL &&
                strcmp(n, name) == 0 && GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
                *off = sym.st_value;
                rc = 0;
            }
        }
    }
    *len = (size + 0xfff) & ~(uint64_t)0xfff;
    elf_end(elf);
    free(copy);
    return rc;
}

/* A ps_symbols (the test's build-id cache) holding this process's vdso;
 * where __vdso_clock_gettime and __vdso_gettimeofday are in it, and its
 * length. @return it, or NULL where there is no such vdso */
static ps_symbols *vdso_syms(const ps_features *f, uint64_t *fn, uint64_t *fn2, uint64_t *len)
{
    ps_symbols_opts o;
    ps_symbols *syms;

    memset(&o, 0, sizeof(o));
    o.buildid_dir = tpath("cache");
    CHECK(ps_symbols__new(&syms, &o, f, NULL) == PS_OK);
    if (getauxval(AT_SYSINFO_EHDR) == 0 ||
        vdso_func(syms, "__vdso_clock_gettime", fn, len) < 0 ||
        vdso_func(syms, "__vdso_gettimeofday", fn2, len) < 0) {
        ps_symbols__free(syms);
        return NULL;
    }
    return syms;
}

/* x86-64: AX, BP (6), SP and IP sampled; bp = sp + 16, where the stack
 * holds a frame-pointer frame: saved bp 0, return address NOMAP + 0x1000. */
static uint64_t fp_regs[4];
static uint8_t fp_stack[64];

static ps_sample fp_sample(uint64_t ip, uint64_t ax, uint64_t ret, uint64_t dyn_size)
{
    ps_sample s = dwarf_sample();
    uint64_t zero = 0, fp_ret = NOMAP + 0x1000;

    s.regs_user.mask = (1u << 0) | (1u << 6) | (1u << 7) | (1u << 8);
    fp_regs[0] = ax;
    fp_regs[1] = STACK + 16;
    fp_regs[2] = STACK;
    fp_regs[3] = ip;
    s.regs_user.regs = fp_regs;
    memset(fp_stack, 0, sizeof(fp_stack));
    memcpy(fp_stack, &ret, sizeof(ret));
    memcpy(fp_stack + 16, &zero, sizeof(zero));
    memcpy(fp_stack + 24, &fp_ret, sizeof(fp_ret));
    s.stack_data = fp_stack;
    s.stack_size = sizeof(fp_stack);
    s.stack_dyn_size = dyn_size;
    return s;
}

/* The own [vdso]'s CFI takes the chain from __vdso_clock_gettime's entry
 * to its caller; that return address has no map, so the chain ends there,
 * although bp makes a frame-pointer frame (libdwfl's fallback, which
 * perf's libunwind does not have). */
static void test_own_vdso_gives_cfi(void)
{
    ps_features f = x86_features("x86_64");
    ps_machine *m;
    ps_unwinder *u;
    ps_sample s;
    uint64_t ips[8], fn, fn2, len;
    ps_symbols *syms = vdso_syms(&f, &fn, &fn2, &len);

    if (syms == NULL)
        return;                                 /* no vdso here */
    CHECK(ps_machine__new(&m, NULL) == PS_OK);
    CHECK(ps_unwinder__new(&u, m, &f, syms, NULL) == PS_OK);
    map_at(m, 42, VDSO, len, "[vdso]", NULL, 10);
    s = fp_sample(VDSO + fn, 0, NOMAP, sizeof(fp_stack));
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 2);
    CHECK(ips[0] == VDSO + fn && ips[1] == NOMAP - 1);
    ps_unwinder__free(u);
    /* without a ps_symbols there is no image: the ip alone */
    CHECK(ps_unwinder__new(&u, m, &f, NULL, NULL) == PS_OK);
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 1);
    ps_unwinder__free(u);
    ps_machine__free(m);
    ps_symbols__free(syms);
}

/* A copy of this process's vdso as a file, path: a real ELF with CFI.
 * @return 0, or -1 */
static int write_vdso(ps_symbols *syms, const char *path)
{
    size_t size;
    const uint8_t *img = ps_user__vdso_image(syms, &size);
    FILE *f;
    int ok;

    if (img == NULL || (f = fopen(path, "wb")) == NULL)
        return -1;
    ok = fwrite(img, 1, size, f) == size;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* Named by the BUILD_ID feature, the [vdso] has no file for perf, so no
 * CFI: a sample inside it is the ip alone, frame pointer or not. In a
 * file with CFI (the vdso copied) whose FDEs miss the ip, libunwind
 * guesses the caller from the frame pointer, and so does libdwfl. */
static void test_no_cfi_ends_the_chain(void)
{
    ps_features f = x86_features("x86_64");
    ps_feat_build_id e;
    ps_machine *m;
    ps_unwinder *u;
    ps_sample s;
    uint64_t ips[8], fn, fn2, len, file = VDSO + 0x100000;
    ps_symbols *syms = vdso_syms(&f, &fn, &fn2, &len);

    if (syms == NULL || write_vdso(syms, tpath("vdso.so")) < 0) {
        ps_symbols__free(syms);
        return;
    }
    memset(&e, 0, sizeof(e));
    e.filename = "[vdso]";
    e.size = 20;
    f.build_ids.nr = 1;
    f.build_ids.entries = &e;
    f.present[PS_HEADER_BUILD_ID / 64] |= UINT64_C(1) << (PS_HEADER_BUILD_ID % 64);
    CHECK(ps_machine__new(&m, NULL) == PS_OK);
    CHECK(ps_unwinder__new(&u, m, &f, syms, NULL) == PS_OK);
    map_at(m, 42, file, len, tpath("vdso.so"), NULL, 10);
    map_at(m, 42, VDSO, len, "[vdso]", NULL, 11);
    /* ax points into the file, so that libdwfl has a module (and an arch) */
    s = fp_sample(VDSO + fn, file + fn, NOMAP, sizeof(fp_stack));
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 1);
    CHECK(ips[0] == VDSO + fn);
    s = fp_sample(file + 0x100, file + fn, NOMAP, sizeof(fp_stack));  /* the ELF header */
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 2);
    CHECK(ips[1] == NOMAP + 0x1000 - 1);
    s = fp_sample(file + fn, file + fn, NOMAP, sizeof(fp_stack));     /* the file's CFI */
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 2);
    ps_unwinder__free(u);
    ps_machine__free(m);
    ps_symbols__free(syms);
}

/* A return address beyond the stack dump, in a map without a file
 * ([stack]): perf reads it as 0 and libunwind makes that one more frame,
 * printed as 0 - 1; where no map covers it the chain just ends. */
static void test_unreadable_return_address_is_zero(void)
{
    ps_features f = x86_features("x86_64");
    ps_machine *m;
    ps_unwinder *u;
    ps_sample s;
    uint64_t ips[8], fn, fn2, len;
    ps_symbols *syms = vdso_syms(&f, &fn, &fn2, &len);

    if (syms == NULL)
        return;
    CHECK(ps_machine__new(&m, NULL) == PS_OK);
    map_at(m, 42, VDSO, len, "[vdso]", NULL, 10);
    /* the caller is at __vdso_gettimeofday's entry too: its return
     * address is at sp + 8, past the 16 bytes dumped (the last 8 unread) */
    s = fp_sample(VDSO + fn, 0, VDSO + fn2 + 1, 16);
    CHECK(ps_unwinder__new(&u, m, &f, syms, NULL) == PS_OK);
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 2);
    ps_unwinder__free(u);
    map_at(m, 42, STACK - 0x1000, 0x2000, "[stack]", NULL, 11);
    CHECK(ps_unwinder__new(&u, m, &f, syms, NULL) == PS_OK);
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 3);
    CHECK(ips[1] == VDSO + fn2 && ips[2] == UINT64_MAX);
    ps_unwinder__free(u);
    ps_machine__free(m);
    ps_symbols__free(syms);
}

/* In a file with CFI whose FDEs miss the pc, libunwind guesses the caller
 * from rbp: the return address at rbp + 8, but the caller's sp is the
 * CFA plus 16 (here sp + 16), not rbp + 16 as libdwfl has it; and rbp
 * must be non-zero, at or above the CFA and at most 0x4000 above it. */
static void test_guess_from_rbp_as_libunwind(void)
{
    ps_features f = x86_features("x86_64");
    ps_machine *m;
    ps_unwinder *u;
    ps_sample s;
    uint64_t ips[8], fn, fn2, len, file = VDSO + 0x100000, w;
    ps_symbols *syms = vdso_syms(&f, &fn, &fn2, &len);

    if (syms == NULL || write_vdso(syms, tpath("vdso.so")) < 0) {
        ps_symbols__free(syms);
        return;
    }
    CHECK(ps_machine__new(&m, NULL) == PS_OK);
    CHECK(ps_unwinder__new(&u, m, &f, syms, NULL) == PS_OK);
    map_at(m, 42, file, len, tpath("vdso.so"), NULL, 10);
    map_at(m, 42, STACK - 0x1000, 0x8000, "[stack]", NULL, 11);
    /* pc in the ELF header; rbp = sp + 32 holds a frame: saved rbp 0, a
     * return address just past __vdso_clock_gettime's entry, where the
     * caller's own return address is at its sp */
    s = fp_sample(file + 0x100, file + fn, 0, sizeof(fp_stack));
    fp_regs[1] = STACK + 32;
    w = file + fn + 1;
    memcpy(fp_stack + 40, &w, sizeof(w));
    w = NOMAP + 0x100;                          /* at cfa + 16: libunwind's */
    memcpy(fp_stack + 16, &w, sizeof(w));
    w = NOMAP + 0x200;                          /* at rbp + 16: libdwfl's */
    memcpy(fp_stack + 48, &w, sizeof(w));
    memset(fp_stack + 24, 0, 8);
    memset(fp_stack + 32, 0, 8);
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 3);
    CHECK(ips[0] == file + 0x100 && ips[1] == file + fn && ips[2] == NOMAP + 0xff);
    /* at most 8 addresses still */
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 2) == 2);
    /* rbp 0, below the CFA, or too far above it: the chain ends */
    fp_regs[1] = 0;
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 1);
    fp_regs[1] = STACK - 16;
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 1);
    fp_regs[1] = STACK + 0x4008;
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 1);
    fp_regs[1] = STACK + 0x4000;                /* the bound itself: [stack] reads 0 */
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 2);
    CHECK(ips[1] == UINT64_MAX);
    ps_unwinder__free(u);
    ps_machine__free(m);
    ps_symbols__free(syms);
}

/* Without HEADER_ARCH perf sets up a process at its first map, file or
 * not, until the first sample gives it an arch: this machine's. */
static void test_no_arch_until_first_sample(void)
{
    struct utsname uts;
    ps_sample first = dwarf_sample();
    ps_machine *m;
    ps_unwinder *u;

    CHECK(ps_machine__new(&m, NULL) == PS_OK);
    CHECK(ps_unwinder__new(&u, m, NULL, NULL, NULL) == PS_OK);
    map_in(m, 42, 0, "//anon", NULL, 10);
    first.time = 20;
    first.regs_user.abi = 0;                    /* not unwound, but processed */
    ps_unwinder__note_sample(u, &first);
    map_in(m, 42, 1, "//anon", NULL, 30);
    map_in(m, 50, 0, "//anon", NULL, 30);
    CHECK(nr_user_at(u, 42, 42, 40) == 1);
    CHECK(nr_user_at(u, 60, 60, 40) == 0);      /* no maps: none */
    if (uname(&uts) == 0 && strcmp(uts.machine, "x86_64") == 0)
        CHECK(nr_user_at(u, 50, 50, 40) == 0);  /* x86-64's rule: no file */
    ps_unwinder__free(u);
    ps_machine__free(m);
}

/* libunwind's cache as perf uses it (unwind_cache.c): one per process,
 * the last 128 pcs found, round-robin; flushed at an exec; a fork's child
 * has its own. */
static void test_libunwind_cache(void)
{
    ps_machine *m;
    ps_unwinder *u;
    struct lu_cache *lc, *child;
    ps_event ev;
    uint64_t look, pc;

    CHECK(ps_machine__new(&m, NULL) == PS_OK);
    CHECK(ps_unwinder__new(&u, m, NULL, NULL, NULL) == PS_OK);
    map_in(m, 42, 0, "/bin/x", NULL, 10);
    lc = ps_unwind__cache_for(u, 42, 42, 20);
    CHECK(lc != NULL && ps_unwind__cache_for(u, 42, 43, 20) == lc);
    CHECK(!ps_unwind__cache_get(lc, 0x1000, &look));
    ps_unwind__cache_put(lc, 0x1000, 0xfff);
    ps_unwind__cache_put(lc, 0x1000, 0x1234);           /* present: kept as it was */
    CHECK(ps_unwind__cache_get(lc, 0x1000, &look) && look == 0xfff);
    for (pc = 0x2000; pc < 0x2000 + LU_SIZE - 1; pc++)
        ps_unwind__cache_put(lc, pc, pc);
    CHECK(ps_unwind__cache_get(lc, 0x1000, &look));     /* 128 in all */
    ps_unwind__cache_put(lc, 0x9000, 0x9000);           /* the oldest goes */
    CHECK(!ps_unwind__cache_get(lc, 0x1000, &look));
    CHECK(ps_unwind__cache_get(lc, 0x2000, &look) && look == 0x2000);
    CHECK(ps_unwind__cache_get(lc, 0x9000, &look));
    fork_in(m, 50, 50, 42, 30);
    child = ps_unwind__cache_for(u, 50, 50, 40);
    CHECK(child != NULL && child != lc && !ps_unwind__cache_get(child, 0x2000, &look));
    ev = timed(PERF_RECORD_COMM, 50);
    ev.misc |= PERF_RECORD_MISC_COMM_EXEC;
    ev.u.comm.pid = ev.u.comm.tid = 42;
    ev.u.comm.comm = "y";
    CHECK(ps_machine__event(m, &ev, NULL) == PS_OK);
    CHECK(ps_unwind__cache_for(u, 42, 42, 45) == lc && ps_unwind__cache_get(lc, 0x2000, &look));
    CHECK(ps_unwind__cache_for(u, 42, 42, 60) == lc && !ps_unwind__cache_get(lc, 0x2000, &look));
    CHECK(ps_unwind__cache_for(u, 77, 77, 60) == NULL);  /* no maps: none */
    CHECK(!ps_unwind__cache_get(NULL, 0x2000, &look));
    ps_unwinder__free(u);
    ps_machine__free(m);
}

/* On aarch64 perfsift unwinds every process (Debian's perf 6.1 has no
 * arm64 unwinder at all). */
static void test_arm64_always_unwinds(void)
{
    ps_features f = x86_features("aarch64");
    static const uint64_t arm_regs[] = { 0x7ffc0000, 0x401234 };
    uint64_t ips[8];
    ps_sample s = dwarf_sample();
    ps_machine *m;
    ps_unwinder *u;

    CHECK(ps_machine__new(&m, NULL) == PS_OK);
    map_in(m, 42, 0, "//anon", NULL, 10);
    CHECK(ps_unwinder__new(&u, m, &f, NULL, NULL) == PS_OK);
    s.regs_user.mask = (UINT64_C(1) << 31) | (UINT64_C(1) << 32);      /* sp, pc */
    s.regs_user.nr = 2;
    s.regs_user.regs = arm_regs;
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 1 && ips[0] == 0x401234);
    ps_unwinder__free(u);
    ps_machine__free(m);
}

/* A shared object's header and three PT_LOADs, its data segment's vaddr a
 * page above its file offset (as current binutils lay out RELRO data). */
static void write_split_elf(unsigned char *b, size_t size)
{
    Elf64_Ehdr *eh = (Elf64_Ehdr *)(void *)b;
    Elf64_Phdr *ph = (Elf64_Phdr *)(void *)(b + sizeof(*eh));
    static const uint64_t seg[3][4] = {     /* offset, vaddr, filesz, memsz */
        { 0, 0, 0x800, 0x800 }, { 0x1000, 0x1000, 0x900, 0x900 },
        { 0x2e10, 0x3e10, 0x400, 0x800 },
    };
    int i;

    memset(b, 0, size);
    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS64;
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_ident[EI_VERSION] = EV_CURRENT;
    eh->e_type = ET_DYN;
    eh->e_machine = EM_X86_64;
    eh->e_version = EV_CURRENT;
    eh->e_phoff = sizeof(*eh);
    eh->e_ehsize = sizeof(*eh);
    eh->e_phentsize = sizeof(*ph);
    eh->e_phnum = 3;
    for (i = 0; i < 3; i++) {
        ph[i].p_type = PT_LOAD;
        ph[i].p_offset = seg[i][0];
        ph[i].p_vaddr = ph[i].p_paddr = seg[i][1];
        ph[i].p_filesz = seg[i][2];
        ph[i].p_memsz = seg[i][3];
        ph[i].p_align = 0x1000;
    }
}

/* The load bias from any map of the file: one at a PT_LOAD's page, and the
 * rest of a data segment after ld.so made its RELRO page read-only (a map
 * at a page offset no PT_LOAD starts at, whose vaddr is not its offset). */
static void test_load_bias_of_a_split_segment(void)
{
    static unsigned char b[sizeof(Elf64_Ehdr) + 3 * sizeof(Elf64_Phdr)];
    const uint64_t base = 0x7f0000000000;
    ps_map text, relro, rest;
    Elf *elf;

    write_split_elf(b, sizeof(b));
    CHECK(elf_version(EV_CURRENT) != EV_NONE);
    CHECK((elf = elf_memory((char *)b, sizeof(b))) != NULL);
    if (elf == NULL)
        return;
    memset(&text, 0, sizeof(text));
    text.start = base + 0x1000;
    text.pgoff = 0x1000;
    relro = text;
    relro.start = base + 0x3000;            /* vaddr 0x3e10's page, offset 0x2e10's */
    relro.pgoff = 0x2000;
    rest = text;
    rest.start = base + 0x4000;             /* vaddr 0x4000: offset 0x3000 */
    rest.pgoff = 0x3000;
    CHECK(ps_unwind__load_bias(elf, &text, NULL) == base);
    CHECK(ps_unwind__load_bias(elf, &relro, NULL) == base);
    CHECK(ps_unwind__load_bias(elf, &rest, NULL) == base);
    elf_end(elf);
}

static const struct harness_test tests[] = {
    TEST(test_wanted_needs_regs_and_dyn_stack),
    TEST(test_first_address_is_the_ip),
    TEST(test_x86_needs_a_64bit_file),
    TEST(test_own_vdso_is_a_file),
    TEST(test_own_vdso_gives_cfi),
    TEST(test_no_cfi_ends_the_chain),
    TEST(test_unreadable_return_address_is_zero),
    TEST(test_guess_from_rbp_as_libunwind),
    TEST(test_no_arch_until_first_sample),
    TEST(test_libunwind_cache),
    TEST(test_arm64_always_unwinds),
    TEST(test_load_bias_of_a_split_segment),
};

int main(void)
{
    int rc;

    setup_dir();
    rc = harness_run(tests, sizeof(tests) / sizeof(tests[0]));
    rm_dir();
    return rc;
}
