/* SPDX-License-Identifier: MIT */
/*
 * symtree.c - perf's red-black tree of struct symbol (see symtree.h),
 * index-linked in one array, and the passes perf 6.1 runs over a loaded
 * tree (symbols__fixup_end, symbols__fixup_duplicate).
 *
 * Why node for node: overlapping symbols (JIT maps, ELF labels, kallsyms
 * aliases) resolve to whichever node perf's symbols__find() meets first,
 * and that depends on the tree's shape. So insertion order, rebalancing
 * and erasures are lib/rbtree.c's, equal starts go right, and a lookup
 * walks the tree as perf does (a symbol holds [start, end), a zero-size
 * one holds its start).
 *
 * Invariants: a live node's links are PS_SYM_NIL or live nodes; erased
 * nodes stay in the array (dead) until ps_symtree__compact().
 * Never reads files, never knows which DSO a tree belongs to.
 */
#include "demangle.h"
#include "symtree.h"

#define NIL             PS_SYM_NIL      /* short: the tree code tests it everywhere */
#define PAGE_4K         UINT64_C(4096)

#define T_L(t, i) ((t)->n[i].left)
#define T_R(t, i) ((t)->n[i].right)
#define T_P(t, i) ((t)->n[i].parent)

void ps_symtree__init(ps_symtree *t)
{
    memset(t, 0, sizeof(*t));
    t->root = t->last = NIL;
}

void ps_symtree__free(ps_symtree *t)
{
    if (!t->shared)
        free(t->n);
    ps_symtree__init(t);
}

void ps_symtree__share(ps_symtree *t, const ps_symtree *from)
{
    ps_symtree__free(t);
    *t = *from;
    t->cap = t->nr;
    t->shared = 1;
}

/* A shared tree about to change gets its own nodes. 0, or -1 (memory). */
static int unshare(ps_symtree *t)
{
    ps_sym_node *n;

    if (!t->shared)
        return 0;
    if ((n = malloc((t->nr ? t->nr : 1) * sizeof(*n))) == NULL)
        return -1;
    memcpy(n, t->n, t->nr * sizeof(*n));
    t->n = n;
    t->cap = t->nr;
    t->shared = 0;
    return 0;
}

static int t_red(const ps_symtree *t, int32_t i) { return i != NIL && t->n[i].red; }

static void t_replace_child(ps_symtree *t, int32_t parent, int32_t old, int32_t new)
{
    if (parent == NIL)
        t->root = new;
    else if (T_L(t, parent) == old)
        T_L(t, parent) = new;
    else
        T_R(t, parent) = new;
}

/* Node i's child link on side dir (0 left, 1 right). Each rebalance case
 * below has a mirror image with left and right exchanged; side/dir
 * variables let one code path serve both. */
static int32_t *t_child(ps_symtree *t, int32_t i, int dir)
{
    return dir ? &t->n[i].right : &t->n[i].left;
}

/* Rotate x down to side dir: dir 0 is a left rotation, 1 a right one. */
static void t_rotate(ps_symtree *t, int32_t x, int dir)
{
    int32_t y = *t_child(t, x, !dir);

    *t_child(t, x, !dir) = *t_child(t, y, dir);
    if (*t_child(t, y, dir) != NIL)
        T_P(t, *t_child(t, y, dir)) = x;
    T_P(t, y) = T_P(t, x);
    t_replace_child(t, T_P(t, x), x, y);
    *t_child(t, y, dir) = x;
    T_P(t, x) = y;
}

/* The classic insertion rebalance (the same rotations as lib/rbtree.c). */
static void t_insert_fixup(ps_symtree *t, int32_t z)
{
    for (;;) {
        int32_t p = T_P(t, z), g, u;
        int side;

        if (p == NIL) { t->n[z].red = 0; return; }
        if (!t->n[p].red)
            return;
        g = T_P(t, p);
        side = p == T_L(t, g) ? 0 : 1;      /* p's side of g */
        u = *t_child(t, g, !side);
        if (t_red(t, u)) {
            t->n[p].red = t->n[u].red = 0; t->n[g].red = 1; z = g; continue;
        }
        if (z == *t_child(t, p, !side)) { t_rotate(t, p, side); z = p; p = T_P(t, z); }
        t->n[p].red = 0; t->n[g].red = 1; t_rotate(t, g, !side);
        return;
    }
}

/* Where start goes: the parent of the new leaf. A start at or past the
 * rightmost node's would walk right all the way down, so it goes under
 * that node at once (kallsyms and sorted symbol tables come in order);
 * *rightmost says whether the leaf becomes the new rightmost node. */
static int32_t insert_parent(const ps_symtree *t, uint64_t start, int *rightmost)
{
    int32_t p = NIL, x = t->root;

    if (t->last != NIL && start >= t->n[t->last].sym.start) {
        *rightmost = 1;
        return t->last;
    }
    *rightmost = 1;
    while (x != NIL) {
        p = x;
        if (start < t->n[x].sym.start) {
            x = T_L(t, x);
            *rightmost = 0;
        } else {
            x = T_R(t, x);
        }
    }
    return p;
}

/* Append a node and link it where perf's __symbols__insert() would: equal
 * starts go right, so in-order equals insertion order among them. */
int ps_symtree__insert(ps_symtree *t, uint64_t start, uint64_t end, uint8_t binding,
                    uint8_t type, const char *name)
{
    int32_t z, p;
    ps_sym_node *nd;
    int rightmost;

    if (t->nr >= INT32_MAX - 1 || unshare(t) < 0 ||
        ps_grow((void **)&t->n, &t->cap, t->nr + 1, sizeof(*t->n)) < 0)
        return -1;
    z = (int32_t)t->nr++;
    nd = &t->n[z];
    memset(nd, 0, sizeof(*nd));
    nd->sym.start = start; nd->sym.end = end; nd->sym.name = name;
    nd->binding = binding; nd->type = type; nd->red = 1;
    nd->left = nd->right = NIL;
    p = insert_parent(t, start, &rightmost);
    nd->parent = p;
    if (p == NIL)
        t->root = z;
    else if (start < t->n[p].sym.start)
        T_L(t, p) = z;
    else
        T_R(t, p) = z;
    if (rightmost)
        t->last = z;        /* rotations keep the in-order, so it stays last */
    else
        t->unordered = 1;
    t_insert_fixup(t, z);
    return 0;
}

/* Insert one symbol, its name demangled when asked. */
int ps_symtree__add(ps_symtree *t, ps_arena *arena, uint64_t start, uint64_t size,
                    uint8_t binding, uint8_t type, const char *name, int want_demangle)
{
    char *d = want_demangle ? ps_sym__demangle(name) : NULL;
    const char *stored = d ? d : name;

    stored = ps_arena__strndup(arena, stored, strlen(stored));

    free(d);
    if (stored == NULL)
        return -1;
    return ps_symtree__insert(t, start, size ? start + size : start, binding, type, stored);
}

/* Erase rebalance; x may be NIL, so its parent is passed. A NIL x counts as
 * the left child unless the parent's right link is NIL too (lib/rbtree.c's
 * "node != parent->rb_right" test). */
static void t_erase_fixup(ps_symtree *t, int32_t x, int32_t parent)
{
    while (parent != NIL && !t_red(t, x)) {
        int side = x != T_R(t, parent) ? 0 : 1;     /* x's side of parent */
        int32_t w = *t_child(t, parent, !side);

        if (t_red(t, w)) {
            t->n[w].red = 0; t->n[parent].red = 1;
            t_rotate(t, parent, side); w = *t_child(t, parent, !side);
        }
        if (!t_red(t, T_L(t, w)) && !t_red(t, T_R(t, w))) {
            t->n[w].red = 1; x = parent; parent = T_P(t, x); continue;
        }
        if (!t_red(t, *t_child(t, w, !side))) {
            t->n[*t_child(t, w, side)].red = 0; t->n[w].red = 1;
            t_rotate(t, w, !side); w = *t_child(t, parent, !side);
        }
        t->n[w].red = t->n[parent].red; t->n[parent].red = 0;
        t->n[*t_child(t, w, !side)].red = 0; t_rotate(t, parent, side);
        x = t->root;
        break;
    }
    if (x != NIL)
        t->n[x].red = 0;
}

/* rb_erase(): a node with two children is replaced by its successor. */
void ps_symtree__erase(ps_symtree *t, int32_t z)
{
    int32_t x, xp, y = z;
    int y_red;

    if (unshare(t) < 0)
        return;                 /* out of memory: the node stays */
    y_red = t->n[z].red;

    if (T_L(t, z) == NIL || T_R(t, z) == NIL) {
        x = T_L(t, z) == NIL ? T_R(t, z) : T_L(t, z);
        xp = T_P(t, z);
        t_replace_child(t, xp, z, x);
        if (x != NIL)
            T_P(t, x) = xp;
    } else {
        for (y = T_R(t, z); T_L(t, y) != NIL; y = T_L(t, y))
            ;
        y_red = t->n[y].red;
        x = T_R(t, y);
        if (T_P(t, y) == z) {
            xp = y;
        } else {
            xp = T_P(t, y);
            T_L(t, xp) = x;
            if (x != NIL)
                T_P(t, x) = xp;
            T_R(t, y) = T_R(t, z);
            T_P(t, T_R(t, y)) = y;
        }
        t_replace_child(t, T_P(t, z), z, y);
        T_P(t, y) = T_P(t, z);
        T_L(t, y) = T_L(t, z);
        T_P(t, T_L(t, y)) = y;
        t->n[y].red = t->n[z].red;
    }
    t->n[z].dead = 1;
    if (z == t->last)
        t->last = NIL;      /* found again by the next insertion's walk */
    if (!y_red)
        t_erase_fixup(t, x, xp);
}

int32_t ps_symtree__first(const ps_symtree *t)
{
    int32_t i = t->root;

    while (i != NIL && T_L(t, i) != NIL)
        i = T_L(t, i);
    return i;
}

int32_t ps_symtree__last(const ps_symtree *t)
{
    int32_t i = t->root;

    while (i != NIL && T_R(t, i) != NIL)
        i = T_R(t, i);
    return i;
}

static int32_t t_next(const ps_symtree *t, int32_t i)
{
    int32_t p;

    if (T_R(t, i) != NIL) {
        for (i = T_R(t, i); T_L(t, i) != NIL; i = T_L(t, i))
            ;
        return i;
    }
    while ((p = T_P(t, i)) != NIL && i == T_R(t, p))
        i = p;
    return p;
}

/* The live nodes in order (perf's rb_first/rb_next walk). Owned: free().
 * A tree only ever appended to at its right end (kallsyms, sorted symbol
 * tables) has them in array order: a scan, not a walk of 10^5 links. */
int32_t *ps_symtree__inorder(const ps_symtree *t, size_t *nr)
{
    int32_t *v = malloc((t->nr ? t->nr : 1) * sizeof(*v)), i;
    size_t k = 0;

    if (v == NULL)
        return NULL;
    if (!t->unordered) {
        for (i = 0; (size_t)i < t->nr; i++)
            if (!t->n[i].dead)
                v[k++] = i;
        *nr = k;
        return v;
    }
    for (i = ps_symtree__first(t); i != NIL; i = t_next(t, i))
        v[k++] = i;
    *nr = k;
    return v;
}

int ps_symwalk__begin(ps_symwalk *w, const ps_symtree *t)
{
    w->t = t;
    w->k = 0;
    w->v = NULL;
    w->nr = t->nr;
    if (t->unordered && (w->v = ps_symtree__inorder(t, &w->nr)) == NULL)
        return -1;
    return 0;
}

/* In array order a node is skipped if dead when reached: only those the
 * walker erased behind it die meanwhile, so it is the order at the start. */
int32_t ps_symwalk__next(ps_symwalk *w)
{
    while (w->k < w->nr) {
        int32_t i = w->v != NULL ? w->v[w->k] : (int32_t)w->k;

        w->k++;
        if (w->v != NULL || !w->t->n[i].dead)
            return i;
    }
    return NIL;
}

void ps_symwalk__end(ps_symwalk *w)
{
    free(w->v);
    w->v = NULL;
}

/* perf's symbols__find(). */
const ps_sym_node *ps_symtree__find(const ps_symtree *t, uint64_t ip)
{
    int32_t i = t->root;

    while (i != NIL) {
        const ps_sym_node *s = &t->n[i];

        if (ip < s->sym.start)
            i = s->left;
        else if (ip > s->sym.end || (ip == s->sym.end && ip != s->sym.start))
            i = s->right;
        else
            return s;
    }
    return NULL;
}

/* Drop erased nodes so the array holds only what lookups can reach; after
 * this the nodes never move again (ps_sym pointers stay valid). */
int ps_symtree__compact(ps_symtree *t)
{
    int32_t *map, j = 0;
    size_t i;

    for (i = 0; i < t->nr && !t->n[i].dead; i++)
        ;
    if (i == t->nr) {           /* nothing to drop (a shared tree never has) */
        t->last = NIL;
        return 0;
    }
    if ((map = malloc(t->nr * sizeof(*map))) == NULL)
        return -1;
    for (i = 0; i < t->nr; i++)
        map[i] = t->n[i].dead ? NIL : j++;
    for (i = 0; i < t->nr; i++) {
        ps_sym_node nd = t->n[i];

        if (nd.dead)
            continue;
        nd.left = nd.left == NIL ? NIL : map[nd.left];
        nd.right = nd.right == NIL ? NIL : map[nd.right];
        nd.parent = nd.parent == NIL ? NIL : map[nd.parent];
        t->n[map[i]] = nd;
    }
    t->root = t->root == NIL ? NIL : map[t->root];
    t->last = NIL;
    t->nr = (size_t)j;
    free(map);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* perf's fixups                                                            */

static uint64_t roundup_4k(uint64_t x) { return (x + PAGE_4K - 1) / PAGE_4K * PAGE_4K; }

/* symbols__fixup_end(): a zero-size symbol ends where the next one starts;
 * in kallsyms, not across the kernel/module boundary ('[' in the name). */
int ps_symtree__fixup_end(ps_symtree *t, int is_kallsyms)
{
    ps_symwalk w;
    ps_sym *prev, *curr = NULL;
    int32_t i;

    if (unshare(t) < 0 || ps_symwalk__begin(&w, t) < 0)
        return -1;
    while ((i = ps_symwalk__next(&w)) != NIL) {
        prev = curr;
        curr = &t->n[i].sym;
        if (prev == NULL || prev->end != prev->start)
            continue;
        if (is_kallsyms && (!strchr(prev->name, '[') != !strchr(curr->name, '[')))
            prev->end = roundup_4k(prev->end + PAGE_4K);
        else
            prev->end = curr->start;
    }
    if (curr != NULL && curr->end == curr->start)
        curr->end = roundup_4k(curr->start) + PAGE_4K;
    ps_symwalk__end(&w);
    return 0;
}

static size_t leading_underscores(const char *s)
{
    size_t n = 0;

    while (s[n] == '_')
        n++;
    return n;
}

/* choose_best_symbol(): 0 keeps a, 1 keeps b. The tests run in perf's
 * order: sized over zero-size, non-weak over weak, global over other,
 * fewer leading underscores, longer name, else the first. */
static int choose_best(const ps_sym_node *a, const ps_sym_node *b)
{
    int64_t la = (int64_t)(a->sym.end - a->sym.start);
    int64_t lb = (int64_t)(b->sym.end - b->sym.start);
    size_t na, nb;

    if (lb == 0 && la > 0) return 0;
    if (la == 0 && lb > 0) return 1;
    if ((b->binding == STB_WEAK) != (a->binding == STB_WEAK))
        return a->binding == STB_WEAK;
    if ((a->binding == STB_GLOBAL) != (b->binding == STB_GLOBAL))
        return b->binding == STB_GLOBAL;
    na = leading_underscores(a->sym.name);
    nb = leading_underscores(b->sym.name);
    if (na != nb)
        return na > nb;
    na = strlen(a->sym.name);
    nb = strlen(b->sym.name);
    if (na != nb)
        return na < nb;
    return 0;
}

/* symbols__fixup_duplicate(): walk in order; of two neighbours with one
 * start the loser is erased, and the winner meets the next one. */
int ps_symtree__fixup_duplicate(ps_symtree *t)
{
    ps_symwalk w;
    int32_t curr, next;

    if (unshare(t) < 0 || ps_symwalk__begin(&w, t) < 0)
        return -1;
    for (curr = ps_symwalk__next(&w); curr != NIL && (next = ps_symwalk__next(&w)) != NIL;) {
        if (t->n[curr].sym.start != t->n[next].sym.start) {
            curr = next;
            continue;
        }
        if (choose_best(&t->n[curr], &t->n[next]) == 0) {
            ps_symtree__erase(t, next);
        } else {
            ps_symtree__erase(t, curr);
            curr = next;
        }
    }
    ps_symwalk__end(&w);
    return 0;
}
