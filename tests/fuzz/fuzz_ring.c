/* SPDX-License-Identifier: MIT */
/* fuzz_ring - a raw ring dump read with --attr: the input is
 * [u16 attr length][attr bytes (binary or JSON)][ring bytes]; the low
 * bits of the length's high byte pick the ring form. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ps_open_opts o = PS_OPEN_OPTS_INIT;
    fuzz_file attr, ring;
    size_t alen;

    if (size < 2)
        return 0;
    alen = (size_t)data[0] | ((size_t)(data[1] & 0x0f) << 8);
    o.ring_form = (data[1] >> 4) % 3;
    data += 2;
    size -= 2;
    if (alen > size)
        alen = size;
    fuzz_file_open(&attr, data, alen);
    fuzz_file_open(&ring, data + alen, size - alen);
    o.attr_path = attr.path;
    fuzz_session(ring.path, &o);
    fuzz_file_close(&ring);
    fuzz_file_close(&attr);
    return 0;
}
