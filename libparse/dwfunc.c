/* SPDX-License-Identifier: MIT */
/*
 * dwfunc.c - per-CU function tables, built on a CU's first lookup by one
 * walk of its DIE tree (see dwfunc.h).
 */
#include "dwfunc.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "u64map.h"

#define MAX_DEPTH 512           /* deeper DIEs are not looked at */

typedef struct fn {
    Dwarf_Die die;
    long      parent;           /* index of the function around it, or -1 */
} fn;

typedef struct rng {
    uint64_t lo, hi;
    size_t   fn;
} rng;

typedef struct cutab {
    fn       *fns;              /* owned, DIE order */
    size_t    nr_fns, cap_fns;
    rng      *r;                /* owned */
    size_t    nr_r, cap_r;
} cutab;

struct ps_dwfuncs {
    cutab    *cus;              /* owned, in the order first asked */
    size_t    nr, cap;
    ps_u64map by_off;           /* CU offset -> index in cus */
};

static int is_function(int tag)
{
    return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
           tag == DW_TAG_entry_point;
}

static int add_range(cutab *c, uint64_t lo, uint64_t hi, size_t f)
{
    if (c->nr_r == c->cap_r) {
        size_t n = c->cap_r ? c->cap_r * 2 : 64;
        rng *v = realloc(c->r, n * sizeof(*v));

        if (v == NULL)
            return -1;
        c->r = v;
        c->cap_r = n;
    }
    c->r[c->nr_r].lo = lo;
    c->r[c->nr_r].hi = hi;
    c->r[c->nr_r].fn = f;
    c->nr_r++;
    return 0;
}

/* The ranges binutils 2.40 reads for a function DIE into c, for function
 * f. It reads DW_AT_ranges only in a form it takes for an integer: a
 * DWARF 5 DW_FORM_rnglistx (clang's, for every inlined instance in pieces)
 * is left out, and the DIE has whatever DW_AT_low_pc/high_pc give: usually
 * nothing, so addr2line never names that instance, and its caller is the
 * innermost function there. @return 0, -1 out of memory */
static int add_ranges(cutab *c, Dwarf_Die *die, size_t f)
{
    Dwarf_Addr base, lo, hi;
    Dwarf_Attribute a;
    ptrdiff_t off = 0;
    size_t guard = 0;

    if (dwarf_attr(die, DW_AT_ranges, &a) != NULL && dwarf_whatform(&a) == DW_FORM_rnglistx) {
        if (dwarf_lowpc(die, &lo) == 0 && dwarf_highpc(die, &hi) == 0 && hi > lo)
            return add_range(c, lo, hi, f);
        return 0;
    }
    while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0 && guard++ < 65536)
        if (hi > lo && add_range(c, lo, hi, f) < 0)
            return -1;
    return 0;
}

/* A function DIE, with its ranges if it has code. One without still
 * counts as the function around the DIEs inside it (binutils'
 * nested_funcs takes every function DIE).
 * @return its index, -1 out of memory */
static long add_function(cutab *c, Dwarf_Die *die, long parent)
{
    if (c->nr_fns == c->cap_fns) {
        size_t n = c->cap_fns ? c->cap_fns * 2 : 64;
        fn *v = realloc(c->fns, n * sizeof(*v));

        if (v == NULL)
            return -1;
        c->fns = v;
        c->cap_fns = n;
    }
    if (add_ranges(c, die, c->nr_fns) < 0)
        return -1;
    c->fns[c->nr_fns].die = *die;
    c->fns[c->nr_fns].parent = parent;
    return (long)c->nr_fns++;
}

/* One depth-first walk of the CU's DIEs, remembering for each level the
 * nearest function around it (binutils' nested_funcs). */
static int build(cutab *c, Dwarf_Die *cu)
{
    Dwarf_Die st[MAX_DEPTH];
    long enc[MAX_DEPTH];
    int sp = 0;

    if (dwarf_child(cu, &st[0]) != 0)
        return 0;
    enc[0] = -1;
    for (;;) {
        long mine = enc[sp];

        if (is_function(dwarf_tag(&st[sp]))) {
            long idx = add_function(c, &st[sp], enc[sp]);

            if (idx < 0)
                return -1;
            mine = idx;
        }
        if (dwarf_haschildren(&st[sp]) > 0 && sp + 1 < MAX_DEPTH &&
            dwarf_child(&st[sp], &st[sp + 1]) == 0) {
            enc[++sp] = mine;
            continue;
        }
        for (;;) {              /* next sibling, going up as levels end */
            Dwarf_Off was = dwarf_dieoffset(&st[sp]);

            if (dwarf_siblingof(&st[sp], &st[sp]) == 0 && dwarf_dieoffset(&st[sp]) > was)
                break;
            if (sp == 0)
                return 0;
            sp--;
        }
    }
}

/* The table of cu, built on its first use. */
static cutab *cu_get(ps_dwfuncs *t, Dwarf_Die *cu)
{
    Dwarf_Off off = dwarf_dieoffset(cu);
    uint64_t *idx = ps_u64map__get(&t->by_off, off);
    cutab *c;

    if (idx != NULL)
        return &t->cus[*idx];
    if (t->nr == t->cap) {
        size_t n = t->cap ? t->cap * 2 : 16;
        cutab *v = realloc(t->cus, n * sizeof(*v));

        if (v == NULL)
            return NULL;
        t->cus = v;
        t->cap = n;
    }
    if (ps_u64map__put(&t->by_off, off, t->nr) < 0)
        return NULL;
    c = &t->cus[t->nr++];
    memset(c, 0, sizeof(*c));
    return build(c, cu) < 0 ? NULL : c;
}

ps_dwfuncs *ps_dwfuncs__new(void)
{
    ps_dwfuncs *t = calloc(1, sizeof(*t));

    if (t != NULL)
        ps_u64map__init(&t->by_off);
    return t;
}

void ps_dwfuncs__free(ps_dwfuncs *t)
{
    size_t i;

    if (t == NULL)
        return;
    for (i = 0; i < t->nr; i++) {
        free(t->cus[i].fns);
        free(t->cus[i].r);
    }
    free(t->cus);
    ps_u64map__free(&t->by_off);
    free(t);
}

long ps_dwfuncs__chain(ps_dwfuncs *t, Dwarf_Die *cu, uint64_t addr, Dwarf_Die *out, size_t max)
{
    cutab *c = cu_get(t, cu);
    size_t i, n = 0, best = 0, best_len = 0;
    long f;

    if (c == NULL)
        return -1;
    for (i = 0; i < c->nr_r; i++) {
        const rng *r = &c->r[i];

        if (addr < r->lo || addr >= r->hi)
            continue;
        if (best_len == 0 || r->hi - r->lo < best_len ||
            (r->hi - r->lo == best_len && r->fn > best)) {
            best = r->fn;
            best_len = r->hi - r->lo;
        }
    }
    if (best_len == 0)
        return 0;
    for (f = (long)best; f >= 0 && n < max; f = c->fns[f].parent)
        out[n++] = c->fns[f].die;
    return (long)n;
}
