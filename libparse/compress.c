/* SPDX-License-Identifier: MIT */
/*
 * compress.c - zstd inflation of COMPRESSED/COMPRESSED2 payloads (spec 11).
 * One ZSTD_DStream per data file: perf never ends its frame between records,
 * so a later record cannot be decoded with a fresh context. Never frames
 * records itself; session.c reads the nested stream through peek/consume.
 */
#include <zstd.h>
#include "compress.h"

#define OUT_STEP (128 * 1024)

void ps_zstream__free(ps_zstream *z)
{
    if (z->zds)
        ZSTD_freeDStream(z->zds);
    free(z->in);
    free(z->out);
    memset(z, 0, sizeof(*z));
}

void ps_zstream__reset(ps_zstream *z)
{
    if (z->zds)
        ZSTD_initDStream(z->zds);
    z->in_len = z->in_pos = 0;
    z->flush_pending = 0;
    z->out_len = z->out_pos = 0;
}

int ps_zstream__feed(ps_zstream *z, const uint8_t *data, size_t n, uint64_t off,
                     uint64_t max_out, ps_error *err)
{
    if (z->zds == NULL) {
        if ((z->zds = ZSTD_createDStream()) == NULL)
            return ps_error__set(err, PS_ENOMEM, off, "out of memory (zstd)");
        ZSTD_initDStream(z->zds);
    }
    if (ps_grow((void **)&z->in, &z->in_cap, n ? n : 1, 1) < 0)
        return ps_error__set(err, PS_ENOMEM, off, "out of memory");
    memcpy(z->in, data, n);
    z->in_len = n;
    z->in_pos = 0;
    z->flush_pending = 0;
    z->container_off = off;
    z->fed_out = 0;
    z->max_out = max_out;
    return PS_OK;
}

/* Inflate more input into out until `want` bytes are pending or the input
 * is used up. */
static int inflate_more(ps_zstream *z, size_t want, ps_error *err)
{
    if (z->out_pos > 0) {           /* keep only the unconsumed tail */
        memmove(z->out, z->out + z->out_pos, z->out_len - z->out_pos);
        z->out_len -= z->out_pos;
        z->out_pos = 0;
    }
    while (z->out_len < want && (z->in_pos < z->in_len || z->flush_pending)) {
        ZSTD_inBuffer in = { z->in, z->in_len, z->in_pos };
        ZSTD_outBuffer out;
        size_t r, room = want - z->out_len < OUT_STEP ? OUT_STEP : want - z->out_len;

        if (ps_grow((void **)&z->out, &z->out_cap, z->out_len + room, 1) < 0)
            return ps_error__set(err, PS_ENOMEM, z->container_off, "out of memory");
        out.dst = z->out;
        out.size = z->out_len + room;
        out.pos = z->out_len;
        r = ZSTD_decompressStream(z->zds, &out, &in);
        if (ZSTD_isError(r))
            return ps_error__set(err, PS_ECORRUPT, z->container_off,
                                 "COMPRESSED record: zstd: %s", ZSTD_getErrorName(r));
        z->in_pos = in.pos;
        z->fed_out += out.pos - z->out_len;
        z->out_len = out.pos;
        if (z->max_out && z->fed_out > z->max_out)
            return ps_error__set(err, PS_ECORRUPT, z->container_off,
                                 "COMPRESSED record: inflates past %llu bytes, more than "
                                 "perf's decompression buffer holds (zstd bomb?)",
                                 (unsigned long long)z->max_out);
        z->flush_pending = out.pos == out.size;   /* zstd may hold more output */
        if (out.pos < out.size && in.pos == in.size)
            break;
    }
    return PS_OK;
}

int64_t ps_zstream__peek(ps_zstream *z, size_t n, const uint8_t **p, ps_error *err)
{
    size_t have = z->out_len - z->out_pos;
    int rc;

    if (have < n) {
        if ((rc = inflate_more(z, n, err)) < 0)
            return rc;
        have = z->out_len - z->out_pos;
    }
    *p = z->out ? z->out + z->out_pos : NULL;   /* NULL + 0 is undefined */
    return (int64_t)(have < n ? have : n);
}

void ps_zstream__consume(ps_zstream *z, size_t n)
{
    z->out_pos += n;
    z->out_total += n;
}

size_t ps_zstream__pending(const ps_zstream *z)
{
    return z->out_len - z->out_pos;
}

int ps_zstream__has_input(const ps_zstream *z)
{
    return z->in_pos < z->in_len || z->flush_pending;
}
