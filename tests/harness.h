/* SPDX-License-Identifier: MIT */
/*
 * harness.h - the unit-test harness: CHECK(cond) records file:line and the
 * expression; TEST_MAIN(table) runs each test and prints "N passed, N failed".
 */
#ifndef PS_HARNESS_H
#define PS_HARNESS_H

#include <stdio.h>

static int harness_failed_checks;

#define CHECK(cond) do { if (!(cond)) { harness_failed_checks++; \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)

struct harness_test { const char *name; void (*fn)(void); };
#define TEST(fn) { #fn, fn }

static int harness_run(const struct harness_test *t, size_t n)
{
    size_t i, passed = 0, failed = 0;

    for (i = 0; i < n; i++) {
        int before = harness_failed_checks;

        t[i].fn();
        if (harness_failed_checks == before) { passed++; printf("PASS %s\n", t[i].name); }
        else { failed++; printf("FAIL %s\n", t[i].name); }
    }
    printf("%zu passed, %zu failed\n", passed, failed);
    return failed ? 1 : 0;
}
#define TEST_MAIN(table) int main(void) { \
    return harness_run(table, sizeof(table) / sizeof(table[0])); }

#endif /* PS_HARNESS_H */
