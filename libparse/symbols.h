/* SPDX-License-Identifier: MIT */
/*
 * symbols.h - address -> symbol (DESIGN.md "symbols.c"): ELF files through
 * elfutils, the kernel through kallsyms, JIT regions through perf-PID.map,
 * with perf's build-id checks. In process, no subprocess, each DSO opened and
 * indexed once (lazily, on its first lookup) and cached for the session.
 *
 * Layer: above machine.c (it takes the ps_map a lookup found), below the
 * emitters. It is the only libparse file that opens files named inside a
 * capture, so it owns the "untrusted path" rules: regular files only (no
 * FIFOs, devices, sockets, directories), bounded reads, and a file that is
 * missing, unreadable, not ELF or of the wrong build-id gives "no symbols",
 * never an error.
 *
 * Ownership: every string and ps_sym returned is Borrowed until
 * ps_symbols__free().
 */
#ifndef PS_SYMBOLS_H
#define PS_SYMBOLS_H

#include "util.h"
#include "machine.h"

typedef struct ps_symbols ps_symbols;
/** /proc/kallsyms loaded once for many ps_symbols, in a thread of its
 * own (sym_kernel.c); thread-safe. */
typedef struct ps_ksyms ps_ksyms;

typedef struct ps_symbols_opts {
    const char *symfs;          /* --symfs DIR: prefix of every path; NULL or "" = / */
    const char *kallsyms;       /* --kallsyms FILE; NULL: /proc/kallsyms, only when
                                 * the capture's kernel build-id matches the running
                                 * kernel's, or the capture has none (as perf) */
    const char *buildid_dir;    /* perf's build-id cache; NULL: $HOME/.debug
                                 * (with symfs: SYMFS/.debug, as perf) */
    int         demangle;       /* C++/Rust demangling as perf does by default */
    ps_warn_fn  warn;           /* NULL, or called with what perf prints on
                                 * stderr while loading (the kernel's "No
                                 * kallsyms or vmlinux with build-id ... was
                                 * found"); see also ps_symbols__take_warning() */
    void       *warn_ctx;
    ps_ksyms   *ksyms;          /* NULL, or a shared kallsyms load: Borrowed,
                                 * outlives the ps_symbols */
} ps_symbols_opts;

/** A shared load, not started: NULL out of memory. Owned: ps_ksyms__free(),
 * after every ps_symbols given it is freed. */
ps_ksyms *ps_ksyms__new(void);
/** Ends the thread if running (soon: it is told to stop); accepts NULL. */
void      ps_ksyms__free(ps_ksyms *k);
/** 1 while its thread is loading: a kernel lookup now would wait for it. */
int       ps_ksyms__busy(ps_ksyms *k);

/** One symbol, in the address space of its DSO as perf indexes it. */
typedef struct ps_sym {
    uint64_t    start, end;     /* [start, end); a zero-size one holds only start */
    const char *name;           /* demangled if asked */
} ps_sym;

/** The answer for one address: what perf prints as "ip sym+0xoff (dso)". */
typedef struct ps_resolved {
    const char   *dso;          /* perf's dso name: the file path, "[kernel.kallsyms]",
                                 * "[vdso]", "/tmp/perf-PID.map", a module's "[name]";
                                 * "[unknown]" when no map */
    const ps_sym *sym;          /* NULL: perf prints "[unknown]" */
    uint64_t      rel;          /* map->map_ip(addr): what the symbol table is keyed on
                                 * and what perf prints for callchain entries */
    uint64_t      symoff;       /* what perf prints after "sym+0x": rel - sym->start,
                                 * except for a zero-size symbol hit at its start
                                 * (rel - map start - sym->start, as perf); 0
                                 * when no sym */
} ps_resolved;

/**
 * @param feat  the capture's features (build-ids, os release); Borrowed for
 *              the life of the ps_symbols
 * @return PS_OK, or PS_ENOMEM with *out NULL. Owned: ps_symbols__free().
 */
int  ps_symbols__new(ps_symbols **out, const ps_symbols_opts *opts,
                     const ps_features *feat, ps_error *err);
/** Accepts NULL. */
void ps_symbols__free(ps_symbols *s);

/**
 * Resolve addr, found in map (NULL: no map) for thread pid. Never fails: an
 * unresolvable address gives sym NULL. The first lookup in a DSO loads it,
 * so call in perf's order (samples in time order, a callchain leaf first):
 * a module looked at before the kernel never gets kallsyms symbols, and
 * once the kernel is loaded its map is cut to its symbols (an address of
 * the kernel map outside them then gives dso "[unknown]", as perf finds no
 * map for it).
 */
void ps_symbols__resolve(ps_symbols *s, const ps_map *map, uint32_t pid,
                         uint64_t addr, ps_resolved *out);

/**
 * perf's dso__find_symbol(): the symbol of map's DSO at rel, an address
 * taken as the DSO's own (no map_ip applied), or NULL. perf's db-export
 * looks a call chain entry without a symbol up this way with its raw
 * address, which in a non-PIE executable can fall in another function.
 */
const ps_sym *ps_symbols__find_rel(ps_symbols *s, const ps_map *map, uint32_t pid,
                                   uint64_t rel);

/**
 * perf's kernel map after its symbols were loaded (map__fixup_start/end):
 * [start, end) from its first symbol to the end of its last. A kernel
 * address in there is in the kernel map even beyond the MMAP record's end.
 * @return 1 with start/end set, 0 while the kernel has no kallsyms symbols
 */
int ps_symbols__kernel_extent(const ps_symbols *s, uint64_t *start, uint64_t *end);

/**
 * The warning the last loads produced (perf prints it on stderr when it
 * happens), or NULL; each is returned once. Borrowed until the next call.
 */
const char *ps_symbols__take_warning(ps_symbols *s);

/**
 * The file perf 6.1 runs addr2line on for the DSO of map (the one its
 * symbols came from, else the DSO's own name), and in *delta what turns a
 * ps_resolved.rel into that file's addresses (map__rip_2objdump()). NULL
 * when perf asks addr2line nothing: the kernel, modules, JIT maps, a
 * [vdso] image, or a map never resolved through here.
 */
const char *ps_symbols__srcfile(const ps_symbols *s, const ps_map *map, uint64_t *delta);

/** Counters for --stats style reports: DSOs opened, symbols indexed. */
uint64_t ps_symbols__nr_dsos(const ps_symbols *s);
uint64_t ps_symbols__nr_syms(const ps_symbols *s);

#endif /* PS_SYMBOLS_H */
