/*
 * memfd.c - code run from a memfd: its map's file name, as the kernel
 * gives it, is "/memfd:spin (deleted)", a dso name with a space and a
 * " (" in it. stackcollapse-perf.pl splits a frame line at its last " (",
 * so the fold of such a frame differs from what the dso name says
 * (cmd/fold_capture.c).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* mov $50000000,%ecx; 1: dec %ecx; jnz 1b; ret */
static const unsigned char spin[] = { 0xb9, 0x80, 0xf0, 0xfa, 0x02, 0xff, 0xc9, 0x75, 0xfc, 0xc3 };

int main(void)
{
    int fd = memfd_create("spin", 0), i;
    void (*fn)(void);
    void *p;

    if (fd < 0 || write(fd, spin, sizeof(spin)) != (ssize_t)sizeof(spin) ||
        ftruncate(fd, 4096) < 0 ||
        (p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
        perror("memfd");
        return 1;
    }
    fn = (void (*)(void))p;
    for (i = 0; i < 8; i++)
        fn();
    return 0;
}
