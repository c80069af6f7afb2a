/* SPDX-License-Identifier: MIT */
/*
 * hist.h - samples summed into rows by sort keys, as perf's hists do for
 * perf report and perf diff: a row per distinct (comm, pid, tid, dso, sym,
 * cpu) tuple of the keys asked for, with its self period and sample count
 * and, from call chains, its inclusive ("children") period. The table, the
 * order perf prints rows in and the text of the key columns live here;
 * report.c and diff_table.c add their own value columns.
 *
 * Two ways to tell symbols apart: perf report's (a symbol is its address
 * range, an unresolved address is its own row) and perf diff's (a symbol is
 * its name within its DSO, so rebuilt binaries still match, and the
 * unresolved addresses of a DSO are one row).
 */
#ifndef PS_CMD_HIST_H
#define PS_CMD_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "callchain.h"

enum { HK_COMM, HK_PID, HK_TID, HK_DSO, HK_SYM, HK_CPU, HK_TRACE,
       /* perf report's srcline and srcfile: addr2line's file:line of the
        * row's address, its file alone (hist_item.srcline, .srcfile) */
       HK_SRCLINE, HK_SRCFILE,
       /* the sample's weight (perf's weight and local_weight: the same
        * rows), transaction flags, cgroup id (shown by its path) */
       HK_WEIGHT, HK_LOCAL_WEIGHT, HK_TRANSACTION, HK_CGROUP,
       /* the sample's cpu's socket (CPU_TOPOLOGY; -1 not known) */
       HK_SOCKET,
       /* perf report's branch view: a row per branch of the samples'
        * branch stacks (hist_item.br) */
       HK_DSO_FROM, HK_DSO_TO, HK_SYM_FROM, HK_SYM_TO, HK_CYCLES,
       /* the column perf adds after keys named "symbol...": "IPC [IPC
        * Coverage]", sorting by the row's symbol (hist_keys_add_ipc()) */
       HK_IPC, HK_MAX };

/** One end of a branch, as perf's addr_map_symbol has it. */
typedef struct hist_end {
    const char *dso;            /* short name; NULL: no map covers it */
    const char *sym;            /* NULL: unresolved */
    uint64_t    sym_start, sym_end;     /* with sym: its identity */
    uint64_t    addr;           /* as recorded (unresolved ones: identity) */
    uint64_t    ip;             /* what perf prints: map-relative in a map */
    uint64_t    object_at;      /* with object: as hist_item's */
    char        level;          /* '.' user, 'k' kernel, 'H' in no map */
    char        object;         /* sym is a data object (STT_OBJECT) */
} hist_end;

/** A branch: its two ends and its basic block cycles (0: not counted). */
typedef struct hist_branch {
    hist_end    from, to;
    uint16_t    cycles;
} hist_branch;

typedef struct hist_keys {
    unsigned char k[HK_MAX];    /* HK_* in column order */
    int           n;
} hist_keys;

/** What a sample (or one frame of its call chain) is summed under. */
typedef struct hist_item {
    const char *comm;           /* at the sample's time */
    int32_t     pid, tid, cpu;  /* pid: not a key (perf's pid key is the thread) */
    int32_t     socket;         /* key socket: the cpu's (-1 not known) */
    const char *dso;            /* short name, as perf report shows it */
    const char *sym;            /* NULL: unresolved */
    uint64_t    sym_start;      /* with sym: its identity in the DSO */
    uint64_t    ip;             /* unresolved: the address perf prints */
    const char *trace;          /* key trace: the tracepoint's text, "N/A" for others */
    const char *srcline;        /* key srcline: perf's text ("hog.c:17", "??:0",
                                 * "foo+12", "dso[addr]"); NULL without it */
    const char *srcfile;        /* key srcfile: its file ("" for none) */
    uint64_t    weight;         /* keys weight, local_weight: the sample's */
    uint64_t    transaction;    /* key transaction: the sample's flags */
    uint64_t    cgroup;         /* key cgroup: the sample's cgroup id */
    const char *cgroup_name;    /* its path (CGROUP records), NULL: none */
    char        level;          /* '.' user, 'k' kernel, 'g', 'u', 'H' */
    char        inlined;        /* sym is an inlined entry: " (inlined)" */
    char        object;         /* sym is a data object (STT_OBJECT): perf
                                 * prints "name+0x<ip - object_at>" */
    uint64_t    object_at;      /* with object: the symbol's address in the
                                 * map (perf's map->unmap_ip of its start) */
    uint64_t    time;           /* not a key: the first sample's time */
    const hist_branch *br;      /* the branch keys' item (NULL: none); a
                                 * row owns a copy, its strings interned */
} hist_item;

typedef struct hist_entry {
    hist_item   it;             /* strings owned by the hist */
    const char *thread_comm;    /* the thread's last comm (perf's pid key) */
    uint64_t    period, nr_samples;         /* self */
    uint64_t    acc_period, acc_samples;    /* inclusive, with children */
    uint64_t    stamp;          /* the last sample that added to acc */
    int64_t     pair;           /* diff: the other side's row, -1 none */
    uint32_t    rank;           /* with hist.ranked: place in perf's tree */
    cc_node    *chain;          /* its call graph (callchain.h); owned, NULL none */
    uint32_t    max_depth;      /* the longest chain added to it */
    uint64_t    chain_stamp;    /* the last sample (hist.stamp) whose chain
                                 * went into it */
    int         merged;         /* perf's collapse folded it into another row
                                 * (diff_shape.h): in none of its trees */
    int         hidden;         /* made by a sample perf report's filters hide
                                 * (hist.hide_new then): in the totals, not shown */
    int         dummy;          /* a row only other events of the group have
                                 * (hist_group_link()): no samples, shown */
} hist_entry;

typedef struct hist {
    char       *name;           /* the event's name; owned */
    uint32_t    type, idx;      /* the event's attr type, its index */
    uint32_t    nr_members;     /* of the group it leads (1: none) */
    char       *group_name;     /* a named group's name (NULL: anonymous); owned */
    int         forced_leader;  /* leads the group --group/--no-group made of
                                 * a capture without groups (perf's
                                 * evlist__force_leader()) */
    uint32_t    group_n;        /* hist_group_link(): members in group_v */
    uint64_t   *group_v;        /* [row * group_n + m]: the row's period in
                                 * member m (0: this event); owned */
    uint64_t   *group_ns;       /* the same of its samples; owned */
    uint64_t   *group_acc;      /* the same of its inclusive periods; owned */
    uint64_t    config;
    hist_keys   keys;
    unsigned    elide;          /* 1 << HK_*: keys not shown (perf report's
                                 * elided columns): they still sort and
                                 * tell rows apart */
    int         by_name;        /* perf diff's symbol identity */
    int         dso_filter;     /* perf report's --dsos: no wider DSO column
                                 * for rows without a symbol */
    hist_entry *v;
    size_t      n, cap;
    uint32_t   *slots;          /* open addressing: index + 1, 0 empty */
    size_t      nslots;
    uint64_t    total_period, nr_samples;
    uint64_t    shown_period;   /* periods of the samples the hide filters let
                                 * through (perf diff's total_non_filtered_period,
                                 * summed per sample) */
    uint64_t    abs_period;     /* total_period of every row (--percentage
                                 * relative changes total_period) */
    uint64_t    abs_samples;    /* nr_samples of every row (the same) */
    uint64_t    stamp;
    int         depth_order;    /* with children and call graphs: rows of one
                                 * thread equal in inclusive period go by the
                                 * depth of their chains, deeper first (1,
                                 * callers first) or last (-1), as perf puts
                                 * callers above callees */
    int         ranked;         /* ties in the output order by rank: perf's
                                 * tree decides them (diff_shape.h) */
    struct diff_shape *shape;   /* with ranked: that tree, for a group's
                                 * pairing (diff_shape_link()); owned */
    int         hide_new;       /* rows made now are hidden: perf decides a
                                 * row's filtering once, by the sample that
                                 * makes it (later ones only add to it) */
    struct hist_strs *strs;     /* interned strings; owned */
} hist;

/** "comm,dso,sym" (perf's names; "symbol" and "pid"/"tid" too, srcline,
 * srcfile, weight, local_weight, transaction, cgroup, and the branch keys dso_from, dso_to, symbol_from, symbol_to,
 * cycles) into k.
 * 0, or -1 with the bad key in *bad. */
int  hist_keys_parse(hist_keys *k, const char *s, const char **bad, size_t *bad_len);
int  hist_keys_has(const hist_keys *k, int key);
/** Whether k has a branch key (HK_DSO_FROM..HK_CYCLES). */
int  hist_keys_branch(const hist_keys *k);
/** perf report's IPC column after the keys where the --sort text names a
 * "symbol" key: its sym_ipc_null, or in the branch view its sym_ipc (of
 * the target's symbol; only when no branch has cycles, when perf's IPC
 * and coverage of a symbol are 0). */
void hist_keys_add_ipc(hist_keys *k);

/** An empty table. 0 or -1 (out of memory). */
int  hist_init(hist *h, const char *name, const hist_keys *keys, int by_name);
void hist_free(hist *h);

/** Start a sample: inclusive sums count each row once per sample. */
static inline void hist_sample_begin(hist *h) { h->stamp++; }
/**
 * Add period to it's row: as the sample's own location (self, and its
 * inclusive sum) or as a caller in its chain (inclusive only, once per
 * sample). @return the row, or NULL out of memory
 */
hist_entry *hist_add(hist *h, const hist_item *it, uint64_t period, int self);
/** hist_add() to the row at index row (found before). */
hist_entry *hist_add_at(hist *h, size_t row, uint64_t period, int self);
/** A new row for it even when a row of an equal item exists (perf's tree
 * can keep two apart, diff_shape.h), period added as hist_add()'s self;
 * NULL out of memory. */
hist_entry *hist_append(hist *h, const hist_item *it, uint64_t period, int self);
/**
 * Merge the rows that became equal (perf's collapse: after its comm of a
 * thread first seen without one is renamed in place). 0 or -1 (memory).
 */
int  hist_collapse(hist *h);
/** The row of it, or NULL. */
hist_entry *hist_find(const hist *h, const hist_item *it);
/** A string's 64-bit hash (FNV-1a, as the hist's own). */
uint64_t hist_hash_str(const char *s);
/** Intern s in h's string pool; NULL out of memory. */
const char *hist_str(hist *h, const char *s);

/** Compare two rows by the keys (perf's tie order: ascending names and
 * ids, resolved symbols before unresolved addresses, these by signed
 * address), the elided ones skipped. */
int  hist_key_cmp(const hist *h, const hist_entry *a, const hist_entry *b);

/**
 * The rows in perf report's order: by inclusive period with children,
 * then self period, then the keys; rows under limit percent (of the first
 * column) left out. @return indexes into h->v, *n of them (malloc'd), or
 * NULL out of memory
 */
size_t *hist_order(const hist *h, int children, double limit, size_t *n);
/**
 * perf report's group table: the rows of n - 1 other events of the group h
 * leads (m[i] NULL: an event without samples) linked to h's, each member's
 * row of the same keys, rows only they have made h's as dummies (perf's
 * hists__link()); rows are then ordered by their periods in the members in
 * turn (hist_order()). 0, or -1 out of memory.
 */
int hist_group_link(hist *h, hist *const *m, uint32_t n);
/** A dummy row of h for member row e (no samples of h's, shown); NULL out
 * of memory. */
hist_entry *hist_group_dummy(hist *h, const hist_entry *e);

/** Column widths of the key columns over all of h's rows (perf's rules). */
void hist_key_widths(const hist *h, int *w);
/** The same over chosen rows: _init, _add for each row, then _done. */
void hist_key_widths_init(const hist *h, int *w, int *unresolved);
void hist_key_widths_add(const hist *h, const hist_entry *e, int *w, int *unresolved);
void hist_key_widths_done(const hist *h, int *w, int unresolved);
/** Header names of the key columns. */
const char *hist_key_header(int key);
/** Print the key columns of e, each after "  ", padded to w. */
void hist_key_print(FILE *fp, const hist *h, const hist_entry *e, const int *w);
/** The symbol column's text ("[.] foo", "[k] 0xffff..."). */
void hist_sym_text(char *buf, size_t size, const hist_item *it);

/** perf's "% of total" (0 when the total is 0). */
static inline double hist_percent(uint64_t v, uint64_t total)
{
    return total ? (double)v * 100.0 / (double)total : 0.0;
}

#endif /* PS_CMD_HIST_H */
