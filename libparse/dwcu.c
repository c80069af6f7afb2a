/* SPDX-License-Identifier: MIT */
/*
 * dwcu.c - unit lookup by the unit DIEs' own ranges (see dwcu.h).
 */
#include "dwcu.h"

#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>

#define MAX_RANGES 65536        /* per unit: a bound for hostile lists */

typedef struct curng {
    uint64_t  lo, hi;
    Dwarf_Off die;              /* the unit DIE's offset */
    size_t    order;            /* section order, to keep the first */
} curng;

struct ps_dwcus {
    curng  *r;                  /* owned, sorted by lo */
    size_t  nr, cap;
    int     built;
};

ps_dwcus *ps_dwcus__new(void)
{
    return calloc(1, sizeof(struct ps_dwcus));
}

void ps_dwcus__free(ps_dwcus *t)
{
    if (t == NULL)
        return;
    free(t->r);
    free(t);
}

static int add(ps_dwcus *t, uint64_t lo, uint64_t hi, Dwarf_Off die)
{
    if (t->nr == t->cap) {
        size_t n = t->cap ? t->cap * 2 : 32;
        curng *v = realloc(t->r, n * sizeof(*v));

        if (v == NULL)
            return -1;
        t->r = v;
        t->cap = n;
    }
    t->r[t->nr].lo = lo;
    t->r[t->nr].hi = hi;
    t->r[t->nr].die = die;
    t->r[t->nr].order = t->nr;
    t->nr++;
    return 0;
}

static int by_lo(const void *a, const void *b)
{
    const curng *x = a, *y = b;

    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Every unit's ranges, as its DIE gives them (dwarf_ranges() reads
 * low/high and DW_AT_ranges alike). Type units have no code. */
static int build(ps_dwcus *t, Dwarf *dw)
{
    Dwarf_CU *cu = NULL;
    Dwarf_Die cudie;
    uint8_t type;

    t->built = 1;
    while (dwarf_get_units(dw, cu, &cu, NULL, &type, &cudie, NULL) == 0) {
        Dwarf_Addr base, lo, hi;
        ptrdiff_t off = 0;
        size_t guard = 0;

        if (type == DW_UT_type || type == DW_UT_split_type)
            continue;
        while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0 && guard++ < MAX_RANGES)
            if (hi > lo && add(t, lo, hi, dwarf_dieoffset(&cudie)) < 0)
                return -1;
    }
    qsort(t->r, t->nr, sizeof(*t->r), by_lo);
    return 0;
}

int ps_dwcus__find(ps_dwcus *t, Dwarf *dw, uint64_t addr, Dwarf_Die *cu)
{
    size_t i, best = SIZE_MAX;

    if (!t->built && build(t, dw) < 0)
        return -1;
    /* units are few; ranges overlap only in broken files: the first unit
     * in section order that holds addr */
    for (i = 0; i < t->nr && t->r[i].lo <= addr; i++)
        if (addr < t->r[i].hi && (best == SIZE_MAX || t->r[i].order < t->r[best].order))
            best = i;
    if (best == SIZE_MAX)
        return 0;
    return dwarf_offdie(dw, t->r[best].die, cu) != NULL ? 1 : 0;
}
