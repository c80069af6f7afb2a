/* SPDX-License-Identifier: MIT */
/*
 * sym_elf.c - ELF files through libelf (see sym_elf.h), rules read from
 * perf 6.1 (facts only):
 *  - a symbol source is opened only if it is a regular file (or the vdso
 *    image), is ELF of either byte order, and has the expected build-id;
 *  - kept: functions, ifuncs, objects, and labels (NOTYPE, not SHN_ABS)
 *    of allocated sections whose name says "text" or "data"; not ARM
 *    mapping symbols ($a $d $t $x);
 *  - a value becomes a file offset by the runtime file's PT_LOAD holding
 *    it, else by its section (so .bss objects keep their segment's delta);
 *  - then fixup_end (a zero-size symbol ends where the next starts) and
 *    fixup_duplicate (one symbol per start).
 * A malformed file gives fewer or no symbols, never an error.
 */
#include <limits.h>
#include <unistd.h>
#include "sym_elf.h"
#include "sym_io.h"

/* elf_section_by_name(): note that shp ends up holding the last section
 * seen when the name is missing, which perf's type checks then look at. */
Elf_Scn *ps_elf__section_by_name(Elf *elf, const GElf_Ehdr *eh, GElf_Shdr *shp,
                                 const char *name, size_t *idx)
{
    Elf_Scn *sec = NULL;
    size_t cnt = 1;

    if (elf_rawdata(elf_getscn(elf, eh->e_shstrndx), NULL) == NULL)
        return NULL;
    while ((sec = elf_nextscn(elf, sec)) != NULL) {
        const char *str;

        if (gelf_getshdr(sec, shp) == NULL)
            memset(shp, 0, sizeof(*shp));
        str = elf_strptr(elf, eh->e_shstrndx, shp->sh_name);
        if (str != NULL && strcmp(name, str) == 0) {
            if (idx)
                *idx = cnt;
            return sec;
        }
        cnt++;
    }
    return NULL;
}

/* The notes looked in are the first of .note.gnu.build-id, .notes, .note;
 * libelf has converted their headers to host order. */
int ps_elf__build_id(Elf *elf, uint8_t bid[PS_BUILD_ID_MAX])
{
    static const char *const names[] = { ".note.gnu.build-id", ".notes", ".note" };
    GElf_Ehdr eh;
    GElf_Shdr sh;
    Elf_Data *data;
    Elf_Scn *sec = NULL;
    size_t i;

    if (elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &eh) == NULL)
        return -1;
    for (i = 0; i < PS_ARRAY_SIZE(names) && sec == NULL; i++)
        sec = ps_elf__section_by_name(elf, &eh, &sh, names[i], NULL);
    if (sec == NULL || (data = elf_getdata(sec, NULL)) == NULL || data->d_buf == NULL)
        return -1;
    return ps_build_id__from_notes(bid, data->d_buf, data->d_size, 1);
}

void ps_symsrc__close(ps_symsrc *ss)
{
    if (ss->elf)
        elf_end(ss->elf);
    if (ss->fd >= 0)
        close(ss->fd);
    memset(ss, 0, sizeof(*ss));
    ss->fd = -1;
}

/* symsrc__init(): an ELF file (or image when path is NULL) whose build-id
 * is the expected one (when one is expected), with its symbol tables. */
int ps_symsrc__open(ps_symsrc *ss, const char *path, const uint8_t *image, size_t image_size,
                    const uint8_t *bid, size_t bid_size)
{
    memset(ss, 0, sizeof(*ss));
    ss->fd = -1;
    if (path != NULL) {
        if ((ss->fd = ps_file__open_regular(path)) < 0)
            return -1;
        ss->elf = elf_begin(ss->fd, ELF_C_READ, NULL);
    } else {
        ss->elf = elf_memory((char *)(uintptr_t)image, image_size);
    }
    if (ss->elf == NULL || gelf_getehdr(ss->elf, &ss->ehdr) == NULL ||
        (ss->ehdr.e_ident[EI_DATA] != ELFDATA2LSB && ss->ehdr.e_ident[EI_DATA] != ELFDATA2MSB))
        goto fail;
    if (bid != NULL) {
        uint8_t got[PS_BUILD_ID_MAX];
        int n = ps_elf__build_id(ss->elf, got);

        if (n < 0 || !ps_build_id__equal(bid, bid_size, got, (size_t)n))
            goto fail;
    }
    ss->symtab = ps_elf__section_by_name(ss->elf, &ss->ehdr, &ss->symshdr, ".symtab", NULL);
    if (ss->symshdr.sh_type != SHT_SYMTAB)
        ss->symtab = NULL;
    ss->dynsym = ps_elf__section_by_name(ss->elf, &ss->ehdr, &ss->dynshdr, ".dynsym",
                                         &ss->dynsym_idx);
    if (ss->dynshdr.sh_type != SHT_DYNSYM)
        ss->dynsym = NULL;
    return 0;
fail:
    ps_symsrc__close(ss);
    return -1;
}

const char *ps_elf__str(const Elf_Data *d, uint64_t off)
{
    const char *p;

    if (d == NULL || d->d_buf == NULL || off >= d->d_size)
        return "";
    p = (const char *)d->d_buf + off;
    return memchr(p, '\0', d->d_size - off) ? p : "";
}

Elf_Data *ps_elf__strings(Elf *elf, size_t idx)
{
    Elf_Scn *sec = elf_getscn(elf, idx);

    return sec ? elf_getdata(sec, NULL) : NULL;
}

/* elf_sym__is_function / is_object / is_label */
static int sym_kind(const GElf_Sym *sym)
{
    int type = GELF_ST_TYPE(sym->st_info);

    if (sym->st_name == 0 || sym->st_shndx == SHN_UNDEF)
        return 0;
    if (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT)
        return 1;
    if (type == STT_NOTYPE && sym->st_shndx != SHN_ABS)
        return 2;                           /* a label */
    return 0;
}

static int is_arm_mapping_symbol(const GElf_Ehdr *eh, const char *name)
{
    return (eh->e_machine == EM_ARM || eh->e_machine == EM_AARCH64) && name[0] == '$' &&
           name[1] != '\0' && strchr("adtx", name[1]) != NULL &&
           (name[2] == '\0' || name[2] == '.');
}

/* The section a symbol lives in, as perf's loader takes it: the symbol
 * file's, or the runtime file's when the former is NOBITS (debug files). */
static int sym_section(const ps_symsrc *syms, const ps_symsrc *run, size_t shndx,
                       GElf_Shdr *sh, Elf_Data **secstrs)
{
    Elf_Scn *sec = elf_getscn(syms->elf, shndx);

    if (sec == NULL || gelf_getshdr(sec, sh) == NULL)
        return -1;
    if (!(sh->sh_flags & SHF_ALLOC))
        return -1;
    *secstrs = ps_elf__strings(syms->elf, syms->ehdr.e_shstrndx);
    if (sh->sh_type == SHT_NOBITS) {
        if ((sec = elf_getscn(run->elf, shndx)) == NULL || gelf_getshdr(sec, sh) == NULL)
            return -1;
        *secstrs = ps_elf__strings(run->elf, run->ehdr.e_shstrndx);
    }
    return 0;
}

/* The file offset of a symbol value: by the runtime file's PT_LOAD that
 * holds it (so .bss objects keep their segment's delta), else by its
 * section, as perf 6.1 adjusts user-space symbols. */
static uint64_t file_offset(const ps_symsrc *run, const GElf_Shdr *sh, uint64_t value)
{
    size_t i, nr;
    GElf_Phdr ph;

    if (elf_getphdrnum(run->elf, &nr) == 0) {
        for (i = 0; i < nr && i <= INT_MAX; i++) {
            uint64_t sz;

            if (gelf_getphdr(run->elf, (int)i, &ph) == NULL)
                break;
            sz = ph.p_memsz > ph.p_filesz ? ph.p_memsz : ph.p_filesz;
            if (ph.p_type != PT_LOAD || sz == 0)
                continue;
            if (value >= ph.p_vaddr && value < ph.p_vaddr + sz)
                return value - (ph.p_vaddr - ph.p_offset);
        }
    }
    return value - (sh->sh_addr - sh->sh_offset);
}

/* dso__load_sym() for a user-space file.
 * @return symbols added, or -1 */
long ps_symsrc__load(ps_symtree *t, const ps_symsrc *syms, const ps_symsrc *run, ps_arena *arena,
                     int demangle)
{
    Elf_Scn *sec = syms->symtab ? syms->symtab : syms->dynsym;
    GElf_Shdr sh = syms->symtab ? syms->symshdr : syms->dynshdr;
    Elf_Data *data, *strs;
    GElf_Sym sym;
    uint64_t nr_syms, i;
    long nr = 0;

    if (sec == NULL || (data = elf_getdata(sec, NULL)) == NULL ||
        (strs = ps_elf__strings(syms->elf, sh.sh_link)) == NULL ||
        ps_elf__strings(syms->elf, syms->ehdr.e_shstrndx) == NULL ||
        ps_elf__strings(run->elf, run->ehdr.e_shstrndx) == NULL)
        return -1;
    nr_syms = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    memset(&sym, 0, sizeof(sym));
    for (i = 0; i < nr_syms && i <= INT_MAX; i++) {
        GElf_Shdr ssh;
        Elf_Data *secstrs;
        const char *name;
        int kind;

        gelf_getsym(data, (int)i, &sym);    /* perf keeps the last one on failure */
        name = ps_elf__str(strs, sym.st_name);
        if ((kind = sym_kind(&sym)) == 0 || is_arm_mapping_symbol(&syms->ehdr, name))
            continue;
        if (sym_section(syms, run, sym.st_shndx, &ssh, &secstrs) < 0)
            continue;
        if (kind == 2 && !strstr(ps_elf__str(secstrs, ssh.sh_name), "text") &&
            !strstr(ps_elf__str(secstrs, ssh.sh_name), "data"))
            continue;
        if (syms->ehdr.e_machine == EM_ARM && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
            (sym.st_value & 1))
            sym.st_value--;
        sym.st_value = file_offset(run, &ssh, sym.st_value);
        if (ps_symtree__add(t, arena, sym.st_value, sym.st_size, GELF_ST_BIND(sym.st_info),
                            GELF_ST_TYPE(sym.st_info), name, demangle) < 0)
            return -1;
        nr++;
    }
    if (nr > 0 && (ps_symtree__fixup_end(t, 0) < 0 || ps_symtree__fixup_duplicate(t) < 0))
        return -1;
    return nr;
}

/* filename__read_build_id() */
int ps_elf__file_build_id(const char *path, uint8_t bid[PS_BUILD_ID_MAX])
{
    ps_symsrc ss;
    int n;

    if (ps_symsrc__open(&ss, path, NULL, 0, NULL, 0) < 0)
        return -1;
    n = ps_elf__build_id(ss.elf, bid);
    ps_symsrc__close(&ss);
    return n;
}

/* filename__read_debuglink(): the file name at the start of .gnu_debuglink */
int ps_elf__file_debuglink(const char *path, char *out, size_t size)
{
    ps_symsrc ss;
    GElf_Shdr sh;
    Elf_Scn *sec;
    Elf_Data *d;
    int rc = -1;

    if (ps_symsrc__open(&ss, path, NULL, 0, NULL, 0) < 0)
        return -1;
    if ((sec = ps_elf__section_by_name(ss.elf, &ss.ehdr, &sh, ".gnu_debuglink", NULL)) != NULL &&
        (d = elf_getdata(sec, NULL)) != NULL && d->d_buf != NULL) {
        size_t n = d->d_size < size - 1 ? d->d_size : size - 1;

        memcpy(out, d->d_buf, n);
        out[n] = '\0';
        rc = 0;
    }
    ps_symsrc__close(&ss);
    return rc;
}
