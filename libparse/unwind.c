/* SPDX-License-Identifier: MIT */
/*
 * unwind.c - DWARF post unwinding of user stacks (see unwind.h), with
 * elfutils libdwfl: one Dwfl per process, its modules the ELF files the
 * process maps, reported on demand; our own thread callbacks give libdwfl
 * the sample's registers and memory. The rules mirror perf 6.1 as Debian
 * builds it (facts, not code): it links libunwind, which wins over libdw
 * when both are there, so the x86-64 chains are libunwind's:
 *
 *  - Only samples with user registers and a non-empty dynamic stack dump
 *    (PERF_SAMPLE_STACK_USER's dyn_size) are unwound.
 *  - The first address is the user ip register, as is. Each further frame
 *    gives its return address minus one, except a signal frame's (for
 *    libunwind "this frame is a signal trampoline"; libdwfl says so one
 *    frame later, as the caller's "activation" flag). At most max_stack
 *    addresses in all; zero addresses are skipped.
 *  - Memory is the stack dump for [sp, sp + dyn_size - 8) (perf's range
 *    check drops the last word), anything else the mapped file's bytes at
 *    addr - map start + pgoff; nothing else is readable.
 *  - CFI comes from the mapped files themselves (perf reads .eh_frame_hdr
 *    of the file, never a separate debug file).
 *
 * Modules: libdwfl finds the module of each pc itself, without asking, so
 * before a sample is unwound every stack word and register that points
 * into a file map is checked, and any file not yet reported is reported
 * (one module per file and load bias). A map overlapping a module of
 * another file or bias (exec, dlclose + dlopen) means the process changed:
 * its Dwfl is rebuilt. Files that cannot be opened are remembered so they
 * are tried once per Dwfl.
 *
 * Registers: perf numbers them per arch (arch/<arch>/include/uapi/asm/
 * perf_regs.h) and packs the ones in the attr's mask in increasing order;
 * the tables below map DWARF register numbers to perf's.
 */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sym_io.h"
#include "unwind.h"

#define NR_SPACES 8             /* processes kept unwound-ready at once */
#define PAGE_MASK (~UINT64_C(0xfff))

/* One architecture: perf's register number for each DWARF register. */
struct regs_arch {
    const char *name;           /* HEADER_ARCH's uname -m */
    unsigned    nr_dwarf;
    int8_t      perf_of_dwarf[33];   /* -1: not sampled */
    int         perf_ip, perf_sp;
    int         pc_is_dwarf;    /* pc is a DWARF register (x86-64: 16) */
};

static const struct regs_arch regs_arches[] = {
    {
        .name = "x86_64", .nr_dwarf = 17,
        /* rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip(return address) */
        .perf_of_dwarf = { 0, 3, 2, 1, 4, 5, 6, 7,
                           16, 17, 18, 19, 20, 21, 22, 23, 8 },
        .perf_ip = 8, .perf_sp = 7, .pc_is_dwarf = 1,
    },
    {
        .name = "aarch64", .nr_dwarf = 32,
        /* x0..x30, sp: perf's numbers are the same; pc is perf's 32 */
        .perf_of_dwarf = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                           16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
                           30, 31 },
        .perf_ip = 32, .perf_sp = 31, .pc_is_dwarf = 0,
    },
};

/* A file reported to a Dwfl (or found unusable: failed). */
struct module {
    uint64_t    lo, hi;         /* its address range once reported */
    uint64_t    bias;
    const char *filename;       /* Borrowed: the machine's */
    int         failed;
};

struct ctx;

/* One process's address space as libdwfl sees it. */
struct space {
    Dwfl          *dwfl;
    uint32_t       pid;
    int            attached;
    uint64_t       stamp;       /* last use, for eviction */
    struct module *mods;        /* owned */
    size_t         nr_mods, cap_mods;
    const ps_map **seen;        /* owned: maps already checked */
    size_t         nr_seen, cap_seen;
    struct ctx    *cur;         /* the sample being unwound */
};

/* The sample being unwound, and what libdwfl gave back. */
struct ctx {
    ps_unwinder             *u;
    const ps_sample         *smp;
    const struct regs_arch  *arch;
    uint64_t                 t;
    uint64_t                 sp, stack_end;
    uint64_t                *pcs;
    uint8_t                 *act;
    size_t                   nr, max;
};

struct ps_unwinder {
    const ps_machine  *m;
    const ps_features *feat;
    char              *symfs;   /* owned; "" when none */
    struct space       spaces[NR_SPACES];
    uint64_t           clock;
    uint64_t          *pcs;     /* owned: frame scratch */
    uint8_t           *act;     /* owned */
    size_t             cap;
};

int ps_unwind__wanted(const ps_sample *smp)
{
    return (smp->sample_type & PERF_SAMPLE_REGS_USER) &&
           (smp->sample_type & PERF_SAMPLE_STACK_USER) &&
           smp->regs_user.abi != 0 && smp->regs_user.nr != 0 &&
           smp->stack_dyn_size != 0 && smp->stack_data != NULL;
}

/* perf_reg_value(): the register's slot among those in the mask. */
static int reg_value(const ps_regs *regs, int idx, uint64_t *out)
{
    uint64_t below;
    unsigned slot;

    if (idx < 0 || idx > 63 || !(regs->mask & (UINT64_C(1) << idx)))
        return -1;
    below = regs->mask & ((UINT64_C(1) << idx) - 1);
    slot = (unsigned)__builtin_popcountll(below);
    if (slot >= regs->nr)
        return -1;
    *out = regs->regs[slot];
    return 0;
}

static const struct regs_arch *capture_arch(const ps_unwinder *u)
{
    size_t i;

    if (u->feat != NULL && u->feat->arch != NULL)
        for (i = 0; i < PS_ARRAY_SIZE(regs_arches); i++)
            if (strcmp(u->feat->arch, regs_arches[i].name) == 0)
                return &regs_arches[i];
    return &regs_arches[0];
}

/* ------------------------------------------------------------------------ */
/* Memory and registers for libdwfl                                          */

/* A word of the file mapped at addr, as perf's access_dso_mem(). */
static int file_word(const struct ctx *c, uint64_t addr, uint64_t *out)
{
    const ps_map *map = ps_machine__find_user_map(c->u->m, c->smp->pid, c->smp->tid,
                                                  c->t, addr);
    char path[PS_PATH_MAX];
    uint8_t b[8];
    ssize_t n;
    int fd;

    if (map == NULL || map->kind != PS_MAP_FILE ||
        ps_path__join(path, sizeof(path), c->u->symfs, map->filename) < 0 ||
        (fd = ps_file__open_regular(path)) < 0)
        return -1;
    n = pread(fd, b, sizeof(b), (off_t)ps_map__rel(map, addr));
    close(fd);
    if (n != (ssize_t)sizeof(b))
        return -1;
    memcpy(out, b, sizeof(b));
    return 0;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    const struct ctx *c = ((struct space *)arg)->cur;
    uint64_t v;

    (void)dwfl;
    if (c == NULL || addr + 8 < addr)
        return false;
    if (addr >= c->sp && addr + 8 < c->stack_end) {
        memcpy(&v, c->smp->stack_data + (addr - c->sp), sizeof(v));
        *result = v;
        return true;
    }
    if (file_word(c, addr, &v) < 0)
        return false;
    *result = v;
    return true;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
    struct space *sp = arg;

    (void)dwfl;
    if (*thread_argp != NULL || sp->cur == NULL)
        return 0;
    *thread_argp = sp;
    return (pid_t)sp->cur->smp->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
    struct space *sp = arg;

    (void)dwfl;
    if (sp->cur == NULL || (pid_t)sp->cur->smp->tid != tid)
        return false;
    *thread_argp = sp;
    return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
    const struct ctx *c = ((struct space *)thread_arg)->cur;
    const struct regs_arch *a = c->arch;
    unsigned i;
    uint64_t v;

    for (i = 0; i < a->nr_dwarf; i++) {
        Dwarf_Word w;

        if (reg_value(&c->smp->regs_user, a->perf_of_dwarf[i], &v) < 0)
            continue;
        w = v;
        if (!dwfl_thread_state_registers(thread, (int)i, 1, &w))
            return false;
    }
    if (!a->pc_is_dwarf) {
        if (reg_value(&c->smp->regs_user, a->perf_ip, &v) < 0)
            return false;
        dwfl_thread_state_register_pc(thread, v);
    }
    return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

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

static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = no_debuginfo,
};

/* ------------------------------------------------------------------------ */
/* Address spaces and their modules                                          */

static void space_reset(struct space *sp)
{
    if (sp->dwfl != NULL)
        dwfl_end(sp->dwfl);
    sp->dwfl = NULL;
    sp->attached = 0;
    sp->nr_mods = 0;
    sp->nr_seen = 0;
}

static struct space *space_get(ps_unwinder *u, uint32_t pid)
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
    space_reset(best);
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

/* The load bias of map's file: the PT_LOAD mapped at map->pgoff sits at
 * map->start. ET_EXEC files have none. */
static uint64_t load_bias(Elf *elf, const ps_map *map)
{
    GElf_Ehdr eh;
    size_t i, n;

    if (gelf_getehdr(elf, &eh) == NULL || eh.e_type == ET_EXEC || elf_getphdrnum(elf, &n) < 0)
        return 0;
    for (i = 0; i < n; i++) {
        GElf_Phdr ph;

        if (gelf_getphdr(elf, (int)i, &ph) != NULL && ph.p_type == PT_LOAD &&
            (ph.p_offset & PAGE_MASK) == map->pgoff)
            return map->start - (ph.p_vaddr & PAGE_MASK);
    }
    return map->start - map->pgoff;
}

/* Report map's file to sp's Dwfl (inside a report session). */
static void report_file(ps_unwinder *u, struct space *sp, const ps_map *map)
{
    struct module *md = mod_add(sp);
    char path[PS_PATH_MAX];
    Dwfl_Module *mod = NULL;
    int fd = -1;

    if (md == NULL)
        return;
    memset(md, 0, sizeof(*md));
    md->filename = map->filename;
    md->lo = map->start;
    md->hi = map->end;
    md->failed = 1;
    if (ps_path__join(path, sizeof(path), u->symfs, map->filename) == 0 &&
        (fd = ps_file__open_regular(path)) >= 0) {
        Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);

        if (elf != NULL && elf_kind(elf) == ELF_K_ELF) {
            md->bias = load_bias(elf, map);
            elf_end(elf);
            /* the module owns fd once reported */
            mod = dwfl_report_elf(sp->dwfl, map->filename, path, fd, md->bias, false);
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

static int want_addr(const struct ctx *c, struct wanted *w, uint64_t addr,
                     const ps_map **last)
{
    const ps_map *map;
    size_t i;

    if (*last != NULL && addr >= (*last)->start && addr < (*last)->end)
        return 0;
    map = ps_machine__find_user_map(c->u->m, c->smp->pid, c->smp->tid, c->t, addr);
    if (map == NULL || map->kind != PS_MAP_FILE)
        return 0;
    *last = map;
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
    const ps_map *last = NULL;
    uint64_t off, i;

    for (i = 0; i < regs->nr; i++)
        if (want_addr(c, w, regs->regs[i], &last) < 0)
            return -1;
    for (off = 0; off + 8 <= c->stack_end - c->sp; off += 8) {
        uint64_t v;

        memcpy(&v, c->smp->stack_data + off, sizeof(v));
        if (want_addr(c, w, v, &last) < 0)
            return -1;
    }
    return 0;
}

/* Make sp's Dwfl know every file w names, rebuilding it if the process
 * changed. @return 0, or -1 when the Dwfl cannot be used */
static int report_wanted(ps_unwinder *u, struct space *sp, const struct wanted *w)
{
    size_t i, todo = 0;

    for (i = 0; i < w->nr; i++) {
        int st = map_state(sp, w->maps[i]);

        if (st < 0) {
            space_reset(sp);
            if ((sp->dwfl = dwfl_begin(&dwfl_callbacks)) == NULL)
                return -1;
            todo = w->nr;
            break;
        }
        todo += (size_t)st;
    }
    if (todo == 0)
        return 0;
    dwfl_report_begin_add(sp->dwfl);
    for (i = 0; i < w->nr; i++) {
        int st = map_state(sp, w->maps[i]);

        if (st > 0)
            report_file(u, sp, w->maps[i]);
        /* a map of the file inside no module (its .bss, say) is fine too */
        if (st >= 0 && seen_add(sp, w->maps[i]) < 0)
            break;
    }
    if (dwfl_report_end(sp->dwfl, NULL, NULL) != 0)
        return -1;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Unwinding                                                                 */

static int frame_cb(Dwfl_Frame *state, void *arg)
{
    struct ctx *c = ((struct space *)arg)->cur;
    Dwarf_Addr pc;
    bool act;

    (void)arg;
    if (!dwfl_frame_pc(state, &pc, &act))
        return DWARF_CB_ABORT;
    c->pcs[c->nr] = pc;
    c->act[c->nr] = act;
    if (++c->nr >= c->max)
        return DWARF_CB_ABORT;
    return DWARF_CB_OK;
}

static int scratch_reserve(ps_unwinder *u, size_t n)
{
    uint64_t *p;
    uint8_t *a;

    if (n <= u->cap)
        return 0;
    if ((p = realloc(u->pcs, n * sizeof(*p))) == NULL)
        return -1;
    u->pcs = p;
    if ((a = realloc(u->act, n)) == NULL)
        return -1;
    u->act = a;
    u->cap = n;
    return 0;
}

size_t ps_unwinder__user(ps_unwinder *u, const ps_sample *smp, uint64_t t,
                         uint64_t *ips, size_t max)
{
    struct wanted w = { NULL, 0, 0 };
    struct space *sp;
    struct ctx c;
    uint64_t ip, dyn;
    size_t i, n = 0;

    if (max == 0 || !ps_unwind__wanted(smp))
        return 0;
    memset(&c, 0, sizeof(c));
    c.u = u;
    c.smp = smp;
    c.t = t;
    c.arch = capture_arch(u);
    if (reg_value(&smp->regs_user, c.arch->perf_ip, &ip) < 0)
        return 0;
    dyn = smp->stack_dyn_size < smp->stack_size ? smp->stack_dyn_size : smp->stack_size;
    if (reg_value(&smp->regs_user, c.arch->perf_sp, &c.sp) < 0 || c.sp + dyn < c.sp)
        dyn = 0;
    c.stack_end = c.sp + dyn;
    /* one frame past max tells whether the last one is a signal frame */
    if (max == 1 || scratch_reserve(u, max + 1) < 0 || (sp = space_get(u, smp->pid)) == NULL)
        goto first_only;
    c.pcs = u->pcs;
    c.act = u->act;
    c.max = max + 1;
    if (collect(&c, &w) < 0 || report_wanted(u, sp, &w) < 0 || sp->nr_mods == 0)
        goto first_only;
    sp->cur = &c;
    if (!sp->attached) {
        if (!dwfl_attach_state(sp->dwfl, NULL, (pid_t)smp->pid, &thread_callbacks, sp)) {
            sp->cur = NULL;
            space_reset(sp);
            goto first_only;
        }
        sp->attached = 1;
    }
    dwfl_getthread_frames(sp->dwfl, (pid_t)smp->tid, frame_cb, sp);
    sp->cur = NULL;
    free(w.maps);
    if (c.nr == 0)
        return ip != 0 ? (ips[0] = ip, 1) : 0;
    for (i = 0; i < c.nr && i < max; i++) {
        uint64_t pc = c.pcs[i];
        int signal = i + 1 < c.nr && c.act[i + 1];

        if (i > 0 && !signal)
            pc--;
        if (pc != 0)
            ips[n++] = pc;
    }
    return n;

first_only:
    free(w.maps);
    if (ip == 0)
        return 0;
    ips[0] = ip;
    return 1;
}

int ps_unwinder__new(ps_unwinder **out, const ps_machine *m, const ps_features *feat,
                     const char *symfs, ps_error *err)
{
    ps_unwinder *u = calloc(1, sizeof(*u));

    *out = NULL;
    if (u == NULL || (u->symfs = strdup(symfs != NULL ? symfs : "")) == NULL) {
        free(u);
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "unwind: out of memory");
    }
    u->m = m;
    u->feat = feat;
    elf_version(EV_CURRENT);
    *out = u;
    return PS_OK;
}

void ps_unwinder__free(ps_unwinder *u)
{
    size_t i;

    if (u == NULL)
        return;
    for (i = 0; i < NR_SPACES; i++) {
        space_reset(&u->spaces[i]);
        free(u->spaces[i].mods);
        free(u->spaces[i].seen);
    }
    free(u->pcs);
    free(u->act);
    free(u->symfs);
    free(u);
}
