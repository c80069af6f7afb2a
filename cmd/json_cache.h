/* SPDX-License-Identifier: MIT */
/*
 * json_cache.h - the JSON text of call chain entries, kept to be copied
 * again: a capture's samples repeat the same few thousand frames, and
 * copying their text is far cheaper than resolving and escaping them anew.
 * A direct-mapped table keyed by four words the caller chooses (what the
 * text depends on). The resolver's answers hold until the next record
 * that is not a sample, so the caller starts a new generation there
 * (json_cache_invalidate()), which empties the table in O(1).
 */
#ifndef PS_CMD_JSON_CACHE_H
#define PS_CMD_JSON_CACHE_H

#include <stdint.h>
#include "linebuf.h"

typedef struct json_cache_slot json_cache_slot;

typedef struct json_cache {
    json_cache_slot *slots;     /* owned; NULL: no cache (every lookup misses) */
    linebuf          text;      /* the cached entries' text */
    uint32_t         gen;
} json_cache;

/** 0, or -1 when out of memory (the cache then stays off). */
int  json_cache_init(json_cache *c);
void json_cache_free(json_cache *c);
/** Every entry is stale from now on. */
void json_cache_invalidate(json_cache *c);

/** Append the text cached for key to b: 1; or 0 when there is none. */
int  json_cache_copy(json_cache *c, const uint64_t key[4], linebuf *b);
/** The text cached for key (*len bytes, valid until the next store), or
 * NULL when there is none. */
const char *json_cache_find(json_cache *c, const uint64_t key[4], size_t *len);
/** Keep len bytes of text as key's. */
void json_cache_store(json_cache *c, const uint64_t key[4], const char *text, size_t len);

#endif /* PS_CMD_JSON_CACHE_H */
