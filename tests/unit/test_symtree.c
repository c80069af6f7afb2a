/* SPDX-License-Identifier: MIT */
/*
 * test_symtree.c - libparse/symtree.c's walks: a tree only appended to at
 * its right end is walked in array order (no index array), any other by
 * its links; perf's fixups give the same symbols either way, duplicates
 * and erasures included. A shared tree is copied before it changes.
 */
#include "harness.h"
#include "../libparse/symtree.h"

/* starts with duplicates (10, 10, 30, 30, 30) and zero sizes */
static const uint64_t starts[] = { 10, 10, 20, 30, 30, 30, 45, 60, 61, 90 };
static const char *const names[] = { "a", "__b", "c", "d", "ee", "f", "g", "h", "i", "j" };
#define NR (sizeof(starts) / sizeof(starts[0]))

/* The live symbols in order, as "start-end:name;" text. */
static void dump(const ps_symtree *t, char *out, size_t size)
{
    ps_symwalk w;
    int32_t i;
    size_t n = 0;

    out[0] = '\0';
    if (ps_symwalk__begin(&w, t) < 0)
        return;
    while ((i = ps_symwalk__next(&w)) != PS_SYM_NIL && n < size)
        n += (size_t)snprintf(out + n, size - n, "%llu-%llu:%s;",
                              (unsigned long long)t->n[i].sym.start,
                              (unsigned long long)t->n[i].sym.end, t->n[i].sym.name);
    ps_symwalk__end(&w);
}

static void fixed_up(ps_symtree *t, int unordered, char *out, size_t size)
{
    size_t k;

    ps_symtree__init(t);
    if (unordered)      /* the last symbol first: every other goes left of it */
        ps_symtree__insert(t, starts[NR - 1], starts[NR - 1], STB_GLOBAL, STT_FUNC, names[NR - 1]);
    for (k = 0; k < NR - (size_t)unordered; k++)
        ps_symtree__insert(t, starts[k], starts[k] + (k % 3 == 0 ? 0 : 4),
                           k % 2 ? STB_GLOBAL : STB_WEAK, STT_FUNC, names[k]);
    CHECK(t->unordered == unordered);
    CHECK(ps_symtree__fixup_end(t, 0) == 0 && ps_symtree__fixup_duplicate(t) == 0);
    dump(t, out, size);
}

static void test_array_order_same_as_links(void)
{
    ps_symtree a, b;
    char da[512], db[512];

    fixed_up(&a, 0, da, sizeof(da));
    fixed_up(&b, 1, db, sizeof(db));
    CHECK(da[0] != '\0' && strcmp(da, db) == 0);
    CHECK(strstr(da, ":a;") == NULL || strstr(da, ":__b;") == NULL);  /* one of 10 left */
    CHECK(ps_symtree__compact(&a) == 0 && ps_symtree__compact(&b) == 0);
    dump(&a, da, sizeof(da));
    dump(&b, db, sizeof(db));
    CHECK(strcmp(da, db) == 0);
    ps_symtree__free(&a);
    ps_symtree__free(&b);
}

static void test_shared_copied_on_change(void)
{
    ps_symtree a, b;
    char before[512], after[512];

    fixed_up(&a, 0, before, sizeof(before));
    ps_symtree__init(&b);
    ps_symtree__share(&b, &a);
    CHECK(b.shared && b.n == a.n);
    CHECK(ps_symtree__insert(&b, 9000, 9010, STB_GLOBAL, STT_FUNC, "late") == 0);
    CHECK(!b.shared && b.n != a.n);
    dump(&a, after, sizeof(after));
    CHECK(strcmp(before, after) == 0);
    CHECK(ps_symtree__find(&b, 9005) != NULL && ps_symtree__find(&a, 9005) == NULL);
    ps_symtree__free(&b);
    ps_symtree__free(&a);
}

static const struct harness_test tests[] = {
    TEST(test_array_order_same_as_links),
    TEST(test_shared_copied_on_change),
};

TEST_MAIN(tests)
