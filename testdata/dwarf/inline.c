/* SPDX-License-Identifier: MIT */
/*
 * inline.c - the workload of testdata/dwarf-inline.data (build.sh): CPU-bound
 * for about 0.3 s, with static inline helpers that gcc -O2 inlines up to
 * three levels deep (mix -> step -> round_ -> a noinline caller), so the
 * DWARF unwinder's frames carry inlined callers that `perf script` prints as
 * "name (inlined)" lines.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

/* Level 3: the innermost helper. */
static inline unsigned long mix(unsigned long x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdul;
    x ^= x >> 29;
    return x;
}

/* Level 2: calls mix() twice, once per half. */
static inline unsigned long step(unsigned long x, unsigned long k)
{
    return mix(x + k) ^ mix(x - k);
}

/* Level 1: a loop of step()s. */
static inline unsigned long round_(unsigned long x, int n)
{
    for (int i = 0; i < n; i++)
        x = step(x, (unsigned long)i * 0x9e3779b97f4a7c15ul);
    return x;
}

/* A helper used directly by a noinline function (one level). */
static inline unsigned long fold(unsigned long x, int n)
{
    for (int i = 0; i < n; i++)
        x = mix(x) + (unsigned long)i;
    return x;
}

__attribute__((noinline)) unsigned long hash_block(unsigned long seed)
{
    return round_(seed, 400);
}

__attribute__((noinline)) unsigned long fold_block(unsigned long seed)
{
    return fold(seed, 700);
}

__attribute__((noinline)) unsigned long work(unsigned long seed, int n)
{
    unsigned long acc = seed;

    for (int i = 0; i < n; i++) {
        acc += hash_block(acc + (unsigned long)i);
        acc ^= fold_block(acc);
        acc += round_(acc, 50);         /* inlined straight into work() */
    }
    return acc;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;

    sink = work(1, n);
    printf("%lu\n", sink);
    return 0;
}
