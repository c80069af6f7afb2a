/* SPDX-License-Identifier: MIT */
/* fuzz_file - the file decoder: header, attrs, features, data records
 * (input opened by name, so mmap'd), plain and time-ordered. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ps_open_opts o = PS_OPEN_OPTS_INIT;
    fuzz_file f;

    fuzz_file_open(&f, data, size);
    fuzz_session(f.path, &o);
    o.ordered = 1;
    o.keep_going = 1;
    fuzz_session(f.path, &o);
    fuzz_file_close(&f);
    return 0;
}
