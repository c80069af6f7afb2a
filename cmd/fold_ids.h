/* SPDX-License-Identifier: MIT */
/*
 * fold_ids.h - folding a capture without building a string per sample:
 * each distinct frame (its symbol, dso, inlined name...) is folded once by
 * the rules and its text interned; a sample is then a short array of ids,
 * counted in a table of id arrays. The strings are made once per distinct
 * stack at the end. Same output as folding every sample's text.
 */
#ifndef PS_CMD_FOLD_IDS_H
#define PS_CMD_FOLD_IDS_H

#include <stddef.h>
#include <stdint.h>
#include "fold_int.h"

typedef struct fold_ids fold_ids;

/** What makes two frames fold to the same text. */
typedef struct fold_ids_key {
    const void *a, *b, *c;
    uint64_t    d;
} fold_ids_key;

fold_ids *fold_ids_new(void);
void fold_ids_free(fold_ids *x);

/** The id of a frame seen before: 1 (found) or 0. */
int  fold_ids_frame(fold_ids *x, const fold_ids_key *k, uint32_t *id);
/** Remember a frame's text; 0 or -1 (out of memory). */
int  fold_ids_frame_put(fold_ids *x, const fold_ids_key *k, const char *s, size_t n,
                        uint32_t *id);
/** The id of a string (a root frame); 0 or -1. */
int  fold_ids_intern(fold_ids *x, const char *s, size_t n, uint32_t *id);
/** Count a stack given root first as ids; its handle in *handle; 0 or -1. */
int  fold_ids_add(fold_ids *x, const uint32_t *ids, size_t n, uint64_t count,
                  uint32_t *handle);
/** Count a stack again by its handle. */
void fold_ids_count(fold_ids *x, uint32_t handle, uint64_t count);

/**
 * The chain cache: a sample's raw call chain (with its thread and event)
 * to the handle of the stack it folded to, so a chain seen again is not
 * resolved again. Valid only while the threads' maps and comms do not
 * change: the caller clears it on every record that changes them.
 * fold_ids_chain: 1 (found, *handle set) or 0.
 */
int  fold_ids_chain(fold_ids *x, uint64_t pid_tid, const void *ev, const uint64_t *ips,
                    size_t n, uint32_t *handle);
int  fold_ids_chain_put(fold_ids *x, uint64_t pid_tid, const void *ev, const uint64_t *ips,
                        size_t n, uint32_t handle);
void fold_ids_chains_clear(fold_ids *x);
/** Every stack as text into t; 0 or -1. */
int  fold_ids_flush(fold_ids *x, fold_table *t);

#endif /* PS_CMD_FOLD_IDS_H */
