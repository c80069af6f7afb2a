/* SPDX-License-Identifier: MIT */
/*
 * test_header.c - unit tests of header.c through ps_session_open on files
 * built byte by byte (spec 2, 4.1, 4.2, 5.1, 6.1): 104- and 72-byte headers,
 * the legacy PERFFILE magic with its byte order found from attr_size, the
 * attr table stepped by attr_size (padded entries, VER0, size 0, VER8), id
 * arrays and attr tables outside the file, data.size 0 and data sections
 * running past the end (warnings, records read to the end), feature table
 * entries outside the file (warnings, not fatal), unknown feature bits, and
 * the other-endian feature bitmap of a 32-bit producer (u32 words).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include "harness.h"
#include "builder.h"

typedef struct layout {
    int         swap;
    const char *magic;          /* NULL: PERFILE2 in the producer's order */
    uint64_t    hdr_size;       /* 104 or 72 */
    uint32_t    attr_field;     /* attr.size as stored */
    uint32_t    attr_bytes;     /* bytes of attr written */
    uint64_t    attr_size;      /* table stride */
    int         nr_attrs;
    int         nr_ids;         /* per attr */
    uint64_t    features[4];
    int         feat_u32;       /* bitmap as eight u32 words */
    int         nr_samples;
} layout;

typedef struct built {
    buf      f;
    size_t   attrs_off, ids_off, data_off, data_size, feat_off;
    size_t   entry_ids_field[4];    /* where each entry's ids section is */
    size_t   feat_entry[256];       /* where each feature's table entry is */
} built;

static layout default_layout(int swap)
{
    layout l;

    memset(&l, 0, sizeof(l));
    l.swap = swap;
    l.hdr_size = 104;
    l.attr_field = 128;
    l.attr_bytes = 128;
    l.attr_size = 144;
    l.nr_attrs = 2;
    l.nr_ids = 2;
    l.nr_samples = 3;
    return l;
}

static void patch64(buf *b, size_t off, uint64_t v)
{
    if (b->swap) v = __builtin_bswap64(v);
    memcpy(b->p + off, &v, 8);
}

static void patch32(buf *b, size_t off, uint32_t v)
{
    if (b->swap) v = __builtin_bswap32(v);
    memcpy(b->p + off, &v, 4);
}

static ps_attr attr_n(int i)
{
    ps_attr a;

    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_SOFTWARE;
    a.config = (uint64_t)i;
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ID;
    a.sample_period = 1000 + (uint64_t)i;
    a.flags = PS_ATTR_FLAG(PS_ATTR_SAMPLE_ID_ALL) | PS_ATTR_FLAG(PS_ATTR_FREQ);
    a.sample_regs_user = UINT64_C(0x1122334455667788) + (uint64_t)i;
    a.sig_data = UINT64_C(0x0102030405060708);
    return a;
}

/* attr_bytes bytes of a VER8 attr (config3 = 0xc3c3...) with size_field. */
static void put_attr_sized(buf *b, const ps_attr *a, uint32_t size_field, uint32_t nbytes)
{
    buf t = { 0 };
    size_t i;

    t.swap = b->swap;
    put_attr(&t, a);
    put64(&t, UINT64_C(0xc3c3c3c3c3c3c3c3));
    patch32(&t, 4, size_field);
    for (i = 0; i < nbytes; i++)
        put8(b, i < t.n ? t.p[i] : 0xee);      /* 0xee: bytes of unknown fields */
    free(t.p);
}

/* perf string padded to 8. */
static void put_str(buf *b, const char *s)
{
    size_t len = (strlen(s) + 1 + 7) / 8 * 8, i;

    put32(b, (uint32_t)len);
    buf_put(b, s, strlen(s));
    for (i = strlen(s); i < len; i++)
        put8(b, 0);
}

static int has_bit(const uint64_t *bits, unsigned n)
{
    return (int)((bits[n / 64] >> (n % 64)) & 1);
}

/* header | ids | attr table | data | feature table | payloads */
static built build(const layout *l)
{
    built r;
    buf *f = &r.f;
    size_t i, k;
    unsigned feat;
    int a, s;

    memset(&r, 0, sizeof(r));
    f->swap = l->swap;
    if (l->magic)
        buf_put(f, l->magic, 8);
    else
        buf_put(f, l->swap ? "2ELIFREP" : "PERFILE2", 8);
    put64(f, l->hdr_size);
    for (i = 0; i < 7; i++)
        put64(f, 0);
    if (l->hdr_size == 104) {
        for (i = 0; i < 4; i++) {
            if (l->feat_u32) {
                put32(f, (uint32_t)l->features[i]);
                put32(f, (uint32_t)(l->features[i] >> 32));
            } else {
                put64(f, l->features[i]);
            }
        }
    }
    r.ids_off = f->n;
    for (a = 0; a < l->nr_attrs; a++)
        for (k = 0; k < (size_t)l->nr_ids; k++)
            put64(f, 100 * (uint64_t)(a + 1) + k);
    r.attrs_off = f->n;
    for (a = 0; a < l->nr_attrs; a++) {
        ps_attr at = attr_n(a);
        size_t start = f->n;

        put_attr_sized(f, &at, l->attr_field, l->attr_bytes);
        while (f->n < start + l->attr_size - 16)
            put8(f, 0xdd);          /* padding between attr and ids */
        r.entry_ids_field[a] = f->n;
        put64(f, l->nr_ids ? r.ids_off + 8 * (size_t)l->nr_ids * (size_t)a : 0);
        put64(f, 8 * (uint64_t)l->nr_ids);
    }
    r.data_off = f->n;
    for (s = 0; s < l->nr_samples; s++) {
        size_t at = begin_record(f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

        put64(f, 0x1000 + (uint64_t)s);
        put64(f, l->nr_ids ? 100 * (uint64_t)(s % (l->nr_attrs ? l->nr_attrs : 1) + 1) : 0);
        finish_record(f, at);
    }
    finish_record(f, begin_record(f, PS_RECORD_FINISHED_ROUND, 0));
    r.data_size = f->n - r.data_off;
    r.feat_off = f->n;
    /* feature table: one entry per set bit, bit 0 included (spec 6.1) */
    for (feat = 0; feat < 256; feat++)
        if (has_bit(l->features, feat)) {
            r.feat_entry[feat] = f->n;
            put64(f, 0);
            put64(f, 0);
        }
    for (feat = 0; feat < 256; feat++) {
        size_t start = f->n;

        if (!has_bit(l->features, feat))
            continue;
        if (feat == PS_HEADER_HOSTNAME)
            put_str(f, "host");
        else if (feat == PS_HEADER_OSRELEASE)
            put_str(f, "6.1.0-test");
        else if (feat == PS_HEADER_NRCPUS) {
            put32(f, 8);
            put32(f, 4);
        } else
            for (i = 0; i < 24; i++)
                put8(f, (uint8_t)(0xa0 + feat));
        patch64(f, r.feat_entry[feat], start);
        patch64(f, r.feat_entry[feat] + 8, f->n - start);
    }
    /* header fields */
    patch64(f, 16, l->attr_size);
    patch64(f, 24, r.attrs_off);
    patch64(f, 32, l->attr_size * (uint64_t)l->nr_attrs);
    patch64(f, 40, r.data_off);
    patch64(f, 48, r.data_size);
    return r;
}

/* --- opening and reading --------------------------------------------------------- */

typedef struct warnings {
    int  n;
    char last[512];
    char all[2048];
} warnings;

static void on_warn(void *ctx, const ps_error *w)
{
    warnings *ws = ctx;
    size_t len = strlen(ws->all);

    ws->n++;
    snprintf(ws->last, sizeof(ws->last), "%s", w->msg);
    snprintf(ws->all + len, sizeof(ws->all) - len, "%s\n", w->msg);
}

typedef struct opened {
    int rc;
    ps_error err;
    ps_session *s;
    warnings w;
    const char *path;
} opened;

static void open_bytes(opened *o, const void *p, size_t n)
{
    ps_open_opts opts = PS_OPEN_OPTS_INIT;

    memset(o, 0, sizeof(*o));
    opts.warn = on_warn;
    opts.warn_ctx = &o->w;
    o->path = write_temp(p, n);
    o->rc = ps_session_open(&o->s, o->path, &opts, &o->err);
}

/* Samples delivered, -1 on an error. */
static int count_samples(opened *o)
{
    ps_event ev;
    int rc, n = 0;

    while ((rc = ps_session_next(&ev, o->s, &o->err)) == PS_OK)
        if (ev.type == PERF_RECORD_SAMPLE) {
            if (ev.u.sample.ip != 0x1000 + (uint64_t)n)
                return -1;
            n++;
        }
    return rc == PS_DONE ? n : -1;
}

static void close_opened(opened *o)
{
    ps_session_close(o->s);
    unlink(o->path);
}

static int contains(const char *hay, const char *needle)
{
    if (strstr(hay, needle))
        return 1;
    fprintf(stderr, "  '%s' not in '%s'\n", needle, hay);
    return 0;
}

/* --- tests --------------------------------------------------------------------- */

static void test_header_104_and_72(void)
{
    int swap;

    for (swap = 0; swap < 2; swap++) {
        layout l = default_layout(swap);
        built b;
        opened o;

        l.features[0] = UINT64_C(1) << PS_HEADER_HOSTNAME | UINT64_C(1) << PS_HEADER_NRCPUS;
        b = build(&l);
        open_bytes(&o, b.f.p, b.f.n);
        CHECK(o.rc == PS_OK);
        if (o.s) {
            const ps_header *h = ps_session_header(o.s);
            const ps_features *f = ps_session_features(o.s);

            CHECK(h->size == 104 && h->swapped == swap && !h->legacy_magic);
            CHECK(h->container == PS_CONTAINER_FILE && h->attr_size == 144);
            CHECK(h->data.offset == b.data_off && h->data.size == b.data_size);
            CHECK(h->feat_offset == b.feat_off && h->file_size == b.f.n);
            CHECK(h->features[0] == l.features[0]);
            CHECK(f->hostname && strcmp(f->hostname, "host") == 0);
            CHECK(f->nr_cpus_avail == 8 && f->nr_cpus_online == 4);
            CHECK(ps_session_nr_evsels(o.s) == 2);
            CHECK(count_samples(&o) == 3);
            CHECK(o.w.n == 0);
            close_opened(&o);
        }
        free(b.f.p);

        /* 72 bytes: no bitmap; the ids right after the header must not be
         * read as one (HOSTNAME's bit is set in the caller's bitmap) */
        l.hdr_size = 72;
        b = build(&l);
        CHECK(b.ids_off == 72);
        open_bytes(&o, b.f.p, b.f.n);
        CHECK(o.rc == PS_OK);
        if (o.s) {
            const ps_header *h = ps_session_header(o.s);

            CHECK(h->size == 72);
            CHECK(h->features[0] == 0 && h->features[1] == 0);
            CHECK(!ps_features_has(ps_session_features(o.s), PS_HEADER_HOSTNAME));
            CHECK(ps_session_evsel(o.s, 1) && ps_session_evsel(o.s, 1)->attr.config == 1);
            CHECK(count_samples(&o) == 3);
            CHECK(o.w.n == 0);
            close_opened(&o);
        }
        free(b.f.p);
    }
}

static void test_header_refused(void)
{
    layout l = default_layout(0);
    built b = build(&l);
    opened o;

    /* other header sizes */
    patch64(&b.f, 8, 80);
    open_bytes(&o, b.f.p, b.f.n);
    CHECK(o.rc == PS_EFORMAT && o.s == NULL && contains(o.err.msg, "header size 80"));
    unlink(o.path);
    patch64(&b.f, 8, 104);
    /* bad magic */
    memcpy(b.f.p, "PERFILE3", 8);
    open_bytes(&o, b.f.p, b.f.n);
    CHECK(o.rc == PS_EFORMAT && contains(o.err.msg, "magic"));
    unlink(o.path);
    memcpy(b.f.p, "PERFILE2", 8);
    /* too short for any header, and shorter than the header it announces */
    open_bytes(&o, b.f.p, 15);
    CHECK(o.rc == PS_EFORMAT);
    unlink(o.path);
    open_bytes(&o, b.f.p, 100);
    CHECK(o.rc == PS_ETRUNC);
    unlink(o.path);
    /* data offset outside [header, file] */
    patch64(&b.f, 40, b.f.n + 1);
    open_bytes(&o, b.f.p, b.f.n);
    CHECK(o.rc == PS_ECORRUPT && o.err.offset == 40 && contains(o.err.msg, "offset 0x28"));
    unlink(o.path);
    patch64(&b.f, 40, 50);
    open_bytes(&o, b.f.p, b.f.n);
    CHECK(o.rc == PS_ECORRUPT);
    unlink(o.path);
    patch64(&b.f, 40, b.data_off);
    /* attr_size below 80, attr table past the end */
    patch64(&b.f, 16, 72);
    open_bytes(&o, b.f.p, b.f.n);
    CHECK(o.rc == PS_ECORRUPT && contains(o.err.msg, "attr_size 72"));
    unlink(o.path);
    patch64(&b.f, 16, 144);
    patch64(&b.f, 32, b.f.n);
    open_bytes(&o, b.f.p, b.f.n);
    CHECK(o.rc == PS_ETRUNC && contains(o.err.msg, "outside"));
    unlink(o.path);
    patch64(&b.f, 24, UINT64_MAX - 8);
    patch64(&b.f, 32, 144);
    open_bytes(&o, b.f.p, b.f.n);
    CHECK(o.rc == PS_ETRUNC);
    unlink(o.path);
    /* an empty attr table is allowed (perf inject) */
    patch64(&b.f, 24, b.attrs_off);
    patch64(&b.f, 32, 0);
    open_bytes(&o, b.f.p, b.f.n);
    CHECK(o.rc == PS_OK && o.s && ps_session_nr_evsels(o.s) == 0);
    if (o.s)
        close_opened(&o);
    free(b.f.p);
}

/* Legacy PERFFILE: byte order from attr_size = VERn + 16 (spec 2.3). */
static void test_legacy_magic(void)
{
    int swap;

    for (swap = 0; swap < 2; swap++) {
        layout l = default_layout(swap);
        built b;
        opened o;

        l.magic = "PERFFILE";
        l.attr_field = 104;             /* VER4 */
        l.attr_bytes = 104;
        l.attr_size = 120;
        b = build(&l);
        open_bytes(&o, b.f.p, b.f.n);
        CHECK(o.rc == PS_OK);
        if (o.s) {
            const ps_header *h = ps_session_header(o.s);
            const ps_evsel *e = ps_session_evsel(o.s, 1);

            CHECK(h->legacy_magic && h->swapped == swap && h->attr_size == 120);
            CHECK(e && e->attr.config == 1 && e->attr.sample_regs_user ==
                  UINT64_C(0x1122334455667789));
            CHECK(e && e->attr.sig_data == 0);          /* past VER4 */
            CHECK(e && ps_attr_flag(&e->attr, PS_ATTR_SAMPLE_ID_ALL));
            CHECK(count_samples(&o) == 3);
            close_opened(&o);
        }
        free(b.f.p);

        /* every VER0..VER4 stride is recognised */
        {
            static const uint32_t vers[5] = { 64, 72, 80, 96, 104 };
            int v;

            for (v = 0; v < 5; v++) {
                l.attr_field = l.attr_bytes = vers[v];
                l.attr_size = vers[v] + 16;
                b = build(&l);
                open_bytes(&o, b.f.p, b.f.n);
                CHECK(o.rc == PS_OK && o.s && ps_session_header(o.s)->swapped == swap);
                if (o.s)
                    close_opened(&o);
                else
                    unlink(o.path);
                free(b.f.p);
            }
        }

        /* 144 is no legacy attr_size: neither order matches */
        l.attr_field = l.attr_bytes = 128;
        l.attr_size = 144;
        b = build(&l);
        open_bytes(&o, b.f.p, b.f.n);
        CHECK(o.rc == PS_EFORMAT && contains(o.err.msg, "legacy"));
        unlink(o.path);
        free(b.f.p);

        /* a legacy pipe header: size 16 in either order */
        {
            buf p = { 0 };
            size_t at;

            p.swap = swap;
            buf_put(&p, "PERFFILE", 8);
            put64(&p, 16);
            at = begin_record(&p, PS_RECORD_FINISHED_ROUND, 0);
            finish_record(&p, at);
            open_bytes(&o, p.p, p.n);
            CHECK(o.rc == PS_OK);
            if (o.s) {
                ps_event ev;

                CHECK(ps_session_header(o.s)->container == PS_CONTAINER_PIPE);
                CHECK(ps_session_header(o.s)->swapped == swap);
                CHECK(ps_session_next(&ev, o.s, &o.err) == PS_OK &&
                      ev.type == PS_RECORD_FINISHED_ROUND);
                close_opened(&o);
            }
            free(p.p);
        }
    }
}

/* Entries are stepped by attr_size, the ids taken at entry + attr_size - 16
 * whatever attr.size says (spec 2.4). */
static void test_attr_table_stepping(void)
{
    static const struct { uint32_t field, bytes; uint64_t stride; } cases[] = {
        { 128, 128, 144 + 24 },     /* padded entries */
        { 128, 128, 144 + 8 },
        { 64, 64, 80 },             /* VER0 */
        { 0, 64, 80 },              /* size 0 = VER0 */
        { 0, 64, 144 },             /* size 0 in a padded entry */
        { 136, 136, 152 },          /* VER8 */
        { 144, 144, 160 },          /* a size from the future */
        { 96, 96, 112 + 40 },
    };
    size_t i;
    int swap;

    for (swap = 0; swap < 2; swap++)
        for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            layout l = default_layout(swap);
            built b;
            opened o;
            int a;

            l.nr_attrs = 3;
            l.attr_field = cases[i].field;
            l.attr_bytes = cases[i].bytes;
            l.attr_size = cases[i].stride;
            b = build(&l);
            open_bytes(&o, b.f.p, b.f.n);
            CHECK(o.rc == PS_OK);
            if (o.s == NULL) {
                fprintf(stderr, "  case %zu swap %d: %s\n", i, swap, o.err.msg);
                unlink(o.path);
                free(b.f.p);
                continue;
            }
            CHECK(ps_session_nr_evsels(o.s) == 3);
            for (a = 0; a < 3 && ps_session_evsel(o.s, (size_t)a); a++) {
                const ps_evsel *e = ps_session_evsel(o.s, (size_t)a);
                uint32_t layout_size = cases[i].field ? cases[i].field : 64;

                CHECK(e->attr.config == (uint64_t)a && e->attr.size == cases[i].field);
                CHECK(e->attr.sample_type == (PERF_SAMPLE_IP | PERF_SAMPLE_ID));
                CHECK(e->nr_ids == 2 && e->ids[1] == 100 * (uint64_t)(a + 1) + 1);
                CHECK(ps_session_evsel_by_id(o.s, 100 * (uint64_t)(a + 1)) == e);
                CHECK(e->attr.sample_regs_user ==
                      (layout_size >= 88 ? UINT64_C(0x1122334455667788) + (uint64_t)a : 0));
                CHECK(e->attr.config3 ==
                      (layout_size >= 136 ? UINT64_C(0xc3c3c3c3c3c3c3c3) : 0));
            }
            CHECK(count_samples(&o) == 3);
            close_opened(&o);
            free(b.f.p);
        }
}

/* An attr larger than its entry is refused, naming the entry. */
static void test_attr_larger_than_entry(void)
{
    int swap;

    for (swap = 0; swap < 2; swap++) {
        layout l = default_layout(swap);
        built b = build(&l);
        char want[64];
        opened o;
        size_t entry1 = b.attrs_off + 144;

        patch32(&b.f, entry1 + 4, 136);
        open_bytes(&o, b.f.p, b.f.n);
        CHECK(o.rc == PS_ETRUNC && o.err.offset == entry1);
        snprintf(want, sizeof(want), "offset 0x%zx: attr 1", entry1);
        CHECK(contains(o.err.msg, want));
        unlink(o.path);
        patch32(&b.f, entry1 + 4, 40);
        open_bytes(&o, b.f.p, b.f.n);
        CHECK(o.rc == PS_ECORRUPT && contains(o.err.msg, want));
        unlink(o.path);
        free(b.f.p);
    }
}

/* Id arrays outside the file, not a multiple of 8, or wrapping: refused
 * with the offset of the entry's ids field. */
static void test_ids_outside_file(void)
{
    int swap, v;

    for (swap = 0; swap < 2; swap++)
        for (v = 0; v < 4; v++) {
            layout l = default_layout(swap);
            built b = build(&l);
            size_t field = b.entry_ids_field[1];
            char want[64];
            opened o;

            if (v == 0)
                patch64(&b.f, field, b.f.n + 8);
            else if (v == 1)
                patch64(&b.f, field + 8, b.f.n);
            else if (v == 2)
                patch64(&b.f, field + 8, 12);
            else {
                patch64(&b.f, field, UINT64_MAX - 7);
                patch64(&b.f, field + 8, 16);
            }
            open_bytes(&o, b.f.p, b.f.n);
            CHECK(o.rc == PS_ECORRUPT && o.s == NULL);
            CHECK(o.err.offset == field);
            snprintf(want, sizeof(want), "offset 0x%zx", field);
            CHECK(contains(o.err.msg, want));
            CHECK(contains(o.err.msg, "attr 1"));
            unlink(o.path);
            free(b.f.p);
        }
}

/* data.size 0: an unterminated recording; records run to the end of the
 * file and the (unwritten) features are ignored. */
static void test_data_size_zero(void)
{
    int swap;

    for (swap = 0; swap < 2; swap++) {
        layout l = default_layout(swap);
        built b;
        opened o;

        l.features[0] = UINT64_C(1) << PS_HEADER_HOSTNAME;
        b = build(&l);
        b.f.n = b.feat_off;             /* no feature section was written */
        patch64(&b.f, 48, 0);
        open_bytes(&o, b.f.p, b.f.n);
        CHECK(o.rc == PS_OK);
        if (o.s) {
            const ps_header *h = ps_session_header(o.s);

            CHECK(h->data_size_zero && h->data.size == 0);
            CHECK(h->features[0] == 0);
            CHECK(!ps_features_has(ps_session_features(o.s), PS_HEADER_HOSTNAME));
            CHECK(o.w.n == 1 && contains(o.w.last, "data size field is 0"));
            CHECK(count_samples(&o) == 3);
            close_opened(&o);
        }
        free(b.f.p);
    }
}

/* A data section running past the end of the file: a warning, records up
 * to the end; the feature table beyond it: another warning. */
static void test_data_past_eof(void)
{
    int swap;

    for (swap = 0; swap < 2; swap++) {
        layout l = default_layout(swap);
        built b;
        opened o;

        l.features[0] = UINT64_C(1) << PS_HEADER_HOSTNAME;
        b = build(&l);
        patch64(&b.f, 48, b.data_size + 4096);
        open_bytes(&o, b.f.p, b.feat_off);
        CHECK(o.rc == PS_OK);
        if (o.s) {
            CHECK(o.w.n == 2);
            CHECK(contains(o.w.all, "runs past the end"));
            CHECK(contains(o.w.all, "feature table entry for HOSTNAME lies outside"));
            CHECK(count_samples(&o) == 3);
            close_opened(&o);
        }
        /* data.offset + data.size wrapping around */
        patch64(&b.f, 48, UINT64_MAX - 16);
        open_bytes(&o, b.f.p, b.feat_off);
        CHECK(o.rc == PS_OK);
        if (o.s) {
            CHECK(contains(o.w.all, "runs past the end"));
            CHECK(count_samples(&o) == 3);
            close_opened(&o);
        }
        free(b.f.p);
    }
}

/* A feature section outside the file is a warning and marks the feature
 * failed; the others still decode. A table cut short: a warning too. */
static void test_feature_entries_outside(void)
{
    int swap;

    for (swap = 0; swap < 2; swap++) {
        layout l = default_layout(swap);
        built b;
        opened o;

        l.features[0] = UINT64_C(1) << PS_HEADER_HOSTNAME | UINT64_C(1) << PS_HEADER_OSRELEASE;
        b = build(&l);
        patch64(&b.f, b.feat_entry[PS_HEADER_HOSTNAME], b.f.n - 4);
        open_bytes(&o, b.f.p, b.f.n);
        CHECK(o.rc == PS_OK);
        if (o.s) {
            const ps_features *f = ps_session_features(o.s);

            CHECK(o.w.n == 1 && contains(o.w.last, "outside the file"));
            CHECK(!ps_features_has(f, PS_HEADER_HOSTNAME));
            CHECK((f->failed[0] >> PS_HEADER_HOSTNAME) & 1);
            CHECK(f->osrelease && strcmp(f->osrelease, "6.1.0-test") == 0);
            CHECK(count_samples(&o) == 3);
            close_opened(&o);
        }
        /* the table itself cut: the second entry is missing */
        open_bytes(&o, b.f.p, b.feat_off + 24);
        CHECK(o.rc == PS_OK);
        if (o.s) {
            CHECK(o.w.n >= 1 && contains(o.w.all, "OSRELEASE lies outside the file"));
            CHECK(count_samples(&o) == 3);
            close_opened(&o);
        }
        free(b.f.p);
    }
}

/* Unknown bits have table entries whose payloads are skipped (perf 6.1
 * accepts bit 40, spec 6.1); a set bit 0 takes a slot too. */
static void test_unknown_feature_bits(void)
{
    int swap;

    for (swap = 0; swap < 2; swap++) {
        layout l = default_layout(swap);
        built b;
        opened o;

        l.features[0] = UINT64_C(1) << PS_HEADER_HOSTNAME | UINT64_C(1) << 40 |
                        UINT64_C(1) << 63;
        l.features[1] = UINT64_C(1) << (100 - 64);
        l.features[3] = UINT64_C(1) << 63;
        b = build(&l);
        open_bytes(&o, b.f.p, b.f.n);
        CHECK(o.rc == PS_OK);
        if (o.s) {
            const ps_features *f = ps_session_features(o.s);

            CHECK(o.w.n == 0);
            CHECK(f->hostname && strcmp(f->hostname, "host") == 0);
            CHECK(ps_session_header(o.s)->features[3] == UINT64_C(1) << 63);
            CHECK(f->sections[100].size == 24 && f->sections[255].size == 24);
            CHECK(!ps_features_has(f, 40) && !ps_features_has(f, 100));
            CHECK(count_samples(&o) == 3);
            close_opened(&o);
        }
        /* an unknown feature's section outside the file: a warning only */
        patch64(&b.f, b.feat_entry[100], b.f.n);
        open_bytes(&o, b.f.p, b.f.n);
        CHECK(o.rc == PS_OK);
        if (o.s) {
            CHECK(o.w.n == 1 && contains(o.w.last, "feature 100"));
            CHECK(ps_session_features(o.s)->hostname != NULL);
            close_opened(&o);
        }
        free(b.f.p);

        /* bit 0 (reserved) set: its slot comes first */
        l.features[0] = UINT64_C(1) << 0 | UINT64_C(1) << PS_HEADER_HOSTNAME;
        l.features[1] = l.features[3] = 0;
        b = build(&l);
        open_bytes(&o, b.f.p, b.f.n);
        CHECK(o.rc == PS_OK);
        if (o.s) {
            const ps_features *f = ps_session_features(o.s);

            CHECK(f->hostname && strcmp(f->hostname, "host") == 0);
            CHECK(o.w.n == 0);
            close_opened(&o);
        }
        free(b.f.p);
    }
}

/* Other-endian bitmaps (spec 4.2): u64 words from a 64-bit producer, u32
 * words from a 32-bit one (found by HOSTNAME coming out clear), and
 * neither: perf assumes BUILD_ID only. */
static void test_feature_bitmap_other_endian(void)
{
    uint64_t bits0 = UINT64_C(1) << PS_HEADER_HOSTNAME | UINT64_C(1) << PS_HEADER_OSRELEASE |
                     UINT64_C(1) << 40;
    uint64_t bits1 = UINT64_C(1) << 1 | UINT64_C(1) << 33;     /* bits 65 and 97 */
    int u32;

    for (u32 = 0; u32 < 2; u32++) {
        int swap;

        for (swap = 0; swap < 2; swap++) {
            layout l = default_layout(swap);
            built b;
            opened o;

            l.features[0] = bits0;
            l.features[1] = bits1;
            l.feat_u32 = u32;
            b = build(&l);
            open_bytes(&o, b.f.p, b.f.n);
            CHECK(o.rc == PS_OK);
            if (o.s) {
                const ps_header *h = ps_session_header(o.s);
                const ps_features *f = ps_session_features(o.s);

                CHECK(h->features[0] == bits0 && h->features[1] == bits1);
                CHECK(h->features[2] == 0 && h->features[3] == 0);
                CHECK(f->hostname && strcmp(f->hostname, "host") == 0);
                CHECK(f->osrelease && strcmp(f->osrelease, "6.1.0-test") == 0);
                CHECK(f->sections[97].size == 24);
                CHECK(o.w.n == 0);
                close_opened(&o);
            }
            free(b.f.p);
        }
    }
    /* no HOSTNAME either way: BUILD_ID assumed, its (missing) table entry
     * read where the table would be */
    {
        layout l = default_layout(1);
        built b;
        opened o;

        l.features[0] = UINT64_C(1) << PS_HEADER_OSRELEASE;
        b = build(&l);
        open_bytes(&o, b.f.p, b.f.n);
        CHECK(o.rc == PS_OK);
        if (o.s) {
            CHECK(ps_session_header(o.s)->features[0] == UINT64_C(1) << PS_HEADER_BUILD_ID);
            CHECK(count_samples(&o) == 3);
            close_opened(&o);
        }
        free(b.f.p);
    }
}

/* --- a file-mode capture on a pipe ------------------------------------------------ */

typedef struct feeder { int fd; const uint8_t *p; size_t n; } feeder;

static void *feed_main(void *arg)
{
    feeder *fd = arg;
    size_t off = 0;

    while (off < fd->n) {
        size_t step = fd->n - off < 777 ? fd->n - off : 777;
        ssize_t w = write(fd->fd, fd->p + off, step);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    close(fd->fd);
    return NULL;
}

/* Random access needs the whole input: it is read into memory (with a
 * warning) and then reads exactly like the file. */
static void test_file_mode_on_pipe(void)
{
    int swap;

    signal(SIGPIPE, SIG_IGN);
    for (swap = 0; swap < 2; swap++) {
        layout l = default_layout(swap);
        built b;
        ps_open_opts opts = PS_OPEN_OPTS_INIT;
        warnings w;
        feeder fd;
        pthread_t t;
        char path[32];
        int fds[2];
        opened o;

        l.features[0] = UINT64_C(1) << PS_HEADER_HOSTNAME;
        b = build(&l);
        memset(&w, 0, sizeof(w));
        memset(&o, 0, sizeof(o));
        opts.warn = on_warn;
        opts.warn_ctx = &w;
        CHECK(pipe(fds) == 0);
        fd.fd = fds[1];
        fd.p = b.f.p;
        fd.n = b.f.n;
        pthread_create(&t, NULL, feed_main, &fd);
        snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
        o.rc = ps_session_open(&o.s, path, &opts, &o.err);
        CHECK(o.rc == PS_OK);
        if (o.s) {
            const ps_header *h = ps_session_header(o.s);

            CHECK(w.n == 1 && contains(w.last, "reading it whole into memory"));
            CHECK(h->file_size == b.f.n && h->swapped == swap);
            CHECK(ps_session_features(o.s)->hostname != NULL);
            CHECK(ps_session_nr_evsels(o.s) == 2);
            CHECK(count_samples(&o) == 3);
            ps_session_close(o.s);
        }
        close(fds[0]);
        pthread_join(t, NULL);
        free(b.f.p);
    }
}

static const struct harness_test tests[] = {
    TEST(test_header_104_and_72),
    TEST(test_header_refused),
    TEST(test_legacy_magic),
    TEST(test_attr_table_stepping),
    TEST(test_attr_larger_than_entry),
    TEST(test_ids_outside_file),
    TEST(test_data_size_zero),
    TEST(test_data_past_eof),
    TEST(test_feature_entries_outside),
    TEST(test_unknown_feature_bits),
    TEST(test_feature_bitmap_other_endian),
    TEST(test_file_mode_on_pipe),
};

TEST_MAIN(tests)
