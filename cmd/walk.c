/* SPDX-License-Identifier: MIT */
/*
 * walk.c - the capture walked as perf script walks it (walk.h): the
 * session opened in perf's order, the resolver, perf script's checks of
 * the capture's events, and READ samples split per value.
 */
#include <stdlib.h>
#include <string.h>
#include "read_split.h"
#include "walk.h"
#include "walk_fast.h"
#include "../libparse/tracepoint.h"

struct walk {
    const char     *cmd;
    const walk_cb  *cb;
    ps_session     *s;
    ps_resolver    *res;
    script_config   cfg;
    read_split      reads;
    unsigned        max_stack;
    int             pipe, has_stat;
    int             fast_ok;        /* the callbacks can start over */
    int             no_fast;        /* the fast loop gave up: the general one */
    int           (*end)(void *ctx, walk *w);   /* walk_at_end() */
};

ps_session *walk_session(walk *w) { return w->s; }
ps_resolver *walk_resolver(walk *w) { return w->res; }
unsigned walk_max_stack(const walk *w) { return w->max_stack; }
int walk_use_callchain(const walk *w) { return w->cfg.use_callchain; }
void walk_at_end(walk *w, int (*end)(void *ctx, walk *w)) { w->end = end; }

/* %ps/%pS in trace text: the kernel symbol at addr, as perf script */
static const char *tp_kernel_func(void *ctx, uint64_t *addr, const char **mod)
{
    ps_frame f;

    ps_resolver__addr(ctx, UINT32_MAX, UINT32_MAX, 0, PERF_RECORD_MISC_KERNEL, *addr, &f);
    if (f.r.sym == NULL)
        return NULL;
    *addr -= f.r.symoff;
    *mod = f.map != NULL && f.map->kind == PS_MAP_MODULE ? f.r.dso : NULL;
    return f.r.sym->name;
}

/* Not for pipe captures: perf resolves %ps/%pS only when the tracing data is
 * there at open (a file's feature), not when it comes as a pipe's record */
void walk_tp_funcs(walk *w)
{
    if (ps_session_header(w->s)->container != PS_CONTAINER_PIPE)
        ps_session__set_tp_resolver(w->s, tp_kernel_func, w->res);
}

const script_output *walk_output(const walk *w, const ps_evsel *e)
{
    return &w->cfg.out[script_output_type(e->attr.type)];
}

static void symbols_warning(void *ctx, const ps_error *w)
{
    fprintf(stderr, "perfsift %s: warning: %s\n", (const char *)ctx, w->msg);
}

/* on_event's "failed, message already printed": outside the PS_E* codes
 * that ps_session_next() returns in the same variable (PS_EFORMAT is -2);
 * AGAIN: the fast loop gave up after delivering, walk again without it */
enum { REPORTED = -1000, AGAIN = -1001 };

/* PERF_SAMPLE_READ: one delivery per value, as its event, with the increase */
static int read_sample(walk *w, const ps_event *ev, ps_error *err)
{
    const ps_read_values *rv = &ev->u.sample.read;
    uint64_t i;

    for (i = 0; i < rv->nr; i++) {
        const ps_evsel *e = ps_session_evsel_by_id(w->s, rv->values[i].id);
        uint64_t period;

        if (e == NULL)
            continue;
        if (read_split_period(&w->reads, rv->values[i].id, rv->values[i].value, &period) < 0)
            return ps_error__set(err, PS_ENOMEM, ev->offset, "out of memory");
        if (period != 0 && w->cb->sample(w->cb->ctx, w, ev, e, period) < 0)
            return REPORTED;
    }
    return 0;
}

static int on_event(walk *w, const ps_event *ev, ps_error *err)
{
    if (ev->type == PS_RECORD_HEADER_ATTR && w->pipe) {
        size_t n = ps_session_nr_evsels(w->s);

        if (n > 0 && script_check_pipe_attr(&w->cfg, w->s, n - 1, w->has_stat) < 0)
            return REPORTED;
    }
    if (ev->type == PERF_RECORD_SAMPLE) {
        if (ev->evsel == NULL)
            return 0;
        if (ev->u.sample.sample_type & PERF_SAMPLE_READ)
            return read_sample(w, ev, err);
        return w->cb->sample(w->cb->ctx, w, ev, ev->evsel, ev->u.sample.period) < 0 ? REPORTED : 0;
    }
    if (ps_resolver__event(w->res, ev, err) < 0)
        return -1;
    if (w->cb->record != NULL && w->cb->record(w->cb->ctx, w, ev) < 0)
        return REPORTED;
    return 0;
}

static int on_fast_event(void *ctx, const ps_event *ev, ps_error *err)
{
    return on_event(ctx, ev, err);
}

/* walk_fast.h's loop when the callbacks can start over: PS_DONE, AGAIN,
 * PS_OK for "not this capture", or on_event's failure */
static int fast_loop(walk *w, const input_opts *in, ps_error *err)
{
    int rc;

    if (w->no_fast || !w->fast_ok || w->pipe)
        return PS_OK;
    rc = walk_fast(w->s, in->ordered, on_fast_event, w, err);
    return rc == WALK_FAST_DONE ? PS_DONE : rc == WALK_FAST_NO ? PS_OK
           : rc == WALK_FAST_RETRY ? AGAIN : rc;
}

static int loop(walk *w, const input_opts *in)
{
    ps_error err;
    ps_event ev;
    uint64_t n = 0;
    int rc = fast_loop(w, in, &err);

    if (rc == AGAIN)
        return AGAIN;
    while (rc == PS_OK && (rc = ps_session_next(&ev, w->s, &err)) == PS_OK) {
        if ((rc = on_event(w, &ev, &err)) != 0)
            break;
        if (!in->quiet)
            cmd_progress(w->s, ++n);
    }
    cmd_progress_done();
    if (rc == REPORTED)
        return EXIT_BADINPUT;
    if (rc != PS_DONE)
        return cmd_input_error(w->cmd, &err);
    if (w->end != NULL && w->end(w->cb->ctx, w) < 0)
        return EXIT_BADINPUT;
    return EXIT_OK;
}

/* perf's evlist__sample_id_all: the first event's flag */
static int sample_id_all(ps_session *s)
{
    const ps_evsel *e = ps_session_nr_evsels(s) ? ps_session_evsel(s, 0) : NULL;

    return e == NULL || (e->attr.flags >> PS_ATTR_SAMPLE_ID_ALL) & 1;
}

/* perf script's order: by time, but file order without sample_id_all */
static ps_session *open_ordered(walk *w, input_opts *in)
{
    ps_session *s;

    if ((s = cmd_open(w->cmd, in)) == NULL || !in->ordered)
        return s;
    if (ps_session_header(s)->container != PS_CONTAINER_PIPE && !sample_id_all(s)) {
        ps_session_close(s);
        in->ordered = 0;
        s = cmd_open(w->cmd, in);
    }
    return s;
}

static int setup(walk *w, const input_opts *in0, const walk_opts *o)
{
    input_opts in = *in0;
    ps_symbols_opts so;
    ps_error err;

    if (cmd_check_kallsyms(w->cmd, o->kallsyms) < 0)
        return EXIT_BADINPUT;
    memset(&so, 0, sizeof(so));
    so.symfs = o->symfs;
    so.kallsyms = o->kallsyms;
    so.demangle = !o->no_demangle;
    so.ksyms = o->ksyms;
    if (!in.quiet) {
        so.warn = symbols_warning;
        so.warn_ctx = (void *)w->cmd;
    }
    in.ordered = !o->file_order;
    if ((w->s = open_ordered(w, &in)) == NULL)
        return EXIT_BADINPUT;
    w->pipe = ps_session_header(w->s)->container == PS_CONTAINER_PIPE;
    w->has_stat = (ps_session_header(w->s)->features[PS_HEADER_STAT / 64] >>
                   (PS_HEADER_STAT % 64)) & 1;
    if (ps_resolver__new(&w->res, &so, ps_session_features(w->s), &err) < 0) {
        fprintf(stderr, "perfsift %s: %s\n", w->cmd, err.msg);
        return EXIT_BADINPUT;
    }
    ps_resolver__set_inline(w->res, !o->no_inline);
    ps_resolver__set_stack_outer(w->res, o->stack_outer);
    if (!w->pipe && script_check_session(&w->cfg, w->s, w->has_stat) < 0)
        return EXIT_BADINPUT;
    return loop(w, &in);
}

static int walk_once(const char *cmd, const input_opts *in, const walk_opts *o,
                     const walk_cb *cb, int no_fast)
{
    walk w;
    int rc;

    memset(&w, 0, sizeof(w));
    w.cmd = cmd;
    w.cb = cb;
    w.no_fast = no_fast;
    w.fast_ok = o->reset != NULL;
    w.max_stack = o->max_stack ? o->max_stack : 127;
    script_config_init(&w.cfg);
    if (o->fields != NULL && script_parse_fields(&w.cfg, o->fields) < 0)
        return EXIT_USAGE;
    rc = setup(&w, in, o);
    ps_resolver__free(w.res);
    ps_session_close(w.s);
    read_split_free(&w.reads);
    return rc;
}

int walk_run(const char *cmd, const input_opts *in, const walk_opts *o0, const walk_cb *cb)
{
    walk_opts o = *o0;
    ps_ksyms *own = NULL;
    int rc;

    /* the kernel's symbols load in a thread beside the records (the
     * caller's load when it shares one; NULL: loaded where first needed) */
    if (o.ksyms == NULL)
        o.ksyms = own = ps_ksyms__new();
    if ((rc = walk_once(cmd, in, &o, cb, 0)) == AGAIN) {
        o.reset(cb->ctx);
        rc = walk_once(cmd, in, &o, cb, 1);
    }
    ps_ksyms__free(own);
    return rc;
}
