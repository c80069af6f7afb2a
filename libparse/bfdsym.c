/* SPDX-License-Identifier: MIT */
/*
 * bfdsym.c - BFD's choice of function symbol (see bfdsym.h).
 *
 * The section of an address is the first SHF_ALLOC section (in section
 * header order) whose [addr, addr + size) holds it, as addr2line's
 * find_address_in_section(). Candidates are the .symtab symbols defined
 * in that section that BFD's maybe_function_sym() accepts: not SECTION,
 * FILE, OBJECT or TLS, and not the zero-size hidden local NOTYPE markers
 * annobin leaves; a zero size counts as 1.
 */
#include "bfdsym.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct cand {
    uint64_t    value, size;
    size_t      index;          /* .symtab order */
    size_t      shndx;
    const char *name;
    const char *file;           /* the STT_FILE BFD reports with it, or NULL */
} cand;

typedef struct range {
    uint64_t lo, hi;
    size_t   shndx;
} range;

struct ps_bfdsyms {
    cand  *c;                   /* owned: by (shndx, value, index) */
    size_t nr;
    range *sec;                 /* owned: allocated sections, header order */
    size_t nr_sec;
};

static int cand_cmp(const void *a, const void *b)
{
    const cand *x = a, *y = b;

    if (x->shndx != y->shndx)
        return x->shndx < y->shndx ? -1 : 1;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int load_sections(ps_bfdsyms *t, Elf *elf, Elf_Scn **symtab, Elf_Scn **dynsym)
{
    Elf_Scn *scn = NULL;
    size_t n = 0;

    if (elf_getshdrnum(elf, &n) != 0 || (t->sec = calloc(n ? n : 1, sizeof(*t->sec))) == NULL)
        return -1;
    *symtab = *dynsym = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;

        if (gelf_getshdr(scn, &sh) == NULL)
            break;
        if (sh.sh_type == SHT_SYMTAB && *symtab == NULL)
            *symtab = scn;
        if (sh.sh_type == SHT_DYNSYM && *dynsym == NULL)
            *dynsym = scn;
        if ((sh.sh_flags & SHF_ALLOC) && sh.sh_size > 0 && t->nr_sec < n) {
            t->sec[t->nr_sec].lo = sh.sh_addr;
            t->sec[t->nr_sec].hi = sh.sh_addr + sh.sh_size;
            t->sec[t->nr_sec].shndx = elf_ndxscn(scn);
            t->nr_sec++;
        }
    }
    return 0;
}

/* maybe_function_sym(): 1 when BFD may take sym for a function. */
static int function_like(const GElf_Sym *s)
{
    int type = GELF_ST_TYPE(s->st_info);

    if (type == STT_SECTION || type == STT_FILE || type == STT_OBJECT || type == STT_TLS ||
        s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE)
        return 0;
    return !(s->st_size == 0 && GELF_ST_BIND(s->st_info) == STB_LOCAL && type == STT_NOTYPE &&
             GELF_ST_VISIBILITY(s->st_other) == STV_HIDDEN);
}

/* BFD's walk of the symbols: a FILE symbol names the functions after it,
 * except global ones once another FILE followed a symbol (the globals at
 * the end of a linked .symtab belong to no file). */
enum { NOTHING_SEEN, SYMBOL_SEEN, FILE_AFTER_SYMBOL };

static int load_symbols(ps_bfdsyms *t, Elf *elf, Elf_Scn *scn)
{
    GElf_Shdr sh;
    Elf_Data *data;
    size_t i, nr;
    const char *file = NULL;
    int state = NOTHING_SEEN;

    if (gelf_getshdr(scn, &sh) == NULL || sh.sh_entsize == 0 ||
        (data = elf_getdata(scn, NULL)) == NULL)
        return 0;
    nr = data->d_size / sh.sh_entsize;
    if (nr == 0 || (t->c = calloc(nr, sizeof(*t->c))) == NULL)
        return nr == 0 ? 0 : -1;
    for (i = 1; i < nr && i <= INT_MAX; i++) {  /* BFD skips the null symbol */
        GElf_Sym s;
        const char *name;
        cand *c = &t->c[t->nr];

        if (gelf_getsym(data, (int)i, &s) == NULL)
            continue;
        if (GELF_ST_TYPE(s.st_info) == STT_FILE) {
            file = elf_strptr(elf, sh.sh_link, s.st_name);
            if (state == SYMBOL_SEEN)
                state = FILE_AFTER_SYMBOL;
            continue;
        }
        if (GELF_ST_TYPE(s.st_info) == STT_SECTION)
            continue;
        if (state == NOTHING_SEEN)
            state = SYMBOL_SEEN;
        if (!function_like(&s) || (name = elf_strptr(elf, sh.sh_link, s.st_name)) == NULL)
            continue;
        c->value = s.st_value;
        c->size = s.st_size ? s.st_size : 1;
        c->index = i;
        c->shndx = s.st_shndx;
        c->name = name;
        c->file = GELF_ST_BIND(s.st_info) == STB_LOCAL || state != FILE_AFTER_SYMBOL ? file : NULL;
        t->nr++;
    }
    qsort(t->c, t->nr, sizeof(*t->c), cand_cmp);
    return 0;
}

ps_bfdsyms *ps_bfdsyms__new(Elf *elf)
{
    ps_bfdsyms *t = calloc(1, sizeof(*t));
    Elf_Scn *symtab, *dynsym;

    if (t == NULL)
        return NULL;
    if (load_sections(t, elf, &symtab, &dynsym) < 0 ||
        (symtab != NULL && load_symbols(t, elf, symtab) < 0))
        goto fail;
    /* addr2line falls back to the dynamic symbols when there are none */
    if (t->nr == 0 && dynsym != NULL) {
        free(t->c);
        t->c = NULL;
        if (load_symbols(t, elf, dynsym) < 0)
            goto fail;
    }
    return t;
fail:
    ps_bfdsyms__free(t);
    return NULL;
}

void ps_bfdsyms__free(ps_bfdsyms *t)
{
    if (t == NULL)
        return;
    free(t->c);
    free(t->sec);
    free(t);
}

static const range *section_of(const ps_bfdsyms *t, uint64_t addr)
{
    size_t i;

    for (i = 0; i < t->nr_sec; i++)
        if (addr >= t->sec[i].lo && addr < t->sec[i].hi)
            return &t->sec[i];
    return NULL;
}

int ps_bfdsyms__in_section(const ps_bfdsyms *t, uint64_t addr)
{
    return section_of(t, addr) != NULL;
}

/* binutils 2.40 between two symbols starting at the same place: the
 * first, unless a later one is strictly larger. */
static int better(const cand *best, const cand *c)
{
    return c->size > best->size;
}

const char *ps_bfdsyms__find(const ps_bfdsyms *t, uint64_t addr, const char **file,
                             uint64_t *value)
{
    const range *sec = section_of(t, addr);
    size_t lo = 0, hi = t->nr, i;
    const cand *best;

    *file = NULL;
    *value = 0;
    if (sec == NULL)
        return NULL;
    while (lo < hi) {   /* first candidate after (shndx, addr) */
        size_t mid = lo + (hi - lo) / 2;
        const cand *c = &t->c[mid];

        if (c->shndx < sec->shndx || (c->shndx == sec->shndx && c->value <= addr))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || t->c[lo - 1].shndx != sec->shndx)
        return NULL;
    /* those starting where the last one does, in .symtab order */
    for (i = lo - 1; i > 0 && t->c[i - 1].shndx == sec->shndx &&
                     t->c[i - 1].value == t->c[lo - 1].value; i--)
        ;
    for (best = &t->c[i++]; i < lo; i++)
        if (better(best, &t->c[i]))
            best = &t->c[i];
    *file = best->file;
    *value = best->value;
    return best->name;
}
