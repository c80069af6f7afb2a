/* SPDX-License-Identifier: MIT */
/*
 * callchain.h - the call graphs perf report prints under its rows: each
 * row's call chains summed in a tree of shared prefixes (a node holds a
 * run of entries; it splits where chains part), sorted by hits and printed
 * in perf's graph, fractal, flat or folded form (-g/--call-graph).
 *
 * Two entries are the same when perf's callchain key "function" says so:
 * the same symbol start in the same DSO, the same name when either is an
 * inlined entry, the same address in the same DSO when either has no
 * symbol. A node's children keep perf's order for that comparison (larger
 * first), which decides the order of children with equal hits. perf orders
 * DSOs by where their objects happen to sit in its memory, which follows
 * the order it made them in: the kernel's first, then as the capture maps
 * them. cc_ent.dso_ord stands for that.
 */
#ifndef PS_CMD_CALLCHAIN_H
#define PS_CMD_CALLCHAIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** One call chain entry, as perf's callchain cursor holds it. */
typedef struct cc_ent {
    uint64_t    ip;             /* as recorded: printed when no symbol */
    uint64_t    start;          /* the symbol's start in its DSO */
    uint64_t    dso_ord;        /* the DSO's place in perf's order (0: no map),
                                 * dso_seq after it */
    uint32_t    dso_seq;
    const char *dso;            /* identity of the DSO (interned), NULL: no map */
    const char *name;           /* the symbol (interned), NULL: unresolved */
    int         inlined;        /* name is an inlined function: " (inlined)" */
} cc_ent;

typedef struct cc_node cc_node;

enum { CC_GRAPH, CC_FRACTAL, CC_FLAT, CC_FOLDED, CC_NONE };
enum { CC_PERCENT, CC_PERIOD, CC_COUNT };

/** What -g asks for (perf's callchain_param of report). */
typedef struct cc_params {
    int      mode;              /* CC_*; CC_NONE: no call graphs */
    double   min_percent;       /* threshold, percent */
    uint32_t print_limit;       /* entries (graph: children) at most; 0 all */
    int      caller;            /* order: callers first */
    int      order_set;         /* the order was asked for */
    int      value;             /* CC_PERCENT, CC_PERIOD, CC_COUNT */
    int      skip_first;        /* --sort begins with sym: the row's own
                                 * entry is not repeated at the top */
} cc_params;

/** perf report's default: graph,0.5,callee (caller with --children),
 * function, percent. */
void cc_params_default(cc_params *p);
/**
 * Parse -g's argument (perf's "print_type,threshold[,print_limit],order,
 * sort_key[,branch],value"; "none"). 0, or -1 with a message in err.
 */
int  cc_params_parse(cc_params *p, const char *arg, char *err, size_t errsize);

/**
 * Add a chain of n entries with period to the tree *root (made on first
 * use); *leaf (if not NULL) the node it ends at (NULL for no entries).
 * 0, or -1 out of memory.
 */
int  cc_append(cc_node **root, const cc_ent *ents, size_t n, uint64_t period, cc_node **leaf);
/**
 * A chain that cc_append() ended at leaf, again, while leaf still ends it
 * (its cc_leaf_len() unchanged; at once after that cc_append(), always):
 * the same sums, without the walk. Only leaf's own sums change here; the
 * sums of the nodes above it are made again by cc_sort().
 */
void cc_replay(cc_node *leaf, uint64_t period);
/** The number of entries in leaf's node: it only ever shrinks, when the
 * node splits and where chains ended moves on (cc_memo.h). */
size_t cc_leaf_len(const cc_node *leaf);
/** Add the chains of src to *dst (perf's callchain_merge); src is freed. */
int  cc_merge(cc_node **dst, cc_node *src);
void cc_free(cc_node *root);

/**
 * Sum root's nodes up from the chains' ends, and sort it for printing:
 * children whose hits reach min_hit (graph, flat, folded; fractal takes
 * its threshold of each node's children).
 */
int  cc_sort(cc_node *root, const cc_params *p, uint64_t min_hit);
/**
 * Print root's sorted tree as perf's hist_entry_callchain__fprintf():
 * total is the event's total period, parent the row's own (its inclusive
 * one with children).
 */
void cc_print(FILE *fp, const cc_node *root, const cc_params *p, uint64_t total,
              uint64_t parent);

#endif /* PS_CMD_CALLCHAIN_H */
