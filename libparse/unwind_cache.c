/* SPDX-License-Identifier: MIT */
/*
 * unwind_cache.c - libunwind's register-state cache, as perf 6.1 uses it:
 * which frame pcs skip the FDE lookup.
 *
 * perf gives each process (its maps) one libunwind address space with
 * the global caching policy, and flushes it only at an exec. libunwind
 * keeps the rows of the last 128 pcs it looked up and found an FDE for
 * (round-robin replacement, keyed by the frame's pc exactly); a pc found
 * there is unwound with that row again, without a lookup. That matters
 * only where a lookup would now go elsewhere (unwind_base.c: a lower map
 * of the DSO came later, as a program mapping a loaded library as data
 * does): pcs still in the cache keep unwinding as before, the others miss.
 * So every successful lookup is recorded here, in the order perf makes
 * them, and the address whose row it used is what a later hit gives.
 *
 * Layer: above machine.c (a process's maps and its last exec); called by
 * unwind.c (per sample) and unwind_base.c. Owns the caches
 * (ps_unwind__caches_free()).
 */
#include "unwind_int.h"

#define LU_HASH 256             /* libunwind: 2^(log size + 1) chains */

struct lu_cache {
    const ps_maps *maps;
    uint64_t       exec_time;   /* the exec the cache was made after */
    uint64_t       pc[LU_SIZE], look[LU_SIZE];
    int16_t        chain[LU_HASH], next[LU_SIZE];
    unsigned       head, nr;
};

/* libunwind's hash: the golden-ratio multiply, top bits. */
static unsigned lu_hash(uint64_t pc)
{
    return (unsigned)((pc * UINT64_C(0x9e3779b97f4a7c16)) >> 56);
}

static void lu_flush(struct lu_cache *lc, uint64_t exec_time)
{
    unsigned i;

    for (i = 0; i < LU_HASH; i++)
        lc->chain[i] = -1;
    lc->head = 0;
    lc->nr = 0;
    lc->exec_time = exec_time;
}

/* The time of the last exec of pid's leader at or before t (0: none). */
static uint64_t last_exec(const ps_machine *m, uint32_t pid, uint64_t t)
{
    const ps_thread *th = ps_machine__thread(m, pid, pid, t);
    size_t i;

    if (th == NULL)
        return 0;
    for (i = (size_t)(ps_thread__comm_at(th, t) - th->comms) + 1; i-- > 0;)
        if (th->comms[i].exec && th->comms[i].time <= t)
            return th->comms[i].time;
    return 0;
}

struct lu_cache *ps_unwind__cache_for(ps_unwinder *u, uint32_t pid, uint32_t tid, uint64_t t)
{
    const ps_maps *s = ps_machine__user_maps(u->m, pid, tid, t);
    uint64_t exec = last_exec(u->m, pid, t), *slot;
    struct lu_cache *lc;

    if (s == NULL)
        return NULL;
    if ((slot = ps_u64map__get(&u->caches, (uint64_t)(uintptr_t)s)) != NULL) {
        lc = u->cache_v[*slot];
    } else {
        if (ps_grow((void **)&u->cache_v, &u->cache_cap, u->nr_caches + 1,
                    sizeof(*u->cache_v)) < 0 || (lc = malloc(sizeof(*lc))) == NULL)
            return NULL;
        if (ps_u64map__put(&u->caches, (uint64_t)(uintptr_t)s, u->nr_caches) < 0) {
            free(lc);
            return NULL;
        }
        u->cache_v[u->nr_caches++] = lc;
        lc->maps = s;
        lu_flush(lc, exec);
    }
    if (lc->exec_time != exec)
        lu_flush(lc, exec);
    return lc;
}

int ps_unwind__cache_get(const struct lu_cache *lc, uint64_t pc, uint64_t *look)
{
    int i;

    if (lc == NULL)
        return 0;
    for (i = lc->chain[lu_hash(pc)]; i >= 0; i = lc->next[i]) {
        if (lc->pc[i] == pc) {
            *look = lc->look[i];
            return 1;
        }
    }
    return 0;
}

/* Unlink entry i from its chain. */
static void lu_unlink(struct lu_cache *lc, unsigned i)
{
    int16_t *p = &lc->chain[lu_hash(lc->pc[i])];

    while (*p >= 0 && (unsigned)*p != i)
        p = &lc->next[*p];
    if (*p >= 0)
        *p = lc->next[i];
}

void ps_unwind__cache_put(struct lu_cache *lc, uint64_t pc, uint64_t look)
{
    uint64_t old;
    unsigned i, h;

    if (lc == NULL || ps_unwind__cache_get(lc, pc, &old))
        return;
    i = lc->head;
    lc->head = (lc->head + 1) % LU_SIZE;
    if (lc->nr < LU_SIZE)
        lc->nr++;
    else
        lu_unlink(lc, i);
    h = lu_hash(pc);
    lc->pc[i] = pc;
    lc->look[i] = look;
    lc->next[i] = lc->chain[h];
    lc->chain[h] = (int16_t)i;
}

void ps_unwind__caches_free(ps_unwinder *u)
{
    size_t i;

    for (i = 0; i < u->nr_caches; i++)
        free(u->cache_v[i]);
    free(u->cache_v);
    ps_u64map__free(&u->caches);
}
