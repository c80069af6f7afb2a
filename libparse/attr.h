/* SPDX-License-Identifier: MIT */
/*
 * attr.h - perf_event_attr bytes <-> ps_attr (spec section 3, 4.3).
 * Used by header.c (attr table), records.c (HEADER_ATTR), features.c
 * (EVENT_DESC) and ring.c (binary --attr files).
 */
#ifndef PS_ATTR_H
#define PS_ATTR_H

#include "util.h"

#define PS_ATTR_SIZE_VER0 64
#define PS_ATTR_SIZE_KNOWN 136     /* VER8: the largest layout we decode */

/**
 * Decode a perf_event_attr of attr.size bytes at p (avail bytes readable).
 * Fields past attr.size read as zero; bytes past the fields we know are
 * ignored. swap: the producer had the other byte order (flags word bit
 * order reversed per byte, spec 4.3).
 * @return PS_OK, or PS_ETRUNC/PS_ECORRUPT with err naming off.
 */
int ps_attr__decode(ps_attr *out, const uint8_t *p, size_t avail, int swap,
                    uint64_t off, ps_error *err);

/** The attr's size as stored (0 read as 64), or 0 if avail < 8. */
uint32_t ps_attr__stored_size(const uint8_t *p, size_t avail, int swap);

/** Bytes a sample_id trailer of this sample_type takes (spec 9.1). */
size_t ps_attr__trailer_size(uint64_t sample_type);
/** id_pos / is_pos as perf computes them (spec 9.2), -1 when absent. */
int ps_attr__id_pos(uint64_t sample_type);
int ps_attr__is_pos(uint64_t sample_type);

#endif /* PS_ATTR_H */
