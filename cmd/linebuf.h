/* SPDX-License-Identifier: MIT */
/*
 * linebuf.h - text built in memory with the few printf conversions perf's
 * output uses ("%16lx", "%5d", "%-5d", "%10lu", "%16s", "%03d", ...), then
 * written with one fwrite. printf's format parsing was most of the time
 * `perfsift script` spent; these are a handful of instructions each.
 * Output equals printf's for the same conversion (tests/unit/test_linebuf.c).
 */
#ifndef PS_CMD_LINEBUF_H
#define PS_CMD_LINEBUF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct linebuf {
    char  *p;
    size_t len, cap;
    int    oom;                 /* an allocation failed: text was dropped */
} linebuf;

/** Make room for n more bytes; 0, or -1 (and oom set) when out of memory. */
int  lb_reserve(linebuf *b, size_t n);
/** Write the text to fp and empty the buffer. */
void lb_flush(linebuf *b, FILE *fp);
void lb_free(linebuf *b);

void lb_mem(linebuf *b, const char *s, size_t n);
/** %*s (width > 0: right-aligned; width < 0: left-aligned, as %-*s) */
void lb_str(linebuf *b, const char *s, int width);
/** %*lx, lower case; width 0 for none */
void lb_hex(linebuf *b, uint64_t v, int width);
/** %*lu */
void lb_u64(linebuf *b, uint64_t v, int width);
/** %*d (width > 0) or %-*d (width < 0) */
void lb_int(linebuf *b, int v, int width);
/** %0*lu */
void lb_u64_zero(linebuf *b, uint64_t v, int digits);
/** %0*d for a possibly negative int ("-01" as printf's %03d prints -1) */
void lb_int_zero(linebuf *b, int v, int digits);

static inline void lb_putc(linebuf *b, char c)
{
    if (b->len < b->cap || lb_reserve(b, 1) == 0)
        b->p[b->len++] = c;
}

static inline void lb_puts(linebuf *b, const char *s)
{
    lb_mem(b, s, strlen(s));
}

#endif /* PS_CMD_LINEBUF_H */
