/* SPDX-License-Identifier: MIT */
/*
 * test_order.c - unit tests of order.c (spec 12): push/flush/pop keep equal
 * times in arrival order, a flush releases only up to its limit, delivered
 * records are compacted away and freed (leaks show under `make check
 * SANITIZE=1`), late records are counted; and through ps_session_next with
 * ps_open_opts.ordered on hand-made files in both byte orders: samples in
 * reverse order over two FINISHED_ROUNDs, untimed records delivered at once,
 * and perf's file-order fallback without sample_id_all.
 */
#include "harness.h"
#include "builder.h"
#include "../../libparse/order.h"

/* Queue a record of `size` bytes whose bytes all equal `tag`. */
static int push(ps_order *o, uint64_t time, uint8_t tag, uint16_t size)
{
    uint8_t bytes[256];
    ps_queued meta;
    ps_error err;

    memset(&meta, 0, sizeof(meta));
    meta.time = time;
    meta.off = 0x1000 + tag;
    meta.type = PERF_RECORD_SAMPLE;
    meta.size = size;
    memset(bytes, tag, sizeof(bytes));
    return ps_order__push(o, &meta, bytes, 0, &err);
}

/* Pop everything due; write the tags into out, return how many. */
static size_t pop_all(ps_order *o, uint8_t *out, size_t max)
{
    ps_queued *q;
    size_t n = 0;

    while ((q = ps_order__pop(o)) != NULL) {
        size_t i;
        int same = 1;

        for (i = 0; i < q->size; i++)
            if (q->bytes[i] != q->bytes[0])
                same = 0;
        CHECK(same && q->off == 0x1000u + q->bytes[0]);
        if (n < max)
            out[n] = q->bytes[0];
        n++;
    }
    return n;
}

static void test_stable_for_equal_times(void)
{
    static const struct { uint64_t t; uint8_t tag; } in[] = {
        { 5, 'a' }, { 3, 'b' }, { 5, 'c' }, { 3, 'd' }, { 1, 'e' }, { 5, 'f' },
        { 3, 'g' }, { 9, 'h' }, { 1, 'i' },
    };
    ps_order o;
    uint8_t out[16];
    size_t i, n;

    memset(&o, 0, sizeof(o));
    for (i = 0; i < sizeof(in) / sizeof(in[0]); i++)
        CHECK(push(&o, in[i].t, in[i].tag, (uint16_t)(8 + 8 * i)) == PS_OK);
    CHECK(o.max_time == 9);
    CHECK(ps_order__pop(&o) == NULL);       /* nothing due before a flush */
    ps_order__flush(&o, UINT64_MAX);
    n = pop_all(&o, out, sizeof(out));
    CHECK(n == 9 && memcmp(out, "eibdgacfh", 9) == 0);
    CHECK(o.nr_out_of_order == 0);
    ps_order__free(&o);
}

/* Equal times pushed in two rounds still come out in arrival order. */
static void test_stable_across_flushes(void)
{
    ps_order o;
    uint8_t out[8];

    memset(&o, 0, sizeof(o));
    push(&o, 7, 'a', 8);
    push(&o, 7, 'b', 8);
    push(&o, 8, 'x', 8);
    ps_order__flush(&o, 6);
    CHECK(pop_all(&o, out, 8) == 0);
    push(&o, 7, 'c', 8);
    ps_order__flush(&o, 7);
    CHECK(pop_all(&o, out, 8) == 3 && memcmp(out, "abc", 3) == 0);
    ps_order__flush(&o, UINT64_MAX);
    CHECK(pop_all(&o, out, 8) == 1 && out[0] == 'x');
    ps_order__free(&o);
}

/* A flush makes due only what is <= its limit; later pushes wait for the
 * next flush even when older than what is due. */
static void test_rounds_release_up_to_limit(void)
{
    ps_order o;
    uint8_t out[8];

    memset(&o, 0, sizeof(o));
    push(&o, 10, 'A', 16);
    push(&o, 30, 'C', 16);
    push(&o, 20, 'B', 16);
    ps_order__flush(&o, 20);
    CHECK(o.nr_ready == 2);
    CHECK(pop_all(&o, out, 8) == 2 && memcmp(out, "AB", 2) == 0);
    push(&o, 15, 'b', 16);          /* older than what was delivered */
    push(&o, 40, 'D', 16);
    CHECK(pop_all(&o, out, 8) == 0);
    ps_order__flush(&o, 30);
    CHECK(pop_all(&o, out, 8) == 2 && memcmp(out, "bC", 2) == 0);
    CHECK(o.nr_out_of_order == 1);
    ps_order__flush(&o, 39);
    CHECK(pop_all(&o, out, 8) == 0);
    ps_order__flush(&o, 40);
    CHECK(pop_all(&o, out, 8) == 1 && out[0] == 'D');
    /* everything delivered and compacted away at the next flush */
    ps_order__flush(&o, UINT64_MAX);
    CHECK(o.nr == 0 && o.ready == 0 && o.nr_ready == 0);
    CHECK(ps_order__pop(&o) == NULL);
    ps_order__free(&o);
}

/* The record handed out stays valid until the next pop, including while
 * new records are pushed (the queue may be reallocated). */
static void test_popped_record_survives_push(void)
{
    ps_order o;
    ps_queued *q;
    int i;

    memset(&o, 0, sizeof(o));
    push(&o, 1, 'p', 64);
    ps_order__flush(&o, 1);
    q = ps_order__pop(&o);
    CHECK(q != NULL);
    if (q) {
        uint8_t *bytes = q->bytes;

        for (i = 0; i < 1000; i++)
            push(&o, 100 + (uint64_t)i, 'q', 8);
        CHECK(bytes[0] == 'p' && bytes[63] == 'p');
    }
    ps_order__flush(&o, UINT64_MAX);
    CHECK(pop_all(&o, (uint8_t[4]){ 0 }, 0) == 1000);
    ps_order__free(&o);
}

/* Many records, partly delivered: everything is freed by ps_order__free
 * (the sanitizer build checks for leaks), and delivered records do not
 * accumulate in the queue. */
static void test_memory_freed(void)
{
    ps_order o;
    uint8_t out[1];
    int round, i;

    memset(&o, 0, sizeof(o));
    for (round = 0; round < 20; round++) {
        for (i = 0; i < 500; i++)
            CHECK(push(&o, (uint64_t)(round * 1000 + (i * 7919) % 500), 'm',
                       (uint16_t)(8 + (i % 31) * 8)) == PS_OK);
        ps_order__flush(&o, (uint64_t)(round * 1000 + 250));
        pop_all(&o, out, 0);
        CHECK(o.nr <= 1000);
    }
    /* half of the last round due but not popped, the rest waiting */
    ps_order__flush(&o, UINT64_MAX);
    ps_order__pop(&o);
    ps_order__pop(&o);
    ps_order__free(&o);
    CHECK(o.q == NULL && o.nr == 0 && o.cap == 0);
    ps_order__free(&o);     /* idempotent */

    /* zero-size records and an empty queue */
    memset(&o, 0, sizeof(o));
    ps_order__flush(&o, UINT64_MAX);
    CHECK(ps_order__pop(&o) == NULL);
    CHECK(push(&o, 5, 'z', 0) == PS_OK);
    ps_order__flush(&o, UINT64_MAX);
    CHECK(ps_order__pop(&o) != NULL);
    ps_order__free(&o);
}

/* --- through the session ------------------------------------------------------ */

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

static void put_sample(buf *b, uint64_t time)
{
    size_t at = begin_record(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

    put64(b, 0x400000 + time); put32(b, 7); put32(b, 7); put64(b, time);
    finish_record(b, at);
}

static void put_round(buf *b)
{
    finish_record(b, begin_record(b, PS_RECORD_FINISHED_ROUND, 0));
}

/* A synthesized COMM: all-zero trailer, so no time (delivered at once). */
static void put_comm(buf *b, uint64_t time)
{
    size_t at = begin_record(b, PERF_RECORD_COMM, 0);

    put32(b, 7); put32(b, 7); buf_put(b, "prog\0\0\0\0", 8);
    put32(b, 7); put32(b, 7); put64(b, time);
    finish_record(b, at);
}

/* One delivered record: 'R' round, 'C' COMM, else the sample's time. */
static int read_all(const char *path, int ordered, int sample_id_all, uint64_t *out, int max,
                    uint64_t *offsets, uint64_t *warnings)
{
    ps_open_opts o = PS_OPEN_OPTS_INIT;
    ps_session *s;
    ps_event ev;
    ps_error err;
    int rc, n = 0;

    o.ordered = ordered;
    if (ps_session_open(&s, path, &o, &err) < 0)
        return -1;
    while ((rc = ps_session_next(&ev, s, &err)) == PS_OK) {
        if (n < max) {
            out[n] = ev.type == PERF_RECORD_SAMPLE ? ev.u.sample.time
                   : ev.type == PERF_RECORD_COMM ? 'C' : 'R';
            offsets[n] = ev.offset;
            CHECK(ev.index == (uint64_t)n);
            if (ev.type == PERF_RECORD_SAMPLE)
                CHECK(ev.u.sample.ip == 0x400000 + ev.u.sample.time &&
                      ev.u.sample.pid == 7 && ev.evsel == ps_session_evsel(s, 0));
            if (ev.type == PERF_RECORD_COMM)
                CHECK(strcmp(ev.u.comm.comm, "prog") == 0 &&
                      ev.has_sample_id == sample_id_all);
        }
        n++;
    }
    CHECK(rc == PS_DONE);
    *warnings = ps_session_nr_warnings(s);
    ps_session_close(s);
    return n;
}

static const char *ordered_file(int swap, int sample_id_all, buf *file, size_t *data_off)
{
    ps_attr a;
    buf data = { 0 };

    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_SOFTWARE;
    a.sample_type = ST;
    a.sample_period = 1;
    a.flags = sample_id_all ? PS_ATTR_FLAG(PS_ATTR_SAMPLE_ID_ALL) : 0;
    data.swap = swap;
    put_sample(&data, 30);
    put_sample(&data, 10);
    put_round(&data);
    put_comm(&data, 0);
    put_sample(&data, 25);
    put_sample(&data, 50);
    put_sample(&data, 40);
    put_round(&data);
    *file = build_file(swap, &a, 1, NULL, NULL, &data);
    *data_off = file->n - data.n;
    free(data.p);
    return write_temp(file->p, file->n);
}

/* Round 1 holds 30, 10; round 2 holds 25, 50, 40. The first round flushes
 * nothing (no previous maximum), the second up to 30 (round 1's maximum,
 * taking 25 from round 2 along), the end the rest. */
static void test_session_ordered(void)
{
    static const uint64_t want[] = { 'R', 'C', 'R', 10, 25, 30, 40, 50 };
    /* record sizes: sample 32, round 8, COMM 40 */
    static const uint64_t want_off[] = { 64, 72, 208, 32, 112, 0, 176, 144 };
    int swap;

    for (swap = 0; swap < 2; swap++) {
        uint64_t got[16], off[16], warnings;
        size_t data_off, i;
        buf file;
        const char *path = ordered_file(swap, 1, &file, &data_off);
        int n = read_all(path, 1, 1, got, 16, off, &warnings);

        CHECK(n == 8);
        for (i = 0; i < 8 && (int)i < n; i++) {
            if (got[i] != want[i])
                fprintf(stderr, "  swap %d: record %zu is %llu, want %llu\n", swap, i,
                        (unsigned long long)got[i], (unsigned long long)want[i]);
            CHECK(got[i] == want[i]);
            CHECK(off[i] == data_off + want_off[i]);
        }
        /* other-endian: an empty bitmap reads as BUILD_ID only (perf's rule,
         * spec 4.2), whose table entry is missing: one warning */
        CHECK(warnings == (uint64_t)swap);
        /* unordered: file order */
        n = read_all(path, 0, 1, got, 16, off, &warnings);
        CHECK(n == 8 && got[0] == 30 && got[1] == 10 && got[2] == 'R' && got[3] == 'C' &&
              got[4] == 25 && got[5] == 50 && got[6] == 40 && got[7] == 'R');
        unlink(path);
        free(file.p);
    }
}

/* Without sample_id_all perf falls back to file order, with a warning. */
static void test_session_no_sample_id_all(void)
{
    uint64_t got[16], off[16], warnings;
    size_t data_off;
    buf file;
    const char *path = ordered_file(0, 0, &file, &data_off);
    int n = read_all(path, 1, 0, got, 16, off, &warnings);

    CHECK(n == 8 && got[0] == 30 && got[1] == 10 && got[2] == 'R' && got[4] == 25);
    CHECK(warnings >= 1);
    unlink(path);
    free(file.p);
}

/* A directory capture (spec 13) read in time order: a record released
 * from an earlier file must not change which file the records read after
 * it are said to come from. data: S10; data.0: S5, FINISHED_ROUND x2, S30. */
static void test_session_ordered_directory(void)
{
    char dir[] = "/tmp/perfsift-unit-dir-XXXXXX", p[96];
    ps_open_opts o = PS_OPEN_OPTS_INIT;
    buf data = { 0 }, d0 = { 0 }, file;
    ps_session *s;
    ps_event ev;
    ps_error err;
    ps_attr a;
    FILE *fp;
    int rc, n = 0;
    struct { uint64_t time; int file_index; } got[8];

    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_SOFTWARE;
    a.sample_type = ST;
    a.flags = PS_ATTR_FLAG(PS_ATTR_SAMPLE_ID_ALL);
    put_sample(&data, 10);
    file = build_file(0, &a, 1, NULL, NULL, &data);
    put_sample(&d0, 5);
    put_round(&d0);
    put_round(&d0);
    put_sample(&d0, 30);
    CHECK(mkdtemp(dir) != NULL);
    snprintf(p, sizeof(p), "%s/data", dir);
    fp = fopen(p, "wb");
    CHECK(fp && fwrite(file.p, 1, file.n, fp) == file.n);
    if (fp)
        fclose(fp);
    snprintf(p, sizeof(p), "%s/data.0", dir);
    fp = fopen(p, "wb");
    CHECK(fp && fwrite(d0.p, 1, d0.n, fp) == d0.n);
    if (fp)
        fclose(fp);

    o.ordered = 1;
    CHECK(ps_session_open(&s, dir, &o, &err) == PS_OK);
    if (s) {
        while ((rc = ps_session_next(&ev, s, &err)) == PS_OK)
            if (ev.type == PERF_RECORD_SAMPLE && n < 8) {
                got[n].time = ev.u.sample.time;
                got[n].file_index = ev.file_index;
                CHECK(!!(ev.flags & PS_EVENT_FROM_DIR) == (ev.file_index >= 0));
                n++;
            }
        CHECK(rc == PS_DONE && n == 3);
        CHECK(n == 3 && got[0].time == 5 && got[0].file_index == 0);
        CHECK(n == 3 && got[1].time == 10 && got[1].file_index == -1);
        CHECK(n == 3 && got[2].time == 30 && got[2].file_index == 0);
        ps_session_close(s);
    }
    unlink(p);
    snprintf(p, sizeof(p), "%s/data", dir);
    unlink(p);
    rmdir(dir);
    free(data.p);
    free(d0.p);
    free(file.p);
}

static const struct harness_test tests[] = {
    TEST(test_stable_for_equal_times),
    TEST(test_stable_across_flushes),
    TEST(test_rounds_release_up_to_limit),
    TEST(test_popped_record_survives_push),
    TEST(test_memory_freed),
    TEST(test_session_ordered),
    TEST(test_session_no_sample_id_all),
    TEST(test_session_ordered_directory),
};

TEST_MAIN(tests)
