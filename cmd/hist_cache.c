/* SPDX-License-Identifier: MIT */
/*
 * hist_cache.c - the direct-mapped cache of hist_cache.h. Forgetting is a
 * new generation number, not a sweep: entries of an older one are empty.
 */
#include <stdlib.h>
#include <string.h>
#include "../libparse/util.h"
#include "hist_cache.h"

#define SLOTS 32768             /* a power of two */

typedef struct slot {
    hist_loc_key k;
    uint64_t     gen;
    const char  *comm;          /* borrowed */
    uint32_t     row;           /* index + 1 */
} slot;

struct hist_cache {
    uint64_t gen;
    slot    *v;                 /* SLOTS */
};

hist_cache *hist_cache_new(void)
{
    hist_cache *c = calloc(1, sizeof(*c));

    /* 2 MiB: one huge page, not the 4 KiB faults of its scattered slots */
    if (c == NULL || (c->v = ps_alloc_huge(SLOTS * sizeof(*c->v))) == NULL) {
        free(c);
        return NULL;
    }
    memset(c->v, 0, SLOTS * sizeof(*c->v));
    c->gen = 1;
    return c;
}

void hist_cache_free(hist_cache *c)
{
    if (c != NULL)
        free(c->v);
    free(c);
}

void hist_cache_forget(hist_cache *c)
{
    c->gen++;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 0x9e3779b97f4a7c15ULL;
}

static size_t slot_of(const hist_loc_key *k)
{
    uint64_t x = mix(mix(mix(mix((uintptr_t)k->h, k->ip), ((uint64_t)k->pid << 32) | k->tid),
                         k->cpu), ((uint64_t)k->cpumode << 8) | (unsigned char)k->level);

    return (size_t)(x >> 40) & (SLOTS - 1);
}

static int key_eq(const hist_loc_key *a, const hist_loc_key *b)
{
    return a->ip == b->ip && a->h == b->h && a->pid == b->pid && a->tid == b->tid &&
           a->cpu == b->cpu && a->cpumode == b->cpumode && a->level == b->level;
}

uint32_t hist_cache_get(const hist_cache *c, const hist_loc_key *k, const char **comm)
{
    const slot *s = &c->v[slot_of(k)];

    if (s->gen != c->gen || !key_eq(&s->k, k))
        return 0;
    *comm = s->comm;
    return s->row;
}

void hist_cache_put(hist_cache *c, const hist_loc_key *k, uint32_t row, const char *comm)
{
    slot *s = &c->v[slot_of(k)];

    s->k = *k;
    s->gen = c->gen;
    s->comm = comm;
    s->row = row;
}
