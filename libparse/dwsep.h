/* SPDX-License-Identifier: MIT */
/*
 * dwsep.h - the separate debug file binutils' addr2line follows when a
 * file has no DWARF of its own (BFD 2.40 _bfd_dwarf2_slurp_debug_info):
 * first by build-id, /usr/lib/debug/.build-id/xx/rest.debug with the same
 * build-id; then by .gnu_debuglink, next to the file, in its .debug/
 * directory, then under /usr/lib/debug plus the file's directory, each
 * only if its CRC-32 is the link's. perf 6.1 hands addr2line the stripped
 * file itself in some cases (--symfs, no .symtab anywhere), and addr2line
 * then answers from the debug file it finds this way.
 *
 * Layer: under srcline.c; opens files (regular files only, through
 * sym_io.c), knows nothing of DSOs or samples.
 */
#ifndef PS_DWSEP_H
#define PS_DWSEP_H

#include <gelf.h>
#include <stddef.h>

/**
 * The separate debug file for elf, the file at path.
 * @return 0 with its path in out, -1 when there is none
 */
int ps_dwsep__find(Elf *elf, const char *path, char *out, size_t size);

#endif /* PS_DWSEP_H */
