/* SPDX-License-Identifier: MIT */
/*
 * dwcu.c - unit lookup by the unit DIEs' own ranges (see dwcu.h).
 */
#include "dwcu.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANGES 65536        /* per unit: a bound for hostile lists */

typedef struct curng {
    uint64_t  lo, hi;
    Dwarf_Off die;              /* the unit DIE's offset */
    size_t    order;            /* section order, to keep the first */
} curng;

struct ps_dwcus {
    curng    *r;                /* owned, sorted by lo */
    size_t    nr, cap;
    int       built;
    int       stop_known;
    Dwarf_Off stop;             /* the first unit BFD fails on, or UINT64_MAX */
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
    if (t->nr > 1)              /* (qsort() of NULL is undefined, even of 0) */
        qsort(t->r, t->nr, sizeof(*t->r), by_lo);
    return 0;
}

/* How .debug_rnglists stands for BFD in dw's file. */
enum { RL_NONE, RL_DATA, RL_UNCHECKED };

/* The bytes of .debug_rnglists, by that name: BFD 2.40 looks the
 * section up by it or by ".zdebug_rnglist" (sic), so gcc's -gz=zlib-gnu
 * ".zdebug_rnglists" is missing for it. @return RL_DATA (*out set),
 * RL_NONE, or RL_UNCHECKED (SHF_COMPRESSED: BFD inflates it; not
 * checked here) */
static int rnglists(Dwarf *dw, Elf_Data **out)
{
    Elf *elf = dwarf_getelf(dw);
    Elf_Scn *scn = NULL;
    size_t shstrndx;

    if (elf == NULL || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return RL_UNCHECKED;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        const char *n;

        if (gelf_getshdr(scn, &sh) == NULL || (n = elf_strptr(elf, shstrndx, sh.sh_name)) == NULL ||
            strcmp(n, ".debug_rnglists") != 0)
            continue;
        if ((sh.sh_flags & SHF_COMPRESSED) || (*out = elf_getdata(scn, NULL)) == NULL)
            return RL_UNCHECKED;
        return RL_DATA;
    }
    return RL_NONE;
}

static int skip_uleb(const uint8_t **p, const uint8_t *end)
{
    while (*p < end)
        if ((*(*p)++ & 0x80) == 0)
            return 0;
    return -1;
}

/* BFD's read_rnglists() over the list at off: 0 when it reads it to its
 * end, -1 where it gives up (an x-form or unknown entry, the section's
 * end). */
static int bfd_rnglist(const Elf_Data *d, uint64_t off, unsigned addr_size)
{
    const uint8_t *p = (const uint8_t *)d->d_buf + off, *end = (const uint8_t *)d->d_buf + d->d_size;
    size_t guard = 0;

    if (off >= d->d_size)
        return -1;
    while (p < end && guard++ < MAX_RANGES) {
        switch (*p++) {
        case DW_RLE_end_of_list:
            return 0;
        case DW_RLE_base_address:
            p += addr_size;
            break;
        case DW_RLE_start_length:
            p += addr_size;
            if (p > end || skip_uleb(&p, end) < 0)
                return -1;
            break;
        case DW_RLE_offset_pair:
            if (skip_uleb(&p, end) < 0 || skip_uleb(&p, end) < 0)
                return -1;
            break;
        case DW_RLE_start_end:
            p += 2 * addr_size;
            break;
        default:                /* the x-forms: "TODO" in BFD 2.40 */
            return -1;
        }
    }
    return -1;
}

/* Whether BFD's parse_comp_unit() fails on the unit of cudie: a DWARF 5
 * DW_AT_ranges it reads (a section offset; rnglistx it skips) whose list
 * it cannot read, or cannot find. */
static int bfd_fails(Dwarf_Die *cudie, int state, Elf_Data *rl)
{
    Dwarf_Attribute a;
    Dwarf_Word off;
    uint8_t addr_size;
    Dwarf_Half version;

    if (state == RL_UNCHECKED || dwarf_attr(cudie, DW_AT_ranges, &a) == NULL ||
        dwarf_whatform(&a) != DW_FORM_sec_offset || dwarf_formudata(&a, &off) != 0 ||
        dwarf_cu_info(cudie->cu, &version, NULL, NULL, NULL, NULL, NULL, NULL) != 0 || version < 5 ||
        dwarf_diecu(cudie, &(Dwarf_Die){ 0 }, &addr_size, NULL) == NULL)
        return 0;
    return state == RL_NONE || bfd_rnglist(rl, off, addr_size) < 0;
}

int ps_dwcus__readable(ps_dwcus *t, Dwarf *dw, Dwarf_Die *cu)
{
    if (!t->stop_known) {
        Elf_Data *rl = NULL;
        int state = rnglists(dw, &rl);
        Dwarf_CU *u = NULL;
        Dwarf_Die cudie;
        uint8_t type;

        t->stop_known = 1;
        t->stop = UINT64_MAX;
        while (state != RL_UNCHECKED && dwarf_get_units(dw, u, &u, NULL, &type, &cudie, NULL) == 0) {
            if (bfd_fails(&cudie, state, rl)) {
                t->stop = dwarf_dieoffset(&cudie);
                break;
            }
        }
    }
    return dwarf_dieoffset(cu) < t->stop;
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
