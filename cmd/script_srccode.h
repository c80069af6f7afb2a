/* SPDX-License-Identifier: MIT */
/*
 * script_srccode.h - `perfsift script -F srccode`: after a sample, the
 * source line its ip is on, as perf 6.1's map__fprintf_srccode() prints
 * it: "|LINE     text", from the file addr2line names (opened by that name,
 * so relative names are relative to the working directory), and only when
 * it is not the line this thread printed last.
 */
#ifndef PS_CMD_SCRIPT_SRCCODE_H
#define PS_CMD_SCRIPT_SRCCODE_H

#include <stdint.h>
#include "linebuf.h"

typedef struct script_srccode script_srccode;

/** NULL: out of memory. */
script_srccode *script_srccode_new(void);
/** Accepts NULL. */
void script_srccode_free(script_srccode *c);

/**
 * Append "|LINE     text\n" to lb for line `line` of `file` (a string that
 * stays valid while c lives), unless thread tid printed that file and line
 * last, or the file has no such line.
 * @return 0, or -1 out of memory
 */
int script_srccode_print(script_srccode *c, linebuf *lb, uint32_t tid, const char *file,
                         unsigned line);

/** A thread perf makes anew (a fork): it has printed no line. */
void script_srccode_forget(script_srccode *c, uint32_t tid);

#endif /* PS_CMD_SCRIPT_SRCCODE_H */
