/* SPDX-License-Identifier: MIT */
/*
 * test_features.c - unit tests of features.c (every HEADER_* decoder, in
 * both byte orders, every truncation point, count bombs) and of evname.c
 * (perf 6.1's derived event names, the tracing-data lookup), from payloads
 * built byte by byte as spec sections 6.2 - 6.4 and 10.1 describe them.
 * Each truncated payload is copied into a buffer of exactly its size, so a
 * sanitizer build catches any read past it.
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "../../libparse/features.h"
#include "../../libparse/evname.h"

#define OFF 0x1000      /* input offset given for the payloads */

/* ------------------------------------------------------------------------ */
/* Bytes in the producer's order (swap: the other one)                      */

typedef struct buf {
    uint8_t *p;
    size_t   n, cap;
    int      swap;
} buf;

static void buf_put(buf *b, const void *v, size_t n)
{
    if (b->n + n > b->cap) {
        uint8_t *np = realloc(b->p, b->cap = (b->n + n) * 2 + 64);

        if (np == NULL)
            abort();
        b->p = np;
    }
    memcpy(b->p + b->n, v, n);
    b->n += n;
}

static void put8(buf *b, uint8_t v) { buf_put(b, &v, 1); }
static void put16(buf *b, uint16_t v) { if (b->swap) v = __builtin_bswap16(v); buf_put(b, &v, 2); }
static void put32(buf *b, uint32_t v) { if (b->swap) v = __builtin_bswap32(v); buf_put(b, &v, 4); }
static void put64(buf *b, uint64_t v) { if (b->swap) v = __builtin_bswap64(v); buf_put(b, &v, 8); }

/* A big-endian ABI allocates bit-fields from the top bit of each byte. */
static uint64_t flip_bits_in_bytes(uint64_t v)
{
    uint64_t out = 0;
    int i;

    for (i = 0; i < 64; i++)
        if ((v >> i) & 1)
            out |= UINT64_C(1) << ((i & ~7) | (7 - (i & 7)));
    return out;
}

/* A 128-byte (VER7) perf_event_attr. */
static void put_attr(buf *b, const ps_attr *a)
{
    uint64_t flags = b->swap ? flip_bits_in_bytes(a->flags) : a->flags;

    put32(b, a->type); put32(b, 128); put64(b, a->config); put64(b, a->sample_period);
    put64(b, a->sample_type); put64(b, a->read_format);
    buf_put(b, &flags, 8);
    put32(b, a->wakeup_events); put32(b, a->bp_type); put64(b, a->config1);
    put64(b, a->config2); put64(b, a->branch_sample_type); put64(b, a->sample_regs_user);
    put32(b, a->sample_stack_user); put32(b, (uint32_t)a->clockid);
    put64(b, a->sample_regs_intr); put32(b, a->aux_watermark); put16(b, a->sample_max_stack);
    put16(b, 0); put32(b, a->aux_sample_size); put32(b, 0); put64(b, a->sig_data);
}

/* ------------------------------------------------------------------------ */
/* Payload builders                                                         */

/* perf string: u32 len (text, NUL, zero padding to `pad`), then the bytes. */
static void put_str_pad(buf *b, const char *s, size_t pad)
{
    size_t len = strlen(s) + 1, padded = (len + pad - 1) / pad * pad;
    static const uint8_t zero[64];

    put32(b, (uint32_t)padded);
    buf_put(b, s, len);
    buf_put(b, zero, padded - len);
}

static void put_str(buf *b, const char *s) { put_str_pad(b, s, 64); }

static void put_strlist(buf *b, const char *const *s, uint32_t nr)
{
    uint32_t i;

    put32(b, nr);
    for (i = 0; i < nr; i++)
        put_str(b, s[i]);
}

static buf new_buf(int swap)
{
    buf b;

    memset(&b, 0, sizeof(b));
    b.swap = swap;
    b.p = malloc(1);
    return b;
}

static void build_hostname(buf *b) { put_str(b, "vm"); }
static void build_nrcpus(buf *b) { put32(b, 8); put32(b, 3); }
static void build_total_mem(buf *b) { put64(b, 24683652); }

static void build_cmdline(buf *b)
{
    static const char *const argv[] = { "/usr/bin/perf", "record", "-g", "it's" };

    put_strlist(b, argv, 4);
}

static ps_attr desc_attr(uint32_t type, uint64_t config)
{
    ps_attr a;

    memset(&a, 0, sizeof(a));
    a.type = type;
    a.config = config;
    a.sample_period = 4000;
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
    a.flags = PS_ATTR_FLAG(PS_ATTR_DISABLED) | PS_ATTR_FLAG(PS_ATTR_FREQ) |
              PS_ATTR_FLAG(PS_ATTR_SAMPLE_ID_ALL) | PS_ATTR_FLAG(PS_ATTR_EXCLUDE_GUEST);
    a.clockid = 1;
    a.sample_regs_intr = 0xff0fff;
    return a;
}

static void build_event_desc(buf *b)
{
    ps_attr a0 = desc_attr(PERF_TYPE_SOFTWARE, 0), a1 = desc_attr(PERF_TYPE_HARDWARE, 1);

    put32(b, 2);
    put32(b, 128);
    put_attr(b, &a0);
    put32(b, 2);
    put_str(b, "cpu-clock");
    put64(b, 4403);
    put64(b, 4404);
    put_attr(b, &a1);
    put32(b, 0);
    put_str(b, "instructions:u");
}

/* CPU_TOPOLOGY for 2 CPUs; parts: 0 lists only, 1 + core/socket ids,
 * 2 + dies. */
static void build_topology_parts(buf *b, int parts, size_t pad)
{
    put32(b, 1); put_str_pad(b, "0-1", pad);
    put32(b, 2); put_str_pad(b, "0", pad); put_str_pad(b, "1", pad);
    if (parts < 1)
        return;
    put32(b, 0); put32(b, 0);
    put32(b, 1); put32(b, 0);
    if (parts < 2)
        return;
    put32(b, 1); put_str_pad(b, "0-1", pad);
    put32(b, 0); put32(b, 0);
}

static void build_cpu_topology(buf *b) { build_topology_parts(b, 2, 64); }

static void build_numa(buf *b)
{
    put32(b, 2);
    put32(b, 0); put64(b, 6907676); put64(b, 5463408); put_str(b, "0-1");
    put32(b, 1); put64(b, 100); put64(b, 50); put_str(b, "");
}

static void build_empty(buf *b) { (void)b; }

static void build_pmu_mappings(buf *b)
{
    put32(b, 2);
    put32(b, 1); put_str(b, "software");
    put32(b, 9); put_str(b, "msr");
}

static void build_group_desc(buf *b)
{
    put32(b, 1);
    put_str(b, "{anon_group}"); put32(b, 0); put32(b, 2);
}

static void build_auxtrace(buf *b)
{
    put64(b, 2);
    put64(b, 0x1000); put64(b, 48);
    put64(b, 0x2000); put64(b, 48);
}

static void build_cache(buf *b)
{
    put32(b, 1); put32(b, 1);
    put32(b, 1); put32(b, 64); put32(b, 64); put32(b, 8);
    put_str(b, "Data"); put_str(b, "32K"); put_str(b, "0");
}

static void build_sample_time(buf *b) { put64(b, 2522966235000); put64(b, 2523201083000); }

static void build_mem_topology(buf *b)
{
    put64(b, 1); put64(b, 0x8000000); put64(b, 1);
    put64(b, 0); put64(b, 200);
    put64(b, 200); put64(b, 0xff00ff); put64(b, 0); put64(b, 0); put64(b, 0xff);
}

static void build_clockid(buf *b) { put64(b, 1); }
static void build_dir_format(buf *b) { put64(b, 1); }

static void build_bpf_prog_info(buf *b)
{
    static const uint8_t info[16] = { 1, 0, 0, 0, 120, 0, 0, 0, 0xaa, 0xbb };
    static const uint8_t data[8] = { 9, 8, 7, 6, 5, 4, 3, 2 };

    put32(b, 1);
    put32(b, sizeof(info)); put32(b, sizeof(data)); put64(b, 0x118);
    buf_put(b, info, sizeof(info));
    buf_put(b, data, sizeof(data));
}

static void build_bpf_btf(buf *b)
{
    put32(b, 2);
    put32(b, 7); put32(b, 3); buf_put(b, "abc", 3);
    put32(b, 3); put32(b, 0);
}

static void build_compressed(buf *b)
{
    put32(b, 0); put32(b, 1); put32(b, 1); put32(b, 13); put32(b, 528384);
}

static void build_cpu_pmu_caps(buf *b)
{
    put32(b, 2);
    put_str(b, "branches"); put_str(b, "32");
    put_str(b, "max_precise"); put_str(b, "3");
}

static void build_clock_data(buf *b)
{
    put32(b, 1); put32(b, 1); put64(b, 1795979481984701000); put64(b, 2531785537237);
}

static void build_hybrid(buf *b)
{
    put32(b, 2);
    put_str(b, "cpu_core"); put_str(b, "0-7");
    put_str(b, "cpu_atom"); put_str(b, "8-15");
}

static void build_pmu_caps(buf *b)
{
    put32(b, 2);
    put32(b, 1); put_str(b, "slots"); put_str(b, "0x8"); put_str(b, "armv8_pmuv3_0");
    put32(b, 0); put_str(b, "ibs_op");
}

static void build_cpu_domain_info(buf *b)
{
    put32(b, 17); put32(b, 2);
    put32(b, 0); put32(b, 1);
    put32(b, 0); put_str(b, "SMT"); put_str(b, "00000003"); put_str(b, "0-1");
    put32(b, 1); put32(b, 0);
}

/* A BUILD_ID entry (new ABI): 36 fixed bytes then the padded path. */
static void put_build_id(buf *b, uint16_t misc, int32_t pid, uint8_t first, uint8_t size,
                         const char *path)
{
    size_t len = strlen(path) + 1, padded = (len + 63) / 64 * 64;
    uint8_t id[20], tail[4] = { size, 0, 0, 0 };
    static const uint8_t zero[64];

    memset(id, first, sizeof(id));
    put32(b, 0); put16(b, misc); put16(b, (uint16_t)(36 + padded));
    put32(b, (uint32_t)pid);
    buf_put(b, id, 20); buf_put(b, tail, 4);
    buf_put(b, path, len); buf_put(b, zero, padded - len);
}

static void build_build_id(buf *b)
{
    put_build_id(b, 1, -1, 0xab, 0, "[kernel.kallsyms]");
    put_build_id(b, 2 | (1u << 15), -1, 0xcd, 16, "/usr/lib/libc.so.6");
}

static void build_tracing_data(buf *b) { buf_put(b, "\027\010\104tracing0.6", 14); }

/* The tracing blob of spec 10.1 with two systems (the second of which has
 * the wanted format), in the byte order big says. */
static void put_num(buf *b, int big, uint64_t v, int width)
{
    int i;

    for (i = 0; i < width; i++)
        put8(b, (uint8_t)(v >> (big ? 8 * (width - 1 - i) : 8 * i)));
}

static void put_fmt(buf *b, int big, const char *text)
{
    put_num(b, big, strlen(text), 8);
    buf_put(b, text, strlen(text));
}

static void build_tracing_blob(buf *b, int big)
{
    buf_put(b, "\027\010\104tracing0.6", 14);
    put8(b, (uint8_t)big); put8(b, 8);
    put_num(b, big, 4096, 4);
    buf_put(b, "header_page", 12); put_fmt(b, big, "field: u64 timestamp;\n");
    buf_put(b, "header_event", 13); put_fmt(b, big, "# compressed entry header\n");
    put_num(b, big, 1, 4);                          /* ftrace formats */
    put_fmt(b, big, "name: function\nID: 1\nformat:\n");
    put_num(b, big, 2, 4);                          /* systems */
    buf_put(b, "irq", 4);
    put_num(b, big, 1, 4);
    put_fmt(b, big, "name: irq_handler_entry\nID: 120\nformat:\n");
    buf_put(b, "sched", 6);
    put_num(b, big, 2, 4);
    put_fmt(b, big, "name: sched_wakeup\nID: 371\nformat:\n");
    put_fmt(b, big, "name: sched_switch\nID: 372\nformat:\n\tfield:x\n");
    put_num(b, big, 0, 4);                          /* kallsyms */
    put_num(b, big, 0, 4);                          /* printk */
    put_num(b, big, 0, 8);                          /* saved cmdlines */
}

/* ------------------------------------------------------------------------ */
/* The table the truncation test walks: every decoder                       */

typedef void (*build_fn)(buf *b);

static const struct feat_case {
    unsigned feat;
    build_fn build;
    int      prefix_ok;     /* 1: a shorter payload may decode (boundaries) */
} cases[] = {
    { PS_HEADER_TRACING_DATA, build_tracing_data, 1 },
    { PS_HEADER_BUILD_ID, build_build_id, 1 },
    { PS_HEADER_HOSTNAME, build_hostname, 0 },
    { PS_HEADER_OSRELEASE, build_hostname, 0 },
    { PS_HEADER_VERSION, build_hostname, 0 },
    { PS_HEADER_ARCH, build_hostname, 0 },
    { PS_HEADER_NRCPUS, build_nrcpus, 0 },
    { PS_HEADER_CPUDESC, build_hostname, 0 },
    { PS_HEADER_CPUID, build_hostname, 0 },
    { PS_HEADER_TOTAL_MEM, build_total_mem, 0 },
    { PS_HEADER_CMDLINE, build_cmdline, 0 },
    { PS_HEADER_EVENT_DESC, build_event_desc, 0 },
    { PS_HEADER_CPU_TOPOLOGY, build_cpu_topology, 1 },
    { PS_HEADER_NUMA_TOPOLOGY, build_numa, 0 },
    { PS_HEADER_BRANCH_STACK, build_empty, 1 },
    { PS_HEADER_PMU_MAPPINGS, build_pmu_mappings, 0 },
    { PS_HEADER_GROUP_DESC, build_group_desc, 0 },
    { PS_HEADER_AUXTRACE, build_auxtrace, 0 },
    { PS_HEADER_STAT, build_empty, 1 },
    { PS_HEADER_CACHE, build_cache, 0 },
    { PS_HEADER_SAMPLE_TIME, build_sample_time, 0 },
    { PS_HEADER_MEM_TOPOLOGY, build_mem_topology, 0 },
    { PS_HEADER_CLOCKID, build_clockid, 0 },
    { PS_HEADER_DIR_FORMAT, build_dir_format, 0 },
    { PS_HEADER_BPF_PROG_INFO, build_bpf_prog_info, 0 },
    { PS_HEADER_BPF_BTF, build_bpf_btf, 0 },
    { PS_HEADER_COMPRESSED, build_compressed, 0 },
    { PS_HEADER_CPU_PMU_CAPS, build_cpu_pmu_caps, 0 },
    { PS_HEADER_CLOCK_DATA, build_clock_data, 0 },
    { PS_HEADER_HYBRID_TOPOLOGY, build_hybrid, 0 },
    { PS_HEADER_PMU_CAPS, build_pmu_caps, 0 },
    { PS_HEADER_CPU_DOMAIN_INFO, build_cpu_domain_info, 0 },
};

/* Decoding context: features with NRCPUS (2 CPUs) decoded first, as
 * session.c does in bit order. */
typedef struct dec {
    ps_features f;
    ps_arena    a;
    ps_error    err;
} dec;

static void dec_init(dec *d, int swap)
{
    buf b = new_buf(swap);

    memset(&d->f, 0, sizeof(d->f));
    memset(&d->err, 0, sizeof(d->err));
    ps_arena__init(&d->a);
    put32(&b, 2); put32(&b, 2);
    CHECK(ps_features__decode(&d->f, &d->a, PS_HEADER_NRCPUS, b.p, b.n, swap, OFF,
                              &d->err) == PS_OK);
    free(b.p);
}

static int dec_run(dec *d, unsigned feat, const buf *b)
{
    return ps_features__decode(&d->f, &d->a, feat, b->p, b->n, b->swap, OFF, &d->err);
}

/* Build case `feat` in byte order swap and decode it into d. */
static int decode_case(dec *d, unsigned feat, build_fn build, int swap)
{
    buf b = new_buf(swap);
    int rc;

    dec_init(d, swap);
    build(&b);
    rc = dec_run(d, feat, &b);
    free(b.p);
    return rc;
}

static int has(const ps_features *f, unsigned feat) { return ps_features_has(f, feat); }

/* ------------------------------------------------------------------------ */
/* Tests                                                                    */

static void test_feature_names(void)
{
    static const char *const names[] = {
        NULL, "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION", "ARCH",
        "NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE", "EVENT_DESC",
        "CPU_TOPOLOGY", "NUMA_TOPOLOGY", "BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC",
        "AUXTRACE", "STAT", "CACHE", "SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID",
        "DIR_FORMAT", "BPF_PROG_INFO", "BPF_BTF", "COMPRESSED", "CPU_PMU_CAPS",
        "CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS", "CPU_DOMAIN_INFO",
    };
    unsigned i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *n = ps_feature_name(i);

        CHECK((n == NULL) == (names[i] == NULL));
        CHECK(n == NULL || strcmp(n, names[i]) == 0);
    }
    CHECK(ps_feature_name(PS_HEADER_FEAT_KNOWN) == NULL);
    CHECK(ps_feature_name(255) == NULL);
    CHECK(ps_feature_name(100000) == NULL);
}

/* Every row decodes in both byte orders and sets its present bit. */
static void test_every_row_decodes(void)
{
    size_t i;
    int swap;

    for (swap = 0; swap <= 1; swap++)
        for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            dec d;

            CHECK(decode_case(&d, cases[i].feat, cases[i].build, swap) == PS_OK);
            CHECK(has(&d.f, cases[i].feat));
            CHECK(!(d.f.failed[0] >> cases[i].feat & 1));
            ps_arena__free(&d.a);
        }
}

static void test_strings(void)
{
    static const unsigned feats[] = { PS_HEADER_HOSTNAME, PS_HEADER_OSRELEASE,
        PS_HEADER_VERSION, PS_HEADER_ARCH, PS_HEADER_CPUDESC, PS_HEADER_CPUID };
    int swap;
    size_t i;

    for (swap = 0; swap <= 1; swap++) {
        dec d;

        dec_init(&d, swap);
        for (i = 0; i < 6; i++) {
            buf b = new_buf(swap);

            put_str_pad(&b, i % 2 ? "AMD EPYC" : "6.18.44-fc", i % 2 ? 64 : 11);
            CHECK(dec_run(&d, feats[i], &b) == PS_OK);
            free(b.p);
        }
        CHECK(strcmp(d.f.hostname, "6.18.44-fc") == 0);
        CHECK(strcmp(d.f.osrelease, "AMD EPYC") == 0);
        CHECK(strcmp(d.f.version, "6.18.44-fc") == 0);
        CHECK(strcmp(d.f.arch, "AMD EPYC") == 0);
        CHECK(strcmp(d.f.cpudesc, "6.18.44-fc") == 0);
        CHECK(strcmp(d.f.cpuid, "AMD EPYC") == 0);
        ps_arena__free(&d.a);
    }
}

/* A string without a NUL inside its length is cut at the length. */
static void test_string_without_nul(void)
{
    buf b = new_buf(0);
    dec d;

    put32(&b, 3);
    buf_put(&b, "abcdef", 6);
    dec_init(&d, 0);
    CHECK(dec_run(&d, PS_HEADER_HOSTNAME, &b) == PS_OK);
    CHECK(strcmp(d.f.hostname, "abc") == 0);
    free(b.p);
    ps_arena__free(&d.a);
}

static void test_numbers(void)
{
    int swap;

    for (swap = 0; swap <= 1; swap++) {
        dec d;

        CHECK(decode_case(&d, PS_HEADER_NRCPUS, build_nrcpus, swap) == PS_OK);
        CHECK(d.f.nr_cpus_avail == 8 && d.f.nr_cpus_online == 3);
        ps_arena__free(&d.a);
        CHECK(decode_case(&d, PS_HEADER_TOTAL_MEM, build_total_mem, swap) == PS_OK);
        CHECK(d.f.total_mem == 24683652);
        ps_arena__free(&d.a);
        CHECK(decode_case(&d, PS_HEADER_SAMPLE_TIME, build_sample_time, swap) == PS_OK);
        CHECK(d.f.sample_time.first == 2522966235000 && d.f.sample_time.last == 2523201083000);
        ps_arena__free(&d.a);
        CHECK(decode_case(&d, PS_HEADER_CLOCKID, build_clockid, swap) == PS_OK);
        CHECK(d.f.clockid_res_ns == 1);
        ps_arena__free(&d.a);
        CHECK(decode_case(&d, PS_HEADER_DIR_FORMAT, build_dir_format, swap) == PS_OK);
        CHECK(d.f.dir_format == 1);
        ps_arena__free(&d.a);
        CHECK(decode_case(&d, PS_HEADER_COMPRESSED, build_compressed, swap) == PS_OK);
        CHECK(d.f.compressed.version == 0 && d.f.compressed.type == 1);
        CHECK(d.f.compressed.level == 1 && d.f.compressed.ratio == 13);
        CHECK(d.f.compressed.mmap_len == 528384);
        ps_arena__free(&d.a);
        CHECK(decode_case(&d, PS_HEADER_CLOCK_DATA, build_clock_data, swap) == PS_OK);
        CHECK(d.f.clock_data.version == 1 && d.f.clock_data.clockid == 1);
        CHECK(d.f.clock_data.tod_ns == 1795979481984701000);
        CHECK(d.f.clock_data.clockid_ns == 2531785537237);
        ps_arena__free(&d.a);
    }
}

static void test_cmdline(void)
{
    int swap;

    for (swap = 0; swap <= 1; swap++) {
        dec d;

        CHECK(decode_case(&d, PS_HEADER_CMDLINE, build_cmdline, swap) == PS_OK);
        CHECK(d.f.cmdline.nr == 4);
        CHECK(strcmp(d.f.cmdline.strs[0], "/usr/bin/perf") == 0);
        CHECK(strcmp(d.f.cmdline.strs[3], "it's") == 0);
        ps_arena__free(&d.a);
    }
}

static void test_event_desc(void)
{
    int swap;

    for (swap = 0; swap <= 1; swap++) {
        const ps_feat_event_desc *e;
        dec d;

        CHECK(decode_case(&d, PS_HEADER_EVENT_DESC, build_event_desc, swap) == PS_OK);
        CHECK(d.f.event_desc.nr == 2 && d.f.event_desc.attr_size == 128);
        e = d.f.event_desc.events;
        CHECK(strcmp(e[0].name, "cpu-clock") == 0);
        CHECK(e[0].attr.type == PERF_TYPE_SOFTWARE && e[0].attr.size == 128);
        CHECK(e[0].attr.sample_period == 4000 && e[0].attr.clockid == 1);
        CHECK(e[0].attr.sample_regs_intr == 0xff0fff);
        CHECK(ps_attr_flag(&e[0].attr, PS_ATTR_FREQ));
        CHECK(ps_attr_flag(&e[0].attr, PS_ATTR_EXCLUDE_GUEST));
        CHECK(!ps_attr_flag(&e[0].attr, PS_ATTR_INHERIT));
        CHECK(e[0].nr_ids == 2 && e[0].ids[0] == 4403 && e[0].ids[1] == 4404);
        CHECK(strcmp(e[1].name, "instructions:u") == 0);
        CHECK(e[1].attr.type == PERF_TYPE_HARDWARE && e[1].attr.config == 1);
        CHECK(e[1].nr_ids == 0);
        ps_arena__free(&d.a);
    }
}

/* An attr whose own size (136) exceeds the EVENT_DESC attr_size (128)
 * still decodes, with the stored size kept (perf copies what is there). */
static void test_event_desc_attr_size_mismatch(void)
{
    ps_attr a = desc_attr(PERF_TYPE_SOFTWARE, 3);
    buf b = new_buf(0);
    uint32_t big = 136;
    dec d;

    put32(&b, 1); put32(&b, 128);
    put_attr(&b, &a);
    memcpy(b.p + 8 + 4, &big, 4);
    put32(&b, 0); put_str(&b, "x");
    dec_init(&d, 0);
    CHECK(dec_run(&d, PS_HEADER_EVENT_DESC, &b) == PS_OK);
    CHECK(d.f.event_desc.events[0].attr.size == 136);
    CHECK(d.f.event_desc.events[0].attr.config == 3);
    free(b.p);
    ps_arena__free(&d.a);
}

static void test_cpu_topology(void)
{
    int swap, parts;

    for (swap = 0; swap <= 1; swap++)
        for (parts = 0; parts <= 2; parts++) {
            const ps_features *f;
            buf b = new_buf(swap);
            dec d;

            dec_init(&d, swap);
            build_topology_parts(&b, parts, 64);
            CHECK(dec_run(&d, PS_HEADER_CPU_TOPOLOGY, &b) == PS_OK);
            f = &d.f;
            CHECK(f->cpu_topology.package_cpus.nr == 1);
            CHECK(strcmp(f->cpu_topology.package_cpus.strs[0], "0-1") == 0);
            CHECK(f->cpu_topology.core_cpus.nr == 2);
            CHECK(strcmp(f->cpu_topology.core_cpus.strs[1], "1") == 0);
            CHECK((f->cpu_topology.cpus != NULL) == (parts >= 1));
            CHECK(f->cpu_topology.nr_cpus == (parts >= 1 ? 2u : 0u));
            CHECK(f->cpu_topology.has_die_ids == (parts == 2));
            CHECK(f->cpu_topology.die_cpus.nr == (parts == 2 ? 1u : 0u));
            if (parts >= 1) {
                CHECK(f->cpu_topology.cpus[1].core_id == 1);
                CHECK(f->cpu_topology.cpus[1].socket_id == 0);
            }
            free(b.p);
            ps_arena__free(&d.a);
        }
}

/* perf decides the optional parts from its own size estimate (strings
 * counted with 64-byte padding): short padding hides the ids, as in perf. */
static void test_cpu_topology_short_padding(void)
{
    buf b = new_buf(0);
    dec d;

    dec_init(&d, 0);
    build_topology_parts(&b, 2, 8);
    CHECK(dec_run(&d, PS_HEADER_CPU_TOPOLOGY, &b) == PS_OK);
    CHECK(d.f.cpu_topology.cpus == NULL && d.f.cpu_topology.nr_cpus == 0);
    CHECK(d.f.cpu_topology.core_cpus.nr == 2);
    free(b.p);
    ps_arena__free(&d.a);
}

static void test_numa(void)
{
    int swap;

    for (swap = 0; swap <= 1; swap++) {
        dec d;

        CHECK(decode_case(&d, PS_HEADER_NUMA_TOPOLOGY, build_numa, swap) == PS_OK);
        CHECK(d.f.numa.nr == 2);
        CHECK(d.f.numa.nodes[0].mem_total == 6907676 && d.f.numa.nodes[0].mem_free == 5463408);
        CHECK(strcmp(d.f.numa.nodes[0].cpus, "0-1") == 0);
        CHECK(d.f.numa.nodes[1].node == 1 && strcmp(d.f.numa.nodes[1].cpus, "") == 0);
        ps_arena__free(&d.a);
    }
}

static void test_lists(void)
{
    int swap;

    for (swap = 0; swap <= 1; swap++) {
        dec d;

        CHECK(decode_case(&d, PS_HEADER_PMU_MAPPINGS, build_pmu_mappings, swap) == PS_OK);
        CHECK(d.f.pmu_mappings.nr == 2 && d.f.pmu_mappings.pmus[1].type == 9);
        CHECK(strcmp(d.f.pmu_mappings.pmus[1].name, "msr") == 0);
        ps_arena__free(&d.a);
        CHECK(decode_case(&d, PS_HEADER_GROUP_DESC, build_group_desc, swap) == PS_OK);
        CHECK(d.f.group_desc.nr == 1 && d.f.group_desc.groups[0].nr_members == 2);
        CHECK(strcmp(d.f.group_desc.groups[0].name, "{anon_group}") == 0);
        ps_arena__free(&d.a);
        CHECK(decode_case(&d, PS_HEADER_AUXTRACE, build_auxtrace, swap) == PS_OK);
        CHECK(d.f.auxtrace.nr == 2 && d.f.auxtrace.entries[1].offset == 0x2000);
        ps_arena__free(&d.a);
        CHECK(decode_case(&d, PS_HEADER_CACHE, build_cache, swap) == PS_OK);
        CHECK(d.f.cache.version == 1 && d.f.cache.nr == 1);
        CHECK(d.f.cache.caches[0].ways == 8 && strcmp(d.f.cache.caches[0].size, "32K") == 0);
        ps_arena__free(&d.a);
        CHECK(decode_case(&d, PS_HEADER_HYBRID_TOPOLOGY, build_hybrid, swap) == PS_OK);
        CHECK(d.f.hybrid_topology.nr == 2);
        CHECK(strcmp(d.f.hybrid_topology.pmus[1].cpus, "8-15") == 0);
        ps_arena__free(&d.a);
        CHECK(decode_case(&d, PS_HEADER_CPU_PMU_CAPS, build_cpu_pmu_caps, swap) == PS_OK);
        CHECK(d.f.cpu_pmu_caps.nr == 2);
        CHECK(strcmp(d.f.cpu_pmu_caps.caps[1].name, "max_precise") == 0);
        CHECK(strcmp(d.f.cpu_pmu_caps.caps[1].value, "3") == 0);
        ps_arena__free(&d.a);
        CHECK(decode_case(&d, PS_HEADER_PMU_CAPS, build_pmu_caps, swap) == PS_OK);
        CHECK(d.f.pmu_caps.nr == 2 && d.f.pmu_caps.pmus[0].nr_caps == 1);
        CHECK(strcmp(d.f.pmu_caps.pmus[0].pmu_name, "armv8_pmuv3_0") == 0);
        CHECK(strcmp(d.f.pmu_caps.pmus[0].caps[0].value, "0x8") == 0);
        CHECK(d.f.pmu_caps.pmus[1].nr_caps == 0);
        ps_arena__free(&d.a);
    }
}

static void test_mem_topology(void)
{
    int swap;

    for (swap = 0; swap <= 1; swap++) {
        const ps_feat_mem_node *n;
        dec d;

        CHECK(decode_case(&d, PS_HEADER_MEM_TOPOLOGY, build_mem_topology, swap) == PS_OK);
        CHECK(d.f.mem_topology.version == 1 && d.f.mem_topology.block_size == 0x8000000);
        CHECK(d.f.mem_topology.nr_nodes == 1);
        n = &d.f.mem_topology.nodes[0];
        CHECK(n->nbits == 200 && n->bits[0] == 0xff00ff && n->bits[3] == 0xff);
        ps_arena__free(&d.a);
    }
}

static void test_bpf(void)
{
    int swap;

    for (swap = 0; swap <= 1; swap++) {
        dec d;

        CHECK(decode_case(&d, PS_HEADER_BPF_PROG_INFO, build_bpf_prog_info, swap) == PS_OK);
        CHECK(d.f.bpf_prog_info.count == 1);
        CHECK(d.f.bpf_prog_info.progs[0].info_len == 16);
        CHECK(d.f.bpf_prog_info.progs[0].data_len == 8);
        CHECK(d.f.bpf_prog_info.progs[0].arrays == 0x118);
        CHECK(d.f.bpf_prog_info.progs[0].info[4] == 120);    /* bytes kept as they are */
        CHECK(d.f.bpf_prog_info.progs[0].data[7] == 2);
        ps_arena__free(&d.a);
        CHECK(decode_case(&d, PS_HEADER_BPF_BTF, build_bpf_btf, swap) == PS_OK);
        CHECK(d.f.bpf_btf.count == 2 && d.f.bpf_btf.btfs[0].id == 7);
        CHECK(d.f.bpf_btf.btfs[0].size == 3 && memcmp(d.f.bpf_btf.btfs[0].data, "abc", 3) == 0);
        CHECK(d.f.bpf_btf.btfs[1].size == 0);
        ps_arena__free(&d.a);
    }
}

static void test_cpu_domain_info(void)
{
    int swap;

    for (swap = 0; swap <= 1; swap++) {
        const ps_feat_cpu_domains *c;
        buf b = new_buf(swap);
        dec d;

        CHECK(decode_case(&d, PS_HEADER_CPU_DOMAIN_INFO, build_cpu_domain_info, swap) == PS_OK);
        CHECK(d.f.cpu_domain_info.schedstat_version == 17);
        CHECK(d.f.cpu_domain_info.nr_cpus == 2);
        c = d.f.cpu_domain_info.cpus;
        CHECK(c[0].nr_domains == 1 && strcmp(c[0].domains[0].name, "SMT") == 0);
        CHECK(strcmp(c[0].domains[0].cpulist, "0-1") == 0);
        CHECK(c[1].cpu == 1 && c[1].nr_domains == 0);
        ps_arena__free(&d.a);
        /* version 16: no domain names */
        dec_init(&d, swap);
        put32(&b, 16); put32(&b, 1);
        put32(&b, 0); put32(&b, 1); put32(&b, 0); put_str(&b, "3"); put_str(&b, "0-1");
        put32(&b, 1); put32(&b, 0);
        CHECK(dec_run(&d, PS_HEADER_CPU_DOMAIN_INFO, &b) == PS_OK);
        CHECK(d.f.cpu_domain_info.cpus[0].domains[0].name == NULL);
        CHECK(strcmp(d.f.cpu_domain_info.cpus[0].domains[0].cpumask, "3") == 0);
        free(b.p);
        ps_arena__free(&d.a);
    }
}

static void test_build_id(void)
{
    int swap;

    for (swap = 0; swap <= 1; swap++) {
        const ps_feat_build_id *e;
        dec d;

        CHECK(decode_case(&d, PS_HEADER_BUILD_ID, build_build_id, swap) == PS_OK);
        CHECK(d.f.build_ids.nr == 2);
        e = d.f.build_ids.entries;
        CHECK(e[0].misc == 1 && e[0].pid == -1 && e[0].size == 20 && e[0].build_id[19] == 0xab);
        CHECK(strcmp(e[0].filename, "[kernel.kallsyms]") == 0);
        CHECK(e[1].size == 16 && e[1].build_id[0] == 0xcd);
        CHECK(strcmp(e[1].filename, "/usr/lib/libc.so.6") == 0);
        ps_arena__free(&d.a);
    }
}

/* Files from before the pid field: {header; build_id[24]; path}. Read with
 * the new layout the kernel's path starts "nel.kallsyms]". */
static void test_build_id_old_abi(void)
{
    static const uint8_t zero[64];
    int swap;

    for (swap = 0; swap <= 1; swap++) {
        buf b = new_buf(swap);
        uint8_t id[24];
        dec d;

        memset(id, 0x5a, sizeof(id));
        put32(&b, 0); put16(&b, 1); put16(&b, 32 + 64);
        buf_put(&b, id, 24); buf_put(&b, "[kernel.kallsyms]", 18); buf_put(&b, zero, 64 - 18);
        put32(&b, 0); put16(&b, 5); put16(&b, 32 + 64);
        buf_put(&b, id, 24); buf_put(&b, "/bin/guest", 11); buf_put(&b, zero, 64 - 11);
        dec_init(&d, swap);
        CHECK(dec_run(&d, PS_HEADER_BUILD_ID, &b) == PS_OK);
        CHECK(d.f.build_ids.nr == 2);
        CHECK(strcmp(d.f.build_ids.entries[0].filename, "[kernel.kallsyms]") == 0);
        CHECK(d.f.build_ids.entries[0].pid == -1);
        CHECK(d.f.build_ids.entries[1].pid == 0);      /* guest user: default guest */
        CHECK(strcmp(d.f.build_ids.entries[1].filename, "/bin/guest") == 0);
        CHECK(d.f.build_ids.entries[1].size == 20 && d.f.build_ids.entries[1].build_id[19] == 0x5a);
        free(b.p);
        ps_arena__free(&d.a);
    }
}

/* The tracing blob is copied: it must outlive a reused pipe buffer. */
static void test_tracing_data_copied(void)
{
    buf b = new_buf(0);
    dec d;

    dec_init(&d, 0);
    build_tracing_blob(&b, 0);
    CHECK(dec_run(&d, PS_HEADER_TRACING_DATA, &b) == PS_OK);
    CHECK(d.f.tracing_data.size == b.n && d.f.tracing_data.data != b.p);
    CHECK(memcmp(d.f.tracing_data.data, b.p, b.n) == 0);
    memset(b.p, 0, b.n);
    CHECK(d.f.tracing_data.data[0] == 027);
    free(b.p);
    ps_arena__free(&d.a);
}

/* Versions perf refuses are errors, and leave the feature absent. */
static void test_unsupported_versions(void)
{
    static const unsigned feats[] = { PS_HEADER_CACHE, PS_HEADER_CLOCK_DATA };
    size_t i;

    for (i = 0; i < 2; i++) {
        buf b = new_buf(0);
        dec d;

        put32(&b, 2); put32(&b, 0); put64(&b, 0); put64(&b, 0);
        dec_init(&d, 0);
        CHECK(dec_run(&d, feats[i], &b) == PS_EUNSUPPORTED);
        CHECK(!has(&d.f, feats[i]) && (d.f.failed[0] >> feats[i] & 1));
        free(b.p);
        ps_arena__free(&d.a);
    }
    {
        buf b = new_buf(0);
        dec d;

        put64(&b, 2); put64(&b, 0); put64(&b, 0);
        dec_init(&d, 0);
        CHECK(dec_run(&d, PS_HEADER_MEM_TOPOLOGY, &b) == PS_EUNSUPPORTED);
        free(b.p);
        ps_arena__free(&d.a);
    }
}

/* Every prefix of every payload, in both byte orders, copied into a buffer
 * of exactly that size: an error (PS_ETRUNC, with the offset inside the
 * payload), or for the rows whose payload has valid shorter forms, success. */
static void test_truncation_every_prefix(void)
{
    size_t i, n;
    int swap;

    for (swap = 0; swap <= 1; swap++)
        for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            buf b = new_buf(swap);

            cases[i].build(&b);
            for (n = 0; n < b.n; n++) {
                uint8_t *p = malloc(n ? n : 1);
                ps_features before;
                dec d;
                int rc;

                memcpy(p, b.p, n);
                dec_init(&d, swap);
                before = d.f;
                rc = ps_features__decode(&d.f, &d.a, cases[i].feat, p, n, swap, OFF, &d.err);
                if (rc < 0) {
                    CHECK(rc == PS_ETRUNC || rc == PS_ECORRUPT);
                    CHECK(d.err.offset >= OFF && d.err.offset <= OFF + n);
                    CHECK(has(&d.f, cases[i].feat) == has(&before, cases[i].feat));
                    CHECK(d.f.nr_cpus_avail == before.nr_cpus_avail);
                    CHECK(d.f.failed[0] >> cases[i].feat & 1);
                } else {
                    CHECK(cases[i].prefix_ok);
                }
                free(p);
                ps_arena__free(&d.a);
            }
            free(b.p);
        }
}

/* Counts far beyond the payload fail before allocating: the arena stays
 * small whatever the count claims. */
static void test_count_bombs(void)
{
    static const unsigned feats[] = {
        PS_HEADER_CMDLINE, PS_HEADER_EVENT_DESC, PS_HEADER_NUMA_TOPOLOGY,
        PS_HEADER_PMU_MAPPINGS, PS_HEADER_GROUP_DESC, PS_HEADER_CACHE,
        PS_HEADER_BPF_PROG_INFO, PS_HEADER_BPF_BTF, PS_HEADER_CPU_PMU_CAPS,
        PS_HEADER_HYBRID_TOPOLOGY, PS_HEADER_PMU_CAPS,
    };
    size_t i;
    int swap;

    for (swap = 0; swap <= 1; swap++) {
        for (i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
            buf b = new_buf(swap);
            dec d;

            if (feats[i] == PS_HEADER_CACHE)
                put32(&b, 1);
            put32(&b, 0xffffffff);
            put32(&b, 0xffffffff);
            put32(&b, 0);
            dec_init(&d, swap);
            CHECK(dec_run(&d, feats[i], &b) < 0);
            CHECK(d.a.total < 65536);
            free(b.p);
            ps_arena__free(&d.a);
        }
        {   /* u64 counts and bitmap sizes */
            buf b = new_buf(swap);
            dec d;

            put64(&b, UINT64_MAX);
            dec_init(&d, swap);
            CHECK(dec_run(&d, PS_HEADER_AUXTRACE, &b) == PS_ETRUNC);
            free(b.p);
            b = new_buf(swap);
            put64(&b, 1); put64(&b, 4096); put64(&b, 1);
            put64(&b, 0); put64(&b, 0); put64(&b, UINT64_MAX);
            CHECK(dec_run(&d, PS_HEADER_MEM_TOPOLOGY, &b) == PS_ETRUNC);
            CHECK(d.a.total < 65536);
            free(b.p);
            ps_arena__free(&d.a);
        }
        {   /* NRCPUS says 4 billion CPUs: the topology ids cannot be there */
            buf b = new_buf(swap);
            dec d;

            dec_init(&d, swap);
            d.f.nr_cpus_avail = UINT32_MAX;
            build_topology_parts(&b, 1, 64);
            CHECK(dec_run(&d, PS_HEADER_CPU_TOPOLOGY, &b) == PS_ETRUNC);
            CHECK(d.a.total < 65536);
            free(b.p);
            ps_arena__free(&d.a);
        }
    }
}

/* A failed decode keeps the earlier value and sets `failed`; a later good
 * one clears it. */
static void test_failure_keeps_state(void)
{
    buf good = new_buf(0), bad = new_buf(0);
    dec d;

    put_str(&good, "first");
    put32(&bad, 100);
    dec_init(&d, 0);
    CHECK(dec_run(&d, PS_HEADER_HOSTNAME, &good) == PS_OK);
    CHECK(dec_run(&d, PS_HEADER_HOSTNAME, &bad) == PS_ETRUNC);
    CHECK(strcmp(d.f.hostname, "first") == 0);
    CHECK(has(&d.f, PS_HEADER_HOSTNAME) && (d.f.failed[0] >> PS_HEADER_HOSTNAME & 1));
    CHECK(dec_run(&d, PS_HEADER_HOSTNAME, &good) == PS_OK);
    CHECK(!(d.f.failed[0] >> PS_HEADER_HOSTNAME & 1));
    free(good.p);
    free(bad.p);
    ps_arena__free(&d.a);
}

/* Unknown and reserved bits are skipped like perf; out of range is EINVAL. */
static void test_unknown_bits(void)
{
    buf b = new_buf(0);
    dec d;

    put32(&b, 7);
    dec_init(&d, 0);
    CHECK(dec_run(&d, 40, &b) == PS_OK && !has(&d.f, 40));
    CHECK(dec_run(&d, 0, &b) == PS_OK && !has(&d.f, 0));
    CHECK(dec_run(&d, PS_HEADER_FEAT_BITS, &b) == PS_EINVAL);
    free(b.p);
    ps_arena__free(&d.a);
}

/* ------------------------------------------------------------------------ */
/* evname.c                                                                  */

static const char *derive(ps_attr *a)
{
    static char buf[256];

    ps_evname__derive(buf, sizeof(buf), a, NULL);
    return buf;
}

static ps_attr mk(uint32_t type, uint64_t config, uint64_t flags)
{
    ps_attr a;

    memset(&a, 0, sizeof(a));
    a.type = type;
    a.config = config;
    a.flags = flags;
    return a;
}

#define F(bit) PS_ATTR_FLAG(PS_ATTR_##bit)
#define PRECISE(n) ((uint64_t)(n) << PS_ATTR_PRECISE_IP)

/* Names perf 6.1 prints (checked with perf evlist on hand-made files). */
static void test_evname_table(void)
{
    static const struct { uint32_t type; uint64_t config, flags; const char *name; } t[] = {
        { 0, 0, 0, "cycles:HG" },
        { 0, 1, F(EXCLUDE_GUEST), "instructions" },
        { 0, 0, F(EXCLUDE_USER) | F(EXCLUDE_KERNEL), "cycles:h" },
        { 0, 0, PRECISE(1), "cycles:p" },
        { 0, 0, PRECISE(3), "cycles:ppp" },
        { 0, 0, F(EXCLUDE_KERNEL) | PRECISE(2), "cycles:uhpp" },
        { 0, 5, F(EXCLUDE_HOST), "branch-misses:G" },
        { 0, 0, F(EXCLUDE_GUEST) | PRECISE(1), "cycles:pH" },
        { 0, 0, F(EXCLUDE_HOST) | F(EXCLUDE_GUEST), "cycles" },
        { 0, 0, F(EXCLUDE_HV), "cycles:ku" },
        { 0, 0, F(EXCLUDE_USER) | F(EXCLUDE_HV), "cycles:k" },
        { 0, 0, F(EXCLUDE_USER) | F(EXCLUDE_KERNEL) | F(EXCLUDE_HV), "cycles" },
        { 0, 99, 0, "unknown-hardware:HG" },
        { 0, UINT64_C(0x400000000), 0, "cpu/cycles/:HG" },
        { 0, UINT64_C(0x400000001), 0, "cpu/instructions/:HG" },
        { 1, 0, 0, "cpu-clock:HG" },
        { 1, 9, F(EXCLUDE_GUEST), "dummy" },
        { 1, 10, 0, "unknown-software:HG" },
        { 3, 0x10000, 0, "L1-dcache-load-misses:HG" },
        { 3, 0, 0, "L1-dcache-loads:HG" },
        { 3, 0x10001, 0, "L1-icache-load-misses:HG" },
        { 3, 0x0105, 0, "invalid-cache:HG" },
        { 3, 0x0201, 0, "L1-icache-prefetches:HG" },
        { 3, UINT64_C(0x400010000), 0, "L1-dcache-load-misses:HG" },
        { 3, 7, 0, "unknown-ext-hardware-cache-type:HG" },
        { 3, 0x300, 0, "unknown-ext-hardware-cache-op:HG" },
        { 3, 0x20000, 0, "unknown-ext-hardware-cache-result:HG" },
        { 4, 0x1234, 0, "raw 0x1234:HG" },
        { 4, 0x1234, F(EXCLUDE_GUEST), "raw 0x1234" },
        { 2, 5, 0, "unknown tracepoint" },
        { 6, 1, 0, "unknown attr type: 6" },
    };
    size_t i;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        ps_attr a = mk(t[i].type, t[i].config, t[i].flags);
        const char *got = derive(&a);

        CHECK(strcmp(got, t[i].name) == 0);
        if (strcmp(got, t[i].name) != 0)
            fprintf(stderr, "  row %zu: got '%s', want '%s'\n", i, got, t[i].name);
    }
}

static void test_evname_breakpoint(void)
{
    ps_attr a = mk(PERF_TYPE_BREAKPOINT, 0, 0);

    a.bp_type = 3;
    a.config1 = 0x404068;
    CHECK(strcmp(derive(&a), "mem:0x404068:rw:HG") == 0);
    a.bp_type = 4;
    a.config1 = 0x1000;
    a.flags = F(EXCLUDE_GUEST);
    CHECK(strcmp(derive(&a), "mem:0x1000:x") == 0);
}

static void test_evname_small_buffer(void)
{
    ps_attr a = mk(PERF_TYPE_HW_CACHE, 0x10000, 0);
    char buf[8];

    ps_evname__derive(buf, sizeof(buf), &a, NULL);
    CHECK(strcmp(buf, "L1-dcac") == 0);
    ps_evname__derive(buf, 1, &a, NULL);
    CHECK(buf[0] == 0);
    ps_evname__derive(buf, 0, &a, NULL);    /* writes nothing */
}

static void test_evname_tracepoint(void)
{
    int big;

    for (big = 0; big <= 1; big++) {
        buf b = new_buf(0);
        ps_features f;
        ps_attr a = mk(PERF_TYPE_TRACEPOINT, 372, 0);
        char name[64];

        build_tracing_blob(&b, big);
        memset(&f, 0, sizeof(f));
        f.tracing_data.data = b.p;
        f.tracing_data.size = b.n;
        ps_evname__derive(name, sizeof(name), &a, &f);
        CHECK(strcmp(name, "sched:sched_switch") == 0);
        CHECK(ps_evname__tracepoint(name, sizeof(name), b.p, b.n, 120) == 0);
        CHECK(strcmp(name, "irq:irq_handler_entry") == 0);
        CHECK(ps_evname__tracepoint(name, sizeof(name), b.p, b.n, 1) == 0);
        CHECK(strcmp(name, "ftrace:function") == 0);
        CHECK(ps_evname__tracepoint(name, sizeof(name), b.p, b.n, 37) == -1);
        a.config = 999;
        ps_evname__derive(name, sizeof(name), &a, &f);
        CHECK(strcmp(name, "unknown tracepoint") == 0);
        free(b.p);
    }
}

/* Every prefix of the blob: found only when the format is complete, never
 * a read past the end. */
static void test_evname_blob_truncation(void)
{
    buf b = new_buf(0);
    size_t n, found_from = 0;

    build_tracing_blob(&b, 0);
    for (n = 0; n <= b.n; n++) {
        uint8_t *p = malloc(n ? n : 1);
        char name[64];

        memcpy(p, b.p, n);
        if (ps_evname__tracepoint(name, sizeof(name), p, n, 372) == 0 && !found_from)
            found_from = n;
        free(p);
    }
    CHECK(found_from > 0 && found_from < b.n);
    CHECK(ps_evname__tracepoint((char[8]){0}, 8, (const uint8_t *)"\027\010", 2, 1) == -1);
    free(b.p);
}

static const struct harness_test tests[] = {
    TEST(test_feature_names),
    TEST(test_every_row_decodes),
    TEST(test_strings),
    TEST(test_string_without_nul),
    TEST(test_numbers),
    TEST(test_cmdline),
    TEST(test_event_desc),
    TEST(test_event_desc_attr_size_mismatch),
    TEST(test_cpu_topology),
    TEST(test_cpu_topology_short_padding),
    TEST(test_numa),
    TEST(test_lists),
    TEST(test_mem_topology),
    TEST(test_bpf),
    TEST(test_cpu_domain_info),
    TEST(test_build_id),
    TEST(test_build_id_old_abi),
    TEST(test_tracing_data_copied),
    TEST(test_unsupported_versions),
    TEST(test_truncation_every_prefix),
    TEST(test_count_bombs),
    TEST(test_failure_keeps_state),
    TEST(test_unknown_bits),
    TEST(test_evname_table),
    TEST(test_evname_breakpoint),
    TEST(test_evname_small_buffer),
    TEST(test_evname_tracepoint),
    TEST(test_evname_blob_truncation),
};

TEST_MAIN(tests)
