/* SPDX-License-Identifier: MIT */
/*
 * dwcu.h - the compilation unit of an address as binutils 2.40 finds it
 * where libdw's dwarf_addrdie() does not: from the ranges of the unit DIEs
 * themselves (DW_AT_low_pc/high_pc, DW_AT_ranges), which is what BFD reads
 * for every unit. libdw 0.188 looks addresses up in .debug_aranges only,
 * and clang emits none by default: without this, no address of a clang
 * binary had a line, a function or an inline chain.
 *
 * Layer: under srcline.c, over libdw. Untrusted DWARF: each unit's ranges
 * are read with a bound.
 *
 * Ownership: a ps_dwcus owns its table; the DIE it returns points into the
 * Dwarf given, which must outlive it (and be the same on every call).
 */
#ifndef PS_DWCU_H
#define PS_DWCU_H

#include <elfutils/libdw.h>
#include <stdint.h>

typedef struct ps_dwcus ps_dwcus;

/** NULL when out of memory. Owned: ps_dwcus__free(). */
ps_dwcus *ps_dwcus__new(void);
/** Accepts NULL. */
void ps_dwcus__free(ps_dwcus *t);

/**
 * Whether binutils reads the unit of cu at all. BFD 2.40 stops at the
 * first unit whose DW_AT_ranges list (DWARF 5, a section offset) has an
 * entry it cannot read -- the x-forms, that take addresses from
 * .debug_addr, as in gcc's -gsplit-dwarf skeleton units -- or is in no
 * .debug_rnglists it finds (gcc's -gz=zlib-gnu names it
 * .zdebug_rnglists, BFD looks for .zdebug_rnglist), and reads no unit
 * after it: addr2line finds nothing in them (symbols only).
 * @return 1 read, 0 not
 */
int ps_dwcus__readable(ps_dwcus *t, Dwarf *dw, Dwarf_Die *cu);

/**
 * The unit DIE of dw whose own ranges hold addr (the first in section
 * order), into *cu. The table is built on the first call.
 * @return 1 found, 0 none, -1 out of memory
 */
int ps_dwcus__find(ps_dwcus *t, Dwarf *dw, uint64_t addr, Dwarf_Die *cu);

#endif /* PS_DWCU_H */
