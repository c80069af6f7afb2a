/* SPDX-License-Identifier: MIT */
/*
 * json.h - what the parts of `perfsift json` share: the run's options and
 * the table of output forms. json.c parses the options and walks the
 * capture (walk.h); each form is one file with one row in json_forms[]:
 *
 *   json_doc.c        the default document and --lines (NDJSON)
 *   json_perf.c       --perf-compat (perf data convert --to-json)
 *   json_speedscope.c --format speedscope
 *
 * A form sees every sample the filters keep (once per delivery, as perf
 * script) and, unless it does not want them, every other record (with
 * --samples-only too, to write none), both after the resolver has seen
 * what came before. Forms write to r->out
 * only; what they need from the capture they read through the walk.
 */
#ifndef PS_CMD_JSON_H
#define PS_CMD_JSON_H

#include <stdio.h>
#include "filters.h"
#include "json_cache.h"
#include "linebuf.h"
#include "walk.h"

typedef struct json_run json_run;

typedef struct json_form {
    const char *name;               /* --format NAME */
    /** Before the first record: s is open (file mode: with its header,
     * features and events; pipe mode: they come as records). s is NULL
     * for a capture without records read from stdin. 0 or -1 (message
     * printed). */
    int (*begin)(json_run *r, ps_session *s);
    int (*sample)(json_run *r, walk *w, const ps_event *ev, const ps_evsel *e,
                  uint64_t period);
    /** NULL: the form ignores non-sample records. */
    int (*record)(json_run *r, walk *w, const ps_event *ev);
    /** After the last record, the session closed. 0 or -1. */
    int (*end)(json_run *r);
    void (*free)(json_run *r);
} json_form;

struct json_run {
    const char      *cmd;           /* "json" */
    const json_form *form;
    FILE            *out;
    input_opts       in;
    walk_opts        wo;
    sample_filter    filter;
    unsigned         record_flags;  /* JSON_RECORD_* */
    int              srcline;       /* frames carry "srcline" */
    int              samples_only;  /* --samples-only: forms still see
                                       every record, and write none */
    int              started;       /* begin() ran */
    uint64_t         nr_records, nr_samples, nr_filtered;
    json_cache       cache;         /* call chain entries' text; emptied by
                                       every record but FINISHED_ROUND */
    void            *state;         /* the form's own, freed by form->free */
};

extern const json_form json_form_doc, json_form_lines, json_form_perf,
                       json_form_speedscope;

/** The reversible text of a name (json_escape()) added to b as a
 * JSON string literal, quotes included; perf_ascii: ASCII exactly as perf
 * writes it (backslashes single, controls as \u00XX). */
void json_put_string(linebuf *b, const char *s, int perf_ascii);

#endif /* PS_CMD_JSON_H */
