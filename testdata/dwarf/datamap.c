/*
 * datamap.c - a program that maps its own libc as data, below the libc it
 * runs, half way through (as a tool reading ELF files, perf or perfsift
 * itself, does): perf 6.1 then looks libc's FDEs up at that map's base
 * (libparse/unwind_base.c), so libc frames it has not unwound before miss
 * and libunwind guesses their callers, while those in libunwind's cache
 * (libparse/unwind_cache.c) unwind as before. qsort() runs before and
 * after; bsearch() and lfind() only after, so their frames are new.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define N 4096

static int keys[N];
static volatile long sink;

static int cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sort_for(double secs)
{
    double end = now() + secs;
    unsigned seed = 1;
    int i;

    while (now() < end) {
        for (i = 0; i < N; i++)
            keys[i] = (int)(rand_r(&seed) % 100000);
        qsort(keys, N, sizeof(keys[0]), cmp);
        sink += keys[N / 2];
    }
}

static void search_for(double secs)
{
    double end = now() + secs;
    size_t n = N;
    int k;

    while (now() < end) {
        for (k = 0; k < 1000; k++)
            sink += bsearch(&k, keys, N, sizeof(keys[0]), cmp) != NULL;
        k = -1;
        sink += lfind(&k, keys, &n, sizeof(keys[0]), cmp) != NULL;
    }
}

/* libc.so.6 mapped read-only, 16 MB below the libc this program runs. */
static int map_libc_low(void)
{
    Dl_info di;
    struct stat st;
    void *want, *p;
    int fd;

    if (!dladdr((void *)qsort, &di) || (fd = open(di.dli_fname, O_RDONLY)) < 0)
        return -1;
    if (fstat(fd, &st) < 0) {
        close(fd);
        return -1;
    }
    want = (char *)di.dli_fbase - (16 << 20);
    p = mmap(want, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0);
    close(fd);
    return p == want ? 0 : -1;
}

int main(void)
{
    sort_for(0.4);
    if (map_libc_low() < 0) {
        fprintf(stderr, "datamap: could not map libc below itself\n");
        return 1;
    }
    sort_for(0.4);
    search_for(0.4);
    return 0;
}
