/* hog.c - two leaf functions sharing the CPU in a ratio given on the
 * command line, for the perfsift diff fixtures (testdata/README.md):
 *   hog FOO_PARTS BAR_PARTS [ROUNDS]
 * Each round spends FOO_PARTS units in foo() and BAR_PARTS units in bar(),
 * both called from work(), like the corpus's cpuhog (foo/bar 4:1). */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long sink;
volatile unsigned long seed = 0x12345;

__attribute__((noinline)) unsigned long foo(unsigned long n)
{
    unsigned long s = seed;

    for (unsigned long i = 0; i < n; i++)
        s = s * 6364136223846793005UL + (i ^ (s >> 7));
    return s;
}

__attribute__((noinline)) unsigned long bar(unsigned long n)
{
    unsigned long s = seed ^ 0x6789;

    for (unsigned long i = 0; i < n; i++)
        s = s * 2862933555777941757UL + (i ^ (s >> 5));
    return s;
}

__attribute__((noinline)) void work(unsigned long foo_parts, unsigned long bar_parts,
                                    unsigned long rounds)
{
    for (unsigned long r = 0; r < rounds; r++) {
        sink += foo(foo_parts * 10000);
        sink += bar(bar_parts * 10000);
    }
}

int main(int argc, char **argv)
{
    unsigned long f = argc > 1 ? strtoul(argv[1], NULL, 0) : 4;
    unsigned long b = argc > 2 ? strtoul(argv[2], NULL, 0) : 1;
    unsigned long rounds = argc > 3 ? strtoul(argv[3], NULL, 0) : 2000;

    work(f, b, rounds);
    printf("hog done %lx\n", (unsigned long)sink);
    return 0;
}
