/* SPDX-License-Identifier: MIT */
/*
 * a2l.c - `a2l FILE < addresses`: libparse's srcline answers printed the
 * way `addr2line -a -i -f -e FILE` (binutils) prints them, one hex
 * address per input line, so tests/diff/srcline.sh can compare the two
 * (file names whole, as --full-source-path makes perf print them).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../libparse/srcline.h"

int main(int argc, char **argv)
{
    ps_srcline *c;
    char line[128];

    if (argc != 2 || ps_srcline__new(&c) < 0) {
        fprintf(stderr, "usage: a2l FILE < addresses\n");
        return 2;
    }
    while (fgets(line, sizeof(line), stdin) != NULL) {
        uint64_t addr = strtoull(line, NULL, 16);
        ps_srcinfo si;
        size_t i;

        if (ps_srcline__find(c, argv[1], addr, &si) < 0)
            return 1;
        printf("0x%016" PRIx64 "\n", addr);
        if (si.nr == 0)
            printf("??\n??:0\n");
        for (i = 0; i < si.nr; i++) {
            const ps_srcloc *l = &si.loc[i];

            printf("%s\n%s:", l->func ? l->func : "??", l->file ? l->file : "??");
            if (l->line)
                printf("%u\n", l->line);
            else
                printf("?\n");
        }
    }
    ps_srcline__free(c);
    return 0;
}
