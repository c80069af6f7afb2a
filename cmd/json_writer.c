/* SPDX-License-Identifier: MIT */
/*
 * json_writer.c - the string and number forms of json_writer.h, each equal
 * to what jansson 2.14 writes for the same value: \u00XX in upper case,
 * DEL and '/' as they are, reals through jansson itself. When this file
 * replaced the jansson-built records, every output of `perfsift json` and
 * `dump` was compared byte for byte with the old ones (testdata, corpus,
 * the bench capture).
 */
#include <jansson.h>
#include <stdlib.h>
#include "info_json.h"
#include "json_writer.h"

static const char hexd[] = "0123456789abcdef", hexu[] = "0123456789ABCDEF";

const char jw_hex_pairs[513] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/* a byte JSON takes as it is: ASCII from the space up, DEL included (as
 * jansson), but '"' and '\\' */
static int plain(unsigned char c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* JSON's escape of a control character: \u00XX as jansson writes it, or
 * \u00xx (lower) as perf */
static void control(linebuf *b, unsigned char c, const char *digits)
{
    switch (c) {
    case '\b': lb_mem(b, "\\b", 2); break;
    case '\f': lb_mem(b, "\\f", 2); break;
    case '\n': lb_mem(b, "\\n", 2); break;
    case '\r': lb_mem(b, "\\r", 2); break;
    case '\t': lb_mem(b, "\\t", 2); break;
    default:
        lb_mem(b, "\\u00", 4);
        lb_putc(b, digits[c >> 4]);
        lb_putc(b, digits[c & 15]);
    }
}

void json_escape(linebuf *b, const char *s, size_t n, unsigned flags)
{
    const unsigned char *p = (const unsigned char *)s;
    const char *digits = flags & JSON_ESC_LOWER ? hexd : hexu;
    int reversible = (flags & JSON_ESC_REVERSIBLE) != 0;
    size_t i = 0, run, len;

    for (;;) {
        for (run = i; run < n && plain(p[run]); run++)
            ;
        jw_put(b, (const char *)p + i, run - i);
        if ((i = run) >= n)
            return;
        len = 1;
        if (p[i] == '"')
            lb_mem(b, "\\\"", 2);
        else if (p[i] == '\\')
            lb_mem(b, "\\\\\\\\", reversible ? 4 : 2);
        else if (p[i] < 0x20)
            control(b, p[i], digits);
        else if ((len = info_json_utf8_len(p + i, n - i)) > 0)
            lb_mem(b, (const char *)p + i, len);
        else {
            lb_mem(b, "\\\\x", 3);      /* not JSON's: the text \xNN */
            lb_putc(b, hexd[p[i] >> 4]);
            lb_putc(b, hexd[p[i] & 15]);
            len = 1;
        }
        i += len;
    }
}

void jw_i64(jw *w, const char *key, int64_t v)
{
    jw_sep(w, key);
    if (v < 0) {
        lb_putc(w->b, '-');
        jw_digits(w->b, 0 - (uint64_t)v);
    } else {
        jw_digits(w->b, (uint64_t)v);
    }
}

static int to_linebuf(const char *s, size_t n, void *ctx)
{
    lb_mem(ctx, s, n);
    return 0;
}

/* rare (EVENT_UPDATE scales): jansson's own text, so the digits agree; a
 * value jansson refuses (NaN, infinities) leaves the member out, as it does */
void jw_real(jw *w, const char *key, double v)
{
    json_t *r = json_real(v);

    if (r == NULL)
        return;
    jw_sep(w, key);
    json_dump_callback(r, to_linebuf, w->b, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(r);
}

void jw_string(jw *w, const char *key, const char *s)
{
    jw_sep(w, key);
    lb_putc(w->b, '"');
    json_escape(w->b, s, strlen(s), 0);
    lb_putc(w->b, '"');
}

void jw_text_n(jw *w, const char *key, const char *s, size_t n)
{
    jw_sep(w, key);
    lb_putc(w->b, '"');
    json_escape(w->b, s, n, JSON_ESC_REVERSIBLE);
    lb_putc(w->b, '"');
}

void jw_text(jw *w, const char *key, const char *s)
{
    if (s == NULL)
        jw_null(w, key);
    else
        jw_text_n(w, key, s, strlen(s));
}

void jw_bytes(jw *w, const char *key, const uint8_t *p, uint64_t n)
{
    uint64_t i;

    jw_sep(w, key);
    if (lb_reserve(w->b, 2 * n + 2) < 0)
        return;
    w->b->p[w->b->len++] = '"';
    for (i = 0; i < n; i++) {
        w->b->p[w->b->len++] = hexd[p[i] >> 4];
        w->b->p[w->b->len++] = hexd[p[i] & 15];
    }
    w->b->p[w->b->len++] = '"';
}

int jw_key_text(jw *w, const char *key)
{
    const unsigned char *p = (const unsigned char *)key;
    size_t n = strlen(key), i, len;

    for (i = 0; i < n; i += len)
        if ((len = info_json_utf8_len(p + i, n - i)) == 0)
            return -1;
    jw_sep(w, NULL);
    lb_putc(w->b, '"');
    json_escape(w->b, key, n, 0);
    lb_mem(w->b, "\":", 2);
    return 0;
}
