/* SPDX-License-Identifier: MIT */
/*
 * flame_read.h - folded stacks as text ("stack count" or "stack count1
 * count2" lines) into flame_line arrays, parsed as flamegraph.pl parses
 * them, and the text rules the flame graph code shares (Perl's split on ';',
 * characters of UTF-8 text).
 */
#ifndef PS_CMD_FLAME_READ_H
#define PS_CMD_FLAME_READ_H

#include <stdint.h>
#include <stdio.h>
#include "flame_svg.h"

/** Parsed lines and the text they point into (all owned). */
typedef struct flame_input {
    flame_line *v;
    size_t      n, cap;
    size_t      nr_ignored;     /* lines flamegraph.pl would ignore */
    struct flame_chunk *chunks; /* owned text the lines point into */
} flame_input;

/**
 * Read every line of f and add it (flame_input_add_line()).
 * @return 0, or -1 with errno set (read error or out of memory)
 */
int flame_input_read(flame_input *in, FILE *f);

/**
 * Add one line (no newline): `^(.*)\s+?(\d+(?:\.\d*)?)$`, applied twice
 * (flamegraph.pl) to peel an optional second count. The text is copied.
 * A line that does not match counts in nr_ignored.
 * @return 0, or -1 when out of memory
 */
int flame_input_add_line(flame_input *in, const char *line, size_t len);

/**
 * --reverse: each line's frames in reverse order, rebuilt as flamegraph.pl
 * rebuilds them ("reversed-stack count[ count2]") and parsed again.
 * @return 0, or -1 when out of memory
 */
int flame_input_reverse(flame_input *in);

void flame_input_free(flame_input *in);

/**
 * Perl's `split ";", s`: the next field of [*p, end) into *f and *flen.
 * Start with *p = s; returns 0 when no field is left. Trailing empty fields
 * are not returned (Perl drops them), so "a;b;" is two fields and "" none.
 */
int flame_split_next(const char **p, const char *end, const char **f, size_t *flen);

/** The next character of UTF-8 text at *p (< end), and advance; a byte
 * that starts no valid sequence is returned as itself. */
uint32_t flame_utf8_next(const char **p, const char *end);

/** Number of characters in s[0..len). */
size_t flame_utf8_len(const char *s, size_t len);

#endif /* PS_CMD_FLAME_READ_H */
