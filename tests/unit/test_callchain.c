/* SPDX-License-Identifier: MIT */
/*
 * test_callchain.c - cmd/callchain.c: chains summed into a tree of shared
 * prefixes (nodes split where chains part, a chain ending inside a node
 * splits it too), merged, sorted and printed in perf's graph, fractal,
 * flat and folded forms; -g's argument parsed as perf parses it. The text
 * is checked against perf itself on real captures (tests/diff/report.sh);
 * here against small trees worked out by hand, and the memo of chain ends
 * (cc_memo.c) against walking every chain. (Unit tests link only
 * libperfsift.a, so the cmd/ files are included.)
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "../../cmd/rbshape.c"
#include "../../cmd/callchain.c"
#include "../../cmd/cc_memo.c"

/* entries named by letters a-f, 6 main, 7 foo, 8 bar; one DSO */
static size_t chain(cc_ent *e, const char *names)
{
    static const char *const one[] = { "a", "b", "c", "d", "e", "f", "main", "foo", "bar" };
    size_t n = 0;

    for (; *names; names++) {
        int k = *names >= 'a' && *names <= 'f' ? *names - 'a' : *names - '0';

        memset(&e[n], 0, sizeof(e[n]));
        e[n].name = one[k];
        e[n].start = 0x1000 + (uint64_t)k * 0x100;
        e[n].ip = e[n].start + 4;
        e[n].dso = "x";
        e[n].dso_ord = 1;
        n++;
    }
    return n;
}

static void add(cc_node **root, const char *names, uint64_t period)
{
    cc_ent e[16];

    CHECK(cc_append(root, e, chain(e, names), period, NULL) == 0);
}

/* the tree printed with params p into a string (caller frees) */
static char *print(cc_node *root, const cc_params *p, uint64_t min_hit, uint64_t total,
                   uint64_t parent)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *fp = open_memstream(&buf, &size);

    CHECK(cc_sort(root, p, min_hit) == 0);
    cc_print(fp, root, p, total, parent);
    fclose(fp);
    return buf;
}

static void test_folded_split(void)
{
    cc_params p;
    cc_node *root = NULL;
    char *s;

    cc_params_default(&p);
    p.mode = CC_FOLDED;
    p.value = CC_PERIOD;
    add(&root, "abc", 10);
    add(&root, "abc", 10);
    add(&root, "abd", 5);
    add(&root, "ae", 1);
    add(&root, "ab", 3);        /* ends inside: b gets hits of its own */
    s = print(root, &p, 0, 29, 29);
    CHECK(strcmp(s, "20 a;b;c\n5 a;b;d\n3 a;b\n1 a;e\n") == 0);
    free(s);
    /* the threshold leaves out the smaller chains */
    s = print(root, &p, 4, 29, 29);
    CHECK(strcmp(s, "20 a;b;c\n5 a;b;d\n") == 0);
    free(s);
    cc_free(root);
}

static void test_graph(void)
{
    cc_params p;
    cc_node *root = NULL;
    char *s;

    cc_params_default(&p);
    add(&root, "67", 80);       /* main;foo */
    add(&root, "68", 20);       /* main;bar */
    s = print(root, &p, 0, 100, 100);
    CHECK(strcmp(s,
                 "            |\n"
                 "            ---main\n"
                 "               |          \n"
                 "               |--80.00%--foo\n"
                 "               |          \n"
                 "                --20.00%--bar\n"
                 "\n") == 0);
    free(s);
    /* a row with more than its chains (parent 200): percentages at the top */
    s = print(root, &p, 0, 100, 200);
    CHECK(strcmp(s,
                 "            |          \n"
                 "             --100.00%--main\n"
                 "                       |          \n"
                 "                       |--80.00%--foo\n"
                 "                       |          \n"
                 "                        --20.00%--bar\n"
                 "\n") == 0);
    free(s);
    /* fractal: of the parent; --sort sym skips the row's own entry */
    p.mode = CC_FRACTAL;
    p.skip_first = 1;
    s = print(root, &p, 0, 400, 100);
    CHECK(strstr(s, "---") == NULL && strstr(s, "|--80.00%--foo") != NULL);
    free(s);
    cc_free(root);
}

static void test_merge(void)
{
    cc_params p;
    cc_node *a = NULL, *b = NULL;
    char *s;

    cc_params_default(&p);
    p.mode = CC_FOLDED;
    p.value = CC_PERIOD;
    add(&a, "abc", 4);
    add(&b, "abc", 6);
    add(&b, "ad", 2);
    CHECK(cc_merge(&a, b) == 0);
    s = print(a, &p, 0, 12, 12);
    CHECK(strcmp(s, "10 a;b;c\n2 a;d\n") == 0);
    free(s);
    cc_free(a);
}

static void test_params(void)
{
    cc_params p;
    char err[256];

    cc_params_default(&p);
    CHECK(p.mode == CC_GRAPH && p.min_percent == 0.5 && !p.caller && !p.order_set);
    CHECK(cc_params_parse(&p, "fractal,2,5,caller,function,count", err, sizeof(err)) == 0);
    CHECK(p.mode == CC_FRACTAL && p.min_percent == 2 && p.print_limit == 5 && p.caller &&
          p.order_set && p.value == CC_COUNT);
    CHECK(cc_params_parse(&p, "f", err, sizeof(err)) == 0 && p.mode == CC_FLAT);  /* a prefix */
    CHECK(cc_params_parse(&p, "none", err, sizeof(err)) == 0 && p.mode == CC_NONE);
    CHECK(cc_params_parse(&p, "bogus", err, sizeof(err)) < 0 && strstr(err, "bogus") != NULL);
    CHECK(cc_params_parse(&p, "graph,address", err, sizeof(err)) < 0);
}

/* entry k of a random chain: resolved (any address in the symbol),
 * inlined, or unresolved at one of two addresses */
static void rand_ent(cc_ent *e, unsigned k, unsigned ip)
{
    static const char *const names[] = { "a", "b", "c", "d", "e", "a" };

    memset(e, 0, sizeof(*e));
    e->dso = "x";
    e->dso_ord = 1;
    if (k < 6) {
        e->name = names[k];
        e->inlined = k == 5;
        e->start = 0x1000 + (uint64_t)(k % 5) * 0x100;
    }
    e->ip = 0x1000 + (uint64_t)k * 0x100 + ip;
}

/* Random chains into a row's tree and, with children, into the rows of
 * their suffixes (as add_graph() does), once walking each chain and once
 * through the memo: the same trees, splits and all. */
static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 16;
}

static void test_memo(void)
{
    enum { ROWS = 3, POOL = 60, CHAINS = 3000 };
    /* few kinds and a pool of chains drawn again and again, so that chains
     * meet: one ends where another goes on, ends come back after splits */
    static const unsigned kinds[] = { 0, 1, 5, 6 };
    cc_node *walked[ROWS] = { NULL }, *memoed[ROWS] = { NULL };
    cc_ent pool[POOL][6];
    size_t len[POOL];
    cc_memo *m = cc_memo_new();
    unsigned seed = 7, i, replays = 0;
    cc_params p;

    CHECK(m != NULL);
    for (i = 0; i < POOL; i++) {
        size_t j;

        len[i] = 1 + rnd(&seed) % 6;
        for (j = 0; j < len[i]; j++)
            rand_ent(&pool[i][j], kinds[rnd(&seed) % 4], rnd(&seed) % 2 * 4);
    }
    for (i = 0; i < CHAINS; i++) {
        unsigned k = rnd(&seed) % POOL;
        const cc_ent *e = pool[k];
        size_t n = len[k], j;
        uint32_t ids[6];

        CHECK(cc_memo_suffixes(m, e, n, ids) == 0);
        for (j = 0; j < n && j < ROWS; j++) {
            uint64_t period = 1 + rnd(&seed) % 5;
            cc_node *end = cc_memo_get(m, walked, (uint32_t)j, ids[j]);

            CHECK(cc_append(&walked[j], e + j, n - j, period, NULL) == 0);
            if (end != NULL) {
                cc_replay(end, period);
                replays++;
            } else {
                CHECK(cc_append(&memoed[j], e + j, n - j, period, &end) == 0);
                CHECK(cc_memo_put(m, walked, (uint32_t)j, ids[j], end) == 0);
            }
        }
    }
    CHECK(replays > CHAINS / 2);        /* the memo did most of the work */
    cc_params_default(&p);
    for (i = 0; i < ROWS; i++) {
        int v;

        for (v = 0; v < 2; v++) {
            char *a, *b;

            p.mode = v ? CC_FOLDED : CC_GRAPH;
            p.value = v ? CC_PERIOD : CC_COUNT;
            a = print(walked[i], &p, 0, 10000, 10000);
            b = print(memoed[i], &p, 0, 10000, 10000);
            CHECK(a != NULL && b != NULL && strlen(a) > 100 && strcmp(a, b) == 0);
            free(a);
            free(b);
        }
        cc_free(walked[i]);
        cc_free(memoed[i]);
    }
    /* cleared, it knows no ends */
    cc_memo_clear(m);
    {
        uint32_t id;

        CHECK(cc_memo_suffixes(m, pool[0], 1, &id) == 0 && id != 0);
        CHECK(cc_memo_get(m, walked, 0, id) == NULL);
    }
    cc_memo_free(m);
}

static const struct harness_test tests[] = {
    TEST(test_memo),
    TEST(test_folded_split),
    TEST(test_graph),
    TEST(test_merge),
    TEST(test_params),
};

TEST_MAIN(tests)
