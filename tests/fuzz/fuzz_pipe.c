/* SPDX-License-Identifier: MIT */
/* fuzz_pipe - the stream decoder: the input arrives on a pipe, as
 * `perf record -o - | perfsift` gives it (no seeking, no mmap). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ps_open_opts o = PS_OPEN_OPTS_INIT;
    char path[64];
    int p[2];
    size_t off = 0;

    if (pipe2(p, O_CLOEXEC) < 0)
        abort();
    /* the whole input fits in the pipe: no writer thread needed */
    if (size > 65536 && fcntl(p[1], F_SETPIPE_SZ, (int)size) < 0)
        size = 65536;
    while (off < size) {
        ssize_t n = write(p[1], data + off, size - off);

        if (n <= 0)
            abort();
        off += (size_t)n;
    }
    close(p[1]);
    snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
    o.keep_going = data[0] & 1;
    fuzz_session(path, &o);
    close(p[0]);
    return 0;
}
