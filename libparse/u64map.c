/* SPDX-License-Identifier: MIT */
/*
 * u64map.c - see u64map.h. Fibonacci hashing spreads the aligned keys
 * (addresses, section offsets) over the table.
 */
#include "u64map.h"

#include <stdlib.h>

static size_t slot(uint64_t key, size_t cap)
{
    return (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (cap - 1);
}

void ps_u64map__init(ps_u64map *m)
{
    m->keys = m->vals = NULL;
    m->used = NULL;
    m->cap = m->nr = 0;
}

void ps_u64map__free(ps_u64map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    ps_u64map__init(m);
}

uint64_t *ps_u64map__get(const ps_u64map *m, uint64_t key)
{
    size_t i;

    if (m->cap == 0)
        return NULL;
    for (i = slot(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
        if (m->keys[i] == key)
            return &m->vals[i];
    return NULL;
}

static void place(ps_u64map *m, uint64_t key, uint64_t val)
{
    size_t i;

    for (i = slot(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
        ;
    m->used[i] = 1;
    m->keys[i] = key;
    m->vals[i] = val;
    m->nr++;
}

static int grow(ps_u64map *m)
{
    ps_u64map n;
    size_t i;

    n.cap = m->cap ? m->cap * 2 : 64;
    n.nr = 0;
    n.keys = malloc(n.cap * sizeof(*n.keys));
    n.vals = malloc(n.cap * sizeof(*n.vals));
    n.used = calloc(n.cap, 1);
    if (n.keys == NULL || n.vals == NULL || n.used == NULL) {
        ps_u64map__free(&n);
        return -1;
    }
    for (i = 0; i < m->cap; i++)
        if (m->used[i])
            place(&n, m->keys[i], m->vals[i]);
    ps_u64map__free(m);
    *m = n;
    return 0;
}

int ps_u64map__put(ps_u64map *m, uint64_t key, uint64_t val)
{
    if ((m->nr + 1) * 2 > m->cap && grow(m) < 0)
        return -1;
    place(m, key, val);
    return 0;
}
