/* SPDX-License-Identifier: MIT */
/*
 * fold_ids.c - interned frame texts and stacks as id arrays (fold_ids.h).
 * Three open-addressing tables (power-of-two sizes, linear probing, grown
 * at 3/4): frame key -> id, string -> id, id array -> count.
 */
#include <stdlib.h>
#include <string.h>
#include "fold_ids.h"
#include "../libparse/util.h"

typedef struct str_ent { const char *s; size_t n; } str_ent;
typedef struct frame_slot { fold_ids_key k; uint32_t id; int used; } frame_slot;
typedef struct str_slot { uint64_t h; uint32_t id; int used; } str_slot;
typedef struct stack_ent { const uint32_t *ids; uint32_t n; uint64_t h, count; } stack_ent;
typedef struct stack_slot { uint32_t idx; } stack_slot;        /* idx + 1; 0 free */
typedef struct chain_slot {
    uint64_t h, pid_tid;
    const void *ev;
    const uint64_t *ips;        /* in chain_mem; NULL: free */
    size_t n;
    uint32_t stack;
    uint32_t gen;               /* a slot of an older generation is free */
} chain_slot;

struct fold_ids {
    ps_arena    mem;
    str_ent    *strs;           /* id -> text */
    size_t      nstrs, strs_cap;
    frame_slot *frames;
    size_t      nframes, frames_cap;
    str_slot   *sidx;
    size_t      nsidx, sidx_cap;
    stack_ent  *ents;           /* stacks, by handle */
    size_t      nents, ents_cap;
    stack_slot *stacks;         /* index of ents by content */
    size_t      stacks_cap;
    ps_arena    chain_mem;      /* the chain cache, cleared as a whole */
    chain_slot *chains;
    size_t      nchains, chains_cap;
    uint32_t    chain_gen;      /* bumped to empty the cache in O(1) */
};

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

static uint64_t hash_key(const fold_ids_key *k)
{
    return mix((uint64_t)(uintptr_t)k->a ^ mix((uint64_t)(uintptr_t)k->b) ^
               mix((uint64_t)(uintptr_t)k->c + 0x9e3779b97f4a7c15ull) ^ mix(k->d + 1));
}

static uint64_t hash_str(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;

    for (i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t hash_ids(const uint32_t *ids, size_t n)
{
    uint64_t h = n;
    size_t i;

    for (i = 0; i < n; i++)
        h = mix(h ^ ids[i]) + i;
    return h;
}

fold_ids *fold_ids_new(void)
{
    fold_ids *x = calloc(1, sizeof(*x));

    if (x == NULL)
        return NULL;
    ps_arena__init(&x->mem);
    ps_arena__init(&x->chain_mem);
    x->frames_cap = x->sidx_cap = x->stacks_cap = x->chains_cap = 1024;
    x->chains = calloc(x->chains_cap, sizeof(*x->chains));
    x->frames = calloc(x->frames_cap, sizeof(*x->frames));
    x->sidx = calloc(x->sidx_cap, sizeof(*x->sidx));
    x->stacks = calloc(x->stacks_cap, sizeof(*x->stacks));
    if (x->frames == NULL || x->sidx == NULL || x->stacks == NULL || x->chains == NULL) {
        fold_ids_free(x);
        return NULL;
    }
    return x;
}

void fold_ids_free(fold_ids *x)
{
    if (x == NULL)
        return;
    ps_arena__free(&x->mem);
    ps_arena__free(&x->chain_mem);
    free(x->chains);
    free(x->ents);
    free(x->strs);
    free(x->frames);
    free(x->sidx);
    free(x->stacks);
    free(x);
}

/* --- strings ------------------------------------------------------------------ */

static int sidx_grow(fold_ids *x)
{
    size_t cap = x->sidx_cap * 2, i;
    str_slot *t = calloc(cap, sizeof(*t));

    if (t == NULL)
        return -1;
    for (i = 0; i < x->sidx_cap; i++) {
        size_t j;

        if (!x->sidx[i].used)
            continue;
        for (j = x->sidx[i].h & (cap - 1); t[j].used; j = (j + 1) & (cap - 1))
            ;
        t[j] = x->sidx[i];
    }
    free(x->sidx);
    x->sidx = t;
    x->sidx_cap = cap;
    return 0;
}

/* a new string id (not indexed) */
static int str_new(fold_ids *x, const char *s, size_t n, uint32_t *id)
{
    char *p;

    if (x->nstrs == x->strs_cap &&
        ps_grow((void **)&x->strs, &x->strs_cap, x->nstrs + 1, sizeof(*x->strs)) < 0)
        return -1;
    if ((p = ps_arena__alloc(&x->mem, n + 1)) == NULL)
        return -1;
    memcpy(p, s, n);
    x->strs[x->nstrs].s = p;
    x->strs[x->nstrs].n = n;
    *id = (uint32_t)x->nstrs++;
    return 0;
}

int fold_ids_intern(fold_ids *x, const char *s, size_t n, uint32_t *id)
{
    uint64_t h = hash_str(s, n);
    size_t j;

    if ((x->nsidx + 1) * 4 > x->sidx_cap * 3 && sidx_grow(x) < 0)
        return -1;
    for (j = h & (x->sidx_cap - 1); x->sidx[j].used; j = (j + 1) & (x->sidx_cap - 1)) {
        const str_ent *e = &x->strs[x->sidx[j].id];

        if (x->sidx[j].h == h && e->n == n && memcmp(e->s, s, n) == 0) {
            *id = x->sidx[j].id;
            return 0;
        }
    }
    if (str_new(x, s, n, id) < 0)
        return -1;
    x->sidx[j].h = h;
    x->sidx[j].id = *id;
    x->sidx[j].used = 1;
    x->nsidx++;
    return 0;
}

/* --- frames ------------------------------------------------------------------- */

static int key_eq(const fold_ids_key *a, const fold_ids_key *b)
{
    return a->a == b->a && a->b == b->b && a->c == b->c && a->d == b->d;
}

static int frames_grow(fold_ids *x)
{
    size_t cap = x->frames_cap * 2, i;
    frame_slot *t = calloc(cap, sizeof(*t));

    if (t == NULL)
        return -1;
    for (i = 0; i < x->frames_cap; i++) {
        size_t j;

        if (!x->frames[i].used)
            continue;
        for (j = hash_key(&x->frames[i].k) & (cap - 1); t[j].used; j = (j + 1) & (cap - 1))
            ;
        t[j] = x->frames[i];
    }
    free(x->frames);
    x->frames = t;
    x->frames_cap = cap;
    return 0;
}

int fold_ids_frame(fold_ids *x, const fold_ids_key *k, uint32_t *id)
{
    size_t j;

    for (j = hash_key(k) & (x->frames_cap - 1); x->frames[j].used;
         j = (j + 1) & (x->frames_cap - 1))
        if (key_eq(&x->frames[j].k, k)) {
            *id = x->frames[j].id;
            return 1;
        }
    return 0;
}

int fold_ids_frame_put(fold_ids *x, const fold_ids_key *k, const char *s, size_t n,
                       uint32_t *id)
{
    size_t j;

    if ((x->nframes + 1) * 4 > x->frames_cap * 3 && frames_grow(x) < 0)
        return -1;
    if (fold_ids_intern(x, s, n, id) < 0)
        return -1;
    for (j = hash_key(k) & (x->frames_cap - 1); x->frames[j].used;
         j = (j + 1) & (x->frames_cap - 1))
        ;
    x->frames[j].k = *k;
    x->frames[j].id = *id;
    x->frames[j].used = 1;
    x->nframes++;
    return 0;
}

/* --- stacks ------------------------------------------------------------------- */

static int stacks_grow(fold_ids *x)
{
    size_t cap = x->stacks_cap * 2, i;
    stack_slot *t = calloc(cap, sizeof(*t));

    if (t == NULL)
        return -1;
    for (i = 0; i < x->stacks_cap; i++) {
        size_t j;

        if (x->stacks[i].idx == 0)
            continue;
        for (j = x->ents[x->stacks[i].idx - 1].h & (cap - 1); t[j].idx != 0; j = (j + 1) & (cap - 1))
            ;
        t[j] = x->stacks[i];
    }
    free(x->stacks);
    x->stacks = t;
    x->stacks_cap = cap;
    return 0;
}

int fold_ids_add(fold_ids *x, const uint32_t *ids, size_t n, uint64_t count, uint32_t *handle)
{
    uint64_t h = hash_ids(ids, n);
    uint32_t *copy;
    stack_ent *e;
    size_t j;

    if ((x->nents + 1) * 4 > x->stacks_cap * 3 && stacks_grow(x) < 0)
        return -1;
    for (j = h & (x->stacks_cap - 1); x->stacks[j].idx != 0; j = (j + 1) & (x->stacks_cap - 1)) {
        e = &x->ents[x->stacks[j].idx - 1];
        if (e->h == h && e->n == n && memcmp(e->ids, ids, n * sizeof(*ids)) == 0) {
            e->count += count;
            *handle = x->stacks[j].idx - 1;
            return 0;
        }
    }
    if (x->nents == x->ents_cap &&
        ps_grow((void **)&x->ents, &x->ents_cap, x->nents + 1, sizeof(*x->ents)) < 0)
        return -1;
    if ((copy = ps_arena__array(&x->mem, n ? n : 1, sizeof(*ids))) == NULL)
        return -1;
    memcpy(copy, ids, n * sizeof(*ids));
    e = &x->ents[x->nents];
    e->ids = copy;
    e->n = (uint32_t)n;
    e->h = h;
    e->count = count;
    *handle = (uint32_t)x->nents;
    x->stacks[j].idx = (uint32_t)++x->nents;
    return 0;
}

void fold_ids_count(fold_ids *x, uint32_t handle, uint64_t count)
{
    x->ents[handle].count += count;
}

/* --- the chain cache --------------------------------------------------------- */

/* It holds at most this many chains (or bytes of them): past that it starts
 * over, so memory stays flat however many distinct chains a capture has. */
#define CHAINS_MAX  65536
#define CHAIN_BYTES (64u << 20)

static uint64_t hash_chain(uint64_t pid_tid, const void *ev, const uint64_t *ips, size_t n)
{
    uint64_t h = mix(pid_tid ^ (uint64_t)(uintptr_t)ev);
    size_t i;

    for (i = 0; i < n; i++)
        h = (h ^ ips[i]) * 0x9e3779b97f4a7c15ull + (h >> 29);
    return mix(h);
}

static int chain_live(const fold_ids *x, const chain_slot *c)
{
    return c->ips != NULL && c->gen == x->chain_gen;
}

void fold_ids_chains_clear(fold_ids *x)
{
    if (x->nchains == 0)
        return;
    if (++x->chain_gen == 0)    /* wrapped: old generations look live again */
        memset(x->chains, 0, x->chains_cap * sizeof(*x->chains));
    x->nchains = 0;
    ps_arena__free(&x->chain_mem);
    ps_arena__init(&x->chain_mem);
}

int fold_ids_chain(fold_ids *x, uint64_t pid_tid, const void *ev, const uint64_t *ips,
                   size_t n, uint32_t *handle)
{
    uint64_t h = hash_chain(pid_tid, ev, ips, n);
    size_t j;

    for (j = h & (x->chains_cap - 1); chain_live(x, &x->chains[j]); j = (j + 1) & (x->chains_cap - 1)) {
        const chain_slot *c = &x->chains[j];

        if (c->h == h && c->pid_tid == pid_tid && c->ev == ev && c->n == n &&
            memcmp(c->ips, ips, n * sizeof(*ips)) == 0) {
            *handle = c->stack;
            return 1;
        }
    }
    return 0;
}

int fold_ids_chain_put(fold_ids *x, uint64_t pid_tid, const void *ev, const uint64_t *ips,
                       size_t n, uint32_t handle)
{
    uint64_t h = hash_chain(pid_tid, ev, ips, n);
    uint64_t *copy;
    size_t j;

    if (x->nchains >= CHAINS_MAX || x->chain_mem.total > CHAIN_BYTES)
        fold_ids_chains_clear(x);
    if ((x->nchains + 1) * 2 > x->chains_cap) {
        size_t cap = x->chains_cap * 2, i;
        chain_slot *t = calloc(cap, sizeof(*t));

        if (t == NULL)
            return -1;
        for (i = 0; i < x->chains_cap; i++) {
            if (!chain_live(x, &x->chains[i]))
                continue;
            for (j = x->chains[i].h & (cap - 1); t[j].ips != NULL; j = (j + 1) & (cap - 1))
                ;
            t[j] = x->chains[i];
        }
        free(x->chains);
        x->chains = t;
        x->chains_cap = cap;
    }
    if ((copy = ps_arena__array(&x->chain_mem, n ? n : 1, sizeof(*ips))) == NULL)
        return -1;
    memcpy(copy, ips, n * sizeof(*ips));
    for (j = h & (x->chains_cap - 1); chain_live(x, &x->chains[j]); j = (j + 1) & (x->chains_cap - 1))
        ;
    x->chains[j] = (chain_slot){ h, pid_tid, ev, copy, n, handle, x->chain_gen };
    x->nchains++;
    return 0;
}

int fold_ids_flush(fold_ids *x, fold_table *t)
{
    char *buf = NULL;
    size_t cap = 0, i;
    int rc = 0;

    for (i = 0; i < x->nents && rc == 0; i++) {
        const stack_ent *s = &x->ents[i];
        size_t len = 0, k;

        for (k = 0; k < s->n; k++) {
            const str_ent *e = &x->strs[s->ids[k]];

            if (len + e->n + 2 > cap) {
                size_t c = cap ? cap * 2 : 4096;
                char *p;

                while (c < len + e->n + 2)
                    c *= 2;
                if ((p = realloc(buf, c)) == NULL) {
                    rc = -1;
                    break;
                }
                buf = p;
                cap = c;
            }
            if (k)
                buf[len++] = ';';
            memcpy(buf + len, e->s, e->n);
            len += e->n;
        }
        if (rc == 0 && fold_table_add(t, buf ? buf : "", len, s->count) < 0)
            rc = -1;
    }
    free(buf);
    return rc;
}
