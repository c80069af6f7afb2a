/* SPDX-License-Identifier: MIT */
/*
 * fold.h - call stacks folded into "root;...;leaf count" lines, the input
 * of flame graphs: from a capture (resolved as `perf script` prints it, then
 * stackcollapse-perf.pl's rules) or from `perf script` text. `perfsift
 * folded` prints them; `perfsift flamegraph` draws them.
 */
#ifndef PS_CMD_FOLD_H
#define PS_CMD_FOLD_H

#include <stddef.h>
#include <stdint.h>
#include "common.h"

enum { FOLD_WEIGHT_DEFAULT, FOLD_WEIGHT_SAMPLES, FOLD_WEIGHT_PERIOD };
enum { FOLD_COMPAT_NONE, FOLD_COMPAT_PERL, FOLD_COMPAT_PERF_PY };

typedef struct fold_opts {
    int pid, tid;               /* comm-PID, comm-PID/TID root frames */
    int kernel, jit, addrs;     /* _[k], _[j] annotations; [unknown <ip>] */
    int inline_, srcline;       /* inlined frames; frame:file:line */
    int context;                /* --inline: func:file:line */
    const char *event_filter;   /* NULL: the first event seen */
    int weight;                 /* FOLD_WEIGHT_* */
    int compat;                 /* FOLD_COMPAT_* */
    int tidy_java, no_comm;     /* --compat=perf-py's own options */
    const char *script_input;   /* fold this perf script text ("-": stdin) */
    const char *symfs, *kallsyms;
    unsigned max_stack;
    int quiet;                  /* no warnings */
} fold_opts;

/** One folded stack: frames joined by ';', root first, and its count. */
typedef struct fold_entry {
    const char *stack;
    size_t      len;
    uint64_t    count;
} fold_entry;

typedef struct fold_result {
    fold_entry *v;              /* sorted bytewise (perf-py: Python order) */
    size_t      n;
    char        countname[64];  /* the count's unit: "samples", "ns", ... */
    void       *priv;
} fold_result;

void fold_opts_init(fold_opts *o);

/** getopt_long codes and entries of the folding options. */
enum {
    OPT_FOLD_PID = 4000, OPT_FOLD_TID, OPT_FOLD_KERNEL, OPT_FOLD_JIT, OPT_FOLD_ALL,
    OPT_FOLD_ADDRS, OPT_FOLD_INLINE, OPT_FOLD_SRCLINE, OPT_FOLD_EVENT_FILTER,
    OPT_FOLD_WEIGHT, OPT_FOLD_COMPAT, OPT_FOLD_TIDY_JAVA, OPT_FOLD_INCLUDE_PID,
    OPT_FOLD_INCLUDE_TID, OPT_FOLD_NO_COMM, OPT_FOLD_SCRIPT_INPUT, OPT_FOLD_SYMFS,
    OPT_FOLD_KALLSYMS, OPT_FOLD_MAX_STACK, OPT_FOLD_CONTEXT
};

#define FOLD_LONG_OPTS \
    { "pid", no_argument, NULL, OPT_FOLD_PID }, \
    { "tid", no_argument, NULL, OPT_FOLD_TID }, \
    { "kernel", no_argument, NULL, OPT_FOLD_KERNEL }, \
    { "jit", no_argument, NULL, OPT_FOLD_JIT }, \
    { "all", no_argument, NULL, OPT_FOLD_ALL }, \
    { "addrs", no_argument, NULL, OPT_FOLD_ADDRS }, \
    { "inline", no_argument, NULL, OPT_FOLD_INLINE }, \
    { "srcline", no_argument, NULL, OPT_FOLD_SRCLINE }, \
    { "event-filter", required_argument, NULL, OPT_FOLD_EVENT_FILTER }, \
    { "weight", required_argument, NULL, OPT_FOLD_WEIGHT }, \
    { "compat", required_argument, NULL, OPT_FOLD_COMPAT }, \
    { "tidy-java", no_argument, NULL, OPT_FOLD_TIDY_JAVA }, \
    { "include-pid", no_argument, NULL, OPT_FOLD_INCLUDE_PID }, \
    { "include-tid", no_argument, NULL, OPT_FOLD_INCLUDE_TID }, \
    { "no-comm", no_argument, NULL, OPT_FOLD_NO_COMM }, \
    { "script-input", required_argument, NULL, OPT_FOLD_SCRIPT_INPUT }, \
    { "symfs", required_argument, NULL, OPT_FOLD_SYMFS }, \
    { "kallsyms", required_argument, NULL, OPT_FOLD_KALLSYMS }, \
    { "max-stack", required_argument, NULL, OPT_FOLD_MAX_STACK }, \
    { "context", no_argument, NULL, OPT_FOLD_CONTEXT }

/** The --help text of the options above. */
extern const char fold_usage[];

/** Handle a folding option: 1 handled, 0 not ours, -1 bad value (printed). */
int fold_option(const char *cmd, fold_opts *o, int c, const char *arg);

/**
 * Fold the capture in->path (or o->script_input) into *out.
 * @return EXIT_OK, or EXIT_BADINPUT/EXIT_USAGE with the message printed
 */
int  fold_run(const char *cmd, const input_opts *in, const fold_opts *o, fold_result *out);
void fold_result_free(fold_result *r);

#endif /* PS_CMD_FOLD_H */
