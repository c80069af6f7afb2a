/* SPDX-License-Identifier: MIT */
/*
 * test_compress.c - unit tests of compress.c (spec 11) with the system
 * libzstd: one stream compressed as perf does (ZSTD_compressStream +
 * ZSTD_flushStream per chunk, the frame never ended) and cut so records
 * straddle chunks, read back exactly through feed/peek/consume; one frame
 * per chunk; corrupt input; a chunk that inflates hugely never growing the
 * output buffer past about one step plus one record. End to end: a file
 * with COMPRESSED and COMPRESSED2 records, both byte orders, yields each
 * container then its inner records flagged PS_EVENT_IN_COMPRESSED with the
 * container's offset and their offset in the decompressed stream.
 */
#include <zstd.h>
#include "harness.h"
#include "builder.h"
#include "../../libparse/compress.h"

#define OFF 0x2000
/* compress.c inflates in steps of 128 KiB; records are at most 64 KiB; the
 * vector doubles, so one step plus one record rounds up to 256 KiB. */
#define OUT_BOUND ((size_t)256 * 1024)

typedef struct chunk { uint8_t *p; size_t n; } chunk;

/* Compress data[0..n) as one stream, flushed (not ended) at each cut. */
static size_t compress_chunks(chunk *out, const uint8_t *data, size_t n,
                              const size_t *cuts, size_t nr_cuts)
{
    ZSTD_CStream *cs = ZSTD_createCStream();
    size_t i, start = 0;

    ZSTD_initCStream(cs, 1);
    for (i = 0; i <= nr_cuts; i++) {
        size_t end = i < nr_cuts ? cuts[i] : n, cap = ZSTD_compressBound(end - start) + 64;
        ZSTD_inBuffer in = { data + start, end - start, 0 };
        ZSTD_outBuffer o;

        out[i].p = malloc(cap);
        o.dst = out[i].p;
        o.size = cap;
        o.pos = 0;
        while (in.pos < in.size)
            ZSTD_compressStream(cs, &o, &in);
        while (ZSTD_flushStream(cs, &o) > 0)
            ;
        out[i].n = o.pos;
        start = end;
    }
    ZSTD_freeCStream(cs);
    return nr_cuts + 1;
}

static void free_chunks(chunk *c, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        free(c[i].p);
}

/* Records: perf header (type = 100 + seq, misc 0, size), then bytes
 * (seq * 7 + i) & 0xff; sizes 8-aligned from 8 to max. */
static uint8_t *make_stream(size_t nr, size_t max, size_t *n_out)
{
    uint8_t *p = NULL;
    size_t n = 0, cap = 0, s;

    for (s = 0; s < nr; s++) {
        size_t size = 8 + ((s * 2654435761u) % (max / 8)) * 8, i;
        uint32_t type = (uint32_t)(100 + s);
        uint16_t misc = 0, sz = (uint16_t)size;

        if (n + size > cap) {
            cap = (n + size) * 2;
            p = realloc(p, cap);
        }
        memcpy(p + n, &type, 4);
        memcpy(p + n + 4, &misc, 2);
        memcpy(p + n + 6, &sz, 2);
        for (i = 8; i < size; i++)
            p[n + i] = (uint8_t)(s * 7 + i);
        n += size;
    }
    *n_out = n;
    return p;
}

/* Take every whole record the queued input holds; count those matching. */
static size_t drain(ps_zstream *z, size_t *seq, size_t *max_cap, int *bad)
{
    size_t got_records = 0;

    for (;;) {
        const uint8_t *p;
        ps_error err;
        int64_t got = ps_zstream__peek(z, 8, &p, &err);
        uint32_t type;
        uint16_t size;
        size_t i;

        if (got < 0) {
            *bad = 1;
            return got_records;
        }
        if (z->out_cap > *max_cap)
            *max_cap = z->out_cap;
        if (got < 8)
            return got_records;
        memcpy(&type, p, 4);
        memcpy(&size, p + 6, 2);
        if (type != 100 + *seq || size < 8) {
            *bad = 1;
            return got_records;
        }
        got = ps_zstream__peek(z, size, &p, &err);
        if (z->out_cap > *max_cap)
            *max_cap = z->out_cap;
        if (got < 0) {
            *bad = 1;
            return got_records;
        }
        if (got < size)
            return got_records;     /* the rest comes with the next chunk */
        if ((uintptr_t)p & 7)
            *bad = 1;
        for (i = 8; i < size; i++)
            if (p[i] != (uint8_t)(*seq * 7 + i))
                *bad = 1;
        ps_zstream__consume(z, size);
        (*seq)++;
        got_records++;
    }
}

/* One record stream cut at arbitrary points (never record boundaries),
 * chunks of 1 byte and of 200 KiB among them. */
static void test_records_straddle_chunks(void)
{
    size_t n, nr = 3000, seq = 0, max_cap = 0, i;
    uint8_t *data = make_stream(nr, 2048, &n);
    size_t cuts[12];
    chunk c[13];
    ps_zstream z;
    int bad = 0;

    cuts[0] = 5;
    cuts[1] = 6;                    /* a 1-byte chunk inside a header */
    cuts[2] = 4099;
    for (i = 3; i < 11; i++)
        cuts[i] = cuts[i - 1] + 1 + (i * 100003) % (n / 10);
    cuts[11] = cuts[10] + 200 * 1024 < n ? cuts[10] + 200 * 1024 : n - 3;
    for (i = 1; i < 12; i++)
        CHECK(cuts[i] > cuts[i - 1]);
    CHECK(cuts[11] < n);
    compress_chunks(c, data, n, cuts, 12);
    memset(&z, 0, sizeof(z));
    for (i = 0; i < 13; i++) {
        ps_error err;

        CHECK(!ps_zstream__has_input(&z));
        CHECK(ps_zstream__feed(&z, c[i].p, c[i].n, OFF + i, 0, &err) == PS_OK);
        CHECK(z.container_off == OFF + i);
        drain(&z, &seq, &max_cap, &bad);
        CHECK(!ps_zstream__has_input(&z));
    }
    CHECK(!bad);
    CHECK(seq == nr);
    CHECK(ps_zstream__pending(&z) == 0 && z.out_total == n);
    CHECK(max_cap <= OUT_BOUND);
    ps_zstream__free(&z);
    ps_zstream__free(&z);           /* twice is fine */
    free_chunks(c, 13);
    free(data);
}

/* Independent frames back to back are one stream too (spec 11.2). */
static void test_one_frame_per_chunk(void)
{
    size_t n, nr = 200, seq = 0, max_cap = 0, i, start = 0;
    uint8_t *data = make_stream(nr, 512, &n);
    ps_zstream z;
    int bad = 0;

    memset(&z, 0, sizeof(z));
    for (i = 0; i < 7; i++) {
        size_t end = i == 6 ? n : start + n / 7 + 3;
        size_t cap = ZSTD_compressBound(end - start);
        uint8_t *cbuf = malloc(cap);
        size_t cn = ZSTD_compress(cbuf, cap, data + start, end - start, 3);
        ps_error err;

        CHECK(!ZSTD_isError(cn));
        CHECK(ps_zstream__feed(&z, cbuf, cn, OFF, 0, &err) == PS_OK);
        free(cbuf);                 /* fed bytes are copied */
        drain(&z, &seq, &max_cap, &bad);
        start = end;
    }
    CHECK(!bad && seq == nr && ps_zstream__pending(&z) == 0);
    ps_zstream__free(&z);
    free(data);
}

/* Garbage, and a block of the reserved type after a good chunk, are
 * PS_ECORRUPT naming the container's offset; never a crash. */
static void test_corrupt_chunk(void)
{
    static const uint8_t garbage[16] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4,
                                         5, 6, 7, 8, 9, 10, 11, 12 };
    static const uint8_t reserved_block[8] = { 0xff, 0xff, 0xff, 0xff,
                                               0xff, 0xff, 0xff, 0xff };
    size_t n, cut = 3000, seq = 0, max_cap = 0;
    uint8_t *data = make_stream(100, 256, &n);
    const uint8_t *p;
    chunk c[2];
    ps_zstream z;
    ps_error err;
    int bad = 0;

    memset(&z, 0, sizeof(z));
    CHECK(ps_zstream__feed(&z, garbage, sizeof(garbage), 0x777, 0, &err) == PS_OK);
    memset(&err, 0, sizeof(err));
    CHECK(ps_zstream__peek(&z, 8, &p, &err) == PS_ECORRUPT);
    CHECK(err.code == PS_ECORRUPT && err.offset == 0x777);
    CHECK(strstr(err.msg, "zstd") != NULL);
    ps_zstream__free(&z);

    compress_chunks(c, data, n, &cut, 1);
    memset(&z, 0, sizeof(z));
    CHECK(ps_zstream__feed(&z, c[0].p, c[0].n, 0x100, 0, &err) == PS_OK);
    drain(&z, &seq, &max_cap, &bad);
    CHECK(!bad && seq > 0);
    CHECK(ps_zstream__feed(&z, reserved_block, sizeof(reserved_block), 0x900, 0, &err) == PS_OK);
    memset(&err, 0, sizeof(err));
    CHECK(ps_zstream__peek(&z, 4096, &p, &err) == PS_ECORRUPT && err.offset == 0x900);
    ps_zstream__free(&z);

    /* a chunk cut in two runs dry after the first half, then goes on */
    memset(&z, 0, sizeof(z));
    seq = 0;
    CHECK(ps_zstream__feed(&z, c[0].p, c[0].n / 2, 0x100, 0, &err) == PS_OK);
    drain(&z, &seq, &max_cap, &bad);
    CHECK(!bad && !ps_zstream__has_input(&z));
    CHECK(ps_zstream__feed(&z, c[0].p + c[0].n / 2, c[0].n - c[0].n / 2, 0x108, 0, &err) == PS_OK);
    drain(&z, &seq, &max_cap, &bad);
    CHECK(ps_zstream__feed(&z, c[1].p, c[1].n, 0x110, 0, &err) == PS_OK);
    drain(&z, &seq, &max_cap, &bad);
    CHECK(!bad && seq == 100 && ps_zstream__pending(&z) == 0);
    ps_zstream__free(&z);
    free_chunks(c, 2);
    free(data);
}

/* 64 KiB records of zeros compress to a few bytes each: feeding one such
 * chunk after another, or one chunk holding 32 MiB of them, keeps the
 * output buffer at one step plus one record. */
static void test_inflation_bounded(void)
{
    enum { REC = 65528, NR = 512 };
    uint8_t *rec = calloc(1, REC), *big;
    uint32_t type = 100;
    uint16_t size = REC;
    size_t max_cap = 0, i, total = 0, cut;
    chunk c[2];
    ps_zstream z;
    ps_error err;
    int bad = 0;

    memcpy(rec, &type, 4);
    memcpy(rec + 6, &size, 2);
    /* (a) one record per chunk, fed repeatedly through one stream */
    {
        ZSTD_CStream *cs = ZSTD_createCStream();
        uint8_t cbuf[4096];

        ZSTD_initCStream(cs, 1);
        memset(&z, 0, sizeof(z));
        for (i = 0; i < NR; i++) {
            ZSTD_inBuffer in = { rec, REC, 0 };
            ZSTD_outBuffer o = { cbuf, sizeof(cbuf), 0 };
            const uint8_t *p;

            while (in.pos < in.size)
                ZSTD_compressStream(cs, &o, &in);
            while (ZSTD_flushStream(cs, &o) > 0)
                ;
            if (i == 1)
                CHECK(o.pos < 64);
            CHECK(ps_zstream__feed(&z, cbuf, o.pos, OFF, 0, &err) == PS_OK);
            CHECK(ps_zstream__peek(&z, 8, &p, &err) == 8);
            CHECK(ps_zstream__peek(&z, REC, &p, &err) == REC);
            ps_zstream__consume(&z, REC);
            total += REC;
            if (z.out_cap > max_cap)
                max_cap = z.out_cap;
        }
        ZSTD_freeCStream(cs);
        CHECK(z.out_total == total && max_cap <= OUT_BOUND);
        ps_zstream__free(&z);
    }
    /* (b) one small chunk inflating to 32 MiB */
    big = malloc((size_t)NR * REC);
    for (i = 0; i < NR; i++) {
        uint32_t t = (uint32_t)(100 + i);

        memcpy(big + i * REC, rec, REC);
        memcpy(big + i * REC, &t, 4);
    }
    cut = (size_t)NR * REC - 1;
    compress_chunks(c, big, (size_t)NR * REC, &cut, 1);
    CHECK(c[0].n < (size_t)NR * REC / 100);
    memset(&z, 0, sizeof(z));
    max_cap = 0;
    {
        size_t seq = 0;

        CHECK(ps_zstream__feed(&z, c[0].p, c[0].n, OFF, 0, &err) == PS_OK);
        /* drain() checks the pattern (seq * 7 + i): zero bodies differ, so
         * read by hand */
        for (;;) {
            const uint8_t *p;
            uint32_t t;

            if (ps_zstream__peek(&z, 8, &p, &err) < 8)
                break;
            memcpy(&t, p, 4);
            if (t != 100 + seq)
                bad = 1;
            if (ps_zstream__peek(&z, REC, &p, &err) < REC)
                break;
            ps_zstream__consume(&z, REC);
            seq++;
            if (z.out_cap > max_cap)
                max_cap = z.out_cap;
        }
        CHECK(!bad && seq == NR - 1);     /* the last one needs chunk 2 */
        CHECK(ps_zstream__pending(&z) > 0 && ps_zstream__pending(&z) < REC);
        CHECK(ps_zstream__feed(&z, c[1].p, c[1].n, OFF + 1, 0, &err) == PS_OK);
        {
            const uint8_t *p;

            CHECK(ps_zstream__peek(&z, REC, &p, &err) == REC);
            ps_zstream__consume(&z, REC);
        }
        CHECK(max_cap <= OUT_BOUND && z.out_cap <= OUT_BOUND);
        CHECK(z.out_total == (uint64_t)NR * REC);
    }
    ps_zstream__free(&z);
    free_chunks(c, 2);
    free(big);
    free(rec);
}

/* reset starts a new stream: a second data file's first chunk decodes
 * after the first file's stream ended mid-record. */
static void test_reset(void)
{
    size_t n, cut, seq = 0, max_cap = 0;
    uint8_t *data = make_stream(50, 512, &n);
    chunk c[2];
    ps_zstream z;
    ps_error err;
    int bad = 0;

    cut = n / 2 + 3;
    compress_chunks(c, data, n, &cut, 1);
    memset(&z, 0, sizeof(z));
    CHECK(ps_zstream__feed(&z, c[0].p, c[0].n, OFF, 0, &err) == PS_OK);
    drain(&z, &seq, &max_cap, &bad);
    CHECK(ps_zstream__pending(&z) > 0);
    ps_zstream__reset(&z);
    CHECK(ps_zstream__pending(&z) == 0 && !ps_zstream__has_input(&z));
    seq = 0;
    CHECK(ps_zstream__feed(&z, c[0].p, c[0].n, OFF, 0, &err) == PS_OK);
    drain(&z, &seq, &max_cap, &bad);
    CHECK(ps_zstream__feed(&z, c[1].p, c[1].n, OFF, 0, &err) == PS_OK);
    drain(&z, &seq, &max_cap, &bad);
    CHECK(!bad && seq == 50);
    ps_zstream__free(&z);
    free_chunks(c, 2);
    free(data);
}

/* --- end to end ------------------------------------------------------------------ */

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

static void put_sample(buf *b, uint64_t ip)
{
    size_t at = begin_record(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

    put64(b, ip); put32(b, 5); put32(b, 6); put64(b, ip * 10);
    finish_record(b, at);
}

/* data: COMPRESSED [S1 S2 first 8 bytes of S3], FINISHED_ROUND,
 * COMPRESSED2 [rest of S3, S4, FINISHED_ROUND], S5. */
static void test_session_compressed(void)
{
    int swap;

    for (swap = 0; swap < 2; swap++) {
        ps_attr a;
        buf inner = { 0 }, data = { 0 }, file;
        size_t cut, at, c1_off, c2_off, s5_off, i;
        chunk c[2];
        ps_session *s;
        ps_event ev;
        ps_error err;

        memset(&a, 0, sizeof(a));
        a.type = PERF_TYPE_SOFTWARE;
        a.sample_type = ST;
        a.sample_period = 1;
        inner.swap = data.swap = swap;
        put_sample(&inner, 1);
        put_sample(&inner, 2);
        put_sample(&inner, 3);
        put_sample(&inner, 4);
        finish_record(&inner, begin_record(&inner, PS_RECORD_FINISHED_ROUND, 0));
        cut = 2 * 32 + 8;
        compress_chunks(c, inner.p, inner.n, &cut, 1);

        c1_off = data.n;
        at = begin_record(&data, PS_RECORD_COMPRESSED, 0);
        buf_put(&data, c[0].p, c[0].n);
        finish_record(&data, at);
        finish_record(&data, begin_record(&data, PS_RECORD_FINISHED_ROUND, 0));
        c2_off = data.n;
        at = begin_record(&data, PS_RECORD_COMPRESSED2, 0);
        put64(&data, c[1].n);
        buf_put(&data, c[1].p, c[1].n);
        while ((data.n - at) % 8)
            put8(&data, 0);
        finish_record(&data, at);
        s5_off = data.n;
        put_sample(&data, 5);
        file = build_file(swap, &a, 1, NULL, NULL, &data);
        const char *path = write_temp(file.p, file.n);
        size_t base = file.n - data.n;

        CHECK(ps_session_open(&s, path, NULL, &err) == PS_OK);
        if (s) {
            /* type, IN_COMPRESSED, offset, inner offset, ip (samples) */
            const struct { uint32_t type; int nested; size_t off, inner; uint64_t ip; } want[] = {
                { PS_RECORD_COMPRESSED,     0, c1_off, 0, 0 },
                { PERF_RECORD_SAMPLE,       1, c1_off, 0, 1 },
                { PERF_RECORD_SAMPLE,       1, c1_off, 32, 2 },
                { PS_RECORD_FINISHED_ROUND, 0, c1_off + 8 + c[0].n, 0, 0 },
                { PS_RECORD_COMPRESSED2,    0, c2_off, 0, 0 },
                { PERF_RECORD_SAMPLE,       1, c2_off, 64, 3 },
                { PERF_RECORD_SAMPLE,       1, c2_off, 96, 4 },
                { PS_RECORD_FINISHED_ROUND, 1, c2_off, 128, 0 },
                { PERF_RECORD_SAMPLE,       0, s5_off, 0, 5 },
            };
            int rc = PS_OK;

            for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
                rc = ps_session_next(&ev, s, &err);
                CHECK(rc == PS_OK);
                if (rc != PS_OK) {
                    fprintf(stderr, "  swap %d record %zu: %s\n", swap, i, err.msg);
                    break;
                }
                CHECK(ev.type == want[i].type);
                CHECK(!!(ev.flags & PS_EVENT_IN_COMPRESSED) == want[i].nested);
                CHECK(ev.offset == base + want[i].off);
                CHECK(ev.inner_offset == want[i].inner);
                CHECK(ev.index == i);
                CHECK(((uintptr_t)ev.raw & 7) == 0);
                if (ev.type == PERF_RECORD_SAMPLE)
                    CHECK(ev.u.sample.ip == want[i].ip && ev.u.sample.time == want[i].ip * 10 &&
                          ev.u.sample.pid == 5 && ev.u.sample.tid == 6);
                if (ev.type == PS_RECORD_COMPRESSED2)
                    CHECK(ev.u.compressed.data_size == c[1].n);
                if (ev.type == PS_RECORD_COMPRESSED)
                    CHECK(ev.u.compressed.data_size == c[0].n &&
                          memcmp(ev.u.compressed.data, c[0].p, c[0].n) == 0);
            }
            if (rc == PS_OK)
                CHECK(ps_session_next(&ev, s, &err) == PS_DONE);
            CHECK(ps_session_nr_warnings(s) == (uint64_t)swap);
            ps_session_close(s);
        }
        unlink(path);
        free_chunks(c, 2);
        free(inner.p);
        free(data.p);
        free(file.p);
    }
}

/* A corrupt COMPRESSED payload is an error naming the container's offset;
 * a COMPRESSED2 whose data_size overruns its record is refused. */
static void test_session_corrupt(void)
{
    /* not a zstd frame magic */
    static const uint8_t junk[13] = { 0x29, 0xb5, 0x2f, 0xfd, 0xff, 0xff, 0xff, 0xff,
                                      0xff, 0xff, 0xff, 0xff, 0xff };
    int kind;

    for (kind = 0; kind < 2; kind++) {
        ps_attr a;
        buf data = { 0 }, file;
        size_t at;
        ps_session *s;
        ps_event ev;
        ps_error err;
        int rc;

        memset(&a, 0, sizeof(a));
        a.type = PERF_TYPE_SOFTWARE;
        a.sample_type = ST;
        if (kind == 0) {
            at = begin_record(&data, PS_RECORD_COMPRESSED, 0);
            buf_put(&data, junk, sizeof(junk));
        } else {
            at = begin_record(&data, PS_RECORD_COMPRESSED2, 0);
            put64(&data, 100);
            buf_put(&data, junk, 8);
        }
        finish_record(&data, at);
        file = build_file(0, &a, 1, NULL, NULL, &data);
        const char *path = write_temp(file.p, file.n);

        CHECK(ps_session_open(&s, path, NULL, &err) == PS_OK);
        if (s) {
            rc = ps_session_next(&ev, s, &err);
            if (kind == 0) {
                CHECK(rc == PS_OK && ev.type == PS_RECORD_COMPRESSED);
                rc = ps_session_next(&ev, s, &err);
                CHECK(rc == PS_ECORRUPT);
                CHECK(err.offset == file.n - data.n);
                CHECK(strstr(err.msg, "in frame") != NULL);
            } else {
                CHECK(rc == PS_ECORRUPT && strstr(err.msg, "data_size") != NULL);
            }
            ps_session_close(s);
        }
        unlink(path);
        free(data.p);
        free(file.p);
    }
}

static const struct harness_test tests[] = {
    TEST(test_records_straddle_chunks),
    TEST(test_one_frame_per_chunk),
    TEST(test_corrupt_chunk),
    TEST(test_inflation_bounded),
    TEST(test_reset),
    TEST(test_session_compressed),
    TEST(test_session_corrupt),
};

TEST_MAIN(tests)
