/* SPDX-License-Identifier: MIT */
/*
 * fold_capture.c - a capture folded in one pass, without perf script text:
 * each sample resolved as `perfsift script` resolves it (libparse/resolve.h,
 * perf's default fields from script_fields.c, READ samples split as perf
 * delivers them) and handed to the folding rules as the strings perf script
 * would print. The test (tests/diff/folded.sh) folds perf's own text of the
 * same capture with --script-input and requires the same bytes.
 *
 * --compat=perl is the Perl script's line machine on `perfsift script`
 * output, made in a child process: its quirks depend on the exact text
 * (column padding ends up in comm names), so it gets the exact text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fold_ids.h"
#include "fold_int.h"
#include "linebuf.h"
#include "walk.h"
#include "../libparse/resolve.h"
#include "../libparse/util.h"

typedef struct capture {
    const char    *cmd;
    const fold_opts *o;
    folder        *f;
    walk          *w;           /* while walking */
    ps_resolver   *res;
    linebuf        text;        /* one frame's strings */
    char           src[4096 + 32];
    int            periods;     /* a count was a period */
    fold_ids      *ids;         /* the fast path (fold_ids.h), NULL: off */
    uint32_t       handle;      /* the last sample's stack */
    int            chain_ok;    /* ...may be found again by its chain */
    const ps_evsel *chain_ev;
    uint32_t      *stack;       /* the sample's ids, leaf first */
    size_t         stack_cap;
} capture;

/* --- one frame's strings ----------------------------------------------------- */

/* Build "pc", "func", "mod" of a frame in c->text as perf script prints
 * them; callchain lines print the dso-relative address for user frames. */
static void frame_strings(capture *c, const script_output *o, const ps_frame *fr,
                          int chain_line, fold_frame *out)
{
    int user = fr->map != NULL && fr->map->kind != PS_MAP_KERNEL &&
               fr->map->kind != PS_MAP_MODULE && fr->map->kind != PS_MAP_KSYMBOL;
    size_t pc, fn, md, i;
    const char *src = NULL;

    c->text.len = 0;
    lb_hex(&c->text, chain_line && user ? fr->r.rel : fr->ip, 0);
    pc = c->text.len;
    if (fr->inl != NULL || fr->r.sym != NULL) {
        lb_puts(&c->text, fr->inl != NULL ? fr->inl : fr->r.sym->name);
        if (o->fields & F_SYMOFF) {
            lb_mem(&c->text, "+0x", 3);
            lb_hex(&c->text, fr->r.symoff, 0);
        }
    } else {
        lb_mem(&c->text, "[unknown]", 9);
    }
    fn = c->text.len;
    lb_mem(&c->text, " (", 2);
    lb_puts(&c->text, fr->inl != NULL ? "inlined" : fr->r.dso);
    md = c->text.len;
    /* stackcollapse-perf.pl splits "func (mod)" at the line's last " (":
     * a dso name holding one ("/memfd:x (deleted)") lends its head to func */
    for (i = md; i >= fn + 4; i--) {
        if (c->text.p[i - 2] == ' ' && c->text.p[i - 1] == '(') {
            fn = i - 2;
            break;
        }
    }
    if (c->o->srcline)
        src = ps_resolver__srcline(c->res, fr, c->src, sizeof(c->src));
    out->pc = (fold_str){ c->text.p, pc };
    out->func = (fold_str){ c->text.p + pc, fn - pc };
    out->mod = (fold_str){ c->text.p + fn + 2, md - fn - 2 };
    out->src = (fold_str){ src, src ? strlen(src) : 0 };
    out->from_capture = 1;
}

static void sample_frames(capture *c, const script_output *o, const ps_event *ev)
{
    const ps_sample *smp = &ev->u.sample;
    fold_frame ff;

    if (!(o->fields & F_IP) || !(o->fields & F_SYM) || !(o->fields & F_DSO))
        return;
    if (walk_use_callchain(c->w) && (smp->sample_type & PERF_SAMPLE_CALLCHAIN)) {
        const ps_frame *frames;
        size_t i, n = ps_resolver__frames(c->res, smp, ev->evsel->attr.branch_sample_type,
                                          walk_max_stack(c->w), &frames);

        for (i = 0; i < n && !c->text.oom; i++) {
            frame_strings(c, o, &frames[i], 1, &ff);
            folder_frame(c->f, &ff, NULL, NULL);
        }
    } else {
        ps_frame one;

        ps_resolver__addr(c->res, smp->pid, smp->tid, smp->time,
                          ev->misc & PERF_RECORD_MISC_CPUMODE_MASK, smp->ip, &one);
        frame_strings(c, o, &one, 0, &ff);
        folder_frame(c->f, &ff, NULL, NULL);
    }
}

/* --- the fast path: frames folded once, samples as id arrays --------------- */

/* what the folded text of a frame depends on; 0 when it cannot be cached */
static int frame_key(const capture *c, const script_output *o, const ps_frame *fr,
                     int chain_line, fold_ids_key *k)
{
    int user = fr->map != NULL && fr->map->kind != PS_MAP_KERNEL &&
               fr->map->kind != PS_MAP_MODULE && fr->map->kind != PS_MAP_KSYMBOL;

    if (fr->inl != NULL)
        return 0;       /* inlined names are not kept for the resolver's life */
    k->a = fr->r.sym != NULL ? fr->r.sym->name : NULL;
    k->b = fr->r.dso;
    k->c = (const void *)(uintptr_t)((c->f->java ? 1 : 0) | ((o->fields & F_SYMOFF) ? 2 : 0));
    k->d = fr->r.sym == NULL && c->o->addrs ? (chain_line && user ? fr->r.rel : fr->ip) : 0;
    return 1;
}

static int push_id(capture *c, size_t *n, uint32_t id)
{
    if (*n == c->stack_cap &&
        ps_grow((void **)&c->stack, &c->stack_cap, *n + 1, sizeof(*c->stack)) < 0)
        return -1;
    c->stack[(*n)++] = id;
    return 0;
}

/* one frame's id: cached, or folded by the rules now */
static int frame_id(capture *c, const script_output *o, const ps_frame *fr, int chain_line,
                    size_t *n)
{
    fold_ids_key k;
    fold_frame ff;
    const char *text;
    size_t len;
    uint32_t id;
    int cached = frame_key(c, o, fr, chain_line, &k);

    if (cached && fold_ids_frame(c->ids, &k, &id))
        return push_id(c, n, id);
    frame_strings(c, o, fr, chain_line, &ff);
    folder_frame(c->f, &ff, NULL, NULL);
    if (c->f->ngroups == 0)
        return 0;       /* the rules drop it ("(GC)"): not cached, rare */
    len = folder_take_group(c->f, &text);
    if ((cached ? fold_ids_frame_put(c->ids, &k, text, len, &id)
                : fold_ids_intern(c->ids, text, len, &id)) < 0)
        return -1;
    return push_id(c, n, id);
}

/* sample_frames() and folder_end() for the fast path */
static int fast_sample(capture *c, const script_output *o, const ps_event *ev, uint64_t count)
{
    const ps_sample *smp = &ev->u.sample;
    size_t n = 0, i;
    uint32_t root;

    if (fold_ids_intern(c->ids, c->f->pname, strlen(c->f->pname), &root) < 0)
        return -1;
    if (!(o->fields & F_IP) || !(o->fields & F_SYM) || !(o->fields & F_DSO)) {
        ;
    } else if (walk_use_callchain(c->w) && (smp->sample_type & PERF_SAMPLE_CALLCHAIN)) {
        const ps_frame *frames;
        size_t nf = ps_resolver__frames(c->res, smp, ev->evsel->attr.branch_sample_type,
                                        walk_max_stack(c->w), &frames);

        for (i = 0; i < nf; i++)
            if (frame_id(c, o, &frames[i], 1, &n) < 0)
                return -1;
    } else {
        ps_frame one;

        ps_resolver__addr(c->res, smp->pid, smp->tid, smp->time,
                          ev->misc & PERF_RECORD_MISC_CPUMODE_MASK, smp->ip, &one);
        if (frame_id(c, o, &one, 0, &n) < 0)
            return -1;
    }
    if (push_id(c, &n, root) < 0)
        return -1;
    for (i = 0; i < n / 2; i++) {       /* root first */
        uint32_t t = c->stack[i];

        c->stack[i] = c->stack[n - 1 - i];
        c->stack[n - 1 - i] = t;
    }
    folder_drop(c->f);
    c->f->nr_samples++;
    if (fold_ids_add(c->ids, c->stack, n, count, &c->handle) < 0)
        return -1;
    return c->chain_ok ? fold_ids_chain_put(c->ids, ((uint64_t)smp->pid << 32) | smp->tid,
                                            c->chain_ev, smp->callchain, smp->nr_callchain,
                                            c->handle) : 0;
}

/* A plain call chain (no LBR, no user stack to unwind) seen before in the
 * same thread for the same event folds as it did then. */
static int chain_cached(capture *c, const ps_event *ev, const ps_evsel *e, uint64_t count)
{
    const ps_sample *smp = &ev->u.sample;
    uint32_t handle;

    c->chain_ok = walk_use_callchain(c->w) && (smp->sample_type & PERF_SAMPLE_CALLCHAIN) &&
                  !(smp->sample_type & (PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
                                        PERF_SAMPLE_STACK_USER));
    c->chain_ev = e;
    if (!c->chain_ok || !fold_ids_chain(c->ids, ((uint64_t)smp->pid << 32) | smp->tid, e,
                                        smp->callchain, smp->nr_callchain, &handle))
        return 0;
    fold_ids_count(c->ids, handle, count);
    c->f->nr_samples++;
    return 1;
}

/* records after which a thread's chains may fold differently */
static int changes_threads(uint32_t type)
{
    switch (type) {
    case PERF_RECORD_LOST: case PERF_RECORD_THROTTLE: case PERF_RECORD_UNTHROTTLE:
    case PERF_RECORD_SWITCH: case PERF_RECORD_SWITCH_CPU_WIDE: case PERF_RECORD_LOST_SAMPLES:
    case PS_RECORD_FINISHED_ROUND: case PS_RECORD_FINISHED_INIT:
        return 0;
    default:
        return 1;
    }
}

/* --- samples ------------------------------------------------------------------ */

static void pid_text(char *buf, size_t size, uint32_t v)
{
    snprintf(buf, size, "%d", (int)v);
}

/* One sample as perf script would print it for event e with this period. */
static void fold_sample(capture *c, const ps_event *ev, const ps_evsel *e, uint64_t period)
{
    const ps_sample *smp = &ev->u.sample;
    const script_output *o = walk_output(c->w, e);
    const char *name = e->name ? e->name : "[unknown]";
    char comm[32], pid[16], tid[16];
    const char *cm;
    uint64_t count = 1;

    if (o->fields == 0)
        return;
    if ((o->fields & F_EVNAME) && !folder_event_ok(c->f, (fold_str){ name, strlen(name) }))
        return;
    if (c->o->weight == FOLD_WEIGHT_PERIOD ||
        (c->o->weight == FOLD_WEIGHT_DEFAULT && (o->fields & F_PERIOD))) {
        count = period;
        c->periods = 1;
    }
    if (c->ids != NULL && chain_cached(c, ev, e, count))
        return;
    cm = ps_resolver__comm(c->res, smp->pid, smp->tid, smp->time, comm, sizeof(comm));
    pid_text(pid, sizeof(pid), smp->pid);
    pid_text(tid, sizeof(tid), smp->tid);
    folder_begin(c->f, (fold_str){ cm, strlen(cm) }, (fold_str){ pid, strlen(pid) },
                 (fold_str){ tid, strlen(tid) });
    if (c->ids != NULL) {
        if (fast_sample(c, o, ev, count) < 0)
            c->f->oom = 1;
        return;
    }
    sample_frames(c, o, ev);
    folder_end(c->f, count);
}

/* perf script report stackcollapse: every sample but tracepoints' (they go
 * to per-event handlers the script does not define) */
static void py_sample(capture *c, const ps_event *ev, const ps_evsel *e)
{
    const ps_sample *smp = &ev->u.sample;
    char comm[32];
    const char *cm;

    if (e->attr.type == PERF_TYPE_TRACEPOINT)
        return;
    folder_drop(c->f);
    if (smp->sample_type & PERF_SAMPLE_CALLCHAIN) {
        const ps_frame *frames;
        size_t i, n = ps_resolver__frames(c->res, smp, ev->evsel->attr.branch_sample_type,
                                          walk_max_stack(c->w), &frames);

        for (i = 0; i < n; i++) {
            const ps_frame *fr = &frames[i];

            folder_py_frame(c->f, fr->inl ? fr->inl : fr->r.sym ? fr->r.sym->name : NULL,
                            fr->r.dso);
        }
    }
    cm = ps_resolver__comm(c->res, smp->pid, smp->tid, smp->time, comm, sizeof(comm));
    folder_py_end(c->f, cm, smp->pid, smp->tid);
}

static int on_sample(void *ctx, walk *w, const ps_event *ev, const ps_evsel *e,
                     uint64_t period)
{
    capture *c = ctx;

    c->w = w;
    c->res = walk_resolver(w);
    if (c->o->compat == FOLD_COMPAT_PERF_PY)
        py_sample(c, ev, e);
    else
        fold_sample(c, ev, e, period);
    if (c->f->oom || c->text.oom) {
        fprintf(stderr, "perfsift %s: out of memory\n", c->cmd);
        return -1;
    }
    return 0;
}

static int on_record(void *ctx, walk *w, const ps_event *ev)
{
    capture *c = ctx;

    (void)w;
    if (c->ids != NULL && changes_threads(ev->type))
        fold_ids_chains_clear(c->ids);
    return 0;
}

static void count_name(capture *c, char *out, size_t size)
{
    const char *ev = c->f->filter;

    if (!c->periods)
        snprintf(out, size, "samples");
    else if (ev != NULL && (strncmp(ev, "cpu-clock", 9) == 0 || strncmp(ev, "task-clock", 10) == 0))
        snprintf(out, size, "ns");
    else if (ev != NULL)
        snprintf(out, size, "%.*s", (int)strcspn(ev, ":"), ev);
    else
        snprintf(out, size, "period");
}

static int run_direct(capture *c, const input_opts *in)
{
    walk_opts wo;
    walk_cb cb = { c, on_sample, on_record };

    memset(&wo, 0, sizeof(wo));
    wo.symfs = c->o->symfs;
    wo.kallsyms = c->o->kallsyms;
    wo.max_stack = c->o->max_stack;
    wo.fields = c->o->srcline ? "+srcline" : NULL;
    if (c->o->compat == FOLD_COMPAT_NONE && !c->o->srcline && !c->o->inline_ &&
        (c->ids = fold_ids_new()) == NULL) {
        fprintf(stderr, "perfsift %s: out of memory\n", c->cmd);
        return EXIT_BADINPUT;
    }
    return walk_run(c->cmd, in, &wo, &cb);
}

/* --- --compat=perl: the Perl machine on perfsift script's text ------------- */

static int run_perl(capture *c, const input_opts *in)
{
    const char *argv[24];
    char maxs[16];
    int fd[2], argc = 0, status, rc;
    pid_t pid;
    FILE *fp;

    argv[argc++] = "script";
    argv[argc++] = "-q";
    snprintf(maxs, sizeof(maxs), "%u", c->o->max_stack);
    argv[argc++] = "--max-stack";
    argv[argc++] = maxs;
    if (c->o->srcline) {
        argv[argc++] = "-F";
        argv[argc++] = "+srcline";
    }
    if (c->o->symfs) {
        argv[argc++] = "--symfs";
        argv[argc++] = c->o->symfs;
    }
    if (c->o->kallsyms) {
        argv[argc++] = "--kallsyms";
        argv[argc++] = c->o->kallsyms;
    }
    if (in->attr_path) {
        argv[argc++] = "--attr";
        argv[argc++] = in->attr_path;
    }
    argv[argc++] = in->path ? in->path : "perf.data";
    argv[argc] = NULL;
    if (pipe(fd) < 0 || (pid = fork()) < 0) {
        fprintf(stderr, "perfsift %s: %s\n", c->cmd, strerror(errno));
        return EXIT_BADINPUT;
    }
    if (pid == 0) {
        close(fd[0]);
        if (dup2(fd[1], STDOUT_FILENO) < 0)
            _exit(EXIT_BADINPUT);
        close(fd[1]);
        _exit(cmd_script(argc, (char **)argv));
    }
    close(fd[1]);
    if ((fp = fdopen(fd[0], "r")) == NULL) {
        close(fd[0]);
        waitpid(pid, &status, 0);
        return EXIT_BADINPUT;
    }
    rc = fold_text_fp(c->cmd, fp, "perfsift script", c->f);
    fclose(fp);
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return rc == EXIT_OK ? EXIT_BADINPUT : rc;
    return rc;
}

int fold_capture(const char *cmd, const input_opts *in, folder *f, char *countname,
                 size_t countname_size)
{
    capture c;
    int rc;

    memset(&c, 0, sizeof(c));
    c.cmd = cmd;
    c.o = f->o;
    c.f = f;
    if (f->o->compat == FOLD_COMPAT_PERL) {
        rc = run_perl(&c, in);
        snprintf(countname, countname_size, "%s",
                 f->o->weight == FOLD_WEIGHT_SAMPLES ? "samples" : "counts");
        return rc;
    }
    rc = run_direct(&c, in);
    if (rc == EXIT_OK && c.ids != NULL && fold_ids_flush(c.ids, f->t) < 0)
        f->oom = 1;
    if (f->o->compat == FOLD_COMPAT_PERF_PY)
        snprintf(countname, countname_size, "samples");
    else
        count_name(&c, countname, countname_size);
    lb_free(&c.text);
    fold_ids_free(c.ids);
    free(c.stack);
    return rc;
}
