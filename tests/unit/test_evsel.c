/* SPDX-License-Identifier: MIT */
/*
 * test_evsel.c - unit tests of evsel.c: the id hash (thousands of ids over
 * several evsels, growth, re-registration), the record -> evsel lookup of
 * spec 9.3 (one attr, id 0, unknown ids, non-sample records through the
 * trailer's is_pos, records too short for their id, attrs that place the id
 * differently) in both byte orders, and the naming rules (EVENT_UPDATE NAME
 * over EVENT_DESC over the derived name; pipe mode and EVENT_DESC with bits
 * perf 6.1 does not know fall back to derived names), directly and through
 * a pipe-mode stream.
 */
#include "harness.h"
#include "builder.h"
#include "../../libparse/evsel.h"
#include "../../libparse/evname.h"

static ps_attr mk_attr(uint32_t type, uint64_t config, uint64_t st, int sample_id_all)
{
    ps_attr a;

    memset(&a, 0, sizeof(a));
    a.type = type;
    a.config = config;
    a.size = 128;
    a.sample_type = st;
    a.sample_period = 1000;
    a.flags = PS_ATTR_FLAG(PS_ATTR_EXCLUDE_GUEST) |
              (sample_id_all ? PS_ATTR_FLAG(PS_ATTR_SAMPLE_ID_ALL) : 0);
    return a;
}

/* A record of nr_words u64 body words in the given byte order. */
static size_t mk_record(uint8_t *out, uint32_t type, const uint64_t *words, size_t nr_words,
                        int swap)
{
    buf b = { 0 };
    size_t i, at, n;

    b.swap = swap;
    at = begin_record(&b, type, 0);
    for (i = 0; i < nr_words; i++)
        put64(&b, words[i]);
    finish_record(&b, at);
    n = b.n;
    memcpy(out, b.p, n);
    free(b.p);
    return n;
}

/* The id of evsel e's k-th fd: spread over the whole u64 range. */
static uint64_t id_of(unsigned e, unsigned k)
{
    uint64_t x = ((uint64_t)e << 40) ^ ((uint64_t)k * UINT64_C(0x9e3779b97f4a7c15));

    return x ? x : 1;
}

static void test_id_hash_thousands(void)
{
    enum { NE = 6, NK = 2500 };
    static uint64_t ids[NK];
    ps_evlist l;
    ps_arena a;
    unsigned e, k;
    int ok = 1;

    memset(&l, 0, sizeof(l));
    ps_arena__init(&a);
    for (e = 0; e < NE; e++) {
        ps_attr at = mk_attr(PERF_TYPE_SOFTWARE, e, PERF_SAMPLE_IP | PERF_SAMPLE_ID, 1);
        ps_evsel *out = NULL;
        ps_error err;

        for (k = 0; k < NK; k++)
            ids[k] = id_of(e, k);
        /* small consecutive ids for one evsel: the worst case for weak hashes */
        if (e == 3)
            for (k = 0; k < NK; k++)
                ids[k] = 1000 + k;
        CHECK(ps_evlist__add(&l, &a, &at, ids, NK, &out, &err) == PS_OK);
        CHECK(out == l.evsels[e] && out->idx == e && out->nr_ids == NK);
        CHECK(out->ids != ids && out->ids[NK - 1] == ids[NK - 1]);
    }
    CHECK(l.nr == NE && l.used == (size_t)NE * NK);
    CHECK(l.slots >= 2 * l.used && (l.slots & (l.slots - 1)) == 0);
    for (e = 0; e < NE; e++)
        for (k = 0; k < NK; k++) {
            uint64_t id = e == 3 ? 1000 + k : id_of(e, k);

            if (ps_evlist__find(&l, id) != l.evsels[e])
                ok = 0;
        }
    CHECK(ok);
    CHECK(ps_evlist__find(&l, 999) == NULL);
    CHECK(ps_evlist__find(&l, 1000 + NK) == NULL);
    CHECK(ps_evlist__find(&l, 0) == NULL);
    CHECK(ps_evlist__find(&l, id_of(NE, 0)) == NULL);
    CHECK(ps_evlist__find(&l, ~UINT64_C(0)) == NULL);
    ps_evlist__free(&l);
    ps_arena__free(&a);
}

/* Adding an id again moves it (last registration wins) without growing the
 * table's count; ids added later to an evsel are found. */
static void test_id_reregistered(void)
{
    ps_attr at = mk_attr(PERF_TYPE_SOFTWARE, 0, PERF_SAMPLE_ID, 1);
    uint64_t a_ids[3] = { 5, 6, 7 }, b_ids[2] = { 7, 8 }, more[2] = { 9, 0 };
    ps_evsel *ea, *eb;
    ps_evlist l;
    ps_arena ar;
    ps_error err;

    memset(&l, 0, sizeof(l));
    ps_arena__init(&ar);
    CHECK(ps_evlist__add(&l, &ar, &at, a_ids, 3, &ea, &err) == PS_OK);
    CHECK(ps_evlist__add(&l, &ar, &at, b_ids, 2, &eb, &err) == PS_OK);
    CHECK(l.used == 4);
    CHECK(ps_evlist__find(&l, 5) == ea && ps_evlist__find(&l, 7) == eb);
    CHECK(ps_evlist__add_ids(&l, ea, more, 2, &err) == PS_OK);
    CHECK(ps_evlist__find(&l, 9) == ea && ps_evlist__find(&l, 0) == ea);
    CHECK(l.used == 6);
    /* no ids at all is fine */
    CHECK(ps_evlist__add(&l, &ar, &at, NULL, 0, NULL, &err) == PS_OK);
    CHECK(l.nr == 3 && l.evsels[2]->nr_ids == 0);
    ps_evlist__free(&l);
    ps_arena__free(&ar);
}

/* Three evsels sharing IP|TID|TIME|ID (id_pos 3, is_pos 1). */
static void three_evsels(ps_evlist *l, ps_arena *a, uint64_t st, int sample_id_all)
{
    uint64_t ids[3][2] = { { 11, 12 }, { 21, 22 }, { 31, 32 } };
    int i;

    memset(l, 0, sizeof(*l));
    ps_arena__init(a);
    for (i = 0; i < 3; i++) {
        ps_attr at = mk_attr(PERF_TYPE_SOFTWARE, (uint64_t)i, st, sample_id_all);
        ps_error err;

        CHECK(ps_evlist__add(l, a, &at, ids[i], 2, NULL, &err) == PS_OK);
    }
}

static void test_sample_lookup(void)
{
    uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID;
    int swap;

    for (swap = 0; swap < 2; swap++) {
        uint64_t body[4] = { 0xffffffff81000000, 0x0000002a0000002a, 123456, 22 };
        uint8_t rec[64];
        const ps_evsel *out;
        ps_evlist l;
        ps_arena a;
        ps_error err;
        size_t n;

        three_evsels(&l, &a, st, 1);
        CHECK(l.id_pos == 3 && l.is_pos == 1 && !l.mismatch);
        n = mk_record(rec, PERF_RECORD_SAMPLE, body, 4, swap);
        CHECK(ps_evlist__of_record(&l, rec, n, PERF_RECORD_SAMPLE, swap, 0x100, &out,
                                   &err) == PS_OK && out == l.evsels[1]);
        /* id 0: a synthesized record, the first evsel */
        body[3] = 0;
        n = mk_record(rec, PERF_RECORD_SAMPLE, body, 4, swap);
        CHECK(ps_evlist__of_record(&l, rec, n, PERF_RECORD_SAMPLE, swap, 0x100, &out,
                                   &err) == PS_OK && out == l.evsels[0]);
        /* an id no attr lists */
        body[3] = 4242;
        n = mk_record(rec, PERF_RECORD_SAMPLE, body, 4, swap);
        memset(&err, 0, sizeof(err));
        CHECK(ps_evlist__of_record(&l, rec, n, PERF_RECORD_SAMPLE, swap, 0x100, &out,
                                   &err) == PS_ECORRUPT && out == NULL);
        CHECK(err.offset == 0x100 && strstr(err.msg, "4242") != NULL);
        CHECK(strstr(err.msg, "SAMPLE") != NULL);
        /* too short to hold the id at id_pos 3 */
        body[3] = 22;
        n = mk_record(rec, PERF_RECORD_SAMPLE, body, 3, swap);
        CHECK(ps_evlist__of_record(&l, rec, n, PERF_RECORD_SAMPLE, swap, 0x100, &out,
                                   &err) == PS_ECORRUPT);
        n = mk_record(rec, PERF_RECORD_SAMPLE, body, 0, swap);
        CHECK(ps_evlist__of_record(&l, rec, n, PERF_RECORD_SAMPLE, swap, 0x100, &out,
                                   &err) == PS_ECORRUPT);
        /* user records have no evsel */
        CHECK(ps_evlist__of_record(&l, rec, n, PS_RECORD_FINISHED_ROUND, swap, 0, &out,
                                   &err) == PS_OK && out == NULL);
        ps_evlist__free(&l);
        ps_arena__free(&a);
    }
}

/* Non-sample records: the id sits is_pos words from the end (spec 9.2). */
static void test_trailer_lookup(void)
{
    uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU;
    int swap;

    for (swap = 0; swap < 2; swap++) {
        /* COMM body: pid/tid, "ab" padded, then the trailer */
        uint64_t body[7] = { 0x100000010, 0x6261, 0x100000010, 99, 31, 777, 3 };
        uint8_t rec[80];
        const ps_evsel *out;
        ps_evlist l;
        ps_arena a;
        ps_error err;
        size_t n;

        three_evsels(&l, &a, st, 1);
        CHECK(l.is_pos == 3);
        n = mk_record(rec, PERF_RECORD_COMM, body, 7, swap);
        CHECK(ps_evlist__of_record(&l, rec, n, PERF_RECORD_COMM, swap, 0, &out,
                                   &err) == PS_OK && out == l.evsels[2]);
        body[4] = 0;
        n = mk_record(rec, PERF_RECORD_COMM, body, 7, swap);
        CHECK(ps_evlist__of_record(&l, rec, n, PERF_RECORD_COMM, swap, 0, &out,
                                   &err) == PS_OK && out == l.evsels[0]);
        body[4] = 5;
        n = mk_record(rec, PERF_RECORD_COMM, body, 7, swap);
        CHECK(ps_evlist__of_record(&l, rec, n, PERF_RECORD_COMM, swap, 0, &out,
                                   &err) == PS_ECORRUPT);
        /* a record shorter than its trailer */
        n = mk_record(rec, PERF_RECORD_COMM, body, 2, swap);
        CHECK(ps_evlist__of_record(&l, rec, n, PERF_RECORD_COMM, swap, 0, &out,
                                   &err) == PS_ECORRUPT);
        ps_evlist__free(&l);
        ps_arena__free(&a);

        /* without sample_id_all non-sample records belong to the first attr */
        three_evsels(&l, &a, st, 0);
        body[4] = 31;
        n = mk_record(rec, PERF_RECORD_COMM, body, 7, swap);
        CHECK(ps_evlist__of_record(&l, rec, n, PERF_RECORD_COMM, swap, 0, &out,
                                   &err) == PS_OK && out == l.evsels[0]);
        ps_evlist__free(&l);
        ps_arena__free(&a);
    }
}

/* One attr: everything is it, whatever id a record holds. */
static void test_single_evsel(void)
{
    ps_attr at = mk_attr(PERF_TYPE_SOFTWARE, 0, PERF_SAMPLE_IP | PERF_SAMPLE_ID, 1);
    uint64_t id = 50, body[2] = { 1, 9999 };
    uint8_t rec[32];
    const ps_evsel *out;
    ps_evlist l;
    ps_arena a;
    ps_error err;
    size_t n;

    memset(&l, 0, sizeof(l));
    ps_arena__init(&a);
    CHECK(ps_evlist__of_record(&l, rec, 8, PERF_RECORD_SAMPLE, 0, 0, &out, &err) == PS_OK &&
          out == NULL);
    CHECK(ps_evlist__add(&l, &a, &at, &id, 1, NULL, &err) == PS_OK);
    n = mk_record(rec, PERF_RECORD_SAMPLE, body, 2, 0);
    CHECK(ps_evlist__of_record(&l, rec, n, PERF_RECORD_SAMPLE, 0, 0, &out, &err) == PS_OK &&
          out == l.evsels[0]);
    n = mk_record(rec, PERF_RECORD_SAMPLE, body, 0, 0);
    CHECK(ps_evlist__of_record(&l, rec, n, PERF_RECORD_SAMPLE, 0, 0, &out, &err) == PS_OK &&
          out == l.evsels[0]);
    ps_evlist__free(&l);
    ps_arena__free(&a);
}

/* Attrs that disagree on id_pos or is_pos, or have no id at all, cannot be
 * told apart (perf: "non matching sample_type"); IDENTIFIER always can. */
static void test_mismatched_id_pos(void)
{
    static const struct { uint64_t st1, st2; int mismatch; } cases[] = {
        { PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ID,
          PERF_SAMPLE_IP | PERF_SAMPLE_ID, 1 },                     /* id_pos 2 vs 1 */
        { PERF_SAMPLE_ID, PERF_SAMPLE_ID | PERF_SAMPLE_CPU, 1 },    /* is_pos 1 vs 2 */
        { PERF_SAMPLE_IP, PERF_SAMPLE_IP, 1 },                      /* no id */
        { PERF_SAMPLE_IP | PERF_SAMPLE_ID, PERF_SAMPLE_IP, 1 },
        { PERF_SAMPLE_IP | PERF_SAMPLE_ID, PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
          PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW, 0 },                /* same positions */
        { PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP,
          PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW, 0 },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ps_attr a1 = mk_attr(PERF_TYPE_SOFTWARE, 0, cases[i].st1, 1);
        ps_attr a2 = mk_attr(PERF_TYPE_SOFTWARE, 1, cases[i].st2, 1);
        uint64_t id1 = 100, id2 = 200, body[4] = { 200, 200, 200, 200 };
        uint8_t rec[48];
        const ps_evsel *out;
        ps_evlist l;
        ps_arena a;
        ps_error err;
        size_t n;
        int rc;

        memset(&l, 0, sizeof(l));
        ps_arena__init(&a);
        CHECK(ps_evlist__add(&l, &a, &a1, &id1, 1, NULL, &err) == PS_OK);
        CHECK(ps_evlist__add(&l, &a, &a2, &id2, 1, NULL, &err) == PS_OK);
        CHECK(l.mismatch == cases[i].mismatch || (l.id_pos < 0 && cases[i].mismatch));
        n = mk_record(rec, PERF_RECORD_SAMPLE, body, 4, 0);
        memset(&err, 0, sizeof(err));
        rc = ps_evlist__of_record(&l, rec, n, PERF_RECORD_SAMPLE, 0, 0x80, &out, &err);
        if (cases[i].mismatch) {
            CHECK(rc == PS_EFORMAT && err.offset == 0x80);
            CHECK(strstr(err.msg, "non matching sample_type") != NULL);
        } else {
            CHECK(rc == PS_OK && out == l.evsels[1]);
        }
        ps_evlist__free(&l);
        ps_arena__free(&a);
    }
}

/* --- naming ---------------------------------------------------------------- */

static ps_features *desc_features(const ps_attr *attrs, const char *const *names, uint32_t nr)
{
    ps_features *f = calloc(1, sizeof(*f));
    ps_feat_event_desc *ev = calloc(nr ? nr : 1, sizeof(*ev));
    uint32_t i;

    for (i = 0; i < nr; i++) {
        ev[i].attr = attrs[i];
        ev[i].name = names[i];
    }
    f->event_desc.nr = nr;
    f->event_desc.attr_size = 128;
    f->event_desc.events = ev;
    f->present[0] |= UINT64_C(1) << PS_HEADER_EVENT_DESC;
    return f;
}

static void free_features(ps_features *f)
{
    free((void *)f->event_desc.events);
    free(f);
}

static int name_is(const ps_evsel *e, const char *want)
{
    if (e->name && strcmp(e->name, want) == 0)
        return 1;
    fprintf(stderr, "  evsel %u: name '%s', want '%s'\n", e->idx,
            e->name ? e->name : "(null)", want);
    return 0;
}

static void derived(char *out, const ps_attr *a)
{
    ps_evname__derive(out, 128, a, NULL);
}

/* Build 3 evsels (cpu-clock, task-clock, page-faults) named by
 * EVENT_DESC entries `desc`, EVENT_UPDATE name on evsel 1. */
static void naming_case(int pipe, int with_desc, int desc_unknown_bits, uint32_t nr_desc,
                        int with_update, const char *const want[3])
{
    static const char *const desc_names[3] = { "desc0", "desc1", "desc2" };
    ps_attr at[3];
    ps_features *f;
    ps_evlist l;
    ps_arena a;
    int i;

    memset(&l, 0, sizeof(l));
    ps_arena__init(&a);
    l.pipe = pipe;
    for (i = 0; i < 3; i++) {
        ps_error err;

        at[i] = mk_attr(PERF_TYPE_SOFTWARE, (uint64_t)i, PERF_SAMPLE_IP, 1);
        CHECK(ps_evlist__add(&l, &a, &at[i], NULL, 0, NULL, &err) == PS_OK);
    }
    f = desc_features(at, desc_names, nr_desc);
    if (!with_desc)
        f->present[0] = 0;
    if (desc_unknown_bits == 1)
        ((ps_feat_event_desc *)f->event_desc.events)[nr_desc - 1].attr.sample_type |=
            UINT64_C(1) << 30;
    if (desc_unknown_bits == 2)
        ((ps_feat_event_desc *)f->event_desc.events)[0].attr.flags |= UINT64_C(1) << 45;
    if (desc_unknown_bits == 3)
        ((ps_feat_event_desc *)f->event_desc.events)[0].attr.aux_action = 1;
    if (with_update)
        l.update_names[1] = "updated1";
    ps_evlist__name(&l, &a, f, 0);
    for (i = 0; i < 3; i++) {
        char d[128];

        derived(d, &at[i]);
        CHECK(l.evsels[i]->attr_name && strcmp(l.evsels[i]->attr_name, d) == 0);
        CHECK(name_is(l.evsels[i], want[i] ? want[i] : d));
    }
    free_features(f);
    ps_evlist__free(&l);
    ps_arena__free(&a);
}

static void test_naming_order(void)
{
    static const char *const all_desc[3] = { "desc0", "desc1", "desc2" };
    static const char *const update_wins[3] = { "desc0", "updated1", "desc2" };
    static const char *const all_derived[3] = { NULL, NULL, NULL };
    static const char *const only_update[3] = { NULL, "updated1", NULL };
    static const char *const short_desc[3] = { "desc0", NULL, NULL };

    naming_case(0, 1, 0, 3, 0, all_desc);
    naming_case(0, 1, 0, 3, 1, update_wins);
    naming_case(0, 0, 0, 3, 0, all_derived);        /* no EVENT_DESC */
    naming_case(0, 0, 0, 3, 1, only_update);
    naming_case(0, 1, 0, 1, 0, short_desc);         /* fewer entries than evsels */
}

static void test_naming_pipe_ignores_desc(void)
{
    static const char *const all_derived[3] = { NULL, NULL, NULL };
    static const char *const only_update[3] = { NULL, "updated1", NULL };

    naming_case(1, 1, 0, 3, 0, all_derived);
    naming_case(1, 1, 0, 3, 1, only_update);
}

/* perf 6.1 drops the whole EVENT_DESC when one attr uses unknown bits. */
static void test_naming_desc_unknown_bits(void)
{
    static const char *const all_derived[3] = { NULL, NULL, NULL };
    static const char *const only_update[3] = { NULL, "updated1", NULL };

    naming_case(0, 1, 1, 3, 0, all_derived);
    naming_case(0, 1, 2, 3, 0, all_derived);
    naming_case(0, 1, 3, 3, 1, only_update);
}

/* A NULL EVENT_DESC name (unnamed entry) falls back to the derived one and
 * renaming from an index leaves earlier evsels alone. */
static void test_naming_partial(void)
{
    static const char *const names[2] = { "first", NULL };
    ps_attr at[2];
    ps_features *f;
    ps_evlist l;
    ps_arena a;
    char d[128];
    int i;

    memset(&l, 0, sizeof(l));
    ps_arena__init(&a);
    for (i = 0; i < 2; i++) {
        ps_error err;

        at[i] = mk_attr(PERF_TYPE_HARDWARE, (uint64_t)i, PERF_SAMPLE_IP, 1);
        CHECK(ps_evlist__add(&l, &a, &at[i], NULL, 0, NULL, &err) == PS_OK);
    }
    f = desc_features(at, names, 2);
    l.evsels[0]->name = "kept";
    ps_evlist__name(&l, &a, f, 1);
    derived(d, &at[1]);
    CHECK(name_is(l.evsels[0], "kept"));
    CHECK(name_is(l.evsels[1], d));
    ps_evlist__name(&l, &a, f, 0);
    CHECK(name_is(l.evsels[0], "first"));
    free_features(f);
    ps_evlist__free(&l);
    ps_arena__free(&a);
}

/* --- a pipe stream ---------------------------------------------------------- */

static void put_header_attr(buf *b, const ps_attr *a, const uint64_t *ids, int nr)
{
    size_t at = begin_record(b, PS_RECORD_HEADER_ATTR, 0);
    int i;

    put_attr(b, a);
    for (i = 0; i < nr; i++)
        put64(b, ids[i]);
    finish_record(b, at);
}

/* perf string: u32 len, text, NUL padding to 8 (spec 6.2). */
static void put_str(buf *b, const char *s)
{
    size_t len = (strlen(s) + 1 + 7) / 8 * 8, i;

    put32(b, (uint32_t)len);
    buf_put(b, s, strlen(s));
    for (i = strlen(s); i < len; i++)
        put8(b, 0);
}

static void put_event_desc(buf *b, const ps_attr *attrs, const char *const *names, int nr)
{
    size_t at = begin_record(b, PS_RECORD_HEADER_FEATURE, 0);
    int i;

    put64(b, PS_HEADER_EVENT_DESC);
    put32(b, (uint32_t)nr);
    put32(b, 128);
    for (i = 0; i < nr; i++) {
        put_attr(b, &attrs[i]);
        put32(b, 0);
        put_str(b, names[i]);
    }
    finish_record(b, at);
}

static void put_update_name(buf *b, uint64_t id, const char *name)
{
    size_t at = begin_record(b, PS_RECORD_EVENT_UPDATE, 0);
    size_t len = (strlen(name) + 1 + 7) / 8 * 8, i;

    put64(b, 2);        /* PERF_EVENT_UPDATE__NAME */
    put64(b, id);
    buf_put(b, name, strlen(name));
    for (i = strlen(name); i < len; i++)
        put8(b, 0);
    finish_record(b, at);
}

/* In a pipe stream EVENT_DESC does not name events, EVENT_UPDATE does; ids
 * from HEADER_ATTR find their evsel. Both byte orders. */
static void test_pipe_stream_naming(void)
{
    static const char *const names[2] = { "descA", "descB" };
    int swap;

    for (swap = 0; swap < 2; swap++) {
        uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_ID;
        ps_attr at[2] = { mk_attr(PERF_TYPE_SOFTWARE, 0, st, 1),
                          mk_attr(PERF_TYPE_SOFTWARE, 1, st, 1) };
        uint64_t ids0[2] = { 11, 12 }, ids1[1] = { 22 };
        buf b = { 0 };
        ps_session *s;
        ps_event ev;
        ps_error err;
        size_t rec;
        int rc, n = 0;
        char d0[128];

        b.swap = swap;
        buf_put(&b, swap ? "2ELIFREP" : "PERFILE2", 8);
        put64(&b, 16);
        put_header_attr(&b, &at[0], ids0, 2);
        put_header_attr(&b, &at[1], ids1, 1);
        put_event_desc(&b, at, names, 2);
        put_update_name(&b, 22, "renamed");
        rec = begin_record(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
        put64(&b, 0x400000); put64(&b, 12);
        finish_record(&b, rec);
        rec = begin_record(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
        put64(&b, 0x400008); put64(&b, 22);
        finish_record(&b, rec);
        const char *path = write_temp(b.p, b.n);

        CHECK(ps_session_open(&s, path, NULL, &err) == PS_OK);
        if (s) {
            const ps_evsel *samples[2] = { NULL, NULL };

            while ((rc = ps_session_next(&ev, s, &err)) == PS_OK)
                if (ev.type == PERF_RECORD_SAMPLE && n < 2)
                    samples[n++] = ev.evsel;
            CHECK(rc == PS_DONE);
            CHECK(n == 2 && ps_session_nr_evsels(s) == 2);
            CHECK(samples[0] == ps_session_evsel(s, 0));
            CHECK(samples[1] == ps_session_evsel(s, 1));
            CHECK(ps_features_has(ps_session_features(s), PS_HEADER_EVENT_DESC));
            ps_evname__derive(d0, sizeof(d0), &at[0], NULL);
            CHECK(ps_session_evsel(s, 0) && name_is(ps_session_evsel(s, 0), d0));
            CHECK(ps_session_evsel(s, 1) && name_is(ps_session_evsel(s, 1), "renamed"));
            CHECK(ps_session_evsel_by_id(s, 11) == ps_session_evsel(s, 0));
            CHECK(ps_session_evsel_by_id(s, 22) == ps_session_evsel(s, 1));
            CHECK(ps_session_evsel_by_id(s, 33) == NULL);
            ps_session_close(s);
        }
        unlink(path);
        free(b.p);
    }
}

static const struct harness_test tests[] = {
    TEST(test_id_hash_thousands),
    TEST(test_id_reregistered),
    TEST(test_sample_lookup),
    TEST(test_trailer_lookup),
    TEST(test_single_evsel),
    TEST(test_mismatched_id_pos),
    TEST(test_naming_order),
    TEST(test_naming_pipe_ignores_desc),
    TEST(test_naming_desc_unknown_bits),
    TEST(test_naming_partial),
    TEST(test_pipe_stream_naming),
};

TEST_MAIN(tests)
