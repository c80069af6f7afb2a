/* SPDX-License-Identifier: MIT */
/*
 * sqlite_chain.h - what the call chain of a thread's last sample came to,
 * for `perfsift sqlite` (sqlite_export.c): its raw entries and, root first,
 * each frame with the ids it got and the call path down to it. A thread's
 * next sample mostly shares the root part of its chain with the last one
 * (only the leaf end moves): that part needs neither resolving nor looking
 * up. When an answer still holds is sqlite_export.c's to say; this file
 * only keeps them, a slot per thread (hashed by tid; another thread in the
 * slot empties it).
 */
#ifndef PS_CMD_SQLITE_CHAIN_H
#define PS_CMD_SQLITE_CHAIN_H

#include <stddef.h>
#include <stdint.h>
#include "../libparse/resolve.h"

#define SQCH_SLOTS  64          /* a power of 2 */
#define SQCH_STAMP  4           /* words of state the raw chain's answers need */

/** A frame, as frame_ids() saw it, and what it got. */
typedef struct sqch_link {
    const ps_map *map;
    const char   *dso, *inl;
    const ps_sym *sym;
    uint64_t      ip, rel;
    int64_t       sym_id, cp;   /* its symbol; the call path down to it */
    int64_t       nr_syms;      /* the symbols made before it was */
} sqch_link;

typedef struct sqch {
    uint32_t   pid, tid;
    sqch_link *l;               /* owned: the frames, root first */
    size_t     nr, cap;
    uint64_t  *raw;             /* owned: the raw call chain, leaf first */
    size_t     nr_raw, cap_raw; /* nr_raw 0: none to share */
    uint64_t   stamp[SQCH_STAMP];   /* the state raw's frames were answered in */
} sqch;

typedef struct sqch_set { sqch slot[SQCH_SLOTS]; } sqch_set;

/** The slot of thread pid/tid (emptied when it was another's). */
sqch  *sqch_of(sqch_set *s, uint32_t pid, uint32_t tid);
void   sqch_free(sqch_set *s);
/** Room for n links. 0, or -1 when out of memory. */
int    sqch_reserve(sqch *c, size_t n);

/**
 * The part of the raw call chain ips[0..nr) (leaf first, context markers
 * included) that c's last one shares from the root, when the state is
 * stamp as it was then: *keep gets the number of frames (links of c) in
 * it; the entries before the returned index are not shared (nr: nothing
 * is, *keep 0).
 */
size_t sqch_shared(const sqch *c, const uint64_t *ips, size_t nr, const uint64_t *stamp,
                   size_t *keep);
/** Keep ips[0..nr) as c's raw chain, its frames answered in state stamp
 * (nr 0: none). 0, or -1 when out of memory (c then has none). */
int    sqch_set_raw(sqch *c, const uint64_t *ips, size_t nr, const uint64_t *stamp);

#endif /* PS_CMD_SQLITE_CHAIN_H */
