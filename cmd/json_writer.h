/* SPDX-License-Identifier: MIT */
/*
 * json_writer.h - compact JSON written straight into a linebuf, byte for
 * byte what jansson's json_dump*(JSON_COMPACT) writes for the same values
 * (so `perfsift json` and `dump --json` kept their bytes when they stopped
 * building a jansson object per record: building and freeing those
 * objects was most of their time).
 *
 * Every value function takes the member's key, or NULL for an array
 * element; the writer puts the commas. Keys given as C literals must be
 * plain ASCII that needs no escaping; jw_key_text() escapes any other.
 * Strings from the capture go through jw_text(): the reversible escape
 * of info --json (info_json.c: valid UTF-8 kept, a backslash doubled,
 * another byte as the text \xNN), then JSON's escaping as jansson does it.
 */
#ifndef PS_CMD_JSON_WRITER_H
#define PS_CMD_JSON_WRITER_H

#include <stdint.h>
#include <string.h>
#include "linebuf.h"

typedef struct jw {
    linebuf *b;
    int      comma;             /* the next member or element needs one */
} jw;

/* n bytes into b; the common case (room left) without a call */
static inline void jw_put(linebuf *b, const char *s, size_t n)
{
    if (b->len + n <= b->cap) {
        memcpy(b->p + b->len, s, n);
        b->len += n;
    } else {
        lb_mem(b, s, n);
    }
}

/* Room for n more bytes: where they go, or NULL (b->oom set). */
static inline char *jw_room(linebuf *b, size_t n)
{
    if (b->len + n > b->cap && lb_reserve(b, n) < 0)
        return NULL;
    return b->p + b->len;
}

static inline void jw_init(jw *w, linebuf *b)
{
    w->b = b;
    w->comma = 0;
}

/** The comma, if due, and "key": (key NULL: an array element). */
static inline void jw_sep(jw *w, const char *key)
{
    if (w->comma)
        lb_putc(w->b, ',');
    w->comma = 1;
    if (key != NULL) {
        lb_putc(w->b, '"');
        jw_put(w->b, key, strlen(key));
        jw_put(w->b, "\":", 2);
    }
}

/** '{' or '[' as a member or element; jw_close() ends it with '}' or ']'. */
static inline void jw_open(jw *w, const char *key, char c)
{
    jw_sep(w, key);
    lb_putc(w->b, c);
    w->comma = 0;
}

static inline void jw_close(jw *w, char c)
{
    lb_putc(w->b, c);
    w->comma = 1;
}

/** "0x<lowercase hex>" (addresses, masks, flags) */
/* "00" "01" ... "ff": hex digits two at a time */
extern const char jw_hex_pairs[513];

static inline void jw_hex(jw *w, const char *key, uint64_t v)
{
    size_t n = v ? (size_t)(67 - __builtin_clzll(v)) / 4 : 1, left;
    char *p, *e;

    jw_sep(w, key);
    if ((p = jw_room(w->b, n + 4)) == NULL)
        return;
    memcpy(p, "\"0x", 3);
    for (e = p + 3 + n, left = n; left >= 2; left -= 2, v >>= 8) {
        e -= 2;
        memcpy(e, jw_hex_pairs + 2 * (v & 0xff), 2);
    }
    if (left)
        e[-1] = jw_hex_pairs[2 * (v & 15) + 1];
    p[n + 3] = '"';
    w->b->len += n + 4;
}

/* v in decimal (lb_u64() without its width) */
static inline void jw_digits(linebuf *b, uint64_t v)
{
    char tmp[20], *e = tmp + sizeof(tmp), *p = e;

    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    jw_put(b, p, (size_t)(e - p));
}

/** a signed integer */
void jw_i64(jw *w, const char *key, int64_t v);

/** counts and times: an integer, or "0x..." past INT64_MAX */
static inline void jw_num(jw *w, const char *key, uint64_t v)
{
    if (v > INT64_MAX) {
        jw_hex(w, key, v);
        return;
    }
    jw_sep(w, key);
    jw_digits(w->b, v);
}

static inline void jw_bool(jw *w, const char *key, int v)
{
    jw_sep(w, key);
    lb_puts(w->b, v ? "true" : "false");
}

static inline void jw_null(jw *w, const char *key)
{
    jw_sep(w, key);
    lb_mem(w->b, "null", 4);
}

/** a double as jansson writes it ("%.17g", always with '.' or 'e') */
void jw_real(jw *w, const char *key, double v);
/** a string that is valid UTF-8 as it is (names perfsift knows) */
void jw_string(jw *w, const char *key, const char *s);
/** a string from the capture, escaped reversibly; NULL gives null */
void jw_text(jw *w, const char *key, const char *s);
/** jw_text() of n bytes (which may hold no NUL) */
void jw_text_n(jw *w, const char *key, const char *s, size_t n);
/** bytes as one string of lowercase hex digit pairs */
void jw_bytes(jw *w, const char *key, const uint8_t *p, uint64_t n);
enum {
    JSON_ESC_REVERSIBLE = 1u << 0,  /* info --json's escape first: '\\' doubled,
                                       a byte outside valid UTF-8 as text \xNN */
    JSON_ESC_LOWER      = 1u << 1   /* \u00xx in lower case, as perf (not jansson) */
};

/** n bytes (no NUL among them) as the body of a JSON string: '"', '\\'
 * and control characters escaped (jansson's way, or as flags say), valid
 * UTF-8 as it is, another byte as the text \xNN. */
void json_escape(linebuf *b, const char *s, size_t n, unsigned flags);

/** "key": for a key from the capture (a tracepoint field name), escaped
 * as jansson escapes keys; 0, or -1 (nothing written) when the key is not
 * valid UTF-8, where jansson refuses the member. The value must follow. */
int jw_key_text(jw *w, const char *key);

#endif /* PS_CMD_JSON_WRITER_H */
