/* SPDX-License-Identifier: MIT */
/*
 * flame_layout.c - the frames of a flame graph, merged as flamegraph.pl
 * merges them (shared/spec/peers.md 4.6; the facts of its flow(), our code).
 *
 * Lines are sorted as Perl's `sort` sorts strings (bytewise: the order of
 * code points for UTF-8), unless it is a flame chart. Then each line's
 * frames, below a root frame named "", are compared with the frames still
 * open from the line before: the shared prefix stays open, the rest close at
 * the running total (a frame is born) and the line's own frames open there.
 * Only *adjacent* equal prefixes merge; a tree would merge more than Perl
 * does when another line sorts between two of them ("a;b 1", "a;b!;c 1",
 * "a;b;d 1" gives two b frames), and we draw what flamegraph.pl draws.
 * Linear in the number of frames, plus two sorts.
 *
 * Invariants: a frame's span holds its children's spans; the root spans
 * [0, time). flamegraph.pl keys frames by "name;depth;etime", so a frame
 * born with the same key as an earlier one (only possible for empty spans)
 * replaces its start and, if it has one, its delta (dedup_nodes()).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flame_layout.h"
#include "flame_read.h"
#include "../libparse/util.h"

struct open_frame {
    const char *name;
    size_t      len;
    double      stime, delta;
    int         has_delta;
};

struct flow {
    flame_layout      *l;
    struct open_frame *open;
    size_t             nr_open, cap_open;
    int                oom;
};

static int line_cmp(const void *a, const void *b)
{
    const flame_line *x = a, *y = b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n);

    if (c != 0)
        return c;
    return x->key_len < y->key_len ? -1 : x->key_len > y->key_len;
}

static void emit(struct flow *f, const struct open_frame *o, unsigned depth, double etime)
{
    flame_layout *l = f->l;
    flame_node *n;

    if (ps_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0) {
        f->oom = 1;
        return;
    }
    n = &l->v[l->n++];
    n->name = o->name;
    n->len = o->len;
    n->depth = depth;
    n->stime = o->stime;
    n->etime = etime;
    n->delta = o->delta;
    n->has_delta = o->has_delta;
}

/* Close the open frames above depth keep (they end at time). */
static void close_to(struct flow *f, size_t keep, double time)
{
    while (f->nr_open > keep) {
        f->nr_open--;
        emit(f, &f->open[f->nr_open], (unsigned)f->nr_open, time);
    }
}

static int open_frame(struct flow *f, const char *name, size_t len, double time)
{
    struct open_frame *o;

    if (ps_grow((void **)&f->open, &f->cap_open, f->nr_open + 1, sizeof(*f->open)) < 0)
        return -1;
    o = &f->open[f->nr_open++];
    o->name = name;
    o->len = len;
    o->stime = time;
    o->delta = 0;
    o->has_delta = 0;
    return 0;
}

/* One line: keep the shared prefix, close the rest, open the new frames. */
static int flow_line(struct flow *f, const char *stack, size_t len, int has_delta,
                     double delta, double time, int inclusive)
{
    const char *p = stack, *name;
    size_t flen, depth = 1, first_new = SIZE_MAX, i;

    if (f->nr_open == 0) {          /* the first line opens the root too */
        if (open_frame(f, "", 0, time) < 0)
            return -1;
        first_new = 0;
    }
    while (flame_split_next(&p, stack + len, &name, &flen)) {
        if (first_new == SIZE_MAX && depth < f->nr_open && f->open[depth].len == flen &&
            memcmp(f->open[depth].name, name, flen) == 0) {
            depth++;
            continue;
        }
        if (first_new == SIZE_MAX) {
            close_to(f, depth, time);
            first_new = depth;
        }
        if (open_frame(f, name, flen, time) < 0)
            return -1;
        depth++;
    }
    if (first_new == SIZE_MAX) {    /* all shared: frames deeper than it end */
        close_to(f, depth, time);
        first_new = depth;
    }
    if (has_delta && inclusive) {   /* every frame on the line takes its delta */
        for (i = 0; i < depth; i++) {
            f->open[i].has_delta = 1;
            f->open[i].delta += delta;
        }
        return f->oom ? -1 : 0;
    }
    /* only the frames this line opened carry its delta, and only its leaf a
     * non-zero one: flamegraph.pl draws changes at the leaves */
    for (i = first_new; has_delta && i < depth; i++) {
        f->open[i].has_delta = 1;
        f->open[i].delta = i + 1 == depth ? delta : 0;
    }
    return f->oom ? -1 : 0;
}

static const char *chain_sep(const char *p, const char *end)
{
    for (; end - p >= 4; p++)
        if (memcmp(p, ";--;", 4) == 0)
            return p;
    return end;
}

static void put(char *out, size_t *o, const char *s, size_t n)
{
    memcpy(out + *o, s, n);
    *o += n;
}

/* --colors=chain: `split ";--;"` the stack (trailing empty parts dropped);
 * every frame of the parts after the first gets "_[w]" (a waker), and the
 * parts are joined again - with ";--;" after the first part even when it is
 * the only one, as flamegraph.pl does. Writes at most 6 * len + 16 bytes. */
static size_t chain_rewrite(char *out, const char *s, size_t len)
{
    const char *end = s + len, *p, *q;
    size_t o = 0, keep = 0, k, i;

    for (p = s, k = 0;; k++, p = q + 4) {
        q = chain_sep(p, end);
        if (q > p)
            keep = k + 1;
        if (q == end)
            break;
    }
    for (p = s, k = 0; k < keep; k++, p = q + 4) {
        q = chain_sep(p, end);
        if (k > 1)
            put(out, &o, ";--;", 4);
        for (i = 0; p + i < q; i++) {
            if (k > 0 && p[i] == ';')
                put(out, &o, "_[w]", 4);
            out[o++] = p[i];
        }
        put(out, &o, k > 0 ? "_[w]" : ";--;", 4);
    }
    if (keep == 0)
        put(out, &o, ";--;", 4);
    return o;
}

/* "stack count1[ count2]" for lines that came without a key. */
static size_t make_key(char *out, size_t size, const flame_line *l)
{
    size_t k = l->len;
    int w;

    memcpy(out, l->stack, k);
    if (l->nr_counts == 2)
        w = snprintf(out + k, size - k, " %.15g %.15g", l->count1, l->count2);
    else
        w = snprintf(out + k, size - k, " %.15g", l->count1);
    return k + (w > 0 ? (size_t)w : 0);
}

/* Room for made keys and chain stacks, all in l->text. */
static int reserve_text(flame_layout *l, const flame_line *lines, size_t n, int chain)
{
    size_t i, size = 1;

    for (i = 0; i < n; i++) {
        if (lines[i].key == NULL)
            size += lines[i].len + 64;
        if (chain)
            size += 6 * lines[i].len + 16;
    }
    return (l->text = malloc(size)) == NULL ? -1 : 0;
}

/* Perl's sort of the lines; keys are made at text for lines without one. */
static char *sort_lines(flame_line *lines, size_t n, char *text)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (lines[i].key == NULL) {
            lines[i].key = text;
            lines[i].key_len = make_key(text, lines[i].len + 64, &lines[i]);
            text += lines[i].key_len;
        }
    if (n > 1)                      /* lines may be NULL when n is 0 */
        qsort(lines, n, sizeof(*lines), line_cmp);
    return text;
}

static int node_key_cmp(const void *a, const void *b)
{
    const flame_node *x = *(const flame_node *const *)a, *y = *(const flame_node *const *)b;
    int c;

    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    if (x->etime != y->etime)
        return x->etime < y->etime ? -1 : 1;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    if ((c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len)) != 0)
        return c;
    return x < y ? -1 : x > y;      /* birth order */
}

/* flamegraph.pl's %Node: a later frame with an earlier one's key updates
 * that one. The survivor keeps its place; the later are dropped. */
static int dedup_nodes(flame_layout *l)
{
    flame_node **idx = malloc((l->n ? l->n : 1) * sizeof(*idx));
    size_t i, j, out;

    if (idx == NULL)
        return -1;
    for (i = 0; i < l->n; i++)
        idx[i] = &l->v[i];
    qsort(idx, l->n, sizeof(*idx), node_key_cmp);
    for (i = 0; i < l->n; i = j) {
        for (j = i + 1; j < l->n && idx[j]->depth == idx[i]->depth &&
             idx[j]->etime == idx[i]->etime && idx[j]->len == idx[i]->len &&
             memcmp(idx[j]->name, idx[i]->name, idx[i]->len) == 0; j++) {
            idx[i]->stime = idx[j]->stime;
            if (idx[j]->has_delta) {
                idx[i]->delta = idx[j]->delta;
                idx[i]->has_delta = 1;
            }
            idx[j]->name = NULL;    /* dropped */
        }
    }
    free(idx);
    for (i = out = 0; i < l->n; i++)
        if (l->v[i].name != NULL)
            l->v[out++] = l->v[i];
    l->n = out;
    return 0;
}

static int node_draw_cmp(const void *a, const void *b)
{
    const flame_node *x = a, *y = b;

    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    if (x->stime != y->stime)
        return x->stime < y->stime ? -1 : 1;
    return (x->etime > y->etime) - (x->etime < y->etime);
}

static int flow_all(struct flow *f, const flame_line *lines, size_t n, int chain, char *text,
                    int inclusive)
{
    flame_layout *l = f->l;
    double time = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        const flame_line *ln = &lines[i];
        const char *stack = ln->stack;
        size_t len = ln->len;
        int two = ln->nr_counts == 2;
        double delta = two ? ln->count2 - ln->count1 : 0;

        if (two && (delta > l->maxdelta || -delta > l->maxdelta))
            l->maxdelta = delta < 0 ? -delta : delta;
        if (chain) {
            len = chain_rewrite(text, stack, len);
            stack = text;
            text += len;
        }
        if (flow_line(f, stack, len, two, delta, time, inclusive) < 0)
            return -1;
        time += two ? ln->count2 : ln->count1;
    }
    close_to(f, 0, time);
    l->time = time;
    for (i = 0; inclusive && i < l->n; i++) {   /* shades relative to the largest frame's */
        double d = l->v[i].delta < 0 ? -l->v[i].delta : l->v[i].delta;

        if (d > l->maxdelta)
            l->maxdelta = d;
    }
    return f->oom ? -1 : 0;
}

int flame_layout_build(flame_layout *out, flame_line *lines, size_t n, int flamechart,
                       int chain, int inclusive)
{
    struct flow f;
    char *text;
    int rc;

    memset(out, 0, sizeof(*out));
    memset(&f, 0, sizeof(f));
    out->maxdelta = 1;
    f.l = out;
    if (reserve_text(out, lines, n, chain) < 0)
        return -1;
    text = out->text;
    if (!flamechart)
        text = sort_lines(lines, n, text);
    rc = flow_all(&f, lines, n, chain, text, inclusive);
    free(f.open);
    if (rc < 0 || dedup_nodes(out) < 0) {
        flame_layout_free(out);
        return -1;
    }
    if (out->n > 1)
        qsort(out->v, out->n, sizeof(*out->v), node_draw_cmp);
    return 0;
}

void flame_layout_free(flame_layout *l)
{
    free(l->v);
    free(l->text);
    memset(l, 0, sizeof(*l));
}
