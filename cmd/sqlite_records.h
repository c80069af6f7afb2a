/* SPDX-License-Identifier: MIT */
/*
 * sqlite_records.h - perfsift's tables of non-sample records: mmaps,
 * thread_events (COMM, FORK, EXIT), lost, throttle, cgroups, namespaces,
 * ksymbols and bpf_events (schemas/sqlite.sql, part 2).
 */
#ifndef PS_CMD_SQLITE_RECORDS_H
#define PS_CMD_SQLITE_RECORDS_H

#include "sqlite_db.h"
#include "perfsift.h"

typedef struct sqrec sqrec;

/** Statements prepared, ids after those in d. NULL on error (printed). */
sqrec *sqrec_new(sqdb *d, int64_t capture_id);
void   sqrec_free(sqrec *r);

/** A row for ev if it is one of the record types above. 0, or -1 (printed). */
int sqrec_record(sqrec *r, const ps_event *ev);

#endif /* PS_CMD_SQLITE_RECORDS_H */
