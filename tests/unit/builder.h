/* SPDX-License-Identifier: MIT */
/*
 * builder.h - builds perf.data files byte by byte, in either byte order, for
 * the unit tests: a file header, an attr table with ids, a data section of
 * hand-made records, and no features. Follows shared/spec/perf-data-format.md
 * sections 2, 3 and 4 (other-endian files: every integer swapped at its
 * width, the attr flags word bit-reversed within each byte).
 */
#ifndef PS_TEST_BUILDER_H
#define PS_TEST_BUILDER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perfsift.h"

typedef struct buf {
    uint8_t *p;
    size_t   n, cap;
    int      swap;
} buf;

static inline void buf_put(buf *b, const void *v, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, v, n);
    b->n += n;
}

static inline void put8(buf *b, uint8_t v) { buf_put(b, &v, 1); }
static inline void put16(buf *b, uint16_t v) { if (b->swap) v = __builtin_bswap16(v); buf_put(b, &v, 2); }
static inline void put32(buf *b, uint32_t v) { if (b->swap) v = __builtin_bswap32(v); buf_put(b, &v, 4); }
static inline void put64(buf *b, uint64_t v) { if (b->swap) v = __builtin_bswap64(v); buf_put(b, &v, 8); }

/* Patch a u16 at off (record sizes). */
static inline void patch16(buf *b, size_t off, uint16_t v)
{
    if (b->swap) v = __builtin_bswap16(v);
    memcpy(b->p + off, &v, 2);
}

static inline uint64_t reverse_bits_per_byte(uint64_t v)
{
    uint64_t out = 0;
    int byte, bit;

    for (byte = 0; byte < 8; byte++) {
        unsigned x = (unsigned)(v >> (8 * byte)) & 0xff, r = 0;

        for (bit = 0; bit < 8; bit++)
            if (x & (1u << bit)) r |= 1u << (7 - bit);
        out |= (uint64_t)r << (8 * byte);
    }
    return out;
}

/* A 128-byte (VER7) perf_event_attr. */
static inline void put_attr(buf *b, const ps_attr *a)
{
    uint64_t flags = b->swap ? reverse_bits_per_byte(a->flags) : a->flags;

    put32(b, a->type); put32(b, 128); put64(b, a->config); put64(b, a->sample_period);
    put64(b, a->sample_type); put64(b, a->read_format);
    buf_put(b, &flags, 8);
    put32(b, a->wakeup_events); put32(b, a->bp_type); put64(b, a->config1);
    put64(b, a->config2); put64(b, a->branch_sample_type); put64(b, a->sample_regs_user);
    put32(b, a->sample_stack_user); put32(b, (uint32_t)a->clockid);
    put64(b, a->sample_regs_intr); put32(b, a->aux_watermark); put16(b, a->sample_max_stack);
    put16(b, 0); put32(b, a->aux_sample_size); put32(b, 0); put64(b, a->sig_data);
}

/* Start a record; returns its offset for finish_record(). */
static inline size_t begin_record(buf *b, uint32_t type, uint16_t misc)
{
    size_t at = b->n;

    put32(b, type); put16(b, misc); put16(b, 0);
    return at;
}

static inline void finish_record(buf *b, size_t at)
{
    patch16(b, at + 6, (uint16_t)(b->n - at));
}

/* A whole file: header, attrs (each with nr_ids[i] ids from ids[]), data. */
static inline buf build_file(int swap, const ps_attr *attrs, int nr_attrs, const uint64_t *ids,
                      const int *nr_ids, const buf *data)
{
    buf f = { 0 };
    size_t attr_off, ids_off, data_off;
    int i, k = 0, total_ids = 0;

    f.swap = swap;
    for (i = 0; i < nr_attrs; i++)
        total_ids += nr_ids ? nr_ids[i] : 0;
    ids_off = 104;
    attr_off = ids_off + 8 * (size_t)total_ids;
    data_off = attr_off + (size_t)nr_attrs * 144;
    buf_put(&f, "PERFILE2", 8);
    if (swap) memcpy(f.p, "2ELIFREP", 8);
    put64(&f, 104); put64(&f, 144); put64(&f, attr_off); put64(&f, (uint64_t)nr_attrs * 144);
    put64(&f, data_off); put64(&f, data->n); put64(&f, 0); put64(&f, 0);
    put64(&f, 0); put64(&f, 0); put64(&f, 0); put64(&f, 0);
    for (i = 0; i < total_ids; i++)
        put64(&f, ids[i]);
    for (i = 0; i < nr_attrs; i++) {
        int n = nr_ids ? nr_ids[i] : 0;

        put_attr(&f, &attrs[i]);
        put64(&f, n ? ids_off + 8 * (uint64_t)k : 0);
        put64(&f, 8 * (uint64_t)n);
        k += n;
    }
    buf_put(&f, data->p, data->n);
    return f;
}

/* Write bytes to a fresh temp file; returns its path (static buffer). */
static const char *write_temp(const void *p, size_t n)
{
    static char path[64];
    int fd;

    strcpy(path, "/tmp/perfsift-unit-XXXXXX");
    fd = mkstemp(path);
    if (fd < 0 || write(fd, p, n) != (ssize_t)n) {
        perror("write_temp");
        exit(2);
    }
    close(fd);
    return path;
}

#endif /* PS_TEST_BUILDER_H */
