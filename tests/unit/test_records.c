/* SPDX-License-Identifier: MIT */
/*
 * test_records.c - unit tests of records.c and session.c framing, from
 * hand-built files in both byte orders: every PERF_SAMPLE_* field, every
 * read_format combination, sample_id trailers, every record-table row, each
 * truncation of a record, zero-size records.
 */
#include "harness.h"
#include "builder.h"

#define ALL_BITS ((UINT64_C(1) << 25) - 1)
#define BRANCH_HW_INDEX (UINT64_C(1) << 17)

static ps_attr sample_attr(uint64_t st, uint64_t rf)
{
    ps_attr a;

    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_SOFTWARE;
    a.sample_period = 4000;
    a.sample_type = st;
    a.read_format = rf;
    a.flags = PS_ATTR_FLAG(PS_ATTR_SAMPLE_ID_ALL) | PS_ATTR_FLAG(PS_ATTR_FREQ) |
              PS_ATTR_FLAG(PS_ATTR_EXCLUDE_GUEST);
    a.sample_regs_user = 0x7;       /* 3 registers */
    a.sample_regs_intr = 0x3;       /* 2 registers */
    a.branch_sample_type = BRANCH_HW_INDEX;
    return a;
}

/* The value every field gets: distinct per field, with high bytes set so a
 * missed swap shows. */
#define V(n) (UINT64_C(0x0102030405060700) + (n))

/* A big-endian producer allocates the branch flags bit-fields from the most
 * significant bit (spec 8.6): field (pos, width) lands at 64 - pos - width. */
static uint64_t branch_flags_be(uint64_t le)
{
    static const unsigned f[][2] = { {0,1},{1,1},{2,1},{3,1},{4,16},{20,4},{24,2},{26,4},{30,3} };
    uint64_t out = 0;
    size_t i;

    for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        out |= ((le >> f[i][0]) & ((UINT64_C(1) << f[i][1]) - 1)) << (64 - f[i][0] - f[i][1]);
    return out;
}

static void put_read(buf *b, uint64_t rf)
{
    uint64_t nr = (rf & PERF_FORMAT_GROUP) ? 2 : 1, i;

    /* spec 8.3: GROUP puts nr first; a single value comes before the times */
    put64(b, (rf & PERF_FORMAT_GROUP) ? nr : V(50));
    if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) put64(b, V(40));
    if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) put64(b, V(41));
    if (!(rf & PERF_FORMAT_GROUP)) {
        if (rf & PERF_FORMAT_ID) put64(b, V(60));
        if (rf & PERF_FORMAT_LOST) put64(b, V(70));
        return;
    }
    for (i = 0; i < nr; i++) {
        put64(b, V(50 + i));
        if (rf & PERF_FORMAT_ID) put64(b, V(60 + i));
        if (rf & PERF_FORMAT_LOST) put64(b, V(70 + i));
    }
}

/* A SAMPLE with every field of st, in the order of spec 8.2. */
static void put_sample(buf *b, uint64_t st, uint64_t rf)
{
    size_t at = begin_record(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
    int i;

    if (st & PERF_SAMPLE_IDENTIFIER) put64(b, 7);
    if (st & PERF_SAMPLE_IP) put64(b, V(1));
    if (st & PERF_SAMPLE_TID) { put32(b, 1234); put32(b, 1235); }
    if (st & PERF_SAMPLE_TIME) put64(b, V(2));
    if (st & PERF_SAMPLE_ADDR) put64(b, V(3));
    if (st & PERF_SAMPLE_ID) put64(b, 7);
    if (st & PERF_SAMPLE_STREAM_ID) put64(b, V(4));
    if (st & PERF_SAMPLE_CPU) { put32(b, 3); put32(b, 0); }
    if (st & PERF_SAMPLE_PERIOD) put64(b, V(5));
    if (st & PERF_SAMPLE_READ) put_read(b, rf);
    if (st & PERF_SAMPLE_CALLCHAIN) { put64(b, 3); put64(b, (uint64_t)-512); put64(b, V(10)); put64(b, V(11)); }
    if (st & PERF_SAMPLE_RAW) { put32(b, 12); for (i = 0; i < 12; i++) put8(b, (uint8_t)i); }
    if (st & PERF_SAMPLE_BRANCH_STACK) {
        put64(b, 2); put64(b, V(12));
        for (i = 0; i < 2; i++) {
            put64(b, V(20 + i)); put64(b, V(22 + i));
            put64(b, b->swap ? branch_flags_be(0x1 | (6u << 20)) : 0x1 | (6u << 20));
        }
    }
    if (st & PERF_SAMPLE_REGS_USER) { put64(b, 2); put64(b, V(30)); put64(b, V(31)); put64(b, V(32)); }
    if (st & PERF_SAMPLE_STACK_USER) { put64(b, 16); for (i = 0; i < 16; i++) put8(b, (uint8_t)(0xa0 + i)); put64(b, 8); }
    if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) put64(b, V(6));
    if (st & PERF_SAMPLE_DATA_SRC) put64(b, V(7));
    if (st & PERF_SAMPLE_TRANSACTION) put64(b, V(8));
    if (st & PERF_SAMPLE_REGS_INTR) { put64(b, 2); put64(b, V(33)); put64(b, V(34)); }
    if (st & PERF_SAMPLE_PHYS_ADDR) put64(b, V(9));
    if (st & PERF_SAMPLE_CGROUP) put64(b, V(13));
    if (st & PERF_SAMPLE_DATA_PAGE_SIZE) put64(b, V(14));
    if (st & PERF_SAMPLE_CODE_PAGE_SIZE) put64(b, V(15));
    if (st & PERF_SAMPLE_AUX) { put64(b, 8); for (i = 0; i < 8; i++) put8(b, (uint8_t)(0x50 + i)); }
    finish_record(b, at);
}

static void check_read(const ps_read_values *r, uint64_t rf)
{
    uint64_t nr = (rf & PERF_FORMAT_GROUP) ? 2 : 1, i;

    CHECK(r->nr == nr);
    if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) CHECK(r->time_enabled == V(40));
    if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) CHECK(r->time_running == V(41));
    for (i = 0; i < nr && i < r->nr; i++) {
        CHECK(r->values[i].value == V(50 + i));
        CHECK(r->values[i].id == ((rf & PERF_FORMAT_ID) ? V(60 + i) : 0));
        CHECK(r->values[i].lost == ((rf & PERF_FORMAT_LOST) ? V(70 + i) : 0));
    }
}

static void check_sample(const ps_sample *s, uint64_t st, uint64_t rf)
{
    CHECK(s->sample_type == st);
    if (st & PERF_SAMPLE_IDENTIFIER) CHECK(s->identifier == 7);
    if (st & PERF_SAMPLE_IP) CHECK(s->ip == V(1));
    if (st & PERF_SAMPLE_TID) CHECK(s->pid == 1234 && s->tid == 1235);
    if (st & PERF_SAMPLE_TIME) CHECK(s->time == V(2));
    if (st & PERF_SAMPLE_ADDR) CHECK(s->addr == V(3));
    if (st & PERF_SAMPLE_ID) CHECK(s->id == 7);
    if (st & PERF_SAMPLE_STREAM_ID) CHECK(s->stream_id == V(4));
    if (st & PERF_SAMPLE_CPU) CHECK(s->cpu == 3);
    CHECK(s->period == ((st & PERF_SAMPLE_PERIOD) ? V(5) : 4000));
    if (st & PERF_SAMPLE_READ) check_read(&s->read, rf);
    if (st & PERF_SAMPLE_CALLCHAIN) {
        CHECK(s->nr_callchain == 3);
        CHECK(s->nr_callchain == 3 && s->callchain[0] == (uint64_t)-512 &&
              s->callchain[1] == V(10) && s->callchain[2] == V(11));
    }
    if (st & PERF_SAMPLE_RAW) CHECK(s->raw_size == 12 && s->raw_data[11] == 11);
    if (st & PERF_SAMPLE_BRANCH_STACK) {
        CHECK(s->nr_branches == 2 && s->has_hw_idx && s->hw_idx == V(12));
        CHECK(s->nr_branches == 2 && s->branches[1].from == V(21) && s->branches[1].to == V(23));
        CHECK(s->nr_branches == 2 && s->branches[0].flags == (0x1 | (6u << 20)));
    }
    if (st & PERF_SAMPLE_REGS_USER)
        CHECK(s->regs_user.abi == 2 && s->regs_user.nr == 3 && s->regs_user.regs[2] == V(32));
    if (st & PERF_SAMPLE_STACK_USER)
        CHECK(s->stack_size == 16 && s->stack_dyn_size == 8 && s->stack_data[15] == 0xaf);
    if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) CHECK(s->weight == V(6));
    if (st & PERF_SAMPLE_DATA_SRC) CHECK(s->data_src == V(7));
    if (st & PERF_SAMPLE_TRANSACTION) CHECK(s->transaction == V(8));
    if (st & PERF_SAMPLE_REGS_INTR)
        CHECK(s->regs_intr.abi == 2 && s->regs_intr.nr == 2 && s->regs_intr.regs[1] == V(34));
    if (st & PERF_SAMPLE_PHYS_ADDR) CHECK(s->phys_addr == V(9));
    if (st & PERF_SAMPLE_CGROUP) CHECK(s->cgroup == V(13));
    if (st & PERF_SAMPLE_DATA_PAGE_SIZE) CHECK(s->data_page_size == V(14));
    if (st & PERF_SAMPLE_CODE_PAGE_SIZE) CHECK(s->code_page_size == V(15));
    if (st & PERF_SAMPLE_AUX) CHECK(s->aux_size == 8 && s->aux_data[7] == 0x57);
}

/* Build a one-attr file holding one sample, decode it, check every field. */
static void roundtrip_sample(uint64_t st, uint64_t rf, int swap)
{
    ps_attr a = sample_attr(st, rf);
    uint64_t id = 7;
    int nr_ids = 1;
    buf data = { 0 }, file;
    ps_session *s;
    ps_event ev;
    ps_error err;

    data.swap = swap;
    put_sample(&data, st, rf);
    file = build_file(swap, &a, 1, &id, &nr_ids, &data);
    const char *path = write_temp(file.p, file.n);

    CHECK(ps_session_open(&s, path, NULL, &err) == PS_OK);
    if (s) {
        CHECK(ps_session_header(s)->swapped == swap);
        CHECK(ps_session_evsel(s, 0)->attr.sample_type == st);
        CHECK(ps_session_evsel(s, 0)->attr.flags == a.flags);
        CHECK(ps_session_next(&ev, s, &err) == PS_OK);
        CHECK(ev.type == PERF_RECORD_SAMPLE && ev.misc == PERF_RECORD_MISC_USER);
        if (ev.type == PERF_RECORD_SAMPLE)
            check_sample(&ev.u.sample, st, rf);
        CHECK(ps_session_next(&ev, s, &err) == PS_DONE);
        ps_session_close(s);
    }
    unlink(path);
    free(data.p);
    free(file.p);
}

static void test_every_sample_bit_alone(void)
{
    unsigned bit;
    int swap;

    for (swap = 0; swap < 2; swap++)
        for (bit = 0; bit < 25; bit++) {
            uint64_t st = UINT64_C(1) << bit;

            if (st == PERF_SAMPLE_WEIGHT_STRUCT || st == PERF_SAMPLE_WEIGHT ||
                st == PERF_SAMPLE_READ)
                st |= PERF_SAMPLE_IP;
            roundtrip_sample(st, PERF_FORMAT_ID, swap);
        }
}

static void test_all_sample_bits_together(void)
{
    uint64_t st = ALL_BITS & ~PERF_SAMPLE_WEIGHT;   /* WEIGHT xor WEIGHT_STRUCT */

    roundtrip_sample(st, PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID, 0);
    roundtrip_sample(st, PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID, 1);
    roundtrip_sample(ALL_BITS & ~PERF_SAMPLE_WEIGHT_STRUCT, 0, 1);
}

static void test_every_read_format(void)
{
    uint64_t rf;
    int swap;

    for (swap = 0; swap < 2; swap++)
        for (rf = 0; rf < 32; rf++)
            roundtrip_sample(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_READ, rf, swap);
}

/* A COMM with a full sample_id trailer, both byte orders. */
static void test_trailer(void)
{
    uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
    int swap;

    for (swap = 0; swap < 2; swap++) {
        ps_attr a = sample_attr(st, 0);
        uint64_t id = 9;
        int nr_ids = 1;
        buf data = { 0 }, file;
        ps_session *s;
        ps_event ev;
        ps_error err;
        size_t at;

        data.swap = swap;
        at = begin_record(&data, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
        put32(&data, 42); put32(&data, 43);
        buf_put(&data, "work\0\0\0\0", 8);
        put32(&data, 42); put32(&data, 43); put64(&data, V(1)); put64(&data, 9);
        put64(&data, V(2)); put32(&data, 1); put32(&data, 0); put64(&data, 9);
        finish_record(&data, at);
        file = build_file(swap, &a, 1, &id, &nr_ids, &data);
        const char *path = write_temp(file.p, file.n);

        CHECK(ps_session_open(&s, path, NULL, &err) == PS_OK);
        if (s) {
            CHECK(ps_session_next(&ev, s, &err) == PS_OK);
            CHECK(ev.type == PERF_RECORD_COMM && strcmp(ev.u.comm.comm, "work") == 0);
            CHECK(ev.u.comm.pid == 42 && ev.u.comm.tid == 43);
            CHECK(ev.has_sample_id && ev.sample_id.pid == 42 && ev.sample_id.tid == 43);
            CHECK(ev.sample_id.time == V(1) && ev.sample_id.id == 9);
            CHECK(ev.sample_id.stream_id == V(2) && ev.sample_id.cpu == 1);
            CHECK(ev.sample_id.identifier == 9);
            ps_session_close(s);
        }
        unlink(path);
        free(data.p);
        free(file.p);
    }
}

/* Every row of the record table decodes a generous zero body, and a body
 * shorter than the row's minimum is refused. */
static void test_every_record_type(void)
{
    uint32_t type;

    for (type = 1; type < PS_RECORD_MAX; type++) {
        ps_attr a = sample_attr(PERF_SAMPLE_IP, 0);
        buf data = { 0 }, file;
        ps_session *s;
        ps_event ev;
        ps_error err;
        size_t at;
        int i;

        if (ps_record_type_name(type) == NULL || type == PS_RECORD_COMPRESSED ||
            type == PS_RECORD_COMPRESSED2)
            continue;
        a.flags &= ~PS_ATTR_FLAG(PS_ATTR_SAMPLE_ID_ALL);
        at = begin_record(&data, type, 0);
        for (i = 0; i < 200; i++)
            put8(&data, 0);
        finish_record(&data, at);
        file = build_file(0, &a, 1, NULL, NULL, &data);
        const char *path = write_temp(file.p, file.n);

        CHECK(ps_session_open(&s, path, NULL, &err) == PS_OK);
        if (s) {
            int rc = ps_session_next(&ev, s, &err);

            if (rc != PS_OK)
                fprintf(stderr, "type %u: %s\n", type, err.msg);
            CHECK(rc == PS_OK && ev.type == type);
            ps_session_close(s);
        }
        unlink(path);
        free(data.p);
        free(file.p);
    }
}

/* Each shorter header.size, and each truncation of the file inside the
 * record, is an error at the record's offset; never a crash. */
static void test_truncations(void)
{
    uint64_t st = ALL_BITS & ~PERF_SAMPLE_WEIGHT;
    ps_attr a = sample_attr(st, PERF_FORMAT_ID);
    uint64_t id = 7;
    int nr_ids = 1, swap;

    for (swap = 0; swap < 2; swap++) {
        buf data = { 0 }, file;
        size_t full, n, rec_off;

        data.swap = swap;
        put_sample(&data, st, PERF_FORMAT_ID);
        full = data.n;
        file = build_file(swap, &a, 1, &id, &nr_ids, &data);
        rec_off = file.n - full;
        for (n = 0; n < full; n++) {
            ps_session *s;
            ps_event ev;
            ps_error err;
            const char *path;
            int rc;

            /* (1) the record claims n bytes */
            if (n >= 8) {
                patch16(&file, rec_off + 6, (uint16_t)n);
                path = write_temp(file.p, rec_off + n);
                /* keep the header's data.size consistent */
                if (ps_session_open(&s, path, NULL, &err) == PS_OK) {
                    rc = ps_session_next(&ev, s, &err);
                    CHECK(rc < 0);
                    ps_session_close(s);
                }
                unlink(path);
                patch16(&file, rec_off + 6, (uint16_t)full);
            }
            /* (2) the file ends after n bytes of the record */
            path = write_temp(file.p, rec_off + n);
            if (ps_session_open(&s, path, NULL, &err) == PS_OK) {
                rc = ps_session_next(&ev, s, &err);
                CHECK(n == 0 ? rc == PS_DONE : rc == PS_ETRUNC);
                CHECK(n == 0 || err.offset == rec_off);
                ps_session_close(s);
            }
            unlink(path);
        }
        free(data.p);
        free(file.p);
    }
}

/* A zero-size record must not loop: an error, and with keep_going the
 * reader resynchronises and still ends. */
static void test_zero_size_record(void)
{
    ps_attr a = sample_attr(PERF_SAMPLE_IP, 0);
    ps_open_opts o = PS_OPEN_OPTS_INIT;
    buf data = { 0 }, file;
    ps_session *s;
    ps_event ev;
    ps_error err;
    const char *path;
    int rc, n = 0;

    put32(&data, PERF_RECORD_SAMPLE); put16(&data, 0); put16(&data, 0);
    put64(&data, 0);
    begin_record(&data, PS_RECORD_FINISHED_ROUND, 0);
    patch16(&data, data.n - 2, 8);
    file = build_file(0, &a, 1, NULL, NULL, &data);
    path = write_temp(file.p, file.n);
    CHECK(ps_session_open(&s, path, NULL, &err) == PS_OK);
    if (s) {
        CHECK(ps_session_next(&ev, s, &err) == PS_ECORRUPT);
        CHECK(strstr(err.msg, "below 8") != NULL);
        ps_session_close(s);
    }
    o.keep_going = 1;
    CHECK(ps_session_open(&s, path, &o, &err) == PS_OK);
    if (s) {
        while ((rc = ps_session_next(&ev, s, &err)) == PS_OK && n < 100)
            n++;
        CHECK(rc == PS_DONE && n >= 1 && n < 100);
        CHECK(ps_session_nr_warnings(s) >= 1);
        ps_session_close(s);
    }
    unlink(path);
    free(data.p);
    free(file.p);
}

/* A sample with an id that no attr lists is refused; id 0 means attr 0. */
static void test_id_lookup(void)
{
    ps_attr a[2] = { sample_attr(PERF_SAMPLE_IP | PERF_SAMPLE_ID, 0),
                     sample_attr(PERF_SAMPLE_IP | PERF_SAMPLE_ID, 0) };
    uint64_t ids[2] = { 100, 200 };
    int nr_ids[2] = { 1, 1 };
    uint64_t want[3] = { 200, 0, 300 };
    int i;

    for (i = 0; i < 3; i++) {
        buf data = { 0 }, file;
        ps_session *s;
        ps_event ev;
        ps_error err;
        size_t at = begin_record(&data, PERF_RECORD_SAMPLE, 2);
        const char *path;
        int rc;

        put64(&data, 1); put64(&data, want[i]);
        finish_record(&data, at);
        file = build_file(0, a, 2, ids, nr_ids, &data);
        path = write_temp(file.p, file.n);
        CHECK(ps_session_open(&s, path, NULL, &err) == PS_OK);
        if (s) {
            rc = ps_session_next(&ev, s, &err);
            if (i == 0) CHECK(rc == PS_OK && ev.evsel == ps_session_evsel(s, 1));
            if (i == 1) CHECK(rc == PS_OK && ev.evsel == ps_session_evsel(s, 0));
            if (i == 2) CHECK(rc == PS_ECORRUPT && strstr(err.msg, "300") != NULL);
            ps_session_close(s);
        }
        unlink(path);
        free(data.p);
        free(file.p);
    }
}

static const struct harness_test tests[] = {
    TEST(test_every_sample_bit_alone),
    TEST(test_all_sample_bits_together),
    TEST(test_every_read_format),
    TEST(test_trailer),
    TEST(test_every_record_type),
    TEST(test_truncations),
    TEST(test_zero_size_record),
    TEST(test_id_lookup),
};

TEST_MAIN(tests)
