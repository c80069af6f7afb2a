/* SPDX-License-Identifier: MIT */
/*
 * linebuf.c - the conversions of linebuf.h. Digits are produced backwards
 * into a small stack buffer, then padded and copied.
 */
#include <stdlib.h>
#include "linebuf.h"

int lb_reserve(linebuf *b, size_t n)
{
    size_t cap;
    char *p;

    if (b->len + n <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n)
        cap *= 2;
    if ((p = realloc(b->p, cap)) == NULL) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void lb_flush(linebuf *b, FILE *fp)
{
    if (b->len)
        fwrite(b->p, 1, b->len, fp);
    b->len = 0;
}

void lb_free(linebuf *b)
{
    free(b->p);
    memset(b, 0, sizeof(*b));
}

void lb_mem(linebuf *b, const char *s, size_t n)
{
    if (n == 0 || lb_reserve(b, n) < 0)     /* b->p may still be NULL */
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void pad(linebuf *b, char c, size_t n)
{
    if (n == 0 || lb_reserve(b, n) < 0)
        return;
    memset(b->p + b->len, c, n);
    b->len += n;
}

/* digits (text of length n) right- or left-aligned in |width| */
static void aligned(linebuf *b, const char *text, size_t n, int width)
{
    size_t w = (size_t)(width < 0 ? -(long)width : width);

    if (width > 0 && n < w)
        pad(b, ' ', w - n);
    lb_mem(b, text, n);
    if (width < 0 && n < w)
        pad(b, ' ', w - n);
}

void lb_str(linebuf *b, const char *s, int width)
{
    aligned(b, s, strlen(s), width);
}

void lb_hex(linebuf *b, uint64_t v, int width)
{
    static const char digits[] = "0123456789abcdef";
    char tmp[16], *e = tmp + sizeof(tmp), *p = e;

    do {
        *--p = digits[v & 15];
        v >>= 4;
    } while (v);
    aligned(b, p, (size_t)(e - p), width);
}

/* decimal digits of v, backwards from e; returns the start */
static char *dec(char *e, uint64_t v)
{
    do {
        *--e = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return e;
}

void lb_u64(linebuf *b, uint64_t v, int width)
{
    char tmp[24], *e = tmp + sizeof(tmp), *p = dec(e, v);

    aligned(b, p, (size_t)(e - p), width);
}

void lb_int(linebuf *b, int v, int width)
{
    char tmp[24], *e = tmp + sizeof(tmp), *p;

    p = dec(e, v < 0 ? (uint64_t)-(int64_t)v : (uint64_t)v);
    if (v < 0)
        *--p = '-';
    aligned(b, p, (size_t)(e - p), width);
}

void lb_u64_zero(linebuf *b, uint64_t v, int digits)
{
    char tmp[24], *e = tmp + sizeof(tmp), *p = dec(e, v);

    while (e - p < digits && p > tmp)
        *--p = '0';
    lb_mem(b, p, (size_t)(e - p));
}

void lb_int_zero(linebuf *b, int v, int digits)
{
    char tmp[24], *e = tmp + sizeof(tmp), *p;

    p = dec(e, v < 0 ? (uint64_t)-(int64_t)v : (uint64_t)v);
    /* printf counts the sign in the width */
    while (e - p < digits - (v < 0) && p > tmp + 1)
        *--p = '0';
    if (v < 0)
        *--p = '-';
    lb_mem(b, p, (size_t)(e - p));
}
