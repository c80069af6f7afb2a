/* SPDX-License-Identifier: MIT */
/*
 * time_range.h - perf's --time argument: which samples fall in the time
 * ranges it names, as perf 6.1 reads it (script, report, json):
 *  - "START,END" in seconds with up to 9 decimals, either side empty for
 *    open; several such ranges separated by spaces, in order, without
 *    overlap ("1.0,1.5 2.0,2.5");
 *  - percentages of the span between the capture's first and last
 *    sample (the SAMPLE_TIME feature): "10%/2" (the second 10% slice),
 *    "0%-10%", "25%" (the first 25%), several separated by commas;
 *  - with perf script's --reltime, every bound (open ones too, as perf)
 *    moves by the first sample's time.
 * A sample whose time is 0 is never left out.
 */
#ifndef PS_CMD_TIME_RANGE_H
#define PS_CMD_TIME_RANGE_H

#include <stddef.h>
#include <stdint.h>

typedef struct time_range {
    uint64_t start, end;        /* ns, inclusive; 0: open */
} time_range;

enum {
    TIME_RANGE_INVALID = -1,    /* not perf's syntax */
    TIME_RANGE_NO_SPAN = -2,    /* percentages or --reltime, and the capture
                                 * has no first/last sample time */
    TIME_RANGE_NOMEM = -3
};

/** Whether s needs the capture's sample times (percentages or reltime). */
int time_range_needs_span(const char *s, int reltime);

/**
 * Parse s. first, last: the capture's first and last sample times (both
 * 0: unknown).
 * @return the number of ranges (>= 1), in *out (malloc'ed, the caller
 *         frees), or a TIME_RANGE_* error
 */
int time_range_parse(const char *s, uint64_t first, uint64_t last, int reltime,
                     time_range **out);

/** Whether a sample at time t is outside the n ranges (perf's rule). */
int time_range_skip(const time_range *r, size_t n, uint64_t t);

#endif /* PS_CMD_TIME_RANGE_H */
