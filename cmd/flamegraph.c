/* SPDX-License-Identifier: MIT */
/*
 * flamegraph.c - perfsift flamegraph: an interactive SVG flame graph of a
 * capture's call stacks (folded by fold.h, as `perfsift folded` prints them)
 * or of folded text (--folded-input); mirrors flamegraph.pl, whose options it
 * takes and whose frames, widths and colours (those of --hash) it draws.
 * flame_read.c parses folded text, flame_svg.c draws.
 *
 * Input without any count (no valid line, or counts summing to 0) still
 * gives an SVG, one that says so, as flamegraph.pl does for tools that embed
 * the picture; the exit status is then 1 (bad input), where flamegraph.pl
 * exits 2.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "flame_color.h"
#include "flame_read.h"
#include "flame_svg.h"
#include "fold.h"

static const char usage_text[] =
"usage: perfsift flamegraph [options] [FILE] [-o OUT.svg]\n"
"\n"
"Draw the call stacks of a capture (or folded stacks) as an interactive SVG\n"
"flame graph: hover for details, click to zoom, ctrl-F to search (open the\n"
"file with ?s=REGEX to search on load). Frames, widths and colours are\n"
"flamegraph.pl's for the same folded stacks (colours as with its --hash:\n"
"one per function name, the same in every graph).\n"
"\n"
"  -o, --output FILE     write the SVG to FILE (atomically); default stdout\n"
"      --folded-input F  draw the folded stacks in F ('-': stdin), lines\n"
"                        \"stack count\" or \"stack count1 count2\" (a\n"
"                        differential graph: red grew, blue shrank)\n"
"      --title TEXT      the heading (default \"Flame Graph\"; \"Icicle Graph\"\n"
"                        with --inverted, \"Flame Chart\" with --flamechart)\n"
"      --subtitle TEXT   a second heading\n"
"      --width N         image width in pixels (default 1200)\n"
"      --height N        frame height in pixels (default 16)\n"
"      --minwidth N[%%]   omit frames narrower than N pixels, or N%% of the\n"
"                        total (default 0.1)\n"
"      --colors PALETTE  hot (default), mem, io, wakeup, chain, java, js,\n"
"                        perl, red, green, blue, aqua, yellow, purple, orange\n"
"      --bgcolors COLOR  background: yellow, blue, green, grey or #rrggbb\n"
"                        (default: by palette)\n"
"      --countname TEXT  what the counts are (default: the capture's unit,\n"
"                        \"samples\" for folded input)\n"
"      --nametype TEXT   what the frames are (default \"Function:\")\n"
"      --fonttype FONT   font (default Verdana)\n"
"      --fontsize N      font size (default 12)\n"
"      --fontwidth N     average character width / font size (default 0.59)\n"
"      --reverse         reverse each stack (merge from the leaves)\n"
"      --inverted        icicle graph: roots at the top\n"
"      --flamechart      keep the input order, no sorting: time order, given\n"
"                        time-ordered --folded-input (a capture is folded\n"
"                        and sorted first)\n"
"      --negate          swap the differential colours (red <-> blue)\n"
"      --notes TEXT      a comment in the SVG\n"
"      --total N         the count 100%% stands for (default: the sum)\n"
"      --factor N        show counts multiplied by N (default 1)\n"
"      --hash            accepted for flamegraph.pl's sake: always on\n"
"\n"
"%s"
"\n"
"Input:\n"
INPUT_USAGE
"  -h, --help            this text\n"
"\n"
"Examples:\n"
"  perfsift flamegraph perf.data -o flame.svg\n"
"  perfsift flamegraph --pid --kernel --colors=java perf.data -o flame.svg\n"
"  perfsift folded perf.data | perfsift flamegraph --folded-input - > flame.svg\n"
"  perfsift flamegraph --folded-input diff.folded --negate -o diff.svg\n";

enum {
    OPT_FOLDED_INPUT = 3000, OPT_TITLE, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH,
    OPT_COLORS, OPT_BGCOLORS, OPT_COUNTNAME, OPT_NAMETYPE, OPT_FONTTYPE, OPT_FONTSIZE,
    OPT_FONTWIDTH, OPT_REVERSE, OPT_INVERTED, OPT_FLAMECHART, OPT_NEGATE, OPT_NOTES,
    OPT_TOTAL, OPT_FACTOR, OPT_HASH
};

static const struct option long_opts[] = {
    { "output", required_argument, NULL, 'o' },
    { "folded-input", required_argument, NULL, OPT_FOLDED_INPUT },
    { "title", required_argument, NULL, OPT_TITLE },
    { "subtitle", required_argument, NULL, OPT_SUBTITLE },
    { "width", required_argument, NULL, OPT_WIDTH },
    { "height", required_argument, NULL, OPT_HEIGHT },
    { "minwidth", required_argument, NULL, OPT_MINWIDTH },
    { "colors", required_argument, NULL, OPT_COLORS },
    { "bgcolors", required_argument, NULL, OPT_BGCOLORS },
    { "countname", required_argument, NULL, OPT_COUNTNAME },
    { "nametype", required_argument, NULL, OPT_NAMETYPE },
    { "fonttype", required_argument, NULL, OPT_FONTTYPE },
    { "fontsize", required_argument, NULL, OPT_FONTSIZE },
    { "fontwidth", required_argument, NULL, OPT_FONTWIDTH },
    { "reverse", no_argument, NULL, OPT_REVERSE },
    { "inverted", no_argument, NULL, OPT_INVERTED },
    { "flamechart", no_argument, NULL, OPT_FLAMECHART },
    { "negate", no_argument, NULL, OPT_NEGATE },
    { "notes", required_argument, NULL, OPT_NOTES },
    { "total", required_argument, NULL, OPT_TOTAL },
    { "factor", required_argument, NULL, OPT_FACTOR },
    { "hash", no_argument, NULL, OPT_HASH },
    { "help", no_argument, NULL, 'h' },
    FOLD_LONG_OPTS,
    INPUT_LONG_OPTS,
    { NULL, 0, NULL, 0 }
};

typedef struct flamegraph {
    flame_svg_opts svg;
    const char    *output;          /* NULL: stdout */
    const char    *folded_input;
    int            reverse;
    int            fold_opts_given;
    flame_input    lines;
    int            rc;              /* what drawing gave: FLAME_* */
    flame_svg_stats stats;
} flamegraph;

/* --- options ------------------------------------------------------------------ */

/* A number, whole text; min is the least allowed value. */
static int number_arg(const char *opt, const char *arg, double min, double *out)
{
    char *end;
    double v = strtod(arg, &end);

    if (end == arg || *end != '\0' || !(v >= min) || v > 1e15)
        return cmd_usage_error("flamegraph", "--%s takes a number%s, not '%s'", opt,
                               min > 0 ? " above 0" : "", arg);
    *out = v;
    return 0;
}

static int int_arg(const char *opt, const char *arg, int *out)
{
    double v;

    if (number_arg(opt, arg, 1, &v) != 0)
        return EXIT_USAGE;
    if (v != (int)v || v > 1000000)
        return cmd_usage_error("flamegraph", "--%s takes a whole number of pixels, not '%s'",
                               opt, arg);
    *out = (int)v;
    return 0;
}

/* "0.1" pixels or "5%" of the total, as flamegraph.pl's ^([0-9.]+)%?$ */
static int minwidth_arg(flame_svg_opts *o, const char *arg)
{
    size_t n = strlen(arg);
    char buf[64];

    if (n == 0 || n >= sizeof(buf) || strspn(arg, "0123456789.") < n - (arg[n - 1] == '%'))
        return cmd_usage_error("flamegraph", "--minwidth takes pixels or N%%, not '%s'", arg);
    memcpy(buf, arg, n + 1);
    o->minwidth_pct = buf[n - 1] == '%';
    if (o->minwidth_pct)
        buf[n - 1] = '\0';
    return number_arg("minwidth", buf, 0, &o->minwidth);
}

static int check_text_opts(const flame_svg_opts *o)
{
    if (!flame_color_valid(o->colors))
        return cmd_usage_error("flamegraph", "--colors must be one of %s, not '%s'",
                               flame_color_names(), o->colors);
    if (o->bgcolors) {
        char c1[8], c2[8];

        if (flame_color_background(c1, c2, o->bgcolors, o->colors) < 0)
            return cmd_usage_error("flamegraph", "--bgcolors must be yellow, blue, green, "
                                   "grey or #rrggbb, not '%s'", o->bgcolors);
    }
    if (o->notes && strpbrk(o->notes, "<>"))
        return cmd_usage_error("flamegraph", "--notes cannot hold '<' or '>'");
    return 0;
}

/* The options that only shape the picture. 1 handled, 0 not ours, -1 bad. */
static int svg_option(flamegraph *fg, int c, const char *arg)
{
    flame_svg_opts *o = &fg->svg;
    int rc = 0;

    switch (c) {
    case OPT_TITLE: o->title = arg; break;
    case OPT_SUBTITLE: o->subtitle = arg; break;
    case OPT_WIDTH: rc = int_arg("width", arg, &o->width); break;
    case OPT_HEIGHT: rc = int_arg("height", arg, &o->frameheight); break;
    case OPT_MINWIDTH: rc = minwidth_arg(o, arg); break;
    case OPT_COLORS: o->colors = arg; break;
    case OPT_BGCOLORS: o->bgcolors = arg; break;
    case OPT_COUNTNAME: o->countname = arg; break;
    case OPT_NAMETYPE: o->nametype = arg; break;
    case OPT_FONTTYPE: o->fonttype = arg; break;
    case OPT_FONTSIZE: rc = number_arg("fontsize", arg, 0.01, &o->fontsize); break;
    case OPT_FONTWIDTH: rc = number_arg("fontwidth", arg, 0.01, &o->fontwidth); break;
    case OPT_INVERTED: o->inverted = 1; break;
    case OPT_FLAMECHART: o->flamechart = 1; break;
    case OPT_NEGATE: o->negate = 1; break;
    case OPT_NOTES: o->notes = arg; break;
    case OPT_TOTAL: rc = number_arg("total", arg, 0, &o->total); break;
    case OPT_FACTOR: rc = number_arg("factor", arg, 1e-12, &o->factor); break;
    case OPT_HASH: break;
    default: return 0;
    }
    return rc == 0 ? 1 : -1;
}

static int parse_args(flamegraph *fg, input_opts *in, fold_opts *fo, int argc, char **argv)
{
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "o:i:qh", long_opts, NULL)) != -1) {
        int r = cmd_input_option("flamegraph", in, c, optarg);

        if (r == 0 && (r = fold_option("flamegraph", fo, c, optarg)) > 0)
            fg->fold_opts_given = 1;
        if (r == 0)
            r = svg_option(fg, c, optarg);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case 'o': fg->output = optarg; break;
        case OPT_FOLDED_INPUT: fg->folded_input = optarg; break;
        case OPT_REVERSE: fg->reverse = 1; break;
        case 'h': printf(usage_text, fold_usage); return -1;
        default: return cmd_bad_option("flamegraph");
        }
    }
    if (optind < argc)
        in->path = argv[optind++];
    if (optind < argc)
        return cmd_usage_error("flamegraph", "one input at a time");
    if (fg->folded_input && (in->path || fg->fold_opts_given))
        return cmd_usage_error("flamegraph", "--folded-input draws folded text: "
                               "no capture and no folding options with it");
    if (fo->script_input && in->path)
        return cmd_usage_error("flamegraph", "--script-input reads text: no capture too");
    fo->quiet = in->quiet;
    return check_text_opts(&fg->svg);
}

/* --- input ---------------------------------------------------------------------- */

static int read_folded(flamegraph *fg)
{
    const char *path = fg->folded_input;
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    int rc;

    if (f == NULL) {
        fprintf(stderr, "perfsift flamegraph: cannot open '%s': %s\n", path, strerror(errno));
        return EXIT_BADINPUT;
    }
    rc = flame_input_read(&fg->lines, f);
    if (rc < 0)
        fprintf(stderr, "perfsift flamegraph: cannot read '%s': %s\n", path, strerror(errno));
    if (f != stdin)
        fclose(f);
    return rc < 0 ? EXIT_BADINPUT : EXIT_OK;
}

/* Each folded stack as the text line `perfsift folded` prints. */
static int read_capture(flamegraph *fg, const input_opts *in, const fold_opts *fo,
                        char *countname, size_t size)
{
    fold_result r;
    char *line = NULL;
    size_t cap = 0, i;
    int rc = fold_run("flamegraph", in, fo, &r);

    if (rc != EXIT_OK)
        return rc;
    snprintf(countname, size, "%s", r.countname[0] ? r.countname : "samples");
    for (i = 0; i < r.n && rc == EXIT_OK; i++) {
        const fold_entry *e = &r.v[i];

        if (e->len + 32 > cap) {
            char *p = realloc(line, e->len + 32);

            if (p == NULL)
                break;
            line = p;
            cap = e->len + 32;
        }
        memcpy(line, e->stack, e->len);
        int n = snprintf(line + e->len, 32, " %" PRIu64, e->count);

        if (flame_input_add_line(&fg->lines, line, e->len + (size_t)n) < 0)
            break;
    }
    if (i < r.n) {
        fprintf(stderr, "perfsift flamegraph: out of memory\n");
        rc = EXIT_BADINPUT;
    }
    free(line);
    fold_result_free(&r);
    return rc;
}

/* Counts past the doubles' range would draw NaN pixels: refuse them. */
static int check_counts(const flame_input *in)
{
    double sum = 0;
    size_t i;

    for (i = 0; i < in->n; i++) {
        const flame_line *l = &in->v[i];

        sum += l->nr_counts == 2 ? l->count2 : l->count1;
        if (!isfinite(l->count1) || !isfinite(sum)) {
            fprintf(stderr, "perfsift flamegraph: counts too large to add up (line '%.*s%s')\n",
                    (int)(l->key_len < 60 ? l->key_len : 60), l->key, l->key_len > 60 ? "..." : "");
            return EXIT_BADINPUT;
        }
    }
    return EXIT_OK;
}

/* --- output ------------------------------------------------------------------------ */

static int write_svg(FILE *fp, void *ctx)
{
    flamegraph *fg = ctx;

    fg->rc = flame_svg_write(fp, fg->lines.v, fg->lines.n, &fg->svg, &fg->stats);
    if (fg->rc == FLAME_ENOMEM)
        errno = ENOMEM;
    return fg->rc < 0 ? -1 : 0;
}

static int write_output(flamegraph *fg)
{
    if (fg->output != NULL && strcmp(fg->output, "-") != 0)
        return cmd_write_atomic("flamegraph", fg->output, write_svg, fg);
    setvbuf(stdout, NULL, _IOFBF, 1 << 20);
    if (write_svg(stdout, fg) < 0 && fg->rc == FLAME_ENOMEM) {
        fprintf(stderr, "perfsift flamegraph: out of memory\n");
        return EXIT_BADINPUT;
    }
    return cmd_finish_stdout("flamegraph", EXIT_OK);
}

/* flamegraph.pl's warnings, in perfsift's words. */
static void warn_after(const flamegraph *fg, int quiet)
{
    const flame_svg_opts *o = &fg->svg;

    if (quiet)
        return;
    if (fg->lines.nr_ignored)
        fprintf(stderr, "perfsift flamegraph: warning: ignored %zu lines with invalid "
                "format\n", fg->lines.nr_ignored);
    if (fg->stats.total_ignored)
        fprintf(stderr, "perfsift flamegraph: warning: --total %.15g is less than the "
                "actual total %.15g, so ignored\n", o->total, fg->stats.total);
    if (fg->rc == FLAME_OK && strcmp(o->countname, "samples") == 0 && fg->stats.total < 100)
        fprintf(stderr, "perfsift flamegraph: warning: stack count is low (%.15g); did "
                "something go wrong?\n", fg->stats.total);
}

int cmd_flamegraph(int argc, char **argv)
{
    flamegraph fg;
    input_opts in;
    fold_opts fo;
    char countname[64];
    int rc;

    memset(&fg, 0, sizeof(fg));
    memset(&in, 0, sizeof(in));
    fold_opts_init(&fo);
    flame_svg_opts_init(&fg.svg);
    fg.svg.countname = NULL;
    if ((rc = parse_args(&fg, &in, &fo, argc, argv)) != 0)
        return rc < 0 ? EXIT_OK : rc;
    snprintf(countname, sizeof(countname), "samples");
    if (fg.folded_input)
        rc = read_folded(&fg);
    else
        rc = read_capture(&fg, &in, &fo, countname, sizeof(countname));
    if (rc == EXIT_OK && fg.reverse && flame_input_reverse(&fg.lines) < 0) {
        fprintf(stderr, "perfsift flamegraph: out of memory\n");
        rc = EXIT_BADINPUT;
    }
    if (rc == EXIT_OK)
        rc = check_counts(&fg.lines);
    if (rc != EXIT_OK) {
        flame_input_free(&fg.lines);
        return rc;
    }
    if (fg.svg.countname == NULL)
        fg.svg.countname = countname;
    rc = write_output(&fg);
    warn_after(&fg, in.quiet);
    if (rc == EXIT_OK && fg.rc == FLAME_EMPTY) {
        fprintf(stderr, "perfsift flamegraph: no stack counts found in the input\n");
        rc = EXIT_BADINPUT;
    }
    flame_input_free(&fg.lines);
    return rc;
}
