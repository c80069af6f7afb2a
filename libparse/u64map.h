/* SPDX-License-Identifier: MIT */
/*
 * u64map.h - a hash map from uint64_t to uint64_t (open addressing,
 * linear probing, grown at half full): the caches keyed by an address or
 * an offset (srcline answers, line programs, CU function tables) keep
 * their entries in arrays and map the key to the index here.
 *
 * Ownership: the map owns its arrays; ps_u64map__free() releases them.
 */
#ifndef PS_U64MAP_H
#define PS_U64MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ps_u64map {
    uint64_t *keys;             /* owned */
    uint64_t *vals;             /* owned */
    uint8_t  *used;             /* owned */
    size_t    cap, nr;
} ps_u64map;

/** An empty map (no allocation until the first put). */
void ps_u64map__init(ps_u64map *m);
void ps_u64map__free(ps_u64map *m);

/** The value of key, or NULL when absent. Borrowed until the next put. */
uint64_t *ps_u64map__get(const ps_u64map *m, uint64_t key);

/** Add key (absent) with val. @return 0, or -1 out of memory (map unchanged) */
int ps_u64map__put(ps_u64map *m, uint64_t key, uint64_t val);

#endif /* PS_U64MAP_H */
