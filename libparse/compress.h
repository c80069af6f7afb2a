/* SPDX-License-Identifier: MIT */
/*
 * compress.h - PERF_RECORD_COMPRESSED / COMPRESSED2 payloads as one zstd
 * stream per data file, inflated lazily into a nested record stream (spec
 * section 11). Memory stays bounded by one record plus one window: input is
 * decompressed only as records are taken, so a small record that inflates
 * hugely never becomes one huge allocation.
 */
#ifndef PS_COMPRESS_H
#define PS_COMPRESS_H

#include "util.h"

typedef struct ps_zstream {
    void     *zds;          /* ZSTD_DStream, NULL until the first record */
    uint8_t  *in;           /* copy of the current record's compressed bytes */
    size_t    in_cap, in_len, in_pos;
    uint8_t  *out;          /* decompressed bytes not yet handed out */
    size_t    out_cap, out_len, out_pos;
    uint64_t  out_total;    /* bytes of decompressed stream consumed so far */
    uint64_t  container_off;/* offset of the COMPRESSED record being read */
    int       flush_pending;/* the last call filled out: zstd may hold more */
    uint64_t  fed_out;      /* bytes inflated from the current record's input */
    uint64_t  max_out;      /* ... at most this many (0: no bound); see feed */
} ps_zstream;

void ps_zstream__free(ps_zstream *z);
/** Start a new stream (directory captures: one per data file). */
void ps_zstream__reset(ps_zstream *z);
/**
 * Queue one record's compressed bytes; the previous input must be used up.
 * They may inflate to at most max_out bytes (0: unbounded): perf
 * decompresses each record into a buffer of the ring's size, so more is a
 * zstd bomb, an error rather than endless records.
 */
int ps_zstream__feed(ps_zstream *z, const uint8_t *data, size_t n, uint64_t off,
                     uint64_t max_out, ps_error *err);
/**
 * Make n decompressed bytes contiguous at *p (8-aligned when the stream
 * position is). Returns n, fewer when the queued input is used up (the tail
 * stays for the next COMPRESSED record), or a negative error.
 */
int64_t ps_zstream__peek(ps_zstream *z, size_t n, const uint8_t **p, ps_error *err);
void    ps_zstream__consume(ps_zstream *z, size_t n);
/** Bytes decompressed but not consumed (a record split across chunks). */
size_t  ps_zstream__pending(const ps_zstream *z);
/** 1 while queued compressed input remains. */
int     ps_zstream__has_input(const ps_zstream *z);

#endif /* PS_COMPRESS_H */
