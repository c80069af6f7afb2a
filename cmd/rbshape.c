/* SPDX-License-Identifier: MIT */
/*
 * rbshape.c - a red-black tree shaped as the kernel's (see rbshape.h):
 * insert at the leaf the walk ends on, red; then, while the parent is red,
 * an uncle that is red is recoloured with the parent (black) and the
 * grandparent (red, and the walk goes on from it), else one or two
 * rotations end it. Child links are indices + 1 (0: none).
 */
#include "rbshape.h"

#include <stdlib.h>

#include "../libparse/util.h"

typedef struct rb_node_ {
    uint32_t parent, left, right;   /* index + 1 */
    uint32_t payload;
    int      red;
} rb_node_;

#define N(t, i) (&(t)->v[(i) - 1])

void rbshape_init(rbshape *t)
{
    t->v = NULL;
    t->n = t->cap = 0;
    t->root = 0;
}

void rbshape_free(rbshape *t)
{
    free(t->v);
    rbshape_init(t);
}

/* x's parent now points at y instead (or the root does). */
static void replace_child(rbshape *t, uint32_t x, uint32_t y)
{
    uint32_t p = N(t, x)->parent;

    N(t, y)->parent = p;
    if (p == 0)
        t->root = y;
    else if (N(t, p)->left == x)
        N(t, p)->left = y;
    else
        N(t, p)->right = y;
}

static void rotate_left(rbshape *t, uint32_t x)
{
    uint32_t y = N(t, x)->right;

    N(t, x)->right = N(t, y)->left;
    if (N(t, y)->left)
        N(t, N(t, y)->left)->parent = x;
    replace_child(t, x, y);
    N(t, y)->left = x;
    N(t, x)->parent = y;
}

static void rotate_right(rbshape *t, uint32_t x)
{
    uint32_t y = N(t, x)->left;

    N(t, x)->left = N(t, y)->right;
    if (N(t, y)->right)
        N(t, N(t, y)->right)->parent = x;
    replace_child(t, x, y);
    N(t, y)->right = x;
    N(t, x)->parent = y;
}

static void fixup(rbshape *t, uint32_t z)
{
    while (N(t, z)->parent && N(t, N(t, z)->parent)->red) {
        uint32_t p = N(t, z)->parent, g = N(t, p)->parent;
        int left = N(t, g)->left == p;
        uint32_t u = left ? N(t, g)->right : N(t, g)->left;

        if (u && N(t, u)->red) {            /* recolour, go on from g */
            N(t, p)->red = 0;
            N(t, u)->red = 0;
            N(t, g)->red = 1;
            z = g;
            continue;
        }
        if (left && z == N(t, p)->right) {  /* inner child: straighten */
            rotate_left(t, p);
            z = p;
            p = N(t, z)->parent;
        } else if (!left && z == N(t, p)->left) {
            rotate_right(t, p);
            z = p;
            p = N(t, z)->parent;
        }
        N(t, p)->red = 0;
        N(t, g)->red = 1;
        if (left)
            rotate_right(t, g);
        else
            rotate_left(t, g);
        break;
    }
    N(t, t->root)->red = 0;
}

uint32_t rbshape_find(const rbshape *t, rbshape_cmp cmp, void *ctx)
{
    uint32_t cur = t->root;

    while (cur) {
        int c = cmp(ctx, N(t, cur)->payload);

        if (c == 0)
            return N(t, cur)->payload;
        cur = c < 0 ? N(t, cur)->left : N(t, cur)->right;
    }
    return UINT32_MAX;
}

uint32_t rbshape_findnew(rbshape *t, rbshape_cmp cmp, void *ctx, uint32_t make, int *found)
{
    uint32_t parent = 0, cur = t->root, z;
    int go_left = 0;

    *found = 0;
    while (cur) {
        int c = cmp(ctx, N(t, cur)->payload);

        if (c == 0) {
            *found = 1;
            return N(t, cur)->payload;
        }
        parent = cur;
        go_left = c < 0;
        cur = go_left ? N(t, cur)->left : N(t, cur)->right;
    }
    if (ps_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0)
        return UINT32_MAX;
    z = (uint32_t)++t->n;
    *N(t, z) = (rb_node_){ parent, 0, 0, make, 1 };
    if (parent == 0)
        t->root = z;
    else if (go_left)
        N(t, parent)->left = z;
    else
        N(t, parent)->right = z;
    fixup(t, z);
    return make;
}

void rbshape_inorder(const rbshape *t, uint32_t *out)
{
    uint32_t cur = t->root, prev = 0;
    size_t k = 0;

    /* iterative, with parent links: no stack to size */
    while (cur) {
        const rb_node_ *c = N(t, cur);

        if (prev == c->parent) {            /* came down */
            if (c->left) {
                prev = cur;
                cur = c->left;
                continue;
            }
            out[k++] = c->payload;
            prev = cur;
            cur = c->right ? c->right : c->parent;
        } else if (prev == c->left) {       /* back from the left */
            out[k++] = c->payload;
            prev = cur;
            cur = c->right ? c->right : c->parent;
        } else {                            /* back from the right */
            prev = cur;
            cur = c->parent;
        }
    }
}
