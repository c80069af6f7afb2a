/* SPDX-License-Identifier: MIT */
/*
 * sym_user.c - dso__load() for user-space files and the vdso (see
 * sym_user.h), as perf 6.1 does it (facts only):
 *  - the candidates, in order: the .gnu_debuglink file, the build-id
 *    cache (elf, debug), /usr/lib/debug forms (Fedora, Ubuntu, by
 *    build-id), the file itself, .debug/ beside it, the mixed-up Ubuntu
 *    form; all under --symfs. A candidate whose build-id differs from the
 *    expected one is skipped.
 *  - The first with .symtab gives the symbols, the first with .dynsym the
 *    runtime view (file offsets, PLT); .dynsym alone when no .symtab is
 *    found.
 *  - [vdso]: when the capture's BUILD_ID feature names it, only the
 *    build-id cache can give symbols; otherwise this process's own vdso
 *    image is the file (checked against an MMAP2 build-id when there is
 *    one), and never under --symfs.
 * Never touches the DSO cache; a file that is missing or wrong gives no
 * symbols.
 */
#include <stdio.h>
#include <sys/auxv.h>
#include "sym_elf.h"
#include "sym_plt.h"
#include "sym_user.h"

enum cand {
    C_DEBUGLINK, C_CACHE, C_CACHE_DEBUG, C_FEDORA, C_UBUNTU, C_BUILDID_DEBUG,
    C_SYSTEM, C_OPENEMBEDDED, C_MIXEDUP_UBUNTU, NR_CANDS
};

/* dso__build_id_filename(): $cache/.build-id/xx/rest when that is a file
 * (old layout), else that directory + "elf", "debug" or "vdso". */
int ps_user__cache_path(const ps_symbols *s, const ps_loadctx *x, int debug, char *buf,
                        size_t size)
{
    char hex[2 * PS_BUILD_ID_MAX + 1], link[PS_PATH_MAX];

    if (!x->has_bid || x->bid_size == 0)   /* hex + 2 below needs two digits */
        return -1;
    ps_build_id__hex(hex, x->bid, x->bid_size);
    if (ps_path__fmt(link, sizeof(link), "%s/.build-id/%.2s/%s", s->buildid_dir, hex, hex + 2) < 0)
        return -1;
    if (ps_file__is_regular(link))
        return ps_path__fmt(buf, size, "%s", link);
    return ps_path__fmt(buf, size, "%s/%s", link, x->is_vdso ? "vdso" : debug ? "debug" : "elf");
}

/* DEBUGLINK: the .gnu_debuglink name, looked for as perf's four forms
 * (the bare name, beside the file, in .debug/ beside it, under
 * /usr/lib/debug + the file's directory). */
static int debuglink_path(const ps_symbols *s, const ps_loadctx *x, char *buf, size_t size)
{
    static const char *const forms[] = { "%.0s%s", "%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s" };
    char file[PS_PATH_MAX], dir[PS_PATH_MAX], link[PS_PATH_MAX];
    const char *slash;
    size_t i;

    if (ps_path__join(file, sizeof(file), s->symfs, x->long_name) < 0)
        return -1;
    slash = strrchr(file, '/');
    memcpy(dir, file, slash ? (size_t)(slash - file) : 0);
    dir[slash ? slash - file : 0] = '\0';
    if (!ps_file__is_regular(file) || ps_elf__file_debuglink(file, link, sizeof(link)) < 0)
        return -1;
    for (i = 0; i < PS_ARRAY_SIZE(forms); i++) {
        if (ps_path__fmt(buf, size, forms[i], dir, link) == 0 && ps_file__is_regular(buf))
            return 0;
    }
    return -1;
}

/* BUILDID_DEBUG: /usr/lib/debug/.build-id/xx/rest.debug */
static int buildid_debug_path(const ps_symbols *s, const ps_loadctx *x, char *buf, size_t size)
{
    char hex[2 * PS_BUILD_ID_MAX + 1], tmp[PS_PATH_MAX];

    if (!x->has_bid || x->bid_size == 0)   /* hex + 2 below needs two digits */
        return -1;
    ps_build_id__hex(hex, x->bid, x->bid_size);
    if (ps_path__fmt(tmp, sizeof(tmp), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
                     hex + 2) < 0)
        return -1;
    return ps_path__join(buf, size, s->symfs, tmp);
}

/* OPENEMBEDDED: DIR/.debug/BASE; perf keeps a slash-less name's first
 * byte: "[vdso]" gives "[.debug[vdso]". */
static int openembedded_path(const ps_symbols *s, const ps_loadctx *x, char *buf, size_t size)
{
    const char *name = x->long_name, *slash = strrchr(name, '/');
    char root[PS_PATH_MAX];

    slash = slash ? slash : name;
    if (ps_path__join(root, sizeof(root), s->symfs, "") < 0)
        return -1;
    return ps_path__fmt(buf, size, "%s%.*s.debug%s", root, (int)(slash - name) + 1, name, slash);
}

/* The candidates that are the file name in a format, under --symfs. */
static const char *const name_forms[NR_CANDS] = {
    [C_FEDORA]         = "/usr/lib/debug%s.debug",
    [C_UBUNTU]         = "/usr/lib/debug%s",
    [C_SYSTEM]         = "%s",
    [C_MIXEDUP_UBUNTU] = "/usr/lib/debug%s",        /* of "/usr/lib/..." less "/usr" */
};

/* dso__read_binary_type_filename() for the user-space types.
 * @return 0 with the path in buf, or -1 when the type does not apply */
static int cand_path(const ps_symbols *s, const ps_loadctx *x, int type, char *buf, size_t size)
{
    const char *name = x->long_name;
    char tmp[PS_PATH_MAX];

    switch (type) {
    case C_DEBUGLINK:     return debuglink_path(s, x, buf, size);
    case C_CACHE:         return ps_user__cache_path(s, x, 0, buf, size);
    case C_CACHE_DEBUG:   return ps_user__cache_path(s, x, 1, buf, size);
    case C_BUILDID_DEBUG: return buildid_debug_path(s, x, buf, size);
    case C_OPENEMBEDDED:  return openembedded_path(s, x, buf, size);
    case C_MIXEDUP_UBUNTU:
        if (strncmp(name, "/usr/lib/", 9) != 0)
            return -1;
        name += 4;
        break;
    default:
        break;
    }
    if (type < 0 || type >= NR_CANDS || name_forms[type] == NULL ||
        ps_path__fmt(tmp, sizeof(tmp), name_forms[type], name) < 0)
        return -1;
    return ps_path__join(buf, size, s->symfs, tmp);
}

/* Open one candidate; the vdso image stands in for its own path. */
static int cand_open(ps_symbols *s, const ps_loadctx *x, const char *path, ps_symsrc *ss)
{
    const uint8_t *bid = x->has_bid ? x->bid : NULL;
    char own[PS_PATH_MAX];

    if (x->is_vdso && x->long_name[0] == PS_VDSO_IMAGE[0]) {
        if (ps_path__join(own, sizeof(own), s->symfs, PS_VDSO_IMAGE) == 0 && strcmp(path, own) == 0)
            return s->symfs[0] ? -1 : ps_symsrc__open(ss, NULL, s->vdso_image, s->vdso_size,
                                                      bid, x->bid_size);
    }
    return ps_symsrc__open(ss, path, NULL, 0, bid, x->bid_size);
}

/* map__rip_2objdump() for a user DSO: perf 6.1 adjusts the symbols of
 * every user-space file (symsrc__init() sets adjust_symbols for them), so
 * it moves every address it hands addr2line by .text's address - offset
 * (dso->text_offset), ET_DYN files included: 0 for what GNU ld links,
 * a page for a PIE whose segments lld (rustc's linker) places a page
 * past their file offsets. */
static uint64_t objdump_delta(const ps_symsrc *run)
{
    GElf_Shdr sh;

    if (ps_elf__section_by_name(run->elf, &run->ehdr, &sh, ".text", NULL) == NULL)
        return 0;
    return sh.sh_addr - sh.sh_offset;
}

/* Load a user-space DSO: the first candidate with .symtab gives the
 * symbols, the first with .dynsym the runtime view (PLT). */
static void load_user_dso(ps_symbols *s, ps_symtree *t, ps_loadctx *x)
{
    ps_symsrc ss[2], cur, *syms = NULL, *run = NULL;
    char path[PS_PATH_MAX];
    int type, used = 0;
    long nr;

    for (type = 0; type < NR_CANDS && !(syms && run); type++) {
        int take_syms, take_run;

        if (cand_path(s, x, type, path, sizeof(path)) < 0 || cand_open(s, x, path, &cur) < 0)
            continue;
        take_syms = syms == NULL && cur.symtab != NULL;
        take_run = run == NULL && cur.dynsym != NULL;
        if (!take_syms && !take_run) {
            ps_symsrc__close(&cur);
            continue;
        }
        ss[used] = cur;
        if (take_syms) {
            syms = &ss[used];
            if (!x->is_vdso)        /* perf's dso->symsrc_filename */
                x->symsrc = ps_arena__strndup(&s->arena, path, strlen(path));
        }
        if (take_run) run = &ss[used];
        used++;
    }
    if (syms == NULL) syms = run;
    if (run == NULL) run = syms;
    if (run != NULL)
        x->objdump_delta = objdump_delta(run);
    if (syms != NULL && (nr = ps_symsrc__load(t, syms, run, &s->arena, s->demangle)) > 0)
        ps_plt__synthesize(t, run, &s->arena, s->demangle);
    while (used > 0)
        ps_symsrc__close(&ss[--used]);
}

/* A copy of this process's [vdso] (perf reads its own, as the one that
 * matches the kernel it runs on). */
static void read_own_vdso(ps_symbols *s)
{
    unsigned long base = getauxval(AT_SYSINFO_EHDR);
    char line[512];
    FILE *f;

    s->vdso_read = 1;
    if (base == 0 || (f = fopen("/proc/self/maps", "re")) == NULL)
        return;
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long lo, hi;

        if (strstr(line, "[vdso]") == NULL || sscanf(line, "%lx-%lx", &lo, &hi) != 2 ||
            lo != base || hi <= lo || hi - lo > (64u << 20))
            continue;
        if ((s->vdso_image = malloc(hi - lo)) != NULL) {
            memcpy(s->vdso_image, (const void *)lo, hi - lo);
            s->vdso_size = hi - lo;
        }
        break;
    }
    fclose(f);
}

const uint8_t *ps_user__vdso_image(ps_symbols *s, size_t *size)
{
    if (!s->vdso_read)
        read_own_vdso(s);
    *size = s->vdso_image != NULL ? s->vdso_size : 0;
    return s->vdso_image;
}

void ps_user__load_file(ps_symbols *s, ps_symtree *t, ps_loadctx *x)
{
    if (!x->has_bid && ps_file__is_regular(x->long_name)) {     /* perf: the bare path */
        char path[PS_PATH_MAX];
        int n;

        if (ps_path__join(path, sizeof(path), s->symfs, x->long_name) == 0 &&
            (n = ps_elf__file_build_id(path, x->bid)) > 0) {
            x->bid_size = (size_t)n;
            x->has_bid = 1;
        }
    }
    load_user_dso(s, t, x);
}

/* Without an expected build-id the image's own is expected (as perf
 * reads the file's). */
void ps_user__load_vdso(ps_symbols *s, ps_symtree *t, ps_loadctx *x, int own)
{
    if (own && !s->vdso_read)
        read_own_vdso(s);
    if (own && s->vdso_image == NULL)
        return;
    if (own && !x->has_bid) {
        ps_symsrc ss;
        int n;

        if (ps_symsrc__open(&ss, NULL, s->vdso_image, s->vdso_size, NULL, 0) == 0) {
            if ((n = ps_elf__build_id(ss.elf, x->bid)) > 0) {
                x->bid_size = (size_t)n;
                x->has_bid = 1;
            }
            ps_symsrc__close(&ss);
        }
    }
    load_user_dso(s, t, x);
}
