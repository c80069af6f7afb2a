/* SPDX-License-Identifier: MIT */
/*
 * records.h - decoding one record's bytes into a ps_event (spec 7, 8, 9.1).
 * The caller (session.c) frames records, finds their evsel and hands over
 * an 8-aligned copy (always a writable copy when the producer's byte order
 * differs: arrays are swapped in place there).
 */
#ifndef PS_RECORDS_H
#define PS_RECORDS_H

#include "util.h"

/* Growable vectors owned by the session, reused for every record. */
typedef struct ps_rec_vectors {
    ps_read_value *rv;
    size_t         rv_cap;
    int32_t       *cpus;
    size_t         cpus_cap;
    ps_read_value  single;      /* the value of a non-GROUP read */
    char          *str;         /* terminated copy of an unterminated string */
    size_t         str_cap;
} ps_rec_vectors;

typedef struct ps_rec {
    const uint8_t  *p;          /* the record, header included, 8-aligned */
    uint8_t        *w;          /* == p when writable (always when swap) */
    size_t          size;       /* header.size */
    int             swap;
    uint64_t        off;        /* input offset, for messages */
    const ps_evsel *evsel;      /* NULL for user records / unknown */
    int             sample_id_all;  /* the record carries a trailer */
    const uint8_t  *extra;      /* TRACING_DATA: the bytes after the record */
    uint64_t        extra_size;
    ps_rec_vectors *vec;
} ps_rec;

/**
 * Decode r into ev (type/misc/size already set by the caller). Kernel
 * records get their trailer decoded when r->sample_id_all.
 * @return PS_OK or a negative code; err->msg names the record type and the
 *         problem (the caller prefixes file, offset and record index).
 */
int ps_records__decode(ps_event *ev, const ps_rec *r, ps_error *err);

/** Decode a sample_id trailer of sample_type st from the last bytes of r. */
int ps_records__trailer(ps_sample_id *out, const ps_rec *r, uint64_t st,
                        ps_error *err);

/** Smallest legal header.size for a type (8 for types we do not know). */
size_t ps_records__min_size(uint32_t type);
/** 1 if we have a decoder for type. */
int ps_records__known(uint32_t type);

#endif /* PS_RECORDS_H */
