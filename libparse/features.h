/* SPDX-License-Identifier: MIT */
/*
 * features.h - HEADER_* feature payloads -> ps_features (spec section 6).
 * Called by session.c for each file-mode feature section and for each
 * pipe-mode HEADER_FEATURE record. Never reads files itself.
 */
#ifndef PS_FEATURES_H
#define PS_FEATURES_H

#include "util.h"

/**
 * Decode the payload of feature `feat` (n bytes at p, producer byte order
 * given by swap; off = input offset of p[0] for messages) into f, allocating
 * from a. Sets the feature's bit in f->present on success. Features are
 * decoded in bit order (CPU_TOPOLOGY uses NRCPUS).
 * @return PS_OK; a negative code (bit left clear) when the payload is
 *         malformed: the caller warns and goes on.
 */
int ps_features__decode(ps_features *f, ps_arena *a, unsigned feat,
                        const uint8_t *p, size_t n, int swap, uint64_t off,
                        ps_error *err);

#endif /* PS_FEATURES_H */
