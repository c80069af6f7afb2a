/* SPDX-License-Identifier: MIT */
/*
 * demangle.h - symbol names as perf 6.1's demangle_sym() turns them into
 * what it prints. Pure string work: no files, no state, no arena.
 *
 * Layer: the bottom of the symbol code; symtree.c and sym_plt.c call it.
 */
#ifndef PS_DEMANGLE_H
#define PS_DEMANGLE_H

/**
 * The demangled form of an ELF symbol name: C++ (then perf's Rust legacy
 * clean-up), else OCaml, else a Java signature without its return type.
 * @return NULL when the name stays as it is (or no memory). Owned: free().
 */
char *ps_sym__demangle(const char *name);

/**
 * What `addr2line -C` prints for a function name: libiberty's demangling
 * with parameters (bfd_demangle(.., DMGL_PARAMS | DMGL_ANSI)).
 * @return NULL when the name stays as it is (or no memory). Owned: free().
 */
char *ps_sym__demangle_a2l(const char *name);

#endif /* PS_DEMANGLE_H */
