/* SPDX-License-Identifier: MIT */
/*
 * script_dump.h - `perfsift script --per-event-dump`: each event's samples
 * go to a file of their own, "INPUT.EVENT.dump" (one per event of the
 * capture, made empty first; a pipe's as their attrs arrive), as perf
 * script writes them; other records stay on stdout. At the end a line per event says what was written, with
 * perf's figure: the bytes its stdio had passed to the file when it asked
 * (whole buffers of the file's block size), in MB.
 */
#ifndef PS_CMD_SCRIPT_DUMP_H
#define PS_CMD_SCRIPT_DUMP_H

#include <stdio.h>
#include "perfsift.h"
#include "linebuf.h"

typedef struct script_dump script_dump;

/** The files for every event s has yet (a file's all, a pipe's none),
 * named after path. NULL: failed, message printed. */
script_dump *script_dump_open(ps_session *s, const char *path);

/** The file of one more event (a pipe's attr as it arrives), named as e is
 * named now. 0, or -1 (message printed). */
int script_dump_add(script_dump *d, const ps_evsel *e);

/** Move the text in lb (one sample of e) to e's file. 0, or -1 (a write
 * error, message printed). */
int script_dump_take(script_dump *d, const ps_evsel *e, linebuf *lb);

/** Close the files and print perf's "[ perf script: Wrote ... ]" lines to
 * out. 0, or -1 when a file could not be written (message printed).
 * Accepts NULL. */
int script_dump_close(script_dump *d, FILE *out);

#endif /* PS_CMD_SCRIPT_DUMP_H */
