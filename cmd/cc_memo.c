/* SPDX-License-Identifier: MIT */
/*
 * cc_memo.c - chain ends remembered per row (cc_memo.h). Two tables, each
 * an array of entries and a ps_u64map from a 64-bit hash to the entry's
 * index; a hash that two keys share takes the next hash along (rehash)
 * until the key's entry, or a free hash, is found.
 */
#include <stdlib.h>
#include <string.h>
#include "cc_memo.h"
#include "../libparse/u64map.h"
#include "../libparse/util.h"

/* Entries at most in each table: beyond, chains are walked as without
 * the memo (some 150 MiB of tables then; a capture that varied is one
 * whose own call graphs take far more). */
#define MEMO_MAX ((size_t)1 << 20)

typedef struct sfx_node {       /* ents[i..n): ents[i] after the node of ents[i+1..n) */
    uint32_t parent;            /* 0: none (the last entry) */
    cc_ent   e;                 /* normalized: see same_ent() */
} sfx_node;

typedef struct end_ent {
    const void *owner;
    uint32_t    row, sfx;
    cc_node    *leaf;
    size_t      len;            /* cc_leaf_len(leaf) when remembered */
} end_ent;

struct cc_memo {
    sfx_node  *node;            /* [0] unused: ids start at 1 */
    size_t     nnode, capnode;
    ps_u64map  nodes;
    end_ent   *end;
    size_t     nend, capend;
    ps_u64map  ends;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

static uint64_t rehash(uint64_t h)
{
    return (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ULL + 1;
}

/* e with the fields nothing reads cleared (the address of a resolved
 * entry), padding included, for memcmp() */
static void normalize(cc_ent *out, const cc_ent *e)
{
    memset(out, 0, sizeof(*out));
    out->ip = e->name != NULL ? 0 : e->ip;
    out->start = e->start;
    out->dso_ord = e->dso_ord;
    out->dso_seq = e->dso_seq;
    out->dso = e->dso;
    out->name = e->name;
    out->inlined = e->inlined;
}

static uint64_t node_hash(uint32_t parent, const cc_ent *e)
{
    uint64_t h = mix(parent, e->ip);

    h = mix(h, e->start);
    h = mix(h, e->dso_ord ^ ((uint64_t)e->dso_seq << 40));
    h = mix(h, (uintptr_t)e->dso);
    h = mix(h, (uintptr_t)e->name ^ (uint64_t)e->inlined);
    return h;
}

cc_memo *cc_memo_new(void)
{
    cc_memo *m = calloc(1, sizeof(*m));

    if (m == NULL)
        return NULL;
    ps_u64map__init(&m->nodes);
    ps_u64map__init(&m->ends);
    m->nnode = 1;
    return m;
}

void cc_memo_clear(cc_memo *m)
{
    ps_u64map__free(&m->nodes);
    ps_u64map__free(&m->ends);
    ps_u64map__init(&m->nodes);
    ps_u64map__init(&m->ends);
    m->nnode = 1;
    m->nend = 0;
}

void cc_memo_free(cc_memo *m)
{
    if (m == NULL)
        return;
    ps_u64map__free(&m->nodes);
    ps_u64map__free(&m->ends);
    free(m->node);
    free(m->end);
    free(m);
}

/* the number of e after parent: found, or made (0: past the cap; -1 out
 * of memory) */
static int64_t node_of(cc_memo *m, uint32_t parent, const cc_ent *e)
{
    uint64_t h, *v;
    cc_ent k;

    normalize(&k, e);
    h = node_hash(parent, &k);
    while ((v = ps_u64map__get(&m->nodes, h)) != NULL) {
        const sfx_node *nd = &m->node[*v];

        if (nd->parent == parent && memcmp(&nd->e, &k, sizeof(k)) == 0)
            return (int64_t)*v;
        h = rehash(h);
    }
    if (m->nnode >= MEMO_MAX)
        return 0;
    if ((m->nnode >= m->capnode &&
         ps_grow((void **)&m->node, &m->capnode, m->nnode + 1, sizeof(*m->node)) < 0) ||
        ps_u64map__put(&m->nodes, h, m->nnode) < 0)
        return -1;
    m->node[m->nnode].parent = parent;
    memcpy(&m->node[m->nnode].e, &k, sizeof(k));     /* padding too: memcmp() */
    return (int64_t)m->nnode++;
}

int cc_memo_suffixes(cc_memo *m, const cc_ent *ents, size_t n, uint32_t *ids)
{
    uint32_t parent = 0;
    size_t i;

    for (i = n; i-- > 0;) {
        int64_t id = parent != 0 || i == n - 1 ? node_of(m, parent, &ents[i]) : 0;

        if (id < 0)
            return -1;
        ids[i] = parent = (uint32_t)id;
    }
    return 0;
}

static uint64_t end_hash(const void *owner, uint32_t row, uint32_t sfx)
{
    return mix(mix((uintptr_t)owner, row), sfx);
}

/* the entry of (owner, row, sfx), or NULL; *h the hash it has or would take */
static end_ent *end_of(const cc_memo *m, const void *owner, uint32_t row, uint32_t sfx,
                       uint64_t *h)
{
    uint64_t *v;

    for (*h = end_hash(owner, row, sfx); (v = ps_u64map__get(&m->ends, *h)) != NULL;
         *h = rehash(*h)) {
        end_ent *e = &m->end[*v];

        if (e->owner == owner && e->row == row && e->sfx == sfx)
            return e;
    }
    return NULL;
}

cc_node *cc_memo_get(const cc_memo *m, const void *owner, uint32_t row, uint32_t sfx)
{
    const end_ent *e;
    uint64_t h;

    if (sfx == 0 || (e = end_of(m, owner, row, sfx, &h)) == NULL)
        return NULL;
    return cc_leaf_len(e->leaf) == e->len ? e->leaf : NULL;
}

int cc_memo_put(cc_memo *m, const void *owner, uint32_t row, uint32_t sfx, cc_node *leaf)
{
    end_ent *e;
    uint64_t h;

    if (sfx == 0 || leaf == NULL)
        return 0;
    if ((e = end_of(m, owner, row, sfx, &h)) == NULL) {
        if (m->nend >= MEMO_MAX)
            return 0;
        if ((m->nend == m->capend &&
             ps_grow((void **)&m->end, &m->capend, m->nend + 1, sizeof(*m->end)) < 0) ||
            ps_u64map__put(&m->ends, h, m->nend) < 0)
            return -1;
        e = &m->end[m->nend++];
        e->owner = owner;
        e->row = row;
        e->sfx = sfx;
    }
    e->leaf = leaf;
    e->len = cc_leaf_len(leaf);
    return 0;
}
