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
 * is written as it is and other bytes as the text \xNN (json.c). perf
 * crashes on pipe captures (it prints their features before the records
 * that declare them); here they get the document a file would.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "json.h"
#include "../libparse/u64map.h"

typedef struct perf_json {
    uint64_t    combined;       /* OR of every event's sample_type */
    int         nr_samples;
    int         opened;         /* the headers and "samples": [ are written */
    linebuf     lb;             /* text not yet written */
    linebuf     head;           /* pipe mode, no sample yet: the opening as
                                 * the stream has declared it so far */
    ps_u64map   sample_pid;     /* tid -> pid of threads only samples made
                                 * (perf's machine__findnew_thread): the
                                 * first sample's pid sticks */
} perf_json;

/* perf's delimiter: an optional comma, a newline, depth tabs */
static void delim(linebuf *b, int comma, int depth)
{
    static const char tabs[] = ",\n\t\t\t\t\t\t\t\t";

    lb_mem(b, tabs + !comma, (size_t)(depth + 1 + comma));
}

static void key(linebuf *b, int comma, int depth, const char *k)
{
    delim(b, comma, depth);
    lb_putc(b, '"');
    lb_puts(b, k);
    lb_mem(b, "\": ", 3);
}

static void key_string(linebuf *b, int comma, int depth, const char *k, const char *v)
{
    key(b, comma, depth, k);
    json_put_string(b, v, 1);
}

static void key_u64(linebuf *b, int comma, int depth, const char *k, uint64_t v)
{
    key(b, comma, depth, k);
    lb_u64(b, v, 0);
}

static void key_int(linebuf *b, int comma, int depth, const char *k, int v)
{
    key(b, comma, depth, k);
    lb_int(b, v, 0);
}

static int has_feature(const ps_session *s, unsigned feat)
{
    return (ps_session_features((ps_session *)s)->present[feat / 64] >> (feat % 64)) & 1;
}

static void headers(linebuf *b, ps_session *s)
{
    const ps_header *h = ps_session_header(s);
    const ps_features *f = ps_session_features(s);
    uint32_t i;

    key_u64(b, 0, 2, "header-version", h->legacy_magic ? 0 : 1);
    if (h->mtime != 0) {
        time_t t = (time_t)h->mtime;
        struct tm tm;
        char buf[64];

        strftime(buf, sizeof(buf), "%FT%TZ", gmtime_r(&t, &tm));
        key_string(b, 1, 2, "captured-on", buf);
    }
    key_u64(b, 1, 2, "data-offset", h->data.offset);
    key_u64(b, 1, 2, "data-size", h->data.size);
    key_u64(b, 1, 2, "feat-offset", h->feat_offset);
    key_string(b, 1, 2, "hostname", f->hostname);
    key_string(b, 1, 2, "os-release", f->osrelease);
    key_string(b, 1, 2, "arch", f->arch);
    if (f->cpudesc != NULL)
        key_string(b, 1, 2, "cpu-desc", f->cpudesc);
    if (f->cpuid != NULL) {
        key_string(b, 1, 2, "cpuid", f->cpuid);
    } else {            /* perf's env asks the host for one it lacks */
        char desc[256], id[128];

        cmd_host_cpu(desc, sizeof(desc), id, sizeof(id));
        key_string(b, 1, 2, "cpuid", id);
    }
    key_u64(b, 1, 2, "nrcpus-online", f->nr_cpus_online);
    key_u64(b, 1, 2, "nrcpus-avail", f->nr_cpus_avail);
    if (has_feature(s, PS_HEADER_CLOCK_DATA)) {
        key_u64(b, 1, 2, "clockid", f->clock_data.clockid);
        key_u64(b, 1, 2, "clock-time", f->clock_data.clockid_ns);
        key_u64(b, 1, 2, "real-time", f->clock_data.tod_ns);
    }
    key_string(b, 1, 2, "perf-version", f->version);
    key(b, 1, 2, "cmdline");
    lb_putc(b, '[');
    for (i = 0; i < f->cmdline.nr; i++) {
        delim(b, i != 0, 3);
        json_put_string(b, f->cmdline.strs[i], 1);
    }
    delim(b, 0, 2);
    lb_putc(b, ']');
}

/* The document up to its first sample, from what s knows (NULL: nothing);
 * and the events' sample types, which decide whether samples have "cpu" */
static void opening(perf_json *p, linebuf *b, ps_session *s)
{
    size_t i;

    lb_putc(b, '{');
    delim(b, 0, 1);
    lb_puts(b, "\"linux-perf-json-version\": 1");
    delim(b, 1, 1);
    lb_puts(b, "\"headers\": {");
    if (s != NULL)
        headers(b, s);
    delim(b, 0, 1);
    lb_putc(b, '}');
    delim(b, 1, 1);
    lb_puts(b, "\"samples\": [");
    p->combined = 0;
    for (i = 0; s != NULL && i < ps_session_nr_evsels(s); i++)
        p->combined |= ps_session_evsel(s, i)->attr.sample_type;
}

/* A pipe declares its events and features with records, after the first
 * of which the walk starts: the opening waits for the first sample (all
 * declarations come before it), or the end */
static int begin(json_run *r, ps_session *s)
{
    perf_json *p = calloc(1, sizeof(*p));

    if ((r->state = p) == NULL) {
        fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
        return -1;
    }
    if (s != NULL && ps_session_header(s)->container == PS_CONTAINER_PIPE)
        opening(p, &p->head, s);
    else {
        opening(p, &p->lb, s);
        p->opened = 1;
    }
    return 0;
}

/* pipe mode before the first sample: the opening as declared so far, for
 * a stream without samples */
static int record(json_run *r, walk *w, const ps_event *ev)
{
    perf_json *p = r->state;

    if (!p->opened && (ev->type == PS_RECORD_HEADER_ATTR ||
                       ev->type == PS_RECORD_HEADER_FEATURE)) {
        p->head.len = 0;
        opening(p, &p->head, walk_session(w));
    }
    return 0;
}

/* the opening the walk's session makes now, or the last one kept */
static void open_now(perf_json *p, ps_session *s)
{
    if (s != NULL)
        opening(p, &p->lb, s);
    else
        lb_mem(&p->lb, p->head.p, p->head.len);
    p->opened = 1;
}

/* one callchain entry: ip, and symbol and dso where a symbol was found */
static void entry(linebuf *b, uint64_t ip, const ps_frame *f)
{
    delim(b, 0, 4);
    lb_putc(b, '{');
    delim(b, 0, 5);
    lb_mem(b, "\"ip\": \"0x", 9);
    lb_hex(b, ip, 0);
    lb_putc(b, '"');
    if (f != NULL && f->r.sym != NULL && f->r.sym->name[0] != '\0') {
        char jit[64];
        const char *dso = f->map != NULL ? ps_frame_dso_name(f, jit, sizeof(jit)) : NULL;

        key_string(b, 1, 5, "symbol", f->r.sym->name);
        if (dso != NULL && dso[0] != '\0')
            key_string(b, 1, 5, "dso", dso);
    }
    delim(b, 0, 4);
    lb_putc(b, '}');
}

/* entry() of ip looked up in cpumode for smp's thread, from r->cache:
 * call chain entries repeat */
static void cached_entry(json_run *r, ps_resolver *res, const ps_sample *smp,
                         unsigned cpumode, uint64_t ip)
{
    perf_json *p = r->state;
    uint64_t key[4] = { ip, smp->pid, smp->tid, cpumode };
    size_t start = p->lb.len;
    ps_frame f;

    if (json_cache_copy(&r->cache, key, &p->lb))
        return;
    ps_resolver__addr(res, smp->pid, smp->tid, smp->time, cpumode, ip, &f);
    entry(&p->lb, ip, &f);
    if (!p->lb.oom)
        json_cache_store(&r->cache, key, p->lb.p + start, p->lb.len - start);
}

/* perf's pid of a sample: its thread's (perf finds threads by tid, and
 * one it knows keeps the pid it was made with), the sample's for a thread
 * not known yet */
static uint32_t thread_pid(perf_json *p, const ps_resolver *res, const ps_sample *smp)
{
    const ps_thread *th = ps_machine__thread(ps_resolver__machine(res), smp->pid, smp->tid,
                                             smp->time);
    uint64_t *known;

    if (th != NULL && th->pid != UINT32_MAX)
        return th->pid;
    /* a thread no record made (or made without a pid): perf makes it for
     * the first sample of its tid, with that sample's pid, and later
     * samples find it by tid and keep that pid (a tid of -1 shared by
     * exiting tasks of several processes) */
    if ((known = ps_u64map__get(&p->sample_pid, smp->tid)) != NULL)
        return (uint32_t)*known;
    if (smp->pid != UINT32_MAX)
        (void)ps_u64map__put(&p->sample_pid, smp->tid, smp->pid);
    return smp->pid;
}

/* the raw chain, each entry as perf's thread__find_symbol() finds it */
static void callchain(json_run *r, ps_resolver *res, const ps_sample *smp)
{
    perf_json *p = r->state;
    unsigned cpumode = PERF_RECORD_MISC_USER;
    int first = 1;
    uint64_t i;

    for (i = 0; i < smp->nr_callchain; i++) {
        uint64_t ip = smp->callchain[i];

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
            lb_putc(&p->lb, ',');
        first = 0;
        cached_entry(r, res, smp, cpumode, ip);
    }
}

static int sample(json_run *r, walk *w, const ps_event *ev, const ps_evsel *e, uint64_t period)
{
    perf_json *p = r->state;
    const ps_sample *smp = &ev->u.sample;
    ps_resolver *res = walk_resolver(w);
    linebuf *b = &p->lb;
    char buf[32];

    (void)e;
    (void)period;
    if (!p->opened)
        open_now(p, walk_session(w));
    if (p->nr_samples++ > 0)
        lb_putc(b, ',');
    delim(b, 0, 2);
    lb_putc(b, '{');
    key(b, 0, 3, "timestamp");
    if (!(smp->sample_type & PERF_SAMPLE_TIME)) {
        lb_mem(b, "-1", 2);             /* perf's time without one: -1 */
    } else if ((int64_t)smp->time < 0) {
        lb_putc(b, '-');                /* perf's PRIi64 */
        lb_u64(b, 0 - smp->time, 0);
    } else {
        lb_u64(b, smp->time, 0);
    }
    key_int(b, 1, 3, "pid", (int)thread_pid(p, res, smp));
    key_int(b, 1, 3, "tid", (int)smp->tid);
    if (p->combined & PERF_SAMPLE_CPU)
        key_int(b, 1, 3, "cpu", (int)smp->cpu);
    key_string(b, 1, 3, "comm",
               ps_resolver__comm(res, smp->pid, smp->tid, smp->time, buf, sizeof(buf)));
    key(b, 1, 3, "callchain");
    lb_putc(b, '[');
    if (smp->sample_type & PERF_SAMPLE_CALLCHAIN)
        callchain(r, res, smp);
    else
        cached_entry(r, res, smp, ev->misc & PERF_RECORD_MISC_CPUMODE_MASK, smp->ip);
    delim(b, 0, 3);
    lb_putc(b, ']');
    delim(b, 0, 2);
    lb_putc(b, '}');
    if (b->len >= (64u << 10))
        lb_flush(b, r->out);
    if (b->oom) {
        fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
        return -1;
    }
    return 0;
}

static int end(json_run *r)
{
    perf_json *p = r->state;

    if (!p->opened)
        open_now(p, NULL);
    delim(&p->lb, 0, 1);
    lb_putc(&p->lb, ']');
    delim(&p->lb, 0, 0);
    lb_mem(&p->lb, "}\n", 2);
    lb_flush(&p->lb, r->out);
    return ferror(r->out) || p->lb.oom ? -1 : 0;
}

static void perf_free(json_run *r)
{
    perf_json *p = r->state;

    if (p != NULL) {
        lb_free(&p->lb);
        lb_free(&p->head);
        ps_u64map__free(&p->sample_pid);
    }
    free(p);
    r->state = NULL;
}

const json_form json_form_perf = {
    "perf", begin, sample, record, end, perf_free
};
