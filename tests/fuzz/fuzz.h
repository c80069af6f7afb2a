/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what the libFuzzer targets share: the input as a file the
 * library can open by name (a memfd seen as /proc/self/fd/N, so the real
 * open/mmap path runs), and a bounded walk over a session.
 */
#ifndef PS_FUZZ_H
#define PS_FUZZ_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "perfsift.h"

/* Each target stops after this many records: inputs that decode forever
 * (a loop of tiny records) are the mutation test's business, not a hang. */
#define FUZZ_MAX_RECORDS 20000

typedef struct fuzz_file {
    int  fd;
    char path[64];
} fuzz_file;

/* A memfd holding data; path names it. Aborts when the kernel refuses:
 * a harness failure must not look like a clean run. */
static inline void fuzz_file_open(fuzz_file *f, const void *data, size_t size)
{
    size_t off = 0;

    f->fd = memfd_create("fuzz", MFD_CLOEXEC);
    if (f->fd < 0)
        abort();
    while (off < size) {
        ssize_t n = write(f->fd, (const char *)data + off, size - off);

        if (n <= 0)
            abort();
        off += (size_t)n;
    }
    snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
}

static inline void fuzz_file_close(fuzz_file *f)
{
    close(f->fd);
}

/* Decode up to FUZZ_MAX_RECORDS records, touching what callers touch. */
static inline void fuzz_walk(ps_session *s)
{
    ps_event ev;
    ps_error err;
    int i, rc = PS_OK;
    char buf[512];

    for (i = 0; i < FUZZ_MAX_RECORDS; i++) {
        rc = ps_session_next(&ev, s, &err);
        if (rc != PS_OK)
            break;
        if (ev.type == PERF_RECORD_SAMPLE)
            (void)ps_tracepoint_print(buf, sizeof(buf), s, &ev, &err);
    }
    (void)ps_session_nr_warnings(s);
}

/* Open path with o, walk it, close it. */
static inline void fuzz_session(const char *path, const ps_open_opts *o)
{
    ps_session *s;
    ps_error err;

    if (ps_session_open(&s, path, o, &err) == PS_OK) {
        fuzz_walk(s);
        ps_session_close(s);
    }
}

#endif /* PS_FUZZ_H */
