/* SPDX-License-Identifier: MIT */
/*
 * json_speedscope.c - perfsift json --format speedscope: a file in
 * speedscope's published format (https://www.speedscope.app/file-format-
 * schema.json; schemas/json-speedscope.schema.json says what we put in
 * it): one "sampled" profile per thread and event, in the order their
 * first samples came, sharing one frame table. A sample is its call chain
 * root first, as perf script resolves it (inlined entries included), or
 * its ip alone; its weight is its period, in nanoseconds for cpu-clock and
 * task-clock, else a plain count ("none").
 *
 * speedscope wants the whole file at once, so the samples are kept: each
 * distinct frame (name, file) once, each distinct stack once as an array
 * of frame ids (both found again by a 64-bit hash in a ps_u64map), and per
 * profile one (stack id, weight) pair per sample.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "../libparse/u64map.h"

typedef struct frame { char *name, *file; } frame;
typedef struct stack { uint32_t first, nr; } stack;    /* a slice of ids[] */

typedef struct profile {
    uint64_t  key;              /* event idx << 32 | tid */
    char     *name;             /* owned */
    int       ns;               /* weights are nanoseconds */
    uint64_t  total;
    uint32_t *stacks;           /* owned, per sample */
    uint64_t *weights;          /* owned, per sample */
    size_t    nr, cap_stacks, cap_weights;
} profile;

/* The frame id of the last frame seen with a (name, file) pair of
 * pointers: the resolver's strings stay put, so most frames are found
 * without hashing and comparing their text. Entries hold for one
 * generation of r->cache (until a record that is not a sample). */
#define MEMO_BITS 12

typedef struct memo { const char *name, *file; uint32_t gen, id; } memo;

typedef struct speedscope {
    const char *path;
    memo       *memo;           /* owned; NULL: none */
    int         multi_event;    /* profile names carry the event */
    frame      *frames;
    size_t      nr_frames, cap_frames;
    ps_u64map   frame_ix;       /* hash of (name, file) -> frame index */
    uint32_t   *ids;            /* every stack's frame ids, back to back */
    size_t      nr_ids, cap_ids;
    stack      *stacks;
    size_t      nr_stacks, cap_stacks;
    ps_u64map   stack_ix;       /* hash of the ids -> stack index */
    profile    *profiles;
    size_t      nr_profiles, cap_profiles;
    uint32_t   *scratch;        /* the sample being built, leaf first */
    size_t      cap_scratch;
    int         oom;
} speedscope;

/* --- growing arrays and hashing -------------------------------------------------- */

static int grow(void *pp, size_t *cap, size_t need, size_t size)
{
    void **p = pp;
    size_t n = *cap ? *cap : 16;
    void *q;

    if (need <= *cap)
        return 0;
    while (n < need)
        n *= 2;
    if ((q = realloc(*p, n * size)) == NULL)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return mix(h, 0);
}

/* Find what hashes to h and is equal (eq) in m: 1 with *id set, or 0 with
 * *key the free key to put it under (a collision moves on to h + 1). */
static int lookup(const ps_u64map *m, uint64_t h, int (*eq)(const void *, uint32_t),
                  const void *ctx, uint64_t *key, uint32_t *id)
{
    const uint64_t *v;

    for (;; h++) {
        if ((v = ps_u64map__get(m, h)) == NULL) {
            *key = h;
            return 0;
        }
        if (eq(ctx, (uint32_t)*v)) {
            *id = (uint32_t)*v;
            return 1;
        }
    }
}

/* --- frames and stacks ------------------------------------------------------------ */

typedef struct frame_key { const speedscope *sc; const char *name, *file; } frame_key;

static int frame_eq(const void *ctx, uint32_t id)
{
    const frame_key *k = ctx;

    return strcmp(k->sc->frames[id].name, k->name) == 0 &&
           strcmp(k->sc->frames[id].file, k->file) == 0;
}

static int frame_id(speedscope *sc, const char *name, const char *file, uint32_t *out)
{
    frame_key k = { sc, name, file };
    uint64_t key;
    frame *f;

    if (lookup(&sc->frame_ix, hash_str(hash_str(1, name), file), frame_eq, &k, &key, out))
        return 0;
    if (grow(&sc->frames, &sc->cap_frames, sc->nr_frames + 1, sizeof(*sc->frames)) < 0)
        return -1;
    f = &sc->frames[sc->nr_frames];
    if ((f->name = strdup(name)) == NULL || (f->file = strdup(file)) == NULL) {
        free(f->name);
        return -1;
    }
    if (ps_u64map__put(&sc->frame_ix, key, sc->nr_frames) < 0) {
        free(f->name);
        free(f->file);
        return -1;
    }
    *out = (uint32_t)sc->nr_frames++;
    return 0;
}

typedef struct stack_key { const speedscope *sc; const uint32_t *ids; size_t nr; } stack_key;

static int stack_eq(const void *ctx, uint32_t id)
{
    const stack_key *k = ctx;
    const stack *s = &k->sc->stacks[id];

    return s->nr == k->nr && memcmp(k->sc->ids + s->first, k->ids, k->nr * sizeof(*k->ids)) == 0;
}

/* ids: leaf first (as resolved); stored root first (as speedscope reads) */
static int stack_id(speedscope *sc, const uint32_t *ids, size_t nr, uint32_t *out)
{
    stack_key k = { sc, NULL, nr };
    uint64_t h = 7, key;
    size_t i;

    /* + 1: an empty first stack still gets an array (no NULL + 0 below) */
    if (grow(&sc->ids, &sc->cap_ids, sc->nr_ids + nr + 1, sizeof(*sc->ids)) < 0 ||
        grow(&sc->stacks, &sc->cap_stacks, sc->nr_stacks + 1, sizeof(*sc->stacks)) < 0)
        return -1;
    for (i = 0; i < nr; i++)                /* build it at the end of ids[] */
        sc->ids[sc->nr_ids + i] = ids[nr - 1 - i];
    k.ids = sc->ids + sc->nr_ids;
    for (i = 0; i < nr; i++)
        h = mix(h, k.ids[i]);
    if (lookup(&sc->stack_ix, h, stack_eq, &k, &key, out))
        return 0;
    if (ps_u64map__put(&sc->stack_ix, key, sc->nr_stacks) < 0)
        return -1;
    sc->stacks[sc->nr_stacks].first = (uint32_t)sc->nr_ids;
    sc->stacks[sc->nr_stacks].nr = (uint32_t)nr;
    sc->nr_ids += nr;
    *out = (uint32_t)sc->nr_stacks++;
    return 0;
}

/* --- profiles --------------------------------------------------------------------- */

static int is_ns_event(const ps_evsel *e)
{
    return e->attr.type == PERF_TYPE_SOFTWARE &&
           (e->attr.config == PERF_COUNT_SW_CPU_CLOCK || e->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

/* How many events sample. Asked at the first sample: a pipe declares its
 * events with records, and the walk starts at the first of them, but all
 * come before any sample. */
static size_t nr_sampling(ps_session *s)
{
    size_t i, n = 0;

    for (i = 0; i < ps_session_nr_evsels(s); i++)
        n += ps_session_evsel(s, i)->attr.sample_period != 0;
    return n;
}

static profile *profile_of(speedscope *sc, walk *w, const ps_sample *smp, const ps_evsel *e)
{
    uint64_t key = (uint64_t)e->idx << 32 | smp->tid;
    char comm[32], *name;
    const char *c;
    profile *p;
    size_t i, n;

    /* a capture has few threads; the last one asked for is the likely one */
    for (i = sc->nr_profiles; i-- > 0;)
        if (sc->profiles[i].key == key)
            return &sc->profiles[i];
    if (grow(&sc->profiles, &sc->cap_profiles, sc->nr_profiles + 1, sizeof(*p)) < 0)
        return NULL;
    if (sc->nr_profiles == 0)
        sc->multi_event = nr_sampling(walk_session(w)) != 1;
    c = ps_resolver__comm(walk_resolver(w), smp->pid, smp->tid, smp->time, comm, sizeof(comm));
    n = strlen(c) + (e->name ? strlen(e->name) : 0) + 64;
    if ((name = malloc(n)) == NULL)
        return NULL;
    if (sc->multi_event)
        snprintf(name, n, "%s %d/%d %s", c, (int)smp->pid, (int)smp->tid,
                 e->name ? e->name : "[unknown]");
    else
        snprintf(name, n, "%s %d/%d", c, (int)smp->pid, (int)smp->tid);
    p = &sc->profiles[sc->nr_profiles++];
    memset(p, 0, sizeof(*p));
    p->key = key;
    p->name = name;
    p->ns = is_ns_event(e);
    return p;
}

static int profile_add(profile *p, uint32_t stack, uint64_t weight)
{
    if (grow(&p->stacks, &p->cap_stacks, p->nr + 1, sizeof(*p->stacks)) < 0 ||
        grow(&p->weights, &p->cap_weights, p->nr + 1, sizeof(*p->weights)) < 0)
        return -1;
    p->stacks[p->nr] = stack;
    p->weights[p->nr++] = weight;
    p->total += weight;
    return 0;
}

/* --- the form ----------------------------------------------------------------------- */

static int begin(json_run *r, ps_session *s)
{
    speedscope *sc = calloc(1, sizeof(*sc));

    if ((r->state = sc) == NULL) {
        fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
        return -1;
    }
    ps_u64map__init(&sc->frame_ix);
    ps_u64map__init(&sc->stack_ix);
    sc->memo = calloc((size_t)1 << MEMO_BITS, sizeof(*sc->memo));  /* NULL: slower */
    sc->path = r->in.path ? r->in.path : "perf.data";
    (void)s;
    return 0;
}

static const char *frame_name(const ps_frame *f)
{
    return f->inl ? f->inl : f->r.sym ? f->r.sym->name : "[unknown]";
}

/* frame_id() of f, through the memo (inlined entries' names are made per
 * call chain: never memoized) */
static int frame_id_of(speedscope *sc, uint32_t gen, const ps_frame *f, uint32_t *out)
{
    const char *name = frame_name(f), *file = f->r.dso ? f->r.dso : "";
    memo *m = NULL;

    if (f->inl == NULL && sc->memo != NULL) {
        uint64_t h = ((uintptr_t)name ^ (uintptr_t)file * 31) * 0x9e3779b97f4a7c15ull;

        m = &sc->memo[h >> (64 - MEMO_BITS)];
        if (m->gen == gen && m->name == name && m->file == file) {
            *out = m->id;
            return 0;
        }
    }
    if (frame_id(sc, name, file, out) < 0)
        return -1;
    if (m != NULL)
        *m = (memo){ name, file, gen, *out };
    return 0;
}

static int add_sample(speedscope *sc, uint32_t gen, walk *w, const ps_event *ev,
                      const ps_evsel *e, uint64_t period)
{
    const ps_sample *smp = &ev->u.sample;
    ps_resolver *res = walk_resolver(w);
    const ps_frame *frames = NULL;
    ps_frame one;
    size_t i, n = 0;
    uint32_t sid;
    profile *p;

    if (walk_use_callchain(w) && (smp->sample_type & PERF_SAMPLE_CALLCHAIN)) {
        n = ps_resolver__frames(res, smp, ev->evsel->attr.branch_sample_type,
                                walk_max_stack(w), &frames);
    } else if (smp->sample_type & PERF_SAMPLE_IP) {
        ps_resolver__addr(res, smp->pid, smp->tid, smp->time,
                          ev->misc & PERF_RECORD_MISC_CPUMODE_MASK, smp->ip, &one);
        frames = &one;
        n = 1;
    }
    if (grow(&sc->scratch, &sc->cap_scratch, n + 1, sizeof(*sc->scratch)) < 0)
        return -1;
    for (i = 0; i < n; i++)
        if (frame_id_of(sc, gen, &frames[i], &sc->scratch[i]) < 0)
            return -1;
    if (stack_id(sc, sc->scratch, n, &sid) < 0 || (p = profile_of(sc, w, smp, e)) == NULL)
        return -1;
    return profile_add(p, sid, period);
}

static int sample(json_run *r, walk *w, const ps_event *ev, const ps_evsel *e, uint64_t period)
{
    if (add_sample(r->state, r->cache.gen, w, ev, e, period) < 0) {
        fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
        return -1;
    }
    return 0;
}

static void write_frames(linebuf *b, const speedscope *sc)
{
    size_t i;

    lb_puts(b, "\"shared\":{\"frames\":[");
    for (i = 0; i < sc->nr_frames; i++) {
        lb_puts(b, i ? ",\n{\"name\":" : "\n{\"name\":");
        json_put_string(b, sc->frames[i].name, 0);
        lb_puts(b, ",\"file\":");
        json_put_string(b, sc->frames[i].file, 0);
        lb_putc(b, '}');
    }
    lb_puts(b, "]}");
}

static void write_profile(linebuf *b, FILE *out, const speedscope *sc, const profile *p)
{
    size_t i, j;

    lb_puts(b, "{\"type\":\"sampled\",\"name\":");
    json_put_string(b, p->name, 0);
    lb_puts(b, p->ns ? ",\"unit\":\"nanoseconds\"" : ",\"unit\":\"none\"");
    lb_puts(b, ",\"startValue\":0,\"endValue\":");
    lb_u64(b, p->total, 0);
    lb_puts(b, ",\"samples\":[");
    for (i = 0; i < p->nr; i++) {
        const stack *s = &sc->stacks[p->stacks[i]];

        lb_puts(b, i ? ",\n[" : "\n[");
        for (j = 0; j < s->nr; j++) {
            if (j)
                lb_putc(b, ',');
            lb_u64(b, sc->ids[s->first + j], 0);
        }
        lb_putc(b, ']');
        if (b->len >= (64u << 10))
            lb_flush(b, out);
    }
    lb_puts(b, "],\"weights\":[");
    for (i = 0; i < p->nr; i++) {
        if (i)
            lb_putc(b, ',');
        lb_u64(b, p->weights[i], 0);
        if (b->len >= (64u << 10))
            lb_flush(b, out);
    }
    lb_puts(b, "]}");
}

static int end(json_run *r)
{
    const speedscope *sc = r->state;
    const char *base = strrchr(sc->path, '/');
    linebuf b = { NULL, 0, 0, 0 };
    size_t i;
    int oom;

    lb_puts(&b, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n");
    write_frames(&b, sc);
    lb_puts(&b, ",\n\"profiles\":[");
    for (i = 0; i < sc->nr_profiles; i++) {
        lb_puts(&b, i ? ",\n" : "\n");
        write_profile(&b, r->out, sc, &sc->profiles[i]);
    }
    lb_puts(&b, "],\n\"name\":");
    json_put_string(&b, base ? base + 1 : sc->path, 0);
    lb_puts(&b, ",\"activeProfileIndex\":0,\"exporter\":\"perfsift 0.1.0\"}\n");
    lb_flush(&b, r->out);
    oom = b.oom;
    lb_free(&b);
    if (oom)
        fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
    return ferror(r->out) || oom ? -1 : 0;
}

static void speedscope_free(json_run *r)
{
    speedscope *sc = r->state;
    size_t i;

    if (sc == NULL)
        return;
    for (i = 0; i < sc->nr_frames; i++) {
        free(sc->frames[i].name);
        free(sc->frames[i].file);
    }
    for (i = 0; i < sc->nr_profiles; i++) {
        free(sc->profiles[i].name);
        free(sc->profiles[i].stacks);
        free(sc->profiles[i].weights);
    }
    free(sc->frames);
    free(sc->ids);
    free(sc->stacks);
    free(sc->profiles);
    free(sc->scratch);
    free(sc->memo);
    ps_u64map__free(&sc->frame_ix);
    ps_u64map__free(&sc->stack_ix);
    free(sc);
    r->state = NULL;
}

const json_form json_form_speedscope = {
    "speedscope", begin, sample, NULL, end, speedscope_free
};
