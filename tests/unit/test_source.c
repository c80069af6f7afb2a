/* SPDX-License-Identifier: MIT */
/*
 * test_source.c - unit tests of source.c (spec 1, 5, 13): memory images
 * (peek/consume/skip/at at and past their bounds, an exact-size heap buffer
 * so a sanitizer build sees over-reads; mmap'd files, empty files,
 * directories, missing files) and streams: a pipe fed by a writer thread in
 * odd-sized chunks delivering records that straddle the rolling buffer's
 * edge, skipping past the end, the buffer staying within twice what a peek
 * needs over 10 MB of input, and slurping a stream into a memory image;
 * the reader thread's chunks, and records borrowed from them.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include "harness.h"
#include "builder.h"
#include "../../libparse/source.h"

#define KiB ((size_t)1024)
#define MiB ((size_t)1024 * 1024)
#define CHUNK0 (256 * KiB)      /* source.c's first stream buffer */

/* --- a pipe with a writer thread ------------------------------------------------ */

typedef struct stream {
    pthread_t      thread;
    int            fd;          /* write end, owned by the thread */
    const uint8_t *p;
    size_t         n;
    char           path[32];
} stream;

/* Odd sizes, none a divisor of the buffer: record and buffer edges drift. */
static const size_t chunk_sizes[] = { 1, 7, 4093, 65537, 13, 300007, 2, 100003, 511 };

static void *writer_main(void *arg)
{
    stream *st = arg;
    size_t off = 0, k = 0;

    while (off < st->n) {
        size_t want = chunk_sizes[k++ % (sizeof(chunk_sizes) / sizeof(chunk_sizes[0]))];
        ssize_t w;

        if (want > st->n - off)
            want = st->n - off;
        w = write(st->fd, st->p + off, want);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;          /* the reader went away */
        off += (size_t)w;
    }
    close(st->fd);
    return NULL;
}

/* Open a source on a pipe whose writer sends p[0..n). */
static int stream_open(ps_source *src, stream *st, const uint8_t *p, size_t n)
{
    int fds[2], rc;
    ps_error err;

    signal(SIGPIPE, SIG_IGN);
    if (pipe(fds) < 0)
        return -1;
    st->fd = fds[1];
    st->p = p;
    st->n = n;
    snprintf(st->path, sizeof(st->path), "/dev/fd/%d", fds[0]);
    rc = ps_source__open(src, st->path, &err);
    close(fds[0]);
    if (rc < 0) {
        close(fds[1]);
        return rc;
    }
    pthread_create(&st->thread, NULL, writer_main, st);
    return PS_OK;
}

static void stream_close(ps_source *src, stream *st)
{
    ps_source__close(src);          /* a blocked writer gets EPIPE */
    pthread_join(st->thread, NULL);
}

/* Records: u32 seq, u32 len (header included, 8-aligned), then bytes
 * (seq * 31 + i) & 0xff. */
static uint8_t *make_records(size_t total, size_t max_len, size_t *nr, size_t *n_out)
{
    uint8_t *p = malloc(total);
    size_t off = 0, seq = 0;

    while (off + 8 <= total) {
        size_t len = 8 + ((seq * 2654435761u) % (max_len / 8)) * 8, i;
        uint32_t s32 = (uint32_t)seq, l32;

        if (len > total - off)
            len = (total - off) / 8 * 8;
        l32 = (uint32_t)len;
        memcpy(p + off, &s32, 4);
        memcpy(p + off + 4, &l32, 4);
        for (i = 8; i < len; i++)
            p[off + i] = (uint8_t)(seq * 31 + i);
        off += len;
        seq++;
    }
    *nr = seq;
    *n_out = off;
    return p;
}

/* Read records back through peek/consume; 1 when all match. */
static int read_records(ps_source *src, size_t nr, size_t n, size_t *max_cap)
{
    size_t seq = 0;
    int ok = 1;

    *max_cap = 0;
    for (;;) {
        const uint8_t *p;
        uint32_t s32, len;
        int64_t got;
        size_t i;
        ps_error err;

        if ((got = ps_source__peek(src, 8, &p, &err)) == 0)
            break;
        if (got != 8)
            return 0;
        memcpy(&s32, p, 4);
        memcpy(&len, p + 4, 4);
        if (len < 8)
            return 0;
        if (s32 != seq)
            ok = 0;
        if (ps_source__peek(src, len, &p, &err) != len)
            return 0;
        for (i = 8; i < len; i++)
            if (p[i] != (uint8_t)(seq * 31 + i))
                ok = 0;
        if (src->cap > *max_cap)
            *max_cap = src->cap;
        ps_source__consume(src, len);
        seq++;
    }
    return ok && seq == nr && src->pos == n;
}

/* --- memory images ------------------------------------------------------------- */

static void test_memory_bounds(void)
{
    uint8_t *b = malloc(100);
    const uint8_t *p;
    ps_source src;
    ps_error err;
    int i;

    for (i = 0; i < 100; i++)
        b[i] = (uint8_t)i;
    ps_source__from_buffer(&src, "mem", b, 100, 1);
    CHECK(!src.is_stream && src.end == 100 && src.file_size == 100);
    CHECK(ps_source__peek(&src, 8, &p, &err) == 8 && p == b);
    ps_source__consume(&src, 8);
    CHECK(ps_source__peek(&src, 200, &p, &err) == 92 && p == b + 8 && p[0] == 8);
    CHECK(ps_source__peek(&src, 0, &p, &err) == 0);
    CHECK(src.bytes_read == 8);
    CHECK(ps_source__at(&src, 0, 100) == b);
    CHECK(ps_source__at(&src, 99, 1) == b + 99);
    CHECK(ps_source__at(&src, 100, 0) == b + 100);
    CHECK(ps_source__at(&src, 100, 1) == NULL);
    CHECK(ps_source__at(&src, 99, 2) == NULL);
    CHECK(ps_source__at(&src, 101, 0) == NULL);
    CHECK(ps_source__at(&src, 1, UINT64_MAX) == NULL);
    CHECK(ps_source__at(&src, UINT64_MAX, 2) == NULL);
    CHECK(ps_source__at(&src, UINT64_MAX - 1, 2) == NULL);

    /* skip inside, to the end, and past it */
    CHECK(ps_source__skip(&src, 12, &err) == PS_OK && src.pos == 20);
    memset(&err, 0, sizeof(err));
    CHECK(ps_source__skip(&src, 81, &err) == PS_ETRUNC);
    CHECK(err.offset == 20 && src.pos == 20 && strstr(err.msg, "81") != NULL);
    CHECK(ps_source__skip(&src, UINT64_MAX, &err) == PS_ETRUNC && src.pos == 20);
    CHECK(ps_source__skip(&src, 80, &err) == PS_OK && src.pos == 100);
    CHECK(ps_source__peek(&src, 8, &p, &err) == 0);
    CHECK(ps_source__skip(&src, 0, &err) == PS_OK);
    CHECK(ps_source__skip(&src, 1, &err) == PS_ETRUNC && err.offset == 100);
    CHECK(src.bytes_read == 100);
    ps_source__close(&src);         /* owned: frees b (leak check) */
    CHECK(src.map == NULL && src.fd == -1);
}

/* The end can lie before the buffer's end (a data section): peeks and
 * skips stop there, ps_source__at still sees every byte. */
static void test_memory_end_before_size(void)
{
    static uint8_t b[64];
    const uint8_t *p;
    ps_source src;
    ps_error err;

    ps_source__from_buffer(&src, "mem", b, sizeof(b), 0);
    src.pos = 16;
    src.end = 40;
    CHECK(ps_source__peek(&src, 64, &p, &err) == 24 && p == b + 16);
    CHECK(ps_source__skip(&src, 25, &err) == PS_ETRUNC);
    CHECK(ps_source__skip(&src, 24, &err) == PS_OK && src.pos == 40);
    CHECK(ps_source__peek(&src, 1, &p, &err) == 0);
    CHECK(ps_source__at(&src, 48, 16) == b + 48);
    ps_source__close(&src);         /* not owned: b stays */
    ps_source__from_buffer(&src, "empty", NULL, 0, 0);
    CHECK(ps_source__peek(&src, 8, &p, &err) == 0);
    CHECK(ps_source__at(&src, 0, 1) == NULL);
    CHECK(ps_source__skip(&src, 1, &err) == PS_ETRUNC);
    ps_source__close(&src);
}

static void test_file_sources(void)
{
    uint8_t bytes[5000];
    const uint8_t *p;
    ps_source src;
    ps_error err;
    const char *path;
    char dir[] = "/tmp/perfsift-unit-dir-XXXXXX";
    size_t i;

    for (i = 0; i < sizeof(bytes); i++)
        bytes[i] = (uint8_t)(i * 7);
    path = write_temp(bytes, sizeof(bytes));
    CHECK(ps_source__open(&src, path, &err) == PS_OK);
    CHECK(!src.is_stream && src.map_size == sizeof(bytes) && src.file_size == sizeof(bytes));
    CHECK(ps_source__peek(&src, 10000, &p, &err) == (int64_t)sizeof(bytes));
    CHECK(memcmp(p, bytes, sizeof(bytes)) == 0);
    CHECK(ps_source__at(&src, 4990, 10) && ps_source__at(&src, 4990, 10)[9] == bytes[4999]);
    ps_source__close(&src);

    /* an empty regular file: an empty image, not a stream */
    CHECK(truncate(path, 0) == 0);
    CHECK(ps_source__open(&src, path, &err) == PS_OK);
    CHECK(!src.is_stream && src.end == 0 && ps_source__peek(&src, 8, &p, &err) == 0);
    CHECK(ps_source__skip(&src, 1, &err) == PS_ETRUNC);
    ps_source__close(&src);
    unlink(path);

    memset(&err, 0, sizeof(err));
    CHECK(ps_source__open(&src, path, &err) == PS_EIO);
    CHECK(strstr(err.msg, path) != NULL && err.offset == PS_NO_OFFSET);
    ps_source__close(&src);
    CHECK(mkdtemp(dir) != NULL);
    CHECK(ps_source__open(&src, dir, &err) == PS_EINVAL);
    CHECK(strstr(err.msg, "directory") != NULL);
    ps_source__close(&src);
    rmdir(dir);
}

/* A large mapped file read sequentially: consumed pages are dropped from
 * the mapping as the reader moves on, and every byte still reads right,
 * earlier ones through ps_source__at included. */
static void test_mapped_file_sequential(void)
{
    size_t n = 40 * MiB + 123, i, off = 0;
    uint8_t *bytes = malloc(n);
    ps_source src;
    ps_error err;
    const char *path;
    int ok = 1;

    for (i = 0; i < n; i++)
        bytes[i] = (uint8_t)(i ^ (i >> 13));
    path = write_temp(bytes, n);
    CHECK(ps_source__open(&src, path, &err) == PS_OK);
    while (off < n) {
        const uint8_t *p;
        int64_t got = ps_source__peek(&src, 65536, &p, &err);

        if (got <= 0 || memcmp(p, bytes + off, (size_t)got) != 0) {
            ok = 0;
            break;
        }
        ps_source__consume(&src, (size_t)got);
        off += (size_t)got;
    }
    CHECK(ok && off == n && src.bytes_read == n);
    CHECK(src.dropped > 0 && src.dropped < n);
    CHECK(ps_source__at(&src, 4096, 64) && memcmp(ps_source__at(&src, 4096, 64),
                                                  bytes + 4096, 64) == 0);
    ps_source__close(&src);
    unlink(path);
    free(bytes);
}

/* --- streams --------------------------------------------------------------------- */

/* Records of up to 64 KiB over 3 MiB: many straddle the buffer's edge and
 * all come back intact, the buffer never growing past its first size. */
static void test_stream_records_straddle(void)
{
    size_t nr, n, max_cap;
    uint8_t *data = make_records(3 * MiB + 77, 65536, &nr, &n);
    ps_source src;
    stream st;

    CHECK(stream_open(&src, &st, data, n) == PS_OK);
    CHECK(src.is_stream);
    CHECK(read_records(&src, nr, n, &max_cap));
    CHECK(src.bytes_read == n);
    CHECK(max_cap > 0 && max_cap <= CHUNK0);
    stream_close(&src, &st);
    free(data);
}

/* Small records over 10 MiB: the buffer stays at its first size; one
 * 10 MiB peek: the buffer stays under twice that. */
static void test_stream_growth_bounded(void)
{
    size_t n = 10 * MiB, nr, max_cap, i;
    uint8_t *data = make_records(n, 4096, &nr, &n);
    const uint8_t *p;
    ps_source src;
    ps_error err;
    stream st;

    CHECK(stream_open(&src, &st, data, n) == PS_OK);
    CHECK(read_records(&src, nr, n, &max_cap));
    CHECK(max_cap <= CHUNK0);
    stream_close(&src, &st);

    CHECK(stream_open(&src, &st, data, n) == PS_OK);
    CHECK(ps_source__peek(&src, n, &p, &err) == (int64_t)n);
    CHECK(memcmp(p, data, n) == 0);
    CHECK(src.cap >= n && src.cap < 2 * n);
    ps_source__consume(&src, n);
    CHECK(ps_source__peek(&src, 8, &p, &err) == 0 && src.eof);
    stream_close(&src, &st);

    /* each size in a range ending below a power of two */
    for (i = 0; i < 3; i++) {
        size_t want = (size_t)((2 * MiB) << i) - 7 * KiB;

        CHECK(stream_open(&src, &st, data, n) == PS_OK);
        CHECK(ps_source__peek(&src, want, &p, &err) == (int64_t)want);
        CHECK(src.cap < 2 * want);
        stream_close(&src, &st);
    }
    /* a huge request on a short stream allocates by what arrives */
    CHECK(stream_open(&src, &st, data, 1000) == PS_OK);
    CHECK(ps_source__peek(&src, (size_t)1 << 30, &p, &err) == 1000);
    CHECK(src.cap <= CHUNK0);
    stream_close(&src, &st);
    free(data);
}

static void test_stream_skip_past_eof(void)
{
    size_t n = 1000;
    uint8_t *data = calloc(1, n);
    const uint8_t *p;
    ps_source src;
    ps_error err;
    stream st;

    data[100] = 0xab;
    CHECK(stream_open(&src, &st, data, n) == PS_OK);
    CHECK(ps_source__skip(&src, 100, &err) == PS_OK && src.pos == 100);
    CHECK(ps_source__peek(&src, 1, &p, &err) == 1 && p[0] == 0xab);
    memset(&err, 0, sizeof(err));
    CHECK(ps_source__skip(&src, 2000, &err) == PS_ETRUNC);
    CHECK(err.code == PS_ETRUNC && err.offset == 1000 && src.pos == 1000);
    CHECK(strstr(err.msg, "1100") != NULL);
    CHECK(ps_source__skip(&src, 1, &err) == PS_ETRUNC);
    CHECK(ps_source__peek(&src, 8, &p, &err) == 0);
    stream_close(&src, &st);
    free(data);
}

/* A skip longer than the buffer, over a stream, lands on the right byte. */
static void test_stream_long_skip(void)
{
    size_t n = 3 * MiB + 5, i;
    uint8_t *data = malloc(n);
    const uint8_t *p;
    ps_source src;
    ps_error err;
    stream st;

    for (i = 0; i < n; i++)
        data[i] = (uint8_t)(i % 251);
    CHECK(stream_open(&src, &st, data, n) == PS_OK);
    CHECK(ps_source__peek(&src, 3, &p, &err) == 3);
    CHECK(ps_source__skip(&src, 2 * MiB + 1, &err) == PS_OK);
    CHECK(ps_source__peek(&src, 4, &p, &err) == 4 && p[0] == (uint8_t)((2 * MiB + 1) % 251));
    CHECK(src.cap <= 2 * CHUNK0);
    CHECK(ps_source__skip(&src, n - 2 * MiB - 1, &err) == PS_OK && src.pos == n);
    stream_close(&src, &st);
    free(data);
}

/* The end of a stream inside a peek: fewer bytes, then none. */
static void test_stream_short_tail(void)
{
    static const uint8_t five[5] = { 1, 2, 3, 4, 5 };
    const uint8_t *p;
    ps_source src;
    ps_error err;
    stream st;

    CHECK(stream_open(&src, &st, five, 5) == PS_OK);
    CHECK(ps_source__peek(&src, 8, &p, &err) == 5 && p[4] == 5);
    ps_source__consume(&src, 5);
    CHECK(ps_source__peek(&src, 8, &p, &err) == 0);
    stream_close(&src, &st);
}

static void test_stream_slurp(void)
{
    size_t n = 3 * MiB + 11, i;
    uint8_t *data = malloc(n);
    const uint8_t *p;
    ps_source src;
    ps_error err;
    stream st;

    for (i = 0; i < n; i++)
        data[i] = (uint8_t)(i * 13 + (i >> 16));
    /* as header.c does: peek the header, then take the whole input */
    CHECK(stream_open(&src, &st, data, n) == PS_OK);
    CHECK(ps_source__peek(&src, 104, &p, &err) == 104);
    CHECK(ps_source__slurp(&src, &err) == PS_OK);
    CHECK(!src.is_stream && src.map_size == n && src.end == n && src.pos == 0);
    CHECK(src.map && memcmp(src.map, data, n) == 0);
    CHECK(ps_source__at(&src, n - 10, 10) && memcmp(ps_source__at(&src, n - 10, 10),
                                                    data + n - 10, 10) == 0);
    CHECK(ps_source__peek(&src, 16, &p, &err) == 16 && p == src.map);
    CHECK(ps_source__slurp(&src, &err) == PS_OK);       /* already an image */
    stream_close(&src, &st);

    /* bytes already consumed are kept: positions stay absolute */
    CHECK(stream_open(&src, &st, data, n) == PS_OK);
    CHECK(ps_source__peek(&src, 16, &p, &err) == 16);
    ps_source__consume(&src, 16);
    CHECK(ps_source__slurp(&src, &err) == PS_OK);
    CHECK(!src.is_stream && src.map_size == n && src.pos == 16);
    CHECK(ps_source__peek(&src, 4, &p, &err) == 4 && p[0] == data[16]);
    stream_close(&src, &st);

    /* an empty stream */
    CHECK(stream_open(&src, &st, data, 0) == PS_OK);
    CHECK(ps_source__slurp(&src, &err) == PS_OK);
    CHECK(!src.is_stream && src.map_size == 0 && ps_source__peek(&src, 8, &p, &err) == 0);
    stream_close(&src, &st);
    free(data);
}

/* --- the reader thread ------------------------------------------------------------- */

/* Records the test holds by pointer, oldest first; keep() reports the first. */
#define HELD_MAX 40

typedef struct held {
    const uint8_t *p;
    uint64_t       off;
    uint32_t       seq, len;
} held;

typedef struct holder {
    held   v[HELD_MAX];
    size_t first, nr;
} holder;

static uint64_t holder_keep(void *arg)
{
    const holder *h = arg;

    return h->nr ? h->v[h->first].off : UINT64_MAX;
}

/* 1 when a held record still has its bytes. */
static int held_intact(const held *e)
{
    size_t i;

    for (i = 8; i < e->len; i++)
        if (e->p[i] != (uint8_t)(e->seq * 31 + i))
            return 0;
    return 1;
}

/* A mapped file read through the reader with small chunks: records come
 * from its chunks (some, longer than the overlap or straddling a chunk's
 * end, from the mapping), every byte reads right, and records held by
 * pointer (as the ordering queue holds them) stay intact until keep()
 * lets them go, however far the reader has moved on. */
static void test_reader_chunks_and_borrowing(void)
{
    size_t nr, n, seq = 0, from_chunks = 0;
    uint8_t *data = make_records(6 * MiB, 90000, &nr, &n);
    holder h = { .first = 0, .nr = 0 };
    const char *path = write_temp(data, n);
    ps_source src;
    ps_error err;
    int ok = 1;

    CHECK(ps_source__open(&src, path, &err) == PS_OK);
    src.rd_step = 256 * KiB;     /* what 8 held records span fits in 32 chunks */
    src.rd_min = 0;
    src.keep = holder_keep;
    src.keep_arg = &h;
    for (;;) {
        const uint8_t *p;
        uint32_t s32, len;
        int64_t got = ps_source__peek(&src, 8, &p, &err);
        size_t i;

        if (got == 0)
            break;
        memcpy(&s32, p, 4);
        memcpy(&len, p + 4, 4);
        if (got != 8 || s32 != seq || len < 8 || ps_source__peek(&src, len, &p, &err) != len) {
            ok = 0;
            break;
        }
        for (i = 8; i < len; i++)
            if (p[i] != (uint8_t)(seq * 31 + i))
                ok = 0;
        if (p < src.map || p >= src.map + src.map_size)
            from_chunks++;
        if (seq % 7 == 0 && ps_source__borrowable(&src, p)) {
            if (h.nr == 8) {            /* let the oldest go */
                ok &= held_intact(&h.v[h.first]);
                h.first = (h.first + 1) % HELD_MAX;
                h.nr--;
            }
            h.v[(h.first + h.nr++) % HELD_MAX] = (held){ p, src.pos, (uint32_t)seq, len };
        }
        ps_source__consume(&src, len);
        seq++;
    }
    while (h.nr > 0) {
        ok &= held_intact(&h.v[h.first]);
        h.first = (h.first + 1) % HELD_MAX;
        h.nr--;
    }
    CHECK(ok && seq == nr && src.pos == n);
    CHECK(src.rd != NULL && from_chunks > nr / 2);
    ps_source__close(&src);
    unlink(path);
    free(data);
}

/* A record held for good (a capture without rounds, whose queue holds
 * everything): the reader stops holding chunks for it after a bounded
 * number, records then come from the mapping, and all read right. */
static void test_reader_held_for_good(void)
{
    size_t nr, n, seq = 0, late_from_map = 0;
    uint8_t *data = make_records(3 * MiB, 4000, &nr, &n);
    holder h = { .first = 0, .nr = 0 };
    const char *path = write_temp(data, n);
    ps_source src;
    ps_error err;
    int ok = 1;

    CHECK(ps_source__open(&src, path, &err) == PS_OK);
    src.rd_step = 4096;
    src.rd_min = 0;
    src.keep = holder_keep;
    src.keep_arg = &h;
    for (;;) {
        const uint8_t *p;
        uint32_t s32, len;
        int64_t got = ps_source__peek(&src, 8, &p, &err);
        size_t i;

        if (got == 0)
            break;
        memcpy(&s32, p, 4);
        memcpy(&len, p + 4, 4);
        if (got != 8 || s32 != seq || len < 8 || ps_source__peek(&src, len, &p, &err) != len) {
            ok = 0;
            break;
        }
        for (i = 8; i < len; i++)
            if (p[i] != (uint8_t)(seq * 31 + i))
                ok = 0;
        if (h.nr == 0 && seq > 0 && ps_source__borrowable(&src, p))
            h.v[h.nr++] = (held){ p, src.pos, (uint32_t)seq, len };
        if (src.pos > 2 * MiB && p >= src.map && p < src.map + src.map_size)
            late_from_map++;
        ps_source__consume(&src, len);
        seq++;
    }
    CHECK(ok && seq == nr && src.pos == n && h.nr == 1 && held_intact(&h.v[0]));
    CHECK(late_from_map > 100);
    ps_source__close(&src);
    unlink(path);
    free(data);
}

static const struct harness_test tests[] = {
    TEST(test_memory_bounds),
    TEST(test_memory_end_before_size),
    TEST(test_file_sources),
    TEST(test_mapped_file_sequential),
    TEST(test_reader_chunks_and_borrowing),
    TEST(test_reader_held_for_good),
    TEST(test_stream_records_straddle),
    TEST(test_stream_growth_bounded),
    TEST(test_stream_skip_past_eof),
    TEST(test_stream_long_skip),
    TEST(test_stream_short_tail),
    TEST(test_stream_slurp),
};

TEST_MAIN(tests)
