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
 *    addr - map start + pgoff. An address in a map whose file cannot be
 *    read there (anonymous memory, [stack]) reads as 0: perf's failure
 *    code reaches libunwind as a success. Only an address outside every
 *    map is unreadable (mem_word()).
 *  - A return address of 0 is one more frame for libunwind, printed as
 *    0 - 1; libdwfl ends the chain there, so the frame is added after.
 *  - CFI comes from the mapped files themselves (perf reads .eh_frame_hdr
 *    of the file, never a separate debug file). "The file" is the one
 *    perf's dso__data_open() finds: the build-id cache entry when the DSO
 *    has a build-id, else the path under --symfs (dso_file()). For a
 *    [vdso] that the BUILD_ID feature does not name, perf's file is a copy
 *    of its own vdso: sym_user.c's image of this process's, given to
 *    libdwfl from memory (image_elf()) unless --symfs hides it.
 *  - Where a frame's pc (less one, unless its callee is a signal frame or
 *    it is the first) is in no such file, or in one without .eh_frame_hdr,
 *    perf's libunwind stops: the frame is the last one. libdwfl would
 *    guess on from the frame pointer (ebl_unwind()); frame_cb() stops it
 *    first. In a file whose FDEs miss the pc, libunwind guesses too, its
 *    own way (a PLT entry's pattern; else rbp, within bounds, the caller's
 *    sp the CFA plus 16): on x86-64 guess_caller() does as it does, and
 *    libdwfl goes on from there in a new walk. libunwind's signal
 *    trampoline pattern (no FDE) is not modelled: libdwfl's guess stands.
 *  - A process is unwound only once perf gave its maps an unwinder, which
 *    happens when a map goes in whose file the capture's arch takes (on
 *    x86: a readable 64-bit ELF; gate_open()). Until then its samples get
 *    no user part at all. aarch64 captures are the exception, on purpose:
 *    Debian's perf 6.1 has no arm64 libunwind and unwinds none of them,
 *    perfsift unwinds them all.
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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "sym_user.h"
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
    int         eh_frame_hdr;   /* the file has the section perf's CFI lookup reads */
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
    bool                     signal;    /* the last frame's FDE is a signal frame's */
    int                      has_ra_slot;
    uint64_t                 ra_slot;   /* where the last frame's return address is */
    uint64_t                 nr_zero;   /* memory reads that gave 0 */
    /* a walk stopped at a guessed frame, to go on from its caller
     * (guess_caller()): that caller's registers */
    int                      resume;    /* the walk stopped to go on */
    int                      resumed;   /* this walk starts at such a caller */
    size_t                   walk_start;    /* c->nr where this walk started */
    uint64_t                 resume_pc;     /* the caller's pc ... */
    int                      resume_as_is;  /* ... looked up as is (else less one) */
    uint32_t                 resume_mask;   /* DWARF registers known */
    Dwarf_Word               resume_regs[17];
};

/* A chained hash table of nodes that live in the unwinder's arena. */
struct node {
    struct node *next;
    uint64_t     hash;
};

struct table {
    struct node **buckets;      /* owned array */
    size_t        nr_buckets, nr;
};

/* The file perf reads a DSO's bytes from (dso__data_open), and its type. */
struct dso_file {
    struct node  node;
    const char  *name;          /* Borrowed: the machine's */
    int          kind;          /* PS_MAP_FILE or PS_MAP_VDSO */
    int          has_bid;
    uint8_t      bid[PS_BUILD_ID_MAX];
    size_t       bid_size;
    const char  *path;          /* arena; NULL: no regular file */
    int          own_image;     /* perf's own [vdso]: its bytes are u->vdso */
    int          type;          /* enum dso_type */
};

/* Whether perf unwinds a process (see gate_open()). */
struct gate {
    struct node    node;
    const ps_maps *maps;
    size_t         checked;     /* ps_maps__inserted() entries looked at */
    int            open;        /* a map gave the process perf's unwinder ... */
    uint64_t       since;       /* ... at this time (its time_start) */
};

struct ps_unwinder {
    const ps_machine  *m;
    const ps_features *feat;
    ps_symbols        *syms;    /* Borrowed; NULL: no build-id cache, no own vdso */
    const char        *symfs;   /* Borrowed; "" when none */
    ps_arena           arena;   /* dso_file and gate nodes, paths */
    struct table       files, gates;
    char               host_arch[65];   /* uname -m, for captures without HEADER_ARCH */
    int                seen_sample;
    uint64_t           first_sample;    /* time of the first sample asked about */
    struct space       spaces[NR_SPACES];
    uint64_t           clock;
    uint64_t          *pcs;     /* owned: frame scratch */
    uint8_t           *act;     /* owned */
    size_t             cap;
    int                vdso_read;
    uint8_t           *vdso;    /* owned: a copy of sym_user.c's own vdso image */
    size_t             vdso_size;
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
/* DSO files, and which processes perf unwinds                              */

/* perf's enum dso_type: what dso__type() makes of a DSO's file. */
enum dso_type { DSO_TYPE_UNKNOWN, DSO_TYPE_64BIT, DSO_TYPE_32BIT, DSO_TYPE_X32BIT };

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)

static uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
    const uint8_t *b = p;

    while (n-- > 0)
        h = (h ^ *b++) * UINT64_C(0x100000001b3);
    return h;
}

typedef int (*match_fn)(const struct node *n, const void *key);

static struct node *table_find(const struct table *t, uint64_t hash, match_fn match,
                               const void *key)
{
    struct node *n = NULL;

    if (t->nr_buckets != 0)
        for (n = t->buckets[hash & (t->nr_buckets - 1)]; n != NULL; n = n->next)
            if (n->hash == hash && match(n, key))
                break;
    return n;
}

/* Add n (its hash set); buckets double at one node each. @return 0 or -1 */
static int table_add(struct table *t, struct node *n)
{
    if (t->nr >= t->nr_buckets) {
        size_t nb = t->nr_buckets ? t->nr_buckets * 2 : 64, i;
        struct node **b = calloc(nb, sizeof(*b));

        if (b == NULL)
            return -1;
        for (i = 0; i < t->nr_buckets; i++) {
            while (t->buckets[i] != NULL) {
                struct node *m = t->buckets[i];

                t->buckets[i] = m->next;
                m->next = b[m->hash & (nb - 1)];
                b[m->hash & (nb - 1)] = m;
            }
        }
        free(t->buckets);
        t->buckets = b;
        t->nr_buckets = nb;
    }
    n->next = t->buckets[n->hash & (t->nr_buckets - 1)];
    t->buckets[n->hash & (t->nr_buckets - 1)] = n;
    t->nr++;
    return 0;
}

/* dso__type_fd(): the ELF class; a 32-bit x86-64 file is x32. */
static int elf_type(Elf *elf)
{
    GElf_Ehdr eh;

    if (elf == NULL || elf_kind(elf) != ELF_K_ELF)
        return DSO_TYPE_UNKNOWN;
    if (gelf_getclass(elf) == ELFCLASS64)
        return DSO_TYPE_64BIT;
    if (gelf_getehdr(elf, &eh) == NULL)
        return DSO_TYPE_UNKNOWN;
    return eh.e_machine == EM_X86_64 ? DSO_TYPE_X32BIT : DSO_TYPE_32BIT;
}

/* perf's [vdso] DSO, unless the BUILD_ID feature names it, is a copy of
 * perf's own vdso; this process's stands in for it, as in sym_user.c. */
static int own_vdso_type(void)
{
    const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
    uint16_t machine;

    if (img == NULL || memcmp(img, ELFMAG, SELFMAG) != 0)
        return DSO_TYPE_UNKNOWN;
    if (img[EI_CLASS] == ELFCLASS64)
        return DSO_TYPE_64BIT;
    if (img[EI_CLASS] != ELFCLASS32)
        return DSO_TYPE_UNKNOWN;
    memcpy(&machine, img + offsetof(Elf32_Ehdr, e_machine), sizeof(machine));
    return machine == EM_X86_64 ? DSO_TYPE_X32BIT : DSO_TYPE_32BIT;
}

/* The bytes of that file: sym_user.c's copy of this process's vdso, copied
 * again because libelf reads an image in place (elf_memory() may write).
 * @return 0, or -1 without a ps_symbols or a vdso */
static int own_vdso(ps_unwinder *u)
{
    const uint8_t *img;
    size_t n;

    if (!u->vdso_read && u->syms != NULL) {
        u->vdso_read = 1;
        if ((img = ps_user__vdso_image(u->syms, &n)) != NULL && (u->vdso = malloc(n)) != NULL) {
            memcpy(u->vdso, img, n);
            u->vdso_size = n;
        }
    }
    return u->vdso != NULL ? 0 : -1;
}

static int file_matches(const struct node *n, const void *key)
{
    const struct dso_file *f = (const struct dso_file *)n, *k = key;

    return f->kind == k->kind && f->has_bid == k->has_bid && f->bid_size == k->bid_size &&
           memcmp(f->bid, k->bid, k->bid_size) == 0 && strcmp(f->name, k->name) == 0;
}

/* The path and type of the file dso__data_open() reads for map's DSO (a
 * file or [vdso] map, named and build-id'd as symbols.c does): the
 * build-id cache entry when the DSO has a build-id, then the file under
 * --symfs; regular files only. An own [vdso] is perf's temp copy of its
 * own vdso (own_vdso()), which --symfs hides. Looked for once per DSO.
 * @return the entry, or NULL when out of memory */
static const struct dso_file *dso_file(ps_unwinder *u, const ps_map *map)
{
    const ps_feat_build_id *e = NULL;
    char path[PS_PATH_MAX];
    struct dso_file k, *f;
    ps_loadctx x;
    int own = 0, found = 0, fd;

    memset(&k, 0, sizeof(k));
    k.name = map->filename;
    k.kind = map->kind;
    if (map->kind == PS_MAP_VDSO) {
        e = ps_build_id__header_entry(u->feat, map->filename);
        own = e == NULL && strcmp(map->filename, "[vdso]") == 0;
    }
    k.has_bid = ps_build_id__expected(k.bid, &k.bid_size, u->feat, e ? NULL : map,
                                      map->filename);
    k.node.hash = hash_bytes(k.bid, k.bid_size,
                             hash_bytes(k.name, strlen(k.name), FNV_OFFSET ^ (uint64_t)k.kind));
    if ((f = (struct dso_file *)table_find(&u->files, k.node.hash, file_matches, &k)) != NULL)
        return f;
    if ((f = ps_arena__alloc(&u->arena, sizeof(*f))) == NULL)
        return NULL;
    *f = k;
    f->type = DSO_TYPE_UNKNOWN;
    memset(&x, 0, sizeof(x));
    x.long_name = map->filename;
    x.is_vdso = map->kind == PS_MAP_VDSO;
    x.has_bid = k.has_bid;
    memcpy(x.bid, k.bid, sizeof(x.bid));
    x.bid_size = k.bid_size;
    if (u->syms != NULL && x.has_bid)
        found = ps_user__cache_path(u->syms, &x, 0, path, sizeof(path)) == 0 &&
                ps_file__is_regular(path);
    if (!found && own && !u->symfs[0]) {
        f->type = own_vdso_type();
        f->own_image = own_vdso(u) == 0;
    } else if (!found && !own) {
        found = ps_path__join(path, sizeof(path), u->symfs, map->filename) == 0 &&
                ps_file__is_regular(path);
    }
    if (found && (f->path = ps_arena__strndup(&u->arena, path, strlen(path))) != NULL &&
        (fd = ps_file__open_regular(path)) >= 0) {
        Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);

        f->type = elf_type(elf);
        elf_end(elf);
        close(fd);
    }
    table_add(&u->files, &f->node);     /* uncached on failure: found again */
    return f;
}

/*
 * perf's unwind__prepare_access(), run each time a map goes into a
 * process's maps (MMAP records, a fork's copies): the first map whose DSO
 * type the capture's arch takes gives the process its unwinder, for good.
 * Until then perf unwinds nothing there: the user part of a call chain is
 * empty, not even the sample ip.
 */
enum gate_rule {
    GATE_ALWAYS,    /* any map, file or not */
    GATE_64BIT,     /* x86: a 64-bit DSO (Debian's perf has no x86_32 libunwind,
                     * so a 32-bit one is "not supported" and the next map tries) */
    GATE_KNOWN,     /* other arches: any DSO of a known type (perf's arm also
                     * refuses 64-bit ones; no arm32 register table here anyway) */
};

/* The rule for an arch as uname -m names it (HEADER_ARCH holds that). */
static int arch_rule(const char *a)
{
    /* perf_env__arch()'s "x86": x86_64 and i?86 */
    if (strcmp(a, "x86_64") == 0 || (strlen(a) >= 4 && a[0] == 'i' && a[2] == '8' && a[3] == '6'))
        return GATE_64BIT;
    /* Debian's perf 6.1 has no arm64 libunwind and never unwinds arm64
     * captures; perfsift does, with its aarch64 table (a perf limitation
     * deliberately not copied) */
    if (strncmp(a, "aarch64", 7) == 0 || strncmp(a, "arm64", 5) == 0)
        return GATE_ALWAYS;
    return GATE_KNOWN;
}

/*
 * Without HEADER_ARCH perf's env has no arch, and a map put in then gives
 * its process an unwinder without a look. Processing the first sample
 * fills the arch in from uname() of the machine perf runs on (seen with
 * perf 6.1: pipe captures without the ARCH feature, maps timed before or
 * after the first sample); from then on that arch's rule applies.
 */
static int arch_unknown(const ps_features *feat)
{
    return feat == NULL || !ps_features_has(feat, PS_HEADER_ARCH) || feat->arch == NULL;
}

static int gate_matches(const struct node *n, const void *key)
{
    return ((const struct gate *)n)->maps == key;
}

static struct gate *gate_get(ps_unwinder *u, const ps_maps *s)
{
    uint64_t h = hash_bytes(&s, sizeof(s), FNV_OFFSET);
    struct gate *g = (struct gate *)table_find(&u->gates, h, gate_matches, s);

    if (g != NULL)
        return g;
    if ((g = ps_arena__alloc(&u->arena, sizeof(*g))) == NULL)
        return NULL;
    memset(g, 0, sizeof(*g));
    g->node.hash = h;
    g->maps = s;
    return table_add(&u->gates, &g->node) == 0 ? g : NULL;
}

/* 1 when map, put into a process's maps, gives it perf's unwinder. */
static int gate_opens(ps_unwinder *u, const ps_map *map, int unknown, int rule)
{
    const struct dso_file *f;

    if ((unknown && map->time_start <= u->first_sample) || rule == GATE_ALWAYS)
        return 1;
    /* other maps are no files ("//anon" is perf's /tmp/perf-PID.map, text) */
    if ((map->kind != PS_MAP_FILE && map->kind != PS_MAP_VDSO) ||
        (f = dso_file(u, map)) == NULL)
        return 0;
    return rule == GATE_64BIT ? f->type == DSO_TYPE_64BIT : f->type != DSO_TYPE_UNKNOWN;
}

/* 1 when perf has an unwinder for the process whose maps are s, as of
 * time t. The maps put in are checked once each, in delivery order. */
static int gate_open(ps_unwinder *u, const ps_maps *s, uint64_t t)
{
    int unknown = arch_unknown(u->feat);
    int rule = arch_rule(unknown ? u->host_arch : u->feat->arch);
    const ps_map *map;
    struct gate *g;

    if (!unknown && rule == GATE_ALWAYS)
        return 1;
    if (s == NULL)
        return 0;               /* a thread without maps: perf's are empty too */
    if ((g = gate_get(u, s)) == NULL)
        return 1;               /* out of memory: unwind as if perf could */
    while (!g->open && (map = ps_maps__inserted(s, g->checked)) != NULL &&
           map->time_start <= t) {
        g->checked++;
        if (gate_opens(u, map, unknown, rule)) {
            g->open = 1;
            g->since = map->time_start;
        }
    }
    return g->open && g->since <= t;
}

/* ------------------------------------------------------------------------ */
/* Memory and registers for libdwfl                                          */

/* 1 when libdwfl gets map's file (see dso_file()). */
static int has_file(const ps_map *map)
{
    return map != NULL && (map->kind == PS_MAP_FILE || map->kind == PS_MAP_VDSO);
}

/* The offset in its file of addr, inside map: perf gives [vdso] maps a
 * zero pgoff. */
static uint64_t file_off(const ps_map *map, uint64_t addr)
{
    return map->kind == PS_MAP_VDSO ? addr - map->start : ps_map__rel(map, addr);
}

/*
 * A word of memory outside the stack dump, as perf's access_mem(): the
 * bytes of the file mapped at addr (access_dso_mem()). Where the map's
 * DSO cannot be read (no file: anonymous memory, [stack]; past its end)
 * perf's failure reaches libunwind as a success, with the value 0; only
 * an address no map covers is an error.
 * @return 0, or -1 when no map covers addr
 */
static int mem_word(const struct ctx *c, uint64_t addr, uint64_t *out)
{
    const ps_map *map = ps_machine__find_user_map(c->u->m, c->smp->pid, c->smp->tid,
                                                  c->t, addr);
    const struct dso_file *f;
    uint64_t off;
    uint8_t b[8];
    int fd;

    if (map == NULL)
        return -1;
    *out = 0;
    if (!has_file(map) || (f = dso_file(c->u, map)) == NULL)
        return 0;
    off = file_off(map, addr);
    if (f->own_image) {
        if (off <= c->u->vdso_size && c->u->vdso_size - off >= sizeof(b))
            memcpy(out, c->u->vdso + off, sizeof(b));
        return 0;
    }
    if (f->path == NULL || (fd = ps_file__open_regular(f->path)) < 0)
        return 0;
    if (pread(fd, b, sizeof(b), (off_t)off) == (ssize_t)sizeof(b))
        memcpy(out, b, sizeof(b));
    close(fd);
    return 0;
}

/* The word at addr as libunwind sees it under perf: the stack dump for
 * [sp, sp + dyn_size - 8), else mem_word(). @return 0 or -1 */
static int read_word(const struct ctx *c, uint64_t addr, uint64_t *out)
{
    if (addr + 8 < addr)
        return -1;
    if (addr >= c->sp && addr + 8 < c->stack_end) {
        memcpy(out, c->smp->stack_data + (addr - c->sp), sizeof(*out));
        return 0;
    }
    return mem_word(c, addr, out);
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    struct ctx *c = ((struct space *)arg)->cur;
    uint64_t v;

    (void)dwfl;
    if (c == NULL || read_word(c, addr, &v) < 0)
        return false;
    c->nr_zero += v == 0;
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

/* The registers a walk that goes on from a guessed frame's caller starts
 * with (x86-64 only): its pc is the address its FDE is looked up at. */
static bool resume_registers(Dwfl_Thread *thread, const struct ctx *c)
{
    Dwarf_Word pc = c->resume_pc - (c->resume_as_is ? 0 : 1);
    unsigned i;

    for (i = 0; i < 16; i++)
        if ((c->resume_mask & (1u << i)) &&
            !dwfl_thread_state_registers(thread, (int)i, 1, &c->resume_regs[i]))
            return false;
    return dwfl_thread_state_registers(thread, 16, 1, &pc);
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
    const struct ctx *c = ((struct space *)thread_arg)->cur;
    const struct regs_arch *a = c->arch;
    unsigned i;
    uint64_t v;

    if (c->resumed)
        return resume_registers(thread, c);
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
static void report_file(ps_unwinder *u, struct space *sp, const ps_map *map)
{
    struct module *md = mod_add(sp);
    const struct dso_file *f = dso_file(u, map);
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
        elf_end(elf);
        if ((mod = dwfl_report_module(sp->dwfl, map->filename, map->start, map->end)) != NULL) {
            dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
            *userdata = u;
            md->bias = map->start;
        }
    } else if (f != NULL && f->path != NULL && (fd = ps_file__open_regular(f->path)) >= 0) {
        Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);

        if (elf != NULL && elf_kind(elf) == ELF_K_ELF) {
            md->bias = load_bias(elf, map);
            md->eh_frame_hdr = has_eh_frame_hdr(elf);
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

    if (!has_file(map))
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

/* The module reported at addr, or NULL. */
static const struct module *mod_at(const struct space *sp, uint64_t addr)
{
    size_t i;

    for (i = 0; i < sp->nr_mods; i++)
        if (!sp->mods[i].failed && addr >= sp->mods[i].lo && addr < sp->mods[i].hi)
            return &sp->mods[i];
    return NULL;
}

/* The .eh_frame FDE's row for addr in the module libdwfl finds there.
 * @return it (Owned: free()), or NULL when there is none */
static Dwarf_Frame *cfi_row(Dwfl *dwfl, Dwarf_Addr addr)
{
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
    Dwarf_Frame *frame;
    Dwarf_CFI *cfi;
    Dwarf_Addr bias;

    if (mod == NULL || (cfi = dwfl_module_eh_cfi(mod, &bias)) == NULL ||
        dwarf_cfi_addrframe(cfi, addr - bias, &frame) != 0)
        return NULL;
    return frame;
}

/* Where row says the return address of state's frame is saved, for the
 * usual rules: the CFA a register plus an offset, the return address at
 * an offset from it. @return 0, or -1 for any other rule */
static int ra_slot(Dwfl_Frame *state, Dwarf_Frame *row, int ra, uint64_t *out)
{
    Dwarf_Op mem[3], *ops;
    Dwarf_Word reg;
    size_t nops;
    uint64_t cfa;

    if (dwarf_frame_cfa(row, &ops, &nops) != 0 || nops != 1)
        return -1;
    if (ops[0].atom == DW_OP_bregx)
        cfa = ops[0].number2;
    else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)
        cfa = ops[0].number;
    else
        return -1;
    if (dwfl_frame_reg(state, ops[0].atom == DW_OP_bregx ? (unsigned)ops[0].number :
                       (unsigned)(ops[0].atom - DW_OP_breg0), &reg) != 0)
        return -1;
    cfa += reg;
    if (ra < 0 || dwarf_frame_register(row, ra, mem, &ops, &nops) != 0 || ops == NULL ||
        nops == 0 || ops[0].atom != DW_OP_call_frame_cfa)
        return -1;
    if (nops == 1)
        *out = cfa;
    else if (nops == 2 && ops[1].atom == DW_OP_plus_uconst)
        *out = cfa + ops[1].number;
    else
        return -1;
    return 0;
}

/* What the FDE row at addr says of state's frame: whether it is a signal
 * frame's, and where the return address is saved (c->has_ra_slot). */
static void note_row(struct ctx *c, Dwfl *dwfl, Dwfl_Frame *state, Dwarf_Addr addr)
{
    Dwarf_Frame *row = cfi_row(dwfl, addr);
    Dwarf_Addr start, end;
    bool signal = false;
    int ra;

    c->has_ra_slot = 0;
    if (row != NULL) {
        ra = dwarf_frame_info(row, &start, &end, &signal);
        c->has_ra_slot = ra_slot(state, row, ra, &c->ra_slot) == 0;
        free(row);
    }
    c->signal = signal;
}

/* x86-64's DWARF numbers for the registers libunwind's guesses use */
enum { X86_RBP = 6, X86_RSP = 7, X86_NR_GPR = 16 };

/* libunwind's bound on how far above the CFA a frame pointer it follows
 * may be */
#define FP_GUESS_MAX 0x4000

/* 1 when the module at addr has an FDE for it. */
static int has_fde(Dwfl *dwfl, Dwarf_Addr addr)
{
    Dwarf_Frame *row = cfi_row(dwfl, addr);
    int found = row != NULL;

    free(row);
    return found;
}

/* libunwind's x86-64 code patterns, read as two words at a frame's pc:
 * rt_sigreturn's trampoline (mov $15,%rax; syscall) and a lazy PLT entry
 * (jmp *GOT(%rip); push $n; jmp PLT0). */
static int is_sigreturn(uint64_t w0, uint64_t w1)
{
    return w0 == UINT64_C(0x0f0000000fc0c748) && (w1 & 0xff) == 0x05;
}

static int is_plt_entry(uint64_t w0, uint64_t w1)
{
    return (w0 & 0xffff) == 0x25ff && ((w0 >> 48) & 0xff) == 0x68 &&
           ((w1 >> 24) & 0xff) == 0xe9;
}

/*
 * The caller of an x86-64 frame whose file has CFI but no FDE for its pc,
 * guessed as libunwind 1.6 does (unw_step() once dwarf_step() finds no
 * FDE), where libdwfl's guess (x86_64_unwind()) differs. "cfa" is
 * libunwind's: the sample's sp for the first frame, else the CFA of the
 * last step, which is this frame's sp (state's, or the one resumed from).
 *  - A PLT entry: the return address is at cfa, cfa grows by 8; the other
 *    registers stay as they are, and so does the way the caller's FDE is
 *    looked up (as is for the first frame).
 *  - Else rbp is a frame pointer if it is not 0, readable, at or above
 *    cfa and at most FP_GUESS_MAX above it: the return address is at
 *    rbp + 8, the caller's rbp at rbp; cfa grows by 16 (rbp + 16 for
 *    libdwfl); every other register is unknown. Otherwise the chain ends.
 * The next walk then starts from the caller (c->resume_*): libdwfl has
 * no way to go on from a frame of its own making.
 * @return 1 with the caller there, 0 when the chain ends at this frame,
 * -1 for a signal trampoline (not modelled: libdwfl's guess stands)
 */
static int guess_caller(struct ctx *c, Dwfl_Frame *state, uint64_t pc, int as_is)
{
    Dwarf_Word cfa, rbp, v;
    uint64_t w0, w1, rbp1, ra;
    int plt = 0;
    unsigned i;

    if (read_word(c, pc, &w0) == 0 && read_word(c, pc + 8, &w1) == 0) {
        if (is_sigreturn(w0, w1))
            return -1;
        plt = is_plt_entry(w0, w1);
    }
    if (dwfl_frame_reg(state, X86_RSP, &cfa) != 0)
        return 0;
    c->resume_mask = 0;
    if (plt) {
        if (read_word(c, cfa, &ra) < 0)
            return 0;
        for (i = 0; i < X86_NR_GPR; i++) {
            if (i != X86_RSP && dwfl_frame_reg(state, i, &v) == 0) {
                c->resume_regs[i] = v;
                c->resume_mask |= 1u << i;
            }
        }
        c->resume_regs[X86_RSP] = cfa + 8;
        c->resume_as_is = as_is;
    } else {
        if (dwfl_frame_reg(state, X86_RBP, &rbp) != 0 || rbp == 0 ||
            read_word(c, rbp, &rbp1) < 0 || rbp < cfa || rbp - cfa > FP_GUESS_MAX ||
            read_word(c, rbp + 8, &ra) < 0)
            return 0;
        c->resume_regs[X86_RBP] = rbp1;
        c->resume_mask |= 1u << X86_RBP;
        c->resume_regs[X86_RSP] = cfa + 16;
        c->resume_as_is = 0;
    }
    c->resume_mask |= 1u << X86_RSP;
    c->resume_pc = ra;
    return 1;
}

/*
 * One frame, leaf first. libdwfl unwinds a frame with the FDE of its pc
 * (less one unless it is the first frame or its callee is a signal
 * frame), and without one guesses the caller from the frame pointer
 * (ebl_unwind()). perf's libunwind guesses too, but otherwise, and only
 * where the file has an FDE table that misses the pc; with no file there,
 * or no .eh_frame_hdr in it, its lookup fails outright and it stops. So
 * does the chain here, before libdwfl steps on: the frame's pc is kept,
 * and dwfl_frame_pc() is not asked whether it is an activation (which
 * would unwind it). On x86-64 libunwind's guess replaces libdwfl's
 * (guess_caller()): the walk stops there, and the next one starts from
 * the guessed caller, whose pc libdwfl gets as the address to look up.
 *
 * For ps_unwinder__user() the last frame's row says where its return
 * address is saved, and each row whether the next lookup takes pc as is.
 * Reading the row again costs, so it is read only where libdwfl unwinds
 * the frame after this call (pc as is: the first frame, a signal frame's
 * caller) or where that unwinding read a 0 (a return address of 0 ends
 * the chain); elsewhere dwfl_frame_pc() has just unwound the frame, and
 * says whether its FDE is a signal frame's.
 */
static int frame_cb(Dwfl_Frame *state, void *arg)
{
    struct space *sp = arg;
    struct ctx *c = sp->cur;
    bool act, resumed = c->resumed && c->nr == c->walk_start;
    bool callee_signal = !resumed && (c->nr == 0 || c->signal);
    bool as_is = resumed || callee_signal;
    const struct module *md;
    Dwarf_Addr pc, addr;
    uint64_t nr_zero = c->nr_zero;
    int g;

    if (!dwfl_frame_pc(state, &pc, NULL))
        return DWARF_CB_ABORT;
    c->pcs[c->nr] = resumed ? c->resume_pc : pc;
    addr = as_is ? pc : pc - 1;
    c->has_ra_slot = 0;
    if ((md = mod_at(sp, addr)) == NULL || !md->eh_frame_hdr) {
        c->act[c->nr++] = callee_signal;
        return DWARF_CB_ABORT;
    }
    if (c->arch->pc_is_dwarf && !has_fde(sp->dwfl, addr) &&
        (g = guess_caller(c, state, c->pcs[c->nr], resumed ? c->resume_as_is : as_is)) >= 0) {
        c->act[c->nr++] = callee_signal;
        if (g == 0 || c->nr >= c->max)
            return DWARF_CB_ABORT;
        if (c->resume_pc == 0) {        /* one more frame for libunwind, the last */
            c->pcs[c->nr] = 0;
            c->act[c->nr++] = 0;
            return DWARF_CB_ABORT;
        }
        c->resume = 1;
        return DWARF_CB_ABORT;
    }
    if (!dwfl_frame_pc(state, &pc, &act))
        return DWARF_CB_ABORT;
    if (as_is || c->nr_zero != nr_zero) {
        note_row(c, sp->dwfl, state, addr);
    } else {
        c->signal = act;
    }
    c->act[c->nr] = resumed ? 0 : act;
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

void ps_unwinder__note_sample(ps_unwinder *u, const ps_sample *smp)
{
    if (!u->seen_sample) {      /* the sample that gives perf its arch (arch_unknown()) */
        u->seen_sample = 1;
        u->first_sample = smp->time;
    }
}

size_t ps_unwinder__user(ps_unwinder *u, const ps_sample *smp, uint64_t t,
                         uint64_t *ips, size_t max)
{
    struct wanted w = { NULL, 0, 0 };
    struct space *sp;
    struct ctx c;
    uint64_t ip, ip0, dyn;
    size_t i, n = 0;
    int rc;

    ps_unwinder__note_sample(u, smp);
    if (max == 0 || !ps_unwind__wanted(smp) ||
        !gate_open(u, ps_machine__user_maps(u->m, smp->pid, smp->tid, t), t))
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
    /* libdwfl ends a chain at a return address of 0; libunwind takes it
     * as one more frame (perf prints 0 - 1), and stops after it */
    rc = dwfl_getthread_frames(sp->dwfl, (pid_t)smp->tid, frame_cb, sp);
    while (c.resume) {                  /* on from a guessed caller */
        c.resume = 0;
        c.resumed = 1;
        c.walk_start = c.nr;
        rc = dwfl_getthread_frames(sp->dwfl, (pid_t)smp->tid, frame_cb, sp);
    }
    if (rc == 0 && c.nr > 0 && c.nr < c.max && c.has_ra_slot && read_word(&c, c.ra_slot, &ip0) == 0 &&
        ip0 == 0) {
        c.pcs[c.nr] = 0;
        c.act[c.nr++] = c.signal;
    }
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
                     ps_symbols *syms, ps_error *err)
{
    ps_unwinder *u = calloc(1, sizeof(*u));
    struct utsname uts;

    *out = NULL;
    if (u == NULL)
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "unwind: out of memory");
    ps_arena__init(&u->arena);
    u->m = m;
    u->feat = feat;
    u->syms = syms;
    u->symfs = syms != NULL ? syms->symfs : "";
    if (uname(&uts) == 0)
        snprintf(u->host_arch, sizeof(u->host_arch), "%s", uts.machine);
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
    free(u->vdso);
    free(u->files.buckets);
    free(u->gates.buckets);
    ps_arena__free(&u->arena);
    free(u);
}
