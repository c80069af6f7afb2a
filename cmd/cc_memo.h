/* SPDX-License-Identifier: MIT */
/*
 * cc_memo.h - where a chain ended in a row's call graph, remembered, so
 * that the same chain into the same row again adds its sums along the path
 * (cc_replay()) instead of walking and matching it entry by entry. With
 * children every row of a chain takes the part of it from that row on, so
 * a sample of depth n did n walks of up to n entries; with this, n lookups.
 *
 * A chain's parts are the suffixes ents[i..n) of its cc_ent array: each
 * has a number (a trie of them, read from the end), the same for the same
 * entries. Entries are the same here when every field perf's comparison or
 * the printing reads is equal (the address only of an unresolved entry),
 * so that two such chains go the same way through any tree.
 *
 * An end is remembered with its node's length: a node only ever gets
 * shorter (a split moves its tail, and where chains ended, to a new node),
 * so an end whose length changed is walked again.
 */
#ifndef PS_CMD_CC_MEMO_H
#define PS_CMD_CC_MEMO_H

#include "callchain.h"

typedef struct cc_memo cc_memo;

/** An empty memo; NULL out of memory. */
cc_memo *cc_memo_new(void);
void     cc_memo_free(cc_memo *m);
/** Forget everything (the trees it points into are gone). */
void     cc_memo_clear(cc_memo *m);
/**
 * ids[i]: the number of ents[i..n), for i < n. 0, or -1 out of memory.
 * Past its size cap the memo numbers nothing new: ids of 0 then.
 */
int      cc_memo_suffixes(cc_memo *m, const cc_ent *ents, size_t n, uint32_t *ids);
/** Where the chain numbered sfx ended in row `row` of `owner`, if that is
 * still its end; NULL otherwise (and for sfx 0). */
cc_node *cc_memo_get(const cc_memo *m, const void *owner, uint32_t row, uint32_t sfx);
/** Remember leaf as that end. 0, or -1 out of memory (or past the cap:
 * then not remembered, and 0). */
int      cc_memo_put(cc_memo *m, const void *owner, uint32_t row, uint32_t sfx, cc_node *leaf);

#endif /* PS_CMD_CC_MEMO_H */
