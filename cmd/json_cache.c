/* SPDX-License-Identifier: MIT */
/*
 * json_cache.c - json_cache.h: 2^16 slots, one entry each (a newer one
 * replaces it); texts appended to one buffer, which starts over (with a new
 * generation) when it would pass 32 MB, so memory stays bounded.
 */
#include <stdlib.h>
#include <string.h>
#include "json_cache.h"

#define SLOTS_BITS  16
#define TEXT_MAX    (32u << 20)

struct json_cache_slot {
    uint64_t key[4];
    uint32_t gen;               /* 0: empty */
    uint32_t off, len;          /* in json_cache.text */
};

int json_cache_init(json_cache *c)
{
    memset(c, 0, sizeof(*c));
    c->gen = 1;
    c->slots = calloc((size_t)1 << SLOTS_BITS, sizeof(*c->slots));
    return c->slots != NULL ? 0 : -1;
}

void json_cache_free(json_cache *c)
{
    free(c->slots);
    lb_free(&c->text);
    c->slots = NULL;
}

void json_cache_invalidate(json_cache *c)
{
    if (++c->gen == 0)
        c->gen = 1;             /* 2^32 records later: empty slots stay empty */
}

static json_cache_slot *slot(json_cache *c, const uint64_t key[4])
{
    uint64_t h = (key[0] ^ key[1] * 31 ^ key[2] * 961 ^ key[3] * 29791) *
                 0x9e3779b97f4a7c15ull;

    return &c->slots[h >> (64 - SLOTS_BITS)];
}

const char *json_cache_find(json_cache *c, const uint64_t key[4], size_t *len)
{
    json_cache_slot *e;

    if (c->slots == NULL)
        return NULL;
    e = slot(c, key);
    if (e->gen != c->gen || memcmp(e->key, key, sizeof(e->key)) != 0)
        return NULL;
    *len = e->len;
    return c->text.p + e->off;
}

int json_cache_copy(json_cache *c, const uint64_t key[4], linebuf *b)
{
    size_t len;
    const char *t = json_cache_find(c, key, &len);

    if (t == NULL)
        return 0;
    lb_mem(b, t, len);
    return 1;
}

void json_cache_store(json_cache *c, const uint64_t key[4], const char *text, size_t len)
{
    json_cache_slot *e;

    if (c->slots == NULL || len > TEXT_MAX)
        return;
    if (c->text.len + len > TEXT_MAX) {
        c->text.len = 0;        /* start over: every slot is stale */
        json_cache_invalidate(c);
    }
    e = slot(c, key);
    e->off = (uint32_t)c->text.len;
    lb_mem(&c->text, text, len);
    if (c->text.oom) {
        e->gen = 0;
        c->text.oom = 0;
        return;
    }
    memcpy(e->key, key, sizeof(e->key));
    e->len = (uint32_t)len;
    e->gen = c->gen;
}
