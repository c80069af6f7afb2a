/* SPDX-License-Identifier: MIT */
/*
 * sqlite_tp.h - the tracepoint_<system>_<event> tables of `perfsift sqlite`:
 * one per tracepoint event samples were seen for, made from the event's
 * format in the capture (schemas/sqlite.sql describes them).
 */
#ifndef PS_CMD_SQLITE_TP_H
#define PS_CMD_SQLITE_TP_H

#include "sqlite_db.h"
#include "perfsift.h"

typedef struct sqtp sqtp;

/** NULL when out of memory (printed). */
sqtp *sqtp_new(sqdb *d);
void  sqtp_free(sqtp *t);

/**
 * The fields of a tracepoint sample as a row keyed by its samples.id;
 * samples of other events are ignored. A sample whose format is missing or
 * whose payload is short gets the fields that could be read (the rest
 * NULL). 0, or -1 on a database error (printed).
 */
int sqtp_sample(sqtp *t, ps_session *s, const ps_event *ev, const ps_evsel *e,
                int64_t sample_id);

#endif /* PS_CMD_SQLITE_TP_H */
