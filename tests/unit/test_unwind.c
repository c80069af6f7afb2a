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
 * directory. Unwinding through real ELF files is checked against perf by
 * tests/diff/unwind.sh and tests/diff/script.sh on the dwarf captures.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "harness.h"
#include "../../libparse/unwind.h"

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

/* An MMAP2 of name at START + slot pages; bid: its build-id, or NULL. */
static void map_in(ps_machine *m, uint32_t pid, unsigned slot, const char *name,
                   const char *bid, uint64_t t)
{
    ps_event ev = timed(PERF_RECORD_MMAP2, t);

    ev.u.mmap2.pid = ev.u.mmap2.tid = pid;
    ev.u.mmap2.start = START + slot * UINT64_C(0x1000);
    ev.u.mmap2.len = 0x1000;
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

static const struct harness_test tests[] = {
    TEST(test_wanted_needs_regs_and_dyn_stack),
    TEST(test_first_address_is_the_ip),
    TEST(test_x86_needs_a_64bit_file),
    TEST(test_own_vdso_is_a_file),
    TEST(test_no_arch_until_first_sample),
    TEST(test_arm64_always_unwinds),
};

int main(void)
{
    int rc;

    setup_dir();
    rc = harness_run(tests, sizeof(tests) / sizeof(tests[0]));
    rm_dir();
    return rc;
}
