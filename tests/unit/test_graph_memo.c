/* SPDX-License-Identifier: MIT */
/*
 * test_graph_memo.c - cmd/graph_memo.c: chains kept by their raw
 * addresses and what decides their rows; found again only for the same
 * key, forgotten on clear. (What is kept is checked against perf's report
 * by tests/diff/report.sh; unit tests link only libperfsift.a, so the
 * cmd/ files are included.)
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "../../cmd/rbshape.c"
#include "../../cmd/callchain.c"
#include "../../cmd/graph_memo.c"

static void test_find_add(void)
{
    uint64_t raw[] = { (uint64_t)-512, 0x1000, 0x2000, 0x3000 }, other[4];
    gm_key k = { raw, 3, "comm", 10, 11, 0, '.', 4, raw }, k2;
    graph_memo *m = graph_memo_new();
    gm_ent *e;

    CHECK(m != NULL);
    CHECK(graph_memo_find(m, &k) == NULL);
    CHECK((e = graph_memo_add(m, &k, 3)) != NULL);
    e->rows[0] = 7;
    CHECK(e->k.raw != raw);             /* its own copy */
    CHECK(graph_memo_add(m, &k, 3) == NULL);    /* only once */
    memcpy(other, raw, sizeof(raw));
    k2 = k;
    k2.raw = other;                     /* the same addresses elsewhere */
    CHECK((e = graph_memo_find(m, &k2)) != NULL && e->rows[0] == 7 && e->n == 3);
    other[3] = 0x3004;                  /* another address: another chain */
    CHECK(graph_memo_find(m, &k2) == NULL);
    k2 = k;
    k2.tid = 12;                        /* another thread */
    CHECK(graph_memo_find(m, &k2) == NULL);
    k2 = k;
    k2.nraw = 3;                        /* a shorter chain */
    CHECK(graph_memo_find(m, &k2) == NULL);
    k2 = k;
    k2.self = 4;                        /* another row of its own */
    CHECK(graph_memo_find(m, &k2) == NULL);
    graph_memo_clear(m);
    CHECK(graph_memo_find(m, &k) == NULL);
    CHECK(graph_memo_add(m, &k, 0) != NULL && graph_memo_find(m, &k) != NULL);
    graph_memo_free(m);
}

/* many keys: each found as its own, none lost as the tables grow */
static void test_many(void)
{
    graph_memo *m = graph_memo_new();
    uint64_t raw[2];
    gm_key k = { m, 0, "c", 1, 1, 0, 'k', 2, raw };
    unsigned i, bad = 0;

    for (i = 0; i < 20000; i++) {
        gm_ent *e;

        raw[0] = i;
        raw[1] = i * 7;
        if ((e = graph_memo_add(m, &k, 1)) == NULL)
            bad++;
        else
            e->rows[0] = i;
    }
    for (i = 0; i < 20000; i++) {
        gm_ent *e;

        raw[0] = i;
        raw[1] = i * 7;
        if ((e = graph_memo_find(m, &k)) == NULL || e->rows[0] != i)
            bad++;
    }
    CHECK(bad == 0);
    graph_memo_free(m);
}

static const struct harness_test tests[] = {
    TEST(test_find_add),
    TEST(test_many),
};

TEST_MAIN(tests)
