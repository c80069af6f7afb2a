/* SPDX-License-Identifier: MIT */
/*
 * script_stat.c - perf script's view of `perf stat record` captures (perf
 * 6.1): the counts the STAT records fill in and the rows each STAT_ROUND
 * prints. The rules are written out in script_stat.h.
 *
 * State, as perf keeps it: the first CPU and THREAD maps, the STAT_CONFIG
 * terms, and per event (by ps_evsel index) its CPU map, a counts array and
 * the raw values of the previous round, both ncpus x nthreads and allocated
 * once, when both maps are known (perf's set_maps()). Events that appear
 * later (pipe mode) never get counts, as in perf.
 *
 * Invariants: counters[i] exists for every evsel index seen so far;
 * counters[i].counts != NULL only if allocated and i < nr_alloc_evsels;
 * counters[i].cpus points either at own_cpus or at the session map.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "script_stat.h"

/* perf's enum aggr_mode values (6.1) that turn counts into per-round
 * differences before printing; the others (global 1, unset 6, max 8 ...)
 * leave them as stored. */
enum {
    AGGR_NONE = 0, AGGR_GLOBAL = 1, AGGR_SOCKET = 2, AGGR_DIE = 3,
    AGGR_CORE = 4, AGGR_THREAD = 5, AGGR_UNSET = 6, AGGR_NODE = 7
};

/* PERF_STAT_CONFIG_TERM__* */
enum { TERM_AGGR_MODE = 0, TERM_INTERVAL = 1, TERM_SCALE = 2 };

/* EVENT_UPDATE kinds */
enum { EVENT_UPDATE_CPUS = 3 };

typedef struct stat_counts {
    uint64_t val, ena, run;
} stat_counts;

typedef struct stat_counter {
    int32_t       *own_cpus;        /* owned; EVENT_UPDATE CPUS, NULL if none */
    size_t         nr_own_cpus;
    const int32_t *cpus;            /* the event's CPU map once allocated */
    size_t         nr_cpus;
    stat_counts   *counts;          /* owned; [cpu_idx * nr_threads + thread] */
    stat_counts   *prev;            /* owned; raw values of the last round */
} stat_counter;

struct script_stat {
    ps_session   *s;                /* not owned */
    FILE         *warn;
    int           header_printed;
    uint32_t      aggr_mode;
    int           scale;
    int           have_cpus, have_threads;
    int32_t      *cpus;             /* owned; the first CPU_MAP */
    size_t        nr_cpus;
    int32_t      *pids;             /* owned; the first THREAD_MAP */
    size_t        nr_threads;
    int           allocated;        /* set_maps() done */
    size_t        nr_alloc_evsels;  /* events that got counts */
    stat_counter *counters;         /* owned; nr_counters entries */
    size_t        nr_counters;
};

/* --- helpers ------------------------------------------------------------------- */

static int fail(ps_error *err, int code, const ps_event *ev, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(ps_error *err, int code, const ps_event *ev, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL)
        return code;
    err->code = code;
    err->offset = ev->offset;
    err->record_type = ev->type;
    err->record_index = ev->index;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return code;
}

static void warn(const script_stat *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void warn(const script_stat *st, const char *fmt, ...)
{
    va_list ap;

    if (st->warn == NULL)
        return;
    va_start(ap, fmt);
    vfprintf(st->warn, fmt, ap);
    va_end(ap);
}

static const char *evsel_name(const ps_evsel *e)
{
    return e != NULL && e->name != NULL ? e->name : "unknown";
}

/* Grow counters[] to cover every evsel the session has now. */
static int sync_counters(script_stat *st)
{
    size_t n = ps_session_nr_evsels(st->s);
    stat_counter *c;

    if (n <= st->nr_counters)
        return 0;
    if ((c = realloc(st->counters, n * sizeof(*c))) == NULL)
        return PS_ENOMEM;
    memset(c + st->nr_counters, 0, (n - st->nr_counters) * sizeof(*c));
    st->counters = c;
    st->nr_counters = n;
    return 0;
}

/*
 * perf's evlist__id2evsel(): one event or id 0 means the first; then the
 * event holding id; failing that the first again, unless the first event
 * has sample_id_all. -1 when there is nothing to return.
 */
static long find_evsel(const script_stat *st, uint64_t id)
{
    size_t n = ps_session_nr_evsels(st->s);
    const ps_evsel *e;

    if (n == 0)
        return -1;
    if (n == 1 || id == 0)
        return 0;
    if ((e = ps_session_evsel_by_id(st->s, id)) != NULL)
        return (long)e->idx;
    if (!ps_attr_flag(&ps_session_evsel(st->s, 0)->attr, PS_ATTR_SAMPLE_ID_ALL))
        return 0;
    return -1;
}

/* perf_cpu_map__idx(): a binary search, whatever the order of the map. */
static long cpu_index(const int32_t *cpus, size_t nr, int32_t cpu)
{
    size_t low = 0, high = nr;

    while (low < high) {
        size_t mid = (low + high) / 2;

        if (cpus[mid] == cpu)
            return (long)mid;
        if (cpus[mid] > cpu)
            high = mid;
        else
            low = mid + 1;
    }
    return -1;
}

static int32_t *copy_cpus(const ps_cpu_map *m)
{
    int32_t *c = malloc((m->nr ? m->nr : 1) * sizeof(*c));

    if (c != NULL && m->nr > 0)
        memcpy(c, m->cpus, m->nr * sizeof(*c));
    return c;
}

/* perf's set_maps(): once both maps are in, give every event its CPU map
 * and zeroed counts. */
static int set_maps(script_stat *st)
{
    /* perf_cpu_map__empty(): the "any CPU" map, [-1] */
    int any = st->nr_cpus == 0 || st->cpus[0] == -1;
    size_t i;
    int rc;

    if (!st->have_cpus || !st->have_threads || st->allocated)
        return 0;
    if ((rc = sync_counters(st)) < 0)
        return rc;
    for (i = 0; i < st->nr_counters; i++) {
        stat_counter *c = &st->counters[i];
        size_t nr;

        if (c->own_cpus != NULL && !any) {
            c->cpus = c->own_cpus;
            c->nr_cpus = c->nr_own_cpus;
        } else {
            c->cpus = st->cpus;
            c->nr_cpus = st->nr_cpus;
        }
        nr = c->nr_cpus * st->nr_threads;
        c->counts = calloc(nr ? nr : 1, sizeof(*c->counts));
        c->prev = calloc(nr ? nr : 1, sizeof(*c->prev));
        if (c->counts == NULL || c->prev == NULL)
            return PS_ENOMEM;
    }
    st->nr_alloc_evsels = st->nr_counters;
    st->allocated = 1;
    return 0;
}

/* --- records --------------------------------------------------------------------- */

static int on_thread_map(script_stat *st, const ps_event *ev)
{
    const ps_record_thread_map *m = &ev->u.thread_map;
    uint64_t i;

    if (st->have_threads) {
        warn(st, "Extra thread map event, ignoring.\n");
        return 0;
    }
    if ((st->pids = malloc((m->nr ? m->nr : 1) * sizeof(*st->pids))) == NULL)
        return PS_ENOMEM;
    for (i = 0; i < m->nr; i++)
        st->pids[i] = (int32_t)(uint32_t)m->entries[i].pid;     /* pid_t */
    st->nr_threads = m->nr;
    st->have_threads = 1;
    return set_maps(st);
}

static int on_cpu_map(script_stat *st, const ps_event *ev)
{
    if (st->have_cpus) {
        warn(st, "Extra cpu map event, ignoring.\n");
        return 0;
    }
    if ((st->cpus = copy_cpus(&ev->u.cpu_map)) == NULL)
        return PS_ENOMEM;
    st->nr_cpus = ev->u.cpu_map.nr;
    st->have_cpus = 1;
    return set_maps(st);
}

static void on_stat_config(script_stat *st, const ps_event *ev)
{
    const ps_record_stat_config *c = &ev->u.stat_config;
    uint64_t i;

    for (i = 0; i < c->nr; i++) {
        switch (c->entries[i].tag) {
        case TERM_AGGR_MODE:
            st->aggr_mode = (uint32_t)c->entries[i].val;    /* an enum */
            break;
        case TERM_INTERVAL:
            break;
        case TERM_SCALE:
            st->scale = c->entries[i].val != 0;             /* a bool */
            break;
        default:
            warn(st, "unknown stat config term %" PRIu64 "\n", c->entries[i].tag);
            break;
        }
    }
}

/* EVENT_UPDATE CPUS sets the event's own CPUs, which count only if they
 * come before the maps. Anything wrong here is the caller's to report. */
static int on_event_update(script_stat *st, const ps_event *ev)
{
    const ps_record_event_update *u = &ev->u.event_update;
    stat_counter *c;
    long idx;
    int rc;

    if (u->type != EVENT_UPDATE_CPUS || (idx = find_evsel(st, u->id)) < 0)
        return 0;
    if ((rc = sync_counters(st)) < 0)
        return rc;
    c = &st->counters[idx];
    free(c->own_cpus);
    c->nr_own_cpus = 0;
    if ((c->own_cpus = copy_cpus(&u->cpus)) == NULL)
        return PS_ENOMEM;
    c->nr_own_cpus = u->cpus.nr;
    return 0;
}

static int on_stat(script_stat *st, const ps_event *ev, ps_error *err)
{
    const ps_record_stat *r = &ev->u.stat;
    const ps_evsel *e;
    stat_counter *c;
    long idx = find_evsel(st, r->id), cpu_idx;

    if (idx < 0)
        return fail(err, PS_ECORRUPT, ev, "Failed to resolve counter for stat event.");
    e = ps_session_evsel(st->s, (size_t)idx);
    if (!st->allocated)
        cpu_idx = -1;           /* perf: no event has a CPU map yet */
    else if ((size_t)idx >= st->nr_alloc_evsels)
        return fail(err, PS_EUNSUPPORTED, ev, "STAT record: event %s came after "
                    "the CPU_MAP and THREAD_MAP and has no counts; perf 6.1 "
                    "crashes here", evsel_name(e));
    else
        cpu_idx = cpu_index(st->counters[idx].cpus, st->counters[idx].nr_cpus,
                            (int32_t)r->cpu);
    if (cpu_idx < 0)
        return fail(err, PS_ECORRUPT, ev, "Invalid CPU %d for event %s.",
                    (int)r->cpu, evsel_name(e));
    if (r->thread >= st->nr_threads)
        return fail(err, PS_ECORRUPT, ev,
                    "Failed to find perf count for CPU %d thread %d on event %s.",
                    (int)r->cpu, (int)r->thread, evsel_name(e));
    c = &st->counters[idx];
    c->counts[(size_t)cpu_idx * st->nr_threads + r->thread] =
        (stat_counts){ r->val, r->ena, r->run };
    return 0;
}

/* perf_counts_values__scale(): (u64)((double)val * ena / run), which is 0 on
 * x86-64 when the double is 2^64 or more. */
static uint64_t scaled(const stat_counts *v)
{
    double d = (double)v->val * (double)v->ena / (double)v->run;

    return d >= 18446744073709551616.0 ? 0 : (uint64_t)d;
}

/* perf_stat_process_counter() for the modes that print per-round values:
 * difference from the previous raw values, then scaling. */
static void process_counter(script_stat *st, stat_counter *c)
{
    size_t i, nr = c->nr_cpus * st->nr_threads;

    switch (st->aggr_mode) {
    case AGGR_NONE: case AGGR_SOCKET: case AGGR_DIE:
    case AGGR_CORE: case AGGR_THREAD: case AGGR_NODE:
        break;
    default:
        return;
    }
    for (i = 0; i < nr; i++) {
        stat_counts *v = &c->counts[i], raw = *v;

        v->val -= c->prev[i].val;
        v->ena -= c->prev[i].ena;
        v->run -= c->prev[i].run;
        c->prev[i] = raw;
        if (!st->scale)
            continue;
        if (v->run == 0)
            v->val = 0;
        else if (v->run < v->ena)
            v->val = scaled(v);
    }
}

static int on_stat_round(script_stat *st, FILE *out, const ps_event *ev, ps_error *err)
{
    size_t n = ps_session_nr_evsels(st->s), i, t, k;
    int rc;

    if ((rc = sync_counters(st)) < 0)
        return rc;
    for (i = 0; i < n; i++)
        if (i >= st->nr_alloc_evsels)
            return fail(err, PS_EUNSUPPORTED, ev,
                        "STAT_ROUND record: event %s has no counts (no CPU_MAP "
                        "and THREAD_MAP before it); perf 6.1 crashes here",
                        evsel_name(ps_session_evsel(st->s, i)));
    for (i = 0; i < n; i++) {
        stat_counter *c = &st->counters[i];
        const char *name = evsel_name(ps_session_evsel(st->s, i));

        process_counter(st, c);
        if (!st->header_printed) {
            fprintf(out, "%3s %8s %15s %15s %15s %15s %s\n",
                    "CPU", "THREAD", "VAL", "ENA", "RUN", "TIME", "EVENT");
            st->header_printed = 1;
        }
        for (t = 0; t < st->nr_threads; t++) {
            for (k = 0; k < c->nr_cpus; k++) {
                const stat_counts *v = &c->counts[k * st->nr_threads + t];

                fprintf(out, "%3d %8d %15" PRIu64 " %15" PRIu64 " %15" PRIu64
                        " %15" PRIu64 " %s\n", (int)c->cpus[k], (int)st->pids[t],
                        v->val, v->ena, v->run, ev->u.stat_round.time, name);
            }
        }
    }
    return 0;
}

/* --- public ------------------------------------------------------------------------ */

script_stat *script_stat_new(ps_session *s)
{
    script_stat *st = calloc(1, sizeof(*st));

    if (st == NULL)
        return NULL;
    st->s = s;
    st->warn = stderr;
    return st;
}

void script_stat_set_warn(script_stat *st, FILE *warn)
{
    st->warn = warn;
}

int script_stat_event(script_stat *st, FILE *out, const ps_event *ev, ps_error *err)
{
    int rc = 0;

    switch (ev->type) {
    case PS_RECORD_THREAD_MAP:
        rc = on_thread_map(st, ev);
        break;
    case PS_RECORD_CPU_MAP:
        rc = on_cpu_map(st, ev);
        break;
    case PS_RECORD_STAT_CONFIG:
        on_stat_config(st, ev);
        break;
    case PS_RECORD_STAT:
        rc = on_stat(st, ev, err);
        break;
    case PS_RECORD_STAT_ROUND:
        rc = on_stat_round(st, out, ev, err);
        break;
    case PS_RECORD_EVENT_UPDATE:
        rc = on_event_update(st, ev);
        return rc < 0 ? fail(err, rc, ev, "out of memory") : 0;
    default:
        return 0;
    }
    if (rc == PS_ENOMEM)
        return fail(err, rc, ev, "out of memory");
    return rc < 0 ? rc : 1;
}

void script_stat_free(script_stat *st)
{
    size_t i;

    if (st == NULL)
        return;
    for (i = 0; i < st->nr_counters; i++) {
        free(st->counters[i].own_cpus);
        free(st->counters[i].counts);
        free(st->counters[i].prev);
    }
    free(st->counters);
    free(st->cpus);
    free(st->pids);
    free(st);
}
