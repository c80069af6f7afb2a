/* nopie: a non-PIE executable linked low (-Ttext-segment=0x10000), whose
 * call chains hold addresses perf's db-export looks up raw (testdata/README.md,
 * nopie.data): hidden() loses its .symtab entry (objcopy --strip-symbol), and
 * filler, after it, covers the file offsets its raw return address reads as. */
#include <stdlib.h>

volatile unsigned long sink;

int scaled(int) __asm__("_Z6scaledi");     /* a C++ name (nopie-cxx.c) */

__attribute__((noinline)) static unsigned long mix(unsigned long x)
{
    return x * 2654435761u ^ (x >> 7);
}

__attribute__((noinline)) void work(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += mix(i);
}

/* called once: its own code is never a sample's leaf */
__attribute__((noinline)) void hidden(unsigned long n)
{
    work(n);
    sink += (unsigned long)scaled((int)n);
}

__asm__(".text\n.globl filler\n.type filler, @function\nfiller:\n"
        ".fill 0x14000, 1, 0x90\nret\n.size filler, .-filler\n");

int main(int argc, char **argv)
{
    hidden(argc > 1 ? strtoul(argv[1], NULL, 0) : 150000000UL);
    return 0;
}
