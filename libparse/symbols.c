/* SPDX-License-Identifier: MIT */
/*
 * symbols.c - address -> DSO -> symbol, answering what `perf script` of
 * perf 6.1 prints as "sym+0xoff (dso)" for the same capture on the same
 * machine (DESIGN.md "symbols.c"). Every rule was read from perf 6.1
 * (facts only) and checked against the installed perf with small captures.
 *
 * Owns: the DSO cache (one entry per file + build-id, per kernel, module,
 * JIT map, KSYMBOL map; each loaded once, lazily, on its first lookup),
 * which DSO perf gives a map and under which name, the map-relative
 * address it looks up, and the public API of symbols.h. Never reads a
 * capture, never decides which map an address is in (machine.c does),
 * never prints.
 *
 * The work is done below, one concern a file; none calls back up here:
 *   symtree.c     perf's red-black symbol tree, lookups and fixups
 *   demangle.c    perf's demangle_sym() (libiberty + Rust/OCaml/Java)
 *   sym_io.c      untrusted files: regular files only, capped reads
 *   sym_buildid.c build-ids: ELF notes, comparison, the expected one
 *   sym_elf.c     ELF symbol tables through libelf (dso__load_sym)
 *   sym_plt.c     "name@plt" symbols
 *   sym_user.c    dso__load()'s candidate files; the vdso
 *   sym_jit.c     /tmp/perf-PID.map
 *   sym_kernel.c  kallsyms, relocation, module symbols
 *   sym_kmod.c    module names
 * symbols_int.h holds the session state they share.
 *
 * Rules kept here, mirrored from perf 6.1:
 *  - Expected build-id of a file: the MMAP2 record's, else the BUILD_ID
 *    feature entry with the same file name, else the file's own; a file
 *    with another build-id is another DSO.
 *  - Anonymous executable maps are "/tmp/perf-PID.map" (PID of the
 *    process that mapped them); non-executable ones keep their name and
 *    have no symbols.
 *  - perf's symoff for a zero-size symbol hit at its start is counted from
 *    the map start (rel - map start - sym start).
 *  - Once the kernel's symbols are loaded its map spans them only: a later
 *    kernel address outside finds no map ("[unknown]").
 *
 * Untrusted paths: see sym_io.c. Anything wrong gives "no symbols", never
 * an error or a hang. Not done (perf would, in setups this machine
 * lacks): vmlinux files and /proc/kcore for the kernel, .ko files for
 * modules, guest kernels, PowerPC .opd, perf's namespace (setns) lookups
 * of JIT maps.
 */
#include <libelf.h>
#include <stdio.h>
#include "sym_jit.h"
#include "sym_kernel.h"
#include "sym_kmod.h"
#include "sym_user.h"

enum ps_dso_kind {
    PS_DSO_ELF, PS_DSO_VDSO, PS_DSO_PERFMAP, PS_DSO_KERNEL, PS_DSO_MODULE, PS_DSO_KSYMBOL,
    PS_DSO_NONE
};

struct ps_dso {
    int          kind;          /* PS_DSO_* */
    const char  *key;           /* arena: what it is looked up by */
    const char  *name;          /* arena: what perf prints */
    uint8_t      bid[PS_BUILD_ID_MAX];
    uint8_t      bid_size;
    int          has_bid;
    int          loaded;
    ps_symtree   syms;
    const char  *srcfile;       /* arena: what perf hands addr2line, or NULL */
    uint64_t     objdump_delta; /* file offset -> that file's addresses */
    ps_dso      *next;          /* hash chain */
};

struct ps_map_dso { const ps_map *map; ps_dso *d; };

/* ------------------------------------------------------------------------ */
/* The DSO cache                                                            */

static uint64_t hash_str(const char *s, uint64_t h)
{
    while (*s)
        h = (h ^ (uint8_t)*s++) * UINT64_C(0x100000001b3);
    return h;
}

static uint64_t dso_hash(int kind, const char *key, const uint8_t *bid, size_t n)
{
    uint64_t h = hash_str(key, UINT64_C(0xcbf29ce484222325) ^ (uint64_t)kind);
    size_t i;

    for (i = 0; i < n; i++)
        h = (h ^ bid[i]) * UINT64_C(0x100000001b3);
    return h;
}

static int dso_matches(const ps_dso *d, int kind, const char *key, const uint8_t *bid,
                       size_t n, int has_bid)
{
    return d->kind == kind && strcmp(d->key, key) == 0 && d->has_bid == has_bid &&
           (!has_bid || (d->bid_size == n && memcmp(d->bid, bid, n) == 0));
}

static int grow_buckets(ps_symbols *s)
{
    size_t nb = s->nr_buckets ? s->nr_buckets * 2 : 64, i;
    ps_dso **b = calloc(nb, sizeof(*b));

    if (b == NULL)
        return -1;
    for (i = 0; i < s->nr_buckets; i++) {
        ps_dso *d = s->buckets[i], *next;

        for (; d != NULL; d = next) {
            uint64_t h = dso_hash(d->kind, d->key, d->bid, d->has_bid ? d->bid_size : 0);

            next = d->next;
            d->next = b[h & (nb - 1)];
            b[h & (nb - 1)] = d;
        }
    }
    free(s->buckets);
    s->buckets = b;
    s->nr_buckets = nb;
    return 0;
}

/* The DSO of this identity, made (not loaded) when new. NULL: no memory. */
static ps_dso *dso_findnew(ps_symbols *s, int kind, const char *key, const char *name,
                           const uint8_t *bid, size_t bid_size, int has_bid)
{
    size_t n = has_bid ? bid_size : 0;
    uint64_t h = dso_hash(kind, key, bid, n);
    ps_dso *d;

    if (s->nr_buckets) {
        for (d = s->buckets[h & (s->nr_buckets - 1)]; d != NULL; d = d->next)
            if (dso_matches(d, kind, key, bid, n, has_bid))
                return d;
    }
    if (s->nr_dsos + 1 > s->nr_buckets && grow_buckets(s) < 0)
        return NULL;
    if ((d = ps_arena__alloc(&s->arena, sizeof(*d))) == NULL ||
        (d->key = ps_arena__strndup(&s->arena, key, strlen(key))) == NULL ||
        (d->name = ps_arena__strndup(&s->arena, name, strlen(name))) == NULL)
        return NULL;
    d->kind = kind;
    d->has_bid = has_bid;
    d->bid_size = (uint8_t)n;
    if (n)
        memcpy(d->bid, bid, n);
    ps_symtree__init(&d->syms);
    d->next = s->buckets[h & (s->nr_buckets - 1)];
    s->buckets[h & (s->nr_buckets - 1)] = d;
    s->nr_dsos++;
    return d;
}

/* The DSO a map resolved to before, so the path/name work is done once. */
static ps_dso **by_map_slot(ps_symbols *s, const ps_map *map)
{
    size_t i = ((uintptr_t)map >> 4) * UINT64_C(0x9e3779b97f4a7c15) & (s->by_map_cap - 1);

    while (s->by_map[i].map != NULL && s->by_map[i].map != map)
        i = (i + 1) & (s->by_map_cap - 1);
    s->by_map[i].map = map;
    return &s->by_map[i].d;
}

static int by_map_reserve(ps_symbols *s)
{
    size_t cap = s->by_map_cap ? s->by_map_cap * 2 : 256, i, old = s->by_map_cap;
    ps_map_dso *prev = s->by_map;

    if ((s->by_map_nr + 1) * 2 <= s->by_map_cap)
        return 0;
    if ((s->by_map = calloc(cap, sizeof(*s->by_map))) == NULL) {
        s->by_map = prev;
        return -1;
    }
    s->by_map_cap = cap;
    for (i = 0; i < old; i++)
        if (prev[i].map != NULL)
            *by_map_slot(s, prev[i].map) = prev[i].d;
    free(prev);
    return 0;
}

/* A DSO just loaded: its tree is final, drop the erased nodes. */
static ps_dso *dso_done(ps_symbols *s, ps_dso *d)
{
    if (ps_symtree__compact(&d->syms) == 0)
        s->nr_syms += d->syms.nr;
    return d;
}

/* ------------------------------------------------------------------------ */
/* Which DSO perf gives a map                                               */

/* perf's srcline_dso_name(): the file the symbols came from, else the
 * DSO's own name; none for "[...]" names and perf-PID.map files. */
static void set_srcfile(ps_dso *d, const ps_loadctx *x)
{
    const char *name = x->symsrc ? x->symsrc : x->is_vdso ? NULL : d->key;

    d->objdump_delta = x->objdump_delta;
    if (name != NULL && name[0] != '[' && strncmp(name, "/tmp/perf-", 10) != 0)
        d->srcfile = name;
}

static ps_dso *file_dso(ps_symbols *s, const ps_map *map)
{
    ps_loadctx x;
    ps_dso *d;

    memset(&x, 0, sizeof(x));
    x.long_name = map->filename;
    x.has_bid = ps_build_id__expected(x.bid, &x.bid_size, s->feat, map, map->filename);
    if ((d = dso_findnew(s, PS_DSO_ELF, map->filename, map->filename, x.bid, x.bid_size,
                         x.has_bid)) == NULL || d->loaded)
        return d;
    d->loaded = 1;
    ps_user__load_file(s, &d->syms, &x);
    set_srcfile(d, &x);
    return dso_done(s, d);
}

/* [vdso]: named by the BUILD_ID feature, perf's DSO has no file (only the
 * build-id cache); otherwise the file is this process's own vdso. */
static ps_dso *vdso_dso(ps_symbols *s, const ps_map *map)
{
    const ps_feat_build_id *e = ps_build_id__header_entry(s->feat, map->filename);
    int own = e == NULL && strcmp(map->filename, "[vdso]") == 0;
    ps_loadctx x;
    ps_dso *d;

    memset(&x, 0, sizeof(x));
    x.is_vdso = 1;
    x.long_name = own ? PS_VDSO_IMAGE : map->filename;
    x.has_bid = ps_build_id__expected(x.bid, &x.bid_size, s->feat, e ? NULL : map,
                                      map->filename);
    if ((d = dso_findnew(s, PS_DSO_VDSO, x.long_name, map->filename, x.bid, x.bid_size,
                         x.has_bid)) == NULL || d->loaded)
        return d;
    d->loaded = 1;
    ps_user__load_vdso(s, &d->syms, &x, own);
    set_srcfile(d, &x);
    return dso_done(s, d);
}

static ps_dso *perfmap_dso(ps_symbols *s, const ps_map *map, uint32_t pid)
{
    char name[PS_JIT_PATH_MAX];
    const char *dname = map->filename;
    uint32_t owner = map->pid != UINT32_MAX ? map->pid : pid;
    ps_dso *d;

    if (ps_jit__is_anon(map)) {
        if (!ps_jit__is_exec(map))
            return dso_findnew(s, PS_DSO_NONE, map->filename, map->filename, NULL, 0, 0);
        ps_jit__path(name, owner);
        dname = name;
    }
    if ((d = dso_findnew(s, PS_DSO_PERFMAP, dname, dname, NULL, 0, 0)) == NULL || d->loaded)
        return d;
    d->loaded = 1;
    ps_jit__load(&d->syms, &s->arena, owner);
    return dso_done(s, d);
}

static ps_dso *kernel_dso(ps_symbols *s, const ps_map *map)
{
    int guest = strncmp(map->filename, "[guest.kernel.kallsyms", 22) == 0;
    const char *name = guest ? "[guest.kernel.kallsyms]" : "[kernel.kallsyms]";
    ps_dso *d = dso_findnew(s, PS_DSO_KERNEL, name, name, NULL, 0, 0);

    if (d == NULL || d->loaded)
        return d;
    d->loaded = 1;
    if (!guest) {
        ps_kernel__load(s, &d->syms, map);
        s->kernel = d;
    }
    return dso_done(s, d);
}

/* A module's DSO: its kallsyms symbols if the kernel was loaded before the
 * module was first looked at (perf hands them out when it loads the
 * kernel, to modules not loaded yet). */
static ps_dso *module_dso(ps_symbols *s, const ps_map *map)
{
    char name[PS_PATH_MAX];
    ps_dso *d;

    ps_kmod__name(map->filename, name, sizeof(name));
    if ((d = dso_findnew(s, PS_DSO_MODULE, name, ps_kmod__print_name(s->feat, name), NULL, 0,
                         0)) == NULL || d->loaded)
        return d;
    d->loaded = 1;
    ps_kernel__load_module(&d->syms, s, map, name);
    return dso_done(s, d);
}

/* KSYMBOL: one symbol named like its map over the whole of it. */
static ps_dso *ksymbol_dso(ps_symbols *s, const ps_map *map)
{
    char key[64];
    ps_dso *d;

    snprintf(key, sizeof(key), "%p", (const void *)map);
    if ((d = dso_findnew(s, PS_DSO_KSYMBOL, key, map->filename, NULL, 0, 0)) == NULL || d->loaded)
        return d;
    d->loaded = 1;
    ps_symtree__insert(&d->syms, 0, map->end - map->start, STB_GLOBAL, STT_FUNC, d->name);
    return dso_done(s, d);
}

/* ------------------------------------------------------------------------ */
/* Public                                                                   */

static const char *arena_name(ps_symbols *s, const char *name)
{
    return ps_arena__strndup(&s->arena, name, strlen(name));
}

int ps_symbols__new(ps_symbols **out, const ps_symbols_opts *opts,
                    const ps_features *feat, ps_error *err)
{
    ps_symbols *s = calloc(1, sizeof(*s));
    const char *home = getenv("HOME");

    *out = NULL;
    if (s == NULL)
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "symbols: out of memory");
    ps_arena__init(&s->arena);
    s->feat = feat;
    s->demangle = opts ? opts->demangle : 1;
    s->symfs = arena_name(s, opts && opts->symfs ? opts->symfs : "");
    s->kallsyms = opts && opts->kallsyms ? arena_name(s, opts->kallsyms) : NULL;
    if (s->symfs == NULL || (opts && opts->kallsyms && s->kallsyms == NULL)) {
        ps_symbols__free(s);
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "symbols: out of memory");
    }
    if (opts) { s->warn = opts->warn; s->warn_ctx = opts->warn_ctx; s->ksyms = opts->ksyms; }
    /* perf: --symfs moves the build-id cache to SYMFS/.debug */
    if (opts && opts->symfs && opts->symfs[0])
        snprintf(s->buildid_dir, sizeof(s->buildid_dir), "%s/.debug", opts->symfs);
    else if (opts && opts->buildid_dir)
        snprintf(s->buildid_dir, sizeof(s->buildid_dir), "%s", opts->buildid_dir);
    else
        snprintf(s->buildid_dir, sizeof(s->buildid_dir), "%s%s.debug", home ? home : "",
                 home ? "/" : "");
    elf_version(EV_CURRENT);
    ps_kernel__prefetch(s);
    *out = s;
    return PS_OK;
}

void ps_symbols__free(ps_symbols *s)
{
    size_t i;

    if (s == NULL)
        return;
    for (i = 0; i < s->nr_buckets; i++) {
        ps_dso *d;

        for (d = s->buckets[i]; d != NULL; d = d->next)
            ps_symtree__free(&d->syms);
    }
    free(s->buckets);
    free(s->by_map);
    free(s->kmod_nodes);
    free(s->kmods);
    free(s->vdso_image);
    ps_arena__free(&s->arena);
    free(s);
}

/* Which DSO perf gives a map, loaded now if it is its first use. */
static ps_dso *map_dso(ps_symbols *s, const ps_map *map, uint32_t pid)
{
    ps_dso *d = NULL;

    switch (map->kind) {
    case PS_MAP_FILE:    d = file_dso(s, map); break;
    case PS_MAP_VDSO:    d = vdso_dso(s, map); break;
    case PS_MAP_ANON:
    case PS_MAP_NO_DSO:  d = perfmap_dso(s, map, pid); break;
    case PS_MAP_KERNEL:  d = kernel_dso(s, map); break;
    case PS_MAP_MODULE:  d = module_dso(s, map); break;
    case PS_MAP_KSYMBOL: d = ksymbol_dso(s, map); break;
    default:             break;
    }
    return d;
}

/* The map-relative address perf looks symbols up with (map->map_ip). */
static uint64_t map_rel(const ps_map *map, uint64_t addr)
{
    switch (map->kind) {
    case PS_MAP_KERNEL:
        return addr;
    case PS_MAP_MODULE:
    case PS_MAP_KSYMBOL:
        return addr - map->start;
    case PS_MAP_ANON:
    case PS_MAP_NO_DSO:
        return ps_jit__is_anon(map) ? addr : ps_map__rel(map, addr);
    default:
        return ps_map__rel(map, addr);
    }
}

/* The DSO perf gives map (loaded on first use), remembered per map. */
static ps_dso *dso_of(ps_symbols *s, const ps_map *map, uint32_t pid)
{
    ps_dso **slot = NULL, *d;

    if (by_map_reserve(s) == 0) {
        slot = by_map_slot(s, map);
        if (*slot == NULL)
            s->by_map_nr++;
    }
    if ((d = slot && *slot ? *slot : map_dso(s, map, pid)) != NULL && slot)
        *slot = d;
    return d;
}

void ps_symbols__resolve(ps_symbols *s, const ps_map *map, uint32_t pid,
                         uint64_t addr, ps_resolved *out)
{
    const ps_sym_node *nd;
    uint64_t map_start;
    ps_dso *d;
    int kernel_before;

    memset(out, 0, sizeof(*out));
    out->dso = "[unknown]";
    out->rel = addr;
    if (map == NULL)
        return;
    kernel_before = s->kernel_syms;
    if ((d = dso_of(s, map, pid)) == NULL)
        return;
    map_start = map->start;
    if (map->kind == PS_MAP_KERNEL && d == s->kernel && s->kernel_syms) {
        /* perf shrank the kernel map to its symbols when it loaded them:
         * later lookups outside find no map at all */
        if (kernel_before && (addr < s->kstart || addr >= s->kend))
            return;
        map_start = s->kstart;
    }
    out->dso = d->name;
    out->rel = map_rel(map, addr);
    if ((nd = ps_symtree__find(&d->syms, out->rel)) == NULL)
        return;
    out->sym = &nd->sym;
    /* perf's symoff: a zero-size symbol hit at its start is offset from
     * the map start (__symbol__fprintf_symname_offs) */
    out->symoff = out->rel < nd->sym.end ? out->rel - nd->sym.start
                                         : out->rel - map_start - nd->sym.start;
}

const ps_sym *ps_symbols__find_rel(ps_symbols *s, const ps_map *map, uint32_t pid,
                                   uint64_t rel)
{
    const ps_sym_node *nd;
    ps_dso *d;

    if (map == NULL || (d = dso_of(s, map, pid)) == NULL)
        return NULL;
    nd = ps_symtree__find(&d->syms, rel);
    return nd != NULL ? &nd->sym : NULL;
}

int ps_symbols__kernel_extent(const ps_symbols *s, uint64_t *start, uint64_t *end)
{
    if (!s->kernel_syms)
        return 0;
    *start = s->kstart;
    *end = s->kend;
    return 1;
}

const char *ps_symbols__take_warning(ps_symbols *s)
{
    if (!s->has_warning)
        return NULL;
    s->has_warning = 0;
    return s->warning;
}

uint64_t ps_symbols__nr_dsos(const ps_symbols *s) { return s->nr_dsos; }
uint64_t ps_symbols__nr_syms(const ps_symbols *s) { return s->nr_syms; }

const char *ps_symbols__srcfile(const ps_symbols *s, const ps_map *map, uint64_t *delta)
{
    size_t i;

    *delta = 0;
    if (s->by_map_cap == 0 || map == NULL)
        return NULL;
    i = ((uintptr_t)map >> 4) * UINT64_C(0x9e3779b97f4a7c15) & (s->by_map_cap - 1);
    for (; s->by_map[i].map != NULL; i = (i + 1) & (s->by_map_cap - 1)) {
        if (s->by_map[i].map != map)
            continue;
        if (s->by_map[i].d == NULL)
            return NULL;
        *delta = s->by_map[i].d->objdump_delta;
        return s->by_map[i].d->srcfile;
    }
    return NULL;
}
