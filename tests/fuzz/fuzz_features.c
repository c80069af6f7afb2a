/* SPDX-License-Identifier: MIT */
/* fuzz_features - feature section payloads: the input is a list of
 * [u8 feature id | swap<<7][u16 length][payload] chunks, decoded into one
 * ps_features in order (as a file's sections, or a pipe's FEATURE records). */
#include "fuzz.h"
#include "../../libparse/features.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ps_features f;
    ps_arena a;
    ps_error err;
    size_t off = 0, nr = 0, i;
    uint8_t **copies = malloc((size / 3 + 1) * sizeof(*copies));

    memset(&f, 0, sizeof(f));
    ps_arena__init(&a);
    while (off + 3 <= size) {
        unsigned feat = data[off] & 0x7f;
        int swap = data[off] >> 7;
        size_t n = (size_t)data[off + 1] | (size_t)data[off + 2] << 8;
        uint8_t *p;

        off += 3;
        if (n > size - off)
            n = size - off;
        /* exact size, kept to the end (decoded features may borrow it):
         * ASan sees any read past it */
        p = copies[nr++] = malloc(n ? n : 1);
        memcpy(p, data + off, n);
        (void)ps_features__decode(&f, &a, feat, p, n, swap, off, &err);
        off += n;
    }
    ps_arena__free(&a);
    for (i = 0; i < nr; i++)
        free(copies[i]);
    free(copies);
    return 0;
}
