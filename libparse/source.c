/* SPDX-License-Identifier: MIT */
/*
 * source.c - memory images (mmap, zero-copy) and streams (rolling buffer).
 * See source.h for the invariants. Never decodes anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "source.h"

#define STREAM_CHUNK (256 * 1024)
/* the reader's chunks (see "The reader" below) */
#define RD_OVERLAP  ((size_t)64 * 1024 + 64)    /* more than a record (header.size is 16 bits) */
#define RD_HUGE     ((size_t)2 << 20)           /* a chunk is one huge page */
#define RD_STEP     (RD_HUGE - RD_OVERLAP)
#define RD_AHEAD    2
#define RD_MAX_RETIRED 32       /* 64 MiB held for the ordering queue at most */
#define RD_MIN_SIZE ((uint64_t)16 << 20)        /* smaller maps: not worth a thread */

static void rd_stop(ps_source *src);
static const uint8_t *rd_peek(ps_source *src, uint64_t pos, size_t n);

static int open_fd(const char *path, int *fd, ps_error *err)
{
    if (strcmp(path, "-") == 0) {
        *fd = STDIN_FILENO;
        return PS_OK;
    }
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0)
        return ps_error__set(err, PS_EIO, PS_NO_OFFSET, "%s: %s", path, strerror(errno));
    return PS_OK;
}

int ps_source__open(ps_source *src, const char *path, ps_error *err)
{
    const char *test_step;
    struct stat st;
    int fd, rc;

    memset(src, 0, sizeof(*src));
    src->fd = -1;
    src->name = path;
    if ((rc = open_fd(path, &fd, err)) < 0)
        return rc;
    src->fd = fd;
    if (fstat(fd, &st) < 0)
        return ps_error__set(err, PS_EIO, PS_NO_OFFSET, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET, "%s: is a directory", path);
    src->mtime = (int64_t)st.st_mtime;
    if (S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

        if (m != MAP_FAILED) {
            madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
            src->map = m;
            src->map_size = (size_t)st.st_size;
            src->map_owned = 2;
            src->end = src->map_size;
            src->file_size = src->map_size;
            src->rd_later = 1;
            src->rd_step = RD_STEP;
            src->rd_min = RD_MIN_SIZE;
            if ((test_step = getenv("PERFSIFT_TEST_READ_STEP")) != NULL &&
                (src->rd_step = strtoul(test_step, NULL, 0)) > 0)
                src->rd_min = 0;    /* the tests' small captures take this path too */
            else
                src->rd_step = RD_STEP;
            return PS_OK;
        }
    }
    if (S_ISREG(st.st_mode) && st.st_size == 0) {
        src->end = 0;       /* an empty memory image */
        return PS_OK;
    }
    src->is_stream = 1;
    src->end = UINT64_MAX;
    return PS_OK;
}

void ps_source__from_buffer(ps_source *src, const char *name, uint8_t *buf,
                            size_t size, int owned)
{
    memset(src, 0, sizeof(*src));
    src->fd = -1;
    src->name = name;
    src->map = buf;
    src->map_size = size;
    src->map_owned = owned ? 1 : 0;
    src->end = size;
    src->file_size = size;
}

void ps_source__close(ps_source *src)
{
    rd_stop(src);
    if (src->map_owned == 2)
        munmap((void *)src->map, src->map_size);
    else if (src->map_owned == 1)
        free((void *)src->map);
    if (src->fd > STDIN_FILENO)
        close(src->fd);
    free(src->buf);
    memset(src, 0, sizeof(*src));
    src->fd = -1;
}

/* Read more stream input so that at least `want` bytes from pos are buffered.
 * keep: hold on to the consumed bytes too (slurp needs the input from 0).
 * Returns 0 (maybe fewer at EOF) or an I/O error. */
static int stream_fill(ps_source *src, size_t want, int keep, ps_error *err)
{
    size_t have = (size_t)(src->buf_off + src->len - src->pos);
    size_t start = (size_t)(src->pos - src->buf_off);

    if (have >= want || src->eof)
        return PS_OK;
    /* Drop consumed bytes first: the caller's pointers are stale now anyway. */
    if (start > 0 && !keep) {
        memmove(src->buf, src->buf + start, have);
        src->buf_off = src->pos;
        src->len = have;
    }
    while (src->len < want && !src->eof) {
        ssize_t n;

        if (src->cap - src->len < STREAM_CHUNK / 4 && src->cap < want) {
            /* Grow only when full of real data (bounded by what we read)
             * and too small for the request (so below twice its size). */
            size_t ncap = src->cap ? src->cap * 2 : STREAM_CHUNK;

            if (ncap < src->cap || ps_grow((void **)&src->buf, &src->cap, ncap, 1) < 0)
                return ps_error__set(err, PS_ENOMEM, src->pos,
                                     "%s: out of memory buffering input", src->name);
        }
        n = read(src->fd, src->buf + src->len, src->cap - src->len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return ps_error__set(err, PS_EIO, src->buf_off + src->len, "%s: %s",
                                 src->name, strerror(errno));
        }
        if (n == 0)
            src->eof = 1;
        src->len += (size_t)n;
        src->bytes_read += (uint64_t)n;
    }
    return PS_OK;
}

int64_t ps_source__peek(ps_source *src, size_t n, const uint8_t **p, ps_error *err)
{
    uint64_t avail;
    int rc;

    if (!src->is_stream) {
        avail = src->end > src->pos ? src->end - src->pos : 0;
        if (avail > n)
            avail = n;
        if (src->rd == NULL || avail == 0 || (*p = rd_peek(src, src->pos, (size_t)avail)) == NULL)
            *p = src->map ? src->map + src->pos : NULL;
        return (int64_t)avail;
    }
    if ((rc = stream_fill(src, n, 0, err)) < 0)
        return rc;
    avail = src->buf_off + src->len - src->pos;
    *p = src->buf + (src->pos - src->buf_off);
    return (int64_t)(avail < n ? avail : n);
}

/* Pages of a mapped file count in the resident set once touched. Dropping
 * the ones already consumed keeps peak RSS flat however large the capture:
 * nothing refers to them any more (headers and features were copied). */
#define DROP_STEP ((uint64_t)8 << 20)
#define MADV_POPULATE_READ_ 22          /* not in every libc's headers yet */
#define DROP_KEEP ((uint64_t)1 << 20)

/*
 * The reader: a thread that read()s the data section into chunk buffers a
 * little ahead of the decoder, which then finds its records there instead
 * of in the mapping. Why: first touches of mapped pages are where a
 * sequential decode spent its time (in a VM, 4-10 us a fault; a thread
 * touching pages ahead only moved that cost to the other core, and the
 * decoder still stalled on TLB and cache misses). Copying from the page
 * cache into a few reused buffers costs a fifth of that.
 *
 * Chunk k holds the file from start + k * step, step + RD_OVERLAP bytes:
 * a peek of at most RD_OVERLAP bytes at a position in chunk k's step fits
 * in chunk k whole. Any other peek (a longer one, one outside the chunks
 * read, after a read error) is answered from the mapping, which stays for
 * everything: so the reader only ever speeds things up.
 *
 * Lifetimes: a peek's pointer is valid until the next call on the source,
 * as for streams; a chunk the decoder has moved past is recycled only once
 * src->keep (the time-ordering queue, which borrows records) holds nothing
 * before its end. The reader keeps at most RD_AHEAD chunks waiting, the
 * decoder at most about RD_MAX_RETIRED passed ones.
 */

typedef struct rd_chunk {
    uint8_t         *buf;       /* owned: step + RD_OVERLAP bytes */
    uint64_t         off;       /* file offset of buf[0] */
    size_t           len;       /* bytes read */
    struct rd_chunk *next;
} rd_chunk;

struct ps_readahead {
    pthread_t       thread;
    pthread_mutex_t mu;
    pthread_cond_t  to_reader, to_decoder;
    int             fd;
    size_t          step;
    uint64_t        next_off, end;  /* reader only */
    rd_chunk       *free;           /* under mu: to read into */
    rd_chunk       *filled, *filled_tail;  /* under mu: read, in file order */
    size_t          nr_filled;      /* under mu */
    int             done, stop;     /* under mu */
    rd_chunk       *cur;            /* decoder only: the chunk peeks come from */
    rd_chunk       *retired, *retired_tail;  /* decoder only: passed, maybe borrowed */
    size_t          nr_retired;     /* decoder only */
    uint64_t        retry_at;       /* decoder only: see RD_MAX_RETIRED */
};

static void chunk_free(rd_chunk *c)
{
    while (c != NULL) {
        rd_chunk *next = c->next;

        free(c->buf);
        free(c);
        c = next;
    }
}

/* n bytes for a chunk: full-size ones on a huge page each, where the
 * kernel allows (one fault instead of 512, and fewer TLB misses for the
 * decoder reading them). */
static uint8_t *chunk_buffer(size_t n)
{
    void *p;

    if (n < RD_HUGE)
        return malloc(n);
    n = (n + RD_HUGE - 1) & ~(RD_HUGE - 1);
    if (posix_memalign(&p, RD_HUGE, n) != 0)
        return NULL;
    madvise(p, n, MADV_HUGEPAGE);
    return p;
}

/* A chunk to read into: a recycled one, or a new one (outside mu). */
static rd_chunk *rd_get(struct ps_readahead *r)
{
    rd_chunk *c;

    pthread_mutex_lock(&r->mu);
    if ((c = r->free) != NULL)
        r->free = c->next;
    pthread_mutex_unlock(&r->mu);
    if (c == NULL && (c = calloc(1, sizeof(*c))) != NULL &&
        (c->buf = chunk_buffer(r->step + RD_OVERLAP)) == NULL) {
        free(c);
        c = NULL;
    }
    return c;
}

/* Read [c->off, c->off + want); @return the bytes read (fewer: EOF or error) */
static size_t rd_fill(struct ps_readahead *r, rd_chunk *c, size_t want)
{
    size_t got = 0;

    while (got < want) {
        ssize_t n = pread(r->fd, c->buf + got, want - got, (off_t)(c->off + got));

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return got;
}

static void *rd_main(void *arg)
{
    struct ps_readahead *r = arg;
    rd_chunk *c;

    for (;;) {
        size_t want;

        pthread_mutex_lock(&r->mu);
        while (!r->stop && r->nr_filled >= RD_AHEAD)
            pthread_cond_wait(&r->to_reader, &r->mu);
        pthread_mutex_unlock(&r->mu);
        if (r->stop || r->next_off >= r->end || (c = rd_get(r)) == NULL)
            break;
        c->off = r->next_off;
        want = r->end - c->off < r->step + RD_OVERLAP ? (size_t)(r->end - c->off)
                                                      : r->step + RD_OVERLAP;
        c->len = rd_fill(r, c, want);
        c->next = NULL;
        pthread_mutex_lock(&r->mu);
        if (r->filled_tail != NULL)
            r->filled_tail->next = c;
        else
            r->filled = c;
        r->filled_tail = c;
        r->nr_filled++;
        pthread_cond_signal(&r->to_decoder);
        pthread_mutex_unlock(&r->mu);
        if (c->len < want)
            break;          /* EOF or an error: the mapping answers the rest */
        r->next_off += r->step;
    }
    pthread_mutex_lock(&r->mu);
    r->done = 1;
    pthread_cond_signal(&r->to_decoder);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

static void rd_start(ps_source *src)
{
    struct ps_readahead *r;
    uint64_t end = src->end < src->map_size ? src->end : src->map_size;

    if (src->fd < 0 || src->map_size < src->rd_min || src->pos >= end ||
        (r = calloc(1, sizeof(*r))) == NULL)
        return;
    r->fd = src->fd;
    r->step = src->rd_step;
    r->next_off = src->pos & ~(uint64_t)0xfff;
    r->end = end;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->to_reader, NULL);
    pthread_cond_init(&r->to_decoder, NULL);
    if (pthread_create(&r->thread, NULL, rd_main, r) != 0) {
        pthread_cond_destroy(&r->to_decoder);
        pthread_cond_destroy(&r->to_reader);
        pthread_mutex_destroy(&r->mu);
        free(r);
        return;
    }
    src->rd = r;
}

static void rd_stop(ps_source *src)
{
    struct ps_readahead *r = src->rd;

    if (r == NULL)
        return;
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_signal(&r->to_reader);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->thread, NULL);
    pthread_cond_destroy(&r->to_decoder);
    pthread_cond_destroy(&r->to_reader);
    pthread_mutex_destroy(&r->mu);
    chunk_free(r->free);
    chunk_free(r->filled);
    chunk_free(r->retired);
    chunk_free(r->cur);
    free(r);
    src->rd = NULL;
}

/* The next chunk read, waiting for it; NULL when the reader is done. */
static rd_chunk *rd_take(struct ps_readahead *r)
{
    rd_chunk *c;

    pthread_mutex_lock(&r->mu);
    while (r->filled == NULL && !r->done)
        pthread_cond_wait(&r->to_decoder, &r->mu);
    if ((c = r->filled) != NULL) {
        if ((r->filled = c->next) == NULL)
            r->filled_tail = NULL;
        r->nr_filled--;
        c->next = NULL;
        pthread_cond_signal(&r->to_reader);
    }
    pthread_mutex_unlock(&r->mu);
    return c;
}

/* Hand back the passed chunks that nothing borrows from any more. */
static void rd_recycle(ps_source *src)
{
    struct ps_readahead *r = src->rd;
    uint64_t keep = src->keep != NULL ? src->keep(src->keep_arg) : UINT64_MAX;
    rd_chunk *head = r->retired, *last = NULL;

    while (r->retired != NULL && r->retired->off + r->retired->len <= keep) {
        last = r->retired;
        r->retired = last->next;
        r->nr_retired--;
    }
    if (last == NULL)
        return;
    if (r->retired == NULL)
        r->retired_tail = NULL;
    pthread_mutex_lock(&r->mu);
    last->next = r->free;
    r->free = head;
    pthread_mutex_unlock(&r->mu);
}

/* n bytes at pos from a chunk, or NULL (the mapping answers). */
static const uint8_t *rd_peek(ps_source *src, uint64_t pos, size_t n)
{
    struct ps_readahead *r = src->rd;
    rd_chunk *c = r->cur;
    int moved = 0;

    if (c != NULL && pos < c->off)
        return NULL;
    /* A queue that holds records for long (a capture without rounds)
     * would hold every chunk: past RD_MAX_RETIRED, records come from the
     * mapping, as without a reader, until it lets go (asked once a step). */
    if (r->nr_retired >= RD_MAX_RETIRED) {
        if (pos < r->retry_at)
            return NULL;
        r->retry_at = pos + r->step;
        rd_recycle(src);
        if (r->nr_retired >= RD_MAX_RETIRED)
            return NULL;
    }
    while (c == NULL || pos - c->off >= r->step) {
        if (c != NULL) {
            if (r->retired_tail != NULL)
                r->retired_tail->next = c;
            else
                r->retired = c;
            r->retired_tail = c;
            r->nr_retired++;
            moved = 1;
        }
        if ((c = r->cur = rd_take(r)) == NULL || pos < c->off)
            break;
    }
    if (moved)
        rd_recycle(src);
    if (c == NULL || pos < c->off || pos - c->off > c->len || n > c->len - (pos - c->off))
        return NULL;
    return c->buf + (pos - c->off);
}

int ps_source__borrowable(const ps_source *src, const uint8_t *p)
{
    const rd_chunk *c = src->rd != NULL ? src->rd->cur : NULL;

    if (src->map != NULL && p >= src->map && p < src->map + src->map_size)
        return 1;
    /* a chunk is held for borrowers only through keep */
    return c != NULL && src->keep != NULL && p >= c->buf && p < c->buf + c->len;
}

static void drop_consumed(ps_source *src)
{
    uint64_t ahead = src->dropped + 2 * DROP_STEP + DROP_KEEP;

    /* Ask for the next stretch early: first touches of mapped pages are
     * where a sequential decode spends its time. With the reader running,
     * records come from its chunks and these pages are seldom read. */
    if (src->rd == NULL && ahead < src->map_size) {
        void *at = (void *)(src->map + (ahead & ~(uint64_t)0xfff));
        size_t len = (size_t)(ahead + DROP_STEP > src->map_size ? src->map_size - ahead : DROP_STEP);

        /* populate the page tables in one go (Linux 5.14+), else read ahead */
        if (madvise(at, len, MADV_POPULATE_READ_) != 0)
            madvise(at, len, MADV_WILLNEED);
    }
    uint64_t upto = (src->pos - DROP_KEEP) & ~(uint64_t)0xfffff;

    if (upto <= src->dropped)
        return;
    madvise((void *)(src->map + src->dropped), (size_t)(upto - src->dropped), MADV_DONTNEED);
    src->dropped = upto;
}

void ps_source__consume(ps_source *src, size_t n)
{
    src->pos += n;
    if (src->is_stream)
        return;
    if (src->pos > src->bytes_read)
        src->bytes_read = src->pos;
    if (src->rd_later) {
        src->rd_later = 0;
        rd_start(src);
    }
    if (src->map_owned == 2 && src->pos > src->dropped + DROP_STEP + DROP_KEEP)
        drop_consumed(src);
}

int ps_source__skip(ps_source *src, uint64_t n, ps_error *err)
{
    while (n > 0) {
        const uint8_t *p;
        size_t step = n > STREAM_CHUNK ? STREAM_CHUNK : (size_t)n;
        int64_t got;

        if (!src->is_stream) {
            if (src->end - src->pos < n)
                return ps_error__set(err, PS_ETRUNC, src->pos,
                                     "%llu bytes to skip, %llu left",
                                     (unsigned long long)n,
                                     (unsigned long long)(src->end - src->pos));
            ps_source__consume(src, (size_t)n);
            return PS_OK;
        }
        if ((got = ps_source__peek(src, step, &p, err)) < 0)
            return (int)got;
        if (got == 0)
            return ps_error__set(err, PS_ETRUNC, src->pos,
                                 "input ends with %llu bytes still to skip",
                                 (unsigned long long)n);
        ps_source__consume(src, (size_t)got);
        n -= (uint64_t)got;
    }
    return PS_OK;
}

const uint8_t *ps_source__at(const ps_source *src, uint64_t off, uint64_t n)
{
    if (src->is_stream || off > src->map_size || n > src->map_size - off)
        return NULL;
    return src->map + off;
}

int ps_source__slurp(ps_source *src, ps_error *err)
{
    uint8_t *buf;
    size_t len;
    int rc;

    if (!src->is_stream)
        return PS_OK;
    /* Read to EOF: the buffer only grows as input arrives. */
    while (!src->eof)
        if ((rc = stream_fill(src, src->len + STREAM_CHUNK, 1, err)) < 0)
            return rc;
    if (src->buf_off != 0)
        return ps_error__set(err, PS_EINVAL, src->pos, "%s: input already consumed",
                             src->name);
    buf = src->buf;
    len = src->len;
    src->buf = NULL;
    if (src->fd > STDIN_FILENO)
        close(src->fd);
    {
        const char *name = src->name;
        uint64_t pos = src->pos, nread = src->bytes_read;

        ps_source__from_buffer(src, name, buf, len, 1);
        src->pos = pos;
        src->bytes_read = nread;
    }
    return PS_OK;
}
