/* SPDX-License-Identifier: MIT */
/*
 * diff_shape.c - perf diff's input tree rebuilt (see diff_shape.h). The
 * comparators are perf 6.1's sort entries', with its argument order: the
 * entry in the tree on the left, the new one on the right, and a negative
 * result sends the new one left.
 */
#include "diff_shape.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rbshape.h"
#include "../libparse/util.h"

typedef struct pentry {
    const char *comm, *dso;     /* Borrowed from the hist; dso NULL: no map */
    int32_t     tid, cpu;
    int         has_sym;
    uint64_t    start, end;     /* the symbol's, in its DSO (an inlined
                                 * entry's: the function it is in) */
    uint64_t    ip;
    char        level;
    size_t      row;
    const char *name;           /* Borrowed from the hist: the symbol's */
    int         inlined;        /* an inlined entry (perf's fake symbol) */
    uint64_t    map;            /* which of perf's map objects made it */
    const char *base;           /* an inlined entry's function's own name */
} pentry;

struct diff_shape {
    rbshape  tree;
    rbshape  fin;               /* with comm keys: the collapsed tree */
    int      has_fin;
    pentry  *v;                 /* owned: the tree's entries */
    size_t   n, cap;
    size_t   last;              /* the entry the last note found or made */
    int      last_found;
};

typedef struct cmp_ctx {
    const hist     *h;
    const pentry   *v;
    const pentry   *key;
} cmp_ctx;

int diff_shape_wanted(const hist_keys *keys, int by_name)
{
    return by_name && hist_keys_has(keys, HK_SYM) && !hist_keys_has(keys, HK_DSO);
}

static int sign64(int64_t v)
{
    return (v > 0) - (v < 0);
}

/* cmp_null(): nothing sorts before something */
static int cmp_null(int l_none, int r_none)
{
    return l_none && r_none ? 0 : l_none ? -1 : 1;
}

/* sort__dso_cmp(): short names, the new entry's first (perf passes its
 * arguments to _sort__dso_cmp() swapped), a missing DSO before any */
static int dso_cmp(const pentry *l, const pentry *r)
{
    if (l->dso == NULL || r->dso == NULL)
        return cmp_null(l->dso == NULL, r->dso == NULL);
    return strcmp(r->dso, l->dso);
}

/* sort__sym_cmp(): unresolved pairs by address alone, the others by DSO,
 * inlined entries by name, then symbol start and end */
static int sym_cmp(const pentry *l, const pentry *r)
{
    int c;

    if (!l->has_sym && !r->has_sym)
        return sign64((int64_t)(r->ip - l->ip));
    if ((c = dso_cmp(l, r)) != 0)
        return c;
    if (!l->has_sym || !r->has_sym)
        return cmp_null(!l->has_sym, !r->has_sym);
    if (l->inlined || r->inlined) {
        /* _sort__sym_cmp(): by name, one when they overlap */
        if ((c = strcmp(l->name ? l->name : "", r->name ? r->name : "")) != 0)
            return (c > 0) - (c < 0);
        if (l->start <= r->end && l->end >= r->start)
            return 0;
    }
    if (l->start != r->start)
        return sign64((int64_t)(r->start - l->start));
    return sign64((int64_t)(r->end - l->end));
}

/* hist_entry__cmp(): the first key that tells them apart */
static int entry_cmp(void *arg, uint32_t payload)
{
    const cmp_ctx *x = arg;
    const pentry *l = &x->v[payload], *r = x->key;
    int i, c = 0;

    for (i = 0; i < x->h->keys.n && c == 0; i++) {
        switch (x->h->keys.k[i]) {
        case HK_COMM: c = strcmp(r->comm ? r->comm : "", l->comm ? l->comm : ""); break;
        case HK_PID: case HK_TID: c = (r->tid > l->tid) - (r->tid < l->tid); break;
        case HK_CPU: c = (r->cpu > l->cpu) - (r->cpu < l->cpu); break;
        case HK_DSO: c = dso_cmp(l, r); break;
        case HK_SYM: c = sym_cmp(l, r); break;
        default: break;
        }
    }
    return c;
}

static int diff_shape_note_map(diff_shape **s, const hist *h, const hist_item *it,
                               const ps_sym *sym, const diff_shape_map *m, size_t row);

int diff_shape_report_wanted(const hist_keys *keys, int children, int inlines)
{
    if (hist_keys_has(keys, HK_TRACE) || !hist_keys_has(keys, HK_SYM) ||
        hist_keys_has(keys, HK_SRCLINE) || hist_keys_has(keys, HK_SRCFILE) ||
        hist_keys_has(keys, HK_WEIGHT) || hist_keys_has(keys, HK_LOCAL_WEIGHT) ||
        hist_keys_has(keys, HK_TRANSACTION) || hist_keys_has(keys, HK_CGROUP) ||
        hist_keys_has(keys, HK_SOCKET))
        return 0;
    return children ? inlines : !hist_keys_has(keys, HK_DSO);
}

int diff_shape_find(diff_shape **s, hist *h, const hist_item *it, const ps_sym *sym,
                    const diff_shape_map *m, size_t *row)
{
    pentry *p;

    if (diff_shape_note_map(s, h, it, sym, m, SIZE_MAX) < 0)
        return -1;
    if (!(*s)->last_found)
        return 0;
    p = &(*s)->v[(*s)->last];
    *row = p->row;
    /* hists__findnew_entry(): an entry found under another map object
     * takes the symbol that map has at its symbol's start, which for an
     * inlined entry is the function it is in */
    if (m != NULL && p->map != m->id) {
        p->map = m->id;
        if (p->inlined && p->row < h->n) {
            p->inlined = 0;
            p->name = p->base;
            p->has_sym = p->base != NULL;
            h->v[p->row].it.sym = p->base;
            h->v[p->row].it.inlined = 0;
        }
    }
    return 1;
}

size_t diff_shape_last(const diff_shape *s)
{
    return s->last;
}

int diff_shape_same(const diff_shape *s, const hist *h, const hist_item *it, const ps_sym *sym,
                    size_t entry)
{
    pentry key = { it->comm, it->dso, it->tid, it->cpu, sym != NULL || it->inlined,
                   sym ? sym->start : 0, sym ? sym->end : 0, it->ip, it->level, 0,
                   it->sym, it->inlined, 0, NULL };
    cmp_ctx x = { h, s->v, &key };

    return entry < s->n && entry_cmp(&x, (uint32_t)entry) == 0;
}

void diff_shape_new_row(diff_shape *s, size_t row)
{
    s->v[s->last].row = row;
}

int diff_shape_note(diff_shape **s, const hist *h, const hist_item *it, const ps_sym *sym,
                    size_t row)
{
    return diff_shape_note_map(s, h, it, sym, NULL, row);
}

static int diff_shape_note_map(diff_shape **s, const hist *h, const hist_item *it,
                               const ps_sym *sym, const diff_shape_map *m, size_t row)
{
    diff_shape *d = *s;
    pentry key = { it->comm, it->dso, it->tid, it->cpu, sym != NULL || it->inlined,
                   sym ? sym->start : 0, sym ? sym->end : 0, it->ip, it->level, row,
                   it->sym, it->inlined, m ? m->id : 0, m ? m->base : NULL };
    cmp_ctx x;
    int found;

    if (d == NULL) {
        if ((d = calloc(1, sizeof(*d))) == NULL)
            return -1;
        rbshape_init(&d->tree);
        *s = d;
    }
    if (ps_grow((void **)&d->v, &d->cap, d->n + 1, sizeof(*d->v)) < 0)
        return -1;
    x = (cmp_ctx){ h, d->v, &key };
    if ((d->last = rbshape_findnew(&d->tree, entry_cmp, &x, (uint32_t)d->n, &found)) == UINT32_MAX)
        return -1;
    d->last_found = found;
    if (!found)
        d->v[d->n++] = key;
    return 0;
}

/* row from's sums into row to (perf's collapse of two entries) */
static int merge_row(hist *h, hist_entry *to, hist_entry *from)
{
    (void)h;
    to->period += from->period;
    to->nr_samples += from->nr_samples;
    to->acc_period += from->acc_period;
    to->acc_samples += from->acc_samples;
    if (from->max_depth > to->max_depth)
        to->max_depth = from->max_depth;
    from->period = from->nr_samples = from->acc_period = from->acc_samples = 0;
    from->hidden = from->merged = 1;
    if (cc_merge(&to->chain, from->chain) < 0) {
        from->chain = NULL;
        return -1;
    }
    from->chain = NULL;
    return 0;
}

/* perf's collapse: the entries, in the first tree's order, into a second
 * tree with the same comparator; one that meets another gives its row's
 * sums to that one's row. order: in, the first tree's order; out, the
 * second's. @return the second tree's size, or -1 out of memory */
static long collapse(diff_shape *s, hist *h, uint32_t *order)
{
    rbshape t;
    size_t i;
    long n;
    int found;

    rbshape_init(&t);
    for (i = 0; i < s->n; i++) {
        const pentry *p = &s->v[order[i]];
        cmp_ctx x = { h, s->v, p };
        uint32_t got = rbshape_findnew(&t, entry_cmp, &x, order[i], &found);

        if (got == UINT32_MAX) {
            rbshape_free(&t);
            return -1;
        }
        if (found && s->v[got].row != p->row && p->row < h->n && s->v[got].row < h->n &&
            merge_row(h, &h->v[s->v[got].row], &h->v[p->row]) < 0) {
            rbshape_free(&t);
            return -1;
        }
    }
    rbshape_inorder(&t, order);
    n = (long)t.n;
    rbshape_free(&s->fin);      /* kept: a group's rows pair in it */
    s->fin = t;
    s->has_fin = 1;
    return n;
}

int diff_shape_rank(diff_shape *s, hist *h)
{
    uint32_t *order;
    size_t i, n;
    long k;

    if (s == NULL || s->n == 0) {
        h->ranked = 1;
        return 0;
    }
    if ((order = malloc(s->n * sizeof(*order))) == NULL)
        return -1;
    rbshape_inorder(&s->tree, order);
    n = s->n;
    if (hist_keys_has(&h->keys, HK_COMM)) {
        if ((k = collapse(s, h, order)) < 0) {
            free(order);
            return -1;
        }
        n = (size_t)k;
    }
    for (i = 0; i < n; i++)
        if (s->v[order[i]].row < h->n)
            h->v[s->v[order[i]].row].rank = (uint32_t)i;
    h->ranked = 1;
    free(order);
    return 0;
}

void diff_shape_apply(const diff_shape *s, hist *h)
{
    uint32_t *order;
    unsigned char *done;
    size_t i;

    if (s == NULL || s->n == 0 || (order = malloc(s->n * sizeof(*order))) == NULL)
        return;
    if ((done = calloc(h->n ? h->n : 1, 1)) == NULL) {
        free(order);
        return;
    }
    rbshape_inorder(&s->tree, order);
    for (i = 0; i < s->n; i++) {
        const pentry *p = &s->v[order[i]];

        if (p->row >= h->n || done[p->row])
            continue;
        done[p->row] = 1;
        h->v[p->row].it.level = p->level;
        h->v[p->row].it.ip = p->ip;
    }
    free(done);
    free(order);
}

void diff_shape_free(diff_shape *s)
{
    if (s == NULL)
        return;
    rbshape_free(&s->tree);
    rbshape_free(&s->fin);
    free(s->v);
    free(s);
}

/* perf's last tree of entries: the collapsed one with comm keys */
static rbshape *final_tree(diff_shape *s)
{
    return s->has_fin ? &s->fin : &s->tree;
}

/* hists__match(): each leader entry, in its tree's order, looks for its
 * equal in the member's tree; a found one pairs (the last pairing wins) */
static int match_entries(diff_shape *ls, hist *h, diff_shape *ms, const hist *m, uint32_t *lead)
{
    rbshape *lt = final_tree(ls);
    uint32_t *lo = malloc((lt->n ? lt->n : 1) * sizeof(*lo));
    size_t i;

    if (lo == NULL)
        return -1;
    rbshape_inorder(lt, lo);
    for (i = 0; i < lt->n; i++) {
        cmp_ctx x = { h, ms->v, &ls->v[lo[i]] };
        uint32_t got = rbshape_find(final_tree(ms), entry_cmp, &x);

        if (got != UINT32_MAX && ms->v[got].row < m->n && ls->v[lo[i]].row < h->n)
            lead[ms->v[got].row] = (uint32_t)ls->v[lo[i]].row;
    }
    free(lo);
    return 0;
}

/* hists__link(): each member entry no leader entry found, in the member
 * tree's order, goes into the leader's tree: the entry it meets there is
 * its pair, else a dummy row, whose entry later searches meet */
static int link_rest(diff_shape *ls, hist *h, diff_shape *ms, const hist *m, uint32_t *lead)
{
    rbshape *mt = final_tree(ms);
    uint32_t *mo = malloc((mt->n ? mt->n : 1) * sizeof(*mo));
    size_t i;

    if (mo == NULL)
        return -1;
    rbshape_inorder(mt, mo);
    for (i = 0; i < mt->n; i++) {
        const pentry *p = &ms->v[mo[i]];
        const hist_entry *e;
        hist_entry *d;
        cmp_ctx x;
        uint32_t got;
        int found;

        if (p->row >= m->n || lead[p->row] != UINT32_MAX)
            continue;
        e = &m->v[p->row];
        if (e->merged || e->hidden || (e->nr_samples == 0 && e->acc_period == 0))
            continue;
        if (ps_grow((void **)&ls->v, &ls->cap, ls->n + 1, sizeof(*ls->v)) < 0)
            goto oom;
        x = (cmp_ctx){ h, ls->v, p };
        if ((got = rbshape_findnew(final_tree(ls), entry_cmp, &x, (uint32_t)ls->n, &found)) ==
            UINT32_MAX)
            goto oom;
        if (found) {
            lead[p->row] = (uint32_t)ls->v[got].row;
            continue;
        }
        if ((d = hist_group_dummy(h, e)) == NULL)
            goto oom;
        ls->v[ls->n] = *p;
        ls->v[ls->n++].row = (size_t)(d - h->v);
        lead[p->row] = (uint32_t)(d - h->v);
    }
    free(mo);
    return 0;
oom:
    free(mo);
    return -1;
}

int diff_shape_link(diff_shape *ls, hist *h, diff_shape *ms, const hist *m, uint32_t *lead)
{
    rbshape *lt;
    uint32_t *lo;
    size_t i;

    for (i = 0; i < m->n; i++)
        lead[i] = UINT32_MAX;
    if (match_entries(ls, h, ms, m, lead) < 0 || link_rest(ls, h, ms, m, lead) < 0)
        return -1;
    lt = final_tree(ls);        /* the rows' ranks, dummies among them */
    if ((lo = malloc((lt->n ? lt->n : 1) * sizeof(*lo))) == NULL)
        return -1;
    rbshape_inorder(lt, lo);
    for (i = 0; i < lt->n; i++)
        if (ls->v[lo[i]].row < h->n)
            h->v[ls->v[lo[i]].row].rank = (uint32_t)i;
    free(lo);
    return 0;
}
