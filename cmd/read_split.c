/* SPDX-License-Identifier: MIT */
/*
 * read_split.c - per-id last READ values for perf's sample splitting (see
 * read_split.h). A table of (id + 1, value), kept at most half full.
 */
#include <stdlib.h>
#include "read_split.h"

static size_t hash(uint64_t key, size_t mask)
{
    return (size_t)(key * 0x9E3779B97F4A7C15ull) & mask;
}

static int grow(read_split *rs)
{
    size_t n = rs->slots ? rs->slots * 2 : 1024, i, j;
    uint64_t *ids = calloc(n, sizeof(*ids)), *vals = calloc(n, sizeof(*vals));

    if (ids == NULL || vals == NULL) {
        free(ids);
        free(vals);
        return -1;
    }
    for (j = 0; j < rs->slots; j++) {
        if (rs->ids[j] == 0)
            continue;
        for (i = hash(rs->ids[j], n - 1); ids[i]; i = (i + 1) & (n - 1))
            ;
        ids[i] = rs->ids[j];
        vals[i] = rs->vals[j];
    }
    free(rs->ids);
    free(rs->vals);
    rs->ids = ids;
    rs->vals = vals;
    rs->slots = n;
    return 0;
}

int read_split_period(read_split *rs, uint64_t id, uint64_t value, uint64_t *period)
{
    size_t i, mask;

    if ((rs->used + 1) * 2 > rs->slots && grow(rs) < 0)
        return -1;
    mask = rs->slots - 1;
    for (i = hash(id + 1, mask); rs->ids[i] && rs->ids[i] != id + 1; i = (i + 1) & mask)
        ;
    if (rs->ids[i] == 0) {
        rs->ids[i] = id + 1;
        rs->vals[i] = 0;
        rs->used++;
    }
    *period = value - rs->vals[i];
    rs->vals[i] = value;
    return 0;
}

void read_split_free(read_split *rs)
{
    free(rs->ids);
    free(rs->vals);
    rs->ids = rs->vals = NULL;
    rs->slots = rs->used = 0;
}
