/* SPDX-License-Identifier: MIT */
/*
 * script_srccode.c - script -F srccode (see script_srccode.h).
 *
 * perf keeps the source files it read mapped, with the start of each line;
 * a file's lines are its '\n'-separated pieces, the piece after the last
 * '\n' included (empty when the file ends in one). Which files stay cached
 * changes no output: perfsift keeps the last MAX_FILES it read.
 */
#include "script_srccode.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../libparse/u64map.h"
#include "../libparse/util.h"

#define MAX_FILES 64

typedef struct srcfile {
    char   *path;               /* owned */
    char   *map;                /* owned (mmap), NULL for an empty file */
    size_t  len;
    size_t *starts;             /* owned: offset of each line */
    size_t  nr_lines;
    int     missing;            /* could not be read: no line */
} srcfile;

typedef struct last_line {      /* what a thread printed last */
    const char *file;           /* borrowed from the caller (srcline's) */
    unsigned    line;
} last_line;

struct script_srccode {
    srcfile   files[MAX_FILES]; /* files[0] the most recently used */
    size_t    nr_files;
    ps_u64map threads;          /* tid -> index in last[] */
    last_line *last;            /* owned */
    size_t    nr_last, cap_last;
};

script_srccode *script_srccode_new(void)
{
    script_srccode *c = calloc(1, sizeof(*c));

    if (c != NULL)
        ps_u64map__init(&c->threads);
    return c;
}

static void file_free(srcfile *f)
{
    if (f->map != NULL)
        munmap(f->map, f->len);
    free(f->starts);
    free(f->path);
}

void script_srccode_free(script_srccode *c)
{
    size_t i;

    if (c == NULL)
        return;
    for (i = 0; i < c->nr_files; i++)
        file_free(&c->files[i]);
    ps_u64map__free(&c->threads);
    free(c->last);
    free(c);
}

/* The start of every line of f's text. -1: out of memory. */
static int index_lines(srcfile *f)
{
    const char *p = f->map, *end = f->map + f->len, *nl;
    size_t n = 1;

    for (nl = p; (nl = memchr(nl, '\n', (size_t)(end - nl))) != NULL; nl++)
        n++;
    if ((f->starts = malloc(n * sizeof(*f->starts))) == NULL)
        return -1;
    f->starts[0] = 0;
    f->nr_lines = 1;
    for (nl = p; (nl = memchr(nl, '\n', (size_t)(end - nl))) != NULL; nl++)
        f->starts[f->nr_lines++] = (size_t)(nl + 1 - p);
    return 0;
}

/* Read path into f; a file that cannot be read (or is no regular file: a
 * FIFO would block) is "missing". -1: out of memory. */
static int file_load(srcfile *f, const char *path)
{
    struct stat st;
    int fd;

    memset(f, 0, sizeof(*f));
    if ((f->path = strdup(path)) == NULL)
        return -1;
    f->missing = 1;
    if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
        return 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        f->len = (size_t)st.st_size;
        f->missing = 0;
        if (f->len > 0) {
            f->map = mmap(NULL, f->len, PROT_READ, MAP_PRIVATE, fd, 0);
            if (f->map == MAP_FAILED) {
                f->map = NULL;
                f->missing = 1;
            }
        }
    }
    close(fd);
    if (f->map != NULL && index_lines(f) < 0)
        return -1;
    return 0;
}

/* The cached file of that path, loaded if need be, moved to the front. */
static srcfile *file_get(script_srccode *c, const char *path)
{
    srcfile f;
    size_t i;

    for (i = 0; i < c->nr_files; i++)
        if (strcmp(c->files[i].path, path) == 0)
            break;
    if (i < c->nr_files) {
        f = c->files[i];
    } else {
        if (file_load(&f, path) < 0) {
            file_free(&f);
            return NULL;
        }
        if (c->nr_files == MAX_FILES)
            file_free(&c->files[--c->nr_files]);
        i = c->nr_files++;
    }
    memmove(&c->files[1], &c->files[0], i * sizeof(c->files[0]));
    c->files[0] = f;
    return &c->files[0];
}

/* The thread's record of what it printed last. NULL: out of memory. */
static last_line *thread_last(script_srccode *c, uint32_t tid)
{
    uint64_t *idx = ps_u64map__get(&c->threads, tid);

    if (idx != NULL)
        return &c->last[*idx];
    if (ps_grow((void **)&c->last, &c->cap_last, c->nr_last + 1, sizeof(*c->last)) < 0 ||
        ps_u64map__put(&c->threads, tid, c->nr_last) < 0)
        return NULL;
    c->last[c->nr_last].file = NULL;
    c->last[c->nr_last].line = 0;
    return &c->last[c->nr_last++];
}

void script_srccode_forget(script_srccode *c, uint32_t tid)
{
    uint64_t *idx = ps_u64map__get(&c->threads, tid);

    if (idx != NULL)
        c->last[*idx].file = NULL;
}

int script_srccode_print(script_srccode *c, linebuf *lb, uint32_t tid, const char *file,
                         unsigned line)
{
    last_line *last = thread_last(c, tid);
    const char *text, *nl;
    srcfile *f;
    size_t n;

    if (last == NULL)
        return -1;
    if (last->file != NULL && last->line == line && strcmp(last->file, file) == 0)
        return 0;
    if ((f = file_get(c, file)) == NULL)
        return -1;
    /* line 0 ("?") or past the file: perf finds no text */
    if (f->missing || f->map == NULL || line == 0 || line > f->nr_lines)
        return 0;
    text = f->map + f->starts[line - 1];
    n = f->len - f->starts[line - 1];
    if ((nl = memchr(text, '\n', n)) != NULL)
        n = (size_t)(nl - text);
    lb_putc(lb, '|');
    lb_int(lb, (int)line, -8);
    lb_putc(lb, ' ');
    lb_mem(lb, text, n);
    lb_putc(lb, '\n');
    last->file = file;
    last->line = line;
    return 0;
}
