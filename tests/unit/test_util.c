/* SPDX-License-Identifier: MIT */
/*
 * test_util.c - unit tests of util.c and util.h: error values (NULL-safe
 * ps_error__set, truncated messages, the code table), the arena (8-byte
 * alignment, zeroed memory, block chaining, overflow of size and of n*size),
 * strndup/memdup on unterminated input, ps_grow's doubling and overflow
 * refusal, and the bounded cursor.
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "../../libparse/util.h"

static void test_error_set_null_safe(void)
{
    ps_error err;

    CHECK(ps_error__set(NULL, PS_ECORRUPT, 12, "x %d", 1) == PS_ECORRUPT);
    CHECK(ps_error__set(NULL, PS_OK, PS_NO_OFFSET, "nothing") == PS_OK);
    memset(&err, 0x55, sizeof(err));
    CHECK(ps_error__set(&err, PS_ETRUNC, 0x1234, "%s: offset 0x%x: %u left",
                        "f.data", 0x1234u, 7u) == PS_ETRUNC);
    CHECK(err.code == PS_ETRUNC && err.offset == 0x1234);
    CHECK(strcmp(err.msg, "f.data: offset 0x1234: 7 left") == 0);
}

/* A message longer than msg[] is cut and still terminated. */
static void test_error_set_truncates(void)
{
    char big[2000];
    ps_error err;

    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    memset(&err, 0x55, sizeof(err));
    ps_error__set(&err, PS_EIO, PS_NO_OFFSET, "%s", big);
    CHECK(err.msg[sizeof(err.msg) - 1] == 0);
    CHECK(strlen(err.msg) == sizeof(err.msg) - 1);
    CHECK(err.offset == PS_NO_OFFSET);
}

static void test_error_str(void)
{
    static const struct { int code; const char *s; } want[] = {
        { PS_OK, "ok" }, { PS_DONE, "end of input" }, { PS_EIO, "i/o error" },
        { PS_EFORMAT, "not a perf data file" }, { PS_ECORRUPT, "corrupt input" },
        { PS_ETRUNC, "truncated input" }, { PS_ENOMEM, "out of memory" },
        { PS_EUNSUPPORTED, "unsupported" }, { PS_EINVAL, "invalid argument" },
    };
    size_t i;

    for (i = 0; i < PS_ARRAY_SIZE(want); i++)
        CHECK(strcmp(ps_error_str(want[i].code), want[i].s) == 0);
    CHECK(strcmp(ps_error_str(-8), "unknown error") == 0);
    CHECK(strcmp(ps_error_str(2), "unknown error") == 0);
    CHECK(strcmp(ps_error_str(-2147483647 - 1), "unknown error") == 0);
}

/* Every allocation is 8-aligned and zeroed, whatever sizes came before,
 * and earlier allocations survive when new blocks are chained. */
static void test_arena_alignment_and_zeroing(void)
{
    enum { N = 3000 };
    static unsigned char *ptrs[N];
    ps_arena a;
    size_t i, j;
    int ok_align = 1, ok_zero = 1, ok_keep = 1;

    /* Leave dirty freed memory around for the arena's mallocs to reuse. */
    for (i = 0; i < 8; i++) {
        void *junk = malloc(4096u << i);

        if (junk) {
            memset(junk, 0xa5, 4096u << i);
            free(junk);
        }
    }
    ps_arena__init(&a);
    for (i = 0; i < N; i++) {
        size_t size = 1 + (i * 37) % 301;

        ptrs[i] = ps_arena__alloc(&a, size);
        CHECK(ptrs[i] != NULL);
        if (ptrs[i] == NULL)
            break;
        if ((uintptr_t)ptrs[i] & 7)
            ok_align = 0;
        for (j = 0; j < size; j++)
            if (ptrs[i][j] != 0)
                ok_zero = 0;
        memset(ptrs[i], (int)(i & 0xff), size);
    }
    for (i = 0; i < N && ptrs[i]; i++) {
        size_t size = 1 + (i * 37) % 301;

        for (j = 0; j < size; j++)
            if (ptrs[i][j] != (unsigned char)(i & 0xff))
                ok_keep = 0;
    }
    CHECK(ok_align);
    CHECK(ok_zero);
    CHECK(ok_keep);
    CHECK(a.head != NULL);
    ps_arena__free(&a);
    CHECK(a.head == NULL && a.total == 0);
    ps_arena__free(&a);             /* twice is fine */
    ps_arena__free(NULL);
}

/* A request larger than the largest block gets a block of its own, and the
 * space left in the previous block is not handed out twice. */
static void test_arena_large_request(void)
{
    ps_arena a;
    unsigned char *small, *big, *after;

    ps_arena__init(&a);
    small = ps_arena__alloc(&a, 16);
    big = ps_arena__alloc(&a, (size_t)40 << 20);
    after = ps_arena__alloc(&a, 24);
    CHECK(small && big && after);
    if (small && big && after) {
        memset(small, 1, 16);
        memset(big, 2, (size_t)40 << 20);
        memset(after, 3, 24);
        CHECK(small[15] == 1 && big[0] == 2 && big[((size_t)40 << 20) - 1] == 2);
        CHECK(after[0] == 3 && after[23] == 3);
        CHECK((uintptr_t)big % 8 == 0 && (uintptr_t)after % 8 == 0);
    }
    CHECK(a.total >= ((uint64_t)40 << 20) + 16 + 24);
    ps_arena__free(&a);
}

static void test_arena_overflow(void)
{
    ps_arena a;

    ps_arena__init(&a);
    CHECK(ps_arena__alloc(&a, SIZE_MAX) == NULL);
    CHECK(ps_arena__alloc(&a, SIZE_MAX - 3) == NULL);
    CHECK(ps_arena__alloc(&a, SIZE_MAX - 20) == NULL);
    CHECK(ps_arena__array(&a, SIZE_MAX / 4 + 1, 4) == NULL);
    CHECK(ps_arena__array(&a, 2, SIZE_MAX / 2 + 1) == NULL);
    CHECK(ps_arena__array(&a, (size_t)1 << 33, (size_t)1 << 33) == NULL);
    CHECK(ps_arena__memdup(&a, "x", SIZE_MAX) == NULL);
    /* still usable afterwards */
    {
        uint64_t *v = ps_arena__array(&a, 4, sizeof(uint64_t));

        CHECK(v != NULL && v[0] == 0 && v[3] == 0);
        /* zero elements: a valid, distinct pointer */
        CHECK(ps_arena__array(&a, 0, 8) != NULL);
        CHECK(ps_arena__array(&a, 8, 0) != NULL);
    }
    ps_arena__free(&a);
}

/* strndup reads at most n bytes: the source has no NUL (exact-size heap
 * copy, so a sanitizer build sees any read past it). */
static void test_arena_strndup_without_nul(void)
{
    char *src = malloc(6);
    ps_arena a;
    char *s;

    ps_arena__init(&a);
    memcpy(src, "abcdef", 6);
    s = ps_arena__strndup(&a, src, 6);
    CHECK(s && strcmp(s, "abcdef") == 0);
    s = ps_arena__strndup(&a, src, 3);
    CHECK(s && strcmp(s, "abc") == 0);
    s = ps_arena__strndup(&a, src, 0);
    CHECK(s && s[0] == 0);
    s = ps_arena__strndup(&a, "ab\0cd", 5);
    CHECK(s && strcmp(s, "ab") == 0);
    free(src);
    ps_arena__free(&a);
}

static void test_arena_memdup(void)
{
    static const uint8_t bytes[5] = { 1, 2, 3, 4, 5 };
    ps_arena a;
    uint8_t *d;

    ps_arena__init(&a);
    d = ps_arena__memdup(&a, bytes, 5);
    CHECK(d && d != bytes && memcmp(d, bytes, 5) == 0 && ((uintptr_t)d & 7) == 0);
    CHECK(ps_arena__memdup(&a, NULL, 0) != NULL);
    ps_arena__free(&a);
}

static void test_grow(void)
{
    uint32_t *v = NULL, *before;
    size_t cap = 0, i;

    CHECK(ps_grow((void **)&v, &cap, 1, sizeof(*v)) == 0 && v && cap == 16);
    CHECK(ps_grow((void **)&v, &cap, 17, sizeof(*v)) == 0 && cap == 32);
    CHECK(ps_grow((void **)&v, &cap, 1000, sizeof(*v)) == 0 && cap == 1024);
    for (i = 0; i < 1000; i++)
        v[i] = (uint32_t)i;
    before = v;
    CHECK(ps_grow((void **)&v, &cap, 1024, sizeof(*v)) == 0 && v == before && cap == 1024);
    CHECK(ps_grow((void **)&v, &cap, 0, sizeof(*v)) == 0 && cap == 1024);
    CHECK(ps_grow((void **)&v, &cap, 5000, sizeof(*v)) == 0 && cap == 8192);
    CHECK(v[999] == 999 && v[0] == 0);
    free(v);
}

/* Overflow is refused without touching the vector. */
static void test_grow_overflow(void)
{
    uint64_t *v = NULL;
    size_t cap = 0;

    CHECK(ps_grow((void **)&v, &cap, 4, sizeof(*v)) == 0);
    v[3] = 42;
    /* element count overflows when doubled */
    CHECK(ps_grow((void **)&v, &cap, SIZE_MAX, sizeof(*v)) == -1);
    CHECK(ps_grow((void **)&v, &cap, SIZE_MAX / 2 + 2, 1) == -1);
    /* count fits, bytes do not */
    CHECK(ps_grow((void **)&v, &cap, SIZE_MAX / 8, 16) == -1);
    CHECK(ps_grow((void **)&v, &cap, (SIZE_MAX >> 3) + 1, 8) == -1);
    CHECK(cap == 16 && v[3] == 42);
    /* a start capacity that is not a power of two still doubles safely */
    {
        size_t c2 = 3;
        void *p = NULL;

        CHECK(ps_grow(&p, &c2, SIZE_MAX, 1) == -1);
        CHECK(c2 == 3 && p == NULL);
    }
    free(v);
}

static void test_cursor_bounds(void)
{
    static const uint8_t b[11] = { 1, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0 };
    ps_cursor c;
    uint16_t v16;
    uint32_t v32;
    uint64_t v64;
    const uint8_t *p;

    ps_cursor__init(&c, b, sizeof(b), 0, 0x100);
    CHECK(ps_cursor__u16(&c, &v16) == 0 && v16 == 1);
    CHECK(ps_cursor__u32(&c, &v32) == 0 && v32 == 2);
    CHECK(ps_cursor__off(&c) == 0x106 && ps_cursor__left(&c) == 5);
    CHECK(ps_cursor__u64(&c, &v64) == -1 && ps_cursor__left(&c) == 5);
    CHECK(ps_cursor__bytes(&c, &p, 6) == -1);
    CHECK(ps_cursor__bytes(&c, &p, 5) == 0 && p == b + 6 && ps_cursor__left(&c) == 0);
    CHECK(ps_cursor__u16(&c, &v16) == -1);
    ps_cursor__init(&c, b, sizeof(b), 1, 0);
    CHECK(ps_cursor__u16(&c, &v16) == 0 && v16 == 0x0100);
    CHECK(ps_cursor__u32(&c, &v32) == 0 && v32 == 0x02000000);
    CHECK(ps_load64("\1\2\3\4\5\6\7\10", 1) == UINT64_C(0x0102030405060708));
    CHECK(ps_load64("\1\2\3\4\5\6\7\10", 0) == UINT64_C(0x0807060504030201));
}

static const struct harness_test tests[] = {
    TEST(test_error_set_null_safe),
    TEST(test_error_set_truncates),
    TEST(test_error_str),
    TEST(test_arena_alignment_and_zeroing),
    TEST(test_arena_large_request),
    TEST(test_arena_overflow),
    TEST(test_arena_strndup_without_nul),
    TEST(test_arena_memdup),
    TEST(test_grow),
    TEST(test_grow_overflow),
    TEST(test_cursor_bounds),
};

TEST_MAIN(tests)
