/* SPDX-License-Identifier: MIT */
/*
 * util.h - helpers every libparse file shares: error values, unaligned
 * loads in either byte order, overflow-checked allocation and an arena for
 * data that lives as long as the session (feature strings, evsel names).
 *
 * Invariants: the library never prints, exit()s or abort()s; every loader
 * here reads through memcpy (file bytes may be unaligned, UBSan-clean).
 */
#ifndef PS_UTIL_H
#define PS_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "perfsift.h"

#define PS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PS_ALIGN8(x) (((x) + 7) & ~(uint64_t)7)

#if defined(__GNUC__)
#define PS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PS_PRINTF(a, b)
#endif

/** Fill err (may be NULL) and return code. */
int ps_error__set(ps_error *err, int code, uint64_t off, const char *fmt, ...)
    PS_PRINTF(4, 5);

static inline uint16_t ps_bswap16(uint16_t v) { return __builtin_bswap16(v); }
static inline uint32_t ps_bswap32(uint32_t v) { return __builtin_bswap32(v); }
static inline uint64_t ps_bswap64(uint64_t v) { return __builtin_bswap64(v); }

static inline uint16_t ps_load16(const void *p, int swap)
{
    uint16_t v;
    memcpy(&v, p, sizeof(v));
    return swap ? ps_bswap16(v) : v;
}

static inline uint32_t ps_load32(const void *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return swap ? ps_bswap32(v) : v;
}

static inline uint64_t ps_load64(const void *p, int swap)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return swap ? ps_bswap64(v) : v;
}

/* A bounded reader over bytes in memory. Every get fails instead of reading
 * past end; `base` is the input offset of p[0], for error messages. */
typedef struct ps_cursor {
    const uint8_t *p;
    size_t         pos;
    size_t         end;
    int            swap;
    uint64_t       base;
} ps_cursor;

static inline void ps_cursor__init(ps_cursor *c, const void *p, size_t n,
                                   int swap, uint64_t base)
{
    c->p = (const uint8_t *)p;
    c->pos = 0;
    c->end = n;
    c->swap = swap;
    c->base = base;
}

static inline size_t ps_cursor__left(const ps_cursor *c) { return c->end - c->pos; }
static inline uint64_t ps_cursor__off(const ps_cursor *c) { return c->base + c->pos; }

/* Each returns 0, or -1 when fewer bytes are left than needed. */
static inline int ps_cursor__u16(ps_cursor *c, uint16_t *v)
{
    if (ps_cursor__left(c) < 2) return -1;
    *v = ps_load16(c->p + c->pos, c->swap); c->pos += 2; return 0;
}
static inline int ps_cursor__u32(ps_cursor *c, uint32_t *v)
{
    if (ps_cursor__left(c) < 4) return -1;
    *v = ps_load32(c->p + c->pos, c->swap); c->pos += 4; return 0;
}
static inline int ps_cursor__u64(ps_cursor *c, uint64_t *v)
{
    if (ps_cursor__left(c) < 8) return -1;
    *v = ps_load64(c->p + c->pos, c->swap); c->pos += 8; return 0;
}
static inline int ps_cursor__bytes(ps_cursor *c, const uint8_t **v, size_t n)
{
    if (ps_cursor__left(c) < n) return -1;
    *v = c->p + c->pos; c->pos += n; return 0;
}

/* Arena: many small allocations freed together. Blocks grow geometrically,
 * so the number of mallocs is logarithmic in the bytes held. */
typedef struct ps_arena_block ps_arena_block;
typedef struct ps_arena {
    ps_arena_block *head;
    size_t          used;   /* bytes used in head */
    size_t          cap;    /* bytes available in head */
    uint64_t        total;  /* bytes handed out, all blocks */
} ps_arena;

void  ps_arena__init(ps_arena *a);
void  ps_arena__free(ps_arena *a);
/** 8-aligned, zeroed; NULL on overflow or out of memory. */
void *ps_arena__alloc(ps_arena *a, size_t size);
/** n elements of size bytes, overflow-checked. */
void *ps_arena__array(ps_arena *a, size_t n, size_t size);
/** Copy at most n bytes of s up to its first NUL, NUL-terminated. */
char *ps_arena__strndup(ps_arena *a, const void *s, size_t n);
void *ps_arena__memdup(ps_arena *a, const void *p, size_t n);

/** malloc() for a large buffer that is soon written all over: from 1 MiB
 * up, whole 2 MiB pages, aligned and advised to the kernel as huge pages (each 4 KiB
 * page's first touch costs a fault, dear in VMs). Freed with free(); may
 * be realloc()ed. NULL out of memory. */
void *ps_alloc_huge(size_t size);

/** realloc-style growth for vectors: ensures *cap >= need (elements). */
int ps_grow(void **ptr, size_t *cap, size_t need, size_t elem);

#endif /* PS_UTIL_H */
