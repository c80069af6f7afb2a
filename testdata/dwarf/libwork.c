/* SPDX-License-Identifier: MIT */
/*
 * libwork.c - the shared library of testdata/dwarf-shlib.data (build.sh):
 * lw_key() has the static inline scramble() inlined into it, lw_wave()
 * calls libm from inside the library, so the captured stacks cross
 * shlib -> libwork.so -> libm.so.6 and libc qsort -> shlib -> libwork.so.
 */
#include <math.h>

#include "libwork.h"

static inline unsigned int scramble(unsigned int x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

unsigned int lw_key(unsigned int x)
{
    unsigned int k = x;

    for (int i = 0; i < 2; i++)
        k = scramble(k + (unsigned int)i);
    return k;
}

double lw_wave(double x, int n)
{
    double s = 0;

    for (int i = 0; i < n; i++)
        s += sin(x + i) * exp(-0.001 * i) + log1p(fabs(x) + i);
    return s;
}
