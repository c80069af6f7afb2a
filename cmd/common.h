/* SPDX-License-Identifier: MIT */
/*
 * common.h - what every perfsift subcommand shares: exit codes, usage
 * errors, opening a session with warnings printed, and the --attr/ring
 * options every reader accepts. Uses only perfsift.h.
 */
#ifndef PS_CMD_COMMON_H
#define PS_CMD_COMMON_H

#include <stdio.h>
#include "perfsift.h"

enum { EXIT_OK = 0, EXIT_BADINPUT = 1, EXIT_USAGE = 2 };

/* Options shared by every command that reads a capture. */
typedef struct input_opts {
    const char *path;           /* default "perf.data" */
    const char *attr_path;      /* --attr */
    int         ring_form;      /* --ring-form */
    int         keep_going;
    int         ordered;
    int         quiet;
} input_opts;

/** Print "perfsift CMD: msg" and the --help hint to stderr; returns EXIT_USAGE. */
int cmd_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/**
 * getopt_long() returned '?': it has said which option and why, so only the
 * hint follows. EXIT_USAGE.
 */
int cmd_bad_option(const char *cmd);

/** 0 when path (a --kallsyms FILE, NULL: none) can be read; else prints why
 * and returns -1. perf refuses a missing one ("Invalid file"). */
int cmd_check_kallsyms(const char *cmd, const char *path);

/** Open in->path with the options; on failure prints the error, returns NULL. */
ps_session *cmd_open(const char *cmd, const input_opts *in);

/** Handle one shared option (getopt value c with optarg); 1 if handled,
 * 0 if not ours, -1 on a bad value (message printed). */
int cmd_input_option(const char *cmd, input_opts *in, int c, const char *arg);

/* getopt_long codes of the shared options */
enum { OPT_ATTR = 1000, OPT_RING_FORM, OPT_KEEP_GOING, OPT_ORDERED };

#define INPUT_LONG_OPTS \
    { "attr", required_argument, NULL, OPT_ATTR }, \
    { "ring-form", required_argument, NULL, OPT_RING_FORM }, \
    { "keep-going", no_argument, NULL, OPT_KEEP_GOING }, \
    { "ordered", no_argument, NULL, OPT_ORDERED }, \
    { "input", required_argument, NULL, 'i' }, \
    { "quiet", no_argument, NULL, 'q' }

#define INPUT_USAGE \
"  -i, --input FILE      capture to read (also the first argument); default\n" \
"                        perf.data, '-' for standard input\n" \
"      --attr FILE       read FILE as a raw ring dump; FILE holds the event\n" \
"                        attr(s): JSON (schemas/attr.schema.json) or binary\n" \
"                        struct perf_event_attr\n" \
"      --ring-form F     auto, stream (drained records) or snapshot (control\n" \
"                        page + data pages); default auto\n" \
"      --keep-going      skip a bad record with a warning instead of stopping\n" \
"      --ordered         deliver records in time order (FINISHED_ROUND rounds)\n" \
"  -q, --quiet           no warnings\n"

/** Report the error that ended a record loop; returns EXIT_BADINPUT. */
int cmd_input_error(const char *cmd, const ps_error *err);

/** fclose(stdout) and report a write error; returns rc or EXIT_BADINPUT. */
int cmd_finish_stdout(const char *cmd, int rc);

/**
 * Progress on stderr for long runs: bytes read of the total and records/s,
 * at most 4 times a second, only when stderr is a terminal and not quiet.
 * Call after each record (cheap); cmd_progress_done() clears the line.
 */
void cmd_progress(ps_session *s, uint64_t nr_records);
void cmd_progress_done(void);

/** Writes a whole output to fp; 0, or -1 on error (errno set; ECANCELED:
 * the writer has said why already). */
typedef int (*cmd_writer)(FILE *fp, void *ctx);

/**
 * Write path atomically: a temp file beside it (removed on error and on
 * SIGINT/SIGTERM/SIGHUP), synced, then renamed over path. An existing path
 * is untouched unless all went well. A symlink's target is written, the link
 * kept; an existing path that is no regular file (a device, a FIFO) is
 * written into directly. EXIT_OK or EXIT_BADINPUT (printed).
 */
int cmd_write_atomic(const char *cmd, const char *path, cmd_writer write, void *ctx);

/**
 * This machine's CPU from /proc/cpuinfo (its first CPU): "model name" into
 * desc ("unknown" without one), and perf's x86 CPUID string
 * "vendor,family,model,stepping" into id.
 */
void cmd_host_cpu(char *desc, size_t dsz, char *id, size_t isz);

/* Subcommands */
int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_folded(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_sqlite(int argc, char **argv);
int cmd_json(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif /* PS_CMD_COMMON_H */
