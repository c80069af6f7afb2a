/* SPDX-License-Identifier: MIT */
/*
 * symtree.h - perf's red-black tree of struct symbol, index-linked: the
 * one symbol table of a DSO (see symtree.c for why it is rebuilt node for
 * node), perf's lookup in it, and the passes perf runs over a loaded one.
 *
 * Layer: under every symbol loader (sym_elf.c, sym_plt.c, sym_jit.c,
 * sym_kernel.c) and symbols.c; above demangle.c. Never reads files.
 *
 * Ownership: a tree owns its node array, unless shared (a finished tree's
 * nodes lent read-only, see ps_symtree__share()); names are Borrowed (the
 * caller's arena). Node pointers and indices move only in ps_symtree__compact() and
 * on insertion; after the compaction that ends a load they never move.
 */
#ifndef PS_SYMTREE_H
#define PS_SYMTREE_H

#include <elf.h>                        /* STB_* bindings, STT_* types */
#include "symbols.h"

#define PS_SYM_NIL (-1)                 /* no node */

typedef struct ps_sym_node {
    ps_sym   sym;                   /* first: callers get &node->sym */
    int32_t  left, right, parent;   /* PS_SYM_NIL-terminated */
    uint8_t  red, binding, type, dead;  /* binding STB_*, type STT_* */
} ps_sym_node;

/** A resolved symbol's STT_* type (every ps_sym is a node's first member). */
static inline int ps_sym__type(const ps_sym *s)
{
    return ((const ps_sym_node *)(const void *)s)->type;
}

typedef struct ps_symtree {
    ps_sym_node *n;                 /* owned */
    size_t       nr, cap;
    int32_t      root;
    int32_t      last;              /* the rightmost node, or PS_SYM_NIL when
                                     * not known (see ps_symtree__insert) */
    int          unordered;         /* 0: every insertion was at the right
                                     * end, so in-order is array order */
    int          shared;            /* n is Borrowed (read-only, another
                                     * owner's): copied before any change */
} ps_symtree;

void ps_symtree__init(ps_symtree *t);
/** Frees the nodes and leaves t empty, as after ps_symtree__init(). */
void ps_symtree__free(ps_symtree *t);
/** t (empty) becomes a read-only view of from's nodes, which must not
 * change or be freed while t lives; a change to t copies them first. */
void ps_symtree__share(ps_symtree *t, const ps_symtree *from);

/** perf's __symbols__insert() of [start, end). @return 0, or -1 (no memory) */
int  ps_symtree__insert(ps_symtree *t, uint64_t start, uint64_t end, uint8_t binding,
                        uint8_t type, const char *name);
/**
 * symbol__new() + insert: a zero size gives a zero-size symbol; the name
 * (demangled when want_demangle) is copied into arena.
 * @return 0, or -1 (no memory)
 */
int  ps_symtree__add(ps_symtree *t, ps_arena *arena, uint64_t start, uint64_t size,
                     uint8_t binding, uint8_t type, const char *name, int want_demangle);
/** rb_erase(); the node stays in the array, marked dead. */
void ps_symtree__erase(ps_symtree *t, int32_t z);

/** The first and last live node in order, or PS_SYM_NIL. */
int32_t ps_symtree__first(const ps_symtree *t);
int32_t ps_symtree__last(const ps_symtree *t);
/** The live nodes in order (perf's rb_first/rb_next walk). Owned: free(). */
int32_t *ps_symtree__inorder(const ps_symtree *t, size_t *nr);
/** The live nodes in order, one at a time: an array only for a tree not
 * in array order. Whoever walks may erase the node it is at or ones it
 * passed, nothing else. */
typedef struct ps_symwalk {
    const ps_symtree *t;
    int32_t          *v;            /* owned: the order, or NULL: array order */
    size_t            nr, k;
} ps_symwalk;
/** @return 0, or -1 (no memory) */
int     ps_symwalk__begin(ps_symwalk *w, const ps_symtree *t);
/** The next node, or PS_SYM_NIL at the end. */
int32_t ps_symwalk__next(ps_symwalk *w);
void    ps_symwalk__end(ps_symwalk *w);
/** perf's symbols__find(); NULL when no symbol holds ip. */
const ps_sym_node *ps_symtree__find(const ps_symtree *t, uint64_t ip);
/** Drop the dead nodes; @return 0, or -1 (no memory: t unchanged) */
int  ps_symtree__compact(ps_symtree *t);

/** perf's symbols__fixup_end() (is_kallsyms: its kallsyms rule). @return 0 or -1 */
int  ps_symtree__fixup_end(ps_symtree *t, int is_kallsyms);
/** perf's symbols__fixup_duplicate(). @return 0, or -1 (no memory) */
int  ps_symtree__fixup_duplicate(ps_symtree *t);

#endif /* PS_SYMTREE_H */
