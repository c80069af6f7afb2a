/* SPDX-License-Identifier: MIT */
/*
 * record_tp.c - tracepoints from tracefs: an event's id, and the
 * TRACING_DATA blob (spec 10.1) holding the formats of the recorded
 * events, so the capture decodes on any machine: version "0.6", this
 * host's byte order and long size, header_page/header_event, no ftrace
 * formats, one block per system, empty kallsyms, printk_formats, empty
 * saved_cmdlines.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include "record.h"

#define FILE_MAX (16u << 20)

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

/* the first of tracefs_dirs with tracefs mounted on it, or NULL */
static const char *tracefs_mounted(void)
{
    size_t i;

    for (i = 0; i < 2; i++) {
        char p[128];

        snprintf(p, sizeof(p), "%s/events", tracefs_dirs[i]);
        if (access(p, F_OK) == 0)
            return tracefs_dirs[i];
    }
    return NULL;
}

/* tracefs; where it is not mounted (a machine just booted), mounted at
 * its place as perf mounts it, which takes root: otherwise the lookups
 * fail and say so */
static const char *tracefs(void)
{
    const char *dir = tracefs_mounted();

    if (dir == NULL && mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL) == 0)
        dir = tracefs_mounted();
    return dir != NULL ? dir : tracefs_dirs[0];
}

/* A whole (pseudo) file; tracefs files report size 0, so read to EOF. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    char *b = NULL, *nb;
    size_t cap = 0, n = 0, k;

    if (f == NULL)
        return NULL;
    do {
        if (n + 4096 > cap) {
            cap = cap ? cap * 2 : 8192;
            if (cap > FILE_MAX || (nb = realloc(b, cap)) == NULL) {
                free(b);
                fclose(f);
                return NULL;
            }
            b = nb;
        }
        k = fread(b + n, 1, cap - n, f);
        n += k;
    } while (k > 0);
    fclose(f);
    *len = n;
    return b;
}

int rec_tracefs_id(const char *sys, const char *name, uint64_t *id)
{
    char path[1024], *b;
    size_t len;

    if (strchr(sys, '/') || strchr(name, '/') || strstr(sys, "..") || strstr(name, ".."))
        return -1;
    snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs(), sys, name);
    if ((b = slurp(path, &len)) == NULL)
        return -1;
    *id = strtoull(b, NULL, 10);
    free(b);
    return len > 0 ? 0 : -1;
}

/* A growing payload: a failed allocation sticks, so callers build the
 * whole thing and check once. */
void rec_put(rec_blob *o, const void *p, size_t n)
{
    uint8_t *nb;

    if (o->fail)
        return;
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 16384;

        while (cap < o->len + n)
            cap *= 2;
        if ((nb = realloc(o->b, cap)) == NULL) {
            o->fail = 1;
            return;
        }
        o->b = nb;
        o->cap = cap;
    }
    memcpy(o->b + o->len, p, n);
    o->len += n;
}

void rec_put32(rec_blob *o, uint32_t v) { rec_put(o, &v, 4); }
void rec_put64(rec_blob *o, uint64_t v) { rec_put(o, &v, 8); }

/* A file with its size first (u64 or u32); missing files are empty. */
static void put_file(rec_blob *o, const char *path, int wide)
{
    size_t len = 0;
    char *b = slurp(path, &len);

    if (wide)
        rec_put64(o, b ? len : 0);
    else
        rec_put32(o, b ? (uint32_t)len : 0);
    if (b)
        rec_put(o, b, len);
    free(b);
}

uint8_t *rec_tracing_data_for(const char *const *sys, const char *const *name, size_t n,
                              size_t *len)
{
    static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
    const char *fs = tracefs();
    char path[1024];
    uint8_t endian = 0, longsz = (uint8_t)sizeof(long);
    rec_blob o = { 0 };
    size_t i, j, nsys = 0;

    rec_put(&o, magic, sizeof(magic));
    rec_put(&o, "0.6", 4);
    rec_put(&o, &endian, 1);
    rec_put(&o, &longsz, 1);
    rec_put32(&o, (uint32_t)sysconf(_SC_PAGESIZE));
    rec_put(&o, "header_page", 12);
    snprintf(path, sizeof(path), "%s/events/header_page", fs);
    put_file(&o, path, 1);
    rec_put(&o, "header_event", 13);
    snprintf(path, sizeof(path), "%s/events/header_event", fs);
    put_file(&o, path, 1);
    rec_put32(&o, 0);                                       /* ftrace formats */
    for (i = 0; i < n; i++) {                           /* distinct systems */
        for (j = 0; j < i && strcmp(sys[j], sys[i]) != 0; j++)
            ;
        nsys += j == i;
    }
    rec_put32(&o, (uint32_t)nsys);
    for (i = 0; i < n; i++) {
        uint32_t count = 0;

        for (j = 0; j < i && strcmp(sys[j], sys[i]) != 0; j++)
            ;
        if (j < i)
            continue;                                   /* system already written */
        rec_put(&o, sys[i], strlen(sys[i]) + 1);
        for (j = i; j < n; j++)
            count += strcmp(sys[j], sys[i]) == 0;
        rec_put32(&o, count);
        for (j = i; j < n; j++)
            if (strcmp(sys[j], sys[i]) == 0) {
                snprintf(path, sizeof(path), "%s/events/%s/%s/format", fs, sys[j], name[j]);
                put_file(&o, path, 1);
            }
    }
    rec_put32(&o, 0);                                       /* kallsyms */
    snprintf(path, sizeof(path), "%s/printk_formats", fs);
    put_file(&o, path, 0);
    rec_put64(&o, 0);                                       /* saved_cmdlines */
    if (o.fail) {
        free(o.b);
        return NULL;
    }
    *len = o.len;
    return o.b;
}

/* The blob for the tracepoint events of r, or NULL (*len 0) if none. */
uint8_t *rec_tracing_data(const record *r, size_t *len)
{
    const char **sys = calloc(r->nev + 1, sizeof(*sys)), **name = calloc(r->nev + 1, sizeof(*name));
    size_t i, n = 0;
    uint8_t *b = NULL;

    *len = 0;
    if (sys != NULL && name != NULL) {
        for (i = 0; i < r->nev; i++)
            if (r->ev[i].attr.type == PERF_TYPE_TRACEPOINT) {
                sys[n] = r->ev[i].tp_sys;
                name[n++] = r->ev[i].tp_name;
            }
        if (n > 0)
            b = rec_tracing_data_for(sys, name, n, len);
    }
    free(sys);
    free(name);
    return b;
}

/* The blob for tracepoints known only by id (--repair): tracefs is
 * searched for the events with those ids. NULL if none is found. */
uint8_t *rec_tracing_data_ids(const uint64_t *ids, size_t nids, size_t *len)
{
    char path[1024], sysv[64][REC_NAME_MAX], namev[64][REC_NAME_MAX];
    const char *sys[64], *name[64];
    struct dirent *s, *e;
    DIR *sd, *ed;
    size_t n = 0, i;
    uint64_t id;

    *len = 0;
    snprintf(path, sizeof(path), "%s/events", tracefs());
    if ((sd = opendir(path)) == NULL)
        return NULL;
    while (n < nids && n < 64 && (s = readdir(sd)) != NULL) {
        if (s->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/events/%s", tracefs(), s->d_name);
        if ((ed = opendir(path)) == NULL)
            continue;
        while (n < 64 && (e = readdir(ed)) != NULL) {
            if (e->d_name[0] == '.' || rec_tracefs_id(s->d_name, e->d_name, &id) < 0)
                continue;
            for (i = 0; i < nids && ids[i] != id; i++)
                ;
            if (i == nids)
                continue;
            snprintf(sysv[n], REC_NAME_MAX, "%s", s->d_name);
            snprintf(namev[n], REC_NAME_MAX, "%s", e->d_name);
            sys[n] = sysv[n];
            name[n] = namev[n];
            n++;
        }
        closedir(ed);
    }
    closedir(sd);
    return n > 0 ? rec_tracing_data_for(sys, name, n, len) : NULL;
}
