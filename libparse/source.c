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

static void ahead_start(ps_source *src);
static void ahead_stop(ps_source *src);

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
            src->ahead_later = 1;
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
    ahead_stop(src);
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
        *p = src->map ? src->map + src->pos : NULL;
        return (int64_t)(avail < n ? avail : n);
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
 * The page toucher: a thread that reads one byte of each page a little
 * ahead of the decoder, so that the first touch of a mapped page is paid
 * on the other core (even with the page tables populated, it cost a
 * fifth of `perfsift script`'s time on a dwarf capture, in the load of
 * the first field past each sample's stack dump). It only reads, and
 * nothing depends on what; it skips what the decoder has passed, stays
 * at most AHEAD_WINDOW bytes past it (what drop_consumed() populates
 * anyway) and stops at ps_source__close(). Maps of less than
 * AHEAD_MIN_SIZE get none. It starts at the first record consumed, not at
 * open: a session handed to a caller that reads the file itself
 * (ps_session__release()) would otherwise wait for it to finish touching
 * its first window, then unmap what it touched.
 */
#define AHEAD_WINDOW (2 * DROP_STEP)
#define AHEAD_MIN_SIZE ((uint64_t)64 << 20)    /* smaller captures: not worth a thread */

struct ps_ahead {
    pthread_t       thread;
    pthread_mutex_t mu;
    pthread_cond_t  cv;
    const uint8_t  *map;
    uint64_t        size;
    uint64_t        from;       /* the decoder's position (under mu) */
    uint64_t        want;       /* touch up to here (under mu) */
    int             stop;       /* under mu */
};

static void *ahead_main(void *arg)
{
    struct ps_ahead *a = arg;
    uint64_t done = 0, target, off;
    volatile uint8_t sink = 0;

    pthread_mutex_lock(&a->mu);
    for (;;) {
        while (!a->stop && done >= a->want)
            pthread_cond_wait(&a->cv, &a->mu);
        if (a->stop)
            break;
        target = a->want;
        if (done < a->from)
            done = a->from;
        pthread_mutex_unlock(&a->mu);
        for (off = done & ~(uint64_t)0xfff; off < target; off += 4096)
            sink ^= a->map[off];
        done = target;
        pthread_mutex_lock(&a->mu);
    }
    pthread_mutex_unlock(&a->mu);
    (void)sink;
    return NULL;
}

static void ahead_start(ps_source *src)
{
    struct ps_ahead *a;

    if (src->map_size < AHEAD_MIN_SIZE || (a = calloc(1, sizeof(*a))) == NULL)
        return;
    a->map = src->map;
    a->size = src->map_size;
    a->from = src->pos;
    a->want = src->pos + AHEAD_WINDOW;
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->cv, NULL);
    if (pthread_create(&a->thread, NULL, ahead_main, a) != 0) {
        pthread_cond_destroy(&a->cv);
        pthread_mutex_destroy(&a->mu);
        free(a);
        return;
    }
    src->ahead = a;
}

static void ahead_stop(ps_source *src)
{
    struct ps_ahead *a = src->ahead;

    if (a == NULL)
        return;
    pthread_mutex_lock(&a->mu);
    a->stop = 1;
    pthread_cond_signal(&a->cv);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->thread, NULL);
    pthread_cond_destroy(&a->cv);
    pthread_mutex_destroy(&a->mu);
    free(a);
    src->ahead = NULL;
}

/* Move the toucher's goal along with pos (in steps, to keep it cheap). */
static void ahead_follow(ps_source *src)
{
    struct ps_ahead *a = src->ahead;
    uint64_t want = src->pos + AHEAD_WINDOW;

    if (want > a->size)
        want = a->size;
    pthread_mutex_lock(&a->mu);
    a->from = src->pos;
    if (want > a->want) {
        a->want = want;
        pthread_cond_signal(&a->cv);
    }
    pthread_mutex_unlock(&a->mu);
}


static void drop_consumed(ps_source *src)
{
    uint64_t ahead = src->dropped + 2 * DROP_STEP + DROP_KEEP;

    /* Ask for the next stretch early: first touches of mapped pages are
     * where a sequential decode spends its time. With a page toucher
     * running, its reads populate those pages anyway, on its own thread
     * (populating them here as well cost this one ~3% on a dwarf capture). */
    if (src->ahead == NULL && ahead < src->map_size) {
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
    if (src->ahead_later) {
        src->ahead_later = 0;
        ahead_start(src);
    }
    if (src->ahead != NULL && src->pos >= src->ahead_next) {
        ahead_follow(src);
        src->ahead_next = src->pos + (1 << 20);
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
