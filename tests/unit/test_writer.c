/* SPDX-License-Identifier: MIT */
/*
 * test_writer.c - unit tests of the perf.data writer (libparse/writer*.c):
 * what it writes in file mode, zstd mode and pipe mode reads back through
 * ps_session with the attrs, ids, names, features and records given; a
 * capture left unfinished (as by a SIGKILLed recorder) with a torn last
 * record is repaired into a terminated one, and only once. perf itself
 * reads the writer's output in tests/diff/record.sh.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"
#include "../../libparse/util.h"
#include "../../libparse/writer.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
                     PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

static const uint64_t ids_a[2] = { 101, 102 }, ids_b[2] = { 201, 202 };

static int tmp_fd(char *path)
{
    strcpy(path, "/tmp/perfsift-test-writer.XXXXXX");
    return mkstemp(path);
}

static void attr_init(struct perf_event_attr *a, uint64_t config, int first)
{
    memset(a, 0, sizeof(*a));
    a->type = PERF_TYPE_SOFTWARE;
    a->size = sizeof(*a);
    a->config = config;
    a->sample_period = 1000;
    a->sample_type = SAMPLE_TYPE;
    a->sample_id_all = 1;
    a->exclude_guest = 1;
    a->comm = a->mmap2 = a->task = first;
}

/* A SAMPLE of event id at time t. */
static void sample(uint8_t rec[48], uint64_t id, uint64_t t)
{
    struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 48 };
    uint64_t v[5] = { id, 0x401000 + t, ((uint64_t)42 << 32) | 42, t, 1000 };

    memcpy(rec, &h, 8);
    memcpy(rec + 8, v, sizeof(v));
}

/* COMM pid 42 "work" with a zero trailer (TID, TIME, IDENTIFIER). */
static void comm(uint8_t rec[48])
{
    struct perf_event_header h = { PERF_RECORD_COMM, 0, 48 };
    uint32_t pt[2] = { 42, 42 };

    memset(rec, 0, 48);
    memcpy(rec, &h, 8);
    memcpy(rec + 8, pt, 8);
    memcpy(rec + 16, "work", 5);
}

static ps_writer *writer_with_attrs(int fd, unsigned flags)
{
    struct perf_event_attr a, b;
    ps_writer *w = NULL;
    ps_error err;
    size_t len;
    uint8_t *host = ps_feat_string("testhost", &len);

    attr_init(&a, PERF_COUNT_SW_CPU_CLOCK, 1);
    attr_init(&b, PERF_COUNT_SW_TASK_CLOCK, 0);
    CHECK(ps_writer_open(&w, fd, flags, 1, &err) == PS_OK);
    CHECK(ps_writer_add_attr(w, &a, ids_a, 2, "cpu-clock", &err) == PS_OK);
    CHECK(ps_writer_add_attr(w, &b, ids_b, 2, "task-clock", &err) == PS_OK);
    CHECK(host != NULL && ps_writer_set_feature(w, PS_HEADER_HOSTNAME, host, len, &err) == PS_OK);
    free(host);
    return w;
}

/* nsamples samples after a COMM, a round every 100. */
static void write_records(ps_writer *w, unsigned nsamples)
{
    uint8_t rec[48];
    ps_error err;
    unsigned i;

    comm(rec);
    CHECK(ps_writer_write(w, rec, 48, &err) == PS_OK);
    for (i = 0; i < nsamples; i++) {
        sample(rec, i % 2 ? ids_b[i % 4 / 2] : ids_a[i % 4 / 2], 1000 + i);
        CHECK(ps_writer_write(w, rec, 48, &err) == PS_OK);
        if (i % 100 == 99)
            CHECK(ps_writer_round(w, &err) == PS_OK);
    }
}

typedef struct readback {
    unsigned samples, comms, rounds, other, per_evsel[2];
    int rc, evsels;
    char hostname[64], name0[64], name1[64];
} readback;

static readback read_back(const char *path)
{
    readback rb = { 0 };
    ps_session *s;
    ps_event ev;
    ps_error err;
    const ps_features *f;

    if (ps_session_open(&s, path, NULL, &err) < 0) {
        fprintf(stderr, "open %s: %s\n", path, err.msg);
        rb.rc = -100;
        return rb;
    }
    while ((rb.rc = ps_session_next(&ev, s, &err)) == PS_OK) {
        if (ev.type == PERF_RECORD_SAMPLE) {
            rb.samples++;
            if (ev.evsel == ps_session_evsel(s, 0))
                rb.per_evsel[0]++;
            else if (ev.evsel == ps_session_evsel(s, 1))
                rb.per_evsel[1]++;
        } else if (ev.type == PERF_RECORD_COMM) {
            rb.comms++;
        } else if (ev.type == PS_RECORD_FINISHED_ROUND) {
            rb.rounds++;
        } else if (ev.type != PS_RECORD_COMPRESSED) {
            rb.other++;
        }
    }
    if (rb.rc != PS_DONE)
        fprintf(stderr, "read %s: %s\n", path, err.msg);
    /* after the loop: a pipe stream's attrs and features are records */
    rb.evsels = (int)ps_session_nr_evsels(s);
    f = ps_session_features(s);
    snprintf(rb.hostname, sizeof(rb.hostname), "%s", f->hostname ? f->hostname : "");
    if (f->event_desc.nr == 2) {
        snprintf(rb.name0, sizeof(rb.name0), "%s", f->event_desc.events[0].name);
        snprintf(rb.name1, sizeof(rb.name1), "%s", f->event_desc.events[1].name);
    }

    ps_session_close(s);
    return rb;
}

static void check_readback(const readback *rb, unsigned n)
{
    CHECK(rb->rc == PS_DONE);
    CHECK(rb->evsels == 2);
    CHECK(rb->samples == n);
    CHECK(rb->per_evsel[0] == n / 2 && rb->per_evsel[1] == n / 2);
    CHECK(rb->comms == 1);
    CHECK(strcmp(rb->hostname, "testhost") == 0);
}

/* Finish w, close fd, read path back and check n samples. */
static readback finish_read(ps_writer *w, int fd, const char *path, unsigned n)
{
    ps_error err;
    readback rb;

    CHECK(ps_writer_finish(w, &err) == PS_OK);
    CHECK(ps_writer_bytes_out(w) > 0 && ps_writer_bytes_in(w) >= 48 * n);
    ps_writer_free(w);
    close(fd);
    rb = read_back(path);
    check_readback(&rb, n);
    return rb;
}

static void test_writer_file(void)
{
    char path[64];
    int fd = tmp_fd(path);
    ps_writer *w = writer_with_attrs(fd, 0);
    ps_error err;
    readback rb;
    uint8_t rec[48];

    comm(rec);
    CHECK(ps_writer_write(w, rec, 48, &err) < 0);       /* before begin */
    CHECK(ps_writer_begin(w, &err) == PS_OK);
    write_records(w, 400);
    rb = finish_read(w, fd, path, 400);
    CHECK(rb.rounds == 4);
    CHECK(strcmp(rb.name0, "cpu-clock") == 0 && strcmp(rb.name1, "task-clock") == 0);
    unlink(path);
}

/* Enough records to fill several 64 KiB chunks: COMPRESSED records split
 * records between them, and the COMPRESSED feature must be there. */
static void test_writer_zstd(void)
{
    char path[64];
    int fd = tmp_fd(path);
    ps_writer *w = writer_with_attrs(fd, PS_WRITER_ZSTD);
    ps_error err;
    ps_session *s;

    CHECK(ps_writer_begin(w, &err) == PS_OK);
    write_records(w, 6000);
    finish_read(w, fd, path, 6000);
    if (ps_session_open(&s, path, NULL, &err) == PS_OK) {
        const ps_features *f = ps_session_features(s);

        CHECK(ps_features_has(f, PS_HEADER_COMPRESSED));
        CHECK(f->compressed.type == 1 && f->compressed.mmap_len >= 65536);
        CHECK(f->compressed.ratio >= 2);    /* the records are much alike */
        ps_session_close(s);
    }
    unlink(path);
}

static void test_writer_pipe(void)
{
    char path[64];
    int fd = tmp_fd(path);
    ps_writer *w = writer_with_attrs(fd, PS_WRITER_PIPE);
    ps_error err;
    readback rb;

    CHECK(ps_writer_begin(w, &err) == PS_OK);
    CHECK(ps_writer_set_feature(w, PS_HEADER_ARCH, "x", 1, &err) < 0);   /* too late */
    write_records(w, 200);
    rb = finish_read(w, fd, path, 200);
    CHECK(strcmp(rb.name0, "cpu-clock") == 0);
    unlink(path);
}

/* A recorder killed mid-record: header data.size 0, a torn last record. */
static void test_writer_repair(void)
{
    char path[64];
    int fd = tmp_fd(path);
    ps_writer *w = writer_with_attrs(fd, 0);
    ps_repair_info info;
    ps_error err;
    uint8_t rec[48];
    readback rb;

    CHECK(ps_writer_begin(w, &err) == PS_OK);
    write_records(w, 300);
    CHECK(ps_writer_round(w, &err) == PS_OK);
    ps_writer_free(w);                          /* never finished */
    sample(rec, ids_a[0], 99999);
    CHECK(write(fd, rec, 20) == 20);            /* torn */
    close(fd);
    CHECK(ps_writer_repair_scan(path, &info, &err) == PS_OK);
    CHECK(info.records == 1 + 300 + 4 && info.dropped == 20 && !info.compressed);
    CHECK(ps_writer_repair(path, NULL, 0, &info, &err) == PS_OK);
    rb = read_back(path);
    CHECK(rb.rc == PS_DONE && rb.samples == 300 && rb.comms == 1 && rb.other == 0);
    CHECK(ps_writer_repair(path, NULL, 0, &info, &err) < 0);    /* terminated now */
    CHECK(strstr(err.msg, "already terminated") != NULL);
    unlink(path);
}

static void test_writer_feat_strings(void)
{
    const char *v[2] = { "a", "0123456789012345678901234567890123456789012345678901234567890123" };
    size_t len;
    uint8_t *b = ps_feat_string_list(v, 2, &len);
    uint32_t n;

    CHECK(b != NULL && len == 4 + 4 + 64 + 4 + 128);
    memcpy(&n, b + 4, 4);
    CHECK(n == 64);
    free(b);
}

static const struct harness_test tests[] = {
    TEST(test_writer_file),
    TEST(test_writer_zstd),
    TEST(test_writer_pipe),
    TEST(test_writer_repair),
    TEST(test_writer_feat_strings),
};
TEST_MAIN(tests)
