/* SPDX-License-Identifier: MIT */
/*
 * bfdsym.h - the ELF symbol binutils' addr2line names for an address when
 * DWARF does not name its function (assembly, code without debug info, C++
 * without a linkage name): BFD's _bfd_elf_find_function() over the file's
 * .symtab (.dynsym when that gives none). There is no end: an address past
 * the last function of its section still gets that function. perf 6.1 prints that name for the frame, so it must be the
 * same symbol BFD picks among aliases, not the one perf's own symbol table
 * prefers: the highest start <= the address among function-like symbols
 * of the section holding it; of those starting there, the first in
 * .symtab order unless a later one is strictly larger (2.40; later
 * binutils prefer globals and functions).
 *
 * Layer: under srcline.c; reads an Elf it is handed (untrusted: indexes
 * and names are checked, a bad table gives "no symbol").
 */
#ifndef PS_BFDSYM_H
#define PS_BFDSYM_H

#include <gelf.h>
#include <stdint.h>

typedef struct ps_bfdsyms ps_bfdsyms;

/** The symbols of elf (Borrowed for the ps_bfdsyms' life); NULL when out
 *  of memory. Owned: ps_bfdsyms__free(). */
ps_bfdsyms *ps_bfdsyms__new(Elf *elf);
/** Accepts NULL. */
void ps_bfdsyms__free(ps_bfdsyms *t);

/** 1 when addr lies in an allocated section (else addr2line finds nothing). */
int ps_bfdsyms__in_section(const ps_bfdsyms *t, uint64_t addr);

/** The name BFD gives addr, or NULL (no symbol); *file the source file
 *  name BFD reports with it (its STT_FILE), or NULL; *value the symbol's
 *  address. Borrowed from the Elf. */
const char *ps_bfdsyms__find(const ps_bfdsyms *t, uint64_t addr, const char **file,
                             uint64_t *value);

#endif /* PS_BFDSYM_H */
