/* SPDX-License-Identifier: MIT */
/*
 * test_script_events.c - cmd/script_events.c: the bodies perf script 6.1
 * prints for non-sample records, the --show-* gating and the prefix values.
 * Expected texts are perf 6.1.187's own output (perf script on the corpus
 * and on hand-made captures, see the report of the change that added this).
 * Unit tests link only libperfsift.a, so the cmd/ file is included.
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "../../cmd/script_events.c"

static char out_buf[4096];

/* Body of ev as text; also checks the returned count against the bytes. */
static const char *body(const ps_event *ev, const char *sym)
{
    FILE *fp = fmemopen(out_buf, sizeof(out_buf), "w");
    size_t n;

    if (fp == NULL)
        return "";
    n = script_event__fprintf_sym(fp, ev, sym);
    fclose(fp);
    CHECK(n == strlen(out_buf));
    return out_buf;
}

static ps_event event(uint32_t type, uint16_t misc)
{
    ps_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.type = type;
    ev.misc = misc;
    return ev;
}

static void test_comm_and_task(void)
{
    ps_event ev = event(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);

    ev.u.comm = (ps_record_comm){ 23579, 23579, "unshare" };
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_COMM exec: unshare:23579/23579\n"));
    ev.misc = 0;
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_COMM: unshare:23579/23579\n"));

    ev = event(PERF_RECORD_FORK, 0);
    ev.u.fork = (ps_record_fork){ .pid = 23579, .ppid = 23579, .tid = 23582, .ptid = 23579 };
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_FORK(23579:23582):(23579:23579)\n"));
    ev.type = PERF_RECORD_EXIT;
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_EXIT(23579:23582):(23579:23579)\n"));
}

static void test_mmap(void)
{
    ps_event ev = event(PERF_RECORD_MMAP, 0);

    ev.u.mmap = (ps_record_mmap){ (uint32_t)-1, 0, 0xffffffff81000000, 0x1277288,
                                  0xffffffff81000000, "[kernel.kallsyms]_text" };
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1277288) "
                                   "@ 0xffffffff81000000]: x [kernel.kallsyms]_text\n"));
    ev.misc = PERF_RECORD_MISC_MMAP_DATA;
    ev.u.mmap.pgoff = 0;
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1277288) "
                                   "@ 0]: r [kernel.kallsyms]_text\n"));
}

static void test_mmap2(void)
{
    ps_event ev = event(PERF_RECORD_MMAP2, 2);
    ps_record_mmap2 *m = &ev.u.mmap2;
    unsigned i;

    m->pid = m->tid = 23579;
    m->start = 0x7f2ae175b000, m->len = 0x2000, m->pgoff = 0;
    m->prot = 5, m->flags = 2, m->filename = "[vdso]";
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_MMAP2 23579/23579: [0x7f2ae175b000(0x2000) "
                                   "@ 0 00:00 0 0]: r-xp [vdso]\n"));
    m->maj = 0xfe, m->min = 0, m->ino = 10961025, m->ino_generation = 1504702702;
    m->pgoff = 0x1000, m->filename = "/tmp/perfcorpus/bin/mthread";
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_MMAP2 23579/23579: [0x7f2ae175b000(0x2000) "
                                   "@ 0x1000 fe:00 10961025 1504702702]: r-xp "
                                   "/tmp/perfcorpus/bin/mthread\n"));

    ev.misc = PERF_RECORD_MISC_MMAP_BUILD_ID | 2;
    m->has_build_id = 1;
    m->build_id_size = 16;
    for (i = 0; i < 20; i++)
        m->build_id[i] = (uint8_t)(i + 1);
    m->prot = 3, m->flags = 1, m->filename = "/bin/bid16";
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_MMAP2 23579/23579: [0x7f2ae175b000(0x2000) "
                                   "@ 0x1000 <0102030405060708090a0b0c0d0e0f10>]: rw-s "
                                   "/bin/bid16\n"));
}

/* An early MMAP2 (no prot/flags) as perf 6.1 misreads it. */
static void test_mmap2_early_layout(void)
{
    uint64_t words[12] = { 0 };
    uint8_t *raw = (uint8_t *)words;
    ps_event ev = event(PERF_RECORD_MMAP2, 2);
    static const uint8_t name[8] = "[stack]";
    static const uint8_t trailer[8] = { 0xe4, 'n', 0, 0, 0xe4, 'n', 0, 0 };

    memcpy(raw + 64, name, 8);
    memcpy(raw + 72, trailer, 8);
    ev.raw = raw;
    ev.size = 80;
    ev.u.mmap2.pid = ev.u.mmap2.tid = 28388;
    ev.u.mmap2.start = 0x7fff8c5bb000, ev.u.mmap2.len = 0x22000;
    ev.u.mmap2.pgoff = 0x7ffffffdd000;
    ev.u.mmap2.filename = (const char *)raw + 64;
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_MMAP2 28388/28388: [0x7fff8c5bb000(0x22000) "
                                   "@ 0x7ffffffdd000 00:00 0 0]: rw-s \xe4n\n"));
}

static void test_namespaces(void)
{
    ps_ns_link links[9];
    ps_event ev = event(PERF_RECORD_NAMESPACES, 0);
    unsigned i;

    for (i = 0; i < 9; i++)
        links[i] = (ps_ns_link){ i, i ? 0xf0000000 + i : 0 };
    ev.u.namespaces = (ps_record_namespaces){ 100, 100, 9, links };
    CHECK(!strcmp(body(&ev, NULL),
                  "PERF_RECORD_NAMESPACES 100/100 - nr_namespaces: 9\n"
                  "\t\t[0/net: 0/0, 1/uts: 1/0xf0000001, 2/ipc: 2/0xf0000002, "
                  "3/pid: 3/0xf0000003, \n"
                  "\t\t 4/user: 4/0xf0000004, 5/mnt: 5/0xf0000005, 6/cgroup: 6/0xf0000006, "
                  "7/UNKNOWN: 7/0xf0000007, \n"
                  "\t\t 8/UNKNOWN: 8/0xf0000008]\n"));
    ev.u.namespaces.nr_namespaces = 0;      /* perf leaves the line open */
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_NAMESPACES 100/100 - nr_namespaces: 0\n\t\t["));
}

static void test_switch(void)
{
    ps_event ev = event(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT);

    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_SWITCH OUT        \n"));
    ev.misc = 0;
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_SWITCH IN         \n"));
    ev.type = PERF_RECORD_SWITCH_CPU_WIDE;
    CHECK(!strcmp(body(&ev, NULL),
                  "PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:     0/0    \n"));
    ev.misc = PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
    ev.u.switch_cpu_wide = (ps_record_switch_cpu_wide){ 55, 56 };
    CHECK(!strcmp(body(&ev, NULL),
                  "PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:    55/56   \n"));
}

static void test_bpf_cgroup_lost(void)
{
    ps_event ev = event(PERF_RECORD_KSYMBOL, 0);

    ev.u.ksymbol = (ps_record_ksymbol){ 0xffffffffc0022048, 20, 1, 0,
                                        "bpf_prog_59f4a931744dcdc6_corpus_prog0" };
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_KSYMBOL addr ffffffffc0022048 len 20 type 1 "
                                   "flags 0x0 name bpf_prog_59f4a931744dcdc6_corpus_prog0\n"));
    ev = event(PERF_RECORD_BPF_EVENT, 0);
    ev.u.bpf_event = (ps_record_bpf_event){ .type = 1, .flags = 0, .id = 120 };
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_BPF_EVENT type 1, flags 0, id 120\n"));
    ev = event(PERF_RECORD_CGROUP, 0);
    ev.u.cgroup = (ps_record_cgroup){ 139, "/perfcorpus-cg" };
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_CGROUP cgroup: 139 /perfcorpus-cg\n"));
    ev = event(PERF_RECORD_LOST, 0);
    ev.u.lost = (ps_record_lost){ 1, 434 };
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_LOST lost 434\n"));
}

static void test_text_poke(void)
{
    uint8_t bytes[33];
    ps_event ev = event(PERF_RECORD_TEXT_POKE, 0);
    unsigned i;

    for (i = 0; i < sizeof(bytes); i++)
        bytes[i] = (uint8_t)i;
    ev.u.text_poke = (ps_record_text_poke){ 0xffffffff81001234, 16, 17, bytes };
    CHECK(!strcmp(body(&ev, NULL),
                  "PERF_RECORD_TEXT_POKE ffffffff81001234  old len 16 new len 17\n"
                  "            Old bytes: 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f\n"
                  "            New bytes: 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f\n"
                  "            New bytes: 20\n"));
    ev.u.text_poke.old_len = ev.u.text_poke.new_len = 0;
    CHECK(!strcmp(body(&ev, "jump_label+0x4"),
                  "PERF_RECORD_TEXT_POKE ffffffff81001234 jump_label+0x4 old len 0 new len 0\n"));
}

static void test_aux_and_bare(void)
{
    ps_event ev = event(PERF_RECORD_AUX, 0);

    ev.u.aux = (ps_record_aux){ 0, 0x1000, 7 };
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_AUX offset: 0 size: 0x1000 flags: 0x7 [TOP]\n"));
    ev = event(PERF_RECORD_ITRACE_START, 0);
    ev.u.itrace_start = (ps_record_itrace_start){ 100, 100 };
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_ITRACE_START pid: 100 tid: 100\n"));
    ev = event(PERF_RECORD_AUX_OUTPUT_HW_ID, 0);
    ev.u.aux_output_hw_id.hw_id = 0x42;
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_AUX_OUTPUT_HW_ID hw_id: 0x42\n"));

    ev = event(PS_RECORD_FINISHED_ROUND, 0);
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_FINISHED_ROUND\n"));
    ev = event(PERF_RECORD_THROTTLE, 0);
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_THROTTLE\n"));
    ev = event(PERF_RECORD_LOST_SAMPLES, 0);
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_LOST_SAMPLES\n"));
    ev = event(0, 0);
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_TOTAL\n"));
    ev = event(PS_RECORD_CALLCHAIN_DEFERRED, 0);
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_UNKNOWN\n"));
    ev = event(PS_RECORD_COMPRESSED2, 0);
    CHECK(!strcmp(body(&ev, NULL), "PERF_RECORD_INVALID\n"));
}

static void test_show_class(void)
{
    CHECK(script_event__show_class(PERF_RECORD_COMM) == SCRIPT_SHOW_TASK);
    CHECK(script_event__show_class(PERF_RECORD_FORK) == SCRIPT_SHOW_TASK);
    CHECK(script_event__show_class(PERF_RECORD_EXIT) == SCRIPT_SHOW_TASK);
    CHECK(script_event__show_class(PERF_RECORD_MMAP2) == SCRIPT_SHOW_MMAP);
    CHECK(script_event__show_class(PERF_RECORD_SWITCH_CPU_WIDE) == SCRIPT_SHOW_SWITCH);
    CHECK(script_event__show_class(PERF_RECORD_NAMESPACES) == SCRIPT_SHOW_NAMESPACE);
    CHECK(script_event__show_class(PERF_RECORD_LOST) == SCRIPT_SHOW_LOST);
    CHECK(script_event__show_class(PERF_RECORD_LOST_SAMPLES) == SCRIPT_SHOW_NONE);
    CHECK(script_event__show_class(PS_RECORD_FINISHED_ROUND) == SCRIPT_SHOW_ROUND);
    CHECK(script_event__show_class(PERF_RECORD_KSYMBOL) ==
          (SCRIPT_SHOW_BPF | SCRIPT_SHOW_TEXT_POKE));
    CHECK(script_event__show_class(PERF_RECORD_BPF_EVENT) == SCRIPT_SHOW_BPF);
    CHECK(script_event__show_class(PERF_RECORD_CGROUP) == SCRIPT_SHOW_CGROUP);
    CHECK(script_event__show_class(PERF_RECORD_TEXT_POKE) == SCRIPT_SHOW_TEXT_POKE);
    CHECK(script_event__show_class(PERF_RECORD_THROTTLE) == SCRIPT_SHOW_NONE);
    CHECK(script_event__show_class(PERF_RECORD_SAMPLE) == SCRIPT_SHOW_NONE);
    CHECK(script_event__show_class(PS_RECORD_FINISHED_INIT) == SCRIPT_SHOW_NONE);
    CHECK(script_event__show_class(1000) == SCRIPT_SHOW_NONE);
}

static void test_start(void)
{
    ps_evsel evsel;
    ps_event ev = event(PERF_RECORD_FORK, 0);
    script_event_start st;

    memset(&evsel, 0, sizeof(evsel));
    ev.evsel = &evsel;
    ev.u.fork = (ps_record_fork){ .pid = 101, .ppid = 100, .tid = 102, .ptid = 100,
                                  .time = 5000000000 };

    /* no sample_id_all: cpu 0, FORK's own time, the record's pid/tid */
    script_event__start(&st, &ev);
    CHECK(st.pid == 101 && st.tid == 102 && st.cpu == 0 && st.time == 5000000000);
    CHECK(st.thread_pid == 101 && st.thread_tid == 102 && st.apply_first);
    ev.type = PERF_RECORD_EXIT;
    script_event__start(&st, &ev);
    CHECK(!st.apply_first && st.time == 5000000000);
    ev.type = PERF_RECORD_LOST;
    script_event__start(&st, &ev);
    CHECK(st.pid == -1 && st.tid == -1 && st.thread_tid == -1 && st.time == 0);

    /* sample_id_all: the trailer, even for FORK; TID missing gives -1 */
    evsel.attr.flags = PS_ATTR_FLAG(PS_ATTR_SAMPLE_ID_ALL);
    ev.has_sample_id = 1;
    ev.sample_id.present = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
    ev.sample_id.pid = 7, ev.sample_id.tid = 8, ev.sample_id.cpu = 3;
    ev.sample_id.time = 42;
    ev.type = PERF_RECORD_FORK;
    script_event__start(&st, &ev);
    CHECK(st.pid == 7 && st.tid == 8 && st.cpu == 3 && st.time == 42);
    CHECK(st.thread_pid == 101 && st.thread_tid == 102);
    ev.type = PERF_RECORD_SWITCH;
    script_event__start(&st, &ev);
    CHECK(st.thread_pid == 7 && st.thread_tid == 8);
    ev.sample_id.present = PERF_SAMPLE_TIME;
    script_event__start(&st, &ev);
    CHECK(st.tid == -1 && st.thread_tid == -1 && st.cpu == -1 && st.time == 42);
}

static const struct harness_test tests[] = {
    TEST(test_comm_and_task),
    TEST(test_mmap),
    TEST(test_mmap2),
    TEST(test_mmap2_early_layout),
    TEST(test_namespaces),
    TEST(test_switch),
    TEST(test_bpf_cgroup_lost),
    TEST(test_text_poke),
    TEST(test_aux_and_bare),
    TEST(test_show_class),
    TEST(test_start),
};

TEST_MAIN(tests)
