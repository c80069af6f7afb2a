/* SPDX-License-Identifier: MIT */
/*
 * info_json.c - `perfsift info --json` without the record counts: the file
 * header (ps_header), every decoded HEADER_* feature (ps_features; one
 * builder per feature in a table indexed by HEADER_* id, keyed by perf's
 * feature name in lower case) and the event table (ps_evsel, each attr by
 * the kernel's perf_event_attr field names). schemas/info.schema.json is
 * the contract; change the two together. Uses only perfsift.h.
 *
 * Rules every builder keeps (the schema's $defs say the same):
 *  - a u64 is a JSON integer while it fits in int64, else a decimal string
 *    (jansson integers are signed); kernel addresses are "0x..." strings;
 *  - a string from the capture goes through text_n(): valid UTF-8 passes,
 *    except that a backslash is doubled, and any byte that is not part of
 *    valid UTF-8 becomes the four characters \xNN, so the bytes can be
 *    recovered exactly; absent strings (NULL) are JSON null;
 *  - an event's "attr" object uses exactly the members of
 *    schemas/attr.schema.json, so it can be given back to --attr: one of
 *    each kernel union (sample_period or sample_freq by the freq bit,
 *    wakeup_events or wakeup_watermark by the watermark bit), the flags
 *    word and every named flag bit; the decoded name lists sit beside it;
 *  - a feature appears only when it decoded (its `present` bit); one that
 *    was there but failed is listed in "failed" and has no member.
 *
 * Failure: the builders never stop half way; an allocation that fails
 * sets jb.failed, and the public functions then return NULL.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "info_json.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* What a builder needs: the session's header and features, and whether
 * any allocation failed so far. */
typedef struct jb {
    const ps_header   *h;
    const ps_features *f;
    int                failed;
} jb;

static void jb_init(jb *b, ps_session *s)
{
    b->h = ps_session_header(s);
    b->f = ps_session_features(s);
    b->failed = 0;
}

/* The built value, or NULL (and nothing leaked) if anything failed. */
static json_t *jb_done(jb *b, json_t *v)
{
    if (!b->failed)
        return v;
    json_decref(v);
    return NULL;
}

/* Store v (consumed) under key; a NULL v means its constructor failed. */
static void put(jb *b, json_t *obj, const char *key, json_t *v)
{
    if (v == NULL || json_object_set_new(obj, key, v) < 0)
        b->failed = 1;
}

static void push(jb *b, json_t *arr, json_t *v)
{
    if (v == NULL || json_array_append_new(arr, v) < 0)
        b->failed = 1;
}

/* ------------------------------------------------------------------------ */
/* Scalars                                                                  */

static json_t *u64(uint64_t v)
{
    return v <= INT64_MAX ? json_integer((json_int_t)v) : json_sprintf("%" PRIu64, v);
}

static json_t *addr(uint64_t v)
{
    return json_sprintf("0x%" PRIx64, v);
}

static json_t *hex(const uint8_t *p, size_t n)
{
    char buf[2 * 64 + 1];
    size_t i;

    for (i = 0; i < n && i < 64; i++)
        snprintf(buf + 2 * i, 3, "%02x", p[i]);
    buf[2 * i] = '\0';
    return json_string(buf);
}

/* Length of the valid UTF-8 sequence at p (n > 0 bytes left), 0 if there
 * is none: shortest forms only, no surrogates, nothing past U+10FFFF (the
 * rules jansson checks, so whatever passes here jansson accepts). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned char lo = 0x80, hi = 0xbf;
    size_t len, i;

    if (p[0] < 0x80)
        return 1;
    if (p[0] < 0xc2 || p[0] > 0xf4)
        return 0;
    len = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
    if (p[0] == 0xe0)
        lo = 0xa0;
    else if (p[0] == 0xed)
        hi = 0x9f;
    else if (p[0] == 0xf0)
        lo = 0x90;
    else if (p[0] == 0xf4)
        hi = 0x8f;
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (i = 2; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return len;
}

size_t info_json_utf8_len(const unsigned char *p, size_t n)
{
    return utf8_len(p, n);
}

/* n bytes of capture text, escaped reversibly (see the opening comment). */
static json_t *text_n(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i, k = 0, len;
    json_t *v;
    char *buf;

    if ((buf = malloc(4 * n + 1)) == NULL)
        return NULL;
    for (i = 0; i < n; i += len) {
        if ((len = utf8_len(p + i, n - i)) == 0) {
            snprintf(buf + k, 5, "\\x%02x", p[i]);
            k += 4;
            len = 1;
        } else if (p[i] == '\\') {
            buf[k++] = '\\';
            buf[k++] = '\\';
        } else {
            memcpy(buf + k, p + i, len);
            k += len;
        }
    }
    v = json_stringn(buf, k);
    free(buf);
    return v;
}

static json_t *text(const char *s)
{
    return s ? text_n(s, strlen(s)) : json_null();
}

json_t *info_json_text(const char *s)
{
    return text(s);
}

static json_t *section(jb *b, const ps_file_section *sec)
{
    json_t *o = json_object();

    put(b, o, "offset", u64(sec->offset));
    put(b, o, "size", u64(sec->size));
    return o;
}

static json_t *strlist(jb *b, const ps_strlist *l)
{
    json_t *arr = json_array();
    uint32_t i;

    for (i = 0; i < l->nr; i++)
        push(b, arr, text(l->strs[i]));
    return arr;
}

static json_t *id_list(jb *b, const uint64_t *ids, uint64_t nr)
{
    json_t *arr = json_array();
    uint64_t i;

    for (i = 0; i < nr; i++)
        push(b, arr, u64(ids[i]));
    return arr;
}

/* The names of the set bits of v, in bit order; a bit without a name is
 * "bit<N>", so the list always accounts for every bit. */
typedef const char *(*bit_name_fn)(unsigned bit);

static json_t *bit_names(jb *b, uint64_t v, bit_name_fn name_of)
{
    json_t *arr = json_array();
    unsigned bit;

    for (bit = 0; bit < 64; bit++) {
        const char *name;

        if (!((v >> bit) & 1))
            continue;
        name = name_of(bit);
        push(b, arr, name ? json_string(name) : json_sprintf("bit%u", bit));
    }
    return arr;
}

/* ------------------------------------------------------------------------ */
/* perf_event_attr by the kernel's names                                    */

enum attr_kind {
    A_UINT,         /* unsigned, width bytes */
    A_S32,          /* clockid */
    A_FLAGS,        /* the flags word, then each bit-field by name */
    A_NONZERO       /* __reserved_2: only shown when set (--attr lacks it) */
};

/* perf_event_attr in struct order. A union member is named by alt_name
 * when the flag bit alt_bit says the kernel reads it that way. */
static const struct attr_field {
    const char    *name;
    const char    *alt_name;
    int            alt_bit;
    size_t         off;
    unsigned       width;
    enum attr_kind kind;
} attr_fields[] = {
#define F(n, k) #n, NULL, -1, offsetof(ps_attr, n), sizeof(((ps_attr *)0)->n), k
    { F(type, A_UINT) },
    { F(size, A_UINT) },
    { F(config, A_UINT) },
    { "sample_period", "sample_freq", PS_ATTR_FREQ, offsetof(ps_attr, sample_period), 8, A_UINT },
    { F(sample_type, A_UINT) },
    { F(read_format, A_UINT) },
    { F(flags, A_FLAGS) },
    { "wakeup_events", "wakeup_watermark", PS_ATTR_WATERMARK,
      offsetof(ps_attr, wakeup_events), 4, A_UINT },
    { F(bp_type, A_UINT) },
    { F(config1, A_UINT) },
    { F(config2, A_UINT) },
    { F(branch_sample_type, A_UINT) },
    { F(sample_regs_user, A_UINT) },
    { F(sample_stack_user, A_UINT) },
    { F(clockid, A_S32) },
    { F(sample_regs_intr, A_UINT) },
    { F(aux_watermark, A_UINT) },
    { F(sample_max_stack, A_UINT) },
    { "__reserved_2", NULL, -1, offsetof(ps_attr, reserved_2), 2, A_NONZERO },
    { F(aux_sample_size, A_UINT) },
    { F(aux_action, A_UINT) },
    { F(sig_data, A_UINT) },
    { F(config3, A_UINT) },
#undef F
};

static uint64_t attr_load(const ps_attr *a, const struct attr_field *af)
{
    const uint8_t *p = (const uint8_t *)a + af->off;
    uint16_t v16;
    uint32_t v32;
    uint64_t v64;

    switch (af->width) {
    case 2: memcpy(&v16, p, 2); return v16;
    case 4: memcpy(&v32, p, 4); return v32;
    default: memcpy(&v64, p, 8); return v64;
    }
}

static void put_flags(jb *b, json_t *o, uint64_t flags)
{
    size_t i;

    put(b, o, "flags", u64(flags));
    /* each bit-field by its kernel name; precise_ip is 2 bits, a number */
    for (i = 0; i < 64; i++) {
        const char *name = ps_attr_flag_name((unsigned)i);

        if (name == NULL)
            continue;
        if (i == PS_ATTR_PRECISE_IP)
            put(b, o, name, json_integer((json_int_t)((flags >> i) & 3)));
        else
            put(b, o, name, json_boolean((flags >> i) & 1));
    }
}

static json_t *attr_json(jb *b, const ps_attr *a)
{
    json_t *o = json_object();
    size_t i;

    for (i = 0; i < ARRAY_SIZE(attr_fields); i++) {
        const struct attr_field *af = &attr_fields[i];
        uint64_t v = attr_load(a, af);
        const char *name = af->alt_bit >= 0 && ps_attr_flag(a, (unsigned)af->alt_bit)
                           ? af->alt_name : af->name;

        if (af->kind == A_FLAGS)
            put_flags(b, o, v);
        else if (af->kind == A_S32)
            put(b, o, name, json_integer((int32_t)(uint32_t)v));
        else if (af->kind == A_UINT || v != 0)
            put(b, o, name, u64(v));
    }
    return o;
}

/* "attr" and the decoded masks beside it, into an event object. */
static void put_attr(jb *b, json_t *o, const ps_attr *a)
{
    put(b, o, "attr", attr_json(b, a));
    put(b, o, "sample_type_names", bit_names(b, a->sample_type, ps_sample_bit_name));
    put(b, o, "read_format_names", bit_names(b, a->read_format, ps_read_format_name));
    put(b, o, "branch_sample_type_names",
        bit_names(b, a->branch_sample_type, ps_branch_sample_name));
}

/* ------------------------------------------------------------------------ */
/* Feature builders, one per HEADER_* id (spec 6.4)                         */

typedef json_t *(*feat_json_fn)(jb *b);

static json_t *tracing_data_json(jb *b)
{
    json_t *o = json_object();

    put(b, o, "size", u64(b->f->tracing_data.size));
    return o;
}

/* PERF_RECORD_MISC_CPUMODE_* of a build-id entry's misc */
static const char *const cpumode_names[8] = {
    "unknown", "kernel", "user", "hypervisor", "guest_kernel", "guest_user",
    "unknown", "unknown",
};

static json_t *build_id_json(jb *b)
{
    json_t *arr = json_array();
    uint32_t i;

    for (i = 0; i < b->f->build_ids.nr; i++) {
        const ps_feat_build_id *e = &b->f->build_ids.entries[i];
        json_t *o = json_object();

        put(b, o, "misc", json_integer(e->misc));
        put(b, o, "cpumode", json_string(cpumode_names[e->misc & 7]));
        put(b, o, "pid", json_integer(e->pid));
        put(b, o, "build_id", hex(e->build_id, e->size));
        put(b, o, "filename", text(e->filename));
        push(b, arr, o);
    }
    return arr;
}

static json_t *hostname_json(jb *b) { return text(b->f->hostname); }
static json_t *osrelease_json(jb *b) { return text(b->f->osrelease); }
static json_t *version_json(jb *b) { return text(b->f->version); }
static json_t *arch_json(jb *b) { return text(b->f->arch); }
static json_t *cpudesc_json(jb *b) { return text(b->f->cpudesc); }
static json_t *cpuid_json(jb *b) { return text(b->f->cpuid); }
static json_t *total_mem_json(jb *b) { return u64(b->f->total_mem); }
static json_t *cmdline_json(jb *b) { return strlist(b, &b->f->cmdline); }
static json_t *flag_json(jb *b) { (void)b; return json_true(); }

static json_t *nrcpus_json(jb *b)
{
    json_t *o = json_object();

    put(b, o, "online", json_integer(b->f->nr_cpus_online));
    put(b, o, "available", json_integer(b->f->nr_cpus_avail));
    return o;
}

static json_t *event_desc_json(jb *b)
{
    json_t *o = json_object(), *arr = json_array();
    uint32_t i;

    put(b, o, "attr_size", json_integer(b->f->event_desc.attr_size));
    for (i = 0; i < b->f->event_desc.nr; i++) {
        const ps_feat_event_desc *ev = &b->f->event_desc.events[i];
        json_t *e = json_object();

        put(b, e, "name", text(ev->name));
        put(b, e, "ids", id_list(b, ev->ids, ev->nr_ids));
        put_attr(b, e, &ev->attr);
        push(b, arr, e);
    }
    put(b, o, "events", arr);
    return o;
}

/* Per-CPU ids are signed in perf (-1: unknown). */
static json_t *topology_cpus(jb *b)
{
    const ps_features *f = b->f;
    json_t *arr = json_array();
    uint32_t i;

    for (i = 0; i < f->cpu_topology.nr_cpus; i++) {
        const ps_feat_cpu *c = &f->cpu_topology.cpus[i];
        json_t *o = json_object();

        put(b, o, "cpu", json_integer(i));
        put(b, o, "core_id", json_integer((int32_t)c->core_id));
        put(b, o, "socket_id", json_integer((int32_t)c->socket_id));
        if (f->cpu_topology.has_die_ids)
            put(b, o, "die_id", json_integer((int32_t)c->die_id));
        push(b, arr, o);
    }
    return arr;
}

static json_t *cpu_topology_json(jb *b)
{
    const ps_features *f = b->f;
    json_t *o = json_object();

    put(b, o, "package_cpus", strlist(b, &f->cpu_topology.package_cpus));
    put(b, o, "die_cpus", strlist(b, &f->cpu_topology.die_cpus));
    put(b, o, "core_cpus", strlist(b, &f->cpu_topology.core_cpus));
    put(b, o, "has_die_ids", json_boolean(f->cpu_topology.has_die_ids));
    put(b, o, "cpus", f->cpu_topology.cpus ? topology_cpus(b) : json_null());
    return o;
}

static json_t *numa_topology_json(jb *b)
{
    json_t *arr = json_array();
    uint32_t i;

    for (i = 0; i < b->f->numa.nr; i++) {
        const ps_feat_numa_node *n = &b->f->numa.nodes[i];
        json_t *o = json_object();

        put(b, o, "node", json_integer(n->node));
        put(b, o, "mem_total", u64(n->mem_total));
        put(b, o, "mem_free", u64(n->mem_free));
        put(b, o, "cpus", text(n->cpus));
        push(b, arr, o);
    }
    return arr;
}

static json_t *pmu_mappings_json(jb *b)
{
    json_t *arr = json_array();
    uint32_t i;

    for (i = 0; i < b->f->pmu_mappings.nr; i++) {
        json_t *o = json_object();

        put(b, o, "type", json_integer(b->f->pmu_mappings.pmus[i].type));
        put(b, o, "name", text(b->f->pmu_mappings.pmus[i].name));
        push(b, arr, o);
    }
    return arr;
}

static json_t *group_desc_json(jb *b)
{
    json_t *arr = json_array();
    uint32_t i;

    for (i = 0; i < b->f->group_desc.nr; i++) {
        const ps_feat_group *g = &b->f->group_desc.groups[i];
        json_t *o = json_object();

        put(b, o, "name", text(g->name));
        put(b, o, "leader_idx", json_integer(g->leader_idx));
        put(b, o, "nr_members", json_integer(g->nr_members));
        push(b, arr, o);
    }
    return arr;
}

static json_t *auxtrace_json(jb *b)
{
    json_t *arr = json_array();
    uint64_t i;

    for (i = 0; i < b->f->auxtrace.nr; i++) {
        json_t *o = json_object();

        put(b, o, "offset", u64(b->f->auxtrace.entries[i].offset));
        put(b, o, "size", u64(b->f->auxtrace.entries[i].size));
        push(b, arr, o);
    }
    return arr;
}

static json_t *cache_json(jb *b)
{
    json_t *o = json_object(), *arr = json_array();
    uint32_t i;

    put(b, o, "version", json_integer(b->f->cache.version));
    for (i = 0; i < b->f->cache.nr; i++) {
        const ps_feat_cache *c = &b->f->cache.caches[i];
        json_t *e = json_object();

        put(b, e, "level", json_integer(c->level));
        put(b, e, "type", text(c->type));
        put(b, e, "size", text(c->size));
        put(b, e, "map", text(c->map));
        put(b, e, "line_size", json_integer(c->line_size));
        put(b, e, "sets", json_integer(c->sets));
        put(b, e, "ways", json_integer(c->ways));
        push(b, arr, e);
    }
    put(b, o, "caches", arr);
    return o;
}

static json_t *sample_time_json(jb *b)
{
    json_t *o = json_object();

    put(b, o, "first", u64(b->f->sample_time.first));
    put(b, o, "last", u64(b->f->sample_time.last));
    return o;
}

/* A growable string for bitmap lists. */
typedef struct strbuf { char *p; size_t len, cap; } strbuf;

static int sb_range(strbuf *sb, uint64_t lo, uint64_t hi)
{
    char tmp[48];
    int n = lo == hi ? snprintf(tmp, sizeof(tmp), "%s%" PRIu64, sb->len ? "," : "", lo)
                     : snprintf(tmp, sizeof(tmp), "%s%" PRIu64 "-%" PRIu64,
                                sb->len ? "," : "", lo, hi);

    if (sb->len + (size_t)n + 1 > sb->cap) {
        size_t cap = sb->cap * 2 + (size_t)n + 64;
        char *p = realloc(sb->p, cap);

        if (p == NULL)
            return -1;
        sb->p = p;
        sb->cap = cap;
    }
    memcpy(sb->p + sb->len, tmp, (size_t)n + 1);
    sb->len += (size_t)n;
    return 0;
}

static int test_bit(const uint64_t *bits, uint64_t i)
{
    return (int)((bits[i / 64] >> (i % 64)) & 1);
}

/* The set bits as "0-3,8" (sysfs list form); *count gets how many. */
static json_t *bitmap_list(const uint64_t *bits, uint64_t nbits, uint64_t *count)
{
    strbuf sb = { NULL, 0, 0 };
    uint64_t i = 0, lo;
    json_t *v;

    *count = 0;
    while (i < nbits) {
        if (!test_bit(bits, i)) {
            i++;
            continue;
        }
        for (lo = i; i < nbits && test_bit(bits, i); i++)
            ;
        *count += i - lo;
        if (sb_range(&sb, lo, i - 1) < 0) {
            free(sb.p);
            return NULL;
        }
    }
    v = json_string(sb.p ? sb.p : "");
    free(sb.p);
    return v;
}

static json_t *mem_topology_json(jb *b)
{
    const ps_features *f = b->f;
    json_t *o = json_object(), *arr = json_array();
    uint64_t i, count;

    put(b, o, "version", u64(f->mem_topology.version));
    put(b, o, "block_size", u64(f->mem_topology.block_size));
    for (i = 0; i < f->mem_topology.nr_nodes; i++) {
        const ps_feat_mem_node *n = &f->mem_topology.nodes[i];
        json_t *e = json_object();

        put(b, e, "node", u64(n->node));
        put(b, e, "nbits", u64(n->nbits));
        put(b, e, "blocks", bitmap_list(n->bits, n->nbits, &count));
        put(b, e, "size", u64(count * f->mem_topology.block_size));
        push(b, arr, e);
    }
    put(b, o, "nodes", arr);
    return o;
}

static json_t *clockid_json(jb *b)
{
    json_t *o = json_object();

    put(b, o, "res_ns", u64(b->f->clockid_res_ns));
    return o;
}

static json_t *dir_format_json(jb *b)
{
    json_t *o = json_object();

    put(b, o, "version", u64(b->f->dir_format));
    return o;
}

/* ---- BPF_PROG_INFO: the kernel's struct bpf_prog_info blob --------------
 * In the producer's byte order (perf copies it as the kernel gave it); its
 * array fields hold offsets into the entry's data (perf's bpil_addr_to_offs),
 * valid when their bit in `arrays` is set. */

typedef struct bpf_blob {
    const uint8_t *info, *data;
    uint32_t       info_len, data_len;
    uint64_t       arrays;
    int            swap;
} bpf_blob;

static uint64_t bpf_load(const uint8_t *p, unsigned width, int swap)
{
    uint32_t v32;
    uint64_t v64;

    if (width == 4) {
        memcpy(&v32, p, 4);
        return swap ? __builtin_bswap32(v32) : v32;
    }
    memcpy(&v64, p, 8);
    return swap ? __builtin_bswap64(v64) : v64;
}

/* struct bpf_prog_info scalars shown, by their kernel names (uapi
 * <linux/bpf.h> offsets); each appears when info_len covers it. */
static const struct bpf_field {
    const char *name;
    unsigned    off, width;
} bpf_fields[] = {
    { "type", 0, 4 }, { "id", 4, 4 }, { "jited_prog_len", 16, 4 },
    { "xlated_prog_len", 20, 4 }, { "load_time", 40, 8 }, { "created_by_uid", 48, 4 },
    { "nr_map_ids", 52, 4 }, { "ifindex", 80, 4 }, { "nr_jited_ksyms", 104, 4 },
    { "nr_jited_func_lens", 108, 4 }, { "btf_id", 128, 4 }, { "nr_func_info", 144, 4 },
    { "nr_prog_tags", 180, 4 }, { "run_time_ns", 192, 8 }, { "run_cnt", 200, 8 },
    { "recursion_misses", 208, 8 }, { "verified_insns", 216, 4 },
    { "attach_btf_obj_id", 220, 4 }, { "attach_btf_id", 224, 4 },
};

enum {
    BPI_TAG = 8, BPI_NAME = 64, BPI_NAME_LEN = 16, BPI_MAP_IDS = 56,
    BPI_NR_MAP_IDS = 52, BPI_NR_JITED_KSYMS = 104, BPI_NR_JITED_FUNC_LENS = 108,
    BPI_JITED_KSYMS = 112, BPI_JITED_FUNC_LENS = 120, BPI_NR_PROG_TAGS = 180,
    BPI_PROG_TAGS = 184,
    /* bits of `arrays` (perf's PERF_BPIL_*) */
    BPIL_MAP_IDS = 2, BPIL_JITED_KSYMS = 3, BPIL_JITED_FUNC_LENS = 4, BPIL_PROG_TAGS = 8
};

static uint64_t bpf_u(const bpf_blob *p, unsigned off, unsigned width)
{
    return off + width <= p->info_len ? bpf_load(p->info + off, width, p->swap) : 0;
}

/* The array at info field `field` with count elements of elem bytes, or
 * NULL when it is not there or does not fit in data. */
static const uint8_t *bpf_array(const bpf_blob *p, unsigned bit, unsigned field,
                                uint64_t count, unsigned elem)
{
    uint64_t off = bpf_u(p, field, 8);

    if (!((p->arrays >> bit) & 1) || field + 8 > p->info_len || off > p->data_len ||
        count > (p->data_len - off) / elem)
        return NULL;
    return p->data + off;
}

static json_t *bpf_map_ids(jb *b, const bpf_blob *p)
{
    uint64_t nr = bpf_u(p, BPI_NR_MAP_IDS, 4), i;
    const uint8_t *ids = bpf_array(p, BPIL_MAP_IDS, BPI_MAP_IDS, nr, 4);
    json_t *arr;

    if (ids == NULL)
        return json_null();
    arr = json_array();
    for (i = 0; i < nr; i++)
        push(b, arr, u64(bpf_load(ids + 4 * i, 4, p->swap)));
    return arr;
}

/* One entry per jited function: its address, length and tag, where the
 * arrays that hold them are there; null when the addresses are not. */
static json_t *bpf_sub_progs(jb *b, const bpf_blob *p)
{
    uint64_t nr = bpf_u(p, BPI_NR_JITED_KSYMS, 4), i;
    uint64_t nr_lens = bpf_u(p, BPI_NR_JITED_FUNC_LENS, 4);
    uint64_t nr_tags = bpf_u(p, BPI_NR_PROG_TAGS, 4);
    const uint8_t *addrs = bpf_array(p, BPIL_JITED_KSYMS, BPI_JITED_KSYMS, nr, 8);
    const uint8_t *lens = bpf_array(p, BPIL_JITED_FUNC_LENS, BPI_JITED_FUNC_LENS, nr_lens, 4);
    const uint8_t *tags = bpf_array(p, BPIL_PROG_TAGS, BPI_PROG_TAGS, nr_tags, 8);
    json_t *arr;

    if (addrs == NULL)
        return json_null();
    arr = json_array();
    for (i = 0; i < nr; i++) {
        json_t *o = json_object();

        put(b, o, "addr", addr(bpf_load(addrs + 8 * i, 8, p->swap)));
        if (lens && i < nr_lens)
            put(b, o, "size", u64(bpf_load(lens + 4 * i, 4, p->swap)));
        if (tags && i < nr_tags)
            put(b, o, "tag", hex(tags + 8 * i, 8));
        push(b, arr, o);
    }
    return arr;
}

static json_t *bpf_prog_json(jb *b, const ps_feat_bpf_prog *prog)
{
    bpf_blob p = { prog->info, prog->data, prog->info_len, prog->data_len,
                   prog->arrays, b->h->swapped };
    json_t *o = json_object();
    size_t i;

    put(b, o, "info_len", json_integer(p.info_len));
    put(b, o, "data_len", json_integer(p.data_len));
    put(b, o, "arrays", u64(p.arrays));
    for (i = 0; i < ARRAY_SIZE(bpf_fields); i++)
        if (bpf_fields[i].off + bpf_fields[i].width <= p.info_len)
            put(b, o, bpf_fields[i].name,
                u64(bpf_u(&p, bpf_fields[i].off, bpf_fields[i].width)));
    if (BPI_TAG + 8 <= p.info_len)
        put(b, o, "tag", hex(p.info + BPI_TAG, 8));
    if (BPI_NAME + BPI_NAME_LEN <= p.info_len)
        put(b, o, "name", text_n((const char *)p.info + BPI_NAME,
                                 strnlen((const char *)p.info + BPI_NAME, BPI_NAME_LEN)));
    put(b, o, "map_ids", bpf_map_ids(b, &p));
    put(b, o, "sub_progs", bpf_sub_progs(b, &p));
    return o;
}

static json_t *bpf_prog_info_json(jb *b)
{
    json_t *arr = json_array();
    uint32_t i;

    for (i = 0; i < b->f->bpf_prog_info.count; i++)
        push(b, arr, bpf_prog_json(b, &b->f->bpf_prog_info.progs[i]));
    return arr;
}

static json_t *bpf_btf_json(jb *b)
{
    json_t *arr = json_array();
    uint32_t i;

    for (i = 0; i < b->f->bpf_btf.count; i++) {
        json_t *o = json_object();

        put(b, o, "id", json_integer(b->f->bpf_btf.btfs[i].id));
        put(b, o, "size", json_integer(b->f->bpf_btf.btfs[i].size));
        push(b, arr, o);
    }
    return arr;
}

static json_t *compressed_json(jb *b)
{
    static const char *const types[] = { "none", "zstd" };   /* PERF_COMP_* */
    uint32_t type = b->f->compressed.type;
    json_t *o = json_object();

    put(b, o, "version", json_integer(b->f->compressed.version));
    put(b, o, "type", json_integer(type));
    put(b, o, "type_name", type < ARRAY_SIZE(types) ? json_string(types[type]) : json_null());
    put(b, o, "level", json_integer(b->f->compressed.level));
    put(b, o, "ratio", json_integer(b->f->compressed.ratio));
    put(b, o, "mmap_len", json_integer(b->f->compressed.mmap_len));
    return o;
}

static json_t *caps_json(jb *b, uint32_t nr, const ps_feat_cap *caps)
{
    json_t *arr = json_array();
    uint32_t i;

    for (i = 0; i < nr; i++) {
        json_t *o = json_object();

        put(b, o, "name", text(caps[i].name));
        put(b, o, "value", text(caps[i].value));
        push(b, arr, o);
    }
    return arr;
}

static json_t *cpu_pmu_caps_json(jb *b)
{
    return caps_json(b, b->f->cpu_pmu_caps.nr, b->f->cpu_pmu_caps.caps);
}

/* CLOCK_* ids of <time.h>, for clock_data */
static const char *const clock_names[] = {
    "realtime", "monotonic", "process_cputime_id", "thread_cputime_id",
    "monotonic_raw", "realtime_coarse", "monotonic_coarse", "boottime",
    "realtime_alarm", "boottime_alarm", "sgi_cycle", "tai",
};

static json_t *clock_data_json(jb *b)
{
    uint32_t id = b->f->clock_data.clockid;
    json_t *o = json_object();

    put(b, o, "version", json_integer(b->f->clock_data.version));
    put(b, o, "clockid", json_integer(id));
    put(b, o, "clockid_name",
        id < ARRAY_SIZE(clock_names) ? json_string(clock_names[id]) : json_null());
    put(b, o, "tod_ns", u64(b->f->clock_data.tod_ns));
    put(b, o, "clockid_ns", u64(b->f->clock_data.clockid_ns));
    return o;
}

static json_t *hybrid_topology_json(jb *b)
{
    json_t *arr = json_array();
    uint32_t i;

    for (i = 0; i < b->f->hybrid_topology.nr; i++) {
        json_t *o = json_object();

        put(b, o, "pmu_name", text(b->f->hybrid_topology.pmus[i].pmu_name));
        put(b, o, "cpus", text(b->f->hybrid_topology.pmus[i].cpus));
        push(b, arr, o);
    }
    return arr;
}

static json_t *pmu_caps_json(jb *b)
{
    json_t *arr = json_array();
    uint32_t i;

    for (i = 0; i < b->f->pmu_caps.nr; i++) {
        const ps_feat_pmu_caps *p = &b->f->pmu_caps.pmus[i];
        json_t *o = json_object();

        put(b, o, "pmu_name", text(p->pmu_name));
        put(b, o, "caps", caps_json(b, p->nr_caps, p->caps));
        push(b, arr, o);
    }
    return arr;
}

static json_t *domains_json(jb *b, const ps_feat_cpu_domains *c)
{
    json_t *arr = json_array();
    uint32_t j;

    for (j = 0; j < c->nr_domains; j++) {
        const ps_feat_domain *d = &c->domains[j];
        json_t *o = json_object();

        put(b, o, "domain", json_integer(d->domain));
        put(b, o, "name", text(d->name));
        put(b, o, "cpumask", text(d->cpumask));
        put(b, o, "cpulist", text(d->cpulist));
        push(b, arr, o);
    }
    return arr;
}

static json_t *cpu_domain_info_json(jb *b)
{
    const ps_features *f = b->f;
    json_t *o = json_object(), *arr = json_array();
    uint32_t i;

    put(b, o, "schedstat_version", json_integer(f->cpu_domain_info.schedstat_version));
    put(b, o, "max_sched_domains", json_integer(f->cpu_domain_info.max_sched_domains));
    for (i = 0; i < f->cpu_domain_info.nr_cpus; i++) {
        json_t *c = json_object();

        put(b, c, "cpu", json_integer(f->cpu_domain_info.cpus[i].cpu));
        put(b, c, "domains", domains_json(b, &f->cpu_domain_info.cpus[i]));
        push(b, arr, c);
    }
    put(b, o, "cpus", arr);
    return o;
}

/* The member name of each feature (perf's HEADER_* name in lower case) and
 * its builder. */
static const struct feat_json {
    const char  *key;
    feat_json_fn build;
} feat_json[PS_HEADER_FEAT_KNOWN] = {
    [PS_HEADER_TRACING_DATA]    = { "tracing_data",    tracing_data_json },
    [PS_HEADER_BUILD_ID]        = { "build_id",        build_id_json },
    [PS_HEADER_HOSTNAME]        = { "hostname",        hostname_json },
    [PS_HEADER_OSRELEASE]       = { "osrelease",       osrelease_json },
    [PS_HEADER_VERSION]         = { "version",         version_json },
    [PS_HEADER_ARCH]            = { "arch",            arch_json },
    [PS_HEADER_NRCPUS]          = { "nrcpus",          nrcpus_json },
    [PS_HEADER_CPUDESC]         = { "cpudesc",         cpudesc_json },
    [PS_HEADER_CPUID]           = { "cpuid",           cpuid_json },
    [PS_HEADER_TOTAL_MEM]       = { "total_mem",       total_mem_json },
    [PS_HEADER_CMDLINE]         = { "cmdline",         cmdline_json },
    [PS_HEADER_EVENT_DESC]      = { "event_desc",      event_desc_json },
    [PS_HEADER_CPU_TOPOLOGY]    = { "cpu_topology",    cpu_topology_json },
    [PS_HEADER_NUMA_TOPOLOGY]   = { "numa_topology",   numa_topology_json },
    [PS_HEADER_BRANCH_STACK]    = { "branch_stack",    flag_json },
    [PS_HEADER_PMU_MAPPINGS]    = { "pmu_mappings",    pmu_mappings_json },
    [PS_HEADER_GROUP_DESC]      = { "group_desc",      group_desc_json },
    [PS_HEADER_AUXTRACE]        = { "auxtrace",        auxtrace_json },
    [PS_HEADER_STAT]            = { "stat",            flag_json },
    [PS_HEADER_CACHE]           = { "cache",           cache_json },
    [PS_HEADER_SAMPLE_TIME]     = { "sample_time",     sample_time_json },
    [PS_HEADER_MEM_TOPOLOGY]    = { "mem_topology",    mem_topology_json },
    [PS_HEADER_CLOCKID]         = { "clockid",         clockid_json },
    [PS_HEADER_DIR_FORMAT]      = { "dir_format",      dir_format_json },
    [PS_HEADER_BPF_PROG_INFO]   = { "bpf_prog_info",   bpf_prog_info_json },
    [PS_HEADER_BPF_BTF]         = { "bpf_btf",         bpf_btf_json },
    [PS_HEADER_COMPRESSED]      = { "compressed",      compressed_json },
    [PS_HEADER_CPU_PMU_CAPS]    = { "cpu_pmu_caps",    cpu_pmu_caps_json },
    [PS_HEADER_CLOCK_DATA]      = { "clock_data",      clock_data_json },
    [PS_HEADER_HYBRID_TOPOLOGY] = { "hybrid_topology", hybrid_topology_json },
    [PS_HEADER_PMU_CAPS]        = { "pmu_caps",        pmu_caps_json },
    [PS_HEADER_CPU_DOMAIN_INFO] = { "cpu_domain_info", cpu_domain_info_json },
};

/* perf's names of the set bits of a 256-bit feature map; bits nobody
 * names are "UNKNOWN_<n>". */
static json_t *feature_names(jb *b, const uint64_t bits[4])
{
    json_t *arr = json_array();
    unsigned feat;

    for (feat = 0; feat < PS_HEADER_FEAT_BITS; feat++) {
        const char *name = ps_feature_name(feat);

        if ((bits[feat / 64] >> (feat % 64)) & 1)
            push(b, arr, name ? json_string(name) : json_sprintf("UNKNOWN_%u", feat));
    }
    return arr;
}

/* ------------------------------------------------------------------------ */
/* Public builders                                                          */

/* File-mode feature sections, by perf's feature name. */
static json_t *feature_sections(jb *b)
{
    json_t *o = json_object();
    unsigned feat;

    for (feat = 0; feat < PS_HEADER_FEAT_BITS; feat++) {
        const ps_file_section *sec = &b->f->sections[feat];
        char unknown[32];
        const char *name = ps_feature_name(feat);

        if (sec->offset == 0 && sec->size == 0)
            continue;
        if (name == NULL) {
            snprintf(unknown, sizeof(unknown), "UNKNOWN_%u", feat);
            name = unknown;
        }
        put(b, o, name, section(b, sec));
    }
    return o;
}

static int host_is_big_endian(void)
{
    const uint16_t one = 1;
    uint8_t first;

    memcpy(&first, &one, 1);
    return first == 0;
}

json_t *info_json_header(ps_session *s)
{
    static const char *const containers[] = { "file", "pipe", "directory", "ring" };
    json_t *o = json_object();
    const ps_header *h;
    jb b;

    jb_init(&b, s);
    h = b.h;
    put(&b, o, "container", json_string(containers[h->container & 3]));
    put(&b, o, "byte_order", json_string(host_is_big_endian() != !!h->swapped ? "big"
                                                                            : "little"));
    put(&b, o, "swapped", json_boolean(h->swapped));
    put(&b, o, "legacy_magic", json_boolean(h->legacy_magic));
    put(&b, o, "ring_snapshot", json_boolean(h->ring_snapshot));
    put(&b, o, "header_size", u64(h->size));
    put(&b, o, "attr_size", u64(h->attr_size));
    put(&b, o, "attrs", section(&b, &h->attrs));
    put(&b, o, "data", section(&b, &h->data));
    put(&b, o, "event_types", section(&b, &h->event_types));
    put(&b, o, "feat_offset", u64(h->feat_offset));
    put(&b, o, "data_size_zero", json_boolean(h->data_size_zero));
    put(&b, o, "file_size", u64(h->file_size));
    put(&b, o, "mtime", json_integer(h->mtime));
    put(&b, o, "nr_dir_files", json_integer(h->nr_dir_files));
    put(&b, o, "features", feature_names(&b, h->features));
    put(&b, o, "feature_sections", feature_sections(&b));
    return jb_done(&b, o);
}

json_t *info_json_features(ps_session *s)
{
    json_t *o = json_object();
    unsigned feat;
    jb b;

    jb_init(&b, s);
    put(&b, o, "present", feature_names(&b, b.f->present));
    put(&b, o, "failed", feature_names(&b, b.f->failed));
    for (feat = 0; feat < PS_HEADER_FEAT_KNOWN; feat++)
        if (feat_json[feat].build && ps_features_has(b.f, feat))
            put(&b, o, feat_json[feat].key, feat_json[feat].build(&b));
    return jb_done(&b, o);
}

static json_t *evsel_json(jb *b, const ps_evsel *e)
{
    json_t *o = json_object();

    put(b, o, "idx", json_integer(e->idx));
    put(b, o, "name", text(e->name));
    put(b, o, "attr_name", text(e->attr_name));
    put(b, o, "unit", text(e->unit));
    put(b, o, "scale", e->scale != 0 && isfinite(e->scale) ? json_real(e->scale)
                                                           : json_null());
    put(b, o, "ids", id_list(b, e->ids, e->nr_ids));
    put_attr(b, o, &e->attr);
    return o;
}

json_t *info_json_events(ps_session *s)
{
    json_t *arr = json_array();
    size_t i;
    jb b;

    jb_init(&b, s);
    for (i = 0; i < ps_session_nr_evsels(s); i++)
        push(&b, arr, evsel_json(&b, ps_session_evsel(s, i)));
    return jb_done(&b, arr);
}
