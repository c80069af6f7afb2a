/* SPDX-License-Identifier: MIT */
/*
 * symbols_int.h - the state of a ps_symbols session, shared by symbols.c
 * and the loaders it calls (sym_user.c, sym_kernel.c); declarations only.
 *
 * Who writes what: symbols.c the options, the DSO cache and nr_syms;
 * sym_user.c the vdso image; sym_kernel.c the kernel extent, the module
 * symbols and the warning. A loader fills the symbol tree it is given and
 * never touches the cache (it never calls symbols.c).
 */
#ifndef PS_SYMBOLS_INT_H
#define PS_SYMBOLS_INT_H

#include "sym_buildid.h"
#include "sym_io.h"
#include "symtree.h"

typedef struct ps_dso ps_dso;           /* symbols.c's cache entries */
typedef struct ps_map_dso ps_map_dso;

/* A DSO as perf's dso__load() looks for it. */
typedef struct ps_loadctx {
    const char *long_name;      /* the DSO's file name (or PS_VDSO_IMAGE) */
    int         is_vdso;
    int         has_bid;        /* bid is the build-id the file must have */
    uint8_t     bid[PS_BUILD_ID_MAX];
    size_t      bid_size;
    /* out: what perf's srcline code gets from the load */
    const char *symsrc;         /* arena: the file symbols came from (.symtab), or NULL */
    uint64_t    objdump_delta;  /* map__rip_2objdump(): file offset -> ELF address */
} ps_loadctx;

typedef struct ps_kmod_syms {   /* one module's kallsyms symbols, in order */
    const char *name;           /* arena: "[mod]" */
    size_t      first, nr;      /* slice of ps_symbols.kmod_nodes */
} ps_kmod_syms;

struct ps_symbols {
    const ps_features *feat;
    ps_arena     arena;         /* names, keys, copied options */
    const char  *symfs;         /* "" when none */
    const char  *kallsyms;      /* NULL when none */
    char         buildid_dir[PS_PATH_MAX];
    int          demangle;
    ps_warn_fn   warn;
    void        *warn_ctx;
    ps_ksyms    *ksyms;         /* NULL, or the shared kallsyms (Borrowed) */
    char         warning[256];
    int          has_warning;

    ps_dso     **buckets;       /* owned: DSOs by key */
    size_t       nr_buckets, nr_dsos;
    ps_map_dso  *by_map;        /* owned: map -> DSO, open addressing */
    size_t       by_map_cap, by_map_nr;

    ps_dso      *kernel;
    int          kernel_syms;   /* kallsyms loaded: extent and modules valid */
    uint64_t     kstart, kend;  /* map__fixup_start/end of the kernel map */
    ps_sym_node *kmod_nodes;    /* owned: module symbols, absolute addresses */
    size_t       nr_kmod_nodes;
    ps_kmod_syms *kmods;        /* owned */
    size_t       nr_kmods;
    uint64_t     nr_syms;
    int          vdso_read;     /* this process's vdso looked for */
    uint8_t     *vdso_image;    /* owned: a copy of it, or NULL */
    size_t       vdso_size;
};

#endif /* PS_SYMBOLS_INT_H */
