/* SPDX-License-Identifier: MIT */
/*
 * sym_kernel.c - the kernel's symbols from kallsyms, as perf 6.1's
 * dso__load_kernel_sym() gets them without vmlinux files (facts only):
 *  - which file: --kallsyms FILE if given; else nothing under --symfs;
 *    else /proc/kallsyms when the capture has no kernel build-id or it
 *    equals the running kernel's (/sys/kernel/notes), and kptr_restrict /
 *    perf_event_paranoid let us see addresses; else the build-id cache's
 *    kallsyms; else the "No kallsyms or vmlinux with build-id" warning.
 *  - Types T W D B are kept (either case, no '$' locals); symbols move by
 *    the delta between the file's ref-reloc symbol (the "_text" of
 *    "[kernel.kallsyms]_text") and the map's pgoff. Without that symbol
 *    in the file perf keeps the raw, unfixed symbols.
 *  - "[mod]" symbols leave the kernel tree; a module's DSO gets them
 *    (relative to its map) only if it was first looked at after the
 *    kernel was loaded, as perf hands them out at that moment. The kernel
 *    map then spans its first to last symbol (s->kstart, s->kend).
 * Kernel names are never demangled. Not done: vmlinux, /proc/kcore, .ko
 * files, guest kernels.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sym_kernel.h"

#define KSYM_NAME_MAX   512                    /* perf 6.1's KSYM_NAME_LEN */

/* What perf prints on stderr when it happens: kept for
 * ps_symbols__take_warning() and passed to the warning callback. */
static void set_warning(ps_symbols *s, const char *fmt, const char *arg)
{
    snprintf(s->warning, sizeof(s->warning), fmt, arg);
    s->has_warning = 1;
    if (s->warn != NULL) {
        ps_error w;

        memset(&w, 0, sizeof(w));
        w.code = PS_OK;
        w.offset = PS_NO_OFFSET;
        snprintf(w.msg, sizeof(w.msg), "%s", s->warning);
        s->warn(s->warn_ctx, &w);
    }
}

/* symbol__read_kptr_restrict(): /proc/kallsyms shows zeros to us. */
static int kallsyms_restricted(void)
{
    char line[16] = "";
    int fd, restricted = 0, capable = geteuid() == 0;
    ssize_t n;

    if ((fd = ps_file__open_regular("/proc/sys/kernel/kptr_restrict")) >= 0) {
        if ((n = read(fd, line, sizeof(line) - 1)) > 0) {
            line[n] = '\0';
            restricted = capable ? atoi(line) >= 2 : atoi(line) != 0;
        }
        close(fd);
    }
    if ((fd = ps_file__open_regular("/proc/sys/kernel/perf_event_paranoid")) >= 0) {
        memset(line, 0, sizeof(line));
        if (read(fd, line, sizeof(line) - 1) > 0 && atoi(line) > 1 && !capable)
            restricted = 1;
        close(fd);
    }
    return restricted;
}

/* dso__find_kallsyms(): which kallsyms file stands for the capture's
 * kernel. @return 0 with the path in buf, -1 for none */
static int find_kallsyms(ps_symbols *s, const ps_loadctx *x, char *buf, size_t size)
{
    uint8_t host[PS_BUILD_ID_MAX];
    char hex[2 * PS_BUILD_ID_MAX + 1];
    int n;

    if (!x->has_bid || ((n = ps_build_id__host(host)) > 0 &&
                        ps_build_id__equal(x->bid, x->bid_size, host, (size_t)n))) {
        snprintf(buf, size, "/proc/kallsyms");
        return 0;
    }
    ps_build_id__hex(hex, x->bid, x->bid_size);
    if (ps_path__fmt(buf, size, "%s/[kernel.kallsyms]/%s/kallsyms", s->buildid_dir, hex) == 0 &&
        access(buf, F_OK) == 0)
        return 0;
    if (ps_path__fmt(buf, size, "%s/[kernel.kallsyms]/%s", s->buildid_dir, hex) == 0 &&
        access(buf, F_OK) == 0)
        return 0;
    set_warning(s, "No kallsyms or vmlinux with build-id %s was found", hex);
    return -1;
}

/* kallsyms__parse(): "hex type name[\t[mod]]" lines, through perf's byte
 * reader (a name is cut at 512 bytes, the rest read as the next line). */
typedef int (*ksym_fn)(void *ctx, const char *name, char type, uint64_t start);

static int kallsyms_parse(const char *path, void *ctx, ksym_fn fn)
{
    ps_reader *r = ps_reader__open(path);
    char name[KSYM_NAME_MAX + 2];
    int rc = 0;

    if (r == NULL)
        return -1;
    while (!ps_reader__eof(r) && rc == 0) {
        uint64_t start;
        int type;

        if (ps_reader__hex(r, &start) != ' ') { ps_reader__skip_line(r); continue; }
        type = ps_reader__getc(r);
        if (ps_reader__getc(r) != ' ') { ps_reader__skip_line(r); continue; }
        name[ps_reader__rest(r, name, KSYM_NAME_MAX + 1)] = '\0';
        rc = fn(ctx, name, (char)type, start);
    }
    ps_reader__close(r);
    return rc < 0 ? -1 : 0;
}

/* kallsyms__get_function_start()'s pick: the first T/W/A symbol. */
static int is_function_start(const char *name, char type, const char *want)
{
    char up = (char)(type >= 'a' && type <= 'z' ? type - 32 : type);

    return (up == 'T' || up == 'W' || type == 'A') && strcmp(name, want) == 0;
}

/* ref: the ref-reloc symbol's name (NULL: none wanted), found once in
 * the same pass that loads the symbols rather than in a second read. */
typedef struct kload {
    ps_symtree *t;
    ps_arena   *arena;
    const char *ref;
    uint64_t    ref_start;
    int         ref_found;
} kload;

/* map__process_kallsym_symbol(): T W D B (either case), no '$' locals. */
static int kload_cb(void *ctx, const char *name, char type, uint64_t start)
{
    kload *k = ctx;
    char up = (char)(type >= 'a' && type <= 'z' ? type - 32 : type);
    uint8_t binding = type == 'W' ? STB_WEAK
                    : (type >= 'A' && type <= 'Z') ? STB_GLOBAL : STB_LOCAL;

    if (k->ref != NULL && !k->ref_found && is_function_start(name, type, k->ref)) {
        k->ref_start = start;
        k->ref_found = 1;
    }
    if ((up != 'T' && up != 'W' && up != 'D' && up != 'B') || name[0] == '$')
        return 0;
    return ps_symtree__add(k->t, k->arena, start, 0, binding,
                           (up == 'T' || up == 'W') ? STT_FUNC : STT_OBJECT, name, 0) < 0 ? -1 : 0;
}

/* Group the module symbols (name "sym\t[mod]") by module, in order, and
 * take them (and the x86_64 entry trampolines) out of the kernel tree; the
 * rest move by -delta. As perf's maps__split_kallsyms(). */
static int split_kallsyms(ps_symbols *s, ps_symtree *t, uint64_t delta)
{
    size_t nr, i, k = 0;
    int32_t *v = ps_symtree__inorder(t, &nr);

    if (v == NULL || (s->kmod_nodes = calloc(nr ? nr : 1, sizeof(*s->kmod_nodes))) == NULL ||
        (s->kmods = calloc(nr ? nr : 1, sizeof(*s->kmods))) == NULL) {
        free(v);
        return -1;
    }
    for (i = 0; i < nr; i++) {
        ps_sym_node *nd = &t->n[v[i]];
        char *tab = strchr(nd->sym.name, '\t');

        if (tab != NULL) {
            ps_kmod_syms *m = s->nr_kmods ? &s->kmods[s->nr_kmods - 1] : NULL;

            *tab = '\0';                /* the name is ours, in the arena */
            if (m == NULL || strcmp(m->name, tab + 1) != 0) {
                m = &s->kmods[s->nr_kmods++];
                m->name = tab + 1;
                m->first = k;
                m->nr = 0;
            }
            s->kmod_nodes[k++] = *nd;
            m->nr++;
            ps_symtree__erase(t, v[i]);
        } else if (strcmp(nd->sym.name, "__entry_SYSCALL_64_trampoline") == 0) {
            ps_symtree__erase(t, v[i]);
        } else {
            nd->sym.start -= delta;
            nd->sym.end -= delta;
        }
    }
    s->nr_kmod_nodes = k;
    free(v);
    return 0;
}

/* A running kernel has some 10^5 symbols: room for them up front saves
 * the tree's array its copies while it doubles (untouched room costs no
 * memory). Failing is harmless: the tree grows as before. */
#define KSYM_RESERVE    ((size_t)1 << 17)

/* Ask for 2 MiB pages where the node array has whole ones: its first
 * touches are most of the cost of building the tree (page faults), and
 * they come 512 times less often. Only advice; nothing depends on it. */
static void huge_pages(void *p, size_t size)
{
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t from = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t to = ((uintptr_t)p + size) & ~(huge - 1);

    if (to > from)
        madvise((void *)from, to - from, MADV_HUGEPAGE);
}

/* dso__load_kallsyms() into the kernel's tree t, map being the kernel map. */
static void load_kallsyms(ps_symbols *s, ps_symtree *t, const ps_map *map, const char *path)
{
    const char *ref = strrchr(map->filename, ']');
    kload kl = { t, &s->arena, NULL, 0, 0 };
    uint64_t delta = 0;
    int32_t first, last;

    if (strcmp(path, "/proc/kallsyms") == 0) {
        if (kallsyms_restricted())
            return;
        if (ps_grow((void **)&t->n, &t->cap, KSYM_RESERVE, sizeof(*t->n)) == 0)
            huge_pages(t->n, t->cap * sizeof(*t->n));
    }
    if (map->pgoff != 0 && ref != NULL)         /* ref_reloc_sym, e.g. "_text" */
        kl.ref = ref + 1;
    if (kallsyms_parse(path, &kl, kload_cb) < 0)
        return;
    if (kl.ref != NULL) {
        if (!kl.ref_found)
            return;                             /* perf keeps the raw symbols */
        delta = kl.ref_start - map->pgoff;
    }
    if (ps_symtree__fixup_end(t, 1) < 0 || ps_symtree__fixup_duplicate(t) < 0 ||
        split_kallsyms(s, t, delta) < 0)
        return;
    s->kernel_syms = 1;
    first = ps_symtree__first(t);
    last = ps_symtree__last(t);
    if (first != PS_SYM_NIL) {
        s->kstart = t->n[first].sym.start;
        s->kend = t->n[last].sym.end;
    }
}

void ps_kernel__load(ps_symbols *s, ps_symtree *t, const ps_map *map)
{
    char path[PS_PATH_MAX];
    ps_loadctx x;

    memset(&x, 0, sizeof(x));
    x.has_bid = ps_build_id__expected(x.bid, &x.bid_size, s->feat, map, "[kernel.kallsyms]");
    if (s->kallsyms != NULL) {
        if (ps_path__fmt(path, sizeof(path), "%s", s->kallsyms) < 0)
            return;
    } else if (s->symfs[0] != '\0' || find_kallsyms(s, &x, path, sizeof(path)) < 0) {
        return;
    }
    load_kallsyms(s, t, map, path);
}

void ps_kernel__load_module(ps_symtree *t, const ps_symbols *s, const ps_map *map,
                            const char *name)
{
    size_t i, j;

    if (!s->kernel_syms)
        return;
    for (i = 0; i < s->nr_kmods; i++) {
        if (strcmp(s->kmods[i].name, name) != 0)
            continue;
        for (j = 0; j < s->kmods[i].nr; j++) {
            const ps_sym_node *nd = &s->kmod_nodes[s->kmods[i].first + j];

            if (ps_symtree__insert(t, nd->sym.start - map->start, nd->sym.end - map->start,
                                   nd->binding, nd->type, nd->sym.name) < 0)
                return;
        }
    }
}
