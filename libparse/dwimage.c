/* SPDX-License-Identifier: MIT */
/*
 * dwimage.c - compressed debug sections inflated into an in-memory ELF
 * (see dwimage.h).
 *
 * The image: the ELF and program headers as they are, then each section's
 * contents (compressed ones inflated at their ch_addralign, no longer
 * SHF_COMPRESSED; location lists dropped), then the section header table
 * pointing at them. Section indices and names stay as they were. Fresh
 * memory is what costs here, so nothing is copied that libdw will not
 * read: not the compressed bytes (most of a debug file).
 */
#include "dwimage.h"

#include <zlib.h>
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

/* Sections libdw reads only for variable locations, which srcline never
 * asks for: left out of the image (SHT_NOBITS), not inflated. */
static int unneeded(const char *name)
{
    return name != NULL && (strcmp(name, ".debug_loclists") == 0 || strcmp(name, ".debug_loc") == 0);
}

/* Inflate one section to out. @return 0, -1 an inflate error */
static int inflate_to(z_stream *z, const uint8_t *raw,
                      const Elf64_Shdr *sh, const Elf64_Chdr *ch, uint8_t *out)
{
    if (sh->sh_size - sizeof(*ch) > UINT_MAX || ch->ch_size > UINT_MAX ||
        inflateReset(z) != Z_OK)
        return -1;
    z->next_in = (Bytef *)(uintptr_t)(raw + sh->sh_offset + sizeof(*ch));
    z->avail_in = (uInt)(sh->sh_size - sizeof(*ch));
    z->next_out = out;
    z->avail_out = (uInt)ch->ch_size;
    if (inflate(z, Z_FINISH) != Z_STREAM_END || z->total_out != ch->ch_size)
        return -1;
    return 0;
}

/*
 * Lay the image out: the ELF and program headers where they were, then
 * every section with contents (compressed ones inflated, unneeded ones
 * dropped), then the section header table at table. The compressed bytes
 * are not copied: that is most of a debug file. With img NULL, only
 * measures. @return the image's size; 0 when nothing is compressed, the
 * layout is not handled here, or (img) an inflate failed
 */
static size_t lay_out(Elf *elf, const uint8_t *raw, size_t size, const Elf64_Ehdr *eh,
                      uint8_t *img, size_t table, z_stream *d)
{
    uint64_t at = sizeof(*eh);
    size_t shstrndx, i, nr_z = 0;

    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return 0;
    if (eh->e_phoff != 0 && eh->e_phnum != 0) {
        if (eh->e_phoff > size || (uint64_t)eh->e_phnum * eh->e_phentsize > size - eh->e_phoff)
            return 0;
        if (eh->e_phoff + (uint64_t)eh->e_phnum * eh->e_phentsize > at)
            at = eh->e_phoff + (uint64_t)eh->e_phnum * eh->e_phentsize;
    }
    if (img != NULL)
        memcpy(img, raw, (size_t)at);
    for (i = 0; i < eh->e_shnum; i++) {
        Elf64_Shdr sh;
        Elf64_Chdr ch;
        int z = read_section(raw, size, eh, i, &sh, &ch);
        size_t align;

        if (z < 0)
            return 0;
        nr_z += (size_t)z;
        if (sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL) {
            /* no contents */
        } else if (unneeded(elf_strptr(elf, shstrndx, sh.sh_name))) {
            sh.sh_type = SHT_NOBITS;
            sh.sh_flags &= ~(uint64_t)SHF_COMPRESSED;
        } else if (z) {
            at = align_up((size_t)at, ch.ch_addralign ? (size_t)ch.ch_addralign : 1);
            if (img != NULL && inflate_to(d, raw, &sh, &ch, img + at) < 0)
                return 0;
            sh.sh_offset = at;
            sh.sh_size = ch.ch_size;
            sh.sh_addralign = ch.ch_addralign;
            sh.sh_flags &= ~(uint64_t)SHF_COMPRESSED;
            at += ch.ch_size;
        } else {
            if (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset)
                return 0;
            align = sh.sh_addralign && sh.sh_addralign <= MAX_ALIGN &&
                    !(sh.sh_addralign & (sh.sh_addralign - 1)) ? (size_t)sh.sh_addralign : 1;
            at = align_up((size_t)at, align);
            if (img != NULL)
                memcpy(img + at, raw + sh.sh_offset, (size_t)sh.sh_size);
            sh.sh_offset = at;
            at += sh.sh_size;
        }
        if (at > MAX_IMAGE)
            return 0;
        if (img != NULL)
            memcpy(img + table + i * sizeof(sh), &sh, sizeof(sh));
    }
    if (nr_z == 0)
        return 0;
    if (img != NULL) {
        Elf64_Ehdr out = *eh;

        out.e_shoff = table;
        memcpy(img, &out, sizeof(out));
    }
    return align_up((size_t)at, 8) + (size_t)eh->e_shnum * sizeof(Elf64_Shdr);
}

Elf *ps_dwimage__open(ps_dwimage *img, Elf *elf)
{
    z_stream z, *d = &z;
    const uint8_t *raw;
    size_t size = 0, total, table;
    Elf64_Ehdr eh;
    uint8_t *base;

    memset(img, 0, sizeof(*img));
    if ((raw = (const uint8_t *)elf_rawfile(elf, &size)) == NULL ||
        read_ehdr(raw, size, &eh) < 0 || has_altlink(elf) ||
        (total = lay_out(elf, raw, size, &eh, NULL, 0, NULL)) == 0)
        return NULL;
    table = total - (size_t)eh.e_shnum * sizeof(Elf64_Shdr);
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
    memset(&z, 0, sizeof(z));
    if (inflateInit(d) != Z_OK) {
        ps_dwimage__close(img);
        return NULL;
    }
    if (lay_out(elf, raw, size, &eh, base, table, d) != total ||
        (img->elf = elf_memory((char *)base, total)) == NULL ||
        elf_kind(img->elf) != ELF_K_ELF) {
        inflateEnd(d);
        ps_dwimage__close(img);
        return NULL;
    }
    inflateEnd(d);
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
