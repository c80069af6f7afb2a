/* SPDX-License-Identifier: MIT */
/*
 * graph_memo.c - chains' graph work kept by their raw addresses
 * (graph_memo.h): entries in an arena of blocks, found through a
 * ps_u64map from a 64-bit hash of the key (a hash two keys share takes
 * the next one along).
 */
#include <stdlib.h>
#include <string.h>
#include "graph_memo.h"
#include "../libparse/u64map.h"
#include "../libparse/util.h"

/* Bytes kept at most between two clears: past them, chains are resolved
 * and walked as without the memo. */
#define MEMO_BYTES ((size_t)64 << 20)

struct graph_memo {
    gm_ent    *ent;
    size_t     nent, capent;
    ps_u64map  by_hash;
    ps_arena   mem;             /* the entries' arrays */
    size_t     bytes;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 0x9e3779b97f4a7c15ULL + (h >> 29);
}

static uint64_t key_hash(const gm_key *k)
{
    uint64_t h = mix((uintptr_t)k->h, ((uint64_t)k->self << 8) | (uint8_t)k->level);
    uint64_t i;

    h = mix(h, (uintptr_t)k->comm);
    h = mix(h, ((uint64_t)(uint32_t)k->pid << 32) | (uint32_t)k->tid);
    h = mix(h, ((uint64_t)(uint32_t)k->cpu << 32) | (uint32_t)k->nraw);
    for (i = 0; i < k->nraw; i++)
        h = mix(h, k->raw[i]);
    return h;
}

static int same_key(const gm_key *a, const gm_key *b)
{
    return a->h == b->h && a->self == b->self && a->comm == b->comm && a->pid == b->pid &&
           a->tid == b->tid && a->cpu == b->cpu && a->level == b->level && a->nraw == b->nraw &&
           memcmp(a->raw, b->raw, a->nraw * sizeof(*a->raw)) == 0;
}

graph_memo *graph_memo_new(void)
{
    graph_memo *m = calloc(1, sizeof(*m));

    if (m == NULL)
        return NULL;
    ps_u64map__init(&m->by_hash);
    ps_arena__init(&m->mem);
    return m;
}

void graph_memo_clear(graph_memo *m)
{
    if (m->nent == 0)
        return;
    ps_u64map__free(&m->by_hash);
    ps_u64map__init(&m->by_hash);
    ps_arena__free(&m->mem);
    ps_arena__init(&m->mem);
    m->nent = 0;
    m->bytes = 0;
}

void graph_memo_free(graph_memo *m)
{
    if (m == NULL)
        return;
    ps_u64map__free(&m->by_hash);
    ps_arena__free(&m->mem);
    free(m->ent);
    free(m);
}

/* the entry of k, or NULL; *h the hash it has or would take */
static gm_ent *find(const graph_memo *m, const gm_key *k, uint64_t *h)
{
    uint64_t *v;

    for (*h = key_hash(k); (v = ps_u64map__get(&m->by_hash, *h)) != NULL;
         *h = *h * 0xbf58476d1ce4e5b9ULL + 1)
        if (same_key(&m->ent[*v].k, k))
            return &m->ent[*v];
    return NULL;
}

gm_ent *graph_memo_find(const graph_memo *m, const gm_key *k)
{
    uint64_t h;

    return m->nent ? find(m, k, &h) : NULL;
}

gm_ent *graph_memo_add(graph_memo *m, const gm_key *k, size_t n)
{
    size_t bytes = k->nraw * sizeof(uint64_t) + n * (sizeof(uint32_t) * 2 + sizeof(cc_ent)) +
                   (n + 1) * (sizeof(cc_node *) + sizeof(size_t));
    uint64_t h;
    gm_ent *e;
    void *raw;

    if (find(m, k, &h) != NULL || m->bytes + bytes > MEMO_BYTES)
        return NULL;
    if (m->nent == m->capent &&
        ps_grow((void **)&m->ent, &m->capent, m->nent + 1, sizeof(*m->ent)) < 0)
        return NULL;
    e = &m->ent[m->nent];
    memset(e, 0, sizeof(*e));
    e->k = *k;
    e->n = n;
    /* (8-byte members first: the arena hands out 8-aligned pieces) */
    if ((raw = ps_arena__alloc(&m->mem, k->nraw * sizeof(uint64_t) + 1)) == NULL ||
        (e->leaf = ps_arena__alloc(&m->mem, (n + 1) * sizeof(*e->leaf))) == NULL ||
        (e->len = ps_arena__alloc(&m->mem, (n + 1) * sizeof(*e->len))) == NULL ||
        (e->ents = ps_arena__alloc(&m->mem, n * sizeof(*e->ents) + 1)) == NULL ||
        (e->rows = ps_arena__alloc(&m->mem, n * sizeof(*e->rows) + 1)) == NULL ||
        (e->sfx = ps_arena__alloc(&m->mem, n * sizeof(*e->sfx) + 1)) == NULL ||
        ps_u64map__put(&m->by_hash, h, m->nent) < 0)
        return NULL;
    memcpy(raw, k->raw, k->nraw * sizeof(uint64_t));
    e->k.raw = raw;
    m->bytes += bytes;
    m->nent++;
    return e;
}
