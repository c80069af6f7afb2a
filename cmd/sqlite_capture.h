/* SPDX-License-Identifier: MIT */
/*
 * sqlite_capture.h - the rows that describe a whole capture: captures,
 * header and events (schemas/sqlite.sql, part 2), written once the walk
 * has read it all.
 */
#ifndef PS_CMD_SQLITE_CAPTURE_H
#define PS_CMD_SQLITE_CAPTURE_H

#include "sqlite_export.h"

typedef struct sqcap_stats {
    uint64_t nr_records, nr_samples;
    uint64_t first_time, last_time;     /* of samples; UINT64_MAX/0 when none */
} sqcap_stats;

/** The id the next capture gets. -1 on error (printed). */
int64_t sqcap_next_id(sqdb *d);

/** Write the capture's rows (session still open). 0, or -1 (printed). */
int sqcap_write(sqdb *d, sqx *x, ps_session *s, int64_t capture_id, const char *path,
                const sqcap_stats *st);

#endif /* PS_CMD_SQLITE_CAPTURE_H */
