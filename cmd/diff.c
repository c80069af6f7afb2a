/* SPDX-License-Identifier: MIT */
/*
 * diff.c - perfsift diff BASE NEW: what changed between two profiles, as
 * folded lines "stack base new" (--folded, difffolded.pl's rules) or as a
 * differential flame graph (--svg), or by default the perf diff table
 * (diff_table.c). Inputs are captures (folded as `perfsift folded` folds
 * them, with its options; summed as perf diff sums them for the table) or
 * folded text, mixed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "diff_folded.h"
#include "diff_table.h"
#include "flame_color.h"
#include "flame_svg.h"
#include "fold.h"

static const char usage_text[] =
"usage: perfsift diff [options] BASE NEW\n"
"\n"
"Compare two profiles. BASE and NEW are captures (perf.data: folded as\n"
"`perfsift folded` folds them) or folded text (\"stack count\" lines), mixed.\n"
"By default, the table perf diff prints: a row per symbol (matched by name\n"
"and DSO, so rebuilt binaries match), BASE's share and the change.\n"
"\n"
"  -c, --compute C       delta, delta-abs (default), ratio or wdiff:W1,W2,\n"
"                        as perf diff -c: NEW%% - BASE%%, its size, NEW period /\n"
"                        BASE period, NEW period * W2 - BASE period * W1\n"
"  -b, --baseline-only   only rows both profiles have (perf diff -b)\n"
"  -C, --comms LIST      only samples of these comms (perf diff -C: the rows\n"
"                        other samples make are hidden; totals keep them)\n"
"  -d, --dsos LIST       only samples whose ip is in these DSOs, as -C\n"
"  -S, --symbols LIST    only samples whose ip is in these functions, as -C\n"
"      --cpu LIST        only samples on these cpus (e.g. 0-2,5): others\n"
"                        count nowhere\n"
"  -t, --field-separator SEP  columns apart by SEP, not aligned (perf diff -t)\n"
"      --time RANGE      only samples in this time range: START,END in seconds\n"
"                        for both, START,END:START,END for BASE and NEW, or\n"
"                        percentages of each capture's span (10%%/2, 0%%-50%%)\n"
"      --percentage MODE absolute (the default: shares of every sample) or\n"
"                        relative (of the samples -C, -d and -S let through)\n"
"  -p, --period          the periods too: BASE's before the change, NEW's\n"
"                        after it (perf diff -p)\n"
"      --sort KEYS       row keys as perfsift report --sort; default dso,sym\n"
"                        (folded inputs know only comm and sym; '-' is read as\n"
"                        a capture unless --folded-input)\n"
"      --percent-limit P hide rows under P percent in both profiles\n"
"      --children        add the inclusive share (from call chains: the\n"
"                        samples a symbol is anywhere in the stack of) in BASE\n"
"                        and its change\n"
"      --significance    add Signif: the confidence that a row's share of\n"
"                        samples changed beyond sampling noise. A two-proportion\n"
"                        z-test on sample counts: k1 of N1 samples in BASE, k2\n"
"                        of N2 in NEW, p = (k1+k2)/(N1+N2),\n"
"                        z = (k2/N2 - k1/N1) / sqrt(p(1-p)(1/N1 + 1/N2)),\n"
"                        Signif = 1 - erfc(|z|/sqrt(2)) (1 - two-sided p-value);\n"
"                        95%% and more is a change the sampling alone rarely makes.\n"
"                        Folded inputs' counts are taken as sample counts (fold\n"
"                        with --weight samples, not periods, for this column)\n"
"      --min-significance P  hide rows under P percent significance (implies\n"
"                        --significance)\n"
"\n"
"  --folded              print \"stack count_base count_new\" lines, sorted\n"
"                        (difffolded.pl's rules, reproducible order)\n"
"  -n, --normalize       scale BASE's counts to NEW's total (difffolded.pl -n:\n"
"                        int(count * total_new / total_base))\n"
"  -s, --strip-hex       mask hex addresses (0x... ) so stacks merge\n"
"      --svg FILE        a differential flame graph: widths from NEW, red where\n"
"                        a frame grew, blue where it shrank, shaded by the\n"
"                        change relative to the largest; every frame coloured\n"
"                        by its inclusive change\n"
"      --leaf-only       colour only the leaves (flamegraph.pl's way)\n"
"      --base-widths     widths from BASE instead\n"
"      --title TEXT, --width N, --colors P, --countname TEXT\n"
"                        as perfsift flamegraph\n"
"      --folded-input    read both inputs as folded text\n"
"  -o, --output FILE     --folded output to FILE (atomically)\n"
"  -q, --quiet           no warnings\n"
"  -h, --help            this text\n"
"\n"
"%s"
"\n"
"Examples:\n"
"  perfsift diff before.data after.data\n"
"  perfsift diff -c ratio --sort comm,dso,sym --significance before.data after.data\n"
"  perfsift diff --folded before.data after.data\n"
"  perfsift diff --svg diff.svg --pid before.data after.folded\n";

enum { OPT_FOLDED = 5000, OPT_SVG, OPT_LEAF_ONLY, OPT_BASE_WIDTHS, OPT_TITLE, OPT_WIDTH,
       OPT_COLORS, OPT_COUNTNAME, OPT_FOLDED_INPUT, OPT_SORT, OPT_PERCENT_LIMIT,
       OPT_CHILDREN, OPT_SIGNIFICANCE, OPT_MIN_SIGNIFICANCE, OPT_CPU, OPT_PERCENTAGE };

static const struct option long_opts[] = {
    FOLD_LONG_OPTS,
    { "folded", no_argument, NULL, OPT_FOLDED },
    { "normalize", no_argument, NULL, 'n' },
    { "strip-hex", no_argument, NULL, 's' },
    { "svg", required_argument, NULL, OPT_SVG },
    { "leaf-only", no_argument, NULL, OPT_LEAF_ONLY },
    { "base-widths", no_argument, NULL, OPT_BASE_WIDTHS },
    { "title", required_argument, NULL, OPT_TITLE },
    { "width", required_argument, NULL, OPT_WIDTH },
    { "colors", required_argument, NULL, OPT_COLORS },
    { "countname", required_argument, NULL, OPT_COUNTNAME },
    { "folded-input", no_argument, NULL, OPT_FOLDED_INPUT },
    { "compute", required_argument, NULL, 'c' },
    { "period", no_argument, NULL, 'p' },
    { "formula", no_argument, NULL, 'F' },
    { "baseline-only", no_argument, NULL, 'b' },
    { "field-separator", required_argument, NULL, 't' },
    { "percentage", required_argument, NULL, OPT_PERCENTAGE },
    { "time", required_argument, NULL, OPT_FILTER_TIME },
    { "comms", required_argument, NULL, 'C' },
    { "dsos", required_argument, NULL, 'd' },
    { "symbols", required_argument, NULL, 'S' },
    { "cpu", required_argument, NULL, OPT_CPU },
    { "sort", required_argument, NULL, OPT_SORT },
    { "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
    { "children", no_argument, NULL, OPT_CHILDREN },
    { "significance", no_argument, NULL, OPT_SIGNIFICANCE },
    { "min-significance", required_argument, NULL, OPT_MIN_SIGNIFICANCE },
    { "output", required_argument, NULL, 'o' },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
};

typedef struct diff {
    fold_opts    fo;
    int          folded, normalize, strip, folded_input, leaf_only, base_widths, quiet;
    int          user_countname;
    const char  *svg, *output, *inputs[2];
    flame_svg_opts so;
    char         countname[64];
    dfold_side   side[2];
    dfold_row   *rows;
    size_t       nrows;
    dtab_opts    to;            /* the table */
    sample_filter filter;       /* the table's -C, -d, -S and --cpu */
    sample_filter hard[2], soft;    /* filter's lists split (borrowed), as
                                     * report.c splits them; hard[i] with
                                     * side i's --time (owned) */
    const char  *time_arg;      /* --time as given */
    char        *time_part[2];  /* each side's --time (owned) */
    hist_keys    keys;
    hist_set     hs[2];
    unsigned     elide;         /* 1 << HK_*: keys not shown (split_filters) */
    ps_ksyms    *ksyms;         /* kallsyms loaded once for both captures */
    int          spool_fd[2];   /* an input read from a pipe, in memory; or -1 */
    char         spool_path[2][32];
} diff;

/*
 * perf diff's --time: percentages of each capture's own span, the same
 * for both; seconds "A,B" for both, or "A,B:C,D", BASE's before the ':'
 * and NEW's after it. Each side gets its own filter (the time ranges are
 * resolved per capture).
 */
static int time_parts(diff *d)
{
    const char *a = d->time_arg, *colon = strchr(a, ':');
    int i;

    if (strchr(a, '%') != NULL || colon == NULL) {
        d->time_part[0] = strdup(a);
        d->time_part[1] = strdup(a);
    } else {
        if (colon == a || colon[1] == '\0')
            return cmd_usage_error("diff", "--time: invalid time string '%s'", a);
        d->time_part[0] = strndup(a, (size_t)(colon - a));
        d->time_part[1] = strdup(colon + 1);
    }
    if (d->time_part[0] == NULL || d->time_part[1] == NULL) {
        fprintf(stderr, "perfsift diff: out of memory\n");
        return EXIT_BADINPUT;
    }
    for (i = 0; i < 2; i++)
        if (filter_option(&d->hard[i], "diff", OPT_FILTER_TIME, d->time_part[i]) < 0)
            return EXIT_USAGE;
    return 0;
}

static int parse_args(diff *d, int argc, char **argv)
{
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "nso:qhc:pFbC:d:S:t:", long_opts, NULL)) != -1) {
        int r = fold_option("diff", &d->fo, c, optarg);

        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case OPT_FOLDED: d->folded = 1; break;
        case 'n': d->normalize = 1; break;
        case 's': d->strip = 1; break;
        case OPT_SVG: d->svg = optarg; break;
        case OPT_LEAF_ONLY: d->leaf_only = 1; break;
        case OPT_BASE_WIDTHS: d->base_widths = 1; break;
        case OPT_TITLE: d->so.title = optarg; break;
        case OPT_WIDTH: {
            char *end;
            long v = strtol(optarg, &end, 10);

            if (*optarg == '\0' || *end || v < 100 || v > 1000000)
                return cmd_usage_error("diff", "--width takes 100..1000000, not '%s'", optarg);
            d->so.width = (int)v;
            break;
        }
        case OPT_COLORS:
            if (!flame_color_valid(optarg))
                return cmd_usage_error("diff", "unknown palette '%s'", optarg);
            d->so.colors = optarg;
            break;
        case OPT_COUNTNAME: d->so.countname = optarg; d->user_countname = 1; break;
        case OPT_FOLDED_INPUT: d->folded_input = 1; break;
        case 'c':
            if (dtab_compute_parse(&d->to, optarg) < 0)
                return cmd_usage_error("diff", "-c takes delta, delta-abs, ratio or wdiff:W1,W2 "
                                       "(non-zero weights), not '%s'", optarg);
            break;
        case OPT_SORT: {
            const char *bad;
            size_t bad_len;

            if (hist_keys_parse(&d->keys, optarg, &bad, &bad_len) < 0)
                return cmd_usage_error("diff", "unknown sort key '%.*s' (comm, pid, tid, "
                                       "dso, sym, cpu)", (int)bad_len, bad);
            if (hist_keys_branch(&d->keys))     /* perf diff has no branch view */
                return cmd_usage_error("diff", "sort keys dso_from, dso_to, symbol_from, "
                                       "symbol_to and cycles are perf report's branch view's");
            if (hist_keys_has(&d->keys, HK_SRCLINE) || hist_keys_has(&d->keys, HK_SRCFILE) ||
                hist_keys_has(&d->keys, HK_WEIGHT) || hist_keys_has(&d->keys, HK_LOCAL_WEIGHT) ||
                hist_keys_has(&d->keys, HK_TRANSACTION) || hist_keys_has(&d->keys, HK_CGROUP) ||
                hist_keys_has(&d->keys, HK_SOCKET))
                return cmd_usage_error("diff", "sort keys srcline, srcfile, weight, "
                                       "local_weight, transaction, cgroup and socket are "
                                       "perfsift report's");
            break;
        }
        case OPT_PERCENT_LIMIT:
        case OPT_MIN_SIGNIFICANCE: {
            char *end;
            double v = strtod(optarg, &end);

            if (*optarg == '\0' || *end || !(v >= 0 && v <= 100))
                return cmd_usage_error("diff", "%s takes a percentage, not '%s'",
                                       c == OPT_PERCENT_LIMIT ? "--percent-limit"
                                                              : "--min-significance", optarg);
            if (c == OPT_PERCENT_LIMIT)
                d->to.limit = v;
            else
                d->to.min_signif = v, d->to.signif = 1;
            break;
        }
        case OPT_CHILDREN: d->to.children = 1; break;
        case OPT_SIGNIFICANCE: d->to.signif = 1; break;
        case 'p': d->to.period = 1; break;
        case 'F': d->to.formula = 1; break;
        case 'b': d->to.baseline_only = 1; break;
        case OPT_FILTER_TIME: d->time_arg = optarg; break;
        case OPT_PERCENTAGE:
            if (strcmp(optarg, "relative") != 0 && strcmp(optarg, "absolute") != 0)
                return cmd_usage_error("diff", "--percentage takes relative or absolute, "
                                       "not '%s'", optarg);
            d->to.relative = strcmp(optarg, "relative") == 0;
            break;
        case 't':
            if (strchr(optarg, '.') != NULL)    /* perf: '.' stands for the separator */
                return cmd_usage_error("diff", "-t: '.' is reserved");
            d->to.sep = optarg;
            break;
        case 'C': case 'd': case 'S': case OPT_CPU:
            /* perf diff's letters: -C comms, -d dsos; --cpu is filters.c's 'C' */
            if (filter_option(&d->filter, "diff", c == 'C' ? OPT_FILTER_COMMS :
                              c == 'd' ? OPT_FILTER_DSOS : c == OPT_CPU ? 'C' : c,
                              optarg) < 0)
                return EXIT_USAGE;
            break;
        case 'o': d->output = optarg; break;
        case 'q': d->quiet = d->fo.quiet = 1; break;
        case 'h': printf(usage_text, fold_usage); return -1;
        default: return cmd_bad_option("diff");
        }
    }
    if (argc - optind != 2)
        return cmd_usage_error("diff", "two profiles to compare: BASE NEW");
    d->inputs[0] = argv[optind];
    d->inputs[1] = argv[optind + 1];
    if (d->fo.script_input != NULL)
        return cmd_usage_error("diff", "--script-input: fold the text first "
                               "(perfsift folded --script-input), then diff folded files");
    if ((filter_active(&d->filter) || d->to.baseline_only || d->to.sep != NULL ||
         d->time_arg != NULL) && (d->folded || d->svg != NULL))
        return cmd_usage_error("diff", "-b, -C, -d, -S, -t, --cpu and --time are the "
                               "table's (not --folded's or --svg's)");
    if (d->time_arg != NULL)
        return time_parts(d);
    return 0;
}

/* perf.data (file or pipe), by its magic; a directory capture (perf
 * record --threads) by its "data" file's */
static int is_capture(const char *path)
{
    char m[8], data[PATH_MAX];
    struct stat st;
    FILE *f;
    size_t n;

    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (snprintf(data, sizeof(data), "%s/data", path) >= (int)sizeof(data))
            return 0;
        path = data;
    }
    if (strcmp(path, "-") == 0 || (f = fopen(path, "rb")) == NULL)
        return 0;
    n = fread(m, 1, sizeof(m), f);
    fclose(f);
    return n == 8 && (memcmp(m, "PERFILE2", 8) == 0 || memcmp(m, "2ELIFREP", 8) == 0 ||
                      memcmp(m, "PERFFILE", 8) == 0);
}

static int load_capture(diff *d, int i)
{
    input_opts in;
    fold_result r;
    size_t k;
    int rc;

    memset(&in, 0, sizeof(in));
    in.path = d->inputs[i];
    in.quiet = d->quiet;
    if ((rc = fold_run("diff", &in, &d->fo, &r)) != EXIT_OK)
        return rc;
    if (i == 1 || d->countname[0] == '\0')
        snprintf(d->countname, sizeof(d->countname), "%s", r.countname);
    for (k = 0; k < r.n; k++)
        if (dfold_add(&d->side[i], r.v[k].stack, r.v[k].len, (double)r.v[k].count,
                      d->strip) < 0)
            break;
    fold_result_free(&r);
    if (k < r.n) {
        fprintf(stderr, "perfsift diff: out of memory\n");
        return EXIT_BADINPUT;
    }
    return EXIT_OK;
}

static int load_text(diff *d, int i)
{
    const char *path = d->inputs[i];
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    int rc;

    if (f == NULL) {
        fprintf(stderr, "perfsift diff: cannot open '%s': %s\n", path, strerror(errno));
        return EXIT_BADINPUT;
    }
    rc = dfold_read(&d->side[i], f, d->strip);
    if (rc < 0)
        fprintf(stderr, "perfsift diff: cannot read '%s': %s\n", path, strerror(errno));
    if (f != stdin)
        fclose(f);
    if (rc == 0 && d->side[i].nr_bad && !d->quiet)
        fprintf(stderr, "perfsift diff: %s: ignored %zu lines that are not \"stack count\"\n",
                path, d->side[i].nr_bad);
    return rc < 0 ? EXIT_BADINPUT : EXIT_OK;
}

/* --- the table ----------------------------------------------------------------- */

/* perf diff drops samples by cpu and hides the rows the comm, dso and
 * symbol filters' samples make (they stay in the totals), as perf report
 * (report.c); a key a filter leaves one value is not shown (perf's
 * sort__setup_elide(), without report's "# dso: x" line), unless no key
 * would be left */
static void split_filters(diff *d)
{
    const filter_list *one[HK_MAX] = { NULL };
    int i, n = 0;

    d->hard[0].cpus = d->hard[1].cpus = d->filter.cpus;
    d->soft.comms = d->filter.comms;
    d->soft.dsos = d->filter.dsos;
    d->soft.syms = d->filter.syms;
    one[HK_COMM] = &d->filter.comms;
    one[HK_DSO] = &d->filter.dsos;
    one[HK_SYM] = &d->filter.syms;
    d->elide = 0;
    for (i = 0; i < d->keys.n; i++)
        if (one[d->keys.k[i]] != NULL && one[d->keys.k[i]]->n == 1) {
            d->elide |= 1u << d->keys.k[i];
            n++;
        }
    if (n == d->keys.n)
        d->elide = 0;
}

static int table_capture(diff *d, int i)
{
    hist_capture_opts ho;
    input_opts in;
    size_t k;
    int rc;

    memset(&in, 0, sizeof(in));
    memset(&ho, 0, sizeof(ho));
    in.path = d->inputs[i];
    in.quiet = d->quiet;
    ho.keys = d->keys;
    ho.by_name = 1;
    ho.all_events = 1;
    ho.children = d->to.children;
    ho.symfs = d->fo.symfs;
    ho.kallsyms = d->fo.kallsyms;
    ho.max_stack = d->fo.max_stack;
    ho.ksyms = d->ksyms;
    ho.filter = filter_active(&d->hard[i]) ? &d->hard[i] : NULL;
    ho.hide = filter_active(&d->soft) ? &d->soft : NULL;
    rc = hist_capture("diff", &in, &ho, &d->hs[i]);
    for (k = 0; k < d->hs[i].n; k++)
        d->hs[i].ev[k].elide = d->elide;
    return rc;
}

typedef struct side_job {
    diff *d;
    int   rc;
} side_job;

static void *new_side(void *arg)
{
    side_job *j = arg;

    j->rc = table_capture(j->d, 1);
    return NULL;
}

/* Both captures at once, NEW in a second thread (libparse keeps no global
 * state; each capture has its own session, resolver and tables). Only
 * when nothing is printed: with -q, and the messages of a failure (which
 * the sequential order decides: BASE's first, NEW's only if BASE was
 * read) are caught in a temporary file; when it is not empty the tables
 * are dropped and made again one after the other. 1: done, 0: not. */
static int table_captures_together(diff *d)
{
    FILE *tmp;
    pthread_t th;
    side_job j = { d, EXIT_BADINPUT };
    int saved, rc0, clean;

    if (!d->quiet || strcmp(d->inputs[0], "-") == 0 || strcmp(d->inputs[1], "-") == 0 ||
        (tmp = tmpfile()) == NULL)
        return 0;
    fflush(stderr);
    if ((saved = dup(STDERR_FILENO)) < 0 || dup2(fileno(tmp), STDERR_FILENO) < 0) {
        if (saved >= 0)
            close(saved);
        fclose(tmp);
        return 0;
    }
    if (pthread_create(&th, NULL, new_side, &j) == 0) {
        rc0 = table_capture(d, 0);
        pthread_join(th, NULL);
    } else {
        rc0 = table_capture(d, 0);
        j.rc = rc0 == EXIT_OK ? table_capture(d, 1) : EXIT_BADINPUT;
    }
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    clean = rc0 == EXIT_OK && j.rc == EXIT_OK && ftell(tmp) == 0 &&
            lseek(fileno(tmp), 0, SEEK_END) == 0;
    fclose(tmp);
    if (!clean) {
        hist_set_free(&d->hs[0]);
        hist_set_free(&d->hs[1]);
    }
    return clean;
}

static int table_folded(diff *d, int i)
{
    dfold_side *s = &d->side[i];
    const char **stacks = calloc(s->n + 1, sizeof(*stacks));
    size_t *lens = calloc(s->n + 1, sizeof(*lens)), k;
    double *counts = calloc(s->n + 1, sizeof(*counts));
    int rc = EXIT_BADINPUT;

    if (stacks != NULL && lens != NULL && counts != NULL) {
        for (k = 0; k < s->n; k++) {
            stacks[k] = s->v[k].stack;
            lens[k] = s->v[k].len;
            counts[k] = s->v[k].count;
        }
        if (dtab_folded_hist(&d->hs[i], stacks, lens, counts, s->n, &d->keys) == 0)
            rc = EXIT_OK;
    }
    if (rc != EXIT_OK)
        fprintf(stderr, "perfsift diff: out of memory\n");
    free(stacks);
    free(lens);
    free(counts);
    return rc;
}

/* Folded text knows comms and symbols only: the table keys on those. */
static void folded_keys(diff *d)
{
    hist_keys k = d->keys;
    int i;

    d->keys.n = 0;
    for (i = 0; i < k.n; i++)
        if (k.k[i] == HK_COMM || k.k[i] == HK_SYM)
            d->keys.k[d->keys.n++] = k.k[i];
    if (d->keys.n == 0)
        d->keys.k[d->keys.n++] = HK_SYM;
}

static int load_table(diff *d)
{
    int folded[2], i, rc;

    /* standard input cannot be peeked at: a capture, unless --folded-input */
    for (i = 0; i < 2; i++)
        folded[i] = d->folded_input ||
                    (strcmp(d->inputs[i], "-") != 0 && !is_capture(d->inputs[i]));
    if (!folded[0] || !folded[1])
        d->ksyms = ps_ksyms__new();     /* NULL: each capture loads its own */
    if (folded[0] || folded[1])
        folded_keys(d);
    else if (table_captures_together(d))
        goto print;
    for (i = 0; i < 2; i++) {
        rc = folded[i] ? load_text(d, i) : table_capture(d, i);
        if (rc == EXIT_OK && folded[i])
            rc = table_folded(d, i);
        if (rc != EXIT_OK)
            return rc;
    }
print:
    if (dtab_print(stdout, &d->hs[0], &d->hs[1], &d->to) < 0) {
        fprintf(stderr, "perfsift diff: out of memory\n");
        return EXIT_BADINPUT;
    }
    return cmd_finish_stdout("diff", EXIT_OK);
}

/* An input named as a FIFO or pipe (the shell's <(...)) can be read only
 * once, but is_capture() reads its magic before the loader opens it
 * again: such an input is copied whole into an anonymous file first, and
 * read back through its /proc/self/fd name. */
static int spool(diff *d, int i)
{
    const char *path = d->inputs[i];
    char buf[65536];
    struct stat st;
    ssize_t n = 0;
    int in, fd;

    if (strcmp(path, "-") == 0 || stat(path, &st) < 0 || S_ISREG(st.st_mode) ||
        S_ISDIR(st.st_mode))
        return EXIT_OK;
    if ((in = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        fprintf(stderr, "perfsift diff: cannot open '%s': %s\n", path, strerror(errno));
        return EXIT_BADINPUT;
    }
    if ((fd = memfd_create("perfsift-diff", MFD_CLOEXEC)) >= 0)
        while ((n = read(in, buf, sizeof(buf))) > 0 && write(fd, buf, (size_t)n) == n)
            ;
    close(in);
    if (fd < 0 || n != 0) {
        fprintf(stderr, "perfsift diff: cannot read '%s': %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return EXIT_BADINPUT;
    }
    d->spool_fd[i] = fd;
    snprintf(d->spool_path[i], sizeof(d->spool_path[i]), "/proc/self/fd/%d", fd);
    d->inputs[i] = d->spool_path[i];
    return EXIT_OK;
}

static int load(diff *d)
{
    int i, rc;

    if (strcmp(d->inputs[0], "-") == 0 && strcmp(d->inputs[1], "-") == 0)
        return cmd_usage_error("diff", "only one input can be standard input");
    for (i = 0; i < 2; i++)
        if ((rc = spool(d, i)) != EXIT_OK)
            return rc;
    if (!d->folded && d->svg == NULL) {
        split_filters(d);
        return load_table(d);
    }
    for (i = 0; i < 2; i++) {
        rc = !d->folded_input && is_capture(d->inputs[i]) ? load_capture(d, i) : load_text(d, i);
        if (rc != EXIT_OK)
            return rc;
    }
    if (dfold_merge(&d->side[0], &d->side[1], d->normalize, &d->rows, &d->nrows) < 0) {
        fprintf(stderr, "perfsift diff: out of memory\n");
        return EXIT_BADINPUT;
    }
    return EXIT_OK;
}

static int write_folded(FILE *fp, void *ctx)
{
    const diff *d = ctx;
    char a[64], b[64];
    size_t i;

    for (i = 0; i < d->nrows; i++) {
        dfold_number(a, sizeof(a), d->rows[i].base);
        dfold_number(b, sizeof(b), d->rows[i].new_);
        fwrite(d->rows[i].stack, 1, d->rows[i].len, fp);
        fprintf(fp, " %s %s\n", a, b);
    }
    return ferror(fp) ? -1 : 0;
}

static int write_svg(FILE *fp, void *ctx)
{
    diff *d = ctx;
    flame_line *v = calloc(d->nrows ? d->nrows : 1, sizeof(*v));
    flame_svg_stats st;
    size_t i;
    int rc;

    if (v == NULL)
        return -1;
    for (i = 0; i < d->nrows; i++) {
        const dfold_row *r = &d->rows[i];

        v[i].stack = r->stack;
        v[i].len = r->len;
        v[i].nr_counts = 2;
        /* widths are the second count; --base-widths swaps, and negates
         * the hues so red still means "grew" (difffolded.pl's hint) */
        v[i].count1 = d->base_widths ? r->new_ : r->base;
        v[i].count2 = d->base_widths ? r->base : r->new_;
    }
    d->so.negate = d->base_widths;
    d->so.delta_inclusive = !d->leaf_only;
    if (!d->user_countname && d->countname[0])
        d->so.countname = d->countname;
    rc = flame_svg_write(fp, v, d->nrows, &d->so, &st);
    free(v);
    if (rc == FLAME_ENOMEM)
        errno = ENOMEM;
    return rc < 0 ? -1 : 0;
}

int cmd_diff(int argc, char **argv)
{
    diff d;
    int rc, i;

    memset(&d, 0, sizeof(d));
    d.spool_fd[0] = d.spool_fd[1] = -1;
    fold_opts_init(&d.fo);
    flame_svg_opts_init(&d.so);
    d.to.compute = DT_DELTA_ABS;
    hist_keys_parse(&d.keys, "dso,sym", &(const char *){ NULL }, &(size_t){ 0 });
    if ((rc = parse_args(&d, argc, argv)) == 0 && (rc = load(&d)) == EXIT_OK) {
        if (d.svg != NULL)
            rc = cmd_write_atomic("diff", d.svg, write_svg, &d);
        if (rc == EXIT_OK && d.folded && d.output != NULL)
            rc = cmd_write_atomic("diff", d.output, write_folded, &d);
        else if (rc == EXIT_OK && d.folded) {
            write_folded(stdout, &d);
            rc = cmd_finish_stdout("diff", EXIT_OK);
        }
    }
    free(d.rows);
    for (i = 0; i < 2; i++) {
        dfold_side_free(&d.side[i]);
        hist_set_free(&d.hs[i]);
        if (d.spool_fd[i] >= 0)
            close(d.spool_fd[i]);
    }
    ps_ksyms__free(d.ksyms);
    filter_free(&d.filter);
    for (i = 0; i < 2; i++) {
        d.hard[i].cpus = NULL;      /* d.filter's */
        filter_free(&d.hard[i]);
        free(d.time_part[i]);
    }
    return rc < 0 ? EXIT_OK : rc;
}
