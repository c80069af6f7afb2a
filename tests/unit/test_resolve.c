/* SPDX-License-Identifier: MIT */
/*
 * test_resolve.c - resolve.c from hand-built events (no files opened: the
 * maps name files that do not exist, so symbols stay unknown and only the
 * map, cpumode and address logic is under test): the idle thread is
 * "swapper", unknown threads ":tid", lookups answer "now" unless timed,
 * callchain context markers switch the address space and do not count
 * towards max_stack, a bad marker drops the chain, LBR call stacks take the
 * user part from the branch stack, KSYMBOL maps resolve in kernel mode.
 */
#include <string.h>
#include "harness.h"
#include "../../libparse/resolve.h"

#define KSTART UINT64_C(0xffffffff81000000)

static ps_event timed(uint32_t type, uint16_t misc, uint64_t t)
{
    ps_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.type = type;
    ev.misc = misc;
    ev.has_sample_id = 1;
    ev.sample_id.present = PERF_SAMPLE_TIME;
    ev.sample_id.time = t;
    return ev;
}

static void feed_mmap(ps_resolver *r, uint16_t misc, uint32_t pid, uint64_t start,
                      uint64_t len, uint64_t pgoff, const char *file, uint64_t t)
{
    ps_event ev = timed(PERF_RECORD_MMAP, misc, t);

    ev.u.mmap.pid = pid;
    ev.u.mmap.tid = pid;
    ev.u.mmap.start = start;
    ev.u.mmap.len = len;
    ev.u.mmap.pgoff = pgoff;
    ev.u.mmap.filename = file;
    CHECK(ps_resolver__event(r, &ev, NULL) == PS_OK);
}

static void feed_comm(ps_resolver *r, uint32_t pid, const char *comm, uint64_t t)
{
    ps_event ev = timed(PERF_RECORD_COMM, 0, t);

    ev.u.comm.pid = ev.u.comm.tid = pid;
    ev.u.comm.comm = comm;
    CHECK(ps_resolver__event(r, &ev, NULL) == PS_OK);
}

static ps_resolver *resolver(void)
{
    static const ps_features none;
    ps_symbols_opts o;
    ps_resolver *r = NULL;

    memset(&o, 0, sizeof(o));
    o.buildid_dir = "/nonexistent-perfsift-test";
    o.kallsyms = "/nonexistent-perfsift-test/kallsyms";
    CHECK(ps_resolver__new(&r, &o, &none, NULL) == PS_OK);
    feed_mmap(r, PERF_RECORD_MISC_KERNEL, UINT32_MAX, KSTART, 0x1000000, KSTART,
              "[kernel.kallsyms]_text", 1);
    feed_comm(r, 100, "app", 2);
    feed_mmap(r, PERF_RECORD_MISC_USER, 100, 0x400000, 0x10000, 0x1000,
              "/nonexistent-perfsift-test/app", 3);
    return r;
}

static void test_threads(void)
{
    ps_resolver *r = resolver();
    char buf[32];

    CHECK(strcmp(ps_resolver__comm(r, 0, 0, 5, buf, sizeof(buf)), "swapper") == 0);
    CHECK(strcmp(ps_resolver__comm(r, 100, 100, 5, buf, sizeof(buf)), "app") == 0);
    CHECK(strcmp(ps_resolver__comm(r, 7, 7, 5, buf, sizeof(buf)), ":7") == 0);
    CHECK(strcmp(ps_resolver__comm(r, UINT32_MAX, UINT32_MAX, 5, buf, sizeof(buf)), ":-1") == 0);
    /* "now": a later COMM is seen even by a lookup at an earlier time... */
    feed_comm(r, 100, "renamed", 10);
    CHECK(strcmp(ps_resolver__comm(r, 100, 100, 5, buf, sizeof(buf)), "renamed") == 0);
    /* ...unless asked for the history */
    ps_resolver__set_timed(r, 1);
    CHECK(strcmp(ps_resolver__comm(r, 100, 100, 5, buf, sizeof(buf)), "app") == 0);
    ps_resolver__free(r);
}

static void test_addr_modes(void)
{
    ps_resolver *r = resolver();
    ps_frame f;

    ps_resolver__addr(r, 100, 100, 5, PERF_RECORD_MISC_USER, 0x400123, &f);
    CHECK(f.map != NULL && f.r.rel == 0x1123 && f.r.sym == NULL);
    CHECK(strcmp(f.r.dso, "/nonexistent-perfsift-test/app") == 0);
    /* the same address in kernel mode finds nothing; kernel text does */
    ps_resolver__addr(r, 100, 100, 5, PERF_RECORD_MISC_KERNEL, 0x400123, &f);
    CHECK(f.map == NULL && strcmp(f.r.dso, "[unknown]") == 0);
    ps_resolver__addr(r, 100, 100, 5, PERF_RECORD_MISC_KERNEL, KSTART + 0x10, &f);
    CHECK(f.map != NULL && strcmp(f.r.dso, "[kernel.kallsyms]") == 0);
    ps_resolver__addr(r, 100, 100, 5, PERF_RECORD_MISC_HYPERVISOR, KSTART + 0x10, &f);
    CHECK(f.map == NULL);
    ps_resolver__free(r);
}

static void test_callchain(void)
{
    ps_resolver *r = resolver();
    uint64_t chain[] = { PERF_CONTEXT_KERNEL, KSTART + 1, KSTART + 2,
                         PERF_CONTEXT_USER, 0x400010, 0x400020, 0x400030 };
    ps_frame fr[16];
    ps_sample smp;
    size_t n;

    memset(&smp, 0, sizeof(smp));
    smp.sample_type = PERF_SAMPLE_CALLCHAIN;
    smp.pid = smp.tid = 100;
    smp.callchain = chain;
    smp.nr_callchain = 7;
    n = ps_resolver__callchain(r, &smp, 0, 127, fr, 16);
    CHECK(n == 5);
    CHECK(fr[0].cpumode == PERF_RECORD_MISC_KERNEL && fr[1].map != NULL);
    CHECK(fr[2].cpumode == PERF_RECORD_MISC_USER && fr[2].r.rel == 0x1010);
    /* markers do not count towards max_stack */
    CHECK(ps_resolver__callchain(r, &smp, 0, 3, fr, 16) == 3);
    /* an unknown marker drops the whole chain */
    chain[3] = PERF_CONTEXT_GUEST;
    CHECK(ps_resolver__callchain(r, &smp, 0, 127, fr, 16) == 0);
    ps_resolver__free(r);
}

static void test_lbr(void)
{
    ps_resolver *r = resolver();
    uint64_t chain[] = { PERF_CONTEXT_KERNEL, KSTART + 1, PERF_CONTEXT_USER, 0x400999 };
    ps_branch_entry br[2];
    ps_frame fr[16];
    ps_sample smp;
    size_t n;

    memset(&smp, 0, sizeof(smp));
    memset(br, 0, sizeof(br));
    br[0].from = 0x400100; br[0].to = 0x400200;
    br[1].from = 0x400300; br[1].to = 0x400400;
    smp.sample_type = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK;
    smp.pid = smp.tid = 100;
    smp.callchain = chain;
    smp.nr_callchain = 4;
    smp.branches = br;
    smp.nr_branches = 2;
    /* kernel part, then the first target, then every source */
    n = ps_resolver__callchain(r, &smp, PERF_SAMPLE_BRANCH_CALL_STACK, 127, fr, 16);
    CHECK(n == 4);
    CHECK(fr[0].ip == KSTART + 1 && fr[1].ip == 0x400200 && fr[2].ip == 0x400100 &&
          fr[3].ip == 0x400300);
    /* without CALL_STACK the chain itself is used */
    n = ps_resolver__callchain(r, &smp, 0, 127, fr, 16);
    CHECK(n == 2 && fr[1].ip == 0x400999);
    ps_resolver__free(r);
}

static void test_ksymbol(void)
{
    ps_resolver *r = resolver();
    ps_event ev = timed(PERF_RECORD_KSYMBOL, 0, 20);
    ps_frame f;

    ev.u.ksymbol.addr = 0xffffffffc0001000ull;
    ev.u.ksymbol.len = 0x40;
    ev.u.ksymbol.name = "bpf_prog_test";
    CHECK(ps_resolver__event(r, &ev, NULL) == PS_OK);
    ps_resolver__addr(r, 100, 100, 21, PERF_RECORD_MISC_KERNEL, 0xffffffffc0001010ull, &f);
    CHECK(f.map != NULL && f.map->kind == PS_MAP_KSYMBOL);
    CHECK(f.r.sym != NULL && strcmp(f.r.sym->name, "bpf_prog_test") == 0 && f.r.symoff == 0x10);
    /* unregistered: gone */
    ev = timed(PERF_RECORD_KSYMBOL, 0, 30);
    ev.u.ksymbol.addr = 0xffffffffc0001000ull;
    ev.u.ksymbol.len = 0x40;
    ev.u.ksymbol.flags = PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER;
    ev.u.ksymbol.name = "bpf_prog_test";
    CHECK(ps_resolver__event(r, &ev, NULL) == PS_OK);
    ps_resolver__addr(r, 100, 100, 31, PERF_RECORD_MISC_KERNEL, 0xffffffffc0001010ull, &f);
    CHECK(f.map == NULL);
    ps_resolver__free(r);
}

static const struct harness_test tests[] = {
    TEST(test_threads),
    TEST(test_addr_modes),
    TEST(test_callchain),
    TEST(test_lbr),
    TEST(test_ksymbol),
};

TEST_MAIN(tests)
