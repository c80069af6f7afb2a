/* SPDX-License-Identifier: MIT */
/*
 * diff_shape.h - perf's hist tree rebuilt, for sort keys with a symbol but
 * no dso (--sort sym, comm,sym, ...): which entry perf diff shows for a
 * row that merges several, and perf report's rows and their order.
 *
 * perf diff sums samples into entries of a red-black tree ordered by its
 * sort keys' comparators, then merges entries of the same symbol name
 * (every unresolved address into one) walking that tree in order; the
 * merged row shows the first entry. Without a dso key, sort__sym_cmp
 * compares two unresolved entries by address alone but others by DSO
 * name first, which is not a total order: which entry comes first, and
 * even which samples share an entry, depends on the tree's shape. So the
 * tree is rebuilt here as perf builds it (rbshape.h), entry by entry in
 * sample order, and the first entry of each row gives the row its level
 * ([k] or [.]) and its address.
 */
#ifndef PS_CMD_DIFF_SHAPE_H
#define PS_CMD_DIFF_SHAPE_H

#include "hist.h"
#include "../libparse/symbols.h"

typedef struct diff_shape diff_shape;

/** Whether rows of keys merge entries perf orders without a total order
 * (perf diff: by_name). */
int  diff_shape_wanted(const hist_keys *keys, int by_name);

/*
 * perf report with such keys (--no-children): there the tree also decides
 * which samples share a row (an address in two DSOs can share one, two
 * entries of one symbol can stay apart), and, for rows perf's output
 * order finds equal (same overhead, same name), their order. For comm keys
 * perf then rebuilds the tree once more (its collapse), in the first
 * tree's order, merging what meets.
 */
/** Whether report's rows of keys come from perf's tree: without children
 * for keys with a symbol but no dso; with children when chains have
 * inlined entries (perf compares those by name, the rest by address), for
 * any keys with a symbol. */
int  diff_shape_report_wanted(const hist_keys *keys, int children, int inlines);

/** Which of perf's map objects an entry comes from (perf has one per
 * process: a fork copies them), and an inlined entry's function's name
 * (interned in the hist; NULL none). */
typedef struct diff_shape_map {
    uint64_t    id;
    const char *base;
} diff_shape_map;

/**
 * The row of perf's entry for a sample: 1 and *row when the tree has it;
 * 0 when it is new: the caller makes its row and tells it with
 * diff_shape_new_row(). -1 out of memory. m (NULL: not told): as perf, an
 * inlined entry found under another map object becomes its function's,
 * its row too (h->v[*row].it).
 */
int  diff_shape_find(diff_shape **s, hist *h, const hist_item *it, const ps_sym *sym,
                     const diff_shape_map *m, size_t *row);
void diff_shape_new_row(diff_shape *s, size_t row);
/** The tree entry the last find or note met or made. */
size_t diff_shape_last(const diff_shape *s);
/** Whether an entry of it and sym is the tree's entry number `entry`
 * (perf's hist_entry__cmp() of the two, as its check for an entry a
 * sample's chain already added). */
int  diff_shape_same(const diff_shape *s, const hist *h, const hist_item *it, const ps_sym *sym,
                     size_t entry);

/**
 * The collapse (with comm keys) and each row's rank in perf's final tree:
 * rows merged by the collapse give their sums to the row they meet and are
 * hidden. h->ranked is set. 0, or -1 out of memory (h left unranked).
 */
int  diff_shape_rank(diff_shape *s, hist *h);

/**
 * A group member's rows paired with the leader's as perf pairs them
 * (hists__match(), then hists__link()): by searching each one's last tree
 * of entries (after diff_shape_rank()), whose comparator is no total order,
 * so equal keys can miss each other. lead[member row]: the leader's row,
 * UINT32_MAX none; member rows no leader entry meets get dummy rows
 * (hist_group_dummy()), and the leader's rows their ranks again. 0, or -1
 * out of memory.
 */
int  diff_shape_link(diff_shape *ls, hist *h, diff_shape *ms, const hist *m, uint32_t *lead);

/**
 * One sample of h: it (its item; it->dso NULL when no map), sym (its
 * symbol, NULL if unresolved) summed into row `row`. *s is made on first
 * use. 0, or -1 out of memory.
 */
int  diff_shape_note(diff_shape **s, const hist *h, const hist_item *it, const ps_sym *sym,
                     size_t row);

/** Give each row of h its first entry's level and address. */
void diff_shape_apply(const diff_shape *s, hist *h);

/** Accepts NULL. */
void diff_shape_free(diff_shape *s);

#endif /* PS_CMD_DIFF_SHAPE_H */
