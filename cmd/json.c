/* SPDX-License-Identifier: MIT */
/*
 * json.c - perfsift json: a capture as JSON, streamed. Mirrors perf data
 * convert --to-json (--perf-compat is its exact shape), and goes past it:
 * the default document holds every record with every decoded field, and
 * samples with their event, period and resolved call chain; --lines is the
 * same as NDJSON; --format speedscope is a speedscope file. Every form has
 * a JSON Schema in schemas/ (json.h lists the files of the forms).
 *
 * This file parses the options, walks the capture as perf script does
 * (walk.h: time order, the resolver fed every record, READ samples split),
 * applies the filters shared with script (filters.h) and hands records to
 * the form. Output goes to stdout or, with -o, to a temp file renamed over
 * OUT when all went well (cmd_write_atomic).
 *
 * Names from the capture need not be UTF-8 and JSON must be: every form
 * writes them as info --json does (json_escape() in json_writer.h: valid
 * UTF-8 kept, a backslash doubled, another byte as the text \xNN);
 * --perf-compat keeps perf's single backslashes, so its ASCII is byte for
 * byte perf's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "json_record.h"
#include "json_writer.h"
#include "../libparse/tracepoint.h"

static const char usage_text[] =
"usage: perfsift json [options] [FILE]\n"
"\n"
"Write a capture as JSON. By default one document: the header, the\n"
"features, the event table and every record with every decoded field;\n"
"samples add their event, period, comm and resolved call chain, and\n"
"tracepoint samples their fields, typed (schemas/json.schema.json).\n"
"Records come in time order, as perf script delivers them.\n"
"\n"
"  -o, --output FILE     write to FILE (atomically) instead of stdout\n"
"      --lines           NDJSON: a header line, one line per record and an\n"
"                        end line (schemas/json-lines.schema.json); memory\n"
"                        stays flat however large the capture\n"
"      --perf-compat     what `perf data convert --to-json` writes, in its\n"
"                        layout (schemas/json-perf.schema.json), with\n"
"                        non-ASCII names written right\n"
"      --format FORM     document (default), lines, perf (--perf-compat) or\n"
"                        speedscope: a speedscope file, one sampled profile\n"
"                        per thread and event (schemas/json-speedscope.schema.json)\n"
"      --samples-only    leave out the records that are not samples\n"
"      --no-stack        leave out user stack bytes (STACK_USER data)\n"
"\n"
"Samples (as perf script; other records are kept):\n"
FILTER_USAGE
"  -e, --event LIST      only samples of these events (names as info lists)\n"
"\n"
"Symbols:\n"
"      --srcline         frames add \"srcline\" (perf script -F +srcline)\n"
"      --no-inline       no inlined frames in DWARF call chains\n"
"      --max-stack N     at most N call chain entries (default 127)\n"
"      --symfs DIR       look for binaries under DIR\n"
"      --kallsyms FILE   kernel symbols from FILE\n"
"      --no-demangle     C++/Rust symbols as they are in the binary\n"
"\n"
"Input:\n"
INPUT_USAGE
"  -h, --help            this text\n"
"\n"
"Examples:\n"
"  perfsift json perf.data -o perf.json\n"
"  perfsift json --lines perf.data | jq 'select(.type == \"SAMPLE\") | .event'\n"
"  perfsift json --perf-compat perf.data -o perf.json\n"
"  perfsift json --format speedscope perf.data -o profile.speedscope.json\n";

enum {
    OPT_LINES = 4000, OPT_PERF_COMPAT, OPT_FORMAT, OPT_SAMPLES_ONLY, OPT_NO_STACK,
    OPT_SRCLINE, OPT_NO_INLINE,
    OPT_MAX_STACK, OPT_SYMFS, OPT_KALLSYMS, OPT_NO_DEMANGLE
};

static const struct option long_opts[] = {
    { "output", required_argument, NULL, 'o' },
    { "lines", no_argument, NULL, OPT_LINES },
    { "perf-compat", no_argument, NULL, OPT_PERF_COMPAT },
    { "format", required_argument, NULL, OPT_FORMAT },
    { "samples-only", no_argument, NULL, OPT_SAMPLES_ONLY },
    { "no-stack", no_argument, NULL, OPT_NO_STACK },
    FILTER_LONG_OPTS,
    { "event", required_argument, NULL, 'e' },
    { "srcline", no_argument, NULL, OPT_SRCLINE },
    { "no-inline", no_argument, NULL, OPT_NO_INLINE },
    { "max-stack", required_argument, NULL, OPT_MAX_STACK },
    { "symfs", required_argument, NULL, OPT_SYMFS },
    { "kallsyms", required_argument, NULL, OPT_KALLSYMS },
    { "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
    { "help", no_argument, NULL, 'h' },
    INPUT_LONG_OPTS,
    { NULL, 0, NULL, 0 }
};

/* --format names; --lines and --perf-compat are shorthands */
static const json_form *const forms[] = {
    &json_form_doc, &json_form_lines, &json_form_perf, &json_form_speedscope,
};

/* --- what the forms share ------------------------------------------------------ */

void json_put_string(linebuf *b, const char *s, int perf_ascii)
{
    s = s ? s : "";
    lb_putc(b, '"');
    json_escape(b, s, strlen(s), perf_ascii ? JSON_ESC_LOWER : JSON_ESC_LOWER | JSON_ESC_REVERSIBLE);
    lb_putc(b, '"');
}

/* --- the walk ------------------------------------------------------------------- */

static int start(json_run *r, walk *w)
{
    ps_session *s = walk_session(w);

    r->started = 1;
    walk_tp_funcs(w);
    if (r->filter.cpus && ps_session_header(s)->container != PS_CONTAINER_PIPE &&
        filter_check_cpus(&r->filter, s) < 0)
        return -1;
    return r->form->begin(r, s);
}

static int on_sample(void *ctx, walk *w, const ps_event *ev, const ps_evsel *e,
                     uint64_t period)
{
    json_run *r = ctx;

    if (!r->started && start(r, w) < 0)
        return -1;
    r->nr_samples++;
    switch (filter_skip(&r->filter, walk_resolver(w), ev, e)) {
    case 0: break;
    case 1: r->nr_filtered++; return 0;
    default: return -1;
    }
    return r->form->sample(r, w, ev, e, period);
}

static int on_record(void *ctx, walk *w, const ps_event *ev)
{
    json_run *r = ctx;

    if (!r->started && start(r, w) < 0)
        return -1;
    r->nr_records++;
    if (ev->type != PS_RECORD_FINISHED_ROUND)
        json_cache_invalidate(&r->cache);   /* it may change what an address is */
    if (r->form->record == NULL)
        return 0;
    return r->form->record(r, w, ev);
}

/* A capture without records: its header, features and events still make
 * a document (read again, unless it was standard input). */
static int begin_empty(json_run *r)
{
    ps_session *s = NULL;
    int rc;

    if ((r->in.path == NULL || strcmp(r->in.path, "-") != 0) &&
        (s = cmd_open(r->cmd, &r->in)) == NULL)
        return -1;
    r->started = 1;
    rc = r->form->begin(r, s);
    ps_session_close(s);
    return rc;
}

static int run(json_run *r)
{
    walk_cb cb = { r, on_sample, on_record };
    int rc = walk_run(r->cmd, &r->in, &r->wo, &cb);

    if (rc != EXIT_OK)
        return rc;
    if (!r->started && begin_empty(r) < 0)
        return EXIT_BADINPUT;
    if (r->form->end(r) < 0)
        return EXIT_BADINPUT;
    return EXIT_OK;
}

static int write_json(FILE *fp, void *ctx)
{
    json_run *r = ctx;

    r->out = fp;
    if (run(r) != EXIT_OK) {
        /* an input error is printed already; a failed write (a full
         * disk) is not, and errno still says why */
        if (!ferror(fp))
            errno = ECANCELED;
        return -1;
    }
    return ferror(fp) ? -1 : 0;
}

/* --- options ------------------------------------------------------------------------ */

static int set_form(json_run *r, const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
        if (strcmp(name, forms[i]->name) == 0) {
            r->form = forms[i];
            return 0;
        }
    return cmd_usage_error("json", "unknown --format '%s' (document, lines, perf, speedscope)",
                           name);
}

static int parse_option(json_run *r, int c, const char **output)
{
    switch (c) {
    case 'o': *output = optarg; return 0;
    case OPT_LINES: r->form = &json_form_lines; return 0;
    case OPT_PERF_COMPAT: r->form = &json_form_perf; return 0;
    case OPT_FORMAT: return set_form(r, optarg);
    case OPT_SAMPLES_ONLY: r->samples_only = 1; return 0;
    case OPT_NO_STACK: r->record_flags |= JSON_RECORD_NO_STACK; return 0;
    case 'e': return filter_list_parse(&r->filter.events, optarg) < 0 ? EXIT_USAGE : 0;
    /* not script's "+srcline": the frames are written for every event,
     * tracepoints too, where script's default fields have no ip and
     * would refuse the capture */
    case OPT_SRCLINE: r->srcline = 1; return 0;
    case OPT_NO_INLINE: r->wo.no_inline = 1; return 0;
    case OPT_MAX_STACK: {
        char *end;
        long v = strtol(optarg, &end, 10);

        if (*optarg == '\0' || *end || v < 0 || v > 65535)
            return cmd_usage_error("json", "--max-stack takes a number, not '%s'", optarg);
        r->wo.max_stack = (unsigned)v;
        return 0;
    }
    case OPT_SYMFS: r->wo.symfs = optarg; return 0;
    case OPT_KALLSYMS: r->wo.kallsyms = optarg; return 0;
    case OPT_NO_DEMANGLE: r->wo.no_demangle = 1; return 0;
    case 'h': fputs(usage_text, stdout); return -1;
    default: return cmd_bad_option("json");
    }
}

static int parse_args(json_run *r, int argc, char **argv, const char **output)
{
    int c, rc;

    while ((c = getopt_long(argc, argv, "o:C:S:e:i:qh", long_opts, NULL)) != -1) {
        int in = cmd_input_option("json", &r->in, c, optarg);

        if (in == 0)
            in = filter_option(&r->filter, "json", c, optarg);
        if (in < 0)
            return EXIT_USAGE;
        if (in == 0 && (rc = parse_option(r, c, output)) != 0)
            return rc;
    }
    if (optind < argc)
        r->in.path = argv[optind++];
    if (optind < argc)
        return cmd_usage_error("json", "one capture at a time ('%s' is extra)", argv[optind]);
    return 0;
}

int cmd_json(int argc, char **argv)
{
    const char *output = NULL;
    json_run r;
    int rc;

    memset(&r, 0, sizeof(r));
    r.cmd = "json";
    r.form = &json_form_doc;
    if ((rc = parse_args(&r, argc, argv, &output)) != 0) {
        filter_free(&r.filter);
        return rc < 0 ? EXIT_OK : rc;
    }
    json_cache_init(&r.cache);      /* without one (no memory), just slower */
    if (output != NULL && strcmp(output, "-") != 0) {
        rc = cmd_write_atomic("json", output, write_json, &r);
    } else {
        setvbuf(stdout, NULL, _IOFBF, 1 << 20);
        r.out = stdout;
        rc = cmd_finish_stdout("json", run(&r));
    }
    if (r.form->free != NULL)
        r.form->free(&r);
    json_cache_free(&r.cache);
    filter_free(&r.filter);
    return rc;
}
