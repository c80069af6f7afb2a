/* SPDX-License-Identifier: MIT */
/*
 * resolve.c - samples to threads, maps and symbols (see resolve.h). The
 * rules mirror perf 6.1 (facts, not code):
 *
 *  - A sample's thread is found by tid; an unknown tid is printed ":tid".
 *  - An address is looked up in the kernel maps when its cpumode is kernel
 *    (or guest kernel), in the thread's maps when user; hypervisor and
 *    unknown modes find no map.
 *  - Callchain entries are walked leaf first starting in user mode;
 *    PERF_CONTEXT_{KERNEL,USER,HV} switch the mode and are not frames; any
 *    other marker means a corrupt chain, which perf discards whole. Only
 *    real entries count towards max_stack.
 *  - Samples with user registers and stack (--call-graph dwarf) get their
 *    user part from unwind.c after the callchain's (kernel) part, up to
 *    max_stack more frames, each looked up in user mode.
 *  - Those unwound frames (only those) get their inlined callers from
 *    addr2line (srcline.c) when they have a map and a symbol; inline
 *    entries do not count towards max_stack.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "demangle.h"
#include "resolve.h"
#include "sym_kmod.h"
#include "u64map.h"
#include "unwind.h"

#define MISC_CPUMODE_MASK 7u

struct ps_resolver {
    ps_machine *machine;
    ps_symbols *symbols;
    ps_unwinder *unwinder;
    uint64_t   *ips;            /* owned: unwound addresses, cap_ips */
    size_t      cap_ips;
    int         timed;          /* look up as of the given time, not "now" */
    size_t      unwound_from;   /* the last chain's first unwound frame */
    ps_srcline *srcline;        /* owned */
    int         inline_on, demangle;
    int         full_srcpath;   /* ps_resolver__set_full_srcpath() */
    int         stack_outer;    /* ps_resolver__set_stack_outer() */
    const ps_features *feat;    /* Borrowed: the capture's features */
    ps_frame   *raw, *out;      /* owned: chains before / after expansion */
    size_t      cap_raw, cap_out;
    ps_arena    names;          /* demangled inline names */
    ps_u64map   demangled;      /* raw name pointer -> its demangled copy */
    ps_u64map   prefetched;     /* ps_maps -> its maps srcline was told of */
    size_t      nr_prefetched;  /* files srcline was asked to open ahead */
    struct seen *seen;          /* owned, NSEEN: recent symbol lookups */
};

/*
 * Recent symbol lookups, direct-mapped by (map, pid, address): call chains
 * repeat the same addresses, and a lookup in a kernel's 10^5 symbols walks
 * a deep tree. A lookup's answer depends on nothing else once the map's
 * DSO is loaded (its symbols never change after), except across the load
 * of the kernel's symbols (the kernel map shrinks to them), so an answer
 * during which that load happened is not kept.
 */
#define NSEEN 4096

struct seen {
    const ps_map *map;          /* NULL: empty */
    uint64_t      addr;
    uint32_t      pid;
    ps_resolved   r;
};

/* perf answers every lookup with the state after the records delivered so
 * far ("now"); the machine can also answer as of an earlier time. */
static uint64_t when(const ps_resolver *r, uint64_t t)
{
    return r->timed ? t : UINT64_MAX;
}

void ps_resolver__set_timed(ps_resolver *r, int timed)
{
    r->timed = timed;
}

/* perf registers the idle task before reading: tid 0 is "swapper". */
static int idle_thread(ps_resolver *r, ps_error *err)
{
    ps_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.type = PERF_RECORD_COMM;
    ev.offset = PS_NO_OFFSET;
    ev.has_sample_id = 1;
    ev.sample_id.present = PERF_SAMPLE_TIME;
    ev.u.comm.comm = "swapper";
    return ps_machine__event(r->machine, &ev, err);
}

int ps_resolver__new(ps_resolver **out, const ps_symbols_opts *opts,
                     const ps_features *feat, ps_error *err)
{
    ps_resolver *r = calloc(1, sizeof(*r));

    *out = NULL;
    if (r == NULL)
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "resolve: out of memory");
    ps_arena__init(&r->names);
    ps_u64map__init(&r->demangled);
    ps_u64map__init(&r->prefetched);
    r->inline_on = 1;
    r->feat = feat;
    r->demangle = opts ? opts->demangle : 1;
    r->seen = calloc(NSEEN, sizeof(*r->seen));     /* none: no memo */
    if (ps_srcline__new(&r->srcline) < 0) {
        ps_resolver__free(r);
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "resolve: out of memory");
    }
    if (ps_machine__new(&r->machine, err) < 0 ||
        ps_symbols__new(&r->symbols, opts, feat, err) < 0 ||
        ps_unwinder__new(&r->unwinder, r->machine, feat, r->symbols, err) < 0 ||
        idle_thread(r, err) < 0) {
        ps_resolver__free(r);
        return PS_ENOMEM;
    }
    *out = r;
    return PS_OK;
}

void ps_resolver__free(ps_resolver *r)
{
    if (r == NULL)
        return;
    ps_unwinder__free(r->unwinder);
    free(r->ips);
    free(r->raw);
    free(r->out);
    ps_srcline__free(r->srcline);
    ps_arena__free(&r->names);
    ps_u64map__free(&r->demangled);
    ps_u64map__free(&r->prefetched);
    free(r->seen);
    ps_symbols__free(r->symbols);
    ps_machine__free(r->machine);
    free(r);
}

int ps_resolver__event(ps_resolver *r, const ps_event *ev, ps_error *err)
{
    return ps_machine__event(r->machine, ev, err);
}

const ps_features *ps_resolver__features(const ps_resolver *r)
{
    return r->feat;
}

const ps_machine *ps_resolver__machine(const ps_resolver *r) { return r->machine; }
ps_symbols *ps_resolver__symbols(ps_resolver *r) { return r->symbols; }

const char *ps_resolver__comm(const ps_resolver *r, uint32_t pid, uint32_t tid,
                              uint64_t t, char *buf, size_t size)
{
    const ps_thread *th = ps_machine__thread(r->machine, pid, tid, when(r, t));

    if (th != NULL)
        return ps_thread__comm(th, when(r, t));
    snprintf(buf, size, ":%d", (int)tid);
    return buf;
}

/* Once perf has loaded kernel symbols, its kernel map spans them all, even
 * past the end the MMAP record gave: an address there is the kernel's. */
static const ps_map *kernel_beyond_mmap(ps_resolver *r, uint64_t t, uint64_t addr)
{
    uint64_t start, end;
    const ps_map *k;

    if (!ps_symbols__kernel_extent(r->symbols, &start, &end) || addr < start || addr >= end)
        return NULL;
    k = ps_machine__find_kernel_map(r->machine, when(r, t), ps_machine__kernel_start(r->machine));
    return k != NULL && k->kind == PS_MAP_KERNEL ? k : NULL;
}

/* ps_symbols__resolve(), through the memo of recent lookups. */
static void resolve_sym(ps_resolver *r, const ps_map *map, uint32_t pid, uint64_t addr,
                        ps_resolved *out)
{
    uint64_t h = (addr ^ ((uintptr_t)map >> 4) ^ (uint64_t)pid << 32) *
                 UINT64_C(0x9e3779b97f4a7c15);
    struct seen *e = r->seen ? &r->seen[h >> 52] : NULL;   /* NSEEN = 2^12 */
    uint64_t ks, ke;
    int kernel_before;

    if (e != NULL && e->map == map && e->addr == addr && e->pid == pid && map != NULL) {
        *out = e->r;
        return;
    }
    kernel_before = ps_symbols__kernel_extent(r->symbols, &ks, &ke);
    ps_symbols__resolve(r->symbols, map, pid, addr, out);
    if (e != NULL && map != NULL &&
        kernel_before == ps_symbols__kernel_extent(r->symbols, &ks, &ke)) {
        e->map = map;
        e->addr = addr;
        e->pid = pid;
        e->r = *out;
    }
}

void ps_resolver__addr(ps_resolver *r, uint32_t pid, uint32_t tid, uint64_t t,
                       unsigned cpumode, uint64_t addr, ps_frame *out)
{
    const ps_map *map = NULL;

    switch (cpumode) {
    case PERF_RECORD_MISC_KERNEL:
    case PERF_RECORD_MISC_GUEST_KERNEL:
        map = ps_machine__find_kernel_map(r->machine, when(r, t), addr);
        if (map == NULL)
            map = kernel_beyond_mmap(r, t, addr);
        break;
    case PERF_RECORD_MISC_USER:
    case PERF_RECORD_MISC_GUEST_USER:
        map = ps_machine__find_user_map(r->machine, pid, tid, when(r, t), addr);
        break;
    default:
        break;
    }
    out->ip = addr;
    out->cpumode = cpumode;
    out->map = map;
    out->inl = NULL;
    out->src = NULL;
    resolve_sym(r, map, pid, addr, &out->r);
}

void ps_resolver__addr_fb(ps_resolver *r, uint32_t pid, uint32_t tid, uint64_t t,
                          unsigned cpumode, uint64_t addr, ps_frame *out)
{
    unsigned other = addr >= ps_machine__kernel_start(r->machine) ? PERF_RECORD_MISC_KERNEL
                                                                   : PERF_RECORD_MISC_USER;

    ps_resolver__addr(r, pid, tid, t, cpumode, addr, out);
    if (out->map == NULL && other != cpumode)
        ps_resolver__addr(r, pid, tid, t, other, addr, out);
}

/* A context marker: the new cpumode, or -1 for a marker perf rejects. */
static int context_mode(uint64_t ip)
{
    switch (ip) {
    case PERF_CONTEXT_HV:     return PERF_RECORD_MISC_HYPERVISOR;
    case PERF_CONTEXT_KERNEL: return PERF_RECORD_MISC_KERNEL;
    case PERF_CONTEXT_USER:   return PERF_RECORD_MISC_USER;
    default:                  return -1;
    }
}

/* LBR call stacks (branch_sample_type CALL_STACK): perf keeps the kernel
 * part of the chain (up to PERF_CONTEXT_USER) and takes the user part from
 * the LBR: the first entry's target, then every entry's source. Chains with
 * no user part are walked normally (returns 0 then). */
static size_t lbr_callchain(ps_resolver *r, const ps_sample *smp, unsigned max_stack,
                            ps_frame *frames, size_t max, int *used)
{
    uint64_t nr = smp->nr_callchain < max_stack ? smp->nr_callchain : max_stack;
    unsigned cpumode = PERF_RECORD_MISC_USER;
    uint64_t i, end;
    size_t n = 0;

    for (end = 0; end < nr && smp->callchain[end] != PERF_CONTEXT_USER; end++)
        ;
    if (end == nr) {
        *used = 0;
        return 0;
    }
    *used = 1;
    for (i = 0; i < end && n < max; i++) {
        uint64_t ip = smp->callchain[i];

        if (ip >= PERF_CONTEXT_MAX) {
            int mode = context_mode(ip);

            if (mode < 0)
                return 0;
            cpumode = (unsigned)mode;
            continue;
        }
        ps_resolver__addr(r, smp->pid, smp->tid, smp->time, cpumode, ip, &frames[n++]);
    }
    if (smp->nr_branches == 0)
        return n;
    if (n < max)
        ps_resolver__addr(r, smp->pid, smp->tid, smp->time, PERF_RECORD_MISC_USER,
                          smp->branches[0].to, &frames[n++]);
    for (i = 0; i < smp->nr_branches && n < max; i++)
        ps_resolver__addr(r, smp->pid, smp->tid, smp->time, PERF_RECORD_MISC_USER,
                          smp->branches[i].from, &frames[n++]);
    return n;
}

size_t ps_resolver__callchain_max(const ps_sample *smp, unsigned max_stack)
{
    return smp->nr_callchain + smp->nr_branches + 1 +
           (ps_unwind__wanted(smp) ? max_stack : 0);
}

/* The unwound user part, appended after n frames. */
static size_t unwound(ps_resolver *r, const ps_sample *smp, unsigned max_stack,
                      ps_frame *frames, size_t n, size_t max)
{
    size_t i, nr, want = max - n < max_stack ? max - n : max_stack;

    if (want == 0)
        return n;
    if (want > r->cap_ips) {
        uint64_t *v = realloc(r->ips, want * sizeof(*v));

        if (v == NULL)
            return n;
        r->ips = v;
        r->cap_ips = want;
    }
    nr = ps_unwinder__user(r->unwinder, smp, when(r, smp->time), r->ips, want);
    for (i = 0; i < nr; i++)
        ps_resolver__addr(r, smp->pid, smp->tid, smp->time, PERF_RECORD_MISC_USER,
                          r->ips[i], &frames[n++]);
    return n;
}

int ps_resolver__unwinds(ps_resolver *r, const ps_sample *smp)
{
    return ps_unwinder__wants(r->unwinder, smp, when(r, smp->time));
}

void ps_resolver__set_stack_outer(ps_resolver *r, int on)
{
    r->stack_outer = on;
}

/* The last marker before entry j (j = nr: the chain's last), or 0 none. */
static uint64_t marker_before(const ps_sample *smp, uint64_t j)
{
    while (j-- > 0)
        if (smp->callchain[j] >= PERF_CONTEXT_MAX)
            return smp->callchain[j];
    return 0;
}

int ps_callchain_outer_skip(const ps_sample *smp, unsigned max_stack, uint64_t *skip)
{
    uint64_t j = smp->nr_callchain, real = 0, m;

    /* perf checks the chain's last marker first, then the one before each
     * marker its walk from the outer end meets: a bad marker further in
     * is never read */
    if ((m = marker_before(smp, j)) != 0 && context_mode(m) < 0)
        return -1;
    while (j-- > 0 && real < max_stack) {
        if (smp->callchain[j] < PERF_CONTEXT_MAX)
            real++;
        else if ((m = marker_before(smp, j)) != 0 && context_mode(m) < 0)
            return -1;
    }
    for (*skip = 0, j++; j-- > 0;)
        *skip += smp->callchain[j] < PERF_CONTEXT_MAX;
    return 0;
}

static int kernel_loaded(const ps_resolver *r)
{
    uint64_t start, end;

    return ps_symbols__kernel_extent(r->symbols, &start, &end);
}

size_t ps_resolver__callchain(ps_resolver *r, const ps_sample *smp, uint64_t branch_sample_type,
                              unsigned max_stack, ps_frame *frames, size_t max)
{
    unsigned cpumode = PERF_RECORD_MISC_USER;
    size_t n = 0;
    uint64_t i, skip;
    int outer;                  /* cut at the outer end: markers checked */
    int loaded = kernel_loaded(r);

    ps_unwinder__note_sample(r->unwinder, smp);
    if ((branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) &&
        (smp->sample_type & PERF_SAMPLE_BRANCH_STACK)) {
        int used;

        n = lbr_callchain(r, smp, max_stack, frames, max, &used);
        if (used)
            return n;
    }
    r->unwound_from = SIZE_MAX;
    skip = 0;                   /* (a chain walked whole reads the same) */
    outer = r->stack_outer && smp->nr_callchain > max_stack;
    if (outer && ps_callchain_outer_skip(smp, max_stack, &skip) < 0)
        return 0;

    for (i = 0; i < smp->nr_callchain && n < max_stack && n < max; i++) {
        uint64_t ip = smp->callchain[i];

        if (ip >= PERF_CONTEXT_MAX) {
            int mode = context_mode(ip);

            if (mode < 0 && !outer)
                return 0;        /* corrupt chain: perf drops it all */
            if (mode >= 0)       /* (a bad one left out: never read) */
                cpumode = (unsigned)mode;
            continue;
        }
        if (skip > 0) {
            skip--;
            continue;
        }
        ps_resolver__addr(r, smp->pid, smp->tid, smp->time, cpumode, ip, &frames[n]);
        /* perf resolves the sample's ip before its chain, and that lookup
         * loads the kernel's symbols, the kernel map shrinking to them:
         * every chain lookup comes after. One that did the load here (and
         * found the map as it was) is made again, as perf's would be. */
        if (!loaded && (loaded = kernel_loaded(r)))
            ps_resolver__addr(r, smp->pid, smp->tid, smp->time, cpumode, ip, &frames[n]);
        n++;
    }
    if (ps_unwind__wanted(smp)) {
        r->unwound_from = n;
        n = unwound(r, smp, max_stack, frames, n, max);
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* Inline expansion and source lines                                        */

void ps_resolver__set_inline(ps_resolver *r, int on)
{
    r->inline_on = on;
}

void ps_resolver__set_full_srcpath(ps_resolver *r, int on)
{
    r->full_srcpath = on;
}

static int reserve(ps_frame **v, size_t *cap, size_t n)
{
    ps_frame *p;

    if (n <= *cap)
        return 0;
    n = n < 64 ? 64 : n * 2;
    if ((p = realloc(*v, n * sizeof(*p))) == NULL)
        return -1;
    *v = p;
    *cap = n;
    return 0;
}

/* An addr2line function name as perf shows it: "??" when unknown,
 * demangled like symbol names (once per distinct name). */
static const char *inline_name(ps_resolver *r, const char *raw)
{
    uint64_t *hit;
    char *d;
    const char *name;

    if (raw == NULL)
        return "??";
    if (!r->demangle)
        return raw;
    if ((hit = ps_u64map__get(&r->demangled, (uintptr_t)raw)) != NULL)
        return (const char *)(uintptr_t)*hit;
    name = raw;
    if ((d = ps_sym__demangle(raw)) != NULL) {
        name = ps_arena__strndup(&r->names, d, strlen(d));
        free(d);
        if (name == NULL)
            return raw;
    }
    if (ps_u64map__put(&r->demangled, (uintptr_t)raw, (uintptr_t)name) < 0)
        return name;
    return name;
}

/* addr2line's records for a frame's address, or NULL (nr 0) when perf
 * would ask nothing or get nothing. */
static const ps_srcinfo *frame_src(ps_resolver *r, const ps_frame *f, ps_srcinfo *si)
{
    uint64_t delta;
    const char *file;

    si->nr = 0;
    if (f->map == NULL || (file = ps_symbols__srcfile(r->symbols, f->map, &delta)) == NULL ||
        ps_srcline__find(r->srcline, file, f->r.rel + delta, si) < 0 || si->nr == 0)
        return NULL;
    return si;
}

/* One unwound frame into out: its inline chain, or itself. */
static int expand(ps_resolver *r, const ps_frame *f, size_t *n)
{
    ps_srcinfo si;
    size_t i;

    if (f->r.sym == NULL || frame_src(r, f, &si) == NULL) {
        if (reserve(&r->out, &r->cap_out, *n + 1) < 0)
            return -1;
        r->out[(*n)++] = *f;
        return 0;
    }
    if (reserve(&r->out, &r->cap_out, *n + si.nr) < 0)
        return -1;
    for (i = 0; i < si.nr; i++) {
        ps_frame *e = &r->out[(*n)++];
        const char *name = inline_name(r, si.loc[i].func);

        *e = *f;
        e->src = &si.loc[i];
        e->inl = strcmp(name, f->r.sym->name) == 0 ? NULL : name;
    }
    return 0;
}

size_t ps_resolver__inlines(ps_resolver *r, const ps_frame *f, const ps_srcloc **loc,
                            const char **names, size_t max)
{
    ps_srcinfo si;
    size_t i;

    if (!r->inline_on || frame_src(r, f, &si) == NULL || si.nr > max)
        return 0;
    for (i = 0; i < si.nr; i++)
        names[i] = inline_name(r, si.loc[i].func);
    *loc = si.loc;
    return si.nr;
}

/* At most this many files are opened ahead (prefetch_files()). */
#define MAX_PREFETCH 32

/*
 * The unwound frames of a dwarf sample each get a srcline lookup
 * (expand()) in the files the process maps code from. Each such sample
 * has srcline open the code files mapped since the last one in the
 * background (decompressing a libc's DWARF takes a while) while this
 * thread goes on with the kernel symbols and the unwinding. The path is
 * the one symbols.c hands addr2line, so the map's DSO is resolved here,
 * a little earlier than its first frame would (that resolution depends
 * on the map alone). At most MAX_PREFETCH files, to bound the work on
 * files no frame is in. Answers do not change.
 */
static void prefetch_files(ps_resolver *r, const ps_sample *smp)
{
    const ps_maps *s = ps_machine__user_maps(r->machine, smp->pid, smp->tid,
                                             when(r, smp->time));
    uint64_t *done = ps_u64map__get(&r->prefetched, (uintptr_t)s), delta;
    size_t i = done != NULL ? (size_t)*done : 0;
    const ps_map *map;
    const char *path;
    ps_resolved res;

    if (s == NULL || ps_maps__inserted(s, i) == NULL)
        return;
    for (; (map = ps_maps__inserted(s, i)) != NULL && r->nr_prefetched < MAX_PREFETCH; i++) {
        if (map->kind != PS_MAP_FILE || (map->is_mmap2 && !(map->prot & PROT_EXEC)))
            continue;
        ps_symbols__resolve(r->symbols, map, smp->pid, map->start, &res);
        if ((path = ps_symbols__srcfile(r->symbols, map, &delta)) != NULL) {
            if (ps_srcline__prefetch(r->srcline, path) < 0)
                break;
            r->nr_prefetched++;
        }
    }
    if (done != NULL)
        *done = i;
    else
        ps_u64map__put(&r->prefetched, (uintptr_t)s, i);
}

size_t ps_resolver__frames(ps_resolver *r, const ps_sample *smp, uint64_t branch_sample_type,
                           unsigned max_stack, const ps_frame **frames)
{
    size_t i, n, out = 0;

    *frames = r->out;
    if (r->inline_on && ps_unwind__wanted(smp))
        prefetch_files(r, smp);
    if (reserve(&r->raw, &r->cap_raw, ps_resolver__callchain_max(smp, max_stack)) < 0)
        return 0;
    n = ps_resolver__callchain(r, smp, branch_sample_type, max_stack, r->raw, r->cap_raw);
    if (!r->inline_on || r->unwound_from >= n) {
        *frames = r->raw;
        return n;
    }
    for (i = 0; i < n; i++) {
        if (i < r->unwound_from) {
            if (reserve(&r->out, &r->cap_out, out + 1) < 0)
                return 0;
            r->out[out++] = r->raw[i];
        } else if (expand(r, &r->raw[i], &out) < 0) {
            return 0;
        }
    }
    *frames = r->out;
    return out;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

/* A module's DSO prints (r.dso) as its file where a BUILD_ID entry names
 * it, as perf script does; its short name is the module's "[name]". */
const char *ps_frame_dso_name(const ps_frame *f, char *buf, size_t size)
{
    if (f->map != NULL && f->map->kind == PS_MAP_MODULE && f->r.dso != NULL &&
        f->r.dso[0] != '[' && f->map->filename[0] != '[') {
        ps_kmod__name(f->map->filename, buf, size);
        if (buf[0] == '[')
            return buf;
    }
    return ps_dso_short_name(f->r.dso, buf, size);
}

const char *ps_dso_short_name(const char *dso, char *jit, size_t size)
{
    unsigned pid;
    int end = 0;

    if (dso == NULL || dso[0] == '[')
        return dso;
    if (strncmp(dso, "/tmp/perf-", 10) == 0 &&     /* sscanf is slow: first the prefix */
        sscanf(dso, "/tmp/perf-%u.map%n", &pid, &end) == 1 && dso[end] == '\0') {
        snprintf(jit, size, "[JIT] tid %u", pid);
        return jit;
    }
    return base_name(dso);
}

const char *ps_resolver__srcfile_line(ps_resolver *r, const ps_frame *f, unsigned *line)
{
    ps_srcinfo si;

    if (frame_src(r, f, &si) == NULL)
        return NULL;
    *line = si.loc[0].line;
    return si.loc[0].file;
}

const char *ps_resolver__srcline_at(ps_resolver *r, const ps_frame *f, uint64_t rel,
                                    char *buf, size_t size, uint64_t *objdump)
{
    ps_frame at = *f;
    ps_srcinfo si;
    uint64_t delta = 0;

    at.r.rel = rel;
    if (f->map != NULL)
        ps_symbols__srcfile(r->symbols, f->map, &delta);
    *objdump = rel + delta;
    if (frame_src(r, &at, &si) == NULL)
        return NULL;
    snprintf(buf, size, "%s:%u", si.loc[0].file == NULL ? "??" : r->full_srcpath
                                 ? si.loc[0].file : base_name(si.loc[0].file), si.loc[0].line);
    return buf;
}

const char *ps_resolver__srcline(ps_resolver *r, const ps_frame *f, char *buf, size_t size)
{
    ps_srcinfo si;
    const ps_srcloc *l = f->src;
    uint64_t delta = 0;
    char jit[64];

    if (f->map == NULL)
        return NULL;
    if (l == NULL && frame_src(r, f, &si) != NULL) {
        l = &si.loc[0];
        if (l->file == NULL && l->line == 0)
            return NULL;    /* map__fprintf_srcline() skips "??:0" */
    }
    if (l != NULL) {
        snprintf(buf, size, "%s:%u",
                 l->file == NULL ? "??" : r->full_srcpath ? l->file : base_name(l->file), l->line);
        return buf;
    }
    /* perf's fallback names the DSO by its short name */
    ps_symbols__srcfile(r->symbols, f->map, &delta);
    snprintf(buf, size, "%s[%" PRIx64 "]", ps_frame_dso_name(f, jit, sizeof(jit)),
             f->r.rel + delta);
    return buf;
}
