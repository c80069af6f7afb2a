/* SPDX-License-Identifier: MIT */
/*
 * header_print.h - `perfsift info --header`: the text perf 6.1 prints for
 * `perf report --header-only -I` (header lines, every feature, the event
 * lines, "missing features"), byte for byte. Uses only perfsift.h.
 */
#ifndef PS_CMD_HEADER_PRINT_H
#define PS_CMD_HEADER_PRINT_H

#include <stdio.h>
#include "perfsift.h"

/**
 * Print the header of an open session to out. In pipe mode this reads the
 * whole stream (features arrive as records), as perf does; the session is
 * then at its end.
 * display_name names the input in error messages.
 * @return 0, or 1 when the stream could not be read to its end (what was
 *         printed stays printed; the message went to stderr).
 */
int header_print(FILE *out, ps_session *s, const char *display_name);

#endif /* PS_CMD_HEADER_PRINT_H */
