/* SPDX-License-Identifier: MIT */
/*
 * unwind_space.c - one libdwfl address space (Dwfl) per process, kept for
 * the last NR_SPACES processes unwound, and the modules reported to it.
 *
 * Modules: libdwfl finds the module of each pc itself, without asking, so
 * before a sample is unwound every stack word and register that points
 * into a file map is checked, and any file not yet reported is reported
 * (one module per file and load bias). A map overlapping a module of
 * another file or bias (exec, dlclose + dlopen) means the process changed:
 * its Dwfl is rebuilt. Files that cannot be opened are remembered so they
 * are tried once per Dwfl. unwind_step.c's fast walk reports only the
 * file of each frame's pc instead (ps_unwind__report_addr()), and leaves
 * the whole scan to the libdwfl walk wherever that could decide more.
 * Any change of a space's modules bumps its gen (unwind_step.c's rows
 * are read again then).
 *
 * CFI comes from the mapped files themselves (perf reads .eh_frame_hdr of
 * the file, never a separate debug file): a module is the file
 * unwind_dso.c finds, and an own [vdso] is given to libdwfl from memory
 * (image_elf()).
 *
 * Layer: above unwind_dso.c and machine.c; called by unwind.c. Owns each
 * space's Dwfl, module and seen arrays (ps_unwinder__free() frees them).
 */
#include <gelf.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sym_io.h"
#include "unwind_int.h"

#define PAGE_MASK (~UINT64_C(0xfff))

/* No separate debug files: perf unwinds with the mapped file's CFI. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                        Dwarf_Addr base, const char *file_name,
                        const char *debuglink_file, GElf_Word debuglink_crc,
                        char **debuginfo_file_name)
{
    (void)mod; (void)userdata; (void)modname; (void)base; (void)file_name;
    (void)debuglink_file; (void)debuglink_crc; (void)debuginfo_file_name;
    return -1;
}

/* The ELF of a module reported without a file (report_file()): an own
 * [vdso], whose module's userdata is the unwinder. */
static int image_elf(Dwfl_Module *mod, void **userdata, const char *modname,
                     Dwarf_Addr base, char **file_name, Elf **elfp)
{
    ps_unwinder *u = *userdata;

    (void)mod; (void)modname; (void)base; (void)file_name;
    *elfp = u != NULL && u->vdso != NULL ? elf_memory((char *)u->vdso, u->vdso_size) : NULL;
    return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = image_elf,
    .find_debuginfo = no_debuginfo,
};

void ps_unwind__space_reset(struct space *sp)
{
    if (sp->dwfl != NULL)
        dwfl_end(sp->dwfl);
    sp->dwfl = NULL;
    sp->attached = 0;
    sp->nr_mods = 0;
    sp->nr_seen = 0;
    sp->gen++;
}

struct space *ps_unwind__space_get(ps_unwinder *u, uint32_t pid)
{
    struct space *best = &u->spaces[0];
    size_t i;

    for (i = 0; i < NR_SPACES; i++) {
        struct space *sp = &u->spaces[i];

        if (sp->dwfl != NULL && sp->pid == pid) {
            best = sp;
            goto found;
        }
        if (sp->stamp < best->stamp)
            best = sp;
    }
    ps_unwind__space_reset(best);
    best->pid = pid;
found:
    best->stamp = ++u->clock;
    if (best->dwfl == NULL && (best->dwfl = dwfl_begin(&dwfl_callbacks)) == NULL)
        return NULL;
    return best;
}

static struct module *mod_add(struct space *sp)
{
    if (sp->nr_mods == sp->cap_mods) {
        size_t cap = sp->cap_mods ? sp->cap_mods * 2 : 16;
        struct module *v = realloc(sp->mods, cap * sizeof(*v));

        if (v == NULL)
            return NULL;
        sp->mods = v;
        sp->cap_mods = cap;
    }
    return &sp->mods[sp->nr_mods++];
}

/* Whether c's process maps the file of map at bias: each executable
 * PT_LOAD's page, bias on, is an executable map of the same file at that
 * segment's page offset (the code maps are the ones no mprotect() of
 * ld.so changes). */
static int bias_seen(const struct ctx *c, Elf *elf, size_t n, const ps_map *map, uint64_t bias)
{
    size_t i;
    int seen = 0;

    for (i = 0; i < n; i++) {
        const ps_map *other;
        GElf_Phdr ph;

        if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
            continue;
        other = ps_machine__find_user_map(c->u->m, c->smp->pid, c->smp->tid, c->t,
                                          bias + (ph.p_vaddr & PAGE_MASK));
        if (other == NULL || other->pgoff != (ph.p_offset & PAGE_MASK) ||
            (other->is_mmap2 && !(other->prot & PROT_EXEC)) ||
            strcmp(other->filename, map->filename) != 0)
            return 0;
        seen = 1;
    }
    return seen;
}

/* The load bias of map's file: the PT_LOAD mapped at map->pgoff sits at
 * map->start. ET_EXEC files have none. Two PT_LOADs can share a file page
 * (ld puts the read-only segment and the start of the RW one in one page:
 * offsets 0x2000 and 0x2dc0, vaddrs 0x2000 and 0x3dc0; lld puts all of a
 * small file's segments in page 0); a map of that page (the RELRO page,
 * when a register points there first; lld's code) then says nothing of
 * which one it is, and the first would shift the whole module by a page,
 * so its CFI misses every pc. The file's code maps in c's process decide
 * (c may be NULL, or none fits: the first one is taken). */
uint64_t ps_unwind__load_bias(Elf *elf, const ps_map *map, const struct ctx *c)
{
    uint64_t first = 0;
    int found = 0;
    GElf_Ehdr eh;
    size_t i, n;

    if (gelf_getehdr(elf, &eh) == NULL || eh.e_type == ET_EXEC || elf_getphdrnum(elf, &n) < 0)
        return 0;
    for (i = 0; i < n; i++) {
        GElf_Phdr ph;
        uint64_t bias;

        if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD ||
            (ph.p_offset & PAGE_MASK) != map->pgoff)
            continue;
        bias = map->start - (ph.p_vaddr & PAGE_MASK);
        if (c != NULL && bias_seen(c, elf, n, map, bias))
            return bias;
        if (!found++)
            first = bias;
    }
    if (found)
        return first;
    /* A map that starts inside a segment: what is left of one after an
     * mprotect() split it (the RELRO page of a data segment made read-only
     * leaves the rest at the next page's offset). The segment's vaddr need
     * not equal its offset. */
    for (i = 0; i < n; i++) {
        GElf_Phdr ph;

        if (gelf_getphdr(elf, (int)i, &ph) != NULL && ph.p_type == PT_LOAD &&
            (ph.p_offset & PAGE_MASK) < map->pgoff &&
            map->pgoff < ph.p_offset + ph.p_memsz)
            return map->start - (map->pgoff - ph.p_offset + ph.p_vaddr);
    }
    return map->start - map->pgoff;
}

/* The page of the first PT_LOAD's vaddr (perf's elf_base_address()). */
static uint64_t elf_base(Elf *elf)
{
    size_t i, n;

    if (elf == NULL || elf_getphdrnum(elf, &n) < 0)
        return 0;
    for (i = 0; i < n; i++) {
        GElf_Phdr ph;

        if (gelf_getphdr(elf, (int)i, &ph) != NULL && ph.p_type == PT_LOAD)
            return ph.p_vaddr & PAGE_MASK;
    }
    return 0;
}

/* 1 when elf has an .eh_frame_hdr section (perf's elf_section_offset()). */
static int has_eh_frame_hdr(Elf *elf)
{
    Elf_Scn *scn = NULL;
    size_t shstrndx;

    if (elf == NULL || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return 0;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        const char *name;
        GElf_Shdr sh;

        if (gelf_getshdr(scn, &sh) != NULL &&
            (name = elf_strptr(elf, shstrndx, sh.sh_name)) != NULL &&
            strcmp(name, ".eh_frame_hdr") == 0)
            return 1;
    }
    return 0;
}

/* Report map's file to sp's Dwfl (inside a report session). An own [vdso]
 * has no file: its module spans the map, and image_elf() gives its ELF. */
static void report_file(ps_unwinder *u, struct space *sp, const struct ctx *c,
                        const ps_map *map)
{
    struct module *md = mod_add(sp);
    const struct dso_file *f = ps_unwind__dso_file(u, map);
    Dwfl_Module *mod = NULL;
    int fd = -1;

    if (md == NULL)
        return;
    memset(md, 0, sizeof(*md));
    md->filename = map->filename;
    md->lo = map->start;
    md->hi = map->end;
    md->failed = 1;
    if (f != NULL && f->own_image) {
        Elf *elf = elf_memory((char *)u->vdso, u->vdso_size);
        void **userdata;

        md->eh_frame_hdr = has_eh_frame_hdr(elf);
        md->elf_base = elf_base(elf);
        elf_end(elf);
        if ((mod = dwfl_report_module(sp->dwfl, map->filename, map->start, map->end)) != NULL) {
            dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
            *userdata = u;
            md->bias = map->start;
        }
    } else if (f != NULL && f->path != NULL && (fd = ps_file__open_regular(f->path)) >= 0) {
        Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);

        if (elf != NULL && elf_kind(elf) == ELF_K_ELF) {
            md->bias = ps_unwind__load_bias(elf, map, c);
            md->eh_frame_hdr = has_eh_frame_hdr(elf);
            md->elf_base = elf_base(elf);
            elf_end(elf);
            /* the module owns fd once reported */
            mod = dwfl_report_elf(sp->dwfl, map->filename, f->path, fd, md->bias, false);
        } else if (elf != NULL) {
            elf_end(elf);
        }
        if (mod == NULL)
            close(fd);
    }
    if (mod != NULL) {
        Dwarf_Addr lo, hi;

        dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
        md->lo = lo;
        md->hi = hi;
        md->failed = 0;
    }
}

static int seen_add(struct space *sp, const ps_map *map)
{
    if (sp->nr_seen == sp->cap_seen) {
        size_t cap = sp->cap_seen ? sp->cap_seen * 2 : 32;
        const ps_map **v = realloc(sp->seen, cap * sizeof(*v));

        if (v == NULL)
            return -1;
        sp->seen = v;
        sp->cap_seen = cap;
    }
    sp->seen[sp->nr_seen++] = map;
    return 0;
}

/* 0: map is covered by sp's modules (or was checked before); 1: it needs
 * reporting; -1: it overlaps another file's module (the process changed). */
static int map_state(const struct space *sp, const ps_map *map)
{
    size_t i;

    for (i = 0; i < sp->nr_seen; i++)
        if (sp->seen[i] == map)
            return 0;
    for (i = 0; i < sp->nr_mods; i++) {
        const struct module *md = &sp->mods[i];

        if (map->start >= md->hi || map->end <= md->lo)
            continue;
        return strcmp(md->filename, map->filename) == 0 ? 0 : -1;
    }
    return 1;
}

/* The file maps the sample's registers and stack words point into. */
struct wanted {
    const ps_map **maps;
    size_t nr, cap;
};

/* One sample's lookups, memoized: a stack holds the same values (and
 * pages) again and again. A map hit is reused for any address it covers,
 * a miss only for the same value. */
#define MEMO_SIZE 64
struct memo {
    uint64_t      key[MEMO_SIZE];
    const ps_map *map[MEMO_SIZE];
    uint8_t       used[MEMO_SIZE];
};

static const ps_map *memo_find(const struct ctx *c, struct memo *m, uint64_t addr)
{
    size_t i = (size_t)(((addr >> 12) * UINT64_C(0x9e3779b97f4a7c15)) >> 58);
    const ps_map *map = m->map[i];

    if (m->used[i] && (map != NULL ? addr >= map->start && addr < map->end : m->key[i] == addr))
        return map;
    map = ps_machine__find_user_map(c->u->m, c->smp->pid, c->smp->tid, c->t, addr);
    m->used[i] = 1;
    m->key[i] = addr;
    m->map[i] = map;
    return map;
}

static int want_addr(const struct ctx *c, struct wanted *w, struct memo *m, uint64_t addr)
{
    const ps_map *map = memo_find(c, m, addr);
    size_t i;

    if (!ps_unwind__has_file(map))
        return 0;
    for (i = 0; i < w->nr; i++)
        if (w->maps[i] == map)
            return 0;
    if (w->nr == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        const ps_map **v = realloc(w->maps, cap * sizeof(*v));

        if (v == NULL)
            return -1;
        w->maps = v;
        w->cap = cap;
    }
    w->maps[w->nr++] = map;
    return 0;
}

static int collect(const struct ctx *c, struct wanted *w)
{
    const ps_regs *regs = &c->smp->regs_user;
    struct memo m;
    uint64_t off, i;

    memset(m.used, 0, sizeof(m.used));
    for (i = 0; i < regs->nr; i++)
        if (want_addr(c, w, &m, regs->regs[i]) < 0)
            return -1;
    for (off = 0; off + 8 <= c->stack_end - c->sp; off += 8) {
        uint64_t v;

        memcpy(&v, c->smp->stack_data + off, sizeof(v));
        if (want_addr(c, w, &m, v) < 0)
            return -1;
    }
    return 0;
}

/* Make sp's Dwfl know every file w names, rebuilding it if the process
 * changed. @return 0, or -1 when the Dwfl cannot be used */
static int report_wanted(ps_unwinder *u, struct space *sp, const struct ctx *c,
                         const struct wanted *w)
{
    size_t i, todo = 0;

    for (i = 0; i < w->nr; i++) {
        int st = map_state(sp, w->maps[i]);

        if (st < 0) {
            ps_unwind__space_reset(sp);
            if ((sp->dwfl = dwfl_begin(&dwfl_callbacks)) == NULL)
                return -1;
            todo = w->nr;
            break;
        }
        todo += (size_t)st;
    }
    if (todo == 0)
        return 0;
    sp->gen++;
    dwfl_report_begin_add(sp->dwfl);
    for (i = 0; i < w->nr; i++) {
        int st = map_state(sp, w->maps[i]);

        if (st > 0)
            report_file(u, sp, c, w->maps[i]);
        /* a map of the file inside no module (its .bss, say) is fine too */
        if (st >= 0 && seen_add(sp, w->maps[i]) < 0)
            break;
    }
    if (dwfl_report_end(sp->dwfl, NULL, NULL) != 0)
        return -1;
    return 0;
}

/* Make sp's Dwfl know every file the registers and stack words of c's
 * sample point into. @return 0, or -1 when the Dwfl cannot be used */
int ps_unwind__report_sample(ps_unwinder *u, struct space *sp, const struct ctx *c)
{
    struct wanted w = { NULL, 0, 0 };
    int rc = collect(c, &w) < 0 || report_wanted(u, sp, c, &w) < 0 ? -1 : 0;

    free(w.maps);
    return rc;
}

/*
 * The fast walk's share of ps_unwind__report_sample(): make sp's Dwfl know
 * the file mapped at addr (a frame's lookup address) as of c's time. The
 * whole scan would have reported it too, since a frame's pc is a register
 * or a stack word. Where that scan would decide more (no file map there:
 * modules that other words brought in may cover addr; a changed process:
 * the Dwfl is rebuilt from all of them) the answer is -1, and the sample
 * is unwound the slow way. recent memoizes the map lookups of a sample
 * (zeroed for each): maps as of one time do not overlap, so a map found
 * there for one address is the one for any address it covers.
 * @return 0, or -1 (see above; also when reporting fails)
 */
int ps_unwind__report_addr(ps_unwinder *u, struct space *sp, const struct ctx *c,
                           uint64_t addr, struct recent_maps *recent)
{
    const ps_map *map = NULL;
    size_t slot;
    unsigned i;
    int st;

    for (i = 0; i < PS_ARRAY_SIZE(recent->v) && map == NULL; i++)
        if (recent->v[i] != NULL && addr >= recent->v[i]->start && addr < recent->v[i]->end)
            map = recent->v[i];
    if (map == NULL) {
        map = ps_machine__find_user_map(u->m, c->smp->pid, c->smp->tid, c->t, addr);
        recent->v[recent->next++ % PS_ARRAY_SIZE(recent->v)] = map;
    }
    if (!ps_unwind__has_file(map))
        return -1;
    slot = (size_t)(((uintptr_t)map >> 4) & 15);
    if (sp->ok_gen == sp->gen && sp->ok[slot] == map)
        return 0;
    if ((st = map_state(sp, map)) < 0)
        return -1;
    if (st > 0) {
        struct wanted w = { &map, 1, 1 };

        if (report_wanted(u, sp, c, &w) < 0)
            return -1;
    }
    if (sp->ok_gen != sp->gen) {
        memset(sp->ok, 0, sizeof(sp->ok));
        sp->ok_gen = sp->gen;
    }
    sp->ok[slot] = map;
    return 0;
}

/* The module reported at addr, or NULL. */
struct module *ps_unwind__mod_at(const struct space *sp, uint64_t addr)
{
    size_t i;

    for (i = 0; i < sp->nr_mods; i++)
        if (!sp->mods[i].failed && addr >= sp->mods[i].lo && addr < sp->mods[i].hi)
            return &sp->mods[i];
    return NULL;
}
