/* SPDX-License-Identifier: MIT */
/*
 * graph_memo.h - the call graph work of a sample's chain, kept by its raw
 * addresses, for the next sample with the same chain in the same row: its
 * entries' rows, the chain entries and where each chain it added to a
 * row's graph ended. Most samples repeat a chain seen before (some 2,500
 * chains in a million samples of the bench's capture), and then neither
 * the resolving, nor the chain entries, nor the walks are done again.
 *
 * What a chain resolves to depends on the maps and threads, which only
 * the records that change the resolver change: the owner clears the memo
 * at each. Only for samples whose chain is all in the sample (no user
 * stack to unwind, no branch stack): the raw addresses then say it all.
 */
#ifndef PS_CMD_GRAPH_MEMO_H
#define PS_CMD_GRAPH_MEMO_H

#include <stddef.h>
#include <stdint.h>
#include "callchain.h"

/** A sample's chain and what decides its rows (the keys of hist rows). */
typedef struct gm_key {
    const void     *h;          /* the event's hist */
    uint32_t        self;       /* the sample's own row */
    const char     *comm;       /* interned in h */
    int32_t         pid, tid, cpu;
    char            level;
    uint64_t        nraw;
    const uint64_t *raw;        /* the sample's callchain, markers and all */
} gm_key;

/** What the chain did (owned by the memo; valid until the next clear). */
typedef struct gm_ent {
    gm_key     k;               /* raw: the memo's copy */
    size_t     n;               /* chain entries */
    uint32_t  *rows;            /* [n] each entry's row */
    cc_node  **leaf;            /* [n] where entry i's row's graph took the
                                 * chain on from i (NULL: not the first time
                                 * the row came), [n] the own row's end */
    size_t    *len;             /* [n + 1] cc_leaf_len() of each leaf */
    cc_ent    *ents;            /* [n] the chain entries, and */
    uint32_t  *sfx;             /* [n] their suffixes' cc_memo numbers: to
                                 * add the chain again where a leaf moved */
} gm_ent;

typedef struct graph_memo graph_memo;

graph_memo *graph_memo_new(void);
void        graph_memo_free(graph_memo *m);
void        graph_memo_clear(graph_memo *m);
/** The entry of key, or NULL. */
gm_ent     *graph_memo_find(const graph_memo *m, const gm_key *k);
/**
 * A new entry for key (absent) with room for n chain entries, to be filled
 * in; NULL out of memory or past the memo's cap (then nothing is kept).
 */
gm_ent     *graph_memo_add(graph_memo *m, const gm_key *k, size_t n);

#endif /* PS_CMD_GRAPH_MEMO_H */
