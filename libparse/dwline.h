/* SPDX-License-Identifier: MIT */
/*
 * dwline.h - DWARF line programs (.debug_line) decoded as binutils 2.40's
 * BFD reads them for addr2line, which is what perf 6.1 prints as srcline.
 * libdw's own line tables are right where BFD is not, so perf's output
 * cannot be had from them: BFD starts every sequence of a DWARF 5 table
 * at file entry 0 (the CU's primary file) instead of the standard's 1
 * (gcc 12 leaves the default in place for code from headers, so BFD names
 * the .c file with the header's line number); and BFD keeps only the last
 * of consecutive rows at one address, trims overlapping sequences and
 * drops nested ones.
 *
 * Layer: under srcline.c; pure decoding of bytes it is handed (the
 * section is untrusted: every read is bounds-checked, a bad table gives
 * "no line", never an error).
 *
 * Ownership: a ps_dwlines owns its decoded tables, not the section bytes.
 */
#ifndef PS_DWLINE_H
#define PS_DWLINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct ps_dwlines ps_dwlines;

/**
 * @param sec   the .debug_line bytes, Borrowed for the ps_dwlines' life
 * @param swap  1 when the file's byte order is not this machine's
 * @return NULL when out of memory. Owned: ps_dwlines__free().
 */
ps_dwlines *ps_dwlines__new(const uint8_t *sec, size_t size, int swap);
/** Accepts NULL. */
void ps_dwlines__free(ps_dwlines *d);

/**
 * The row BFD finds for addr in the line program at offset off (a CU's
 * DW_AT_stmt_list): its raw file number (as DW_LNS_set_file gives it,
 * index into libdw's dwarf_getsrcfiles() list) and line.
 * @return 1 found, 0 no row holds addr (or the program is corrupt),
 *         -1 out of memory
 */
int ps_dwlines__find(ps_dwlines *d, uint64_t off, uint64_t addr, uint64_t *file, unsigned *line);

/** The DWARF version of the program at off (after a find there), 0 if unknown. */
int ps_dwlines__version(ps_dwlines *d, uint64_t off);

/**
 * The directory index of file `file` (numbered as for ps_dwlines__find)
 * in the program at off: an index into libdw's dwarf_getsrcdirs() list.
 * @return 1 known, 0 not (no such file, or a table that does not parse)
 */
int ps_dwlines__file_dir(ps_dwlines *d, uint64_t off, uint64_t file, uint64_t *dir);

#endif /* PS_DWLINE_H */
