/* SPDX-License-Identifier: MIT */
/*
 * filters.h - the sample filters `perf script` takes (--comms, --pid,
 * --tid, --cpu, --time), shared by script.c and json.c, plus an event
 * name list (json's --event). Parsing and matching only: the commands
 * decide what a filtered sample means to them.
 */
#ifndef PS_CMD_FILTERS_H
#define PS_CMD_FILTERS_H

#include <stddef.h>
#include <stdint.h>
#include "perfsift.h"
#include "../libparse/resolve.h"
#include "time_range.h"

#define FILTER_MAX_CPUS 4096

/* A comma-separated list of strings or integers. */
typedef struct filter_list { char **v; size_t n; } filter_list;

typedef struct sample_filter {
    filter_list    comms, pids, tids, events;
    filter_list    dsos, syms;      /* --dsos, -S/--symbols: of the sample ip */
    unsigned char *cpus;            /* owned; FILTER_MAX_CPUS flags, NULL: all */
    int            cpus_dup;        /* a cpu listed twice: perf's "Invalid cpu_list" */
    const char    *time_str;        /* --time as given (Borrowed); NULL: none */
    const char    *cmd;             /* the command, for --time's messages */
    int            reltime;         /* script --reltime: --time from the first sample */
    struct filter_time *time;       /* owned: --time's ranges, once known */
} sample_filter;

/* getopt_long codes of the filter options (FILTER_LONG_OPTS) */
enum { OPT_FILTER_COMMS = 1100, OPT_FILTER_PIDS, OPT_FILTER_TIDS, OPT_FILTER_TIME,
       OPT_FILTER_DSOS };

#define FILTER_LONG_OPTS \
    { "comms", required_argument, NULL, OPT_FILTER_COMMS }, \
    { "pid", required_argument, NULL, OPT_FILTER_PIDS }, \
    { "pids", required_argument, NULL, OPT_FILTER_PIDS }, \
    { "tid", required_argument, NULL, OPT_FILTER_TIDS }, \
    { "tids", required_argument, NULL, OPT_FILTER_TIDS }, \
    { "cpu", required_argument, NULL, 'C' }, \
    { "time", required_argument, NULL, OPT_FILTER_TIME }, \
    { "dsos", required_argument, NULL, OPT_FILTER_DSOS }, \
    { "symbols", required_argument, NULL, 'S' }

#define FILTER_USAGE \
"      --comms LIST      only these comms (comma-separated)\n" \
"      --pid LIST        only these process ids\n" \
"      --tid LIST        only these thread ids\n" \
"  -C, --cpu LIST        only these cpus (e.g. 0-2,5)\n" \
"      --time RANGES     only samples in these time ranges: START,END in\n" \
"                        seconds (either side may be empty; several apart\n" \
"                        by spaces), or percentages of the capture's span:\n" \
"                        10%/2 (the second tenth), 0%-10%, 25%; several\n" \
"                        apart by commas\n" \
"      --dsos LIST       only samples whose ip is in these DSOs (file name or\n" \
"                        path, [kernel.kallsyms], ...); an ip in no map is\n" \
"                        left out, as perf\n" \
"  -S, --symbols LIST    only samples whose ip is in these functions\n"

/**
 * Handle one filter option (getopt value c, 'C' and 'S' included, with its
 * argument): 1 if handled, 0 if not a filter option, -1 on a bad value
 * (usage message printed for cmd).
 */
int  filter_option(sample_filter *f, const char *cmd, int c, const char *arg);

/** Append the items of "a,b,c" to l. 0, or -1 out of memory. */
int  filter_list_parse(filter_list *l, const char *arg);
/** Whether s is one of l's items (NULL is none). */
int  filter_list_has(const filter_list *l, const char *s);
void filter_list_free(filter_list *l);
/** "0-2,5" into f->cpus. 0, or -1 on a bad list or out of memory. */
int  filter_cpus_parse(sample_filter *f, const char *arg);
/**
 * --time's ranges from the capture's first and last sample times (feat's
 * SAMPLE_TIME), as perf does once the capture is open; filter_skip() does
 * it itself on the first sample otherwise. Does nothing without --time or
 * once done. 0, or -1 with perf's message printed.
 */
int  filter_time_resolve(const sample_filter *f, const char *cmd, const ps_features *feat);
/** Whether cpu passes --cpu (always without one). */
int  filter_cpu_ok(const sample_filter *f, int64_t cpu);
/**
 * perf_session__cpu_bitmap's checks: every event type samples the cpu,
 * and no cpu asked for is past the capture's (in a pipe stream, where
 * perf knows neither yet, every cpu is). 0, or -1 with perf's message
 * printed. Call only with a --cpu list.
 */
int  filter_check_cpus(const sample_filter *f, ps_session *s);
/**
 * 1 if sample ev of event e is left out, 0 if not, -1 when --time cannot
 * be resolved (message printed): --time, --cpu, --comms (the
 * comm the resolver knows now, as perf), --pid, --tid, --event (e's name),
 * and --dsos and --symbols (the map and symbol of the sample ip, as perf's
 * machine__resolve() filters them).
 */
int  filter_skip(const sample_filter *f, ps_resolver *res, const ps_event *ev,
                 const ps_evsel *e);
/** Whether any filter is set. */
int  filter_active(const sample_filter *f);
void filter_free(sample_filter *f);

#endif /* PS_CMD_FILTERS_H */
