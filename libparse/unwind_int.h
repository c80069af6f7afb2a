/* SPDX-License-Identifier: MIT */
/*
 * unwind_int.h - the state of a ps_unwinder, shared by unwind.c and the
 * files it calls (one concern each, see unwind.c); declarations only.
 *
 * Who writes what: unwind.c the options, the first sample, the frame
 * scratch and the ctx of the sample being unwound; unwind_dso.c the DSO
 * file table and the own vdso copy; unwind_gate.c the gate table;
 * unwind_space.c the spaces and their modules; unwind_guess.c a ctx's
 * last row (signal, ra_slot) and its resume_* registers; unwind_step.c
 * a ctx's frames on its fast walk, and each space's rows.
 *
 * Calls go down only: unwind.c calls the others; unwind_guess.c calls
 * unwind_mem.c; unwind_step.c calls unwind_space.c, unwind_mem.c and
 * unwind_regs.c; unwind_gate.c, unwind_mem.c and unwind_space.c call
 * unwind_dso.c; unwind_regs.c and unwind_dso.c call none of them.
 */
#ifndef PS_UNWIND_INT_H
#define PS_UNWIND_INT_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include "sym_buildid.h"
#include "u64map.h"
#include "unwind.h"

#define NR_SPACES 8             /* processes kept unwound-ready at once */
#define LU_SIZE   128           /* libunwind's register-state cache (unwind_cache.c) */

struct lu_cache;

/* One architecture: perf's register number for each DWARF register. */
struct regs_arch {
    const char *name;           /* HEADER_ARCH's uname -m */
    unsigned    nr_dwarf;
    int8_t      perf_of_dwarf[33];   /* -1: not sampled */
    int         perf_ip, perf_sp;
    int         pc_is_dwarf;    /* pc is a DWARF register (x86-64: 16) */
};

/* A file reported to a Dwfl (or found unusable: failed). */
struct module {
    uint64_t    lo, hi;         /* its address range once reported */
    uint64_t    bias;
    const char *filename;       /* Borrowed: the machine's */
    int         failed;
    int         eh_frame_hdr;   /* the file has the section perf's CFI lookup reads */
    uint64_t    elf_base;       /* page of the first PT_LOAD's vaddr (perf's elf_base_address()) */
    /* perf's base for the FDE lookup (unwind_base.c), as of base_maps
     * having base_n maps */
    uint64_t    base;
    int         base_ok;
    const void *base_maps;
    size_t      base_n;
};

struct ctx;
struct rows;

/* One process's address space as libdwfl sees it. */
struct space {
    Dwfl          *dwfl;
    uint32_t       pid;
    int            attached;
    uint64_t       stamp;       /* last use, for eviction */
    struct module *mods;        /* owned */
    size_t         nr_mods, cap_mods;
    const ps_map **seen;        /* owned: maps already checked */
    size_t         nr_seen, cap_seen;
    struct ctx    *cur;         /* the sample being unwound */
    uint64_t       gen;         /* bumped whenever the modules change */
    const ps_map  *ok[16];      /* maps known reported as of gen ok_gen */
    uint64_t       ok_gen;
    struct rows   *rows;        /* owned: CFI rows read (unwind_step.c) */
};

/* The sample being unwound, and what libdwfl gave back. */
struct ctx {
    ps_unwinder             *u;
    const ps_sample         *smp;
    const struct regs_arch  *arch;
    uint64_t                 t;
    uint64_t                 sp, stack_end;
    uint64_t                *pcs;
    uint8_t                 *act;
    size_t                   nr, max;
    bool                     signal;    /* the last frame's FDE is a signal frame's */
    int                      has_ra_slot;
    uint64_t                 ra_slot;   /* where the last frame's return address is */
    uint64_t                 nr_zero;   /* memory reads that gave 0 */
    struct lu_cache         *luc;       /* the process's libunwind cache, or NULL */
    /* a walk stopped at a guessed frame, to go on from its caller
     * (ps_unwind__guess_caller()): that caller's registers */
    int                      resume;    /* the walk stopped to go on */
    int                      resumed;   /* this walk starts at such a caller */
    size_t                   walk_start;    /* c->nr where this walk started */
    uint64_t                 resume_pc;     /* the caller's pc ... */
    int                      resume_as_is;  /* ... looked up as is (else less one) */
    uint32_t                 resume_mask;   /* DWARF registers known */
    Dwarf_Word               resume_regs[17];
};

/* A chained hash table of nodes that live in the unwinder's arena. */
struct node {
    struct node *next;
    uint64_t     hash;
};

struct table {
    struct node **buckets;      /* owned array */
    size_t        nr_buckets, nr;
};

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)

typedef int (*match_fn)(const struct node *n, const void *key);

/* perf's enum dso_type: what dso__type() makes of a DSO's file. */
enum dso_type { DSO_TYPE_UNKNOWN, DSO_TYPE_64BIT, DSO_TYPE_32BIT, DSO_TYPE_X32BIT };

/* The file perf reads a DSO's bytes from (dso__data_open), and its type. */
struct dso_file {
    struct node  node;
    const char  *name;          /* Borrowed: the machine's */
    int          kind;          /* PS_MAP_FILE or PS_MAP_VDSO */
    int          has_bid;
    uint8_t      bid[PS_BUILD_ID_MAX];
    size_t       bid_size;
    const char  *path;          /* arena; NULL: no regular file */
    int          own_image;     /* perf's own [vdso]: its bytes are u->vdso */
    int          type;          /* enum dso_type */
};

struct ps_unwinder {
    const ps_machine  *m;
    const ps_features *feat;
    ps_symbols        *syms;    /* Borrowed; NULL: no build-id cache, no own vdso */
    const char        *symfs;   /* Borrowed; "" when none */
    ps_arena           arena;   /* dso_file and gate nodes, paths */
    struct table       files, gates;
    char               host_arch[65];   /* uname -m, for captures without HEADER_ARCH */
    int                seen_sample;
    uint64_t           first_sample;    /* time of the first sample asked about */
    struct space       spaces[NR_SPACES];
    uint64_t           clock;
    uint64_t          *pcs;     /* owned: frame scratch */
    uint8_t           *act;     /* owned */
    size_t             cap;
    int                vdso_read;
    uint8_t           *vdso;    /* owned: a copy of sym_user.c's own vdso image */
    size_t             vdso_size;
    ps_u64map          file_v_at;   /* a dso_file -> its index in file_v */
    struct file_bytes *file_v;  /* owned: files read outside stacks, mapped
                                 * (unwind_mem.c) */
    size_t             nr_file_v, cap_file_v;
    ps_u64map          caches;  /* a process's maps -> its index in cache_v */
    struct lu_cache  **cache_v; /* owned, each owned (unwind_cache.c) */
    size_t             nr_caches, cache_cap;
};

/* unwind_mem.c: the bytes of a file mapped, as read outside a stack dump */
struct file_bytes {
    const uint8_t *p;           /* NULL: the file could not be mapped */
    size_t         n;
};
void ps_unwind__mem_free(ps_unwinder *u);

/* unwind_regs.c: perf's register numbers, the first frame's registers */
int  ps_unwind__reg_value(const ps_regs *regs, int idx, uint64_t *out);
const struct regs_arch *ps_unwind__capture_arch(const ps_unwinder *u);
bool ps_unwind__set_initial_registers(Dwfl_Thread *thread, void *thread_arg);

/* unwind_dso.c: the unwinder's hash tables; the file perf reads a DSO from */
uint64_t ps_unwind__hash_bytes(const void *p, size_t n, uint64_t h);
struct node *ps_unwind__table_find(const struct table *t, uint64_t hash, match_fn match,
                                   const void *key);
int  ps_unwind__table_add(struct table *t, struct node *n);
const struct dso_file *ps_unwind__dso_file(ps_unwinder *u, const ps_map *map);
int  ps_unwind__has_file(const ps_map *map);

/* unwind_mem.c: memory as perf's access_mem() reads it */
int  ps_unwind__read_word(const struct ctx *c, uint64_t addr, uint64_t *out);
bool ps_unwind__memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg);

/* unwind_gate.c: whether perf unwinds a process at all */
int  ps_unwind__gate_open(ps_unwinder *u, const ps_maps *s, uint64_t t);

/* unwind_space.c: one Dwfl per process, its modules reported on demand */
/* The load bias of the file mapped by map (its PT_LOAD at map->pgoff, or
 * the one map->pgoff falls in: a segment split by mprotect()); where two
 * PT_LOADs share that page, the one c's process maps the file by. */
uint64_t ps_unwind__load_bias(Elf *elf, const ps_map *map, const struct ctx *c);
void ps_unwind__space_reset(struct space *sp);
struct space *ps_unwind__space_get(ps_unwinder *u, uint32_t pid);
int  ps_unwind__report_sample(ps_unwinder *u, struct space *sp, const struct ctx *c);
struct module *ps_unwind__mod_at(const struct space *sp, uint64_t addr);
/* The maps one sample's frames were found in (ps_unwind__report_addr()). */
struct recent_maps {
    const ps_map *v[4];
    unsigned      next;
};
int  ps_unwind__report_addr(ps_unwinder *u, struct space *sp, const struct ctx *c,
                            uint64_t addr, struct recent_maps *recent);

/* unwind_base.c: where perf's libunwind finds the row of the frame at pc
 * (looked up at addr: pc, or pc - 1). 1 with *out the address in md whose
 * FDE it would use (a cached row's, else addr unless perf's table base is
 * not md's bias), 0 when the lookup misses md. A caller that finds an FDE
 * at *out records it: ps_unwind__cache_put(c->luc, pc, *out). */
int  ps_unwind__perf_lookup(const struct ctx *c, struct module *md, uint64_t pc,
                            uint64_t addr, uint64_t *out);

/* unwind_cache.c: libunwind's per-process cache of the rows it found
 * (by frame pc): a hit is unwound with the row at *look, no lookup. */
struct lu_cache *ps_unwind__cache_for(ps_unwinder *u, uint32_t pid, uint32_t tid, uint64_t t);
int  ps_unwind__cache_get(const struct lu_cache *lc, uint64_t pc, uint64_t *look);
void ps_unwind__cache_put(struct lu_cache *lc, uint64_t pc, uint64_t look);
void ps_unwind__caches_free(ps_unwinder *u);

/* unwind_step.c: the fast walk, with CFI rows kept per space */
int  ps_unwind__step_walk(ps_unwinder *u, struct space *sp, struct ctx *c);
void ps_unwind__rows_free(struct space *sp);

/* unwind_guess.c: a frame's CFI row; libunwind's guess where it has none */
void ps_unwind__note_row(struct ctx *c, Dwfl *dwfl, Dwfl_Frame *state, Dwarf_Addr addr);
int  ps_unwind__has_fde(Dwfl *dwfl, Dwarf_Addr addr);
int  ps_unwind__guess_caller(struct ctx *c, Dwfl_Frame *state, uint64_t pc, int as_is);

#endif /* PS_UNWIND_INT_H */
