/* SPDX-License-Identifier: MIT */
/*
 * sym_elf.h - ELF files through libelf, as perf 6.1's symbol-elf.c reads
 * them: a symbol source (perf's struct symsrc: a file or an in-memory
 * image, checked against the build-id it must have), its sections, its
 * own build-id and .gnu_debuglink, and dso__load_sym() for user space.
 *
 * Layer: above symtree.c, sym_buildid.c and sym_io.c; under sym_plt.c and
 * sym_user.c. Never decides which files to try (sym_user.c does).
 */
#ifndef PS_SYM_ELF_H
#define PS_SYM_ELF_H

#include <gelf.h>
#include "sym_buildid.h"
#include "symtree.h"

typedef struct ps_symsrc {
    int        fd;              /* owned; -1: in-memory image */
    Elf       *elf;             /* owned */
    GElf_Ehdr  ehdr;
    Elf_Scn   *symtab, *dynsym; /* NULL when missing or of the wrong type */
    GElf_Shdr  symshdr, dynshdr;
    size_t     dynsym_idx;
} ps_symsrc;

/**
 * symsrc__init(): the ELF file at path (a regular file only), or image
 * when path is NULL (Borrowed while ss is open), whose build-id is
 * bid[0..bid_size) when bid is not NULL.
 * @return 0, or -1 with ss closed. Owned: ps_symsrc__close().
 */
int  ps_symsrc__open(ps_symsrc *ss, const char *path, const uint8_t *image, size_t image_size,
                     const uint8_t *bid, size_t bid_size);
void ps_symsrc__close(ps_symsrc *ss);
/**
 * dso__load_sym() for a user-space file: the symbols of syms (.symtab,
 * else .dynsym) at their file offsets in run, then perf's fixups; names
 * into arena, demangled when demangle is set.
 * @return symbols added, or -1
 */
long ps_symsrc__load(ps_symtree *t, const ps_symsrc *syms, const ps_symsrc *run, ps_arena *arena,
                     int demangle);

/** elf_section_by_name(); *idx (may be NULL) gets the section index. */
Elf_Scn *ps_elf__section_by_name(Elf *elf, const GElf_Ehdr *eh, GElf_Shdr *shp,
                                 const char *name, size_t *idx);
/** The data of section idx (a string table), or NULL. */
Elf_Data *ps_elf__strings(Elf *elf, size_t idx);
/** The NUL-terminated string at off in d, or "" when there is none. */
const char *ps_elf__str(const Elf_Data *d, uint64_t off);
/** The NT_GNU_BUILD_ID of an ELF. @return its size, or -1 */
int  ps_elf__build_id(Elf *elf, uint8_t bid[PS_BUILD_ID_MAX]);
/** filename__read_build_id(). @return the size, or -1 */
int  ps_elf__file_build_id(const char *path, uint8_t bid[PS_BUILD_ID_MAX]);
/** filename__read_debuglink(): the file name .gnu_debuglink starts with.
 *  @return 0, or -1 when the file has none */
int  ps_elf__file_debuglink(const char *path, char *out, size_t size);

#endif /* PS_SYM_ELF_H */
