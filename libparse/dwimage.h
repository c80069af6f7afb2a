/* SPDX-License-Identifier: MIT */
/*
 * dwimage.h - an ELF file's compressed debug sections inflated up front
 * into one buffer that libdw reads as an in-memory ELF.
 *
 * Why not let libdw do it: dwarf_begin_elf() has libelf inflate every
 * debug section with zlib into malloc'd memory. On the VMs perfsift is
 * benchmarked on, first touches of fresh pages cost 4-10 us each, more
 * than the inflating itself (a libc's 10 MB of DWARF: ~75 ms that way,
 * ~20 ms here into huge pages, with zlib itself: libdeflate measured no
 * faster end to end, and zlib comes with elfutils). The bytes libdw sees
 * are the same, so are its answers.
 *
 * Only the common layout takes this path: a 64-bit ELF in the host's byte
 * order whose SHF_COMPRESSED sections are all zlib, without a dwz
 * alternate file (found through the file's path, which an in-memory ELF
 * has not). Anything else, or any inflate error, leaves the file to libdw
 * as before, so malformed files fail (or not) exactly as they did.
 *
 * Layer: under srcline.c; reads only the Elf it is handed.
 */
#ifndef PS_DWIMAGE_H
#define PS_DWIMAGE_H

#include <gelf.h>
#include <stddef.h>

typedef struct ps_dwimage {
    void   *map;            /* owned: the mapping holding the image */
    size_t  map_size;
    Elf    *elf;            /* owned: the image opened with elf_memory() */
} ps_dwimage;

/**
 * Inflate elf's compressed sections into img.
 * @return the in-memory ELF to hand libdw (owned by img), or NULL when elf
 *         has nothing compressed or is not a layout handled here (img
 *         then holds nothing; use elf itself)
 */
Elf *ps_dwimage__open(ps_dwimage *img, Elf *elf);
/** Free what img holds (a zeroed or closed img is fine). */
void ps_dwimage__close(ps_dwimage *img);

#endif /* PS_DWIMAGE_H */
