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

#define FILTER_MAX_CPUS 4096

/* A comma-separated list of strings or integers. */
typedef struct filter_list { char **v; size_t n; } filter_list;

typedef struct sample_filter {
    filter_list    comms, pids, tids, events;
    unsigned char *cpus;            /* owned; FILTER_MAX_CPUS flags, NULL: all */
    int            has_time_range;
    uint64_t       time_start, time_end;    /* ns, inclusive */
} sample_filter;

/** Append the items of "a,b,c" to l. 0, or -1 out of memory. */
int  filter_list_parse(filter_list *l, const char *arg);
/** "0-2,5" into f->cpus. 0, or -1 on a bad list or out of memory. */
int  filter_cpus_parse(sample_filter *f, const char *arg);
/** "START,END" in seconds (up to 9 decimals; either side may be empty).
 * 0, or -1 on a bad range. */
int  filter_time_parse(sample_filter *f, const char *arg);
/** Whether cpu passes --cpu (always without one). */
int  filter_cpu_ok(const sample_filter *f, int64_t cpu);
/**
 * perf_session__cpu_bitmap's checks, file mode: every event type samples
 * the cpu, and no cpu asked for is past the capture's. 0, or -1 with
 * perf's message printed. Call only with a --cpu list.
 */
int  filter_check_cpus(const sample_filter *f, ps_session *s);
/**
 * Whether smp of event e is left out: --time, --cpu, --comms (the comm the
 * resolver knows now, as perf), --pid, --tid, and --event (e's name).
 */
int  filter_skip(const sample_filter *f, ps_resolver *res, const ps_sample *smp,
                 const ps_evsel *e);
/** Whether any filter is set. */
int  filter_active(const sample_filter *f);
void filter_free(sample_filter *f);

#endif /* PS_CMD_FILTERS_H */
