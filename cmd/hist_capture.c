/* SPDX-License-Identifier: MIT */
/*
 * hist_capture.c - a capture into per-event hists (hist_capture.h). The
 * locations are what perf report's hist entries hold: the sample's map,
 * symbol and map-relative address with the level of its cpumode; a call
 * chain entry is its recorded address, with the level of the maps it was
 * looked up in, or the sample's when nothing was found. No map: DSO NULL,
 * shown "[unknown]".
 *
 * Kernel samples that would wait for the shared kallsyms (o->ksyms, still
 * loading in its thread) wait in a list instead, their comm taken at once,
 * and are summed in order when it is loaded: the user samples meanwhile go
 * on. Their rows come later in the table than they would have, which
 * changes nothing printed while a kernel sample's row can only be made by
 * kernel samples: the DSO is a key (kernel DSOs are not user DSOs), rows
 * are sorted by their sums and keys (a tie left in the order they were
 * made is two rows that print alike), and the kernel rows keep their own
 * order among themselves. What would tell:
 * a waiting sample landing in a row that a later sample made (no map:
 * "[unknown]" with perf diff's one row per DSO), or a kernel map changing
 * while samples wait (a lookup is of the maps as they are now); either
 * makes the capture be read again without waiting. Only without call
 * chains summed (--children), filters, or a pipe (read once).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cc_memo.h"
#include "graph_memo.h"
#include "hist_cache.h"
#include "hist_capture.h"
#include "diff_shape.h"
#include "walk.h"
#include "../libparse/symtree.h"
#include "../libparse/u64map.h"

/* A call chain entry seen before under the same sample row is the same
 * row again: a direct-mapped cache keyed by what the resolver keeps for its
 * life (symbol and DSO pointers), so the common case hashes no strings.
 * The sample's row stands for the keys every entry of its chain shares
 * (comm, thread, cpu). Inlined entries (names not kept) are not cached. */
#define CHAIN_CACHE 65536

typedef struct chain_slot {
    const hist *h;
    const void *sym;            /* ps_sym, or NULL: ip */
    const char *dso;
    uint64_t    ip;
    uint32_t    self, row;      /* row indexes + 1 */
    char        level;
} chain_slot;

/* The last frame-pointer chain walked whole (add_chain_raw()). */
typedef struct last_chain {
    const hist *h;              /* NULL: none, or a record came after it */
    uint32_t    pid, tid, cpu;
    char        level;
    size_t      nr;
    uint64_t   *ips;            /* owned: its nr entries */
    uint32_t   *rows;           /* owned: each entry's row + 1, 0 for a marker */
    uint16_t   *mode;           /* owned: the cpumode each entry was read in */
    size_t      cap;
} last_chain;

/* A kernel sample waiting for kallsyms (see the top). */
typedef struct pend {
    size_t      hi;             /* its hist: out->ev[hi] */
    size_t      nrows;          /* that hist's rows when it came */
    const char *comm;           /* interned in that hist */
    uint32_t    pid, tid, cpu;
    uint64_t    time, ip, period;
} pend;

/* waiting samples at most: then the walk waits for kallsyms too */
#define PEND_MAX 65536

typedef struct run {
    const char              *cmd;
    const hist_capture_opts *o;
    hist_set                *out;
    int                     *slot;      /* evsel idx -> out->ev index + 1 */
    size_t                   nslot;
    int                      oom;
    int                      defer;     /* kernel samples may wait (o->ksyms) */
    pend                    *pend;      /* owned: the waiting ones, in order */
    size_t                   npend, cappend;
    int                      conflict;  /* waiting showed: read again */
    int                      started;   /* start() done */
    chain_slot              *cache;     /* CHAIN_CACHE slots, NULL: none */
    hist_cache              *hc;        /* rows by location; NULL: none */
    last_chain               last[2];   /* [cur]: the last chain; the other: room */
    int                      cur;
    char                    *trace;     /* key trace: the sample's text; owned */
    size_t                   trace_cap;
    int                      shaped;    /* perf diff's tree rebuilt (diff_shape.h) */
    int                      rshaped;   /* perf report's: its rows from it */
    diff_shape             **shapes;    /* owned: one per out->ev, made as needed */
    size_t                   nshapes;
    cc_ent                  *ents;      /* o->graph: a sample's chain; owned */
    uint32_t                *sfx;       /* its suffixes' numbers in memo; owned */
    size_t                   capents, capsfx;
    cc_memo                 *memo;      /* o->graph: where chains ended; owned */
    graph_memo              *gm;        /* o->graph: chains' work; owned */
    struct dso_ord          *dsos;      /* o->graph: perf's DSO order; owned */
    size_t                   ndsos, capdsos;
    ps_u64map                dso_ptr;   /* o->graph: a dsos name pointer -> index */
    ps_u64map                dso_hash;  /* o->graph: a dsos name's hash -> index */
    struct interned         *names;     /* o->graph: INTERN_SLOTS; owned */
    struct last_graph       *lg;        /* o->graph: the last sample's; owned */
    size_t                  *seen;      /* rshaped: the tree entries this sample
                                         * made or met (perf's he_cache); owned */
    size_t                   nseen, capseen;
    uint16_t                *modes;     /* add_chain_outer(): each entry's
                                         * cpumode; owned */
    size_t                   capmodes;
    ps_u64map                mapped;    /* o->graph: hash of each file name the
                                         * capture maps -> its place in the
                                         * order they first come in */
    uint64_t                 nmapped;
    struct stale_chain {        /* perf report's callchain cursor */
        ps_sample       smp;    /* the last chain's sample (what resolves it) */
        const ps_evsel *evsel;
        uint64_t       *ips;    /* owned: its chain */
        size_t          cap;
        uint64_t       *regs;   /* owned: its user registers (DWARF) */
        size_t          cap_regs;
        uint8_t        *stack;  /* owned: its user stack (DWARF) */
        size_t          cap_stack;
        int             set;
    } stale;
    size_t                   mixed_n;   /* events chains_mixed() looked at */
    int                      mixed;     /* some events have chains, some not */
    int                      socket;    /* key socket (socket_of()) */
    int                      src;       /* keys srcline or srcfile (src_keys()) */
    ps_resolver             *res;       /* with src: the walk's */
    char                     srcline[4096 + 32], srcfile[4096 + 32];
    ps_u64map                a2l;       /* with src: hash of a DSO's name -> its
                                         * a2l_note() state */
    int                      a2l_asked; /* src_keys() looked up (a2l_found: and
                                         * addr2line answered) */
    int                      a2l_found;
    ps_u64map                cgroups;   /* key cgroup: id -> index in cgpath */
    char                   **cgpath;    /* owned: each id's first path */
    size_t                   ncg, capcg;
} run;

/* The last sample's call graph work (add_graph()), for a next one with
 * the same chain in the same row (consecutive samples often have one):
 * its chain entries' rows and where each chain it added ended. Nothing
 * else goes into those trees in between, so the next adds up the same. */
typedef struct last_graph {
    const hist *h;              /* NULL: none */
    size_t      self;
    const char *comm;
    int32_t     pid, tid, cpu;
    char        level;
    size_t      n, cap;
    ps_frame   *frames;         /* owned: the chain */
    uint32_t   *rows;           /* owned: each entry's row */
    cc_node   **leaf;           /* owned: [n] the own row's chain's end,
                                 * [i] entry i's when it added one, or NULL */
} last_graph;

/* The resolver's strings (symbol and DSO names) as a hist interned them,
 * by address (checked by content): hashing every frame's names was most
 * of the time of building call graphs. */
#define INTERN_SLOTS 4096
typedef struct interned {
    const hist *h;
    const char *from, *to;
} interned;

/* A DSO's place in perf's order (callchain.h): perf makes a DSO object
 * when the capture first maps its file (the kernel's before any), so the
 * kernel's first, then in the order the capture first maps them, then any
 * other (a JIT map's, named after the map was) as first seen here. */
typedef struct dso_ord {
    const char *name;           /* the resolver's: compared by content */
    uint64_t    ord;
    uint32_t    seq;
} dso_ord;

/* perf report's short DSO name of fr's; no DSO is "[unknown]" */
static const char *short_dso(const ps_frame *fr, char *buf, size_t size)
{
    return fr->r.dso != NULL ? ps_frame_dso_name(fr, buf, size) : "[unknown]";
}

static char level_of_cpumode(unsigned cpumode)
{
    switch (cpumode) {
    case PERF_RECORD_MISC_KERNEL: return 'k';
    case PERF_RECORD_MISC_GUEST_KERNEL: return 'g';
    case PERF_RECORD_MISC_GUEST_USER: return 'u';
    case PERF_RECORD_MISC_HYPERVISOR: return 'H';
    default: return '.';
    }
}

static void frame_item(hist_item *it, const ps_frame *fr, char *buf, size_t size)
{
    it->srcline = it->srcfile = NULL;   /* src_keys() */
    it->dso = fr->map != NULL ? short_dso(fr, buf, size) : NULL;
    it->sym = fr->inl != NULL ? fr->inl : fr->r.sym != NULL ? fr->r.sym->name : NULL;
    it->sym_start = fr->r.sym != NULL ? fr->r.sym->start : 0;
    it->ip = fr->map != NULL ? fr->r.rel : fr->ip;
    it->object = fr->inl == NULL && fr->r.sym != NULL && fr->map != NULL &&
                 ps_sym__type(fr->r.sym) == STT_OBJECT;
    it->object_at = it->object ? fr->r.sym->start + fr->map->start - fr->map->pgoff : 0;
}

/* a call chain entry as perf's callchain cursor gives it: the address as
 * recorded; the level of the maps it was found in, the sample's own when
 * neither a map nor a symbol was found (what perf's report shows) */
static void chain_item(hist_item *it, const ps_frame *fr, char sample_level, char *buf,
                       size_t size)
{
    frame_item(it, fr, buf, size);
    it->inlined = fr->inl != NULL;
    it->ip = fr->ip;
    it->level = fr->map != NULL || it->sym != NULL
                ? (fr->cpumode == PERF_RECORD_MISC_KERNEL ? 'k' : '.') : sample_level;
}

/* perf's get_srcfile(): srcline's file part, "" when it has none */
static const char *src_file(char *s)
{
    char *p = strchr(s, ':');

    if (strcmp(s, "??:0") == 0 || p == NULL || p == s)
        return "";
    *p = '\0';
    return s;
}

/* perf's addr2line give-up (its dso->a2l_fails): a DSO whose first 123
 * lookups all fail is asked no more (its entries show the fallback), one
 * that answered once is asked on. The state: failures so far, or: */
enum { A2L_LIMIT = 123, A2L_ANSWERED = 1000, A2L_GAVE_UP = 1001 };

static uint64_t *a2l_state(run *r, const ps_frame *fr)
{
    uint64_t key = hist_hash_str(fr->r.dso != NULL ? fr->r.dso : ""), *v;

    if ((v = ps_u64map__get(&r->a2l, key)) == NULL && ps_u64map__put(&r->a2l, key, 0) == 0)
        v = ps_u64map__get(&r->a2l, key);
    return v;           /* (NULL out of memory: then never given up) */
}

/* One lookup perf makes in fr's DSO, answered or not. */
static void a2l_note(run *r, const ps_frame *fr, int found)
{
    uint64_t *v = a2l_state(r, fr);

    if (v == NULL || *v >= A2L_ANSWERED)
        return;
    *v = found ? A2L_ANSWERED : *v + 1 >= A2L_LIMIT ? A2L_GAVE_UP : *v + 1;
}

/* perf looks a call chain entry up twice (its duplicate check, then the
 * tree it adds the entry to), once for a duplicate of an entry this sample
 * already has: the second lookup, before it is added. */
static void src_again(run *r, hist *h, const hist_item *it, const ps_frame *fr)
{
    const hist_entry *e;

    if (!r->a2l_asked)
        return;
    e = hist_find(h, it);
    if (e == NULL || e->stamp != h->stamp)
        a2l_note(r, fr, r->a2l_found);
}

/*
 * The srcline and srcfile keys of fr (perf's hist_entry__srcline() and
 * get_srcfile()), only with those keys: addr2line's answer at the row's
 * address, else perf's fallback "sym+offset" (srcfile: none) or
 * "dso[address]". perf looks a call chain entry up at its recorded
 * address (chain), not the map-relative one: a PIE's entries find
 * nothing there and show "sym+offset" from that address. An entry of an
 * inline expansion keeps the srcline the expansion gave it.
 */
static void src_keys(run *r, hist_item *it, const ps_frame *fr, int chain)
{
    uint64_t at = chain ? fr->ip : fr->r.rel, objdump, *state;
    char jit[64];
    const char *s;

    r->a2l_asked = 0;
    if (!r->src)
        return;
    if (fr->map == NULL) {
        it->srcline = "??:0";
        it->srcfile = "";
        return;
    }
    state = a2l_state(r, fr);
    s = ps_resolver__srcline_at(r->res, fr, at, r->srcfile, sizeof(r->srcfile), &objdump);
    if (state != NULL && *state == A2L_GAVE_UP)
        s = NULL;
    /* (a srcline an inline expansion gave is no lookup) */
    if ((r->a2l_asked = hist_keys_has(&r->o->keys, HK_SRCFILE) || !chain || fr->src == NULL)) {
        r->a2l_found = s != NULL;
        a2l_note(r, fr, s != NULL);
    }
    if (s == NULL && fr->r.sym != NULL)
        snprintf(r->srcfile, sizeof(r->srcfile), "%s+%" PRIu64, fr->r.sym->name,
                 at - fr->r.sym->start);
    else if (s == NULL)
        snprintf(r->srcfile, sizeof(r->srcfile), "%s[%" PRIx64 "]",
                 ps_frame_dso_name(fr, jit, sizeof(jit)), objdump);
    if (chain && fr->src != NULL)
        it->srcline = ps_resolver__srcline(r->res, fr, r->srcline, sizeof(r->srcline));
    else
        it->srcline = strcpy(r->srcline, r->srcfile);
    /* (srcfile's fallback has no symbol name: "+offset", no file) */
    it->srcfile = s == NULL && fr->r.sym != NULL ? "" : src_file(r->srcfile);
}

/* The keys that are the sample's fields (perf's weight is WEIGHT_STRUCT's
 * low 32 bits); 0 where the sample has none. */
static void sample_keys(hist_item *it, const ps_sample *smp)
{
    uint64_t st = smp->sample_type;

    it->weight = st & PERF_SAMPLE_WEIGHT ? smp->weight
               : st & PERF_SAMPLE_WEIGHT_STRUCT ? (uint32_t)smp->weight : 0;
    it->transaction = st & PERF_SAMPLE_TRANSACTION ? smp->transaction : 0;
    it->cgroup = st & PERF_SAMPLE_CGROUP ? smp->cgroup : 0;
}

/* perf's al->socket: the CPU_TOPOLOGY socket of the sample's cpu, -1 when
 * the sample has no cpu or the capture no topology for it */
static int32_t socket_of(walk *w, const ps_sample *smp)
{
    const ps_features *f = ps_session_features(walk_session(w));

    if (!(smp->sample_type & PERF_SAMPLE_CPU) || f == NULL ||
        smp->cpu >= f->cpu_topology.nr_cpus || f->cpu_topology.cpus == NULL)
        return -1;
    return (int32_t)f->cpu_topology.cpus[smp->cpu].socket_id;
}

/* Whether the capture has no event group of more than one event. */
static int no_groups(walk *w)
{
    const ps_features *f = ps_session_features(walk_session(w));
    uint32_t i;

    for (i = 0; f != NULL && ps_features_has(f, PS_HEADER_GROUP_DESC) &&
                i < f->group_desc.nr; i++)
        if (f->group_desc.groups[i].nr_members > 1)
            return 0;
    return 1;
}

/* Whether perf's --group/--no-group makes the events of this capture one
 * group: it has more than one and no groups of its own. */
static int forced_group(walk *w, int force)
{
    return force && ps_session_nr_evsels(walk_session(w)) > 1 && no_groups(w);
}

/* The group e leads (HEADER_GROUP_DESC): its members into h, and the
 * name of a named one (perf writes "{anon_group}" for the others). 0, or
 * -1 out of memory. */
static int group_of(walk *w, const ps_evsel *e, hist *h, int force)
{
    const ps_features *f = ps_session_features(walk_session(w));
    uint32_t i;

    h->nr_members = 1;
    if (forced_group(w, force)) {
        if (e->idx == 0) {
            h->nr_members = (uint32_t)ps_session_nr_evsels(walk_session(w));
            h->forced_leader = 1;
        }
        return 0;
    }
    for (i = 0; f != NULL && ps_features_has(f, PS_HEADER_GROUP_DESC) &&
                i < f->group_desc.nr; i++) {
        const ps_feat_group *g = &f->group_desc.groups[i];

        if (g->leader_idx != e->idx)
            continue;
        h->nr_members = g->nr_members;
        if (g->name != NULL && strcmp(g->name, "{anon_group}") != 0 &&
            (h->group_name = strdup(g->name)) == NULL)
            return -1;
    }
    return 0;
}

/* Whether event idx is in an event group of more than one. */
static int in_group(walk *w, size_t idx, int force)
{
    const ps_features *f = ps_session_features(walk_session(w));
    uint32_t i;

    if (forced_group(w, force))
        return 1;
    for (i = 0; f != NULL && ps_features_has(f, PS_HEADER_GROUP_DESC) &&
                i < f->group_desc.nr; i++)
        if (f->group_desc.groups[i].nr_members > 1 && idx >= f->group_desc.groups[i].leader_idx &&
            idx - f->group_desc.groups[i].leader_idx < f->group_desc.groups[i].nr_members)
            return 1;
    return 0;
}

/* the hist of event e, made on its first sample */
static hist *event_hist(run *r, walk *w, const ps_evsel *e)
{
    hist_set *s = r->out;
    hist *h;

    if (e->idx >= r->nslot) {
        size_t n = e->idx + 16;
        int *v = realloc(r->slot, n * sizeof(*v));

        if (v == NULL)
            return NULL;
        memset(v + r->nslot, 0, (n - r->nslot) * sizeof(*v));
        r->slot = v;
        r->nslot = n;
    }
    if (r->slot[e->idx])
        return &s->ev[r->slot[e->idx] - 1];
    h = realloc(s->ev, (s->n + 1) * sizeof(*h));
    if (h == NULL)
        return NULL;
    s->ev = h;
    h = &s->ev[s->n];
    if (hist_init(h, e->name, &r->o->keys, r->o->by_name) < 0) {
        hist_free(h);
        return NULL;
    }
    h->type = e->attr.type;
    h->idx = e->idx;
    if (group_of(w, e, h, r->o->force_leader) < 0) {
        hist_free(h);
        return NULL;
    }
    h->config = e->attr.config;
    r->slot[e->idx] = (int)++s->n;
    return h;
}

static chain_slot *cache_slot(run *r, const hist *h, uint32_t self, const ps_frame *fr,
                              char level)
{
    uint64_t x = ((uintptr_t)fr->r.sym ^ (fr->r.sym ? 0 : fr->ip) ^ ((uintptr_t)fr->r.dso << 7) ^
                  ((uint64_t)self << 32) ^ (uint64_t)level ^ ((uintptr_t)h << 3)) *
                 0x9e3779b97f4a7c15ULL;

    return &r->cache[x >> 48];
}

static int cache_hit(const chain_slot *c, const hist *h, uint32_t self, const ps_frame *fr,
                     char level)
{
    return c->row && c->h == h && c->self == self && c->sym == (const void *)fr->r.sym &&
           c->dso == fr->r.dso && c->level == level && (fr->r.sym || c->ip == fr->ip);
}

/* --- call graphs (o->graph) --------------------------------------------------- */

/* The dsos entry named name, or NULL. The last few entries are looked at
 * first (the resolver's name pointer, as a rule), then the maps: a
 * capture can map tens of thousands of files, and a scan of them all per
 * frame made report quadratic in them. */
static dso_ord *dso_find(run *r, const char *name)
{
    const uint64_t *at;
    size_t i;

    for (i = r->ndsos; i-- > 0 && i + 8 >= r->ndsos;)
        if (r->dsos[i].name == name)
            return &r->dsos[i];
    if ((at = ps_u64map__get(&r->dso_ptr, (uintptr_t)name)) != NULL)
        return &r->dsos[*at];
    if ((at = ps_u64map__get(&r->dso_hash, hist_hash_str(name))) == NULL)
        return NULL;
    if (strcmp(r->dsos[*at].name, name) == 0)
        return &r->dsos[*at];
    for (i = r->ndsos; i-- > 0;)        /* two names of one hash */
        if (strcmp(r->dsos[i].name, name) == 0)
            return &r->dsos[i];
    return NULL;
}

/* d (just added, or found under another pointer) in the maps; 0 or -1 */
static int dso_index(run *r, const dso_ord *d, const char *name)
{
    uint64_t i = (uint64_t)(d - r->dsos), h = hist_hash_str(name);

    if (ps_u64map__put(&r->dso_ptr, (uintptr_t)name, i) < 0)
        return -1;
    return ps_u64map__get(&r->dso_hash, h) != NULL ? 0 : ps_u64map__put(&r->dso_hash, h, i);
}

static const dso_ord *dso_order(run *r, const ps_frame *fr)
{
    const uint64_t *first;
    dso_ord *d;

    if ((d = dso_find(r, fr->r.dso)) != NULL)
        return d->name == fr->r.dso || dso_index(r, d, fr->r.dso) == 0 ? d : NULL;
    if (ps_grow((void **)&r->dsos, &r->capdsos, r->ndsos + 1, sizeof(*r->dsos)) < 0)
        return NULL;
    d = &r->dsos[r->ndsos];
    d->name = fr->r.dso;
    if (fr->cpumode == PERF_RECORD_MISC_KERNEL)
        d->ord = 1;
    else if ((first = ps_u64map__get(&r->mapped, hist_hash_str(fr->r.dso))) != NULL)
        d->ord = *first | (1ull << 63);
    else
        d->ord = UINT64_MAX;
    d->seq = (uint32_t)++r->ndsos;
    return dso_index(r, d, d->name) == 0 ? d : NULL;
}

/* s (the resolver's, stable) interned in h; NULL out of memory */
static const char *intern(run *r, hist *h, const char *s)
{
    interned *c;

    if (r->names == NULL && (r->names = calloc(INTERN_SLOTS, sizeof(*r->names))) == NULL)
        return NULL;
    c = &r->names[(((uintptr_t)s >> 3) ^ ((uintptr_t)h >> 5)) * 0x9e3779b97f4a7c15ULL >> 52];
    if (c->from != s || c->h != h || strcmp(c->to, s) != 0) {   /* one pass, no hash */
        const char *to = hist_str(h, s);

        if (to == NULL)
            return NULL;
        *c = (interned){ h, s, to };
    }
    return c->to;
}

/* frame fr as a call chain entry, its strings interned in h. 0, or -1. */
static int chain_ent(run *r, hist *h, const ps_frame *fr, cc_ent *c)
{
    char buf[64];
    const dso_ord *d;

    memset(c, 0, sizeof(*c));
    c->ip = fr->ip;
    c->inlined = fr->inl != NULL;
    if (fr->r.sym != NULL)
        c->start = fr->r.sym->start;
    if ((fr->inl != NULL || fr->r.sym != NULL) &&
        (c->name = intern(r, h, fr->inl != NULL ? fr->inl : fr->r.sym->name)) == NULL)
        return -1;
    if (fr->map != NULL) {
        const char *dso = short_dso(fr, buf, sizeof(buf));

        if ((d = dso_order(r, fr)) == NULL ||
            (c->dso = dso == buf ? hist_str(h, dso) : intern(r, h, dso)) == NULL)
            return -1;
        c->dso_ord = d->ord;
        c->dso_seq = d->seq;
    }
    return 0;
}

static int same_frame(const ps_frame *a, const ps_frame *b)
{
    return a->ip == b->ip && a->map == b->map && a->r.sym == b->r.sym && a->inl == b->inl &&
           a->r.dso == b->r.dso && a->cpumode == b->cpumode;
}

/* Whether the sample is the last one's again (last_graph) */
static int same_as_last(const last_graph *l, const hist *h, size_t self, const hist_item *it,
                        const ps_frame *frames, size_t n)
{
    size_t i;

    if (l->h != h || l->self != self || l->n != n || l->comm != it->comm || l->pid != it->pid ||
        l->tid != it->tid || l->cpu != it->cpu || l->level != it->level)
        return 0;
    for (i = 0; i < n; i++)
        if (!same_frame(&l->frames[i], &frames[i]))
            return 0;
    return 1;
}

/* last_graph's sums again */
static void replay(const last_graph *l, hist *h, uint64_t period, int children)
{
    size_t i;

    if (l->leaf[l->n] != NULL)
        cc_replay(l->leaf[l->n], period);
    h->v[l->self].chain_stamp = h->stamp;
    for (i = 0; children && i < l->n; i++) {
        hist_entry *e = hist_add_at(h, l->rows[i], period, 0);

        if (l->leaf[i] != NULL)
            cc_replay(l->leaf[i], period);
        e->chain_stamp = h->stamp;
    }
}

/* Room in r->lg for a chain of n; NULL out of memory (then no memo). */
static last_graph *last_room(run *r, size_t n)
{
    last_graph *l = r->lg;

    if (l == NULL && (l = r->lg = calloc(1, sizeof(*l))) == NULL)
        return NULL;
    l->h = NULL;
    if (n + 1 > l->cap) {
        size_t c1 = l->cap, c2 = l->cap, c3 = l->cap;

        if (ps_grow((void **)&l->frames, &c1, n + 1, sizeof(*l->frames)) < 0 ||
            ps_grow((void **)&l->rows, &c2, n + 1, sizeof(*l->rows)) < 0 ||
            ps_grow((void **)&l->leaf, &c3, n + 1, sizeof(*l->leaf)) < 0)
            return NULL;
        l->cap = n + 1;
    }
    return l;
}

static void last_free(run *r)
{
    if (r->lg != NULL) {
        free(r->lg->frames);
        free(r->lg->rows);
        free(r->lg->leaf);
        free(r->lg);
        r->lg = NULL;
    }
}

static hist_entry *shape_row(run *r, hist *h, hist_item *it, const ps_frame *fr, uint64_t period,
                             int self);
static int shape_chain(run *r, hist *h, hist_item *it, const ps_frame *fr, char level,
                       uint64_t period, hist_entry **e);

/* The row of chain entry fr (level: its own or the one perf gives it),
 * through the chain cache; period added as a caller's. NULL out of memory. */
static hist_entry *chain_row(run *r, hist *h, hist_item *it, const ps_frame *fr, char level,
                             size_t self, uint64_t period)
{
    chain_slot *c = NULL;
    hist_entry *e;
    char jit[64];

    if (r->cache != NULL && fr->inl == NULL) {
        c = cache_slot(r, h, (uint32_t)self, fr, level);
        if (cache_hit(c, h, (uint32_t)self, fr, level))
            return hist_add_at(h, c->row - 1, period, 0);
    }
    chain_item(it, fr, level, jit, sizeof(jit));
    src_keys(r, it, fr, 1);
    src_again(r, h, it, fr);
    e = r->rshaped ? shape_row(r, h, it, fr, period, 0) : hist_add(h, it, period, 0);
    if (e != NULL && c != NULL)
        *c = (chain_slot){ h, fr->r.sym, fr->r.dso, fr->ip, (uint32_t)self,
                           (uint32_t)(e - h->v) + 1, level };
    return e;
}

/* ents[i..n) (sfx their suffixes' numbers) into row's call graph, as
 * cc_append(), by the memo when it knows where that chain ends there;
 * *leaf that end. 0, or -1 out of memory. */
static int graph_add_ents(run *r, hist *h, uint32_t row, const cc_ent *ents,
                          const uint32_t *sfx, size_t i, size_t n, uint64_t period,
                          cc_node **leaf)
{
    cc_node *end;

    if (i >= n) {               /* an empty chain (or rest): nothing to add,
                                 * and no suffix of it was numbered */
        *leaf = NULL;
        return 0;
    }
    if ((end = cc_memo_get(r->memo, h, row, sfx[i])) != NULL) {
        cc_replay(end, period);
    } else if (cc_append(&h->v[row].chain, ents + i, n - i, period, &end) < 0 ||
               cc_memo_put(r->memo, h, row, sfx[i], end) < 0) {
        return -1;
    }
    *leaf = end;
    return 0;
}

/* the sample's chain (r->ents, r->sfx) from i on into row's graph;
 * *leaf (if not NULL) where it ended, and g's record of that (if g) */
static int graph_add(run *r, hist *h, uint32_t row, size_t i, size_t n, uint64_t period,
                     cc_node **leaf, gm_ent *g, size_t slot)
{
    cc_node *end;

    if (graph_add_ents(r, h, row, r->ents, r->sfx, i, n, period, &end) < 0)
        return -1;
    if (leaf != NULL)
        *leaf = end;
    if (g != NULL) {
        g->leaf[slot] = end;
        g->len[slot] = end != NULL ? cc_leaf_len(end) : 0;
    }
    return 0;
}

/* A kept chain's graph work in one row again: its end, while that still
 * ends the chain there, or the chain added anew (a split moved the end). */
static int gm_again(run *r, hist *h, gm_ent *g, size_t slot, uint32_t row, size_t from,
                    uint64_t period)
{
    cc_node *end = g->leaf[slot];

    if (cc_leaf_len(end) == g->len[slot]) {
        cc_replay(end, period);
        return 0;
    }
    if (graph_add_ents(r, h, row, g->ents, g->sfx, from, g->n, period, &end) < 0)
        return -1;
    g->leaf[slot] = end;
    g->len[slot] = cc_leaf_len(end);
    return 0;
}

/* add_graph() for a sample whose chain g kept: the same sums */
static int gm_replay(run *r, hist *h, gm_ent *g, uint64_t period, int children)
{
    size_t i;

    if (r->lg != NULL)
        r->lg->h = NULL;        /* the trees may change here: no last_graph */
    if (g->n > 0 && gm_again(r, h, g, g->n, g->k.self, 0, period) < 0)
        return -1;
    h->v[g->k.self].chain_stamp = h->stamp;
    for (i = 0; children && i < g->n; i++) {
        hist_entry *e = hist_add_at(h, g->rows[i], period, 0);

        if (g->leaf[i] != NULL && gm_again(r, h, g, i, g->rows[i], i, period) < 0)
            return -1;
        e->chain_stamp = h->stamp;
    }
    return 0;
}

/* Whether a sample's chain is all in its addresses (graph_memo.h). */
static int chain_in_sample(const ps_sample *smp)
{
    return !(smp->sample_type &
             (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_BRANCH_STACK));
}

/* The sample's chain into the call graphs: all of it under its own row;
 * with children, under each row of the chain from that entry on, the
 * first time the row comes in the chain's order (perf's cumulative
 * entries), which also sums the row's inclusive period. */
static int add_graph(run *r, walk *w, hist *h, const ps_event *ev, hist_item *it,
                     uint64_t period, size_t self)
{
    const ps_sample *smp = &ev->u.sample;
    int caller = r->o->graph->caller, children = r->o->children;
    const ps_frame *frames;
    char level = it->level;
    hist_item sample = *it;
    gm_key k = { h, (uint32_t)self, it->comm, it->pid, it->tid, it->cpu, it->level,
                 smp->nr_callchain, smp->callchain };
    gm_ent *g = NULL;
    last_graph *l;
    size_t i, n;

    if (!(smp->sample_type & PERF_SAMPLE_CALLCHAIN))
        return 0;
    r->out->has_callchain = 1;
    /* (srcline keys count perf's lookups: each sample's entries made again) */
    if (!r->rshaped && !r->src && chain_in_sample(smp)) {
        if (r->gm == NULL && (r->gm = graph_memo_new()) == NULL)
            return -1;
        if ((g = graph_memo_find(r->gm, &k)) != NULL)
            return gm_replay(r, h, g, period, children);
    }
    n = ps_resolver__frames(walk_resolver(w), smp, ev->evsel->attr.branch_sample_type,
                            walk_max_stack(w), &frames);
    if (!r->rshaped && !r->src && r->lg != NULL && same_as_last(r->lg, h, self, it, frames, n)) {
        replay(r->lg, h, period, children);
        return 0;
    }
    l = r->rshaped || r->src ? NULL : last_room(r, n);
    if (n > r->capents && ps_grow((void **)&r->ents, &r->capents, n, sizeof(*r->ents)) < 0)
        return -1;
    for (i = 0; i < n; i++)
        if (chain_ent(r, h, &frames[caller ? n - 1 - i : i], &r->ents[i]) < 0)
            return -1;
    if (r->memo == NULL && (r->memo = cc_memo_new()) == NULL)
        return -1;
    if ((n > r->capsfx && ps_grow((void **)&r->sfx, &r->capsfx, n, sizeof(*r->sfx)) < 0) ||
        cc_memo_suffixes(r->memo, r->ents, n, r->sfx) < 0)
        return -1;
    if (r->gm != NULL && !r->rshaped && chain_in_sample(smp) &&
        (g = graph_memo_add(r->gm, &k, n)) != NULL) {
        memcpy(g->ents, r->ents, n * sizeof(*r->ents));
        memcpy(g->sfx, r->sfx, n * sizeof(*r->sfx));
        memset(g->leaf, 0, (n + 1) * sizeof(*g->leaf));
    }
    if (graph_add(r, h, (uint32_t)self, 0, n, period, l != NULL ? &l->leaf[n] : NULL, g, n) < 0)
        return -1;
    h->v[self].chain_stamp = h->stamp;
    if (n > h->v[self].max_depth)
        h->v[self].max_depth = (uint32_t)n;
    for (i = 0; children && i < n; i++) {
        const ps_frame *fr;
        hist_entry *e;
        int fresh;

        fr = &frames[caller ? n - 1 - i : i];
        if (fr->map != NULL || fr->r.sym != NULL)
            level = fr->cpumode == PERF_RECORD_MISC_KERNEL ? 'k' : '.';
        /* (perf's entry with neither keeps the level of the one before it) */
        if (r->rshaped) {
            if ((fresh = shape_chain(r, h, it, fr, level, period, &e)) < 0)
                return -1;
            l = NULL;           /* no replay: each sample walks the tree */
            if (fresh > 0)
                continue;
            fresh = 1;
        } else {
            if ((e = chain_row(r, h, it, fr, level, self, period)) == NULL)
                return -1;
            fresh = e->chain_stamp != h->stamp;
        }
        e->chain_stamp = h->stamp;
        if (l != NULL) {
            l->rows[i] = (uint32_t)(e - h->v);
            l->leaf[i] = NULL;
        }
        if (g != NULL)
            g->rows[i] = (uint32_t)(e - h->v);
        if (fresh && graph_add(r, h, (uint32_t)(e - h->v), i, n, period,
                               l != NULL ? &l->leaf[i] : NULL, g, i) < 0)
            return -1;
        if (fresh && n - i > e->max_depth)
            e->max_depth = (uint32_t)(n - i);
    }
    if (l != NULL) {
        if (n > 0)
            memcpy(l->frames, frames, n * sizeof(*frames));
        *l = (last_graph){ h, self, sample.comm, sample.pid, sample.tid, sample.cpu, sample.level,
                           n, l->cap, l->frames, l->rows, l->leaf };
    }
    return 0;
}

/* The level perf's report gives a chain entry with neither map nor symbol:
 * that of the entry before it in its cursor, callers first, which is the
 * next outer one that has either; the sample's when there is none. */
static char outer_level(const ps_frame *frames, size_t i, size_t n, char level)
{
    size_t j;

    /* the row is made by the outermost entry of the same address (the
     * first in perf's cursor): its level is the one that shows */
    for (j = n; j-- > i + 1;)
        if (frames[j].ip == frames[i].ip && frames[j].map == NULL && frames[j].r.sym == NULL) {
            i = j;
            break;
        }
    for (i++; i < n; i++)
        if (frames[i].map != NULL || frames[i].r.sym != NULL)
            return frames[i].cpumode == PERF_RECORD_MISC_KERNEL ? 'k' : '.';
    return level;
}

static int add_chain(run *r, walk *w, hist *h, const ps_event *ev, hist_item *it,
                     uint64_t period, uint32_t self)
{
    const ps_sample *smp = &ev->u.sample;
    const ps_frame *frames;
    char jit[64], level = it->level;
    size_t i, n;

    n = ps_resolver__frames(walk_resolver(w), smp, ev->evsel->attr.branch_sample_type,
                            walk_max_stack(w), &frames);
    for (i = 0; i < n; i++) {
        /* rows made in perf's order, callers first when its cursor is
         * (its tree, if it decides rows, always): ties keep that order */
        size_t f = r->rshaped || r->o->stack_outer ? n - 1 - i : i;
        const ps_frame *fr = &frames[f];
        char outer = fr->map != NULL || fr->r.sym != NULL ? level
                                                          : outer_level(frames, f, n, level);
        chain_slot *c = NULL;
        hist_entry *e;

        if (r->cache != NULL && fr->inl == NULL) {
            char lv = fr->map != NULL || fr->r.sym != NULL
                      ? (fr->cpumode == PERF_RECORD_MISC_KERNEL ? 'k' : '.') : outer;

            c = cache_slot(r, h, self, fr, lv);
            if (cache_hit(c, h, self, fr, lv)) {
                hist_add_at(h, c->row - 1, period, 0);
                continue;
            }
        }
        if (r->rshaped) {
            int k = shape_chain(r, h, it, fr, outer, period, &e);

            if (k < 0)
                return -1;
            continue;
        }
        chain_item(it, fr, outer, jit, sizeof(jit));
        src_keys(r, it, fr, 1);
        src_again(r, h, it, fr);
        if ((e = hist_add(h, it, period, 0)) == NULL)
            return -1;
        if (c != NULL)
            *c = (chain_slot){ h, fr->r.sym, fr->r.dso, fr->ip, self,
                               (uint32_t)(e - h->v) + 1, it->level };
    }
    return 0;
}

/* A frame-pointer chain as ps_resolver__callchain() walks it: markers set
 * the cpumode, an unknown one drops the whole chain, at most max_stack
 * entries. 1 when the walk takes every entry, 0 when it is cut, -1 when
 * the chain is dropped. */
static int chain_extent(const ps_sample *smp, unsigned max_stack)
{
    uint64_t i;
    size_t n;

    for (i = n = 0; i < smp->nr_callchain; i++) {
        if (n == max_stack)
            return 0;
        if (smp->callchain[i] < PERF_CONTEXT_MAX)
            n++;
        else if (smp->callchain[i] != PERF_CONTEXT_KERNEL &&
                   smp->callchain[i] != PERF_CONTEXT_USER &&
                   smp->callchain[i] != PERF_CONTEXT_HV)
            return -1;
    }
    return 1;
}

/* How many entries at the end of smp's chain are those of the last one,
 * read in the same context (the rows of that part are then the same). */
static size_t common_end(const last_chain *l, const hist *h, const ps_sample *smp, char level)
{
    size_t k = 0, n = (size_t)smp->nr_callchain;

    if (l->h != h || l->pid != smp->pid || l->tid != smp->tid || l->cpu != smp->cpu ||
        l->level != level)
        return 0;
    while (k < n && k < l->nr && l->ips[l->nr - 1 - k] == smp->callchain[n - 1 - k])
        k++;
    return k;
}

/* outer_level() of the raw chain's entry at i, mode the cpumode there */
static char raw_outer_level(walk *w, const ps_sample *smp, uint64_t i, uint16_t mode, char level)
{
    uint64_t ip = smp->callchain[i], j;
    ps_frame fr;

    /* from the outermost entry of the address (outer_level()) */
    for (j = i + 1; j < smp->nr_callchain; j++) {
        if (smp->callchain[j] >= PERF_CONTEXT_MAX)
            break;              /* another context: another map */
        if (smp->callchain[j] == ip) {
            ps_resolver__addr(walk_resolver(w), smp->pid, smp->tid, smp->time, mode, ip, &fr);
            if (fr.map == NULL && fr.r.sym == NULL)
                i = j;
        }
    }
    for (i++; i < smp->nr_callchain; i++) {
        ip = smp->callchain[i];
        if (ip >= PERF_CONTEXT_MAX) {
            mode = ip == PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL
                 : ip == PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_HYPERVISOR;
            continue;
        }
        ps_resolver__addr(walk_resolver(w), smp->pid, smp->tid, smp->time, mode, ip, &fr);
        if (fr.map != NULL || fr.r.sym != NULL)
            return fr.cpumode == PERF_RECORD_MISC_KERNEL ? 'k' : '.';
    }
    return level;
}

/* The entry at i of a chain (*mode: the cpumode as read so far, updated
 * by markers; level: the sample's): its row + 1, from the location cache
 * or resolved; 0 for a marker, UINT32_MAX out of memory. */
static uint32_t chain_entry(run *r, walk *w, hist *h, const ps_sample *smp, hist_item *it,
                            char level, uint64_t i, uint16_t *mode, uint64_t period)
{
    hist_loc_key k = { h, smp->callchain[i], smp->pid, smp->tid, smp->cpu, *mode, level };
    const char *comm;
    hist_entry *e;
    uint32_t row;
    ps_frame fr;
    char jit[64];

    if (k.ip >= PERF_CONTEXT_MAX) {
        *mode = k.ip == PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL
              : k.ip == PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_HYPERVISOR;
        return 0;
    }
    if ((row = hist_cache_get(r->hc, &k, &comm)) != 0) {
        hist_add_at(h, row - 1, period, 0);
        return row;
    }
    ps_resolver__addr(walk_resolver(w), smp->pid, smp->tid, smp->time, k.cpumode, k.ip, &fr);
    if (fr.map == NULL && fr.r.sym == NULL) {
        /* its level is its neighbour's (outer_level()): not cached */
        chain_item(it, &fr, raw_outer_level(w, smp, i, *mode, k.level), jit, sizeof(jit));
        src_keys(r, it, &fr, 1);
        return (e = hist_add(h, it, period, 0)) == NULL ? UINT32_MAX
                                                         : (uint32_t)(e - h->v) + 1;
    }
    chain_item(it, &fr, k.level, jit, sizeof(jit));
    src_keys(r, it, &fr, 1);
    if ((e = hist_add(h, it, period, 0)) == NULL)
        return UINT32_MAX;
    row = (uint32_t)(e - h->v) + 1;
    hist_cache_put(r->hc, &k, row, NULL);
    return row;
}

static int last_reserve(last_chain *l, size_t n)
{
    size_t c1 = l->cap, c2 = l->cap, c3 = l->cap;    /* grow alike */

    if (ps_grow((void **)&l->ips, &c1, n, sizeof(*l->ips)) < 0 ||
        ps_grow((void **)&l->rows, &c2, n, sizeof(*l->rows)) < 0 ||
        ps_grow((void **)&l->mode, &c3, n, sizeof(*l->mode)) < 0)
        return -1;
    l->cap = c1;
    return 0;
}

/* add_chain_raw() callers first, as perf's cursor then is: the rows of
 * entries not in the last chain's shared end (k entries; the whole chain
 * when cut) made outermost first, as perf makes them, which decides the
 * order of rows its trees find equal. With cut, at most max_stack real
 * entries from the outer end. nl: the chain kept for the next sample
 * (NULL when cut). -1 out of memory. */
static int add_chain_outer(run *r, walk *w, hist *h, const ps_sample *smp, hist_item *it,
                           uint64_t period, size_t k, int cut)
{
    last_chain *l = &r->last[r->cur], *nl = cut ? NULL : &r->last[!r->cur];
    size_t n = (size_t)smp->nr_callchain, i, t = n, real = 0;
    unsigned max_stack = walk_max_stack(w);
    uint16_t mode = PERF_RECORD_MISC_USER, *modes = nl != NULL ? nl->mode : r->modes;
    char level = it->level;

    if (nl == NULL && n > r->capmodes &&
        ps_grow((void **)&r->modes, &r->capmodes, n, sizeof(*r->modes)) < 0)
        return -1;
    modes = nl != NULL ? nl->mode : r->modes;
    /* each entry's cpumode, read from the leaf; the shared end (its ips
     * equal the last chain's) is read only until the modes agree: from
     * there they change alike, and the last chain's are taken */
    for (i = 0; i < n; i++) {
        uint64_t ip = smp->callchain[i];

        if (nl != NULL && i >= n - k && l->mode[l->nr - (n - i)] == mode) {
            t = i;              /* from here the last chain's rows */
            break;
        }
        modes[i] = mode;
        if (ip >= PERF_CONTEXT_MAX)
            mode = ip == PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL
                 : ip == PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_HYPERVISOR;
    }
    for (i = t; i < n; i++) {
        modes[i] = l->mode[l->nr - (n - i)];
        if ((nl->rows[i] = l->rows[l->nr - (n - i)]) != 0)
            hist_add_at(h, nl->rows[i] - 1, period, 0);
    }
    for (i = t; i-- > 0 && real < (cut ? max_stack : SIZE_MAX);) {
        uint16_t m = modes[i];
        uint32_t row = 0;

        if (smp->callchain[i] < PERF_CONTEXT_MAX) {
            real++;
            if ((row = chain_entry(r, w, h, smp, it, level, i, &m, period)) == UINT32_MAX)
                return -1;
        }
        if (nl != NULL)
            nl->rows[i] = row;
    }
    if (nl != NULL) {
        memcpy(nl->ips, smp->callchain, n * sizeof(*nl->ips));
        *nl = (last_chain){ h, smp->pid, smp->tid, smp->cpu, level, n,
                            nl->ips, nl->rows, nl->mode, nl->cap };
        r->cur = !r->cur;
    }
    return 0;
}

/* Each entry's row through the location cache; the end the chain shares
 * with the last one (half of a profile's chains equal the one before,
 * most share all but a few entries) takes that one's rows as they are.
 * -1 out of memory. */
static int add_chain_raw(run *r, walk *w, hist *h, const ps_sample *smp, hist_item *it,
                         uint64_t period)
{
    int extent = chain_extent(smp, walk_max_stack(w));
    last_chain *l = &r->last[r->cur], *nl = &r->last[!r->cur];
    size_t n = (size_t)smp->nr_callchain, k, i;
    uint16_t mode = PERF_RECORD_MISC_USER;
    char level = it->level;
    uint64_t skip;              /* perf walking callers first keeps the outer end */

    if (r->o->stack_outer && extent != 1) {    /* (walked whole: the same) */
        if (ps_callchain_outer_skip(smp, walk_max_stack(w), &skip) < 0)
            return 0;
        if (skip > 0 || extent < 0)     /* (a bad marker it never reads) */
            extent = 0;
    }
    if (extent < 0)
        return 0;               /* corrupt chain: perf drops it all */
    k = extent ? common_end(l, h, smp, level) : 0;
    if (r->o->stack_outer) {
        int cut = extent == 0 || last_reserve(nl, n) < 0;

        if (cut)
            l->h = nl->h = NULL;
        return add_chain_outer(r, w, h, smp, it, period, k, cut);
    }
    if (extent == 0 || last_reserve(nl, n) < 0) {
        unsigned max_stack = walk_max_stack(w);
        size_t frames = 0;

        l->h = nl->h = NULL;
        for (i = 0; i < n && frames < max_stack; i++) {
            uint32_t row = chain_entry(r, w, h, smp, it, level, i, &mode, period);

            if (row == UINT32_MAX)
                return -1;
            frames += row != 0;
        }
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (i >= n - k && l->mode[l->nr - (n - i)] == mode) {  /* the rest: the last chain's */
            size_t j = l->nr - (n - i);

            for (; i < n; i++, j++) {
                nl->mode[i] = l->mode[j];
                if ((nl->rows[i] = l->rows[j]) != 0)
                    hist_add_at(h, l->rows[j] - 1, period, 0);
            }
            break;
        }
        nl->mode[i] = mode;
        if ((nl->rows[i] = chain_entry(r, w, h, smp, it, level, i, &mode, period)) ==
            UINT32_MAX)
            return -1;
    }
    memcpy(nl->ips, smp->callchain, n * sizeof(*nl->ips));
    *nl = (last_chain){ h, smp->pid, smp->tid, smp->cpu, level, n,
                        nl->ips, nl->rows, nl->mode, nl->cap };
    r->cur = !r->cur;
    return 0;
}

/* The inclusive sums of the sample's chain, it being its own location. */
static int add_children(run *r, walk *w, hist *h, const ps_event *ev, hist_item *it,
                        uint64_t period, uint32_t self)
{
    const ps_sample *smp = &ev->u.sample;

    if (!(smp->sample_type & PERF_SAMPLE_CALLCHAIN))
        return 0;
    r->out->has_callchain = 1;
    /* what ps_resolver__frames() does differently: branch stacks, unwinding */
    if (r->hc != NULL && !(ev->evsel->attr.branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) &&
        !(smp->sample_type & (PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
                              PERF_SAMPLE_STACK_USER)))
        return add_chain_raw(r, w, h, smp, it, period);
    return add_chain(r, w, h, ev, it, period, self);
}

/*
 * perf report's callchain cursor is one for the whole session, and
 * sample__resolve_callchain() leaves it as it was for a sample without a
 * chain: with children, such a sample (an event recorded without -g next
 * to one with call graphs) adds a row for each entry of the last chain
 * resolved before it, whoever's it was, in the sample's own thread.
 * Frame-pointer and DWARF chains are kept (with the registers and stack
 * that unwind them); after an LBR one (branches), nothing is added.
 */
static int keep_user_stack(struct stale_chain *c, const ps_sample *smp)
{
    size_t nr = (size_t)smp->regs_user.nr, n = (size_t)smp->stack_size;

    if (nr > c->cap_regs && ps_grow((void **)&c->regs, &c->cap_regs, nr, sizeof(*c->regs)) < 0)
        return -1;
    if (n > c->cap_stack && ps_grow((void **)&c->stack, &c->cap_stack, n, 1) < 0)
        return -1;
    if (nr > 0)
        memcpy(c->regs, smp->regs_user.regs, nr * sizeof(*c->regs));
    if (n > 0)
        memcpy(c->stack, smp->stack_data, n);
    c->smp.regs_user = smp->regs_user;
    c->smp.regs_user.regs = c->regs;
    c->smp.stack_size = smp->stack_size;
    c->smp.stack_dyn_size = smp->stack_dyn_size;
    c->smp.stack_data = c->stack;
    return 0;
}

static int note_chain(run *r, const ps_event *ev)
{
    const ps_sample *smp = &ev->u.sample;
    struct stale_chain *c = &r->stale;
    size_t n = (size_t)smp->nr_callchain;

    c->set = 0;
    if (smp->sample_type & PERF_SAMPLE_BRANCH_STACK)
        return 0;
    if (n > c->cap && ps_grow((void **)&c->ips, &c->cap, n, sizeof(*c->ips)) < 0)
        return -1;
    if (n > 0)
        memcpy(c->ips, smp->callchain, n * sizeof(*c->ips));
    memset(&c->smp, 0, sizeof(c->smp));
    c->smp.sample_type = smp->sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                             PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                                             PERF_SAMPLE_CALLCHAIN |
                                             PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
    c->smp.ip = smp->ip;
    c->smp.pid = smp->pid;
    c->smp.tid = smp->tid;
    c->smp.time = smp->time;
    c->smp.cpu = smp->cpu;
    c->smp.nr_callchain = n;
    c->smp.callchain = c->ips;
    if ((smp->sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) &&
        keep_user_stack(c, smp) < 0)
        return -1;
    c->evsel = ev->evsel;
    c->set = 1;
    return 0;
}

/* Whether the capture's events so far mix samples with and without call
 * chains: only then is a stale chain ever used, so only then is every
 * chain copied (a deep chain per sample costs a quarter of report's time) */
static int chains_mixed(run *r, walk *w)
{
    ps_session *s = walk_session(w);
    size_t i, n = ps_session_nr_evsels(s), with = 0;

    if (n == r->mixed_n)
        return r->mixed;
    for (i = 0; i < n; i++)
        with += (ps_session_evsel(s, i)->attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
    r->mixed_n = n;
    r->mixed = with > 0 && with < n;
    return r->mixed;
}

/* With call graphs, perf appends the cursor from each entry on to that
 * entry's row (its graph is not shown: the event has none), which makes
 * the depth that orders rows of equal children (add_graph()). */
static int add_stale_graph(run *r, walk *w, hist *h, const ps_event *old, hist_item *it,
                           uint64_t period, uint32_t self)
{
    const ps_frame *frames;
    int caller = r->o->graph->caller;
    char level = it->level;
    size_t i, n;

    n = ps_resolver__frames(walk_resolver(w), &old->u.sample,
                            old->evsel->attr.branch_sample_type, walk_max_stack(w), &frames);
    h->v[self].chain_stamp = h->stamp;  /* perf's he_cache holds the sample's row */
    for (i = 0; i < n; i++) {
        const ps_frame *fr = &frames[caller ? n - 1 - i : i];
        hist_entry *e;

        if (fr->map != NULL || fr->r.sym != NULL)
            level = fr->cpumode == PERF_RECORD_MISC_KERNEL ? 'k' : '.';
        if (r->rshaped) {       /* (as add_graph(): perf's tree decides) */
            int seen = shape_chain(r, h, it, fr, level, period, &e);

            if (seen < 0)
                return -1;
            if (seen == 0 && n - i > e->max_depth)
                e->max_depth = (uint32_t)(n - i);
            continue;
        }
        if ((e = chain_row(r, h, it, fr, level, self, period)) == NULL)
            return -1;
        if (e->chain_stamp != h->stamp && n - i > e->max_depth)
            e->max_depth = (uint32_t)(n - i);
        e->chain_stamp = h->stamp;
    }
    return 0;
}

static int add_stale_chain(run *r, walk *w, hist *h, const ps_event *ev, const hist_item *it,
                           uint64_t period, uint32_t self)
{
    ps_event old = *ev;
    hist_item item = *it;

    if (!r->stale.set)
        return 0;
    old.u.sample = r->stale.smp;
    old.evsel = r->stale.evsel;
    if (r->o->graph != NULL)
        return add_stale_graph(r, w, h, &old, &item, period, self);
    return add_chain(r, w, h, &old, &item, period, self);
}

/* The sample's own row, from the cache or resolved (its item in *it). */
/* Key trace: what perf report shows of a tracepoint sample (its print
 * fmt's text, as perf script's trace field), "N/A" for other events.
 * @return it (in r->trace until the next sample), or NULL out of memory */
static const char *trace_text(run *r, walk *w, const ps_event *ev)
{
    ps_error err;
    int n;

    if (ev->evsel == NULL || ev->evsel->attr.type != PERF_TYPE_TRACEPOINT)
        return "N/A";
    for (;;) {
        n = ps_tracepoint_print(r->trace, r->trace_cap, walk_session(w), ev, &err);
        if (n < 0)
            return "";
        if ((size_t)n < r->trace_cap)
            return r->trace;
        if (ps_grow((void **)&r->trace, &r->trace_cap, (size_t)n + 1, 1) < 0)
            return NULL;
    }
}

/* h's rebuilt perf tree (diff_shape.h); NULL out of memory */
static diff_shape **shape_slot(run *r, const hist *h)
{
    size_t i = (size_t)(h - r->out->ev);

    if (i >= r->nshapes) {
        size_t cap = r->nshapes;

        if (ps_grow((void **)&r->shapes, &cap, i + 1, sizeof(*r->shapes)) < 0)
            return NULL;
        memset(r->shapes + r->nshapes, 0, (cap - r->nshapes) * sizeof(*r->shapes));
        r->nshapes = cap;
    }
    return &r->shapes[i];
}

/* A sample into h's rebuilt perf diff tree: its item, with its own DSO (a
 * row that merges DSOs keeps the first). */
static int shape_note(run *r, hist *h, const hist_item *it, const char *dso, const ps_frame *fr,
                      size_t row)
{
    diff_shape **slot = shape_slot(r, h);
    hist_item own = *it;

    if (slot == NULL || (dso != NULL && (own.dso = hist_str(h, dso)) == NULL))
        return -1;
    return diff_shape_note(slot, h, &own, fr->map != NULL ? fr->r.sym : NULL, row);
}

/* perf report's row for a sample (self 1) or a chain entry of it (self 0;
 * -1: nothing added) when its tree decides rows: the one its entry has, or
 * a new one. NULL out of memory. */
static hist_entry *shape_row(run *r, hist *h, hist_item *it, const ps_frame *fr, uint64_t period,
                             int self)
{
    diff_shape **slot = shape_slot(r, h);
    diff_shape_map m;
    hist_entry *e;
    size_t row;
    int k;

    if (slot == NULL || (it->comm != NULL && (it->comm = hist_str(h, it->comm)) == NULL) ||
        (it->dso != NULL && (it->dso = hist_str(h, it->dso)) == NULL) ||
        (it->sym != NULL && (it->sym = hist_str(h, it->sym)) == NULL))
        return NULL;
    /* perf's map objects: the kernel's one, a process's own (a fork
     * copies them) */
    m.id = (uintptr_t)fr->map ^ (fr->cpumode == PERF_RECORD_MISC_KERNEL ? 0
                                 : (uint64_t)(uint32_t)it->pid << 40);
    m.base = NULL;
    if (fr->inl != NULL && fr->r.sym != NULL && (m.base = hist_str(h, fr->r.sym->name)) == NULL)
        return NULL;
    if ((k = diff_shape_find(slot, h, it, fr->map != NULL ? fr->r.sym : NULL, &m, &row)) < 0)
        return NULL;
    if (k > 0)
        return self < 0 ? &h->v[row] : hist_add_at(h, row, period, self);
    if ((e = hist_append(h, it, period, self > 0)) != NULL) {
        diff_shape_new_row(*slot, (size_t)(e - h->v));
        if (self < 0)
            e->acc_period = e->acc_samples = 0;     /* the caller adds */
    }
    return e;
}

/* The sample's entries so far (perf's he_cache): a new one. -1 memory. */
static int seen_push(run *r, const hist *h)
{
    diff_shape **slot = shape_slot(r, h);

    if (slot == NULL || *slot == NULL)
        return -1;
    if (r->nseen == r->capseen &&
        ps_grow((void **)&r->seen, &r->capseen, r->nseen + 1, sizeof(*r->seen)) < 0)
        return -1;
    r->seen[r->nseen++] = diff_shape_last(*slot);
    return 0;
}

/* A chain entry when perf's tree decides rows (perf's cumulative entry):
 * 1 when it is one the sample already added (skipped), 0 when added to its
 * row *e (inclusive period, as perf, even when the row had it already),
 * -1 out of memory. */
static int shape_chain(run *r, hist *h, hist_item *it, const ps_frame *fr, char level,
                       uint64_t period, hist_entry **e)
{
    diff_shape **slot = shape_slot(r, h);
    const ps_sym *sym = fr->map != NULL ? fr->r.sym : NULL;
    char jit[64];
    size_t k;

    chain_item(it, fr, level, jit, sizeof(jit));
    if (slot == NULL || (it->dso != NULL && (it->dso = hist_str(h, it->dso)) == NULL) ||
        (it->sym != NULL && (it->sym = hist_str(h, it->sym)) == NULL))
        return -1;
    for (k = 0; *slot != NULL && k < r->nseen; k++)
        if (diff_shape_same(*slot, h, it, sym, r->seen[k]))
            return 1;
    if ((*e = shape_row(r, h, it, fr, 0, -1)) == NULL || seen_push(r, h) < 0)
        return -1;
    (*e)->acc_period += period;
    (*e)->acc_samples++;
    (*e)->stamp = h->stamp;
    return 0;
}

static void shapes_free(run *r)
{
    size_t i;

    for (i = 0; i < r->nshapes; i++)
        diff_shape_free(r->shapes[i]);
    free(r->shapes);
    r->shapes = NULL;
    r->nshapes = 0;
}

static hist_entry *add_self(run *r, walk *w, hist *h, const ps_event *ev, hist_item *it,
                            uint64_t period)
{
    const ps_sample *smp = &ev->u.sample;
    ps_resolver *res = walk_resolver(w);
    unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
    hist_loc_key k = { h, smp->ip, smp->pid, smp->tid, smp->cpu, (uint16_t)cpumode, 0 };
    char comm[64], jit[64];
    const char *cached, *own_dso;
    hist_entry *e;
    uint32_t row;
    ps_frame fr;

    memset(it, 0, sizeof(*it));
    it->pid = (int32_t)smp->pid;
    it->tid = (int32_t)smp->tid;
    it->cpu = (int32_t)smp->cpu;
    it->time = smp->time;
    it->level = level_of_cpumode(cpumode);
    sample_keys(it, smp);
    if (r->socket)
        it->socket = socket_of(w, smp);
    if (hist_keys_has(&h->keys, HK_TRACE) && (it->trace = trace_text(r, w, ev)) == NULL)
        return NULL;
    if (r->hc != NULL && (row = hist_cache_get(r->hc, &k, &cached)) != 0) {
        it->comm = cached;      /* what a chain entry takes from the sample */
        return hist_add_at(h, row - 1, period, 1);
    }
    it->comm = ps_resolver__comm(res, smp->pid, smp->tid, smp->time, comm, sizeof(comm));
    ps_resolver__addr(res, smp->pid, smp->tid, smp->time, cpumode, smp->ip, &fr);
    frame_item(it, &fr, jit, sizeof(jit));
    src_keys(r, it, &fr, 0);
    own_dso = it->dso;
    if ((e = r->rshaped ? shape_row(r, h, it, &fr, period, 1) : hist_add(h, it, period, 1)) == NULL)
        return NULL;
    r->nseen = 0;               /* perf's he_cache starts with the sample's own */
    if (r->rshaped && seen_push(r, h) < 0)
        return NULL;
    /* comm[] and jit[] end here: the hist's copies live on */
    it->dso = e->it.dso;
    if ((it->comm = hist_str(h, it->comm)) == NULL)
        return NULL;
    if (r->shaped && shape_note(r, h, it, own_dso, &fr, (size_t)(e - h->v)) < 0)
        return NULL;
    if (r->hc != NULL)
        hist_cache_put(r->hc, &k, (uint32_t)(e - h->v) + 1, it->comm);
    return e;
}

/* The waiting samples summed, in order: each resolved as add_self() would
 * (the first one waits for kallsyms). 0, or -1 out of memory. */
static int drain(run *r, walk *w)
{
    ps_resolver *res = walk_resolver(w);
    size_t *made = calloc(r->out->n ? r->out->n : 1, sizeof(*made)), i;

    if (made == NULL)
        return -1;
    for (i = 0; i < r->out->n; i++)
        made[i] = r->out->ev[i].n;      /* rows after it: made while draining */
    for (i = 0; i < r->npend; i++) {
        const pend *p = &r->pend[i];
        hist *h = &r->out->ev[p->hi];
        const hist_entry *e;
        hist_item it;
        char jit[64];
        ps_frame fr;

        memset(&it, 0, sizeof(it));
        it.pid = (int32_t)p->pid;
        it.tid = (int32_t)p->tid;
        it.cpu = (int32_t)p->cpu;
        it.time = p->time;
        it.level = level_of_cpumode(PERF_RECORD_MISC_KERNEL);
        it.comm = p->comm;
        ps_resolver__addr(res, p->pid, p->tid, p->time, PERF_RECORD_MISC_KERNEL, p->ip, &fr);
        frame_item(&it, &fr, jit, sizeof(jit));
        if ((e = hist_find(h, &it)) != NULL && (size_t)(e - h->v) >= p->nrows &&
            (size_t)(e - h->v) < made[p->hi])
            r->conflict = 1;            /* a later sample made its row */
        hist_sample_begin(h);           /* its inclusive sum counts too */
        if (hist_add(h, &it, p->period, 1) == NULL) {
            free(made);
            return -1;
        }
    }
    free(made);
    r->npend = 0;
    return 0;
}

/* A kernel sample while kallsyms loads: put on the waiting list (1); the
 * list summed first once it is loaded (or full). 0: sum it now; -1 out of
 * memory. */
static int defer_kernel(run *r, walk *w, hist *h, const ps_event *ev, uint64_t period)
{
    const ps_sample *smp = &ev->u.sample;
    char comm[64];
    const char *c;
    pend *p;

    if (r->npend > 0 && (r->npend == PEND_MAX || !ps_ksyms__busy(r->o->ksyms)) &&
        drain(r, w) < 0)
        return -1;
    if ((ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_KERNEL ||
        !ps_ksyms__busy(r->o->ksyms))
        return 0;
    if (r->npend == r->cappend &&
        ps_grow((void **)&r->pend, &r->cappend, r->npend + 1, sizeof(*r->pend)) < 0)
        return -1;
    c = ps_resolver__comm(walk_resolver(w), smp->pid, smp->tid, smp->time, comm, sizeof(comm));
    if ((c = hist_str(h, c)) == NULL)
        return -1;
    p = &r->pend[r->npend++];
    *p = (pend){ (size_t)(h - r->out->ev), h->n, c, smp->pid, smp->tid, smp->cpu,
                 smp->time, smp->ip, period };
    return 1;
}

/* One end of a branch as perf's thread__find_cpumode_addr_location()
 * finds it: in the thread's maps, else the kernel's; in neither, at
 * perf's hypervisor level (its guest modes, which have no machine). */
static void branch_end(walk *w, const ps_sample *smp, uint64_t addr, hist_end *end,
                       char *buf, size_t size)
{
    ps_resolver *res = walk_resolver(w);
    hist_item it;
    ps_frame fr;

    ps_resolver__addr(res, smp->pid, smp->tid, smp->time, PERF_RECORD_MISC_USER, addr, &fr);
    end->level = '.';
    if (fr.map == NULL) {
        ps_resolver__addr(res, smp->pid, smp->tid, smp->time, PERF_RECORD_MISC_KERNEL, addr,
                          &fr);
        end->level = fr.map != NULL ? 'k' : 'H';
    }
    memset(&it, 0, sizeof(it));
    frame_item(&it, &fr, buf, size);
    end->dso = it.dso;
    end->sym = fr.r.sym != NULL ? fr.r.sym->name : NULL;
    end->sym_start = fr.r.sym != NULL ? fr.r.sym->start : 0;
    end->sym_end = fr.r.sym != NULL ? fr.r.sym->end : 0;
    end->addr = addr;
    end->ip = it.ip;
    end->object = it.object;
    end->object_at = it.object_at;
}

/* perf report's branch view: each branch of the sample's stack a row of
 * its own, of period 1 (perf counts branches, not samples: each is one in
 * the header's sample count too); a sample without a branch stack adds
 * nothing. The dso and sym keys take the target, at the sample's level,
 * unresolved at its address as recorded (perf's iter_next_branch_entry()).
 * 0, or -1 out of memory. */
static int add_branches(walk *w, hist *h, const ps_event *ev)
{
    const ps_sample *smp = &ev->u.sample;
    char comm[64], dfrom[64], dto[64];
    hist_branch br;
    hist_item it;
    uint64_t i;

    if (smp->branches == NULL)
        return 0;
    memset(&it, 0, sizeof(it));
    it.pid = (int32_t)smp->pid;
    it.tid = (int32_t)smp->tid;
    it.cpu = (int32_t)smp->cpu;
    it.time = smp->time;
    it.level = level_of_cpumode(ev->misc & PERF_RECORD_MISC_CPUMODE_MASK);
    it.comm = ps_resolver__comm(walk_resolver(w), smp->pid, smp->tid, smp->time, comm,
                                sizeof(comm));
    it.br = &br;
    for (i = 0; i < smp->nr_branches; i++) {
        memset(&br, 0, sizeof(br));
        branch_end(w, smp, smp->branches[i].from, &br.from, dfrom, sizeof(dfrom));
        branch_end(w, smp, smp->branches[i].to, &br.to, dto, sizeof(dto));
        br.cycles = (uint16_t)(smp->branches[i].flags >> 4);
        it.dso = br.to.dso;
        it.sym = br.to.sym;
        it.sym_start = br.to.sym_start;
        it.ip = br.to.sym != NULL ? br.to.ip : br.to.addr;
        it.object = br.to.object;
        it.object_at = br.to.object_at;
        hist_sample_begin(h);
        h->total_period++;
        h->nr_samples++;
        if (hist_add(h, &it, 1, 1) == NULL)
            return -1;
    }
    return 0;
}

static int on_sample(void *ctx, walk *w, const ps_event *ev, const ps_evsel *e,
                     uint64_t period)
{
    run *r = ctx;
    ps_resolver *res = walk_resolver(w);
    hist_entry *self;
    int skip;
    hist_item it;
    hist *h;

    r->res = res;       /* (src_keys()) */

    if (r->o->filter != NULL && (skip = filter_skip(r->o->filter, res, ev, e)) != 0)
        return skip < 0 ? -1 : 0;
    if ((h = event_hist(r, w, e)) == NULL)
        goto oom;
    if (r->o->branches) {
        h->hide_new = r->o->hide != NULL && filter_skip(r->o->hide, res, ev, e) > 0;
        if (add_branches(w, h, ev) < 0)
            goto oom;
        return 0;
    }
    hist_sample_begin(h);
    h->total_period += period;
    h->nr_samples++;
    if (r->o->no_chains)        /* (with neither graph nor children) */
        r->out->has_callchain |= (ev->u.sample.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
    /* a sample the thread, dso and symbol filters hide still counts in
     * every row it touches; only the rows it makes are hidden */
    h->hide_new = r->o->hide != NULL && filter_skip(r->o->hide, res, ev, e) > 0;
    if (!h->hide_new)
        h->shown_period += period;
    if (r->defer) {
        int rc = defer_kernel(r, w, h, ev, period);

        if (rc < 0)
            goto oom;
        if (rc > 0)
            return 0;
    }
    if ((self = add_self(r, w, h, ev, &it, period)) == NULL)
        goto oom;
    if (r->o->children && !(ev->u.sample.sample_type & PERF_SAMPLE_CALLCHAIN)) {
        if (add_stale_chain(r, w, h, ev, &it, period, (uint32_t)(self - h->v)) < 0)
            goto oom;
    } else if (r->o->children && chains_mixed(r, w) && note_chain(r, ev) < 0) {
        goto oom;
    }
    if (r->o->graph != NULL) {
        if (add_graph(r, w, h, ev, &it, period, (size_t)(self - h->v)) < 0)
            goto oom;
    } else if (r->o->children &&
               add_children(r, w, h, ev, &it, period, (uint32_t)(self - h->v)) < 0) {
        goto oom;
    }
    return 0;
oom:
    fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
    return -1;
}

/* The records the resolver changes its threads or maps by (libparse/
 * machine.c's ps_machine__event()); after any other (FINISHED_ROUND every
 * round), what the caches hold stays true. */
static int changes_resolver(uint32_t type)
{
    switch (type) {
    case PERF_RECORD_COMM: case PERF_RECORD_FORK: case PERF_RECORD_EXIT:
    case PERF_RECORD_MMAP: case PERF_RECORD_MMAP2: case PERF_RECORD_KSYMBOL:
        return 1;
    default:
        return 0;
    }
}

/* A record that changes the kernel's maps (machine.c: MMAP/MMAP2 with a
 * kernel cpumode, KSYMBOL). */
static int changes_kernel(const ps_event *ev)
{
    unsigned mode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;

    return ev->type == PERF_RECORD_KSYMBOL ||
           ((ev->type == PERF_RECORD_MMAP || ev->type == PERF_RECORD_MMAP2) &&
            (mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL));
}

/* A file the capture maps: its place in dso_order() when it is new.
 * 0, or -1 out of memory (said). */
static int note_mapped(run *r, const char *name)
{
    uint64_t key = hist_hash_str(name);

    if (name == NULL || ps_u64map__get(&r->mapped, key) != NULL)
        return 0;
    if (ps_u64map__put(&r->mapped, key, ++r->nmapped) < 0) {
        fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
        return -1;
    }
    return 0;
}

/* A CGROUP record: its id's path, the first one as perf keeps it. 0, or
 * -1 out of memory. */
static int note_cgroup(run *r, const ps_record_cgroup *c)
{
    char *p;

    if (ps_u64map__get(&r->cgroups, c->id) != NULL)
        return 0;
    if ((r->ncg == r->capcg &&
         ps_grow((void **)&r->cgpath, &r->capcg, r->ncg + 1, sizeof(*r->cgpath)) < 0) ||
        (p = strdup(c->path != NULL ? c->path : "")) == NULL)
        return -1;
    if (ps_u64map__put(&r->cgroups, c->id, r->ncg) < 0) {
        free(p);
        return -1;
    }
    r->cgpath[r->ncg++] = p;
    return 0;
}

/* Each row's cgroup path, known once every record is read (perf looks
 * it up when it prints). 0, or -1 out of memory. */
static int name_cgroups(run *r)
{
    size_t i, j;

    for (i = 0; i < r->out->n; i++) {
        hist *h = &r->out->ev[i];

        for (j = 0; j < h->n; j++) {
            const uint64_t *k = h->v[j].it.cgroup ? ps_u64map__get(&r->cgroups,
                                                                   h->v[j].it.cgroup) : NULL;

            if (k != NULL && (h->v[j].it.cgroup_name = hist_str(h, r->cgpath[*k])) == NULL)
                return -1;
        }
    }
    return 0;
}

/* Keys that are a sample's own fields: rows are not a location's. */
static int sample_keyed(const hist_keys *k)
{
    return hist_keys_has(k, HK_WEIGHT) || hist_keys_has(k, HK_LOCAL_WEIGHT) ||
           hist_keys_has(k, HK_TRANSACTION) || hist_keys_has(k, HK_CGROUP);
}

static int on_record(void *ctx, walk *w, const ps_event *ev)
{
    run *r = ctx;

    (void)w;
    if (r->npend > 0 && changes_kernel(ev))
        r->conflict = 1;
    if (changes_resolver(ev->type)) {
        if (r->hc != NULL)
            hist_cache_forget(r->hc);
        if (r->gm != NULL)
            graph_memo_clear(r->gm);
        r->last[0].h = r->last[1].h = NULL;
    }
    if (ev->type == PERF_RECORD_LOST_SAMPLES)
        r->out->nr_lost_samples += ev->u.lost_samples.lost;
    if (ev->type == PERF_RECORD_CGROUP && hist_keys_has(&r->o->keys, HK_CGROUP))
        return note_cgroup(r, &ev->u.cgroup);
    if (r->o->graph != NULL && (ev->type == PERF_RECORD_MMAP || ev->type == PERF_RECORD_MMAP2))
        return note_mapped(r, ev->type == PERF_RECORD_MMAP ? ev->u.mmap.filename
                                                            : ev->u.mmap2.filename);
    return 0;
}

/* A thread first seen without a comm is ":tid" until its first COMM,
 * which perf writes over that placeholder: rows made before then get the
 * name too, and merge with the rows made after. */
static int fix_placeholder(hist *h, hist_entry *e, const ps_machine *m)
{
    const ps_thread *th;
    char ph[16];

    snprintf(ph, sizeof(ph), ":%d", (int)e->it.tid);
    if (e->it.comm == NULL || strcmp(e->it.comm, ph) != 0 ||
        (th = ps_machine__thread(m, (uint32_t)e->it.pid, (uint32_t)e->it.tid, e->it.time)) == NULL)
        return 0;
    return (e->it.comm = hist_str(h, ps_thread__comm(th, e->it.time))) == NULL ? -1 : 1;
}

/* perf names a thread by its last comm (the pid key, the comm widths) */
static int at_end(void *ctx, walk *w)
{
    run *r = ctx;
    const ps_machine *m = ps_resolver__machine(walk_resolver(w));
    size_t i, j;

    if (r->npend > 0 && drain(r, w) < 0) {
        fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
        return -1;
    }
    /* perf diff prints a section for every event of the base, samples or
     * not; perf report's group table, one for every member */
    for (i = 0; (r->o->all_events || r->o->groups) && i < ps_session_nr_evsels(walk_session(w));
         i++)
        if ((r->o->all_events || in_group(w, i, r->o->force_leader)) &&
            event_hist(r, w, ps_session_evsel(walk_session(w), i)) == NULL) {
            fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
            return -1;
        }
    for (i = 0; i < r->out->n; i++) {
        hist *h = &r->out->ev[i];
        int renamed = 0, rc = 0;

        if (i < r->nshapes && r->shaped)
            diff_shape_apply(r->shapes[i], h);
        if (r->rshaped && diff_shape_rank(i < r->nshapes ? r->shapes[i] : NULL, h) < 0) {
            fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
            return -1;
        }
        if (r->rshaped && i < r->nshapes) {    /* a group's rows pair in it */
            h->shape = r->shapes[i];
            r->shapes[i] = NULL;
        }

        for (j = 0; j < h->n && rc >= 0; j++) {
            hist_entry *e = &h->v[j];
            char comm[64];

            if ((rc = fix_placeholder(h, e, m)) > 0)
                renamed = 1;
            e->thread_comm = hist_str(h, ps_resolver__comm(walk_resolver(w), (uint32_t)e->it.pid,
                                                           (uint32_t)e->it.tid, UINT64_MAX,
                                                           comm, sizeof(comm)));
            if (e->thread_comm == NULL)
                rc = -1;
        }
        if (rc < 0 || (renamed && hist_collapse(h) < 0)) {
            fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
            return -1;
        }
    }
    return 0;
}

static int on_first(void *ctx, walk *w, const ps_event *ev, const ps_evsel *e,
                    uint64_t period);

/* Before the first record: perf's -C checks, on the session's events */
static int start(run *r, walk *w)
{
    r->started = 1;
    return r->o->filter != NULL && r->o->filter->cpus != NULL &&
           filter_check_cpus(r->o->filter, walk_session(w)) < 0 ? -1 : 0;
}

static int on_first_record(void *ctx, walk *w, const ps_event *ev)
{
    run *r = ctx;

    if (!r->started && start(r, w) < 0)
        return -1;
    walk_at_end(w, at_end);
    return on_record(ctx, w, ev);
}

static int on_first(void *ctx, walk *w, const ps_event *ev, const ps_evsel *e,
                    uint64_t period)
{
    run *r = ctx;

    if (!r->started && start(r, w) < 0)
        return -1;
    walk_at_end(w, at_end);
    walk_tp_funcs(w);
    return on_sample(ctx, w, ev, e, period);
}

/* the fast loop starts over: back to nothing summed */
static void reset(void *ctx)
{
    run *r = ctx;

    hist_set_free(r->out);
    if (r->lg != NULL)
        r->lg->h = NULL;
    if (r->names != NULL)
        memset(r->names, 0, INTERN_SLOTS * sizeof(*r->names));
    if (r->memo != NULL)
        cc_memo_clear(r->memo);
    if (r->gm != NULL)
        graph_memo_clear(r->gm);
    if (r->slot != NULL)
        memset(r->slot, 0, r->nslot * sizeof(*r->slot));
    if (r->cache != NULL)
        memset(r->cache, 0, CHAIN_CACHE * sizeof(*r->cache));
    if (r->hc != NULL)
        hist_cache_forget(r->hc);
    r->last[0].h = r->last[1].h = NULL;
    r->stale.set = 0;
    r->npend = 0;
    r->conflict = 0;
    ps_u64map__free(&r->a2l);
    shapes_free(r);
}

/* Whether kernel samples may wait for kallsyms (see the top): the keys
 * only those drain() fills in, the DSO one of them. */
static int may_defer(const input_opts *in, const hist_capture_opts *o)
{
    struct stat st;
    int i;

    for (i = 0; i < o->keys.n; i++)
        if (o->keys.k[i] != HK_COMM && o->keys.k[i] != HK_PID && o->keys.k[i] != HK_TID &&
            o->keys.k[i] != HK_DSO && o->keys.k[i] != HK_SYM && o->keys.k[i] != HK_CPU)
            return 0;
    return o->ksyms != NULL && !o->children && o->filter == NULL && o->hide == NULL &&
           hist_keys_has(&o->keys, HK_DSO) && in->path != NULL &&
           stat(in->path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The --children chain cache, empty: 3 MiB touched at scattered slots,
 * in huge pages rather than 4 KiB faults. NULL out of memory. */
static chain_slot *chain_cache_new(void)
{
    chain_slot *c = ps_alloc_huge(CHAIN_CACHE * sizeof(*c));

    if (c != NULL)
        memset(c, 0, CHAIN_CACHE * sizeof(*c));
    return c;
}

static int by_idx(const void *a, const void *b)
{
    const hist *x = a, *y = b;

    return (x->idx > y->idx) - (x->idx < y->idx);
}

int hist_capture(const char *cmd, const input_opts *in, const hist_capture_opts *o,
                 hist_set *out)
{
    run r;
    walk_cb cb = { &r, on_first, on_first_record };
    walk_opts wo;
    size_t i;
    int rc;

    memset(&r, 0, sizeof(r));
    r.cmd = cmd;
    r.o = o;
    r.out = out;
    memset(out, 0, sizeof(*out));
    memset(&wo, 0, sizeof(wo));
    wo.symfs = o->symfs;
    wo.kallsyms = o->kallsyms;
    wo.max_stack = o->max_stack;
    wo.stack_outer = o->stack_outer;
    wo.reset = reset;
    wo.ksyms = o->ksyms;
    r.rshaped = !o->by_name && diff_shape_report_wanted(&o->keys, o->children, o->inlines);
    r.src = hist_keys_has(&o->keys, HK_SRCLINE) || hist_keys_has(&o->keys, HK_SRCFILE);
    r.socket = hist_keys_has(&o->keys, HK_SOCKET);
    /* (rows from perf's tree: each entry walks it, as in perf; the chain
     * cache's rows are by symbol, not by the address srcline needs) */
    if (o->children && !r.rshaped && !r.src && (r.cache = chain_cache_new()) == NULL) {
        fprintf(stderr, "perfsift %s: out of memory\n", cmd);
        return EXIT_BADINPUT;
    }
    /* rows by location: not when a row is what a sample says (key trace),
     * nor when every sample walks perf diff's tree */
    r.shaped = diff_shape_wanted(&o->keys, o->by_name);
    if (!hist_keys_has(&o->keys, HK_TRACE) && !r.shaped && !r.rshaped && !r.src &&
        !sample_keyed(&o->keys) &&
        (r.hc = hist_cache_new()) == NULL) {
        free(r.cache);
        fprintf(stderr, "perfsift %s: out of memory\n", cmd);
        return EXIT_BADINPUT;
    }
    r.defer = o->graph == NULL && may_defer(in, o);
    rc = walk_run(cmd, in, &wo, &cb);
    if (rc == EXIT_OK && r.conflict) {
        input_opts again = *in;

        again.quiet = 1;        /* its warnings were printed */
        reset(&r);
        r.defer = 0;
        rc = walk_run(cmd, &again, &wo, &cb);
    }
    if (rc == EXIT_OK && r.ncg > 0 && name_cgroups(&r) < 0) {
        fprintf(stderr, "perfsift %s: out of memory\n", cmd);
        rc = EXIT_BADINPUT;
    }
    for (i = 0; i < r.ncg; i++)
        free(r.cgpath[i]);
    free(r.cgpath);
    ps_u64map__free(&r.cgroups);
    shapes_free(&r);
    free(r.pend);
    free(r.slot);
    free(r.cache);
    hist_cache_free(r.hc);
    free(r.trace);
    free(r.ents);
    free(r.sfx);
    cc_memo_free(r.memo);
    graph_memo_free(r.gm);
    free(r.dsos);
    free(r.names);
    free(r.seen);
    free(r.modes);
    free(r.stale.ips);
    free(r.stale.regs);
    free(r.stale.stack);
    last_free(&r);
    ps_u64map__free(&r.mapped);
    ps_u64map__free(&r.a2l);
    ps_u64map__free(&r.dso_ptr);
    ps_u64map__free(&r.dso_hash);
    for (i = 0; i < 2; i++) {
        free(r.last[i].ips);
        free(r.last[i].rows);
        free(r.last[i].mode);
    }
    if (out->n > 1)
        qsort(out->ev, out->n, sizeof(*out->ev), by_idx);
    return rc;
}

void hist_set_free(hist_set *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        hist_free(&s->ev[i]);
    free(s->ev);
    memset(s, 0, sizeof(*s));
}
