/* SPDX-License-Identifier: MIT */
/*
 * sqlite_export.h - the rows perf's db-export layer hands export-to-sqlite.py
 * (tools/perf/util/db-export.c in perf 6.1), made from a walk: events,
 * machines, threads, comms, comm_threads, dsos, symbols, call_paths,
 * samples and context_switches, with perf's ids, in perf's order.
 */
#ifndef PS_CMD_SQLITE_EXPORT_H
#define PS_CMD_SQLITE_EXPORT_H

#include "sqlite_db.h"
#include "walk.h"

typedef struct sqx sqx;

/** Statements prepared, ids continuing after those in d. NULL on error. */
sqx *sqx_new(sqdb *d, const char *symfs);
void sqx_free(sqx *x);

/** The capture starts: its session (comm_exec, features). */
void sqx_begin(sqx *x, walk *w);

/** A sample (as walk delivers it); *sample_id gets its samples.id. 0/-1 */
int  sqx_sample(sqx *x, walk *w, const ps_event *ev, const ps_evsel *e, uint64_t period,
                int64_t *sample_id);
/** Other records: SWITCH / SWITCH_CPU_WIDE rows, FORK times. 0/-1 */
int  sqx_record(sqx *x, walk *w, const ps_event *ev);

/** selected_events.id of e (0: no sample of it was exported). */
int64_t sqx_evsel_id(const sqx *x, const ps_evsel *e);
/** This capture's machines.id (made on first use). */
int64_t sqx_machine_id(sqx *x);
/** Its machines.id, or UINT64_MAX when no row needed one. */
uint64_t sqx_has_machine(const sqx *x);

#endif /* PS_CMD_SQLITE_EXPORT_H */
