/* SPDX-License-Identifier: MIT */
/*
 * json_perf.c - perfsift json --perf-compat: what `perf data convert
 * --to-json` (perf 6.1) writes, byte for byte on ASCII names, so tools
 * made for it switch over unchanged (shared/spec/peers.md section 2;
 * schemas/json-perf.schema.json):
 *
 *   - tab indentation, each value on its own line, ", " never leading;
 *   - "headers": header version, the input's mtime, data and feature
 *     offsets, the host features, clock data when recorded, the cmdline;
 *   - "samples" only, in time order: timestamp, pid, tid, cpu (when some
 *     event samples it), comm, and the raw call chain (context markers
 *     dropped; each entry looked up in the cpumode the last marker set,
 *     user at first), or the sample ip alone; "symbol" and "dso" (perf's
 *     short name) only where a symbol was found. No event, no period, no
 *     tracepoint fields: perf 6.1 writes none.
 *
 * Where perf is wrong we are not: perf writes each byte >= 0x80 as a
 * sign-extended \uffffffXX, which corrupts every non-ASCII name; here UTF-8
 * is written as it is and other bytes as the text \xNN (json.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "json.h"

typedef struct perf_json {
    uint64_t combined;          /* OR of every event's sample_type */
    int      nr_samples;
} perf_json;

/* perf's delimiter: an optional comma, a newline, depth tabs */
static void delim(FILE *out, int comma, int depth)
{
    static const char tabs[] = "\t\t\t\t\t\t\t\t";

    if (comma)
        putc(',', out);
    putc('\n', out);
    fwrite(tabs, 1, (size_t)depth, out);
}

static void key(FILE *out, int comma, int depth, const char *k)
{
    delim(out, comma, depth);
    fprintf(out, "\"%s\": ", k);
}

static void key_string(FILE *out, int comma, int depth, const char *k, const char *v)
{
    key(out, comma, depth, k);
    json_put_string(out, v, 1);
}

static int has_feature(const ps_session *s, unsigned feat)
{
    return (ps_session_features((ps_session *)s)->present[feat / 64] >> (feat % 64)) & 1;
}

static void headers(FILE *out, ps_session *s)
{
    const ps_header *h = ps_session_header(s);
    const ps_features *f = ps_session_features(s);
    uint32_t i;

    key(out, 0, 2, "header-version");
    fprintf(out, "%u", h->legacy_magic ? 0u : 1u);
    if (h->mtime != 0) {
        time_t t = (time_t)h->mtime;
        struct tm tm;
        char buf[64];

        strftime(buf, sizeof(buf), "%FT%TZ", gmtime_r(&t, &tm));
        key_string(out, 1, 2, "captured-on", buf);
    }
    key(out, 1, 2, "data-offset");
    fprintf(out, "%" PRIu64, h->data.offset);
    key(out, 1, 2, "data-size");
    fprintf(out, "%" PRIu64, h->data.size);
    key(out, 1, 2, "feat-offset");
    fprintf(out, "%" PRIu64, h->feat_offset);
    key_string(out, 1, 2, "hostname", f->hostname);
    key_string(out, 1, 2, "os-release", f->osrelease);
    key_string(out, 1, 2, "arch", f->arch);
    if (f->cpudesc != NULL)
        key_string(out, 1, 2, "cpu-desc", f->cpudesc);
    key_string(out, 1, 2, "cpuid", f->cpuid);
    key(out, 1, 2, "nrcpus-online");
    fprintf(out, "%u", f->nr_cpus_online);
    key(out, 1, 2, "nrcpus-avail");
    fprintf(out, "%u", f->nr_cpus_avail);
    if (has_feature(s, PS_HEADER_CLOCK_DATA)) {
        key(out, 1, 2, "clockid");
        fprintf(out, "%u", f->clock_data.clockid);
        key(out, 1, 2, "clock-time");
        fprintf(out, "%" PRIu64, f->clock_data.clockid_ns);
        key(out, 1, 2, "real-time");
        fprintf(out, "%" PRIu64, f->clock_data.tod_ns);
    }
    key_string(out, 1, 2, "perf-version", f->version);
    key(out, 1, 2, "cmdline");
    putc('[', out);
    for (i = 0; i < f->cmdline.nr; i++) {
        delim(out, i != 0, 3);
        json_put_string(out, f->cmdline.strs[i], 1);
    }
    delim(out, 0, 2);
    putc(']', out);
}

static int begin(json_run *r, ps_session *s)
{
    perf_json *p = calloc(1, sizeof(*p));
    size_t i;

    if ((r->state = p) == NULL) {
        fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
        return -1;
    }
    fputs("{", r->out);
    delim(r->out, 0, 1);
    fputs("\"linux-perf-json-version\": 1", r->out);
    delim(r->out, 1, 1);
    fputs("\"headers\": {", r->out);
    if (s != NULL)
        headers(r->out, s);
    delim(r->out, 0, 1);
    putc('}', r->out);
    delim(r->out, 1, 1);
    fputs("\"samples\": [", r->out);
    for (i = 0; s != NULL && i < ps_session_nr_evsels(s); i++)
        p->combined |= ps_session_evsel(s, i)->attr.sample_type;
    return 0;
}

/* one callchain entry: ip, and symbol and dso where a symbol was found */
static void entry(FILE *out, uint64_t ip, const ps_frame *f)
{
    delim(out, 0, 4);
    putc('{', out);
    delim(out, 0, 5);
    fprintf(out, "\"ip\": \"0x%" PRIx64 "\"", ip);
    if (f != NULL && f->r.sym != NULL && f->r.sym->name[0] != '\0') {
        char jit[32];
        const char *dso = f->map != NULL ? json_dso_short(f->r.dso, jit, sizeof(jit)) : NULL;

        putc(',', out);
        key_string(out, 0, 5, "symbol", f->r.sym->name);
        if (dso != NULL && dso[0] != '\0') {
            putc(',', out);
            key_string(out, 0, 5, "dso", dso);
        }
    }
    delim(out, 0, 4);
    putc('}', out);
}

/* the raw chain, each entry as perf's thread__find_symbol() finds it */
static void callchain(FILE *out, ps_resolver *res, const ps_sample *smp)
{
    unsigned cpumode = PERF_RECORD_MISC_USER;
    int first = 1;
    uint64_t i;

    for (i = 0; i < smp->nr_callchain; i++) {
        uint64_t ip = smp->callchain[i];
        ps_frame f;

        if (ip >= PERF_CONTEXT_MAX) {
            if (ip == PERF_CONTEXT_HV)
                cpumode = PERF_RECORD_MISC_HYPERVISOR;
            else if (ip == PERF_CONTEXT_KERNEL)
                cpumode = PERF_RECORD_MISC_KERNEL;
            else if (ip == PERF_CONTEXT_USER)
                cpumode = PERF_RECORD_MISC_USER;
            continue;
        }
        if (!first)
            putc(',', out);
        first = 0;
        ps_resolver__addr(res, smp->pid, smp->tid, smp->time, cpumode, ip, &f);
        entry(out, ip, &f);
    }
}

static int sample(json_run *r, walk *w, const ps_event *ev, const ps_evsel *e, uint64_t period)
{
    perf_json *p = r->state;
    const ps_sample *smp = &ev->u.sample;
    ps_resolver *res = walk_resolver(w);
    FILE *out = r->out;
    char buf[32];

    (void)e;
    (void)period;
    if (p->nr_samples++ > 0)
        putc(',', out);
    delim(out, 0, 2);
    putc('{', out);
    key(out, 0, 3, "timestamp");
    fprintf(out, "%" PRId64, (smp->sample_type & PERF_SAMPLE_TIME) ? (int64_t)smp->time : -1);
    key(out, 1, 3, "pid");
    fprintf(out, "%d", (int)smp->pid);
    key(out, 1, 3, "tid");
    fprintf(out, "%d", (int)smp->tid);
    if (p->combined & PERF_SAMPLE_CPU) {
        key(out, 1, 3, "cpu");
        fprintf(out, "%d", (int)smp->cpu);
    }
    key_string(out, 1, 3, "comm",
               ps_resolver__comm(res, smp->pid, smp->tid, smp->time, buf, sizeof(buf)));
    key(out, 1, 3, "callchain");
    putc('[', out);
    if (smp->sample_type & PERF_SAMPLE_CALLCHAIN) {
        callchain(out, res, smp);
    } else {
        ps_frame f;

        ps_resolver__addr(res, smp->pid, smp->tid, smp->time,
                          ev->misc & PERF_RECORD_MISC_CPUMODE_MASK, smp->ip, &f);
        entry(out, smp->ip, &f);
    }
    delim(out, 0, 3);
    putc(']', out);
    delim(out, 0, 2);
    putc('}', out);
    return 0;
}

static int end(json_run *r)
{
    delim(r->out, 0, 1);
    putc(']', r->out);
    delim(r->out, 0, 0);
    fputs("}\n", r->out);
    return ferror(r->out) ? -1 : 0;
}

static void perf_free(json_run *r)
{
    free(r->state);
    r->state = NULL;
}

const json_form json_form_perf = {
    "perf", begin, sample, NULL, end, perf_free
};
