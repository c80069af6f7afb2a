/* SPDX-License-Identifier: MIT */
/*
 * sqlite.c - perfsift sqlite: a capture as an SQLite database with the
 * schema of perf's export-to-sqlite.py (`perf script -s export-to-sqlite.py
 * DB all calls callchains`) plus perfsift's tables; mirrors that script.
 *
 * The capture is walked as perf script walks it (walk.h); sqlite_export.c
 * makes perf's rows, sqlite_tp.c the tracepoint tables, sqlite_records.c
 * and sqlite_capture.c perfsift's own ones, sqlite_db.c the file. All of it
 * is one transaction in a temp file renamed over OUT at the end.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite_capture.h"
#include "sqlite_records.h"
#include "sqlite_tp.h"

static const char usage_text[] =
"usage: perfsift sqlite [options] [FILE] -o OUT.db\n"
"\n"
"Write a capture into an SQLite database with the tables, columns and views\n"
"of perf's export-to-sqlite.py (run with 'all calls callchains'): events,\n"
"machines, threads, comms, dsos, symbols, samples, call_paths (the call tree\n"
"of every call chain) and context_switches, with perf's ids. perfsift adds a\n"
"table per tracepoint event with its fields, the capture's header, events,\n"
"mmaps, comm/fork/exit timeline, lost, throttle, cgroup, namespaces, ksymbol\n"
"and bpf records, and views with period, weight and call chains. The schema\n"
"is schemas/sqlite.sql.\n"
"\n"
"  -o, --output OUT.db   the database to write (required); it appears\n"
"                        whole or not at all (temp file + rename); a\n"
"                        FIFO or device (/dev/stdout) gets it copied in\n"
"  -f, --force           replace OUT.db if it exists\n"
"      --append          add the capture to OUT.db (a new captures row;\n"
"                        ids continue after those already there)\n"
"      --symfs DIR       look for binaries under DIR (as perf --symfs)\n"
"      --kallsyms FILE   kernel symbols from FILE (as perf --kallsyms)\n"
"      --no-inline       no inlined functions in call chains\n"
"\n"
"Input:\n"
INPUT_USAGE
"  -h, --help            this text\n"
"\n"
"Examples:\n"
"  perfsift sqlite perf.data -o perf.db\n"
"  perfsift sqlite --append other.data -o perf.db\n"
"  sqlite3 perf.db 'SELECT command, count(*) FROM samples_view GROUP BY 1'\n";

enum { OPT_APPEND = 2000, OPT_SYMFS, OPT_KALLSYMS, OPT_NO_INLINE };

static const struct option long_opts[] = {
    INPUT_LONG_OPTS,
    { "output", required_argument, NULL, 'o' },
    { "force", no_argument, NULL, 'f' },
    { "append", no_argument, NULL, OPT_APPEND },
    { "symfs", required_argument, NULL, OPT_SYMFS },
    { "kallsyms", required_argument, NULL, OPT_KALLSYMS },
    { "no-inline", no_argument, NULL, OPT_NO_INLINE },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
};

typedef struct sqlite_run {
    const char *out, *display;
    int         force, append;
    walk_opts   wo;
    sqdb        d;
    sqx        *x;
    sqrec      *rec;
    sqtp       *tp;
    int64_t     capture_id;
    int         started;
    sqcap_stats st;
} sqlite_run;

static int parse_args(int argc, char **argv, input_opts *in, sqlite_run *r)
{
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "i:qo:fh", long_opts, NULL)) != -1) {
        int k = cmd_input_option("sqlite", in, c, optarg);

        if (k < 0)
            return EXIT_USAGE;
        if (k > 0)
            continue;
        switch (c) {
        case 'o': r->out = optarg; break;
        case 'f': r->force = 1; break;
        case OPT_APPEND: r->append = 1; break;
        case OPT_SYMFS: r->wo.symfs = optarg; break;
        case OPT_KALLSYMS: r->wo.kallsyms = optarg; break;
        case OPT_NO_INLINE: r->wo.no_inline = 1; break;
        case 'h': fputs(usage_text, stdout); return -1;
        default: return cmd_bad_option("sqlite");
        }
    }
    if (optind < argc)
        in->path = argv[optind++];
    if (optind < argc)
        return cmd_usage_error("sqlite", "one capture at a time");
    if (r->out == NULL)
        return cmd_usage_error("sqlite", "no output: -o OUT.db is required");
    if (strcmp(r->out, "-") == 0)
        return cmd_usage_error("sqlite", "a database cannot go to standard output");
    return 0;
}

static int on_end(void *ctx, walk *w)
{
    sqlite_run *r = ctx;

    return sqcap_write(&r->d, r->x, walk_session(w), r->capture_id, r->display, &r->st);
}

/* the first callback: the walk's session and resolver exist now */
static void start(sqlite_run *r, walk *w)
{
    if (r->started)
        return;
    r->started = 1;
    sqx_begin(r->x, w);
    walk_at_end(w, on_end);
}

static int on_sample(void *ctx, walk *w, const ps_event *ev, const ps_evsel *e, uint64_t period)
{
    sqlite_run *r = ctx;
    const ps_sample *smp = &ev->u.sample;
    int64_t id;

    start(r, w);
    r->st.nr_records++;
    if (sqx_sample(r->x, w, ev, e, period, &id) < 0 ||
        sqtp_sample(r->tp, walk_session(w), ev, e, id) < 0)
        return -1;
    if (smp->sample_type & PERF_SAMPLE_TIME) {
        if (r->st.nr_samples == 0 || smp->time < r->st.first_time)
            r->st.first_time = smp->time;
        if (smp->time > r->st.last_time)
            r->st.last_time = smp->time;
    }
    r->st.nr_samples++;
    return 0;
}

static int on_record(void *ctx, walk *w, const ps_event *ev)
{
    sqlite_run *r = ctx;

    start(r, w);
    r->st.nr_records++;
    if (sqx_record(r->x, w, ev) < 0 || sqrec_record(r->rec, ev) < 0)
        return -1;
    return 0;
}

static int run(sqlite_run *r, const input_opts *in)
{
    walk_cb cb = { r, on_sample, on_record };

    if (sqdb_section(&r->d, "create") < 0 || (r->d.is_new && sqdb_section(&r->d, "fill") < 0) ||
        (r->capture_id = sqcap_next_id(&r->d)) < 0 ||
        (r->x = sqx_new(&r->d, r->wo.symfs)) == NULL ||
        (r->rec = sqrec_new(&r->d, r->capture_id)) == NULL ||
        (r->tp = sqtp_new(&r->d)) == NULL)
        return EXIT_BADINPUT;
    r->wo.max_stack = 127;      /* perf's PERF_MAX_STACK_DEPTH for db export */
    /* db-export resolves chains callers first (the call path tree grows
     * from the root), so a longer chain keeps its outer 127 entries */
    r->wo.stack_outer = 1;
    return walk_run("sqlite", in, &r->wo, &cb);
}

int cmd_sqlite(int argc, char **argv)
{
    sqlite_run r;
    input_opts in;
    int rc;

    memset(&in, 0, sizeof(in));
    memset(&r, 0, sizeof(r));
    if ((rc = parse_args(argc, argv, &in, &r)) != 0)
        return rc < 0 ? EXIT_OK : rc;
    r.display = in.path ? in.path : "perf.data";
    if (sqdb_open(&r.d, "sqlite", r.out, r.append, r.force) < 0)
        return EXIT_BADINPUT;
    rc = run(&r, &in);
    if (rc == EXIT_OK && (sqdb_section(&r.d, "finish") < 0 || sqdb_commit(&r.d) < 0))
        rc = EXIT_BADINPUT;
    if (rc != EXIT_OK)
        sqdb_abort(&r.d);
    sqtp_free(r.tp);
    sqrec_free(r.rec);
    sqx_free(r.x);
    return rc;
}
