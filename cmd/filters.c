/* SPDX-License-Identifier: MIT */
/*
 * filters.c - perf script's sample filters (filters.h): the lists, the cpu
 * bitmap and the time range, parsed as perf script parses them, and the
 * test of one sample against all of them. No output besides perf's
 * messages for an impossible --cpu list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "filters.h"

int filter_list_parse(filter_list *l, const char *arg)
{
    char *copy = strdup(arg), *tok, *save = NULL;

    if (copy == NULL)
        return -1;
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char **v = realloc(l->v, (l->n + 1) * sizeof(*v));

        if (v == NULL || (v[l->n] = strdup(tok)) == NULL) {
            free(copy);
            if (v) l->v = v;
            return -1;
        }
        l->v = v;
        l->n++;
    }
    free(copy);
    return 0;
}

int filter_list_has(const filter_list *l, const char *s)
{
    size_t i;

    for (i = 0; s != NULL && i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return 1;
    return 0;
}

static int list_has_int(const filter_list *l, int v)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        if (atoi(l->v[i]) == v)
            return 1;
    return 0;
}

void filter_list_free(filter_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

int filter_cpus_parse(sample_filter *f, const char *arg)
{
    const char *p = arg;

    if (f->cpus == NULL && (f->cpus = calloc(FILTER_MAX_CPUS, 1)) == NULL)
        return -1;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b = a;

        if (end == p || a < 0 || a >= FILTER_MAX_CPUS)
            return -1;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a || b >= FILTER_MAX_CPUS)
                return -1;
            p = end;
        }
        for (; a <= b; a++) {
            f->cpus_dup |= f->cpus[a];
            f->cpus[a] = 1;
        }
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return 0;
}

/* --time once resolved (filter_time_resolve()). */
struct filter_time {
    int         state;          /* 0: not yet, 1: done, -1: failed */
    int         n;
    time_range *r;              /* owned */
};

int filter_time_resolve(const sample_filter *f, const char *cmd, const ps_features *feat)
{
    struct filter_time *t = f->time;
    uint64_t first = 0, last = 0;
    int n;

    if (t == NULL || t->state != 0)
        return t != NULL && t->state < 0 ? -1 : 0;
    if (feat != NULL && ps_features_has(feat, PS_HEADER_SAMPLE_TIME)) {
        first = feat->sample_time.first;
        last = feat->sample_time.last;
    }
    n = time_range_parse(f->time_str, first, last, f->reltime, &t->r);
    t->state = n > 0 ? 1 : -1;
    if (n > 0)
        t->n = n;
    else if (n == TIME_RANGE_NO_SPAN)
        fprintf(stderr, "perfsift %s: --time '%s' needs the capture's first and last sample "
                "times, and it has none (no SAMPLE_TIME feature)\n", cmd, f->time_str);
    else if (n == TIME_RANGE_NOMEM)
        fprintf(stderr, "perfsift %s: out of memory\n", cmd);
    else
        fprintf(stderr, "perfsift %s: invalid --time '%s'\n", cmd, f->time_str);
    return n > 0 ? 0 : -1;
}

/* --time: kept to be resolved with the capture; a range of seconds is
 * checked now (percentages need the capture). */
static int time_option(sample_filter *f, const char *cmd, const char *arg)
{
    time_range *r;
    int n;

    if (f->time == NULL && (f->time = calloc(1, sizeof(*f->time))) == NULL) {
        fprintf(stderr, "perfsift %s: out of memory\n", cmd);
        return -1;
    }
    f->time_str = arg;
    f->cmd = cmd;
    if (time_range_needs_span(arg, 0))
        return 1;
    n = time_range_parse(arg, 0, 0, 0, &r);
    free(r);
    if (n > 0)
        return 1;
    cmd_usage_error(cmd, "--time takes START,END in seconds (several apart by spaces) or "
                    "percentages (10%%/2, 0%%-10%%, 25%%), not '%s'", arg);
    return -1;
}

int filter_option(sample_filter *f, const char *cmd, int c, const char *arg)
{
    filter_list *l;

    switch (c) {
    case OPT_FILTER_COMMS: l = &f->comms; break;
    case OPT_FILTER_PIDS: l = &f->pids; break;
    case OPT_FILTER_TIDS: l = &f->tids; break;
    case OPT_FILTER_DSOS: l = &f->dsos; break;
    case 'S': l = &f->syms; break;
    case 'C':
        if (filter_cpus_parse(f, arg) < 0) {
            cmd_usage_error(cmd, "bad cpu list '%s'", arg);
            return -1;
        }
        return 1;
    case OPT_FILTER_TIME:
        return time_option(f, cmd, arg);
    default:
        return 0;
    }
    if (filter_list_parse(l, arg) < 0) {
        fprintf(stderr, "perfsift %s: out of memory\n", cmd);
        return -1;
    }
    return 1;
}

int filter_cpu_ok(const sample_filter *f, int64_t cpu)
{
    return f->cpus == NULL || (cpu >= 0 && cpu < FILTER_MAX_CPUS && f->cpus[cpu]);
}

/* perf's check of -C before it reads a sample. A pipe stream's events and
 * CPU count come later in the stream, so perf 6.1 finds every CPU too
 * large there. */
int filter_check_cpus(const sample_filter *f, ps_session *s)
{
    int pipe = ps_session_header(s)->container == PS_CONTAINER_PIPE;
    uint32_t nr = pipe ? 0 : ps_session_features(s)->nr_cpus_avail;
    size_t i, n = pipe ? 0 : ps_session_nr_evsels(s);
    unsigned t;

    for (t = 0; t < PERF_TYPE_MAX && n > 0; t++) {
        for (i = 0; i < n; i++) {
            const ps_evsel *e = ps_session_evsel(s, i);

            if (e->attr.type != t)
                continue;
            if (!(e->attr.sample_type & PERF_SAMPLE_CPU)) {
                fprintf(stderr, "File does not contain CPU events. Remove -C option to proceed.\n");
                return -1;
            }
            break;
        }
    }
    if (f->cpus_dup) {          /* libperf's cpu map parser refuses duplicates */
        fprintf(stderr, "Invalid cpu_list\n");
        return -1;
    }
    for (i = nr < FILTER_MAX_CPUS ? nr : FILTER_MAX_CPUS; i < FILTER_MAX_CPUS; i++)
        if (f->cpus[i]) {
            fprintf(stderr, "Requested CPU %zu too large. Consider raising MAX_NR_CPUS\n", i);
            return -1;
        }
    return 0;
}

/* --dsos and --symbols on the sample ip, as machine__resolve(): an ip in
 * no map has no DSO, so --dsos leaves it out; a DSO matches by its short
 * name or its whole path, a symbol by its name. */
static int where_skip(const sample_filter *f, ps_resolver *res, const ps_event *ev)
{
    const ps_sample *smp = &ev->u.sample;
    ps_frame fr;
    char jit[64];

    ps_resolver__addr(res, smp->pid, smp->tid, smp->time,
                      ev->misc & PERF_RECORD_MISC_CPUMODE_MASK, smp->ip, &fr);
    if (f->dsos.n && (fr.map == NULL ||
        (!filter_list_has(&f->dsos, ps_frame_dso_name(&fr, jit, sizeof(jit))) &&
         !filter_list_has(&f->dsos, fr.r.dso))))
        return 1;
    return f->syms.n && (fr.r.sym == NULL || !filter_list_has(&f->syms, fr.r.sym->name));
}

int filter_skip(const sample_filter *f, ps_resolver *res, const ps_event *ev,
                const ps_evsel *e)
{
    const ps_sample *smp = &ev->u.sample;
    char buf[32];

    if (f->time != NULL) {
        if (f->time->state == 0 &&
            filter_time_resolve(f, f->cmd, ps_resolver__features(res)) < 0)
            return -1;
        if (f->time->state < 0)
            return -1;
        if (time_range_skip(f->time->r, (size_t)f->time->n, smp->time))
            return 1;
    }
    if (!filter_cpu_ok(f, smp->cpu))
        return 1;
    if (f->comms.n &&
        !filter_list_has(&f->comms, ps_resolver__comm(res, smp->pid, smp->tid, smp->time,
                                                   buf, sizeof(buf))))
        return 1;
    if (f->pids.n && !list_has_int(&f->pids, (int)smp->pid))
        return 1;
    if (f->tids.n && !list_has_int(&f->tids, (int)smp->tid))
        return 1;
    if (f->events.n && (e == NULL || e->name == NULL || !filter_list_has(&f->events, e->name)))
        return 1;
    return (f->dsos.n || f->syms.n) && where_skip(f, res, ev);
}

int filter_active(const sample_filter *f)
{
    return f->comms.n || f->pids.n || f->tids.n || f->events.n || f->dsos.n || f->syms.n ||
           f->cpus || f->time != NULL;
}

void filter_free(sample_filter *f)
{
    filter_list_free(&f->comms);
    filter_list_free(&f->pids);
    filter_list_free(&f->tids);
    filter_list_free(&f->events);
    filter_list_free(&f->dsos);
    filter_list_free(&f->syms);
    if (f->time != NULL)
        free(f->time->r);
    free(f->time);
    f->time = NULL;
    free(f->cpus);
    f->cpus = NULL;
}
