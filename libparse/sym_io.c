/* SPDX-License-Identifier: MIT */
/*
 * sym_io.c - untrusted files (see sym_io.h). A path is stat()ed first and
 * opened only if it is a regular file (O_RDONLY|O_NONBLOCK|O_CLOEXEC, then
 * fstat again, as it may have changed in between; never a file of /proc,
 * /sys and the like but the few the library reads itself); text files are read
 * through a fixed buffer with a byte cap, so a huge or endless file costs
 * bounded time. Paths are built whole or not at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "sym_ctype.h"
#include "sym_io.h"

#define TEXT_FILE_CAP   (UINT64_C(1) << 30)   /* bytes read from a text file */

struct ps_reader {
    int      fd;
    uint8_t  buf[65536];        /* kallsyms: fewer, larger reads */
    size_t   pos, end;
    uint64_t total;
    int      eof;
};

int ps_file__is_regular(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The kernel's files the library itself reads; a capture may name any
 * path, but never makes it read one of these pseudo file systems (reading
 * /proc/kmsg drains the kernel log, /proc/kcore is the kernel's memory). */
static const char *const system_files[] = {
    "/proc/kallsyms", "/proc/sys/kernel/kptr_restrict",
    "/proc/sys/kernel/perf_event_paranoid", "/sys/kernel/notes"
};

/* path's file system (fd < 0), else fd's, is one of the kernel's */
static int on_pseudo_fs(const char *path, int fd)
{
    struct statfs f;

    if ((fd < 0 ? statfs(path, &f) : fstatfs(fd, &f)) < 0)
        return 1;
    switch ((unsigned long)f.f_type) {
    case 0x9fa0:        /* proc */
    case 0x62656572:    /* sysfs */
    case 0x64626720:    /* debugfs */
    case 0x74726163:    /* tracefs */
    case 0x73636673:    /* securityfs */
    case 0x27e0eb:      /* cgroup */
    case 0x63677270:    /* cgroup2 */
        return 1;
    default:
        return 0;
    }
}

static int is_system_file(const char *path)
{
    size_t i;

    for (i = 0; i < sizeof(system_files) / sizeof(system_files[0]); i++)
        if (strcmp(path, system_files[i]) == 0)
            return 1;
    return 0;
}

int ps_file__open_regular(const char *path)
{
    struct stat st;
    int fd;

    if (!ps_file__is_regular(path) || (!is_system_file(path) && on_pseudo_fs(path, -1)))
        return -1;
    if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
        return -1;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
        (!is_system_file(path) && on_pseudo_fs(path, fd))) {
        close(fd);
        return -1;
    }
    return fd;
}

ps_reader *ps_reader__open(const char *path)
{
    ps_reader *r = calloc(1, sizeof(*r));

    if (r == NULL || (r->fd = ps_file__open_regular(path)) < 0) {
        free(r);
        return NULL;
    }
    return r;
}

void ps_reader__close(ps_reader *r)
{
    if (r == NULL)
        return;
    close(r->fd);
    free(r);
}

int ps_reader__eof(const ps_reader *r) { return r->eof; }

/* Refill an empty buffer. @return 0, or -1 at the end (or the cap) */
static int fill(ps_reader *r)
{
    ssize_t n;

    if (r->eof)
        return -1;
    do {
        n = read(r->fd, r->buf, sizeof(r->buf));
    } while (n < 0 && errno == EINTR);
    if (n <= 0 || r->total >= TEXT_FILE_CAP) {
        r->eof = 1;
        return -1;
    }
    r->total += (uint64_t)n;
    r->pos = 0;
    r->end = (size_t)n;
    return 0;
}

int ps_reader__getc(ps_reader *r)
{
    if (r->pos == r->end && fill(r) < 0)
        return -1;
    return r->buf[r->pos++];
}

/* The getc() loop "up to max bytes or the '\n'", a buffer at a time. */
size_t ps_reader__rest(ps_reader *r, char *out, size_t max)
{
    size_t n = 0;

    while (n < max && (r->pos < r->end || fill(r) == 0)) {
        size_t lim = r->end - r->pos < max - n ? r->end - r->pos : max - n;
        const uint8_t *at = r->buf + r->pos, *nl = memchr(at, '\n', lim);
        size_t take = nl != NULL ? (size_t)(nl - at) : lim;

        memcpy(out + n, at, take);
        n += take;
        r->pos += take;
        if (nl != NULL) {
            r->pos++;
            break;
        }
    }
    return n;
}

/* Past the next '\n' (or to the end), a buffer at a time: a line can be
 * the whole capped file (a sparse one reads as one line of NULs). With
 * out, its first max bytes are copied there, the '\n' included.
 * @return bytes copied, or -1 at the end before any byte or '\n' */
static long line_out(ps_reader *r, char *out, size_t max)
{
    size_t n = 0;
    int any = 0;

    while (r->pos < r->end || fill(r) == 0) {
        const uint8_t *at = r->buf + r->pos, *nl = memchr(at, '\n', r->end - r->pos);
        size_t len = nl != NULL ? (size_t)(nl - at) + 1 : r->end - r->pos;
        size_t take = out == NULL ? 0 : len < max - n ? len : max - n;

        if (take > 0) {
            memcpy(out + n, at, take);
            n += take;
        }
        r->pos += len;
        any = 1;
        if (nl != NULL)
            return (long)n;
    }
    return any ? (long)n : -1;
}

void ps_reader__skip_line(ps_reader *r)
{
    line_out(r, NULL, 0);
}

int ps_reader__hex(ps_reader *r, uint64_t *v)
{
    int first = 1;

    *v = 0;
    for (;;) {
        int c = ps_reader__getc(r), h;

        if (c < 0)
            return c;
        if ((h = ps_hexval((unsigned char)c)) < 0)
            return first ? -2 : c;
        *v = *v << 4 | (uint64_t)h;
        first = 0;
    }
}

long ps_reader__line(ps_reader *r, char *line, size_t max)
{
    long n = line_out(r, line, max);

    if (n >= 0)
        line[n] = '\0';
    return n;
}

int ps_path__fmt(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

int ps_path__join(char *buf, size_t size, const char *a, const char *b)
{
    return ps_path__fmt(buf, size, "%s%s%s", a, a[0] ? "/" : "", b);
}
