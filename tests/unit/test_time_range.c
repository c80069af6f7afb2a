/* SPDX-License-Identifier: MIT */
/*
 * test_time_range.c - cmd/time_range.c: perf's --time forms (ranges of
 * seconds, percentages of the capture's span, --reltime) give perf's
 * bounds, the bad ones are refused, and samples are kept or skipped by
 * perf's rule. tests/diff/script_live.sh compares the printed samples
 * with perf script's. (Unit tests link only libperfsift.a, so the cmd/
 * file is included.)
 */
#include <stdlib.h>
#include "harness.h"
#include "../../cmd/time_range.c"

#define S 1000000000ull

/* s parses into n ranges; the first two bounds checked when given */
static int parsed(const char *s, uint64_t first, uint64_t last, int reltime, int n,
                  uint64_t start, uint64_t end)
{
    time_range *r;
    int got = time_range_parse(s, first, last, reltime, &r), ok;

    ok = got == n && (n <= 0 || (r[0].start == start && r[0].end == end));
    if (!ok)
        fprintf(stderr, "'%s': %d ranges, [%llu, %llu]\n", s, got,
                got > 0 ? (unsigned long long)r[0].start : 0ull,
                got > 0 ? (unsigned long long)r[0].end : 0ull);
    free(r);
    return ok;
}

static void test_seconds(void)
{
    CHECK(parsed("1.5,2", 0, 0, 0, 1, 1500000000, 2 * S));
    CHECK(parsed("1.000000001,", 0, 0, 0, 1, S + 1, 0));
    CHECK(parsed(",3", 0, 0, 0, 1, 0, 3 * S));
    CHECK(parsed(",", 0, 0, 0, 1, 0, 0));
    CHECK(parsed("1,2 3,4", 0, 0, 0, 2, S, 2 * S));
    CHECK(parsed("1,2   3,", 0, 0, 0, 2, S, 2 * S));
    CHECK(parsed("1.0000000001,2", 0, 0, 0, TIME_RANGE_INVALID, 0, 0));   /* 10 decimals */
    CHECK(parsed("2,1", 0, 0, 0, TIME_RANGE_INVALID, 0, 0));
    CHECK(parsed("1,2,3,4", 0, 0, 0, TIME_RANGE_INVALID, 0, 0));
    CHECK(parsed("3,4 1,2", 0, 0, 0, TIME_RANGE_INVALID, 0, 0));          /* overlap */
    CHECK(parsed("1,2 ,0.5", 0, 0, 0, TIME_RANGE_INVALID, 0, 0));
    CHECK(parsed("1.5", 0, 0, 0, TIME_RANGE_INVALID, 0, 0));
    CHECK(parsed("abc,", 0, 0, 0, TIME_RANGE_INVALID, 0, 0));
    CHECK(parsed("", 0, 0, 0, TIME_RANGE_INVALID, 0, 0));
}

static void test_percent(void)
{
    uint64_t f = 100 * S, l = 200 * S;      /* a 100 s span */

    CHECK(parsed("10%/2", f, l, 0, 1, 110 * S, 120 * S - 1));
    CHECK(parsed("10%/10", f, l, 0, 1, 190 * S, 200 * S));  /* ends the span: not early */
    CHECK(parsed("0%-10%", f, l, 0, 1, 100 * S, 110 * S - 1));
    CHECK(parsed("25%", f, l, 0, 1, 100 * S, 125 * S - 1));
    CHECK(parsed("10%/1,10%/3", f, l, 0, 2, 100 * S, 110 * S - 1));
    CHECK(parsed("10%-20%,50%-60%", f, l, 0, 2, 110 * S, 120 * S - 1));
    CHECK(parsed("10%x/2", f, l, 0, 1, 110 * S, 120 * S - 1));  /* perf ignores the x */
    CHECK(parsed("5%-3%", f, l, 0, 1, 105 * S, 103 * S));       /* nothing in it */
    CHECK(parsed("110%/1", f, l, 0, TIME_RANGE_INVALID, 0, 0));
    CHECK(parsed("10%/11", f, l, 0, TIME_RANGE_INVALID, 0, 0));
    CHECK(parsed("0%/1", f, l, 0, TIME_RANGE_INVALID, 0, 0));
    CHECK(parsed("10%/1,0%-5%", f, l, 0, TIME_RANGE_INVALID, 0, 0));
    CHECK(parsed("10%-20%,30%", f, l, 0, TIME_RANGE_INVALID, 0, 0));
    CHECK(parsed("10%x", f, l, 0, TIME_RANGE_INVALID, 0, 0));
    CHECK(parsed("10%/2", 0, 0, 0, TIME_RANGE_NO_SPAN, 0, 0));
}

static void test_reltime(void)
{
    uint64_t f = 100 * S, l = 200 * S;

    CHECK(parsed("0.5,1", f, l, 1, 1, 100 * S + S / 2, 101 * S));
    CHECK(parsed(",1", f, l, 1, 1, 100 * S, 101 * S));
    CHECK(parsed("1,", f, l, 1, 1, 101 * S, 100 * S));          /* perf moves the open end */
    CHECK(parsed("1,2", 0, 0, 1, TIME_RANGE_NO_SPAN, 0, 0));
}

static void test_skip(void)
{
    time_range one = { 10, 20 }, open_end = { 10, 0 }, two[] = { { 10, 20 }, { 30, 0 } };

    CHECK(!time_range_skip(&one, 1, 10) && !time_range_skip(&one, 1, 20));
    CHECK(time_range_skip(&one, 1, 9) && time_range_skip(&one, 1, 21));
    CHECK(!time_range_skip(&one, 1, 0));            /* no time: kept */
    CHECK(!time_range_skip(&open_end, 1, 1000));
    CHECK(!time_range_skip(two, 2, 15) && !time_range_skip(two, 2, 1000));
    CHECK(time_range_skip(two, 2, 25) && time_range_skip(two, 2, 5));
    CHECK(!time_range_skip(NULL, 0, 5));
}

static const struct harness_test tests[] = {
    TEST(test_seconds),
    TEST(test_percent),
    TEST(test_reltime),
    TEST(test_skip),
};

TEST_MAIN(tests)
