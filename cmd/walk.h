/* SPDX-License-Identifier: MIT */
/*
 * walk.h - a capture walked as `perf script` walks it, for every command
 * that turns samples into something (folded, sqlite, json, report):
 * records in perf's order (by time, file order without sample_id_all),
 * every record fed to the resolver (libparse/resolve.h), samples delivered
 * as perf delivers them (PERF_SAMPLE_READ samples once per value, as that
 * value's event, with the increase as period; zero increases skipped), and
 * perf script's per-event-type default fields (script.h) for commands that
 * print what perf script would.
 */
#ifndef PS_CMD_WALK_H
#define PS_CMD_WALK_H

#include "common.h"
#include "script.h"
#include "../libparse/resolve.h"

typedef struct walk walk;

typedef struct walk_opts {
    const char *symfs, *kallsyms;   /* as perf's --symfs, --kallsyms */
    int         no_demangle;
    int         no_inline;      /* perf script --no-inline */
    int         file_order;     /* records in file order, not by time */
    unsigned    max_stack;      /* 0: perf's 127 */
    int         stack_outer;    /* max_stack keeps a chain's outer end
                                 * (ps_resolver__set_stack_outer()) */
    const char *fields;         /* a perf script -F argument (NULL: none):
                                 * changes the fields perf would show */
    /** Forget everything delivered so far (called with the callbacks'
     * ctx). Given, the walk may take the fast loop (walk_fast.h), which
     * can have to start over; NULL: never. */
    void      (*reset)(void *ctx);
    ps_ksyms   *ksyms;          /* NULL, or /proc/kallsyms loaded once for
                                 * several walks (symbols.h) */
} walk_opts;

typedef struct walk_cb {
    void *ctx;
    /** A sample, for event e (a group member for READ samples) with its
     * period. 0, or -1 to stop (the callback printed why). */
    int (*sample)(void *ctx, walk *w, const ps_event *ev, const ps_evsel *e, uint64_t period);
    /** Any other record, after the resolver has seen it; NULL: none. */
    int (*record)(void *ctx, walk *w, const ps_event *ev);
} walk_cb;

/**
 * Walk in->path (its --attr, --keep-going, -q...). Symbol warnings go to
 * stderr unless in->quiet; progress is shown on a terminal.
 * @return EXIT_OK, EXIT_BADINPUT (message printed)
 */
int walk_run(const char *cmd, const input_opts *in, const walk_opts *o, const walk_cb *cb);

ps_session  *walk_session(walk *w);
ps_resolver *walk_resolver(walk *w);
unsigned     walk_max_stack(const walk *w);
/** perf script's fields for e's type (after perf's checks of the capture). */
const script_output *walk_output(const walk *w, const ps_evsel *e);
/** perf script shows call chains (some event has them, and not -G). */
int          walk_use_callchain(const walk *w);
/**
 * Have end(ctx, w) called once after the last record, the session still
 * open (e.g. for what only the whole capture tells); from a callback.
 * A negative return ends the walk with EXIT_BADINPUT (end printed why).
 */
void         walk_at_end(walk *w, int (*end)(void *ctx, walk *w));
/** Tracepoint text names kernel functions (%ps, %pS) as perf script does,
 * from the walk's resolver. */
void         walk_tp_funcs(walk *w);

#endif /* PS_CMD_WALK_H */
