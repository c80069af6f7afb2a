/* SPDX-License-Identifier: MIT */
/*
 * vdso.c - the workload of testdata/dwarf-vdso.data (build.sh): a tight
 * loop of clock_gettime() and gettimeofday(), which glibc answers in the
 * [vdso] (__vdso_clock_gettime, __vdso_gettimeofday), with some work of its
 * own in between; a fixed number of rounds (about 0.12 s of CPU here), so
 * that the capture stays small. Samples taken inside the vdso unwind
 * through it only with the vdso's own CFI: perf 6.1 uses its copy of the
 * running kernel's vdso, and stops at the vdso frame when it has none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static volatile unsigned long sink;

/* Work of its own: a few rounds of a multiplicative hash. */
static __attribute__((noinline)) unsigned long churn(unsigned long x)
{
    int i;

    for (i = 0; i < 48; i++)
        x = (x ^ (x >> 31)) * 0x9e3779b97f4a7c15ul;
    return x;
}

/* Both clocks glibc reads through the vdso. */
static __attribute__((noinline)) unsigned long read_clocks(void)
{
    struct timespec ts;
    struct timeval tv;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    gettimeofday(&tv, NULL);
    return (unsigned long)ts.tv_nsec ^ (unsigned long)tv.tv_usec;
}

static __attribute__((noinline)) void run(long rounds)
{
    long r;
    int i;

    for (r = 0; r < rounds; r++) {
        for (i = 0; i < 64; i++)
            sink += read_clocks();
        sink = churn(sink);
    }
}

int main(int argc, char **argv)
{
    run(argc > 1 ? atol(argv[1]) : 32000);
    printf("%lu\n", sink & 1);
    return 0;
}
