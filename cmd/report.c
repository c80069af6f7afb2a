/* SPDX-License-Identifier: MIT */
/*
 * report.c - perfsift report [FILE]: where the samples went, summed by sort
 * keys; mirrors `perf report --stdio`: the same header comment lines,
 * columns, widths, rows and order, with perf's defaults (--children and
 * call graphs under the rows when the capture has call chains; -g none
 * and --no-children for the plain table). --json writes the same rows for
 * machines (schemas/report.schema.json), without call graphs.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "callchain.h"
#include "header_print.h"
#include "hist_capture.h"
#include "info_json.h"
#include <inttypes.h>

static const char usage_text[] =
"usage: perfsift report [options] [FILE]\n"
"\n"
"Where the samples went: overhead (share of the sampled period) summed by\n"
"sort keys, as `perf report --stdio` prints it, one table per event.\n"
"\n"
"  -s, --sort KEYS       comma-separated keys: comm, pid (a thread, shown as\n"
"                        tid:comm as perf does), tid, dso, sym, cpu, trace\n"
"                        (a tracepoint's text), srcline (file:line, as\n"
"                        addr2line names it), srcfile, weight, local_weight,\n"
"                        transaction, cgroup, socket; default comm,dso,sym, or\n"
"                        trace when every event is a tracepoint, as perf\n"
"      --children        also the inclusive overhead from call chains (each\n"
"                        row's share of samples it is anywhere in the chain of;\n"
"                        rows sorted by it): the default when the capture has\n"
"                        call chains, as in perf report\n"
"      --no-children     self overhead only\n"
"  -g, --call-graph [P]  the call graph under each row, as perf prints it:\n"
"                        P is print_type,threshold[,print_limit],order,key,\n"
"                        value: graph (percentages of the total), fractal\n"
"                        (of the parent), flat, folded or none; threshold in\n"
"                        percent; caller or callee; function; percent, period\n"
"                        or count. Default graph,0.5,caller,function,percent\n"
"                        with children, callee without; none for -g none\n"
"  -G, --inverted        callers first (-g caller)\n"
"      --percent-limit P hide rows under P percent (of the first column)\n"
"      --group           an event group in one table, a column of each event's\n"
"                        share (the default for a capture with groups, as perf;\n"
"                        not with --json)\n"
"      --no-group        a table per event of a group\n"
"  -b, --branch-stack    perf's branch view (the default for a capture with\n"
"                        branch stacks, as in perf report): a row per branch\n"
"                        of the samples' stacks, of weight 1, sorted by\n"
"                        comm,dso_from,symbol_from,symbol_to,cycles; sort\n"
"                        keys dso_from, dso_to, symbol_from, symbol_to and\n"
"                        cycles besides the others (dso and sym: the target)\n"
"      --no-branch-stack the samples of such a capture instead\n"
"  -n, --show-nr-samples a column of each row's own sample count\n"
"      --show-total-period a column of each row's own period\n"
"      --percentage MODE absolute (the default: shares of every sample) or\n"
"                        relative (of the rows the filters leave shown)\n"
"      --header          the capture's header first, as perf report prints it\n"
"                        (-I: in full); --header-only: the header alone\n"
"      --stdio           the text table (the default)\n"
"      --json            JSON instead (schemas/report.schema.json)\n"
"      --symfs DIR       look for binaries under DIR\n"
"      --kallsyms FILE   kernel symbols from FILE\n"
"      --max-stack N     at most N call chain entries (default 127): with\n"
"                        callers first (the default with children, -G)\n"
"                        the outermost N, as perf walks the chain from there;\n"
"                        0: no entry (children equal to self, no graphs)\n"
FILTER_USAGE
INPUT_USAGE
"  -h, --help            this text\n"
"\n"
"Examples:\n"
"  perfsift report perf.data\n"
"  perfsift report --no-children -g none perf.data\n"
"  perfsift report -g folded,0,caller --sort dso,sym perf.data\n"
"  perfsift report --children --sort dso,sym --percent-limit 1 perf.data\n"
"  perfsift report --json --comms myapp perf.data | jq '.events[0].rows[0]'\n";

enum { OPT_SORT = 6000, OPT_CHILDREN, OPT_NO_CHILDREN, OPT_PERCENT_LIMIT, OPT_STDIO,
       OPT_JSON, OPT_SYMFS, OPT_KALLSYMS, OPT_MAX_STACK, OPT_SHOW_PERIOD, OPT_PERCENTAGE,
       OPT_CALL_GRAPH, OPT_GROUP, OPT_NO_GROUP, OPT_NO_BRANCH_STACK, OPT_HEADER,
       OPT_HEADER_ONLY };

static const struct option long_opts[] = {
    INPUT_LONG_OPTS,
    FILTER_LONG_OPTS,
    { "sort", required_argument, NULL, 's' },
    { "children", no_argument, NULL, OPT_CHILDREN },
    { "no-children", no_argument, NULL, OPT_NO_CHILDREN },
    { "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
    { "stdio", no_argument, NULL, OPT_STDIO },
    { "json", no_argument, NULL, OPT_JSON },
    { "symfs", required_argument, NULL, OPT_SYMFS },
    { "kallsyms", required_argument, NULL, OPT_KALLSYMS },
    { "max-stack", required_argument, NULL, OPT_MAX_STACK },
    { "show-nr-samples", no_argument, NULL, 'n' },
    { "show-total-period", no_argument, NULL, OPT_SHOW_PERIOD },
    { "percentage", required_argument, NULL, OPT_PERCENTAGE },
    { "call-graph", optional_argument, NULL, OPT_CALL_GRAPH },
    { "inverted", no_argument, NULL, 'G' },
    { "group", no_argument, NULL, OPT_GROUP },
    { "no-group", no_argument, NULL, OPT_NO_GROUP },
    { "branch-stack", no_argument, NULL, 'b' },
    { "no-branch-stack", no_argument, NULL, OPT_NO_BRANCH_STACK },
    { "header", no_argument, NULL, OPT_HEADER },
    { "header-only", no_argument, NULL, OPT_HEADER_ONLY },
    { "show-info", no_argument, NULL, 'I' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
};

typedef struct report {
    input_opts        in;
    hist_capture_opts ho;
    sample_filter     filter;
    sample_filter     hard, soft;   /* filter's lists split, borrowed */
    const char       *time_arg;
    double            limit;
    int               json;
    int               sorted;       /* --sort given */
    const char       *sort_arg;
    int               children_set; /* --children or --no-children given */
    int               no_group;     /* --no-group */
    int               branch_opt;   /* -b 1, --no-branch-stack 0, neither -1 */
    int               group_view;   /* perf's group tables (print_group()) */
    cc_params         cg;           /* -g */
    int               graph_asked;  /* the last -g named a graph (not none) */
    int               show_nr, show_period;  /* -n, --show-total-period */
    int               relative;     /* --percentage relative */
    int               header;       /* --header 1, --header-only 2 */
    int               show_info;    /* -I: the header in full */
    hist_keys         elided;       /* sort keys a one-value filter names,
                                     * in sort order ("# comm: x" lines) */
    unsigned          elide;        /* of those, the columns not shown (hist.elide) */
    hist_set          set;
} report;

/* --- text ------------------------------------------------------------------ */

/* What perf report --stdio prints first, before it reads the capture's
 * samples (and before it refuses -g, -b or -C for the capture) */
static const char preamble[] = "# To display the perf.data header info, please use "
                               "--header/--header-only options.\n#\n";

/* perf's convert_unit(): "940 ", "10K" */
static void samples_text(char *buf, size_t size, uint64_t n)
{
    char unit = ' ';

    if (n > 1000) { n /= 1000; unit = 'K'; }
    if (n > 1000) { n /= 1000; unit = 'M'; }
    if (n > 1000) { n /= 1000; unit = 'G'; }
    snprintf(buf, size, "%lu%c", (unsigned long)n, unit);
}

static void print_header(FILE *fp, const report *r, const hist *h, int children, const int *w)
{
    int i, k, g = h->group_v != NULL ? (int)h->group_n : 1;

    if (g > 1 && children)      /* a group's: a column per member */
        fprintf(fp, "#%*s  %*s", 8 * g + 1, "Children", 8 * g, "Self");
    else if (g > 1)
        fprintf(fp, "#%*s", 8 * g + 1, "Overhead");
    else
        fputs(children ? "# Children      Self" : "# Overhead", fp);
    if (r->show_nr)
        fprintf(fp, "  %*s", 12 * g, "Samples");
    if (r->show_period)
        fprintf(fp, "  %*s", 12 * g, "Period");
    for (i = 0; i < h->keys.n; i++)
        if (!(h->elide >> h->keys.k[i] & 1))
            fprintf(fp, "  %-*s", w[i], hist_key_header(h->keys.k[i]));
    if (g > 1) {
        fputs("\n# ", fp);
        for (k = 0; k < (children ? 2 : 1); k++) {
            fputs(k ? "  " : "", fp);
            for (i = 0; i < 8 * g; i++)
                fputc('.', fp);
        }
    } else {
        fputs(children ? "\n# ........  ........" : "\n# ........", fp);
    }
    for (k = 0; k < r->show_nr + r->show_period; k++) {
        fputs("  ", fp);
        for (i = 0; i < 12 * g; i++)
            fputc('.', fp);
    }
    for (i = 0; i < h->keys.n; i++) {
        if (h->elide >> h->keys.k[i] & 1)
            continue;
        fputs("  ", fp);
        for (int j = 0; j < w[i]; j++)
            fputc('.', fp);
    }
    fputs("\n#\n", fp);
}

/* the row's call graph: branches under the threshold (of the samples
 * shown) left out, percentages of every sample (perf's total_period) */
static void print_graph(FILE *fp, const report *r, const hist *h, const hist_entry *e)
{
    uint64_t min_hit = (uint64_t)((double)h->total_period * (r->cg.min_percent / 100));

    if (cc_sort(e->chain, &r->cg, min_hit) < 0) {
        fprintf(stderr, "perfsift report: out of memory\n");
        return;
    }
    cc_print(fp, e->chain, &r->cg, h->abs_period, r->ho.children ? e->acc_period : e->period);
}

static void print_event(FILE *fp, const report *r, const hist *h, const size_t *order, size_t n)
{
    int w[HK_MAX];
    char ns[32];
    size_t i;

    samples_text(ns, sizeof(ns), h->nr_samples);
    /* (perf's plural for a group's leader, its table alone or not) */
    fprintf(fp, "# Samples: %s of event%s '%s'", ns, h->nr_members > 1 ? "s" : "", h->name);
    if (r->time_arg != NULL)
        fprintf(fp, " (time slices: %s)", r->time_arg);
    fputc('\n', fp);
    fprintf(fp, "# Event count (approx.): %lu\n#\n", (unsigned long)h->total_period);
    hist_key_widths(h, w);
    print_header(fp, r, h, r->ho.children, w);
    for (i = 0; i < n; i++) {
        const hist_entry *e = &h->v[order[i]];

        if (r->ho.children)
            fprintf(fp, "  %7.2f%%  %7.2f%%", hist_percent(e->acc_period, h->total_period),
                    hist_percent(e->period, h->total_period));
        else
            fprintf(fp, "  %7.2f%%", hist_percent(e->period, h->total_period));
        if (r->show_nr)
            fprintf(fp, "  %12lu", (unsigned long)e->nr_samples);
        if (r->show_period)
            fprintf(fp, "  %12lu", (unsigned long)e->period);
        hist_key_print(fp, h, e, w);
        fputc('\n', fp);
        if (r->ho.graph != NULL && r->set.has_callchain)
            print_graph(fp, r, h, e);
    }
    fputs("\n\n", fp);
}

/* --- JSON ------------------------------------------------------------------ */

/* An address as the other JSON outputs write them: "0x..." (a u64 does
 * not fit JSON's integers as jansson writes them) */
static json_t *hex_json(uint64_t v)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
    return json_string(buf);
}

/* A branch end's members: dso_, symbol_, level_ and ip_ (unresolved) + side */
static void end_json(json_t *o, int key, const hist_end *end, const char *side)
{
    char name[32], lv[2] = { end->level, '\0' };

    snprintf(name, sizeof(name), "%s_%s", key == HK_DSO_FROM || key == HK_DSO_TO ? "dso"
                                                                               : "symbol", side);
    if (key == HK_DSO_FROM || key == HK_DSO_TO) {
        json_object_set_new(o, name, info_json_text(end->dso));
        return;
    }
    json_object_set_new(o, name, info_json_text(end->sym));
    snprintf(name, sizeof(name), "level_%s", side);
    json_object_set_new(o, name, json_string(lv));
    snprintf(name, sizeof(name), "ip_%s", side);
    if (end->sym == NULL)
        json_object_set_new(o, name, hex_json(end->ip));
}

static json_t *row_json(const report *r, const hist *h, const hist_entry *e)
{
    json_t *o = json_object();
    char buf[4096];
    int i;

    json_object_set_new(o, "overhead", json_real(hist_percent(e->period, h->total_period)));
    json_object_set_new(o, "period", json_integer((json_int_t)e->period));
    json_object_set_new(o, "samples", json_integer((json_int_t)e->nr_samples));
    if (r->ho.children) {
        json_object_set_new(o, "children", json_real(hist_percent(e->acc_period,
                                                                  h->total_period)));
        json_object_set_new(o, "children_period", json_integer((json_int_t)e->acc_period));
        json_object_set_new(o, "children_samples", json_integer((json_int_t)e->acc_samples));
    }
    for (i = 0; i < h->keys.n; i++) {
        switch (h->keys.k[i]) {
        case HK_COMM: json_object_set_new(o, "comm", info_json_text(e->it.comm)); break;
        case HK_PID:
            json_object_set_new(o, "pid", json_integer(e->it.tid));
            json_object_set_new(o, "thread_comm", info_json_text(e->thread_comm));
            break;
        case HK_TID: json_object_set_new(o, "tid", json_integer(e->it.tid)); break;
        case HK_CPU: json_object_set_new(o, "cpu", json_integer(e->it.cpu)); break;
        case HK_SOCKET: json_object_set_new(o, "socket", json_integer(e->it.socket)); break;
        case HK_DSO: json_object_set_new(o, "dso", info_json_text(e->it.dso)); break;
        case HK_TRACE: json_object_set_new(o, "trace", info_json_text(e->it.trace)); break;
        case HK_SRCLINE: json_object_set_new(o, "srcline", info_json_text(e->it.srcline)); break;
        case HK_SRCFILE: json_object_set_new(o, "srcfile", info_json_text(e->it.srcfile)); break;
        case HK_WEIGHT: case HK_LOCAL_WEIGHT:
            json_object_set_new(o, "weight", json_integer((json_int_t)e->it.weight));
            break;
        case HK_TRANSACTION:
            json_object_set_new(o, "transaction", json_integer((json_int_t)e->it.transaction));
            break;
        case HK_CGROUP:
            json_object_set_new(o, "cgroup", json_integer((json_int_t)e->it.cgroup));
            json_object_set_new(o, "cgroup_path", info_json_text(e->it.cgroup_name));
            break;
        case HK_DSO_FROM:
        case HK_SYM_FROM:
            if (e->it.br != NULL)
                end_json(o, h->keys.k[i], &e->it.br->from, "from");
            break;
        case HK_DSO_TO:
        case HK_SYM_TO:
            if (e->it.br != NULL)
                end_json(o, h->keys.k[i], &e->it.br->to, "to");
            break;
        case HK_CYCLES:
            if (e->it.br != NULL)
                json_object_set_new(o, "cycles", json_integer(e->it.br->cycles));
            break;
        case HK_SYM:
            json_object_set_new(o, "symbol", info_json_text(e->it.sym));
            snprintf(buf, sizeof(buf), "%c", e->it.level);
            json_object_set_new(o, "level", json_string(buf));
            if (e->it.inlined)
                json_object_set_new(o, "inlined", json_true());
            if (e->it.sym == NULL)
                json_object_set_new(o, "ip", hex_json(e->it.ip));
            break;
        }
    }
    return o;
}

static const char *key_name(int key)
{
    static const char *const names[HK_MAX] = {
        [HK_COMM] = "comm", [HK_PID] = "pid", [HK_TID] = "tid", [HK_DSO] = "dso",
        [HK_SYM] = "sym", [HK_CPU] = "cpu", [HK_TRACE] = "trace", [HK_SRCLINE] = "srcline",
        [HK_SRCFILE] = "srcfile", [HK_WEIGHT] = "weight", [HK_LOCAL_WEIGHT] = "local_weight",
        [HK_TRANSACTION] = "transaction", [HK_CGROUP] = "cgroup", [HK_SOCKET] = "socket",
        [HK_DSO_FROM] = "dso_from",
        [HK_DSO_TO] = "dso_to", [HK_SYM_FROM] = "symbol_from", [HK_SYM_TO] = "symbol_to",
        [HK_CYCLES] = "cycles",
    };
    return names[key];
}

/* The one value a filter leaves a sort key (NULL: none, or several). */
static const char *one_value(const report *r, int key)
{
    const filter_list *l = key == HK_COMM ? &r->filter.comms : key == HK_DSO ? &r->filter.dsos
                         : key == HK_SYM ? &r->filter.syms : NULL;

    return l != NULL && l->n == 1 ? l->v[0] : NULL;
}

static json_t *event_json(const report *r, const hist *h, const size_t *order, size_t n)
{
    json_t *o = json_object(), *rows = json_array();
    size_t i;

    json_object_set_new(o, "name", info_json_text(h->name));
    json_object_set_new(o, "samples", json_integer((json_int_t)h->nr_samples));
    json_object_set_new(o, "total_period", json_integer((json_int_t)h->total_period));
    for (i = 0; i < n; i++)
        json_array_append_new(rows, row_json(r, h, &h->v[order[i]]));
    json_object_set_new(o, "rows", rows);
    return o;
}

/* --- the command --------------------------------------------------------------- */

/* -g's argument: attached, or the next word unless it is an option or a
 * file (perf takes "-g none"), else perf's default "graph,0.5,caller,
 * function,percent" */
static int call_graph_arg(report *r, int argc, char **argv)
{
    const char *arg = optarg;
    char err[256];
    struct stat st;

    if (arg == NULL && optind < argc && argv[optind][0] != '-' && argv[optind][0] != '\0' &&
        stat(argv[optind], &st) != 0)
        arg = argv[optind++];
    if (arg == NULL)
        arg = "graph,0.5,caller,function,percent";
    if (cc_params_parse(&r->cg, arg, err, sizeof(err)) < 0) {
        cmd_usage_error("report", "%s", err);
        return -1;
    }
    return 0;
}

static int parse_args(report *r, int argc, char **argv)
{
    const char *bad;
    size_t bad_len;
    char *end;
    int c, k;

    optind = 1;
    while ((c = getopt_long(argc, argv, "i:qs:C:S:nhg::GbI", long_opts, NULL)) != -1) {
        if (c == OPT_FILTER_TIME)
            r->time_arg = optarg;
        if ((k = cmd_input_option("report", &r->in, c, optarg)) != 0 ||
            (k = filter_option(&r->filter, "report", c, optarg)) != 0) {
            if (k < 0)
                return EXIT_USAGE;
            continue;
        }
        switch (c) {
        case 's':
            if (hist_keys_parse(&r->ho.keys, optarg, &bad, &bad_len) < 0)
                return cmd_usage_error("report", "unknown sort key '%.*s' (comm, pid, tid, "
                                       "dso, sym, cpu, trace, srcline, srcfile, weight, "
                                       "local_weight, transaction, cgroup, socket; with branch "
                                       "stacks dso_from, dso_to, symbol_from, symbol_to, "
                                       "cycles)",
                                       (int)bad_len, bad);
            r->sorted = 1;
            r->sort_arg = optarg;
            break;
        case OPT_CHILDREN: r->ho.children = 1; r->children_set = 1; break;
        case OPT_NO_CHILDREN: r->ho.children = 0; r->children_set = 1; break;
        case 'g':
        case OPT_CALL_GRAPH:
            if (call_graph_arg(r, argc, argv) < 0)
                return EXIT_USAGE;
            r->graph_asked = r->cg.mode != CC_NONE;
            break;
        case 'G': r->cg.caller = r->cg.order_set = 1; break;
        case OPT_NO_GROUP: r->no_group = 1; r->ho.force_leader = 1; break;
        case OPT_NO_BRANCH_STACK: r->branch_opt = 0; break;
        case OPT_GROUP: r->no_group = 0; r->ho.force_leader = 1; break;
        case 'b': r->branch_opt = 1; break;
        case OPT_PERCENT_LIMIT:
            r->limit = strtod(optarg, &end);
            if (*optarg == '\0' || *end || r->limit < 0)
                return cmd_usage_error("report", "--percent-limit takes a percentage, not '%s'",
                                       optarg);
            r->cg.min_percent = (double)strtof(optarg, NULL);  /* perf's, a float */
            break;
        case 'n': r->show_nr = 1; break;
        case OPT_HEADER: r->header = r->header ? r->header : 1; break;
        case OPT_HEADER_ONLY: r->header = 2; break;
        case 'I': r->show_info = 1; break;
        case OPT_SHOW_PERIOD: r->show_period = 1; break;
        case OPT_PERCENTAGE:
            if (strcmp(optarg, "relative") != 0 && strcmp(optarg, "absolute") != 0)
                return cmd_usage_error("report", "--percentage takes relative or absolute, "
                                       "not '%s'", optarg);
            r->relative = strcmp(optarg, "relative") == 0;
            break;
        case OPT_STDIO: r->json = 0; break;
        case OPT_JSON: r->json = 1; break;
        case OPT_SYMFS: r->ho.symfs = optarg; break;
        case OPT_KALLSYMS: r->ho.kallsyms = optarg; break;
        case OPT_MAX_STACK:
            r->ho.max_stack = (unsigned)strtoul(optarg, &end, 10);
            if (*optarg == '\0' || *end)
                return cmd_usage_error("report", "--max-stack takes a number, not '%s'", optarg);
            r->ho.no_chains = r->ho.max_stack == 0;
            break;
        case 'h': fputs(usage_text, stdout); return -1;
        default: return cmd_bad_option("report");
        }
    }
    if (argc - optind > 1)
        return cmd_usage_error("report", "one capture at a time");
    if (optind < argc)
        r->in.path = argv[optind];
    return 0;
}

/* "# comm: x" for each column a one-value filter elides (perf says
 * nothing of the symbol one when the capture has no samples) */
static void print_elided(const report *r, int samples)
{
    for (int k = 0; k < r->elided.n; k++)
        if (samples || r->elided.k[k] != HK_SYM)
            printf("# %s: %s\n", r->elided.k[k] == HK_SYM ? "symbol" : key_name(r->elided.k[k]),
                   one_value(r, r->elided.k[k]));
}

/* The hist of event idx, or NULL (no samples). */
static hist *hist_of(const report *r, uint32_t idx)
{
    size_t i;

    for (i = 0; i < r->set.n; i++)
        if (r->set.ev[i].idx == idx)
            return &r->set.ev[i];
    return NULL;
}

static int has_groups(const hist_set *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        if (s->ev[i].nr_members > 1)
            return 1;
    return 0;
}

/* Whether h is a member (not the leader) of a group whose table is shown. */
static int group_member(const report *r, const hist *h)
{
    size_t i;

    for (i = 0; r->group_view && i < r->set.n; i++) {
        const hist *l = &r->set.ev[i];

        if (l->nr_members > 1 && h->idx > l->idx && h->idx - l->idx < l->nr_members)
            return 1;
    }
    return 0;
}

/* perf's "anon group { a, b }" (a named group by its name) */
static void group_desc(char *buf, size_t size, const hist *h, hist *const *m)
{
    size_t at;
    uint32_t k;

    /* (the group --group made of a capture without groups: the names alone) */
    if (h->forced_leader)
        at = (size_t)snprintf(buf, size, "%s", h->name);
    else
        at = (size_t)snprintf(buf, size, "%s { %s", h->group_name != NULL ? h->group_name
                                                                            : "anon group",
                              h->name);
    for (k = 1; k < h->group_n && at < size; k++)
        at += (size_t)snprintf(buf + at, size - at, ", %s", m[k - 1]->name);
    if (at < size && !h->forced_leader)
        snprintf(buf + at, size - at, " }");
}

/* A group's table (symbol_conf.event_group): h's rows linked with the
 * members', a column of each member's share, samples and periods summed. */
static int print_group(FILE *fp, const report *r, hist *h)
{
    hist *m[64];
    uint64_t ns = h->nr_samples, total = h->total_period;
    char name[4096], nstext[32];
    uint32_t k, g = h->nr_members < 65 ? h->nr_members : 65;
    size_t *order, n, i;
    int w[HK_MAX];

    for (k = 1; k < g; k++) {
        m[k - 1] = hist_of(r, h->idx + k);
        ns += m[k - 1] != NULL ? m[k - 1]->nr_samples : 0;
        total += m[k - 1] != NULL ? m[k - 1]->total_period : 0;
    }
    for (k = 1; k < g; k++)
        if (m[k - 1] == NULL)           /* hist_capture() made every member's */
            return 0;
    if (hist_group_link(h, m, g) < 0 ||
        (order = hist_order(h, r->ho.children, r->limit, &n)) == NULL)
        return -1;
    group_desc(name, sizeof(name), h, m);
    samples_text(nstext, sizeof(nstext), ns);
    fprintf(fp, "# Samples: %s of events '%s'", nstext, name);
    if (r->time_arg != NULL)
        fprintf(fp, " (time slices: %s)", r->time_arg);
    fprintf(fp, "\n# Event count (approx.): %lu\n#\n", (unsigned long)total);
    hist_key_widths(h, w);
    print_header(fp, r, h, r->ho.children, w);
    for (i = 0; i < n; i++) {
        const hist_entry *e = &h->v[order[i]];

        fputs("  ", fp);
        for (k = 0; r->ho.children && k < g; k++)
            fprintf(fp, "%7.2f%%", hist_percent(h->group_acc[order[i] * g + k],
                                                k ? m[k - 1]->total_period : h->total_period));
        if (r->ho.children)
            fputs("  ", fp);
        for (k = 0; k < g; k++)
            fprintf(fp, "%7.2f%%", hist_percent(h->group_v[order[i] * g + k],
                                                k ? m[k - 1]->total_period : h->total_period));
        if (r->show_nr)
            fputs("  ", fp);
        for (k = 0; r->show_nr && k < g; k++)
            fprintf(fp, "%12lu", (unsigned long)h->group_ns[order[i] * g + k]);
        if (r->show_period)
            fputs("  ", fp);
        for (k = 0; r->show_period && k < g; k++)
            fprintf(fp, "%12lu", (unsigned long)h->group_v[order[i] * g + k]);
        hist_key_print(fp, h, e, w);
        fputc('\n', fp);
        if (r->ho.graph != NULL && r->set.has_callchain && e->chain != NULL)
            print_graph(fp, r, h, e);
    }
    fputs("\n\n", fp);
    free(order);
    return 0;
}

/* Whether no event kept a sample (none had any, or --time and --cpu, which
 * drop samples, left none): perf then prints no table, not even a group's
 * (rows the other filters hide still count) */
static int no_samples(const hist_set *set)
{
    size_t i;

    for (i = 0; i < set->n; i++)
        if (set->ev[i].abs_samples > 0)
            return 0;
    return 1;
}

/* --header: the capture's header as perf report prints it (features as
 * they come in a pipe stream, none before a refusal: feats 0; -I in
 * full), in place of the line that points to it. 0, or -1 (the capture
 * does not open: the walk says why). */
static int print_capture_header(const report *r, int feats)
{
    ps_open_opts o = PS_OPEN_OPTS_INIT;
    header_printer hp;
    ps_session *s;
    ps_error err;
    ps_event ev;

    o.ring_form = r->in.ring_form;
    if (ps_session_open(&s, r->in.path != NULL ? r->in.path : "perf.data", &o, &err) < 0)
        return -1;
    header_print_begin(&hp, stdout, s, !r->show_info);
    hp.seen = 1;        /* (a pipe's features: only those that come) */
    while (feats && ps_session_header(s)->container == PS_CONTAINER_PIPE &&
           ps_session_next(&ev, s, &err) == PS_OK)
        if (ev.type == PS_RECORD_HEADER_FEATURE)
            header_print_event(&hp, &ev);
    header_print_end(&hp);
    ps_session_close(s);
    return 0;
}

/* What perf report --stdio prints first (feats: print_capture_header()). */
static void print_top(const report *r, int feats)
{
    if (!r->header || print_capture_header(r, feats) < 0)
        fputs(preamble, stdout);
}

static int write_all(report *r)
{
    json_t *doc = r->json ? json_object() : NULL, *events = json_array();
    size_t i, n;
    int rc = EXIT_OK;

    if (!r->json && no_samples(&r->set)) {
        /* perf's text before it gives up on a capture without samples */
        print_top(r, 1);
        print_elided(r, 0);
        if (!r->in.quiet)
            fprintf(stderr, "perfsift report: %s has no samples\n",
                    r->in.path ? r->in.path : "perf.data");
    } else if (!r->json) {
        print_top(r, 1);
        print_elided(r, 1);
        printf("#\n# Total Lost Samples: %lu\n#\n", (unsigned long)r->set.nr_lost_samples);
    }
    for (i = 0; i < r->set.n && rc == EXIT_OK; i++) {
        hist *h = &r->set.ev[i];
        size_t *order;

        if (r->group_view && h->nr_members > 1) {
            if (h->abs_samples == 0)
                continue;       /* perf skips a group whose leader kept no
                                 * sample (--time, --cpu drop them) */
            if (print_group(stdout, r, h) < 0) {
                fprintf(stderr, "perfsift report: out of memory\n");
                rc = EXIT_BADINPUT;
            }
            continue;
        }
        if (group_member(r, h) || (h->abs_samples == 0 && r->ho.groups))
            continue;           /* (a member made for the group table) */
        order = hist_order(h, r->ho.children, r->limit, &n);

        if (order == NULL) {
            fprintf(stderr, "perfsift report: out of memory\n");
            rc = EXIT_BADINPUT;
        } else if (r->json) {
            json_array_append_new(events, event_json(r, h, order, n));
        } else {
            print_event(stdout, r, h, order, n);
        }
        free(order);
    }
    if (doc != NULL) {
        json_object_set_new(doc, "lost_samples", json_integer((json_int_t)r->set.nr_lost_samples));
        json_t *keys = json_array();

        for (int k = 0; k < r->ho.keys.n; k++)
            if (r->ho.keys.k[k] != HK_IPC)      /* a column, not a key asked for */
                json_array_append_new(keys, json_string(key_name(r->ho.keys.k[k])));
        json_object_set_new(doc, "sort", keys);
        json_object_set_new(doc, "branch_view", json_boolean(r->ho.branches));
        json_object_set_new(doc, "children", json_boolean(r->ho.children));
        json_object_set_new(doc, "events", events);
        if (rc == EXIT_OK && (json_dumpf(doc, stdout, JSON_INDENT(2)) < 0 || putchar('\n') == EOF))
            rc = EXIT_BADINPUT;
        json_decref(doc);
    } else {
        json_decref(events);
    }
    return rc;
}

/* What perf report decides from the capture's header before the first
 * record: whether every event is a tracepoint (it then sorts by the trace
 * text), whether it is a pipe (it knows no events then: no children), and
 * whether an event records call chains (-1: not known, a pipe or a ring
 * dump). Standard input is a pipe; an input that does not open says why
 * later. */
typedef struct probe {
    int all_tp, pipe, chains, user_stacks;
    int groups, branches;       /* event groups; branch stacks */
} probe;

/* A FIFO or device given by name can be read only once: probing it first
 * would drain it, and the run's own open would then wait for a writer
 * forever. Such an input is taken as standard input is. */
static int read_once(const char *path)
{
    struct stat st;

    return strcmp(path, "-") == 0 ||
           (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}

static void probe_input(const input_opts *in, probe *pr)
{
    ps_open_opts o = PS_OPEN_OPTS_INIT;
    const char *path = in->path != NULL ? in->path : "perf.data";
    ps_session *s;
    ps_error err;
    size_t i, n;

    pr->all_tp = pr->user_stacks = pr->groups = pr->branches = 0;
    pr->chains = -1;
    pr->pipe = read_once(path);
    if (pr->pipe || in->attr_path != NULL)
        return;
    o.ring_form = in->ring_form;
    if (ps_session_open(&s, path, &o, &err) < 0)
        return;
    n = ps_session_nr_evsels(s);
    pr->pipe = ps_session_header(s)->container == PS_CONTAINER_PIPE;
    if (!pr->pipe) {
        pr->all_tp = n > 0;
        pr->chains = 0;
    }
    for (i = 0; !pr->pipe && i < n; i++) {
        const ps_evsel *e = ps_session_evsel(s, i);

        pr->all_tp &= e->attr.type == PERF_TYPE_TRACEPOINT;
        pr->chains |= (e->attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
        pr->user_stacks |= (e->attr.sample_type & PERF_SAMPLE_STACK_USER) != 0;
    }
    /* perf's has_br_stack: the header's feature, not with user stacks */
    pr->branches = ps_features_has(ps_session_features(s), PS_HEADER_BRANCH_STACK) &&
                   !pr->user_stacks;
    pr->groups = ps_features_has(ps_session_features(s), PS_HEADER_GROUP_DESC) &&
                 ps_session_features(s)->group_desc.nr > 0;
    ps_session_close(s);
}

/* perf's sort__setup_elide(): a column whose filter leaves it one value is
 * not shown (its value is said above the table), unless that would leave
 * no column at all. Such a key still sorts and tells rows apart (the
 * hidden rows --dsos makes of ips in no map keep their place). */
static void elide(report *r)
{
    const hist_keys *k = &r->ho.keys;
    int i;

    r->elided.n = 0;
    r->elide = 0;
    for (i = 0; i < k->n; i++)
        if (one_value(r, k->k[i]) != NULL) {
            r->elided.k[r->elided.n++] = k->k[i];
            r->elide |= 1u << k->k[i];
        }
    if (r->elided.n == k->n)
        r->elide = 0;
}

/* --percentage relative: totals of the rows the filters leave shown, as
 * perf's total_non_filtered_period (the header's counts too) */
static void shown_totals(hist *h)
{
    uint64_t period = 0, samples = 0;
    size_t i;

    for (i = 0; i < h->n; i++)
        if (!h->v[i].hidden) {
            period += h->v[i].period;
            samples += h->v[i].nr_samples;
        }
    h->total_period = period;
    h->nr_samples = samples;
}

/* perf's sort mode: the branch view where the capture has branch stacks
 * (or -b), with its keys, no children and no call graphs; its branch keys
 * nowhere else. 0, or an exit code. */
static int branch_mode(report *r, const probe *pr)
{
    const char *bad;
    size_t bad_len;

    r->ho.branches = r->branch_opt == 1 || (r->branch_opt == -1 && pr->branches);
    if (r->ho.branches && !pr->branches && !pr->pipe) {
        fprintf(stderr, "perfsift report: Selected -b but no branch data. Did you call perf "
                "record without -b?\n");
        return EXIT_BADINPUT;
    }
    if (!r->ho.branches) {
        if (hist_keys_branch(&r->ho.keys))
            return cmd_usage_error("report", "sort keys dso_from, dso_to, symbol_from, "
                                   "symbol_to and cycles are the branch view's (-b)");
        return 0;
    }
    if (!r->sorted)
        hist_keys_parse(&r->ho.keys, "comm,dso_from,symbol_from,symbol_to,cycles", &bad,
                        &bad_len);
    r->ho.children = 0;
    r->children_set = 1;
    r->cg.mode = CC_NONE;
    r->no_group = 1;
    return 0;
}

/* The capture summed. --max-stack 0: perf walks no chain entry, so the
 * rows are the samples' own, children (still shown when samples have
 * chains) equal to self and no call graph under them. */
static int capture(report *r)
{
    hist_capture_opts o = r->ho;

    if (o.no_chains) {
        o.children = 0;
        o.graph = NULL;
    }
    return hist_capture("report", &r->in, &o, &r->set);
}

/* perf's text before its refusal of the capture (-g, -b, -C) */
static void refused_preamble(const report *r)
{
    if (!r->json) {
        print_top(r, 0);
        fflush(stdout);
    }
}

/* perf's check of -C against the capture's events and CPUs, made before
 * the first sample (standard input: when its events come). EXIT_OK, or
 * EXIT_BADINPUT with perf's message printed. */
static int cpus_refused(const report *r)
{
    ps_open_opts o = PS_OPEN_OPTS_INIT;
    const char *path = r->in.path != NULL ? r->in.path : "perf.data";
    ps_session *s;
    ps_error err;
    int rc;

    if (r->filter.cpus == NULL || strcmp(path, "-") == 0 || r->in.attr_path != NULL)
        return EXIT_OK;
    o.ring_form = r->in.ring_form;
    if (ps_session_open(&s, path, &o, &err) < 0)
        return EXIT_OK;         /* (the walk says why) */
    rc = filter_check_cpus(&r->filter, s) < 0 ? EXIT_BADINPUT : EXIT_OK;
    ps_session_close(s);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    report r;
    const char *bad;
    size_t bad_len;
    int rc;

    memset(&r, 0, sizeof(r));
    r.branch_opt = -1;
    cc_params_default(&r.cg);
    hist_keys_parse(&r.ho.keys, "comm,dso,sym", &bad, &bad_len);
    if ((rc = parse_args(&r, argc, argv)) == 0 && r.header && r.in.path != NULL &&
        strcmp(r.in.path, "-") == 0)
        rc = cmd_usage_error("report", "--header reads the capture twice: a file, not "
                             "standard input");
    if (rc == 0 && r.header == 2) {         /* perf's --header-only */
        if (print_capture_header(&r, 1) < 0) {
            fprintf(stderr, "perfsift report: cannot open %s\n",
                    r.in.path != NULL ? r.in.path : "perf.data");
            rc = EXIT_BADINPUT;
        }
        rc = cmd_finish_stdout("report", rc);
        goto out;
    }
    if (rc == 0) {
        probe pr;

        probe_input(&r.in, &pr);
        /* perf report refuses call graphs asked for by -g where no event
         * records call chains (not known before a pipe's events come) */
        if (r.graph_asked && pr.chains == 0) {
            refused_preamble(&r);
            fprintf(stderr, "perfsift report: Selected -g or --branch-history. But no "
                    "callchain or branch data. Did you call 'perf record' without -g or "
                    "-b?\n");
            rc = EXIT_BADINPUT;
            goto out;
        }
        if ((rc = branch_mode(&r, &pr)) != 0 || (rc = cpus_refused(&r)) != 0) {
            if (rc == EXIT_BADINPUT)
                refused_preamble(&r);
            goto out;
        }
        /* perf report adds its IPC column where --sort names "symbol..." */
        if (r.sort_arg != NULL && strstr(r.sort_arg, "symbol") != NULL)
            hist_keys_add_ipc(&r.ho.keys);
        /* perf's defaults: children (when there are call chains, below;
         * never on a pipe, whose events it does not know yet), their
         * graphs callers first (on a pipe too) */
        if (!r.cg.order_set)
            r.cg.caller = r.children_set ? r.ho.children : 1;
        r.ho.stack_outer = r.cg.caller;     /* perf's --max-stack cuts
                                             * callers-first chains there */
        if (!r.children_set)
            r.ho.children = !pr.pipe && pr.chains != 0;
        r.cg.skip_first = r.sort_arg != NULL && strncmp(r.sort_arg, "sym", 3) == 0;
        r.ho.graph = !r.json && r.cg.mode != CC_NONE && pr.chains != 0 ? &r.cg : NULL;
        r.ho.inlines = pr.user_stacks;  /* DWARF: chains with inlined entries */
        if (!r.sorted && !r.ho.branches && pr.all_tp)
            hist_keys_parse(&r.ho.keys, "trace", &bad, &bad_len);
        /* perf report drops samples by cpu and time, and hides the
         * others of the thread, dso and symbol filters (they stay in
         * the totals) */
        r.hard = r.filter;
        memset(&r.hard.comms, 0, sizeof(r.hard.comms));
        memset(&r.hard.pids, 0, sizeof(r.hard.pids));
        memset(&r.hard.tids, 0, sizeof(r.hard.tids));
        memset(&r.soft, 0, sizeof(r.soft));
        r.soft.comms = r.filter.comms;
        r.soft.pids = r.filter.pids;
        r.soft.tids = r.filter.tids;
        memset(&r.hard.dsos, 0, sizeof(r.hard.dsos));
        memset(&r.hard.syms, 0, sizeof(r.hard.syms));
        r.soft.dsos = r.filter.dsos;
        r.soft.syms = r.filter.syms;
        elide(&r);
        r.ho.filter = filter_active(&r.hard) ? &r.hard : NULL;
        r.ho.hide = filter_active(&r.soft) ? &r.soft : NULL;
        r.ho.ksyms = ps_ksyms__new();   /* kallsyms in a thread; NULL: inline */
        /* perf's group table: a table of every event of a group */
        r.ho.groups = !r.no_group && !r.json;
        rc = capture(&r);
        for (size_t i = 0; i < r.set.n; i++) {
            r.set.ev[i].elide = r.elide;
            r.set.ev[i].dso_filter = r.filter.dsos.n > 0;
            r.set.ev[i].abs_period = r.set.ev[i].total_period;
            r.set.ev[i].abs_samples = r.set.ev[i].nr_samples;
            if (r.ho.graph != NULL)
                r.set.ev[i].depth_order = r.cg.caller ? 1 : -1;
            if (r.relative)
                shown_totals(&r.set.ev[i]);
        }
        ps_ksyms__free(r.ho.ksyms);
        if (rc == EXIT_OK) {
            /* perf report shows children only when there are call chains */
            r.ho.children = r.ho.children && r.set.has_callchain;
            r.group_view = r.ho.groups;
            if (!r.in.quiet && !r.no_group && !r.group_view && has_groups(&r.set))
                fprintf(stderr, "perfsift report: note: perf report shows each event group of "
                        "this capture in one table (--group); here a table per event, as "
                        "perf report --no-group (the group table is not made with "
                        "--json)\n");
            rc = cmd_finish_stdout("report", write_all(&r));
        }
    }
out:
    hist_set_free(&r.set);
    filter_free(&r.filter);
    return rc < 0 ? EXIT_OK : rc;
}
