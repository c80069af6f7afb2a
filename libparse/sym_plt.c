/* SPDX-License-Identifier: MIT */
/*
 * sym_plt.c - PLT symbols (see sym_plt.h): one slot per PLT relocation, in
 * relocation order, after the PLT header; header and slot sizes are what
 * perf 6.1 guesses per machine (the section's entry size elsewhere). A
 * PLT perf would not read (relocations not linked to .dynsym, no .plt, no
 * dynamic strings) gives no symbols.
 */
#include <limits.h>
#include <stdio.h>
#include "demangle.h"
#include "sym_plt.h"

/* PLT header and entry sizes as perf 6.1 guesses them. */
static void plt_sizes(const GElf_Ehdr *eh, const GElf_Shdr *plt, uint64_t *hdr, uint64_t *ent)
{
    switch (eh->e_machine) {
    case EM_ARM:     *hdr = 20;  *ent = 12; break;
    case EM_AARCH64: *hdr = 32;  *ent = 16; break;
    case EM_SPARC:   *hdr = 48;  *ent = 12; break;
    case EM_SPARCV9: *hdr = 128; *ent = 32; break;
    default:         *hdr = *ent = plt->sh_entsize; break;
    }
}

/* The .dynsym index relocation i points at. @return 0, or -1 to stop */
static int plt_rel_sym(const GElf_Shdr *rel_sh, Elf_Data *reldata, uint64_t i, size_t *symidx)
{
    GElf_Rela rela;
    GElf_Rel r;

    if (rel_sh->sh_type == SHT_RELA) {
        if (gelf_getrela(reldata, (int)i, &rela) == NULL)
            return -1;
        *symidx = GELF_R_SYM(rela.r_info);
    } else if (rel_sh->sh_type == SHT_REL) {
        if (gelf_getrel(reldata, (int)i, &r) == NULL)
            return -1;
        *symidx = GELF_R_SYM(r.r_info);
    } else {
        return -1;
    }
    return 0;
}

long ps_plt__synthesize(ps_symtree *t, const ps_symsrc *ss, ps_arena *arena, int demangle)
{
    GElf_Shdr rel_sh, plt_sh;
    Elf_Scn *rel;
    Elf_Data *reldata, *syms, *strs;
    uint64_t nr_rel, i, off, hdr, ent;
    GElf_Sym sym;
    long nr = 0;

    if (ss->dynsym == NULL)
        return 0;
    if ((rel = ps_elf__section_by_name(ss->elf, &ss->ehdr, &rel_sh, ".rela.plt", NULL)) == NULL &&
        (rel = ps_elf__section_by_name(ss->elf, &ss->ehdr, &rel_sh, ".rel.plt", NULL)) == NULL)
        return 0;
    if (rel_sh.sh_link != ss->dynsym_idx ||
        ps_elf__section_by_name(ss->elf, &ss->ehdr, &plt_sh, ".plt", NULL) == NULL ||
        (reldata = elf_getdata(rel, NULL)) == NULL ||
        (syms = elf_getdata(ss->dynsym, NULL)) == NULL ||
        (strs = ps_elf__strings(ss->elf, ss->dynshdr.sh_link)) == NULL || strs->d_size == 0)
        return 0;
    nr_rel = rel_sh.sh_entsize ? rel_sh.sh_size / rel_sh.sh_entsize : 0;
    plt_sizes(&ss->ehdr, &plt_sh, &hdr, &ent);
    off = plt_sh.sh_offset + hdr;
    memset(&sym, 0, sizeof(sym));
    for (i = 0; i < nr_rel && i <= INT_MAX; i++, off += ent) {
        char *d, name[1024];
        size_t symidx;

        if (plt_rel_sym(&rel_sh, reldata, i, &symidx) < 0)
            break;
        gelf_getsym(syms, (int)symidx, &sym);   /* perf keeps the last one on failure */
        d = demangle ? ps_sym__demangle(ps_elf__str(strs, sym.st_name)) : NULL;
        snprintf(name, sizeof(name), "%s@plt", d ? d : ps_elf__str(strs, sym.st_name));
        free(d);
        if (ps_symtree__add(t, arena, off, ent, STB_GLOBAL, STT_FUNC, name, 0) < 0)
            return -1;
        nr++;
    }
    return nr;
}
