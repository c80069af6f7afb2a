/* SPDX-License-Identifier: MIT */
/*
 * json_doc.c - perfsift json's own forms (schemas/json.schema.json and
 * schemas/json-lines.schema.json): every record as json_record_write() makes
 * it (dump --json's object: every decoded field), samples extended with
 * what perf script would print for them: the event they count for, their
 * period, the thread's comm and the resolved frames (the call chain as
 * perf script shows it, inlined entries included, or the sample ip alone).
 *
 * The document is written as it goes: {"format", "version", "header",
 * "features", "events", "records": [ one record per line ], "summary"}.
 * --lines writes the same objects one per line between a "perfsift-header"
 * line and a "perfsift-end" line. Records are written as text as they
 * come (json_record_write(), json_writer.h), nothing is kept, so memory
 * does not grow with the capture; jansson builds only the header, the
 * features and events and the end.
 *
 * Pipe captures declare their events and features with records
 * (HEADER_ATTR, HEADER_FEATURE...): their "features" and "events" are
 * written after the records (document: as members after "records"; lines:
 * in the end line), rebuilt whenever such a record arrives.
 */
#include <stdlib.h>
#include <string.h>
#include "info_json.h"
#include "json.h"
#include "json_record.h"

typedef struct doc {
    int      lines;             /* --lines */
    int      pipe;              /* features and events come at the end */
    int      nr_written;
    json_t  *features, *events; /* pipe mode: as declared so far; owned */
    linebuf  lb;                /* text not yet written */
    jw       w;                 /* writes the record at hand into lb */
    linebuf  chain;             /* a call chain and its frames' text, to keep */
    char     srcline[4096 + 32];
} doc;

static void set(json_t *o, const char *k, json_t *v)
{
    json_object_set_new(o, k, v != NULL ? v : json_null());
}

static int to_linebuf(const char *s, size_t n, void *ctx)
{
    linebuf *b = ctx;

    lb_mem(b, s, n);
    return b->oom ? -1 : 0;
}

/* v (consumed) as compact JSON text; written out in large blocks, since
 * json_dumpf() makes one locked stdio call per token */
static int put(json_run *r, json_t *v)
{
    doc *d = r->state;
    int rc = json_dump_callback(v, to_linebuf, &d->lb, JSON_COMPACT | JSON_ENCODE_ANY);

    json_decref(v);
    if (d->lb.len >= (64u << 10))
        lb_flush(&d->lb, r->out);
    return rc;
}

/* before a record: a line of its own, in the "records" array or in NDJSON */
static void record_start(json_run *r)
{
    doc *d = r->state;

    if (!d->lines)
        lb_puts(&d->lb, d->nr_written ? ",\n" : "\n");
    d->nr_written++;
    jw_init(&d->w, &d->lb);
}

/* after it: the text goes out in large blocks */
static int record_end(json_run *r)
{
    doc *d = r->state;

    jw_close(&d->w, '}');
    if (d->lines)
        lb_putc(&d->lb, '\n');
    if (d->lb.len >= (64u << 10))
        lb_flush(&d->lb, r->out);
    if (d->lb.oom) {
        fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
        return -1;
    }
    return 0;
}

/* a record made by jansson (the header and end lines) */
static int emit(json_run *r, json_t *o)
{
    doc *d = r->state;

    if (o == NULL) {
        fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
        return -1;
    }
    if (!d->lines)
        lb_puts(&d->lb, d->nr_written ? ",\n" : "\n");
    d->nr_written++;
    if (put(r, o) < 0) {
        fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
        return -1;
    }
    if (d->lines)
        lb_putc(&d->lb, '\n');
    return 0;
}

/* --- frames ------------------------------------------------------------------- */

static void frame_text(json_run *r, ps_resolver *res, const ps_frame *f)
{
    doc *d = r->state;
    jw *w = &d->w;
    const char *sym = f->inl ? f->inl : f->r.sym ? f->r.sym->name : NULL;

    jw_open(w, NULL, '{');
    jw_hex(w, "ip", f->ip);
    if (f->map != NULL)
        jw_hex(w, "rel", f->r.rel);
    jw_text(w, "sym", sym);
    if (sym != NULL)
        jw_num(w, "symoff", f->r.symoff);
    jw_text(w, "dso", f->r.dso);
    if (f->inl != NULL)
        jw_bool(w, "inlined", 1);
    if (r->srcline) {
        const char *s = ps_resolver__srcline(res, f, d->srcline, sizeof(d->srcline));

        if (s != NULL)
            jw_text(w, "srcline", s);
    }
    jw_close(w, '}');
}

/* a frame, from r->cache where it can: its text depends on the map and
 * symbol found for ip (rel, symoff and dso follow from them), except for
 * inlined entries and srclines, which are made anew each time */
static void frame_json(json_run *r, ps_resolver *res, const ps_frame *f)
{
    doc *d = r->state;
    uint64_t key[4] = { f->ip, (uintptr_t)f->map, (uintptr_t)f->r.sym, (uintptr_t)f->r.dso };
    int cached = f->inl == NULL && !r->srcline;
    size_t start;

    jw_sep(&d->w, NULL);
    if (cached && json_cache_copy(&r->cache, key, &d->lb))
        return;
    start = d->lb.len;
    d->w.comma = 0;
    frame_text(r, res, f);
    if (cached && !d->lb.oom)
        json_cache_store(&r->cache, key, d->lb.p + start, d->lb.len - start);
}

/*
 * Whole call chains repeat too. Their frames depend on the thread, the
 * sample's ip and cpumode and the chain itself (within one r->cache
 * generation), unless they come from unwinding a user stack or from a
 * branch stack, or carry srclines. The key hashes the chain; the text
 * kept starts with the ip and the chain, compared before it is used.
 */
static int chain_key(const json_run *r, const ps_event *ev, uint64_t key[4])
{
    const ps_sample *smp = &ev->u.sample;
    uint64_t h = smp->ip * 0x9e3779b97f4a7c15ull, i;

    if (r->srcline || smp->nr_callchain == 0 ||
        (smp->sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
                             PERF_SAMPLE_BRANCH_STACK)))
        return 0;
    for (i = 0; i < smp->nr_callchain; i++)
        h = (h ^ smp->callchain[i]) * 0xff51afd7ed558ccdull;
    key[0] = h ^ (h >> 29);
    key[1] = (uint64_t)smp->pid << 32 | smp->tid;
    key[2] = smp->nr_callchain;
    key[3] = ev->misc | 1ull << 63;     /* no frame key has this bit */
    return 1;
}

/* the frames' text kept for the chain, if it is this very chain */
static int chain_copy(json_run *r, const ps_sample *smp, const uint64_t key[4])
{
    doc *d = r->state;
    size_t len, head = 8 * (smp->nr_callchain + 1);
    const char *t = json_cache_find(&r->cache, key, &len);

    if (t == NULL || len < head || memcmp(t, &smp->ip, 8) != 0 ||
        memcmp(t + 8, smp->callchain, head - 8) != 0)
        return 0;
    lb_mem(&d->lb, t + head, len - head);
    return 1;
}

static void chain_store(json_run *r, const ps_sample *smp, const uint64_t key[4], size_t start)
{
    doc *d = r->state;

    d->chain.len = 0;
    lb_mem(&d->chain, (const char *)&smp->ip, 8);
    lb_mem(&d->chain, (const char *)smp->callchain, 8 * smp->nr_callchain);
    lb_mem(&d->chain, d->lb.p + start, d->lb.len - start);
    if (!d->chain.oom && !d->lb.oom)
        json_cache_store(&r->cache, key, d->chain.p, d->chain.len);
    d->chain.oom = 0;
}

/* perf script's frames: the call chain, else the sample ip alone */
static void frames_json(json_run *r, walk *w, const ps_event *ev)
{
    doc *d = r->state;
    const ps_sample *smp = &ev->u.sample;
    ps_resolver *res = walk_resolver(w);
    uint64_t key[4];

    jw_open(&d->w, "frames", '[');
    if (walk_use_callchain(w) && (smp->sample_type & PERF_SAMPLE_CALLCHAIN) &&
        chain_key(r, ev, key)) {
        size_t i, n, start = d->lb.len;
        const ps_frame *frames;

        if (!chain_copy(r, smp, key)) {
            n = ps_resolver__frames(res, smp, ev->evsel->attr.branch_sample_type,
                                    walk_max_stack(w), &frames);
            for (i = 0; i < n; i++)
                frame_json(r, res, &frames[i]);
            chain_store(r, smp, key, start);
        }
    } else if (walk_use_callchain(w) && (smp->sample_type & PERF_SAMPLE_CALLCHAIN)) {
        const ps_frame *frames;
        size_t i, n = ps_resolver__frames(res, smp, ev->evsel->attr.branch_sample_type,
                                          walk_max_stack(w), &frames);

        for (i = 0; i < n; i++)
            frame_json(r, res, &frames[i]);
    } else if (smp->sample_type & PERF_SAMPLE_IP) {
        ps_frame one;

        ps_resolver__addr(res, smp->pid, smp->tid, smp->time,
                          ev->misc & PERF_RECORD_MISC_CPUMODE_MASK, smp->ip, &one);
        frame_json(r, res, &one);
    }
    jw_close(&d->w, ']');
}

/* --- the form ------------------------------------------------------------------ */

static json_t *events_or_empty(ps_session *s)
{
    return s != NULL ? info_json_events(s) : json_array();
}

static json_t *features_or_empty(ps_session *s)
{
    return s != NULL ? info_json_features(s) : json_object();
}

static int begin(json_run *r, ps_session *s, int lines)
{
    doc *d = calloc(1, sizeof(*d));
    json_t *h;

    if ((r->state = d) == NULL) {
        fprintf(stderr, "perfsift %s: out of memory\n", r->cmd);
        return -1;
    }
    d->lines = lines;
    d->pipe = s != NULL && ps_session_header(s)->container == PS_CONTAINER_PIPE;
    h = json_pack("{s:s, s:i, s:o}", "type", "perfsift-header",
                  "version", 1, "header", s != NULL ? info_json_header(s) : json_null());
    if (h == NULL)
        return emit(r, NULL);
    if (!d->pipe) {
        set(h, "features", features_or_empty(s));
        set(h, "events", events_or_empty(s));
    }
    if (lines)
        return emit(r, h);
    /* the document: the header line's members, then the records */
    json_object_del(h, "type");
    lb_puts(&d->lb, "{\"format\":\"perfsift-json\"");
    {
        const char *k;
        json_t *v;

        json_object_foreach(h, k, v) {
            lb_puts(&d->lb, ",\"");
            lb_puts(&d->lb, k);
            lb_puts(&d->lb, "\":");
            put(r, json_incref(v));
        }
    }
    json_decref(h);
    lb_puts(&d->lb, ",\"records\":[");
    return 0;
}

static int begin_doc(json_run *r, ps_session *s) { return begin(r, s, 0); }
static int begin_lines(json_run *r, ps_session *s) { return begin(r, s, 1); }

static int sample(json_run *r, walk *w, const ps_event *ev, const ps_evsel *e, uint64_t period)
{
    doc *d = r->state;
    const ps_sample *smp = &ev->u.sample;
    json_record_extra x = { e->name ? e->name : "[unknown]", period };
    char buf[32];

    record_start(r);
    json_record_write(&d->w, walk_session(w), ev, r->record_flags, &x);
    jw_text(&d->w, "comm", ps_resolver__comm(walk_resolver(w), smp->pid, smp->tid,
                                            smp->time, buf, sizeof(buf)));
    frames_json(r, w, ev);
    return record_end(r);
}

/* pipe mode: keep what the capture has declared so far */
static void track_declarations(doc *d, ps_session *s, uint32_t type)
{
    if (type != PS_RECORD_HEADER_ATTR && type != PS_RECORD_HEADER_FEATURE &&
        type != PS_RECORD_EVENT_UPDATE && type != PS_RECORD_HEADER_EVENT_TYPE &&
        type != PS_RECORD_HEADER_TRACING_DATA)
        return;
    json_decref(d->features);
    json_decref(d->events);
    d->features = info_json_features(s);
    d->events = info_json_events(s);
}

static int record(json_run *r, walk *w, const ps_event *ev)
{
    doc *d = r->state;

    /* declarations count with --samples-only too: a pipe's features and
     * events come with records */
    if (d->pipe)
        track_declarations(d, walk_session(w), ev->type);
    if (r->samples_only)
        return 0;
    record_start(r);
    json_record_write(&d->w, walk_session(w), ev, r->record_flags, NULL);
    return record_end(r);
}

static json_t *summary(json_run *r)
{
    return json_pack("{s:I, s:I, s:I}", "records", (json_int_t)r->nr_records,
                     "samples", (json_int_t)r->nr_samples,
                     "filtered", (json_int_t)r->nr_filtered);
}

static int end(json_run *r)
{
    doc *d = r->state;
    json_t *e;

    if (d->lines) {
        e = json_pack("{s:s, s:o}", "type", "perfsift-end", "summary", summary(r));
        if (e != NULL && d->pipe) {
            set(e, "features", d->features ? json_incref(d->features) : json_object());
            set(e, "events", d->events ? json_incref(d->events) : json_array());
        }
        if (emit(r, e) < 0)
            return -1;
        lb_flush(&d->lb, r->out);
        return ferror(r->out) || d->lb.oom ? -1 : 0;
    }
    lb_puts(&d->lb, "\n]");
    if (d->pipe) {
        lb_puts(&d->lb, ",\"features\":");
        put(r, d->features ? json_incref(d->features) : json_object());
        lb_puts(&d->lb, ",\"events\":");
        put(r, d->events ? json_incref(d->events) : json_array());
    }
    lb_puts(&d->lb, ",\"summary\":");
    put(r, summary(r));
    lb_puts(&d->lb, "}\n");
    lb_flush(&d->lb, r->out);
    return ferror(r->out) || d->lb.oom ? -1 : 0;
}

static void doc_free(json_run *r)
{
    doc *d = r->state;

    if (d == NULL)
        return;
    json_decref(d->features);
    json_decref(d->events);
    lb_free(&d->lb);
    lb_free(&d->chain);
    free(d);
    r->state = NULL;
}

const json_form json_form_doc = {
    "document", begin_doc, sample, record, end, doc_free
};
const json_form json_form_lines = {
    "lines", begin_lines, sample, record, end, doc_free
};
