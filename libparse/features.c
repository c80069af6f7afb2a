/* SPDX-License-Identifier: MIT */
/*
 * features.c - every HEADER_* feature payload (bits 1..32) decoded into
 * ps_features, and perf's feature names (shared/spec/perf-data-format.md
 * sections 6.2 - 6.4, byte order 4.4).
 *
 * One table, indexed by HEADER_* id, holds each feature's perf name and its
 * decoder. A decoder reads through a bounded cursor over exactly the
 * section's bytes and never past them.
 *
 * Invariants:
 *  - the payload is untrusted: every count is checked against the bytes
 *    left BEFORE anything is allocated, so no allocation exceeds what the
 *    payload could describe (a count of N elements needs at least N times
 *    the element's smallest encoding);
 *  - integers are swapped at their width when the producer had the other
 *    byte order; strings and byte blobs (build ids, tracing data, BPF info)
 *    are copied as they are;
 *  - everything the result points to is copied into the arena, because the
 *    payload may live in a pipe buffer that is reused;
 *  - a decoder fills a local copy and stores it into ps_features only when
 *    the whole payload decoded, so a failed feature leaves its fields as
 *    they were and its `present` bit clear.
 *
 * Never reads files, never prints; session.c calls ps_features__decode()
 * for each file-mode section and each pipe-mode HEADER_FEATURE record, in
 * bit order (CPU_TOPOLOGY and CPU_DOMAIN_INFO use NRCPUS).
 */
#include <inttypes.h>
#include "attr.h"
#include "features.h"

#define BUILD_ID_ENTRY_MIN   36   /* header + pid + build_id[20] + size + pad */
#define BUILD_ID_OLD_MIN     32   /* pre-pid ABI: header + build_id[24] */
#define MISC_BUILD_ID_SIZE   (1u << 15)
#define MISC_CPUMODE_MASK    7u
#define MISC_GUEST_KERNEL    4u
#define MISC_GUEST_USER      5u

/* The decoding state one feature payload needs. */
typedef struct feat_ctx {
    ps_cursor    c;
    ps_arena    *a;
    ps_features *f;
    const char  *name;     /* perf's name of the feature, for messages */
    ps_error    *err;
} feat_ctx;

typedef int (*feat_decode_fn)(feat_ctx *x);

/* ------------------------------------------------------------------------ */
/* Bounded primitives (spec 6.2)                                            */

static int trunc_err(feat_ctx *x, size_t need, const char *what)
{
    return ps_error__set(x->err, PS_ETRUNC, ps_cursor__off(&x->c),
                         "offset 0x%" PRIx64 ": %s feature: %s needs %zu bytes, %zu left",
                         ps_cursor__off(&x->c), x->name, what, need,
                         ps_cursor__left(&x->c));
}

static int nomem_err(feat_ctx *x, const char *what)
{
    return ps_error__set(x->err, PS_ENOMEM, ps_cursor__off(&x->c),
                         "offset 0x%" PRIx64 ": %s feature: out of memory for %s",
                         ps_cursor__off(&x->c), x->name, what);
}

/* On failure the getters still store 0/NULL, so no caller can read an
 * unset value (and the compiler can see that). */
static int get_u16(feat_ctx *x, uint16_t *v, const char *what)
{
    if (ps_cursor__u16(&x->c, v) == 0)
        return PS_OK;
    *v = 0;
    return trunc_err(x, 2, what);
}

static int get_u32(feat_ctx *x, uint32_t *v, const char *what)
{
    if (ps_cursor__u32(&x->c, v) == 0)
        return PS_OK;
    *v = 0;
    return trunc_err(x, 4, what);
}

static int get_u64(feat_ctx *x, uint64_t *v, const char *what)
{
    if (ps_cursor__u64(&x->c, v) == 0)
        return PS_OK;
    *v = 0;
    return trunc_err(x, 8, what);
}

static int get_bytes(feat_ctx *x, const uint8_t **v, size_t n, const char *what)
{
    if (ps_cursor__bytes(&x->c, v, n) == 0)
        return PS_OK;
    *v = NULL;
    return trunc_err(x, n, what);
}

/* A blob of n bytes copied into the arena. */
static int get_blob(feat_ctx *x, const uint8_t **out, size_t n, const char *what)
{
    const uint8_t *p;
    int rc;

    if ((rc = get_bytes(x, &p, n, what)) < 0)
        return rc;
    if ((*out = ps_arena__memdup(x->a, p, n)) == NULL)
        return nomem_err(x, what);
    return PS_OK;
}

/* perf string: u32 len, then len bytes holding the text, its NUL and zero
 * padding. The copy stops at the first NUL (or at len). */
static int get_str(feat_ctx *x, const char **out, const char *what)
{
    const uint8_t *p;
    uint32_t len;
    int rc;

    if ((rc = get_u32(x, &len, what)) < 0 ||
        (rc = get_bytes(x, &p, len, what)) < 0)
        return rc;
    if ((*out = ps_arena__strndup(x->a, p, len)) == NULL)
        return nomem_err(x, what);
    return PS_OK;
}

/* Fail unless nr elements of at least min_size bytes each can fit in what
 * is left. Called before every allocation sized by a count from the file. */
static int check_count(feat_ctx *x, uint64_t nr, size_t min_size, const char *what)
{
    size_t left = ps_cursor__left(&x->c);

    if (min_size && nr > left / min_size)
        return ps_error__set(x->err, PS_ETRUNC, ps_cursor__off(&x->c),
                             "offset 0x%" PRIx64 ": %s feature: %" PRIu64
                             " %s need at least %zu bytes each, %zu left",
                             ps_cursor__off(&x->c), x->name, nr, what,
                             min_size, left);
    return PS_OK;
}

static int alloc_array(feat_ctx *x, void **out, uint64_t nr, size_t size,
                       const char *what)
{
    if (nr > SIZE_MAX || (*out = ps_arena__array(x->a, (size_t)nr, size)) == NULL)
        return nomem_err(x, what);
    return PS_OK;
}

/* string list: u32 nr, then nr perf strings (each at least its u32 len). */
static int get_strlist(feat_ctx *x, ps_strlist *out, const char *what)
{
    ps_strlist l = { 0, NULL };
    void *mem;
    uint32_t i;
    int rc;

    if ((rc = get_u32(x, &l.nr, what)) < 0 ||
        (rc = check_count(x, l.nr, 4, what)) < 0 ||
        (rc = alloc_array(x, &mem, l.nr, sizeof(char *), what)) < 0)
        return rc;
    l.strs = mem;
    for (i = 0; i < l.nr; i++)
        if ((rc = get_str(x, &l.strs[i], what)) < 0)
            return rc;
    *out = l;
    return PS_OK;
}

/* ------------------------------------------------------------------------ */
/* Decoders, in HEADER_* order (spec 6.4)                                   */

/* TRACING_DATA: the blob of spec section 10, kept whole; evname.c and
 * tracepoint.c parse it. */
static int decode_tracing_data(feat_ctx *x)
{
    size_t n = ps_cursor__left(&x->c);
    const uint8_t *data;
    int rc;

    if ((rc = get_blob(x, &data, n, "tracing data")) < 0)
        return rc;
    x->f->tracing_data.size = n;
    x->f->tracing_data.data = data;
    return PS_OK;
}

/* One BUILD_ID entry in either layout. The old ABI (before the pid field)
 * is {header; u8 build_id[24]; path}: no pid, pid implied by misc. */
static int decode_build_id_entry(feat_ctx *x, ps_feat_build_id *e, int old_abi)
{
    size_t fixed = old_abi ? BUILD_ID_OLD_MIN : BUILD_ID_ENTRY_MIN;
    const uint8_t *id, *path, *sz;
    uint32_t type;
    uint16_t size;
    int rc;

    if ((rc = get_u32(x, &type, "entry type")) < 0 ||
        (rc = get_u16(x, &e->misc, "entry misc")) < 0 ||
        (rc = get_u16(x, &size, "entry size")) < 0)
        return rc;
    if (size < fixed)
        return ps_error__set(x->err, PS_ECORRUPT, ps_cursor__off(&x->c) - 8,
                             "offset 0x%" PRIx64 ": %s feature: entry size %u is below %zu",
                             ps_cursor__off(&x->c) - 8, x->name, size, fixed);
    if (old_abi) {
        uint16_t mode = e->misc & MISC_CPUMODE_MASK;

        e->pid = (mode == MISC_GUEST_KERNEL || mode == MISC_GUEST_USER) ? 0 : -1;
    } else if ((rc = get_u32(x, (uint32_t *)&e->pid, "pid")) < 0) {
        return rc;
    }
    if ((rc = get_bytes(x, &id, 20, "build id")) < 0 ||
        (rc = get_bytes(x, &sz, 4, "build id size")) < 0 ||
        (rc = get_bytes(x, &path, size - fixed, "path")) < 0)
        return rc;
    memcpy(e->build_id, id, 20);
    e->size = 20;
    if (!old_abi && (e->misc & MISC_BUILD_ID_SIZE) && sz[0] <= 20)
        e->size = sz[0];
    if ((e->filename = ps_arena__strndup(x->a, path, size - fixed)) == NULL)
        return nomem_err(x, "path");
    return PS_OK;
}

/* Walk the entries once without decoding, to count them. */
static int count_build_ids(feat_ctx *x, size_t fixed, uint32_t *nr)
{
    ps_cursor c = x->c;
    uint16_t size;

    *nr = 0;
    while (ps_cursor__left(&c) > 0) {
        if (ps_cursor__left(&c) < 8)
            break;      /* decode_build_id_entry reports it */
        size = ps_load16(c.p + c.pos + 6, c.swap);
        if (size < fixed || size > ps_cursor__left(&c))
            break;
        c.pos += size;
        (*nr)++;
    }
    if (ps_cursor__left(&c) > 0)
        (*nr)++;        /* the bad entry, so decoding reaches and reports it */
    return PS_OK;
}

/* perf detects the old ABI when a path read with the new layout starts
 * with "nel.kallsyms]": the 4-byte pid swallowed "[ker". */
static int build_ids_old_abi(const feat_ctx *x)
{
    ps_cursor c = x->c;
    uint16_t size;

    while (ps_cursor__left(&c) >= BUILD_ID_ENTRY_MIN) {
        size = ps_load16(c.p + c.pos + 6, c.swap);
        if (size < BUILD_ID_ENTRY_MIN || size > ps_cursor__left(&c))
            return 0;
        if (size - BUILD_ID_ENTRY_MIN >= 13 &&
            memcmp(c.p + c.pos + BUILD_ID_ENTRY_MIN, "nel.kallsyms]", 13) == 0)
            return 1;
        c.pos += size;
    }
    return 0;
}

static int decode_build_id(feat_ctx *x)
{
    int old_abi = build_ids_old_abi(x);
    size_t fixed = old_abi ? BUILD_ID_OLD_MIN : BUILD_ID_ENTRY_MIN;
    ps_feat_build_id *e;
    void *mem;
    uint32_t nr, i;
    int rc;

    if ((rc = count_build_ids(x, fixed, &nr)) < 0 ||
        (rc = alloc_array(x, &mem, nr, sizeof(*e), "build ids")) < 0)
        return rc;
    e = mem;
    for (i = 0; i < nr; i++)
        if ((rc = decode_build_id_entry(x, &e[i], old_abi)) < 0)
            return rc;
    x->f->build_ids.nr = nr;
    x->f->build_ids.entries = e;
    return PS_OK;
}

static int decode_hostname(feat_ctx *x) { return get_str(x, &x->f->hostname, "hostname"); }
static int decode_osrelease(feat_ctx *x) { return get_str(x, &x->f->osrelease, "os release"); }
static int decode_version(feat_ctx *x) { return get_str(x, &x->f->version, "version"); }
static int decode_arch(feat_ctx *x) { return get_str(x, &x->f->arch, "arch"); }
static int decode_cpudesc(feat_ctx *x) { return get_str(x, &x->f->cpudesc, "cpu description"); }
static int decode_cpuid(feat_ctx *x) { return get_str(x, &x->f->cpuid, "cpuid"); }

/* NRCPUS: avail first, then online (the old format document has it wrong). */
static int decode_nrcpus(feat_ctx *x)
{
    uint32_t avail, online;
    int rc;

    if ((rc = get_u32(x, &avail, "nr_cpus_avail")) < 0 ||
        (rc = get_u32(x, &online, "nr_cpus_online")) < 0)
        return rc;
    x->f->nr_cpus_avail = avail;
    x->f->nr_cpus_online = online;
    return PS_OK;
}

static int decode_total_mem(feat_ctx *x)
{
    return get_u64(x, &x->f->total_mem, "total memory");
}

static int decode_cmdline(feat_ctx *x)
{
    return get_strlist(x, &x->f->cmdline, "arguments");
}

/* The attr of an EVENT_DESC entry, attr_size bytes as the writer stored it.
 * Like perf, copy what is there into a zeroed struct, so an attr whose own
 * size field disagrees with attr_size still decodes (missing fields 0). */
static int decode_desc_attr(feat_ctx *x, ps_attr *out, const uint8_t *p,
                            uint32_t attr_size)
{
    uint8_t tmp[PS_ATTR_SIZE_KNOWN] = { 0 };
    uint32_t stored, clamp;
    size_t n = attr_size < sizeof(tmp) ? attr_size : sizeof(tmp);
    int rc;

    memcpy(tmp, p, n);
    stored = n >= 8 ? ps_load32(tmp + 4, x->c.swap) : 0;
    clamp = stored == 0 || stored > sizeof(tmp) ? (uint32_t)sizeof(tmp) : stored;
    if (clamp < PS_ATTR_SIZE_VER0)
        clamp = PS_ATTR_SIZE_VER0;
    clamp = x->c.swap ? ps_bswap32(clamp) : clamp;
    memcpy(tmp + 4, &clamp, 4);
    rc = ps_attr__decode(out, tmp, sizeof(tmp), x->c.swap,
                         ps_cursor__off(&x->c), x->err);
    out->size = stored;
    return rc;
}

static int decode_event_desc(feat_ctx *x)
{
    ps_feat_event_desc *ev;
    uint32_t nr, attr_size, i, j;
    void *mem;
    int rc;

    if ((rc = get_u32(x, &nr, "number of events")) < 0 ||
        (rc = get_u32(x, &attr_size, "attr size")) < 0)
        return rc;
    /* per event: the attr, u32 nr_ids and at least a string's u32 len */
    if ((rc = check_count(x, nr, (size_t)attr_size + 8, "events")) < 0 ||
        (rc = alloc_array(x, &mem, nr, sizeof(*ev), "events")) < 0)
        return rc;
    ev = mem;
    for (i = 0; i < nr; i++) {
        const uint8_t *p;
        uint64_t *ids;

        if ((rc = get_bytes(x, &p, attr_size, "perf_event_attr")) < 0 ||
            (rc = decode_desc_attr(x, &ev[i].attr, p, attr_size)) < 0 ||
            (rc = get_u32(x, &ev[i].nr_ids, "nr_ids")) < 0 ||
            (rc = get_str(x, &ev[i].name, "event name")) < 0 ||
            (rc = check_count(x, ev[i].nr_ids, 8, "ids")) < 0 ||
            (rc = alloc_array(x, &mem, ev[i].nr_ids, 8, "ids")) < 0)
            return rc;
        ids = mem;
        for (j = 0; j < ev[i].nr_ids; j++)
            if ((rc = get_u64(x, &ids[j], "id")) < 0)
                return rc;
        ev[i].ids = ids;
    }
    x->f->event_desc.nr = nr;
    x->f->event_desc.attr_size = attr_size;
    x->f->event_desc.events = ev;
    return PS_OK;
}

/* perf's idea of how many bytes a perf string takes: it assumes the
 * writer's 64-byte padding instead of using the stored length. */
static uint64_t perf_string_size(const char *s)
{
    return (strlen(s) + 1 + 63) / 64 * 64 + 4;
}

static uint64_t perf_strlist_size(const ps_strlist *l)
{
    uint64_t size = 4;
    uint32_t i;

    for (i = 0; i < l->nr; i++)
        size += perf_string_size(l->strs[i]);
    return size;
}

/* CPU_TOPOLOGY: two string lists, then (newer writers) per-CPU core and
 * socket ids, then (newer still) die lists and per-CPU die ids. Like perf,
 * an optional part is there when the section is larger than what perf
 * computes the earlier parts take (strings counted with 64-byte padding):
 * a writer with shorter padding gets its ids ignored, as perf does. `cpus`
 * is non-NULL exactly when the core/socket part is there, even for 0 CPUs. */
static int decode_cpu_topology(feat_ctx *x)
{
    uint32_t nr_cpus = x->f->nr_cpus_avail, i;
    ps_strlist pkg, core, die = { 0, NULL };
    uint64_t total = x->c.end, perf_size;
    ps_feat_cpu *cpus = NULL;
    int has_die = 0;
    void *mem;
    int rc;

    if ((rc = get_strlist(x, &pkg, "sibling sockets")) < 0 ||
        (rc = get_strlist(x, &core, "sibling threads")) < 0)
        return rc;
    perf_size = perf_strlist_size(&pkg) + perf_strlist_size(&core);
    if (total > perf_size) {
        if ((rc = check_count(x, nr_cpus, 8, "cpu core/socket ids")) < 0 ||
            (rc = alloc_array(x, &mem, nr_cpus, sizeof(*cpus), "cpus")) < 0)
            return rc;
        cpus = mem;
        for (i = 0; i < nr_cpus; i++)
            if ((rc = get_u32(x, &cpus[i].core_id, "core id")) < 0 ||
                (rc = get_u32(x, &cpus[i].socket_id, "socket id")) < 0)
                return rc;
        perf_size += 8 * (uint64_t)nr_cpus;
    }
    if (cpus && total > perf_size) {
        if ((rc = get_strlist(x, &die, "sibling dies")) < 0 ||
            (rc = check_count(x, nr_cpus, 4, "die ids")) < 0)
            return rc;
        for (i = 0; i < nr_cpus; i++)
            if ((rc = get_u32(x, &cpus[i].die_id, "die id")) < 0)
                return rc;
        has_die = 1;
    }
    x->f->cpu_topology.package_cpus = pkg;
    x->f->cpu_topology.core_cpus = core;
    x->f->cpu_topology.die_cpus = die;
    x->f->cpu_topology.nr_cpus = cpus ? nr_cpus : 0;
    x->f->cpu_topology.has_die_ids = has_die;
    x->f->cpu_topology.cpus = cpus;
    return PS_OK;
}

static int decode_numa_topology(feat_ctx *x)
{
    ps_feat_numa_node *nodes;
    uint32_t nr, i;
    void *mem;
    int rc;

    if ((rc = get_u32(x, &nr, "number of nodes")) < 0 ||
        (rc = check_count(x, nr, 24, "nodes")) < 0 ||
        (rc = alloc_array(x, &mem, nr, sizeof(*nodes), "nodes")) < 0)
        return rc;
    nodes = mem;
    for (i = 0; i < nr; i++)
        if ((rc = get_u32(x, &nodes[i].node, "node")) < 0 ||
            (rc = get_u64(x, &nodes[i].mem_total, "mem_total")) < 0 ||
            (rc = get_u64(x, &nodes[i].mem_free, "mem_free")) < 0 ||
            (rc = get_str(x, &nodes[i].cpus, "cpu list")) < 0)
            return rc;
    x->f->numa.nr = nr;
    x->f->numa.nodes = nodes;
    return PS_OK;
}

/* BRANCH_STACK and STAT are flags: their payload is empty (or ignored). */
static int decode_flag(feat_ctx *x)
{
    (void)x;
    return PS_OK;
}

static int decode_pmu_mappings(feat_ctx *x)
{
    ps_feat_pmu *pmus;
    uint32_t nr, i;
    void *mem;
    int rc;

    if ((rc = get_u32(x, &nr, "number of pmus")) < 0 ||
        (rc = check_count(x, nr, 8, "pmus")) < 0 ||
        (rc = alloc_array(x, &mem, nr, sizeof(*pmus), "pmus")) < 0)
        return rc;
    pmus = mem;
    for (i = 0; i < nr; i++)
        if ((rc = get_u32(x, &pmus[i].type, "pmu type")) < 0 ||
            (rc = get_str(x, &pmus[i].name, "pmu name")) < 0)
            return rc;
    x->f->pmu_mappings.nr = nr;
    x->f->pmu_mappings.pmus = pmus;
    return PS_OK;
}

static int decode_group_desc(feat_ctx *x)
{
    ps_feat_group *groups;
    uint32_t nr, i;
    void *mem;
    int rc;

    if ((rc = get_u32(x, &nr, "number of groups")) < 0 ||
        (rc = check_count(x, nr, 12, "groups")) < 0 ||
        (rc = alloc_array(x, &mem, nr, sizeof(*groups), "groups")) < 0)
        return rc;
    groups = mem;
    for (i = 0; i < nr; i++)
        if ((rc = get_str(x, &groups[i].name, "group name")) < 0 ||
            (rc = get_u32(x, &groups[i].leader_idx, "leader index")) < 0 ||
            (rc = get_u32(x, &groups[i].nr_members, "nr_members")) < 0)
            return rc;
    x->f->group_desc.nr = nr;
    x->f->group_desc.groups = groups;
    return PS_OK;
}

static int decode_auxtrace(feat_ctx *x)
{
    ps_feat_auxtrace_entry *e;
    uint64_t nr, i;
    void *mem;
    int rc;

    if ((rc = get_u64(x, &nr, "number of entries")) < 0 ||
        (rc = check_count(x, nr, 16, "index entries")) < 0 ||
        (rc = alloc_array(x, &mem, nr, sizeof(*e), "index entries")) < 0)
        return rc;
    e = mem;
    for (i = 0; i < nr; i++)
        if ((rc = get_u64(x, &e[i].offset, "file offset")) < 0 ||
            (rc = get_u64(x, &e[i].size, "size")) < 0)
            return rc;
    x->f->auxtrace.nr = nr;
    x->f->auxtrace.entries = e;
    return PS_OK;
}

static int unsupported_version(feat_ctx *x, uint64_t version)
{
    return ps_error__set(x->err, PS_EUNSUPPORTED, ps_cursor__off(&x->c),
                         "offset 0x%" PRIx64 ": %s feature: version %" PRIu64
                         " (only 1 is known)", ps_cursor__off(&x->c), x->name, version);
}

static int decode_cache(feat_ctx *x)
{
    ps_feat_cache *caches;
    uint32_t version, nr, i;
    void *mem;
    int rc;

    if ((rc = get_u32(x, &version, "version")) < 0)
        return rc;
    if (version != 1)
        return unsupported_version(x, version);
    if ((rc = get_u32(x, &nr, "number of caches")) < 0 ||
        (rc = check_count(x, nr, 28, "caches")) < 0 ||
        (rc = alloc_array(x, &mem, nr, sizeof(*caches), "caches")) < 0)
        return rc;
    caches = mem;
    for (i = 0; i < nr; i++) {
        ps_feat_cache *c = &caches[i];

        if ((rc = get_u32(x, &c->level, "level")) < 0 ||
            (rc = get_u32(x, &c->line_size, "line size")) < 0 ||
            (rc = get_u32(x, &c->sets, "sets")) < 0 ||
            (rc = get_u32(x, &c->ways, "ways")) < 0 ||
            (rc = get_str(x, &c->type, "type")) < 0 ||
            (rc = get_str(x, &c->size, "size")) < 0 ||
            (rc = get_str(x, &c->map, "shared cpu list")) < 0)
            return rc;
    }
    x->f->cache.version = version;
    x->f->cache.nr = nr;
    x->f->cache.caches = caches;
    return PS_OK;
}

static int decode_sample_time(feat_ctx *x)
{
    uint64_t first, last;
    int rc;

    if ((rc = get_u64(x, &first, "first sample time")) < 0 ||
        (rc = get_u64(x, &last, "last sample time")) < 0)
        return rc;
    x->f->sample_time.first = first;
    x->f->sample_time.last = last;
    return PS_OK;
}

/* One node: u64 node, u64 size, then a bitmap (u64 nbits + words); the
 * bitmap's own nbits is the one that counts (perf overwrites size). */
static int decode_mem_node(feat_ctx *x, ps_feat_mem_node *n)
{
    uint64_t size, nwords, i;
    uint64_t *bits;
    void *mem;
    int rc;

    if ((rc = get_u64(x, &n->node, "node")) < 0 ||
        (rc = get_u64(x, &size, "size")) < 0 ||
        (rc = get_u64(x, &n->nbits, "bitmap size")) < 0)
        return rc;
    nwords = n->nbits / 64 + (n->nbits % 64 != 0);
    if ((rc = check_count(x, nwords, 8, "bitmap words")) < 0 ||
        (rc = alloc_array(x, &mem, nwords, 8, "bitmap")) < 0)
        return rc;
    bits = mem;
    for (i = 0; i < nwords; i++)
        if ((rc = get_u64(x, &bits[i], "bitmap word")) < 0)
            return rc;
    n->bits = bits;
    return PS_OK;
}

static int decode_mem_topology(feat_ctx *x)
{
    uint64_t version, bsize, nr, i;
    ps_feat_mem_node *nodes;
    void *mem;
    int rc;

    if ((rc = get_u64(x, &version, "version")) < 0)
        return rc;
    if (version != 1)
        return unsupported_version(x, version);
    if ((rc = get_u64(x, &bsize, "block size")) < 0 ||
        (rc = get_u64(x, &nr, "number of nodes")) < 0 ||
        (rc = check_count(x, nr, 24, "nodes")) < 0 ||
        (rc = alloc_array(x, &mem, nr, sizeof(*nodes), "nodes")) < 0)
        return rc;
    nodes = mem;
    for (i = 0; i < nr; i++)
        if ((rc = decode_mem_node(x, &nodes[i])) < 0)
            return rc;
    x->f->mem_topology.version = version;
    x->f->mem_topology.block_size = bsize;
    x->f->mem_topology.nr_nodes = nr;
    x->f->mem_topology.nodes = nodes;
    return PS_OK;
}

static int decode_clockid(feat_ctx *x)
{
    return get_u64(x, &x->f->clockid_res_ns, "clock resolution");
}

static int decode_dir_format(feat_ctx *x)
{
    return get_u64(x, &x->f->dir_format, "directory format version");
}

/* BPF_PROG_INFO: the framing integers are swapped; the kernel's
 * bpf_prog_info bytes and the array data stay in the producer's order. */
static int decode_bpf_prog_info(feat_ctx *x)
{
    ps_feat_bpf_prog *progs;
    uint32_t count, i;
    void *mem;
    int rc;

    if ((rc = get_u32(x, &count, "count")) < 0 ||
        (rc = check_count(x, count, 16, "programs")) < 0 ||
        (rc = alloc_array(x, &mem, count, sizeof(*progs), "programs")) < 0)
        return rc;
    progs = mem;
    for (i = 0; i < count; i++) {
        ps_feat_bpf_prog *p = &progs[i];

        if ((rc = get_u32(x, &p->info_len, "info_len")) < 0 ||
            (rc = get_u32(x, &p->data_len, "data_len")) < 0 ||
            (rc = get_u64(x, &p->arrays, "arrays")) < 0 ||
            (rc = get_blob(x, &p->info, p->info_len, "bpf_prog_info")) < 0 ||
            (rc = get_blob(x, &p->data, p->data_len, "bpf_prog_info data")) < 0)
            return rc;
    }
    x->f->bpf_prog_info.count = count;
    x->f->bpf_prog_info.progs = progs;
    return PS_OK;
}

static int decode_bpf_btf(feat_ctx *x)
{
    ps_feat_btf *btfs;
    uint32_t count, i;
    void *mem;
    int rc;

    if ((rc = get_u32(x, &count, "count")) < 0 ||
        (rc = check_count(x, count, 8, "btf blobs")) < 0 ||
        (rc = alloc_array(x, &mem, count, sizeof(*btfs), "btf blobs")) < 0)
        return rc;
    btfs = mem;
    for (i = 0; i < count; i++)
        if ((rc = get_u32(x, &btfs[i].id, "btf id")) < 0 ||
            (rc = get_u32(x, &btfs[i].size, "btf size")) < 0 ||
            (rc = get_blob(x, &btfs[i].data, btfs[i].size, "btf data")) < 0)
            return rc;
    x->f->bpf_btf.count = count;
    x->f->bpf_btf.btfs = btfs;
    return PS_OK;
}

static int decode_compressed(feat_ctx *x)
{
    uint32_t v[5];
    int rc, i;

    for (i = 0; i < 5; i++)
        if ((rc = get_u32(x, &v[i], "compression parameter")) < 0)
            return rc;
    x->f->compressed.version = v[0];
    x->f->compressed.type = v[1];
    x->f->compressed.level = v[2];
    x->f->compressed.ratio = v[3];
    x->f->compressed.mmap_len = v[4];
    return PS_OK;
}

/* u32 nr, then nr x {perf string name; perf string value}. */
static int get_caps(feat_ctx *x, uint32_t *nr_out, const ps_feat_cap **out)
{
    ps_feat_cap *caps;
    uint32_t nr, i;
    void *mem;
    int rc;

    if ((rc = get_u32(x, &nr, "number of capabilities")) < 0 ||
        (rc = check_count(x, nr, 8, "capabilities")) < 0 ||
        (rc = alloc_array(x, &mem, nr, sizeof(*caps), "capabilities")) < 0)
        return rc;
    caps = mem;
    for (i = 0; i < nr; i++)
        if ((rc = get_str(x, &caps[i].name, "capability name")) < 0 ||
            (rc = get_str(x, &caps[i].value, "capability value")) < 0)
            return rc;
    *nr_out = nr;
    *out = caps;
    return PS_OK;
}

static int decode_cpu_pmu_caps(feat_ctx *x)
{
    const ps_feat_cap *caps;
    uint32_t nr;
    int rc;

    if ((rc = get_caps(x, &nr, &caps)) < 0)
        return rc;
    x->f->cpu_pmu_caps.nr = nr;
    x->f->cpu_pmu_caps.caps = caps;
    return PS_OK;
}

static int decode_clock_data(feat_ctx *x)
{
    uint32_t version, clockid;
    uint64_t tod, clk;
    int rc;

    if ((rc = get_u32(x, &version, "version")) < 0)
        return rc;
    if (version != 1)
        return unsupported_version(x, version);
    if ((rc = get_u32(x, &clockid, "clockid")) < 0 ||
        (rc = get_u64(x, &tod, "tod_ns")) < 0 ||
        (rc = get_u64(x, &clk, "clockid_ns")) < 0)
        return rc;
    x->f->clock_data.version = version;
    x->f->clock_data.clockid = clockid;
    x->f->clock_data.tod_ns = tod;
    x->f->clock_data.clockid_ns = clk;
    return PS_OK;
}

static int decode_hybrid_topology(feat_ctx *x)
{
    ps_feat_hybrid *pmus;
    uint32_t nr, i;
    void *mem;
    int rc;

    if ((rc = get_u32(x, &nr, "number of pmus")) < 0 ||
        (rc = check_count(x, nr, 8, "pmus")) < 0 ||
        (rc = alloc_array(x, &mem, nr, sizeof(*pmus), "pmus")) < 0)
        return rc;
    pmus = mem;
    for (i = 0; i < nr; i++)
        if ((rc = get_str(x, &pmus[i].pmu_name, "pmu name")) < 0 ||
            (rc = get_str(x, &pmus[i].cpus, "cpu list")) < 0)
            return rc;
    x->f->hybrid_topology.nr = nr;
    x->f->hybrid_topology.pmus = pmus;
    return PS_OK;
}

/* PMU_CAPS: per PMU its capabilities first, then its name. */
static int decode_pmu_caps(feat_ctx *x)
{
    ps_feat_pmu_caps *pmus;
    uint32_t nr, i;
    void *mem;
    int rc;

    if ((rc = get_u32(x, &nr, "number of pmus")) < 0 ||
        (rc = check_count(x, nr, 8, "pmus")) < 0 ||
        (rc = alloc_array(x, &mem, nr, sizeof(*pmus), "pmus")) < 0)
        return rc;
    pmus = mem;
    for (i = 0; i < nr; i++)
        if ((rc = get_caps(x, &pmus[i].nr_caps, &pmus[i].caps)) < 0 ||
            (rc = get_str(x, &pmus[i].pmu_name, "pmu name")) < 0)
            return rc;
    x->f->pmu_caps.nr = nr;
    x->f->pmu_caps.pmus = pmus;
    return PS_OK;
}

static int decode_cpu_domains(feat_ctx *x, ps_feat_cpu_domains *cpu,
                              uint32_t version)
{
    ps_feat_domain *d;
    uint32_t j;
    void *mem;
    int rc;

    if ((rc = get_u32(x, &cpu->cpu, "cpu")) < 0 ||
        (rc = get_u32(x, &cpu->nr_domains, "nr_domains")) < 0 ||
        (rc = check_count(x, cpu->nr_domains, version >= 17 ? 16 : 12, "domains")) < 0 ||
        (rc = alloc_array(x, &mem, cpu->nr_domains, sizeof(*d), "domains")) < 0)
        return rc;
    d = mem;
    for (j = 0; j < cpu->nr_domains; j++) {
        if ((rc = get_u32(x, &d[j].domain, "domain")) < 0)
            return rc;
        if (version >= 17 && (rc = get_str(x, &d[j].name, "domain name")) < 0)
            return rc;
        if ((rc = get_str(x, &d[j].cpumask, "cpu mask")) < 0 ||
            (rc = get_str(x, &d[j].cpulist, "cpu list")) < 0)
            return rc;
    }
    cpu->domains = d;
    return PS_OK;
}

/* CPU_DOMAIN_INFO (newest perf): perf reads nr_cpus_online CPU entries;
 * without NRCPUS, read entries until the payload ends. */
static int decode_cpu_domain_info(feat_ctx *x)
{
    int has_nrcpus = ps_features_has(x->f, PS_HEADER_NRCPUS);
    uint32_t version, max_domains, nr, i;
    ps_feat_cpu_domains *cpus;
    void *mem;
    int rc;

    if ((rc = get_u32(x, &version, "schedstat version")) < 0 ||
        (rc = get_u32(x, &max_domains, "max sched domains")) < 0)
        return rc;
    nr = has_nrcpus ? x->f->nr_cpus_online : (uint32_t)(ps_cursor__left(&x->c) / 8);
    if ((rc = check_count(x, nr, 8, "cpus")) < 0 ||
        (rc = alloc_array(x, &mem, nr, sizeof(*cpus), "cpus")) < 0)
        return rc;
    cpus = mem;
    for (i = 0; i < nr; i++) {
        if (!has_nrcpus && ps_cursor__left(&x->c) == 0)
            break;
        if ((rc = decode_cpu_domains(x, &cpus[i], version)) < 0)
            return rc;
    }
    x->f->cpu_domain_info.schedstat_version = version;
    x->f->cpu_domain_info.max_sched_domains = max_domains;
    x->f->cpu_domain_info.nr_cpus = i;
    x->f->cpu_domain_info.cpus = cpus;
    return PS_OK;
}

/* ------------------------------------------------------------------------ */
/* The table                                                                */

static const struct feat_desc {
    const char     *name;       /* perf's name (feat_ops[].name) */
    feat_decode_fn  decode;
} feat_table[PS_HEADER_FEAT_KNOWN] = {
    [PS_HEADER_TRACING_DATA]    = { "TRACING_DATA",    decode_tracing_data },
    [PS_HEADER_BUILD_ID]        = { "BUILD_ID",        decode_build_id },
    [PS_HEADER_HOSTNAME]        = { "HOSTNAME",        decode_hostname },
    [PS_HEADER_OSRELEASE]       = { "OSRELEASE",       decode_osrelease },
    [PS_HEADER_VERSION]         = { "VERSION",         decode_version },
    [PS_HEADER_ARCH]            = { "ARCH",            decode_arch },
    [PS_HEADER_NRCPUS]          = { "NRCPUS",          decode_nrcpus },
    [PS_HEADER_CPUDESC]         = { "CPUDESC",         decode_cpudesc },
    [PS_HEADER_CPUID]           = { "CPUID",           decode_cpuid },
    [PS_HEADER_TOTAL_MEM]       = { "TOTAL_MEM",       decode_total_mem },
    [PS_HEADER_CMDLINE]         = { "CMDLINE",         decode_cmdline },
    [PS_HEADER_EVENT_DESC]      = { "EVENT_DESC",      decode_event_desc },
    [PS_HEADER_CPU_TOPOLOGY]    = { "CPU_TOPOLOGY",    decode_cpu_topology },
    [PS_HEADER_NUMA_TOPOLOGY]   = { "NUMA_TOPOLOGY",   decode_numa_topology },
    [PS_HEADER_BRANCH_STACK]    = { "BRANCH_STACK",    decode_flag },
    [PS_HEADER_PMU_MAPPINGS]    = { "PMU_MAPPINGS",    decode_pmu_mappings },
    [PS_HEADER_GROUP_DESC]      = { "GROUP_DESC",      decode_group_desc },
    [PS_HEADER_AUXTRACE]        = { "AUXTRACE",        decode_auxtrace },
    [PS_HEADER_STAT]            = { "STAT",            decode_flag },
    [PS_HEADER_CACHE]           = { "CACHE",           decode_cache },
    [PS_HEADER_SAMPLE_TIME]     = { "SAMPLE_TIME",     decode_sample_time },
    [PS_HEADER_MEM_TOPOLOGY]    = { "MEM_TOPOLOGY",    decode_mem_topology },
    [PS_HEADER_CLOCKID]         = { "CLOCKID",         decode_clockid },
    [PS_HEADER_DIR_FORMAT]      = { "DIR_FORMAT",      decode_dir_format },
    [PS_HEADER_BPF_PROG_INFO]   = { "BPF_PROG_INFO",   decode_bpf_prog_info },
    [PS_HEADER_BPF_BTF]         = { "BPF_BTF",         decode_bpf_btf },
    [PS_HEADER_COMPRESSED]      = { "COMPRESSED",      decode_compressed },
    [PS_HEADER_CPU_PMU_CAPS]    = { "CPU_PMU_CAPS",    decode_cpu_pmu_caps },
    [PS_HEADER_CLOCK_DATA]      = { "CLOCK_DATA",      decode_clock_data },
    [PS_HEADER_HYBRID_TOPOLOGY] = { "HYBRID_TOPOLOGY", decode_hybrid_topology },
    [PS_HEADER_PMU_CAPS]        = { "PMU_CAPS",        decode_pmu_caps },
    [PS_HEADER_CPU_DOMAIN_INFO] = { "CPU_DOMAIN_INFO", decode_cpu_domain_info },
};

const char *ps_feature_name(unsigned feat)
{
    return feat < PS_ARRAY_SIZE(feat_table) ? feat_table[feat].name : NULL;
}

static void set_bit(uint64_t *bits, unsigned feat, int on)
{
    uint64_t m = UINT64_C(1) << (feat % 64);

    bits[feat / 64] = on ? bits[feat / 64] | m : bits[feat / 64] & ~m;
}

int ps_features__decode(ps_features *f, ps_arena *a, unsigned feat,
                        const uint8_t *p, size_t n, int swap, uint64_t off,
                        ps_error *err)
{
    ps_features tmp;
    feat_ctx x;
    int rc;

    if (feat >= PS_HEADER_FEAT_BITS)
        return ps_error__set(err, PS_EINVAL, off, "offset 0x%" PRIx64
                             ": feature bit %u is out of range", off, feat);
    if (feat >= PS_ARRAY_SIZE(feat_table) || feat_table[feat].decode == NULL)
        return PS_OK;   /* reserved or newer than us: skipped, like perf */
    /* Decode into a copy so a failure leaves f as it was (the decoders
     * store only at their end, but a nested one may store early). */
    tmp = *f;
    ps_cursor__init(&x.c, p, n, swap, off);
    x.a = a;
    x.f = &tmp;
    x.name = feat_table[feat].name;
    x.err = err;
    if ((rc = feat_table[feat].decode(&x)) < 0) {
        set_bit(f->failed, feat, 1);
        return rc;
    }
    *f = tmp;
    set_bit(f->present, feat, 1);
    set_bit(f->failed, feat, 0);
    return PS_OK;
}
