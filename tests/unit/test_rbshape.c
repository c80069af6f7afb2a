/* SPDX-License-Identifier: MIT */
/*
 * test_rbshape.c - cmd/rbshape.c: with a total order the tree is a valid
 * red-black tree (red nodes have black children, every path has as many
 * black nodes, the root is black) whose in-order walk is sorted, equal
 * keys are found instead of inserted; a shape worked out by hand for
 * ascending inserts (the kernel's rotations) is the one built. The
 * non-total order it exists for is checked against perf itself
 * (tests/diff/diff.sh, --sort sym). (Unit tests link only libperfsift.a,
 * so the cmd/ file is included.)
 */
#include <stdlib.h>
#include "harness.h"
#include "../../cmd/rbshape.c"

static const uint64_t *keys;    /* payload -> key */
static uint64_t want;

static int by_key(void *ctx, uint32_t payload)
{
    (void)ctx;
    return (want > keys[payload]) - (want < keys[payload]);
}

/* black height of the subtree at i (index + 1), -1 if the rules break */
static int black_height(const rbshape *t, uint32_t i)
{
    int l, r;

    if (i == 0)
        return 1;
    if (N(t, i)->red && ((N(t, i)->left && N(t, N(t, i)->left)->red) ||
                         (N(t, i)->right && N(t, N(t, i)->right)->red)))
        return -1;
    l = black_height(t, N(t, i)->left);
    r = black_height(t, N(t, i)->right);
    if (l < 0 || r < 0 || l != r)
        return -1;
    return l + !N(t, i)->red;
}

static void test_random_total_order(void)
{
    enum { COUNT = 5000 };
    uint64_t *k = malloc(COUNT * sizeof(*k)), x = 88172645463325252ull;
    uint32_t *order = malloc(COUNT * sizeof(*order));
    rbshape t;
    size_t n = 0, i;
    int found, sorted = 1;

    rbshape_init(&t);
    keys = k;
    for (i = 0; i < COUNT; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        want = x % 3000;        /* repeats: found, not inserted */
        k[n] = want;
        if (rbshape_findnew(&t, by_key, NULL, (uint32_t)n, &found) == (uint32_t)n && !found)
            n++;
    }
    CHECK(t.n == n && n < COUNT && n > 1000);
    CHECK(black_height(&t, t.root) > 0 && !N(&t, t.root)->red);
    rbshape_inorder(&t, order);
    for (i = 1; i < n; i++)
        sorted &= k[order[i - 1]] < k[order[i]];
    CHECK(sorted);
    rbshape_free(&t);
    free(order);
    free(k);
}

static void test_ascending_shape(void)
{
    static const uint64_t k[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    uint32_t i;
    rbshape t;
    int found;

    rbshape_init(&t);
    keys = k;
    for (i = 0; i < 8; i++) {
        want = k[i];
        rbshape_findnew(&t, by_key, NULL, i, &found);
    }
    /* 1..8 inserted in order: root 4 (black), 2 and 6 red, 8 red under 7 */
    CHECK(N(&t, t.root)->payload == 3 && !N(&t, t.root)->red);
    CHECK(N(&t, N(&t, t.root)->left)->payload == 1 && N(&t, N(&t, t.root)->left)->red);
    CHECK(N(&t, N(&t, t.root)->right)->payload == 5 && N(&t, N(&t, t.root)->right)->red);
    CHECK(black_height(&t, t.root) > 0);
    rbshape_free(&t);
}

static const struct harness_test tests[] = {
    TEST(test_random_total_order),
    TEST(test_ascending_shape),
};

TEST_MAIN(tests)
