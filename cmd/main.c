/* SPDX-License-Identifier: MIT */
/*
 * main.c - perfsift's entry point: dispatches `perfsift <command>` through
 * the command table. Every command lives in its own cmd/<name>.c.
 */
#include <stdio.h>
#include <string.h>
#include "common.h"

int cmd_record(int argc, char **argv);   /* cmd/record.c */

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} commands[] = {
    { "info", cmd_info, "header, features, events and record counts (perf report --header/--stats)" },
    { "dump", cmd_dump, "every record decoded, one per line (--json: NDJSON)" },
    { "script", cmd_script, "samples as text, byte for byte what perf script prints" },
    { "folded", cmd_folded, "folded stacks for flame graphs (perf script | stackcollapse-perf.pl)" },
    { "json", cmd_json, "JSON: every record, perf data convert --to-json's shape, speedscope" },
    { "flamegraph", cmd_flamegraph, "an interactive SVG flame graph (flamegraph.pl)" },
    { "diff", cmd_diff, "two profiles compared: perf diff's table, folded counts, differential flame graph" },
    { "report", cmd_report, "where the samples went, by comm/dso/symbol (perf report --stdio)" },
    { "sqlite", cmd_sqlite, "an SQLite database, export-to-sqlite.py's schema and more" },
    { "record", cmd_record, "record a profile with perf_event_open into a perf.data perf reads" },
};

static void usage(FILE *out)
{
    size_t i;

    fprintf(out, "usage: perfsift <command> [options] [FILE]\n\n"
                 "perfsift reads what Linux perf writes (perf.data files, pipe streams,\n"
                 "raw ring-buffer dumps) and turns it into what people analyse with.\n\n"
                 "Commands:\n");
    for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf(out, "\nFILE defaults to perf.data; '-' reads standard input.\n"
                 "'perfsift <command> --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
    size_t i;

    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("perfsift 0.1.0\n");
        return EXIT_OK;
    }
    for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            char prog[64];

            /* getopt names the program in its messages */
            snprintf(prog, sizeof(prog), "perfsift %s", commands[i].name);
            argv[1] = prog;
            return commands[i].run(argc - 1, argv + 1);
        }
    fprintf(stderr, "perfsift: '%s' is not a command.\n", argv[1]);
    usage(stderr);
    return EXIT_USAGE;
}
