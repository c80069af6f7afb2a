/* SPDX-License-Identifier: MIT */
/*
 * deep.c - the benchmark workload: CPU-bound, deep frame-pointer stacks
 * (recursion through several functions), two threads, for N seconds.
 * Built with -O1 -fno-omit-frame-pointer so `perf record -g` sees them.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static unsigned long leaf(unsigned long x) { for (int i = 0; i < 200; i++) x = x * 6364136223846793005ul + 1; return x; }
static unsigned long walk_a(int d, unsigned long x);
static unsigned long walk_b(int d, unsigned long x) { return d ? walk_a(d - 1, x + 1) : leaf(x); }
static unsigned long walk_a(int d, unsigned long x) { return d ? walk_b(d - 1, x ^ 3) : leaf(x); }

static double seconds;

static void *run(void *arg)
{
    struct timespec t0, t;
    unsigned long n = (unsigned long)arg;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (int i = 0; i < 1000; i++)
            sink += walk_a(20 + (int)(n++ % 40), n);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th;

    seconds = argc > 1 ? atof(argv[1]) : 5;
    pthread_create(&th, NULL, run, (void *)1ul);
    run((void *)7ul);
    pthread_join(th, NULL);
    return 0;
}
