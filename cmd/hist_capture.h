/* SPDX-License-Identifier: MIT */
/*
 * hist_capture.h - a capture summed into one hist per event (hist.h), as
 * perf report and perf diff sum it: each sample resolved as perf script
 * resolves it (walk.h), its period under its own location (self) and, with
 * children, under every distinct location of its call chain (inclusive,
 * once per sample). Samples the filters (filters.h) leave out count nowhere;
 * hidden ones count as the others, but the rows they make are hidden, as
 * perf report's thread, dso and symbol filters decide a row's fate by the
 * sample that makes it.
 */
#ifndef PS_CMD_HIST_CAPTURE_H
#define PS_CMD_HIST_CAPTURE_H

#include "common.h"
#include "filters.h"
#include "hist.h"

typedef struct hist_capture_opts {
    hist_keys            keys;
    int                  by_name;       /* perf diff's symbol identity */
    int                  children;      /* inclusive sums from call chains */
    int                  all_events;    /* a hist for every event, even one
                                         * without samples (perf diff) */
    int                  groups;        /* a hist for every event of an event
                                         * group (HEADER_GROUP_DESC) */
    int                  force_leader;  /* --group or --no-group given: a capture
                                         * without groups is one group of all its
                                         * events, led by the first (perf) */
    const sample_filter *filter;        /* samples left out: NULL none */
    const sample_filter *hide;          /* samples whose new rows are hidden
                                         * (perf report's --comms, --pid,
                                         * --tid, --dsos, -S): NULL none */
    const char          *symfs, *kallsyms;
    unsigned             max_stack;     /* 0: perf's 127 */
    int                  stack_outer;   /* chains callers first in perf (its
                                         * callchain order caller): max_stack
                                         * keeps their outer end */
    int                  no_chains;     /* perf report --max-stack 0: no call
                                         * chain entry anywhere, has_callchain
                                         * still set by samples with chains
                                         * (children and graph must be off) */
    ps_ksyms            *ksyms;         /* NULL, or shared (walk.h) */
    int                  inlines;       /* chains may have inlined entries (DWARF
                                         * captures): rows from perf's tree
                                         * (diff_shape.h) with children */
    int                  branches;      /* perf report's branch view: a row per
                                         * branch of the samples' branch stacks,
                                         * by the branch keys (hist.h) */
    const cc_params     *graph;         /* each row's call graph (hist_entry.chain),
                                         * chains in this order: NULL none */
} hist_capture_opts;

/** One capture's tables: a hist per event that has samples (every event
 * with all_events), in the capture's event order. */
typedef struct hist_set {
    hist    *ev;
    size_t   n;
    uint64_t nr_lost_samples;   /* PERF_RECORD_LOST_SAMPLES, summed */
    int      has_callchain;     /* some sample had a call chain */
} hist_set;

/** Sum the capture in->path into *out. EXIT_OK or EXIT_BADINPUT (printed). */
int  hist_capture(const char *cmd, const input_opts *in, const hist_capture_opts *o,
                  hist_set *out);
void hist_set_free(hist_set *s);

#endif /* PS_CMD_HIST_CAPTURE_H */
