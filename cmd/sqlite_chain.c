/* SPDX-License-Identifier: MIT */
/*
 * sqlite_chain.c - each thread's last call chain (sqlite_chain.h).
 */
#include <stdlib.h>
#include <string.h>
#include "sqlite_chain.h"
#include "../libparse/util.h"

sqch *sqch_of(sqch_set *s, uint32_t pid, uint32_t tid)
{
    sqch *c = &s->slot[(tid * 0x9e3779b1u) % SQCH_SLOTS];

    if (c->pid != pid || c->tid != tid) {
        c->pid = pid;
        c->tid = tid;
        c->nr = c->nr_raw = 0;
    }
    return c;
}

void sqch_free(sqch_set *s)
{
    size_t i;

    for (i = 0; i < SQCH_SLOTS; i++) {
        free(s->slot[i].l);
        free(s->slot[i].raw);
    }
}

int sqch_reserve(sqch *c, size_t n)
{
    return ps_grow((void **)&c->l, &c->cap, n, sizeof(sqch_link));
}

/* the context marker in force at ips[pos]: the last one before it (0: none,
 * the chain's default) */
static uint64_t mode_at(const uint64_t *ips, size_t pos)
{
    while (pos-- > 0)
        if (ips[pos] >= PERF_CONTEXT_MAX)
            return ips[pos];
    return 0;
}

size_t sqch_shared(const sqch *c, const uint64_t *ips, size_t nr, const uint64_t *stamp,
                   size_t *keep)
{
    const uint64_t *old = c->raw;
    size_t k = 0, frames = 0, n_old = c->nr_raw;

    *keep = 0;
    if (n_old == 0 || memcmp(stamp, c->stamp, sizeof(c->stamp)) != 0)
        return nr;
    for (; k < nr && k < n_old && ips[nr - 1 - k] == old[n_old - 1 - k]; k++)
        frames += ips[nr - 1 - k] < PERF_CONTEXT_MAX;
    /* the shared entries next to the others were looked up in the same
     * cpumode only if the same marker is in force there */
    if (frames == 0 || frames > c->nr || mode_at(ips, nr - k) != mode_at(old, n_old - k))
        return nr;
    *keep = frames;
    return nr - k;
}

int sqch_set_raw(sqch *c, const uint64_t *ips, size_t nr, const uint64_t *stamp)
{
    c->nr_raw = 0;
    if (nr == 0 || ps_grow((void **)&c->raw, &c->cap_raw, nr, sizeof(uint64_t)) < 0)
        return nr == 0 ? 0 : -1;
    memcpy(c->raw, ips, nr * sizeof(uint64_t));
    memcpy(c->stamp, stamp, sizeof(c->stamp));
    c->nr_raw = nr;
    return 0;
}
