/* SPDX-License-Identifier: MIT */
/*
 * folded.c - perfsift folded: the capture's call stacks as folded lines,
 * "root;...;leaf count", sorted: what `perf script | stackcollapse-perf.pl`
 * prints, in one pass over the capture (fold.h does the work).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "fold.h"

static const char usage_text[] =
"usage: perfsift folded [options] [FILE]\n"
"\n"
"Fold the call stacks of a capture into lines \"comm;root;...;leaf COUNT\",\n"
"sorted, as `perf script | stackcollapse-perf.pl` does, for flame graphs\n"
"(perfsift flamegraph, flamegraph.pl, speedscope, inferno). COUNT sums the\n"
"periods where perf script prints a period (cpu-clock: nanoseconds), else\n"
"counts samples; --weight makes it explicit.\n"
"\n"
"%s"
"\n"
"Input:\n"
INPUT_USAGE
"  -o, --output FILE     write to FILE (atomically) instead of stdout\n"
"  -h, --help            this text\n"
"\n"
"Examples:\n"
"  perfsift folded perf.data > out.folded\n"
"  perfsift folded --pid --kernel perf.data | flamegraph.pl > out.svg\n"
"  perf script | perfsift folded --script-input - --compat=perl\n"
"  perfsift folded --compat=perf-py --include-tid perf.data\n";

static const struct option long_opts[] = {
    FOLD_LONG_OPTS,
    INPUT_LONG_OPTS,
    { "output", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
};

static int parse_args(int argc, char **argv, input_opts *in, fold_opts *o, const char **out)
{
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "i:qo:h", long_opts, NULL)) != -1) {
        int r = cmd_input_option("folded", in, c, optarg);

        if (r == 0)
            r = fold_option("folded", o, c, optarg);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case 'o': *out = optarg; break;
        case 'h': printf(usage_text, fold_usage); return -1;
        default: return cmd_bad_option("folded");
        }
    }
    if (optind < argc)
        in->path = argv[optind++];
    if (optind < argc)
        return cmd_usage_error("folded", "one capture at a time");
    if (o->script_input && in->path)
        return cmd_usage_error("folded", "--script-input reads text: no capture too");
    o->quiet = in->quiet;
    return 0;
}

static int write_lines(FILE *fp, void *ctx)
{
    const fold_result *r = ctx;
    size_t i;

    for (i = 0; i < r->n; i++) {
        fwrite(r->v[i].stack, 1, r->v[i].len, fp);
        fprintf(fp, " %" PRIu64 "\n", r->v[i].count);
    }
    return ferror(fp) ? -1 : 0;
}

int cmd_folded(int argc, char **argv)
{
    input_opts in;
    fold_opts o;
    fold_result r;
    const char *out = NULL;
    int rc;

    memset(&in, 0, sizeof(in));
    fold_opts_init(&o);
    if ((rc = parse_args(argc, argv, &in, &o, &out)) != 0)
        return rc < 0 ? EXIT_OK : rc;
    if ((rc = fold_run("folded", &in, &o, &r)) != EXIT_OK)
        return rc;
    if (out == NULL) {
        setvbuf(stdout, NULL, _IOFBF, 1 << 20);
        write_lines(stdout, &r);
        fold_result_free(&r);
        return cmd_finish_stdout("folded", EXIT_OK);
    }
    rc = cmd_write_atomic("folded", out, write_lines, &r);
    fold_result_free(&r);
    return rc;
}
