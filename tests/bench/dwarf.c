/* SPDX-License-Identifier: MIT */
/*
 * dwarf.c - the DWARF benchmark workload: CPU-bound, two threads, for N
 * seconds. Built with -O2 -g -fomit-frame-pointer (no frame pointers: only
 * `perf record --call-graph dwarf` can walk it). Its frames: noinline
 * recursion (descend), static inline helpers inlined two and three levels
 * deep (mix -> step -> round_), libc qsort() calling back into cmp_keys(),
 * and libm calls (sin, exp, pow).
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static volatile double fsink;
static double seconds;

static inline unsigned long mix(unsigned long x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdul;
    x ^= x >> 29;
    return x;
}

static inline unsigned long step(unsigned long x, unsigned long k)
{
    return mix(x + k) ^ mix(x - k);
}

static inline unsigned long round_(unsigned long x, int n)
{
    for (int i = 0; i < n; i++)
        x = step(x, (unsigned long)i * 0x9e3779b97f4a7c15ul);
    return x;
}

__attribute__((noinline)) static unsigned long hash_leaf(unsigned long x)
{
    return round_(x, 1000);
}

__attribute__((noinline)) static int cmp_keys(const void *a, const void *b)
{
    unsigned long ka = mix(*(const unsigned long *)a);
    unsigned long kb = mix(*(const unsigned long *)b);

    return ka < kb ? -1 : ka > kb;
}

__attribute__((noinline)) static void sort_some(unsigned long seed)
{
    unsigned long v[64];

    for (int i = 0; i < 64; i++)
        v[i] = seed + (unsigned long)i * 2654435761u;
    qsort(v, 64, sizeof v[0], cmp_keys);
    sink += v[0];
}

__attribute__((noinline)) static double math_some(unsigned long seed)
{
    double s = 0;

    for (int i = 1; i <= 30; i++)
        s += sin((double)(seed + i)) * exp(-0.001 * i) + pow(i * 0.5, 1.37);
    return s;
}

/* Recursion so that stacks are 10 to 25 frames deep. */
__attribute__((noinline)) static unsigned long descend(int d, unsigned long x)
{
    if (d > 0)
        return descend(d - 1, x + 1) + round_(x, 4);
    switch (mix(x) % 4) {
    case 0: sort_some(x); return x;
    case 1: fsink += math_some(x); return x;
    default: return hash_leaf(x);
    }
}

static void *run(void *arg)
{
    struct timespec t0, t;
    unsigned long n = (unsigned long)arg;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (int i = 0; i < 100; i++, n++)
            sink += descend(8 + (int)(n % 16), n);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th;

    seconds = argc > 1 ? atof(argv[1]) : 5;
    pthread_create(&th, NULL, run, (void *)1ul);
    run((void *)6ul);
    pthread_join(th, NULL);
    return 0;
}
