/* SPDX-License-Identifier: MIT */
/*
 * evname.c - the name perf 6.1 gives an event that no EVENT_DESC or
 * EVENT_UPDATE named, derived from its attr (spec 3.2, 3.3, 15.2), and the
 * tracepoint lookup in a tracing-data blob (spec 10.1, 10.2).
 *
 * The rules are perf 6.1's (x86 build), checked with `perf evlist` on
 * hand-made files without EVENT_DESC:
 *  - HARDWARE: "cycles", ... by config bits 0-31, "unknown-hardware" past the
 *    table; a PMU type in config bits 32-63 gives "cpu/<name>/" (perf keeps
 *    no PMU name for events read from a file, and falls back to "cpu");
 *  - SOFTWARE: "cpu-clock" ... "dummy" (ids 0-9), else "unknown-software";
 *  - HW_CACHE: "<cache>-<op>-<result>" or "<cache>-<op>s" for accesses,
 *    "invalid-cache" for an op the cache does not have, "unknown-ext-..."
 *    for ids past the tables; PMU type bits are ignored;
 *  - RAW: "raw 0x<config>"; BREAKPOINT: "mem:0x<addr>:" plus r/w/x;
 *  - the five kinds above get perf's modifier suffix (add_modifiers());
 *  - TRACEPOINT: "system:name" from the tracing data, no modifiers, or
 *    "unknown tracepoint" when no format has that id;
 *  - any other type (dynamic PMUs): "unknown attr type: <type>". perf 6.1
 *    does not consult PMU_MAPPINGS for this.
 *
 * Pure functions over bytes; never allocates. The blob is untrusted: every
 * length is checked against what is left.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include "evname.h"

#define HW_PMU_SHIFT 32
#define BP_R 1u
#define BP_W 2u
#define BP_X 4u

static const char *const hw_names[] = {
    "cycles", "instructions", "cache-references", "cache-misses",
    "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
    "stalled-cycles-backend", "ref-cycles",
};

static const char *const sw_names[] = {
    "cpu-clock", "task-clock", "page-faults", "context-switches",
    "cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
    "emulation-faults", "dummy",
};

/* Cache ids, ops and results with the spelling perf uses in names. */
static const char *const cache_names[] = {
    "L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};
static const char *const cache_op_names[][2] = {   /* {with result, access} */
    { "load", "loads" }, { "store", "stores" }, { "prefetch", "prefetches" },
};
static const char *const cache_result_names[] = { "refs", "misses" };

/* Which ops each cache has (bit n = op n), as perf's validity table. */
static const unsigned cache_ops_valid[] = {
    7, /* L1-dcache: load store prefetch */
    5, /* L1-icache: load prefetch */
    7, /* LLC */
    7, /* dTLB */
    1, /* iTLB: load */
    1, /* branch: load */
    7, /* node */
};

/* Bounded appender: keeps buf NUL-terminated, drops what does not fit. */
typedef struct namebuf { char *p; size_t size, len; } namebuf;

static void nb_add(namebuf *b, const char *fmt, ...) PS_PRINTF(2, 3);
static void nb_add(namebuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->len >= b->size)
        return;
    va_start(ap, fmt);
    n = vsnprintf(b->p + b->len, b->size - b->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n < b->size - b->len ? (size_t)n : b->size - b->len - 1;
}

/* perf's modifier suffix: ':' then k/u/h for the contexts still counted
 * (only when one is excluded), 'p' x precise_ip, then H/G for host/guest
 * when exclude_host is set or exclude_guest differs from what the earlier
 * modifiers make the default. */
static void add_modifiers(namebuf *b, const ps_attr *a)
{
    unsigned precise = (unsigned)(a->flags >> PS_ATTR_PRECISE_IP) & 3;
    int ex_k = ps_attr_flag(a, PS_ATTR_EXCLUDE_KERNEL);
    int ex_u = ps_attr_flag(a, PS_ATTR_EXCLUDE_USER);
    int ex_h = ps_attr_flag(a, PS_ATTR_EXCLUDE_HV);
    int ex_host = ps_attr_flag(a, PS_ATTR_EXCLUDE_HOST);
    int ex_guest = ps_attr_flag(a, PS_ATTR_EXCLUDE_GUEST);
    int guest_default = 0;
    char mods[16];
    size_t n = 0;

    if (ex_k || ex_u || ex_h) {
        if (!ex_k) mods[n++] = 'k';
        if (!ex_u) mods[n++] = 'u';
        if (!ex_h) mods[n++] = 'h';
        guest_default = 1;
    }
    if (precise) {
        while (precise--)
            mods[n++] = 'p';
        guest_default = 1;
    }
    if (ex_host || ex_guest == guest_default) {
        if (!ex_host) mods[n++] = 'H';
        if (!ex_guest) mods[n++] = 'G';
    }
    if (n)
        nb_add(b, ":%.*s", (int)n, mods);
}

static void hw_name(namebuf *b, uint64_t config)
{
    uint64_t event = config & 0xffffffffu;
    const char *name = event < PS_ARRAY_SIZE(hw_names) ? hw_names[event]
                                                       : "unknown-hardware";

    if (config >> HW_PMU_SHIFT)
        nb_add(b, "cpu/%s/", name);
    else
        nb_add(b, "%s", name);
}

static void sw_name(namebuf *b, uint64_t config)
{
    nb_add(b, "%s", config < PS_ARRAY_SIZE(sw_names) ? sw_names[config]
                                                     : "unknown-software");
}

static void cache_name(namebuf *b, uint64_t config)
{
    unsigned type = (unsigned)(config & 0xff);
    unsigned op = (unsigned)((config >> 8) & 0xff);
    unsigned result = (unsigned)((config >> 16) & 0xff);

    if (type >= PS_ARRAY_SIZE(cache_names))
        nb_add(b, "unknown-ext-hardware-cache-type");
    else if (op >= PS_ARRAY_SIZE(cache_op_names))
        nb_add(b, "unknown-ext-hardware-cache-op");
    else if (result >= PS_ARRAY_SIZE(cache_result_names))
        nb_add(b, "unknown-ext-hardware-cache-result");
    else if (!(cache_ops_valid[type] & (1u << op)))
        nb_add(b, "invalid-cache");
    else if (result)
        nb_add(b, "%s-%s-%s", cache_names[type], cache_op_names[op][0],
               cache_result_names[result]);
    else
        nb_add(b, "%s-%s", cache_names[type], cache_op_names[op][1]);
}

static void bp_name(namebuf *b, const ps_attr *a)
{
    nb_add(b, "mem:0x%" PRIx64 ":%s%s%s", a->config1,
           (a->bp_type & BP_R) ? "r" : "", (a->bp_type & BP_W) ? "w" : "",
           (a->bp_type & BP_X) ? "x" : "");
}

void ps_evname__derive(char *buf, size_t size, const ps_attr *attr,
                       const ps_features *f)
{
    namebuf b = { buf, size, 0 };

    if (size == 0)
        return;
    buf[0] = 0;
    switch (attr->type) {
    case PERF_TYPE_HARDWARE: hw_name(&b, attr->config); break;
    case PERF_TYPE_SOFTWARE: sw_name(&b, attr->config); break;
    case PERF_TYPE_HW_CACHE: cache_name(&b, attr->config); break;
    case PERF_TYPE_RAW: nb_add(&b, "raw 0x%" PRIx64, attr->config); break;
    case PERF_TYPE_BREAKPOINT: bp_name(&b, attr); break;
    case PERF_TYPE_TRACEPOINT:
        if (f == NULL || f->tracing_data.data == NULL ||
            ps_evname__tracepoint(buf, size, f->tracing_data.data,
                                  (size_t)f->tracing_data.size, attr->config) < 0)
            nb_add(&b, "unknown tracepoint");
        return;
    default:
        nb_add(&b, "unknown attr type: %d", (int)attr->type);
        return;
    }
    add_modifiers(&b, attr);
}

/* ------------------------------------------------------------------------ */
/* Tracing-data blob (spec 10.1): walk to the event formats.                */

typedef struct blob {
    const uint8_t *p;
    size_t pos, end;
    int big;    /* the blob's own endianness byte */
} blob;

static int blob_skip(blob *t, size_t n)
{
    if (t->end - t->pos < n)
        return -1;
    t->pos += n;
    return 0;
}

static int blob_num(blob *t, unsigned width, uint64_t *v)
{
    unsigned i;

    if (t->end - t->pos < width)
        return -1;
    *v = 0;
    for (i = 0; i < width; i++) {
        unsigned sh = t->big ? 8 * (width - 1 - i) : 8 * i;

        *v |= (uint64_t)t->p[t->pos + i] << sh;
    }
    t->pos += width;
    return 0;
}

/* A NUL-terminated string inside the blob; *s points into it. */
static int blob_cstr(blob *t, const char **s, size_t *len)
{
    const uint8_t *nul = memchr(t->p + t->pos, 0, t->end - t->pos);

    if (nul == NULL)
        return -1;
    *s = (const char *)(t->p + t->pos);
    *len = (size_t)(nul - (t->p + t->pos));
    t->pos += *len + 1;
    return 0;
}

/* The value of a "<key>: value" line of a format text (key at a line
 * start); *val points at the value, *len is its length. */
static int format_field(const char *text, size_t n, const char *key,
                        const char **val, size_t *len)
{
    size_t klen = strlen(key), i = 0;

    while (i < n) {
        size_t eol = i;

        while (eol < n && text[eol] != '\n')
            eol++;
        if (eol - i > klen && memcmp(text + i, key, klen) == 0 &&
            text[i + klen] == ':') {
            size_t v = i + klen + 1;

            while (v < eol && (text[v] == ' ' || text[v] == '\t'))
                v++;
            *val = text + v;
            *len = eol - v;
            return 0;
        }
        i = eol + 1;
    }
    return -1;
}

/* If format text (n bytes) has ID id, write "system:name" and return 0. */
static int match_format(char *buf, size_t size, const char *sys, size_t sys_len,
                        const char *text, size_t n, uint64_t id)
{
    const char *v, *name;
    size_t len, name_len = 0, i;
    uint64_t fid = 0;

    if (format_field(text, n, "ID", &v, &len) < 0 || len == 0 ||
        !isdigit((unsigned char)v[0]))
        return -1;
    for (i = 0; i < len && isdigit((unsigned char)v[i]); i++)
        fid = fid * 10 + (uint64_t)(v[i] - '0');
    if (fid != id || format_field(text, n, "name", &name, &len) < 0)
        return -1;
    while (name_len < len && (isalnum((unsigned char)name[name_len]) ||
                              name[name_len] == '_'))
        name_len++;
    snprintf(buf, size, "%.*s:%.*s", (int)sys_len, sys, (int)name_len, name);
    return 0;
}

/* nr formats, each num8 size + text, all of system sys. */
static int scan_formats(blob *t, char *buf, size_t size, const char *sys,
                        size_t sys_len, uint64_t nr, uint64_t id)
{
    uint64_t i, len;

    for (i = 0; i < nr; i++) {
        const char *text;

        if (blob_num(t, 8, &len) < 0 || len > t->end - t->pos)
            return -1;
        text = (const char *)(t->p + t->pos);
        if (match_format(buf, size, sys, sys_len, text, (size_t)len, id) == 0)
            return 1;
        t->pos += (size_t)len;
    }
    return 0;
}

/* Skip magic, version, endianness, long size, page size, header_page and
 * header_event (spec 10.1 rows 1-10). */
static int blob_skip_headers(blob *t)
{
    static const char magic[] = "\027\010\104tracing";
    const char *s;
    size_t len;
    uint64_t v;

    if (t->end < 10 || memcmp(t->p, magic, 10) != 0)
        return -1;
    t->pos = 10;
    if (blob_cstr(t, &s, &len) < 0 || t->end - t->pos < 2)
        return -1;
    t->big = t->p[t->pos] != 0;
    t->pos += 2;                                /* endianness, long size */
    if (blob_skip(t, 4) < 0)                    /* page size */
        return -1;
    if (blob_cstr(t, &s, &len) < 0 || strcmp(s, "header_page") != 0 ||
        blob_num(t, 8, &v) < 0 || v > t->end - t->pos || blob_skip(t, (size_t)v) < 0)
        return -1;
    if (blob_cstr(t, &s, &len) < 0 || strcmp(s, "header_event") != 0 ||
        blob_num(t, 8, &v) < 0 || v > t->end - t->pos || blob_skip(t, (size_t)v) < 0)
        return -1;
    return 0;
}

int ps_evname__tracepoint(char *buf, size_t size, const uint8_t *blob_p,
                          size_t blob_size, uint64_t config)
{
    blob t = { blob_p, 0, blob_size, 0 };
    uint64_t nr, nr_sys, i;
    int rc;

    if (size == 0 || blob_p == NULL || blob_skip_headers(&t) < 0)
        return -1;
    /* ftrace's own formats belong to the system "ftrace" */
    if (blob_num(&t, 4, &nr) < 0 ||
        (rc = scan_formats(&t, buf, size, "ftrace", 6, nr, config)) < 0)
        return -1;
    if (rc > 0)
        return 0;
    if (blob_num(&t, 4, &nr_sys) < 0)
        return -1;
    for (i = 0; i < nr_sys; i++) {
        const char *sys;
        size_t sys_len;

        if (blob_cstr(&t, &sys, &sys_len) < 0 || blob_num(&t, 4, &nr) < 0 ||
            (rc = scan_formats(&t, buf, size, sys, sys_len, nr, config)) < 0)
            return -1;
        if (rc > 0)
            return 0;
    }
    return -1;
}
