/* SPDX-License-Identifier: MIT */
/*
 * sym_kernel.h - kernel and module symbols from kallsyms (perf 6.1's
 * dso__load_kernel_sym() without vmlinux files, maps__split_kallsyms()).
 *
 * Layer: above symtree.c, sym_buildid.c and sym_io.c; called by symbols.c
 * with the tree to fill, never calling it back. Writes the kernel part of
 * the session (extent, module symbols, warning); see symbols_int.h.
 */
#ifndef PS_SYM_KERNEL_H
#define PS_SYM_KERNEL_H

#include "symbols_int.h"

/**
 * Load the kernel's kallsyms into t (the kernel DSO's tree), map being the
 * kernel map: relocated, module symbols taken out into s->kmods, and
 * s->kernel_syms, kstart, kend set when that worked. Missing or unusable
 * kallsyms leave t empty (and may set the warning).
 */
void ps_kernel__load(ps_symbols *s, ps_symtree *t, const ps_map *map);
/**
 * Start loading s->ksyms (the shared /proc/kallsyms, see sym_kernel.c) in
 * its thread now if the capture's kernel is the running one (perf would
 * read /proc/kallsyms); the first kernel lookup would start it anyway.
 */
void ps_kernel__prefetch(ps_symbols *s);
/**
 * The kallsyms symbols of module name ("[mod]") into t, relative to its
 * map; none unless the kernel's were loaded before.
 */
void ps_kernel__load_module(ps_symtree *t, const ps_symbols *s, const ps_map *map,
                            const char *name);

#endif /* PS_SYM_KERNEL_H */
