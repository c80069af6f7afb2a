/* SPDX-License-Identifier: MIT */
/*
 * script_dump.c - script --per-event-dump (see script_dump.h).
 */
#include "script_dump.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct dump_file {
    char    *name;              /* owned */
    FILE    *fp;
    uint64_t bytes, samples;
    unsigned evsel_idx;
} dump_file;

struct script_dump {
    dump_file *v;               /* owned, one per event, in event order */
    size_t     n, cap;
    char      *path;            /* owned: the input's name, for the file names */
    int        failed;          /* a write failed (reported once) */
};

static dump_file *file_of(script_dump *d, const ps_evsel *e)
{
    size_t i;

    for (i = 0; i < d->n; i++)
        if (d->v[i].evsel_idx == e->idx)
            return &d->v[i];
    return NULL;
}

int script_dump_add(script_dump *d, const ps_evsel *e)
{
    const char *name = e->name ? e->name : "[unknown]";
    size_t len = strlen(d->path) + strlen(name) + 7;
    dump_file *f;

    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 8;
        dump_file *v = realloc(d->v, cap * sizeof(*v));

        if (v == NULL) {
            fprintf(stderr, "perfsift script: out of memory\n");
            return -1;
        }
        d->v = v;
        d->cap = cap;
    }
    f = &d->v[d->n];
    memset(f, 0, sizeof(*f));
    if ((f->name = malloc(len)) == NULL) {
        fprintf(stderr, "perfsift script: out of memory\n");
        return -1;
    }
    snprintf(f->name, len, "%s.%s.dump", d->path, name);
    f->evsel_idx = e->idx;
    d->n++;
    /* two events of one name (a pipe's tracepoints are all "unknown
     * tracepoint" when their attrs arrive) share the file as in perf:
     * each stream writes it from its own offset */
    if ((f->fp = fopen(f->name, "w")) == NULL) {
        fprintf(stderr, "perfsift script: cannot write %s: %s\n", f->name, strerror(errno));
        return -1;
    }
    return 0;
}

script_dump *script_dump_open(ps_session *s, const char *path)
{
    size_t i, n = ps_session_nr_evsels(s);
    script_dump *d = calloc(1, sizeof(*d));

    if (d == NULL || (d->path = strdup(path)) == NULL) {
        free(d);
        fprintf(stderr, "perfsift script: out of memory\n");
        return NULL;
    }
    for (i = 0; i < n; i++)
        if (script_dump_add(d, ps_session_evsel(s, i)) < 0) {
            script_dump_close(d, NULL);
            return NULL;
        }
    return d;
}

int script_dump_take(script_dump *d, const ps_evsel *e, linebuf *lb)
{
    dump_file *f = file_of(d, e);

    if (lb->len == 0)
        return 0;
    if (f == NULL || f->fp == NULL) {   /* an event the header did not list */
        lb->len = 0;
        return 0;
    }
    if (fwrite(lb->p, 1, lb->len, f->fp) != lb->len && !d->failed) {
        d->failed = 1;
        fprintf(stderr, "perfsift script: cannot write %s: %s\n", f->name, strerror(errno));
    }
    f->bytes += lb->len;
    f->samples++;
    lb->len = 0;
    return d->failed ? -1 : 0;
}

/* What perf reports as written: the file's size when it asks, before
 * closing it: what its stdio has passed on so far (whole buffers), and for
 * a file two events share, what the other's stream wrote there too. */
static uint64_t passed_bytes(const dump_file *f)
{
    struct stat st;

    return fstat(fileno(f->fp), &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
}

int script_dump_close(script_dump *d, FILE *out)
{
    int rc = 0;
    size_t i;

    if (d == NULL)
        return 0;
    for (i = 0; i < d->n; i++) {
        dump_file *f = &d->v[i];

        if (f->fp != NULL) {
            if (out != NULL)
                fprintf(out, "[ perf script: Wrote %.3f MB %s (%llu samples) ]\n",
                        (double)passed_bytes(f) / 1024.0 / 1024.0, f->name,
                        (unsigned long long)f->samples);
            if (fclose(f->fp) != 0 && rc == 0) {
                fprintf(stderr, "perfsift script: cannot write %s: %s\n", f->name,
                        strerror(errno));
                rc = -1;
            }
        }
        free(f->name);
    }
    free(d->v);
    free(d->path);
    rc = d->failed ? -1 : rc;
    free(d);
    return rc;
}
