/* SPDX-License-Identifier: MIT */
/*
 * writer.c - the perf.data writer (writer.h): header, id arrays and attr
 * table, the data section (plain or zstd COMPRESSED), the feature table,
 * and the header rewritten at the end; pipe mode's record forms of the same.
 *
 * Invariants: w->out_off is the file offset of the next byte handed to
 * out_put() (buffered or not); in file mode the data section is
 * [w->data_off, w->out_off) once the compressor is drained. A compressed
 * chunk is at most ZIN_CAP bytes of records and is flushed whole before
 * the next one starts, so no COMPRESSED record decompresses to more than
 * ZIN_CAP bytes (the COMPRESSED feature's mmap_len, spec 11.3, is larger).
 */
#include <errno.h>
#include <unistd.h>
#include <zstd.h>
#include "util.h"
#include "writer.h"

#define OUT_CAP        (256u << 10)
#define ZIN_CAP        (64u << 10)
#define ZOUT_MAX       (65535u - 8)      /* COMPRESSED header.size is a u16 */
#define MMAP_LEN       PS_WRITER_MMAP_LEN
#define HDR_SIZE       104
#define PIPE_HDR_SIZE  16

enum { REC_COMPRESSED = 81, REC_ATTR = 64, REC_FEATURE = 80, REC_TRACING_DATA = 66,
       REC_FINISHED_ROUND = 68 };

typedef struct w_attr {
    uint8_t   attr[PS_WRITER_ATTR_SIZE];
    uint64_t *ids;
    size_t    nids;
    char     *name;
} w_attr;

typedef struct w_feat {
    uint8_t *buf;
    size_t   len;
    int      set;
} w_feat;

struct ps_writer {
    int           fd;
    unsigned      flags;
    int           level;
    int           begun;
    w_attr       *attrs;
    size_t        nattrs, cap_attrs;
    w_feat        feat[PS_FEAT_LAST];
    uint8_t      *out;              /* bytes on their way to fd */
    size_t        out_len;
    uint64_t      out_off;
    uint64_t      flushed;          /* bytes the fd has taken */
    uint64_t      data_off;
    uint64_t      in_bytes;         /* record bytes before compression */
    ZSTD_CStream *zc;
    uint8_t      *zin;
    size_t        zin_len;
    uint8_t      *zout;             /* 8-byte header + ZOUT_MAX */
};

static void rec_header(uint8_t *p, uint32_t type, uint16_t misc, uint16_t size)
{
    memcpy(p, &type, 4);
    memcpy(p + 4, &misc, 2);
    memcpy(p + 6, &size, 2);
}

/* ------------------------------------------------------------------------ */
/* Bytes to the fd                                                           */

static int out_flush(ps_writer *w, ps_error *err)
{
    size_t done = 0;

    while (done < w->out_len) {
        ssize_t n = write(w->fd, w->out + done, w->out_len - done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return ps_error__set(err, PS_EIO, w->flushed + done,
                                 "cannot write the capture: %s",
                                 n < 0 ? strerror(errno) : "short write");
        done += (size_t)n;
    }
    w->flushed += done;
    w->out_len = 0;
    return PS_OK;
}

static int out_put(ps_writer *w, const void *p, size_t n, ps_error *err)
{
    const uint8_t *b = p;

    while (n > 0) {
        size_t room = OUT_CAP - w->out_len, k = n < room ? n : room;

        memcpy(w->out + w->out_len, b, k);
        w->out_len += k;
        w->out_off += k;
        b += k;
        n -= k;
        if (w->out_len == OUT_CAP && out_flush(w, err) < 0)
            return err->code;
    }
    return PS_OK;
}

/* ------------------------------------------------------------------------ */
/* Compression (spec 11): one stream per file, flushed per chunk            */

static int z_emit(ps_writer *w, ZSTD_outBuffer *o, ps_error *err)
{
    if (o->pos == 0)
        return PS_OK;
    rec_header(w->zout, REC_COMPRESSED, 0, (uint16_t)(8 + o->pos));
    if (out_put(w, w->zout, 8 + o->pos, err) < 0)
        return err->code;
    o->pos = 0;
    return PS_OK;
}

static int z_chunk(ps_writer *w, ps_error *err)
{
    ZSTD_inBuffer in = { w->zin, w->zin_len, 0 };
    ZSTD_outBuffer o = { w->zout + 8, ZOUT_MAX, 0 };
    size_t r;

    while (in.pos < in.size) {
        r = ZSTD_compressStream(w->zc, &o, &in);
        if (ZSTD_isError(r))
            return ps_error__set(err, PS_EIO, PS_NO_OFFSET, "zstd: %s", ZSTD_getErrorName(r));
        if (o.pos == o.size && z_emit(w, &o, err) < 0)
            return err->code;
    }
    do {
        r = ZSTD_flushStream(w->zc, &o);
        if (ZSTD_isError(r))
            return ps_error__set(err, PS_EIO, PS_NO_OFFSET, "zstd: %s", ZSTD_getErrorName(r));
        if ((o.pos == o.size || r == 0) && z_emit(w, &o, err) < 0)
            return err->code;
    } while (r != 0);
    w->zin_len = 0;
    return PS_OK;
}

static int z_put(ps_writer *w, const uint8_t *p, size_t n, ps_error *err)
{
    while (n > 0) {
        size_t room = ZIN_CAP - w->zin_len, k = n < room ? n : room;

        memcpy(w->zin + w->zin_len, p, k);
        w->zin_len += k;
        p += k;
        n -= k;
        if (w->zin_len == ZIN_CAP && z_chunk(w, err) < 0)
            return err->code;
    }
    return PS_OK;
}

/* ------------------------------------------------------------------------ */
/* Life cycle                                                                */

int ps_writer_open(ps_writer **out, int fd, unsigned flags, int level, ps_error *err)
{
    ps_writer *w = calloc(1, sizeof(*w));

    *out = NULL;
    if (w == NULL || (w->out = malloc(OUT_CAP)) == NULL)
        goto oom;
    w->fd = fd;
    w->flags = flags;
    w->level = level > 0 ? level : 1;
    if (flags & PS_WRITER_ZSTD) {
        if ((w->zc = ZSTD_createCStream()) == NULL || (w->zin = malloc(ZIN_CAP)) == NULL ||
            (w->zout = malloc(8 + ZOUT_MAX)) == NULL)
            goto oom;
        if (ZSTD_isError(ZSTD_initCStream(w->zc, w->level))) {
            ps_writer_free(w);
            return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET, "zstd: bad level %d", level);
        }
    }
    *out = w;
    return PS_OK;
oom:
    ps_writer_free(w);
    return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
}

void ps_writer_free(ps_writer *w)
{
    size_t i;

    if (w == NULL)
        return;
    for (i = 0; i < w->nattrs; i++) {
        free(w->attrs[i].ids);
        free(w->attrs[i].name);
    }
    for (i = 0; i < PS_FEAT_LAST; i++)
        free(w->feat[i].buf);
    free(w->attrs);
    free(w->out);
    ZSTD_freeCStream(w->zc);
    free(w->zin);
    free(w->zout);
    free(w);
}

int ps_writer_add_attr(ps_writer *w, const void *attr, const uint64_t *ids, size_t nids,
                       const char *name, ps_error *err)
{
    w_attr *a;
    uint32_t size = PS_WRITER_ATTR_SIZE;

    if (w->begun)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET, "writer: attr added after begin");
    if (ps_grow((void **)&w->attrs, &w->cap_attrs, w->nattrs + 1, sizeof(*w->attrs)) < 0)
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
    a = &w->attrs[w->nattrs];
    memset(a, 0, sizeof(*a));
    memcpy(a->attr, attr, PS_WRITER_ATTR_SIZE);
    memcpy(a->attr + 4, &size, 4);
    a->name = strdup(name ? name : "");
    a->ids = malloc((nids ? nids : 1) * sizeof(*ids));
    if (a->name == NULL || a->ids == NULL) {
        free(a->name);
        free(a->ids);
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
    }
    if (nids)
        memcpy(a->ids, ids, nids * sizeof(*ids));
    a->nids = nids;
    w->nattrs++;
    return PS_OK;
}

int ps_writer_set_feature(ps_writer *w, unsigned bit, const void *buf, size_t len,
                          ps_error *err)
{
    uint8_t *copy;

    if (bit == 0 || bit >= PS_FEAT_LAST)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET, "writer: bad feature bit %u", bit);
    if ((w->flags & PS_WRITER_PIPE) && w->begun)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                             "writer: feature %u set after a pipe stream began", bit);
    if ((copy = malloc(len ? len : 1)) == NULL)
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
    if (len)
        memcpy(copy, buf, len);
    free(w->feat[bit].buf);
    w->feat[bit] = (w_feat){ copy, len, 1 };
    return PS_OK;
}

/* EVENT_DESC (spec 6.4): every attr with its name and ids. */
static int set_event_desc(ps_writer *w, ps_error *err)
{
    size_t i, len = 8, pos;
    uint8_t *b;
    int rc;

    for (i = 0; i < w->nattrs; i++)
        len += PS_WRITER_ATTR_SIZE + 8 + 64 * (strlen(w->attrs[i].name) / 64 + 1) +
               8 * w->attrs[i].nids;
    if ((b = calloc(1, len)) == NULL)
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
    ((uint32_t *)b)[0] = (uint32_t)w->nattrs;
    ((uint32_t *)b)[1] = PS_WRITER_ATTR_SIZE;
    pos = 8;
    for (i = 0; i < w->nattrs; i++) {
        const w_attr *a = &w->attrs[i];
        uint32_t n = (uint32_t)a->nids, slen = (uint32_t)(64 * (strlen(a->name) / 64 + 1));

        memcpy(b + pos, a->attr, PS_WRITER_ATTR_SIZE);
        pos += PS_WRITER_ATTR_SIZE;
        memcpy(b + pos, &n, 4);
        memcpy(b + pos + 4, &slen, 4);
        memcpy(b + pos + 8, a->name, strlen(a->name));
        pos += 8 + slen;
        memcpy(b + pos, a->ids, 8 * a->nids);
        pos += 8 * a->nids;
    }
    rc = ps_writer_set_feature(w, PS_HEADER_EVENT_DESC, b, pos, err);
    free(b);
    return rc;
}

/* The COMPRESSED feature (spec 6.4): version 0, zstd, level, ratio, mmap_len. */
static int set_compressed(ps_writer *w, ps_error *err)
{
    uint64_t out = w->flushed + w->out_len - w->data_off;
    uint32_t v[5] = { 0, 1, (uint32_t)w->level, 0, MMAP_LEN };

    if (out > 0 && w->begun)
        v[3] = (uint32_t)(w->in_bytes / out);
    return ps_writer_set_feature(w, PS_HEADER_COMPRESSED, v, sizeof(v), err);
}

static void file_header(const ps_writer *w, uint8_t h[HDR_SIZE], uint64_t data_size)
{
    uint64_t v[13] = { 0 };
    uint64_t attrs_size = w->nattrs * (PS_WRITER_ATTR_SIZE + 16);
    unsigned bit;

    memcpy(&v[0], "PERFILE2", 8);
    v[1] = HDR_SIZE;
    v[2] = PS_WRITER_ATTR_SIZE + 16;
    v[3] = w->data_off - attrs_size;
    v[4] = attrs_size;
    v[5] = w->data_off;
    v[6] = data_size;
    for (bit = 1; bit < PS_FEAT_LAST; bit++)
        if (w->feat[bit].set && data_size > 0)
            v[9 + bit / 64] |= 1ull << (bit % 64);
    memcpy(h, v, HDR_SIZE);
}

/* File mode: header (data.size 0 until finish), id arrays, attr table. */
static int begin_file(ps_writer *w, ps_error *err)
{
    uint8_t h[HDR_SIZE];
    uint64_t ids_off = HDR_SIZE, attrs_off;
    size_t i;

    attrs_off = ids_off;
    for (i = 0; i < w->nattrs; i++)
        attrs_off += 8 * w->attrs[i].nids;
    w->data_off = attrs_off + w->nattrs * (PS_WRITER_ATTR_SIZE + 16);
    file_header(w, h, 0);
    if (out_put(w, h, sizeof(h), err) < 0)
        return err->code;
    for (i = 0; i < w->nattrs; i++)
        if (out_put(w, w->attrs[i].ids, 8 * w->attrs[i].nids, err) < 0)
            return err->code;
    for (i = 0; i < w->nattrs; i++) {
        uint64_t sec[2] = { ids_off, 8 * w->attrs[i].nids };

        if (out_put(w, w->attrs[i].attr, PS_WRITER_ATTR_SIZE, err) < 0 ||
            out_put(w, sec, sizeof(sec), err) < 0)
            return err->code;
        ids_off += sec[1];
    }
    return out_flush(w, err);
}

static int pipe_record(ps_writer *w, uint32_t type, const void *a, size_t alen,
                       const void *b, size_t blen, ps_error *err)
{
    uint8_t h[8];

    if (8 + alen + blen > 65535)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                             "pipe mode: a type %u record would be %zu bytes", type,
                             8 + alen + blen);
    rec_header(h, type, 0, (uint16_t)(8 + alen + blen));
    if (out_put(w, h, 8, err) < 0 || out_put(w, a, alen, err) < 0 ||
        out_put(w, b, blen, err) < 0)
        return err->code;
    return PS_OK;
}

/* HEADER_TRACING_DATA (spec 7.3.3): the blob follows the record, padded. */
static int pipe_tracing(ps_writer *w, ps_error *err)
{
    const w_feat *f = &w->feat[PS_HEADER_TRACING_DATA];
    uint32_t v[2] = { (uint32_t)PS_ALIGN8(f->len), 0 };
    static const uint8_t zero[8];

    if (pipe_record(w, REC_TRACING_DATA, v, sizeof(v), NULL, 0, err) < 0 ||
        out_put(w, f->buf, f->len, err) < 0 ||
        out_put(w, zero, v[0] - f->len, err) < 0)
        return err->code;
    return PS_OK;
}

/* Pipe mode (spec 5.2): ATTRs, FEATUREs, the end marker, TRACING_DATA. */
static int begin_pipe(ps_writer *w, ps_error *err)
{
    uint64_t h[2] = { 0, PIPE_HDR_SIZE }, id;
    unsigned bit;
    size_t i;

    memcpy(&h[0], "PERFILE2", 8);
    if (out_put(w, h, sizeof(h), err) < 0)
        return err->code;
    for (i = 0; i < w->nattrs; i++)
        if (pipe_record(w, REC_ATTR, w->attrs[i].attr, PS_WRITER_ATTR_SIZE, w->attrs[i].ids,
                        8 * w->attrs[i].nids, err) < 0)
            return err->code;
    for (bit = 1; bit < PS_FEAT_LAST; bit++) {
        if (!w->feat[bit].set || bit == PS_HEADER_TRACING_DATA || bit == PS_HEADER_BUILD_ID)
            continue;
        id = bit;
        if (pipe_record(w, REC_FEATURE, &id, 8, w->feat[bit].buf, w->feat[bit].len, err) < 0)
            return err->code;
    }
    id = PS_FEAT_LAST;
    if (pipe_record(w, REC_FEATURE, &id, 8, NULL, 0, err) < 0)
        return err->code;
    if (w->feat[PS_HEADER_TRACING_DATA].set && pipe_tracing(w, err) < 0)
        return err->code;
    w->data_off = w->out_off;
    return out_flush(w, err);
}

int ps_writer_begin(ps_writer *w, ps_error *err)
{
    int rc;

    if (w->begun)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET, "writer: begun twice");
    if (set_event_desc(w, err) < 0)
        return err->code;
    if ((w->flags & PS_WRITER_ZSTD) && set_compressed(w, err) < 0)
        return err->code;
    rc = (w->flags & PS_WRITER_PIPE) ? begin_pipe(w, err) : begin_file(w, err);
    w->begun = 1;
    return rc;
}

int ps_writer_write(ps_writer *w, const void *rec, size_t len, ps_error *err)
{
    if (!w->begun)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET, "writer: records before begin");
    w->in_bytes += len;
    if (w->flags & PS_WRITER_ZSTD)
        return z_put(w, rec, len, err);
    return out_put(w, rec, len, err);
}

int ps_writer_round(ps_writer *w, ps_error *err)
{
    uint8_t h[8];

    rec_header(h, REC_FINISHED_ROUND, 0, 8);
    if (ps_writer_write(w, h, 8, err) < 0)
        return err->code;
    if (w->zc != NULL && w->zin_len > 0 && z_chunk(w, err) < 0)
        return err->code;
    return out_flush(w, err);
}

/* Feature table at data.offset + data.size, payloads after it (spec 6.1). */
static int write_features(ps_writer *w, ps_error *err)
{
    uint64_t off = w->out_off;
    unsigned bit, n = 0;

    for (bit = 1; bit < PS_FEAT_LAST; bit++)
        n += w->feat[bit].set;
    off += 16ull * n;
    for (bit = 1; bit < PS_FEAT_LAST; bit++) {
        uint64_t sec[2] = { off, w->feat[bit].len };

        if (!w->feat[bit].set)
            continue;
        if (out_put(w, sec, sizeof(sec), err) < 0)
            return err->code;
        off += sec[1];
    }
    for (bit = 1; bit < PS_FEAT_LAST; bit++)
        if (w->feat[bit].set && out_put(w, w->feat[bit].buf, w->feat[bit].len, err) < 0)
            return err->code;
    return out_flush(w, err);
}

int ps_writer_finish(ps_writer *w, ps_error *err)
{
    uint8_t h[HDR_SIZE];
    uint64_t data_size;

    if (!w->begun && ps_writer_begin(w, err) < 0)
        return err->code;               /* an empty capture: attrs only */
    if (w->zc != NULL && w->zin_len > 0 && z_chunk(w, err) < 0)
        return err->code;
    if (w->flags & PS_WRITER_PIPE)
        return out_flush(w, err);
    if (w->out_off == w->data_off && ps_writer_round(w, err) < 0)
        return err->code;        /* perf refuses data.size 0 (spec 15.1) */
    data_size = w->out_off - w->data_off;
    if ((w->flags & PS_WRITER_ZSTD) && set_compressed(w, err) < 0)
        return err->code;
    if (write_features(w, err) < 0)
        return err->code;
    file_header(w, h, data_size);
    if (pwrite(w->fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
        return ps_error__set(err, PS_EIO, 0, "cannot rewrite the capture's header: %s",
                             strerror(errno));
    return PS_OK;
}

uint64_t ps_writer_bytes_in(const ps_writer *w) { return w->in_bytes; }
uint64_t ps_writer_bytes_out(const ps_writer *w) { return w->out_off; }
