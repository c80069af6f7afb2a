/* SPDX-License-Identifier: MIT */
/*
 * record_out.c - where a recording goes: a perf.data file (perf.data.old
 * kept like perf does), a pipe (-o -), or with --raw-ring DIR one stream
 * of drained records per ring (the synthesized ones at the start of each),
 * all.stream with every ring's records in the order drained (side-band
 * records land in whichever ring their CPU owns: this one has them all),
 * plus attr.json (schemas/attr.schema.json);
 * and what the recorder learns on the way: sample and LOST counts, first
 * and last sample times, and which DSOs got samples, for BUILD_ID.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../libparse/sym_elf.h"
#include "../libparse/util.h"
#include "record.h"

#define CPUMODE_MASK 7
#define MISC_KERNEL  1
#define MISC_USER    2

static int is_pipe(const record *r) { return strcmp(r->output, "-") == 0; }

/* ------------------------------------------------------------------------ */
/* Maps and DSOs hit                                                         */

static size_t dso_find(record *r, const char *path)
{
    size_t i;

    for (i = 0; i < r->ndsos; i++)
        if (strcmp(r->dsos[i].path, path) == 0)
            return i;
    if (ps_grow((void **)&r->dsos, &r->cap_dsos, r->ndsos + 1, sizeof(*r->dsos)) < 0 ||
        (r->dsos[r->ndsos].path = strdup(path)) == NULL)
        return SIZE_MAX;
    r->dsos[r->ndsos].hit = 0;
    return r->ndsos++;
}

static void map_add(record *r, int32_t pid, uint64_t start, uint64_t len, const char *path)
{
    size_t d;

    if (path[0] != '/' || (d = dso_find(r, path)) == SIZE_MAX)
        return;                         /* anon, [vdso], ...: no file, no build-id */
    if (ps_grow((void **)&r->maps, &r->cap_maps, r->nmaps + 1, sizeof(*r->maps)) < 0)
        return;
    r->maps[r->nmaps++] = (rec_map){ pid, start, start + len, d };
}

/* A FORK of a new process: its maps are its parent's until it execs. */
static void fork_add(record *r, int32_t pid, int32_t ppid)
{
    size_t i, n = r->nmaps;

    if (pid == ppid)
        return;
    for (i = 0; i < n; i++)
        if (r->maps[i].pid == ppid &&
            ps_grow((void **)&r->maps, &r->cap_maps, r->nmaps + 1, sizeof(*r->maps)) == 0) {
            r->maps[r->nmaps] = r->maps[i];
            r->maps[r->nmaps++].pid = pid;
        }
}

static void hit(record *r, int32_t pid, uint64_t ip)
{
    size_t i;
    rec_map *m;

    if (r->last_map < r->nmaps) {
        m = &r->maps[r->last_map];
        if (m->pid == pid && ip >= m->start && ip < m->end)
            return;                     /* its DSO is marked already */
    }
    for (i = r->nmaps; i-- > 0;) {
        m = &r->maps[i];
        if (m->pid == pid && ip >= m->start && ip < m->end) {
            r->dsos[m->dso].hit = 1;
            r->last_map = i;
            return;
        }
    }
}

static void note_sample(record *r, const uint8_t *rec)
{
    const struct perf_event_header *h = (const void *)rec;
    size_t off = 8 + ((r->ev[0].attr.sample_type & PERF_SAMPLE_IDENTIFIER) ? 8 : 0);
    uint64_t ip, t;
    int32_t pid;

    r->samples++;
    if (h->size < off + 24)
        return;
    memcpy(&ip, rec + off, 8);
    memcpy(&pid, rec + off + 8, 4);
    memcpy(&t, rec + off + 16, 8);
    if (r->first_time == 0 || t < r->first_time)
        r->first_time = t;
    if (t > r->last_time)
        r->last_time = t;
    if ((h->misc & CPUMODE_MASK) == MISC_KERNEL)
        r->kernel_hit = 1;
    else if ((h->misc & CPUMODE_MASK) == MISC_USER)
        hit(r, pid, ip);
}

/* Called for every record (ring or synthesized) before it is emitted. */
void rec_out_note(record *r, const uint8_t *rec)
{
    const struct perf_event_header *h = (const void *)rec;
    uint64_t v[3];
    int32_t ids[2];

    switch (h->type) {
    case PERF_RECORD_SAMPLE:
        note_sample(r, rec);
        break;
    case PERF_RECORD_LOST:
        if (h->size >= 24) {
            memcpy(v, rec + 16, 8);
            r->lost += v[0];
        }
        break;
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2: {
        size_t name = h->type == PERF_RECORD_MMAP ? 40 : 72;

        if (h->size <= name || (h->misc & CPUMODE_MASK) != MISC_USER)
            break;
        memcpy(ids, rec + 8, 8);
        memcpy(v, rec + 16, 16);
        if (memchr(rec + name, 0, h->size - name) != NULL)
            map_add(r, ids[0], v[0], v[1], (const char *)rec + name);
        break;
    }
    case PERF_RECORD_FORK:
        if (h->size >= 16) {
            memcpy(ids, rec + 8, 8);
            fork_add(r, ids[0], ids[1]);
        }
        break;
    }
}

/* BUILD_ID (spec 6.4): the kernel and every DSO that got a sample. */
static int set_build_ids(record *r, ps_error *err)
{
    ps_buildid_list l = { 0 };
    uint8_t bid[PS_BUILD_ID_MAX];
    size_t i;
    int n, rc = 0;

    elf_version(EV_CURRENT);            /* libelf wants it before any elf_begin */
    if (r->kernel_hit && (n = ps_build_id__host(bid)) > 0)
        ps_buildid_list_add(&l, MISC_KERNEL, -1, bid, (size_t)n, "[kernel.kallsyms]");
    for (i = 0; i < r->ndsos; i++)
        if (r->dsos[i].hit && (n = ps_elf__file_build_id(r->dsos[i].path, bid)) > 0)
            ps_buildid_list_add(&l, MISC_USER, -1, bid, (size_t)n, r->dsos[i].path);
    if (l.len > 0)
        rc = ps_writer_set_feature(r->w, PS_HEADER_BUILD_ID, l.buf, l.len, err);
    free(l.buf);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* --raw-ring DIR                                                            */

static json_t *attr_json(const rec_event *e)
{
    const struct perf_event_attr *a = &e->attr;
    json_t *o = json_object(), *ids = json_array();
    uint64_t flags;
    size_t i;

    memcpy(&flags, (const uint8_t *)a + 40, 8);
    json_object_set_new(o, "name", json_string(e->name));
    json_object_set_new(o, "type", json_integer(a->type));
    json_object_set_new(o, "size", json_integer(a->size));
    json_object_set_new(o, "config", json_integer((json_int_t)a->config));
    json_object_set_new(o, a->freq ? "sample_freq" : "sample_period",
                        json_integer((json_int_t)a->sample_period));
    json_object_set_new(o, "sample_type", json_integer((json_int_t)a->sample_type));
    json_object_set_new(o, "read_format", json_integer((json_int_t)a->read_format));
    json_object_set_new(o, "flags", json_integer((json_int_t)flags));
    json_object_set_new(o, "sample_regs_user", json_integer((json_int_t)a->sample_regs_user));
    json_object_set_new(o, "sample_stack_user", json_integer(a->sample_stack_user));
    for (i = 0; i < e->nids; i++)
        json_array_append_new(ids, json_integer((json_int_t)e->ids[i]));
    json_object_set_new(o, "ids", ids);
    return o;
}

static int raw_begin(record *r)
{
    char path[4096];
    json_t *list = json_array();
    size_t i;
    int rc;

    for (i = 0; i < r->nev; i++)
        json_array_append_new(list, attr_json(&r->ev[i]));
    snprintf(path, sizeof(path), "%s/attr.json", r->raw_dir);
    rc = json_dump_file(list, path, JSON_INDENT(2));
    json_decref(list);
    if (rc < 0) {
        rec_error("cannot write '%s'", path);
        return -1;
    }
    for (i = 0; i <= r->nrings; i++) {
        int *fd = i < r->nrings ? &r->rings[i].out_fd : &r->all_fd;

        if (i < r->nrings)
            snprintf(path, sizeof(path), "%s/ring-%d.stream", r->raw_dir, r->rings[i].cpu);
        else
            snprintf(path, sizeof(path), "%s/all.stream", r->raw_dir);
        *fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (*fd < 0) {
            rec_error("cannot create '%s': %s", path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;

    while (n > 0) {
        ssize_t k = write(fd, b, n);

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The sink                                                                  */

static int open_file(record *r)
{
    struct stat st;
    char old[4096];

    if (stat(r->output, &st) == 0 && S_ISREG(st.st_mode)) {
        snprintf(old, sizeof(old), "%s.old", r->output);
        if (rename(r->output, old) < 0) {
            rec_error("cannot keep the old '%s' as '%s': %s", r->output, old, strerror(errno));
            return -1;
        }
    }
    r->out_fd = open(r->output, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (r->out_fd < 0) {
        rec_error("cannot create '%s': %s", r->output, strerror(errno));
        return -1;
    }
    return 0;
}

int rec_out_open(record *r)
{
    ps_error err;
    unsigned flags = 0;

    if (r->raw_dir != NULL) {
        if (mkdir(r->raw_dir, 0755) < 0 && errno != EEXIST) {
            rec_error("cannot create '%s': %s", r->raw_dir, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (is_pipe(r)) {
        r->out_fd = STDOUT_FILENO;
        flags |= PS_WRITER_PIPE;
    } else if (open_file(r) < 0) {
        return -1;
    }
    if (r->compress)
        flags |= PS_WRITER_ZSTD;
    if (ps_writer_open(&r->w, r->out_fd, flags, r->level, &err) < 0) {
        rec_error("%s", err.msg);
        return -1;
    }
    return 0;
}

/* Attrs, features known at the start, then the writer's begin. */
int rec_out_begin(record *r)
{
    ps_error err;
    uint8_t *tp;
    size_t i, len;
    uint64_t st[2] = { 0, 0 };

    if (r->raw_dir != NULL)
        return raw_begin(r);
    for (i = 0; i < r->nev; i++)
        if (ps_writer_add_attr(r->w, &r->ev[i].attr, r->ev[i].ids, r->ev[i].nids,
                               r->ev[i].name, &err) < 0)
            goto fail;
    if (rec_features_host(r, &err) < 0)
        goto fail;
    if ((tp = rec_tracing_data(r, &len)) != NULL) {
        int rc = ps_writer_set_feature(r->w, PS_HEADER_TRACING_DATA, tp, len, &err);

        free(tp);
        if (rc < 0)
            goto fail;
    }
    if (is_pipe(r) && ps_writer_set_feature(r->w, PS_HEADER_SAMPLE_TIME, st, sizeof(st), &err) < 0)
        goto fail;
    if (ps_writer_begin(r->w, &err) < 0)
        goto fail;
    return 0;
fail:
    rec_error("%s", err.msg);
    return -1;
}

int rec_out_emit(record *r, size_t ring, const void *rec, size_t len)
{
    ps_error err;

    if (r->raw_dir != NULL) {
        size_t i;

        for (i = 0; i <= r->nrings; i++) {
            int fd = i < r->nrings ? r->rings[i].out_fd : r->all_fd;

            if (i < r->nrings && ring != REC_RING_ALL && ring != i)
                continue;
            if (write_all(fd, rec, len) < 0) {
                rec_error("cannot write the ring dump: %s", strerror(errno));
                return -1;
            }
            r->raw_bytes += len;
        }
        return 0;
    }
    if (ps_writer_write(r->w, rec, len, &err) < 0) {
        rec_error("%s", err.msg);
        return -1;
    }
    return 0;
}

int rec_out_round(record *r)
{
    ps_error err;

    if (r->raw_dir != NULL)
        return 0;
    if (ps_writer_round(r->w, &err) < 0) {
        rec_error("%s", err.msg);
        return -1;
    }
    return 0;
}

int rec_out_finish(record *r)
{
    ps_error err;
    uint64_t st[2] = { r->first_time, r->last_time };
    size_t i;

    if (r->raw_dir != NULL) {
        for (i = 0; i < r->nrings; i++)
            if (r->rings[i].out_fd >= 0 && close(r->rings[i].out_fd) < 0)
                return -1;
        return r->all_fd >= 0 ? close(r->all_fd) : 0;
    }
    if (!is_pipe(r) && (ps_writer_set_feature(r->w, PS_HEADER_SAMPLE_TIME, st, sizeof(st),
                                              &err) < 0 || set_build_ids(r, &err) < 0))
        goto fail;
    if (ps_writer_finish(r->w, &err) < 0)
        goto fail;
    return 0;
fail:
    rec_error("%s", err.msg);
    return -1;
}

void rec_out_free(record *r)
{
    size_t i;

    ps_writer_free(r->w);
    r->w = NULL;
    if (r->out_fd > STDOUT_FILENO)
        close(r->out_fd);
    for (i = 0; i < r->ndsos; i++)
        free(r->dsos[i].path);
    free(r->dsos);
    free(r->maps);
}
