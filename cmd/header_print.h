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
 * Print the header of an open session to out. In pipe mode the features
 * arrive as records, so this reads the rest of the stream, as perf does
 * (the session is then at its end); a session some other loop already
 * drained prints its features in bit order instead of arrival order.
 * display_name names the input in messages. A bad record in a pipe stream
 * is reported on stderr; what was printed stays, as with perf.
 * @return 0.
 */
int header_print(FILE *out, ps_session *s, const char *display_name);

/*
 * The same, for a caller that runs its own record loop over a pipe stream
 * (info --header --stats reads it once): header_print_begin() before the
 * first ps_session_next(), header_print_event() for every event, and
 * header_print_end() after the last. In file mode begin prints everything
 * and the other two do nothing.
 */
typedef struct header_printer {
    FILE       *out;
    ps_session *s;
    int         stopped;    /* perf would have stopped reading features */
    int         seen;       /* events passed to header_print_event() */
    const char **names;     /* owned: evsel names as perf settled them */
    size_t      nr_names;
    int         brief;      /* perf without -I: the topology and cache
                             * features only say they are there */
} header_printer;

/* brief: as perf prints without -I (header_printer.brief). */
void header_print_begin(header_printer *hp, FILE *out, ps_session *s, int brief);
/* hp set up as by header_print_begin(), nothing printed: a pipe stream's
 * features alone (perf script -I without --header). */
void header_print_init(header_printer *hp, FILE *out, ps_session *s, int brief);
void header_print_event(header_printer *hp, const ps_event *ev);
void header_print_end(header_printer *hp);

#endif /* PS_CMD_HEADER_PRINT_H */
