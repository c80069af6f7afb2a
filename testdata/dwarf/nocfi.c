/* nocfi.c - time spent where the file has CFI but no FDE covers the pc:
 * assembly functions without CFI (nocfi-asm.S) and, linked without ld's
 * PLT unwind info, lazy PLT entries. perf's libunwind guesses the caller
 * there (frame pointer, PLT pattern); see testdata/dwarf/build.sh. */
#include <stdlib.h>
#include <time.h>

unsigned long fp_spin(unsigned long n);        /* rbp frame */
unsigned long nofp_spin(unsigned long n);      /* no frame: rbp is the caller's */
unsigned long zero_fp_spin(unsigned long n);   /* rbp 0 while it runs */
unsigned long low_fp_spin(unsigned long n);    /* rbp below sp while it runs */

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef unsigned long (*spin_fn)(unsigned long);

static unsigned long sink;

/* Run fn in slices until ms milliseconds have passed. */
static __attribute__((noinline)) void run(spin_fn fn, double ms)
{
    double end = now() + ms / 1000;

    while (now() < end)
        sink += fn(20000);
}

/* Calls nofp_spin itself, for ms milliseconds: its rbp is the frame
 * pointer the guess follows, to its caller's return address. */
static __attribute__((noinline)) void mid(double ms)
{
    double end = now() + ms / 1000;

    while (now() < end)
        sink += nofp_spin(20000);
}

/* mid's caller, without a frame pointer (its CFA is rsp-based): libunwind's
 * guess has cfa + 16 for its sp, libdwfl's rbp + 16. */
static __attribute__((noinline, optimize("omit-frame-pointer"))) void outer(double ms)
{
    volatile char buf[64];

    buf[0] = 1;
    mid(ms);
    sink += buf[0];
}

/* A caller whose frame is far bigger than libunwind's frame-pointer
 * bound (rbp - cfa at most 0x4000). */
static __attribute__((noinline)) void big_frame(double ms)
{
    volatile char buf[20000];
    double end = now() + ms / 1000;

    buf[0] = 1;
    while (now() < end)
        sink += nofp_spin(20000) + buf[0];
}

/* Calls through the PLT: abs() is libc's. */
static __attribute__((noinline)) unsigned long plt_spin(unsigned long n)
{
    unsigned long s = 0, i;

    for (i = 0; i < n; i++)
        s += (unsigned long)abs((int)i - 7);
    return s;
}

int main(void)
{
    run(fp_spin, 20);
    outer(20);
    big_frame(20);
    run(zero_fp_spin, 10);
    run(low_fp_spin, 10);
    run(plt_spin, 40);
    return sink == 1;
}
