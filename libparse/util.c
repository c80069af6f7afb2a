/* SPDX-License-Identifier: MIT */
/*
 * util.c - error values, the arena and vector growth (see util.h).
 * Owns no format knowledge.
 */
#include <stdio.h>
#include <sys/mman.h>
#include "util.h"

struct ps_arena_block {
    ps_arena_block *next;
    size_t          cap;
    uint64_t        pad;        /* keeps data 8-aligned on every ABI */
    unsigned char   data[];
};

static const char *const code_names[] = {
    "ok", "i/o error", "not a perf data file", "corrupt input",
    "truncated input", "out of memory", "unsupported", "invalid argument",
};

const char *ps_error_str(int code)
{
    if (code == PS_DONE)
        return "end of input";
    /* compare before negating: -INT_MIN overflows */
    if (code <= 0 && code > -(int)PS_ARRAY_SIZE(code_names))
        return code_names[-code];
    return "unknown error";
}

int ps_error__set(ps_error *err, int code, uint64_t off, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL)
        return code;
    err->code = code;
    err->offset = off;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return code;
}

void *ps_alloc_huge(size_t size)
{
    const size_t huge = (size_t)2 << 20;
    void *p;

    if (size < huge / 2)
        return malloc(size);
    if (size > SIZE_MAX - huge)
        return NULL;
    size = (size + huge - 1) & ~(huge - 1);     /* untouched room costs nothing */
    if (posix_memalign(&p, huge, size) != 0)
        return NULL;
    madvise(p, size, MADV_HUGEPAGE);            /* only advice */
    return p;
}

void ps_arena__init(ps_arena *a)
{
    memset(a, 0, sizeof(*a));
}

void ps_arena__free(ps_arena *a)
{
    ps_arena_block *b, *next;

    if (a == NULL)
        return;
    for (b = a->head; b; b = next) {
        next = b->next;
        free(b);
    }
    memset(a, 0, sizeof(*a));
}

void *ps_arena__alloc(ps_arena *a, size_t size)
{
    size_t need = (size + 7) & ~(size_t)7;
    ps_arena_block *b;
    void *p;

    if (need < size)
        return NULL;
    if (a->head == NULL || a->cap - a->used < need) {
        size_t cap = a->head ? a->head->cap * 2 : 4096;

        if (cap > (size_t)1 << 24)
            cap = (size_t)1 << 24;
        if (cap < need)
            cap = need;
        if (cap > SIZE_MAX - sizeof(*b))
            return NULL;
        if ((b = malloc(sizeof(*b) + cap)) == NULL)
            return NULL;
        b->cap = cap;
        b->next = a->head;
        a->head = b;
        a->used = 0;
        a->cap = cap;
    }
    p = a->head->data + a->used;
    a->used += need;
    a->total += need;
    memset(p, 0, size);
    return p;
}

void *ps_arena__array(ps_arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return ps_arena__alloc(a, (n * size) != 0 ? n * size : 1);
}

char *ps_arena__strndup(ps_arena *a, const void *s, size_t n)
{
    const char *nul = memchr(s, 0, n);
    size_t len = nul ? (size_t)(nul - (const char *)s) : n;
    char *d;

    if (len == SIZE_MAX || (d = ps_arena__alloc(a, len + 1)) == NULL)
        return NULL;
    memcpy(d, s, len);
    d[len] = 0;
    return d;
}

void *ps_arena__memdup(ps_arena *a, const void *p, size_t n)
{
    void *d = ps_arena__alloc(a, n ? n : 1);

    if (d && n)
        memcpy(d, p, n);
    return d;
}

int ps_grow(void **ptr, size_t *cap, size_t need, size_t elem)
{
    size_t ncap;
    void *np;

    if (need <= *cap)
        return 0;
    ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return -1;
        ncap *= 2;
    }
    if (elem && ncap > SIZE_MAX / elem)
        return -1;
    if ((np = realloc(*ptr, ncap * elem)) == NULL)
        return -1;
    *ptr = np;
    *cap = ncap;
    return 0;
}
