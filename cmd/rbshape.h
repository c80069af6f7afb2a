/* SPDX-License-Identifier: MIT */
/*
 * rbshape.h - a red-black tree that takes the shape the kernel's rbtree
 * (lib/rbtree.c, which perf uses) takes for the same inserts: the classic
 * insert and recolour/rotate rules. It exists for comparators that are not
 * a total order (perf diff's sort__sym_cmp without a dso key): there the
 * tree's shape decides which entries meet, so only the same shape gives
 * perf's answers. Nodes are indices into an array the tree owns; each
 * carries a caller's payload index.
 */
#ifndef PS_CMD_RBSHAPE_H
#define PS_CMD_RBSHAPE_H

#include <stddef.h>
#include <stdint.h>

typedef struct rbshape {
    struct rb_node_ *v;         /* owned */
    size_t           n, cap;
    uint32_t         root;      /* index + 1; 0: empty */
} rbshape;

/* The comparator: < 0 sends the new key left of node payload `payload`,
 * > 0 right, 0 means equal (found). */
typedef int (*rbshape_cmp)(void *ctx, uint32_t payload);

void rbshape_init(rbshape *t);
void rbshape_free(rbshape *t);

/**
 * Walk down from the root with cmp, as perf's hists__findnew_entry: the
 * payload of the node found equal, or insert a node with payload `make`
 * where the walk ends and rebalance.
 * @return the payload found (*found 1) or `make` (*found 0); UINT32_MAX
 *         when out of memory.
 */
uint32_t rbshape_findnew(rbshape *t, rbshape_cmp cmp, void *ctx, uint32_t make, int *found);

/** The same walk without the insert: the payload found, UINT32_MAX none
 * (perf's hists__find_entry()). */
uint32_t rbshape_find(const rbshape *t, rbshape_cmp cmp, void *ctx);

/** Payloads in order (left to right) into out (t->n of them). */
void rbshape_inorder(const rbshape *t, uint32_t *out);

#endif /* PS_CMD_RBSHAPE_H */
