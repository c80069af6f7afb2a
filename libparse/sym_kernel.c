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
 *
 * Shared loads (ps_ksyms): reading /proc/kallsyms costs the kernel some
 * 30 ms of formatting, and building its tree as much again. A caller that
 * opens several sessions (perfsift diff) or wants that work off its own
 * thread hands them one ps_ksyms: the first session whose capture will
 * take /proc/kallsyms starts a thread that parses it and builds the tree
 * (fixups and module split done, not yet relocated); each session's first
 * kernel lookup waits for it and takes the result, relocated by its own
 * map. Sessions whose kernel map asks for another reference symbol
 * than "_text", or whose file lacks it, load their own as before. The
 * thread reads the whole file into one buffer (huge pages) and the names
 * stay there; the nodes are lent to every session whose kernel map needs
 * no relocation (ps_symtree__share()). Hand-off: the thread writes the
 * image, then sets KS_DONE under the mutex; readers wait on the mutex and
 * condition for KS_DONE and from then on only read the image (the thread
 * writes nothing more); ps_ksyms__busy() only peeks at the state (an
 * atomic) to let a caller do other work meanwhile; the owner frees it all
 * after every session given it is closed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sym_ctype.h"
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
    int         name_kept;      /* this name outlives the tree: not copied */
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
    if (k->name_kept)           /* ps_symtree__add() without the copy */
        return ps_symtree__insert(k->t, start, start, binding,
                                  (up == 'T' || up == 'W') ? STT_FUNC : STT_OBJECT, name);
    return ps_symtree__add(k->t, k->arena, start, 0, binding,
                           (up == 'T' || up == 'W') ? STT_FUNC : STT_OBJECT, name, 0) < 0 ? -1 : 0;
}

/* What split_kallsyms() takes out of the kernel tree. */
typedef struct kparts {
    ps_sym_node  *kmod_nodes;   /* owned: module symbols, absolute addresses */
    size_t        nr_kmod_nodes;
    ps_kmod_syms *kmods;        /* owned */
    size_t        nr_kmods;
} kparts;

/* Group the module symbols (name "sym\t[mod]") by module, in order, and
 * take them (and the x86_64 entry trampolines) out of the kernel tree; the
 * rest move by -delta. As perf's maps__split_kallsyms(). */
static int split_kallsyms(kparts *out, ps_symtree *t, uint64_t delta)
{
    size_t nr = t->nr ? t->nr : 1, k = 0;
    ps_symwalk w;
    int32_t i;

    if ((out->kmod_nodes = calloc(nr, sizeof(*out->kmod_nodes))) == NULL ||
        (out->kmods = calloc(nr, sizeof(*out->kmods))) == NULL || ps_symwalk__begin(&w, t) < 0)
        return -1;
    while ((i = ps_symwalk__next(&w)) != PS_SYM_NIL) {
        ps_sym_node *nd = &t->n[i];
        char *tab = strchr(nd->sym.name, '\t');

        if (tab != NULL) {
            ps_kmod_syms *m = out->nr_kmods ? &out->kmods[out->nr_kmods - 1] : NULL;

            *tab = '\0';                /* the name is ours (arena, or the text) */
            if (m == NULL || strcmp(m->name, tab + 1) != 0) {
                m = &out->kmods[out->nr_kmods++];
                m->name = tab + 1;
                m->first = k;
                m->nr = 0;
            }
            out->kmod_nodes[k++] = *nd;
            m->nr++;
            ps_symtree__erase(t, i);
        } else if (strcmp(nd->sym.name, "__entry_SYSCALL_64_trampoline") == 0) {
            ps_symtree__erase(t, i);
        } else {
            nd->sym.start -= delta;
            nd->sym.end -= delta;
        }
    }
    ps_symwalk__end(&w);
    out->nr_kmod_nodes = k;
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

/* Room for a running kernel's symbols in t (see KSYM_RESERVE): whole
 * huge pages for an empty tree. */
static void reserve_kernel(ps_symtree *t)
{
    const size_t huge = (size_t)2 << 20;
    size_t size = (KSYM_RESERVE * sizeof(*t->n) + huge - 1) & ~(huge - 1);

    if (t->n == NULL && (t->n = ps_alloc_huge(size)) != NULL) {
        t->cap = size / sizeof(*t->n);
        return;
    }
    if (ps_grow((void **)&t->n, &t->cap, KSYM_RESERVE, sizeof(*t->n)) == 0)
        huge_pages(t->n, t->cap * sizeof(*t->n));
}

/* The loaded kernel: its extent, and that modules may take their part. */
static void kernel_done(ps_symbols *s, const ps_symtree *t)
{
    int32_t first = ps_symtree__first(t), last = ps_symtree__last(t);

    s->kernel_syms = 1;
    if (first != PS_SYM_NIL) {
        s->kstart = t->n[first].sym.start;
        s->kend = t->n[last].sym.end;
    }
}

/* --- a load shared between sessions (ps_ksyms) ----------------------------- */

#define KSYMS_PATH      "/proc/kallsyms"
#define KSYMS_REF       "_text"         /* the ref-reloc symbol it is built for */

enum { KS_IDLE, KS_LOADING, KS_DONE };

struct ps_ksyms {
    pthread_mutex_t lock;
    pthread_cond_t  cond;
    pthread_t       thread;         /* with state past KS_IDLE and started */
    int             started;        /* under lock: the thread was made */
    int             state;          /* KS_*: changed under lock, through
                                     * __atomic (ps_ksyms__busy() reads it
                                     * without the lock) */
    int             cancel;         /* __atomic: the owner no longer wants it */
    /* the image: written by the thread before KS_DONE, then read-only */
    int             ok;
    ps_symtree      t;              /* fixed up and split, at delta 0, compacted */
    char           *text;           /* owned: the file, names in place */
    ps_arena        arena;          /* names cut at KSYM_NAME_MAX */
    kparts          parts;
    uint64_t        ref_start;      /* KSYMS_REF's function start, if ref_found */
    int             ref_found;
};

ps_ksyms *ps_ksyms__new(void)
{
    ps_ksyms *k = calloc(1, sizeof(*k));

    if (k == NULL)
        return NULL;
    if (pthread_mutex_init(&k->lock, NULL) != 0) {
        free(k);
        return NULL;
    }
    if (pthread_cond_init(&k->cond, NULL) != 0) {
        pthread_mutex_destroy(&k->lock);
        free(k);
        return NULL;
    }
    ps_symtree__init(&k->t);
    ps_arena__init(&k->arena);
    return k;
}

void ps_ksyms__free(ps_ksyms *k)
{
    if (k == NULL)
        return;
    __atomic_store_n(&k->cancel, 1, __ATOMIC_RELAXED);
    if (k->started)             /* every other thread is done with k */
        pthread_join(k->thread, NULL);
    ps_symtree__free(&k->t);
    free(k->text);
    ps_arena__free(&k->arena);
    free(k->parts.kmod_nodes);
    free(k->parts.kmods);
    pthread_cond_destroy(&k->cond);
    pthread_mutex_destroy(&k->lock);
    free(k);
}

int ps_ksyms__busy(ps_ksyms *k)
{
    return __atomic_load_n(&k->state, __ATOMIC_ACQUIRE) == KS_LOADING;
}

static void set_state(ps_ksyms *k, int state)       /* under k->lock */
{
    __atomic_store_n(&k->state, state, __ATOMIC_RELEASE);
}

/* The whole file in one buffer with a byte to spare (huge pages: some
 * 5 MiB); read in large pieces. NULL when unreadable, out of memory or
 * past the text file cap (1 GiB, as sym_io.c), or when the owner gave up. */
static char *slurp(ps_ksyms *k, const char *path, size_t *len)
{
    size_t cap = (size_t)8 << 20, n = 0;
    int fd = ps_file__open_regular(path);
    char *b = fd >= 0 ? ps_alloc_huge(cap) : NULL;

    while (b != NULL) {
        ssize_t got;

        if (cap - n < ((size_t)1 << 16) + 1) {
            char *nb = cap < ((size_t)1 << 30) ? realloc(b, cap * 2) : NULL;

            if (nb == NULL) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
        if ((got = read(fd, b + n, cap - n - 1)) < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;              /* the end, or an error: as sym_io.c's reader */
        n += (size_t)got;
        if (__atomic_load_n(&k->cancel, __ATOMIC_RELAXED)) {
            free(b);
            b = NULL;
        }
    }
    if (fd >= 0)
        close(fd);
    *len = n;
    return b;
}

/* kallsyms_parse() over the bytes in memory, byte for byte what its
 * reader does, the names NUL-terminated in place (over their '\n') and
 * kept there; a name cut at KSYM_NAME_MAX is copied. */
typedef struct mtext {
    char  *p;
    size_t pos, len;
} mtext;

static int mt_getc(mtext *m)
{
    return m->pos < m->len ? (unsigned char)m->p[m->pos++] : -1;
}

static void mt_skip_line(mtext *m)
{
    int c;

    while ((c = mt_getc(m)) >= 0 && c != '\n')
        ;
}

static int mt_hex(mtext *m, uint64_t *v)     /* ps_reader__hex() */
{
    int first = 1;

    *v = 0;
    for (;;) {
        int c = mt_getc(m), h;

        if (c < 0)
            return c;
        if ((h = ps_hexval((unsigned char)c)) < 0)
            return first ? -2 : c;
        *v = *v << 4 | (uint64_t)h;
        first = 0;
    }
}

static int kallsyms_parse_text(char *text, size_t len, kload *kl)
{
    mtext m = { text, 0, len };
    int rc = 0;

    while (m.pos < m.len && rc == 0) {
        uint64_t start;
        char *name, *nl;
        size_t lim;
        int type;

        if (mt_hex(&m, &start) != ' ') { mt_skip_line(&m); continue; }
        type = mt_getc(&m);
        if (mt_getc(&m) != ' ') { mt_skip_line(&m); continue; }
        name = m.p + m.pos;
        lim = m.len - m.pos < KSYM_NAME_MAX + 1 ? m.len - m.pos : KSYM_NAME_MAX + 1;
        nl = memchr(name, '\n', lim);
        m.pos += nl != NULL ? (size_t)(nl - name) + 1 : lim;
        kl->name_kept = nl != NULL || m.pos == m.len;
        if (kl->name_kept) {
            name[nl != NULL ? (size_t)(nl - name) : lim] = '\0';  /* the spare byte at the end */
            rc = kload_cb(kl, name, (char)type, start);
        } else {
            char cut[KSYM_NAME_MAX + 2];

            memcpy(cut, name, lim);
            cut[lim] = '\0';
            rc = kload_cb(kl, cut, (char)type, start);
        }
    }
    return rc < 0 ? -1 : 0;
}

/* The thread: load_kallsyms() up to the relocation, into the image. */
static void *ksyms_main(void *arg)
{
    ps_ksyms *k = arg;
    kload kl = { &k->t, &k->arena, KSYMS_REF, 0, 0, 0 };
    size_t len;
    int ok;

    reserve_kernel(&k->t);
    ok = (k->text = slurp(k, KSYMS_PATH, &len)) != NULL &&
         kallsyms_parse_text(k->text, len, &kl) == 0 &&
         ps_symtree__fixup_end(&k->t, 1) == 0 && ps_symtree__fixup_duplicate(&k->t) == 0 &&
         split_kallsyms(&k->parts, &k->t, 0) == 0 && ps_symtree__compact(&k->t) == 0;
    k->ref_start = kl.ref_start;
    k->ref_found = kl.ref_found;
    pthread_mutex_lock(&k->lock);
    k->ok = ok;
    set_state(k, KS_DONE);
    pthread_cond_broadcast(&k->cond);
    pthread_mutex_unlock(&k->lock);
    return NULL;
}

static void ksyms_start(ps_ksyms *k)
{
    pthread_mutex_lock(&k->lock);
    if (k->state == KS_IDLE) {
        set_state(k, KS_LOADING);
        if (pthread_create(&k->thread, NULL, ksyms_main, k) == 0)
            k->started = 1;
        else
            set_state(k, KS_DONE);  /* ok stays 0: every session loads its own */
    }
    pthread_mutex_unlock(&k->lock);
}

/* The image once the thread is done; NULL when it failed. */
static const ps_ksyms *ksyms_wait(ps_ksyms *k)
{
    int ok;

    pthread_mutex_lock(&k->lock);
    while (k->state == KS_LOADING)
        pthread_cond_wait(&k->cond, &k->lock);
    ok = k->state == KS_DONE && k->ok;
    pthread_mutex_unlock(&k->lock);
    return ok ? k : NULL;
}

/* The kernel's tree t and s's module symbols from the image, relocated
 * by delta: t shares the image's nodes when that is 0 (the running
 * kernel's map starts at its _text), else gets a copy. 0, or -1 (no memory: t and s untouched). */
static int ksyms_copy(ps_symbols *s, ps_symtree *t, const ps_ksyms *k, uint64_t delta)
{
    size_t nt = delta && k->t.nr ? k->t.nr : 1, nn = k->parts.nr_kmod_nodes ? k->parts.nr_kmod_nodes : 1;
    size_t nm = k->parts.nr_kmods ? k->parts.nr_kmods : 1, i;
    ps_sym_node *n = malloc(nt * sizeof(*n)), *mn = malloc(nn * sizeof(*mn));
    ps_kmod_syms *m = malloc(nm * sizeof(*m));

    if (n == NULL || mn == NULL || m == NULL) {
        free(n);
        free(mn);
        free(m);
        return -1;
    }
    memcpy(mn, k->parts.kmod_nodes, k->parts.nr_kmod_nodes * sizeof(*mn));
    memcpy(m, k->parts.kmods, k->parts.nr_kmods * sizeof(*m));
    ps_symtree__share(t, &k->t);
    if (delta != 0) {           /* a kernel map elsewhere: relocated copy */
        memcpy(n, k->t.n, k->t.nr * sizeof(*n));
        for (i = 0; i < k->t.nr; i++) {
            n[i].sym.start -= delta;
            n[i].sym.end -= delta;
        }
        t->n = n;
        t->shared = 0;
        n = NULL;
    }
    free(n);
    t->last = PS_SYM_NIL;
    s->kmod_nodes = mn;
    s->nr_kmod_nodes = k->parts.nr_kmod_nodes;
    s->kmods = m;
    s->nr_kmods = k->parts.nr_kmods;
    return 0;
}

/* load_kallsyms() of /proc/kallsyms from the shared image. 1 when done,
 * 0 when this session must load its own (no image, another reference
 * symbol, or none in the file: perf's raw symbols). */
static int ksyms_take(ps_symbols *s, ps_symtree *t, const ps_map *map, const char *ref)
{
    const ps_ksyms *k;
    uint64_t delta = 0;

    if (s->ksyms == NULL)
        return 0;
    ksyms_start(s->ksyms);
    if ((k = ksyms_wait(s->ksyms)) == NULL)
        return 0;
    if (ref != NULL) {
        if (strcmp(ref, KSYMS_REF) != 0 || !k->ref_found)
            return 0;
        delta = k->ref_start - map->pgoff;
    }
    if (ksyms_copy(s, t, k, delta) < 0)
        return 0;
    kernel_done(s, t);
    return 1;
}

/* dso__load_kallsyms() into the kernel's tree t, map being the kernel map. */
static void load_kallsyms(ps_symbols *s, ps_symtree *t, const ps_map *map, const char *path)
{
    const char *ref = strrchr(map->filename, ']');
    kload kl = { t, &s->arena, NULL, 0, 0, 0 };
    uint64_t delta = 0;
    kparts parts;

    memset(&parts, 0, sizeof(parts));
    if (strcmp(path, KSYMS_PATH) == 0) {
        if (kallsyms_restricted() ||
            ksyms_take(s, t, map, map->pgoff != 0 && ref != NULL ? ref + 1 : NULL))
            return;
        reserve_kernel(t);
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
        split_kallsyms(&parts, t, delta) < 0) {
        free(parts.kmod_nodes);
        free(parts.kmods);
        return;
    }
    s->kmod_nodes = parts.kmod_nodes;
    s->nr_kmod_nodes = parts.nr_kmod_nodes;
    s->kmods = parts.kmods;
    s->nr_kmods = parts.nr_kmods;
    kernel_done(s, t);
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

void ps_kernel__prefetch(ps_symbols *s)
{
    uint8_t bid[PS_BUILD_ID_MAX], host[PS_BUILD_ID_MAX];
    size_t size;
    int n;

    if (s->ksyms == NULL || s->kallsyms != NULL || s->symfs[0] != '\0')
        return;
    /* find_kallsyms()'s choice, before the kernel map is known (its
     * MMAP2 build-id, which kernels do not give, aside) */
    if (ps_build_id__expected(bid, &size, s->feat, NULL, "[kernel.kallsyms]") &&
        ((n = ps_build_id__host(host)) <= 0 || !ps_build_id__equal(bid, size, host, (size_t)n)))
        return;
    if (!kallsyms_restricted())
        ksyms_start(s->ksyms);
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
