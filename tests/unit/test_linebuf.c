/* SPDX-License-Identifier: MIT */
/*
 * test_linebuf.c - cmd/linebuf.c: every conversion equals printf's for the
 * same format, on edge values and a million pseudo-random ones, and the
 * buffer grows without losing text. (Unit tests link only libperfsift.a, so
 * the cmd/ file is included.)
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "../../cmd/linebuf.c"

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng >> (rng & 63);       /* all magnitudes */
}

/* the text of b equals want; then b is emptied */
static int same(linebuf *b, const char *want)
{
    int ok = b->len == strlen(want) && memcmp(b->p, want, b->len) == 0;

    if (!ok)
        fprintf(stderr, "got '%.*s' want '%s'\n", (int)b->len, b->p, want);
    b->len = 0;
    return ok;
}

static void test_edges(void)
{
    static const uint64_t v[] = { 0, 1, 9, 10, 15, 16, 99999, 100000, UINT32_MAX,
                                  (uint64_t)INT32_MAX + 1, UINT64_MAX };
    static const int iv[] = { 0, 1, -1, 7, -7, 99, -99, 12345, -12345, INT32_MAX, INT32_MIN };
    linebuf b = { 0 };
    char want[64];
    size_t i;

    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        snprintf(want, sizeof(want), "%16" PRIx64, v[i]); lb_hex(&b, v[i], 16); CHECK(same(&b, want));
        snprintf(want, sizeof(want), "%" PRIx64, v[i]); lb_hex(&b, v[i], 0); CHECK(same(&b, want));
        snprintf(want, sizeof(want), "%10" PRIu64, v[i]); lb_u64(&b, v[i], 10); CHECK(same(&b, want));
        snprintf(want, sizeof(want), "%09" PRIu64, v[i] % 1000000000u); lb_u64_zero(&b, v[i] % 1000000000u, 9); CHECK(same(&b, want));
    }
    for (i = 0; i < sizeof(iv) / sizeof(iv[0]); i++) {
        snprintf(want, sizeof(want), "%5d", iv[i]); lb_int(&b, iv[i], 5); CHECK(same(&b, want));
        snprintf(want, sizeof(want), "%-5d", iv[i]); lb_int(&b, iv[i], -5); CHECK(same(&b, want));
        snprintf(want, sizeof(want), "%03d", iv[i]); lb_int_zero(&b, iv[i], 3); CHECK(same(&b, want));
    }
    snprintf(want, sizeof(want), "%16s", "cpuhog"); lb_str(&b, "cpuhog", 16); CHECK(same(&b, want));
    snprintf(want, sizeof(want), "%-8s|", "ab"); lb_str(&b, "ab", -8); lb_putc(&b, '|'); CHECK(same(&b, want));
    snprintf(want, sizeof(want), "%3s", "longer"); lb_str(&b, "longer", 3); CHECK(same(&b, want));
    snprintf(want, sizeof(want), "%*s", 1, " "); lb_str(&b, " ", 1); CHECK(same(&b, want));
    lb_free(&b);
}

static void test_random(void)
{
    linebuf b = { 0 };
    char want[64];
    int i, bad = 0;

    for (i = 0; i < 1000000 && bad < 5; i++) {
        uint64_t v = next();
        int w = (int)(v % 21), iv = (int)(uint32_t)v;

        snprintf(want, sizeof(want), "%*" PRIx64, w, v); lb_hex(&b, v, w); bad += !same(&b, want);
        snprintf(want, sizeof(want), "%*" PRIu64, w, v); lb_u64(&b, v, w); bad += !same(&b, want);
        snprintf(want, sizeof(want), "%*d", w, iv); lb_int(&b, iv, w); bad += !same(&b, want);
        snprintf(want, sizeof(want), "%-*d", w, iv); lb_int(&b, iv, -w); bad += !same(&b, want);
        snprintf(want, sizeof(want), "%0*d", w, iv); lb_int_zero(&b, iv, w); bad += !same(&b, want);
    }
    CHECK(bad == 0);
    lb_free(&b);
}

static void test_growth(void)
{
    linebuf b = { 0 };
    char *want = malloc(1 << 20);
    size_t i;

    for (i = 0; i < (1u << 20) - 1; i++) {
        want[i] = (char)('a' + i % 26);
        lb_putc(&b, want[i]);
    }
    want[i] = 0;
    CHECK(!b.oom && same(&b, want));
    free(want);
    lb_free(&b);
}

static const struct harness_test tests[] = {
    TEST(test_edges),
    TEST(test_random),
    TEST(test_growth),
};

TEST_MAIN(tests)
