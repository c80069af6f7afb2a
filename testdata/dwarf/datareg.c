/* SPDX-License-Identifier: MIT */
/*
 * datareg.c - the workload of testdata/dwarf-datareg.data (build.sh): about
 * 0.3 s of sin() calls from walk(), which keeps a pointer into the
 * binary's RELRO data (.data.rel.ro: a table of pointers, relocated at
 * load time) in a callee-saved register across them. ld puts the read-only
 * segment (.eh_frame) and the start of the RW segment (.data.rel.ro,
 * .dynamic, .got) in one file page, so the map that register points into
 * (the RELRO page, made read-only by ld.so) has the page offset of two
 * PT_LOADs. With the ip in libm, that register is the first word of the
 * first sample to name the binary: an unwinder that takes the load bias
 * from the first of the two PT_LOADs shifts the binary by a page and finds
 * no CFI for walk() or main() (libparse/unwind_space.c).
 */
#include <math.h>
#include <stdio.h>

static double big[8192];

/* Pointers, so a PIE keeps it in .data.rel.ro. */
static double *const tabs[4] = { big + 1024, big + 2048, big + 4096, big + 6144 };

__attribute__((noipa)) static double walk(double *const *t, long n)
{
    double acc = 0;

    for (long i = 0; i < n; i++) {
        double *row = t[i & 3];

        acc += sin(row[i & 63] + (double)i);
        row[(i + 7) & 63] = acc * 1e-9;
    }
    return acc;
}

int main(void)
{
    double s = 0;

    for (int r = 0; r < 60; r++)
        s += walk(tabs, 200000);
    printf("%g\n", s);
    return 0;
}
