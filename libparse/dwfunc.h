/* SPDX-License-Identifier: MIT */
/*
 * dwfunc.h - the functions of a compilation unit as binutils 2.40 indexes
 * them for addr2line: every DW_TAG_subprogram, inlined_subroutine and
 * entry_point with code, at any depth (a method of a class local to a
 * function sits three levels down), each linked to the nearest function
 * DIE around it (with code or not). Code as binutils reads it: a
 * DW_FORM_rnglistx DW_AT_ranges (clang's) is not read. The function of an address is the one with the shortest
 * range holding it, the last in DIE order of equals (gas gives each alias
 * of an assembly function its own DIE, and addr2line names the last).
 *
 * Layer: under srcline.c, over libdw. Untrusted DWARF: the walk is bounded
 * in depth and only moves forward.
 *
 * Ownership: a ps_dwfuncs owns its per-CU tables; the DIEs it returns
 * point into the Dwarf given, which must outlive it.
 */
#ifndef PS_DWFUNC_H
#define PS_DWFUNC_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ps_dwfuncs ps_dwfuncs;

/** NULL when out of memory. Owned: ps_dwfuncs__free(). */
ps_dwfuncs *ps_dwfuncs__new(void);
/** Accepts NULL. */
void ps_dwfuncs__free(ps_dwfuncs *t);

/**
 * The function holding addr in cu, then the function around it, and so on
 * outwards: out[0] innermost, at most max.
 * @return the number written (0: no function holds addr), -1 out of memory
 */
long ps_dwfuncs__chain(ps_dwfuncs *t, Dwarf_Die *cu, uint64_t addr, Dwarf_Die *out, size_t max);

#endif /* PS_DWFUNC_H */
