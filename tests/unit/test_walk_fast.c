/* SPDX-License-Identifier: MIT */
/*
 * test_walk_fast.c - cmd/walk_fast.c against ps_session_next() on a
 * built capture large enough for its reader thread and for the window to
 * be compacted and grown while the reader is ahead: the same records in
 * the same order (file offsets), in time order and in file order; a cut
 * capture ends the fast loop with WALK_FAST_RETRY (the general loop then
 * says what is wrong), never a crash or a hang.
 */
#include "harness.h"
#include "unit/builder.h"
#include "../cmd/walk_fast.h"

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
            PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

typedef struct seen {
    uint64_t *off;
    size_t    n, cap;
} seen;

static void seen_add(seen *v, uint64_t off)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 4096;
        v->off = realloc(v->off, v->cap * sizeof(*v->off));
    }
    v->off[v->n++] = off;
}

static int on_fast(void *ctx, const ps_event *ev, ps_error *err)
{
    (void)err;
    seen_add(ctx, ev->offset);
    return 0;
}

/* Rounds of samples from two CPUs, each CPU's in time order but the two
 * written one after the other (the queue merges them), chains of 1 to 60
 * entries: some 6 MiB, three times the first window. */
static buf capture(void)
{
    ps_attr a;
    buf data = { 0 }, file;
    uint64_t t = 1000;
    int round, cpu, i, k;

    memset(&a, 0, sizeof(a));
    a.type = 1;
    a.sample_type = ST;
    a.sample_period = 1;
    a.flags = (uint64_t)1 << PS_ATTR_SAMPLE_ID_ALL;
    for (round = 0; round < 40; round++) {
        for (cpu = 0; cpu < 2; cpu++) {
            for (i = 0; i < 600; i++) {
                size_t at = begin_record(&data, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
                int nr = 1 + (i * 7 + round) % 60;

                put64(&data, 0x400000 + (uint64_t)i * 16);
                put32(&data, 42); put32(&data, 42 + (uint32_t)cpu);
                put64(&data, t + 2 * (uint64_t)i + (uint64_t)cpu);
                put32(&data, (uint32_t)cpu); put32(&data, 0);
                put64(&data, 1000);
                put64(&data, (uint64_t)nr);
                for (k = 0; k < nr; k++)
                    put64(&data, 0x400000 + (uint64_t)k * 64);
                finish_record(&data, at);
            }
        }
        t += 1200;
        finish_record(&data, begin_record(&data, PS_RECORD_FINISHED_ROUND, 0));
    }
    file = build_file(0, &a, 1, NULL, NULL, &data);
    free(data.p);
    return file;
}

static ps_session *open_capture(const char *path, int ordered)
{
    ps_open_opts o = PS_OPEN_OPTS_INIT;
    ps_session *s = NULL;
    ps_error err;

    o.ordered = ordered;
    if (ps_session_open(&s, path, &o, &err) < 0)
        return NULL;
    return s;
}

/* The general loop's records, as offsets. */
static void general(const char *path, int ordered, seen *v)
{
    ps_session *s = open_capture(path, ordered);
    ps_error err;
    ps_event ev;

    while (s != NULL && ps_session_next(&ev, s, &err) == PS_OK)
        seen_add(v, ev.offset);
    ps_session_close(s);
}

static int fast(const char *path, int ordered, seen *v)
{
    ps_session *s = open_capture(path, ordered);
    ps_error err;
    int rc;

    if (s == NULL)
        return -1;
    rc = walk_fast(s, ordered, on_fast, v, &err);
    ps_session_close(s);
    return rc;
}

static void same_records(int ordered)
{
    buf file = capture();
    const char *path = write_temp(file.p, file.n);
    seen g = { 0 }, f = { 0 };

    CHECK(file.n > ((size_t)6 << 20));
    general(path, ordered, &g);
    CHECK(fast(path, ordered, &f) == WALK_FAST_DONE);
    CHECK(g.n == 40 * 1201 && f.n == g.n);
    CHECK(f.n == g.n && memcmp(f.off, g.off, g.n * sizeof(*g.off)) == 0);
    unlink(path);
    free(file.p);
    free(g.off);
    free(f.off);
}

static void test_same_records_ordered(void) { same_records(1); }
static void test_same_records_file_order(void) { same_records(0); }

/* Cut in a record's middle, past the first window: the loop delivered
 * records, so it gives the capture to the general loop. */
static void test_cut_capture(void)
{
    buf file = capture();
    size_t cut = (size_t)5 << 20;
    const char *path;
    seen f = { 0 };
    int rc;

    path = write_temp(file.p, cut);
    rc = fast(path, 1, &f);
    CHECK(rc == WALK_FAST_RETRY || rc == WALK_FAST_NO);
    unlink(path);
    free(file.p);
    free(f.off);
}

static const struct harness_test tests[] = {
    TEST(test_same_records_ordered),
    TEST(test_same_records_file_order),
    TEST(test_cut_capture),
};

TEST_MAIN(tests)
