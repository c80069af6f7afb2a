/* SPDX-License-Identifier: MIT */
/*
 * shlib.c - the workload of testdata/dwarf-shlib.data (build.sh): about
 * 0.3 s split between libc qsort() with a comparison callback of this
 * binary (which calls lw_key() in libwork.so), libm calls made from here
 * (pow, cbrt) and from libwork.so (lw_wave: sin, exp, log1p).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "libwork.h"

static volatile double sink;

__attribute__((noinline)) static int cmp_keys(const void *a, const void *b)
{
    unsigned int ka = lw_key(*(const unsigned int *)a);
    unsigned int kb = lw_key(*(const unsigned int *)b);

    return ka < kb ? -1 : ka > kb;
}

__attribute__((noinline)) static void sort_round(unsigned int *v, size_t n, unsigned int seed)
{
    for (size_t i = 0; i < n; i++)
        v[i] = seed + (unsigned int)i * 2654435761u;
    qsort(v, n, sizeof *v, cmp_keys);
}

__attribute__((noinline)) static double math_round(int n)
{
    double s = 0;

    for (int i = 1; i <= n; i++)
        s += pow(i * 0.5, 1.37) + cbrt((double)i);
    return s + lw_wave(0.25, n);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 32;
    size_t n = 20000;
    unsigned int *v = malloc(n * sizeof *v);

    if (!v)
        return 1;
    for (int r = 0; r < rounds; r++) {
        sort_round(v, n, (unsigned int)r);
        sink += math_round(150000);
    }
    printf("%u %f\n", v[0], sink);
    free(v);
    return 0;
}
