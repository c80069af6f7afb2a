/* SPDX-License-Identifier: MIT */
/*
 * dwimage.c - compressed debug sections inflated into an in-memory ELF
 * (see dwimage.h).
 *
 * The image: the file's bytes as they are, then each compressed section
 * inflated (at its ch_addralign), then a copy of the section header table
 * in which those sections point at their inflated bytes, no longer
 * SHF_COMPRESSED; e_shoff points at that copy. Section indices, names and
 * every other byte stay where they were.
 */
#include "dwimage.h"

#include <libdeflate.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE   ((size_t)2 << 20)
#define HUGE_MIN    ((size_t)1 << 20)   /* smaller images: not worth a huge page */
#define MAX_RATIO   1032                /* deflate expands no more than this */
#define MAX_IMAGE   ((uint64_t)1 << 32)
#define MAX_ALIGN   4096

static size_t align_up(size_t v, size_t a)
{
    return (v + a - 1) & ~(a - 1);
}

static int host_byte_order(void)
{
    const uint16_t one = 1;

    return *(const uint8_t *)&one == 1 ? ELFDATA2LSB : ELFDATA2MSB;
}

/* The file's header, if it is a layout handled here and its section
 * header table lies inside the file. @return 0, -1 not handled */
static int read_ehdr(const uint8_t *raw, size_t size, Elf64_Ehdr *eh)
{
    if (size < sizeof(*eh))
        return -1;
    memcpy(eh, raw, sizeof(*eh));
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != host_byte_order() || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shnum == 0 || eh->e_shoff > size ||
        (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size - eh->e_shoff)
        return -1;
    return 0;
}

/* Section i's header, and for a compressed one its Chdr, checked against
 * the file. @return 1 compressed (zlib), 0 not compressed, -1 not handled */
static int read_section(const uint8_t *raw, size_t size, const Elf64_Ehdr *eh, size_t i,
                        Elf64_Shdr *sh, Elf64_Chdr *ch)
{
    memcpy(sh, raw + eh->e_shoff + i * sizeof(*sh), sizeof(*sh));
    if (!(sh->sh_flags & SHF_COMPRESSED) || sh->sh_type == SHT_NOBITS)
        return 0;
    if (sh->sh_offset > size || sh->sh_size > size - sh->sh_offset ||
        sh->sh_size < sizeof(*ch))
        return -1;
    memcpy(ch, raw + sh->sh_offset, sizeof(*ch));
    if (ch->ch_type != ELFCOMPRESS_ZLIB || ch->ch_size > sh->sh_size * MAX_RATIO ||
        ch->ch_addralign > MAX_ALIGN || (ch->ch_addralign & (ch->ch_addralign - 1)) != 0)
        return -1;
    return 1;
}

/* dwz's alternate file is looked up by the file's path: keep such files
 * on libdw's own path. */
static int has_altlink(Elf *elf)
{
    size_t shstrndx;
    Elf_Scn *scn = NULL;

    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return 1;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        const char *name;

        if (gelf_getshdr(scn, &sh) == NULL)
            return 1;
        name = elf_strptr(elf, shstrndx, sh.sh_name);
        if (name != NULL && strcmp(name, ".gnu_debugaltlink") == 0)
            return 1;
    }
    return 0;
}

/* Where each inflated section and the new table go.
 * @return the image's size, 0 nothing compressed or not handled */
static size_t plan(const uint8_t *raw, size_t size, const Elf64_Ehdr *eh, size_t *table)
{
    uint64_t end = size;
    size_t i, nr = 0;

    for (i = 0; i < eh->e_shnum; i++) {
        Elf64_Shdr sh;
        Elf64_Chdr ch;
        int rc = read_section(raw, size, eh, i, &sh, &ch);

        if (rc < 0)
            return 0;
        if (rc == 0)
            continue;
        end = align_up((size_t)end, ch.ch_addralign ? (size_t)ch.ch_addralign : 1) + ch.ch_size;
        if (end > MAX_IMAGE)
            return 0;
        nr++;
    }
    if (nr == 0)
        return 0;
    *table = align_up((size_t)end, 8);
    return *table + (size_t)eh->e_shnum * sizeof(Elf64_Shdr);
}

/* Inflate the compressed sections into img (laid out as plan() said) and
 * write the new table. @return 0, -1 an inflate error */
static int fill(uint8_t *img, const uint8_t *raw, size_t size, const Elf64_Ehdr *eh,
                size_t table)
{
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    size_t i, at = size;
    int rc = 0;

    if (d == NULL)
        return -1;
    memcpy(img, raw, size);
    for (i = 0; i < eh->e_shnum && rc == 0; i++) {
        Elf64_Shdr sh;
        Elf64_Chdr ch;
        size_t got = 0;

        if (read_section(raw, size, eh, i, &sh, &ch) == 1) {
            at = align_up(at, ch.ch_addralign ? (size_t)ch.ch_addralign : 1);
            if (libdeflate_zlib_decompress(d, raw + sh.sh_offset + sizeof(ch),
                                           sh.sh_size - sizeof(ch), img + at, ch.ch_size,
                                           &got) != LIBDEFLATE_SUCCESS || got != ch.ch_size)
                rc = -1;
            sh.sh_offset = at;
            sh.sh_size = ch.ch_size;
            sh.sh_addralign = ch.ch_addralign;
            sh.sh_flags &= ~(uint64_t)SHF_COMPRESSED;
            at += ch.ch_size;
        }
        memcpy(img + table + i * sizeof(sh), &sh, sizeof(sh));
    }
    libdeflate_free_decompressor(d);
    {
        Elf64_Ehdr out = *eh;

        out.e_shoff = table;
        memcpy(img, &out, sizeof(out));
    }
    return rc;
}

Elf *ps_dwimage__open(ps_dwimage *img, Elf *elf)
{
    const uint8_t *raw;
    size_t size = 0, total, table = 0;
    Elf64_Ehdr eh;
    uint8_t *base;

    memset(img, 0, sizeof(*img));
    if ((raw = (const uint8_t *)elf_rawfile(elf, &size)) == NULL ||
        read_ehdr(raw, size, &eh) < 0 || (total = plan(raw, size, &eh, &table)) == 0 ||
        has_altlink(elf))
        return NULL;
    /* huge pages need an aligned stretch: map one more and start inside */
    img->map_size = align_up(total, HUGE_PAGE) + HUGE_PAGE;
    img->map = mmap(NULL, img->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0);
    if (img->map == MAP_FAILED) {
        img->map = NULL;
        return NULL;
    }
    base = (uint8_t *)align_up((size_t)(uintptr_t)img->map, HUGE_PAGE);
    if (total >= HUGE_MIN)
        madvise(base, align_up(total, HUGE_PAGE), MADV_HUGEPAGE);
    if (fill(base, raw, size, &eh, table) < 0 ||
        (img->elf = elf_memory((char *)base, total)) == NULL ||
        elf_kind(img->elf) != ELF_K_ELF) {
        ps_dwimage__close(img);
        return NULL;
    }
    return img->elf;
}

void ps_dwimage__close(ps_dwimage *img)
{
    if (img->elf != NULL)
        elf_end(img->elf);
    if (img->map != NULL)
        munmap(img->map, img->map_size);
    memset(img, 0, sizeof(*img));
}
